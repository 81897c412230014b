// SPDX-License-Identifier: GPL-2.0
/*
 * copybench.c - copybench.ko entry: module init/exit and the debugfs
 * directory /sys/kernel/debug/copybench/ that is its whole interface.
 *
 * Documentation/copybench.rst describes every file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>

#include "cb_internal.h"

static struct dentry *cb_dir;

/* Idempotent: serves module_exit and every init error path. */
static void cb_cleanup(void)
{
	debugfs_remove_recursive(cb_dir);
	cb_dir = NULL;
}

static int __init cb_init(void)
{
	if (!debugfs_initialized()) {
		pr_err("debugfs is not available; copybench has no other interface\n");
		return -ENODEV;
	}

	cb_variants_init();

	cb_dir = debugfs_create_dir("copybench", NULL);
	if (IS_ERR(cb_dir)) {
		pr_err("cannot create debugfs directory copybench: %ld\n",
		       PTR_ERR(cb_dir));
		cb_dir = NULL;
		return -ENODEV;
	}
	return 0;
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
