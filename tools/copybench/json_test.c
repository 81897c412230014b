// SPDX-License-Identifier: GPL-2.0
/*
 * json_test.c - unit tests of JSON in the copybench command: the parser (json.c) and the writer every
 * output goes through (lib/cb_json_writer.c).
 *
 * Built by "make copybench" as build/unit/json_test, on the kernel's
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

TEST_HARNESS_MAIN
