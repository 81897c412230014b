// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_util.c - what any test may want: the clock, a seeded RNG, numbers from the
 * environment, the kernel log's reports, guarded mappings (cb_test_lib.h). The bottom of the
 * tests' library: it calls none of its other files.
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

double cb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t cb_rand(struct cb_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t cb_below(struct cb_rng *r, uint64_t n)
{
	return cb_rand(r) % n;
}

uint64_t cb_seed(const char *name)
{
	const char *s = getenv(name);
	struct timespec ts;
	char *end;

	if (s && *s) {
		unsigned long long v;

		errno = 0;
		v = strtoull(s, &end, 10);
		if (!errno && !*end)
			return v;
		fprintf(stderr, "# %s=%s is not a decimal number; using a fresh seed\n", name, s);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000003u) ^ ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

long long cb_env_ll(const char *name, long long dflt)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "# %s=%s is not a decimal number; using %lld\n", name, s, dflt);
		return dflt;
	}
	return v;
}

/* What a kernel report's lines look like (vm-run's list, plus Call Trace). */
static const char * const cb_bad_words[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault", "kernel BUG", "KASAN",
	"UBSAN", "Call Trace", "suspected memory leak", "leak detector disabled",
	"detected stall", "self-detected stall", "soft lockup", "blocked for more than", "refcount_t:", "list_add corruption",
	"list_del corruption",
};

int cb_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

const char *cb_kmsg_report(int fd)
{
	static char out[600];
	char rec[8192], first[512] = "";
	int bad = 0;
	ssize_t n;

	if (fd < 0) {
		snprintf(out, sizeof(out), "the kernel log is unreadable: %s", strerror(-fd));
		return out;
	}
	for (;;) {
		unsigned int i;
		char *msg;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; i < ARRAY_SIZE(cb_bad_words); i++)
			if (strstr(msg, cb_bad_words[i]))
				break;
		if (i == ARRAY_SIZE(cb_bad_words))
			continue;
		if (!bad++) {
			snprintf(first, sizeof(first), "%.500s", msg);
			first[strcspn(first, "\n")] = '\0';
		}
	}
	if (!bad)
		return "";
	snprintf(out, sizeof(out), "%d kernel log lines like: %s", bad, first);
	return out;
}

int cb_guarded_map(struct cb_guarded *g, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t whole = (len + page - 1) / page * page;

	g->mem = mmap(NULL, whole + page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->mem == MAP_FAILED) {
		g->mem = NULL;
		return -errno;
	}
	if (mprotect(g->mem + whole, page, PROT_NONE)) {
		int err = -errno;

		munmap(g->mem, whole + page);
		g->mem = NULL;
		return err;
	}
	g->len = whole;
	return 0;
}

void cb_guarded_unmap(struct cb_guarded *g)
{
	if (g->mem)
		munmap(g->mem, g->len + sysconf(_SC_PAGESIZE));
	g->mem = NULL;
}
