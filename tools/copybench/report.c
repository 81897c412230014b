// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - the human output of sweep and alias: a table per direction x
 * variant (x cache, offsets or size), or its plateaus (report.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "plateau.h"
#include "report.h"
#include "stats.h"

/*
 * What tables and plateaus show of r, in the clock asked (TSC cycles, or
 * core clocks: TSC cycles x clock_ratio; cb_scale() is the factor): its
 * time per call as timed (the estimator's: fastest or median sample), its
 * latency, and how far each may move when measured again (for the
 * plateau merge, and whether a figure net of the loop is resolvable).
 */
static double cb_scale(const struct cb_job *run, const struct cb_result *r)
{
	return run->core_clocks ? r->clock_ratio : 1;
}

static double cb_estimate_noise(const struct cb_job *run, const struct cb_result *r)
{
	unsigned long long kept = r->samples - r->discarded;

	if (run->estimator == CB_EST_MEDIAN)
		/* The standard error of a median of kept normal samples. */
		return kept ? cb_scale(run, r) * 1.2533 * r->stddev / sqrt((double)kept) : 0;
	/*
	 * How far apart the fastest samples lie: where a min may land when run
	 * again. A low quantile, so samples slowed by the machine (the upper
	 * tail, however heavy) do not count.
	 */
	return isfinite(r->q02) && r->q02 > r->min ? cb_scale(run, r) * (r->q02 - r->min) : 0;
}

/* The same of the latency: its fastest samples' jitter (the median's: none known). */
static double cb_latency_noise(const struct cb_job *run, const struct cb_result *r)
{
	if (run->estimator == CB_EST_MEDIAN || !isfinite(r->lat_q02))
		return 0;
	return cb_scale(run, r) * (r->lat_q02 - r->lat_min);
}

/* The x of a row: the size (sweep) or dst - src (alias). */
static long long cb_x(const struct cb_job *run, const struct cb_point *p)
{
	if (run->mode == CB_MODE_ALIAS)
		return (long long)p->dst_offset - (long long)p->src_offset;
	return (long long)p->size.lo;
}

static int cb_cmp3(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

/* Table order: group (cache, direction, variant, offsets or size), x, repeat. */
static const struct cb_job *cb_sort_run;
static const struct cb_measured *cb_sort_m;

static int cb_cmp_group(const struct cb_point *a, const struct cb_point *b)
{
	int c = cb_cmp3(a->cache, b->cache);

	c = c ? c : cb_cmp3(a->dir, b->dir);
	c = c ? c : cb_cmp3(a->label, b->label);
	if (cb_sort_run->mode == CB_MODE_ALIAS)
		return c ? c : cb_cmp3(a->size.lo, b->size.lo);
	c = c ? c : cb_cmp3(a->src_offset, b->src_offset);
	return c ? c : cb_cmp3(a->dst_offset, b->dst_offset);
}

static int cb_cmp_row(const struct cb_point *a, const struct cb_point *b)
{
	long long xa = cb_x(cb_sort_run, a), xb = cb_x(cb_sort_run, b);
	int c = cb_cmp_group(a, b);

	c = c ? c : cb_cmp3((unsigned long long)a->size.random, (unsigned long long)b->size.random);
	c = c ? c : (xa < xb ? -1 : xa > xb);
	return c ? c : cb_cmp3(a->size.hi, b->size.hi);
}

static int cb_cmp_idx(const void *pa, const void *pb)
{
	const struct cb_point *a = &cb_sort_m[*(const size_t *)pa].p;
	const struct cb_point *b = &cb_sort_m[*(const size_t *)pb].p;
	int c = cb_cmp_row(a, b);

	return c ? c : cb_cmp3(a->repeat, b->repeat);
}

/*
 * One row: the repeats of a point, summarised, each figure the median over
 * them: call (time per call as timed), loop (the baseline), lat and chain
 * (the latency and the chain's own, NAN when not measured); tsc, call in
 * TSC cycles (for ns); noise, call's and lat_noise, lat's (plateau.h).
 */
struct cb_row {
	const struct cb_measured *first;
	double call, loop, lat, chain, spread, noise, lat_noise, jitter, size_mean;
	double tsc;
	unsigned long long discarded;
	size_t repeats;
	int verified, truncated;
};

/* The median of v[0..n) (sorted here), NAN when some value is NAN. */
static double cb_row_median(double *v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (isnan(v[k]))
			return NAN;
	cb_stats_sort(v, n);
	return cb_stats_median(v, n);
}

/* Summarises m[idx[i]] for i in [i, j) (the repeats of one point). */
static void cb_row(const struct cb_job *run, const struct cb_measured *m, const size_t *idx,
		   size_t i, size_t j, struct cb_row *row)
{
	enum { CALL, LOOP, LAT, CHAIN, NOISE, LNOISE, TSC, NFIG };
	int median = run->estimator == CB_EST_MEDIAN;
	size_t k, f, n = j - i;
	double *v[NFIG];

	for (f = 0; f < NFIG; f++)
		v[f] = cb_calloc(n, sizeof(double));
	memset(row, 0, sizeof(*row));
	row->first = &m[idx[i]];
	row->verified = 1;
	row->size_mean = m[idx[i]].r.size_mean;
	for (k = 0; k < n; k++) {
		const struct cb_result *r = &m[idx[i + k]].r;
		double sc = cb_scale(run, r);

		v[TSC][k] = cb_result_call(r, median);
		v[CALL][k] = sc * v[TSC][k];
		v[LOOP][k] = sc * r->baseline;
		v[LAT][k] = sc * cb_result_latency(r, median);
		v[CHAIN][k] = sc * r->lat_chain;
		v[NOISE][k] = cb_estimate_noise(run, r);
		v[LNOISE][k] = cb_latency_noise(run, r);
		row->discarded += r->discarded;
		row->verified &= r->verified;
		row->truncated |= r->truncated;
	}
	row->repeats = n;
	row->spread = n > 1 ? cb_stats_spread(v[CALL], n) : NAN;
	row->call = cb_row_median(v[CALL], n);
	row->tsc = cb_row_median(v[TSC], n);
	row->loop = cb_row_median(v[LOOP], n);
	row->lat = cb_row_median(v[LAT], n);
	row->chain = cb_row_median(v[CHAIN], n);
	row->jitter = cb_row_median(v[NOISE], n);
	row->noise = cb_plateau_noise(v[CALL], n, row->jitter);
	row->lat_noise = isnan(row->lat) ? 0 : cb_plateau_noise(v[LAT], n, cb_row_median(v[LNOISE], n));
	for (f = 0; f < NFIG; f++)
		free(v[f]);
}

/* A figure, or "-" when not measured, in a column of width w. */
static const char *cb_fig(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static size_t *cb_sorted(const struct cb_job *run, const struct cb_measured *m, size_t n)
{
	size_t *idx = cb_calloc(n, sizeof(*idx)), i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	cb_sort_run = run;
	cb_sort_m = m;
	qsort(idx, n, sizeof(*idx), cb_cmp_idx);
	return idx;
}

static void cb_group_title(FILE *f, const struct cb_job *run, const struct cb_backend *b,
			   const struct cb_point *p, const char *what)
{
	char sz[64];

	fprintf(f, "# %s %s, cache %s", cbfs_directions[p->dir], cb_point_label(b->variants, p),
		cbfs_caches[p->cache]);
	if (run->mode == CB_MODE_ALIAS)
		fprintf(f, ", size %s, x = dst - src (mod 4096)", cb_size_name(&p->size, sz, sizeof(sz)));
	else
		fprintf(f, ", src_offset %u, dst_offset %u", p->src_offset, p->dst_offset);
	fprintf(f, "%s%s\n", *what ? ": " : "", what);
}

static const char *cb_xname(const struct cb_job *run, const struct cb_point *p, char *buf,
			    size_t len)
{
	if (run->mode == CB_MODE_ALIAS)
		snprintf(buf, len, "%lld", cb_x(run, p));
	else
		cb_size_name(&p->size, buf, len);
	return buf;
}

void cb_report_tables(FILE *f, const struct cb_job *run, const struct cb_backend *b,
		      const struct cb_measured *m, size_t n)
{
	size_t *idx = cb_sorted(run, m, n), i, j;
	char x[64], spread[16], net[16], lat[16], chain[16];
	struct cb_str pl = { 0 };
	struct cb_row row;
	double ns;

	cb_placement_name(&run->placement, &pl);
	fprintf(f, "# copybench %s, backend %s, TSC %llu kHz: %s clocks per copy, the %s of %lu samples: per call as timed back to back, the loop included; loop, an empty copy's; net, per call less loop where the copy and not the loop makes it (else hidden: the core runs the copy in the loop's shadow); latency, each copy's source taken from the bytes the one before it wrote, and chain, the same around the cheapest copy; ns and GB/s of per call; %llu repeat(s), each a process (placement %s)\n",
		run->mode == CB_MODE_SWEEP ? "sweep" : "alias", b->ops->name, b->tsc_khz,
		run->core_clocks ? "core" : "TSC", run->estimator == CB_EST_MEDIAN ? "median" : "min",
		run->set.samples, run->repeat, pl.s);
	cb_str_free(&pl);
	for (i = 0; i < n; i = j) {
		if (!i || cb_cmp_group(&m[idx[i - 1]].p, &m[idx[i]].p)) {
			fprintf(f, "\n");
			cb_group_title(f, run, b, &m[idx[i]].p, "");
			fprintf(f, "# %14s %10s %8s %10s %10s %8s %11s %8s %7s %9s %s\n",
				run->mode == CB_MODE_ALIAS ? "dst-src" : "size", "per call",
				"loop", "net", "latency", "chain", "ns", "GB/s", "spread",
				"discarded", "verified");
		}
		for (j = i + 1; j < n && !cb_cmp_row(&m[idx[i]].p, &m[idx[j]].p); j++)
			;
		cb_row(run, m, idx, i, j, &row);
		ns = b->tsc_khz ? row.tsc * 1e6 / (double)b->tsc_khz : 0;
		if (isnan(row.spread))
			snprintf(spread, sizeof(spread), "-");
		else
			snprintf(spread, sizeof(spread), "%.1f%%", row.spread * 100);
		if (cb_net_resolvable(row.call, row.loop, row.jitter))
			snprintf(net, sizeof(net), "%.2f", row.call - row.loop);
		else
			snprintf(net, sizeof(net), "hidden");
		fprintf(f, "%16s %10.2f %8.2f %10s %10s %8s %11.2f %8.2f %7s %9llu %s%s\n",
			cb_xname(run, &row.first->p, x, sizeof(x)), row.call, row.loop, net,
			cb_fig(lat, sizeof(lat), row.lat), cb_fig(chain, sizeof(chain), row.chain),
			ns, ns > 0 ? row.size_mean / ns : 0, spread, row.discarded,
			row.verified ? "yes" : "NO", row.truncated ? " (truncated)" : "");
	}
	free(idx);
}

static void cb_print_plateaus(FILE *f, const struct cb_job *run, const struct cb_plateau_point *pp,
			      size_t n, const char *unit)
{
	struct cb_plateau *pl = cb_calloc(n, sizeof(*pl));
	size_t k, nr = cb_plateau_merge(pp, n, run->tolerance, pl);
	char range[64];

	for (k = 0; k < nr; k++) {
		if (pl[k].x_lo == pl[k].x_hi)
			snprintf(range, sizeof(range), "%.0f", pl[k].x_lo);
		else
			snprintf(range, sizeof(range), run->mode == CB_MODE_ALIAS ? "%.0f..%.0f" :
				 "%.0f-%.0f", pl[k].x_lo, pl[k].x_hi);
		fprintf(f, "%16s %10.2f%s%s\n", range, pl[k].cost, k ? "" : " clocks ",
			k ? "" : unit);
	}
	free(pl);
}

/*
 * The plateaus of one group's rows, of one figure (lat: the latency, else
 * the time per call); a random-size row on a line of its own, off the
 * size axis. Nothing when no row has the figure.
 */
static void cb_group_plateaus(FILE *f, const struct cb_job *run, const struct cb_row *rows,
			      size_t nrows, int lat)
{
	struct cb_plateau_point *pp = cb_calloc(nrows ? nrows : 1, sizeof(*pp));
	const char *unit = lat ? "latency" : "per call";
	size_t k, np = 0, shown = 0;
	char x[64];
	double v;

	for (k = 0; k < nrows; k++) {
		v = lat ? rows[k].lat : rows[k].call;
		if (isnan(v))
			continue;
		if (lat && !shown++)
			fprintf(f, "#   latency: each copy's source from the bytes the one before it wrote\n");
		if (rows[k].first->p.size.random) {
			if (np)
				cb_print_plateaus(f, run, pp, np, unit);
			np = 0;
			fprintf(f, "%16s %10.2f clocks %s\n",
				cb_xname(run, &rows[k].first->p, x, sizeof(x)), v, unit);
			continue;
		}
		pp[np].x = (double)cb_x(run, &rows[k].first->p);
		pp[np].cost = v;
		pp[np].noise = lat ? rows[k].lat_noise : rows[k].noise;
		np++;
	}
	if (np)
		cb_print_plateaus(f, run, pp, np, unit);
	free(pp);
}

void cb_report_plateaus(FILE *f, const struct cb_job *run, const struct cb_backend *b,
			const struct cb_measured *m, size_t n)
{
	struct cb_row *rows = cb_calloc(n ? n : 1, sizeof(*rows));
	size_t *idx = cb_sorted(run, m, n), i, j, nrows = 0;
	char title[200];

	snprintf(title, sizeof(title),
		 "ranges of equal cost in %s clocks per copy, time per call, then latency (%s; equal within the noise, at least %g%% apart)",
		 run->core_clocks ? "core" : "TSC", run->estimator == CB_EST_MEDIAN ? "median" : "min",
		 run->tolerance * 100);
	for (i = 0; i < n; i = j) {
		if (!i || cb_cmp_group(&m[idx[i - 1]].p, &m[idx[i]].p)) {
			cb_group_plateaus(f, run, rows, nrows, 0);
			cb_group_plateaus(f, run, rows, nrows, 1);
			nrows = 0;
			fprintf(f, "%s", i ? "\n" : "");
			cb_group_title(f, run, b, &m[idx[i]].p, title);
		}
		for (j = i + 1; j < n && !cb_cmp_row(&m[idx[i]].p, &m[idx[j]].p); j++)
			;
		cb_row(run, m, idx, i, j, &rows[nrows++]);
	}
	cb_group_plateaus(f, run, rows, nrows, 0);
	cb_group_plateaus(f, run, rows, nrows, 1);
	free(rows);
	free(idx);
}
