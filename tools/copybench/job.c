// SPDX-License-Identifier: GPL-2.0
/*
 * job.c - what sweep and alias share, a job (job.h): the common options, their
 * validation, the plan, the measuring loop with its progress line, and the
 * record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "copybench.h"
#include "builtin.h"
#include "plateau.h"
#include "points.h"
#include "report.h"
#include "job.h"
#include "sizes.h"
#include "sysinfo.h"

#define CB_REPEAT_MAX		1000ULL
/*
 * More samples than the module's default: the min of many short samples is
 * what stays put from one process to the next (Documentation/measure.rst).
 */
#define CB_CMD_SAMPLES_DEFAULT	1001UL
/*
 * The interleaved design's defaults (measure.rst says how they were
 * chosen): bursts of 5 samples, 80 rounds, so 400 samples a point spread
 * over the whole process (a longer life, not more processes, is what lets
 * a process time its copies at their quiet cost); the module backend's bursts are runs of its own
 * (knobs written, buffers allocated, a baseline each), so fewer and longer.
 */
#define CB_ROUNDS_DEFAULT	80UL
/*
 * The user backend's default: rounds until the process has timed its
 * points for CB_PROCESS_MS_DEFAULT, at least CB_ROUNDS_LEAST of them, so
 * that a small plan lives as long as a large one (measure.rst, "How long
 * a process lives").
 */
#define CB_PROCESS_MS_DEFAULT	2000UL
#define CB_PROCESS_MS_MAX	600000UL
#define CB_ROUNDS_LEAST		20UL
#define CB_BURST_DEFAULT	5UL
#define CB_MB_ROUNDS_DEFAULT	8UL
#define CB_MB_BURST_DEFAULT	13UL
/* Samples a process keeps at once, interleaved: 8 bytes each, 256 MiB. */
#define CB_INTERLEAVED_SAMPLES_MAX	(32ULL << 20)
#define CB_BURST_MAX		1000UL
/* Points one run takes (with the repeats): days of measuring already. */
#define CB_POINTS_MAX		1000000UL
#define CB_PROGRESS_NS		200000000ULL

/* --design: the order of enum cb_design (job.h). */
static const char *const cb_designs[] = { "interleaved", "block" };

/* ---- The options: each written once, with its field (options.h) -------- */

static int cb_opt_cpu(void *field, const char *v, struct cb_error *e)
{
	long long cpu;

	if (cb_parse_i64(v, 0, 1L << 20, &cpu))
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --cpu '%s' (accepted: a CPU number this process may run on)",
			       v);
	*(long *)field = (long)cpu;
	return 0;
}

static int cb_opt_placement(void *field, const char *v, struct cb_error *e)
{
	return cb_placement_parse(v, field, e);
}

static const struct cb_option cb_job_options[] = {
	CB_OPT_NAME("backend", struct cb_job, backend, cb_backend_choices, "B",
		    "auto (default): module when copybench.ko is\n"
		    "loaded, else user; user: libcopyvariants timed in\n"
		    "this process; module: copybench.ko (root)"),
	CB_OPT_CALLBACK("load", struct cb_job, set.load, optional_argument, cb_opt_load, "KO",
			"module: load KO (default " CB_DEFAULT_KO ")\n"
			"when not loaded; unload it at the end"),
	CB_OPT_STRING("variants", 0, struct cb_job, variants, "LIST",
		      "names, comma-separated, or all (default: all\n"
		      "the CPU can run)"),
	CB_OPT_STRING("directions", 0, struct cb_job, directions, "LIST",
		      "memcpy, to_user, ... comma-separated, or all\n"
		      "(default " CB_DIRECTION_DEFAULT "); all: what each variant has"),
	CB_OPT_STRING("cache", 0, struct cb_job, caches, "hot|cold",
		      "hot (default); cold: both buffers flushed before\n"
		      "each copy, outside the timing; hot,cold: both"),
	CB_OPT_STRING("sizes", 0, struct cb_job, sizes, "SPEC",
		      "bytes per copy, comma-separated: 4K  0-256\n"
		      "1-64:8 (step)  pow2:1-64M  random:LO-HI (each\n"
		      "copy a seeded random size); K, M, G; up to 64M"),
	CB_OPT_UINT("repeat", struct cb_job, repeat, 1, CB_REPEAT_MAX, NULL, "N",
		    "processes, one after the other, each a fresh\n"
		    "exec at a placement of its own that measures\n"
		    "every point (default 10, 1..1000)"),
	CB_OPT_UINT("seed", struct cb_job, seed, 0, ~0ULL, NULL, "N",
		    "shuffle the points of each repeat and draw random\n"
		    "sizes with N; the placements are drawn from it\n"
		    "(seed 1 when not given)"),
	CB_OPT_CALLBACK("placement", struct cb_job, placement, required_argument,
			cb_opt_placement, "P",
			"where each process puts its buffers and stack:\n"
			"vary (default): drawn per process from the seed;\n"
			"fixed: every process alike, buffers at the start\n"
			"of their huge pages; SRC:DST:STACK: there, bytes\n"
			"(a record's src_place - src_offset, dst_place -\n"
			"dst_offset, stack_place)"),
	CB_OPT_UINT("placements", struct cb_job, place_period, 1, CB_REPEAT_MAX, NULL, "N",
		    "the processes take N placements in turn: process\n"
		    "i at placement i mod N, each placement measured\n"
		    "again later (default: one per process, 1..1000)"),
	CB_OPT_UINT("samples", struct cb_job, set.samples, CB_SAMPLES_MIN, CB_SAMPLES_MAX, NULL,
		    "N", "timed samples per point (default: rounds x\n"
		    "burst, 100 and on; block design 1001; 1..100000)"),
	CB_OPT_CHOICE("design", struct cb_job, design, cb_designs, "D",
		      "interleaved (default): every point in bursts,\n"
		      "one a round, each round in a fresh random order,\n"
		      "a native point's bursts paired with its control's;\n"
		      "block: each point's samples in one run (before)"),
	CB_OPT_UINT("rounds", struct cb_job, set.rounds, 1, CB_ROUNDS_MAX, NULL, "N",
		    "interleaved: rounds over the points (default\n"
		    "20 and on for --process-ms, module backend 8;\n"
		    "1..10000); with --burst it sets --samples: give\n"
		    "one of --rounds, --samples"),
	CB_OPT_UINT("process-ms", struct cb_job, set.process_ms, 0, CB_PROCESS_MS_MAX, NULL, "MS",
		    "interleaved: after --rounds, more rounds until\n"
		    "the process has timed its points for MS ms (user\n"
		    "backend default 2000 with --rounds 20 the least;\n"
		    "0, or --rounds or --samples alone: the rounds\n"
		    "asked, exactly; 0..600000)"),
	CB_OPT_UINT("burst", struct cb_job, set.burst, 1, CB_BURST_MAX, NULL, "N",
		    "interleaved: samples a point takes in a round\n"
		    "(default 5, module backend 13; 1..1000)"),
	CB_OPT_UINT("loops", struct cb_job, set.loops, 0, CB_LOOPS_MAX, NULL, "N",
		    "copies per sample (default 0: the least power of\n"
		    "two whose sample takes 10 us; up to 1000000)"),
	CB_OPT_CALLBACK("cpu", struct cb_job, set.cpu, required_argument, cb_opt_cpu, "N",
			"CPU to pin to (default: the one it starts on)"),
	CB_OPT_UINT("max-run-ms", struct cb_job, set.max_run_ms, CB_MAX_RUN_MS_MIN,
		    CB_MAX_RUN_MS_MAX, NULL, "MS",
		    "bound of one point's run: then it ends with the\n"
		    "samples it has (default 10000, 1..600000)"),
	CB_OPT_CHOICE("estimator", struct cb_job, estimator, cb_estimator_names, "E",
		      "what tables and plateaus show: min (default),\n"
		      "the fastest kept sample, or median"),
	CB_OPT_CHOICE("clock", struct cb_job, core_clocks, cb_clock_names, "C",
		      "the clock of tables and plateaus: tsc (default),\n"
		      "TSC cycles; core: TSC cycles x clock_ratio, the\n"
		      "core clocks the run had (see the clock probe)"),
	CB_OPT_STRING("output", 'o', struct cb_job, output, "FILE",
		      "write the record (JSON lines) to FILE, whole or\n"
		      "not at all"),
	CB_OPT_FLAG("json", 0, struct cb_job, json,
		    "the record's JSON lines on stdout, no tables"),
	CB_OPT_FLAG("plateau", 0, struct cb_job, plateau,
		    "ranges of equal cost (within the noise) instead\n"
		    "of tables"),
	CB_OPT_DOUBLE("tolerance", struct cb_job, tolerance, 0, CB_TOLERANCE_MAX, 0, 1.0 / 100,
		      "a percentage", "PCT", "PCT",
			"plateau: least difference that splits a range,\n"
			"percent (default 1, 0..100), widened by noise"),
	CB_OPT_FLAG("dry-run", 0, struct cb_job, dry_run,
		    "print the points in the order they would run"),
	CB_OPT_FLAG("help", 'h', struct cb_job, help, "this help"),
	CB_OPT_END(),
};

static const struct cb_option cb_job_like_options[] = {
	CB_OPT_STRING("like", 0, struct cb_job, like, "REC",
		      "measure the points of record REC (sizes,\n"
		      "variants, directions, caches, offsets), with its\n"
		      "backend, repeats, samples, loops, estimator and\n"
		      "clock unless given: a record compare can match"),
	CB_OPT_STRING("points", 0, struct cb_job, points, "SPEC",
		      "with --like: only these points of REC, names or\n"
		      "shell patterns ('*.native.4K'), and the controls\n"
		      "of their size classes (compare --help)"),
	CB_OPT_END(),
};

static int cb_opt_as_native(void *field, const char *v, struct cb_error *e)
{
	if (!*v || !strcmp(v, CB_NATIVE_NAME))
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --as-native '%s' (accepted: a fixed variant's name, e.g. movsb)",
			       v);
	*(const char **)field = v;
	return 0;
}

/*
 * Test-only: sweep's options that make a record lie on purpose, so the
 * tests of compare and bisect-run (and tools/compare-validate) can make a
 * known change on a real machine. A table of their own, listed under a
 * heading of their own in --help: no product option sits among them.
 */
static const struct cb_option cb_job_test_options[] = {
	CB_OPT_CALLBACK("as-native", struct cb_job, as_native, required_argument,
			cb_opt_as_native, "V",
			"test-only: time variant V where native would be\n"
			"and record it as native (validation, bisect test)"),
	CB_OPT_DOUBLE("perturb-controls", struct cb_job, perturb, CB_PERTURB_MIN, CB_PERTURB_MAX,
		      0, 1, "a factor", "F", "F",
			"test-only: multiply the control variants' costs\n"
			"by F (0.1..10) after timing: the machine 'moved'"),
	CB_OPT_DOUBLE("slow-spell", struct cb_job, set.spell, 0, CB_SLOW_NATIVE_MAX, CB_LO_OPEN,
		      1, "a percentage", "PCT", "PCT",
			"test-only: the native copy PCT% dearer (as\n"
			"--slow-native) in the first third of each\n"
			"process's rounds only: a slow spell of the\n"
			"machine made to order (interleaved, user backend)"),
	CB_OPT_DOUBLE("slow-native", struct cb_job, slow_native, 0, CB_SLOW_NATIVE_MAX,
		      CB_LO_OPEN, 1, "a percentage", "PCT", "PCT",
			"test-only: the native copy's time per call\n"
			"PCT% dearer, by more of the same copying, as\n"
			"much as measured in the process makes it\n"
			"(0..1000, user backend, hot fixed sizes): a\n"
			"real change of code of known size"),
	CB_OPT_END(),
};

void cb_job_init(struct cb_job *r, enum cb_mode mode)
{
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->backend = "auto";
	r->variants = "all";
	r->directions = CB_DIRECTION_DEFAULT;
	r->caches = CB_CACHE_DEFAULT;
	r->sizes = mode == CB_MODE_SWEEP ? "pow2:1-1M" : "4K";
	r->from = -256;
	r->to = 256;
	r->step = 8;
	r->repeat = CB_REPEAT_DEFAULT;
	r->placement.mode = CB_PLACE_VARY;
	r->tolerance = 0.01;
	r->estimator = CB_EST_MIN;
	r->set.cpu = -1;
	r->set.samples = CB_CMD_SAMPLES_DEFAULT;
	r->design = CB_DESIGN_INTERLEAVED;
	r->set.loops = CB_LOOPS_DEFAULT;
	r->set.max_run_ms = CB_MAX_RUN_MS_DEFAULT;
}

/* "a, b, c" of a name list, for messages. */
static char *cb_join(const char *const *names, unsigned int n)
{
	struct cb_str b = { 0 };
	unsigned int i;

	cb_str_add(&b, "");
	for (i = 0; i < n; i++)
		cb_str_printf(&b, "%s%s", i ? ", " : "", names[i]);
	return b.s;
}

/*
 * A comma-separated list of names (or "all") into indices of names[]; with
 * "all", every name. -1 with e naming the bad item and the accepted ones.
 */
static int cb_pick(const char *opt, const char *arg, const char *const *names, unsigned int n,
		   unsigned int **out, unsigned int *nout, struct cb_error *e)
{
	char *copy, *tok, *save = NULL, *list;
	unsigned int i;
	int k;

	*out = cb_calloc(n, sizeof(**out));
	*nout = 0;
	if (!strcmp(arg, "all")) {
		for (i = 0; i < n; i++)
			(*out)[(*nout)++] = i;
		return 0;
	}
	copy = cb_strdup(arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		k = cbfs_name_index(names, n, tok);
		if (k < 0)
			break;
		for (i = 0; i < *nout && (*out)[i] != (unsigned int)k; i++)
			;
		if (i == *nout)
			(*out)[(*nout)++] = (unsigned int)k;
	}
	if (tok || !*nout || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || *arg == ',') {
		list = cb_join(names, n);
		cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s'%s%s%s (accepted: %s, comma-separated, or all)",
			opt, arg, tok ? ": unknown '" : ": empty item", tok ? tok : "",
			tok ? "'" : "", list);
		free(list);
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

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

static void cb_plan_free(struct cb_plan *pl)
{
	free(pl->sizes);
	free(pl->vars);
	free(pl->dirs);
	free(pl->caches);
	free(pl->offs);
	free(pl->one);
	cb_points_free(pl->ls, pl->nls);
	free(pl->lsel);
	cb_record_free(&pl->like);
	free(pl->pts);
}

/* --like REC: the settings REC was measured with, for those not given. */
static int cb_like_settings(struct cb_job *r, const struct cb_record_header *h,
			    struct cb_error *e)
{
	int i;

	if (!cb_job_given(r, "samples") && !cb_job_given(r, "rounds"))
		r->set.samples = (unsigned long)h->samples;
	/* A record of the block design (none says so) is measured again alike. */
	i = CB_HEADER_HAS(h, design) ? cbfs_name_index(cb_designs, ARRAY_SIZE(cb_designs), h->design) :
				       CB_DESIGN_BLOCK;
	if (i < 0)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: field 'design': '%s' is not a design sweep takes (accepted: interleaved, block)",
			       r->like, h->design);
	if (!cb_job_given(r, "design"))
		r->design = i;
	if (!cb_job_given(r, "rounds") && !cb_job_given(r, "samples") && CB_HEADER_HAS(h, rounds))
		r->set.rounds = (unsigned long)h->rounds;
	/* A record without process_ms timed its rounds exactly. */
	if (!cb_job_given(r, "process-ms") && !cb_job_given(r, "rounds") &&
	    !cb_job_given(r, "samples")) {
		r->set.process_ms = CB_HEADER_HAS(h, process_ms) ? (unsigned long)h->process_ms : 0;
		r->like_process_ms = 1;
	}
	if (!cb_job_given(r, "burst") && CB_HEADER_HAS(h, burst))
		r->set.burst = (unsigned long)h->burst;
	if (!cb_job_given(r, "loops"))
		r->set.loops = (unsigned long)h->loops;
	if (!cb_job_given(r, "max-run-ms"))
		r->set.max_run_ms = (unsigned long)h->max_run_ms;
	if (!cb_job_given(r, "repeat"))
		r->repeat = h->repeat;
	if (!cb_job_given(r, "seed") && CB_HEADER_HAS(h, seed)) {
		r->seeded = 1;
		r->seed = h->seed;
	}
	if (!cb_job_given(r, "backend"))
		r->backend = h->backend;
	if (!cb_job_given(r, "placement") && CB_HEADER_HAS(h, placement) &&
	    cb_placement_parse(h->placement, &r->placement, NULL))
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: field 'placement': '%s' is not a placement sweep takes (accepted: vary, vary-pages, fixed, SRC:DST:STACK)",
			       r->like, h->placement);
	i = cbfs_name_index(cb_estimator_names, ARRAY_SIZE(cb_estimator_names), h->estimator);
	if (!cb_job_given(r, "estimator") && i >= 0)
		r->estimator = (enum cb_estimator)i;
	i = cbfs_name_index(cb_clock_names, ARRAY_SIZE(cb_clock_names), h->clock);
	if (!cb_job_given(r, "clock") && i >= 0)
		r->core_clocks = i;
	if (r->set.samples < CB_SAMPLES_MIN || r->set.samples > CB_SAMPLES_MAX ||
	    r->set.loops > CB_LOOPS_MAX || r->set.max_run_ms < CB_MAX_RUN_MS_MIN ||
	    r->set.max_run_ms > CB_MAX_RUN_MS_MAX || r->repeat < 1 || r->repeat > CB_REPEAT_MAX ||
	    r->set.process_ms > CB_PROCESS_MS_MAX ||
	    cbfs_name_index(cb_backend_choices, ARRAY_SIZE(cb_backend_choices), r->backend) < 0)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s:1: samples, loops, max_run_ms, process_ms, repeat or backend out of the range sweep takes (see sweep --help)",
			       r->like);
	return 0;
}

/*
 * --like REC: REC's points (those --points selects, with their controls)
 * are the plan; the sizes and offsets bound the buffers.
 */
static int cb_plan_like(struct cb_job *r, struct cb_plan *pl, struct cb_error *e)
{
	static const char *const mine[] = { "sizes", "variants", "directions", "cache",
					    "src-offset", "dst-offset" };
	struct cb_patterns pat;
	unsigned long long end, most = 0;
	const struct cb_key *k;
	size_t i, hits;

	for (i = 0; i < ARRAY_SIZE(mine); i++)
		if (cb_job_given(r, mine[i]))
			return cb_fail(e, CB_EXIT_USAGE,
				       "--%s and --like exclude each other: --like measures the points of %s (accepted: --points to pick some)",
				       mine[i], r->like);
	if (cb_record_read(r->like, &pl->like, e) ||
	    cb_like_settings(r, &pl->like.header, e) ||
	    cb_points_group(&pl->like, 0, 0, &pl->ls, &pl->nls, e))
		return -1;
	pl->lsel = cb_calloc(pl->nls, 1);
	memset(pl->lsel, 1, pl->nls);
	if (r->points) {
		if (cb_patterns_parse("points", r->points, &pat, e))
			return -1;
		hits = cb_patterns_select(&pat, pl->ls, pl->nls, pl->lsel);
		cb_patterns_free(&pat);
		if (!hits)
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --points '%s': no point of %s matches (accepted: its point names, as compare prints them, or shell patterns)",
				       r->points, r->like);
	}
	for (i = 0; i < pl->nls; i++) {
		k = &pl->ls[i].key;
		end = k->size_max + (k->src_offset > k->dst_offset ? k->src_offset : k->dst_offset);
		if (pl->lsel[i] && end > most)
			most = end;
		if (pl->lsel[i] && (k->size_max > CB_SIZE_MAX || k->src_offset > CB_OFFSET_MAX ||
				    k->dst_offset > CB_OFFSET_MAX))
			return cb_fail(e, CB_EXIT_USAGE,
				       "%s:%lu: a size or offset beyond what sweep measures (%lu bytes, offsets to %u)",
				       r->like, pl->ls[i].first->line, CB_SIZE_MAX, CB_OFFSET_MAX);
	}
	r->set.max_bytes = most;
	/*
	 * Where REC does not say (a record from before placements), offsets
	 * other than 0 were asked for, and are kept.
	 */
	for (i = 0; i < pl->nls && !CB_HEADER_HAS(&pl->like.header, placement); i++)
		if (pl->ls[i].key.src_offset || pl->ls[i].key.dst_offset)
			r->placement.keep_offsets = 1;
	return 0;
}

/* --placements N: at most one per process (--repeat, or --like's). */
static int cb_plan_placements(const struct cb_job *r, struct cb_error *e)
{
	if (r->place_period <= r->repeat)
		return 0;
	return cb_fail(e, CB_EXIT_USAGE,
		       "invalid --placements %u: more placements than the %llu processes of --repeat (accepted: 1..%llu)",
		       r->place_period, r->repeat, r->repeat);
}

/* Checks that need no backend; fills sizes, directions, caches, offsets. */
static int cb_plan_options(struct cb_job *r, struct cb_plan *pl, struct cb_error *e)
{
	unsigned long long maxsize = 0, maxoff = 0;
	long long d;
	size_t i;

	if (r->json && r->plateau)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--json and --plateau exclude each other (accepted: one of them)");
	if (r->like)
		return cb_plan_like(r, pl, e) || cb_plan_placements(r, e);
	if (r->points)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--points picks points of a record: it needs --like REC");
	if (cb_plan_placements(r, e))
		return -1;
	if (cb_sizes_parse(r->sizes, CB_SIZE_MAX, &pl->sizes, &pl->nsizes, e))
		return -1;
	if (cb_pick("directions", r->directions, cbfs_directions, cbfs_ndirections, &pl->dirs,
		    &pl->ndirs, e))
		return -1;
	if (cb_pick("cache", r->caches, cbfs_caches, cbfs_ncaches, &pl->caches, &pl->ncaches, e))
		return -1;
	pl->all_dirs = !strcmp(r->directions, "all");
	/* Offsets asked for, and alias's distances, are kept: only pages and stack vary. */
	if (r->mode == CB_MODE_ALIAS || cb_job_given(r, "src-offset") ||
	    cb_job_given(r, "dst-offset"))
		r->placement.keep_offsets = 1;
	if (r->mode == CB_MODE_SWEEP) {
		pl->offs = cb_calloc(1, sizeof(*pl->offs));
		pl->offs[0][0] = (unsigned int)r->src_offset;
		pl->offs[0][1] = (unsigned int)r->dst_offset;
		pl->noffs = 1;
		maxoff = r->src_offset > r->dst_offset ? r->src_offset : r->dst_offset;
	} else {
		if (r->from > r->to)
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --from %lld --to %lld: accepted: FROM <= TO", r->from,
				       r->to);
		pl->offs = cb_calloc((size_t)((r->to - r->from) / (long long)r->step) + 1,
				     sizeof(*pl->offs));
		for (d = r->from; d <= r->to; d += (long long)r->step) {
			/* dst - src = d: the other side at the page start. */
			pl->offs[pl->noffs][0] = d < 0 ? (unsigned int)-d : 0;
			pl->offs[pl->noffs][1] = d < 0 ? 0 : (unsigned int)d;
			pl->noffs++;
			if (r->to - d < (long long)r->step)
				break;
		}
		maxoff = (unsigned long long)(-r->from > r->to ? -r->from : r->to);
	}
	for (i = 0; i < pl->nsizes; i++)
		if (pl->sizes[i].hi > maxsize)
			maxsize = pl->sizes[i].hi;
	r->set.max_bytes = maxsize + maxoff;
	return 0;
}

/* Whether the plan has cold points and random sizes (their baselines). */
static void cb_plan_kinds(struct cb_job *r, const struct cb_plan *pl)
{
	int cold = cbfs_name_index(cbfs_caches, cbfs_ncaches, "cold");
	size_t i;

	r->set.cold = r->set.random = 0;
	for (i = 0; i < pl->ncaches; i++)
		r->set.cold |= (int)pl->caches[i] == cold;
	for (i = 0; i < pl->nsizes; i++)
		r->set.random |= pl->sizes[i].random;
	for (i = 0; i < pl->nls; i++) {
		if (!pl->lsel[i])
			continue;
		r->set.cold |= !strcmp(pl->ls[i].key.cache, "cold");
		r->set.random |= pl->ls[i].key.random;
	}
}

/* --as-native V: V's index (timed) and native's (recorded), or -1 and -1. */
static int cb_plan_as_native(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
			     struct cb_error *e)
{
	pl->as_native = pl->native = -1;
	if (!r->as_native)
		return 0;
	pl->as_native = cb_backend_variant(b, r->as_native);
	pl->native = cb_backend_variant(b, CB_NATIVE_NAME);
	if (pl->as_native < 0 || !b->variants[pl->as_native].usable)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --as-native '%s': %s (accepted: a variant of the %s backend this CPU runs)",
			       r->as_native, pl->as_native < 0 ? "no such variant" : "this CPU cannot run it",
			       b->ops->name);
	if (pl->native < 0)
		return cb_fail(e, CB_EXIT_USAGE, "--as-native: the %s backend has no native variant",
			       b->ops->name);
	return 0;
}

/* --like: each selected point of the record, resolved against the backend. */
static int cb_plan_like_backend(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
				struct cb_error *e)
{
	const struct cb_pointset *ls;
	const struct cb_key *k;
	struct cb_point *p;
	int v, label, d, c;
	size_t i;

	pl->one = cb_calloc(pl->nls, sizeof(*pl->one));
	for (i = 0; i < pl->nls; i++) {
		if (!pl->lsel[i])
			continue;
		ls = &pl->ls[i];
		k = &ls->key;
		label = cb_backend_variant(b, k->variant);
		v = label == pl->native && pl->as_native >= 0 ? pl->as_native : label;
		d = cbfs_name_index(cbfs_directions, cbfs_ndirections, k->direction);
		c = cbfs_name_index(cbfs_caches, cbfs_ncaches, k->cache);
		if (label >= 0 && label == pl->as_native)
			return cb_fail(e, CB_EXIT_USAGE,
				       "--as-native %s: %s measures %s as a control too (line %lu): it cannot also stand in for native",
				       r->as_native, r->like, k->variant, ls->first->line);
		if (v < 0 || !b->variants[v].usable || d < 0 || c < 0 ||
		    !(b->variants[v].dirs >> d & 1) || (k->random && !b->random_sizes))
			return cb_fail(e, CB_EXIT_USAGE,
				       "%s:%lu: the %s backend cannot measure %s %s, cache %s%s (accepted: the variants, directions and caches it lists; copybench sweep --backend %s --dry-run shows them)",
				       r->like, ls->first->line, b->ops->name, k->direction, k->variant,
				       k->cache, k->random ? ", random sizes" : "", b->ops->name);
		p = &pl->one[pl->none++];
		p->dir = (unsigned int)d;
		p->variant = (unsigned int)v;
		p->label = (unsigned int)label;
		p->size.lo = k->size;
		p->size.hi = k->size_max;
		p->size.random = k->random;
		p->src_offset = (unsigned int)k->src_offset;
		p->dst_offset = (unsigned int)k->dst_offset;
		p->cache = (unsigned int)c;
		p->seed = r->seeded ? r->seed : 1;
	}
	if ((double)pl->none * (double)r->repeat > CB_POINTS_MAX)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%zu points x %llu repeats: more than the %lu one run takes; ask for fewer",
			       pl->none, r->repeat, CB_POINTS_MAX);
	return 0;
}

/* The variant timed for variant var of the plan: --as-native's for native. */
static unsigned int cb_timed(const struct cb_plan *pl, unsigned int var)
{
	return pl->as_native >= 0 && var == (unsigned int)pl->native ?
	       (unsigned int)pl->as_native : var;
}

/*
 * --as-native V: V stands in for native, so it is not also measured under
 * its own name (all: left out; named: refused), and native must be asked.
 */
static int cb_plan_drop_as_native(struct cb_job *r, struct cb_plan *pl, struct cb_error *e)
{
	unsigned int i, k = 0;
	int native = 0;

	for (i = 0; i < pl->nvars; i++) {
		if (pl->vars[i] == (unsigned int)pl->as_native) {
			if (!pl->all_vars)
				return cb_fail(e, CB_EXIT_USAGE,
					       "--as-native %s: %s is in --variants too, and would be measured twice (accepted: --variants without it)",
					       r->as_native, r->as_native);
			continue;
		}
		native |= pl->vars[i] == (unsigned int)pl->native;
		pl->vars[k++] = pl->vars[i];
	}
	pl->nvars = k;
	if (!native)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--as-native %s stands in for native, which --variants leaves out (accepted: native among --variants)",
			       r->as_native);
	return 0;
}

/* Checks against the backend: variants, their directions, random sizes. */
/* --variants: the backend's names picked, the unusable ones left out (or refused when named). */
static int cb_plan_variants(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
			    struct cb_error *e)
{
	const char **names = cb_calloc(b->nvariants, sizeof(*names));
	const struct cb_variant_info *v;
	unsigned int i, k = 0;
	int ret;

	for (i = 0; i < b->nvariants; i++)
		names[i] = b->variants[i].name;
	pl->all_vars = !strcmp(r->variants, "all");
	ret = cb_pick("variants", r->variants, names, b->nvariants, &pl->vars, &pl->nvars, e);
	free(names);
	if (ret)
		return -1;
	for (i = 0; i < pl->nvars; i++) {
		v = &b->variants[pl->vars[i]];
		if (v->usable) {
			pl->vars[k++] = pl->vars[i];
			continue;
		}
		if (!pl->all_vars)
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --variants: '%s' cannot run on this CPU (the %s backend lists it as unusable)",
				       v->name, b->ops->name);
	}
	pl->nvars = k;
	return 0;
}

/* What the backend can measure of the plan: directions, random sizes, the count. */
static int cb_plan_fits(const struct cb_job *r, const struct cb_plan *pl,
			const struct cb_backend *b, struct cb_error *e)
{
	const struct cb_variant_info *v;
	unsigned int i, j;
	double points;
	size_t s;

	for (i = 0; i < pl->nvars && !pl->all_vars && !pl->all_dirs; i++) {
		v = &b->variants[cb_timed(pl, pl->vars[i])];
		for (j = 0; j < pl->ndirs; j++)
			if (!(v->dirs >> pl->dirs[j] & 1))
				return cb_fail(e, CB_EXIT_USAGE,
					       "variant '%s' does not support direction '%s' with the %s backend (accepted: the directions it lists; --directions all picks them per variant)",
					       v->name, cbfs_directions[pl->dirs[j]], b->ops->name);
	}
	for (s = 0; s < pl->nsizes; s++)
		if (pl->sizes[s].random && !b->random_sizes)
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --sizes '%s': random sizes need --backend user (copybench.ko copies one size per run)",
				       r->sizes);
	if (r->mode == CB_MODE_ALIAS)
		for (s = 0; s < pl->nsizes; s++)
			if (pl->sizes[s].random)
				return cb_fail(e, CB_EXIT_USAGE,
					       "invalid --sizes '%s': alias takes fixed sizes only",
					       r->sizes);
	/* In doubles: the product of six counts cannot overflow there. */
	points = (double)pl->ncaches * (double)pl->noffs * (double)pl->nsizes *
		 (double)pl->ndirs * (double)pl->nvars * (double)r->repeat;
	if (points > CB_POINTS_MAX)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%.0f points (sizes x variants x directions x caches%s x repeats): more than the %lu one run takes; ask for fewer",
			       points, r->mode == CB_MODE_ALIAS ? " x distances" : "", CB_POINTS_MAX);
	return 0;
}

static int cb_plan_backend(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
			   struct cb_error *e)
{
	if (cb_plan_as_native(r, pl, b, e))
		return -1;
	if (r->like)
		return cb_plan_like_backend(r, pl, b, e);
	if (cb_plan_variants(r, pl, b, e) ||
	    (pl->as_native >= 0 && cb_plan_drop_as_native(r, pl, e)))
		return -1;
	return cb_plan_fits(r, pl, b, e);
}

/* xorshift64*, for shuffling. */
static unsigned long long cb_splitmix(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/*
 * The points of one repeat: for each cache, offsets pair, size, direction,
 * variant (variants innermost, so a point's controls run next to it).
 * Then repeat-major, each repeat shuffled when seeded.
 */
static void cb_plan_build(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b)
{
	size_t total = pl->ncaches * pl->noffs * pl->nsizes * pl->ndirs * pl->nvars;
	size_t k, q, c, o, s, d, v, n = 0, i, j, rep;
	struct cb_point *one, t;
	unsigned long long st;

	if (r->like) {
		total = 0;
		one = cb_calloc(pl->none, sizeof(*one));
		memcpy(one, pl->one, pl->none * sizeof(*one));
		n = pl->none;
	} else {
		one = cb_calloc(total, sizeof(*one));
	}
	/* k counts in the mixed radix (cache, offsets, size, direction, variant). */
	for (k = 0; k < total; k++) {
		q = k;
		v = q % pl->nvars;
		q /= pl->nvars;
		d = q % pl->ndirs;
		q /= pl->ndirs;
		s = q % pl->nsizes;
		q /= pl->nsizes;
		o = q % pl->noffs;
		c = q / pl->noffs;
		if (!(b->variants[cb_timed(pl, pl->vars[v])].dirs >> pl->dirs[d] & 1))
			continue;
		one[n].cache = pl->caches[c];
		one[n].src_offset = pl->offs[o][0];
		one[n].dst_offset = pl->offs[o][1];
		one[n].size = pl->sizes[s];
		one[n].dir = pl->dirs[d];
		one[n].variant = cb_timed(pl, pl->vars[v]);
		one[n].label = pl->vars[v];
		one[n].seed = r->seeded ? r->seed : 1;
		n++;
	}
	pl->pts = cb_calloc(n * r->repeat, sizeof(*pl->pts));
	for (rep = 0; rep < r->repeat; rep++) {
		st = (r->seed + rep) * 0x9E3779B97F4A7C15ULL | 1;
		for (i = 0; i < n; i++) {
			pl->pts[pl->npts + i] = one[i];
			pl->pts[pl->npts + i].repeat = (unsigned int)rep;
		}
		for (i = n; r->seeded && i > 1; i--) {
			j = (size_t)(cb_splitmix(&st) % i);
			t = pl->pts[pl->npts + i - 1];
			pl->pts[pl->npts + i - 1] = pl->pts[pl->npts + j];
			pl->pts[pl->npts + j] = t;
		}
		pl->npts += n;
	}
	free(one);
}

/* The placement of process i (its CPU included). */
static void cb_process_place(const struct cb_job *r, const int *cpus, int ncpus, int here,
			     unsigned int i, struct cb_place *p)
{
	unsigned int at = r->place_period ? i % r->place_period : i;

	cb_place_draw(&r->placement, r->seeded ? r->seed : 1, at, p);
	if (r->set.cpu >= 0)
		p->cpu = (int)r->set.cpu;
	else if (r->placement.mode == CB_PLACE_VARY && ncpus)
		p->cpu = cpus[at % (unsigned int)ncpus];
	else
		p->cpu = here;
}

static void cb_print_plan(FILE *f, const struct cb_job *r, const struct cb_plan *pl,
			  const struct cb_backend *b, const struct cb_place *places)
{
	struct cb_str d = { 0 };
	char sz[64];
	size_t i;

	fprintf(f, "# %zu points in %llu process(es), in the order they would run (backend %s)\n",
		pl->npts, r->repeat, b->ops->name);
	fprintf(f, "# repeat direction variant size src_offset dst_offset cache\n");
	for (i = 0; i < pl->npts; i++) {
		if (!i || pl->pts[i].repeat != pl->pts[i - 1].repeat) {
			d.len = 0;
			cb_str_add(&d, "");
			cb_place_describe(&places[pl->pts[i].repeat], &d);
			fprintf(f, "# process %u: %s\n", pl->pts[i].repeat, d.s);
		}
		fprintf(f, "%u %s %s%s%s%s %s %u %u %s\n", pl->pts[i].repeat,
			cbfs_directions[pl->pts[i].dir], cb_point_label(b->variants, &pl->pts[i]),
			pl->pts[i].label == pl->pts[i].variant ? "" : "(",
			pl->pts[i].label == pl->pts[i].variant ? "" : b->variants[pl->pts[i].variant].name,
			pl->pts[i].label == pl->pts[i].variant ? "" : ")",
			cb_size_name(&pl->pts[i].size, sz, sizeof(sz)), pl->pts[i].src_offset,
			pl->pts[i].dst_offset, cbfs_caches[pl->pts[i].cache]);
	}
	cb_str_free(&d);
}

/* "points done, time left" on stderr, when it is a terminal. */
static void cb_progress(size_t done, size_t total, unsigned long long start,
			unsigned long long *last, int tty)
{
	unsigned long long now = cb_now_ns();
	double left;

	if (!tty || (done < total && now - *last < CB_PROGRESS_NS))
		return;
	*last = now;
	if (done == total) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	left = done ? (double)(now - start) / 1e9 / (double)done * (double)(total - done) : 0;
	fprintf(stderr, "\r\033[K%s: %zu/%zu points (%zu%%), %.0f s left", cb_prog, done, total,
		done * 100 / total, ceil(left));
	fflush(stderr);
}

static void cb_header(struct cb_job *r, const struct cb_backend *b, int cpu,
		      const char *buffers, struct cb_record_header *h)
{
	struct cb_str pl = { 0 };

	memset(h, 0, sizeof(*h));
	cb_sysinfo(h);
	h->copybench_record = CB_RECORD_VERSION;
	h->subcommand = cb_strdup(r->mode == CB_MODE_SWEEP ? "sweep" : "alias");
	h->backend = cb_strdup(b->ops->name);
	h->tsc_khz = b->tsc_khz;
	h->command = cb_strdup(cb_command);
	/* -1: the processes on CPUs in turn (their points' run_cpu). */
	h->cpu = r->set.cpu >= 0 || r->placement.mode != CB_PLACE_VARY ? cpu : -1;
	h->samples = r->set.samples;
	h->loops = r->set.loops;
	h->max_run_ms = r->set.max_run_ms;
	h->repeat = r->repeat;
	if (r->seeded) {
		h->seed = r->seed;
		CB_HEADER_SET(h, seed);
	}
	h->estimator = cb_strdup(cb_estimator_names[r->estimator]);
	h->clock = cb_strdup(cb_clock_names[r->core_clocks]);
	h->buffers = cb_strdup(buffers ? buffers : "unknown");
	if (r->as_native) {
		h->as_native = cb_strdup(r->as_native);
		CB_HEADER_SET(h, as_native);
	}
	if (r->perturb > 0) {
		h->perturb_controls = r->perturb;
		CB_HEADER_SET(h, perturb_controls);
	}
	cb_placement_name(&r->placement, &pl);
	h->placement = pl.s;
	CB_HEADER_SET(h, placement);
	if (r->slow_native > 0) {
		h->slow_native = r->slow_native;
		CB_HEADER_SET(h, slow_native);
	}
	h->design = cb_strdup(cb_designs[r->design]);
	CB_HEADER_SET(h, design);
	if (r->set.rounds) {
		h->rounds = r->set.rounds;
		h->burst = r->set.burst;
		CB_HEADER_SET(h, rounds);
		CB_HEADER_SET(h, burst);
	}
	if (r->set.process_ms) {
		h->process_ms = r->set.process_ms;
		CB_HEADER_SET(h, process_ms);
	}
	if (r->set.spell > 0) {
		h->slow_spell = r->set.spell;
		CB_HEADER_SET(h, slow_spell);
	}
	if (b->ops->call_sites) {
		h->call_sites = b->ops->call_sites;
		CB_HEADER_SET(h, call_sites);
	}
}

/*
 * The test-only --perturb-controls: a control's costs times f, as if the
 * machine had moved by that much (the header says so: as_native and
 * perturb_controls make a record a test record).
 */
static void cb_perturb(struct cb_result *res, double f)
{
	res->min *= f;
	res->q02 *= f;
	res->median *= f;
	res->mean *= f;
	res->stddev *= f;
	res->max *= f;
}

static int cb_plan_ready(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
			 struct cb_error *e);

/* ---- The worker: one process, one repeat ---------------------------------- */

struct cb_worker_run {
	struct cb_job *r;
	struct cb_backend *b;
	const struct cb_point *pts;
	size_t n;
	long stack;
	struct cb_error *e;
};

/* One point's record line on stdout. */
static int cb_worker_put(struct cb_worker_run *w, struct cb_measured *m, struct cb_str *line)
{
	struct cb_record_point rp;

	if (w->r->perturb > 0 && strcmp(cb_point_label(w->b->variants, &m->p), CB_NATIVE_NAME))
		cb_perturb(&m->r, w->r->perturb);
	cb_record_point_build(&rp, w->b, &m->p, &m->r);
	rp.pid = (unsigned long long)getpid();
	CB_POINT_SET(&rp, pid);
	if (w->stack >= 0) {
		rp.stack_place = (unsigned long long)w->stack;
		CB_POINT_SET(&rp, stack_place);
	}
	line->len = 0;
	cb_record_point_json(line, &rp);
	cb_record_point_free(&rp);
	if (fputs(line->s, stdout) < 0 || fflush(stdout))
		return cb_fail(w->e, CB_EXIT_RUNTIME, "writing to the command: %s", strerror(errno));
	return 0;
}

/* The block design: each point's samples in one run, one point after the other. */
static int cb_worker_block(struct cb_worker_run *w)
{
	struct cb_str line = { 0 };
	struct cb_measured m;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->n && !ret; i++) {
		if (cb_stop()) {
			ret = cb_fail(w->e, CB_EXIT_RUNTIME, "interrupted");
			break;
		}
		m.p = w->pts[i];
		ret = w->b->ops->measure(w->b, &w->pts[i], &m.r, w->e);
		if (!ret)
			ret = cb_worker_put(w, &m, &line);
	}
	cb_str_free(&line);
	return ret;
}

static int cb_worker_emit(void *arg, struct cb_measured *m)
{
	struct cb_worker_run *w = arg;
	struct cb_str line = { 0 };
	int ret = cb_worker_put(w, m, &line);

	cb_str_free(&line);
	return ret;
}

/* On the worker's stack: every point of its repeat, a record line each on stdout. */
static int cb_worker_measure(void *arg)
{
	struct cb_worker_run *w = arg;

	if (!w->b->set->rounds)
		return cb_worker_block(w);
	return cb_interleave(w->b, w->pts, w->n, w->r->seeded ? w->r->seed : 1, w->e,
			     cb_worker_emit, w);
}

/* The worker's first line: its pid, and how its buffers are backed (the header's). */
static void cb_worker_hello(const struct cb_backend *b)
{
	struct cb_str hello = { 0 };

	cb_str_printf(&hello, "{\"copybench_worker\":1,\"pid\":%d,\"buffers\":", (int)getpid());
	cb_str_json(&hello, b->buffers ? b->buffers : "unknown");
	cb_str_printf(&hello, ",\"cpu\":%d}\n", b->cpu);
	fputs(hello.s, stdout);
	fflush(stdout);
	cb_str_free(&hello);
}

/*
 * A worker: the plan as the command made it, opened at its placement; its
 * repeat's points measured on its own stack. First line: who it is.
 */
static int cb_job_worker(struct cb_job *r, const struct cb_worker_args *wa)
{
	struct cb_backend b = { 0 };
	struct cb_plan pl = { 0 };
	struct cb_error e = { 0 };
	struct cb_worker_run w = { .r = r, .b = &b, .e = &e, .stack = -1 };
	size_t i, first = 0;
	int status = CB_EXIT_OK, ret;

	cb_signals_init();
	r->set.cpu = wa->place.cpu;
	r->set.place = &wa->place;
	r->set.tsc_khz = wa->tsc_khz;
	r->set.load = NULL;	/* the command loaded it, and unloads it */
	r->set.slow_native = r->slow_native;
	if (cb_plan_options(r, &pl, &e))
		goto fail;
	cb_plan_kinds(r, &pl);
	if (cb_backend_open(&b, wa->backend, &r->set, &e) || cb_plan_backend(r, &pl, &b, &e))
		goto fail;
	if (cb_plan_ready(r, &pl, &b, &e))
		goto fail;
	for (i = 0; i < pl.npts && pl.pts[i].repeat != wa->index; i++)
		;
	for (first = i; i < pl.npts && pl.pts[i].repeat == wa->index; i++)
		;
	if (first == pl.npts) {
		cb_fail(&e, CB_EXIT_USAGE, "process %u: the plan has no such repeat", wa->index);
		goto fail;
	}
	w.pts = pl.pts + first;
	w.n = i - first;
	w.stack = wa->place.stack;
	cb_worker_hello(&b);
	if (cb_on_stack(wa->place.stack, cb_worker_measure, &w, &ret)) {
		cb_fail(&e, CB_EXIT_RUNTIME, "cannot set up a stack at page offset %ld: %s",
			wa->place.stack, strerror(errno));
		goto fail;
	}
	if (ret)
		goto fail;
	goto out;
fail:
	/* Interrupted: the command that started it says so. */
	status = cb_stop() ? 128 + cb_stop() : cb_report(&e);
out:
	cb_backend_free(&b);
	cb_plan_free(&pl);
	return status;
}

/* ---- The command: a process per repeat ------------------------------------ */

/* struct cb_parent - the command measuring through its workers. */
struct cb_parent {
	struct cb_job *r;
	struct cb_backend *b;
	const struct cb_plan *pl;
	struct cb_measured *m;
	FILE *out;			/* -o's temporary file, or NULL */
	struct cb_str line;
	int header_done;
	int cpu;			/* the header's */
	size_t done;
	unsigned long long start, last;
	int tty;
};

/* Whether a worker's line is the point the plan has there. */
static int cb_line_is(const struct cb_record_point *rp, const struct cb_point *p,
		      const struct cb_backend *b)
{
	return !strcmp(rp->direction, cbfs_directions[p->dir]) &&
	       !strcmp(rp->variant, cb_point_label(b->variants, p)) &&
	       rp->size == p->size.lo && CB_POINT_HAS(rp, size_max) == p->size.random &&
	       (!p->size.random || rp->size_max == p->size.hi) &&
	       rp->src_offset == p->src_offset && rp->dst_offset == p->dst_offset &&
	       !strcmp(rp->cache, cbfs_caches[p->cache]) && rp->repeat == p->repeat;
}

/* To -o and, with --json, stdout. */
static void cb_parent_put(struct cb_parent *c, const char *s)
{
	if (c->out)
		fputs(s, c->out);
	if (c->r->json) {
		fputs(s, stdout);
		fflush(stdout);
	}
}

/* The worker's first line: its pid, and how its buffers are backed (the header's). */
static int cb_parent_hello(struct cb_parent *c, const struct cb_worker *w, const char *s,
			   size_t len, struct cb_error *e)
{
	const struct cb_json *pid, *buf;
	struct cb_record_header h;
	char why[CB_ERR_MAX / 2];
	struct cb_json v;
	int bad;

	if (cb_json_parse(s, len, &v, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d: not a worker's first line: %s",
			       (int)w->pid, why);
	pid = cb_json_get(&v, "pid");
	buf = cb_json_get(&v, "buffers");
	bad = !cb_json_get(&v, "copybench_worker") || !pid || !pid->is_uint ||
	      pid->u != (unsigned long long)w->pid || !buf || buf->type != CB_JSON_STRING;
	if (!bad && !c->header_done) {
		cb_header(c->r, c->b, c->cpu, buf->str, &h);
		c->line.len = 0;
		cb_record_header_json(&c->line, &h);
		cb_record_header_free(&h);
		cb_parent_put(c, c->line.s);
		c->header_done = 1;
	}
	cb_json_free(&v);
	if (bad)
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d: not a worker's first line: %s",
			       (int)w->pid, s);
	return 0;
}

/* One line of the worker: the planned point k, measured by it. */
static int cb_parent_point(struct cb_parent *c, const struct cb_worker *w, size_t k,
			   const char *s, size_t len, struct cb_error *e)
{
	struct cb_record_point rp;
	char why[CB_ERR_MAX / 2];
	int ok;

	if (cb_record_point_parse(s, len, &rp, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d wrote a bad line: %s", (int)w->pid,
			       why);
	ok = cb_line_is(&rp, &c->pl->pts[k], c->b) && CB_POINT_HAS(&rp, pid) &&
	     rp.pid == (unsigned long long)w->pid;
	if (ok) {
		c->m[k].p = c->pl->pts[k];
		cb_record_point_result(&rp, &c->m[k].r);
		c->line.len = 0;
		cb_record_point_json(&c->line, &rp);
		cb_parent_put(c, c->line.s);
	}
	cb_record_point_free(&rp);
	if (!ok)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "process %d measured another point than planned (line %zu of its repeat)",
			       (int)w->pid, k % (c->pl->npts / (size_t)c->r->repeat) + 1);
	return 0;
}

/* Process i: started, its lines read, checked and written, and waited for. */
static int cb_parent_process(struct cb_parent *c, unsigned int i, const struct cb_place *place,
			     struct cb_error *e)
{
	struct cb_worker_args wa = {
		.index = i, .place = *place, .tsc_khz = c->b->tsc_khz, .backend = c->b->ops->name,
	};
	size_t per = c->pl->npts / (size_t)c->r->repeat, k = i * per, got = 0;
	char **argv = cb_worker_argv(&wa, c->r->argc, c->r->argv);
	struct cb_error ignored;
	struct cb_worker w;
	char *line;
	size_t len;
	int ret;

	ret = cb_worker_start(&w, argv, e);
	cb_worker_argv_free(argv);
	if (ret)
		return -1;
	while ((ret = cb_worker_line(&w, &line, &len, e)) > 0) {
		if (!got++)
			ret = cb_parent_hello(c, &w, line, len, e);
		else if (got - 1 > per)
			ret = cb_fail(e, CB_EXIT_RUNTIME, "process %d wrote more lines than planned",
				      (int)w.pid);
		else
			ret = cb_parent_point(c, &w, k + got - 2, line, len, e);
		if (ret)
			break;
		cb_progress(c->done + (got > 1 ? got - 1 : 0), c->pl->npts, c->start, &c->last,
			    c->tty);
	}
	if (ret) {
		/* Something is wrong with it: stop it, and say what first. */
		kill(w.pid, SIGTERM);
		cb_worker_finish(&w, &ignored);
		return -1;
	}
	if (cb_worker_finish(&w, e))
		return -1;
	if (got != per + 1)
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d ended after %zu of %zu points",
			       (int)w.pid, got ? got - 1 : 0, per);
	c->done += per;
	return 0;
}

/* The measuring side's state: the plan on backend b, lines to out, CPU here. */
static void cb_parent_init(struct cb_parent *c, struct cb_backend *b, const struct cb_plan *pl,
			   FILE *out, int here)
{
	c->b = b;
	c->pl = pl;
	c->m = cb_calloc(pl->npts, sizeof(*c->m));
	c->out = out;
	c->cpu = c->r->set.cpu >= 0 ? (int)c->r->set.cpu : here;
	c->tty = isatty(2) && !c->r->json;
	c->start = cb_now_ns();
}

/* Every repeat, a process each at places[i], in order; the progress line ended. */
static int cb_parent_measure(struct cb_parent *c, const struct cb_place *places,
			     struct cb_error *e)
{
	size_t i;

	for (i = 0; i < c->r->repeat; i++)
		if (cb_stop() || cb_parent_process(c, (unsigned int)i, &places[i], e))
			return -1;
	cb_progress(c->pl->npts, c->pl->npts, c->start, &c->last, c->tty);
	return 0;
}

/*
 * The design's settings for this backend: rounds and burst (their defaults
 * are the backend's), --samples their product; the block design has none.
 */
static int cb_plan_design(struct cb_job *r, const struct cb_backend *b, struct cb_error *e)
{
	int module = !strcmp(b->ops->name, "module");

	if (r->design == CB_DESIGN_BLOCK) {
		if (cb_job_given(r, "rounds") || cb_job_given(r, "burst") ||
		    cb_job_given(r, "process-ms") || r->set.spell > 0)
			return cb_fail(e, CB_EXIT_USAGE,
				       "--rounds, --burst, --process-ms and --slow-spell are the interleaved design's (accepted: --design interleaved, or none of them)");
		r->set.rounds = r->set.burst = r->set.process_ms = 0;
		return 0;
	}
	if (cb_job_given(r, "rounds") && cb_job_given(r, "samples"))
		return cb_fail(e, CB_EXIT_USAGE,
			       "--rounds %lu and --samples %lu: the samples are rounds x burst (accepted: one of the two)",
			       r->set.rounds, r->set.samples);
	if (r->set.spell > 0 && module)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--slow-spell: the module backend cannot slow its native copy (accepted: --backend user)");
	if (!r->set.burst)
		r->set.burst = module ? CB_MB_BURST_DEFAULT : CB_BURST_DEFAULT;
	/* --samples N: N in bursts of the default, or fewer samples all in one. */
	if (cb_job_given(r, "samples") && !cb_job_given(r, "burst") && r->set.samples < r->set.burst)
		r->set.burst = r->set.samples;
	if (!r->set.rounds && cb_job_given(r, "samples"))
		r->set.rounds = (r->set.samples + r->set.burst - 1) / r->set.burst;
	/*
	 * By duration when nothing says otherwise: the user backend's
	 * default; --process-ms alone takes the least rounds.
	 */
	if (!r->set.rounds && !cb_job_given(r, "process-ms") && !r->like_process_ms && !module)
		r->set.process_ms = CB_PROCESS_MS_DEFAULT;
	if (!r->set.rounds && r->set.process_ms)
		r->set.rounds = CB_ROUNDS_LEAST;
	if (!r->set.rounds)
		r->set.rounds = module ? CB_MB_ROUNDS_DEFAULT : CB_ROUNDS_DEFAULT;
	if (r->set.rounds * r->set.burst > CB_SAMPLES_MAX)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --rounds %lu with --burst %lu: %lu samples a point (accepted: rounds x burst up to %u)",
			       r->set.rounds, r->set.burst, r->set.rounds * r->set.burst,
			       CB_SAMPLES_MAX);
	r->set.samples = r->set.rounds * r->set.burst;
	return 0;
}

/*
 * The plan built and checked against the backend: something to measure,
 * and --slow-native only where it can act (the user backend's hot,
 * fixed-size native points).
 */
static int cb_plan_ready(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
			 struct cb_error *e)
{
	size_t i;

	if (r->slow_native > 0 && strcmp(b->ops->name, "user"))
		return cb_fail(e, CB_EXIT_USAGE, "--slow-native: the %s backend cannot slow its native copy (accepted: --backend user)",
			       b->ops->name);
	if (cb_plan_design(r, b, e))
		return -1;
	cb_plan_build(r, pl, b);
	if (!pl->npts)
		return cb_fail(e, CB_EXIT_USAGE, "nothing to measure: no variant supports the directions asked");
	/* Interleaved, every point of a process holds its samples until the last round. */
	if (r->set.rounds && pl->npts / r->repeat * r->set.samples > CB_INTERLEAVED_SAMPLES_MAX)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%llu points a process x %lu samples: more than the interleaved design holds at once (accepted: up to %llu in all; fewer sizes, fewer --rounds, or --design block)",
			       (unsigned long long)pl->npts / r->repeat, r->set.samples,
			       CB_INTERLEAVED_SAMPLES_MAX);
	for (i = 0; r->slow_native > 0 && i < pl->npts; i++)
		if (!strcmp(cb_point_label(b->variants, &pl->pts[i]), CB_NATIVE_NAME) &&
		    (pl->pts[i].size.random || strcmp(cbfs_caches[pl->pts[i].cache], "hot")))
			return cb_fail(e, CB_EXIT_USAGE,
				       "--slow-native: hot, fixed-size native points only (accepted: --cache hot, sizes without random:)");
	return 0;
}

/* The tables or plateaus of m[0..n); the exit status: a point not verified fails. */
static int cb_job_report(const struct cb_job *r, const struct cb_backend *b,
			 const struct cb_measured *m, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += !m[i].r.verified;
	if (r->plateau)
		cb_report_plateaus(stdout, r, b, m, n);
	else if (!r->json)
		cb_report_tables(stdout, r, b, m, n);
	if (!bad)
		return CB_EXIT_OK;
	cb_warn("%zu of %zu points failed verification (\"verified\": false): the copy is wrong",
		bad, n);
	return CB_EXIT_RUNTIME;
}

/* Where each repeat's process runs, of the ncpus cpus allowed (this one: here). */
static struct cb_place *cb_job_places(const struct cb_job *r, const int *cpus, int ncpus,
				      int here)
{
	struct cb_place *places = cb_calloc(r->repeat, sizeof(*places));
	size_t i;

	for (i = 0; i < r->repeat; i++)
		cb_process_place(r, cpus, ncpus, here, (unsigned int)i, &places[i]);
	return places;
}

int cb_job_main(struct cb_job *r)
{
	const struct cb_worker_args *wa = cb_worker_args();
	struct cb_outfile of = { 0 };
	struct cb_parent c = { .r = r };
	struct cb_place *places = NULL;
	struct cb_backend b = { 0 };
	struct cb_plan pl = { 0 };
	struct cb_error e = { 0 };
	int *cpus = NULL, ncpus, here = sched_getcpu();
	int status = CB_EXIT_OK;

	if (wa)
		return cb_job_worker(r, wa);
	cb_signals_init();
	r->set.describe = 1;
	if (cb_plan_options(r, &pl, &e))
		goto fail;
	if (r->output && !r->dry_run && cb_outfile_open(&of, r->output, &e))
		goto fail;
	ncpus = cb_cpus_allowed(&cpus, &e);
	if (ncpus < 0 || (r->set.cpu >= 0 && cb_cpu_check(r->set.cpu, &e)))
		goto fail;
	if (cb_backend_open(&b, r->backend, &r->set, &e) || cb_plan_backend(r, &pl, &b, &e) ||
	    cb_plan_ready(r, &pl, &b, &e))
		goto fail;
	places = cb_job_places(r, cpus, ncpus, here);
	if (r->dry_run) {
		cb_print_plan(stdout, r, &pl, &b, places);
		goto out;
	}

	cb_parent_init(&c, &b, &pl, of.f, here);
	if (cb_parent_measure(&c, places, &e))
		goto fail;
	/* The module back as it was (or unloaded) before anything is printed. */
	cb_backend_close(&b);
	if (of.f && cb_outfile_commit(&of, &e))
		goto fail;
	status = cb_job_report(r, &b, c.m, pl.npts);
	goto out;
fail:
	cb_progress(pl.npts, pl.npts, c.start, &c.last, c.tty);
	if (cb_stop())
		status = 128 + cb_stop();
	else
		status = cb_report(&e);
out:
	cb_outfile_abort(&of);
	cb_backend_free(&b);
	cb_plan_free(&pl);
	cb_str_free(&c.line);
	free(c.m);
	free(places);
	free(cpus);
	return status;
}

int cb_job_given(const struct cb_job *r, const char *name)
{
	return cb_option_given(r->tables, &r->given, name);
}

int cb_job_command(int argc, char **argv, enum cb_mode mode, const struct cb_option *own,
		   const char *usage)
{
	const struct cb_option *const tables[] = {
		own, cb_job_options, mode == CB_MODE_SWEEP ? cb_job_like_options : NULL,
		mode == CB_MODE_SWEEP ? cb_job_test_options : NULL, NULL
	};
	const struct cb_option *const product[] = { own, cb_job_options,
		mode == CB_MODE_SWEEP ? cb_job_like_options : NULL, NULL };
	const struct cb_option *const test[] = { cb_job_test_options, NULL };
	struct cb_job r;
	struct cb_error e = { 0 };
	int first;

	cb_job_init(&r, mode);
	r.argc = argc;
	r.argv = argv;
	r.tables = tables;
	first = cb_options_parse(argc, argv, tables, &r, &r.given, &e);
	if (first < 0)
		return cb_report(&e);
	r.seeded = cb_job_given(&r, "seed");
	if (r.help) {
		fputs(usage, stdout);
		cb_options_help(stdout, product);
		if (mode == CB_MODE_SWEEP) {
			fputs("\nTest-only options (they make the record lie on purpose, for the\n"
			      "tests of compare and bisect-run):\n", stdout);
			cb_options_help(stdout, test);
		}
		return CB_EXIT_OK;
	}
	if (first < argc) {
		cb_fail(&e, CB_EXIT_USAGE, "unexpected argument '%s' (this subcommand takes options only; see --help)",
			argv[first]);
		return cb_report(&e);
	}
	return cb_job_main(&r);
}
