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
 * copy that may fault. Faults outside the variants' table, and every
 * SIGSEGV or SIGBUS sent with kill(), tgkill(), raise() or sigqueue() (even
 * one that lands while a copy runs), go to the handler installed before,
 * stay ignored if they were (a sent signal), or take the default action:
 * the process dies as it would without the library. The table stays in
 * force. Documentation/variants.rst describes the table.
 *
 * Limit: Linux kills the process outright when a thread faults while it
 * blocks the fault's signal, so a copy cannot return a count in a thread
 * that blocks SIGSEGV or SIGBUS, nor inside a SIGSEGV or SIGBUS handler
 * (the kernel blocks the signal there, unless the handler was installed
 * with SA_NODEFER). cb_fault_init() checks the calling thread: -1 with
 * errno EDEADLK when it blocks either signal (the handler is installed all
 * the same, for the other threads). Call it in each thread that copies
 * with possible faults; after the first call it costs one sigprocmask().
 */
int cb_fault_init(void);

#ifdef __cplusplus
}
#endif

#endif /* COPY_VARIANTS_H */
