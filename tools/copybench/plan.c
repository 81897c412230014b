// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - a job's plan (plan.h): the options checked against each other,
 * against --like's record and against the backend; the points of every
 * repeat in the order they run; each process's placement.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copybench.h"
#include "plan.h"
#include "points.h"
#include "sizes.h"

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
#define CB_ROUNDS_LEAST		20UL
#define CB_BURST_DEFAULT	5UL
#define CB_MB_ROUNDS_DEFAULT	8UL
#define CB_MB_BURST_DEFAULT	13UL
/* Samples a process keeps at once, interleaved: 8 bytes each, 256 MiB. */
#define CB_INTERLEAVED_SAMPLES_MAX	(32ULL << 20)
/* Points one run takes (with the repeats): days of measuring already. */
#define CB_POINTS_MAX		1000000UL

/*
 * sweep's --sizes when none is given: the powers of two, and the short
 * bands as untrained copies (random: each copy draws its size and offset,
 * so the predictors cannot learn them), which a backend that cannot time
 * random sizes (the module) leaves out.
 */
static const char cb_sweep_sizes_default[] =
	"pow2:1-1M,random:1-16,random:17-64,random:65-256";

/* --design: the order of enum cb_design (plan.h). */
const char *const cb_designs[CB_DESIGN_COUNT] = { "interleaved", "block" };

void cb_job_init(struct cb_job *r, enum cb_mode mode)
{
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->backend = "auto";
	r->variants = "all";
	r->directions = CB_DIRECTION_DEFAULT;
	r->caches = CB_CACHE_DEFAULT;
	r->sizes = mode == CB_MODE_SWEEP ? cb_sweep_sizes_default : "4K";
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

void cb_plan_free(struct cb_plan *pl)
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
	    cb_points_group(&pl->like, 0, 0, CB_FIGURE_CALL, &pl->ls, &pl->nls, e))
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
int cb_plan_options(struct cb_job *r, struct cb_plan *pl, struct cb_error *e)
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
		if (pl->sizes[s].random && !b->random_sizes && r->sizes != cb_sweep_sizes_default)
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

/* The default sizes' random bands left out where the backend cannot time them. */
static void cb_plan_drop_random(const struct cb_job *r, struct cb_plan *pl,
				const struct cb_backend *b)
{
	size_t s, k;

	if (r->sizes != cb_sweep_sizes_default || b->random_sizes)
		return;
	for (s = 0, k = 0; s < pl->nsizes; s++)
		if (!pl->sizes[s].random)
			pl->sizes[k++] = pl->sizes[s];
	pl->nsizes = k;
}

int cb_plan_backend(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
		    struct cb_error *e)
{
	if (cb_plan_as_native(r, pl, b, e))
		return -1;
	cb_plan_drop_random(r, pl, b);
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

void cb_plan_print(FILE *f, const struct cb_job *r, const struct cb_plan *pl,
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
int cb_plan_ready(struct cb_job *r, struct cb_plan *pl, const struct cb_backend *b,
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
	cb_plan_kinds(r, pl);
	return 0;
}

/* Where each repeat's process runs, of the ncpus cpus allowed (this one: here). */
struct cb_place *cb_plan_places(const struct cb_job *r, const int *cpus, int ncpus, int here)
{
	struct cb_place *places = cb_calloc(r->repeat, sizeof(*places));
	size_t i;

	for (i = 0; i < r->repeat; i++)
		cb_process_place(r, cpus, ncpus, here, (unsigned int)i, &places[i]);
	return places;
}

int cb_job_given(const struct cb_job *r, const char *name)
{
	return cb_option_given(r->tables, &r->given, name);
}
