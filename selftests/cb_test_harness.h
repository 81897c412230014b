/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_test_harness.h - what the module's interface tests (copybench_test.c,
 * copybench_run_test.c, copybench_data_test.c) share that needs the
 * kselftest harness: a fixture's setup and the check of a refusal's
 * last_error, both taking the harness's _metadata. Include it after
 * kselftest_harness.h and cb_test_lib.h; cb_test_lib.h holds everything
 * that needs no harness.
 */
#ifndef CB_TEST_HARNESS_H
#define CB_TEST_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cb_test_lib.h"

/*
 * Every fixture: SKIP without the module, else save the knobs, which the
 * teardown writes back. Returns whether the test can go on.
 */
static inline bool cb_fixture_setup(struct __test_metadata *_metadata, struct cb_saved *saved)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return false, "%s", why);
	cb_save(saved);
	return true;
}

/*
 * last_error after a refusal of value written to file: the file, the errno
 * name, the value quoted, and what is accepted.
 */
static inline void cb_expect_refusal(struct __test_metadata *_metadata, const char *file,
				     const char *errname, const char *value, const char *rule)
{
	const char *line = cb_last_error();
	char prefix[160], quoted[160];

	snprintf(prefix, sizeof(prefix), "%s: %s: ", file, errname);
	EXPECT_EQ(0, strncmp(line, prefix, strlen(prefix)))
		TH_LOG("last_error \"%s\" does not start with \"%s\"", line, prefix);
	if (value) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", value);
		EXPECT_NE(NULL, strstr(line, quoted))
			TH_LOG("last_error \"%s\" does not quote %s", line, quoted);
	}
	if (rule)
		EXPECT_NE(NULL, strstr(line, rule))
			TH_LOG("last_error \"%s\" does not say \"%s\"", line, rule);
}

#endif /* CB_TEST_HARNESS_H */
