// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the copybench command's own helpers (util.h): its name in
 * messages, byte counts, strings for reports, JSON and shells,
 * whole-or-nothing output files, whole files read and the clock. Errors,
 * allocation, integers and growable strings are lib/cb_util.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cb_json_writer.h"
#include "util.h"

void cb_set_prog(const char *subcommand)
{
	static char name[64];

	snprintf(name, sizeof(name), "copybench %s", subcommand);
	cb_prog = name;
}

int cb_parse_bytes(const char *s, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out)
{
	static const char suffixes[] = "KMG";
	unsigned long long v;
	unsigned int shift = 0;
	const char *p = NULL;
	char digits[32];
	size_t n;

	if (!s)
		return -1;
	n = strlen(s);
	if (n)
		p = strchr(suffixes, s[n - 1]);
	if (p && *p) {
		shift = 10 * (unsigned int)(p - suffixes + 1);
		n--;
	}
	if (!n || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (cb_parse_u64(digits, 0, ULLONG_MAX >> shift, &v))
		return -1;
	v <<= shift;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

const char *cb_fmt_bytes(unsigned long long v, char *buf, size_t len)
{
	if (v >= (1ULL << 30) && !(v & ((1ULL << 30) - 1)))
		snprintf(buf, len, "%lluG", v >> 30);
	else if (v >= (1ULL << 20) && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%lluM", v >> 20);
	else if (v >= (1ULL << 10) && !(v & ((1ULL << 10) - 1)))
		snprintf(buf, len, "%lluK", v >> 10);
	else
		snprintf(buf, len, "%llu", v);
	return buf;
}

void cb_str_add_clean(struct cb_str *b, const char *s)
{
	for (; *s; s++)
		cb_str_addn(b, (unsigned char)*s < 0x20 || *s == 0x7f ? "?" : s, 1);
}

int cb_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int cb_str_put(void *ctx, const char *s, size_t n)
{
	cb_str_addn(ctx, s, n);
	return 0;
}

void cb_str_json(struct cb_str *b, const char *s)
{
	struct cb_jw w;

	cb_jw_init_put(&w, cb_str_put, b, 0);
	cb_jw_str(&w, s);
	cb_jw_end(&w);		/* one string into a string: nothing to fail */
}

void cb_str_shell(struct cb_str *b, const char *s)
{
	static const char safe[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+:,./@%";
	const char *p;

	if (*s && !s[strspn(s, safe)]) {
		cb_str_add(b, s);
		return;
	}
	cb_str_add(b, "'");
	for (p = s; *p; p++) {
		if (*p == '\'')
			cb_str_add(b, "'\\''");
		else
			cb_str_addn(b, p, 1);
	}
	cb_str_add(b, "'");
}

/*
 * Temporary files not yet committed, removed at exit whatever the path out
 * (cb_die() included), so no half-written output is left behind.
 */
#define CB_OUTFILES_MAX	8
static char *cb_pending[CB_OUTFILES_MAX];

static void cb_outfile_atexit(void)
{
	unsigned int i;

	for (i = 0; i < CB_OUTFILES_MAX; i++)
		if (cb_pending[i])
			unlink(cb_pending[i]);
}

static void cb_pending_set(const char *old, char *new)
{
	static int registered;
	unsigned int i;

	if (!registered) {
		atexit(cb_outfile_atexit);
		registered = 1;
	}
	for (i = 0; i < CB_OUTFILES_MAX; i++) {
		if (cb_pending[i] == old) {
			cb_pending[i] = new;
			return;
		}
	}
}

int cb_outfile_open(struct cb_outfile *o, const char *path, struct cb_error *e)
{
	const char *slash = strrchr(path, '/');
	struct cb_str t = { 0 };
	struct stat st;
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!*path || (slash && !slash[1]) || (!stat(path, &st) && S_ISDIR(st.st_mode)))
		return cb_fail(e, CB_EXIT_USAGE, "invalid output file '%s': a file name is needed",
			       path);
	if (slash)
		cb_str_addn(&t, path, (size_t)(slash - path) + 1);
	cb_str_printf(&t, ".%s.XXXXXX", slash ? slash + 1 : path);
	fd = mkstemp(t.s);
	if (fd < 0) {
		/* A directory that is not there is a bad argument; the rest the system's. */
		cb_fail(e, errno == ENOENT || errno == ENOTDIR ? CB_EXIT_USAGE : CB_EXIT_RUNTIME,
			"invalid output file '%s': cannot create a file beside it: %s", path,
			strerror(errno));
		cb_str_free(&t);
		return -1;
	}
	cb_pending_set(NULL, t.s);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(t.s);
		cb_pending_set(t.s, NULL);
		cb_str_free(&t);
		return cb_fail(e, CB_EXIT_RUNTIME, "fdopen: %s", strerror(errno));
	}
	/* mkstemp() makes it 0600: give it the mode a new file would get. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->tmp = t.s;
	o->path = cb_strdup(path);
	return 0;
}

int cb_outfile_commit(struct cb_outfile *o, struct cb_error *e)
{
	int bad = ferror(o->f);

	if (fflush(o->f) || fsync(fileno(o->f)))
		bad = 1;
	if (fclose(o->f))
		bad = 1;
	o->f = NULL;
	if (bad) {
		cb_fail(e, CB_EXIT_RUNTIME, "cannot write '%s': %s", o->path, strerror(errno));
		cb_outfile_abort(o);
		return -1;
	}
	if (rename(o->tmp, o->path)) {
		cb_fail(e, CB_EXIT_RUNTIME, "cannot rename '%s' to '%s': %s", o->tmp, o->path,
			strerror(errno));
		cb_outfile_abort(o);
		return -1;
	}
	cb_pending_set(o->tmp, NULL);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return 0;
}

void cb_outfile_abort(struct cb_outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp) {
		unlink(o->tmp);
		cb_pending_set(o->tmp, NULL);
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

char *cb_read_file(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf;
	ssize_t r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = cb_malloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = cb_realloc(buf, cap *= 2, 1);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	err = errno;
	close(fd);
	if (r < 0) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

unsigned long long cb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}
