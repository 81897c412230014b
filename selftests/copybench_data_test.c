// SPDX-License-Identifier: GPL-2.0
/*
 * copybench_data_test.c - tests of copybench.ko's data file, the kernel's
 * own read and write paths with a chosen variant: read(), write(), readv(),
 * writev(), preadv2() and io_uring, with every variant and chunk size, at
 * odd sizes, positions and alignments, stopping exactly at a PROT_NONE
 * page, at the end of the file, across knob changes and truncation, and
 * with several readers at once. Every byte read is checked against the
 * content (cb_first_bad()).
 *
 * Needs root, debugfs at /sys/kernel/debug and copybench.ko loaded; every
 * test SKIPs with the reason otherwise, and under kernel lockdown.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"
#include "cb_test_harness.h"

FIXTURE(data) {
	struct cb_saved saved;
	char variants[CB_MAX_VARIANTS][CB_NAME_LEN];
	int nvariants;
	size_t size;
};

/* A fresh content of a size that is not a page multiple. */
FIXTURE_SETUP(data)
{
	if (!cb_fixture_setup(_metadata, &self->saved))
		return;
	self->nvariants = cb_usable_variants(self->variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->nvariants);
	self->size = 3 * 65536 + 123;
	ASSERT_EQ(0, cb_writeu("data_size", self->size));
}

FIXTURE_TEARDOWN(data)
{
	cb_restore(&self->saved);
}

static int cb_open_data(const char *variant, unsigned long long chunk, int flags)
{
	if (variant && cb_write("variant", variant))
		return -1;
	if (cb_writeu("data_chunk", chunk))
		return -1;
	return open(CB_PATH("data"), flags);
}

/*
 * The data file at off, len bytes: the first written ones complemented (a
 * write landed there), the rest the initial content.
 */
static void cb_expect_written(struct __test_metadata *_metadata, int fd, unsigned long long off,
			      size_t len, size_t written, const char *variant, size_t dist)
{
	unsigned char back[16384], want;
	size_t i;

	ASSERT_GE(sizeof(back), len);
	ASSERT_EQ((ssize_t)len, pread(fd, back, len, off));
	for (i = 0; i < len; i++) {
		want = i < written ? (unsigned char)~cb_data_byte(off + i) : cb_data_byte(off + i);
		ASSERT_EQ(want, back[i])
			TH_LOG("%s: dist %zu: file byte %zu is 0x%02x, want 0x%02x", variant, dist,
			       i, back[i], want);
	}
}

#define CB_GUARD	64
#define CB_GUARD_BYTE	0xA5

/* Reads of odd sizes at odd positions into odd alignments, every variant and chunk: every byte right. */
TEST_F_TIMEOUT(data, reads_return_the_content_with_every_variant, 600)
{
	static const size_t lens[] = { 0, 1, 7, 63, 64, 65, 4095, 4096, 4097, 12293, 70001 };
	static const unsigned long long chunks[] = { 4096, 0, 1000 };
	static const size_t aligns[] = { 0, 1, 7, 63 };
	unsigned char *mem = malloc(70001 + 2 * CB_GUARD + 64);
	unsigned long long offs[] = { 0, 1, 4095, 4096, 65537, self->size - 3, self->size };
	int v;

	ASSERT_NE(NULL, mem);
	for (v = 0; v < self->nvariants; v++) {
		size_t c;

		for (c = 0; c < ARRAY_SIZE(chunks); c++) {
			int fd = cb_open_data(self->variants[v], chunks[c], O_RDONLY);
			size_t t;

			ASSERT_LE(0, fd) TH_LOG("open data: %s", strerror(errno));
			for (t = 0; t < ARRAY_SIZE(lens) * ARRAY_SIZE(offs) * ARRAY_SIZE(aligns); t++) {
				size_t l = t % ARRAY_SIZE(lens);
				size_t o = t / ARRAY_SIZE(lens) % ARRAY_SIZE(offs);
				size_t a = t / ARRAY_SIZE(lens) / ARRAY_SIZE(offs);
				unsigned char *buf = mem + CB_GUARD + aligns[a];
				size_t want = offs[o] >= self->size ? 0 :
					      lens[l] < self->size - offs[o] ? lens[l] :
					      self->size - offs[o];
				ssize_t got;
				long bad;
				size_t g;

				memset(mem, CB_GUARD_BYTE, 2 * CB_GUARD + aligns[a] + lens[l]);
				got = pread(fd, buf, lens[l], offs[o]);
				ASSERT_EQ((ssize_t)want, got)
					TH_LOG("%s chunk %llu: pread(%zu at %llu) = %zd (%s)",
					       self->variants[v], chunks[c], lens[l], offs[o], got,
					       got < 0 ? strerror(errno) : "short");
				bad = cb_first_bad(buf, want, offs[o]);
				ASSERT_EQ(-1, bad)
					TH_LOG("%s chunk %llu: pread(%zu at %llu, align %zu): byte %ld is 0x%02x, want 0x%02x",
					       self->variants[v], chunks[c], lens[l], offs[o],
					       aligns[a], bad, buf[bad], cb_data_byte(offs[o] + bad));
				for (g = 0; g < CB_GUARD + aligns[a]; g++)
					ASSERT_EQ(CB_GUARD_BYTE, mem[g]);
				for (g = 0; g < CB_GUARD; g++)
					ASSERT_EQ(CB_GUARD_BYTE, buf[lens[l] + g])
						TH_LOG("%s: byte %zu past the read written",
						       self->variants[v], g);
			}
			close(fd);
		}
	}
	free(mem);
}

/* read() walks the file like any other: sequential reads cover it once, then 0. */
TEST_F(data, sequential_reads_cover_the_file_then_return_zero)
{
	unsigned char *buf = malloc(self->size + 100);
	size_t got = 0;
	ssize_t n;
	int fd = cb_open_data(NULL, 4096, O_RDONLY);

	ASSERT_NE(NULL, buf);
	ASSERT_LE(0, fd);
	while ((n = read(fd, buf + got, 4999)) > 0)
		got += n;
	EXPECT_EQ(0, n);
	EXPECT_EQ(self->size, got);
	EXPECT_EQ(-1, cb_first_bad(buf, got, 0));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	EXPECT_EQ((off_t)self->size + 10, lseek(fd, 10, SEEK_END));
	EXPECT_EQ(0, read(fd, buf, 10));
	EXPECT_EQ(5, lseek(fd, 5, SEEK_SET));
	EXPECT_EQ(10, read(fd, buf, 10));
	EXPECT_EQ(-1, cb_first_bad(buf, 10, 5));
	EXPECT_EQ(-1, lseek(fd, -1, SEEK_SET));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	free(buf);
}

/* Writes with every variant land where they should and read back; nothing else changes. */
TEST_F_TIMEOUT(data, writes_read_back_with_every_variant, 600)
{
	static const size_t lens[] = { 1, 7, 64, 4095, 4097, 9000 };
	static const unsigned long long offs[] = { 0, 3, 4095, 8192 + 17 };
	unsigned char *src = malloc(9000 + 8), *back = malloc(self->size);
	int v;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, back);
	for (v = 0; v < self->nvariants; v++) {
		size_t t;

		for (t = 0; t < ARRAY_SIZE(lens) * ARRAY_SIZE(offs); t++) {
			size_t l = t % ARRAY_SIZE(lens), o = t / ARRAY_SIZE(lens);
			unsigned char *p = src + (l & 7);
			size_t i;
			int fd;

			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
			fd = cb_open_data(self->variants[v], 4096, O_RDWR);
			ASSERT_LE(0, fd);
			for (i = 0; i < lens[l]; i++)
				p[i] = (unsigned char)(i * 7 + v + 1) ^ 0x5c;
			ASSERT_EQ((ssize_t)lens[l], pwrite(fd, p, lens[l], offs[o]))
				TH_LOG("%s: pwrite(%zu at %llu): %s", self->variants[v], lens[l],
				       offs[o], strerror(errno));
			ASSERT_EQ((ssize_t)self->size, pread(fd, back, self->size, 0));
			for (i = 0; i < self->size; i++) {
				unsigned char want = i >= offs[o] && i < offs[o] + lens[l] ?
						     p[i - offs[o]] : cb_data_byte(i);

				ASSERT_EQ(want, back[i])
					TH_LOG("%s: after pwrite(%zu at %llu) byte %zu is 0x%02x, want 0x%02x",
					       self->variants[v], lens[l], offs[o], i, back[i], want);
			}
			close(fd);
		}
	}
	free(src);
	free(back);
}

/* Writes stop at the end: short across it, ENOSPC at or past it. */
TEST_F(data, writes_past_the_end_are_short_or_enospc)
{
	unsigned char buf[100] = { 1, 2, 3 };
	int fd = cb_open_data(NULL, 4096, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(10, pwrite(fd, buf, sizeof(buf), self->size - 10));
	EXPECT_EQ(-1, pwrite(fd, buf, sizeof(buf), self->size));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(-1, pwrite(fd, buf, sizeof(buf), self->size + 4096));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, pwrite(fd, buf, 0, self->size));
	close(fd);
}

/*
 * A read into (or a write from) a buffer whose next page is PROT_NONE
 * returns exactly the bytes before that page, or EFAULT when there are none;
 * the file and memory beyond are untouched.
 */
TEST_F_TIMEOUT(data, read_and_write_across_a_prot_none_page_are_exact, 600)
{
	static const size_t dists[] = { 0, 1, 3, 8, 63, 64, 65, 4095, 4096, 8193 };
	long pg = sysconf(_SC_PAGESIZE);
	size_t maplen = 4 * pg;
	unsigned char *map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *hole = map + 3 * pg;
	int v;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(hole, pg, PROT_NONE));
	for (v = 0; v < self->nvariants; v++) {
		size_t d;

		for (d = 0; d < ARRAY_SIZE(dists); d++) {
			unsigned long long off = 1000 + d;
			size_t len = dists[d] + 100, i;
			ssize_t got;
			int fd;

			fd = cb_open_data(self->variants[v], 4096, O_RDWR);
			ASSERT_LE(0, fd);

			/* read */
			memset(map, 0, 3 * pg);
			got = pread(fd, hole - dists[d], len, off);
			if (dists[d] == 0) {
				EXPECT_EQ(-1, got);
				EXPECT_EQ(EFAULT, errno);
			} else {
				EXPECT_EQ((ssize_t)dists[d], got)
					TH_LOG("%s: read %zu bytes ending %zu into PROT_NONE: got %zd",
					       self->variants[v], len, len - dists[d], got);
				EXPECT_EQ(-1, cb_first_bad(hole - dists[d], dists[d], off));
			}

			/* write: the bytes before the hole land, the file past them stays */
			for (i = 0; i < dists[d]; i++)
				hole[-(long)dists[d] + i] = ~cb_data_byte(off + i);
			got = pwrite(fd, hole - dists[d], len, off);
			if (dists[d] == 0) {
				EXPECT_EQ(-1, got);
				EXPECT_EQ(EFAULT, errno);
			} else {
				EXPECT_EQ((ssize_t)dists[d], got)
					TH_LOG("%s: write %zu bytes from %zu before PROT_NONE: got %zd",
					       self->variants[v], len, dists[d], got);
			}
			cb_expect_written(_metadata, fd, off, len + 200, dists[d], self->variants[v],
					  dists[d]);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	munmap(map, maplen);
}

/* An open file keeps its buffer and variant: later knob writes affect later opens only. */
TEST_F(data, open_file_keeps_its_snapshot_across_knob_changes)
{
	unsigned char buf[256];
	struct stat st;
	int fd, fd2;

	fd = cb_open_data("native", 4096, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cb_write("data_size", "8192"));
	ASSERT_EQ(0, cb_write("variant", "bytes"));
	/* The old content, its old size, through the old fd. */
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	EXPECT_EQ((ssize_t)sizeof(buf), pread(fd, buf, sizeof(buf), self->size - sizeof(buf)));
	EXPECT_EQ(-1, cb_first_bad(buf, sizeof(buf), self->size - sizeof(buf)));
	/* A new open sees the new size; stat shows it too. */
	fd2 = open(CB_PATH("data"), O_RDONLY);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(8192, lseek(fd2, 0, SEEK_END));
	EXPECT_EQ(0, pread(fd2, buf, sizeof(buf), 8192));
	ASSERT_EQ(0, stat(CB_PATH("data"), &st));
	EXPECT_EQ(8192, st.st_size);
	close(fd2);
	close(fd);
}

struct cb_reader_arg {
	int fd;
	size_t size, step;
	long bad;	/* first bad position, -1 when all good; -2 on a read error */
};

static void *cb_reader(void *p)
{
	struct cb_reader_arg *a = p;
	unsigned char *buf = malloc(a->step);
	size_t pos;
	int round;

	a->bad = buf ? -1 : -2;
	for (round = 0; round < 4 && a->bad == -1; round++)
		for (pos = 0; pos < a->size && a->bad == -1; ) {
			ssize_t n = pread(a->fd, buf, a->step, pos);
			long b;

			if (n <= 0) {
				a->bad = -2;
				break;
			}
			b = cb_first_bad(buf, n, pos);
			if (b >= 0)
				a->bad = pos + b;
			pos += n;
		}
	free(buf);
	return NULL;
}

/* Several threads reading at once, on one fd and on their own, all get the content. */
TEST_F_TIMEOUT(data, concurrent_readers_get_the_content, 300)
{
	static const size_t steps[] = { 4096, 65536, 1000, 131072, 17, 4096 };
	struct cb_reader_arg args[6];
	pthread_t th[6];
	int shared = cb_open_data(NULL, 4096, O_RDONLY);
	size_t i;

	ASSERT_LE(0, shared);
	for (i = 0; i < 6; i++) {
		args[i].fd = i & 1 ? shared : open(CB_PATH("data"), O_RDONLY);
		ASSERT_LE(0, args[i].fd);
		args[i].size = self->size;
		args[i].step = steps[i];
		ASSERT_EQ(0, pthread_create(&th[i], NULL, cb_reader, &args[i]));
	}
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(-1, args[i].bad) TH_LOG("reader %zu (step %zu): bad at %ld", i,
						  args[i].step, args[i].bad);
		if (args[i].fd != shared)
			close(args[i].fd);
	}
	close(shared);
}

/*
 * A scattered read, its iovecs of odd lengths (empty ones too), every
 * variant, fills every byte right and nothing around; a scattered write of
 * the same shape reads back.
 */
TEST_F_TIMEOUT(data, readv_and_writev_with_every_variant, 600)
{
	static const size_t lens[] = { 7, 0, 4096, 1, 0, 65537, 3, 4095 };
	static const unsigned long long offs[] = { 0, 1, 4093, 65536 + 5 };
	size_t total = 0, i, k;
	unsigned char *mem, *p, *back;
	struct iovec iov[ARRAY_SIZE(lens)];
	int v, o;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		total += lens[i];
	mem = malloc(total + ARRAY_SIZE(lens) * (CB_GUARD + 1) + CB_GUARD);
	back = malloc(total);
	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, back);
	for (v = 0; v < self->nvariants; v++) {
		for (o = 0; o < (int)ARRAY_SIZE(offs); o++) {
			int fd = cb_open_data(self->variants[v], v & 1 ? 0 : 4096, O_RDWR);
			ssize_t got;

			ASSERT_LE(0, fd);
			memset(mem, CB_GUARD_BYTE, total + ARRAY_SIZE(lens) * (CB_GUARD + 1) +
			       CB_GUARD);
			for (i = 0, p = mem + CB_GUARD; i < ARRAY_SIZE(lens); i++) {
				iov[i].iov_base = p + (i & 1);
				iov[i].iov_len = lens[i];
				p += lens[i] + CB_GUARD + 1;
			}
			got = preadv(fd, iov, ARRAY_SIZE(iov), offs[o]);
			ASSERT_EQ((ssize_t)total, got)
				TH_LOG("%s: preadv at %llu: %zd (%s)", self->variants[v], offs[o],
				       got, got < 0 ? strerror(errno) : "short");
			for (i = 0, k = 0; i < ARRAY_SIZE(lens); k += lens[i++]) {
				unsigned char *b = iov[i].iov_base;

				ASSERT_EQ(-1, cb_first_bad(b, lens[i], offs[o] + k))
					TH_LOG("%s: iovec %zu at %llu", self->variants[v], i,
					       offs[o] + k);
				ASSERT_EQ(CB_GUARD_BYTE, b[lens[i]])
					TH_LOG("%s: byte past iovec %zu written", self->variants[v], i);
				ASSERT_EQ(CB_GUARD_BYTE, b[-1]);
			}
			/* The same shape written back, complemented, then read. */
			for (i = 0; i < ARRAY_SIZE(lens); i++)
				for (k = 0; k < lens[i]; k++)
					((unsigned char *)iov[i].iov_base)[k] ^= 0xff;
			ASSERT_EQ((ssize_t)total, pwritev(fd, iov, ARRAY_SIZE(iov), offs[o]));
			ASSERT_EQ((ssize_t)total, pread(fd, back, total, offs[o]));
			for (k = 0; k < total; k++)
				ASSERT_EQ((unsigned char)~cb_data_byte(offs[o] + k), back[k])
					TH_LOG("%s: pwritev at %llu, byte %zu", self->variants[v],
					       offs[o], k);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	free(back);
	free(mem);
}

/*
 * preadv2() at an offset leaves the position, at -1 reads from it and moves
 * it; RWF_NOWAIT is refused with EOPNOTSUPP, as on any file that cannot
 * promise not to block.
 */
TEST_F(data, preadv2_at_an_offset_and_at_the_file_position)
{
	unsigned char buf[3000];
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 1000 },
		{ .iov_base = buf + 1000, .iov_len = 2000 },
	};
	int fd = cb_open_data("bytes", 4096, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(100, lseek(fd, 100, SEEK_SET));
	EXPECT_EQ(3000, preadv2(fd, iov, 2, 70000, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, 3000, 70000));
	EXPECT_EQ(100, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ(3000, preadv2(fd, iov, 2, -1, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, 3000, 100));
	EXPECT_EQ(3100, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ(-1, preadv2(fd, iov, 2, 0, RWF_NOWAIT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
}

/*
 * io_uring reads and writes the data file with every variant: plain buffers
 * (a user iov_iter), registered buffers (a bvec iov_iter) and vectors.
 */
TEST_F_TIMEOUT(data, io_uring_reads_and_writes_with_every_variant, 600)
{
	const size_t len = 70001;
	unsigned char *buf = malloc(len), *fixed;
	struct iovec iov[2];
	struct cb_uring u;
	int v, fd, ret;
	size_t k;

	ASSERT_NE(NULL, buf);
	fixed = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fixed);
	ret = cb_uring_init(&u);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	ASSERT_EQ(0, cb_uring_register(&u, fixed, 2 * len));
	for (v = 0; v < self->nvariants; v++) {
		fd = cb_open_data(self->variants[v], 4096, O_RDWR);
		ASSERT_LE(0, fd);

		memset(buf, 0, len);
		ret = cb_uring_rw(&u, IORING_OP_READ, fd, buf, len, 3);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READ: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 3)) TH_LOG("%s: READ", self->variants[v]);

		memset(fixed, 0, 2 * len);
		ret = cb_uring_rw(&u, IORING_OP_READ_FIXED, fd, fixed + 17, len, 65536);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READ_FIXED: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(fixed + 17, len, 65536))
			TH_LOG("%s: READ_FIXED", self->variants[v]);

		iov[0] = (struct iovec){ .iov_base = buf, .iov_len = 5 };
		iov[1] = (struct iovec){ .iov_base = buf + 5, .iov_len = len - 5 };
		memset(buf, 0, len);
		ret = cb_uring_rw(&u, IORING_OP_READV, fd, iov, 2, 1000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: READV: %d", self->variants[v], ret);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 1000)) TH_LOG("%s: READV", self->variants[v]);

		for (k = 0; k < len; k++)
			fixed[k] = ~cb_data_byte(4000 + k);
		ret = cb_uring_rw(&u, IORING_OP_WRITE_FIXED, fd, fixed, len, 4000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: WRITE_FIXED: %d", self->variants[v], ret);
		for (k = 0; k < len; k++)
			buf[k] = cb_data_byte(4000 + k);
		ret = cb_uring_rw(&u, IORING_OP_WRITE, fd, buf, len, 4000);
		ASSERT_EQ((int)len, ret) TH_LOG("%s: WRITE: %d", self->variants[v], ret);
		ret = cb_uring_rw(&u, IORING_OP_READ, fd, buf, len, 4000);
		ASSERT_EQ(-1, cb_first_bad(buf, len, 4000)) TH_LOG("%s: WRITE", self->variants[v]);
		close(fd);
	}
	cb_uring_exit(&u);
	munmap(fixed, 2 * len);
	free(buf);
}

/*
 * The copybench_data_read or _write events (cb_trace.h) a test traced in
 * tracefs: for each, the thread that issued it and the bytes it returned.
 */
#define CB_TRACING	"/sys/kernel/tracing"

static int cb_trace_event(const char *event, const char *on)
{
	char path[256];

	snprintf(path, sizeof(path), CB_TRACING "/events/copybench/%s/enable", event);
	return cb_file_write(path, on, strlen(on));
}

/* Empty the trace buffer: tracefs clears it on an open with O_TRUNC. */
static int cb_trace_clear(void)
{
	int fd = open(CB_TRACING "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Over the events of the trace buffer named event: *mine, the largest
 * return of those issued by thread tid; *others, how many other threads
 * issued one; *total, the sum of their returns. -1 when the buffer cannot
 * be read.
 */
static int cb_trace_sum(const char *event, pid_t tid, long long *mine, int *others,
			long long *total)
{
	FILE *f = fopen(CB_TRACING "/trace", "r");
	char line[1024], key[64];
	const char *ret, *dash;
	long long r;

	if (!f)
		return -1;
	snprintf(key, sizeof(key), " %s: ", event);
	*mine = -1;
	*others = 0;
	*total = 0;
	while (fgets(line, sizeof(line), f)) {
		char *task = line + strspn(line, " ");
		char *end = strchr(task, ' ');

		if (line[0] == '#' || !strstr(line, key) || !end)
			continue;
		*end = '\0';
		dash = strrchr(task, '-');
		ret = strstr(end + 1, " ret=");
		if (!dash || !ret)
			continue;
		r = strtoll(ret + 5, NULL, 10);
		*total += r;
		if (strtol(dash + 1, NULL, 10) == tid)
			*mine = r > *mine ? r : *mine;
		else
			(*others)++;
	}
	fclose(f);
	return 0;
}

/*
 * io_uring first tries a read or write inline, with IOCB_NOWAIT, in the
 * submitter's own io_uring_enter() (on 6.12 for a file opened O_NONBLOCK;
 * on 6.1 for any), holding the ring's lock. There the data file copies one
 * chunk and stops where it would reschedule; io_uring completes the rest
 * from an io-wq worker. Traced: the submitting thread's events return one
 * chunk at most, another thread's the rest, and every byte is right. A
 * write goes the same way (io_uring sends a regular file's writes to io-wq
 * at once, so the submitter copies nothing).
 */
TEST_F_TIMEOUT(data, io_uring_copies_one_chunk_inline_and_the_rest_in_a_worker, 600)
{
	static const char * const events[] = { "copybench_data_read", "copybench_data_write" };
	const size_t len = 4UL << 20, chunk = 4096;
	pid_t tid = syscall(SYS_gettid);
	unsigned char *buf = malloc(len);
	long long mine, total;
	struct cb_uring u;
	int e, fd, ret, others;
	size_t k;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cb_writeu("data_size", len));
	ret = cb_uring_init(&u);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	fd = cb_open_data("native", chunk, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	for (e = 0; e < 2; e++) {
		ret = cb_trace_event(events[e], "1") ?: cb_trace_clear();
		ASSERT_EQ(0, ret) TH_LOG("%s: tracefs at " CB_TRACING ": %s", events[e], strerror(-ret));
		if (e == 0) {
			memset(buf, 0, len);
			ret = cb_uring_rw(&u, IORING_OP_READ, fd, buf, len, 0);
		} else {
			for (k = 0; k < len; k++)
				buf[k] = ~cb_data_byte(k);
			ret = cb_uring_rw(&u, IORING_OP_WRITE, fd, buf, len, 0);
		}
		cb_trace_event(events[e], "0");
		ASSERT_EQ((int)len, ret) TH_LOG("%s: %d", events[e], ret);
		ASSERT_EQ(0, cb_trace_sum(events[e], tid, &mine, &others, &total));
		TH_LOG("%s: the submitter copied at most %lld bytes a call, %d calls in other threads, %lld bytes in all",
		       events[e], mine, others, total);
		EXPECT_GE((long long)chunk, mine) TH_LOG("%s: the submitter's inline try copied %lld bytes",
							 events[e], mine);
		EXPECT_LT(0, others);
		EXPECT_EQ((long long)len, total);
	}
	memset(buf, 0, len);
	ASSERT_EQ((ssize_t)len, pread(fd, buf, len, 0));
	for (k = 0; k < len; k++)
		ASSERT_EQ((unsigned char)~cb_data_byte(k), buf[k]) TH_LOG("byte %zu", k);
	close(fd);
	cb_uring_exit(&u);
	free(buf);
}

/*
 * A readv whose second iovec runs into a PROT_NONE page returns exactly the
 * bytes before that page, every variant; a writev from such iovecs writes
 * exactly those.
 */
TEST_F_TIMEOUT(data, readv_and_writev_stop_exactly_at_a_prot_none_page, 600)
{
	static const size_t dists[] = { 0, 1, 7, 8, 63, 64, 65, 4095, 4096, 8193 };
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *hole = map + 3 * pg, head[100];
	int v;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(hole, pg, PROT_NONE));
	for (v = 0; v < self->nvariants; v++) {
		size_t d, i;

		for (d = 0; d < ARRAY_SIZE(dists); d++) {
			unsigned long long off = 1000 + d;
			size_t len = dists[d] + 100;
			struct iovec iov[2] = {
				{ .iov_base = head, .iov_len = sizeof(head) },
				{ .iov_base = hole - dists[d], .iov_len = len },
			};
			ssize_t got;
			int fd = cb_open_data(self->variants[v], d & 1 ? 0 : 4096, O_RDWR);

			ASSERT_LE(0, fd);
			got = preadv(fd, iov, 2, off);
			EXPECT_EQ((ssize_t)(sizeof(head) + dists[d]), got)
				TH_LOG("%s: readv ending %zu bytes into PROT_NONE: got %zd",
				       self->variants[v], len - dists[d], got);
			EXPECT_EQ(-1, cb_first_bad(head, sizeof(head), off));
			EXPECT_EQ(-1, cb_first_bad(hole - dists[d], dists[d], off + sizeof(head)));

			for (i = 0; i < sizeof(head); i++)
				head[i] = ~cb_data_byte(off + i);
			for (i = 0; i < dists[d]; i++)
				hole[-(long)dists[d] + i] = ~cb_data_byte(off + sizeof(head) + i);
			got = pwritev(fd, iov, 2, off);
			EXPECT_EQ((ssize_t)(sizeof(head) + dists[d]), got)
				TH_LOG("%s: writev from %zu bytes before PROT_NONE: got %zd",
				       self->variants[v], dists[d], got);
			cb_expect_written(_metadata, fd, off, len + 300, sizeof(head) + dists[d],
					  self->variants[v], dists[d]);
			close(fd);
			ASSERT_EQ(0, cb_writeu("data_size", self->size));	/* refill */
		}
	}
	munmap(map, 4 * pg);
}

/*
 * The data file's size is data_size's: a truncating open is refused with
 * EINVAL and a sentence in last_error; truncate() and ftruncate() change
 * only the inode's size, never the content, what a read returns or
 * SEEK_END, and every open gives the inode data_size's size again.
 */
TEST_F(data, truncation_never_changes_the_content_and_an_open_restores_the_size)
{
	unsigned char *buf = malloc(self->size + 1);
	struct stat st;
	int fd;

	ASSERT_NE(NULL, buf);
	fd = open(CB_PATH("data"), O_WRONLY | O_TRUNC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
	cb_expect_refusal(_metadata, "data", "EINVAL", NULL, "O_TRUNC");
	/* truncate() reaches only the inode's size; an open gives it back. */
	EXPECT_EQ(0, truncate(CB_PATH("data"), 10));
	fd = open(CB_PATH("data"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)self->size, st.st_size);
	EXPECT_EQ(0, ftruncate(fd, 0));
	EXPECT_EQ((ssize_t)self->size, pread(fd, buf, self->size + 1, 0));
	EXPECT_EQ(-1, cb_first_bad(buf, self->size, 0));
	EXPECT_EQ((off_t)self->size, lseek(fd, 0, SEEK_END));
	close(fd);
	fd = open(CB_PATH("data"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)self->size, st.st_size);
	close(fd);
	free(buf);
}

TEST_HARNESS_MAIN
