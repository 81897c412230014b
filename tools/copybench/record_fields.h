/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_fields.h - the one list of the fields of a copybench record
 * (record.h, Documentation/records.rst). No include guard: X-macro lists in
 * the manner of copybench.h, each expanded where its macro is defined.
 *
 * CB_HEADER_FIELD(name,			type,	required): the header, in the order written.
 * CB_POINT_FIELD(name,			type,	required): a point, in the order written.
 * CB_POINT_FIGURE(field,		member): the measured figures among them.
 *   type	STR, U64, I64, DBL, BOOL, STRLIST or STRMAP (record.h)
 *   required	CB_REQ: every record of this version has it; CB_OPT: only
 *		some (and every field added later to version 1)
 */
#ifdef CB_HEADER_FIELD
CB_HEADER_FIELD(copybench_record,	U64,	CB_REQ)
CB_HEADER_FIELD(subcommand,		STR,	CB_REQ)
CB_HEADER_FIELD(backend,		STR,	CB_REQ)
CB_HEADER_FIELD(kernel,			STR,	CB_REQ)
CB_HEADER_FIELD(kernel_version,		STR,	CB_REQ)
CB_HEADER_FIELD(kernel_cmdline,		STR,	CB_REQ)
CB_HEADER_FIELD(cpu_model,		STR,	CB_REQ)
CB_HEADER_FIELD(cpu_family,		U64,	CB_REQ)
CB_HEADER_FIELD(cpu_model_id,		U64,	CB_REQ)
CB_HEADER_FIELD(cpu_stepping,		U64,	CB_REQ)
CB_HEADER_FIELD(microcode,		STR,	CB_REQ)
CB_HEADER_FIELD(cpu_flags,		STRLIST, CB_REQ)
CB_HEADER_FIELD(mitigations,		STRMAP,	CB_REQ)
CB_HEADER_FIELD(nr_cpus,		U64,	CB_REQ)
CB_HEADER_FIELD(tsc_khz,		U64,	CB_REQ)
CB_HEADER_FIELD(hostname,		STR,	CB_REQ)
CB_HEADER_FIELD(date,			STR,	CB_REQ)
CB_HEADER_FIELD(tool_version,		STR,	CB_REQ)
CB_HEADER_FIELD(command,		STR,	CB_REQ)
CB_HEADER_FIELD(cpu,			I64,	CB_REQ)
CB_HEADER_FIELD(samples,		U64,	CB_REQ)
CB_HEADER_FIELD(loops,			U64,	CB_REQ)
CB_HEADER_FIELD(max_run_ms,		U64,	CB_REQ)
CB_HEADER_FIELD(repeat,			U64,	CB_REQ)
CB_HEADER_FIELD(seed,			U64,	CB_OPT)
CB_HEADER_FIELD(estimator,		STR,	CB_REQ)
CB_HEADER_FIELD(clock,			STR,	CB_REQ)
CB_HEADER_FIELD(buffers,		STR,	CB_REQ)
CB_HEADER_FIELD(as_native,		STR,	CB_OPT)
CB_HEADER_FIELD(perturb_controls,	DBL,	CB_OPT)
CB_HEADER_FIELD(placement,		STR,	CB_OPT)
CB_HEADER_FIELD(slow_native,		DBL,	CB_OPT)
CB_HEADER_FIELD(design,			STR,	CB_OPT)
CB_HEADER_FIELD(rounds,			U64,	CB_OPT)
CB_HEADER_FIELD(burst,			U64,	CB_OPT)
CB_HEADER_FIELD(process_ms,		U64,	CB_OPT)
CB_HEADER_FIELD(slow_spell,		DBL,	CB_OPT)
CB_HEADER_FIELD(call_sites,		U64,	CB_OPT)
CB_HEADER_FIELD(random_offsets,		U64,	CB_OPT)
#endif

#ifdef CB_POINT_FIELD
CB_POINT_FIELD(direction,		STR,	CB_REQ)
CB_POINT_FIELD(variant,			STR,	CB_REQ)
CB_POINT_FIELD(size,			U64,	CB_REQ)
CB_POINT_FIELD(size_max,		U64,	CB_OPT)
CB_POINT_FIELD(size_mean,		DBL,	CB_OPT)
CB_POINT_FIELD(src_offset,		U64,	CB_REQ)
CB_POINT_FIELD(dst_offset,		U64,	CB_REQ)
CB_POINT_FIELD(cache,			STR,	CB_REQ)
CB_POINT_FIELD(repeat,			U64,	CB_REQ)
CB_POINT_FIELD(run_cpu,			I64,	CB_REQ)
CB_POINT_FIELD(loops,			U64,	CB_REQ)
CB_POINT_FIELD(samples,			U64,	CB_REQ)
CB_POINT_FIELD(samples_discarded,	U64,	CB_REQ)
CB_POINT_FIELD(truncated,		BOOL,	CB_REQ)
CB_POINT_FIELD(cycles_min,		DBL,	CB_REQ)
CB_POINT_FIELD(cycles_median,		DBL,	CB_REQ)
CB_POINT_FIELD(cycles_mean,		DBL,	CB_REQ)
CB_POINT_FIELD(cycles_stddev,		DBL,	CB_REQ)
CB_POINT_FIELD(cycles_max,		DBL,	CB_REQ)
CB_POINT_FIELD(cycles_q02,		DBL,	CB_OPT)
CB_POINT_FIELD(baseline_cycles,		DBL,	CB_REQ)
CB_POINT_FIELD(ns_median,		DBL,	CB_REQ)
CB_POINT_FIELD(bytes_per_cycle,		DBL,	CB_REQ)
CB_POINT_FIELD(clock_ratio,		DBL,	CB_OPT)
CB_POINT_FIELD(verified,		BOOL,	CB_REQ)
CB_POINT_FIELD(pid,			U64,	CB_OPT)
CB_POINT_FIELD(src_place,		U64,	CB_OPT)
CB_POINT_FIELD(dst_place,		U64,	CB_OPT)
CB_POINT_FIELD(stack_place,		U64,	CB_OPT)
CB_POINT_FIELD(bursts,			U64,	CB_OPT)
CB_POINT_FIELD(span_ms,			DBL,	CB_OPT)
CB_POINT_FIELD(sites,			U64,	CB_OPT)
CB_POINT_FIELD(control,			STR,	CB_OPT)
CB_POINT_FIELD(control_min,	DBL,	CB_OPT)
CB_POINT_FIELD(control_median,	DBL,	CB_OPT)
CB_POINT_FIELD(control_ratio,		DBL,	CB_OPT)
CB_POINT_FIELD(pair_ratio,		DBL,	CB_OPT)
CB_POINT_FIELD(slow_delivered,		DBL,	CB_OPT)
CB_POINT_FIELD(call_min,		DBL,	CB_OPT)
CB_POINT_FIELD(call_median,		DBL,	CB_OPT)
CB_POINT_FIELD(latency_min,		DBL,	CB_OPT)
CB_POINT_FIELD(latency_q02,		DBL,	CB_OPT)
CB_POINT_FIELD(latency_median,		DBL,	CB_OPT)
CB_POINT_FIELD(latency_chain,		DBL,	CB_OPT)
CB_POINT_FIELD(latency_slowed,	DBL,	CB_OPT)
CB_POINT_FIELD(latency_paired,	DBL,	CB_OPT)
#endif

/*
 * CB_POINT_FIGURE(field, member): the figures a point line carries when
 * they were measured, each an optional DBL field above and the member of
 * struct cb_result (backend.h) it holds; a member that is NAN was not
 * measured, and the line lacks the field.
 */
#ifdef CB_POINT_FIGURE
CB_POINT_FIGURE(call_min,		call_min)
CB_POINT_FIGURE(call_median,		call_median)
CB_POINT_FIGURE(latency_min,		lat_min)
CB_POINT_FIGURE(latency_q02,		lat_q02)
CB_POINT_FIGURE(latency_median,		lat_median)
CB_POINT_FIGURE(latency_chain,		lat_chain)
CB_POINT_FIGURE(latency_slowed,	lat_slow_delivered)
CB_POINT_FIGURE(latency_paired,	lat_control_ratio)
#endif
