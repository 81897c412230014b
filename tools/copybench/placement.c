// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - "copybench placement POINT [RECORD]": is this point's cost
 * the code's, or where the process was placed? Measures the point in
 * --placements processes, each at a placement of its own, --rounds times
 * (the same placements again, later), with a control measured just after
 * it in the same process; or reads the processes of a record. One row per
 * process: its placement (buffers, distance, stack, CPU), pid, cost and
 * the control's; then the slow placements named, how the slow processes
 * fall by CPU, distance, stack and page offset, a verdict, and a plot.
 * Documentation/compare.rst, "Placement", is the manual.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "builtin.h"
#include "copybench.h"
#include "gnuplot.h"
#include "infer.h"
#include "lib/cb_json_writer.h"
#include "lib/cb_options.h"
#include "points.h"
#include "process.h"
#include "record.h"
#include "stats.h"
#include "sweep.h"

#define CB_PL_PLACEMENTS	16
#define CB_PL_ROUNDS		2
#define CB_PL_MAX		1000
#define CB_PL_CONTROL		"movsb"
#define CB_PL_THRESHOLD		5.0
#define CB_PL_BINS		4
/* Placements slow in every round count as the placement's below this chance. */
#define CB_PL_ALPHA		0.01

static const char cb_placement_usage[] =
	"Usage: copybench placement POINT [RECORD] [OPTIONS]\n"
	"\n"
	"Is this point's cost the code's, or where it was placed? Measures POINT (a\n"
	"point's name, as compare prints it) in --placements processes, each at a\n"
	"placement of its own (its buffers' pages and lines, the distance dst - src,\n"
	"its stack, its CPU), --rounds times: the same placements again, later. A\n"
	"control (--control) is measured just after the point in the same process.\n"
	"A placement slow in every round while its control is not is the placement's\n"
	"doing; slowness that does not come back with its placement, or that its\n"
	"control shares, is the machine's. With RECORD: its processes, no measuring.\n"
	"\n"
	"  copybench placement to_user.native.512\n"
	"  copybench placement to_user.native.512 --placements 24 --rounds 3 --plot p.svg\n"
	"  copybench placement to_user.native.4K rec.json\n"
	"\n"
	"Exit status: 0 done, 1 the measurement or gnuplot failed, 2 bad option,\n"
	"point or record (nothing is written then), 128 + N after signal N.\n"
	"\n"
	"Options:\n";

struct cb_pl_opts {
	unsigned long long placements, rounds;
	const char *control;
	double threshold;
	const char *backend, *load, *output, *plot;
	unsigned long samples;		/* 0: sweep's default */
	unsigned long long seed;	/* when given (seeded) */
	int seeded;
	long cpu;			/* -1: the CPUs in turn */
	int json, help;
};


static int cb_opt_control(void *field, const char *v, struct cb_error *e)
{
	if (!*v || strchr(v, ',') || !strcmp(v, CB_NATIVE_NAME))
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --control '%s' (accepted: one fixed variant's name, e.g. movsb, or none)",
			       v);
	*(const char **)field = strcmp(v, "none") ? v : NULL;
	return 0;
}

static const struct cb_option cb_placement_options[] = {
	CB_OPT_UINT("placements", struct cb_pl_opts, placements, 2, CB_PL_MAX, NULL, "N",
		    "placements, each a process per round (default\n"
		    "16, 2..1000)"),
	CB_OPT_UINT("rounds", struct cb_pl_opts, rounds, 1, 100, NULL, "K",
		    "times each placement is measured, in a fresh\n"
		    "process each time (default 2, 1..100)"),
	CB_OPT_CALLBACK("control", 0, struct cb_pl_opts, control, required_argument, cb_opt_control,
			"V", "the fixed variant measured just after the point\n"
			"in each process (default movsb), or none"),
	CB_OPT_DOUBLE("threshold", struct cb_pl_opts, threshold, 0, 1000, 0, 1,
		      "a percentage", "PCT", "PCT",
			"slow: more than PCT percent above the fast\n"
			"quarter's edge, the 25th percentile of the\n"
			"processes (default 5, 0..1000)"),
	CB_OPT_NAME("backend", struct cb_pl_opts, backend, cb_backend_choices, "B",
		    "auto (default), user or module, as sweep's"),
	CB_OPT_CALLBACK("load", 0, struct cb_pl_opts, load, optional_argument, cb_opt_load, "KO",
			"module backend: load KO (default ./copybench.ko)\n"
			"when not loaded, unload it after"),
	CB_OPT_UINT("samples", struct cb_pl_opts, samples, CB_SAMPLES_MIN, CB_SAMPLES_MAX, NULL,
		    "N", "timed samples per point (sweep's default)"),
	CB_OPT_UINT("seed", struct cb_pl_opts, seed, 0, ~0ULL, NULL, "N",
		    "the placements drawn (default 1, as sweep's)"),
	CB_OPT_CALLBACK("cpu", 0, struct cb_pl_opts, cpu, required_argument, cb_opt_cpu, "N",
			"every process on CPU N (default: the CPUs in turn)"),
	CB_OPT_STRING("output", 'o', struct cb_pl_opts, output, "FILE",
		      "keep the record of the processes (JSON lines)"),
	CB_OPT_STRING("plot", 0, struct cb_pl_opts, plot, "FILE",
		      "the point's cost per placement, each round, and\n"
		      "the control's: FILE.svg or FILE.png (gnuplot)"),
	CB_OPT_FLAG("json", 0, struct cb_pl_opts, json,
		    "JSON lines: one per process, then a summary"),
	CB_OPT_FLAG("help", 'h', struct cb_pl_opts, help, "this help"),
	CB_OPT_END(),
};

/* The options that measure: with a record given, none of them. */
static int cb_pl_measuring(const struct cb_option *const *tables, const struct cb_given *g)
{
	static const char *const measure[] = {
		"placements", "rounds", "backend", "load", "samples", "seed", "cpu", "output",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(measure); i++)
		if (cb_option_given(tables, g, measure[i]))
			return 1;
	return 0;
}

/* One process's line of the point, and its control's cost. */
struct cb_pl_proc {
	unsigned long long pid;
	long long cpu;
	size_t place, round;
	double v, ctl;		/* time per call, its control's (NAN: no control line) */
	double lat;		/* its latency, NAN: the line has none */
	int slow, ctl_slow;
};

/* A placement: where the buffers were (shifts), the stack, the CPU. */
struct cb_pl_place {
	unsigned long long src, dst;
	long long stack, cpu;
	size_t n, nslow, nctl_slow;
	double med;
	int has_place;
};

struct cb_pl {
	const struct cb_pl_opts *o;
	struct cb_key key;
	const char *name;
	struct cb_record rec;
	struct cb_pl_proc *pr;
	size_t npr;
	struct cb_pl_place *pl;
	size_t npl;
	size_t *order;		/* places by median cost */
	double med, ctl_med, lo, hi, ref, ctl_ref;
	size_t slow, ctl_slow, rounds;
	int has_ctl, median;
};

/* ---- Measuring: copybench sweep in processes of its own ----------------- */

/*
 * The sweep of the point and its control, every process a placement, its
 * record at out: r, its lists' words in sizes and variants.
 */
static void cb_pl_sweep_job(const struct cb_pl *c, const char *out, struct cb_job *r,
			    struct cb_str *sizes, struct cb_str *variants)
{
	const struct cb_pl_opts *o = c->o;
	const struct cb_key *k = &c->key;

	cb_sweep_init(r);
	CB_JOB_SET(r, backend, o->backend ? o->backend : "auto");
	if (o->load)
		CB_JOB_SET(r, set.load, o->load);
	if (k->random)
		cb_str_printf(sizes, "random:%llu-%llu", k->size, k->size_max);
	else
		cb_str_printf(sizes, "%llu", k->size);
	CB_JOB_SET(r, sizes, sizes->s);
	cb_str_printf(variants, "%s%s%s", k->variant, o->control ? "," : "",
		      o->control ? o->control : "");
	CB_JOB_SET(r, variants, variants->s);
	CB_JOB_SET(r, directions, k->direction);
	CB_JOB_SET(r, caches, k->cache);
	if (k->src_offset || k->dst_offset) {
		CB_JOB_SET(r, src_offset, k->src_offset);
		CB_JOB_SET(r, dst_offset, k->dst_offset);
	}
	CB_JOB_SET(r, repeat, o->placements * o->rounds);
	CB_JOB_SET(r, place_period, (unsigned int)o->placements);
	if (o->samples)
		CB_JOB_SET(r, set.samples, o->samples);
	if (o->seeded)
		CB_JOB_SET(r, seed, o->seed);
	if (o->cpu >= 0)
		CB_JOB_SET(r, set.cpu, o->cpu);
	CB_JOB_SET(r, output, out);
}

/* The sweep that measures the point and its control, its record at out. */
static int cb_pl_measure(struct cb_pl *c, const char *out, struct cb_error *e)
{
	struct cb_child_spec s = { .path = "/proc/self/exe", .out = CB_CHILD_NULL };
	struct cb_str sizes = { 0 }, variants = { 0 };
	struct cb_argv a = { 0 };
	struct cb_child child;
	struct cb_job r;
	int status, ret = 0;

	cb_pl_sweep_job(c, out, &r, &sizes, &variants);
	cb_argv_add(&a, "copybench");
	cb_sweep_argv(&r, &a);
	s.argv = a.v;
	if (cb_child_start(&child, &s, e) || cb_child_wait(&child, &status, e))
		ret = -1;
	/* The sweep said what went wrong; its status is this command's. */
	else if (WIFSIGNALED(status))
		ret = cb_fail(e, 128 + WTERMSIG(status), "the measurement was killed by signal %d",
			      WTERMSIG(status));
	else if (WEXITSTATUS(status))
		ret = cb_fail(e, WEXITSTATUS(status), "the measurement failed (copybench sweep exited %d)",
			      WEXITSTATUS(status));
	cb_argv_free(&a);
	cb_str_free(&sizes);
	cb_str_free(&variants);
	return ret;
}

/* ---- Reading a record: the point's processes, their placements ------------ */

static int cb_pl_same(const struct cb_key *a, const struct cb_key *b, const char *variant)
{
	struct cb_key k = *a;

	k.variant = variant;
	return !cb_key_cmp(&k, b);
}

static size_t cb_pl_place_of(struct cb_pl *c, const struct cb_record_point *p)
{
	struct cb_pl_place want = { .stack = -1, .cpu = p->run_cpu };
	size_t i;

	want.has_place = CB_POINT_HAS(p, src_place) && CB_POINT_HAS(p, dst_place);
	if (want.has_place) {
		want.src = p->src_place - p->src_offset;
		want.dst = p->dst_place - p->dst_offset;
	}
	if (CB_POINT_HAS(p, stack_place))
		want.stack = (long long)p->stack_place;
	for (i = 0; want.has_place && i < c->npl; i++)
		if (c->pl[i].has_place && c->pl[i].src == want.src && c->pl[i].dst == want.dst &&
		    c->pl[i].stack == want.stack && c->pl[i].cpu == want.cpu)
			return i;
	c->pl = cb_realloc(c->pl, c->npl + 1, sizeof(*c->pl));
	c->pl[c->npl] = want;
	return c->npl++;
}

/* The point's lines (one per process) and, by pid, its control's. */
static int cb_pl_collect(struct cb_pl *c, struct cb_error *e)
{
	const struct cb_record_point *p;
	struct cb_key k;
	struct cb_pl_proc *pr;
	size_t i, j;
	double v;

	if (cb_record_one_process(&c->rec))
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s is a record of one process (its repeats share one placement): there are no placements to tell apart; measure the point with copybench placement %s",
			       c->rec.path, c->name);
	c->median = !strcmp(c->rec.header.estimator, "median");
	for (i = 0; i < c->rec.npoints; i++) {
		p = &c->rec.points[i];
		cb_key_of(p, &k);
		if (cb_key_cmp(&k, &c->key))
			continue;
		if (cb_point_cost(&c->rec, p, c->median, 0, CB_FIGURE_CALL, &v, e))
			return -1;
		c->pr = cb_realloc(c->pr, c->npr + 1, sizeof(*c->pr));
		pr = &c->pr[c->npr++];
		memset(pr, 0, sizeof(*pr));
		pr->pid = CB_POINT_HAS(p, pid) ? p->pid : 0;
		pr->cpu = p->run_cpu;
		pr->v = v;
		pr->ctl = NAN;
		if (cb_point_cost(&c->rec, p, c->median, 0, CB_FIGURE_LATENCY, &pr->lat, e))
			return -1;
		pr->place = cb_pl_place_of(c, p);
		pr->round = c->pl[pr->place].n++;
	}
	if (!c->npr)
		return cb_fail(e, CB_EXIT_USAGE, "%s has no point %s (accepted: a point it holds, as compare prints it)",
			       c->rec.path, c->name);
	for (i = 0; c->o->control && i < c->rec.npoints; i++) {
		p = &c->rec.points[i];
		cb_key_of(p, &k);
		if (!cb_pl_same(&c->key, &k, c->o->control) || !CB_POINT_HAS(p, pid))
			continue;
		for (j = 0; j < c->npr && c->pr[j].pid != p->pid; j++)
			;
		if (j < c->npr && !cb_point_cost(&c->rec, p, c->median, 0, CB_FIGURE_CALL, &v, NULL)) {
			c->pr[j].ctl = v;
			c->has_ctl = 1;
		}
	}
	return 0;
}

/* ---- What the processes say ----------------------------------------------- */

static double cb_pl_median(double *v, size_t n)
{
	cb_stats_sort(v, n);
	return n ? cb_stats_median(v, n) : NAN;
}

static int cb_pl_cmp_med(const void *a, const void *b, void *ctx)
{
	const struct cb_pl *c = ctx;
	double x = c->pl[*(const size_t *)a].med, y = c->pl[*(const size_t *)b].med;

	return x < y ? -1 : x > y;
}

static void cb_pl_judge(struct cb_pl *c)
{
	double *v = cb_calloc(c->npr, sizeof(*v)), up = 1 + c->o->threshold / 100;
	size_t i, j, n;

	for (i = 0; i < c->npr; i++)
		v[i] = c->pr[i].v;
	c->med = cb_pl_median(v, c->npr);
	c->lo = v[0];
	c->hi = v[c->npr - 1];
	/* The fast quarter is the reference: half the processes may be slow. */
	c->ref = cb_stats_quantile(v, c->npr, 0.25);
	for (i = 0, n = 0; i < c->npr; i++)
		if (!isnan(c->pr[i].ctl))
			v[n++] = c->pr[i].ctl;
	c->ctl_med = cb_pl_median(v, n);
	c->ctl_ref = n ? cb_stats_quantile(v, n, 0.25) : NAN;
	for (i = 0; i < c->npr; i++) {
		c->pr[i].slow = c->pr[i].v > c->ref * up;
		c->pr[i].ctl_slow = !isnan(c->pr[i].ctl) && c->pr[i].ctl > c->ctl_ref * up;
		c->slow += (size_t)c->pr[i].slow;
		c->ctl_slow += (size_t)(c->pr[i].slow && c->pr[i].ctl_slow);
		c->pl[c->pr[i].place].nslow += (size_t)c->pr[i].slow;
		c->pl[c->pr[i].place].nctl_slow += (size_t)(c->pr[i].slow && c->pr[i].ctl_slow);
		if (c->pr[i].round + 1 > c->rounds)
			c->rounds = c->pr[i].round + 1;
	}
	c->order = cb_calloc(c->npl, sizeof(*c->order));
	for (j = 0; j < c->npl; j++) {
		for (i = 0, n = 0; i < c->npr; i++)
			if (c->pr[i].place == j)
				v[n++] = c->pr[i].v;
		c->pl[j].med = cb_pl_median(v, n);
		c->order[j] = j;
	}
	qsort_r(c->order, c->npl, sizeof(*c->order), cb_pl_cmp_med, c);
	free(v);
}

/* A placement slow in every round (at least two), its control in none. */
static int cb_pl_place_slow(const struct cb_pl_place *p)
{
	return p->n >= 2 && p->nslow == p->n && !p->nctl_slow;
}

/*
 * How likely as many placements slow in every round are from the machine's
 * slow spells alone: each placement's chance is the share of processes
 * slow with their control fast, to the power of its rounds. *expect: the
 * number the spells alone would give.
 */
static double cb_pl_chance(const struct cb_pl *c, size_t k, double *expect)
{
	double *q = cb_calloc(c->npl, sizeof(*q)), alone = 0, tail;
	size_t i, n = 0;

	for (i = 0; i < c->npr; i++)
		alone += c->pr[i].slow && !c->pr[i].ctl_slow;
	alone /= (double)c->npr;
	*expect = 0;
	for (i = 0; i < c->npl; i++) {
		if (c->pl[i].n < 2)
			continue;
		q[n] = pow(alone, (double)c->pl[i].n);
		*expect += q[n++];
	}
	tail = infer_poibin_tail(q, n, k);
	free(q);
	return tail;
}

static unsigned long long cb_pl_distance(const struct cb_pl_place *p)
{
	return (p->dst - p->src) % 4096;
}

/*
 * The CPU that most of the slow processes ran on, when it is the CPU: at
 * least 3 in 4 of its processes slow, at most 1 in 4 on every other; -1
 * when not. *slow and *n: its counts.
 */
static long long cb_pl_cpu(const struct cb_pl *c, size_t *slow, size_t *n)
{
	size_t s[CB_PL_BINS + 1] = { 0 }, t[CB_PL_BINS + 1] = { 0 }, i;
	long long best = -1, k;

	for (i = 0; i < c->npr; i++) {
		k = c->pr[i].cpu;
		if (k < 0 || k > CB_PL_BINS)
			return -1;
		t[k]++;
		s[k] += (size_t)c->pr[i].slow;
	}
	for (k = 0; k <= CB_PL_BINS; k++)
		if (t[k] >= 2 && s[k] * 4 >= t[k] * 3)
			best = best < 0 ? k : -2;
	for (k = 0; best >= 0 && k <= CB_PL_BINS; k++)
		if (k != best && t[k] && s[k] * 4 > t[k])
			return -1;
	if (best < 0)
		return -1;
	*slow = s[best];
	*n = t[best];
	return best;
}

static const char *cb_pl_verdict(const struct cb_pl *c, size_t *nslow_places)
{
	size_t i, n;
	double e;

	*nslow_places = 0;
	for (i = 0; i < c->npl; i++)
		*nslow_places += (size_t)cb_pl_place_slow(&c->pl[i]);
	if (!c->slow)
		return "steady";
	if (*nslow_places && cb_pl_chance(c, *nslow_places, &e) <= CB_PL_ALPHA)
		return "placement";
	if (cb_pl_cpu(c, &n, &n) >= 0)
		return "cpu";
	if (c->rounds < 2)
		return "undecided";
	return "machine";
}

/* ---- Text ----------------------------------------------------------------- */

static void cb_pl_text_rows(FILE *f, const struct cb_pl *c)
{
	const struct cb_pl_proc *pr;
	const struct cb_pl_place *p;
	char ctl[32], lat[32];
	size_t i;

	fprintf(f, "# %9s %5s %8s %4s %8s %8s %8s %5s %10s %10s %10s  %s\n", "placement", "round",
		"pid", "cpu", "src+", "dst+", "distance", "stack", "per call",
		c->has_ctl ? c->o->control : "control", "latency", "slow");
	for (i = 0; i < c->npr; i++) {
		pr = &c->pr[i];
		p = &c->pl[pr->place];
		snprintf(ctl, sizeof(ctl), "%.2f%s", pr->ctl, pr->ctl_slow ? "*" : "");
		if (p->has_place)
			fprintf(f, "  %9zu %5zu %8llu %4lld %8llu %8llu %8llu ", pr->place, pr->round,
				pr->pid, pr->cpu, p->src, p->dst, cb_pl_distance(p));
		else
			fprintf(f, "  %9zu %5zu %8llu %4lld %8s %8s %8s ", pr->place, pr->round,
				pr->pid, pr->cpu, "-", "-", "-");
		if (p->stack >= 0)
			fprintf(f, "%5lld ", p->stack);
		else
			fprintf(f, "%5s ", "-");
		snprintf(lat, sizeof(lat), "%.2f", pr->lat);
		fprintf(f, "%9.2f%s %10s %10s  %s\n", pr->v, pr->slow ? "*" : " ",
			isnan(pr->ctl) ? "-" : ctl, isnan(pr->lat) ? "-" : lat,
			!pr->slow ? "-" : pr->ctl_slow ? "with its control" : "alone");
	}
}

/* How the slow processes fall by one property, in CB_PL_BINS bins. */
static void cb_pl_text_factor(FILE *f, const struct cb_pl *c, const char *what, int kind)
{
	size_t n[CB_PL_BINS + 2] = { 0 }, s[CB_PL_BINS + 2] = { 0 }, i, b;
	const struct cb_pl_place *p;
	long long v;

	for (i = 0; i < c->npr; i++) {
		p = &c->pl[c->pr[i].place];
		if (kind == 0) {
			v = c->pr[i].cpu;
			b = v >= 0 && v <= CB_PL_BINS ? (size_t)v : CB_PL_BINS + 1;
		} else {
			if ((kind == 2 && p->stack < 0) || (kind != 2 && !p->has_place))
				continue;
			v = kind == 1 ? (long long)cb_pl_distance(p) : kind == 2 ? p->stack :
			    (long long)(p->src % 4096);
			b = (size_t)v * CB_PL_BINS / 4096;
		}
		n[b]++;
		s[b] += (size_t)c->pr[i].slow;
	}
	fprintf(f, "#   %-16s", what);
	for (b = 0; b < CB_PL_BINS + 2; b++) {
		if (!n[b])
			continue;
		if (kind == 0 && b <= CB_PL_BINS)
			fprintf(f, "  cpu %zu: %zu/%zu", b, s[b], n[b]);
		else if (kind == 0)
			fprintf(f, "  other: %zu/%zu", s[b], n[b]);
		else
			fprintf(f, "  %zu-%zu: %zu/%zu", b * 4096 / CB_PL_BINS,
				(b + 1) * 4096 / CB_PL_BINS - 1, s[b], n[b]);
	}
	fputc('\n', f);
}

/* The sweep that measures a slow placement again, there. */
static void cb_pl_text_again(FILE *f, const struct cb_pl *c, const struct cb_pl_place *p)
{
	fprintf(f, "#     again: copybench sweep --backend %s --sizes ", c->rec.header.backend);
	if (c->key.random)
		fprintf(f, "random:%llu-%llu", c->key.size, c->key.size_max);
	else
		fprintf(f, "%llu", c->key.size);
	fprintf(f, " --variants %s%s%s --directions %s --cache %s", c->key.variant,
		c->has_ctl ? "," : "", c->has_ctl ? c->o->control : "", c->key.direction,
		c->key.cache);
	if (c->key.src_offset || c->key.dst_offset)
		fprintf(f, " --src-offset %llu --dst-offset %llu", c->key.src_offset,
			c->key.dst_offset);
	fprintf(f, " --placement %llu:%llu:%lld --cpu %lld --repeat 5\n", p->src, p->dst,
		p->stack, p->cpu);
}

/* The heading: what was measured, its median and spread, where slow starts. */
static void cb_pl_text_head(FILE *f, const struct cb_pl *c)
{
	fprintf(f, "# copybench placement %s: %zu process(es) at %zu placement(s), %zu round(s); %s\n",
		c->name, c->npr, c->npl, c->rounds, c->rec.path);
	fprintf(f, "# each process's time per call as timed (its %s sample) in TSC clocks per copy%s%s%s, and its latency where measured; slow: more than %g%% above the fast quarter's edge (the 25th percentile of the processes' time per call)\n",
		c->median ? "median" : "fastest", c->has_ctl ? ", and of " : "",
		c->has_ctl ? c->o->control : "", c->has_ctl ? " measured just after it in the same process" : "",
		c->o->threshold);
	fprintf(f, "# median %.2f, processes %.2f to %.2f", c->med, c->lo, c->hi);
	if (c->lo > 0)
		fprintf(f, " (spread %.1f%%)", 100 * (c->hi - c->lo) / c->lo);
	fprintf(f, ", slow above %.2f", c->ref * (1 + c->o->threshold / 100));
	if (c->has_ctl)
		fprintf(f, "; %s median %.2f", c->o->control, c->ctl_med);
	fputs("\n", f);
}

/*
 * The placements slow in every round (nslow of them), each with the
 * command that measures it again, and the chance of as many by the
 * machine alone. Returns how many placements were slow in some rounds.
 */
static size_t cb_pl_text_slow(FILE *f, const struct cb_pl *c, size_t nslow)
{
	const struct cb_pl_place *p;
	size_t i, once = 0;
	double chance, expect;

	fprintf(f, "# slow placements (slow in every round, their control in none):%s\n",
		nslow ? "" : " none");
	for (i = 0; i < c->npl; i++) {
		p = &c->pl[c->order[i]];
		if (!cb_pl_place_slow(p)) {
			once += p->nslow > 0;
			continue;
		}
		fprintf(f, "#   placement %zu: src+%llu dst+%llu distance %llu stack %lld cpu %lld: median %.2f (%+.1f%%) in %zu rounds\n",
			c->order[i], p->src, p->dst, cb_pl_distance(p), p->stack, p->cpu, p->med,
			100 * (p->med / c->ref - 1), p->n);
		if (p->has_place && p->stack >= 0)
			cb_pl_text_again(f, c, p);
	}
	if (nslow) {
		chance = cb_pl_chance(c, nslow, &expect);
		fprintf(f, "#   the machine's slow spells alone would make %.2f placement(s) slow in every round: %zu or more with a chance of %.4f%s\n",
			expect, nslow, chance, chance <= CB_PL_ALPHA ? "" : " (not the placement's doing, then)");
	}
	return once;
}

/* The verdict v in words. */
static void cb_pl_text_verdict(FILE *f, const struct cb_pl *c, const char *v, size_t nslow)
{
	size_t cs = 0, cn = 0;
	long long cpu = cb_pl_cpu(c, &cs, &cn);

	if (!strcmp(v, "steady"))
		fprintf(f, "# verdict: steady: every process within %g%% of the fast quarter\n",
			c->o->threshold);
	else if (!strcmp(v, "placement"))
		fprintf(f, "# verdict: PLACEMENT: %zu of %zu placements are slow in every round while their control is not, more than the machine's slow spells explain: the cost depends on where the process is placed\n",
			nslow, c->npl);
	else if (!strcmp(v, "cpu"))
		fprintf(f, "# verdict: the CPU: %zu of the %zu processes on CPU %lld are slow, few elsewhere, and no placement is slow in every round: the CPU's state (what shares it), not where the buffers are\n",
			cs, cn, cpu);
	else if (!strcmp(v, "machine"))
		fprintf(f, "# verdict: the machine: no placement is slow in every round; the slow processes were slow at that time, not at that placement (%zu of %zu with their control)\n",
			c->ctl_slow, c->slow);
	else
		fprintf(f, "# verdict: undecided: one process per placement cannot tell placement from the machine (measure: copybench placement %s --rounds 2)\n",
			c->name);
}

static void cb_pl_text(FILE *f, const struct cb_pl *c)
{
	size_t nslow, once;
	const char *v = cb_pl_verdict(c, &nslow);

	cb_pl_text_head(f, c);
	cb_pl_text_rows(f, c);
	fputs("\n", f);
	once = cb_pl_text_slow(f, c, nslow);
	fprintf(f, "# placements slow in some processes only: %zu\n", once);
	fprintf(f, "# slow processes: %zu of %zu, %zu of them with their control slow too\n",
		c->slow, c->npr, c->ctl_slow);
	if (c->slow) {
		fprintf(f, "# slow processes / processes, by:\n");
		cb_pl_text_factor(f, c, "CPU", 0);
		cb_pl_text_factor(f, c, "distance", 1);
		cb_pl_text_factor(f, c, "stack", 2);
		cb_pl_text_factor(f, c, "source in page", 3);
	}
	cb_pl_text_verdict(f, c, v, nslow);
}

/* ---- JSON lines ----------------------------------------------------------- */

static void cb_pl_json_process(struct cb_jw *w, const struct cb_pl *c,
			       const struct cb_pl_proc *pr)
{
	const struct cb_pl_place *p = &c->pl[pr->place];

	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "process");
	cb_jw_str_field(w, "point", c->name);
	cb_jw_u64_field(w, "placement", pr->place);
	cb_jw_u64_field(w, "round", pr->round);
	cb_jw_u64_field(w, "pid", pr->pid);
	cb_jw_s64_field(w, "cpu", pr->cpu);
	if (p->has_place) {
		cb_jw_u64_field(w, "src_shift", p->src);
		cb_jw_u64_field(w, "dst_shift", p->dst);
		cb_jw_u64_field(w, "distance", cb_pl_distance(p));
	}
	if (p->stack >= 0)
		cb_jw_s64_field(w, "stack", p->stack);
	cb_jw_f_field(w, "cost", 4, pr->v);
	if (!isnan(pr->lat))
		cb_jw_f_field(w, "latency", 4, pr->lat);
	cb_jw_bool_field(w, "slow", pr->slow);
	if (!isnan(pr->ctl)) {
		cb_jw_f_field(w, "control", 4, pr->ctl);
		cb_jw_bool_field(w, "control_slow", pr->ctl_slow);
	}
	cb_jw_bool_field(w, "placement_slow", cb_pl_place_slow(p));
	cb_jw_end_object(w);
}

static void cb_pl_json_summary(struct cb_jw *w, const struct cb_pl *c)
{
	size_t i, nslow;
	const char *v = cb_pl_verdict(c, &nslow);

	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "summary");
	cb_jw_str_field(w, "point", c->name);
	cb_jw_u64_field(w, "processes", c->npr);
	cb_jw_u64_field(w, "placements", c->npl);
	cb_jw_u64_field(w, "rounds", c->rounds);
	cb_jw_f_field(w, "median", 4, c->med);
	cb_jw_f_field(w, "min", 4, c->lo);
	cb_jw_f_field(w, "max", 4, c->hi);
	/* A net cost of 0 (a copy of a few bytes, under its baseline): no spread. */
	cb_jw_f_field(w, "spread", 6, c->lo > 0 ? (c->hi - c->lo) / c->lo : NAN);
	cb_jw_u64_field(w, "slow", c->slow);
	cb_jw_u64_field(w, "slow_with_control", c->ctl_slow);
	cb_jw_key(w, "slow_placements");
	cb_jw_begin_array(w);
	for (i = 0; i < c->npl; i++)
		if (cb_pl_place_slow(&c->pl[i]))
			cb_jw_u64(w, i);
	cb_jw_end_array(w);
	cb_jw_str_field(w, "verdict", v);
	cb_jw_end_object(w);
}

/* JSON lines: a line per process, then the summary; -1 with e set when writing failed. */
static int cb_pl_json(FILE *f, const struct cb_pl *c, struct cb_error *e)
{
	struct cb_jw w;
	size_t i;

	cb_jw_init(&w, f);
	for (i = 0; i < c->npr; i++)
		cb_pl_json_process(&w, c, &c->pr[i]);
	cb_pl_json_summary(&w, c);
	if (cb_jw_end(&w))
		return cb_fail(e, CB_EXIT_RUNTIME, "writing the JSON lines: %s", strerror(errno));
	return 0;
}

/* ---- The plot ------------------------------------------------------------- */

/* x: the placement's rank by median cost; one block per round, then the control. */
static void cb_pl_plot_data(FILE *f, void *ctx)
{
	const struct cb_pl *c = ctx;
	size_t r, i, k;

	for (r = 0; r < c->rounds; r++) {
		fprintf(f, "%s# round %zu: rank placement cost control\n", r ? "\n\n" : "", r + 1);
		for (k = 0; k < c->npl; k++)
			for (i = 0; i < c->npr; i++)
				if (c->pr[i].place == c->order[k] && c->pr[i].round == r)
					fprintf(f, "%zu %zu %.4f %.4f\n", k, c->order[k], c->pr[i].v,
						isnan(c->pr[i].ctl) ? NAN : c->pr[i].ctl);
	}
}

static void cb_pl_plot_script(FILE *f, void *ctx)
{
	const struct cb_pl *c = ctx;
	struct cb_str t = { 0 };
	size_t r;

	cb_str_printf(&t, "copybench placement %s: time per call (%s sample, as timed) per placement (ranked by median), each round",
		      c->name, c->median ? "median" : "fastest");
	fputs("set title ", f);
	cb_str_add(&t, "");
	{
		struct cb_str q = { 0 };

		cb_gp_str(&q, t.s);
		fprintf(f, "%s noenhanced\n", q.s);
		cb_str_free(&q);
	}
	fprintf(f, "set xlabel \"placement, ranked by its median cost\"\n");
	fprintf(f, "set ylabel \"TSC clocks per copy\"\n");
	if (c->has_ctl)
		fprintf(f, "set y2label \"control: TSC clocks per copy\"\nset y2tics\nset ytics nomirror\n");
	fprintf(f, "set grid\nset key outside right top noenhanced\n");
	fprintf(f, "slow = %.6f\n", c->ref * (1 + c->o->threshold / 100));
	fprintf(f, "plot slow with lines dt 2 lc rgb \"red\" title \"slow above\"");
	for (r = 0; r < c->rounds; r++) {
		fprintf(f, ", \\\n  datafile index %zu using 1:3 with points pt %zu ps 1.2 title \"round %zu\"",
			r, 5 + 2 * r, r + 1);
		if (c->has_ctl)
			fprintf(f, ", \\\n  datafile index %zu using 1:4 axes x1y2 with points pt %zu ps 0.8 lc rgb \"gray\" title \"control, round %zu\"",
				r, 4 + 2 * r, r + 1);
	}
	fputc('\n', f);
	cb_str_free(&t);
}

/* ---- The command ------------------------------------------------------------ */

static void cb_pl_free(struct cb_pl *c)
{
	cb_record_free(&c->rec);
	free(c->pr);
	free(c->pl);
	free(c->order);
}

/* Measures (the record at -o, or in a directory of its own), or reads RECORD. */
static int cb_pl_record(struct cb_pl *c, const char *record, struct cb_error *e)
{
	char dir[] = "/tmp/copybench-placement.XXXXXX";
	struct cb_str path = { 0 };
	int ret;

	if (record)
		return cb_record_read(record, &c->rec, e);
	if (c->o->output) {
		ret = cb_pl_measure(c, c->o->output, e);
		return ret ? ret : cb_record_read(c->o->output, &c->rec, e);
	}
	if (!mkdtemp(dir))
		return cb_fail(e, CB_EXIT_RUNTIME, "cannot make a directory for the record: %s",
			       strerror(errno));
	cb_str_printf(&path, "%s/placement.json", dir);
	ret = cb_pl_measure(c, path.s, e);
	if (!ret)
		ret = cb_record_read(path.s, &c->rec, e);
	unlink(path.s);
	rmdir(dir);
	cb_str_free(&path);
	return ret;
}

/*
 * The operands (POINT [RECORD], n of them at ops) checked against the
 * options given: the point parsed into c (its strings in *buf), its
 * --control and --plot checked before anything is measured. 0, or -1 with e.
 */
static int cb_pl_operands(struct cb_pl *c, int n, char **ops,
			  const struct cb_option *const *tables, const struct cb_given *given,
			  char **buf, struct cb_error *e)
{
	const struct cb_pl_opts *o = c->o;

	if (n < 1 || n > 2)
		return cb_fail(e, CB_EXIT_USAGE, "%s (see --help)", n < 1 ?
			       "needs a point: POINT [RECORD]" : "takes a point and at most one record");
	if (n == 2 && cb_pl_measuring(tables, given))
		return cb_fail(e, CB_EXIT_USAGE,
			       "--placements, --rounds, --backend, --load, --samples, --seed, --cpu and -o measure: with a record, nothing is measured (accepted: the record alone, or these without it)");
	c->name = ops[0];
	if (cb_key_parse("point", c->name, &c->key, buf, e))
		return -1;
	if (o->control && !strcmp(o->control, c->key.variant))
		return cb_fail(e, CB_EXIT_USAGE, "invalid --control '%s': it is the point's own variant (accepted: another fixed variant, or none)",
			       o->control);
	/* The image's name checked before anything is measured. */
	if (o->plot && cb_gnuplot_name_ok("--plot", o->plot, e))
		return -1;
	return 0;
}

int cmd_placement(int argc, char **argv)
{
	const struct cb_option *const tables[] = { cb_placement_options, NULL };
	struct cb_pl_opts o = {
		.placements = CB_PL_PLACEMENTS, .rounds = CB_PL_ROUNDS, .control = CB_PL_CONTROL,
		.threshold = CB_PL_THRESHOLD, .cpu = -1,
	};
	struct cb_pl c = { .o = &o };
	struct cb_gp_writer w = { cb_pl_plot_data, cb_pl_plot_script, &c, 0 };
	struct cb_error e = { 0 };
	struct cb_given given;
	char *buf = NULL;
	int first;

	first = cb_options_parse(argc, argv, tables, &o, &given, &e);
	if (first < 0)
		goto fail;
	o.seeded = cb_option_given(tables, &given, "seed");
	if (o.help) {
		fputs(cb_placement_usage, stdout);
		cb_options_help(stdout, tables, CB_HELP_BESIDE);
		return CB_EXIT_OK;
	}
	if (cb_pl_operands(&c, argc - first, argv + first, tables, &given, &buf, &e))
		goto fail;
	if (cb_pl_record(&c, argc - first == 2 ? argv[first + 1] : NULL, &e) ||
	    cb_pl_collect(&c, &e))
		goto fail;
	cb_pl_judge(&c);
	if (o.plot && cb_gnuplot_write(o.plot, &w, &e))
		goto fail;
	if (!o.json)
		cb_pl_text(stdout, &c);
	else if (cb_pl_json(stdout, &c, &e))
		goto fail;
	cb_pl_free(&c);
	free(buf);
	return CB_EXIT_OK;
fail:
	cb_pl_free(&c);
	free(buf);
	return cb_report(&e);
}
