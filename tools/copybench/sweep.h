/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweep.h - a sweep described in C: the commands that run "copybench
 * sweep" in a process of its own (placement, bisect-run under its PREFIX)
 * fill a struct cb_job with CB_JOB_SET() (job.h) and get the sweep's argv
 * from sweep's own option tables, each option spelled there once.
 */
#ifndef CB_SWEEP_H
#define CB_SWEEP_H

#include "job.h"
#include "process.h"

/* r: sweep's defaults, no option given, sweep's tables. */
void cb_sweep_init(struct cb_job *r);

/*
 * cb_sweep_argv - "sweep" and the options given in r (CB_JOB_SET() or
 * cb_sweep_parse()), appended to a: what cb_sweep_parse() parses back to
 * the same fields. Values go after '=' (-o's as its next word when it
 * does not start with '-'), so that one starting with '-' is not refused.
 */
void cb_sweep_argv(const struct cb_job *r, struct cb_argv *a);

/* sweep's parser: argv[1..] into r. The first operand's index, or -1 with e. */
int cb_sweep_parse(int argc, char **argv, struct cb_job *r, struct cb_error *e);

#endif /* CB_SWEEP_H */
