// SPDX-License-Identifier: GPL-2.0
/*
 * cb_stop.c - may the run go on? One answer for every wait and loop of a
 * run (kernel/torture.c asks torture_must_stop() everywhere alike): a
 * signal, io_uring's cancel, the deadline, and once the run holds its CPU
 * that CPU going offline or leaving the writer's allowed CPUs; with what
 * the run was doing in every sentence it leaves in last_error. The bottom
 * of the run's files: it calls none of them.
 * Documentation/copybench.rst, "Time bounds" and "The run's context".
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "cb_compat.h"
#include "cb_run.h"

/**
 * cb_krun_fail - say why the run fails, for last_error
 * @c: the run
 * @err: the negative errno it fails with
 * @fmt: the reason, in words
 *
 * Return: @err.
 */
int cb_krun_fail(struct cb_krun *c, int err, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, args);
	va_end(args);
	return err;
}

/**
 * cb_krun_ms - the run's age, in milliseconds
 * @c: the run
 *
 * Return: the milliseconds since the write of "1" was taken.
 */
u64 cb_krun_ms(const struct cb_krun *c)
{
	return div_u64(ktime_get_ns() - c->start_ns, NSEC_PER_MSEC);
}

static enum hrtimer_restart cb_deadline(struct hrtimer *timer)
{
	struct cb_krun *c = container_of(timer, struct cb_krun, timer);

	WRITE_ONCE(c->stop, 1);
	return HRTIMER_NORESTART;
}

/**
 * cb_krun_start - the run begins: its clock, and the deadline timer that
 * sets @c->stop at max_run_ms. A hard timer, whose callback only sets that
 * flag: on PREEMPT_RT a soft one expires in ksoftirqd, which a real-time
 * writer keeps off its CPU.
 * @c: the run, its knobs frozen
 */
void cb_krun_start(struct cb_krun *c)
{
	c->start_ns = ktime_get_ns();
	c->deadline_ns = c->start_ns + (u64)c->k.max_run_ms * NSEC_PER_MSEC;
	c->doing = "starting";
	hrtimer_setup(&c->timer, cb_deadline, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	hrtimer_start(&c->timer, ns_to_ktime(c->deadline_ns), HRTIMER_MODE_ABS_HARD);
}

/**
 * cb_krun_end - the run is over: the deadline timer is gone when this returns
 * @c: the run
 */
void cb_krun_end(struct cb_krun *c)
{
	hrtimer_cancel(&c->timer);
}

/* ", waiting for the writer's mmap lock ..." when a try of it failed. */
static const char *cb_krun_waiting(const struct cb_krun *c)
{
	return c->lock_waiting ?
	       ", waiting for the writer's mmap lock (another of its threads held it or queued for it)" :
	       "";
}

/**
 * cb_krun_cancelled - the run ends for io_uring's cancel (cb_cancelled())
 * @c: the run
 *
 * Return: -ECANCELED, what the canceller and the request's completion get.
 */
int cb_krun_cancelled(struct cb_krun *c)
{
	return cb_krun_fail(c, -ECANCELED,
			    "io_uring cancelled the run after %llu ms, while %s%s (IORING_OP_ASYNC_CANCEL, or the ring's teardown at close or exit); the previous results stay",
			    cb_krun_ms(c), c->doing, cb_krun_waiting(c));
}

/**
 * cb_krun_go_on - may the run go on? Asked between the steps of the
 * preparation, between copies and samples, and between the tries of the
 * mmap lock, never inside a timed window (cb_krun_stopping() is its form
 * there). In order: a signal (-ERESTARTSYS, so that the write restarts
 * after a stop, a freeze or an SA_RESTART handler and fails with EINTR
 * after another); io_uring's cancel (-ECANCELED); the deadline (-ETIME);
 * and once the run holds its CPU (@c->cpu_held), that CPU going offline
 * (-ENODEV: hotplug waits for this task) or leaving the writer's allowed
 * CPUs (-EINVAL: a cpuset or affinity change, whose setter waits for this
 * task), both ended here so that the waiter is released.
 * @c: the run
 *
 * Return: 0, -ERESTARTSYS, or a negative errno with the reason in @c->why.
 */
int cb_krun_go_on(struct cb_krun *c)
{
	int cpu = c->cpu;

	if (task_sigpending(current))
		return -ERESTARTSYS;
	if (cb_cancelled())
		return cb_krun_cancelled(c);
	if (READ_ONCE(c->stop) || ktime_get_ns() >= c->deadline_ns)
		return cb_krun_fail(c, -ETIME,
				    "max_run_ms %u was reached after %llu ms, while %s%s; raise max_run_ms",
				    c->k.max_run_ms, cb_krun_ms(c), c->doing, cb_krun_waiting(c));
	if (!c->cpu_held)
		return 0;
	if (!cpu_active(cpu))
		return cb_krun_fail(c, -ENODEV, "cpu %d went offline during the run, while %s",
				    cpu, c->doing);
	if (!cpumask_test_cpu(cpu, &current->cpus_mask))
		return cb_krun_fail(c, -EINVAL,
				    "cpu %d left the writer's allowed CPUs (now %*pbl) during the run, while %s: a cpuset or affinity change",
				    cpu, cpumask_pr_args(&current->cpus_mask), c->doing);
	return 0;
}

/**
 * cb_krun_pause - a rescheduling point of the run, then cb_krun_go_on().
 * cond_resched() on a PREEMPT_DYNAMIC kernel is a preemption, which RCU
 * Tasks does not count as a quiescent state: a run would hold up every
 * synchronize_rcu_tasks() (a function tracer's removal, a BPF trampoline's)
 * for its whole length. Between copies and samples the run is where it
 * could as well sleep, so it reports one: the kernel's idiom for a long
 * loop in a task's own context.
 * @c: the run
 *
 * Return: what cb_krun_go_on() returns.
 */
int cb_krun_pause(struct cb_krun *c)
{
	cond_resched_tasks_rcu_qs();
	return cb_krun_go_on(c);
}
