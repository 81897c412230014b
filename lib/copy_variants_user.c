// SPDX-License-Identifier: GPL-2.0
/*
 * copy_variants_user.c - the userspace table of copybench's copy variants
 * (copy_variants.h): the list in copy_variants_list.h, plus libc's memcpy as
 * "native".
 */
#include <string.h>

#include "copybench.h"
#include "copy_variants.h"

#define CB_VARIANT(name, needs, desc)						\
	unsigned long cb_##name##_user(void *dst, const void *src,		\
				       unsigned long len);
#include "copy_variants_list.h"
#undef CB_VARIANT

static unsigned long cb_native_copy(void *dst, const void *src,
				    unsigned long len)
{
	memcpy(dst, src, len);
	return 0;
}

static const struct cb_variant cb_variants[] = {
#define CB_VARIANT(vname, vneeds, vdesc)					\
	{ .name = #vname, .desc = vdesc, .copy = cb_##vname##_user,		\
	  .needs = vneeds, .fault_exact = 1 },
#include "copy_variants_list.h"
#undef CB_VARIANT
	{ .name = CB_NATIVE_NAME, .desc = "libc memcpy(), the system's own copy",
	  .copy = cb_native_copy, .needs = 0, .fault_exact = 0 },
};

unsigned int cb_variant_count(void)
{
	return sizeof(cb_variants) / sizeof(cb_variants[0]);
}

const struct cb_variant *cb_variant_at(unsigned int i)
{
	return i < cb_variant_count() ? &cb_variants[i] : NULL;
}

const struct cb_variant *cb_variant_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < cb_variant_count(); i++)
		if (!strcmp(cb_variants[i].name, name))
			return &cb_variants[i];
	return NULL;
}

int cb_variant_usable(const struct cb_variant *v)
{
	/* TODO(variants issue): check v->needs against CPUID. */
	return v != NULL;
}

int cb_fault_init(void)
{
	/* TODO(variants issue): the SIGSEGV/SIGBUS fault-table handler. */
	return 0;
}
