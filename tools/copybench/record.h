/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - copybench records: JSON lines, a header object first, then one
 * object per measured point and repeat. Documentation/records.rst describes
 * every field; record_fields.h is the one list of them, which the structs
 * here, the writer, the reader and the tests expand.
 *
 * Compatibility: CB_RECORD_VERSION is the header's "copybench_record". A
 * reader refuses a record of a higher version, reads any lower or equal
 * one, and ignores members it does not know, so fields can be added to a
 * version without breaking older readers. A field added later must be
 * CB_OPT (records written before it lack it); the reader then marks it
 * absent (CB_HEADER_HAS()/CB_POINT_HAS()).
 *
 * Field types (record_fields.h): STR string; U64 a non-negative integer; I64 an integer;
 * DBL a number (written with 4 decimals); XDBL a number written exactly
 * (17 digits: a setting passed on, not a measurement); BOOL true or false;
 * STRLIST an array of strings; STRMAP an object whose values are strings.
 */
#ifndef CB_RECORD_H
#define CB_RECORD_H

#include <stddef.h>

#include "json.h"
#include "util.h"

#define CB_RECORD_VERSION	1

#define CB_REQ	1	/* every record of this version has it */
#define CB_OPT	0	/* present only in some records */



struct cb_strlist {
	char **v;
	size_t n;
};

struct cb_strmap {
	char **keys, **vals;
	size_t n;
};

/* A member of field type t called n. */
#define CB_RT_STR(n)		char *n
#define CB_RT_XDBL(n)		double n
#define CB_RT_U64(n)		unsigned long long n
#define CB_RT_I64(n)		long long n
#define CB_RT_DBL(n)		double n
#define CB_RT_BOOL(n)		int n
#define CB_RT_STRLIST(n)	struct cb_strlist n
#define CB_RT_STRMAP(n)		struct cb_strmap n

enum {
#define CB_HEADER_FIELD(name, type, req)	CB_HF_##name,
#include "record_fields.h"
#undef CB_HEADER_FIELD
	CB_HF_COUNT
};

enum {
#define CB_POINT_FIELD(name, type, req)	CB_PF_##name,
#include "record_fields.h"
#undef CB_POINT_FIELD
	CB_PF_COUNT
};

/* A point's key, what it is rather than what it measured: its fields before run_cpu. */
#define CB_PF_KEY_END	CB_PF_run_cpu

/*
 * The field engine the record's lines are written and read with, for any
 * table of fields (struct cb_field, expanded from an X-macro list like
 * record_fields.h): a struct's members by offset, and a bit of present
 * for each optional one there.
 */
enum cb_ftype { CB_FT_STR, CB_FT_U64, CB_FT_I64, CB_FT_DBL, CB_FT_XDBL, CB_FT_BOOL,
		CB_FT_STRLIST, CB_FT_STRMAP };

struct cb_field {
	const char *name;
	enum cb_ftype type;
	int required;
	size_t offset;
};

#define CB_STR(x)	#x
/* The struct cb_field of member n, of type t (CB_REQ or CB_OPT: r), of struct s. */
#define CB_FIELD(s, n, t, r)	{ CB_STR(n), CB_FT_##t, r, offsetof(s, n) }

/* One JSON line of fields[0..n) of base (optional ones when present), '\n' ended, onto b. */
void cb_fields_json(struct cb_str *b, const struct cb_field *fields, size_t n,
		    const void *base, unsigned long long present);
/*
 * The fields of the object obj into base, their bits into *present;
 * unknown members ignored. 0, or -1 with why naming the field missing or
 * of the wrong type.
 */
int cb_fields_read(const struct cb_field *fields, size_t n, const struct cb_json *obj,
		   void *base, unsigned long long *present, char *why, size_t whylen);
/* Frees the strings, lists and maps of base's fields. */
void cb_fields_free(const struct cb_field *fields, size_t n, void *base);

/*
 * struct cb_record_header - the header line. Strings are owned (freed by
 * cb_record_header_free()); present has bit CB_HF_<name> set for each
 * field the line had (the writer writes CB_OPT fields only when set).
 */
struct cb_record_header {
#define CB_HEADER_FIELD(name, type, req)	CB_RT_##type(name);
#include "record_fields.h"
#undef CB_HEADER_FIELD
	unsigned long long present;
};

/* struct cb_record_point - one point line; line is its line number. */
struct cb_record_point {
#define CB_POINT_FIELD(name, type, req)	CB_RT_##type(name);
#include "record_fields.h"
#undef CB_POINT_FIELD
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

/*
 * cb_record_point_parse - one point line (len bytes, without its newline)
 * into p, checked as cb_record_read() checks it: 0, or -1 with why set
 * ("field 'size': expected a non-negative integer, got a string") and p
 * empty. p->line is left 0. Free p with cb_record_point_free().
 */
int cb_record_point_parse(const char *line, size_t len, struct cb_record_point *p, char *why,
			  size_t whylen);

/*
 * A point's key alone (direction, variant, size, size_max, offsets, cache,
 * repeat: the fields before CB_PF_KEY_END), as a planned point is told to
 * a worker: written and read as a record's point line, the others absent.
 */
void cb_record_key_json(struct cb_str *b, const struct cb_record_point *p);
int cb_record_key_parse(const char *line, size_t len, struct cb_record_point *p, char *why,
			size_t whylen);

void cb_record_header_free(struct cb_record_header *h);
void cb_record_point_free(struct cb_record_point *p);

struct cb_backend;
struct cb_point;
struct cb_result;

/*
 * cb_record_point_build - the record line of point p measured with result
 * r by backend b (its variant names, tsc_khz); the derived fields (ns,
 * bytes per cycle) computed here. Free rp with cb_record_point_free().
 * cb_record_point_result() goes the other way: the result a line holds.
 */
void cb_record_point_build(struct cb_record_point *rp, const struct cb_backend *b,
			   const struct cb_point *p, const struct cb_result *r);
void cb_record_point_result(const struct cb_record_point *rp, struct cb_result *r);

/* The field names, in list order (for documentation checks and messages). */
extern const char *const cb_record_header_names[CB_HF_COUNT];
extern const char *const cb_record_point_names[CB_PF_COUNT];

#endif /* CB_RECORD_H */
