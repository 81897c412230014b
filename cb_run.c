// SPDX-License-Identifier: GPL-2.0
/*
 * cb_run.c - one timed run: what a write of "1" to the "run" file does.
 *
 * Measured the way kernel/rcu/refscale.c measures:
 *  - on one CPU: the writing task is moved to the chosen CPU (or kept on
 *    the one it is on) for the run and given its CPU mask back afterwards;
 *    it has to be the writer, because to_user and from_user copy into or
 *    out of a buffer mapped in the writer's address space (vm_mmap(), as
 *    lib/test_user_copy.c does), so that only the copy is timed, not a
 *    system call;
 *  - warmed up: the loops calibration and one untimed sample come first;
 *  - preemption and page faults disabled inside a sample only, with
 *    cond_resched() and a signal check between samples, and the whole run
 *    bounded by max_run_ms;
 *  - the copy is an indirect call the compiler cannot see through
 *    (OPTIMIZER_HIDE_VAR on the pointer), and "baseline" times the same
 *    loop around an empty copy, so the loop's own cost can be subtracted;
 *  - the copied bytes are checked after the timing (as mm/gup_test.c
 *    takes "an un-benchmark-timed moment to verify").
 *
 * Buffers: each side is size + offset bytes rounded up to pages, starting
 * on a page boundary. Kernel sides are physically contiguous pages (the
 * direct map, as a page cache folio is) up to the page allocator's largest
 * order, vmalloc() beyond. User sides are anonymous private mappings whose
 * pages are pinned (pin_user_pages_fast()) for the run: they are faulted in
 * before the timing and cannot move during it, and the kernel can write,
 * check and flush them through the direct map.
 *
 * cache=cold flushes every line of both buffers (clflush_cache_range())
 * before every copy, outside the timed window; each copy is then timed by
 * itself and a sample is the sum over its loops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>
#include <asm/set_memory.h>
#include <asm/timex.h>
#include <asm/tsc.h>

#include "cb_internal.h"
#include "cb_trace.h"

/* Baseline samples: enough for a stable median, few enough to be cheap. */
#define CB_BASELINE_SAMPLES	31U

/* One side of a copy. */
struct cb_buf {
	bool user;
	u8 *base;		/* page aligned; a user address when user */
	unsigned long len;	/* bytes mapped, a multiple of PAGE_SIZE */
	struct page **pages;	/* user: the pinned pages */
	unsigned long npages;	/* user: how many are pinned */
};

struct cb_ctx {
	const struct cb_knobs *k;
	struct cb_buf src, dst;
	u64 deadline_ns;	/* ktime_get_ns() bound of the run */
	u64 *c100;		/* per-sample cycles per copy, x100 */
};

/* The empty copy of the baseline loop. */
static noinline unsigned long cb_empty_copy(void *dst, const void *src, unsigned long len)
{
	barrier();
	return 0;
}

static int cb_buf_alloc(struct cb_buf *b, bool user, u64 bytes)
{
	unsigned long addr;
	long pinned;

	b->user = user;
	b->len = PAGE_ALIGN(max_t(u64, bytes, 1));
	if (!user) {
		b->base = alloc_pages_exact(b->len, GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY);
		if (!b->base)
			b->base = vmalloc(b->len);
		return b->base ? 0 : -ENOMEM;
	}

	b->pages = kvmalloc_array(b->len >> PAGE_SHIFT, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	addr = vm_mmap(NULL, 0, b->len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	b->base = (u8 *)addr;
	pinned = pin_user_pages_fast(addr, b->len >> PAGE_SHIFT, FOLL_WRITE, b->pages);
	if (pinned < 0)
		return pinned;
	b->npages = pinned;
	return pinned == b->len >> PAGE_SHIFT ? 0 : -EFAULT;
}

static void cb_buf_free(struct cb_buf *b)
{
	if (b->user) {
		if (b->npages)
			unpin_user_pages(b->pages, b->npages);
		if (b->base)
			vm_munmap((unsigned long)b->base, b->len);
		kvfree(b->pages);
	} else if (b->base) {
		if (is_vmalloc_addr(b->base))
			vfree(b->base);
		else
			free_pages_exact(b->base, b->len);
	}
	memset(b, 0, sizeof(*b));
}

/* The kernel address of byte i of b, valid up to the end of its page. */
static u8 *cb_buf_kaddr(const struct cb_buf *b, unsigned long i)
{
	if (!b->user)
		return b->base + i;
	return (u8 *)page_address(b->pages[i >> PAGE_SHIFT]) + (i & ~PAGE_MASK);
}

/* Flush [off, off + len) of b from every cache level. */
static void cb_buf_flush(const struct cb_buf *b, unsigned long off, unsigned long len)
{
	unsigned long n;

	if (!len)
		return;
	if (!b->user) {
		clflush_cache_range(b->base + off, len);
		return;
	}
	while (len) {
		n = min(len, PAGE_SIZE - (off & ~PAGE_MASK));
		clflush_cache_range(cb_buf_kaddr(b, off), n);
		off += n;
		len -= n;
	}
}

/*
 * Patterns: source byte i is cb_data_byte(i); destination byte j starts as
 * the complement of the source byte that is to land on it, so a byte the
 * copy misses, or one it writes outside its range, never matches.
 */
static u8 cb_src_byte(const struct cb_knobs *k, unsigned long i)
{
	return cb_data_byte(i);
}

static u8 cb_dst_fill(const struct cb_knobs *k, unsigned long j)
{
	return ~cb_data_byte(j - k->dst_offset + k->src_offset);
}

static u8 cb_dst_want(const struct cb_knobs *k, unsigned long j)
{
	if (j >= k->dst_offset && j - k->dst_offset < k->size)
		return cb_data_byte(j - k->dst_offset + k->src_offset);
	return cb_dst_fill(k, j);
}

static void cb_buf_fill(const struct cb_knobs *k, const struct cb_buf *b,
			u8 (*byte)(const struct cb_knobs *k, unsigned long i))
{
	unsigned long i;

	for (i = 0; i < b->len; i++) {
		*cb_buf_kaddr(b, i) = byte(k, i);
		if (!((i + 1) & (PAGE_SIZE - 1)))
			cond_resched();
	}
}

/* Every byte of b as byte() says, guards included; logs the first miss. */
static bool cb_buf_check(const struct cb_knobs *k, const struct cb_buf *b, const char *what,
			 u8 (*byte)(const struct cb_knobs *k, unsigned long i))
{
	unsigned long i;
	u8 got;

	for (i = 0; i < b->len; i++) {
		got = *cb_buf_kaddr(b, i);
		if (got != byte(k, i)) {
			pr_warn("%s %s size %llu src_offset %u dst_offset %u: %s byte %lu is 0x%02x, want 0x%02x\n",
				k->variant->name, cb_direction_names[k->direction], k->size,
				k->src_offset, k->dst_offset, what, i, got, byte(k, i));
			return false;
		}
		if (!((i + 1) & (PAGE_SIZE - 1)))
			cond_resched();
	}
	return true;
}

/*
 * cb_sample - time loops copies with fn; returns the TSC cycles they took.
 * Hot: one window around all of them. Cold (flush): both buffers flushed
 * before each copy, outside the window, each copy in a window of its own.
 * Sets *err to -EFAULT if any copy came back short.
 */
static noinline u64 cb_sample(struct cb_ctx *c, cb_copy_fn fn, u32 loops, bool flush, int *err)
{
	const struct cb_knobs *k = c->k;
	void *dst = c->dst.base + k->dst_offset;
	const void *src = c->src.base + k->src_offset;
	unsigned long len = k->size, left = 0;
	u64 t0, cycles = 0;
	u32 i;

	OPTIMIZER_HIDE_VAR(fn);
	if (!flush) {
		preempt_disable();
		pagefault_disable();
		t0 = rdtsc_ordered();
		for (i = 0; i < loops; i++)
			left |= fn(dst, src, len);
		cycles = rdtsc_ordered() - t0;
		pagefault_enable();
		preempt_enable();
	} else {
		for (i = 0; i < loops; i++) {
			preempt_disable();
			cb_buf_flush(&c->src, k->src_offset, len);
			cb_buf_flush(&c->dst, k->dst_offset, len);
			pagefault_disable();
			t0 = rdtsc_ordered();
			left |= fn(dst, src, len);
			cycles += rdtsc_ordered() - t0;
			pagefault_enable();
			preempt_enable();
		}
	}
	if (left)
		*err = -EFAULT;
	return cycles;
}

/* Between samples: let others run, stop on a signal or at the deadline. */
static int cb_between(struct cb_ctx *c)
{
	cond_resched();
	if (signal_pending(current))
		return -EINTR;
	if (ktime_get_ns() > c->deadline_ns)
		return -ETIME;
	return 0;
}

/*
 * cb_pick_loops - the knob, or with loops=0 the smallest power of two whose
 * sample takes CB_LOOPS_AUTO_NS. Also the warm-up; -E2BIG when a sample of
 * the chosen loops would keep preemption off longer than CB_SAMPLE_MS_MAX.
 */
static int cb_pick_loops(struct cb_ctx *c, cb_copy_fn fn, bool flush, u32 *loops)
{
	u64 target = div_u64((u64)tsc_khz * CB_LOOPS_AUTO_NS, 1000000);
	u64 one, limit = (u64)tsc_khz * CB_SAMPLE_MS_MAX;
	u32 n = 1;
	int err = 0, ret;

	one = cb_sample(c, fn, 1, flush, &err);
	if (err)
		return err;
	if (c->k->loops) {
		*loops = c->k->loops;
		if (!flush && *loops > 1 && one * *loops > limit)
			return -E2BIG;
		return 0;
	}
	while (n < CB_LOOPS_MAX && cb_sample(c, fn, n, flush, &err) < target) {
		if (err)
			return err;
		ret = cb_between(c);
		if (ret == -ETIME)
			break;		/* out of time: the run goes on with n */
		if (ret)
			return ret;
		n = min(n * 2, CB_LOOPS_MAX);
	}
	*loops = n;
	return err;
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

/* n samples of fn into c->c100 (sorted); *done is how many were taken. */
static int cb_samples(struct cb_ctx *c, cb_copy_fn fn, u32 loops, u32 n, bool flush, u32 *done)
{
	int err = 0, ret;
	u64 cycles;
	u32 s;

	for (s = 0; s < n; s++) {
		if (s) {
			ret = cb_between(c);
			if (ret == -ETIME)
				break;
			if (ret)
				return ret;
		}
		cycles = cb_sample(c, fn, loops, flush, &err);
		if (err)
			return err;
		c->c100[s] = div_u64(cycles * 100, loops);
	}
	*done = s;
	sort(c->c100, s, sizeof(*c->c100), cb_cmp_u64, NULL);
	return 0;
}

static u64 cb_net(u64 v, u64 base)
{
	return v > base ? v - base : 0;
}

static int cb_measure(struct cb_ctx *c, struct cb_results *r)
{
	const struct cb_knobs *k = c->k;
	cb_copy_fn fn = k->variant->copy[k->direction];
	bool cold = k->cache == CB_CACHE_cold;
	u64 sum = 0, base = 0;
	u32 i, n, loops;
	int err = 0, ret;

	ret = cb_pick_loops(c, fn, cold, &loops);
	if (ret)
		return ret;
	/* One untimed sample more, now at the final loops. */
	cb_sample(c, fn, loops, cold, &err);
	if (err)
		return err;

	ret = cb_samples(c, cb_empty_copy, loops, min(k->samples, CB_BASELINE_SAMPLES),
			 false, &n);
	if (ret)
		return ret;
	r->baseline_c100 = cb_median(c->c100, n);

	ret = cb_between(c);
	if (ret && ret != -ETIME)
		return ret;
	ret = cb_samples(c, fn, loops, k->samples, cold, &n);
	if (ret)
		return ret;

	for (i = 0; i < n; i++)
		sum += c->c100[i];
	r->loops = loops;
	r->samples = n;
	r->truncated = n < k->samples;
	r->min_c100 = c->c100[0];
	r->max_c100 = c->c100[n - 1];
	r->median_c100 = cb_median(c->c100, n);
	r->mean_c100 = div_u64(sum, n);
	r->stddev_c100 = cb_stddev(c->c100, n, r->mean_c100);
	if (k->baseline) {
		base = r->baseline_c100;
		r->min_c100 = cb_net(r->min_c100, base);
		r->max_c100 = cb_net(r->max_c100, base);
		r->median_c100 = cb_net(r->median_c100, base);
		r->mean_c100 = cb_net(r->mean_c100, base);
	}
	return 0;
}

/* Runs with current confined to cpu, its own mask given back after. */
static int cb_run_pinned(struct cb_ctx *c, struct cb_results *r)
{
	const struct cb_knobs *k = c->k;
	cpumask_var_t saved;
	int cpu, ret;

	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	cpu = k->cpu >= 0 ? k->cpu : raw_smp_processor_id();
	if (!cpu_online(cpu)) {
		ret = -ENODEV;
		goto free_mask;
	}
	ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));
	if (ret)
		goto free_mask;

	r->run_cpu = raw_smp_processor_id();
	if (r->run_cpu != cpu)
		ret = -EAGAIN;
	else
		ret = cb_measure(c, r);

	set_cpus_allowed_ptr(current, saved);
free_mask:
	free_cpumask_var(saved);
	return ret;
}

/*
 * cb_run - one run with knobs k; fills res and returns 0, or a negative
 * errno: -EINTR on a signal, -E2BIG when one sample would be too long,
 * -ENOMEM, -EFAULT if a copy faulted, -EINVAL for a user direction
 * without a user address space or a CPU outside the task's cpuset,
 * -ENODEV when the chosen CPU went offline.
 */
int cb_run(const struct cb_knobs *k, struct cb_results *res)
{
	bool src_user = k->direction == CB_DIR_from_user;
	bool dst_user = k->direction == CB_DIR_to_user;
	struct cb_ctx c = { .k = k };
	u64 start = ktime_get_ns();
	u32 nc = max(k->samples, CB_BASELINE_SAMPLES);
	int ret;

	memset(res, 0, sizeof(*res));
	res->knobs = *k;
	res->tsc_khz = tsc_khz;
	res->run_cpu = -1;
	c.deadline_ns = start + (u64)k->max_run_ms * NSEC_PER_MSEC;

	if ((src_user || dst_user) && !current->mm) {
		ret = -EINVAL;
		goto out;
	}
	c.c100 = kvmalloc_array(nc, sizeof(*c.c100), GFP_KERNEL);
	if (!c.c100) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cb_buf_alloc(&c.src, src_user, k->size + k->src_offset);
	if (ret)
		goto free_bufs;
	ret = cb_buf_alloc(&c.dst, dst_user, k->size + k->dst_offset);
	if (ret)
		goto free_bufs;
	cb_buf_fill(k, &c.src, cb_src_byte);
	cb_buf_fill(k, &c.dst, cb_dst_fill);

	ret = cb_run_pinned(&c, res);
	if (!ret)
		res->verified = cb_buf_check(k, &c.dst, "destination", cb_dst_want) &&
				cb_buf_check(k, &c.src, "source", cb_src_byte);
	res->run_ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);

free_bufs:
	cb_buf_free(&c.dst);
	cb_buf_free(&c.src);
	kvfree(c.c100);
out:
	trace_copybench_run(k->variant->name, cb_direction_names[k->direction],
			    cb_cache_names[k->cache], k->size, k->src_offset, k->dst_offset,
			    res->loops, res->samples, res->min_c100 / 100,
			    res->median_c100 / 100, res->baseline_c100 / 100, ret);
	return ret;
}
