// SPDX-License-Identifier: GPL-2.0
/*
 * stress_fuzz.c - a seeded, reproducible fuzz of copybench.ko's debugfs
 * interface.
 *
 * CB_FUZZ_OPS operations (default 5000) drawn from CB_FUZZ_SEED (default:
 * a fresh seed, printed first and again on a failure): random and edge
 * values, garbage, embedded NULs and faulting pointers written to every
 * knob and to data_size; reads and writes of the data file at odd
 * positions, lengths and user pointers (some ending in an inaccessible
 * page); runs with bounded knobs; reopened data files. A model of every
 * value checks each answer: a refused write leaves the value as it was, an
 * accepted one reads back exactly, every byte read is the byte the model
 * says, a faulting transfer stops exactly at the fault. The test ends with
 * a clean unload, a clean kernel log, and the module loaded again.
 *
 * Reproduce a failure: CB_FUZZ_SEED=<seed> [CB_FUZZ_OPS=<n>] stress_fuzz
 * (the module must be loaded; COPYBENCH_KO names it for the reload).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The harness's TEST_F wrapper keeps a pid across setjmp(); with -Wextra gcc
 * warns about it in every test it expands to. Not this file's variable.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#include "cb_test_lib.h"

#define FZ_DATA_MAX		(1UL << 20)	/* accepted data_size values stay below */
#define FZ_IO_MAX		(3 * 65536)	/* bytes per data read or write */
#define FZ_LOG			16		/* operations shown on a failure */
#define FZ_VALUE_MAX		160		/* bytes of one written value */
#define FZ_UNKNOWN		1		/* the model cannot tell */

/* How a knob's value is checked. */
enum fz_kind { FZ_NUM, FZ_CPU, FZ_DIRECTION, FZ_CACHE, FZ_VARIANT, FZ_OTHER };

struct fz_rule {
	const char *name;
	enum fz_kind kind;
	unsigned long long min, max;
};

/* The documented ranges (Documentation/copybench.rst, copybench.h). */
static const struct fz_rule fz_rules[] = {
	{ "variant",	FZ_VARIANT, 0, 0 },
	{ "direction",	FZ_DIRECTION, 0, 0 },
	{ "size",	FZ_NUM, 0, CB_SIZE_MAX },
	{ "src_offset",	FZ_NUM, 0, CB_OFFSET_MAX },
	{ "dst_offset",	FZ_NUM, 0, CB_OFFSET_MAX },
	{ "cache",	FZ_CACHE, 0, 0 },
	{ "loops",	FZ_NUM, 0, CB_LOOPS_MAX },
	{ "samples",	FZ_NUM, CB_SAMPLES_MIN, CB_SAMPLES_MAX },
	{ "cpu",	FZ_CPU, 0, 0 },
	{ "baseline",	FZ_NUM, 0, 1 },
	{ "chain",	FZ_NUM, 0, 1 },
	{ "max_run_ms",	FZ_NUM, CB_MAX_RUN_MS_MIN, CB_MAX_RUN_MS_MAX },
	{ "data_chunk",	FZ_NUM, 0, CB_DATA_CHUNK_MAX },
	{ "data_size",	FZ_NUM, CB_DATA_SIZE_MIN, CB_DATA_SIZE_MAX },
};

/* The fuzzer's model of the module and its own state. */
struct fz {
	struct cb_rng rng;
	unsigned long long seed;
	int op;
	char log[FZ_LOG][200];
	char why[512];
	/* knobs: the names of CB_FILE that are knobs, with their rules */
	const char *knob[CB_NFILES];
	const struct fz_rule *rule[CB_NFILES];
	int nknobs;
	struct cb_variant variants[CB_MAX_VARIANTS];
	int nvariants;
	int ncpus;
	bool online[4096];
	/* the data file: one open descriptor and the content it sees */
	int fd;
	unsigned char *shadow;
	size_t shadow_size;
	bool resized;		/* data_size written since fd was opened */
	struct cb_guarded io;
	struct cb_guarded val;	/* for values written from odd pointers */
	int runs, refused, accepted, data_ops;
};

static void fz_note(struct fz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->log[f->op % FZ_LOG], sizeof(f->log[0]), fmt, ap);
	va_end(ap);
}

/* Record why the current operation failed; returns false. */
static bool fz_fail(struct fz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	return false;
}

static void fz_dump(struct fz *f)
{
	int i = f->op >= FZ_LOG ? f->op - FZ_LOG + 1 : 0;

	for (; i <= f->op; i++)
		fprintf(stderr, "#   op %d: %s\n", i, f->log[i % FZ_LOG]);
	fprintf(stderr, "# reproduce: CB_FUZZ_SEED=%llu CB_FUZZ_OPS=%d build/selftests/stress_fuzz\n",
		f->seed, f->op + 1);
}

/* A written value for the log: C escapes, at most 40 bytes shown. */
static const char *fz_show(const char *raw, size_t len)
{
	static char out[200];
	size_t i, o = 0;

	for (i = 0; i < len && i < 40 && o < sizeof(out) - 5; i++) {
		unsigned char c = raw[i];

		if (c == '\n')
			o += sprintf(out + o, "\\n");
		else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = '\0';
	return out;
}

static const struct fz_rule *fz_rule(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fz_rules); i++)
		if (!strcmp(fz_rules[i].name, name))
			return &fz_rules[i];
	return NULL;
}

/* The online CPUs, from /sys/devices/system/cpu/online ("0-1,3"). */
static void fz_read_online(struct fz *f)
{
	char buf[256], *p;

	cb_file_line("/sys/devices/system/cpu/online", buf, sizeof(buf));
	memset(f->online, 0, sizeof(f->online));
	f->ncpus = 0;
	for (p = buf; *p;) {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && a < 4096; a++) {
			f->online[a] = true;
			f->ncpus = a + 1;
		}
		if (*p != ',')
			break;
		p++;
	}
}

/* raw[0..len) without leading and trailing white space, into s (len < 64). */
static void fz_strip(char *s, const char *raw, size_t len)
{
	size_t a = 0, b = len;

	while (a < b && isspace((unsigned char)raw[a]))
		a++;
	while (b > a && isspace((unsigned char)raw[b - 1]))
		b--;
	memcpy(s, raw + a, b - a);
	s[b - a] = '\0';
}

/* A direction or cache knob: one of its names. */
static int fz_expect_name(const struct fz_rule *r, const char *s, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < (r->kind == FZ_CACHE ? CB_NCACHES : CB_NDIRECTIONS); i++) {
		const char *n = r->kind == FZ_CACHE ? cbfs_caches[i] : cbfs_directions[i];

		if (!strcmp(s, n)) {
			snprintf(out, outlen, "%s", n);
			return 0;
		}
	}
	return -EINVAL;
}

/* The variant knob: a variant's name, refused with EOPNOTSUPP when unusable. */
static int fz_expect_variant(struct fz *f, const char *s, char *out, size_t outlen)
{
	int i;

	for (i = 0; i < f->nvariants; i++) {
		if (strcmp(s, f->variants[i].name))
			continue;
		if (!f->variants[i].usable)
			return -EOPNOTSUPP;
		snprintf(out, outlen, "%s", f->variants[i].name);
		return 0;
	}
	return -EINVAL;
}

/* A number in the rule's min..max, or a cpu: -1 or an online CPU. */
static int fz_expect_num(struct fz *f, const struct fz_rule *r, const char *s, char *out,
			 size_t outlen)
{
	unsigned long long v = 0;
	const char *p;

	/* cpu: -1 exactly (not "-01", not "-0"), or a plain number. */
	if (r->kind == FZ_CPU && !strcmp(s, "-1")) {
		snprintf(out, outlen, "-1");
		return 0;
	}
	for (p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		if (v > (~0ULL - (*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (*p - '0');
	}
	if (r->kind == FZ_CPU) {
		if (v >= 4096 || !f->online[v])
			return -EINVAL;
	} else if (v < r->min || v > r->max) {
		return -EINVAL;
	}
	snprintf(out, outlen, "%llu", v);
	return 0;
}

/*
 * What the module must answer to a write of raw[0..len): 0 with the value
 * it reads back in out, or the -errno of a refusal. Returns FZ_UNKNOWN when
 * the model cannot tell (a knob without a rule): then only the invariants
 * hold.
 */
static int fz_expect_str(struct fz *f, const struct fz_rule *r, const char *raw, size_t len,
			 char *out, size_t outlen)
{
	char s[FZ_VALUE_MAX + 1];

	if (!r)
		return FZ_UNKNOWN;
	/* Longer than any value can be: refused. */
	if (len >= 64)
		return -EINVAL;
	fz_strip(s, raw, len);
	if (!*s)
		return -EINVAL;

	switch (r->kind) {
	case FZ_DIRECTION:
	case FZ_CACHE:
		return fz_expect_name(r, s, out, outlen);
	case FZ_VARIANT:
		return fz_expect_variant(f, s, out, outlen);
	case FZ_NUM:
	case FZ_CPU:
		return fz_expect_num(f, r, s, out, outlen);
	case FZ_OTHER:
		break;
	}
	return FZ_UNKNOWN;
}

/*
 * As fz_expect_str(), and a write with an embedded NUL: the module may
 * read it as a C string, the part before the NUL (the kernel's parsers
 * do), or refuse the trailing bytes as garbage (EINVAL); *either says so.
 */
static int fz_expect(struct fz *f, const struct fz_rule *r, const char *raw, size_t len,
		     char *out, size_t outlen, bool *either)
{
	const char *nul = memchr(raw, '\0', len);
	int exp;

	*either = false;
	if (!nul || len >= 64)
		return fz_expect_str(f, r, raw, len, out, outlen);
	exp = fz_expect_str(f, r, raw, nul - raw, out, outlen);
	*either = exp == 0;
	return exp;
}

/*
 * The values that are not C strings: an embedded NUL after a valid-looking
 * value (pick < 95), or overlong: digits (pick < 98) or random bytes.
 */
static void fz_odd_value(struct fz *f, uint64_t pick, unsigned long long lo, char *s,
			 size_t *len)
{
	size_t i, n;

	if (pick < 95) {
		n = snprintf(s, FZ_VALUE_MAX, "%llu", lo);
		memcpy(s + n, "\0junk", 5);
		*len = n + 5;
		return;
	}
	n = 64 + cb_below(&f->rng, FZ_VALUE_MAX - 64);
	for (i = 0; i < n; i++)
		s[i] = pick < 98 ? '1' : (char)(1 + cb_below(&f->rng, 255));
	*len = n;
}

/* A value for a knob: valid, edge, or garbage; its length in *len. */
static void fz_value(struct fz *f, const struct fz_rule *r, char *s, size_t *len)
{
	static const char * const garbage[] = {
		"", " ", "\n", "0x10", "1e3", "+5", "-0", "5 5", "5x", "x", "010", "00",
		"1.0", "--1", "- 1", "\t7\t", "\xd9\xa3", "18446744073709551615",
		"18446744073709551616", "99999999999999999999999", "4294967296",
		"2147483648", "-2147483649", "nan", "native ", " bytes\n", "NATIVE", "to-user",
		"hot cold", "memcpy\n\n", "-1", "1\n2",
	};
	unsigned long long lo = r ? r->min : 0, hi = r ? r->max : 100;
	uint64_t pick = cb_below(&f->rng, 100);

	if (r && (r->kind == FZ_DIRECTION || r->kind == FZ_CACHE || r->kind == FZ_VARIANT) &&
	    pick < 60) {
		const char *name;

		if (r->kind == FZ_DIRECTION)
			name = cbfs_directions[cb_below(&f->rng, CB_NDIRECTIONS)];
		else if (r->kind == FZ_CACHE)
			name = cbfs_caches[cb_below(&f->rng, CB_NCACHES)];
		else
			name = f->variants[cb_below(&f->rng, f->nvariants)].name;
		snprintf(s, FZ_VALUE_MAX, "%s%s", name, pick < 30 ? "\n" : "");
	} else if (r && r->kind == FZ_CPU && pick < 60) {
		long cpu = (long)cb_below(&f->rng, f->ncpus + 3) - 1;

		snprintf(s, FZ_VALUE_MAX, "%ld\n", cpu);
	} else if (pick < 40) {
		/* In range, mostly small: runs stay short. */
		unsigned long long span = hi - lo;

		if (span > 70000 && cb_below(&f->rng, 4))
			span = 70000;
		snprintf(s, FZ_VALUE_MAX, "%llu%s", lo + cb_below(&f->rng, span + 1),
			 cb_below(&f->rng, 2) ? "\n" : "");
	} else if (pick < 60) {
		static const int delta[] = { -1, 0, 1 };
		unsigned long long base = cb_below(&f->rng, 2) ? lo : hi;

		snprintf(s, FZ_VALUE_MAX, "%lld", (long long)(base + delta[cb_below(&f->rng, 3)]));
	} else if (pick < 90) {
		snprintf(s, FZ_VALUE_MAX, "%s", garbage[cb_below(&f->rng, ARRAY_SIZE(garbage))]);
	} else {
		fz_odd_value(f, pick, lo, s, len);
		return;
	}
	*len = strlen(s);
}

/*
 * Write raw[0..len) to a file from a chosen user pointer: usually plain,
 * sometimes odd-aligned, sometimes with its last bytes in the guard page.
 * Returns 0 or -errno; *fault tells that the pointer was a faulting one.
 */
static int fz_write_from(struct fz *f, const char *name, const char *raw, size_t len,
			 bool *fault)
{
	uint64_t how = cb_below(&f->rng, 100);
	unsigned char *end = f->val.mem + f->val.len;
	unsigned char *p;
	size_t acc;

	*fault = false;
	if (how < 80 || !len)
		return cb_write_buf(name, raw, len);
	if (how < 92) {
		p = f->val.mem + 1 + 2 * cb_below(&f->rng, 64);
		memcpy(p, raw, len);
		return cb_write_buf(name, p, len);
	}
	*fault = true;
	acc = cb_below(&f->rng, len);
	p = end - acc;
	memcpy(p, raw, acc);
	return cb_write_buf(name, p, len);
}

/*
 * What a write from a faulting pointer must give: -EFAULT, or for an
 * overlong value either -EFAULT or -EINVAL (not checked).
 */
static int fz_fault_expect(size_t len)
{
	return len >= 64 ? FZ_UNKNOWN : -EFAULT;
}

static bool fz_knob_op(struct fz *f)
{
	int k = cb_below(&f->rng, f->nknobs);
	const char *name = f->knob[k];
	const struct fz_rule *r = f->rule[k];
	char raw[FZ_VALUE_MAX + 8], before[128], after[128], want[128] = "";
	size_t len = 0;
	bool fault, either;
	int exp, ret;

	fz_value(f, r, raw, &len);
	snprintf(before, sizeof(before), "%s", cb_value(name));
	exp = fz_expect(f, r, raw, len, want, sizeof(want), &either);
	ret = fz_write_from(f, name, raw, len, &fault);
	snprintf(after, sizeof(after), "%s", cb_value(name));
	fz_note(f, "write %s \"%s\"%s (%zu bytes): %d, now %s", name, fz_show(raw, len),
		fault ? " faulting" : "", len, ret, after);

	if (fault)
		exp = fz_fault_expect(len);
	if (ret) {
		f->refused++;
		if (strcmp(before, after))
			return fz_fail(f, "%s: refused write (%d) changed the value from %s to %s",
				       name, ret, before, after);
		if (either && ret == -EINVAL)
			return true;
		if (exp == 0)
			return fz_fail(f, "%s: valid value refused with %d (%s)", name, ret,
				       strerror(-ret));
		if (exp < 0 && ret != exp)
			return fz_fail(f, "%s: refused with %d (%s), want %d (%s)", name, ret,
				       strerror(-ret), exp, strerror(-exp));
		return true;
	}
	f->accepted++;
	if (exp < 0)
		return fz_fail(f, "%s: invalid value accepted (want %d %s); reads back \"%s\"",
			       name, exp, strerror(-exp), after);
	if (exp == 0 && strcmp(want, after))
		return fz_fail(f, "%s: accepted value reads back \"%s\", want \"%s\"", name,
			       after, want);
	return true;
}

/* The data file's content as the descriptor f->fd sees it. */
static void fz_shadow_fresh(struct fz *f, size_t size)
{
	size_t i;

	free(f->shadow);
	f->shadow = malloc(size);
	for (i = 0; i < size; i++)
		f->shadow[i] = cb_data_byte(i);
	f->shadow_size = size;
}

static bool fz_reopen(struct fz *f)
{
	long long size = cb_value_ll("data_size");

	if (f->fd >= 0)
		close(f->fd);
	f->fd = open(CB_DEBUGFS_DIR "/data", O_RDWR | O_CLOEXEC);
	fz_note(f, "reopen data (data_size %lld)%s", size, f->resized ? ", new buffer" : "");
	if (f->fd < 0)
		return fz_fail(f, "open data: %s", strerror(errno));
	if (size < 0)
		return fz_fail(f, "data_size unreadable");
	if (f->resized || !f->shadow || (size_t)size != f->shadow_size)
		fz_shadow_fresh(f, size);
	f->resized = false;
	return true;
}

static bool fz_data_size_op(struct fz *f)
{
	const struct fz_rule *r = fz_rule("data_size");
	char raw[FZ_VALUE_MAX + 8], want[64] = "", before[64], after[64];
	size_t len = 0;
	bool fault, either;
	int exp, ret;

	if (cb_below(&f->rng, 2)) {
		/* Accepted sizes stay small: the model holds a copy. */
		len = snprintf(raw, sizeof(raw), "%llu\n", (unsigned long long)
			       (CB_DATA_SIZE_MIN + cb_below(&f->rng, FZ_DATA_MAX - CB_DATA_SIZE_MIN)));
	} else {
		fz_value(f, r, raw, &len);
		if (len < 64 && !memchr(raw, '\0', len) &&
		    strtoull(raw, NULL, 10) > FZ_DATA_MAX &&
		    strtoull(raw, NULL, 10) <= CB_DATA_SIZE_MAX)
			len = snprintf(raw, sizeof(raw), "%lu", FZ_DATA_MAX);
	}
	snprintf(before, sizeof(before), "%s", cb_value("data_size"));
	exp = fz_expect(f, r, raw, len, want, sizeof(want), &either);
	ret = fz_write_from(f, "data_size", raw, len, &fault);
	snprintf(after, sizeof(after), "%s", cb_value("data_size"));
	fz_note(f, "write data_size \"%s\"%s: %d, now %s", fz_show(raw, len),
		fault ? " faulting" : "", ret, after);
	if (fault)
		exp = fz_fault_expect(len);
	if (ret) {
		if (strcmp(before, after))
			return fz_fail(f, "data_size: refused write changed it from %s to %s",
				       before, after);
		if (either && ret == -EINVAL)
			return true;
		if (exp == 0)
			return fz_fail(f, "data_size: valid value refused: %s", strerror(-ret));
		if (exp < 0 && ret != exp)
			return fz_fail(f, "data_size: refused with %d, want %d", ret, exp);
		return true;
	}
	if (exp < 0)
		return fz_fail(f, "data_size: invalid value accepted, now %s", after);
	if (exp == 0 && strcmp(want, after))
		return fz_fail(f, "data_size reads back %s, want %s", after, want);
	f->resized = true;
	return true;
}

/* A read or write of the data file at an odd position, length and pointer. */
/* A file position for a data op: the start, near or past the end, or anywhere. */
static unsigned long long fz_data_pos(struct fz *f, size_t size)
{
	switch (cb_below(&f->rng, 6)) {
	case 0:
		return 0;
	case 1:
		return size - 1 - cb_below(&f->rng, 8);
	case 2:
		return size + cb_below(&f->rng, 3);
	}
	return cb_below(&f->rng, size);
}

/*
 * What a pread or pwrite of len bytes at pos through p (acc of them
 * accessible) must have done against the model: got bytes, the right
 * errno, the bytes of the shadow (and the shadow updated by a write).
 */
static bool fz_data_check(struct fz *f, bool write, unsigned char *p, size_t len,
			  unsigned long long pos, size_t acc, ssize_t got)
{
	size_t size = f->shadow_size, want, i;
	long bad;

	want = !len || pos >= size ? 0 : len < size - pos ? len : size - pos;
	if (!len && got == 0)
		return true;
	if (pos >= size) {
		if (write && (got != -1 || errno != ENOSPC))
			return fz_fail(f, "pwrite at %llu past the end (%zu): %zd, want ENOSPC",
				       pos, size, got);
		if (!write && got != 0)
			return fz_fail(f, "pread at %llu past the end (%zu): %zd, want 0", pos,
				       size, got);
		return true;
	}
	if (acc < want)
		want = acc;
	if (!want) {
		if (got != -1 || errno != EFAULT)
			return fz_fail(f, "transfer with no accessible byte: %zd, want EFAULT",
				       got);
		return true;
	}
	if (got != (ssize_t)want)
		return fz_fail(f, "%s of %zu at %llu with %zu accessible: %zd, want %zu",
			       write ? "pwrite" : "pread", len, pos, acc, got, want);
	if (write) {
		memcpy(f->shadow + pos, p, got);
		return true;
	}
	for (bad = -1, i = 0; i < (size_t)got; i++)
		if (p[i] != f->shadow[pos + i]) {
			bad = i;
			break;
		}
	if (bad >= 0)
		return fz_fail(f, "pread at %llu: byte %ld is 0x%02x, want 0x%02x", pos, bad,
			       p[bad], f->shadow[pos + bad]);
	return true;
}

static bool fz_data_op(struct fz *f, bool write)
{
	size_t size = f->shadow_size, len, acc, i;
	unsigned long long pos = fz_data_pos(f, size);
	unsigned char *p;
	ssize_t got;
	int err;

	len = cb_below(&f->rng, 4) ? cb_below(&f->rng, 9000) : cb_below(&f->rng, FZ_IO_MAX);
	if (cb_below(&f->rng, 8)) {
		/* Accessible: at an odd offset inside the region. */
		p = f->io.mem + cb_below(&f->rng, f->io.len - len + 1);
		acc = len;
	} else {
		/* Ends in the guard page: only acc bytes are accessible. */
		acc = cb_below(&f->rng, len + 1);
		p = f->io.mem + f->io.len - acc;
	}
	if (write)
		for (i = 0; i < acc; i++)
			p[i] = cb_rand(&f->rng);
	else
		memset(p, 0x5a, acc);

	got = write ? pwrite(f->fd, p, len, pos) : pread(f->fd, p, len, pos);
	err = errno;
	fz_note(f, "%s data %zu at %llu (size %zu, %zu accessible): %zd%s", write ? "pwrite" :
		"pread", len, pos, size, acc, got, got < 0 ? strerror(err) : "");
	f->data_ops++;
	errno = err;
	return fz_data_check(f, write, p, len, pos, acc, got);
}

/* A run's bad verb: refused with EINVAL, the results unchanged. */
static bool fz_bad_run(struct fz *f)
{
	static const char * const bad[] = { "0", "2", "", "1x", "11", "-1", "1 1", "run" };
	const char *verb = bad[cb_below(&f->rng, ARRAY_SIZE(bad))];
	char res_before[4096], res_after[4096];
	int ret;

	cb_read("results", res_before, sizeof(res_before));
	ret = cb_write("run", verb);
	cb_read("results", res_after, sizeof(res_after));
	fz_note(f, "write run \"%s\": %d", verb, ret);
	if (ret != -EINVAL)
		return fz_fail(f, "run \"%s\": %d, want -EINVAL", verb, ret);
	if (strcmp(res_before, res_after))
		return fz_fail(f, "a refused run changed the results");
	return true;
}

/* Knobs that bound a run's time brought down to small values (valid writes). */
static void fz_bound_run(struct fz *f)
{
	if (cb_value_ll("size") > 65536)
		cb_writeu("size", cb_below(&f->rng, 65537));
	if (cb_value_ll("loops") > 4)
		cb_writeu("loops", cb_below(&f->rng, 5));
	if (cb_value_ll("samples") > 3)
		cb_writeu("samples", 1 + cb_below(&f->rng, 3));
	if (cb_value_ll("max_run_ms") > 100)
		cb_writeu("max_run_ms", 1 + cb_below(&f->rng, 100));
}

/* One run as fz_run_op() did it: what was asked, what came back, how long. */
struct fz_run {
	char dir[64], var[64];	/* the direction and variant knobs */
	int dir_i, v_i;		/* their indexes (v_i == nvariants: unknown) */
	long long ms, max_ms;	/* how long it took; the max_run_ms knob */
	int ret;		/* the write of "1" to run */
};

/*
 * A run's answer against the model: refused for a direction outside the
 * variant's list, ETIME only after max_run_ms, else verified results of
 * what was asked.
 */
static bool fz_run_check(struct fz *f, const struct fz_run *r)
{
	struct cb_res res;
	char line[256];

	if (r->v_i < f->nvariants && r->dir_i >= 0 &&
	    !(f->variants[r->v_i].dirs & (1U << r->dir_i)))
		return r->ret == -EOPNOTSUPP ? true :
			fz_fail(f, "run of %s in direction %s (not in its list): %d, want -EOPNOTSUPP",
				r->var, r->dir, r->ret);
	if (r->ret == -E2BIG)
		return true;
	/* ETIME: max_run_ms passed before one timed sample; not before it passed. */
	if (r->ret == -ETIME && r->ms < r->max_ms)
		return fz_fail(f, "run ended with ETIME after %lld ms, before its max_run_ms %lld",
			       r->ms, r->max_ms);
	if (r->ret == -ETIME)
		return true;
	if (r->ret)
		return fz_fail(f, "run failed: %d (%s)", r->ret, strerror(-r->ret));
	if (cb_parse_results(&res, line, sizeof(line)))
		return fz_fail(f, "run results malformed: %s", line);
	if (strcmp(cb_res_get(&res, "verified"), "1"))
		return fz_fail(f, "run results not verified");
	if (strcmp(cb_res_get(&res, "variant"), r->var) ||
	    strcmp(cb_res_get(&res, "direction"), r->dir))
		return fz_fail(f, "results of %s %s, want %s %s", cb_res_get(&res, "variant"),
			       cb_res_get(&res, "direction"), r->var, r->dir);
	return true;
}

/* A run: bounded knobs first (valid writes), then "1", or a bad verb. */
static bool fz_run_op(struct fz *f)
{
	struct fz_run r;
	double t0;

	if (cb_below(&f->rng, 5) == 0)
		return fz_bad_run(f);
	fz_bound_run(f);
	r.max_ms = cb_value_ll("max_run_ms");
	snprintf(r.dir, sizeof(r.dir), "%s", cb_value("direction"));
	snprintf(r.var, sizeof(r.var), "%s", cb_value("variant"));
	r.dir_i = cbfs_name_index(cbfs_directions, CB_NDIRECTIONS, r.dir);
	for (r.v_i = 0; r.v_i < f->nvariants && strcmp(r.var, f->variants[r.v_i].name); r.v_i++)
		;
	t0 = cb_now();
	r.ret = cb_do_run();
	r.ms = (cb_now() - t0) * 1000;
	fz_note(f, "run %s %s size %lld loops %lld samples %lld cache %s: %d in %lld ms", r.var,
		r.dir, cb_value_ll("size"), cb_value_ll("loops"), cb_value_ll("samples"),
		cb_value("cache"), r.ret, r.ms);
	f->runs++;
	if (r.ms > 100 + 60000)
		return fz_fail(f, "a run bounded by max_run_ms <= 100 took %lld ms", r.ms);
	return fz_run_check(f, &r);
}

FIXTURE(fuzz) {
	struct fz f;
	struct cb_saved saved;
	int kmsg;
	const char *ko;
};

FIXTURE_SETUP(fuzz)
{
	const char *why = cb_unavailable();
	int i;

	if (why)
		SKIP(return, "%s", why);
	self->ko = getenv("COPYBENCH_KO");
	if (!self->ko || access(self->ko, R_OK))
		SKIP(return, "COPYBENCH_KO (the module file, to reload it) not set or unreadable");
	cb_save(&self->saved);
	memset(&self->f, 0, sizeof(self->f));
	self->f.fd = -1;
	self->f.seed = cb_seed("CB_FUZZ_SEED");
	self->f.rng.s = self->f.seed;
	/* Every knob but data_size, which has its own operation (its model holds a copy). */
	for (i = 0; i < CB_NFILES; i++) {
		if (!cb_is_knob(i) || i == CBF_data_size)
			continue;
		self->f.knob[self->f.nknobs] = cb_files[i].name;
		self->f.rule[self->f.nknobs] = fz_rule(cb_files[i].name);
		if (!self->f.rule[self->f.nknobs])
			ksft_print_msg("knob %s has no rule here: only its invariants are checked\n",
				       cb_files[i].name);
		self->f.nknobs++;
	}
	self->f.nvariants = cb_variants(self->f.variants, CB_MAX_VARIANTS);
	ASSERT_LT(0, self->f.nvariants);
	fz_read_online(&self->f);
	ASSERT_LT(0, self->f.ncpus);
	ASSERT_EQ(0, cb_guarded_map(&self->f.io, FZ_IO_MAX + 4096));
	ASSERT_EQ(0, cb_guarded_map(&self->f.val, 4096));
	self->kmsg = cb_kmsg_open();
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->f.fd >= 0)
		close(self->f.fd);
	cb_guarded_unmap(&self->f.io);
	cb_guarded_unmap(&self->f.val);
	free(self->f.shadow);
	if (access(CB_DEBUGFS_DIR, F_OK) && self->ko)
		cb_load(self->ko);
	if (!access(CB_DEBUGFS_DIR, F_OK))
		cb_restore(&self->saved);
}

/*
 * CB_FUZZ_OPS seeded operations on every writable file and the data file:
 * refused writes change nothing, accepted ones read back, every byte read
 * is right; then a clean unload and a clean kernel log.
 */
TEST_F_TIMEOUT(fuzz, knobs_data_and_runs_keep_their_contract, 3000)
{
	struct fz *f = &self->f;
	int ops = cb_env_ll("CB_FUZZ_OPS", 5000);
	bool ok = true;
	int ret;

	ksft_print_msg("fuzz seed %llu, %d operations (reproduce: CB_FUZZ_SEED=%llu)\n",
		       f->seed, ops, f->seed);
	f->op = 0;
	ASSERT_TRUE(fz_reopen(f)) TH_LOG("%s", f->why);
	for (f->op = 0; ok && f->op < ops; f->op++) {
		uint64_t pick = cb_below(&f->rng, 1000);

		if (pick < 560)
			ok = fz_knob_op(f);
		else if (pick < 720)
			ok = fz_data_op(f, false);
		else if (pick < 820)
			ok = fz_data_op(f, true);
		else if (pick < 860)
			ok = fz_data_size_op(f);
		else if (pick < 900)
			ok = fz_reopen(f);
		else if (pick < 920)
			ok = fz_run_op(f);
		else
			ok = fz_knob_op(f);
	}
	if (!ok) {
		f->op--;
		fz_dump(f);
	}
	ASSERT_TRUE(ok) TH_LOG("seed %llu, op %d: %s", f->seed, f->op, f->why);
	ksft_print_msg("%d operations: %d knob writes accepted, %d refused, %d data transfers, %d runs\n",
		       ops, f->accepted, f->refused, f->data_ops, f->runs);

	close(f->fd);
	f->fd = -1;
	cb_buffer_release();
	ret = cb_unload();
	ASSERT_EQ(0, ret) TH_LOG("rmmod after the fuzz: %s", strerror(-ret));
	EXPECT_STREQ("", cb_kmsg_report(self->kmsg));
	ASSERT_EQ(0, cb_load(self->ko));
}

TEST_HARNESS_MAIN
