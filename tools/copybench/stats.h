/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - descriptive statistics of the copybench command: order
 * statistics, mean and standard deviation, repeat spread. Pure functions on
 * arrays of doubles, no I/O. (The significance tests of "copybench compare"
 * live beside them, in infer.h, and use these.)
 *
 * Quantiles interpolate linearly between order statistics (Hyndman and
 * Fan's type 7, the default of R and numpy): for p in [0, 1] on n sorted
 * values v[0..n-1], h = (n - 1) p, q = v[floor h] + (h - floor h)
 * (v[floor h + 1] - v[floor h]). The median is the 0.5 quantile.
 */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

/* Sorts v[0..n-1] ascending in place (NaNs are not expected). */
void cb_stats_sort(double *v, size_t n);

/* The p-quantile (0 <= p <= 1) of n >= 1 values sorted ascending. */
double cb_stats_quantile(const double *sorted, size_t n, double p);

/* The median of n >= 1 values sorted ascending. */
double cb_stats_median(const double *sorted, size_t n);

/*
 * The k-th smallest (k < n, from 0) of v[0..n-1], in expected linear time:
 * quickselect with a three-way partition, so runs of equal values (an
 * all-equal sample) stay linear. Reorders v: nothing before index k is
 * larger, nothing after it smaller.
 */
double cb_stats_select(double *v, size_t n, size_t k);

/*
 * The median of n >= 1 values in any order, without sorting them (the
 * same value as cb_stats_median() of the sorted values). Reorders v.
 */
double cb_stats_median_unsorted(double *v, size_t n);

/* The arithmetic mean of n >= 1 values (any order). */
double cb_stats_mean(const double *v, size_t n);

/*
 * The standard deviation of n values (any order), computed in one
 * numerically stable pass (Welford). ddof 0: population (divide by n, as
 * copybench.ko's cycles_stddev); ddof 1: sample (divide by n - 1). 0 when
 * n <= ddof.
 */
double cb_stats_stddev(const double *v, size_t n, unsigned int ddof);

/*
 * The median absolute deviation of n >= 1 values (any order): the median
 * of |v[i] - median|, unscaled (times 1.4826 it estimates a normal
 * standard deviation). One wild value in three does not move it.
 */
double cb_stats_mad(const double *v, size_t n);

/* Smallest and largest of n >= 1 values (any order). */
double cb_stats_min(const double *v, size_t n);
double cb_stats_max(const double *v, size_t n);

/*
 * The repeat spread, (max - min) / min, of n >= 1 values (any order), as a
 * fraction (0.02 is 2%). 0 for n == 1; infinite when min is 0 and max not.
 */
double cb_stats_spread(const double *v, size_t n);

/*
 * struct cb_summary - everything above for one set of values: n, min, the
 * 0.02 and 0.1 quantiles, median, max, mean and population stddev.
 */
struct cb_summary {
	size_t n;
	double min, q02, q10, median, max;
	double mean, stddev;
};

/* Fills s for v[0..n-1], n >= 1; sorts v in place. */
void cb_stats_summarize(double *v, size_t n, struct cb_summary *s);

#endif /* CB_STATS_H */
