/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - what compare and bisect-run share: the options of the
 * decision (alpha, threshold, points, estimator, clock, bootstrap) and
 * reading and comparing records with them.
 */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include "options.h"
#include "verdict.h"

/* Option keys of compare and bisect-run (long options only). */
enum {
	CB_CMP_OPT_ALPHA = 256, CB_CMP_OPT_THRESHOLD, CB_CMP_OPT_POINTS, CB_CMP_OPT_ESTIMATOR,
	CB_CMP_OPT_CLOCK, CB_CMP_OPT_RESAMPLES, CB_CMP_OPT_SEED, CB_CMP_OPT_JSON,
	CB_CMP_OPT_FORCE, CB_CMP_OPT_FIRST_FREE,
};

struct cb_compare_args {
	struct cb_cmp_opts o;
	struct cb_patterns points;	/* o.points points here when given */
	int json, help;
};

/* The decision's options (and -h), handled by cb_compare_option(). */
extern const struct cb_option cb_compare_decide_options[];
void cb_compare_args_init(struct cb_compare_args *a);
int cb_compare_option(void *ctx, int key, const char *arg, struct cb_error *e);

/*
 * cb_compare_records - read paths[0..n) into recs[] and compare each of
 * paths[1..n) with paths[0] into cmps[0..n-1). All or nothing: -1 with e
 * set and nothing left to free, or 0 (the caller frees every cmps[] and
 * recs[]).
 */
int cb_compare_records(const char *const *paths, size_t n, struct cb_compare_args *a,
		       struct cb_record *recs, struct cb_cmp *cmps, struct cb_error *e);

/*
 * cb_emulated - whether record r was made on an emulated CPU (QEMU's TCG
 * names it "QEMU TCG CPU ..."): its timings are the emulator's.
 */
int cb_emulated(const struct cb_record *r);

#endif /* CB_COMPARE_H */
