/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small, strict JSON (RFC 8259) parser for copybench records.
 *
 * One document per call, parsed whole into a tree. Strict: no comments,
 * no trailing commas, no leading zeros, no NaN, no control characters in
 * strings, valid UTF-8 only, no duplicate keys in an object, nesting at
 * most CB_JSON_DEPTH deep, nothing but white space after the value.
 * Errors say what was expected and at which column (1-based byte offset).
 * The writer of every JSON output is lib/cb_json_writer.h (readers links
 * it too, so it lives in the library both build from).
 */
#ifndef CB_JSON_H
#define CB_JSON_H

#include <stddef.h>

#define CB_JSON_DEPTH	32

enum cb_json_type {
	CB_JSON_NULL,
	CB_JSON_BOOL,
	CB_JSON_NUMBER,
	CB_JSON_STRING,
	CB_JSON_ARRAY,
	CB_JSON_OBJECT,
};

struct cb_json_member;

/*
 * struct cb_json - one value. Numbers keep their double value and, when
 * the text is a non-negative integer that fits (no fraction, no exponent),
 * is_uint and the exact value in u; negative integers likewise in is_int
 * and i.
 */
struct cb_json {
	enum cb_json_type type;
	int boolean;
	double num;
	int is_uint, is_int;
	unsigned long long u;
	long long i;
	char *str;			/* CB_JSON_STRING, NUL-terminated UTF-8 */
	struct cb_json *items;		/* CB_JSON_ARRAY */
	struct cb_json_member *members;	/* CB_JSON_OBJECT, in document order */
	size_t n;			/* items or members */
};

struct cb_json_member {
	char *key;
	struct cb_json value;
};

/*
 * cb_json_parse - parse text[0..len) (which need not be NUL-terminated)
 * into *out. 0 on success; -1 with a message in err (e.g. "column 12:
 * expected ',' or '}' after an object member") otherwise, *out then empty.
 */
int cb_json_parse(const char *text, size_t len, struct cb_json *out, char *err, size_t errlen);

/*
 * cb_json_parse_object - a line that must be one JSON object (what names
 * it for the message: "a point", "an order") into *out: 0, or -1 with why
 * "not JSON: ..." or "expected WHAT object, got TYPE", *out then empty.
 */
int cb_json_parse_object(const char *text, size_t len, const char *what, struct cb_json *out,
			 char *why, size_t whylen);

/* Frees what cb_json_parse() allocated in v (not v itself). */
void cb_json_free(struct cb_json *v);

/* The member called key of an object, or NULL (also when v is no object). */
const struct cb_json *cb_json_get(const struct cb_json *v, const char *key);

/* "null", "boolean", "number", "string", "array" or "object". */
const char *cb_json_type_name(enum cb_json_type t);

#endif /* CB_JSON_H */
