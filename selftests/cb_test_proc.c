// SPDX-License-Identifier: GPL-2.0
/*
 * cb_test_proc.c - children a test starts (a run in a cgroup, a function in a process), their
 * waits and exit statuses, a task's state, CPUs taken offline (cb_test_lib.h).
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

/*
 * A suspend to idle that stops after freezing every task and thaws them
 * (pm_test "freezer", no delay); 0, or the errno of the write to
 * /sys/power/state (EBUSY when a task refused to freeze, or when an OOM
 * victim never exited: freeze_processes() waits for the count of victims
 * to drop to 0 within pm_freeze_timeout, 5 s here).
 */
int cb_suspend_freezer_cycle(void)
{
	char timeout[32];
	int ret;

	cb_file_line("/sys/power/pm_freeze_timeout", timeout, sizeof(timeout));
	cb_file_write("/sys/module/suspend/parameters/pm_test_delay", "0", 1);
	cb_file_write("/sys/power/pm_freeze_timeout", "5000", 4);
	ret = cb_file_write("/sys/power/pm_test", "freezer", 7);
	if (!ret)
		ret = cb_file_write("/sys/power/state", "freeze", 6);
	cb_file_write("/sys/power/pm_test", "none", 4);
	if (timeout[0])
		cb_file_write("/sys/power/pm_freeze_timeout", timeout, strlen(timeout));
	return ret;
}
