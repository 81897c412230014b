/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy_variants.S - copybench's fixed copy variants.
 *
 * One source, two builds: inside copybench.ko (kbuild defines __KERNEL__)
 * and, through lib/cb_asm_user.h, as build/libcopyvariants.a for userspace,
 * where a SIGSEGV handler plays the part of the kernel's exception table.
 *
 * Every variant is a body macro instantiated twice (copy_variants_list.h):
 *
 *   cb_<name>_memcpy	kernel to kernel: no STAC/CLAC, no fixups.
 *   cb_<name>_user	STAC on entry, CLAC on every exit, an exception table
 *			entry after every instruction that touches memory, so
 *			the source, the destination or both may be user
 *			addresses.
 *
 * Input:
 *   rdi destination
 *   rsi source
 *   rdx count
 *
 * Output:
 *   rax bytes NOT copied: 0 on success; on a fault, exactly the number of
 *	 bytes from the first one that could not be read or written to the end.
 *	 Every byte before it has been copied, nothing at or past it written.
 *
 * Clobbers: rcx, rdx, rsi, rdi, r8-r11 and flags, as the C ABI allows.
 * GPRs only: the kernel build runs without kernel_fpu_begin().
 */

#ifdef __KERNEL__
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/smap.h>
#else
#include "lib/cb_asm_user.h"
#endif

/*
 * CB_UACCESS_BEGIN/CB_UACCESS_END: STAC/CLAC in the _user instance only, so
 * the memcpy direction does not pay for them.
 */
.macro CB_UACCESS_BEGIN user
.if \user
	ASM_STAC
.endif
.endm

.macro CB_UACCESS_END user
.if \user
	ASM_CLAC
.endif
.endm

/*
 * Fault paths sit inside ".if \user": the memcpy instance has no exception
 * table entries, so a fixup there would be unreachable code to objtool.
 *
 * CB_INSTANCES name: emit cb_<name>_memcpy and cb_<name>_user from the
 * body macro CB_BODY_<name>, which takes the "user" flag.
 */
.macro CB_INSTANCES name
SYM_FUNC_START(cb_\name\()_memcpy)
	CB_BODY_\name 0
SYM_FUNC_END(cb_\name\()_memcpy)

SYM_FUNC_START(cb_\name\()_user)
	CB_BODY_\name 1
SYM_FUNC_END(cb_\name\()_user)
.endm

/*
 * bytes: one byte per iteration. The oracle the other variants are tested
 * against and the floor of every size. A fault at either access leaves rcx
 * holding the bytes not yet copied, which is the exact answer.
 */
.macro CB_BODY_bytes user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
	testq	%rcx, %rcx
	jz	.Lbytes_done_\user
.Lbytes_loop_\user:
10:	movb	(%rsi), %al
11:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	decq	%rcx
	jnz	.Lbytes_loop_\user
.Lbytes_done_\user:
	CB_UACCESS_END \user
	xorl	%eax, %eax
	RET

.if \user
.Lbytes_fault_\user:
	ASM_CLAC
	movq	%rcx, %rax
	RET

	_ASM_EXTABLE_UA(10b, .Lbytes_fault_\user)
	_ASM_EXTABLE_UA(11b, .Lbytes_fault_\user)
.endif
.endm

	.text
CB_INSTANCES bytes
