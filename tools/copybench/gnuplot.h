/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot.h - an image drawn by gnuplot (Debian gnuplot-nox), with its
 * data (FILE.dat) and its script (FILE.gp) left beside it so a person can
 * restyle it ("cd DIR; gnuplot FILE.gp"): the three appear together or
 * not at all. plot and placement draw with it.
 */
#ifndef CB_GNUPLOT_H
#define CB_GNUPLOT_H

#include <stdio.h>

#include "util.h"

/**
 * struct cb_gp_writer - what an image is made of.
 * @data: writes the data file
 * @script: writes the script, after cb_gp_head() wrote its first lines;
 *	the data file is "datafile" in it
 * @ctx: passed to both
 * @height: the image's height in pixels, 0 for the default (700; 1200 wide)
 */
struct cb_gp_writer {
	void (*data)(FILE *f, void *ctx);
	void (*script)(FILE *f, void *ctx);
	void *ctx;
	unsigned int height;
};

/*
 * cb_gnuplot_write - output (FILE.svg or FILE.png), FILE.dat and FILE.gp,
 * whole or not at all. 0, or -1 with e set: exit 2 for a name that is
 * not .svg or .png, 1 when gnuplot is missing or fails.
 */
int cb_gnuplot_write(const char *output, const struct cb_gp_writer *w, struct cb_error *e);

/*
 * 0 when output is a name cb_gnuplot_write() takes; else -1 with e naming
 * the option opt ("-o", "--plot") and what is accepted (exit 2).
 */
int cb_gnuplot_name_ok(const char *opt, const char *output, struct cb_error *e);

/*
 * s as a gnuplot single-quoted string into b: quotes doubled, control
 * characters as spaces. Titles come from records, which anyone can write:
 * nothing in them may end the string and run as gnuplot commands, and in
 * single quotes gnuplot expands neither backslashes nor `command`s.
 */
void cb_gp_str(struct cb_str *b, const char *s);

/* A line of text for a '#' comment: no line breaks. */
void cb_gp_comment(FILE *f, const char *prefix, const char *s);

#endif /* CB_GNUPLOT_H */
