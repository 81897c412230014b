// SPDX-License-Identifier: GPL-2.0
/*
 * variants_test.c - native tests of copybench's copy variants, run on the
 * userspace build of copy_variants.S (build/libcopyvariants.a): the table,
 * the copies and their exact counts at faults. variants_signal_test.c
 * tests the fault handler among the process's own signals.
 *
 * Every variant of copy_variants_list.h, plus "native" (libc memcpy) for the
 * copy tests, is a FIXTURE_VARIANT of its own, so a new variant is tested
 * without touching this file: the copy tests run both of its entries
 * (cb_<name>_user and cb_<name>_memcpy), the fault tests the _user one.
 * movs_alt also runs with its ERMS switch forced each way, whatever this
 * CPU has.
 *
 * Copies: every size 0..2048, every source and destination misalignment
 * 0..63 up to 256 bytes and a sample of pairs above, and sizes around every
 * power of two from 2 KiB to 4 MiB (+-{0,1,2,3,7,8,15,16,31,32,63}). The
 * destination is poisoned before every copy and has guard bytes on both
 * sides; the source never holds the poison value, so a byte not copied,
 * copied from the wrong place or written outside the destination shows.
 *
 * Faults: the source, or the destination, ends at a PROT_NONE page at every
 * distance 0..300, for 25 lengths up to two pages past it, the other buffer
 * at four alignments in turn; then an inaccessible page with mapped memory
 * after it, SIGBUS from a file mapping, threads faulting at once, and orig's
 * retry when a page disappears between its probes and its backward loop.
 * Each checks the exact returned count, the copied prefix and that nothing
 * else was written. A failure names variant, size, offsets and the first
 * bad byte. Last, the example program of Documentation/variants.rst.
 *
 * Usage: variants_test [kselftest harness options, e.g. -v <variant>]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a local across its own setjmp(); gcc
 * -O2 -Wextra flags that inside the header, not in anything here.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "copybench.h"
#include "copy_variants.h"
#include "lib/cb_asm_user.h"	/* cb_cpu_erms: forced by some variants */
#include "variants_test_lib.h"

#define GUARD		64UL			/* guard bytes each side */
#define BIG		((4UL << 20) + 64)	/* largest copy: 4 MiB + 63 */
#define BUF_SIZE	(BIG + 2 * PAGE)	/* + offsets and guards */
#define FAULT_DIST_MAX	300UL
#define CB_GOOD		LONG_MIN

/*
 * Destination check: [dst - before, dst) and [dst + copied, dst + end) must
 * hold POISON, [dst, dst + copied) must equal src. Returns the offset from
 * dst of the first bad byte (negative: in the guard before), or CB_GOOD.
 */
static long first_bad(const uint8_t *dst, const uint8_t *src, size_t before,
		      size_t copied, size_t end)
{
	size_t i;

	for (i = before; i > 0; i--)
		if (dst[-(long)i] != POISON)
			return -(long)i;
	if (memcmp(dst, src, copied))
		for (i = 0; i < copied; i++)
			if (dst[i] != src[i])
				return i;
	for (i = copied; i < end; i++)
		if (dst[i] != POISON)
			return i;
	return CB_GOOD;
}

static int want_byte(long at, const uint8_t *src, size_t copied)
{
	return at >= 0 && (size_t)at < copied ? src[at] : POISON;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A copy entry: cb_<name>_user or cb_<name>_memcpy. */
typedef unsigned long (*copy_fn)(void *dst, const void *src, unsigned long len);

/* What both fixtures hold. */
struct bufs {
	const struct cb_variant *v;
	copy_fn copy;		/* the entry under test */
	char label[64];		/* "movsb", "movsb (_memcpy)": for messages */
	uint8_t *src, *dst;	/* BUF_SIZE each; src holds the pattern */
	uint8_t *edge;		/* EDGE_PAGES pages */
	uint8_t *boundary;	/* edge + 2 pages: the first PROT_NONE byte */
};

/* Where a checked copy went, for failure messages. */
struct at {
	const char *what;
	size_t dist;		/* bytes before the PROT_NONE page, or NO_DIST */
	size_t len, soff, doff;
};

#define NO_DIST		SIZE_MAX

/* "what[, N bytes before the PROT_NONE page]: len L src_off S dst_off D" */
static const char *at_str(char *buf, size_t size, const struct at *at)
{
	int n = snprintf(buf, size, "%s", at->what);

	if (at->dist != NO_DIST)
		n += snprintf(buf + n, size - n, ", %zu bytes before the PROT_NONE page",
			      at->dist);
	snprintf(buf + n, size - n, ": len %zu src_off %zu dst_off %zu",
		 at->len, at->soff, at->doff);
	return buf;
}

/* Assert the returned count, naming entry, size and offsets. */
static void assert_left(struct __test_metadata *_metadata, const struct bufs *b,
			const struct at *at, unsigned long got, unsigned long want)
{
	char where[160];

	if (got != want)
		TH_LOG("%s %s: returned %lu bytes not copied, want %lu", b->label,
		       at_str(where, sizeof(where), at), got, want);
	ASSERT_EQ(want, got);
}

/*
 * Assert the destination as first_bad() sees it, naming entry, size,
 * offsets and the first bad byte.
 */
static void assert_dst(struct __test_metadata *_metadata, const struct bufs *b,
		       const struct at *at, const uint8_t *dst, const uint8_t *src,
		       size_t before, size_t copied, size_t end)
{
	long bad = first_bad(dst, src, before, copied, end);
	char where[160];

	if (bad != CB_GOOD)
		TH_LOG("%s %s: first bad byte dst[%ld] = 0x%02x, want 0x%02x",
		       b->label, at_str(where, sizeof(where), at), bad, dst[bad],
		       want_byte(bad, src, copied));
	ASSERT_EQ(CB_GOOD, bad);
}

/*
 * Find the variant and its entry (memcpy_entry: cb_<name>_memcpy, else
 * cb_<name>_user), force movs_alt's switch if asked, map the buffers.
 */
static void bufs_setup(struct __test_metadata *_metadata, struct bufs *b,
		       const char *name, int memcpy_entry, int erms)
{
	b->v = cb_variant_find(name);
	ASSERT_NE(NULL, b->v);
	b->copy = memcpy_entry ? b->v->copy_memcpy : b->v->copy;
	snprintf(b->label, sizeof(b->label), "%s%s", b->v->name,
		 memcpy_entry ? " (_memcpy)" : "");
	if (!cb_variant_usable(b->v))
		SKIP(return, "%s: this CPU lacks a feature it needs (0x%x)",
		     b->v->name, b->v->needs);
	if (erms >= 0)
		cb_cpu_erms = erms;
	ASSERT_EQ(0, cb_fault_init());

	b->src = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b->src);
	b->dst = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b->dst);
	fill_pattern(b->src, BUF_SIZE);
	b->boundary = map_edge(&b->edge);
	ASSERT_NE(NULL, b->boundary);
}

static void bufs_teardown(struct bufs *b)
{
	if (b->src && b->src != MAP_FAILED)
		munmap(b->src, BUF_SIZE);
	if (b->dst && b->dst != MAP_FAILED)
		munmap(b->dst, BUF_SIZE);
	if (b->edge)
		munmap(b->edge, EDGE_PAGES * PAGE);
}

/*
 * copy: both entries of every variant of the list, movs_alt forced each
 * way, and native (whose two entries are one function).
 */
FIXTURE(copy) {
	struct bufs b;
};

FIXTURE_VARIANT(copy) {
	const char *name;
	int memcpy_entry;	/* 1: cb_<name>_memcpy, 0: cb_<name>_user */
	int erms;		/* movs_alt's switch: -1 as detected, 0/1 forced */
};

/*
 * fault: the _user entries, the ones with fault table entries: a fault in
 * a _memcpy entry or in libc's memcpy kills the process.
 */
FIXTURE(fault) {
	struct bufs b;
};

FIXTURE_VARIANT(fault) {
	const char *name;
	int erms;
};

/*
 * The variants both fixtures run: vtest is the name in the results, vname
 * the copy variant, verms movs_alt's switch; copy also runs the _memcpy
 * entry, as vtest_memcpy.
 */
#define VARIANT_ADD_ALL(vtest, vname, verms)					\
	FIXTURE_VARIANT_ADD(copy, vtest) { .name = vname, .erms = verms };	\
	FIXTURE_VARIANT_ADD(copy, vtest##_memcpy) {				\
		.name = vname, .memcpy_entry = 1, .erms = verms };		\
	FIXTURE_VARIANT_ADD(fault, vtest) { .name = vname, .erms = verms };

#define CB_VARIANT(vname, vneeds, vdesc)	VARIANT_ADD_ALL(vname, #vname, -1)
#include "copy_variants_list.h"
#undef CB_VARIANT

VARIANT_ADD_ALL(movs_alt_forced_movsq, "movs_alt", 0)
VARIANT_ADD_ALL(movs_alt_forced_movsb, "movs_alt", 1)

FIXTURE_VARIANT_ADD(copy, native) {
	.name = CB_NATIVE_NAME, .erms = -1,
};

FIXTURE_SETUP(copy)
{
	bufs_setup(_metadata, &self->b, variant->name, variant->memcpy_entry,
		   variant->erms);
}

FIXTURE_TEARDOWN(copy)
{
	bufs_teardown(&self->b);
}

FIXTURE_SETUP(fault)
{
	bufs_setup(_metadata, &self->b, variant->name, 0, variant->erms);
	ASSERT_EQ(1, self->b.v->fault_exact);
}

FIXTURE_TEARDOWN(fault)
{
	bufs_teardown(&self->b);
}

/*
 * One plain copy of len bytes from src + soff to dst + GUARD + doff, checked
 * with GUARD poison bytes each side. Ends the test on failure.
 */
static void check_copy(struct __test_metadata *_metadata, const struct bufs *b,
		       size_t len, size_t soff, size_t doff)
{
	const struct at at = { "copy", NO_DIST, len, soff, doff };
	uint8_t *d = b->dst + GUARD + doff;
	const uint8_t *s = b->src + soff;

	memset(d - GUARD, POISON, len + 2 * GUARD);
	assert_left(_metadata, b, &at, b->copy(d, s, len), 0);
	assert_dst(_metadata, b, &at, d, s, GUARD, len, len + GUARD);
}

/* Result equals the source for every size to 256 at every offset pair. */
TEST_F(copy, copies_sizes_0_to_256_at_every_misalignment)
{
	struct bufs *b = &self->b;
	size_t len, soff, doff, n = 0;
	double t = now_s();

	for (len = 0; len <= 256; len++)
		for (soff = 0; soff < 64; soff++)
			for (doff = 0; doff < 64; doff++, n++)
				check_copy(_metadata, b, len, soff, doff);
	TH_LOG("%s: %zu copies checked in %.2f s", b->label, n,
	       now_s() - t);
}

/*
 * Offset pairs above 256 bytes: aligned, each side off by one, both odd,
 * word-misaligned, and pairs whose low bytes put memcpy_orig's direction
 * test (signed compare of the low address bytes) either way, including
 * across its sign change at 0x80.
 */
static const size_t sample_offsets[][2] = {
	{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 7, 7 }, { 8, 0 }, { 0, 8 },
	{ 13, 51 }, { 63, 63 }, { 32, 31 }, { 61, 2 },
	{ 0x7f, 0x80 }, { 0x80, 0x7f }, { 0xc1, 0x10 }, { 0x10, 0xc1 },
};

/* Result equals the source for every size 257..2048 at sampled offsets. */
TEST_F(copy, copies_sizes_257_to_2048_at_sampled_misalignments)
{
	struct bufs *b = &self->b;
	size_t len, i, n = 0;
	double t = now_s();

	for (len = 257; len <= 2048; len++)
		for (i = 0; i < ARRAY_SIZE(sample_offsets);
		     i++, n++)
			check_copy(_metadata, b, len, sample_offsets[i][0],
				   sample_offsets[i][1]);
	TH_LOG("%s: %zu copies checked in %.2f s", b->label, n,
	       now_s() - t);
}

/* Distances from each power of two that the large-size sweep copies. */
static const long pow2_deltas[] = {
	-63, -32, -31, -16, -15, -8, -7, -3, -2, -1,
	0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63,
};

/* Result equals the source for sizes around powers of two, 2 KiB..4 MiB. */
TEST_F(copy, copies_large_sizes_around_powers_of_two)
{
	struct bufs *b = &self->b;
	static const size_t offs[][2] = { { 0, 0 }, { 1, 63 }, { 0x81, 3 } };
	size_t p, i, k, n = 0, bytes = 0;
	double t = now_s();

	for (p = 11; p <= 22; p++)
		for (i = 0; i < ARRAY_SIZE(pow2_deltas); i++)
			for (k = 0; k < ARRAY_SIZE(offs); k++, n++) {
				size_t len = (1UL << p) + pow2_deltas[i];

				check_copy(_metadata, b, len, offs[k][0], offs[k][1]);
				bytes += len;
			}
	TH_LOG("%s: %zu copies, %zu MiB checked in %.2f s", b->label, n,
	       bytes >> 20, now_s() - t);
}

/* Bytes past the distance to the PROT_NONE page: lengths up to 2 pages. */
static const size_t fault_extra[] = {
	0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128,
	129, 255, 256, 300, 4096, 2 * PAGE,
};

/*
 * Alignments of the buffer on the other side, taken in turn (0x9c puts
 * orig's signed direction test across its sign change).
 */
static const size_t fault_other_off[] = { 0, 1, 7, 0x9c };
#define NOTHER	(ARRAY_SIZE(fault_other_off))

/*
 * One copy of len bytes from d bytes before b->boundary, where the source
 * stops being readable, to dst + GUARD + doff: exactly len - d bytes left,
 * the d bytes before the boundary copied, nothing else written. Ends the
 * test on failure.
 */
static void check_source_fault(struct __test_metadata *_metadata,
			       const struct bufs *b, const char *what, size_t d,
			       size_t len, size_t doff)
{
	const struct at at = { what, d, len, (PAGE - d) % PAGE, doff };
	const uint8_t *s = b->boundary - d;
	uint8_t *dst = b->dst + GUARD + doff;

	memset(dst - GUARD, POISON, len + 2 * GUARD);
	assert_left(_metadata, b, &at, b->copy(dst, s, len), len - d);
	assert_dst(_metadata, b, &at, dst, s, GUARD, d, len + GUARD);
}

/*
 * One copy of len bytes from src + soff to d bytes before b->boundary, where
 * the destination stops being writable: exactly len - d bytes left, the d
 * bytes before the boundary copied, and the span - d bytes before those
 * (poisoned first) untouched. Ends the test on failure.
 */
static void check_dest_fault(struct __test_metadata *_metadata,
			     const struct bufs *b, const char *what, size_t d,
			     size_t len, size_t soff, size_t span)
{
	const struct at at = { what, d, len, soff, (PAGE - d) % PAGE };
	const uint8_t *s = b->src + soff;
	uint8_t *dst = b->boundary - d;

	memset(b->boundary - span, POISON, span);
	assert_left(_metadata, b, &at, b->copy(dst, s, len), len - d);
	assert_dst(_metadata, b, &at, dst, s, span - d, d, d);
}

/* orig copies backward when the source's low byte is below (signed). */
static int orig_backward(const void *dst, const void *src)
{
	return (int8_t)(uintptr_t)src < (int8_t)(uintptr_t)dst;
}

/*
 * A source ending at a PROT_NONE page, at every distance 0..300: the exact
 * count comes back, the readable prefix is copied, nothing else written.
 */
TEST_F(fault, stops_exactly_at_unreadable_source_page)
{
	struct bufs *b = &self->b;
	size_t d, i, n = 0, faults = 0, backward = 0;
	double t = now_s();

	fill_pattern(b->boundary - 2 * PAGE, 2 * PAGE);
	for (d = 0; d <= FAULT_DIST_MAX; d++)
		for (i = 0; i < ARRAY_SIZE(fault_extra); i++, n++) {
			size_t len = d + fault_extra[i];
			size_t doff = fault_other_off[(d + i) % NOTHER];

			check_source_fault(_metadata, b, "unreadable source", d,
					   len, doff);
			faults += len > d;
			backward += len >= 32 &&
				    orig_backward(b->dst + GUARD + doff, b->boundary - d);
		}
	TH_LOG("%s: %zu copies (%zu faulting, %zu in orig's backward direction) in %.2f s",
	       b->v->name, n, faults, backward, now_s() - t);
}

/*
 * A destination ending at a PROT_NONE page, at every distance 0..300: the
 * exact count, the writable prefix copied, the rest of its page untouched.
 */
TEST_F(fault, stops_exactly_at_unwritable_destination_page)
{
	struct bufs *b = &self->b;
	size_t d, i, n = 0, faults = 0, backward = 0;
	double t = now_s();

	for (d = 0; d <= FAULT_DIST_MAX; d++)
		for (i = 0; i < ARRAY_SIZE(fault_extra); i++, n++) {
			size_t len = d + fault_extra[i];
			size_t soff = fault_other_off[(d + i) % NOTHER];

			check_dest_fault(_metadata, b, "unwritable destination",
					 d, len, soff, PAGE);
			faults += len > d;
			backward += len >= 32 &&
				    orig_backward(b->boundary - d, b->src + soff);
		}
	TH_LOG("%s: %zu copies (%zu faulting, %zu in orig's backward direction) in %.2f s",
	       b->v->name, n, faults, backward, now_s() - t);
}

/* Distances before the hole for the hole tests. */
static const size_t hole_dist[] = {
	0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 300,
	2048, PAGE - 1, PAGE,
};

/* Bytes of the copy that land in the mapped page after the hole. */
static const size_t hole_after[] = { 1, 8, 63, 64, 300, PAGE };

/*
 * A source with an unreadable page in the middle and readable memory after
 * it: the exact count, and nothing written at or past the first unreadable
 * byte even though the source is readable again further on.
 */
TEST_F(fault, writes_nothing_past_unreadable_source_hole)
{
	struct bufs *b = &self->b;
	size_t i, j, k, n = 0;

	fill_pattern(b->edge, 2 * PAGE);
	fill_pattern(b->boundary + 2 * PAGE, PAGE);
	for (i = 0; i < ARRAY_SIZE(hole_dist); i++)
		for (j = 0; j < ARRAY_SIZE(hole_after); j++)
			for (k = 0; k < ARRAY_SIZE(fault_other_off);
			     k++, n++) {
				size_t d = hole_dist[i];
				size_t len = d + 2 * PAGE + hole_after[j];

				check_source_fault(_metadata, b, "source hole", d,
						   len, fault_other_off[k]);
			}
	TH_LOG("%s: %zu copies across a hole checked", b->v->name, n);
}

/*
 * A destination with an unwritable page in the middle and writable memory
 * after it: the exact count, and the page after the hole untouched.
 */
TEST_F(fault, writes_nothing_past_unwritable_destination_hole)
{
	struct bufs *b = &self->b;
	size_t i, j, k, n = 0;
	uint8_t *after = b->boundary + 2 * PAGE;

	for (i = 0; i < ARRAY_SIZE(hole_dist); i++)
		for (j = 0; j < ARRAY_SIZE(hole_after); j++)
			for (k = 0; k < ARRAY_SIZE(fault_other_off);
			     k++, n++) {
				size_t d = hole_dist[i];
				size_t len = d + 2 * PAGE + hole_after[j];
				size_t soff = fault_other_off[k];
				const struct at after_at = {
					"page after the destination hole", d,
					len, soff, (PAGE - d) % PAGE
				};

				memset(after, POISON, PAGE);
				check_dest_fault(_metadata, b, "destination hole",
						 d, len, soff, 2 * PAGE);
				/* A dst[] index here counts from that page's start. */
				assert_dst(_metadata, b, &after_at, after,
					   b->src + soff, 0, 0, PAGE);
			}
	TH_LOG("%s: %zu copies across a hole checked", b->v->name, n);
}

#define FAULTS_PER_THREAD	2000

/* One thread of the concurrent fault test: its own mappings, same checks. */
struct fault_thread {
	const struct cb_variant *v;
	unsigned int seed;
	size_t copies;
	char error[256];	/* first failure, empty if none */
};

static void *fault_thread_fn(void *arg)
{
	struct fault_thread *ft = arg;
	uint8_t *edge, *boundary = map_edge(&edge);
	uint8_t dst[2 * PAGE + 2 * GUARD];
	size_t i;

	if (!boundary) {
		snprintf(ft->error, sizeof(ft->error), "mmap: %s", strerror(errno));
		return NULL;
	}
	fill_pattern(edge, 2 * PAGE);
	for (i = 0; i < FAULTS_PER_THREAD; i++) {
		size_t d = rand_r(&ft->seed) % (FAULT_DIST_MAX + 1);
		size_t len = d + rand_r(&ft->seed) % PAGE;
		const uint8_t *s = boundary - d;
		uint8_t *dd = dst + GUARD + rand_r(&ft->seed) % 64;
		unsigned long left;
		long bad;

		memset(dd - GUARD, POISON, len + 2 * GUARD);
		left = ft->v->copy(dd, s, len);
		bad = first_bad(dd, s, GUARD, d, len + GUARD);
		if (left != len - d || bad != CB_GOOD) {
			snprintf(ft->error, sizeof(ft->error),
				 "%s: len %zu distance %zu: returned %lu (want %zu), first bad byte %ld",
				 ft->v->name, len, d, left, len - d,
				 bad == CB_GOOD ? -1L : bad);
			break;
		}
		ft->copies++;
	}
	munmap(edge, EDGE_PAGES * PAGE);
	return NULL;
}

/* Four threads fault at once: every one still gets exact counts. */
TEST_F(fault, faults_stay_exact_in_concurrent_threads)
{
	struct bufs *b = &self->b;
	struct fault_thread ft[4];
	pthread_t tid[4];
	size_t total = 0;
	int i;

	for (i = 0; i < 4; i++) {
		memset(&ft[i], 0, sizeof(ft[i]));
		ft[i].v = b->v;
		ft[i].seed = 12345 + i;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, fault_thread_fn, &ft[i]));
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
	for (i = 0; i < 4; i++) {
		if (ft[i].error[0])
			TH_LOG("thread %d: %s", i, ft[i].error);
		EXPECT_EQ(0, ft[i].error[0]);
		total += ft[i].copies;
	}
	TH_LOG("%s: %zu faulting copies in 4 threads checked", b->v->name, total);
}

/* The other side of orig_backward_fault_after_probes_retries_from_start. */
struct uffd_ctx {
	int uffd;
	uint8_t *src;		/* 3 pages; the third is missing until copied */
	uint8_t page[PAGE];	/* what the third page gets */
	int err;		/* errno of what went wrong, 0 if nothing */
};

static void *uffd_thread_fn(void *arg)
{
	struct uffd_ctx *c = arg;
	struct uffdio_copy copy = {
		.dst = (uintptr_t)c->src + 2 * PAGE,
		.src = (uintptr_t)c->page,
		.len = PAGE,
	};

	/* The copy reached the third page, so it has probed the first two. */
	c->err = uffd_wait_fault(c->uffd);
	if (c->err)
		return NULL;
	/* Take the second page away, then let the copy go on. */
	if (mprotect(c->src + PAGE, PAGE, PROT_NONE) ||
	    ioctl(c->uffd, UFFDIO_COPY, &copy))
		c->err = errno;
	return NULL;
}

/*
 * orig's _user instance probes every page before it copies backward; only
 * a mapping changed by another thread after the probes can fault its
 * backward loop. Make that happen deterministically (the copy's probe of
 * the third source page blocks on userfaultfd while another thread makes
 * the second page PROT_NONE): the copy must retry from the start and
 * return the exact count, with the first page copied.
 */
TEST(orig_backward_fault_after_probes_retries_from_start)
{
	const struct cb_variant *v = cb_variant_find("orig");
	static struct uffd_ctx c;
	size_t i, above = 0, len = 3 * PAGE;
	uint8_t *dst, *d;
	unsigned long left;
	pthread_t tid;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(0, cb_fault_init());
	c.src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c.src);
	dst = mmap(NULL, len + PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	fill_pattern(c.src, 2 * PAGE);
	for (i = 0; i < PAGE; i++)
		c.page[i] = pattern(2 * PAGE + i);
	c.uffd = uffd_watch_missing(c.src + 2 * PAGE, PAGE);
	if (c.uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));

	/* Page-aligned source, destination at 0x10: the backward direction. */
	d = dst + 0x10;
	ASSERT_TRUE(orig_backward(d, c.src));
	memset(dst, POISON, len + PAGE);
	ASSERT_EQ(0, pthread_create(&tid, NULL, uffd_thread_fn, &c));
	left = v->copy(d, c.src, len);
	ASSERT_EQ(0, pthread_join(tid, NULL));
	ASSERT_EQ(0, c.err);

	ASSERT_EQ(2 * PAGE, left);
	ASSERT_EQ(0, memcmp(d, c.src, PAGE));
	for (i = 2 * PAGE; i < len; i++)
		above += d[i] == c.page[i - 2 * PAGE];
	TH_LOG("orig: retried from the start, %lu left; %zu bytes above the fault",
	       left, above);
	TH_LOG("were already written by the backward loop (the documented race)");
	munmap(dst, len + PAGE);
	munmap(c.src, len);
	close(c.uffd);
}

/* The table: every list entry once, in list order, then native. */
TEST(table_lists_every_variant_then_native)
{
	static const struct {
		const char *name;
		unsigned int needs;
	} listed[] = {
#define CB_VARIANT(vname, vneeds, vdesc) { #vname, vneeds },
#include "copy_variants_list.h"
#undef CB_VARIANT
	};
	unsigned int n = ARRAY_SIZE(listed), i;
	const struct cb_variant *v;

	ASSERT_EQ(n + 1, cb_variant_count());
	for (i = 0; i < n; i++) {
		v = cb_variant_at(i);
		ASSERT_NE(NULL, v);
		EXPECT_STREQ(listed[i].name, v->name);
		EXPECT_EQ(listed[i].needs, v->needs);
		EXPECT_EQ(v, cb_variant_find(listed[i].name));
		EXPECT_NE(NULL, v->copy);
		EXPECT_NE(NULL, v->copy_memcpy);
		EXPECT_NE(v->copy, v->copy_memcpy);
		EXPECT_NE(NULL, v->desc);
		EXPECT_EQ(1, v->fault_exact);
	}
	v = cb_variant_at(n);
	ASSERT_NE(NULL, v);
	EXPECT_STREQ(CB_NATIVE_NAME, v->name);
	EXPECT_EQ(0, v->fault_exact);
	EXPECT_EQ(v->copy, v->copy_memcpy);
	EXPECT_EQ(1, cb_variant_usable(v));
	EXPECT_EQ(NULL, cb_variant_at(n + 1));
	EXPECT_EQ(NULL, cb_variant_find("no-such-variant"));
	EXPECT_EQ(NULL, cb_variant_find(""));
	EXPECT_EQ(0, cb_variant_usable(NULL));
	EXPECT_EQ(1, cb_variant_usable(cb_variant_find("bytes")));
}

/* A file mapping past the end of its file raises SIGBUS: exact counts too. */
TEST(stops_exactly_at_sigbus_page)
{
	static const size_t dist[] = { 0, 1, 8, 63, 64, 100, 300 };
	uint8_t *map, dst[PAGE];
	unsigned int i;
	size_t k;
	int fd;

	ASSERT_EQ(0, cb_fault_init());
	fd = memfd_create("variants_test", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, PAGE));
	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	fill_pattern(map, PAGE);
	for (i = 0; i < cb_variant_count(); i++) {
		const struct cb_variant *v = cb_variant_at(i);

		if (!v->fault_exact || !cb_variant_usable(v))
			continue;
		for (k = 0; k < ARRAY_SIZE(dist); k++) {
			size_t d = dist[k];
			unsigned long left;

			/* Read side: the page past EOF. */
			memset(dst, POISON, sizeof(dst));
			left = v->copy(dst, map + PAGE - d, 1000);
			if (left != 1000 - d ||
			    first_bad(dst, map + PAGE - d, 0, d, sizeof(dst)) != CB_GOOD)
				TH_LOG("%s read: distance %zu: returned %lu", v->name, d, left);
			EXPECT_EQ(1000 - d, left);
			/* Write side: the same page as a destination. */
			left = v->copy(map + PAGE - d, dst, 1000);
			if (left != 1000 - d)
				TH_LOG("%s write: distance %zu: returned %lu", v->name, d, left);
			EXPECT_EQ(1000 - d, left);
			EXPECT_EQ(0, memcmp(map + PAGE - d, dst, d));
		}
	}
	munmap(map, 2 * PAGE);
	close(fd);
}

/*
 * The ten-line user program of Documentation/variants.rst, built with only
 * copy_variants.h and the archive next to this binary, lists every usable
 * variant, copies with each and gets the exact count across a hole.
 */
TEST(example_program_lists_copies_and_counts_exactly)
{
	char exe[PATH_MAX], path[PATH_MAX + 32], line[512], *slash;
	unsigned int i, seen = 0, usable = 0;
	ssize_t n;
	FILE *out;
	int status;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	ASSERT_NE(NULL, slash);
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/variants_example", exe);
	if (access(path, X_OK))
		TH_LOG("%s: %s (built with the selftests)", path, strerror(errno));
	ASSERT_EQ(0, access(path, X_OK));

	out = popen(path, "r");
	ASSERT_NE(NULL, out);
	while (fgets(line, sizeof(line), out)) {
		const struct cb_variant *v;
		char name[64];

		fprintf(stderr, "# example: %s", line);
		if (sscanf(line, "%63s", name) != 1)
			continue;
		v = cb_variant_find(name);
		if (!v)
			continue;
		seen++;
		EXPECT_NE(NULL, strstr(line, v->fault_exact ?
			  "200 bytes: 0 left, 100 before a hole: 100 left\n" :
			  "200 bytes: 0 left\n"));
	}
	status = pclose(out);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < cb_variant_count(); i++)
		usable += cb_variant_usable(cb_variant_at(i));
	EXPECT_EQ(usable, seen);
}

TEST_HARNESS_MAIN
