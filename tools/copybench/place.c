// SPDX-License-Identifier: GPL-2.0
/*
 * place.c - placements drawn per process (place.h): parsed from
 * --placement, named for the record's header, drawn from the seed.
 */
#include <stdlib.h>
#include <string.h>

#include "place.h"

static int cb_place_number(const char *s, unsigned long long max, unsigned long align,
			   unsigned long long *v)
{
	return cb_parse_u64(s, 0, max, v) || *v % align ? -1 : 0;
}

int cb_placement_parse(const char *arg, struct cb_placement *pl, struct cb_error *e)
{
	unsigned long long v[3];
	char *copy, *f[3], *save = NULL;
	int i, bad = 0;

	memset(pl, 0, sizeof(*pl));
	if (!strcmp(arg, "vary"))
		return 0;
	if (!strcmp(arg, "vary-pages")) {
		pl->keep_offsets = 1;
		return 0;
	}
	if (!strcmp(arg, "fixed")) {
		pl->mode = CB_PLACE_FIXED;
		pl->at.stack = -1;
		return 0;
	}
	copy = cb_strdup(arg);
	for (i = 0; i < 3; i++) {
		f[i] = strtok_r(i ? NULL : copy, ":", &save);
		bad |= !f[i];
	}
	bad = bad || strtok_r(NULL, ":", &save) || strchr(arg, ':') == arg ||
	      strstr(arg, "::") || arg[strlen(arg) - 1] == ':' ||
	      cb_place_number(f[0], CB_PLACE_SPAN - 1, CB_PLACE_LINE, &v[0]) ||
	      cb_place_number(f[1], CB_PLACE_SPAN - 1, CB_PLACE_LINE, &v[1]) ||
	      cb_place_number(f[2], CB_PAGE - 1, CB_PLACE_STACK_ALIGN, &v[2]);
	free(copy);
	if (bad)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --placement '%s' (accepted: vary, vary-pages, fixed, or SRC:DST:STACK: the source's and destination's shifts in bytes, multiples of %lu below %lu, and the stack top's page offset, a multiple of %lu below %lu)",
			       arg, CB_PLACE_LINE, CB_PLACE_SPAN, CB_PLACE_STACK_ALIGN, CB_PAGE);
	pl->mode = CB_PLACE_AT;
	pl->at.src_shift = (unsigned long)v[0];
	pl->at.dst_shift = (unsigned long)v[1];
	pl->at.stack = (long)v[2];
	return 0;
}

void cb_placement_name(const struct cb_placement *pl, struct cb_str *b)
{
	switch (pl->mode) {
	case CB_PLACE_VARY:
		cb_str_add(b, pl->keep_offsets ? "vary-pages" : "vary");
		break;
	case CB_PLACE_FIXED:
		cb_str_add(b, "fixed");
		break;
	case CB_PLACE_AT:
		cb_str_printf(b, "%lu:%lu:%ld", pl->at.src_shift, pl->at.dst_shift, pl->at.stack);
		break;
	}
}

/* splitmix64: the placements of a seed, one stream per process. */
static unsigned long long cb_place_rand(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Whether the distance d (mod 4 KiB) may be drawn: 0, or out of the band. */
static int cb_place_distance_ok(unsigned long d)
{
	d %= CB_PAGE;
	return !d || (d > CB_PLACE_BAND && d < CB_PAGE - CB_PLACE_BAND);
}

void cb_place_draw(const struct cb_placement *pl, unsigned long long seed, unsigned int index,
		   struct cb_place *out)
{
	const unsigned long pages = CB_PLACE_SPAN / CB_PAGE, per_page = CB_PAGE / CB_PLACE_LINE;
	unsigned long long s = seed * 0x2545F4914F6CDD1DULL ^ ((unsigned long long)index << 32 | index);
	unsigned long src_line = 0, dst_line = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	if (pl->mode != CB_PLACE_VARY) {
		*out = pl->at;
		out->cpu = -1;
		if (pl->mode == CB_PLACE_FIXED)
			out->stack = -1;
		return;
	}
	out->src_shift = (unsigned long)(cb_place_rand(&s) % pages) * CB_PAGE;
	out->dst_shift = (unsigned long)(cb_place_rand(&s) % pages) * CB_PAGE;
	out->stack = (long)(cb_place_rand(&s) % (CB_PAGE / CB_PLACE_STACK_ALIGN)) *
		     (long)CB_PLACE_STACK_ALIGN;
	if (!pl->keep_offsets) {
		src_line = (unsigned long)(cb_place_rand(&s) % per_page);
		do
			dst_line = (unsigned long)(cb_place_rand(&s) % per_page);
		while (!cb_place_distance_ok(CB_PAGE + (dst_line - src_line) * CB_PLACE_LINE));
	}
	out->src_shift += src_line * CB_PLACE_LINE;
	out->dst_shift += dst_line * CB_PLACE_LINE;
}

void cb_place_describe(const struct cb_place *p, struct cb_str *b)
{
	cb_str_printf(b, "src+%lu dst+%lu distance %lu stack ", p->src_shift, p->dst_shift,
		      (p->dst_shift - p->src_shift) % CB_PAGE);
	if (p->stack < 0)
		cb_str_add(b, "own");
	else
		cb_str_printf(b, "%ld", p->stack);
	cb_str_printf(b, " cpu %d", p->cpu);
}
