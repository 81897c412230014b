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

/**
 * struct cb_worker - a worker process and the pipe of its stdout.
 * @pid: its process id
 * @fd: the read end of its stdout
 * @buf: what was read and not yet returned as lines
 * @sig: the signal sent to it on the way out, 0 none
 */
struct cb_worker {
	pid_t pid;
	int fd;
	struct cb_str buf;
	size_t used;
	int sig;
};

/*
 * cb_worker_start - fork and exec /proc/self/exe with argv (argv[0] the
 * name it goes by), its stdout a pipe to w->fd, its stdin the inlen bytes
 * of in (a file of its own, read at its pace: no pipe to fill), or
 * /dev/null when in is NULL; it dies with this process
 * (PR_SET_PDEATHSIG). 0, or -1 with e set.
 */
int cb_worker_start(struct cb_worker *w, char *const *argv, const char *in, size_t inlen,
		    struct cb_error *e);

/*
 * cb_worker_line - the worker's next line, without its newline, in
 * *line (valid until the next call): 1 a line, 0 the worker closed its
 * stdout (a last line without a newline is an error), -1 with e set. A
 * signal that stops this command (cb_stop()) is passed on to the worker,
 * and reading goes on until it closes its stdout.
 */
int cb_worker_line(struct cb_worker *w, char **line, size_t *len, struct cb_error *e);

/*
 * cb_worker_finish - wait for the worker and close its pipe. 0 when it
 * exited 0; else -1 with e saying how it ended (its own message is on
 * stderr already) and the status this command should exit with: its exit
 * status, or 128 + the signal that ended it.
 */
int cb_worker_finish(struct cb_worker *w, struct cb_error *e);

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
