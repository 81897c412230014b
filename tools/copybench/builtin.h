/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the subcommands of the copybench command, the way perf and
 * git declare theirs: each is "int cmd_NAME(int argc, char **argv)" with
 * argv[0] the subcommand's name, returning the exit status, and one line
 * in main.c's table. A new subcommand is a file and that line.
 */
#ifndef CB_BUILTIN_H
#define CB_BUILTIN_H

int cmd_sweep(int argc, char **argv);
int cmd_alias(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_bisect_run(int argc, char **argv);
int cmd_placement(int argc, char **argv);
int cmd_pattern(int argc, char **argv);
/* Hidden: the process sweep and alias start per repeat (process.h). */
int cmd_worker(int argc, char **argv);

#endif /* CB_BUILTIN_H */
