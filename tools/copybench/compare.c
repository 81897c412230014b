// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - "copybench compare BASE NEW [MORE...]": is a difference
 * between two records real, is it the kernel's or the machine's, and what
 * LKP would have said. The decision is verdict.c's; this file reads the
 * records, prints LKP's layout and the verdicts (or JSON lines) and
 * returns the status. Documentation/compare.rst is the manual.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "builtin.h"
#include "compare.h"
#include "lib/cb_json_writer.h"
#include "lib/cb_options.h"

static const char cb_compare_usage[] =
	"Usage: copybench compare BASE.json NEW.json [MORE.json...] [OPTIONS]\n"
	"\n"
	"Compares records of copybench sweep point by point, base first, in LKP's\n"
	"layout (mean +-%stddev  %change  mean +-%stddev  point), and decides each\n"
	"native point on its fast level (its fastest 30% of processes, a\n"
	"permutation test), each control with a Mann-Whitney U test on its\n"
	"processes, both with a practical threshold; on each figure: the time per\n"
	"call as timed (the loop included) and, where both records have it, the\n"
	"latency. A native point moved when either figure did.\n"
	"The fixed variants are controls: when they moved, the machine moved, and\n"
	"native changes are shown net of their drift. Each further record is\n"
	"compared with BASE in turn.\n"
	"\n"
	"  copybench compare v6.1.json v6.12.json\n"
	"  copybench compare --points 'to_user.native.*' --threshold 5 a.json b.json\n"
	"\n"
	"Exit status: 0 no regression, 1 a native point regressed (significant, beyond\n"
	"the threshold, and net of the controls), 2 bad option or record (nothing\n"
	"else is printed), 3 inconclusive: the controls moved, too few repeats for\n"
	"alpha, or points missing on one side (and no regression).\n"
	"\n"
	"Options:\n";

static int cb_opt_points(void *field, const char *v, struct cb_error *e)
{
	struct cb_points_opt *p = field;

	cb_patterns_free(&p->pat);
	if (cb_patterns_parse("points", v, &p->pat, e))
		return -1;
	p->arg = v;
	return 0;
}


const struct cb_option cb_compare_decide_options[] = {
	CB_OPT_DOUBLE("alpha", struct cb_compare_args, o.par.alpha, 0, 0.5, CB_LO_OPEN, 1,
		      "a significance level", "alpha", "A",
			"significance level of the test (default 0.01,\n"
			"0 < A <= 0.5)"),
	CB_OPT_DOUBLE("threshold", struct cb_compare_args, o.par.threshold, 0, 1000, CB_HI_OPEN,
		      1.0 / 100, "a percentage", "PCT", "PCT",
		      "smallest change reported, percent (default 2)"),
	CB_OPT_CALLBACK("points", 0, struct cb_compare_args, points, required_argument,
			cb_opt_points, "SPEC",
			"only these points, comma-separated names or\n"
			"shell patterns ('to_user.native.*', '*.4K'), and\n"
			"the controls of their size classes"),
	CB_OPT_CHOICE("estimator", struct cb_compare_args, o.median, cb_estimator_names, "E",
		      "each repeat's figure: min (cycles_min) or median\n"
		      "(default: the base record's estimator)"),
	CB_OPT_CHOICE("clock", struct cb_compare_args, o.core, cb_clock_names, "C",
		      "tsc (default) or core: TSC cycles x clock_ratio"),
	CB_OPT_CHOICE("figure", struct cb_compare_args, figure, cb_figure_choices, "F",
		      "what is decided on: call (the time per call as\n"
		      "timed), latency, or both (default: both where\n"
		      "both records have the latency, else call)"),
	CB_OPT_UINT("resamples", struct cb_compare_args, o.par.resamples, INFER_BOOT_MIN,
		    INFER_BOOT_MAX, NULL, "N",
		    "bootstrap resamples, from 10 repeats a side,\n"
		    "and the fast level's random splits beyond\n"
		    "200000 (default 10000)"),
	CB_OPT_UINT("seed", struct cb_compare_args, o.par.seed, 0, ~0ULL, NULL, "N",
		    "seed of both (default 1)"),
	CB_OPT_FLAG("help", 'h', struct cb_compare_args, help, "this help"),
	CB_OPT_END(),
};

static const struct cb_option cb_compare_options[] = {
	CB_OPT_FLAG("json", 0, struct cb_compare_args, json,
		    "JSON lines for tools: one per comparison, drift\n"
		    "class and point, then a summary"),
	CB_OPT_FLAG("force", 0, struct cb_compare_args, o.force,
		    "compare records of different CPUs, microcode,\n"
		    "backends or TSC frequencies (listed either way)"),
	CB_OPT_END(),
};

const char *const cb_figure_choices[CB_FIGURES + 1] = { "call", "latency", "both" };

void cb_compare_args_init(struct cb_compare_args *a)
{
	const struct cb_cmp_opts def = CB_CMP_OPTS_DEFAULT;

	memset(a, 0, sizeof(*a));
	a->o = def;
	a->figure = CB_FIGURE_BOTH;
}

/* What each figure is, in a line of text. */
static const char *const cb_figure_text[CB_FIGURES] = {
	"time per call (back to back, as timed: the loop included)",
	"latency (each copy's source from the bytes the one before it wrote)",
};

/* Whether some native line of r holds a latency. */
static int cb_has_latency(const struct cb_record *r)
{
	size_t i;

	for (i = 0; i < r->npoints; i++)
		if (CB_POINT_HAS(&r->points[i], latency_min) &&
		    !strcmp(r->points[i].variant, CB_NATIVE_NAME))
			return 1;
	return 0;
}

int cb_compare_figures(const struct cb_record *base, const struct cb_record *new,
		       const struct cb_compare_args *a, struct cb_cmps *c, struct cb_error *e)
{
	const struct cb_record *lacks = !cb_has_latency(base) ? base :
					!cb_has_latency(new) ? new : NULL;
	struct cb_cmp_opts o = a->o;
	int f, first = 1;

	memset(c, 0, sizeof(*c));
	if (a->figure == CB_FIGURE_LATENCY && lacks)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--figure latency: %s holds no latency of a native point (a record of cold points only, or made before copybench measured it; accepted: --figure call)",
			       lacks->path);
	for (f = 0; f < CB_FIGURES; f++) {
		if (a->figure != CB_FIGURE_BOTH && a->figure != f)
			continue;
		if (f == CB_FIGURE_LATENCY && lacks) {
			c->no_latency = lacks->path;
			continue;
		}
		o.figure = (enum cb_figure)f;
		if (cb_compare(base, new, &o, &c->f[f], e)) {
			cb_compare_figures_free(c);
			return -1;
		}
		c->has[f] = 1;
		c->status = first ? c->f[f].status : cb_compare_status_merge(c->status, c->f[f].status);
		first = 0;
	}
	return 0;
}

void cb_compare_figures_free(struct cb_cmps *c)
{
	int f;

	for (f = 0; f < CB_FIGURES; f++)
		if (c->has[f])
			cb_compare_free(&c->f[f]);
	memset(c, 0, sizeof(*c));
}

const struct cb_cmp_point *cb_cmp_find(const struct cb_cmp *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->npts; i++)
		if (!strcmp(c->pts[i].name, name))
			return &c->pts[i];
	return NULL;
}

const struct cb_cmp_point *cb_point_outcome(const struct cb_cmps *c, const char *name,
					    enum cb_outcome *out, int which[CB_FIGURES])
{
	const struct cb_cmp_point *p[CB_FIGURES] = { NULL }, *first = NULL;
	static const enum cb_outcome moved[] = { CB_OUT_REGRESSED, CB_OUT_IMPROVED };
	unsigned int k;
	int f, all_unchanged = 1;

	for (f = 0; f < CB_FIGURES; f++) {
		which[f] = 0;
		p[f] = c->has[f] ? cb_cmp_find(&c->f[f], name) : NULL;
		first = first ? first : p[f];
		all_unchanged &= !p[f] || p[f]->out == CB_OUT_UNCHANGED;
	}
	if (!first)
		return NULL;
	for (k = 0; k < ARRAY_SIZE(moved); k++) {
		for (f = 0; f < CB_FIGURES; f++)
			which[f] = p[f] && p[f]->out == moved[k];
		for (f = 0; f < CB_FIGURES; f++)
			if (which[f]) {
				*out = moved[k];
				return p[f];
			}
	}
	*out = CB_OUT_UNCHANGED;
	for (f = 0; !all_unchanged && f < CB_FIGURES; f++)
		if (p[f] && p[f]->out != CB_OUT_UNCHANGED) {
			*out = p[f]->out;
			return p[f];
		}
	return first;
}

void cb_compare_args_parsed(struct cb_compare_args *a)
{
	a->o.points = a->points.arg ? &a->points.pat : NULL;
}

/* ---- Text ------------------------------------------------------------- */

/* "+6.0%" of a ratio, into buf; "-" when not finite. */
static const char *cb_pct(double ratio, char *buf, size_t len)
{
	if (!isfinite(ratio))
		return "-";
	snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
	return buf;
}

static void cb_text_record(FILE *f, const char *role, const struct cb_record *r)
{
	struct cb_str b = { 0 };

	cb_str_printf(&b, "# %-4s ", role);
	cb_str_add_clean(&b, r->path);
	cb_str_add(&b, ": kernel ");
	cb_str_add_clean(&b, r->header.kernel);
	cb_str_add(&b, ", backend ");
	cb_str_add_clean(&b, r->header.backend);
	cb_str_add(&b, ", recorded ");
	cb_str_add_clean(&b, r->header.date);
	cb_str_printf(&b, ", %llu repeat(s) asked, %s\n", r->header.repeat,
		      cb_record_one_process(r) ? "all in one process" : "each a process");
	fputs(b.s, f);
	cb_str_free(&b);
}

/* s on f, each control character as '?' (record text in a line report). */
static void cb_put_clean(FILE *f, const char *s)
{
	struct cb_str b = { 0 };

	cb_str_add(&b, "");
	cb_str_add_clean(&b, s);
	fputs(b.s, f);
	cb_str_free(&b);
}

/*
 * QEMU's TCG names its CPU "QEMU TCG CPU ...": every instruction is
 * emulated, and timings measure the emulator, not the kernel.
 */
int cb_emulated(const struct cb_record *r)
{
	return strstr(r->header.cpu_model, "TCG") != NULL;
}

static void cb_text_synthetic(FILE *f, const struct cb_record *r)
{
	if (cb_emulated(r)) {
		fputs("# warning: ", f);
		cb_put_clean(f, r->path);
		fputs(" was recorded on an emulated CPU (", f);
		cb_put_clean(f, r->header.cpu_model);
		fputs("): its timings are the emulator's, not the kernel's\n", f);
	}
	if (CB_HEADER_HAS(&r->header, as_native)) {
		fputs("# warning: ", f);
		cb_put_clean(f, r->path);
		fputs(" is a test record: its native points are variant ", f);
		cb_put_clean(f, r->header.as_native);
		fputs(" (--as-native)\n", f);
	}
	if (CB_HEADER_HAS(&r->header, perturb_controls)) {
		fputs("# warning: ", f);
		cb_put_clean(f, r->path);
		fprintf(f, " is a test record: its control costs were multiplied by %g (--perturb-controls)\n",
			r->header.perturb_controls);
	}
	if (CB_HEADER_HAS(&r->header, slow_spell)) {
		fputs("# warning: ", f);
		cb_put_clean(f, r->path);
		fprintf(f, " is a test record: its native copy was %g%% dearer in a third of its rounds (--slow-spell)\n",
			r->header.slow_spell);
	}
}

/* A record from before processes: said plainly, it decides nothing. */
static void cb_text_one_process(FILE *f, const struct cb_record *r, int one)
{
	if (!one)
		return;
	fputs("# warning: ", f);
	cb_put_clean(f, r->path);
	fprintf(f, " is a record of one process (a copybench before processes wrote it): its %llu repeat(s) share one placement, compare counts processes and cannot decide on it; record it again with this copybench\n",
		r->header.repeat);
}

/* A record without "design": every point timed in one run (sweep --design block). */
static void cb_text_design(FILE *f, const struct cb_record *r)
{
	if (CB_HEADER_HAS(&r->header, design) && strcmp(r->header.design, "block"))
		return;
	fputs("# note: ", f);
	cb_put_clean(f, r->path);
	fputs(" is a record of the block design (each point's samples in one run, as copybench timed before its interleaved design, or sweep --design block): it has no paired controls, and its native points are decided on their own costs\n",
	      f);
}

static void cb_text_class(FILE *f, const struct cb_cmp_class *k, const struct infer_params *par)
{
	char lo[24], hi[24], r[32], a[32], b[32];

	cb_fmt_bytes(k->size_lo, lo, sizeof(lo));
	cb_fmt_bytes(k->size_hi, hi, sizeof(hi));
	fprintf(f, "#   %-9s %-4s %-8s %3zu %scontrol points at %s%s%s: %s", k->key.direction,
		k->key.cache, cb_size_class_name(k->band), k->n, k->paired ? "paired " : "", lo,
		k->size_lo == k->size_hi ? "" : "-", k->size_lo == k->size_hi ? "" : hi,
		cb_pct(k->d.ratio, r, sizeof(r)));
	if (k->d.enough || k->d.by_process) {
		fprintf(f, " (%.0f%% CI %s to %s, p %.4f", 100 * (1 - par->alpha),
			cb_pct(k->d.lo, a, sizeof(a)), cb_pct(k->d.hi, b, sizeof(b)), k->d.p);
		if (k->d.by_process)
			fprintf(f, " over %zu+%zu processes", k->d.procs_base, k->d.procs_new);
		fputc(')', f);
	}
	fprintf(f, " %s\n", k->d.moved ? "MOVED" : k->scattered ? "scattered" :
		k->d.enough ? "steady" : "(one control point: no spread to judge by)");
}

/*
 * LKP's "mean ±%stddev" column, 20 characters wide: the spread shown only
 * above 2%, as LKP does.
 */
static void cb_text_lkp_side(FILE *f, const struct cb_side *s)
{
	double pct = s->mean > 0 ? 100 * s->stddev / s->mean : 0;

	if (pct > 2)
		fprintf(f, "%12.2f ± %3.0f%% ", s->mean, fmin(pct, 999));
	else
		fprintf(f, "%12.2f        ", s->mean);
}

static const char *cb_lkp_word(const struct infer_lkp *l)
{
	if (!l->enough_runs)
		return "skip";
	return l->changed ? "changed" : "-";
}

/* "3%/12%": how far each side's processes disagree, (max - min) / min. */
static const char *cb_spreads(const struct cb_cmp_point *p, char *buf, size_t len)
{
	if (!p->has_pl)
		return "-";
	snprintf(buf, len, "%.0f%%/%.0f%%", fmin(100 * p->pl.base_spread, 999),
		 fmin(100 * p->pl.new_spread, 999));
	return buf;
}

/* "±3.1%": the smallest change the pair could have found; "-" unknown. */
static const char *cb_within_text(const struct cb_cmp_point *p, char *buf, size_t len)
{
	if (isnan(p->within))
		return "-";
	if (!isfinite(p->within) || p->within >= 10)
		return "±inf";
	snprintf(buf, len, "±%.1f%%", 100 * p->within);
	return buf;
}

static void cb_text_point(FILE *f, const struct cb_cmp_point *p)
{
	char ch[32], net[32], pv[32], sp[32], wi[32];
	double lkp = p->base.mean > 0 ? p->new.mean / p->base.mean : NAN;

	cb_text_lkp_side(f, &p->base);
	fprintf(f, "%10s  ", cb_pct(lkp, ch, sizeof(ch)));
	cb_text_lkp_side(f, &p->new);
	snprintf(pv, sizeof(pv), "%.4f", p->v.p);
	/* "±" is two bytes: the width one more. */
	fprintf(f, " %-19s%s %7s %7s %7s %8s %9s  %-7s  %s\n", cb_outcome_name(p->out),
		p->boot_agrees ? " " : "*", cb_pct(p->v.ratio, ch, sizeof(ch)),
		p->on_levels ? "levels" : p->paired ? "paired" :
		p->has_net ? cb_pct(p->net.net, net, sizeof(net)) : "-",
		p->v.why == INFER_WHY_NONE || p->v.why == INFER_WHY_FEW_REPEATS ? pv : "-",
		cb_within_text(p, wi, sizeof(wi)), cb_spreads(p, sp, sizeof(sp)),
		cb_lkp_word(&p->lkp), p->name);
}

static void cb_text_why(FILE *f, const struct cb_cmp *c, const struct infer_params *par)
{
	const struct cb_cmp_point *p;
	size_t i, n = 0;
	char ch[32], wi[32];

	for (i = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (p->out != CB_OUT_INCONCLUSIVE)
			continue;
		if (!n++)
			fprintf(f, "# inconclusive:\n");
		fprintf(f, "#   %s: %s", p->name, p->why);
		if (p->v.why == INFER_WHY_FEW_REPEATS && !c->base_one && !c->new_one)
			fprintf(f, " (%zu against %zu processes; alpha %g needs %zu a side: sweep --repeat %zu)",
				p->base.n, p->new.n, par->alpha, p->v.repeats_needed,
				p->v.repeats_needed);
		fputc('\n', f);
	}
	for (i = 0, n = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (p->out != CB_OUT_PLACEMENT || p->control)
			continue;
		if (!n++)
			fprintf(f, "# placement-sensitive: the processes of one side disagree beyond %g%%, and the change lies within what that explains:\n",
				100 * par->threshold);
		fprintf(f, "#   %s: processes %.2f to %.2f (%.0f%%) against %.2f to %.2f (%.0f%%), change %+.1f%%%s\n",
			p->name, p->base.min, p->base.max, 100 * p->pl.base_spread, p->new.min,
			p->new.max, 100 * p->pl.new_spread, p->v.change_pct,
			p->v.change == INFER_REGRESSED ? ": significant, undecided" : "");
	}
	if (n)
		fprintf(f, "#   (copybench placement POINT BASE.json shows which placements are slow)\n");
	for (i = 0, n = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (p->control || !p->paired || p->out != CB_OUT_MACHINE)
			continue;
		if (!n++)
			fprintf(f, "# machine-like, paired: the change is its reference's, native's own fast level did not make it:\n");
		fprintf(f, "#   %s: %s against %s", p->name, cb_pct(p->v.ratio, ch, sizeof(ch)),
			p->against ? p->against : "its control");
		fprintf(f, " (%s a call), native's own level %s",
			cb_pct(p->own.paired, ch, sizeof(ch)), cb_pct(p->own.ratio, wi, sizeof(wi)));
		fprintf(f, " (%s", cb_pct(p->own.lo, wi, sizeof(wi)));
		fprintf(f, " to %s)\n", cb_pct(p->own.hi, wi, sizeof(wi)));
	}
	for (i = 0, n = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (!p->v.by_level || p->v.level.share_p > par->alpha ||
		    p->v.change == INFER_REGRESSED || p->v.change == INFER_IMPROVED)
			continue;
		if (!n++)
			fprintf(f, "# the share of processes at the fast level moved, the level not (Fisher's exact test at alpha %g): the machine's or the placements' doing, not called a change:\n",
				par->alpha);
		fprintf(f, "#   %s: %zu of %zu processes within 1%% of both records' level in base, %zu of %zu in new (p %.4f); the level %s, %s\n",
			p->name, p->v.level.share_base, p->base.n, p->v.level.share_new, p->new.n,
			p->v.level.share_p, cb_pct(p->v.level.ratio, ch, sizeof(ch)),
			cb_outcome_name(p->out));
	}
	for (i = 0, n = 0; i < c->npts; i++) {
		p = &c->pts[i];
		if (p->boot_agrees)
			continue;
		if (!n++)
			fprintf(f, "# * the bootstrap interval of its ratio (a native point's fast level, a control's medians) disagrees:\n");
		fprintf(f, "#   %s: %.0f%% interval %+.1f%% to %+.1f%%\n", p->name,
			100 * p->boot.level, 100 * (p->boot.lo - 1), 100 * (p->boot.hi - 1));
	}
}

static void cb_text_only(FILE *f, const char *path, char **names, size_t n)
{
	size_t i;

	if (!n)
		return;
	fprintf(f, "# warning: %zu point(s) only in ", n);
	cb_put_clean(f, path);
	fputc(':', f);
	for (i = 0; i < n && i < 10; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, "%s\n", n > 10 ? " ..." : "");
}

static const char *cb_status_words(const struct cb_cmp *c)
{
	switch (c->status) {
	case CB_EXIT_OK:
		return "no regression";
	case CB_EXIT_REGRESSION:
		return "REGRESSION";
	default:
		if (c->moved)
			return "inconclusive: the machine moved";
		if (c->count[CB_OUT_INCONCLUSIVE])
			return "inconclusive: some points cannot be decided";
		if (c->undecided)
			return "inconclusive: placement could explain a significant change";
		return "inconclusive: points missing on one side";
	}
}

static void cb_text_summary(FILE *f, const struct cb_cmp *c)
{
	const struct cb_cmp_point *w;
	char a[32], b[32];
	unsigned int o;

	fprintf(f, "# %zu native point(s):", c->natives);
	for (o = 0; o < CB_OUT_COUNT; o++)
		fprintf(f, "%s %zu %s", o ? "," : "", c->count[o], cb_outcome_name(o));
	fprintf(f, "; %zu control point(s)\n", c->npts - c->natives);
	if (c->worst >= 0) {
		w = &c->pts[c->worst];
		fprintf(f, "# worst regression: %s %s", w->name, cb_pct(w->v.ratio, a, sizeof(a)));
		if (w->has_net)
			fprintf(f, " (net of the controls %s)", cb_pct(w->net.net, b, sizeof(b)));
		fprintf(f, ", p %.4f\n", w->v.p);
	}
	fprintf(f, "# verdict: %s (exit %d)\n", cb_status_words(c), c->status);
}

static void cb_text(FILE *f, const struct cb_cmp *c, const struct cb_compare_args *a)
{
	const struct infer_params *par = &a->o.par;
	size_t i;
	int heading = 0;

	if (c->moved) {
		fprintf(f, "THE MACHINE MOVED: the control variants (the same code on both sides) changed beyond noise, so no change below can be pinned on the kernel; native changes are shown net of them\n");
		for (i = 0; i < c->ncls; i++)
			if (c->cls[i].d.moved)
				cb_text_class(f, &c->cls[i], par);
	}
	fprintf(f, "# copybench compare\n");
	cb_text_record(f, "base", c->base);
	cb_text_record(f, "new", c->new);
	cb_text_synthetic(f, c->base);
	cb_text_synthetic(f, c->new);
	cb_text_one_process(f, c->base, c->base_one);
	cb_text_one_process(f, c->new, c->new_one);
	cb_text_design(f, c->base);
	cb_text_design(f, c->new);
	if (c->natives > c->unpaired)
		fprintf(f, "# %zu native point(s) decided on their paired controls: each process's cost against its control's, timed in the same bursts (net column: \"paired\")\n",
			c->natives - c->unpaired);
	if (c->on_levels)
		fprintf(f, "#   %zu of them on the levels: native's fast level against its reference's, each of its own fastest processes, where that is the narrower and the size class's controls stayed (net column: \"levels\")\n",
			c->on_levels);
	fprintf(f, "# header differences: %zu%s\n", c->ndiffs,
		c->blocking ? " (different machines: compared anyway, --force)" : "");
	for (i = 0; i < c->ndiffs; i++)
		fprintf(f, "#   %s%s: %s  ->  %s\n", c->diffs[i].blocking ? "(!) " : "",
			c->diffs[i].field, c->diffs[i].base, c->diffs[i].new);
	cb_text_only(f, c->base->path, c->only_base, c->nonly_base);
	cb_text_only(f, c->new->path, c->only_new, c->nonly_new);
	fprintf(f, "# figure: %s; each process's %s sample in %s per copy; a native point's figure is its fast level, the geometric mean of its fastest 30%% of processes (a permutation test), a control's all its processes (Mann-Whitney U); a change is significant at alpha %g and beyond %g%%%s\n",
		cb_figure_text[c->figure], c->median ? "median" : "fastest",
		c->core ? "core clocks" : "TSC clocks",
		par->alpha, 100 * par->threshold,
		c->no_controls ? "" : "; native points also net of their size class's controls");
	if (c->no_controls)
		fprintf(f, "# warning: no control variant in both records: a native change cannot be told from the machine moving\n");
	else
		fprintf(f, "# controls, drift new/base per direction, cache and size class:\n");
	for (i = 0; i < c->ncls; i++)
		cb_text_class(f, &c->cls[i], par);
	/* The columns of cb_text_point(); "±" is two bytes, one column. */
	fprintf(f, "\n%12s %-7s%10s  %12s %-7s %-19s  %7s %7s %7s %7s %9s  %-7s  %s\n", "base",
		"%stddev", "%change", "new", "%stddev", "verdict", "change", "net", "p", "within",
		"spread", "lkp", "point");
	for (i = 0; i < c->npts; i++) {
		if (c->pts[i].control && !heading++)
			fprintf(f, "# controls\n");
		cb_text_point(f, &c->pts[i]);
	}
	fputc('\n', f);
	cb_text_why(f, c, par);
	cb_text_summary(f, c);
}

/* ---- JSON lines ----------------------------------------------------------- */

/* compare's numbers: 6 significant digits, null when not finite. */
static void cb_jnum(struct cb_jw *w, const char *key, double v)
{
	cb_jw_g_field(w, key, 6, v);
}

static void cb_jside(struct cb_jw *w, const char *key, const struct cb_side *s)
{
	cb_jw_key(w, key);
	cb_jw_begin_object(w);
	cb_jw_u64_field(w, "n", s->n);
	cb_jw_u64_field(w, "lines", s->lines);
	cb_jnum(w, "mean", s->mean);
	cb_jnum(w, "stddev", s->stddev);
	cb_jnum(w, "median", s->median);
	cb_jnum(w, "min", s->min);
	cb_jnum(w, "max", s->max);
	cb_jw_end_object(w);
}

static void cb_jnames(struct cb_jw *w, const char *key, char **names, size_t n)
{
	size_t i;

	cb_jw_key(w, key);
	cb_jw_begin_array(w);
	for (i = 0; i < n; i++)
		cb_jw_str(w, names[i]);
	cb_jw_end_array(w);
}

static void cb_json_head(struct cb_jw *w, const struct cb_cmp *c, const struct cb_compare_args *a)
{
	size_t i;

	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "compare");
	cb_jw_str_field(w, "figure", cb_figure_names[c->figure]);
	cb_jw_str_field(w, "base", c->base->path);
	cb_jw_str_field(w, "new", c->new->path);
	cb_jw_str_field(w, "estimator", c->median ? "median" : "min");
	cb_jw_str_field(w, "clock", c->core ? "core" : "tsc");
	cb_jnum(w, "alpha", a->o.par.alpha);
	cb_jnum(w, "threshold_pct", 100 * a->o.par.threshold);
	cb_jw_bool_field(w, "different_machines", c->blocking);
	cb_jw_bool_field(w, "controls", !c->no_controls);
	cb_jw_bool_field(w, "emulated_cpu", cb_emulated(c->base) || cb_emulated(c->new));
	cb_jw_bool_field(w, "machine_moved", c->moved);
	cb_jw_key(w, "differences");
	cb_jw_begin_array(w);
	for (i = 0; i < c->ndiffs; i++) {
		cb_jw_begin_object(w);
		cb_jw_str_field(w, "field", c->diffs[i].field);
		cb_jw_str_field(w, "base", c->diffs[i].base);
		cb_jw_str_field(w, "new", c->diffs[i].new);
		cb_jw_bool_field(w, "blocking", c->diffs[i].blocking);
		cb_jw_end_object(w);
	}
	cb_jw_end_array(w);
	cb_jw_end_object(w);
}

static void cb_json_class(struct cb_jw *w, const struct cb_cmp *c, const struct cb_cmp_class *k)
{
	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "drift");
	cb_jw_str_field(w, "figure", cb_figure_names[c->figure]);
	cb_jw_str_field(w, "direction", k->key.direction);
	cb_jw_str_field(w, "cache", k->key.cache);
	cb_jw_str_field(w, "sizes", cb_size_class_name(k->band));
	cb_jw_u64_field(w, "size_lo", k->size_lo);
	cb_jw_u64_field(w, "size_hi", k->size_hi);
	cb_jw_u64_field(w, "n", k->n);
	cb_jnum(w, "ratio", k->d.ratio);
	cb_jnum(w, "lo", k->d.enough ? k->d.lo : NAN);
	cb_jnum(w, "hi", k->d.enough ? k->d.hi : NAN);
	cb_jnum(w, "p", k->d.p);
	cb_jw_bool_field(w, "moved", k->d.moved);
	cb_jw_bool_field(w, "scattered", k->scattered);
	cb_jw_bool_field(w, "paired", k->paired);
	cb_jw_bool_field(w, "by_process", k->d.by_process);
	cb_jw_u64_field(w, "procs_base", k->d.procs_base);
	cb_jw_u64_field(w, "procs_new", k->d.procs_new);
	cb_jw_end_object(w);
}

/* A point's "placement": the spread of its processes on each side, or null. */
static void cb_json_placement(struct cb_jw *w, const struct cb_cmp_point *p)
{
	if (!p->has_pl) {
		cb_jw_null_field(w, "placement");
		return;
	}
	cb_jw_key(w, "placement");
	cb_jw_begin_object(w);
	cb_jw_bool_field(w, "sensitive", p->pl.sensitive);
	cb_jnum(w, "base_spread", p->pl.base_spread);
	cb_jnum(w, "new_spread", p->pl.new_spread);
	cb_jnum(w, "gap", p->pl.gap);
	cb_jw_s64_field(w, "beyond", p->pl.beyond);
	cb_jw_end_object(w);
}

/* A fast level's test: the levels, how many processes at each, their shares. */
static void cb_json_level(struct cb_jw *w, const struct cb_cmp_point *p)
{
	cb_jw_key(w, "level");
	cb_jw_begin_object(w);
	cb_jw_u64_field(w, "k_base", p->v.level.k_base);
	cb_jw_u64_field(w, "k_new", p->v.level.k_new);
	cb_jnum(w, "base", p->v.level.base);
	cb_jnum(w, "new", p->v.level.new);
	cb_jnum(w, "lo", p->v.level.lo);
	cb_jnum(w, "hi", p->v.level.hi);
	cb_jw_u64_field(w, "at_base", p->v.level.at_base);
	cb_jw_u64_field(w, "at_new", p->v.level.at_new);
	cb_jw_u64_field(w, "share_base", p->v.level.share_base);
	cb_jw_u64_field(w, "share_new", p->v.level.share_new);
	cb_jnum(w, "share_p", p->v.level.share_p);
	cb_jw_end_object(w);
}

/* A paired native point: its own level against its reference's, and what decided. */
static void cb_json_paired(struct cb_jw *w, const struct cb_cmp_point *p)
{
	cb_jnum(w, "own_ratio", p->own.ratio);
	cb_jnum(w, "own_lo", p->own.lo);
	cb_jnum(w, "own_hi", p->own.hi);
	cb_jnum(w, "own_paired", p->own.paired);
	cb_jw_key(w, "levels");
	cb_jw_begin_object(w);
	cb_jnum(w, "ratio", p->levels.ratio);
	cb_jnum(w, "lo", p->levels.lo);
	cb_jnum(w, "hi", p->levels.hi);
	cb_jnum(w, "p", p->levels.p);
	cb_jw_end_object(w);
	cb_jw_str_field(w, "decided_on", p->on_levels ? "levels" : "ratios");
}

/* A point's test. */
static void cb_json_test(struct cb_jw *w, const struct cb_cmp_point *p)
{
	int no_p = p->v.why == INFER_WHY_NO_DATA || p->v.why == INFER_WHY_NOT_POSITIVE;

	cb_jw_key(w, "test");
	cb_jw_begin_object(w);
	cb_jw_str_field(w, "verdict", infer_change_name(p->v.change));
	cb_jnum(w, "ratio", p->v.ratio);
	cb_jnum(w, "change_pct", p->v.change_pct);
	cb_jnum(w, "u", p->v.mwu.u);
	cb_jnum(w, "p", no_p ? NAN : p->v.p);
	cb_jw_bool_field(w, "exact", p->v.exact);
	cb_jnum(w, "min_p", p->v.min_p);
	cb_jnum(w, "mwu_p", no_p ? NAN : p->v.mwu.p);
	if (p->v.by_level)
		cb_json_level(w, p);
	cb_jw_bool_field(w, "paired", p->paired);
	if (p->paired && !p->control)
		cb_json_paired(w, p);
	if (p->against)
		cb_jw_str_field(w, "against", p->against);
	cb_jnum(w, "within", p->within);
	cb_jw_u64_field(w, "repeats_needed", p->v.repeats_needed);
	cb_jw_end_object(w);
}

/* A point's decisions: the test, net of the controls, LKP's rule, the bootstrap. */
static void cb_json_tests(struct cb_jw *w, const struct cb_cmp_point *p)
{
	cb_json_test(w, p);
	if (p->has_net) {
		cb_jw_key(w, "net");
		cb_jw_begin_object(w);
		cb_jw_str_field(w, "verdict", infer_change_name(p->net.change));
		cb_jnum(w, "ratio", p->net.net);
		cb_jnum(w, "lo", p->net.lo);
		cb_jnum(w, "hi", p->net.hi);
		cb_jnum(w, "p", p->net.p);
		cb_jw_bool_field(w, "distinct", p->net.distinct);
		cb_jw_end_object(w);
	} else {
		cb_jw_null_field(w, "net");
	}
	cb_jw_key(w, "lkp");
	cb_jw_begin_object(w);
	cb_jw_bool_field(w, "changed", p->lkp.changed);
	cb_jw_bool_field(w, "regressed", p->lkp.regressed);
	cb_jw_bool_field(w, "enough_runs", p->lkp.enough_runs);
	cb_jnum(w, "base_mid", p->lkp.base_mid);
	cb_jnum(w, "new_mid", p->lkp.new_mid);
	cb_jw_end_object(w);
	if (p->has_boot) {
		cb_jw_key(w, "boot");
		cb_jw_begin_object(w);
		cb_jnum(w, "ratio", p->boot.ratio);
		cb_jnum(w, "lo", p->boot.lo);
		cb_jnum(w, "hi", p->boot.hi);
		cb_jnum(w, "level", p->boot.level);
		cb_jw_bool_field(w, "agrees", p->boot_agrees);
		cb_jw_end_object(w);
	} else {
		cb_jw_null_field(w, "boot");
	}
}

static void cb_json_point(struct cb_jw *w, const struct cb_cmp *c, const struct cb_cmp_point *p)
{
	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "point");
	cb_jw_str_field(w, "figure", cb_figure_names[c->figure]);
	cb_jw_str_field(w, "name", p->name);
	cb_jw_str_field(w, "direction", p->key.direction);
	cb_jw_str_field(w, "variant", p->key.variant);
	cb_jw_u64_field(w, "size", p->key.size);
	if (p->key.random)
		cb_jw_u64_field(w, "size_max", p->key.size_max);
	cb_jw_u64_field(w, "src_offset", p->key.src_offset);
	cb_jw_u64_field(w, "dst_offset", p->key.dst_offset);
	cb_jw_str_field(w, "cache", p->key.cache);
	cb_jw_bool_field(w, "control", p->control);
	cb_jw_str_field(w, "verdict", cb_outcome_name(p->out));
	cb_jw_str_field(w, "why", p->why);
	cb_jside(w, "base", &p->base);
	cb_jside(w, "new", &p->new);
	cb_json_placement(w, p);
	cb_jnum(w, "mean_change_pct",
		p->base.mean > 0 ? 100 * (p->new.mean / p->base.mean - 1) : NAN);
	cb_json_tests(w, p);
	cb_jw_end_object(w);
}

static void cb_json_summary(struct cb_jw *w, const struct cb_cmp *c)
{
	unsigned int o;

	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", "summary");
	cb_jw_str_field(w, "figure", cb_figure_names[c->figure]);
	cb_jw_str_field(w, "base", c->base->path);
	cb_jw_str_field(w, "new", c->new->path);
	cb_jw_u64_field(w, "natives", c->natives);
	cb_jw_u64_field(w, "controls", c->npts - c->natives);
	for (o = 0; o < CB_OUT_COUNT; o++)
		cb_jw_u64_field(w, cb_outcome_name(o), c->count[o]);
	cb_jnames(w, "only_base", c->only_base, c->nonly_base);
	cb_jnames(w, "only_new", c->only_new, c->nonly_new);
	cb_jw_bool_field(w, "machine_moved", c->moved);
	cb_jw_u64_field(w, "undecided", c->undecided);
	cb_jw_bool_field(w, "base_one_process", c->base_one);
	cb_jw_bool_field(w, "new_one_process", c->new_one);
	if (c->worst >= 0) {
		cb_jw_str_field(w, "worst", c->pts[c->worst].name);
		cb_jnum(w, "worst_change_pct", c->pts[c->worst].v.change_pct);
	} else {
		cb_jw_null_field(w, "worst");
		cb_jw_null_field(w, "worst_change_pct");
	}
	cb_jw_s64_field(w, "status", c->status);
	cb_jw_end_object(w);
}

/*
 * The comparison as JSON lines on f. A failed write is said on stderr, the
 * status left as it is: 1 there means a regression.
 */
static void cb_json(FILE *f, const struct cb_cmp *c, const struct cb_compare_args *a)
{
	struct cb_jw w;
	size_t i;

	cb_jw_init(&w, f);
	cb_json_head(&w, c, a);
	for (i = 0; i < c->ncls; i++)
		cb_json_class(&w, c, &c->cls[i]);
	for (i = 0; i < c->npts; i++)
		cb_json_point(&w, c, &c->pts[i]);
	cb_json_summary(&w, c);
	if (cb_jw_end(&w))
		cb_warn("writing the JSON lines: %s", strerror(errno));
	if (c->moved)
		cb_warn("the machine moved between %s and %s: the controls changed", c->base->path,
			c->new->path);
	if (c->nonly_base || c->nonly_new)
		cb_warn("%zu point(s) only in %s, %zu only in %s", c->nonly_base, c->base->path,
			c->nonly_new, c->new->path);
}

/* ---- Both figures ---------------------------------------------------------- */

/* A figure's word for point p of it: its outcome, and its change where it moved. */
static const char *cb_figure_word(const struct cb_cmp_point *p, char *buf, size_t len)
{
	char a[32];

	if (!p)
		return "-";
	if (p->out == CB_OUT_REGRESSED || p->out == CB_OUT_IMPROVED)
		snprintf(buf, len, "%s %s", cb_outcome_name(p->out), cb_pct(p->v.ratio, a, sizeof(a)));
	else
		snprintf(buf, len, "%s", cb_outcome_name(p->out));
	return buf;
}

/* The figures whose flags which[] are set, as "latency" or "call and latency". */
static const char *cb_which(const int which[CB_FIGURES], char *buf, size_t len)
{
	size_t k = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < CB_FIGURES; f++)
		if (which[f])
			k += (size_t)snprintf(buf + k, len > k ? len - k : 0, "%s%s", k ? " and " : "",
					      cb_figure_names[f]);
	return buf;
}

/*
 * When both figures were compared: each native point over both, the
 * figure that moved it named, and the verdict of both.
 */
static void cb_text_both(FILE *f, const struct cb_cmps *c)
{
	const struct cb_cmp *call = &c->f[CB_FIGURE_CALL];
	char w[CB_FIGURES][48], which_s[48];
	const struct cb_cmp_point *p;
	int which[CB_FIGURES], fig;
	enum cb_outcome out;
	size_t i;

	fprintf(f, "\n# both figures: a native point regressed or improved when its time per call or its latency did\n");
	fprintf(f, "#   %-36s %-22s %-22s %s\n", "point", "call", "latency", "verdict");
	for (i = 0; i < call->npts; i++) {
		if (call->pts[i].control)
			continue;
		if (!cb_point_outcome(c, call->pts[i].name, &out, which))
			continue;
		for (fig = 0; fig < CB_FIGURES; fig++) {
			p = cb_cmp_find(&c->f[fig], call->pts[i].name);
			cb_figure_word(p, w[fig], sizeof(w[fig]));
		}
		fprintf(f, "#   %-36s %-22s %-22s %s", call->pts[i].name, w[CB_FIGURE_CALL],
			w[CB_FIGURE_LATENCY], cb_outcome_name(out));
		if (out == CB_OUT_REGRESSED || out == CB_OUT_IMPROVED)
			fprintf(f, " (%s)", cb_which(which, which_s, sizeof(which_s)));
		fputc('\n', f);
	}
	fprintf(f, "# verdict of both figures: %s (exit %d)\n",
		c->status == CB_EXIT_OK ? "no regression" :
		c->status == CB_EXIT_REGRESSION ? "REGRESSION" : "inconclusive", c->status);
}

/* The same as a JSON line: type "decision". */
static void cb_json_both(FILE *f, const struct cb_cmps *c)
{
	const struct cb_cmp *call = &c->f[CB_FIGURE_CALL];
	char which_s[48];
	int which[CB_FIGURES];
	enum cb_outcome out;
	struct cb_jw w;
	size_t i;

	cb_jw_init(&w, f);
	cb_jw_begin_object(&w);
	cb_jw_str_field(&w, "type", "decision");
	cb_jw_str_field(&w, "base", call->base->path);
	cb_jw_str_field(&w, "new", call->new->path);
	cb_jw_key(&w, "points");
	cb_jw_begin_array(&w);
	for (i = 0; i < call->npts; i++) {
		if (call->pts[i].control || !cb_point_outcome(c, call->pts[i].name, &out, which))
			continue;
		cb_jw_begin_object(&w);
		cb_jw_str_field(&w, "name", call->pts[i].name);
		cb_jw_str_field(&w, "verdict", cb_outcome_name(out));
		cb_jw_str_field(&w, "moved", cb_which(which, which_s, sizeof(which_s)));
		cb_jw_end_object(&w);
	}
	cb_jw_end_array(&w);
	cb_jw_s64_field(&w, "status", c->status);
	cb_jw_end_object(&w);
	if (cb_jw_end(&w))
		cb_warn("writing the JSON lines: %s", strerror(errno));
}

/* One comparison on its figures, in text or JSON lines. */
static void cb_print_cmps(FILE *f, const struct cb_cmps *c, const struct cb_compare_args *a)
{
	int fig, n = 0;

	for (fig = 0; fig < CB_FIGURES; fig++) {
		if (!c->has[fig])
			continue;
		if (a->json) {
			cb_json(f, &c->f[fig], a);
		} else {
			if (n)
				fputc('\n', f);
			cb_text(f, &c->f[fig], a);
		}
		n++;
	}
	if (c->no_latency && !a->json)
		fprintf(f, "# latency: not compared, %s holds none (a record of cold points only, or made before copybench measured it)\n",
			c->no_latency);
	if (n > 1) {
		if (a->json)
			cb_json_both(f, c);
		else
			cb_text_both(f, c);
	}
}

/* ---- The command ---------------------------------------------------------- */

int cb_compare_records(const char *const *paths, size_t n, struct cb_compare_args *a,
		       struct cb_record *recs, struct cb_cmps *cmps, struct cb_error *e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cb_record_read(paths[i], &recs[i], e))
			goto fail;
	for (i = 1; i < n; i++)
		if (cb_compare_figures(&recs[0], &recs[i], a, &cmps[i - 1], e))
			goto fail_cmp;
	return 0;
fail_cmp:
	while (i-- > 1)
		cb_compare_figures_free(&cmps[i - 1]);
	i = n;
fail:
	while (i--)
		cb_record_free(&recs[i]);
	return -1;
}

/*
 * The n - 1 comparisons cmps of records recs (BASE first), in text or JSON
 * lines; returns the exit status they make together.
 */
static int cb_compare_print(const struct cb_record *recs, const struct cb_cmps *cmps, size_t n,
			    const struct cb_compare_args *a)
{
	int status = CB_EXIT_OK;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (i && !a->json)
			fputc('\n', stdout);
		cb_print_cmps(stdout, &cmps[i], a);
		status = i ? cb_compare_status_merge(status, cmps[i].status) : cmps[i].status;
	}
	if (n > 2 && !a->json) {
		fprintf(stdout, "\n# %zu comparisons with ", n - 1);
		cb_put_clean(stdout, recs[0].path);
		fprintf(stdout, ": exit %d\n", status);
	}
	return status;
}

int cmd_compare(int argc, char **argv)
{
	const struct cb_option *const tables[] = {
		cb_compare_decide_options, cb_compare_options, NULL
	};
	struct cb_compare_args a;
	struct cb_error e = { 0 };
	struct cb_record *recs;
	struct cb_cmps *cmps;
	int first, status;
	size_t n, i;

	cb_compare_args_init(&a);
	first = cb_options_parse(argc, argv, tables, &a, NULL, &e);
	if (first < 0)
		goto fail;
	cb_compare_args_parsed(&a);
	if (a.help) {
		fputs(cb_compare_usage, stdout);
		cb_options_help(stdout, tables, CB_HELP_BESIDE);
		cb_patterns_free(&a.points.pat);
		return CB_EXIT_OK;
	}
	if (argc - first < 2) {
		cb_fail(&e, CB_EXIT_USAGE, "needs two records or more: BASE.json NEW.json [MORE.json...] (see --help)");
		goto fail;
	}
	n = (size_t)(argc - first);
	recs = cb_calloc(n, sizeof(*recs));
	cmps = cb_calloc(n - 1, sizeof(*cmps));
	/* Everything read and decided before anything is printed. */
	if (cb_compare_records((const char *const *)argv + first, n, &a, recs, cmps, &e)) {
		free(recs);
		free(cmps);
		goto fail;
	}
	status = cb_compare_print(recs, cmps, n, &a);
	for (i = 0; i + 1 < n; i++)
		cb_compare_figures_free(&cmps[i]);
	for (i = 0; i < n; i++)
		cb_record_free(&recs[i]);
	free(recs);
	free(cmps);
	cb_patterns_free(&a.points.pat);
	return status;
fail:
	cb_patterns_free(&a.points.pat);
	return cb_report(&e);
}
