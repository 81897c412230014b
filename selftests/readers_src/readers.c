// SPDX-License-Identifier: GPL-2.0
/*
 * readers - parallel reads into shared, private or strided buffers, with a
 * touch policy: blogbench's read experiment done right.
 *
 *   readers --source /dev/shm/file --threads 1,2,max --buffer private --touch all
 *   readers --source memcpy:movsb --buffer shared --touch none
 *   readers --matrix --source memcpy
 *   readers --fill /dev/shm/file --size 64M
 *
 * N threads each read CHUNK bytes at a time from a source (a file with
 * pread(), or a userspace copy variant), into one shared buffer, one
 * private buffer each, or buffers STRIDE bytes apart, and then touch none,
 * one line, one page or every byte of what they got. With known content
 * every byte is verified; every read must return what it asked for except
 * at end of file. Human table or JSON lines out; --matrix answers the
 * blogbench question (which copy wins, with which buffers) in one command.
 *
 * Documentation/readers.rst is the manual.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers.h"

#define RD_REPEAT_MAX		1000
#define RD_DURATION_MAX		3600.0
#define RD_FILL_DEFAULT		(64ULL << 20)

static const char *const rd_verify_names[] = { "auto", "on", "off" };

static void __noreturn __printf(1, 2) rd_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "readers: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'readers --help' for the options.\n");
	exit(RD_EXIT_USAGE);
}

/* ---- parsing: one function per kind of value, each naming the option ---- */

/*
 * BYTES: digits and an optional K/KiB, M/MiB, G/GiB (1024-based) suffix.
 * Returns 0, -EINVAL for garbage or -ERANGE for an overflow.
 */
static int rd_bytes_value(const char *s, uint64_t *val)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K':
			mult = 1ULL << 10;
			break;
		case 'M':
			mult = 1ULL << 20;
			break;
		case 'G':
			mult = 1ULL << 30;
			break;
		default:
			return -EINVAL;
		}
		end++;
		if (*end && strcasecmp(end, "iB") && strcasecmp(end, "B"))
			return -EINVAL;
	}
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*val = v * mult;
	return 0;
}

/* opt names the option, text is its whole value, num the byte count in it. */
static uint64_t rd_parse_bytes_in(const char *opt, const char *text,
				  const char *num, uint64_t min, uint64_t max)
{
	char lo[32], hi[32];
	uint64_t v;
	int ret = rd_bytes_value(num, &v);

	if (ret == -EINVAL)
		rd_usage_error("invalid --%s '%s': expected a byte count, digits with an optional K, M or G suffix (1024-based)",
			       opt, text);
	if (ret || v < min || v > max)
		rd_usage_error("invalid --%s '%s': must be %s..%s", opt, text,
			       rd_bytes_str(lo, sizeof(lo), min),
			       rd_bytes_str(hi, sizeof(hi), max));
	return v;
}

static uint64_t rd_parse_bytes(const char *opt, const char *s, uint64_t min,
			       uint64_t max)
{
	return rd_parse_bytes_in(opt, s, s, min, max);
}

static unsigned int rd_parse_count(const char *opt, const char *s,
				   unsigned int min, unsigned int max)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)s[0]))
		goto bad;
	v = strtoul(s, &end, 10);
	if (errno || *end)
		goto bad;
	if (v < min || v > max)
		rd_usage_error("invalid --%s '%s': must be %u..%u", opt, s, min, max);
	return v;
bad:
	rd_usage_error("invalid --%s '%s': expected a whole number %u..%u", opt, s,
		       min, max);
}

/* SECONDS: a decimal number, optionally followed by 's' or 'ms'. */
static double rd_parse_seconds(const char *opt, const char *s, double min,
			       double max)
{
	double v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		goto bad;
	v = strtod(s, &end);
	if (errno || end == s)
		goto bad;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		goto bad;
	if (!(v >= min && v <= max))
		rd_usage_error("invalid --%s '%s': must be %g..%g seconds", opt, s,
			       min, max);
	return v;
bad:
	rd_usage_error("invalid --%s '%s': expected seconds, e.g. 2, 0.5 or 250ms",
		       opt, s);
}

static int rd_parse_name(const char *opt, const char *s,
			 const char *const *names, unsigned int n)
{
	char list[128];
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	list[0] = '\0';
	for (i = 0; i < n; i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? ", " : "", names[i]);
	rd_usage_error("invalid --%s '%s': accepted values: %s", opt, s, list);
}

/*
 * Drop the counts a --threads list repeats ("1,2,max" where max is 2),
 * keeping the first of each, and say so: one run series per count.
 * Returns how many are left.
 */
static unsigned int rd_threads_dedup(const char *s, unsigned int *t,
				     unsigned int n)
{
	unsigned int i, j, kept = 0;
	char max[48] = "";

	if (strstr(s, "max"))
		snprintf(max, sizeof(max), " ('max' is %u here)", rd_cpu_count());
	for (i = 0; i < n; i++) {
		for (j = 0; j < kept && t[j] != t[i]; j++)
			;
		if (j < kept) {
			fprintf(stderr, "readers: --threads '%s': %u listed more than once%s: running it once\n",
				s, t[i], max);
			continue;
		}
		t[kept++] = t[i];
	}
	return kept;
}

static void rd_parse_threads(struct rd_opts *o, const char *s)
{
	char buf[512], *tok, *save;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf) || !*s || s[0] == ',' ||
	    s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == RD_THREADS_LIST_MAX)
			rd_usage_error("invalid --threads '%s': at most %d counts",
				       s, RD_THREADS_LIST_MAX);
		if (!strcmp(tok, "max")) {
			o->threads[n++] = rd_cpu_count();
			continue;
		}
		if (!isdigit((unsigned char)tok[0]))
			goto bad;
		o->threads[n++] = rd_parse_count("threads", tok, 1, RD_THREADS_MAX);
	}
	o->nthreads = rd_threads_dedup(s, o->threads, n);
	return;
bad:
	rd_usage_error("invalid --threads '%s': expected a count 1..%d or 'max', or a comma-separated list of them",
		       s, RD_THREADS_MAX);
}

static void rd_parse_buffer(struct rd_opts *o, const char *s)
{
	if (!strncmp(s, "stride:", 7)) {
		o->buffer = RD_BUF_STRIDE;
		o->stride = rd_parse_bytes_in("buffer", s, s + 7, 0, RD_STRIDE_MAX);
	} else if (!strcmp(s, "shared")) {
		o->buffer = RD_BUF_SHARED;
	} else if (!strcmp(s, "private")) {
		o->buffer = RD_BUF_PRIVATE;
	} else {
		rd_usage_error("invalid --buffer '%s': accepted values: shared, private, stride:BYTES",
			       s);
	}
	o->buffer_set = true;
}

/* ---- the options: each declared once, in rd_options[] ---- */

enum rd_option_type {
	RD_OPTT_STRING,		/* const char *: the value as typed */
	RD_OPTT_TRUE,		/* bool: true when given */
	RD_OPTT_FALSE,		/* bool: false when given */
	RD_OPTT_BYTES,		/* a 64-bit integer: BYTES in min..max */
	RD_OPTT_COUNT,		/* unsigned int: a whole number in min..max */
	RD_OPTT_SECONDS,	/* double: SECONDS in smin..smax */
	RD_OPTT_NAME,		/* an enum: the index of the value in names[] */
	RD_OPTT_CALLBACK,	/* fn(o, value): anything else */
};

/*
 * struct rd_option - one option: its names, where its value goes (a field
 * of struct rd_opts, and a bool set when it is given), how the value is
 * parsed and checked, and its --help text. getopt_long()'s tables, the
 * parsing, the "needs a value" check and --help all read this one entry.
 */
struct rd_option {
	const char *name;
	int short_name;		/* its letter, or 0 */
	const char *arg;	/* the value's name in --help; NULL: a flag */
	enum rd_option_type type;
	size_t off;		/* the field */
	bool has_given;
	size_t given;		/* has_given: a bool field set when given */
	uint64_t min, max;	/* BYTES, COUNT */
	double smin, smax;	/* SECONDS */
	const char *const *names;	/* NAME */
	unsigned int nnames;
	void (*fn)(struct rd_opts *o, const char *value);	/* CALLBACK */
	const char *help;
};

/* 0, or a compile error when c holds. */
#define RD_BUILD_BUG_ON_ZERO(c)	((int)sizeof(struct { int: (-!!(c)); }))
/* The field f of struct rd_opts. */
#define RD_FIELD_OF(f)		(((struct rd_opts *)0)->f)
/* The field's type is t, or a compile error. */
#define RD_OPT_IS(f, t)							\
	RD_BUILD_BUG_ON_ZERO(!__builtin_types_compatible_p(__typeof__(RD_FIELD_OF(f)), t))
#define RD_OPT_FIELD(f)		.off = offsetof(struct rd_opts, f)
#define RD_OPT_GIVEN(f)							\
	.has_given = true + RD_OPT_IS(f, bool),				\
	.given = offsetof(struct rd_opts, f)

#define RD_OPT_STRING(n, s, f, a, h)					\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_STRING + RD_OPT_IS(f, const char *),		\
	  RD_OPT_FIELD(f), .help = (h) }
#define RD_OPT_BOOL(n, s, f, value, h)					\
	{ .name = (n), .short_name = (s),				\
	  .type = ((value) ? RD_OPTT_TRUE : RD_OPTT_FALSE) + RD_OPT_IS(f, bool),	\
	  RD_OPT_FIELD(f), .help = (h) }
#define RD_OPT_BYTES(n, s, f, lo, hi, a, h, ...)			\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_BYTES +					\
		RD_BUILD_BUG_ON_ZERO(sizeof(RD_FIELD_OF(f)) != 8),	\
	  RD_OPT_FIELD(f), .min = (lo), .max = (hi), .help = (h), __VA_ARGS__ }
#define RD_OPT_COUNT(n, s, f, lo, hi, a, h)				\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_COUNT + RD_OPT_IS(f, unsigned int),		\
	  RD_OPT_FIELD(f), .min = (lo), .max = (hi), .help = (h) }
#define RD_OPT_SECONDS(n, s, f, lo, hi, a, h)				\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_SECONDS + RD_OPT_IS(f, double),		\
	  RD_OPT_FIELD(f), .smin = (lo), .smax = (hi), .help = (h) }
#define RD_OPT_NAME(n, s, f, list, count, a, h, ...)			\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_NAME +					\
		RD_BUILD_BUG_ON_ZERO(sizeof(RD_FIELD_OF(f)) != sizeof(int)),	\
	  RD_OPT_FIELD(f), .names = (list), .nnames = (count), .help = (h), __VA_ARGS__ }
#define RD_OPT_CALLBACK(n, s, f, a, h)					\
	{ .name = (n), .short_name = (s), .arg = (a),			\
	  .type = RD_OPTT_CALLBACK, .fn = (f), .help = (h) }

static void rd_opt_help(struct rd_opts *o, const char *value);

/* Every option of readers, in --help's order. */
static const struct rd_option rd_options[] = {
	RD_OPT_STRING("source", 's', source, "SPEC",
	  "what the threads read: a PATH (pread() through the running kernel,\n"
	  "e.g. a tmpfs file), copybench.ko's data file, the default when it\n"
	  "exists (" RD_DATA_PATH "), or memcpy:VARIANT\n"
	  "(each thread copies from its own buffer with the userspace VARIANT;\n"
	  "plain 'memcpy' is memcpy:native)"),
	RD_OPT_STRING("variant", 'v', variant, "NAME",
	  "with the module's data file: set its 'variant' knob for the run and\n"
	  "restore it after (also on error or signal); default: as it is"),
	RD_OPT_CALLBACK("threads", 't', rd_parse_threads, "LIST",
	  "thread counts, one run series each: N, 'max' (the CPUs this process\n"
	  "may use) or a list such as 1,2,4,max (a count listed twice runs\n"
	  "once); default: max, at least 2"),
	RD_OPT_BOOL("no-pin", 0, pin, false,
	  "do not pin threads (default: pinned round-robin over the CPUs)"),
	RD_OPT_CALLBACK("buffer", 'b', rd_parse_buffer, "KIND",
	  "where reads land: shared (one buffer for every thread, blogbench\n"
	  "1.1), private (a page-aligned buffer per thread, allocated and\n"
	  "first touched by it) or stride:BYTES (per-thread buffers BYTES apart\n"
	  "in one allocation: 0 shared, 64 a line apart, 4096 a page);\n"
	  "default: private"),
	RD_OPT_BYTES("chunk", 'c', chunk, 1, RD_CHUNK_MAX, "BYTES",
	  "bytes per read; K, M, G suffixes (1024-based); default: 65536;\n"
	  "one larger than the source reads the whole source (with a warning)"),
	RD_OPT_NAME("touch", 'T', touch, rd_touch_names, RD_TOUCH_ALL + 1, "POLICY",
	  "what a thread does with each read: none (blogbench 1.1), line (one\n"
	  "load per 64-byte line), page (one load per page) or all (every byte,\n"
	  "verified when the content is known); default: all",
	  RD_OPT_GIVEN(touch_set)),
	RD_OPT_SECONDS("duration", 'd', duration, 0.001, RD_DURATION_MAX, "SECONDS",
	  "measured time per run, in seconds ('ms' suffix for milliseconds);\n"
	  "default: 2"),
	RD_OPT_SECONDS("warmup", 'w', warmup, 0, RD_DURATION_MAX, "SECONDS",
	  "unmeasured reading before each run; default: 0.5"),
	RD_OPT_COUNT("repeat", 'r', repeat, 1, RD_REPEAT_MAX, "N",
	  "runs per configuration, reported with mean, stddev, min, max;\n"
	  "1..1000, default: 1"),
	RD_OPT_BYTES("size", 0, size, 1, RD_SIZE_MAX, "BYTES",
	  "memcpy: each thread's source size (default: the chunk, so the copy\n"
	  "reads from cache); --fill: the file's size (default: 64M)",
	  RD_OPT_GIVEN(size_set)),
	RD_OPT_NAME("verify", 0, verify, rd_verify_names, ARRAY_SIZE(rd_verify_names), "MODE",
	  "auto (verify with --touch all when the content is known and the\n"
	  "buffers do not overlap), on (refuse to run otherwise) or off;\n"
	  "default: auto"),
	RD_OPT_BOOL("allow-short", 0, allow_short, true,
	  "exit 0 despite short reads (default: exit 3; they are always\n"
	  "counted and flagged)"),
	RD_OPT_BOOL("json", 'j', json, true,
	  "print one JSON object per line (runs, summaries, the matrix verdict)\n"
	  "instead of tables"),
	RD_OPT_BOOL("matrix", 'm', matrix, true,
	  "run variant x buffer {shared, private} x touch {none, all} at the\n"
	  "thread counts of --threads, print the table and a verdict"),
	RD_OPT_STRING("variants", 0, variants, "LIST",
	  "the matrix's variants, those of them that exist and are usable;\n"
	  "default: " RD_MATRIX_DEFAULT),
	RD_OPT_STRING("fill", 0, fill, "PATH",
	  "write --size bytes of the known content to PATH and exit"),
	RD_OPT_BYTES("corrupt", 0, corrupt, 0, RD_SIZE_MAX - 1, "OFFSET",
	  "flip the byte at OFFSET of the known content (in the file --fill\n"
	  "writes, or in every memcpy source) to prove the verifier fails"),
	RD_OPT_CALLBACK("help", 'h', rd_opt_help, NULL, "this text"),
};

#define RD_NOPTIONS	ARRAY_SIZE(rd_options)

/* getopt_long()'s key of the i-th option: its letter, or 256 + i. */
static int rd_option_key(unsigned int i)
{
	return rd_options[i].short_name ? rd_options[i].short_name : 256 + (int)i;
}

static void rd_help(void)
{
	unsigned int i;

	printf("Usage: readers [OPTION]...\n"
	       "Parallel reads of CHUNK bytes into shared, private or strided buffers,\n"
	       "timed, checked for short reads, and verified byte by byte when the\n"
	       "content is known. GB/s are 10^9 bytes per second. The manual is\n"
	       "the copybench documentation's chapter on readers.\n\n"
	       "Options:\n");
	for (i = 0; i < RD_NOPTIONS; i++) {
		const struct rd_option *o = &rd_options[i];
		const char *p = o->help;
		char head[48];

		if (o->short_name)
			snprintf(head, sizeof(head), "  -%c, --%s%s%s", o->short_name,
				 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(head, sizeof(head), "      --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		printf("%s\n", head);
		while (*p) {
			const char *nl = strchr(p, '\n');
			int len = nl ? nl - p : (int)strlen(p);

			printf("        %.*s\n", len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	printf("\nA value that starts with '-' goes after '=': --source=-file.\n");
	printf("\nExit status: 0 done; 1 error or a verification mismatch; 2 bad usage;\n"
	       "3 short reads (without --allow-short).\n");
}

static void rd_opt_help(struct rd_opts *o, const char *value)
{
	rd_help();
	exit(RD_EXIT_OK);
}

/* The value v of option opt into its field of o; a bad one ends the program. */
static void rd_option_store(struct rd_opts *o, const struct rd_option *opt, const char *v)
{
	void *field = (char *)o + opt->off;

	switch (opt->type) {
	case RD_OPTT_STRING:
		*(const char **)field = v;
		break;
	case RD_OPTT_TRUE:
	case RD_OPTT_FALSE:
		*(bool *)field = opt->type == RD_OPTT_TRUE;
		break;
	case RD_OPTT_BYTES:
		*(uint64_t *)field = rd_parse_bytes(opt->name, v, opt->min, opt->max);
		break;
	case RD_OPTT_COUNT:
		*(unsigned int *)field = rd_parse_count(opt->name, v, opt->min, opt->max);
		break;
	case RD_OPTT_SECONDS:
		*(double *)field = rd_parse_seconds(opt->name, v, opt->smin, opt->smax);
		break;
	case RD_OPTT_NAME:
		*(int *)field = rd_parse_name(opt->name, v, opt->names, opt->nnames);
		break;
	case RD_OPTT_CALLBACK:
		opt->fn(o, v);
		break;
	}
	if (opt->has_given)
		*(bool *)((char *)o + opt->given) = true;
}

/* "--duration", "-t", "--": a word the user meant as an option. */
static bool rd_looks_like_option(const char *s)
{
	return s[0] == '-' && (isalpha((unsigned char)s[1]) || s[1] == '-');
}

/*
 * getopt_long() takes the word after an option that needs a value as that
 * value, whatever it is: "--source --duration 0.1" would read a file named
 * "--duration". Refuse an option-looking value in its own word; a value that
 * really starts with '-' can still be given as --source=VALUE. Numbers such
 * as "-5" are not option-looking: their option refuses them itself.
 */
static void rd_check_value(const struct rd_option *opt, int argc, char **argv)
{
	if (!opt->arg || optind < 2 || optind > argc || optarg != argv[optind - 1] ||
	    !rd_looks_like_option(optarg))
		return;
	rd_usage_error("option '%s' needs a value, but '%s' follows it (a %s that starts with '-': --%s=%s)",
		       argv[optind - 2], optarg, opt->arg, opt->name, opt->arg);
}

/* getopt_long()'s tables from rd_options[]. */
static void rd_getopt_tables(struct option *longopts, char *shortopts)
{
	size_t ns = 0;
	unsigned int i;

	shortopts[ns++] = ':';	/* a missing value is ':', not '?' */
	memset(longopts, 0, sizeof(*longopts) * (RD_NOPTIONS + 1));
	for (i = 0; i < RD_NOPTIONS; i++) {
		longopts[i].name = rd_options[i].name;
		longopts[i].has_arg = rd_options[i].arg ? required_argument : no_argument;
		longopts[i].val = rd_option_key(i);
		if (rd_options[i].short_name) {
			shortopts[ns++] = rd_options[i].short_name;
			if (rd_options[i].arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
}

static void rd_parse_args(struct rd_opts *o, int argc, char **argv)
{
	struct option longopts[RD_NOPTIONS + 1];
	char shortopts[2 * RD_NOPTIONS + 2];
	unsigned int i;
	int c;

	rd_getopt_tables(longopts, shortopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == ':')
			rd_usage_error("option '%s' needs a value", argv[optind - 1]);
		for (i = 0; i < RD_NOPTIONS && rd_option_key(i) != c; i++)
			;
		if (i == RD_NOPTIONS)
			rd_usage_error("unknown option '%s'", argv[optind - 1]);
		rd_check_value(&rd_options[i], argc, argv);
		rd_option_store(o, &rd_options[i], optarg);
	}
	if (optind < argc)
		rd_usage_error("unexpected argument '%s' (options only)", argv[optind]);
}

/* ---- configurations ---- */

static void rd_check_verify_on(const struct rd_opts *o, const struct rd_config *cfg)
{
	const char *note;

	if (o->verify == RD_VERIFY_ON && !rd_decide_verify(o, cfg, &note))
		rd_usage_error("--verify on: cannot verify %u threads, --buffer %s, --touch %s: %s",
			       cfg->threads, rd_buffer_names[cfg->buffer],
			       rd_touch_names[cfg->touch], note);
}

/* Plain mode: every thread count of the list, --repeat runs each. */
static int rd_series(const struct rd_opts *o, struct rd_source *src)
{
	struct rd_config cfg;
	struct rd_sums sums;
	uint64_t short_reads = 0;
	unsigned int i;
	bool failed = false;

	for (i = 0; i < o->nthreads; i++) {
		rd_config_init(o, &cfg, src, o->threads[i]);
		rd_check_verify_on(o, &cfg);
	}
	memset(&sums, 0, sizeof(sums));
	if (o->touch == RD_TOUCH_ALL && rd_build_sums(o, src, &sums))
		return RD_EXIT_ERROR;
	if (!o->json) {
		rd_print_setup(o, src);
		rd_row_header();
	}
	for (i = 0; i < o->nthreads && !atomic_load(&rd_interrupted); i++) {
		struct rd_stats st;

		rd_config_init(o, &cfg, src, o->threads[i]);
		st = rd_run_config(o, &cfg, &sums, true);
		failed |= st.failed > 0;
		short_reads += st.short_reads;
	}
	rd_sums_free(&sums);
	if (short_reads && !o->json)
		printf("# WARNING: %llu short reads: reads returned less than asked before the end of the file\n",
		       (unsigned long long)short_reads);
	if (failed || atomic_load(&rd_interrupted))
		return RD_EXIT_ERROR;
	if (short_reads && !o->allow_short)
		return RD_EXIT_SHORT;
	return RD_EXIT_OK;
}

/* ---- main ---- */

/* The first signal, for the exit status; a lock-free atomic. */
static atomic_int rd_signal_seen;

static void rd_on_signal(int sig)
{
	if (atomic_load(&rd_signal_seen)) {
		/* Second signal: restore the knob and leave now. */
		rd_variant_restore_async();
		_exit(128 + sig);
	}
	atomic_store(&rd_signal_seen, sig);
	rd_run_signal();
}

static void rd_signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rd_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * A chunk larger than the source: every read would be one partial read to
 * its end, not the chunk the output names. Read the whole source per read
 * instead, and say so.
 */
static void rd_fit_chunk(struct rd_opts *o, const struct rd_source *src)
{
	char chunk[32], size[32];

	if (!src->size || o->chunk <= src->size)
		return;
	fprintf(stderr, "readers: warning: --chunk %s is larger than the %s source: reading %s per read\n",
		rd_bytes_str(chunk, sizeof(chunk), o->chunk),
		rd_bytes_str(size, sizeof(size), src->size), size);
	o->chunk = src->size;
}

/* Cross-option checks: each bad combination named with what to do. */
static void rd_check_opts(struct rd_opts *o, struct rd_source *src)
{
	if (o->variant && src->kind == RD_SRC_MEMCPY)
		rd_usage_error("--variant sets the module's knob; with the memcpy source use --source memcpy:%s",
			       o->variant);
	if (o->variant && src->kind == RD_SRC_FILE)
		rd_usage_error("--variant needs the module's data file (%s); a file's read path uses the running kernel's own copy",
			       RD_DATA_PATH);
	if (o->variants && !o->matrix)
		rd_usage_error("--variants chooses the matrix's variants: add --matrix");
	if (o->matrix && (o->buffer_set || o->touch_set))
		rd_usage_error("--matrix runs buffer {shared, private} x touch {none, all} itself: drop --buffer and --touch");
	if (o->matrix && o->variant)
		rd_usage_error("--matrix sets the module's variant per cell: use --variants LIST");
	if (o->matrix && o->variants && src->kind == RD_SRC_FILE)
		rd_usage_error("--variants: a file's read path is the kernel's own copy; use --source memcpy or the module's data file");
	if (o->matrix && src->kind == RD_SRC_MEMCPY && strcmp(o->source, "memcpy"))
		rd_usage_error("--matrix picks the variants itself: use --source memcpy (and --variants LIST)");
	if (o->size_set && src->kind != RD_SRC_MEMCPY)
		rd_usage_error("--size sets the memcpy source's size (or the --fill file's); a file's size is its own");
	if (o->corrupt >= 0 && src->kind != RD_SRC_MEMCPY)
		rd_usage_error("--corrupt works on the memcpy source or with --fill");
	if (o->corrupt >= 0 && (uint64_t)o->corrupt >= src->size)
		rd_usage_error("invalid --corrupt '%lld': the source has %llu bytes",
			       (long long)o->corrupt, (unsigned long long)src->size);
	if (o->verify == RD_VERIFY_ON && o->matrix)
		rd_usage_error("--verify on: the matrix's shared and untouched cells cannot verify; use auto");
}

/* --fill FILE: the known content written, nothing measured; the exit status. */
static int rd_fill(const struct rd_opts *o)
{
	uint64_t size = o->size_set ? o->size : RD_FILL_DEFAULT;
	int ret;

	if (o->corrupt >= 0 && (uint64_t)o->corrupt >= size)
		rd_usage_error("invalid --corrupt '%lld': the file has %llu bytes",
			       (long long)o->corrupt, (unsigned long long)size);
	ret = rd_fill_file(o->fill, size, o->corrupt);
	if (ret) {
		fprintf(stderr, "readers: --fill %s: %s\n", o->fill, strerror(-ret));
		return RD_EXIT_ERROR;
	}
	if (!o->json)
		printf("# wrote %llu bytes of the known content to %s%s\n",
		       (unsigned long long)size, o->fill,
		       o->corrupt >= 0 ? " (one byte flipped)" : "");
	return RD_EXIT_OK;
}

/*
 * The source opened (the module's data file when none is given), the
 * chunk fitted to it, the thread counts defaulted and the options checked
 * against it; 0, or the exit status (bad usage ends the program).
 */
static int rd_open_source(struct rd_opts *o, struct rd_source *src)
{
	char err[1024];
	int ret;

	if (!o->source) {
		if (!rd_module_present())
			rd_usage_error("no --source and copybench.ko's data file %s is absent: pass --source FILE (e.g. a tmpfs file made with --fill) or --source memcpy:VARIANT",
				       RD_DATA_PATH);
		o->source = RD_DATA_PATH;
	}
	ret = rd_source_open(src, o->source, err, sizeof(err));
	if (ret) {
		if (ret == RD_EXIT_USAGE)
			rd_usage_error("%s", err);
		fprintf(stderr, "readers: %s\n", err);
		return ret;
	}
	if (src->kind == RD_SRC_MEMCPY)
		src->size = o->size_set ? o->size : o->chunk;
	rd_fit_chunk(o, src);
	if (!o->nthreads) {
		o->threads[0] = rd_cpu_count() < 2 ? 2 : rd_cpu_count();
		o->nthreads = 1;
	}
	rd_check_opts(o, src);
	return 0;
}

/* --variant with the module's data file: the module's knob set (restored at exit). */
static int rd_use_variant(const struct rd_opts *o, struct rd_source *src)
{
	char err[1024];
	int ret;

	if (src->kind != RD_SRC_MODULE || !o->variant)
		return 0;
	ret = rd_variant_set(o->variant, err, sizeof(err));
	if (ret) {
		rd_variant_restore();
		if (ret == -EINVAL || ret == -EOPNOTSUPP)
			rd_usage_error("invalid --variant '%s': %s", o->variant, err);
		fprintf(stderr, "readers: %s\n", err);
		return RD_EXIT_ERROR;
	}
	snprintf(src->variant, sizeof(src->variant), "%s", o->variant);
	return 0;
}

int main(int argc, char **argv)
{
	struct rd_opts o = {
		.pin = true,
		.buffer = RD_BUF_PRIVATE,
		.chunk = 65536,
		.touch = RD_TOUCH_ALL,
		.duration = 2,
		.warmup = 0.5,
		.repeat = 1,
		.verify = RD_VERIFY_AUTO,
		.corrupt = -1,
	};
	struct rd_source src;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rd_cpus_init();
	if (ret) {
		fprintf(stderr, "readers: cannot list this process's CPUs: %s\n",
			strerror(-ret));
		return RD_EXIT_ERROR;
	}
	rd_parse_args(&o, argc, argv);

	if (o.fill)
		return rd_fill(&o);
	ret = rd_open_source(&o, &src);
	if (ret)
		return ret;
	atexit(rd_variant_restore);
	rd_signals_init();
	ret = rd_use_variant(&o, &src);
	if (ret)
		return ret;

	ret = o.matrix ? rd_matrix(&o, &src) : rd_series(&o, &src);
	rd_variant_restore();
	if (atomic_load(&rd_signal_seen)) {
		fprintf(stderr, "readers: stopped by signal %d\n",
			atomic_load(&rd_signal_seen));
		return 128 + atomic_load(&rd_signal_seen);
	}
	return rd_json_ok() ? ret : RD_EXIT_ERROR;
}
