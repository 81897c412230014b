/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verdict.h - the engine of copybench compare and bisect-run: two records
 * in; out, the differences of their headers, one verdict per point (the
 * Mann-Whitney decision of infer.h, LKP's rule beside it, a bootstrap
 * interval from 10 repeats a side), the controls' drift per size class,
 * each native point net of it, and the exit status. Prints nothing:
 * compare.c shows it, bisect.c turns it into a step's answer.
 * Documentation/compare.rst explains every rule.
 */
#ifndef CB_VERDICT_H
#define CB_VERDICT_H

#include "headers.h"
#include "infer.h"
#include "points.h"
#include "record.h"

/* Exit statuses of compare beyond util.h's 0 and 2. */
#define CB_EXIT_REGRESSION	1
#define CB_EXIT_INCONCLUSIVE	3

/* Bootstrap beside the verdict from this many repeats a side. */
#define CB_BOOT_MIN_REPEATS	10

/**
 * struct cb_cmp_opts - how to compare.
 * @par: alpha, threshold, bootstrap resamples and seed
 * @median: 1 each process's median sample, 0 its fastest, -1 the base
 *	record's estimator
 * @core: core clocks (clock_ratio) instead of TSC cycles
 * @force: compare records whose headers say different machines
 * @points: only these points (and their controls); NULL for all
 * @figure: the figure decided on: the time per call or the latency
 */
struct cb_cmp_opts {
	struct infer_params par;
	int median;
	int core;
	int force;
	const struct cb_patterns *points;
	enum cb_figure figure;
};

#define CB_CMP_OPTS_DEFAULT { .par = INFER_PARAMS_DEFAULT, .median = -1 }

/*
 * What compare calls a point, in the order of enum cb_outcome:
 * CB_OUTCOME(e, name), an X-macro list at the end of this file.
 */
#define CB_OUTCOME(e, name)	CB_OUT_##e,
enum cb_outcome {
#include "verdict.h"
	CB_OUT_COUNT
};
#undef CB_OUTCOME

const char *cb_outcome_name(enum cb_outcome o);

/**
 * struct cb_own_level_change - a paired native point's own fast level (its
 * costs, not their ratios to a reference), new/base (cb_own_level()).
 * @ratio: the change; NaN but for a native point that stayed paired
 * @lo: its bootstrap interval's low end
 * @hi: its high end
 * @paired: the paired change it is held against (cb_own_denies()): the
 *	ratios' level, or the levels' where the point is decided on them
 */
struct cb_own_level_change {
	double ratio, lo, hi;
	double paired;
};

/**
 * struct cb_ref_levels - a paired native point's fast level against its
 * reference's (cb_levels()), new/base; NaN when a record lacks the figures.
 * @ratio: the change
 * @lo: its interval's low end
 * @hi: its high end
 * @p: the change's permutation test
 */
struct cb_ref_levels {
	double ratio, lo, hi;
	double p;
};

/**
 * struct cb_proc_levels - a paired control's process levels, per side (0
 * base, 1 new), for its class's drift over the processes (cb_controls(),
 * drift.c).
 * @lf: each process's log figure against its paired control
 * @pid: their processes' pids
 * @n: how many
 */
struct cb_proc_levels {
	double *lf[2];
	unsigned long long *pid[2];
	size_t n[2];
};

/*
 * struct cb_side - one side's values, one per process, described
 * (arithmetic, as LKP); lines: the record lines (repeats) behind them.
 */
struct cb_side {
	size_t n, lines;
	double mean, stddev, median, min, max;
};

/**
 * struct cb_cmp_point - one point both records have.
 * @key: the point (strings borrowed from the base record)
 * @name: its name (cb_key_name())
 * @control: a fixed variant: judged, but part of the machine's drift
 * @base: base repeats, described
 * @new: new repeats, described
 * @v: copybench's verdict on the raw repeats, one value per process
 * @pl: how far its processes disagree (infer_placement()); @has_pl: set
 * @log_se: standard error of its log ratio, from its repeats (infer_log_se())
 * @lkp: what LKP's range rule says
 * @has_boot: both sides have CB_BOOT_MIN_REPEATS: @boot is set
 * @boot: the bootstrap interval of the ratio of medians
 * @boot_agrees: @boot does not contradict @v: for a change, the interval
 *	lies on its side of 1; for none, it is not wholly beyond the
 *	threshold
 * @cls: index of the size class whose controls judge it, -1 none
 * @has_net: @net is set (native point, class with controls, a ratio)
 * @net: the native change net of its class's drift
 * @paired: a native point of two interleaved records, decided on its
 *	paired costs (verdict.c, cb_paired_costs()): @v, @pl, @log_se, @lkp
 *	and @boot are of those, @base and @new of the raw costs
 * @against: with @paired, the variant the paired costs are taken
 *	against, the steadiest (cb_reference())
 * @within: the smallest change the pair could have found at alpha, the
 *	farther end of the interval of @v's ratio (infer_hl_interval(), or
 *	with @v.by_level its level's), a fraction (0.031: "unchanged within
 *	+-3.1%"); NaN when not known, INFINITY when the repeats cannot bound
 *	it
 * @out: the outcome compare reports
 * @why: the sentence of the rule that decided @out (verdict.c, cb_rules[]),
 *	"" for none
 * @own: a paired native point's own fast level
 * @levels: its fast level against its reference's
 * @on_levels: decided on @levels (verdict.c, cb_levels_decide())
 * @procs: a paired control's process levels
 */
struct cb_cmp_point {
	struct cb_key key;
	char *name;
	int control;
	struct cb_side base, new;
	struct infer_verdict v;
	int has_pl;
	struct infer_placement pl;
	double log_se;
	struct infer_lkp lkp;
	int has_boot;
	struct infer_boot boot;
	int boot_agrees;
	int cls;
	int has_net;
	struct infer_net net;
	int paired;
	const char *against;	/* paired: the variant its ratio is to */
	struct cb_own_level_change own;
	struct cb_ref_levels levels;
	int on_levels;
	double within;
	enum cb_outcome out;
	const char *why;
	struct cb_proc_levels procs;
};

/**
 * struct cb_cmp_class - the controls of one direction, cache and size class.
 * @key: its first control's key (direction, cache, a size in the class)
 * @band: the size class (cb_size_class())
 * @size_lo: smallest size among its controls
 * @size_hi: largest
 * @n: control ratios
 * @ratios: each control point's Hodges-Lehmann ratio new/base
 * @d: their drift (infer_drift())
 * @paired: its controls have pairs (their costs against the native
 *	point's paired control, per process): @ratios and @d are of those
 * @scattered: the drift is beyond the threshold but not significant: the
 *	controls disagree too much to tell whether, or how far, the machine
 *	moved (its native points' changes come out inconclusive)
 */
struct cb_cmp_class {
	struct cb_key key;
	unsigned int band;
	unsigned long long size_lo, size_hi;
	size_t n;
	double *ratios;
	struct infer_drift d;
	int scattered;
	int paired;
};

/**
 * struct cb_cmp - a comparison of two records.
 * @base: the base record
 * @new: the new record
 * @median: the estimator used (1 cycles_median)
 * @core: the clock used
 * @figure: the figure decided on
 * @diffs: header differences, in the base header's order (headers.h)
 * @ndiffs: how many
 * @blocking: some of them make the records incomparable (--force went on)
 * @pts: the points both have, native first, then controls, each by key
 * @npts: how many
 * @cls: the control classes (drift.h)
 * @ncls: how many
 * @only_base: names of the points only the base has
 * @nonly_base: how many
 * @only_new: names of the points only the new record has
 * @nonly_new: how many
 * @natives: native points compared
 * @unpaired: native points decided on their raw costs, not on pairs
 * @on_levels: paired native points decided on their levels (on_levels)
 * @count: native points per outcome
 * @undecided: native placement-sensitive points that the test alone calls
 *	regressed (significant, beyond the threshold) while placement could
 *	explain the change: they make the comparison inconclusive
 * @base_one: the base record is of one process (no pids): compare cannot
 *	decide on it
 * @new_one: the same of the new record
 * @no_controls: neither record holds a control point: raw verdicts only
 * @moved: some class's controls moved: the machine moved
 * @worst: index in @pts of the largest native regression, -1 none
 * @status: 0 no regression, 1 regression, 3 inconclusive (the machine
 *	moved, a point undecided or missing, placement explaining a change)
 */
struct cb_cmp {
	const struct cb_record *base, *new;
	int median, core;
	enum cb_figure figure;
	struct cb_cmp_diff *diffs;
	size_t ndiffs;
	int blocking;
	struct cb_cmp_point *pts;
	size_t npts;
	struct cb_cmp_class *cls;
	size_t ncls;
	char **only_base, **only_new;
	size_t nonly_base, nonly_new;
	size_t natives;
	size_t unpaired;
	size_t on_levels;
	size_t count[CB_OUT_COUNT];
	size_t undecided;
	int base_one, new_one;
	int no_controls;
	int moved;
	long worst;
	int status;
};

/**
 * cb_compare() - compare two records.
 * @base: the base record (cb_record_read())
 * @new: the new record
 * @o: the options
 * @c: the comparison, freed by cb_compare_free()
 * @e: why it failed
 *
 * Refused (-1, @e with CB_EXIT_USAGE): headers of different machines (CPU
 * model, family, model, stepping, microcode, backend, tsc_khz beyond 0.1%)
 * without @o->force; no point in common; --points matching nothing; more
 * repeats than infer.h takes; --clock core without clock_ratio.
 *
 * Return: 0, or -1 with @e set and @c empty.
 */
int cb_compare(const struct cb_record *base, const struct cb_record *new,
	       const struct cb_cmp_opts *o, struct cb_cmp *c, struct cb_error *e);
void cb_compare_free(struct cb_cmp *c);

/* Combines the statuses of several comparisons: 1 beats 3 beats 0. */
int cb_compare_status_merge(int a, int b);

#endif /* CB_VERDICT_H */

/* CB_OUTCOME(e, name): the outcomes, enum cb_outcome, in order. */
#ifdef CB_OUTCOME
CB_OUTCOME(UNCHANGED,		"unchanged")
CB_OUTCOME(IMPROVED,		"improved")
CB_OUTCOME(REGRESSED,		"regressed")
CB_OUTCOME(INCONCLUSIVE,	"inconclusive")
CB_OUTCOME(MACHINE,		"machine-like")
CB_OUTCOME(PLACEMENT,		"placement-sensitive")
#endif
