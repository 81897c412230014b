// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_test.c - tests of copybench.ko's interface through its debugfs
 * files: the knobs and last_error, the files and their modes, the verbs,
 * the variant list, and the module's lifetime (unload and load again).
 * copybench_run_test.c tests the timed runs, copybench_data_test.c the
 * data file, copybench_limits_test.c the bounds (time, CPUs, memory,
 * mappings), copybench_end_test.c how a run ends.
 *
 * Needs root, debugfs at /sys/kernel/debug and copybench.ko loaded; every
 * test SKIPs with the reason otherwise, and under kernel lockdown. The
 * lifetime tests unload and load the module, and need its path:
 *
 *	COPYBENCH_KO=build/ko/$(uname -r)/copybench.ko ./copybench_test
 *
 * They leave it loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"
#include "cb_test_harness.h"

#define CB_STR(x)	#x

/* The fixed variants, in list order, as copy_variants_list.h has them. */
static const char * const cb_list_names[] = {
#define CB_VARIANT(name, needs, desc)	CB_STR(name),
#include "copy_variants_list.h"
#undef CB_VARIANT
};

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

FIXTURE_VARIANT_ADD(knob, chain) {
	.name = "chain",
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

/*
 * A write that holds a NUL byte is refused whole, whatever precedes it:
 * "5\0junk" is not 5, "1\0x" starts no run. The value stays.
 */
TEST_F(iface, a_write_with_a_nul_byte_is_refused_unchanged)
{
	static const struct {
		int f;
		const char *file;
		const char buf[16];
		size_t len, at;
	} w[] = {
		{ CBF_size, "size", "5\0junk", 6, 1 },
		{ CBF_direction, "direction", "memcpy\0garbage", 14, 6 },
		{ CBF_baseline, "baseline", "1\0", 2, 1 },
		{ CBF_data_size, "data_size", "8192\0x", 6, 4 },
		{ CBF_run, "run", "1\0x", 3, 1 },
	};
	char results[8192], after[8192], rule[64];
	size_t i;

	cb_read("results", results, sizeof(results));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		EXPECT_EQ(-EINVAL, cb_write_buf(w[i].file, w[i].buf, w[i].len)) TH_LOG("%s", w[i].file);
		snprintf(rule, sizeof(rule), "holds a NUL byte at byte %zu", w[i].at);
		cb_expect_refusal(_metadata, w[i].file, "EINVAL", NULL, rule);
		if (cb_is_knob(w[i].f))
			EXPECT_STREQ(self->saved.val[w[i].f], cb_value(w[i].file)) TH_LOG("%s", w[i].file);
	}
	cb_read("results", after, sizeof(after));
	EXPECT_STREQ(results, after);	/* no run started */
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
			 cbfs_directions[d]);
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
