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

#include "plan.h"

/* Everything after the parsing; returns the exit status. */
int cb_job_main(struct cb_job *r);

/*
 * cb_job_command - a whole measuring subcommand: parse argv with its own
 * options (own: fields of struct cb_job) and the common ones (sweep: also
 * --like, --points and the test-only ones), --help prints usage and the
 * options, then cb_job_main(). Returns the exit status.
 */
int cb_job_command(int argc, char **argv, enum cb_mode mode, const struct cb_option *own,
		   const char *usage);

#endif /* CB_JOB_H */
