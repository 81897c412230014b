/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_internal.h - what the parts of copybench.ko share with each other: the
 * enums made from the lists of copybench.h, the variant table's entry, the
 * knobs, and the functions each part offers the others. State stays
 * file-static in the part that owns it.
 */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/types.h>

#include "copybench.h"

struct iov_iter;

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

/* The debugfs files, in the order of the CB_FILE list. */
enum cb_file_id {
#define CB_FILE(name, mode)	CB_F_##name,
#include "copybench.h"
#undef CB_FILE
	CB_F_COUNT
};

extern const char * const cb_direction_names[CB_DIR_COUNT];
extern const char * const cb_cache_names[CB_CACHE_COUNT];

/*
 * The content of copybench.h's cb_data_byte(), n bytes of it from position
 * pos, each XORed with xor (0xff gives the complement): written by
 * cb_pattern_fill(), checked by cb_pattern_mismatch(), which returns the
 * index of the first byte that differs, or n.
 */
static inline void cb_pattern_fill(u8 *buf, u64 pos, size_t n, u8 xor)
{
	u32 h = (u32)pos * 0x9E3779B1u;
	size_t i;

	for (i = 0; i < n; i++, h += 0x9E3779B1u)
		buf[i] = (h >> 24) ^ xor;
}

static inline size_t cb_pattern_mismatch(const u8 *buf, u64 pos, size_t n, u8 xor)
{
	u32 h = (u32)pos * 0x9E3779B1u;
	size_t i;

	for (i = 0; i < n; i++, h += 0x9E3779B1u)
		if (buf[i] != (u8)((h >> 24) ^ xor))
			break;
	return i;
}

/*
 * struct cb_kvariant - one entry of the module's variant table: a name and
 * one routine per direction, typed by where each pointer lives. A NULL
 * routine is a direction the variant does not have.
 * @name:	user-visible name ("native" or a copy_variants_list.h name)
 * @desc:	one line for the "variants" file
 * @needs:	CB_NEED_* bits
 * @mem:	kernel to kernel; returns the bytes not copied (always 0)
 * @to_user:	kernel to user, after access_ok(); returns the bytes not copied
 * @from_user:	user to kernel, after access_ok(); returns the bytes not copied
 * @to_iter:	kernel to an iov_iter; returns the bytes copied
 * @from_iter:	an iov_iter to kernel; returns the bytes copied
 */
struct cb_kvariant {
	const char *name;
	const char *desc;
	unsigned int needs;
	unsigned long (*mem)(void *dst, const void *src, unsigned long len);
	unsigned long (*to_user)(void __user *dst, const void *src, unsigned long len);
	unsigned long (*from_user)(void *dst, const void __user *src, unsigned long len);
	size_t (*to_iter)(const void *src, size_t len, struct iov_iter *to);
	size_t (*from_iter)(void *dst, size_t len, struct iov_iter *from);
};

/*
 * struct cb_knobs - everything a run or an open of "data" depends on. The
 * debugfs state lives in copybench.c; runs and opens work on a copy.
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
	u64 data_chunk;		/* bytes per copy call of the data file, 0 = max */
};

/* copybench.c: the knobs, last_error, and the parsing every file shares. */
void cb_knobs_get(struct cb_knobs *k);
int cb_knobs_freeze(struct cb_knobs *k);
void cb_knobs_thaw(void);
__printf(3, 4) int cb_refuse(const char *file, int err, const char *fmt, ...);
__printf(4, 5) int cb_refuse_value(const char *file, int err, const char *value,
				   const char *fmt, ...);
char *cb_user_string(const char *file, const char __user *ubuf, size_t count,
		     char *buf, size_t len);
int cb_parse_u64(const char *file, const char *s, u64 min, u64 max, u64 *val);

/* cb_variants.c: the variant table. */
unsigned int cb_kvariant_count(void);
const struct cb_kvariant *cb_kvariant_at(unsigned int i);
const struct cb_kvariant *cb_kvariant_find(const char *name);
bool cb_kvariant_usable(const struct cb_kvariant *v);
bool cb_kvariant_has(const struct cb_kvariant *v, enum cb_direction dir);
int cb_kvariant_dirs(const struct cb_kvariant *v, char *buf, size_t len);
int cb_kvariant_names(char *buf, size_t len, bool usable_only);
const char *cb_kvariant_lacks(const struct cb_kvariant *v);
ssize_t cb_kvariant_copy_iter(const struct cb_kvariant *v, void *kbuf, size_t len,
			      struct iov_iter *iter);
extern const struct file_operations cb_variants_fops;

/*
 * copy_variants.S: the entry points of each variant of copy_variants_list.h,
 * typed per direction (the two user directions are one routine).
 */
#define CB_VARIANT(name, needs, desc)						\
	unsigned long cb_##name##_memcpy(void *dst, const void *src,		\
					 unsigned long len);			\
	unsigned long cb_##name##_to_user(void __user *dst, const void *src,	\
					  unsigned long len);			\
	unsigned long cb_##name##_from_user(void *dst, const void __user *src,	\
					    unsigned long len);
#include "copy_variants_list.h"
#undef CB_VARIANT

/* cb_run.c: the run and results files. */
extern const struct file_operations cb_run_fops;
extern const struct file_operations cb_results_fops;
void cb_run_exit(void);

/* cb_data.c: the data and data_size files. */
extern const struct file_operations cb_data_fops;
extern const struct file_operations cb_data_size_fops;
int cb_data_init(void);
void cb_data_created(struct dentry *dentry);
void cb_data_removing(void);
void cb_data_exit(void);

#endif /* CB_INTERNAL_H */
