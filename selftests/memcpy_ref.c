// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy_ref - libc's memcpy timed by a program that shares no code with
 * copybench's sweep: the independent measurement tools/compare-validate
 * judges compare's verdicts on a real change against (another glibc
 * strategy, set through the environment).
 *
 * Usage: memcpy_ref [--rounds N] [--calls M] [--cpu C] SIZE...
 *
 * For each SIZE (bytes, 1..1048576), two figures in TSC clocks per call,
 * each the fastest of N samples (default 400) of M calls (default 256),
 * the sizes visited round-robin so a slow spell of the machine falls on
 * all of them alike:
 *   call     memcpy(dst, src, SIZE) back to back, the same addresses;
 *   latency  the same, each call's source address taken from the last
 *            byte the call before it wrote, masked by a zero the compiler
 *            cannot see (the dependency ARM's optimized-routines string
 *            benchmarks use), so no call starts before that byte is there.
 * One JSON line a size: {"size":S,"call":C,"latency":L}. The buffers are
 * page-aligned, 1 MiB + 4 KiB apart; the process pins itself to CPU C
 * (default: the one it starts on).
 *
 * Exit status: 0, 2 for a bad option or size (named, with what is
 * accepted), 1 when the CPU cannot be pinned or memory is short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define REF_MAX_SIZE	(1UL << 20)
#define REF_MAX_SIZES	64
#define REF_GAP		(REF_MAX_SIZE + 4096)

typedef void *(*ref_fn)(void *, const void *, size_t);

/* memcpy behind a pointer the compiler cannot follow. */
static ref_fn ref_hidden(void)
{
	ref_fn f = memcpy;

	asm volatile("" : "+r" (f));
	return f;
}

static unsigned long long ref_tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

static unsigned long long ref_call(ref_fn f, char *dst, const char *src, size_t n,
				   unsigned long calls)
{
	unsigned long long t0 = ref_tsc();
	unsigned long i;

	for (i = 0; i < calls; i++)
		f(dst, src, n);
	return ref_tsc() - t0;
}

static unsigned long long ref_latency(ref_fn f, char *dst, const char *src, size_t n,
				      unsigned long calls)
{
	unsigned long z = 0, i;
	const char *p = src;

	asm volatile("" : "+r" (z));	/* a zero, as far as the compiler knows anything */
	unsigned long long t0 = ref_tsc();

	for (i = 0; i < calls; i++) {
		f(dst, p, n);
		p = src + ((unsigned char)dst[n - 1] & z);
	}
	return ref_tsc() - t0;
}

static int ref_number(const char *opt, const char *v, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (!*v || *v == '-' || *end || errno || x < lo || x > hi) {
		fprintf(stderr, "memcpy_ref: invalid %s '%s' (accepted: %lu..%lu)\n", opt, v, lo,
			hi);
		return -1;
	}
	*out = x;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 400, calls = 256, cpu = ULONG_MAX, sizes[REF_MAX_SIZES];
	double best[REF_MAX_SIZES][2];
	unsigned long long t;
	size_t nsizes = 0, k;
	unsigned long r;
	cpu_set_t set;
	char *buf;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			if (ref_number("--rounds", argv[++i], 1, 1000000, &rounds))
				return 2;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			if (ref_number("--calls", argv[++i], 1, 1000000, &calls))
				return 2;
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			if (ref_number("--cpu", argv[++i], 0, CPU_SETSIZE - 1, &cpu))
				return 2;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "memcpy_ref: unknown option '%s' (accepted: --rounds N, --calls M, --cpu C, then sizes)\n",
				argv[i]);
			return 2;
		} else if (nsizes == REF_MAX_SIZES) {
			fprintf(stderr, "memcpy_ref: more than %d sizes\n", REF_MAX_SIZES);
			return 2;
		} else if (ref_number("size", argv[i], 1, REF_MAX_SIZE, &sizes[nsizes++])) {
			return 2;
		}
	}
	if (!nsizes) {
		fprintf(stderr, "memcpy_ref: no size given (usage: memcpy_ref [--rounds N] [--calls M] [--cpu C] SIZE...)\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu == ULONG_MAX ? (unsigned long)sched_getcpu() : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("memcpy_ref: sched_setaffinity");
		return 1;
	}
	buf = aligned_alloc(4096, 2 * REF_GAP);
	if (!buf) {
		perror("memcpy_ref: aligned_alloc");
		return 1;
	}
	memset(buf, 0x5a, 2 * REF_GAP);
	for (k = 0; k < nsizes; k++)
		best[k][0] = best[k][1] = 1e300;
	for (r = 0; r < rounds; r++)
		for (k = 0; k < nsizes; k++) {
			ref_call(ref_hidden(), buf + REF_GAP, buf, sizes[k], calls);
			t = ref_call(ref_hidden(), buf + REF_GAP, buf, sizes[k], calls);
			if ((double)t / (double)calls < best[k][0])
				best[k][0] = (double)t / (double)calls;
			t = ref_latency(ref_hidden(), buf + REF_GAP, buf, sizes[k], calls);
			if ((double)t / (double)calls < best[k][1])
				best[k][1] = (double)t / (double)calls;
		}
	for (k = 0; k < nsizes; k++)
		printf("{\"size\":%lu,\"call\":%.4f,\"latency\":%.4f}\n", sizes[k], best[k][0],
		       best[k][1]);
	free(buf);
	return 0;
}
