// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.c - "copybench sweep": time copies at a list of sizes, for every
 * variant and direction asked; tables, plateaus or JSON lines, a record.
 * Its options are its tables (here and job.c); sweep.h turns a job filled
 * in C back into the argv they parse, for the commands that run a sweep.
 */
#include "builtin.h"
#include "copybench.h"
#include "job.h"
#include "process.h"
#include "sweep.h"

static const char cb_sweep_usage[] =
	"Usage: copybench sweep [OPTIONS]\n"
	"\n"
	"Times each variant x direction x size (x cache) point, in TSC clocks per\n"
	"copy: its time per call back to back (the loop included), the loop's own,\n"
	"the difference where the copy makes it (else \"hidden\"), its latency (each\n"
	"copy's source from the bytes the one before wrote) and the chain's own;\n"
	"ns, GB/s and the spread of the repeats.\n"
	"\n"
	"  copybench sweep --sizes 4K,64K,1M --variants native,movsb --repeat 5\n"
	"  copybench sweep --sizes 1-256 --variants movsb --plateau\n"
	"  copybench sweep --sizes random:1-64 --seed 7 --variants all\n"
	"  copybench sweep --backend module --load --directions all -o rec.json\n"
	"\n"
	"Exit status: 0 done, 1 runtime failure or a copy that failed verification,\n"
	"2 bad option or value (nothing is written to -o then).\n"
	"\n"
	"Options:\n";

static const struct cb_option cb_sweep_options[] = {
	CB_OPT_UINT("src-offset", struct cb_job, src_offset, 0, CB_OFFSET_MAX, "bytes", "N",
		    "bytes from a page boundary to the source\n(default 0, 0..4095)"),
	CB_OPT_UINT("dst-offset", struct cb_job, dst_offset, 0, CB_OFFSET_MAX, "bytes", "N",
		    "bytes from a page boundary to the destination\n(default 0, 0..4095)"),
	CB_OPT_END(),
};

/* Every option sweep takes: what it parses and what cb_sweep_argv() writes. */
static const struct cb_option *const cb_sweep_tables[] = {
	cb_sweep_options, cb_job_options, cb_job_like_options, cb_job_test_options, NULL
};

void cb_sweep_init(struct cb_job *r)
{
	cb_job_init(r, CB_MODE_SWEEP);
	r->tables = cb_sweep_tables;
}

static void cb_sweep_word(void *a, const char *word)
{
	cb_argv_add(a, "%s", word);
}

void cb_sweep_argv(const struct cb_job *r, struct cb_argv *a)
{
	cb_argv_add(a, "sweep");
	cb_options_words(cb_sweep_tables, &r->given, r, cb_sweep_word, a);
}

int cb_sweep_parse(int argc, char **argv, struct cb_job *r, struct cb_error *e)
{
	return cb_job_parse(argc, argv, CB_MODE_SWEEP, cb_sweep_tables, r, e);
}

int cmd_sweep(int argc, char **argv)
{
	return cb_job_command(argc, argv, CB_MODE_SWEEP, cb_sweep_tables, cb_sweep_usage);
}
