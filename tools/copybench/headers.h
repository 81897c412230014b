/* SPDX-License-Identifier: GPL-2.0 */
/*
 * headers.h - are two records comparable? compare's check of their
 * headers (verdict.h calls it): every member one record holds otherwise
 * or alone, as text, and whether it makes the records incomparable (the
 * machine, the backend, the timing loop, tsc_khz beyond 0.1%).
 * Documentation/compare.rst says which members and why.
 */
#ifndef CB_HEADERS_H
#define CB_HEADERS_H

#include <stddef.h>

#include "json.h"
#include "util.h"

/* struct cb_cmp_diff - a header field the two records disagree on. */
struct cb_cmp_diff {
	char *field;		/* "kernel", "mitigations.spectre_v2" */
	char *base, *new;	/* the values as text; "(absent)" */
	int blocking;		/* makes the records incomparable */
};

/**
 * cb_headers_diff() - the differences of two headers.
 * @a: the base record's header (a JSON object)
 * @b: the new record's
 * @diffs: where each difference is appended, in @a's order, then the
 *	members only @b holds; freed by cb_headers_free()
 * @n: how many @diffs holds
 *
 * Return: 1 when a difference makes the records incomparable, else 0.
 */
int cb_headers_diff(const struct cb_json *a, const struct cb_json *b,
		    struct cb_cmp_diff **diffs, size_t *n);

/*
 * cb_headers_refuse() - refuse records of different machines: @e names
 * the records (@base and @new, their paths) and each blocking difference
 * of @d[0..@n). Return: -1.
 */
int cb_headers_refuse(const char *base, const char *new, const struct cb_cmp_diff *d,
		      size_t n, struct cb_error *e);

void cb_headers_free(struct cb_cmp_diff *d, size_t n);

#endif /* CB_HEADERS_H */
