// SPDX-License-Identifier: GPL-2.0
/*
 * cb_run.c - the "run", "results" and "tsc_khz" files: the course of a run
 * in the writer (its checks, its buffers, the timed part of cb_measure.c,
 * the check of the copied bytes) and the last run's results, which this
 * file owns. Documentation/copybench.rst, "How a run measures", tells the
 * whole story.
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <asm/tsc.h>

#include "cb_run.h"
#include "cb_trace.h"

/* The last successful run's results (NULL before the first), under cb_results_lock. */
static DEFINE_MUTEX(cb_results_lock);
static struct cb_results *cb_results;

static bool cb_dir_src_user(enum cb_direction dir)
{
	return dir == CB_DIR_from_user || dir == CB_DIR_from_iter;
}

static bool cb_dir_dst_user(enum cb_direction dir)
{
	return dir == CB_DIR_to_user || dir == CB_DIR_to_iter;
}

/*
 * What can be refused before anything is allocated. The CPU is checked
 * again, for good, once the run holds it (cb_measure()).
 */
static int cb_run_check(struct cb_krun *c)
{
	const struct cb_knobs *k = &c->k;
	int cpu = k->cpu;
	char dirs[128];

	if (!cb_kvariant_has(c->v, k->direction)) {
		cb_kvariant_dirs(c->v, dirs, sizeof(dirs));
		return cb_krun_fail(c, -EOPNOTSUPP,
				    "variant %s has no direction %s (its directions: %s); write native to variant, or another direction",
				    c->v->name, cb_direction_names[k->direction], dirs);
	}
	/* Every bound of a run is computed in TSC cycles from tsc_khz. */
	if (!tsc_khz)
		return cb_krun_fail(c, -ENODEV,
				    "the TSC frequency is unknown (tsc_khz 0: the kernel could not calibrate it), so no run can be timed or bounded");
	if ((cb_dir_src_user(k->direction) || cb_dir_dst_user(k->direction)) && !current->mm)
		return cb_krun_fail(c, -EINVAL,
				    "direction %s copies to or from the writer's address space, and the writer has none",
				    cb_direction_names[k->direction]);
	if (cpu >= 0 && !cpu_online(cpu))
		return cb_krun_fail(c, -ENODEV, "cpu %d is offline (online: %*pbl)", cpu,
				    cpumask_pr_args(cpu_online_mask));
	if (cpu >= 0 && !cpumask_test_cpu(cpu, &current->cpus_mask))
		return cb_krun_fail(c, -EINVAL,
				    "cpu %d is not among the writer's allowed CPUs %*pbl (its cpuset and affinity); write -1 or one of them to cpu",
				    cpu, cpumask_pr_args(&current->cpus_mask));
	return 0;
}

/*
 * Source byte i is cb_data_byte(i); destination byte j starts as the
 * complement of the source byte that is to land on it, so a byte the copy
 * misses, or one it writes outside its range, never matches. Page by page.
 */
static int cb_fill(struct cb_krun *c)
{
	u64 shift = (u64)c->k.src_offset - c->k.dst_offset;
	unsigned long at, n;
	int ret;

	c->doing = "filling the buffers";
	for (at = 0; at < c->src.len; at += n) {
		n = min(c->src.len - at, PAGE_SIZE);
		cb_pattern_fill(c->src.kbase + at, at, n, 0);
		ret = cb_krun_pause(c);
		if (ret)
			return ret;
	}
	for (at = 0; at < c->dst.len; at += n) {
		n = min(c->dst.len - at, PAGE_SIZE);
		cb_pattern_fill(c->dst.kbase + at, at + shift, n, 0xff);
		ret = cb_krun_pause(c);
		if (ret)
			return ret;
	}
	return 0;
}

/* One side: the kernel's, allocated here, or the writer's own mapping. */
static int cb_run_side(struct cb_krun *c, struct cb_buf *b, u64 bytes, bool user, bool dst)
{
	int ret;

	if (user) {
		ret = cb_buf_find_user(c, b, bytes, dst);
		if (!ret)
			c->user = b;
	} else {
		ret = cb_buf_alloc(b, bytes);
		if (ret)
			ret = cb_krun_fail(c, ret,
					   "the %llu-byte %s buffer cannot be allocated (the writer's memory cgroup limit, or low memory)",
					   (u64)b->len, dst ? "destination" : "source");
	}
	return ret ?: cb_krun_pause(c);
}

/* Buffers, filled, the user side's pages in the writer's page tables; the copy's pointers. */
static int cb_run_prepare(struct cb_krun *c)
{
	const struct cb_knobs *k = &c->k;
	bool src_user = cb_dir_src_user(k->direction);
	bool dst_user = cb_dir_dst_user(k->direction);
	int ret;

	c->doing = "allocating the buffers";
	c->c100 = kvmalloc_array(k->samples, sizeof(*c->c100),
				 GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!c->c100)
		return cb_krun_fail(c, -ENOMEM, "no memory for %u samples", k->samples);
	ret = cb_run_side(c, &c->src, k->size + k->src_offset, src_user, false) ?:
	      cb_run_side(c, &c->dst, k->size + k->dst_offset, dst_user, true) ?:
	      cb_fill(c);
	if (ret)
		return ret;
	if (c->user) {
		c->doing = "faulting the buffer in";
		ret = cb_buf_fault_in(c, c->user);
		if (ret)
			return ret;
	}
	c->ksrc = c->src.kbase + k->src_offset;
	c->kdst = c->dst.kbase + k->dst_offset;
	c->usrc = src_user ? c->src.ubase + k->src_offset : NULL;
	c->udst = dst_user ? c->dst.ubase + k->dst_offset : NULL;
	c->len = k->size;
	return cb_krun_pause(c);
}

/*
 * Bytes [from, to) of b hold the pattern from pos (XOR xor)? On a miss,
 * -EIO and the reason names the byte.
 */
static int cb_verify_range(struct cb_krun *c, const struct cb_buf *b, const char *what,
			   unsigned long from, unsigned long to, u64 pos, u8 xor)
{
	unsigned long at, n, i;

	for (at = from; at < to; at += n) {
		n = min(to - at, PAGE_SIZE);
		i = cb_pattern_mismatch(b->kbase + at, pos + (at - from), n, xor);
		if (i < n) {
			u8 want = cb_data_byte(pos + (at - from) + i) ^ xor;

			return cb_krun_fail(c, -EIO,
					    "the copied bytes are wrong: %s byte %lu is 0x%02x, want 0x%02x (variant %s %s, size %llu, offsets %u/%u; or another thread or process wrote to the buffer it maps at 0x%lx)",
					    what, at + i, b->kbase[at + i], want, c->v->name,
					    cb_direction_names[c->k.direction], c->k.size,
					    c->k.src_offset, c->k.dst_offset,
					    (unsigned long)b->ubase);
		}
		if (fatal_signal_pending(current))
			return -ERESTARTSYS;
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/*
 * After the timing (as mm/gup_test.c takes "an un-benchmark-timed moment to
 * verify"): the destination holds the source's bytes with its guard bytes
 * untouched, and the source is unchanged.
 */
static int cb_run_verify(struct cb_krun *c)
{
	const struct cb_knobs *k = &c->k;
	u64 shift = (u64)k->src_offset - k->dst_offset;
	unsigned long end = k->dst_offset + k->size;

	return cb_verify_range(c, &c->dst, "destination", 0, k->dst_offset, shift, 0xff) ?:
	       cb_verify_range(c, &c->dst, "destination", k->dst_offset, end, k->src_offset, 0) ?:
	       cb_verify_range(c, &c->dst, "destination", end, c->dst.len, end + shift, 0xff) ?:
	       cb_verify_range(c, &c->src, "source", 0, c->src.len, 0, 0);
}

/* The values derived from the statistics, once; then the results replace the last. */
static int cb_run_publish(struct cb_krun *c)
{
	struct cb_results *r = &c->r;
	u64 size = c->k.size;

	r->knobs = c->k;
	r->run_cpu = c->cpu;
	r->tsc_khz = tsc_khz;
	r->verified = 1;
	/* cycles * 10^6 / kHz = ns; cycles_median < 2^44 keeps this in u64 */
	if (r->tsc_khz)
		r->ns_median = div64_u64(r->cycles_median * 1000000ULL, r->tsc_khz);
	if (r->cycles_median)
		r->bytes_per_cycle = div64_u64(size * 100000ULL, r->cycles_median);
	/* bytes / ns * 1000 = MB/s (10^6 bytes per second) */
	if (r->ns_median)
		r->mb_per_s = div64_u64(size * 100000ULL, r->ns_median);
	r->run_ms = cb_krun_ms(c);

	r = kmemdup(r, sizeof(*r), GFP_KERNEL);
	if (!r)
		return cb_krun_fail(c, -ENOMEM, "no memory for the results");
	mutex_lock(&cb_results_lock);
	swap(cb_results, r);
	mutex_unlock(&cb_results_lock);
	kfree(r);
	return 0;
}

/* A run from the frozen knobs to the results; every failure leaves its sentence in last_error. */
static int cb_run_one(struct cb_krun *c)
{
	int ret;

	c->v = c->k.variant;
	cb_krun_start(c);
	ret = cb_run_check(c) ?: cb_run_prepare(c) ?: cb_measure(c);
	cb_krun_end(c);
	if (!ret) {
		c->doing = "checking the copied bytes";
		ret = cb_run_verify(c) ?: cb_run_publish(c);
	}
	/*
	 * An io-wq worker's -ERESTARTSYS is -EINTR to its request: io_uring
	 * restarts nothing (io_fixup_restart_res()), a stop or a freeze
	 * included.
	 */
	if (ret == -ERESTARTSYS && (current->flags & PF_IO_WORKER))
		cb_refuse("run", -EINTR,
			  "a signal, a stop or a freeze interrupted the run after %llu ms, while %s; the previous results stay; the write came through io_uring, which completes it with EINTR and does not start it again: submit it again",
			  cb_krun_ms(c), c->doing);
	else if (ret == -ERESTARTSYS)
		cb_refuse("run", -EINTR,
			  "a signal interrupted the run after %llu ms, while %s; the previous results stay (the write starts the run again after a stop, a freeze or an SA_RESTART handler, and fails with EINTR after another handler)",
			  cb_krun_ms(c), c->doing);
	else if (ret && c->why[0])
		cb_refuse("run", ret, "%s", c->why);
	else if (ret)
		cb_refuse("run", ret, "the run failed while %s", c->doing);

	cb_buf_free(&c->dst);
	cb_buf_free(&c->src);
	kvfree(c->c100);
	return ret;
}

/* run: write "1" to run with the current knobs; returns when done. */
static ssize_t cb_run_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct cb_krun *c;
	char buf[16];
	char *s;
	int ret;

	s = cb_user_string("run", ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (strcmp(s, "1"))
		return cb_refuse_value("run", -EINVAL, s,
				       "is not 1 (write 1 to start a run with the current knobs)");

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	ret = cb_knobs_freeze(&c->k);
	if (!ret) {
		ret = cb_run_one(c);
		cb_knobs_thaw();
		trace_copybench_run(c->k.variant->name, cb_direction_names[c->k.direction],
				    cb_cache_names[c->k.cache], c->k.size, c->k.src_offset,
				    c->k.dst_offset, c->r.loops, c->r.samples,
				    c->r.cycles_min / 100, c->r.cycles_median / 100,
				    c->r.baseline_cycles / 100, ret);
	}
	kfree(c);
	return ret ?: count;
}

const struct file_operations cb_run_fops = {
	.owner	= THIS_MODULE,
	.open	= cb_open_no_pos_lock,
	.write	= cb_run_write,
	.llseek	= default_llseek,
};

enum cb_result_key {
#define CB_RESULT_KEY(key, unit)	CB_RK_##key,
#include "copybench.h"
#undef CB_RESULT_KEY
	CB_RK_COUNT
};

/*
 * Where each key of copybench.h's CB_RESULT_KEY list comes from: a knob of
 * the run, printed as its file prints it, or a field of struct cb_results,
 * printed by its unit ("cycles" and "ns" in hundredths, "bytes/cycle" in
 * thousandths). A key added to the list without a line here does not
 * compile (CB_RS_<key> is undefined).
 */
struct cb_result_src {
	const char *key;
	const char *unit;
	int knob;		/* enum cb_knob_id, or -1 */
	size_t off;
};

#define CB_RS_KNOB(k)	.knob = CB_K_##k
#define CB_RS_FIELD(f)	.knob = -1, .off = offsetof(struct cb_results, f)

#define CB_RS_variant		CB_RS_KNOB(variant)
#define CB_RS_direction		CB_RS_KNOB(direction)
#define CB_RS_size		CB_RS_KNOB(size)
#define CB_RS_src_offset	CB_RS_KNOB(src_offset)
#define CB_RS_dst_offset	CB_RS_KNOB(dst_offset)
#define CB_RS_cache		CB_RS_KNOB(cache)
#define CB_RS_cpu		CB_RS_KNOB(cpu)
#define CB_RS_baseline		CB_RS_KNOB(baseline)
#define CB_RS_chain		CB_RS_KNOB(chain)
#define CB_RS_max_run_ms	CB_RS_KNOB(max_run_ms)
#define CB_RS_run_cpu		CB_RS_FIELD(run_cpu)
#define CB_RS_loops		CB_RS_FIELD(loops)
#define CB_RS_samples		CB_RS_FIELD(samples)
#define CB_RS_truncated		CB_RS_FIELD(truncated)
#define CB_RS_cycles_min	CB_RS_FIELD(cycles_min)
#define CB_RS_cycles_median	CB_RS_FIELD(cycles_median)
#define CB_RS_cycles_mean	CB_RS_FIELD(cycles_mean)
#define CB_RS_cycles_stddev	CB_RS_FIELD(cycles_stddev)
#define CB_RS_cycles_max	CB_RS_FIELD(cycles_max)
#define CB_RS_baseline_cycles	CB_RS_FIELD(baseline_cycles)
#define CB_RS_ns_median		CB_RS_FIELD(ns_median)
#define CB_RS_bytes_per_cycle	CB_RS_FIELD(bytes_per_cycle)
#define CB_RS_mb_per_s		CB_RS_FIELD(mb_per_s)
#define CB_RS_tsc_khz		CB_RS_FIELD(tsc_khz)
#define CB_RS_run_ms		CB_RS_FIELD(run_ms)
#define CB_RS_verified		CB_RS_FIELD(verified)

static const struct cb_result_src cb_result_srcs[CB_RK_COUNT] = {
#define CB_RESULT_KEY(rkey, runit)						\
	[CB_RK_##rkey] = { .key = __stringify(rkey), .unit = runit, CB_RS_##rkey },
#include "copybench.h"
#undef CB_RESULT_KEY
};

/* Fixed-point units: the value is held times scale, printed with decimals digits. */
static const struct {
	const char *unit;
	u32 scale;
	int decimals;
} cb_fixed_units[] = {
	{ "cycles", 100, 2 },
	{ "ns", 100, 2 },
	{ "bytes/cycle", 1000, 3 },
};

static void cb_result_show(struct seq_file *m, const struct cb_result_src *src,
			   const struct cb_results *r)
{
	char buf[64];
	u64 v;
	int i;

	if (src->knob >= 0) {
		cb_knob_show(src->knob, buf, sizeof(buf), &r->knobs);
		seq_printf(m, "%s %s", src->key, buf);
		return;
	}
	v = *(const u64 *)((const char *)r + src->off);
	for (i = 0; i < ARRAY_SIZE(cb_fixed_units); i++)
		if (!strcmp(src->unit, cb_fixed_units[i].unit)) {
			seq_printf(m, "%s %llu.%0*u\n", src->key, div_u64(v, cb_fixed_units[i].scale),
				   cb_fixed_units[i].decimals, (u32)(v % cb_fixed_units[i].scale));
			return;
		}
	seq_printf(m, "%s %llu\n", src->key, v);
}

/**
 * cb_results_show - the results file: "key value" per key of the
 * CB_RESULT_KEY list, in its order; empty before the first run
 * @m: the seq_file
 * @unused: nothing
 *
 * Return: 0.
 */
int cb_results_show(struct seq_file *m, void *unused)
{
	int i;

	mutex_lock(&cb_results_lock);
	for (i = 0; cb_results && i < CB_RK_COUNT; i++)
		cb_result_show(m, &cb_result_srcs[i], cb_results);
	mutex_unlock(&cb_results_lock);
	return 0;
}

/**
 * cb_tsc_khz_show - the tsc_khz file: the kernel's tsc_khz, what every run
 * converts and bounds with; tools read it rather than calibrate the TSC
 * against a clock that may be coarse (jiffies, in a guest with no better
 * clocksource)
 * @m: the seq_file
 * @unused: nothing
 *
 * Return: 0.
 */
int cb_tsc_khz_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", tsc_khz);
	return 0;
}

/**
 * cb_run_exit - free the last results; at module exit, after the files are gone
 */
void cb_run_exit(void)
{
	kfree(cb_results);
	cb_results = NULL;
}
