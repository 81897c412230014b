// SPDX-License-Identifier: GPL-2.0
/*
 * sweep_test.c - unit tests of a sweep described in C (sweep.h): a job
 * filled with CB_JOB_SET() becomes the argv that sweep's own parser reads
 * back to the same fields, for every option sweep takes, so placement and
 * bisect-run run the sweep they describe.
 *
 * Built by "make copybench" as build/unit/sweep_test, on the kernel's
 * kselftest_harness.h; run by "make unit-check" and
 * selftests/copybench_cmd_test.sh.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "job.h"
#include "process.h"
#include "sweep.h"

/* "sweep" and r's options as one line, words separated by spaces. */
static char *words(const struct cb_job *r)
{
	struct cb_argv a = { 0 };
	struct cb_str s = { 0 };
	size_t i;

	cb_sweep_argv(r, &a);
	for (i = 0; i < a.n; i++)
		cb_str_printf(&s, "%s%s", i ? " " : "", a.v[i]);
	cb_argv_free(&a);
	return s.s;
}

/* r's argv parsed back by sweep's parser into back; 0, or -1 with e. */
static int round_trip(const struct cb_job *r, struct cb_job *back, struct cb_argv *a,
		      struct cb_error *e)
{
	cb_sweep_argv(r, a);
	if (cb_sweep_parse((int)a->n, a->v, back, e) != (int)a->n)
		return -1;
	return 0;
}

/* What placement and bisect-run fill, each field back as it was set. */
TEST(job_to_argv_parses_back)
{
	static const char want[] =
		"sweep --src-offset=3 --dst-offset=4095 --backend=user --load=-my.ko --variants=native,movsb --directions=to_user --cache=hot --sizes=random:1-64 --repeat=48 --seed=18446744073709551615 --placements=16 --samples=21 --cpu=0 -o /tmp/x y.json --like=-good.json --points=*.native.4K --as-native=-movsb --perturb-controls=0.3";
	struct cb_argv a = { 0 };
	struct cb_error e = { 0 };
	struct cb_job r, back;
	char *w;

	cb_sweep_init(&r);
	CB_JOB_SET(&r, backend, "user");
	CB_JOB_SET(&r, set.load, "-my.ko");
	CB_JOB_SET(&r, sizes, "random:1-64");
	CB_JOB_SET(&r, variants, "native,movsb");
	CB_JOB_SET(&r, directions, "to_user");
	CB_JOB_SET(&r, caches, "hot");
	CB_JOB_SET(&r, src_offset, 3ULL);
	CB_JOB_SET(&r, dst_offset, 4095ULL);
	CB_JOB_SET(&r, repeat, 48ULL);
	CB_JOB_SET(&r, place_period, 16U);
	CB_JOB_SET(&r, set.samples, 21UL);
	CB_JOB_SET(&r, seed, ~0ULL);
	CB_JOB_SET(&r, set.cpu, 0L);
	CB_JOB_SET(&r, like, "-good.json");
	CB_JOB_SET(&r, points, "*.native.4K");
	CB_JOB_SET(&r, as_native, "-movsb");
	CB_JOB_SET(&r, perturb, 0.3);
	CB_JOB_SET(&r, output, "/tmp/x y.json");
	w = words(&r);
	EXPECT_STREQ(want, w);
	free(w);

	ASSERT_EQ(0, round_trip(&r, &back, &a, &e)) {
		TH_LOG("sweep refused its argv: %s", e.msg);
	}
	EXPECT_STREQ("user", back.backend);
	EXPECT_STREQ("-my.ko", back.set.load);
	EXPECT_STREQ("random:1-64", back.sizes);
	EXPECT_STREQ("native,movsb", back.variants);
	EXPECT_STREQ("to_user", back.directions);
	EXPECT_STREQ("hot", back.caches);
	EXPECT_EQ(3ULL, back.src_offset);
	EXPECT_EQ(4095ULL, back.dst_offset);
	EXPECT_EQ(48ULL, back.repeat);
	EXPECT_EQ(16U, back.place_period);
	EXPECT_EQ(21UL, back.set.samples);
	EXPECT_EQ(~0ULL, back.seed);
	EXPECT_EQ(1, back.seeded);
	EXPECT_EQ(0L, back.set.cpu);
	EXPECT_STREQ("-good.json", back.like);
	EXPECT_STREQ("*.native.4K", back.points);
	EXPECT_STREQ("-movsb", back.as_native);
	EXPECT_TRUE(back.perturb == 0.3);
	EXPECT_STREQ("/tmp/x y.json", back.output);
	/* The same options given, and nothing else. */
	EXPECT_EQ(0, memcmp(&r.given, &back.given, sizeof(r.given)));
	cb_argv_free(&a);
}

/* Left alone, a job is sweep's defaults, and its argv says nothing more. */
TEST(defaults_say_nothing)
{
	struct cb_argv a = { 0 };
	struct cb_error e = { 0 };
	struct cb_job r, back;
	char *w;

	cb_sweep_init(&r);
	w = words(&r);
	EXPECT_STREQ("sweep", w);
	free(w);
	ASSERT_EQ(0, round_trip(&r, &back, &a, &e));
	EXPECT_STREQ(r.sizes, back.sizes);
	EXPECT_EQ(r.repeat, back.repeat);
	EXPECT_EQ(-1L, back.set.cpu);
	EXPECT_EQ(0, back.seeded);
	cb_argv_free(&a);
	/* --load without a value, -o of a file starting with '-'. */
	CB_JOB_SET(&r, set.load, "");
	CB_JOB_SET(&r, output, "-o.json");
	w = words(&r);
	EXPECT_STREQ("sweep --load --output=-o.json", w);
	free(w);
	a = (struct cb_argv){ 0 };
	ASSERT_EQ(0, round_trip(&r, &back, &a, &e));
	EXPECT_STREQ("", back.set.load);
	EXPECT_STREQ("-o.json", back.output);
	cb_argv_free(&a);
}

/*
 * Every option sweep takes, given on a command line: its argv, parsed and
 * written again, is word for word the same (each option's field written
 * back as the value its check reads to it: callbacks, choices, a
 * percentage kept as a fraction).
 */
TEST(every_option_round_trips)
{
	static const char *const line[] = {
		"sweep", "--src-offset", "1", "--dst-offset=2", "--backend", "module",
		"--load=x.ko", "--variants", "all", "--directions", "all", "--cache", "hot,cold",
		"--sizes", "pow2:1-1M", "--repeat", "7", "--seed", "0", "--placement",
		"8192:4160:2048", "--placements", "3", "--samples", "1001", "--design", "block",
		"--rounds", "9", "--process-ms", "0", "--burst", "4", "--loops", "8", "--cpu", "1",
		"--max-run-ms", "600000", "--estimator", "median", "--clock", "core", "-o",
		"rec.json", "--json", "--plateau", "--tolerance", "2.5", "--dry-run", "--like",
		"good.json", "--points", "*", "--as-native", "bytes", "--perturb-controls", "3",
		"--slow-spell", "0.1", "--slow-native", "12.5", NULL,
	};
	struct cb_argv a = { 0 }, b = { 0 }, in = { 0 };
	struct cb_error e = { 0 };
	struct cb_job r, back;
	int n = (int)ARRAY_SIZE(line) - 1;
	size_t i;

	for (i = 0; line[i]; i++)
		cb_argv_add(&in, "%s", line[i]);
	ASSERT_EQ(n, cb_sweep_parse(n, in.v, &r, &e)) {
		TH_LOG("%s", e.msg);
	}
	ASSERT_EQ(0, round_trip(&r, &back, &a, &e)) {
		TH_LOG("%s", e.msg);
	}
	cb_sweep_argv(&back, &b);
	ASSERT_EQ(a.n, b.n);
	for (i = 0; i < a.n; i++)
		EXPECT_STREQ(a.v[i], b.v[i]);
	EXPECT_EQ(0, memcmp(&r.given, &back.given, sizeof(r.given)));
	EXPECT_EQ(CB_DESIGN_BLOCK, back.design);
	EXPECT_EQ(CB_EST_MEDIAN, back.estimator);
	EXPECT_EQ(1, back.core_clocks);
	EXPECT_TRUE(back.tolerance == r.tolerance);
	EXPECT_TRUE(back.set.spell == 0.1);
	EXPECT_TRUE(back.placement.mode == CB_PLACE_AT);
	EXPECT_EQ(0, memcmp(&r.placement, &back.placement, sizeof(r.placement)));
	EXPECT_EQ(1, back.json);
	EXPECT_EQ(1, back.dry_run);
	cb_argv_free(&a);
	cb_argv_free(&b);
	cb_argv_free(&in);
}

TEST_HARNESS_MAIN
