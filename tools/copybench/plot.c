// SPDX-License-Identifier: GPL-2.0
/*
 * plot.c - "copybench plot REC... -o FILE.svg|png": a point's figures
 * against size (log x; alias records: against dst - src), one panel per
 * figure: the time per call as timed (the loop included, the loop itself
 * a grey line beneath) and, where the records have it, the latency. A
 * variant is a colour in both panels and every record, native thick and
 * black; a record is a line style. Error bars from the repeats (their min
 * and max around their median); --plateau draws the plateau ranges
 * instead. gnuplot draws it; the data (FILE.dat) and the script (FILE.gp)
 * are left beside the image so a person can restyle it ("cd DIR; gnuplot
 * FILE.gp").
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "builtin.h"
#include "figures.h"
#include "gnuplot.h"
#include "lib/cb_options.h"
#include "plateau.h"
#include "record.h"
#include "stats.h"


static const char cb_plot_usage[] =
	"Usage: copybench plot RECORD... -o FILE.svg|FILE.png [OPTIONS]\n"
	"\n"
	"Clocks per copy against size (log-log), a panel per figure: the time per\n"
	"call as timed (the loop included; the loop a grey line) and the latency.\n"
	"A colour per variant (native thick, black), a line style per record, error\n"
	"bars from the repeats. Writes FILE.dat and FILE.gp beside the image: edit\n"
	"FILE.gp and run 'gnuplot FILE.gp' in its directory to restyle. Needs\n"
	"gnuplot (Debian gnuplot-nox). Alias records plot against dst - src.\n"
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

/* The figures of a series, each a panel (latency) or a line beneath (loop). */
enum { CB_FIG_CALL, CB_FIG_LAT, CB_FIG_LOOP, CB_FIGS };

/* One point of a series: the repeats of one x, each figure's values. */
struct cb_xy {
	double x;
	double *y[CB_FIGS];
	size_t n[CB_FIGS];
};

/*
 * struct cb_series - one line: a variant, direction, cache and offsets of
 * one record (rec); colour, the variant's among all the records'.
 */
struct cb_series {
	char *title;
	const struct cb_record_point *key;	/* its first point */
	struct cb_xy *xy;
	size_t n, rec;
	unsigned int colour;
	int native;
};

static void cb_plot_series_free(struct cb_series *s, size_t ns)
{
	size_t k, i;
	int f;

	for (k = 0; k < ns; k++) {
		for (i = 0; i < s[k].n; i++)
			for (f = 0; f < CB_FIGS; f++)
				free(s[k].xy[i].y[f]);
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

/* Figure f's value y at x (NAN: the point has no such figure, nothing added). */
static void cb_series_add(struct cb_series *s, double x, int f, double y)
{
	size_t i;

	for (i = 0; i < s->n && s->xy[i].x != x; i++)
		;
	if (i == s->n) {
		s->xy = cb_realloc(s->xy, s->n + 1, sizeof(*s->xy));
		memset(&s->xy[s->n], 0, sizeof(s->xy[0]));
		s->xy[s->n++].x = x;
	}
	if (isnan(y))
		return;
	s->xy[i].y[f] = cb_realloc(s->xy[i].y[f], s->xy[i].n[f] + 1, sizeof(double));
	s->xy[i].y[f][s->xy[i].n[f]++] = y;
}

static int cb_cmp_xy(const void *a, const void *b)
{
	double x = ((const struct cb_xy *)a)->x, y = ((const struct cb_xy *)b)->x;

	return x < y ? -1 : x > y;
}

/* The colour of variant v: its place among the variants seen, names[0..*n). */
static unsigned int cb_variant_colour(const char *v, const char **names, size_t *n)
{
	size_t i;

	for (i = 0; i < *n && strcmp(names[i], v); i++)
		;
	if (i == *n)
		names[(*n)++] = v;
	return (unsigned int)i;
}

/* A new series for point p of record r. */
static void cb_series_new(struct cb_series *s, const struct cb_record *recs, size_t nrec,
			  size_t r, const struct cb_record_point *p, int alias, unsigned int colour)
{
	struct cb_str t = { 0 };
	char *base;

	memset(s, 0, sizeof(*s));
	s->key = p;
	s->rec = r;
	s->colour = colour;
	s->native = !strcmp(p->variant, CB_NATIVE_NAME);
	cb_str_printf(&t, "%s %s", p->variant, p->direction);
	if (strcmp(p->cache, "hot"))
		cb_str_printf(&t, " %s", p->cache);
	if (alias)
		cb_str_printf(&t, " %llu B", p->size);
	else if (p->src_offset || p->dst_offset)
		cb_str_printf(&t, " +%llu/+%llu", p->src_offset, p->dst_offset);
	if (nrec > 1) {
		base = cb_strdup(recs[r].path);
		cb_str_printf(&t, " (%s)", basename(base));
		free(base);
	}
	s->title = cb_strdup(t.s);
	cb_str_free(&t);
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
	const char **names = NULL;
	size_t r, i, k, first, nnames = 0;
	double sc;
	int median;

	*ns = 0;
	for (r = 0; r < nrec; r++) {
		median = !strcmp(o->estimator ? o->estimator : recs[r].header.estimator, "median");
		names = cb_realloc(names, nnames + recs[r].npoints, sizeof(*names));
		first = *ns;
		for (i = 0; i < recs[r].npoints; i++) {
			p = &recs[r].points[i];
			if (CB_POINT_HAS(p, size_max))
				continue;
			if (o->core_clocks && !CB_POINT_HAS(p, clock_ratio)) {
				cb_fail(e, CB_EXIT_USAGE,
					"%s:%lu: --clock core needs clock_ratio, which this point lacks",
					recs[r].path, p->line);
				cb_plot_series_free(s, *ns);
				free(names);
				return NULL;
			}
			for (k = first; k < *ns && !cb_same_series(s[k].key, p, alias); k++)
				;
			if (k == *ns) {
				s = cb_realloc(s, *ns + 1, sizeof(*s));
				cb_series_new(&s[k], recs, nrec, r, p, alias,
					      cb_variant_colour(p->variant, names, &nnames));
				(*ns)++;
			}
			sc = o->core_clocks ? p->clock_ratio : 1;
			cb_series_add(&s[k], cb_plot_x(p, alias), CB_FIG_CALL,
				      sc * cb_point_call(p, median));
			cb_series_add(&s[k], cb_plot_x(p, alias), CB_FIG_LAT,
				      sc * cb_point_latency(p, median));
			cb_series_add(&s[k], cb_plot_x(p, alias), CB_FIG_LOOP,
				      sc * p->baseline_cycles);
		}
	}
	for (k = 0; k < *ns; k++)
		qsort(s[k].xy, s[k].n, sizeof(*s[k].xy), cb_cmp_xy);
	free(names);
	return s;
}

/* Whether any series has figure f. */
static int cb_plot_has(const struct cb_series *s, size_t ns, int f)
{
	size_t k, i;

	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k].n; i++)
			if (s[k].xy[i].n[f])
				return 1;
	return 0;
}

/* Series k's block of figure f: x, median, min, max (plateau: steps x, cost). */
static void cb_plot_block(FILE *f, struct cb_series *s, int fig, const struct cb_plot *o)
{
	struct cb_plateau_point *pp = cb_calloc(s->n ? s->n : 1, sizeof(*pp));
	struct cb_plateau *pl;
	size_t i, np = 0, nr;
	double med, *y;

	for (i = 0; i < s->n; i++) {
		y = s->xy[i].y[fig];
		if (!s->xy[i].n[fig])
			continue;
		cb_stats_sort(y, s->xy[i].n[fig]);
		med = cb_stats_median(y, s->xy[i].n[fig]);
		pp[np].x = s->xy[i].x;
		pp[np].cost = med;
		pp[np].noise = cb_plateau_noise(y, s->xy[i].n[fig], 0);
		np++;
		if (!o->plateau || fig == CB_FIG_LOOP)
			fprintf(f, "%.0f %.4f %.4f %.4f\n", s->xy[i].x, med, y[0],
				y[s->xy[i].n[fig] - 1]);
	}
	if (o->plateau && fig != CB_FIG_LOOP) {
		/* Each range a horizontal step from its first x to its last. */
		pl = cb_calloc(np ? np : 1, sizeof(*pl));
		nr = cb_plateau_merge(pp, np, o->tolerance, pl);
		for (i = 0; i < nr; i++)
			fprintf(f, "%.0f %.4f\n%.0f %.4f\n", pl[i].x_lo, pl[i].cost, pl[i].x_hi,
				pl[i].cost);
		free(pl);
	}
	free(pp);
}

/*
 * The data file: per series, three blocks (gnuplot "index" 3k, 3k + 1,
 * 3k + 2): its time per call, its latency (empty when not measured), its
 * loop.
 */
static void cb_plot_data(FILE *f, struct cb_series *s, size_t ns, const struct cb_plot *o)
{
	static const char *const what[CB_FIGS] = { "time per call", "latency", "loop" };
	size_t k;
	int fig;

	for (k = 0; k < ns; k++)
		for (fig = 0; fig < CB_FIGS; fig++) {
			fprintf(f, "%s# %s: ", k || fig ? "\n\n" : "", what[fig]);
			cb_gp_comment(f, "", s[k].title);
			cb_plot_block(f, &s[k], fig, o);
		}
}

/* The colours of the variants; native is black and thick. */
static const char *const cb_plot_colours[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
};

static void cb_plot_style(FILE *f, const struct cb_series *s)
{
	fprintf(f, "lc rgb \"%s\" dt %zu lw %s", s->native ? "#000000" :
		cb_plot_colours[s->colour % ARRAY_SIZE(cb_plot_colours)],
		s->rec % 5 + 1, s->native ? "3" : "1.5");
}

/* One panel: figure fig of every series that has it (lat: one per series with it). */
static void cb_plot_panel(FILE *f, struct cb_series *s, size_t ns, int fig,
			  const struct cb_plot *o, const char *title)
{
	struct cb_str q = { 0 };
	size_t k, n = 0, i;
	int has;

	fprintf(f, "set title \"%s\" noenhanced\n", title);
	fprintf(f, "plot \\\n");
	for (k = 0; k < ns; k++) {
		for (i = 0, has = 0; i < s[k].n; i++)
			has |= s[k].xy[i].n[fig] > 0;
		if (!has)
			continue;
		q.len = 0;
		cb_gp_str(&q, s[k].title);
		fprintf(f, "%s  datafile index %zu using %s ", n++ ? ", \\\n" : "",
			3 * k + (size_t)fig, o->plateau ? "1:2 with lines" : "1:2:3:4 with yerrorlines");
		cb_plot_style(f, &s[k]);
		fprintf(f, " title %s", q.s);
	}
	/* The time per call's floor: each record's loop, grey, its line style. */
	for (k = 0; fig == CB_FIG_CALL && k < ns; k++)
		if (!k || s[k].rec != s[k - 1].rec)
			fprintf(f, ", \\\n  datafile index %zu using 1:2 with lines lc rgb \"#b0b0b0\" dt %zu lw 2 %s",
				3 * k + CB_FIG_LOOP, s[k].rec % 5 + 1,
				k ? "notitle" : "title 'the loop (an empty copy)'");
	fprintf(f, "\n");
	cb_str_free(&q);
}

static void cb_plot_script(FILE *f, struct cb_series *s, size_t ns, int alias,
			   const struct cb_plot *o, const char *est)
{
	int lat = cb_plot_has(s, ns, CB_FIG_LAT);

	if (alias) {
		fprintf(f, "set xlabel \"dst - src, bytes (mod 4096)\"\n");
	} else {
		fprintf(f, "set logscale x 2\nset format x \"%%.0b%%B\"\n");
		fprintf(f, "set xlabel \"bytes per copy\"\n");
	}
	fprintf(f, "set logscale y 10\n");
	fprintf(f, "set ylabel \"%s clocks per copy\"\n", o->core_clocks ? "core" : "TSC");
	fprintf(f, "set grid\nset key outside right top noenhanced\n");
	fprintf(f, "set multiplot layout %d,1 title \"copybench: %s clocks per copy, the %s of the samples, nothing subtracted; a colour per variant, native black, a line style per record\" noenhanced\n",
		lat ? 2 : 1, o->core_clocks ? "core" : "TSC", strcmp(est, "median") ? "fastest" : "median");
	cb_plot_panel(f, s, ns, CB_FIG_CALL, o,
		      "time per call, back to back (the loop included)");
	if (lat)
		cb_plot_panel(f, s, ns, CB_FIG_LAT, o,
			      "latency: each copy's source from the bytes the one before it wrote (records without it: not drawn)");
	fprintf(f, "unset multiplot\n");
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
	struct cb_gp_writer w = { cb_plot_data_cb, cb_plot_script_cb, &c, 0 };
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
	w.height = cb_plot_has(c.s, c.ns, CB_FIG_LAT) ? 1100 : 0;
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
