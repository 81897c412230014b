// SPDX-License-Identifier: GPL-2.0
/*
 * cb_data.c - the data file, /sys/kernel/debug/copybench/data: a read path
 * whose copy to (and from) the caller's buffer is done by a chosen variant.
 *
 * The content lives in a vmalloc()ed buffer of data_size bytes, filled with
 * cb_data_byte(p) at every position p (copybench.h), so any reader can check
 * every byte it got. Each open() takes a reference to the current buffer and
 * snapshots the knobs "variant" and "data_chunk": a later write to
 * data_size installs a new buffer for later opens while open files keep
 * theirs, and a later variant change affects later opens only.
 *
 * read()/pread() copy from the buffer to the caller, write()/pwrite() from
 * the caller to the buffer, in calls of at most data_chunk bytes that never
 * cross a multiple of data_chunk in file position. That is how the page
 * cache read path copies: filemap_read() copies folio by folio, one
 * copy_to_iter() call per folio, and most page cache folios are one page,
 * hence the default of 4096; a larger data_chunk models large folios, 0 one
 * call per read(). Between chunks the loop does what filemap_read() does:
 * stop on a fatal signal, cond_resched().
 *
 * Faults behave as with any file: a read or write whose user buffer becomes
 * inaccessible part-way returns the bytes copied before the first
 * inaccessible byte, or -EFAULT when there are none. Reads at or past the
 * end return 0; writes there fail with -ENOSPC; either is short when it
 * reaches the end. Concurrent readers and writers of one buffer are not
 * serialised (no page locks): a reader racing a writer may see a mix.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
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
	u64 chunk;
};

static struct cb_databuf *cb_data;	/* the current buffer, under cb_lock */
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

/* A buffer of size bytes holding cb_data_byte(p) at every p. */
static struct cb_databuf *cb_databuf_new(u64 size)
{
	struct cb_databuf *db;
	u32 h = 0;
	u64 p;

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return ERR_PTR(-ENOMEM);
	db->buf = __vmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!db->buf) {
		kfree(db);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&db->ref);
	db->size = size;

	/* cb_data_byte(p) is the top byte of p * 0x9E3779B1 mod 2^32. */
	for (p = 0; p < size; p++, h += 0x9E3779B1u) {
		db->buf[p] = h >> 24;
		if (!((p + 1) & (PAGE_SIZE - 1)))
			cond_resched();
	}
	return db;
}

u64 cb_data_size(void)
{
	lockdep_assert_held(&cb_lock);
	return cb_data->size;
}

int cb_data_init(u64 size)
{
	struct cb_databuf *db = cb_databuf_new(size);

	if (IS_ERR(db))
		return PTR_ERR(db);
	cb_data = db;
	return 0;
}

/*
 * cb_data_resize - replace the content by a new buffer of size bytes in the
 * initial pattern (also when size is unchanged: writing data_size refills).
 * -EBUSY while a run is in progress, -ENOMEM; the old content stays then.
 */
int cb_data_resize(u64 size)
{
	struct cb_databuf *db = cb_databuf_new(size);
	struct inode *inode;

	if (IS_ERR(db))
		return PTR_ERR(db);

	mutex_lock(&cb_lock);
	if (cb_running) {
		mutex_unlock(&cb_lock);
		cb_databuf_put(db);
		return -EBUSY;
	}
	swap(cb_data, db);
	if (cb_data_dentry) {
		inode = d_inode(cb_data_dentry);
		inode_lock(inode);
		i_size_write(inode, size);
		inode_unlock(inode);
	}
	mutex_unlock(&cb_lock);
	cb_databuf_put(db);
	return 0;
}

static int cb_data_open(struct inode *inode, struct file *file)
{
	struct cb_data_file *f = kmalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_lock(&cb_lock);
	f->db = cb_data;
	kref_get(&f->db->ref);
	f->variant = cb_knobs.variant;
	f->chunk = cb_knobs.data_chunk;
	mutex_unlock(&cb_lock);
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
 * cb_data_xfer - the body of read() (dir CB_DIR_to_user) and write()
 * (CB_DIR_from_user): copy up to count bytes between the user buffer and
 * the content at *ppos, chunk by chunk. Returns the bytes copied, 0 at the
 * end for a read, or -EFAULT, -ENOSPC, -EINTR when nothing was copied.
 */
static ssize_t cb_data_xfer(struct cb_data_file *f, char __user *ubuf, size_t count,
			    loff_t *ppos, enum cb_direction dir)
{
	const struct cb_kvariant *v = f->variant;
	u8 *buf = f->db->buf;
	u64 size = f->db->size;
	loff_t pos = *ppos;
	unsigned long left = 0;
	size_t done = 0, n;
	u64 t0 = 0;
	ssize_t ret;

	if (pos < 0)
		return -EINVAL;
	if (!count)
		return 0;
	if (pos >= size)
		return dir == CB_DIR_to_user ? 0 : -ENOSPC;
	count = min_t(u64, count, size - pos);
	if (!access_ok(ubuf, count))
		return -EFAULT;

	if (dir == CB_DIR_to_user ? trace_copybench_data_read_enabled() :
				    trace_copybench_data_write_enabled())
		t0 = rdtsc_ordered();

	while (done < count) {
		u64 at = pos + done;

		n = count - done;
		if (f->chunk)
			n = min_t(u64, n, f->chunk - at % f->chunk);
		if (dir == CB_DIR_to_user)
			left = cb_kvariant_copy(v, dir, (void __force *)ubuf + done,
						buf + at, n);
		else
			left = cb_kvariant_copy(v, dir, buf + at,
						(const void __force *)ubuf + done, n);
		done += n - left;
		if (left || done == count)
			break;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}

	/* Only a fault stops the loop before a first byte is copied. */
	ret = done ? done : -EFAULT;

	if (t0) {
		u64 cycles = rdtsc_ordered() - t0;

		if (dir == CB_DIR_to_user)
			trace_copybench_data_read(v->name, pos, count, ret, f->chunk, cycles);
		else
			trace_copybench_data_write(v->name, pos, count, ret, f->chunk, cycles);
	}
	if (done)
		*ppos = pos + done;
	return ret;
}

static ssize_t cb_data_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	return cb_data_xfer(file->private_data, ubuf, count, ppos, CB_DIR_to_user);
}

static ssize_t cb_data_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	return cb_data_xfer(file->private_data, (char __user *)ubuf, count, ppos,
			    CB_DIR_from_user);
}

static const struct file_operations cb_data_fops = {
	.owner		= THIS_MODULE,
	.open		= cb_data_open,
	.release	= cb_data_release,
	.read		= cb_data_read,
	.write		= cb_data_write,
	.llseek		= cb_data_llseek,
};

void cb_data_create_file(struct dentry *dir)
{
	mutex_lock(&cb_lock);
	cb_data_dentry = debugfs_create_file_unsafe("data", 0600, dir, NULL, &cb_data_fops);
	if (IS_ERR(cb_data_dentry))
		cb_data_dentry = NULL;
	else
		i_size_write(d_inode(cb_data_dentry), cb_data->size);
	mutex_unlock(&cb_lock);
}

/* Idempotent; the caller has removed the debugfs files. */
void cb_data_exit(void)
{
	cb_data_dentry = NULL;
	cb_databuf_put(cb_data);
	cb_data = NULL;
}
