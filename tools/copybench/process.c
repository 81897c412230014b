// SPDX-License-Identifier: GPL-2.0
/*
 * process.c - placements drawn per process, and the worker processes that
 * measure at them (process.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "backend.h"
#include "builtin.h"
#include "process.h"

#define CB_PAGE			4096UL
#define CB_WORKER_STACK		(1UL << 20)
#define CB_WORKER_READ		65536

/* ---- Placements ---------------------------------------------------------- */

static int cb_place_number(const char *s, unsigned long long max, unsigned long align,
			   unsigned long long *v)
{
	return cb_parse_u64(s, 0, max, v) || *v % align ? -1 : 0;
}

int cb_placement_parse(const char *arg, struct cb_placement *pl, struct cb_error *e)
{
	unsigned long long v[3];
	char *copy, *f[3], *save = NULL;
	int i, bad = 0;

	memset(pl, 0, sizeof(*pl));
	if (!strcmp(arg, "vary"))
		return 0;
	if (!strcmp(arg, "vary-pages")) {
		pl->keep_offsets = 1;
		return 0;
	}
	if (!strcmp(arg, "fixed")) {
		pl->mode = CB_PLACE_FIXED;
		pl->at.stack = -1;
		return 0;
	}
	copy = cb_strdup(arg);
	for (i = 0; i < 3; i++) {
		f[i] = strtok_r(i ? NULL : copy, ":", &save);
		bad |= !f[i];
	}
	bad = bad || strtok_r(NULL, ":", &save) || strchr(arg, ':') == arg ||
	      strstr(arg, "::") || arg[strlen(arg) - 1] == ':' ||
	      cb_place_number(f[0], CB_PLACE_SPAN - 1, CB_PLACE_LINE, &v[0]) ||
	      cb_place_number(f[1], CB_PLACE_SPAN - 1, CB_PLACE_LINE, &v[1]) ||
	      cb_place_number(f[2], CB_PAGE - 1, CB_PLACE_STACK_ALIGN, &v[2]);
	free(copy);
	if (bad)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --placement '%s' (accepted: vary, vary-pages, fixed, or SRC:DST:STACK: the source's and destination's shifts in bytes, multiples of %lu below %lu, and the stack top's page offset, a multiple of %lu below %lu)",
			       arg, CB_PLACE_LINE, CB_PLACE_SPAN, CB_PLACE_STACK_ALIGN, CB_PAGE);
	pl->mode = CB_PLACE_AT;
	pl->at.src_shift = (unsigned long)v[0];
	pl->at.dst_shift = (unsigned long)v[1];
	pl->at.stack = (long)v[2];
	return 0;
}

void cb_placement_name(const struct cb_placement *pl, struct cb_str *b)
{
	switch (pl->mode) {
	case CB_PLACE_VARY:
		cb_str_add(b, pl->keep_offsets ? "vary-pages" : "vary");
		break;
	case CB_PLACE_FIXED:
		cb_str_add(b, "fixed");
		break;
	case CB_PLACE_AT:
		cb_str_printf(b, "%lu:%lu:%ld", pl->at.src_shift, pl->at.dst_shift, pl->at.stack);
		break;
	}
}

/* splitmix64: the placements of a seed, one stream per process. */
static unsigned long long cb_place_rand(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Whether the distance d (mod 4 KiB) may be drawn: 0, or out of the band. */
static int cb_place_distance_ok(unsigned long d)
{
	d %= CB_PAGE;
	return !d || (d > CB_PLACE_BAND && d < CB_PAGE - CB_PLACE_BAND);
}

void cb_place_draw(const struct cb_placement *pl, unsigned long long seed, unsigned int index,
		   struct cb_place *out)
{
	const unsigned long pages = CB_PLACE_SPAN / CB_PAGE, per_page = CB_PAGE / CB_PLACE_LINE;
	unsigned long long s = seed * 0x2545F4914F6CDD1DULL ^ ((unsigned long long)index << 32 | index);
	unsigned long src_line = 0, dst_line = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	if (pl->mode != CB_PLACE_VARY) {
		*out = pl->at;
		out->cpu = -1;
		if (pl->mode == CB_PLACE_FIXED)
			out->stack = -1;
		return;
	}
	out->src_shift = (unsigned long)(cb_place_rand(&s) % pages) * CB_PAGE;
	out->dst_shift = (unsigned long)(cb_place_rand(&s) % pages) * CB_PAGE;
	out->stack = (long)(cb_place_rand(&s) % (CB_PAGE / CB_PLACE_STACK_ALIGN)) *
		     (long)CB_PLACE_STACK_ALIGN;
	if (!pl->keep_offsets) {
		src_line = (unsigned long)(cb_place_rand(&s) % per_page);
		do
			dst_line = (unsigned long)(cb_place_rand(&s) % per_page);
		while (!cb_place_distance_ok(CB_PAGE + (dst_line - src_line) * CB_PLACE_LINE));
	}
	out->src_shift += src_line * CB_PLACE_LINE;
	out->dst_shift += dst_line * CB_PLACE_LINE;
}

void cb_place_describe(const struct cb_place *p, struct cb_str *b)
{
	cb_str_printf(b, "src+%lu dst+%lu distance %lu stack ", p->src_shift, p->dst_shift,
		      (p->dst_shift - p->src_shift) % CB_PAGE);
	if (p->stack < 0)
		cb_str_add(b, "own");
	else
		cb_str_printf(b, "%ld", p->stack);
	cb_str_printf(b, " cpu %d", p->cpu);
}

/* ---- Workers ------------------------------------------------------------- */

int cb_worker_start(struct cb_worker *w, char *const *argv, struct cb_error *e)
{
	pid_t parent = getpid();
	int fds[2], null;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return cb_fail(e, CB_EXIT_RUNTIME, "pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return cb_fail(e, CB_EXIT_RUNTIME, "fork: %s", strerror(errno));
	}
	if (!w->pid) {
		/* Killed with the command: no orphan measuring on. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		null = open("/dev/null", O_RDONLY);
		if (dup2(fds[1], 1) < 0 || (null >= 0 && dup2(null, 0) < 0))
			_exit(127);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "%s: cannot run /proc/self/exe: %s\n", cb_prog, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	w->fd = fds[0];
	return 0;
}

/* Passes on a signal that stops this command, once. */
static void cb_worker_pass_stop(struct cb_worker *w)
{
	if (cb_stop() && !w->sig && w->pid > 0) {
		w->sig = cb_stop();
		kill(w->pid, w->sig);
	}
}

int cb_worker_line(struct cb_worker *w, char **line, size_t *len, struct cb_error *e)
{
	char chunk[CB_WORKER_READ], *nl;
	ssize_t n;

	for (;;) {
		nl = w->buf.s ? memchr(w->buf.s + w->used, '\n', w->buf.len - w->used) : NULL;
		if (nl) {
			*line = w->buf.s + w->used;
			*len = (size_t)(nl - *line);
			*nl = '\0';
			w->used += *len + 1;
			return 1;
		}
		/* Keep what is left of a line; drop what was returned. */
		if (w->used) {
			memmove(w->buf.s, w->buf.s + w->used, w->buf.len - w->used + 1);
			w->buf.len -= w->used;
			w->used = 0;
		}
		cb_worker_pass_stop(w);
		n = read(w->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cb_fail(e, CB_EXIT_RUNTIME, "reading process %d: %s", (int)w->pid,
				       strerror(errno));
		if (!n)
			break;
		cb_str_addn(&w->buf, chunk, (size_t)n);
	}
	if (w->buf.len)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "process %d ended in the middle of a line (it wrote %zu bytes without a newline)",
			       (int)w->pid, w->buf.len);
	return 0;
}

int cb_worker_finish(struct cb_worker *w, struct cb_error *e)
{
	int status = 0, ret = 0;
	pid_t pid = w->pid;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	cb_str_free(&w->buf);
	if (pid <= 0)
		return 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = cb_fail(e, CB_EXIT_RUNTIME, "waitpid: %s", strerror(errno));
			break;
		}
		cb_worker_pass_stop(w);
	}
	w->pid = 0;
	if (ret)
		return ret;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFSIGNALED(status))
		return cb_fail(e, 128 + WTERMSIG(status), "process %d was killed by signal %d",
			       (int)pid, WTERMSIG(status));
	return cb_fail(e, WEXITSTATUS(status), "process %d failed (exit %d)", (int)pid,
		       WEXITSTATUS(status));
}

/* ---- The worker's stack -------------------------------------------------- */

static struct {
	ucontext_t back, run;
	int (*fn)(void *arg);
	void *arg;
	int ret;
} cb_stack_call;

static void cb_stack_trampoline(void)
{
	cb_stack_call.ret = cb_stack_call.fn(cb_stack_call.arg);
}

int cb_on_stack(long stack, int (*fn)(void *arg), void *arg, int *ret)
{
	size_t len = CB_WORKER_STACK + CB_PAGE;
	char *map;
	int err;

	if (stack < 0) {
		*ret = fn(arg);
		return 0;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		   -1, 0);
	if (map == MAP_FAILED)
		return -1;
	cb_stack_call.fn = fn;
	cb_stack_call.arg = arg;
	if (getcontext(&cb_stack_call.run))
		goto fail;
	/* The top, stack bytes into the last page: map + CB_WORKER_STACK + stack. */
	cb_stack_call.run.uc_stack.ss_sp = map;
	cb_stack_call.run.uc_stack.ss_size = CB_WORKER_STACK + (size_t)stack;
	cb_stack_call.run.uc_link = &cb_stack_call.back;
	makecontext(&cb_stack_call.run, cb_stack_trampoline, 0);
	if (swapcontext(&cb_stack_call.back, &cb_stack_call.run))
		goto fail;
	munmap(map, len);
	*ret = cb_stack_call.ret;
	return 0;
fail:
	err = errno;
	munmap(map, len);
	errno = err;
	return -1;
}

/* ---- The hidden subcommand ----------------------------------------------- */

static struct cb_worker_args cb_worker_state;
static int cb_is_worker;

const struct cb_worker_args *cb_worker_args(void)
{
	return cb_is_worker ? &cb_worker_state : NULL;
}

/*
 * copybench worker INDEX SRC_SHIFT DST_SHIFT STACK CPU TSC_KHZ BACKEND
 * SUBCOMMAND [OPTIONS...]: what cb_worker_argv() wrote; anything else is
 * refused, since a person has no reason to type it.
 */
int cmd_worker(int argc, char **argv)
{
	struct cb_worker_args *w = &cb_worker_state;
	unsigned long long v[6];
	long long stack, cpu;
	int i, bad = argc < 9;

	for (i = 0; !bad && i < 6; i++) {
		if (i == 3)
			bad = cb_parse_i64(argv[1 + i], -1, (long long)CB_PAGE - 1, &stack);
		else if (i == 4)
			bad = cb_parse_i64(argv[1 + i], 0, 1L << 20, &cpu);
		else
			bad = cb_parse_u64(argv[1 + i], 0, ~0ULL, &v[i]);
	}
	if (bad || v[1] >= CB_PLACE_SPAN || v[2] >= CB_PLACE_SPAN || v[0] > ~0U ||
	    v[1] % CB_PLACE_LINE || v[2] % CB_PLACE_LINE ||
	    (stack >= 0 && stack % (long long)CB_PLACE_STACK_ALIGN) ||
	    (strcmp(argv[7], "user") && strcmp(argv[7], "module")) ||
	    (strcmp(argv[8], "sweep") && strcmp(argv[8], "alias"))) {
		fprintf(stderr, "%s: a worker of copybench sweep and alias, which start it themselves (usage: worker INDEX SRC_SHIFT DST_SHIFT STACK CPU TSC_KHZ user|module sweep|alias [OPTIONS...])\n",
			cb_prog);
		return CB_EXIT_USAGE;
	}
	w->index = (unsigned int)v[0];
	w->place.src_shift = (unsigned long)v[1];
	w->place.dst_shift = (unsigned long)v[2];
	w->place.stack = (long)stack;
	w->place.cpu = (int)cpu;
	w->tsc_khz = v[5];
	w->backend = argv[7];
	cb_is_worker = 1;
	cb_set_prog(argv[8]);
	return !strcmp(argv[8], "sweep") ? cmd_sweep(argc - 8, argv + 8) :
	       cmd_alias(argc - 8, argv + 8);
}

char **cb_worker_argv(const struct cb_worker_args *w, int argc, char **argv)
{
	char **out = cb_calloc((size_t)argc + 10, sizeof(*out));
	struct cb_str f = { 0 };
	int i, k = 0;

	out[k++] = cb_strdup("copybench");
	out[k++] = cb_strdup("worker");
	cb_str_printf(&f, "%u", w->index);
	out[k++] = f.s;
	f = (struct cb_str){ 0 };
	cb_str_printf(&f, "%lu", w->place.src_shift);
	out[k++] = f.s;
	f = (struct cb_str){ 0 };
	cb_str_printf(&f, "%lu", w->place.dst_shift);
	out[k++] = f.s;
	f = (struct cb_str){ 0 };
	cb_str_printf(&f, "%ld", w->place.stack);
	out[k++] = f.s;
	f = (struct cb_str){ 0 };
	cb_str_printf(&f, "%d", w->place.cpu);
	out[k++] = f.s;
	f = (struct cb_str){ 0 };
	cb_str_printf(&f, "%llu", w->tsc_khz);
	out[k++] = f.s;
	out[k++] = cb_strdup(w->backend);
	for (i = 0; i < argc; i++)
		out[k++] = cb_strdup(argv[i]);
	return out;
}

void cb_worker_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
