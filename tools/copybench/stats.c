// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - descriptive statistics for the copybench command (stats.h).
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int cb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void cb_stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cb_cmp_double);
}

double cb_stats_quantile(const double *sorted, size_t n, double p)
{
	double h, f;
	size_t i;

	if (p <= 0 || n == 1)
		return sorted[0];
	if (p >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * p;
	f = floor(h);
	i = (size_t)f;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - f) * (sorted[i + 1] - sorted[i]);
}

double cb_stats_median(const double *sorted, size_t n)
{
	return n & 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static void cb_swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

static double cb_median3(double a, double b, double c)
{
	if (a > b)
		cb_swap(&a, &b);
	return c < a ? a : c > b ? b : c;
}

double cb_stats_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double pivot = cb_median3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
		size_t lt = lo, i = lo, gt = hi;

		/* v[lo..lt) < pivot, v[lt..i) == pivot, v[gt..hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot)
				cb_swap(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				cb_swap(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

double cb_stats_median_unsorted(double *v, size_t n)
{
	double upper = cb_stats_select(v, n, n / 2), lower;
	size_t i;

	if (n % 2)
		return upper;
	/* The lower middle is the largest of what select left before n / 2. */
	lower = v[0];
	for (i = 1; i < n / 2; i++)
		lower = fmax(lower, v[i]);
	return (lower + upper) / 2;
}

double cb_stats_mean(const double *v, size_t n)
{
	double mean = 0;
	size_t i;

	/* Running mean: no overflow or loss of precision on large sums. */
	for (i = 0; i < n; i++)
		mean += (v[i] - mean) / (double)(i + 1);
	return mean;
}

double cb_stats_stddev(const double *v, size_t n, unsigned int ddof)
{
	double mean = 0, m2 = 0, d;
	size_t i;

	if (n <= ddof)
		return 0;
	for (i = 0; i < n; i++) {
		d = v[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * (v[i] - mean);
	}
	return sqrt(m2 / (double)(n - ddof));
}

double cb_stats_mad(const double *v, size_t n)
{
	double *d = malloc(n * sizeof(*d)), med, mad;
	size_t i;

	if (!d)
		return NAN;
	for (i = 0; i < n; i++)
		d[i] = v[i];
	cb_stats_sort(d, n);
	med = cb_stats_median(d, n);
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	cb_stats_sort(d, n);
	mad = cb_stats_median(d, n);
	free(d);
	return mad;
}

double cb_stats_min(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double cb_stats_max(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double cb_stats_spread(const double *v, size_t n)
{
	double lo = cb_stats_min(v, n), hi = cb_stats_max(v, n);

	if (hi == lo)
		return 0;
	if (lo <= 0)
		return INFINITY;
	return (hi - lo) / lo;
}

void cb_stats_summarize(double *v, size_t n, struct cb_summary *s)
{
	cb_stats_sort(v, n);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->q02 = cb_stats_quantile(v, n, 0.02);
	s->q10 = cb_stats_quantile(v, n, 0.1);
	s->median = cb_stats_median(v, n);
	s->mean = cb_stats_mean(v, n);
	s->stddev = cb_stats_stddev(v, n, 0);
}
