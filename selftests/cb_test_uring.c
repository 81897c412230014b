// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_uring.c - a minimal io_uring, one request at a time, for the context tests (cb_test_lib.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cb_test_lib.h"

int cb_uring_init(struct cb_uring *u)
{
	struct io_uring_params p;

	memset(u, 0, sizeof(*u));
	memset(&p, 0, sizeof(p));
	u->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (u->fd < 0)
		return -errno;
	u->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	u->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	u->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	u->sq_ring = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  u->fd, IORING_OFF_SQ_RING);
	u->cq_ring = mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       u->fd, IORING_OFF_SQES);
	if (u->sq_ring == MAP_FAILED || u->cq_ring == MAP_FAILED || u->sqes == MAP_FAILED) {
		cb_uring_exit(u);
		return -ENOMEM;
	}
	u->sq_head = u->sq_ring + p.sq_off.head;
	u->sq_tail = u->sq_ring + p.sq_off.tail;
	u->sq_mask = u->sq_ring + p.sq_off.ring_mask;
	u->sq_array = u->sq_ring + p.sq_off.array;
	u->cq_head = u->cq_ring + p.cq_off.head;
	u->cq_tail = u->cq_ring + p.cq_off.tail;
	u->cq_mask = u->cq_ring + p.cq_off.ring_mask;
	u->cqes = u->cq_ring + p.cq_off.cqes;
	return 0;
}

int cb_uring_register(struct cb_uring *u, void *buf, size_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return syscall(__NR_io_uring_register, u->fd, IORING_REGISTER_BUFFERS, &iov, 1) ?
	       -errno : 0;
}

int cb_uring_submit(struct cb_uring *u, const struct io_uring_sqe *sqe, bool wait)
{
	unsigned int tail = *u->sq_tail, idx = tail & *u->sq_mask;

	memcpy((struct io_uring_sqe *)u->sqes + idx, sqe, sizeof(*sqe));
	u->sq_array[idx] = idx;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, wait, wait ? IORING_ENTER_GETEVENTS : 0,
		    NULL, 0) != 1)
		return -errno;
	return 0;
}

int cb_uring_posted(struct cb_uring *u, uint64_t *data)
{
	unsigned int head = __atomic_load_n(u->cq_head, __ATOMIC_ACQUIRE);
	struct io_uring_cqe *cqe;
	int res;

	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	cqe = (struct io_uring_cqe *)u->cqes + (head & *u->cq_mask);
	res = cqe->res;
	if (data)
		*data = cqe->user_data;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

int cb_uring_reap(struct cb_uring *u, double timeout, uint64_t *data, int *res)
{
	double end = cb_now() + timeout;

	do {
		*res = cb_uring_posted(u, data);
		if (*res != -EAGAIN)
			return 0;
		usleep(1000);
	} while (cb_now() < end);
	return -ETIME;
}

int cb_uring_rw(struct cb_uring *u, int opcode, int fd, void *buf, unsigned int len,
		long long off)
{
	struct io_uring_sqe sqe = {
		.opcode = opcode, .fd = fd, .addr = (unsigned long)buf, .len = len, .off = off,
	};

	return cb_uring_submit(u, &sqe, true) ?: cb_uring_posted(u, NULL);
}

void cb_uring_exit(struct cb_uring *u)
{
	if (u->sqes && u->sqes != MAP_FAILED)
		munmap(u->sqes, u->sqes_len);
	if (u->cq_ring && u->cq_ring != MAP_FAILED)
		munmap(u->cq_ring, u->cq_len);
	if (u->sq_ring && u->sq_ring != MAP_FAILED)
		munmap(u->sq_ring, u->sq_len);
	if (u->fd > 0)
		close(u->fd);
}
