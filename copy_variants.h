/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy_variants.h - userspace API of copybench's copy variants.
 *
 * The same copy_variants.S that runs inside copybench.ko, assembled for
 * userspace into build/libcopyvariants.a:
 *
 *	cc -I. prog.c build/libcopyvariants.a
 *
 * Every variant copies len bytes and returns how many bytes were NOT copied
 * (0 on success), the raw_copy_to_user() contract. After cb_fault_init(), a
 * copy whose source or destination runs into an unmapped or PROT_NONE page
 * stops exactly at the first byte it cannot access and returns the exact
 * count, instead of crashing ("fault_exact" variants; "native", libc's
 * memcpy, is not one).
 */
#ifndef COPY_VARIANTS_H
#define COPY_VARIANTS_H

#ifdef __cplusplus
extern "C" {
#endif

struct cb_variant {
	const char *name;	/* user-visible name, e.g. "movsb" */
	const char *desc;	/* one line */
	/*
	 * cb_<name>_user: every access has a fault-table entry, so either side
	 * may run into an inaccessible page (exact count after cb_fault_init()).
	 */
	unsigned long (*copy)(void *dst, const void *src, unsigned long len);
	/*
	 * cb_<name>_memcpy: the same strategy without fault-table entries, the
	 * entry copybench.ko's direction=memcpy times (libc memcpy for "native").
	 * A fault in it is a fault: both sides must be accessible.
	 */
	unsigned long (*copy_memcpy)(void *dst, const void *src, unsigned long len);
	unsigned int needs;	/* CB_NEED_* bits (copybench.h) */
	int fault_exact;	/* 1: exact count on faults after cb_fault_init() */
};

/* Number of variants, "native" included. */
unsigned int cb_variant_count(void);
/* The i-th variant, NULL past the end. */
const struct cb_variant *cb_variant_at(unsigned int i);
/* The variant called name, NULL if unknown. */
const struct cb_variant *cb_variant_find(const char *name);
/* 1 when this CPU can run v, else 0. */
int cb_variant_usable(const struct cb_variant *v);
/*
 * Install the fault-table handler for SIGSEGV and SIGBUS; 0 on success,
 * -1 with errno set. Idempotent and thread-safe; call it before the first
 * copy that may fault. Faults outside the variants' table go to the handler
 * installed before, or kill the process as they would without it.
 * Documentation/variants.rst describes the table.
 */
int cb_fault_init(void);

#ifdef __cplusplus
}
#endif

#endif /* COPY_VARIANTS_H */
