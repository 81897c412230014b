// SPDX-License-Identifier: GPL-2.0
/*
 * cb_trace.c - defines copybench's tracepoints (cb_trace.h), once.
 */
#define CREATE_TRACE_POINTS
#include "cb_trace.h"
