// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test.c - unit tests of the numbers of the copybench command: the plateau merge on generated
 * costs (plateau.c), the statistics against values worked out by hand
 * (stats.c), and the search of the test-only slowdown on synthetic costs
 * (slowdown.c).
 *
 * Built by "make copybench" as build/unit/stats_test, on the kernel's
 * kselftest_harness.h; run by "make unit-check" and
 * selftests/copybench_cmd_test.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "json.h"
#include "lib/cb_json_writer.h"
#include "lib/cb_options.h"
#include "plateau.h"
#include "points.h"
#include "record.h"
#include "sizes.h"
#include "slowdown.h"
#include "stats.h"

#define NEAR(a, b)	(fabs((a) - (b)) < 1e-9)

/* Deterministic noise in [-amp, amp]. */
static double noise(unsigned long long *s, double amp)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return amp * (2.0 * (double)(*s >> 11) / (double)(1ULL << 53) - 1);
}

/* Laight's Kaby Lake table (the third seed), then +1 clock every 32 bytes. */
static double laight_cost(unsigned int size)
{
	if (size == 0)
		return 51.5;
	if (size <= 64)
		return 22.9;
	if (size <= 95)
		return 25.3;
	if (size == 96)
		return 30.5;
	if (size <= 127)
		return 34.1;
	if (size == 128)
		return 31.5;
	return 35.0 + (size - 129) / 32;
}

/* The merge finds exactly the table's ranges under noise smaller than a step. */
TEST(plateau_recovers_laights_table)
{
	static const double want[][3] = {
		{ 0, 0, 51.5 }, { 1, 64, 22.9 }, { 65, 95, 25.3 }, { 96, 96, 30.5 },
		{ 97, 127, 34.1 }, { 128, 128, 31.5 }, { 129, 160, 35 }, { 161, 192, 36 },
		{ 193, 224, 37 }, { 225, 256, 38 },
	};
	struct cb_plateau_point in[257];
	struct cb_plateau out[257];
	unsigned long long s = 42;
	unsigned int i;
	size_t n;

	for (i = 0; i <= 256; i++) {
		in[i].x = i;
		in[i].cost = laight_cost(i) + noise(&s, 0.15);
		in[i].noise = 0.1;
	}
	n = cb_plateau_merge(in, 257, 0.01, out);
	ASSERT_EQ(ARRAY_SIZE(want), n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i][0], out[i].x_lo);
		EXPECT_EQ(want[i][1], out[i].x_hi);
		EXPECT_TRUE(fabs(out[i].cost - want[i][2]) <= 0.15);
		EXPECT_EQ((size_t)(want[i][1] - want[i][0] + 1), out[i].n);
	}
}

/* A step smaller than the measured noise is not a step. */
TEST(plateau_merges_within_noise)
{
	struct cb_plateau_point in[64];
	struct cb_plateau out[64];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		in[i].x = i + 1;
		in[i].cost = i < 32 ? 100 : 101.5;
		in[i].noise = 1;	/* +-1: 1.5 is within 2 x noise */
	}
	ASSERT_EQ((size_t)1, cb_plateau_merge(in, 64, 0.001, out));
	EXPECT_EQ(1, out[0].x_lo);
	EXPECT_EQ(64, out[0].x_hi);
	/* The same step with little noise is one. */
	for (i = 0; i < 64; i++)
		in[i].noise = 0.01;
	ASSERT_EQ((size_t)2, cb_plateau_merge(in, 64, 0.001, out));
	EXPECT_EQ(32, out[0].x_hi);
	EXPECT_EQ(33, out[1].x_lo);
}

/* The relative floor: 1% apart splits, 0.5% does not, with no noise. */
TEST(plateau_relative_floor)
{
	struct cb_plateau_point in[3] = {
		{ 1, 100, 0 }, { 2, 100.5, 0 }, { 3, 102, 0 },
	};
	struct cb_plateau out[3];

	ASSERT_EQ((size_t)2, cb_plateau_merge(in, 3, 0.01, out));
	EXPECT_EQ((size_t)2, out[0].n);
	EXPECT_EQ((size_t)1, out[1].n);
	EXPECT_EQ((size_t)0, cb_plateau_merge(in, 0, 0.01, out));
	ASSERT_EQ((size_t)1, cb_plateau_merge(in, 1, 0.01, out));
	EXPECT_EQ(100, out[0].cost);
}

/* Type 7 quantiles, medians, mean, both standard deviations, spread. */
TEST(stats_known_values)
{
	double v[] = { 4, 1, 3, 2 };
	double w[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double one[] = { 7 }, big[] = { 1e300, 1e300, 1e300 };
	struct cb_summary s;

	cb_stats_sort(v, 4);
	EXPECT_TRUE(NEAR(cb_stats_quantile(v, 4, 0.5), 2.5));
	EXPECT_TRUE(NEAR(cb_stats_quantile(v, 4, 0.1), 1.3));
	EXPECT_TRUE(NEAR(cb_stats_quantile(v, 4, 0), 1));
	EXPECT_TRUE(NEAR(cb_stats_quantile(v, 4, 1), 4));
	EXPECT_TRUE(NEAR(cb_stats_median(v, 4), 2.5));
	EXPECT_TRUE(NEAR(cb_stats_median(v, 3), 2));
	EXPECT_TRUE(NEAR(cb_stats_mean(w, 8), 5));
	EXPECT_TRUE(NEAR(cb_stats_stddev(w, 8, 0), 2));
	EXPECT_TRUE(NEAR(cb_stats_stddev(w, 8, 1), sqrt(32.0 / 7)));
	EXPECT_TRUE(NEAR(cb_stats_stddev(one, 1, 1), 0));
	EXPECT_TRUE(NEAR(cb_stats_spread(w, 8), 3.5));
	/* |w - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5: median 0.5 */
	EXPECT_TRUE(NEAR(cb_stats_mad(w, 8), 0.5));
	EXPECT_TRUE(NEAR(cb_stats_mad(one, 1), 0));
	EXPECT_TRUE(NEAR(cb_stats_spread(one, 1), 0));
	cb_stats_summarize(w, 8, &s);
	EXPECT_EQ((size_t)8, s.n);
	EXPECT_TRUE(NEAR(s.min, 2) && NEAR(s.max, 9) && NEAR(s.median, 4.5));
	EXPECT_TRUE(NEAR(s.q10, 2 + 0.7 * 2));
	EXPECT_TRUE(NEAR(s.q02, 2 + 0.14 * 2));
	/* A large sum stays exact: no overflow, no drift. */
	EXPECT_TRUE(NEAR(cb_stats_mean(big, 3) / 1e300, 1));
}

/*
 * Selection without sorting agrees with the sorted order statistics: every
 * k of generated samples with many ties, and the median of odd and even
 * counts, all-equal samples included.
 */
TEST(stats_select_matches_sorting)
{
	unsigned long long seed = 7;
	double v[41], sorted[41], work[41];
	size_t n, k, i;

	for (n = 1; n <= 41; n += 4) {
		for (i = 0; i < n; i++)
			v[i] = floor(5 + noise(&seed, 5));	/* ten values: ties */
		memcpy(sorted, v, n * sizeof(*v));
		cb_stats_sort(sorted, n);
		for (k = 0; k < n; k++) {
			memcpy(work, v, n * sizeof(*v));
			EXPECT_EQ(sorted[k], cb_stats_select(work, n, k));
			for (i = 0; i < n; i++)
				if ((i < k && work[i] > sorted[k]) || (i > k && work[i] < sorted[k]))
					break;
			EXPECT_EQ(n, i) TH_LOG("n %zu k %zu: not partitioned at %zu", n, k, i);
		}
		memcpy(work, v, n * sizeof(*v));
		EXPECT_EQ(cb_stats_median(sorted, n), cb_stats_median_unsorted(work, n));
	}
	for (i = 0; i < 6; i++)
		work[i] = 3;
	EXPECT_EQ(3, cb_stats_median_unsorted(work, 6));
	work[0] = 1, work[1] = 4, work[2] = 2, work[3] = 3;
	EXPECT_EQ(2.5, cb_stats_median_unsorted(work, 4));
}

/*
 * A synthetic copy for the slowdown's search: loops copies of len bytes a
 * sample at gross clocks each, d bytes more as d / len whole copies and
 * one partial copy, whose cost is the curve's; noise of amp (a fraction)
 * on each measurement.
 */
struct syn_copy {
	double gross, amp;
	unsigned long loops, len;
	double (*part)(const struct syn_copy *c, unsigned long bytes);
	unsigned long long seed;
	unsigned int calls;
};

/* A partial copy in proportion to its bytes, plus a call. */
static double part_linear(const struct syn_copy *c, unsigned long bytes)
{
	return 0.002 * c->gross + 0.998 * c->gross * (double)bytes / (double)c->len;
}

/*
 * A partial copy that costs more than its share of the bytes, the more so
 * the longer it is (a long copy's head past the caches it fits in).
 */
static double part_convex(const struct syn_copy *c, unsigned long bytes)
{
	double f = (double)bytes / (double)c->len;

	return c->gross * (0.002 + 2.5 * f * f + 0.2 * f);
}

/* A strategy switch: under 40% of the bytes a cheap copy, then a dear one. */
static double part_step(const struct syn_copy *c, unsigned long bytes)
{
	return c->gross * ((double)bytes < 0.4 * (double)c->len ? 0.2 : 0.7);
}

static double syn_measure(void *arg, unsigned long long d)
{
	struct syn_copy *c = arg;
	double plain = c->gross * (double)c->loops, extra;
	unsigned long part = (unsigned long)(d % c->len);

	c->calls++;
	extra = (double)(d / c->len) * c->gross + (part ? c->part(c, part) : 0);
	return extra / plain + noise(&c->seed, c->amp);
}

/* Near the target in a few measurements, whatever the partial copy costs. */
TEST(slowdown_search_reaches_target)
{
	static const struct {
		unsigned long loops, len;
		double (*part)(const struct syn_copy *c, unsigned long bytes);
		double target, amp;
	} cases[] = {
		{ 4096, 1, part_linear, 0.05, 0 },	/* 1 B: many copies a sample */
		{ 4096, 64, part_linear, 0.05, 0.0003 },
		{ 512, 4096, part_convex, 0.05, 0.0003 },
		{ 8, 65536, part_convex, 0.05, 0.0003 },	/* a part of one copy */
		{ 1, 1 << 20, part_convex, 0.02, 0.0003 },
		{ 1, 1 << 20, part_linear, 0.10, 0.0003 },
		{ 2, 1 << 20, part_convex, 5.0, 0.0003 },	/* 500%: whole copies */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct syn_copy c = {
			.gross = 100, .amp = cases[i].amp, .loops = cases[i].loops,
			.len = cases[i].len, .part = cases[i].part, .seed = 11 + i,
		};
		struct cb_slowdown s = {
			.target = cases[i].target, .tol = fmax(0.0005, cases[i].target / 50),
			.d0 = (unsigned long long)(cases[i].target * (double)(c.loops * c.len)),
			.dmax = (unsigned long long)(8 * (cases[i].target + 1) *
						     (double)(c.loops * c.len)),
			.steps = 16,
		};
		double clean;

		s.d0 = s.d0 ? s.d0 : 1;
		EXPECT_EQ(0, cb_slowdown_search(&s, syn_measure, &c))
			TH_LOG("case %u: got %.4f for %.4f after %u", i, s.got, s.target, s.tried);
		EXPECT_EQ(c.calls, s.tried);
		EXPECT_GE(16U, s.tried);
		c.amp = 0;
		clean = syn_measure(&c, s.d);
		EXPECT_GE(s.tol + 2 * cases[i].amp, fabs(clean - s.target))
			TH_LOG("case %u: %llu bytes give %.4f, want %.4f", i, s.d, clean, s.target);
	}
}

/*
 * A cost that steps across the target between two amounts a byte apart
 * cannot be met: the search says so (1), and keeps the nearer amount.
 */
TEST(slowdown_search_reports_a_step_it_cannot_meet)
{
	struct syn_copy c = { .gross = 100, .loops = 8, .len = 65536, .part = part_step };
	struct cb_slowdown s = {
		.target = 0.05, .tol = 0.001, .d0 = 26214, .dmax = 8 * 2 * 8 * 65536, .steps = 40,
	};
	/* The first amount that is dear: 0.4 x 65536 = 26214.4 bytes. */
	unsigned long long edge = 26215;

	/* 0.2 / 8 = 2.5% below the edge, 0.7 / 8 = 8.75% from it. */
	EXPECT_EQ(1, cb_slowdown_search(&s, syn_measure, &c));
	EXPECT_EQ(0.025, s.got);
	EXPECT_GT(edge, s.d) TH_LOG("kept %llu bytes", s.d);
	EXPECT_GE(40U, s.tried);
}

/* A change beyond what the bound allows: the search stops at the bound. */
TEST(slowdown_search_stops_at_its_bound)
{
	struct syn_copy c = { .gross = 100, .loops = 16, .len = 64, .part = part_linear };
	struct cb_slowdown s = {
		.target = 0.5, .tol = 0.01, .d0 = 8, .dmax = 64, .steps = 16,
	};

	EXPECT_EQ(1, cb_slowdown_search(&s, syn_measure, &c));
	EXPECT_EQ(64ULL, s.d);
	EXPECT_GE(16U, s.tried);
	EXPECT_TRUE(NEAR(1.0 / 16, s.got)) TH_LOG("got %.6f", s.got);
}

TEST_HARNESS_MAIN
