/* SPDX-License-Identifier: GPL-2.0 */
/*
 * place.h - placements: where each process of a record puts its buffers
 * within their huge pages, where its stack is and which CPU it runs on,
 * drawn per process from the seed. The placement goes into the record, so
 * a point can be measured again where it was; both backends place their
 * buffers by it. Documentation/measure.rst, "Processes and placement",
 * says why and within which bounds.
 */
#ifndef CB_PLACE_H
#define CB_PLACE_H

#include "util.h"

/* The page size the placements are drawn in. */
#define CB_PAGE			4096UL
/* Buffer shifts stay within one huge page: the cache sets they reach. */
#define CB_PLACE_SPAN		(2UL << 20)
/* Shifts are whole cache lines: a point's alignment in its line holds. */
#define CB_PLACE_LINE		64UL
/*
 * Distances dst - src (mod 4 KiB) within this many bytes of 0, other than
 * 0, are not drawn: the 4K-aliasing band where a load seems to depend on
 * an earlier store to another page (Laight: the destination less than ~48
 * bytes before the source; on Zen 3, 8 to 24 bytes after it), widened to
 * whole lines on both sides.
 */
#define CB_PLACE_BAND		256UL
/* Worker stacks are aligned as the ABI aligns a frame. */
#define CB_PLACE_STACK_ALIGN	16UL

/**
 * enum cb_place_mode - what --placement asked.
 * @CB_PLACE_VARY: each process draws its placement from the seed (and,
 *	unless the offsets are kept, the cache lines the buffers start at)
 * @CB_PLACE_FIXED: every process as one: buffers at the start of their
 *	huge pages, the process's own stack (copybench before processes)
 * @CB_PLACE_AT: every process at one given placement (to measure a
 *	process of a record again where it was)
 */
enum cb_place_mode {
	CB_PLACE_VARY,
	CB_PLACE_FIXED,
	CB_PLACE_AT,
};

/**
 * struct cb_place - where one process puts things.
 * @src_shift: bytes added to every point's src_offset: the source starts
 *	src_shift + src_offset bytes into its huge page (user backend; the
 *	module backend adds it to its src_offset knob, modulo 4 KiB); a
 *	multiple of CB_PLACE_LINE below CB_PLACE_SPAN
 * @dst_shift: the same for the destination
 * @stack: the page offset of the top of the stack the worker measures on
 *	(a multiple of CB_PLACE_STACK_ALIGN), -1 for the process's own stack
 * @cpu: the CPU the process pins to
 */
struct cb_place {
	unsigned long src_shift, dst_shift;
	long stack;
	int cpu;
};

/**
 * struct cb_placement - the --placement option.
 * @mode: vary, fixed or at
 * @keep_offsets: vary only the pages and the stack, not where in its page
 *	each buffer starts ("vary-pages": the offsets asked, and so the
 *	distance dst - src, hold; sweep with --src-offset or --dst-offset, and
 *	alias, whose distances are its points)
 * @at: the placement of CB_PLACE_AT (its @cpu unused)
 */
struct cb_placement {
	enum cb_place_mode mode;
	int keep_offsets;
	struct cb_place at;
};

/*
 * cb_placement_parse - "vary", "vary-pages", "fixed" or "SRC:DST:STACK" (bytes: the
 * source's and destination's shifts and the stack top's page offset, as a
 * record's src_place - src_offset, dst_place - dst_offset and
 * stack_place give them). 0, or -1 with e naming the option, the value
 * and what is accepted (exit 2).
 */
int cb_placement_parse(const char *arg, struct cb_placement *pl, struct cb_error *e);

/* What the record's header says: "vary", "vary-pages", "fixed", "SRC:DST:STACK". */
void cb_placement_name(const struct cb_placement *pl, struct cb_str *b);

/*
 * cb_place_draw - the placement of process number index: drawn from seed
 * and index alone (the same seed gives the same placements, in any
 * record), uniformly: each buffer's 4 KiB page within its huge page and
 * the stack's offset; with lines, also each buffer's cache line within
 * its page (unless pl->keep_offsets), the distance dst - src (mod 4 KiB)
 * kept out of the band (CB_PLACE_BAND). Fixed and at give their
 * placement. out->cpu is not set.
 */
void cb_place_draw(const struct cb_placement *pl, unsigned long long seed, unsigned int index,
		   struct cb_place *out);

/* "src+S dst+D stack K cpu C", for plans and messages. */
void cb_place_describe(const struct cb_place *p, struct cb_str *b);

#endif /* CB_PLACE_H */
