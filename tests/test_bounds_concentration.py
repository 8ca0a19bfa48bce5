"""Tests for kernelclf.bounds.concentration (LKC App. A.5, Theorems A.105–A.119;
book appendix A).

Independent references: Monte-Carlo tail frequencies (fixed seeds; a bound passes if
the frequency is below it plus four binomial standard errors), exact binomial and
exponential tails, closed forms (Hoeffding = McDiarmid's original form for the mean),
exact binomial sums, and the orderings the appendix derives (Bennett <= Bernstein;
Bernstein < Hoeffding iff the variance is small).

Power (issue 25): a check that a tail bound holds proves little if a wrong bound would
pass too. Every Monte-Carlo check below therefore also asserts that a *weakened* bound,
with a stated factor k (exponent exp(-x) replaced by exp(-k x), or a power-law bound
divided by k), is violated by the same simulated frequencies, beyond the Monte-Carlo
slack. ``test_power_in_tight_regimes`` runs each inequality where it is within a small
factor of the truth (lattice-adapted deviations of Bernoulli sums, the extremal two- and
three-point laws) and catches k = 1.2-2 (Bernstein 2, Bennett 1.75, Hoeffding and
McDiarmid's original form 1.5, the binomial tail 1.2, Chebyshev and Markov 1.25); the
sweeps over other regimes state their own, larger k.
"""
import math

import numpy as np
import pytest
from scipy import stats

from kernelclf.bounds import clip_trivial, trivial
from kernelclf.bounds import concentration as C

N_MC = 40_000


def _slack(bound, n=N_MC):
    b = min(float(bound), 1.0)
    return 4.0 * math.sqrt(max(b * (1 - b), 1.0 / n) / n)


def _assert_tail_ok(freq, bound):
    assert freq <= float(bound) + _slack(bound), (freq, float(bound))


def _violated(freq, weakened, n=N_MC):
    """The simulated frequency exceeds a weakened bound by more than the Monte-Carlo slack."""
    return freq > float(weakened) + _slack(weakened, n)


def _assert_caught(freqs, weakened, n=N_MC):
    """At least one point of a sweep violates the weakened bound (so the sweep has power)."""
    hits = [_violated(f, w, n) for f, w in zip(freqs, np.broadcast_to(weakened, np.shape(freqs)))]
    assert any(hits), (list(freqs), np.asarray(weakened).tolist())


# --- printed / closed-form values ------------------------------------------------------

def test_closed_forms():
    assert C.markov(4.0, 2.0) == pytest.approx(0.5)
    assert C.chebyshev(0.1, 0.25, n=100) == pytest.approx(0.25)
    assert C.hoeffding(50, 0.1) == pytest.approx(math.exp(-1.0))
    assert C.hoeffding(50, 0.1, two_sided=True) == pytest.approx(2 * math.exp(-1.0))
    assert C.hoeffding(50, 0.2, a=-1, b=1) == pytest.approx(math.exp(-1.0))
    assert C.binomial_tail(10, 0.3) == pytest.approx(math.exp(-3.0))
    assert C.hoeffding_lemma(2.0, -0.5, 0.5) == pytest.approx(math.exp(0.5))
    # inverse forms give back delta
    eps = C.hoeffding_epsilon(200, 0.05, two_sided=True)
    assert C.hoeffding(200, eps, two_sided=True) == pytest.approx(0.05)
    eps = C.bernstein_epsilon(200, 0.01, 0.04, 1.0)
    assert C.bernstein(200, eps, 0.04, 1.0) == pytest.approx(0.01)


def test_bennett_matches_its_unoptimised_chernoff_form():
    # eq. (A.47) minimised over s numerically equals the closed form of Theorem A.114
    n, eps, var, c = 30, 4.0, 0.2, 1.0
    s = np.linspace(1e-4, 5, 200_001)
    chern = np.exp((n * var / c**2 * (np.exp(s * c) - 1 - s * c) - s * eps).min())
    assert C.bennett(n, eps, var, c) == pytest.approx(chern, rel=1e-6)


def test_mcdiarmid_original_equals_hoeffding_for_the_mean():
    n, eps = 80, 0.07
    c = np.full(n, 1.0 / n)                  # f = mean of [0, 1] variables
    assert C.mcdiarmid(eps, c, form="original") == pytest.approx(C.hoeffding(n, eps))
    # the book's constant is 4x weaker in the exponent
    assert C.mcdiarmid(eps, c, form="book") == pytest.approx(C.hoeffding(n, eps) ** 0.25)
    assert C.mcdiarmid(eps, c) > C.mcdiarmid(eps, c, form="original")


def test_binomial_sums_and_theorem_a105():
    for m in range(1, 40):
        for d in range(0, m + 2):
            exact = sum(math.comb(m, i) for i in range(0, min(d, m) + 1))
            assert C.binomial_sum(m, d) == pytest.approx(exact, rel=1e-10)
            if 1 <= d <= m:
                assert exact < C.binomial_sum_bound(m, d)
                assert math.log(exact) < C.binomial_sum_bound(m, d, log=True)
    # vectorised, large m without overflow
    lb = C.log_binomial_sum([10**6, 10**6], [10, 1000])
    assert np.all(np.isfinite(lb)) and lb[1] > lb[0]


def test_union_bound():
    assert C.union_bound([0.1, 0.2, 0.3]) == pytest.approx(0.6)
    assert np.allclose(C.union_bound([[0.1, 0.2], [0.5, 0.6]]), [0.3, 1.1])
    assert trivial(C.union_bound([0.5, 0.6]))
    rng = np.random.default_rng(0)
    U = rng.uniform(size=(N_MC, 3))
    events = U < np.array([0.1, 0.15, 0.2])
    events[:, 1] = U[:, 0] < 0.15             # overlapping events
    freq = events.any(axis=1).mean()
    _assert_tail_ok(freq, C.union_bound(events.mean(axis=0)))
    # power: for disjoint events the union bound is exact, so 1/1.1 of it is violated
    disjoint = np.stack([U[:, 0] < 0.1, (U[:, 0] >= 0.1) & (U[:, 0] < 0.25),
                         (U[:, 0] >= 0.25) & (U[:, 0] < 0.45)], axis=1)
    freq = disjoint.any(axis=1).mean()
    bound = C.union_bound(disjoint.mean(axis=0))
    _assert_tail_ok(freq, bound)
    assert _violated(freq, bound / 1.1)


# --- Monte-Carlo validity ---------------------------------------------------------------

def test_markov_monte_carlo():
    # the exponential law is far from Markov's extremal law: the bound is loose by about 4
    # here (it would pass divided by 3.5), see test_power_in_tight_regimes for k = 1.25
    rng = np.random.default_rng(1)
    X = rng.exponential(2.0, N_MC)                  # E X = 2
    ts = np.array([1.0, 2.0, 4.0, 8.0])
    freqs = [(X > t).mean() for t in ts]
    for t, f in zip(ts, freqs):
        _assert_tail_ok(f, C.markov(t, 2.0))
        assert math.exp(-t / 2) <= C.markov(t, 2.0)  # exact tail below the bound
    _assert_caught(freqs, C.markov(ts, 2.0) / 4.5)


@pytest.mark.parametrize("n", [5, 20, 100])
def test_chebyshev_and_hoeffding_monte_carlo(n):
    # the two-point law on {-1, 3} (mean 1, variance 4) is the extremal law of range 4 for
    # Hoeffding; deviations just below the lattice points 4j/n of the mean. A uniform law on
    # [-1, 3] would leave Hoeffding loose by an exponent factor of 5-6 (no power).
    rng = np.random.default_rng(n)
    X = np.where(rng.random((N_MC, n)) < 0.5, -1.0, 3.0)
    dev = X.mean(axis=1) - 1.0
    eps = np.array([0.3, 0.6, 1.0, 1.5]) - 1e-9
    up = [(dev > e).mean() for e in eps]
    both = [(np.abs(dev) > e).mean() for e in eps]
    for e, f_up, f_both in zip(eps, up, both):
        _assert_tail_ok(f_both, C.chebyshev(e, 4.0, n))
        _assert_tail_ok(f_up, C.hoeffding(n, e, a=-1, b=3))
        _assert_tail_ok(f_both, C.hoeffding(n, e, a=-1, b=3, two_sided=True))
    # power: an exponent 3x too large, or Chebyshev divided by 4, is violated
    _assert_caught(up, C.hoeffding(n, eps, a=-1, b=3) ** 3)
    _assert_caught(both, 2 * (C.hoeffding(n, eps, a=-1, b=3) ** 3))
    _assert_caught(both, C.chebyshev(eps, 4.0, n) / 4)


@pytest.mark.parametrize("n,p", [(10, 0.5), (50, 0.1), (200, 0.02)])
def test_hoeffding_exact_binomial(n, p):
    # exact upper tail of a binomial mean
    for eps in np.linspace(0.02, 0.5, 13):
        exact = stats.binom.sf(math.floor(n * (p + eps)), n, p)
        assert exact <= C.hoeffding(n, eps) + 1e-15


@pytest.mark.parametrize("n,p", [(20, 0.05), (100, 0.02), (100, 0.3)])
def test_bennett_bernstein_monte_carlo(n, p):
    # X_i = B_i - p with B_i ~ Bernoulli(p): zero mean, |X_i| <= c = max(p, 1 - p)
    rng = np.random.default_rng(7)
    S = rng.binomial(n, p, N_MC) - n * p              # sum of the X_i
    var, c = p * (1 - p), max(p, 1 - p)
    eps_grid = np.array([0.02, 0.05, 0.1, 0.2])
    freqs = [(S / n > e).mean() for e in eps_grid]
    for eps_mean, freq in zip(eps_grid, freqs):
        _assert_tail_ok(freq, C.bernstein(n, eps_mean, var, c))
        _assert_tail_ok(freq, C.bennett(n, eps_mean, var, c, mean=True))
        _assert_tail_ok(freq, C.bennett(n, n * eps_mean, var, c))          # sum form
        exact = stats.binom.sf(math.floor(n * p + n * eps_mean), n, p)
        assert exact <= C.bennett(n, n * eps_mean, var, c) + 1e-15
    # power on this grid (not lattice-adapted): exponents 4x (Bernstein) and 2.5x
    # (Bennett) too large are violated; the tight regimes catch 2 and 1.75
    _assert_caught(freqs, C.bernstein(n, eps_grid, var, c) ** 4)
    _assert_caught(freqs, C.bennett(n, eps_grid, var, c, mean=True) ** 2.5)


def test_binomial_tail_monte_carlo():
    rng = np.random.default_rng(3)
    for n, mu in [(5, 0.2), (20, 0.1), (50, 0.05)]:
        allzero = (rng.uniform(size=(N_MC, n)) < mu).sum(axis=1) == 0
        for eps in [0.5 * mu, 0.9 * mu]:
            _assert_tail_ok(allzero.mean(), C.binomial_tail(n, eps))
            assert (1 - mu) ** n < C.binomial_tail(n, eps)
        # power: at eps = 0.9 mu an exponent 1.35x too large is violated
        assert _violated(allzero.mean(), C.binomial_tail(n, 0.9 * mu) ** 1.35)


def test_mcdiarmid_monte_carlo_empty_bins():
    # f = number of empty bins after throwing n balls into k bins; moving one ball changes
    # f by at most 1, so c_i = 1; E f = k (1 - 1/k)^n exactly.
    rng = np.random.default_rng(11)
    n, k = 30, 20
    balls = rng.integers(0, k, size=(N_MC, n))
    occupied = np.zeros((N_MC, k), bool)
    occupied[np.arange(N_MC)[:, None], balls] = True
    f = k - occupied.sum(axis=1)
    Ef = k * (1 - 1 / k) ** n
    assert f.mean() == pytest.approx(Ef, abs=0.05)
    eps_grid = np.array([1.0, 2.0, 3.0, 5.0])
    freqs = [(f - Ef > eps).mean() for eps in eps_grid]
    for eps, freq in zip(eps_grid, freqs):
        _assert_tail_ok(freq, C.mcdiarmid(eps, np.ones(n), form="original"))
        _assert_tail_ok(freq, C.mcdiarmid(eps, np.ones(n), form="book"))
    # the empty-bin count varies far less than c_i = 1 allows: both forms are loose here
    # (an exponent 8x, resp. 32x too large still passes at some eps); this only catches
    # errors beyond that. McDiarmid's power for the mean is in test_power_in_tight_regimes.
    _assert_caught(freqs, C.mcdiarmid(eps_grid, np.ones(n), form="original") ** 10)
    _assert_caught(freqs, C.mcdiarmid(eps_grid, np.ones(n), form="book") ** 35)


# --- power: each inequality where it is close to the simulated tail ------------------

N_POWER = 200_000


def _sum_tail(rng, n, p, k):
    """Frequency of Bernoulli(p) sums S >= k, i.e. of mean - p > eps for eps just below k/n - p."""
    return (rng.binomial(n, p, N_POWER) >= k).mean(), k / n - p - 1e-9


def _case_hoeffding(rng):
    freq, eps = _sum_tail(rng, 12, 0.4, 10)                      # exact tail 0.0028
    b = C.hoeffding(12, eps)                                       # 0.0110
    return freq, b, b**1.5, 1.5


def _case_mcdiarmid_original(rng):
    freq, eps = _sum_tail(rng, 12, 0.4, 10)                      # f = mean, c_i = 1/n
    b = C.mcdiarmid(eps, np.full(12, 1 / 12), form="original")
    return freq, b, b**1.5, 1.5


def _case_mcdiarmid_book(rng):
    freq, eps = _sum_tail(rng, 12, 0.4, 10)                      # a quarter of the exponent
    b = C.mcdiarmid(eps, np.full(12, 1 / 12))
    return freq, b, b**6, 6.0


def _case_bennett(rng):
    freq, eps = _sum_tail(rng, 20, 0.1, 7)                       # exact tail 0.0024
    b = C.bennett(20, eps, 0.09, 0.9, mean=True)                   # 0.0152
    return freq, b, b**1.75, 1.75


def _case_bernstein(rng):
    freq, eps = _sum_tail(rng, 40, 0.3, 21)                      # exact tail 0.0024
    b = C.bernstein(40, eps, 0.21, 0.7)                            # 0.030
    return freq, b, b**2, 2.0


def _case_binomial_tail(rng):
    freq = ((rng.random((N_POWER, 20)) < 0.05).sum(axis=1) == 0).mean()   # 0.95^20 = 0.358
    b = C.binomial_tail(20, 0.049)                                  # 0.375
    return freq, b, b**1.2, 1.2


def _case_chebyshev(rng):
    X = rng.choice([-1.0, 0.0, 1.0], p=[0.05, 0.9, 0.05], size=N_POWER)   # variance 0.1
    b = C.chebyshev(0.95, 0.1, 1)                                   # 0.111 vs P = 0.1
    return (np.abs(X) > 0.95).mean(), b, b / 1.25, 1.25


def _case_markov(rng):
    X = rng.choice([0.0, 4.0], size=N_POWER)                        # mean 2
    b = C.markov(3.8, 2.0)                                          # 0.526 vs P = 0.5
    return (X > 3.8).mean(), b, b / 1.25, 1.25


@pytest.mark.parametrize("case", [_case_hoeffding, _case_mcdiarmid_original, _case_mcdiarmid_book,
                                  _case_bennett, _case_bernstein, _case_binomial_tail,
                                  _case_chebyshev, _case_markov])
def test_power_in_tight_regimes(case):
    """Each bound holds, is below 1, and a version weakened by the factor k fails.

    Weakened means exp(-x) -> exp(-k x) for the exponential bounds and bound / k for
    Chebyshev and Markov. The regimes are the tightest found on a scan of Bernoulli sums
    (deviation just below a lattice point; ln(tail)/ln(bound) is 1.23 for Hoeffding, 1.44
    for Bennett, 1.71 for Bernstein, 1.05 for the binomial tail) and the extremal two-
    and three-point laws of Markov and Chebyshev.
    """
    freq, bound, weakened, k = case(np.random.default_rng(25))
    assert float(bound) < 1
    assert freq <= float(bound) + _slack(bound, N_POWER), (freq, float(bound))
    assert _violated(freq, weakened, N_POWER), (freq, float(weakened), k)


# --- orderings the appendix states ----------------------------------------------------

def test_bennett_never_above_bernstein():
    rng = np.random.default_rng(0)
    c = rng.uniform(0.1, 2, 500)
    var = rng.uniform(0, 1, 500) * c**2
    n = rng.integers(1, 500, 500)
    eps = rng.uniform(0.001, 1, 500) * c
    assert np.all(C.bennett(n, eps, var, c, mean=True) <= C.bernstein(n, eps, var, c) * (1 + 1e-12))


def test_bernstein_beats_hoeffding_exactly_for_small_variance():
    # Hoeffding on [-c, c] has exponent n eps^2 / (2 c^2); Bernstein n eps^2 / (2 var + c eps)
    n, c = 100, 1.0
    for eps in [0.05, 0.2, 0.5]:
        for var in np.linspace(0.0, 1.0, 41):
            b, h = C.bernstein(n, eps, var, c), C.hoeffding(n, eps, a=-c, b=c)
            if 2 * var + c * eps < 2 * c**2 - 1e-9:
                assert b < h
            elif 2 * var + c * eps > 2 * c**2 + 1e-9:
                assert b > h
    # a concrete small-variance case: Bernoulli(0.01) deviations
    assert C.bernstein(1000, 0.02, 0.0099, 0.99) < 1e-3 < C.hoeffding(1000, 0.02, a=-0.99, b=0.99)


def test_hoeffding_below_chebyshev_at_worst_case_variance():
    # for [0,1] variables with variance 1/4: exp(-2t) <= 1/(4t) for every t = n eps^2
    n = np.arange(1, 400)[:, None]
    eps = np.linspace(0.001, 1, 200)[None, :]
    assert np.all(C.hoeffding(n, eps) <= C.chebyshev(eps, 0.25, n))


def _bennett_mean(n, eps, var, c):
    return C.bennett(n, eps, var, c, mean=True)


@pytest.mark.parametrize("fn,args,pos,npos", [
    (C.hoeffding, (100, 0.1), 1, 0), (C.bernstein, (100, 0.1, 0.1, 1.0), 1, 0),
    (_bennett_mean, (100, 0.05, 0.1, 1.0), 1, 0), (C.bennett, (100, 0.5, 0.1, 1.0), 1, None),
    (C.chebyshev, (0.1, 0.2, 100), 0, 2), (C.binomial_tail, (100, 0.1), 1, 0),
    (C.markov, (2.0, 1.0), 0, None),
])
def test_monotone_decreasing_in_epsilon_and_n(fn, args, pos, npos):
    args = list(args)
    grid = np.linspace(0.5, 2.0, 15) * args[pos]
    vals = fn(*[grid if i == pos else a for i, a in enumerate(args)])
    assert np.all(np.diff(vals) < 0)
    if npos is not None:
        ns = np.arange(10, 200, 10)
        vals = fn(*[ns if i == npos else a for i, a in enumerate(args)])
        assert np.all(np.diff(vals) < 0)


def test_monotone_increasing_in_variance_and_range():
    v = np.linspace(0.01, 1, 20)
    assert np.all(np.diff(C.bernstein(50, 0.1, v, 1.0)) > 0)
    assert np.all(np.diff(C.bennett(50, 5.0, v, 1.0)) > 0)
    # a fixed deviation of the *sum* gets likelier as n grows (its variance n sigma^2 grows)
    assert np.all(np.diff(C.bennett(np.arange(10, 200, 10), 5.0, 0.1, 1.0)) > 0)
    assert np.all(np.diff(C.chebyshev(0.1, v, 50)) > 0)
    assert np.all(np.diff(C.hoeffding(50, 0.1, a=0, b=np.linspace(1, 3, 10))) > 0)
    assert np.all(np.diff(C.mcdiarmid(1.0, np.outer(np.linspace(0.1, 1, 10), np.ones(5)))) > 0)


def test_trivial_flags_and_clip():
    b = C.chebyshev(np.array([0.01, 1.0]), 0.25, 10)
    assert b[0] > 1 and list(trivial(b)) == [True, False]
    assert np.allclose(clip_trivial(b), [1.0, b[1]])
    assert isinstance(C.hoeffding(10, 0.1), float)


@pytest.mark.parametrize("call", [
    lambda: C.hoeffding(0, 0.1), lambda: C.hoeffding(10, -0.1), lambda: C.hoeffding(10, 0.1, a=1, b=0),
    lambda: C.hoeffding(2.5, 0.1), lambda: C.hoeffding(10, np.nan),
    lambda: C.hoeffding_epsilon(10, 1.0), lambda: C.hoeffding_epsilon(10, 0.0),
    lambda: C.bernstein(10, 0.1, 2.0, 1.0), lambda: C.bennett(10, 0.1, -0.1, 1.0),
    lambda: C.markov(0.0, 1.0), lambda: C.chebyshev(0.1, -1.0),
    lambda: C.binomial_tail(10, 0.0), lambda: C.mcdiarmid(0.1, 0.5),
    lambda: C.mcdiarmid(0.1, [0.0, 0.0]), lambda: C.mcdiarmid(0.1, [1.0], form="strong"),
    lambda: C.union_bound([0.5, 1.2]), lambda: C.binomial_sum_bound(5, 6),
    lambda: C.hoeffding_lemma(1.0, 0.5, 1.0), lambda: C.hoeffding([1, 2], [0.1, 0.2, 0.3]),
    lambda: C.hoeffding("ten", 0.1),
])
def test_input_validation(call):
    with pytest.raises(ValueError):
        call()


def test_validation_helpers():
    # the shared checks of kernelclf.bounds._validation (also used by the margin module)
    from kernelclf.bounds import _validation as V

    assert V.check_m([1, 2.0]).dtype == np.int64
    assert V.check_delta(0.3) == pytest.approx(0.3)
    assert V.check_probability([0, 1], "p").tolist() == [0.0, 1.0]
    assert V.check_positive(np.inf, "x", allow_inf=True) == np.inf
    assert V.result(np.array(2.0)) == 2.0 and V.result([1.0, 2.0]).shape == (2,)
    assert trivial(1.0) is True and trivial(0.999) is False
    for call, msg in [(lambda: V.check_delta(0), "delta"), (lambda: V.check_m(0), "m"),
                      (lambda: V.check_m(True), "m"), (lambda: V.check_int(1.5, "k"), "k"),
                      (lambda: V.check_positive(np.inf, "x"), "x"), (lambda: V.check_positive(0, "x"), "x"),
                      (lambda: V.check_nonnegative(-1, "v"), "v"),
                      (lambda: V.check_probability(1.1, "p"), "p"),
                      (lambda: V.check_open_probability(1.0, "q"), "q"), (lambda: V.as_float("a", "z"), "z"),
                      (lambda: V.broadcast(np.zeros(2), np.zeros(3)), "broadcast")]:
        with pytest.raises(ValueError, match=msg):
            call()
