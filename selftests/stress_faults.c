// SPDX-License-Identifier: GPL-2.0
/*
 * stress_faults.c - allocation failures inside copybench.ko: each one is a
 * clean ENOMEM that leaves the previous state as it was.
 *
 * fault_injection (kernels with CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAIL_PAGE_ALLOC and FAULT_INJECTION_STACKTRACE_FILTER: the debug kernel)
 *   failslab and fail_page_alloc aimed at the module: require-start and
 *   require-end span its text, so only allocations made from the module's
 *   code count, and reject-start and reject-end span kmemleak_scan_area(),
 *   kmemleak's own bookkeeping inside vmalloc(), whose failure changes
 *   nothing the module sees (6.12 prints it under kmemleak's object lock:
 *   lockdep's cycle with CPU hotplug's krc.lock, the kernel's own). Systematic: for n = 1, 2, ... /proc/thread-self/fail-nth
 *   fails the n-th such allocation of an operation (data_size growth, a
 *   run of each direction, opening the data file) until one completes with
 *   no allocation failed. Random: task-filter on this task, probability 20%,
 *   over many operations. Every failure must be -ENOMEM with data_size, the
 *   content and the results as before; every success must be whole. Leaks
 *   are kmemleak's to find: tools/vm-run scans after the suite.
 *
 * memcg (every kernel)
 *   data buffers are charged to the writer's memory cgroup: under a 64 MiB
 *   memory.max a 256 MiB data_size is refused with ENOMEM and the old
 *   buffer stays; 16 MiB is accepted and shows in memory.current.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define FI_MAX_NTH	4000	/* allocations one operation may make */
#define FI_RANDOM_OPS	300

/* The fault-injection files this test sets, saved and put back. */
static const char * const fi_attrs[] = { "failslab", "fail_page_alloc" };
static const char * const fi_knobs[] = {
	"probability", "interval", "times", "space", "verbose", "task-filter",
	"require-start", "require-end", "reject-start", "reject-end",
	"ignore-gfp-wait", "stacktrace-depth",
	"min-order",	/* fail_page_alloc only */
};
#define FI_NATTRS	ARRAY_SIZE(fi_attrs)
#define FI_NKNOBS	ARRAY_SIZE(fi_knobs)

/*
 * [*start, *end) of the kernel function @name, from /proc/kallsyms (root
 * sees the addresses): its address to the next higher text symbol's. 0, or
 * -1 when it is not there.
 */
static int fi_ksym_range(const char *name, unsigned long long *start, unsigned long long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long a, at = 0, next = ~0ULL;
	char line[512], type, sym[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    (type == 't' || type == 'T'))
			at = a;
	rewind(f);
	while (at && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && a > at && a < next &&
		    (type == 't' || type == 'T'))
			next = a;
	fclose(f);
	if (!at || next == ~0ULL)
		return -1;
	*start = at;
	*end = next;
	return 0;
}

static int fi_write(const char *attr, const char *knob, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attr, knob);
	return cb_file_write(path, val, strlen(val));
}

/* The current task's fail-nth: arm it with n, read back what is left. */
static int fi_nth(int n)
{
	char s[16];
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	if (n >= 0) {
		snprintf(s, sizeof(s), "%d", n);
		r = write(fd, s, strlen(s));
	} else {
		r = read(fd, s, sizeof(s) - 1);
		if (r > 0) {
			s[r] = '\0';
			r = strtol(s, NULL, 10);
		}
	}
	close(fd);
	return r < 0 ? -1 : (int)r;
}

/* A snapshot of what a failed operation must leave alone. */
struct fi_state {
	long long data_size;
	char results[4096];
};

static void fi_snap(struct fi_state *s)
{
	s->data_size = cb_value_ll("data_size");
	cb_read("results", s->results, sizeof(s->results));
}

/* The data file's first and last 4 KiB and a middle piece are the content. */
static bool fi_content_ok(long long size)
{
	unsigned char buf[4096];
	long long at[] = { 0, size / 2, size - (long long)sizeof(buf) };
	bool ok = true;
	unsigned int i;
	int fd = open(CB_DEBUGFS_DIR "/data", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (i = 0; i < 3 && ok; i++)
		ok = pread(fd, buf, sizeof(buf), at[i]) == sizeof(buf) &&
		     cb_first_bad(buf, sizeof(buf), at[i]) < 0;
	close(fd);
	return ok;
}

/* One operation under test; returns 0 or -errno. */
struct fi_op {
	const char *name;
	int (*prepare)(void);	/* outside the injection, before each try */
	int (*op)(void);
	bool check_results;	/* a success gives verified results */
};

static long long fi_base_size = 65536 + 4096;

static int fi_prepare_size(void)
{
	return cb_writeu("data_size", fi_base_size);
}

static int fi_grow(void)
{
	return cb_writeu("data_size", 3 * 1048576 + 4096);
}

/*
 * Two samples of one copy: the run ends after them. max_run_ms bounds the
 * whole run, preparation included, and a run that reaches it before one
 * sample ends with ETIME, not ENOMEM: the default (10 s) leaves room for a
 * KASAN kernel under emulation.
 */
static int fi_prepare_run(const char *dir)
{
	int ret = cb_write("direction", dir);

	ret = ret ?: cb_write("size", "200000");
	ret = ret ?: cb_write("samples", "2");
	ret = ret ?: cb_write("loops", "1");
	return ret ?: cb_writeu("max_run_ms", CB_MAX_RUN_MS_DEFAULT);
}

static int fi_prepare_memcpy(void) { return fi_prepare_run("memcpy"); }
static int fi_prepare_to_user(void) { return fi_prepare_run("to_user"); }
static int fi_prepare_from_user(void) { return fi_prepare_run("from_user"); }

static int fi_run(void)
{
	return cb_do_run();
}

static int fi_open(void)
{
	int fd = open(CB_DEBUGFS_DIR "/data", O_RDONLY | O_CLOEXEC);
	unsigned char buf[512];
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, buf, sizeof(buf), 1000) != sizeof(buf) ||
	    cb_first_bad(buf, sizeof(buf), 1000) >= 0)
		ret = -EIO;
	close(fd);
	return ret;
}

static const struct fi_op fi_ops[] = {
	{ "data_size growth", fi_prepare_size, fi_grow, false },
	{ "run memcpy", fi_prepare_memcpy, fi_run, true },
	{ "run to_user", fi_prepare_to_user, fi_run, true },
	{ "run from_user", fi_prepare_from_user, fi_run, true },
	{ "open and read data", NULL, fi_open, false },
};

/*
 * After one try: a failure is -ENOMEM with nothing changed; a success is
 * whole. Returns NULL or what was wrong.
 */
static const char *fi_judge(const struct fi_op *o, int ret, const struct fi_state *before,
			    char *why, size_t len)
{
	struct fi_state after;

	fi_snap(&after);
	if (ret && ret != -ENOMEM) {
		snprintf(why, len, "failed with %d (%s), want -ENOMEM", ret, strerror(-ret));
		return why;
	}
	if (ret) {
		if (after.data_size != before->data_size)
			snprintf(why, len, "data_size %lld after the failure, was %lld",
				 after.data_size, before->data_size);
		else if (strcmp(after.results, before->results))
			snprintf(why, len, "the results changed though the run failed");
		else if (!fi_content_ok(after.data_size))
			snprintf(why, len, "the data content is not intact after the failure");
		else
			return NULL;
		return why;
	}
	if (o->check_results) {
		struct cb_res r;

		if (cb_parse_results(&r, why, len))
			return why;
		if (strcmp(cb_res_get(&r, "verified"), "1")) {
			snprintf(why, len, "a run that succeeded has no verified results");
			return why;
		}
	}
	if (!fi_content_ok(after.data_size)) {
		snprintf(why, len, "the data content is wrong after a success");
		return why;
	}
	return NULL;
}

FIXTURE(fault) {
	struct cb_saved saved;
	char fi_saved[FI_NATTRS][FI_NKNOBS][64];
	int kmsg;
};

FIXTURE_SETUP(fault)
{
	const char *why = cb_unavailable();
	char path[256], text[64], core[64];
	unsigned long long start, size, ks, ke;
	unsigned int a, k;

	if (why)
		SKIP(return, "%s", why);
	if (access("/proc/self/fail-nth", F_OK) || access("/sys/kernel/debug/failslab", F_OK) ||
	    access("/sys/kernel/debug/fail_page_alloc/require-start", F_OK))
		SKIP(return, "no fault injection here (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, STACKTRACE_FILTER: the debug kernel)");
	cb_save(&self->saved);
	for (a = 0; a < FI_NATTRS; a++)
		for (k = 0; k < FI_NKNOBS; k++) {
			snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", fi_attrs[a],
				 fi_knobs[k]);
			cb_file_line(path, self->fi_saved[a][k], sizeof(self->fi_saved[a][k]));
		}

	/* The module's code: from its .text, coresize bytes (text comes first). */
	cb_file_line("/sys/module/copybench/sections/.text", text, sizeof(text));
	cb_file_line("/sys/module/copybench/coresize", core, sizeof(core));
	start = strtoull(text, NULL, 0);
	size = strtoull(core, NULL, 0);
	ASSERT_NE(0ULL, start) TH_LOG("no address in /sys/module/copybench/sections/.text");
	ASSERT_NE(0ULL, size);
	/* Without kmemleak, nothing to leave out. */
	ks = ke = 0;
	if (!access("/sys/kernel/debug/kmemleak", F_OK))
		ASSERT_EQ(0, fi_ksym_range("kmemleak_scan_area", &ks, &ke))
			TH_LOG("kmemleak_scan_area() not in /proc/kallsyms with its address");
	for (a = 0; a < FI_NATTRS; a++) {
		char v[32];

		snprintf(v, sizeof(v), "%llu", start);
		ASSERT_EQ(0, fi_write(fi_attrs[a], "require-start", v));
		snprintf(v, sizeof(v), "%llu", start + size);
		ASSERT_EQ(0, fi_write(fi_attrs[a], "require-end", v));
		snprintf(v, sizeof(v), "%llu", ks);
		ASSERT_EQ(0, fi_write(fi_attrs[a], "reject-start", v));
		snprintf(v, sizeof(v), "%llu", ke);
		ASSERT_EQ(0, fi_write(fi_attrs[a], "reject-end", v));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "stacktrace-depth", "32"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "ignore-gfp-wait", "N"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "verbose", "0"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "probability", "0"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "interval", "1"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "times", "-1"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "space", "0"));
	}
	/* Single pages too (the default is order 1 and up): vmalloc() takes pages. */
	ASSERT_EQ(0, fi_write("fail_page_alloc", "min-order", "0"));
	ASSERT_EQ(0, cb_write("variant", "native"));
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(fault)
{
	unsigned int a, k;

	fi_nth(0);
	for (a = 0; a < FI_NATTRS; a++)
		for (k = 0; k < FI_NKNOBS; k++)
			if (self->fi_saved[a][k][0])
				fi_write(fi_attrs[a], fi_knobs[k], self->fi_saved[a][k]);
	cb_restore(&self->saved);
}

/*
 * Every allocation the module makes for an operation, failed in turn: each
 * failure is -ENOMEM with the state untouched, and the operation completes
 * once no allocation is failed.
 */
TEST_F_TIMEOUT(fault, every_allocation_failure_is_a_clean_enomem, 2400)
{
	char why[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fi_ops); i++) {
		const struct fi_op *o = &fi_ops[i];
		int n, failures = 0, ret = 0;

		for (n = 1; n <= FI_MAX_NTH; n++) {
			struct fi_state before;
			const char *wrong;
			int left;

			if (o->prepare)
				ASSERT_EQ(0, o->prepare()) TH_LOG("%s: preparing", o->name);
			fi_snap(&before);
			ASSERT_LE(0, fi_nth(n)) TH_LOG("cannot arm fail-nth");
			ret = o->op();
			left = fi_nth(-1);
			fi_nth(0);
			wrong = fi_judge(o, ret, &before, why, sizeof(why));
			ASSERT_EQ(NULL, wrong)
				TH_LOG("%s, allocation %d failed: %s", o->name, n, wrong);
			if (left > 0)
				break;	/* fewer than n allocations: all were tried */
			failures += ret != 0;
		}
		ASSERT_GE(FI_MAX_NTH, n) TH_LOG("%s: still failing at %d", o->name, n);
		ASSERT_EQ(0, ret) TH_LOG("%s with no allocation failed: %d", o->name, ret);
		ksft_print_msg("%s: %d allocations from the module, %d ended in ENOMEM\n",
			       o->name, n - 1, failures);
		/* The aim worked: at least one allocation of the module's was failed. */
		EXPECT_LT(1, n) TH_LOG("%s: no allocation seen from the module", o->name);
	}
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/*
 * Random failures (20% of the module's allocations in this task) over
 * many operations: the same contract.
 */
TEST_F_TIMEOUT(fault, random_failures_leave_a_consistent_module, 2400)
{
	struct cb_rng rng = { cb_seed("CB_FAULT_SEED") };
	char why[512];
	int i, fd, failures = 0;
	unsigned int a;

	fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "1", 1));
	close(fd);
	for (a = 0; a < FI_NATTRS; a++) {
		ASSERT_EQ(0, fi_write(fi_attrs[a], "task-filter", "Y"));
		ASSERT_EQ(0, fi_write(fi_attrs[a], "probability", "20"));
	}
	ksft_print_msg("seed %llu (CB_FAULT_SEED)\n", (unsigned long long)rng.s);
	for (i = 0; i < FI_RANDOM_OPS; i++) {
		const struct fi_op *o = &fi_ops[cb_below(&rng, ARRAY_SIZE(fi_ops))];
		struct fi_state before;
		const char *wrong;
		int ret;

		for (a = 0; a < FI_NATTRS; a++)
			fi_write(fi_attrs[a], "probability", "0");
		if (o->prepare)
			ASSERT_EQ(0, o->prepare()) TH_LOG("%s: preparing", o->name);
		fi_snap(&before);
		for (a = 0; a < FI_NATTRS; a++)
			fi_write(fi_attrs[a], "probability", "20");
		ret = o->op();
		for (a = 0; a < FI_NATTRS; a++)
			fi_write(fi_attrs[a], "probability", "0");
		wrong = fi_judge(o, ret, &before, why, sizeof(why));
		ASSERT_EQ(NULL, wrong) TH_LOG("op %d, %s: %s", i, o->name, wrong);
		failures += ret != 0;
	}
	ksft_print_msg("%d operations, %d ended in ENOMEM\n", FI_RANDOM_OPS, failures);
	EXPECT_LT(0, failures) TH_LOG("no operation failed: the injection missed the module");
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0)
			ksft_print_msg("cannot clear make-it-fail\n");
		close(fd);
	}
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/* ---------------------------------------------------------------------- */
/* The memory cgroup */

FIXTURE(memcg) {
	struct cb_saved saved;
	char cg[256];
	bool moved;
};

FIXTURE_SETUP(memcg)
{
	const char *why = cb_unavailable();
	int ret;

	self->cg[0] = '\0';
	self->moved = false;
	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	ret = cb_cgroup_make(self->cg, sizeof(self->cg), "cb_stress_memcg", "+memory");
	if (ret == -ENOENT || ret == -EINVAL) {
		self->cg[0] = '\0';
		SKIP(return, "the memory controller cannot be enabled (CONFIG_MEMCG off?)");
	}
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	ASSERT_EQ(0, cb_cgroup_write(self->cg, "memory.max", "67108864"));
	ASSERT_EQ(0, cb_cgroup_enter(self->cg));
	self->moved = true;
}

FIXTURE_TEARDOWN(memcg)
{
	if (self->moved)
		cb_cgroup_enter(CB_CGROUP_ROOT);
	cb_restore(&self->saved);
	if (self->cg[0])
		cb_cgroup_remove(self->cg);
}

/*
 * The data buffer counts against the writer's memory.max: too big is
 * ENOMEM with the old buffer kept; what fits shows in memory.current.
 */
TEST_F_TIMEOUT(memcg, data_size_is_charged_to_the_writer, 600)
{
	long long before, after;
	int ret;

	before = cb_cgroup_read(self->cg, "memory.current", NULL);
	ret = cb_writeu("data_size", 256ULL << 20);
	after = cb_cgroup_read(self->cg, "memory.current", NULL);
	EXPECT_EQ(-ENOMEM, ret)
		TH_LOG("256 MiB data_size under a 64 MiB memory.max: %d; memory.current %lld -> %lld",
		       ret, before, after);
	EXPECT_EQ(1 << 20, cb_value_ll("data_size"));
	EXPECT_TRUE(fi_content_ok(1 << 20));

	ret = cb_writeu("data_size", 16ULL << 20);
	ASSERT_EQ(0, ret) TH_LOG("16 MiB under 64 MiB: %s", strerror(-ret));
	after = cb_cgroup_read(self->cg, "memory.current", NULL);
	EXPECT_LE(before + (15LL << 20), after)
		TH_LOG("memory.current %lld -> %lld: the 16 MiB buffer is not charged here",
		       before, after);
	EXPECT_TRUE(fi_content_ok(16 << 20));
}

TEST_HARNESS_MAIN
