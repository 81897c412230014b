// SPDX-License-Identifier: GPL-2.0
/*
 * sizes.c - parse the --sizes language (sizes.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizes.h"

#define CB_SIZES_FORMS	"N, LO-HI, LO-HI:STEP, pow2:LO-HI, random:LO-HI, comma-separated; " \
			"bytes with an optional K, M or G suffix"

struct cb_sizes {
	struct cb_size *v;
	size_t n, cap;
};

static int cb_sizes_add(struct cb_sizes *s, unsigned long long lo, unsigned long long hi,
			int random)
{
	if (s->n == CB_SIZES_MAX)
		return -1;
	if (s->n == s->cap)
		s->v = cb_realloc(s->v, s->cap = s->cap ? 2 * s->cap : 64, sizeof(*s->v));
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->v[s->n].random = random;
	s->n++;
	return 0;
}

/* "LO-HI" into lo, hi (lo <= hi, both <= max); -1 if malformed. */
static int cb_range_parse(char *r, unsigned long long max, unsigned long long *lo,
			  unsigned long long *hi)
{
	char *dash = strchr(r, '-');

	if (!dash)
		return -1;
	*dash = '\0';
	if (cb_parse_bytes(r, 0, max, lo) || cb_parse_bytes(dash + 1, 0, max, hi) || *lo > *hi)
		return -1;
	return 0;
}

static int cb_cmp_size(const void *a, const void *b)
{
	const struct cb_size *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One item of the list; -1 when malformed, -2 when too many sizes. */
static int cb_size_item(struct cb_sizes *s, char *item, unsigned long long max)
{
	unsigned long long lo, hi, step = 1, v;
	char *colon;

	if (!strncmp(item, "random:", 7)) {
		if (cb_range_parse(item + 7, max, &lo, &hi))
			return -1;
		return cb_sizes_add(s, lo, hi, 1) ? -2 : 0;
	}
	if (!strncmp(item, "pow2:", 5)) {
		if (cb_range_parse(item + 5, max, &lo, &hi))
			return -1;
		for (v = 1; v && v <= hi; v <<= 1)
			if (v >= lo && cb_sizes_add(s, v, v, 0))
				return -2;
		return 0;
	}
	if (!strchr(item, '-')) {
		if (strchr(item, ':') || cb_parse_bytes(item, 0, max, &v))
			return -1;
		return cb_sizes_add(s, v, v, 0) ? -2 : 0;
	}
	colon = strchr(item, ':');
	if (colon) {
		*colon = '\0';
		if (cb_parse_bytes(colon + 1, 1, max ? max : 1, &step))
			return -1;
	}
	if (cb_range_parse(item, max, &lo, &hi))
		return -1;
	for (v = lo; v <= hi; v += step) {
		if (cb_sizes_add(s, v, v, 0))
			return -2;
		if (hi - v < step)
			break;
	}
	return 0;
}

int cb_sizes_parse(const char *arg, unsigned long long max, struct cb_size **out, size_t *n,
		   struct cb_error *e)
{
	struct cb_sizes s = { 0 };
	char *copy = cb_strdup(arg), *item, *save = NULL, *orig;
	struct cb_size *rnd;
	size_t i, j, r = 0, nfixed;
	char maxs[24];
	int ret;

	cb_fmt_bytes(max, maxs, sizeof(maxs));
	if (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,")) {
		free(copy);
		return cb_fail(e, CB_EXIT_USAGE, "invalid --sizes '%s': empty item (accepted: %s; 0..%s)",
			       arg, CB_SIZES_FORMS, maxs);
	}
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		orig = cb_strdup(item);
		ret = cb_size_item(&s, item, max);
		if (ret == -2)
			cb_fail(e, CB_EXIT_USAGE, "invalid --sizes '%s': more than %d sizes", arg,
				CB_SIZES_MAX);
		else if (ret)
			cb_fail(e, CB_EXIT_USAGE,
				"invalid --sizes '%s': bad item '%s' (accepted: %s; 0..%s, LO <= HI, STEP >= 1)",
				arg, orig, CB_SIZES_FORMS, maxs);
		free(orig);
		if (ret) {
			free(copy);
			free(s.v);
			return -1;
		}
	}
	free(copy);
	if (!s.n) {
		free(s.v);
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --sizes '%s': no power of two in the range (accepted: %s)",
			       arg, CB_SIZES_FORMS);
	}
	/* Fixed sizes ascending and unique, random ranges after them as given. */
	rnd = cb_calloc(s.n, sizeof(*rnd));
	for (i = 0; i < s.n; i++)
		if (s.v[i].random)
			rnd[r++] = s.v[i];
	for (i = j = 0; i < s.n; i++)
		if (!s.v[i].random)
			s.v[j++] = s.v[i];
	nfixed = j;
	qsort(s.v, nfixed, sizeof(*s.v), cb_cmp_size);
	for (i = j = 0; i < nfixed; i++)
		if (!j || s.v[i].lo != s.v[j - 1].lo)
			s.v[j++] = s.v[i];
	for (i = 0; i < r; i++)
		s.v[j++] = rnd[i];
	free(rnd);
	*out = s.v;
	*n = j;
	return 0;
}

const char *cb_size_name(const struct cb_size *s, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (!s->random)
		return cb_fmt_bytes(s->lo, buf, len);
	snprintf(buf, len, "random:%s-%s", cb_fmt_bytes(s->lo, lo, sizeof(lo)),
		 cb_fmt_bytes(s->hi, hi, sizeof(hi)));
	return buf;
}
