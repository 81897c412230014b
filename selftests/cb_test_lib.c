// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_lib.c - what copybench's module tests share (cb_test_lib.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
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

#define CB_DEBUGFS_MAGIC	0x64626720
#define CB_CGROUP_ROOT		"/sys/fs/cgroup"

const struct cb_file_info cb_files[CB_NFILES] = {
#define CB_FILE(fname, fmode)	{ .name = #fname, .mode = fmode },
#include "copybench.h"
#undef CB_FILE
};

static const struct {
	const char *key, *unit;
} cb_keys[CB_NKEYS] = {
#define CB_RESULT_KEY(key, unit)	{ #key, unit },
#include "copybench.h"
#undef CB_RESULT_KEY
};

bool cb_is_knob(int i)
{
	return cb_files[i].mode == 0600 && i != CBF_data;
}

int cb_write(const char *name, const char *s)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(s))
		err = -EIO;
	close(fd);
	return err;
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
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), CB_DEBUGFS_DIR "/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static const char *cb_chomp(char *buf, ssize_t n)
{
	if (n < 0)
		return "(unreadable)";
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

const char *cb_value(const char *name)
{
	static __thread char buf[CB_VALUE_LEN];

	return cb_chomp(buf, cb_read(name, buf, sizeof(buf)));
}

const char *cb_last_error(void)
{
	static __thread char buf[CB_LAST_ERROR_MAX + 1];

	return cb_chomp(buf, cb_read("last_error", buf, sizeof(buf)));
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
	fd = open(CB_PATH("size"), O_WRONLY);
	if (fd < 0)
		return errno == EPERM ? "kernel lockdown forbids writable debugfs files" :
					"cannot open " CB_PATH("size") " for writing";
	close(fd);
	return NULL;
}

/* Calls fn for each line of "variants": name, state, directions. */
static int cb_each_variant(bool (*fn)(const char *name, const char *state, const char *dirs,
				      void *arg), void *arg)
{
	char buf[4096], *line, *save = NULL;

	if (cb_read("variants", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[CB_NAME_LEN], state[16], dirs[128];

		if (sscanf(line, "%31s %15s %127s", name, state, dirs) == 3 &&
		    !fn(name, state, dirs, arg))
			break;
	}
	return 0;
}

struct cb_usable_arg {
	char (*names)[CB_NAME_LEN];
	int n, max;
};

static bool cb_add_usable(const char *name, const char *state, const char *dirs, void *p)
{
	struct cb_usable_arg *a = p;

	if (!strcmp(state, "usable") && a->n < a->max)
		snprintf(a->names[a->n++], CB_NAME_LEN, "%s", name);
	return true;
}

int cb_usable_variants(char names[][CB_NAME_LEN], int max)
{
	struct cb_usable_arg a = { .names = names, .max = max };

	cb_each_variant(cb_add_usable, &a);
	return a.n;
}

struct cb_dir_arg {
	const char *name, *dir;
	bool has;
};

static bool cb_find_dir(const char *name, const char *state, const char *dirs, void *p)
{
	struct cb_dir_arg *a = p;
	char list[160], want[80];

	if (strcmp(name, a->name))
		return true;
	snprintf(list, sizeof(list), ",%s,", dirs);
	snprintf(want, sizeof(want), ",%s,", a->dir);
	a->has = strstr(list, want);
	return false;
}

bool cb_variant_has_dir(const char *name, const char *dir)
{
	struct cb_dir_arg a = { .name = name, .dir = dir };

	cb_each_variant(cb_find_dir, &a);
	return a.has;
}

void cb_save(struct cb_saved *s)
{
	int i;

	for (i = 0; i < CB_NFILES; i++)
		if (cb_is_knob(i))
			snprintf(s->val[i], sizeof(s->val[i]), "%s", cb_value(cb_files[i].name));
	s->valid = true;
}

void cb_restore(const struct cb_saved *s)
{
	int i;

	for (i = 0; s->valid && i < CB_NFILES; i++)
		if (cb_is_knob(i))
			cb_write(cb_files[i].name, s->val[i]);
}

long cb_first_bad(const unsigned char *buf, size_t n, unsigned long long off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != cb_data_byte(off + i))
			return i;
	return -1;
}

/* Is v well formed for unit? */
static bool cb_value_ok(const char *unit, const char *v)
{
	const char *p = v;
	size_t decimals;

	if (!strcmp(unit, "name")) {
		for (; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				return false;
		return p != v;
	}
	if (!strcmp(unit, "bool"))
		return !strcmp(v, "0") || !strcmp(v, "1");
	if (!strcmp(unit, "cpu") && *p == '-')
		return !strcmp(v, "-1");
	if (!strcmp(unit, "cycles") || !strcmp(unit, "ns") || !strcmp(unit, "bytes/cycle")) {
		decimals = !strcmp(unit, "bytes/cycle") ? 3 : 2;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == v || *p != '.')
			return false;
		v = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		return !*p && (size_t)(p - v) == decimals;
	}
	while (isdigit((unsigned char)*p))
		p++;
	return p != v && !*p;
}

const char *cb_parse_results(struct cb_res *r, char *why, size_t whylen)
{
	char buf[8192], *line, *save = NULL;
	size_t i = 0;

	memset(r, 0, sizeof(*r));
	if (cb_read("results", buf, sizeof(buf)) <= 0)
		return "results is empty or unreadable";
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char *sp = strchr(line, ' ');

		if (i >= CB_NKEYS) {
			snprintf(why, whylen, "extra line \"%s\"", line);
			return why;
		}
		if (!sp || strncmp(line, cb_keys[i].key, sp - line) ||
		    strlen(cb_keys[i].key) != (size_t)(sp - line)) {
			snprintf(why, whylen, "line %zu is \"%s\", want key %s", i, line,
				 cb_keys[i].key);
			return why;
		}
		if (!cb_value_ok(cb_keys[i].unit, sp + 1) || strlen(sp + 1) >= sizeof(r->val[i])) {
			snprintf(why, whylen, "%s: bad %s value \"%s\"", cb_keys[i].key,
				 cb_keys[i].unit, sp + 1);
			return why;
		}
		snprintf(r->val[i], sizeof(r->val[i]), "%s", sp + 1);
	}
	if (i != CB_NKEYS) {
		snprintf(why, whylen, "%zu keys, want %d", i, CB_NKEYS);
		return why;
	}
	return NULL;
}

const char *cb_res_get(const struct cb_res *r, const char *key)
{
	int i;

	for (i = 0; i < CB_NKEYS; i++)
		if (!strcmp(cb_keys[i].key, key))
			return r->val[i];
	return "";
}

unsigned long long cb_res_u(const struct cb_res *r, const char *key)
{
	return strtoull(cb_res_get(r, key), NULL, 10);
}

unsigned long long cb_res_c100(const struct cb_res *r, const char *key)
{
	const char *s = cb_res_get(r, key), *dot = strchr(s, '.');

	return strtoull(s, NULL, 10) * 100 + (dot ? strtoull(dot + 1, NULL, 10) : 0);
}

double cb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cb_on_usr1(int sig)
{
}

pid_t cb_spawn_run(const char *cg, int report_fd)
{
	struct sigaction sa = { .sa_handler = cb_on_usr1 };	/* no SA_RESTART */
	cpu_set_t set;
	pid_t pid = fork();
	int ret;

	if (pid)
		return pid;
	if (cg && cb_cgroup_enter(cg))
		_exit(101);
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(102);
	ret = cb_write("run", "1");
	if (report_fd >= 0) {
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		if (write(report_fd, &set, sizeof(set)) != sizeof(set))
			_exit(103);
	}
	_exit(-ret);
}

int cb_wait_child(pid_t child, double timeout)
{
	double end = cb_now() + timeout;
	struct timespec pause = { 0, 2000000 };
	int status;

	do {
		if (waitpid(child, &status, WNOHANG) == child)
			return status;
		nanosleep(&pause, NULL);	/* a poll interval, not a wait for an event */
	} while (cb_now() < end);
	return -1;
}

int cb_wait_run_started(pid_t child, double timeout, int *status)
{
	double end = cb_now() + timeout;
	char v[CB_VALUE_LEN];

	snprintf(v, sizeof(v), "%s", cb_value("baseline"));
	while (cb_now() < end) {
		if (cb_write("baseline", v) == -EBUSY)
			return 0;
		if (waitpid(child, status, WNOHANG) == child)
			return -1;
	}
	return -1;
}

static int cb_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

int cb_cgroup_make(char *path, size_t len, const char *name, const char *controllers)
{
	struct statfs sfs;
	int ret;

	if (statfs(CB_CGROUP_ROOT, &sfs) || sfs.f_type != 0x63677270 /* CGROUP2_SUPER_MAGIC */) {
		if (mount("none", CB_CGROUP_ROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	ret = cb_write_file(CB_CGROUP_ROOT "/cgroup.subtree_control", controllers);
	if (ret)
		return ret;
	snprintf(path, len, CB_CGROUP_ROOT "/%s.%d", name, getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int cb_cgroup_write(const char *cg, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return cb_write_file(path, val);
}

long long cb_cgroup_read(const char *cg, const char *file, const char *key)
{
	char path[512], line[256];
	long long v = -1;
	size_t klen = key ? strlen(key) : 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = strtoll(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int cb_cgroup_enter(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return cb_cgroup_write(cg, "cgroup.procs", pid);
}

void cb_cgroup_remove(const char *cg)
{
	rmdir(cg);
}

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

int cb_uring_rw(struct cb_uring *u, int opcode, int fd, void *buf, unsigned int len,
		long long off)
{
	unsigned int tail = *u->sq_tail, idx = tail & *u->sq_mask, head;
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)u->sqes + idx;
	struct io_uring_cqe *cqe;
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = off;
	u->sq_array[idx] = idx;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	head = __atomic_load_n(u->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	cqe = (struct io_uring_cqe *)u->cqes + (head & *u->cq_mask);
	res = cqe->res;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
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
