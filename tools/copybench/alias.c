// SPDX-License-Identifier: GPL-2.0
/*
 * alias.c - "copybench alias": the same copy with the destination at
 * distances from the source (dst - src, mod 4096) from --from to --to, to
 * find the slow bands of 4K aliasing (Laight: slower "if the destination
 * is less than ~48 bytes before the source").
 */
#include "builtin.h"
#include "copybench.h"
#include "job.h"

static const char cb_alias_usage[] =
	"Usage: copybench alias [OPTIONS]\n"
	"\n"
	"Times each variant x direction x size at dst - src distances FROM..TO (mod\n"
	"4096): for d >= 0 the source starts a page and the destination d bytes into\n"
	"one; for d < 0 the destination starts a page and the source -d bytes in.\n"
	"\n"
	"  copybench alias --variants movsb,orig --sizes 4K --step 4\n"
	"  copybench alias --variants movsb --from -128 --to 0 --step 1 --plateau\n"
	"\n"
	"Exit status: 0 done, 1 runtime failure or a copy that failed verification,\n"
	"2 bad option or value (nothing is written to -o then).\n"
	"\n"
	"Options (--sizes defaults to 4K here; fixed sizes only):\n";

static const struct cb_option cb_alias_options[] = {
	CB_OPT_INT("from", struct cb_job, from, -(long long)CB_OFFSET_MAX, CB_OFFSET_MAX,
		   "bytes", "D", "first distance dst - src, bytes (default -256,\n-4095..4095)"),
	CB_OPT_INT("to", struct cb_job, to, -(long long)CB_OFFSET_MAX, CB_OFFSET_MAX, "bytes",
		   "D", "last distance, bytes (default 256, up to 4095)"),
	CB_OPT_UINT("step", struct cb_job, step, 1, CB_OFFSET_MAX, "bytes", "S",
		    "distance step, bytes (default 8, 1..4095)"),
	CB_OPT_END(),
};

static const struct cb_option *const cb_alias_tables[] = {
	cb_alias_options, cb_job_options, NULL
};

int cmd_alias(int argc, char **argv)
{
	return cb_job_command(argc, argv, CB_MODE_ALIAS, cb_alias_tables, cb_alias_usage);
}
