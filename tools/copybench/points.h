/* SPDX-License-Identifier: GPL-2.0 */
/*
 * points.h - the points of records as compare, bisect-run and sweep --like
 * see them: what identifies a point across records (its key), its name
 * ("to_user.native.4K"), the size class its controls are judged in, the
 * --points patterns, and a record's repeats grouped per point.
 *
 * A point is "native" (the kernel's own copy, or what --as-native put in
 * its place) or a control: a fixed variant of copy_variants.S, the same
 * code on every kernel. Documentation/compare.rst is the manual.
 */
#ifndef CB_POINTS_H
#define CB_POINTS_H

#include <stddef.h>

#include "record.h"
#include "util.h"

/*
 * struct cb_key - what makes two record lines the same point: direction,
 * variant, size (and, for random sizes, the range's upper bound), offsets
 * and cache mode. The strings are borrowed from the record's point.
 */
struct cb_key {
	const char *direction, *variant, *cache;
	unsigned long long size, size_max;
	int random;
	unsigned long long src_offset, dst_offset;
};

void cb_key_of(const struct cb_record_point *p, struct cb_key *k);
/* Total order: direction, cache, size, random range, offsets, variant. */
int cb_key_cmp(const struct cb_key *a, const struct cb_key *b);
int cb_key_is_native(const struct cb_key *k);

/*
 * cb_key_name - the point's name, appended to b: DIRECTION.VARIANT.SIZE,
 * then ".cold" for the cold cache, ".srcN" and ".dstN" for non-zero
 * offsets: "to_user.native.4K", "memcpy.movsb.random:1-64.cold",
 * "to_user.orig.4K.dst8". What compare prints and --points matches.
 */
void cb_key_name(const struct cb_key *k, struct cb_str *b);

/*
 * cb_key_parse - a point's name back into k, its strings pointing into
 * *buf (freed by the caller): DIRECTION.VARIANT.SIZE, SIZE as cb_key_name()
 * writes it (bytes with an optional K, M or G, or random:LO-HI), then
 * .CACHE (not the default), .srcN, .dstN in that order. 0, or -1 with e
 * naming the option, the value and the form (exit 2).
 */
int cb_key_parse(const char *opt, const char *name, struct cb_key *k, char **buf,
		 struct cb_error *e);

/*
 * Size classes: the bands of sizes whose controls judge a native point
 * (compare.rst, "Controls"): under 64 bytes, 64 B to 4 KiB - 1, 4 KiB to
 * 256 KiB - 1, and 256 KiB up. A random-size point belongs to the band of
 * the middle of its range.
 */
#define CB_SIZE_CLASSES	4
unsigned int cb_size_class(const struct cb_key *k);
/* The class of sizes lo..hi (a fixed size: lo == hi). */
unsigned int cb_size_class_of(unsigned long long lo, unsigned long long hi);
/* The i-th choice of control to pair class c's native points with, or NULL. */
const char *cb_size_class_control(unsigned int c, unsigned int i);
/* "0-63", "64-4095", "4K-255K", "256K-" */
const char *cb_size_class_name(unsigned int c);
/* Controls judge a native point when direction, cache and size class agree. */
int cb_key_same_class(const struct cb_key *a, const struct cb_key *b);

/*
 * The figures compare decides on (figures.h): a point's time per call as
 * timed back to back, the loop included, and its latency in the chain.
 * cb_figure_names[] is what --figure takes and what compare prints.
 */
enum cb_figure { CB_FIGURE_CALL, CB_FIGURE_LATENCY, CB_FIGURES };
extern const char *const cb_figure_names[CB_FIGURES];

/*
 * cb_point_cost - the figure one repeat of a point contributes: its time
 * per call or its latency (fig), the fastest sample or (median) the
 * median, in TSC cycles or (core) core clocks (times clock_ratio); NAN
 * for a latency the line lacks (a cold point, the module backend). -1
 * with e set when core clocks meet a point without clock_ratio.
 */
int cb_point_cost(const struct cb_record *r, const struct cb_record_point *p, int median,
		  int core, enum cb_figure fig, double *cost, struct cb_error *e);

/*
 * struct cb_pointset - one point of a record: one cost per process that
 * measured it (v[0..n), in the order of the processes' pids), the median
 * of that process's lines when it has several. The process is the unit of
 * replication: lines of one process share its placement.
 */
struct cb_pointset {
	struct cb_key key;
	const struct cb_record_point *first;	/* its first line */
	double *v;
	size_t n;				/* processes */
	size_t lines;				/* lines (repeats) in all */
	/*
	 * The interleaved design's native points: per process (in v's
	 * order), the native copy's figure against its paired control's
	 * (control_ratio, latency_paired; NULL when a line lacks it).
	 */
	double *pv;
	/*
	 * Per process (in v's order): its pid, and its fastest sample of the
	 * figure as timed (TSC): what a native point's ratio to another point
	 * of its process is taken on (verdict.c).
	 */
	unsigned long long *pid;
	double *g;
};

/*
 * cb_record_one_process - whether r is a record of one process: its
 * points carry no pid (copybench before processes ran every repeat in the
 * one process that wrote the record).
 */
int cb_record_one_process(const struct cb_record *r);

/*
 * cb_points_group - a record's lines grouped per point, sorted by key, each
 * point's costs of figure fig per process (*out, *n sets, freed by
 * cb_points_free()); lines without the figure are left out. 0, or -1
 * with e set.
 */
int cb_points_group(const struct cb_record *r, int median, int core, enum cb_figure fig,
		    struct cb_pointset **out, size_t *n, struct cb_error *e);
void cb_points_free(struct cb_pointset *s, size_t n);
/* The set of s[0..n) with key k, or NULL. */
const struct cb_pointset *cb_points_find(const struct cb_pointset *s, size_t n,
					 const struct cb_key *k);

/*
 * --points SPEC: comma-separated shell patterns (fnmatch) matched against
 * point names, "to_user.native.*", "*.4K". cb_patterns_parse() checks
 * every item (none empty); cb_patterns_select() marks in sel[] the sets
 * whose names match, and with them every control point of the same class
 * as a matching native point (the controls that judge it). Returns how
 * many sets matched a pattern themselves.
 */
struct cb_patterns {
	char **v;
	size_t n;
};

int cb_patterns_parse(const char *opt, const char *spec, struct cb_patterns *p,
		      struct cb_error *e);
void cb_patterns_free(struct cb_patterns *p);
int cb_patterns_match(const struct cb_patterns *p, const struct cb_key *k);
size_t cb_patterns_select(const struct cb_patterns *p, const struct cb_pointset *s, size_t n,
			  char *sel);

#endif /* CB_POINTS_H */
