// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.c - "copybench bisect-run": one step of git bisect run. Measures
 * the points of the good record again (a child "copybench sweep --like
 * GOOD", run under a prefix such as tools/vm-run when one is given),
 * compares, and exits 0 (good), 1 (bad) or 125 (skip: the machine moved,
 * the measurement failed, the answer is unclear) and nothing else, so the
 * machine is never blamed on a commit and nothing aborts the bisect. The
 * step's record goes beside GOOD; one line per step goes to stdout and to
 * bisect-run.log there. Documentation/compare.rst is the manual.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "backend.h"
#include "compare.h"
#include "process.h"
#include "copybench.h"
#include "sweep.h"

/* git bisect run's answers; everything bisect-run exits with. */
#define CB_BISECT_GOOD	0
#define CB_BISECT_BAD	1
#define CB_BISECT_SKIP	125

#define CB_BISECT_LOG	"bisect-run.log"

static const char cb_bisect_usage[] =
	"Usage: copybench bisect-run --good GOOD.json [--bad BAD.json] [OPTIONS] [-- PREFIX...]\n"
	"\n"
	"One step of 'git bisect run': measures the points of GOOD again on the running\n"
	"kernel (copybench sweep --like GOOD, under PREFIX when given, e.g.\n"
	"'-- tools/vm-run --kernel build/bzImage --'), compares with GOOD (and BAD),\n"
	"writes the step's record beside GOOD as bisect-KERNEL[-COMMIT].json, prints\n"
	"one line and appends it to bisect-run.log there.\n"
	"\n"
	"  git bisect run copybench bisect-run --good good.json --threshold 5\n"
	"  git bisect run copybench bisect-run --good good.json --bad bad.json\n"
	"\n"
	"Exit status, and nothing else: 0 good (no native point regressed against\n"
	"GOOD), 1 bad (regressed beyond the threshold, net of the controls; with\n"
	"--bad, like BAD), 125 skip: the controls moved (the machine, not the commit),\n"
	"too few repeats, points missing, the module would not load, the measurement\n"
	"or its VM failed, a result closer to neither GOOD nor BAD, or a bad option\n"
	"or record (the message says which: a misconfigured bisect skips every step\n"
	"instead of blaming one).\n"
	"\n"
	"Options:\n";

struct cb_bisect {
	struct cb_compare_args cmp;	/* first: compare's options are its fields */
	const char *good, *bad;
	/* Passed on to sweep when given (NULL, -1, 0: not given). */
	const char *backend, *load, *as_native;
	long cpu;
	double perturb;
	unsigned long long repeat;	/* 0: not given */
	char **prefix;			/* argv after "--" */
	int nprefix;
};

_Static_assert(offsetof(struct cb_bisect, cmp) == 0,
	       "cb_compare_decide_options are fields of struct cb_bisect too");


static const struct cb_option cb_bisect_options[] = {
	CB_OPT_STRING("good", 0, struct cb_bisect, good, "FILE",
		      "the record of the good kernel (required)"),
	CB_OPT_STRING("bad", 0, struct cb_bisect, bad, "FILE",
		      "the record of the bad kernel: a step is bad only\n"
		      "when like it, good only when unlike it"),
	CB_OPT_UINT("repeat", struct cb_bisect, repeat, 1, 1000, NULL, "N",
		    "repeats per point (default: GOOD's, raised to\n"
		    "what alpha needs against GOOD's)"),
	CB_OPT_NAME("backend", struct cb_bisect, backend, cb_backend_names, "B",
		    "user or module (default: GOOD's)"),
	CB_OPT_CALLBACK("load", 0, struct cb_bisect, load, optional_argument, cb_opt_load,
			"KO", "module backend: load KO (default ./copybench.ko)\n"
			"if not loaded, unload it after"),
	CB_OPT_CALLBACK("cpu", 0, struct cb_bisect, cpu, required_argument, cb_opt_cpu, "N",
			"CPU to measure on (default: where it starts)"),
	CB_OPT_END(),
};

/* Test-only, passed on to sweep (sweep --help says what they do). */
static const struct cb_option cb_bisect_test_options[] = {
	CB_OPT_CALLBACK("as-native", 0, struct cb_bisect, as_native, required_argument,
			cb_opt_as_native, "V",
			"test-only: time variant V in native's place\n"
			"(copybench sweep --help)"),
	CB_OPT_DOUBLE("perturb-controls", struct cb_bisect, perturb, CB_PERTURB_MIN, CB_PERTURB_MAX,
		      0, 1, "a factor", "F", "F",
		      "test-only: controls' costs x F (0.1..10)"),
	CB_OPT_END(),
};

/* "123: the VM panicked" for the status of the measuring child. */
static const char *cb_child_why(int status, char *buf, size_t len)
{
	static const struct {
		int code;
		const char *why;
	} known[] = {
		{ 1, "the measurement failed" },
		{ 2, "the sweep refused its options or GOOD" },
		{ 123, "the VM panicked (tools/vm-run)" },
		{ 124, "the VM timed out (tools/vm-run)" },
		{ 125, "the VM runner failed (tools/vm-run)" },
		{ 126, "the command cannot run" },
		{ 127, "the command was not found" },
	};
	size_t i;

	if (WIFSIGNALED(status)) {
		snprintf(buf, len, "the measurement was killed by signal %d", WTERMSIG(status));
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (WEXITSTATUS(status) == known[i].code)
			break;
	snprintf(buf, len, "the measurement exited with %d%s%s", WEXITSTATUS(status),
		 i < ARRAY_SIZE(known) ? ": " : "", i < ARRAY_SIZE(known) ? known[i].why : "");
	return buf;
}

/*
 * What the measurement said on stderr, for the step line when it fails:
 * the first line of vm-run's own (a panic, a timeout, a boot that failed:
 * its console tail and kernel reports follow), else the last line of a
 * copybench command that is not a warning (the error it exited with),
 * else the last line. Each at most CB_CAUSE_MAX bytes.
 */
#define CB_CAUSE_MAX	240

struct cb_cause {
	char part[CB_CAUSE_MAX + 1];	/* the line being read */
	size_t len;
	char vm_run[CB_CAUSE_MAX + 1], copybench[CB_CAUSE_MAX + 1], last[CB_CAUSE_MAX + 1];
};

static void cb_cause_line(struct cb_cause *c)
{
	const char *l = c->part;

	c->part[c->len] = '\0';
	c->len = 0;
	if (!*l)
		return;
	snprintf(c->last, sizeof(c->last), "%s", l);
	if (!strncmp(l, "vm-run: ", 8) && !c->vm_run[0] && !strstr(l, "kernel report") &&
	    !strstr(l, "serial console log:"))
		snprintf(c->vm_run, sizeof(c->vm_run), "%s", l);
	if (!strncmp(l, "copybench ", 10) && !strstr(l, ": warning: "))
		snprintf(c->copybench, sizeof(c->copybench), "%s", l);
}

/* Takes n bytes of the measurement's stderr. */
static void cb_cause_feed(struct cb_cause *c, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			cb_cause_line(c);
		} else if (c->len < CB_CAUSE_MAX) {
			/* Control characters (a terminal's escapes) as '?'. */
			c->part[c->len++] = (unsigned char)buf[i] < ' ' ? '?' : buf[i];
		}
	}
}

static const char *cb_cause(struct cb_cause *c)
{
	cb_cause_line(c);
	return c->vm_run[0] ? c->vm_run : c->copybench[0] ? c->copybench : c->last;
}

/*
 * Copies the measurement's stderr to ours as it comes, and keeps its
 * cause; returns when the child closed it (it exited).
 */
static void cb_bisect_relay(int fd, struct cb_cause *c)
{
	char buf[4096];
	ssize_t n, w, off;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		cb_cause_feed(c, buf, (size_t)n);
		for (off = 0; off < n; off += w) {
			w = write(STDERR_FILENO, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				break;
		}
	}
	close(fd);
}

/*
 * The sweep of the step: --like GOOD [--points P] --repeat N, the options
 * given that sweep takes, its record at out (beside GOOD; ./out when it
 * starts with '-').
 */
static void cb_bisect_job(const struct cb_bisect *b, const char *out, struct cb_job *r,
			  struct cb_str *path)
{
	cb_sweep_init(r);
	CB_JOB_SET(r, like, b->good);
	if (b->cmp.points.arg)
		CB_JOB_SET(r, points, b->cmp.points.arg);
	CB_JOB_SET(r, repeat, b->repeat);
	if (b->backend)
		CB_JOB_SET(r, backend, b->backend);
	if (b->load)
		CB_JOB_SET(r, set.load, b->load);
	if (b->cpu >= 0)
		CB_JOB_SET(r, set.cpu, b->cpu);
	if (b->as_native)
		CB_JOB_SET(r, as_native, b->as_native);
	if (b->perturb > 0)
		CB_JOB_SET(r, perturb, b->perturb);
	cb_str_printf(path, "%s%s", *out == '-' ? "./" : "", out);
	CB_JOB_SET(r, output, path->s);
}

/*
 * [PREFIX...] self sweep ...: each value the user gave after '=', so that
 * one starting with '-' (a file "-good.json") is not refused as
 * option-looking (cb_sweep_argv()).
 */
static void cb_bisect_argv(const struct cb_bisect *b, const char *self, const char *out,
			   struct cb_argv *a)
{
	struct cb_str path = { 0 };
	struct cb_job r;
	size_t i;

	for (i = 0; i < (size_t)b->nprefix; i++)
		cb_argv_add(a, "%s", b->prefix[i]);
	cb_argv_add(a, "%s", self);
	cb_bisect_job(b, out, &r, &path);
	cb_sweep_argv(&r, a);
	cb_str_free(&path);
}

/*
 * Runs [PREFIX...] copybench sweep --like GOOD ... -o out; its stdout is
 * dropped, its stderr passed on, and a failure's message ends with the
 * cause it printed.
 */
static int cb_bisect_measure(struct cb_bisect *b, const char *out, struct cb_error *e)
{
	struct cb_child_spec s = { .out = CB_CHILD_NULL, .err = CB_CHILD_PIPE };
	struct cb_argv a = { 0 };
	struct cb_cause *cause;
	struct cb_child child;
	char self[PATH_MAX], why[128];
	const char *said;
	int status, ret;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return cb_fail(e, CB_EXIT_RUNTIME, "cannot find this program: %s", strerror(errno));
	self[n] = '\0';
	cb_bisect_argv(b, self, out, &a);
	s.argv = a.v;
	ret = cb_child_start(&child, &s, e);
	cb_argv_free(&a);
	if (ret)
		return -1;
	cause = cb_calloc(1, sizeof(*cause));
	cb_bisect_relay(child.fd, cause);
	child.fd = -1;
	ret = cb_child_wait(&child, &status, e);
	if (!ret && !(WIFEXITED(status) && !WEXITSTATUS(status))) {
		cb_child_why(status, why, sizeof(why));
		said = cb_cause(cause);
		ret = cb_fail(e, CB_EXIT_RUNTIME, "%s%s%s", why, *said ? ": " : "", said);
	}
	free(cause);
	return ret;
}

/* The fewest repeats any point of r has; -1 with e set for a bad record. */
static int cb_fewest_repeats(const struct cb_record *r, size_t *least, struct cb_error *e)
{
	struct cb_pointset *s;
	size_t n, i;

	if (cb_points_group(r, 0, 0, CB_FIGURE_CALL, &s, &n, e))
		return -1;
	*least = 0;
	for (i = 0; i < n; i++)
		if (!*least || s[i].n < *least)
			*least = s[i].n;
	cb_points_free(s, n);
	return 0;
}

/* The short commit of HEAD when run in a git tree, else "". */
static void cb_git_commit(char *buf, size_t len)
{
	FILE *p = popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");
	size_t n;

	buf[0] = '\0';
	if (!p)
		return;
	if (!fgets(buf, (int)len, p))
		buf[0] = '\0';
	if (pclose(p))
		buf[0] = '\0';
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	if (strspn(buf, "0123456789abcdef") != n)
		buf[0] = '\0';
}

/* The kernel release as a file name: anything but [A-Za-z0-9._+-] becomes '_'. */
static void cb_file_word(struct cb_str *b, const char *s)
{
	for (; *s; s++)
		cb_str_addn(b, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-",
				      *s) ? s : "_", 1);
}

struct cb_step {
	int answer;
	struct cb_str why;
};

/*
 * A native point whose processes disagree beyond the threshold, and whose
 * change is beyond it towards a regression: placement could explain it,
 * or hide one. The step is not blamed, nor cleared: a skip, said why.
 */
static int cb_step_placement(const struct cb_cmp *g, double threshold, struct cb_step *s)
{
	const struct cb_cmp_point *p;
	size_t i;

	for (i = 0; i < g->npts; i++) {
		p = &g->pts[i];
		if (p->control || p->out != CB_OUT_PLACEMENT || !(p->v.ratio > 1 + threshold))
			continue;
		s->answer = CB_BISECT_SKIP;
		cb_str_printf(&s->why, "placement-sensitive: %s %+.1f%%, processes %.2f to %.2f against %.2f to %.2f: placement could explain it",
			      p->name, p->v.change_pct, p->base.min, p->base.max, p->new.min,
			      p->new.max);
		return 1;
	}
	return 0;
}

/*
 * The answer against GOOD alone: the compare's status, 3 (the machine,
 * too few repeats, missing points, placement) a skip.
 */
static void cb_step_good_only(const struct cb_cmp *g, double threshold, struct cb_step *s)
{
	const struct cb_cmp_point *w;
	char a[32], n[32];

	if (g->moved) {
		s->answer = CB_BISECT_SKIP;
		cb_str_add(&s->why, "the machine moved: the controls changed");
		return;
	}
	if (g->status == CB_EXIT_REGRESSION) {
		w = &g->pts[g->worst];
		snprintf(a, sizeof(a), "%+.1f%%", w->v.change_pct);
		snprintf(n, sizeof(n), "%+.1f%%", w->has_net ? 100 * (w->net.net - 1) : w->v.change_pct);
		s->answer = CB_BISECT_BAD;
		cb_str_printf(&s->why, "%zu of %zu native points regressed, worst %s %s (net %s)",
			      g->count[CB_OUT_REGRESSED], g->natives, w->name, a, n);
		return;
	}
	if (g->status == CB_EXIT_OK && !cb_step_placement(g, threshold, s)) {
		s->answer = CB_BISECT_GOOD;
		cb_str_printf(&s->why, "%zu native points as in GOOD (%zu improved)", g->natives,
			      g->count[CB_OUT_IMPROVED]);
		return;
	}
	if (g->status == CB_EXIT_OK || (g->undecided && cb_step_placement(g, threshold, s)))
		return;
	s->answer = CB_BISECT_SKIP;
	cb_str_printf(&s->why, "inconclusive: %zu of %zu native points undecided, %zu points missing",
		      g->count[CB_OUT_INCONCLUSIVE], g->natives, g->nonly_base + g->nonly_new);
}

/*
 * As one side, or beyond it on the far side from the other: against BAD
 * "as BAD or worse" (@worse), against GOOD "as GOOD or better". Regressed
 * (improved) or unchanged is; machine-like is when its change net of the
 * controls is not beyond the threshold towards the other side (the raw
 * change is the machine's: the byte loop alone moves by 1.5x on a shared
 * host); inconclusive (the controls scatter too much to net the change)
 * or placement-sensitive (its processes disagree beyond the threshold) is
 * when its raw change is not.
 */
static bool cb_step_as(const struct cb_cmp_point *p, double threshold, bool worse)
{
	double r;

	switch (p->out) {
	case CB_OUT_UNCHANGED:
		return true;
	case CB_OUT_REGRESSED:
		return worse;
	case CB_OUT_IMPROVED:
		return !worse;
	case CB_OUT_MACHINE:
		if (!p->has_net)
			return false;
		r = p->net.net;
		break;
	case CB_OUT_INCONCLUSIVE:
	case CB_OUT_PLACEMENT:
		r = p->v.ratio;
		break;
	default:
		return false;
	}
	if (!(r > 0) || !isfinite(r))
		return false;
	return worse ? r >= 1 - threshold : r <= 1 + threshold;
}

/*
 * With BAD: the points that regressed from GOOD to BAD decide. Each is
 * good-like (improved against BAD, and as GOOD or better), bad-like
 * (regressed against GOOD, and as BAD or worse) or neither; "as" also
 * takes a machine-like verdict whose net change, and an inconclusive one
 * whose raw change, is not beyond the threshold towards the other side
 * (a class whose controls scattered leaves a step measured
 * on a busy machine inconclusive against the side it matches; a step 2.4
 * times GOOD and far from BAD is still like neither). One neither
 * is a skip, else one bad-like is bad, else good.
 */
static void cb_step_good_bad(const struct cb_cmp *gb, const struct cb_cmp *g,
			     const struct cb_cmp *b, double threshold, struct cb_step *s)
{
	const struct cb_cmp_point *d, *pg, *pb;
	size_t i, good = 0, bad = 0, neither = 0;
	const char *first = NULL;

	if (g->moved || b->moved) {
		s->answer = CB_BISECT_SKIP;
		cb_str_printf(&s->why, "the machine moved: the controls changed against %s",
			      g->moved ? "GOOD" : "BAD");
		return;
	}
	for (i = 0; i < gb->npts; i++) {
		d = &gb->pts[i];
		if (d->control || d->out != CB_OUT_REGRESSED)
			continue;
		pg = cb_cmp_find(g, d->name);
		pb = cb_cmp_find(b, d->name);
		if (pg && pb && pb->out == CB_OUT_IMPROVED && cb_step_as(pg, threshold, false)) {
			good++;
		} else if (pg && pb && pg->out == CB_OUT_REGRESSED &&
			   cb_step_as(pb, threshold, true)) {
			bad++;
		} else {
			neither++;
			first = first ? first : d->name;
		}
	}
	if (neither) {
		s->answer = CB_BISECT_SKIP;
		cb_str_printf(&s->why, "%zu of the %zu points BAD regressed are like neither GOOD nor BAD (first: %s)",
			      neither, good + bad + neither, first);
	} else if (bad) {
		s->answer = CB_BISECT_BAD;
		cb_str_printf(&s->why, "%zu of the %zu points BAD regressed are as in BAD", bad,
			      good + bad);
	} else {
		s->answer = CB_BISECT_GOOD;
		cb_str_printf(&s->why, "the %zu points BAD regressed are as in GOOD", good);
	}
}

/* GOOD against BAD must show what to bisect, on some figure compared. */
static int cb_bisect_check_bad(const struct cb_cmps *gb, struct cb_error *e)
{
	const struct cb_cmp *c = &gb->f[CB_FIGURE_CALL];
	size_t regressed = 0;
	int f;

	for (f = 0; f < CB_FIGURES; f++) {
		if (!gb->has[f])
			continue;
		if (gb->f[f].moved)
			return cb_fail(e, CB_EXIT_USAGE,
				       "the controls moved between %s and %s: their difference may be the machine's; record them again",
				       c->base->path, c->new->path);
		regressed += gb->f[f].count[CB_OUT_REGRESSED];
	}
	if (!regressed)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s shows no native regression against %s at these settings: nothing to bisect",
			       c->new->path, c->base->path);
	return 0;
}

static bool cb_has_flag(const struct cb_record *r, const char *flag)
{
	size_t i;

	for (i = 0; i < r->header.cpu_flags.n; i++)
		if (!strcmp(r->header.cpu_flags.v[i], flag))
			return true;
	return false;
}

/*
 * What the CPU makes of a bisect, said loudly on stderr: an emulated CPU
 * (also in the step line), whose timings are the emulator's; for the
 * kernel's copies (the module backend), a CPU with FSRM, on which the
 * kernel copies user memory with an inline rep movsb.
 */
static void cb_bisect_cpu(const struct cb_record *good, const struct cb_record *step,
			  struct cb_step *s)
{
	const struct cb_record *emu = cb_emulated(step) ? step : cb_emulated(good) ? good : NULL;
	struct cb_str model = { 0 };

	if (emu) {
		cb_str_add_clean(&model, emu->header.cpu_model);
		cb_warn("warning: EMULATED CPU (%s): the timings are the emulator's, not the kernel's. Under QEMU's TCG 'rep movsb' costs about 10 times the unrolled loop and a byte loop about twice 'rep movsb', so a change between copy strategies reads larger, smaller or reversed against hardware: the bisect finds the commit of a large change, its size is no figure; measure on hardware or KVM for that",
			model.s);
		cb_str_add(&s->why, "; emulated CPU: the emulator's timings");
		cb_str_free(&model);
	}
	if (!strcmp(step->header.backend, "module") && cb_has_flag(step, "fsrm"))
		cb_warn("note: the CPU has FSRM: kernels since 6.4 copy user memory with an inline 'rep movsb' and never call rep_movs_alternative; boot with clearcpuid=fsrm to bisect that routine");
}

static const char *const cb_answer_words[] = { "good", "bad" };

/* One line for the person who reads the bisect later, to stdout and the log. */
static void cb_bisect_line(const struct cb_bisect *b, const char *kernel, const char *commit,
			   const char *rec, const struct cb_step *s)
{
	struct cb_str line = { 0 }, log = { 0 };
	char date[32], *dir;
	time_t now = time(NULL);
	struct tm tm;
	int fd;

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	cb_str_printf(&line, "copybench bisect-run: %s %s %s: %s (exit %d): %s%s%s\n", date,
		      kernel, *commit ? commit : "-",
		      s->answer == CB_BISECT_SKIP ? "skip" : cb_answer_words[s->answer], s->answer,
		      s->why.s, rec ? "; record " : "", rec ? rec : "");
	fputs(line.s, stdout);
	fflush(stdout);
	dir = cb_strdup(b->good);
	cb_str_printf(&log, "%s/%s", dirname(dir), CB_BISECT_LOG);
	fd = open(log.s, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line.s, line.len) != (ssize_t)line.len)
		cb_warn("cannot append to %s: %s", log.s, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	cb_str_free(&line);
	cb_str_free(&log);
}

/*
 * The repeats the step measures: GOOD needs what alpha needs n against n
 * (and more than one process), the step at least as many as GOOD has.
 */
static int cb_bisect_repeats(struct cb_bisect *b, const struct cb_record *good,
			     struct cb_error *e)
{
	size_t least, need;

	if (cb_record_one_process(good))
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s is a record of one process (its repeats share one placement): compare counts processes; record it again with this copybench (sweep --repeat %zu)",
			       b->good, infer_mwu_min_repeats(b->cmp.o.par.alpha, 0));
	if (cb_fewest_repeats(good, &least, e))
		return -1;
	need = infer_mwu_min_repeats(b->cmp.o.par.alpha, 0);
	if (least < need)
		return cb_fail(e, CB_EXIT_USAGE,
			       "%s has %zu repeat(s) of some point: alpha %g needs %zu a side (record it with sweep --repeat %zu)",
			       b->good, least, b->cmp.o.par.alpha, need, need);
	need = infer_mwu_min_repeats(b->cmp.o.par.alpha, least);
	if (!b->repeat)
		b->repeat = good->header.repeat > need ? good->header.repeat : need;
	return 0;
}

/* The step's record beside GOOD: bisect-KERNEL-COMMIT.json (a time outside git). */
static void cb_bisect_record_name(const struct cb_bisect *b, const char *kernel,
				  const char *commit, struct cb_str *rec)
{
	char *dir = cb_strdup(b->good), stamp[32];
	struct tm tm;
	time_t now;

	cb_str_printf(rec, "%s/bisect-", dirname(dir));
	cb_file_word(rec, kernel);
	if (*commit) {
		cb_str_printf(rec, "-%s", commit);
	} else {
		/* Outside git, the time tells the steps apart. */
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "-%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
		cb_str_add(rec, stamp);
	}
	cb_str_add(rec, ".json");
	free(dir);
}

/*
 * The step's record against GOOD's (recs[0]) and, with BAD, BAD's (recs[1],
 * gb the GOOD-BAD comparison): the answer and why into s. 0, or -1 with e.
 */
/*
 * On every figure compared: the step is bad when some figure says so, a
 * skip when none does and some says skip, else good; why names each
 * figure's answer when there are several.
 */
static int cb_bisect_judge(const struct cb_bisect *b, const struct cb_record *recs,
			   const struct cb_cmps *gb, const struct cb_record *step,
			   struct cb_step *s, struct cb_error *e)
{
	struct cb_cmps g = { 0 }, bc = { 0 };
	struct cb_step one;
	int f, n = 0, ret = -1;

	if (cb_compare_figures(&recs[0], step, &b->cmp, &g, e) ||
	    (b->bad && cb_compare_figures(&recs[1], step, &b->cmp, &bc, e)))
		goto out;
	s->answer = CB_BISECT_GOOD;
	for (f = 0; f < CB_FIGURES; f++)
		n += g.has[f] && (!b->bad || (gb->has[f] && bc.has[f]));
	for (f = 0; f < CB_FIGURES; f++) {
		if (!g.has[f] || (b->bad && (!gb->has[f] || !bc.has[f])))
			continue;
		memset(&one, 0, sizeof(one));
		one.answer = CB_BISECT_SKIP;
		if (b->bad)
			cb_step_good_bad(&gb->f[f], &g.f[f], &bc.f[f], b->cmp.o.par.threshold, &one);
		else
			cb_step_good_only(&g.f[f], b->cmp.o.par.threshold, &one);
		if (one.answer == CB_BISECT_BAD || (one.answer == CB_BISECT_SKIP &&
						    s->answer == CB_BISECT_GOOD))
			s->answer = one.answer;
		if (n > 1)
			cb_str_printf(&s->why, "%s%s: ", s->why.len ? "; " : "", cb_figure_names[f]);
		cb_str_add(&s->why, one.why.s ? one.why.s : "");
		cb_str_free(&one.why);
	}
	cb_bisect_cpu(&recs[0], step, s);
	ret = 0;
out:
	cb_compare_figures_free(&g);
	cb_compare_figures_free(&bc);
	return ret;
}

/* Everything of one step after the options: returns the answer. */
static int cb_bisect_step(struct cb_bisect *b)
{
	const char *paths[3] = { b->good, NULL, NULL };
	struct cb_record recs[3], step;
	struct cb_cmps gb = { 0 };
	struct cb_str tmp = { 0 }, rec = { 0 };
	struct cb_step s = { CB_BISECT_SKIP, { 0 } };
	struct cb_error e = { 0 };
	char commit[64], *dir = cb_strdup(b->good);
	const char *kernel = "?";
	int have_step = 0;

	memset(recs, 0, sizeof(recs));
	memset(&step, 0, sizeof(step));
	cb_git_commit(commit, sizeof(commit));
	paths[1] = b->bad;
	if (cb_compare_records(paths, b->bad ? 2 : 1, &b->cmp, recs, &gb, &e) ||
	    (b->bad && cb_bisect_check_bad(&gb, &e)))
		goto fail;
	if (cb_bisect_repeats(b, &recs[0], &e))
		goto fail;

	cb_str_printf(&tmp, "%s/.bisect-step-%d.json", dirname(dir), (int)getpid());
	if (cb_bisect_measure(b, tmp.s, &e) || cb_record_read(tmp.s, &step, &e))
		goto fail;
	have_step = 1;
	kernel = step.header.kernel;
	if (cb_bisect_judge(b, recs, &gb, &step, &s, &e))
		goto fail;

	cb_bisect_record_name(b, kernel, commit, &rec);
	if (rename(tmp.s, rec.s)) {
		cb_warn("cannot rename %s to %s: %s", tmp.s, rec.s, strerror(errno));
		cb_str_free(&rec);
	}
	cb_bisect_line(b, kernel, commit, rec.s ? rec.s : tmp.s, &s);
	goto out;
fail:
	cb_report(&e);
	cb_str_add(&s.why, e.msg);
	if (tmp.s)
		unlink(tmp.s);
	cb_bisect_line(b, have_step ? kernel : "?", commit, NULL, &s);
out:
	cb_compare_figures_free(&gb);
	cb_record_free(&recs[0]);
	cb_record_free(&recs[1]);
	cb_record_free(&step);
	cb_str_free(&tmp);
	cb_str_free(&rec);
	cb_str_free(&s.why);
	free(dir);
	return s.answer;
}

int cmd_bisect_run(int argc, char **argv)
{
	const struct cb_option *const tables[] = {
		cb_bisect_options, cb_compare_decide_options, cb_bisect_test_options, NULL
	};
	const struct cb_option *const product[] = {
		cb_bisect_options, cb_compare_decide_options, NULL
	};
	const struct cb_option *const test[] = { cb_bisect_test_options, NULL };
	struct cb_bisect b;
	struct cb_error e = { 0 };
	int first, answer;

	memset(&b, 0, sizeof(b));
	b.cpu = -1;
	cb_compare_args_init(&b.cmp);
	first = cb_options_parse(argc, argv, tables, &b, NULL, &e);
	if (first < 0)
		goto usage;
	cb_compare_args_parsed(&b.cmp);
	if (b.cmp.help) {
		fputs(cb_bisect_usage, stdout);
		cb_options_help(stdout, product, CB_HELP_BESIDE);
		fputs("\nTest-only options:\n", stdout);
		cb_options_help(stdout, test, CB_HELP_BESIDE);
		cb_patterns_free(&b.cmp.points.pat);
		return CB_BISECT_GOOD;
	}
	if (!b.good) {
		cb_fail(&e, CB_EXIT_USAGE, "--good GOOD.json is required (see --help)");
		goto usage;
	}
	if (first < argc && strcmp(argv[first - 1], "--")) {
		cb_fail(&e, CB_EXIT_USAGE,
			"unexpected argument '%s' (a command to measure under goes after '--')",
			argv[first]);
		goto usage;
	}
	b.prefix = argv + first;
	b.nprefix = argc - first;
	answer = cb_bisect_step(&b);
	cb_patterns_free(&b.cmp.points.pat);
	return answer;
usage:
	cb_report(&e);
	cb_patterns_free(&b.cmp.points.pat);
	return CB_BISECT_SKIP;
}
