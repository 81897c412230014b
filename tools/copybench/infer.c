// SPDX-License-Identifier: GPL-2.0
/*
 * infer.c - the inferential statistics of copybench compare: Mann-Whitney U
 * with its exact distribution and Hodges-Lehmann estimates, the decision,
 * a seeded percentile bootstrap, LKP's range rule, and the controls' drift.
 * The API and its units are in infer.h; the reasoning in
 * Documentation/compare.rst; expected values in the infer tests
 * (infer_test.c, infer_checks_test.c, infer_input_test.c) come from
 * tools/copybench/infer_ref.py, written apart from this file.
 */
#define _DEFAULT_SOURCE		/* lgamma_r: lgamma() writes a global */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "stats.h"
#include "util.h"

#define INFER_CHANGE(e, name)	name,
static const char *const infer_change_names[] = {
#include "infer.h"
};
#undef INFER_CHANGE

#define INFER_WHY(e, name)	name,
static const char *const infer_why_names[] = {
#include "infer.h"
};
#undef INFER_WHY


const char *infer_change_name(enum infer_change change)
{
	if ((unsigned int)change >= ARRAY_SIZE(infer_change_names))
		return "?";
	return infer_change_names[change];
}

const char *infer_why_name(enum infer_why why)
{
	if ((unsigned int)why >= ARRAY_SIZE(infer_why_names))
		return "?";
	return infer_why_names[why];
}

int infer_params_check(const struct infer_params *par)
{
	if (!par)
		return -EINVAL;
	/* Written so that NaN fails every test. */
	if (!(par->alpha > 0 && par->alpha <= 0.5))
		return -EINVAL;
	if (!(par->threshold >= 0 && par->threshold < 10))
		return -EINVAL;
	if (par->resamples < INFER_BOOT_MIN || par->resamples > INFER_BOOT_MAX)
		return -EINVAL;
	return 0;
}

/* ---- Small helpers ------------------------------------------------------ */

/* 0 when v[0..n-1] are all finite, -EINVAL otherwise. */
static int infer_check_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -EINVAL;
	return 0;
}

static bool infer_all_positive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(v[i] > 0))
			return false;
	return true;
}

/* The arguments every two-sample function takes. */
static int infer_check_samples(const double *x, size_t nx, const double *y, size_t ny)
{
	if (!x || !y || !nx || !ny)
		return -EINVAL;
	if (nx > INFER_MAX_N || ny > INFER_MAX_N)
		return -E2BIG;
	if (infer_check_finite(x, nx) || infer_check_finite(y, ny))
		return -EINVAL;
	return 0;
}

/* C(n, k) in floating point (exact while it fits 53 bits). */
static double infer_binomial(size_t n, size_t k)
{
	double c = 1;
	size_t i;

	if (k > n - k)
		k = n - k;
	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/* log C(n, k), for the hypergeometric law where C(n, k) overflows. */
static double infer_log_binomial(size_t n, size_t k)
{
	int sign;

	return lgamma_r((double)n + 1, &sign) - lgamma_r((double)k + 1, &sign) -
	       lgamma_r((double)(n - k) + 1, &sign);
}

/*
 * Fisher's exact test of a 2x2 table, two-sided: a of n1 against c of n2.
 * The p of every table with the margins kept whose probability is at most
 * the observed one's (a relative 1e-7 for rounding), summed.
 */
static double infer_fisher(size_t a, size_t n1, size_t c, size_t n2)
{
	size_t m = a + c, n = n1 + n2, k, lo, hi;
	double lt = infer_log_binomial(n, m), obs, p = 0;

	lo = m > n2 ? m - n2 : 0;
	hi = m < n1 ? m : n1;
	obs = infer_log_binomial(n1, a) + infer_log_binomial(n2, c) - lt;
	for (k = lo; k <= hi; k++) {
		double lk = infer_log_binomial(n1, k) + infer_log_binomial(n2, m - k) - lt;

		if (lk <= obs + 1e-7)
			p += exp(lk);
	}
	return fmin(1, p);
}

/* ---- Mann-Whitney U ------------------------------------------------------ */

struct infer_pooled {
	double v;
	bool is_y;
};

static int infer_cmp_pooled(const void *a, const void *b)
{
	double x = ((const struct infer_pooled *)a)->v, y = ((const struct infer_pooled *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Rank the pooled sample: r2[i] is twice the midrank of the i-th value in
 * sorted order (an integer: a tie group over 1-based ranks a..b has
 * midrank (a + b) / 2). Returns the doubled rank sum of y and sets
 * *tie_term to sum(t^3 - t) over tie groups of size t.
 */
static long infer_rank_pooled(const struct infer_pooled *p, size_t n, long *r2,
			double *tie_term)
{
	long sum_y = 0;
	size_t i, j, k;

	*tie_term = 0;
	for (i = 0; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && p[j].v == p[i].v; j++)
			;
		for (k = i; k < j; k++)
			r2[k] = (long)(i + 1) + (long)j;	/* (i+1) + (j-1+1) */
		t = (double)(j - i);
		*tie_term += t * t * t - t;
	}
	for (i = 0; i < n; i++)
		if (p[i].is_y)
			sum_y += r2[i];
	return sum_y;
}

/*
 * Exact two-sided p of a doubled rank sum t_obs of k values drawn from the
 * n doubled ranks r2[]: the share of the C(n, k) subsets whose sum is at
 * least as far from its mean k * (n + 1) as t_obs. Counts subsets by sum
 * (count[j][s]: subsets of j values summing to s), adding one value at a
 * time.
 */
static int infer_mwu_exact(const long *r2, size_t n, size_t k, long t_obs,
		     double *p)
{
	long smax, mean2 = (long)k * (long)(n + 1), dev, *prefix;
	double *count, total = 0, tail = 0;
	size_t i, j;
	long s;

	prefix = malloc((n + 1) * sizeof(*prefix));
	if (!prefix)
		return -ENOMEM;
	prefix[0] = 0;
	for (i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + r2[i];
	smax = prefix[n] - prefix[n - k];	/* r2 is ascending */
	count = calloc((k + 1) * (size_t)(smax + 1), sizeof(*count));
	if (!count) {
		free(prefix);
		return -ENOMEM;
	}
#define INFER_COUNT(j, s)	count[(j) * (size_t)(smax + 1) + (size_t)(s)]
	INFER_COUNT(0, 0) = 1;
	for (i = 0; i < n; i++) {
		for (j = i + 1 < k ? i + 1 : k; j >= 1; j--) {
			/*
			 * j values among the first i + 1: between the j
			 * smallest and the j largest of them.
			 */
			long hi = prefix[i + 1] - prefix[i + 1 - j];
			long lo = r2[i] + prefix[j - 1];

			for (s = hi; s >= lo; s--)
				INFER_COUNT(j, s) += INFER_COUNT(j - 1, s - r2[i]);
		}
	}
	dev = labs(t_obs - mean2);
	for (s = 0; s <= smax; s++) {
		double c = INFER_COUNT(k, s);

		total += c;
		if (labs(s - mean2) >= dev)
			tail += c;
	}
#undef INFER_COUNT
	free(count);
	free(prefix);
	*p = fmin(1, tail / total);
	return 0;
}

/*
 * Median of f(y_j, x_i) over all nx * ny pairs, f the difference or the
 * difference of logs (the caller exponentiates).
 */
static int infer_pairwise_median(const double *x, size_t nx, const double *y,
			   size_t ny, bool logs, double *med)
{
	size_t i, j, n = 0;
	double *d;

	d = malloc(nx * ny * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (j = 0; j < ny; j++)
		for (i = 0; i < nx; i++)
			d[n++] = logs ? log(y[j]) - log(x[i]) : y[j] - x[i];
	*med = cb_stats_median_unsorted(d, n);
	free(d);
	return 0;
}

/* Normal approximation: continuity correction, tie-corrected variance. */
static void infer_mwu_normal(struct infer_mwu *r, double tie_term)
{
	double nx = (double)r->nx, ny = (double)r->ny, n = nx + ny;
	double var = nx * ny / 12 * ((n + 1) - tie_term / (n * (n - 1)));
	double d = r->u - nx * ny / 2;

	if (!(var > 0)) {
		r->z = 0;
		r->p = 1;
		return;
	}
	r->z = copysign(fmax(fabs(d) - 0.5, 0), d) / sqrt(var);
	r->p = fmin(1, erfc(fabs(r->z) / sqrt(2.0)));
}

/* The Hodges-Lehmann shift into r, and the ratio when every value is positive (else NaN). */
static int infer_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny,
				struct infer_mwu *r)
{
	int err = infer_pairwise_median(x, nx, y, ny, false, &r->hl_shift);

	r->hl_ratio = NAN;
	if (err || !infer_all_positive(x, nx) || !infer_all_positive(y, ny))
		return err;
	err = infer_pairwise_median(x, nx, y, ny, true, &r->hl_ratio);
	if (!err)
		r->hl_ratio = exp(r->hl_ratio);
	return err;
}

/* The two-sided normal critical value: erfc(z / sqrt 2) = p2. */
static double infer_z_crit(double p2)
{
	double lo = 0, hi = 40;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2.0)) > p2)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static int infer_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int infer_hl_interval(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		      double *lo, double *hi)
{
	double n = (double)(nx + ny), m = (double)nx * (double)ny, kd, *d;
	size_t i, j, k = 0, c = 0;

	if (!lo || !hi || !(alpha > 0 && alpha < 1) || (nx && !x) || (ny && !y))
		return -EINVAL;
	if (nx > INFER_MAX_N || ny > INFER_MAX_N)
		return -E2BIG;
	if (infer_check_finite(x, nx) || infer_check_finite(y, ny))
		return -EINVAL;
	if (!nx || !ny)
		return -ENODATA;
	if (!infer_all_positive(x, nx) || !infer_all_positive(y, ny))
		return -EDOM;
	/* k: pairs cut at each end, from U's normal approximation. */
	kd = floor(m / 2 - infer_z_crit(alpha) * sqrt(m * (n + 1) / 12));
	if (kd < 0) {
		*lo = 0;
		*hi = INFINITY;
		return 0;
	}
	k = (size_t)kd;
	d = malloc(nx * ny * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (j = 0; j < ny; j++)
		for (i = 0; i < nx; i++)
			d[c++] = log(y[j]) - log(x[i]);
	qsort(d, c, sizeof(*d), infer_cmp_double);
	*lo = exp(d[k]);
	*hi = exp(d[c - 1 - k]);
	free(d);
	return 0;
}

int infer_mwu(const double *x, size_t nx, const double *y, size_t ny,
	      enum infer_method method, struct infer_mwu *res)
{
	size_t n = nx + ny, i;
	struct infer_mwu r = { .nx = nx, .ny = ny };
	struct infer_pooled *p;
	double tie_term;
	long *r2, sum_y;
	int err;

	err = infer_check_samples(x, nx, y, ny);
	if (err)
		return err;
	if (!res || method > INFER_NORMAL)
		return -EINVAL;
	if (method == INFER_EXACT && n > INFER_MWU_EXACT_MAX)
		return -E2BIG;

	p = malloc(n * sizeof(*p));
	r2 = malloc(n * sizeof(*r2));
	if (!p || !r2) {
		err = -ENOMEM;
		goto free_bufs;
	}
	for (i = 0; i < nx; i++)
		p[i] = (struct infer_pooled){ x[i], false };
	for (i = 0; i < ny; i++)
		p[nx + i] = (struct infer_pooled){ y[i], true };
	qsort(p, n, sizeof(*p), infer_cmp_pooled);
	sum_y = infer_rank_pooled(p, n, r2, &tie_term);

	r.u = (double)sum_y / 2 - (double)ny * (double)(ny + 1) / 2;
	r.ties = tie_term > 0;
	r.min_p = infer_mwu_min_p(nx, ny);
	infer_mwu_normal(&r, tie_term);
	if (method == INFER_EXACT ||
	    (method == INFER_AUTO && n <= INFER_MWU_EXACT_AUTO)) {
		/*
		 * Count subsets of the smaller side: its doubled rank sum
		 * is n(n+1) minus the other's, as far from its mean.
		 */
		if (ny <= nx)
			err = infer_mwu_exact(r2, n, ny, sum_y, &r.p);
		else
			err = infer_mwu_exact(r2, n, nx,
					(long)(n * (n + 1)) - sum_y, &r.p);
		if (err)
			goto free_bufs;
		r.exact = true;
	}

	err = infer_hodges_lehmann(x, nx, y, ny, &r);
	if (err)
		goto free_bufs;
	*res = r;
free_bufs:
	free(p);
	free(r2);
	return err;
}

double infer_mwu_min_p(size_t nx, size_t ny)
{
	if (!nx || !ny)
		return 1;
	return fmin(1, 2 / infer_binomial(nx + ny, nx));
}

size_t infer_mwu_min_repeats(double alpha, size_t n_other)
{
	size_t n;

	if (!(alpha > 0) || n_other > INFER_MAX_N)
		return 0;
	for (n = 1; n <= INFER_MAX_N; n++)
		if (infer_mwu_min_p(n_other ? n_other : n, n) <= alpha)
			return n;
	return 0;
}

/* ---- The decision -------------------------------------------------------- */

static int infer_decide_on(const double *base, size_t nb, const double *new, size_t nn,
			   const struct infer_params *par, bool by_level,
			   struct infer_verdict *v)
{
	struct infer_verdict r = { .change = INFER_INCONCLUSIVE,
				   .ratio = NAN, .change_pct = NAN };
	bool significant, big;
	int err;

	if (!v || infer_params_check(par) || (nb && !base) || (nn && !new))
		return -EINVAL;
	if (nb > INFER_MAX_N || nn > INFER_MAX_N)
		return -E2BIG;
	if (infer_check_finite(base, nb) || infer_check_finite(new, nn))
		return -EINVAL;
	if (!nb || !nn) {
		r.why = INFER_WHY_NO_DATA;
		goto out;
	}
	if (!infer_all_positive(base, nb) || !infer_all_positive(new, nn)) {
		r.why = INFER_WHY_NOT_POSITIVE;
		goto out;
	}
	err = infer_mwu(base, nb, new, nn, INFER_AUTO, &r.mwu);
	if (err)
		return err;
	r.ratio = r.mwu.hl_ratio;
	r.p = r.mwu.p;
	r.min_p = r.mwu.min_p;
	r.exact = r.mwu.exact;
	if (by_level) {
		err = infer_level(base, nb, new, nn, par, &r.level);
		if (err)
			return err;
		r.by_level = true;
		r.ratio = r.level.ratio;
		r.p = r.level.p;
		r.min_p = r.level.min_p;
		r.exact = r.level.exact;
	}
	r.change_pct = 100 * (r.ratio - 1);
	if (r.min_p > par->alpha) {
		r.why = INFER_WHY_FEW_REPEATS;
		r.repeats_needed = infer_mwu_min_repeats(par->alpha, 0);
		goto out;
	}
	significant = r.p <= par->alpha;
	big = fabs(r.ratio - 1) > par->threshold;
	if (significant && big)
		r.change = r.ratio > 1 ? INFER_REGRESSED : INFER_IMPROVED;
	else
		r.change = INFER_UNCHANGED;
out:
	*v = r;
	return 0;
}

int infer_decide(const double *base, size_t nb, const double *new, size_t nn,
		 const struct infer_params *par, struct infer_verdict *v)
{
	return infer_decide_on(base, nb, new, nn, par, false, v);
}

int infer_decide_level(const double *base, size_t nb, const double *new, size_t nn,
		       const struct infer_params *par, struct infer_verdict *v)
{
	return infer_decide_on(base, nb, new, nn, par, true, v);
}

/* ---- Placement ------------------------------------------------------------ */

int infer_placement(const double *base, size_t nb, const double *new, size_t nn,
		    const struct infer_params *par, struct infer_placement *res)
{
	struct infer_placement r = { .gap = 1 };
	double bmin, bmax, nmin, nmax, up;

	if (!res || infer_params_check(par) || !base || !new || !nb || !nn)
		return -EINVAL;
	if (nb > INFER_MAX_N || nn > INFER_MAX_N)
		return -E2BIG;
	if (infer_check_finite(base, nb) || infer_check_finite(new, nn))
		return -EINVAL;
	if (!infer_all_positive(base, nb) || !infer_all_positive(new, nn))
		return -EDOM;
	bmin = cb_stats_min(base, nb);
	bmax = cb_stats_max(base, nb);
	nmin = cb_stats_min(new, nn);
	nmax = cb_stats_max(new, nn);
	r.base_spread = (bmax - bmin) / bmin;
	r.new_spread = (nmax - nmin) / nmin;
	r.sensitive = r.base_spread > par->threshold || r.new_spread > par->threshold;
	if (nmin > bmax)
		r.gap = nmin / bmax;
	else if (nmax < bmin)
		r.gap = nmax / bmin;
	up = 1 + par->threshold;
	r.beyond = r.gap > up ? 1 : r.gap * up < 1 ? -1 : 0;
	*res = r;
	return 0;
}

double infer_poibin_tail(const double *p, size_t n, size_t k)
{
	double *f, tail = 0;
	size_t i, j;

	if ((n && !p) || n > INFER_DRIFT_MAX_N)
		return NAN;
	for (i = 0; i < n; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return NAN;
	if (!k)
		return 1;
	if (k > n)
		return 0;
	/* f[j]: the chance of j successes so far, one trial at a time. */
	f = calloc(n + 1, sizeof(*f));
	if (!f)
		return NAN;
	f[0] = 1;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j > 0; j--)
			f[j] = f[j] * (1 - p[i]) + f[j - 1] * p[i];
		f[0] *= 1 - p[i];
	}
	for (j = k; j <= n; j++)
		tail += f[j];
	free(f);
	return tail > 1 ? 1 : tail;
}

/* ---- RNG: xoshiro256** seeded by infer_splitmix64 ------------------------------ */

static uint64_t infer_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t infer_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void infer_rng_seed(struct infer_rng *rng, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = infer_splitmix64(&seed);
}

uint64_t infer_rng_next(struct infer_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = infer_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = infer_rotl(s[3], 45);
	return result;
}

uint64_t infer_rng_below(struct infer_rng *rng, uint64_t n)
{
	/* 2^64 mod n: draws below it would make low residues likelier. */
	uint64_t reject_below = -n % n, r;

	do
		r = infer_rng_next(rng);
	while (r < reject_below);
	return r % n;
}

/* ---- The fast level -------------------------------------------------------- */

static size_t infer_level_k(size_t n)
{
	size_t k = (size_t)ceil(INFER_LEVEL_SHARE * (double)n - 1e-9);

	return k < 1 ? 1 : k > n ? n : k;
}

/* The mean of the k smallest of n sorted logs. */
static double infer_low_mean(const double *sorted, size_t k)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < k; i++)
		sum += sorted[i];
	return sum / (double)k;
}

/*
 * The statistic of one labelling of the pooled logs l[0..n) (sorted):
 * in[i] says l[i] is the new side's. The mean of the new side's kn
 * smallest less the base's kb smallest.
 */
static double infer_level_stat(const double *l, const unsigned char *in, size_t n, size_t kb,
			       size_t kn)
{
	double sb = 0, sn = 0;
	size_t i, cb = 0, cn = 0;

	for (i = 0; i < n && (cb < kb || cn < kn); i++) {
		if (in[i] && cn < kn) {
			sn += l[i];
			cn++;
		} else if (!in[i] && cb < kb) {
			sb += l[i];
			cb++;
		}
	}
	return sn / (double)kn - sb / (double)kb;
}

/* Whether |t| reaches the observed |obs| (a relative hair for rounding). */
static bool infer_level_hit(double t, double obs)
{
	return fabs(t) >= fabs(obs) - 1e-12 * (1 + fabs(obs));
}

/* Every labelling with nn of the n pooled values new: hits, count. */
static void infer_level_exact(const double *l, size_t n, size_t nn, size_t kb, size_t kn,
			      double obs, unsigned char *in, double *hits, double *count)
{
	size_t idx[INFER_MAX_N], i, j;

	for (i = 0; i < nn; i++)
		idx[i] = i;
	*hits = *count = 0;
	for (;;) {
		memset(in, 0, n);
		for (i = 0; i < nn; i++)
			in[idx[i]] = 1;
		*hits += infer_level_hit(infer_level_stat(l, in, n, kb, kn), obs);
		*count += 1;
		/* The next combination of nn indices of n, in lexicographic order. */
		for (i = nn; i-- > 0;)
			if (idx[i] != i + n - nn)
				break;
		if (i == (size_t)-1)
			return;
		idx[i]++;
		for (j = i + 1; j < nn; j++)
			idx[j] = idx[j - 1] + 1;
	}
}

/* par->resamples random labellings with nn of the n new. */
static void infer_level_random(const double *l, size_t n, size_t nn, size_t kb, size_t kn,
			       double obs, const struct infer_params *par, unsigned char *in,
			       double *hits, double *count)
{
	struct infer_rng rng;
	unsigned char t;
	unsigned int b;
	size_t i, j;

	infer_rng_seed(&rng, par->seed);
	memset(in, 0, n);
	memset(in, 1, nn);
	*hits = 1;	/* the observed labelling is one of them */
	*count = 1;
	for (b = 0; b < par->resamples; b++) {
		for (i = n; i > 1; i--) {
			j = (size_t)infer_rng_below(&rng, i);
			t = in[i - 1];
			in[i - 1] = in[j];
			in[j] = t;
		}
		*hits += infer_level_hit(infer_level_stat(l, in, n, kb, kn), obs);
		*count += 1;
	}
}

/* A side's level resampled: n logs drawn from v into buf, sorted. */
static double infer_level_resample(struct infer_rng *rng, const double *v, size_t n, size_t k,
				   double *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = v[infer_rng_below(rng, n)];
	cb_stats_sort(buf, n);
	return infer_low_mean(buf, k);
}

struct infer_pair {
	double v;
	unsigned char in;
};

static int infer_pair_cmp(const void *a, const void *b)
{
	double x = ((const struct infer_pair *)a)->v, y = ((const struct infer_pair *)b)->v;

	return x < y ? -1 : x > y;
}

/* The mean log of the fastest infer_level_k(n) of v[0..n), or NaN. */
static double infer_side_level(const double *v, size_t n)
{
	double *l, m;
	size_t i;

	if (!n || n > INFER_MAX_N || !infer_all_positive(v, n) || infer_check_finite(v, n))
		return NAN;
	l = malloc(n * sizeof(*l));
	if (!l)
		return NAN;
	for (i = 0; i < n; i++)
		l[i] = log(v[i]);
	cb_stats_sort(l, n);
	m = infer_low_mean(l, infer_level_k(n));
	free(l);
	return m;
}

double infer_fast_level(const double *v, size_t n)
{
	return exp(infer_side_level(v, n));
}

double infer_level_ratio(const double *x, size_t nx, const double *y, size_t ny)
{
	return exp(infer_side_level(y, ny) - infer_side_level(x, nx));
}

int infer_level(const double *x, size_t nx, const double *y, size_t ny,
		const struct infer_params *par, struct infer_level *res)
{
	struct infer_level r = { 0 };
	size_t n = nx + ny, i;
	double *lx = NULL, *ly = NULL, *l = NULL, *ratios = NULL, *buf = NULL, obs, hits, count;
	double line;
	struct infer_pair *pool = NULL;
	unsigned char *in = NULL;
	struct infer_rng rng;
	unsigned int b;
	int err;

	err = infer_check_samples(x, nx, y, ny);
	if (err)
		return err;
	if (!res || infer_params_check(par))
		return -EINVAL;
	if (!infer_all_positive(x, nx) || !infer_all_positive(y, ny))
		return -EDOM;
	lx = malloc(nx * sizeof(*lx));
	ly = malloc(ny * sizeof(*ly));
	l = malloc(n * sizeof(*l));
	pool = malloc(n * sizeof(*pool));
	in = malloc(n);
	ratios = malloc(par->resamples * sizeof(*ratios));
	buf = malloc(n * sizeof(*buf));
	err = -ENOMEM;
	if (!lx || !ly || !l || !pool || !in || !ratios || !buf)
		goto out;
	for (i = 0; i < nx; i++)
		pool[i] = (struct infer_pair){ .v = lx[i] = log(x[i]), .in = 0 };
	for (i = 0; i < ny; i++)
		pool[nx + i] = (struct infer_pair){ .v = ly[i] = log(y[i]), .in = 1 };
	cb_stats_sort(lx, nx);
	cb_stats_sort(ly, ny);
	qsort(pool, n, sizeof(*pool), infer_pair_cmp);
	for (i = 0; i < n; i++)
		l[i] = pool[i].v;
	r.k_base = infer_level_k(nx);
	r.k_new = infer_level_k(ny);
	r.base = exp(infer_low_mean(lx, r.k_base));
	r.new = exp(infer_low_mean(ly, r.k_new));
	obs = log(r.new) - log(r.base);
	r.ratio = exp(obs);
	r.min_p = infer_mwu_min_p(nx, ny);
	r.exact = infer_binomial(n, ny) <= INFER_LEVEL_EXACT_MAX;
	if (r.exact)
		infer_level_exact(l, n, ny, r.k_base, r.k_new, obs, in, &hits, &count);
	else
		infer_level_random(l, n, ny, r.k_base, r.k_new, obs, par, in, &hits, &count);
	r.p = fmin(1, hits / count);
	infer_rng_seed(&rng, par->seed);
	for (b = 0; b < par->resamples; b++) {
		double bx = infer_level_resample(&rng, lx, nx, r.k_base, buf);

		ratios[b] = exp(infer_level_resample(&rng, ly, ny, r.k_new, buf) - bx);
	}
	cb_stats_sort(ratios, par->resamples);
	r.lo = cb_stats_quantile(ratios, par->resamples, par->alpha / 2);
	r.hi = cb_stats_quantile(ratios, par->resamples, 1 - par->alpha / 2);
	for (i = 0; i < nx; i++)
		r.at_base += x[i] <= r.base * (1 + INFER_LEVEL_BAND);
	for (i = 0; i < ny; i++)
		r.at_new += y[i] <= r.new * (1 + INFER_LEVEL_BAND);
	line = exp(infer_low_mean(l, infer_level_k(n))) * (1 + INFER_LEVEL_BAND);
	for (i = 0; i < nx; i++)
		r.share_base += x[i] <= line;
	for (i = 0; i < ny; i++)
		r.share_new += y[i] <= line;
	r.share_p = infer_fisher(r.share_base, nx, r.share_new, ny);
	*res = r;
	err = 0;
out:
	free(lx);
	free(ly);
	free(l);
	free(pool);
	free(in);
	free(ratios);
	free(buf);
	return err;
}

/*
 * One side's statistic of processes idx[0..n) (NULL: 0..n-1) of a[] and
 * r[] (logs): the mean of a's k smallest less the mean of r's k smallest.
 */
static double infer_pair_side(const double *a, const double *r, const size_t *idx, size_t n,
			      size_t k, double *ba, double *br)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ba[i] = a[idx ? idx[i] : i];
		br[i] = r[idx ? idx[i] : i];
	}
	cb_stats_sort(ba, n);
	cb_stats_sort(br, n);
	return infer_low_mean(ba, k) - infer_low_mean(br, k);
}

int infer_level_pair(const double *xa, const double *xr, size_t nx, const double *ya,
		     const double *yr, size_t ny, const struct infer_params *par,
		     struct infer_pair_level *res)
{
	size_t n = nx + ny, i, j, t, kb, kn, *idx = NULL;
	double *la = NULL, *lr = NULL, *ba = NULL, *br = NULL, *ratios = NULL, obs, st, hits = 1;
	struct infer_rng rng;
	unsigned int b;
	int err;

	err = infer_check_samples(xa, nx, ya, ny) ?: infer_check_samples(xr, nx, yr, ny);
	if (err)
		return err;
	if (!res || infer_params_check(par))
		return -EINVAL;
	if (!infer_all_positive(xa, nx) || !infer_all_positive(ya, ny) ||
	    !infer_all_positive(xr, nx) || !infer_all_positive(yr, ny))
		return -EDOM;
	err = -ENOMEM;
	la = malloc(n * sizeof(*la));
	lr = malloc(n * sizeof(*lr));
	ba = malloc(n * sizeof(*ba));
	br = malloc(n * sizeof(*br));
	idx = malloc(n * sizeof(*idx));
	ratios = malloc(par->resamples * sizeof(*ratios));
	if (!la || !lr || !ba || !br || !idx || !ratios)
		goto out;
	/* Pooled: base's processes first, then new's. */
	for (i = 0; i < nx; i++) {
		la[i] = log(xa[i]);
		lr[i] = log(xr[i]);
	}
	for (i = 0; i < ny; i++) {
		la[nx + i] = log(ya[i]);
		lr[nx + i] = log(yr[i]);
	}
	kb = infer_level_k(nx);
	kn = infer_level_k(ny);
	obs = infer_pair_side(la + nx, lr + nx, NULL, ny, kn, ba, br) -
	      infer_pair_side(la, lr, NULL, nx, kb, ba, br);
	res->ratio = exp(obs);
	/* Permutations of the processes' labels (each keeps its pair). */
	infer_rng_seed(&rng, par->seed);
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (b = 0; b < par->resamples; b++) {
		for (i = n; i > 1; i--) {
			j = (size_t)infer_rng_below(&rng, i);
			t = idx[i - 1];
			idx[i - 1] = idx[j];
			idx[j] = t;
		}
		st = infer_pair_side(la, lr, idx + nx, ny, kn, ba, br) -
		     infer_pair_side(la, lr, idx, nx, kb, ba, br);
		hits += infer_level_hit(st, obs);
	}
	res->p = fmin(1, hits / (par->resamples + 1.0));
	/* The bootstrap: each side's processes drawn again, pairs kept. */
	for (b = 0; b < par->resamples; b++) {
		for (i = 0; i < nx; i++)
			idx[i] = infer_rng_below(&rng, nx);
		for (i = 0; i < ny; i++)
			idx[nx + i] = nx + infer_rng_below(&rng, ny);
		ratios[b] = exp(infer_pair_side(la, lr, idx + nx, ny, kn, ba, br) -
				infer_pair_side(la, lr, idx, nx, kb, ba, br));
	}
	cb_stats_sort(ratios, par->resamples);
	res->lo = cb_stats_quantile(ratios, par->resamples, par->alpha / 2);
	res->hi = cb_stats_quantile(ratios, par->resamples, 1 - par->alpha / 2);
	err = 0;
out:
	free(la);
	free(lr);
	free(ba);
	free(br);
	free(idx);
	free(ratios);
	return err;
}

/* ---- Bootstrap ------------------------------------------------------------ */

/* Median of n values drawn with replacement from v into buf. */
static double infer_resample_median(struct infer_rng *rng, const double *v, size_t n,
			      double *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = v[infer_rng_below(rng, n)];
	return cb_stats_median_unsorted(buf, n);
}

static double infer_median_of(const double *v, size_t n, double *buf)
{
	memcpy(buf, v, n * sizeof(*buf));
	return cb_stats_median_unsorted(buf, n);
}

int infer_boot_median_ratio(const double *x, size_t nx,
			    const double *y, size_t ny,
			    const struct infer_params *par,
			    struct infer_boot *res)
{
	double *ratios, *buf;
	struct infer_rng rng;
	unsigned int b;
	int err;

	err = infer_check_samples(x, nx, y, ny);
	if (err)
		return err;
	if (!res || infer_params_check(par))
		return -EINVAL;
	if (!infer_all_positive(x, nx) || !infer_all_positive(y, ny))
		return -EDOM;

	ratios = malloc(par->resamples * sizeof(*ratios));
	buf = malloc((nx > ny ? nx : ny) * sizeof(*buf));
	if (!ratios || !buf) {
		err = -ENOMEM;
		goto free_bufs;
	}
	infer_rng_seed(&rng, par->seed);
	for (b = 0; b < par->resamples; b++) {
		double mx = infer_resample_median(&rng, x, nx, buf);

		ratios[b] = infer_resample_median(&rng, y, ny, buf) / mx;
	}
	cb_stats_sort(ratios, par->resamples);

	res->lo = cb_stats_quantile(ratios, par->resamples, par->alpha / 2);
	res->hi = cb_stats_quantile(ratios, par->resamples, 1 - par->alpha / 2);
	res->ratio = infer_median_of(y, ny, buf) / infer_median_of(x, nx, buf);
	res->level = 1 - par->alpha;
	res->resamples = par->resamples;
free_bufs:
	free(ratios);
	free(buf);
	return err;
}

/* ---- LKP's range rule ---------------------------------------------------- */

#define INFER_LKP_MARGIN_SHIFT	5	/* lib/stats.rb MARGIN_SHIFT */
#define INFER_LKP_MAX_MARGIN		3	/* calculate_matrix_values, perf stats */
#define INFER_LKP_MAX_RATIO		5	/* lib/stats.rb MAX_RATIO */
#define INFER_LKP_MIN_RATIO		1.01	/* skip_small_change? */
#define INFER_LKP_MIN_RUNS		3	/* skip_regular_stat? */
#define INFER_LKP_GAP_DISTANCE	2	/* ChangedStat options['gap_distance'] */

struct infer_lkp_side {
	double min, mid, max;
	size_t n;
};

/* sort_remove_margin + min_mean_max: sorts v into buf, trims, summarises. */
static void infer_lkp_summary(const double *v, size_t n, size_t max_margin,
			double *buf, struct infer_lkp_side *s)
{
	size_t margin = n >> INFER_LKP_MARGIN_SHIFT;

	if (margin > max_margin)
		margin = max_margin;
	memcpy(buf, v, n * sizeof(*buf));
	cb_stats_sort(buf, n);
	buf += margin;
	s->n = n - 2 * margin;
	s->min = buf[0];
	s->mid = buf[s->n / 2];
	s->max = buf[s->n - 1];
}

/* ChangedStat#change?, a the new side and b the base as LKP names them. */
static bool infer_lkp_apart(const struct infer_lkp_side *a, const struct infer_lkp_side *b,
		      double distance)
{
	double gap;

	if (distance == 0)
		return (b->min > a->mid && b->mid > a->max) ||
		       (a->min > b->mid && a->mid > b->max);
	if (a->n < 3 || b->n < 3) {
		gap = fmax(a->max - a->min, b->max - b->min) * distance;
		return b->min - a->max > gap || a->min - b->max > gap;
	}
	return (b->min > a->max &&
		b->min - a->max > (b->mid - a->mid) / INFER_LKP_GAP_DISTANCE) ||
	       (a->min > b->max &&
		a->min - b->max > (a->mid - b->mid) / INFER_LKP_GAP_DISTANCE);
}

int infer_lkp(const double *base, size_t nb, const double *new, size_t nn,
	      double distance, struct infer_lkp *res)
{
	struct infer_lkp_side a, b;
	const struct infer_lkp_side *high, *low;
	double *buf;
	int err;

	err = infer_check_samples(base, nb, new, nn);
	if (err)
		return err;
	if (!res || !(distance >= 0) || !isfinite(distance))
		return -EINVAL;
	buf = malloc((nb > nn ? nb : nn) * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	infer_lkp_summary(base, nb, INFER_LKP_MAX_MARGIN, buf, &b);
	infer_lkp_summary(new, nn, nb <= 3 ? 1 : INFER_LKP_MAX_MARGIN, buf, &a);
	free(buf);

	res->base_min = b.min;
	res->base_mid = b.mid;
	res->base_max = b.max;
	res->new_min = a.min;
	res->new_mid = a.mid;
	res->new_max = a.max;
	/* calc_stats_metrics: the side with the higher mid is "high". */
	high = a.mid > b.mid ? &a : &b;
	low = high == &a ? &b : &a;
	res->ratio = low->mid > 0 ? high->mid / low->mid : INFER_LKP_MAX_RATIO;
	if (res->ratio > INFER_LKP_MAX_RATIO)
		res->ratio = INFER_LKP_MAX_RATIO;
	res->apart = infer_lkp_apart(&a, &b, distance);
	res->enough_runs = nb >= INFER_LKP_MIN_RUNS || nn >= INFER_LKP_MIN_RUNS;
	res->big_enough = res->ratio > INFER_LKP_MIN_RATIO;
	res->changed = res->apart && res->enough_runs && res->big_enough;
	res->regressed = res->changed && high == &a;
	return 0;
}

/* ---- Student's t ---------------------------------------------------------- */

#define INFER_LENTZ_TINY	1e-300	/* stands in for a zero denominator */

/* One step of the modified Lentz algorithm: returns the factor for f. */
static double infer_lentz_step(double *c, double *d, double coef)
{
	*d = 1 + coef * *d;
	if (fabs(*d) < INFER_LENTZ_TINY)
		*d = INFER_LENTZ_TINY;
	*c = 1 + coef / *c;
	if (fabs(*c) < INFER_LENTZ_TINY)
		*c = INFER_LENTZ_TINY;
	*d = 1 / *d;
	return *c * *d;
}

/*
 * Continued fraction of the regularized incomplete beta function I_x(a, b),
 * converging fast for x < (a + 1) / (a + b + 2).
 */
static double infer_beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), f, delta;
	int m;

	if (fabs(d) < INFER_LENTZ_TINY)
		d = INFER_LENTZ_TINY;
	d = 1 / d;
	f = d;
	for (m = 1; m <= 1000; m++) {
		f *= infer_lentz_step(&c, &d, m * (b - m) * x /
				((a + 2 * m - 1) * (a + 2 * m)));
		delta = infer_lentz_step(&c, &d, -(a + m) * (a + b + m) * x /
				   ((a + 2 * m) * (a + 2 * m + 1)));
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

static double infer_incomplete_beta(double a, double b, double x)
{
	double front;
	int sign;	/* a, b > 0: always 1 */

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma_r(a + b, &sign) - lgamma_r(a, &sign) -
		    lgamma_r(b, &sign) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * infer_beta_cf(a, b, x) / a;
	return 1 - front * infer_beta_cf(b, a, 1 - x) / b;
}

double infer_t_p2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return infer_incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double infer_t_crit(double p2, double df)
{
	double lo = 0, hi = 1;
	int i;

	if (!(p2 > 0 && p2 <= 1) || !(df > 0))
		return NAN;
	while (infer_t_p2(hi, df) > p2 && hi < 1e300)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (infer_t_p2(mid, df) > p2)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- Controls ------------------------------------------------------------- */

/*
 * Two-sided t p-value of a deviation dev with standard error se, df degrees
 * of freedom; se == 0 means no noise at all: any deviation is certain.
 */
static double infer_t_p_value(double dev, double se, double df)
{
	if (se == 0)
		return dev == 0 ? 1 : 0;
	return infer_t_p2(dev / se, df);
}

/*
 * A normal sample's standard deviation is 1.4826 x its median absolute
 * deviation; its median's standard error sqrt(pi / 2) = 1.2533 times the
 * mean's.
 */
#define INFER_MAD_TO_SD	1.4826
#define INFER_MEDIAN_SE	1.2533

int infer_drift(const double *ratios, size_t n, const struct infer_params *par,
		struct infer_drift *d)
{
	double *logs, med, sd, se, t;
	size_t i;

	if (!d || infer_params_check(par) || (n && !ratios))
		return -EINVAL;
	if (!n)
		return -ENODATA;
	if (n > INFER_DRIFT_MAX_N)
		return -E2BIG;
	if (infer_check_finite(ratios, n))
		return -EINVAL;
	if (!infer_all_positive(ratios, n))
		return -EDOM;
	logs = malloc(n * sizeof(*logs));
	if (!logs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		logs[i] = log(ratios[i]);
	sd = INFER_MAD_TO_SD * cb_stats_mad(logs, n);
	med = cb_stats_median_unsorted(logs, n);
	free(logs);
	if (isnan(sd))
		return -ENOMEM;

	d->n = n;
	d->ratio = exp(med);
	d->enough = n >= 2;
	d->procs_base = 0;
	d->procs_new = 0;
	d->by_process = false;
	if (!d->enough) {
		d->log_sd = 0;
		d->lo = 0;
		d->hi = INFINITY;
		d->p = 1;
		d->moved = false;
		return 0;
	}
	se = INFER_MEDIAN_SE * sd / sqrt((double)n);
	t = infer_t_crit(par->alpha, (double)(n - 1));
	d->log_sd = sd;
	d->lo = exp(med - t * se);
	d->hi = exp(med + t * se);
	d->p = infer_t_p_value(med, se, (double)(n - 1));
	d->moved = d->p <= par->alpha && fabs(d->ratio - 1) > par->threshold;
	return 0;
}

int infer_drift_processes(const double *base, size_t nb, const double *new, size_t nn,
			  const struct infer_params *par, struct infer_drift *d)
{
	struct infer_drift r;
	struct infer_mwu m;
	double *eb, *en, lo, hi;
	size_t i;
	int err;

	if (!d || infer_params_check(par) || !d->n || !(d->ratio > 0))
		return -EINVAL;
	err = infer_check_samples(base, nb, new, nn);
	if (err)
		return err;
	if (infer_mwu_min_p(nb, nn) > par->alpha)
		return 0;
	eb = malloc(nb * sizeof(*eb));
	en = malloc(nn * sizeof(*en));
	err = -ENOMEM;
	if (!eb || !en)
		goto out;
	for (i = 0; i < nb; i++)
		eb[i] = exp(base[i]);
	for (i = 0; i < nn; i++)
		en[i] = exp(new[i]);
	err = -EINVAL;
	if (infer_check_finite(eb, nb) || infer_check_finite(en, nn) ||
	    !infer_all_positive(eb, nb) || !infer_all_positive(en, nn))
		goto out;
	err = infer_mwu(eb, nb, en, nn, INFER_AUTO, &m);
	if (!err)
		err = infer_hl_interval(eb, nb, en, nn, par->alpha, &lo, &hi);
	if (err)
		goto out;
	r = *d;
	r.ratio = m.hl_ratio;
	r.lo = lo;
	r.hi = hi;
	r.p = m.p;
	r.moved = r.p <= par->alpha && fabs(r.ratio - 1) > par->threshold;
	r.procs_base = nb;
	r.procs_new = nn;
	r.by_process = true;
	*d = r;
out:
	free(eb);
	free(en);
	return err;
}

double infer_log_se(const double *x, size_t nx, const double *y, size_t ny)
{
	double *l, v = 0;
	size_t i, n = nx > ny ? nx : ny;

	if (!x || !y || !nx || !ny || infer_check_finite(x, nx) || infer_check_finite(y, ny) ||
	    !infer_all_positive(x, nx) || !infer_all_positive(y, ny))
		return NAN;
	l = malloc(n * sizeof(*l));
	if (!l)
		return NAN;
	for (i = 0; i < nx; i++)
		l[i] = log(x[i]);
	v += pow(cb_stats_stddev(l, nx, 1), 2) / (double)nx;
	for (i = 0; i < ny; i++)
		l[i] = log(y[i]);
	v += pow(cb_stats_stddev(l, ny, 1), 2) / (double)ny;
	free(l);
	return sqrt(v);
}

int infer_net(double native_ratio, double native_log_se, const struct infer_drift *d,
	      const struct infer_params *par, struct infer_net *res)
{
	double mean, se, t, df;
	struct infer_net r = { .raw = native_ratio };

	if (!d || !res || infer_params_check(par) || !isfinite(native_ratio) ||
	    !(native_log_se >= 0) || !isfinite(native_log_se) ||
	    !d->n || d->enough != (d->n >= 2) || !(d->ratio > 0) ||
	    !isfinite(d->ratio) || !(d->log_sd >= 0) || !isfinite(d->log_sd))
		return -EINVAL;
	if (!(native_ratio > 0))
		return -EDOM;
	r.net = native_ratio / d->ratio;
	if (!d->enough) {
		r.lo = 0;
		r.hi = INFINITY;
		r.p = 1;
		r.change = INFER_INCONCLUSIVE;
		r.why = INFER_WHY_FEW_CONTROLS;
		goto out;
	}
	/*
	 * A point that only drifted: the drift's median, give or take the
	 * controls' spread, the median's own error, and the native point's.
	 */
	mean = log(d->ratio);
	df = (double)(d->n - 1);
	se = sqrt(native_log_se * native_log_se + d->log_sd * d->log_sd *
		  (1 + INFER_MEDIAN_SE * INFER_MEDIAN_SE / (double)d->n));
	t = infer_t_crit(par->alpha, df);
	r.lo = exp(mean - t * se);
	r.hi = exp(mean + t * se);
	r.p = infer_t_p_value(log(native_ratio) - mean, se, df);
	r.distinct = r.p <= par->alpha;
	if (r.distinct && fabs(r.net - 1) > par->threshold)
		r.change = r.net > 1 ? INFER_REGRESSED : INFER_IMPROVED;
	else
		r.change = INFER_UNCHANGED;
out:
	*res = r;
	return 0;
}
