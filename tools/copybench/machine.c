// SPDX-License-Identifier: GPL-2.0
/*
 * machine.c - what measuring needs of the machine, below both backends
 * (machine.h): the stop signals, the CPUs this process may run on and
 * pinning to one, the TSC's frequency and the clock probe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "machine.h"
#include "stats.h"

int cb_stop_signal;

/* A lock-free atomic store: safe in a signal handler. */
static void cb_on_signal(int sig)
{
	__atomic_store_n(&cb_stop_signal, sig, __ATOMIC_RELAXED);
}

void cb_signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cb_on_signal;
	/* No SA_RESTART: a write to the module's "run" must see EINTR. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cb_cpus_allowed(int **cpus, struct cb_error *e)
{
	cpu_set_t allowed;
	int i, n = 0;

	*cpus = NULL;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return cb_fail(e, CB_EXIT_RUNTIME, "sched_getaffinity: %s", strerror(errno));
	*cpus = cb_calloc((size_t)CPU_COUNT(&allowed) + 1, sizeof(**cpus));
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &allowed))
			(*cpus)[n++] = i;
	return n;
}

int cb_cpu_check(long cpu, struct cb_error *e)
{
	struct cb_str list = { 0 };
	int *cpus, n, i, ok = 0;

	n = cb_cpus_allowed(&cpus, e);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		ok |= cpus[i] == cpu;
		cb_str_printf(&list, "%s%d", list.len ? "," : "", cpus[i]);
	}
	free(cpus);
	if (!ok)
		cb_fail(e, CB_EXIT_USAGE, "invalid --cpu %ld: accepted values: %s (the CPUs this process may run on)",
			cpu, list.s ? list.s : "none");
	cb_str_free(&list);
	return ok ? 0 : -1;
}

int cb_pin_cpu(long cpu, struct cb_error *e)
{
	cpu_set_t one;

	if (cpu < 0)
		cpu = sched_getcpu();
	/* Not allowed (nor below CPU_SETSIZE): refused, naming the ones that are. */
	if (cb_cpu_check(cpu, e))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return cb_fail(e, CB_EXIT_RUNTIME, "cannot pin to CPU %ld: %s", cpu, strerror(errno));
	return (int)cpu;
}

static unsigned long long cb_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/*
 * One (tsc, ns) pair: the clock read between two TSC reads, the tightest of
 * a few tries, the TSC taken as the midpoint.
 */
static void cb_tsc_pair(unsigned long long *tsc, unsigned long long *ns)
{
	unsigned long long t0, t1, n, best = ~0ULL;
	int i;

	for (i = 0; i < 16; i++) {
		t0 = cb_rdtsc();
		n = cb_raw_ns();
		t1 = cb_rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

unsigned long long cb_tsc_khz_calibrate(void)
{
	unsigned long long t0, n0, t1, n1;

	cb_tsc_pair(&t0, &n0);
	do
		cb_tsc_pair(&t1, &n1);
	while (n1 - n0 < 20000000ULL);
	return (unsigned long long)((double)(t1 - t0) * 1e6 / (double)(n1 - n0) + 0.5);
}

/*
 * n x 64 dependent adds between two TSC reads. The addend is a register,
 * not an immediate: a core that folds immediate adds at rename (seen on
 * a Xeon of this workplace, model 167) ran "add $1" chains at 9 a TSC
 * cycle, and clock_ratio read 8.9; register adds ran at 1.5, as imul's
 * 3-cycle chain said.
 */
static noinline unsigned long long cb_adds(unsigned long n)
{
	unsigned long long t0, t1, x = 0, one = 1;

	t0 = cb_rdtsc();
	if (n)
		asm volatile("1:\n\t.rept 64\n\tadd %2, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
			     : "+r" (x), "+r" (n) : "r" (one));
	t1 = cb_rdtsc();
	return t1 - t0;
}

double cb_probe(void)
{
	static double overhead = -1;
	double v[31];
	unsigned int i;

	if (overhead < 0) {
		for (i = 0; i < ARRAY_SIZE(v); i++)
			v[i] = (double)cb_adds(0);
		cb_stats_sort(v, ARRAY_SIZE(v));
		overhead = cb_stats_median(v, ARRAY_SIZE(v));
	}
	return (double)cb_adds(CB_PROBE_ADDS / 64) - overhead;
}

double cb_clock_ratio(double *probes, size_t n)
{
	double med;

	if (!n)
		return 0;
	cb_stats_sort(probes, n);
	med = cb_stats_median(probes, n);
	return med > 0 ? (double)CB_PROBE_ADDS / med : 0;
}
