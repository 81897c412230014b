// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - build, write and read copybench records (record.h): one
 * table of field descriptors per line kind, expanded from record_fields.h,
 * drives both directions; a measured point's line is built here.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lib/cb_json_writer.h"
#include "record.h"


static const struct cb_field cb_header_fields[] = {
#define CB_HEADER_FIELD(n, t, r) CB_FIELD(struct cb_record_header, n, t, r),
#include "record_fields.h"
#undef CB_HEADER_FIELD
};

static const struct cb_field cb_point_fields[] = {
#define CB_POINT_FIELD(n, t, r) CB_FIELD(struct cb_record_point, n, t, r),
#include "record_fields.h"
#undef CB_POINT_FIELD
};

const char *const cb_record_header_names[CB_HF_COUNT] = {
#define CB_HEADER_FIELD(n, t, r)	CB_STR(n),
#include "record_fields.h"
#undef CB_HEADER_FIELD
};

const char *const cb_record_point_names[CB_PF_COUNT] = {
#define CB_POINT_FIELD(n, t, r)	CB_STR(n),
#include "record_fields.h"
#undef CB_POINT_FIELD
};

/* A field's value; DBL with 4 decimals, XDBL with 17 digits, null when not finite. */
static void cb_field_json(struct cb_jw *w, const struct cb_field *f, const void *base)
{
	const char *p = (const char *)base + f->offset;
	const struct cb_strlist *l;
	const struct cb_strmap *m;
	size_t i;

	switch (f->type) {
	case CB_FT_STR:
		cb_jw_str(w, *(char *const *)p ? *(char *const *)p : "");
		break;
	case CB_FT_U64:
		cb_jw_u64(w, *(const unsigned long long *)p);
		break;
	case CB_FT_I64:
		cb_jw_s64(w, *(const long long *)p);
		break;
	case CB_FT_DBL:
		cb_jw_f(w, 4, *(const double *)p);
		break;
	case CB_FT_XDBL:
		cb_jw_g(w, 17, *(const double *)p);
		break;
	case CB_FT_BOOL:
		cb_jw_bool(w, *(const int *)p);
		break;
	case CB_FT_STRLIST:
		l = (const struct cb_strlist *)p;
		cb_jw_begin_array(w);
		for (i = 0; i < l->n; i++)
			cb_jw_str(w, l->v[i]);
		cb_jw_end_array(w);
		break;
	case CB_FT_STRMAP:
		m = (const struct cb_strmap *)p;
		cb_jw_begin_object(w);
		for (i = 0; i < m->n; i++)
			cb_jw_str_field(w, m->keys[i], m->vals[i]);
		cb_jw_end_object(w);
		break;
	}
}

void cb_fields_json(struct cb_str *b, const struct cb_field *fields, size_t n,
		    const void *base, unsigned long long present)
{
	struct cb_jw w;
	size_t i;

	cb_jw_init_put(&w, cb_str_put, b, CB_JW_LINES);
	cb_jw_begin_object(&w);
	for (i = 0; i < n; i++) {
		if (!fields[i].required && !((present >> i) & 1))
			continue;
		cb_jw_key(&w, fields[i].name);
		cb_field_json(&w, &fields[i], base);
	}
	cb_jw_end_object(&w);
	cb_jw_end(&w);		/* into a string, in a fixed shape: nothing to fail */
}

void cb_record_header_json(struct cb_str *b, const struct cb_record_header *h)
{
	cb_fields_json(b, cb_header_fields, ARRAY_SIZE(cb_header_fields), h, h->present);
}

void cb_record_point_json(struct cb_str *b, const struct cb_record_point *p)
{
	cb_fields_json(b, cb_point_fields, ARRAY_SIZE(cb_point_fields), p, p->present);
}

/* A JSON value's kind in words, for "expected X, got Y" messages. */
static const char *cb_got(const struct cb_json *v)
{
	if (v->type == CB_JSON_NUMBER)
		return v->is_uint ? "a non-negative integer" : v->is_int ? "a negative integer" :
		       "a number with a fraction or exponent";
	return cb_json_type_name(v->type);
}

/* Stores v into the field f of base; -1 with why set when v does not fit. */
/* An array of strings into l; -1 when v is anything else. */
static int cb_strlist_read(const struct cb_json *v, struct cb_strlist *l)
{
	size_t i;

	if (v->type != CB_JSON_ARRAY)
		return -1;
	for (i = 0; i < v->n; i++)
		if (v->items[i].type != CB_JSON_STRING)
			return -1;
	l->v = cb_calloc(v->n, sizeof(*l->v));
	for (l->n = 0; l->n < v->n; l->n++)
		l->v[l->n] = cb_strdup(v->items[l->n].str);
	return 0;
}

/* An object of strings into m; -1 when v is anything else. */
static int cb_strmap_read(const struct cb_json *v, struct cb_strmap *m)
{
	size_t i;

	if (v->type != CB_JSON_OBJECT)
		return -1;
	for (i = 0; i < v->n; i++)
		if (v->members[i].value.type != CB_JSON_STRING)
			return -1;
	m->keys = cb_calloc(v->n, sizeof(*m->keys));
	m->vals = cb_calloc(v->n, sizeof(*m->vals));
	for (m->n = 0; m->n < v->n; m->n++) {
		m->keys[m->n] = cb_strdup(v->members[m->n].key);
		m->vals[m->n] = cb_strdup(v->members[m->n].value.str);
	}
	return 0;
}

static int cb_field_read(const struct cb_field *f, const struct cb_json *v, void *base,
			 char *why, size_t whylen)
{
	char *p = (char *)base + f->offset;
	const char *want = NULL;

	switch (f->type) {
	case CB_FT_STR:
		if (v->type != CB_JSON_STRING) {
			want = "a string";
			break;
		}
		*(char **)p = cb_strdup(v->str);
		return 0;
	case CB_FT_U64:
		if (v->type != CB_JSON_NUMBER || !v->is_uint) {
			want = "a non-negative integer";
			break;
		}
		*(unsigned long long *)p = v->u;
		return 0;
	case CB_FT_I64:
		if (v->type != CB_JSON_NUMBER || !v->is_int) {
			want = "an integer";
			break;
		}
		*(long long *)p = v->i;
		return 0;
	case CB_FT_DBL:
	case CB_FT_XDBL:
		if (v->type != CB_JSON_NUMBER || !isfinite(v->num)) {
			want = "a number";
			break;
		}
		*(double *)p = v->num;
		return 0;
	case CB_FT_BOOL:
		if (v->type != CB_JSON_BOOL) {
			want = "true or false";
			break;
		}
		*(int *)p = v->boolean;
		return 0;
	case CB_FT_STRLIST:
		want = "an array of strings";
		if (!cb_strlist_read(v, (struct cb_strlist *)p))
			return 0;
		break;
	case CB_FT_STRMAP:
		want = "an object of strings";
		if (!cb_strmap_read(v, (struct cb_strmap *)p))
			return 0;
		break;
	}
	snprintf(why, whylen, "field '%s': expected %s, got %s", f->name, want,
		 v->type == CB_JSON_ARRAY || v->type == CB_JSON_OBJECT ?
		 "something else" : cb_got(v));
	return -1;
}

int cb_fields_read(const struct cb_field *fields, size_t n, const struct cb_json *obj,
		   void *base, unsigned long long *present, char *why, size_t whylen)
{
	const struct cb_json *v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = cb_json_get(obj, fields[i].name);
		if (!v) {
			if (!fields[i].required)
				continue;
			snprintf(why, whylen, "missing field '%s'", fields[i].name);
			return -1;
		}
		if (cb_field_read(&fields[i], v, base, why, whylen))
			return -1;
		*present |= 1ULL << i;
	}
	return 0;
}

void cb_fields_free(const struct cb_field *fields, size_t n, void *base)
{
	struct cb_strlist *l;
	struct cb_strmap *m;
	char *p;
	size_t i, j;

	for (i = 0; i < n; i++) {
		p = (char *)base + fields[i].offset;
		switch (fields[i].type) {
		case CB_FT_STR:
			free(*(char **)p);
			*(char **)p = NULL;
			break;
		case CB_FT_STRLIST:
			l = (struct cb_strlist *)p;
			for (j = 0; j < l->n; j++)
				free(l->v[j]);
			free(l->v);
			memset(l, 0, sizeof(*l));
			break;
		case CB_FT_STRMAP:
			m = (struct cb_strmap *)p;
			for (j = 0; j < m->n; j++) {
				free(m->keys[j]);
				free(m->vals[j]);
			}
			free(m->keys);
			free(m->vals);
			memset(m, 0, sizeof(*m));
			break;
		default:
			break;
		}
	}
}

void cb_record_header_free(struct cb_record_header *h)
{
	cb_fields_free(cb_header_fields, ARRAY_SIZE(cb_header_fields), h);
	h->present = 0;
}

void cb_record_point_free(struct cb_record_point *p)
{
	cb_fields_free(cb_point_fields, ARRAY_SIZE(cb_point_fields), p);
	p->present = 0;
}

/* Line 1: a copybench header of a version this reader knows. */
static int cb_record_header_read(struct cb_record *r, const char *line, size_t len,
				 struct cb_error *e)
{
	const struct cb_json *ver;
	char why[CB_ERR_MAX / 2];

	if (cb_json_parse(line, len, &r->header_json, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_USAGE, "%s:1: not a copybench record (not JSON: %s)",
			       r->path, why);
	ver = cb_json_get(&r->header_json, "copybench_record");
	if (r->header_json.type != CB_JSON_OBJECT || !ver)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: not a copybench record (the first line is no object with \"copybench_record\")",
			       r->path);
	if (ver->type != CB_JSON_NUMBER || !ver->is_uint || !ver->u)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: field 'copybench_record': expected a format version (1, 2, ...)",
			       r->path);
	if (ver->u > CB_RECORD_VERSION)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: record format version %llu is newer than this copybench reads (%d): use a newer copybench",
			       r->path, ver->u, CB_RECORD_VERSION);
	if (cb_fields_read(cb_header_fields, ARRAY_SIZE(cb_header_fields), &r->header_json,
			 &r->header, &r->header.present, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_USAGE, "%s:1: %s", r->path, why);
	return 0;
}

/* The point line's first n fields into p (n: all of them, or the key's). */
static int cb_point_parse(const char *line, size_t len, struct cb_record_point *p, size_t n,
			  char *why, size_t whylen)
{
	struct cb_json v;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (cb_json_parse_object(line, len, "a point", &v, why, whylen))
		return -1;
	if (cb_json_get(&v, "copybench_record"))
		snprintf(why, whylen, "a second record header (two records concatenated?)");
	else
		ret = cb_fields_read(cb_point_fields, n, &v, p, &p->present, why, whylen);
	cb_json_free(&v);
	if (ret)
		cb_record_point_free(p);
	return ret;
}

int cb_record_point_parse(const char *line, size_t len, struct cb_record_point *p, char *why,
			  size_t whylen)
{
	return cb_point_parse(line, len, p, ARRAY_SIZE(cb_point_fields), why, whylen);
}

void cb_record_key_json(struct cb_str *b, const struct cb_record_point *p)
{
	cb_fields_json(b, cb_point_fields, CB_PF_KEY_END, p, p->present);
}

int cb_record_key_parse(const char *line, size_t len, struct cb_record_point *p, char *why,
			size_t whylen)
{
	return cb_point_parse(line, len, p, CB_PF_KEY_END, why, whylen);
}

static int cb_record_point_read(struct cb_record *r, const char *line, size_t len,
				unsigned long lineno, struct cb_error *e)
{
	struct cb_record_point *p;
	char why[CB_ERR_MAX / 2];

	r->points = cb_realloc(r->points, r->npoints + 1, sizeof(*r->points));
	p = &r->points[r->npoints];
	if (cb_record_point_parse(line, len, p, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_USAGE, "%s:%lu: %s", r->path, lineno, why);
	p->line = lineno;
	r->npoints++;
	return 0;
}

int cb_record_read(const char *path, struct cb_record *r, struct cb_error *e)
{
	unsigned long lineno = 0;
	const char *line, *nl;
	size_t len;
	char *text;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->path = cb_strdup(path);
	text = cb_read_file(path, &len);
	if (!text) {
		cb_fail(e, errno == EIO ? CB_EXIT_RUNTIME : CB_EXIT_USAGE,
			"cannot read record '%s': %s", path, strerror(errno));
		cb_record_free(r);
		return -1;
	}
	if (!len) {
		ret = cb_fail(e, CB_EXIT_USAGE, "%s: empty file, not a copybench record", path);
		goto out;
	}
	for (line = text; line < text + len && !ret; line = nl + 1) {
		lineno++;
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (!nl) {
			ret = cb_fail(e, CB_EXIT_USAGE,
				      "%s:%lu: truncated record (the last line has no newline)",
				      path, lineno);
			break;
		}
		if (lineno == 1)
			ret = cb_record_header_read(r, line, (size_t)(nl - line), e);
		else
			ret = cb_record_point_read(r, line, (size_t)(nl - line), lineno, e);
	}
	if (!ret && !r->npoints)
		ret = cb_fail(e, CB_EXIT_USAGE, "%s:%lu: the record has a header but no points",
			      path, lineno);
out:
	free(text);
	if (ret)
		cb_record_free(r);
	return ret;
}

void cb_record_free(struct cb_record *r)
{
	size_t i;

	for (i = 0; i < r->npoints; i++)
		cb_record_point_free(&r->points[i]);
	free(r->points);
	cb_record_header_free(&r->header);
	cb_json_free(&r->header_json);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

/* ---- Built from a run -------------------------------------------------- */

/* The measured figures (CB_POINT_FIGURE): a line's field, the result's member. */
static const struct {
	size_t field, member;
	unsigned int bit;
} cb_point_figures[] = {
#define CB_POINT_FIGURE(f, m)	\
	{ offsetof(struct cb_record_point, f), offsetof(struct cb_result, m), CB_PF_##f },
#include "record_fields.h"
#undef CB_POINT_FIGURE
};

void cb_record_point_build(struct cb_record_point *rp, const struct cb_backend *b,
			   const struct cb_point *p, const struct cb_result *r)
{
	size_t k;
	double v;

	memset(rp, 0, sizeof(*rp));
	rp->direction = cb_strdup(cbfs_directions[p->dir]);
	rp->variant = cb_strdup(cb_point_label(b->variants, p));
	rp->size = p->size.lo;
	if (p->size.random) {
		rp->size_max = p->size.hi;
		rp->size_mean = r->size_mean;
		CB_POINT_SET(rp, size_max);
		CB_POINT_SET(rp, size_mean);
	}
	rp->src_offset = p->src_offset;
	rp->dst_offset = p->dst_offset;
	rp->cache = cb_strdup(cbfs_caches[p->cache]);
	rp->repeat = p->repeat;
	rp->run_cpu = r->run_cpu;
	rp->loops = r->loops;
	rp->samples = r->samples;
	rp->samples_discarded = r->discarded;
	rp->truncated = r->truncated;
	rp->cycles_min = r->min;
	rp->cycles_median = r->median;
	rp->cycles_mean = r->mean;
	rp->cycles_stddev = r->stddev;
	rp->cycles_max = r->max;
	if (isfinite(r->q02)) {
		rp->cycles_q02 = r->q02;
		CB_POINT_SET(rp, cycles_q02);
	}
	rp->baseline_cycles = r->baseline;
	rp->ns_median = b->tsc_khz ? r->median * 1e6 / (double)b->tsc_khz : 0;
	rp->bytes_per_cycle = r->median > 0 ? r->size_mean / r->median : 0;
	if (r->clock_ratio > 0) {
		rp->clock_ratio = r->clock_ratio;
		CB_POINT_SET(rp, clock_ratio);
	}
	rp->verified = r->verified;
	if (r->src_place >= 0 && r->dst_place >= 0) {
		rp->src_place = (unsigned long long)r->src_place;
		rp->dst_place = (unsigned long long)r->dst_place;
		CB_POINT_SET(rp, src_place);
		CB_POINT_SET(rp, dst_place);
	}
	if (r->bursts) {
		rp->bursts = r->bursts;
		rp->span_ms = r->span_ms;
		CB_POINT_SET(rp, bursts);
		CB_POINT_SET(rp, span_ms);
	}
	if (r->sites) {
		rp->sites = r->sites;
		CB_POINT_SET(rp, sites);
	}
	if (r->control) {
		rp->control = cb_strdup(r->control);
		rp->control_min = r->control_min;
		rp->control_median = r->control_median;
		/* The paired figure compare decides a native point on. */
		rp->control_ratio = r->control_ratio;
		CB_POINT_SET(rp, control);
		CB_POINT_SET(rp, control_min);
		CB_POINT_SET(rp, control_median);
		CB_POINT_SET(rp, control_ratio);
		if (r->pair_ratio > 0) {
			rp->pair_ratio = r->pair_ratio;
			CB_POINT_SET(rp, pair_ratio);
		}
	}
	if (b->set && b->set->slow_native > 0 && isfinite(r->slow_delivered)) {
		rp->slow_delivered = r->slow_delivered;
		CB_POINT_SET(rp, slow_delivered);
	}
	for (k = 0; k < ARRAY_SIZE(cb_point_figures); k++) {
		v = *(const double *)((const char *)r + cb_point_figures[k].member);
		if (isfinite(v)) {
			*(double *)((char *)rp + cb_point_figures[k].field) = v;
			rp->present |= 1ULL << cb_point_figures[k].bit;
		}
	}
}

void cb_record_point_result(const struct cb_record_point *rp, struct cb_result *r)
{
	size_t k;

	memset(r, 0, sizeof(*r));
	r->loops = rp->loops;
	r->samples = rp->samples;
	r->discarded = rp->samples_discarded;
	r->truncated = rp->truncated;
	r->verified = rp->verified;
	r->run_cpu = rp->run_cpu;
	r->min = rp->cycles_min;
	r->q02 = CB_POINT_HAS(rp, cycles_q02) ? rp->cycles_q02 : NAN;
	r->median = rp->cycles_median;
	r->mean = rp->cycles_mean;
	r->stddev = rp->cycles_stddev;
	r->max = rp->cycles_max;
	r->baseline = rp->baseline_cycles;
	r->size_mean = CB_POINT_HAS(rp, size_mean) ? rp->size_mean : (double)rp->size;
	r->clock_ratio = CB_POINT_HAS(rp, clock_ratio) ? rp->clock_ratio : 0;
	r->src_place = CB_POINT_HAS(rp, src_place) ? (long long)rp->src_place : -1;
	r->dst_place = CB_POINT_HAS(rp, dst_place) ? (long long)rp->dst_place : -1;
	for (k = 0; k < ARRAY_SIZE(cb_point_figures); k++)
		*(double *)((char *)r + cb_point_figures[k].member) =
			(rp->present >> cb_point_figures[k].bit) & 1 ?
			*(const double *)((const char *)rp + cb_point_figures[k].field) : NAN;
	r->call_q02 = NAN;
	r->slow_delivered = CB_POINT_HAS(rp, slow_delivered) ? rp->slow_delivered : NAN;
}
