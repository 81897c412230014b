/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copybench.h - what copybench.ko and its userspace share: the debugfs
 * layout, the limits of every knob, the names of the results keys and the
 * content of the data file. Included by the module and by userspace
 * (selftests, tools), the way mm/gup_test.h is.
 *
 * Documentation/copybench.rst describes each file and key in full.
 */
#ifndef COPYBENCH_H
#define COPYBENCH_H

#include <linux/types.h>

/* Where the module's knobs live. */
#define CB_DEBUGFS_DIR		"/sys/kernel/debug/copybench"

/* Knob limits and defaults (unit in the name or the comment). */
#define CB_SIZE_MAX		(64UL << 20)	/* bytes per copy */
#define CB_SIZE_DEFAULT		4096UL
#define CB_OFFSET_MAX		4095U		/* bytes from a page boundary */
#define CB_SAMPLES_MIN		1U
#define CB_SAMPLES_MAX		100000U
#define CB_SAMPLES_DEFAULT	101U
#define CB_DATA_SIZE_MIN	(4UL << 10)
#define CB_DATA_SIZE_MAX	(1UL << 30)
#define CB_DATA_SIZE_DEFAULT	(1UL << 20)

/*
 * CPU features a variant may need to run at all ("needs" in
 * copy_variants_list.h). Speed hints (ERMS, FSRM) are not needs: every
 * x86-64 CPU executes rep movsb.
 */
#define CB_NEED_SSE2		(1U << 0)	/* movnti */

/* The variant every knob starts on: the running kernel's own copy. */
#define CB_NATIVE_NAME		"native"

/*
 * Content of the data file until it is written: byte at file position p.
 * Any reader can verify every byte it got without a reference copy.
 */
static inline __u8 cb_data_byte(__u64 pos)
{
	return (__u8)(((__u32)pos * 0x9E3779B1u) >> 24);
}

#endif /* COPYBENCH_H */
