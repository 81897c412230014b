/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copybench.h - what copybench.ko and its userspace share: the debugfs
 * layout, the limits of every knob, the names of the results keys and the
 * content of the data file. Included by the module and by userspace
 * (selftests, tools), the way mm/gup_test.h is; it needs <linux/types.h>
 * and nothing else.
 *
 * The lists at the end (files, knobs, directions, cache modes, results
 * keys) are X-macro lists in the manner of copy_variants_list.h: outside
 * the include guard, each expands where its macro is defined (one list
 * macro at a time, except CB_FILE with CB_KNOB, below):
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
 * Knob limits and defaults (unit in the name or the comment), used by the
 * CB_KNOB list below and by userspace tools that check values before they
 * write them.
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
#define CB_SAMPLE_MS_MAX	1000U		/* one sample; one copy, preemption off */
#define CB_WINDOW_US_MAX	1000U		/* a hot sample's copies, preemption off */
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

/*
 * The buffer file: a process maps it (MAP_SHARED) to give runs of the user
 * directions their user side; one mapping holds at most this many bytes,
 * the largest size plus the largest offset, in whole pages.
 */
#define CB_BUFFER_MAX		(CB_SIZE_MAX + CB_OFFSET_MAX + 1)

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
 * The data pattern, defined here once: the content of the data file until
 * it is written, byte at file position p the top byte of the 32-bit
 * product p * CB_DATA_MULT. Any reader can verify every byte it got
 * without a reference copy. The product advances by CB_DATA_MULT from one
 * byte to the next, so a loop over bytes adds it instead of multiplying
 * (cb_pattern_fill(), readers). Scripts get the pattern from "copybench
 * pattern", never by writing the formula again.
 */
#define CB_DATA_MULT		0x9E3779B1u

static inline __u8 cb_data_byte(__u64 pos)
{
	return (__u8)(((__u32)pos * CB_DATA_MULT) >> 24);
}

#endif /* COPYBENCH_H */

/*
 * CB_FILE(name, mode): the files of CB_DEBUGFS_DIR, which the module creates
 * from this list. The knobs are files too: where only CB_FILE is defined,
 * each CB_KNOB entry below expands as CB_FILE(name, 0600), in its place.
 * "buffer" is the user side of a run, mapped by the process (mmap, no
 * read or write); "data" is the read path; the others are verbs and
 * outputs.
 */
#ifdef CB_FILE
CB_FILE(variants,	0400)
#ifndef CB_KNOB
#define CB_KNOB(name, type, min, max, dflt)	CB_FILE(name, 0600)
#define CB_KNOB_AS_FILE
#endif
#endif

/*
 * CB_KNOB(name, type, min, max, default): the knobs, one value per file,
 * read back as written (Documentation/copybench.rst gives each one's
 * meaning). type says how a value is written:
 *   u64, u32	a plain decimal number in [min, max] (digits only)
 *   bool	0 or 1 (min 0, max 1)
 *   cpu	-1 or an online CPU (min and max unused, 0)
 *   variant	a name of the "variants" file (min and max unused)
 *   direction, cache	a name of the CB_DIRECTION or CB_CACHE list
 * default is the value a new load starts with: a number for the numeric
 * types, a string for the named ones.
 */
#ifdef CB_KNOB
CB_KNOB(variant,	variant,	0, 0,			CB_NATIVE_NAME)
CB_KNOB(direction,	direction,	0, 0,			CB_DIRECTION_DEFAULT)
CB_KNOB(size,		u64,	0, CB_SIZE_MAX,			CB_SIZE_DEFAULT)
CB_KNOB(src_offset,	u32,	0, CB_OFFSET_MAX,		0)
CB_KNOB(dst_offset,	u32,	0, CB_OFFSET_MAX,		0)
CB_KNOB(cache,		cache,	0, 0,				CB_CACHE_DEFAULT)
CB_KNOB(loops,		u32,	0, CB_LOOPS_MAX,		CB_LOOPS_DEFAULT)
CB_KNOB(samples,	u32,	CB_SAMPLES_MIN, CB_SAMPLES_MAX,	CB_SAMPLES_DEFAULT)
CB_KNOB(cpu,		cpu,	0, 0,				-1)
CB_KNOB(baseline,	bool,	0, 1,				1)
CB_KNOB(chain,		bool,	0, 1,				0)
CB_KNOB(max_run_ms,	u32,	CB_MAX_RUN_MS_MIN, CB_MAX_RUN_MS_MAX, CB_MAX_RUN_MS_DEFAULT)
CB_KNOB(data_size,	u64,	CB_DATA_SIZE_MIN, CB_DATA_SIZE_MAX, CB_DATA_SIZE_DEFAULT)
CB_KNOB(data_chunk,	u64,	0, CB_DATA_CHUNK_MAX,		CB_DATA_CHUNK_DEFAULT)
#endif

#ifdef CB_KNOB_AS_FILE
#undef CB_KNOB
#undef CB_KNOB_AS_FILE
#endif

#ifdef CB_FILE
CB_FILE(run,		0200)
CB_FILE(results,	0400)
CB_FILE(last_error,	0400)
CB_FILE(tsc_khz,	0400)
CB_FILE(buffer,		0600)
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
CB_RESULT_KEY(chain,		"bool")
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
