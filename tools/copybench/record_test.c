// SPDX-License-Identifier: GPL-2.0
/*
 * record_test.c - unit tests of the records (record.c): good records read and written back, unknown
 * fields tolerated, and every kind of bad one a reader must refuse with
 * the file and line; a line's figures and the rule for a figure net of
 * the loop (figures.c).
 *
 * Built by "make copybench" as build/unit/record_test, on the kernel's
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

#include "figures.h"
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

/*
 * A net figure is shown only where the copy makes at least half the time
 * per call and four times its jitter: a copy whose time per call is the
 * loop's (in its shadow) is hidden, never a cost near 0.
 */
TEST(net_hidden_under_the_loop)
{
	EXPECT_FALSE(cb_net_resolvable(2.6, 2.6, 0));	/* the loop's own time */
	EXPECT_FALSE(cb_net_resolvable(2.5, 2.6, 0));	/* faster than the empty loop */
	EXPECT_FALSE(cb_net_resolvable(3.8, 2.6, 0));	/* 1.2 < half the loop */
	EXPECT_TRUE(cb_net_resolvable(4.0, 2.6, 0));	/* 1.4: over half the loop */
	EXPECT_FALSE(cb_net_resolvable(10, 2.6, 2));	/* 7.4 < 4 x jitter */
	EXPECT_TRUE(cb_net_resolvable(10, 2.6, 1));
	EXPECT_FALSE(cb_net_resolvable(NAN, 2.6, 0));
	EXPECT_FALSE(cb_net_resolvable(INFINITY, 2.6, 0));
}

/*
 * A line's time per call: call_min (call_median) as timed, or, in a line
 * made before it, the net figure plus the baseline; its latency, NAN when
 * the line has none.
 */
TEST(figures_of_a_line)
{
	struct cb_record_point p = { 0 };

	p.cycles_min = 3;
	p.cycles_median = 4;
	p.baseline_cycles = 2.5;
	EXPECT_TRUE(NEAR(cb_point_call(&p, 0), 5.5));
	EXPECT_TRUE(NEAR(cb_point_call(&p, 1), 6.5));
	EXPECT_TRUE(isnan(cb_point_latency(&p, 0)));
	p.call_min = 2.4;
	p.call_median = 2.45;
	p.latency_min = 9.5;
	p.latency_median = 9.75;
	CB_POINT_SET(&p, call_min);
	CB_POINT_SET(&p, call_median);
	CB_POINT_SET(&p, latency_min);
	CB_POINT_SET(&p, latency_median);
	EXPECT_TRUE(NEAR(cb_point_call(&p, 0), 2.4));
	EXPECT_TRUE(NEAR(cb_point_call(&p, 1), 2.45));
	EXPECT_TRUE(NEAR(cb_point_latency(&p, 0), 9.5));
	EXPECT_TRUE(NEAR(cb_point_latency(&p, 1), 9.75));
}

TEST_HARNESS_MAIN
