/* SPDX-License-Identifier: GPL-2.0 */
/*
 * process.h - a record's processes, and what they say to each other.
 * Every repeat of a sweep is measured by a process of its own (a fresh
 * exec of /proc/self/exe: fresh ASLR, fresh buffers) at a placement drawn
 * for it (place.h).
 *
 * The protocol, both sides of it here: the command (job.c) starts the
 * hidden subcommand "worker" (worker.c) with no argument and gives it, on
 * its stdin, its order (one JSON line, order_fields.h: the backend, the
 * placement, the settings as planned) and then the key of each point it
 * measures, one record point line each (cb_record_key_json()). Nothing is
 * parsed or planned twice: the worker opens the backend the order names
 * and measures the points as told. It answers on its stdout: a hello line
 * (its pid, how its buffers are backed), then each point's record line, in
 * the order it measured them; its messages go to stderr, its exit status
 * says how it ended.
 */
#ifndef CB_PROCESS_H
#define CB_PROCESS_H

#include <sys/types.h>

#include "record.h"
#include "util.h"

/* A child's argv, built a word at a time: NULL-terminated after each. */
struct cb_argv {
	char **v;
	size_t n;
};

/* One word, printf's way, at the end of a. */
__printf(2, 3) void cb_argv_add(struct cb_argv *a, const char *fmt, ...);
void cb_argv_free(struct cb_argv *a);

/* Where a child's stdout or stderr goes. */
enum cb_child_fd {
	CB_CHILD_INHERIT,	/* this process's */
	CB_CHILD_NULL,		/* /dev/null */
	CB_CHILD_PIPE,		/* a pipe read at c->fd (stdout or stderr, or both) */
};

/**
 * struct cb_child_spec - what cb_child_start() runs, and how.
 * @path: the file executed (execv), or NULL: @argv[0] looked up in PATH
 * @argv: NULL-terminated; @argv[0] the name it goes by
 * @dir: the directory it starts in, or NULL: this one
 * @in: its stdin, @inlen bytes in a file of its own (memfd: read at its
 *	pace, no pipe to fill), or NULL: /dev/null
 * @out: its stdout
 * @err: its stderr
 * @quiet: when the exec fails, only the exit status (127: not found,
 *	126: cannot run) says so, not a line on stderr
 */
struct cb_child_spec {
	const char *path;
	char *const *argv;
	const char *dir;
	const char *in;
	size_t inlen;
	enum cb_child_fd out, err;
	int quiet;
};

/**
 * struct cb_child - a child process and the pipe it writes to.
 * @pid: its process id
 * @fd: the read end of its pipe, or -1
 * @buf: what was read and not yet returned as lines
 * @used: bytes of @buf returned
 * @sig: the signal sent to it on the way out, 0 none
 */
struct cb_child {
	pid_t pid;
	int fd;
	struct cb_str buf;
	size_t used;
	int sig;
};

/*
 * cb_child_start - fork and exec as s says; the child dies with this
 * process (PR_SET_PDEATHSIG) and exits 126 when its files cannot be set
 * up. 0, or -1 with e set.
 */
int cb_child_start(struct cb_child *c, const struct cb_child_spec *s, struct cb_error *e);

/*
 * cb_child_line - the child's next line on its pipe, without its newline,
 * in *line (valid until the next call): 1 a line, 0 the child closed the
 * pipe (a last line without a newline is an error), -1 with e set. A
 * signal that stops this command (cb_stop()) is passed on to the child,
 * and reading goes on until it closes the pipe.
 */
int cb_child_line(struct cb_child *c, char **line, size_t *len, struct cb_error *e);

/*
 * cb_child_wait - close the pipe and wait for the child, passing on a
 * signal that stops this command; its wait status in *status (what it
 * means is the caller's to say). 0, or -1 with e set when waitpid failed.
 */
int cb_child_wait(struct cb_child *c, int *status, struct cb_error *e);

/*
 * cb_on_stack - in the worker: run fn(arg) on a stack of its own whose top
 * lies stack bytes into a page (-1: on this process's own stack), its
 * value in *ret. 0, or -1 with errno set when that stack cannot be made
 * (fn did not run).
 */
int cb_on_stack(long stack, int (*fn)(void *arg), void *arg, int *ret);

/* The order's version: the worker refuses any other. */
#define CB_ORDER_VERSION	1

/*
 * struct cb_order - a worker's order, the fields of order_fields.h; its
 * strings owned (cb_order_free()), present the bits of the optional ones.
 */
struct cb_order {
#define CB_ORDER_FIELD(name, type, req)	CB_RT_##type(name);
#include "order_fields.h"
#undef CB_ORDER_FIELD
	unsigned long long present;
};

enum {
#define CB_ORDER_FIELD(name, type, req)	CB_OF_##name,
#include "order_fields.h"
#undef CB_ORDER_FIELD
	CB_OF_COUNT
};

#define CB_ORDER_HAS(o, name)	((int)(((o)->present >> CB_OF_##name) & 1))
#define CB_ORDER_SET(o, name)	((o)->present |= 1ULL << CB_OF_##name)

/* The order's line, '\n' ended, onto b. */
void cb_order_json(struct cb_str *b, const struct cb_order *o);
/* One order line into o: 0, or -1 with why set and o empty. */
int cb_order_parse(const char *line, size_t len, struct cb_order *o, char *why, size_t whylen);
void cb_order_free(struct cb_order *o);

/* The worker's first line, '\n' ended, onto b: its pid, its buffers, its CPU. */
void cb_hello_json(struct cb_str *b, pid_t pid, const char *buffers, int cpu);
/*
 * The hello line of worker pid: its buffers in *buffers (owned by the
 * caller). 0, or -1 with why set: not JSON, or not the hello of pid.
 */
int cb_hello_parse(const char *line, size_t len, pid_t pid, char **buffers, char *why,
		   size_t whylen);

#endif /* CB_PROCESS_H */
