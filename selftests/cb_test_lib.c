// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_lib.c - helpers of copybench.ko's tests (cb_test_lib.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cb_test_lib.h"

#define CB_DEBUGFS_MAGIC	0x64626720

#define CB_STR(x)	#x

const struct cb_file cb_files[] = {
#define CB_FILE(name, mode)	{ CB_STR(name), mode },
#include "copybench.h"
#undef CB_FILE
};
const unsigned int cb_nfiles = ARRAY_SIZE(cb_files);

const char * const cb_direction_list[] = {
#define CB_DIRECTION(name)	CB_STR(name),
#include "copybench.h"
#undef CB_DIRECTION
};
const unsigned int cb_ndirections = ARRAY_SIZE(cb_direction_list);

const char * const cb_cache_list[] = {
#define CB_CACHE(name)	CB_STR(name),
#include "copybench.h"
#undef CB_CACHE
};
const unsigned int cb_ncaches = ARRAY_SIZE(cb_cache_list);

bool cb_is_knob(const struct cb_file *f)
{
	return (f->mode & 0600) == 0600 && strcmp(f->name, "data") &&
	       strcmp(f->name, "data_size");
}

const char *cb_unavailable(void)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if (geteuid() != 0)
		return "not root: copybench's debugfs files are root-only";
	if (statfs("/sys/kernel/debug", &sfs) || sfs.f_type != CB_DEBUGFS_MAGIC)
		return "debugfs not mounted at /sys/kernel/debug";
	if (stat(CB_DEBUGFS_DIR, &st))
		return "copybench.ko not loaded (" CB_DEBUGFS_DIR " missing)";
	fd = open(CB_DEBUGFS_DIR "/size", O_WRONLY);
	if (fd < 0)
		return errno == EPERM ? "kernel lockdown forbids writable debugfs files" :
					"cannot open " CB_DEBUGFS_DIR "/size for writing";
	close(fd);
	return NULL;
}

static void cb_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, CB_DEBUGFS_DIR "/%s", name);
}

int cb_file_write(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

const char *cb_file_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

long long cb_file_ll(const char *path)
{
	char buf[64], *end;
	long long v;

	cb_file_line(path, buf, sizeof(buf));
	errno = 0;
	v = strtoll(buf, &end, 10);
	return errno || end == buf || *end ? -1 : v;
}

int cb_write_buf(const char *name, const void *buf, size_t len)
{
	char path[256];

	cb_path(path, sizeof(path), name);
	return cb_file_write(path, buf, len);
}

int cb_write(const char *name, const char *s)
{
	return cb_write_buf(name, s, strlen(s));
}

int cb_writeu(const char *name, unsigned long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu\n", v);
	return cb_write(name, s);
}

ssize_t cb_read(const char *name, char *buf, size_t len)
{
	char path[256];
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	cb_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[got] = '\0';
	return n < 0 ? n : (ssize_t)got;
}

const char *cb_value(const char *name, char *buf, size_t len)
{
	char *nl;

	if (cb_read(name, buf, len) < 0)
		return "(unreadable)";
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return buf;
}

long long cb_value_ll(const char *name)
{
	char path[256];

	cb_path(path, sizeof(path), name);
	return cb_file_ll(path);
}

void cb_state_save(struct cb_state *s)
{
	unsigned int i;

	for (i = 0; i < cb_nfiles && i < 32; i++)
		if (cb_is_knob(&cb_files[i]) || !strcmp(cb_files[i].name, "data_size"))
			cb_value(cb_files[i].name, s->val[i], sizeof(s->val[i]));
}

void cb_state_restore(const struct cb_state *s)
{
	unsigned int i;

	for (i = 0; i < cb_nfiles && i < 32; i++)
		if (cb_is_knob(&cb_files[i]) || !strcmp(cb_files[i].name, "data_size"))
			cb_write(cb_files[i].name, s->val[i]);
}

/* A comma-separated list of directions as a mask; -1 if a word is not one. */
static int cb_dir_mask(const char *list)
{
	char buf[128], *w, *save = NULL;
	unsigned int i;
	int mask = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < cb_ndirections; i++)
			if (!strcmp(w, cb_direction_list[i]))
				break;
		if (i == cb_ndirections)
			return -1;
		mask |= 1 << i;
	}
	return mask;
}

int cb_variants(struct cb_variant *v, int max)
{
	char buf[8192], *line, *save = NULL;
	int n = 0;

	if (cb_read("variants", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32], state[16], third[128];
		int fields = sscanf(line, "%31s %15s %127s", name, state, third);
		int mask = fields == 3 ? cb_dir_mask(third) : -1;

		if (fields < 2)
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		v[n].usable = !strcmp(state, "usable");
		v[n].dirs = mask > 0 ? (unsigned int)mask : (1U << cb_ndirections) - 1;
		n++;
	}
	return n;
}

long cb_first_bad(const unsigned char *buf, size_t n, unsigned long long off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != cb_data_byte(off + i))
			return i;
	return -1;
}

int cb_load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

int cb_unload(void)
{
	return syscall(__NR_delete_module, "copybench", O_NONBLOCK) ? -errno : 0;
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

long long cb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

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

/* What a kernel report's lines look like (vm-run's list, plus Call Trace). */
static const char * const cb_bad_words[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault", "kernel BUG", "KASAN",
	"UBSAN", "Call Trace", "kmemleak:", "detected stall", "self-detected stall",
	"soft lockup", "blocked for more than", "refcount_t:", "list_add corruption",
	"list_del corruption",
};

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
	if (g->mem == MAP_FAILED)
		return -errno;
	if (mprotect(g->mem + whole, page, PROT_NONE)) {
		munmap(g->mem, whole + page);
		return -errno;
	}
	g->len = whole;
	return 0;
}

void cb_guarded_unmap(struct cb_guarded *g)
{
	if (g->mem && g->mem != MAP_FAILED)
		munmap(g->mem, g->len + sysconf(_SC_PAGESIZE));
	g->mem = NULL;
}

pid_t cb_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int cb_child_wait(pid_t pid, long long deadline_ms)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	int status;

	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };
		long long left = deadline_ms - cb_now_ms();
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			close(pidfd);
			return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
						     WEXITSTATUS(status);
		}
		if (r < 0 || pidfd < 0 || left <= 0)
			break;
		/* Readable when the child has exited. */
		poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
	}
	if (pidfd >= 0)
		close(pidfd);
	return -1;
}

/* Has the child exited? Leaves it to be reaped. */
static bool cb_exited(pid_t pid)
{
	siginfo_t info = { 0 };

	return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) || info.si_pid == pid;
}

bool cb_wait_running(pid_t pid, long long deadline_ms)
{
	char samples[64];

	cb_value("samples", samples, sizeof(samples));
	while (cb_now_ms() < deadline_ms) {
		if (cb_write("samples", samples) == -EBUSY)
			return true;
		if (cb_exited(pid))
			return false;
		sched_yield();
	}
	return false;
}
