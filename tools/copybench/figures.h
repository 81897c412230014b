/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figures.h - what a point's figures say, the rule written once: its time
 * per call as timed back to back (the loop included), the loop's own cost
 * (the baseline), its latency in the chain, and when a figure net of the
 * loop is resolvable. Sweep and alias tables, plateaus, plots, placement
 * and compare read a point through these (Documentation/measure.rst,
 * "Time per call and latency").
 */
#ifndef CB_FIGURES_H
#define CB_FIGURES_H

#include "backend.h"
#include "record.h"

/*
 * A figure net of the loop is shown only where the copy, not the loop,
 * makes most of the time per call: at least CB_NET_LOOP_SHARE of the
 * loop's own cost, and CB_NET_NOISE_TIMES times the jitter of the time
 * per call (how far its fastest samples lie apart). Below that the core
 * runs the copy in the loop's shadow (out of order, overlapping the next
 * call), and time per call less loop is no copy's cost: the copy is
 * "hidden under the loop".
 */
#define CB_NET_LOOP_SHARE	0.5
#define CB_NET_NOISE_TIMES	4.0

/* cb_net_resolvable - whether call - loop is a copy's cost (the rule above). */
int cb_net_resolvable(double call, double loop, double jitter);

/*
 * The time per call of a result (median: its median, else its fastest
 * sample), TSC cycles, the loop included; from a line that predates it,
 * the net figure plus the baseline.
 */
double cb_result_call(const struct cb_result *r, int median);
/* Its latency (median or fastest), NAN when not measured. */
double cb_result_latency(const struct cb_result *r, int median);

/* Marks every latency figure of r not measured (NAN). */
void cb_result_no_latency(struct cb_result *r);

/* The same of a record's point line. */
double cb_point_call(const struct cb_record_point *p, int median);
double cb_point_latency(const struct cb_record_point *p, int median);

#endif /* CB_FIGURES_H */
