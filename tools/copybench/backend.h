/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - the measuring engine's two backends behind one interface:
 * "user" times libcopyvariants in this process (backend_user.c), "module"
 * drives copybench.ko's debugfs files (backend_module.c). Both measure a
 * point the same way (pinned, calibrated loops, warm-up, a baseline of an
 * empty copy subtracted, samples, verification after the timing) and fill
 * the same struct cb_result.
 *
 * Directions and cache modes are copybench.h's CB_DIRECTION and CB_CACHE
 * lists, so what the module adds flows through; a backend says per variant
 * which directions it supports.
 */
#ifndef CB_BACKEND_H
#define CB_BACKEND_H

#include "lib/cb_debugfs.h"	/* copybench.h's lists: cbfs_directions, cbfs_caches */
#include "machine.h"
#include "sizes.h"
#include "util.h"

/*
 * The names the options take, each list once: --estimator (a point's
 * cycles_min or cycles_median), --clock (TSC or core clocks), the index
 * their CB_OPT_CHOICE() stores; --backend, "auto" first where it is
 * accepted (sweep, alias, placement), the two that measure where only
 * those are (bisect-run).
 */
extern const char *const cb_estimator_names[2];
extern const char *const cb_clock_names[2];
extern const char *const cb_backend_choices[3];
extern const char *const cb_backend_names[2];

/* struct cb_variant_info - a variant as a backend offers it. */
struct cb_variant_info {
	char *name;
	char *desc;
	int usable;		/* the CPU can run it */
	unsigned long dirs;	/* bit i: cbfs_directions[i] supported */
};

/* struct cb_point - one thing to measure. */
struct cb_point {
	unsigned int dir;		/* index into cbfs_directions */
	unsigned int variant;		/* index into the backend's variants */
	struct cb_size size;		/* random: each copy draws from [lo, hi] */
	unsigned int src_offset, dst_offset;
	unsigned int cache;		/* index into cbfs_caches */
	unsigned int repeat;		/* 0-based */
	unsigned long long seed;	/* of the random sizes */
	unsigned int label;		/* recorded as: variant, or native (--as-native) */
};

/* The name a point is reported and recorded under. */
static inline const char *cb_point_label(const struct cb_variant_info *variants,
					 const struct cb_point *p)
{
	return variants[p->label].name;
}

/*
 * struct cb_result - what one measurement of a point gave. Costs are TSC
 * cycles per copy, net of the baseline (clamped at 0) except stddev. q02 is
 * the 0.02 quantile of the kept samples (NAN when the backend cannot say):
 * how far the fastest samples lie apart, the jitter of min.
 */
struct cb_result {
	unsigned long long loops, samples, discarded;
	int truncated, verified;
	long long run_cpu;
	double min, q02, median, mean, stddev, max;
	double baseline;
	double size_mean;	/* random sizes: mean bytes per copy; else size */
	double clock_ratio;	/* core clocks per TSC cycle; 0: not measured */
	long long src_place;	/* where the source was (record's src_place); -1 */
	long long dst_place;	/* where the destination was; -1 */
	/* Interleaved design (cb_settings.rounds): */
	unsigned long long bursts;	/* bursts timed; 0: one block */
	unsigned int sites;		/* call sites the samples came from; 0: one */
	double span_ms;		/* from its first burst to its last */
	const char *control;	/* native: the paired control's variant, or NULL */
	double control_min;	/* its figures from the paired bursts */
	double control_median;
	/*
	 * (min + baseline) / (the control's min + its baseline): the two
	 * copies' fastest samples as timed, the call and loop included, so
	 * the baseline (measured once per process, and at 4 to 7 TSC clocks
	 * the noisiest figure of a short copy) cancels out of the ratio.
	 */
	double control_ratio;
	/*
	 * The median over the rounds of the ratio of the two bursts of a
	 * round, each its fastest sample as timed (baseline included): each
	 * ratio of two bursts next to each other in time. 0: not paired.
	 */
	double pair_ratio;
	/*
	 * Test-only --slow-native, native points of the user backend: the
	 * change made, percent of the plain copy's time per call as timed,
	 * from plain samples alternated with the slowed ones; NAN or 0
	 * otherwise. lat_slow_delivered: the same of its latency.
	 */
	double slow_delivered, lat_slow_delivered;
	/*
	 * The figures of a copy as it costs, TSC cycles per copy, nothing
	 * subtracted (Documentation/measure.rst, "Time per call and
	 * latency"): call_min, call_q02 and call_median, its time per call
	 * as timed back to back, the loop included (min, q02 and median
	 * are these less the baseline, clamped at 0); lat_min, lat_q02 and
	 * lat_median, its latency: each copy's source address taken from
	 * the first and last bytes the copy before it wrote; lat_chain, the
	 * latency of that chain around the cheapest copy there is (a byte
	 * loaded, two stored). NAN: not measured (a cold copy, a backend
	 * that cannot).
	 */
	double call_min, call_q02, call_median;
	double lat_min, lat_q02, lat_median, lat_chain;
	/*
	 * A native point's latency over its paired control's (control),
	 * each the fastest in the chain, from the same rounds: the
	 * latency's control_ratio. NAN: none.
	 */
	double lat_control_ratio;
};

/* A figure net of the baseline: v - base, clamped at 0. */
static inline double cb_net_of(double v, double base)
{
	return v > base ? v - base : 0;
}

/* What --load loads when given no file. */
#define CB_DEFAULT_KO	"./copybench.ko"

/*
 * The option callback (options.h) of --load[=KO], as sweep, alias,
 * placement and bisect-run take it: KO, "" for --load alone (then
 * CB_DEFAULT_KO), NULL not given.
 */
int cb_opt_load(void *field, const char *v, struct cb_error *e);

struct cb_place;

/* The measuring settings both backends honour (command-line options). */
struct cb_settings {
	long cpu;			/* -1: the CPU the command starts on */
	unsigned long samples;		/* timed samples per point */
	unsigned long loops;		/* copies per sample, 0 automatic */
	unsigned long max_run_ms;	/* bound of one point's run */
	unsigned long long max_bytes;	/* largest size + offset of the plan */
	const char *load;		/* module: .ko to load if not loaded */
	/*
	 * describe: open only to say what the backend offers (variants,
	 * directions, limits, tsc_khz), for the command that starts the
	 * workers: no buffers, no pinning, no knob touched.
	 */
	int describe;
	const struct cb_place *place;	/* the worker's placement; NULL: fixed */
	unsigned long long tsc_khz;	/* the TSC frequency; 0: find it */
	double slow_native;		/* test-only: native + this % of its cost */
	/*
	 * The interleaved design: each point timed in bursts of burst
	 * samples, one burst a round, that many rounds in a fresh order each
	 * (interleave.c); rounds 0: the block design, every sample of a point in one
	 * run. process_ms: then more rounds until the process has timed its
	 * points that long (0: exactly the rounds asked), at most
	 * CB_ROUNDS_MAX in all. spell: test-only, native this % dearer in
	 * the first third of the rounds, or of process_ms (a slow spell of
	 * the machine, made to order).
	 */
	unsigned long rounds, burst, process_ms;
	double spell;
	int cold, random;		/* the plan has cold points, random sizes */
};

/* The interleaved design's rounds a process times at most. */
#define CB_ROUNDS_MAX		10000UL

struct cb_backend;

struct cb_backend_ops {
	const char *name;
	/*
	 * The copies of the timing loop a point's samples rotate over, libc's
	 * memcpy called by the loop itself (the record's call_sites); 0: the
	 * backend does not say.
	 */
	unsigned int call_sites;
	/*
	 * The offsets, 0 to random_offsets - 1 bytes, a random-size copy
	 * draws for both its buffers besides its size (the record's
	 * random_offsets); 0: none, or random sizes not timed.
	 */
	unsigned int random_offsets;
	/* Sets variants, tsc_khz, cpu, size_max, buffers; pins the process. */
	int (*open)(struct cb_backend *b, struct cb_error *e);
	int (*measure)(struct cb_backend *b, const struct cb_point *p, struct cb_result *r,
		       struct cb_error *e);
	/*
	 * The interleaved design, where the backend has it (else job.c runs
	 * a burst as a measure() of set->burst samples): begin() calibrates
	 * point p and returns its state in *st; burst() times one burst of
	 * it (slow: the test-only spell applies) and sets *fastest to its
	 * fastest sample, TSC cycles per copy with the baseline (NAN: none
	 * timed); end() summarizes every
	 * burst into r, verifies the copy and frees st (also after a failure:
	 * r may then be NULL).
	 */
	int (*begin)(struct cb_backend *b, const struct cb_point *p, void **st,
		     struct cb_error *e);
	int (*burst)(struct cb_backend *b, void *st, int slow, double *fastest,
		     struct cb_error *e);
	int (*end)(struct cb_backend *b, void *st, struct cb_result *r, struct cb_error *e);
	/* Undoes open (restores module knobs, unloads what it loaded), frees priv. */
	void (*close)(struct cb_backend *b);
};

struct cb_backend {
	const struct cb_backend_ops *ops;
	const struct cb_settings *set;
	struct cb_variant_info *variants;
	unsigned int nvariants;
	unsigned long long size_max;	/* largest size per copy */
	unsigned long long tsc_khz;
	int cpu;			/* the CPU every run is pinned to */
	int random_sizes;		/* can time random:LO-HI points */
	const char *buffers;		/* how buffers are backed, for the header */
	void *priv;
};

extern const struct cb_backend_ops cb_backend_user;
extern const struct cb_backend_ops cb_backend_module;

/*
 * cb_backend_open - open backend "user", "module" or "auto" (module when
 * copybench's debugfs directory exists, else user; a line on stderr says
 * which and why). 0, or -1 with e set.
 */
int cb_backend_open(struct cb_backend *b, const char *which, const struct cb_settings *set,
		    struct cb_error *e);
/*
 * cb_backend_close - undo what open did to the system (module knobs back,
 * module unloaded if loaded); the variant list stays for reports.
 * cb_backend_free() closes if needed and frees everything.
 */
void cb_backend_close(struct cb_backend *b);
void cb_backend_free(struct cb_backend *b);

/* Index of a variant of b by name, or -1. */
int cb_backend_variant(const struct cb_backend *b, const char *name);

#endif /* CB_BACKEND_H */
