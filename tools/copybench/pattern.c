// SPDX-License-Identifier: GPL-2.0
/*
 * pattern.c - "copybench pattern": the content of the module's data file
 * (copybench.h's cb_data_byte(), the one definition) from a position, as
 * bytes or as hex, so that scripts get the pattern from the code and never
 * write it again.
 */
#include <stdio.h>
#include <linux/types.h>

#include "builtin.h"
#include "copybench.h"
#include "lib/cb_options.h"
#include "util.h"

/* Bytes one call writes at most: far beyond what a test compares. */
#define CB_PATTERN_MAX	(1ULL << 30)

static const char cb_pattern_usage[] =
	"Usage: copybench pattern [--offset P] [--size N] [--hex]\n"
	"\n"
	"Writes N bytes of the content of copybench.ko's data file from file position\n"
	"P, as the module and readers verify it: byte p is the top byte of the 32-bit\n"
	"product p * %#X (copybench.h's cb_data_byte()). Raw bytes on stdout, or\n"
	"one 0xNN line per byte with --hex.\n"
	"\n"
	"  copybench pattern --size 1M | cmp - file\n"
	"  copybench pattern --offset 12345 --size 1 --hex\n"
	"\n"
	"Exit status: 0 written, 1 stdout failed, 2 bad option (nothing is written).\n"
	"\n"
	"Options:\n";

struct cb_pattern {
	unsigned long long offset, size;
	int hex, help;
};

static int cb_opt_pattern_size(void *field, const char *v, struct cb_error *e)
{
	if (!cb_parse_bytes(v, 0, CB_PATTERN_MAX, field))
		return 0;
	return cb_fail(e, CB_EXIT_USAGE,
		       "invalid --size '%s' (accepted: bytes, 0..1G, with K, M or G)", v);
}

static const struct cb_option cb_pattern_options[] = {
	CB_OPT_UINT("offset", struct cb_pattern, offset, 0, ~0ULL, NULL, "P",
		    "the first byte's file position (default 0)"),
	CB_OPT_CALLBACK("size", 0, struct cb_pattern, size, required_argument, cb_opt_pattern_size,
			"N", "bytes to write, K, M, G (default 16, up to 1G)"),
	CB_OPT_FLAG("hex", 0, struct cb_pattern, hex, "one 0xNN line per byte"),
	CB_OPT_FLAG("help", 'h', struct cb_pattern, help, "this help"),
	CB_OPT_END(),
};

int cmd_pattern(int argc, char **argv)
{
	const struct cb_option *const tables[] = { cb_pattern_options, NULL };
	struct cb_pattern o = { .size = 16 };
	struct cb_error e = { 0 };
	unsigned long long i;
	int first;

	first = cb_options_parse(argc, argv, tables, &o, NULL, &e);
	if (first < 0)
		return cb_report(&e);
	if (o.help) {
		printf(cb_pattern_usage, CB_DATA_MULT);
		cb_options_help(stdout, tables, CB_HELP_BESIDE);
		return CB_EXIT_OK;
	}
	if (first < argc) {
		cb_fail(&e, CB_EXIT_USAGE, "unexpected argument '%s' (this subcommand takes options only; see --help)",
			argv[first]);
		return cb_report(&e);
	}
	for (i = 0; i < o.size; i++) {
		__u8 b = cb_data_byte(o.offset + i);

		if (o.hex)
			printf("0x%02x\n", b);
		else
			putchar(b);
	}
	if (fflush(stdout) || ferror(stdout)) {
		cb_fail(&e, CB_EXIT_RUNTIME, "writing to stdout failed");
		return cb_report(&e);
	}
	return CB_EXIT_OK;
}
