/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_test_lib.h - what copybench's module tests share (copybench_test.c,
 * copybench_run_test.c, copybench_data_test.c, copybench_limits_test.c,
 * copybench_owner_test.c, copybench_ctx_test.c, copybench_end_test.c and
 * the stress suite, stress_*.c): the debugfs files read and written by
 * name, the lists of copybench.h (files, knobs, directions, cache modes,
 * results keys), the knobs saved and restored, results parsed, the data
 * file's content, last_error, loading and unloading, child processes with
 * a deadline, CPU hotplug and suspend's freezer, cgroup v2, a minimal
 * io_uring, a seeded generator, guarded buffers and the kernel log since a
 * point. The debugfs files are read, written and parsed by the one client
 * of the module's interface, lib/cb_debugfs.h, which the copybench command
 * uses too. No test harness here: each test program includes
 * kselftest_harness.h itself (what needs it is in cb_test_harness.h).
 * Documentation/testing.rst says what the stress suite proves. One header,
 * a file a concern: the module (cb_test_lib.c), children
 * (cb_test_proc.c), cgroups (cb_test_cgroup.c), io_uring
 * (cb_test_uring.c), the rest (cb_test_util.c); each section below names
 * its file. They call each other one way: cb_test_proc.c ->
 * cb_test_cgroup.c -> cb_test_lib.c -> cb_test_util.c.
 */
#ifndef CB_TEST_LIB_H
#define CB_TEST_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "copybench.h"
#include "lib/cb_debugfs.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define CB_PATH(name)		CB_DEBUGFS_DIR "/" name
#define CB_NAME_LEN		32
#define CB_MAX_VARIANTS		32
#define CB_VALUE_LEN		64
#define CB_CGROUP_ROOT		"/sys/fs/cgroup"

/* The files of copybench.h, in list order. */
enum cb_file_index {
#define CB_FILE(name, mode)	CBF_##name,
#include "copybench.h"
#undef CB_FILE
	CB_NFILES
};

struct cb_file_info {
	const char *name;
	unsigned int mode;
};

extern const struct cb_file_info cb_files[CB_NFILES];

/* The values of the "direction" and "cache" knobs, in list order. */
enum {
#define CB_DIRECTION(name)	CBD_##name,
#include "copybench.h"
#undef CB_DIRECTION
	CB_NDIRECTIONS
};

enum {
#define CB_CACHE(name)	CBC_##name,
#include "copybench.h"
#undef CB_CACHE
	CB_NCACHES
};

/*
 * Their names: lib/cb_debugfs.h's cbfs_directions and cbfs_caches (as
 * many as CB_NDIRECTIONS and CB_NCACHES), cbfs_name_index().
 */

/*
 * The CB_KNOB list: each knob's name, type ("u64", "cpu", "direction"...)
 * and limits (0 and 0 for the types without a range).
 */
enum {
#define CB_KNOB(name, type, min, max, dflt)	CBN_##name,
#include "copybench.h"
#undef CB_KNOB
	CB_NKNOBS
};

struct cb_knob_info {
	const char *name;
	const char *type;
	unsigned long long min, max;
};

extern const struct cb_knob_info cb_knob_list[CB_NKNOBS];

/* Is file i a knob (in the CB_KNOB list)? data_size and data_chunk are knobs. */
bool cb_is_knob(int i);

/*
 * Any file: write len bytes at buf in one write(), 0 or -errno (-EIO for
 * a short write); read it whole into buf, NUL-terminated, its length or
 * -errno; its first line without the newline into buf, returned (NULL when
 * unreadable, buf then ""); that line as a decimal number, -1 when it is
 * not one.
 */
int cb_file_write(const char *path, const void *buf, size_t len);
ssize_t cb_file_read(const char *path, char *buf, size_t len);
const char *cb_file_line(const char *path, char *buf, size_t len);
long long cb_file_ll(const char *path);

/* The same for a file of CB_DEBUGFS_DIR, by name. */
int cb_write_buf(const char *name, const void *buf, size_t len);
int cb_write(const char *name, const char *s);
int cb_writeu(const char *name, unsigned long long v);
/*
 * Knobs from "name=value" strings, NULL-terminated, in order: 0, or the
 * first refusal's -errno with *failed at its string.
 */
int cb_write_knobs(const char * const *kv, const char **failed);
ssize_t cb_read(const char *name, char *buf, size_t len);
/* A file's first line, in a per-thread buffer ("(unreadable)" on error). */
const char *cb_value(const char *name);
long long cb_value_ll(const char *name);
/* last_error without its newline ("" when nothing was refused yet). */
const char *cb_last_error(void);
/* Why the module's tests cannot run here, or NULL. */
const char *cb_unavailable(void);

/*
 * The "variants" file, one entry per line "NAME usable|unusable DIRS
 * DESCRIPTION": dirs is DIRS as a bit mask over cbfs_directions.
 */
struct cb_variant {
	char name[CB_NAME_LEN];
	bool usable;
	unsigned int dirs;
};

/* Every variant, in order; returns how many (0 when unreadable). */
int cb_variants(struct cb_variant *v, int max);
/* The usable variants' names, in order; returns how many. */
int cb_usable_variants(char names[][CB_NAME_LEN], int max);
/* Does the variants file list direction dir for variant name? */
bool cb_variant_has_dir(const char *name, const char *dir);

/* Every knob's value, to be written back after a test. */
struct cb_saved {
	bool valid;
	char val[CB_NFILES][CB_VALUE_LEN];
};

void cb_save(struct cb_saved *s);
void cb_restore(const struct cb_saved *s);

/* Index of the first byte of buf[0..n) that is not the data file's at off, or -1. */
long cb_first_bad(const unsigned char *buf, size_t n, unsigned long long off);

/* The results file: the value text of each CB_RESULT_KEY. */
enum {
#define CB_RESULT_KEY(key, unit)	CBK_##key,
#include "copybench.h"
#undef CB_RESULT_KEY
	CB_NKEYS
};

struct cb_res {
	char val[CB_NKEYS][CB_VALUE_LEN];
};

/* Parse "results": every key once, in order, well formed; NULL or why not. */
const char *cb_parse_results(struct cb_res *r, char *why, size_t whylen);
const char *cb_res_get(const struct cb_res *r, const char *key);
unsigned long long cb_res_u(const struct cb_res *r, const char *key);
/* A fixed-point value in hundredths ("12.34" -> 1234). */
unsigned long long cb_res_c100(const struct cb_res *r, const char *key);

/*
 * The buffer file, the user side of the runs of the user directions:
 * cb_buffer_map() maps len bytes of it (MAP_SHARED, read-write) and
 * returns the mapping, or MAP_FAILED with errno set. cb_buffer_ready()
 * makes sure the process maps a buffer when the direction knob is not
 * memcpy (CB_BUFFER_MAX bytes, mapped once per process and kept: a fork
 * child maps its own); 0 or -errno. It reads the knob, so a thread racing
 * with direction writes calls cb_buffer_hold() first, which maps it
 * whatever the direction. cb_do_run() writes "1" to run as the
 * module asks of a writer: the calling thread first pinned to the cpu
 * knob's CPU when it is not -1 (and left there), the buffer ready; 0 or
 * -errno. cb_buffer_release() unmaps that buffer (a mapped buffer keeps the
 * module loaded).
 */
void *cb_buffer_map(size_t len);
int cb_buffer_ready(void);
int cb_buffer_hold(void);
void cb_buffer_release(void);
int cb_do_run(void);
/*
 * The bytes of process pid's mappings of the buffer file that are in its
 * page tables (their Rss in /proc/PID/smaps), -1 when unreadable. A run
 * faults the part it uses in as its preparation's last step:
 * cb_wait_measuring() waits (polling) until at least bytes are, that is,
 * the run of a process with a fresh buffer is measuring; 0, or -1 after
 * timeout seconds, or at once when pid is a child of the caller that has
 * exited (still unreaped: its status is left to the caller's wait).
 */
long long cb_buffer_rss(pid_t pid);
int cb_wait_measuring(pid_t pid, size_t bytes, double timeout);

/* Load the module file ko, unload copybench (O_NONBLOCK); 0 or -errno. */
int cb_load(const char *ko);
int cb_unload(void);

/* ---- Children (cb_test_proc.c) ---- */

/* Run fn(arg) in a child process, which exits with its return value. */
pid_t cb_child(int (*fn)(void *), void *arg);
/*
 * A run in a child process: it joins cgroup cg (when not NULL), catches
 * SIGUSR1 without SA_RESTART, runs (cb_do_run()), writes its CPU affinity
 * (a cpu_set_t) to report_fd (when >= 0) and exits with the errno of the
 * write (0 on success; 100 + n when setting up failed).
 */
pid_t cb_spawn_run(const char *cg, int report_fd);
/*
 * Wait until a run is in progress (a knob write is refused with EBUSY).
 * Returns 0, or -1 when child exited first (its wait status in *status) or
 * timeout seconds passed. child 0: a run of this process's own thread, no
 * child to watch (status unused).
 */
int cb_wait_run_started(pid_t child, double timeout, int *status);
/*
 * Wait for child at most timeout seconds (0: just look); its wait status,
 * or -1 (still running).
 */
int cb_wait_child(pid_t child, double timeout);
/* A wait status as a shell shows it: the exit status, or 128 + the signal. */
int cb_exit_code(int status);
/* The scheduler state letter of thread tid of process pid (tid 0: the process), or '?'. */
char cb_task_state(pid_t pid, pid_t tid);
/* Take a CPU offline or online again (its sysfs file): 0 or -errno. */
int cb_cpu_online(int cpu, bool online);
/*
 * A suspend to idle that stops after freezing every task and thaws them
 * (pm_test "freezer", no delay, pm_freeze_timeout 5 s): 0, or the errno
 * of the write to /sys/power/state (EBUSY when a task refused to freeze,
 * or an OOM victim never exited).
 */
int cb_suspend_freezer_cycle(void);

/* ---- cgroups (cb_test_cgroup.c) ---- */

/*
 * cgroup v2 at CB_CGROUP_ROOT, mounted when it is not: a new child group
 * of the root with the given controllers ("+cpuset +memory") enabled in
 * the root; its path in path. 0 or -errno.
 */
int cb_cgroup_make(char *path, size_t len, const char *name, const char *controllers);
int cb_cgroup_write(const char *cg, const char *file, const char *val);
long long cb_cgroup_read(const char *cg, const char *file, const char *key);
/* Move the calling process into cg (CB_CGROUP_ROOT to leave a group). */
int cb_cgroup_enter(const char *cg);
void cb_cgroup_remove(const char *cg);

/* ---- io_uring (cb_test_uring.c) ---- */

/* A minimal io_uring: one request at a time. */
struct io_uring_sqe;

struct cb_uring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	void *sq_ring, *cq_ring, *sqes, *cqes;
	size_t sq_len, cq_len, sqes_len;
};

int cb_uring_init(struct cb_uring *u);
/* Register one buffer for the *_FIXED opcodes (buf_index 0). */
int cb_uring_register(struct cb_uring *u, void *buf, size_t len);
/* Queue one request and enter the ring; with wait, until one completion is posted. */
int cb_uring_submit(struct cb_uring *u, const struct io_uring_sqe *sqe, bool wait);
/* The result of the next completion posted (its user_data in *data), or -EAGAIN. */
int cb_uring_posted(struct cb_uring *u, uint64_t *data);
/*
 * The next completion within timeout seconds: 0, its result in *res and
 * its user_data in *data; or -ETIME.
 */
int cb_uring_reap(struct cb_uring *u, double timeout, uint64_t *data, int *res);
/* One request (the *_FIXED opcodes use the registered buffer); its result, bytes or -errno. */
int cb_uring_rw(struct cb_uring *u, int opcode, int fd, void *buf, unsigned int len,
		long long off);
void cb_uring_exit(struct cb_uring *u);

/* ---- The clock, an RNG, the environment, the kernel log, guarded maps (cb_test_util.c) ---- */

/* CLOCK_MONOTONIC in seconds. */
double cb_now(void);

/* A seeded generator (splitmix64): the same seed gives the same stream. */
struct cb_rng {
	uint64_t s;
};

uint64_t cb_rand(struct cb_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t cb_below(struct cb_rng *r, uint64_t n);
/* The seed to use: $name when set (decimal), else from the clock and pid. */
uint64_t cb_seed(const char *name);
/* $name as a decimal number, or dflt when unset or not one (said on stderr). */
long long cb_env_ll(const char *name, long long dflt);

/*
 * The kernel log: cb_kmsg_open() opens /dev/kmsg at its end (an fd, or
 * -errno); cb_kmsg_report() reads what was logged since and returns ""
 * when nothing looks like a kernel report (WARN, BUG, KASAN, UBSAN,
 * lockdep, stalls, leaks, Oops, "Call Trace"), else "N lines like: ...".
 */
int cb_kmsg_open(void);
const char *cb_kmsg_report(int fd);

/*
 * A page-aligned region of len bytes (rounded up to pages) followed by an
 * inaccessible guard page: a buffer that ends at the guard faults exactly
 * there.
 */
struct cb_guarded {
	unsigned char *mem;
	size_t len;
};

int cb_guarded_map(struct cb_guarded *g, size_t len);
void cb_guarded_unmap(struct cb_guarded *g);

#endif /* CB_TEST_LIB_H */
