// SPDX-License-Identifier: GPL-2.0
/*
 * job.c - what sweep and alias share, a job (job.h): the common options,
 * the command's side of the processes (each told its order, its lines
 * checked against the plan) with its progress line, the record's header
 * and the report. The plan is plan.c's; the worker's side is worker.c.
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
#include <sys/wait.h>
#include <linux/types.h>

#include "copybench.h"
#include "interleave.h"
#include "job.h"
#include "plateau.h"
#include "process.h"
#include "report.h"
#include "sysinfo.h"

#define CB_PROGRESS_NS		200000000ULL

/* ---- The options: each written once, with its field (options.h) -------- */

int cb_opt_cpu(void *field, const char *v, struct cb_error *e)
{
	long long cpu;

	if (cb_parse_i64(v, 0, 1L << 20, &cpu))
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --cpu '%s' (accepted: a CPU number this process may run on)",
			       v);
	*(long *)field = (long)cpu;
	return 0;
}

void cb_put_cpu(const void *field, struct cb_str *b)
{
	cb_str_printf(b, "%ld", *(const long *)field);
}

static int cb_opt_placement(void *field, const char *v, struct cb_error *e)
{
	return cb_placement_parse(v, field, e);
}

static void cb_put_placement(const void *field, struct cb_str *b)
{
	struct cb_str name = { 0 };

	cb_placement_name(field, &name);
	cb_str_add(b, name.s);
	cb_str_free(&name);
}

const struct cb_option cb_job_options[] = {
	CB_OPT_NAME("backend", struct cb_job, backend, cb_backend_choices, "B",
		    "auto (default): module when copybench.ko is\n"
		    "loaded, else user; user: libcopyvariants timed in\n"
		    "this process; module: copybench.ko (root)"),
	CB_OPT_CALLBACK_PUT("load", 0, struct cb_job, set.load, optional_argument, cb_opt_load,
			    cb_option_put_string, "KO",
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
		      "copy a seeded random size and offset in a\n"
		      "cache line); K, M, G; up to 64M (sweep's\n"
		      "default: pow2:1-1M and random:1-16,17-64,65-256,\n"
		      "the random ones where the backend times them)"),
	CB_OPT_UINT("repeat", struct cb_job, repeat, 1, CB_REPEAT_MAX, NULL, "N",
		    "processes, one after the other, each a fresh\n"
		    "exec at a placement of its own that measures\n"
		    "every point (default 10, 1..1000)"),
	CB_OPT_UINT("seed", struct cb_job, seed, 0, ~0ULL, NULL, "N",
		    "shuffle the points of each repeat and draw random\n"
		    "sizes with N; the placements are drawn from it\n"
		    "(seed 1 when not given)"),
	CB_OPT_CALLBACK_PUT("placement", 0, struct cb_job, placement, required_argument,
			    cb_opt_placement, cb_put_placement, "P",
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
	CB_OPT_CALLBACK_PUT("cpu", 0, struct cb_job, set.cpu, required_argument, cb_opt_cpu,
			    cb_put_cpu, "N",
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

const struct cb_option cb_job_like_options[] = {
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

int cb_opt_as_native(void *field, const char *v, struct cb_error *e)
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
const struct cb_option cb_job_test_options[] = {
	CB_OPT_CALLBACK_PUT("as-native", 0, struct cb_job, as_native, required_argument,
			    cb_opt_as_native, cb_option_put_string, "V",
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
	if (b->ops->random_offsets) {
		h->random_offsets = b->ops->random_offsets;
		CB_HEADER_SET(h, random_offsets);
	}
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
static int cb_parent_hello(struct cb_parent *c, const struct cb_child *w, const char *s,
			   size_t len, struct cb_error *e)
{
	struct cb_record_header h;
	char why[CB_ERR_MAX / 2];
	char *buffers;

	if (cb_hello_parse(s, len, w->pid, &buffers, why, sizeof(why)))
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d: not a worker's first line: %s",
			       (int)w->pid, why);
	if (!c->header_done) {
		cb_header(c->r, c->b, c->cpu, buffers, &h);
		c->line.len = 0;
		cb_record_header_json(&c->line, &h);
		cb_record_header_free(&h);
		cb_parent_put(c, c->line.s);
		c->header_done = 1;
	}
	free(buffers);
	return 0;
}

/* One line of the worker: the planned point k, measured by it. */
static int cb_parent_point(struct cb_parent *c, const struct cb_child *w, size_t k,
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

/* Process i's order at place, its points pts[0..n): the worker's stdin. */
static void cb_parent_order(const struct cb_parent *c, unsigned int i,
			    const struct cb_place *place, const struct cb_point *pts, size_t n,
			    struct cb_str *b)
{
	const struct cb_job *r = c->r;
	struct cb_order o = {
		.copybench_order = CB_ORDER_VERSION, .process = i, .points = n,
		.src_shift = place->src_shift, .dst_shift = place->dst_shift,
		.stack = place->stack, .cpu = place->cpu, .tsc_khz = c->b->tsc_khz,
		.samples = r->set.samples, .loops = r->set.loops, .max_run_ms = r->set.max_run_ms,
		.max_bytes = r->set.max_bytes, .rounds = r->set.rounds, .burst = r->set.burst,
		.process_ms = r->set.process_ms, .cold = r->set.cold, .random = r->set.random,
		.slow_native = r->slow_native, .slow_spell = r->set.spell,
		.perturb_controls = r->perturb, .seed = r->seeded ? r->seed : 1,
	};
	struct cb_record_point k = { 0 };
	size_t j;

	o.subcommand = (char *)(r->mode == CB_MODE_SWEEP ? "sweep" : "alias");
	o.backend = (char *)c->b->ops->name;
	if (r->as_native) {
		o.as_native = (char *)r->as_native;
		CB_ORDER_SET(&o, as_native);
	}
	cb_order_json(b, &o);
	for (j = 0; j < n; j++) {
		k.direction = (char *)cbfs_directions[pts[j].dir];
		k.variant = (char *)cb_point_label(c->b->variants, &pts[j]);
		k.size = pts[j].size.lo;
		k.size_max = pts[j].size.hi;
		k.present = pts[j].size.random ? 1ULL << CB_PF_size_max : 0;
		k.src_offset = pts[j].src_offset;
		k.dst_offset = pts[j].dst_offset;
		k.cache = (char *)cbfs_caches[pts[j].cache];
		k.repeat = pts[j].repeat;
		cb_record_key_json(b, &k);
	}
}

/*
 * Wait for worker w: 0 when it exited 0; else -1 with e saying how it
 * ended (its own message is on stderr already), with the status this
 * command exits with: its exit status, or 128 + the signal that ended it.
 */
static int cb_parent_reap(struct cb_child *w, struct cb_error *e)
{
	pid_t pid = w->pid;
	int status;

	if (cb_child_wait(w, &status, e))
		return -1;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFSIGNALED(status))
		return cb_fail(e, 128 + WTERMSIG(status), "process %d was killed by signal %d",
			       (int)pid, WTERMSIG(status));
	return cb_fail(e, WEXITSTATUS(status), "process %d failed (exit %d)", (int)pid,
		       WEXITSTATUS(status));
}

/* Process i: started with its order, its lines read, checked and written, and waited for. */
static int cb_parent_process(struct cb_parent *c, unsigned int i, const struct cb_place *place,
			     struct cb_error *e)
{
	static char *const argv[] = { "copybench", "worker", NULL };
	size_t per = c->pl->npts / (size_t)c->r->repeat, k = i * per, got = 0;
	struct cb_child_spec s = { .path = "/proc/self/exe", .argv = argv, .out = CB_CHILD_PIPE };
	struct cb_str order = { 0 };
	struct cb_error ignored;
	struct cb_child w;
	char *line;
	size_t len;
	pid_t pid;
	int ret;

	cb_parent_order(c, i, place, c->pl->pts + k, per, &order);
	s.in = order.s;
	s.inlen = order.len;
	ret = cb_child_start(&w, &s, e);
	cb_str_free(&order);
	if (ret)
		return -1;
	pid = w.pid;
	while ((ret = cb_child_line(&w, &line, &len, e)) > 0) {
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
		cb_parent_reap(&w, &ignored);
		return -1;
	}
	if (cb_parent_reap(&w, e))
		return -1;
	if (got != per + 1)
		return cb_fail(e, CB_EXIT_RUNTIME, "process %d ended after %zu of %zu points",
			       (int)pid, got ? got - 1 : 0, per);
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

int cb_job_main(struct cb_job *r)
{
	struct cb_outfile of = { 0 };
	struct cb_parent c = { .r = r };
	struct cb_place *places = NULL;
	struct cb_backend b = { 0 };
	struct cb_plan pl = { 0 };
	struct cb_error e = { 0 };
	int *cpus = NULL, ncpus, here = sched_getcpu();
	int status = CB_EXIT_OK;

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
	places = cb_plan_places(r, cpus, ncpus, here);
	if (r->dry_run) {
		cb_plan_print(stdout, r, &pl, &b, places);
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

int cb_job_parse(int argc, char **argv, enum cb_mode mode,
		 const struct cb_option *const *tables, struct cb_job *r, struct cb_error *e)
{
	int first;

	cb_job_init(r, mode);
	r->tables = tables;
	first = cb_options_parse(argc, argv, tables, r, &r->given, e);
	if (first >= 0)
		r->seeded = cb_job_given(r, "seed");
	return first;
}

void cb_job_mark(struct cb_job *r, size_t off)
{
	cb_option_mark(r->tables, &r->given, off);
	r->seeded |= off == offsetof(struct cb_job, seed);
}

int cb_job_command(int argc, char **argv, enum cb_mode mode,
		   const struct cb_option *const *tables, const char *usage)
{
	const struct cb_option *product[CB_JOB_TABLES + 1] = { NULL };
	const struct cb_option *const test[] = { cb_job_test_options, NULL };
	struct cb_job r;
	struct cb_error e = { 0 };
	size_t i, n = 0;
	int first, tests = 0;

	first = cb_job_parse(argc, argv, mode, tables, &r, &e);
	if (first < 0)
		return cb_report(&e);
	if (r.help) {
		/* The test-only options under a heading of their own. */
		for (i = 0; tables[i] && n < CB_JOB_TABLES; i++) {
			if (tables[i] == cb_job_test_options)
				tests = 1;
			else
				product[n++] = tables[i];
		}
		fputs(usage, stdout);
		cb_options_help(stdout, product, CB_HELP_BESIDE);
		if (tests) {
			fputs("\nTest-only options (they make the record lie on purpose, for the\n"
			      "tests of compare and bisect-run):\n", stdout);
			cb_options_help(stdout, test, CB_HELP_BESIDE);
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
