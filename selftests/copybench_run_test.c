// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_run_test.c - tests of copybench.ko's timed runs, through its
 * debugfs files: every direction and cache mode with every variant
 * (results well formed, every byte verified), the buffer file (the user
 * side of a run, which the writer maps), and what controls a run: the
 * clock, automatic loops, the CPU, the baseline, max_run_ms, the refusals
 * and a run's exclusion of knob writes and signals.
 *
 * Needs root, debugfs at /sys/kernel/debug and copybench.ko loaded; every
 * test SKIPs with the reason otherwise, and under kernel lockdown. Runs use
 * few samples and loops: timings under emulation mean nothing, what is
 * checked is behaviour (results well formed, every byte verified, exact
 * counts, errors and their sentences).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"
#include "cb_test_harness.h"

/*
 * A run refused with err (errname in last_error, which says rule); the
 * previous results stay.
 */
static void cb_expect_run_refused(struct __test_metadata *_metadata, int err,
				  const char *errname, const char *rule)
{
	char before[8192], after[8192];

	cb_read("results", before, sizeof(before));
	ASSERT_EQ(0, cb_buffer_ready());
	EXPECT_EQ(-err, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	cb_expect_refusal(_metadata, "run", errname, NULL, rule);
	cb_read("results", after, sizeof(after));
	EXPECT_STREQ(before, after);
}

/* A run refused with EINVAL and rule in last_error, the process's buffers as they are. */
static void cb_expect_run_einval(struct __test_metadata *_metadata, const char *rule)
{
	EXPECT_EQ(-EINVAL, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	cb_expect_refusal(_metadata, "run", "EINVAL", NULL, rule);
}

/* ---------------------------------------------------------------------- */
/* Runs */

FIXTURE(run) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][CB_NAME_LEN];
	int nvariants;
};

FIXTURE_VARIANT(run) {
	const char *direction;
	const char *cache;
};

FIXTURE_VARIANT_ADD(run, memcpy_hot) { .direction = "memcpy", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, memcpy_cold) { .direction = "memcpy", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, to_user_hot) { .direction = "to_user", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, to_user_cold) { .direction = "to_user", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, from_user_hot) { .direction = "from_user", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, from_user_cold) { .direction = "from_user", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, to_iter_hot) { .direction = "to_iter", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, to_iter_cold) { .direction = "to_iter", .cache = "cold" };
FIXTURE_VARIANT_ADD(run, from_iter_hot) { .direction = "from_iter", .cache = "hot" };
FIXTURE_VARIANT_ADD(run, from_iter_cold) { .direction = "from_iter", .cache = "cold" };

FIXTURE_SETUP(run)
{
	if (!cb_fixture_setup(_metadata, &self->saved))
		return;
	self->nvariants = cb_usable_variants(self->variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->nvariants);
	ASSERT_EQ(0, cb_write("direction", variant->direction));
	ASSERT_EQ(0, cb_write("cache", variant->cache));
	ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(run)
{
	cb_restore(&self->saved);
}

/* Checks a finished run's results against the knobs that made it. */
static void cb_check_run(struct __test_metadata *_metadata, const char *vname,
			 const char *direction, const char *cache, unsigned long long size,
			 unsigned int soff, unsigned int doff, unsigned int loops,
			 unsigned int samples)
{
	char why[256];
	const char *err;
	struct cb_res r;

	err = cb_parse_results(&r, why, sizeof(why));
	ASSERT_EQ(NULL, err) TH_LOG("%s %s %s size %llu: %s", vname, direction, cache, size, err);
	EXPECT_STREQ(vname, cb_res_get(&r, "variant"));
	EXPECT_STREQ(direction, cb_res_get(&r, "direction"));
	EXPECT_STREQ(cache, cb_res_get(&r, "cache"));
	EXPECT_EQ(size, cb_res_u(&r, "size"));
	EXPECT_EQ(soff, cb_res_u(&r, "src_offset"));
	EXPECT_EQ(doff, cb_res_u(&r, "dst_offset"));
	if (loops)
		EXPECT_EQ(loops, cb_res_u(&r, "loops"));
	EXPECT_LE(1ULL, cb_res_u(&r, "loops"));
	EXPECT_EQ(samples, cb_res_u(&r, "samples"));
	EXPECT_STREQ("0", cb_res_get(&r, "truncated"));
	EXPECT_STREQ("1", cb_res_get(&r, "verified"))
		TH_LOG("%s %s %s size %llu offsets %u/%u: copy not verified (see dmesg)",
		       vname, direction, cache, size, soff, doff);
	EXPECT_LE(cb_res_c100(&r, "cycles_min"), cb_res_c100(&r, "cycles_median"));
	EXPECT_LE(cb_res_c100(&r, "cycles_median"), cb_res_c100(&r, "cycles_max"));
	EXPECT_LE(cb_res_c100(&r, "cycles_min"), cb_res_c100(&r, "cycles_mean"));
	EXPECT_LT(0ULL, cb_res_u(&r, "tsc_khz"));
}

/*
 * Every usable variant that has this direction (the variants file says),
 * in this cache mode, at a few sizes and offsets: verified results.
 */
TEST_F_TIMEOUT(run, every_variant_gives_verified_results, 600)
{
	static const struct { unsigned long long size; unsigned int soff, doff; } shapes[] = {
		{ 0, 0, 0 }, { 1, 3, 0 }, { 63, 1, 7 }, { 4096, 0, 0 }, { 5000, 4095, 1 },
	};
	int v;
	size_t s;

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	for (v = 0; v < self->nvariants; v++) {
		if (!cb_variant_has_dir(self->variants[v], variant->direction))
			continue;
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		for (s = 0; s < ARRAY_SIZE(shapes); s++) {
			int ret;

			ASSERT_EQ(0, cb_writeu("size", shapes[s].size));
			ASSERT_EQ(0, cb_writeu("src_offset", shapes[s].soff));
			ASSERT_EQ(0, cb_writeu("dst_offset", shapes[s].doff));
			ret = cb_do_run();
			ASSERT_EQ(0, ret) TH_LOG("%s %s size %llu: run failed: %s",
						 self->variants[v], variant->direction,
						 shapes[s].size, strerror(-ret));
			cb_check_run(_metadata, self->variants[v], variant->direction,
				     variant->cache, shapes[s].size, shapes[s].soff,
				     shapes[s].doff, 2, 3);
		}
	}
}

/*
 * chain=1 (the latency chain: each copy's source from the bytes the one
 * before it wrote, read back from a kernel destination or with get_user()
 * from a user one): every variant of the direction runs, verified, the
 * results echo the knob; a cold run ignores it.
 */
TEST_F_TIMEOUT(run, the_chain_reads_back_every_direction_verified, 600)
{
	static const struct { unsigned long long size; unsigned int soff, doff; } shapes[] = {
		{ 1, 0, 0 }, { 63, 1, 7 }, { 4096, 0, 0 },
	};
	struct cb_res r;
	char why[256];
	int v, ret;
	size_t s;

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "4"));
	ASSERT_EQ(0, cb_write("chain", "1"));
	for (v = 0; v < self->nvariants; v++) {
		if (!cb_variant_has_dir(self->variants[v], variant->direction))
			continue;
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		for (s = 0; s < ARRAY_SIZE(shapes); s++) {
			ASSERT_EQ(0, cb_writeu("size", shapes[s].size));
			ASSERT_EQ(0, cb_writeu("src_offset", shapes[s].soff));
			ASSERT_EQ(0, cb_writeu("dst_offset", shapes[s].doff));
			ret = cb_do_run();
			ASSERT_EQ(0, ret) TH_LOG("%s %s size %llu chained: run failed: %s",
						 self->variants[v], variant->direction,
						 shapes[s].size, strerror(-ret));
			cb_check_run(_metadata, self->variants[v], variant->direction,
				     variant->cache, shapes[s].size, shapes[s].soff,
				     shapes[s].doff, 4, 3);
			ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
			EXPECT_STREQ("1", cb_res_get(&r, "chain"));
		}
	}
}

/*
 * A variant without this direction refuses the run with EOPNOTSUPP, saying
 * which directions it has; the previous results stay.
 */
TEST_F(run, a_variant_without_the_direction_refuses_the_run)
{
	char rule[160];
	int v, refused = 0;

	ASSERT_EQ(0, cb_write("samples", "1"));
	for (v = 0; v < self->nvariants; v++) {
		if (cb_variant_has_dir(self->variants[v], variant->direction))
			continue;
		ASSERT_EQ(0, cb_write("variant", self->variants[v]));
		snprintf(rule, sizeof(rule), "variant %s has no direction %s", self->variants[v],
			 variant->direction);
		cb_expect_run_refused(_metadata, EOPNOTSUPP, "EOPNOTSUPP", rule);
		refused++;
	}
	/* The fixed variants lack exactly the iter directions. */
	EXPECT_EQ(strstr(variant->direction, "iter") ? self->nvariants - 1 : 0, refused);
}

/* The buffer file: the user side of a run, which the writer maps itself. */
FIXTURE(buffer) {
	struct cb_saved saved;
};

FIXTURE_SETUP(buffer)
{
	if (cb_fixture_setup(_metadata, &self->saved))
		ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(buffer)
{
	cb_restore(&self->saved);
}

/* mmap() of the buffer file with prot and flags at offset off: the mapping, or NULL. */
static void *cb_map_buffer(size_t len, int prot, int flags, off_t off)
{
	int fd = open(CB_PATH("buffer"), O_RDWR), err;
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, len, prot, flags, fd, off);
	err = errno;
	close(fd);
	errno = err;
	return p == MAP_FAILED ? NULL : p;
}

/*
 * The buffer file maps MAP_SHARED from offset 0, at most CB_BUFFER_MAX
 * bytes, never executable, as new zeroed pages; anything else is refused
 * with EINVAL (or the VFS's EPERM for PROT_EXEC on a noexec mount) and a
 * sentence in last_error. It has no read() nor write().
 */
TEST_F(buffer, mmap_is_shared_from_offset_0_within_the_limit_and_zeroed)
{
	size_t len = 64 << 10, i;
	unsigned char *p;
	char c;
	int fd;

	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "a private mapping is refused");
	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_SHARED, 4096));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "from offset 4096");
	EXPECT_EQ(NULL, cb_map_buffer(CB_BUFFER_MAX + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	cb_expect_refusal(_metadata, "buffer", "EINVAL", NULL, "is refused: at most");
	EXPECT_EQ(NULL, cb_map_buffer(len, PROT_READ | PROT_EXEC, MAP_SHARED, 0));
	EXPECT_TRUE(errno == EINVAL || errno == EPERM) TH_LOG("PROT_EXEC: %s", strerror(errno));

	p = cb_map_buffer(CB_BUFFER_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, p) TH_LOG("%s", strerror(errno));
	for (i = 0; i < CB_BUFFER_MAX && !p[i]; i += 4093)
		;
	EXPECT_LE(CB_BUFFER_MAX, i) TH_LOG("byte %zu of a new buffer is 0x%02x", i, p[i]);
	memset(p, 0xa5, len);
	EXPECT_EQ(0xa5, p[len - 1]);
	EXPECT_EQ(0, munmap(p, CB_BUFFER_MAX));

	fd = open(CB_PATH("buffer"), O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &c, 1));
	EXPECT_EQ(-1, write(fd, &c, 1));
	close(fd);
}

/*
 * A run of a user direction uses the writer's one buffer: none, two, one
 * smaller than size plus offset, or a read-only one for a destination are
 * refused with EINVAL, and last_error says what to map; a read-only one
 * serves as a source.
 */
TEST_F(buffer, a_run_needs_one_buffer_big_enough_with_the_access_it_needs)
{
	unsigned char *a, *b;

	ASSERT_EQ(0, cb_write("direction", "to_user"));
	ASSERT_EQ(0, cb_write("size", "8192"));
	ASSERT_EQ(0, cb_write("dst_offset", "1"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	cb_expect_run_einval(_metadata,
			     "copies to the writer's own memory: map 12288 bytes of /sys/kernel/debug/copybench/buffer first");
	a = cb_map_buffer(8192, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, a);
	cb_expect_run_einval(_metadata, "holds 8192 bytes, and this run needs 12288");
	ASSERT_EQ(0, munmap(a, 8192));
	a = cb_map_buffer(12288, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(NULL, a);
	cb_expect_run_einval(_metadata, "mapped without PROT_WRITE, which direction to_user needs");
	ASSERT_EQ(0, cb_write("direction", "from_user"));
	ASSERT_EQ(0, cb_write("src_offset", "1"));
	EXPECT_EQ(0, cb_write("run", "1")) TH_LOG("from a read-only buffer: %s", cb_last_error());
	b = cb_map_buffer(12288, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, b);
	cb_expect_run_einval(_metadata, "maps 2 buffers");
	ASSERT_EQ(0, munmap(a, 12288));
	ASSERT_EQ(0, cb_write("direction", "to_user"));
	EXPECT_EQ(0, cb_write("run", "1")) TH_LOG("%s", cb_last_error());
	EXPECT_EQ(0, munmap(b, 12288));
}

/*
 * A buffer is one mapping, unmapped whole: munmap(), mprotect() and
 * madvise() of a part of it, and mremap() (to grow, shrink or move it),
 * fail, and it stays as it was.
 */
TEST_F(buffer, a_buffer_is_never_split_nor_moved)
{
	size_t pg = sysconf(_SC_PAGESIZE), len = 4 * pg;
	unsigned char *p, *q;

	p = cb_map_buffer(len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	ASSERT_NE(NULL, p);
	memset(p, 0x3c, len);
	EXPECT_EQ(-1, munmap(p + pg, pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(p, pg, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, 2 * len, MREMAP_MAYMOVE));
	EXPECT_EQ(MAP_FAILED, mremap(p, len, pg, 0));
	q = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(MAP_FAILED, mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q));
	munmap(q, len);
	EXPECT_EQ(0x3c, p[len - 1]);
	EXPECT_EQ(0, msync(p, len, MS_SYNC));
	EXPECT_EQ(0, munmap(p, len));
}

/* Runs whose behaviour does not depend on direction and cache mode. */
FIXTURE(runctl) {
	struct cb_saved saved;
};

FIXTURE_SETUP(runctl)
{
	if (cb_fixture_setup(_metadata, &self->saved))
		ASSERT_EQ(0, cb_write("max_run_ms", "600000"));
}

FIXTURE_TEARDOWN(runctl)
{
	cb_restore(&self->saved);
}

/*
 * tsc_khz: read-only, one positive decimal and a newline, the value a
 * run's results give (the module backend of copybench records it).
 */
TEST_F_TIMEOUT(runctl, tsc_khz_is_what_runs_time_with, 300)
{
	char buf[64], *end;
	unsigned long long khz;
	struct cb_res r;
	char why[256];
	ssize_t n;

	n = cb_read("tsc_khz", buf, sizeof(buf) - 1);
	ASSERT_LT(1, n);
	buf[n] = '\0';
	EXPECT_EQ('\n', buf[n - 1]);
	errno = 0;
	khz = strtoull(buf, &end, 10);
	EXPECT_EQ(0, errno);
	EXPECT_EQ('\n', *end) TH_LOG("tsc_khz reads \"%s\"", buf);
	EXPECT_LT(0ULL, khz);
	EXPECT_EQ(-EINVAL, cb_write("tsc_khz", "1"));
	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("size", "256"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(khz, cb_res_u(&r, "tsc_khz"));
}

/* loops=0 picks a power of two by itself; results stay well formed. */
TEST_F_TIMEOUT(runctl, automatic_loops_picks_a_power_of_two, 300)
{
	struct cb_res r;
	char why[256];
	unsigned long long loops;

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "0"));
	ASSERT_EQ(0, cb_write("size", "256"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	loops = cb_res_u(&r, "loops");
	EXPECT_LE(1ULL, loops);
	EXPECT_EQ(0ULL, loops & (loops - 1)) TH_LOG("loops %llu", loops);
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/*
 * A run happens on its writer's CPU and never changes the writer's
 * affinity: pinned to each CPU in turn, with cpu set to it, the run is
 * there and the affinity stays what it was. A cpu outside the writer's
 * affinity is refused with EINVAL naming its allowed CPUs.
 */
TEST_F(runctl, runs_on_the_chosen_cpu_and_leaves_affinity_alone)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t before, after;
	struct cb_res r;
	char why[256], s[32];
	long cpu;

	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	for (cpu = 0; cpu < ncpu; cpu++) {
		CPU_ZERO(&before);
		CPU_SET(cpu, &before);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
		snprintf(s, sizeof(s), "%ld", cpu);
		ASSERT_EQ(0, cb_write("cpu", s));
		ASSERT_EQ(0, cb_do_run()) TH_LOG("%s", cb_last_error());
		ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
		EXPECT_EQ(cpu, (long)cb_res_u(&r, "run_cpu"));
		EXPECT_STREQ(s, cb_res_get(&r, "cpu"));
		ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
		EXPECT_TRUE(CPU_EQUAL(&before, &after));
	}
	if (ncpu < 2)
		return;
	ASSERT_EQ(0, cb_write("direction", "memcpy"));
	ASSERT_EQ(0, cb_write("cpu", "1"));
	CPU_ZERO(&before);
	CPU_SET(0, &before);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
	cb_expect_run_refused(_metadata, EINVAL, "EINVAL",
			      "cpu 1 is not among the writer's allowed CPUs 0");
}

/* baseline=1 subtracts the empty loop: net median is raw median minus baseline. */
TEST_F(runctl, baseline_switch_changes_only_the_subtraction)
{
	struct cb_res r;
	char why[256];

	ASSERT_EQ(0, cb_write("samples", "3"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	ASSERT_EQ(0, cb_write("baseline", "0"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("0", cb_res_get(&r, "baseline"));
	/* Without subtraction a copy cannot be cheaper than the empty loop's floor. */
	EXPECT_LT(0ULL, cb_res_c100(&r, "cycles_min"));
	EXPECT_LT(0ULL, cb_res_c100(&r, "baseline_cycles"));
	ASSERT_EQ(0, cb_write("baseline", "1"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "baseline"));
}

/* max_run_ms ends a long run early with truncated 1 and the samples taken. */
TEST_F_TIMEOUT(runctl, max_run_ms_truncates_a_long_run, 300)
{
	struct cb_res r;
	char why[256];

	ASSERT_EQ(0, cb_write("samples", "100000"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	ASSERT_EQ(0, cb_write("max_run_ms", "300"));
	ASSERT_EQ(0, cb_do_run());
	ASSERT_EQ(NULL, cb_parse_results(&r, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_STREQ("1", cb_res_get(&r, "truncated"));
	EXPECT_LE(1ULL, cb_res_u(&r, "samples"));
	EXPECT_GT(100000ULL, cb_res_u(&r, "samples"));
	EXPECT_STREQ("1", cb_res_get(&r, "verified"));
}

/*
 * A max_run_ms too short for one timed sample ends the run with ETIME, and
 * last_error says so and what to change; the previous results stay.
 */
TEST_F_TIMEOUT(runctl, max_run_ms_before_any_sample_is_etime, 300)
{
	ASSERT_EQ(0, cb_write("size", "16777216"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("max_run_ms", "1"));
	cb_expect_run_refused(_metadata, ETIME, "ETIME", "raise max_run_ms");
}

/*
 * A sample that would keep preemption off too long is refused with E2BIG;
 * last_error gives the loops that would fit. On a host that stops the
 * guest for a second while it times one 4 MiB copy (seen under a load of
 * 12), that copy alone is over the bound: the refusal then says to lower
 * size, which is as right.
 */
TEST_F_TIMEOUT(runctl, oversized_sample_is_refused, 300)
{
	const char *err;

	ASSERT_EQ(0, cb_write("size", "4194304"));
	ASSERT_EQ(0, cb_write("loops", "1000000"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	cb_expect_run_refused(_metadata, E2BIG, "E2BIG", "above the bound of");
	err = cb_last_error();
	EXPECT_TRUE(strstr(err, "set loops to at most") || strstr(err, "; lower size"))
		TH_LOG("last_error: %s", err);
}

/*
 * A cold sample is bounded as a hot one is: loops whose copies would time
 * more than the bound are refused with E2BIG, and last_error gives the
 * loops that would fit (or, when one cold 4 MiB copy alone is over it, says
 * to lower size). Unbounded, this run would go on to max_run_ms (ETIME).
 */
TEST_F_TIMEOUT(runctl, oversized_cold_sample_is_refused, 300)
{
	const char *err;

	ASSERT_EQ(0, cb_write("size", "4194304"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("loops", "1000000"));
	ASSERT_EQ(0, cb_write("samples", "1"));
	ASSERT_EQ(0, cb_write("max_run_ms", "20000"));
	cb_expect_run_refused(_metadata, E2BIG, "E2BIG", "above the bound of");
	err = cb_last_error();
	EXPECT_TRUE(strstr(err, "one cold sample of 1000000 loops") || strstr(err, "; lower size"))
		TH_LOG("last_error: %s", err);
	EXPECT_TRUE(strstr(err, "set loops to at most") || strstr(err, "; lower size"))
		TH_LOG("last_error: %s", err);
}

/*
 * A second write of "1" through the same open run file (a fork shares it,
 * as threads and dups do) while a run is in progress gets EBUSY at once:
 * not a wait in D for the file position lock, then a run of its own.
 */
TEST_F_TIMEOUT(runctl, a_second_write_on_the_same_open_run_file_is_busy, 600)
{
	int fd, status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, cb_write("direction", "memcpy"));
	ASSERT_EQ(0, cb_write("size", "1048576"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("samples", "100000"));
	ASSERT_EQ(0, cb_write("max_run_ms", "20000"));
	fd = open(CB_PATH("run"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(write(fd, "1", 1) == 1 ? 0 : errno);
	ASSERT_EQ(0, cb_wait_run_started(pid, 60, &status))
		TH_LOG("the run ended, or did not start, before it was seen in progress");
	n = write(fd, "1", 1);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EBUSY, errno);
	cb_expect_refusal(_metadata, "run", "EBUSY", NULL, "already in progress");
	/* It returned while the first run was still going. */
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fd);
}

/*
 * While a run is in progress every knob write and a second run get EBUSY,
 * values unchanged, last_error naming the run; data_size is not a knob of
 * the run and changes; a signal then ends the run with EINTR and the
 * previous results stay.
 */
TEST_F_TIMEOUT(runctl, writes_during_a_run_are_busy_and_a_signal_stops_it, 600)
{
	char results_before[8192], results_after[8192];
	char before[CB_NFILES][CB_VALUE_LEN];
	int status, ret, i;
	pid_t pid;

	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "1"));
	ASSERT_EQ(0, cb_do_run());
	cb_read("results", results_before, sizeof(results_before));

	/* Long: each copy of 1 MiB from flushed buffers, up to 100000 of them. */
	ASSERT_EQ(0, cb_write("size", "1048576"));
	ASSERT_EQ(0, cb_write("cache", "cold"));
	ASSERT_EQ(0, cb_write("samples", "100000"));
	for (i = 0; i < CB_NFILES; i++)
		if (cb_is_knob(i))
			snprintf(before[i], sizeof(before[i]), "%s", cb_value(cb_files[i].name));

	pid = cb_spawn_run(NULL, -1);
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, cb_wait_run_started(pid, 60, &status))
		TH_LOG("the run ended, or did not start, before it was seen in progress");

	for (i = 0; i < CB_NFILES; i++) {
		if (!cb_is_knob(i) || i == CBF_data_size)
			continue;
		EXPECT_EQ(-EBUSY, cb_write(cb_files[i].name, before[i]))
			TH_LOG("%s", cb_files[i].name);
		EXPECT_STREQ(before[i], cb_value(cb_files[i].name));
		cb_expect_refusal(_metadata, cb_files[i].name, "EBUSY", before[i], "in progress");
	}
	EXPECT_EQ(0, cb_write("data_size", "8192"));
	EXPECT_STREQ("8192", cb_value("data_size"));
	EXPECT_EQ(-EBUSY, cb_do_run());
	cb_expect_refusal(_metadata, "run", "EBUSY", NULL, "already in progress");
	/* Bad input during a run: EBUSY or EINVAL, value unchanged either way. */
	ret = cb_write("size", "garbage");
	EXPECT_TRUE(ret == -EBUSY || ret == -EINVAL);
	EXPECT_STREQ("1048576", cb_value("size"));

	ASSERT_EQ(0, kill(pid, SIGUSR1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EINTR, WEXITSTATUS(status)) TH_LOG("the run did not end with EINTR");
	cb_expect_refusal(_metadata, "run", "EINTR", NULL, "previous results stay");
	cb_read("results", results_after, sizeof(results_after));
	EXPECT_STREQ(results_before, results_after);
	/* And knobs are writable again. */
	EXPECT_EQ(0, cb_write("samples", "3"));
}

TEST_HARNESS_MAIN
