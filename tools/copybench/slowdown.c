// SPDX-License-Identifier: GPL-2.0
/*
 * slowdown.c - the test-only slowdown's search (slowdown.h): which amount
 * of extra copying makes a copy's time per call a given fraction dearer,
 * found by measuring, since no model of the copy's cost holds at every
 * size (a chain of adds hid in a short copy's shadow; a partial copy of a
 * long one costs more or less than its share of bytes).
 */
#include <math.h>

#include "slowdown.h"

/* The next guess while every measurement fell short: grow by what it said. */
static unsigned long long cb_slowdown_grow(const struct cb_slowdown *s, unsigned long long d,
					   double a)
{
	double next = a > 0 ? (double)d * s->target / a : 4.0 * (double)d;

	if (next > 8.0 * (double)d)
		next = 8.0 * (double)d;
	if (next < (double)d + 1)
		next = (double)d + 1;
	return next > (double)s->dmax ? s->dmax : (unsigned long long)(next + 0.5);
}

/*
 * The next guess inside the bracket (lo, hi): where the straight line
 * through the two ends meets the target, kept an eighth of the bracket
 * from either end so that a curved cost cannot stall the search at one.
 */
static unsigned long long cb_slowdown_narrow(const struct cb_slowdown *s, unsigned long long lo,
					     double alo, unsigned long long hi, double ahi)
{
	double span = (double)(hi - lo), f = 0.5, next;

	if (ahi > alo)
		f = (s->target - alo) / (ahi - alo);
	f = fmin(fmax(f, 0.125), 0.875);
	next = (double)lo + f * span + 0.5;
	if (next <= (double)lo)
		next = (double)lo + 1;
	if (next >= (double)hi)
		next = (double)hi - 1;
	return (unsigned long long)next;
}

int cb_slowdown_search(struct cb_slowdown *s, cb_slowdown_measure_fn measure, void *arg)
{
	unsigned long long lo = 0, hi = 0, d = s->d0 ? s->d0 : 1;
	double alo = 0, ahi = 0, a;

	if (d > s->dmax)
		d = s->dmax;
	s->d = d;
	s->got = NAN;
	s->tried = 0;
	while (s->tried < s->steps) {
		a = measure(arg, d);
		s->tried++;
		if (isnan(s->got) || fabs(a - s->target) < fabs(s->got - s->target)) {
			s->d = d;
			s->got = a;
		}
		if (fabs(a - s->target) <= s->tol)
			break;
		if (a < s->target) {
			lo = d;
			alo = a;
		} else {
			hi = d;
			ahi = a;
		}
		if (!hi) {
			if (d >= s->dmax)
				break;
			d = cb_slowdown_grow(s, d, a);
			continue;
		}
		if (hi - lo <= 1)
			break;
		d = cb_slowdown_narrow(s, lo, alo, hi, ahi);
	}
	return fabs(s->got - s->target) <= s->tol ? 0 : 1;
}
