/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slowdown.h - the search behind the test-only --slow-native and
 * --slow-spell: the amount of extra copying that makes a copy's time per
 * call, as measured, a given fraction dearer. Pure: the caller measures,
 * this file only decides what to try next (backend_user.c measures;
 * stats_test.c tests it on synthetic costs).
 */
#ifndef CB_SLOWDOWN_H
#define CB_SLOWDOWN_H

/*
 * One measurement: the fraction by which a sample with d bytes of extra
 * copying is dearer than a plain one (0.05: 5%), as measured side by side.
 */
typedef double (*cb_slowdown_measure_fn)(void *arg, unsigned long long d);

/**
 * struct cb_slowdown - a search and its outcome
 * @target: the change wanted, a fraction (> 0)
 * @tol: how near to @target is near enough, a fraction (> 0)
 * @d0: the first guess, bytes (>= 1)
 * @dmax: the most extra copying allowed, bytes (>= @d0)
 * @steps: the most measurements to make (>= 1)
 * @d: out: the bytes whose measurement came nearest to @target
 * @got: out: that measurement
 * @tried: out: measurements made
 */
struct cb_slowdown {
	double target, tol;
	unsigned long long d0, dmax;
	unsigned int steps;
	unsigned long long d;
	double got;
	unsigned int tried;
};

/**
 * cb_slowdown_search() - find the extra copying that makes s->target
 * @s: the search (inputs set, outputs filled)
 * @measure: measures one amount
 * @arg: passed to @measure
 *
 * Grows the guess in proportion to what was measured until one amount
 * falls short of the target and one reaches it, then narrows that
 * bracket by interpolation (halving where interpolation stalls) until a
 * measurement is within @tol, the bracket is one byte wide, or @steps are
 * spent. A cost that is not linear in the bytes copied (a partial copy's
 * strategy, the caches) is met by measuring, not by a model; a cost that
 * steps between two amounts one byte apart is reported as the nearer one.
 * Measurements that disagree with the bracket (noise) narrow it all the
 * same: the best measurement seen is what is kept. Returns 0 when the
 * best is within @tol, 1 when it is not (the caller says what it got).
 */
int cb_slowdown_search(struct cb_slowdown *s, cb_slowdown_measure_fn measure, void *arg);

#endif
