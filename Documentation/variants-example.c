// SPDX-License-Identifier: GPL-2.0
/*
 * variants-example.c - a user's program against copy_variants.h alone:
 * list the variants, copy with each, get the exact count across a hole.
 *
 *	cc -I. Documentation/variants-example.c build/libcopyvariants.a
 */
#include <stdio.h>
#include <sys/mman.h>

#include "copy_variants.h"

int main(void)
{
	char dst[200], *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct cb_variant *v;

	/* A readable page, then a PROT_NONE one. */
	if (p == MAP_FAILED || mprotect(p + 4096, 4096, PROT_NONE) || cb_fault_init())
		return 1;
	for (unsigned int i = 0; (v = cb_variant_at(i)); i++) {
		if (!cb_variant_usable(v))
			continue;
		printf("%-9s 200 bytes: %lu left", v->name, v->copy(dst, p, 200));
		if (v->fault_exact)	/* not native: libc's memcpy would crash */
			printf(", 100 before a hole: %lu left",
			       v->copy(dst, p + 4096 - 100, 200));
		printf("\n");
	}
	return 0;
}
