/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readers.h - what the parts of the readers harness share.
 *
 * Top to bottom, each calling only those below it:
 *
 *   readers.c         options, checks, the run series, main()
 *   readers_matrix.c  --matrix: variants x buffers x touch, the verdict
 *   readers_config.c  a configuration: its settings from the options,
 *                     whether it verifies, its checksums, its runs
 *                     reported
 *   readers_out.c     names, the human table, JSON lines, statistics
 *   readers_run.c     one timed run: buffers, threads, the read loop; the
 *                     CPUs it pins to
 *   readers_source.c  sources (memcpy, files, the module's data file),
 *                     the module's variant knob, known content and its
 *                     checksums
 *
 * Documentation/readers.rst describes the tool.
 */
#ifndef READERS_H
#define READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <stdatomic.h>

#include "copybench.h"
#include "copy_variants.h"
#include "lib/cb_json_writer.h"
#include "lib/cb_util.h"	/* ARRAY_SIZE, __printf, __noreturn; cb_error */

/* The module's read path and the knobs readers uses. */
#define RD_DATA_PATH		CB_DEBUGFS_DIR "/data"
#define RD_VARIANT_KNOB		CB_DEBUGFS_DIR "/variant"
#define RD_VARIANTS_LIST	CB_DEBUGFS_DIR "/variants"
#define RD_DATA_SIZE_KNOB	CB_DEBUGFS_DIR "/data_size"

/* Exit status: run done; error or bad data; bad usage; short reads. */
#define RD_EXIT_OK		0
#define RD_EXIT_ERROR		1
#define RD_EXIT_USAGE		2
#define RD_EXIT_SHORT		3

#define RD_THREADS_MAX		1024
#define RD_CHUNK_MAX		(1ULL << 30)
#define RD_STRIDE_MAX		(1ULL << 30)
#define RD_SIZE_MAX		(16ULL << 30)
#define RD_NAME_MAX		64
/* Separates per-thread data: a line plus the adjacent-line prefetch pair. */
#define RD_PAD			128

enum rd_source_kind {
	RD_SRC_MEMCPY,		/* userspace copy, no kernel */
	RD_SRC_MODULE,		/* copybench.ko's data file */
	RD_SRC_FILE,		/* any other file: the running kernel's read path */
};

enum rd_buffer_kind {
	RD_BUF_SHARED,		/* one buffer for every thread */
	RD_BUF_PRIVATE,		/* one page-aligned buffer per thread, its own */
	RD_BUF_STRIDE,		/* per-thread buffers stride bytes apart */
};

enum rd_touch {
	RD_TOUCH_NONE,		/* nothing: blogbench 1.1 */
	RD_TOUCH_LINE,		/* one load per 64-byte line */
	RD_TOUCH_PAGE,		/* one load per page */
	RD_TOUCH_ALL,		/* every byte, through the checksum */
};

enum rd_verify {
	RD_VERIFY_AUTO,		/* when the content is known and buffers apart */
	RD_VERIFY_ON,		/* required: refuse a run that cannot verify */
	RD_VERIFY_OFF,
};

#define RD_THREADS_LIST_MAX	64
#define RD_MATRIX_VARIANTS_MAX	32
/*
 * Run-to-run noise of one cell, as a fraction: a shared/private ratio must
 * exceed 1 by more to contradict the mechanism (the repeat spread between
 * processes measured on this project's machines: 2 to 12%).
 */
#define RD_NOISE_FLOOR		0.10
/* The matrix's variants: the blogbench question's. Override with --variants. */
#define RD_MATRIX_DEFAULT	"movsb,unrolled,nocache,native"

/* A source as opened once per process; threads open their own fds. */
struct rd_source {
	enum rd_source_kind kind;
	char path[4096];		/* file sources */
	const struct cb_variant *uvariant;	/* memcpy source */
	char variant[RD_NAME_MAX];	/* name reported: the copy in use */
	uint64_t size;			/* bytes; 0 = unknown (read to EOF) */
	bool seekable;			/* pread() works; else read() */
	bool known_content;		/* byte at p is cb_data_byte(p) */
	const char *content_note;	/* why the content is (not) known */
};

/* What one run does; filled from the options. */
struct rd_config {
	struct rd_source *src;
	unsigned int threads;
	bool pin;
	enum rd_buffer_kind buffer;
	uint64_t stride;		/* RD_BUF_STRIDE only */
	enum rd_touch touch;
	uint64_t chunk;
	double duration_s;
	double warmup_s;
	bool verify;			/* decided by rd_decide_verify() */
	int64_t corrupt_at;		/* memcpy: flip this source byte; -1 none */
};

/* The outcome of one run. */
struct rd_result {
	double interval_s;		/* measured: first start to last stop */
	uint64_t bytes;
	uint64_t reads;
	uint64_t short_reads;
	uint64_t eof_reads;		/* partial reads ending exactly at EOF */
	double gbps;			/* 1e9 bytes/s, all threads */
	double reads_per_s;
	double thread_gbps_min;
	double thread_gbps_max;
	bool verified;			/* every byte read was checked */
	bool failed;			/* I/O error, mismatch or signal */
	char error[512];		/* the first failure, for the user */
};

/*
 * The command line, parsed (readers.c, on lib/cb_options.h: its flags are
 * ints, 1 when given; the *_set bools say an option was given).
 */
struct rd_opts {
	const char *source;
	const char *variant;
	const char *variants;
	const char *fill;
	unsigned int threads[RD_THREADS_LIST_MAX];
	unsigned int nthreads;
	int no_pin;
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
	int allow_short;
	int json;
	int matrix;
	int help;		/* --help's field, never set: it prints and exits */
};

/* Mean, sample standard deviation, min and max of a configuration's runs. */
struct rd_stats {
	unsigned int runs;
	unsigned int failed;
	double mean, stddev, min, max;
	double reads_per_s_mean;
	uint64_t short_reads;
	bool verified;
	char error[512];		/* the first failed run's error, or "" */
};

/* Position-weighted checksum of a span (Fletcher-style, 64-bit words). */
struct rd_sum {
	uint64_t a;
	uint64_t b;
};

/* Expected checksums of every chunk-aligned span of known content. */
struct rd_sums {
	uint64_t size;
	uint64_t chunk;
	uint64_t count;
	struct rd_sum *sum;		/* NULL: verify byte by byte */
};

/* readers_config.c: one configuration's runs, for the series and the matrix */
bool rd_decide_verify(const struct rd_opts *o, const struct rd_config *cfg, const char **note);
void rd_config_init(const struct rd_opts *o, struct rd_config *cfg,
		    struct rd_source *src, unsigned int threads);
int rd_build_sums(const struct rd_opts *o, const struct rd_source *src,
		  struct rd_sums *sums);
struct rd_stats rd_run_config(const struct rd_opts *o, struct rd_config *cfg,
			      const struct rd_sums *sums, bool print_rows);

/* readers_out.c: names, tables, JSON lines, statistics */
extern const char *const rd_buffer_names[];
extern const char *const rd_touch_names[];
extern const char *const rd_kind_names[];
const char *rd_bytes_str(char *buf, size_t len, uint64_t v);
const char *rd_buffer_str(char *buf, size_t len, const struct rd_config *cfg);
/*
 * JSON lines, on lib/cb_json_writer.h: a line's writer on stdout;
 * rd_jnum() is readers' number; rd_json_end() ends a line's writer,
 * saying a failed write once; rd_json_ok() is false after one (readers
 * exits 1).
 */
void rd_jnum(struct cb_jw *w, const char *key, double v);
void rd_json_end(struct cb_jw *w);
bool rd_json_ok(void);
void rd_json_run(const struct rd_config *cfg, const struct rd_result *r,
		 unsigned int run, unsigned int repeat, const char *note);
void rd_json_summary(const struct rd_config *cfg, unsigned int repeat,
		     const struct rd_stats *st);
void rd_stats_add(struct rd_stats *st, const struct rd_result *r, double *gbps);
void rd_stats_done(struct rd_stats *st, const double *gbps);
bool rd_ratio_contradicts(const struct rd_stats *shared,
			  const struct rd_stats *priv);
void rd_ratio_warn(FILE *f, const char *variant, const char *touch,
		   const struct rd_stats *shared, const struct rd_stats *priv);
void rd_print_setup(const struct rd_opts *o, const struct rd_source *src);
void rd_row_header(void);
void rd_row(const struct rd_config *cfg, const struct rd_result *r,
	    unsigned int run, unsigned int repeat);

/* readers_matrix.c */
int rd_matrix(const struct rd_opts *o, struct rd_source *base);

/* readers_source.c */
int rd_source_open(struct rd_source *src, const char *spec, char *err, size_t errlen);
int rd_fill_file(const char *path, uint64_t size, int64_t corrupt_at);
void rd_fill_content(unsigned char *buf, uint64_t pos, uint64_t len);
struct rd_sum rd_checksum(const unsigned char *p, uint64_t len);
int rd_sums_build(struct rd_sums *sums, uint64_t size, uint64_t chunk);
void rd_sums_free(struct rd_sums *sums);
int64_t rd_first_mismatch(const unsigned char *p, uint64_t pos, uint64_t len);
bool rd_module_present(void);
int rd_module_variants(char names[][RD_NAME_MAX], bool *usable, int max);
int rd_knob_read(const char *path, char *val, size_t len);
int rd_variant_set(const char *name, char *err, size_t errlen);
void rd_variant_restore(void);
void rd_variant_restore_async(void);

/* readers_run.c */
extern atomic_int rd_interrupted;
int rd_cpus_init(void);
unsigned int rd_cpu_count(void);
const char *rd_cpu_list(char *buf, size_t len);
void rd_run_signal(void);
int rd_run(const struct rd_config *cfg, const struct rd_sums *sums, struct rd_result *res);

#endif /* READERS_H */
