/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - what every part of the copybench command shares: the error
 * carried back to the subcommand (message and exit status), allocation
 * that never returns NULL, strict number parsing, a growable string and
 * files written whole or not at all.
 */
#ifndef CB_UTIL_H
#define CB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/*
 * The kernel's attribute shorthands, which userspace headers lack (tools
 * share kselftest.h's). Spelled with GCC's alternate keyword __attribute,
 * or checkpatch, which asks for these very macros, flags their definition.
 */
#ifndef __printf
#define __printf(a, b)	__attribute((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute((__noreturn__))
#endif
#ifndef noinline
#define noinline	__attribute((__noinline__))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute((__aligned__(x)))
#endif
#ifndef __always_inline
#define __always_inline	__attribute((__always_inline__))
#endif

/* Exit statuses of every subcommand. */
#define CB_EXIT_OK	0
#define CB_EXIT_RUNTIME	1	/* the measurement or the system failed */
#define CB_EXIT_USAGE	2	/* bad option, value or input file */

#define CB_ERR_MAX	1024

/*
 * struct cb_error - why something failed: the message (without the
 * program's name, which the subcommand prefixes) and the exit status it
 * calls for (CB_EXIT_RUNTIME or CB_EXIT_USAGE).
 */
struct cb_error {
	int status;
	char msg[CB_ERR_MAX];
};

/* Sets e (when not NULL) and returns -1, so "return cb_fail(...)" reads. */
__printf(3, 4) int cb_fail(struct cb_error *e, int status, const char *fmt, ...);

/*
 * The name messages start with: "copybench" or "copybench SUBCOMMAND".
 * cb_die() prints "NAME: message" and exits with status.
 */
extern const char *cb_prog;
void cb_set_prog(const char *subcommand);
__printf(1, 2) void cb_warn(const char *fmt, ...);
__noreturn __printf(2, 3) void cb_die(int status, const char *fmt, ...);
/* Prints e->msg the same way and returns e->status. */
int cb_report(const struct cb_error *e);

void *cb_malloc(size_t n);
void *cb_calloc(size_t n, size_t size);
void *cb_realloc(void *p, size_t n, size_t size);
char *cb_strdup(const char *s);

/*
 * cb_parse_u64 - a decimal integer in [lo, hi]: digits only (no sign, no
 * space, no 0x). cb_parse_i64 also takes a leading '-'. cb_parse_bytes also
 * takes one suffix K, M or G (powers of 1024). 0 on success, -1 otherwise.
 */
int cb_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
		 unsigned long long *out);
int cb_parse_i64(const char *s, long long lo, long long hi, long long *out);
int cb_parse_bytes(const char *s, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out);
/* "4096" -> "4K" when it divides evenly; buf of at least 24 bytes. */
const char *cb_fmt_bytes(unsigned long long v, char *buf, size_t len);

/* struct cb_str - a growable, always NUL-terminated string. */
struct cb_str {
	char *s;
	size_t len, cap;
};

void cb_str_add(struct cb_str *b, const char *s);
/*
 * s with each control character (a line break, an escape) as '?': text
 * from a record that a line-oriented report prints.
 */
void cb_str_add_clean(struct cb_str *b, const char *s);
/* Whether s holds a control character. */
int cb_has_control(const char *s);
void cb_str_addn(struct cb_str *b, const char *s, size_t n);
__printf(2, 3) void cb_str_printf(struct cb_str *b, const char *fmt, ...);
void cb_str_vprintf(struct cb_str *b, const char *fmt, va_list ap);
/*
 * s as a JSON string, quotes included, as lib/cb_json_writer.h writes it;
 * cb_str_put() is that writer's sink for a struct cb_str (ctx), appending.
 */
void cb_str_json(struct cb_str *b, const char *s);
int cb_str_put(void *ctx, const char *s, size_t n);
/* s quoted for a POSIX shell when it needs it. */
void cb_str_shell(struct cb_str *b, const char *s);
void cb_str_free(struct cb_str *b);

/*
 * struct cb_outfile - a file that appears whole or not at all: written to
 * a temporary name in the same directory and renamed over path by
 * cb_outfile_commit(); cb_outfile_abort() (or dying) removes it.
 */
struct cb_outfile {
	char *path;
	char *tmp;
	FILE *f;
};

int cb_outfile_open(struct cb_outfile *o, const char *path, struct cb_error *e);
int cb_outfile_commit(struct cb_outfile *o, struct cb_error *e);
void cb_outfile_abort(struct cb_outfile *o);

/*
 * Reads a whole file into a NUL-terminated buffer (*len excludes the NUL).
 * Returns NULL with errno set on failure.
 */
char *cb_read_file(const char *path, size_t *len);

/* CLOCK_MONOTONIC, in ns. */
unsigned long long cb_now_ns(void);

#endif /* CB_UTIL_H */
