// SPDX-License-Identifier: GPL-2.0
/*
 * points_test.c - unit tests of the languages of the copybench command: point names, size classes and
 * --points patterns (points.c), the --sizes language (sizes.c) and, of
 * the option engine (lib/cb_options.c), the double type and the values
 * that start with '-'.
 *
 * Built by "make copybench" as build/unit/points_test, on the kernel's
 * kselftest_harness.h; run by "make unit-check" and
 * selftests/copybench_cmd_test.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
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

/*
 * A value in its own word that looks like an option ("--out --json") is
 * refused, named with the option as typed; after '=' it is a value, and so
 * are "-" alone and numbers ("-5", "-0.5", "-inf"), which their option
 * judges.
 */
struct wopt_ctx {
	const char *out;
	long long n;
	double d;
	int json;
};

static const struct cb_option wopt_table[] = {
	CB_OPT_STRING("out", 'o', struct wopt_ctx, out, "FILE", "the output"),
	CB_OPT_INT("n", struct wopt_ctx, n, -10, 10, NULL, "N", "a number"),
	CB_OPT_DOUBLE("d", struct wopt_ctx, d, -1e308, 1e308, 0, 1, "a number", "D", "D",
		      "a double"),
	CB_OPT_FLAG("json", 0, struct wopt_ctx, json, "a flag"),
	CB_OPT_END(),
};

static int wopt_parse(struct wopt_ctx *c, struct cb_error *e, int argc, ...)
{
	static const struct cb_option *const tables[] = { wopt_table, NULL };
	char prog[] = "test";
	char *argv[8] = { prog };
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	optind = 0;
	memset(c, 0, sizeof(*c));
	memset(e, 0, sizeof(*e));
	return cb_options_parse(argc, argv, tables, c, NULL, e);
}

TEST(options_dash_values)
{
	struct wopt_ctx c;
	struct cb_error e;

	ASSERT_EQ(3, wopt_parse(&c, &e, 3, "--out", "-"));
	EXPECT_STREQ("-", c.out);
	ASSERT_EQ(3, wopt_parse(&c, &e, 3, "--n", "-5"));
	EXPECT_EQ(-5, c.n);
	ASSERT_EQ(3, wopt_parse(&c, &e, 3, "--d", "-0.5"));
	EXPECT_TRUE(NEAR(-0.5, c.d));
	EXPECT_EQ(-1, wopt_parse(&c, &e, 3, "--d", "-inf"));
	EXPECT_STREQ("invalid --d '-inf' (accepted: a number, -1e+308..1e+308)", e.msg);
	ASSERT_EQ(2, wopt_parse(&c, &e, 2, "--out=--json"));
	EXPECT_STREQ("--json", c.out);
	ASSERT_EQ(2, wopt_parse(&c, &e, 2, "-o-x"));
	EXPECT_STREQ("-x", c.out);
	EXPECT_EQ(-1, wopt_parse(&c, &e, 4, "--out", "--json", "x"));
	EXPECT_EQ(CB_EXIT_USAGE, e.status);
	EXPECT_STREQ("option '--out' needs a value, but '--json' follows it (a FILE that starts with '-': --out=FILE)",
		     e.msg);
	EXPECT_EQ(-1, wopt_parse(&c, &e, 3, "-o", "-x"));
	EXPECT_STREQ("option '-o' needs a value, but '-x' follows it (a FILE that starts with '-': --out=FILE)",
		     e.msg);
	EXPECT_EQ(-1, wopt_parse(&c, &e, 3, "--n", "--"));
	EXPECT_STREQ("option '--n' needs a value, but '--' follows it (a N that starts with '-': --n=N)",
		     e.msg);
	EXPECT_EQ(-1, wopt_parse(&c, &e, 2, "-o"));
	EXPECT_STREQ("option '-o' (--out) needs a value: FILE (see --help)", e.msg);
	EXPECT_EQ(-1, wopt_parse(&c, &e, 2, "--out"));
	EXPECT_STREQ("option '--out' needs a value: FILE (see --help)", e.msg);
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

TEST_HARNESS_MAIN
