// SPDX-License-Identifier: GPL-2.0
/*
 * drift.c - the controls' drift (drift.h): each control point's ratio
 * into its size class, each class's drift over its ratios and, where its
 * controls have pairs, over its processes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "stats.h"

int cb_class_of(const struct cb_cmp *c, const struct cb_key *k)
{
	size_t i;

	for (i = 0; i < c->ncls; i++)
		if (cb_key_same_class(&c->cls[i].key, k))
			return (int)i;
	return -1;
}

static int cb_pid_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Whether p is one of the controls a paired class's drift is taken on. */
static int cb_drift_pair(const struct cb_cmp_point *p, int ci)
{
	return p->control && p->cls == ci && p->paired && isfinite(p->v.ratio) &&
	       p->v.ratio > 0 && p->procs.n[0] && p->procs.n[1];
}

/* Side s's (0 base, 1 new) distinct pids in class ci's drift pairs, sorted. */
static size_t cb_class_pids(const struct cb_cmp *c, int ci, int side, unsigned long long **pids)
{
	const struct cb_cmp_point *p;
	size_t n = 0, np = 0, i;

	*pids = NULL;
	for (i = 0; i < c->npts; i++)
		if (cb_drift_pair(&c->pts[i], ci)) {
			p = &c->pts[i];
			*pids = cb_realloc(*pids, n + p->procs.n[side], sizeof(**pids));
			memcpy(*pids + n, p->procs.pid[side], p->procs.n[side] * sizeof(**pids));
			n += p->procs.n[side];
		}
	if (!n)
		return 0;
	qsort(*pids, n, sizeof(**pids), cb_pid_cmp);
	for (i = 0; i < n; i++)
		if (!np || (*pids)[np - 1] != (*pids)[i])
			(*pids)[np++] = (*pids)[i];
	return np;
}

/*
 * Both sides' process levels in paired class ci (infer_drift_processes()):
 * each process's mean, over the class's paired controls it measured, of
 * its log figure less that point's median over both records' processes.
 * lv[side] is malloc()ed, n[side] levels (0: none, lv[side] NULL).
 */
static void cb_class_levels(const struct cb_cmp *c, int ci, double *lv[2], size_t n[2])
{
	unsigned long long *pids[2], *at;
	size_t *cnt[2], i, k;
	const struct cb_cmp_point *p;
	double *pool, m;
	int s;

	for (s = 0; s < 2; s++) {
		n[s] = cb_class_pids(c, ci, s, &pids[s]);
		lv[s] = n[s] ? cb_calloc(n[s], sizeof(*lv[s])) : NULL;
		cnt[s] = cb_calloc(n[s], sizeof(*cnt[s]));
	}
	for (i = 0; n[0] && n[1] && i < c->npts; i++) {
		if (!cb_drift_pair(&c->pts[i], ci))
			continue;
		p = &c->pts[i];
		pool = cb_calloc(p->procs.n[0] + p->procs.n[1], sizeof(*pool));
		memcpy(pool, p->procs.lf[0], p->procs.n[0] * sizeof(*pool));
		memcpy(pool + p->procs.n[0], p->procs.lf[1], p->procs.n[1] * sizeof(*pool));
		m = cb_stats_median_unsorted(pool, p->procs.n[0] + p->procs.n[1]);
		free(pool);
		for (s = 0; s < 2; s++)
			for (k = 0; k < p->procs.n[s]; k++) {
				at = bsearch(&p->procs.pid[s][k], pids[s], n[s], sizeof(*pids[s]),
					     cb_pid_cmp);
				lv[s][at - pids[s]] += p->procs.lf[s][k] - m;
				cnt[s][at - pids[s]]++;
			}
	}
	for (s = 0; s < 2; s++) {
		for (i = 0; i < n[s]; i++)
			lv[s][i] /= (double)cnt[s][i];
		free(cnt[s]);
		free(pids[s]);
	}
}

/*
 * A paired class's drift over its processes, where they are enough; where
 * they are more than the test takes (records merged from many sweeps:
 * one sweep has at most 1000), the points' test stands too.
 */
static int cb_drift_by_process(struct cb_cmp *c, int ci, const struct infer_params *par)
{
	double *lv[2];
	size_t n[2];
	int err = 0;

	cb_class_levels(c, ci, lv, n);
	if (n[0] && n[1] && n[0] <= INFER_MAX_N && n[1] <= INFER_MAX_N)
		err = infer_drift_processes(lv[0], n[0], lv[1], n[1], par, &c->cls[ci].d);
	free(lv[0]);
	free(lv[1]);
	return err;
}

int cb_controls(struct cb_cmp *c, const struct infer_params *par, struct cb_error *e)
{
	struct cb_cmp_class *k;
	struct cb_cmp_point *p;
	size_t i;
	int ci, err;

	for (i = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (!p->control || !isfinite(p->v.ratio) || !(p->v.ratio > 0))
			continue;
		ci = cb_class_of(c, &p->key);
		if (ci < 0) {
			c->cls = cb_realloc(c->cls, c->ncls + 1, sizeof(*c->cls));
			k = &c->cls[c->ncls];
			memset(k, 0, sizeof(*k));
			k->key = p->key;
			k->band = cb_size_class(&p->key);
			k->size_lo = p->key.size;
			k->size_hi = p->key.size_max;
			ci = (int)c->ncls++;
		}
		k = &c->cls[ci];
		k->ratios = cb_realloc(k->ratios, k->n + 1, sizeof(*k->ratios));
		k->ratios[k->n++] = p->v.ratio;
		k->size_lo = p->key.size < k->size_lo ? p->key.size : k->size_lo;
		k->size_hi = p->key.size_max > k->size_hi ? p->key.size_max : k->size_hi;
		p->cls = ci;
	}
	/*
	 * A class with paired controls takes its drift on the pairs only: the
	 * controls' costs against the native point's paired control in the
	 * same process, which moved with the machine; what is left is what
	 * the pairs did not cancel.
	 */
	for (i = 0; i < c->npts; i++)
		if (c->pts[i].control && c->pts[i].paired && c->pts[i].cls >= 0)
			c->cls[c->pts[i].cls].paired = 1;
	for (i = 0; i < c->ncls; i++)
		c->cls[i].n = 0;
	for (i = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (!p->control || p->cls < 0 || !isfinite(p->v.ratio) || !(p->v.ratio > 0))
			continue;
		k = &c->cls[p->cls];
		if (!k->paired || p->paired)
			k->ratios[k->n++] = p->v.ratio;
	}
	for (i = 0; i < c->ncls; i++) {
		err = infer_drift(c->cls[i].ratios, c->cls[i].n, par, &c->cls[i].d);
		if (!err && c->cls[i].paired)
			err = cb_drift_by_process(c, (int)i, par);
		if (err)
			return cb_fail(e, err == -E2BIG ? CB_EXIT_USAGE : CB_EXIT_RUNTIME,
				       "the drift of %zu control points: %s", c->cls[i].n,
				       err == -E2BIG ? "too many control points in one class" :
				       strerror(-err));
		k = &c->cls[i];
		k->scattered = k->d.enough && !k->d.moved && fabs(k->d.ratio - 1) > par->threshold;
		c->moved |= k->d.moved;
	}
	return 0;
}
