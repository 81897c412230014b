/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copybench.h - what copybench.ko and its userspace share: the debugfs
 * layout, the limits of every knob, the names of the results keys and the
 * content of the data file. Included by the module and by userspace
 * (selftests, tools), the way mm/gup_test.h is; it needs <linux/types.h>
 * and nothing else.
 *
 * Documentation/copybench.rst describes each file and key in full.
 */
#ifndef COPYBENCH_H
#define COPYBENCH_H

#include <linux/types.h>

/* Where the module's files live. */
#define CB_DEBUGFS_DIR		"/sys/kernel/debug/copybench"

/*
 * Knob limits and defaults (unit in the name or the comment). Every knob is
 * one decimal value or one name per file; see CB_KNOBS below.
 */
#define CB_SIZE_MAX		(64UL << 20)	/* bytes per copy */
#define CB_SIZE_DEFAULT		4096UL
#define CB_OFFSET_MAX		4095U		/* bytes from a page boundary */
#define CB_LOOPS_MAX		1000000U	/* copies per timed sample */
#define CB_LOOPS_DEFAULT	0U		/* 0: automatic */
#define CB_LOOPS_AUTO_NS	10000U		/* automatic loops aim at this */
#define CB_SAMPLES_MIN		1U
#define CB_SAMPLES_MAX		100000U
#define CB_SAMPLES_DEFAULT	101U
#define CB_MAX_RUN_MS_MIN	1U		/* bound of one run, warm-up included */
#define CB_MAX_RUN_MS_MAX	600000U
#define CB_MAX_RUN_MS_DEFAULT	10000U
#define CB_SAMPLE_MS_MAX	1000U		/* one sample, preemption off */
#define CB_DATA_SIZE_MIN	(4UL << 10)
#define CB_DATA_SIZE_MAX	(1UL << 30)
#define CB_DATA_SIZE_DEFAULT	(1UL << 20)
#define CB_DATA_CHUNK_MAX	CB_DATA_SIZE_MAX	/* bytes per copy call */
#define CB_DATA_CHUNK_DEFAULT	4096UL		/* 0: one call per read() */

/*
 * CPU features a variant may need to run at all ("needs" in
 * copy_variants_list.h). Speed hints (ERMS, FSRM) are not needs: every
 * x86-64 CPU executes rep movsb.
 */
#define CB_NEED_SSE2		(1U << 0)	/* movnti */

/* The variant every knob starts on: the running kernel's own copy. */
#define CB_NATIVE_NAME		"native"

/*
 * The files of CB_DEBUGFS_DIR: X(name, mode). Knobs are read-write; the
 * others are the interface's verbs and outputs.
 */
#define CB_FILES(X)				\
	X(variants,	0400)			\
	X(variant,	0600)			\
	X(direction,	0600)			\
	X(size,		0600)			\
	X(src_offset,	0600)			\
	X(dst_offset,	0600)			\
	X(cache,	0600)			\
	X(loops,	0600)			\
	X(samples,	0600)			\
	X(cpu,		0600)			\
	X(baseline,	0600)			\
	X(max_run_ms,	0600)			\
	X(run,		0200)			\
	X(results,	0400)			\
	X(data_size,	0600)			\
	X(data_chunk,	0600)			\
	X(data,		0600)

/* The values of the "direction" knob, in the order of their enum. */
#define CB_DIRECTIONS(X)	X(memcpy) X(to_user) X(from_user)
#define CB_DIRECTION_DEFAULT	"to_user"

/* The values of the "cache" knob. */
#define CB_CACHES(X)		X(hot) X(cold)
#define CB_CACHE_DEFAULT	"hot"

/*
 * The keys of the "results" file, in the order printed, one "key value"
 * line each: X(key, unit). A "." in a value is a fixed-point decimal point;
 * every other value is a decimal integer or a name.
 */
#define CB_RESULT_KEYS(X)			\
	X(variant,		"name")		\
	X(direction,		"name")		\
	X(size,			"bytes")	\
	X(src_offset,		"bytes")	\
	X(dst_offset,		"bytes")	\
	X(cache,		"name")		\
	X(cpu,			"cpu")		\
	X(baseline,		"bool")		\
	X(max_run_ms,		"ms")		\
	X(run_cpu,		"cpu")		\
	X(loops,		"copies")	\
	X(samples,		"samples")	\
	X(truncated,		"bool")		\
	X(cycles_min,		"cycles")	\
	X(cycles_median,	"cycles")	\
	X(cycles_mean,		"cycles")	\
	X(cycles_stddev,	"cycles")	\
	X(cycles_max,		"cycles")	\
	X(baseline_cycles,	"cycles")	\
	X(ns_median,		"ns")		\
	X(bytes_per_cycle,	"bytes/cycle")	\
	X(mb_per_s,		"MB/s")		\
	X(tsc_khz,		"kHz")		\
	X(run_ms,		"ms")		\
	X(verified,		"bool")

/*
 * Content of the data file until it is written: byte at file position p.
 * Any reader can verify every byte it got without a reference copy.
 */
static inline __u8 cb_data_byte(__u64 pos)
{
	return (__u8)(((__u32)pos * 0x9E3779B1u) >> 24);
}

#endif /* COPYBENCH_H */
