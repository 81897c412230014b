// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c - copybench compare's engine (verdict.h): the headers checked
 * (headers.c), points matched by key, each decided by infer.h, the
 * controls' drift per size class (drift.c), native points net of it, the
 * status.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "headers.h"
#include "stats.h"
#include "verdict.h"

#define CB_OUTCOME(e, name)	name,
static const char *const cb_outcome_names[] = {
#include "verdict.h"
};
#undef CB_OUTCOME

const char *cb_outcome_name(enum cb_outcome o)
{
	return (unsigned int)o < ARRAY_SIZE(cb_outcome_names) ? cb_outcome_names[o] : "?";
}

int cb_compare_status_merge(int a, int b)
{
	if (a == CB_EXIT_REGRESSION || b == CB_EXIT_REGRESSION)
		return CB_EXIT_REGRESSION;
	return a == CB_EXIT_INCONCLUSIVE || b == CB_EXIT_INCONCLUSIVE ?
	       CB_EXIT_INCONCLUSIVE : CB_EXIT_OK;
}

/* ---- Points ------------------------------------------------------------- */

static void cb_describe(const struct cb_pointset *s, struct cb_side *d)
{
	double *v = cb_calloc(s->n, sizeof(*v));

	memcpy(v, s->v, s->n * sizeof(*v));
	cb_stats_sort(v, s->n);
	d->n = s->n;
	d->lines = s->lines;
	d->mean = cb_stats_mean(v, s->n);
	d->stddev = cb_stats_stddev(v, s->n, 0);
	d->median = cb_stats_median(v, s->n);
	d->min = v[0];
	d->max = v[s->n - 1];
	free(v);
}

static int cb_infer_fail(const struct cb_cmp_point *p, int err, struct cb_error *e)
{
	if (err == -E2BIG)
		return cb_fail(e, CB_EXIT_USAGE,
			       "point %s has more than %d repeats on a side: more than compare takes",
			       p->name, INFER_MAX_N);
	return cb_fail(e, CB_EXIT_RUNTIME, "point %s: the statistics failed: %s", p->name,
		       strerror(-err));
}

/*
 * A native point of the interleaved design is decided on its paired
 * costs: each process's ratio to its paired control (control_ratio,
 * timed in the same bursts, so what moved the machine moved both),
 * turned back into clocks of the native copy by one map shared by both
 * sides, c = pv * N / P, with N the base's median cost and P its median
 * ratio: a base process at the medians maps to N, and a change of the
 * ratio is the change of the cost it implies (both are times per call).
 * The map is increasing, so the test is the test of the ratios; the
 * estimate is in the cost's own terms.
 */
/* The median of v[0..n), n >= 1, left as it is. */
static double cb_median_of(const double *v, size_t n)
{
	double *tmp = cb_calloc(n, sizeof(*tmp)), m;

	memcpy(tmp, v, n * sizeof(*tmp));
	cb_stats_sort(tmp, n);
	m = cb_stats_median(tmp, n);
	free(tmp);
	return m;
}

static double *cb_paired_costs(const struct cb_pointset *s, const struct cb_pointset *base)
{
	double *v = cb_calloc(s->n, sizeof(*v));
	double N = cb_median_of(base->v, base->n), P = cb_median_of(base->pv, base->n);
	size_t i;

	for (i = 0; i < s->n; i++)
		v[i] = P > 0 ? s->pv[i] * N / P : NAN;
	return v;
}

static int cb_all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static int cb_judge_on(struct cb_cmp_point *p, const struct cb_pointset *b,
		       const struct cb_pointset *n, const struct infer_params *par,
		       struct cb_error *e);

/* The smallest change found at alpha: the farther end of the ratio's interval. */
static double cb_within(const double *b, size_t nb, const double *n, size_t nn, double alpha)
{
	double lo, hi;

	if (infer_hl_interval(b, nb, n, nn, alpha, &lo, &hi))
		return NAN;
	if (!isfinite(hi) || !(lo > 0))
		return INFINITY;
	return fmax(hi - 1, 1 - lo);
}

/*
 * The ratios of native set s's processes to those of set x (another
 * variant at the same place), each process's fastest samples as timed:
 * NULL when the two were not measured by the same processes.
 */
static double *cb_ratio_to(const struct cb_pointset *s, const struct cb_pointset *x)
{
	double *v;
	size_t i;

	if (!s->g || !x->g || !s->pid || !x->pid || s->n != x->n || !s->n)
		return NULL;
	for (i = 0; i < s->n; i++)
		if (s->pid[i] != x->pid[i] || !(s->g[i] > 0) || !(x->g[i] > 0) ||
		    !isfinite(s->g[i]) || !isfinite(x->g[i]))
			return NULL;
	v = cb_calloc(s->n, sizeof(*v));
	for (i = 0; i < s->n; i++)
		v[i] = s->g[i] / x->g[i];
	return v;
}

/*
 * A paired native point's own fast level, new/base, and its bootstrap
 * interval (infer_level()), on each process's fastest sample of the
 * figure as timed; its costs when a process lacks that; all three NaN
 * when neither can be tested.
 */
static void cb_own_level(struct cb_cmp_point *p, const struct cb_pointset *b,
			 const struct cb_pointset *n, const struct infer_params *par)
{
	struct infer_level l;
	int err = -EINVAL;

	p->own.ratio = p->own.lo = p->own.hi = NAN;
	if (b->g && n->g)
		err = infer_level(b->g, b->n, n->g, n->n, par, &l);
	if (err)
		err = infer_level(b->v, b->n, n->v, n->n, par, &l);
	if (err)
		return;
	p->own.ratio = l.ratio;
	p->own.lo = l.lo;
	p->own.hi = l.hi;
}

/*
 * Whether native's own fast level contradicts a paired change, @out: it did
 * not move the change's way by more than the threshold, and its interval
 * leaves the paired change out. Denying only an own level that did not
 * move at all would let a reference that alone ran faster make a
 * regression where native's own level moved a hair its way; where the own
 * level is too imprecise to say, the pairs, which cancel those levels,
 * decide (Documentation/compare.rst, "The cases behind the rules").
 */
static bool cb_own_denies(const struct cb_cmp_point *p, enum cb_outcome out,
			  const struct infer_params *par)
{
	if (!isfinite(p->own.ratio))
		return false;
	if (out == CB_OUT_REGRESSED)
		return p->own.ratio <= 1 + par->threshold && p->own.hi < p->own.paired;
	if (out == CB_OUT_IMPROVED)
		return p->own.ratio >= 1 - par->threshold && p->own.lo > p->own.paired;
	return false;
}

/*
 * The processes of native set s at its own fast level (its time per call
 * within INFER_LEVEL_BAND of the mean log of its fastest
 * INFER_LEVEL_SHARE) into at[]; every process when s lacks the figure.
 * Returns how many.
 */
static size_t cb_at_own_level(const struct cb_pointset *s, size_t *at)
{
	double line = s->g ? infer_fast_level(s->g, s->n) * (1 + INFER_LEVEL_BAND) : NAN;
	size_t i, m = 0;

	for (i = 0; i < s->n; i++)
		if (!isfinite(line) || s->g[i] <= line)
			at[m++] = i;
	return m;
}

/*
 * One side's spread of the ratios v[0..n) to a reference: from the
 * smallest of all to the largest of those at[0..m) where native was at
 * its own fast level, log(max / min). Any process can be among the
 * fastest ratios of the level, or of a resample's, where native and the
 * reference were slow together too; one where native alone was slow
 * (its ratio above the rest) is out of the level whatever the reference,
 * and says nothing of it.
 */
static double cb_side_spread(const double *v, size_t n, const size_t *at, size_t m)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++)
		lo = fmin(lo, v[i]);
	for (i = 0; i < m; i++)
		hi = fmax(hi, v[at[i]]);
	return m && hi > lo ? log(hi / lo) : 0;
}

/*
 * Both sides' spreads, weighted by their processes. The median absolute
 * deviation over every process would be blind to the one process in ten
 * where the reference alone was slow, a fast outlier of the ratio that the
 * level took in (Documentation/compare.rst, "Paired controls" and "The
 * cases behind the rules").
 */
static double cb_ref_spread(const double *b, size_t nb, const size_t *ab, size_t mb,
			    const double *n, size_t nn, const size_t *an, size_t mn)
{
	if (!mb && !mn)
		return 0;
	return (cb_side_spread(b, nb, ab, mb) * (double)mb +
		cb_side_spread(n, nn, an, mn) * (double)mn) / (double)(mb + mn);
}

/* Whether a and b are points at the same place (all but the variant). */
static int cb_same_place_key(const struct cb_key *a, const struct cb_key *b)
{
	struct cb_key k = *b;

	k.variant = a->variant;
	return !cb_key_cmp(a, &k);
}

/* The sets of s[0..n) at set i's place: s[*lo..*hi) (sorted by key). */
static void cb_place_range(const struct cb_pointset *s, size_t n, size_t i, size_t *lo,
			   size_t *hi)
{
	for (*lo = i; *lo > 0 && cb_same_place_key(&s[i].key, &s[*lo - 1].key); (*lo)--)
		;
	for (*hi = i + 1; *hi < n && cb_same_place_key(&s[i].key, &s[*hi].key); (*hi)++)
		;
}

/*
 * What a paired native point (bs[i] against ns[j]) is decided against:
 * of its paired control (the pv ratios, timed next to it) and every other
 * point of its place that the same processes measured in both records, the
 * one whose ratio to the native copy spread least over the processes of
 * both records together. Why: which fixed copy answers the machine's
 * states and the processes' placements as libc's does is the CPU's and
 * libc's doing, not one machine's to settle (Documentation/compare.rst,
 * "The cases behind the rules");
 * the spread of both sides together looks at neither side's level, so the
 * choice cannot lean the test. *rb and *rn get the ratios (malloc()ed),
 * the return is the reference's variant name.
 */
static const char *cb_reference(const struct cb_pointset *bs, size_t nb, size_t i,
				const struct cb_pointset *ns, size_t nn, size_t j, double **rb,
				double **rn)
{
	const char *name = bs[i].first && bs[i].first->control ? bs[i].first->control : "control";
	size_t *ab = cb_calloc(bs[i].n, sizeof(*ab)), *an = cb_calloc(ns[j].n, sizeof(*an));
	size_t blo, bhi, nlo, nhi, k, m, mb, mn;
	double best, sp, *xb, *xn;

	*rb = cb_calloc(bs[i].n, sizeof(**rb));
	*rn = cb_calloc(ns[j].n, sizeof(**rn));
	memcpy(*rb, bs[i].pv, bs[i].n * sizeof(**rb));
	memcpy(*rn, ns[j].pv, ns[j].n * sizeof(**rn));
	mb = cb_at_own_level(&bs[i], ab);
	mn = cb_at_own_level(&ns[j], an);
	best = cb_ref_spread(*rb, bs[i].n, ab, mb, *rn, ns[j].n, an, mn);
	cb_place_range(bs, nb, i, &blo, &bhi);
	cb_place_range(ns, nn, j, &nlo, &nhi);
	for (k = blo; k < bhi; k++) {
		if (cb_key_is_native(&bs[k].key))
			continue;
		for (m = nlo; m < nhi && strcmp(ns[m].key.variant, bs[k].key.variant); m++)
			;
		if (m == nhi)
			continue;
		xb = cb_ratio_to(&bs[i], &bs[k]);
		xn = cb_ratio_to(&ns[j], &ns[m]);
		sp = xb && xn ? cb_ref_spread(xb, bs[i].n, ab, mb, xn, ns[j].n, an, mn) : INFINITY;
		if (sp < best) {
			best = sp;
			free(*rb);
			free(*rn);
			*rb = xb;
			*rn = xn;
			name = bs[k].key.variant;
			continue;
		}
		free(xb);
		free(xn);
	}
	free(ab);
	free(an);
	return name;
}

/* A paired control's per-process log figures of set s into side i of p. */
static void cb_keep_levels(struct cb_cmp_point *p, int i, const struct cb_pointset *s)
{
	size_t k;

	p->procs.lf[i] = cb_calloc(s->n, sizeof(*p->procs.lf[i]));
	p->procs.pid[i] = cb_calloc(s->n, sizeof(*p->procs.pid[i]));
	for (k = 0; k < s->n; k++) {
		p->procs.lf[i][k] = log(s->pv[k]);
		p->procs.pid[i][k] = s->pid[k];
	}
	p->procs.n[i] = s->n;
}

/* Whether x was measured by s's processes, in s's order, with a time per call each. */
static bool cb_same_processes(const struct cb_pointset *s, const struct cb_pointset *x)
{
	size_t i;

	if (!s->g || !x->g || !s->pid || !x->pid || s->n != x->n || !s->n)
		return false;
	for (i = 0; i < s->n; i++)
		if (s->pid[i] != x->pid[i])
			return false;
	return true;
}

/*
 * Native's fast level against its reference's (p->against at bs[i]'s
 * place in both records), each of its own processes' time per call
 * (infer_level_pair()), new/base, into p->levels (its ratio, lo, hi and
 * p); left NaN (as cb_judge() sets them) when a record lacks
 * the figures.
 */
static void cb_levels(struct cb_cmp_point *p, const struct cb_pointset *bs, size_t nb,
			 size_t i, const struct cb_pointset *ns, size_t nn, size_t j,
			 const struct infer_params *par)
{
	size_t blo, bhi, nlo, nhi, k, m;
	struct infer_pair_level l;

	if (!p->against)
		return;
	cb_place_range(bs, nb, i, &blo, &bhi);
	cb_place_range(ns, nn, j, &nlo, &nhi);
	for (k = blo; k < bhi && strcmp(bs[k].key.variant, p->against); k++)
		;
	for (m = nlo; m < nhi && strcmp(ns[m].key.variant, p->against); m++)
		;
	if (k == bhi || m == nhi || !cb_same_processes(&bs[i], &bs[k]) ||
	    !cb_same_processes(&ns[j], &ns[m]) ||
	    infer_level_pair(bs[i].g, bs[k].g, bs[i].n, ns[j].g, ns[m].g, ns[j].n, par, &l))
		return;
	p->levels.ratio = l.ratio;
	p->levels.lo = l.lo;
	p->levels.hi = l.hi;
	p->levels.p = l.p;
}

/* The raw verdict, LKP's, and the bootstrap of one matched point. */
static int cb_judge(struct cb_cmp_point *p, const struct cb_pointset *ball, size_t nb, size_t bi,
		    const struct cb_pointset *nall, size_t nn, size_t ni,
		    const struct infer_params *par, struct cb_error *e)
{
	const struct cb_pointset *bs = &ball[bi], *ns = &nall[ni];
	struct cb_pointset pb, pn, *b = (struct cb_pointset *)bs, *n = (struct cb_pointset *)ns;
	double *rb = NULL, *rn = NULL;
	int err;

	cb_describe(b, &p->base);
	cb_describe(n, &p->new);
	p->levels.ratio = p->levels.lo = p->levels.hi = p->levels.p = NAN;
	p->paired = bs->pv && ns->pv && bs->n && ns->n;
	if (p->paired) {
		pb = *bs;
		pn = *ns;
		/* A control keeps its figure against the paired control. */
		if (p->control && bs->pid && ns->pid) {
			cb_keep_levels(p, 0, bs);
			cb_keep_levels(p, 1, ns);
		}
		if (!p->control) {
			p->against = cb_reference(ball, nb, bi, nall, nn, ni, &rb, &rn);
			pb.pv = rb;
			pn.pv = rn;
			cb_levels(p, ball, nb, bi, nall, nn, ni, par);
		}
		/* Both mapped by the base's raw costs and ratios. */
		pn.v = cb_paired_costs(&pn, &pb);
		pb.v = cb_paired_costs(&pb, &pb);
		b = &pb;
		n = &pn;
		if (!cb_all_finite(b->v, b->n) || !cb_all_finite(n->v, n->n)) {
			/* A paired cost not finite: the raw costs decide. */
			free(pb.v);
			free(pn.v);
			p->paired = 0;
			p->against = NULL;
			b = (struct cb_pointset *)bs;
			n = (struct cb_pointset *)ns;
		}
	}
	/* NaN but for a native point that stayed paired: the rule reference-moved reads it. */
	p->own.ratio = p->own.lo = p->own.hi = p->own.paired = NAN;
	if (p->paired && !p->control)
		cb_own_level(p, bs, ns, par);
	err = cb_judge_on(p, b, n, par, e);
	if (!err && p->paired && !p->control && p->v.by_level && p->v.level.base > 0)
		p->own.paired = p->v.ratio;
	if (p->paired) {
		free(pb.v);
		free(pn.v);
	}
	free(rb);
	free(rn);
	return err;
}

static int cb_judge_on(struct cb_cmp_point *p, const struct cb_pointset *b,
		       const struct cb_pointset *n, const struct infer_params *par,
		       struct cb_error *e)
{
	int err;

	/*
	 * A native point on its fast level; a control on all its processes
	 * (Hodges-Lehmann), as its class's drift is taken: the controls say
	 * how far the machine moved, all of it, not its fastest half.
	 */
	err = p->control ? infer_decide(b->v, b->n, n->v, n->n, par, &p->v) :
			   infer_decide_level(b->v, b->n, n->v, n->n, par, &p->v);
	p->within = NAN;
	if (!err && p->v.why == INFER_WHY_NONE)
		p->within = p->v.by_level ? fmax(p->v.level.hi - 1, 1 - p->v.level.lo) :
					    cb_within(b->v, b->n, n->v, n->n, par->alpha);
	if (!err)
		err = infer_lkp(b->v, b->n, n->v, n->n, 0, &p->lkp);
	if (err)
		return cb_infer_fail(p, err, e);
	if (p->v.why != INFER_WHY_NO_DATA && p->v.why != INFER_WHY_NOT_POSITIVE) {
		err = infer_placement(b->v, b->n, n->v, n->n, par, &p->pl);
		if (err)
			return cb_infer_fail(p, err, e);
		p->has_pl = 1;
	}
	/* NaN when a cost is not positive: then the verdict is inconclusive. */
	p->log_se = infer_log_se(b->v, b->n, n->v, n->n);
	p->boot_agrees = 1;
	if (b->n >= CB_BOOT_MIN_REPEATS && n->n >= CB_BOOT_MIN_REPEATS &&
	    p->v.why == INFER_WHY_NONE) {
		/* A level's own bootstrap: its interval beside its test. */
		if (p->v.by_level)
			p->boot = (struct infer_boot){
				.ratio = p->v.level.ratio, .lo = p->v.level.lo,
				.hi = p->v.level.hi, .level = 1 - par->alpha,
				.resamples = par->resamples,
			};
		else
			err = infer_boot_median_ratio(b->v, b->n, n->v, n->n, par, &p->boot);
		if (err)
			return cb_infer_fail(p, err, e);
		p->has_boot = 1;
		/*
		 * A change: the interval on its side of 1. None: the interval
		 * not wholly beyond the threshold.
		 */
		if (p->v.change == INFER_REGRESSED)
			p->boot_agrees = p->boot.lo > 1;
		else if (p->v.change == INFER_IMPROVED)
			p->boot_agrees = p->boot.hi < 1;
		else
			p->boot_agrees = p->boot.lo <= 1 + par->threshold &&
					 p->boot.hi >= 1 - par->threshold;
	}
	return 0;
}

static void cb_only_add(char ***list, size_t *n, const struct cb_key *k)
{
	struct cb_str s = { 0 };

	cb_key_name(k, &s);
	*list = cb_realloc(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = s.s;
}

static int cb_cmp_point_order(const void *a, const void *b)
{
	const struct cb_cmp_point *x = a, *y = b;

	if (x->control != y->control)
		return x->control - y->control;
	return cb_key_cmp(&x->key, &y->key);
}

static const char *cb_names_sample(char **names, size_t n, struct cb_str *b)
{
	size_t i;

	for (i = 0; i < n && i < 5; i++)
		cb_str_printf(b, "%s%s", i ? ", " : "", names[i]);
	if (n > 5)
		cb_str_printf(b, ", ... (%zu in all)", n);
	return b->s ? b->s : "none";
}

/*
 * Walks both sorted sets: a point of both is judged, the others are
 * listed as only in one record. With --points (pat), bsel marks the
 * base's selected sets, and only what pat names counts as missing.
 */
static int cb_match(struct cb_cmp *c, const struct cb_pointset *bs, size_t nb,
		    const struct cb_pointset *ns, size_t nn, const struct cb_patterns *pat,
		    const char *bsel, const struct infer_params *par, struct cb_error *e)
{
	struct cb_cmp_point *p;
	struct cb_str name;
	size_t i = 0, j = 0;
	int d;

	c->pts = cb_calloc(nb < nn ? nb : nn, sizeof(*c->pts));
	while (i < nb || j < nn) {
		d = i == nb ? 1 : j == nn ? -1 : cb_key_cmp(&bs[i].key, &ns[j].key);
		if (d < 0 || (d == 0 && !bsel[i])) {
			if (bsel[i])
				cb_only_add(&c->only_base, &c->nonly_base, &bs[i].key);
			i++;
			j += d == 0;
			continue;
		}
		if (d > 0) {
			if (!pat || cb_patterns_match(pat, &ns[j].key))
				cb_only_add(&c->only_new, &c->nonly_new, &ns[j].key);
			j++;
			continue;
		}
		p = &c->pts[c->npts++];
		p->key = bs[i].key;
		name = (struct cb_str){ 0 };
		cb_key_name(&p->key, &name);
		p->name = name.s;
		p->control = !cb_key_is_native(&p->key);
		p->cls = -1;
		if (cb_judge(p, bs, nb, i, ns, nn, j, par, e))
			return -1;
		i++;
		j++;
	}
	if (!c->npts) {
		struct cb_str x = { 0 }, y = { 0 };

		cb_fail(e, CB_EXIT_USAGE,
			"%s and %s have no point in common (only in the first: %s; only in the second: %s)",
			c->base->path, c->new->path,
			cb_names_sample(c->only_base, c->nonly_base, &x),
			cb_names_sample(c->only_new, c->nonly_new, &y));
		cb_str_free(&x);
		cb_str_free(&y);
		return -1;
	}
	qsort(c->pts, c->npts, sizeof(*c->pts), cb_cmp_point_order);
	return 0;
}

/* ---- Outcomes ----------------------------------------------------------- */

static enum cb_outcome cb_from_change(enum infer_change ch)
{
	switch (ch) {
	case INFER_IMPROVED:
		return CB_OUT_IMPROVED;
	case INFER_REGRESSED:
		return CB_OUT_REGRESSED;
	case INFER_UNCHANGED:
		return CB_OUT_UNCHANGED;
	default:
		return CB_OUT_INCONCLUSIVE;
	}
}

/* The levels' verdict (cb_levels()). */
static enum infer_change cb_levels_change(const struct cb_cmp_point *p,
					const struct infer_params *par)
{
	if (!(p->levels.p <= par->alpha) || !(fabs(p->levels.ratio - 1) > par->threshold))
		return INFER_UNCHANGED;
	return p->levels.ratio > 1 ? INFER_REGRESSED : INFER_IMPROVED;
}

/*
 * Whether a paired native point is decided on the levels (its fast level
 * against its reference's, cb_levels()) rather than on the level of
 * its per-process ratios: where the levels' interval is the narrower, its
 * size class's controls stayed (not moved, not scattered, their drift's
 * interval within the threshold), and a change the levels find lies
 * beyond the drift's whole interval. Why: a process where the reference
 * alone was slow is a fast outlier of the ratios, which their level takes
 * in or not as the bootstrap draws it; the levels leave it out
 * (Documentation/compare.rst, "Paired controls", "decided on the levels";
 * "The cases behind the rules").
 */
static bool cb_levels_decide(const struct cb_cmp *c, const struct cb_cmp_point *p,
			    const struct infer_params *par)
{
	const struct infer_drift *d;

	if (p->control || !p->paired || !p->v.by_level || p->cls < 0 || !isfinite(p->levels.p) ||
	    !(p->levels.lo > 0) || !isfinite(p->levels.hi) || !(p->v.level.lo > 0) ||
	    !(p->v.level.base > 0))
		return false;
	d = &c->cls[p->cls].d;
	if (!d->enough || d->moved || c->cls[p->cls].scattered ||
	    !(d->lo * (1 + par->threshold) >= 1) || !(d->hi <= 1 + par->threshold))
		return false;
	if (!(log(p->levels.hi / p->levels.lo) < log(p->v.level.hi / p->v.level.lo)))
		return false;
	switch (cb_levels_change(p, par)) {
	case INFER_REGRESSED:
		return p->levels.lo > d->hi;
	case INFER_IMPROVED:
		return p->levels.hi < d->lo;
	default:
		return true;
	}
}

/*
 * Decide p on the levels (cb_levels_decide()): its verdict, ratio, p,
 * "within" and bootstrap interval become theirs, and the change native's
 * own level may still deny (own.paired: cb_own_denies()). The net figure
 * stays the ratios' change net of the controls.
 */
static void cb_decide_on_levels(struct cb_cmp_point *p, const struct infer_params *par)
{
	double lo = p->levels.lo, hi = p->levels.hi;

	p->on_levels = 1;
	p->v.change = cb_levels_change(p, par);
	p->v.ratio = p->levels.ratio;
	p->v.change_pct = 100 * (p->v.ratio - 1);
	p->v.p = p->levels.p;
	p->v.exact = false;	/* random permutations */
	p->own.paired = p->levels.ratio;
	p->within = fmax(hi - 1, 1 - lo);
	if (p->has_boot) {
		p->boot.ratio = p->v.ratio;
		p->boot.lo = lo;
		p->boot.hi = hi;
		if (p->v.change == INFER_REGRESSED)
			p->boot_agrees = lo > 1;
		else if (p->v.change == INFER_IMPROVED)
			p->boot_agrees = hi < 1;
		else
			p->boot_agrees = lo <= 1 + par->threshold && hi >= 1 - par->threshold;
	}
}

/*
 * The outcome of a point: the rules below, walked in the order of
 * cb_rules[] (Documentation/compare.rst, "The decision rule", names the
 * same rules in the same order). Each returns an outcome, CB_NEXT when it
 * does not decide the point (it may have set what the next ones read), or
 * CB_FAILED with @e set.
 */
#define CB_NEXT		(-1)
#define CB_FAILED	(-2)

/* What a rule reads and sets: the comparison, the point, the parameters, the error. */
struct cb_judging {
	struct cb_cmp *c;
	struct cb_cmp_point *p;
	const struct infer_params *par;
	struct cb_error *e;
};

/*
 * struct cb_rule - one rule of the decision.
 * @name: its name, as compare.rst lists it
 * @apply: the rule: an outcome, CB_NEXT or CB_FAILED
 * @why: the why column of the points it decides: a sentence, "" for none,
 *	or NULL when @apply sets it (the statistics' own reason)
 */
struct cb_rule {
	const char *name;
	int (*apply)(const struct cb_judging *j);
	const char *why;
};

/* Too few repeats, and a record is of one process. */
static int cb_rule_one_process(const struct cb_judging *j)
{
	const struct cb_cmp *c = j->c;
	const struct cb_cmp_point *p = j->p;

	return p->v.change == INFER_INCONCLUSIVE && p->v.why == INFER_WHY_FEW_REPEATS &&
	       (c->base_one || c->new_one) ? CB_OUT_INCONCLUSIVE : CB_NEXT;
}

/* The test could not decide: its own reason. */
static int cb_rule_test_inconclusive(const struct cb_judging *j)
{
	struct cb_cmp_point *p = j->p;

	if (p->v.change != INFER_INCONCLUSIVE)
		return CB_NEXT;
	p->why = infer_why_name(p->v.why);
	return CB_OUT_INCONCLUSIVE;
}

/* A native point of records with controls: its class, and its change net of their drift. */
static int cb_rule_net(const struct cb_judging *j)
{
	struct cb_cmp *c = j->c;
	struct cb_cmp_point *p = j->p;
	const struct infer_params *par = j->par;
	struct cb_error *e = j->e;
	int err;

	if (p->control || c->no_controls)
		return CB_NEXT;
	p->cls = cb_class_of(c, &p->key);
	if (p->cls >= 0) {
		err = infer_net(p->v.ratio, p->log_se, &c->cls[p->cls].d, par, &p->net);
		if (err) {
			cb_infer_fail(p, err, e);
			return CB_FAILED;
		}
		p->has_net = 1;
	}
	return CB_NEXT;
}

/* The same point, decided on the levels where they are the better (cb_levels_decide()). */
static int cb_rule_levels(const struct cb_judging *j)
{
	struct cb_cmp *c = j->c;
	struct cb_cmp_point *p = j->p;
	const struct infer_params *par = j->par;

	if (!p->control && !c->no_controls && cb_levels_decide(c, p, par))
		cb_decide_on_levels(p, par);
	return CB_NEXT;
}

/*
 * Processes that disagree beyond the threshold: a change is reported
 * only when it lies beyond every placement seen.
 *
 * Paired: the processes, each at a placement of its own, are what the
 * test counts, and its control shared every state of its process: the
 * placement rule has nothing left to explain (compare.rst).
 */
static int cb_rule_placement(const struct cb_judging *j)
{
	const struct cb_cmp_point *p = j->p;

	if (!p->paired && p->has_pl && p->pl.sensitive &&
	    !(p->v.change == INFER_REGRESSED && p->pl.beyond > 0) &&
	    !(p->v.change == INFER_IMPROVED && p->pl.beyond < 0))
		return CB_OUT_PLACEMENT;
	return CB_NEXT;
}

/*
 * A paired change that native's own fast level denies (it went the other
 * way, or stayed, and its interval leaves the change out) is its
 * reference's (Documentation/compare.rst, "The cases behind the rules").
 */
static int cb_rule_reference_moved(const struct cb_judging *j)
{
	const struct cb_cmp *c = j->c;
	const struct cb_cmp_point *p = j->p;
	const struct infer_params *par = j->par;

	if (p->control || !(c->no_controls || p->paired))
		return CB_NEXT;
	return cb_own_denies(p, cb_from_change(p->v.change), par) ? CB_OUT_MACHINE : CB_NEXT;
}

/*
 * A control, records without controls, or a paired point: its own
 * verdict. Paired: decided on its ratio to its reference, which shared
 * every state of its process; the controls' drift is what that ratio has
 * already cancelled, and taken again it adds the other controls' scatter
 * (Documentation/compare.rst, "The cases behind the rules").
 * The net figure is still shown, and controls that moved together,
 * significantly, still say the machine moved.
 */
static int cb_rule_own_verdict(const struct cb_judging *j)
{
	const struct cb_cmp *c = j->c;
	const struct cb_cmp_point *p = j->p;

	if (p->control || c->no_controls || p->paired)
		return cb_from_change(p->v.change);
	return CB_NEXT;
}

/* The rules below are of a native point without pairs, netted by its class's controls. */
static int cb_rule_no_class(const struct cb_judging *j)
{
	const struct cb_cmp_point *p = j->p;

	return p->cls < 0 ? CB_OUT_INCONCLUSIVE : CB_NEXT;
}

static int cb_rule_unchanged(const struct cb_judging *j)
{
	const struct cb_cmp_point *p = j->p;

	return p->v.change == INFER_UNCHANGED ? CB_OUT_UNCHANGED : CB_NEXT;
}

static int cb_rule_net_inconclusive(const struct cb_judging *j)
{
	struct cb_cmp_point *p = j->p;

	if (p->net.change != INFER_INCONCLUSIVE)
		return CB_NEXT;
	p->why = infer_why_name(p->net.why);
	return CB_OUT_INCONCLUSIVE;
}

/* A kernel change: its own verdict a change, and its net verdict the same. */
static int cb_rule_net_agrees(const struct cb_judging *j)
{
	const struct cb_cmp_point *p = j->p;

	if (p->net.change != p->v.change)
		return CB_NEXT;
	return cb_from_change(p->v.change);
}

/* The drift explains the change, or the machine moved further: machine-like. */
static int cb_rule_drift_explains(const struct cb_judging *j)
{
	const struct cb_cmp_point *p = j->p;
	const struct infer_params *par = j->par;

	if (fabs(p->net.net - 1) <= par->threshold || p->net.distinct)
		return CB_OUT_MACHINE;
	return CB_NEXT;
}

static int cb_rule_controls_scatter(const struct cb_judging *j)
{
	(void)j;
	return CB_OUT_INCONCLUSIVE;
}

/* The decision, in the order it applies: the last rule decides every point. */
static const struct cb_rule cb_rules[] = {
	{ "one-process", cb_rule_one_process,
	  "a record of one process: its repeats share one placement, and compare counts processes",
	},
	{ "test-inconclusive", cb_rule_test_inconclusive, NULL },
	{ "net", cb_rule_net, "" },
	{ "levels", cb_rule_levels, "" },
	{ "placement", cb_rule_placement,
	  "the processes disagree beyond the threshold, and the change lies within what placement explains",
	},
	{ "reference-moved", cb_rule_reference_moved,
	  "its reference moved: native's own fast level did not",
	},
	{ "own-verdict", cb_rule_own_verdict, "" },
	{ "no-class", cb_rule_no_class, "no control point in its size class" },
	{ "unchanged", cb_rule_unchanged, "" },
	{ "net-inconclusive", cb_rule_net_inconclusive, NULL },
	{ "net-agrees", cb_rule_net_agrees, "" },
	{ "drift-explains", cb_rule_drift_explains, "" },
	{ "controls-scatter", cb_rule_controls_scatter,
	  "the controls scatter too much to tell the kernel from the machine",
	},
};

/* p's outcome and why: the first rule of cb_rules[] that decides it. */
static int cb_outcome(struct cb_cmp *c, struct cb_cmp_point *p,
		      const struct infer_params *par, struct cb_error *e)
{
	const struct cb_judging j = { .c = c, .p = p, .par = par, .e = e };
	const struct cb_rule *r;
	int out = CB_NEXT;

	p->why = "";
	for (r = cb_rules; r < cb_rules + ARRAY_SIZE(cb_rules) && out == CB_NEXT; r++)
		out = r->apply(&j);
	if (out == CB_FAILED)
		return -1;
	p->out = (enum cb_outcome)out;
	if (r[-1].why)
		p->why = r[-1].why;
	return 0;
}

static double cb_point_change(const struct cb_cmp_point *p)
{
	return p->has_net ? p->net.net : p->v.ratio;
}

static void cb_tally(struct cb_cmp *c)
{
	struct cb_cmp_point *p;
	size_t i;

	c->worst = -1;
	for (i = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (p->control)
			continue;
		c->natives++;
		c->unpaired += !p->paired;
		c->on_levels += p->on_levels;
		c->count[p->out]++;
		if (p->out == CB_OUT_PLACEMENT && p->v.change == INFER_REGRESSED)
			c->undecided++;
		if (p->out == CB_OUT_REGRESSED &&
		    (c->worst < 0 || cb_point_change(p) > cb_point_change(&c->pts[c->worst])))
			c->worst = (long)i;
	}
	if (c->moved)
		c->status = CB_EXIT_INCONCLUSIVE;
	else if (c->count[CB_OUT_REGRESSED])
		c->status = CB_EXIT_REGRESSION;
	else if (c->count[CB_OUT_INCONCLUSIVE] || c->undecided || c->nonly_base || c->nonly_new)
		c->status = CB_EXIT_INCONCLUSIVE;
	else
		c->status = CB_EXIT_OK;
}

/*
 * Which of BASE's nb points bs --points selects: a malloc()ed flag per
 * point, or NULL with e set when it selects none.
 */
static char *cb_select_points(const struct cb_record *base, const struct cb_cmp_opts *o,
			      struct cb_pointset *bs, size_t nb, struct cb_error *e)
{
	struct cb_str names = { 0 };
	char *bsel = cb_calloc(nb, 1);
	size_t i;

	memset(bsel, 1, nb);
	if (!o->points || cb_patterns_select(o->points, bs, nb, bsel))
		return bsel;
	for (i = 0; i < nb && i < 8; i++) {
		cb_str_add(&names, i ? ", " : "");
		cb_key_name(&bs[i].key, &names);
	}
	cb_fail(e, CB_EXIT_USAGE, "invalid --points: no point of %s matches (its points: %s%s)",
		base->path, names.s, nb > 8 ? ", ..." : "");
	cb_str_free(&names);
	free(bsel);
	return NULL;
}

/* The matched points' controls and outcomes, then their tally. */
static int cb_outcomes(struct cb_cmp *c, const struct infer_params *par, struct cb_error *e)
{
	size_t i;

	c->no_controls = 1;
	for (i = 0; i < c->npts; i++)
		c->no_controls &= !c->pts[i].control;
	if (cb_controls(c, par, e))
		return -1;
	for (i = 0; i < c->npts; i++)
		if (cb_outcome(c, &c->pts[i], par, e))
			return -1;
	cb_tally(c);
	return 0;
}

int cb_compare(const struct cb_record *base, const struct cb_record *new,
	       const struct cb_cmp_opts *o, struct cb_cmp *c, struct cb_error *e)
{
	struct cb_pointset *bs = NULL, *ns = NULL;
	size_t nb = 0, nn = 0;
	char *bsel = NULL;

	memset(c, 0, sizeof(*c));
	c->base = base;
	c->new = new;
	c->median = o->median >= 0 ? o->median : !strcmp(base->header.estimator, "median");
	c->core = o->core;
	if (infer_params_check(&o->par)) {
		cb_fail(e, CB_EXIT_USAGE, "invalid statistics parameters");
		goto fail;
	}
	c->blocking = cb_headers_diff(&base->header_json, &new->header_json, &c->diffs,
				      &c->ndiffs);
	if (c->blocking && !o->force) {
		cb_headers_refuse(base->path, new->path, c->diffs, c->ndiffs, e);
		goto fail;
	}
	c->base_one = cb_record_one_process(base);
	c->new_one = cb_record_one_process(new);
	c->figure = o->figure;
	if (cb_points_group(base, c->median, c->core, o->figure, &bs, &nb, e) ||
	    cb_points_group(new, c->median, c->core, o->figure, &ns, &nn, e))
		goto fail;
	bsel = cb_select_points(base, o, bs, nb, e);
	if (!bsel || cb_match(c, bs, nb, ns, nn, o->points, bsel, &o->par, e) ||
	    cb_outcomes(c, &o->par, e))
		goto fail;
	cb_points_free(bs, nb);
	cb_points_free(ns, nn);
	free(bsel);
	return 0;
fail:
	cb_points_free(bs, nb);
	cb_points_free(ns, nn);
	free(bsel);
	cb_compare_free(c);
	return -1;
}

void cb_compare_free(struct cb_cmp *c)
{
	size_t i;

	cb_headers_free(c->diffs, c->ndiffs);
	for (i = 0; i < c->npts; i++) {
		free(c->pts[i].name);
		free(c->pts[i].procs.lf[0]);
		free(c->pts[i].procs.lf[1]);
		free(c->pts[i].procs.pid[0]);
		free(c->pts[i].procs.pid[1]);
	}
	free(c->pts);
	for (i = 0; i < c->ncls; i++)
		free(c->cls[i].ratios);
	free(c->cls);
	for (i = 0; i < c->nonly_base; i++)
		free(c->only_base[i]);
	free(c->only_base);
	for (i = 0; i < c->nonly_new; i++)
		free(c->only_new[i]);
	free(c->only_new);
	memset(c, 0, sizeof(*c));
}
