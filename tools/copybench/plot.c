// SPDX-License-Identifier: GPL-2.0
/*
 * plot.c - "copybench plot REC... -o FILE.svg|png": clocks per copy
 * against size (log x; alias records: against dst - src), one line per
 * variant x direction (x cache, offsets) x record, error bars from the
 * repeats (their min and max around their median); --plateau draws the
 * plateau ranges instead of the lines. gnuplot draws it; the data
 * (FILE.dat) and the script (FILE.gp) are left beside the image so a
 * person can restyle it ("cd DIR; gnuplot FILE.gp").
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "builtin.h"
#include "gnuplot.h"
#include "lib/cb_options.h"
#include "plateau.h"
#include "record.h"
#include "stats.h"


static const char cb_plot_usage[] =
	"Usage: copybench plot RECORD... -o FILE.svg|FILE.png [OPTIONS]\n"
	"\n"
	"Clocks per copy against size (log-log), one line per variant x direction x\n"
	"record, error bars from the repeats. Writes FILE.dat and FILE.gp beside the\n"
	"image: edit FILE.gp and run 'gnuplot FILE.gp' in its directory to restyle.\n"
	"Needs gnuplot (Debian gnuplot-nox). Alias records plot against dst - src.\n"
	"\n"
	"Exit status: 0 written, 1 gnuplot failed, 2 bad option or record (nothing\n"
	"is written then).\n"
	"\n"
	"Options:\n";

struct cb_plot {
	const char *output, *estimator;
	double tolerance;
	int plateau, help, core_clocks;
};


static const struct cb_option cb_plot_options[] = {
	CB_OPT_STRING("output", 'o', struct cb_plot, output, "FILE",
		      "the image: .svg or .png (required)"),
	CB_OPT_FLAG("plateau", 0, struct cb_plot, plateau,
		    "draw each line's plateau ranges (equal cost\n"
		    "within the repeats' spread) as steps"),
	CB_OPT_NAME("estimator", struct cb_plot, estimator, cb_estimator_names, "E",
		    "cycles_min or cycles_median (default: the\n"
		    "records' own)"),
	CB_OPT_CHOICE("clock", struct cb_plot, core_clocks, cb_clock_names, "C",
		      "tsc (default) or core: TSC cycles x clock_ratio"),
	CB_OPT_DOUBLE("tolerance", struct cb_plot, tolerance, 0, CB_TOLERANCE_MAX, 0, 1.0 / 100,
		      "a percentage", "PCT", "PCT",
			"plateau: least difference that splits a range,\n"
			"percent (default 1, 0..100)"),
	CB_OPT_FLAG("help", 'h', struct cb_plot, help, "this help"),
	CB_OPT_END(),
};

/* One point of a series: the repeats of one x. */
struct cb_xy {
	double x;
	double *y;
	size_t n;
};

struct cb_series {
	char *title;
	const struct cb_record_point *key;	/* its first point */
	struct cb_xy *xy;
	size_t n;
};

static void cb_plot_series_free(struct cb_series *s, size_t ns)
{
	size_t k, i;

	for (k = 0; k < ns; k++) {
		for (i = 0; i < s[k].n; i++)
			free(s[k].xy[i].y);
		free(s[k].xy);
		free(s[k].title);
	}
	free(s);
}

static int cb_same_series(const struct cb_record_point *a, const struct cb_record_point *b,
			  int alias)
{
	return !strcmp(a->direction, b->direction) && !strcmp(a->variant, b->variant) &&
	       !strcmp(a->cache, b->cache) &&
	       (alias ? a->size == b->size :
		a->src_offset == b->src_offset && a->dst_offset == b->dst_offset);
}

static double cb_plot_x(const struct cb_record_point *p, int alias)
{
	return alias ? (double)p->dst_offset - (double)p->src_offset : (double)p->size;
}

static void cb_series_add(struct cb_series *s, double x, double y)
{
	size_t i;

	for (i = 0; i < s->n && s->xy[i].x != x; i++)
		;
	if (i == s->n) {
		s->xy = cb_realloc(s->xy, s->n + 1, sizeof(*s->xy));
		memset(&s->xy[s->n], 0, sizeof(s->xy[0]));
		s->xy[s->n++].x = x;
	}
	s->xy[i].y = cb_realloc(s->xy[i].y, s->xy[i].n + 1, sizeof(double));
	s->xy[i].y[s->xy[i].n++] = y;
}

static int cb_cmp_xy(const void *a, const void *b)
{
	double x = ((const struct cb_xy *)a)->x, y = ((const struct cb_xy *)b)->x;

	return x < y ? -1 : x > y;
}

/*
 * The series of every record; random-size points are left out. NULL with e
 * set when --clock core meets a point without clock_ratio.
 */
static struct cb_series *cb_plot_series(const struct cb_record *recs, size_t nrec, int alias,
					const struct cb_plot *o, size_t *ns, struct cb_error *e)
{
	struct cb_series *s = NULL;
	const struct cb_record_point *p;
	const char *est;
	struct cb_str t = { 0 };
	size_t r, i, k, first;
	char *base;
	double y;

	*ns = 0;
	for (r = 0; r < nrec; r++) {
		est = o->estimator ? o->estimator : recs[r].header.estimator;
		first = *ns;
		for (i = 0; i < recs[r].npoints; i++) {
			p = &recs[r].points[i];
			if (CB_POINT_HAS(p, size_max))
				continue;
			for (k = first; k < *ns && !cb_same_series(s[k].key, p, alias); k++)
				;
			if (k == *ns) {
				s = cb_realloc(s, *ns + 1, sizeof(*s));
				memset(&s[k], 0, sizeof(s[k]));
				s[k].key = p;
				t.len = 0;
				cb_str_printf(&t, "%s %s", p->variant, p->direction);
				if (strcmp(p->cache, "hot"))
					cb_str_printf(&t, " %s", p->cache);
				if (alias)
					cb_str_printf(&t, " %llu B", p->size);
				else if (p->src_offset || p->dst_offset)
					cb_str_printf(&t, " +%llu/+%llu", p->src_offset,
						      p->dst_offset);
				if (nrec > 1) {
					base = cb_strdup(recs[r].path);
					cb_str_printf(&t, " (%s)", basename(base));
					free(base);
				}
				s[k].title = cb_strdup(t.s);
				(*ns)++;
			}
			y = strcmp(est, "median") ? p->cycles_min : p->cycles_median;
			if (o->core_clocks && !CB_POINT_HAS(p, clock_ratio)) {
				cb_fail(e, CB_EXIT_USAGE,
					"%s:%lu: --clock core needs clock_ratio, which this point lacks",
					recs[r].path, p->line);
				cb_str_free(&t);
				cb_plot_series_free(s, *ns);
				return NULL;
			}
			cb_series_add(&s[k], cb_plot_x(p, alias),
				      o->core_clocks ? y * p->clock_ratio : y);
		}
	}
	for (k = 0; k < *ns; k++)
		qsort(s[k].xy, s[k].n, sizeof(*s[k].xy), cb_cmp_xy);
	cb_str_free(&t);
	return s;
}

/* The data file: one block per series (gnuplot "index"). */
static void cb_plot_data(FILE *f, struct cb_series *s, size_t ns, const struct cb_plot *o)
{
	struct cb_plateau_point *pp;
	struct cb_plateau *pl;
	size_t k, i, nr;
	double med;

	for (k = 0; k < ns; k++) {
		cb_gp_comment(f, k ? "\n\n# " : "# ", s[k].title);
		pp = cb_calloc(s[k].n, sizeof(*pp));
		for (i = 0; i < s[k].n; i++) {
			cb_stats_sort(s[k].xy[i].y, s[k].xy[i].n);
			med = cb_stats_median(s[k].xy[i].y, s[k].xy[i].n);
			pp[i].x = s[k].xy[i].x;
			pp[i].cost = med;
			pp[i].noise = cb_plateau_noise(s[k].xy[i].y, s[k].xy[i].n, 0);
			if (!o->plateau)
				fprintf(f, "%.0f %.4f %.4f %.4f\n", s[k].xy[i].x, med,
					s[k].xy[i].y[0], s[k].xy[i].y[s[k].xy[i].n - 1]);
		}
		if (o->plateau) {
			/* Each range a horizontal step from its first x to its last. */
			pl = cb_calloc(s[k].n, sizeof(*pl));
			nr = cb_plateau_merge(pp, s[k].n, o->tolerance, pl);
			for (i = 0; i < nr; i++)
				fprintf(f, "%.0f %.4f\n%.0f %.4f\n", pl[i].x_lo, pl[i].cost,
					pl[i].x_hi, pl[i].cost);
			free(pl);
		}
		free(pp);
	}
}

static void cb_plot_script(FILE *f, struct cb_series *s, size_t ns, int alias,
			   const struct cb_plot *o, const char *est)
{
	struct cb_str q = { 0 };
	size_t k;

	fprintf(f, "set title \"copybench: %s clocks per copy (%s of the samples, baseline subtracted)\" noenhanced\n",
		o->core_clocks ? "core" : "TSC", strcmp(est, "median") ? "min" : "median");
	if (alias) {
		fprintf(f, "set xlabel \"dst - src, bytes (mod 4096)\"\n");
	} else {
		fprintf(f, "set logscale x 2\nset format x \"%%.0b%%B\"\n");
		fprintf(f, "set xlabel \"bytes per copy\"\n");
	}
	fprintf(f, "set logscale y 10\n");
	fprintf(f, "set ylabel \"%s clocks per copy\"\n", o->core_clocks ? "core" : "TSC");
	fprintf(f, "set grid\nset key outside right top noenhanced\n");
	fprintf(f, "plot \\\n");
	for (k = 0; k < ns; k++) {
		q.len = 0;
		cb_gp_str(&q, s[k].title);
		fprintf(f, "  datafile index %zu using %s title %s%s\n", k,
			o->plateau ? "1:2 with lines lw 2" : "1:2:3:4 with yerrorlines", q.s,
			k + 1 < ns ? ", \\" : "");
	}
	cb_str_free(&q);
}

/* What cb_gnuplot_write() hands back. */
struct cb_plot_ctx {
	const struct cb_plot *o;
	struct cb_series *s;
	size_t ns;
	int alias;
	const char *est;
};

static void cb_plot_data_cb(FILE *f, void *ctx)
{
	struct cb_plot_ctx *c = ctx;

	cb_plot_data(f, c->s, c->ns, c->o);
}

static void cb_plot_script_cb(FILE *f, void *ctx)
{
	struct cb_plot_ctx *c = ctx;

	cb_plot_script(f, c->s, c->ns, c->alias, c->o, c->est);
}

static int cb_plot_write(const struct cb_plot *o, struct cb_record *recs, size_t nrec,
			 struct cb_error *e)
{
	struct cb_plot_ctx c = { .o = o };
	struct cb_gp_writer w = { cb_plot_data_cb, cb_plot_script_cb, &c };
	size_t k;
	int ret = -1;

	if (!o->output)
		return cb_fail(e, CB_EXIT_USAGE, "invalid -o '' (accepted: FILE.svg or FILE.png)");
	c.alias = !strcmp(recs[0].header.subcommand, "alias");
	for (k = 1; k < nrec; k++)
		if ((strcmp(recs[k].header.subcommand, "alias") == 0) != c.alias)
			return cb_fail(e, CB_EXIT_USAGE,
				       "%s is a %s record and %s a %s one: plot them apart",
				       recs[0].path, recs[0].header.subcommand, recs[k].path,
				       recs[k].header.subcommand);
	c.s = cb_plot_series(recs, nrec, c.alias, o, &c.ns, e);
	if (!c.s && e->msg[0])
		goto out;
	if (!c.ns) {
		cb_fail(e, CB_EXIT_USAGE, "nothing to plot: the records hold random sizes only");
		goto out;
	}
	c.est = o->estimator ? o->estimator : recs[0].header.estimator;
	ret = cb_gnuplot_write(o->output, &w, e);
out:
	cb_plot_series_free(c.s, c.ns);
	return ret;
}

int cmd_plot(int argc, char **argv)
{
	const struct cb_option *const tables[] = { cb_plot_options, NULL };
	struct cb_plot o = { .tolerance = 0.01 };
	struct cb_error e = { 0 };
	struct cb_record *recs;
	int first, i, n, status = CB_EXIT_OK;

	first = cb_options_parse(argc, argv, tables, &o, NULL, &e);
	if (first < 0)
		return cb_report(&e);
	if (o.help) {
		fputs(cb_plot_usage, stdout);
		cb_options_help(stdout, tables, CB_HELP_BESIDE);
		return CB_EXIT_OK;
	}
	if (first >= argc) {
		cb_fail(&e, CB_EXIT_USAGE, "no record given (usage: copybench plot RECORD... -o FILE.svg)");
		return cb_report(&e);
	}
	if (!o.output) {
		cb_fail(&e, CB_EXIT_USAGE, "-o FILE.svg or -o FILE.png is required");
		return cb_report(&e);
	}
	n = argc - first;
	recs = cb_calloc((size_t)n, sizeof(*recs));
	for (i = 0; i < n; i++) {
		if (cb_record_read(argv[first + i], &recs[i], &e)) {
			status = cb_report(&e);
			break;
		}
	}
	if (!status && cb_plot_write(&o, recs, (size_t)n, &e))
		status = cb_report(&e);
	for (i = 0; i < n; i++)
		cb_record_free(&recs[i]);
	free(recs);
	return status;
}
