// SPDX-License-Identifier: GPL-2.0
/*
 * cb_debugfs.c - the C client of copybench.ko's debugfs interface
 * (cb_debugfs.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cb_debugfs.h"

#define CBFS_STR(x)	#x
#define CBFS_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const struct cbfs_key cbfs_keys[CBFS_NKEYS] = {
#define CB_RESULT_KEY(key, unit)	{ CBFS_STR(key), unit },
#include "copybench.h"
#undef CB_RESULT_KEY
};

const char *const cbfs_directions[] = {
#define CB_DIRECTION(name)	CBFS_STR(name),
#include "copybench.h"
#undef CB_DIRECTION
};
const unsigned int cbfs_ndirections = CBFS_ARRAY_SIZE(cbfs_directions);

const char *const cbfs_caches[] = {
#define CB_CACHE(name)	CBFS_STR(name),
#include "copybench.h"
#undef CB_CACHE
};
const unsigned int cbfs_ncaches = CBFS_ARRAY_SIZE(cbfs_caches);

int cbfs_name_index(const char *const *list, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return (int)i;
	return -1;
}

int cbfs_file_write(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

ssize_t cbfs_file_read(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[got] = '\0';
	return n < 0 ? n : (ssize_t)got;
}

void cbfs_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, CB_DEBUGFS_DIR "/%s", name);
}

int cbfs_write(const char *name, const void *buf, size_t len)
{
	char path[256];

	cbfs_path(path, sizeof(path), name);
	return cbfs_file_write(path, buf, len);
}

ssize_t cbfs_read(const char *name, char *buf, size_t len)
{
	char path[256];

	cbfs_path(path, sizeof(path), name);
	return cbfs_file_read(path, buf, len);
}

char *cbfs_read_alloc(const char *name)
{
	size_t len = 0, cap = 4096;
	char path[256], *s, *t;
	ssize_t n;
	int fd, err;

	cbfs_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	s = malloc(cap);
	while (s) {
		n = read(fd, s + len, cap - len - 1);
		if (n <= 0) {
			err = errno;
			if (n < 0) {
				free(s);
				s = NULL;
			} else {
				s[len] = '\0';
			}
			close(fd);
			errno = err;
			return s;
		}
		len += (size_t)n;
		if (cap - len > 1)
			continue;
		cap *= 2;
		t = realloc(s, cap);
		if (!t)
			free(s);
		s = t;
	}
	close(fd);
	errno = ENOMEM;
	return NULL;
}

const char *cbfs_last_error(char *buf, size_t len)
{
	if (cbfs_read("last_error", buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

int cbfs_key_index(const char *key)
{
	int i;

	for (i = 0; i < CBFS_NKEYS; i++)
		if (!strcmp(cbfs_keys[i].key, key))
			return i;
	return -1;
}

/* A decimal with exactly decimals digits after the point. */
static bool cbfs_fixed_ok(const char *v, size_t decimals)
{
	const char *p = v;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == v || *p != '.')
		return false;
	v = ++p;
	while (isdigit((unsigned char)*p))
		p++;
	return !*p && (size_t)(p - v) == decimals;
}

bool cbfs_value_ok(const char *unit, const char *v)
{
	const char *p = v;

	if (!strcmp(unit, "name")) {
		for (; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
				return false;
		return p != v;
	}
	if (!strcmp(unit, "bool"))
		return !strcmp(v, "0") || !strcmp(v, "1");
	if (!strcmp(unit, "cpu") && *p == '-')
		return !strcmp(v, "-1");
	if (!strcmp(unit, "cycles") || !strcmp(unit, "ns"))
		return cbfs_fixed_ok(v, 2);
	if (!strcmp(unit, "bytes/cycle"))
		return cbfs_fixed_ok(v, 3);
	while (isdigit((unsigned char)*p))
		p++;
	return p != v && !*p;
}

/* Strict: line i is key i with a well-formed value. */
static int cbfs_result_strict(const char *line, const char *val, size_t i, char *why,
			      size_t whylen)
{
	if (i >= CBFS_NKEYS) {
		snprintf(why, whylen, "extra line \"%s\"", line);
		return -1;
	}
	if (!val || strcmp(line, cbfs_keys[i].key)) {
		snprintf(why, whylen, "line %zu is \"%s%s%s\", want key %s", i, line,
			 val ? " " : "", val ? val : "", cbfs_keys[i].key);
		return -1;
	}
	if (!cbfs_value_ok(cbfs_keys[i].unit, val)) {
		snprintf(why, whylen, "%s: bad %s value \"%s\"", cbfs_keys[i].key,
			 cbfs_keys[i].unit, val);
		return -1;
	}
	return 0;
}

int cbfs_results_parse(char *text, const char *vals[CBFS_NKEYS], bool strict, char *why,
		       size_t whylen)
{
	char *line, *val, *save = NULL;
	size_t i = 0;
	int k;

	for (k = 0; k < CBFS_NKEYS; k++)
		vals[k] = NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		val = strchr(line, ' ');
		if (val)
			*val++ = '\0';
		if (strict && cbfs_result_strict(line, val, i, why, whylen))
			return -1;
		k = val ? cbfs_key_index(line) : -1;
		if (k >= 0)
			vals[k] = val;
	}
	if (strict && i != CBFS_NKEYS) {
		snprintf(why, whylen, "%zu keys, want %d", i, CBFS_NKEYS);
		return -1;
	}
	return 0;
}

/* DIRS: a comma-separated list naming at least one direction; its mask. */
static bool cbfs_dirs(const char *field, size_t len, unsigned long *dirs)
{
	const char *w = field, *end = field + len;
	size_t n;
	unsigned int d;

	*dirs = 0;
	if (strspn(field, "abcdefghijklmnopqrstuvwxyz_,") < len)
		return false;
	while (w < end) {
		n = strcspn(w, ",");
		if (w + n > end)
			n = (size_t)(end - w);
		for (d = 0; d < cbfs_ndirections; d++)
			if (strlen(cbfs_directions[d]) == n && !strncmp(cbfs_directions[d], w, n))
				*dirs |= 1UL << d;
		w += n + 1;
	}
	return *dirs != 0;
}

int cbfs_variant_parse(char *line, struct cbfs_variant *v)
{
	char *state, *rest;
	size_t n;

	memset(v, 0, sizeof(*v));
	v->name = strtok_r(line, " ", &rest);
	state = v->name ? strtok_r(NULL, " ", &rest) : NULL;
	if (!state || (strcmp(state, "usable") && strcmp(state, "unusable")))
		return -EINVAL;
	v->usable = !strcmp(state, "usable");
	rest = rest ? rest + strspn(rest, " ") : NULL;
	v->desc = rest ? rest : "";
	if (!rest || !*rest)
		return 0;
	n = strcspn(rest, " ");
	if (cbfs_dirs(rest, n, &v->dirs)) {
		v->has_dirs = true;
		rest += n;
		v->desc = rest + strspn(rest, " ");
	}
	return 0;
}

void *cbfs_buffer_map(size_t len)
{
	char path[256];
	void *p;
	int fd, err;

	cbfs_path(path, sizeof(path), "buffer");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	errno = err;
	return p;
}
