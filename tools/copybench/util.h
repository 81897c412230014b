/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - what every part of the copybench command shares: what the
 * library's lib/cb_util.h gives (the error carried back to the subcommand,
 * allocation that never returns NULL, strict integers, a growable string)
 * and the command's own: its name in messages, byte counts, strings for
 * reports, JSON and shells, and files written whole or not at all.
 */
#ifndef CB_UTIL_H
#define CB_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "lib/cb_util.h"

/* The name messages start with: "copybench SUBCOMMAND" from now on. */
void cb_set_prog(const char *subcommand);

/*
 * cb_parse_bytes - a decimal integer with an optional suffix K, M or G
 * (powers of 1024) in [lo, hi], as cb_parse_u64() takes it. 0 on success,
 * -1 otherwise.
 */
int cb_parse_bytes(const char *s, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out);
/* "4096" -> "4K" when it divides evenly; buf of at least 24 bytes. */
const char *cb_fmt_bytes(unsigned long long v, char *buf, size_t len);

/*
 * s with each control character (a line break, an escape) as '?': text
 * from a record that a line-oriented report prints.
 */
void cb_str_add_clean(struct cb_str *b, const char *s);
/* Whether s holds a control character. */
int cb_has_control(const char *s);
/*
 * s as a JSON string, quotes included, as lib/cb_json_writer.h writes it;
 * cb_str_put() is that writer's sink for a struct cb_str (ctx), appending.
 */
void cb_str_json(struct cb_str *b, const char *s);
int cb_str_put(void *ctx, const char *s, size_t n);
/* s quoted for a POSIX shell when it needs it. */
void cb_str_shell(struct cb_str *b, const char *s);

/*
 * struct cb_outfile - a file that appears whole or not at all: written to
 * a temporary name in the same directory and renamed over path by
 * cb_outfile_commit(); cb_outfile_abort() (or dying) removes it.
 */
struct cb_outfile {
	char *path;
	char *tmp;
	FILE *f;
};

int cb_outfile_open(struct cb_outfile *o, const char *path, struct cb_error *e);
int cb_outfile_commit(struct cb_outfile *o, struct cb_error *e);
void cb_outfile_abort(struct cb_outfile *o);

/*
 * Reads a whole file into a NUL-terminated buffer (*len excludes the NUL).
 * Returns NULL with errno set on failure.
 */
char *cb_read_file(const char *path, size_t *len);

/* CLOCK_MONOTONIC, in ns. */
unsigned long long cb_now_ns(void);

#endif /* CB_UTIL_H */
