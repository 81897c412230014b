// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the copybench command: "copybench SUBCOMMAND [OPTIONS]".
 * The subcommands are a table here and a cmd_*() each (builtin.h).
 * Documentation/measure.rst is the manual; scripts/mkman makes a man page of
 * each entry of the table from its --help.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "sysinfo.h"
#include "util.h"

#ifndef CB_VERSION
#define CB_VERSION	"unknown"
#endif

static int cmd_help(int argc, char **argv);

/* A subcommand; one without a summary is hidden (the worker sweep starts). */
static const struct cb_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cb_cmds[] = {
	{ "sweep", cmd_sweep, "time copies per size: tables, plateaus, records" },
	{ "alias", cmd_alias, "time one copy at dst-src distances (4K aliasing)" },
	{ "plot", cmd_plot, "plot records with gnuplot (SVG or PNG)" },
	{ "compare", cmd_compare, "is a difference between records real, and the kernel's?" },
	{ "bisect-run", cmd_bisect_run, "one step of git bisect run: good, bad or skip" },
	{ "placement", cmd_placement, "is a point's cost the code's, or its placement's?" },
	{ "pattern", cmd_pattern, "the data file's content, for scripts to compare" },
	{ "help", cmd_help, "this list, or a subcommand's --help" },
	{ "worker", cmd_worker, NULL },
};

/*
 * An entry without a summary is internal: it runs, but --help, --list-cmds
 * and so the man pages do not show it.
 */
static void cb_usage(FILE *f)
{
	size_t i, w = 0;

	for (i = 0; i < ARRAY_SIZE(cb_cmds); i++)
		if (cb_cmds[i].summary && strlen(cb_cmds[i].name) > w)
			w = strlen(cb_cmds[i].name);
	fprintf(f, "Usage: copybench SUBCOMMAND [OPTIONS]\n\n"
		"Times copy_to_user/memcpy variants, in copybench.ko or in userspace.\n"
		"Each subcommand's options: copybench SUBCOMMAND --help. The manual is\n"
		"the copybench documentation's chapters on measuring and comparing.\n\n"
		"Subcommands:\n");
	for (i = 0; i < ARRAY_SIZE(cb_cmds); i++)
		if (cb_cmds[i].summary)
			fprintf(f, "  %-*s  %s\n", (int)w, cb_cmds[i].name, cb_cmds[i].summary);
	fprintf(f, "\nOptions:\n"
		"  --version    the version\n"
		"  --list-cmds  the subcommands, one 'NAME<tab>SUMMARY' line each, for\n"
		"               scripts (man pages, completion)\n"
		"  -h, --help   this help\n");
}

/* The table for scripts: the man page generator (scripts/mkman) reads it. */
static void cb_list_cmds(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cb_cmds); i++)
		if (cb_cmds[i].summary)
			printf("%s\t%s\n", cb_cmds[i].name, cb_cmds[i].summary);
}

static const struct cb_cmd *cb_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cb_cmds); i++)
		if (!strcmp(cb_cmds[i].name, name))
			return &cb_cmds[i];
	return NULL;
}

static int cb_unknown(const char *name)
{
	size_t i;

	fprintf(stderr, "copybench: unknown subcommand '%s' (accepted:", name);
	for (i = 0; i < ARRAY_SIZE(cb_cmds); i++)
		if (cb_cmds[i].summary)
			fprintf(stderr, "%s %s", i ? "," : "", cb_cmds[i].name);
	fprintf(stderr, ")\n");
	return CB_EXIT_USAGE;
}

static void cb_help_usage(FILE *f)
{
	fprintf(f, "Usage: copybench help [SUBCOMMAND]\n\n"
		"Without SUBCOMMAND, the list of subcommands (copybench --help); with\n"
		"one, that subcommand's options (copybench SUBCOMMAND --help).\n\n"
		"Exit status: 0 done, 2 unknown subcommand or more than one.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct cb_cmd *c;
	char help[] = "--help";
	char *args[3];

	if (argc < 2) {
		cb_usage(stdout);
		return CB_EXIT_OK;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cb_help_usage(stdout);
		return CB_EXIT_OK;
	}
	if (argc > 2) {
		fprintf(stderr, "copybench: help takes one subcommand, not '%s' after '%s'\n",
			argv[2], argv[1]);
		return CB_EXIT_USAGE;
	}
	c = cb_find(argv[1]);
	if (!c)
		return cb_unknown(argv[1]);
	if (c->fn == cmd_help) {
		cb_help_usage(stdout);
		return CB_EXIT_OK;
	}
	args[0] = argv[1];
	args[1] = help;
	args[2] = NULL;
	cb_set_prog(c->name);
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	const struct cb_cmd *c;

	if (argc < 2) {
		cb_usage(stderr);
		return CB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cb_usage(stdout);
		return CB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--list-cmds")) {
		cb_list_cmds();
		return CB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("copybench %s\n", CB_VERSION);
		return CB_EXIT_OK;
	}
	c = cb_find(argv[1]);
	if (!c)
		return cb_unknown(argv[1]);
	cb_command = cb_command_line(argc, argv);
	cb_set_prog(c->name);
	return c->fn(argc - 1, argv + 1);
}
