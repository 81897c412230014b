// SPDX-License-Identifier: GPL-2.0
/*
 * readers_matrix.c - readers --matrix: the blogbench question in one command.
 *
 * Every variant asked for (movsb, unrolled, nocache and native unless
 * --variants says otherwise) x buffer {shared, private} x touch {none,
 * all}, at each thread count, --repeat runs per cell; then one table, the
 * shared/private ratio per variant and touch, and a verdict: which variant
 * wins with a shared buffer nobody reads (what blogbench 1.1 measured) and
 * which with private buffers whose every byte is used. On the module's
 * data file the variant knob is set per row; a plain file has one variant,
 * the running kernel's own copy. Nothing is expected: it prints what the
 * machine does, and says when a winner is within run-to-run noise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers.h"

struct rd_matrix_variant {
	char name[RD_NAME_MAX];
	struct rd_source src;
	struct rd_stats cell[2][2];	/* [buffer shared/private][touch none/all] */
};

/* A variant asked for that cannot run here, and why: said in the output. */
struct rd_matrix_skip {
	char name[RD_NAME_MAX];
	char why[512];
};

static struct rd_matrix_skip rd_skipped[RD_MATRIX_VARIANTS_MAX];
static int rd_nskipped;

static const enum rd_buffer_kind rd_mx_buffers[2] = { RD_BUF_SHARED, RD_BUF_PRIVATE };
static const enum rd_touch rd_mx_touches[2] = { RD_TOUCH_NONE, RD_TOUCH_ALL };

/*
 * memcpy:NAME opened into src; NULL, or why it cannot run here (err holds
 * the message of a source that would not open).
 */
static const char *rd_matrix_memcpy(const struct rd_opts *o, const char *name,
				    struct rd_source *src, char *err, size_t errlen)
{
	const struct cb_variant *v = cb_variant_find(name);
	char spec[RD_NAME_MAX + 8];

	if (!v)
		return "not in this build of the variants";
	if (!cb_variant_usable(v))
		return "unusable on this CPU";
	snprintf(spec, sizeof(spec), "memcpy:%s", name);
	if (rd_source_open(src, spec, err, errlen))
		return err;
	src->size = o->size_set ? o->size : o->chunk;
	return NULL;
}

/*
 * The module's variant NAME of the module's list (names, usable: n of
 * them) as base with its variant set; NULL, or why it cannot run here.
 */
static const char *rd_matrix_module(const struct rd_source *base, const char *name,
				    char names[][RD_NAME_MAX], const bool *usable, int n,
				    struct rd_source *src)
{
	int i;

	for (i = 0; i < n && strcmp(names[i], name); i++)
		;
	if (i == n)
		return "not listed in " RD_VARIANTS_LIST;
	if (!usable[i])
		return "unusable on this CPU (module)";
	*src = *base;
	snprintf(src->variant, RD_NAME_MAX, "%s", name);
	return NULL;
}

/*
 * rd_matrix_variants - the variants the matrix can run on this source;
 * each one asked for that cannot run goes to rd_skipped.
 */
static int rd_matrix_variants(const struct rd_opts *o, const struct rd_source *base,
			      struct rd_matrix_variant *mv)
{
	char list[512], *tok, *save, err[512];
	char mod_names[RD_MATRIX_VARIANTS_MAX][RD_NAME_MAX];
	bool mod_usable[RD_MATRIX_VARIANTS_MAX];
	int n = 0, nmod = 0;

	if (base->kind == RD_SRC_FILE) {
		snprintf(mv[0].name, RD_NAME_MAX, "%s", CB_NATIVE_NAME);
		mv[0].src = *base;
		return 1;
	}
	if (base->kind == RD_SRC_MODULE) {
		nmod = rd_module_variants(mod_names, mod_usable, RD_MATRIX_VARIANTS_MAX);
		if (nmod < 0) {
			fprintf(stderr, "readers: cannot read %s: %s\n", RD_VARIANTS_LIST,
				strerror(-nmod));
			return -1;
		}
	}
	snprintf(list, sizeof(list), "%s", o->variants ? o->variants : RD_MATRIX_DEFAULT);
	for (tok = strtok_r(list, ",", &save); tok && n < RD_MATRIX_VARIANTS_MAX;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *why;

		if (base->kind == RD_SRC_MEMCPY)
			why = rd_matrix_memcpy(o, tok, &mv[n].src, err, sizeof(err));
		else
			why = rd_matrix_module(base, tok, mod_names, mod_usable, nmod,
					       &mv[n].src);
		if (why) {
			struct rd_matrix_skip *sk = &rd_skipped[rd_nskipped++];

			snprintf(sk->name, sizeof(sk->name), "%s", tok);
			snprintf(sk->why, sizeof(sk->why), "%s", why);
			continue;
		}
		snprintf(mv[n].name, RD_NAME_MAX, "%s", tok);
		n++;
	}
	return n;
}

static const char *rd_cell_str(char *buf, size_t len, const struct rd_stats *st,
			       unsigned int repeat)
{
	if (!st->runs)
		snprintf(buf, len, "FAILED");
	else if (repeat > 1)
		snprintf(buf, len, "%.2f +- %.2f%s%s", st->mean, st->stddev,
			 st->verified ? "*" : " ", st->short_reads ? "!" : " ");
	else
		snprintf(buf, len, "%.2f%s%s", st->mean, st->verified ? "*" : " ",
			 st->short_reads ? "!" : " ");
	return buf;
}

/* Best and runner-up of one column of the matrix. */
static int rd_matrix_best(const struct rd_matrix_variant *mv, int n, int b, int t,
			  int *second)
{
	int best = -1, i;

	*second = -1;
	for (i = 0; i < n; i++) {
		const struct rd_stats *st = &mv[i].cell[b][t];

		if (!st->runs)
			continue;
		if (best < 0 || st->mean > mv[best].cell[b][t].mean) {
			*second = best;
			best = i;
		} else if (*second < 0 || st->mean > mv[*second].cell[b][t].mean) {
			*second = i;
		}
	}
	return best;
}

/*
 * A win is "within noise" when the two best cells' ranges over their runs
 * (min..max) overlap: another run could have ordered them the other way.
 */
static bool rd_within_noise(const struct rd_stats *a, const struct rd_stats *b)
{
	return a->runs > 1 && b->runs > 1 && a->min <= b->max && b->min <= a->max;
}

static void rd_verdict_line(const struct rd_matrix_variant *mv, int n, int b, int t,
			    const char *what)
{
	int second, best = rd_matrix_best(mv, n, b, t, &second);
	const struct rd_stats *w, *r;

	if (best < 0) {
		printf("# verdict: %s: no cell ran\n", what);
		return;
	}
	w = &mv[best].cell[b][t];
	printf("# verdict: %s: %s wins, %.2f GB/s", what, mv[best].name, w->mean);
	if (second < 0) {
		printf(" (the only variant on this source)\n");
		return;
	}
	r = &mv[second].cell[b][t];
	printf(" (next: %s %.2f GB/s, %+.0f%%%s)\n", mv[second].name, r->mean,
	       100 * (r->mean / w->mean - 1),
	       rd_within_noise(w, r) ? "; their runs overlap: within noise" : "");
}

static void rd_matrix_print(const struct rd_opts *o, struct rd_matrix_variant *mv,
			    int n, unsigned int threads)
{
	int w = o->repeat > 1 ? 20 : 12;
	int v, t, s_best, p_best, s_next, p_next;
	bool noisy;
	char c1[48], c2[48];

	printf("#\n# matrix at %u threads: GB/s%s\n", threads,
	       o->repeat > 1 ? " mean +- stddev" : "");
	printf("# ratio = shared / private (below 1: sharing the buffer costs)\n");
	printf("# * every byte verified   ! short reads   ? a ratio sharing cannot explain\n");
	printf("%-10s %-5s %*s %*s %15s\n", "variant", "touch", w, "shared GB/s",
	       w, "private GB/s", "shared/private");
	for (v = 0; v < n; v++) {
		for (t = 0; t < 2; t++) {
			const struct rd_stats *sh = &mv[v].cell[0][t];
			const struct rd_stats *pr = &mv[v].cell[1][t];

			printf("%-10s %-5s %*s %*s", mv[v].name,
			       rd_touch_names[rd_mx_touches[t]],
			       w, rd_cell_str(c1, sizeof(c1), sh, o->repeat),
			       w, rd_cell_str(c2, sizeof(c2), pr, o->repeat));
			if (sh->runs && pr->runs && pr->mean > 0)
				printf(" %15.2f%s\n", sh->mean / pr->mean,
				       rd_ratio_contradicts(sh, pr) ? "?" : "");
			else
				printf(" %15s\n", "-");
		}
	}
	for (v = 0; v < n; v++)
		for (t = 0; t < 2; t++)
			if (rd_ratio_contradicts(&mv[v].cell[0][t], &mv[v].cell[1][t]))
				rd_ratio_warn(stdout, mv[v].name,
					      rd_touch_names[rd_mx_touches[t]],
					      &mv[v].cell[0][t], &mv[v].cell[1][t]);
	rd_verdict_line(mv, n, 0, 0, "shared buffer, untouched (blogbench 1.1)");
	rd_verdict_line(mv, n, 1, 1, "private buffers, every byte touched");
	s_best = rd_matrix_best(mv, n, 0, 0, &s_next);
	p_best = rd_matrix_best(mv, n, 1, 1, &p_next);
	if (s_best < 0 || p_best < 0 || n < 2)
		return;
	noisy = (s_next >= 0 && rd_within_noise(&mv[s_best].cell[0][0],
						&mv[s_next].cell[0][0])) ||
		(p_next >= 0 && rd_within_noise(&mv[p_best].cell[1][1],
						&mv[p_next].cell[1][1]));
	if (s_best != p_best)
		printf("# verdict: they disagree: a shared, never-read buffer picks %s; threads that read their own data run fastest with %s\n",
		       mv[s_best].name, mv[p_best].name);
	else
		printf("# verdict: they agree: %s wins both\n", mv[s_best].name);
	if (noisy)
		printf("# verdict: a winner is within noise: rerun with a longer --duration or more --repeat\n");
}

static void rd_matrix_json_ratios(struct cb_jw *w, struct rd_matrix_variant *mv, int n)
{
	int v, t;

	cb_jw_key(w, "ratios");
	cb_jw_begin_array(w);
	for (v = 0; v < n; v++) {
		for (t = 0; t < 2; t++) {
			const struct rd_stats *sh = &mv[v].cell[0][t];
			const struct rd_stats *pr = &mv[v].cell[1][t];

			cb_jw_begin_object(w);
			cb_jw_str_field(w, "variant", mv[v].name);
			cb_jw_str_field(w, "touch", rd_touch_names[rd_mx_touches[t]]);
			if (sh->runs && pr->runs && pr->mean > 0)
				rd_jnum(w, "shared_private", sh->mean / pr->mean);
			else
				cb_jw_null_field(w, "shared_private");
			cb_jw_bool_field(w, "contradicts_mechanism", rd_ratio_contradicts(sh, pr));
			cb_jw_end_object(w);
		}
	}
	cb_jw_end_array(w);
}

static void rd_matrix_json(struct rd_matrix_variant *mv, int n, unsigned int threads)
{
	int s2, p2, s = rd_matrix_best(mv, n, 0, 0, &s2);
	int p = rd_matrix_best(mv, n, 1, 1, &p2);
	struct cb_jw w;
	int v;

	cb_jw_init(&w, stdout);
	cb_jw_begin_object(&w);
	cb_jw_str_field(&w, "type", "verdict");
	cb_jw_u64_field(&w, "threads", threads);
	cb_jw_str_field(&w, "shared_none_winner", s >= 0 ? mv[s].name : NULL);
	rd_jnum(&w, "shared_none_gbps", s >= 0 ? mv[s].cell[0][0].mean : 0);
	cb_jw_str_field(&w, "private_all_winner", p >= 0 ? mv[p].name : NULL);
	rd_jnum(&w, "private_all_gbps", p >= 0 ? mv[p].cell[1][1].mean : 0);
	cb_jw_bool_field(&w, "agree", s >= 0 && s == p);
	rd_matrix_json_ratios(&w, mv, n);
	cb_jw_key(&w, "skipped");
	cb_jw_begin_array(&w);
	for (v = 0; v < rd_nskipped; v++) {
		cb_jw_begin_object(&w);
		cb_jw_str_field(&w, "variant", rd_skipped[v].name);
		cb_jw_str_field(&w, "reason", rd_skipped[v].why);
		cb_jw_end_object(&w);
	}
	cb_jw_end_array(&w);
	cb_jw_end_object(&w);
	rd_json_end(&w);
}

static void rd_matrix_notes(FILE *f, const struct rd_source *base)
{
	int i;

	if (base->kind == RD_SRC_FILE)
		fprintf(f, "# variants: a file's read path is the running kernel's own copy: native only\n");
	for (i = 0; i < rd_nskipped; i++)
		fprintf(f, "# variant %s: skipped, %s\n", rd_skipped[i].name,
			rd_skipped[i].why);
}

/*
 * Progress on a terminal: the matrix prints its table only once every cell
 * of a thread count ran, which takes minutes. One line on stderr, redrawn
 * per cell and erased before any table; nothing when stderr is not a
 * terminal (a pipe, a log file, make check) or one that cannot erase a
 * line (TERM unset or dumb).
 */
struct rd_progress {
	bool on;
	unsigned int done, total;
	double cell_s;		/* seconds a cell takes: repeat x (warm-up + run) */
};

static void rd_progress_cell(struct rd_progress *p, const char *variant,
			     const struct rd_config *cfg)
{
	char buf[32];

	if (!p->on)
		return;
	fprintf(stderr, "\r\033[K# matrix: cell %u of %u: %s, %u thread%s, %s, touch %s; about %.0f s left",
		p->done + 1, p->total, variant, cfg->threads,
		cfg->threads > 1 ? "s" : "", rd_buffer_str(buf, sizeof(buf), cfg),
		rd_touch_names[cfg->touch], (p->total - p->done) * p->cell_s);
	p->done++;
}

static void rd_progress_clear(const struct rd_progress *p)
{
	if (p->on)
		fprintf(stderr, "\r\033[K");
}

/*
 * One variant's four cells (buffer x touch) with that many threads; failures
 * and short reads accumulate. -1 when the checksums cannot be built.
 */
static int rd_matrix_cells(const struct rd_opts *o, struct rd_matrix_variant *mv,
			   unsigned int threads, struct rd_progress *progress, bool *failed,
			   bool *shorts)
{
	struct rd_sums sums;
	char err[512];
	int b, t;

	if (mv->src.kind == RD_SRC_MODULE && rd_variant_set(mv->name, err, sizeof(err))) {
		rd_progress_clear(progress);
		fprintf(stderr, "readers: %s\n", err);
		progress->done += 4;
		*failed = true;
		memset(mv->cell, 0, sizeof(mv->cell));
		return 0;
	}
	if (rd_build_sums(o, &mv->src, &sums)) {
		rd_progress_clear(progress);
		return -1;
	}
	for (b = 0; b < 2; b++) {
		for (t = 0; t < 2; t++) {
			struct rd_stats *st = &mv->cell[b][t];
			struct rd_config cfg;
			char buf[32];

			rd_config_init(o, &cfg, &mv->src, threads);
			cfg.buffer = rd_mx_buffers[b];
			cfg.touch = rd_mx_touches[t];
			rd_progress_cell(progress, mv->name, &cfg);
			*st = rd_run_config(o, &cfg, &sums, false);
			if (st->failed && !o->json) {
				rd_progress_clear(progress);
				fprintf(stderr, "readers: error: %s, %s, touch %s: %s\n", mv->name,
					rd_buffer_str(buf, sizeof(buf), &cfg),
					rd_touch_names[cfg.touch], st->error);
			}
			*failed |= st->failed > 0;
			*shorts |= st->short_reads > 0;
		}
	}
	rd_sums_free(&sums);
	return 0;
}

/* The progress line set up, and the matrix's heading unless --json. */
static void rd_matrix_start(const struct rd_opts *o, const struct rd_source *base,
			    const struct rd_matrix_variant *mv, int n,
			    struct rd_progress *progress)
{
	const char *term = getenv("TERM");

	progress->on = isatty(STDERR_FILENO) && term && strcmp(term, "dumb");
	progress->total = o->nthreads * n * 4;
	progress->cell_s = o->repeat * (o->warmup + o->duration);
	if (o->json)
		return;
	rd_print_setup(o, &mv[0].src);
	printf("# matrix: variant x buffer {shared, private} x touch {none, all}, %u run%s per cell\n",
	       o->repeat, o->repeat > 1 ? "s" : "");
	rd_matrix_notes(stdout, base);
}

int rd_matrix(const struct rd_opts *o, struct rd_source *base)
{
	struct rd_progress progress = { 0 };
	struct rd_matrix_variant *mv;
	bool failed = false, shorts = false;
	unsigned int ti;
	int n, v, ret = RD_EXIT_OK;

	mv = calloc(RD_MATRIX_VARIANTS_MAX, sizeof(*mv));
	if (!mv)
		return RD_EXIT_ERROR;
	n = rd_matrix_variants(o, base, mv);
	if (n <= 0) {
		fprintf(stderr, "readers: --matrix: no variant can run on this source\n");
		rd_matrix_notes(stderr, base);
		free(mv);
		return RD_EXIT_ERROR;
	}
	rd_matrix_start(o, base, mv, n, &progress);
	for (ti = 0; ti < o->nthreads && !atomic_load(&rd_interrupted); ti++) {
		for (v = 0; v < n && !atomic_load(&rd_interrupted); v++) {
			if (rd_matrix_cells(o, &mv[v], o->threads[ti], &progress, &failed,
					    &shorts)) {
				ret = RD_EXIT_ERROR;
				goto out;
			}
		}
		rd_progress_clear(&progress);
		if (atomic_load(&rd_interrupted))
			break;
		if (o->json)
			rd_matrix_json(mv, n, o->threads[ti]);
		else
			rd_matrix_print(o, mv, n, o->threads[ti]);
	}
	if (shorts && !o->json)
		printf("# WARNING: short reads in the cells marked '!'\n");
	if (failed || atomic_load(&rd_interrupted))
		ret = RD_EXIT_ERROR;
	else if (shorts && !o->allow_short)
		ret = RD_EXIT_SHORT;
out:
	free(mv);
	return ret;
}
