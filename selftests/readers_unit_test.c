// SPDX-License-Identifier: GPL-2.0
/*
 * readers_unit_test.c - the readers harness's decisions that a run cannot
 * be made to produce on demand, tested on numbers given here: when a
 * matrix's shared/private ratio contradicts the mechanism beyond noise
 * (readers_out.c), and what the warning says; the statistics over runs.
 *
 * Usage: readers_unit_test [kselftest harness options]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "readers.h"

/* A cell's statistics from its runs' GB/s, as the harness computes them. */
static struct rd_stats cell(const double *gbps, unsigned int n)
{
	struct rd_stats st = { 0 };
	struct rd_result r = { 0 };
	double kept[16];
	unsigned int i;

	for (i = 0; i < n; i++) {
		r.gbps = gbps[i];
		rd_stats_add(&st, &r, kept);
	}
	rd_stats_done(&st, kept);
	return st;
}

/*
 * The two cells are flagged, and the warning rd_ratio_warn() prints for
 * them holds each of the texts. Ends the test on failure.
 */
static void assert_warned(struct __test_metadata *_metadata,
			  const struct rd_stats *sh, const struct rd_stats *pr,
			  const char *const *texts, unsigned int n)
{
	char *w = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&w, &len);
	unsigned int i;

	ASSERT_TRUE(rd_ratio_contradicts(sh, pr));
	ASSERT_NE(NULL, f);
	rd_ratio_warn(f, "movsb", "none", sh, pr);
	fclose(f);
	for (i = 0; i < n; i++) {
		if (!strstr(w, texts[i]))
			TH_LOG("no '%s' in: %s", texts[i], w);
		EXPECT_NE(NULL, strstr(w, texts[i]));
	}
	free(w);
}

/* The blogbench report's shape: sharing costs; no warning. */
TEST(ratio_below_one_is_the_mechanism)
{
	const double s[] = { 70.1, 66.0, 74.3 }, p[] = { 192.0, 189.5, 194.2 };
	struct rd_stats sh = cell(s, 3), pr = cell(p, 3);

	EXPECT_FALSE(rd_ratio_contradicts(&sh, &pr));
}

/* A non-temporal copy does not care: 1.02 is within the noise floor. */
TEST(ratio_near_one_is_within_noise)
{
	const double s[] = { 23.6, 23.9 }, p[] = { 23.2, 23.1 };
	struct rd_stats sh = cell(s, 2), pr = cell(p, 2);

	EXPECT_FALSE(rd_ratio_contradicts(&sh, &pr));
}

/* make bench's 2.13 from one run per cell: flagged, and said to be one run. */
TEST(one_run_far_above_one_is_flagged)
{
	static const char *const texts[] = {
		"# WARNING: movsb, touch none: shared/private 2.13",
		"sharing cannot do", "one run per cell",
	};
	const double s[] = { 138.5 }, p[] = { 65.0 };
	struct rd_stats sh = cell(s, 1), pr = cell(p, 1);

	assert_warned(_metadata, &sh, &pr, texts, ARRAY_SIZE(texts));
}

/* Several runs each, ranges apart, 1.3x: beyond noise. */
TEST(runs_apart_above_one_are_flagged_beyond_noise)
{
	static const char *const texts[] = {
		"beyond noise (the runs do not overlap)",
	};
	const double s[] = { 90.0, 92.0, 95.0 }, p[] = { 70.0, 72.0, 74.0 };
	struct rd_stats sh = cell(s, 3), pr = cell(p, 3);

	assert_warned(_metadata, &sh, &pr, texts, ARRAY_SIZE(texts));
}

/* The same means with overlapping runs: noise could order them either way. */
TEST(overlapping_runs_above_one_are_noise)
{
	const double s[] = { 60.0, 92.0, 125.0 }, p[] = { 50.0, 72.0, 94.0 };
	struct rd_stats sh = cell(s, 3), pr = cell(p, 3);

	EXPECT_GT(sh.mean / pr.mean, 1 + RD_NOISE_FLOOR);
	EXPECT_FALSE(rd_ratio_contradicts(&sh, &pr));
}

/* A cell with no successful run has no ratio to judge. */
TEST(failed_cell_is_not_judged)
{
	const double s[] = { 90.0 };
	struct rd_stats sh = cell(s, 1), pr = { 0 };
	struct rd_result bad = { .failed = true };
	double kept[1];

	snprintf(bad.error, sizeof(bad.error), "thread 1: read at offset 0: EIO");
	rd_stats_add(&pr, &bad, kept);
	rd_stats_done(&pr, kept);
	EXPECT_FALSE(rd_ratio_contradicts(&sh, &pr));
	EXPECT_EQ(1U, pr.failed);
	EXPECT_STREQ("thread 1: read at offset 0: EIO", pr.error);
}

/* Mean, sample stddev, min and max over runs. */
TEST(stats_over_runs)
{
	const double g[] = { 2.0, 4.0, 6.0 };
	struct rd_stats st = cell(g, 3);

	EXPECT_EQ(3U, st.runs);
	EXPECT_EQ(4.0, st.mean);
	EXPECT_EQ(2.0, st.stddev);
	EXPECT_EQ(2.0, st.min);
	EXPECT_EQ(6.0, st.max);
}

TEST_HARNESS_MAIN
