// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_lib.c - what copybench's module tests share (cb_test_lib.h).
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
#include "lib/cb_debugfs.h"

#define CB_DEBUGFS_MAGIC	0x64626720
#define CB_CGROUP2_MAGIC	0x63677270

const struct cb_file_info cb_files[CB_NFILES] = {
#define CB_FILE(fname, fmode)	{ .name = #fname, .mode = fmode },
#include "copybench.h"
#undef CB_FILE
};

const struct cb_knob_info cb_knob_list[CB_NKNOBS] = {
#define CB_KNOB(kname, ktype, kmin, kmax, dflt)	\
	{ .name = #kname, .type = #ktype, .min = kmin, .max = kmax },
#include "copybench.h"
#undef CB_KNOB
};

bool cb_is_knob(int i)
{
	int k;

	for (k = 0; k < CB_NKNOBS; k++)
		if (!strcmp(cb_files[i].name, cb_knob_list[k].name))
			return true;
	return false;
}

int cb_file_write(const char *path, const void *buf, size_t len)
{
	return cbfs_file_write(path, buf, len);
}

ssize_t cb_file_read(const char *path, char *buf, size_t len)
{
	return cbfs_file_read(path, buf, len);
}

const char *cb_file_line(const char *path, char *buf, size_t len)
{
	if (cb_file_read(path, buf, len) < 0) {
		buf[0] = '\0';
		return NULL;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

long long cb_file_ll(const char *path)
{
	char buf[64], *end;
	long long v;

	if (!cb_file_line(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return errno || end == buf || *end ? -1 : v;
}

int cb_write_buf(const char *name, const void *buf, size_t len)
{
	return cbfs_write(name, buf, len);
}

int cb_write(const char *name, const char *s)
{
	return cb_write_buf(name, s, strlen(s));
}

int cb_write_knobs(const char * const *kv, const char **failed)
{
	char name[32];
	const char *eq;
	int ret;

	for (; *kv; kv++) {
		eq = strchr(*kv, '=');
		if (!eq || eq - *kv >= (int)sizeof(name)) {
			*failed = *kv;
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *kv), *kv);
		ret = cb_write(name, eq + 1);
		if (ret) {
			*failed = *kv;
			return ret;
		}
	}
	return 0;
}

int cb_writeu(const char *name, unsigned long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu\n", v);
	return cb_write(name, s);
}

ssize_t cb_read(const char *name, char *buf, size_t len)
{
	return cbfs_read(name, buf, len);
}

/* A debugfs file's first line into buf, or "(unreadable)". */
static const char *cb_line(const char *name, char *buf, size_t len)
{
	char path[256];

	cbfs_path(path, sizeof(path), name);
	return cb_file_line(path, buf, len) ?: "(unreadable)";
}

const char *cb_value(const char *name)
{
	static __thread char buf[CB_VALUE_LEN];

	return cb_line(name, buf, sizeof(buf));
}

long long cb_value_ll(const char *name)
{
	char path[256];

	cbfs_path(path, sizeof(path), name);
	return cb_file_ll(path);
}

const char *cb_last_error(void)
{
	static __thread char buf[CB_LAST_ERROR_MAX + 1];

	return cbfs_last_error(buf, sizeof(buf));
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

int cb_variants(struct cb_variant *v, int max)
{
	char buf[8192], *line, *save = NULL;
	struct cbfs_variant fv;
	int n = 0;

	if (cb_read("variants", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		/* A line of three fields or more, as the module writes them. */
		if (cbfs_variant_parse(line, &fv) || (!fv.has_dirs && !*fv.desc) ||
		    strlen(fv.name) >= sizeof(v[n].name))
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "%s", fv.name);
		v[n].usable = fv.usable;
		v[n].dirs = (unsigned int)fv.dirs;
		n++;
	}
	return n;
}

int cb_usable_variants(char names[][CB_NAME_LEN], int max)
{
	struct cb_variant v[CB_MAX_VARIANTS];
	int i, n = cb_variants(v, CB_MAX_VARIANTS), got = 0;

	for (i = 0; i < n && got < max; i++)
		if (v[i].usable)
			memcpy(names[got++], v[i].name, CB_NAME_LEN);
	return got;
}

bool cb_variant_has_dir(const char *name, const char *dir)
{
	struct cb_variant v[CB_MAX_VARIANTS];
	int i, n = cb_variants(v, CB_MAX_VARIANTS);
	int d = cbfs_name_index(cbfs_directions, CB_NDIRECTIONS, dir);

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return d >= 0 && (v[i].dirs & (1U << d));
	return false;
}

void cb_save(struct cb_saved *s)
{
	int i;

	for (i = 0; i < CB_NFILES; i++)
		if (cb_is_knob(i))
			cb_line(cb_files[i].name, s->val[i], sizeof(s->val[i]));
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

const char *cb_parse_results(struct cb_res *r, char *why, size_t whylen)
{
	char buf[8192];
	const char *vals[CBFS_NKEYS];
	int i;

	memset(r, 0, sizeof(*r));
	if (cb_read("results", buf, sizeof(buf)) <= 0)
		return "results is empty or unreadable";
	if (cbfs_results_parse(buf, vals, true, why, whylen))
		return why;
	for (i = 0; i < CB_NKEYS; i++) {
		if (strlen(vals[i]) >= sizeof(r->val[i])) {
			snprintf(why, whylen, "%s: value \"%s\" too long", cbfs_keys[i].key,
				 vals[i]);
			return why;
		}
		snprintf(r->val[i], sizeof(r->val[i]), "%s", vals[i]);
	}
	return NULL;
}

const char *cb_res_get(const struct cb_res *r, const char *key)
{
	int i;

	i = cbfs_key_index(key);
	return i >= 0 ? r->val[i] : "";
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

void *cb_buffer_map(size_t len)
{
	return cbfs_buffer_map(len);
}

/* The process that mapped the run buffer, and where: a fork child has none of its own. */
static pthread_mutex_t cb_buffer_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t cb_buffer_pid;
static void *cb_buffer_addr;

int cb_buffer_hold(void)
{
	int err = 0;

	pthread_mutex_lock(&cb_buffer_lock);
	if (cb_buffer_pid != getpid()) {
		cb_buffer_addr = cb_buffer_map(CB_BUFFER_MAX);
		if (cb_buffer_addr == MAP_FAILED)
			err = -errno;
		else
			cb_buffer_pid = getpid();
	}
	pthread_mutex_unlock(&cb_buffer_lock);
	return err;
}

int cb_buffer_ready(void)
{
	return strcmp(cb_value("direction"), "memcpy") ? cb_buffer_hold() : 0;
}

void cb_buffer_release(void)
{
	pthread_mutex_lock(&cb_buffer_lock);
	if (cb_buffer_pid == getpid())
		munmap(cb_buffer_addr, CB_BUFFER_MAX);
	cb_buffer_pid = 0;
	pthread_mutex_unlock(&cb_buffer_lock);
}

long long cb_buffer_rss(pid_t pid)
{
	char path[64], line[512];
	long long kb, total = 0;
	unsigned long long a, b;
	bool in_buffer = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's first line: "start-end perms offset dev inode path". */
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2)
			in_buffer = strstr(line, CB_DEBUGFS_DIR "/buffer\n") != NULL;
		else if (in_buffer && sscanf(line, "Rss: %lld kB", &kb) == 1)
			total += kb * 1024;
	}
	fclose(f);
	return total;
}

int cb_wait_measuring(pid_t pid, size_t bytes, double timeout)
{
	double end = cb_now() + timeout;
	siginfo_t si;

	do {
		if (cb_buffer_rss(pid) >= (long long)bytes)
			return 0;
		/* A child of ours that has exited (left to its waiter) never will. */
		si.si_pid = 0;
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid)
			return -1;
		sched_yield();
	} while (cb_now() < end);
	return -1;
}

int cb_do_run(void)
{
	long long cpu = cb_value_ll("cpu");
	cpu_set_t set;

	if (cpu >= 0 && cpu < CPU_SETSIZE) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);	/* refused: the run says why */
	}
	return cb_buffer_ready() ?: cb_write("run", "1");
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

double cb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

pid_t cb_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

static void cb_on_usr1(int sig)
{
}

struct cb_run_arg {
	const char *cg;
	int report_fd;
};

static int cb_run_child(void *p)
{
	struct sigaction sa = { .sa_handler = cb_on_usr1 };	/* no SA_RESTART */
	struct cb_run_arg *a = p;
	cpu_set_t set;
	int ret;

	if (a->cg && cb_cgroup_enter(a->cg))
		return 101;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 102;
	ret = cb_do_run();
	if (a->report_fd >= 0) {
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		if (write(a->report_fd, &set, sizeof(set)) != sizeof(set))
			return 103;
	}
	return -ret;
}

pid_t cb_spawn_run(const char *cg, int report_fd)
{
	struct cb_run_arg a = { .cg = cg, .report_fd = report_fd };

	return cb_child(cb_run_child, &a);
}

int cb_wait_child(pid_t child, double timeout)
{
	int pidfd = syscall(SYS_pidfd_open, child, 0);
	double end = cb_now() + timeout;
	int status = -1;

	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };
		double left = end - cb_now();

		if (waitpid(child, &status, WNOHANG) == child)
			break;
		status = -1;
		if (left <= 0)
			break;
		/* The pidfd is readable once the child has exited. */
		if (pidfd >= 0)
			poll(&p, 1, left > INT_MAX / 1000 ? INT_MAX : (int)(left * 1000) + 1);
		else
			poll(NULL, 0, 2);	/* no pidfd: a poll interval */
	}
	if (pidfd >= 0)
		close(pidfd);
	return status;
}

int cb_exit_code(int status)
{
	if (status == -1)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int cb_wait_run_started(pid_t child, double timeout, int *status)
{
	double end = cb_now() + timeout;
	char v[CB_VALUE_LEN];

	snprintf(v, sizeof(v), "%s", cb_value("baseline"));
	while (cb_now() < end) {
		if (cb_write("baseline", v) == -EBUSY)
			return 0;
		if (child > 0 && waitpid(child, status, WNOHANG) == child)
			return -1;
		sched_yield();
	}
	return -1;
}

int cb_cgroup_make(char *path, size_t len, const char *name, const char *controllers)
{
	struct statfs sfs;
	int ret;

	if (statfs(CB_CGROUP_ROOT, &sfs) || sfs.f_type != CB_CGROUP2_MAGIC) {
		if (mount("none", CB_CGROUP_ROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	ret = cb_file_write(CB_CGROUP_ROOT "/cgroup.subtree_control", controllers,
			    strlen(controllers));
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
	return cb_file_write(path, val, strlen(val));
}

long long cb_cgroup_read(const char *cg, const char *file, const char *key)
{
	char path[512], buf[4096], *line, *save = NULL;
	size_t klen = key ? strlen(key) : 0;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (!key)
		return cb_file_ll(path);
	if (cb_file_read(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	return -1;
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

int cb_uring_rw(struct cb_uring *u, int opcode, int fd, void *buf, unsigned int len,
		long long off)
{
	struct io_uring_sqe sqe = {
		.opcode = opcode, .fd = fd, .addr = (unsigned long)buf, .len = len, .off = off,
	};

	return cb_uring_submit(u, &sqe, true) ?: cb_uring_posted(u, NULL);
}

char cb_task_state(pid_t pid, pid_t tid)
{
	char path[96], buf[512], *p;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (cb_file_read(path, buf, sizeof(buf)) <= 0)
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int cb_cpu_online(int cpu, bool online)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return cb_file_write(path, online ? "1" : "0", 1);
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
	"UBSAN", "Call Trace", "suspected memory leak", "leak detector disabled",
	"detected stall", "self-detected stall", "soft lockup", "blocked for more than", "refcount_t:", "list_add corruption",
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
