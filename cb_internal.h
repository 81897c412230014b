/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_internal.h - what the parts of copybench.ko share with each other.
 */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H

#include <linux/types.h>

#include "copybench.h"

struct dentry;

/* Direction of a copy: what the timed run and the variant table deal in. */
enum cb_direction {
#define CB_DIRECTION(name)	CB_DIR_##name,
#include "copybench.h"
#undef CB_DIRECTION
	CB_DIR_COUNT
};

enum cb_cache {
#define CB_CACHE(name)	CB_CACHE_##name,
#include "copybench.h"
#undef CB_CACHE
	CB_CACHE_COUNT
};

extern const char * const cb_direction_names[CB_DIR_COUNT];
extern const char * const cb_cache_names[CB_CACHE_COUNT];

/*
 * A copy routine: copies len bytes, returns the bytes NOT copied (0 on
 * success, exact on a fault). For user directions the user side has
 * already passed access_ok().
 */
typedef unsigned long (*cb_copy_fn)(void *dst, const void *src, unsigned long len);

/*
 * struct cb_kvariant - one entry of the module's variant table.
 * @name:	user-visible name ("native" or a copy_variants_list.h name)
 * @desc:	one line for the "variants" file
 * @needs:	CB_NEED_* bits
 * @copy:	one routine per direction
 */
struct cb_kvariant {
	const char *name;
	const char *desc;
	unsigned int needs;
	cb_copy_fn copy[CB_DIR_COUNT];
};

/*
 * struct cb_knobs - everything a run or an open of "data" depends on. One
 * instance (cb_knobs in copybench.c) is the debugfs state; a run and every
 * open work on a copy taken under cb_lock.
 */
struct cb_knobs {
	const struct cb_kvariant *variant;
	enum cb_direction direction;
	u64 size;		/* bytes per copy, 0..CB_SIZE_MAX */
	u32 src_offset;		/* 0..CB_OFFSET_MAX */
	u32 dst_offset;		/* 0..CB_OFFSET_MAX */
	enum cb_cache cache;
	u32 loops;		/* 0 = automatic */
	u32 samples;
	int cpu;		/* -1 = the writer's CPU */
	bool baseline;		/* subtract the empty-copy cost */
	u32 max_run_ms;
	u64 data_chunk;		/* bytes per copy call in data reads/writes */
};

/*
 * struct cb_results - the outcome of one run; cycles are per copy, in
 * hundredths of a TSC cycle (fixed point, two decimals).
 */
struct cb_results {
	struct cb_knobs knobs;
	int run_cpu;
	u32 loops;
	u32 samples;
	bool truncated;
	u64 min_c100, median_c100, mean_c100, stddev_c100, max_c100;
	u64 baseline_c100;
	u64 tsc_khz;
	u64 run_ms;
	bool verified;
};

/*
 * copybench.c: cb_lock guards the knobs, cb_running (a run is in progress),
 * the results and the data buffer pointer.
 */
extern struct mutex cb_lock;
extern bool cb_running;
extern struct cb_knobs cb_knobs;

/* cb_variants.c */
unsigned int cb_kvariant_count(void);
const struct cb_kvariant *cb_kvariant_at(unsigned int i);
const struct cb_kvariant *cb_kvariant_find(const char *name);
bool cb_kvariant_usable(const struct cb_kvariant *v);
unsigned long cb_kvariant_copy(const struct cb_kvariant *v, enum cb_direction dir,
			       void *dst, const void *src, unsigned long len);
void cb_variants_init(void);
/* copy_variants.S: nonzero makes movs_alt take rep movsb (ERMS). */
extern u8 cb_cpu_erms;

/* copy_variants.S: two entry points per variant of copy_variants_list.h. */
#define CB_VARIANT(name, needs, desc)						\
	unsigned long cb_##name##_memcpy(void *dst, const void *src,		\
					 unsigned long len);			\
	unsigned long cb_##name##_user(void *dst, const void *src,		\
				       unsigned long len);
#include "copy_variants_list.h"
#undef CB_VARIANT

/* cb_run.c */
int cb_run(const struct cb_knobs *knobs, struct cb_results *res);

/* cb_data.c */
int cb_data_init(u64 size);
void cb_data_create_file(struct dentry *dir);
void cb_data_exit(void);
int cb_data_resize(u64 size);
u64 cb_data_size(void);

#endif /* CB_INTERNAL_H */
