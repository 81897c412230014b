/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - copybench records: JSON lines, a header object first, then one
 * object per measured point and repeat. Documentation/records.rst describes
 * every field; this file is the one list of them, and the writer, the
 * reader and the tests expand it.
 *
 * Compatibility: CB_RECORD_VERSION is the header's "copybench_record". A
 * reader refuses a record of a higher version, reads any lower or equal
 * one, and ignores members it does not know, so fields can be added to a
 * version without breaking older readers. A field added later must be
 * CB_OPT (records written before it lack it); the reader then marks it
 * absent (CB_HEADER_HAS()/CB_POINT_HAS()).
 *
 * Field types: STR string; U64 a non-negative integer; I64 an integer;
 * DBL a number; BOOL true or false; STRLIST an array of strings; STRMAP an
 * object whose values are strings.
 */
#ifndef CB_RECORD_H
#define CB_RECORD_H

#include <stddef.h>

#include "json.h"
#include "util.h"

#define CB_RECORD_VERSION	1

#define CB_REQ	1	/* every record of this version has it */
#define CB_OPT	0	/* present only in some records */

/* F(name, type, required): the header, in the order written. */
#define CB_RECORD_HEADER_FIELDS(F)		\
	F(copybench_record,	U64,	CB_REQ)	\
	F(subcommand,		STR,	CB_REQ)	\
	F(backend,		STR,	CB_REQ)	\
	F(kernel,		STR,	CB_REQ)	\
	F(kernel_version,	STR,	CB_REQ)	\
	F(kernel_cmdline,	STR,	CB_REQ)	\
	F(cpu_model,		STR,	CB_REQ)	\
	F(cpu_family,		U64,	CB_REQ)	\
	F(cpu_model_id,		U64,	CB_REQ)	\
	F(cpu_stepping,		U64,	CB_REQ)	\
	F(microcode,		STR,	CB_REQ)	\
	F(cpu_flags,		STRLIST, CB_REQ) \
	F(mitigations,		STRMAP,	CB_REQ)	\
	F(nr_cpus,		U64,	CB_REQ)	\
	F(tsc_khz,		U64,	CB_REQ)	\
	F(hostname,		STR,	CB_REQ)	\
	F(date,			STR,	CB_REQ)	\
	F(tool_version,		STR,	CB_REQ)	\
	F(command,		STR,	CB_REQ)	\
	F(cpu,			I64,	CB_REQ)	\
	F(samples,		U64,	CB_REQ)	\
	F(loops,		U64,	CB_REQ)	\
	F(max_run_ms,		U64,	CB_REQ)	\
	F(repeat,		U64,	CB_REQ)	\
	F(seed,			U64,	CB_OPT)	\
	F(estimator,		STR,	CB_REQ)	\
	F(clock,		STR,	CB_REQ)	\
	F(buffers,		STR,	CB_REQ)

/* F(name, type, required): a point, in the order written. */
#define CB_RECORD_POINT_FIELDS(F)		\
	F(direction,		STR,	CB_REQ)	\
	F(variant,		STR,	CB_REQ)	\
	F(size,			U64,	CB_REQ)	\
	F(size_max,		U64,	CB_OPT)	\
	F(size_mean,		DBL,	CB_OPT)	\
	F(src_offset,		U64,	CB_REQ)	\
	F(dst_offset,		U64,	CB_REQ)	\
	F(cache,		STR,	CB_REQ)	\
	F(repeat,		U64,	CB_REQ)	\
	F(run_cpu,		I64,	CB_REQ)	\
	F(loops,		U64,	CB_REQ)	\
	F(samples,		U64,	CB_REQ)	\
	F(samples_discarded,	U64,	CB_REQ)	\
	F(truncated,		BOOL,	CB_REQ)	\
	F(cycles_min,		DBL,	CB_REQ)	\
	F(cycles_median,	DBL,	CB_REQ)	\
	F(cycles_mean,		DBL,	CB_REQ)	\
	F(cycles_stddev,	DBL,	CB_REQ)	\
	F(cycles_max,		DBL,	CB_REQ)	\
	F(baseline_cycles,	DBL,	CB_REQ)	\
	F(ns_median,		DBL,	CB_REQ)	\
	F(bytes_per_cycle,	DBL,	CB_REQ)	\
	F(clock_ratio,		DBL,	CB_OPT)	\
	F(verified,		BOOL,	CB_REQ)

struct cb_strlist {
	char **v;
	size_t n;
};

struct cb_strmap {
	char **keys, **vals;
	size_t n;
};

#define CB_RT_STR	char *
#define CB_RT_U64	unsigned long long
#define CB_RT_I64	long long
#define CB_RT_DBL	double
#define CB_RT_BOOL	int
#define CB_RT_STRLIST	struct cb_strlist
#define CB_RT_STRMAP	struct cb_strmap

#define CB_FIELD_MEMBER(name, type, req)	CB_RT_##type name;
#define CB_FIELD_ENUM_H(name, type, req)	CB_HF_##name,
#define CB_FIELD_ENUM_P(name, type, req)	CB_PF_##name,

enum { CB_RECORD_HEADER_FIELDS(CB_FIELD_ENUM_H) CB_HF_COUNT };
enum { CB_RECORD_POINT_FIELDS(CB_FIELD_ENUM_P) CB_PF_COUNT };

/*
 * struct cb_record_header - the header line. Strings are owned (freed by
 * cb_record_header_free()); present has bit CB_HF_<name> set for each
 * field the line had (the writer writes CB_OPT fields only when set).
 */
struct cb_record_header {
	CB_RECORD_HEADER_FIELDS(CB_FIELD_MEMBER)
	unsigned long long present;
};

/* struct cb_record_point - one point line; line is its line number. */
struct cb_record_point {
	CB_RECORD_POINT_FIELDS(CB_FIELD_MEMBER)
	unsigned long long present;
	unsigned long line;
};

#define CB_HEADER_HAS(h, name)	((int)(((h)->present >> CB_HF_##name) & 1))
#define CB_POINT_HAS(p, name)	((int)(((p)->present >> CB_PF_##name) & 1))
#define CB_HEADER_SET(h, name)	((h)->present |= 1ULL << CB_HF_##name)
#define CB_POINT_SET(p, name)	((p)->present |= 1ULL << CB_PF_##name)

/* struct cb_record - a record read from a file by cb_record_read(). */
struct cb_record {
	char *path;
	struct cb_record_header header;
	struct cb_json header_json;	/* the header line whole, unknown members too */
	struct cb_record_point *points;
	size_t npoints;
};

/*
 * The writer: appends one JSON line (with its '\n') to b. Required fields
 * are always written, optional ones when their present bit is set. Numbers
 * (DBL) get 4 decimals; a value that is not finite is written as null,
 * which the reader refuses (it should never happen).
 */
void cb_record_header_json(struct cb_str *b, const struct cb_record_header *h);
void cb_record_point_json(struct cb_str *b, const struct cb_record_point *p);

/*
 * cb_record_read - read and check a whole record file. 0 on success, else
 * -1 with e set: status CB_EXIT_USAGE and a message naming the file and,
 * for a bad line, the line ("rec.json:3: field 'size': expected a
 * non-negative integer, got a string"); CB_EXIT_RUNTIME only when reading
 * failed with an I/O error. Refused: a file that is not there or empty, a
 * first line that is not a copybench header, a newer version, a line that
 * is not one JSON object, a missing required field, a field of the wrong
 * type, a last line without its newline (a record cut short), a record
 * without points.
 */
int cb_record_read(const char *path, struct cb_record *r, struct cb_error *e);
void cb_record_free(struct cb_record *r);

void cb_record_header_free(struct cb_record_header *h);
void cb_record_point_free(struct cb_record_point *p);

/* The field names, in list order (for documentation checks and messages). */
extern const char *const cb_record_header_names[CB_HF_COUNT];
extern const char *const cb_record_point_names[CB_PF_COUNT];

#endif /* CB_RECORD_H */
