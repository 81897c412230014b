/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_run.h - what the parts of a timed run share: cb_run.c (the run and
 * results files, the course of a run), cb_measure.c (the timed part),
 * cb_buf.c (its buffers: the kernel side and the writer's mapping of the
 * buffer file), cb_stop.c (may the run go on?), each calling only the
 * ones after it. The whole run happens in the writer's own context.
 */
#ifndef CB_RUN_H
#define CB_RUN_H

#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/thread_info.h>

#include "cb_internal.h"

struct cb_ubuf;

/* Baseline samples: enough for a stable median, few enough to be cheap. */
#define CB_BASELINE_SAMPLES	31U

/*
 * struct cb_buf - one side of a copy: pages with a kernel address, through
 * which the run fills and checks them.
 * @kbase:	kernel address of byte 0, page aligned
 * @len:	bytes the run uses, a multiple of PAGE_SIZE
 * @vmalloced:	kernel side: @kbase is a vmalloc() address (else alloc_pages_exact())
 * @ubase:	user side: where the writer maps byte 0
 * @ub:		user side: the buffer, which the run holds a reference to
 * @writable:	user side: the copy writes to it
 */
struct cb_buf {
	u8 *kbase;
	unsigned long len;
	bool vmalloced;
	void __user *ubase;
	struct cb_ubuf *ub;
	bool writable;
};

/*
 * struct cb_results - the outcome of a run, every value the "results" file
 * prints beyond the knobs: one field per key of copybench.h's
 * CB_RESULT_KEY list, named as the key; "cycles" and "ns" values in
 * hundredths, "bytes/cycle" in thousandths, computed once when the run ends.
 */
struct cb_results {
	struct cb_knobs knobs;
	u64 run_cpu;
	u64 loops;
	u64 samples;
	u64 truncated;
	u64 cycles_min, cycles_median, cycles_mean, cycles_stddev, cycles_max;
	u64 baseline_cycles;
	u64 ns_median;
	u64 bytes_per_cycle;
	u64 mb_per_s;
	u64 tsc_khz;
	u64 run_ms;
	u64 verified;
};

/*
 * struct cb_krun - one run, from the write of "1" to the results, all of
 * it in the writer's context; the deadline timer only sets @stop.
 * @doing says what the run is doing (a phrase after "while"), and
 * @lock_waiting that it is waiting for the writer's mmap lock, which
 * another thread held or queued for: what cb_stop.c's sentences name.
 */
struct cb_krun {
	struct cb_knobs k;
	const struct cb_kvariant *v;
	int cpu;			/* the CPU it runs on */
	struct cb_buf src, dst;
	struct cb_buf *user;		/* &src or &dst when a side is user memory */

	/* The copy: what each direction's routine is called with. */
	void *kdst;
	const void *ksrc;
	void __user *udst;
	const void __user *usrc;
	unsigned long len;

	u64 start_ns, deadline_ns;	/* ktime_get_ns() */
	struct hrtimer timer;		/* sets stop at the deadline */
	int stop;
	bool cpu_held;			/* in cb_measure(): @cpu is the run's */
	bool lock_waiting;
	const char *doing;

	char why[320];			/* a failure, in words, for last_error */
	u64 one_cycles;			/* one copy, from calibration */
	u64 lock_wait_ns;		/* spent waiting for the writer's mmap lock */
	u64 *c100;			/* per-sample cycles per copy, x100 */
	u64 b100[CB_BASELINE_SAMPLES];	/* the same for the baseline */
	struct cb_results r;
};

/*
 * cb_cancelled - io_uring asks the run to end: the writer is an io-wq
 * worker (a write issued with IORING_OP_WRITE, which the file cannot take
 * without blocking) and io_wq_worker_cancel() set TIF_NOTIFY_SIGNAL on it,
 * for IORING_OP_ASYNC_CANCEL or the ring's teardown. In any other writer
 * the flag is task_work's (io_uring completions), which waits for the
 * write's return and must neither end nor block the run.
 */
static __always_inline bool cb_cancelled(void)
{
	return unlikely(current->flags & PF_IO_WORKER) && test_thread_flag(TIF_NOTIFY_SIGNAL);
}

/*
 * cb_krun_stopping - cb_krun_go_on()'s question inside a timed window,
 * before every copy: loads of hot lines and well-predicted branches, which
 * the baseline loop pays as well. The deadline is the timer's flag; what
 * ends the run, and its sentence, cb_krun_go_on() says after the window.
 */
static __always_inline bool cb_krun_stopping(const struct cb_krun *c)
{
	return READ_ONCE(c->stop) || task_sigpending(current) || cb_cancelled();
}

/* cb_buf.c */
int cb_buf_alloc(struct cb_buf *b, u64 bytes);
int cb_buf_find_user(struct cb_krun *c, struct cb_buf *b, u64 bytes, bool writable);
int cb_buf_fault_in(struct cb_krun *c, const struct cb_buf *b);
void cb_buf_free(struct cb_buf *b);
int cb_buf_mm_lock(struct cb_krun *c);
int cb_buf_lock(struct cb_krun *c, bool wait);
void cb_buf_unlock(struct cb_krun *c);
void cb_buf_flush(const struct cb_buf *b, unsigned long off, unsigned long len);

/* cb_measure.c */
int cb_measure(struct cb_krun *c);

/* cb_stop.c */
__printf(3, 4) int cb_krun_fail(struct cb_krun *c, int err, const char *fmt, ...);
u64 cb_krun_ms(const struct cb_krun *c);
void cb_krun_start(struct cb_krun *c);
void cb_krun_end(struct cb_krun *c);
int cb_krun_cancelled(struct cb_krun *c);
int cb_krun_go_on(struct cb_krun *c);
int cb_krun_pause(struct cb_krun *c);

#endif /* CB_RUN_H */
