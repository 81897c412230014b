// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_lib.c - what copybench's module tests share (cb_test_lib.h):
 * the module's files, knobs, results and variants, its buffer file, a run,
 * loading and unloading it. The rest is split by concern: children
 * (cb_test_proc.c), cgroups (cb_test_cgroup.c), io_uring
 * (cb_test_uring.c), an RNG, the environment, the kernel log and guarded
 * mappings (cb_test_util.c).
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
