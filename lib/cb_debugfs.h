/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_debugfs.h - the C client of copybench.ko's debugfs interface
 * (Documentation/copybench.rst): its files read and written by name, the
 * "results" and "variants" files parsed, the buffer file mapped. The one
 * client: the copybench command's module backend, the module selftests and
 * the stress tests all use it. Names and lists come from copybench.h.
 *
 * Every function returns 0 or a length on success, -errno on failure (a
 * short write is -EIO), and keeps no state: callers own their buffers.
 */
#ifndef CB_DEBUGFS_H
#define CB_DEBUGFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "copybench.h"

/*
 * Any file: len bytes of buf in one write(). Async-signal-safe (open,
 * write and close only): readers restores a knob with it from its signal
 * handler.
 */
int cbfs_file_write(const char *path, const void *buf, size_t len);
/* Any file read whole into buf (len > 0), NUL-terminated; its length. */
ssize_t cbfs_file_read(const char *path, char *buf, size_t len);

/* The path of CB_DEBUGFS_DIR's file name into buf (len bytes). */
void cbfs_path(char *buf, size_t len, const char *name);
/* A file of CB_DEBUGFS_DIR, by name: as cbfs_file_write() and _read(). */
int cbfs_write(const char *name, const void *buf, size_t len);
ssize_t cbfs_read(const char *name, char *buf, size_t len);
/* A file of CB_DEBUGFS_DIR read whole into a malloc()ed string; NULL with errno. */
char *cbfs_read_alloc(const char *name);

/* The first line of last_error into buf, without its newline ("" when none). */
const char *cbfs_last_error(char *buf, size_t len);

/* The keys of the "results" file (CB_RESULT_KEY), in its order. */
enum {
#define CB_RESULT_KEY(key, unit)	CBFS_KEY_##key,
#include "copybench.h"
#undef CB_RESULT_KEY
	CBFS_NKEYS
};

struct cbfs_key {
	const char *key, *unit;
};

extern const struct cbfs_key cbfs_keys[CBFS_NKEYS];

/* Index of key in cbfs_keys, or -1. */
int cbfs_key_index(const char *key);
/* Is v a well-formed value of unit (copybench.rst: names, bools, decimals)? */
bool cbfs_value_ok(const char *unit, const char *v);

/*
 * cbfs_results_parse - the text of "results", split in place: vals[k] the
 * value of key k, or NULL. strict: every key once, in order, each value
 * well formed (the module's contract, as its tests check it); else the
 * keys known here by name and the others skipped (a module newer than this
 * client). 0, or -1 with why set.
 */
int cbfs_results_parse(char *text, const char *vals[CBFS_NKEYS], bool strict, char *why,
		       size_t whylen);

/*
 * The directions (CB_DIRECTION) and cache modes (CB_CACHE), in
 * copybench.h's order: the one table of their names for the command and
 * the tests.
 */
extern const char *const cbfs_directions[];
extern const unsigned int cbfs_ndirections;
extern const char *const cbfs_caches[];
extern const unsigned int cbfs_ncaches;

/* Index of name in list (n entries), or -1. */
int cbfs_name_index(const char *const *list, unsigned int n, const char *name);

/*
 * A line of "variants", "NAME usable|unusable [DIRS] DESCRIPTION", split in
 * place. dirs is DIRS as a mask over cbfs_directions when the third field
 * is a comma-separated list naming one or more (has_dirs set), else 0 (a
 * module older than DIRS: memcpy, to_user and from_user). 0 or -EINVAL.
 */
struct cbfs_variant {
	const char *name;
	bool usable;
	bool has_dirs;
	unsigned long dirs;
	const char *desc;
};

int cbfs_variant_parse(char *line, struct cbfs_variant *v);

/* len bytes of the buffer file mapped shared, read-write; MAP_FAILED with errno. */
void *cbfs_buffer_map(size_t len);

#endif /* CB_DEBUGFS_H */
