/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copybench.h - what copybench.ko and its userspace share: the debugfs
 * layout, the limits of every knob, the names of the results keys and the
 * content of the data file. Included by the module and by userspace
 * (selftests, tools), the way mm/gup_test.h is; it needs <linux/types.h>
 * and nothing else.
 *
 * The lists at the end (files, directions, cache modes, results keys) are
 * X-macro lists in the manner of copy_variants_list.h: outside the include
 * guard, each expands where its macro is defined:
 *
 *	#define CB_RESULT_KEY(key, unit)	#key,
 *	#include "copybench.h"
 *	#undef CB_RESULT_KEY
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
/*
 * Bytes per copy call of the data file: at most one PMD-sized folio, the
 * largest a page cache read copies in one call on x86-64; every call is
 * followed by a rescheduling point.
 */
#define CB_DATA_CHUNK_MAX	(2UL << 20)
#define CB_DATA_CHUNK_DEFAULT	4096UL		/* 0: CB_DATA_CHUNK_MAX */

/* The last_error file: one line of at most this many bytes, newline included. */
#define CB_LAST_ERROR_MAX	512

/*
 * CPU features a variant may need to run at all ("needs" in
 * copy_variants_list.h). Speed hints (ERMS, FSRM) are not needs: every
 * x86-64 CPU executes rep movsb.
 */
#define CB_NEED_SSE2		(1U << 0)	/* movnti */

/* The variant every knob starts on: the running kernel's own copy. */
#define CB_NATIVE_NAME		"native"

#define CB_DIRECTION_DEFAULT	"to_user"
#define CB_CACHE_DEFAULT	"hot"

/*
 * Content of the data file until it is written: byte at file position p.
 * Any reader can verify every byte it got without a reference copy.
 */
static inline __u8 cb_data_byte(__u64 pos)
{
	return (__u8)(((__u32)pos * 0x9E3779B1u) >> 24);
}

#endif /* COPYBENCH_H */

/*
 * CB_FILE(name, mode): the files of CB_DEBUGFS_DIR, which the module creates
 * from this list. Read-write (0600) files are knobs, except "data", the read
 * path; the others are the interface's verbs and outputs.
 */
#ifdef CB_FILE
CB_FILE(variants,	0400)
CB_FILE(variant,	0600)
CB_FILE(direction,	0600)
CB_FILE(size,		0600)
CB_FILE(src_offset,	0600)
CB_FILE(dst_offset,	0600)
CB_FILE(cache,		0600)
CB_FILE(loops,		0600)
CB_FILE(samples,	0600)
CB_FILE(cpu,		0600)
CB_FILE(baseline,	0600)
CB_FILE(max_run_ms,	0600)
CB_FILE(run,		0200)
CB_FILE(results,	0400)
CB_FILE(last_error,	0400)
CB_FILE(tsc_khz,	0400)
CB_FILE(data_size,	0600)
CB_FILE(data_chunk,	0600)
CB_FILE(data,		0600)
#endif

/*
 * CB_DIRECTION(name): the values of the "direction" knob, in enum order.
 * to_iter and from_iter are the kernel's copy_to_iter()/copy_from_iter() over
 * a user-backed iov_iter: "native" only (the "variants" file lists the
 * directions of each variant).
 */
#ifdef CB_DIRECTION
CB_DIRECTION(memcpy)
CB_DIRECTION(to_user)
CB_DIRECTION(from_user)
CB_DIRECTION(to_iter)
CB_DIRECTION(from_iter)
#endif

/* CB_CACHE(name): the values of the "cache" knob, in enum order. */
#ifdef CB_CACHE
CB_CACHE(hot)
CB_CACHE(cold)
#endif

/*
 * CB_RESULT_KEY(key, unit): the lines of the "results" file, in the order
 * printed, one "key value" line each. Units: "name" a word, "bool" 0 or 1,
 * "cycles" and "ns" fixed point with two decimals, "bytes/cycle" with
 * three; every other value is a decimal integer ("cpu" may be -1).
 */
#ifdef CB_RESULT_KEY
CB_RESULT_KEY(variant,		"name")
CB_RESULT_KEY(direction,	"name")
CB_RESULT_KEY(size,		"bytes")
CB_RESULT_KEY(src_offset,	"bytes")
CB_RESULT_KEY(dst_offset,	"bytes")
CB_RESULT_KEY(cache,		"name")
CB_RESULT_KEY(cpu,		"cpu")
CB_RESULT_KEY(baseline,		"bool")
CB_RESULT_KEY(max_run_ms,	"ms")
CB_RESULT_KEY(run_cpu,		"cpu")
CB_RESULT_KEY(loops,		"copies")
CB_RESULT_KEY(samples,		"samples")
CB_RESULT_KEY(truncated,	"bool")
CB_RESULT_KEY(cycles_min,	"cycles")
CB_RESULT_KEY(cycles_median,	"cycles")
CB_RESULT_KEY(cycles_mean,	"cycles")
CB_RESULT_KEY(cycles_stddev,	"cycles")
CB_RESULT_KEY(cycles_max,	"cycles")
CB_RESULT_KEY(baseline_cycles,	"cycles")
CB_RESULT_KEY(ns_median,	"ns")
CB_RESULT_KEY(bytes_per_cycle,	"bytes/cycle")
CB_RESULT_KEY(mb_per_s,		"MB/s")
CB_RESULT_KEY(tsc_khz,		"kHz")
CB_RESULT_KEY(run_ms,		"ms")
CB_RESULT_KEY(verified,		"bool")
#endif
