// SPDX-License-Identifier: GPL-2.0
/*
 * cb_json_writer.c - the streaming JSON writer of cb_json_writer.h: each
 * value first takes its place (a comma before it, a key before it in an
 * object), then writes itself; the first error stops everything after it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/cb_json_writer.h"

#define CB_JW_BIT(d)	(1U << ((d) - 1))

/* A line-buffered stream's failed flush shows in ferror(), not in the count. */
static int cb_jw_file_put(void *ctx, const char *s, size_t n)
{
	return fwrite(s, 1, n, ctx) == n && !ferror(ctx) ? 0 : -1;
}

void cb_jw_init_put(struct cb_jw *w, int (*put)(void *ctx, const char *s, size_t n),
		    void *ctx, unsigned int flags)
{
	memset(w, 0, sizeof(*w));
	w->put = put;
	w->ctx = ctx;
	w->flags = flags;
}

void cb_jw_init(struct cb_jw *w, FILE *f)
{
	cb_jw_init_put(w, cb_jw_file_put, f, CB_JW_LINES);
	w->f = f;
}

static void cb_jw_fail(struct cb_jw *w, int err)
{
	if (!w->err)
		w->err = err ? err : EIO;
}

static void cb_jw_write(struct cb_jw *w, const char *s, size_t n)
{
	if (!w->err && n && w->put(w->ctx, s, n))
		cb_jw_fail(w, errno);
}

static void cb_jw_puts(struct cb_jw *w, const char *s)
{
	cb_jw_write(w, s, strlen(s));
}

static bool cb_jw_in_object(const struct cb_jw *w)
{
	return w->depth && (w->object & CB_JW_BIT(w->depth));
}

/*
 * A value's place: after its key in an object, after a comma in an array
 * that has an element, alone at the top. False (and the writer failed)
 * when no value may come here.
 */
static bool cb_jw_value(struct cb_jw *w)
{
	if (w->err)
		return false;
	if (cb_jw_in_object(w)) {
		if (!w->key) {
			cb_jw_fail(w, EINVAL);
			return false;
		}
		w->key = false;
		return true;
	}
	if (!w->depth) {
		if (w->done && !(w->flags & CB_JW_LINES)) {
			cb_jw_fail(w, EINVAL);
			return false;
		}
		return true;
	}
	if (w->filled & CB_JW_BIT(w->depth))
		cb_jw_puts(w, ",");
	w->filled |= CB_JW_BIT(w->depth);
	return true;
}

/* After a value: a top-level one is complete, its line ended. */
static void cb_jw_after(struct cb_jw *w)
{
	if (w->depth)
		return;
	w->done = true;
	if (w->flags & CB_JW_LINES)
		cb_jw_puts(w, "\n");
}

static void cb_jw_scalar(struct cb_jw *w, const char *text)
{
	if (!cb_jw_value(w))
		return;
	cb_jw_puts(w, text);
	cb_jw_after(w);
}

static void cb_jw_begin(struct cb_jw *w, bool object)
{
	if (!cb_jw_value(w))
		return;
	if (w->depth == CB_JW_DEPTH) {
		cb_jw_fail(w, EINVAL);
		return;
	}
	w->depth++;
	w->filled &= ~CB_JW_BIT(w->depth);
	if (object)
		w->object |= CB_JW_BIT(w->depth);
	else
		w->object &= ~CB_JW_BIT(w->depth);
	cb_jw_puts(w, object ? "{" : "[");
}

static void cb_jw_close(struct cb_jw *w, bool object)
{
	if (w->err)
		return;
	if (!w->depth || cb_jw_in_object(w) != object || w->key) {
		cb_jw_fail(w, EINVAL);
		return;
	}
	w->depth--;
	cb_jw_puts(w, object ? "}" : "]");
	cb_jw_after(w);
}

void cb_jw_begin_object(struct cb_jw *w)
{
	cb_jw_begin(w, true);
}

void cb_jw_end_object(struct cb_jw *w)
{
	cb_jw_close(w, true);
}

void cb_jw_begin_array(struct cb_jw *w)
{
	cb_jw_begin(w, false);
}

void cb_jw_end_array(struct cb_jw *w)
{
	cb_jw_close(w, false);
}

size_t cb_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len, i;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * The escape of the byte at p (rest bytes long, *n set to how many bytes
 * it covers), or NULL when those bytes are written as they are.
 */
static const char *cb_jw_escape(const unsigned char *p, size_t rest, size_t *n, char *buf,
				size_t len)
{
	*n = 1;
	switch (*p) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	}
	if (*p < 0x20 || *p == 0x7f) {
		snprintf(buf, len, "\\u%04x", *p);
		return buf;
	}
	if (*p < 0x80)
		return NULL;
	/* Valid UTF-8 as it is, any other byte as U+FFFD. */
	*n = cb_utf8_seq(p, rest);
	if (*n)
		return NULL;
	*n = 1;
	return "\\ufffd";
}

/* s quoted, the bytes that need no escape written a run at a time. */
static void cb_jw_quote(struct cb_jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	size_t rest = strlen(s), n;
	const char *esc;
	char buf[8];

	cb_jw_puts(w, "\"");
	while (rest) {
		esc = cb_jw_escape(p, rest, &n, buf, sizeof(buf));
		if (esc) {
			cb_jw_write(w, (const char *)run, (size_t)(p - run));
			cb_jw_puts(w, esc);
			run = p + n;
		}
		p += n;
		rest -= n;
	}
	cb_jw_write(w, (const char *)run, (size_t)(p - run));
	cb_jw_puts(w, "\"");
}

void cb_jw_key(struct cb_jw *w, const char *key)
{
	if (w->err)
		return;
	if (!cb_jw_in_object(w) || w->key) {
		cb_jw_fail(w, EINVAL);
		return;
	}
	if (w->filled & CB_JW_BIT(w->depth))
		cb_jw_puts(w, ",");
	w->filled |= CB_JW_BIT(w->depth);
	cb_jw_quote(w, key);
	cb_jw_puts(w, ":");
	w->key = true;
}

void cb_jw_str(struct cb_jw *w, const char *s)
{
	if (!s) {
		cb_jw_null(w);
		return;
	}
	if (!cb_jw_value(w))
		return;
	cb_jw_quote(w, s);
	cb_jw_after(w);
}

void cb_jw_u64(struct cb_jw *w, unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	cb_jw_scalar(w, buf);
}

void cb_jw_s64(struct cb_jw *w, long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", v);
	cb_jw_scalar(w, buf);
}

/* A finite v as printf's format fmt of prec, which has one precision and one double. */
static void cb_jw_double(struct cb_jw *w, const char *fmt, int prec, double v)
{
	char buf[512];
	int n;

	if (!isfinite(v)) {
		cb_jw_null(w);
		return;
	}
	n = snprintf(buf, sizeof(buf), fmt, prec, v);
	if (n < 0 || (size_t)n >= sizeof(buf))
		cb_jw_fail(w, EINVAL);
	cb_jw_scalar(w, buf);
}

void cb_jw_g(struct cb_jw *w, int prec, double v)
{
	cb_jw_double(w, "%.*g", prec, v);
}

void cb_jw_f(struct cb_jw *w, int prec, double v)
{
	cb_jw_double(w, "%.*f", prec, v);
}

void cb_jw_bool(struct cb_jw *w, bool v)
{
	cb_jw_scalar(w, v ? "true" : "false");
}

void cb_jw_null(struct cb_jw *w)
{
	cb_jw_scalar(w, "null");
}

int cb_jw_end(struct cb_jw *w)
{
	if (w->depth || w->key)
		cb_jw_fail(w, EINVAL);
	if (w->f && fflush(w->f))
		cb_jw_fail(w, errno);
	if (w->f && ferror(w->f))
		cb_jw_fail(w, EIO);
	if (!w->err)
		return 0;
	errno = w->err;
	return -1;
}
