/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_test_lib.h - what tests of copybench.ko share (the stress suite,
 * selftests/stress_*.c, uses it): access to the debugfs files, the module's
 * file list from copybench.h, loading and unloading, a seeded generator,
 * the kernel log since a point, child processes with a deadline, and the
 * data file's content.
 *
 * Documentation/testing.rst says what each test proves.
 */
#ifndef CB_TEST_LIB_H
#define CB_TEST_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "copybench.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The files of CB_DEBUGFS_DIR, from the CB_FILE list of copybench.h. */
struct cb_file {
	const char *name;
	unsigned int mode;
};
extern const struct cb_file cb_files[];
extern const unsigned int cb_nfiles;

/* The names of the "direction" and "cache" knobs (CB_DIRECTION, CB_CACHE). */
extern const char * const cb_direction_list[];
extern const unsigned int cb_ndirections;
extern const char * const cb_cache_list[];
extern const unsigned int cb_ncaches;

/* A knob: a read-write file of CB_FILE other than "data" and "data_size". */
bool cb_is_knob(const struct cb_file *f);

/* Why the tests cannot run here, or NULL (root, debugfs, module, lockdown). */
const char *cb_unavailable(void);

/*
 * Any file: write len bytes at buf in one write(), 0 or -errno (-EIO for a
 * short write); its first line without the newline into buf ("" when
 * unreadable), returned; that line as a decimal number, -1 when it is not.
 */
int cb_file_write(const char *path, const void *buf, size_t len);
const char *cb_file_line(const char *path, char *buf, size_t len);
long long cb_file_ll(const char *path);

/* The same for a file of CB_DEBUGFS_DIR, by name. */
int cb_write_buf(const char *name, const void *buf, size_t len);
int cb_write(const char *name, const char *s);
int cb_writeu(const char *name, unsigned long long v);
/* The whole file into buf, NUL-terminated; its length or -errno. */
ssize_t cb_read(const char *name, char *buf, size_t len);
/* The file's first line without its newline, into buf; buf or "(unreadable)". */
const char *cb_value(const char *name, char *buf, size_t len);
/* A numeric file's value; -1 when unreadable or not a number. */
long long cb_value_ll(const char *name);

/* Every knob's value and data_size, to put back after a test. */
struct cb_state {
	char val[32][128];
};
void cb_state_save(struct cb_state *s);
void cb_state_restore(const struct cb_state *s);

/*
 * The "variants" file: one entry per line, "NAME usable|unusable DESC" or,
 * with the per-direction column, "NAME usable|unusable DIRS DESC" where
 * DIRS is a comma-separated list of directions. dirs is a bit mask over
 * cb_direction_list; without the column every direction is allowed.
 */
struct cb_variant {
	char name[32];
	bool usable;
	unsigned int dirs;
};
int cb_variants(struct cb_variant *v, int max);

/* The content of the data file until written: cb_data_byte(). */
long cb_first_bad(const unsigned char *buf, size_t n, unsigned long long off);

/* Load COPYBENCH_KO / unload (O_NONBLOCK); 0 or -errno. */
int cb_load(const char *ko);
int cb_unload(void);

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

/* CLOCK_MONOTONIC in ms. */
long long cb_now_ms(void);

/*
 * The kernel log: cb_kmsg_open() opens /dev/kmsg at its end (an fd, or
 * -errno); cb_kmsg_report() reads what was logged since and returns ""
 * when nothing looks like a kernel report (WARN, BUG, KASAN, UBSAN,
 * lockdep, stalls, leaks, Oops, "Call Trace"), else "N lines like: ...".
 */
int cb_kmsg_open(void);
const char *cb_kmsg_report(int fd);

/*
 * A page-aligned region of len bytes followed by an inaccessible guard
 * page: a buffer that ends at the guard faults exactly there.
 */
struct cb_guarded {
	unsigned char *mem;
	size_t len;
};
int cb_guarded_map(struct cb_guarded *g, size_t len);
void cb_guarded_unmap(struct cb_guarded *g);

/*
 * Run fn(arg) in a child process; cb_child_wait() waits for it up to
 * deadline_ms (absolute, cb_now_ms() time) and returns its exit status,
 * 128 + signal when killed, or -1 (still running) at the deadline.
 */
pid_t cb_child(int (*fn)(void *), void *arg);
int cb_child_wait(pid_t pid, long long deadline_ms);

/*
 * Wait until a run is in progress: a knob write answers EBUSY. Polls with
 * sched_yield() (no sleep) until then, until pid has exited, or until
 * deadline_ms; true when a run was seen.
 */
bool cb_wait_running(pid_t pid, long long deadline_ms);

#endif /* CB_TEST_LIB_H */
