// SPDX-License-Identifier: GPL-2.0
/*
 * cb_measure.c - the timed part of a run, in the writer's own context and
 * held on its CPU with migrate_disable() (kernel/rcu/refscale.c's way, in
 * the writer rather than a thread): the cost of one copy, the loops, a
 * warm-up, then the timed samples with the baseline samples between them,
 * and their statistics. What ends it, cb_stop.c says: the deadline, the
 * writer's own signals and io_uring's cancel within one copy; CPU hotplug
 * and affinity changes, which wait for a migrate-disabled task, at the
 * next window of a hot sample or the next cold copy. Nothing in it sleeps while it holds the CPU: the mmap lock is
 * tried, or waited for with migration enabled by a writer pinned to the
 * run's CPU (cb_window_begin()); the fault-in runs with migration enabled.
 * No wait for the lock is in its queue (cb_buf_mm_lock()): each ends on
 * what ends a sample, not only when the lock's holder lets go.
 * Documentation/copybench.rst, "How a run measures".
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/timex.h>
#include <asm/tsc.h>

#include "cb_compat.h"
#include "cb_run.h"

/* The first probe copy of a large size: far below any bound, even emulated. */
#define CB_PROBE_BYTES		(256UL << 10)
/* Cache flushes of cold runs go in pieces this big, each a rescheduling point. */
#define CB_FLUSH_PIECE		(256UL << 10)

static u64 cb_cycles_to_ms(u64 cycles)
{
	return tsc_khz ? div_u64(cycles, tsc_khz) : 0;
}

static u64 cb_cycles_to_us(u64 cycles)
{
	return tsc_khz ? div_u64(cycles * 1000, tsc_khz) : 0;
}

/*
 * After a step taken with migration enabled: is the writer still on the
 * run's CPU? Samples from two CPUs are not one measurement; the run ends
 * rather than move the writer back (it never changes its affinity).
 */
static int cb_back_on_cpu(struct cb_krun *c, const char *during)
{
	int here = smp_processor_id();

	if (here == c->cpu)
		return 0;
	return cb_krun_fail(c, -EAGAIN,
			    "the writer moved from cpu %d to cpu %d while %s during the run; pin the writer to one CPU (taskset -c N) and write cpu",
			    c->cpu, here, during);
}

/* The empty copies of the baseline: one per direction, typed alike. */
static noinline unsigned long cb_empty_mem(void *dst, const void *src, unsigned long len)
{
	barrier();
	return 0;
}

static noinline unsigned long cb_empty_to_user(void __user *dst, const void *src,
					       unsigned long len)
{
	barrier();
	return 0;
}

static noinline unsigned long cb_empty_from_user(void *dst, const void __user *src,
						 unsigned long len)
{
	barrier();
	return 0;
}

static noinline size_t cb_empty_to_iter(const void *src, size_t len, struct iov_iter *to)
{
	barrier();
	return len;
}

static noinline size_t cb_empty_from_iter(void *dst, size_t len, struct iov_iter *from)
{
	barrier();
	return len;
}

static const struct cb_kvariant cb_empty = {
	.name		= "empty",
	.mem		= cb_empty_mem,
	.to_user	= cb_empty_to_user,
	.from_user	= cb_empty_from_user,
	.to_iter	= cb_empty_to_iter,
	.from_iter	= cb_empty_from_iter,
};

/*
 * One copy of the run's direction with variant v: what a sample repeats,
 * its source moved by off (0 but in the latency chain, where it is a zero
 * the compiler cannot see: cb_chain_next()). Returns the bytes not
 * copied. The iter directions build the iov_iter as read() and write() do
 * (new_sync_read()), for every copy.
 */
typedef unsigned long (*cb_once_fn)(const struct cb_krun *c, const struct cb_kvariant *v,
				    unsigned long off);

static unsigned long cb_once_mem(const struct cb_krun *c, const struct cb_kvariant *v,
				 unsigned long off)
{
	return v->mem(c->kdst, c->ksrc + off, c->len);
}

static unsigned long cb_once_to_user(const struct cb_krun *c, const struct cb_kvariant *v,
				     unsigned long off)
{
	return v->to_user(c->udst, c->ksrc + off, c->len);
}

static unsigned long cb_once_from_user(const struct cb_krun *c, const struct cb_kvariant *v,
				       unsigned long off)
{
	return v->from_user(c->kdst, c->usrc + off, c->len);
}

static unsigned long cb_once_to_iter(const struct cb_krun *c, const struct cb_kvariant *v,
				     unsigned long off)
{
	struct iov_iter iter;

	iov_iter_ubuf(&iter, ITER_DEST, c->udst, c->len);
	return c->len - v->to_iter(c->ksrc + off, c->len, &iter);
}

static unsigned long cb_once_from_iter(const struct cb_krun *c, const struct cb_kvariant *v,
				       unsigned long off)
{
	struct iov_iter iter;

	iov_iter_ubuf(&iter, ITER_SOURCE, (void __user *)(c->usrc + off), c->len);
	return c->len - v->from_iter(c->kdst, c->len, &iter);
}

/*
 * The latency chain (the chain knob): the next copy's source moves by the
 * bytes at both ends of what the copy before it wrote, ANDed with zero, a
 * 0 the compiler cannot see, so that no copy starts before the one before
 * it can be read back. The destination is read as its direction allows:
 * a kernel one directly, a user one (to_user, to_iter) with get_user();
 * page faults are off in the window, so a byte that is not there reads as
 * a fault, which the caller takes as a short copy (*left).
 */
static __always_inline unsigned long cb_chain_next(const struct cb_krun *c, bool user,
						   unsigned long zero, unsigned long *left)
{
	unsigned long last = c->len ? c->len - 1 : 0;
	u8 a = 0, b = 0;

	if (user) {
		if (get_user(a, (const u8 __user *)c->udst) ||
		    get_user(b, (const u8 __user *)c->udst + last))
			*left |= 1;
	} else {
		a = READ_ONCE(((const u8 *)c->kdst)[0]);
		b = READ_ONCE(((const u8 *)c->kdst)[last]);
	}
	return (a | b) & zero;
}

/* Whether the run's destination is user memory: what the chain reads back. */
static bool cb_dst_user(const struct cb_krun *c)
{
	return c->k.direction == CB_DIR_to_user || c->k.direction == CB_DIR_to_iter;
}

static cb_once_fn cb_once_for(enum cb_direction dir)
{
	switch (dir) {
	case CB_DIR_memcpy:
		return cb_once_mem;
	case CB_DIR_to_user:
		return cb_once_to_user;
	case CB_DIR_from_user:
		return cb_once_from_user;
	case CB_DIR_to_iter:
		return cb_once_to_iter;
	case CB_DIR_from_iter:
		return cb_once_from_iter;
	case CB_DIR_COUNT:
		break;
	}
	return NULL;
}

/*
 * A writer pinned to the run's CPU alone, which only an affinity change
 * or CPU hotplug can move: those cb_krun_go_on() sees after the wait, so it may
 * wait for the lock with migration enabled, asleep between tries
 * (cb_buf_mm_lock()) rather than spinning on its CPU.
 */
static bool cb_may_sleep(const struct cb_krun *c)
{
	return cpumask_weight(&current->cpus_mask) == 1 &&
	       cpumask_test_cpu(c->cpu, &current->cpus_mask);
}

/*
 * Wait for the lock with migration enabled (a sleep that holds up no
 * hotplug or affinity change), then hold the CPU again and check what
 * happened meanwhile: 0 with the lock held, or why the run ends.
 */
static int cb_window_wait(struct cb_krun *c)
{
	int ret;

	migrate_enable();
	ret = cb_buf_lock(c, true);
	migrate_disable();
	if (ret)
		return ret;
	ret = cb_krun_go_on(c) ?: cb_back_on_cpu(c, "it waited for its mmap lock");
	if (ret)
		cb_buf_unlock(c);
	return ret;
}

/*
 * A timed window: the user mapping locked and checked (cb_buf_lock()),
 * preemption and page faults off. The run never sleeps for the lock while
 * it holds its CPU, and never in the lock's queue: while another thread
 * holds it, or queues for it as a writer (mmap(), mprotect(), munmap()),
 * the run tries again after every check of cb_krun_go_on(), rescheduling
 * between tries, so that CPU hotplug, an affinity change, a signal,
 * io_uring's cancel and the deadline end the wait as they end a sample.
 * A writer pinned to the run's CPU waits with migration enabled instead,
 * napping between tries (cb_window_wait()).
 */
static int cb_window_begin(struct cb_krun *c)
{
	u64 t0 = 0;
	int ret;

	while ((ret = cb_buf_lock(c, false)) == -EAGAIN) {
		if (!t0)
			t0 = ktime_get_ns();
		c->lock_waiting = true;
		ret = cb_krun_pause(c);
		if (ret)
			break;
		if (cb_may_sleep(c)) {
			c->lock_wait_ns += ktime_get_ns() - t0;
			t0 = 0;
			ret = cb_window_wait(c);
			break;
		}
		cpu_relax();
	}
	c->lock_waiting = false;
	if (t0)
		c->lock_wait_ns += ktime_get_ns() - t0;
	if (ret)
		return ret;
	preempt_disable();
	pagefault_disable();
	return 0;
}

static void cb_window_end(struct cb_krun *c)
{
	pagefault_enable();
	preempt_enable();
	cb_buf_unlock(c);
}

/*
 * The TSC cycles from t0 to now; a TSC that went backwards (an unstable
 * TSC; the window never leaves the CPU) fails the run rather than give a
 * sample of 2^64 cycles.
 */
static int cb_elapsed(struct cb_krun *c, u64 t0, u64 *cycles)
{
	u64 t1 = rdtsc_ordered();

	if (t1 < t0)
		return cb_krun_fail(c, -EIO,
				    "the TSC went backwards by %llu cycles within a timed copy on cpu %d: its times cannot be trusted (an unstable TSC)",
				    t0 - t1, c->cpu);
	*cycles = t1 - t0;
	return 0;
}

/* Cold: both sides of the copy out of every cache, piece by piece. */
static int cb_flush(struct cb_krun *c)
{
	unsigned long at, n;
	int ret;

	for (at = 0; at < c->len; at += n) {
		n = min(c->len - at, CB_FLUSH_PIECE);
		cb_buf_flush(&c->src, c->k.src_offset + at, n);
		cb_buf_flush(&c->dst, c->k.dst_offset + at, n);
		ret = cb_krun_pause(c);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Copies per window of a hot sample: as many as the calibrated cost of one
 * copy fits in CB_WINDOW_US_MAX, at least one; before calibration (which
 * times one copy at a time) all of them.
 */
static u32 cb_window_copies(const struct cb_krun *c, u32 loops)
{
	u64 limit = div_u64((u64)tsc_khz * CB_WINDOW_US_MAX, 1000);

	if (!c->one_cycles)
		return loops;
	return clamp_t(u64, div64_u64(limit, c->one_cycles), 1, loops);
}

/*
 * Hot: loops copies back to back, or with the chain knob each after the
 * one before it can be read back (cb_chain_next()), in timed windows of
 * cb_window_copies() copies, their cycles summed. Between two windows a
 * rescheduling point and the run's rule: preemption is never off for much
 * more than CB_WINDOW_US_MAX beyond one copy, so a writer under a CPU
 * quota (cpu.max) owes its group at most that much when it is throttled,
 * and an affinity change or SIGKILL waits no longer than the quota takes
 * to pay it back.
 */
static int cb_time_hot(struct cb_krun *c, const struct cb_kvariant *v, cb_once_fn once,
		       u32 loops, unsigned long *left, u64 *cycles)
{
	u32 per = cb_window_copies(c, loops), done = 0, n, i;
	unsigned long off = 0, zero = 0;
	bool user = cb_dst_user(c);
	u64 t0, t;
	int ret;

	OPTIMIZER_HIDE_VAR(zero);
	*cycles = 0;
	while (done < loops) {
		n = min(loops - done, per);
		ret = (done ? cb_krun_pause(c) : 0) ?: cb_window_begin(c);
		if (ret)
			return ret;
		t0 = rdtsc_ordered();
		if (!c->k.chain) {
			for (i = 0; i < n && !cb_krun_stopping(c); i++)
				*left |= once(c, v, 0);
		} else {
			for (i = 0; i < n && !cb_krun_stopping(c); i++) {
				*left |= once(c, v, off);
				off = cb_chain_next(c, user, zero, left);
			}
		}
		ret = cb_elapsed(c, t0, &t);
		cb_window_end(c);
		if (ret)
			return ret;
		*cycles += t;
		done += i;
		if (i < n)
			return cb_krun_go_on(c) ?: -ERESTARTSYS;
		/* A short copy: cb_time_sample() faults the pages in and times it again. */
		if (*left)
			return 0;
	}
	return 0;
}

/*
 * Cold: loops copies, each in its own window after both buffers are
 * flushed when flush is set (the cold baseline keeps the windows and skips
 * the flush). Before every copy, outside the windows, what hot samples do
 * between samples: a reschedule and every check of cb_krun_go_on(), whatever
 * the size (a flush of 0 bytes has no piece to check after), so that a
 * signal, the deadline, CPU hotplug and an affinity change end a cold
 * sample within one copy.
 */
static int cb_time_cold(struct cb_krun *c, const struct cb_kvariant *v, cb_once_fn once,
			u32 loops, bool flush, unsigned long *left, u64 *cycles)
{
	u64 t0, t;
	u32 i;
	int ret;

	*cycles = 0;
	for (i = 0; i < loops; i++) {
		ret = cb_krun_pause(c);
		if (!ret && flush)
			ret = cb_flush(c);
		if (!ret)
			ret = cb_window_begin(c);
		if (ret)
			return ret;
		t0 = rdtsc_ordered();
		*left |= once(c, v, 0);
		ret = cb_elapsed(c, t0, &t);
		cb_window_end(c);
		if (ret)
			return ret;
		*cycles += t;
	}
	return 0;
}

/*
 * cb_time_sample - time loops copies with variant v, hot (windows of
 * cb_window_copies() copies: cb_time_hot()) or cold (windows set, one
 * window per copy; flush says whether the buffers are flushed before each). Stops within one copy when cb_krun_stopping(). A
 * short copy means the user side's pages were zapped (MADV_DONTNEED, which
 * runs beside a copy under the same read lock), or a protection changed
 * that the next check names: the pages are faulted in again, outside any
 * window and with migration enabled (the fault-in may wait for the mmap
 * lock and allocates page tables), and the sample taken again, until the
 * deadline or a signal. A writer that moved meanwhile ends the run: for
 * its CPU going offline or an affinity change as cb_krun_go_on() says, else
 * cb_back_on_cpu().
 * Returns 0 with the cycles in *cycles, or a negative errno.
 */
static noinline int cb_time_sample(struct cb_krun *c, const struct cb_kvariant *v, u32 loops,
				   bool windows, bool flush, u64 *cycles)
{
	cb_once_fn once = cb_once_for(c->k.direction);
	const char *doing;
	unsigned long left;
	int ret;

	OPTIMIZER_HIDE_VAR(once);
	for (;;) {
		left = 0;
		ret = windows ? cb_time_cold(c, v, once, loops, flush, &left, cycles) :
				cb_time_hot(c, v, once, loops, &left, cycles);
		if (ret || !left)
			return ret;
		if (WARN_ON_ONCE(!c->user))	/* only user memory can be short */
			return -EFAULT;
		doing = c->doing;
		c->doing = "mapping the buffer's zapped pages in again";
		migrate_enable();
		ret = cb_buf_fault_in(c, c->user);
		migrate_disable();
		/*
		 * Why the writer moved first, as cb_window_wait() does: a
		 * pinned writer moves only for hotplug (ENODEV) or an affinity
		 * change (EINVAL); only a move cb_krun_go_on() cannot explain is
		 * the scheduler's (EAGAIN).
		 */
		ret = ret ?: cb_krun_pause(c) ?:
		      cb_back_on_cpu(c, "the buffer's zapped pages (MADV_DONTNEED, reclaim) were mapped in again");
		if (ret)
			return ret;
		c->doing = doing;
	}
}

/* One copy of len bytes (len <= c->len), timed alone, hot or cold. */
static int cb_time_one(struct cb_krun *c, unsigned long len, bool cold, u64 *cycles)
{
	unsigned long full = c->len;
	int ret;

	c->len = len;
	ret = cb_time_sample(c, c->v, 1, cold, cold, cycles);
	c->len = full;
	return ret;
}

/*
 * The cost of one copy, without ever running one predicted to keep
 * preemption off beyond CB_SAMPLE_MS_MAX: sizes from CB_PROBE_BYTES up. The
 * full size is timed at once when twice its linear prediction fits the
 * bound; else the size doubles while the prediction of the next step, with
 * a quarter more for a change of cache level, fits; else -E2BIG.
 */
static int cb_calibrate_one(struct cb_krun *c, bool cold)
{
	u64 limit = (u64)tsc_khz * CB_SAMPLE_MS_MAX, t, pred;
	unsigned long len = c->len, s = min(len, CB_PROBE_BYTES), next;
	int ret;

	for (;;) {
		ret = cb_time_one(c, s, cold, &t);
		if (ret)
			return ret;
		if (s == len || t > limit)
			break;
		/* t <= limit: the quotients below fit in 64 bits (no #DE). */
		pred = mul_u64_u64_div_u64(t, len, s);
		if (pred * 2 <= limit) {
			s = len;
			continue;
		}
		next = min(s * 2, len);
		if (mul_u64_u64_div_u64(t, next, s) / 4 * 5 > limit)
			return cb_krun_fail(c, -E2BIG,
					    "one copy of %lu bytes would keep preemption off for about %llu ms (from a copy of %lu bytes), above the bound of %u ms; lower size",
					    len, cb_cycles_to_ms(pred), s, CB_SAMPLE_MS_MAX);
		s = next;
		ret = cb_krun_pause(c);
		if (ret)
			return ret;
	}
	if (t > limit)
		return cb_krun_fail(c, -E2BIG,
				    "one copy of %lu bytes kept preemption off for %llu ms, above the bound of %u ms; lower size",
				    s, cb_cycles_to_ms(t), CB_SAMPLE_MS_MAX);
	c->one_cycles = t;
	return 0;
}

/*
 * The loops knob, refused (-E2BIG) when a sample of that many copies would
 * last beyond CB_SAMPLE_MS_MAX (the bound is on its timed copies: a hot
 * sample's windows, a cold sample's copies one by one; the checks and
 * flushes between them come on top); or with loops=0 the
 * smallest power of two whose sample takes CB_LOOPS_AUTO_NS (as far as the
 * bound allows), found by timing samples: the first warm-up.
 */
static int cb_pick_loops(struct cb_krun *c, bool cold, u32 *loops)
{
	u64 limit = (u64)tsc_khz * CB_SAMPLE_MS_MAX, one = max(c->one_cycles, 1ULL), t;
	u64 target = div_u64((u64)tsc_khz * CB_LOOPS_AUTO_NS, 1000000);
	u32 n = c->k.loops;
	int ret;

	if (n) {
		if (n > 1 && one * n > limit)
			return cb_krun_fail(c, -E2BIG,
					    "one %s sample of %u loops would time copies for about %llu ms, above the bound of %u ms (one copy takes about %llu us); set loops to at most %llu, or 0 for automatic",
					    cold ? "cold" : "hot", n,
					    cb_cycles_to_ms(one * n), CB_SAMPLE_MS_MAX,
					    cb_cycles_to_us(one), div64_u64(limit, one));
		*loops = n;
		return 0;
	}
	for (n = 1;; n *= 2) {
		ret = cb_time_sample(c, c->v, n, cold, cold, &t);
		if (ret)
			return ret;
		if (t >= target || n >= CB_LOOPS_MAX / 2 || one * n * 2 > limit)
			break;
		ret = cb_krun_pause(c);
		if (ret)
			return ret;
	}
	*loops = n;
	return 0;
}

static int cb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of n sorted values, the mean of the middle two for even n. */
static u64 cb_median(const u64 *v, u32 n)
{
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Population standard deviation of n values around mean, in u64: the
 * deviations are scaled down until their squares cannot overflow.
 */
static u64 cb_stddev(const u64 *v, u32 n, u64 mean)
{
	u64 d, maxd = 0, var = 0;
	unsigned int shift = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		d = v[i] > mean ? v[i] - mean : mean - v[i];
		maxd = max(maxd, d);
	}
	while ((maxd >> shift) >= (1ULL << 31))
		shift++;
	for (i = 0; i < n; i++) {
		d = (v[i] > mean ? v[i] - mean : mean - v[i]) >> shift;
		var += div_u64(d * d, n);
	}
	return (u64)int_sqrt64(var) << shift;
}

static u64 cb_net(u64 v, u64 base)
{
	return v > base ? v - base : 0;
}

/* The statistics of n timed samples and nb baseline samples, into c->r. */
static void cb_stats(struct cb_krun *c, u32 loops, u32 n, u32 nb)
{
	struct cb_results *r = &c->r;
	u64 sum = 0, base = 0;
	u32 i;

	sort(c->c100, n, sizeof(*c->c100), cb_cmp_u64, NULL);
	sort(c->b100, nb, sizeof(*c->b100), cb_cmp_u64, NULL);
	for (i = 0; i < n; i++)
		sum += c->c100[i];
	r->loops = loops;
	r->samples = n;
	r->truncated = n < c->k.samples;
	r->baseline_cycles = cb_median(c->b100, nb);
	r->cycles_min = c->c100[0];
	r->cycles_max = c->c100[n - 1];
	r->cycles_median = cb_median(c->c100, n);
	r->cycles_mean = div_u64(sum, n);
	r->cycles_stddev = cb_stddev(c->c100, n, r->cycles_mean);
	if (c->k.baseline) {
		base = r->baseline_cycles;
		r->cycles_min = cb_net(r->cycles_min, base);
		r->cycles_max = cb_net(r->cycles_max, base);
		r->cycles_median = cb_net(r->cycles_median, base);
		r->cycles_mean = cb_net(r->cycles_mean, base);
	}
}

/*
 * max_run_ms came before the first timed sample: what the run was doing,
 * and what it knew by then of one copy's cost, the loops and its waits for
 * the writer's mmap lock.
 */
static int cb_measure_late(struct cb_krun *c, u32 loops)
{
	char copy[64] = "", lock[128] = "";

	if (c->one_cycles && loops)
		snprintf(copy, sizeof(copy), " (one copy takes about %llu us, loops %u)",
			 cb_cycles_to_us(c->one_cycles), loops);
	else if (c->one_cycles)
		snprintf(copy, sizeof(copy), " (one copy takes about %llu us)",
			 cb_cycles_to_us(c->one_cycles));
	if (c->lock_wait_ns)
		snprintf(lock, sizeof(lock),
			 ", after %llu ms waiting for the writer's mmap lock, which another of its threads held or queued for",
			 div_u64(c->lock_wait_ns, NSEC_PER_MSEC));
	return cb_krun_fail(c, -ETIME,
			    "max_run_ms %u was reached after %llu ms, while %s, before the first timed sample%s%s; raise max_run_ms",
			    c->k.max_run_ms, cb_krun_ms(c), c->doing, copy, lock);
}

/*
 * The measurement: one copy's cost, the loops, one untimed sample more
 * (warm-up), then for each timed sample first a baseline sample (the first
 * CB_BASELINE_SAMPLES times). The deadline ends it: with the samples taken
 * (truncated) when there is one, else -ETIME.
 */
static int cb_measure_samples(struct cb_krun *c)
{
	bool cold = c->k.cache == CB_CACHE_cold;
	u32 loops = 0, n = 0, nb = 0;
	u64 t;
	int ret;

	c->doing = "timing one copy";
	ret = cb_calibrate_one(c, cold) ?: cb_krun_pause(c);
	if (!ret) {
		c->doing = "choosing the loops";
		ret = cb_pick_loops(c, cold, &loops) ?: cb_krun_pause(c);
	}
	if (!ret) {
		c->doing = "warming up";
		ret = cb_time_sample(c, c->v, loops, cold, cold, &t);
	}
	if (!ret)
		c->doing = "timing the samples";
	while (!ret && n < c->k.samples) {
		if (nb < CB_BASELINE_SAMPLES) {
			ret = cb_krun_pause(c) ?: cb_time_sample(c, &cb_empty, loops, cold, false, &t);
			if (ret)
				break;
			c->b100[nb++] = div_u64(t * 100, loops);
		}
		ret = cb_krun_pause(c) ?: cb_time_sample(c, c->v, loops, cold, cold, &t);
		if (ret)
			break;
		c->c100[n++] = div_u64(t * 100, loops);
	}
	if (ret == -ETIME && n)
		ret = 0;
	else if (ret == -ETIME)
		return cb_measure_late(c, loops);
	if (ret)
		return ret;
	cb_stats(c, loops, n, nb);
	return 0;
}

/*
 * The run's CPU, with migration disabled: the CPU asked for must be the
 * one the writer is on (a run never changes the writer's affinity), -1
 * takes it.
 */
static int cb_measure_cpu(struct cb_krun *c)
{
	int here = smp_processor_id();
	int ret;

	c->cpu = c->k.cpu >= 0 ? c->k.cpu : here;
	c->cpu_held = true;
	c->doing = "taking the run's CPU";
	/* Offline, or not allowed: cb_run_check() found it there, it left since. */
	ret = cb_krun_go_on(c);
	if (ret || c->cpu == here)
		return ret;
	return cb_krun_fail(c, -EINVAL,
			    "the writer is on cpu %d, not on cpu %d: a run runs on its writer's CPU and never moves it; pin the writer to cpu %d first (taskset -c %d, sched_setaffinity()), or write -1 to cpu",
			    here, c->cpu, c->cpu, c->cpu);
}

/**
 * cb_measure - the timed part of a run, in the writer's context, which
 * stays on the run's CPU (migrate_disable()); the results' statistics in
 * @c->r
 * @c: the run, prepared (buffers filled, the user side faulted in)
 *
 * Return: 0, or a negative errno with the reason in @c->why (none for
 * -ERESTARTSYS, a signal).
 */
int cb_measure(struct cb_krun *c)
{
	int ret;

	migrate_disable();
	ret = cb_measure_cpu(c) ?: cb_measure_samples(c);
	c->cpu_held = false;
	migrate_enable();
	return ret;
}
