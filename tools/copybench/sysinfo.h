/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysinfo.h - what a record's header says about the machine: kernel, its
 * command line, CPU identity and microcode, the CPU flags that change how
 * copies run, the mitigations in force, host name, date, tool version.
 */
#ifndef CB_SYSINFO_H
#define CB_SYSINFO_H

#include "record.h"

/* The CPU flags recorded when /proc/cpuinfo lists them. */
#define CB_COPY_FLAGS	{ "erms", "fsrm", "fzrm", "fsrs", "rep_good", "avx2", "avx512f" }

/*
 * cb_sysinfo - fill the machine's fields of h: kernel, kernel_version,
 * kernel_cmdline, cpu_model, cpu_family, cpu_model_id, cpu_stepping,
 * microcode, cpu_flags, mitigations, nr_cpus, hostname, date, tool_version.
 * What cannot be found reads "unknown" (numbers 0, lists empty).
 */
void cb_sysinfo(struct cb_record_header *h);

/* The exact command line, shell-quoted, into a new string. */
char *cb_command_line(int argc, char **argv);

/* The command line as typed (main() sets it; "" before), for headers. */
extern const char *cb_command;

#endif /* CB_SYSINFO_H */
