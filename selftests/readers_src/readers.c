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
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cb_options.h"
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

/*
 * ---- parsing: one function per kind of value, each naming the option;
 * 0, or -1 with e saying why (CB_EXIT_USAGE) ----
 */

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
static int rd_parse_bytes_in(const char *opt, const char *text, const char *num, uint64_t min,
			     uint64_t max, uint64_t *val, struct cb_error *e)
{
	char lo[32], hi[32];
	uint64_t v;
	int ret = rd_bytes_value(num, &v);

	if (ret == -EINVAL)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --%s '%s': expected a byte count, digits with an optional K, M or G suffix (1024-based)",
			       opt, text);
	if (ret || v < min || v > max)
		return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s': must be %s..%s", opt, text,
			       rd_bytes_str(lo, sizeof(lo), min), rd_bytes_str(hi, sizeof(hi), max));
	*val = v;
	return 0;
}

static int rd_parse_count(const char *opt, const char *s, unsigned int min, unsigned int max,
			  unsigned int *val, struct cb_error *e)
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
		return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s': must be %u..%u", opt, s,
			       min, max);
	*val = v;
	return 0;
bad:
	return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s': expected a whole number %u..%u",
		       opt, s, min, max);
}

/* SECONDS: a decimal number, optionally followed by 's' or 'ms'. */
static int rd_parse_seconds(const char *opt, const char *s, double min, double max,
			    double *val, struct cb_error *e)
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
		return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s': must be %g..%g seconds",
			       opt, s, min, max);
	*val = v;
	return 0;
bad:
	return cb_fail(e, CB_EXIT_USAGE,
		       "invalid --%s '%s': expected seconds, e.g. 2, 0.5 or 250ms", opt, s);
}

/* The index of s in names[n]. */
static int rd_parse_name(const char *opt, const char *s, const char *const *names,
			 unsigned int n, struct cb_error *e)
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
	return cb_fail(e, CB_EXIT_USAGE, "invalid --%s '%s': accepted values: %s", opt, s, list);
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

/*
 * ---- the options' callbacks (the engine's CB_OPT_CALLBACK): field is the
 * option's field of struct rd_opts ----
 */

/* The struct rd_opts whose member is at field. */
#define rd_opts_of(field, member)					\
	((struct rd_opts *)((char *)(field) - offsetof(struct rd_opts, member)))

static int rd_opt_threads(void *field, const char *s, struct cb_error *e)
{
	struct rd_opts *o = rd_opts_of(field, threads);
	char buf[512], *tok, *save;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf) || !*s || s[0] == ',' ||
	    s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == RD_THREADS_LIST_MAX)
			return cb_fail(e, CB_EXIT_USAGE, "invalid --threads '%s': at most %d counts",
				       s, RD_THREADS_LIST_MAX);
		if (!strcmp(tok, "max")) {
			o->threads[n++] = rd_cpu_count();
			continue;
		}
		if (!isdigit((unsigned char)tok[0]))
			goto bad;
		if (rd_parse_count("threads", tok, 1, RD_THREADS_MAX, &o->threads[n++], e))
			return -1;
	}
	o->nthreads = rd_threads_dedup(s, o->threads, n);
	return 0;
bad:
	return cb_fail(e, CB_EXIT_USAGE,
		       "invalid --threads '%s': expected a count 1..%d or 'max', or a comma-separated list of them",
		       s, RD_THREADS_MAX);
}

static int rd_opt_buffer(void *field, const char *s, struct cb_error *e)
{
	struct rd_opts *o = rd_opts_of(field, buffer);

	if (!strncmp(s, "stride:", 7)) {
		o->buffer = RD_BUF_STRIDE;
		return rd_parse_bytes_in("buffer", s, s + 7, 0, RD_STRIDE_MAX, &o->stride, e);
	}
	if (!strcmp(s, "shared")) {
		o->buffer = RD_BUF_SHARED;
		return 0;
	}
	if (!strcmp(s, "private")) {
		o->buffer = RD_BUF_PRIVATE;
		return 0;
	}
	return cb_fail(e, CB_EXIT_USAGE,
		       "invalid --buffer '%s': accepted values: shared, private, stride:BYTES", s);
}

static int rd_opt_chunk(void *field, const char *s, struct cb_error *e)
{
	return rd_parse_bytes_in("chunk", s, s, 1, RD_CHUNK_MAX, field, e);
}

static int rd_opt_size(void *field, const char *s, struct cb_error *e)
{
	return rd_parse_bytes_in("size", s, s, 1, RD_SIZE_MAX, field, e);
}

static int rd_opt_corrupt(void *field, const char *s, struct cb_error *e)
{
	uint64_t v;

	if (rd_parse_bytes_in("corrupt", s, s, 0, RD_SIZE_MAX - 1, &v, e))
		return -1;
	*(int64_t *)field = (int64_t)v;
	return 0;
}

static int rd_opt_touch(void *field, const char *s, struct cb_error *e)
{
	int i = rd_parse_name("touch", s, rd_touch_names, RD_TOUCH_ALL + 1, e);

	if (i < 0)
		return -1;
	*(enum rd_touch *)field = i;
	return 0;
}

static int rd_opt_verify(void *field, const char *s, struct cb_error *e)
{
	int i = rd_parse_name("verify", s, rd_verify_names, ARRAY_SIZE(rd_verify_names), e);

	if (i < 0)
		return -1;
	*(enum rd_verify *)field = i;
	return 0;
}

static int rd_opt_duration(void *field, const char *s, struct cb_error *e)
{
	return rd_parse_seconds("duration", s, 0.001, RD_DURATION_MAX, field, e);
}

static int rd_opt_warmup(void *field, const char *s, struct cb_error *e)
{
	return rd_parse_seconds("warmup", s, 0, RD_DURATION_MAX, field, e);
}

static int rd_opt_repeat(void *field, const char *s, struct cb_error *e)
{
	return rd_parse_count("repeat", s, 1, RD_REPEAT_MAX, field, e);
}

static int rd_opt_help(void *field, const char *s, struct cb_error *e);

/* ---- the options: each declared once, in rd_options[] ---- */

/* Every option of readers, in --help's order. */
static const struct cb_option rd_options[] = {
	CB_OPT_STRING("source", 's', struct rd_opts, source, "SPEC",
	  "what the threads read: a PATH (pread() through the running kernel,\n"
	  "e.g. a tmpfs file), copybench.ko's data file, the default when it\n"
	  "exists (" RD_DATA_PATH "), or memcpy:VARIANT\n"
	  "(each thread copies from its own buffer with the userspace VARIANT;\n"
	  "plain 'memcpy' is memcpy:native)"),
	CB_OPT_STRING("variant", 'v', struct rd_opts, variant, "NAME",
	  "with the module's data file: set its 'variant' knob for the run and\n"
	  "restore it after (also on error or signal); default: as it is"),
	CB_OPT_CALLBACK("threads", 't', struct rd_opts, threads, required_argument,
			rd_opt_threads, "LIST",
	  "thread counts, one run series each: N, 'max' (the CPUs this process\n"
	  "may use) or a list such as 1,2,4,max (a count listed twice runs\n"
	  "once); default: max, at least 2"),
	CB_OPT_FLAG("no-pin", 0, struct rd_opts, no_pin,
	  "do not pin threads (default: pinned round-robin over the CPUs)"),
	CB_OPT_CALLBACK("buffer", 'b', struct rd_opts, buffer, required_argument,
			rd_opt_buffer, "KIND",
	  "where reads land: shared (one buffer for every thread, blogbench\n"
	  "1.1), private (a page-aligned buffer per thread, allocated and\n"
	  "first touched by it) or stride:BYTES (per-thread buffers BYTES apart\n"
	  "in one allocation: 0 shared, 64 a line apart, 4096 a page);\n"
	  "default: private"),
	CB_OPT_CALLBACK("chunk", 'c', struct rd_opts, chunk, required_argument,
			rd_opt_chunk, "BYTES",
	  "bytes per read; K, M, G suffixes (1024-based); default: 65536;\n"
	  "one larger than the source reads the whole source (with a warning)"),
	CB_OPT_CALLBACK("touch", 'T', struct rd_opts, touch, required_argument,
			rd_opt_touch, "POLICY",
	  "what a thread does with each read: none (blogbench 1.1), line (one\n"
	  "load per 64-byte line), page (one load per page) or all (every byte,\n"
	  "verified when the content is known); default: all"),
	CB_OPT_CALLBACK("duration", 'd', struct rd_opts, duration, required_argument,
			rd_opt_duration, "SECONDS",
	  "measured time per run, in seconds ('ms' suffix for milliseconds);\n"
	  "default: 2"),
	CB_OPT_CALLBACK("warmup", 'w', struct rd_opts, warmup, required_argument,
			rd_opt_warmup, "SECONDS",
	  "unmeasured reading before each run; default: 0.5"),
	CB_OPT_CALLBACK("repeat", 'r', struct rd_opts, repeat, required_argument,
			rd_opt_repeat, "N",
	  "runs per configuration, reported with mean, stddev, min, max;\n"
	  "1..1000, default: 1"),
	CB_OPT_CALLBACK("size", 0, struct rd_opts, size, required_argument,
			rd_opt_size, "BYTES",
	  "memcpy: each thread's source size (default: the chunk, so the copy\n"
	  "reads from cache); --fill: the file's size (default: 64M)"),
	CB_OPT_CALLBACK("verify", 0, struct rd_opts, verify, required_argument,
			rd_opt_verify, "MODE",
	  "auto (verify with --touch all when the content is known and the\n"
	  "buffers do not overlap), on (refuse to run otherwise) or off;\n"
	  "default: auto"),
	CB_OPT_FLAG("allow-short", 0, struct rd_opts, allow_short,
	  "exit 0 despite short reads (default: exit 3; they are always\n"
	  "counted and flagged)"),
	CB_OPT_FLAG("json", 'j', struct rd_opts, json,
	  "print one JSON object per line (runs, summaries, the matrix verdict)\n"
	  "instead of tables"),
	CB_OPT_FLAG("matrix", 'm', struct rd_opts, matrix,
	  "run variant x buffer {shared, private} x touch {none, all} at the\n"
	  "thread counts of --threads, print the table and a verdict"),
	CB_OPT_STRING("variants", 0, struct rd_opts, variants, "LIST",
	  "the matrix's variants, those of them that exist and are usable;\n"
	  "default: " RD_MATRIX_DEFAULT),
	CB_OPT_STRING("fill", 0, struct rd_opts, fill, "PATH",
	  "write --size bytes of the known content to PATH and exit"),
	CB_OPT_CALLBACK("corrupt", 0, struct rd_opts, corrupt, required_argument,
			rd_opt_corrupt, "OFFSET",
	  "flip the byte at OFFSET of the known content (in the file --fill\n"
	  "writes, or in every memcpy source) to prove the verifier fails"),
	CB_OPT_CALLBACK("help", 'h', struct rd_opts, help, no_argument, rd_opt_help, NULL,
	  "this text"),
	CB_OPT_END(),
};

static const struct cb_option *const rd_tables[] = { rd_options, NULL };

static void rd_help(void)
{
	printf("Usage: readers [OPTION]...\n"
	       "Parallel reads of CHUNK bytes into shared, private or strided buffers,\n"
	       "timed, checked for short reads, and verified byte by byte when the\n"
	       "content is known. GB/s are 10^9 bytes per second. The manual is\n"
	       "the copybench documentation's chapter on readers.\n\n"
	       "Options:\n");
	cb_options_help(stdout, rd_tables, CB_HELP_BELOW);
	printf("\nA value that starts with '-' goes after '=': --source=-file.\n");
	printf("\nExit status: 0 done; 1 error or a verification mismatch; 2 bad usage;\n"
	       "3 short reads (without --allow-short).\n");
}

/*
 * --help prints the help where it stands and exits: "readers ARGS --help"
 * checks ARGS (scripts/bench does so), "readers --help ARGS" does not.
 */
static int rd_opt_help(void *field, const char *s, struct cb_error *e)
{
	rd_help();
	exit(RD_EXIT_OK);
}

/*
 * The command line into o: the engine (lib/cb_options.h) parses, names a
 * missing, unknown or option-looking value, and calls the callbacks above;
 * a refusal is "readers: MESSAGE", exit status 2.
 */
static void rd_parse_args(struct rd_opts *o, int argc, char **argv)
{
	struct cb_error e = { 0 };
	struct cb_given given;
	int first;

	first = cb_options_parse(argc, argv, rd_tables, o, &given, &e);
	if (first < 0)
		rd_usage_error("%s", e.msg);
	if (first < argc)
		rd_usage_error("unexpected argument '%s' (options only)", argv[first]);
	o->buffer_set = cb_option_given(rd_tables, &given, "buffer");
	o->touch_set = cb_option_given(rd_tables, &given, "touch");
	o->size_set = cb_option_given(rd_tables, &given, "size");
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

	cb_prog = "readers";
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
