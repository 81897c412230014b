/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job.h - the measuring commands' common part, a job: sweep and alias
 * parse the same options into struct cb_job (plan.h; a job, not a run: a
 * run is what copybench.ko measures per point, cb_run.c), and
 * cb_job_main() validates them, opens the backend, builds the plan
 * (plan.c), measures it by a process per repeat (process.h) with progress
 * on a terminal, writes the record (record.c builds its lines) and prints
 * the tables or the plateaus (report.h).
 */
#ifndef CB_JOB_H
#define CB_JOB_H

#include <stddef.h>

#include "plan.h"

/* Everything after the parsing; returns the exit status. */
int cb_job_main(struct cb_job *r);

/*
 * The options every measuring subcommand takes (cb_job_options), sweep's
 * --like and --points, and sweep's test-only ones (listed under a heading
 * of their own in --help): each written once, with its field of struct
 * cb_job. A subcommand's tables: its own, then these (at most
 * CB_JOB_TABLES of them, NULL-terminated).
 */
extern const struct cb_option cb_job_options[], cb_job_like_options[], cb_job_test_options[];
#define CB_JOB_TABLES	4

/* --cpu N (a long, -1 none) and --as-native V, for the commands that pass them on too. */
int cb_opt_cpu(void *field, const char *v, struct cb_error *e);
void cb_put_cpu(const void *field, struct cb_str *b);
int cb_opt_as_native(void *field, const char *v, struct cb_error *e);

/*
 * cb_job_parse - r set to mode's defaults and argv parsed into it with
 * tables (r->tables, r->given: which were given). The index of the first
 * operand, or -1 with e set.
 */
int cb_job_parse(int argc, char **argv, enum cb_mode mode,
		 const struct cb_option *const *tables, struct cb_job *r, struct cb_error *e);

/*
 * A job described in C rather than in words, for a subcommand that runs
 * one (placement, bisect-run): CB_JOB_SET(r, field, value) sets the field
 * and marks its option given, as if parsed (the compiler checks the field
 * and the value's type); r->tables must hold the option, or it aborts.
 */
void cb_job_mark(struct cb_job *r, size_t off);
#define CB_JOB_SET(r, f, v)						\
	do {								\
		(r)->f = (v);						\
		cb_job_mark((r), offsetof(struct cb_job, f));		\
	} while (0)

/*
 * cb_job_command - a whole measuring subcommand: parse argv with tables
 * (its own options, cb_job_options and, for sweep, the others above),
 * --help prints usage and the options, then cb_job_main(). Returns the
 * exit status.
 */
int cb_job_command(int argc, char **argv, enum cb_mode mode,
		   const struct cb_option *const *tables, const char *usage);

#endif /* CB_JOB_H */
