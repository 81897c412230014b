/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - the human output of a finished sweep or alias (report.c):
 * tables per direction x variant, or their plateaus, in the estimator and
 * clock asked.
 */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdio.h>

#include "interleave.h"
#include "plan.h"

/* m[0..n) in plan order; b the backend (variant names, tsc_khz). */
void cb_report_tables(FILE *f, const struct cb_job *r, const struct cb_backend *b,
		      const struct cb_measured *m, size_t n);
void cb_report_plateaus(FILE *f, const struct cb_job *r, const struct cb_backend *b,
			const struct cb_measured *m, size_t n);

#endif /* CB_REPORT_H */
