// SPDX-License-Identifier: GPL-2.0
/*
 * process.c - the worker processes (process.h): started, read and waited
 * for by the command; their stack; the order and the hello line they
 * exchange.
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
#include "place.h"
#include "process.h"

#define CB_WORKER_STACK		(1UL << 20)
#define CB_WORKER_READ		65536

/* ---- Workers ------------------------------------------------------------- */

/* A file of its own holding in[0..len), at its start: a worker's stdin. -1 with e set. */
static int cb_worker_input(const char *in, size_t len, struct cb_error *e)
{
	int fd = in ? memfd_create("copybench-order", MFD_CLOEXEC) : open("/dev/null", O_RDONLY | O_CLOEXEC);
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
			cb_fail(e, CB_EXIT_RUNTIME, "writing a worker's order: %s",
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

int cb_worker_start(struct cb_worker *w, char *const *argv, const char *in, size_t inlen,
		    struct cb_error *e)
{
	pid_t parent = getpid();
	int fds[2], input;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	input = cb_worker_input(in, inlen, e);
	if (input < 0)
		return -1;
	if (pipe2(fds, O_CLOEXEC)) {
		close(input);
		return cb_fail(e, CB_EXIT_RUNTIME, "pipe: %s", strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		close(input);
		return cb_fail(e, CB_EXIT_RUNTIME, "fork: %s", strerror(errno));
	}
	if (!w->pid) {
		/* Killed with the command: no orphan measuring on. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		if (dup2(fds[1], 1) < 0 || dup2(input, 0) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "%s: cannot run /proc/self/exe: %s\n", cb_prog, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	close(input);
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
	char err[CB_ERR_MAX / 2];
	struct cb_json v;
	int ret = -1;

	memset(o, 0, sizeof(*o));
	if (cb_json_parse(line, len, &v, err, sizeof(err))) {
		snprintf(why, whylen, "not JSON: %s", err);
		return -1;
	}
	if (v.type != CB_JSON_OBJECT)
		snprintf(why, whylen, "expected an order object, got %s", cb_json_type_name(v.type));
	else
		ret = cb_fields_read(cb_order_fields, ARRAY_SIZE(cb_order_fields), &v, o,
				     &o->present, why, whylen);
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
	cb_str_printf(b, "{\"copybench_worker\":1,\"pid\":%d,\"buffers\":", (int)pid);
	cb_str_json(b, buffers ? buffers : "unknown");
	cb_str_printf(b, ",\"cpu\":%d}\n", cpu);
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
