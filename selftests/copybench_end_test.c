// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_end_test.c - how a run ends, wherever it is: one matrix.
 *
 * Each variant of the fixtures is a way a run ends (the list of
 * Documentation/copybench.rst's "How a run ends"), each test a place the
 * run is in when it comes, a to_user run of movsb pinned to the last CPU:
 *
 *   preparing           the run's first wait for its writer's mmap lock,
 *                       looking for the buffer ("allocating the buffers")
 *   faulting_in         mapping its 64 MiB buffer in again, a thread of
 *                       the writer zapping it whole in a loop ("mapping
 *                       the buffer's zapped pages in again")
 *   waiting_for_the_lock  a pinned writer's timed window that cannot take
 *                       the lock ("timing the samples")
 *   timed_hot, timed_cold  taking hot or cold samples of 10 ms of copies
 *                       of 64 KiB, so that the ending comes inside one
 *
 * The three first hold the lock with HOLD: another thread of the writer
 * reads a page of a FUSE file through /proc/self/mem (a GUP that keeps
 * the lock for reading until the server, this test, answers) and a third
 * queues an mmap() behind it, so that no try of the lock succeeds. The
 * run never sleeps in D for it.
 *
 * Every cell asserts the errno the contract gives (or that the run goes
 * on, for an SA_RESTART handler, a stop, a freeze, a second write, and in
 * preparing the endings that wait for the run to hold its CPU), that the
 * sentence in last_error names the place, that the ending came within
 * END_BOUND_S (the contract says within one copy or window, at once in
 * the waits for the lock; the bound is that plus what a TCG guest on a
 * busy host adds, below the seconds the waits it catches took), that the
 * knobs are free again (or taken, while the run goes on), that the
 * previous results stay when the run fails, and that the kernel logged
 * nothing.
 *
 * Needs root, copybench.ko loaded, two CPUs, FUSE (/dev/fuse), io_uring,
 * cgroup v2 with the cpu controller, /sys/power/pm_test (CONFIG_PM_DEBUG).
 * selftests/vm-tests/copybench_end.sh arms hung_task at 10 s: a task the
 * module held up is reported, and the kernel log check fails.
 *
 *	./copybench_end_test
 */
#define _GNU_SOURCE
#include <dirent.h>
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
/* The bound of every ending: see the top of this file. */
#define END_BOUND_S	3.0
/* A wait a working module ends long before; a broken one, never. */
#define END_GIVE_UP_S	30.0
/* How long HOLD may take to come; see end_hold_start(). */
#define END_HOLD_START_S	6.0
/*
 * A timed cell's sample: 10 ms of copies, by what one copy took in a short
 * run before, so that 100 times that is still below the bound of one
 * sample (CB_SAMPLE_MS_MAX: a calibrating copy under TCG was seen taking
 * 50 times the others); a run that calibrates further off (E2BIG) is
 * started again with half the loops.
 */
#define END_SAMPLE_NS	10000000ULL
/* How long a timed run takes its samples before the ending comes. */
#define END_SETTLE_US	700000
/*
 * faulting_in: the buffer, zapped whole in a loop: a copy comes up short
 * at its first page, and the run spends most of its time mapping it in
 * again; attempts at HOLD coming while it does.
 */
#define END_ZAP_SIZE	(64 * MiB)
#define END_HOLD_TRIES	8
/* Looks at the state of the run's thread once HOLD is in place. */
#define END_STATES	8

static pid_t end_gettid(void)
{
	return syscall(SYS_gettid);
}

static void end_pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(tid, sizeof(set), &set);
}

/* ---------------------------------------------------------------------- */
/* HOLD: a FUSE server that answers everything but READ, which it holds. */

#define END_FUSE_FILE	"f"
#define END_FUSE_SIZE	65536

struct end_fuse {
	char dir[64];
	int fd;			/* /dev/fuse */
	pid_t server;
	int held[2];		/* server -> test: a READ is held */
	int answer[2];		/* test -> server: answer it now */
};

static void end_fuse_reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
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

static void end_fuse_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = 1;
	a->size = node == FUSE_ROOT_ID ? 0 : END_FUSE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

/*
 * The server: one request at a time. The first READ waits for a byte on
 * answer[0]; every one after it (readahead) is answered at once.
 */
static int end_fuse_serve(struct end_fuse *f)
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

			end_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .nodeid = 2, .generation = 1,
						    .entry_valid = 3600, .attr_valid = 3600 };

			if (strcmp(arg, END_FUSE_FILE)) {
				end_fuse_reply(f->fd, h->unique, -ENOENT, NULL, 0);
				break;
			}
			end_fuse_attr(&o.attr, 2);
			end_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 3600 };

			end_fuse_attr(&o.attr, h->nodeid);
			end_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			end_fuse_reply(f->fd, h->unique, 0, &o, sizeof(o));
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
			end_fuse_reply(f->fd, h->unique, 0, NULL, 0);
			break;
		default:
			end_fuse_reply(f->fd, h->unique, -EOPNOTSUPP, NULL, 0);
			break;
		}
	}
}

/* Mount it at a new directory, its server a child; 0 or -errno. */
static int end_fuse_start(struct end_fuse *f)
{
	char opts[128];

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/cbend.XXXXXX");
	if (!mkdtemp(f->dir))
		return -errno;
	f->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", f->fd);
	if (mount("copybench-end", f->dir, "fuse", MS_NOSUID | MS_NODEV, opts))
		return -errno;
	if (pipe(f->held) || pipe(f->answer))
		return -errno;
	f->server = fork();
	if (f->server < 0)
		return -errno;
	if (!f->server)
		_exit(end_fuse_serve(f));
	return 0;
}

/* The held READ answered, and every READ after it. */
static void end_fuse_release(struct end_fuse *f)
{
	if (f->answer[1] > 0 && write(f->answer[1], "g", 1) != 1)
		perror("copybench_end_test: the FUSE server's pipe");
	f->answer[1] = -1;
}

/* Release the server, unmount, reap it. */
static void end_fuse_stop(struct end_fuse *f)
{
	end_fuse_release(f);
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

/* ---------------------------------------------------------------------- */
/* The writer: a child process, its block shared with the test. */

struct end_writer {
	/* HOLD */
	char path[96];		/* the FUSE file */
	int fuse_fd;		/* /dev/fuse, closed in the writer; -1 without HOLD */
	int go[2];		/* test -> writer: start the GUP */
	int held;		/* the server's held[0] */
	pid_t mmap_tid;		/* __atomic */
	int queued;		/* __atomic: the test saw mmap_tid queued */
	bool hold;
	/* the run */
	char cg[256];		/* a cgroup the writer joins first, or "" */
	size_t size;		/* the buffer it maps */
	int cpu;		/* the CPU it pins itself to, or -1 */
	bool zap;		/* a thread zaps the buffer's last page in a loop */
	bool uring;		/* the run is written through io_uring */
	int zap_go[2];		/* test -> writer: start zapping */
	int run_go[2];		/* test -> writer: write "1" to run */
	int run_fd;		/* run, opened by the test: the same open file */
	int run_err;		/* the run's errno, once run_done */
	int run_done;		/* __atomic */
	int usr2_seen;		/* __atomic: SIGUSR2's handler (SA_RESTART) ran */
	int ready;		/* __atomic: everything the write touches touched */
};

static struct end_writer *end_w;	/* MAP_SHARED */
static struct cb_uring end_u;		/* the ring of the io_uring cells, inherited */

#define END_WRITE_DATA	1
#define END_CANCEL_DATA	2
#define END_NOP_DATA	3

static void *end_gup_thread(void *p)
{
	int fd = open(end_w->path, O_RDONLY | O_CLOEXEC), mem;
	char *map, byte;

	end_pin(0, 0);
	if (fd < 0)
		return NULL;
	map = mmap(NULL, END_FUSE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (map == MAP_FAILED || mem < 0)
		return NULL;
	/* GUP with the mmap lock held, until the server answers the READ. */
	if (pread(mem, &byte, 1, (off_t)(unsigned long)map) != 1)
		return NULL;
	return NULL;
}

static void *end_queue_thread(void *p)
{
	pthread_t gup;
	char c;

	end_pin(0, 0);
	if (read(end_w->go[0], &c, 1) != 1 || pthread_create(&gup, NULL, end_gup_thread, NULL))
		return NULL;
	if (read(end_w->held, &c, 1) != 1)
		return NULL;
	__atomic_store_n(&end_w->mmap_tid, end_gettid(), __ATOMIC_RELEASE);
	/*
	 * A writer of the mmap lock, queued behind the GUP's read hold. The
	 * GUP may let the lock go for a moment once the READ is sent (6.1's
	 * read-around drops it and retries the fault): a call that went
	 * through is made again, until the test has seen one queued.
	 */
	while (!__atomic_load_n(&end_w->queued, __ATOMIC_ACQUIRE)) {
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			break;
		munmap(m, 4096);
	}
	return NULL;
}

/*
 * Zap the whole buffer in a loop, from the test's word on, on cpu 0: the
 * run's copies come up short at once, and it spends its time mapping the
 * buffer in again, where HOLD is to find it.
 */
static void *end_zap_thread(void *buf)
{
	char c;

	end_pin(0, 0);
	if (read(end_w->zap_go[0], &c, 1) != 1)
		return NULL;
	for (;;)
		madvise(buf, end_w->size, MADV_DONTNEED);
	return NULL;
}

static void end_on_usr1(int sig)
{
}

static void end_on_usr2(int sig)
{
	__atomic_store_n(&end_w->usr2_seen, 1, __ATOMIC_RELEASE);
}

/*
 * The writer: in end_w->cg when one is named, pinned to end_w->cpu,
 * SIGUSR1 caught without SA_RESTART and SIGUSR2 with it, its buffer
 * mapped, the HOLD thread and the zapper started; on the test's word it
 * writes "1" to run (directly, or as one IORING_OP_WRITE that an io-wq
 * worker of it runs). It exits with the run's errno. With HOLD in place a
 * page fault of this process waits for the lock too: every page the
 * write touches (the wrapper, the "1", the handlers, the ring) is touched
 * before.
 */
static int end_writer(void *unused)
{
	static const char one[] = "1";
	struct sigaction sa = { .sa_handler = end_on_usr1 };
	struct sigaction sr = { .sa_handler = end_on_usr2, .sa_flags = SA_RESTART };
	struct io_uring_sqe nop = { .opcode = IORING_OP_NOP, .user_data = END_NOP_DATA };
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_WRITE, .fd = end_w->run_fd, .addr = (unsigned long)one,
		.len = 1, .user_data = END_WRITE_DATA,
	};
	uint64_t data = 0;
	unsigned char *buf;
	pthread_t th;
	ssize_t n;
	int null;
	char c;

	if (end_w->fuse_fd >= 0)
		close(end_w->fuse_fd);
	if (end_w->cg[0] && cb_cgroup_enter(end_w->cg))
		return 101;
	if (end_w->cpu >= 0)
		end_pin(0, end_w->cpu);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sr, NULL))
		return 102;
	buf = cb_buffer_map(end_w->size);
	if (buf == MAP_FAILED)
		return 103;
	if (end_w->hold && pthread_create(&th, NULL, end_queue_thread, NULL))
		return 104;
	if (end_w->zap && pthread_create(&th, NULL, end_zap_thread, buf))
		return 105;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0 || write(null, one, 1) != 1)
		return 106;
	end_on_usr1(0);
	if (end_w->uring && (cb_uring_submit(&end_u, &nop, true) ||
			     cb_uring_posted(&end_u, &data) || data != END_NOP_DATA))
		return 107;
	__atomic_store_n(&end_w->ready, 1, __ATOMIC_RELEASE);
	if (read(end_w->run_go[0], &c, 1) != 1)
		return 108;
	if (end_w->uring) {
		if (cb_uring_submit(&end_u, &sqe, false))
			return 109;
		/* The test reaps the completion; this waits to be killed. */
		while (read(end_w->run_go[0], &c, 1) <= 0)
			;
		return 0;
	}
	n = write(end_w->run_fd, one, 1);
	end_w->run_err = n == 1 ? 0 : errno;
	__atomic_store_n(&end_w->run_done, 1, __ATOMIC_RELEASE);
	return end_w->run_err;
}

/* ---------------------------------------------------------------------- */
/* The matrix. */

/* How a run ends: the fixture's variants. */
enum end_how {
	END_SIGKILL,		/* the writer killed */
	END_SIGNAL,		/* a handler without SA_RESTART: EINTR */
	END_RESTART,		/* a handler with SA_RESTART: the write starts the run again */
	END_SIGSTOP,		/* stopped outside the run; SIGCONT starts it again */
	END_CGROUP_FREEZER,	/* cgroup.freeze: frozen outside the run; a thaw starts it again */
	END_PM_FREEZER,		/* suspend's freezer (pm_test "freezer"): it goes through */
	END_DEADLINE,		/* max_run_ms: ETIME before the first sample, else truncated */
	END_OFFLINE,		/* the run's CPU offline: ENODEV */
	END_AFFINITY,		/* an affinity that leaves the run's CPU out: EINVAL */
	END_CANCEL,		/* IORING_OP_ASYNC_CANCEL of the write: ECANCELED */
	END_SECOND_WRITE,	/* "1" again on the same open file: EBUSY, the run goes on */
	END_THROTTLED,		/* cpu.max at 2%, then an affinity change: EINVAL */
};

/* Where the run is when it comes: the tests. */
enum end_where {
	END_PREPARING,
	END_FAULTING_IN,
	END_LOCK,
	END_HOT,
	END_COLD,
};

/*
 * max_run_ms of the deadline's cells: after the ending's place is reached
 * (faulting_in takes longest: 3.5 s on the debug kernel), below hung_task's
 * 10 s with HOLD in place.
 */
static unsigned int end_deadline_ms(enum end_where where)
{
	return where == END_FAULTING_IN ? 7000 : 4000;
}

/* What the run is doing there, as last_error says it. */
static const char * const end_doing[] = {
	[END_PREPARING] = "while allocating the buffers",
	[END_FAULTING_IN] = "while mapping the buffer's zapped pages in again",
	[END_LOCK] = "while timing the samples",
	[END_HOT] = "while timing the samples",
	[END_COLD] = "while timing the samples",
};

static bool end_holds(enum end_where where)
{
	return where == END_PREPARING || where == END_FAULTING_IN || where == END_LOCK;
}

/* What a cell set up, which its teardown undoes. */
struct end_cell {
	struct cb_saved saved;
	int kmsg;
	char cg[256];		/* the writer's cgroup, removed at teardown */
	pid_t child;		/* the writer, killed and reaped at teardown */
	int offline_cpu;	/* put online again at teardown, or -1 */
	struct end_fuse fuse;
	int cpu;		/* the run's CPU, or -1 */
	pid_t run_tid;		/* the thread that runs: the writer's, or its io-wq worker */
	char before[8192];	/* results before the run */
	double t_action;	/* when the ending came */
};

/*
 * Two fixtures, one per kind of place: "ending" for the timed places,
 * where every ending is a variant; "ending_held" for the three places
 * HOLD holds, where suspend's freezer is not one (HOLD's own threads, the
 * GUP in FUSE's killable wait and the mmap() queued for the lock, cannot
 * freeze: suspend would fail for them, not for the run).
 */
FIXTURE(ending) {
	struct end_cell c;
};

FIXTURE_VARIANT(ending) {
	enum end_how how;
};

FIXTURE_VARIANT_ADD(ending, sigkill) { .how = END_SIGKILL };
FIXTURE_VARIANT_ADD(ending, signal) { .how = END_SIGNAL };
FIXTURE_VARIANT_ADD(ending, sa_restart) { .how = END_RESTART };
FIXTURE_VARIANT_ADD(ending, sigstop) { .how = END_SIGSTOP };
FIXTURE_VARIANT_ADD(ending, cgroup_freezer) { .how = END_CGROUP_FREEZER };
FIXTURE_VARIANT_ADD(ending, pm_freezer) { .how = END_PM_FREEZER };
FIXTURE_VARIANT_ADD(ending, max_run_ms) { .how = END_DEADLINE };
FIXTURE_VARIANT_ADD(ending, cpu_offline) { .how = END_OFFLINE };
FIXTURE_VARIANT_ADD(ending, affinity) { .how = END_AFFINITY };
FIXTURE_VARIANT_ADD(ending, io_uring_cancel) { .how = END_CANCEL };
FIXTURE_VARIANT_ADD(ending, second_write) { .how = END_SECOND_WRITE };
FIXTURE_VARIANT_ADD(ending, throttled) { .how = END_THROTTLED };

FIXTURE(ending_held) {
	struct end_cell c;
};

FIXTURE_VARIANT(ending_held) {
	enum end_how how;
};

FIXTURE_VARIANT_ADD(ending_held, sigkill) { .how = END_SIGKILL };
FIXTURE_VARIANT_ADD(ending_held, signal) { .how = END_SIGNAL };
FIXTURE_VARIANT_ADD(ending_held, sa_restart) { .how = END_RESTART };
FIXTURE_VARIANT_ADD(ending_held, sigstop) { .how = END_SIGSTOP };
FIXTURE_VARIANT_ADD(ending_held, cgroup_freezer) { .how = END_CGROUP_FREEZER };
FIXTURE_VARIANT_ADD(ending_held, max_run_ms) { .how = END_DEADLINE };
FIXTURE_VARIANT_ADD(ending_held, cpu_offline) { .how = END_OFFLINE };
FIXTURE_VARIANT_ADD(ending_held, affinity) { .how = END_AFFINITY };
FIXTURE_VARIANT_ADD(ending_held, io_uring_cancel) { .how = END_CANCEL };
FIXTURE_VARIANT_ADD(ending_held, second_write) { .how = END_SECOND_WRITE };
FIXTURE_VARIANT_ADD(ending_held, throttled) { .how = END_THROTTLED };

/* Every cell: SKIP without the module or a second CPU, else the knobs saved. */
static void end_cell_setup(struct __test_metadata *_metadata, struct end_cell *c)
{
	const char *why = cb_unavailable();

	memset(c, 0, sizeof(*c));
	c->kmsg = -1;
	c->offline_cpu = -1;
	c->fuse.fd = -1;
	if (why)
		SKIP(return, "%s", why);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: the endings that take the run's CPU away need another");
	cb_save(&c->saved);
	c->kmsg = cb_kmsg_open();
}

FIXTURE_SETUP(ending)
{
	end_cell_setup(_metadata, &self->c);
}

FIXTURE_SETUP(ending_held)
{
	end_cell_setup(_metadata, &self->c);
}

/* Free the writer's shared block, its pipes and the ring. */
static void end_free(void)
{
	int *fds[] = { end_w->go, end_w->zap_go, end_w->run_go };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	if (end_w->uring)
		cb_uring_exit(&end_u);
	close(end_w->run_fd);
	munmap(end_w, sizeof(*end_w));
	end_w = NULL;
}

/* The writer killed, the server answering (which lets HOLD go), both reaped. */
static void end_stop(struct end_cell *c)
{
	if (c->child > 0) {
		kill(c->child, SIGKILL);
		end_fuse_release(&c->fuse);
		if (cb_wait_child(c->child, 300) == -1)
			end_fuse_stop(&c->fuse);
		waitpid(c->child, NULL, 0);
		c->child = 0;
	}
	if (c->fuse.dir[0])
		end_fuse_stop(&c->fuse);
	if (end_w)
		end_free();
}

static void end_cell_teardown(struct end_cell *c)
{
	end_stop(c);
	if (c->cg[0]) {
		cb_cgroup_write(c->cg, "cgroup.freeze", "0");
		cb_cgroup_remove(c->cg);
	}
	if (c->offline_cpu >= 0)
		cb_cpu_online(c->offline_cpu, true);
	cb_restore(&c->saved);
	if (c->kmsg >= 0)
		close(c->kmsg);
}

FIXTURE_TEARDOWN(ending)
{
	end_cell_teardown(&self->c);
}

FIXTURE_TEARDOWN(ending_held)
{
	end_cell_teardown(&self->c);
}

/* The run over, its knobs free: max_run_ms's own value is not refused with EBUSY. */
static bool end_knobs_free(void)
{
	char v[CB_VALUE_LEN];

	snprintf(v, sizeof(v), "%s", cb_value("max_run_ms"));
	return cb_write("max_run_ms", v) != -EBUSY;
}

/* The knobs free (want) or taken (!want) within timeout seconds. */
static bool end_knobs_until(bool want, double timeout)
{
	double end = cb_now() + timeout;

	do {
		if (end_knobs_free() == want)
			return true;
		usleep(10000);
	} while (cb_now() < end);
	return false;
}

/* The run's errno once it is over within timeout seconds; else -1. */
static int end_run_err(double timeout)
{
	double end = cb_now() + timeout;

	do {
		if (__atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE))
			return end_w->run_err;
		usleep(10000);
	} while (cb_now() < end);
	return -1;
}

/* Thread tid's state is want within timeout seconds. */
static bool end_state_until(pid_t pid, pid_t tid, char want, double timeout, char *state)
{
	double end = cb_now() + timeout;

	do {
		*state = cb_task_state(pid, tid);
		if (*state == want)
			return true;
		usleep(10000);
	} while (cb_now() < end);
	return false;
}

/* The writer's io-wq worker ("iou-wrk-PID"), or 0. */
static pid_t end_worker(pid_t pid)
{
	char path[320], comm[64];
	struct dirent *d;
	pid_t tid = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!tid && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, d->d_name);
		if (cb_file_read(path, comm, sizeof(comm)) > 0 && !strncmp(comm, "iou-wrk", 7))
			tid = strtol(d->d_name, NULL, 10);
	}
	closedir(dir);
	return tid;
}

/*
 * Thread tid's kernel stack, one line. It reads empty while the thread is
 * on a CPU (between naps it tries): read again, up to a second.
 */
static const char *end_stack(pid_t pid, pid_t tid, char *buf, size_t len)
{
	double end = cb_now() + 1;
	char path[64], *nl;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)tid);
	do {
		if (cb_file_read(path, buf, len) < 0)
			snprintf(buf, len, "(unreadable)");
	} while (!buf[0] && cb_now() < end && !usleep(1000));
	while ((nl = strchr(buf, '\n')))
		*nl = ' ';
	return buf;
}

/*
 * HOLD in the writer: its thread reads the FUSE page and another queues
 * mmap() behind it. True once the mmap() sleeps queued, within
 * END_HOLD_START_S; false at once when the writer's run ended first. Once
 * the server holds the READ, the GUP's thread waits for it in D, which
 * hung_task (armed at 10 s) reports: a HOLD that did not come is given
 * up, and the server answers, before.
 */
static bool end_hold_start(pid_t pid)
{
	double end = cb_now() + END_HOLD_START_S;
	pid_t tid;

	if (write(end_w->go[1], "g", 1) != 1)
		return false;
	while (cb_now() < end && !__atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE)) {
		tid = __atomic_load_n(&end_w->mmap_tid, __ATOMIC_ACQUIRE);
		if (tid && cb_task_state(pid, tid) == 'D') {
			__atomic_store_n(&end_w->queued, 1, __ATOMIC_RELEASE);
			return true;
		}
		usleep(10000);
	}
	__atomic_store_n(&end_w->queued, 1, __ATOMIC_RELEASE);
	return false;
}

/* The FUSE server mounted (with HOLD), the writer's block ready, the run's knobs written. */
static void end_setup(struct __test_metadata *_metadata, struct end_cell *c, enum end_how how,
		      enum end_where where, const char * const *knobs)
{
	const char *failed = NULL;
	int ret;

	c->fuse.fd = -1;
	if (end_holds(where)) {
		ret = end_fuse_start(&c->fuse);
		if (ret) {
			end_fuse_stop(&c->fuse);
			ASSERT_EQ(0, ret) TH_LOG("a FUSE mount: %s", strerror(-ret));
		}
	}
	end_w = mmap(NULL, sizeof(*end_w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, end_w);
	memset(end_w, 0, sizeof(*end_w));
	end_w->hold = end_holds(where);
	end_w->fuse_fd = c->fuse.fd;
	if (end_w->hold) {
		snprintf(end_w->path, sizeof(end_w->path), "%s/" END_FUSE_FILE, c->fuse.dir);
		end_w->held = c->fuse.held[0];
	}
	end_w->zap = where == END_FAULTING_IN;
	end_w->size = end_w->zap ? END_ZAP_SIZE : 65536;
	end_w->cpu = c->cpu;
	end_w->uring = how == END_CANCEL;
	snprintf(end_w->cg, sizeof(end_w->cg), "%s", c->cg);
	ASSERT_EQ(0, pipe(end_w->go));
	ASSERT_EQ(0, pipe(end_w->zap_go));
	ASSERT_EQ(0, pipe(end_w->run_go));
	end_w->run_fd = open(CB_PATH("run"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, end_w->run_fd);
	if (end_w->uring) {
		ret = cb_uring_init(&end_u);
		ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	}
	ret = cb_write_knobs(knobs, &failed);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", failed, strerror(-ret));
}

/*
 * The writer started and its run where the cell wants it. preparing:
 * HOLD first, then the write. Else the write, the run measuring, then,
 * faulting_in: the zapper started, the run seen in its fault-in (with
 * migration enabled), HOLD; waiting for the lock: HOLD (the writer
 * pinned, its windows wait with migration enabled); timed: END_SETTLE_US
 * of samples. The run's thread's states, END_STATES looks 30 ms apart
 * after HOLD, in states (END_STATES + 1 bytes), its stack in stack.
 * False when HOLD did not come (said why).
 */
static bool end_place(struct __test_metadata *_metadata, struct end_cell *c,
		      enum end_where where, char *states, char *stack, size_t len)
{
	pid_t pid;
	double until;
	int status, i;

	states[0] = '\0';
	stack[0] = '\0';
	c->child = pid = cb_child(end_writer, NULL);
	ASSERT_LT(0, pid);
	until = cb_now() + END_GIVE_UP_S;
	while (!__atomic_load_n(&end_w->ready, __ATOMIC_ACQUIRE) && cb_now() < until &&
	       cb_wait_child(pid, 0) == -1)
		usleep(1000);
	ASSERT_EQ(1, __atomic_load_n(&end_w->ready, __ATOMIC_ACQUIRE))
		TH_LOG("the writer never got ready");
	if (where == END_PREPARING && !end_hold_start(pid)) {
		ksft_print_msg("no mmap() seen queued in %.0f s\n", END_HOLD_START_S);
		return false;
	}
	ASSERT_EQ(1, write(end_w->run_go[1], "1", 1));
	ASSERT_EQ(0, cb_wait_run_started(pid, 60, &status))
		TH_LOG("the run never started (exit %d): %s", cb_exit_code(status),
		       cb_last_error());
	if (where != END_PREPARING && cb_wait_measuring(pid, end_w->size, 60)) {
		ASSERT_EQ(1, __atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE))
			TH_LOG("the run never measured");
		ksft_print_msg("the run ended before it measured: %s\n", cb_last_error());
		return false;
	}
	c->run_tid = end_w->uring ? end_worker(pid) : pid;
	ASSERT_LT(0, c->run_tid) TH_LOG("no io-wq worker runs the write");
	if (where == END_FAULTING_IN) {
		ASSERT_EQ(1, write(end_w->zap_go[1], "z", 1));
		/* The run seen in its fault-in, where HOLD is to come. */
		until = cb_now() + END_HOLD_START_S;
		while (!strstr(end_stack(pid, c->run_tid, stack, len), "fault_in") &&
		       cb_now() < until)
			;
	}
	if (where == END_FAULTING_IN || where == END_LOCK) {
		if (!end_hold_start(pid)) {
			ksft_print_msg("HOLD did not come: %s\n",
				       __atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE) ?
				       "the run ended first" : "no mmap() seen queued");
			return false;
		}
	}
	if (!end_holds(where)) {
		usleep(END_SETTLE_US);
		/* io_uring's write may have completed (E2BIG): its completion says. */
		if (end_w->uring) {
			uint64_t data;
			int res = cb_uring_posted(&end_u, &data);

			if (res != -EAGAIN) {
				end_w->run_err = -res;
				__atomic_store_n(&end_w->run_done, 1, __ATOMIC_RELEASE);
			}
		}
		return !__atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE);
	}
	usleep(200000);		/* the run at its next wait for the lock */
	for (i = 0; i < END_STATES; i++) {
		states[i] = cb_task_state(pid, c->run_tid);
		usleep(30000);
	}
	states[i] = '\0';
	end_stack(pid, c->run_tid, stack, len);
	return true;
}

/* The action of a cell: in a thread of the test, so that one that waits for HOLD is seen to. */
struct end_action {
	enum end_how how;
	struct end_cell *c;
	int ret;
	double took;
	int done;	/* __atomic */
};

static void *end_action_thread(void *p)
{
	struct end_action *a = p;
	double t0 = cb_now();
	cpu_set_t other;

	switch (a->how) {
	case END_OFFLINE:
		a->ret = cb_cpu_online(a->c->cpu, false);
		if (!a->ret)
			a->c->offline_cpu = a->c->cpu;
		break;
	case END_AFFINITY:
	case END_THROTTLED:
		CPU_ZERO(&other);
		CPU_SET(a->c->cpu ? 0 : 1, &other);
		a->ret = sched_setaffinity(a->c->run_tid, sizeof(other), &other) ? -errno : 0;
		break;
	case END_SECOND_WRITE:
		a->ret = write(end_w->run_fd, "1", 1) == 1 ? 0 : -errno;
		break;
	case END_PM_FREEZER:
		a->ret = cb_suspend_freezer_cycle();
		break;
	default:
		a->ret = -EINVAL;
		break;
	}
	a->took = cb_now() - t0;
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Run the action; true when it returned within timeout seconds. When it
 * did not, the server answers (HOLD goes), so that it can.
 */
static bool end_act(struct __test_metadata *_metadata, struct end_action *a, double timeout)
{
	double end = cb_now() + timeout;
	pthread_t th;
	bool done;

	a->c->t_action = cb_now();
	ASSERT_EQ(0, pthread_create(&th, NULL, end_action_thread, a));
	while (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) && cb_now() < end)
		usleep(10000);
	done = __atomic_load_n(&a->done, __ATOMIC_ACQUIRE);
	if (!done)
		end_fuse_release(&a->c->fuse);
	pthread_join(th, NULL);
	TH_LOG("the action returned %d (%s) after %.2f s", a->ret,
	       a->ret < 0 ? strerror(-a->ret) : "-", a->took);
	return done;
}

/* last_error names the ending's reason and where the run was. */
static void end_said(struct __test_metadata *_metadata, const char *reason, const char *doing)
{
	const char *line = cb_last_error();

	EXPECT_NE(NULL, strstr(line, reason)) TH_LOG("last_error does not say \"%s\": %s",
						     reason, line);
	EXPECT_NE(NULL, strstr(line, doing)) TH_LOG("last_error does not say \"%s\": %s",
						    doing, line);
}

/* The run ended within bound with errno want, its sentence and where; the results stay. */
static void end_failed(struct __test_metadata *_metadata, struct end_cell *c, int want,
		       const char *reason, const char *doing, double bound)
{
	int err = end_run_err(bound);
	char now[8192];

	TH_LOG("the run: %s after %.2f s: %s", err == -1 ? "still on" : strerror(err),
	       cb_now() - c->t_action, cb_last_error());
	EXPECT_EQ(want, err);
	if (err != want)
		return;
	end_said(_metadata, reason, doing);
	EXPECT_TRUE(end_knobs_until(true, END_BOUND_S)) TH_LOG("the knobs are still taken");
	cb_read("results", now, sizeof(now));
	EXPECT_STREQ(c->before, now) TH_LOG("a failed run changed the results");
}

/*
 * The endings that need the run to hold its CPU, in preparing: the action
 * returns at once, the run goes on waiting; once HOLD goes it ends at
 * "taking the run's CPU".
 */
static void end_at_cpu(struct __test_metadata *_metadata, struct end_cell *c, int want,
		       const char *reason, enum end_where where)
{
	if (where != END_PREPARING) {
		end_failed(_metadata, c, want, reason, end_doing[where], END_BOUND_S);
		return;
	}
	usleep(300000);
	EXPECT_EQ(-1, end_run_err(0))
		TH_LOG("the run ended before it held its CPU: %s", cb_last_error());
	end_fuse_release(&c->fuse);
	c->t_action = cb_now();
	end_failed(_metadata, c, want, reason, "while taking the run's CPU", END_GIVE_UP_S);
}

/* The ending stopped or froze the writer outside its run; then it goes on. */
static void end_outside(struct __test_metadata *_metadata, struct end_cell *c, char want,
			enum end_where where)
{
	char state;

	EXPECT_TRUE(end_state_until(c->child, c->run_tid, want, END_BOUND_S, &state))
		TH_LOG("the run's thread is in %c, not %c", state, want);
	EXPECT_TRUE(end_knobs_until(true, END_BOUND_S))
		TH_LOG("a stopped or frozen writer still holds the run");
	TH_LOG("outside the run after %.2f s", cb_now() - c->t_action);
	EXPECT_EQ(-1, end_run_err(0)) TH_LOG("the write returned: %s", cb_last_error());
}

static void end_how_check(struct __test_metadata *_metadata, struct end_cell *c,
			  enum end_how how, enum end_where where)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_ASYNC_CANCEL, .addr = END_WRITE_DATA,
		.user_data = END_CANCEL_DATA,
	};
	struct end_action a = { .how = how, .c = c };
	const char *doing = end_doing[where];
	int write_res = 1, cancel_res = 1, res, err, i;
	char state, now[8192], reason[256];
	struct cb_res r;
	uint64_t data;

	c->t_action = cb_now();
	switch (how) {
	case END_SIGKILL:
		ASSERT_EQ(0, kill(c->child, SIGKILL));
		/*
		 * With HOLD the GUP's thread waits in FUSE's D whatever the
		 * signal, so the writer exits when the teardown answers: the
		 * run's thread must be dead before that.
		 */
		if (end_holds(where)) {
			EXPECT_TRUE(end_state_until(c->child, c->run_tid, 'Z', END_BOUND_S, &state))
				TH_LOG("the run's thread is in %c, not dead", state);
		} else {
			err = cb_wait_child(c->child, END_BOUND_S);
			EXPECT_NE(-1, err) TH_LOG("the writer lives on");
			if (err != -1) {
				EXPECT_EQ(128 + SIGKILL, cb_exit_code(err));
				c->child = 0;
			}
		}
		TH_LOG("dead after %.2f s", cb_now() - c->t_action);
		EXPECT_TRUE(end_knobs_until(true, END_BOUND_S)) TH_LOG("the knobs are still taken");
		cb_read("results", now, sizeof(now));
		EXPECT_STREQ(c->before, now);
		break;
	case END_SIGNAL:
		ASSERT_EQ(0, syscall(SYS_tgkill, c->child, c->run_tid, SIGUSR1));
		end_failed(_metadata, c, EINTR, "a signal interrupted the run", doing, END_BOUND_S);
		break;
	case END_RESTART:
		ASSERT_EQ(0, syscall(SYS_tgkill, c->child, c->run_tid, SIGUSR2));
		while (!__atomic_load_n(&end_w->usr2_seen, __ATOMIC_ACQUIRE) &&
		       cb_now() < c->t_action + END_BOUND_S)
			usleep(10000);
		EXPECT_EQ(1, __atomic_load_n(&end_w->usr2_seen, __ATOMIC_ACQUIRE))
			TH_LOG("the SA_RESTART handler did not run");
		TH_LOG("the handler ran after %.2f s", cb_now() - c->t_action);
		usleep(200000);
		err = end_run_err(0);
		EXPECT_EQ(-1, err) TH_LOG("the write did not start again: %s", strerror(err));
		EXPECT_TRUE(end_knobs_until(false, END_BOUND_S)) TH_LOG("no run after the handler");
		EXPECT_NE('D', cb_task_state(c->child, c->run_tid))
			TH_LOG("the run started again sleeps in D");
		break;
	case END_SIGSTOP:
		ASSERT_EQ(0, kill(c->child, SIGSTOP));
		end_outside(_metadata, c, 'T', where);
		ASSERT_EQ(0, kill(c->child, SIGCONT));
		EXPECT_TRUE(end_knobs_until(false, END_BOUND_S))
			TH_LOG("SIGCONT did not start the run again: %s", cb_last_error());
		break;
	case END_CGROUP_FREEZER:
		ASSERT_EQ(0, cb_cgroup_write(c->cg, "cgroup.freeze", "1"));
		/* HOLD's own threads never freeze: the run's must. */
		end_outside(_metadata, c, 'S', where);
		if (!end_holds(where))
			EXPECT_EQ(1, cb_cgroup_read(c->cg, "cgroup.events", "frozen"));
		ASSERT_EQ(0, cb_cgroup_write(c->cg, "cgroup.freeze", "0"));
		EXPECT_TRUE(end_knobs_until(false, END_BOUND_S))
			TH_LOG("the thaw did not start the run again: %s", cb_last_error());
		break;
	case END_PM_FREEZER:
		/* The cycle freezes this test too, and thaws it after its delay. */
		EXPECT_TRUE(end_act(_metadata, &a, END_GIVE_UP_S));
		EXPECT_EQ(0, a.ret) TH_LOG("suspend's freezer during the run: %s",
					   strerror(-a.ret));
		err = end_run_err(0);
		EXPECT_TRUE(err == -1 || err == 0)
			TH_LOG("the run after the thaw: %s", cb_last_error());
		break;
	case END_DEADLINE:
		/* Before the first timed sample ETIME, after it the samples taken. */
		snprintf(reason, sizeof(reason), "max_run_ms %u was reached", end_deadline_ms(where));
		if (where == END_PREPARING) {
			end_failed(_metadata, c, ETIME, reason, doing,
				   end_deadline_ms(where) / 1000.0 + END_BOUND_S);
			break;
		}
		/* A run whose every sample meets a zapped page may have none. */
		if (where == END_FAULTING_IN && end_run_err(end_deadline_ms(where) / 1000.0 +
							    END_BOUND_S) == ETIME) {
			end_failed(_metadata, c, ETIME, reason, doing, 0);
			break;
		}
		err = end_run_err(end_deadline_ms(where) / 1000.0 + END_BOUND_S);
		TH_LOG("the run: %s: %s", err == -1 ? "still on" : strerror(err), cb_last_error());
		EXPECT_EQ(0, err);
		if (err)
			break;
		EXPECT_TRUE(end_knobs_until(true, END_BOUND_S));
		EXPECT_EQ(NULL, cb_parse_results(&r, reason, sizeof(reason))) TH_LOG("%s", reason);
		EXPECT_EQ(1ULL, cb_res_u(&r, "truncated")) TH_LOG("the results are not truncated");
		break;
	case END_OFFLINE:
		EXPECT_TRUE(end_act(_metadata, &a, END_BOUND_S)) TH_LOG("the offline waited");
		ASSERT_EQ(0, a.ret);
		end_at_cpu(_metadata, c, ENODEV, "went offline during the run", where);
		break;
	case END_AFFINITY:
		EXPECT_TRUE(end_act(_metadata, &a, END_BOUND_S))
			TH_LOG("the affinity change waited");
		ASSERT_EQ(0, a.ret);
		end_at_cpu(_metadata, c, EINVAL, "left the writer's allowed CPUs", where);
		break;
	case END_THROTTLED:
		/*
		 * What the bound is about is the setter, which waits for a
		 * migrate-disabled writer: once it returned, the quota goes,
		 * and the run's own unwinding (freeing 64 MiB under KASAN) is
		 * not paced at 2%.
		 */
		ASSERT_EQ(0, cb_cgroup_write(c->cg, "cpu.max", "2000 100000"));
		usleep(300000);		/* throttled, in debt */
		EXPECT_TRUE(end_act(_metadata, &a, END_BOUND_S))
			TH_LOG("the affinity change waited");
		ASSERT_EQ(0, a.ret);
		ASSERT_EQ(0, cb_cgroup_write(c->cg, "cpu.max", "max"));
		end_at_cpu(_metadata, c, EINVAL, "left the writer's allowed CPUs", where);
		break;
	case END_SECOND_WRITE:
		EXPECT_TRUE(end_act(_metadata, &a, END_BOUND_S)) TH_LOG("the second write waited");
		EXPECT_EQ(-EBUSY, a.ret);
		err = end_run_err(0);
		EXPECT_EQ(-1, err) TH_LOG("the first run ended: %s", cb_last_error());
		EXPECT_TRUE(end_knobs_until(false, 0)) TH_LOG("the knobs are free");
		cb_read("results", now, sizeof(now));
		EXPECT_STREQ(c->before, now) TH_LOG("the second write ran");
		break;
	case END_CANCEL:
		ASSERT_EQ(0, cb_uring_submit(&end_u, &sqe, false));
		for (i = 0; i < 2 && !cb_uring_reap(&end_u, END_BOUND_S, &data, &res); i++) {
			if (data == END_WRITE_DATA)
				write_res = res;
			else
				cancel_res = res;
		}
		TH_LOG("the cancel: %d, the write: %d, after %.2f s; %s", cancel_res, write_res,
		       cb_now() - c->t_action, cb_last_error());
		EXPECT_TRUE(cancel_res == 0 || cancel_res == -EALREADY);
		EXPECT_EQ(-ECANCELED, write_res);
		if (write_res != -ECANCELED)
			break;
		end_said(_metadata, "io_uring cancelled the run", doing);
		EXPECT_TRUE(end_knobs_until(true, END_BOUND_S)) TH_LOG("the knobs are still taken");
		cb_read("results", now, sizeof(now));
		EXPECT_STREQ(c->before, now);
		break;
	}
}

/*
 * The loops of a timed cell: samples of END_SAMPLE_NS, so that an ending
 * comes inside a sample (between the windows of a hot one, the copies of
 * a cold one), by what one copy takes in a short run first; 1 elsewhere.
 */
static unsigned int end_loops(struct __test_metadata *_metadata, enum end_where where,
			      const char *cache)
{
	const char * const knobs[] = {
		"direction=to_user", "variant=movsb", "size=65536", cache, "loops=1",
		"samples=3", "max_run_ms=60000", "cpu=-1", NULL,
	};
	unsigned long long copy_ns, loops;
	const char *failed = NULL;
	struct cb_res r;
	char why[256];
	int ret;

	if (where != END_HOT && where != END_COLD)
		return 1;
	ret = cb_write_knobs(knobs, &failed);
	if (ret) {
		TH_LOG("%s: %s", failed, strerror(-ret));
		return 1;
	}
	ret = cb_do_run();
	cb_buffer_release();	/* the writer, a fork of this, maps its own */
	if (ret || cb_parse_results(&r, why, sizeof(why))) {
		TH_LOG("one copy's cost: %s", ret ? cb_last_error() : why);
		return 1;
	}
	copy_ns = cb_res_c100(&r, "cycles_median") * 10000 / cb_res_u(&r, "tsc_khz") + 1;
	loops = END_SAMPLE_NS / copy_ns;
	loops = loops < 1 ? 1 : loops > 100000 ? 100000 : loops;
	TH_LOG("one copy: %llu ns; loops %llu", copy_ns, loops);
	return loops;
}

/*
 * One cell: a to_user run of movsb, pinned to the last CPU (io_uring's
 * worker is not the writer's to pin: its run takes the CPU it is on),
 * placed, then ended.
 */
static void end_cell_run(struct __test_metadata *_metadata, struct end_cell *c,
			 enum end_how how, enum end_where where)
{
	unsigned int max_run_ms = how == END_DEADLINE ? end_deadline_ms(where) : 120000;
	char size[32], loops[32], max_run[32], cpu[32], states[END_STATES + 1], stack[2048];
	const char *cache = where == END_COLD ? "cache=cold" : "cache=hot";
	const char * const knobs[] = {
		"direction=to_user", "variant=movsb", size, cache, loops, "samples=100000",
		max_run, cpu, NULL,
	};
	bool placed = false;
	unsigned int nloops;
	int ret, try;

	if (!c->saved.valid)
		return;		/* SKIPped in the setup */
	c->cpu = how == END_CANCEL ? -1 : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (how == END_CGROUP_FREEZER || how == END_THROTTLED) {
		ret = cb_cgroup_make(c->cg, sizeof(c->cg), "cb_end",
				     how == END_THROTTLED ? "+cpu" : "");
		ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	}
	snprintf(size, sizeof(size), "size=%lu", where == END_FAULTING_IN ? END_ZAP_SIZE : 65536);
	nloops = end_loops(_metadata, where, cache);
	snprintf(max_run, sizeof(max_run), "max_run_ms=%u", max_run_ms);
	snprintf(cpu, sizeof(cpu), "cpu=%d", c->cpu);
	/*
	 * faulting_in: HOLD may come while the run tries a window, not in
	 * the fault-in, and the run then tries the window until HOLD goes:
	 * it is set up again, until the run's stack shows the fault-in; so is
	 * a HOLD that did not come.
	 */
	for (try = 1; try <= END_HOLD_TRIES; try++) {
		snprintf(loops, sizeof(loops), "loops=%u", nloops);
		end_setup(_metadata, c, how, where, knobs);
		cb_read("results", c->before, sizeof(c->before));
		placed = end_place(_metadata, c, where, states, stack, sizeof(stack));
		if (placed && end_holds(where))
			ksft_print_msg("HOLD in place, the run's states %s, its stack: %s\n",
				       states, stack);
		if (placed && (where != END_FAULTING_IN || strstr(stack, "fault_in")))
			break;
		/* Under TCG a calibrating copy can take ten times the others. */
		if (!placed && end_w->run_err == E2BIG && nloops > 1)
			nloops /= 2;
		if (try < END_HOLD_TRIES)
			end_stop(c);
	}
	ASSERT_TRUE(placed) TH_LOG("the run never got where the cell wants it in %d tries",
				   END_HOLD_TRIES);
	if (where == END_FAULTING_IN)
		EXPECT_NE(NULL, strstr(stack, "fault_in"))
			TH_LOG("HOLD never came while the run faulted its buffer in (%d tries)",
			       END_HOLD_TRIES);
	if (end_holds(where))
		EXPECT_NE(END_STATES, (int)strspn(states, "D"))
			TH_LOG("the run sleeps in D for the lock");
	ASSERT_EQ(0, __atomic_load_n(&end_w->run_done, __ATOMIC_ACQUIRE))
		TH_LOG("the run ended before the ending came: %s", cb_last_error());
	end_how_check(_metadata, c, how, where);
	EXPECT_STREQ("", cb_kmsg_report(c->kmsg));
}

TEST_F_TIMEOUT(ending_held, while_preparing, 300)
{
	end_cell_run(_metadata, &self->c, variant->how, END_PREPARING);
}

TEST_F_TIMEOUT(ending_held, while_faulting_in, 300)
{
	end_cell_run(_metadata, &self->c, variant->how, END_FAULTING_IN);
}

TEST_F_TIMEOUT(ending_held, while_waiting_for_the_lock, 300)
{
	end_cell_run(_metadata, &self->c, variant->how, END_LOCK);
}

TEST_F_TIMEOUT(ending, while_timed_hot, 300)
{
	end_cell_run(_metadata, &self->c, variant->how, END_HOT);
}

TEST_F_TIMEOUT(ending, while_timed_cold, 300)
{
	end_cell_run(_metadata, &self->c, variant->how, END_COLD);
}

TEST_HARNESS_MAIN
