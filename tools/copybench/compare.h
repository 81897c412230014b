/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - what compare and bisect-run share: the options of the
 * decision (alpha, threshold, points, estimator, clock, bootstrap) and
 * reading and comparing records with them.
 */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include "lib/cb_options.h"
#include "verdict.h"

/* --points: as typed (bisect-run passes it on), and parsed. */
struct cb_points_opt {
	const char *arg;
	struct cb_patterns pat;
};

/* --figure: one of these (CB_FIGURE_CALL, CB_FIGURE_LATENCY), or both. */
#define CB_FIGURE_BOTH	CB_FIGURES
extern const char *const cb_figure_choices[CB_FIGURES + 1];

struct cb_compare_args {
	struct cb_cmp_opts o;
	struct cb_points_opt points;	/* o.points: points.pat when given */
	int figure;			/* --figure: a cb_figure, or CB_FIGURE_BOTH */
	int json, help;
};

/**
 * struct cb_cmps - two records compared on each figure asked that both
 * hold: the time per call always, the latency where both records have it.
 * @f: the comparison on each figure, where @has says so
 * @has: figure f was compared
 * @no_latency: the record that lacks the latency when --figure both left
 *	it out (a record of cold points only, or made
 *	before copybench measured it), or NULL
 * @status: the statuses of the figures merged (1 beats 3 beats 0)
 */
struct cb_cmps {
	struct cb_cmp f[CB_FIGURES];
	int has[CB_FIGURES];
	const char *no_latency;
	int status;
};

/*
 * cb_compare_figures - base against new on the figures a asks for: 0, or
 * -1 with e set and nothing to free. Freed by cb_compare_figures_free().
 */
int cb_compare_figures(const struct cb_record *base, const struct cb_record *new,
		       const struct cb_compare_args *a, struct cb_cmps *c, struct cb_error *e);
void cb_compare_figures_free(struct cb_cmps *c);

/* The point of c named name, or NULL. */
const struct cb_cmp_point *cb_cmp_find(const struct cb_cmp *c, const char *name);

/*
 * cb_point_outcome - what a native point of c is over its figures: where
 * either moved beyond the threshold, regressed (before improved); else
 * unchanged where every figure is, else the first figure's outcome. Into
 * which[], one per figure, whether it is one that makes it so. NULL (and
 * which[] all 0) when no figure has the point.
 */
const struct cb_cmp_point *cb_point_outcome(const struct cb_cmps *c, const char *name,
					    enum cb_outcome *out, int which[CB_FIGURES]);

/* The decision's options (and -h), fields of struct cb_compare_args. */
extern const struct cb_option cb_compare_decide_options[];
void cb_compare_args_init(struct cb_compare_args *a);
/* After the parsing: --points, when given, selects. */
void cb_compare_args_parsed(struct cb_compare_args *a);

/*
 * cb_compare_records - read paths[0..n) into recs[] and compare each of
 * paths[1..n) with paths[0] into cmps[0..n-1). All or nothing: -1 with e
 * set and nothing left to free, or 0 (the caller frees every cmps[] and
 * recs[]).
 */
int cb_compare_records(const char *const *paths, size_t n, struct cb_compare_args *a,
		       struct cb_record *recs, struct cb_cmps *cmps, struct cb_error *e);

/*
 * cb_emulated - whether record r was made on an emulated CPU (QEMU's TCG
 * names it "QEMU TCG CPU ..."): its timings are the emulator's.
 */
int cb_emulated(const struct cb_record *r);

#endif /* CB_COMPARE_H */
