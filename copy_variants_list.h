/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy_variants_list.h - the one list of copybench's fixed copy variants.
 *
 * The module's table, the userspace library's table, the tests and the
 * documentation check all expand this list, so adding a variant is one line
 * here plus its code in copy_variants.S. No include guard: include it where
 * CB_VARIANT() is defined, as perf's mem-memcpy-x86-64-asm-def.h is used.
 *
 * CB_VARIANT(name, needs, description)
 *   name	the user-visible name and a C identifier; copy_variants.S
 *		provides two entry points for it:
 *		  cb_<name>_memcpy	kernel to kernel, no user access, no fixups
 *		  cb_<name>_user	STAC/CLAC around the copy, an exception
 *					table entry on every access, so either
 *					side may be a user address
 *		Both take (dst, src, len) in %rdi, %rsi, %rdx and return in
 *		%rax the number of bytes NOT copied (0 on success).
 *   needs	CB_NEED_* bits: CPU features without which the variant
 *		cannot run (it is then listed as unusable and never called)
 *   description	one line for tables and --help
 *
 * "native" (the kernel's own copy, or libc's memcpy in userspace) is not in
 * this list: it has no asm, and each table adds it itself.
 */
CB_VARIANT(bytes, 0, "one byte per iteration: the oracle and the floor")
CB_VARIANT(movsb, 0, "rep movsb for everything (ERMS/FSRM copy_user)")
CB_VARIANT(movsq, 0, "rep movsq words + rep movsb tail (<= 6.3 REP_GOOD copy_user)")
CB_VARIANT(unrolled, 0, "64-byte blocks of 8 GPR loads/stores (<= 6.3 copy_user_generic_unrolled)")
CB_VARIANT(movs_alt, 0, "bytes <8, words <64, then rep movsb or rep movsq (6.4+ rep_movs_alternative)")
CB_VARIANT(orig, 0, "32-byte loop, overlapping tails, 4K-aliasing direction (memcpy_orig)")
CB_VARIANT(laight, 0, "16 bytes per iteration on one negative index (Laight, LKML 2023)")
CB_VARIANT(nocache, CB_NEED_SSE2, "movnti 64-byte blocks, cached head/tail, sfence (__copy_user_nocache)")
