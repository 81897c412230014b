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

struct cb_compare_args {
	struct cb_cmp_opts o;
	struct cb_points_opt points;	/* o.points: points.pat when given */
	int json, help;
};

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
		       struct cb_record *recs, struct cb_cmp *cmps, struct cb_error *e);

/*
 * cb_emulated - whether record r was made on an emulated CPU (QEMU's TCG
 * names it "QEMU TCG CPU ..."): its timings are the emulator's.
 */
int cb_emulated(const struct cb_record *r);

#endif /* CB_COMPARE_H */
