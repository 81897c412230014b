// SPDX-License-Identifier: GPL-2.0
/*
 * infer_checks_test.c - unit tests of what copybench compare checks beside
 * its decision (infer.c): placement (processes that disagree, and the
 * Poisson binomial tail), LKP's rule, Student's t, and the controls (the
 * machine's drift, the net change and its verdict). infer_test.c tests the
 * decision itself.
 *
 * Expected values come from tools/copybench/infer_ref.py, which derives them
 * by other routes (enumeration in Fractions, Simpson integration of
 * Student's t density, a transliteration of LKP's Ruby); run it to see
 * where each number below comes from.
 *
 * Usage: infer_checks_test [kselftest harness options, e.g. -t lkp_margin_bounds]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The harness's TEST_F wrapper keeps a local across its own setjmp(). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "infer.h"
#include "infer_test.h"

static void expect_change(struct __test_metadata *_metadata,
			  enum infer_change want, enum infer_change got)
{
	EXPECT_TRUE(want == got)
		TH_LOG("verdict %s, want %s", infer_change_name(got),
		       infer_change_name(want));
}

/* ---- Placement: processes that disagree ---------------------------------- */

FIXTURE(placement) {};
FIXTURE_SETUP(placement) {}
FIXTURE_TEARDOWN(placement) {}

/* Values from infer_ref.py's placement(), on Fractions. */
FIXTURE_VARIANT(placement) {
	double base[MAXV], new[MAXV];
	size_t nb, nn;
	double base_spread, new_spread, gap;
	bool sensitive;
	int beyond;
};

FIXTURE_VARIANT_ADD(placement, agree_unchanged) {
	.base = { 100, 100.5, 101, 100.2, 100.8 }, .nb = 5,
	.new = { 100.3, 100.9, 100.1, 100.6, 100.4 }, .nn = 5,
	.base_spread = 0.01, .new_spread = 0.007992007992008106, .gap = 1,
};
FIXTURE_VARIANT_ADD(placement, agree_shifted) {
	.base = { 100, 100.5, 101, 100.2, 100.8 }, .nb = 5,
	.new = { 110, 110.5, 111, 110.2, 110.8 }, .nn = 5,
	.base_spread = 0.01, .new_spread = 0.00909090909090909,
	.gap = 1.0891089108910892, .beyond = 1,
};
/* The native 512 B: processes 8.45 to 13.3 clocks on both sides. */
FIXTURE_VARIANT_ADD(placement, disagree_overlapping) {
	.base = { 8.45, 9.1, 13.3, 8.6, 9.83 }, .nb = 5,
	.new = { 8.5, 12.9, 13.1, 9.9, 13.0 }, .nn = 5,
	.base_spread = 0.5739644970414204, .new_spread = 0.5411764705882353,
	.sensitive = true, .gap = 1,
};
FIXTURE_VARIANT_ADD(placement, disagree_apart_within_threshold) {
	.base = { 100, 101, 102, 103, 104 }, .nb = 5,
	.new = { 105, 106, 107, 108, 109 }, .nn = 5,
	.base_spread = 0.04, .new_spread = 0.0380952380952381,
	.sensitive = true, .gap = 1.0096153846153846,
};
FIXTURE_VARIANT_ADD(placement, disagree_beyond) {
	.base = { 100, 101, 102, 103, 110 }, .nb = 5,
	.new = { 113, 114, 120, 115, 116 }, .nn = 5,
	.base_spread = 0.1, .new_spread = 0.061946902654867256,
	.sensitive = true, .gap = 1.0272727272727273, .beyond = 1,
};
FIXTURE_VARIANT_ADD(placement, disagree_beyond_below) {
	.base = { 113, 114, 120, 115, 116 }, .nb = 5,
	.new = { 100, 101, 102, 103, 110 }, .nn = 5,
	.base_spread = 0.061946902654867256, .new_spread = 0.1,
	.sensitive = true, .gap = 0.9734513274336283, .beyond = -1,
};
FIXTURE_VARIANT_ADD(placement, one_process_each) {
	.base = { 100 }, .nb = 1, .new = { 150 }, .nn = 1,
	.gap = 1.5, .beyond = 1,
};
FIXTURE_VARIANT_ADD(placement, touching) {
	.base = { 100, 104 }, .nb = 2, .new = { 104, 110 }, .nn = 2,
	.base_spread = 0.04, .new_spread = 0.057692307692307696,
	.sensitive = true, .gap = 1,
};

/* Spreads per side, whether they pass the threshold, how far apart the ranges are. */
TEST_F(placement, spreads_and_gap)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	struct infer_placement r;

	ASSERT_EQ(0, infer_placement(variant->base, variant->nb, variant->new, variant->nn,
				     &par, &r));
	expect_near(_metadata, "base spread", r.base_spread, variant->base_spread, 1e-12);
	expect_near(_metadata, "new spread", r.new_spread, variant->new_spread, 1e-12);
	expect_near(_metadata, "gap", r.gap, variant->gap, 1e-12);
	EXPECT_EQ(variant->sensitive, r.sensitive);
	EXPECT_EQ(variant->beyond, r.beyond);
}

/* Garbage is refused, and the result is left as it was. */
TEST(placement_bad_input)
{
	struct infer_params par = INFER_PARAMS_DEFAULT, bad = par;
	double ok[] = { 1, 2, 3 }, nan_v[] = { 1, NAN, 3 }, zero[] = { 1, 0, 3 };
	static double big[INFER_MAX_N + 1];
	struct infer_placement r, keep;
	size_t i;

	for (i = 0; i < INFER_MAX_N + 1; i++)
		big[i] = 1 + (double)i;
	memset(&r, 0x5a, sizeof(r));
	keep = r;
	bad.threshold = -1;
	EXPECT_EQ(-EINVAL, infer_placement(ok, 3, ok, 3, &bad, &r));
	EXPECT_EQ(-EINVAL, infer_placement(ok, 0, ok, 3, &par, &r));
	EXPECT_EQ(-EINVAL, infer_placement(NULL, 3, ok, 3, &par, &r));
	EXPECT_EQ(-EINVAL, infer_placement(ok, 3, nan_v, 3, &par, &r));
	EXPECT_EQ(-EDOM, infer_placement(zero, 3, ok, 3, &par, &r));
	EXPECT_EQ(-E2BIG, infer_placement(big, INFER_MAX_N + 1, ok, 3, &par, &r));
	EXPECT_EQ(-EINVAL, infer_placement(ok, 3, ok, 3, &par, NULL));
	EXPECT_EQ(0, memcmp(&r, &keep, sizeof(r)));
}

/* The Poisson binomial tail against infer_ref.py's enumeration in Fractions. */
TEST(poibin_tail_known_values)
{
	static const double half[] = { 0.5, 0.5, 0.5 }, ramp[] = { 0.1, 0.2, 0.3, 0.4 };
	static const double edge[] = { 0.0, 1.0, 0.25 };
	double q27[12], q001[16];
	size_t i;

	for (i = 0; i < 12; i++)
		q27[i] = 0.27;
	for (i = 0; i < 16; i++)
		q001[i] = 0.001;
	expect_near(_metadata, "half k2", infer_poibin_tail(half, 3, 2), 0.5, 1e-12);
	expect_near(_metadata, "ramp k1", infer_poibin_tail(ramp, 4, 1), 0.6976, 1e-12);
	expect_near(_metadata, "ramp k3", infer_poibin_tail(ramp, 4, 3), 0.042800000000000005,
		    1e-12);
	expect_near(_metadata, "0.27 x12 k1", infer_poibin_tail(q27, 12, 1), 0.9770979519535098,
		    1e-12);
	expect_near(_metadata, "0.001 x16 k2", infer_poibin_tail(q001, 16, 2),
		    0.00011888544256797146, 1e-9);
	expect_near(_metadata, "edge k1", infer_poibin_tail(edge, 3, 1), 1, 1e-12);
	expect_near(_metadata, "edge k2", infer_poibin_tail(edge, 3, 2), 0.25, 1e-12);
	expect_near(_metadata, "edge k3", infer_poibin_tail(edge, 3, 3), 0, 1e-12);
	EXPECT_EQ(1, infer_poibin_tail(ramp, 4, 0));
	EXPECT_EQ(0, infer_poibin_tail(ramp, 4, 5));
	EXPECT_TRUE(isnan(infer_poibin_tail(NULL, 3, 1)));
	EXPECT_TRUE(isnan(infer_poibin_tail((const double[]){ 0.5, 1.5 }, 2, 1)));
	EXPECT_TRUE(isnan(infer_poibin_tail((const double[]){ 0.5, NAN }, 2, 1)));
}

/* ---- LKP ------------------------------------------------------------------- */

FIXTURE(lkp) {};
FIXTURE_SETUP(lkp) {}
FIXTURE_TEARDOWN(lkp) {}

#define LKP_N	40
FIXTURE_VARIANT(lkp) {
	double base[LKP_N], new[LKP_N];
	size_t nb, nn;
	double distance;
	double base_mid, new_mid, ratio;
	bool apart, enough_runs, big_enough, changed, regressed;
};

/* Values from infer_ref.py's transliteration of lib/{stats,changed_stat}.rb */
FIXTURE_VARIANT_ADD(lkp, apart_3v3) {
	.base = { 100, 101, 102 }, .nb = 3, .new = { 103, 104, 105 }, .nn = 3,
	.base_mid = 101, .new_mid = 104, .ratio = 1.0297029702970297,
	.apart = true, .enough_runs = true, .big_enough = true,
	.changed = true, .regressed = true,
};
FIXTURE_VARIANT_ADD(lkp, overlapping_ranges_still_apart) {
	.base = { 100, 101, 102 }, .nb = 3, .new = { 101.5, 103, 104 }, .nn = 3,
	.base_mid = 101, .new_mid = 103, .ratio = 1.0198019801980198,
	.apart = true, .enough_runs = true, .big_enough = true,
	.changed = true, .regressed = true,
};
FIXTURE_VARIANT_ADD(lkp, interleaved) {
	.base = { 100, 102, 104 }, .nb = 3, .new = { 101, 103, 105 }, .nn = 3,
	.base_mid = 102, .new_mid = 103, .ratio = 1.0098039215686274,
	.enough_runs = true,
};
FIXTURE_VARIANT_ADD(lkp, two_runs_are_skipped) {
	.base = { 100, 101 }, .nb = 2, .new = { 110, 111 }, .nn = 2,
	.base_mid = 101, .new_mid = 111, .ratio = 1.099009900990099,
	.apart = true, .big_enough = true,
};
FIXTURE_VARIANT_ADD(lkp, under_one_percent_hidden) {
	.base = { 100, 100.1, 100.2 }, .nb = 3,
	.new = { 100.5, 100.6, 100.7 }, .nn = 3,
	.base_mid = 100.1, .new_mid = 100.6, .ratio = 1.004995004995005,
	.apart = true, .enough_runs = true,
};
FIXTURE_VARIANT_ADD(lkp, improved) {
	.base = { 110, 111, 112, 113 }, .nb = 4,
	.new = { 100, 101, 102, 103 }, .nn = 4,
	.base_mid = 112, .new_mid = 102, .ratio = 1.0980392156862746,
	.apart = true, .enough_runs = true, .big_enough = true,
	.changed = true,
};
FIXTURE_VARIANT_ADD(lkp, distance_2v2) {
	.base = { 100, 101 }, .nb = 2, .new = { 105, 106 }, .nn = 2,
	.distance = 2, .base_mid = 101, .new_mid = 106,
	.ratio = 1.0495049504950495, .apart = true, .big_enough = true,
};
FIXTURE_VARIANT_ADD(lkp, distance_3v3_gap_too_small) {
	.base = { 100, 101, 102 }, .nb = 3, .new = { 103.2, 104, 105 }, .nn = 3,
	.distance = 2, .base_mid = 101, .new_mid = 104,
	.ratio = 1.0297029702970297, .enough_runs = true, .big_enough = true,
};
/* 40 runs: LKP trims one value off each end (40 >> 5), the outliers. */
FIXTURE_VARIANT_ADD(lkp, margin_trims_outliers) {
	.base = { 100.0, 100.1, 100.2, 100.3, 100.4, 100.5, 100.6, 100.7,
		  100.8, 100.9, 101.0, 101.1, 101.2, 101.3, 101.4, 101.5,
		  101.6, 101.7, 101.8, 101.9, 102.0, 102.1, 102.2, 102.3,
		  102.4, 102.5, 102.6, 102.7, 102.8, 102.9, 103.0, 103.1,
		  103.2, 103.3, 103.4, 103.5, 103.6, 103.7, 103.8, 200 },
	.nb = 40,
	.new = { 101.0, 101.1, 101.2, 101.3, 101.4, 101.5, 101.6, 101.7,
		 101.8, 101.9, 102.0, 102.1, 102.2, 102.3, 102.4, 102.5,
		 102.6, 102.7, 102.8, 102.9, 103.0, 103.1, 103.2, 103.3,
		 103.4, 103.5, 103.6, 103.7, 103.8, 103.9, 104.0, 104.1,
		 104.2, 104.3, 104.4, 104.5, 104.6, 104.7, 104.8, 50 },
	.nn = 40, .base_mid = 102.0, .new_mid = 102.9,
	.ratio = 1.0088235294117647, .enough_runs = true,
};

/* LKP needs 3 runs on one side only. */
FIXTURE_VARIANT_ADD(lkp, runs_2v4) {
	.base = { 100, 101 }, .nb = 2, .new = { 110, 111, 112, 113 }, .nn = 4,
	.base_mid = 101, .new_mid = 112, .ratio = 1.108910891089109,
	.apart = true, .enough_runs = true, .big_enough = true,
	.changed = true, .regressed = true,
};

/* LKP's summary and each part of its rule. */
TEST_F(lkp, rule)
{
	struct infer_lkp l;

	ASSERT_EQ(0, infer_lkp(variant->base, variant->nb, variant->new,
			       variant->nn, variant->distance, &l));
	expect_near(_metadata, "base mid", l.base_mid, variant->base_mid, 1e-12);
	expect_near(_metadata, "new mid", l.new_mid, variant->new_mid, 1e-12);
	expect_near(_metadata, "ratio", l.ratio, variant->ratio, 1e-12);
	EXPECT_EQ(variant->apart, l.apart);
	EXPECT_EQ(variant->enough_runs, l.enough_runs);
	EXPECT_EQ(variant->big_enough, l.big_enough);
	EXPECT_EQ(variant->changed, l.changed);
	EXPECT_EQ(variant->regressed, l.regressed);
}

/* The trimmed ends: margin_trims_outliers' extremes are gone. */
TEST(lkp_margin_bounds)
{
	double base[40], new[40];
	struct infer_lkp l;
	int i;

	for (i = 0; i < 40; i++) {
		base[i] = 100 + i * 0.1;
		new[i] = 101 + i * 0.1;
	}
	base[39] = 200;
	new[39] = 50;
	ASSERT_EQ(0, infer_lkp(base, 40, new, 40, 0, &l));
	expect_near(_metadata, "base min", l.base_min, 100.1, 1e-12);
	expect_near(_metadata, "base max", l.base_max, 103.8, 1e-12);
	expect_near(_metadata, "new min", l.new_min, 101.0, 1e-12);
	expect_near(_metadata, "new max", l.new_max, 104.7, 1e-12);
}

/*
 * A base of <= 3 runs caps the new side's margin at 1 of 64 >> 5 = 2: the
 * second outlier at each end stays and the ranges overlap.
 */
TEST(lkp_margin_capped_by_small_base)
{
	double base[] = { 100, 101, 102 }, new[64];
	struct infer_lkp l;
	int i;

	new[0] = 90;
	new[1] = 91;
	for (i = 0; i < 60; i++)
		new[2 + i] = 103 + i * 0.01;
	new[62] = 120;
	new[63] = 130;
	ASSERT_EQ(0, infer_lkp(base, 3, new, 64, 0, &l));
	expect_near(_metadata, "new min", l.new_min, 91, 0);
	expect_near(_metadata, "new mid", l.new_mid, 103.3, 1e-12);
	expect_near(_metadata, "new max", l.new_max, 120, 0);
	expect_near(_metadata, "ratio", l.ratio, 1.0227722772277228, 1e-12);
	EXPECT_FALSE(l.apart);
	EXPECT_FALSE(l.changed);
}

/* ---- Student's t ------------------------------------------------------------ */

/* Critical values and a tail against Simpson integration of the density. */
TEST(t_known_values)
{
	expect_near(_metadata, "t 0.01 df 1", infer_t_crit(0.01, 1),
		    63.65674116284936, 1e-8);
	expect_near(_metadata, "t 0.01 df 2", infer_t_crit(0.01, 2),
		    9.924843200915628, 1e-8);
	expect_near(_metadata, "t 0.05 df 10", infer_t_crit(0.05, 10),
		    2.228138851986313, 1e-8);
	expect_near(_metadata, "t 0.01 df 4", infer_t_crit(0.01, 4),
		    4.604094871350952, 1e-8);
	expect_near(_metadata, "t 0.01 df 1e6", infer_t_crit(0.01, 1e6),
		    2.5758342388203426, 1e-6);
	expect_near(_metadata, "p2 2.5 df 3", infer_t_p2(2.5, 3),
		    0.08770664700806063, 1e-8);
	expect_near(_metadata, "p2 0", infer_t_p2(0, 3), 1, 1e-15);
	expect_near(_metadata, "p2 inf", infer_t_p2(INFINITY, 3), 0, 0);
	EXPECT_TRUE(isnan(infer_t_p2(1, 0)));
	EXPECT_TRUE(isnan(infer_t_crit(0, 3)));
}

/* ---- Controls --------------------------------------------------------------- */

static const double quiet_controls[] = { 1.01, 1.03, 1.02, 0.99 };
static const double moved_controls[] = { 1.061, 1.058, 1.066, 1.052, 1.063 };
/* The same, and one control whose own repeats scattered: +35%. */
static const double wild_controls[] = { 1.061, 1.058, 1.066, 1.052, 1.063, 1.35 };

/*
 * Controls that wander around 1 did not move; a 6% shift did, and still
 * does with one wild control beside it (median and MAD, not mean and sd).
 */
TEST(drift_known_values)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	struct infer_drift d;

	ASSERT_EQ(0, infer_drift(quiet_controls, 4, &par, &d));
	EXPECT_EQ(4UL, d.n);
	EXPECT_TRUE(d.enough);
	expect_near(_metadata, "ratio", d.ratio, 1.0149876846543509, 1e-12);
	expect_near(_metadata, "sd", d.log_sd, 0.014535759840203378, 1e-10);
	expect_near(_metadata, "lo", d.lo, 0.9623978063526306, 1e-8);
	expect_near(_metadata, "hi", d.hi, 1.070451317739731, 1e-8);
	expect_near(_metadata, "p", d.p, 0.20093516387778243, 1e-7);
	EXPECT_FALSE(d.moved);

	ASSERT_EQ(0, infer_drift(moved_controls, 5, &par, &d));
	expect_near(_metadata, "ratio", d.ratio, 1.061, 1e-12);
	expect_near(_metadata, "sd", d.log_sd, 0.004198020737801667, 1e-10);
	expect_near(_metadata, "lo", d.lo, 1.049567953618055, 1e-8);
	expect_near(_metadata, "hi", d.hi, 1.0725565658892606, 1e-8);
	expect_near(_metadata, "p", d.p, 1.4805282918306517e-05, 1e-6);
	EXPECT_TRUE(d.moved);

	ASSERT_EQ(0, infer_drift(wild_controls, 6, &par, &d));
	expect_near(_metadata, "ratio", d.ratio, 1.0619995291901028, 1e-12);
	expect_near(_metadata, "sd", d.log_sd, 0.005584207197583231, 1e-10);
	expect_near(_metadata, "lo", d.lo, 1.0498348149331413, 1e-8);
	expect_near(_metadata, "hi", d.hi, 1.0743051992153896, 1e-8);
	expect_near(_metadata, "p", d.p, 4.479851959615644e-06, 1e-6);
	EXPECT_TRUE(d.moved);
}

/*
 * The drift again over the processes (infer_drift_processes()): the
 * controls' points say moved (+6.1%, p 1.5e-5), but when the processes'
 * levels overlap they did not; levels 5 a side all 0.06 higher did (every
 * new above every base: exact p 2 / C(10, 5)), the ratio their
 * Hodges-Lehmann one, the interval the extreme log ratios at 5 and 5.
 * With 4 a side the test cannot reach alpha 0.01 and the points' test
 * stands; a level not finite is refused and changes nothing.
 */
TEST(drift_over_processes)
{
	static const double base[] = { -0.02, -0.01, 0, 0.01, 0.03 };
	static const double mixed[] = { 0.02, -0.03, 0.01, 0, -0.01 };
	struct infer_params par = INFER_PARAMS_DEFAULT;
	double up[5], bad[5];
	struct infer_drift d, kept;
	int i;

	for (i = 0; i < 5; i++) {
		up[i] = base[i] + 0.06;
		bad[i] = base[i];
	}
	bad[2] = NAN;
	ASSERT_EQ(0, infer_drift(moved_controls, 5, &par, &d));
	ASSERT_TRUE(d.moved);
	EXPECT_FALSE(d.by_process);
	ASSERT_EQ(0, infer_drift_processes(base, 5, mixed, 5, &par, &d));
	EXPECT_TRUE(d.by_process);
	EXPECT_EQ(5UL, d.procs_base);
	EXPECT_EQ(5UL, d.procs_new);
	EXPECT_EQ(5UL, d.n);
	EXPECT_FALSE(d.moved);
	EXPECT_LT(0.5, d.p);

	ASSERT_EQ(0, infer_drift(moved_controls, 5, &par, &d));
	ASSERT_EQ(0, infer_drift_processes(base, 5, up, 5, &par, &d));
	EXPECT_TRUE(d.by_process);
	expect_near(_metadata, "p", d.p, 2.0 / 252, 1e-12);
	expect_near(_metadata, "ratio", d.ratio, exp(0.06), 1e-12);
	expect_near(_metadata, "lo", d.lo, exp(0.01), 1e-12);
	expect_near(_metadata, "hi", d.hi, exp(0.11), 1e-12);
	EXPECT_TRUE(d.moved);

	ASSERT_EQ(0, infer_drift(moved_controls, 5, &par, &d));
	memcpy(&kept, &d, sizeof(d));
	ASSERT_EQ(0, infer_drift_processes(base, 4, up, 4, &par, &d));
	EXPECT_EQ(0, memcmp(&kept, &d, sizeof(d)));
	EXPECT_EQ(-EINVAL, infer_drift_processes(base, 5, bad, 5, &par, &d));
	EXPECT_EQ(-EINVAL, infer_drift_processes(base, 0, up, 5, &par, &d));
	EXPECT_EQ(-EINVAL, infer_drift_processes(base, 5, up, 5, &par, NULL));
	EXPECT_EQ(0, memcmp(&kept, &d, sizeof(d)));
}

/* The standard error of a log ratio from the repeats of both sides. */
TEST(log_se_known_value)
{
	double x[] = { 100, 101, 99, 102, 98 }, y[] = { 110, 112, 109 }, one[] = { 5 };

	expect_near(_metadata, "se", infer_log_se(x, 5, y, 3), 0.010660103651824675, 1e-12);
	expect_near(_metadata, "one each", infer_log_se(one, 1, one, 1), 0, 0);
}

/*
 * The interval of the Hodges-Lehmann ratio, by the test's inversion: 5
 * against 5 at alpha 0.01 cuts no pair (k = 0: the extreme log ratios);
 * at 0.2, six at each end (values from Python: sorted log ratios, k =
 * floor(m / 2 - z sqrt(m (n + 1) / 12))). One a side cannot bound it.
 */
TEST(hl_interval_known_values)
{
	double x[] = { 10, 11, 12, 13, 14 }, y[5], lo = 0, hi = 0, zero[] = { 0, 1 };
	int i;

	for (i = 0; i < 5; i++)
		y[i] = x[i] * 1.1;
	ASSERT_EQ(0, infer_hl_interval(x, 5, y, 5, 0.01, &lo, &hi));
	expect_near(_metadata, "lo 0.01", lo, 11.0 / 14, 1e-12);
	expect_near(_metadata, "hi 0.01", hi, 1.54, 1e-12);
	ASSERT_EQ(0, infer_hl_interval(x, 5, y, 5, 0.2, &lo, &hi));
	expect_near(_metadata, "lo 0.2", lo, 1.0, 1e-12);
	expect_near(_metadata, "hi 0.2", hi, 1.21, 1e-12);
	ASSERT_EQ(0, infer_hl_interval(x, 1, y, 1, 0.01, &lo, &hi));
	EXPECT_EQ(0, lo);
	EXPECT_TRUE(isinf(hi));
	EXPECT_EQ(-ENODATA, infer_hl_interval(x, 0, y, 5, 0.01, &lo, &hi));
	EXPECT_EQ(-EDOM, infer_hl_interval(zero, 2, y, 5, 0.01, &lo, &hi));
	EXPECT_EQ(-EINVAL, infer_hl_interval(x, 5, y, 5, 0, &lo, &hi));
	EXPECT_EQ(-EINVAL, infer_hl_interval(x, 5, y, 5, 0.01, NULL, &hi));
}

/*
 * A native ratio net of the drift; equal to the controls' is no change;
 * the point's own uncertainty widens the band; a wild control does not.
 */
TEST(net_known_values)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	struct infer_drift d;
	struct infer_net n;

	ASSERT_EQ(0, infer_drift(quiet_controls, 4, &par, &d));
	ASSERT_EQ(0, infer_net(1.10, 0, &d, &par, &n));
	expect_near(_metadata, "raw", n.raw, 1.10, 0);
	expect_near(_metadata, "net", n.net, 1.083756991962518, 1e-12);
	expect_near(_metadata, "lo", n.lo, 0.9182198893743988, 1e-8);
	expect_near(_metadata, "hi", n.hi, 1.1219534796854547, 1e-8);
	expect_near(_metadata, "p", n.p, 0.018337777892140417, 1e-7);
	EXPECT_FALSE(n.distinct);	/* four noisy controls: can't tell */
	expect_change(_metadata, INFER_UNCHANGED, n.change);

	ASSERT_EQ(0, infer_drift(moved_controls, 5, &par, &d));
	ASSERT_EQ(0, infer_net(1.15, 0, &d, &par, &n));
	expect_near(_metadata, "net", n.net, 1.0838831291234683, 1e-12);
	expect_near(_metadata, "lo", n.lo, 1.0377499119713214, 1e-8);
	expect_near(_metadata, "hi", n.hi, 1.0847709905959593, 1e-8);
	expect_near(_metadata, "p", n.p, 7.466074544348889e-05, 1e-6);
	EXPECT_TRUE(n.distinct);
	expect_change(_metadata, INFER_REGRESSED, n.change);

	/* The same +15%, from repeats that fix it only to 2%: not distinct. */
	ASSERT_EQ(0, infer_net(1.15, 0.02, &d, &par, &n));
	expect_near(_metadata, "lo", n.lo, 0.9651243965278941, 1e-8);
	expect_near(_metadata, "hi", n.hi, 1.1663999004168415, 1e-8);
	expect_near(_metadata, "p", n.p, 0.017309771423731024, 1e-7);
	EXPECT_FALSE(n.distinct);
	expect_change(_metadata, INFER_UNCHANGED, n.change);

	/* +7% raw while the machine moved +6%: not the kernel. */
	ASSERT_EQ(0, infer_net(1.07, 0, &d, &par, &n));
	expect_near(_metadata, "net", n.net, 1.0084825636192272, 1e-12);
	expect_near(_metadata, "p", n.p, 0.15407947364612584, 1e-7);
	EXPECT_FALSE(n.distinct);
	expect_change(_metadata, INFER_UNCHANGED, n.change);
	EXPECT_TRUE(n.why == INFER_WHY_NONE);

	/* A wild control leaves the +15% a kernel change. */
	ASSERT_EQ(0, infer_drift(wild_controls, 6, &par, &d));
	ASSERT_EQ(0, infer_net(1.15, 0, &d, &par, &n));
	expect_near(_metadata, "net", n.net, 1.0828630035994533, 1e-12);
	expect_near(_metadata, "lo", n.lo, 1.0354757567223647, 1e-8);
	expect_near(_metadata, "hi", n.hi, 1.089202709651078, 1e-8);
	expect_near(_metadata, "p", n.p, 5.399107454273633e-05, 1e-6);
	expect_change(_metadata, INFER_REGRESSED, n.change);
}

/* One control: a drift but no uncertainty, so no verdict. */
TEST(drift_one_control)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	double one = 1.2;
	struct infer_drift d;
	struct infer_net n;

	ASSERT_EQ(0, infer_drift(&one, 1, &par, &d));
	EXPECT_FALSE(d.enough);
	EXPECT_FALSE(d.moved);
	expect_near(_metadata, "ratio", d.ratio, 1.2, 1e-15);
	expect_near(_metadata, "p", d.p, 1, 0);
	EXPECT_TRUE(isinf(d.hi));
	ASSERT_EQ(0, infer_net(1.5, 0, &d, &par, &n));
	expect_near(_metadata, "net", n.net, 1.25, 1e-15);
	expect_change(_metadata, INFER_INCONCLUSIVE, n.change);
	EXPECT_TRUE(n.why == INFER_WHY_FEW_CONTROLS);
}

/* Controls without spread: any native difference is certain. */
TEST(drift_zero_spread)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	double same[] = { 1.05, 1.05, 1.05 };
	struct infer_drift d;
	struct infer_net n;

	ASSERT_EQ(0, infer_drift(same, 3, &par, &d));
	expect_near(_metadata, "sd", d.log_sd, 0, 0);
	expect_near(_metadata, "p", d.p, 0, 0);
	EXPECT_TRUE(d.moved);
	ASSERT_EQ(0, infer_net(1.05, 0, &d, &par, &n));
	expect_near(_metadata, "net", n.net, 1, 1e-15);
	expect_change(_metadata, INFER_UNCHANGED, n.change);
	ASSERT_EQ(0, infer_net(1.2, 0, &d, &par, &n));
	EXPECT_TRUE(n.distinct);
	expect_change(_metadata, INFER_REGRESSED, n.change);
	ASSERT_EQ(0, infer_net(1.06, 0, &d, &par, &n));
	EXPECT_TRUE(n.distinct);
	expect_change(_metadata, INFER_UNCHANGED, n.change);	/* under 2% net */
}

int main(int argc, char **argv)
{
	infer_test_totals_at_exit();
	return test_harness_run(argc, argv);
}
