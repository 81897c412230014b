/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_asm_user.h - the kernel assembler macros copy_variants.S uses, for a
 * userspace build. STAC/CLAC vanish; an exception table entry becomes a
 * (fault address, fixup address) pair of 32-bit self-relative offsets in the
 * section "cb_extable", which the linker brackets with __start_cb_extable and
 * __stop_cb_extable and lib/copy_variants_user.c searches on SIGSEGV/SIGBUS.
 */
#ifndef CB_ASM_USER_H
#define CB_ASM_USER_H

#define SYM_FUNC_START(name)		\
	.globl name;			\
	.type name, @function;		\
	.p2align 4;			\
	name:

#define SYM_FUNC_END(name)		\
	.size name, . - name

/* Library-internal data: hidden, so a -fPIC link may use %rip addressing. */
#define SYM_DATA(name, data...)		\
	.globl name;			\
	.hidden name;			\
	.type name, @object;		\
	name:				\
	data;				\
	.size name, . - name

#define RET	ret
#define ASM_STAC
#define ASM_CLAC

#define _ASM_EXTABLE_UA(from, to)			\
	.pushsection "cb_extable", "a";			\
	.balign 4;					\
	.long (from) - .;				\
	.long (to) - .;					\
	.popsection

/* No executable stack for the objects linked with this. */
	.section .note.GNU-stack, "", @progbits

#endif /* CB_ASM_USER_H */
