// SPDX-License-Identifier: GPL-2.0
/*
 * variants_signal_test.c - native tests of the fault handler of the
 * userspace build of copy_variants.S (build/libcopyvariants.a) among the
 * process's own signals; variants_test.c tests the copies and their exact
 * counts at faults.
 *
 * A fault outside the variants, or in a _memcpy entry (which has no fault
 * table entries), kills the process or reaches the handler installed
 * before, as without the library. SIGSEGV and SIGBUS sent to the process
 * (not faults) behave as without the library, also when one lands inside
 * a copy, whether the caller ignores them or handles them. The limits of a
 * blocked signal: cb_fault_init() says EDEADLK, and a fault with the
 * signal blocked kills. The library works inside the caller's own SIGSEGV
 * handler, SA_NODEFER or not. Each case that may kill runs in a child.
 *
 * Usage: variants_signal_test [kselftest harness options, e.g. -t <test>]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a local across its own setjmp(); gcc
 * -O2 -Wextra flags that inside the header, not in anything here.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "copybench.h"
#include "copy_variants.h"
#include "lib/cb_asm_user.h"	/* the fault table: __start_cb_extable */
#include "variants_test_lib.h"

/* Run fn in a child without core dumps; returns its wait status. */
static int run_child(void (*fn)(void))
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* A PROT_NONE page no variant is given: faults there are foreign. */
static void *foreign_page;

/* A store that is not in the fault table, to the PROT_NONE page. */
static void write_foreign(void)
{
	foreign_page = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (foreign_page == MAP_FAILED)
		_exit(2);
	asm volatile("movl $1, (%0)" : : "r" (foreign_page) : "memory");
}

static void child_foreign_fault(void)
{
	if (cb_fault_init())
		_exit(2);
	write_foreign();
}

/* A fault outside the variants still kills the process with SIGSEGV. */
TEST(foreign_fault_still_kills_the_process)
{
	int status = run_child(child_foreign_fault);

	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
}

static void previous_handler(int sig, siginfo_t *si, void *ctx)
{
	_exit(sig == SIGSEGV && si->si_addr == foreign_page ? 42 : 43);
}

static void child_chained_fault(void)
{
	struct sigaction sa = { .sa_sigaction = previous_handler,
				.sa_flags = SA_SIGINFO };
	const struct cb_variant *v = cb_variant_find("unrolled");
	uint8_t *edge, *boundary = map_edge(&edge);
	uint8_t dst[256];

	if (!boundary || sigaction(SIGSEGV, &sa, NULL) || cb_fault_init())
		_exit(2);
	/* A variant's fault is still fixed up, not passed on... */
	if (v->copy(dst, boundary - 100, 256) != 156)
		_exit(3);
	/* ...and a foreign one reaches the handler installed before. */
	write_foreign();
}

/* A fault outside the variants reaches the previously installed handler. */
TEST(foreign_fault_reaches_previous_handler)
{
	int status = run_child(child_chained_fault);

	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(42, WEXITSTATUS(status));
}

/* A _memcpy entry has no fault table entries: a fault there kills. */
static const struct cb_variant *child_variant;

static void child_memcpy_entry_fault(void)
{
	uint8_t *edge, *boundary = map_edge(&edge);
	uint8_t dst[256];

	if (!boundary || cb_fault_init())
		_exit(2);
	child_variant->copy_memcpy(dst, boundary - 100, sizeof(dst));
	_exit(3);
}

/* A fault in every variant's _memcpy entry kills, as in the kernel. */
TEST(memcpy_entry_fault_kills_the_process)
{
	unsigned int i;

	for (i = 0; i < cb_variant_count(); i++) {
		int status;

		child_variant = cb_variant_at(i);
		if (!cb_variant_usable(child_variant))
			continue;
		status = run_child(child_memcpy_entry_fault);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
			TH_LOG("%s: _memcpy entry across a PROT_NONE page: wait status 0x%x, want death by SIGSEGV",
			       child_variant->name, status);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	}
}

/*
 * The ways a process sends itself a signal, each with its si_code: none
 * of them is a fault, whatever runs when it lands.
 */
static const struct sender {
	const char *name;
	int si_code;
	int (*send)(int sig);
} senders[] = {
	{ "raise", SI_TKILL, raise },
	{ "kill", SI_USER, NULL },
	{ "sigqueue", SI_QUEUE, NULL },
};

static int send_sig(const struct sender *s, int sig)
{
	if (s->send)
		return s->send(sig);
	if (s->si_code == SI_QUEUE)
		return sigqueue(getpid(), sig, (union sigval){ .sival_int = 7 });
	return kill(getpid(), sig);
}

static const struct sender *child_sender;
static int child_sig, child_then_copy;

/*
 * Copies into faults the table must answer: across a PROT_NONE page
 * (SIGSEGV), and from a file mapping past the end of its file (SIGBUS).
 * 0 when both returned their exact count.
 */
static int copy_across_holes(void)
{
	const struct cb_variant *v = cb_variant_find("unrolled");
	uint8_t *edge, *boundary = map_edge(&edge), *map;
	uint8_t dst[256];
	unsigned long segv_left, bus_left;
	int fd = memfd_create("variants_test", 0);

	if (!boundary || fd < 0 || ftruncate(fd, PAGE))
		return -1;
	map = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	segv_left = v->copy(dst, boundary - 100, sizeof(dst));
	bus_left = v->copy(dst, map + PAGE - 100, sizeof(dst));
	munmap(map, 2 * PAGE);
	close(fd);
	munmap(edge, EDGE_PAGES * PAGE);
	return segv_left == sizeof(dst) - 100 && bus_left == sizeof(dst) - 100 ? 0 : -1;
}

/* Send the signal; exit 43 if it did not kill, 42 if the table then works. */
static void child_send(void)
{
	if (cb_fault_init())
		_exit(2);
	send_sig(child_sender, child_sig);
	if (child_then_copy)
		_exit(copy_across_holes() ? 3 : 42);
	_exit(43);
}

static void child_send_ignored(void)
{
	signal(child_sig, SIG_IGN);
	child_then_copy = 1;
	child_send();
}

/*
 * SIGSEGV and SIGBUS sent every way, in a child each: with the default
 * action the child must die of the signal; ignored, it must survive and
 * then get exact counts from the table (exit 42).
 */
static void check_sent(struct __test_metadata *_metadata, int ignored)
{
	static const int sigs[] = { SIGSEGV, SIGBUS };
	unsigned int i, k;

	for (k = 0; k < ARRAY_SIZE(sigs); k++)
		for (i = 0; i < ARRAY_SIZE(senders); i++) {
			int status, good;

			child_sender = &senders[i];
			child_sig = sigs[k];
			status = run_child(ignored ? child_send_ignored : child_send);
			good = ignored ? WIFEXITED(status) && WEXITSTATUS(status) == 42 :
					 WIFSIGNALED(status) && WTERMSIG(status) == sigs[k];
			if (!good)
				TH_LOG("%s(%s)%s: wait status 0x%x, want %s",
				       senders[i].name, strsignal(sigs[k]),
				       ignored ? ", ignored" : "", status,
				       ignored ? "exit 42 (survived, then faulting copies returned their counts)" :
						 "death by that signal");
			EXPECT_TRUE(good);
		}
}

/* SIGSEGV and SIGBUS sent after cb_fault_init() still kill by default. */
TEST(sent_signal_kills_as_without_the_library)
{
	check_sent(_metadata, 0);
}

/* An ignored SIGSEGV or SIGBUS sent stays ignored; the table stays. */
TEST(sent_signal_ignored_stays_ignored_and_table_stays)
{
	check_sent(_metadata, 1);
}

/* What the caller's own handler saw: shared with the test through a fork. */
static atomic_int seen_count, seen_code, seen_rip_in_table;

static int rip_in_table(const void *ctx)
{
	const ucontext_t *uc = ctx;
	uintptr_t rip = uc->uc_mcontext.gregs[REG_RIP];
	const struct cb_extable_entry *e;

	for (e = __start_cb_extable; e < __stop_cb_extable; e++)
		if ((uintptr_t)&e->insn + (intptr_t)e->insn == rip)
			return 1;
	return 0;
}

static void counting_handler(int sig, siginfo_t *si, void *ctx)
{
	seen_count++;
	seen_code = si->si_code;
	seen_rip_in_table = rip_in_table(ctx);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | flags };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* A handler installed before runs once per sent signal; the table stays. */
TEST(sent_signal_reaches_previous_handler_and_table_stays)
{
	unsigned int i;

	install(SIGSEGV, counting_handler, 0);
	ASSERT_EQ(0, cb_fault_init());
	for (i = 0; i < ARRAY_SIZE(senders); i++) {
		ASSERT_EQ(0, send_sig(&senders[i], SIGSEGV));
		EXPECT_EQ((int)i + 1, seen_count);
		EXPECT_EQ(senders[i].si_code, seen_code);
		EXPECT_EQ(0, copy_across_holes());
	}
}

/* The copy of sent_signal_landing_in_a_copy_is_not_a_fault and its thread. */
struct sent_ctx {
	int uffd;
	pthread_t copier;
	uint8_t *src;		/* 2 pages; the second is missing until filled */
	uint8_t page[PAGE];	/* what the second page gets */
	int err;
};

static void *sent_thread_fn(void *arg)
{
	struct sent_ctx *c = arg;
	struct uffdio_copy copy = {
		.dst = (uintptr_t)c->src + PAGE,
		.src = (uintptr_t)c->page,
		.len = PAGE,
	};

	/* The copy waits in its fault on the second page: signal it there. */
	c->err = uffd_wait_fault(c->uffd);
	if (!c->err)
		c->err = pthread_kill(c->copier, SIGSEGV);
	/* The signal ended that wait; the copy faulted again on return. */
	if (!c->err)
		c->err = uffd_wait_fault(c->uffd);
	if (!c->err && ioctl(c->uffd, UFFDIO_COPY, &copy))
		c->err = errno;
	return NULL;
}

/*
 * A SIGSEGV sent while a copy runs lands on an instruction of the fault
 * table, but it is no fault: the handler installed before gets it, and
 * the copy goes on and copies everything.
 */
TEST(sent_signal_landing_in_a_copy_is_not_a_fault)
{
	static struct sent_ctx c;
	uint8_t dst[2 * PAGE];
	unsigned long left;
	pthread_t tid;
	size_t i;

	c.src = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c.src);
	fill_pattern(c.src, PAGE);
	for (i = 0; i < PAGE; i++)
		c.page[i] = pattern(PAGE + i);
	c.uffd = uffd_watch_missing(c.src + PAGE, PAGE);
	if (c.uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	install(SIGSEGV, counting_handler, 0);
	ASSERT_EQ(0, cb_fault_init());

	c.copier = pthread_self();
	ASSERT_EQ(0, pthread_create(&tid, NULL, sent_thread_fn, &c));
	left = cb_variant_find("unrolled")->copy(dst, c.src, sizeof(dst));
	ASSERT_EQ(0, pthread_join(tid, NULL));
	ASSERT_EQ(0, c.err);

	EXPECT_EQ(1, seen_count);
	EXPECT_EQ(SI_TKILL, seen_code);
	EXPECT_EQ(1, seen_rip_in_table);
	EXPECT_EQ(0UL, left);
	EXPECT_EQ(0, memcmp(dst, c.src, PAGE));
	EXPECT_EQ(0, memcmp(dst + PAGE, c.page, PAGE));
	munmap(c.src, 2 * PAGE);
	close(c.uffd);
}

/* cb_fault_init() in a thread that blocks the signal: errno, not death. */
struct blocked_ctx {
	int sig;
	int ret, err;
};

static void *blocked_thread_fn(void *arg)
{
	struct blocked_ctx *c = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, c->sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	errno = 0;
	c->ret = cb_fault_init();
	c->err = errno;
	return NULL;
}

/* A thread that blocks SIGSEGV or SIGBUS is told: -1 with EDEADLK. */
TEST(fault_init_refuses_a_thread_that_blocks_the_signal)
{
	struct blocked_ctx c[] = { { .sig = SIGSEGV }, { .sig = SIGBUS } };
	pthread_t tid;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, pthread_create(&tid, NULL, blocked_thread_fn, &c[i]));
		ASSERT_EQ(0, pthread_join(tid, NULL));
		if (c[i].ret != -1 || c[i].err != EDEADLK)
			TH_LOG("%s blocked: cb_fault_init() = %d, errno %d; want -1, EDEADLK",
			       strsignal(c[i].sig), c[i].ret, c[i].err);
		EXPECT_EQ(-1, c[i].ret);
		EXPECT_EQ(EDEADLK, c[i].err);
	}
	/* This thread blocks neither: the handler is in force for it. */
	EXPECT_EQ(0, cb_fault_init());
	EXPECT_EQ(0, copy_across_holes());
}

static void child_blocked_copy(void)
{
	sigset_t set;

	if (cb_fault_init())
		_exit(2);
	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	copy_across_holes();
	_exit(3);
}

/* The documented limit: Linux kills a thread that faults with it blocked. */
TEST(copy_fault_with_the_signal_blocked_kills)
{
	int status = run_child(child_blocked_copy);

	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
}

/* What a SIGSEGV handler of the caller's got from the library inside. */
static atomic_int inside_ret, inside_err, inside_copy;

static void init_inside_handler(int sig, siginfo_t *si, void *ctx)
{
	inside_ret = cb_fault_init();
	inside_err = errno;
}

static void copy_inside_handler(int sig, siginfo_t *si, void *ctx)
{
	inside_copy = copy_across_holes() ? 1 : 2;
}

/*
 * Inside the caller's SIGSEGV handler the signal is blocked: cb_fault_init()
 * says so. With SA_NODEFER it is not, and a copy fault there is fixed up.
 */
TEST(fault_init_inside_a_sigsegv_handler)
{
	install(SIGSEGV, init_inside_handler, 0);
	ASSERT_EQ(0, cb_fault_init());
	ASSERT_EQ(0, raise(SIGSEGV));
	EXPECT_EQ(-1, inside_ret);
	EXPECT_EQ(EDEADLK, inside_err);
}

TEST(copy_fault_inside_an_sa_nodefer_handler_returns_the_count)
{
	install(SIGSEGV, copy_inside_handler, SA_NODEFER);
	ASSERT_EQ(0, cb_fault_init());
	ASSERT_EQ(0, raise(SIGSEGV));
	EXPECT_EQ(2, inside_copy);
}

TEST_HARNESS_MAIN
