// SPDX-License-Identifier: GPL-2.0
/*
 * points.c - point keys, names, size classes, costs and --points patterns
 * (points.h).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "copybench.h"
#include "figures.h"
#include "points.h"
#include "stats.h"

void cb_key_of(const struct cb_record_point *p, struct cb_key *k)
{
	memset(k, 0, sizeof(*k));
	k->direction = p->direction;
	k->variant = p->variant;
	k->cache = p->cache;
	k->size = p->size;
	k->random = CB_POINT_HAS(p, size_max);
	k->size_max = k->random ? p->size_max : p->size;
	k->src_offset = p->src_offset;
	k->dst_offset = p->dst_offset;
}

static int cb_ull_cmp(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

int cb_key_cmp(const struct cb_key *a, const struct cb_key *b)
{
	int c = strcmp(a->direction, b->direction);

	c = c ? c : strcmp(a->cache, b->cache);
	c = c ? c : cb_ull_cmp(a->size, b->size);
	c = c ? c : a->random - b->random;
	c = c ? c : cb_ull_cmp(a->size_max, b->size_max);
	c = c ? c : cb_ull_cmp(a->src_offset, b->src_offset);
	c = c ? c : cb_ull_cmp(a->dst_offset, b->dst_offset);
	return c ? c : strcmp(a->variant, b->variant);
}

int cb_key_is_native(const struct cb_key *k)
{
	return !strcmp(k->variant, CB_NATIVE_NAME);
}

void cb_key_name(const struct cb_key *k, struct cb_str *b)
{
	char lo[24], hi[24];

	cb_str_printf(b, "%s.%s.", k->direction, k->variant);
	if (k->random)
		cb_str_printf(b, "random:%s-%s", cb_fmt_bytes(k->size, lo, sizeof(lo)),
			      cb_fmt_bytes(k->size_max, hi, sizeof(hi)));
	else
		cb_str_add(b, cb_fmt_bytes(k->size, lo, sizeof(lo)));
	if (strcmp(k->cache, CB_CACHE_DEFAULT))
		cb_str_printf(b, ".%s", k->cache);
	if (k->src_offset)
		cb_str_printf(b, ".src%llu", k->src_offset);
	if (k->dst_offset)
		cb_str_printf(b, ".dst%llu", k->dst_offset);
}

/* ".srcN" or ".dstN" after the size: N bytes, 0..4095. */
static int cb_key_offset(const char *part, const char *tag, unsigned long long *v)
{
	size_t n = strlen(tag);

	return !strncmp(part, tag, n) && !cb_parse_u64(part + n, 1, CB_OFFSET_MAX, v) ? 0 : -1;
}

int cb_key_parse(const char *opt, const char *name, struct cb_key *k, char **buf,
		 struct cb_error *e)
{
	char *part[6], *save = NULL, *dash, *lo;
	unsigned long long a, b;
	size_t n = 0, i = 3;
	int bad = 0;

	memset(k, 0, sizeof(*k));
	*buf = cb_strdup(name);
	for (part[n] = strtok_r(*buf, ".", &save); part[n] && n < 5;)
		part[++n] = strtok_r(NULL, ".", &save);
	bad = n < 3 || part[n] || strstr(name, "..") || *name == '.' ||
	      name[strlen(name) - 1] == '.';
	if (!bad) {
		k->direction = part[0];
		k->variant = part[1];
		k->cache = CB_CACHE_DEFAULT;
		if (!strncmp(part[2], "random:", 7)) {
			lo = part[2] + 7;
			dash = strchr(lo, '-');
			if (dash)
				*dash = '\0';
			bad = !dash || cb_parse_bytes(lo, 0, CB_SIZE_MAX, &a) ||
			      cb_parse_bytes(dash + 1, 0, CB_SIZE_MAX, &b) || a > b;
			k->random = 1;
		} else {
			bad = cb_parse_bytes(part[2], 0, CB_SIZE_MAX, &a);
			b = a;
		}
		k->size = a;
		k->size_max = b;
	}
	/* A cache other than the default: names never say "hot". */
	if (!bad && i < n && strncmp(part[i], "src", 3) && strncmp(part[i], "dst", 3)) {
		k->cache = part[i++];
		bad = !strcmp(k->cache, CB_CACHE_DEFAULT);
	}
	if (!bad && i < n && !cb_key_offset(part[i], "src", &k->src_offset))
		i++;
	if (!bad && i < n && !cb_key_offset(part[i], "dst", &k->dst_offset))
		i++;
	if (bad || i < n) {
		free(*buf);
		*buf = NULL;
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid %s '%s' (accepted: a point's name as compare prints it, DIRECTION.VARIANT.SIZE[.CACHE][.srcN][.dstN]: to_user.native.4K, memcpy.movsb.512.cold.dst8)",
			       opt, name);
	}
	return 0;
}

/*
 * Lower bounds of the size classes, ascending, and the control the
 * interleaved design pairs a native point of the class with (the first
 * the CPU runs): the fixed copy whose cost moved most like glibc's memcpy
 * when the machine moved, measured per size on the development machine
 * (Documentation/measure.rst, "Paired controls"): rep movsb for short and
 * long copies, memcpy_orig's 32-byte load/store loop from 64 bytes to
 * 4 KiB, where glibc copies with vector loads and stores in a loop and
 * rep movsb, a microcoded string copy, drifted apart from it.
 */
static const struct {
	unsigned long long lo;
	const char *name;
	const char *control[2];
} cb_classes[CB_SIZE_CLASSES] = {
	{ 0, "0-63", { "movsb", "unrolled" } },
	{ 64, "64-4095", { "orig", "movsb" } },
	{ 4096, "4K-255K", { "movsb", "unrolled" } },
	{ 256 << 10, "256K-", { "movsb", "unrolled" } },
};

unsigned int cb_size_class_of(unsigned long long lo, unsigned long long hi)
{
	unsigned long long mid = lo + (hi - lo) / 2;
	unsigned int c = CB_SIZE_CLASSES - 1;

	while (c && mid < cb_classes[c].lo)
		c--;
	return c;
}

unsigned int cb_size_class(const struct cb_key *k)
{
	return cb_size_class_of(k->size, k->size_max);
}

const char *cb_size_class_control(unsigned int c, unsigned int i)
{
	return c < CB_SIZE_CLASSES && i < ARRAY_SIZE(cb_classes[c].control) ?
	       cb_classes[c].control[i] : NULL;
}

const char *cb_size_class_name(unsigned int c)
{
	return c < CB_SIZE_CLASSES ? cb_classes[c].name : "?";
}

int cb_key_same_class(const struct cb_key *a, const struct cb_key *b)
{
	return !strcmp(a->direction, b->direction) && !strcmp(a->cache, b->cache) &&
	       cb_size_class(a) == cb_size_class(b);
}

const char *const cb_figure_names[CB_FIGURES] = { "call", "latency" };

int cb_point_cost(const struct cb_record *r, const struct cb_record_point *p, int median,
		  int core, enum cb_figure fig, double *cost, struct cb_error *e)
{
	double v = fig == CB_FIGURE_LATENCY ? cb_point_latency(p, median) :
		   cb_point_call(p, median);

	if (core && !CB_POINT_HAS(p, clock_ratio))
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:%lu: --clock core needs clock_ratio, which this point lacks",
			       r->path, p->line);
	*cost = core ? v * p->clock_ratio : v;
	return 0;
}

static int cb_pointset_cmp(const void *a, const void *b)
{
	return cb_key_cmp(&((const struct cb_pointset *)a)->key,
			  &((const struct cb_pointset *)b)->key);
}

int cb_record_one_process(const struct cb_record *r)
{
	size_t i;

	for (i = 0; i < r->npoints; i++)
		if (CB_POINT_HAS(&r->points[i], pid))
			return 0;
	return 1;
}

/*
 * A line's cost, and its process: pid, 0 for a line without one; its
 * paired ratio (NAN without one); its fastest sample as timed.
 */
struct cb_cost {
	unsigned long long pid;
	double v, pr, g;
};

static int cb_cost_cmp(const void *a, const void *b)
{
	const struct cb_cost *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* The per-process costs of the lines s[i..j) of one point into set m. */
static void cb_points_processes(struct cb_pointset *s, size_t i, size_t j,
				const struct cb_cost *cost, const struct cb_record *r,
				struct cb_pointset *m)
{
	struct cb_cost *c = cb_calloc(j - i, sizeof(*c));
	double *tmp = cb_calloc(j - i, sizeof(*tmp));
	size_t k, a, b;
	int paired = 1;

	for (k = i; k < j; k++) {
		/* first: the earliest line of the set */
		if (s[k].first < m->first)
			m->first = s[k].first;
		c[k - i] = cost[s[k].first - r->points];
	}
	qsort(c, j - i, sizeof(*c), cb_cost_cmp);
	m->v = cb_calloc(j - i, sizeof(double));
	m->lines = j - i;
	for (k = 0; k < j - i; k++)
		paired &= isfinite(c[k].pr) && c[k].pr > 0;
	if (paired)
		m->pv = cb_calloc(j - i, sizeof(double));
	m->pid = cb_calloc(j - i, sizeof(*m->pid));
	m->g = cb_calloc(j - i, sizeof(*m->g));
	for (a = 0; a < j - i; a = b) {
		for (b = a; b < j - i && c[b].pid == c[a].pid; b++)
			tmp[b - a] = c[b].g;
		cb_stats_sort(tmp, b - a);
		m->g[m->n] = cb_stats_median(tmp, b - a);
		m->pid[m->n] = c[a].pid;
		for (k = a; k < b; k++)
			tmp[k - a] = c[k].v;
		cb_stats_sort(tmp, b - a);
		m->v[m->n] = cb_stats_median(tmp, b - a);
		for (k = a; paired && k < b; k++)
			tmp[k - a] = c[k].pr;
		if (paired) {
			cb_stats_sort(tmp, b - a);
			m->pv[m->n] = cb_stats_median(tmp, b - a);
		}
		m->n++;
	}
	free(tmp);
	free(c);
}

/* A line's fastest sample of figure fig as timed; NAN when it has none. */
static double cb_line_fastest(const struct cb_record_point *p, enum cb_figure fig)
{
	return fig == CB_FIGURE_LATENCY ? cb_point_latency(p, 0) : cb_point_call(p, 0);
}

/* A native line's ratio to its paired control, of figure fig; NAN: none. */
static double cb_line_pair(const struct cb_record_point *p, enum cb_figure fig)
{
	if (fig == CB_FIGURE_LATENCY)
		return CB_POINT_HAS(p, latency_paired) ? p->latency_paired : NAN;
	return CB_POINT_HAS(p, control_ratio) ? p->control_ratio : NAN;
}

/*
 * A control line's paired figure: its cost as timed against the native
 * point's paired control in the same process (the native line of the same
 * pid and place: its cost as timed over its ratio to that control), so
 * that the controls' drift can be taken on the pairs too (drift.c). NAN
 * for the pairing control itself (its figure against itself is 1), a line
 * of no process, or no paired native line beside it.
 */
static double cb_control_paired(const struct cb_record *r, const struct cb_record_point *p,
				enum cb_figure fig)
{
	const struct cb_record_point *q;
	struct cb_key kp, kq;
	size_t i;

	if (!CB_POINT_HAS(p, pid) || !strcmp(p->variant, CB_NATIVE_NAME))
		return NAN;
	cb_key_of(p, &kp);
	for (i = 0; i < r->npoints; i++) {
		q = &r->points[i];
		if (!CB_POINT_HAS(q, control) || !CB_POINT_HAS(q, pid) || q->pid != p->pid ||
		    strcmp(q->variant, CB_NATIVE_NAME) || !(cb_line_pair(q, fig) > 0))
			continue;
		cb_key_of(q, &kq);
		kq.variant = kp.variant;
		if (cb_key_cmp(&kp, &kq))
			continue;
		if (!strcmp(q->control, p->variant) || !(cb_line_fastest(q, fig) > 0))
			return NAN;
		return cb_line_fastest(p, fig) * cb_line_pair(q, fig) / cb_line_fastest(q, fig);
	}
	return NAN;
}

int cb_points_group(const struct cb_record *r, int median, int core, enum cb_figure fig,
		    struct cb_pointset **out, size_t *n, struct cb_error *e)
{
	struct cb_pointset *s = cb_calloc(r->npoints, sizeof(*s));
	struct cb_cost *cost = cb_calloc(r->npoints, sizeof(*cost));
	const struct cb_record_point *p;
	size_t i, j, k, m = 0;
	const char *bad;

	/* Costs in file order, so a refusal names the first bad line. */
	for (i = 0, k = 0; i < r->npoints; i++) {
		p = &r->points[i];
		bad = cb_has_control(p->direction) ? "direction" : cb_has_control(p->variant) ?
		      "variant" : cb_has_control(p->cache) ? "cache" : NULL;
		if (bad)
			cb_fail(e, CB_EXIT_USAGE, "%s:%lu: field '%s' holds a control character",
				r->path, p->line, bad);
		if (bad || cb_point_cost(r, p, median, core, fig, &cost[i].v, e)) {
			free(cost);
			free(s);
			return -1;
		}
		if (isnan(cost[i].v))
			continue;	/* a line without the figure */
		cost[i].pid = CB_POINT_HAS(p, pid) ? p->pid : 0;
		/* The pairs and the costs are of one figure. */
		cost[i].pr = strcmp(p->variant, CB_NATIVE_NAME) ? cb_control_paired(r, p, fig) :
			     cb_line_pair(p, fig);
		cost[i].g = cb_line_fastest(p, fig);
		cb_key_of(&r->points[i], &s[k].key);
		s[k++].first = &r->points[i];
	}
	/* Sorted by key, every run of equal keys is one set. */
	qsort(s, k, sizeof(*s), cb_pointset_cmp);
	for (i = 0; i < k; i = j) {
		for (j = i + 1; j < k && !cb_key_cmp(&s[i].key, &s[j].key); j++)
			;
		s[m] = s[i];
		s[m].n = 0;
		cb_points_processes(s, i, j, cost, r, &s[m]);
		m++;
	}
	free(cost);
	*out = s;
	*n = m;
	return 0;
}

void cb_points_free(struct cb_pointset *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++) {
		free(s[i].v);
		free(s[i].pv);
		free(s[i].pid);
		free(s[i].g);
	}
	free(s);
}

const struct cb_pointset *cb_points_find(const struct cb_pointset *s, size_t n,
					 const struct cb_key *k)
{
	struct cb_pointset want = { .key = *k };

	return bsearch(&want, s, n, sizeof(*s), cb_pointset_cmp);
}

int cb_patterns_parse(const char *opt, const char *spec, struct cb_patterns *p,
		      struct cb_error *e)
{
	const char *s = spec, *comma;

	memset(p, 0, sizeof(*p));
	do {
		comma = strchr(s, ',');
		if (comma == s || !*s) {
			cb_patterns_free(p);
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --%s '%s': empty item (accepted: point names or shell patterns, comma-separated: to_user.native.4K, '*.native.*')",
				       opt, spec);
		}
		p->v = cb_realloc(p->v, p->n + 1, sizeof(*p->v));
		p->v[p->n] = cb_strdup(s);
		if (comma)
			p->v[p->n][comma - s] = '\0';
		p->n++;
		s = comma ? comma + 1 : NULL;
	} while (s);
	return 0;
}

void cb_patterns_free(struct cb_patterns *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int cb_patterns_match(const struct cb_patterns *p, const struct cb_key *k)
{
	struct cb_str name = { 0 };
	size_t i;
	int hit = 0;

	cb_key_name(k, &name);
	for (i = 0; i < p->n && !hit; i++)
		hit = !fnmatch(p->v[i], name.s, 0);
	cb_str_free(&name);
	return hit;
}

size_t cb_patterns_select(const struct cb_patterns *p, const struct cb_pointset *s, size_t n,
			  char *sel)
{
	size_t i, j, hits = 0;

	for (i = 0; i < n; i++) {
		sel[i] = (char)cb_patterns_match(p, &s[i].key);
		hits += (size_t)sel[i];
	}
	for (i = 0; i < n; i++) {
		if (!sel[i] || !cb_key_is_native(&s[i].key))
			continue;
		for (j = 0; j < n; j++)
			if (!cb_key_is_native(&s[j].key) && cb_key_same_class(&s[i].key, &s[j].key))
				sel[j] |= 2;
	}
	return hits;
}
