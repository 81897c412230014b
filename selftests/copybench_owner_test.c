// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_owner_test.c - the writer owns its context and its buffer. A
 * run happens in its writer's own context and copies to or from a buffer
 * the writer mapped itself, so: an OOM group kill of the writer's cgroup
 * leaves no OOM victim behind and suspend keeps working; task_work neither
 * ends nor blocks a run (how signals, stops and freezers end one is
 * copybench_end_test.c's matrix); the module never unmaps anything in a
 * process nor leaves a mapping there (MAP_FIXED under mmap_lock
 * contention, fork() after MADV_DOFORK, mseal());
 * last_error numbers pids in the reader's pid namespace. Each test fails on
 * a module that runs in a kernel thread of its own and maps a buffer of its
 * own in the writer for each run: the buffer tests find such a mapping
 * ("anon_inode:[copybench]") to show what it breaks.
 *
 * Needs root, copybench.ko loaded, debugfs, cgroup v2 (mounted when
 * absent), io_uring, /sys/power/pm_test (CONFIG_PM_DEBUG), and mseal()
 * (6.10+) for one test: selftests/vm-tests/copybench_owner.sh leaves a test
 * out of a kernel's plan, and says why, when the kernel lacks what it
 * needs. Meant for the VM of make check: relations are asserted, never a
 * time.
 *
 *	./copybench_owner_test
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define MiB		(1024UL * 1024)
#define CB_OLD_MAPPING	"anon_inode:[copybench]"
#ifndef __NR_mseal
#define __NR_mseal	462
#endif

FIXTURE(owner) {
	struct cb_saved saved;
	char cg[256];		/* a cgroup the test made, removed at teardown */
	pid_t child[2];		/* children still to reap at teardown */
	int kmsg;		/* the kernel log from the test's start */
};

FIXTURE_SETUP(owner)
{
	const char *why = cb_unavailable();

	self->cg[0] = '\0';
	self->child[0] = self->child[1] = 0;
	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	self->kmsg = cb_kmsg_open();
	ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(owner)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->child[i] > 0) {
			kill(self->child[i], SIGKILL);
			waitpid(self->child[i], NULL, 0);
		}
	if (self->cg[0]) {
		cb_cgroup_write(self->cg, "cgroup.freeze", "0");
		cb_cgroup_remove(self->cg);
	}
	cb_file_write("/sys/power/pm_test", "none", 4);
	cb_restore(&self->saved);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

/* Knobs from name=value pairs, NULL-terminated (cb_write_knobs()). */
static void cb_set(struct __test_metadata *_metadata, const char * const *kv)
{
	const char *failed = NULL;
	int ret = cb_write_knobs(kv, &failed);

	ASSERT_EQ(0, ret) TH_LOG("%s: %s", failed, strerror(-ret));
}


/*
 * The start of a mapping of process pid (0: this one) whose /proc/PID/maps
 * line has what in it and, when len is not 0, is len bytes long; 0 if none.
 */
static unsigned long cb_find_mapping(pid_t pid, const char *what, unsigned long len)
{
	unsigned long a, b, found = 0;
	char path[64], line[512];
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		if (strstr(line, what) && sscanf(line, "%lx-%lx", &a, &b) == 2 &&
		    (!len || b - a == len))
			found = a;
	if (f)
		fclose(f);
	return found;
}

/* Does this module have the buffer file (round 3), or map a buffer of its own per run? */
static bool cb_module_maps_for_the_writer(void)
{
	return access(CB_PATH("buffer"), F_OK) != 0;
}

/*
 * The user side of the next to_user run of len bytes: the process's own
 * mapping of the buffer file; with an older module, none (the run maps its
 * own, which cb_user_side_of_run() finds).
 */
static unsigned char *cb_user_side(struct __test_metadata *_metadata, unsigned long len)
{
	unsigned char *buf;

	if (cb_module_maps_for_the_writer())
		return NULL;
	buf = cb_buffer_map(len);
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("mmap of the buffer file: %s", strerror(errno));
	return buf;
}

/* Where the run in progress copies to: buf, or the older module's own mapping. */
static unsigned char *cb_user_side_of_run(unsigned char *buf, unsigned long len, double timeout)
{
	double end = cb_now() + timeout;
	unsigned long a = 0;

	if (buf)
		return cb_wait_measuring(getpid(), len, timeout) ? NULL : buf;
	while (!a && cb_now() < end)
		a = cb_find_mapping(0, CB_OLD_MAPPING, len);
	return (unsigned char *)a;
}

struct cb_thread_run {
	pthread_t th;
	int ret;		/* of the write to run; 1 while it goes on */
	pid_t tid;
};

static void *cb_thread_run_fn(void *p)
{
	struct cb_thread_run *r = p;

	__atomic_store_n(&r->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	__atomic_store_n(&r->ret, cb_write("run", "1"), __ATOMIC_RELEASE);
	return NULL;
}

static int cb_thread_run_start(struct cb_thread_run *r)
{
	r->ret = 1;
	r->tid = 0;
	return pthread_create(&r->th, NULL, cb_thread_run_fn, r);
}

static bool cb_thread_run_going(struct cb_thread_run *r)
{
	return __atomic_load_n(&r->ret, __ATOMIC_ACQUIRE) == 1;
}

/* ---------------------------------------------------------------------- */
/* The OOM group kill, then suspend. */

/*
 * A child in cgroup cg that runs to_user into a buffer of 16 MiB it maps
 * (an older module maps its own); exits with the errno of the write. A
 * machine too slow for one copy of the size within the module's bound on
 * preemption (E2BIG: seen once on the debug kernel, a loaded host, 16 MiB
 * by bytes predicted above 1000 ms) runs again with half the size, down
 * to 1 MiB: the test wants the writer killed in a long copy, not any size.
 */
static int cb_oom_run_child(void *cg)
{
	unsigned long size = 16 * MiB;
	char v[32];
	int ret;

	if (cb_cgroup_enter(cg))
		return 99;
	if (!cb_module_maps_for_the_writer() && cb_buffer_map(size) == MAP_FAILED)
		return 98;
	for (;;) {
		ret = cb_write("run", "1");
		if (ret != -E2BIG || size <= MiB)
			return -ret;
		size /= 2;
		snprintf(v, sizeof(v), "%lu", size);
		ret = cb_write("size", v);
		if (ret)
			return 97;
	}
}

/* A child that allocates and touches memory until it is killed. */
static int cb_hog(void *cg)
{
	char *p;

	if (cb_cgroup_enter(cg))
		return 101;
	for (;;) {
		p = malloc(MiB);
		if (p)
			memset(p, 1, MiB);
	}
	return 0;
}

/*
 * A run in a kernel thread of its own, in the writer's memory cgroup with
 * the writer's mm borrowed (a user direction), would be killed with it by
 * an OOM group kill (memory.oom.group) and never run exit_oom_victim():
 * every later suspend would fail until reboot. The run is the writer: a run
 * of long copies (such a thread is killed in the middle of one, before it
 * can see its writer die) and a hog in a group of 96 MiB with oom.group;
 * the hog makes it OOM, both are killed; then suspend's freezer works, as
 * it did before (checked first).
 */
TEST_F_TIMEOUT(owner, an_oom_group_kill_of_the_writer_leaves_suspend_working, 600)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=bytes", "size=16777216", "cache=cold", "loops=1",
		"samples=100000", "max_run_ms=120000", NULL,
	};
	int status, ret, i;

	ret = cb_suspend_freezer_cycle();
	ASSERT_EQ(0, ret) TH_LOG("suspend's freezer fails before the test: %s", strerror(-ret));
	ret = cb_cgroup_make(self->cg, sizeof(self->cg), "cb_oom", "+memory");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	ASSERT_EQ(0, cb_cgroup_write(self->cg, "memory.max", "100663296"));
	ASSERT_EQ(0, cb_cgroup_write(self->cg, "memory.oom.group", "1"));
	cb_set(_metadata, knobs);

	self->child[0] = cb_child(cb_oom_run_child, self->cg);
	ASSERT_LE(0, self->child[0]);
	ASSERT_EQ(0, cb_wait_run_started(self->child[0], 60, &status));
	cb_file_write("/dev/kmsg", "copybench-test: an OOM report follows\n", 38);
	self->child[1] = cb_child(cb_hog, self->cg);
	ASSERT_LE(0, self->child[1]);
	for (i = 0; i < 2; i++) {
		status = cb_wait_child(self->child[i], 300);
		ASSERT_NE(-1, status) TH_LOG("child %d was not killed by the OOM group kill", i);
		self->child[i] = 0;
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("child %d: wait status 0x%x", i, status);
	}
	cb_file_write("/dev/kmsg", "copybench-test: the OOM report is over\n", 39);
	EXPECT_LE(1, cb_cgroup_read(self->cg, "memory.events", "oom_kill"));

	ret = cb_suspend_freezer_cycle();
	EXPECT_EQ(0, ret) TH_LOG("suspend's freezer fails after the OOM kill: %s (an OOM victim never exited)",
				 strerror(-ret));
}

/* ---------------------------------------------------------------------- */
/* task_work (io_uring), which sets TIF_NOTIFY_SIGNAL, not a signal. */

/* One read of len bytes from fd into buf (offset -1: a pipe), submitted, not waited for. */
static int cb_uring_submit_read(struct cb_uring *u, int fd, void *buf, unsigned int len)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_READ, .fd = fd, .addr = (unsigned long)buf, .len = len,
		.off = -1,
	};

	return cb_uring_submit(u, &sqe, false);
}

struct cb_tw_writer {
	struct cb_uring u;
	int pipe[2];
	char byte;
	pid_t tid;
	int ret;		/* of the write to run; 1 while it goes on */
	int posted;		/* the completion's result, waited for after the write */
};

/* The writer: an io_uring read of the pipe pending, then the run. */
static void *cb_tw_writer_fn(void *p)
{
	struct cb_tw_writer *w = p;
	int ret;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	ret = cb_uring_submit_read(&w->u, w->pipe[0], &w->byte, 1);
	if (!ret)
		ret = cb_write("run", "1");
	/*
	 * On 6.12 the read completed in the writer's task_work, run as the
	 * write returned; on 6.1 (pipes without FMODE_NOWAIT) an io-wq worker,
	 * which the writer's task_work creates, reads it a moment later.
	 */
	__atomic_store_n(&w->ret, ret, __ATOMIC_RELEASE);
	w->posted = syscall(__NR_io_uring_enter, w->u.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0 ?
		    -errno : cb_uring_posted(&w->u, NULL);
	return NULL;
}

/*
 * Run with knobs while an io_uring read of a pipe is pending in the
 * writer, write the pipe as soon as the run is in progress (which queues
 * the completion's task_work on the writer), and count the times the
 * writer is seen in uninterruptible sleep until the run ends; the
 * write's result in *ret.
 */
static int cb_run_with_task_work(struct __test_metadata *_metadata, const char * const *knobs,
				 int *ret)
{
	struct cb_tw_writer w = { .ret = 1 };
	int in_d = 0, seen = 0;
	pthread_t th;
	char state;
	int err;

	cb_set(_metadata, knobs);
	err = cb_uring_init(&w.u);
	ASSERT_EQ(0, err) TH_LOG("io_uring_setup: %s", strerror(-err));
	ASSERT_EQ(0, pipe(w.pipe));
	ASSERT_EQ(0, pthread_create(&th, NULL, cb_tw_writer_fn, &w));
	ASSERT_EQ(0, cb_wait_run_started(0, 60, NULL)) TH_LOG("the run was never seen in progress");
	ASSERT_EQ(1, write(w.pipe[1], "x", 1));
	while (__atomic_load_n(&w.ret, __ATOMIC_ACQUIRE) == 1) {
		state = cb_task_state(getpid(), __atomic_load_n(&w.tid, __ATOMIC_ACQUIRE));
		in_d += state == 'D';
		seen++;
		sched_yield();
	}
	pthread_join(th, NULL);
	TH_LOG("the writer's state, sampled %d times after the task_work was queued: D %d times",
	       seen, in_d);
	EXPECT_EQ(1, w.posted) TH_LOG("the io_uring read: %d", w.posted);
	EXPECT_EQ('x', w.byte);
	cb_uring_exit(&w.u);
	close(w.pipe[0]);
	close(w.pipe[1]);
	*ret = w.ret;
	return in_d;
}

/*
 * An io_uring completion (task_work, TIF_NOTIFY_SIGNAL) is not a signal: it
 * must neither end a run with a false EINTR during its preparation nor,
 * during its measurement, leave the writer in uninterruptible sleep for the
 * rest of the run. A run whose preparation fills 64 MiB, and a run of up to
 * 4 s of samples, each with the completion queued as soon as the run is in
 * progress, end with their results, the writer never in D state, and the
 * read completes.
 */
TEST_F_TIMEOUT(owner, task_work_neither_ends_nor_blocks_a_run, 600)
{
	static const char * const long_fill[] = {
		"direction=memcpy", "variant=native", "size=33554432", "cache=cold",
		"loops=1", "samples=1", NULL,
	};
	static const char * const long_samples[] = {
		"direction=memcpy", "variant=native", "size=4096", "cache=hot", "loops=1",
		"samples=100000", "max_run_ms=4000", NULL,
	};
	struct cb_res r;
	char why[256];
	int ret, in_d;

	in_d = cb_run_with_task_work(_metadata, long_fill, &ret);
	EXPECT_EQ(0, ret) TH_LOG("a 32 MiB run with task_work queued: %s", cb_last_error());
	EXPECT_EQ(0, in_d);
	in_d = cb_run_with_task_work(_metadata, long_samples, &ret);
	EXPECT_EQ(0, ret) TH_LOG("a 4 s run with task_work queued: %s", cb_last_error());
	EXPECT_EQ(0, in_d) TH_LOG("the writer slept uninterruptibly during the run");
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/* ---------------------------------------------------------------------- */
/* MAP_FIXED over the buffer, with the mmap lock contended. */

struct cb_contention {
	unsigned char *region;
	size_t len;
	bool stop;		/* __atomic */
};

/*
 * Hold the mmap lock for writing nearly all the time, in long stretches:
 * mprotect() back and forth over a big region populated with small pages,
 * every one of whose page table entries each call rewrites.
 */
static void *cb_contention_fn(void *p)
{
	struct cb_contention *c = p;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		mprotect(c->region, c->len, PROT_READ);
		mprotect(c->region, c->len, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

/*
 * The thread's memory: a memfd of len 0x5a bytes, so that mapping it is
 * the whole of its work (a store right after mmap() would fault on the old
 * module, which unmapped it).
 */
static int cb_owner_memfd(struct __test_metadata *_metadata, unsigned long len)
{
	unsigned char *p;
	int mfd;

	mfd = memfd_create("cb_owner", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, len));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x5a, len);
	munmap(p, len);
	return mfd;
}

/* Bytes of the thread's mapping p (len bytes of mfd) not 0x5a: all when msync() fails. */
static unsigned long cb_owner_lost(const unsigned char *p, unsigned long len)
{
	unsigned long i, bad = 0;

	if (msync((void *)p, len, MS_SYNC))
		return len;
	for (i = 0; i < len; i++)
		bad += p[i] != 0x5a;
	return bad;
}

/*
 * One try: a run started, mfd mapped over its buffer as soon as the
 * results file (fd) changes, while c holds the mmap lock. Returns whether
 * the mapping lost bytes; *early counts a mapping before the run's write
 * returned.
 */
static bool cb_owner_try(struct __test_metadata *_metadata, int try, int fd, int mfd,
			 unsigned long len, struct cb_contention *c, int *early)
{
	char before[8192], now[8192];
	unsigned char *buf, *at, *p;
	struct cb_thread_run run;
	unsigned long bad;
	pthread_t cth;

	buf = cb_user_side(_metadata, len);
	memset(before, 0, sizeof(before));
	ASSERT_LE(0, pread(fd, before, sizeof(before) - 1, 0));
	ASSERT_EQ(0, cb_thread_run_start(&run));
	at = cb_user_side_of_run(buf, len, 60);
	ASSERT_NE(NULL, at) TH_LOG("try %d: the run's buffer was not found", try);
	__atomic_store_n(&c->stop, false, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_create(&cth, NULL, cb_contention_fn, c));
	/* The results are out: the run's copies are over. */
	do {
		memset(now, 0, sizeof(now));
		if (pread(fd, now, sizeof(now) - 1, 0) < 0)
			break;
	} while (!strcmp(before, now) && cb_thread_run_going(&run));
	*early += cb_thread_run_going(&run);
	p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED, mfd, 0);
	ASSERT_EQ(at, p);
	pthread_join(run.th, NULL);
	__atomic_store_n(&c->stop, true, __ATOMIC_RELAXED);
	pthread_join(cth, NULL);
	EXPECT_EQ(0, run.ret) TH_LOG("try %d: %s", try, cb_last_error());
	bad = cb_owner_lost(p, len);
	if (bad)
		TH_LOG("try %d: %lu bytes of the thread's mapping lost or changed", try, bad);
	munmap(p, len);
	return bad != 0;
}

/*
 * The module never unmaps anything: a run that checked, after its last copy
 * and under the mmap lock, that the mapping at its buffer's address was
 * still its own, then dropped the lock and unmapped the address, would let
 * a MAP_FIXED mmap() queued on the mmap lock (another thread holding it
 * with big mprotect() calls) get in between and lose its memory (7 of 10
 * tries on 6.1). Ten times, a thread maps its own memory over the buffer as
 * soon as the run's results are out, while another thread holds the mmap
 * lock for long stretches, and that memory stays, whole.
 */
TEST_F_TIMEOUT(owner, a_mapping_put_over_the_buffer_survives_the_run, 900)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=native", "cache=hot", "loops=1",
		"samples=5", "max_run_ms=20000", NULL,
	};
	const unsigned long len = 3 * MiB + 20480;	/* a length no other mapping has */
	struct cb_contention c = { .len = 512 * MiB };
	int try, lost = 0, early = 0, fd, mfd;

	cb_set(_metadata, knobs);
	ASSERT_EQ(0, cb_writeu("size", len));
	c.region = mmap(NULL, c.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c.region);
	madvise(c.region, c.len, MADV_NOHUGEPAGE);
	memset(c.region, 1, c.len);
	fd = open(CB_PATH("results"), O_RDONLY);
	ASSERT_LE(0, fd);
	mfd = cb_owner_memfd(_metadata, len);
	for (try = 0; try < 10; try++)
		lost += cb_owner_try(_metadata, try, fd, mfd, len, &c, &early);
	close(mfd);
	TH_LOG("10 tries: %d lost the thread's mapping; in %d the mmap() came before the write returned",
	       lost, early);
	EXPECT_EQ(0, lost);
	close(fd);
	munmap(c.region, c.len);
}

/* ---------------------------------------------------------------------- */
/* fork() after MADV_DOFORK, and mseal(). */

/* A child that waits for a byte on fd, holding what fork() gave it. */
static pid_t cb_fork_holder(int fd)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		if (read(fd, &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

static long long cb_module_refcnt(void)
{
	return cb_file_ll("/sys/module/copybench/refcnt");
}

/*
 * A mapping of the module's own would not survive MADV_DOFORK: it clears
 * the mapping's VM_DONTCOPY, and a fork() during the run gives the child
 * the run's pages, which it keeps after the run, rmmod saying "in use"
 * until it dies. The only mapping is the process's own buffer, which its
 * child may share as it asked: after the run the child holds no mapping the
 * module made, the run is verified, and once the child is gone and the
 * buffer unmapped the module is pinned by nothing more than before.
 */
TEST_F_TIMEOUT(owner, fork_after_madv_dofork_leaves_no_mapping_of_the_module, 600)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "cache=hot", "loops=1",
		"samples=100000", "max_run_ms=2000", NULL,
	};
	const unsigned long len = 2 * MiB + 28672;
	long long refcnt = cb_module_refcnt();
	struct cb_thread_run run;
	unsigned char *buf, *at;
	int hold[2], status;
	struct cb_res r;
	char why[256];

	cb_set(_metadata, knobs);
	ASSERT_EQ(0, cb_writeu("size", len));
	ASSERT_EQ(0, pipe(hold));
	buf = cb_user_side(_metadata, len);
	ASSERT_EQ(0, cb_thread_run_start(&run));
	at = cb_user_side_of_run(buf, len, 60);
	ASSERT_NE(NULL, at) TH_LOG("the run's buffer was not found");
	EXPECT_EQ(0, madvise(at, len, MADV_DOFORK)) TH_LOG("%s", strerror(errno));
	self->child[0] = cb_fork_holder(hold[0]);
	ASSERT_LE(0, self->child[0]);
	pthread_join(run.th, NULL);
	EXPECT_EQ(0, run.ret) TH_LOG("%s", cb_last_error());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));

	EXPECT_EQ(0UL, cb_find_mapping(self->child[0], CB_OLD_MAPPING, 0))
		TH_LOG("the child holds a mapping the module made for the run");
	EXPECT_EQ(0UL, cb_find_mapping(0, CB_OLD_MAPPING, 0))
		TH_LOG("the writer holds a mapping the module made for the run");
	ASSERT_EQ(1, write(hold[1], "x", 1));
	status = cb_wait_child(self->child[0], 60);
	ASSERT_NE(-1, status);
	self->child[0] = 0;
	if (buf)
		munmap(buf, len);
	EXPECT_EQ(refcnt, cb_module_refcnt());
}

static int cb_mseal(void *addr, size_t len)
{
	return syscall(__NR_mseal, addr, len, 0) ? -errno : 0;
}

/*
 * 6.10+: a thread may mseal() the buffer during the run. Were it a mapping
 * of the module's own, the run's final munmap() would fail with EPERM and
 * the mapping stay for the life of the process. The buffer sealed is the
 * process's own, which stays as the process asked: the run is verified, a
 * second run on the sealed buffer too, and no mapping of the module's own
 * is left.
 */
TEST_F_TIMEOUT(owner, mseal_leaves_no_mapping_of_the_module, 600)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=native", "cache=hot", "loops=1",
		"samples=100000", "max_run_ms=2000", NULL,
	};
	const unsigned long len = 2 * MiB + 36864;
	struct cb_thread_run run;
	unsigned char *buf, *at;
	struct cb_res r;
	char why[256];
	int ret;

	cb_set(_metadata, knobs);
	ASSERT_EQ(0, cb_writeu("size", len));
	buf = cb_user_side(_metadata, len);
	ASSERT_EQ(0, cb_thread_run_start(&run));
	at = cb_user_side_of_run(buf, len, 60);
	ASSERT_NE(NULL, at) TH_LOG("the run's buffer was not found");
	ret = cb_mseal(at, len);
	ASSERT_EQ(0, ret) TH_LOG("mseal: %s", strerror(-ret));
	pthread_join(run.th, NULL);
	EXPECT_EQ(0, run.ret) TH_LOG("%s", cb_last_error());
	EXPECT_EQ(0UL, cb_find_mapping(0, CB_OLD_MAPPING, 0))
		TH_LOG("a mapping the module made for the run is left in the writer");
	ASSERT_EQ(0, cb_write("max_run_ms", "300"));
	EXPECT_EQ(0, cb_write("run", "1")) TH_LOG("a run on the sealed buffer: %s", cb_last_error());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
	if (buf)
		EXPECT_EQ(-1, munmap(buf, len));	/* sealed, by the process */
}

/* ---------------------------------------------------------------------- */
/* last_error's pids, in the reader's pid namespace. */

/* The "(pid ...)" part at the end of last_error, or "". */
static const char *cb_last_error_pid(char *buf, size_t len)
{
	const char *line = cb_last_error(), *p = strrchr(line, '(');

	snprintf(buf, len, "%s", p ? p : "");
	return buf;
}

/*
 * In a new pid namespace, a child (pid 1 there) is refused a bad size and
 * reads last_error; then the parent is refused one and the child reads it
 * again. The child's parent, outside the namespace, reports the child's
 * pid as fork() gave it; the child reports what it read; all on fds[1].
 */
static int cb_pidns_child(void *p)
{
	int *fds = p;
	char own[64], other[64], c;
	int status, go[2];
	pid_t pid;

	if (unshare(CLONE_NEWPID) || pipe(go))
		return 101;
	pid = fork();
	if (pid < 0)
		return 102;
	if (pid) {
		/* The pid first on fds[1], then the child may write there. */
		if (write(fds[1], &pid, sizeof(pid)) != sizeof(pid) || write(go[1], "x", 1) != 1)
			return 103;
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 104;
	}
	if (read(go[0], &c, 1) != 1)
		_exit(108);
	if (cb_write("size", "bad-in-a-pid-namespace") != -EINVAL)
		_exit(105);
	cb_last_error_pid(own, sizeof(own));
	if (write(fds[1], own, sizeof(own)) != sizeof(own) || read(fds[2], &c, 1) != 1)
		_exit(106);
	cb_last_error_pid(other, sizeof(other));
	if (write(fds[1], other, sizeof(other)) != sizeof(other))
		_exit(107);
	_exit(0);
}

/*
 * last_error prints a pid as the reader's namespace numbers it, not the
 * global pid: the child, pid 1 in its namespace, reads "(pid 1)" for its
 * own refusal, which the parent reads with the child's pid in its own
 * namespace; the parent's refusal reads as a pid outside the child's
 * namespace.
 */
TEST_F_TIMEOUT(owner, last_error_gives_pids_as_the_reader_sees_them, 120)
{
	char own[64], other[64], mine[64], want[64];
	int up[2], down[2], fds[3], status;
	pid_t inner;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	fds[0] = up[0];
	fds[1] = up[1];
	fds[2] = down[0];
	self->child[0] = cb_child(cb_pidns_child, fds);
	ASSERT_LE(0, self->child[0]);
	ASSERT_EQ((ssize_t)sizeof(inner), read(up[0], &inner, sizeof(inner)));
	ASSERT_EQ((ssize_t)sizeof(own), read(up[0], own, sizeof(own)));
	cb_last_error_pid(mine, sizeof(mine));
	ASSERT_EQ(-EINVAL, cb_write("size", "bad-in-the-parent"));
	ASSERT_EQ(1, write(down[1], "x", 1));
	ASSERT_EQ((ssize_t)sizeof(other), read(up[0], other, sizeof(other)));
	status = cb_wait_child(self->child[0], 60);
	ASSERT_NE(-1, status);
	self->child[0] = 0;
	EXPECT_EQ(0, cb_exit_code(status));

	EXPECT_STREQ("(pid 1)", own) TH_LOG("the child read its own refusal as %s", own);
	snprintf(want, sizeof(want), "(pid %d)", (int)inner);
	EXPECT_STREQ(want, mine) TH_LOG("the parent read the child's refusal as %s", mine);
	EXPECT_STREQ("(pid outside this pid namespace)", other)
		TH_LOG("the child read the parent's refusal as %s", other);
}

TEST_HARNESS_MAIN
