/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job.h - the measuring commands' common part, a job: sweep and alias
 * parse the same options into struct cb_job (a job, not a run: a run is
 * what copybench.ko measures per point, cb_run.c), and cb_job_main()
 * validates them, opens the backend, builds the plan (the points, repeats
 * interleaved), measures it with progress on a terminal, writes the record
 * (record.c builds its lines) and prints the tables or the plateaus
 * (report.h).
 */
#ifndef CB_JOB_H
#define CB_JOB_H

#include "backend.h"
#include "interleave.h"
#include "options.h"
#include "process.h"
#include "record.h"

enum cb_mode {
	CB_MODE_SWEEP,	/* rows are sizes */
	CB_MODE_ALIAS,	/* rows are dst - src distances */
};

/* How a process times its points (Documentation/measure.rst, "How a point is measured"). */
enum cb_design {
	CB_DESIGN_INTERLEAVED,	/* in bursts, round after round, in a fresh order each */
	CB_DESIGN_BLOCK,	/* each point's samples in one run, one point after the other */
};

enum cb_estimator {
	CB_EST_MIN,	/* the fastest kept sample */
	CB_EST_MEDIAN,	/* the median kept sample */
};

struct cb_job {
	enum cb_mode mode;
	const char *backend;		/* auto, user, module */
	const char *variants;		/* list or "all" */
	const char *directions;		/* list or "all" */
	const char *caches;		/* list or "all" */
	const char *sizes;		/* sizes.h language */
	const char *output;		/* -o FILE, or NULL */
	unsigned long long src_offset, dst_offset;	/* sweep */
	long long from, to;		/* alias: distances */
	unsigned long long step;
	unsigned long long repeat;
	int seeded;
	unsigned long long seed;
	int json, plateau, dry_run, help;
	int estimator;			/* enum cb_estimator */
	int design;			/* enum cb_design */
	int core_clocks;		/* --clock core: TSC cycles x clock_ratio */
	double tolerance;		/* plateau floor, a fraction */
	const char *like;		/* sweep --like REC: REC's points */
	const char *points;		/* with --like: these (points.h) */
	const char *as_native;		/* test-only: time it in native's place */
	double perturb;			/* test-only: controls' costs x this, 0 off */
	double slow_native;		/* test-only: native + this % of its cost, 0 off */
	int like_process_ms;		/* --like set process_ms (0: the record's exact rounds) */
	struct cb_placement placement;	/* --placement */
	unsigned int place_period;	/* process i at placement i % this; 0: its own */
	int argc;			/* the subcommand's argv as typed, for workers */
	char **argv;
	const struct cb_option *const *tables;	/* the options parsed */
	struct cb_given given;		/* which of them were given */
	struct cb_settings set;
};

/* Whether the option called name was given (0 for one the subcommand lacks). */
int cb_job_given(const struct cb_job *r, const char *name);

/* The test-only --perturb-controls FACTOR accepts 1/10 .. 10. */
#define CB_PERTURB_MIN		0.1
#define CB_PERTURB_MAX		10.0
/* The test-only --slow-native PCT accepts up to 1000%. */
#define CB_SLOW_NATIVE_MAX	1000.0

/* Processes a record is made of when --repeat is not given. */
#define CB_REPEAT_DEFAULT	10


/* Defaults for mode. */
void cb_job_init(struct cb_job *r, enum cb_mode mode);

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
