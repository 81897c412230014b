// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_test.c - tests of copybench.ko through its debugfs interface:
 * the knobs, timed runs, the data file and the module's lifetime.
 *
 * Needs root, debugfs at /sys/kernel/debug and copybench.ko loaded; every
 * test SKIPs with the reason otherwise, and under kernel lockdown. The
 * lifetime tests unload and load the module, and need its path:
 *
 *	COPYBENCH_KO=build/ko/$(uname -r)/copybench.ko ./copybench_test
 *
 * They leave it loaded. Runs use few samples and loops: timings under
 * emulation mean nothing, what is checked is behaviour (results well
 * formed, every byte verified, exact counts, errors).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "copybench.h"

#define CB_PATH(name)	CB_DEBUGFS_DIR "/" name
#define CB_STR(x)	#x
#define CB_MAX_VARIANTS	32
#define CB_DEBUGFS_MAGIC	0x64626720

/* The fixed variants, in list order, as copy_variants_list.h has them. */
static const char * const cb_list_names[] = {
#define CB_VARIANT(name, needs, desc)	CB_STR(name),
#include "copy_variants_list.h"
#undef CB_VARIANT
};

static const struct { const char *key, *unit; } cb_keys[] = {
#define CB_RESULT_KEY(key, unit)	{ #key, unit },
#include "copybench.h"
#undef CB_RESULT_KEY
};
#define CB_NKEYS	ARRAY_SIZE(cb_keys)

/* The read-write files, whose values each test fixture restores. */
static const char * const cb_knob_names[] = {
	"variant", "direction", "size", "src_offset", "dst_offset", "cache", "loops",
	"samples", "cpu", "baseline", "max_run_ms", "data_chunk",
};
#define CB_NKNOBS	ARRAY_SIZE(cb_knob_names)

/* Write s to a copybench file; 0 or -errno. */
static int cb_write(const char *name, const char *s)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(s))
		err = -EIO;
	close(fd);
	return err;
}

static int cb_writeu(const char *name, unsigned long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu\n", v);
	return cb_write(name, s);
}

/* Read a whole copybench file into buf (NUL-terminated); length or -errno. */
static ssize_t cb_read(const char *name, char *buf, size_t len)
{
	char path[256];
	size_t got = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* A knob's value without its newline, into a static buffer. */
static const char *cb_value(const char *name)
{
	static char buf[128];
	ssize_t n = cb_read(name, buf, sizeof(buf));

	if (n < 0)
		return "(unreadable)";
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

/*
 * Why the tests cannot run here, or NULL. Lockdown shows as EPERM on
 * opening a knob for writing.
 */
static const char *cb_unavailable(void)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if (geteuid() != 0)
		return "not root: copybench's debugfs files are root-only";
	if (statfs("/sys/kernel/debug", &sfs) || sfs.f_type != CB_DEBUGFS_MAGIC)
		return "debugfs not mounted at /sys/kernel/debug";
	if (stat(CB_DEBUGFS_DIR, &st))
		return "copybench.ko not loaded (" CB_DEBUGFS_DIR " missing)";
	fd = open(CB_PATH("size"), O_WRONLY);
	if (fd < 0)
		return errno == EPERM ? "kernel lockdown forbids writable debugfs files" :
					"cannot open " CB_PATH("size") " for writing";
	close(fd);
	return NULL;
}

/* Usable variants from the "variants" file; returns how many. */
static int cb_usable_variants(char names[][32], int max)
{
	char buf[4096], *line, *save = NULL;
	int n = 0;

	if (cb_read("variants", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32], state[16];

		if (sscanf(line, "%31s %15s", name, state) == 2 && !strcmp(state, "usable"))
			snprintf(names[n++], sizeof(names[0]), "%s", name);
	}
	return n;
}

/* Saved knob values, written back after each test. */
struct cb_saved {
	char val[CB_NKNOBS][128];
	char data_size[128];
};

static void cb_save(struct cb_saved *s)
{
	size_t i;

	for (i = 0; i < CB_NKNOBS; i++)
		snprintf(s->val[i], sizeof(s->val[i]), "%s", cb_value(cb_knob_names[i]));
	snprintf(s->data_size, sizeof(s->data_size), "%s", cb_value("data_size"));
}

static void cb_restore(const struct cb_saved *s)
{
	size_t i;

	for (i = 0; i < CB_NKNOBS; i++)
		cb_write(cb_knob_names[i], s->val[i]);
	cb_write("data_size", s->data_size);
}

/* ---------------------------------------------------------------------- */
/* Knobs */

FIXTURE(knob) {
	struct cb_saved saved;
};

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
	.good = { { "0" }, { "1" }, { "4096" }, { "1073741824" }, { "65536\n", "65536" } },
	.bad = { { "1073741825", EINVAL }, { "-1", EINVAL } },
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
	.good = { { "memcpy" }, { "to_user" }, { "from_user" }, { "memcpy\n", "memcpy" } },
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

FIXTURE_SETUP(knob)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
}

FIXTURE_TEARDOWN(knob)
{
	cb_restore(&self->saved);
}

/* Each documented value is taken and reads back; each bad one is refused, value kept. */
TEST_F(knob, accepts_its_range_and_rejects_bad_input_unchanged)
{
	char before[128];
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
	}
	for (i = 0; variant->numeric && i < (int)ARRAY_SIZE(cb_bad_numbers); i++) {
		ret = cb_write(variant->name, cb_bad_numbers[i]);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("%s: writing \"%s\" gave %d", variant->name,
					      cb_bad_numbers[i], ret);
		EXPECT_STREQ(before, cb_value(variant->name));
	}
	/* An empty write is as bad as garbage. */
	ret = cb_write(variant->name, "");
	EXPECT_EQ(-EINVAL, ret);
}

/* The interface as a whole: files, modes, verbs, the variant list. */
FIXTURE(iface) {
	struct cb_saved saved;
};

FIXTURE_SETUP(iface)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
}

FIXTURE_TEARDOWN(iface)
{
	cb_restore(&self->saved);
}

/* Files are root-only: no group or other permission bits. */
TEST_F(iface, files_are_root_only)
{
	static const char * const files[] = {
#define CB_FILE(name, mode)	CB_STR(name),
#include "copybench.h"
#undef CB_FILE
	};
	char path[256];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", files[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_EQ(0U, st.st_mode & 077) TH_LOG("%s mode %o", path, st.st_mode & 0777);
		EXPECT_EQ(0U, st.st_uid);
	}
}

/* A value longer than any valid one is refused, not truncated. */
TEST_F(iface, overlong_write_is_rejected)
{
	char big[200];

	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-EINVAL, cb_write("size", big));
	EXPECT_STREQ(self->saved.val[2], cb_value("size"));
}

/* data_size takes 4 KiB..1 GiB; bad input keeps the old size and content. */
TEST_F(iface, data_size_range_is_checked)
{
	static const char * const bad[] = { "", "4095", "1073741825", "abc", "8k", "-4096",
					     "0x1000", "4096 1" };
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
	}
}

/* "run" takes exactly "1". */
TEST_F(iface, run_rejects_anything_but_one)
{
	static const char * const bad[] = { "", "0", "2", "1x", "yes", "-1", "01 1", NULL };
	const char * const *p;

	for (p = bad; *p; p++)
		EXPECT_EQ(-EINVAL, cb_write("run", *p)) TH_LOG("bad input #%d", (int)(p - bad));
}

/* An offline or impossible CPU is refused. */
TEST_F(iface, cpu_must_be_online)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char s[32];

	snprintf(s, sizeof(s), "%ld", n);
	EXPECT_EQ(-EINVAL, cb_write("cpu", s));
	snprintf(s, sizeof(s), "%ld", n - 1);
	EXPECT_EQ(0, cb_write("cpu", s));
}

/* The variants file lists native and every variant of the list, in order. */
TEST_F(iface, variants_file_lists_every_variant_in_list_order)
{
	char buf[4096], *line, *save = NULL;
	size_t i = 0;

	ASSERT_LT(0, cb_read("variants", buf, sizeof(buf)));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char name[32], state[16];
		const char *want;
		int desc = 0, fields;

		fields = sscanf(line, "%31s %15s %n", name, state, &desc);
		ASSERT_EQ(2, fields) TH_LOG("%s", line);
		EXPECT_TRUE(!strcmp(state, "usable") || !strcmp(state, "unusable"));
		EXPECT_LT(0, (int)strlen(line + desc)) TH_LOG("no description: %s", line);
		want = i == 0 ? CB_NATIVE_NAME :
		       i - 1 < ARRAY_SIZE(cb_list_names) ? cb_list_names[i - 1] : "(none)";
		EXPECT_STREQ(want, name);
	}
	EXPECT_EQ(1 + ARRAY_SIZE(cb_list_names), i);
}

/* ---------------------------------------------------------------------- */
/* Runs */

/* A parsed results file: the value text of each key. */
struct cb_res {
	char val[CB_NKEYS][64];
};

static int cb_key_index(const char *key)
{
	size_t i;

	for (i = 0; i < CB_NKEYS; i++)
		if (!strcmp(cb_keys[i].key, key))
			return i;
	return -1;
}

static const char *cb_res_get(const struct cb_res *r, const char *key)
{
	int i = cb_key_index(key);

	return i < 0 ? "" : r->val[i];
}

static unsigned long long cb_res_u(const struct cb_res *r, const char *key)
{
	return strtoull(cb_res_get(r, key), NULL, 10);
}

/* Fixed-point value in hundredths ("12.34" -> 1234). */
static unsigned long long cb_res_c100(const struct cb_res *r, const char *key)
{
	const char *s = cb_res_get(r, key), *dot = strchr(s, '.');

	return strtoull(s, NULL, 10) * 100 + (dot ? strtoull(dot + 1, NULL, 10) : 0);
}

/* Is v well formed for unit? */
static bool cb_value_ok(const char *unit, const char *v)
{
	const char *p = v;

	if (!strcmp(unit, "name")) {
		for (; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				return false;
		return p != v;
	}
	if (!strcmp(unit, "bool"))
		return !strcmp(v, "0") || !strcmp(v, "1");
	if (!strcmp(unit, "cpu") && *p == '-')
		return !strcmp(v, "-1");
	if (!strcmp(unit, "cycles") || !strcmp(unit, "ns") || !strcmp(unit, "bytes/cycle")) {
		size_t decimals = !strcmp(unit, "bytes/cycle") ? 3 : 2;

		while (isdigit((unsigned char)*p))
			p++;
		if (p == v || *p != '.')
			return false;
		v = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		return !*p && (size_t)(p - v) == decimals;
	}
	while (isdigit((unsigned char)*p))
		p++;
	return p != v && !*p;
}

/*
 * Read "results": every CB_RESULT_KEY of copybench.h once, in order, with a well
 * formed value, and nothing else. Returns 0 or a message.
 */
static const char *cb_parse_results(struct cb_res *r, char *why, size_t whylen)
{
	char buf[8192], *line, *save = NULL;
	size_t i = 0;

	memset(r, 0, sizeof(*r));
	if (cb_read("results", buf, sizeof(buf)) <= 0)
		return "results is empty or unreadable";
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char *sp = strchr(line, ' ');

		if (i >= CB_NKEYS) {
			snprintf(why, whylen, "extra line \"%s\"", line);
			return why;
		}
		if (!sp || strncmp(line, cb_keys[i].key, sp - line) ||
		    strlen(cb_keys[i].key) != (size_t)(sp - line)) {
			snprintf(why, whylen, "line %zu is \"%s\", want key %s", i, line,
				 cb_keys[i].key);
			return why;
		}
		if (!cb_value_ok(cb_keys[i].unit, sp + 1) || strlen(sp + 1) >= sizeof(r->val[i])) {
			snprintf(why, whylen, "%s: bad %s value \"%s\"", cb_keys[i].key,
				 cb_keys[i].unit, sp + 1);
			return why;
		}
		snprintf(r->val[i], sizeof(r->val[i]), "%s", sp + 1);
	}
	if (i != CB_NKEYS) {
		snprintf(why, whylen, "%zu keys, want %zu", i, CB_NKEYS);
		return why;
	}
	return NULL;
}

FIXTURE(run) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][32];
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

FIXTURE_SETUP(run)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
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

/* Every usable variant in this direction and cache mode, at a few sizes and offsets, verified. */
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
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		for (s = 0; s < ARRAY_SIZE(shapes); s++) {
			int ret;

			ASSERT_EQ(0, cb_writeu("size", shapes[s].size));
			ASSERT_EQ(0, cb_writeu("src_offset", shapes[s].soff));
			ASSERT_EQ(0, cb_writeu("dst_offset", shapes[s].doff));
			ret = cb_write("run", "1");
			ASSERT_EQ(0, ret) TH_LOG("%s %s size %llu: run failed: %s",
						 self->variants[v], variant->direction,
						 shapes[s].size, strerror(-ret));
			cb_check_run(_metadata, self->variants[v], variant->direction,
				     variant->cache, shapes[s].size, shapes[s].soff,
				     shapes[s].doff, 2, 3);
		}
	}
}

/* Runs whose behaviour does not depend on direction and cache mode. */
FIXTURE(runctl) {
	struct cb_saved saved;
};

FIXTURE_SETUP(runctl)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(runctl)
{
	cb_restore(&self->saved);
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
	ASSERT_EQ(0, cb_write("run", "1"));
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	loops = cb_res_u(&r, "loops");
	EXPECT_LE(1ULL, loops);
	EXPECT_EQ(0ULL, loops & (loops - 1)) TH_LOG("loops %llu", loops);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/* The run happens on the CPU asked for, and the writer's affinity comes back. */
TEST_F(runctl, runs_on_the_chosen_cpu_and_restores_affinity)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t before, after;
	struct cb_res r;
	char why[256], s[32];
	long cpu;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(s, sizeof(s), "%ld", cpu);
		ASSERT_EQ(0, cb_write("cpu", s));
		ASSERT_EQ(0, cb_write("run", "1"));
		ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
		EXPECT_EQ(cpu, (long)cb_res_u(&r, "run_cpu"));
		EXPECT_STREQ(s, cb_res_get(&r, "cpu"));
		ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
		EXPECT_TRUE(CPU_EQUAL(&before, &after));
	}
}

/* baseline=1 subtracts the empty loop: net median is raw median minus baseline. */
TEST_F(runctl, baseline_switch_changes_only_the_subtraction)
{
	struct cb_res r;
	char why[256];

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	ASSERT_EQ(0, cb_write("baseline", "0"));
	ASSERT_EQ(0, cb_write("run", "1"));
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("0", cb_res_get(&r, "baseline"));
	/* Without subtraction a copy cannot be cheaper than the empty loop's floor. */
	EXPECT_LT(0ULL, cb_res_c100(&r, "cycles_min"));
	EXPECT_LT(0ULL, cb_res_c100(&r, "baseline_cycles"));
	ASSERT_EQ(0, cb_write("baseline", "1"));
	ASSERT_EQ(0, cb_write("run", "1"));
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
	ASSERT_EQ(0, cb_write("max_run_ms", "1"));
	ASSERT_EQ(0, cb_write("run", "1"));
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "truncated"));
	EXPECT_LE(1ULL, cb_res_u(&r, "samples"));
	EXPECT_GT(100000ULL, cb_res_u(&r, "samples"));
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/* A sample that would keep preemption off too long is refused with E2BIG. */
TEST_F_TIMEOUT(runctl, oversized_sample_is_refused, 300)
{
	char before[8192], after[8192];

	cb_read("results", before, sizeof(before));
	ASSERT_EQ(0, cb_write("size", "4194304"));
	ASSERT_EQ(0, cb_write("loops", "1000000"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	EXPECT_EQ(-E2BIG, cb_write("run", "1"));
	cb_read("results", after, sizeof(after));
	EXPECT_STREQ(before, after);
}

static void cb_on_usr1(int sig)
{
}

/*
 * While a run is in progress every knob write and a second run get EBUSY,
 * values unchanged; a signal then ends the run with EINTR and the previous
 * results stay.
 */
TEST_F_TIMEOUT(runctl, writes_during_a_run_are_busy_and_a_signal_stops_it, 600)
{
	char results_before[8192], results_after[8192];
	char before[CB_NKNOBS][128];
	int status, ret = 0;
	long polls = 0;
	size_t i;
	pid_t pid;

	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	ASSERT_EQ(0, cb_write("run", "1"));
	cb_read("results", results_before, sizeof(results_before));

	/* Long: each copy of 1 MiB from flushed buffers, up to 100000 of them. */
	ASSERT_EQ(0, cb_write("size", "1048576"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("samples", "100000"));
	for (i = 0; i < CB_NKNOBS; i++)
		snprintf(before[i], sizeof(before[i]), "%s", cb_value(cb_knob_names[i]));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = cb_on_usr1 };

		sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
		ret = cb_write("run", "1");
		_exit(ret == -EINTR ? 0 : ret == 0 ? 2 : 3);
	}

	/* Rewriting a knob with its own value succeeds until the run starts. */
	while ((ret = cb_write("samples", "100000")) == 0) {
		polls++;
		if (waitpid(pid, &status, WNOHANG) == pid)
			ASSERT_TRUE(0) TH_LOG("run ended before it was seen in progress");
	}
	EXPECT_EQ(-EBUSY, ret);
	TH_LOG("run seen in progress after %ld polls", polls);

	for (i = 0; i < CB_NKNOBS; i++) {
		EXPECT_EQ(-EBUSY, cb_write(cb_knob_names[i], before[i]))
			TH_LOG("%s", cb_knob_names[i]);
		EXPECT_STREQ(before[i], cb_value(cb_knob_names[i]));
	}
	EXPECT_EQ(-EBUSY, cb_write("data_size", "8192"));
	EXPECT_EQ(-EBUSY, cb_write("run", "1"));
	/* Bad input during a run: EBUSY or EINVAL, value unchanged either way. */
	ret = cb_write("size", "garbage");
	EXPECT_TRUE(ret == -EBUSY || ret == -EINVAL);
	EXPECT_STREQ("1048576", cb_value("size"));

	ASSERT_EQ(0, kill(pid, SIGUSR1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("run did not end with EINTR (child code %d)",
						 WEXITSTATUS(status));
	cb_read("results", results_after, sizeof(results_after));
	EXPECT_STREQ(results_before, results_after);
	/* And knobs are writable again. */
	EXPECT_EQ(0, cb_write("samples", "3"));
}

/* ---------------------------------------------------------------------- */
/* The data file */

FIXTURE(data) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][32];
	int nvariants;
	size_t size;
};

FIXTURE_SETUP(data)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	self->nvariants = cb_usable_variants(self->variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->nvariants);
	/* A fresh content of a size that is not a page multiple. */
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
 * Checks buf[0..n) against the content at off; returns the index of the
 * first bad byte or -1.
 */
static long cb_first_bad(const unsigned char *buf, size_t n, unsigned long long off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != cb_data_byte(off + i))
			return i;
	return -1;
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
	unsigned char back[16384];
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
			ASSERT_EQ((ssize_t)(len + 200), pread(fd, back, len + 200, off));
			for (i = 0; i < len + 200; i++) {
				unsigned char want = i < dists[d] ? (unsigned char)~cb_data_byte(off + i) :
							cb_data_byte(off + i);

				ASSERT_EQ(want, back[i])
					TH_LOG("%s: dist %zu: file byte %zu is 0x%02x, want 0x%02x",
					       self->variants[v], dists[d], i, back[i], want);
			}
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

/* ---------------------------------------------------------------------- */
/* Lifetime: needs COPYBENCH_KO, the module file to load again. */

static int cb_load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int cb_unload(void)
{
	return syscall(__NR_delete_module, "copybench", O_NONBLOCK) ? -errno : 0;
}

FIXTURE(lifetime) {
	const char *ko;
};

FIXTURE_SETUP(lifetime)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	self->ko = getenv("COPYBENCH_KO");
	if (!self->ko || !*self->ko)
		SKIP(return, "COPYBENCH_KO (path of copybench.ko) not set");
	if (access(self->ko, R_OK))
		SKIP(return, "COPYBENCH_KO=%s: %s", self->ko, strerror(errno));
}

FIXTURE_TEARDOWN(lifetime)
{
	/* Leave it loaded for whoever runs next. */
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

/*
 * Exit 4 (skip) when every test skipped, as kselftest runners expect; the
 * harness itself exits 0 then.
 */
static void cb_all_skipped_exit(void)
{
	if (ksft_cnt.ksft_pass == 0 && ksft_cnt.ksft_fail == 0 && ksft_cnt.ksft_xskip > 0)
		_exit(KSFT_SKIP);
}

int main(int argc, char **argv)
{
	atexit(cb_all_skipped_exit);
	return test_harness_run(argc, argv);
}
