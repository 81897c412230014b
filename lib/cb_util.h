/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_util.h - what the commands on the library share with its option
 * engine (lib/cb_options.h): the error carried back to the caller (message
 * and exit status) and how a program says it, allocation that never
 * returns NULL, strict integer parsing and a growable string. The copybench
 * command (tools/copybench/util.h adds what only it needs) and readers are
 * built on it.
 */
#ifndef LIB_CB_UTIL_H
#define LIB_CB_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/*
 * The kernel's attribute shorthands, which userspace headers lack (tools
 * share kselftest.h's: a test includes kselftest_harness.h first).
 * Spelled with GCC's alternate keyword __attribute, or checkpatch, which
 * asks for these very macros, flags their definition.
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

/* Exit statuses of every subcommand, and of readers. */
#define CB_EXIT_OK	0
#define CB_EXIT_RUNTIME	1	/* the measurement or the system failed */
#define CB_EXIT_USAGE	2	/* bad option, value or input file */

#define CB_ERR_MAX	1024

/*
 * struct cb_error - why something failed: the message (without the
 * program's name, which the caller prefixes) and the exit status it calls
 * for (CB_EXIT_RUNTIME or CB_EXIT_USAGE).
 */
struct cb_error {
	int status;
	char msg[CB_ERR_MAX];
};

/* Sets e (when not NULL) and returns -1, so "return cb_fail(...)" reads. */
__printf(3, 4) int cb_fail(struct cb_error *e, int status, const char *fmt, ...);

/*
 * The name messages start with: "copybench" (the default), "copybench
 * SUBCOMMAND" or "readers", set by main(). cb_die() prints "NAME: message"
 * and exits with status; running out of memory dies so.
 */
extern const char *cb_prog;
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
 * space, no 0x). cb_parse_i64 also takes a leading '-'. 0 on success, -1
 * otherwise.
 */
int cb_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
		 unsigned long long *out);
int cb_parse_i64(const char *s, long long lo, long long hi, long long *out);

/* struct cb_str - a growable, always NUL-terminated string. */
struct cb_str {
	char *s;
	size_t len, cap;
};

void cb_str_add(struct cb_str *b, const char *s);
void cb_str_addn(struct cb_str *b, const char *s, size_t n);
__printf(2, 3) void cb_str_printf(struct cb_str *b, const char *fmt, ...);
void cb_str_vprintf(struct cb_str *b, const char *fmt, va_list ap);
void cb_str_free(struct cb_str *b);

#endif /* LIB_CB_UTIL_H */
