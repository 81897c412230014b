/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sizes.h - the --sizes language of copybench sweep and alias.
 *
 * A comma-separated list of items, bytes with an optional K, M or G suffix
 * (powers of 1024):
 *   N             one size:                       4K
 *   LO-HI         every size from LO to HI:       0-256
 *   LO-HI:STEP    LO, LO+STEP, ... up to HI:      1-64:1, 0-4K:64
 *   pow2:LO-HI    the powers of two in [LO, HI]:  pow2:1-64M
 *   random:LO-HI  one point whose every copy draws its size uniformly
 *                 from [LO, HI] and an offset in a cache line for both
 *                 buffers (seeded): the predictors cannot learn one
 *                 size or alignment
 * Fixed sizes come out sorted ascending without duplicates, random ranges
 * after them in the order given.
 */
#ifndef CB_SIZES_H
#define CB_SIZES_H

#include <stddef.h>

#include "util.h"

/* Most sizes one --sizes may expand to. */
#define CB_SIZES_MAX	65536

/* One size, or a random range (random: lo < hi or lo == hi). */
struct cb_size {
	unsigned long long lo, hi;
	int random;
};

/*
 * cb_sizes_parse - parse arg with every size in [0, max]. 0 and a
 * malloc'ed array in *out (*n entries), or -1 with e set (CB_EXIT_USAGE,
 * message naming the bad item and the accepted forms).
 */
int cb_sizes_parse(const char *arg, unsigned long long max, struct cb_size **out, size_t *n,
		   struct cb_error *e);

/* "4096", "4K" or "random:1-64" for tables; buf of at least 64 bytes. */
const char *cb_size_name(const struct cb_size *s, char *buf, size_t len);

#endif /* CB_SIZES_H */
