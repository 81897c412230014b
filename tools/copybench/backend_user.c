// SPDX-License-Identifier: GPL-2.0
/*
 * backend_user.c - the "user" backend: libcopyvariants (the userspace
 * build of copy_variants.S) timed in this process, the way copybench.ko's
 * cb_run.c times a run, plus what precision across processes needs:
 *
 *  - one process of a record (a worker, worker.c), pinned to its CPU,
 *    warmed up for 20 ms first;
 *  - one pair of buffers for every point, each in a region that starts
 *    on a 2 MiB boundary and is backed by transparent huge pages when the
 *    kernel allows (MADV_HUGEPAGE), each buffer shifted into its region as
 *    the process's placement says: which cache sets a copy touches is
 *    then the placement's doing, the same wherever the kernel put the
 *    huge pages;
 *  - loops calibrated as the module does (the smallest power of two whose
 *    sample takes 10 us), one untimed sample at the final loops, then the
 *    timed samples; the baseline (the median of up to 31 samples of the
 *    same loop around an empty copy) measured once per process for each
 *    power-of-two loops, at start, before any copy (ub_baseline() says why);
 *  - after every 8th sample, a clock probe (a chain of dependent adds, one
 *    core clock each) gives the core clocks per TSC cycle during the run;
 *  - sampling ends at --samples, or after 100 ms once 101 samples are in
 *    (long copies, whose every sample is long);
 *  - interrupts, context switches and steal on the CPU during the samples
 *    are counted (/proc/interrupts, getrusage(), /proc/stat) and as many of
 *    the slowest samples are discarded, at most half of them;
 *  - the copied bytes are checked after the timing.
 *
 * Directions: memcpy times cb_<name>_memcpy, to_user and from_user time
 * cb_<name>_user (in userspace both sides are user memory, so the two are
 * the same copy); libc's memcpy is "native". cache=cold flushes both
 * ranges with clflush before each copy, outside the timed window, and
 * times each copy by itself (the baseline then too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <x86intrin.h>
#include <linux/types.h>

#include "copybench.h"
#include "copy_variants.h"
#include "backend.h"
#include "figures.h"
#include "place.h"
#include "slowdown.h"
#include "stats.h"

#define UB_HUGE			(2UL << 20)
#define UB_GUARD		64UL	/* bytes checked beyond the copy */
#define UB_BASELINE_SAMPLES	31UL
#define UB_BASE_POW2		13	/* baselines kept for loops 1, 2, 4 .. 4096 */
/* hot, hot with random sizes, cold; the latency chain, fixed and random sizes */
#define UB_BASE_KINDS		5
#define UB_BASE_TABLE_SAMPLES	101
#define UB_RANDOM_DRAWS		4096UL	/* random sizes drawn per point */
/*
 * A random point's draw: its size in the low 32 bits, and above them the
 * offset, in [0, UB_DRAW_OFFSETS), by which both of that copy's buffers
 * move: each copy draws where in a cache line it starts as well as how
 * long it is, so that neither its size nor its alignment is one the
 * predictors can learn (the distance dst - src stays the point's).
 */
#define UB_DRAW_OFFSETS		64UL
#define UB_DRAW_LEN(d)		((d) & 0xffffffffUL)
#define UB_DRAW_OFF(d)		((d) >> 32)
#define UB_WARMUP_NS		20000000ULL
/*
 * A point's sampling ends at --samples, or after this long once it has
 * UB_BUDGET_SAMPLES: the long copies (a byte loop over a megabyte takes
 * half a millisecond) need fewer samples for a steady minimum, and would
 * otherwise take most of a sweep's time.
 */
#define UB_BUDGET_NS		100000000ULL
#define UB_BUDGET_SAMPLES	101UL
/*
 * --slow-native: each measurement of the search is the median of this
 * many pairs of a plain and a slowed sample; at most this many
 * measurements (ub_slow_native()).
 */
#define UB_SLOW_PAIRS		31
#define UB_SLOW_STEPS		16
/* The clock probe after every this many samples. */
#define UB_PROBE_EVERY		8UL
#define UB_SAMPLE_MAX_MS	1000ULL	/* bound of one sample, as the module's */

typedef unsigned long (*ub_copy_fn)(void *dst, const void *src, unsigned long len);

/* The directions this backend times, and with which entry point. */
static const struct {
	const char *name;
	int memcpy_entry;
} ub_dirs[] = {
	{ "memcpy", 1 },
	{ "to_user", 0 },
	{ "from_user", 0 },
};

struct ub {
	char *map, *src, *dst;		/* the regions */
	char *src_at, *dst_at;		/* the buffers: shifted as placed */
	size_t maplen, region;
	unsigned long lens[UB_RANDOM_DRAWS];	/* random points' draws (ub_draw()) */
	double *s, *base, *probe;
	double base_tab[UB_BASE_KINDS][UB_BASE_POW2];	/* 0: not measured */
	int cold, random;		/* the plan has cold points, random sizes */
	unsigned long long deadline_ns;
};

/*
 * Test-only --slow-native and --slow-spell: a sample of loops copies makes
 * bytes more copying, as extra more copies of the same kind and one more
 * copy of part bytes (ub_slow_of()).
 */
struct ub_slow {
	unsigned long extra, part;
	unsigned long long bytes;
	double got;			/* the change it made, measured (a fraction) */
};

static const struct ub_slow ub_no_slow;

/* One point's timing state. */
struct ub_run {
	ub_copy_fn fn;
	char *dst;
	const char *src;
	unsigned long len;		/* fixed size; 0 with lens */
	const unsigned long *lens;	/* random sizes, or NULL */
	unsigned long pos;		/* next draw */
	int cold;
	int lat;			/* samples of the latency chain, not back to back */
	unsigned long left;		/* OR of the copies' return values */
	/* test-only --slow-native: more copying, back to back [0] and chained [1] */
	struct ub_slow slow[2];
	unsigned int site;		/* ub_sites[] the next sample is taken from */
	int libc;			/* native: libc's memcpy, called by the loop */
};

/*
 * The cheapest copy there is: one byte loaded, stored at both ends of the
 * destination. Its latency in the chain is the chain's own cost (the
 * call, a load, a store forwarded to the chain's loads, their OR, AND and
 * add): a copy's latency above it is the copy's (measure.rst).
 */
static noinline unsigned long ub_chain_copy(void *dst, const void *src, unsigned long len)
{
	char c = *(const char *)src;

	((char *)dst)[0] = c;
	((char *)dst)[len ? len - 1 : 0] = c;
	asm volatile("" : : : "memory");
	return 0;
}

/*
 * The chain: the next source, src + ((the bytes at both ends of what was
 * copied) & z), z a zero the compiler cannot see (it came through an
 * empty asm), so the next copy cannot start before both bytes can be read.
 */
static inline __always_inline const char *ub_chain(const char *src, const char *dst,
						   unsigned long len, unsigned long z)
{
	unsigned long last = len ? len - 1 : 0;

	return src + (((unsigned long)(unsigned char)dst[0] |
		       (unsigned long)(unsigned char)dst[last]) & z);
}

static unsigned long ub_empty_copy(void *dst, const void *src, unsigned long len)
{
	asm volatile("" : : "r" (dst), "r" (src), "r" (len) : "memory");
	return 0;
}

/* libc's memcpy, "native": called by the timing loops themselves (below). */
typedef void *(*ub_libc_fn)(void *dst, const void *src, size_t len);

/*
 * Hot, fixed size: one window around loops copies, as cb_sample() does,
 * then (the test-only --slow-native and --slow-spell) sl->extra more of
 * the same and one of sl->part bytes: a change of the code timed that is
 * more of the code timed, its cost the copy's own whatever the copy
 * overlaps with (a chain of adds after each copy, as before, hid in the
 * copy's shadow and moved a 512 B copy by 5 to 70% for a 5% request). One
 * loop for plain and slowed samples: with a loop of its own the slowed
 * copy of 1 and 16 bytes came out up to 15% faster than the plain one,
 * the two loops' code placed apart. libc: each copy is mc's (libc's
 * memcpy, which returns no count of bytes left), else fn's; a constant
 * (UB_SITE()), so no branch is left in the loop.
 */
static inline __always_inline unsigned long long
ub_hot_fixed(const bool libc, const bool lat, ub_copy_fn fn, ub_libc_fn mc, char *dst,
	     const char *src, unsigned long len, unsigned long loops, unsigned long *left,
	     const struct ub_slow *sl)
{
	unsigned long long t0, t1;
	unsigned long l = 0, i, n = loops + sl->extra, part = sl->part, z = 0;
	const char *s = src;

	asm volatile("" : "+r" (fn), "+r" (mc), "+r" (z));
	t0 = cb_rdtsc();
	for (i = 0; i < n; i++) {
		l |= libc ? (mc(dst, s, len), 0UL) : fn(dst, s, len);
		if (lat)
			s = ub_chain(src, dst, len, z);
	}
	if (part) {
		l |= libc ? (mc(dst, s, part), 0UL) : fn(dst, s, part);
		if (lat)
			s = ub_chain(src, dst, part, z);
	}
	asm volatile("" : : "r" (s));
	t1 = cb_rdtsc();
	*left |= l;
	return t1 - t0;
}

/* Hot, random sizes: the same, each copy's size and offset the next draw. */
static inline __always_inline unsigned long long
ub_hot_random(const bool libc, const bool lat, ub_copy_fn fn, ub_libc_fn mc, char *dst,
	      const char *src, const unsigned long *lens, unsigned long pos, unsigned long loops,
	      unsigned long *left)
{
	unsigned long long t0, t1;
	unsigned long l = 0, i, d, len, off, z = 0;
	const char *s = src;

	asm volatile("" : "+r" (fn), "+r" (mc), "+r" (z));
	t0 = cb_rdtsc();
	for (i = 0; i < loops; i++) {
		d = lens[(pos + i) & (UB_RANDOM_DRAWS - 1)];
		len = UB_DRAW_LEN(d);
		off = UB_DRAW_OFF(d);
		l |= libc ? (mc(dst + off, s + off, len), 0UL) : fn(dst + off, s + off, len);
		if (lat)
			s = ub_chain(src, dst + off, len, z);
	}
	asm volatile("" : : "r" (s));
	t1 = cb_rdtsc();
	*left |= l;
	return t1 - t0;
}

/*
 * The call sites. Each hot loop exists UB_SITES times, each copy at the
 * start of a page of its own (the same code at the same offset in its
 * page, other addresses above it), and a point's samples rotate over them
 * (r->site: a burst at one site, the next burst at the next). A call site
 * of a short copy settles, in its first calls, into one of a few speeds a
 * whole core clock apart and keeps it for the process's life; which one
 * differs from site to site and from process to process, with ASLR and
 * without. With one site a process's figure was the speed its site drew,
 * and the processes of a record sat at two or three levels
 * (Documentation/measure.rst, "Call sites"): the fastest sample of a point
 * over UB_SITES sites is the speed every process finds.
 *
 * "native" is libc's memcpy called by the loop itself (mc), as every
 * fixed copy is (fn): through a wrapper it was called from the wrapper's
 * one call site in every loop and every process, and that site's level
 * was the process's whatever the loop's sites did. Each loop is a
 * function of its own at its site (the loop at the top of its page): with
 * both kinds in one function the baseline's empty loop, placed after
 * the other, ran at 3.5 to 5.3 TSC clocks a call from process to process
 * on the Zen 4, against 3.50 to 3.52 at the top of a page.
 */
#define UB_SITES		16

/* The four loops of one kind (back to back, or the latency chain) at site k. */
#define UB_SITE_LOOPS(k, kind, lat)							\
static noinline __aligned(4096) unsigned long long					\
ub_##kind##fixed_##k(ub_copy_fn fn, char *dst, const char *src, unsigned long len,	\
		     unsigned long loops, unsigned long *left, const struct ub_slow *sl)	\
{											\
	/* The site's number in its code: no two sites folded into one. */		\
	asm volatile("# call site " #k);						\
	return ub_hot_fixed(false, lat, fn, NULL, dst, src, len, loops, left, sl);	\
}											\
											\
static noinline __aligned(4096) unsigned long long					\
ub_##kind##libc_fixed_##k(ub_libc_fn mc, char *dst, const char *src, unsigned long len,	\
			  unsigned long loops, unsigned long *left,			\
			  const struct ub_slow *sl)					\
{											\
	asm volatile("# call site " #k);						\
	return ub_hot_fixed(true, lat, NULL, mc, dst, src, len, loops, left, sl);	\
}											\
											\
static noinline __aligned(4096) unsigned long long					\
ub_##kind##random_##k(ub_copy_fn fn, char *dst, const char *src,			\
		      const unsigned long *lens, unsigned long pos, unsigned long loops,	\
		      unsigned long *left)						\
{											\
	asm volatile("# call site " #k);						\
	return ub_hot_random(false, lat, fn, NULL, dst, src, lens, pos, loops, left);	\
}											\
											\
static noinline __aligned(4096) unsigned long long					\
ub_##kind##libc_random_##k(ub_libc_fn mc, char *dst, const char *src,			\
			   const unsigned long *lens, unsigned long pos,			\
			   unsigned long loops, unsigned long *left)			\
{											\
	asm volatile("# call site " #k);						\
	return ub_hot_random(true, lat, NULL, mc, dst, src, lens, pos, loops, left);	\
}

UB_SITE_LOOPS(0, tput_, false)  UB_SITE_LOOPS(1, tput_, false)
UB_SITE_LOOPS(2, tput_, false)  UB_SITE_LOOPS(3, tput_, false)
UB_SITE_LOOPS(4, tput_, false)  UB_SITE_LOOPS(5, tput_, false)
UB_SITE_LOOPS(6, tput_, false)  UB_SITE_LOOPS(7, tput_, false)
UB_SITE_LOOPS(8, tput_, false)  UB_SITE_LOOPS(9, tput_, false)
UB_SITE_LOOPS(10, tput_, false) UB_SITE_LOOPS(11, tput_, false)
UB_SITE_LOOPS(12, tput_, false) UB_SITE_LOOPS(13, tput_, false)
UB_SITE_LOOPS(14, tput_, false) UB_SITE_LOOPS(15, tput_, false)
UB_SITE_LOOPS(0, lat_, true)    UB_SITE_LOOPS(1, lat_, true)
UB_SITE_LOOPS(2, lat_, true)    UB_SITE_LOOPS(3, lat_, true)
UB_SITE_LOOPS(4, lat_, true)    UB_SITE_LOOPS(5, lat_, true)
UB_SITE_LOOPS(6, lat_, true)    UB_SITE_LOOPS(7, lat_, true)
UB_SITE_LOOPS(8, lat_, true)    UB_SITE_LOOPS(9, lat_, true)
UB_SITE_LOOPS(10, lat_, true)   UB_SITE_LOOPS(11, lat_, true)
UB_SITE_LOOPS(12, lat_, true)   UB_SITE_LOOPS(13, lat_, true)
UB_SITE_LOOPS(14, lat_, true)   UB_SITE_LOOPS(15, lat_, true)

/* A site's loops of one kind: [0] back to back, [1] the latency chain. */
struct ub_site {
	unsigned long long (*fixed)(ub_copy_fn fn, char *dst, const char *src, unsigned long len,
				    unsigned long loops, unsigned long *left,
				    const struct ub_slow *sl);
	unsigned long long (*libc_fixed)(ub_libc_fn mc, char *dst, const char *src,
					 unsigned long len, unsigned long loops,
					 unsigned long *left, const struct ub_slow *sl);
	unsigned long long (*random)(ub_copy_fn fn, char *dst, const char *src,
				     const unsigned long *lens, unsigned long pos,
				     unsigned long loops, unsigned long *left);
	unsigned long long (*libc_random)(ub_libc_fn mc, char *dst, const char *src,
					  const unsigned long *lens, unsigned long pos,
					  unsigned long loops, unsigned long *left);
};

static const struct ub_site ub_sites[UB_SITES][2] = {
#define UB_SITE_KIND(k, kind)	{ ub_##kind##fixed_##k, ub_##kind##libc_fixed_##k,	\
				  ub_##kind##random_##k, ub_##kind##libc_random_##k }
#define UB_SITE_FNS(k)		{ UB_SITE_KIND(k, tput_), UB_SITE_KIND(k, lat_) }
	UB_SITE_FNS(0),  UB_SITE_FNS(1),  UB_SITE_FNS(2),  UB_SITE_FNS(3),
	UB_SITE_FNS(4),  UB_SITE_FNS(5),  UB_SITE_FNS(6),  UB_SITE_FNS(7),
	UB_SITE_FNS(8),  UB_SITE_FNS(9),  UB_SITE_FNS(10), UB_SITE_FNS(11),
	UB_SITE_FNS(12), UB_SITE_FNS(13), UB_SITE_FNS(14), UB_SITE_FNS(15),
#undef UB_SITE_FNS
#undef UB_SITE_KIND
};

static void ub_flush(const char *p, unsigned long len)
{
	uintptr_t a = (uintptr_t)p & ~63UL, end = (uintptr_t)p + len;

	for (; a < end; a += 64)
		_mm_clflush((const void *)a);
}

/*
 * Cold: both ranges flushed before each copy, each copy timed alone; fn,
 * or libc's memcpy mc when not NULL.
 */
static noinline unsigned long long
ub_cold(struct ub_run *r, ub_copy_fn fn, ub_libc_fn mc, unsigned long loops)
{
	unsigned long long t0, sum = 0;
	unsigned long i, d, len, off;

	asm volatile("" : "+r" (fn), "+r" (mc));
	for (i = 0; i < loops; i++) {
		d = r->lens ? r->lens[(r->pos + i) & (UB_RANDOM_DRAWS - 1)] : r->len;
		len = UB_DRAW_LEN(d);
		off = UB_DRAW_OFF(d);
		ub_flush(r->src + off, len);
		ub_flush(r->dst + off, len);
		_mm_mfence();
		t0 = cb_rdtsc();
		if (mc)
			mc(r->dst + off, r->src + off, len);
		else
			r->left |= fn(r->dst + off, r->src + off, len);
		sum += cb_rdtsc() - t0;
	}
	return sum;
}

/* The call sites n samples (or bursts) came from, a site each in turn. */
static unsigned int ub_sites_used(unsigned long long n)
{
	return n < UB_SITES ? (unsigned int)n : UB_SITES;
}

/*
 * One sample of loops copies with fn (the copy, or the empty one), hot
 * from call site r->site; a cold copy is timed alone, at one site.
 */
static unsigned long long ub_sample(struct ub_run *r, ub_copy_fn fn, unsigned long loops)
{
	const struct ub_site *site = &ub_sites[r->site % UB_SITES][!!r->lat];
	ub_libc_fn mc = r->libc && fn == r->fn ? memcpy : NULL;
	const struct ub_slow *sl = &r->slow[!!r->lat];
	unsigned long long t;

	if (r->cold)
		t = ub_cold(r, fn, mc, loops);
	else if (r->lens && mc)
		t = site->libc_random(mc, r->dst, r->src, r->lens, r->pos, loops, &r->left);
	else if (r->lens)
		t = site->random(fn, r->dst, r->src, r->lens, r->pos, loops, &r->left);
	else if (mc)
		t = site->libc_fixed(mc, r->dst, r->src, r->len, loops, &r->left, sl);
	else
		t = site->fixed(fn, r->dst, r->src, r->len, loops, &r->left,
				fn == r->fn ? sl : &ub_no_slow);
	r->pos += loops;
	return t;
}

/* A timed sample of r's copy, TSC cycles per copy. */
static double ub_timed(struct ub_run *r, unsigned long loops)
{
	return (double)ub_sample(r, r->fn, loops) / (double)loops;
}

/*
 * The copy a baseline is of: the empty one, whose loop is the loop's own
 * cost; in the latency chain, the cheapest copy (ub_chain_copy()).
 */
static ub_copy_fn ub_base_copy(const struct ub_run *r)
{
	return r->lat ? ub_chain_copy : ub_empty_copy;
}

/* The median of up to UB_BASELINE_SAMPLES samples of the baseline's copy. */
static double ub_baseline_measure(struct ub *u, struct ub_run *r, unsigned long loops,
				  unsigned long samples)
{
	unsigned long i, n = samples < UB_BASELINE_SAMPLES ? samples : UB_BASELINE_SAMPLES;

	for (i = 0; i < n; i++) {
		r->site = (unsigned int)i;
		u->base[i] = (double)ub_sample(r, ub_base_copy(r), loops) / (double)loops;
	}
	cb_stats_sort(u->base, n);
	return cb_stats_median(u->base, n);
}

static int ub_base_kind(const struct ub_run *r)
{
	return r->cold ? 2 : (r->lat ? 3 : 0) + (r->lens ? 1 : 0);
}

/*
 * The baseline of a point: from the table measured at start when loops is
 * a power of two it holds, else measured now. Why once per process: the
 * empty call's loop runs at one of two speeds on some CPUs, depending on
 * what ran before (4.2 or 6.3 TSC cycles per call on the development
 * machine's Zen 3, while the copies' loops stay put to 0.1%), so a baseline
 * measured beside each point carries that history into its figures.
 */
static double ub_baseline(struct ub *u, struct ub_run *r, unsigned long loops,
			  unsigned long samples)
{
	unsigned int k = 0;

	while (k < UB_BASE_POW2 && (1UL << k) < loops)
		k++;
	if (k < UB_BASE_POW2 && (1UL << k) == loops && u->base_tab[ub_base_kind(r)][k] > 0)
		return u->base_tab[ub_base_kind(r)][k];
	return ub_baseline_measure(u, r, loops, samples);
}

/*
 * The table, in the state the process starts in, before any copy ran: the
 * fastest of UB_BASE_TABLE_SAMPLES samples each (the machine's other work
 * cannot push it up as it pushes up a median), and of what earlier calls
 * found: ub_open() measures it three times, around the warm-up, because the
 * slower of the two speeds, once in, stays for a while.
 */
static void ub_baseline_table(struct ub *u)
{
	struct ub_run r = { .dst = u->dst_at, .src = u->src_at };
	unsigned int kind, k, i;
	double t, best;

	for (kind = 0; kind < UB_BASE_KINDS; kind++) {
		/* Random sizes and cold copies only where the plan has them. */
		if (((kind == 1 || kind == 4) && !u->random) || (kind == 2 && !u->cold))
			continue;
		/* zeros: the loads are what counts */
		r.lens = kind == 1 || kind == 4 ? u->lens : NULL;
		r.cold = kind == 2;
		r.lat = kind >= 3;
		for (k = 0; k < UB_BASE_POW2; k++) {
			best = u->base_tab[kind][k];
			for (i = 0; i < UB_BASE_TABLE_SAMPLES; i++) {
				r.site = i;
				t = (double)ub_sample(&r, ub_base_copy(&r), 1UL << k) /
				    (double)(1UL << k);
				best = best <= 0 || t < best ? t : best;
			}
			u->base_tab[kind][k] = best;
		}
	}
}

/* Interrupts, context switches and steal ticks of cpu so far. */
static unsigned long long ub_disturbances(int cpu)
{
	unsigned long long sum = 0, v, f[10];
	char *text, *line, *save = NULL, *tok, *end, want[16];
	struct rusage ru;
	int col = -1, c, n;

	snprintf(want, sizeof(want), "CPU%d", cpu);
	text = cb_read_file("/proc/interrupts", NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (col < 0) {	/* the header: which column is ours */
			for (c = 0, tok = strtok(line, " "); tok; tok = strtok(NULL, " "), c++)
				if (!strcmp(tok, want))
					col = c;
			if (col < 0)
				break;
			continue;
		}
		tok = strchr(line, ':');
		if (!tok)
			continue;
		for (c = 0, tok++; c <= col; c++) {
			v = strtoull(tok, &end, 10);
			if (end == tok)
				break;
			if (c == col)
				sum += v;
			tok = end;
		}
	}
	free(text);

	if (!getrusage(RUSAGE_THREAD, &ru))
		sum += (unsigned long long)(ru.ru_nvcsw + ru.ru_nivcsw);

	text = cb_read_file("/proc/stat", NULL);
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	line = text ? strstr(text, want) : NULL;
	if (line) {
		n = sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0],
			   &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
		if (n == 8)
			sum += f[7];	/* steal, in USER_HZ ticks */
	}
	free(text);
	return sum;
}

static int ub_thp_backed(const char *addr, size_t len)
{
	char *text = cb_read_file("/proc/self/smaps", NULL), *p, *next;
	unsigned long long lo, hi, kb = 0;
	int in = 0;

	for (p = text; p && *p; p = next) {
		next = strchr(p, '\n');
		next = next ? next + 1 : p + strlen(p);
		if (sscanf(p, "%llx-%llx ", &lo, &hi) == 2 && strchr(p, '-') < strchr(p, ' '))
			in = lo <= (uintptr_t)addr && (uintptr_t)addr < hi;
		else if (in && !strncmp(p, "AnonHugePages:", 14))
			kb += strtoull(p + 14, NULL, 10);
	}
	free(text);
	return kb * 1024 >= len ? 2 : kb ? 1 : 0;
}

static int ub_alloc(struct cb_backend *b, struct ub *u, struct cb_error *e)
{
	static const char *const backing[] = { "4k", "thp-partial", "thp" };
	const struct cb_place *pl = b->set->place;
	unsigned long long need = b->set->max_bytes + UB_GUARD + CB_PLACE_SPAN;
	uintptr_t a;

	u->region = (need + UB_HUGE - 1) & ~(UB_HUGE - 1);
	u->maplen = 2 * u->region + UB_HUGE;
	u->map = mmap(NULL, u->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->map == MAP_FAILED) {
		u->map = NULL;
		return cb_fail(e, CB_EXIT_RUNTIME, "cannot map %zu bytes of buffers: %s",
			       u->maplen, strerror(errno));
	}
	a = ((uintptr_t)u->map + UB_HUGE - 1) & ~(UB_HUGE - 1);
	u->src = (char *)a;
	u->dst = u->src + u->region;
	u->src_at = u->src + (pl ? pl->src_shift : 0);
	u->dst_at = u->dst + (pl ? pl->dst_shift : 0);
	madvise(u->src, 2 * u->region, MADV_HUGEPAGE);
	memset(u->src, 0x5a, 2 * u->region);	/* fault everything in now */
	b->buffers = backing[ub_thp_backed(u->src, 2 * u->region)];
	return 0;
}

static int ub_open(struct cb_backend *b, struct cb_error *e)
{
	const struct cb_variant *v;
	unsigned long long t0;
	struct ub *u;
	unsigned int i, j;
	int d, cpu;

	b->cpu = -1;
	b->size_max = CB_SIZE_MAX;
	b->random_sizes = 1;
	b->nvariants = cb_variant_count();
	b->variants = cb_calloc(b->nvariants, sizeof(*b->variants));
	for (i = 0; (v = cb_variant_at(i)); i++) {
		b->variants[i].name = cb_strdup(v->name);
		b->variants[i].desc = cb_strdup(v->desc);
		b->variants[i].usable = cb_variant_usable(v);
		for (j = 0; j < ARRAY_SIZE(ub_dirs); j++) {
			d = cbfs_name_index(cbfs_directions, cbfs_ndirections, ub_dirs[j].name);
			if (d >= 0)
				b->variants[i].dirs |= 1UL << d;
		}
	}
	b->tsc_khz = b->set->tsc_khz ? b->set->tsc_khz : cb_tsc_khz_calibrate();
	if (b->set->describe)
		return 0;
	cpu = cb_pin_cpu(b->set->cpu, e);
	if (cpu < 0)
		return -1;
	b->cpu = cpu;
	u = cb_calloc(1, sizeof(*u));
	b->priv = u;
	u->cold = b->set->cold;
	u->random = b->set->random;
	if (ub_alloc(b, u, e))
		return -1;
	u->s = cb_calloc(b->set->samples, sizeof(*u->s));
	u->base = cb_calloc(UB_BASELINE_SAMPLES, sizeof(*u->base));
	u->probe = cb_calloc(b->set->samples, sizeof(*u->probe));

	ub_baseline_table(u);
	/* Warm-up: let the core reach the clock it will run the copies at. */
	t0 = cb_now_ns();
	while (cb_now_ns() - t0 < UB_WARMUP_NS) {
		memcpy(u->dst_at, u->src_at, 4096);
		asm volatile("" : : "r" (u->dst_at) : "memory");
	}
	ub_baseline_table(u);
	cb_probe();	/* measures its own overhead on the first call */
	ub_baseline_table(u);
	return 0;
}

static void ub_close(struct cb_backend *b)
{
	struct ub *u = b->priv;

	if (!u)
		return;
	if (u->map)
		munmap(u->map, u->maplen);
	free(u->s);
	free(u->base);
	free(u->probe);
	free(u);
	b->priv = NULL;
}

static unsigned char ub_src_byte(unsigned long i)
{
	return cb_data_byte(i);
}

/* Destination byte j before the copy: never what the copy will put there. */
static unsigned char ub_dst_fill(const struct cb_point *p, unsigned long j)
{
	return (unsigned char)~cb_data_byte(j - p->dst_offset + p->src_offset);
}

static void ub_fill(const struct cb_point *p, struct ub *u, unsigned long max)
{
	unsigned long i, n;

	n = p->src_offset + max + UB_GUARD;
	for (i = 0; i < n; i++)
		u->src_at[i] = (char)ub_src_byte(i);
	n = p->dst_offset + max + UB_GUARD;
	for (i = 0; i < n; i++)
		u->dst_at[i] = (char)ub_dst_fill(p, i);
}

/*
 * After the timing: every copied byte right (the bytes of [0, max) that
 * written marks, all of them when it is NULL), every byte around
 * untouched.
 */
static int ub_verify(const struct cb_point *p, const struct ub *u, unsigned long max,
		     const unsigned char *written)
{
	unsigned long i, n;
	unsigned char want;

	n = p->src_offset + max + UB_GUARD;
	for (i = 0; i < n; i++)
		if ((unsigned char)u->src_at[i] != ub_src_byte(i))
			return 0;
	n = p->dst_offset + max + UB_GUARD;
	for (i = 0; i < n; i++) {
		if (i >= p->dst_offset && i - p->dst_offset < max &&
		    (!written || written[i - p->dst_offset]))
			want = ub_src_byte(i - p->dst_offset + p->src_offset);
		else
			want = ub_dst_fill(p, i);
		if ((unsigned char)u->dst_at[i] != want)
			return 0;
	}
	return 1;
}

/* xorshift64*: the random sizes, reproducible from the seed. */
static unsigned long long ub_rand(unsigned long long *state)
{
	unsigned long long x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * Draws the point's sizes and offsets; returns how far the copies reach,
 * the largest offset + size (the buffers are filled that far).
 */
static unsigned long ub_draw(const struct cb_point *p, struct ub *u, double *mean)
{
	unsigned long long state, span = p->size.hi - p->size.lo + 1;
	unsigned long i, len, off, max = 0;
	double sum = 0;

	/* Never zero; the same seed gives the same draws for the same range. */
	state = (p->seed ^ 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL | 1;
	for (i = 0; i < UB_RANDOM_DRAWS; i++) {
		len = (unsigned long)(p->size.lo + ub_rand(&state) % span);
		off = (unsigned long)(ub_rand(&state) % UB_DRAW_OFFSETS);
		u->lens[i] = len | off << 32;
		sum += (double)len;
		max = off + len > max ? off + len : max;
	}
	*mean = sum / UB_RANDOM_DRAWS;
	return max;
}

/*
 * Which destination bytes the first n draws of lens wrote, a map of max
 * bytes (freed by the caller); NULL for a fixed size (all of [0, max)).
 */
static unsigned char *ub_written(const unsigned long *lens, unsigned long n, unsigned long max)
{
	unsigned char *w;
	unsigned long i, j;

	if (!lens)
		return NULL;
	w = cb_calloc(max ? max : 1, 1);
	for (i = 0; i < n && i < UB_RANDOM_DRAWS; i++)
		for (j = 0; j < UB_DRAW_LEN(lens[i]); j++)
			w[UB_DRAW_OFF(lens[i]) + j] = 1;
	return w;
}

static int ub_between(const struct ub *u)
{
	return cb_stop() || cb_now_ns() > u->deadline_ns;
}

static unsigned long long ub_sample3(struct ub_run *r, unsigned long n)
{
	unsigned long long a = ub_sample(r, r->fn, n), b = ub_sample(r, r->fn, n);
	unsigned long long c = ub_sample(r, r->fn, n);

	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

/* The module's loops rule (cb_pick_loops()); -1 with e when too long. */
static int ub_pick_loops(struct cb_backend *b, struct ub_run *r, unsigned long *loops,
			 struct cb_error *e)
{
	unsigned long long target = b->tsc_khz * CB_LOOPS_AUTO_NS / 1000000ULL;
	unsigned long long one, limit = b->tsc_khz * UB_SAMPLE_MAX_MS;
	unsigned long n = 1;

	one = ub_sample(r, r->fn, 1);
	if (b->set->loops) {
		*loops = b->set->loops;
		if (*loops > 1 && one * *loops > limit)
			return cb_fail(e, CB_EXIT_USAGE,
				       "invalid --loops %lu: a sample of %lu copies would take about %llu ms (accepted: samples up to %llu ms; fewer loops, or 0 for automatic)",
				       *loops, *loops, one * *loops / b->tsc_khz, UB_SAMPLE_MAX_MS);
		return 0;
	}
	/* The fastest of three at each step: a disturbed sample must not stop it early. */
	while (n < CB_LOOPS_MAX && ub_sample3(r, n) < target) {
		if (ub_between(b->priv))
			break;
		n = n * 2 < CB_LOOPS_MAX ? n * 2 : CB_LOOPS_MAX;
	}
	*loops = n;
	return 0;
}

/*
 * What sl makes of r's copy, a fraction: the median over UB_SLOW_PAIRS
 * pairs, a plain sample and a slowed one next to each other (which first,
 * in turn), of the slowed one's time over the plain one's, less 1. Each
 * timed sample follows an untimed one of its own kind, as in a record's
 * processes, where a plain process times plain samples one after the
 * other and a slowed one slowed samples: a 64 KiB plain sample right
 * after a slowed one (whose part copy had just brought the buffers' heads
 * into L1) ran 3% faster than after a plain one, and a 5% change so
 * calibrated came to 2% record against record. A pair shares the
 * machine's state of its moment; the fastest of 15 plain and of 15
 * slowed samples, taken apart, did not (at 64 KiB it called 2.8% more
 * bytes 5%).
 */
static double ub_slow_effect(struct ub_run *r, unsigned long loops, const struct ub_slow *sl)
{
	struct ub_slow keep = r->slow[!!r->lat];
	double ratio[UB_SLOW_PAIRS], t[2];
	unsigned int i, k, first, slowed;

	for (i = 0; i < UB_SLOW_PAIRS; i++) {
		first = i & 1;
		r->site = i;	/* a pair at one site */
		for (k = 0; k < 2; k++) {
			slowed = k ^ first;
			r->slow[!!r->lat] = slowed ? *sl : ub_no_slow;
			ub_sample(r, r->fn, loops);	/* untimed: its own kind before it */
			t[slowed] = (double)ub_sample(r, r->fn, loops);
		}
		ratio[i] = t[0] > 0 ? t[1] / t[0] : 1;
	}
	r->slow[!!r->lat] = keep;
	return cb_stats_median_unsorted(ratio, UB_SLOW_PAIRS) - 1;
}

/* d bytes more copying a sample, as whole copies of len and one part. */
static struct ub_slow ub_slow_of(unsigned long long d, unsigned long len)
{
	unsigned long unit = len ? len : 1;	/* size 0: a call more a byte */

	return (struct ub_slow){ .extra = d / unit, .part = len ? d % unit : 0, .bytes = d };
}

/* One measurement of the search: what d bytes more made, a fraction. */
struct ub_slow_try {
	struct ub_run *r;
	unsigned long loops;
};

static double ub_slow_try(void *arg, unsigned long long d)
{
	struct ub_slow_try *t = arg;
	struct ub_slow sl = ub_slow_of(d, t->r->len);

	return ub_slow_effect(t->r, t->loops, &sl);
}

/*
 * --slow-native PCT (and --slow-spell's): the extra copying that makes
 * the copy's time per call, as measured (the fastest sample, baseline
 * included: the figure compare decides on), PCT% dearer, found by
 * measuring (cb_slowdown_search()): plain and slowed samples alternated
 * at the point's own placement, in this process. The first guess counts
 * a copy more as one time per call more (PCT/100 x loops copies); the
 * search corrects it where a partial copy costs more or less than its
 * share of bytes, or the extra copies overlap. Whole extra copies are
 * the coarse step, the partial copy's bytes the fine one: together any
 * change from a byte's worth up. Hot fixed-size points only. What the
 * change came to over the run, the record says (slow_delivered).
 */
static int ub_slow_native_kind(struct ub_run *r, unsigned long loops, double pct,
			       struct ub_slow *sl, struct cb_error *e)
{
	struct ub_slow_try t = { .r = r, .loops = loops };
	unsigned long long unit = r->len ? r->len : 1;
	struct cb_slowdown s = {
		.target = pct / 100,
		.tol = fmax(0.0005, pct / 100 / 50),
		.steps = UB_SLOW_STEPS,
	};

	if (r->cold || r->lens)
		return cb_fail(e, CB_EXIT_USAGE,
			       "--slow-native: hot, fixed-size native points only (accepted: --cache hot, sizes without random:)");
	s.d0 = (unsigned long long)(s.target * (double)loops * (double)unit + 0.5);
	s.d0 = s.d0 ? s.d0 : 1;
	s.dmax = (unsigned long long)(8 * (s.target + 1) * (double)loops * (double)unit);
	cb_slowdown_search(&s, ub_slow_try, &t);
	*sl = ub_slow_of(s.d, r->len);
	sl->got = s.got;
	return 0;
}

/*
 * The same for both figures: sl[0] makes the time per call back to back
 * PCT% dearer, sl[1] the latency (the chain's copies are the slowed ones).
 */
static int ub_slow_native(struct ub_run *r, unsigned long loops, double pct,
			  struct ub_slow sl[2], struct cb_error *e)
{
	int lat, ret;

	for (lat = 0; lat < 2; lat++) {
		r->lat = lat;
		ret = ub_slow_native_kind(r, loops, pct, &sl[lat], e);
		r->lat = 0;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Point p's run set up in r: its entry for the direction, its buffers at
 * the process's placement, its sizes drawn and its source filled; *max
 * the largest copy. 0, or -1 with e set.
 */
static int ub_prepare(struct cb_backend *b, const struct cb_point *p, struct ub_run *r,
		      struct cb_result *res, unsigned long *max, struct cb_error *e)
{
	const struct cb_variant *v = cb_variant_find(b->variants[p->variant].name);
	struct ub *u = b->priv;
	unsigned int j;

	for (j = 0; j < ARRAY_SIZE(ub_dirs); j++)
		if (!strcmp(ub_dirs[j].name, cbfs_directions[p->dir]))
			r->fn = ub_dirs[j].memcpy_entry ? v->copy_memcpy : v->copy;
	r->libc = !strcmp(v->name, CB_NATIVE_NAME);
	if (!r->fn)
		return cb_fail(e, CB_EXIT_USAGE, "the user backend cannot time direction %s",
			       cbfs_directions[p->dir]);
	r->dst = u->dst_at + p->dst_offset;
	r->src = u->src_at + p->src_offset;
	res->src_place = (long long)((uintptr_t)r->src % CB_PLACE_SPAN);
	res->dst_place = (long long)((uintptr_t)r->dst % CB_PLACE_SPAN);
	r->cold = !strcmp(cbfs_caches[p->cache], "cold");
	if (p->size.random) {
		r->lens = u->lens;
		*max = ub_draw(p, u, &res->size_mean);
	} else {
		r->len = p->size.lo;
		*max = p->size.lo;
		res->size_mean = (double)*max;
	}
	ub_fill(p, u, *max);
	return 0;
}

/*
 * The timed samples into u->s[] (per copy), a clock probe every
 * UB_PROBE_EVERY of them into u->probe[]: until the samples asked, the
 * deadline (truncated) or the budget. Returns how many; *np the probes.
 */
static unsigned long ub_samples(struct cb_backend *b, struct ub_run *r, unsigned long loops,
				struct cb_result *res, unsigned long *np)
{
	unsigned long long budget = cb_now_ns() + UB_BUDGET_NS;
	struct ub *u = b->priv;
	unsigned long n;

	for (n = 0, *np = 0; n < b->set->samples; n++) {
		if (n && ub_between(u)) {
			res->truncated = 1;
			break;
		}
		if (n >= UB_BUDGET_SAMPLES && cb_now_ns() > budget)
			break;
		r->site = (unsigned int)n;
		u->s[n] = ub_timed(r, loops);
		if (!(n % UB_PROBE_EVERY))
			u->probe[(*np)++] = cb_probe();
	}
	return n;
}

/*
 * The figures of n samples, as many of the slowest discarded as the CPU
 * saw disturbances (dist, at most half), net of the baseline.
 */
static void ub_summarize(double *s, struct cb_result *res, unsigned long n,
			 unsigned long long dist)
{
	struct cb_summary sum;
	unsigned long keep;

	res->samples = n;
	res->discarded = dist < (n - 1) / 2 ? dist : (n - 1) / 2;
	keep = n - res->discarded;
	/* The slowest samples go: sorted, the kept ones are the first keep. */
	cb_stats_sort(s, n);
	cb_stats_summarize(s, keep, &sum);
	res->call_min = sum.min;
	res->call_q02 = sum.q02;
	res->call_median = sum.median;
	res->min = cb_net_of(sum.min, res->baseline);
	res->q02 = cb_net_of(sum.q02, res->baseline);
	res->median = cb_net_of(sum.median, res->baseline);
	res->mean = cb_net_of(sum.mean, res->baseline);
	res->max = cb_net_of(sum.max, res->baseline);
	res->stddev = sum.stddev;
}

/* The latency figures of n chained samples (none discarded: min and low quantiles). */
static void ub_summarize_lat(double *s, struct cb_result *res, unsigned long n)
{
	struct cb_summary sum;

	cb_stats_sort(s, n);
	cb_stats_summarize(s, n, &sum);
	res->lat_min = sum.min;
	res->lat_q02 = sum.q02;
	res->lat_median = sum.median;
}

/* A result before anything is measured: the figures not measured are NAN. */
static void ub_result_init(struct cb_result *res, int cpu)
{
	memset(res, 0, sizeof(*res));
	res->run_cpu = cpu;
	res->slow_delivered = NAN;
	cb_result_no_latency(res);
}

/* The latency chain's samples of the block design into u->s[]: as many as n, within the deadline. */
static unsigned long ub_lat_samples(struct cb_backend *b, struct ub_run *r, unsigned long loops,
				    unsigned long n, struct cb_result *res)
{
	struct ub *u = b->priv;
	unsigned long k;

	r->lat = 1;
	ub_sample(r, r->fn, loops);	/* untimed: the chain's loop warmed up */
	for (k = 0; k < n; k++) {
		if (k && ub_between(u)) {
			res->truncated = 1;
			break;
		}
		r->site = (unsigned int)k;
		u->s[k] = ub_timed(r, loops);
	}
	r->lat = 0;
	return k;
}

/* The figure the chain's own cost is: its baseline, at loops. */
static double ub_lat_chain(struct ub *u, struct ub_run *r, unsigned long loops,
			   unsigned long samples)
{
	double v;

	r->lat = 1;
	v = ub_baseline(u, r, loops, samples);
	r->lat = 0;
	return v;
}

static int ub_measure(struct cb_backend *b, const struct cb_point *p, struct cb_result *res,
		      struct cb_error *e)
{
	unsigned long loops, n, np, max = 0;
	unsigned long long d0, dist;
	unsigned char *written;
	struct ub *u = b->priv;
	struct ub_run r = { 0 };
	int ret = 0;

	ub_result_init(res, b->cpu);
	if (ub_prepare(b, p, &r, res, &max, e))
		return -1;
	u->deadline_ns = cb_now_ns() + b->set->max_run_ms * 1000000ULL;
	if (ub_pick_loops(b, &r, &loops, e))
		return -1;
	/* Warm-up: one untimed sample at the final loops. */
	ub_sample(&r, r.fn, loops);
	res->baseline = ub_baseline(u, &r, loops, b->set->samples);
	if (!r.cold)
		res->lat_chain = ub_lat_chain(u, &r, loops, b->set->samples);
	if (b->set->slow_native > 0 && !strcmp(b->variants[p->label].name, CB_NATIVE_NAME) &&
	    ub_slow_native(&r, loops, b->set->slow_native, r.slow, e))
		return -1;
	d0 = ub_disturbances(b->cpu);
	n = ub_samples(b, &r, loops, res, &np);
	dist = ub_disturbances(b->cpu) - d0;
	if (cb_stop()) {
		ret = cb_fail(e, CB_EXIT_RUNTIME, "interrupted");
		goto out;
	}
	if (r.left) {
		ret = cb_fail(e, CB_EXIT_RUNTIME, "%s %s size %llu: a copy came back short",
			      b->variants[p->variant].name, cbfs_directions[p->dir], p->size.lo);
		goto out;
	}
	res->loops = loops;
	res->sites = ub_sites_used(n);
	ub_summarize(u->s, res, n, dist);
	res->slow_delivered = r.slow[0].bytes ? 100 * r.slow[0].got : NAN;
	res->lat_slow_delivered = r.slow[1].bytes ? 100 * r.slow[1].got : NAN;
	res->clock_ratio = cb_clock_ratio(u->probe, np);
	if (!r.cold) {
		n = ub_lat_samples(b, &r, loops, n, res);
		if (cb_stop()) {
			ret = cb_fail(e, CB_EXIT_RUNTIME, "interrupted");
			goto out;
		}
		ub_summarize_lat(u->s, res, n);
	}
	/* Random sizes: the draws the samples made wrote what they wrote. */
	written = ub_written(r.lens, r.pos, max);
	res->verified = ub_verify(p, u, max, written);
	free(written);
out:
	return ret;
}

/* ---- The interleaved design: a point in bursts (job.c's rounds) ---------- */

/*
 * A point's state between its bursts. Points share the process's buffers:
 * a burst's first sample is untimed (it brings the point's lines back into
 * the caches and its branches into the predictors after the other points
 * of the round), and the copy is verified at the end, on buffers filled
 * for it again.
 */
struct ub_point {
	struct cb_point p;
	struct ub_run r;
	struct cb_result res;
	unsigned long *lens;		/* random sizes: the point's own draws */
	unsigned long loops, max, burst;
	struct ub_slow spell[2];	/* test-only --slow-spell's copying */
	double *s, *ls, *probe;		/* back to back; the latency chain (not cold) */
	unsigned long n, ln, cap, np, rounds;
	unsigned long long first_ns, last_ns, used_ns, limit_ns;
};

/*
 * Room for the samples of rounds bursts (more than the set's rounds with
 * process_ms: the rounds go on until the process has run that long).
 */
static void ub_point_room(struct ub_point *q, unsigned long rounds)
{
	q->rounds = rounds;
	q->cap = rounds * q->burst;
	q->s = cb_realloc(q->s, q->cap, sizeof(*q->s));
	if (!q->r.cold)
		q->ls = cb_realloc(q->ls, q->cap, sizeof(*q->ls));
	q->probe = cb_realloc(q->probe, rounds, sizeof(*q->probe));
}

static void ub_point_free(struct ub_point *q)
{
	free(q->lens);
	free(q->s);
	free(q->ls);
	free(q->probe);
	free(q);
}

/*
 * Samples in one burst: the set's, fewer for a point whose samples are
 * long (a byte loop over a megabyte: half a millisecond each), so that all
 * its bursts together take about UB_BUDGET_NS, as a block took before.
 */
static unsigned long ub_burst_len(struct cb_backend *b, unsigned long long sample)
{
	unsigned long long ns = sample * 1000000ULL / (b->tsc_khz ? b->tsc_khz : 1);
	unsigned long long per = UB_BUDGET_NS / b->set->rounds;
	unsigned long k = b->set->burst;

	if (ns && per / ns < k)
		k = per / ns ? (unsigned long)(per / ns) : 1;
	return k;
}

static int ub_begin(struct cb_backend *b, const struct cb_point *p, void **st,
		    struct cb_error *e)
{
	int native = !strcmp(b->variants[p->label].name, CB_NATIVE_NAME);
	struct ub *u = b->priv;
	struct ub_point *q = cb_calloc(1, sizeof(*q));
	unsigned long long warm;

	q->p = *p;
	ub_result_init(&q->res, b->cpu);
	if (ub_prepare(b, p, &q->r, &q->res, &q->max, e))
		goto fail;
	if (q->r.lens) {
		q->lens = cb_calloc(UB_RANDOM_DRAWS, sizeof(*q->lens));
		memcpy(q->lens, u->lens, UB_RANDOM_DRAWS * sizeof(*q->lens));
		q->r.lens = q->lens;
	}
	u->deadline_ns = cb_now_ns() + b->set->max_run_ms * 1000000ULL;
	if (ub_pick_loops(b, &q->r, &q->loops, e))
		goto fail;
	warm = ub_sample(&q->r, q->r.fn, q->loops);
	q->res.baseline = ub_baseline(u, &q->r, q->loops, b->set->samples);
	if (!q->r.cold)
		q->res.lat_chain = ub_lat_chain(u, &q->r, q->loops, b->set->samples);
	if (native && b->set->slow_native > 0 &&
	    ub_slow_native(&q->r, q->loops, b->set->slow_native, q->r.slow, e))
		goto fail;
	if (native && b->set->spell > 0 &&
	    ub_slow_native(&q->r, q->loops, b->set->spell, q->spell, e))
		goto fail;
	q->burst = ub_burst_len(b, warm);
	ub_point_room(q, b->set->rounds);
	q->limit_ns = b->set->max_run_ms * 1000000ULL;
	*st = q;
	return 0;
fail:
	ub_point_free(q);
	return -1;
}

static int ub_burst(struct cb_backend *b, void *st, int slow, double *fastest,
		    struct cb_error *e)
{
	struct ub_point *q = st;
	struct ub_slow keep[2] = { q->r.slow[0], q->r.slow[1] };
	unsigned long long t0;
	unsigned long k;
	int lat;

	(void)b;
	(void)e;
	*fastest = NAN;
	if (q->res.truncated)
		return 0;
	if (q->np == q->rounds)
		ub_point_room(q, 2 * q->rounds);
	t0 = cb_now_ns();
	if (!q->first_ns)
		q->first_ns = t0;
	for (lat = 0; slow && lat < 2; lat++)
		if (q->spell[lat].bytes)
			q->r.slow[lat] = ub_slow_of(keep[lat].bytes + q->spell[lat].bytes, q->r.len);
	/* A burst at one site, the next burst at the next. */
	q->r.site = (unsigned int)q->res.bursts;
	ub_sample(&q->r, q->r.fn, q->loops);	/* untimed: the point's state back */
	for (k = 0; k < q->burst; k++) {
		q->s[q->n] = ub_timed(&q->r, q->loops);
		if (!k || q->s[q->n] < *fastest)
			*fastest = q->s[q->n];
		q->n++;
	}
	/* Then as many of the latency chain, after an untimed one of its own. */
	if (q->ls) {
		q->r.lat = 1;
		ub_sample(&q->r, q->r.fn, q->loops);
		for (k = 0; k < q->burst; k++)
			q->ls[q->ln++] = ub_timed(&q->r, q->loops);
		q->r.lat = 0;
	}
	q->r.slow[0] = keep[0];
	q->r.slow[1] = keep[1];
	q->probe[q->np++] = cb_probe();
	q->last_ns = cb_now_ns();
	q->used_ns += q->last_ns - t0;
	q->res.bursts++;
	/* --max-run-ms bounds the point's bursts together. */
	if (q->used_ns > q->limit_ns)
		q->res.truncated = 1;
	return 0;
}

static int ub_end(struct cb_backend *b, void *st, struct cb_result *res, struct cb_error *e)
{
	struct ub_point *q = st;
	struct ub *u = b->priv;
	unsigned char *written;
	int ret = 0;

	if (!res)
		goto out;
	if (!q->n) {
		ret = cb_fail(e, CB_EXIT_RUNTIME, "%s %s size %llu: no burst was timed",
			      b->variants[q->p.variant].name, cbfs_directions[q->p.dir], q->p.size.lo);
		goto out;
	}
	if (q->r.left) {
		ret = cb_fail(e, CB_EXIT_RUNTIME, "%s %s size %llu: a copy came back short",
			      b->variants[q->p.variant].name, cbfs_directions[q->p.dir], q->p.size.lo);
		goto out;
	}
	*res = q->res;
	res->loops = q->loops;
	res->sites = ub_sites_used(res->bursts);
	/* Every sample a burst's; interference only slows, and min is of all. */
	ub_summarize(q->s, res, q->n, 0);
	if (q->ln)
		ub_summarize_lat(q->ls, res, q->ln);
	res->slow_delivered = q->r.slow[0].bytes ? 100 * q->r.slow[0].got : NAN;
	res->lat_slow_delivered = q->r.slow[1].bytes ? 100 * q->r.slow[1].got : NAN;
	res->clock_ratio = cb_clock_ratio(q->probe, q->np);
	res->span_ms = (double)(q->last_ns - q->first_ns) / 1e6;
	/* The copy checked on buffers filled for it again, once more timed alike. */
	ub_fill(&q->p, u, q->max);
	q->r.pos = 0;
	ub_sample(&q->r, q->r.fn, q->loops);
	written = ub_written(q->r.lens, q->loops, q->max);
	res->verified = !q->r.left && ub_verify(&q->p, u, q->max, written);
	free(written);
out:
	ub_point_free(q);
	return ret;
}

const struct cb_backend_ops cb_backend_user = {
	.name = "user",
	.call_sites = UB_SITES,
	.random_offsets = UB_DRAW_OFFSETS,
	.open = ub_open,
	.measure = ub_measure,
	.begin = ub_begin,
	.burst = ub_burst,
	.end = ub_end,
	.close = ub_close,
};
