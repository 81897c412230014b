// SPDX-License-Identifier: GPL-2.0
/*
 * alias.c - "copybench alias": the same copy with the destination at
 * distances from the source (dst - src, mod 4096) from --from to --to, to
 * find the slow bands of 4K aliasing (Laight: slower "if the destination
 * is less than ~48 bytes before the source").
 */
#include "builtin.h"
#include "copybench.h"
#include "run.h"

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
	{ "from", CB_OPT_FROM, required_argument, "D",
	  "first distance dst - src, bytes (default -256,\n-4095..4095)" },
	{ "to", CB_OPT_TO, required_argument, "D",
	  "last distance, bytes (default 256, up to 4095)" },
	{ "step", CB_OPT_STEP, required_argument, "S",
	  "distance step, bytes (default 8, 1..4095)" },
	{ NULL },
};

static int cb_alias_option(void *ctx, int key, const char *arg, struct cb_error *e)
{
	struct cb_run *r = ctx;
	long long *d = key == CB_OPT_FROM ? &r->from : &r->to;

	if (key == CB_OPT_STEP) {
		if (!cb_parse_u64(arg, 1, CB_OFFSET_MAX, &r->step))
			return 0;
		return cb_fail(e, CB_EXIT_USAGE, "invalid --step '%s' (accepted: 1..%u bytes)", arg,
			       CB_OFFSET_MAX);
	}
	if (!cb_parse_i64(arg, -(long long)CB_OFFSET_MAX, CB_OFFSET_MAX, d))
		return 0;
	return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s' (accepted: -%u..%u bytes)",
		       key == CB_OPT_FROM ? "from" : "to", arg, CB_OFFSET_MAX, CB_OFFSET_MAX);
}

int cmd_alias(int argc, char **argv)
{
	return cb_run_command(argc, argv, CB_MODE_ALIAS, cb_alias_options, cb_alias_option,
			      cb_alias_usage);
}
