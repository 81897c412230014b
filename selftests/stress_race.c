// SPDX-License-Identifier: GPL-2.0
/*
 * stress_race.c - copybench.ko under concurrent use, for a fixed number of
 * iterations (run it on two or more CPUs):
 *
 *   readers    open the data file, read all of it in odd pieces into odd
 *              pointers and check every byte, CB_RACE_PASSES (200) times
 *              and until a few runs were accepted;
 *   a writer   writes the content's own bytes back at random places (the
 *              readers' check still holds), through its own opens;
 *   a resizer  writes data_size from a small set, over and over;
 *   a knob writer changes variant, data_chunk and the run knobs;
 *   a runner   starts runs with whatever the knobs are (bounded sizes).
 *
 * Wrong bytes: none. Every answer is one the interface documents; every
 * read reaches the end of a buffer of one of the sizes written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define RACE_READERS	2
#define RACE_IO_MAX	(96 * 1024)
/*
 * The readers go on past their passes until this many runs were accepted
 * (measured or stopped at max_run_ms), up to RACE_MORE_S seconds from the
 * start: on a slow guest a few run attempts, all refused up front by the
 * knobs of the moment, can fill the whole of 200 passes (3 of 3 once in CI).
 */
#define RACE_MIN_ACCEPTED	4
#define RACE_MORE_S		120.0

/* The data sizes the resizer writes; every read must end at one of them. */
static const unsigned long race_sizes[] = { 4096, 65536 + 123, 300000, 1 << 20 };
#define RACE_NSIZES	ARRAY_SIZE(race_sizes)

struct race {
	atomic_int stop;		/* readers done: the others stop */
	atomic_long wrong;		/* bytes that were not the content */
	atomic_long reads, writes, resizes, runs, knob_writes;
	atomic_long timed_out;		/* runs that started and hit max_run_ms */
	atomic_long refused;		/* runs refused up front (E2BIG, EOPNOTSUPP) */
	atomic_long busy;		/* EBUSY answers (a run was going) */
	atomic_int bad_errno;		/* an answer the interface does not give */
	char bad_what[512];
	int passes;
	double deadline;		/* cb_now() after which the passes suffice */
	uint64_t seed;
	struct cb_variant variants[CB_MAX_VARIANTS];
	int nvariants;
};

static void race_bad(struct race *r, const char *what, int err)
{
	int zero = 0;

	/* last_error is the module's, maybe already another writer's refusal. */
	if (atomic_compare_exchange_strong(&r->bad_errno, &zero, err ? err : -1))
		snprintf(r->bad_what, sizeof(r->bad_what), "%s: %s (last_error then: %s)",
			 what, strerror(err), cb_last_error());
}

/* Whether the readers should go on for the runs' sake. */
static bool race_want_runs(struct race *r)
{
	return atomic_load(&r->runs) + atomic_load(&r->timed_out) < RACE_MIN_ACCEPTED &&
	       cb_now() < r->deadline;
}

static void *race_reader(void *arg)
{
	struct race *r = arg;
	struct cb_guarded g;
	struct cb_rng rng = { r->seed ^ (uintptr_t)&g };
	int pass;

	if (cb_guarded_map(&g, RACE_IO_MAX + 64)) {
		race_bad(r, "reader mmap", errno);
		return NULL;
	}
	for (pass = 0; pass < r->passes || race_want_runs(r); pass++) {
		int fd = open(CB_DEBUGFS_DIR "/data", O_RDONLY | O_CLOEXEC);
		unsigned long long pos = 0;
		unsigned int i;
		ssize_t n;

		if (fd < 0) {
			race_bad(r, "open data", errno);
			break;
		}
		for (;;) {
			size_t len = 1 + cb_below(&rng, RACE_IO_MAX);
			unsigned char *p = g.mem + cb_below(&rng, 64);
			long bad;

			n = pread(fd, p, len, pos);
			if (n <= 0)
				break;
			bad = cb_first_bad(p, n, pos);
			if (bad >= 0)
				atomic_fetch_add(&r->wrong, n - bad);
			pos += n;
			atomic_fetch_add(&r->reads, 1);
		}
		close(fd);
		if (n < 0) {
			race_bad(r, "pread data", errno);
			break;
		}
		for (i = 0; i < RACE_NSIZES && race_sizes[i] != pos; i++)
			;
		/* The size at module load (1 MiB) is in the set too. */
		if (i == RACE_NSIZES) {
			race_bad(r, "a read ended at a size never written", 0);
			break;
		}
	}
	cb_guarded_unmap(&g);
	return NULL;
}

static void *race_writer(void *arg)
{
	struct race *r = arg;
	struct cb_rng rng = { r->seed * 3 };
	static unsigned char buf[RACE_IO_MAX];

	while (!atomic_load(&r->stop)) {
		int fd = open(CB_DEBUGFS_DIR "/data", O_WRONLY | O_CLOEXEC);
		int i;

		if (fd < 0) {
			race_bad(r, "open data for writing", errno);
			break;
		}
		for (i = 0; i < 8; i++) {
			unsigned long long pos = cb_below(&rng, 1 << 20);
			size_t len = 1 + cb_below(&rng, RACE_IO_MAX), j;
			ssize_t n;

			for (j = 0; j < len; j++)
				buf[j] = cb_data_byte(pos + j);
			n = pwrite(fd, buf, len, pos);
			if (n < 0 && errno != ENOSPC) {
				race_bad(r, "pwrite data", errno);
				break;
			}
			atomic_fetch_add(&r->writes, 1);
		}
		close(fd);
	}
	return NULL;
}

static void *race_resizer(void *arg)
{
	struct race *r = arg;
	struct cb_rng rng = { r->seed * 5 };

	while (!atomic_load(&r->stop)) {
		int ret = cb_writeu("data_size", race_sizes[cb_below(&rng, RACE_NSIZES)]);

		if (ret == -EBUSY)
			atomic_fetch_add(&r->busy, 1);
		else if (ret)
			race_bad(r, "write data_size", -ret);
		else
			atomic_fetch_add(&r->resizes, 1);
	}
	return NULL;
}

static void *race_knobs(void *arg)
{
	struct race *r = arg;
	struct cb_rng rng = { r->seed * 7 };

	while (!atomic_load(&r->stop)) {
		char val[64];
		const char *name;
		int ret;

		switch (cb_below(&rng, 6)) {
		case 0:
			name = "variant";
			snprintf(val, sizeof(val), "%s",
				 r->variants[cb_below(&rng, r->nvariants)].name);
			break;
		case 1:
			name = "data_chunk";
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)cb_below(&rng, 3) * 4093);
			break;
		case 2:
			name = "direction";
			snprintf(val, sizeof(val), "%s",
				 cbfs_directions[cb_below(&rng, CB_NDIRECTIONS)]);
			break;
		case 3:
			name = "size";
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)cb_below(&rng, 65537));
			break;
		case 4:
			name = "cache";
			snprintf(val, sizeof(val), "%s", cbfs_caches[cb_below(&rng, CB_NCACHES)]);
			break;
		default:
			name = "src_offset";
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)cb_below(&rng, 4096));
			break;
		}
		ret = cb_write(name, val);
		if (ret == -EBUSY)
			atomic_fetch_add(&r->busy, 1);
		else if (ret == -EOPNOTSUPP && !strcmp(name, "variant"))
			;	/* an unusable variant */
		else if (ret)
			race_bad(r, name, -ret);
		else
			atomic_fetch_add(&r->knob_writes, 1);
	}
	return NULL;
}

static void *race_runner(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		int ret = cb_do_run();

		/*
		 * EOPNOTSUPP: a variant that lacks the direction the knobs name;
		 * E2BIG: a sample that would be too long; ETIME: max_run_ms (50)
		 * passed before one sample.
		 */
		if (!ret)
			atomic_fetch_add(&r->runs, 1);
		else if (ret == -ETIME)
			atomic_fetch_add(&r->timed_out, 1);
		else if (ret == -E2BIG || ret == -EOPNOTSUPP)
			atomic_fetch_add(&r->refused, 1);
		else
			race_bad(r, "run", -ret);
	}
	return NULL;
}

FIXTURE(race) {
	struct cb_saved saved;
	int kmsg;
};

FIXTURE_SETUP(race)
{
	const char *why = cb_unavailable();

	if (why)
		SKIP(return, "%s", why);
	cb_save(&self->saved);
	ASSERT_EQ(0, cb_write("samples", "2"));
	ASSERT_EQ(0, cb_write("loops", "2"));
	ASSERT_EQ(0, cb_write("max_run_ms", "50"));
	ASSERT_EQ(0, cb_writeu("data_size", race_sizes[RACE_NSIZES - 1]));
	/*
	 * Mapped now, not when a run first finds a user direction: the knob
	 * thread may write one between cb_buffer_ready()'s look at the
	 * direction and the run, which then rightly refuses (EINVAL, no
	 * buffer). CI met that once.
	 */
	ASSERT_EQ(0, cb_buffer_hold());
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(race)
{
	cb_buffer_release();
	cb_restore(&self->saved);
}

/*
 * Readers check every byte while the data file is resized, written with
 * its own content, its knobs changed and runs started: no wrong byte.
 */
TEST_F_TIMEOUT(race, resize_read_write_knobs_and_runs_at_once, 1800)
{
	static struct race r;
	pthread_t readers[RACE_READERS], others[4];
	int i;

	memset(&r, 0, sizeof(r));
	r.passes = cb_env_ll("CB_RACE_PASSES", 200);
	r.seed = cb_seed("CB_RACE_SEED");
	r.deadline = cb_now() + RACE_MORE_S;
	r.nvariants = cb_variants(r.variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, r.nvariants);
	ksft_print_msg("%d readers x %d passes, %ld CPUs online, seed %llu\n", RACE_READERS,
		       r.passes, sysconf(_SC_NPROCESSORS_ONLN), (unsigned long long)r.seed);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		ksft_print_msg("one CPU only: the races are less likely\n");

	for (i = 0; i < RACE_READERS; i++)
		ASSERT_EQ(0, pthread_create(&readers[i], NULL, race_reader, &r));
	ASSERT_EQ(0, pthread_create(&others[0], NULL, race_writer, &r));
	ASSERT_EQ(0, pthread_create(&others[1], NULL, race_resizer, &r));
	ASSERT_EQ(0, pthread_create(&others[2], NULL, race_knobs, &r));
	ASSERT_EQ(0, pthread_create(&others[3], NULL, race_runner, &r));
	for (i = 0; i < RACE_READERS; i++)
		pthread_join(readers[i], NULL);
	atomic_store(&r.stop, 1);
	for (i = 0; i < 4; i++)
		pthread_join(others[i], NULL);

	ksft_print_msg("%ld reads, %ld writes, %ld resizes, %ld knob writes, %ld EBUSY\n",
		       atomic_load(&r.reads), atomic_load(&r.writes), atomic_load(&r.resizes),
		       atomic_load(&r.knob_writes), atomic_load(&r.busy));
	ksft_print_msg("runs: %ld measured, %ld stopped at max_run_ms, %ld refused up front\n",
		       atomic_load(&r.runs), atomic_load(&r.timed_out), atomic_load(&r.refused));
	EXPECT_EQ(0, atomic_load(&r.bad_errno)) TH_LOG("%s", r.bad_what);
	EXPECT_EQ(0, atomic_load(&r.wrong)) TH_LOG("%ld wrong bytes", atomic_load(&r.wrong));
	/*
	 * Each kind of operation really ran concurrently with the readers. A
	 * run stopped by max_run_ms (ETIME) was accepted and held the run
	 * state while it allocated and filled its buffers, and maybe copied:
	 * what the resizes and knob writes race with. On a slow kernel (the
	 * debug kernel under TCG, on a loaded host) most runs end
	 * that way, and in CI all of them did once.
	 */
	EXPECT_LT(0, atomic_load(&r.resizes));
	EXPECT_LT(0, atomic_load(&r.runs) + atomic_load(&r.timed_out));
	EXPECT_LT(0, atomic_load(&r.writes));
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
}

TEST_HARNESS_MAIN
