/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the measuring commands' common part: sweep and alias parse the
 * same options into struct cb_run, and cb_run_main() validates them,
 * opens the backend, builds the plan (the points, repeats interleaved),
 * measures it with progress on a terminal, writes the record and prints
 * the tables or the plateaus (report.c).
 */
#ifndef CB_RUN_H
#define CB_RUN_H

#include "backend.h"
#include "options.h"
#include "process.h"
#include "record.h"

enum cb_mode {
	CB_MODE_SWEEP,	/* rows are sizes */
	CB_MODE_ALIAS,	/* rows are dst - src distances */
};

enum cb_estimator {
	CB_EST_MIN,	/* the fastest kept sample */
	CB_EST_MEDIAN,	/* the median kept sample */
};

/* Options >= 256 that have no short form. */
enum {
	CB_OPT_BACKEND = 256, CB_OPT_LOAD, CB_OPT_VARIANTS, CB_OPT_DIRECTIONS, CB_OPT_CACHE,
	CB_OPT_SIZES, CB_OPT_REPEAT, CB_OPT_SEED, CB_OPT_SAMPLES, CB_OPT_LOOPS, CB_OPT_CPU,
	CB_OPT_MAX_RUN_MS, CB_OPT_ESTIMATOR, CB_OPT_JSON, CB_OPT_PLATEAU, CB_OPT_TOLERANCE,
	CB_OPT_DRY_RUN, CB_OPT_CLOCK, CB_OPT_LIKE, CB_OPT_POINTS, CB_OPT_AS_NATIVE,
	CB_OPT_PERTURB, CB_OPT_PLACEMENT, CB_OPT_PLACEMENTS, CB_OPT_SLOW_NATIVE, CB_OPT_SRC_OFFSET,
	CB_OPT_DST_OFFSET, CB_OPT_FROM, CB_OPT_TO, CB_OPT_STEP, CB_OPT_DIRECTION,
	CB_OPT_FIRST_FREE,
};

struct cb_run {
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
	enum cb_estimator estimator;
	int core_clocks;		/* --clock core: TSC cycles x clock_ratio */
	double tolerance;		/* plateau floor, a fraction */
	const char *like;		/* sweep --like REC: REC's points */
	const char *points;		/* with --like: these (points.h) */
	const char *as_native;		/* test-only: time it in native's place */
	double perturb;			/* test-only: controls' costs x this, 0 off */
	double slow_native;		/* test-only: native + this % of its cost, 0 off */
	struct cb_placement placement;	/* --placement */
	unsigned int place_period;	/* process i at placement i % this; 0: its own */
	int argc;			/* the subcommand's argv as typed, for workers */
	char **argv;
	unsigned long long given;	/* bit key - 256: the option was given */
	struct cb_settings set;
};

/* Whether option key (>= 256) was given. */
#define CB_RUN_GIVEN(r, key)	((int)(((r)->given >> ((key) - 256)) & 1))

/* The test-only --perturb-controls FACTOR accepts 1/10 .. 10. */
#define CB_PERTURB_MIN		0.1
#define CB_PERTURB_MAX		10.0
/* The test-only --slow-native PCT accepts up to 1000%. */
#define CB_SLOW_NATIVE_MAX	1000.0

/* Processes a record is made of when --repeat is not given. */
#define CB_REPEAT_DEFAULT	5

/* The options only sweep has beside the common ones: --like and the test-only ones. */
extern const struct cb_option cb_run_like_options[];

/* Measured points, in plan order, with what they gave. */
struct cb_measured {
	struct cb_point p;
	struct cb_result r;
};

/* The options of sweep and alias both, and their handler. */
extern const struct cb_option cb_run_options[];
int cb_run_option(void *ctx, int key, const char *arg, struct cb_error *e);

/* Defaults for mode. */
void cb_run_init(struct cb_run *r, enum cb_mode mode);

/* Everything after the parsing; returns the exit status. */
int cb_run_main(struct cb_run *r);

/*
 * cb_run_command - a whole measuring subcommand: parse argv with its own
 * options (keys CB_OPT_SRC_OFFSET .. CB_OPT_FIRST_FREE - 1, handled by
 * own_fn on the struct cb_run) and the common ones, --help prints usage
 * and the options, then cb_run_main(). Returns the exit status.
 */
int cb_run_command(int argc, char **argv, enum cb_mode mode, const struct cb_option *own,
		   cb_option_fn own_fn, const char *usage);

/*
 * report.c: the human output of a finished run. m[0..n) in plan order;
 * b the backend (variant names, tsc_khz).
 */
void cb_report_tables(FILE *f, const struct cb_run *r, const struct cb_backend *b,
		      const struct cb_measured *m, size_t n);
void cb_report_plateaus(FILE *f, const struct cb_run *r, const struct cb_backend *b,
			const struct cb_measured *m, size_t n);

/* The record line of one measured point. */
void cb_report_point(struct cb_record_point *rp, const struct cb_backend *b,
		     const struct cb_measured *m);
/* The other way: the result a record line holds (what the tables show). */
void cb_report_result(const struct cb_record_point *rp, struct cb_result *r);

/*
 * What tables and plateaus show of r: the estimator's figure (min or
 * median) in the clock asked (TSC cycles, or core clocks: TSC cycles x
 * clock_ratio), and how far it may move when measured again (for the
 * plateau merge). cb_scale() is the factor from TSC cycles to the clock.
 */
double cb_scale(const struct cb_run *run, const struct cb_result *r);
double cb_estimate(const struct cb_run *run, const struct cb_result *r);
double cb_estimate_noise(const struct cb_run *run, const struct cb_result *r);

#endif /* CB_RUN_H */
