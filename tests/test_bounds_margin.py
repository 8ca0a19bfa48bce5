"""Tests of kernelclf.bounds.margin (book chapter 15; LKC §4.4.2–4.4.3, App. C.6, TR Thm 1).

References used: the book's printed numbers (Remark 4.33 / erratum E23, Theorem 4.35's
d_eff = 1040), formulas re-typed independently here, the derivations of App. C.6 checked
numerically, and a Monte-Carlo simulation with the exact risk. The luckiness bounds are
tested in ``test_bounds_luckiness.py``, covering numbers and fat shattering in
``test_bounds_covering.py``.

Power (issue 25): the PAC margin bound eq. (4.29) has no regime within a small factor of a
simulated risk (see ``test_monte_carlo_pac_margin_bound_holds_but_has_little_power``): its
Monte-Carlo check can only catch a bound more than 5e5 times too small, and says so.
"""
import numpy as np
import pytest
from _monotone import decreasing, increasing

from kernelclf.bounds import covering as cv
from kernelclf.bounds import margin as M
from kernelclf.bounds import trivial

LD = np.log2


# -- independent re-typing of eq. (4.29) -------------------------------------------------
def eq_4_29(m, c, tail, ceil=True):
    """(2/m)(ceil(64 c ld(e m / (8 c)) ld(32 m)) + tail), margin complexity c = varsigma^2/gamma^2.

    LKC prints the complexity term inside a ceiling (eq. 4.29, as eq. 4.27); ``ceil=False``
    is the form without it.
    """
    m = np.asarray(m, dtype=float)
    bits = 64 * c * LD(np.e * m / (8 * c)) * LD(32 * m)
    return 2 / m * ((np.ceil(bits) if ceil else bits) + tail)


# -- Remark 4.33, erratum E23 --------------------------------------------------------------
def test_remark_4_33_minimal_sample_size_erratum_e23():
    m = np.arange(30_000, 40_000)
    caption = eq_4_29(m, 1.0, LD(m))            # Fig. 4.8: drop ld(2/delta), keep ld m
    bare = eq_4_29(m, 1.0, 0.0)                 # drop the whole ld(2m/delta)
    m_caption = int(m[np.argmax(caption < 1)])
    m_bare = int(m[np.argmax(bare < 1)])
    assert (m_caption, m_bare) == (34_821, 34_785)
    # without the ceiling both would be smaller: 34 820 and 34 783
    assert int(m[np.argmax(eq_4_29(m, 1.0, LD(m), ceil=False) < 1)]) == 34_820
    assert int(m[np.argmax(eq_4_29(m, 1.0, 0.0, ceil=False) < 1)]) == 34_783
    assert M.nontrivial_sample_size(1.0) == m_caption
    assert M.nontrivial_sample_size(1.0, keep_ld_m=False) == m_bare
    # the book's 34 816 is ~3.48e4 but is not the minimum under either reading
    assert abs(34_816 - m_caption) / m_caption < 1e-3
    assert eq_4_29(34_816, 1.0, LD(34_816)) > 1          # still trivial (caption reading)
    assert eq_4_29(34_815, 1.0, 0.0) < 1                 # already non-trivial (bare reading)
    # 34 816 = 34 * 1024, the first multiple of 1024 past the bare minimum (a coarse grid)
    assert 34_816 == 1024 * int(np.ceil(m_bare / 1024))
    # with a confidence term the size grows with ld(2/delta)
    assert M.nontrivial_sample_size(1.0, delta=0.05) > m_caption


def test_fig_4_8_range_and_monotone():
    c = np.arange(1, 11)
    ms = M.nontrivial_sample_size(c)
    assert np.all(np.diff(ms) > 0)
    assert 3.5e5 < ms[-1] < 4.5e5                 # Fig. 4.8's y axis ends at 4e5
    for ci, mi in zip(c, ms):                     # minimality against the formula
        assert eq_4_29(mi, ci, LD(mi)) < 1 <= eq_4_29(mi - 1, ci, LD(mi - 1))


def test_pac_margin_bound_formula_and_fat_form():
    m, gamma, delta, vs = 50_000, 0.8, 0.05, 1.2
    c = vs**2 / gamma**2
    expect = eq_4_29(m, c, LD(2 * m / delta))
    assert M.pac_margin_bound(m, gamma, delta, vs) == pytest.approx(expect, rel=1e-12)
    # fat-shattering form: Theorem 4.30 with fat(gamma/8) <= (8 varsigma/gamma)^2 (Lemma 4.31)
    vt = cv.linear_fat_shattering(gamma / 8, vs)
    assert cv.fat_shattering_bound(m, vt, delta) == pytest.approx(expect, rel=1e-12)
    assert M.margin_complexity(gamma, vs) == pytest.approx(c)


def test_premises_give_inf():
    m, vs = 1000, 1.0
    g0 = np.sqrt(32 / m) * vs
    assert np.isinf(M.pac_margin_bound(m, 0.99 * g0, 0.05, vs))
    assert np.isfinite(M.pac_margin_bound(m, 1.01 * g0, 0.05, vs))
    assert np.isinf(M.robust_margin_bound(m, 2 * m + 0.5, 0.05))
    assert np.isinf(M.margin_distribution_bound(m, 3 * m, 0.05))
    assert np.isinf(M.tr_margin_bound(100, 0.1, 0.05))
    # inf is "no guarantee": flagged as trivial
    assert trivial(M.pac_margin_bound(m, 0.5 * g0, 0.05))


# -- Theorem 4.35 ---------------------------------------------------------------------------
@pytest.mark.parametrize("vs", [0.5, 1.0, 3.0])
def test_theorem_4_35_d_eff_1040(vs):
    m = 500
    margins = np.r_[np.full(m - 1, vs), 0.0]    # unit-norm w: m-1 points at varsigma, one at 0
    D = M.margin_distribution(margins, vs)
    assert D == pytest.approx(vs)
    assert M.robust_d_eff(vs, D, vs) == pytest.approx(1040.0)


def test_margin_distribution_vectorised():
    rng = np.random.default_rng(0)
    t = rng.normal(size=(4, 30))
    g = np.array([0.1, 0.5, 1.0, 2.0])
    D = M.margin_distribution(t, g)
    for k in range(4):
        assert D[k] == pytest.approx(np.sqrt(sum(max(0, g[k] - ti) ** 2 for ti in t[k])))
    assert M.margin_distribution(np.full(5, 2.0), 1.0) == 0.0


def test_appendix_c6_delta_grid():
    rng = np.random.default_rng(1)
    for m in [1, 10, 100, 1000, 10**5]:
        for vs in [0.3, 1.0, 2.0]:
            grid = M.Delta_grid(m, vs)
            s = len(grid)
            assert grid[0] == pytest.approx(2 * vs * np.sqrt(m))
            assert vs / 64 < grid[-1] <= vs / 32
            assert s < 8 + 0.5 * LD(m)
            assert 2 * s <= 16 + LD(m)               # the union costs ld((16 + ld m) m / delta)
            D = np.r_[0.0, rng.uniform(0, 2 * vs * np.sqrt(m), 200), vs / 1e4, 2 * vs * np.sqrt(m)]
            gamma = vs * rng.uniform(0.05, 1.0)
            d_grid = M.margin_distribution_d_eff(gamma, D[:, None], grid[None, :], vs)
            best = d_grid.min(axis=1)
            # App. C.6: some grid value is within 65/64 of (varsigma + 3D)^2 and so below d_eff
            assert np.all(best <= 65 / 64 * 64 * (vs + 3 * D) ** 2 / gamma**2 * (1 + 1e-12))
            assert np.all(best <= M.robust_d_eff(gamma, D, vs) * (1 + 1e-12))
            # ... and never below the continuous optimum 64 (varsigma + D)^2 / gamma^2
            d_star = 64 * (vs + D) ** 2 / gamma**2
            assert np.all(best >= d_star * (1 - 1e-12))


def test_optimal_Delta_minimises_eq_4_32():
    vs, D, gamma = 1.5, 2.0, 0.7
    Ds = np.linspace(0.05, 10, 20_001)
    d = M.margin_distribution_d_eff(gamma, D, Ds, vs)
    assert Ds[np.argmin(d)] == pytest.approx(M.optimal_Delta(D, vs), abs=1e-3)
    assert d.min() == pytest.approx(64 * (vs + D) ** 2 / gamma**2, rel=1e-6)


def test_theorem_4_35_dominates_union_of_lemma_4_34():
    """Theorem 4.35 is Lemma 4.34 at the best grid value, each at confidence delta/s."""
    rng = np.random.default_rng(2)
    for m in [10**4, 10**6, 10**8]:
        grid = M.Delta_grid(m)
        for _ in range(20):
            D, gamma, delta = rng.uniform(0, 2), rng.uniform(0.2, 1.0), rng.uniform(0.01, 0.5)
            lemma = M.margin_distribution_bound(
                m, M.margin_distribution_d_eff(gamma, D, grid), delta / len(grid))
            theorem = M.robust_margin_bound(m, M.robust_d_eff(gamma, D), delta)
            assert np.min(lemma) <= theorem * (1 + 1e-12)


def test_remark_4_36_soft_margin_identity():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    vs = np.linalg.norm(X, axis=1).max()
    w = rng.normal(size=5) * 3
    y = np.sign(X @ rng.normal(size=5))
    t = y * (X @ w)
    xi = np.maximum(0, 1 - t)
    wn = np.linalg.norm(w)
    D = M.margin_distribution(t / wn, 1 / wn)   # unit-norm w, gamma = 1/||w||
    assert D**2 == pytest.approx(np.sum(xi**2) / wn**2)
    assert M.soft_margin_d_eff(wn, xi, vs) == pytest.approx(65 * (vs * wn + 3 * np.linalg.norm(xi)) ** 2)
    assert 1 / wn <= vs                          # Theorem 4.35 needs gamma in (0, varsigma]
    assert M.soft_margin_d_eff(wn, xi, vs) == pytest.approx(M.robust_d_eff(1 / wn, D, vs))
    assert M.soft_margin_d_eff(wn, xi, vs, norm=1) >= M.soft_margin_d_eff(wn, xi, vs)


def test_amm_d_eff_formula():
    xi = np.array([0.0, 0.5, 2.0, 1.0])
    alpha = np.array([1.0, 0.2, 0.5, 3.0])
    kd = np.ones(4)
    lam = 0.5
    c = np.maximum(0, xi - lam * alpha * kd)      # [0, 0.4, 1.75, 0]
    assert M.amm_d_eff(2.0, xi, alpha, kd, lam, 1.5) == pytest.approx(65 * (3.0 + 3 * c.sum()) ** 2)
    # lam = 0 gives the l1 soft-margin value (4.35)
    assert M.amm_d_eff(2.0, xi, alpha, kd, 0.0, 1.5) == pytest.approx(
        M.soft_margin_d_eff(2.0, xi, 1.5, norm=1))
    # vectorised over a leading axis
    out = M.amm_d_eff([2.0, 1.0], np.stack([xi, xi]), alpha, kd, [0.5, 0.0], 1.5)
    assert out.shape == (2,)


def test_lkc_forms_round_the_complexity_term_up_and_tr_does_not():
    """LKC prints ceil(d ld(8em/d) ld(32m)) in eqs. 4.27, 4.29, 4.32-4.33, 4.38; TR Thm 1 has none.

    At m = 200 the ceiling moves the value by up to 2/m = 0.01, so a missing (or an extra)
    ceiling fails these comparisons, which are exact to 1e-12.
    """
    import math

    m, delta = 200, 0.05
    for d in [3.3, 17.2, 150.0]:
        bits = d * LD(8 * np.e * m / d) * LD(32 * m)
        assert math.ceil(bits) - bits > 0.05                   # the ceiling matters here
        ceil_ = math.ceil(bits)
        assert cv.fat_shattering_bound(m, d, delta) == pytest.approx(
            2 / m * (ceil_ + LD(m) + LD(2 / delta)), rel=1e-12)
        assert M.margin_distribution_bound(m, d, delta) == pytest.approx(
            2 / m * (ceil_ + LD(2 * m / delta)), rel=1e-12)
        assert M.robust_margin_bound(m, d, delta) == pytest.approx(
            2 / m * (ceil_ + LD((16 + LD(m)) * m / delta)), rel=1e-12)
    # eq. 4.29 at margin complexity c: d = 64 c
    c = 0.45
    bits = 64 * c * LD(np.e * m / (8 * c)) * LD(32 * m)
    assert math.ceil(bits) - bits > 0.05
    assert M.pac_margin_bound(m, 1 / np.sqrt(c), delta) == pytest.approx(
        2 / m * (math.ceil(bits) + LD(2 * m / delta)), rel=1e-12)
    # TR Theorem 1: no ceiling (kappa = ceil(577 c) is TR's own rounding)
    gamma = 2.0
    kappa = math.ceil(577 / gamma**2)
    m_tr = 1000
    bits = kappa * LD(8 * np.e * m_tr / kappa) * LD(32 * m_tr)
    assert math.ceil(bits) - bits > 0.05
    assert M.tr_margin_bound(m_tr, gamma, delta) == pytest.approx(
        2 / m_tr * (bits + LD(8 * m_tr / delta)), rel=1e-12)


def test_tr_theorem_1():
    m, gamma, delta, vs = 10**6, 0.9, 0.05, 1.0
    kappa = int(np.ceil(577 * vs**2 / gamma**2))
    expect = 2 / m * (kappa * LD(8 * np.e * m / kappa) * LD(32 * m) + LD(8 * m / delta))
    assert M.tr_margin_bound(m, gamma, delta, vs) == pytest.approx(expect)
    # kappa ~ 577 c > 64 c: TR's constant is weaker than eq. (4.29) wherever both apply
    ms = np.logspace(4, 9, 30).astype(int)
    for c in [1.0, 2.0, 5.0]:
        tr = M.tr_margin_bound(ms, 1 / np.sqrt(c), delta)
        pac = M.pac_margin_bound(ms, 1 / np.sqrt(c), delta)
        ok = np.isfinite(tr)
        assert ok.any() and np.all(tr[ok] >= pac[ok])


# -- monotonicity ---------------------------------------------------------------------------
_dec, _inc = decreasing, increasing


def test_monotonicity():
    ms = np.unique(np.logspace(5, 9, 40).astype(int))
    gs = np.linspace(0.2, 1.0, 30)
    ds = np.logspace(-6, -0.1, 30)
    vss = np.linspace(0.5, 1.5, 30)
    assert _dec(M.pac_margin_bound(ms, 0.5, 0.05))
    assert _dec(M.pac_margin_bound(10**6, gs, 0.05))
    assert _dec(M.pac_margin_bound(10**6, 0.5, ds))
    assert _inc(M.pac_margin_bound(10**6, 0.5, 0.05, vss))
    assert _dec(M.tr_margin_bound(ms, 0.9, 0.05))
    assert _dec(M.tr_margin_bound(10**7, gs[gs > 0.5], 0.05))
    assert _dec(M.tr_margin_bound(10**7, 0.9, ds))
    vts = np.linspace(0, 2000, 50)
    assert _inc(M.robust_margin_bound(1000, vts, 0.05))
    assert _dec(M.robust_margin_bound(ms, 1040, 0.05))
    assert _dec(M.robust_margin_bound(10**6, 1040, ds))
    assert _inc(M.robust_d_eff(0.5, np.linspace(0, 3, 20)))
    assert _dec(M.robust_d_eff(np.linspace(0.1, 1, 20), 0.5))
    assert _inc(M.margin_distribution(np.linspace(-1, 1, 11)[None, :], np.linspace(0.1, 2, 20)))


def test_bounds_hold_near_zero_risk_limit():
    # every risk bound is positive, and it tends to 0 as m grows (consistency)
    assert 0 < M.pac_margin_bound(10**12, 0.5, 0.05) < 1e-6
    assert 0 < M.robust_margin_bound(10**12, 1040, 0.05) < 1e-5
    assert 0 < M.tr_margin_bound(10**12, 0.5, 0.05) < 1e-4


# -- Monte-Carlo validity -------------------------------------------------------------------
def _max_margin_2d(theta, y):
    """Hard-margin homogeneous separator in R^2 for points (cos theta, sin theta): closed form."""
    psi = np.angle(y * np.exp(1j * theta))             # angles of z_i = y_i x_i
    centre = np.angle(np.mean(np.exp(1j * psi)))
    rel = np.angle(np.exp(1j * (psi - centre)))
    lo, hi = rel.min(), rel.max()
    return centre + (lo + hi) / 2, np.cos((hi - lo) / 2)   # direction, geometric margin


def test_max_margin_2d_matches_package_svm():
    from kernelclf.margin import SupportVectorMachine

    rng = np.random.default_rng(8)
    theta = np.r_[rng.uniform(-0.6, 0.4, 15), np.pi + rng.uniform(-0.4, 0.6, 15)]
    y = np.sign(np.cos(theta))
    X = np.c_[np.cos(theta), np.sin(theta)]
    phi, gamma = _max_margin_2d(theta, y)
    svm = SupportVectorMachine(hard_margin=True, fit_bias=False, tol=1e-10).fit(X, y)
    w = X.T @ svm.alpha_
    assert np.arctan2(w[1], w[0]) == pytest.approx(phi, abs=1e-4)
    assert 1 / np.linalg.norm(w) == pytest.approx(gamma, rel=1e-4)


def test_monte_carlo_pac_margin_bound_holds_but_has_little_power():
    """Draw samples of size m from a distribution on the unit circle with a margin, train the
    max-margin separator, and compare eq. (4.29) with the exact risk of that separator.

    Power (issue 25): eq. (4.29) holds here, but no simulation can bring it within a small
    factor of a risk. It is below 1 only from m = 34 820 varsigma^2/gamma^2 on, and there
    m * (4.29) >= 128 ld(e m/8) ld(32 m) > 3.4e4, while m times the risk of a consistent
    classifier stays of order ln(1/delta) plus the VC dimension of the data's span (eq. 4.15;
    here the plane, and the separator is the SVM's, risk <= 3.9e-6 against bounds 0.71-0.78).
    The last term (2/m) ld(2m/delta) = 6.7e-4 alone is 170 times the largest risk. So the
    check below only catches an eq. (4.29) that is more than 5e5 times too small: the
    assertion with that factor is what the simulation can show, and no more.
    """
    rng = np.random.default_rng(9)
    m, delta, a, p, n_draws = 60_000, 0.1, 0.35, 2e-5, 100
    risks, bounds = [], []
    for _ in range(n_draws):
        # mass 1-p on two arcs of half-width a around 0 and pi, mass p uniform on the circle
        wide = rng.uniform(size=m) < p
        theta = np.where(wide, rng.uniform(-np.pi, np.pi, m),
                         rng.uniform(-a, a, m) + np.pi * (rng.uniform(size=m) < 0.5))
        y = np.where(np.cos(theta) > 0, 1.0, -1.0)
        phi, gamma = _max_margin_2d(theta, y)
        phi = np.angle(np.exp(1j * phi))
        # exact risk: the two wedges of angle |phi| around +-pi/2 where the labels disagree
        # carry mass p |phi| / pi (the arcs are disjoint from them while |phi| < pi/2 - a)
        assert abs(phi) < np.pi / 2 - a
        risks.append(p * abs(phi) / np.pi)
        bounds.append(M.pac_margin_bound(m, gamma, delta, 1.0) if gamma > 0 else np.inf)
    risks, bounds = np.array(risks), np.array(bounds)
    assert np.mean(risks > 0) > 0.5                  # the learned separators do err
    assert np.mean(bounds < 1) > 0.5                 # and the bound is non-trivial in most draws
    assert np.mean(risks > bounds) <= delta          # it holds in at least a 1 - delta fraction
    # the little power there is: the bound divided by 5e5 is violated in more than delta of
    # the draws, the bound divided by 1e5 is not (it is 4.3e5 times the 90 % risk quantile)
    assert np.mean(risks > bounds / 5e5) > delta
    assert np.mean(risks > bounds / 1e5) <= delta
    assert np.all(m * bounds[bounds < 1] > 3.4e4) and risks.max() < 4e-6


# -- validation -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: M.pac_margin_bound(0, 0.5, 0.05),
    lambda: M.pac_margin_bound(10.5, 0.5, 0.05),
    lambda: M.pac_margin_bound(100, 0.0, 0.05),
    lambda: M.pac_margin_bound(100, -0.5, 0.05),
    lambda: M.pac_margin_bound(100, 0.5, 0.0),
    lambda: M.pac_margin_bound(100, 0.5, 1.0),
    lambda: M.pac_margin_bound(100, 0.5, 0.05, varsigma=0),
    lambda: M.pac_margin_bound(100, np.nan, 0.05),
    lambda: M.pac_margin_bound([100, 200], [0.5, 0.6, 0.7], 0.05),
    lambda: M.robust_d_eff(1.5, 0.1, 1.0),
    lambda: M.robust_d_eff(0.5, -0.1, 1.0),
    lambda: M.robust_margin_bound(100, 10, 2.0),
    lambda: M.margin_distribution(1.0, 0.5),
    lambda: M.margin_distribution([1.0, np.nan], 0.5),
    lambda: M.soft_margin_d_eff(1.0, [0.1, -0.1]),
    lambda: M.soft_margin_d_eff(1.0, [0.1], norm=3),
    lambda: M.amm_d_eff(1.0, [0.1], [-1.0], [1.0], 0.5),
    lambda: M.nontrivial_sample_size(0.0),
    lambda: M.tr_margin_bound(100, 0.5, 0.05, varsigma=-1),
    lambda: M.Delta_grid(0),
    lambda: M.optimal_Delta(-1.0),
])
def test_validation_errors(call):
    with pytest.raises(ValueError):
        call()


def test_scalar_and_array_returns():
    assert isinstance(M.pac_margin_bound(10**5, 0.5, 0.05), np.floating)
    out = M.pac_margin_bound([10**5, 10**6], [[0.5], [0.7]], 0.05)
    assert out.shape == (2, 2) and out.dtype == float
