/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_run.h - what the parts of a timed run share: cb_run.c (the run and
 * results files and the course of a run, in the writer), cb_buf.c (its
 * buffers and the user mapping), cb_measure.c (the timed part, on a kernel
 * thread on the run's CPU).
 */
#ifndef CB_RUN_H
#define CB_RUN_H

#include <linux/completion.h>
#include <linux/hrtimer.h>

#include "cb_internal.h"

struct cb_ubuf;
struct mm_struct;
struct task_struct;

/* Baseline samples: enough for a stable median, few enough to be cheap. */
#define CB_BASELINE_SAMPLES	31U

/*
 * struct cb_buf - one side of a copy: pages with a kernel address, and for
 * the user side the same pages mapped in the writer's address space.
 * @kbase:	kernel address of byte 0, page aligned
 * @len:	bytes, a multiple of PAGE_SIZE
 * @vmalloced:	@kbase is a vmalloc() address (else alloc_pages_exact())
 * @ubase:	user side: where the writer sees byte 0
 * @umap:	user side: the mapping, which the run can recognise as its own
 */
struct cb_buf {
	u8 *kbase;
	unsigned long len;
	bool vmalloced;
	void __user *ubase;
	struct cb_ubuf *umap;
};

/*
 * struct cb_results - the outcome of a run, every value the "results" file
 * prints; cycles are per copy in hundredths of a TSC cycle, and the derived
 * values are computed once, when the run ends.
 */
struct cb_results {
	struct cb_knobs knobs;
	int run_cpu;
	u32 loops;
	u32 samples;
	bool truncated;
	u64 min_c100, median_c100, mean_c100, stddev_c100, max_c100;
	u64 baseline_c100;
	u64 ns_median100;	/* ns, x100 */
	u64 bpc1000;		/* bytes per cycle, x1000 */
	u64 mb_per_s;
	u64 tsc_khz;
	u64 run_ms;
	bool verified;
};

/*
 * struct cb_run - one run, from the write of "1" to the results. The writer
 * prepares it and waits; the measuring thread owns it from wake-up to
 * @done; the deadline timer only sets @stop.
 */
struct cb_run {
	struct cb_knobs k;
	const struct cb_kvariant *v;
	int cpu;			/* the CPU it runs on */
	struct task_struct *writer;	/* its signals stop the run */
	struct mm_struct *mm;		/* user directions: the writer's */
	struct cb_buf src, dst;

	/* The copy: what each direction's routine is called with. */
	void *kdst;
	const void *ksrc;
	void __user *udst;
	const void __user *usrc;
	unsigned long len;

	u64 start_ns, deadline_ns;	/* ktime_get_ns() */
	struct hrtimer timer;		/* sets stop at the deadline */
	int stop;
	struct completion done;

	/* What the measuring thread leaves. */
	int ret;
	char why[200];			/* a failure, in words, for last_error */
	u64 one_cycles;			/* one copy, from calibration */
	u64 *c100;			/* per-sample cycles per copy, x100 */
	u64 b100[CB_BASELINE_SAMPLES];	/* the same for the baseline */
	struct cb_results r;
};

/* cb_buf.c */
int cb_buf_alloc(struct cb_buf *b, u64 bytes, bool user);
int cb_buf_map(struct cb_buf *b, bool writable);
void cb_buf_free(struct cb_buf *b);
int cb_buf_lock(struct cb_run *c);
void cb_buf_unlock(struct cb_run *c);
void cb_buf_flush(const struct cb_buf *b, unsigned long off, unsigned long len);

/* cb_measure.c */
int cb_measure_thread(void *arg);

#endif /* CB_RUN_H */
