// SPDX-License-Identifier: GPL-2.0
/*
 * sysinfo.c - the machine's part of a record header (sysinfo.h), from
 * uname(), /proc/cmdline, /proc/cpuinfo and
 * /sys/devices/system/cpu/vulnerabilities.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "sysinfo.h"

#ifndef CB_VERSION
#define CB_VERSION	"unknown"
#endif

#define CB_VULN_DIR	"/sys/devices/system/cpu/vulnerabilities"

const char *cb_command = "";

static char *cb_trim(char *s)
{
	size_t n;

	s += strspn(s, " \t\n");
	n = strlen(s);
	while (n && strchr(" \t\n", s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The value of the first "key : value" line of /proc/cpuinfo, or NULL. */
static char *cb_cpuinfo(const char *text, const char *key)
{
	const char *p = text, *colon, *nl;
	size_t n = strlen(key);
	char *v;

	for (; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (strncmp(p, key, n) || p[n + strspn(p + n, " \t")] != ':')
			continue;
		colon = strchr(p, ':');
		if (!colon || (nl && colon > nl))
			continue;
		v = strndup(colon + 1, nl ? (size_t)(nl - colon - 1) : strlen(colon + 1));
		if (!v)
			return NULL;
		memmove(v, cb_trim(v), strlen(cb_trim(v)) + 1);
		return v;
	}
	return NULL;
}

static unsigned long long cb_cpuinfo_num(const char *text, const char *key)
{
	char *v = cb_cpuinfo(text, key);
	unsigned long long n = 0;

	if (v && cb_parse_u64(v, 0, ~0ULL, &n))
		n = 0;
	free(v);
	return n;
}

static void cb_cpu_fields(struct cb_record_header *h)
{
	static const char *const wanted[] = CB_COPY_FLAGS;
	char *text = cb_read_file("/proc/cpuinfo", NULL), *flags, *tok, *save = NULL;
	unsigned int i;

	h->cpu_model = text ? cb_cpuinfo(text, "model name") : NULL;
	h->microcode = text ? cb_cpuinfo(text, "microcode") : NULL;
	if (!h->cpu_model)
		h->cpu_model = cb_strdup("unknown");
	if (!h->microcode)
		h->microcode = cb_strdup("unknown");
	h->cpu_family = text ? cb_cpuinfo_num(text, "cpu family") : 0;
	h->cpu_model_id = text ? cb_cpuinfo_num(text, "model") : 0;
	h->cpu_stepping = text ? cb_cpuinfo_num(text, "stepping") : 0;
	flags = text ? cb_cpuinfo(text, "flags") : NULL;
	h->cpu_flags.v = cb_calloc(ARRAY_SIZE(wanted), sizeof(char *));
	/* In the order of CB_COPY_FLAGS, whatever cpuinfo's order. */
	for (i = 0; flags && i < ARRAY_SIZE(wanted); i++) {
		char *copy = cb_strdup(flags);

		for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (!strcmp(tok, wanted[i]))
				h->cpu_flags.v[h->cpu_flags.n++] = cb_strdup(tok);
		free(copy);
	}
	free(flags);
	free(text);
}

static int cb_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cb_mitigations(struct cb_strmap *m)
{
	DIR *d = opendir(CB_VULN_DIR);
	struct cb_str path = { 0 };
	char **names = NULL, *text;
	struct dirent *de;
	size_t n = 0, i;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = cb_realloc(names, n + 1, sizeof(*names));
		names[n++] = cb_strdup(de->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cb_cmp_str);
	m->keys = cb_calloc(n, sizeof(char *));
	m->vals = cb_calloc(n, sizeof(char *));
	for (i = 0; i < n; i++) {
		path.len = 0;
		cb_str_printf(&path, "%s/%s", CB_VULN_DIR, names[i]);
		text = cb_read_file(path.s, NULL);
		m->keys[m->n] = names[i];
		m->vals[m->n++] = cb_strdup(text ? cb_trim(text) : "unknown");
		free(text);
	}
	free(names);
	cb_str_free(&path);
}

void cb_sysinfo(struct cb_record_header *h)
{
	struct utsname u;
	char host[256], date[64], *cmdline;
	time_t now = time(NULL);
	struct tm tm;
	long ncpu;

	if (uname(&u)) {
		snprintf(u.release, sizeof(u.release), "unknown");
		snprintf(u.version, sizeof(u.version), "unknown");
	}
	h->kernel = cb_strdup(u.release);
	h->kernel_version = cb_strdup(u.version);
	cmdline = cb_read_file("/proc/cmdline", NULL);
	h->kernel_cmdline = cb_strdup(cmdline ? cb_trim(cmdline) : "unknown");
	free(cmdline);
	cb_cpu_fields(h);
	cb_mitigations(&h->mitigations);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	h->nr_cpus = ncpu > 0 ? (unsigned long long)ncpu : 0;
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	h->hostname = cb_strdup(host);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	h->date = cb_strdup(date);
	h->tool_version = cb_strdup(CB_VERSION);
}

char *cb_command_line(int argc, char **argv)
{
	struct cb_str b = { 0 };
	int i;

	cb_str_add(&b, "");
	for (i = 0; i < argc; i++) {
		if (i)
			cb_str_add(&b, " ");
		cb_str_shell(&b, argv[i]);
	}
	return b.s;
}
