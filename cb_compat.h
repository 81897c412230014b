/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_compat.h - the kernel interfaces that differ between the kernels
 * copybench.ko is built against (Debian's 6.1 and 6.12, newer trees), in
 * one place. Kbuild probes each kernel's own headers and defines CB_HAVE_*;
 * no other file reads those switches. The rest of the module is written
 * for the newest interface; older kernels get a shim here.
 */
#ifndef CB_COMPAT_H
#define CB_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/uio.h>

/* vm_flags_mod() (6.3+); before, vma->vm_flags was written directly. */
static inline void cb_vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
				   vm_flags_t clear)
{
#ifdef CB_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/* iter_iov() (6.4+); before, the iov_iter's iov member. */
#ifndef CB_HAVE_ITER_IOV
static inline const struct iovec *iter_iov(const struct iov_iter *i)
{
	return i->iov;
}
#endif

/* hrtimer_setup() (6.13+, where hrtimer_init() is on its way out). */
#ifndef CB_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#endif /* CB_COMPAT_H */
