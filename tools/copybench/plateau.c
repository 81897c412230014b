// SPDX-License-Identifier: GPL-2.0
/*
 * plateau.c - the plateau merge of plateau.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plateau.h"
#include "stats.h"
#include "util.h"

/* Median of the field at offset of in[first .. first + n - 1]. */
static double cb_range_median(const struct cb_plateau_point *in, size_t first, size_t n,
			      double *scratch, int noise)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = noise ? in[first + i].noise : in[first + i].cost;
	cb_stats_sort(scratch, n);
	return cb_stats_median(scratch, n);
}

double cb_plateau_noise(const double *v, size_t n, double within)
{
	if (n >= 3)
		return 1.4826 * cb_stats_mad(v, n);
	if (n == 2)
		return fabs(v[1] - v[0]) / 2;
	return within;
}

size_t cb_plateau_merge(const struct cb_plateau_point *in, size_t n, double rel_tol,
			struct cb_plateau *out)
{
	double *scratch, cost, noise, tol;
	struct cb_plateau *r;
	size_t i, nr = 0;

	if (!n)
		return 0;
	scratch = cb_calloc(n, sizeof(*scratch));
	r = &out[nr++];
	r->first = 0;
	r->n = 1;
	r->x_lo = r->x_hi = in[0].x;
	r->cost = in[0].cost;
	for (i = 1; i < n; i++) {
		cost = r->cost;
		noise = cb_range_median(in, r->first, r->n, scratch, 1);
		tol = fmax(2 * fmax(in[i].noise, noise), rel_tol * fabs(cost));
		if (fabs(in[i].cost - cost) <= tol) {
			r->n++;
			r->x_hi = in[i].x;
			r->cost = cb_range_median(in, r->first, r->n, scratch, 0);
			continue;
		}
		r = &out[nr++];
		r->first = i;
		r->n = 1;
		r->x_lo = r->x_hi = in[i].x;
		r->cost = in[i].cost;
	}
	free(scratch);
	return nr;
}
