// SPDX-License-Identifier: GPL-2.0
/*
 * copybench.c - copybench.ko's entry: module init and exit, and the file
 * table, the debugfs directory made from the CB_FILE and CB_KNOB lists of
 * copybench.h. The parts it registers do not call back into it.
 * Documentation/copybench.rst describes every file.
 */
#define pr_fmt(fmt) "copybench: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "cb_internal.h"

/* The read-only files: a seq_file each, whose show() is its part's. */
DEFINE_SHOW_ATTRIBUTE(cb_variants);
DEFINE_SHOW_ATTRIBUTE(cb_results);
DEFINE_SHOW_ATTRIBUTE(cb_last_error);
DEFINE_SHOW_ATTRIBUTE(cb_tsc_khz);

/*
 * The files, in list order: a knob is served by cb_knob_fops, except
 * data_size, whose write builds the data path's content; every other file
 * by the fops of its name, cb_<name>_fops.
 */
#define CB_KNOB_FOPS(kname)							\
	(CB_K_##kname == CB_K_data_size ? &cb_data_size_fops : &cb_knob_fops)

static const struct cb_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	int knob;		/* enum cb_knob_id, or -1 */
} cb_file_table[CB_F_COUNT] = {
#define CB_FILE(fname, fmode)							\
	{ .name = #fname, .mode = fmode, .fops = &cb_##fname##_fops, .knob = -1 },
#define CB_KNOB(kname, type, min, max, dflt)					\
	{ .name = #kname, .mode = 0600, .fops = CB_KNOB_FOPS(kname), .knob = CB_K_##kname },
#include "copybench.h"
#undef CB_KNOB
#undef CB_FILE
};

static struct dentry *cb_dir;

/*
 * debugfs' full proxy, which guards every call against the file's removal,
 * forwards llseek, read, write, poll, unlocked_ioctl and release only (on
 * 6.1 and 6.12): a file that needs mmap (buffer) or read_iter/write_iter
 * (data) is created without it. That is safe because the files are
 * removed only at module exit, and every open file (a mapping holds one)
 * pins the module through fops->owner.
 */
static bool cb_needs_unproxied(const struct file_operations *fops)
{
	return fops->mmap || fops->read_iter || fops->write_iter;
}

/*
 * Idempotent: serves module_exit and every init error path. The files go
 * first: nothing can be open by then (each open holds a module reference
 * through .owner, so rmmod fails with EBUSY while one is open or mapped).
 */
static void cb_cleanup(void)
{
	debugfs_remove_recursive(cb_dir);
	cb_dir = NULL;
	cb_data_exit();
	cb_run_exit();
	cb_knobs_exit();
}

static void cb_create_files(void)
{
	const struct cb_file *f;
	struct dentry *d;
	void *data;

	for (f = cb_file_table; f < cb_file_table + CB_F_COUNT; f++) {
		data = f->knob >= 0 ? cb_knob_file_data(f->knob) : NULL;
		if (cb_needs_unproxied(f->fops))
			d = debugfs_create_file_unsafe(f->name, f->mode, cb_dir, data, f->fops);
		else
			d = debugfs_create_file(f->name, f->mode, cb_dir, data, f->fops);
		if (f == &cb_file_table[CB_F_data] && !IS_ERR_OR_NULL(d))
			cb_data_created(d);
	}
}

static int __init cb_init(void)
{
	int ret;

	if (!debugfs_initialized()) {
		pr_err("debugfs is not available (debugfs=off?); copybench has no other interface\n");
		return -ENODEV;
	}

	ret = cb_knobs_init() ?: cb_data_init();
	if (ret)
		goto cleanup;

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
MODULE_DESCRIPTION("Time the kernel's copy routines against fixed copy variants, and serve a read path that copies with one of them");
MODULE_AUTHOR("copybench maintainers <maintainers@users.noreply.a-seed-fdc11411.example>");
MODULE_VERSION(COPYBENCH_VERSION);
