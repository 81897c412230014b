/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_internal.h - what the parts of copybench.ko share with each other.
 */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H

#include <linux/types.h>

#include "copybench.h"

/* Direction of a copy: what the timed run and the variant table deal in. */
enum cb_direction {
	CB_DIR_MEMCPY,		/* kernel to kernel */
	CB_DIR_TO_USER,		/* kernel to user (copy_to_user) */
	CB_DIR_FROM_USER,	/* user to kernel (copy_from_user) */
	CB_DIR_COUNT
};

/*
 * struct cb_kvariant - one entry of the module's variant table.
 * @kcopy:	kernel to kernel; returns bytes not copied
 * @ucopy:	either side may be user memory (already access_ok()-checked
 *		by the caller); returns bytes not copied, exact on a fault
 */
struct cb_kvariant {
	const char *name;
	const char *desc;
	unsigned int needs;
	unsigned long (*kcopy)(void *dst, const void *src, unsigned long len);
	unsigned long (*ucopy)(void *dst, const void *src, unsigned long len);
};

/* cb_variants.c */
unsigned int cb_kvariant_count(void);
const struct cb_kvariant *cb_kvariant_at(unsigned int i);
const struct cb_kvariant *cb_kvariant_find(const char *name);
bool cb_kvariant_usable(const struct cb_kvariant *v);
unsigned long cb_kvariant_copy(const struct cb_kvariant *v, enum cb_direction dir,
			       void *dst, const void *src, unsigned long len);
void cb_variants_init(void);

#endif /* CB_INTERNAL_H */
