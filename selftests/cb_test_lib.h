/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_test_lib.h - what copybench's module tests share: the debugfs files
 * read and written by name, the knobs saved and restored (the CB_FILE list
 * of copybench.h says which files are knobs), results parsed by the
 * CB_RESULT_KEY list, the data file's content, last_error, a run in a child
 * process, cgroup v2 and a minimal io_uring. No test harness here: each test
 * program includes kselftest_harness.h itself.
 */
#ifndef CB_TEST_LIB_H
#define CB_TEST_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "copybench.h"

#define CB_PATH(name)		CB_DEBUGFS_DIR "/" name
#define CB_NAME_LEN		32
#define CB_MAX_VARIANTS		32
#define CB_VALUE_LEN		64

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

/* Is file i a knob (read-write, and not the data file)? */
bool cb_is_knob(int i);

/* Write s to a copybench file; 0 or -errno (-EIO for a short write). */
int cb_write(const char *name, const char *s);
int cb_writeu(const char *name, unsigned long long v);
/* Read a whole copybench file into buf, NUL-terminated; length or -errno. */
ssize_t cb_read(const char *name, char *buf, size_t len);
/* A file's content without its last newline, in a per-thread buffer. */
const char *cb_value(const char *name);
/* last_error without its newline ("" when nothing was refused yet). */
const char *cb_last_error(void);
/* Why the module's tests cannot run here, or NULL. */
const char *cb_unavailable(void);

/* The usable variants of the "variants" file, in order; returns how many. */
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

/* CLOCK_MONOTONIC in seconds. */
double cb_now(void);

/*
 * A run in a child process: it joins cgroup cg (when not NULL), catches
 * SIGUSR1 without SA_RESTART, writes "1" to run, writes its CPU affinity
 * (a cpu_set_t) to report_fd (when >= 0) and exits with the errno of the
 * write (0 on success; 100 + n when setting up failed).
 */
pid_t cb_spawn_run(const char *cg, int report_fd);
/*
 * Wait until a run is in progress (a knob write is refused with EBUSY).
 * Returns 0, or -1 when child exited first (its wait status in *status) or
 * timeout seconds passed.
 */
int cb_wait_run_started(pid_t child, double timeout, int *status);
/* Wait for child at most timeout seconds; its wait status, or -1 (still running). */
int cb_wait_child(pid_t child, double timeout);

/*
 * cgroup v2 at /sys/fs/cgroup, mounted when it is not: a new child group of
 * the root with the given controllers ("+cpuset +memory") enabled in the
 * root; its path in path. 0 or -errno.
 */
int cb_cgroup_make(char *path, size_t len, const char *name, const char *controllers);
int cb_cgroup_write(const char *cg, const char *file, const char *val);
long long cb_cgroup_read(const char *cg, const char *file, const char *key);
/* Move the calling process into cg. */
int cb_cgroup_enter(const char *cg);
void cb_cgroup_remove(const char *cg);

/* A minimal io_uring: one request at a time. */
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
/* One request (the *_FIXED opcodes use the registered buffer); its result, bytes or -errno. */
int cb_uring_rw(struct cb_uring *u, int opcode, int fd, void *buf, unsigned int len,
		long long off);
void cb_uring_exit(struct cb_uring *u);

#endif /* CB_TEST_LIB_H */
