/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interleave.h - the interleaved design: how one process times the points
 * of its repeat (Documentation/measure.rst, "How a point is measured").
 * Every point is timed in bursts, one burst a round, set->rounds rounds,
 * each round in a fresh random order drawn from the seed, the repeat and
 * the round; a native point's bursts are paired with those of its control
 * (cb_control_variant()) in the same round, adjacent in time, the order
 * of the two drawn per pair.
 */
#ifndef CB_INTERLEAVE_H
#define CB_INTERLEAVE_H

#include "backend.h"

/* Measured points, in plan order, with what they gave. */
struct cb_measured {
	struct cb_point p;
	struct cb_result r;
};

/*
 * The control native point p of b is paired with: the index of its size
 * class's control (points.c, cb_size_class_control(): the first one the
 * CPU runs in p's direction), or -1.
 */
int cb_control_variant(const struct cb_backend *b, const struct cb_point *p);

/*
 * cb_interleave - time pts[0..n) (one repeat's) in the interleaved
 * design; emit(arg, m) gets each point's figures in plan order once all
 * rounds are done. A native point whose control the plan lacks is paired
 * with a control timed for it alone (not emitted). 0, or -1 with e set
 * (interrupted: "interrupted").
 */
int cb_interleave(struct cb_backend *b, const struct cb_point *pts, size_t n,
		  unsigned long long seed, struct cb_error *e,
		  int (*emit)(void *arg, struct cb_measured *m), void *arg);

/*
 * The round order of process repeat, round k, of n units: perm[0..n) a
 * permutation, flip[i] whether unit perm[i]'s pair runs control first.
 * The same seed, repeat and round give the same order (--dry-run prints it).
 */
void cb_round_order(unsigned long long seed, unsigned int repeat, unsigned long k, size_t n,
		    size_t *perm, unsigned char *flip);

#endif /* CB_INTERLEAVE_H */
