/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plateau.h - merge adjacent points of equal cost into ranges, so a step
 * in cost stands out: the way Laight's table reads ("1-64 22.9 clocks,
 * 65-95 25.3, 96 30.5, ..."). Pure computation, no I/O.
 *
 * The rule, greedy from the smallest x: a range starts at a point; the next
 * point joins it when its cost differs from the range's cost (the median of
 * its members so far) by at most
 *	tol = max(2 * max(noise of the point, median noise of the members),
 *		  rel_tol * range cost)
 * otherwise it starts a new range. "noise" is the caller's measure of how
 * far a point's cost may move when measured again (copybench uses half the
 * spread of the repeats, or how far apart the fastest samples lie); rel_tol
 * is the floor under it. A slow ramp therefore comes out as a staircase of
 * ranges, each within tol of its median.
 */
#ifndef CB_PLATEAU_H
#define CB_PLATEAU_H

#include <stddef.h>

/* --tolerance's bound, percent: the floor rel_tol of a range's cost. */
#define CB_TOLERANCE_MAX	100.0

struct cb_plateau_point {
	double x;	/* size, or distance: ascending, as given */
	double cost;
	double noise;	/* >= 0, same unit as cost */
};

struct cb_plateau {
	double x_lo, x_hi;	/* first and last x of the range */
	double cost;		/* median cost of its points */
	size_t first, n;	/* its points: in[first .. first + n - 1] */
};

/*
 * cb_plateau_noise - a point's noise from its repeats' costs v[0..n): from
 * three repeats on, 1.4826 x their median absolute deviation (one repeat
 * the machine spoilt does not make everything "equal"); with two, half
 * their difference; with one, within (what its samples say).
 */
double cb_plateau_noise(const double *v, size_t n, double within);

/*
 * cb_plateau_merge - merge n points (sorted by x) into ranges written to
 * out (room for n); returns the number of ranges (0 for n == 0).
 */
size_t cb_plateau_merge(const struct cb_plateau_point *in, size_t n, double rel_tol,
			struct cb_plateau *out);

#endif /* CB_PLATEAU_H */
