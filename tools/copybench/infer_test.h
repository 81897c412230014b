/* SPDX-License-Identifier: GPL-2.0 */
/*
 * infer_test.h - what the unit tests of infer.c share (infer_test.c,
 * infer_checks_test.c, infer_input_test.c): a comparison within a relative
 * tolerance that names what it compares, and the closing line a CI reads.
 * Include it after kselftest_harness.h.
 */
#ifndef INFER_TEST_H
#define INFER_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXV	16

/* got is want within rel (relative), or both NaN; what names it on failure. */
static inline void expect_near(struct __test_metadata *_metadata, const char *what,
			       double got, double want, double rel)
{
	if (isnan(want)) {
		EXPECT_TRUE(isnan(got))
			TH_LOG("%s: got %.17g, want NaN", what, got);
		return;
	}
	EXPECT_TRUE(fabs(got - want) <= rel * fabs(want) + 1e-300)
		TH_LOG("%s: got %.17g, want %.17g (relative tolerance %g)",
		       what, got, want, rel);
}

static pid_t infer_test_main_pid;

/* The line a CI reads: the harness's own totals differ across versions. */
static inline void infer_test_print_totals(void)
{
	if (getpid() != infer_test_main_pid)
		return;
	printf("# %d passed, %d failed, %d skipped\n", ksft_get_pass_cnt(),
	       ksft_get_fail_cnt(), ksft_get_xskip_cnt());
	fflush(stdout);
}

/* Each program's main() calls it first: the totals line at exit, from main only. */
static inline void infer_test_totals_at_exit(void)
{
	infer_test_main_pid = getpid();
	atexit(infer_test_print_totals);
}

#endif /* INFER_TEST_H */
