/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_internal.h - what the parts of copybench.ko share with each other: the
 * enums and the knobs made from the lists of copybench.h, the variant
 * table's entry, and the functions each part offers the others. State
 * stays file-static in the part that owns it. Who calls whom: copybench.c
 * (entry, file table) calls every part; cb_run.c calls cb_measure.c,
 * cb_buf.c and cb_stop.c (cb_run.h), cb_measure.c calls cb_buf.c and
 * cb_stop.c, cb_buf.c calls cb_stop.c; the run's files and cb_data.c call
 * cb_knobs.c and cb_variants.c; cb_knobs.c calls cb_variants.c only.
 */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/types.h>

#include "copybench.h"

struct iov_iter;
struct seq_file;

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

/* The debugfs files, in the order of the CB_FILE list (knobs included). */
enum cb_file_id {
#define CB_FILE(name, mode)	CB_F_##name,
#include "copybench.h"
#undef CB_FILE
	CB_F_COUNT
};

/* The knobs, in the order of the CB_KNOB list. */
enum cb_knob_id {
#define CB_KNOB(name, type, min, max, dflt)	CB_K_##name,
#include "copybench.h"
#undef CB_KNOB
	CB_K_COUNT
};

extern const char * const cb_direction_names[CB_DIR_COUNT];
extern const char * const cb_cache_names[CB_CACHE_COUNT];

/* The C type that holds a knob of each type of the CB_KNOB list. */
#define CB_KNOB_T_u64		u64
#define CB_KNOB_T_u32		u32
#define CB_KNOB_T_bool		bool
#define CB_KNOB_T_cpu		int
#define CB_KNOB_T_variant	const struct cb_kvariant *
#define CB_KNOB_T_direction	enum cb_direction
#define CB_KNOB_T_cache		enum cb_cache

/*
 * struct cb_knobs - every knob of copybench.h's CB_KNOB list, one field
 * each, named as its file (cpu -1: the writer's CPU; loops 0: automatic;
 * data_chunk 0: CB_DATA_CHUNK_MAX). The values live in cb_knobs.c; runs
 * and opens of "data" work on a copy. Each field sits in an anonymous
 * struct of its own only because checkpatch reads a bare "TYPE name;" in
 * a macro as a statement.
 */
struct cb_knobs {
#define CB_KNOB(name, type, min, max, dflt)	struct { CB_KNOB_T_##type name; };
#include "copybench.h"
#undef CB_KNOB
};

/*
 * The content of copybench.h's cb_data_byte(), n bytes of it from position
 * pos, each XORed with xor (0xff gives the complement): written by
 * cb_pattern_fill(), checked by cb_pattern_mismatch(), which returns the
 * index of the first byte that differs, or n.
 */
static inline void cb_pattern_fill(u8 *buf, u64 pos, size_t n, u8 xor)
{
	u32 h = (u32)pos * CB_DATA_MULT;
	size_t i;

	for (i = 0; i < n; i++, h += CB_DATA_MULT)
		buf[i] = (h >> 24) ^ xor;
}

static inline size_t cb_pattern_mismatch(const u8 *buf, u64 pos, size_t n, u8 xor)
{
	u32 h = (u32)pos * CB_DATA_MULT;
	size_t i;

	for (i = 0; i < n; i++, h += CB_DATA_MULT)
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

/* cb_knobs.c: the knobs, last_error, and the parsing every file shares. */
int cb_knobs_init(void);
void cb_knobs_exit(void);
void cb_knobs_get(struct cb_knobs *k);
int cb_knobs_freeze(struct cb_knobs *k);
void cb_knobs_thaw(void);
int cb_knob_parse(enum cb_knob_id id, const char *s, struct cb_knobs *k);
void cb_knob_set(enum cb_knob_id id, const struct cb_knobs *k);
int cb_knob_show(enum cb_knob_id id, char *buf, size_t len, const struct cb_knobs *k);
void *cb_knob_file_data(enum cb_knob_id id);
__printf(3, 4) int cb_refuse(const char *file, int err, const char *fmt, ...);
__printf(4, 5) int cb_refuse_value(const char *file, int err, const char *value,
				   const char *fmt, ...);
char *cb_user_string(const char *file, const char __user *ubuf, size_t count,
		     char *buf, size_t len);
int cb_open_no_pos_lock(struct inode *inode, struct file *file);
int cb_last_error_show(struct seq_file *m, void *unused);
extern const struct file_operations cb_knob_fops;

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
int cb_variants_show(struct seq_file *m, void *unused);

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

/* cb_run.c: the run, results and tsc_khz files. */
extern const struct file_operations cb_run_fops;
int cb_results_show(struct seq_file *m, void *unused);
int cb_tsc_khz_show(struct seq_file *m, void *unused);
void cb_run_exit(void);

/* cb_buf.c: the buffer file, which a process maps for a run's user side. */
extern const struct file_operations cb_buffer_fops;

/* cb_data.c: the data and data_size files. */
extern const struct file_operations cb_data_fops;
extern const struct file_operations cb_data_size_fops;
int cb_data_init(void);
void cb_data_created(struct dentry *dentry);
void cb_data_exit(void);

#endif /* CB_INTERNAL_H */
