// SPDX-License-Identifier: GPL-2.0
/*
 * headers.c - are two records comparable? Their headers compared member
 * by member (headers.h): what differs, and what makes them incomparable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headers.h"

/* tsc_khz may differ this much (a fraction) between records of one machine. */
#define CB_TSC_TOLERANCE	0.001

/*
 * Header members that make two records incomparable when they differ, or
 * one record has and the other lacks: the machine, the backend, and how
 * the user backend's loop calls the copies (call_sites: records without
 * it measure another path; Documentation/compare.rst, "The cases behind
 * the rules"), and what a random-size copy draws (random_offsets: records
 * without it drew sizes alone, and timed no latency).
 */
static const char *const cb_blocking_fields[] = {
	"cpu_model", "cpu_family", "cpu_model_id", "cpu_stepping", "microcode", "backend",
	"call_sites", "random_offsets",
};

/* Differ by nature between any two records: not listed. */
static const char *const cb_ignored_fields[] = { "date" };

static int cb_in(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* A header value as text: strings bare, lists space-separated. */
static void cb_json_text(const struct cb_json *v, struct cb_str *b)
{
	size_t i;

	switch (v->type) {
	case CB_JSON_NULL:
		cb_str_add(b, "null");
		break;
	case CB_JSON_BOOL:
		cb_str_add(b, v->boolean ? "true" : "false");
		break;
	case CB_JSON_NUMBER:
		if (v->is_uint)
			cb_str_printf(b, "%llu", v->u);
		else if (v->is_int)
			cb_str_printf(b, "%lld", v->i);
		else
			cb_str_printf(b, "%.17g", v->num);
		break;
	case CB_JSON_STRING:
		cb_str_add_clean(b, v->str);
		break;
	case CB_JSON_ARRAY:
		cb_str_add(b, "[");
		for (i = 0; i < v->n; i++) {
			cb_str_add(b, i ? " " : "");
			cb_json_text(&v->items[i], b);
		}
		cb_str_add(b, "]");
		break;
	case CB_JSON_OBJECT:
		cb_str_add(b, "{");
		for (i = 0; i < v->n; i++) {
			cb_str_add(b, i ? ", " : "");
			cb_str_add_clean(b, v->members[i].key);
			cb_str_add(b, ": ");
			cb_json_text(&v->members[i].value, b);
		}
		cb_str_add(b, "}");
		break;
	}
}

static int cb_json_same(const struct cb_json *a, const struct cb_json *b)
{
	struct cb_str x = { 0 }, y = { 0 };
	int same;

	if (a->type != b->type)
		return 0;
	cb_json_text(a, &x);
	cb_json_text(b, &y);
	same = !strcmp(x.s, y.s);
	cb_str_free(&x);
	cb_str_free(&y);
	return same;
}

static int cb_tsc_differs(const struct cb_json *a, const struct cb_json *b)
{
	if (a->type != CB_JSON_NUMBER || b->type != CB_JSON_NUMBER || !(a->num > 0))
		return 1;
	return fabs(b->num / a->num - 1) > CB_TSC_TOLERANCE;
}

/* The differences found so far, where cb_headers_diff() was told. */
struct cb_hdiffs {
	struct cb_cmp_diff **diffs;
	size_t *n;
	int blocking;
};

static void cb_diff_add(struct cb_hdiffs *c, const char *field, const struct cb_json *a,
			const struct cb_json *b, int blocking)
{
	struct cb_cmp_diff *d;
	struct cb_str t = { 0 };

	*c->diffs = cb_realloc(*c->diffs, *c->n + 1, sizeof(**c->diffs));
	d = &(*c->diffs)[(*c->n)++];
	d->field = cb_strdup(field);
	cb_str_add(&t, a ? "" : "(absent)");
	if (a)
		cb_json_text(a, &t);
	d->base = t.s;
	t = (struct cb_str){ 0 };
	cb_str_add(&t, b ? "" : "(absent)");
	if (b)
		cb_json_text(b, &t);
	d->new = t.s;
	d->blocking = blocking;
	c->blocking |= blocking;
}

/*
 * Every member of object a that b lacks or holds otherwise, then b's
 * members a lacks; objects (mitigations) member by member, as prefix.key.
 */
static void cb_diff_objects(struct cb_hdiffs *c, const char *prefix, const struct cb_json *a,
			    const struct cb_json *b)
{
	const struct cb_json *va, *vb;
	struct cb_str f = { 0 };
	size_t i;
	int blocking;

	for (i = 0; i < a->n; i++) {
		f.len = 0;
		cb_str_printf(&f, "%s%s", prefix, *prefix ? "." : "");
		cb_str_add_clean(&f, a->members[i].key);
		if (!*prefix && cb_in(cb_ignored_fields, ARRAY_SIZE(cb_ignored_fields), f.s))
			continue;
		va = &a->members[i].value;
		vb = cb_json_get(b, a->members[i].key);
		if (vb && va->type == CB_JSON_OBJECT && vb->type == CB_JSON_OBJECT) {
			cb_diff_objects(c, f.s, va, vb);
			continue;
		}
		if (!*prefix && !strcmp(f.s, "tsc_khz") && vb) {
			if (!cb_json_same(va, vb))
				cb_diff_add(c, f.s, va, vb, cb_tsc_differs(va, vb));
			continue;
		}
		blocking = !*prefix && cb_in(cb_blocking_fields, ARRAY_SIZE(cb_blocking_fields),
					     f.s);
		if (!vb || !cb_json_same(va, vb))
			cb_diff_add(c, f.s, va, vb, blocking);
	}
	for (i = 0; i < b->n; i++) {
		if (cb_json_get(a, b->members[i].key))
			continue;
		f.len = 0;
		cb_str_printf(&f, "%s%s", prefix, *prefix ? "." : "");
		cb_str_add_clean(&f, b->members[i].key);
		cb_diff_add(c, f.s, NULL, &b->members[i].value,
			    !*prefix && cb_in(cb_blocking_fields, ARRAY_SIZE(cb_blocking_fields), f.s));
	}
	cb_str_free(&f);
}

int cb_headers_diff(const struct cb_json *a, const struct cb_json *b,
		    struct cb_cmp_diff **diffs, size_t *n)
{
	struct cb_hdiffs c = { .diffs = diffs, .n = n };

	cb_diff_objects(&c, "", a, b);
	return c.blocking;
}

int cb_headers_refuse(const char *base, const char *new, const struct cb_cmp_diff *d,
		      size_t n, struct cb_error *e)
{
	struct cb_str m = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i].blocking)
			cb_str_printf(&m, "%s%s '%s' against '%s'", m.len ? "; " : "",
				      d[i].field, d[i].base, d[i].new);
	cb_fail(e, CB_EXIT_USAGE,
		"%s and %s were not recorded on the same machine with the same backend and timing loop (%s): comparing them would measure the machines or the tools, not the kernels (--force compares them anyway)",
		base, new, m.s);
	cb_str_free(&m);
	return -1;
}

void cb_headers_free(struct cb_cmp_diff *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(d[i].field);
		free(d[i].base);
		free(d[i].new);
	}
	free(d);
}
