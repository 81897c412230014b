// SPDX-License-Identifier: GPL-2.0
/*
 * cb_variants.c - copybench.ko's table of copy variants: "native", the
 * running kernel's own copy, then the fixed ones of copy_variants.S in the
 * order of copy_variants_list.h.
 *
 * Every entry has one routine per direction. The asm variants use
 * cb_<name>_memcpy kernel to kernel and cb_<name>_user (STAC/CLAC and an
 * exception table entry on every access) for both user directions.
 *
 * "native" is what the kernel's read and write paths end in:
 *   memcpy	memcpy()
 *   to_user	raw_copy_to_user(), as called by copyout() under copy_to_iter()
 *		and at the end of copy_to_user()
 *   from_user	raw_copy_from_user(), as called by copyin() and at the end of
 *		copy_from_user()
 * The raw forms, because the callers here have done access_ok() themselves
 * (as copyout() does), and because copy_from_user() zeroes the rest of the
 * destination on a fault, which a write to the data file must not do.
 * copy_to_user() adds might_fault() and the hardened-usercopy object check
 * on top; neither is part of the copy being compared.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>

#include "cb_internal.h"

/* In enum order: both come from the same list in copybench.h. */
const char * const cb_direction_names[CB_DIR_COUNT] = {
#define CB_DIRECTION(name)	__stringify(name),
#include "copybench.h"
#undef CB_DIRECTION
};

const char * const cb_cache_names[CB_CACHE_COUNT] = {
#define CB_CACHE(name)	__stringify(name),
#include "copybench.h"
#undef CB_CACHE
};

static unsigned long cb_native_memcpy(void *dst, const void *src, unsigned long len)
{
	memcpy(dst, src, len);
	return 0;
}

static unsigned long cb_native_to_user(void *dst, const void *src, unsigned long len)
{
	return raw_copy_to_user((void __user *)dst, src, len);
}

static unsigned long cb_native_from_user(void *dst, const void *src, unsigned long len)
{
	return raw_copy_from_user(dst, (const void __user *)src, len);
}

static const struct cb_kvariant cb_kvariants[] = {
	{
		.name = CB_NATIVE_NAME,
		.desc = "the running kernel's memcpy() and raw_copy_{to,from}_user()",
		.copy = {
			[CB_DIR_memcpy]		= cb_native_memcpy,
			[CB_DIR_to_user]	= cb_native_to_user,
			[CB_DIR_from_user]	= cb_native_from_user,
		},
	},
#define CB_VARIANT(vname, vneeds, vdesc)					\
	{									\
		.name = #vname, .desc = vdesc, .needs = vneeds,			\
		.copy = {							\
			[CB_DIR_memcpy]		= cb_##vname##_memcpy,		\
			[CB_DIR_to_user]	= cb_##vname##_user,		\
			[CB_DIR_from_user]	= cb_##vname##_user,		\
		},								\
	},
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
	return v->copy[dir](dst, src, len);
}

/* cb_cpu_erms lives in copy_variants.S (movs_alt reads it). */
void cb_variants_init(void)
{
	cb_cpu_erms = boot_cpu_has(X86_FEATURE_ERMS);
}
