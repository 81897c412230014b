/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h - one table per subcommand drives getopt_long(), --help and
 * the "unknown option" message, so the three cannot disagree.
 */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

#include "util.h"

/*
 * struct cb_option - one option. key is the short option character, or a
 * value >= 256 for long-only options. has_arg as getopt_long's
 * (no_argument, required_argument, optional_argument). help may hold
 * several lines separated by '\n'. A table ends with an entry whose name
 * is NULL.
 */
struct cb_option {
	const char *name;
	int key;
	int has_arg;
	const char *arg;
	const char *help;
};

/* Called once per option found, in order; 0 or -1 with e set. */
typedef int (*cb_option_fn)(void *ctx, int key, const char *arg, struct cb_error *e);

/*
 * cb_options_parse - parse argv[1..] with the options of every table in
 * tables (NULL-terminated). Returns the index of the first operand, or -1
 * with e set (CB_EXIT_USAGE: unknown option, missing or unexpected value,
 * or whatever fn said). -h/--help is not handled here: put it in a table.
 */
int cb_options_parse(int argc, char **argv, const struct cb_option *const *tables,
		     cb_option_fn fn, void *ctx, struct cb_error *e);

/* The option list of --help: one "  --name ARG  help" entry per option. */
void cb_options_help(FILE *f, const struct cb_option *const *tables);

#endif /* CB_OPTIONS_H */
