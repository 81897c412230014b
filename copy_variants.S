/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy_variants.S - copybench's fixed copy variants.
 *
 * One source, two builds: inside copybench.ko (kbuild defines __KERNEL__)
 * and, through lib/cb_asm_user.h, as build/libcopyvariants.a for userspace,
 * where a SIGSEGV handler plays the part of the kernel's exception table.
 * Documentation/variants.rst tells where each variant comes from.
 *
 * Every variant is a body macro instantiated twice (copy_variants_list.h):
 *
 *   cb_<name>_memcpy	kernel to kernel: no STAC/CLAC, no fixups.
 *   cb_<name>_user	STAC on entry, CLAC on every exit, an exception table
 *			entry for every instruction that touches memory, so
 *			the source, the destination or both may be user
 *			addresses. The kernel build also names it
 *			cb_<name>_to_user and cb_<name>_from_user, the typed
 *			entries of cb_internal.h.
 *
 * Each block's exception table lines follow the block, after the jump or
 * return that ends it, as in arch/x86/lib/copy_user_64.S; the numeric label
 * of each guarded instruction is its fault anchor.
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
 *
 * NOTE! Source and destination must not overlap (these are memcpy()s, not
 * memmove()s), and the count is a full 64-bit value everywhere.
 *
 * NOTE! How the _user instances stay byte-exact. A fault ends in the
 * instance's own fixup code, inside the same function (objtool wants it
 * there), which works out where the first byte not yet known to be copied
 * is and how many bytes follow it, and hands both to CB_BYTE_RETRY: a byte
 * loop with exception table entries of its own, which copies up to the byte
 * that really faults and returns the count from there. A block whose loads
 * fault has stored nothing; a block whose store faults has stored only below
 * the faulting store, and an 8-byte store that straddles into an
 * inaccessible page faults as a whole and writes nothing. So retrying the
 * block byte by byte from its first byte rewrites a few bytes with the same
 * values and stops exactly where the access rights stop.
 */

#ifdef __KERNEL__
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/smap.h>
#else
#include "lib/cb_asm_user.h"
#endif

#ifdef __KERNEL__
#include <asm/alternative.h>
#include <asm/cpufeatures.h>

/*
 * CB_JMP_UNLESS_ERMS target: jump to target unless the CPU has ERMS
 * (enhanced rep movsb/stosb). The kernel patches the jump out at module load
 * on ERMS CPUs, as it patches rep_movs_alternative; the userspace build tests
 * cb_cpu_erms instead (lib/cb_asm_user.h).
 */
.macro CB_JMP_UNLESS_ERMS target
	ALTERNATIVE "jmp \target", "", X86_FEATURE_ERMS
.endm
#else
/*
 * cb_cpu_erms: nonzero when the CPU has ERMS; set from CPUID by a
 * constructor in lib/copy_variants_user.c. 0 until then, which is always
 * correct, only slower on ERMS CPUs.
 */
	.pushsection .data
SYM_DATA(cb_cpu_erms, .byte 0)
	.popsection
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

/* CB_RETURN_OK: the success exit of every variant. */
.macro CB_RETURN_OK user
	CB_UACCESS_END \user
	xorl	%eax, %eax
	RET
.endm

/*
 * CB_EXTABLE user, insn, fixup: _ASM_EXTABLE_UA(insn, fixup) in the _user
 * instance, nothing in the memcpy instance. Written after the block that
 * holds insn, whose numeric label is its fault anchor.
 */
.macro CB_EXTABLE user, insn, fixup
.if \user
	_ASM_EXTABLE_UA(\insn, \fixup)
.endif
.endm

/*
 * CB_BYTE_LOOP user, label, fault, count=%rcx: copy \count bytes (at least
 * one) from rsi to rdi one at a time, in a loop at \label. A fault at either
 * access goes to \fault with \count the bytes not copied, the faulting one
 * included: the exact answer from there. \count is %ecx where it is known
 * to fit (a shorter "decl"). Clobbers al.
 */
.macro CB_BYTE_LOOP user, label, fault, count=%rcx
\label:
10:	movb	(%rsi), %al
11:	movb	%al, (%rdi)
	incq	%rsi
	incq	%rdi
	dec	\count
	jnz	\label

	CB_EXTABLE \user, 10b, \fault
	CB_EXTABLE \user, 11b, \fault
.endm

/*
 * CB_BYTE_RETRY tag: the common end of every fault path of cb_<tag>_user.
 *
 * Input (from a fixup, user access still enabled):
 *   rsi, rdi	first byte not known to be copied
 *   rcx	bytes from there to the end of the copy
 *
 * Copies byte by byte until done or until the first byte it cannot read or
 * write, then returns rcx (0 or the exact count) with user access disabled.
 * .L<tag>_retry_done is also the exit of byte loops that fault themselves:
 * their rcx is already exact. Clobbers al.
 */
.macro CB_BYTE_RETRY tag
.L\tag\()_retry:
	testq	%rcx, %rcx
	jz	.L\tag\()_retry_done
	CB_BYTE_LOOP 1, .L\tag\()_retry_loop, .L\tag\()_retry_done
.L\tag\()_retry_done:
	ASM_CLAC
	movq	%rcx, %rax
	RET
.endm

/*
 * CB_ALIGN_DEST tag, user: copy single bytes until rdi is 8-byte aligned
 * (the ALIGN_DESTINATION of the <= 6.3 copy_user_64.S). Needs rdx >= 8;
 * leaves rdx the count after the head. A fault leaves rcx the head bytes
 * not copied, rdx the rest, and goes to .L<tag>_align_fault.
 */
.macro CB_ALIGN_DEST tag, user
	movl	%edi, %ecx
	negl	%ecx
	andl	$7, %ecx
	jz	.L\tag\()_aligned_\user
	subq	%rcx, %rdx
	CB_BYTE_LOOP \user, .L\tag\()_align_\user, .L\tag\()_align_fault, %ecx
.L\tag\()_aligned_\user:
.endm

/*
 * CB_BLOCKS64 tag, user, store: after CB_ALIGN_DEST, the 64-byte blocks of
 * unrolled and nocache, through r8-r11, the stores spelled \store (movq, or
 * movnti to bypass the caches). Copies rdx / 64 blocks, possibly none, and
 * leaves rdx the 0-63 bytes after them, at .L<tag>_under64_<user>. The
 * pointers move at the end of a block, so a fault anywhere in it goes to
 * .L<tag>_block_fault with rcx the blocks not copied, the faulting one
 * included, and rdx the rest.
 */
.macro CB_BLOCKS64 tag, user, store
	movq	%rdx, %rcx
	andl	$63, %edx
	shrq	$6, %rcx
	jz	.L\tag\()_under64_\user

	/* 64-byte blocks: 4 loads, 4 stores, 4 loads, 4 stores. */
	.p2align 4
.L\tag\()_block_\user:
20:	movq	0*8(%rsi), %r8
21:	movq	1*8(%rsi), %r9
22:	movq	2*8(%rsi), %r10
23:	movq	3*8(%rsi), %r11
24:	\store	%r8, 0*8(%rdi)
25:	\store	%r9, 1*8(%rdi)
26:	\store	%r10, 2*8(%rdi)
27:	\store	%r11, 3*8(%rdi)
30:	movq	4*8(%rsi), %r8
31:	movq	5*8(%rsi), %r9
32:	movq	6*8(%rsi), %r10
33:	movq	7*8(%rsi), %r11
34:	\store	%r8, 4*8(%rdi)
35:	\store	%r9, 5*8(%rdi)
36:	\store	%r10, 6*8(%rdi)
37:	\store	%r11, 7*8(%rdi)
	leaq	64(%rsi), %rsi
	leaq	64(%rdi), %rdi
	decq	%rcx
	jnz	.L\tag\()_block_\user

	CB_EXTABLE \user, 20b, .L\tag\()_block_fault
	CB_EXTABLE \user, 21b, .L\tag\()_block_fault
	CB_EXTABLE \user, 22b, .L\tag\()_block_fault
	CB_EXTABLE \user, 23b, .L\tag\()_block_fault
	CB_EXTABLE \user, 24b, .L\tag\()_block_fault
	CB_EXTABLE \user, 25b, .L\tag\()_block_fault
	CB_EXTABLE \user, 26b, .L\tag\()_block_fault
	CB_EXTABLE \user, 27b, .L\tag\()_block_fault
	CB_EXTABLE \user, 30b, .L\tag\()_block_fault
	CB_EXTABLE \user, 31b, .L\tag\()_block_fault
	CB_EXTABLE \user, 32b, .L\tag\()_block_fault
	CB_EXTABLE \user, 33b, .L\tag\()_block_fault
	CB_EXTABLE \user, 34b, .L\tag\()_block_fault
	CB_EXTABLE \user, 35b, .L\tag\()_block_fault
	CB_EXTABLE \user, 36b, .L\tag\()_block_fault
	CB_EXTABLE \user, 37b, .L\tag\()_block_fault
.L\tag\()_under64_\user:
.endm

/*
 * CB_WORDS tag, user, store: after CB_BLOCKS64, the 8-byte words of the 0-63
 * bytes in rdx, each one load and one \store through r8. Leaves rdx the 0-7
 * bytes after them, at .L<tag>_under8_<user>. A fault goes to
 * .L<tag>_word_fault with rcx the words not copied, the faulting one
 * included, and rdx the rest.
 */
.macro CB_WORDS tag, user, store
	movl	%edx, %ecx
	andl	$7, %edx
	shrl	$3, %ecx
	jz	.L\tag\()_under8_\user
.L\tag\()_word_loop_\user:
40:	movq	(%rsi), %r8
41:	\store	%r8, (%rdi)
	leaq	8(%rsi), %rsi
	leaq	8(%rdi), %rdi
	decl	%ecx
	jnz	.L\tag\()_word_loop_\user

	CB_EXTABLE \user, 40b, .L\tag\()_word_fault
	CB_EXTABLE \user, 41b, .L\tag\()_word_fault
.L\tag\()_under8_\user:
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
#ifdef __KERNEL__
SYM_FUNC_ALIAS(cb_\name\()_to_user, cb_\name\()_user)
SYM_FUNC_ALIAS(cb_\name\()_from_user, cb_\name\()_user)
#endif
.endm

/*
 * bytes: one byte per iteration. The oracle the other variants are tested
 * against and the floor of every size. A fault at either access leaves rcx
 * holding the bytes not yet copied, which is the exact answer.
 * Clobbers: rcx, rsi, rdi, al.
 */
.macro CB_BODY_bytes user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
	testq	%rcx, %rcx
	jz	.Lbytes_done_\user
	CB_BYTE_LOOP \user, .Lbytes_loop_\user, .Lbytes_fault
.Lbytes_done_\user:
	CB_RETURN_OK \user

.if \user
.Lbytes_fault:
	ASM_CLAC
	movq	%rcx, %rax
	RET
.endif
.endm

/*
 * movsb: one "rep movsb" for everything, the copy_user_enhanced_fast_string
 * of ERMS CPUs (<= 6.3) and the inline copy of FSRM CPUs (6.4+).
 *
 * A fault inside the rep leaves rsi, rdi and rcx at the iteration that
 * faulted, as far as the CPU says; the byte retry from there makes the count
 * exact whatever granularity a fast-string implementation reports.
 * Clobbers: rcx, rsi, rdi, al.
 */
.macro CB_BODY_movsb user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
10:	rep movsb
	CB_RETURN_OK \user

	CB_EXTABLE \user, 10b, .Lmovsb_retry

.if \user
	CB_BYTE_RETRY movsb
.endif
.endm

/*
 * movsq: the REP_GOOD copy of <= 6.3, copy_user_generic_string. Under 8
 * bytes a "rep movsb"; else single bytes up to an 8-byte aligned destination,
 * "rep movsq" for the words and "rep movsb" for the 0-7 bytes left.
 *
 * A fault in "rep movsq" leaves rcx the words left, rdx the tail: the retry
 * starts at the word the rep stopped on.
 * Clobbers: rcx, rdx, rsi, rdi, al.
 */
.macro CB_BODY_movsq user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
	cmpq	$8, %rdx
	jb	.Lmovsq_bytes_\user

	CB_ALIGN_DEST movsq, \user
	/* Words, then the tail. */
	movq	%rdx, %rcx
	shrq	$3, %rcx
	andl	$7, %edx
20:	rep movsq
	movl	%edx, %ecx
.Lmovsq_bytes_\user:
21:	rep movsb
	CB_RETURN_OK \user

	CB_EXTABLE \user, 20b, .Lmovsq_words_fault
	CB_EXTABLE \user, 21b, .Lmovsq_retry

.if \user
.Lmovsq_align_fault:
	addq	%rdx, %rcx
	jmp	.Lmovsq_retry
.Lmovsq_words_fault:
	leaq	(%rdx,%rcx,8), %rcx
	jmp	.Lmovsq_retry

	CB_BYTE_RETRY movsq
.endif
.endm

/*
 * unrolled: the copy of CPUs without REP_GOOD in <= 6.3,
 * copy_user_generic_unrolled. Under 8 bytes a byte loop; else single bytes up
 * to an 8-byte aligned destination, then 64-byte blocks, each 4 loads and 4
 * stores twice (8 GPR loads, 8 stores), then a word loop and a byte loop.
 *
 * The pointers move at the end of a block, so a fault anywhere in it
 * retries from the block's first byte: rcx*64 + rdx bytes.
 * Clobbers: rcx, rdx, rsi, rdi, r8-r11, al.
 */
.macro CB_BODY_unrolled user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
	cmpq	$8, %rdx
	jb	.Lunrolled_bytes_\user

	CB_ALIGN_DEST unrolled, \user
	CB_BLOCKS64 unrolled, \user, movq
	CB_WORDS unrolled, \user, movq

	/* Under 8 bytes left: a byte loop. */
	movl	%edx, %ecx
.Lunrolled_bytes_\user:
	testq	%rcx, %rcx
	jz	.Lunrolled_done_\user
	CB_BYTE_LOOP \user, .Lunrolled_byte_loop_\user, .Lunrolled_retry_done
.Lunrolled_done_\user:
	CB_RETURN_OK \user

.if \user
.Lunrolled_align_fault:
	addq	%rdx, %rcx
	jmp	.Lunrolled_retry
.Lunrolled_block_fault:
	shlq	$6, %rcx
	addq	%rdx, %rcx
	jmp	.Lunrolled_retry
.Lunrolled_word_fault:
	leaq	(%rdx,%rcx,8), %rcx
	jmp	.Lunrolled_retry

	CB_BYTE_RETRY unrolled
.endif
.endm

/*
 * movs_alt: the shape of rep_movs_alternative (6.4+), the copy_user of CPUs
 * without FSRM: a byte loop under 8 bytes, a loop of unaligned words under
 * 64, then "rep movsb" when the CPU has ERMS (cb_cpu_erms), else (since 6.6)
 * one unaligned word, "rep movsq" on the aligned destination and the byte
 * loop for the tail. Upstream takes the count in rcx and returns it there;
 * here it follows this file's convention.
 *
 * NOTE! The ERMS choice is ALTERNATIVE-patched in the kernel build, as
 * upstream's is (there the jump to the rep movsq path is patched out, so the
 * fault anchor stays on one instruction); the userspace build tests
 * cb_cpu_erms, one load and a well-predicted branch.
 * Clobbers: rax, rcx, rdx, rsi, rdi.
 */
.macro CB_BODY_movs_alt user
	CB_UACCESS_BEGIN \user
	movq	%rdx, %rcx
	cmpq	$64, %rcx
	jae	.Lmovs_alt_large_\user
	cmpl	$8, %ecx
	jae	.Lmovs_alt_word_\user
	testl	%ecx, %ecx
	jz	.Lmovs_alt_done_\user

	/*
	 * Bytes: under 8, and the tails of the longer paths. Upstream's loop,
	 * which steps rdi before rsi: not CB_BYTE_LOOP, to stay its copy.
	 */
.Lmovs_alt_bytes_\user:
10:	movb	(%rsi), %al
11:	movb	%al, (%rdi)
	incq	%rdi
	incq	%rsi
	decq	%rcx
	jnz	.Lmovs_alt_bytes_\user
.Lmovs_alt_done_\user:
	CB_RETURN_OK \user

	CB_EXTABLE \user, 10b, .Lmovs_alt_retry_done
	CB_EXTABLE \user, 11b, .Lmovs_alt_retry_done

	/* Words: 8 to 63 bytes. */
	.p2align 4
.Lmovs_alt_word_\user:
20:	movq	(%rsi), %rax
21:	movq	%rax, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	subl	$8, %ecx
	jz	.Lmovs_alt_done_\user
	cmpl	$8, %ecx
	jae	.Lmovs_alt_word_\user
	jmp	.Lmovs_alt_bytes_\user

	CB_EXTABLE \user, 20b, .Lmovs_alt_retry
	CB_EXTABLE \user, 21b, .Lmovs_alt_retry

	/* 64 bytes and more: rep movsb with ERMS. */
.Lmovs_alt_large_\user:
	CB_JMP_UNLESS_ERMS .Lmovs_alt_movsq_\user
30:	rep movsb
	CB_RETURN_OK \user

	CB_EXTABLE \user, 30b, .Lmovs_alt_retry

	/* Without ERMS: one unaligned word, then rep movsq and the tail. */
.Lmovs_alt_movsq_\user:
40:	movq	(%rsi), %rax
41:	movq	%rax, (%rdi)
	leaq	8(%rdi), %rax
	andq	$-8, %rax
	subq	%rdi, %rax
	addq	%rax, %rdi
	addq	%rax, %rsi
	subq	%rax, %rcx
	movq	%rcx, %rax
	shrq	$3, %rcx
	andl	$7, %eax
42:	rep movsq
	movl	%eax, %ecx
	testl	%ecx, %ecx
	jnz	.Lmovs_alt_bytes_\user
	CB_RETURN_OK \user

	CB_EXTABLE \user, 40b, .Lmovs_alt_retry
	CB_EXTABLE \user, 41b, .Lmovs_alt_retry
	CB_EXTABLE \user, 42b, .Lmovs_alt_movsq_fault

.if \user
.Lmovs_alt_movsq_fault:
	leaq	(%rax,%rcx,8), %rcx
	jmp	.Lmovs_alt_retry

	CB_BYTE_RETRY movs_alt
.endif
.endm

/*
 * orig: the shape of memcpy_orig (memcpy_64.S), the kernel's memcpy on
 * CPUs without FSRM. Under 32 bytes, overlapping head and tail loads per
 * band (16-31, 8-15, 4-7, 1-3), all loads before any store. From 32 bytes a
 * loop of 32-byte blocks (4 loads, then 4 stores) and the band code for the
 * last 0-31 bytes; the loop runs backward, from the end, when the low byte of
 * the source is below the destination's (signed compare, as upstream): the
 * 4K-aliasing test, against loads that falsely depend on earlier stores
 * whose addresses match in their low bits.
 *
 * The _user instance keeps the count of the band code in rcx, so a fault
 * there retries the whole band range (rdx is the band's index).
 *
 * NOTE! A backward copy writes the top of the destination first. If a page
 * in the middle of either buffer could not be accessed, it would leave bytes
 * written above the first inaccessible one. So the _user instance first
 * copies, in address order, the first byte of each page of the source and
 * of the destination (the first byte of the copy included): one byte per
 * page boundary either buffer crosses, about two per 4 KiB (a few percent
 * at 4 KiB, within the noise); any fault there switches to the forward
 * loop, which stops exactly. Only a mapping changed by another thread after
 * the probes can then fault the backward loop: it retries the whole copy
 * forward from the start, which returns the exact count and copies the
 * prefix, but the blocks above the fault are already written.
 * Clobbers: rax, rcx, rdx, rsi, rdi, r8-r11.
 */
.macro CB_BODY_orig user
	CB_UACCESS_BEGIN \user
	cmpq	$0x20, %rdx
	jb	.Lorig_short_\user
	/* The 4K-aliasing test picks the direction. */
	cmp	%dil, %sil
	jl	.Lorig_backward_\user

	/* Forward: 32-byte blocks, rdx counting down from len - 32. */
.Lorig_forward_\user:
	subq	$0x20, %rdx
.Lorig_forward_loop_\user:
	subq	$0x20, %rdx
10:	movq	0*8(%rsi), %r8
11:	movq	1*8(%rsi), %r9
12:	movq	2*8(%rsi), %r10
13:	movq	3*8(%rsi), %r11
	leaq	4*8(%rsi), %rsi
14:	movq	%r8, 0*8(%rdi)
15:	movq	%r9, 1*8(%rdi)
16:	movq	%r10, 2*8(%rdi)
17:	movq	%r11, 3*8(%rdi)
	leaq	4*8(%rdi), %rdi
	jae	.Lorig_forward_loop_\user
	addl	$0x20, %edx
	jmp	.Lorig_short_\user

	CB_EXTABLE \user, 10b, .Lorig_fwd_load_fault
	CB_EXTABLE \user, 11b, .Lorig_fwd_load_fault
	CB_EXTABLE \user, 12b, .Lorig_fwd_load_fault
	CB_EXTABLE \user, 13b, .Lorig_fwd_load_fault
	CB_EXTABLE \user, 14b, .Lorig_fwd_store_fault
	CB_EXTABLE \user, 15b, .Lorig_fwd_store_fault
	CB_EXTABLE \user, 16b, .Lorig_fwd_store_fault
	CB_EXTABLE \user, 17b, .Lorig_fwd_store_fault

	/* Backward: 32-byte blocks from the end, then the head. */
.Lorig_backward_\user:
.if \user
	/* Probe the first byte of every page, in address order. */
	xorl	%r8d, %r8d
.Lorig_probe:
20:	movb	(%rsi,%r8), %al
21:	movb	%al, (%rdi,%r8)
	leaq	4096(%rsi,%r8), %r9
	andq	$-4096, %r9
	subq	%rsi, %r9
	leaq	4096(%rdi,%r8), %r10
	andq	$-4096, %r10
	subq	%rdi, %r10
	cmpq	%r10, %r9
	cmovaq	%r10, %r9
	movq	%r9, %r8
	cmpq	%rdx, %r8
	jb	.Lorig_probe

	_ASM_EXTABLE_UA(20b, .Lorig_forward_\user)
	_ASM_EXTABLE_UA(21b, .Lorig_forward_\user)

	/* For the band code and a fault: destination start and length. */
	movq	%rdi, %rax
	movq	%rdx, %rcx
.endif
	addq	%rdx, %rsi
	addq	%rdx, %rdi
	subq	$0x20, %rdx
	.p2align 4
.Lorig_backward_loop_\user:
	subq	$0x20, %rdx
30:	movq	-1*8(%rsi), %r8
31:	movq	-2*8(%rsi), %r9
32:	movq	-3*8(%rsi), %r10
33:	movq	-4*8(%rsi), %r11
	leaq	-4*8(%rsi), %rsi
34:	movq	%r8, -1*8(%rdi)
35:	movq	%r9, -2*8(%rdi)
36:	movq	%r10, -3*8(%rdi)
37:	movq	%r11, -4*8(%rdi)
	leaq	-4*8(%rdi), %rdi
	jae	.Lorig_backward_loop_\user
	/* The head: 0-31 bytes at the start (rcx is still the length). */
	addl	$0x20, %edx
	subq	%rdx, %rsi
	subq	%rdx, %rdi
	jmp	.Lorig_band_\user

	CB_EXTABLE \user, 30b, .Lorig_bwd_load_fault
	CB_EXTABLE \user, 31b, .Lorig_bwd_load_fault
	CB_EXTABLE \user, 32b, .Lorig_bwd_load_fault
	CB_EXTABLE \user, 33b, .Lorig_bwd_load_fault
	CB_EXTABLE \user, 34b, .Lorig_bwd_store_fault
	CB_EXTABLE \user, 35b, .Lorig_bwd_store_fault
	CB_EXTABLE \user, 36b, .Lorig_bwd_store_fault
	CB_EXTABLE \user, 37b, .Lorig_bwd_store_fault

	/*
	 * Under 32 bytes, and the forward loop's tail: all loads of a band
	 * before its stores, so a faulting load stores nothing.
	 */
.Lorig_short_\user:
.if \user
	movq	%rdx, %rcx
.endif
.Lorig_band_\user:
	cmpl	$16, %edx
	jb	.Lorig_less_16_\user
	/* 16 to 31 bytes. */
40:	movq	0*8(%rsi), %r8
41:	movq	1*8(%rsi), %r9
42:	movq	-2*8(%rsi,%rdx), %r10
43:	movq	-1*8(%rsi,%rdx), %r11
44:	movq	%r8, 0*8(%rdi)
45:	movq	%r9, 1*8(%rdi)
46:	movq	%r10, -2*8(%rdi,%rdx)
47:	movq	%r11, -1*8(%rdi,%rdx)
	CB_RETURN_OK \user

	CB_EXTABLE \user, 40b, .Lorig_retry
	CB_EXTABLE \user, 41b, .Lorig_retry
	CB_EXTABLE \user, 42b, .Lorig_retry
	CB_EXTABLE \user, 43b, .Lorig_retry
	CB_EXTABLE \user, 44b, .Lorig_retry
	CB_EXTABLE \user, 45b, .Lorig_retry
	CB_EXTABLE \user, 46b, .Lorig_retry
	CB_EXTABLE \user, 47b, .Lorig_retry

.Lorig_less_16_\user:
	cmpl	$8, %edx
	jb	.Lorig_less_8_\user
	/* 8 to 15 bytes. */
50:	movq	0*8(%rsi), %r8
51:	movq	-1*8(%rsi,%rdx), %r9
52:	movq	%r8, 0*8(%rdi)
53:	movq	%r9, -1*8(%rdi,%rdx)
	CB_RETURN_OK \user

	CB_EXTABLE \user, 50b, .Lorig_retry
	CB_EXTABLE \user, 51b, .Lorig_retry
	CB_EXTABLE \user, 52b, .Lorig_retry
	CB_EXTABLE \user, 53b, .Lorig_retry

.Lorig_less_8_\user:
	cmpl	$4, %edx
	jb	.Lorig_less_4_\user
	/* 4 to 7 bytes. */
60:	movl	(%rsi), %r8d
61:	movl	-4(%rsi,%rdx), %r9d
62:	movl	%r8d, (%rdi)
63:	movl	%r9d, -4(%rdi,%rdx)
	CB_RETURN_OK \user

	CB_EXTABLE \user, 60b, .Lorig_retry
	CB_EXTABLE \user, 61b, .Lorig_retry
	CB_EXTABLE \user, 62b, .Lorig_retry
	CB_EXTABLE \user, 63b, .Lorig_retry

	/* 0 to 3 bytes: the first byte is stored last. */
.Lorig_less_4_\user:
	subl	$1, %edx
	jb	.Lorig_done_\user
70:	movzbl	(%rsi), %r8d
	jz	.Lorig_store_1byte_\user
71:	movzbq	1(%rsi), %r9
72:	movzbq	(%rsi,%rdx), %r10
73:	movb	%r9b, 1(%rdi)
74:	movb	%r10b, (%rdi,%rdx)
.Lorig_store_1byte_\user:
75:	movb	%r8b, (%rdi)
.Lorig_done_\user:
	CB_RETURN_OK \user

	CB_EXTABLE \user, 70b, .Lorig_retry
	CB_EXTABLE \user, 71b, .Lorig_retry
	CB_EXTABLE \user, 72b, .Lorig_retry
	CB_EXTABLE \user, 73b, .Lorig_retry
	CB_EXTABLE \user, 74b, .Lorig_retry
	CB_EXTABLE \user, 75b, .Lorig_retry

.if \user
	/* Forward loop: rdx is len - offset - 64; retry the whole block. */
.Lorig_fwd_store_fault:
	subq	$0x20, %rsi
.Lorig_fwd_load_fault:
	leaq	0x40(%rdx), %rcx
	jmp	.Lorig_retry

	/* Backward loop: retry everything from the start (rax, rcx). */
.Lorig_bwd_store_fault:
	addq	$0x20, %rsi
.Lorig_bwd_load_fault:
	movq	%rdi, %r8
	subq	%rax, %r8
	subq	%r8, %rsi
	movq	%rax, %rdi
	jmp	.Lorig_retry

	CB_BYTE_RETRY orig
.endif
.endm

/*
 * laight: the loop David Laight sketched on LKML in November 2023 (the
 * iov_iter regression thread): 16 bytes per iteration, both buffers
 * addressed from their ends by one index register that runs from minus the
 * length up to zero, so the one "add" that steps it also sets ZF for the
 * loop branch. A length that is not a multiple of 16 first copies 16 bytes
 * at the start, which the first iteration then partly copies again. Under
 * 16 bytes its own path: a zero test, two overlapping words for 8-15, and
 * the same negative index one byte at a time for 1-7.
 *
 * A fault in the loop retries from the current block: rsi + index.
 * Clobbers: rcx, rdx, rsi, rdi, r8, r9, al.
 */
.macro CB_BODY_laight user
	CB_UACCESS_BEGIN \user
	cmpq	$16, %rdx
	jb	.Llaight_short_\user

	/* The odd part: the first 16 bytes, when len % 16 != 0. */
	movl	%edx, %ecx
	andl	$15, %ecx
	jz	.Llaight_ends_\user
10:	movq	0*8(%rsi), %r8
11:	movq	1*8(%rsi), %r9
12:	movq	%r8, 0*8(%rdi)
13:	movq	%r9, 1*8(%rdi)

	CB_EXTABLE \user, 10b, .Llaight_start_fault
	CB_EXTABLE \user, 11b, .Llaight_start_fault
	CB_EXTABLE \user, 12b, .Llaight_start_fault
	CB_EXTABLE \user, 13b, .Llaight_start_fault

	/* Point at the ends; the index runs from -(len - len % 16) to 0. */
.Llaight_ends_\user:
	addq	%rdx, %rsi
	addq	%rdx, %rdi
	subq	%rcx, %rdx
	negq	%rdx
	.p2align 4
.Llaight_loop_\user:
20:	movq	(%rsi,%rdx), %r8
21:	movq	8(%rsi,%rdx), %r9
22:	movq	%r8, (%rdi,%rdx)
23:	movq	%r9, 8(%rdi,%rdx)
	addq	$16, %rdx
	jnz	.Llaight_loop_\user
	CB_RETURN_OK \user

	CB_EXTABLE \user, 20b, .Llaight_index_fault
	CB_EXTABLE \user, 21b, .Llaight_index_fault
	CB_EXTABLE \user, 22b, .Llaight_index_fault
	CB_EXTABLE \user, 23b, .Llaight_index_fault

	/* Under 16 bytes. */
.Llaight_short_\user:
	testq	%rdx, %rdx
	jz	.Llaight_done_\user
	cmpl	$8, %edx
	jb	.Llaight_bytes_\user
	/* 8 to 15: two overlapping words. */
30:	movq	(%rsi), %r8
31:	movq	-8(%rsi,%rdx), %r9
32:	movq	%r8, (%rdi)
33:	movq	%r9, -8(%rdi,%rdx)
	CB_RETURN_OK \user

	CB_EXTABLE \user, 30b, .Llaight_start_fault
	CB_EXTABLE \user, 31b, .Llaight_start_fault
	CB_EXTABLE \user, 32b, .Llaight_start_fault
	CB_EXTABLE \user, 33b, .Llaight_start_fault

	/* 1 to 7: bytes, on the same negative index. */
.Llaight_bytes_\user:
	addq	%rdx, %rsi
	addq	%rdx, %rdi
	negq	%rdx
.Llaight_byte_loop_\user:
40:	movb	(%rsi,%rdx), %al
41:	movb	%al, (%rdi,%rdx)
	incq	%rdx
	jnz	.Llaight_byte_loop_\user
.Llaight_done_\user:
	CB_RETURN_OK \user

	CB_EXTABLE \user, 40b, .Llaight_index_fault
	CB_EXTABLE \user, 41b, .Llaight_index_fault

.if \user
	/* Before the pointers move: retry everything. */
.Llaight_start_fault:
	movq	%rdx, %rcx
	jmp	.Llaight_retry
	/* On the index: retry from the current position. */
.Llaight_index_fault:
	addq	%rdx, %rsi
	addq	%rdx, %rdi
	movq	%rdx, %rcx
	negq	%rcx
	jmp	.Llaight_retry

	CB_BYTE_RETRY laight
.endif
.endm

/*
 * nocache: __copy_user_nocache of <= 6.3 (copy_to_nontemporal since 6.4):
 * non-temporal "movnti" stores, which bypass the caches, for an 8-byte
 * aligned destination, in 64-byte blocks (4 loads, 4 stores, twice), then
 * 8-byte and 4-byte movnti, and cached byte stores for the unaligned head
 * and tail; "sfence" before returning orders the weakly-ordered movnti
 * stores before anything that follows. Needs SSE2 (movnti).
 *
 * NOTE! Upstream's count after a fault is not byte-exact (a failing 4-byte
 * or word access gives up on the rest of it). Here a fault runs "sfence",
 * then the byte retry from the start of the block, word or dword, cached.
 * Clobbers: rcx, rdx, rsi, rdi, r8-r11, al.
 */
.macro CB_BODY_nocache user
	CB_UACCESS_BEGIN \user
	cmpq	$8, %rdx
	jb	.Lnocache_under8_\user

	CB_ALIGN_DEST nocache, \user
	CB_BLOCKS64 nocache, \user, movnti
	CB_WORDS nocache, \user, movnti

	/*
	 * 0-7 left, at .Lnocache_under8_ (the end of CB_WORDS): one 4-byte
	 * movnti if the destination allows, then bytes.
	 */
	testl	%edx, %edx
	jz	.Lnocache_finish_\user
	movl	%edi, %ecx
	andl	$3, %ecx
	jnz	.Lnocache_1b_entry_\user
	movl	%edx, %ecx
	andl	$3, %edx
	shrl	$2, %ecx
	jz	.Lnocache_1b_entry_\user
50:	movl	(%rsi), %r8d
51:	movnti	%r8d, (%rdi)
	leaq	4(%rsi), %rsi
	leaq	4(%rdi), %rdi
	testl	%edx, %edx
	jz	.Lnocache_finish_\user

	CB_EXTABLE \user, 50b, .Lnocache_4b_fault
	CB_EXTABLE \user, 51b, .Lnocache_4b_fault
.Lnocache_1b_entry_\user:
	movl	%edx, %ecx
	CB_BYTE_LOOP \user, .Lnocache_1b_loop_\user, .Lnocache_fault, %ecx

	/* Order the non-temporal stores before whatever comes next. */
.Lnocache_finish_\user:
	CB_UACCESS_END \user
	sfence
	xorl	%eax, %eax
	RET

.if \user
.Lnocache_align_fault:
	addq	%rdx, %rcx
	jmp	.Lnocache_fault
.Lnocache_block_fault:
	shlq	$6, %rcx
	addq	%rdx, %rcx
	jmp	.Lnocache_fault
.Lnocache_word_fault:
	leaq	(%rdx,%rcx,8), %rcx
	jmp	.Lnocache_fault
.Lnocache_4b_fault:
	leaq	(%rdx,%rcx,4), %rcx
.Lnocache_fault:
	sfence
	CB_BYTE_RETRY nocache
.endif
.endm

/*
 * Both instances of every variant in copy_variants_list.h: a listed name
 * without a CB_BODY_<name> above is an assembler error.
 */
	.text
#define CB_VARIANT(name, needs, desc)	CB_INSTANCES name ;
#include "copy_variants_list.h"
#undef CB_VARIANT
