/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_json_writer.h - a streaming JSON (RFC 8259) writer, the one every JSON
 * output of copybench and readers goes through: records, compare --json,
 * placement --json, readers --json. (The parser is tools/copybench/json.h.)
 *
 * The caller says what comes: an object or an array begins or ends, a key,
 * a value. The writer puts the commas and the colons, escapes strings and
 * checks the nesting: a key only in an object and a value after each, a
 * value in an object only after its key, every end matching its begin, at
 * most CB_JW_DEPTH levels, one top-level value unless CB_JW_LINES. A misuse
 * (EINVAL) or a failed write (its errno) stops the output; cb_jw_end()
 * reports the first, once, so a caller checks one return value at the end.
 *
 *	struct cb_jw w;
 *
 *	cb_jw_init(&w, stdout);
 *	cb_jw_begin_object(&w);
 *	cb_jw_str_field(&w, "type", "run");
 *	cb_jw_u64_field(&w, "threads", 4);
 *	cb_jw_end_object(&w);		(writes {"type":"run","threads":4}\n)
 *	if (cb_jw_end(&w))
 *		warn("standard output: %s", strerror(errno));
 *
 * Formats, the ones the records and outputs have always had: no white
 * space; in strings, a quote, a backslash, a line feed, a tab and a carriage
 * return escaped short (\n), any other control character and DEL as \u00XX,
 * valid UTF-8 as it is and any other byte as \ufffd (so what is written can
 * always be read back); integers in decimal; a double in the caller's
 * printf precision, %.*g or %.*f, and null when it is not finite.
 */
#ifndef CB_JSON_WRITER_H
#define CB_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CB_JW_DEPTH	32

/* Each top-level value is a line: a '\n' after it (JSON lines). */
#define CB_JW_LINES	0x1

/*
 * struct cb_jw - the writer's state; its members are the writer's own.
 * put() writes n bytes or returns -1 with errno set.
 */
struct cb_jw {
	int (*put)(void *ctx, const char *s, size_t n);
	void *ctx;
	FILE *f;		/* flushed by cb_jw_end(), when the sink is one */
	unsigned int flags;
	unsigned int depth;
	uint32_t object;	/* bit d - 1: level d is an object, not an array */
	uint32_t filled;	/* bit d - 1: level d has a member or element */
	bool key;		/* a key is written, its value not yet */
	bool done;		/* a top-level value is complete */
	int err;		/* the first error, an errno value; 0 none */
};

/* A writer of JSON lines to f. */
void cb_jw_init(struct cb_jw *w, FILE *f);
/* A writer through put(ctx, ...); flags: CB_JW_LINES or 0. */
void cb_jw_init_put(struct cb_jw *w, int (*put)(void *ctx, const char *s, size_t n),
		    void *ctx, unsigned int flags);
/*
 * cb_jw_end - the writer's verdict: 0 when everything was written and every
 * value is complete (a stream is flushed); else -1 with errno the first
 * error: the write's, or EINVAL for a misuse or a value left open.
 */
int cb_jw_end(struct cb_jw *w);

void cb_jw_begin_object(struct cb_jw *w);
void cb_jw_end_object(struct cb_jw *w);
void cb_jw_begin_array(struct cb_jw *w);
void cb_jw_end_array(struct cb_jw *w);
/* The key of the object's next member. */
void cb_jw_key(struct cb_jw *w, const char *key);

/* s escaped and quoted; NULL is null. */
void cb_jw_str(struct cb_jw *w, const char *s);
void cb_jw_u64(struct cb_jw *w, unsigned long long v);
void cb_jw_s64(struct cb_jw *w, long long v);
/* v as printf's %.*g (cb_jw_g) or %.*f (cb_jw_f) of prec; null if not finite. */
void cb_jw_g(struct cb_jw *w, int prec, double v);
void cb_jw_f(struct cb_jw *w, int prec, double v);
void cb_jw_bool(struct cb_jw *w, bool v);
void cb_jw_null(struct cb_jw *w);

/* A member: its key, then its value. */
static inline void cb_jw_str_field(struct cb_jw *w, const char *key, const char *s)
{
	cb_jw_key(w, key);
	cb_jw_str(w, s);
}

static inline void cb_jw_u64_field(struct cb_jw *w, const char *key, unsigned long long v)
{
	cb_jw_key(w, key);
	cb_jw_u64(w, v);
}

static inline void cb_jw_s64_field(struct cb_jw *w, const char *key, long long v)
{
	cb_jw_key(w, key);
	cb_jw_s64(w, v);
}

static inline void cb_jw_g_field(struct cb_jw *w, const char *key, int prec, double v)
{
	cb_jw_key(w, key);
	cb_jw_g(w, prec, v);
}

static inline void cb_jw_f_field(struct cb_jw *w, const char *key, int prec, double v)
{
	cb_jw_key(w, key);
	cb_jw_f(w, prec, v);
}

static inline void cb_jw_bool_field(struct cb_jw *w, const char *key, bool v)
{
	cb_jw_key(w, key);
	cb_jw_bool(w, v);
}

static inline void cb_jw_null_field(struct cb_jw *w, const char *key)
{
	cb_jw_key(w, key);
	cb_jw_null(w);
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 if there is none. */
size_t cb_utf8_seq(const unsigned char *s, size_t n);

#endif /* CB_JSON_WRITER_H */
