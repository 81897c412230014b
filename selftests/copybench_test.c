// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_test.c - tests of copybench.ko's interface through its debugfs
 * files: the knobs and last_error, the variant list, timed runs in every
 * direction, the data file (read, write, readv, preadv2, io_uring, faults,
 * truncation) and the module's lifetime. copybench_limits_test.c tests the
 * bounds (time, signals, CPUs, memory, mappings).
 *
 * Needs root, debugfs at /sys/kernel/debug and copybench.ko loaded; every
 * test SKIPs with the reason otherwise, and under kernel lockdown. The
 * lifetime tests unload and load the module, and need its path:
 *
 *	COPYBENCH_KO=build/ko/$(uname -r)/copybench.ko ./copybench_test
 *
 * They leave it loaded. Runs use few samples and loops: timings under
 * emulation mean nothing, what is checked is behaviour (results well
 * formed, every byte verified, exact counts, errors and their sentences).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define CB_STR(x)	#x

/* The fixed variants, in list order, as copy_variants_list.h has them. */
static const char * const cb_list_names[] = {
#define CB_VARIANT(name, needs, desc)	CB_STR(name),
#include "copy_variants_list.h"
#undef CB_VARIANT
};

/*
 * Every fixture: SKIP without the module, else save the knobs, which the
 * teardown writes back. Returns whether the test can go on.
 */
static bool cb_fixture_setup(struct __test_metadata *_metadata, struct cb_saved *saved)
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
static void cb_expect_refusal(struct __test_metadata *_metadata, const char *file,
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

/*
 * A run refused with err (errname in last_error, which says rule); the
 * previous results stay.
 */
static void cb_expect_run_refused(struct __test_metadata *_metadata, int err,
				  const char *errname, const char *rule)
{
	char before[8192], after[8192];

	cb_read("results", before, sizeof(before));
	ASSERT_EQ(0, cb_buffer_ready());
	EXPECT_EQ(-err, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	cb_expect_refusal(_metadata, "run", errname, NULL, rule);
	cb_read("results", after, sizeof(after));
	EXPECT_STREQ(before, after);
}

/* A run refused with EINVAL and rule in last_error, the process's buffers as they are. */
static void cb_expect_run_einval(struct __test_metadata *_metadata, const char *rule)
{
	EXPECT_EQ(-EINVAL, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	cb_expect_refusal(_metadata, "run", "EINVAL", NULL, rule);
}

/* The value as the module quotes it: stripped of surrounding white space. */
static const char *cb_stripped(const char *in, char *buf, size_t len)
{
	size_t n;

	while (*in == ' ' || *in == '\n' || *in == '\t')
		in++;
	snprintf(buf, len, "%s", in);
	n = strlen(buf);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\n' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return strchr(buf, '\n') ? NULL : buf;
}

/* ---------------------------------------------------------------------- */
/* Knobs */

FIXTURE(knob) {
	struct cb_saved saved;
};
FIXTURE_SETUP(knob)
{
	cb_fixture_setup(_metadata, &self->saved);
}

FIXTURE_TEARDOWN(knob)
{
	cb_restore(&self->saved);
}

/*
 * One knob: values it must accept, each with what reading it back gives
 * (NULL: the value itself without white space), and values it must reject
 * with err, leaving the old value.
 */
struct cb_good { const char *in, *out; };
struct cb_bad { const char *in; int err; };

FIXTURE_VARIANT(knob) {
	const char *name;
	bool numeric;		/* also refuses cb_bad_numbers */
	struct cb_good good[12];
	struct cb_bad bad[16];
};

/* Refused by every numeric knob. */
static const char * const cb_bad_numbers[] = {
	"", "abc", "12x", "1 2", "0x10", "1.5", "+", "99999999999999999999999", "--1", "1\n2",
	"+5", "+0", " +1",
};

FIXTURE_VARIANT_ADD(knob, size) {
	.name = "size",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "4096" }, { "67108864" }, { "4097\n", "4097" },
		  { " 12 ", "12" }, { "010", "10" } },
	.bad = { { "67108865", EINVAL }, { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, src_offset) {
	.name = "src_offset",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "4095" }, { "63\n", "63" } },
	.bad = { { "4096", EINVAL }, { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, dst_offset) {
	.name = "dst_offset",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "4095" }, { "7\n", "7" } },
	.bad = { { "4096", EINVAL }, { "-2", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, loops) {
	.name = "loops",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "1000000" }, { "17\n", "17" } },
	.bad = { { "1000001", EINVAL }, { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, samples) {
	.name = "samples",
	.numeric = true,
	.good = { { "1" }, { "100000" }, { "101\n", "101" } },
	.bad = { { "0", EINVAL }, { "100001", EINVAL },
		 { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, max_run_ms) {
	.name = "max_run_ms",
	.numeric = true,
	.good = { { "1" }, { "600000" }, { "10000\n", "10000" } },
	.bad = { { "0", EINVAL }, { "600001", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, data_chunk) {
	.name = "data_chunk",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "4096" }, { "2097152" }, { "65536\n", "65536" } },
	.bad = { { "2097153", EINVAL }, { "1073741824", EINVAL }, { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, baseline) {
	.name = "baseline",
	.numeric = true,
	.good = { { "0" }, { "1" }, { "1\n", "1" } },
	.bad = { { "2", EINVAL }, { "y", EINVAL }, { "on", EINVAL },
		 { "-1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, cpu) {
	.name = "cpu",
	.numeric = true,
	.good = { { "-1" }, { "0" }, { "0\n", "0" } },
	.bad = { { "-2", EINVAL }, { "4096", EINVAL },
		 { "2147483648", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, direction) {
	.name = "direction",
	.good = { { "memcpy" }, { "to_user" }, { "from_user" }, { "to_iter" }, { "from_iter" },
		  { "memcpy\n", "memcpy" } },
	.bad = { { "", EINVAL }, { "to-user", EINVAL }, { "TO_USER", EINVAL },
		 { "to_user x", EINVAL }, { "to_userx", EINVAL }, { "1", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, cache) {
	.name = "cache",
	.good = { { "hot" }, { "cold" }, { "hot\n", "hot" } },
	.bad = { { "", EINVAL }, { "warm", EINVAL }, { "Hot", EINVAL }, { "hot cold", EINVAL },
		 { "0", EINVAL } },
};

FIXTURE_VARIANT_ADD(knob, variant) {
	.name = "variant",
	.good = { { "native" }, { "bytes" }, { "native\n", "native" } },
	.bad = { { "", EINVAL }, { "nope", EINVAL }, { "Native", EINVAL },
		 { "native x", EINVAL }, { "bytes2", EINVAL } },
};

/*
 * Each documented value is taken and reads back; each bad one is refused,
 * the value kept, and last_error says which file, the errno, the value and
 * what is accepted.
 */
TEST_F(knob, accepts_its_range_and_rejects_bad_input_unchanged)
{
	char before[128], strip[128];
	const char *errname;
	int i, ret;

	for (i = 0; i < 12 && variant->good[i].in; i++) {
		const char *want = variant->good[i].out ?: variant->good[i].in;

		ret = cb_write(variant->name, variant->good[i].in);
		ASSERT_EQ(0, ret) TH_LOG("%s: writing \"%s\" failed: %s", variant->name,
					 variant->good[i].in, strerror(-ret));
		ASSERT_STREQ(want, cb_value(variant->name));
	}
	snprintf(before, sizeof(before), "%s", cb_value(variant->name));
	for (i = 0; i < 16 && variant->bad[i].in; i++) {
		ret = cb_write(variant->name, variant->bad[i].in);
		EXPECT_EQ(-variant->bad[i].err, ret)
			TH_LOG("%s: writing \"%s\" gave %d, want -%d", variant->name,
			       variant->bad[i].in, ret, variant->bad[i].err);
		EXPECT_STREQ(before, cb_value(variant->name));
		errname = variant->bad[i].err == EOPNOTSUPP ? "EOPNOTSUPP" : "EINVAL";
		cb_expect_refusal(_metadata, variant->name, errname,
				  cb_stripped(variant->bad[i].in, strip, sizeof(strip)),
				  variant->bad[i].err == EOPNOTSUPP ? "usable" : "accepted");
	}
	for (i = 0; variant->numeric && i < (int)ARRAY_SIZE(cb_bad_numbers); i++) {
		ret = cb_write(variant->name, cb_bad_numbers[i]);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("%s: writing \"%s\" gave %d", variant->name,
					      cb_bad_numbers[i], ret);
		EXPECT_STREQ(before, cb_value(variant->name));
		cb_expect_refusal(_metadata, variant->name, "EINVAL",
				  cb_stripped(cb_bad_numbers[i], strip, sizeof(strip)), "accepted");
	}
	/* An empty write is as bad as garbage. */
	ret = cb_write(variant->name, "");
	EXPECT_EQ(-EINVAL, ret);
	cb_expect_refusal(_metadata, variant->name, "EINVAL", "", "accepted");
}

/* The interface as a whole: files, modes, verbs, the variant list. */
FIXTURE(iface) {
	struct cb_saved saved;
};
FIXTURE_SETUP(iface)
{
	cb_fixture_setup(_metadata, &self->saved);
}

FIXTURE_TEARDOWN(iface)
{
	cb_restore(&self->saved);
}

/*
 * Every file of copybench.h's CB_FILE list exists with the mode the list
 * gives, root-only; the module has no other file.
 */
TEST_F(iface, files_follow_the_list_and_are_root_only)
{
	char path[256], buf[4096], *line, *save = NULL;
	struct stat st;
	int i, n = 0;

	for (i = 0; i < CB_NFILES; i++) {
		snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", cb_files[i].name);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_EQ(cb_files[i].mode, st.st_mode & 0777)
			TH_LOG("%s mode %o, want %o", path, st.st_mode & 0777, cb_files[i].mode);
		EXPECT_EQ(0U, st.st_uid);
	}
	/* ls of the directory: exactly the listed files. */
	{
		FILE *ls = popen("ls -1 " CB_DEBUGFS_DIR, "r");

		ASSERT_NE(NULL, ls);
		buf[fread(buf, 1, sizeof(buf) - 1, ls)] = '\0';
		pclose(ls);
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		for (i = 0; i < CB_NFILES && strcmp(cb_files[i].name, line); i++)
			;
		EXPECT_LT(i, CB_NFILES) TH_LOG("file %s is not in copybench.h's list", line);
	}
	EXPECT_EQ(CB_NFILES, n);
}

/* last_error: read-only, one line ending in a newline, no longer than the limit. */
TEST_F(iface, last_error_is_one_read_only_line)
{
	char buf[CB_LAST_ERROR_MAX * 2];
	ssize_t n;

	EXPECT_EQ(-EINVAL, cb_write("size", "x"));
	n = cb_read("last_error", buf, sizeof(buf));
	ASSERT_LT(0, n);
	EXPECT_GE(CB_LAST_ERROR_MAX - 1, n);
	EXPECT_EQ('\n', buf[n - 1]);
	EXPECT_EQ(NULL, memchr(buf, '\n', n - 1));
	EXPECT_NE(NULL, strstr(buf, "(pid ")) TH_LOG("%s", buf);
	EXPECT_EQ(-EINVAL, cb_write("last_error", "x"));
}

/*
 * Whatever bytes a refused value holds, last_error stays one line of
 * printable ASCII: quotes, backslashes, control and non-ASCII bytes come
 * back escaped.
 */
TEST_F(iface, last_error_quotes_any_value_in_ascii)
{
	const char *line, *p;

	EXPECT_EQ(-EINVAL, cb_write("size", "1\xff\xa0\"q\\\t\x01"));
	line = cb_last_error();
	EXPECT_NE(NULL, strstr(line, "\"1\\xff\\xa0\\\"q\\\\")) TH_LOG("%s", line);
	for (p = line; *p; p++)
		EXPECT_TRUE(*p >= 0x20 && *p < 0x7f) TH_LOG("byte 0x%02x at %zd", *p & 0xff,
							    p - line);
}

/* A value longer than any valid one is refused, not truncated. */
TEST_F(iface, overlong_write_is_rejected)
{
	char big[200];

	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-EINVAL, cb_write("size", big));
	EXPECT_STREQ(self->saved.val[CBF_size], cb_value("size"));
	cb_expect_refusal(_metadata, "size", "EINVAL", NULL, "longer than any value");
}

/* data_size takes 4 KiB..1 GiB; bad input keeps the old size and content. */
TEST_F(iface, data_size_range_is_checked)
{
	static const char * const bad[] = { "", "4095", "1073741825", "abc", "8k", "-4096",
					     "0x1000", "4096 1", "+8192" };
	char before[128];
	size_t i;

	ASSERT_EQ(0, cb_write("data_size", "4096"));
	ASSERT_STREQ("4096", cb_value("data_size"));
	ASSERT_EQ(0, cb_write("data_size", "12345\n"));
	ASSERT_STREQ("12345", cb_value("data_size"));
	snprintf(before, sizeof(before), "%s", cb_value("data_size"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cb_write("data_size", bad[i])) TH_LOG("\"%s\"", bad[i]);
		EXPECT_STREQ(before, cb_value("data_size"));
		cb_expect_refusal(_metadata, "data_size", "EINVAL", bad[i], "accepted");
	}
}

/* "run" takes exactly "1". */
TEST_F(iface, run_rejects_anything_but_one)
{
	static const char * const bad[] = { "", "0", "2", "1x", "yes", "-1", "01 1", "+1", NULL };
	const char * const *p;

	for (p = bad; *p; p++) {
		EXPECT_EQ(-EINVAL, cb_write("run", *p)) TH_LOG("bad input #%d", (int)(p - bad));
		cb_expect_refusal(_metadata, "run", "EINVAL", *p, "write 1");
	}
}

/* An offline or impossible CPU is refused. */
TEST_F(iface, cpu_must_be_online)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char s[32];

	snprintf(s, sizeof(s), "%ld", n);
	EXPECT_EQ(-EINVAL, cb_write("cpu", s));
	cb_expect_refusal(_metadata, "cpu", "EINVAL", s, "online CPU");
	snprintf(s, sizeof(s), "%ld", n - 1);
	EXPECT_EQ(0, cb_write("cpu", s));
}

/*
 * The variants file: "NAME usable|unusable DIRS DESCRIPTION" per line,
 * native first with every direction of the list in list order, then the
 * variants of copy_variants_list.h in order, each with memcpy, to_user and
 * from_user.
 */
TEST_F(iface, variants_file_lists_names_states_directions_in_list_order)
{
	char buf[4096], *line, *save = NULL, all[128] = "";
	size_t i = 0, d;

	for (d = 0; d < CB_NDIRECTIONS; d++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", d ? "," : "",
			 cb_directions[d]);
	ASSERT_LT(0, cb_read("variants", buf, sizeof(buf)));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char name[CB_NAME_LEN], state[16], dirs[128];
		const char *want;
		int desc = 0, fields;

		fields = sscanf(line, "%31s %15s %127s %n", name, state, dirs, &desc);
		ASSERT_EQ(3, fields) TH_LOG("%s", line);
		EXPECT_TRUE(!strcmp(state, "usable") || !strcmp(state, "unusable"));
		EXPECT_LT(0, (int)strlen(line + desc)) TH_LOG("no description: %s", line);
		want = i == 0 ? CB_NATIVE_NAME :
		       i - 1 < ARRAY_SIZE(cb_list_names) ? cb_list_names[i - 1] : "(none)";
		EXPECT_STREQ(want, name);
		EXPECT_STREQ(i == 0 ? all : "memcpy,to_user,from_user", dirs) TH_LOG("%s", line);
	}
	EXPECT_EQ(1 + ARRAY_SIZE(cb_list_names), i);
}

/* ---------------------------------------------------------------------- */
/* Runs */

FIXTURE(run) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][CB_NAME_LEN];
	int nvariants;
};

FIXTURE_VARIANT(run) {
	const char *direction;
	const char *cache;
};

FIXTURE_VARIANT_ADD(run, memcpy_hot) { .direction = "memcpy", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, memcpy_cold) { .direction = "memcpy", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, to_user_hot) { .direction = "to_user", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, to_user_cold) { .direction = "to_user", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, from_user_hot) { .direction = "from_user", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, from_user_cold) { .direction = "from_user", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, to_iter_hot) { .direction = "to_iter", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, to_iter_cold) { .direction = "to_iter", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, from_iter_hot) { .direction = "from_iter", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, from_iter_cold) { .direction = "from_iter", .cache = "cold" };

FIXTURE_SETUP(run)
{
	if (!cb_fixture_setup(_metadata, &self->saved))
		return;
	self->nvariants = cb_usable_variants(self->variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->nvariants);
	ASSERT_EQ(0, cb_write("direction", variant->direction));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(run)
{
	cb_restore(&self->saved);
}

/* Checks a finished run's results against the knobs that made it. */
static void cb_check_run(struct __test_metadata *_metadata, const char *vname,
			 const char *direction, const char *cache, unsigned long long size,
			 unsigned int soff, unsigned int doff, unsigned int loops,
			 unsigned int samples)
{
	char why[256];
	const char *err;
	struct cb_res r;

	err = cb_parse_results(&r, why, sizeof(why));
	ASSERT_EQ(NULL, err) TH_LOG("%s %s %s size %llu: %s", vname, direction, cache, size, err);
	EXPECT_STREQ(vname, cb_res_get(&r, "variant"));
	EXPECT_STREQ(direction, cb_res_get(&r, "direction"));
	EXPECT_STREQ(cache, cb_res_get(&r, "cache"));
	EXPECT_EQ(size, cb_res_u(&r, "size"));
	EXPECT_EQ(soff, cb_res_u(&r, "src_offset"));
	EXPECT_EQ(doff, cb_res_u(&r, "dst_offset"));
	if (loops)
		EXPECT_EQ(loops, cb_res_u(&r, "loops"));
	EXPECT_LE(1ULL, cb_res_u(&r, "loops"));
	EXPECT_EQ(samples, cb_res_u(&r, "samples"));
	EXPECT_STREQ("0", cb_res_get(&r, "truncated"));
	EXPECT_STREQ("1", cb_res_get(&r, "verified"))
		TH_LOG("%s %s %s size %llu offsets %u/%u: copy not verified (see dmesg)",
		       vname, direction, cache, size, soff, doff);
	EXPECT_LE(cb_res_c100(&r, "cycles_min"), cb_res_c100(&r, "cycles_median"));
	EXPECT_LE(cb_res_c100(&r, "cycles_median"), cb_res_c100(&r, "cycles_max"));
	EXPECT_LE(cb_res_c100(&r, "cycles_min"), cb_res_c100(&r, "cycles_mean"));
	EXPECT_LT(0ULL, cb_res_u(&r, "tsc_khz"));
}

/*
 * Every usable variant that has this direction (the variants file says),
 * in this cache mode, at a few sizes and offsets: verified results.
 */
TEST_F_TIMEOUT(run, every_variant_gives_verified_results, 600)
{
	static const struct { unsigned long long size; unsigned int soff, doff; } shapes[] = {
		{ 0, 0, 0 }, { 1, 3, 0 }, { 63, 1, 7 }, { 4096, 0, 0 }, { 5000, 4095, 1 },
	};
	int v;
	size_t s;

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	for (v = 0; v < self->nvariants; v++) {
		if (!cb_variant_has_dir(self->variants[v], variant->direction))
			continue;
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		for (s = 0; s < ARRAY_SIZE(shapes); s++) {
			int ret;

			ASSERT_EQ(0, cb_writeu("size", shapes[s].size));
			ASSERT_EQ(0, cb_writeu("src_offset", shapes[s].soff));
			ASSERT_EQ(0, cb_writeu("dst_offset", shapes[s].doff));
			ret = cb_do_run();
			ASSERT_EQ(0, ret) TH_LOG("%s %s size %llu: run failed: %s",
						 self->variants[v], variant->direction,
						 shapes[s].size, strerror(-ret));
			cb_check_run(_metadata, self->variants[v], variant->direction,
				     variant->cache, shapes[s].size, shapes[s].soff,
				     shapes[s].doff, 2, 3);
		}
	}
}

/*
 * A variant without this direction refuses the run with EOPNOTSUPP, saying
 * which directions it has; the previous results stay.
 */
TEST_F(run, a_variant_without_the_direction_refuses_the_run)
{
	char rule[160];
	int v, refused = 0;

	ASSERT_EQ(0, cb_write("samples", "1"));
	for (v = 0; v < self->nvariants; v++) {
		if (cb_variant_has_dir(self->variants[v], variant->direction))
			continue;
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		snprintf(rule, sizeof(rule), "variant %s has no direction %s", self->variants[v],
			 variant->direction);
		cb_expect_run_refused(_metadata, EOPNOTSUPP, "EOPNOTSUPP", rule);
		refused++;
	}
	/* The fixed variants lack exactly the iter directions. */
	EXPECT_EQ(strstr(variant->direction, "iter") ? self->nvariants - 1 : 0, refused);
}

/* The buffer file: the user side of a run, which the writer maps itself. */
FIXTURE(buffer) {
	struct cb_saved saved;
};

FIXTURE_SETUP(buffer)
{
	if (cb_fixture_setup(_metadata, &self->saved))
		ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(buffer)
{
	cb_restore(&self->saved);
}

/* mmap() of the buffer file with prot and flags at offset off: the mapping, or NULL. */
static void *cb_map_buffer(size_t len, int prot, int flags, off_t off)
{
	int fd = open(CB_PATH("buffer"), O_RDWR), err;
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, len, prot, flags, fd, off);
	err = errno;
	close(fd);
	errno = err;
	return p == MAP_FAILED ? NULL : p;
}

/*
 * The buffer file maps MAP_SHARED from offset 0, at most CB_BUFFER_MAX
 * bytes, never executable, as new zeroed pages; anything else is refused
 * with EINVAL (or the VFS's EPERM for PROT_EXEC on a noexec mount) and a
 * sentence in last_error. It has no read() nor write().
 */
TEST_F(buffer, mmap_is_shared_from_offset_0_within_the_limit_and_zeroed)
{
	size_t len = 64 << 10, i;
	unsigned char *p;
	char c;
	int fd;

	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "a private mapping is refused");
	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_SHARED, 4096));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "from offset 4096");
	EXPECT_EQ(NULL, cb_map_buffer(CB_BUFFER_MAX + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "is refused: at most");
	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_EXEC, MAP_SHARED, 0));
	EXPECT_TRUE(errno == EINVAL || errno == EPERM) TH_LOG("PROT_EXEC: %s", strerror(errno));

	p = cb_map_buffer(CB_BUFFER_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, p) TH_LOG("%s", strerror(errno));
	for (i = 0; i < CB_BUFFER_MAX && !p[i]; i += 4093)
		;
	EXPECT_LE(CB_BUFFER_MAX, i) TH_LOG("byte %zu of a new buffer is 0x%02x", i, p[i]);
	memset(p, 0xa5, len);
	EXPECT_EQ(0xa5, p[len - 1]);
	EXPECT_EQ(0, munmap(p, CB_BUFFER_MAX));

	fd = open(CB_PATH("buffer"), O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &c, 1));
	EXPECT_EQ(-1, write(fd, &c, 1));
	close(fd);
}

/*
 * A run of a user direction uses the writer's one buffer: none, two, one
 * smaller than size plus offset, or a read-only one for a destination are
 * refused with EINVAL, and last_error says what to map; a read-only one
 * serves as a source.
 */
TEST_F(buffer, a_run_needs_one_buffer_big_enough_with_the_access_it_needs)
{
	unsigned char *a, *b;

	ASSERT_EQ(0, cb_write("direction", "to_user"));
	ASSERT_EQ(0, cb_write("size", "8192"));
	ASSERT_EQ(0, cb_write("dst_offset", "1"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	cb_expect_run_einval(_metadata,
			     "copies to the writer's own memory: map 12288 bytes of /sys/kernel/debug/copybench/buffer first");
	a = cb_map_buffer(8192, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, a);
	cb_expect_run_einval(_metadata, "holds 8192 bytes, and this run needs 12288");
	ASSERT_EQ(0, munmap(a, 8192));
	a = cb_map_buffer(12288, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(NULL, a);
	cb_expect_run_einval(_metadata, "mapped without PROT_WRITE, which direction to_user needs");
	ASSERT_EQ(0, cb_write("direction", "from_user"));
	ASSERT_EQ(0, cb_write("src_offset", "1"));
	EXPECT_EQ(0, cb_write("run", "1")) TH_LOG("from a read-only buffer: %s", cb_last_error());
	b = cb_map_buffer(12288, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, b);
	cb_expect_run_einval(_metadata, "maps 2 buffers");
	ASSERT_EQ(0, munmap(a, 12288));
	ASSERT_EQ(0, cb_write("direction", "to_user"));
	EXPECT_EQ(0, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	EXPECT_EQ(0, munmap(b, 12288));
}

/*
 * A buffer is one mapping, unmapped whole: munmap(), mprotect() and
 * madvise() of a part of it, and mremap() (to grow, shrink or move it),
 * fail, and it stays as it was.
 */
TEST_F(buffer, a_buffer_is_never_split_nor_moved)
{
	size_t pg = sysconf(_SC_PAGESIZE), len = 4 * pg;
	unsigned char *p, *q;

	p = cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, p);
	memset(p, 0x3c, len);
	EXPECT_EQ(-1, munmap(p + pg, pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(p, pg, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, 2 * len, MREMAP_MAYMOVE));
	EXPECT_EQ(MAP_FAILED, mremap(p, len, pg, 0));
	q = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q));
	munmap(q, len);
	EXPECT_EQ(0x3c, p[len - 1]);
	EXPECT_EQ(0, msync(p, len, MS_SYNC));
	EXPECT_EQ(0, munmap(p, len));
}

/* Runs whose behaviour does not depend on direction and cache mode. */
FIXTURE(runctl) {
	struct cb_saved saved;
};

FIXTURE_SETUP(runctl)
{
	if (cb_fixture_setup(_metadata, &self->saved))
		ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(runctl)
{
	cb_restore(&self->saved);
}

/*
 * tsc_khz: read-only, one positive decimal and a newline, the value a
 * run's results give (the module backend of copybench records it).
 */
TEST_F_TIMEOUT(runctl, tsc_khz_is_what_runs_time_with, 300)
{
	char buf[64], *end;
	unsigned long long khz;
	struct cb_res r;
	char why[256];
	ssize_t n;

	n = cb_read("tsc_khz", buf, sizeof(buf) - 1);
	ASSERT_LT(1, n);
	buf[n] = '\0';
	EXPECT_EQ('\n', buf[n - 1]);
	errno = 0;
	khz = strtoull(buf, &end, 10);
	EXPECT_EQ(0, errno);
	EXPECT_EQ('\n', *end) TH_LOG("tsc_khz reads \"%s\"", buf);
	EXPECT_LT(0ULL, khz);
	EXPECT_EQ(-EINVAL, cb_write("tsc_khz", "1"));
	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("size", "256"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(khz, cb_res_u(&r, "tsc_khz"));
}

/* loops=0 picks a power of two by itself; results stay well formed. */
TEST_F_TIMEOUT(runctl, automatic_loops_picks_a_power_of_two, 300)
{
	struct cb_res r;
	char why[256];
	unsigned long long loops;

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "0"));
	ASSERT_EQ(0, cb_write("size", "256"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	loops = cb_res_u(&r, "loops");
	EXPECT_LE(1ULL, loops);
	EXPECT_EQ(0ULL, loops & (loops - 1)) TH_LOG("loops %llu", loops);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/*
 * A run happens on its writer's CPU and never changes the writer's
 * affinity: pinned to each CPU in turn, with cpu set to it, the run is
 * there and the affinity stays what it was. A writer on another CPU than
 * the cpu knob's is refused with EINVAL and told to pin itself.
 */
TEST_F(runctl, runs_on_the_chosen_cpu_and_leaves_affinity_alone)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t before, after;
	struct cb_res r;
	char why[256], s[32];
	long cpu;

	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	for (cpu = 0; cpu < ncpu; cpu++) {
		CPU_ZERO(&before);
		CPU_SET(cpu, &before);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
		snprintf(s, sizeof(s), "%ld", cpu);
		ASSERT_EQ(0, cb_write("cpu", s));
		ASSERT_EQ(0, cb_do_run()) TH_LOG("%s", cb_last_error());
		ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
		EXPECT_EQ(cpu, (long)cb_res_u(&r, "run_cpu"));
		EXPECT_STREQ(s, cb_res_get(&r, "cpu"));
		ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
		EXPECT_TRUE(CPU_EQUAL(&before, &after));
	}
	if (ncpu < 2)
		return;
	ASSERT_EQ(0, cb_write("direction", "memcpy"));
	ASSERT_EQ(0, cb_write("cpu", "1"));
	CPU_ZERO(&before);
	CPU_SET(0, &before);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
	cb_expect_run_refused(_metadata, EINVAL, "EINVAL",
			      "cpu 1 is not among the writer's allowed CPUs 0");
}

/* baseline=1 subtracts the empty loop: net median is raw median minus baseline. */
TEST_F(runctl, baseline_switch_changes_only_the_subtraction)
{
	struct cb_res r;
	char why[256];

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	ASSERT_EQ(0, cb_write("baseline", "0"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("0", cb_res_get(&r, "baseline"));
	/* Without subtraction a copy cannot be cheaper than the empty loop's floor. */
	EXPECT_LT(0ULL, cb_res_c100(&r, "cycles_min"));
	EXPECT_LT(0ULL, cb_res_c100(&r, "baseline_cycles"));
	ASSERT_EQ(0, cb_write("baseline", "1"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "baseline"));
}

/* max_run_ms ends a long run early with truncated 1 and the samples taken. */
TEST_F_TIMEOUT(runctl, max_run_ms_truncates_a_long_run, 300)
{
	struct cb_res r;
	char why[256];

	ASSERT_EQ(0, cb_write("samples", "100000"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	ASSERT_EQ(0, cb_write("max_run_ms", "300"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "truncated"));
	EXPECT_LE(1ULL, cb_res_u(&r, "samples"));
	EXPECT_GT(100000ULL, cb_res_u(&r, "samples"));
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/*
 * A max_run_ms too short for one timed sample ends the run with ETIME, and
 * last_error says so and what to change; the previous results stay.
 */
TEST_F_TIMEOUT(runctl, max_run_ms_before_any_sample_is_etime, 300)
{
	ASSERT_EQ(0, cb_write("size", "16777216"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("max_run_ms", "1"));
	cb_expect_run_refused(_metadata, ETIME, "ETIME", "raise max_run_ms");
}

/*
 * A sample that would keep preemption off too long is refused with E2BIG;
 * last_error gives the loops that would fit. On a host that stops the
 * guest for a second while it times one 4 MiB copy (seen under a load of
 * 12), that copy alone is over the bound: the refusal then says to lower
 * size, which is as right.
 */
TEST_F_TIMEOUT(runctl, oversized_sample_is_refused, 300)
{
	const char *err;

	ASSERT_EQ(0, cb_write("size", "4194304"));
	ASSERT_EQ(0, cb_write("loops", "1000000"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	cb_expect_run_refused(_metadata, E2BIG, "E2BIG", "above the bound of");
	err = cb_last_error();
	EXPECT_TRUE(strstr(err, "set loops to at most") || strstr(err, "; lower size"))
		TH_LOG("last_error: %s", err);
}

/*
 * While a run is in progress every knob write and a second run get EBUSY,
 * values unchanged, last_error naming the run; data_size is not a knob of
 * the run and changes; a signal then ends the run with EINTR and the
 * previous results stay.
 */
TEST_F_TIMEOUT(runctl, writes_during_a_run_are_busy_and_a_signal_stops_it, 600)
{
	char results_before[8192], results_after[8192];
	char before[CB_NFILES][CB_VALUE_LEN];
	int status, ret, i;
	pid_t pid;

	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	ASSERT_EQ(0, cb_do_run());
	cb_read("results", results_before, sizeof(results_before));

	/* Long: each copy of 1 MiB from flushed buffers, up to 100000 of them. */
	ASSERT_EQ(0, cb_write("size", "1048576"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("samples", "100000"));
	for (i = 0; i < CB_NFILES; i++)
		if (cb_is_knob(i))
			snprintf(before[i], sizeof(before[i]), "%s", cb_value(cb_files[i].name));

	pid = cb_spawn_run(NULL, -1);
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, cb_wait_run_started(pid, 60, &status))
		TH_LOG("the run ended, or did not start, before it was seen in progress");

	for (i = 0; i < CB_NFILES; i++) {
		if (!cb_is_knob(i) || i == CBF_data_size)
			continue;
		EXPECT_EQ(-EBUSY, cb_write(cb_files[i].name, before[i]))
			TH_LOG("%s", cb_files[i].name);
		EXPECT_STREQ(before[i], cb_value(cb_files[i].name));
		cb_expect_refusal(_metadata, cb_files[i].name, "EBUSY", before[i], "in progress");
	}
	EXPECT_EQ(0, cb_write("data_size", "8192"));
	EXPECT_STREQ("8192", cb_value("data_size"));
	EXPECT_EQ(-EBUSY, cb_do_run());
	cb_expect_refusal(_metadata, "run", "EBUSY", NULL, "already in progress");
	/* Bad input during a run: EBUSY or EINVAL, value unchanged either way. */
	ret = cb_write("size", "garbage");
	EXPECT_TRUE(ret == -EBUSY || ret == -EINVAL);
	EXPECT_STREQ("1048576", cb_value("size"));

	ASSERT_EQ(0, kill(pid, SIGUSR1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EINTR, WEXITSTATUS(status)) TH_LOG("the run did not end with EINTR");
	cb_expect_refusal(_metadata, "run", "EINTR", NULL, "previous results stay");
	cb_read("results", results_after, sizeof(results_after));
	EXPECT_STREQ(results_before, results_after);
	/* And knobs are writable again. */
	EXPECT_EQ(0, cb_write("samples", "3"));
}

/* ---------------------------------------------------------------------- */
/* The data file */

FIXTURE(data) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][CB_NAME_LEN];
	int nvariants;
	size_t size;
};

/* A fresh content of a size that is not a page multiple. */
FIXTURE_SETUP(data)
{
	if (!cb_fixture_setup(_metadata, &self->saved))
		return;
	self->nvariants = cb_usable_variants(self->variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->nvariants);
	self->size = 3 * 65536 + 123;
	ASSERT_EQ(0, cb_writeu("data_size", self->size));
}

FIXTURE_TEARDOWN(data)
{
	cb_restore(&self->saved);
}

static int cb_open_data(const char *variant, unsigned long long chunk, int flags)
{
	if (variant && cb_write("variant", variant))
		return -1;
	if (cb_writeu("data_chunk", chunk))
		return -1;
	return open(CB_PATH("data"), flags);
}

/*
 * The data file at off, len bytes: the first written ones complemented (a
 * write landed there), the rest the initial content.
 */
static void cb_expect_written(struct __test_metadata *_metadata, int fd, unsigned long long off,
			      size_t len, size_t written, const char *variant, size_t dist)
{
	unsigned char back[16384], want;
	size_t i;

	ASSERT_GE(sizeof(back), len);
	ASSERT_EQ((ssize_t)len, pread(fd, back, len, off));
	for (i = 0; i < len; i++) {
		want = i < written ? (unsigned char)~cb_data_byte(off + i) : cb_data_byte(off + i);
		ASSERT_EQ(want, back[i])
			TH_LOG("%s: dist %zu: file byte %zu is 0x%02x, want 0x%02x", variant, dist,
			       i, back[i], want);
	}
}

#define CB_GUARD	64
#define CB_GUARD_BYTE	0xA5

/* Reads of odd sizes at odd positions into odd alignments, every variant and chunk: every byte right. */
TEST_F_TIMEOUT(data, reads_return_the_content_with_every_variant, 600)
{
	static const size_t lens[] = { 0, 1, 7, 63, 64, 65, 4095, 4096, 4097, 12293, 70001 };
	static const unsigned long long chunks[] = { 4096, 0, 1000 };
	static const size_t aligns[] = { 0, 1, 7, 63 };
	unsigned char *mem = malloc(70001 + 2 * CB_GUARD + 64);
	unsigned long long offs[] = { 0, 1, 4095, 4096, 65537, self->size - 3, self->size };
	int v;

	ASSERT_NE(NULL, mem);
	for (v = 0; v < self->nvariants; v++) {
		size_t c;

		for (c = 0; c < ARRAY_SIZE(chunks); c++) {
			int fd = cb_open_data(self->variants[v], chunks[c], O_RDONLY);
			size_t t;

			ASSERT_LE(0, fd) TH_LOG("open data: %s", strerror(errno));
			for (t = 0; t < ARRAY_SIZE(lens) * ARRAY_SIZE(offs) * ARRAY_SIZE(aligns); t++) {
				size_t l = t % ARRAY_SIZE(lens);
				size_t o = t / ARRAY_SIZE(lens) % ARRAY_SIZE(offs);
				size_t a = t / ARRAY_SIZE(lens) / ARRAY_SIZE(offs);
				unsigned char *buf = mem + CB_GUARD + aligns[a];
				size_t want = offs[o] >= self->size ? 0 :
					      lens[l] < self->size - offs[o] ? lens[l] :
					      self->size - offs[o];
				ssize_t got;
				long bad;
				size_t g;

				memset(mem, CB_GUARD_BYTE, 2 * CB_GUARD + aligns[a] + lens[l]);
				got = pread(fd, buf, lens[l], offs[o]);
				ASSERT_EQ((ssize_t)want, got)
					TH_LOG("%s chunk %llu: pread(%zu at %llu) = %zd (%s)",
					       self->variants[v], chunks[c], lens[l], offs[o], got,
					       got < 0 ? strerror(errno) : "short");
				bad = cb_first_bad(buf, want, offs[o]);
				ASSERT_EQ(-1, bad)
					TH_LOG("%s chunk %llu: pread(%zu at %llu, align %zu): byte %ld is 0x%02x, want 0x%02x",
					       self->variants[v], chunks[c], lens[l], offs[o],
					       aligns[a], bad, buf[bad], cb_data_byte(offs[o] + bad));
				for (g = 0; g < CB_GUARD + aligns[a]; g++)
					ASSERT_EQ(CB_GUARD_BYTE, mem[g]);
				for (g = 0; g < CB_GUARD; g++)
					ASSERT_EQ(CB_GUARD_BYTE, buf[lens[l] + g])
						TH_LOG("%s: byte %zu past the read written",
						       self->variants[v], g);
			}
			close(fd);
		}
	}
	free(mem);
}

/* read() walks the file like any other: sequential reads cover it once, then 0. */
TEST_F(data, sequential_reads_cover_the_file_then_return_zero)
{
	unsigned char *buf = malloc(self->size + 100);
	size_t got = 0;
	ssize_t n;
	int fd = cb_open_data(NULL, 4096, O_RDONLY);

	ASSERT_NE(NULL, buf);
	ASSERT_LE(0, fd);
	while ((n = read(fd, buf + got, 4999)) > 0)
		got += n;
	EXPECT_EQ(0, n);
	EXPECT_EQ(self->size, got);
	EXPECT_EQ(-1, cb_first_bad(buf, got, 0));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	EXPECT_EQ((off_t)self->size + 10, lseek(fd, 10, SEEK_END));
	EXPECT_EQ(0, read(fd, buf, 10));
	EXPECT_EQ(5, lseek(fd, 5, SEEK_SET));
	EXPECT_EQ(10, read(fd, buf, 10));
	EXPECT_EQ(-1, cb_first_bad(buf, 10, 5));
	EXPECT_EQ(-1, lseek(fd, -1, SEEK_SET));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	free(buf);
}

/* Writes with every variant land where they should and read back; nothing else changes. */
TEST_F_TIMEOUT(data, writes_read_back_with_every_variant, 600)
{
	static const size_t lens[] = { 1, 7, 64, 4095, 4097, 9000 };
	static const unsigned long long offs[] = { 0, 3, 4095, 8192 + 17 };
	unsigned char *src = malloc(9000 + 8), *back = malloc(self->size);
	int v;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, back);
	for (v = 0; v < self->nvariants; v++) {
		size_t t;

		for (t = 0; t < ARRAY_SIZE(lens) * ARRAY_SIZE(offs); t++) {
			size_t l = t % ARRAY_SIZE(lens), o = t / ARRAY_SIZE(lens);
			unsigned char *p = src + (l & 7);
			size_t i;
			int fd;

			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
			fd = cb_open_data(self->variants[v], 4096, O_RDWR);
			ASSERT_LE(0, fd);
			for (i = 0; i < lens[l]; i++)
				p[i] = (unsigned char)(i * 7 + v + 1) ^ 0x5c;
			ASSERT_EQ((ssize_t)lens[l], pwrite(fd, p, lens[l], offs[o]))
				TH_LOG("%s: pwrite(%zu at %llu): %s", self->variants[v], lens[l],
				       offs[o], strerror(errno));
			ASSERT_EQ((ssize_t)self->size, pread(fd, back, self->size, 0));
			for (i = 0; i < self->size; i++) {
				unsigned char want = i >= offs[o] && i < offs[o] + lens[l] ?
						     p[i - offs[o]] : cb_data_byte(i);

				ASSERT_EQ(want, back[i])
					TH_LOG("%s: after pwrite(%zu at %llu) byte %zu is 0x%02x, want 0x%02x",
					       self->variants[v], lens[l], offs[o], i, back[i], want);
			}
			close(fd);
		}
	}
	free(src);
	free(back);
}

/* Writes stop at the end: short across it, ENOSPC at or past it. */
TEST_F(data, writes_past_the_end_are_short_or_enospc)
{
	unsigned char buf[100] = { 1, 2, 3 };
	int fd = cb_open_data(NULL, 4096, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(10, pwrite(fd, buf, sizeof(buf), self->size - 10));
	EXPECT_EQ(-1, pwrite(fd, buf, sizeof(buf), self->size));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(-1, pwrite(fd, buf, sizeof(buf), self->size + 4096));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, pwrite(fd, buf, 0, self->size));
	close(fd);
}

/*
 * A read into (or a write from) a buffer whose next page is PROT_NONE
 * returns exactly the bytes before that page, or EFAULT when there are none;
 * the file and memory beyond are untouched.
 */
TEST_F_TIMEOUT(data, read_and_write_across_a_prot_none_page_are_exact, 600)
{
	static const size_t dists[] = { 0, 1, 3, 8, 63, 64, 65, 4095, 4096, 8193 };
	long pg = sysconf(_SC_PAGESIZE);
	size_t maplen = 4 * pg;
	unsigned char *map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *hole = map + 3 * pg;
	int v;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(hole, pg, PROT_NONE));
	for (v = 0; v < self->nvariants; v++) {
		size_t d;

		for (d = 0; d < ARRAY_SIZE(dists); d++) {
			unsigned long long off = 1000 + d;
			size_t len = dists[d] + 100, i;
			ssize_t got;
			int fd;

			fd = cb_open_data(self->variants[v], 4096, O_RDWR);
			ASSERT_LE(0, fd);

			/* read */
			memset(map, 0, 3 * pg);
			got = pread(fd, hole - dists[d], len, off);
			if (dists[d] == 0) {
				EXPECT_EQ(-1, got);
				EXPECT_EQ(EFAULT, errno);
			} else {
				EXPECT_EQ((ssize_t)dists[d], got)
					TH_LOG("%s: read %zu bytes ending %zu into PROT_NONE: got %zd",
					       self->variants[v], len, len - dists[d], got);
				EXPECT_EQ(-1, cb_first_bad(hole - dists[d], dists[d], off));
			}

			/* write: the bytes before the hole land, the file past them stays */
			for (i = 0; i < dists[d]; i++)
				hole[-(long)dists[d] + i] = ~cb_data_byte(off + i);
			got = pwrite(fd, hole - dists[d], len, off);
			if (dists[d] == 0) {
				EXPECT_EQ(-1, got);
				EXPECT_EQ(EFAULT, errno);
			} else {
				EXPECT_EQ((ssize_t)dists[d], got)
					TH_LOG("%s: write %zu bytes from %zu before PROT_NONE: got %zd",
					       self->variants[v], len, dists[d], got);
			}
			cb_expect_written(_metadata, fd, off, len + 200, dists[d], self->variants[v],
					  dists[d]);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	munmap(map, maplen);
}

/* An open file keeps its buffer and variant: later knob writes affect later opens only. */
TEST_F(data, open_file_keeps_its_snapshot_across_knob_changes)
{
	unsigned char buf[256];
	struct stat st;
	int fd, fd2;

	fd = cb_open_data("native", 4096, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cb_write("data_size", "8192"));
	ASSERT_EQ(0, cb_write("variant", "bytes"));
	/* The old content, its old size, through the old fd. */
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	EXPECT_EQ((ssize_t)sizeof(buf), pread(fd, buf, sizeof(buf), self->size - sizeof(buf)));
	EXPECT_EQ(-1, cb_first_bad(buf, sizeof(buf), self->size - sizeof(buf)));
	/* A new open sees the new size; stat shows it too. */
	fd2 = open(CB_PATH("data"), O_RDONLY);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(8192, lseek(fd2, 0, SEEK_END));
	EXPECT_EQ(0, pread(fd2, buf, sizeof(buf), 8192));
	ASSERT_EQ(0, stat(CB_PATH("data"), &st));
	EXPECT_EQ(8192, st.st_size);
	close(fd2);
	close(fd);
}

struct cb_reader_arg {
	int fd;
	size_t size, step;
	long bad;	/* first bad position, -1 when all good; -2 on a read error */
};

static void *cb_reader(void *p)
{
	struct cb_reader_arg *a = p;
	unsigned char *buf = malloc(a->step);
	size_t pos;
	int round;

	a->bad = buf ? -1 : -2;
	for (round = 0; round < 4 && a->bad == -1; round++)
		for (pos = 0; pos < a->size && a->bad == -1; ) {
			ssize_t n = pread(a->fd, buf, a->step, pos);
			long b;

			if (n <= 0) {
				a->bad = -2;
				break;
			}
			b = cb_first_bad(buf, n, pos);
			if (b >= 0)
				a->bad = pos + b;
			pos += n;
		}
	free(buf);
	return NULL;
}

/* Several threads reading at once, on one fd and on their own, all get the content. */
TEST_F_TIMEOUT(data, concurrent_readers_get_the_content, 300)
{
	static const size_t steps[] = { 4096, 65536, 1000, 131072, 17, 4096 };
	struct cb_reader_arg args[6];
	pthread_t th[6];
	int shared = cb_open_data(NULL, 4096, O_RDONLY);
	size_t i;

	ASSERT_LE(0, shared);
	for (i = 0; i < 6; i++) {
		args[i].fd = i & 1 ? shared : open(CB_PATH("data"), O_RDONLY);
		ASSERT_LE(0, args[i].fd);
		args[i].size = self->size;
		args[i].step = steps[i];
		ASSERT_EQ(0, pthread_create(&th[i], NULL, cb_reader, &args[i]));
	}
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(-1, args[i].bad) TH_LOG("reader %zu (step %zu): bad at %ld", i,
						  args[i].step, args[i].bad);
		if (args[i].fd != shared)
			close(args[i].fd);
	}
	close(shared);
}

/*
 * A scattered read, its iovecs of odd lengths (empty ones too), every
 * variant, fills every byte right and nothing around; a scattered write of
 * the same shape reads back.
 */
TEST_F_TIMEOUT(data, readv_and_writev_with_every_variant, 600)
{
	static const size_t lens[] = { 7, 0, 4096, 1, 0, 65537, 3, 4095 };
	static const unsigned long long offs[] = { 0, 1, 4093, 65536 + 5 };
	size_t total = 0, i, k;
	unsigned char *mem, *p, *back;
	struct iovec iov[ARRAY_SIZE(lens)];
	int v, o;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		total += lens[i];
	mem = malloc(total + ARRAY_SIZE(lens) * (CB_GUARD + 1) + CB_GUARD);
	back = malloc(total);
	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, back);
	for (v = 0; v < self->nvariants; v++) {
		for (o = 0; o < (int)ARRAY_SIZE(offs); o++) {
			int fd = cb_open_data(self->variants[v], v & 1 ? 0 : 4096, O_RDWR);
			ssize_t got;

			ASSERT_LE(0, fd);
			memset(mem, CB_GUARD_BYTE, total + ARRAY_SIZE(lens) * (CB_GUARD + 1) +
			       CB_GUARD);
			for (i = 0, p = mem + CB_GUARD; i < ARRAY_SIZE(lens); i++) {
				iov[i].iov_base = p + (i & 1);
				iov[i].iov_len = lens[i];
				p += lens[i] + CB_GUARD + 1;
			}
			got = preadv(fd, iov, ARRAY_SIZE(iov), offs[o]);
			ASSERT_EQ((ssize_t)total, got)
				TH_LOG("%s: preadv at %llu: %zd (%s)", self->variants[v], offs[o],
				       got, got < 0 ? strerror(errno) : "short");
			for (i = 0, k = 0; i < ARRAY_SIZE(lens); k += lens[i++]) {
				unsigned char *b = iov[i].iov_base;

				ASSERT_EQ(-1, cb_first_bad(b, lens[i], offs[o] + k))
					TH_LOG("%s: iovec %zu at %llu", self->variants[v], i,
					       offs[o] + k);
				ASSERT_EQ(CB_GUARD_BYTE, b[lens[i]])
					TH_LOG("%s: byte past iovec %zu written", self->variants[v], i);
				ASSERT_EQ(CB_GUARD_BYTE, b[-1]);
			}
			/* The same shape written back, complemented, then read. */
			for (i = 0; i < ARRAY_SIZE(lens); i++)
				for (k = 0; k < lens[i]; k++)
					((unsigned char *)iov[i].iov_base)[k] ^= 0xff;
			ASSERT_EQ((ssize_t)total, pwritev(fd, iov, ARRAY_SIZE(iov), offs[o]));
			ASSERT_EQ((ssize_t)total, pread(fd, back, total, offs[o]));
			for (k = 0; k < total; k++)
				ASSERT_EQ((unsigned char)~cb_data_byte(offs[o] + k), back[k])
					TH_LOG("%s: pwritev at %llu, byte %zu", self->variants[v],
					       offs[o], k);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	free(back);
	free(mem);
}

/*
 * preadv2() at an offset leaves the position, at -1 reads from it and moves
 * it; RWF_NOWAIT is refused with EOPNOTSUPP, as on any file that cannot
 * promise not to block.
 */
TEST_F(data, preadv2_at_an_offset_and_at_the_file_position)
{
	unsigned char buf[3000];
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 1000 },
		{ .iov_base = buf + 1000, .iov_len = 2000 },
	};
	int fd = cb_open_data("bytes", 4096, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(100, lseek(fd, 100, SEEK_SET));
	EXPECT_EQ(3000, preadv2(fd, iov, 2, 70000, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, 3000, 70000));
	EXPECT_EQ(100, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ(3000, preadv2(fd, iov, 2, -1, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, 3000, 100));
	EXPECT_EQ(3100, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ(-1, preadv2(fd, iov, 2, 0, RWF_NOWAIT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
}

/*
 * io_uring reads and writes the data file with every variant: plain buffers
 * (a user iov_iter), registered buffers (a bvec iov_iter) and vectors.
 */
TEST_F_TIMEOUT(data, io_uring_reads_and_writes_with_every_variant, 600)
{
	const size_t len = 70001;
	unsigned char *buf = malloc(len), *fixed;
	struct iovec iov[2];
	struct cb_uring u;
	int v, fd, ret;
	size_t k;

	ASSERT_NE(NULL, buf);
	fixed = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fixed);
	ret = cb_uring_init(&u);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	ASSERT_EQ(0, cb_uring_register(&u, fixed, 2 * len));
	for (v = 0; v < self->nvariants; v++) {
		fd = cb_open_data(self->variants[v], 4096, O_RDWR);
		ASSERT_LE(0, fd);

		memset(buf, 0, len);
		ret = cb_uring_rw(&u, IORING_OP_READ, fd, buf, len, 3);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READ: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 3)) TH_LOG("%s: READ", self->variants[v]);

		memset(fixed, 0, 2 * len);
		ret = cb_uring_rw(&u, IORING_OP_READ_FIXED, fd, fixed + 17, len, 65536);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READ_FIXED: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(fixed + 17, len, 65536))
			TH_LOG("%s: READ_FIXED", self->variants[v]);

		iov[0] = (struct iovec){ .iov_base = buf, .iov_len = 5 };
		iov[1] = (struct iovec){ .iov_base = buf + 5, .iov_len = len - 5 };
		memset(buf, 0, len);
		ret = cb_uring_rw(&u, IORING_OP_READV, fd, iov, 2, 1000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READV: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 1000)) TH_LOG("%s: READV", self->variants[v]);

		for (k = 0; k < len; k++)
			fixed[k] = ~cb_data_byte(4000 + k);
		ret = cb_uring_rw(&u, IORING_OP_WRITE_FIXED, fd, fixed, len, 4000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: WRITE_FIXED: %d", self->variants[v], ret);
		for (k = 0; k < len; k++)
			buf[k] = cb_data_byte(4000 + k);
		ret = cb_uring_rw(&u, IORING_OP_WRITE, fd, buf, len, 4000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: WRITE: %d", self->variants[v], ret);
		ret = cb_uring_rw(&u, IORING_OP_READ, fd, buf, len, 4000);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 4000)) TH_LOG("%s: WRITE", self->variants[v]);
		close(fd);
	}
	cb_uring_exit(&u);
	munmap(fixed, 2 * len);
	free(buf);
}

/*
 * A readv whose second iovec runs into a PROT_NONE page returns exactly the
 * bytes before that page, every variant; a writev from such iovecs writes
 * exactly those.
 */
TEST_F_TIMEOUT(data, readv_and_writev_stop_exactly_at_a_prot_none_page, 600)
{
	static const size_t dists[] = { 0, 1, 7, 8, 63, 64, 65, 4095, 4096, 8193 };
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *hole = map + 3 * pg, head[100];
	int v;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(hole, pg, PROT_NONE));
	for (v = 0; v < self->nvariants; v++) {
		size_t d, i;

		for (d = 0; d < ARRAY_SIZE(dists); d++) {
			unsigned long long off = 1000 + d;
			size_t len = dists[d] + 100;
			struct iovec iov[2] = {
				{ .iov_base = head, .iov_len = sizeof(head) },
				{ .iov_base = hole - dists[d], .iov_len = len },
			};
			ssize_t got;
			int fd = cb_open_data(self->variants[v], d & 1 ? 0 : 4096, O_RDWR);

			ASSERT_LE(0, fd);
			got = preadv(fd, iov, 2, off);
			EXPECT_EQ((ssize_t)(sizeof(head) + dists[d]), got)
				TH_LOG("%s: readv ending %zu bytes into PROT_NONE: got %zd",
				       self->variants[v], len - dists[d], got);
			EXPECT_EQ(-1, cb_first_bad(head, sizeof(head), off));
			EXPECT_EQ(-1, cb_first_bad(hole - dists[d], dists[d], off + sizeof(head)));

			for (i = 0; i < sizeof(head); i++)
				head[i] = ~cb_data_byte(off + i);
			for (i = 0; i < dists[d]; i++)
				hole[-(long)dists[d] + i] = ~cb_data_byte(off + sizeof(head) + i);
			got = pwritev(fd, iov, 2, off);
			EXPECT_EQ((ssize_t)(sizeof(head) + dists[d]), got)
				TH_LOG("%s: writev from %zu bytes before PROT_NONE: got %zd",
				       self->variants[v], dists[d], got);
			cb_expect_written(_metadata, fd, off, len + 300, sizeof(head) + dists[d],
					  self->variants[v], dists[d]);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	munmap(map, 4 * pg);
}

/*
 * The data file's size is data_size's: a truncating open is refused with
 * EINVAL and a sentence in last_error; truncate() and ftruncate() change
 * only the inode's size, never the content, what a read returns or
 * SEEK_END, and every open gives the inode data_size's size again.
 */
TEST_F(data, truncation_never_changes_the_content_and_an_open_restores_the_size)
{
	unsigned char *buf = malloc(self->size + 1);
	struct stat st;
	int fd;

	ASSERT_NE(NULL, buf);
	fd = open(CB_PATH("data"), O_WRONLY | O_TRUNC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
	cb_expect_refusal(_metadata, "data", "EINVAL", NULL, "O_TRUNC");
	/* truncate() reaches only the inode's size; an open gives it back. */
	EXPECT_EQ(0, truncate(CB_PATH("data"), 10));
	fd = open(CB_PATH("data"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)self->size, st.st_size);
	EXPECT_EQ(0, ftruncate(fd, 0));
	EXPECT_EQ((ssize_t)self->size, pread(fd, buf, self->size + 1, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, self->size, 0));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	close(fd);
	fd = open(CB_PATH("data"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)self->size, st.st_size);
	close(fd);
	free(buf);
}

/* ---------------------------------------------------------------------- */
/* Lifetime: needs COPYBENCH_KO, the module file to load again. */

FIXTURE(lifetime) {
	struct cb_saved saved;
	const char *ko;
};

/*
 * Its own teardown: the module is loaded again when a test left it unloaded,
 * and the knobs of a new load are the defaults, so there is nothing to
 * restore.
 */
FIXTURE_SETUP(lifetime)
{
	if (!cb_fixture_setup(_metadata, &self->saved))
		return;
	self->ko = getenv("COPYBENCH_KO");
	if (!self->ko || !*self->ko)
		SKIP(return, "COPYBENCH_KO (path of copybench.ko) not set");
	if (access(self->ko, R_OK))
		SKIP(return, "COPYBENCH_KO=%s: %s", self->ko, strerror(errno));
}

FIXTURE_TEARDOWN(lifetime)
{
	if (access(CB_DEBUGFS_DIR, F_OK))
		cb_load(self->ko);
}

/* Unload and load again several times; the interface comes back each time, working. */
TEST_F_TIMEOUT(lifetime, load_and_unload_repeatedly, 300)
{
	unsigned char buf[4096];
	int i, fd, ret;

	for (i = 0; i < 5; i++) {
		ret = cb_unload();
		ASSERT_EQ(0, ret) TH_LOG("unload %d: %s", i, strerror(-ret));
		ASSERT_NE(0, access(CB_DEBUGFS_DIR, F_OK));
		ret = cb_load(self->ko);
		ASSERT_EQ(0, ret) TH_LOG("load %d: %s", i, strerror(-ret));
		ASSERT_STREQ(CB_NATIVE_NAME, cb_value("variant"));
		fd = open(CB_PATH("data"), O_RDONLY);
		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)sizeof(buf), pread(fd, buf, sizeof(buf), 12345));
		EXPECT_EQ(-1, cb_first_bad(buf, sizeof(buf), 12345));
		close(fd);
	}
}

/*
 * While "data" (or a knob) is open the module cannot go: unloading fails
 * with EBUSY/EAGAIN and the open file keeps working; after close it goes.
 */
TEST_F(lifetime, unload_while_data_is_open_waits_for_close)
{
	unsigned char buf[512];
	int fd, kfd, ret;

	fd = open(CB_PATH("data"), O_RDONLY);
	ASSERT_LE(0, fd);
	ret = cb_unload();
	EXPECT_TRUE(ret == -EBUSY || ret == -EAGAIN) TH_LOG("unload with data open: %d", ret);
	EXPECT_EQ(0, access(CB_DEBUGFS_DIR, F_OK));
	EXPECT_EQ((ssize_t)sizeof(buf), pread(fd, buf, sizeof(buf), 777));
	EXPECT_EQ(-1, cb_first_bad(buf, sizeof(buf), 777));
	close(fd);

	kfd = open(CB_PATH("size"), O_RDONLY);
	ASSERT_LE(0, kfd);
	ret = cb_unload();
	EXPECT_TRUE(ret == -EBUSY || ret == -EAGAIN) TH_LOG("unload with a knob open: %d", ret);
	close(kfd);

	ret = cb_unload();
	ASSERT_EQ(0, ret) TH_LOG("unload after close: %s", strerror(-ret));
	ASSERT_EQ(0, cb_load(self->ko));
}

TEST_HARNESS_MAIN
