// SPDX-License-Identifier: GPL-2.0
/*
 * readers_config.c - a configuration of the readers harness: its settings
 * from the options, whether it can verify, its checksums, and its runs,
 * reported as they finish. The series of readers.c and the matrix of
 * readers_matrix.c both call it; it calls the runs (readers_run.c) and
 * the output (readers_out.c), neither of which calls back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"

/*
 * rd_decide_verify - whether a run can check every byte, and why not.
 * Verification needs --touch all, known content, and buffers that no
 * other thread writes while this one checks.
 */
bool rd_decide_verify(const struct rd_opts *o, const struct rd_config *cfg, const char **note)
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

/*
 * rd_run_config - the runs of one configuration, reported as they finish.
 * Returns their statistics.
 */
struct rd_stats rd_run_config(const struct rd_opts *o, struct rd_config *cfg,
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
		/* The matrix says its cells' errors itself (rd_matrix()). */
		if (r.failed && !o->json && print_rows)
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

void rd_config_init(const struct rd_opts *o, struct rd_config *cfg,
		    struct rd_source *src, unsigned int threads)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->src = src;
	cfg->threads = threads;
	cfg->pin = !o->no_pin;
	cfg->buffer = o->buffer;
	cfg->stride = o->stride;
	cfg->touch = o->touch;
	cfg->chunk = o->chunk;
	cfg->duration_s = o->duration;
	cfg->warmup_s = o->warmup;
	cfg->corrupt_at = src->kind == RD_SRC_MEMCPY ? o->corrupt : -1;
}

int rd_build_sums(const struct rd_opts *o, const struct rd_source *src,
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
