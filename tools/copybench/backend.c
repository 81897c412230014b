// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c - the backends behind one interface (backend.h): the names
 * the options take, choosing a backend and opening, closing and freeing
 * it, a variant by name. What measuring needs of the machine is
 * machine.c's, below both backends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copybench.h"
#include "backend.h"

#define CB_BACKENDS	"user", "module"
const char *const cb_estimator_names[2] = { "min", "median" };
const char *const cb_clock_names[2] = { "tsc", "core" };
const char *const cb_backend_choices[3] = { "auto", CB_BACKENDS };
const char *const cb_backend_names[2] = { CB_BACKENDS };

/*
 * --load[=KO] of sweep, alias, placement and bisect-run: the file, or ""
 * for --load alone (CB_DEFAULT_KO, which the module backend loads, and
 * what placement and bisect-run pass on as "--load"); NULL when not given.
 */
int cb_opt_load(void *field, const char *v, struct cb_error *e)
{
	if (v && !*v)
		return cb_fail(e, CB_EXIT_USAGE,
			       "invalid --load '': a .ko file, or no value for %s", CB_DEFAULT_KO);
	*(const char **)field = v ? v : "";
	return 0;
}

int cb_backend_variant(const struct cb_backend *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->nvariants; i++)
		if (!strcmp(b->variants[i].name, name))
			return (int)i;
	return -1;
}

int cb_backend_open(struct cb_backend *b, const char *which, const struct cb_settings *set,
		    struct cb_error *e)
{
	struct stat st;
	int ret;

	memset(b, 0, sizeof(*b));
	b->set = set;
	if (!strcmp(which, "user")) {
		b->ops = &cb_backend_user;
	} else if (!strcmp(which, "module")) {
		b->ops = &cb_backend_module;
	} else if (stat(CB_DEBUGFS_DIR, &st) == 0) {
		b->ops = &cb_backend_module;
		cb_warn("backend module: %s exists (copybench.ko is loaded)", CB_DEBUGFS_DIR);
	} else {
		b->ops = &cb_backend_user;
		cb_warn("backend user: %s %s; timing libcopyvariants in this process",
			CB_DEBUGFS_DIR, errno == EACCES ? "cannot be looked at (not root)" :
			"does not exist (copybench.ko is not loaded)");
	}
	ret = b->ops->open(b, e);
	if (ret)
		cb_backend_close(b);
	return ret;
}

void cb_backend_close(struct cb_backend *b)
{
	if (b->ops && b->priv)
		b->ops->close(b);
	b->priv = NULL;
}

void cb_backend_free(struct cb_backend *b)
{
	unsigned int i;

	cb_backend_close(b);
	for (i = 0; i < b->nvariants; i++) {
		free(b->variants[i].name);
		free(b->variants[i].desc);
	}
	free(b->variants);
	memset(b, 0, sizeof(*b));
}
