// SPDX-License-Identifier: GPL-2.0
/*
 * infer_input_test.c - unit tests of infer.c's refusals: every entry point
 * of the statistics of copybench compare refuses garbage (NaN, infinities,
 * negative costs, too many values, parameters out of range, names out of
 * range) with the documented errno and leaves its output untouched, and
 * the largest accepted sample goes through.
 *
 * Usage: infer_input_test [kselftest harness options, e.g. -t bad_params_refused]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
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

#define SENTINEL	0x5a

static bool untouched(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != SENTINEL)
			return false;
	return true;
}

/* Every entry point refuses garbage with the documented errno. */
static const double bad_ok[] = { 1, 2, 3 }, bad_nan[] = { 1, NAN, 3 };
static const double bad_inf[] = { 1, INFINITY, 3 }, bad_neg[] = { 1, -2, 3 };

/* One more value than INFER_MAX_N accepts. */
static const double *bad_big(void)
{
	static double big[INFER_MAX_N + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(big); i++)
		big[i] = (double)i + 1;
	return big;
}

TEST(bad_input_mwu_refused)
{
	const double *big = bad_big(), *ok = bad_ok;
	struct infer_mwu m;

	memset(&m, SENTINEL, sizeof(m));
	EXPECT_EQ(-EINVAL, infer_mwu(NULL, 3, ok, 3, INFER_AUTO, &m));
	EXPECT_EQ(-EINVAL, infer_mwu(ok, 0, ok, 3, INFER_AUTO, &m));
	EXPECT_EQ(-EINVAL, infer_mwu(ok, 3, bad_nan, 3, INFER_AUTO, &m));
	EXPECT_EQ(-EINVAL, infer_mwu(bad_inf, 3, ok, 3, INFER_AUTO, &m));
	EXPECT_EQ(-EINVAL, infer_mwu(ok, 3, ok, 3, (enum infer_method)7, &m));
	EXPECT_EQ(-EINVAL, infer_mwu(ok, 3, ok, 3, INFER_AUTO, NULL));
	EXPECT_EQ(-E2BIG, infer_mwu(big, INFER_MAX_N + 1, ok, 3, INFER_AUTO, &m));
	EXPECT_EQ(-E2BIG, infer_mwu(big, 61, big, 60, INFER_EXACT, &m));
	EXPECT_TRUE(untouched(&m, sizeof(m)));
}

TEST(bad_input_level_refused)
{
	struct infer_params par = INFER_PARAMS_DEFAULT, bad = INFER_PARAMS_DEFAULT;
	const double *big = bad_big(), *ok = bad_ok;
	struct infer_verdict v;
	struct infer_level l;

	bad.alpha = 0;
	memset(&l, SENTINEL, sizeof(l));
	EXPECT_EQ(-EINVAL, infer_level(NULL, 3, ok, 3, &par, &l));
	EXPECT_EQ(-EINVAL, infer_level(ok, 0, ok, 3, &par, &l));
	EXPECT_EQ(-EINVAL, infer_level(ok, 3, bad_nan, 3, &par, &l));
	EXPECT_EQ(-EINVAL, infer_level(bad_inf, 3, ok, 3, &par, &l));
	EXPECT_EQ(-EDOM, infer_level(ok, 3, bad_neg, 3, &par, &l));
	EXPECT_EQ(-EINVAL, infer_level(ok, 3, ok, 3, &bad, &l));
	EXPECT_EQ(-EINVAL, infer_level(ok, 3, ok, 3, NULL, &l));
	EXPECT_EQ(-EINVAL, infer_level(ok, 3, ok, 3, &par, NULL));
	EXPECT_EQ(-E2BIG, infer_level(big, INFER_MAX_N + 1, ok, 3, &par, &l));
	EXPECT_TRUE(untouched(&l, sizeof(l)));
	memset(&v, SENTINEL, sizeof(v));
	EXPECT_EQ(-EINVAL, infer_decide_level(ok, 3, bad_nan, 3, &par, &v));
	EXPECT_EQ(-E2BIG, infer_decide_level(big, INFER_MAX_N + 1, ok, 3, &par, &v));
	EXPECT_EQ(-EINVAL, infer_decide_level(ok, 3, ok, 3, &bad, &v));
	EXPECT_TRUE(untouched(&v, sizeof(v)));
	/* The largest sample goes through (random splits, not every one). */
	ASSERT_EQ(0, infer_level(big, INFER_MAX_N, big, INFER_MAX_N, &par, &l));
	EXPECT_FALSE(l.exact);
	EXPECT_GT(l.p, 0.5);
}

TEST(bad_input_decide_boot_lkp_refused)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	const double *big = bad_big(), *ok = bad_ok;
	struct infer_verdict v;
	struct infer_boot b;
	struct infer_lkp l;

	memset(&v, SENTINEL, sizeof(v));
	memset(&b, SENTINEL, sizeof(b));
	memset(&l, SENTINEL, sizeof(l));
	EXPECT_EQ(-EINVAL, infer_decide(ok, 3, bad_nan, 3, &par, &v));
	EXPECT_EQ(-EINVAL, infer_decide(NULL, 3, ok, 3, &par, &v));
	EXPECT_EQ(-EINVAL, infer_decide(ok, 3, ok, 3, NULL, &v));
	EXPECT_EQ(-E2BIG, infer_decide(big, INFER_MAX_N + 1, ok, 3, &par, &v));
	EXPECT_TRUE(untouched(&v, sizeof(v)));

	EXPECT_EQ(-EDOM, infer_boot_median_ratio(ok, 3, bad_neg, 3, &par, &b));
	EXPECT_EQ(-EINVAL, infer_boot_median_ratio(ok, 3, bad_inf, 3, &par, &b));
	EXPECT_TRUE(untouched(&b, sizeof(b)));

	EXPECT_EQ(-EINVAL, infer_lkp(ok, 3, ok, 3, -1, &l));
	EXPECT_EQ(-EINVAL, infer_lkp(ok, 3, ok, 3, NAN, &l));
	EXPECT_EQ(-EINVAL, infer_lkp(ok, 3, bad_nan, 3, 0, &l));
	EXPECT_TRUE(untouched(&l, sizeof(l)));
}

TEST(bad_input_drift_net_refused)
{
	struct infer_params par = INFER_PARAMS_DEFAULT;
	const double *ok = bad_ok;
	struct infer_drift d;
	struct infer_net n;

	memset(&d, SENTINEL, sizeof(d));
	memset(&n, SENTINEL, sizeof(n));
	EXPECT_EQ(-ENODATA, infer_drift(ok, 0, &par, &d));
	EXPECT_EQ(-E2BIG, infer_drift(ok, INFER_DRIFT_MAX_N + 1, &par, &d));
	EXPECT_EQ(-EDOM, infer_drift(bad_neg, 3, &par, &d));
	EXPECT_EQ(-EINVAL, infer_drift(bad_nan, 3, &par, &d));
	EXPECT_TRUE(untouched(&d, sizeof(d)));
	ASSERT_EQ(0, infer_drift(ok, 3, &par, &d));
	EXPECT_EQ(-EDOM, infer_net(-1.0, 0, &d, &par, &n));
	EXPECT_EQ(-EDOM, infer_net(0.0, 0, &d, &par, &n));
	EXPECT_EQ(-EINVAL, infer_net(NAN, 0, &d, &par, &n));
	EXPECT_EQ(-EINVAL, infer_net(1.0, -0.1, &d, &par, &n));
	EXPECT_EQ(-EINVAL, infer_net(1.0, NAN, &d, &par, &n));
	EXPECT_EQ(-EINVAL, infer_net(1.0, INFINITY, &d, &par, &n));
	EXPECT_EQ(-EINVAL, infer_net(1.0, 0, NULL, &par, &n));
	d.n = 1;	/* a drift that claims an uncertainty it cannot have */
	EXPECT_EQ(-EINVAL, infer_net(1.0, 0, &d, &par, &n));
	EXPECT_TRUE(untouched(&n, sizeof(n)));
	EXPECT_TRUE(isnan(infer_log_se(ok, 3, bad_neg, 3)));
	EXPECT_TRUE(isnan(infer_log_se(ok, 3, bad_nan, 3)));
	EXPECT_TRUE(isnan(infer_log_se(ok, 0, ok, 3)));
	EXPECT_TRUE(isnan(infer_log_se(NULL, 3, ok, 3)));
}

/* Parameters: every field outside its range, refused and nothing written. */
TEST(bad_params_refused)
{
	struct infer_params par = INFER_PARAMS_DEFAULT, bad;
	const double *ok = bad_ok;
	struct infer_verdict v;
	struct infer_boot b;

	memset(&v, SENTINEL, sizeof(v));
	memset(&b, SENTINEL, sizeof(b));
	EXPECT_EQ(0, infer_params_check(&par));
	EXPECT_EQ(-EINVAL, infer_params_check(NULL));
	bad = par;
	bad.alpha = 0;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	bad = par;
	bad.alpha = 0.6;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	bad = par;
	bad.alpha = NAN;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	EXPECT_EQ(-EINVAL, infer_decide(ok, 3, ok, 3, &bad, &v));
	bad = par;
	bad.threshold = -0.01;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	bad = par;
	bad.threshold = NAN;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	bad = par;
	bad.resamples = INFER_BOOT_MIN - 1;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	EXPECT_EQ(-EINVAL, infer_boot_median_ratio(ok, 3, ok, 3, &bad, &b));
	bad = par;
	bad.resamples = INFER_BOOT_MAX + 1;
	EXPECT_EQ(-EINVAL, infer_params_check(&bad));
	EXPECT_TRUE(untouched(&v, sizeof(v)));
	EXPECT_TRUE(untouched(&b, sizeof(b)));
}

TEST(names_out_of_range)
{
	EXPECT_STREQ("?", infer_change_name((enum infer_change)99));
	EXPECT_STREQ("?", infer_why_name((enum infer_why)-1));
	EXPECT_STREQ("regressed", infer_change_name(INFER_REGRESSED));
}

/* The largest accepted sample goes through, normal approximation. */
TEST(largest_sample)
{
	static double x[INFER_MAX_N], y[INFER_MAX_N];
	struct infer_mwu m;
	size_t i;

	for (i = 0; i < INFER_MAX_N; i++) {
		x[i] = 1000 + (double)(i % 97);
		y[i] = 1010 + (double)(i % 89);
	}
	ASSERT_EQ(0, infer_mwu(x, INFER_MAX_N, y, INFER_MAX_N, INFER_AUTO, &m));
	EXPECT_FALSE(m.exact);
	EXPECT_TRUE(m.ties);
	EXPECT_TRUE(m.p < 1e-6);
	expect_near(_metadata, "min p underflows to 0", m.min_p, 0, 0);
	ASSERT_EQ(0, infer_mwu(x, 60, y, 60, INFER_EXACT, &m));
	EXPECT_TRUE(m.exact);
}

int main(int argc, char **argv)
{
	infer_test_totals_at_exit();
	return test_harness_run(argc, argv);
}
