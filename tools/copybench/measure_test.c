// SPDX-License-Identifier: GPL-2.0
/*
 * measure_test.c - unit tests of the copybench command's parts that need
 * no measurement: the plateau merge on generated costs, the statistics
 * against values worked out by hand, the --sizes language, the JSON parser
 * and writer (lib/cb_json_writer.c), the record reader and writer (good
 * records, and every kind of bad one a reader must refuse with the file
 * and line), point names, size classes and --points patterns (compare),
 * the search of the test-only slowdown on synthetic costs, and the option
 * tables' number type.
 *
 * Built by "make copybench" as build/copybench_unit_test, on the kernel's
 * kselftest_harness.h; run by selftests/copybench_cmd_test.sh.
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
#include "options.h"
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

static struct cb_key test_key(const char *dir, const char *var, unsigned long long size,
			      unsigned long long size_max, const char *cache)
{
	struct cb_key k = {
		.direction = dir, .variant = var, .cache = cache, .size = size,
		.size_max = size_max, .random = size_max != size,
	};

	return k;
}

static int name_is(const struct cb_key *k, const char *want)
{
	struct cb_str b = { 0 };
	int ok;

	cb_key_name(k, &b);
	ok = !strcmp(b.s, want);
	if (!ok)
		fprintf(stderr, "# name '%s', want '%s'\n", b.s, want);
	cb_str_free(&b);
	return ok;
}

/* Point names as compare prints them; size classes at their edges. */
TEST(points_names_and_classes)
{
	struct cb_key k = test_key("to_user", "native", 4096, 4096, "hot");
	static const unsigned long long edges[][2] = {
		{ 0, 0 }, { 63, 0 }, { 64, 1 }, { 4095, 1 }, { 4096, 2 }, { 262143, 2 },
		{ 262144, 3 }, { 64 << 20, 3 },
	};
	size_t i;

	EXPECT_TRUE(name_is(&k, "to_user.native.4K"));
	EXPECT_TRUE(cb_key_is_native(&k));
	k = test_key("memcpy", "movsb", 1, 64, "cold");
	k.dst_offset = 8;
	EXPECT_TRUE(name_is(&k, "memcpy.movsb.random:1-64.cold.dst8"));
	EXPECT_FALSE(cb_key_is_native(&k));
	/* A random range is classed by its middle: 1-64 is under 64. */
	EXPECT_EQ(0U, cb_size_class(&k));
	k = test_key("to_user", "orig", 1000, 1000, "hot");
	k.src_offset = 3;
	EXPECT_TRUE(name_is(&k, "to_user.orig.1000.src3"));
	for (i = 0; i < ARRAY_SIZE(edges); i++) {
		k = test_key("to_user", "movsb", edges[i][0], edges[i][0], "hot");
		EXPECT_EQ(edges[i][1], cb_size_class(&k)) TH_LOG("size %llu", edges[i][0]);
	}
	EXPECT_STREQ("4K-255K", cb_size_class_name(2));
	k = test_key("to_user", "movsb", 4096, 4096, "hot");
	{
		struct cb_key o = test_key("to_user", "native", 65536, 65536, "hot");

		EXPECT_TRUE(cb_key_same_class(&k, &o));
		o.cache = "cold";
		EXPECT_FALSE(cb_key_same_class(&k, &o));
		o = test_key("memcpy", "native", 65536, 65536, "hot");
		EXPECT_FALSE(cb_key_same_class(&k, &o));
	}
}

/* --points: items checked, names matched by pattern, controls brought along. */
/* Names parse back into their points; anything else is refused. */
TEST(points_names_parse_back)
{
	static const char *const good[] = {
		"to_user.native.4K", "memcpy.movsb.random:1-64.cold.dst8", "to_user.orig.1000.src3",
		"from_user.bytes.0", "to_user.movsb.64M.src1.dst4095", "to_user.native.512.cold",
	};
	static const char *const bad[] = {
		"", "to_user", "to_user.native", "to_user.native.4Q", "to_user.native.4K.hot",
		"to_user.native.4K.src0", "to_user.native.4K.dst4096", "to_user..4K",
		".to_user.native.4K", "to_user.native.4K.", "to_user.native.random:8-1",
		"to_user.native.4K.dst8.src3", "to_user.native.65M", "a.b.1.c.src1.dst1.x",
	};
	struct cb_error e = { 0 };
	struct cb_str name = { 0 };
	struct cb_key k;
	char *buf;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, cb_key_parse("POINT", good[i], &k, &buf, &e)) TH_LOG("%s", e.msg);
		name.len = 0;
		cb_str_add(&name, "");
		cb_key_name(&k, &name);
		EXPECT_STREQ(good[i], name.s);
		free(buf);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-1, cb_key_parse("POINT", bad[i], &k, &buf, &e)) TH_LOG("'%s' taken", bad[i]);
		EXPECT_EQ(CB_EXIT_USAGE, e.status);
		EXPECT_NE(NULL, strstr(e.msg, "accepted: a point's name"));
	}
	cb_str_free(&name);
}

TEST(points_patterns_select)
{
	struct cb_pointset s[5] = {
		{ .key = test_key("to_user", "movsb", 64, 64, "hot") },
		{ .key = test_key("to_user", "native", 64, 64, "hot") },
		{ .key = test_key("to_user", "movsb", 4096, 4096, "hot") },
		{ .key = test_key("to_user", "native", 4096, 4096, "hot") },
		{ .key = test_key("to_user", "orig", 8192, 8192, "hot") },
	};
	struct cb_patterns p;
	struct cb_error e;
	char sel[5];

	EXPECT_EQ(-1, cb_patterns_parse("points", "", &p, &e));
	EXPECT_EQ(-1, cb_patterns_parse("points", "a,", &p, &e));
	EXPECT_EQ(-1, cb_patterns_parse("points", ",a", &p, &e));
	EXPECT_EQ(CB_EXIT_USAGE, e.status);
	ASSERT_EQ(0, cb_patterns_parse("points", "*.native.4K", &p, &e));
	EXPECT_EQ(1U, cb_patterns_select(&p, s, 5, sel));
	/* native 4K, and the controls of 4K-255K: movsb 4K, orig 8K. */
	EXPECT_TRUE(!sel[0] && !sel[1] && sel[2] && sel[3] && sel[4]);
	cb_patterns_free(&p);
	ASSERT_EQ(0, cb_patterns_parse("points", "to_user.movsb.*,nothing", &p, &e));
	EXPECT_EQ(2U, cb_patterns_select(&p, s, 5, sel));
	EXPECT_TRUE(sel[0] && !sel[1] && sel[2] && !sel[3] && !sel[4]);
	EXPECT_EQ(2U, p.n);
	cb_patterns_free(&p);
}

/* The --sizes forms expand as documented: sorted, unique, random last. */
TEST(sizes_language)
{
	struct cb_error e = { 0 };
	struct cb_size *s;
	size_t n;

	ASSERT_EQ(0, cb_sizes_parse("0-4", 64 << 20, &s, &n, &e));
	ASSERT_EQ((size_t)5, n);
	EXPECT_EQ(0ULL, s[0].lo);
	EXPECT_EQ(4ULL, s[4].lo);
	free(s);
	ASSERT_EQ(0, cb_sizes_parse("1-64:8", 64 << 20, &s, &n, &e));
	ASSERT_EQ((size_t)8, n);
	EXPECT_EQ(57ULL, s[7].lo);
	free(s);
	ASSERT_EQ(0, cb_sizes_parse("pow2:1-64M", 64 << 20, &s, &n, &e));
	ASSERT_EQ((size_t)27, n);
	EXPECT_EQ(64ULL << 20, s[26].lo);
	free(s);
	ASSERT_EQ(0, cb_sizes_parse("random:1-64,1M,64,4K,64,pow2:3-5", 64 << 20, &s, &n, &e));
	ASSERT_EQ((size_t)5, n);
	EXPECT_EQ(4ULL, s[0].lo);
	EXPECT_EQ(64ULL, s[1].lo);
	EXPECT_EQ(4096ULL, s[2].lo);
	EXPECT_EQ(1ULL << 20, s[3].lo);
	EXPECT_TRUE(s[4].random && s[4].lo == 1 && s[4].hi == 64);
	free(s);
}

/* A double option: its bounds, open or not, its scale, and what it refuses. */
struct dopt_ctx {
	double pct, level;
	int help;
};

static const struct cb_option dopt_table[] = {
	CB_OPT_DOUBLE("pct", struct dopt_ctx, pct, 0, 1000, CB_HI_OPEN, 1.0 / 100,
		      "a percentage", "PCT", "PCT", "a percentage"),
	CB_OPT_DOUBLE("level", struct dopt_ctx, level, 0, 0.5, CB_LO_OPEN, 1,
		      "a significance level", "alpha", "A", "a level"),
	CB_OPT_FLAG("help", 'h', struct dopt_ctx, help, "this help"),
	CB_OPT_END(),
};

static int dopt_parse(const char *name, const char *value, struct dopt_ctx *c,
		      struct cb_error *e)
{
	static const struct cb_option *const tables[] = { dopt_table, NULL };
	char prog[] = "test", opt[32];
	char *argv[4];

	snprintf(opt, sizeof(opt), "--%s", name);
	argv[0] = prog;
	argv[1] = opt;
	argv[2] = (char *)value;
	argv[3] = NULL;
	optind = 0;
	memset(e, 0, sizeof(*e));
	return cb_options_parse(3, argv, tables, c, NULL, e);
}

TEST(options_double)
{
	static const char *const bad_pct[] = {
		"", "x", "5%", "1e", "-0.1", "1000", "1e3", "nan", "inf", "-inf", " 5x",
	};
	static const char *const bad_level[] = { "0", "0.0", "-0", "0.51", "0.5.", "nan" };
	struct dopt_ctx c = { .pct = -1, .level = -1 };
	struct cb_error e;
	unsigned int i;

	ASSERT_EQ(3, dopt_parse("pct", "0", &c, &e));
	EXPECT_TRUE(NEAR(0, c.pct));
	ASSERT_EQ(3, dopt_parse("pct", "999.5", &c, &e));
	EXPECT_TRUE(NEAR(9.995, c.pct));
	ASSERT_EQ(3, dopt_parse("pct", "2", &c, &e));
	EXPECT_TRUE(NEAR(0.02, c.pct));
	ASSERT_EQ(3, dopt_parse("level", "0.5", &c, &e));
	EXPECT_TRUE(NEAR(0.5, c.level));
	ASSERT_EQ(3, dopt_parse("level", "1e-3", &c, &e));
	EXPECT_TRUE(NEAR(0.001, c.level));
	for (i = 0; i < ARRAY_SIZE(bad_pct); i++) {
		EXPECT_EQ(-1, dopt_parse("pct", bad_pct[i], &c, &e)) {
			TH_LOG("--pct '%s' was accepted", bad_pct[i]);
		}
		EXPECT_EQ(CB_EXIT_USAGE, e.status);
		EXPECT_NE(NULL, strstr(e.msg, "(accepted: a percentage, 0 <= PCT < 1000)")) {
			TH_LOG("--pct '%s': %s", bad_pct[i], e.msg);
		}
		EXPECT_TRUE(NEAR(0.02, c.pct));	/* unchanged */
	}
	for (i = 0; i < ARRAY_SIZE(bad_level); i++) {
		EXPECT_EQ(-1, dopt_parse("level", bad_level[i], &c, &e)) {
			TH_LOG("--level '%s' was accepted", bad_level[i]);
		}
		EXPECT_NE(NULL, strstr(e.msg, "(accepted: a significance level, 0 < alpha <= 0.5)")) {
			TH_LOG("--level '%s': %s", bad_level[i], e.msg);
		}
		EXPECT_TRUE(NEAR(0.001, c.level));	/* unchanged */
	}
}

/* Bad --sizes: a usage error naming the item and the accepted forms. */
TEST(sizes_refused)
{
	static const char *const bad[] = {
		"", "12Q", "1-", "-5", "5-1", "1,,2", ",", "1,", "65M", "0-64M", "1-4:0",
		"pow2:3-3", "random:9-2", "4K:2", "1.5K", "0x10", " 64",
	};
	struct cb_error e;
	struct cb_size *s = NULL;
	unsigned int i;
	size_t n;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&e, 0, sizeof(e));
		EXPECT_EQ(-1, cb_sizes_parse(bad[i], 64 << 20, &s, &n, &e)) {
			TH_LOG("'%s' was accepted", bad[i]);
		}
		EXPECT_EQ(CB_EXIT_USAGE, e.status);
		EXPECT_NE(NULL, strstr(e.msg, "--sizes"));
		EXPECT_NE(NULL, strstr(e.msg, "accepted") ? e.msg : strstr(e.msg, "more than")) {
			TH_LOG("'%s': %s", bad[i], e.msg);
		}
	}
}

/* Strict JSON: values, escapes and Unicode in; everything else out. */
TEST(json_parses_and_refuses)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "[1,]", "01", "-", "1.", "1e", "NaN", "{\"a\":1,\"a\":2}",
		"\"a\tb\"", "\"\\x\"", "\"\\ud800\"", "\"\xc3\x28\"", "{} x", "tru", "{a:1}",
		"\"\\u0000\"", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	static const char good[] =
		"{\"s\":\"\\u00e9\\ud83d\\ude00\\n\",\"n\":-0.5e2,\"u\":18446744073709551615,\"a\":[true,false,null]}";
	struct cb_json v;
	char err[256];
	unsigned int i;

	ASSERT_EQ(0, cb_json_parse(good, strlen(good), &v, err, sizeof(err)));
	EXPECT_STREQ("\xc3\xa9\xf0\x9f\x98\x80\n", cb_json_get(&v, "s")->str);
	EXPECT_TRUE(NEAR(cb_json_get(&v, "n")->num, -50));
	EXPECT_FALSE(cb_json_get(&v, "n")->is_uint);
	EXPECT_TRUE(cb_json_get(&v, "u")->is_uint);
	EXPECT_EQ(18446744073709551615ULL, cb_json_get(&v, "u")->u);
	EXPECT_EQ((size_t)3, cb_json_get(&v, "a")->n);
	EXPECT_TRUE(cb_json_get(&v, "a")->items[2].type == CB_JSON_NULL);
	EXPECT_EQ(NULL, cb_json_get(&v, "missing"));
	cb_json_free(&v);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		EXPECT_EQ(-1, cb_json_parse(bad[i], strlen(bad[i]), &v, err, sizeof(err))) {
			TH_LOG("accepted: %s", bad[i]);
		}
		EXPECT_EQ(0, strncmp(err, "column ", 7)) {
			TH_LOG("%s: %s", bad[i], err);
		}
	}
}

/* A writer of JSON lines into b, emptied first. */
static void jw_to(struct cb_jw *w, struct cb_str *b)
{
	b->len = 0;
	cb_str_add(b, "");
	cb_jw_init_put(w, cb_str_put, b, CB_JW_LINES);
}

/*
 * The writer's strings: quotes, backslashes and the usual controls short,
 * other controls and DEL as \u00XX, UTF-8 as it is, a byte that is not
 * UTF-8 as U+FFFD; and what it writes, the parser reads back.
 */
TEST(json_writer_escapes)
{
	static const char raw[] =
		"a\"b\\c/\n\t\r\x01\x1f\x7f \xc3\xa9\xf0\x9f\x98\x80 \xff\xe2\x82 \xed\xa0\x80 x";
	static const char want[] =
		"[\"a\\\"b\\\\c/\\n\\t\\r\\u0001\\u001f\\u007f \xc3\xa9\xf0\x9f\x98\x80 \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd x\",\"\",null]\n";
	struct cb_str b = { 0 };
	struct cb_json v;
	struct cb_jw w;
	char err[256];

	jw_to(&w, &b);
	cb_jw_begin_array(&w);
	cb_jw_str(&w, raw);
	cb_jw_str(&w, "");
	cb_jw_str(&w, NULL);
	cb_jw_end_array(&w);
	ASSERT_EQ(0, cb_jw_end(&w));
	EXPECT_STREQ(want, b.s);
	ASSERT_EQ(0, cb_json_parse(b.s, b.len, &v, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_STREQ("a\"b\\c/\n\t\r\x01\x1f\x7f \xc3\xa9\xf0\x9f\x98\x80 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd x",
		     v.items[0].str);
	cb_json_free(&v);
	/* cb_str_json() is the same writer's string, with no line after it. */
	b.len = 0;
	cb_str_json(&b, "q\"\x7f");
	EXPECT_STREQ("\"q\\\"\\u007f\"", b.s);
	cb_str_free(&b);
}

/* Commas and colons where they go, at any depth; one line per top-level value. */
TEST(json_writer_nests)
{
	struct cb_str b = { 0 };
	struct cb_jw w;

	jw_to(&w, &b);
	cb_jw_begin_object(&w);
	cb_jw_str_field(&w, "type", "x");
	cb_jw_key(&w, "empty");
	cb_jw_begin_object(&w);
	cb_jw_end_object(&w);
	cb_jw_key(&w, "list");
	cb_jw_begin_array(&w);
	cb_jw_begin_object(&w);
	cb_jw_u64_field(&w, "a", 1);
	cb_jw_key(&w, "b");
	cb_jw_begin_array(&w);
	cb_jw_end_array(&w);
	cb_jw_end_object(&w);
	cb_jw_begin_array(&w);
	cb_jw_bool(&w, true);
	cb_jw_bool(&w, false);
	cb_jw_null(&w);
	cb_jw_end_array(&w);
	cb_jw_end_array(&w);
	cb_jw_null_field(&w, "k\"ey");
	cb_jw_end_object(&w);
	cb_jw_begin_array(&w);
	cb_jw_end_array(&w);
	cb_jw_u64(&w, 7);
	ASSERT_EQ(0, cb_jw_end(&w));
	EXPECT_STREQ("{\"type\":\"x\",\"empty\":{},\"list\":[{\"a\":1,\"b\":[]},[true,false,null]],\"k\\\"ey\":null}\n[]\n7\n", b.s);
	cb_str_free(&b);
}

/* Integers whole, doubles as printf's %.*g or %.*f, null when not finite. */
TEST(json_writer_numbers)
{
	struct cb_str b = { 0 };
	struct cb_jw w;

	jw_to(&w, &b);
	cb_jw_begin_array(&w);
	cb_jw_u64(&w, 18446744073709551615ULL);
	cb_jw_s64(&w, -9223372036854775807LL - 1);
	cb_jw_s64(&w, 0);
	cb_jw_g(&w, 6, 1.0 / 3);
	cb_jw_g(&w, 6, 1e21);
	cb_jw_g(&w, 6, 2);
	cb_jw_g(&w, 10, 12345.678901234);
	cb_jw_g(&w, 6, -0.0);
	cb_jw_f(&w, 4, 2.5);
	cb_jw_f(&w, 6, -1.0 / 3);
	cb_jw_g(&w, 6, NAN);
	cb_jw_f(&w, 4, INFINITY);
	cb_jw_g(&w, 6, -INFINITY);
	cb_jw_end_array(&w);
	ASSERT_EQ(0, cb_jw_end(&w));
	EXPECT_STREQ("[18446744073709551615,-9223372036854775808,0,0.333333,1e+21,2,12345.6789,-0,2.5000,-0.333333,null,null,null]\n", b.s);
	cb_str_free(&b);
}

/* What would make invalid JSON is refused: EINVAL, and nothing written after it. */
TEST(json_writer_refuses_misuse)
{
	struct cb_str b = { 0 };
	struct cb_jw w;
	unsigned int i, k;

	for (k = 0; k < 7; k++) {
		jw_to(&w, &b);
		switch (k) {
		case 0:		/* a value in an object without its key */
			cb_jw_begin_object(&w);
			cb_jw_u64(&w, 1);
			break;
		case 1:		/* a key in an array */
			cb_jw_begin_array(&w);
			cb_jw_key(&w, "a");
			break;
		case 2:		/* two keys in a row */
			cb_jw_begin_object(&w);
			cb_jw_key(&w, "a");
			cb_jw_key(&w, "b");
			break;
		case 3:		/* a key without its value */
			cb_jw_begin_object(&w);
			cb_jw_key(&w, "a");
			cb_jw_end_object(&w);
			break;
		case 4:		/* an end that is not its begin's */
			cb_jw_begin_object(&w);
			cb_jw_end_array(&w);
			break;
		case 5:		/* an end without a begin, a key at the top */
			cb_jw_end_object(&w);
			cb_jw_key(&w, "a");
			break;
		case 6:		/* deeper than CB_JW_DEPTH */
			for (i = 0; i <= CB_JW_DEPTH; i++)
				cb_jw_begin_array(&w);
			break;
		}
		cb_jw_str(&w, "after");
		errno = 0;
		EXPECT_EQ(-1, cb_jw_end(&w)) {
			TH_LOG("misuse %u accepted", k);
		}
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(NULL, strstr(b.s, "after")) {
			TH_LOG("misuse %u: written on: %s", k, b.s);
		}
	}
	/* A value left open. */
	jw_to(&w, &b);
	cb_jw_begin_array(&w);
	EXPECT_EQ(-1, cb_jw_end(&w));
	/* Without CB_JW_LINES, one top-level value. */
	cb_jw_init_put(&w, cb_str_put, &b, 0);
	cb_jw_u64(&w, 1);
	cb_jw_u64(&w, 2);
	EXPECT_EQ(-1, cb_jw_end(&w));
	cb_str_free(&b);
}

struct jw_sink {
	size_t room, calls_after;
	int failed;
};

/* Takes room bytes, then fails with ENOSPC; counts calls after it failed. */
static int jw_small_put(void *ctx, const char *s, size_t n)
{
	struct jw_sink *k = ctx;

	if (k->failed)
		k->calls_after++;
	if (n > k->room) {
		k->failed = 1;
		errno = ENOSPC;
		return -1;
	}
	k->room -= n;
	return 0;
}

/* A failing write is reported once, at the end, with its errno; a stream's too. */
TEST(json_writer_reports_a_failing_stream)
{
	struct jw_sink k = { .room = 10 };
	struct cb_jw w;
	FILE *f;

	cb_jw_init_put(&w, jw_small_put, &k, CB_JW_LINES);
	cb_jw_begin_object(&w);
	cb_jw_str_field(&w, "type", "a string longer than ten bytes");
	cb_jw_u64_field(&w, "n", 1);
	cb_jw_end_object(&w);
	errno = 0;
	EXPECT_EQ(-1, cb_jw_end(&w));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ((size_t)0, k.calls_after);
	/* stdio buffers: the error shows when cb_jw_end() flushes. */
	f = fopen("/dev/full", "w");
	ASSERT_NE(NULL, f);
	cb_jw_init(&w, f);
	cb_jw_begin_object(&w);
	cb_jw_str_field(&w, "type", "x");
	cb_jw_end_object(&w);
	errno = 0;
	EXPECT_EQ(-1, cb_jw_end(&w));
	EXPECT_EQ(ENOSPC, errno);
	fclose(f);
}

/* A file holding text; its path in buf. */
static void tmp_record(struct __test_metadata *_metadata, char *buf, size_t len,
		       const char *text)
{
	int fd;

	snprintf(buf, len, "/tmp/copybench-unit-XXXXXX");
	fd = mkstemp(buf);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
}

static void fill_header(struct cb_record_header *h)
{
	memset(h, 0, sizeof(*h));
	h->copybench_record = CB_RECORD_VERSION;
	h->subcommand = strdup("sweep");
	h->backend = strdup("user");
	h->kernel = strdup("6.12.117+deb12-amd64");
	h->kernel_version = strdup("#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1~bpo12+1");
	h->kernel_cmdline = strdup("kernel_cmdline-value \xff\xc3");
	h->cpu_model = strdup("AMD EPYC");
	h->microcode = strdup("0x1000065");
	h->hostname = strdup("vm");
	h->date = strdup("2026-11-30T11:47:37Z");
	h->tool_version = strdup("944e12f");
	h->command = strdup("copybench sweep --json");
	h->estimator = strdup("min");
	h->clock = strdup("tsc");
	h->buffers = strdup("thp");
	h->cpu_flags.v = calloc(2, sizeof(char *));
	h->cpu_flags.v[h->cpu_flags.n++] = strdup("erms");
	h->cpu_flags.v[h->cpu_flags.n++] = strdup("a\"quote");
	h->mitigations.keys = calloc(1, sizeof(char *));
	h->mitigations.vals = calloc(1, sizeof(char *));
	h->mitigations.keys[0] = strdup("spectre_v2");
	h->mitigations.vals[0] = strdup("Mitigation: Retpolines");
	h->mitigations.n = 1;
	h->tsc_khz = 2596136;
	h->cpu = -1;
	h->cpu_family = 25;
	h->samples = 101;
}

static void fill_point(struct cb_record_point *p, unsigned long long size)
{
	memset(p, 0, sizeof(*p));
	p->direction = strdup("to_user");
	p->variant = strdup("movsb");
	p->cache = strdup("hot");
	p->size = size;
	p->cycles_min = 10.25;
	p->cycles_median = 11.5;
	p->run_cpu = -1;
	p->verified = 1;
}

/* Written and read back: every field the same, optional ones as written. */
TEST(record_round_trip)
{
	struct cb_record_header h;
	struct cb_record_point p;
	struct cb_str text = { 0 };
	struct cb_error e = { 0 };
	struct cb_record r;
	char path[64];

	fill_header(&h);
	cb_record_header_json(&text, &h);
	fill_point(&p, 64);
	cb_record_point_json(&text, &p);
	cb_record_point_free(&p);
	fill_point(&p, 1);
	p.size_max = 64;
	p.size_mean = 32.5;
	CB_POINT_SET(&p, size_max);
	CB_POINT_SET(&p, size_mean);
	cb_record_point_json(&text, &p);
	cb_record_point_free(&p);
	tmp_record(_metadata, path, sizeof(path), text.s);
	ASSERT_EQ(0, cb_record_read(path, &r, &e)) {
		TH_LOG("%s", e.msg);
	}
	unlink(path);
	EXPECT_EQ((size_t)2, r.npoints);
	/* Bytes that are not UTF-8 come back as U+FFFD, not as a bad record. */
	EXPECT_STREQ("kernel_cmdline-value \xef\xbf\xbd\xef\xbf\xbd", r.header.kernel_cmdline);
	EXPECT_EQ(2596136ULL, r.header.tsc_khz);
	EXPECT_EQ(-1LL, r.header.cpu);
	EXPECT_EQ((size_t)2, r.header.cpu_flags.n);
	EXPECT_STREQ("a\"quote", r.header.cpu_flags.v[1]);
	EXPECT_STREQ("Mitigation: Retpolines", r.header.mitigations.vals[0]);
	EXPECT_FALSE(CB_HEADER_HAS(&r.header, seed));
	EXPECT_STREQ("movsb", r.points[0].variant);
	EXPECT_TRUE(NEAR(r.points[0].cycles_min, 10.25));
	EXPECT_TRUE(r.points[0].verified);
	EXPECT_EQ(-1LL, r.points[0].run_cpu);
	EXPECT_FALSE(CB_POINT_HAS(&r.points[0], size_max));
	EXPECT_TRUE(CB_POINT_HAS(&r.points[1], size_max));
	EXPECT_EQ(64ULL, r.points[1].size_max);
	EXPECT_EQ(3UL, r.points[1].line);
	cb_record_free(&r);
	cb_record_header_free(&h);
	cb_str_free(&text);
}

/* Fields this reader does not know are ignored (newer writers add some). */
TEST(record_tolerates_unknown_fields)
{
	struct cb_record_header h;
	struct cb_record_point p;
	struct cb_str text = { 0 };
	struct cb_error e = { 0 };
	struct cb_record r;
	char path[64];

	fill_header(&h);
	cb_record_header_json(&text, &h);
	text.s[text.len - 2] = '\0';	/* drop the closing "}\n" */
	text.len -= 2;
	cb_str_add(&text, ",\"future_field\":{\"x\":[1,2]}}\n");
	fill_point(&p, 8);
	cb_record_point_json(&text, &p);
	text.s[text.len - 2] = '\0';
	text.len -= 2;
	cb_str_add(&text, ",\"future\":\"yes\"}\n");
	tmp_record(_metadata, path, sizeof(path), text.s);
	EXPECT_EQ(0, cb_record_read(path, &r, &e)) {
		TH_LOG("%s", e.msg);
	}
	unlink(path);
	EXPECT_NE(NULL, cb_json_get(&r.header_json, "future_field"));
	cb_record_free(&r);
	cb_record_point_free(&p);
	cb_record_header_free(&h);
	cb_str_free(&text);
}

/* The edits of record_refusals: one text replaced by another, once. */
static const struct {
	const char *name, *from, *to;
} edits[] = {
	{ "string-size", "\"size\":64,", "\"size\":\"64\"," },
	{ "negative-size", "\"size\":64,", "\"size\":-64," },
	{ "fraction-loops", "\"loops\":0,", "\"loops\":0.5," },
	{ "null-cycles", "\"cycles_median\":11.5000,", "\"cycles_median\":null," },
	{ "bad-flags", "[\"erms\",", "[1," },
};

static void edit(struct __test_metadata *_metadata, struct cb_str *t, const char *name)
{
	char *at, *rest;
	unsigned int i;

	if (!strcmp(name, "missing")) {
		/* cycles_min renamed on the second point (line 3) */
		at = strstr(strchr(strchr(t->s, '\n') + 1, '\n'), "\"cycles_min\"");
		ASSERT_NE(NULL, at);
		at[1] = 'X';
		return;
	}
	for (i = 0; i < ARRAY_SIZE(edits) && strcmp(edits[i].name, name); i++)
		;
	ASSERT_LT(i, ARRAY_SIZE(edits));
	at = strstr(t->s, edits[i].from);
	ASSERT_NE(NULL, at);
	rest = strdup(at + strlen(edits[i].from));
	t->len = (size_t)(at - t->s);
	cb_str_add(t, edits[i].to);
	cb_str_add(t, rest);
	free(rest);
}

/* The good record good made bad as case c says, into t. */
static void bad_record(struct __test_metadata *_metadata, struct cb_str *t,
		       const struct cb_str *good, const char *c)
{
	const char *hdr_end = strchr(good->s, '\n') + 1;

	t->len = 0;
	cb_str_add(t, "");
	if (!strcmp(c, "truncate")) {
		cb_str_addn(t, good->s, good->len - 5);
	} else if (!strcmp(c, "header-only")) {
		cb_str_addn(t, good->s, (size_t)(hdr_end - good->s));
	} else if (!strcmp(c, "foreign")) {
		cb_str_add(t, "{\"name\":\"something else\"}\n");
		cb_str_add(t, hdr_end);
	} else if (!strcmp(c, "not-json")) {
		cb_str_add(t, "hello\n");
	} else if (!strcmp(c, "newer") || !strcmp(c, "version-0")) {
		cb_str_add(t, !strcmp(c, "newer") ? "{\"copybench_record\":2" :
			   "{\"copybench_record\":0");
		cb_str_add(t, strchr(good->s, ','));
	} else if (!strcmp(c, "bad-point")) {
		cb_str_addn(t, good->s, (size_t)(hdr_end - good->s));
		cb_str_add(t, "{\"direction\":\"to_user\",}\n");
	} else if (!strcmp(c, "two-headers")) {
		cb_str_addn(t, good->s, (size_t)(hdr_end - good->s));
		cb_str_addn(t, hdr_end, (size_t)(strchr(hdr_end, '\n') + 1 - hdr_end));
		cb_str_addn(t, good->s, (size_t)(hdr_end - good->s));
	} else if (!strcmp(c, "array-point")) {
		cb_str_addn(t, good->s, (size_t)(strchr(hdr_end, '\n') + 1 - good->s));
		cb_str_add(t, "[1]\n");
	} else if (strcmp(c, "empty")) {
		/* A field edit on the first point (line 2), or the header. */
		cb_str_add(t, good->s);
		edit(_metadata, t, c);
	}
	if (!strcmp(c, "empty"))
		t->len = 0, t->s[0] = '\0';
}

/* The bad records of record_refusals: an edit of bad_record() and its message. */
static const struct {
	const char *edit;	/* what to do to a good two-point record */
	const char *want;	/* in the message, after "PATH:" */
} refusals[] = {
	{ "truncate", ":3: truncated record" },
	{ "empty", ": empty file" },
	{ "header-only", ":1: the record has a header but no points" },
	{ "foreign", ":1: not a copybench record" },
	{ "not-json", ":1: not a copybench record (not JSON" },
	{ "newer", ":1: record format version 2 is newer" },
	{ "version-0", ":1: field 'copybench_record'" },
	{ "bad-point", ":2: not JSON: column" },
	{ "missing", ":3: missing field 'cycles_min'" },
	{ "string-size", ":2: field 'size': expected a non-negative integer, got string" },
	{ "negative-size", ":2: field 'size': expected a non-negative integer, got a negative integer" },
	{ "fraction-loops", ":1: field 'loops': expected a non-negative integer, got a number with a fraction" },
	{ "null-cycles", ":2: field 'cycles_median': expected a number, got null" },
	{ "array-point", ":3: expected a point object, got array" },
	{ "two-headers", ":3: a second record header" },
	{ "bad-flags", ":1: field 'cpu_flags': expected an array of strings" },
};

/* Every bad record: refused, usage status, the message names file and line. */
TEST(record_refusals)
{
	struct cb_record_header h;
	struct cb_record_point p;
	struct cb_str good = { 0 }, t = { 0 };
	struct cb_error e;
	struct cb_record r;
	char path[64], *nl;
	unsigned int i;

	fill_header(&h);
	cb_record_header_json(&good, &h);
	fill_point(&p, 64);
	cb_record_point_json(&good, &p);
	cb_record_point_json(&good, &p);
	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		const char *c = refusals[i].edit;

		bad_record(_metadata, &t, &good, c);
		tmp_record(_metadata, path, sizeof(path), t.s);
		memset(&e, 0, sizeof(e));
		EXPECT_EQ(-1, cb_record_read(path, &r, &e)) {
			TH_LOG("%s: accepted", c);
		}
		EXPECT_EQ(CB_EXIT_USAGE, e.status);
		nl = strstr(e.msg, path);
		EXPECT_TRUE(nl == e.msg &&
			    strstr(e.msg, refusals[i].want) == e.msg + strlen(path)) {
			TH_LOG("%s: got '%s', want '%s%s...'", c, e.msg, path, refusals[i].want);
		}
		unlink(path);
	}
	memset(&e, 0, sizeof(e));
	EXPECT_EQ(-1, cb_record_read("/nonexistent/rec.json", &r, &e));
	EXPECT_EQ(CB_EXIT_USAGE, e.status);
	EXPECT_NE(NULL, strstr(e.msg, "/nonexistent/rec.json"));
	cb_record_point_free(&p);
	cb_record_header_free(&h);
	cb_str_free(&good);
	cb_str_free(&t);
}

TEST_HARNESS_MAIN
