// SPDX-License-Identifier: GPL-2.0
/*
 * copybench.c - copybench.ko entry: module init/exit and the debugfs
 * directory /sys/kernel/debug/copybench/ that is its whole interface.
 *
 * Every knob is one file holding one value, checked when written (a
 * bounded copy_from_user(), strstrip(), kstrto*() or a name lookup, as
 * lib/fault-inject.c and kernel/kcsan/debugfs.c do). A bad value changes
 * nothing and fails the write with -EINVAL; an unusable variant with
 * -EOPNOTSUPP; any knob write while a run is in progress with -EBUSY.
 *
 * Documentation/copybench.rst describes every file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>

#include "cb_internal.h"

/*
 * cb_lock guards cb_knobs, cb_running, the results and the data buffer
 * pointer. A run holds it only to start and to finish: knobs are copied
 * into the run, which sets cb_running meanwhile.
 */
DEFINE_MUTEX(cb_lock);
bool cb_running;

/*
 * The knobs. Each is a file of the same name; the comments give unit,
 * range and default (limits in copybench.h).
 */
struct cb_knobs cb_knobs = {
	/* variant: a name of the "variants" file; default "native" */
	.variant	= NULL,			/* set in cb_init() */
	/* direction: memcpy, to_user or from_user; default to_user */
	.direction	= CB_DIR_to_user,
	/* size: bytes per copy, 0..CB_SIZE_MAX (64 MiB); default 4096 */
	.size		= CB_SIZE_DEFAULT,
	/* src_offset, dst_offset: bytes past a page boundary, 0..4095; default 0 */
	.src_offset	= 0,
	.dst_offset	= 0,
	/* cache: hot (warm buffers) or cold (lines flushed before each copy) */
	.cache		= CB_CACHE_hot,
	/* loops: copies per timed sample, 0..CB_LOOPS_MAX; 0 = automatic */
	.loops		= CB_LOOPS_DEFAULT,
	/* samples: timed samples per run, 1..100000; default 101 */
	.samples	= CB_SAMPLES_DEFAULT,
	/* cpu: an online CPU, or -1 for the writer's CPU; default -1 */
	.cpu		= -1,
	/* baseline: 1 subtracts the empty-copy loop's cost, 0 does not; default 1 */
	.baseline	= true,
	/* max_run_ms: bound of one run in ms, 1..600000; default 10000 */
	.max_run_ms	= CB_MAX_RUN_MS_DEFAULT,
	/* data_chunk: bytes per copy call in data reads/writes, 0 (one call) .. 1 GiB; default 4096 */
	.data_chunk	= CB_DATA_CHUNK_DEFAULT,
};

static struct cb_results *cb_results;	/* the last run's, NULL before */
static struct dentry *cb_dir;

/*
 * A knob's file: its value formatted by show(), replaced by parse() on a
 * write. parse() gets the stripped text and a copy of the knobs to change,
 * under cb_lock; it returns 0 or a negative errno and then must not have
 * changed anything that matters (the copy is dropped).
 */
struct cb_knob {
	const char *name;
	int (*parse)(const char *s, struct cb_knobs *k);
	int (*show)(char *buf, size_t len, const struct cb_knobs *k);
};

/* Decimal only: "010" is ten, not eight; "0x10" is garbage. */
static int cb_parse_u64(const char *s, u64 min, u64 max, u64 *val)
{
	u64 v;

	if (kstrtou64(s, 10, &v) || v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

static int cb_parse_u32(const char *s, u32 min, u32 max, u32 *val)
{
	u64 v;
	int ret = cb_parse_u64(s, min, max, &v);

	if (!ret)
		*val = v;
	return ret;
}

static int cb_find_name(const char *s, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

static int cb_parse_variant(const char *s, struct cb_knobs *k)
{
	const struct cb_kvariant *v = cb_kvariant_find(s);

	if (!v)
		return -EINVAL;
	if (!cb_kvariant_usable(v))
		return -EOPNOTSUPP;
	k->variant = v;
	return 0;
}

static int cb_show_variant(char *buf, size_t len, const struct cb_knobs *k)
{
	return scnprintf(buf, len, "%s\n", k->variant->name);
}

/* The knobs holding one name of a fixed list, kept as its index. */
#define CB_NAME_KNOB(field, names, count)					\
static int cb_parse_##field(const char *s, struct cb_knobs *k)		\
{									\
	int i = cb_find_name(s, names, count);				\
									\
	if (i < 0)							\
		return i;						\
	k->field = i;							\
	return 0;							\
}									\
static int cb_show_##field(char *buf, size_t len, const struct cb_knobs *k) \
{									\
	return scnprintf(buf, len, "%s\n", names[k->field]);		\
}

CB_NAME_KNOB(direction, cb_direction_names, CB_DIR_COUNT)
CB_NAME_KNOB(cache, cb_cache_names, CB_CACHE_COUNT)

static int cb_parse_cpu(const char *s, struct cb_knobs *k)
{
	int cpu;

	if (kstrtoint(s, 10, &cpu))
		return -EINVAL;
	if (cpu != -1 && (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu)))
		return -EINVAL;
	k->cpu = cpu;
	return 0;
}

static int cb_show_cpu(char *buf, size_t len, const struct cb_knobs *k)
{
	return scnprintf(buf, len, "%d\n", k->cpu);
}

static int cb_parse_baseline(const char *s, struct cb_knobs *k)
{
	u32 v;
	int ret = cb_parse_u32(s, 0, 1, &v);

	if (!ret)
		k->baseline = v;
	return ret;
}

static int cb_show_baseline(char *buf, size_t len, const struct cb_knobs *k)
{
	return scnprintf(buf, len, "%d\n", k->baseline);
}

/* The plain numeric knobs: a field, its limits, one parse and show each. */
#define CB_NUM_KNOB(field, type, min, max)					\
static int cb_parse_##field(const char *s, struct cb_knobs *k)		\
{									\
	return cb_parse_##type(s, min, max, &k->field);			\
}									\
static int cb_show_##field(char *buf, size_t len, const struct cb_knobs *k) \
{									\
	return scnprintf(buf, len, "%llu\n", (unsigned long long)k->field); \
}

CB_NUM_KNOB(size, u64, 0, CB_SIZE_MAX)
CB_NUM_KNOB(src_offset, u32, 0, CB_OFFSET_MAX)
CB_NUM_KNOB(dst_offset, u32, 0, CB_OFFSET_MAX)
CB_NUM_KNOB(loops, u32, 0, CB_LOOPS_MAX)
CB_NUM_KNOB(samples, u32, CB_SAMPLES_MIN, CB_SAMPLES_MAX)
CB_NUM_KNOB(max_run_ms, u32, CB_MAX_RUN_MS_MIN, CB_MAX_RUN_MS_MAX)
CB_NUM_KNOB(data_chunk, u64, 0, CB_DATA_CHUNK_MAX)

#define CB_KNOB(n)	{ .name = #n, .parse = cb_parse_##n, .show = cb_show_##n }
static const struct cb_knob cb_knob_table[] = {
	CB_KNOB(variant),
	CB_KNOB(direction),
	CB_KNOB(size),
	CB_KNOB(src_offset),
	CB_KNOB(dst_offset),
	CB_KNOB(cache),
	CB_KNOB(loops),
	CB_KNOB(samples),
	CB_KNOB(cpu),
	CB_KNOB(baseline),
	CB_KNOB(max_run_ms),
	CB_KNOB(data_chunk),
};

/*
 * cb_user_string - copy a write of at most len - 1 bytes into buf,
 * NUL-terminated and stripped of surrounding white space. Longer writes
 * cannot be a valid value: -EINVAL.
 */
static char *cb_user_string(const char __user *ubuf, size_t count, char *buf, size_t len)
{
	if (count >= len)
		return ERR_PTR(-EINVAL);
	if (copy_from_user(buf, ubuf, count))
		return ERR_PTR(-EFAULT);
	buf[count] = '\0';
	return strstrip(buf);
}

static ssize_t cb_knob_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct cb_knob *knob = file->private_data;
	char buf[64];
	int len;

	mutex_lock(&cb_lock);
	len = knob->show(buf, sizeof(buf), &cb_knobs);
	mutex_unlock(&cb_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t cb_knob_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	const struct cb_knob *knob = file->private_data;
	struct cb_knobs k;
	char buf[64];
	char *s;
	int ret;

	s = cb_user_string(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);

	mutex_lock(&cb_lock);
	if (cb_running) {
		ret = -EBUSY;
	} else {
		k = cb_knobs;
		ret = knob->parse(s, &k);
		if (!ret)
			cb_knobs = k;
	}
	mutex_unlock(&cb_lock);
	return ret ? ret : count;
}

static const struct file_operations cb_knob_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cb_knob_read,
	.write	= cb_knob_write,
	.llseek	= default_llseek,
};

/* data_size: a new buffer, allocated and filled before it replaces the old. */
static ssize_t cb_data_size_read(struct file *file, char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	char buf[32];
	int len;

	mutex_lock(&cb_lock);
	len = scnprintf(buf, sizeof(buf), "%llu\n", cb_data_size());
	mutex_unlock(&cb_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t cb_data_size_write(struct file *file, const char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	char buf[32];
	char *s;
	u64 size;
	int ret;

	s = cb_user_string(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);
	ret = cb_parse_u64(s, CB_DATA_SIZE_MIN, CB_DATA_SIZE_MAX, &size);
	if (!ret)
		ret = cb_data_resize(size);
	return ret ? ret : count;
}

static const struct file_operations cb_data_size_fops = {
	.owner	= THIS_MODULE,
	.read	= cb_data_size_read,
	.write	= cb_data_size_write,
	.llseek	= default_llseek,
};

/* variants: "name usable|unusable description" per line, table order. */
static int cb_variants_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < cb_kvariant_count(); i++) {
		const struct cb_kvariant *v = cb_kvariant_at(i);

		seq_printf(m, "%s %s %s\n", v->name,
			   cb_kvariant_usable(v) ? "usable" : "unusable", v->desc);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cb_variants);

/* run: write "1" to run with the current knobs; returns when done. */
static ssize_t cb_run_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct cb_results *res;
	struct cb_knobs k;
	char buf[16];
	char *s;
	u32 one;
	int ret;

	s = cb_user_string(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (cb_parse_u32(s, 1, 1, &one))
		return -EINVAL;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;

	mutex_lock(&cb_lock);
	if (cb_running) {
		mutex_unlock(&cb_lock);
		kfree(res);
		return -EBUSY;
	}
	cb_running = true;
	k = cb_knobs;
	mutex_unlock(&cb_lock);

	ret = cb_run(&k, res);

	mutex_lock(&cb_lock);
	cb_running = false;
	if (!ret)
		swap(cb_results, res);
	mutex_unlock(&cb_lock);
	kfree(res);
	return ret ? ret : count;
}

static const struct file_operations cb_run_fops = {
	.owner	= THIS_MODULE,
	.write	= cb_run_write,
	.llseek	= default_llseek,
};

/* Fixed point: hundredths of a cycle printed with two decimals. */
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
	u64 bpc1000 = 0, mbps = 0, ns100;

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
		/* cycles * 10^6 / kHz = ns; median_c100 < 2^44 keeps this in u64 */
		ns100 = r->tsc_khz ? div64_u64(r->median_c100 * 1000000ULL, r->tsc_khz) : 0;
		cb_show_c100(m, name, ns100);
		break;
	case CB_RK_bytes_per_cycle:
		if (r->median_c100)
			bpc1000 = div64_u64(r->knobs.size * 100000ULL, r->median_c100);
		seq_printf(m, "%s %llu.%03llu\n", name, bpc1000 / 1000, bpc1000 % 1000);
		break;
	case CB_RK_mb_per_s:
		/* bytes / ns * 1000 = MB/s (10^6 bytes per second) */
		ns100 = r->tsc_khz ? div64_u64(r->median_c100 * 1000000ULL, r->tsc_khz) : 0;
		if (ns100)
			mbps = div64_u64(r->knobs.size * 100000ULL, ns100);
		seq_printf(m, "%s %llu\n", name, mbps);
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

	mutex_lock(&cb_lock);
	if (cb_results)
		for (key = 0; key < CB_RK_COUNT; key++)
			cb_results_show_key(m, key, cb_results);
	mutex_unlock(&cb_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cb_results);

/*
 * Idempotent: serves module_exit and every init error path. The files go
 * first: nothing can be open by then (each open holds a module reference
 * through .owner, so rmmod fails with EBUSY while one is open).
 */
static void cb_cleanup(void)
{
	debugfs_remove_recursive(cb_dir);
	cb_dir = NULL;
	cb_data_exit();
	kfree(cb_results);
	cb_results = NULL;
}

/*
 * Every file is created with debugfs_create_file_unsafe(): debugfs then
 * skips its per-call removal protection, which is safe because the files
 * are removed only by cb_cleanup(), at module exit, and an open file pins
 * the module through fops->owner. The data file's read path thus carries no
 * debugfs overhead.
 */
static void cb_create_files(void)
{
	unsigned int i;

	debugfs_create_file_unsafe("variants", 0400, cb_dir, NULL, &cb_variants_fops);
	for (i = 0; i < ARRAY_SIZE(cb_knob_table); i++)
		debugfs_create_file_unsafe(cb_knob_table[i].name, 0600, cb_dir,
					   (void *)&cb_knob_table[i], &cb_knob_fops);
	debugfs_create_file_unsafe("run", 0200, cb_dir, NULL, &cb_run_fops);
	debugfs_create_file_unsafe("results", 0400, cb_dir, NULL, &cb_results_fops);
	debugfs_create_file_unsafe("data_size", 0600, cb_dir, NULL, &cb_data_size_fops);
	cb_data_create_file(cb_dir);
}

static int __init cb_init(void)
{
	int ret;

	if (!debugfs_initialized()) {
		pr_err("debugfs is not available (debugfs=off?); copybench has no other interface\n");
		return -ENODEV;
	}

	cb_variants_init();
	cb_knobs.variant = cb_kvariant_find(CB_NATIVE_NAME);

	ret = cb_data_init(CB_DATA_SIZE_DEFAULT);
	if (ret)
		return ret;

	cb_dir = debugfs_create_dir("copybench", NULL);
	if (IS_ERR_OR_NULL(cb_dir)) {
		pr_err("cannot create debugfs directory copybench: %ld\n",
		       cb_dir ? PTR_ERR(cb_dir) : -ENOMEM);
		ret = -ENODEV;
		goto cleanup;
	}
	cb_create_files();
	return 0;

cleanup:
	cb_cleanup();
	return ret;
}

static void __exit cb_exit(void)
{
	cb_cleanup();
}

module_init(cb_init);
module_exit(cb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("copybench: time the kernel's copy routines against fixed control variants");
MODULE_AUTHOR("copybench developers");
MODULE_VERSION(COPYBENCH_VERSION);
