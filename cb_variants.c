// SPDX-License-Identifier: GPL-2.0
/*
 * cb_variants.c - copybench.ko's table of copy variants: the fixed ones of
 * copy_variants.S (copy_variants_list.h) and "native", the running kernel's
 * own memcpy()/copy_to_user()/copy_from_user().
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>

#include "cb_internal.h"

#define CB_VARIANT(name, needs, desc)						\
	unsigned long cb_##name##_memcpy(void *dst, const void *src,		\
					 unsigned long len);			\
	unsigned long cb_##name##_user(void *dst, const void *src,		\
				       unsigned long len);
#include "copy_variants_list.h"
#undef CB_VARIANT

/* copy_variants.S: nonzero makes movs_alt take rep movsb (ERMS). */
extern u8 cb_cpu_erms;

/* native: copy_to_user()/copy_from_user() pick the direction themselves. */
static unsigned long cb_native_memcpy(void *dst, const void *src, unsigned long len)
{
	memcpy(dst, src, len);
	return 0;
}

static const struct cb_kvariant cb_kvariants[] = {
	{ .name = CB_NATIVE_NAME,
	  .desc = "the running kernel's memcpy(), copy_to_user(), copy_from_user()",
	  .kcopy = cb_native_memcpy },
#define CB_VARIANT(vname, vneeds, vdesc)					\
	{ .name = #vname, .desc = vdesc, .needs = vneeds,			\
	  .kcopy = cb_##vname##_memcpy, .ucopy = cb_##vname##_user },
#include "copy_variants_list.h"
#undef CB_VARIANT
};

unsigned int cb_kvariant_count(void)
{
	return ARRAY_SIZE(cb_kvariants);
}

const struct cb_kvariant *cb_kvariant_at(unsigned int i)
{
	return i < ARRAY_SIZE(cb_kvariants) ? &cb_kvariants[i] : NULL;
}

const struct cb_kvariant *cb_kvariant_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cb_kvariants); i++)
		if (!strcmp(cb_kvariants[i].name, name))
			return &cb_kvariants[i];
	return NULL;
}

bool cb_kvariant_usable(const struct cb_kvariant *v)
{
	if ((v->needs & CB_NEED_SSE2) && !boot_cpu_has(X86_FEATURE_XMM2))
		return false;
	return true;
}

/*
 * cb_kvariant_copy - copy len bytes in direction dir with variant v.
 * The user side must already have passed access_ok(). Returns the bytes not
 * copied.
 */
unsigned long cb_kvariant_copy(const struct cb_kvariant *v, enum cb_direction dir,
			       void *dst, const void *src, unsigned long len)
{
	if (!v->ucopy) {
		switch (dir) {
		case CB_DIR_TO_USER:
			return copy_to_user((void __user *)dst, src, len);
		case CB_DIR_FROM_USER:
			return copy_from_user(dst, (const void __user *)src, len);
		default:
			return v->kcopy(dst, src, len);
		}
	}
	if (dir == CB_DIR_MEMCPY)
		return v->kcopy(dst, src, len);
	return v->ucopy(dst, src, len);
}

void cb_variants_init(void)
{
	cb_cpu_erms = boot_cpu_has(X86_FEATURE_ERMS);
}
