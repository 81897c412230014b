/* SPDX-License-Identifier: GPL-2.0 */
/*
 * order_fields.h - the one list of the fields of a worker's order
 * (process.h): what sweep and alias tell each process they start, on its
 * stdin, before the points it measures. Expanded by process.h (struct
 * cb_order) and process.c (its field table).
 *
 * CB_ORDER_FIELD(name,		type,	required), in the order written.
 */
#ifdef CB_ORDER_FIELD
CB_ORDER_FIELD(copybench_order,		U64,	CB_REQ)	/* CB_ORDER_VERSION */
CB_ORDER_FIELD(subcommand,		STR,	CB_REQ)	/* sweep or alias: its messages */
CB_ORDER_FIELD(backend,			STR,	CB_REQ)	/* user or module, resolved */
CB_ORDER_FIELD(process,			U64,	CB_REQ)	/* which repeat it measures */
CB_ORDER_FIELD(src_shift,		U64,	CB_REQ)	/* its placement (place.h) */
CB_ORDER_FIELD(dst_shift,		U64,	CB_REQ)
CB_ORDER_FIELD(stack,			I64,	CB_REQ)
CB_ORDER_FIELD(cpu,			I64,	CB_REQ)
CB_ORDER_FIELD(tsc_khz,			U64,	CB_REQ)	/* the command's, for the header */
CB_ORDER_FIELD(samples,			U64,	CB_REQ)	/* struct cb_settings, as planned */
CB_ORDER_FIELD(loops,			U64,	CB_REQ)
CB_ORDER_FIELD(max_run_ms,		U64,	CB_REQ)
CB_ORDER_FIELD(max_bytes,		U64,	CB_REQ)
CB_ORDER_FIELD(rounds,			U64,	CB_REQ)
CB_ORDER_FIELD(burst,			U64,	CB_REQ)
CB_ORDER_FIELD(process_ms,		U64,	CB_REQ)
CB_ORDER_FIELD(cold,			BOOL,	CB_REQ)
CB_ORDER_FIELD(random,			BOOL,	CB_REQ)
CB_ORDER_FIELD(slow_native,		XDBL,	CB_REQ)	/* test-only, 0 off */
CB_ORDER_FIELD(slow_spell,		XDBL,	CB_REQ)	/* test-only, 0 off */
CB_ORDER_FIELD(perturb_controls,	XDBL,	CB_REQ)	/* test-only, 0 off */
CB_ORDER_FIELD(as_native,		STR,	CB_OPT)	/* test-only: timed for native */
CB_ORDER_FIELD(seed,			U64,	CB_REQ)	/* the interleaving's and sizes' */
CB_ORDER_FIELD(points,			U64,	CB_REQ)	/* the key lines that follow */
#endif
