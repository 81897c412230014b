// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.c - "copybench sweep": time copies at a list of sizes, for every
 * variant and direction asked; tables, plateaus or JSON lines, a record.
 */
#include "builtin.h"
#include "copybench.h"
#include "job.h"

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

int cmd_sweep(int argc, char **argv)
{
	return cb_job_command(argc, argv, CB_MODE_SWEEP, cb_sweep_options, cb_sweep_usage);
}
