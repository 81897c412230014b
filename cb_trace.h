/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_trace.h - copybench's tracepoints, system "copybench":
 *
 *   copybench:run		one per finished or failed run
 *   copybench:data_read	one per read() of the data file that copies
 *   copybench:data_write	one per write() of the data file that copies
 *
 * (or tries to: not an empty request, nor one at or past the end).
 *
 * The data events carry the TSC cycles the whole call took inside the
 * module (all its chunks), read only while the event is enabled, so a
 * disabled event costs a static branch. Layout follows samples/trace_events:
 * TRACE_SYSTEM outside the include guard, cb_trace.c defines the events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM copybench

#if !defined(CB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CB_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

/*
 * Names are fixed-size arrays rather than __string(): every name is short,
 * and __assign_str() changed its arguments in 6.10.
 */
#define CB_TRACE_NAME_LEN	16

/*
 * copybench:run - a run ended. ret is 0 or the negative errno the write to
 * "run" returned; the cycle fields are per copy, whole TSC cycles (the
 * results file has two decimals), net of the baseline when baseline=1.
 */
TRACE_EVENT(copybench_run,
	TP_PROTO(const char *variant, const char *direction, const char *cache,
		 u64 size, u32 src_offset, u32 dst_offset, u32 loops, u32 samples,
		 u64 cycles_min, u64 cycles_median, u64 baseline_cycles, int ret),
	TP_ARGS(variant, direction, cache, size, src_offset, dst_offset, loops, samples,
		cycles_min, cycles_median, baseline_cycles, ret),
	TP_STRUCT__entry(
		__array(char, variant, CB_TRACE_NAME_LEN)
		__array(char, direction, CB_TRACE_NAME_LEN)
		__array(char, cache, CB_TRACE_NAME_LEN)
		__field(u64, size)
		__field(u32, src_offset)
		__field(u32, dst_offset)
		__field(u32, loops)
		__field(u32, samples)
		__field(u64, cycles_min)
		__field(u64, cycles_median)
		__field(u64, baseline_cycles)
		__field(int, ret)
	),
	TP_fast_assign(
		strscpy(__entry->variant, variant, CB_TRACE_NAME_LEN);
		strscpy(__entry->direction, direction, CB_TRACE_NAME_LEN);
		strscpy(__entry->cache, cache, CB_TRACE_NAME_LEN);
		__entry->size = size;
		__entry->src_offset = src_offset;
		__entry->dst_offset = dst_offset;
		__entry->loops = loops;
		__entry->samples = samples;
		__entry->cycles_min = cycles_min;
		__entry->cycles_median = cycles_median;
		__entry->baseline_cycles = baseline_cycles;
		__entry->ret = ret;
	),
	TP_printk("variant=%s direction=%s cache=%s size=%llu src_offset=%u dst_offset=%u loops=%u samples=%u cycles_min=%llu cycles_median=%llu baseline_cycles=%llu ret=%d",
		  __entry->variant, __entry->direction, __entry->cache,
		  __entry->size, __entry->src_offset, __entry->dst_offset,
		  __entry->loops, __entry->samples, __entry->cycles_min,
		  __entry->cycles_median, __entry->baseline_cycles, __entry->ret)
);

/*
 * copybench:data_read, copybench:data_write - one call of the data file:
 * pos and len (after clamping at the end) of the request, ret what the call
 * returns (bytes or a negative errno), chunk the bytes per copy call
 * (CB_DATA_CHUNK_MAX when data_chunk is 0), cycles the TSC cycles from the
 * first copy to the last.
 */
DECLARE_EVENT_CLASS(copybench_data,
	TP_PROTO(const char *variant, u64 pos, u64 len, s64 ret, u64 chunk, u64 cycles),
	TP_ARGS(variant, pos, len, ret, chunk, cycles),
	TP_STRUCT__entry(
		__array(char, variant, CB_TRACE_NAME_LEN)
		__field(u64, pos)
		__field(u64, len)
		__field(s64, ret)
		__field(u64, chunk)
		__field(u64, cycles)
	),
	TP_fast_assign(
		strscpy(__entry->variant, variant, CB_TRACE_NAME_LEN);
		__entry->pos = pos;
		__entry->len = len;
		__entry->ret = ret;
		__entry->chunk = chunk;
		__entry->cycles = cycles;
	),
	TP_printk("variant=%s pos=%llu len=%llu ret=%lld chunk=%llu cycles=%llu",
		  __entry->variant, __entry->pos, __entry->len, __entry->ret,
		  __entry->chunk, __entry->cycles)
);

DEFINE_EVENT(copybench_data, copybench_data_read,
	TP_PROTO(const char *variant, u64 pos, u64 len, s64 ret, u64 chunk, u64 cycles),
	TP_ARGS(variant, pos, len, ret, chunk, cycles)
);

DEFINE_EVENT(copybench_data, copybench_data_write,
	TP_PROTO(const char *variant, u64 pos, u64 len, s64 ret, u64 chunk, u64 cycles),
	TP_ARGS(variant, pos, len, ret, chunk, cycles)
);

#endif /* CB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE cb_trace
#include <trace/define_trace.h>
