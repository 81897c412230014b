// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_cgroup.c - the cgroup v2 groups the ownership tests put a writer in (cb_test_lib.h).
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

#define CB_CGROUP2_MAGIC	0x63677270

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
