// SPDX-License-Identifier: GPL-2.0
/*
 * backend_module.c - the "module" backend: copybench.ko's debugfs files
 * (Documentation/copybench.rst). Per point it writes the knobs, writes "1"
 * to "run" (which returns when the run is done) and reads "results". The
 * knobs it changes are read first and written back on close; with --load
 * it loads the module when it is not loaded, and unloads it on close.
 *
 * The names come from copybench.h: CB_FILE for the files, CB_RESULT_KEY
 * for the results, CB_DIRECTION and CB_CACHE for the values. The
 * "variants" file is "NAME usable|unusable [DIRS] DESCRIPTION": DIRS, a
 * comma-separated list of directions, is new; without it a variant
 * supports memcpy, to_user and from_user. The clock probe (backend.h) runs
 * in userspace on the run's CPU just before and after each run. The user
 * side of the user directions is this command's own mapping of the
 * module's "buffer" file, made before the first such run and made larger
 * when a point needs more (a module without that file maps one itself).
 *
 * Each repeat is a process of its own (place.h): its own mapping of the
 * buffer file, and fresh kernel-side buffers each run (the module
 * allocates them per run); the process's placement moves the offsets it
 * writes by its shifts (modulo a page: the module's buffers are pages of
 * their own), and the record says which offsets each run had (src_place,
 * dst_place).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/types.h>

#include "copybench.h"
#include "lib/cb_debugfs.h"
#include "backend.h"
#include "figures.h"
#include "place.h"

#define MB_PROBES	9	/* clock probes before and after each run */

/*
 * The module's knobs: copybench.h's CB_KNOB list, in its order. A point
 * writes the knobs before data_size, in that order (and close restores
 * them); the data file's two, which close the list, it leaves alone.
 */
enum mb_knob {
#define CB_KNOB(name, type, min, max, dflt)	MB_KNOB_##name,
#include "copybench.h"
#undef CB_KNOB
	MB_NALL
};
#define MB_NKNOBS	MB_KNOB_data_size

#define CB_STR(x)	#x
static const char *const mb_knobs[MB_NALL] = {
#define CB_KNOB(name, type, min, max, dflt)	CB_STR(name),
#include "copybench.h"
#undef CB_KNOB
};

/* What mb_set_point() and mb_close() rely on in copybench.h's order. */
_Static_assert(MB_KNOB_variant == 0 && MB_KNOB_direction == 1,
	       "a point's variant and direction are written first, through native");
_Static_assert(MB_KNOB_data_size == MB_NALL - 2 && MB_KNOB_data_chunk == MB_NALL - 1,
	       "the data file's knobs close copybench.h's CB_KNOB list");

struct mb {
	int loaded;			/* this command loaded the module */
	void *buf;			/* the mapping of the buffer file, or NULL */
	size_t buf_len;
	char *saved[MB_NKNOBS];		/* knob values found at open */
	char *cur[MB_NKNOBS];		/* values last written */
	char *res_text;			/* the last results, split */
	const char *res_str[CBFS_NKEYS];	/* their values by key, or NULL */
	double res[CBFS_NKEYS];
};

/* " (module: <last_error>)" when the module has a last_error file. */
static void mb_last_error(char *buf, size_t len)
{
	char text[CB_LAST_ERROR_MAX + 1];

	buf[0] = '\0';
	if (*cbfs_last_error(text, sizeof(text)))
		snprintf(buf, len, " (module: %s)", text);
}

static char *mb_read(const char *file, struct cb_error *e)
{
	char *text = cbfs_read_alloc(file), path[256];

	if (!text) {
		cbfs_path(path, sizeof(path), file);
		cb_fail(e, CB_EXIT_RUNTIME, "cannot read %s: %s", path, strerror(errno));
	}
	return text;
}

/*
 * The kernel's tsc_khz, which the module times with; calibrated here only
 * when the module has no tsc_khz file (one older than this tool) or says 0
 * (its runs are then refused, and say why).
 */
static unsigned long long mb_tsc_khz(void)
{
	struct cb_error ignored = { 0 };
	char *text = mb_read("tsc_khz", &ignored);
	unsigned long long khz = 0;
	size_t len = text ? strlen(text) : 0;

	if (len && text[len - 1] == '\n') {
		text[len - 1] = '\0';
		if (cb_parse_u64(text, 1, UINT_MAX, &khz))
			khz = 0;
	}
	free(text);
	return khz ? khz : cb_tsc_khz_calibrate();
}

static int mb_write(const char *file, const char *value, struct cb_error *e)
{
	int err = -cbfs_write(file, value, strlen(value));
	char path[256], why[CB_LAST_ERROR_MAX + 32];

	if (!err)
		return 0;
	if (err == EINTR && cb_stop())
		return cb_fail(e, CB_EXIT_RUNTIME, "interrupted");
	mb_last_error(why, sizeof(why));
	cbfs_path(path, sizeof(path), file);
	return cb_fail(e, CB_EXIT_RUNTIME, "writing '%s' to %s failed: %s%s", value, path,
		       strerror(err), why);
}

static int mb_knob(struct mb *m, unsigned int k, const char *value, struct cb_error *e)
{
	if (m->cur[k] && !strcmp(m->cur[k], value))
		return 0;
	free(m->cur[k]);
	m->cur[k] = NULL;
	if (mb_write(mb_knobs[k], value, e))
		return -1;
	m->cur[k] = cb_strdup(value);
	return 0;
}

static int mb_variants(struct cb_backend *b, struct cb_error *e)
{
	static const char *const classic[] = { "memcpy", "to_user", "from_user" };
	char *text = mb_read("variants", e), *line, *save = NULL;
	struct cb_variant_info *v;
	struct cbfs_variant fv;
	unsigned long classic_dirs = 0;
	unsigned int i;
	int d;

	if (!text)
		return -1;
	for (i = 0; i < ARRAY_SIZE(classic); i++) {
		d = cbfs_name_index(cbfs_directions, cbfs_ndirections, classic[i]);
		if (d >= 0)
			classic_dirs |= 1UL << d;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (cbfs_variant_parse(line, &fv)) {
			free(text);
			return cb_fail(e, CB_EXIT_RUNTIME,
				       "%s/variants: unexpected line '%s' (expected NAME usable|unusable [DIRS] DESCRIPTION)",
				       CB_DEBUGFS_DIR, line);
		}
		b->variants = cb_realloc(b->variants, b->nvariants + 1, sizeof(*b->variants));
		v = &b->variants[b->nvariants++];
		memset(v, 0, sizeof(*v));
		v->name = cb_strdup(fv.name);
		v->usable = fv.usable;
		v->dirs = fv.has_dirs ? fv.dirs : classic_dirs;
		v->desc = cb_strdup(fv.desc);
	}
	free(text);
	if (!b->nvariants)
		return cb_fail(e, CB_EXIT_RUNTIME, "%s/variants lists no variant", CB_DEBUGFS_DIR);
	return 0;
}

/* Load the module from path (finit_module), as insmod does. */
static int mb_load(struct mb *m, const char *path, struct cb_error *e)
{
	struct stat st;
	int fd, err;
	long ret;

	/* /proc/modules exists exactly when the kernel has CONFIG_MODULES. */
	if (stat("/proc/modules", &st))
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "--load: the running kernel cannot load modules (CONFIG_MODULES is off); use --backend user");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "--load: cannot open %s: %s (build it with 'make module')", path,
			       strerror(errno));
	ret = syscall(SYS_finit_module, fd, "", 0);
	err = errno;
	close(fd);
	if (ret && err != EEXIST)
		return cb_fail(e, CB_EXIT_RUNTIME, "--load: loading %s failed: %s", path,
			       strerror(err));
	m->loaded = !ret;
	return 0;
}

static void mb_unload(struct mb *m)
{
	int i;

	if (!m->loaded)
		return;
	/* Our files are closed; a reader elsewhere keeps it busy for a while. */
	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, "copybench", O_NONBLOCK))
			break;
		if (errno != EAGAIN && errno != EBUSY) {
			cb_warn("could not unload copybench: %s", strerror(errno));
			break;
		}
		usleep(10000);
	}
	m->loaded = 0;
}

static int mb_find(struct cb_backend *b, struct mb *m, struct cb_error *e)
{
	struct stat st;

	if (geteuid())
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "the module backend needs root (debugfs is root-only); use --backend user");
	if (!stat(CB_DEBUGFS_DIR, &st))
		return 0;
	if (!b->set->load && !stat("/sys/module/copybench", &st))
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "copybench.ko is loaded but %s is missing: is debugfs mounted? (mount -t debugfs none /sys/kernel/debug)",
			       CB_DEBUGFS_DIR);
	if (!b->set->load)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "copybench.ko is not loaded (%s does not exist): insmod it, pass --load[=KO], or use --backend user",
			       CB_DEBUGFS_DIR);
	if (mb_load(m, *b->set->load ? b->set->load : CB_DEFAULT_KO, e))
		return -1;
	if (stat(CB_DEBUGFS_DIR, &st))
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "copybench.ko is loaded but %s is missing: is debugfs mounted? (mount -t debugfs none /sys/kernel/debug)",
			       CB_DEBUGFS_DIR);
	return 0;
}

static int mb_open(struct cb_backend *b, struct cb_error *e)
{
	struct mb *m = cb_calloc(1, sizeof(*m));
	unsigned int k;
	char *nl;
	int cpu;

	b->priv = m;
	if (mb_find(b, m, e))
		return -1;
	b->cpu = -1;
	b->size_max = CB_SIZE_MAX;
	b->buffers = "kernel";
	if (mb_variants(b, e))
		return -1;
	b->tsc_khz = b->set->tsc_khz ? b->set->tsc_khz : mb_tsc_khz();
	/* The command that starts the workers: loaded (when --load), looked at. */
	if (b->set->describe)
		return 0;
	cpu = cb_pin_cpu(b->set->cpu, e);
	if (cpu < 0)
		return -1;
	b->cpu = cpu;
	for (k = 0; k < MB_NKNOBS; k++) {
		m->saved[k] = mb_read(mb_knobs[k], e);
		if (!m->saved[k])
			return -1;
		nl = strchr(m->saved[k], '\n');
		if (nl)
			*nl = '\0';
	}
	return 0;
}

static void mb_close(struct cb_backend *b)
{
	struct mb *m = b->priv;
	struct cb_error e;
	unsigned int k;

	if (!m)
		return;
	if (m->buf)
		munmap(m->buf, m->buf_len);
	if (m->loaded) {
		mb_unload(m);
	} else {
		/* Back to the knobs found; native first: any direction goes with it. */
		if (m->saved[MB_KNOB_variant] && mb_knob(m, MB_KNOB_variant, CB_NATIVE_NAME, &e))
			cb_warn("restoring the module's knobs: %s", e.msg);
		for (k = MB_KNOB_direction; k < MB_NKNOBS; k++)
			if (m->saved[k] && mb_knob(m, k, m->saved[k], &e))
				cb_warn("restoring the module's knobs: %s", e.msg);
		if (m->saved[MB_KNOB_variant] &&
		    mb_knob(m, MB_KNOB_variant, m->saved[MB_KNOB_variant], &e))
			cb_warn("restoring the module's knobs: %s", e.msg);
	}
	for (k = 0; k < MB_NKNOBS; k++) {
		free(m->saved[k]);
		free(m->cur[k]);
	}
	free(m->res_text);
	free(m);
	b->priv = NULL;
}

/* The results of the last run, by key (keys newer than this tool skipped). */
static int mb_results(struct mb *m, struct cb_error *e)
{
	char *end;
	int k;

	free(m->res_text);
	m->res_text = mb_read("results", e);
	if (!m->res_text)
		return -1;
	cbfs_results_parse(m->res_text, m->res_str, false, NULL, 0);
	for (k = 0; k < CBFS_NKEYS; k++) {
		m->res[k] = NAN;
		if (m->res_str[k]) {
			m->res[k] = strtod(m->res_str[k], &end);
			if (end == m->res_str[k] || *end)
				m->res[k] = NAN;
		}
	}
	return 0;
}

/*
 * The results repeat the knobs of their run: they must be the ones this
 * command wrote, or another writer changed them in between.
 */
static int mb_same_knobs(struct mb *m, struct cb_error *e)
{
	static const unsigned int echoed[] = {
		MB_KNOB_variant, MB_KNOB_direction, MB_KNOB_size, MB_KNOB_src_offset,
		MB_KNOB_dst_offset, MB_KNOB_cache,
	};
	unsigned int i;
	int k;

	for (i = 0; i < ARRAY_SIZE(echoed); i++) {
		k = cbfs_key_index(mb_knobs[echoed[i]]);
		if (k >= 0 && m->res_str[k] && m->cur[echoed[i]] &&
		    !strcmp(m->res_str[k], m->cur[echoed[i]]))
			continue;
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "%s/results says %s %s, this command set %s: another process changed the knobs during the run",
			       CB_DEBUGFS_DIR, mb_knobs[echoed[i]],
			       k >= 0 && m->res_str[k] ? m->res_str[k] : "nothing",
			       m->cur[echoed[i]] ? m->cur[echoed[i]] : "?");
	}
	return 0;
}

/* A results value by key; -1 with e set when it is missing. */
static int mb_res(struct mb *m, const char *key, double *v, struct cb_error *e)
{
	int k = cbfs_key_index(key);

	if (k < 0 || isnan(m->res[k]))
		return cb_fail(e, CB_EXIT_RUNTIME, "%s/results has no numeric '%s'",
			       CB_DEBUGFS_DIR, key);
	*v = m->res[k];
	return 0;
}

/*
 * The user side of a run of point p: this command's mapping of the buffer
 * file, of at least size plus offset bytes (a power of two from 64 KiB,
 * so that a sweep remaps rarely). Nothing for memcpy, nor for a module
 * without the file (older ones map a buffer themselves).
 */
static int mb_buffer(struct mb *m, const struct cb_point *p, struct cb_error *e)
{
	size_t need = p->size.lo + (p->src_offset > p->dst_offset ? p->src_offset : p->dst_offset);
	size_t len = 64 << 10;
	char path[256];

	if (!strcmp(cbfs_directions[p->dir], "memcpy") || (m->buf && need <= m->buf_len))
		return 0;
	while (len < need)
		len *= 2;
	if (len > CB_BUFFER_MAX)
		len = CB_BUFFER_MAX;
	if (m->buf)
		munmap(m->buf, m->buf_len);
	m->buf_len = 0;
	m->buf = cbfs_buffer_map(len);
	if (m->buf == MAP_FAILED) {
		m->buf = NULL;
		if (errno == ENOENT)
			return 0;
		cbfs_path(path, sizeof(path), "buffer");
		return cb_fail(e, CB_EXIT_RUNTIME, "cannot map %zu bytes of %s: %s", len, path,
			       strerror(errno));
	}
	m->buf_len = len;
	return 0;
}

/*
 * The value of knob k for point p into num; false for a knob a point does
 * not set here. A case for every knob: one added to copybench.h and not
 * here is a -Wswitch warning.
 */
static bool mb_knob_value(const struct cb_backend *b, const struct cb_point *p, enum mb_knob k,
			  unsigned int src, unsigned int dst, char *num, size_t len)
{
	switch (k) {
	case MB_KNOB_variant:
	case MB_KNOB_direction:	/* mb_set_point()'s own */
	case MB_KNOB_data_size:
	case MB_KNOB_data_chunk:	/* the data file's, not a point's */
	case MB_NALL:
		return false;
	case MB_KNOB_size:
		snprintf(num, len, "%llu", p->size.lo);
		break;
	case MB_KNOB_src_offset:
		snprintf(num, len, "%u", src);
		break;
	case MB_KNOB_dst_offset:
		snprintf(num, len, "%u", dst);
		break;
	case MB_KNOB_cache:
		snprintf(num, len, "%s", cbfs_caches[p->cache]);
		break;
	case MB_KNOB_loops:
		snprintf(num, len, "%lu", b->set->loops);
		break;
	case MB_KNOB_samples:
		snprintf(num, len, "%lu", b->set->samples);
		break;
	case MB_KNOB_cpu:
		snprintf(num, len, "%d", b->cpu);
		break;
	case MB_KNOB_baseline:
		/* The figures as timed: mb_result() subtracts the baseline itself. */
		snprintf(num, len, "0");
		break;
	case MB_KNOB_chain:
		/* A point's first run back to back; mb_latency() times the chain. */
		snprintf(num, len, "0");
		break;
	case MB_KNOB_max_run_ms:
		snprintf(num, len, "%lu", b->set->max_run_ms);
		break;
	}
	return true;
}

/* Every knob of point p, the offsets src and dst (its placement's). */
static int mb_set_point(struct cb_backend *b, const struct cb_point *p, unsigned int src,
			unsigned int dst, struct cb_error *e)
{
	const struct cb_variant_info *v = &b->variants[p->variant];
	struct mb *m = b->priv;
	char num[32];
	unsigned int k;

	/* Variant and direction: through native, which takes any direction. */
	if ((!m->cur[MB_KNOB_variant] || strcmp(m->cur[MB_KNOB_variant], v->name) ||
	     !m->cur[MB_KNOB_direction] ||
	     strcmp(m->cur[MB_KNOB_direction], cbfs_directions[p->dir])) &&
	    (mb_knob(m, MB_KNOB_variant, CB_NATIVE_NAME, e) ||
	     mb_knob(m, MB_KNOB_direction, cbfs_directions[p->dir], e) ||
	     mb_knob(m, MB_KNOB_variant, v->name, e)))
		return -1;
	for (k = MB_KNOB_size; k < MB_NKNOBS; k++)
		if (mb_knob_value(b, p, k, src, dst, num, sizeof(num)) && mb_knob(m, k, num, e))
			return -1;
	return 0;
}

/* The results of the run just done into r (the module's figures). */
static int mb_result(struct mb *m, struct cb_result *r, struct cb_error *e)
{
	double loops = 0, samples = 0, trunc = 0, verified = 0, cpu = 0;
	const struct {
		const char *key;
		double *v;
	} want[] = {
		{ "cycles_min", &r->min }, { "cycles_median", &r->median },
		{ "cycles_mean", &r->mean }, { "cycles_stddev", &r->stddev },
		{ "cycles_max", &r->max }, { "baseline_cycles", &r->baseline },
		{ "loops", &loops }, { "samples", &samples }, { "truncated", &trunc },
		{ "run_cpu", &cpu }, { "verified", &verified },
	};
	unsigned int k;

	if (mb_results(m, e) || mb_same_knobs(m, e))
		return -1;
	for (k = 0; k < ARRAY_SIZE(want); k++)
		if (mb_res(m, want[k].key, want[k].v, e))
			return -1;
	r->loops = (unsigned long long)loops;
	r->samples = (unsigned long long)samples;
	r->truncated = trunc != 0;
	r->verified = verified != 0;
	r->run_cpu = (long long)cpu;
	r->q02 = NAN;		/* the module does not report it */
	r->call_q02 = NAN;
	/*
	 * Written with baseline 0, the module's figures are as timed, the
	 * loop included: the time per call; net of the baseline, clamped at
	 * 0, as the module would have made them with baseline 1.
	 */
	r->call_min = r->min;
	r->call_median = r->median;
	r->min = cb_net_of(r->min, r->baseline);
	r->median = cb_net_of(r->median, r->baseline);
	r->mean = cb_net_of(r->mean, r->baseline);
	r->max = cb_net_of(r->max, r->baseline);
	/* Not measured by this run (mb_latency() times it). */
	cb_result_no_latency(r);
	return 0;
}

/*
 * A hot point's latency: the same run again with the chain knob set, each
 * copy's source taken from the bytes the copy before it wrote, read back
 * as the direction allows (Documentation/copybench.rst, "chain"); its
 * figures as timed are the latency. The chain's own cost the module does
 * not time (lat_chain stays NAN).
 */
static int mb_latency(struct mb *m, struct cb_result *r, struct cb_error *e)
{
	struct cb_result lat;

	if (mb_knob(m, MB_KNOB_chain, "1", e) || mb_write("run", "1", e) || mb_result(m, &lat, e))
		return -1;
	r->lat_min = lat.call_min;
	r->lat_median = lat.call_median;
	r->truncated |= lat.truncated;
	r->verified = r->verified && lat.verified;
	return 0;
}

static int mb_measure(struct cb_backend *b, const struct cb_point *p, struct cb_result *r,
		      struct cb_error *e)
{
	const struct cb_place *pl = b->set->place;
	unsigned int src = (p->src_offset + (pl ? (unsigned int)pl->src_shift : 0)) % 4096;
	unsigned int dst = (p->dst_offset + (pl ? (unsigned int)pl->dst_shift : 0)) % 4096;
	struct mb *m = b->priv;
	double probes[2 * MB_PROBES];
	unsigned int k;

	memset(r, 0, sizeof(*r));
	if (p->size.random)
		return cb_fail(e, CB_EXIT_USAGE, "random sizes need --backend user");
	if (mb_set_point(b, p, src, dst, e) || mb_buffer(m, p, e))
		return -1;
	/* The core clock around the run, from userspace on the run's CPU. */
	for (k = 0; k < MB_PROBES; k++)
		probes[k] = cb_probe();
	if (mb_write("run", "1", e))
		return -1;
	for (k = 0; k < MB_PROBES; k++)
		probes[MB_PROBES + k] = cb_probe();
	r->clock_ratio = cb_clock_ratio(probes, 2 * MB_PROBES);
	if (mb_result(m, r, e))
		return -1;
	if (!strcmp(cbfs_caches[p->cache], "hot") && mb_latency(m, r, e))
		return -1;
	r->size_mean = (double)p->size.lo;
	r->src_place = src;
	r->dst_place = dst;
	return 0;
}

const struct cb_backend_ops cb_backend_module = {
	.name = "module",
	.open = mb_open,
	.measure = mb_measure,
	.close = mb_close,
};
