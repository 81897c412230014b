/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - what sweep and alias measure, a job's plan. struct cb_job holds
 * the options as parsed (job.c parses them); the plan functions check them
 * against each other, against --like's record and against the backend, and
 * order every repeat's points. job.c runs the plan: a process per repeat,
 * each told its points (process.h).
 */
#ifndef CB_PLAN_H
#define CB_PLAN_H

#include <stdio.h>

#include "backend.h"
#include "lib/cb_options.h"
#include "place.h"
#include "points.h"
#include "record.h"

/* --repeat, --placements: up to this many processes. */
#define CB_REPEAT_MAX		1000ULL
/* --process-ms: up to ten minutes a process. */
#define CB_PROCESS_MS_MAX	600000UL
/* --burst: up to this many samples a point takes in a round. */
#define CB_BURST_MAX		1000UL

enum cb_mode {
	CB_MODE_SWEEP,	/* rows are sizes */
	CB_MODE_ALIAS,	/* rows are dst - src distances */
};

/* How a process times its points (Documentation/measure.rst, "How a point is measured"). */
enum cb_design {
	CB_DESIGN_INTERLEAVED,	/* in bursts, round after round, in a fresh order each */
	CB_DESIGN_BLOCK,	/* each point's samples in one run, one point after the other */
	CB_DESIGN_COUNT
};

/* Their names, for --design and the record's header. */
extern const char *const cb_designs[CB_DESIGN_COUNT];

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

/* The plan: what to measure, before ordering. */
struct cb_plan {
	struct cb_size *sizes;
	size_t nsizes;
	unsigned int *vars, nvars, *dirs, ndirs, *caches, ncaches;
	unsigned int (*offs)[2];
	size_t noffs;
	int all_vars, all_dirs;
	int as_native, native;	/* --as-native: the variant timed, native; -1 */
	struct cb_point *one;	/* --like: one repeat's points, resolved */
	size_t none;
	struct cb_record like;	/* --like: the record, its points, which */
	struct cb_pointset *ls;
	size_t nls;
	char *lsel;
	struct cb_point *pts;	/* ordered: repeat-major */
	size_t npts;
};

void cb_plan_free(struct cb_plan *pl);

/* The checks that need no backend; fills sizes, directions, caches, offsets (or --like's points). */
int cb_plan_options(struct cb_job *r, struct cb_plan *pl, struct cb_error *e);
/* The checks against backend b: variants, their directions, random sizes, --as-native. */
int cb_plan_backend(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
		    struct cb_error *e);
/*
 * The design's settings for b, the points built and ordered (pl->pts,
 * repeat-major), what the plan has (cold points, random sizes) in r->set,
 * and what no backend could measure refused. 0, or -1 with e set (exit 2).
 */
int cb_plan_ready(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
		  struct cb_error *e);
/* Where each repeat's process runs, of the ncpus cpus allowed (this one: here); freed by the caller. */
struct cb_place *cb_plan_places(const struct cb_job *r, const int *cpus, int ncpus, int here);
/* --dry-run: the points in the order they would run, each process's placement first. */
void cb_plan_print(FILE *f, const struct cb_job *r, const struct cb_plan *pl,
		   const struct cb_backend *b, const struct cb_place *places);

#endif /* CB_PLAN_H */
