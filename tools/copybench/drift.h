/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drift.h - the controls' drift, for compare's engine (verdict.c): the
 * control points of a comparison gathered by size class (struct
 * cb_cmp_class, verdict.h), and how far each class moved between the
 * records (infer_drift(); over the processes for paired controls,
 * infer_drift_processes()). Documentation/compare.rst, "Controls: did the machine move?".
 */
#ifndef CB_DRIFT_H
#define CB_DRIFT_H

#include "infer.h"
#include "points.h"
#include "util.h"
#include "verdict.h"

/* The index in @c->cls of the size class of @k, -1 none. */
int cb_class_of(const struct cb_cmp *c, const struct cb_key *k);

/*
 * cb_controls() - each control point of @c (judged, its ratio set) into
 * its class, @c->cls; then each class's drift, whether it is scattered,
 * and @c->moved. Return: 0, or -1 with @e set.
 */
int cb_controls(struct cb_cmp *c, const struct infer_params *par, struct cb_error *e);

#endif /* CB_DRIFT_H */
