// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - option tables to getopt_long() and --help (options.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const struct cb_option *cb_option_by_key(const struct cb_option *const *tables, int key)
{
	const struct cb_option *o;

	for (; *tables; tables++)
		for (o = *tables; o->name; o++)
			if (o->key == key)
				return o;
	return NULL;
}

/* "--a, --b=ARG, ..." for messages. */
static void cb_options_list(struct cb_str *b, const struct cb_option *const *tables)
{
	const struct cb_option *o;

	for (; *tables; tables++)
		for (o = *tables; o->name; o++)
			cb_str_printf(b, "%s--%s", b->len ? ", " : "", o->name);
}

int cb_options_parse(int argc, char **argv, const struct cb_option *const *tables,
		     cb_option_fn fn, void *ctx, struct cb_error *e)
{
	const struct cb_option *const *t;
	const struct cb_option *o;
	struct option *longs;
	struct cb_str shorts = { 0 }, list = { 0 };
	size_t n = 0, i = 0;
	int key, ret = -1, idx;

	for (t = tables; *t; t++)
		for (o = *t; o->name; o++)
			n++;
	longs = cb_calloc(n + 1, sizeof(*longs));
	cb_str_add(&shorts, ":");	/* report a missing value as ':' */
	for (t = tables; *t; t++) {
		for (o = *t; o->name; o++, i++) {
			longs[i].name = o->name;
			longs[i].has_arg = o->has_arg;
			longs[i].val = o->key;
			if (o->key < 256) {
				cb_str_printf(&shorts, "%c%s", o->key,
					      o->has_arg == required_argument ? ":" :
					      o->has_arg == optional_argument ? "::" : "");
			}
		}
	}
	opterr = 0;
	optind = 1;
	for (;;) {
		idx = optind;
		key = getopt_long(argc, argv, shorts.s, longs, NULL);
		if (key == -1) {
			ret = optind;
			break;
		}
		if (key == ':' || key == '?') {
			/* The word refused: getopt may have moved operands before it. */
			if (optind > 1 && optind <= argc && argv[optind - 1][0] == '-')
				idx = optind - 1;
			o = cb_option_by_key(tables, optopt);
			if (key == ':' && o) {
				cb_fail(e, CB_EXIT_USAGE, "option '--%s' needs a value: %s (see --help)",
					o->name, o->arg ? o->arg : "");
			} else if (o && strchr(argv[idx], '=')) {
				cb_fail(e, CB_EXIT_USAGE, "option '--%s' takes no value (got '%s')",
					o->name, argv[idx]);
			} else {
				cb_options_list(&list, tables);
				cb_fail(e, CB_EXIT_USAGE, "unknown option '%s' (accepted: %s)",
					idx < argc ? argv[idx] : "?", list.s);
			}
			break;
		}
		if (fn(ctx, key, optarg, e))
			break;
	}
	free(longs);
	cb_str_free(&shorts);
	cb_str_free(&list);
	return ret;
}

void cb_options_help(FILE *f, const struct cb_option *const *tables)
{
	const struct cb_option *o;
	const char *h, *nl;
	char head[64];

	for (; *tables; tables++) {
		for (o = *tables; o->name; o++) {
			if (o->key < 256)
				snprintf(head, sizeof(head), "-%c, --%s%s%s%s", o->key, o->name,
					 o->has_arg == optional_argument ? "[=" : o->arg ? " " : "",
					 o->arg ? o->arg : "",
					 o->has_arg == optional_argument ? "]" : "");
			else
				snprintf(head, sizeof(head), "    --%s%s%s%s", o->name,
					 o->has_arg == optional_argument ? "[=" : o->arg ? " " : "",
					 o->arg ? o->arg : "",
					 o->has_arg == optional_argument ? "]" : "");
			fprintf(f, "  %-24s", head);
			if (strlen(head) >= 24)
				fprintf(f, "\n  %-24s", "");
			for (h = o->help; h; h = nl ? nl + 1 : NULL) {
				nl = strchr(h, '\n');
				fprintf(f, "%s%.*s\n", h == o->help ? "" : "                          ",
					nl ? (int)(nl - h) : (int)strlen(h), h);
			}
		}
	}
}
