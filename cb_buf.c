// SPDX-License-Identifier: GPL-2.0
/*
 * cb_buf.c - a run's buffers: pages with a kernel address for each side,
 * and for the user side of to_user, from_user, to_iter and from_iter the
 * same pages mapped in the writer's address space, through an anonymous
 * file of the module's own ("anon_inode:[copybench]" in /proc/PID/maps).
 * Its VMA is recognisable, so a run never copies into, nor unmaps, a
 * mapping another thread has put in its place.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>

#include "cb_run.h"

/*
 * struct cb_ubuf - the writer's mapping of a user side. Referenced by the
 * run and by the anonymous file, which each VMA of it holds.
 * @mm:		the address space it is mapped in
 * @addr:	where
 * @len:	how many bytes
 * @pages:	the pages to map, only while vm_mmap() runs
 * @writable:	mapped PROT_WRITE (a destination), else read-only for good
 * @mapped:	the one mmap() of the file has happened
 */
struct cb_ubuf {
	struct kref ref;
	struct mm_struct *mm;
	unsigned long addr;
	unsigned long len;
	struct page **pages;
	bool writable;
	bool mapped;
};

static void cb_ubuf_release(struct kref *ref)
{
	kfree(container_of(ref, struct cb_ubuf, ref));
}

static void cb_ubuf_put(struct cb_ubuf *ub)
{
	kref_put(&ub->ref, cb_ubuf_release);
}

/*
 * The pages are inserted when the file is mapped. A fault means another
 * thread zapped them (madvise()); the run then sees a short copy.
 */
static vm_fault_t cb_ubuf_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

/* The mapping moves and splits as one piece or not at all. */
static int cb_ubuf_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int cb_ubuf_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct cb_ubuf_vm_ops = {
	.fault		= cb_ubuf_fault,
	.may_split	= cb_ubuf_may_split,
	.mremap		= cb_ubuf_mremap,
};

static void cb_vma_flags_mod(struct vm_area_struct *vma, vm_flags_t set, vm_flags_t clear)
{
#ifdef CB_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Not inherited by fork(), never expanded, not in core dumps; a source can
 * never be made writable.
 */
static int cb_ubuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cb_ubuf *ub = file->private_data;

	if (ub->mapped || vma->vm_pgoff || vma->vm_end - vma->vm_start != ub->len)
		return -EINVAL;
	ub->mapped = true;
	cb_vma_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			 ub->writable ? 0 : VM_MAYWRITE);
	vma->vm_ops = &cb_ubuf_vm_ops;
	vma->vm_private_data = ub;
	return vm_map_pages_zero(vma, ub->pages, ub->len >> PAGE_SHIFT);
}

static int cb_ubuf_file_release(struct inode *inode, struct file *file)
{
	cb_ubuf_put(file->private_data);
	return 0;
}

static const struct file_operations cb_ubuf_fops = {
	.owner		= THIS_MODULE,
	.mmap		= cb_ubuf_mmap,
	.release	= cb_ubuf_file_release,
};

/* Is the VMA at ub->addr still ub's own mapping? The mmap lock is held. */
static bool cb_ubuf_intact(const struct cb_ubuf *ub)
{
	struct vm_area_struct *vma = find_vma(ub->mm, ub->addr);

	return vma && vma->vm_start == ub->addr && vma->vm_end == ub->addr + ub->len &&
	       vma->vm_ops == &cb_ubuf_vm_ops && vma->vm_private_data == ub;
}

/**
 * cb_buf_alloc - allocate one side of a copy, charged to the caller's
 * memory cgroup, without invoking the OOM killer
 * @b: the side, zeroed
 * @bytes: bytes it must hold (rounded up to pages, at least one)
 * @user: it will be mapped in the writer (cb_buf_map()): vmalloc() pages;
 *        else physically contiguous pages when the allocator has them
 *        without effort, vmalloc() beyond
 *
 * Return: 0 or -ENOMEM.
 */
int cb_buf_alloc(struct cb_buf *b, u64 bytes, bool user)
{
	b->len = PAGE_ALIGN(max_t(u64, bytes, 1));
	if (!user) {
		b->kbase = alloc_pages_exact(b->len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
					     __GFP_NORETRY);
		if (b->kbase)
			return 0;
	}
	b->kbase = __vmalloc(b->len, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	b->vmalloced = true;
	return b->kbase ? 0 : -ENOMEM;
}

/**
 * cb_buf_map - map a user side, already filled, in the caller's address space
 * @b: the side, from cb_buf_alloc(..., true)
 * @writable: the copy writes to it (PROT_WRITE); else it stays read-only
 *
 * Return: 0 with @b->ubase set, or a negative errno of vm_mmap().
 */
int cb_buf_map(struct cb_buf *b, bool writable)
{
	unsigned long i, n = b->len >> PAGE_SHIFT, addr;
	struct cb_ubuf *ub;
	struct file *file;
	int ret = 0;

	ub = kzalloc(sizeof(*ub), GFP_KERNEL_ACCOUNT);
	if (!ub)
		return -ENOMEM;
	kref_init(&ub->ref);
	ub->mm = current->mm;
	ub->len = b->len;
	ub->writable = writable;
	ub->pages = kvmalloc_array(n, sizeof(*ub->pages), GFP_KERNEL_ACCOUNT);
	if (!ub->pages) {
		cb_ubuf_put(ub);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ub->pages[i] = vmalloc_to_page(b->kbase + i * PAGE_SIZE);

	file = anon_inode_getfile("[copybench]", &cb_ubuf_fops, ub, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
	} else {
		kref_get(&ub->ref);	/* the file's, put at its release */
		addr = vm_mmap(file, 0, b->len, PROT_READ | (writable ? PROT_WRITE : 0),
			       MAP_SHARED, 0);
		fput(file);		/* the VMA holds its own reference */
		if (IS_ERR_VALUE(addr))
			ret = (long)addr;
		else
			ub->addr = addr;
	}
	kvfree(ub->pages);
	ub->pages = NULL;
	if (ret) {
		cb_ubuf_put(ub);
		return ret;
	}
	b->umap = ub;
	b->ubase = (void __user *)ub->addr;
	return 0;
}

/*
 * Unmap ub if, and only if, the VMA at its address is still its own. The
 * check and vm_munmap() cannot be one step (no exported call unmaps under a
 * lock the caller holds): a thread that replaces the mapping exactly in
 * between loses its own. Documentation/copybench.rst, "Limitations".
 */
static void cb_ubuf_unmap(struct cb_ubuf *ub)
{
	bool ours;

	if (current->mm != ub->mm || mmap_read_lock_killable(ub->mm))
		return;		/* a dying process: exit_mmap() takes it */
	ours = cb_ubuf_intact(ub);
	mmap_read_unlock(ub->mm);
	if (ours)
		vm_munmap(ub->addr, ub->len);
}

/**
 * cb_buf_free - unmap (when still the run's own) and free one side
 * @b: the side; zeroed after
 */
void cb_buf_free(struct cb_buf *b)
{
	if (b->umap) {
		cb_ubuf_unmap(b->umap);
		cb_ubuf_put(b->umap);
	}
	if (b->vmalloced)
		vfree(b->kbase);
	else if (b->kbase)
		free_pages_exact(b->kbase, b->len);
	memset(b, 0, sizeof(*b));
}

/**
 * cb_buf_lock - before a copy through the user mapping: take the writer's
 * mmap lock for reading, so that no thread can unmap or replace the mapping
 * during the copy, and check that it is still the run's own
 * @c: the run; a no-op without a user side
 *
 * Return: 0 with the lock held, or -EFAULT (reason in @c->why) without.
 */
int cb_buf_lock(struct cb_run *c)
{
	struct cb_ubuf *ub = c->src.umap ?: c->dst.umap;

	if (!ub)
		return 0;
	mmap_read_lock(ub->mm);
	if (cb_ubuf_intact(ub))
		return 0;
	mmap_read_unlock(ub->mm);
	snprintf(c->why, sizeof(c->why),
		 "the run's user buffer at 0x%lx (%lu bytes) was unmapped or replaced by another thread; the run stopped and did not touch it again",
		 ub->addr, ub->len);
	return -EFAULT;
}

/**
 * cb_buf_unlock - after the copy: release what cb_buf_lock() took
 * @c: the run
 */
void cb_buf_unlock(struct cb_run *c)
{
	struct cb_ubuf *ub = c->src.umap ?: c->dst.umap;

	if (ub)
		mmap_read_unlock(ub->mm);
}

/**
 * cb_buf_flush - flush bytes [@off, @off + @len) of @b from every cache level
 * @b: one side
 * @off: first byte
 * @len: bytes
 */
void cb_buf_flush(const struct cb_buf *b, unsigned long off, unsigned long len)
{
	if (len)
		clflush_cache_range(b->kbase + off, len);
}
