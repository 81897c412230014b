// SPDX-License-Identifier: GPL-2.0
/*
 * readers_run.c - one timed run of the readers harness, and the CPUs its
 * threads are pinned to.
 *
 * The threads are created pinned round-robin over the CPUs this process
 * may run on, set up their buffers and file descriptors, and wait at a
 * start gate until all of them exist. Then they read in a loop
 * while the main thread moves one phase word from warm-up to measure to
 * stop. Each thread reads CLOCK_MONOTONIC itself when it sees the phase
 * change, so the interval is measured, never assumed from a sleep, and
 * warm-up reads are not counted. Everything a thread writes while reading
 * lives in its own struct, padded to RD_PAD bytes, and is published once,
 * at the end: the harness itself shares no hot line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <assert.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "readers.h"

enum rd_phase {
	RD_PHASE_WARMUP,
	RD_PHASE_MEASURE,
	RD_PHASE_STOP,
};

/*
 * The phase word: written by the main thread (and a signal handler) a
 * handful of times per run, read by every thread on every iteration, so
 * its line stays shared and clean. Alone on its lines.
 */
static struct {
	alignas(RD_PAD) atomic_int phase;
	atomic_int failed;
	atomic_uint settled;	/* threads measuring, or done */
	char pad[RD_PAD - 2 * sizeof(atomic_int) - sizeof(atomic_uint)];
} rd_gate;

/* Wakes the main thread early: a thread failed, or a signal came. */
static sem_t rd_wake;
static bool rd_wake_ready;
atomic_int rd_interrupted;

static int rd_cpus[CPU_SETSIZE];
static unsigned int rd_ncpus;
static long rd_page_size;

struct rd_thread {
	alignas(RD_PAD) pthread_t tid;
	unsigned int idx;
	int cpu;			/* -1: not pinned */
	const struct rd_config *cfg;
	const struct rd_sums *sums;
	unsigned char *buf;		/* where reads land */
	unsigned char *src;		/* memcpy: this thread's source */
	uint64_t buf_map;		/* bytes mapped at buf, if its own */
	int fd;
	/* Published when the thread stops. */
	uint64_t bytes, reads, short_reads, eof_reads;
	uint64_t sink;			/* what touching the data computed */
	struct timespec t0, t1;
	bool measured;
	bool settled;			/* counted in rd_gate.settled */
	bool verified;
	bool failed;
	char error[384];
};

static_assert(sizeof(struct rd_thread) % RD_PAD == 0,
	      "per-thread data must not share a line pair with the next");

/* The CPUs this process may run on, in order: the pinning targets. */
int rd_cpus_init(void)
{
	cpu_set_t set;
	int cpu;

	rd_page_size = sysconf(_SC_PAGESIZE);
	if (rd_page_size <= 0)
		rd_page_size = 4096;
	if (sem_init(&rd_wake, 0, 0))
		return -errno;
	rd_wake_ready = true;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	rd_ncpus = 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			rd_cpus[rd_ncpus++] = cpu;
	return rd_ncpus ? 0 : -ENODEV;
}

unsigned int rd_cpu_count(void)
{
	return rd_ncpus;
}

/* "0-1" style list of the pinning targets. */
const char *rd_cpu_list(char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i, j;

	buf[0] = '\0';
	for (i = 0; i < rd_ncpus && used < len; i = j + 1) {
		j = i;
		while (j + 1 < rd_ncpus && rd_cpus[j + 1] == rd_cpus[j] + 1)
			j++;
		if (j > i)
			used += snprintf(buf + used, len - used, "%s%d-%d",
					 used ? "," : "", rd_cpus[i], rd_cpus[j]);
		else
			used += snprintf(buf + used, len - used, "%s%d",
					 used ? "," : "", rd_cpus[i]);
	}
	return buf;
}

/* From a signal handler: stop the run in progress. Async-signal-safe. */
void rd_run_signal(void)
{
	atomic_store(&rd_interrupted, 1);
	atomic_store(&rd_gate.phase, RD_PHASE_STOP);
	if (rd_wake_ready)
		sem_post(&rd_wake);
}

static double rd_ts(const struct timespec *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

static void *rd_map(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t rd_round_page(uint64_t len)
{
	return (len + rd_page_size - 1) / rd_page_size * rd_page_size;
}

static void __printf(2, 3) rd_thread_fail(struct rd_thread *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->failed) {
		va_start(ap, fmt);
		vsnprintf(t->error, sizeof(t->error), fmt, ap);
		va_end(ap);
		t->failed = true;
	}
	atomic_store(&rd_gate.failed, 1);
	sem_post(&rd_wake);
}

/* Before the gate: what this thread owns, allocated and touched by it. */
static void rd_thread_setup(struct rd_thread *t)
{
	const struct rd_config *cfg = t->cfg;
	const struct rd_source *src = cfg->src;

	if (cfg->buffer == RD_BUF_PRIVATE) {
		t->buf_map = rd_round_page(cfg->chunk);
		t->buf = rd_map(t->buf_map);
		if (!t->buf) {
			rd_thread_fail(t, "thread %u: cannot map a %llu-byte buffer",
				       t->idx, (unsigned long long)t->buf_map);
			return;
		}
		memset(t->buf, 0, cfg->chunk);
	}

	if (src->kind == RD_SRC_MEMCPY) {
		t->src = rd_map(rd_round_page(src->size));
		if (!t->src) {
			rd_thread_fail(t, "thread %u: cannot map a %llu-byte source",
				       t->idx, (unsigned long long)src->size);
			return;
		}
		rd_fill_content(t->src, 0, src->size);
		if (cfg->corrupt_at >= 0)
			t->src[cfg->corrupt_at] ^= 0xff;
		return;
	}

	/* Its own open file: no shared struct file refcount in the loop. */
	t->fd = open(src->path, O_RDONLY | O_CLOEXEC |
		     (src->seekable ? 0 : O_NONBLOCK));
	if (t->fd < 0) {
		rd_thread_fail(t, "thread %u: cannot open %s: %s", t->idx,
			       src->path, strerror(errno));
		return;
	}
	/* Non-blocking only so that opening a FIFO cannot hang. */
	if (!src->seekable)
		fcntl(t->fd, F_SETFL, 0);
}

static void rd_report_mismatch(struct rd_thread *t, const unsigned char *buf,
			       uint64_t off, uint64_t got)
{
	int64_t bad = rd_first_mismatch(buf, off, got);
	unsigned char want[1];

	if (bad < 0) {
		/* The checksum disagreed but every byte matches now: racy. */
		rd_thread_fail(t, "thread %u: data changed while being checked at offset %llu (%llu bytes)",
			       t->idx, (unsigned long long)off,
			       (unsigned long long)got);
		return;
	}
	rd_fill_content(want, off + bad, 1);
	rd_thread_fail(t, "thread %u: byte mismatch at offset %llu: expected 0x%02x, got 0x%02x",
		       t->idx, (unsigned long long)(off + bad), want[0], buf[bad]);
}

/*
 * rd_read_loop - read until the phase says stop. A read asks for a chunk;
 * with a known size it must return min(chunk, size - offset), and the
 * next read wraps to offset 0 at the end. Anything less is a short read:
 * counted, and the loop goes on from where the data stopped. With an
 * unknown size (st_size 0: /proc, debugfs) a partial read followed by a
 * zero-byte read was the end of the file; a partial read followed by more
 * data was short.
 */
/* Where a thread reads next, and what its reads came to. */
struct rd_cursor {
	uint64_t off;
	uint64_t short_reads, eof_reads;
	bool partial;		/* unknown size: the last read was short */
};

/*
 * Touch what one read got at off as --touch says; with verification,
 * check it. -1 when a byte is wrong (reported), else 0.
 */
static int rd_touch(struct rd_thread *t, uint64_t off, int64_t got, uint64_t expect,
		    uint64_t *sink)
{
	const struct rd_config *cfg = t->cfg;
	const struct rd_sums *sums = t->sums;
	const long step = cfg->touch == RD_TOUCH_LINE ? 64 : rd_page_size;
	const unsigned char *buf = t->buf;
	struct rd_sum s;

	switch (cfg->touch) {
	case RD_TOUCH_NONE:
		break;
	case RD_TOUCH_LINE:
	case RD_TOUCH_PAGE:
		for (int64_t i = 0; i < got; i += step)
			*sink += buf[i];
		break;
	case RD_TOUCH_ALL:
		if (!cfg->verify) {
			s = rd_checksum(buf, got);
			*sink += s.a ^ s.b;
		} else if (sums->sum && off % cfg->chunk == 0 && (uint64_t)got == expect) {
			const struct rd_sum *e = &sums->sum[off / cfg->chunk];

			s = rd_checksum(buf, got);
			if (s.a != e->a || s.b != e->b) {
				rd_report_mismatch(t, buf, off, got);
				return -1;
			}
			*sink += s.a;
		} else if (rd_first_mismatch(buf, off, got) >= 0) {
			rd_report_mismatch(t, buf, off, got);
			return -1;
		}
		break;
	}
	return 0;
}

/*
 * Move the cursor past a read of got bytes (expect asked of a file of
 * known size), counting short reads and reads that met the end of file.
 * -1 when the source cannot be read on (reported), else 0.
 */
static int rd_advance(struct rd_thread *t, struct rd_cursor *c, int64_t got, uint64_t expect)
{
	const struct rd_source *src = t->cfg->src;
	const uint64_t size = src->size, chunk = t->cfg->chunk;

	if (!src->seekable) {
		/* A pipe: no offsets, no end of file to wrap at. */
		if (got == 0) {
			rd_thread_fail(t, "thread %u: %s ended (end of file on a non-seekable source)",
				       t->idx, src->path);
			return -1;
		}
		if ((uint64_t)got < chunk)
			c->short_reads++;
	} else if (size) {
		/* More than expected: the file grew; not short. */
		if ((uint64_t)got >= expect) {
			if ((uint64_t)got < chunk)
				c->eof_reads++;
			c->off += got;
		} else {
			c->short_reads++;
			c->off += got;
			if (got == 0)
				c->off = size;	/* ended early: wrap */
		}
		if (c->off >= size)
			c->off = 0;
	} else {
		if (got == 0) {
			if (c->off == 0) {
				rd_thread_fail(t, "thread %u: %s is empty", t->idx, src->path);
				return -1;
			}
			if (c->partial)
				c->eof_reads++;
			c->off = 0;
		} else {
			if (c->partial)
				c->short_reads++;
			c->off += got;
		}
		c->partial = got > 0 && (uint64_t)got < chunk;
	}
	return 0;
}

/* One read of the source at the cursor into the thread's buffer: bytes, or -1. */
static int64_t rd_read_once(struct rd_thread *t, uint64_t off, uint64_t expect)
{
	const struct rd_source *src = t->cfg->src;

	if (src->kind == RD_SRC_MEMCPY)
		return expect - src->uvariant->copy(t->buf, t->src + off, expect);
	if (src->seekable)
		return pread(t->fd, t->buf, t->cfg->chunk, off);
	return read(t->fd, t->buf, t->cfg->chunk);
}

/* The thread is in the measured phase, or will never be: counted once. */
static void rd_settle(struct rd_thread *t)
{
	if (!t->settled) {
		t->settled = true;
		atomic_fetch_add(&rd_gate.settled, 1);
	}
}

static void rd_read_loop(struct rd_thread *t)
{
	const struct rd_config *cfg = t->cfg;
	const uint64_t size = cfg->src->size, chunk = cfg->chunk;
	uint64_t bytes = 0, reads = 0, sink = 0;
	struct rd_cursor c = { 0 };
	int phase = RD_PHASE_WARMUP;

	/* Spread the starting offsets over the source, chunk-aligned. */
	if (size && cfg->src->seekable)
		c.off = t->idx * ((size + chunk - 1) / chunk) / cfg->threads * chunk;
	for (;;) {
		int now = atomic_load_explicit(&rd_gate.phase, memory_order_relaxed);
		uint64_t expect = size && chunk > size - c.off ? size - c.off : chunk;
		int64_t got;

		if (now != phase) {
			if (now == RD_PHASE_STOP)
				break;
			/* Measuring starts here: forget the warm-up. */
			clock_gettime(CLOCK_MONOTONIC, &t->t0);
			bytes = reads = c.short_reads = c.eof_reads = 0;
			t->measured = true;
			rd_settle(t);
			phase = now;
		}
		got = rd_read_once(t, c.off, expect);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			rd_thread_fail(t, "thread %u: read at offset %llu: %s", t->idx,
				       (unsigned long long)c.off, strerror(errno));
			break;
		}
		reads++;
		bytes += got;
		if (rd_touch(t, c.off, got, expect, &sink) || rd_advance(t, &c, got, expect))
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t->t1);
	t->bytes = bytes;
	t->reads = reads;
	t->short_reads = c.short_reads;
	t->eof_reads = c.eof_reads;
	t->sink = sink;
	t->verified = cfg->verify && !t->failed;
}

/*
 * The start gate: threads count themselves in when set up and wait for it
 * to open; the main thread opens it when every thread it created is in.
 */
static pthread_mutex_t rd_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rd_gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned int rd_gate_ready;
static bool rd_gate_open;

static void *rd_thread_main(void *arg)
{
	struct rd_thread *t = arg;

	rd_thread_setup(t);

	pthread_mutex_lock(&rd_gate_lock);
	rd_gate_ready++;
	pthread_cond_broadcast(&rd_gate_cond);
	while (!rd_gate_open)
		pthread_cond_wait(&rd_gate_cond, &rd_gate_lock);
	pthread_mutex_unlock(&rd_gate_lock);

	if (!t->failed && !atomic_load(&rd_gate.failed))
		rd_read_loop(t);
	rd_settle(t);
	return NULL;
}

/* Wait for n threads to reach the gate, then let them all go. */
static void rd_gate_release(unsigned int n)
{
	pthread_mutex_lock(&rd_gate_lock);
	while (rd_gate_ready < n)
		pthread_cond_wait(&rd_gate_cond, &rd_gate_lock);
	rd_gate_open = true;
	pthread_cond_broadcast(&rd_gate_cond);
	pthread_mutex_unlock(&rd_gate_lock);
}

/* Sleep until deadline, unless woken for a failure or a signal. */
static bool rd_wait_until(const struct timespec *deadline)
{
	for (;;) {
		if (atomic_load(&rd_interrupted) || atomic_load(&rd_gate.failed))
			return false;
		if (!sem_clockwait(&rd_wake, CLOCK_MONOTONIC, deadline))
			continue;	/* a post: look at the flags again */
		if (errno == ETIMEDOUT)
			return true;
		if (errno != EINTR)
			return false;
	}
}

static void rd_deadline(struct timespec *ts, double seconds)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)seconds;
	ts->tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void rd_collect(const struct rd_config *cfg, struct rd_thread *th,
		       struct rd_result *res)
{
	double first = 0, last = 0;
	bool any = false;
	unsigned int i;

	res->verified = cfg->verify;
	for (i = 0; i < cfg->threads; i++) {
		struct rd_thread *t = &th[i];

		if (t->failed && !res->failed) {
			res->failed = true;
			snprintf(res->error, sizeof(res->error), "%s", t->error);
		}
		res->verified &= t->verified;
		if (!t->measured)
			continue;
		double t0 = rd_ts(&t->t0), t1 = rd_ts(&t->t1);
		double gbps = t1 > t0 ? t->bytes / (t1 - t0) / 1e9 : 0;

		if (!any || t0 < first)
			first = t0;
		if (!any || t1 > last)
			last = t1;
		if (!any || gbps < res->thread_gbps_min)
			res->thread_gbps_min = gbps;
		if (!any || gbps > res->thread_gbps_max)
			res->thread_gbps_max = gbps;
		any = true;
		res->bytes += t->bytes;
		res->reads += t->reads;
		res->short_reads += t->short_reads;
		res->eof_reads += t->eof_reads;
	}
	if (!any && !res->failed) {
		res->failed = true;
		snprintf(res->error, sizeof(res->error), "no thread reached the measured phase");
	}
	res->interval_s = any ? last - first : 0;
	if (res->interval_s > 0) {
		res->gbps = res->bytes / res->interval_s / 1e9;
		res->reads_per_s = res->reads / res->interval_s;
	}
	if (atomic_load(&rd_interrupted) && !res->failed) {
		res->failed = true;
		snprintf(res->error, sizeof(res->error), "interrupted by a signal");
	}
	if (res->failed)
		res->verified = false;
}

/*
 * rd_run - one run of cfg. Returns 0 when it ran (res says whether it
 * failed), or -errno when it could not start.
 */
/* The start gate set for a new run (an interrupt already seen: stop at once). */
static void rd_gate_reset(const struct rd_config *cfg)
{
	while (!sem_trywait(&rd_wake))
		;		/* drain posts left by an earlier run */
	atomic_store(&rd_gate.failed, 0);
	atomic_store(&rd_gate.settled, 0);
	atomic_store(&rd_gate.phase,
		     cfg->warmup_s > 0 ? RD_PHASE_WARMUP : RD_PHASE_MEASURE);
	if (atomic_load(&rd_interrupted))
		atomic_store(&rd_gate.phase, RD_PHASE_STOP);
	rd_gate_ready = 0;
	rd_gate_open = false;
}

/*
 * Create the threads of th[], pinned round-robin when asked, with the
 * signals left to the main thread. Returns how many exist; *ret the
 * error that stopped the others.
 */
static unsigned int rd_start_threads(const struct rd_config *cfg, const struct rd_sums *sums,
				     struct rd_thread *th, int *ret)
{
	unsigned int i, created = 0;
	sigset_t block, old;
	pthread_attr_t attr;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	pthread_attr_init(&attr);
	for (i = 0; i < cfg->threads; i++) {
		struct rd_thread *t = &th[i];

		t->idx = i;
		t->cfg = cfg;
		t->sums = sums;
		t->fd = -1;
		t->cpu = -1;
		if (cfg->pin) {
			cpu_set_t set;

			t->cpu = rd_cpus[i % rd_ncpus];
			CPU_ZERO(&set);
			CPU_SET(t->cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		*ret = -pthread_create(&t->tid, &attr, rd_thread_main, t);
		if (*ret)
			break;
		created++;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return created;
}

/* Open the gate, then warm-up, measure and stop on the clock (or stop at once). */
static void rd_drive(const struct rd_config *cfg, unsigned int created)
{
	struct timespec deadline;

	if (created < cfg->threads) {
		/* Let the ones that exist go, straight to the exit. */
		atomic_store(&rd_gate.failed, 1);
		atomic_store(&rd_gate.phase, RD_PHASE_STOP);
		rd_gate_release(created);
		return;
	}
	rd_gate_release(created);
	if (cfg->warmup_s > 0) {
		rd_deadline(&deadline, cfg->warmup_s);
		if (rd_wait_until(&deadline))
			atomic_store(&rd_gate.phase, RD_PHASE_MEASURE);
	}
	if (atomic_load(&rd_gate.phase) == RD_PHASE_MEASURE) {
		rd_deadline(&deadline, cfg->duration_s);
		/*
		 * A thread that was not scheduled in the window, or sat in
		 * one read through it (a pipe's writer not scheduled), has
		 * measured nothing: the window stays open, 1 ms at a time,
		 * until every thread is in it or done (each thread's own
		 * interval is what its rate divides by).
		 */
		if (rd_wait_until(&deadline))
			while (atomic_load(&rd_gate.settled) < created) {
				rd_deadline(&deadline, 0.001);
				if (!rd_wait_until(&deadline))
					break;
			}
	}
	atomic_store(&rd_gate.phase, RD_PHASE_STOP);
}

/* What the joined threads th[0..n) hold: their files and mappings. */
static void rd_threads_release(const struct rd_config *cfg, struct rd_thread *th, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (th[i].fd >= 0)
			close(th[i].fd);
		if (th[i].buf_map)
			munmap(th[i].buf, th[i].buf_map);
		if (th[i].src)
			munmap(th[i].src, rd_round_page(cfg->src->size));
	}
}

int rd_run(const struct rd_config *cfg, const struct rd_sums *sums,
	   struct rd_result *res)
{
	unsigned char *common = NULL;
	uint64_t common_len = 0;
	struct rd_thread *th;
	unsigned int i, created;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	th = aligned_alloc(RD_PAD, sizeof(*th) * cfg->threads);
	if (!th)
		return -ENOMEM;
	memset(th, 0, sizeof(*th) * cfg->threads);

	/* shared and stride: one allocation, made and touched here. */
	if (cfg->buffer != RD_BUF_PRIVATE) {
		uint64_t stride = cfg->buffer == RD_BUF_STRIDE ? cfg->stride : 0;

		common_len = rd_round_page((cfg->threads - 1) * stride + cfg->chunk);
		common = rd_map(common_len);
		if (!common) {
			ret = -ENOMEM;
			goto free_th;
		}
		memset(common, 0, common_len);
		for (i = 0; i < cfg->threads; i++)
			th[i].buf = common + i * stride;
	}
	rd_gate_reset(cfg);
	created = rd_start_threads(cfg, sums, th, &ret);
	rd_drive(cfg, created);
	for (i = 0; i < created; i++)
		pthread_join(th[i].tid, NULL);
	if (created == cfg->threads)
		rd_collect(cfg, th, res);
	rd_threads_release(cfg, th, created);
	if (common)
		munmap(common, common_len);
free_th:
	free(th);
	return ret;
}
