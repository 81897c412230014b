// SPDX-License-Identifier: GPL-2.0
/*
 * cb_util.c - errors, allocation, integer parsing and growable strings for
 * the commands on the library and its option engine (cb_util.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cb_util.h"

const char *cb_prog = "copybench";

int cb_fail(struct cb_error *e, int status, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->status = status;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* "PROG: MESSAGE" and a newline on stderr. */
static void cb_vwarn(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cb_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cb_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cb_vwarn(fmt, ap);
	va_end(ap);
}

void cb_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cb_vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

int cb_report(const struct cb_error *e)
{
	fprintf(stderr, "%s: %s\n", cb_prog, e->msg);
	return e->status ? e->status : CB_EXIT_RUNTIME;
}

static void *cb_oom(void *p)
{
	if (!p)
		cb_die(CB_EXIT_RUNTIME, "out of memory");
	return p;
}

void *cb_malloc(size_t n)
{
	return cb_oom(malloc(n ? n : 1));
}

void *cb_calloc(size_t n, size_t size)
{
	return cb_oom(calloc(n ? n : 1, size ? size : 1));
}

void *cb_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		cb_die(CB_EXIT_RUNTIME, "out of memory");
	n *= size;
	return cb_oom(realloc(p, n ? n : 1));
}

char *cb_strdup(const char *s)
{
	return cb_oom(strdup(s));
}

int cb_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
		 unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cb_parse_i64(const char *s, long long lo, long long hi, long long *out)
{
	unsigned long long v;
	int neg = s && *s == '-';

	if (cb_parse_u64(s ? s + neg : s, 0, (unsigned long long)LLONG_MAX, &v))
		return -1;
	if ((neg ? -(long long)v : (long long)v) < lo ||
	    (neg ? -(long long)v : (long long)v) > hi)
		return -1;
	*out = neg ? -(long long)v : (long long)v;
	return 0;
}

static void cb_str_reserve(struct cb_str *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 64;
	while (b->len + more + 1 > b->cap)
		b->cap *= 2;
	b->s = cb_realloc(b->s, b->cap, 1);
}

void cb_str_addn(struct cb_str *b, const char *s, size_t n)
{
	cb_str_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void cb_str_add(struct cb_str *b, const char *s)
{
	cb_str_addn(b, s, strlen(s));
}

void cb_str_vprintf(struct cb_str *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	cb_str_reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void cb_str_printf(struct cb_str *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cb_str_vprintf(b, fmt, ap);
	va_end(ap);
}

void cb_str_free(struct cb_str *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
