// SPDX-License-Identifier: GPL-2.0
/*
 * cb_buf.c - a run's buffers: the kernel side, which the run allocates,
 * and the user side, which belongs to the writer: a mapping of the buffer
 * file it made itself (mmap, MAP_SHARED), whose pages the module allocated
 * at mmap() and the run fills and checks through their kernel address.
 * The module never maps nor unmaps anything in a process; before every
 * copy the run checks, under the mmap lock it holds during the copy, that
 * the mapping at the buffer's address is still that buffer, with the
 * access the copy needs.
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmu_context.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/pkeys.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>

#include "cb_compat.h"
#include "cb_run.h"

/*
 * struct cb_ubuf - the pages of one mmap() of the buffer file, zeroed,
 * charged to the memory cgroup of the process that mapped them. Referenced
 * by every VMA of it (one, and one more per fork() after MADV_DOFORK) and
 * by the run that uses it; freed with the last reference.
 * @kbase:	their kernel address (vmalloc())
 * @len:	bytes, a multiple of PAGE_SIZE
 */
struct cb_ubuf {
	struct kref ref;
	u8 *kbase;
	unsigned long len;
};

static void cb_ubuf_release(struct kref *ref)
{
	struct cb_ubuf *ub = container_of(ref, struct cb_ubuf, ref);

	vfree(ub->kbase);
	kfree(ub);
}

static void cb_ubuf_open(struct vm_area_struct *vma)
{
	struct cb_ubuf *ub = vma->vm_private_data;

	kref_get(&ub->ref);
}

static void cb_ubuf_close(struct vm_area_struct *vma)
{
	struct cb_ubuf *ub = vma->vm_private_data;

	kref_put(&ub->ref, cb_ubuf_release);
}

/* The page at the faulting offset (after MADV_DONTNEED, or at first touch). */
static vm_fault_t cb_ubuf_fault(struct vm_fault *vmf)
{
	struct cb_ubuf *ub = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= ub->len >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page(ub->kbase + (vmf->pgoff << PAGE_SHIFT));
	get_page(page);
	vmf->page = page;
	return 0;
}

/* One VMA per buffer and process: never split, never moved. */
static int cb_ubuf_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int cb_ubuf_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct cb_ubuf_vm_ops = {
	.open		= cb_ubuf_open,
	.close		= cb_ubuf_close,
	.fault		= cb_ubuf_fault,
	.may_split	= cb_ubuf_may_split,
	.mremap		= cb_ubuf_mremap,
};

/*
 * mmap() of the buffer file: MAP_SHARED from offset 0, at most
 * CB_BUFFER_MAX bytes, no PROT_EXEC; new zeroed pages each time. Not
 * inherited by fork() (unless the process asks, MADV_DOFORK), never
 * expanded, not in core dumps.
 */
static int cb_buffer_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct cb_ubuf *ub;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return cb_refuse("buffer", -EINVAL,
				 "a private mapping is refused: map it MAP_SHARED, so that the runs and the process use the same pages");
	if (vma->vm_pgoff)
		return cb_refuse("buffer", -EINVAL,
				 "a mapping from offset %lu is refused: map it from offset 0",
				 vma->vm_pgoff << PAGE_SHIFT);
	if (len > PAGE_ALIGN(CB_BUFFER_MAX))
		return cb_refuse("buffer", -EINVAL,
				 "a mapping of %lu bytes is refused: at most %lu, the largest size plus the largest offset",
				 len, PAGE_ALIGN(CB_BUFFER_MAX));
	if (vma->vm_flags & VM_EXEC)
		return cb_refuse("buffer", -EINVAL, "PROT_EXEC is refused: a buffer holds data");

	ub = kzalloc(sizeof(*ub), GFP_KERNEL_ACCOUNT);
	if (ub)
		ub->kbase = __vmalloc(len, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
				      __GFP_NOWARN);
	if (!ub || !ub->kbase) {
		kfree(ub);
		return cb_refuse("buffer", -ENOMEM,
				 "%lu bytes cannot be allocated (the memory cgroup limit, or low memory)",
				 len);
	}
	kref_init(&ub->ref);
	ub->len = len;
	cb_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY, VM_MAYEXEC);
	vma->vm_ops = &cb_ubuf_vm_ops;
	vma->vm_private_data = ub;
	return 0;
}

/* msync() of a buffer has nothing to write back: memory is all it is. */
const struct file_operations cb_buffer_fops = {
	.owner	= THIS_MODULE,
	.open	= nonseekable_open,
	.mmap	= cb_buffer_mmap,
	.fsync	= noop_fsync,
};

/**
 * cb_buf_alloc - allocate the kernel side of a copy, charged to the
 * caller's memory cgroup, without invoking the OOM killer: physically
 * contiguous pages when the allocator has them without effort, vmalloc()
 * beyond
 * @b: the side, zeroed
 * @bytes: bytes it must hold (rounded up to pages, at least one)
 *
 * Return: 0 or -ENOMEM.
 */
int cb_buf_alloc(struct cb_buf *b, u64 bytes)
{
	b->len = PAGE_ALIGN(max_t(u64, bytes, 1));
	b->kbase = alloc_pages_exact(b->len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_NORETRY);
	if (b->kbase)
		return 0;
	b->kbase = __vmalloc(b->len, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	b->vmalloced = true;
	return b->kbase ? 0 : -ENOMEM;
}

/* What the writer maps of the buffer file, as the run found it. */
struct cb_found {
	unsigned int n;
	unsigned long addr[2];
	unsigned long len;
	vm_flags_t flags;
	struct cb_ubuf *ub;
};

/*
 * Tries of the lock in one burst (rescheduling between them), and the naps
 * between bursts: from the first length, doubling up to the last. Measured
 * beside an mmap() storm: Documentation/copybench.rst, "Waits for the mmap
 * lock".
 */
#define CB_LOCK_SPINS		64
#define CB_LOCK_NAP_FIRST_NS	(50 * NSEC_PER_USEC)
#define CB_LOCK_NAP_LAST_NS	(250 * NSEC_PER_USEC)

/*
 * One nap between two bursts of tries, interruptible: a signal, a stop,
 * a freeze and io_uring's cancel (TIF_NOTIFY_SIGNAL) end it at once, the
 * rest of cb_krun_go_on() within *nap_ns, which doubles up to the last.
 */
static void cb_lock_nap(u64 *nap_ns)
{
	ktime_t t = ns_to_ktime(*nap_ns);

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range(&t, *nap_ns / 4, HRTIMER_MODE_REL);
	*nap_ns = min_t(u64, *nap_ns * 2, CB_LOCK_NAP_LAST_NS);
}

/**
 * cb_buf_mm_lock - take the writer's mmap lock for reading, with migration
 * enabled, never sleeping in the lock's queue: the holder of the lock, or a
 * thread queued for it, may wait for what never comes (a GUP of a FUSE
 * page whose server does not answer), and a sleep in the queue ends only
 * when the lock is granted (or, killable, on SIGKILL). So it tries the
 * lock, and between tries checks everything cb_krun_go_on() checks: tries
 * in bursts of CB_LOCK_SPINS, rescheduling between them (a read trylock
 * fails while a writer of the lock is queued: under a storm of mmap() calls
 * the lock is free only for moments), an interruptible nap between bursts.
 * @c: the run; its time spent waiting goes to @c->lock_wait_ns
 *
 * Return: 0 with the lock held, or why the run ends (-ERESTARTSYS for a
 * signal, a stop or a freeze; -ECANCELED, -ETIME, -ENODEV, -EINVAL with
 * the reason in @c->why).
 */
int cb_buf_mm_lock(struct cb_krun *c)
{
	u64 t0, nap_ns = CB_LOCK_NAP_FIRST_NS;
	unsigned int tries = 0;
	int ret = 0;

	might_sleep();
	if (mmap_read_trylock(current->mm))
		return 0;
	t0 = ktime_get_ns();
	c->lock_waiting = true;
	while (!mmap_read_trylock(current->mm)) {
		ret = cb_krun_pause(c);
		if (ret)
			break;
		if (++tries % CB_LOCK_SPINS)
			cpu_relax();
		else
			cb_lock_nap(&nap_ns);
	}
	c->lock_waiting = false;
	c->lock_wait_ns += ktime_get_ns() - t0;
	return ret;
}

static int cb_find_mappings(struct cb_krun *c, struct cb_found *f)
{
	VMA_ITERATOR(vmi, current->mm, 0);
	struct vm_area_struct *vma;
	int ret = cb_buf_mm_lock(c);

	if (ret)
		return ret;
	for_each_vma(vmi, vma) {
		if (vma->vm_ops != &cb_ubuf_vm_ops)
			continue;
		if (f->n < ARRAY_SIZE(f->addr))
			f->addr[f->n] = vma->vm_start;
		if (!f->n++) {
			f->len = vma->vm_end - vma->vm_start;
			f->flags = vma->vm_flags;
			f->ub = vma->vm_private_data;
			kref_get(&f->ub->ref);
		}
	}
	mmap_read_unlock(current->mm);
	return 0;
}

/**
 * cb_buf_find_user - the user side of a run: the writer's one mapping of
 * the buffer file, of at least @bytes bytes, writable when the run writes
 * to it; refused with the reason otherwise
 * @c: the run (its direction names the side in the sentences)
 * @b: the side, zeroed; on success it references the buffer
 * @bytes: size plus offset
 * @writable: the copy writes to it
 *
 * Return: 0, -EINVAL (reason in @c->why), or why the run ends while it
 * waits for the writer's mmap lock (cb_buf_mm_lock()).
 */
int cb_buf_find_user(struct cb_krun *c, struct cb_buf *b, u64 bytes, bool writable)
{
	const char *dir = cb_direction_names[c->k.direction];
	unsigned long need = PAGE_ALIGN(max_t(u64, bytes, 1));
	struct cb_found f = { 0 };
	int ret;

	ret = cb_find_mappings(c, &f);
	if (ret)
		return ret;
	if (!f.n)
		return cb_krun_fail(c, -EINVAL,
				    "direction %s copies %s the writer's own memory: map %lu bytes of %s/buffer first (MAP_SHARED, PROT_READ|PROT_WRITE), and keep them mapped during the run",
				    dir, writable ? "to" : "from", need, CB_DEBUGFS_DIR);
	b->ub = f.ub;
	if (f.n > 1)
		return cb_krun_fail(c, -EINVAL,
				    "the writer maps %u buffers (at 0x%lx, 0x%lx...) and a run uses one: unmap the others",
				    f.n, f.addr[0], f.addr[1]);
	if (f.len < need)
		return cb_krun_fail(c, -EINVAL,
				    "the buffer at 0x%lx holds %lu bytes, and this run needs %lu (size plus offset, in whole pages): map a larger one",
				    f.addr[0], f.len, need);
	if (!(f.flags & (writable ? VM_WRITE : VM_READ)))
		return cb_krun_fail(c, -EINVAL,
				    "the buffer at 0x%lx is mapped without %s, which direction %s needs",
				    f.addr[0], writable ? "PROT_WRITE" : "PROT_READ", dir);
	b->kbase = f.ub->kbase;
	b->len = need;
	b->ubase = (void __user *)f.addr[0];
	b->writable = writable;
	return 0;
}

/* What the run finds at its buffer's address, under the writer's mmap lock. */
enum cb_buf_state {
	CB_BUF_INTACT,		/* the buffer, whole, with the access the copy needs */
	CB_BUF_GONE,		/* unmapped, or another mapping there */
	CB_BUF_PROT,		/* the buffer, without PROT_WRITE (PROT_READ): mprotect() */
	CB_BUF_PKEY,		/* the buffer, its protection key denying the access */
};

/* Under the mmap lock; *pkey: the buffer's protection key, for the sentence. */
static enum cb_buf_state cb_buf_state(struct mm_struct *mm, const struct cb_buf *b, int *pkey)
{
	unsigned long addr = (unsigned long)b->ubase;
	struct vm_area_struct *vma = find_vma(mm, addr);

	if (!vma || vma->vm_start != addr || vma->vm_ops != &cb_ubuf_vm_ops ||
	    vma->vm_private_data != b->ub || vma->vm_end - addr < b->len)
		return CB_BUF_GONE;
	if (!(vma->vm_flags & (b->writable ? VM_WRITE : VM_READ)))
		return CB_BUF_PROT;
	*pkey = vma_pkey(vma);
	if (!arch_vma_access_permitted(vma, b->writable, false, false))
		return CB_BUF_PKEY;
	return CB_BUF_INTACT;
}

/* The refusal for a buffer that is no longer usable (state not CB_BUF_INTACT). */
static int cb_buf_unusable(struct cb_krun *c, const struct cb_buf *b, enum cb_buf_state state,
			   int pkey)
{
	unsigned long addr = (unsigned long)b->ubase;
	const char *prot = b->writable ? "PROT_WRITE" : "PROT_READ";

	switch (state) {
	case CB_BUF_PROT:
		return cb_krun_fail(c, -EFAULT,
				    "the run's buffer at 0x%lx lost %s during the run (mprotect()): a copy %s it faults; the run stopped and did not touch that address again",
				    addr, prot, b->writable ? "to" : "from");
	case CB_BUF_PKEY:
		return cb_krun_fail(c, -EACCES,
				    "the run's buffer at 0x%lx has protection key %d, which denies the writer %s (its PKRU, pkey_mprotect()): give the buffer key 0 or allow the access in the writing thread",
				    addr, pkey,
				    b->writable ? "writes (PKEY_DISABLE_WRITE or _ACCESS)" :
						  "reads (PKEY_DISABLE_ACCESS)");
	case CB_BUF_GONE:
	case CB_BUF_INTACT:
		break;
	}
	return cb_krun_fail(c, -EFAULT,
			    "the run's buffer at 0x%lx (%lu bytes used) was unmapped or replaced during the run; the run stopped and did not touch that address again",
			    addr, b->len);
}

/* Pages faulted in under one hold of the lock. */
#define CB_FAULT_BATCH		512UL

/*
 * Fault in the pages of @b from *addr up to end, at most CB_FAULT_BATCH,
 * under the writer's mmap lock taken by cb_buf_mm_lock(), after checking
 * that the buffer is still there and usable; *addr moves past those done.
 * fixup_user_fault() without its "unlocked" argument never drops nor
 * retakes the lock, and never stops for a signal: the caller checks
 * between batches.
 */
static int cb_fault_in_batch(struct cb_krun *c, const struct cb_buf *b, unsigned long *addr,
			     unsigned long end)
{
	unsigned int flags = b->writable ? FAULT_FLAG_WRITE : 0;
	struct mm_struct *mm = current->mm;
	enum cb_buf_state state;
	int pkey = 0, ret;

	end = min(end, *addr + CB_FAULT_BATCH * PAGE_SIZE);
	ret = cb_buf_mm_lock(c);
	if (ret)
		return ret;
	state = cb_buf_state(mm, b, &pkey);
	for (; state == CB_BUF_INTACT && !ret && *addr < end; *addr += PAGE_SIZE)
		ret = fixup_user_fault(mm, *addr, flags, NULL);
	mmap_read_unlock(mm);
	if (state != CB_BUF_INTACT)
		return cb_buf_unusable(c, b, state, pkey);
	/* A page table's allocation fails for a task being killed: its signal. */
	if (ret && fatal_signal_pending(current))
		return -ERESTARTSYS;
	if (ret == -ENOMEM)
		return cb_krun_fail(c, -ENOMEM,
				    "the buffer's pages cannot be mapped in the writer's page tables: no memory for them (its memory cgroup limit, or low memory)");
	if (ret)
		return cb_krun_fail(c, -EFAULT,
				    "the page of the run's buffer at 0x%lx cannot be mapped in the writer's page tables (error %d)",
				    *addr - PAGE_SIZE, ret);
	return 0;
}

/**
 * cb_buf_fault_in - map every page of the user side in the writer's page
 * tables (its first use, or after MADV_DONTNEED), without writing to it;
 * the copies run with page faults disabled. Batch by batch, the mmap lock
 * taken by cb_buf_mm_lock() for each, checking between batches what
 * cb_krun_go_on() checks; the lock's holder never holds it up beyond one
 * of those. Called with migration enabled.
 * @c: the run
 * @b: the user side
 *
 * Return: 0; -EFAULT when the buffer is no longer there or lost the
 * access the copy needs (mprotect()); -EACCES when its protection key
 * denies that access; -ENOMEM when it is there and usable and its pages
 * could not be mapped (the page tables' allocation failed: the buffer's own
 * fault handler cannot fail); or why the run ends (cb_krun_go_on(); a
 * fatal signal is -ERESTARTSYS, never -ENOMEM).
 */
int cb_buf_fault_in(struct cb_krun *c, const struct cb_buf *b)
{
	unsigned long addr = (unsigned long)b->ubase, end = addr + b->len;
	int ret;

	while (addr < end) {
		ret = cb_fault_in_batch(c, b, &addr, end) ?: cb_krun_pause(c);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * cb_buf_free - release one side: free a kernel side, drop the run's
 * reference to a user side (the writer's mapping stays, as it was)
 * @b: the side; zeroed after
 */
void cb_buf_free(struct cb_buf *b)
{
	if (b->ub)
		kref_put(&b->ub->ref, cb_ubuf_release);
	else if (b->vmalloced)
		vfree(b->kbase);
	else if (b->kbase)
		free_pages_exact(b->kbase, b->len);
	memset(b, 0, sizeof(*b));
}

/**
 * cb_buf_lock - before a copy through the user side: take the writer's
 * mmap lock for reading, so that no thread can unmap, replace or protect
 * the mapping during the copy, and check that it is still the run's
 * buffer. Without @wait it never sleeps (the caller holds its CPU): when
 * the lock is not free at once, -EAGAIN, and the caller checks why the run
 * should end before it tries again. With @wait it waits as
 * cb_buf_mm_lock() does (the caller has migration enabled).
 * @c: the run; a no-op without a user side
 * @wait: wait for the lock
 *
 * Return: 0 with the lock held; -EAGAIN (the lock is taken or a writer
 * waits for it), or why the run ends while it waits (cb_buf_mm_lock()),
 * -EFAULT or -EACCES (reason in @c->why) without.
 */
int cb_buf_lock(struct cb_krun *c, bool wait)
{
	const struct cb_buf *b = c->user;
	enum cb_buf_state state;
	int pkey = 0, ret;

	if (!b)
		return 0;
	if (wait) {
		ret = cb_buf_mm_lock(c);
		if (ret)
			return ret;
	} else if (!mmap_read_trylock(current->mm)) {
		return -EAGAIN;
	}
	state = cb_buf_state(current->mm, b, &pkey);
	if (state == CB_BUF_INTACT)
		return 0;
	mmap_read_unlock(current->mm);
	return cb_buf_unusable(c, b, state, pkey);
}

/**
 * cb_buf_unlock - after the copy: release what cb_buf_lock() took
 * @c: the run
 */
void cb_buf_unlock(struct cb_krun *c)
{
	if (c->user)
		mmap_read_unlock(current->mm);
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
