// SPDX-License-Identifier: GPL-2.0
/*
 * cb_run.c - the "run" and "results" files: the course of a run in the
 * writer (its checks, its buffers, the measuring thread it waits for, the
 * check of the copied bytes) and the last run's results, which this file
 * owns. The timed part is cb_measure.c; Documentation/copybench.rst, "How a
 * run measures", tells the whole story.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/topology.h>
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

static u64 cb_run_ms(const struct cb_run *c)
{
	return div_u64(ktime_get_ns() - c->start_ns, NSEC_PER_MSEC);
}

/* What can be refused before anything is allocated; picks the CPU. */
static int cb_run_check(struct cb_run *c)
{
	const struct cb_knobs *k = &c->k;
	char dirs[128];
	int cpu;

	if (!cb_kvariant_has(c->v, k->direction)) {
		cb_kvariant_dirs(c->v, dirs, sizeof(dirs));
		return cb_refuse("run", -EOPNOTSUPP,
				 "variant %s has no direction %s (its directions: %s); write native to variant, or another direction",
				 c->v->name, cb_direction_names[k->direction], dirs);
	}
	/* Every bound of a run is computed in TSC cycles from tsc_khz. */
	if (!tsc_khz)
		return cb_refuse("run", -ENODEV,
				 "the TSC frequency is unknown (tsc_khz 0: the kernel could not calibrate it), so no run can be timed or bounded");
	if ((cb_dir_src_user(k->direction) || cb_dir_dst_user(k->direction)) && !current->mm)
		return cb_refuse("run", -EINVAL,
				 "direction %s copies to or from the writer's address space, and the writer has none",
				 cb_direction_names[k->direction]);
	cpu = k->cpu >= 0 ? k->cpu : raw_smp_processor_id();
	if (!cpu_online(cpu))
		return cb_refuse("run", -ENODEV, "cpu %d is offline (online: %*pbl)", cpu,
				 cpumask_pr_args(cpu_online_mask));
	if (!cpumask_test_cpu(cpu, current->cpus_ptr))
		return cb_refuse("run", -EINVAL,
				 "cpu %d is not among the writer's allowed CPUs %*pbl (its cpuset and affinity); write -1 or one of them to cpu",
				 cpu, cpumask_pr_args(current->cpus_ptr));
	c->cpu = cpu;
	return 0;
}

/* Between steps of the preparation: a signal or the deadline ends it. */
static int cb_prep_check(struct cb_run *c, const char *doing)
{
	cond_resched();
	if (signal_pending(current))
		return -EINTR;
	if (ktime_get_ns() > c->deadline_ns)
		return cb_refuse("run", -ETIME,
				 "max_run_ms %u was reached after %llu ms, while %s; raise max_run_ms",
				 c->k.max_run_ms, cb_run_ms(c), doing);
	return 0;
}

/*
 * Source byte i is cb_data_byte(i); destination byte j starts as the
 * complement of the source byte that is to land on it, so a byte the copy
 * misses, or one it writes outside its range, never matches. Page by page.
 */
static int cb_fill(struct cb_run *c)
{
	u64 shift = (u64)c->k.src_offset - c->k.dst_offset;
	unsigned long at, n;
	int ret;

	for (at = 0; at < c->src.len; at += n) {
		n = min(c->src.len - at, PAGE_SIZE);
		cb_pattern_fill(c->src.kbase + at, at, n, 0);
		ret = cb_prep_check(c, "filling the buffers");
		if (ret)
			return ret;
	}
	for (at = 0; at < c->dst.len; at += n) {
		n = min(c->dst.len - at, PAGE_SIZE);
		cb_pattern_fill(c->dst.kbase + at, at + shift, n, 0xff);
		ret = cb_prep_check(c, "filling the buffers");
		if (ret)
			return ret;
	}
	return 0;
}

static int cb_run_alloc(struct cb_run *c, struct cb_buf *b, u64 bytes, bool user,
			const char *what)
{
	int ret = cb_buf_alloc(b, bytes, user);

	if (ret)
		return cb_refuse("run", ret,
				 "the %llu-byte %s buffer cannot be allocated (the writer's memory cgroup limit, or low memory)",
				 (u64)b->len, what);
	return cb_prep_check(c, "allocating the buffers");
}

/* Buffers, filled, the user side mapped in the writer; the copy's pointers. */
static int cb_run_prepare(struct cb_run *c)
{
	const struct cb_knobs *k = &c->k;
	bool src_user = cb_dir_src_user(k->direction);
	bool dst_user = cb_dir_dst_user(k->direction);
	int ret;

	c->c100 = kvmalloc_array(k->samples, sizeof(*c->c100), GFP_KERNEL_ACCOUNT);
	if (!c->c100)
		return cb_refuse("run", -ENOMEM, "no memory for %u samples", k->samples);
	ret = cb_run_alloc(c, &c->src, k->size + k->src_offset, src_user, "source") ?:
	      cb_run_alloc(c, &c->dst, k->size + k->dst_offset, dst_user, "destination") ?:
	      cb_fill(c);
	if (ret)
		return ret;
	if (src_user)
		ret = cb_buf_map(&c->src, false);
	if (dst_user && !ret)
		ret = cb_buf_map(&c->dst, true);
	if (ret)
		return cb_refuse("run", ret, "the user buffer cannot be mapped in the writer (%pe)",
				 ERR_PTR(ret));
	if (src_user || dst_user) {
		c->mm = current->mm;
		mmget(c->mm);
	}
	c->ksrc = c->src.kbase + k->src_offset;
	c->kdst = c->dst.kbase + k->dst_offset;
	c->usrc = src_user ? c->src.ubase + k->src_offset : NULL;
	c->udst = dst_user ? c->dst.ubase + k->dst_offset : NULL;
	c->len = k->size;
	return 0;
}

/*
 * The measuring thread: joins the writer's cgroups (its CPU time and cpuset
 * are the writer's), runs on the run's CPU only, and is reaped before the
 * write returns. The writer waits interruptibly; on a signal it waits on
 * for at most one copy, the thread having seen the signal too.
 */
static int cb_run_thread(struct cb_run *c)
{
	struct task_struct *t;
	int ret;

	init_completion(&c->done);
	t = kthread_create_on_node(cb_measure_thread, c, cpu_to_node(c->cpu), "copybench/%d",
				   c->cpu);
	if (IS_ERR(t))
		return PTR_ERR(t) == -EINTR ? -EINTR :
		       cb_refuse("run", PTR_ERR(t), "the run's thread cannot be created (%pe)", t);
	get_task_struct(t);
	ret = cgroup_attach_task_all(current, t);
	if (ret) {
		cb_refuse("run", ret, "the run's thread cannot join the writer's cgroups (%pe)",
			  ERR_PTR(ret));
	} else {
		ret = set_cpus_allowed_ptr(t, cpumask_of(c->cpu));
		if (ret)
			ret = cb_refuse("run", -ENODEV, "cpu %d is offline (online: %*pbl)",
					c->cpu, cpumask_pr_args(cpu_online_mask));
	}
	if (!ret) {
		wake_up_process(t);
		if (wait_for_completion_interruptible(&c->done))
			wait_for_completion(&c->done);
		ret = c->ret;
		if (ret && ret != -EINTR)
			cb_refuse("run", ret, "%s", c->why[0] ? c->why : "the measurement failed");
	}
	kthread_stop(t);
	put_task_struct(t);
	return ret;
}

/*
 * Bytes [from, to) of b hold the pattern from pos (XOR xor)? On a miss,
 * -EIO and last_error names the byte.
 */
static int cb_verify_range(struct cb_run *c, const struct cb_buf *b, const char *what,
			   unsigned long from, unsigned long to, u64 pos, u8 xor)
{
	unsigned long at, n, i;

	for (at = from; at < to; at += n) {
		n = min(to - at, PAGE_SIZE);
		i = cb_pattern_mismatch(b->kbase + at, pos + (at - from), n, xor);
		if (i < n) {
			u8 want = cb_data_byte(pos + (at - from) + i) ^ xor;

			return cb_refuse("run", -EIO,
					 "the copied bytes are wrong: %s byte %lu is 0x%02x, want 0x%02x (variant %s %s, size %llu, offsets %u/%u; or another thread of the writer wrote to the buffer it sees at 0x%lx)",
					 what, at + i, b->kbase[at + i], want, c->v->name,
					 cb_direction_names[c->k.direction], c->k.size,
					 c->k.src_offset, c->k.dst_offset,
					 (unsigned long)b->ubase);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * After the timing (as mm/gup_test.c takes "an un-benchmark-timed moment to
 * verify"): the destination holds the source's bytes with its guard bytes
 * untouched, and the source is unchanged.
 */
static int cb_run_verify(struct cb_run *c)
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
static int cb_run_publish(struct cb_run *c)
{
	struct cb_results *r = &c->r;
	u64 size = c->k.size;

	r->knobs = c->k;
	r->run_cpu = c->cpu;
	r->tsc_khz = tsc_khz;
	r->verified = true;
	/* cycles * 10^6 / kHz = ns; median_c100 < 2^44 keeps this in u64 */
	if (r->tsc_khz)
		r->ns_median100 = div64_u64(r->median_c100 * 1000000ULL, r->tsc_khz);
	if (r->median_c100)
		r->bpc1000 = div64_u64(size * 100000ULL, r->median_c100);
	/* bytes / ns * 1000 = MB/s (10^6 bytes per second) */
	if (r->ns_median100)
		r->mb_per_s = div64_u64(size * 100000ULL, r->ns_median100);
	r->run_ms = cb_run_ms(c);

	r = kmemdup(r, sizeof(*r), GFP_KERNEL);
	if (!r)
		return cb_refuse("run", -ENOMEM, "no memory for the results");
	mutex_lock(&cb_results_lock);
	swap(cb_results, r);
	mutex_unlock(&cb_results_lock);
	kfree(r);
	return 0;
}

static int cb_run(struct cb_run *c)
{
	int ret;

	c->start_ns = ktime_get_ns();
	c->deadline_ns = c->start_ns + (u64)c->k.max_run_ms * NSEC_PER_MSEC;
	c->v = c->k.variant;
	c->writer = current;

	ret = cb_run_check(c) ?: cb_run_prepare(c) ?: cb_run_thread(c) ?: cb_run_verify(c) ?:
	      cb_run_publish(c);
	if (ret == -EINTR)
		cb_refuse("run", -EINTR, "a signal ended the run after %llu ms; the previous results stay",
			  cb_run_ms(c));

	cb_buf_free(&c->dst);
	cb_buf_free(&c->src);
	if (c->mm)
		mmput(c->mm);
	kvfree(c->c100);
	return ret;
}

/* run: write "1" to run with the current knobs; returns when done. */
static ssize_t cb_run_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct cb_run *c;
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
		ret = cb_run(c);
		cb_knobs_thaw();
		trace_copybench_run(c->k.variant->name, cb_direction_names[c->k.direction],
				    cb_cache_names[c->k.cache], c->k.size, c->k.src_offset,
				    c->k.dst_offset, c->r.loops, c->r.samples,
				    c->r.min_c100 / 100, c->r.median_c100 / 100,
				    c->r.baseline_c100 / 100, ret);
	}
	kfree(c);
	return ret ? ret : count;
}

const struct file_operations cb_run_fops = {
	.owner	= THIS_MODULE,
	.write	= cb_run_write,
	.llseek	= default_llseek,
};

/* Fixed point: hundredths printed with two decimals. */
static void cb_show_c100(struct seq_file *m, const char *key, u64 c100)
{
	seq_printf(m, "%s %llu.%02llu\n", key, c100 / 100, c100 % 100);
}

enum cb_result_key {
#define CB_RESULT_KEY(key, unit)	CB_RK_##key,
#include "copybench.h"
#undef CB_RESULT_KEY
	CB_RK_COUNT
};

/* In enum order: both come from the list in copybench.h. */
static const char * const cb_result_names[CB_RK_COUNT] = {
#define CB_RESULT_KEY(key, unit)	__stringify(key),
#include "copybench.h"
#undef CB_RESULT_KEY
};

/* One key's line; -Wswitch warns of a key of the list without a case. */
static void cb_results_show_key(struct seq_file *m, enum cb_result_key key,
				const struct cb_results *r)
{
	const char *name = cb_result_names[key];

	switch (key) {
	case CB_RK_variant:
		seq_printf(m, "%s %s\n", name, r->knobs.variant->name);
		break;
	case CB_RK_direction:
		seq_printf(m, "%s %s\n", name, cb_direction_names[r->knobs.direction]);
		break;
	case CB_RK_size:
		seq_printf(m, "%s %llu\n", name, r->knobs.size);
		break;
	case CB_RK_src_offset:
		seq_printf(m, "%s %u\n", name, r->knobs.src_offset);
		break;
	case CB_RK_dst_offset:
		seq_printf(m, "%s %u\n", name, r->knobs.dst_offset);
		break;
	case CB_RK_cache:
		seq_printf(m, "%s %s\n", name, cb_cache_names[r->knobs.cache]);
		break;
	case CB_RK_cpu:
		seq_printf(m, "%s %d\n", name, r->knobs.cpu);
		break;
	case CB_RK_baseline:
		seq_printf(m, "%s %d\n", name, r->knobs.baseline);
		break;
	case CB_RK_max_run_ms:
		seq_printf(m, "%s %u\n", name, r->knobs.max_run_ms);
		break;
	case CB_RK_run_cpu:
		seq_printf(m, "%s %d\n", name, r->run_cpu);
		break;
	case CB_RK_loops:
		seq_printf(m, "%s %u\n", name, r->loops);
		break;
	case CB_RK_samples:
		seq_printf(m, "%s %u\n", name, r->samples);
		break;
	case CB_RK_truncated:
		seq_printf(m, "%s %d\n", name, r->truncated);
		break;
	case CB_RK_cycles_min:
		cb_show_c100(m, name, r->min_c100);
		break;
	case CB_RK_cycles_median:
		cb_show_c100(m, name, r->median_c100);
		break;
	case CB_RK_cycles_mean:
		cb_show_c100(m, name, r->mean_c100);
		break;
	case CB_RK_cycles_stddev:
		cb_show_c100(m, name, r->stddev_c100);
		break;
	case CB_RK_cycles_max:
		cb_show_c100(m, name, r->max_c100);
		break;
	case CB_RK_baseline_cycles:
		cb_show_c100(m, name, r->baseline_c100);
		break;
	case CB_RK_ns_median:
		cb_show_c100(m, name, r->ns_median100);
		break;
	case CB_RK_bytes_per_cycle:
		seq_printf(m, "%s %llu.%03llu\n", name, r->bpc1000 / 1000, r->bpc1000 % 1000);
		break;
	case CB_RK_mb_per_s:
		seq_printf(m, "%s %llu\n", name, r->mb_per_s);
		break;
	case CB_RK_tsc_khz:
		seq_printf(m, "%s %llu\n", name, r->tsc_khz);
		break;
	case CB_RK_run_ms:
		seq_printf(m, "%s %llu\n", name, r->run_ms);
		break;
	case CB_RK_verified:
		seq_printf(m, "%s %d\n", name, r->verified);
		break;
	case CB_RK_COUNT:
		break;
	}
}

static int cb_results_show(struct seq_file *m, void *unused)
{
	enum cb_result_key key;

	mutex_lock(&cb_results_lock);
	if (cb_results)
		for (key = 0; key < CB_RK_COUNT; key++)
			cb_results_show_key(m, key, cb_results);
	mutex_unlock(&cb_results_lock);
	return 0;
}

static int cb_results_open(struct inode *inode, struct file *file)
{
	return single_open(file, cb_results_show, NULL);
}

const struct file_operations cb_results_fops = {
	.owner		= THIS_MODULE,
	.open		= cb_results_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * cb_run_exit - free the last results; at module exit, after the files are gone
 */
void cb_run_exit(void)
{
	kfree(cb_results);
	cb_results = NULL;
}
