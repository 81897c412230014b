// SPDX-License-Identifier: GPL-2.0
/*
 * variants_bench.c - time copybench's copy variants natively (userspace
 * build of copy_variants.S, libc memcpy as "native").
 *
 * Usage: variants_bench [options]
 *   --sizes=LIST     copy sizes, bytes with optional K or M suffix, 1..64M
 *                    (default 64,256,1K,4K,64K,1M)
 *   --variants=LIST  variant names (default: every usable one)
 *   --cpu=N          CPU to pin to (default: the one it starts on)
 *   --runs=N         timed samples per point, 1..1001 (default 21)
 *   --src-off=N, --dst-off=N
 *                    bytes from a page boundary, 0..4095 (default 0, 0: the
 *                    same offset in the page, memcpy's 4K-aliasing case)
 *   --json           one JSON object per line instead of the table
 *
 * How it measures: pinned to one CPU; source and destination are one pair
 * of page-aligned buffers reused by every copy (so they are cache-hot up to
 * the cache sizes); each point is warmed up for 20 ms, then timed as --runs
 * samples of N back-to-back copies, N chosen so a sample lasts about 1 ms.
 * Each sample is read with rdtsc and CLOCK_MONOTONIC; the report gives the
 * median sample as TSC ticks per copy, ns per copy and GB/s (10^9 bytes/s),
 * and the fastest sample's GB/s: far apart, the machine was busy. The
 * destination is verified after the timed samples, outside them.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include "copy_variants.h"

#define MAX_SIZES	32
#define MAX_SIZE	(64UL << 20)
#define RUNS_MAX	1001UL

struct opts {
	unsigned long sizes[MAX_SIZES];
	unsigned int nr_sizes;
	const char *variants;	/* comma-separated, NULL for all usable */
	long cpu;		/* -1: the current one */
	unsigned long runs;
	unsigned long src_off, dst_off;
	int json;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "4K" -> 4096; 0 on anything else. */
static unsigned long parse_size(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v > MAX_SIZE)
		return 0;
	return v;
}

static int parse_sizes(struct opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	o->nr_sizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v = parse_size(tok);

		if (o->nr_sizes == MAX_SIZES) {
			fprintf(stderr, "variants_bench: more than %d sizes\n", MAX_SIZES);
			free(copy);
			return -1;
		}
		if (!v) {
			fprintf(stderr, "variants_bench: invalid size: %s (accepted: 1..64M bytes, K or M suffix)\n",
				tok);
			free(copy);
			return -1;
		}
		o->sizes[o->nr_sizes++] = v;
	}
	free(copy);
	if (!o->nr_sizes) {
		fprintf(stderr, "variants_bench: --sizes needs at least one size\n");
		return -1;
	}
	return 0;
}

static int parse_ulong(const char *name, const char *arg, unsigned long lo,
		       unsigned long hi, unsigned long *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "variants_bench: invalid %s: %s (accepted: %lu..%lu)\n",
			name, arg, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static void list_variants(FILE *f, const char *end)
{
	const struct cb_variant *v;
	unsigned int i;

	for (i = 0; (v = cb_variant_at(i)); i++)
		fprintf(f, "%s%s", i ? ", " : "", v->name);
	fputs(end, f);
}

/* Check every name of the list before anything runs. */
static int check_variants(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct cb_variant *v = cb_variant_find(tok);

		if (!v) {
			fprintf(stderr, "variants_bench: unknown variant '%s' (accepted: ", tok);
			list_variants(stderr, ")\n");
			ret = -1;
		} else if (!cb_variant_usable(v)) {
			fprintf(stderr, "variants_bench: variant '%s' needs a CPU feature this CPU lacks\n",
				tok);
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

static int wanted(const struct opts *o, const char *name)
{
	size_t n = strlen(name);
	const char *p = o->variants;

	if (!p)
		return 1;
	while (p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* n copies back to back; returns the TSC ticks they took. */
static uint64_t timed_copies(const struct cb_variant *v, void *dst,
			     const void *src, unsigned long len,
			     unsigned long n, double *ns)
{
	unsigned long left = 0, i;
	unsigned int aux;
	uint64_t t0, t1;
	double n0;

	n0 = now_ns();
	_mm_lfence();
	t0 = __rdtsc();
	_mm_lfence();
	for (i = 0; i < n; i++)
		left += v->copy(dst, src, len);
	t1 = __rdtscp(&aux);
	_mm_lfence();
	*ns = now_ns() - n0;
	/* The results are used: the copies cannot be optimised away. */
	asm volatile("" : : "r" (left) : "memory");
	return t1 - t0;
}

static int bench_point(const struct opts *o, const struct cb_variant *v,
		       uint8_t *dst, const uint8_t *src, unsigned long len)
{
	double ticks[RUNS_MAX], ns[RUNS_MAX], med_ns, t, end;
	unsigned long n = 1, r;

	/* Warm up for 20 ms and find n for samples of about 1 ms. */
	end = now_ns() + 20e6;
	do {
		timed_copies(v, dst, src, len, n, &t);
		if (t < 1e6)
			n *= 2;
	} while (now_ns() < end);
	for (r = 0; r < o->runs; r++) {
		ticks[r] = (double)timed_copies(v, dst, src, len, n, &ns[r]) / n;
		ns[r] /= n;
	}
	/* Verify outside the timed samples. */
	memset(dst, 0, len);
	if (v->copy(dst, src, len) || memcmp(dst, src, len)) {
		fprintf(stderr, "variants_bench: %s: copy of %lu bytes is wrong\n",
			v->name, len);
		return -1;
	}
	qsort(ticks, o->runs, sizeof(ticks[0]), cmp_double);
	qsort(ns, o->runs, sizeof(ns[0]), cmp_double);
	med_ns = ns[o->runs / 2];
	if (o->json) {
		printf("{\"variant\":\"%s\",\"size\":%lu,", v->name, len);
		printf("\"src_off\":%lu,\"dst_off\":%lu,", o->src_off, o->dst_off);
		printf("\"ticks_per_copy\":%.1f,\"ns_per_copy\":%.2f,", ticks[o->runs / 2],
		       med_ns);
		printf("\"gbps\":%.2f,\"best_gbps\":%.2f,", len / med_ns, len / ns[0]);
		printf("\"runs\":%lu,\"copies_per_run\":%lu}\n", o->runs, n);
	} else {
		printf("%-9s %9lu %12.1f %10.2f %9.2f %9.2f\n", v->name, len,
		       ticks[o->runs / 2], med_ns, len / med_ns, len / ns[0]);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: variants_bench [--sizes=LIST] [--variants=LIST] [--cpu=N] [--runs=N] [--json]\n"
		"  --sizes=LIST     bytes with optional K or M suffix, 1..64M (default 64,256,1K,4K,64K,1M)\n"
		"  --variants=LIST  comma-separated names (default: every usable one)\n"
		"  --cpu=N          CPU to pin to (default: the one it starts on)\n"
		"  --runs=N         timed samples per point, 1..%lu (default 21); the median is reported\n"
		"  --src-off=N, --dst-off=N\n"
		"                   bytes from a page boundary, 0..4095 (default 0 and 0)\n"
		"  --json           JSON lines instead of the table\n"
		"Variants: ", RUNS_MAX);
	list_variants(f, "\n");
}

/* One option c into o; 0, 1 for --help (done), or 2 (bad value, said). */
static int parse_option(struct opts *o, int c)
{
	unsigned long cpu;

	switch (c) {
	case 's':
		return parse_sizes(o, optarg) ? 2 : 0;
	case 'v':
		if (check_variants(optarg))
			return 2;
		o->variants = optarg;
		return 0;
	case 'c':
		if (parse_ulong("cpu", optarg, 0, CPU_SETSIZE - 1, &cpu))
			return 2;
		o->cpu = cpu;
		return 0;
	case 'r':
		return parse_ulong("runs", optarg, 1, RUNS_MAX, &o->runs) ? 2 : 0;
	case 'S':
		return parse_ulong("src-off", optarg, 0, 4095, &o->src_off) ? 2 : 0;
	case 'D':
		return parse_ulong("dst-off", optarg, 0, 4095, &o->dst_off) ? 2 : 0;
	case 'j':
		o->json = 1;
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	}
	usage(stderr);
	return 2;
}

/* The options into o: -1 to go on, else the exit status. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "variants", required_argument, NULL, 'v' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "src-off", required_argument, NULL, 'S' },
		{ "dst-off", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	parse_sizes(o, "64,256,1K,4K,64K,1M");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		ret = parse_option(o, c);
		if (ret)
			return ret == 1 ? 0 : ret;
	}
	if (optind < argc) {
		fprintf(stderr, "variants_bench: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* Pinned to o->cpu (where it runs when not given); 0, or 1 said. */
static int pin_cpu(struct opts *o)
{
	cpu_set_t set;

	if (o->cpu < 0)
		o->cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(o->cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		return 0;
	fprintf(stderr, "variants_bench: cannot pin to CPU %ld: %s\n", o->cpu, strerror(errno));
	return 1;
}

static void print_heading(const struct opts *o)
{
	unsigned int eax, ebx, ecx, edx;
	int inv = __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1U << 8));

	printf("# variants_bench: CPU %ld, %lu runs per point, median shown;"
	       " TSC %s\n", o->cpu, o->runs, inv ? "invariant" : "NOT invariant");
	printf("# hot buffers (one pair reused) at page offsets src %lu dst %lu;"
	       " 1 GB/s = 10^9 bytes/s\n", o->src_off, o->dst_off);
	printf("%-9s %9s %12s %10s %9s %9s\n", "# variant", "bytes", "tsc/copy",
	       "ns/copy", "GB/s", "best");
}

int main(int argc, char **argv)
{
	struct opts o = { .cpu = -1, .runs = 21 };
	unsigned long max = 0;
	const struct cb_variant *v;
	unsigned int i, k;
	uint8_t *src, *dst;
	int ret = parse_args(&o, argc, argv);

	if (ret >= 0)
		return ret;
	if (pin_cpu(&o))
		return 1;
	for (k = 0; k < o.nr_sizes; k++)
		if (o.sizes[k] > max)
			max = o.sizes[k];
	max += 4096;
	src = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED) {
		fprintf(stderr, "variants_bench: mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < max; i++)
		src[i] = i * 131 + 7;
	memset(dst, 1, max);
	if (!o.json)
		print_heading(&o);
	for (i = 0; (v = cb_variant_at(i)); i++) {
		if (!cb_variant_usable(v) || !wanted(&o, v->name))
			continue;
		for (k = 0; k < o.nr_sizes; k++)
			if (bench_point(&o, v, dst + o.dst_off, src + o.src_off, o.sizes[k]))
				return 1;
	}
	return 0;
}
