// SPDX-License-Identifier: GPL-2.0
/*
 * figures.c - a point's figures and the rule for a figure net of the loop
 * (figures.h).
 */
#include <math.h>

#include "figures.h"

int cb_net_resolvable(double call, double loop, double jitter)
{
	double net = call - loop;

	if (!(net > 0) || !isfinite(net))
		return 0;
	return net >= CB_NET_LOOP_SHARE * loop &&
	       net >= CB_NET_NOISE_TIMES * (jitter > 0 ? jitter : 0);
}

double cb_result_call(const struct cb_result *r, int median)
{
	double call = median ? r->call_median : r->call_min;

	return isfinite(call) && call > 0 ? call : (median ? r->median : r->min) + r->baseline;
}

void cb_result_no_latency(struct cb_result *r)
{
	r->lat_min = NAN;
	r->lat_q02 = NAN;
	r->lat_median = NAN;
	r->lat_chain = NAN;
	r->lat_slow_delivered = NAN;
	r->lat_control_ratio = NAN;
}

double cb_result_latency(const struct cb_result *r, int median)
{
	return median ? r->lat_median : r->lat_min;
}

double cb_point_call(const struct cb_record_point *p, int median)
{
	if (median && CB_POINT_HAS(p, call_median))
		return p->call_median;
	if (!median && CB_POINT_HAS(p, call_min))
		return p->call_min;
	return (median ? p->cycles_median : p->cycles_min) + p->baseline_cycles;
}

double cb_point_latency(const struct cb_record_point *p, int median)
{
	if (median)
		return CB_POINT_HAS(p, latency_median) ? p->latency_median : NAN;
	return CB_POINT_HAS(p, latency_min) ? p->latency_min : NAN;
}
