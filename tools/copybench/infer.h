/* SPDX-License-Identifier: GPL-2.0 */
/*
 * infer.h - inferential statistics for `copybench compare` and `bisect-run`:
 * is the difference between two sets of repeats real, is it big enough to
 * matter, did the machine (the control variants) move, and what would LKP's
 * range rule have said.
 *
 * Pure computation: arrays of doubles in, structs out, no I/O, no global
 * state. Functions return 0 or a negative errno (-EINVAL bad argument or
 * non-finite value, -EDOM a value that must be > 0 is not, -E2BIG more
 * samples than INFER_MAX_N, -ENODATA nothing to estimate from, -ENOMEM);
 * on error the output struct is left untouched.
 *
 * Samples are costs (clocks per copy): lower is better, a ratio new/base
 * above 1 is a regression. The decision rule, its assumptions and why the
 * Mann-Whitney test rather than the bootstrap decides are in
 * Documentation/compare.rst.
 */
#ifndef CB_INFER_H
#define CB_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest sample (repeats per side) any function here accepts. */
#define INFER_MAX_N		1024
/*
 * Most control ratios infer_drift() takes: a dense sweep has thousands of
 * control points in one size class (1-4096 bytes, 8 controls: 32000).
 */
#define INFER_DRIFT_MAX_N	(1U << 20)
/* INFER_AUTO computes the exact p-value up to this many values in all. */
#define INFER_MWU_EXACT_AUTO	40
/* INFER_EXACT refuses (-E2BIG) above this many values in all. */
#define INFER_MWU_EXACT_MAX	120

/* Resamples of the bootstrap: default and accepted range. */
#define INFER_BOOT_DEFAULT	10000
#define INFER_BOOT_MIN		100
#define INFER_BOOT_MAX		1000000

/**
 * struct infer_params - the knobs of a comparison.
 * @alpha: significance level, 0 < alpha <= 0.5 (compare --alpha, 0.01)
 * @threshold: smallest relative change worth reporting, 0 <= threshold
 *	< 10 (compare --threshold 2% is 0.02)
 * @resamples: bootstrap resamples, INFER_BOOT_MIN..INFER_BOOT_MAX
 * @seed: bootstrap RNG seed: equal seeds give equal intervals
 */
struct infer_params {
	double alpha;
	double threshold;
	unsigned int resamples;
	uint64_t seed;
};

#define INFER_PARAMS_DEFAULT {			\
	.alpha = 0.01,				\
	.threshold = 0.02,			\
	.resamples = INFER_BOOT_DEFAULT,	\
	.seed = 1,				\
}

/**
 * infer_params_check() - check every field of @par against its range.
 * @par: the parameters
 *
 * Return: 0, or -EINVAL when @par is NULL or a field is out of range.
 */
int infer_params_check(const struct infer_params *par);

/*
 * Verdicts, and the reasons for an inconclusive one: X-macro lists at the
 * end of this file (INFER_CHANGE, INFER_WHY), in enum order. The names are
 * what compare prints and writes to --json.
 */
#define INFER_CHANGE(e, name)	INFER_##e,
enum infer_change {
#include "infer.h"
};
#undef INFER_CHANGE

#define INFER_WHY(e, name)	INFER_WHY_##e,
enum infer_why {
#include "infer.h"
};
#undef INFER_WHY

/**
 * infer_change_name() - the name of a verdict.
 * @change: the verdict
 *
 * Return: "unchanged", "improved", ...; "?" outside the enum.
 */
const char *infer_change_name(enum infer_change change);

/**
 * infer_why_name() - why a verdict is inconclusive, in words.
 * @why: the reason
 *
 * Return: "" for INFER_WHY_NONE, "too few repeats for alpha", ...; "?"
 * outside the enum.
 */
const char *infer_why_name(enum infer_why why);

/* ---- Mann-Whitney U, two-sided --------------------------------------- */

/**
 * enum infer_method - how infer_mwu() gets its p-value.
 * @INFER_AUTO: exact up to INFER_MWU_EXACT_AUTO values in all, else normal
 * @INFER_EXACT: exact permutation distribution of the midrank sum
 * @INFER_NORMAL: normal approximation, continuity and tie corrected
 */
enum infer_method {
	INFER_AUTO,
	INFER_EXACT,
	INFER_NORMAL,
};

/**
 * struct infer_mwu - Mann-Whitney U test of x (base) against y (new).
 * @nx: base sample size
 * @ny: new sample size
 * @u: U of y: pairs (x_i, y_j) with y_j > x_i, a tie counting 1/2;
 *	0..nx*ny, nx*ny/2 expected when nothing changed
 * @z: (U - nx*ny/2) over its standard deviation, with the continuity
 *	correction (0.5 towards the mean) and the tie-corrected variance;
 *	0 when the variance is 0 (all values equal)
 * @p: two-sided p-value
 * @exact: @p is from the exact permutation distribution of the midrank sum
 *	(conditional on the ties, so exact with ties too); else from the
 *	normal approximation
 * @ties: some values occur more than once in the pooled sample
 * @min_p: smallest p these sizes can give, 2 / C(nx + ny, nx) (without
 *	ties; ties can only raise it)
 * @hl_shift: Hodges-Lehmann shift: median of y_j - x_i over all pairs
 * @hl_ratio: Hodges-Lehmann ratio: median of y_j / x_i over all pairs (on
 *	the log scale, so an even count takes the geometric mean of the
 *	middle two); NaN unless every value is > 0
 */
struct infer_mwu {
	size_t nx;
	size_t ny;
	double u;
	double z;
	double p;
	bool exact;
	bool ties;
	double min_p;
	double hl_shift;
	double hl_ratio;
};

/**
 * infer_mwu() - Mann-Whitney U test, two-sided, of x against y.
 * @x: base sample, @nx finite values
 * @nx: 1..INFER_MAX_N
 * @y: new sample, @ny finite values
 * @ny: 1..INFER_MAX_N
 * @method: INFER_AUTO, INFER_EXACT (nx + ny <= INFER_MWU_EXACT_MAX) or
 *	INFER_NORMAL
 * @res: the result
 *
 * Return: 0; -EINVAL, -E2BIG or -ENOMEM.
 */
int infer_mwu(const double *x, size_t nx, const double *y, size_t ny,
	      enum infer_method method, struct infer_mwu *res);

/**
 * infer_mwu_min_p() - the smallest p the exact test reaches with these sizes.
 * @nx: base sample size
 * @ny: new sample size
 *
 * 3 vs 3 gives 0.1, 4 vs 4 0.029, 5 vs 5 0.0079.
 *
 * Return: 2 / C(nx + ny, nx), at most 1 (1 when a size is 0).
 */
double infer_mwu_min_p(size_t nx, size_t ny);

/**
 * infer_mwu_min_repeats() - the fewest repeats that can reach alpha.
 * @alpha: the significance level
 * @n_other: 0 for n vs n; else the size of the other side
 *
 * At alpha 0.01: 5 per side; 9 against 3; 199 against 1.
 *
 * Return: the n per side (n_other 0) or on one side; 0 when no n up to
 * INFER_MAX_N can.
 */
size_t infer_mwu_min_repeats(double alpha, size_t n_other);

/**
 * infer_hl_interval() - the confidence interval of the Hodges-Lehmann ratio.
 * @x: base costs, all > 0
 * @nx: 1..INFER_MAX_N
 * @y: new costs, all > 0
 * @ny: 1..INFER_MAX_N
 * @alpha: 0 < alpha < 1: the interval covers the true ratio with 1 - alpha
 * @lo: the interval's ends, ratios new/base
 * @hi: (0 and INFINITY when the sizes cannot bound it at alpha)
 *
 * The interval that inverts the Mann-Whitney test (Lehmann 1963; Hollander
 * and Wolfe, "Nonparametric Statistical Methods", 4.3): the k-th smallest
 * and largest of the nx * ny log ratios, k from U's normal approximation.
 * Every ratio outside it is one the test would have called significant:
 * what compare prints as "unchanged within" (the farther end from 1).
 *
 * Return: 0; -EINVAL, -E2BIG, -ENODATA (a side empty), -EDOM (a cost <= 0)
 * or -ENOMEM.
 */
int infer_hl_interval(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		      double *lo, double *hi);

/* ---- The fast level ------------------------------------------------------ */

/*
 * A side's fast level is the geometric mean of its INFER_LEVEL_SHARE
 * fastest processes (at least one); a process within INFER_LEVEL_BAND of
 * its side's level is "at" it. Exact permutation distribution up to
 * INFER_LEVEL_EXACT_MAX relabellings (10 + 10 processes: 184756), else
 * par->resamples random ones.
 */
#define INFER_LEVEL_SHARE	0.3
#define INFER_LEVEL_BAND	0.01
#define INFER_LEVEL_EXACT_MAX	200000

/**
 * struct infer_level - the fast level of two sets of processes.
 * @k_base: processes the base's level is the mean of
 * @k_new: the same for the new side
 * @base: the base's level, exp of the mean log of its @k_base smallest
 * @new: the new side's
 * @ratio: @new / @base
 * @p: two-sided permutation p of the log of @ratio: the share of the
 *	relabellings of the pooled processes (@k_base and @k_new kept) whose
 *	|log ratio| is at least the observed one; with random relabellings
 *	(hits + 1) / (draws + 1)
 * @exact: every relabelling was counted
 * @min_p: the smallest p the sizes allow, infer_mwu_min_p()
 * @lo: percentile bootstrap interval of @ratio at 1 - alpha, each side
 *	resampled with replacement (par->resamples, par->seed)
 * @hi: its upper end
 * @at_base: base processes at its level (within INFER_LEVEL_BAND above)
 * @at_new: the same for the new side
 * @share_base: base processes within INFER_LEVEL_BAND above the pooled
 *	processes' level (the mean log of the fastest INFER_LEVEL_SHARE of
 *	both sides together): one line drawn for both sides alike
 * @share_new: the same for the new side
 * @share_p: two-sided Fisher exact p that the two sides hold the same
 *	share of processes at the pooled level (@share_base of @nx against
 *	@share_new of @ny): small when more processes of one side spent
 *	their lives off it, which the machine or the placements do (or the
 *	code, when the level moved too). Exact under "nothing changed": the
 *	line is the pooled processes', so the counts are hypergeometric.
 */
struct infer_level {
	size_t k_base, k_new;
	double base, new, ratio;
	double p;
	bool exact;
	double min_p;
	double lo, hi;
	size_t at_base, at_new;
	size_t share_base, share_new;
	double share_p;
};

/**
 * infer_level() - the change of the fast level, and its permutation test.
 * @x: base costs, one per process, @nx finite values > 0
 * @nx: 1..INFER_MAX_N
 * @y: new costs, @ny finite values > 0
 * @ny: 1..INFER_MAX_N
 * @par: alpha, resamples and seed
 * @res: the result
 *
 * Why the fast level rather than every process: a process's figure is
 * the fastest of its samples, so it is the fastest state the process
 * reached; a process that spent its life in a slow state (a slow clock
 * bin, a busy sibling) reads slow whatever the code did, and how many did
 * moves from record to record. The mean of the fastest INFER_LEVEL_SHARE
 * is what those processes cannot move while they are at most the rest,
 * and the permutation test asks whether the two records' levels differ
 * more than relabelling their processes makes them differ
 * (Documentation/compare.rst, "The fast level").
 *
 * Return: 0; -EINVAL, -EDOM (a value <= 0), -E2BIG or -ENOMEM.
 */
/**
 * infer_level_ratio() - the ratio of two sides' fast levels, without a test.
 * @x: base costs, @nx of them
 * @nx: 0..INFER_MAX_N
 * @y: new costs
 * @ny: 0..INFER_MAX_N
 *
 * Return: infer_level()'s @ratio, or NaN when a side is empty or holds a
 * value that is not finite and > 0.
 */
double infer_level_ratio(const double *x, size_t nx, const double *y, size_t ny);

/**
 * infer_fast_level() - one side's fast level, without a test.
 * @v: costs, @n of them
 * @n: 0..INFER_MAX_N
 *
 * Return: infer_level()'s @base for v alone (exp of the mean log of the
 * fastest INFER_LEVEL_SHARE), or NaN when v is empty or holds a value
 * that is not finite and > 0.
 */
double infer_fast_level(const double *v, size_t n);

int infer_level(const double *x, size_t nx, const double *y, size_t ny,
		const struct infer_params *par, struct infer_level *res);

/**
 * struct infer_pair_level - infer_level_pair()'s result.
 * @ratio: new/base of native's fast level against its reference's
 * @lo: the bootstrap interval's alpha/2 quantile
 * @hi: its 1 - alpha/2 quantile
 * @p: the permutation test's two-sided p-value
 */
struct infer_pair_level {
	double ratio, lo, hi, p;
};

/**
 * infer_level_pair() - the change of one copy's fast level against
 * another's, timed by the same processes.
 * @xa: base's costs of the copy, one per process, @nx finite values > 0
 * @xr: base's costs of the reference, by the same processes in xa's order
 * @nx: 1..INFER_MAX_N
 * @ya: new's costs of the copy
 * @yr: new's costs of the reference
 * @ny: 1..INFER_MAX_N
 * @par: alpha, resamples and seed
 * @res: the result
 *
 * Each side's figure is the fast level of the copy (infer_level()'s, the
 * mean log of its fastest INFER_LEVEL_SHARE processes) less the
 * reference's, each of its own fastest processes: a process where the
 * reference alone was slow leaves both levels alone, where a level of
 * the per-process ratios takes it in as a fast outlier. A machine that
 * moved both between the records cancels. Permutation test of the
 * processes' labels and bootstrap of each side's processes, every
 * process keeping its pair. Returns 0, -EINVAL, -E2BIG, -EDOM (a cost
 * not positive) or -ENOMEM.
 */
int infer_level_pair(const double *xa, const double *xr, size_t nx, const double *ya,
		     const double *yr, size_t ny, const struct infer_params *par,
		     struct infer_pair_level *res);

/* ---- The decision ------------------------------------------------------ */

/**
 * struct infer_verdict - what compare reports for one point.
 * @change: regressed/improved only when p <= alpha AND the Hodges-Lehmann
 *	ratio is beyond 1 +- threshold; unchanged otherwise; inconclusive
 *	with a reason in @why
 * @why: INFER_WHY_NONE, or why the verdict is inconclusive
 * @ratio: Hodges-Lehmann ratio new/base (@mwu.hl_ratio); NaN when @why is
 *	NO_DATA or NOT_POSITIVE
 * @change_pct: 100 * (@ratio - 1)
 * @repeats_needed: with FEW_REPEATS, the repeats per side alpha needs
 * @p: the deciding test's two-sided p (@level's with @by_level, else @mwu's)
 * @min_p: the smallest p the sizes allow
 * @exact: @p is from the exact permutation distribution
 * @mwu: the Mann-Whitney test (zeroed when @why is NO_DATA or NOT_POSITIVE)
 * @by_level: decided on the fast level (infer_decide_level()): @ratio is
 *	@level.ratio, @p @level.p
 * @level: the fast level's test
 */
struct infer_verdict {
	enum infer_change change;
	enum infer_why why;
	double ratio;
	double change_pct;
	size_t repeats_needed;
	double p;
	double min_p;
	bool exact;
	struct infer_mwu mwu;
	bool by_level;
	struct infer_level level;
};

/**
 * infer_decide() - copybench's verdict on one point.
 * @base: base repeats' costs
 * @nb: 0..INFER_MAX_N (0: inconclusive, no data)
 * @new: new repeats' costs
 * @nn: 0..INFER_MAX_N
 * @par: alpha and threshold
 * @v: the verdict
 *
 * An empty side or a cost <= 0 is an inconclusive verdict, not an error.
 *
 * Return: 0; -EINVAL (a non-finite cost, bad @par), -E2BIG or -ENOMEM.
 */
int infer_decide(const double *base, size_t nb, const double *new, size_t nn,
		 const struct infer_params *par, struct infer_verdict *v);

/**
 * infer_decide_level() - copybench's verdict on one point, on its fast level.
 * @base: base repeats' costs, one per process
 * @nb: 0..INFER_MAX_N (0: inconclusive, no data)
 * @new: new repeats' costs
 * @nn: 0..INFER_MAX_N
 * @par: alpha, threshold, resamples and seed
 * @v: the verdict
 *
 * As infer_decide(), with the fast level's ratio and permutation p
 * (infer_level()) in place of the Hodges-Lehmann ratio and the
 * Mann-Whitney p; @v->mwu is still filled, for the record.
 *
 * Return: 0; -EINVAL (a non-finite cost, bad @par), -E2BIG or -ENOMEM.
 */
int infer_decide_level(const double *base, size_t nb, const double *new, size_t nn,
		       const struct infer_params *par, struct infer_verdict *v);

/* ---- Bootstrap interval of the ratio of medians ------------------------ */

/**
 * struct infer_boot - percentile bootstrap of median(y) / median(x).
 * @ratio: median(y) / median(x) of the samples themselves
 * @lo: the alpha/2 quantile of the resampled ratios (linear interpolation
 *	between order statistics)
 * @hi: the 1 - alpha/2 quantile
 * @level: 1 - alpha
 * @resamples: how many resamples were drawn
 */
struct infer_boot {
	double ratio;
	double lo;
	double hi;
	double level;
	unsigned int resamples;
};

/**
 * infer_boot_median_ratio() - bootstrap interval of the ratio of medians.
 * @x: base sample, @nx finite values > 0
 * @nx: 1..INFER_MAX_N
 * @y: new sample, @ny finite values > 0
 * @ny: 1..INFER_MAX_N
 * @par: alpha, resamples and seed
 * @res: the interval
 *
 * x and y are resampled independently with replacement, @par->resamples
 * times, from an RNG seeded with @par->seed: the same inputs and seed give
 * the same interval on any machine. The cross-check beside the
 * Mann-Whitney verdict; too narrow with fewer than ~10 repeats
 * (Documentation/compare.rst).
 *
 * Return: 0; -EINVAL, -EDOM (a value <= 0), -E2BIG or -ENOMEM.
 */
int infer_boot_median_ratio(const double *x, size_t nx,
			    const double *y, size_t ny,
			    const struct infer_params *par,
			    struct infer_boot *res);

/* ---- LKP's range rule -------------------------------------------------- */

/**
 * struct infer_lkp - what LKP decides for a performance stat.
 * @base_min: smallest base value after LKP's trimming
 * @base_mid: LKP's "mean": the element at n / 2 of the trimmed sorted base
 * @base_max: largest base value after trimming
 * @new_min: the same for the new side
 * @new_mid: the same for the new side
 * @new_max: the same for the new side
 * @ratio: higher mid over lower mid, capped at 5 (LKP's MAX_RATIO)
 * @apart: the range rule: distance 0 (lkp compare): one side's min above
 *	the other's mid AND its mid above the other's max; distance d > 0
 *	(the bisect robot's option): with < 3 values on a side, a gap between
 *	the ranges wider than d times the wider range, else no overlap and a
 *	gap wider than half the mids' difference
 * @enough_runs: LKP skips a stat unless one side has >= 3 runs
 * @big_enough: LKP hides a change unless @ratio > 1.01
 * @changed: all three: what an LKP report would list
 * @regressed: @changed and the new side is the higher (costlier) one
 *
 * As intel/lkp-tests lib/stats.rb (StatCompare) and lib/changed_stat.rb
 * (ChangedStat#change?) do it: each side is sorted and loses n >> 5 values
 * at each end (at most 3; at most 1 from the new side when the base has
 * <= 3), then min, "mean" and max are taken.
 */
struct infer_lkp {
	double base_min;
	double base_mid;
	double base_max;
	double new_min;
	double new_mid;
	double new_max;
	double ratio;
	bool apart;
	bool enough_runs;
	bool big_enough;
	bool changed;
	bool regressed;
};

/**
 * infer_lkp() - LKP's range rule on base and new runs.
 * @base: base runs, @nb finite values
 * @nb: 1..INFER_MAX_N
 * @new: new runs, @nn finite values
 * @nn: 1..INFER_MAX_N
 * @distance: 0 for lkp compare's rule, d > 0 for the distance rule
 * @res: the result
 *
 * Return: 0; -EINVAL, -E2BIG or -ENOMEM.
 */
int infer_lkp(const double *base, size_t nb, const double *new, size_t nn,
	      double distance, struct infer_lkp *res);

/* ---- Controls: the machine's drift ------------------------------------- */

/**
 * struct infer_drift - how much the control variants moved in a size class.
 * @n: control points (ratios) it is estimated from
 * @ratio: the drift: the median of the control ratios new/base (on the
 *	log scale: an even count takes the geometric mean of the middle two)
 * @log_sd: the controls' spread: 1.4826 x the median absolute deviation
 *	of the log ratios, a standard deviation that one wild control cannot
 *	inflate (0 when n < 2)
 * @lo: lower end of the 1 - alpha confidence interval of the drift
 *	(Student t, n - 1 degrees of freedom, on the median's standard error
 *	1.2533 x log_sd / sqrt(n)); 0 when n < 2
 * @hi: upper end; +inf when n < 2
 * @p: two-sided t test of "no drift" (log ratio 0) on the same; 1 when
 *	n < 2
 * @enough: n >= 2: the drift has an uncertainty
 * @moved: p <= alpha and the drift beyond 1 +- threshold: the machine
 *	moved; compare says so first and is inconclusive
 * @procs_base: with @by_process, the base processes it was taken over
 * @procs_new: and the new ones
 * @by_process: @ratio, @lo, @hi, @p and @moved are of the processes'
 *	levels (infer_drift_processes()), not of the control points
 *
 * The controls are the fixed copies, the same code on both kernels.
 * Robust on purpose: a control whose own repeats scatter (a byte loop on a
 * busy machine) must not hide the drift of the others, nor widen the band
 * a native point is judged against.
 */
struct infer_drift {
	size_t n;
	double ratio;
	double log_sd;
	double lo;
	double hi;
	double p;
	bool enough;
	bool moved;
	size_t procs_base, procs_new;
	bool by_process;
};

/**
 * infer_drift() - estimate the drift from the control ratios of a size class.
 * @ratios: one ratio new/base per control point, finite and > 0
 * @n: 1..INFER_DRIFT_MAX_N
 * @par: alpha and threshold
 * @d: the drift
 *
 * Return: 0; -ENODATA (n is 0), -EDOM, -EINVAL, -E2BIG or -ENOMEM.
 */
int infer_drift(const double *ratios, size_t n, const struct infer_params *par,
		struct infer_drift *d);

/**
 * infer_drift_processes() - the drift again, with the process as the unit.
 * @base: one level per base process, finite: the mean, over the class's
 *	control points that process measured, of its log figure less that
 *	point's median over both records' processes
 * @nb: 1..INFER_MAX_N
 * @new: the new processes' levels
 * @nn: 1..INFER_MAX_N
 * @par: alpha and threshold
 * @d: a drift from infer_drift() of the same control points
 *
 * The control points of one record share its processes, and a process's
 * level (where its code and data landed, what else ran) moves all its
 * points together: taken as independent, 20 points of 10 processes a side
 * call the level's scatter a drift (28 of 100 A/A pairs here; over the
 * processes, 2). When the processes are enough for the Mann-Whitney test
 * of the levels to reach alpha (5 a side at 0.01), @d's ratio becomes the
 * Hodges-Lehmann ratio of exp(level), its interval that test's, p its
 * p-value, moved recomputed by infer_drift()'s rule, by_process set;
 * with fewer, @d is left as it was (the points' test stands).
 *
 * Return: 0; -EINVAL, -E2BIG or -ENOMEM (then @d is unchanged).
 */
int infer_drift_processes(const double *base, size_t nb, const double *new, size_t nn,
			  const struct infer_params *par, struct infer_drift *d);

/**
 * infer_log_se() - the standard error of a log ratio new/base from repeats.
 * @x: base repeats, @nx finite values > 0
 * @nx: >= 1
 * @y: new repeats, @ny finite values > 0
 * @ny: >= 1
 *
 * sqrt(s_x^2 / nx + s_y^2 / ny) of the logs, s the sample standard
 * deviation (0 for one value): how precisely the point's own repeats fix
 * its ratio.
 *
 * Return: the standard error; NaN for bad arguments or no memory.
 */
double infer_log_se(const double *x, size_t nx, const double *y, size_t ny);

/**
 * struct infer_net - a native ratio net of the controls' drift.
 * @raw: the native ratio new/base as given
 * @net: @raw / drift
 * @lo: lower end of the 1 - alpha prediction interval of the ratio of a
 *	point that only drifted like the controls (Student t, n - 1 degrees
 *	of freedom, spread sqrt(native_log_se^2 + log_sd^2 (1 + 1.2533^2/n)):
 *	the controls' spread, the drift's error and the point's own); 0 when
 *	n < 2
 * @hi: upper end; +inf when n < 2
 * @p: two-sided p of "the native point moved like a control"
 * @distinct: p <= alpha: the native change differs from the controls'
 * @change: regressed/improved when @distinct and @net is beyond
 *	1 +- threshold; unchanged otherwise; inconclusive when n < 2
 * @why: INFER_WHY_NONE or INFER_WHY_FEW_CONTROLS
 */
struct infer_net {
	double raw;
	double net;
	double lo;
	double hi;
	double p;
	bool distinct;
	enum infer_change change;
	enum infer_why why;
};

/**
 * infer_net() - net a native ratio of the controls' drift, and test it.
 * @native_ratio: the native point's ratio new/base, finite and > 0,
 *	estimated like the control ratios (Hodges-Lehmann)
 * @native_log_se: its standard error on the log scale (infer_log_se()),
 *	finite and >= 0
 * @d: a drift from infer_drift()
 * @par: alpha and threshold
 * @res: the result
 *
 * Return: 0; -EDOM (ratio <= 0) or -EINVAL.
 */
int infer_net(double native_ratio, double native_log_se, const struct infer_drift *d,
	      const struct infer_params *par, struct infer_net *res);

/* ---- Placement: do a point's processes agree? --------------------------- */

/**
 * struct infer_placement - how far a point's processes disagree, and
 *	whether a change lies beyond that.
 * @base_spread: (max - min) / min of the base side's values, one per
 *	process (each process a placement of its own); 0 for one value
 * @new_spread: the same of the new side
 * @sensitive: either spread is beyond the threshold: the placements of
 *	one and the same code disagree by more than a change worth reporting
 * @gap: how far apart the two sides' ranges lie: min(new) / max(base)
 *	when the new side lies wholly above, max(new) / min(base) when wholly
 *	below, 1 when the ranges overlap or touch
 * @beyond: +1 when the new range lies above the base range by more than
 *	the threshold (@gap > 1 + threshold: every new process slower than
 *	every base process, by more than any placement seen explains), -1
 *	below it by as much (@gap < 1 / (1 + threshold)), else 0
 *
 * The unit of replication is the process: a fresh process draws a fresh
 * placement (buffers, stack, ASLR), and repeats inside one process share
 * it. A point whose processes disagree beyond the threshold is
 * placement-sensitive: compare reports a change there only when it is
 * @beyond (Documentation/compare.rst, "Placement").
 */
struct infer_placement {
	double base_spread;
	double new_spread;
	bool sensitive;
	double gap;
	int beyond;
};

/**
 * infer_placement() - the placement verdict of one point.
 * @base: the base side's values, one per process, finite and > 0
 * @nb: 1..INFER_MAX_N
 * @new: the new side's values, one per process, finite and > 0
 * @nn: 1..INFER_MAX_N
 * @par: the threshold
 * @res: the result
 *
 * Return: 0; -EINVAL, -EDOM (a value <= 0) or -E2BIG.
 */
int infer_placement(const double *base, size_t nb, const double *new, size_t nn,
		    const struct infer_params *par, struct infer_placement *res);

/**
 * infer_poibin_tail() - the chance of k or more successes among independent
 *	trials of different chances (the Poisson binomial distribution).
 * @p: the trials' chances of success, each in [0, 1]
 * @n: how many trials, 0..INFER_DRIFT_MAX_N
 * @k: the least number of successes
 *
 * copybench placement asks it how likely k placements slow in every round
 * are when only the machine's slow spells are at work (each placement's
 * chance: the share of slow processes to the power of its rounds).
 *
 * Return: P(X >= k), 1 for k == 0; NaN for bad arguments or no memory.
 */
double infer_poibin_tail(const double *p, size_t n, size_t k);

/* ---- Building blocks, exposed for tests and for compare ---------------- */

/**
 * struct infer_rng - xoshiro256** state (Vigna): small, fast, portable.
 * @s: the state, seeded through splitmix64 by infer_rng_seed()
 */
struct infer_rng {
	uint64_t s[4];
};

/**
 * infer_rng_seed() - seed @rng from @seed through splitmix64.
 * @rng: the generator
 * @seed: any value, 0 included
 */
void infer_rng_seed(struct infer_rng *rng, uint64_t seed);

/**
 * infer_rng_next() - the next 64 random bits.
 * @rng: the generator
 *
 * Return: the next xoshiro256** output.
 */
uint64_t infer_rng_next(struct infer_rng *rng);

/**
 * infer_rng_below() - uniform in 0..n-1, without modulo bias (rejection).
 * @rng: the generator
 * @n: the bound, >= 1
 *
 * Return: the draw.
 */
uint64_t infer_rng_below(struct infer_rng *rng, uint64_t n);

/**
 * infer_t_p2() - two-sided tail of Student's t.
 * @t: the statistic
 * @df: degrees of freedom, > 0
 *
 * Return: P(|T| >= |t|); NaN for a bad @df or a NaN @t.
 */
double infer_t_p2(double t, double df);

/**
 * infer_t_crit() - two-sided critical value of Student's t.
 * @p2: the two-sided tail, 0 < p2 <= 1
 * @df: degrees of freedom, > 0
 *
 * Return: the t >= 0 with infer_t_p2(t, df) == p2; NaN for bad arguments.
 */
double infer_t_crit(double p2, double df);

#endif /* CB_INFER_H */

/* INFER_CHANGE(e, name): the verdicts, enum infer_change, in order. */
#ifdef INFER_CHANGE
INFER_CHANGE(UNCHANGED,		"unchanged")
INFER_CHANGE(IMPROVED,		"improved")
INFER_CHANGE(REGRESSED,		"regressed")
INFER_CHANGE(INCONCLUSIVE,	"inconclusive")
#endif

/* INFER_WHY(e, name): why a verdict is inconclusive, enum infer_why. */
#ifdef INFER_WHY
INFER_WHY(NONE,			"")
INFER_WHY(NO_DATA,		"no repeats on one side")
INFER_WHY(NOT_POSITIVE,		"a cost is not positive")
INFER_WHY(FEW_REPEATS,		"too few repeats for alpha")
INFER_WHY(FEW_CONTROLS,		"fewer than 2 control points")
#endif
