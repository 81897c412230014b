// SPDX-License-Identifier: GPL-2.0
/*
 * gnuplot.c - an image, its data and its script, whole or not at all
 * (gnuplot.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"
#include "process.h"
#include "sysinfo.h"

void cb_gp_str(struct cb_str *b, const char *s)
{
	cb_str_add(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			cb_str_add(b, "'");
		cb_str_addn(b, (unsigned char)*s < 0x20 || *s == 0x7f ? " " : s, 1);
	}
	cb_str_add(b, "'");
}

void cb_gp_comment(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	fputc('\n', f);
}

/* The script's first lines: where it came from, its output and data, the terminal. */
static void cb_gp_head(FILE *f, const char *img, const char *stem, int png, unsigned int height)
{
	struct cb_str q = { 0 }, dat = { 0 };

	cb_gp_comment(f, "# copybench: made by: ", cb_command);
	cb_gp_comment(f, "# Restyle and redraw from this directory: gnuplot ", stem);
	cb_gp_str(&q, img);
	fprintf(f, "if (!exists(\"outfile\")) outfile = %s\n", q.s);
	q.len = 0;
	cb_str_printf(&dat, "%s.dat", stem);
	cb_gp_str(&q, dat.s);
	fprintf(f, "if (!exists(\"datafile\")) datafile = %s\n", q.s);
	height = height ? height : 700;
	if (png)
		fprintf(f, "set terminal pngcairo size 1200,%u enhanced font \"sans,10\"\n", height);
	else
		fprintf(f, "set terminal svg size 1200,%u dynamic enhanced font \"sans,11\"\n", height);
	fprintf(f, "set output outfile\n");
	cb_str_free(&q);
	cb_str_free(&dat);
}

/* gnuplot -e 'outfile=...; datafile=...' SCRIPT, in dir. */
static int cb_gnuplot(const char *dir, const char *script, const char *img, const char *dat,
		      struct cb_error *e)
{
	struct cb_child_spec s = { .dir = dir, .quiet = 1 };
	struct cb_str vars = { 0 };
	struct cb_child child;
	char *argv[5];
	int status, ret;

	cb_str_add(&vars, "outfile=");
	cb_gp_str(&vars, img);
	cb_str_add(&vars, "; datafile=");
	cb_gp_str(&vars, dat);
	argv[0] = "gnuplot";
	argv[1] = "-e";
	argv[2] = vars.s;
	argv[3] = (char *)script;
	argv[4] = NULL;
	s.argv = argv;
	ret = cb_child_start(&child, &s, e) || cb_child_wait(&child, &status, e);
	cb_str_free(&vars);
	if (ret)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return cb_fail(e, CB_EXIT_RUNTIME,
			       "gnuplot not found: install it (Debian: apt-get install gnuplot-nox; scripts/setup does)");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cb_fail(e, CB_EXIT_RUNTIME, "gnuplot failed (status %d); nothing written",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

/* FILE.svg -> FILE (the stem for .dat and .gp); -1 if not .svg or .png. */
static int cb_gp_names(const char *out, char **stem, int *png)
{
	size_t n = strlen(out);

	if (n > 4 && !strcmp(out + n - 4, ".svg"))
		*png = 0;
	else if (n > 4 && !strcmp(out + n - 4, ".png"))
		*png = 1;
	else
		return -1;
	*stem = strndup(out, n - 4);
	return *stem ? 0 : -1;
}

/* gnuplot draws the temporary image by name, in their directory. */
static int cb_gp_draw(struct cb_outfile *img, struct cb_outfile *dat, struct cb_outfile *gp,
		      const char *output, struct cb_error *e)
{
	char *dir = cb_strdup(output), *g = cb_strdup(gp->tmp), *d = cb_strdup(dat->tmp);
	char *im = cb_strdup(img->tmp);
	struct stat st;
	int ret;

	fclose(img->f);
	img->f = NULL;
	ret = cb_gnuplot(dirname(dir), basename(g), basename(im), basename(d), e);
	free(dir);
	free(g);
	free(d);
	free(im);
	if (!ret && (stat(img->tmp, &st) || !st.st_size))
		ret = cb_fail(e, CB_EXIT_RUNTIME, "gnuplot wrote an empty %s", output);
	if (!ret) {
		img->f = fopen(img->tmp, "r+");
		if (!img->f)
			ret = cb_fail(e, CB_EXIT_RUNTIME, "cannot reopen %s: %s", img->tmp,
				      strerror(errno));
	}
	return ret;
}

int cb_gnuplot_name_ok(const char *opt, const char *output, struct cb_error *e)
{
	char *stem = NULL;
	int png;

	if (!output || cb_gp_names(output, &stem, &png))
		return cb_fail(e, CB_EXIT_USAGE, "invalid %s '%s' (accepted: FILE.svg or FILE.png)",
			       opt, output ? output : "");
	free(stem);
	return 0;
}

int cb_gnuplot_write(const char *output, const struct cb_gp_writer *w, struct cb_error *e)
{
	struct cb_outfile img = { 0 }, dat = { 0 }, gp = { 0 };
	struct cb_str datname = { 0 }, gpname = { 0 };
	char *stem = NULL, *scopy = NULL, *ocopy = NULL;
	int png, ret = -1;

	if (!output || cb_gp_names(output, &stem, &png))
		return cb_fail(e, CB_EXIT_USAGE, "invalid -o '%s' (accepted: FILE.svg or FILE.png)",
			       output ? output : "");
	cb_str_printf(&datname, "%s.dat", stem);
	cb_str_printf(&gpname, "%s.gp", stem);
	if (cb_outfile_open(&img, output, e) || cb_outfile_open(&dat, datname.s, e) ||
	    cb_outfile_open(&gp, gpname.s, e))
		goto out;
	scopy = cb_strdup(stem);
	ocopy = cb_strdup(output);
	w->data(dat.f, w->ctx);
	cb_gp_head(gp.f, basename(ocopy), basename(scopy), png, w->height);
	w->script(gp.f, w->ctx);
	if (fflush(dat.f) || fflush(gp.f)) {
		cb_fail(e, CB_EXIT_RUNTIME, "cannot write beside %s: %s", output, strerror(errno));
		goto out;
	}
	ret = cb_gp_draw(&img, &dat, &gp, output, e);
	if (!ret)
		ret = cb_outfile_commit(&dat, e) || cb_outfile_commit(&gp, e) ||
		      cb_outfile_commit(&img, e) ? -1 : 0;
out:
	cb_outfile_abort(&img);
	cb_outfile_abort(&dat);
	cb_outfile_abort(&gp);
	free(stem);
	free(scopy);
	free(ocopy);
	cb_str_free(&datname);
	cb_str_free(&gpname);
	return ret;
}
