// SPDX-License-Identifier: GPL-2.0
/*
 * cb_data.c - the data file, a read path whose copy to (and from) the caller
 * is done by a chosen variant, and data_size, its size: the content buffer,
 * both files' operations and their locking.
 * Documentation/copybench.rst ("The data file") describes the behaviour.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <asm/timex.h>

#include "cb_internal.h"
#include "cb_trace.h"

/* The content and its size; refcounted by cb_data and by every open file. */
struct cb_databuf {
	struct kref ref;
	u64 size;
	u8 *buf;
};

/* What one open() of the data file works with. */
struct cb_data_file {
	struct cb_databuf *db;
	const struct cb_kvariant *variant;
	u64 chunk;		/* bytes per copy call, 1..CB_DATA_CHUNK_MAX */
};

/*
 * cb_data_lock guards cb_data (the current content), the data_size knob
 * that says its size, and the data inode's size.
 */
static DEFINE_MUTEX(cb_data_lock);
static struct cb_databuf *cb_data;
static struct dentry *cb_data_dentry;

static void cb_databuf_release(struct kref *ref)
{
	struct cb_databuf *db = container_of(ref, struct cb_databuf, ref);

	vfree(db->buf);
	kfree(db);
}

static void cb_databuf_put(struct cb_databuf *db)
{
	if (db)
		kref_put(&db->ref, cb_databuf_release);
}

/*
 * A buffer of size bytes holding cb_data_byte(p) at every p, charged to the
 * caller's memory cgroup; -ENOMEM (without the OOM killer), or -EINTR when a
 * fatal signal stops the fill, which reschedules at every page (and
 * reports a quiescent state to RCU Tasks there, which a preemption by
 * cond_resched() is not: a fill of 1 GiB would hold up its grace periods).
 */
static struct cb_databuf *cb_databuf_new(u64 size)
{
	struct cb_databuf *db;
	u64 p;

	db = kzalloc(sizeof(*db), GFP_KERNEL_ACCOUNT);
	if (!db)
		return ERR_PTR(-ENOMEM);
	db->buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!db->buf) {
		kfree(db);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&db->ref);
	db->size = size;

	for (p = 0; p < size; p += PAGE_SIZE) {
		if (fatal_signal_pending(current)) {
			cb_databuf_put(db);
			return ERR_PTR(-EINTR);
		}
		cb_pattern_fill(db->buf + p, p, min_t(u64, PAGE_SIZE, size - p), 0);
		cond_resched_tasks_rcu_qs();
	}
	return db;
}

/**
 * cb_data_init - make the initial content, of the data_size knob's default
 *
 * Return: 0 or -ENOMEM.
 */
int cb_data_init(void)
{
	struct cb_knobs k;
	struct cb_databuf *db;

	cb_knobs_get(&k);
	db = cb_databuf_new(k.data_size);
	if (IS_ERR(db))
		return PTR_ERR(db);
	cb_data = db;
	return 0;
}

/* The inode's size is the content's (cb_data_lock held). */
static void cb_data_set_isize(struct inode *inode, u64 size)
{
	if (i_size_read(inode) == size)
		return;
	inode_lock(inode);
	i_size_write(inode, size);
	inode_unlock(inode);
}

/**
 * cb_data_created - the data file exists: give its inode the content's size
 * @dentry: the file's dentry
 */
void cb_data_created(struct dentry *dentry)
{
	mutex_lock(&cb_data_lock);
	cb_data_dentry = dentry;
	cb_data_set_isize(d_inode(dentry), cb_data->size);
	mutex_unlock(&cb_data_lock);
}

/**
 * cb_data_exit - free the content; idempotent, after the files are removed
 */
void cb_data_exit(void)
{
	cb_databuf_put(cb_data);
	cb_data = NULL;
	cb_data_dentry = NULL;
}

static ssize_t cb_data_size_read(struct file *file, char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct cb_knobs k;
	char buf[32];
	int len;

	cb_knobs_get(&k);
	len = cb_knob_show(CB_K_data_size, buf, sizeof(buf), &k);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * data_size: parsed as the CB_KNOB list says; a new buffer, allocated and
 * filled before it replaces the old, with the knob and the inode's size in
 * the same step. Not frozen by a run, which never reads it.
 */
static ssize_t cb_data_size_write(struct file *file, const char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	struct cb_databuf *db;
	struct cb_knobs k;
	char buf[32];
	char *s;
	int ret;

	s = cb_user_string("data_size", ubuf, count, buf, sizeof(buf));
	if (IS_ERR(s))
		return PTR_ERR(s);
	cb_knobs_get(&k);
	ret = cb_knob_parse(CB_K_data_size, s, &k);
	if (ret)
		return ret;

	db = cb_databuf_new(k.data_size);
	if (IS_ERR(db)) {
		mutex_lock(&cb_data_lock);
		k.data_size = cb_data->size;
		mutex_unlock(&cb_data_lock);
		if (PTR_ERR(db) == -EINTR)
			return cb_refuse_value("data_size", -EINTR, s,
					       "not taken: a fatal signal stopped the fill; data_size stays %llu",
					       k.data_size);
		return cb_refuse_value("data_size", -ENOMEM, s,
				       "bytes cannot be allocated (the writer's memory cgroup limit, or low memory); data_size stays %llu",
				       k.data_size);
	}

	mutex_lock(&cb_data_lock);
	swap(cb_data, db);
	cb_knob_set(CB_K_data_size, &k);
	if (cb_data_dentry)
		cb_data_set_isize(d_inode(cb_data_dentry), k.data_size);
	mutex_unlock(&cb_data_lock);
	cb_databuf_put(db);
	return count;
}

const struct file_operations cb_data_size_fops = {
	.owner	= THIS_MODULE,
	.open	= cb_open_no_pos_lock,
	.read	= cb_data_size_read,
	.write	= cb_data_size_write,
	.llseek	= default_llseek,
};

/*
 * An open takes the current content and the variant and data_chunk knobs.
 * O_TRUNC is refused here, before the VFS would truncate: the size is
 * data_size's (truncate(2) and ftruncate(2) cannot be refused without
 * replacing debugfs' inode operations; an open gives the inode the
 * content's size back).
 */
static int cb_data_open(struct inode *inode, struct file *file)
{
	struct cb_data_file *f;
	struct cb_knobs k;

	if (file->f_flags & O_TRUNC)
		return cb_refuse("data", -EINVAL,
				 "an open with O_TRUNC is refused: the size is data_size's (open without O_TRUNC, in a shell 1<> rather than >, and write data_size to resize)");
	f = kmalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	cb_knobs_get(&k);
	f->variant = k.variant;
	f->chunk = k.data_chunk ?: CB_DATA_CHUNK_MAX;
	mutex_lock(&cb_data_lock);
	f->db = cb_data;
	kref_get(&f->db->ref);
	cb_data_set_isize(inode, f->db->size);
	mutex_unlock(&cb_data_lock);
	file->private_data = f;
	return 0;
}

static int cb_data_release(struct inode *inode, struct file *file)
{
	struct cb_data_file *f = file->private_data;

	cb_databuf_put(f->db);
	kfree(f);
	return 0;
}

/* Regular-file positions: seeking past the end is allowed, SEEK_END is the size. */
static loff_t cb_data_llseek(struct file *file, loff_t offset, int whence)
{
	struct cb_data_file *f = file->private_data;

	return generic_file_llseek_size(file, offset, whence, MAX_LFS_FILESIZE, f->db->size);
}

/*
 * cb_data_xfer - the body of read_iter() and write_iter(): copy between the
 * content at the kiocb's position and the iter, in the iter's direction, one
 * variant call per chunk (at most f->chunk bytes, never across a multiple of
 * it in file position), with a fatal-signal check and a rescheduling point
 * (an RCU Tasks quiescent state, as in the fill) before each. Under
 * IOCB_NOWAIT (io_uring's first, inline try, in the submitter's
 * io_uring_enter() or its SQPOLL thread) it copies one chunk and stops
 * where it would reschedule: io_uring completes the rest from an io-wq
 * worker, as for a short read of any regular file. Returns the bytes
 * copied, 0 at the end for a read; or -EFAULT, -ENOSPC, -EINTR,
 * -EOPNOTSUPP when nothing was.
 */
static ssize_t cb_data_xfer(struct kiocb *iocb, struct iov_iter *iter)
{
	struct cb_data_file *f = iocb->ki_filp->private_data;
	bool read = iov_iter_rw(iter) == ITER_DEST;
	const struct cb_kvariant *v = f->variant;
	u64 size = f->db->size, chunk = f->chunk;
	loff_t pos = iocb->ki_pos;
	size_t count = iov_iter_count(iter), done = 0, n;
	ssize_t got, ret = -EFAULT;
	u64 t0 = 0;

	if (!read && (iocb->ki_flags & IOCB_APPEND))
		pos = size;
	if (pos < 0)
		return -EINVAL;
	if (!count)
		return 0;
	if (pos >= size)
		return read ? 0 : -ENOSPC;
	count = min_t(u64, count, size - pos);

	if (read ? trace_copybench_data_read_enabled() : trace_copybench_data_write_enabled())
		t0 = rdtsc_ordered();

	while (done < count) {
		u64 at = pos + done;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		n = min_t(u64, count - done, chunk - at % chunk);
		got = cb_kvariant_copy_iter(v, f->db->buf + at, n, iter);
		if (got < 0) {
			ret = got;
			break;
		}
		done += got;
		if (got < n || (iocb->ki_flags & IOCB_NOWAIT))
			break;
		cond_resched_tasks_rcu_qs();
	}
	if (done)
		ret = done;

	if (t0) {
		u64 cycles = rdtsc_ordered() - t0;

		if (read)
			trace_copybench_data_read(v->name, pos, count, ret, f->chunk, cycles);
		else
			trace_copybench_data_write(v->name, pos, count, ret, f->chunk, cycles);
	}
	if (done)
		iocb->ki_pos = pos + done;
	return ret;
}

/*
 * Two entry points, one body: tools probe a read and a write apart
 * (tools/bpftrace/copysize.bt attaches to cb_data_read* and cb_data_write*).
 */
static ssize_t cb_data_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	return cb_data_xfer(iocb, to);
}

static ssize_t cb_data_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return cb_data_xfer(iocb, from);
}

const struct file_operations cb_data_fops = {
	.owner		= THIS_MODULE,
	.open		= cb_data_open,
	.release	= cb_data_release,
	.read_iter	= cb_data_read_iter,
	.write_iter	= cb_data_write_iter,
	.llseek		= cb_data_llseek,
};
