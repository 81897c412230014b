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
 * seeds' question (which copy wins, with which buffers) in one command.
 *
 * Documentation/readers.rst is the manual.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers.h"

#define RD_THREADS_LIST_MAX	64
#define RD_MATRIX_VARIANTS_MAX	32
#define RD_REPEAT_MAX		1000
#define RD_DURATION_MAX		3600.0
#define RD_FILL_DEFAULT		(64ULL << 20)

/* The matrix's variants: the seeds' question. Override with --variants. */
#define RD_MATRIX_DEFAULT	"movsb,unrolled,nocache,native"

static const char *const rd_buffer_names[] = { "shared", "private", "stride" };
static const char *const rd_touch_names[] = { "none", "line", "page", "all" };
static const char *const rd_verify_names[] = { "auto", "on", "off" };
static const char *const rd_kind_names[] = { "memcpy", "module", "file" };

struct rd_opts {
	const char *source;
	const char *variant;
	const char *variants;
	const char *fill;
	unsigned int threads[RD_THREADS_LIST_MAX];
	unsigned int nthreads;
	bool pin;
	enum rd_buffer_kind buffer;
	uint64_t stride;
	bool buffer_set;
	uint64_t chunk;
	enum rd_touch touch;
	bool touch_set;
	double duration;
	double warmup;
	unsigned int repeat;
	uint64_t size;
	bool size_set;
	enum rd_verify verify;
	int64_t corrupt;
	bool allow_short;
	bool json;
	bool matrix;
};

enum {
	OPT_NO_PIN = 256,
	OPT_SIZE,
	OPT_VERIFY,
	OPT_ALLOW_SHORT,
	OPT_VARIANTS,
	OPT_FILL,
	OPT_CORRUPT,
};

/* The option table: getopt_long()'s table and --help both come from it. */
static const struct rd_option {
	const char *name;
	int key;
	const char *arg;	/* NULL: a flag */
	const char *help;
} rd_options[] = {
	{ "source", 's', "SPEC",
	  "what the threads read: a PATH (pread() through the running kernel,\n"
	  "e.g. a tmpfs file), copybench.ko's data file (" RD_DATA_PATH ";\n"
	  "the default when it exists), or memcpy:VARIANT (each thread copies\n"
	  "from its own buffer with the userspace VARIANT; plain 'memcpy' is\n"
	  "memcpy:native)" },
	{ "variant", 'v', "NAME",
	  "with the module's data file: set its 'variant' knob for the run and\n"
	  "restore it after (also on error or signal); default: as it is" },
	{ "threads", 't', "LIST",
	  "thread counts, one run series each: N, 'max' (the CPUs this process\n"
	  "may use) or a list such as 1,2,4,max; default: max, at least 2" },
	{ "no-pin", OPT_NO_PIN, NULL,
	  "do not pin threads (default: pinned round-robin over the CPUs)" },
	{ "buffer", 'b', "KIND",
	  "where reads land: shared (one buffer for every thread, blogbench\n"
	  "1.1), private (a page-aligned buffer per thread, allocated and\n"
	  "first touched by it) or stride:BYTES (per-thread buffers BYTES apart\n"
	  "in one allocation: 0 shared, 64 a line apart, 4096 a page);\n"
	  "default: private" },
	{ "chunk", 'c', "BYTES",
	  "bytes per read; K, M, G suffixes (1024-based); default: 65536" },
	{ "touch", 'T', "POLICY",
	  "what a thread does with each read: none (blogbench 1.1), line (one\n"
	  "load per 64-byte line), page (one load per page) or all (every byte,\n"
	  "verified when the content is known); default: all" },
	{ "duration", 'd', "SECONDS",
	  "measured time per run, in seconds ('ms' suffix for milliseconds);\n"
	  "default: 2" },
	{ "warmup", 'w', "SECONDS",
	  "unmeasured reading before each run; default: 0.5" },
	{ "repeat", 'r', "N",
	  "runs per configuration, reported with mean, stddev, min, max;\n"
	  "1..1000, default: 1" },
	{ "size", OPT_SIZE, "BYTES",
	  "memcpy: each thread's source size (default: the chunk, so the copy\n"
	  "reads from cache); --fill: the file's size (default: 64M)" },
	{ "verify", OPT_VERIFY, "MODE",
	  "auto (verify with --touch all when the content is known and the\n"
	  "buffers do not overlap), on (refuse to run otherwise) or off;\n"
	  "default: auto" },
	{ "allow-short", OPT_ALLOW_SHORT, NULL,
	  "exit 0 despite short reads (default: exit 3; they are always\n"
	  "counted and flagged)" },
	{ "json", 'j', NULL,
	  "print one JSON object per line (runs, summaries, the matrix verdict)\n"
	  "instead of tables" },
	{ "matrix", 'm', NULL,
	  "run variant x buffer {shared, private} x touch {none, all} at the\n"
	  "thread counts of --threads, print the table and a verdict" },
	{ "variants", OPT_VARIANTS, "LIST",
	  "the matrix's variants (default: " RD_MATRIX_DEFAULT ", those that\n"
	  "exist and are usable)" },
	{ "fill", OPT_FILL, "PATH",
	  "write --size bytes of the known content to PATH and exit" },
	{ "corrupt", OPT_CORRUPT, "OFFSET",
	  "flip the byte at OFFSET of the known content (in the file --fill\n"
	  "writes, or in every memcpy source) to prove the verifier fails" },
	{ "help", 'h', NULL, "this text" },
};

#define RD_NOPTIONS	ARRAY_SIZE(rd_options)

static void rd_help(void)
{
	unsigned int i;

	printf("Usage: readers [OPTION]...\n"
	       "Parallel reads of CHUNK bytes into shared, private or strided buffers,\n"
	       "timed, checked for short reads, and verified byte by byte when the\n"
	       "content is known. GB/s are 10^9 bytes per second.\n\n");
	for (i = 0; i < RD_NOPTIONS; i++) {
		const struct rd_option *o = &rd_options[i];
		const char *p = o->help;
		char head[48];

		if (o->key < 256)
			snprintf(head, sizeof(head), "  -%c, --%s%s%s", o->key,
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
	printf("\nExit status: 0 done; 1 error or a verification mismatch; 2 bad usage;\n"
	       "3 short reads (without --allow-short). Documentation/readers.rst.\n");
}

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

static const char *rd_bytes_str(char *buf, size_t len, uint64_t v);

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
	o->nthreads = n;
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

static void rd_parse_args(struct rd_opts *o, int argc, char **argv)
{
	struct option longopts[RD_NOPTIONS + 1];
	char shortopts[2 * RD_NOPTIONS + 2];
	size_t ns = 0;
	unsigned int i;
	int c;

	shortopts[ns++] = ':';	/* a missing value is ':', not '?' */
	memset(longopts, 0, sizeof(longopts));
	for (i = 0; i < RD_NOPTIONS; i++) {
		longopts[i].name = rd_options[i].name;
		longopts[i].has_arg = rd_options[i].arg ? required_argument : no_argument;
		longopts[i].val = rd_options[i].key;
		if (rd_options[i].key < 256) {
			shortopts[ns++] = rd_options[i].key;
			if (rd_options[i].arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';

	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->source = optarg;
			break;
		case 'v':
			o->variant = optarg;
			break;
		case 't':
			rd_parse_threads(o, optarg);
			break;
		case OPT_NO_PIN:
			o->pin = false;
			break;
		case 'b':
			rd_parse_buffer(o, optarg);
			break;
		case 'c':
			o->chunk = rd_parse_bytes("chunk", optarg, 1, RD_CHUNK_MAX);
			break;
		case 'T':
			o->touch = rd_parse_name("touch", optarg, rd_touch_names, 4);
			o->touch_set = true;
			break;
		case 'd':
			o->duration = rd_parse_seconds("duration", optarg, 0.001,
						       RD_DURATION_MAX);
			break;
		case 'w':
			o->warmup = rd_parse_seconds("warmup", optarg, 0,
						     RD_DURATION_MAX);
			break;
		case 'r':
			o->repeat = rd_parse_count("repeat", optarg, 1, RD_REPEAT_MAX);
			break;
		case OPT_SIZE:
			o->size = rd_parse_bytes("size", optarg, 1, RD_SIZE_MAX);
			o->size_set = true;
			break;
		case OPT_VERIFY:
			o->verify = rd_parse_name("verify", optarg, rd_verify_names, 3);
			break;
		case OPT_ALLOW_SHORT:
			o->allow_short = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'm':
			o->matrix = true;
			break;
		case OPT_VARIANTS:
			o->variants = optarg;
			break;
		case OPT_FILL:
			o->fill = optarg;
			break;
		case OPT_CORRUPT:
			o->corrupt = rd_parse_bytes("corrupt", optarg, 0, RD_SIZE_MAX - 1);
			break;
		case 'h':
			rd_help();
			exit(RD_EXIT_OK);
		case ':':
			rd_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			rd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		rd_usage_error("unexpected argument '%s' (options only)", argv[optind]);
}

/* ---- output helpers ---- */

static const char *rd_bytes_str(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v && !(v % (1ULL << 10)))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	return buf;
}

static const char *rd_buffer_str(char *buf, size_t len, const struct rd_config *cfg)
{
	if (cfg->buffer == RD_BUF_STRIDE)
		snprintf(buf, len, "stride:%llu", (unsigned long long)cfg->stride);
	else
		snprintf(buf, len, "%s", rd_buffer_names[cfg->buffer]);
	return buf;
}

/*
 * JSON lines: rd_json_open() starts an object, each rd_j*() adds one
 * "key":value (the comma is theirs), rd_json_close() ends the line.
 */
static bool rd_json_first;

static void rd_json_open(void)
{
	putchar('{');
	rd_json_first = true;
}

static void rd_json_close(void)
{
	fputs("}\n", stdout);
}

static void rd_jkey(const char *key)
{
	printf("%s\"%s\":", rd_json_first ? "" : ",", key);
	rd_json_first = false;
}

static void rd_jstr(const char *key, const char *s)
{
	rd_jkey(key);
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void rd_ju64(const char *key, uint64_t v)
{
	rd_jkey(key);
	printf("%llu", (unsigned long long)v);
}

static void rd_jnum(const char *key, double v)
{
	rd_jkey(key);
	printf("%.10g", v);
}

static void rd_jbool(const char *key, bool v)
{
	rd_jkey(key);
	fputs(v ? "true" : "false", stdout);
}

static void rd_jnull(const char *key)
{
	rd_jkey(key);
	fputs("null", stdout);
}

/* The fields every JSON object of a configuration carries. */
static void rd_json_config(const char *type, const struct rd_config *cfg,
			   unsigned int repeat)
{
	const struct rd_source *src = cfg->src;

	rd_json_open();
	rd_jstr("type", type);
	rd_jstr("source", rd_kind_names[src->kind]);
	rd_jstr("path", src->kind == RD_SRC_MEMCPY ? NULL : src->path);
	rd_jstr("variant", src->variant);
	rd_ju64("threads", cfg->threads);
	rd_jbool("pinned", cfg->pin);
	rd_jstr("buffer", rd_buffer_names[cfg->buffer]);
	if (cfg->buffer == RD_BUF_PRIVATE)
		rd_jnull("stride");
	else
		rd_ju64("stride", cfg->buffer == RD_BUF_STRIDE ? cfg->stride : 0);
	rd_jstr("touch", rd_touch_names[cfg->touch]);
	rd_ju64("chunk", cfg->chunk);
	rd_ju64("size", src->size);
	rd_jnum("warmup_s", cfg->warmup_s);
	rd_ju64("repeat", repeat);
}

static double rd_spread(const struct rd_result *r)
{
	return r->thread_gbps_max > 0 ?
	       (r->thread_gbps_max - r->thread_gbps_min) / r->thread_gbps_max : 0;
}

static void rd_json_run(const struct rd_config *cfg, const struct rd_result *r,
			unsigned int run, unsigned int repeat, const char *note)
{
	rd_json_config("run", cfg, repeat);
	rd_ju64("run", run);
	rd_jnum("duration_s", r->interval_s);
	rd_ju64("bytes", r->bytes);
	rd_ju64("reads", r->reads);
	rd_jnum("gbps", r->gbps);
	rd_jnum("reads_per_s", r->reads_per_s);
	rd_jnum("thread_gbps_min", r->thread_gbps_min);
	rd_jnum("thread_gbps_max", r->thread_gbps_max);
	rd_jnum("spread", rd_spread(r));
	rd_ju64("short_reads", r->short_reads);
	rd_ju64("eof_reads", r->eof_reads);
	rd_jbool("verified", r->verified);
	rd_jstr("verify_note", note);
	rd_jbool("failed", r->failed);
	rd_jstr("error", r->failed ? r->error : NULL);
	rd_json_close();
}

/* Mean, sample standard deviation, min and max of a configuration's runs. */
struct rd_stats {
	unsigned int runs;
	unsigned int failed;
	double mean, stddev, min, max;
	double reads_per_s_mean;
	uint64_t short_reads;
	bool verified;
};

static void rd_stats_add(struct rd_stats *st, const struct rd_result *r,
			 double *gbps)
{
	if (!st->runs && !st->failed)
		st->verified = true;
	if (r->failed) {
		st->failed++;
		st->verified = false;
		return;
	}
	gbps[st->runs++] = r->gbps;
	st->reads_per_s_mean += r->reads_per_s;
	st->short_reads += r->short_reads;
	st->verified &= r->verified;
}

static void rd_stats_done(struct rd_stats *st, const double *gbps)
{
	unsigned int i;
	double ss = 0;

	if (!st->runs)
		return;
	st->min = st->max = gbps[0];
	st->mean = 0;
	for (i = 0; i < st->runs; i++) {
		st->mean += gbps[i];
		if (gbps[i] < st->min)
			st->min = gbps[i];
		if (gbps[i] > st->max)
			st->max = gbps[i];
	}
	st->mean /= st->runs;
	st->reads_per_s_mean /= st->runs;
	for (i = 0; i < st->runs; i++)
		ss += (gbps[i] - st->mean) * (gbps[i] - st->mean);
	st->stddev = st->runs > 1 ? sqrt(ss / (st->runs - 1)) : 0;
	/* Rounding must not put the mean outside [min, max]. */
	if (st->mean < st->min)
		st->mean = st->min;
	if (st->mean > st->max)
		st->mean = st->max;
}

static void rd_json_summary(const struct rd_config *cfg, unsigned int repeat,
			    const struct rd_stats *st)
{
	rd_json_config("summary", cfg, repeat);
	rd_ju64("runs", st->runs);
	rd_ju64("failed_runs", st->failed);
	rd_jnum("gbps_mean", st->mean);
	rd_jnum("gbps_stddev", st->stddev);
	rd_jnum("gbps_min", st->min);
	rd_jnum("gbps_max", st->max);
	rd_jnum("reads_per_s_mean", st->reads_per_s_mean);
	rd_ju64("short_reads", st->short_reads);
	rd_jbool("verified", st->verified);
	rd_json_close();
}

/* ---- configurations ---- */

/*
 * rd_decide_verify - whether a run can check every byte, and why not.
 * Verification needs --touch all, known content, and buffers that no
 * other thread writes while this one checks.
 */
static bool rd_decide_verify(const struct rd_opts *o, const struct rd_config *cfg,
			     const char **note)
{
	const struct rd_source *src = cfg->src;
	bool overlap = cfg->threads > 1 &&
		       (cfg->buffer == RD_BUF_SHARED ||
			(cfg->buffer == RD_BUF_STRIDE && cfg->stride < cfg->chunk));

	if (o->verify == RD_VERIFY_OFF) {
		*note = "verification off (--verify off)";
		return false;
	}
	if (cfg->touch != RD_TOUCH_ALL) {
		*note = "only --touch all reads every byte";
		return false;
	}
	if (!src->known_content) {
		*note = src->content_note;
		return false;
	}
	if (overlap) {
		*note = "buffers overlap: other threads overwrite what a thread checks";
		return false;
	}
	*note = "every byte checked against the known content";
	return true;
}

static void rd_check_verify_on(const struct rd_opts *o, const struct rd_config *cfg)
{
	const char *note;

	if (o->verify == RD_VERIFY_ON && !rd_decide_verify(o, cfg, &note))
		rd_usage_error("--verify on: cannot verify %u threads, --buffer %s, --touch %s: %s",
			       cfg->threads, rd_buffer_names[cfg->buffer],
			       rd_touch_names[cfg->touch], note);
}

static void rd_print_source(const struct rd_opts *o, const struct rd_source *src)
{
	char b1[32];

	switch (src->kind) {
	case RD_SRC_MEMCPY:
		if (o->matrix)
			printf("# source: memcpy:VARIANT, userspace copy, no kernel; each thread its own %s source\n",
			       rd_bytes_str(b1, sizeof(b1), src->size));
		else
			printf("# source: memcpy:%s (%s), userspace copy, no kernel; each thread its own %s source\n",
			       src->variant, src->uvariant->desc,
			       rd_bytes_str(b1, sizeof(b1), src->size));
		break;
	case RD_SRC_MODULE:
		if (o->matrix)
			printf("# source: %s (%s), copybench.ko's read path, its 'variant' knob set per row and restored after\n",
			       src->path, rd_bytes_str(b1, sizeof(b1), src->size));
		else
			printf("# source: %s (%s), copybench.ko's read path, variant %s%s\n",
			       src->path, rd_bytes_str(b1, sizeof(b1), src->size),
			       src->variant, o->variant ? " (set for the run, restored after)" :
			       " (the knob's current value)");
		break;
	case RD_SRC_FILE:
		if (src->size)
			printf("# source: %s (%s), the running kernel's read path (%s), its own copy: variant native\n",
			       src->path, rd_bytes_str(b1, sizeof(b1), src->size),
			       src->seekable ? "pread" : "read");
		else
			printf("# source: %s (size unknown: read to end of file), the running kernel's read path (%s)\n",
			       src->path, src->seekable ? "pread" : "read");
		break;
	}
	printf("# content: %s\n", src->content_note);
}

static void rd_print_setup(const struct rd_opts *o, const struct rd_source *src)
{
	char cpus[256], b1[32];

	rd_print_source(o, src);
	printf("# chunk %s per read; %.3g s measured after %.3g s warm-up per run\n",
	       rd_bytes_str(b1, sizeof(b1), o->chunk), o->duration, o->warmup);
	if (o->pin)
		printf("# threads pinned round-robin over CPUs %s\n",
		       rd_cpu_list(cpus, sizeof(cpus)));
	else
		printf("# threads not pinned (--no-pin)\n");
}

static void rd_row_header(void)
{
	printf("# GB/s: 10^9 bytes/s of all threads over the measured interval;"
	       " thread GB/s: slowest-fastest thread;\n"
	       "# spread: (fastest - slowest) / fastest; short: short reads;"
	       " verified: every byte checked\n");
	printf("%7s  %-14s %-5s %-10s %7s %9s %12s %17s %7s %6s  %s\n",
	       "threads", "buffer", "touch", "variant", "run", "GB/s", "reads/s",
	       "thread GB/s", "spread", "short", "verified");
}

static void rd_row(const struct rd_config *cfg, const struct rd_result *r,
		   unsigned int run, unsigned int repeat)
{
	char buf[32], runs[16], range[40];

	snprintf(runs, sizeof(runs), "%u/%u", run, repeat);
	if (r->failed) {
		printf("%7u  %-14s %-5s %-10s %7s  FAILED: %s\n", cfg->threads,
		       rd_buffer_str(buf, sizeof(buf), cfg), rd_touch_names[cfg->touch],
		       cfg->src->variant, runs, r->error);
		return;
	}
	snprintf(range, sizeof(range), "%.2f-%.2f", r->thread_gbps_min,
		 r->thread_gbps_max);
	printf("%7u  %-14s %-5s %-10s %7s %9.2f %12.0f %17s %6.1f%% %6llu%s %s\n",
	       cfg->threads, rd_buffer_str(buf, sizeof(buf), cfg),
	       rd_touch_names[cfg->touch], cfg->src->variant, runs, r->gbps,
	       r->reads_per_s, range, 100 * rd_spread(r),
	       (unsigned long long)r->short_reads, r->short_reads ? "!" : " ",
	       r->verified ? "yes" : "no");
}

/*
 * rd_run_config - the runs of one configuration, reported as they finish.
 * Returns the stats; *short_seen and *failed_seen accumulate.
 */
static struct rd_stats rd_run_config(const struct rd_opts *o, struct rd_config *cfg,
				     const struct rd_sums *sums, bool print_rows)
{
	double *gbps = calloc(o->repeat, sizeof(*gbps));
	struct rd_stats st = { 0 };
	char buf[32];
	struct rd_result r;
	const char *note;
	unsigned int run;

	if (!gbps) {
		fprintf(stderr, "readers: out of memory\n");
		exit(RD_EXIT_ERROR);
	}
	cfg->verify = rd_decide_verify(o, cfg, &note);
	for (run = 1; run <= o->repeat && !atomic_load(&rd_interrupted); run++) {
		int ret = rd_run(cfg, cfg->verify ? sums : NULL, &r);

		if (ret) {
			memset(&r, 0, sizeof(r));
			r.failed = true;
			snprintf(r.error, sizeof(r.error), "cannot start the run: %s",
				 strerror(-ret));
		}
		rd_stats_add(&st, &r, gbps);
		if (o->json)
			rd_json_run(cfg, &r, run, o->repeat, note);
		else if (print_rows)
			rd_row(cfg, &r, run, o->repeat);
		if (r.failed && !o->json)
			fprintf(stderr, "readers: error: %s\n", r.error);
	}
	rd_stats_done(&st, gbps);
	if (o->json)
		rd_json_summary(cfg, o->repeat, &st);
	else if (print_rows && o->repeat > 1 && st.runs)
		printf("# %u thread%s, %s, touch %s: mean %.2f GB/s, stddev %.2f, min %.2f, max %.2f (%u runs)\n",
		       cfg->threads, cfg->threads > 1 ? "s" : "",
		       rd_buffer_str(buf, sizeof(buf), cfg),
		       rd_touch_names[cfg->touch], st.mean, st.stddev, st.min,
		       st.max, st.runs);
	free(gbps);
	return st;
}

static void rd_config_init(const struct rd_opts *o, struct rd_config *cfg,
			   struct rd_source *src, unsigned int threads)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->src = src;
	cfg->threads = threads;
	cfg->pin = o->pin;
	cfg->buffer = o->buffer;
	cfg->stride = o->stride;
	cfg->touch = o->touch;
	cfg->chunk = o->chunk;
	cfg->duration_s = o->duration;
	cfg->warmup_s = o->warmup;
	cfg->corrupt_at = src->kind == RD_SRC_MEMCPY ? o->corrupt : -1;
}

static int rd_build_sums(const struct rd_opts *o, const struct rd_source *src,
			 struct rd_sums *sums)
{
	int ret;

	memset(sums, 0, sizeof(*sums));
	if (!src->known_content || !src->size || o->verify == RD_VERIFY_OFF)
		return 0;
	ret = rd_sums_build(sums, src->size, o->chunk);
	if (ret)
		fprintf(stderr, "readers: cannot build the expected checksums: %s\n",
			strerror(-ret));
	return ret;
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

/* ---- the matrix ---- */

struct rd_matrix_variant {
	char name[RD_NAME_MAX];
	struct rd_source src;
	struct rd_stats cell[2][2];	/* [buffer shared/private][touch none/all] */
};

/* A variant asked for that cannot run here, and why: said in the output. */
struct rd_matrix_skip {
	char name[RD_NAME_MAX];
	char why[512];
};

static struct rd_matrix_skip rd_skipped[RD_MATRIX_VARIANTS_MAX];
static int rd_nskipped;

static const enum rd_buffer_kind rd_mx_buffers[2] = { RD_BUF_SHARED, RD_BUF_PRIVATE };
static const enum rd_touch rd_mx_touches[2] = { RD_TOUCH_NONE, RD_TOUCH_ALL };

/*
 * rd_matrix_variants - the variants the matrix can run on this source;
 * each one asked for that cannot run goes to rd_skipped.
 */
static int rd_matrix_variants(const struct rd_opts *o, const struct rd_source *base,
			      struct rd_matrix_variant *mv)
{
	char list[512], *tok, *save, err[512];
	char mod_names[RD_MATRIX_VARIANTS_MAX][RD_NAME_MAX];
	bool mod_usable[RD_MATRIX_VARIANTS_MAX];
	int n = 0, nmod = 0, i;

	if (base->kind == RD_SRC_FILE) {
		snprintf(mv[0].name, RD_NAME_MAX, "%s", CB_NATIVE_NAME);
		mv[0].src = *base;
		return 1;
	}
	if (base->kind == RD_SRC_MODULE) {
		nmod = rd_module_variants(mod_names, mod_usable, RD_MATRIX_VARIANTS_MAX);
		if (nmod < 0) {
			fprintf(stderr, "readers: cannot read %s: %s\n", RD_VARIANTS_LIST,
				strerror(-nmod));
			return -1;
		}
	}
	snprintf(list, sizeof(list), "%s", o->variants ? o->variants : RD_MATRIX_DEFAULT);
	for (tok = strtok_r(list, ",", &save); tok && n < RD_MATRIX_VARIANTS_MAX;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *why = NULL;

		if (base->kind == RD_SRC_MEMCPY) {
			char spec[RD_NAME_MAX + 8];
			const struct cb_variant *v = cb_variant_find(tok);

			if (!v)
				why = "not in this build of the variants";
			else if (!cb_variant_usable(v))
				why = "unusable on this CPU";
			snprintf(spec, sizeof(spec), "memcpy:%s", tok);
			if (!why && rd_source_open(&mv[n].src, spec, err, sizeof(err)))
				why = err;
			if (!why)
				mv[n].src.size = o->size_set ? o->size : o->chunk;
		} else {
			why = "not listed in " RD_VARIANTS_LIST;
			for (i = 0; i < nmod; i++) {
				if (strcmp(mod_names[i], tok))
					continue;
				why = mod_usable[i] ? NULL : "unusable on this CPU (module)";
				break;
			}
			if (!why) {
				mv[n].src = *base;
				snprintf(mv[n].src.variant, RD_NAME_MAX, "%s", tok);
			}
		}
		if (why) {
			struct rd_matrix_skip *sk = &rd_skipped[rd_nskipped++];

			snprintf(sk->name, sizeof(sk->name), "%s", tok);
			snprintf(sk->why, sizeof(sk->why), "%s", why);
			continue;
		}
		snprintf(mv[n].name, RD_NAME_MAX, "%s", tok);
		n++;
	}
	return n;
}

static const char *rd_cell_str(char *buf, size_t len, const struct rd_stats *st,
			       unsigned int repeat)
{
	if (!st->runs)
		snprintf(buf, len, "FAILED");
	else if (repeat > 1)
		snprintf(buf, len, "%.2f +- %.2f%s%s", st->mean, st->stddev,
			 st->verified ? "*" : " ", st->short_reads ? "!" : " ");
	else
		snprintf(buf, len, "%.2f%s%s", st->mean, st->verified ? "*" : " ",
			 st->short_reads ? "!" : " ");
	return buf;
}

/* Best and runner-up of one column of the matrix. */
static int rd_matrix_best(const struct rd_matrix_variant *mv, int n, int b, int t,
			  int *second)
{
	int best = -1, i;

	*second = -1;
	for (i = 0; i < n; i++) {
		const struct rd_stats *st = &mv[i].cell[b][t];

		if (!st->runs)
			continue;
		if (best < 0 || st->mean > mv[best].cell[b][t].mean) {
			*second = best;
			best = i;
		} else if (*second < 0 || st->mean > mv[*second].cell[b][t].mean) {
			*second = i;
		}
	}
	return best;
}

/*
 * A win is "within noise" when the two best cells' ranges over their runs
 * (min..max) overlap: another run could have ordered them the other way.
 */
static bool rd_within_noise(const struct rd_stats *a, const struct rd_stats *b)
{
	return a->runs > 1 && b->runs > 1 && a->min <= b->max && b->min <= a->max;
}

static void rd_verdict_line(const struct rd_matrix_variant *mv, int n, int b, int t,
			    const char *what)
{
	int second, best = rd_matrix_best(mv, n, b, t, &second);
	const struct rd_stats *w, *r;

	if (best < 0) {
		printf("# verdict: %s: no cell ran\n", what);
		return;
	}
	w = &mv[best].cell[b][t];
	printf("# verdict: %s: %s wins, %.2f GB/s", what, mv[best].name, w->mean);
	if (second < 0) {
		printf(" (the only variant on this source)\n");
		return;
	}
	r = &mv[second].cell[b][t];
	printf(" (next: %s %.2f GB/s, %+.0f%%%s)\n", mv[second].name, r->mean,
	       100 * (r->mean / w->mean - 1),
	       rd_within_noise(w, r) ? "; their runs overlap: within noise" : "");
}

static void rd_matrix_print(const struct rd_opts *o, struct rd_matrix_variant *mv,
			    int n, unsigned int threads)
{
	int w = o->repeat > 1 ? 20 : 12;
	int v, t, s_best, p_best, s_next, p_next;
	bool noisy;
	char c1[48], c2[48];

	printf("#\n# matrix at %u threads: GB/s%s\n", threads,
	       o->repeat > 1 ? " mean +- stddev" : "");
	printf("# ratio = shared / private (below 1: sharing the buffer costs)\n");
	printf("# * every byte verified   ! short reads\n");
	printf("%-10s %-5s %*s %*s %15s\n", "variant", "touch", w, "shared GB/s",
	       w, "private GB/s", "shared/private");
	for (v = 0; v < n; v++) {
		for (t = 0; t < 2; t++) {
			const struct rd_stats *sh = &mv[v].cell[0][t];
			const struct rd_stats *pr = &mv[v].cell[1][t];

			printf("%-10s %-5s %*s %*s", mv[v].name,
			       rd_touch_names[rd_mx_touches[t]],
			       w, rd_cell_str(c1, sizeof(c1), sh, o->repeat),
			       w, rd_cell_str(c2, sizeof(c2), pr, o->repeat));
			if (sh->runs && pr->runs && pr->mean > 0)
				printf(" %15.2f\n", sh->mean / pr->mean);
			else
				printf(" %15s\n", "-");
		}
	}
	rd_verdict_line(mv, n, 0, 0, "shared buffer, untouched (blogbench 1.1)");
	rd_verdict_line(mv, n, 1, 1, "private buffers, every byte touched");
	s_best = rd_matrix_best(mv, n, 0, 0, &s_next);
	p_best = rd_matrix_best(mv, n, 1, 1, &p_next);
	if (s_best < 0 || p_best < 0 || n < 2)
		return;
	noisy = (s_next >= 0 && rd_within_noise(&mv[s_best].cell[0][0],
						&mv[s_next].cell[0][0])) ||
		(p_next >= 0 && rd_within_noise(&mv[p_best].cell[1][1],
						&mv[p_next].cell[1][1]));
	if (s_best != p_best)
		printf("# verdict: they disagree: a shared, never-read buffer picks %s; threads that read their own data run fastest with %s\n",
		       mv[s_best].name, mv[p_best].name);
	else
		printf("# verdict: they agree: %s wins both\n", mv[s_best].name);
	if (noisy)
		printf("# verdict: a winner is within noise: rerun with a longer --duration or more --repeat\n");
}

static void rd_matrix_json(struct rd_matrix_variant *mv, int n, unsigned int threads)
{
	int s2, p2, s = rd_matrix_best(mv, n, 0, 0, &s2);
	int p = rd_matrix_best(mv, n, 1, 1, &p2);
	int v, t;

	rd_json_open();
	rd_jstr("type", "verdict");
	rd_ju64("threads", threads);
	rd_jstr("shared_none_winner", s >= 0 ? mv[s].name : NULL);
	rd_jnum("shared_none_gbps", s >= 0 ? mv[s].cell[0][0].mean : 0);
	rd_jstr("private_all_winner", p >= 0 ? mv[p].name : NULL);
	rd_jnum("private_all_gbps", p >= 0 ? mv[p].cell[1][1].mean : 0);
	rd_jbool("agree", s >= 0 && s == p);
	rd_jkey("ratios");
	putchar('[');
	for (v = 0; v < n; v++) {
		for (t = 0; t < 2; t++) {
			const struct rd_stats *sh = &mv[v].cell[0][t];
			const struct rd_stats *pr = &mv[v].cell[1][t];

			if (v || t)
				putchar(',');
			rd_json_open();
			rd_jstr("variant", mv[v].name);
			rd_jstr("touch", rd_touch_names[rd_mx_touches[t]]);
			if (sh->runs && pr->runs && pr->mean > 0)
				rd_jnum("shared_private", sh->mean / pr->mean);
			else
				rd_jnull("shared_private");
			putchar('}');
		}
	}
	putchar(']');
	rd_json_first = false;
	rd_jkey("skipped");
	putchar('[');
	for (v = 0; v < rd_nskipped; v++) {
		if (v)
			putchar(',');
		rd_json_open();
		rd_jstr("variant", rd_skipped[v].name);
		rd_jstr("reason", rd_skipped[v].why);
		putchar('}');
	}
	putchar(']');
	rd_json_close();
}

static void rd_matrix_notes(FILE *f, const struct rd_source *base)
{
	int i;

	if (base->kind == RD_SRC_FILE)
		fprintf(f, "# variants: a file's read path is the running kernel's own copy: native only\n");
	for (i = 0; i < rd_nskipped; i++)
		fprintf(f, "# variant %s: skipped, %s\n", rd_skipped[i].name,
			rd_skipped[i].why);
}

static int rd_matrix(const struct rd_opts *o, struct rd_source *base)
{
	struct rd_matrix_variant *mv;
	bool failed = false, shorts = false;
	unsigned int ti;
	int n, v, b, t, ret = RD_EXIT_OK;

	mv = calloc(RD_MATRIX_VARIANTS_MAX, sizeof(*mv));
	if (!mv)
		return RD_EXIT_ERROR;
	n = rd_matrix_variants(o, base, mv);
	if (n <= 0) {
		fprintf(stderr, "readers: --matrix: no variant can run on this source\n");
		rd_matrix_notes(stderr, base);
		free(mv);
		return RD_EXIT_ERROR;
	}
	if (!o->json) {
		rd_print_setup(o, &mv[0].src);
		printf("# matrix: variant x buffer {shared, private} x touch {none, all}, %u run%s per cell\n",
		       o->repeat, o->repeat > 1 ? "s" : "");
		rd_matrix_notes(stdout, base);
	}

	for (ti = 0; ti < o->nthreads && !atomic_load(&rd_interrupted); ti++) {
		for (v = 0; v < n && !atomic_load(&rd_interrupted); v++) {
			struct rd_sums sums;
			char err[512];

			if (mv[v].src.kind == RD_SRC_MODULE &&
			    rd_variant_set(mv[v].name, err, sizeof(err))) {
				fprintf(stderr, "readers: %s\n", err);
				failed = true;
				memset(mv[v].cell, 0, sizeof(mv[v].cell));
				continue;
			}
			if (rd_build_sums(o, &mv[v].src, &sums)) {
				ret = RD_EXIT_ERROR;
				goto out;
			}
			for (b = 0; b < 2; b++) {
				for (t = 0; t < 2; t++) {
					struct rd_config cfg;
					struct rd_stats *st = &mv[v].cell[b][t];

					rd_config_init(o, &cfg, &mv[v].src, o->threads[ti]);
					cfg.buffer = rd_mx_buffers[b];
					cfg.touch = rd_mx_touches[t];
					*st = rd_run_config(o, &cfg, &sums, false);
					failed |= st->failed > 0;
					shorts |= st->short_reads > 0;
				}
			}
			rd_sums_free(&sums);
		}
		if (atomic_load(&rd_interrupted))
			break;
		if (o->json)
			rd_matrix_json(mv, n, o->threads[ti]);
		else
			rd_matrix_print(o, mv, n, o->threads[ti]);
	}
	if (shorts && !o->json)
		printf("# WARNING: short reads in the cells marked '!'\n");
	if (failed || atomic_load(&rd_interrupted))
		ret = RD_EXIT_ERROR;
	else if (shorts && !o->allow_short)
		ret = RD_EXIT_SHORT;
out:
	free(mv);
	return ret;
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
	char err[1024];
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rd_cpus_init();
	if (ret) {
		fprintf(stderr, "readers: cannot list this process's CPUs: %s\n",
			strerror(-ret));
		return RD_EXIT_ERROR;
	}
	rd_parse_args(&o, argc, argv);

	if (o.fill) {
		uint64_t size = o.size_set ? o.size : RD_FILL_DEFAULT;

		if (o.corrupt >= 0 && (uint64_t)o.corrupt >= size)
			rd_usage_error("invalid --corrupt '%lld': the file has %llu bytes",
				       (long long)o.corrupt, (unsigned long long)size);
		ret = rd_fill_file(o.fill, size, o.corrupt);
		if (ret) {
			fprintf(stderr, "readers: --fill %s: %s\n", o.fill, strerror(-ret));
			return RD_EXIT_ERROR;
		}
		if (!o.json)
			printf("# wrote %llu bytes of the known content to %s%s\n",
			       (unsigned long long)size, o.fill,
			       o.corrupt >= 0 ? " (one byte flipped)" : "");
		return RD_EXIT_OK;
	}

	if (!o.source) {
		if (!rd_module_present())
			rd_usage_error("no --source and copybench.ko's data file %s is absent: pass --source FILE (e.g. a tmpfs file made with --fill) or --source memcpy:VARIANT",
				       RD_DATA_PATH);
		o.source = RD_DATA_PATH;
	}
	ret = rd_source_open(&src, o.source, err, sizeof(err));
	if (ret) {
		if (ret == RD_EXIT_USAGE)
			rd_usage_error("%s", err);
		fprintf(stderr, "readers: %s\n", err);
		return ret;
	}
	if (src.kind == RD_SRC_MEMCPY)
		src.size = o.size_set ? o.size : o.chunk;
	if (!o.nthreads) {
		o.threads[0] = rd_cpu_count() < 2 ? 2 : rd_cpu_count();
		o.nthreads = 1;
	}
	rd_check_opts(&o, &src);

	atexit(rd_variant_restore);
	rd_signals_init();
	if (src.kind == RD_SRC_MODULE && o.variant) {
		ret = rd_variant_set(o.variant, err, sizeof(err));
		if (ret) {
			rd_variant_restore();
			if (ret == -EINVAL || ret == -EOPNOTSUPP)
				rd_usage_error("invalid --variant '%s': %s", o.variant, err);
			fprintf(stderr, "readers: %s\n", err);
			return RD_EXIT_ERROR;
		}
		snprintf(src.variant, sizeof(src.variant), "%s", o.variant);
	}

	ret = o.matrix ? rd_matrix(&o, &src) : rd_series(&o, &src);
	rd_variant_restore();
	if (atomic_load(&rd_signal_seen)) {
		fprintf(stderr, "readers: stopped by signal %d\n",
			atomic_load(&rd_signal_seen));
		return 128 + atomic_load(&rd_signal_seen);
	}
	return ret;
}
