// SPDX-License-Identifier: GPL-2.0
/*
 * readers_source.c - what readers reads from, and how it knows the bytes.
 *
 * Three kinds of source:
 *   memcpy:VARIANT  each thread copies from its own buffer with the
 *                   userspace build of VARIANT (copy_variants.h): no kernel
 *   the module's data file  copybench.ko's read path, whose copy is the
 *                   module's "variant" knob, set here and restored after
 *   any other file  the running kernel's own read path (tmpfs, page cache)
 *
 * Known content is the data file's: the byte at position p is
 * cb_data_byte(p) (copybench.h). memcpy sources are filled with it, files
 * can be written with it (--fill), and a file is recognised as holding it
 * when its first bytes match.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "readers.h"
#include "lib/cb_debugfs.h"

/* Bytes of a file compared to recognise the known content. */
#define RD_RECOGNISE_BYTES	4096
/* Below this chunk the syscall dominates: verify byte by byte. */
#define RD_SUMS_MIN_CHUNK	4096
#define RD_SUMS_MAX_COUNT	(1ULL << 20)

/*
 * rd_fill_content - write the known content of positions pos..pos+len-1.
 * The product (u32)p * CB_DATA_MULT advances by the constant for every
 * byte, so one add per byte gives cb_data_byte(p) (copybench.h).
 */
void rd_fill_content(unsigned char *buf, uint64_t pos, uint64_t len)
{
	uint32_t x = (uint32_t)pos * CB_DATA_MULT;
	uint64_t i;

	for (i = 0; i < len; i++) {
		buf[i] = x >> 24;
		x += CB_DATA_MULT;
	}
}

/*
 * rd_first_mismatch - index of the first byte of p[0..len) that is not the
 * known content of position pos + index, or -1 when all match.
 */
int64_t rd_first_mismatch(const unsigned char *p, uint64_t pos, uint64_t len)
{
	uint32_t x = (uint32_t)pos * CB_DATA_MULT;
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != (unsigned char)(x >> 24))
			return (int64_t)i;
		x += CB_DATA_MULT;
	}
	return -1;
}

/*
 * rd_checksum - position-weighted checksum of len bytes: eight lanes of
 * 64-bit words, each lane a running sum (a) and a sum of running sums (b),
 * as in Fletcher's checksum. Any single changed byte changes a; swapped or
 * shifted words change b. It reads every byte once at close to load
 * bandwidth, which is what --touch all should cost.
 */
/* Two 64-bit lanes: SSE2, which every x86-64 CPU has. */
typedef uint64_t rd_v2 __attribute__((vector_size(16)));

static inline rd_v2 rd_load(const unsigned char *p)
{
	rd_v2 w;

	memcpy(&w, p, sizeof(w));	/* one unaligned 16-byte load */
	return w;
}

struct rd_sum rd_checksum(const unsigned char *p, uint64_t len)
{
	rd_v2 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
	rd_v2 b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
	unsigned char tail[64];
	struct rd_sum s;
	uint64_t i;

	for (i = 0; i + 64 <= len; i += 64) {
		a0 += rd_load(p + i);
		a1 += rd_load(p + i + 16);
		a2 += rd_load(p + i + 32);
		a3 += rd_load(p + i + 48);
		b0 += a0;
		b1 += a1;
		b2 += a2;
		b3 += a3;
	}
	if (i < len) {
		/* The tail, zero-padded, with its length mixed in. */
		memset(tail, 0, sizeof(tail));
		memcpy(tail, p + i, len - i);
		a0 += rd_load(tail) + (rd_v2){ len - i, 0 };
		a1 += rd_load(tail + 16);
		a2 += rd_load(tail + 32);
		a3 += rd_load(tail + 48);
		b0 += a0;
		b1 += a1;
		b2 += a2;
		b3 += a3;
	}
	/* Odd weights keep a change in any one of the 8 lanes visible. */
	s.a = a0[0] + 3 * a0[1] + 5 * a1[0] + 7 * a1[1] +
	      9 * a2[0] + 11 * a2[1] + 13 * a3[0] + 15 * a3[1];
	s.b = b0[0] + 3 * b0[1] + 5 * b1[0] + 7 * b1[1] +
	      9 * b2[0] + 11 * b2[1] + 13 * b3[0] + 15 * b3[1];
	return s;
}

/*
 * rd_sums_build - the checksum of every chunk-aligned span of a known
 * source of size bytes, computed before any timing. Reads at those spans
 * (all of them, unless a read came back short) are then verified with one
 * checksum compare; anything else is compared byte by byte.
 */
int rd_sums_build(struct rd_sums *sums, uint64_t size, uint64_t chunk)
{
	unsigned char *ref;
	uint64_t k;

	memset(sums, 0, sizeof(*sums));
	sums->size = size;
	sums->chunk = chunk;
	sums->count = (size + chunk - 1) / chunk;
	if (chunk < RD_SUMS_MIN_CHUNK || sums->count > RD_SUMS_MAX_COUNT)
		return 0;

	sums->sum = calloc(sums->count, sizeof(*sums->sum));
	ref = malloc(chunk);
	if (!sums->sum || !ref) {
		free(ref);
		rd_sums_free(sums);
		return -ENOMEM;
	}
	for (k = 0; k < sums->count; k++) {
		uint64_t pos = k * chunk;
		uint64_t len = size - pos < chunk ? size - pos : chunk;

		rd_fill_content(ref, pos, len);
		sums->sum[k] = rd_checksum(ref, len);
	}
	free(ref);
	return 0;
}

void rd_sums_free(struct rd_sums *sums)
{
	free(sums->sum);
	sums->sum = NULL;
}

/*
 * rd_fill_file - write size bytes of known content to path (created or
 * truncated); corrupt_at >= 0 flips that byte, to prove a verifier fails.
 */
int rd_fill_file(const char *path, uint64_t size, int64_t corrupt_at)
{
	const uint64_t block = 1 << 20;
	unsigned char *buf;
	uint64_t pos = 0;
	int fd, ret = 0;

	buf = malloc(block);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto free_buf;
	}
	while (pos < size) {
		uint64_t len = size - pos < block ? size - pos : block;
		uint64_t done = 0;

		rd_fill_content(buf, pos, len);
		if (corrupt_at >= 0 && (uint64_t)corrupt_at >= pos &&
		    (uint64_t)corrupt_at < pos + len)
			buf[corrupt_at - pos] ^= 0xff;
		while (done < len) {
			ssize_t n = write(fd, buf + done, len - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				ret = n < 0 ? -errno : -EIO;
				goto close_fd;
			}
			done += n;
		}
		pos += len;
	}
close_fd:
	if (close(fd) && !ret)
		ret = -errno;
free_buf:
	free(buf);
	return ret;
}

/* ---- the module's knobs ---- */

/* A knob's value, without its trailing newline and spaces. */
int rd_knob_read(const char *path, char *val, size_t len)
{
	ssize_t n = cbfs_file_read(path, val, len);

	if (n < 0)
		return (int)n;
	while (n > 0 && (val[n - 1] == '\n' || val[n - 1] == ' '))
		n--;
	val[n] = '\0';
	return 0;
}

bool rd_module_present(void)
{
	return access(RD_DATA_PATH, R_OK) == 0;
}

/*
 * rd_module_variants - the module's variants, one "name usable|unusable
 * description" line each; returns how many, or -errno.
 */
int rd_module_variants(char names[][RD_NAME_MAX], bool *usable, int max)
{
	char line[512], state[32];
	int n = 0;
	FILE *f;

	f = fopen(RD_VARIANTS_LIST, "re");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		char name[RD_NAME_MAX];

		if (sscanf(line, "%63s %31s", name, state) != 2)
			continue;
		snprintf(names[n], RD_NAME_MAX, "%s", name);
		usable[n] = !strcmp(state, "usable");
		n++;
	}
	fclose(f);
	return n;
}

/* The knob's value before readers changed it; restored on every exit. */
static char rd_variant_saved[RD_NAME_MAX];
static atomic_int rd_variant_armed;	/* lock-free: signal-safe */

/*
 * rd_variant_set - point the module's data file at a variant for the opens
 * that follow, remembering the value to restore.
 */
int rd_variant_set(const char *name, char *err, size_t errlen)
{
	int ret;

	if (!atomic_load(&rd_variant_armed)) {
		ret = rd_knob_read(RD_VARIANT_KNOB, rd_variant_saved,
				   sizeof(rd_variant_saved));
		if (ret) {
			snprintf(err, errlen, "cannot read %s: %s",
				 RD_VARIANT_KNOB, strerror(-ret));
			return ret;
		}
		atomic_store(&rd_variant_armed, 1);
	}
	ret = cbfs_file_write(RD_VARIANT_KNOB, name, strlen(name));
	if (ret == -EINVAL)
		snprintf(err, errlen, "the module has no variant '%s' (see %s)",
			 name, RD_VARIANTS_LIST);
	else if (ret == -EOPNOTSUPP)
		snprintf(err, errlen, "variant '%s' is unusable on this CPU (see %s)",
			 name, RD_VARIANTS_LIST);
	else if (ret)
		snprintf(err, errlen, "cannot write '%s' to %s: %s", name,
			 RD_VARIANT_KNOB, strerror(-ret));
	return ret;
}

/* Put the knob back; idempotent; async-signal-safe. */
void rd_variant_restore_async(void)
{
	if (!atomic_exchange(&rd_variant_armed, 0))
		return;
	cbfs_file_write(RD_VARIANT_KNOB, rd_variant_saved, strlen(rd_variant_saved));
}

void rd_variant_restore(void)
{
	int ret;

	if (!atomic_exchange(&rd_variant_armed, 0))
		return;
	ret = cbfs_file_write(RD_VARIANT_KNOB, rd_variant_saved,
			      strlen(rd_variant_saved));
	if (ret)
		fprintf(stderr, "readers: warning: cannot restore %s to '%s': %s\n",
			RD_VARIANT_KNOB, rd_variant_saved, strerror(-ret));
}

/* ---- opening a source ---- */

static int rd_source_memcpy(struct rd_source *src, const char *name,
			    char *err, size_t errlen)
{
	const struct cb_variant *v;
	size_t used = 0;
	unsigned int i;

	v = cb_variant_find(name);
	if (!v) {
		used = snprintf(err, errlen, "invalid --source 'memcpy:%s': no such variant (accepted:",
				name);
		for (i = 0; i < cb_variant_count() && used < errlen; i++)
			used += snprintf(err + used, errlen - used, " %s",
					 cb_variant_at(i)->name);
		if (used < errlen)
			snprintf(err + used, errlen - used, ")");
		return RD_EXIT_USAGE;
	}
	if (!cb_variant_usable(v)) {
		snprintf(err, errlen, "invalid --source 'memcpy:%s': variant unusable on this CPU",
			 name);
		return RD_EXIT_USAGE;
	}
	src->kind = RD_SRC_MEMCPY;
	src->uvariant = v;
	snprintf(src->variant, sizeof(src->variant), "%s", v->name);
	src->seekable = true;
	src->known_content = true;
	src->content_note = "memcpy source filled with the known content";
	return 0;
}

/* A regular file holds the known content if its first bytes do. */
static void rd_source_recognise(struct rd_source *src, int fd)
{
	unsigned char buf[RD_RECOGNISE_BYTES];
	uint64_t want = src->size < sizeof(buf) ? src->size : sizeof(buf);
	ssize_t n;

	n = pread(fd, buf, want, 0);
	if (n == (ssize_t)want && rd_first_mismatch(buf, 0, want) < 0) {
		src->known_content = true;
		src->content_note = "file content recognised as the known pattern";
	} else {
		src->content_note = "file content is not the known pattern (readers --fill writes it)";
	}
}

/*
 * rd_source_open - parse --source: "memcpy", "memcpy:VARIANT" or a path.
 * Returns 0, or an exit status with err filled in.
 */
int rd_source_open(struct rd_source *src, const char *spec, char *err, size_t errlen)
{
	char real[4096], knob[64];
	struct stat st;
	int fd;

	memset(src, 0, sizeof(*src));
	if (!strcmp(spec, "memcpy"))
		return rd_source_memcpy(src, CB_NATIVE_NAME, err, errlen);
	if (!strncmp(spec, "memcpy:", 7))
		return rd_source_memcpy(src, spec + 7, err, errlen);

	if (strlen(spec) >= sizeof(src->path)) {
		snprintf(err, errlen, "invalid --source: path too long");
		return RD_EXIT_USAGE;
	}
	snprintf(src->path, sizeof(src->path), "%s", spec);
	fd = open(spec, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "invalid --source '%s': %s (accepted: a readable file, memcpy or memcpy:VARIANT)",
			 spec, strerror(errno));
		return RD_EXIT_USAGE;
	}
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "invalid --source '%s': %s", spec,
			 S_ISDIR(st.st_mode) ? "a directory" : strerror(errno));
		close(fd);
		return RD_EXIT_USAGE;
	}
	src->seekable = lseek(fd, 0, SEEK_CUR) != (off_t)-1;
	if (realpath(spec, real) && !strcmp(real, RD_DATA_PATH)) {
		src->kind = RD_SRC_MODULE;
		src->known_content = true;
		src->content_note = "the module's data file holds the known content";
		if (rd_knob_read(RD_VARIANT_KNOB, src->variant, sizeof(src->variant)))
			snprintf(src->variant, sizeof(src->variant), "?");
		if (st.st_size > 0) {
			src->size = st.st_size;
		} else if (!rd_knob_read(RD_DATA_SIZE_KNOB, knob, sizeof(knob))) {
			char *end;

			errno = 0;
			src->size = strtoull(knob, &end, 0);
			if (errno || *end)
				src->size = 0;
		}
	} else {
		src->kind = RD_SRC_FILE;
		snprintf(src->variant, sizeof(src->variant), "%s", CB_NATIVE_NAME);
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			src->size = st.st_size;
		if (S_ISREG(st.st_mode) && src->size)
			rd_source_recognise(src, fd);
		else
			src->content_note = "not a regular file of known size";
	}
	close(fd);
	return 0;
}
