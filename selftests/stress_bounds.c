// SPDX-License-Identifier: GPL-2.0
/*
 * stress_bounds.c - copybench.ko at the edges of its knobs: every run ends
 * within max_run_ms plus one copy (with results, or ETIME when no sample
 * fitted), or is refused up front with E2BIG, and dies promptly on
 * SIGKILL, hot or cold, at the largest size and counts; the data path's
 * longest operations (a 256 MiB read in one read() call, a
 * 256 MiB data_size fill) die promptly too; a data_size change during a
 * run is not refused; refusals are explained in last_error. No stall or
 * lockup report in the kernel log.
 *
 * Timing bounds are generous (CB_BOUND_SLACK_MS, default 5000, plus what
 * one copy takes, measured first) or relations (a killed operation ends
 * before half of what it takes whole): they hold on any machine, under
 * emulation too. Memory: about 700 MiB (tools/vm-run's 2G is enough).
 * Times are in seconds (cb_now()), printed in ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define BD_BIG		(64ULL << 20)	/* CB_SIZE_MAX */
#define BD_DATA		(256ULL << 20)	/* data path tests */

/* The slack of every time bound, in seconds. */
static double bd_slack(void)
{
	return cb_env_ll("CB_BOUND_SLACK_MS", 5000) / 1000.0;
}

/* A knob and its value. */
struct bd_kv {
	const char *knob, *value;
};

/* The knobs of a run, written in this order; a NULL knob ends. */
static int bd_knobs(const struct bd_kv *kv)
{
	int ret = 0;

	for (; kv->knob && !ret; kv++) {
		ret = cb_write(kv->knob, kv->value);
		if (ret)
			fprintf(stderr, "# writing %s %s: %s\n", kv->knob, kv->value,
				strerror(-ret));
	}
	return ret;
}

/*
 * What one 64 MiB copy of variant takes, in seconds (-1 when it cannot be
 * measured): one hot run of one copy per sample, its largest sample
 * converted with tsc_khz. When the module refuses one 64 MiB copy as
 * longer than a sample may keep preemption off (E2BIG: a slow kernel on a
 * loaded host, seen in CI), a quarter of it, then a sixteenth, is timed and
 * scaled up: the copies are linear in size at these sizes.
 */
static double bd_copy_time(const char *variant, const char *direction)
{
	static const unsigned long sizes[] = { 64UL << 20, 16UL << 20, 4UL << 20 };
	char size[24];
	struct bd_kv kv[] = {
		{ "variant", variant }, { "direction", direction }, { "cache", "hot" },
		{ "size", size }, { "loops", "1" }, { "samples", "1" },
		{ "max_run_ms", "600000" }, { NULL },
	};
	unsigned long long khz;
	struct cb_res r;
	char why[256];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(size, sizeof(size), "%lu", sizes[i]);
		ret = bd_knobs(kv) ?: cb_do_run();
		if (ret != -E2BIG)
			break;
		fprintf(stderr, "# %s %s of %s bytes refused (%s): timing a quarter of it\n",
			variant, direction, size, cb_last_error());
	}
	if (ret || cb_parse_results(&r, why, sizeof(why))) {
		fprintf(stderr, "# cannot time %s %s: %s\n", variant, direction,
			ret ? cb_last_error() : why);
		return -1;
	}
	khz = cb_res_u(&r, "tsc_khz");
	return khz ? cb_res_c100(&r, "cycles_max") / 100.0 / khz / 1000 *
		     ((double)sizes[0] / sizes[i]) + 0.001 : -1;
}

FIXTURE(bounds) {
	struct cb_saved saved;
	int kmsg;
};

FIXTURE_SETUP(bounds)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(bounds)
{
	cb_restore(&self->saved);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/*
 * The reproducer: a cold run of 64 MiB byte copies, 150 per
 * sample, one sample, bounded by max_run_ms 1000.
 */
static const struct bd_kv bd_repro[] = {
	{ "variant", "bytes" }, { "direction", "memcpy" }, { "cache", "cold" },
	{ "size", "67108864" }, { "loops", "150" }, { "samples", "1" },
	{ "max_run_ms", "1000" }, { NULL },
};

/* The largest counts, with the size of the reproducer. */
static const struct bd_kv bd_largest[] = {
	{ "variant", "native" }, { "loops", "1000000" }, { "samples", "100000" },
	{ "max_run_ms", "2000" }, { NULL },
};

/* A run that only a signal ends (within the test's patience). */
static const struct bd_kv bd_long[] = {
	{ "samples", "100000" }, { "max_run_ms", "600000" }, { NULL },
};

/*
 * A run with the current knobs: it must end (0 or E2BIG) within limit
 * seconds. When it does not, it is killed and waited for (up to ten
 * minutes: the VM must stay usable). Returns the runner's exit code (the
 * run's errno), -1 for "did not end".
 */
static int bd_bounded_run(struct __test_metadata *_metadata, double limit, double *took)
{
	double t0 = cb_now();
	pid_t pid = cb_spawn_run(NULL, -1);
	int st;

	if (pid < 0)
		return -2;
	st = cb_wait_child(pid, limit);
	*took = cb_now() - t0;
	if (st == -1) {
		kill(pid, SIGKILL);
		st = cb_wait_child(pid, 600);
		TH_LOG("the run was still going after %.0f ms; SIGKILL ended it %.0f ms later%s",
		       *took * 1000, (cb_now() - t0 - *took) * 1000, st == -1 ? " (not yet)" : "");
		return -1;
	}
	return cb_exit_code(st);
}

/*
 * SIGKILL a run with the current knobs once it is going: the writer must be
 * gone within limit seconds. Returns how long it took, -1 when it did not
 * end then, -2 when it could not be killed running.
 */
static double bd_kill_latency(struct __test_metadata *_metadata, double limit)
{
	pid_t pid = cb_spawn_run(NULL, -1);
	double t0, took;
	int st = -1;

	if (pid < 0)
		return -2;
	if (cb_wait_run_started(pid, 60, &st)) {
		if (st == -1)
			st = cb_wait_child(pid, 600);
		TH_LOG("the run ended (exit code %d) before it could be killed", cb_exit_code(st));
		return -2;
	}
	t0 = cb_now();
	kill(pid, SIGKILL);
	st = cb_wait_child(pid, limit);
	took = cb_now() - t0;
	if (st == -1) {
		st = cb_wait_child(pid, 600);
		TH_LOG("SIGKILLed writer still there after %.0f ms; gone after %.0f ms", took * 1000,
		       (cb_now() - t0) * 1000);
		return -1;
	}
	return took;
}

/* What a bounded run may answer: results, or refused up front, or ETIME. */
static bool bd_bounded_answer(int st)
{
	return st == 0 || st == E2BIG || st == ETIME;
}

/*
 * The reproducer ends within max_run_ms plus one copy (and the slack): with
 * results, ETIME (no sample fitted) or E2BIG (refused up front).
 */
TEST_F_TIMEOUT(bounds, cold_run_ends_within_max_run_ms, 1200)
{
	double copy = bd_copy_time("bytes", "memcpy"), took, limit;
	int st;

	ASSERT_LT(0, copy) TH_LOG("cannot time one 64 MiB copy");
	ASSERT_EQ(0, bd_knobs(bd_repro));
	limit = 1 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ksft_print_msg("one copy %.0f ms; cold run: exit code %d after %.0f ms (bound %.0f ms)\n",
		       copy * 1000, st, took * 1000, limit * 1000);
	ASSERT_NE(-1, st) TH_LOG("a cold run outlived max_run_ms 1000 + one copy %.0f ms + %.0f ms",
				 copy * 1000, bd_slack() * 1000);
	EXPECT_TRUE(bd_bounded_answer(st)) TH_LOG("the run failed: %s: %s", strerror(st),
						  cb_last_error());
}

/* The reproducer with no time bound, SIGKILLed while it goes: gone within one copy. */
TEST_F_TIMEOUT(bounds, cold_run_dies_promptly_on_sigkill, 1200)
{
	double copy = bd_copy_time("bytes", "memcpy"), took, limit;

	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, bd_knobs(bd_long));
	limit = 2 * copy + bd_slack();
	took = bd_kill_latency(_metadata, limit);
	ksft_print_msg("one copy %.0f ms; killed cold run gone after %.0f ms (bound %.0f ms)\n",
		       copy * 1000, took * 1000, limit * 1000);
	ASSERT_LE(0, took) TH_LOG("a SIGKILLed cold run did not end within %.0f ms", limit * 1000);
}

FIXTURE(bounds_largest) {
	struct cb_saved saved;
	int kmsg;
};

FIXTURE_VARIANT(bounds_largest) {
	const char *cache;
};
FIXTURE_VARIANT_ADD(bounds_largest, hot) { .cache = "hot" };
FIXTURE_VARIANT_ADD(bounds_largest, cold) { .cache = "cold" };

FIXTURE_SETUP(bounds_largest)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(bounds_largest)
{
	cb_restore(&self->saved);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/*
 * size 64 MiB, loops 1000000, samples 100000, max_run_ms 2000: ends within
 * max_run_ms plus one copy or is refused with E2BIG, then the same run dies
 * promptly on SIGKILL. A module whose cold runs are not bounded would hold
 * a CPU for days here: the reproducer runs first (in this cache mode), and
 * when it is not bounded the largest counts are not tried.
 */
TEST_F_TIMEOUT(bounds_largest, largest_counts_are_bounded_and_killable, 1800)
{
	double copy = bd_copy_time("bytes", "memcpy"), took, limit;
	int st;

	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	limit = 1 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ASSERT_NE(-1, st) TH_LOG("%s runs are not bounded (150 loops took over %.0f ms): the largest counts are not tried",
				 variant->cache, limit * 1000);

	copy = bd_copy_time("native", "memcpy");
	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, bd_knobs(bd_largest));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	limit = 2 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ksft_print_msg("%s, largest counts: exit code %d after %.0f ms (bound %.0f ms)\n",
		       variant->cache, st, took * 1000, limit * 1000);
	ASSERT_NE(-1, st);
	EXPECT_TRUE(bd_bounded_answer(st)) TH_LOG("the run failed: %s: %s", strerror(st),
						  cb_last_error());
	if (st == E2BIG)
		return;	/* refused up front: nothing to kill */

	ASSERT_EQ(0, bd_knobs(bd_long));
	limit = 2 * copy + bd_slack();
	took = bd_kill_latency(_metadata, limit);
	ksft_print_msg("%s, largest counts: SIGKILLed run gone after %.0f ms (bound %.0f ms)\n",
		       variant->cache, took * 1000, limit * 1000);
	EXPECT_LE(0, took);
}

/* ---------------------------------------------------------------------- */
/* The data path */

/* A child that reads BD_DATA bytes from the data file in one read(). */
static int bd_reader(void *arg)
{
	int *ready = arg;
	unsigned char *buf = mmap(NULL, BD_DATA, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int fd = open(CB_DEBUGFS_DIR "/data", O_RDONLY);
	ssize_t n;

	if (buf == MAP_FAILED || fd < 0)
		return 1;
	close(ready[0]);
	if (write(ready[1], "r", 1) != 1)
		return 1;
	n = read(fd, buf, BD_DATA);
	return n == (ssize_t)BD_DATA && cb_first_bad(buf, 4096, 0) < 0 ? 0 : 2;
}

/* A child as big as the reader that only waits: what its exit costs. */
static int bd_idler(void *arg)
{
	int *ready = arg;
	unsigned char *buf = mmap(NULL, BD_DATA, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (buf == MAP_FAILED)
		return 1;
	close(ready[0]);
	if (write(ready[1], "i", 1) != 1)
		return 1;
	for (;;)
		pause();	/* until killed */
}

/* A child that writes data_size BD_DATA. */
static int bd_filler(void *arg)
{
	int *ready = arg;

	close(ready[0]);
	if (write(ready[1], "f", 1) != 1)
		return 1;
	return -cb_writeu("data_size", BD_DATA);
}

/*
 * Start fn in a child; once it signals that it is about to enter the
 * kernel, either wait for it (kill_at < 0: returns how long it took) or
 * SIGKILL it kill_at seconds later (returns how long it took to die after,
 * -2 when it was done before). Times in seconds; *status is the exit code.
 */
static double bd_timed(int (*fn)(void *), double kill_at, int *status)
{
	double t0, t1;
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = cb_child(fn, ready);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	close(ready[0]);
	close(ready[1]);
	t0 = cb_now();
	if (kill_at < 0) {
		*status = cb_exit_code(cb_wait_child(pid, 1200));
		return cb_now() - t0;
	}
	*status = cb_exit_code(cb_wait_child(pid, kill_at));
	if (*status >= 0)
		return -2;	/* done before the kill */
	kill(pid, SIGKILL);
	t1 = cb_now();
	*status = cb_exit_code(cb_wait_child(pid, 1200));
	return cb_now() - t1;
}

/*
 * One read() of 256 MiB with data_chunk 0 (copy calls of 2 MiB, the
 * largest), SIGKILLed a tenth of the way: gone before half of what the
 * whole read takes (plus what the exit of a process that size takes
 * anyway). Same for a 256 MiB data_size fill, which then leaves data_size
 * as it was.
 */
TEST_F_TIMEOUT(bounds, longest_data_operations_die_promptly, 1800)
{
	double whole, dead, exit_s;
	int st;

	exit_s = bd_timed(bd_idler, 0, &st);
	ASSERT_LE(0, exit_s);

	ASSERT_EQ(0, cb_write("variant", "bytes"));
	ASSERT_EQ(0, cb_write("data_chunk", "0"));

	whole = bd_timed(bd_filler, -1, &st);
	ASSERT_EQ(0, st) TH_LOG("data_size %llu: %s", BD_DATA, strerror(st));
	dead = bd_timed(bd_reader, -1, &st);
	ASSERT_EQ(0, st) TH_LOG("the whole read failed (exit code %d)", st);
	ksft_print_msg("256 MiB fill %.0f ms, 256 MiB read in one call %.0f ms, exit of a 256 MiB process %.0f ms\n",
		       whole * 1000, dead * 1000, exit_s * 1000);

	whole = dead;
	dead = bd_timed(bd_reader, whole / 10, &st);
	ksft_print_msg("read SIGKILLed at %.0f ms: gone %.0f ms later\n", whole * 100, dead * 1000);
	if (dead != -2)
		EXPECT_GE(whole / 2 + 2 * exit_s + 0.02, dead)
			TH_LOG("a killed read ran on for %.0f ms of %.0f (exit alone %.0f ms)",
			       dead * 1000, whole * 1000, exit_s * 1000);

	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	whole = bd_timed(bd_filler, -1, &st);
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	dead = bd_timed(bd_filler, whole / 10, &st);
	ksft_print_msg("fill SIGKILLed at %.0f ms of %.0f: gone %.0f ms later\n", whole * 100,
		       whole * 1000, dead * 1000);
	if (dead != -2) {
		EXPECT_GE(whole / 2 + 0.02, dead)
			TH_LOG("a killed data_size write ran on for %.0f ms of %.0f", dead * 1000,
			       whole * 1000);
		EXPECT_EQ(1 << 20, cb_value_ll("data_size"))
			TH_LOG("the killed data_size write changed data_size");
	}
}

/* data_size is not refused while a run is going (a run does not use it). */
TEST_F_TIMEOUT(bounds, data_size_write_during_a_run_is_accepted, 600)
{
	static const struct bd_kv kv[] = {
		{ "variant", "native" }, { "direction", "memcpy" }, { "cache", "hot" },
		{ "size", "4096" }, { "loops", "1" }, { "samples", "100000" },
		{ "max_run_ms", "30000" }, { NULL },
	};
	pid_t pid;
	int ret, st;

	ASSERT_EQ(0, bd_knobs(kv));
	pid = cb_spawn_run(NULL, -1);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, cb_wait_run_started(pid, 60, &st));
	ret = cb_writeu("data_size", 2 << 20);
	kill(pid, SIGKILL);
	cb_wait_child(pid, 600);
	EXPECT_EQ(0, ret) TH_LOG("data_size during a run: %s", strerror(-ret));
	EXPECT_EQ(2 << 20, cb_value_ll("data_size"));
}

/* ---------------------------------------------------------------------- */
/* Words for refusals */

/* After a refused knob write, last_error names the knob and the value given. */
TEST_F(bounds, refusals_are_explained_in_last_error)
{
	static const struct { const char *knob, *value; } bad[] = {
		{ "size", "70000000" }, { "samples", "0" }, { "cache", "warm" },
		{ "variant", "nosuchvariant" }, { "data_size", "12" }, { "cpu", "4096" },
		{ "max_run_ms", "x1" }, { "direction", "sideways" },
	};
	const char *msg;
	unsigned int i;

	ASSERT_EQ(0, access(CB_DEBUGFS_DIR "/last_error", R_OK))
		TH_LOG("no last_error file");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_NE(0, cb_write(bad[i].knob, bad[i].value));
		msg = cb_last_error();
		EXPECT_NE(NULL, strstr(msg, bad[i].knob))
			TH_LOG("refused %s \"%s\": last_error is \"%s\"", bad[i].knob,
			       bad[i].value, msg);
		EXPECT_NE(NULL, strstr(msg, bad[i].value))
			TH_LOG("refused %s \"%s\": last_error is \"%s\"", bad[i].knob,
			       bad[i].value, msg);
	}
	/* Read-only: a write is refused. */
	EXPECT_NE(0, cb_write("last_error", "x"));
}

TEST_HARNESS_MAIN
