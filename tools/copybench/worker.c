// SPDX-License-Identifier: GPL-2.0
/*
 * worker.c - "copybench worker", hidden: one process of a record. It reads
 * its order and its points on stdin (process.h), opens the backend the
 * order names at the order's placement, measures the points as told on a
 * stack of its own, and writes a hello line and each point's record line
 * on stdout. It parses no option and plans nothing: sweep and alias did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copybench.h"
#include "builtin.h"
#include "interleave.h"
#include "place.h"
#include "process.h"
#include "record.h"

/* An order is refused beyond this: more than sweep's largest plan says. */
#define CB_ORDER_BYTES_MAX	(1UL << 30)

/* struct cb_work - a worker's order, its points and where it measures them. */
struct cb_work {
	struct cb_order o;
	size_t n;			/* points resolved in pts */
	struct cb_settings set;
	struct cb_place place;
	struct cb_backend b;
	struct cb_point *pts;		/* the points told, resolved against b */
	struct cb_error *e;
};

/* What a person who typed "copybench worker" is told, with why. */
static int cb_work_refuse(struct cb_error *e, const char *why)
{
	return cb_fail(e, CB_EXIT_USAGE,
		       "a worker of copybench sweep and alias, which start it themselves (usage: worker, its order and points on stdin: process.h)%s%s",
		       why ? ": " : "", why ? why : "");
}

/* All of stdin into *in. */
static int cb_work_slurp(struct cb_str *in, struct cb_error *e)
{
	char chunk[65536];
	ssize_t n;

	cb_str_add(in, "");
	for (;;) {
		n = read(0, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cb_fail(e, CB_EXIT_RUNTIME, "reading the order: %s", strerror(errno));
		if (!n)
			return 0;
		if (in->len + (size_t)n > CB_ORDER_BYTES_MAX)
			return cb_work_refuse(e, "an order larger than 1 GiB");
		cb_str_addn(in, chunk, (size_t)n);
	}
}

/* The order's values within what sweep plans: a line a worker would never get refused. */
static const char *cb_work_check(const struct cb_order *o)
{
	if (strcmp(o->subcommand, "sweep") && strcmp(o->subcommand, "alias"))
		return "subcommand: not sweep or alias";
	if (strcmp(o->backend, "user") && strcmp(o->backend, "module"))
		return "backend: not user or module";
	if (o->process > ~0U || o->cpu < 0 || o->cpu > 1L << 20)
		return "process or cpu out of range";
	if (o->src_shift >= CB_PLACE_SPAN || o->dst_shift >= CB_PLACE_SPAN ||
	    o->src_shift % CB_PLACE_LINE || o->dst_shift % CB_PLACE_LINE)
		return "src_shift or dst_shift: not a line below the span";
	if (o->stack < -1 || o->stack >= (long long)CB_PAGE ||
	    (o->stack >= 0 && o->stack % (long long)CB_PLACE_STACK_ALIGN))
		return "stack: not -1 or an aligned page offset";
	if (o->samples < CB_SAMPLES_MIN || o->samples > CB_SAMPLES_MAX || o->loops > CB_LOOPS_MAX ||
	    o->max_run_ms < CB_MAX_RUN_MS_MIN || o->max_run_ms > CB_MAX_RUN_MS_MAX ||
	    o->max_bytes > CB_SIZE_MAX + CB_OFFSET_MAX || o->rounds > CB_ROUNDS_MAX ||
	    o->rounds * o->burst > CB_SAMPLES_MAX || o->slow_native < 0 || o->slow_spell < 0 ||
	    o->perturb_controls < 0)
		return "a setting out of sweep's range";
	return NULL;
}

/* The order, the first line of in; *rest where its points' lines start. */
static int cb_work_order(struct cb_work *w, struct cb_str *in, char **rest)
{
	char why[CB_ERR_MAX / 2], msg[CB_ERR_MAX];
	char *nl = memchr(in->s, '\n', in->len);

	if (!nl)
		return cb_work_refuse(w->e, in->len ? "no whole order line" : "no order");
	if (cb_order_parse(in->s, (size_t)(nl - in->s), &w->o, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "line 1: %s", why);
		return cb_work_refuse(w->e, msg);
	}
	if (cb_work_check(&w->o)) {
		snprintf(msg, sizeof(msg), "line 1: %s", cb_work_check(&w->o));
		return cb_work_refuse(w->e, msg);
	}
	*rest = nl + 1;
	return 0;
}

/*
 * The points' lines from rest to the end of in: exactly as many as the
 * order says, counted before anything is allocated for them.
 */
static int cb_work_count(struct cb_work *w, const struct cb_str *in, const char *rest)
{
	const char *end = in->s + in->len, *nl;
	char msg[CB_ERR_MAX];
	size_t n = 0;

	for (; rest < end; rest = nl + 1, n++) {
		nl = memchr(rest, '\n', (size_t)(end - rest));
		if (!nl)
			return cb_work_refuse(w->e, "a last line without its newline");
	}
	if (n < w->o.points) {
		snprintf(msg, sizeof(msg), "%zu point lines for an order of %llu", n, w->o.points);
		return cb_work_refuse(w->e, msg);
	}
	if (n > w->o.points)
		return cb_work_refuse(w->e, "more than the order's points");
	return 0;
}

/* Key k (the point's line i + 1) as a point of the backend: its names resolved. */
static int cb_work_point(struct cb_work *w, const struct cb_record_point *k, size_t i,
			 int native, int stand, struct cb_point *p)
{
	int label = cb_backend_variant(&w->b, k->variant), timed, d, c;

	timed = label >= 0 && label == native && stand >= 0 ? stand : label;
	d = cbfs_name_index(cbfs_directions, cbfs_ndirections, k->direction);
	c = cbfs_name_index(cbfs_caches, cbfs_ncaches, k->cache);
	if (timed < 0 || !w->b.variants[timed].usable || d < 0 || c < 0 ||
	    !(w->b.variants[timed].dirs >> d & 1) || k->size > CB_SIZE_MAX ||
	    (CB_POINT_HAS(k, size_max) && (!w->b.random_sizes || k->size_max < k->size ||
					   k->size_max > CB_SIZE_MAX)) ||
	    k->src_offset > CB_OFFSET_MAX || k->dst_offset > CB_OFFSET_MAX ||
	    k->repeat != w->o.process)
		return cb_fail(w->e, CB_EXIT_USAGE,
			       "process %llu: point %zu (%s %s %llu, cache %s, repeat %llu) is not one the %s backend measures here",
			       w->o.process, i + 1, k->direction, k->variant, k->size, k->cache,
			       k->repeat, w->b.ops->name);
	p->dir = (unsigned int)d;
	p->variant = (unsigned int)timed;
	p->label = (unsigned int)label;
	p->size.lo = k->size;
	p->size.hi = CB_POINT_HAS(k, size_max) ? k->size_max : k->size;
	p->size.random = CB_POINT_HAS(k, size_max);
	p->src_offset = (unsigned int)k->src_offset;
	p->dst_offset = (unsigned int)k->dst_offset;
	p->cache = (unsigned int)c;
	p->repeat = (unsigned int)k->repeat;
	p->seed = w->o.seed;
	return 0;
}

/* Each point's line, read and resolved against the opened backend, into w->pts. */
static int cb_work_points(struct cb_work *w, const char *rest)
{
	char why[CB_ERR_MAX / 2], msg[CB_ERR_MAX];
	struct cb_record_point k;
	int native, stand = -1, ret;
	const char *nl;

	native = cb_backend_variant(&w->b, CB_NATIVE_NAME);
	if (CB_ORDER_HAS(&w->o, as_native))
		stand = cb_backend_variant(&w->b, w->o.as_native);
	if (CB_ORDER_HAS(&w->o, as_native) && (stand < 0 || native < 0))
		return cb_work_refuse(w->e, "as_native: a variant the backend lacks");
	w->pts = cb_calloc(w->o.points ? w->o.points : 1, sizeof(*w->pts));
	for (; w->n < w->o.points; rest = nl + 1) {
		nl = strchr(rest, '\n');
		if (cb_record_key_parse(rest, (size_t)(nl - rest), &k, why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "line %zu: %s", w->n + 2, why);
			return cb_work_refuse(w->e, msg);
		}
		ret = cb_work_point(w, &k, w->n, native, stand, &w->pts[w->n]);
		cb_record_point_free(&k);
		if (ret)
			return -1;
		w->n++;
	}
	return 0;
}

/* The settings and the placement the order gives the backend. */
static void cb_work_settings(struct cb_work *w)
{
	const struct cb_order *o = &w->o;

	w->place.src_shift = (unsigned long)o->src_shift;
	w->place.dst_shift = (unsigned long)o->dst_shift;
	w->place.stack = (long)o->stack;
	w->place.cpu = (int)o->cpu;
	w->set.cpu = (long)o->cpu;
	w->set.samples = (unsigned long)o->samples;
	w->set.loops = (unsigned long)o->loops;
	w->set.max_run_ms = (unsigned long)o->max_run_ms;
	w->set.max_bytes = o->max_bytes;
	w->set.place = &w->place;
	w->set.tsc_khz = o->tsc_khz;
	w->set.slow_native = o->slow_native;
	w->set.rounds = (unsigned long)o->rounds;
	w->set.burst = (unsigned long)o->burst;
	w->set.process_ms = (unsigned long)o->process_ms;
	w->set.spell = o->slow_spell;
	w->set.cold = o->cold;
	w->set.random = o->random;
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
	res->call_min *= f;
	res->call_q02 *= f;
	res->call_median *= f;
	res->lat_min *= f;
	res->lat_q02 *= f;
	res->lat_median *= f;
}

/* One point's record line on stdout. */
static int cb_work_put(void *arg, struct cb_measured *m)
{
	struct cb_work *w = arg;
	struct cb_str line = { 0 };
	struct cb_record_point rp;
	int ret = 0;

	if (w->o.perturb_controls > 0 && strcmp(cb_point_label(w->b.variants, &m->p), CB_NATIVE_NAME))
		cb_perturb(&m->r, w->o.perturb_controls);
	cb_record_point_build(&rp, &w->b, &m->p, &m->r);
	rp.pid = (unsigned long long)getpid();
	CB_POINT_SET(&rp, pid);
	if (w->place.stack >= 0) {
		rp.stack_place = (unsigned long long)w->place.stack;
		CB_POINT_SET(&rp, stack_place);
	}
	cb_record_point_json(&line, &rp);
	cb_record_point_free(&rp);
	if (fputs(line.s, stdout) < 0 || fflush(stdout))
		ret = cb_fail(w->e, CB_EXIT_RUNTIME, "writing to the command: %s", strerror(errno));
	cb_str_free(&line);
	return ret;
}

/* The block design: each point's samples in one run, one point after the other. */
static int cb_work_block(struct cb_work *w)
{
	struct cb_measured m;
	size_t i;

	for (i = 0; i < w->n; i++) {
		if (cb_stop())
			return cb_fail(w->e, CB_EXIT_RUNTIME, "interrupted");
		m.p = w->pts[i];
		if (w->b.ops->measure(&w->b, &w->pts[i], &m.r, w->e) || cb_work_put(w, &m))
			return -1;
	}
	return 0;
}

/* On the worker's stack: every point, a record line each on stdout. */
static int cb_work_measure(void *arg)
{
	struct cb_work *w = arg;

	if (!w->set.rounds)
		return cb_work_block(w);
	return cb_interleave(&w->b, w->pts, w->n, w->o.seed, w->e, cb_work_put, w);
}

/* The backend opened, the points read, the hello said, the points measured. */
static int cb_work(struct cb_work *w, const char *rest)
{
	struct cb_str hello = { 0 };
	int ret;

	cb_work_settings(w);
	if (cb_backend_open(&w->b, w->o.backend, &w->set, w->e) || cb_work_points(w, rest))
		return -1;
	cb_hello_json(&hello, getpid(), w->b.buffers, w->b.cpu);
	fputs(hello.s, stdout);
	fflush(stdout);
	cb_str_free(&hello);
	if (cb_on_stack(w->place.stack, cb_work_measure, w, &ret))
		return cb_fail(w->e, CB_EXIT_RUNTIME, "cannot set up a stack at page offset %ld: %s",
			       w->place.stack, strerror(errno));
	return ret;
}

int cmd_worker(int argc, char **argv)
{
	struct cb_error e = { 0 };
	struct cb_work w = { .e = &e };
	struct cb_str in = { 0 };
	int status = CB_EXIT_OK;
	char *rest = NULL;

	(void)argv;
	cb_signals_init();
	if (argc > 1 || isatty(0)) {
		cb_work_refuse(&e, NULL);
		status = cb_report(&e);
		goto out;
	}
	if (cb_work_slurp(&in, &e) || cb_work_order(&w, &in, &rest) ||
	    cb_work_count(&w, &in, rest)) {
		status = cb_report(&e);
		goto out;
	}
	cb_set_prog(w.o.subcommand);
	/* Interrupted: the command that started it says so. */
	if (cb_work(&w, rest))
		status = cb_stop() ? 128 + cb_stop() : cb_report(&e);
out:
	cb_backend_free(&w.b);
	free(w.pts);
	cb_order_free(&w.o);
	cb_str_free(&in);
	return status;
}
