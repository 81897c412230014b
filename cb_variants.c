// SPDX-License-Identifier: GPL-2.0
/*
 * cb_variants.c - copybench.ko's table of copy variants and the "variants"
 * file: "native", the running kernel's own copies, then the fixed variants of
 * copy_variants.S in the order of copy_variants_list.h; and the copy of a
 * variant over an iov_iter that the data file uses.
 */
#include <linux/bvec.h>
#include <linux/fault-inject-usercopy.h>
#include <linux/instrumented.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/cpufeature.h>

#include "cb_compat.h"
#include "cb_internal.h"

/* In enum order: both come from the same list in copybench.h. */
const char * const cb_direction_names[CB_DIR_COUNT] = {
#define CB_DIRECTION(name)	__stringify(name),
#include "copybench.h"
#undef CB_DIRECTION
};

const char * const cb_cache_names[CB_CACHE_COUNT] = {
#define CB_CACHE(name)	__stringify(name),
#include "copybench.h"
#undef CB_CACHE
};

/*
 * native: what the kernel's read and write paths end in. The user
 * directions are the raw copies, because the run has checked its buffer
 * (as copyout() does under copy_to_iter()) and because copy_from_user()
 * zeroes the rest of a faulting copy; the iter directions are the whole
 * path a read() or write() takes: copy_to_iter() with its object-size check
 * and instrumentation, the iov_iter walk and copyout().
 */
static unsigned long cb_native_mem(void *dst, const void *src, unsigned long len)
{
	memcpy(dst, src, len);
	return 0;
}

static unsigned long cb_native_to_user(void __user *dst, const void *src, unsigned long len)
{
	return raw_copy_to_user(dst, src, len);
}

static unsigned long cb_native_from_user(void *dst, const void __user *src, unsigned long len)
{
	return raw_copy_from_user(dst, src, len);
}

static size_t cb_native_to_iter(const void *src, size_t len, struct iov_iter *to)
{
	return copy_to_iter(src, len, to);
}

static size_t cb_native_from_iter(void *dst, size_t len, struct iov_iter *from)
{
	return copy_from_iter(dst, len, from);
}

static const struct cb_kvariant cb_kvariants[] = {
	{
		.name		= CB_NATIVE_NAME,
		.desc		= "the running kernel's memcpy(), raw_copy_{to,from}_user() and copy_{to,from}_iter()",
		.mem		= cb_native_mem,
		.to_user	= cb_native_to_user,
		.from_user	= cb_native_from_user,
		.to_iter	= cb_native_to_iter,
		.from_iter	= cb_native_from_iter,
	},
#define CB_VARIANT(vname, vneeds, vdesc)					\
	{									\
		.name		= #vname,					\
		.desc		= vdesc,					\
		.needs		= vneeds,					\
		.mem		= cb_##vname##_memcpy,				\
		.to_user	= cb_##vname##_to_user,				\
		.from_user	= cb_##vname##_from_user,			\
	},
#include "copy_variants_list.h"
#undef CB_VARIANT
};

/** cb_kvariant_count - number of variants, "native" included */
unsigned int cb_kvariant_count(void)
{
	return ARRAY_SIZE(cb_kvariants);
}

/**
 * cb_kvariant_at - the variant at position @i of the table
 * @i: 0 for "native", then copy_variants_list.h's order
 *
 * Return: the variant, NULL past the end.
 */
const struct cb_kvariant *cb_kvariant_at(unsigned int i)
{
	return i < ARRAY_SIZE(cb_kvariants) ? &cb_kvariants[i] : NULL;
}

/**
 * cb_kvariant_find - the variant called @name
 * @name: a name of the "variants" file
 *
 * Return: the variant, NULL when there is none of that name.
 */
const struct cb_kvariant *cb_kvariant_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cb_kvariants); i++)
		if (!strcmp(cb_kvariants[i].name, name))
			return &cb_kvariants[i];
	return NULL;
}

/**
 * cb_kvariant_lacks - the CPU feature @v needs and this CPU lacks
 * @v: a variant
 *
 * Return: its name, or NULL when @v can run here.
 */
const char *cb_kvariant_lacks(const struct cb_kvariant *v)
{
	if ((v->needs & CB_NEED_SSE2) && !boot_cpu_has(X86_FEATURE_XMM2))
		return "SSE2";
	return NULL;
}

/**
 * cb_kvariant_usable - can @v run on this CPU?
 * @v: a variant
 */
bool cb_kvariant_usable(const struct cb_kvariant *v)
{
	return !cb_kvariant_lacks(v);
}

/**
 * cb_kvariant_has - does @v have a routine for direction @dir?
 * @v: a variant
 * @dir: a direction
 */
bool cb_kvariant_has(const struct cb_kvariant *v, enum cb_direction dir)
{
	switch (dir) {
	case CB_DIR_memcpy:
		return v->mem;
	case CB_DIR_to_user:
		return v->to_user;
	case CB_DIR_from_user:
		return v->from_user;
	case CB_DIR_to_iter:
		return v->to_iter;
	case CB_DIR_from_iter:
		return v->from_iter;
	case CB_DIR_COUNT:
		break;
	}
	return false;
}

/**
 * cb_kvariant_dirs - the directions @v has, comma-separated, in list order
 * @v: a variant
 * @buf: where to write them
 * @len: its size
 *
 * Return: the length written.
 */
int cb_kvariant_dirs(const struct cb_kvariant *v, char *buf, size_t len)
{
	int d, n = 0;

	buf[0] = '\0';
	for (d = 0; d < CB_DIR_COUNT; d++)
		if (cb_kvariant_has(v, d))
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       cb_direction_names[d]);
	return n;
}

/**
 * cb_kvariant_names - the variants' names, ", "-separated, in table order
 * @buf: where to write them
 * @len: its size
 * @usable_only: only those this CPU can run
 *
 * Return: the length written.
 */
int cb_kvariant_names(char *buf, size_t len, bool usable_only)
{
	unsigned int i;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(cb_kvariants); i++)
		if (!usable_only || cb_kvariant_usable(&cb_kvariants[i]))
			n += scnprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				       cb_kvariants[i].name);
	return n;
}

/* The current segment of an iov_iter: a user or a kernel address, and its length. */
struct cb_seg {
	void __user *ubase;
	void *kbase;
	size_t len;
};

static bool cb_iter_seg(const struct iov_iter *i, struct cb_seg *seg)
{
	const struct iovec *iov;

	seg->ubase = NULL;
	seg->kbase = NULL;
	if (iter_is_ubuf(i)) {
		seg->ubase = i->ubuf + i->iov_offset;
		seg->len = i->count;
		return true;
	}
	if (iter_is_iovec(i)) {
		iov = iter_iov(i);
		seg->ubase = iov->iov_base + i->iov_offset;
		seg->len = min(i->count, iov->iov_len - i->iov_offset);
		return true;
	}
	if (iov_iter_is_kvec(i)) {
		seg->kbase = i->kvec->iov_base + i->iov_offset;
		seg->len = min(i->count, i->kvec->iov_len - i->iov_offset);
		return true;
	}
	if (iov_iter_is_bvec(i)) {
		/* A bvec is physically contiguous: one run of the direct map. */
		seg->kbase = page_address(i->bvec->bv_page) + i->bvec->bv_offset + i->iov_offset;
		seg->len = min(i->count, i->bvec->bv_len - i->iov_offset);
		return true;
	}
	return false;
}

/*
 * One segment with a fixed variant: user segments through its _to_user or
 * _from_user routine as copy_to_iter()'s copy_to_user_iter() and
 * copy_from_iter()'s copy_from_user_iter() call raw_copy_to_user() and
 * raw_copy_from_user(): fault injection (should_fail_usercopy() fails the
 * whole segment), access_ok(), the KASAN/KCSAN instrumentation, and before
 * a read of user memory the barrier_nospec() of _copy_from_user(); kernel
 * segments through its _memcpy routine, instrumented as memcpy() is.
 * Returns the bytes copied.
 */
static size_t cb_fixed_seg(const struct cb_kvariant *v, bool to_iter, void *kbuf,
			   const struct cb_seg *seg, size_t n)
{
	unsigned long left;

	if (seg->kbase) {
		if (to_iter) {
			instrument_read(kbuf, n);
			instrument_write(seg->kbase, n);
			v->mem(seg->kbase, kbuf, n);
		} else {
			instrument_read(seg->kbase, n);
			instrument_write(kbuf, n);
			v->mem(kbuf, seg->kbase, n);
		}
		return n;
	}
	if (should_fail_usercopy() || !access_ok(seg->ubase, n))
		return 0;
	if (to_iter) {
		instrument_copy_to_user(seg->ubase, kbuf, n);
		left = v->to_user(seg->ubase, kbuf, n);
	} else {
		barrier_nospec();
		instrument_copy_from_user_before(kbuf, seg->ubase, n);
		left = v->from_user(kbuf, seg->ubase, n);
		instrument_copy_from_user_after(kbuf, seg->ubase, n, left);
	}
	return n - left;
}

/*
 * A fixed variant over an iov_iter: one call per segment, after the checks
 * copy_to_iter() and copy_from_iter() make of the whole copy first:
 * check_copy_size() (hardened usercopy's object check of the kernel side)
 * and might_fault() for a user-backed iter.
 */
static ssize_t cb_fixed_copy_iter(const struct cb_kvariant *v, void *kbuf, size_t len,
				  struct iov_iter *iter)
{
	bool to_iter = iov_iter_rw(iter) == ITER_DEST;
	struct cb_seg seg;
	size_t done = 0, n, got;

	if (!cb_iter_seg(iter, &seg))
		return -EOPNOTSUPP;
	if (!check_copy_size(kbuf, len, to_iter))
		return 0;
	if (user_backed_iter(iter))
		might_fault();
	len = min(len, iov_iter_count(iter));
	while (done < len) {
		cb_iter_seg(iter, &seg);
		n = min(seg.len, len - done);
		if (!n) {
			/* An empty iovec: advancing by 0 steps over it. */
			iov_iter_advance(iter, 0);
			cb_iter_seg(iter, &seg);
			if (!seg.len)
				break;
			continue;
		}
		got = cb_fixed_seg(v, to_iter, kbuf + done, &seg, n);
		iov_iter_advance(iter, got);
		done += got;
		if (got < n)
			break;
	}
	return done;
}

/**
 * cb_kvariant_copy_iter - copy between a kernel buffer and an iov_iter with
 * a variant, in the iter's direction
 * @v: the variant: "native" takes copy_to_iter() or copy_from_iter(), the
 *     fixed ones their own routines segment by segment
 * @kbuf: the kernel side
 * @len: bytes to copy
 * @iter: user-backed (ubuf, iovec) or kernel (kvec, bvec); advanced by the
 *        bytes copied
 *
 * Return: the bytes copied, short at the first user byte that cannot be
 * accessed; -EOPNOTSUPP for another kind of iter with a fixed variant.
 */
ssize_t cb_kvariant_copy_iter(const struct cb_kvariant *v, void *kbuf, size_t len,
			      struct iov_iter *iter)
{
	if (iov_iter_rw(iter) == ITER_DEST && v->to_iter)
		return v->to_iter(kbuf, len, iter);
	if (iov_iter_rw(iter) == ITER_SOURCE && v->from_iter)
		return v->from_iter(kbuf, len, iter);
	return cb_fixed_copy_iter(v, kbuf, len, iter);
}

/**
 * cb_variants_show - the variants file: "NAME usable|unusable DIRS
 * DESCRIPTION" per line, in table order
 * @m: the seq_file
 * @unused: nothing
 *
 * Return: 0.
 */
int cb_variants_show(struct seq_file *m, void *unused)
{
	char dirs[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cb_kvariants); i++) {
		const struct cb_kvariant *v = &cb_kvariants[i];

		cb_kvariant_dirs(v, dirs, sizeof(dirs));
		seq_printf(m, "%s %s %s %s\n", v->name,
			   cb_kvariant_usable(v) ? "usable" : "unusable", dirs, v->desc);
	}
	return 0;
}
