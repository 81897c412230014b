// SPDX-License-Identifier: GPL-2.0
/*
 * cb_debugfs_test.c - native tests of lib/cb_debugfs.c, the one C client
 * of copybench.ko's debugfs interface: the "results" and "variants" parsers
 * on texts given here (strict as the module's tests read results, lenient
 * as the copybench command does), the value formats of copybench.rst, and
 * whole-file reads and writes on a temporary file. No module, no root.
 *
 * Usage: cb_debugfs_test [kselftest harness options]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/cb_debugfs.h"

/* A well-formed value of unit. */
static const char *sample(const char *unit)
{
	if (!strcmp(unit, "name"))
		return "movsb";
	if (!strcmp(unit, "bool"))
		return "1";
	if (!strcmp(unit, "cycles") || !strcmp(unit, "ns"))
		return "12.34";
	if (!strcmp(unit, "bytes/cycle"))
		return "1.234";
	return "42";
}

/* The results text of every key in order, key skip left out, extra appended. */
static void results_text(char *buf, size_t len, int skip, const char *extra)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < CBFS_NKEYS; k++)
		if (k != skip)
			n += snprintf(buf + n, len - n, "%s %s\n", cbfs_keys[k].key,
				      sample(cbfs_keys[k].unit));
	if (extra)
		snprintf(buf + n, len - n, "%s", extra);
}

TEST(strict_results_give_every_key_in_order)
{
	const char *vals[CBFS_NKEYS];
	char text[8192], why[256];
	int k;

	results_text(text, sizeof(text), -1, NULL);
	ASSERT_EQ(0, cbfs_results_parse(text, vals, true, why, sizeof(why)));
	for (k = 0; k < CBFS_NKEYS; k++) {
		ASSERT_NE(NULL, vals[k]);
		EXPECT_STREQ(sample(cbfs_keys[k].unit), vals[k]);
	}
}

TEST(strict_results_refuse_a_missing_key)
{
	const char *vals[CBFS_NKEYS];
	char text[8192], why[256];

	results_text(text, sizeof(text), CBFS_KEY_verified, NULL);
	ASSERT_EQ(-1, cbfs_results_parse(text, vals, true, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "keys, want"));
}

TEST(strict_results_refuse_keys_out_of_order)
{
	const char *vals[CBFS_NKEYS];
	char text[8192], why[256];

	snprintf(text, sizeof(text), "direction to_user\nvariant movsb\n");
	ASSERT_EQ(-1, cbfs_results_parse(text, vals, true, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "want key variant"));
}

TEST(strict_results_refuse_a_malformed_value)
{
	const char *vals[CBFS_NKEYS];
	char text[8192], why[256], *p;

	results_text(text, sizeof(text), -1, NULL);
	p = strstr(text, "cycles_min 12.34");
	ASSERT_NE(NULL, p);
	memcpy(p, "cycles_min 12.3 ", 16);	/* one decimal: not the format */
	ASSERT_EQ(-1, cbfs_results_parse(text, vals, true, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "cycles_min: bad cycles value"));
}

TEST(strict_results_refuse_an_extra_line)
{
	const char *vals[CBFS_NKEYS];
	char text[8192], why[256];

	results_text(text, sizeof(text), -1, "newer_key 1\n");
	ASSERT_EQ(-1, cbfs_results_parse(text, vals, true, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "extra line"));
}

/* A newer module's key, and one missing: the command reads what it knows. */
TEST(lenient_results_skip_unknown_keys)
{
	const char *vals[CBFS_NKEYS];
	char text[8192];

	results_text(text, sizeof(text), CBFS_KEY_run_ms, "newer_key 7\nno_value\n");
	ASSERT_EQ(0, cbfs_results_parse(text, vals, false, NULL, 0));
	EXPECT_STREQ("12.34", vals[CBFS_KEY_cycles_min]);
	EXPECT_STREQ("1", vals[CBFS_KEY_verified]);
	EXPECT_EQ(NULL, vals[CBFS_KEY_run_ms]);
	EXPECT_EQ(-1, cbfs_key_index("newer_key"));
}

TEST(value_formats_of_each_unit)
{
	static const struct {
		const char *unit, *v;
		bool ok;
	} t[] = {
		{ "name", "movsb", true }, { "name", "Movsb", false }, { "name", "", false },
		{ "bool", "0", true }, { "bool", "2", false },
		{ "cpu", "-1", true }, { "cpu", "-2", false }, { "cpu", "3", true },
		{ "cycles", "0.00", true }, { "cycles", "1.5", false }, { "cycles", "1", false },
		{ "bytes/cycle", "0.125", true }, { "bytes/cycle", "0.12", false },
		{ "bytes", "4096", true }, { "bytes", "-1", false }, { "bytes", "4K", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (cbfs_value_ok(t[i].unit, t[i].v) != t[i].ok)
			TH_LOG("%s '%s': expected %s", t[i].unit, t[i].v,
			       t[i].ok ? "well formed" : "refused");
		EXPECT_EQ(t[i].ok, cbfs_value_ok(t[i].unit, t[i].v));
	}
}

TEST(variant_line_with_directions)
{
	char line[] = "movsb usable memcpy,to_user rep movsb, the ERMS copy";
	struct cbfs_variant v;
	int to_user = -1, memcpy_d = -1;
	unsigned int d;

	for (d = 0; d < cbfs_ndirections; d++) {
		if (!strcmp(cbfs_directions[d], "to_user"))
			to_user = (int)d;
		if (!strcmp(cbfs_directions[d], "memcpy"))
			memcpy_d = (int)d;
	}
	ASSERT_GE(to_user, 0);
	ASSERT_GE(memcpy_d, 0);
	ASSERT_EQ(0, cbfs_variant_parse(line, &v));
	EXPECT_STREQ("movsb", v.name);
	EXPECT_TRUE(v.usable);
	EXPECT_TRUE(v.has_dirs);
	EXPECT_EQ((1UL << to_user) | (1UL << memcpy_d), v.dirs);
	EXPECT_STREQ("rep movsb, the ERMS copy", v.desc);
}

/* A module older than DIRS: the description starts at the third field. */
TEST(variant_line_without_directions)
{
	char line[] = "orig unusable the kernel's copy of 6.1";
	struct cbfs_variant v;

	ASSERT_EQ(0, cbfs_variant_parse(line, &v));
	EXPECT_STREQ("orig", v.name);
	EXPECT_FALSE(v.usable);
	EXPECT_FALSE(v.has_dirs);
	EXPECT_EQ(0UL, v.dirs);
	EXPECT_STREQ("the kernel's copy of 6.1", v.desc);
}

TEST(variant_line_malformed)
{
	char none[] = "", one[] = "movsb", bad[] = "movsb maybe memcpy x";
	struct cbfs_variant v;

	EXPECT_EQ(-EINVAL, cbfs_variant_parse(none, &v));
	EXPECT_EQ(-EINVAL, cbfs_variant_parse(one, &v));
	EXPECT_EQ(-EINVAL, cbfs_variant_parse(bad, &v));
}

/* One write() of the whole value; a read whole, cut to the buffer; errno back. */
TEST(file_write_and_read)
{
	char path[] = "/tmp/cb_debugfs_test.XXXXXX", buf[8];
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(0, cbfs_file_write(path, "123456789", 9));
	EXPECT_EQ(7, cbfs_file_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("1234567", buf);
	unlink(path);
	EXPECT_EQ(-ENOENT, cbfs_file_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(-ENOENT, cbfs_file_write("/nonexistent/dir/file", "1", 1));
}

TEST_HARNESS_MAIN
