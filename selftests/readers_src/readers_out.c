// SPDX-License-Identifier: GPL-2.0
/*
 * readers_out.c - what readers prints: the names of its choices, the
 * human table (# comment lines, one row per run), JSON lines (one object
 * per run, per configuration's summary, per matrix verdict; the fields are
 * in Documentation/readers.rst) and the statistics over --repeat runs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "readers.h"

const char *const rd_buffer_names[] = { "shared", "private", "stride" };
const char *const rd_touch_names[] = { "none", "line", "page", "all" };
const char *const rd_kind_names[] = { "memcpy", "module", "file" };

const char *rd_bytes_str(char *buf, size_t len, uint64_t v)
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

const char *rd_buffer_str(char *buf, size_t len, const struct rd_config *cfg)
{
	if (cfg->buffer == RD_BUF_STRIDE)
		snprintf(buf, len, "stride:%llu", (unsigned long long)cfg->stride);
	else
		snprintf(buf, len, "%s", rd_buffer_names[cfg->buffer]);
	return buf;
}

/* readers' numbers in JSON: 10 significant digits, null when not finite. */
void rd_jnum(struct cb_jw *w, const char *key, double v)
{
	cb_jw_g_field(w, key, 10, v);
}

static bool rd_json_failed;

void rd_json_end(struct cb_jw *w)
{
	if (!cb_jw_end(w) || rd_json_failed)
		return;
	fprintf(stderr, "readers: writing the JSON lines: %s\n", strerror(errno));
	rd_json_failed = true;
}

bool rd_json_ok(void)
{
	return !rd_json_failed;
}

/* The fields every JSON object of a configuration carries. */
static void rd_json_config(struct cb_jw *w, const char *type, const struct rd_config *cfg,
			   unsigned int repeat)
{
	const struct rd_source *src = cfg->src;

	cb_jw_begin_object(w);
	cb_jw_str_field(w, "type", type);
	cb_jw_str_field(w, "source", rd_kind_names[src->kind]);
	cb_jw_str_field(w, "path", src->kind == RD_SRC_MEMCPY ? NULL : src->path);
	cb_jw_str_field(w, "variant", src->variant);
	cb_jw_u64_field(w, "threads", cfg->threads);
	cb_jw_bool_field(w, "pinned", cfg->pin);
	cb_jw_str_field(w, "buffer", rd_buffer_names[cfg->buffer]);
	if (cfg->buffer == RD_BUF_PRIVATE)
		cb_jw_null_field(w, "stride");
	else
		cb_jw_u64_field(w, "stride", cfg->buffer == RD_BUF_STRIDE ? cfg->stride : 0);
	cb_jw_str_field(w, "touch", rd_touch_names[cfg->touch]);
	cb_jw_u64_field(w, "chunk", cfg->chunk);
	cb_jw_u64_field(w, "size", src->size);
	rd_jnum(w, "warmup_s", cfg->warmup_s);
	cb_jw_u64_field(w, "repeat", repeat);
}

static double rd_spread(const struct rd_result *r)
{
	return r->thread_gbps_max > 0 ?
	       (r->thread_gbps_max - r->thread_gbps_min) / r->thread_gbps_max : 0;
}

void rd_json_run(const struct rd_config *cfg, const struct rd_result *r,
			unsigned int run, unsigned int repeat, const char *note)
{
	struct cb_jw w;

	cb_jw_init(&w, stdout);
	rd_json_config(&w, "run", cfg, repeat);
	cb_jw_u64_field(&w, "run", run);
	rd_jnum(&w, "duration_s", r->interval_s);
	cb_jw_u64_field(&w, "bytes", r->bytes);
	cb_jw_u64_field(&w, "reads", r->reads);
	cb_jw_u64_field(&w, "bytes_per_read", r->reads ? r->bytes / r->reads : 0);
	rd_jnum(&w, "gbps", r->gbps);
	rd_jnum(&w, "reads_per_s", r->reads_per_s);
	rd_jnum(&w, "thread_gbps_min", r->thread_gbps_min);
	rd_jnum(&w, "thread_gbps_max", r->thread_gbps_max);
	rd_jnum(&w, "spread", rd_spread(r));
	cb_jw_u64_field(&w, "short_reads", r->short_reads);
	cb_jw_u64_field(&w, "eof_reads", r->eof_reads);
	cb_jw_bool_field(&w, "verified", r->verified);
	cb_jw_str_field(&w, "verify_note", note);
	cb_jw_bool_field(&w, "failed", r->failed);
	cb_jw_str_field(&w, "error", r->failed ? r->error : NULL);
	cb_jw_end_object(&w);
	rd_json_end(&w);
}


void rd_stats_add(struct rd_stats *st, const struct rd_result *r,
			 double *gbps)
{
	if (!st->runs && !st->failed)
		st->verified = true;
	if (r->failed) {
		if (!st->failed)
			snprintf(st->error, sizeof(st->error), "%s", r->error);
		st->failed++;
		st->verified = false;
		return;
	}
	gbps[st->runs++] = r->gbps;
	st->reads_per_s_mean += r->reads_per_s;
	st->short_reads += r->short_reads;
	st->verified &= r->verified;
}

void rd_stats_done(struct rd_stats *st, const double *gbps)
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

/*
 * rd_ratio_contradicts - whether a shared/private ratio is one the
 * mechanism cannot produce. Threads writing one destination take its lines
 * from each other's caches: sharing costs, or costs nothing when the copy
 * keeps no lines (non-temporal stores), so the ratio is at most 1. Above
 * 1 + RD_NOISE_FLOOR is beyond noise when the cells' runs do not overlap
 * (min..max), or, with one run each, by that floor alone.
 */
bool rd_ratio_contradicts(const struct rd_stats *shared,
			  const struct rd_stats *priv)
{
	if (!shared->runs || !priv->runs || priv->mean <= 0 ||
	    shared->mean / priv->mean <= 1 + RD_NOISE_FLOOR)
		return false;
	return shared->runs == 1 || priv->runs == 1 || shared->min > priv->max;
}

/* The warning for a ratio rd_ratio_contradicts() flags: what and why. */
void rd_ratio_warn(FILE *f, const char *variant, const char *touch,
		   const struct rd_stats *shared, const struct rd_stats *priv)
{
	bool one = shared->runs == 1 || priv->runs == 1;

	fprintf(f, "# WARNING: %s, touch %s: shared/private %.2f: sharing the destination made the copy faster, which sharing cannot do (it costs, or costs nothing); ",
		variant, touch, shared->mean / priv->mean);
	if (one)
		fprintf(f, "one run per cell, more than the noise floor (%.0f%%) above 1: rerun with --repeat 3 or more\n",
			100 * RD_NOISE_FLOOR);
	else
		fprintf(f, "beyond noise (the runs do not overlap)\n");
	fprintf(f, "#   suspect the machine, not the copy: other load or a clock change during some runs, or two threads on one core, whose caches hold one shared buffer better than two\n");
}

void rd_json_summary(const struct rd_config *cfg, unsigned int repeat,
			    const struct rd_stats *st)
{
	struct cb_jw w;

	cb_jw_init(&w, stdout);
	rd_json_config(&w, "summary", cfg, repeat);
	cb_jw_u64_field(&w, "runs", st->runs);
	cb_jw_u64_field(&w, "failed_runs", st->failed);
	rd_jnum(&w, "gbps_mean", st->mean);
	rd_jnum(&w, "gbps_stddev", st->stddev);
	rd_jnum(&w, "gbps_min", st->min);
	rd_jnum(&w, "gbps_max", st->max);
	rd_jnum(&w, "reads_per_s_mean", st->reads_per_s_mean);
	cb_jw_u64_field(&w, "short_reads", st->short_reads);
	cb_jw_bool_field(&w, "verified", st->verified);
	cb_jw_end_object(&w);
	rd_json_end(&w);
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

void rd_print_setup(const struct rd_opts *o, const struct rd_source *src)
{
	char cpus[256], b1[32];

	rd_print_source(o, src);
	printf("# chunk %s per read", rd_bytes_str(b1, sizeof(b1), o->chunk));
	if (src->size % o->chunk) {
		uint64_t reads = (src->size + o->chunk - 1) / o->chunk;

		printf(" (the read at the source's end: %s; %llu B per read on average)",
		       rd_bytes_str(b1, sizeof(b1), src->size % o->chunk),
		       (unsigned long long)(src->size / reads));
	}
	printf("; %.3g s measured after %.3g s warm-up per run\n", o->duration,
	       o->warmup);
	if (!o->no_pin)
		printf("# threads pinned round-robin over CPUs %s\n",
		       rd_cpu_list(cpus, sizeof(cpus)));
	else
		printf("# threads not pinned (--no-pin)\n");
}

void rd_row_header(void)
{
	printf("# GB/s: 10^9 bytes/s of all threads over the measured interval;"
	       " thread GB/s: slowest-fastest thread;\n"
	       "# spread: (fastest - slowest) / fastest; short: short reads;"
	       " verified: every byte checked\n");
	printf("%7s  %-14s %-5s %-10s %7s %9s %12s %17s %7s %6s  %s\n",
	       "threads", "buffer", "touch", "variant", "run", "GB/s", "reads/s",
	       "thread GB/s", "spread", "short", "verified");
}

void rd_row(const struct rd_config *cfg, const struct rd_result *r,
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
