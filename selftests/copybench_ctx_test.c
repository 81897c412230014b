// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_ctx_test.c - a run never sleeps holding its CPU, io_uring can
 * cancel it, and a refused buffer says why.
 *
 * 1. Another thread of the writer holds its mmap lock for reading through a
 *    GUP that cannot finish (a read of /proc/self/mem at a page of a FUSE
 *    file whose server, this test, does not answer) and a third queues an
 *    mmap() behind it. The run's next window cannot take the lock. CPU 1
 *    going offline, or the writer's affinity set to CPU 0, must complete
 *    while the server still stalls, and the run end with ENODEV or EINVAL.
 *    A run that slept for the lock with migration disabled would hold both
 *    for as long as the server stalls (here, until the test gives up and
 *    answers).
 * 2. A write of 1 to run through IORING_OP_WRITE runs in an io-wq worker:
 *    IORING_OP_ASYNC_CANCEL, and closing the ring, end it with ECANCELED; a
 *    stop ends it with EINTR, which io_uring does not restart. A run they
 *    did not end would run on to max_run_ms, and the ring's teardown would
 *    warn.
 * 3. A protection key that denies the access is EACCES, with its reason; a
 *    buffer that loses PROT_WRITE during a run is EFAULT, with its own:
 *    never ENOMEM, "no memory", which names no cause the user can act on.
 * 4. With the same hold on the lock (HOLD), no wait of a run for the lock
 *    outlasts what the contract names: an io_uring run waiting in its
 *    preparation completes on ASYNC_CANCEL; a run faulting its buffer in (a
 *    thread zaps a page of it in a loop) and a pinned writer's run waiting
 *    before its window end on SIGUSR1, SIGSTOP, the cgroup freezer,
 *    max_run_ms, its CPU going offline (ENODEV), an affinity that leaves
 *    its CPU out (EINVAL), a handler with SA_RESTART (it runs; the write
 *    starts the run again) and SIGKILL (its thread dead, the HOLD thread
 *    still in FUSE's D until the server answers). A run asleep in the
 *    lock's queue there (mmap_read_lock(), uninterruptible, in the
 *    fault-in; killable elsewhere) would wait for the holder's release
 *    whatever came.
 * 5. Beside a storm of mmap() calls in its writer's other threads, a run,
 *    its writer pinned or not, takes all its samples: tries of the lock
 *    must not starve. Its run_ms is printed, the cost of trying rather
 *    than queueing ($COPYBENCH_STORM_THREADS threads, default 2; 0 for a
 *    run alone).
 *
 * Needs root, copybench.ko loaded, two CPUs (1; 4 and 5 use the last CPU,
 * one will do), FUSE (/dev/fuse) (1, 4), io_uring (2, 4), protection keys
 * (3), cgroup v2 (4). Relations are asserted, never a time: the bounds
 * below only end a wait a working module never reaches.
 *
 *	./copybench_ctx_test
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
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
	int offline_cpu;	/* a CPU the test took offline, put back at teardown */
};

FIXTURE_SETUP(ctx)
{
	const char *why = cb_unavailable();

	self->offline_cpu = -1;
	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(ctx)
{
	if (self->offline_cpu >= 0)
		cb_cpu_online(self->offline_cpu, true);
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

static pid_t ctx_gettid(void)
{
	return syscall(SYS_gettid);
}

/* ---------------------------------------------------------------------- */
/* 1. A FUSE server that answers everything but READ, which it holds. */

#define CTX_FUSE_FILE	"f"
#define CTX_FUSE_SIZE	65536

struct ctx_fuse {
	char dir[64];
	int fd;			/* /dev/fuse */
	pid_t server;
	int held[2];		/* server -> test: a READ is held */
	int answer[2];		/* test -> server: answer it now */
};

static void ctx_fuse_reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *out = (void *)buf;

	out->len = sizeof(*out) + len;
	out->error = error;
	out->unique = unique;
	memcpy(buf + sizeof(*out), arg, len);
	if (write(fd, buf, out->len) < 0)
		_exit(10);
}

static void ctx_fuse_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = 1;
	a->size = node == FUSE_ROOT_ID ? 0 : CTX_FUSE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

/*
 * The server: one request at a time. The first READ waits for a byte on
 * answer[0]; every one after it (readahead) is answered at once.
 */
static int ctx_fuse_serve(struct ctx_fuse *f)
{
	static char in[FUSE_MIN_READ_BUFFER + 65536], zeros[65536];
	struct fuse_in_header *h = (void *)in;
	bool released = false;

	for (;;) {
		ssize_t n = read(f->fd, in, sizeof(in));
		void *arg = in + sizeof(*h);
		char c;

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*h))
			return 0;	/* unmounted, aborted */
		switch (h->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *i = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = i->minor < FUSE_KERNEL_MINOR_VERSION ?
					 i->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = i->max_readahead,
				.max_write = 4096,
				.max_background = 4,
				.congestion_threshold = 4,
				.time_gran = 1,
			};

			ctx_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .nodeid = 2, .generation = 1,
						    .entry_valid = 3600, .attr_valid = 3600 };

			if (strcmp(arg, CTX_FUSE_FILE)) {
				ctx_fuse_reply(f->fd, h->unique, -ENOENT, NULL, 0);
				break;
			}
			ctx_fuse_attr(&o.attr, 2);
			ctx_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 3600 };

			ctx_fuse_attr(&o.attr, h->nodeid);
			ctx_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			ctx_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *r = arg;
			char buf[sizeof(struct fuse_out_header) + sizeof(zeros)];
			struct fuse_out_header *out = (void *)buf;
			size_t len = r->size < sizeof(zeros) ? r->size : sizeof(zeros);

			if (!released && (write(f->held[1], "r", 1) != 1 ||
					  read(f->answer[0], &c, 1) != 1))
				return 11;
			released = true;
			out->len = sizeof(*out) + len;
			out->error = 0;
			out->unique = h->unique;
			memset(buf + sizeof(*out), 0, len);
			if (write(f->fd, buf, out->len) < 0)
				return 12;
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			ctx_fuse_reply(f->fd, h->unique, 0, NULL, 0);
			break;
		default:
			ctx_fuse_reply(f->fd, h->unique, -EOPNOTSUPP, NULL, 0);
			break;
		}
	}
}

/* Mount it at a new directory, its server a child; 0 or -errno. */
static int ctx_fuse_start(struct ctx_fuse *f)
{
	char opts[128];

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/cbctx.XXXXXX");
	if (!mkdtemp(f->dir))
		return -errno;
	f->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", f->fd);
	if (mount("copybench-ctx", f->dir, "fuse", MS_NOSUID | MS_NODEV, opts))
		return -errno;
	if (pipe(f->held) || pipe(f->answer))
		return -errno;
	f->server = fork();
	if (f->server < 0)
		return -errno;
	if (!f->server)
		_exit(ctx_fuse_serve(f));
	return 0;
}

/* The held READ answered, and every READ after it. */
static void ctx_fuse_release(struct ctx_fuse *f)
{
	if (f->answer[1] > 0 && write(f->answer[1], "g", 1) != 1)
		perror("copybench_ctx_test: the FUSE server's pipe");
	f->answer[1] = -1;
}

/* Release the server, unmount, reap it. */
static void ctx_fuse_stop(struct ctx_fuse *f)
{
	ctx_fuse_release(f);
	if (f->dir[0]) {
		umount2(f->dir, MNT_DETACH);
		rmdir(f->dir);
		f->dir[0] = '\0';
	}
	if (f->server > 0) {
		kill(f->server, SIGKILL);
		waitpid(f->server, NULL, 0);
		f->server = 0;
	}
	if (f->fd > 0)
		close(f->fd);
	f->fd = -1;
}

/*
 * The writer, a child process: its main thread runs (pinned to CPU 1, a
 * long cold to_user run); on the parent's word, a thread of it (CPU 0)
 * maps the FUSE file and reads it through /proc/self/mem (a GUP that holds
 * the mmap lock until the server answers), and once the server holds that
 * READ another thread calls mmap(), a writer of the lock queued behind it.
 * It exits with the run's errno.
 */
struct ctx_writer {
	char path[96];		/* the FUSE file */
	int fuse_fd;		/* /dev/fuse, closed in the writer */
	int go[2];		/* parent -> writer: start the GUP */
	int held;		/* the server's held[0] */
	pid_t mmap_tid;		/* __atomic */
	int queued;		/* __atomic: the test saw mmap_tid queued */
	/* 4: the writers of the HOLD tests */
	char cg[256];		/* a cgroup the writer joins first, or "" */
	size_t size;		/* the buffer it maps */
	int cpu;		/* the run's CPU, the writer pinned to it */
	bool zap;		/* a thread zaps the buffer's last page in a loop */
	int zap_go[2];		/* parent -> writer: start zapping */
	int submit[2];		/* parent -> writer: submit the io_uring write */
	int run_err;		/* the run's errno, once run_done */
	int run_done;		/* __atomic */
	int usr2_seen;		/* __atomic: SIGUSR2's handler (SA_RESTART) ran */
};

static struct ctx_writer *ctx_w;	/* shared with the writer (MAP_SHARED) */

static void *ctx_gup_thread(void *p)
{
	int fd = open(ctx_w->path, O_RDONLY | O_CLOEXEC), mem;
	char *map, byte;

	ctx_pin(0, 0);
	if (fd < 0)
		return NULL;
	map = mmap(NULL, CTX_FUSE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (map == MAP_FAILED || mem < 0)
		return NULL;
	/* GUP with the mmap lock held, until the server answers the READ. */
	if (pread(mem, &byte, 1, (off_t)(unsigned long)map) != 1)
		return NULL;
	return NULL;
}

static void *ctx_queue_thread(void *p)
{
	pthread_t gup;
	char c;

	ctx_pin(0, 0);
	if (read(ctx_w->go[0], &c, 1) != 1 || pthread_create(&gup, NULL, ctx_gup_thread, NULL))
		return NULL;
	if (read(ctx_w->held, &c, 1) != 1)
		return NULL;
	__atomic_store_n(&ctx_w->mmap_tid, ctx_gettid(), __ATOMIC_RELEASE);
	/*
	 * A writer of the mmap lock, queued behind the GUP's read hold. The
	 * GUP may let the lock go for a moment once the READ is sent (6.1's
	 * read-around drops it and retries the fault): a call that went
	 * through is made again, until the test has seen one queued.
	 */
	while (!__atomic_load_n(&ctx_w->queued, __ATOMIC_ACQUIRE)) {
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			break;
		munmap(m, 4096);
	}
	return NULL;
}

static int ctx_writer_main(void *p)
{
	pthread_t th;
	int ret;

	/* Only the server holds the connection: it can always end it. */
	close(ctx_w->fuse_fd);
	ctx_pin(0, 1);
	ret = cb_buffer_ready();
	if (ret)
		return -ret;
	if (pthread_create(&th, NULL, ctx_queue_thread, NULL))
		return 100;
	return -cb_write("run", "1");
}

/*
 * How long HOLD may take to come. Once the server holds the READ, the
 * GUP's thread waits for it in D, which hung_task (armed at 10 s) reports:
 * a HOLD that did not come is given up, and the server answers, before.
 */
#define CTX_HOLD_START_S	6.0

/*
 * HOLD in writer pid: its thread reads the FUSE page (a GUP that holds the
 * mmap lock until the server answers) and another queues mmap() behind
 * it. True once the mmap() sleeps queued, within CTX_HOLD_START_S; false
 * at once when the writer's run (4b, 4c) ended first: its exit left the
 * READ unseen by the thread that would queue, the GUP waiting in D.
 */
static bool ctx_hold_start(pid_t pid)
{
	double end = cb_now() + CTX_HOLD_START_S;
	pid_t tid;

	if (write(ctx_w->go[1], "g", 1) != 1)
		return false;
	while (cb_now() < end && !__atomic_load_n(&ctx_w->run_done, __ATOMIC_ACQUIRE)) {
		tid = __atomic_load_n(&ctx_w->mmap_tid, __ATOMIC_ACQUIRE);
		if (tid && cb_task_state(pid, tid) == 'D') {
			__atomic_store_n(&ctx_w->queued, 1, __ATOMIC_RELEASE);
			return true;
		}
		usleep(10000);
	}
	__atomic_store_n(&ctx_w->queued, 1, __ATOMIC_RELEASE);
	return false;
}

/* The action the attack waits for, in a thread of the test. */
struct ctx_action {
	int (*fn)(struct ctx_action *a);
	pid_t writer;
	int ret;
	int done;	/* __atomic */
};

static void *ctx_action_thread(void *p)
{
	struct ctx_action *a = p;

	a->ret = a->fn(a);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int ctx_offline_cpu1(struct ctx_action *a)
{
	return cb_cpu_online(1, false);
}

static int ctx_move_to_cpu0(struct ctx_action *a)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(a->writer, sizeof(set), &set) ? -errno : 0;
}

/*
 * The whole attack: the writer's run measuring, the GUP held by the
 * server, the mmap() queued behind it; then the action, which must end
 * while the server still holds the READ (*while_held). The action's
 * result in *action_ret, the run's errno in *run_err.
 */
static void ctx_lock_attack(struct __test_metadata *_metadata, int (*fn)(struct ctx_action *a),
			    bool widen, bool *while_held, int *action_ret, int *run_err)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "size=65536", "cache=cold", "loops=1",
		"samples=100000", "max_run_ms=120000", "cpu=1", NULL,
	};
	struct ctx_action a = { .fn = fn };
	struct ctx_fuse f;
	pthread_t act;
	double end;
	pid_t pid;
	int status, ret;

	ret = ctx_fuse_start(&f);
	if (ret) {
		ctx_fuse_stop(&f);
		ASSERT_EQ(0, ret) TH_LOG("a FUSE mount: %s", strerror(-ret));
	}
	ctx_w = mmap(NULL, sizeof(*ctx_w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, ctx_w);
	memset(ctx_w, 0, sizeof(*ctx_w));
	snprintf(ctx_w->path, sizeof(ctx_w->path), "%s/" CTX_FUSE_FILE, f.dir);
	ctx_w->held = f.held[0];
	ctx_w->fuse_fd = f.fd;
	ASSERT_EQ(0, pipe(ctx_w->go));
	ctx_set(_metadata, knobs);

	ksft_print_msg("the writer starts its run on cpu 1\n");
	a.writer = pid = cb_child(ctx_writer_main, NULL);
	ASSERT_LT(0, pid);
	ret = cb_wait_run_started(pid, 60, &status) ?: cb_wait_measuring(pid, 65536, 60);
	EXPECT_EQ(0, ret) TH_LOG("the run was not seen measuring");
	if (widen) {
		/* Allowed both CPUs, the run's own still among them: it only tries the lock. */
		cpu_set_t both;

		CPU_ZERO(&both);
		CPU_SET(0, &both);
		CPU_SET(1, &both);
		EXPECT_EQ(0, sched_setaffinity(pid, sizeof(both), &both));
	}
	ksft_print_msg("the run measures: a thread of the writer reads the FUSE page\n");
	/* The mmap() queued: its thread asleep, the lock held for the GUP. */
	EXPECT_TRUE(ctx_hold_start(pid))
		TH_LOG("the mmap() never queued for the lock (%s)",
		       __atomic_load_n(&ctx_w->mmap_tid, __ATOMIC_ACQUIRE) ?
		       "the server holds the READ" : "the queueing thread never saw the READ");
	usleep(200000);		/* the run at its next window, on any module */
	ksft_print_msg("the lock is held and a writer queued: the action starts\n");

	ASSERT_EQ(0, pthread_create(&act, NULL, ctx_action_thread, &a));
	end = cb_now() + CTX_BOUND_S;
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE) && cb_now() < end)
		usleep(10000);
	*while_held = __atomic_load_n(&a.done, __ATOMIC_ACQUIRE);
	if (!*while_held)
		TH_LOG("the action still waits after %.0f s with the lock held: answering the READ",
		       CTX_BOUND_S);
	ksft_print_msg("the action %s: the server answers\n", *while_held ? "ended" : "waits");
	ctx_fuse_release(&f);
	pthread_join(act, NULL);
	ksft_print_msg("the action ended (%d): the writer is reaped\n", a.ret);
	*action_ret = a.ret;
	status = cb_wait_child(pid, 300);
	if (status == -1) {
		kill(pid, SIGKILL);
		ctx_fuse_stop(&f);	/* ends every FUSE request the writer waits for */
		waitpid(pid, &status, 0);
	}
	ctx_fuse_stop(&f);
	*run_err = cb_exit_code(status);
	close(ctx_w->go[0]);
	close(ctx_w->go[1]);
	munmap(ctx_w, sizeof(*ctx_w));
}

/*
 * CPU 1 goes offline while the run on it waits for a lock another thread
 * of its writer cannot release: the offline completes, the run ends with
 * ENODEV. widen: the writer may run on both CPUs (tries, migration
 * disabled), else it is pinned to CPU 1 (it waits, migration enabled).
 */
static void ctx_offline_attack(struct __test_metadata *_metadata, int *offline_cpu, int kmsg,
			       bool widen)
{
	int action_ret, run_err;
	bool while_held;

	ctx_lock_attack(_metadata, ctx_offline_cpu1, widen, &while_held, &action_ret, &run_err);
	if (!action_ret)
		*offline_cpu = 1;
	EXPECT_TRUE(while_held) TH_LOG("the offline waited for the lock holder");
	EXPECT_EQ(0, action_ret) TH_LOG("cpu1 offline: %s", strerror(-action_ret));
	EXPECT_EQ(ENODEV, run_err) TH_LOG("%s", cb_last_error());
	EXPECT_NE(NULL, strstr(cb_last_error(), "cpu 1 went offline")) TH_LOG("%s", cb_last_error());
	EXPECT_STREQ("", cb_kmsg_report(kmsg));
}

/* 1a. The writer may run on both CPUs: the run only tries the lock. */
TEST_F_TIMEOUT(ctx, cpu_offline_is_not_held_by_a_run_waiting_for_its_mmap_lock, 600)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ctx_offline_attack(_metadata, &self->offline_cpu, self->kmsg, true);
}

/* 1b. The same with the writer's affinity set to CPU 0: EINVAL, the new set kept. */
TEST_F_TIMEOUT(ctx, an_affinity_change_is_not_held_by_a_run_waiting_for_its_mmap_lock, 600)
{
	int action_ret, run_err;
	bool while_held;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ctx_lock_attack(_metadata, ctx_move_to_cpu0, true, &while_held, &action_ret, &run_err);
	EXPECT_TRUE(while_held) TH_LOG("sched_setaffinity() waited for the lock holder");
	EXPECT_EQ(0, action_ret) TH_LOG("sched_setaffinity: %s", strerror(-action_ret));
	EXPECT_EQ(EINVAL, run_err) TH_LOG("%s", cb_last_error());
	EXPECT_NE(NULL, strstr(cb_last_error(), "left the writer's allowed CPUs"))
		TH_LOG("%s", cb_last_error());
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/*
 * 1c. The writer pinned to CPU 1 alone: the run waits for the lock with
 * migration enabled, and sees its CPU gone between two tries.
 */
TEST_F_TIMEOUT(ctx, cpu_offline_is_not_held_by_a_pinned_run_queued_for_its_mmap_lock, 600)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ctx_offline_attack(_metadata, &self->offline_cpu, self->kmsg, false);
}

/* ---------------------------------------------------------------------- */
/* 2. io_uring: a run started with IORING_OP_WRITE, cancelled. */

#define CTX_WRITE_DATA	1
#define CTX_CANCEL_DATA	2

/* The next completion within timeout seconds: 0 and *data, *res; or -ETIME. */
static int ctx_uring_reap(struct cb_uring *u, double timeout, uint64_t *data, int *res)
{
	double end = cb_now() + timeout;

	do {
		*res = cb_uring_posted(u, data);
		if (*res != -EAGAIN)
			return 0;
		usleep(1000);
	} while (cb_now() < end);
	return -ETIME;
}

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
 * 2a. IORING_OP_ASYNC_CANCEL of the running write: the write completes with
 * ECANCELED and last_error says io_uring cancelled it; the results stay.
 */
TEST_F_TIMEOUT(ctx, io_uring_cancel_ends_a_run_started_through_it, 600)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_ASYNC_CANCEL, .addr = CTX_WRITE_DATA,
		.user_data = CTX_CANCEL_DATA,
	};
	char before[8192], after[8192];
	int fd, res, write_res = 1, cancel_res = 1, i;
	struct cb_uring u;
	uint64_t data;

	ASSERT_EQ(0, cb_write("samples", "1"));
	ASSERT_EQ(0, cb_write("cpu", "-1"));
	ASSERT_EQ(0, cb_write("direction", "memcpy"));
	ASSERT_EQ(0, cb_write("run", "1"));
	cb_read("results", before, sizeof(before));
	ctx_uring_start_run(_metadata, &u, &fd);
	ASSERT_EQ(0, cb_uring_submit(&u, &sqe, false));
	for (i = 0; i < 2 && !ctx_uring_reap(&u, CTX_BOUND_S, &data, &res); i++) {
		if (data == CTX_WRITE_DATA)
			write_res = res;
		else
			cancel_res = res;
	}
	TH_LOG("the cancel: %d (%s), the write: %d (%s)", cancel_res,
	       cancel_res < 0 ? strerror(-cancel_res) : "-", write_res,
	       write_res < 0 ? strerror(-write_res) : "-");
	EXPECT_TRUE(cancel_res == 0 || cancel_res == -EALREADY);
	EXPECT_EQ(-ECANCELED, write_res) TH_LOG("the run went on after io_uring cancelled it");
	EXPECT_TRUE(ctx_run_over(CTX_BOUND_S));
	EXPECT_NE(NULL, strstr(cb_last_error(), "io_uring cancelled the run"))
		TH_LOG("%s", cb_last_error());
	cb_read("results", after, sizeof(after));
	EXPECT_STREQ(before, after);
	cb_uring_exit(&u);
	close(fd);
	ctx_run_over(300);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/*
 * 2b. Closing the ring while the write runs: the teardown cancels it, the
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

/* The stopper of 2c: the test process stopped for 300 ms, then continued. */
static int ctx_stop_parent(void *unused)
{
	pid_t parent = getppid();

	if (kill(parent, SIGSTOP))
		return 1;
	usleep(300000);
	return kill(parent, SIGCONT) ? 2 : 0;
}

/*
 * 2c. The process stopped and continued while its io-wq worker runs: the
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
	EXPECT_EQ(0, ctx_uring_reap(&u, CTX_BOUND_S, &data, &res))
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
/* 3. Refusals that say what happened. */

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
 * 3a. A protection key on the buffer that denies the copy's access (writes
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
 * 3b. The buffer loses PROT_WRITE during a to_user run (another thread's
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
/* 4. HOLD: every wait of a run for its writer's mmap lock ends as the contract says. */

/*
 * The FUSE server mounted and the writer's shared block ready (its pipes
 * made), the run's knobs written.
 */
static void ctx_hold_setup(struct __test_metadata *_metadata, struct ctx_fuse *f,
			   const char * const *knobs)
{
	int ret = ctx_fuse_start(f);

	if (ret) {
		ctx_fuse_stop(f);
		ASSERT_EQ(0, ret) TH_LOG("a FUSE mount: %s", strerror(-ret));
	}
	ctx_w = mmap(NULL, sizeof(*ctx_w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, ctx_w);
	memset(ctx_w, 0, sizeof(*ctx_w));
	snprintf(ctx_w->path, sizeof(ctx_w->path), "%s/" CTX_FUSE_FILE, f->dir);
	ctx_w->held = f->held[0];
	ctx_w->fuse_fd = f->fd;
	ASSERT_EQ(0, pipe(ctx_w->go));
	ASSERT_EQ(0, pipe(ctx_w->zap_go));
	ASSERT_EQ(0, pipe(ctx_w->submit));
	ctx_set(_metadata, knobs);
}

static void ctx_hold_free(void)
{
	int *fds[] = { ctx_w->go, ctx_w->zap_go, ctx_w->submit };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	munmap(ctx_w, sizeof(*ctx_w));
	ctx_w = NULL;
}

/* The run over, its knobs free: max_run_ms's own value is not refused with EBUSY. */
static bool ctx_knobs_free(void)
{
	char v[CB_VALUE_LEN];

	snprintf(v, sizeof(v), "%s", cb_value("max_run_ms"));
	return cb_write("max_run_ms", v) != -EBUSY;
}

#define CTX_NOP_DATA	3

/* The ring and the run file of 4a: the test's, inherited by the writer. */
static struct cb_uring ctx_u;
static int ctx_run_fd = -1;

/*
 * The writer of 4a, a child process: its buffer mapped, the HOLD thread
 * started, then on the parent's word one IORING_OP_WRITE of "1" to run,
 * which an io-wq worker of it runs. With HOLD in place a page fault of
 * this process waits for the lock too: every page the submission touches
 * (code, stack, the ring, the "1") is touched before, by a NOP.
 */
static int ctx_uring_writer(void *unused)
{
	static const char one[] = "1";
	struct io_uring_sqe nop = { .opcode = IORING_OP_NOP, .user_data = CTX_NOP_DATA };
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_WRITE, .fd = ctx_run_fd, .addr = (unsigned long)one,
		.len = 1, .user_data = CTX_WRITE_DATA,
	};
	uint64_t data = 0;
	pthread_t th;
	char c;

	close(ctx_w->fuse_fd);
	if (cb_buffer_map(65536) == MAP_FAILED)
		return 101;
	if (pthread_create(&th, NULL, ctx_queue_thread, NULL))
		return 102;
	if (__atomic_load_n(one, __ATOMIC_RELAXED) != '1' || cb_uring_submit(&ctx_u, &nop, true) ||
	    cb_uring_posted(&ctx_u, &data) || data != CTX_NOP_DATA)
		return 103;
	if (read(ctx_w->submit[0], &c, 1) != 1 || cb_uring_submit(&ctx_u, &sqe, false))
		return 104;
	/* Until the test kills it. */
	while (read(ctx_w->submit[0], &c, 1) < 0)
		;
	return 0;
}

/*
 * 4a. A run written through io_uring waits in its preparation (the search
 * for the buffer) for a lock HOLD keeps: ASYNC_CANCEL ends it, the write
 * completes with ECANCELED. A killable sleep there would not do: the cancel
 * (TIF_NOTIFY_SIGNAL) does not wake it, ASYNC_CANCEL returns -EALREADY, and
 * nothing completes until the server answers.
 */
TEST_F_TIMEOUT(ctx, io_uring_cancel_ends_a_run_waiting_for_its_mmap_lock, 600)
{
	static const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "size=65536", "cache=hot", "loops=1",
		"samples=100000", "max_run_ms=120000", "cpu=-1", NULL,
	};
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_ASYNC_CANCEL, .addr = CTX_WRITE_DATA,
		.user_data = CTX_CANCEL_DATA,
	};
	int ret, res, write_res = 1, cancel_res = 1, i;
	uint64_t data;
	struct ctx_fuse f;
	pid_t pid;

	ctx_hold_setup(_metadata, &f, knobs);
	ret = cb_uring_init(&ctx_u);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	ctx_run_fd = open(CB_PATH("run"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, ctx_run_fd);
	pid = cb_child(ctx_uring_writer, NULL);
	ASSERT_LT(0, pid);
	EXPECT_TRUE(ctx_hold_start(pid)) TH_LOG("the mmap() never queued for the lock");
	ASSERT_EQ(1, write(ctx_w->submit[1], "s", 1));
	EXPECT_EQ(0, cb_wait_run_started(0, 60, NULL)) TH_LOG("the run was never seen in progress");
	usleep(200000);		/* the run in its wait, on any module */
	ksft_print_msg("the run waits for the lock HOLD keeps: ASYNC_CANCEL\n");
	ASSERT_EQ(0, cb_uring_submit(&ctx_u, &sqe, false));
	for (i = 0; i < 2 && !ctx_uring_reap(&ctx_u, CTX_BOUND_S, &data, &res); i++) {
		if (data == CTX_WRITE_DATA)
			write_res = res;
		else
			cancel_res = res;
	}
	TH_LOG("the cancel: %d (%s), the write: %d (%s); %s", cancel_res,
	       cancel_res < 0 ? strerror(-cancel_res) : "-", write_res,
	       write_res < 0 ? strerror(-write_res) : "-", cb_last_error());
	EXPECT_TRUE(cancel_res == 0 || cancel_res == -EALREADY);
	EXPECT_EQ(-ECANCELED, write_res) TH_LOG("no completion while the lock was held");
	EXPECT_NE(NULL, strstr(cb_last_error(), "io_uring cancelled the run"))
		TH_LOG("%s", cb_last_error());
	kill(pid, SIGKILL);
	ctx_fuse_stop(&f);
	EXPECT_NE(-1, cb_wait_child(pid, 300));
	cb_uring_exit(&ctx_u);
	close(ctx_run_fd);
	ctx_hold_free();
	ctx_run_over(300);
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

/* What ends the run of 4b and 4c while HOLD is in place. */
enum ctx_end {
	CTX_END_SIGUSR1,	/* a signal with a handler without SA_RESTART: EINTR */
	CTX_END_SIGSTOP,	/* a stop: the writer stops outside the run */
	CTX_END_FREEZER,	/* cgroup.freeze: the writer freezes outside the run */
	CTX_END_DEADLINE,	/* max_run_ms: ETIME, or the samples taken */
	CTX_END_OFFLINE,	/* the run's CPU goes offline: ENODEV */
	CTX_END_AFFINITY,	/* the writer's affinity leaves the run's CPU out: EINVAL */
	CTX_END_SIGKILL,	/* SIGKILL: the writer exits */
	CTX_END_RESTART,	/* a handler with SA_RESTART: it runs, the write starts again */
};

/* What a HOLD test sets up, which its teardown undoes. */
struct ctx_hold {
	struct cb_saved saved;
	int kmsg;
	char cg[256];		/* the writer's cgroup, removed at teardown */
	pid_t child;		/* the writer, killed and reaped at teardown */
	int offline_cpu;	/* put online again at teardown, or -1 */
	struct ctx_fuse fuse;
};

FIXTURE(hold) {
	struct ctx_hold h;
};

FIXTURE_VARIANT(hold) {
	enum ctx_end end;
};

FIXTURE_VARIANT_ADD(hold, sigusr1) {
	.end = CTX_END_SIGUSR1,
};

FIXTURE_VARIANT_ADD(hold, sigstop) {
	.end = CTX_END_SIGSTOP,
};

FIXTURE_VARIANT_ADD(hold, freezer) {
	.end = CTX_END_FREEZER,
};

FIXTURE_VARIANT_ADD(hold, deadline) {
	.end = CTX_END_DEADLINE,
};

FIXTURE_VARIANT_ADD(hold, offline) {
	.end = CTX_END_OFFLINE,
};

FIXTURE_VARIANT_ADD(hold, affinity) {
	.end = CTX_END_AFFINITY,
};

FIXTURE_VARIANT_ADD(hold, sigkill) {
	.end = CTX_END_SIGKILL,
};

FIXTURE_VARIANT_ADD(hold, sa_restart) {
	.end = CTX_END_RESTART,
};

FIXTURE_SETUP(hold)
{
	const char *why = cb_unavailable();

	self->h.kmsg = -1;
	self->h.cg[0] = '\0';
	self->h.child = 0;
	self->h.offline_cpu = -1;
	memset(&self->h.fuse, 0, sizeof(self->h.fuse));
	if (why)
		SKIP(return, "%s", why);
	/* The endings that take the run's CPU away need a CPU to leave it for. */
	if ((variant->end == CTX_END_OFFLINE || variant->end == CTX_END_AFFINITY) &&
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nothing to take the run's CPU away to");
	cb_save(&self->h.saved);
	self->h.kmsg = cb_kmsg_open();
}

/* The writer killed, the server answering (which lets HOLD go), both reaped. */
FIXTURE_TEARDOWN(hold)
{
	if (self->h.child > 0) {
		kill(self->h.child, SIGKILL);
		ctx_fuse_release(&self->h.fuse);
		if (cb_wait_child(self->h.child, 300) == -1)
			ctx_fuse_stop(&self->h.fuse);
		waitpid(self->h.child, NULL, 0);
	}
	if (self->h.fuse.dir[0])
		ctx_fuse_stop(&self->h.fuse);
	if (ctx_w)
		ctx_hold_free();
	if (self->h.cg[0]) {
		cb_cgroup_write(self->h.cg, "cgroup.freeze", "0");
		cb_cgroup_remove(self->h.cg);
	}
	if (self->h.offline_cpu >= 0)
		cb_cpu_online(self->h.offline_cpu, true);
	cb_restore(&self->h.saved);
	if (self->h.kmsg >= 0)
		close(self->h.kmsg);
}

static void ctx_on_usr1(int sig)
{
}

static void ctx_on_usr2(int sig)
{
	__atomic_store_n(&ctx_w->usr2_seen, 1, __ATOMIC_RELEASE);
}

/* 4b: zap the buffer's last page in a loop, from the test's word on, on cpu 0. */
static void *ctx_zap_thread(void *last)
{
	char c;

	ctx_pin(0, 0);
	if (read(ctx_w->zap_go[0], &c, 1) != 1)
		return NULL;
	for (;;)
		madvise(last, 4096, MADV_DONTNEED);
	return NULL;
}

/*
 * The writer of 4b and 4c, a child process: in ctx_w->cg when one is
 * named, pinned to cpu 1, SIGUSR1 caught without SA_RESTART, its buffer
 * mapped, the HOLD thread (and the zapper) started. It exits with the
 * run's errno.
 */
static int ctx_hold_writer(void *unused)
{
	struct sigaction sa = { .sa_handler = ctx_on_usr1 };
	struct sigaction sr = { .sa_handler = ctx_on_usr2, .sa_flags = SA_RESTART };
	unsigned char *buf;
	pthread_t th;

	close(ctx_w->fuse_fd);
	if (ctx_w->cg[0] && cb_cgroup_enter(ctx_w->cg))
		return 101;
	ctx_pin(0, ctx_w->cpu);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sr, NULL))
		return 102;
	buf = cb_buffer_map(ctx_w->size);
	if (buf == MAP_FAILED)
		return 103;
	if (pthread_create(&th, NULL, ctx_queue_thread, NULL))
		return 104;
	if (ctx_w->zap && pthread_create(&th, NULL, ctx_zap_thread, buf + ctx_w->size - 4096))
		return 105;
	/* Said at once: with HOLD in place its exit waits for the GUP. */
	ctx_w->run_err = -cb_write("run", "1");
	__atomic_store_n(&ctx_w->run_done, 1, __ATOMIC_RELEASE);
	return ctx_w->run_err;
}

/* The run's errno, once it is over within timeout seconds; else -1. */
static int ctx_run_err(double timeout)
{
	double end = cb_now() + timeout;

	do {
		if (__atomic_load_n(&ctx_w->run_done, __ATOMIC_ACQUIRE))
			return ctx_w->run_err;
		usleep(10000);
	} while (cb_now() < end);
	return -1;
}

/* The writer's main thread (the run) stopped or frozen, its run over: true within CTX_BOUND_S. */
static bool ctx_outside_run(pid_t pid, char want, char *state)
{
	double end = cb_now() + CTX_BOUND_S;

	do {
		*state = cb_task_state(pid, pid);
		if (*state == want && ctx_knobs_free())
			return true;
		usleep(10000);
	} while (cb_now() < end);
	return false;
}

/* The action of the variant, and its check: the run ends while HOLD is in place. */
static void ctx_hold_end(struct __test_metadata *_metadata, struct ctx_hold *h,
			 enum ctx_end end, double deadline)
{
	pid_t pid = h->child;
	cpu_set_t other;
	double until;
	char state;
	int err;

	switch (end) {
	case CTX_END_SIGUSR1:
		ASSERT_EQ(0, syscall(SYS_tgkill, pid, pid, SIGUSR1));
		err = ctx_run_err(CTX_BOUND_S);
		EXPECT_NE(-1, err) TH_LOG("SIGUSR1 did not end the run while the lock was held");
		if (err != -1)
			EXPECT_EQ(EINTR, err) TH_LOG("%s", cb_last_error());
		break;
	case CTX_END_SIGSTOP:
		ASSERT_EQ(0, kill(pid, SIGSTOP));
		EXPECT_TRUE(ctx_outside_run(pid, 'T', &state))
			TH_LOG("the writer did not stop outside its run (state %c)", state);
		break;
	case CTX_END_FREEZER:
		ASSERT_EQ(0, cb_cgroup_write(h->cg, "cgroup.freeze", "1"));
		EXPECT_TRUE(ctx_outside_run(pid, 'S', &state))
			TH_LOG("the writer did not freeze outside its run (state %c)", state);
		break;
	case CTX_END_DEADLINE:
		err = ctx_run_err(deadline - cb_now() + CTX_BOUND_S);
		EXPECT_NE(-1, err) TH_LOG("max_run_ms did not end the run while the lock was held");
		if (err != -1)
			EXPECT_TRUE(err == 0 || err == ETIME) TH_LOG("%s", cb_last_error());
		break;
	case CTX_END_OFFLINE:
		err = cb_cpu_online(ctx_w->cpu, false);
		ASSERT_EQ(0, err) TH_LOG("cpu %d offline: %s", ctx_w->cpu, strerror(-err));
		h->offline_cpu = ctx_w->cpu;
		err = ctx_run_err(CTX_BOUND_S);
		EXPECT_NE(-1, err) TH_LOG("the run's CPU offline did not end it while the lock was held");
		if (err != -1)
			EXPECT_EQ(ENODEV, err) TH_LOG("%s", cb_last_error());
		break;
	case CTX_END_AFFINITY:
		CPU_ZERO(&other);
		CPU_SET(ctx_w->cpu ? 0 : 1, &other);
		ASSERT_EQ(0, sched_setaffinity(pid, sizeof(other), &other));
		err = ctx_run_err(CTX_BOUND_S);
		EXPECT_NE(-1, err) TH_LOG("an affinity change did not end the run while the lock was held");
		if (err != -1)
			EXPECT_EQ(EINVAL, err) TH_LOG("%s", cb_last_error());
		break;
	case CTX_END_RESTART:
		/*
		 * The handler runs, outside the run, and the write starts the
		 * run again, which waits for the lock again (HOLD stays): not
		 * over, and never in D.
		 */
		ASSERT_EQ(0, syscall(SYS_tgkill, pid, pid, SIGUSR2));
		until = cb_now() + CTX_BOUND_S;
		err = ctx_run_err(0);
		while (!__atomic_load_n(&ctx_w->usr2_seen, __ATOMIC_ACQUIRE) &&
		       cb_now() < until && err == -1) {
			usleep(10000);
			err = ctx_run_err(0);
		}
		EXPECT_EQ(1, __atomic_load_n(&ctx_w->usr2_seen, __ATOMIC_ACQUIRE))
			TH_LOG("the SA_RESTART handler did not run while the lock was held");
		EXPECT_EQ(-1, err) TH_LOG("the write did not start again: %s", strerror(err));
		usleep(200000);
		EXPECT_NE('D', cb_task_state(pid, pid)) TH_LOG("the run started again sleeps in D");
		break;
	case CTX_END_SIGKILL:
		/*
		 * The HOLD thread waits for its READ, sent to the server, in
		 * D whatever the signal (FUSE), so the writer exits when the
		 * teardown answers; the run's thread must be out of the run
		 * and dead (a zombie) before that.
		 */
		ASSERT_EQ(0, kill(pid, SIGKILL));
		EXPECT_TRUE(ctx_outside_run(pid, 'Z', &state))
			TH_LOG("SIGKILL did not end the run while the lock was held (state %c)", state);
		break;
	}
	TH_LOG("after the action: %s", cb_last_error());
}

/*
 * max_run_ms of the deadline variant: HOLD is in place within a few
 * seconds, and ends before hung_task (armed at 10 s) would report the
 * GUP's thread, which waits for the server in D.
 */
#define CTX_HOLD_DEADLINE_MS	5000U

/*
 * The run thread's kernel stack, one line: where it waits. It reads empty
 * while the thread is on a CPU (between naps it tries): read again, up to
 * a second.
 */
static const char *ctx_stack(pid_t pid, char *buf, size_t len)
{
	double end = cb_now() + 1;
	char path[64], *nl;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)pid);
	do {
		if (cb_file_read(path, buf, len) < 0)
			snprintf(buf, len, "(unreadable)");
	} while (!buf[0] && cb_now() < end && !usleep(1000));
	while ((nl = strchr(buf, '\n')))
		*nl = ' ';
	return buf;
}

/* The writer killed, the server answering, both reaped: HOLD over. */
static void ctx_hold_stop(struct ctx_hold *h)
{
	kill(h->child, SIGKILL);
	ctx_fuse_release(&h->fuse);
	if (cb_wait_child(h->child, 300) == -1)
		ctx_fuse_stop(&h->fuse);
	waitpid(h->child, NULL, 0);
	h->child = 0;
	ctx_fuse_stop(&h->fuse);
	ctx_hold_free();
}

/*
 * The writer's run started, measuring; with zap, the zapper started and
 * the writer allowed both CPUs; then HOLD. The run's states over half a
 * second after, in states (11 bytes), and its stack in stack. False when
 * HOLD was not in place within CTX_BOUND_S (said why).
 */
static bool ctx_hold_place(struct __test_metadata *_metadata, struct ctx_hold *h,
			   size_t bytes, bool zap, char *states, char *stack, size_t len)
{
	pid_t tid;
	double until;
	cpu_set_t both;
	int status, i;

	h->child = cb_child(ctx_hold_writer, NULL);
	ASSERT_LT(0, h->child);
	ASSERT_EQ(0, cb_wait_run_started(h->child, 60, &status))
		TH_LOG("the run never started: %s", cb_last_error());
	ASSERT_EQ(0, cb_wait_measuring(h->child, bytes, 60)) TH_LOG("the run never measured");
	if (zap) {
		CPU_ZERO(&both);
		CPU_SET(0, &both);
		CPU_SET(ctx_w->cpu, &both);
		EXPECT_EQ(0, sched_setaffinity(h->child, sizeof(both), &both));
		ASSERT_EQ(1, write(ctx_w->zap_go[1], "z", 1));
		/* A page zapped: the run in its fault-in loop. */
		until = cb_now() + CTX_BOUND_S;
		while (cb_buffer_rss(h->child) >= (long long)bytes && cb_now() < until)
			usleep(1000);
	}
	if (!ctx_hold_start(h->child)) {
		tid = __atomic_load_n(&ctx_w->mmap_tid, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctx_w->run_done, __ATOMIC_ACQUIRE))
			ksft_print_msg("the run ended before HOLD came: %s\n",
				       strerror(ctx_w->run_err));
		else
			ksft_print_msg("no mmap() seen queued in %.0f s (%s; the run: %c, %s)\n",
				       CTX_HOLD_START_S, tid ? "the server holds the READ" :
				       "the queueing thread never saw the READ",
				       cb_task_state(h->child, h->child), cb_last_error());
		return false;
	}
	ASSERT_EQ(0, __atomic_load_n(&ctx_w->run_done, __ATOMIC_ACQUIRE))
		TH_LOG("the run ended before HOLD was in place: %s", cb_last_error());
	usleep(200000);		/* the run at its next wait for the lock, on any module */
	for (i = 0; i < 10; i++) {
		states[i] = cb_task_state(h->child, h->child);
		usleep(50000);
	}
	states[i] = '\0';
	ctx_stack(h->child, stack, len);
	return true;
}

/* Attempts at HOLD coming while a zapped run copies (see ctx_hold_run()). */
#define CTX_HOLD_TRIES	8

/*
 * A to_user run of the writer of ctx_hold_writer(), on the last CPU
 * (cpu 1 of two; on one CPU, cpu 0): zap, a run of 8 MiB copies whose last
 * page a thread zaps in a loop, its writer allowed CPU 0 too (the copy
 * windows only try the lock; the fault-in waits); else 64 KiB copies, the
 * writer pinned (its windows wait with migration enabled). Once HOLD is
 * in place, the variant's end. With zap, HOLD may come while the run tries
 * a window, not in the fault-in: then it is set up again, up to
 * CTX_HOLD_TRIES times, until the run's stack shows the fault-in; so is a
 * HOLD that did not come (seen once in about forty set-ups on 6.12).
 */
static void ctx_hold_run(struct __test_metadata *_metadata, struct ctx_hold *h,
			 enum ctx_end end, bool zap)
{
	unsigned int max_run_ms = end == CTX_END_DEADLINE ? CTX_HOLD_DEADLINE_MS : 120000;
	size_t bytes = zap ? 8 * MiB : 65536;
	char size[32], max_run[32], cpu[32], states[16], stack[2048];
	/*
	 * zap: 16 copies a window, so that HOLD most likely comes while the
	 * run copies (its copies short at the zapped page, its next wait the
	 * fault-in's) rather than while it faults in or tries its window.
	 */
	const char * const knobs[] = {
		"direction=to_user", "variant=movsb", size, "cache=hot",
		zap ? "loops=16" : "loops=1", "samples=100000", max_run, cpu, NULL,
	};
	int ret, try, last_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	bool placed = false;
	double start = 0;

	snprintf(size, sizeof(size), "size=%zu", bytes);
	snprintf(max_run, sizeof(max_run), "max_run_ms=%u", max_run_ms);
	snprintf(cpu, sizeof(cpu), "cpu=%d", last_cpu);
	if (end == CTX_END_FREEZER) {
		ret = cb_cgroup_make(h->cg, sizeof(h->cg), "cb_hold", "");
		ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	}
	for (try = 1; try <= CTX_HOLD_TRIES; try++) {
		ctx_hold_setup(_metadata, &h->fuse, knobs);
		ctx_w->size = bytes;
		ctx_w->cpu = last_cpu;
		ctx_w->zap = zap;
		snprintf(ctx_w->cg, sizeof(ctx_w->cg), "%s", h->cg);
		start = cb_now();
		placed = ctx_hold_place(_metadata, h, bytes, zap, states, stack, sizeof(stack));
		if (placed)
			ksft_print_msg("HOLD in place %.1f s into the run, the run's states %s, its stack: %s\n",
				       cb_now() - start, states, stack);
		if (placed && (!zap || strstr(stack, "fault_in")))
			break;
		if (try < CTX_HOLD_TRIES)
			ctx_hold_stop(h);
	}
	ASSERT_TRUE(placed) TH_LOG("HOLD never set up in %d tries", CTX_HOLD_TRIES);
	EXPECT_NE(NULL, zap ? strstr(stack, "fault_in") : stack)
		TH_LOG("HOLD never came while the run faulted its buffer in (%d tries)",
		       CTX_HOLD_TRIES);
	EXPECT_NE(10, (int)(strspn(states, "D"))) TH_LOG("the run sleeps in D for the lock");
	ctx_hold_end(_metadata, h, end, start + max_run_ms / 1000.0);
	EXPECT_STREQ("", cb_kmsg_report(h->kmsg));
}

/*
 * 4b. A run faulting its buffer in again and again (a thread zaps a page in
 * a loop) when HOLD comes: the variant's end stops it, the run never
 * sleeping in D. A run asleep in fault_in_safe_writeable()'s
 * mmap_read_lock() would wait for nothing but the holder's release, and
 * hung_task would report it.
 */
TEST_F_TIMEOUT(hold, a_run_faulting_its_buffer_in_ends_while_the_lock_is_held, 600)
{
	ctx_hold_run(_metadata, &self->h, variant->end, true);
}

/*
 * 4c. A writer pinned to the run's CPU whose window cannot take the lock
 * waits for it with migration enabled: the variant's end stops that wait. A
 * killable wait in the lock's queue would end only on SIGKILL or the
 * holder's release.
 */
TEST_F_TIMEOUT(hold, a_pinned_writer_waiting_for_the_lock_ends_while_it_is_held, 600)
{
	ctx_hold_run(_metadata, &self->h, variant->end, false);
}

/* ---------------------------------------------------------------------- */
/* 5. Beside a storm of mmap() calls, a run still gets the lock. */

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

/* The writer of 5: pinned to *cpu or not (NULL), its storm threads on any CPU; the run's errno. */
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
 * 5. A writer, pinned to the run's CPU (the last one) and not, whose
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
