// SPDX-License-Identifier: GPL-2.0
/*
 * copy_variants_user.c - the userspace table of copybench's copy variants
 * (copy_variants.h): the list in copy_variants_list.h, plus libc's memcpy as
 * "native", and the fault table that makes their fault paths run natively.
 *
 * The fault table: copy_variants.S, assembled through lib/cb_asm_user.h,
 * records every instruction of a cb_<name>_user instance that may fault as a
 * pair of self-relative 32-bit offsets (instruction, fixup) in the section
 * "cb_extable"; the linker brackets the section with __start_cb_extable and
 * __stop_cb_extable. cb_fault_init() installs a SIGSEGV/SIGBUS handler that
 * looks the faulting instruction up there and, when found, resumes at the
 * fixup with every other register as the fault left it: what the kernel's
 * ex_handler_uaccess() does with __ex_table. Anything else goes on to the
 * handler that was installed before, or to the default action.
 */
#define _GNU_SOURCE	/* REG_RIP */
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "copybench.h"
#include "copy_variants.h"
#include "lib/cb_asm_user.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * "native" in the variant table's shape (readers, the tests). copybench's
 * user backend does not time it: its loops call libc's memcpy themselves,
 * since this function's one call site settled at a speed of its own in
 * each process (Documentation/measure.rst, "Call sites").
 */
static unsigned long cb_native_copy(void *dst, const void *src,
				    unsigned long len)
{
	memcpy(dst, src, len);
	return 0;
}

static const struct cb_variant cb_variants[] = {
#define CB_VARIANT(vname, vneeds, vdesc)					\
	{ .name = #vname, .desc = vdesc, .copy = cb_##vname##_user,		\
	  .copy_memcpy = cb_##vname##_memcpy, .needs = vneeds,			\
	  .fault_exact = 1 },
#include "copy_variants_list.h"
#undef CB_VARIANT
	{ .name = CB_NATIVE_NAME, .desc = "libc memcpy(), the system's own copy",
	  .copy = cb_native_copy, .copy_memcpy = cb_native_copy, .needs = 0,
	  .fault_exact = 0 },
};

unsigned int cb_variant_count(void)
{
	return ARRAY_SIZE(cb_variants);
}

const struct cb_variant *cb_variant_at(unsigned int i)
{
	return i < cb_variant_count() ? &cb_variants[i] : NULL;
}

const struct cb_variant *cb_variant_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < cb_variant_count(); i++)
		if (!strcmp(cb_variants[i].name, name))
			return &cb_variants[i];
	return NULL;
}

/* CPUID.1:EDX.SSE2[bit 26] */
static int cb_cpu_has_sse2(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return 0;
	return !!(edx & (1U << 26));
}

/* CPUID.(EAX=7,ECX=0):EBX.ERMS[bit 9] */
static int cb_cpu_has_erms(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return 0;
	return !!(ebx & (1U << 9));
}

/* Before main(): movs_alt takes the ERMS path when the CPU has it. */
static void __attribute__((constructor)) cb_cpu_init(void)
{
	cb_cpu_erms = cb_cpu_has_erms();
}

int cb_variant_usable(const struct cb_variant *v)
{
	if (!v)
		return 0;
	/* A need this library does not know is a need it cannot check. */
	if (v->needs & ~CB_NEED_SSE2)
		return 0;
	if ((v->needs & CB_NEED_SSE2) && !cb_cpu_has_sse2())
		return 0;
	return 1;
}

/* The fixup for the instruction at ip, or 0 if ip is not in the table. */
static uintptr_t cb_extable_fixup(uintptr_t ip)
{
	const struct cb_extable_entry *e;

	for (e = __start_cb_extable; e < __stop_cb_extable; e++)
		if ((uintptr_t)&e->insn + (intptr_t)e->insn == ip)
			return (uintptr_t)&e->fixup + (intptr_t)e->fixup;
	return 0;
}

/* What SIGSEGV and SIGBUS did before cb_fault_init(): written once. */
static struct sigaction cb_old_segv, cb_old_bus;

/*
 * The signal's default action, as it would have run without the library:
 * restore SIG_DFL and queue the same signal, siginfo and all, again for
 * this thread. It is blocked while this handler runs, so it is delivered
 * as the handler returns, with the registers of the interrupted code: a
 * CPU fault dies at the faulting instruction with its own si_code and
 * si_addr in the core dump, a sent signal where it landed. Nothing after
 * the return runs.
 */
static void cb_fault_default(int sig, siginfo_t *si)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), sig, si))
		raise(sig);
}

/*
 * The handler installed before cb_fault_init(), called as the kernel would
 * have called it: with its sa_mask blocked, and the signal itself unblocked
 * if it asked for SA_NODEFER (so that a copy fault inside it is fixed up).
 * The mask of the interrupted code comes back when this handler returns.
 */
static void cb_fault_chain(const struct sigaction *old, int sig, siginfo_t *si,
			   void *ctx)
{
	sigset_t self;

	pthread_sigmask(SIG_BLOCK, &old->sa_mask, NULL);
	if (old->sa_flags & SA_NODEFER) {
		sigemptyset(&self);
		sigaddset(&self, sig);
		pthread_sigmask(SIG_UNBLOCK, &self, NULL);
	}
	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, ctx);
	else
		old->sa_handler(sig);
}

static void cb_fault_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	const struct sigaction *old = sig == SIGBUS ? &cb_old_bus : &cb_old_segv;
	/*
	 * The kernel's SI_FROMUSER(): si_code <= 0 (SI_USER from kill(),
	 * SI_TKILL from tgkill() and raise(), SI_QUEUE from sigqueue()) is a
	 * signal somebody sent, even when it lands while a copy runs; a fault
	 * the CPU raised carries SEGV_*, BUS_* or SI_KERNEL (a general
	 * protection fault, e.g. a non-canonical address).
	 */
	bool sent = si->si_code <= 0;
	uintptr_t fixup = 0;
	int saved_errno = errno;

	if (!sent)
		fixup = cb_extable_fixup(uc->uc_mcontext.gregs[REG_RIP]);
	if (fixup) {
		uc->uc_mcontext.gregs[REG_RIP] = fixup;
		return;
	}

	/*
	 * Not a variant's access: what would have happened without us. A sent
	 * signal that was ignored stays ignored; a CPU fault cannot be ignored
	 * (the kernel forces the default action on it).
	 */
	if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
		cb_fault_chain(old, sig, si, ctx);
	else if (old->sa_handler == SIG_DFL || !sent)
		cb_fault_default(sig, si);
	errno = saved_errno;
}

static int cb_fault_err;

static void cb_fault_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cb_fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &cb_old_segv) ||
	    sigaction(SIGBUS, &sa, &cb_old_bus))
		cb_fault_err = errno ? errno : EINVAL;
}

int cb_fault_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	sigset_t blocked;
	int err;

	pthread_once(&once, cb_fault_install);
	if (cb_fault_err) {
		errno = cb_fault_err;
		return -1;
	}
	/*
	 * Linux does not deliver a fault to a thread that blocks its signal:
	 * it kills the process. Here no copy fault could be caught, so say
	 * so now rather than die later (also inside a SIGSEGV or SIGBUS
	 * handler, where the kernel blocks the signal).
	 */
	err = pthread_sigmask(SIG_BLOCK, NULL, &blocked);
	if (!err && (sigismember(&blocked, SIGSEGV) || sigismember(&blocked, SIGBUS)))
		err = EDEADLK;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
