// SPDX-License-Identifier: GPL-2.0
/*
 * interleave.c - the interleaved design (interleave.h): a process's points
 * timed in bursts, round after round, each round in a fresh random order,
 * a native point's bursts paired with its control's.
 *
 * Why (measure.rst has the measurements): the machine has slow states that
 * last tens to hundreds of milliseconds and recur many times a second. A
 * point timed as one block takes whatever state its block fell in, and so
 * do all its samples; a point timed in bursts spread over the process's
 * whole life meets the fast state in some of them, and the fastest of its
 * samples is that state's. What holds a whole process (every variant slow
 * together) the paired control shares, burst by burst: their ratio cancels
 * it.
 *
 * A backend with begin/burst/end (the user backend) times a burst itself;
 * for one without them (the module backend: copybench.ko measures a run,
 * not a burst) a burst is a run of set->burst samples, its loops those of
 * the point's first run, and the point's figures come from all its runs:
 * the fastest, the median of their medians.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "copybench.h"
#include "figures.h"
#include "interleave.h"
#include "points.h"
#include "stats.h"

int cb_control_variant(const struct cb_backend *b, const struct cb_point *p)
{
	unsigned int c = cb_size_class_of(p->size.lo, p->size.random ? p->size.hi : p->size.lo);
	const char *name;
	unsigned int i;
	int v;

	for (i = 0; (name = cb_size_class_control(c, i)); i++) {
		v = cb_backend_variant(b, name);
		if (v >= 0 && b->variants[v].usable && (b->variants[v].dirs >> p->dir & 1))
			return v;
	}
	return -1;
}

/* splitmix64: the round orders, from the seed, the repeat and the round. */
static unsigned long long cb_il_rand(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void cb_round_order(unsigned long long seed, unsigned int repeat, unsigned long k, size_t n,
		    size_t *perm, unsigned char *flip)
{
	unsigned long long s = seed * 0xD1B54A32D192ED03ULL ^ (unsigned long long)repeat << 32 ^ k;
	size_t i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		j = (size_t)(cb_il_rand(&s) % i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		flip[i] = (unsigned char)(cb_il_rand(&s) & 1);
}

/* ---- A burst as a run: backends without begin/burst/end ----------------- */

struct cb_runs {
	struct cb_point p;
	struct cb_result acc;
	double *med, *q02, *base, *ratio, *mean, *call_med, *lat_med;
	unsigned long n, cap;
};

/* Room for cap runs' figures (more rounds than the set's: process_ms). */
static void cb_runs_room(struct cb_runs *q, unsigned long cap)
{
	q->cap = cap;
	q->med = cb_realloc(q->med, cap, sizeof(*q->med));
	q->q02 = cb_realloc(q->q02, cap, sizeof(*q->q02));
	q->base = cb_realloc(q->base, cap, sizeof(*q->base));
	q->ratio = cb_realloc(q->ratio, cap, sizeof(*q->ratio));
	q->mean = cb_realloc(q->mean, cap, sizeof(*q->mean));
	q->call_med = cb_realloc(q->call_med, cap, sizeof(*q->call_med));
	q->lat_med = cb_realloc(q->lat_med, cap, sizeof(*q->lat_med));
}

static int cb_runs_begin(struct cb_backend *b, const struct cb_point *p, void **st)
{
	struct cb_runs *q = cb_calloc(1, sizeof(*q));

	q->p = *p;
	cb_runs_room(q, b->set->rounds ? b->set->rounds : 1);
	*st = q;
	return 0;
}

static int cb_runs_burst(struct cb_backend *b, struct cb_runs *q, double *fastest,
			 struct cb_error *e)
{
	const struct cb_settings *set = b->set;
	struct cb_settings one = *set;
	struct cb_result r;
	int ret;

	*fastest = NAN;
	if (q->n >= q->cap)
		cb_runs_room(q, 2 * q->cap);
	one.samples = set->burst;
	one.loops = q->n ? q->acc.loops : set->loops;
	b->set = &one;
	ret = b->ops->measure(b, &q->p, &r, e);
	b->set = set;
	if (ret)
		return -1;
	if (!q->n) {
		q->acc = r;
		q->acc.samples = 0;
		q->acc.discarded = 0;
	}
	q->acc.min = r.min < q->acc.min ? r.min : q->acc.min;
	q->acc.call_min = r.call_min < q->acc.call_min ? r.call_min : q->acc.call_min;
	q->acc.lat_min = r.lat_min < q->acc.lat_min ? r.lat_min : q->acc.lat_min;
	q->acc.max = r.max > q->acc.max ? r.max : q->acc.max;
	q->acc.samples += r.samples;
	q->acc.discarded += r.discarded;
	q->acc.truncated |= r.truncated;
	q->acc.verified = q->n ? q->acc.verified && r.verified : r.verified;
	q->med[q->n] = r.median;
	q->q02[q->n] = isfinite(r.q02) ? r.q02 : r.min;
	q->base[q->n] = r.baseline;
	q->ratio[q->n] = r.clock_ratio;
	q->mean[q->n] = r.mean;
	q->call_med[q->n] = r.call_median;
	q->lat_med[q->n] = r.lat_median;
	*fastest = cb_result_call(&r, 0);
	q->n++;
	q->acc.bursts = q->n;
	return 0;
}

static double cb_runs_median(double *v, unsigned long n)
{
	cb_stats_sort(v, n);
	return cb_stats_median(v, n);
}

static void cb_runs_end(struct cb_runs *q, struct cb_result *r)
{
	if (r && q->n) {
		*r = q->acc;
		r->median = cb_runs_median(q->med, q->n);
		r->q02 = cb_runs_median(q->q02, q->n);
		r->baseline = cb_runs_median(q->base, q->n);
		r->clock_ratio = cb_runs_median(q->ratio, q->n);
		r->mean = cb_stats_mean(q->mean, q->n);
		r->call_median = cb_runs_median(q->call_med, q->n);
		/* A latency in every burst, or none (NAN: a cold point). */
		r->lat_median = isnan(q->lat_med[0]) ? NAN : cb_runs_median(q->lat_med, q->n);
	}
	free(q->med);
	free(q->q02);
	free(q->base);
	free(q->ratio);
	free(q->mean);
	free(q->call_med);
	free(q->lat_med);
	free(q);
}

/* ---- Dispatch ------------------------------------------------------------ */

static int cb_il_begin(struct cb_backend *b, const struct cb_point *p, void **st,
		       struct cb_error *e)
{
	return b->ops->begin ? b->ops->begin(b, p, st, e) : cb_runs_begin(b, p, st);
}

static int cb_il_burst(struct cb_backend *b, void *st, int slow, double *fastest,
		       struct cb_error *e)
{
	return b->ops->burst ? b->ops->burst(b, st, slow, fastest, e) :
			       cb_runs_burst(b, st, fastest, e);
}

static int cb_il_end(struct cb_backend *b, void *st, struct cb_result *r, struct cb_error *e)
{
	if (b->ops->end)
		return b->ops->end(b, st, r, e);
	cb_runs_end(st, r);
	return 0;
}

/* ---- The rounds ---------------------------------------------------------- */

static int cb_same_place(const struct cb_point *a, const struct cb_point *c)
{
	return a->dir == c->dir && a->cache == c->cache && a->src_offset == c->src_offset &&
	       a->dst_offset == c->dst_offset && a->size.lo == c->size.lo &&
	       a->size.hi == c->size.hi && a->size.random == c->size.random;
}

/*
 * The points to time: pts[0..n), then a control for each native point
 * whose control the plan lacks; ctl[i] the index of point i's control, or
 * -1; unit[0..*nunits) the points that lead a unit (a point with its
 * control, or a point alone; a control paired with a native point goes in
 * that point's unit).
 */
static struct cb_point *cb_il_points(const struct cb_backend *b, const struct cb_point *pts,
				     size_t n, long *ctl, size_t *unit, size_t *nunits,
				     size_t *nall)
{
	struct cb_point *all = cb_calloc(2 * n, sizeof(*all));
	char *taken = cb_calloc(n ? n : 1, 1);
	size_t i, j, m = n, u = 0;
	int cv;

	memcpy(all, pts, n * sizeof(*all));
	for (i = 0; i < n; i++) {
		ctl[i] = -1;
		if (strcmp(cb_point_label(b->variants, &pts[i]), CB_NATIVE_NAME))
			continue;
		cv = cb_control_variant(b, &pts[i]);
		if (cv < 0)
			continue;
		for (j = 0; j < n; j++)
			if (!taken[j] && pts[j].label == (unsigned int)cv &&
			    pts[j].variant == (unsigned int)cv && cb_same_place(&pts[i], &pts[j]))
				break;
		if (j < n) {
			taken[j] = 1;
			ctl[i] = (long)j;
			continue;
		}
		all[m] = pts[i];
		all[m].variant = all[m].label = (unsigned int)cv;
		ctl[i] = (long)m++;
	}
	for (i = 0; i < n; i++)
		if (!taken[i])
			unit[u++] = i;
	free(taken);
	*nunits = u;
	*nall = m;
	return all;
}

/* Each native point's ratios to its control, a pair's fastest samples. */
struct cb_il_pairs {
	double **v;		/* point i's at v[i][0 .. n[i]) */
	unsigned long *n, *cap;
};

static void cb_il_pair_add(struct cb_il_pairs *pr, size_t i, double r)
{
	if (pr->n[i] == pr->cap[i]) {
		pr->cap[i] = pr->cap[i] ? 2 * pr->cap[i] : 64;
		pr->v[i] = cb_realloc(pr->v[i], pr->cap[i], sizeof(*pr->v[i]));
	}
	pr->v[i][pr->n[i]++] = r;
}

/* Round k: each unit's burst, or its pair's two in the order drawn. */
static int cb_il_round(struct cb_backend *b, void **st, const long *ctl, const size_t *unit,
		       size_t nunits, const size_t *perm, const unsigned char *flip, int slow,
		       struct cb_il_pairs *pr, struct cb_error *e)
{
	double fa, fc = NAN;
	size_t i, a;
	long c;

	for (i = 0; i < nunits; i++) {
		if (cb_stop())
			return cb_fail(e, CB_EXIT_RUNTIME, "interrupted");
		a = unit[perm[i]];
		c = ctl[a];
		if (c >= 0 && flip[i] && cb_il_burst(b, st[c], 0, &fc, e))
			return -1;
		if (cb_il_burst(b, st[a], slow, &fa, e))
			return -1;
		if (c >= 0 && !flip[i] && cb_il_burst(b, st[c], 0, &fc, e))
			return -1;
		if (c >= 0 && fa > 0 && fc > 0)
			cb_il_pair_add(pr, a, fa / fc);
	}
	return 0;
}

/*
 * Whether round k is to be timed, the rounds so far having taken ns: the
 * set's rounds first; then, with process_ms, more until the process has
 * timed its points that long (CB_ROUNDS_MAX at most). *spell: whether it
 * falls in --slow-spell's first third (of the rounds, or of process_ms).
 */
static int cb_il_more(const struct cb_settings *set, unsigned long k, unsigned long long ns,
		      int *spell)
{
	unsigned long long want = set->process_ms * 1000000ULL;

	*spell = set->process_ms ? ns < want / 3 : k < (set->rounds + 2) / 3;
	if (k < set->rounds)
		return 1;
	return set->process_ms && ns < want && k < CB_ROUNDS_MAX;
}

int cb_interleave(struct cb_backend *b, const struct cb_point *pts, size_t n,
		  unsigned long long seed, struct cb_error *e,
		  int (*emit)(void *arg, struct cb_measured *m), void *arg)
{
	long *ctl = cb_calloc(n ? n : 1, sizeof(*ctl));
	size_t *unit = cb_calloc(n ? n : 1, sizeof(*unit));
	size_t *perm = cb_calloc(n ? n : 1, sizeof(*perm));
	unsigned char *flip = cb_calloc(n ? n : 1, 1);
	struct cb_il_pairs pr = { 0 };
	struct cb_measured *m = NULL;
	size_t i, nunits, nall, begun;
	unsigned long long t0;
	struct cb_point *all;
	unsigned long k;
	int spell;
	void **st;
	long c;
	int ret = -1;

	all = cb_il_points(b, pts, n, ctl, unit, &nunits, &nall);
	pr.v = cb_calloc(n ? n : 1, sizeof(*pr.v));
	pr.n = cb_calloc(n ? n : 1, sizeof(*pr.n));
	pr.cap = cb_calloc(n ? n : 1, sizeof(*pr.cap));
	st = cb_calloc(nall ? nall : 1, sizeof(*st));
	for (begun = 0; begun < nall; begun++)
		if (cb_stop() ? cb_fail(e, CB_EXIT_RUNTIME, "interrupted") :
				cb_il_begin(b, &all[begun], &st[begun], e))
			goto out;
	t0 = cb_now_ns();
	for (k = 0; cb_il_more(b->set, k, cb_now_ns() - t0, &spell); k++) {
		cb_round_order(seed, n ? pts[0].repeat : 0, k, nunits, perm, flip);
		if (cb_il_round(b, st, ctl, unit, nunits, perm, flip, spell, &pr, e))
			goto out;
	}
	m = cb_calloc(nall ? nall : 1, sizeof(*m));
	for (i = 0; i < nall; i++) {
		m[i].p = all[i];
		ret = cb_il_end(b, st[i], &m[i].r, e);
		st[i] = NULL;
		if (ret)
			goto out;
	}
	for (i = 0, ret = 0; i < n && !ret; i++) {
		c = ctl[i];
		if (c >= 0) {
			m[i].r.control = b->variants[all[c].variant].name;
			m[i].r.control_min = m[c].r.min;
			m[i].r.control_median = m[c].r.median;
			if (cb_result_call(&m[c].r, 0) > 0)
				m[i].r.control_ratio = cb_result_call(&m[i].r, 0) /
						       cb_result_call(&m[c].r, 0);
			if (m[c].r.lat_min > 0 && m[i].r.lat_min > 0)
				m[i].r.lat_control_ratio = m[i].r.lat_min / m[c].r.lat_min;
			if (pr.n[i]) {
				cb_stats_sort(pr.v[i], pr.n[i]);
				m[i].r.pair_ratio = cb_stats_median(pr.v[i], pr.n[i]);
			}
		}
		ret = emit(arg, &m[i]);
	}
out:
	/* After a failure: every state begun and not ended is freed. */
	for (i = 0; i < nall; i++)
		if (st[i])
			cb_il_end(b, st[i], NULL, NULL);
	free(m);
	free(st);
	free(all);
	for (i = 0; i < n; i++)
		free(pr.v[i]);
	free(pr.v);
	free(pr.n);
	free(pr.cap);
	free(ctl);
	free(unit);
	free(perm);
	free(flip);
	return ret;
}
