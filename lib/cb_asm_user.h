/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cb_asm_user.h - the kernel assembler macros copy_variants.S uses, for a
 * userspace build. STAC/CLAC vanish; an exception table entry becomes a
 * (fault address, fixup address) pair of 32-bit self-relative offsets in the
 * section "cb_extable", which the linker brackets with __start_cb_extable and
 * __stop_cb_extable and lib/copy_variants_user.c searches on SIGSEGV/SIGBUS.
 *
 * Included from C, it declares what the library's C side reads of it.
 */
#ifndef CB_ASM_USER_H
#define CB_ASM_USER_H

#ifdef __ASSEMBLER__

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

/*
 * CB_JMP_UNLESS_ERMS target: jump to target unless the CPU has ERMS. The
 * kernel build patches a jump out with ALTERNATIVE; here cb_cpu_erms, which
 * lib/copy_variants_user.c sets from CPUID, is tested at every call.
 */
.macro CB_JMP_UNLESS_ERMS target
	cmpb	$0, cb_cpu_erms(%rip)
	jz	\target
.endm

/* No executable stack for the objects linked with this. */
	.section .note.GNU-stack, "", @progbits

#else /* !__ASSEMBLER__ */

#include <stdint.h>

/* One entry of "cb_extable", as _ASM_EXTABLE_UA() above emits it. */
struct cb_extable_entry {
	int32_t insn;	/* faulting instruction, relative to this field */
	int32_t fixup;	/* where to resume, relative to this field */
};

/* The table's bounds, provided by the linker. */
extern const struct cb_extable_entry __start_cb_extable[];
extern const struct cb_extable_entry __stop_cb_extable[];

/* The two instances copy_variants.S assembles of every listed variant. */
#define CB_VARIANT(name, needs, desc)						\
	unsigned long cb_##name##_user(void *dst, const void *src,		\
				       unsigned long len);			\
	unsigned long cb_##name##_memcpy(void *dst, const void *src,		\
					 unsigned long len);
#include "copy_variants_list.h"
#undef CB_VARIANT

/*
 * copy_variants.S: nonzero makes movs_alt take rep movsb (ERMS). Hidden:
 * the library sets it, and statically linked tests may force it.
 */
extern unsigned char cb_cpu_erms;

#endif /* __ASSEMBLER__ */

#endif /* CB_ASM_USER_H */
