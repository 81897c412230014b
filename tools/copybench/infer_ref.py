#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# infer_ref.py - expected values for infer_test.c and infer_checks_test.c,
# derived apart from infer.c
#
# Usage: tools/copybench/infer_ref.py        (prints every case; ~10 s)
# Requires: python3 (standard library only: no scipy on these machines).
#
# infer.c ranks the pooled sample and counts subsets by doubled rank sum;
# this script uses other routes to the same numbers, so a shared mistake is
# unlikely:
#   - exact Mann-Whitney p by enumerating every split of the pooled values
#     (itertools.combinations) and counting U pair by pair, ties as 1/2;
#     for sizes too large to enumerate (no ties), the textbook recurrence on
#     the count of arrangements with a given U, f(m, n, u) = f(m-1, n, u-n)
#     + f(m, n-1, u);
#   - Hodges-Lehmann estimates as statistics.median of all pairs;
#   - Student's t tail by Simpson integration of its density (infer.c uses
#     the incomplete beta function), critical values by bisection;
#   - LKP's rule transliterated from intel/lkp-tests lib/stats.rb
#     (StatSummary, calc_stats_metrics, skip_small_change?) and
#     lib/changed_stat.rb (ChangedStat#change?);
#   - the bootstrap and its RNG written again from the algorithm in
#     infer.h (xoshiro256** seeded by splitmix64, rejection sampling, type-7
#     quantiles): it must agree with infer.c to the last bit;
#   - the fast level's permutation count by enumerating every split and
#     sorting each side again;
#   - Fisher's exact test of the shares at the level in exact integer
#     binomials (infer.c sums exp of log-gamma differences).
import itertools
import math
import statistics
from functools import lru_cache

M64 = (1 << 64) - 1


def mwu_u2(x, y):
    """Twice U of y: pairs with y > x count 2, ties 1."""
    return sum(2 if b > a else 1 if b == a else 0 for a in x for b in y)


def mwu_exact_enum(x, y):
    pooled = list(x) + list(y)
    nx, ny = len(x), len(y)
    n = nx + ny
    u2_obs = mwu_u2(x, y)
    mean2 = nx * ny  # twice nx*ny/2
    dev = abs(u2_obs - mean2)
    hits = total = 0
    for ys in itertools.combinations(range(n), ny):
        s = set(ys)
        yy = [pooled[i] for i in ys]
        xx = [pooled[i] for i in range(n) if i not in s]
        total += 1
        if abs(mwu_u2(xx, yy) - mean2) >= dev:
            hits += 1
    return u2_obs / 2, hits / total


@lru_cache(maxsize=None)
def u_count(m, n, u):
    """Arrangements of m x's and n y's with U (of y) == u, no ties."""
    if u < 0:
        return 0
    if m == 0 or n == 0:
        return 1 if u == 0 else 0
    # The largest value is a y (it beats all m x's) or an x.
    return u_count(m, n - 1, u - m) + u_count(m - 1, n, u)


def mwu_exact_recurrence(x, y):
    nx, ny = len(x), len(y)
    assert len(set(x) | set(y)) == nx + ny, "recurrence needs no ties"
    u = mwu_u2(x, y) // 2
    total = math.comb(nx + ny, nx)
    mean2 = nx * ny
    dev = abs(2 * u - mean2)
    hits = sum(u_count(nx, ny, v) for v in range(nx * ny + 1)
               if abs(2 * v - mean2) >= dev)
    return u, hits / total


def mwu_normal(x, y):
    nx, ny = len(x), len(y)
    n = nx + ny
    u = mwu_u2(x, y) / 2
    counts = {}
    for v in list(x) + list(y):
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = nx * ny / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 0.0, 1.0
    d = u - nx * ny / 2.0
    z = math.copysign(max(abs(d) - 0.5, 0.0), d) / math.sqrt(var)
    return z, min(1.0, math.erfc(abs(z) / math.sqrt(2)))


def hodges_lehmann(x, y):
    shift = statistics.median([b - a for a in x for b in y])
    ratio = math.exp(statistics.median([math.log(b) - math.log(a)
                                        for a in x for b in y]))
    return shift, ratio


def min_p(nx, ny):
    return min(1.0, 2.0 / math.comb(nx + ny, nx))


def min_repeats(alpha, other):
    for n in range(1, 1025):
        if min_p(other or n, n) <= alpha:
            return n
    return 0


# ---- RNG and bootstrap, from infer.h's description ----

class Rng:
    def __init__(self, seed):
        self.sm = seed & M64
        self.s = [self.splitmix() for _ in range(4)]

    def splitmix(self):
        self.sm = (self.sm + 0x9E3779B97F4A7C15) & M64
        z = self.sm
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    @staticmethod
    def rotl(v, k):
        return ((v << k) | (v >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def below(self, n):
        reject = (1 << 64) % n
        while True:
            r = self.next()
            if r >= reject:
                return r % n


def quantile7(v, q):
    h = (len(v) - 1) * q
    i = int(h)
    if i + 1 >= len(v):
        return v[-1]
    return v[i] + (h - i) * (v[i + 1] - v[i])


def boot(x, y, alpha, resamples, seed):
    rng = Rng(seed)
    ratios = []
    for _ in range(resamples):
        mx = statistics.median(sorted(x[rng.below(len(x))] for _ in x))
        my = statistics.median(sorted(y[rng.below(len(y))] for _ in y))
        ratios.append(my / mx)
    ratios.sort()
    return (statistics.median(y) / statistics.median(x),
            quantile7(ratios, alpha / 2), quantile7(ratios, 1 - alpha / 2))


# ---- LKP ----

def lkp(base, new, distance=None):
    def summary(v, max_margin):
        margin = min(len(v) >> 5, max_margin)
        s = sorted(v)
        s = s[margin:len(s) - margin]
        return s, s[0], s[len(s) // 2], s[-1]

    sb, min_b, mean_b, max_b = summary(base, 3)
    sa, min_a, mean_a, max_a = summary(new, 1 if len(base) <= 3 else 3)
    if distance is None:
        apart = ((min_b > mean_a and mean_b > max_a) or
                 (min_a > mean_b and mean_a > max_b))
    elif len(sa) < 3 or len(sb) < 3:
        gap = max(max_a - min_a, max_b - min_b) * distance
        apart = min_b - max_a > gap or min_a - max_b > gap
    else:
        apart = ((min_b > max_a and min_b - max_a > (mean_b - mean_a) / 2) or
                 (min_a > max_b and min_a - max_b > (mean_a - mean_b) / 2))
    high, low = (mean_a, mean_b) if mean_a > mean_b else (mean_b, mean_a)
    ratio = min(high / low if low > 0 else 5, 5)
    runs = len(base) >= 3 or len(new) >= 3
    changed = apart and runs and ratio > 1.01
    return dict(base=(min_b, mean_b, max_b), new=(min_a, mean_a, max_a),
                ratio=ratio, apart=apart, runs=runs, big=ratio > 1.01,
                changed=changed, regressed=changed and mean_a > mean_b)


# ---- Student's t by integration ----

def t_pdf(x, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / \
        math.sqrt(df * math.pi)
    return c * (1 + x * x / df) ** (-(df + 1) / 2)


def t_p2(t, df, steps=200000):
    """P(|T| >= t) = 1 - 2 * integral_0^t pdf, by Simpson's rule."""
    t = abs(t)
    h = t / steps
    acc = t_pdf(0, df) + t_pdf(t, df)
    for i in range(1, steps):
        acc += (4 if i % 2 else 2) * t_pdf(i * h, df)
    return 1 - 2 * acc * h / 3


def t_crit(p2, df):
    lo, hi = 0.0, 1.0
    while t_p2(hi, df, 2000) > p2:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if t_p2(mid, df, 20000) > p2:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def drift(ratios, alpha, threshold):
    """Median and MAD of the log ratios; t on the median's standard error."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    med = statistics.median(logs)
    sd = 1.4826 * statistics.median([abs(v - med) for v in logs])
    se = 1.2533 * sd / math.sqrt(n)
    t = t_crit(alpha, n - 1)
    p = (1.0 if med == 0 else 0.0) if se == 0 else t_p2(med / se, n - 1)
    return dict(ratio=math.exp(med), sd=sd, lo=math.exp(med - t * se),
                hi=math.exp(med + t * se), p=p,
                moved=p <= alpha and abs(math.exp(med) - 1) > threshold)


def log_se(x, y):
    """sqrt(var(log x)/nx + var(log y)/ny), sample variances."""
    def part(v):
        if len(v) < 2:
            return 0.0
        return statistics.variance([math.log(a) for a in v]) / len(v)
    return math.sqrt(part(x) + part(y))


def net(native, native_se, ratios, alpha, threshold):
    d = drift(ratios, alpha, threshold)
    n = len(ratios)
    se = math.sqrt(native_se ** 2 + d['sd'] ** 2 * (1 + 1.2533 ** 2 / n))
    t = t_crit(alpha, n - 1)
    mean = math.log(d['ratio'])
    p = t_p2((math.log(native) - mean) / se, n - 1)
    return dict(net=native / d['ratio'], lo=math.exp(mean - t * se),
                hi=math.exp(mean + t * se), p=p)


# ---- The cases of infer_test.c and infer_checks_test.c ----

MWU_CASES = {
    "separated_3v3": ([1.1, 2.3, 3.0], [4.2, 5.5, 6.1]),
    "one_v_one": ([1.0], [2.0]),
    "two_v_two": ([2.0, 1.0], [4.0, 3.0]),
    "overlap_4v5": ([10.2, 11.7, 12.1, 13.4], [11.9, 12.8, 13.9, 14.2, 15.0]),
    "ties_5v6": ([10, 11, 11, 12, 13], [11, 12, 12, 14, 15, 15]),
    "ties_across_4v4": ([5, 5, 6, 7], [5, 6, 6, 8]),
    "identical_5v5": ([3, 1, 2, 5, 4], [3, 1, 2, 5, 4]),
    "all_equal_4v5": ([7.0] * 4, [7.0] * 5),
    "separated_5v5": ([100, 101, 102, 103, 104], [110, 111, 112, 113, 114]),
    "improved_6v4": ([20.5, 21.0, 22.4, 20.9, 21.7, 23.0],
                     [18.1, 19.9, 20.7, 18.8]),
}


def poibin_tail(p, k):
    """P(X >= k) for independent trials of chances p, by enumerating every
    outcome (2^n of them) in Fractions: infer.c counts by recurrence."""
    from fractions import Fraction as F
    ps = [F(x) for x in p]
    total = F(0)
    for outcome in itertools.product((0, 1), repeat=len(ps)):
        if sum(outcome) < k:
            continue
        pr = F(1)
        for o, q in zip(outcome, ps):
            pr *= q if o else 1 - q
        total += pr
    return float(total)


POIBIN_CASES = (
    ([0.5, 0.5, 0.5], 2),
    ([0.1, 0.2, 0.3, 0.4], 1),
    ([0.1, 0.2, 0.3, 0.4], 3),
    ([0.27] * 12, 1),
    ([0.001] * 16, 2),
    ([0.0, 1.0, 0.25], 1),
    ([0.0, 1.0, 0.25], 2),
    ([0.0, 1.0, 0.25], 3),
)


# infer_checks_test.c's placement fixture: base, new (one value per process).
PLACEMENT_CASES = (
    ("agree_unchanged", [100, 100.5, 101, 100.2, 100.8],
     [100.3, 100.9, 100.1, 100.6, 100.4]),
    ("agree_shifted", [100, 100.5, 101, 100.2, 100.8],
     [110, 110.5, 111, 110.2, 110.8]),
    ("disagree_overlapping", [8.45, 9.1, 13.3, 8.6, 9.83],
     [8.5, 12.9, 13.1, 9.9, 13.0]),
    ("disagree_apart_within_threshold", [100, 101, 102, 103, 104],
     [105, 106, 107, 108, 109]),
    ("disagree_beyond", [100, 101, 102, 103, 110],
     [113, 114, 120, 115, 116]),
    ("disagree_beyond_below", [113, 114, 120, 115, 116],
     [100, 101, 102, 103, 110]),
    ("one_process_each", [100], [150]),
    ("touching", [100, 104], [104, 110]),
)


def placement(base, new, threshold):
    """Spreads, gap and beyond of infer_placement(), by sorting and
    comparing with Fractions (infer.c takes min and max in doubles)."""
    from fractions import Fraction as F
    b = sorted(F(v) for v in base)
    n = sorted(F(v) for v in new)
    bs = (b[-1] - b[0]) / b[0]
    ns = (n[-1] - n[0]) / n[0]
    t = F(threshold)
    sensitive = bs > t or ns > t
    # Every pair of one base and one new value on the same side of each other.
    above = all(y > x for x in b for y in n)
    below = all(y < x for x in b for y in n)
    gap = n[0] / b[-1] if above else n[-1] / b[0] if below else F(1)
    beyond = 1 if gap > 1 + t else -1 if gap * (1 + t) < 1 else 0
    return float(bs), float(ns), sensitive, float(gap), beyond


LEVEL_SHARE = 0.3    # infer.h INFER_LEVEL_SHARE

LEVEL_CASES = (
    ("separated", [10] * 10, [10.5] * 10),
    ("3 slow of 10", [10] * 7 + [12] * 3, [10.5] * 7 + [12.6] * 3),
    ("6 slow of 10", [10] * 4 + [12] * 6, [10.5] * 4 + [12.6] * 6),
    ("irregular 8 v 8", [9.8, 10.1, 10.0, 10.3, 12.2, 10.05, 11.9, 10.2],
     [10.4, 10.6, 12.9, 10.5, 10.55, 12.5, 10.7, 10.45]),
)


def level(x, y):
    """The fast level's ratio and permutation count of infer_level(): each
    side's level is the exp of the mean log of its fastest
    ceil(LEVEL_SHARE * n) values; every split of the pooled values whose
    |log ratio| reaches the observed one is a hit (infer.c walks the
    pooled sorted values once per split; this sorts each side again)."""
    def k_of(n):
        return max(1, min(n, math.ceil(LEVEL_SHARE * n - 1e-9)))

    def low(v, k):
        return sum(sorted(math.log(a) for a in v)[:k]) / k

    pool, ny = x + y, len(y)
    kb, kn = k_of(len(x)), k_of(ny)
    obs = low(y, kn) - low(x, kb)
    hits = splits = 0
    for c in itertools.combinations(range(len(pool)), ny):
        cs = set(c)
        t = low([pool[i] for i in c], kn) - low([pool[i] for i in range(len(pool))
                                                  if i not in cs], kb)
        splits += 1
        hits += abs(t) >= abs(obs) - 1e-12 * (1 + abs(obs))
    return math.exp(obs), hits, splits


def fisher(a, n1, c, n2):
    """Two-sided Fisher exact p of a of n1 against c of n2: the tables with
    the margins kept no likelier than the observed one, in exact integers
    (math.comb) with the relative 1e-7 infer.c allows for rounding."""
    m, t = a + c, math.comb(n1 + n2, a + c)

    def pr(k):
        return math.comb(n1, k) * math.comb(n2, m - k)

    obs = pr(a)
    return min(1.0, sum(pr(k) for k in range(max(0, m - n2), min(m, n1) + 1)
                        if pr(k) <= obs * (1 + 1e-7)) / t)


FISHER_CASES = ((10, 10, 10, 10), (9, 10, 3, 10), (10, 10, 4, 10), (2, 8, 4, 8),
                (0, 5, 5, 5), (100, 128, 10, 128))


def gen_sample(rng, n, base, spread):
    """Deterministic sample from the shared RNG: base + spread*U[0,1)."""
    return [base + spread * ((rng.next() >> 11) * 2.0 ** -53) for _ in range(n)]


def main():
    print("# infer_ref.py: expected values for infer_test.c and infer_checks_test.c")
    for name, (x, y) in MWU_CASES.items():
        u, p = mwu_exact_enum(x, y)
        z, pn = mwu_normal(x, y)
        ok_pos = all(v > 0 for v in x + y)
        shift, ratio = hodges_lehmann(x, y) if ok_pos else (None, None)
        print(f"mwu {name}: u={u!r} p_exact={p!r} z={z!r} p_normal={pn!r} "
              f"min_p={min_p(len(x), len(y))!r} hl_shift={shift!r} "
              f"hl_ratio={ratio!r}")
        if len(set(x) | set(y)) == len(x) + len(y):
            u2, p2 = mwu_exact_recurrence(x, y)
            assert u2 == u and abs(p2 - p) < 1e-15, name

    # Large samples, no ties: the recurrence (enumeration is out of reach).
    rng = Rng(7)
    for shift in (0.0, 0.5, 1.5):
        x = gen_sample(rng, 30, 100.0, 10.0)
        y = gen_sample(rng, 30, 100.0 + shift * 10.0 / 3, 10.0)
        u, p = mwu_exact_recurrence(x, y)
        z, pn = mwu_normal(x, y)
        print(f"mwu large_30v30 seed 7 shift {shift}: u={u!r} "
              f"p_exact={p!r} p_normal={pn!r}")

    for a, b in ((1, 1), (1, 2), (2, 2), (3, 3), (4, 4), (5, 5), (3, 9),
                 (10, 10)):
        print(f"min_p {a}v{b} = {min_p(a, b)!r}")
    for alpha, other in ((0.01, 0), (0.05, 0), (0.001, 0), (0.01, 3),
                         (0.01, 1), (0.1, 0)):
        print(f"min_repeats alpha={alpha} other={other} = "
              f"{min_repeats(alpha, other)}")

    # Published vectors: splitmix64 from 0 gives e220a8397b1dcdaf,
    # 6e789e6aa1b965f4, 06c45d188009454f, f88bb8a8724c81ec; xoshiro256**
    # from the state {1, 2, 3, 4} gives 11520, 0, 1509978240,
    # 1215971899390074240.
    rng = Rng(0)
    print("seed 0 state =", [hex(v) for v in rng.s])
    print("xoshiro seed 0 first 4 =", [hex(rng.next()) for _ in range(4)])
    rng.s = [1, 2, 3, 4]
    print("xoshiro state 1,2,3,4 first 4 =", [rng.next() for _ in range(4)])
    rng = Rng(12345)
    print("below(10) seed 12345 first 8 =", [rng.below(10) for _ in range(8)])

    bx = [100, 101, 99, 102, 100.5, 98.7, 101.3]
    by = [103, 104.1, 102.2, 105, 103.3, 104.4]
    for seed in (42, 43):
        r, lo, hi = boot(bx, by, 0.01, 2000, seed)
        print(f"boot seed {seed} B 2000 alpha 0.01: ratio={r!r} lo={lo!r} "
              f"hi={hi!r}")

    for name, base, new, dist in (
            ("apart_3v3", [100, 101, 102], [103, 104, 105], None),
            ("overlap_but_apart", [100, 101, 102], [101.5, 103, 104], None),
            ("interleaved", [100, 102, 104], [101, 103, 105], None),
            ("two_runs", [100, 101], [110, 111], None),
            ("small_ratio", [100, 100.1, 100.2], [100.5, 100.6, 100.7], None),
            ("improved", [110, 111, 112, 113], [100, 101, 102, 103], None),
            ("distance_2v2", [100, 101], [105, 106], 2.0),
            ("distance_3v3", [100, 101, 102], [103.2, 104, 105], 2.0),
            ("margin_40v40", [100 + i * 0.1 for i in range(39)] + [200],
             [101 + i * 0.1 for i in range(39)] + [50], None),
            ("runs_2v4", [100, 101], [110, 111, 112, 113], None),
            ("margin_3v64", [100, 101, 102],
             [90, 91] + [103 + i * 0.01 for i in range(60)] + [120, 130],
             None)):
        print(f"lkp {name}: {lkp(base, new, dist)}")

    for p2, df in ((0.01, 1), (0.01, 2), (0.05, 10), (0.01, 4), (0.01, 1e6)):
        print(f"t_crit p2={p2} df={df} = {t_crit(p2, df)!r}")
    print(f"t_p2 t=2.5 df=3 = {t_p2(2.5, 3)!r}")
    ctl = [1.01, 1.03, 1.02, 0.99]
    print(f"drift {ctl}: {drift(ctl, 0.01, 0.02)}")
    ctl2 = [1.061, 1.058, 1.066, 1.052, 1.063]
    print(f"drift {ctl2}: {drift(ctl2, 0.01, 0.02)}")
    ctl3 = [1.061, 1.058, 1.066, 1.052, 1.063, 1.35]
    print(f"drift {ctl3} (one wild): {drift(ctl3, 0.01, 0.02)}")
    print(f"net 1.10 se 0 of {ctl}: {net(1.10, 0, ctl, 0.01, 0.02)}")
    print(f"net 1.15 se 0 of {ctl2}: {net(1.15, 0, ctl2, 0.01, 0.02)}")
    print(f"net 1.07 se 0 of {ctl2}: {net(1.07, 0, ctl2, 0.01, 0.02)}")
    print(f"net 1.15 se 0.02 of {ctl2}: {net(1.15, 0.02, ctl2, 0.01, 0.02)}")
    print(f"net 1.15 se 0 of {ctl3}: {net(1.15, 0, ctl3, 0.01, 0.02)}")
    for name, base, new in PLACEMENT_CASES:
        print(f"placement {name}: {placement(base, new, 0.02)}")
    for p, k in POIBIN_CASES:
        print(f"poibin_tail {p} k={k}: {poibin_tail(p, k)!r}")
    lx, ly = [100, 101, 99, 102, 98], [110, 112, 109]
    print(f"log_se {lx} {ly}: {log_se(lx, ly)!r}")
    for name, x, y in LEVEL_CASES:
        r, hits, splits = level(x, y)
        print(f"level {name}: ratio {r!r}, {hits} of {splits} splits")
    for a, n1, c, n2 in FISHER_CASES:
        print(f"fisher {a} of {n1} against {c} of {n2}: {fisher(a, n1, c, n2)!r}")


if __name__ == "__main__":
    main()
