// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_ctx_test.c - what a run's context does beside it: io_uring's
 * own endings, refusals that say why, and a storm on the mmap lock. How a
 * run ends wherever it is (signals, stops, freezers, the deadline, its CPU
 * going, io_uring's cancel, a held mmap lock) is copybench_end_test.c's
 * matrix.
 *
 * 1. A write of 1 to run through IORING_OP_WRITE runs in an io-wq worker:
 *    closing the ring ends it with ECANCELED; a stop ends it with EINTR,
 *    which io_uring does not restart. A run they did not end would run on
 *    to max_run_ms, and the ring's teardown would warn.
 * 2. A protection key that denies the access is EACCES, with its reason; a
 *    buffer that loses PROT_WRITE during a run is EFAULT, with its own:
 *    never ENOMEM, "no memory", which names no cause the user can act on.
 * 3. Beside a storm of mmap() calls in its writer's other threads, a run,
 *    its writer pinned or not, takes all its samples: tries of the lock
 *    must not starve. Its run_ms is printed, the cost of trying rather
 *    than queueing ($COPYBENCH_STORM_THREADS threads, default 2; 0 for a
 *    run alone).
 *
 * Needs root, copybench.ko loaded, io_uring (1), protection keys (2); 3
 * uses the last CPU, one will do. Relations are asserted, never a time:
 * the bounds below only end a wait a working module never reaches.
 *
 *	./copybench_ctx_test
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define MiB		(1024UL * 1024)
/* A wait a working module ends at once; a broken one, never. */
#define CTX_BOUND_S	30.0

FIXTURE(ctx) {
	struct cb_saved saved;
	int kmsg;
};

FIXTURE_SETUP(ctx)
{
	const char *why = cb_unavailable();

	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(ctx)
{
	cb_restore(&self->saved);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

static void ctx_set(struct __test_metadata *_metadata, const char * const *kv)
{
	const char *failed = NULL;
	int ret = cb_write_knobs(kv, &failed);

	ASSERT_EQ(0, ret) TH_LOG("%s: %s", failed, strerror(-ret));
}

static void ctx_pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(tid, sizeof(set), &set);
}

/* ---------------------------------------------------------------------- */
/* 1. io_uring: a run started with IORING_OP_WRITE, ended by io_uring. */

#define CTX_WRITE_DATA	1

/* The knobs of a run that would last max_run_ms (120 s) if nothing ended it. */
static const char * const ctx_long_run[] = {
	"direction=memcpy", "variant=native", "size=1048576", "cache=hot", "loops=1",
	"samples=100000", "max_run_ms=120000", "cpu=-1", NULL,
};

/* Submit the write of "1" to run; the run seen in progress. */
static void ctx_uring_start_run(struct __test_metadata *_metadata, struct cb_uring *u, int *fd)
{
	static const char one[] = "1";
	struct io_uring_sqe sqe = { .opcode = IORING_OP_WRITE };
	int ret;

	ctx_set(_metadata, ctx_long_run);
	ret = cb_uring_init(u);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	*fd = open(CB_PATH("run"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, *fd);
	sqe.fd = *fd;
	sqe.addr = (unsigned long)one;
	sqe.len = 1;
	sqe.user_data = CTX_WRITE_DATA;
	ASSERT_EQ(0, cb_uring_submit(u, &sqe, false));
	ASSERT_EQ(0, cb_wait_run_started(0, 60, NULL)) TH_LOG("the run was never seen in progress");
}

/* The knobs free again: the run over, within timeout seconds. */
static bool ctx_run_over(double timeout)
{
	double end = cb_now() + timeout;

	do {
		if (cb_write("samples", "2") != -EBUSY)
			return true;
		usleep(10000);
	} while (cb_now() < end);
	return false;
}

/*
 * 1a. Closing the ring while the write runs: the teardown cancels it, the
 * run ends, and the kernel warns of nothing (a run the teardown did not
 * cancel would run on to max_run_ms, and io_ring_exit_work() would warn).
 */
TEST_F_TIMEOUT(ctx, closing_the_ring_ends_a_run_started_through_it, 600)
{
	struct cb_uring u;
	double end;
	bool over;
	int fd;

	ctx_uring_start_run(_metadata, &u, &fd);
	cb_uring_exit(&u);
	close(fd);
	/*
	 * last_error first: a knob write refused while the run ends (its
	 * knobs are free a moment after its sentence) would replace it.
	 */
	end = cb_now() + CTX_BOUND_S;
	while (!strstr(cb_last_error(), "io_uring cancelled the run") && cb_now() < end)
		usleep(10000);
	EXPECT_NE(NULL, strstr(cb_last_error(), "io_uring cancelled the run"))
		TH_LOG("%s", cb_last_error());
	over = ctx_run_over(CTX_BOUND_S);
	EXPECT_TRUE(over) TH_LOG("the run went on after its ring was closed");
	if (!over)
		ctx_run_over(300);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/* The stopper of 1b: the test process stopped for 300 ms, then continued. */
static int ctx_stop_parent(void *unused)
{
	pid_t parent = getppid();

	if (kill(parent, SIGSTOP))
		return 1;
	usleep(300000);
	return kill(parent, SIGCONT) ? 2 : 0;
}

/*
 * 1b. The process stopped and continued while its io-wq worker runs: the
 * stop ends the run as a signal does, and io_uring completes the request
 * with EINTR rather than restart it (io_fixup_restart_res()); last_error
 * says so and what to do, not that the write starts the run again.
 */
TEST_F_TIMEOUT(ctx, a_stop_ends_an_io_uring_run_with_eintr_and_says_so, 600)
{
	int fd, res = 1, status;
	struct cb_uring u;
	uint64_t data = 0;
	pid_t stopper;

	ctx_uring_start_run(_metadata, &u, &fd);
	stopper = cb_child(ctx_stop_parent, NULL);
	ASSERT_LT(0, stopper);
	status = cb_wait_child(stopper, CTX_BOUND_S);
	EXPECT_EQ(0, cb_exit_code(status));
	EXPECT_EQ(0, cb_uring_reap(&u, CTX_BOUND_S, &data, &res))
		TH_LOG("no completion after the stop and the continue");
	TH_LOG("the write: %d (%s); %s", res, res < 0 ? strerror(-res) : "-", cb_last_error());
	EXPECT_EQ((uint64_t)CTX_WRITE_DATA, data);
	EXPECT_EQ(-EINTR, res);
	EXPECT_TRUE(ctx_run_over(CTX_BOUND_S));
	EXPECT_NE(NULL, strstr(cb_last_error(), "through io_uring, which completes it with EINTR"))
		TH_LOG("%s", cb_last_error());
	cb_uring_exit(&u);
	close(fd);
	ctx_run_over(300);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/* ---------------------------------------------------------------------- */
/* 2. Refusals that say what happened. */

static void ctx_user_run_knobs(struct __test_metadata *_metadata, const char *direction)
{
	const char * const knobs[] = {
		"variant=movsb", "size=65536", "cache=hot", "loops=1", "samples=2",
		"max_run_ms=60000", "cpu=-1", NULL,
	};

	ctx_set(_metadata, knobs);
	ASSERT_EQ(0, cb_write("direction", direction));
}

/*
 * 2a. A protection key on the buffer that denies the copy's access (writes
 * for to_user, all access for from_user): EACCES, and a reason that names
 * the key, not memory.
 */
TEST_F_TIMEOUT(ctx, a_protection_key_denial_is_eacces_with_its_reason, 300)
{
	static const struct { const char *dir; unsigned int rights; } cases[] = {
		{ "to_user", PKEY_DISABLE_WRITE },
		{ "from_user", PKEY_DISABLE_ACCESS },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned char *buf = cb_buffer_map(65536);
		int pkey, ret;

		ASSERT_NE(MAP_FAILED, buf) TH_LOG("%s", strerror(errno));
		ctx_user_run_knobs(_metadata, cases[i].dir);
		pkey = pkey_alloc(0, cases[i].rights);
		ASSERT_LE(0, pkey) TH_LOG("pkey_alloc: %s (no protection keys here?)",
					  strerror(errno));
		ASSERT_EQ(0, pkey_mprotect(buf, 65536, PROT_READ | PROT_WRITE, pkey));
		ret = cb_write("run", "1");
		EXPECT_EQ(-EACCES, ret) TH_LOG("%s: %s; %s", cases[i].dir, strerror(-ret),
					       cb_last_error());
		EXPECT_NE(NULL, strstr(cb_last_error(), "protection key")) TH_LOG("%s", cb_last_error());
		EXPECT_EQ(NULL, strstr(cb_last_error(), "memory")) TH_LOG("%s", cb_last_error());
		/* The key allows again: the same buffer runs. */
		ASSERT_EQ(0, pkey_set(pkey, 0));
		ret = cb_write("run", "1");
		EXPECT_EQ(0, ret) TH_LOG("%s with the key allowing: %s", cases[i].dir,
					 cb_last_error());
		munmap(buf, 65536);
		pkey_free(pkey);
	}
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

struct ctx_mprotect_arg {
	unsigned char *buf;
	int ret;
};

static void *ctx_run_thread(void *p)
{
	struct ctx_mprotect_arg *a = p;

	a->ret = cb_write("run", "1");
	return NULL;
}

/*
 * 2b. The buffer loses PROT_WRITE during a to_user run (another thread's
 * mprotect()): EFAULT and a reason that says so; a PROT_NONE buffer before
 * the run: EINVAL, "mapped without PROT_WRITE". Neither is a key's EACCES
 * nor memory's ENOMEM.
 */
TEST_F_TIMEOUT(ctx, a_buffer_made_read_only_or_prot_none_says_so, 300)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "size=65536", "cache=cold", "loops=1",
		"samples=100000", "max_run_ms=120000", "cpu=-1", NULL,
	};
	struct ctx_mprotect_arg a = { 0 };
	pthread_t th;

	ctx_set(_metadata, knobs);
	a.buf = cb_buffer_map(65536);
	ASSERT_NE(MAP_FAILED, a.buf) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pthread_create(&th, NULL, ctx_run_thread, &a));
	ASSERT_EQ(0, cb_wait_run_started(0, 60, NULL));
	EXPECT_EQ(0, cb_wait_measuring(getpid(), 65536, 60));
	ASSERT_EQ(0, mprotect(a.buf, 65536, PROT_READ));
	pthread_join(th, NULL);
	EXPECT_EQ(-EFAULT, a.ret) TH_LOG("%s", cb_last_error());
	EXPECT_NE(NULL, strstr(cb_last_error(), "lost PROT_WRITE")) TH_LOG("%s", cb_last_error());

	ASSERT_EQ(0, mprotect(a.buf, 65536, PROT_NONE));
	ASSERT_EQ(0, cb_write("samples", "2"));
	EXPECT_EQ(-EINVAL, cb_write("run", "1"));
	EXPECT_NE(NULL, strstr(cb_last_error(), "without PROT_WRITE")) TH_LOG("%s", cb_last_error());
	munmap(a.buf, 65536);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/* ---------------------------------------------------------------------- */
/* 3. Beside a storm of mmap() calls, a run still gets the lock. */

/* Storm threads: $COPYBENCH_STORM_THREADS (0 to measure a run alone), default 2. */
#define CTX_STORM_MAX		8

static int ctx_storm_threads = 2;
static int ctx_storm_stop;	/* __atomic, in the writer */

/* mmap() and munmap() of 4 KiB in a loop: the lock taken for writing, again and again. */
static void *ctx_storm_thread(void *unused)
{
	void *m;

	while (!__atomic_load_n(&ctx_storm_stop, __ATOMIC_ACQUIRE)) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, 4096);
	}
	return NULL;
}

/* The writer of 3: pinned to *cpu or not (NULL), its storm threads on any CPU; the run's errno. */
static int ctx_storm_writer(void *cpu)
{
	pthread_t th[CTX_STORM_MAX];
	int ret, i;

	if (cpu)
		ctx_pin(0, *(int *)cpu);
	ret = cb_buffer_ready();
	if (ret)
		return -ret;
	for (i = 0; i < ctx_storm_threads; i++)
		if (pthread_create(&th[i], NULL, ctx_storm_thread, NULL))
			return 100;
	ret = -cb_write("run", "1");
	__atomic_store_n(&ctx_storm_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < ctx_storm_threads; i++)
		pthread_join(th[i], NULL);
	return ret;
}

/*
 * 3. A writer, pinned to the run's CPU (the last one) and not, whose
 * other threads map and unmap in a loop: the run gets the lock often
 * enough to take all its samples well within max_run_ms (a read trylock
 * fails while a writer of the lock is queued, so tries alone could
 * starve). Its run_ms is logged: the cost of trying rather than queueing
 * (Documentation/copybench.rst, "Waits for the mmap lock").
 */
TEST_F_TIMEOUT(ctx, a_run_beside_an_mmap_storm_takes_all_its_samples, 900)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "size=65536", "cache=hot", "loops=1",
		"samples=3000", "max_run_ms=120000", NULL,
	};
	int status, pinned, last_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	char why[256], cpu[16];
	struct cb_res r;
	pid_t pid;

	ctx_storm_threads = cb_env_ll("COPYBENCH_STORM_THREADS", 2);
	ASSERT_TRUE(ctx_storm_threads >= 0 && ctx_storm_threads <= CTX_STORM_MAX);
	ctx_set(_metadata, knobs);
	for (pinned = 0; pinned < 2; pinned++) {
		snprintf(cpu, sizeof(cpu), "%d", pinned ? last_cpu : -1);
		ASSERT_EQ(0, cb_write("cpu", cpu));
		pid = cb_child(ctx_storm_writer, pinned ? &last_cpu : NULL);
		ASSERT_LT(0, pid);
		status = cb_wait_child(pid, 300);
		if (status == -1) {
			kill(pid, SIGKILL);
			status = cb_wait_child(pid, 300);
		}
		EXPECT_EQ(0, cb_exit_code(status)) TH_LOG("%s", cb_last_error());
		if (cb_exit_code(status))
			continue;
		ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
		EXPECT_STREQ("0", cb_res_get(&r, "truncated"));
		ksft_print_msg("%s writer beside %d mmap() storm threads: run_ms %s, samples %s\n",
			       pinned ? "pinned" : "unpinned", ctx_storm_threads,
			       cb_res_get(&r, "run_ms"), cb_res_get(&r, "samples"));
	}
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

TEST_HARNESS_MAIN
