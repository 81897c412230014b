// SPDX-License-Identifier: GPL-2.0
/*
 * process.c - child processes (process.h): started with their input,
 * read line by line and waited for, for every command that runs another;
 * the worker's stack; the order and the hello line the command and its
 * workers exchange.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "lib/cb_json_writer.h"
#include "backend.h"
#include "place.h"
#include "process.h"

#define CB_WORKER_STACK		(1UL << 20)
#define CB_CHILD_READ		65536

/* ---- Children ------------------------------------------------------------ */

/* A file of its own holding in[0..len), at its start: a child's stdin. -1 with e set. */
static int cb_child_input(const char *in, size_t len, struct cb_error *e)
{
	int fd = in ? memfd_create("copybench-input", MFD_CLOEXEC) :
		      open("/dev/null", O_RDONLY | O_CLOEXEC);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return cb_fail(e, CB_EXIT_RUNTIME, "%s: %s", in ? "memfd_create" : "/dev/null",
			       strerror(errno));
	while (in && done < len) {
		n = write(fd, in + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cb_fail(e, CB_EXIT_RUNTIME, "writing a child's input: %s",
				n ? strerror(errno) : "no space");
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (in && lseek(fd, 0, SEEK_SET)) {
		cb_fail(e, CB_EXIT_RUNTIME, "lseek: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* In the child: fd onto target as s says (pipe: w, the pipe's write end). */
static int cb_child_fd(enum cb_child_fd how, int target, int w)
{
	int fd;

	if (how == CB_CHILD_PIPE)
		return dup2(w, target) < 0 ? -1 : 0;
	if (how != CB_CHILD_NULL)
		return 0;
	fd = open("/dev/null", O_WRONLY);
	return fd < 0 || dup2(fd, target) < 0 ? -1 : 0;
}

/* The child's side: dies with its parent, its files set, then exec. */
static __noreturn void cb_child_exec(const struct cb_child_spec *s, pid_t parent, int input,
				     int w)
{
	const char *what = s->path ? s->path : s->argv[0];

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGTERM);
	if (dup2(input, 0) < 0 || cb_child_fd(s->out, 1, w) || cb_child_fd(s->err, 2, w))
		_exit(126);
	if (s->dir && chdir(s->dir))
		_exit(126);
	if (s->path)
		execv(s->path, s->argv);
	else
		execvp(s->argv[0], s->argv);
	if (!s->quiet)
		fprintf(stderr, "%s: cannot run %s: %s\n", cb_prog, what, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int cb_child_start(struct cb_child *c, const struct cb_child_spec *s, struct cb_error *e)
{
	int fds[2] = { -1, -1 }, input, piped = s->out == CB_CHILD_PIPE || s->err == CB_CHILD_PIPE;
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	input = cb_child_input(s->in, s->inlen, e);
	if (input < 0)
		return -1;
	if (piped && pipe2(fds, O_CLOEXEC)) {
		close(input);
		return cb_fail(e, CB_EXIT_RUNTIME, "pipe: %s", strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (!c->pid)
		cb_child_exec(s, parent, input, fds[1]);
	close(input);
	if (piped)
		close(fds[1]);
	if (c->pid < 0) {
		if (piped)
			close(fds[0]);
		return cb_fail(e, CB_EXIT_RUNTIME, "fork: %s", strerror(errno));
	}
	c->fd = fds[0];
	return 0;
}

/* Passes on a signal that stops this command, once. */
static void cb_child_pass_stop(struct cb_child *c)
{
	if (cb_stop() && !c->sig && c->pid > 0) {
		c->sig = cb_stop();
		kill(c->pid, c->sig);
	}
}

int cb_child_line(struct cb_child *c, char **line, size_t *len, struct cb_error *e)
{
	char chunk[CB_CHILD_READ], *nl;
	ssize_t n;

	for (;;) {
		nl = c->buf.s ? memchr(c->buf.s + c->used, '\n', c->buf.len - c->used) : NULL;
		if (nl) {
			*line = c->buf.s + c->used;
			*len = (size_t)(nl - *line);
			*nl = '\0';
			c->used += *len + 1;
			return 1;
		}
		/* Keep what is left of a line; drop what was returned. */
		if (c->used) {
			memmove(c->buf.s, c->buf.s + c->used, c->buf.len - c->used + 1);
			c->buf.len -= c->used;
			c->used = 0;
		}
		cb_child_pass_stop(c);
		n = read(c->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cb_fail(e, CB_EXIT_RUNTIME, "reading process %d: %s", (int)c->pid,
				       strerror(errno));
		if (!n)
			break;
		cb_str_addn(&c->buf, chunk, (size_t)n);
	}
	if (c->buf.len)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "process %d ended in the middle of a line (it wrote %zu bytes without a newline)",
			       (int)c->pid, c->buf.len);
	return 0;
}

int cb_child_wait(struct cb_child *c, int *status, struct cb_error *e)
{
	pid_t pid = c->pid;

	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	cb_str_free(&c->buf);
	*status = 0;
	if (pid <= 0)
		return 0;
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return cb_fail(e, CB_EXIT_RUNTIME, "waitpid: %s", strerror(errno));
		cb_child_pass_stop(c);
	}
	c->pid = 0;
	return 0;
}

void cb_argv_add(struct cb_argv *a, const char *fmt, ...)
{
	struct cb_str w = { 0 };
	va_list ap;

	va_start(ap, fmt);
	cb_str_vprintf(&w, fmt, ap);
	va_end(ap);
	a->v = cb_realloc(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = w.s;
	a->v[a->n] = NULL;
}

void cb_argv_free(struct cb_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
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

/* ---- What they say ------------------------------------------------------- */

static const struct cb_field cb_order_fields[] = {
#define CB_ORDER_FIELD(n, t, r) CB_FIELD(struct cb_order, n, t, r),
#include "order_fields.h"
#undef CB_ORDER_FIELD
};

void cb_order_json(struct cb_str *b, const struct cb_order *o)
{
	cb_fields_json(b, cb_order_fields, ARRAY_SIZE(cb_order_fields), o, o->present);
}

int cb_order_parse(const char *line, size_t len, struct cb_order *o, char *why, size_t whylen)
{
	struct cb_json v;
	int ret;

	memset(o, 0, sizeof(*o));
	if (cb_json_parse_object(line, len, "an order", &v, why, whylen))
		return -1;
	ret = cb_fields_read(cb_order_fields, ARRAY_SIZE(cb_order_fields), &v, o, &o->present,
			     why, whylen);
	cb_json_free(&v);
	if (!ret && o->copybench_order != CB_ORDER_VERSION) {
		snprintf(why, whylen, "an order of version %llu (accepted: %d)",
			 o->copybench_order, CB_ORDER_VERSION);
		ret = -1;
	}
	if (ret)
		cb_order_free(o);
	return ret;
}

void cb_order_free(struct cb_order *o)
{
	cb_fields_free(cb_order_fields, ARRAY_SIZE(cb_order_fields), o);
	o->present = 0;
}

void cb_hello_json(struct cb_str *b, pid_t pid, const char *buffers, int cpu)
{
	struct cb_jw w;

	cb_jw_init_put(&w, cb_str_put, b, CB_JW_LINES);
	cb_jw_begin_object(&w);
	cb_jw_u64_field(&w, "copybench_worker", 1);
	cb_jw_s64_field(&w, "pid", pid);
	cb_jw_str_field(&w, "buffers", buffers ? buffers : "unknown");
	cb_jw_s64_field(&w, "cpu", cpu);
	cb_jw_end_object(&w);
	cb_jw_end(&w);
}

int cb_hello_parse(const char *line, size_t len, pid_t pid, char **buffers, char *why,
		   size_t whylen)
{
	const struct cb_json *p, *buf;
	struct cb_json v;

	*buffers = NULL;
	if (cb_json_parse(line, len, &v, why, whylen))
		return -1;
	p = cb_json_get(&v, "pid");
	buf = cb_json_get(&v, "buffers");
	if (cb_json_get(&v, "copybench_worker") && p && p->is_uint &&
	    p->u == (unsigned long long)pid && buf && buf->type == CB_JSON_STRING)
		*buffers = cb_strdup(buf->str);
	cb_json_free(&v);
	if (*buffers)
		return 0;
	snprintf(why, whylen, "%.*s", (int)len, line);
	return -1;
}
