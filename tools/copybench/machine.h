/* SPDX-License-Identifier: GPL-2.0 */
/*
 * machine.h - what measuring needs of the machine (machine.c), below both
 * backends: the stop signals, the CPUs and pinning, the TSC frequency, the
 * clock probe.
 */
#ifndef CB_MACHINE_H
#define CB_MACHINE_H

#include <stddef.h>

#include "util.h"

/*
 * After cb_signals_init(), SIGINT, SIGTERM and SIGHUP set the signal's
 * number here: measurements stop at the next sample, the command cleans
 * up and exits 128 + the signal. cb_stop() reads it.
 */
extern int cb_stop_signal;
void cb_signals_init(void);

static inline int cb_stop(void)
{
	return __atomic_load_n(&cb_stop_signal, __ATOMIC_RELAXED);
}

/*
 * Shared by both backends: pin this process to cpu (-1: the current CPU);
 * returns the CPU or -1 with e set.
 */
int cb_pin_cpu(long cpu, struct cb_error *e);

/* The CPUs this process may run on, ascending, in *cpus (freed by the caller): how many, or -1 with e set. */
int cb_cpus_allowed(int **cpus, struct cb_error *e);
/* 0 when this process may run on cpu; else -1 with e naming the ones it may (exit 2). */
int cb_cpu_check(long cpu, struct cb_error *e);

/*
 * TSC frequency in kHz, calibrated against CLOCK_MONOTONIC_RAW (which the
 * kernel derives from the TSC on these machines, so this agrees with the
 * kernel's tsc_khz; not where the clocksource is jiffies, as in a guest
 * with no TSC or HPET clocksource: the module backend reads the module's
 * tsc_khz file instead). Takes about 20 ms.
 */
unsigned long long cb_tsc_khz_calibrate(void);

/*
 * The clock probe: a chain of CB_PROBE_ADDS dependent adds, one core clock
 * each. cb_probe() returns the TSC cycles it took, net of the TSC reads
 * around it; cb_clock_ratio() turns n probes (sorted in place) into core
 * clocks per TSC cycle, from their median. A core whose clock moved (turbo,
 * a busy neighbour, a throttled host) shows here, and TSC figures times
 * the ratio are in core clocks.
 */
#define CB_PROBE_ADDS	4096UL
double cb_probe(void);
double cb_clock_ratio(double *probes, size_t n);

/* rdtsc after every earlier instruction completed (the kernel's rdtsc_ordered()). */
static inline unsigned long long cb_rdtsc(void)
{
	unsigned int lo, hi;

	asm volatile("lfence; rdtsc" : "=a" (lo), "=d" (hi) : : "memory");
	return (unsigned long long)hi << 32 | lo;
}

#endif /* CB_MACHINE_H */
