"""Tests of kernelclf.bounds.covering (book chapter 15; LKC §4.4–4.4.1, App. C.5).

References used: formulas re-typed independently here, brute force (smallest covers,
gamma-shattering by trying every assignment of functions to labellings), and the
derivations of App. C.5 checked numerically.

Power (issue 25): Lemma 4.31 is checked where it is tight (orthogonal points,
``test_lemma_4_31_tight_on_orthogonal_points``).
"""
import itertools

import numpy as np
import pytest
from _monotone import decreasing, increasing

from kernelclf.bounds import covering as cv

LD = np.log2


def test_premises_give_inf():
    m = 1000
    assert np.isinf(cv.fat_shattering_bound(m, 2 * m + 1, 0.05))
    assert np.isinf(cv.covering_number_bound(m, m / 2 + 1, 0.05))
    assert np.isinf(cv.alon_log_covering(10, 0.1, 11))


# -- covering numbers -----------------------------------------------------------------------
def test_theorem_4_25_confidence_form():
    m, d, delta = 200, 13, 0.05
    eps = 2 / m * (d + LD(2 / delta))        # the statement Upsilon_i after Theorem 4.25
    assert cv.covering_number_tail(m, d, eps) == pytest.approx(delta)
    assert cv.covering_number_bound(m, 12.3, delta) == pytest.approx(2 / m * (13 + LD(m) + LD(1 / delta)))


def test_corollary_4_26_odd_m_from_the_uniform_prior_over_ceil_m_half_levels():
    """delta spread over i = 1..ceil(m/2): each level at delta/ceil(m/2) in Theorem 4.25."""
    delta, lc = 0.05, 2.2
    for m in [7, 8, 51, 1001]:
        levels = int(np.ceil(m / 2))
        i = int(np.ceil(lc))
        # Theorem 4.25's tail at level i set to delta / levels, solved for epsilon
        eps = 2 / m * (i + 1 + LD(levels / delta))
        assert cv.covering_number_tail(m, i, eps) == pytest.approx(delta / levels)
        assert cv.covering_number_bound(m, lc, delta) == pytest.approx(eps, rel=1e-12)
    # odd m: ld(m + 1), not the printed ld m (which would be 2/m * (ld 8 - ld 7) lower at m = 7)
    printed = 2 / 7 * (3 + LD(7) + LD(1 / delta))
    assert cv.covering_number_bound(7, lc, delta) - printed == pytest.approx(2 / 7 * LD(8 / 7))


def test_corollary_4_26_levels_start_at_one():
    """Theorem 4.25 holds for d in N+: a cover of size one is charged the level i = 1."""
    m, delta = 100, 0.05
    at_one = 2 / m * (1 + LD(m) + LD(1 / delta))
    assert cv.covering_number_bound(m, 0.0, delta) == pytest.approx(at_one, rel=1e-12)
    assert cv.covering_number_bound(m, 1.0, delta) == pytest.approx(at_one, rel=1e-12)
    assert cv.covering_number_tail(m, 1, at_one) == pytest.approx(delta / (m // 2))


def _min_cover_size(V, gamma):
    n = len(V)
    close = np.max(np.abs(V[:, None] - V[None]), axis=2) <= gamma
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            if close[list(S)].any(axis=0).all():
                return k
    return n


def test_greedy_cover_against_brute_force():
    rng = np.random.default_rng(5)
    for trial in range(15):
        V = rng.uniform(-1, 1, size=(9, 2))
        gamma = rng.uniform(0.1, 0.8)
        c = cv.greedy_cover(V, gamma)
        dist = np.max(np.abs(V[:, None] - V[c][None]), axis=2)
        assert np.all(dist.min(axis=1) <= gamma)                 # it covers
        inner = np.max(np.abs(V[c][:, None] - V[c][None]), axis=2)
        assert np.all(inner[~np.eye(len(c), dtype=bool)] > gamma)   # and packs
        assert _min_cover_size(V, gamma) <= len(c) <= _min_cover_size(V, gamma / 2)


def _slow_cover(V, gamma, pick):
    """Re-typed reference: count, per uncovered row, the uncovered rows in its box; pick one."""
    V = [tuple(v) for v in V]
    left = list(range(len(V)))
    centres = []
    while left:
        held = [sum(max(abs(a - b) for a, b in zip(V[i], V[j])) <= gamma for j in left)
                for i in left]
        best = min(held) if pick == "fewest" else max(held)
        c = left[held.index(best)]
        centres.append(c)
        left = [j for j in left if max(abs(a - b) for a, b in zip(V[c], V[j])) > gamma]
    return centres


def test_greedy_cover_rules():
    """The three selection rules against a slow reference, and cover + packing for each."""
    rng = np.random.default_rng(11)
    n_fewest_larger = 0
    for trial in range(12):
        V = rng.uniform(-1, 1, size=(40, 2))
        gamma = rng.uniform(0.1, 0.5)
        for rule in ("fewest", "most"):
            c = cv.greedy_cover(V, gamma, rule=rule)
            assert list(c) == _slow_cover(V, gamma, rule)
        for rule in cv.COVER_RULES:
            c = cv.greedy_cover(V, gamma, rule=rule)
            dist = np.max(np.abs(V[:, None] - V[c][None]), axis=2)
            assert np.all(dist.min(axis=1) <= gamma)
            inner = np.max(np.abs(V[c][:, None] - V[c][None]), axis=2)
            assert np.all(inner[~np.eye(len(c), dtype=bool)] > gamma)
        n_fewest_larger += len(cv.greedy_cover(V, gamma, "fewest")) > len(cv.greedy_cover(V, gamma, "most"))
    # the rules differ: taking the emptiest box first usually needs more boxes
    assert n_fewest_larger >= 6
    with pytest.raises(ValueError, match="rule"):
        cv.greedy_cover(V, 0.2, rule="largest")
    # the docstring's boundary: a row exactly gamma away counts as covered (the R code's strict
    # inequality would give [0, 1], [0, 1, 2] and [0, 1, 2] here)
    V3 = np.array([[0.0, 0.0], [0.5, 0.0], [1.0, 0.0]])
    for rule, want in (("first", [0, 2]), ("fewest", [0, 2]), ("most", [1])):
        assert list(cv.greedy_cover(V3, 0.5, rule=rule)) == want


def test_sample_rkhs_ball_lkc_is_the_published_codes_distribution():
    """a_1 uniform over its admissible range, a_2 uniform over its admissible chord."""
    from scipy.stats import kstest

    k = np.exp(-1 / (2 * 0.3**2))       # the book's code: x = (1, 2), RBF width 0.3
    G = np.array([[1, k], [k, 1]])
    A = cv.sample_rkhs_ball_lkc(G, 20000, random_state=3)
    q = np.einsum("ij,jk,ik->i", A, G, A)
    assert q.max() <= 1 + 1e-12
    lim = 1 / np.sqrt(1 - k**2)
    assert kstest((A[:, 0] + lim) / (2 * lim), "uniform").pvalue > 1e-3
    half = np.sqrt(1 - A[:, 0] ** 2 * (1 - k**2))
    pos = (A[:, 1] - (-k * A[:, 0] - half)) / (2 * half)
    assert kstest(pos, "uniform").pvalue > 1e-3
    # not the uniform law on the ellipse of sample_rkhs_ball: there |a_1| > 0.9 lim is rarer
    B = cv.sample_rkhs_ball(G, 20000, random_state=3)
    assert abs(np.mean(np.abs(A[:, 0]) > 0.9 * lim) - 0.1) < 0.01
    assert np.mean(np.abs(B[:, 0]) > 0.9 * lim) < 0.06
    # a stronger correlation k tilts the chord: still inside the ellipse, still uniform
    G2 = np.array([[1, 0.8], [0.8, 1]])
    A2 = cv.sample_rkhs_ball_lkc(G2, 5000, random_state=4)
    assert np.einsum("ij,jk,ik->i", A2, G2, A2).max() <= 1 + 1e-12
    assert np.abs(A2[:, 0]).max() > 0.99 / np.sqrt(1 - 0.64)
    lim2 = 1 / np.sqrt(1 - 0.64)
    assert kstest((A2[:, 0] + lim2) / (2 * lim2), "uniform").pvalue > 1e-3
    half2 = np.sqrt(1 - A2[:, 0] ** 2 * (1 - 0.64))
    pos2 = (A2[:, 1] - (-0.8 * A2[:, 0] - half2)) / (2 * half2)
    assert kstest(pos2, "uniform").pvalue > 1e-3
    for bad in (np.eye(3), np.array([[2.0, 0.1], [0.1, 1.0]]), np.ones((2, 2))):
        with pytest.raises(ValueError):
            cv.sample_rkhs_ball_lkc(bad, 3)


def test_sample_rkhs_ball():
    x = np.array([1.2, 1.7])
    G = np.exp(-(x[:, None] - x[None]) ** 2 / 2)
    A = cv.sample_rkhs_ball(G, 4000, random_state=0)
    q = np.einsum("ij,jk,ik->i", A, G, A)
    assert q.max() <= 1 + 1e-12
    assert q.max() > 0.99
    # uniform in the 2-D ball: P(||u||^2 <= 1/4) = 1/4
    assert abs(np.mean(q <= 0.25) - 0.25) < 0.03
    with pytest.raises(ValueError):
        cv.sample_rkhs_ball(np.ones((2, 2)), 3)


def test_alon_lemma_4_29_formula():
    m, gamma, d = 50, 0.2, 4
    expect = 1 + d * LD(2 * np.e * m * 2 / (d * gamma)) * LD(4 * m * 4 / gamma**2)
    assert cv.alon_log_covering(m, gamma, d, a=-1, b=1) == pytest.approx(expect)
    assert cv.alon_log_covering(m, gamma, 0) == 1.0
    with pytest.raises(ValueError):
        cv.alon_log_covering(m, 1.5, d, a=0, b=1)


# -- fat shattering -------------------------------------------------------------------------
def test_fat_shattering_gamma_one_point_closed_form():
    v = np.array([[0.3], [-1.0], [2.0], [0.5]])
    g, r = cv.fat_shattering_gamma(v)
    assert g == pytest.approx(1.5) and r[0] == pytest.approx(0.5)


def _check_witness(V, gamma, r):
    m = V.shape[1]
    for y in itertools.product([-1, 1], repeat=m):
        y = np.array(y)
        assert np.max(np.min(y * (V - r), axis=1)) >= gamma - 1e-12


def _gamma_by_assignments(V):
    """Independent brute force: choose a function per labelling; per point the best witness
    is the midpoint between the values used for +1 and for -1."""
    n_f, m = V.shape
    labels = np.array(list(itertools.product([-1, 1], repeat=m)))
    best = -np.inf
    for assign in itertools.product(range(n_f), repeat=len(labels)):
        chosen = V[list(assign)]
        lo = np.where(labels > 0, chosen, np.inf).min(axis=0)
        hi = np.where(labels < 0, chosen, -np.inf).max(axis=0)
        best = max(best, ((lo - hi) / 2).min())
    return best


def test_fat_shattering_gamma_witnesses_and_optimality():
    rng = np.random.default_rng(6)
    n_shattered = 0
    for _ in range(12):
        V = rng.normal(size=(4, 2))
        g, r = cv.fat_shattering_gamma(V)
        ref = _gamma_by_assignments(V)
        assert g == pytest.approx(max(ref, 0.0), abs=1e-12)
        if r is None:
            assert ref <= 0
            continue
        n_shattered += 1
        _check_witness(V, g, r)
    assert n_shattered >= 3


def test_lemma_4_31_tight_on_orthogonal_points():
    """d orthogonal points of norm varsigma are gamma-shattered at gamma = B varsigma/sqrt(d)."""
    for d, vs, B in [(2, 1.0, 1.0), (3, 2.0, 0.5)]:
        X = vs * np.eye(d)
        W = np.array([B * np.array(y) / np.sqrt(d) for y in itertools.product([-1, 1], repeat=d)])
        g, r = cv.fat_shattering_gamma(W @ X.T)
        assert g == pytest.approx(B * vs / np.sqrt(d))
        assert np.allclose(r, 0)
        assert cv.linear_fat_shattering(g, vs, B) == pytest.approx(d)


def test_lemma_4_31_holds_for_random_linear_classes():
    rng = np.random.default_rng(7)
    for _ in range(10):
        d = 2
        X = rng.normal(size=(d, 3))
        vs = np.linalg.norm(X, axis=1).max()
        W = rng.normal(size=(5, 3))
        W /= np.linalg.norm(W, axis=1, keepdims=True)        # B = 1
        g, _ = cv.fat_shattering_gamma(W @ X.T)
        if g > 0:       # the d points are g-shattered, so d <= fat(g) <= (varsigma/g)^2
            assert d <= cv.linear_fat_shattering(g, vs) * (1 + 1e-12)


# -- monotonicity ---------------------------------------------------------------------------
_dec, _inc = decreasing, increasing


def test_monotonicity():
    ms = np.unique(np.logspace(5, 9, 40).astype(int))
    gs = np.linspace(0.2, 1.0, 30)
    ds = np.logspace(-6, -0.1, 30)
    vts = np.linspace(0, 2000, 50)
    assert _inc(cv.fat_shattering_bound(1000, vts, 0.05))
    assert _dec(cv.fat_shattering_bound(ms, 50, 0.05))
    assert _dec(cv.fat_shattering_bound(1000, 50, ds))
    assert _inc(cv.covering_number_bound(1000, np.arange(0, 500, 7), 0.05))
    assert _dec(cv.covering_number_bound(ms, 20, 0.05))
    assert _inc(cv.alon_log_covering(100, 0.3, np.arange(1, 50)))
    assert _dec(cv.alon_log_covering(100, np.linspace(0.05, 0.95, 20), 10))
    assert _inc(cv.alon_log_covering(np.arange(20, 200), 0.3, 10))
    assert _dec(cv.linear_fat_shattering(gs, 1.0))
    assert _dec(cv.covering_number_tail(100, 3, np.linspace(0.1, 1, 10)))


# -- validation -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: cv.fat_shattering_bound(100, -1, 0.05),
    lambda: cv.covering_number_tail(100, 2, 0),
    lambda: cv.greedy_cover(np.ones((3, 2)), 0),
    lambda: cv.greedy_cover(np.array([[np.inf, 0]]), 0.1),
    lambda: cv.fat_shattering_gamma(np.zeros((40, 5))),
    lambda: cv.fat_shattering_gamma([[np.nan, 1.0]]),
])
def test_validation_errors(call):
    with pytest.raises(ValueError):
        call()
