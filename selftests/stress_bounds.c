// SPDX-License-Identifier: GPL-2.0
/*
 * stress_bounds.c - copybench.ko at the edges of its knobs: every run ends
 * within max_run_ms plus one copy, or is refused up front with E2BIG, and
 * dies promptly on SIGKILL, hot or cold, at the largest size and counts;
 * the data path's longest operations (a 256 MiB read in one call, a
 * 256 MiB data_size fill) die promptly too; a data_size change during a
 * run is not refused; refusals are explained in last_error; the variants
 * file says which directions each variant supports. No stall or lockup
 * report in the kernel log.
 *
 * Timing bounds are generous (CB_BOUND_SLACK_MS, default 5000, plus what
 * one copy takes, measured first) or relations (a killed operation ends
 * before half of what it takes whole): they hold on any machine, under
 * emulation too. Memory: about 700 MiB (tools/vm-run's 2G is enough).
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

#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define BD_BIG		(64ULL << 20)	/* CB_SIZE_MAX */
#define BD_DATA		(256ULL << 20)	/* data path tests */

static long long bd_slack(void)
{
	return cb_env_ll("CB_BOUND_SLACK_MS", 5000);
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

/* A child that runs once; its exit status is the errno (0: success). */
static int bd_runner(void *arg)
{
	return -cb_write("run", "1");
}

/* The results value of key, or -1. */
static double bd_result(const char *key)
{
	char buf[4096], pat[64], *p;

	if (cb_read("results", buf, sizeof(buf)) < 0)
		return -1;
	snprintf(pat, sizeof(pat), "\n%s ", key);
	p = strstr(buf, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

/*
 * What one 64 MiB copy of variant takes, in ms: one hot run of one copy per
 * sample, its largest sample converted with tsc_khz.
 */
static long long bd_copy_ms(const char *variant, const char *direction)
{
	struct bd_kv kv[] = {
		{ "variant", variant }, { "direction", direction }, { "cache", "hot" },
		{ "size", "67108864" }, { "loops", "1" }, { "samples", "1" },
		{ "max_run_ms", "600000" }, { NULL },
	};
	double cycles, khz;

	if (bd_knobs(kv) || cb_write("run", "1"))
		return -1;
	cycles = bd_result("cycles_max");
	khz = bd_result("tsc_khz");
	return cycles < 0 || khz <= 0 ? -1 : (long long)(cycles / khz) + 1;
}

FIXTURE(bounds) {
	struct cb_state saved;
	int kmsg;
};

FIXTURE_SETUP(bounds)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_state_save(&self->saved);
	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(bounds)
{
	cb_state_restore(&self->saved);
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
 * A run with the current knobs: it must end (0 or E2BIG) within limit_ms.
 * When it does not, it is killed and waited for (up to ten minutes: the VM
 * must stay usable). Returns the child's status, -1 for "did not end".
 */
static int bd_bounded_run(struct __test_metadata *_metadata, long long limit_ms,
			  long long *took)
{
	long long t0 = cb_now_ms();
	pid_t pid = cb_child(bd_runner, NULL);
	int st;

	if (pid < 0)
		return -2;
	st = cb_child_wait(pid, t0 + limit_ms);
	*took = cb_now_ms() - t0;
	if (st < 0) {
		kill(pid, SIGKILL);
		st = cb_child_wait(pid, cb_now_ms() + 600000);
		TH_LOG("the run was still going after %lld ms; SIGKILL ended it %lld ms later%s",
		       *took, cb_now_ms() - t0 - *took, st < 0 ? " (not yet)" : "");
		return -1;
	}
	return st;
}

/*
 * SIGKILL a run with the current knobs once it is going: the writer must be
 * gone within limit_ms. Returns how long it took, -1 when it did not end
 * then.
 */
static long long bd_kill_latency(struct __test_metadata *_metadata, long long limit_ms)
{
	long long t0, took;
	pid_t pid = cb_child(bd_runner, NULL);
	int st;

	if (pid < 0)
		return -2;
	if (!cb_wait_running(pid, cb_now_ms() + 60000)) {
		st = cb_child_wait(pid, cb_now_ms() + 600000);
		TH_LOG("the run ended (status %d) before it could be killed", st);
		return -2;
	}
	t0 = cb_now_ms();
	kill(pid, SIGKILL);
	st = cb_child_wait(pid, t0 + limit_ms);
	took = cb_now_ms() - t0;
	if (st < 0) {
		st = cb_child_wait(pid, cb_now_ms() + 600000);
		TH_LOG("SIGKILLed writer still there after %lld ms; gone after %lld ms", took,
		       cb_now_ms() - t0);
		return -1;
	}
	return took;
}

/*
 * The reproducer ends within max_run_ms plus one copy (and the slack), or
 * is refused with E2BIG.
 */
TEST_F_TIMEOUT(bounds, cold_run_ends_within_max_run_ms, 1200)
{
	long long copy = bd_copy_ms("bytes", "memcpy"), took, limit;
	int st;

	ASSERT_LT(0, copy) TH_LOG("cannot time one 64 MiB copy");
	ASSERT_EQ(0, bd_knobs(bd_repro));
	limit = 1000 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ksft_print_msg("one copy %lld ms; cold run: status %d after %lld ms (bound %lld ms)\n",
		       copy, st, took, limit);
	ASSERT_NE(-1, st) TH_LOG("a cold run outlived max_run_ms 1000 + one copy %lld ms + %lld ms",
				 copy, bd_slack());
	EXPECT_TRUE(st == 0 || st == E2BIG) TH_LOG("the run failed: %s", strerror(st));
}

/* The reproducer with no time bound, SIGKILLed while it goes: gone within one copy. */
TEST_F_TIMEOUT(bounds, cold_run_dies_promptly_on_sigkill, 1200)
{
	long long copy = bd_copy_ms("bytes", "memcpy"), took, limit;

	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, bd_knobs(bd_long));
	limit = 2 * copy + bd_slack();
	took = bd_kill_latency(_metadata, limit);
	ksft_print_msg("one copy %lld ms; killed cold run gone after %lld ms (bound %lld ms)\n",
		       copy, took, limit);
	ASSERT_LE(0, took) TH_LOG("a SIGKILLed cold run did not end within %lld ms", limit);
}

FIXTURE(bounds_largest) {
	struct cb_state saved;
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
	cb_state_save(&self->saved);
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(bounds_largest)
{
	cb_state_restore(&self->saved);
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
	long long copy = bd_copy_ms("bytes", "memcpy"), took, limit;
	int st;

	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	limit = 1000 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ASSERT_NE(-1, st) TH_LOG("%s runs are not bounded (150 loops took over %lld ms): the largest counts are not tried",
				 variant->cache, limit);

	copy = bd_copy_ms("native", "memcpy");
	ASSERT_LT(0, copy);
	ASSERT_EQ(0, bd_knobs(bd_repro));
	ASSERT_EQ(0, bd_knobs(bd_largest));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	limit = 2000 + 2 * copy + bd_slack();
	st = bd_bounded_run(_metadata, limit, &took);
	ksft_print_msg("%s, largest counts: status %d after %lld ms (bound %lld ms)\n",
		       variant->cache, st, took, limit);
	ASSERT_NE(-1, st);
	EXPECT_TRUE(st == 0 || st == E2BIG) TH_LOG("the run failed: %s", strerror(st));
	if (st == E2BIG)
		return;	/* refused up front: nothing to kill */

	ASSERT_EQ(0, bd_knobs(bd_long));
	limit = 2 * copy + bd_slack();
	took = bd_kill_latency(_metadata, limit);
	ksft_print_msg("%s, largest counts: SIGKILLed run gone after %lld ms (bound %lld ms)\n",
		       variant->cache, took, limit);
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
 * SIGKILL it kill_at ms later (returns how long it took to die after).
 */
static long long bd_timed(int (*fn)(void *), long long kill_at, int *status)
{
	int ready[2];
	long long t0, t1;
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
	t0 = cb_now_ms();
	if (kill_at < 0) {
		*status = cb_child_wait(pid, t0 + 1200000);
		return cb_now_ms() - t0;
	}
	*status = cb_child_wait(pid, t0 + kill_at);
	if (*status >= 0)
		return -2;	/* done before the kill */
	kill(pid, SIGKILL);
	t1 = cb_now_ms();
	*status = cb_child_wait(pid, t1 + 1200000);
	return cb_now_ms() - t1;
}

/*
 * One read() of 256 MiB with data_chunk 0 (one copy call, as the knob
 * says), SIGKILLed a tenth of the way: gone before half of what the whole
 * read takes (plus what the exit of a process that size takes anyway).
 * Same for a 256 MiB data_size fill, which then leaves data_size as it was.
 */
TEST_F_TIMEOUT(bounds, longest_data_operations_die_promptly, 1800)
{
	long long whole, dead, exit_ms;
	int st;

	exit_ms = bd_timed(bd_idler, 0, &st);
	ASSERT_LE(0, exit_ms);

	ASSERT_EQ(0, cb_write("variant", "bytes"));
	ASSERT_EQ(0, cb_write("data_chunk", "0"));

	whole = bd_timed(bd_filler, -1, &st);
	ASSERT_EQ(0, st) TH_LOG("data_size %llu: %s", BD_DATA, strerror(st));
	dead = bd_timed(bd_reader, -1, &st);
	ASSERT_EQ(0, st) TH_LOG("the whole read failed (status %d)", st);
	ksft_print_msg("256 MiB fill %lld ms, 256 MiB read in one call %lld ms, exit of a 256 MiB process %lld ms\n",
		       whole, dead, exit_ms);

	whole = dead;
	dead = bd_timed(bd_reader, whole / 10, &st);
	ksft_print_msg("read SIGKILLed at %lld ms: gone %lld ms later\n", whole / 10, dead);
	if (dead != -2)
		EXPECT_GE(whole / 2 + 2 * exit_ms + 20, dead)
			TH_LOG("a killed read ran on for %lld ms of %lld (exit alone %lld ms)",
			       dead, whole, exit_ms);

	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	whole = bd_timed(bd_filler, -1, &st);
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, cb_writeu("data_size", 1 << 20));
	dead = bd_timed(bd_filler, whole / 10, &st);
	ksft_print_msg("fill SIGKILLed at %lld ms of %lld: gone %lld ms later\n", whole / 10,
		       whole, dead);
	if (dead != -2) {
		EXPECT_GE(whole / 2 + 20, dead)
			TH_LOG("a killed data_size write ran on for %lld ms of %lld", dead, whole);
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
	int ret;

	ASSERT_EQ(0, bd_knobs(kv));
	pid = cb_child(bd_runner, NULL);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(cb_wait_running(pid, cb_now_ms() + 60000));
	ret = cb_writeu("data_size", 2 << 20);
	kill(pid, SIGKILL);
	cb_child_wait(pid, cb_now_ms() + 600000);
	EXPECT_EQ(0, ret) TH_LOG("data_size during a run: %s", strerror(-ret));
	EXPECT_EQ(2 << 20, cb_value_ll("data_size"));
}

/* ---------------------------------------------------------------------- */
/* Words for refusals, directions per variant */

/*
 * After a refused knob write, last_error names the knob and the value
 * given; after a run refused with E2BIG, it names the run.
 */
TEST_F(bounds, refusals_are_explained_in_last_error)
{
	static const struct { const char *knob, *value; } bad[] = {
		{ "size", "70000000" }, { "samples", "0" }, { "cache", "warm" },
		{ "variant", "nosuchvariant" }, { "data_size", "12" }, { "cpu", "4096" },
		{ "max_run_ms", "x1" }, { "direction", "sideways" },
	};
	char msg[1024];
	unsigned int i;

	ASSERT_EQ(0, access(CB_DEBUGFS_DIR "/last_error", R_OK))
		TH_LOG("no last_error file");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_NE(0, cb_write(bad[i].knob, bad[i].value));
		cb_read("last_error", msg, sizeof(msg));
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

/*
 * The third word of a "variants" line: how many directions its
 * comma-separated list names, or -1 when a word is not a direction.
 */
static int bd_directions(char *dirs)
{
	char *d, *save = NULL;
	unsigned int i;
	int n = 0;

	for (d = strtok_r(dirs, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < cb_ndirections && strcmp(d, cb_direction_list[i]); i++)
			;
		if (i == cb_ndirections)
			return -1;
		n++;
	}
	return n;
}

/* Each line: name, usable|unusable, a list of known directions, a description. */
TEST_F(bounds, variants_file_lists_directions)
{
	char buf[8192], *line, *save = NULL;
	int n = 0;

	ASSERT_LT(0, cb_read("variants", buf, sizeof(buf)));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32], state[16], dirs[128];
		int used = 0, nd, fields;

		fields = sscanf(line, "%31s %15s %127s %n", name, state, dirs, &used);
		ASSERT_EQ(3, fields) TH_LOG("line \"%s\"", line);
		ASSERT_TRUE(!strcmp(state, "usable") || !strcmp(state, "unusable"))
			TH_LOG("line \"%s\"", line);
		nd = bd_directions(dirs);
		ASSERT_LT(0, nd) TH_LOG("line \"%s\": no list of directions (NAME usable|unusable DIRS DESCRIPTION)",
					line);
		ASSERT_NE('\0', line[used]) TH_LOG("%s: no description", name);
		if (!strcmp(name, CB_NATIVE_NAME))
			EXPECT_EQ((int)cb_ndirections, nd)
				TH_LOG("native supports every direction");
		n++;
	}
	EXPECT_LT(1, n);
}

TEST_HARNESS_MAIN
