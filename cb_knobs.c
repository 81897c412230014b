// SPDX-License-Identifier: GPL-2.0
/*
 * cb_knobs.c - the knobs and last_error. The knobs are copybench.h's
 * CB_KNOB list: each is parsed by its type when written (plain decimal or
 * a name of a list, nothing else), refused with the reason in last_error,
 * and frozen while a run goes on. last_error keeps the last refusal; its
 * pids are printed when it is read, as the reader's pid namespace numbers
 * them. Documentation/copybench.rst describes every knob.
 */
#define pr_fmt(fmt) "copybench: " fmt

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>

#include "cb_internal.h"

/* A written value is at most 63 bytes; escaped, each may take 4. */
#define CB_VALUE_ESCAPED	(63 * 4 + 1)
/* last_error's sentence, which leaves room for the pids added when it is read. */
#define CB_ERROR_TEXT_MAX	(CB_LAST_ERROR_MAX - 96)

/*
 * How each type of the CB_KNOB list is written and shown: parse() takes the
 * stripped text and the knob's limits and sets *v only when the text is
 * valid (else it records the refusal and returns the errno); show() prints
 * *v and a newline.
 */
struct cb_knob_type {
	int (*parse)(const char *file, const char *s, u64 min, u64 max, void *v);
	int (*show)(char *buf, size_t len, const void *v);
	size_t size;
};

/* One knob: its type, limits, default, and its field of struct cb_knobs. */
struct cb_knob {
	const char *name;
	const struct cb_knob_type *type;
	u64 min, max;
	long long dflt;		/* numeric types */
	const char *dflt_name;	/* named types */
	size_t off;
};

/*
 * The knobs, under cb_knob_lock. cb_frozen_by is the writer of the run in
 * progress (NULL: none): knob writes are refused with -EBUSY while it is
 * set. data_size is stored here by the data path (cb_knob_set()), which
 * no run reads, and is never frozen.
 */
static DEFINE_MUTEX(cb_knob_lock);
static struct pid *cb_frozen_by;
static struct cb_knobs cb_knobs;

/*
 * last_error: the last refusal's "FILE: ERRNO: SENTENCE", the writer it
 * refused and, for an EBUSY, the writer of the run in progress.
 */
static DEFINE_SPINLOCK(cb_error_lock);
static char cb_error_text[CB_ERROR_TEXT_MAX];
static struct pid *cb_error_pid, *cb_error_run;

static void cb_error_set(const char *file, int err, struct pid *run, const char *fmt,
			 va_list *args)
{
	struct va_format vaf = { .fmt = fmt, .va = args };
	struct pid *who = get_task_pid(current, PIDTYPE_PID), *old_who, *old_run;
	char text[CB_ERROR_TEXT_MAX];
	char name[24];

	/* "-EINVAL" without its sign; "-22" without CONFIG_SYMBOLIC_ERRNAME. */
	snprintf(name, sizeof(name), "%pe", ERR_PTR(err));
	scnprintf(text, sizeof(text), "%s: %s: %pV", file, name + 1, &vaf);
	run = get_pid(run);

	spin_lock(&cb_error_lock);
	memcpy(cb_error_text, text, sizeof(text));
	old_who = cb_error_pid;
	old_run = cb_error_run;
	cb_error_pid = who;
	cb_error_run = run;
	spin_unlock(&cb_error_lock);
	put_pid(old_who);
	put_pid(old_run);
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
	cb_error_set(file, err, NULL, fmt, &args);
	va_end(args);
	return err;
}

/* The value, quoted, in ASCII: quotes, backslashes and non-printable bytes escaped. */
static void cb_escape(char *esc, size_t len, const char *value)
{
	int n = string_escape_mem(value, strlen(value), esc, len - 1,
				  ESCAPE_SPECIAL | ESCAPE_HEX | ESCAPE_NAP | ESCAPE_APPEND,
				  "\"\\");

	esc[min_t(int, n, len - 1)] = '\0';
}

static __printf(4, 5) void cb_error_setf(const char *file, int err, struct pid *run,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	cb_error_set(file, err, run, fmt, &args);
	va_end(args);
}

/* A refusal for a run in progress: last_error names the run's writer too. */
static __printf(5, 6) int cb_refuse_run(const char *file, int err, struct pid *run,
					const char *value, const char *fmt, ...)
{
	char esc[CB_VALUE_ESCAPED];
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (*value) {
		cb_escape(esc, sizeof(esc), value);
		cb_error_setf(file, err, run, "\"%s\" %pV", esc, &vaf);
	} else {
		cb_error_setf(file, err, run, "%pV", &vaf);
	}
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

	cb_escape(esc, sizeof(esc), value);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	cb_refuse(file, err, "\"%s\" %pV", esc, &vaf);
	va_end(args);
	return err;
}

/* "pid N", or where the pid namespace of the reader has no number for it, say so. */
static int cb_pid_print(char *buf, size_t len, const char *what, struct pid *pid,
			struct pid_namespace *ns)
{
	pid_t nr = pid_nr_ns(pid, ns);

	if (nr)
		return scnprintf(buf, len, "%s %d", what, nr);
	return scnprintf(buf, len, "%s outside this pid namespace", what);
}

/**
 * cb_last_error_show - last_error: "FILE: ERRNO: SENTENCE (pid P)", with
 * "; the run: pid R" before the ")" for an EBUSY; empty before the first
 * refusal
 * @m: the seq_file of the reader, whose pid namespace numbers the pids
 * @unused: nothing
 *
 * Return: 0.
 */
int cb_last_error_show(struct seq_file *m, void *unused)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	char line[CB_LAST_ERROR_MAX];
	size_t n = 0;

	spin_lock(&cb_error_lock);
	if (cb_error_text[0]) {
		n = scnprintf(line, sizeof(line), "%s (", cb_error_text);
		n += cb_pid_print(line + n, sizeof(line) - n, "pid", cb_error_pid, ns);
		if (cb_error_run)
			n += cb_pid_print(line + n, sizeof(line) - n, "; the run: pid",
					  cb_error_run, ns);
		n += scnprintf(line + n, sizeof(line) - n, ")\n");
	}
	spin_unlock(&cb_error_lock);
	seq_write(m, line, n);
	return 0;
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
 * than any valid value or one that holds a NUL byte (whatever follows it
 * would go unread: "5\0junk" is not 5), recorded in last_error; -EFAULT.
 */
char *cb_user_string(const char *file, const char __user *ubuf, size_t count, char *buf,
		     size_t len)
{
	const char *nul;

	if (count >= len)
		return ERR_PTR(cb_refuse(file, -EINVAL,
					 "a write of %zu bytes is longer than any value (at most %zu)",
					 count, len - 1));
	if (copy_from_user(buf, ubuf, count))
		return ERR_PTR(-EFAULT);
	nul = memchr(buf, '\0', count);
	if (nul)
		return ERR_PTR(cb_refuse(file, -EINVAL,
					 "a write of %zu bytes holds a NUL byte at byte %zu (accepted: a value as text, without NUL)",
					 count, (size_t)(nul - buf)));
	buf[count] = '\0';
	return strstrip(buf);
}

/**
 * cb_open_no_pos_lock - open a file whose write may last (run, data_size)
 * without the file position lock: a regular file's open gives it
 * FMODE_ATOMIC_POS, and a write through an open file that two threads or
 * processes share (a dup, a fork, any thread) would then wait, in D, for
 * the one before it to return, and start a second run the writer did not
 * ask for; without it, the second write finds the run in progress and
 * gets EBUSY at once. Neither file keeps anything at its position.
 * @inode: the file's inode
 * @file: the open file
 *
 * Return: 0.
 */
int cb_open_no_pos_lock(struct inode *inode, struct file *file)
{
	file->f_mode &= ~FMODE_ATOMIC_POS;
	return 0;
}

/* A plain decimal number in [min, max]: digits only ("010" is ten; no sign, no "0x"). */
static int cb_parse_decimal(const char *file, const char *s, u64 min, u64 max, u64 *val)
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

static int cb_kt_u64_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	return cb_parse_decimal(file, s, min, max, v);
}

static int cb_kt_u64_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%llu\n", *(const u64 *)v);
}

static int cb_kt_u32_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	u64 n;
	int ret = cb_parse_decimal(file, s, min, max, &n);

	if (!ret)
		*(u32 *)v = n;
	return ret;
}

static int cb_kt_u32_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%u\n", *(const u32 *)v);
}

static int cb_kt_bool_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	u64 n;
	int ret = cb_parse_decimal(file, s, min, max, &n);

	if (!ret)
		*(bool *)v = n;
	return ret;
}

static int cb_kt_bool_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%d\n", *(const bool *)v);
}

/* -1 (the writer's CPU) or an online CPU. */
static int cb_kt_cpu_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	u64 cpu;
	int ret;

	if (!strcmp(s, "-1")) {
		*(int *)v = -1;
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
	*(int *)v = cpu;
	return 0;
}

static int cb_kt_cpu_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%d\n", *(const int *)v);
}

static int cb_kt_variant_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	const struct cb_kvariant *var = cb_kvariant_find(s);
	char names[256];

	if (!var) {
		cb_kvariant_names(names, sizeof(names), false);
		return cb_refuse_value(file, -EINVAL, s, "is not a variant (accepted: %s)", names);
	}
	if (!cb_kvariant_usable(var)) {
		cb_kvariant_names(names, sizeof(names), true);
		return cb_refuse_value(file, -EOPNOTSUPP, s,
				       "cannot run on this CPU, which lacks %s (usable: %s)",
				       cb_kvariant_lacks(var), names);
	}
	*(const struct cb_kvariant **)v = var;
	return 0;
}

static int cb_kt_variant_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%s\n", (*(const struct cb_kvariant * const *)v)->name);
}

/* A name of names[0..n), kept as its index (an enum of the same list). */
static int cb_parse_name(const char *file, const char *s, const char *what,
			 const char * const *names, int n, int *index)
{
	char list[128];
	size_t at = 0;
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*index = i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; i < n; i++)
		at += scnprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "", names[i]);
	return cb_refuse_value(file, -EINVAL, s, "is not a %s (accepted: %s)", what, list);
}

static int cb_kt_direction_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	int i, ret = cb_parse_name(file, s, "direction", cb_direction_names, CB_DIR_COUNT, &i);

	if (!ret)
		*(enum cb_direction *)v = i;
	return ret;
}

static int cb_kt_direction_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%s\n", cb_direction_names[*(const enum cb_direction *)v]);
}

static int cb_kt_cache_parse(const char *file, const char *s, u64 min, u64 max, void *v)
{
	int i, ret = cb_parse_name(file, s, "cache mode", cb_cache_names, CB_CACHE_COUNT, &i);

	if (!ret)
		*(enum cb_cache *)v = i;
	return ret;
}

static int cb_kt_cache_show(char *buf, size_t len, const void *v)
{
	return scnprintf(buf, len, "%s\n", cb_cache_names[*(const enum cb_cache *)v]);
}

#define CB_KNOB_TYPE(t)								\
static const struct cb_knob_type cb_kt_##t = {					\
	.parse = cb_kt_##t##_parse,						\
	.show = cb_kt_##t##_show,						\
	.size = sizeof(CB_KNOB_T_##t),						\
}

CB_KNOB_TYPE(u64);
CB_KNOB_TYPE(u32);
CB_KNOB_TYPE(bool);
CB_KNOB_TYPE(cpu);
CB_KNOB_TYPE(variant);
CB_KNOB_TYPE(direction);
CB_KNOB_TYPE(cache);

/* The default of a numeric type is a number, of a named type a name. */
#define CB_KNOB_DEFAULT_u64(d)		.dflt = (d)
#define CB_KNOB_DEFAULT_u32(d)		.dflt = (d)
#define CB_KNOB_DEFAULT_bool(d)		.dflt = (d)
#define CB_KNOB_DEFAULT_cpu(d)		.dflt = (d)
#define CB_KNOB_DEFAULT_variant(d)	.dflt_name = (d)
#define CB_KNOB_DEFAULT_direction(d)	.dflt_name = (d)
#define CB_KNOB_DEFAULT_cache(d)	.dflt_name = (d)

static const struct cb_knob cb_knob_table[CB_K_COUNT] = {
#define CB_KNOB(kname, ktype, kmin, kmax, kdflt)				\
	[CB_K_##kname] = {							\
		.name = #kname,							\
		.type = &cb_kt_##ktype,						\
		.min = kmin,							\
		.max = kmax,							\
		.off = offsetof(struct cb_knobs, kname),			\
		CB_KNOB_DEFAULT_##ktype(kdflt),					\
	},
#include "copybench.h"
#undef CB_KNOB
};

static void *cb_knob_field(const struct cb_knob *d, struct cb_knobs *k)
{
	return (char *)k + d->off;
}

/**
 * cb_knobs_init - every knob to its default, through its own parser (so a
 * default outside its limits is caught at load)
 *
 * Return: 0, or -EINVAL when a default of copybench.h is not a valid value.
 */
int cb_knobs_init(void)
{
	const struct cb_knob *d;
	char num[24];
	const char *s;
	int ret;

	for (d = cb_knob_table; d < cb_knob_table + CB_K_COUNT; d++) {
		s = d->dflt_name;
		if (!s) {
			snprintf(num, sizeof(num), "%lld", d->dflt);
			s = num;
		}
		ret = d->type->parse(d->name, s, d->min, d->max, cb_knob_field(d, &cb_knobs));
		if (ret) {
			pr_err("the default \"%s\" of knob %s (copybench.h) is refused\n", s,
			       d->name);
			return ret;
		}
	}
	return 0;
}

/**
 * cb_knobs_exit - drop last_error's pids; at module exit
 */
void cb_knobs_exit(void)
{
	put_pid(cb_error_pid);
	put_pid(cb_error_run);
	cb_error_pid = NULL;
	cb_error_run = NULL;
}

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
	int ret = 0;

	mutex_lock(&cb_knob_lock);
	if (cb_frozen_by) {
		ret = cb_refuse_run("run", -EBUSY, cb_frozen_by, "",
				    "a run is already in progress (one at a time)");
	} else {
		cb_frozen_by = get_task_pid(current, PIDTYPE_PID);
		*k = cb_knobs;
	}
	mutex_unlock(&cb_knob_lock);
	return ret;
}

/**
 * cb_knobs_thaw - end what cb_knobs_freeze() began: knob writes work again
 */
void cb_knobs_thaw(void)
{
	struct pid *by;

	mutex_lock(&cb_knob_lock);
	by = cb_frozen_by;
	cb_frozen_by = NULL;
	mutex_unlock(&cb_knob_lock);
	put_pid(by);
}

/**
 * cb_knob_parse - parse a value of knob @id into @k, by the knob's type and
 * limits; on a refusal @k is unchanged and last_error says why
 * @id: the knob
 * @s: the stripped value
 * @k: the knobs to change
 *
 * Return: 0 or the errno of the refusal.
 */
int cb_knob_parse(enum cb_knob_id id, const char *s, struct cb_knobs *k)
{
	const struct cb_knob *d = &cb_knob_table[id];

	return d->type->parse(d->name, s, d->min, d->max, cb_knob_field(d, k));
}

/**
 * cb_knob_set - store knob @id's value from @k, run or not: for the data
 * path's data_size, which no run reads
 * @id: the knob
 * @k: where its value is
 */
void cb_knob_set(enum cb_knob_id id, const struct cb_knobs *k)
{
	const struct cb_knob *d = &cb_knob_table[id];

	mutex_lock(&cb_knob_lock);
	memcpy(cb_knob_field(d, &cb_knobs), cb_knob_field(d, (struct cb_knobs *)k),
	       d->type->size);
	mutex_unlock(&cb_knob_lock);
}

/**
 * cb_knob_show - knob @id of @k as its file shows it, newline included
 * @id: the knob
 * @buf: where to print it
 * @len: its size
 * @k: the knobs (a copy: the results print their run's this way)
 *
 * Return: the length printed.
 */
int cb_knob_show(enum cb_knob_id id, char *buf, size_t len, const struct cb_knobs *k)
{
	const struct cb_knob *d = &cb_knob_table[id];

	return d->type->show(buf, len, cb_knob_field(d, (struct cb_knobs *)k));
}

/**
 * cb_knob_file_data - the private data cb_knob_fops wants for knob @id
 * @id: the knob
 */
void *cb_knob_file_data(enum cb_knob_id id)
{
	return (void *)&cb_knob_table[id];
}

static ssize_t cb_knob_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct cb_knob *d = file->private_data;
	char buf[64];
	int len;

	mutex_lock(&cb_knob_lock);
	len = d->type->show(buf, sizeof(buf), cb_knob_field(d, &cb_knobs));
	mutex_unlock(&cb_knob_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A value replaces the knob's when its type accepts it and no run is in progress. */
static ssize_t cb_knob_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	const struct cb_knob *d = file->private_data;
	char buf[64];
	char *s;
	int ret;

	s = cb_user_string(d->name, ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);

	mutex_lock(&cb_knob_lock);
	if (cb_frozen_by)
		ret = cb_refuse_run(d->name, -EBUSY, cb_frozen_by, s,
				    "not taken: a run is in progress and the knobs keep their values until it ends");
	else
		ret = d->type->parse(d->name, s, d->min, d->max, cb_knob_field(d, &cb_knobs));
	mutex_unlock(&cb_knob_lock);
	return ret ?: count;
}

const struct file_operations cb_knob_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cb_knob_read,
	.write	= cb_knob_write,
	.llseek	= default_llseek,
};
