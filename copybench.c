// SPDX-License-Identifier: GPL-2.0
/*
 * copybench.c - copybench.ko's entry: module init and exit, the debugfs
 * directory made from the CB_FILE list of copybench.h, the knobs and their
 * locking, and last_error. Documentation/copybench.rst describes every file.
 */
#define pr_fmt(fmt) "copybench: " fmt

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>
#include <asm/tsc.h>

#include "cb_internal.h"

/* A written value is at most 63 bytes; escaped, each may take 4. */
#define CB_VALUE_ESCAPED	(63 * 4 + 1)

/*
 * The knobs, under cb_knob_lock. Each is the file of the same name; unit,
 * range and default are in copybench.h and Documentation/copybench.rst.
 * cb_frozen_by is the pid of the run in progress (0: none): knob writes are
 * refused with -EBUSY while it is set.
 */
static DEFINE_MUTEX(cb_knob_lock);
static pid_t cb_frozen_by;
static struct cb_knobs cb_knobs = {
	.variant	= NULL,			/* "native", set in cb_init() */
	.direction	= CB_DIR_to_user,
	.size		= CB_SIZE_DEFAULT,
	.src_offset	= 0,
	.dst_offset	= 0,
	.cache		= CB_CACHE_hot,
	.loops		= CB_LOOPS_DEFAULT,
	.samples	= CB_SAMPLES_DEFAULT,
	.cpu		= -1,
	.baseline	= true,
	.max_run_ms	= CB_MAX_RUN_MS_DEFAULT,
	.data_chunk	= CB_DATA_CHUNK_DEFAULT,
};

/* last_error: the last refusal, one line; empty until the first. */
static DEFINE_SPINLOCK(cb_error_lock);
static char cb_last_error[CB_LAST_ERROR_MAX];

static struct dentry *cb_dir;

/**
 * cb_knobs_get - copy the current knobs
 * @k: where to copy them
 */
void cb_knobs_get(struct cb_knobs *k)
{
	mutex_lock(&cb_knob_lock);
	*k = cb_knobs;
	mutex_unlock(&cb_knob_lock);
}

/**
 * cb_knobs_freeze - copy the knobs for a run and refuse knob writes until
 * cb_knobs_thaw()
 * @k: where to copy them
 *
 * Return: 0, or -EBUSY (recorded in last_error) when a run is in progress.
 */
int cb_knobs_freeze(struct cb_knobs *k)
{
	pid_t by;

	mutex_lock(&cb_knob_lock);
	by = cb_frozen_by;
	if (!by) {
		cb_frozen_by = task_pid_nr(current);
		*k = cb_knobs;
	}
	mutex_unlock(&cb_knob_lock);
	if (by)
		return cb_refuse("run", -EBUSY, "a run (pid %d) is already in progress", by);
	return 0;
}

/**
 * cb_knobs_thaw - end what cb_knobs_freeze() began: knob writes work again
 */
void cb_knobs_thaw(void)
{
	mutex_lock(&cb_knob_lock);
	cb_frozen_by = 0;
	mutex_unlock(&cb_knob_lock);
}

static void cb_record(const char *file, int err, const char *fmt, va_list *args)
{
	char line[CB_LAST_ERROR_MAX];
	struct va_format vaf = { .fmt = fmt, .va = args };
	char name[24];
	int n;

	/* "-EINVAL" without its sign; "-22" without CONFIG_SYMBOLIC_ERRNAME. */
	snprintf(name, sizeof(name), "%pe", ERR_PTR(err));
	n = scnprintf(line, sizeof(line) - 1, "%s: %s: %pV (pid %d)", file, name + 1, &vaf,
		      task_pid_nr(current));
	line[n++] = '\n';
	line[n] = '\0';

	spin_lock(&cb_error_lock);
	memcpy(cb_last_error, line, n + 1);
	spin_unlock(&cb_error_lock);
}

/**
 * cb_refuse - record a refusal in last_error
 * @file: the file the refused write went to ("size", "run", ...)
 * @err: the negative errno the write returns
 * @fmt: the rule that was broken and what is accepted, in words
 *
 * Return: @err, so that callers can "return cb_refuse(...)".
 */
int cb_refuse(const char *file, int err, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	cb_record(file, err, fmt, &args);
	va_end(args);
	return err;
}

/**
 * cb_refuse_value - cb_refuse() for a refused value: the line gives the
 * value before the rule, quoted, in ASCII: quotes, backslashes and every
 * byte that is not printable ASCII escaped (\n, \xff)
 * @file: the file written
 * @err: the negative errno the write returns
 * @value: the value written, stripped of surrounding white space
 * @fmt: the rule the value broke and what is accepted
 *
 * Return: @err.
 */
int cb_refuse_value(const char *file, int err, const char *value, const char *fmt, ...)
{
	char esc[CB_VALUE_ESCAPED];
	struct va_format vaf;
	va_list args;
	int n;

	n = string_escape_mem(value, strlen(value), esc, sizeof(esc) - 1,
			      ESCAPE_SPECIAL | ESCAPE_HEX | ESCAPE_NAP | ESCAPE_APPEND, "\"\\");
	esc[min_t(int, n, sizeof(esc) - 1)] = '\0';
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	cb_refuse(file, err, "\"%s\" %pV", esc, &vaf);
	va_end(args);
	return err;
}

/**
 * cb_user_string - copy a write of at most @len - 1 bytes into @buf,
 * NUL-terminated and stripped of surrounding white space
 * @file: the file written, for last_error
 * @ubuf: the bytes written
 * @count: how many
 * @buf: where to put them
 * @len: its size
 *
 * Return: the stripped string, or an ERR_PTR: -EINVAL for a write longer
 * than any valid value (recorded in last_error), -EFAULT.
 */
char *cb_user_string(const char *file, const char __user *ubuf, size_t count, char *buf,
		     size_t len)
{
	if (count >= len)
		return ERR_PTR(cb_refuse(file, -EINVAL,
					 "a write of %zu bytes is longer than any value (at most %zu)",
					 count, len - 1));
	if (copy_from_user(buf, ubuf, count))
		return ERR_PTR(-EFAULT);
	buf[count] = '\0';
	return strstrip(buf);
}

/**
 * cb_parse_u64 - parse a plain decimal number in [@min, @max]
 * @file: the file written, for last_error
 * @s: the stripped value: digits only ("010" is ten; no sign, no "0x")
 * @min: smallest value accepted
 * @max: largest value accepted
 * @val: the value, set only on success
 *
 * Return: 0, or -EINVAL recorded in last_error.
 */
int cb_parse_u64(const char *file, const char *s, u64 min, u64 max, u64 *val)
{
	u64 v;
	int ret = isdigit(*s) ? kstrtou64(s, 10, &v) : -EINVAL;

	if (ret == -EINVAL)
		return cb_refuse_value(file, -EINVAL, s,
				       "is not a plain decimal number (accepted: %llu to %llu)",
				       min, max);
	if (ret || v > max)
		return cb_refuse_value(file, -EINVAL, s,
				       "is above the maximum %llu (accepted: %llu to %llu)",
				       max, min, max);
	if (v < min)
		return cb_refuse_value(file, -EINVAL, s,
				       "is below the minimum %llu (accepted: %llu to %llu)",
				       min, min, max);
	*val = v;
	return 0;
}

static int cb_parse_u32(const char *file, const char *s, u32 min, u32 max, u32 *val)
{
	u64 v;
	int ret = cb_parse_u64(file, s, min, max, &v);

	if (!ret)
		*val = v;
	return ret;
}

/*
 * A knob's file: its value formatted by show(), replaced by parse() on a
 * write. parse() gets the file name, the stripped text and a copy of the
 * knobs to change, under cb_knob_lock; it returns 0, or a negative errno
 * recorded with cb_refuse(), and then the copy is dropped.
 */
struct cb_knob {
	int (*parse)(const char *file, const char *s, struct cb_knobs *k);
	int (*show)(char *buf, size_t len, const struct cb_knobs *k);
};

static int cb_parse_variant(const char *file, const char *s, struct cb_knobs *k)
{
	const struct cb_kvariant *v = cb_kvariant_find(s);
	char names[256];

	if (!v) {
		cb_kvariant_names(names, sizeof(names), false);
		return cb_refuse_value(file, -EINVAL, s, "is not a variant (accepted: %s)", names);
	}
	if (!cb_kvariant_usable(v)) {
		cb_kvariant_names(names, sizeof(names), true);
		return cb_refuse_value(file, -EOPNOTSUPP, s,
				       "cannot run on this CPU, which lacks %s (usable: %s)",
				       cb_kvariant_lacks(v), names);
	}
	k->variant = v;
	return 0;
}

static int cb_show_variant(char *buf, size_t len, const struct cb_knobs *k)
{
	return scnprintf(buf, len, "%s\n", k->variant->name);
}

/* names[] as "a, b, c". */
static void cb_join(char *buf, size_t len, const char * const *names, int n)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		at += scnprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);
}

static int cb_find_name(const char *file, const char *s, const char *what,
			const char * const *names, int n)
{
	char list[128];
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	cb_join(list, sizeof(list), names, n);
	return cb_refuse_value(file, -EINVAL, s, "is not a %s (accepted: %s)", what, list);
}

/* The knobs holding one name of a fixed list, kept as its index. */
#define CB_NAME_KNOB(field, what, names, count)					\
static int cb_parse_##field(const char *file, const char *s, struct cb_knobs *k) \
{									\
	int i = cb_find_name(file, s, what, names, count);		\
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

CB_NAME_KNOB(direction, "direction", cb_direction_names, CB_DIR_COUNT)
CB_NAME_KNOB(cache, "cache mode", cb_cache_names, CB_CACHE_COUNT)

static int cb_parse_cpu(const char *file, const char *s, struct cb_knobs *k)
{
	u64 cpu;
	int ret;

	if (!strcmp(s, "-1")) {
		k->cpu = -1;
		return 0;
	}
	ret = isdigit(*s) ? kstrtou64(s, 10, &cpu) : -EINVAL;
	if (ret == -EINVAL)
		return cb_refuse_value(file, -EINVAL, s,
				       "is neither -1 nor a plain decimal CPU number (accepted: -1 or one of %*pbl)",
				       cpumask_pr_args(cpu_online_mask));
	if (ret || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return cb_refuse_value(file, -EINVAL, s,
				       "is not an online CPU (accepted: -1 or one of %*pbl)",
				       cpumask_pr_args(cpu_online_mask));
	k->cpu = cpu;
	return 0;
}

static int cb_show_cpu(char *buf, size_t len, const struct cb_knobs *k)
{
	return scnprintf(buf, len, "%d\n", k->cpu);
}

static int cb_parse_baseline(const char *file, const char *s, struct cb_knobs *k)
{
	u32 v;
	int ret = cb_parse_u32(file, s, 0, 1, &v);

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
static int cb_parse_##field(const char *file, const char *s, struct cb_knobs *k) \
{									\
	return cb_parse_##type(file, s, min, max, &k->field);		\
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

/* Indexed by file: the knobs of the CB_FILE list (cb_file_fops() says which). */
#define CB_KNOB(n)	{ .parse = cb_parse_##n, .show = cb_show_##n }
static const struct cb_knob cb_knob_table[CB_F_COUNT] = {
	[CB_F_variant]		= CB_KNOB(variant),
	[CB_F_direction]	= CB_KNOB(direction),
	[CB_F_size]		= CB_KNOB(size),
	[CB_F_src_offset]	= CB_KNOB(src_offset),
	[CB_F_dst_offset]	= CB_KNOB(dst_offset),
	[CB_F_cache]		= CB_KNOB(cache),
	[CB_F_loops]		= CB_KNOB(loops),
	[CB_F_samples]		= CB_KNOB(samples),
	[CB_F_cpu]		= CB_KNOB(cpu),
	[CB_F_baseline]		= CB_KNOB(baseline),
	[CB_F_max_run_ms]	= CB_KNOB(max_run_ms),
	[CB_F_data_chunk]	= CB_KNOB(data_chunk),
};

/* The files of copybench.h's CB_FILE list, in enum cb_file_id's order. */
static const struct {
	const char *name;
	umode_t mode;
} cb_files[CB_F_COUNT] = {
#define CB_FILE(fname, fmode)	{ .name = #fname, .mode = fmode },
#include "copybench.h"
#undef CB_FILE
};

static ssize_t cb_knob_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct cb_knob *knob = file->private_data;
	char buf[64];
	int len;

	mutex_lock(&cb_knob_lock);
	len = knob->show(buf, sizeof(buf), &cb_knobs);
	mutex_unlock(&cb_knob_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t cb_knob_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	const struct cb_knob *knob = file->private_data;
	const char *name = cb_files[knob - cb_knob_table].name;
	struct cb_knobs k;
	char buf[64];
	char *s;
	int ret;

	s = cb_user_string(name, ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);

	mutex_lock(&cb_knob_lock);
	if (cb_frozen_by) {
		ret = cb_refuse_value(name, -EBUSY, s,
				      "not taken: a run (pid %d) is in progress and the knobs keep their values until it ends",
				      cb_frozen_by);
	} else {
		k = cb_knobs;
		ret = knob->parse(name, s, &k);
		if (!ret)
			cb_knobs = k;
	}
	mutex_unlock(&cb_knob_lock);
	return ret ? ret : count;
}

static const struct file_operations cb_knob_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cb_knob_read,
	.write	= cb_knob_write,
	.llseek	= default_llseek,
};

static ssize_t cb_last_error_read(struct file *file, char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	char line[CB_LAST_ERROR_MAX];
	ssize_t len;

	spin_lock(&cb_error_lock);
	len = strscpy(line, cb_last_error, sizeof(line));
	spin_unlock(&cb_error_lock);
	if (len < 0)
		len = 0;
	return simple_read_from_buffer(ubuf, count, ppos, line, len);
}

static const struct file_operations cb_last_error_fops = {
	.owner	= THIS_MODULE,
	.read	= cb_last_error_read,
	.llseek	= default_llseek,
};

/*
 * The kernel's tsc_khz, what every run converts and bounds with: tools
 * read it rather than calibrate the TSC against a clock that may be coarse
 * (jiffies, in a guest with no better clocksource).
 */
static ssize_t cb_tsc_khz_read(struct file *file, char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	char buf[24];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", tsc_khz);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations cb_tsc_khz_fops = {
	.owner	= THIS_MODULE,
	.read	= cb_tsc_khz_read,
	.llseek	= default_llseek,
};

/*
 * The fops of each file of the CB_FILE list, and for knobs their entry of
 * cb_knob_table as private data. -Wswitch flags a listed file without a case.
 */
static const struct file_operations *cb_file_fops(enum cb_file_id id, void **data)
{
	*data = NULL;
	switch (id) {
	case CB_F_variants:
		return &cb_variants_fops;
	case CB_F_variant:
	case CB_F_direction:
	case CB_F_size:
	case CB_F_src_offset:
	case CB_F_dst_offset:
	case CB_F_cache:
	case CB_F_loops:
	case CB_F_samples:
	case CB_F_cpu:
	case CB_F_baseline:
	case CB_F_max_run_ms:
	case CB_F_data_chunk:
		*data = (void *)&cb_knob_table[id];
		return cb_knob_table[id].parse ? &cb_knob_fops : NULL;
	case CB_F_run:
		return &cb_run_fops;
	case CB_F_results:
		return &cb_results_fops;
	case CB_F_last_error:
		return &cb_last_error_fops;
	case CB_F_tsc_khz:
		return &cb_tsc_khz_fops;
	case CB_F_data_size:
		return &cb_data_size_fops;
	case CB_F_data:
		return &cb_data_fops;
	case CB_F_COUNT:
		break;
	}
	return NULL;
}

/*
 * Idempotent: serves module_exit and every init error path. The files go
 * first: nothing can be open by then (each open holds a module reference
 * through .owner, so rmmod fails with EBUSY while one is open).
 */
static void cb_cleanup(void)
{
	cb_data_removing();
	debugfs_remove_recursive(cb_dir);
	cb_dir = NULL;
	cb_data_exit();
	cb_run_exit();
}

/*
 * Every file is created with debugfs_create_file_unsafe(): debugfs then
 * skips its per-call removal protection, which is safe because the files
 * are removed only by cb_cleanup(), at module exit, and an open file pins
 * the module through fops->owner. The data file's read path thus carries no
 * debugfs overhead.
 */
static int cb_create_files(void)
{
	const struct file_operations *fops;
	struct dentry *d;
	void *data;
	int i;

	for (i = 0; i < CB_F_COUNT; i++) {
		fops = cb_file_fops(i, &data);
		if (!fops) {
			pr_err("file %s of copybench.h has no file operations\n", cb_files[i].name);
			return -EINVAL;
		}
		d = debugfs_create_file_unsafe(cb_files[i].name, cb_files[i].mode, cb_dir, data,
					       fops);
		if (i == CB_F_data && !IS_ERR(d))
			cb_data_created(d);
	}
	return 0;
}

static int __init cb_init(void)
{
	int ret;

	if (!debugfs_initialized()) {
		pr_err("debugfs is not available (debugfs=off?); copybench has no other interface\n");
		return -ENODEV;
	}

	cb_knobs.variant = cb_kvariant_find(CB_NATIVE_NAME);
	ret = cb_data_init();
	if (ret)
		return ret;

	cb_dir = debugfs_create_dir("copybench", NULL);
	if (IS_ERR_OR_NULL(cb_dir)) {
		pr_err("cannot create debugfs directory copybench: %ld\n",
		       cb_dir ? PTR_ERR(cb_dir) : -ENOMEM);
		ret = -ENODEV;
		goto cleanup;
	}
	ret = cb_create_files();
	if (ret)
		goto cleanup;
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
MODULE_DESCRIPTION("Time the kernel's copy routines against fixed copy variants, and serve a read path that copies with one of them");
MODULE_AUTHOR("copybench maintainers <maintainers@users.noreply.a-seed-fdc11411.example>");
MODULE_VERSION(COPYBENCH_VERSION);
