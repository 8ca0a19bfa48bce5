"""Tests of kernelclf.bounds.volume (book chapter 16; LKC App. C.8, Fig. C.5; TR 99-11 App. B.1).

References: the regularised incomplete beta function (scipy) for the cap integrals, Monte Carlo
on the sphere in low dimension, closed forms (n = 3: ratio 2/x; the hemisphere: ln 2), the
arcsine series, brute-force sums for the central-binomial lemmas, and Fig. C.5's printed claim.

Power (issue 25): the volume bounds are deterministic inequalities, checked on grids against
the exact ratio; Theorem C.15 is attained at x = 1 (ln 2), so the check of it also asserts
that 0.99 times the bound is violated near x = 1. The version-space volume checks compare
Monte-Carlo estimates with exact values, not bounds.
"""
import math

import numpy as np
import pytest
from scipy import integrate, special

from kernelclf.bayespoint import sample_version_space
from kernelclf.bounds import pac_bayes_margin as PB
from kernelclf.bounds import volume as V


def log_ratio_beta(n, x):
    """Independent reference: the cap fraction through the regularised incomplete beta.

    For the cap <w,v> > t = 1 - x on the sphere of R^n, t >= 0:
    fraction = I_{1-t^2}((n-1)/2, 1/2) / 2; for t < 0 the complement.
    """
    t = 1 - x
    f = 0.5 * special.betainc((n - 1) / 2, 0.5, 1 - t**2)
    f = f if t >= 0 else 1 - f
    return -math.log(f)


# -- Theorem C.14 by quadrature ----------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 10, 11, 50, 100])
def test_log_volume_ratio_vs_incomplete_beta(n):
    for x in [1e-3, 0.02, 0.3, 0.7, 1.0, 1.4, 1.9, 2.0]:
        assert V.log_volume_ratio(n, x) == pytest.approx(log_ratio_beta(n, x), rel=1e-8, abs=1e-12)


def test_closed_forms_small_n_and_hemisphere():
    x = np.linspace(0.01, 2, 50)
    assert np.allclose(V.log_volume_ratio(3, x), np.log(2 / x))          # Archimedes
    assert np.allclose(V.log_volume_ratio(2, x), np.log(np.pi / np.arccos(1 - x)))
    assert np.allclose(V.log_volume_ratio(np.arange(2, 200), 1.0), np.log(2))
    assert V.log_volume_ratio(7, 2.0) == pytest.approx(0.0, abs=1e-12)


def test_large_n_no_underflow():
    # the cap fraction is far below the smallest double, the log stays finite and matches beta asymptotics
    val = V.log_volume_ratio(3000, 0.01)
    assert np.isfinite(val) and val > 700
    # doubling n roughly doubles the log ratio for small caps: ((n-1)/2) ln(1/x) leading term
    v1, v2 = V.log_volume_ratio(1000, 1e-3), V.log_volume_ratio(2000, 1e-3)
    assert v2 / v1 == pytest.approx(2.0, rel=0.01)


def _small_cap_asymptote(n, x):
    """((n-1)/2) ln(1/x) + ln int_0^pi sin^(n-2) - ((n-1)/2) ln 2 + ln(n-1): the cap of angle
    a ~ sqrt(2x) has int_0^a sin^(n-2) ~ a^(n-1)/(n-1) (relative error O(x))."""
    p = n - 2
    full = 0.5 * math.log(math.pi) + special.gammaln((p + 1) / 2) - special.gammaln(p / 2 + 1)
    return (n - 1) / 2 * math.log(1 / x) + full - (n - 1) / 2 * math.log(2) + math.log(n - 1)


@pytest.mark.parametrize("n", [2, 3, 10, 11, 100])
def test_tiny_caps_do_not_underflow(n):
    """x below 1.1e-16, where 1 - x rounds to 1 and acos(1 - x) to 0 (the cap angle is
    2 asin(sqrt(x/2)) instead): the value follows its small-cap asymptote."""
    for x in [1e-17, 1e-30, 1e-100, 1e-300]:
        v = float(V.log_volume_ratio(n, x))
        assert np.isfinite(v) and v == pytest.approx(_small_cap_asymptote(n, x), rel=1e-10)
    # continuity across the old cut-off (the incomplete-beta reference cancels there: 1 - t^2)
    assert V.log_volume_ratio(n, 1e-15) == pytest.approx(_small_cap_asymptote(n, 1e-15), rel=1e-10)
    assert V.log_volume_ratio(n, 1e-17) > V.log_volume_ratio(n, 1e-16) > V.log_volume_ratio(n, 1e-15)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_quadrature_vs_monte_carlo_on_sphere(n):
    for x in [0.05, 0.4, 1.3]:
        f, se = V.cap_fraction_mc(n, x, n_draws=400_000, random_state=n)
        exact = math.exp(-V.log_volume_ratio(n, x))
        assert abs(f - exact) < 4 * se + 1e-4
    # the same through version space: one point x_1 = e_1 has V = a hemisphere
    vol, se = V.version_space_volume(np.eye(n)[:1], [1], n_draws=200_000, random_state=0)
    assert abs(vol - 0.5) < 4 * se


def test_parametrisations():
    assert V.cap_x_from_radius(0.5) == pytest.approx(0.125)
    G = np.linspace(0.01, 1, 30)
    assert np.allclose(V.cap_x_from_margin(G), 1 - np.sqrt(1 - G**2))
    # the cap of Theorem 5.10 has angular radius arcsin(Gamma)
    assert np.allclose(np.arccos(1 - V.cap_x_from_margin(G)), np.arcsin(G))


def test_erratum_e17_numerator_is_integral_to_pi():
    """TR Lemma 1 / LKC App. C.8 print the numerator of the ratio as an integral up to 2 pi (E17).

    The correct numerator (LKC Theorem C.14) integrates sin^(n-2) over [0, pi]: only that
    matches Monte Carlo on the sphere. Over [0, 2 pi] an odd power integrates to 0 and an
    even power to twice the value, so the printed form is off by a factor 2 or undefined.
    """
    for n in [3, 4, 5]:
        p = n - 2
        x = 0.4
        cap = integrate.quad(lambda t: math.sin(t) ** p, 0, math.acos(1 - x))[0]
        to_pi = integrate.quad(lambda t: math.sin(t) ** p, 0, math.pi)[0]
        to_2pi = integrate.quad(lambda t: math.sin(t) ** p, 0, 2 * math.pi, limit=200)[0]
        f, se = V.cap_fraction_mc(n, x, n_draws=300_000, random_state=10 + n)
        assert abs(cap / to_pi - f) < 4 * se                     # [0, pi]: right
        assert V.log_volume_ratio(n, x) == pytest.approx(math.log(to_pi / cap), rel=1e-9)
        if p % 2:
            assert abs(to_2pi) < 1e-10                           # printed form: division by ~0
        else:
            assert abs(cap / to_2pi - f) > 20 * se               # printed form: half the fraction


# -- Theorem C.15, TR Lemma 2 and the closed form S(k, x) -----------------------------------------
def test_closed_form_S_vs_quadrature():
    for k in [0, 1, 2, 5, 12]:
        for x in [0.0, 0.01, 0.2, 0.45, 0.5, 0.8, 1.0]:
            a = math.acos(1 - 2 * x)
            quad = integrate.quad(lambda t: math.sin(t) ** (2 * k + 1), 0, a, epsabs=1e-14)[0]
            assert V.sin_power_integral_closed_form(k, x) == pytest.approx(quad, rel=1e-9, abs=1e-14)


def test_theorem_c15_and_tr_lemma2_hold():
    xs = np.linspace(1e-3, 1.0, 300)
    for j in range(0, 30):
        n = 2 * j + 3
        exact = V.log_volume_ratio(n, xs)
        bound = V.thm_c15_bound(j, xs)
        assert np.all(exact <= bound + 1e-10)
        assert bound[-1] == pytest.approx(exact[-1])            # equality at x = 1 (ln 2)
        # power: the bound is tight near x = 1, so 0.99 times it is violated there
        assert np.any(exact > 0.99 * bound)
        # TR Lemma 2 in TR's variable x_TR = x / 2 < 1/2 is weaker by 2j ln 2
        xt = xs[xs < 1] / 2
        tr = V.tr_lemma2_bound(j, xt)
        assert np.all(V.log_volume_ratio(n, 2 * xt) <= tr + 1e-10)
        assert np.allclose(tr - V.thm_c15_bound(j, 2 * xt), 2 * j * np.log(2))


def test_ratio_grows_with_dimension_so_even_n_is_covered():
    xs = np.linspace(0.01, 1.0, 60)
    prev = V.log_volume_ratio(2, xs)
    for n in range(3, 60):
        cur = V.log_volume_ratio(n, xs)
        assert np.all(cur >= prev - 1e-12)
        prev = cur
        assert np.all(cur <= V.log_volume_ratio_bound(n, xs) + 1e-10)
        # the weaker n ln(1/x) + ln 2 of the proof of Theorem 5.10
        assert np.all(cur <= n * np.log(1 / xs) + np.log(2) + 1e-10)


def test_central_binomial_lemmas():
    xs = np.linspace(1e-4, 0.4999, 500)
    for k in range(1, 40):
        brute = sum(math.comb(2 * i, i) * (xs * (1 - xs)) ** i for i in range(1, k + 1))
        s = V.central_binomial_sum(k, xs)
        assert np.allclose(s, brute, rtol=1e-12)
        assert np.all(s <= V.bollmann_bound(k, xs) * (1 + 1e-12))     # LKC Lemma C.20
        assert np.all(s <= V.tr_lemma3_bound(k, xs) * (1 + 1e-12))    # TR Lemma 3
        assert np.all(V.bollmann_bound(k, xs) <= V.tr_lemma3_bound(k, xs) * (1 + 1e-12))
    # Lemma C.18 / TR eq. 44: the arcsine series
    x = np.array([0.05, 0.2, 0.35])
    assert np.allclose(V.central_binomial_sum(4000, x), V.central_binomial_series(x), rtol=1e-9)


def test_tr_corollary_2_volume_step():
    """TR §4.2: for unit inputs, ln(vol(H)/vol(B(S))) <= n ln(4/gamma^2) for the ball of chord gamma.

    That ball lies inside the cap of angle arcsin(gamma) of Theorem C.13 (chord 2 sin(theta/2)
    >= sin(theta)), so it is in version space but not the largest ball there.
    """
    gs = np.linspace(0.01, 1.0, 60)
    for n in [2, 3, 5, 10, 50, 100, 400]:
        exact = V.log_volume_ratio(n, V.cap_x_from_radius(gs))
        assert np.all(exact <= n * np.log(4 / gs**2) + 1e-10)
        assert np.all(V.log_volume_ratio(n, V.cap_x_from_margin(gs)) <= exact + 1e-10)
    theta = np.arcsin(gs)
    assert np.all(2 * np.sin(theta / 2) >= gs - 1e-15)


# -- Fig. C.5 -------------------------------------------------------------------------------------
def test_fig_c5_factor_two_claim():
    """LKC p. 308: the bound 'seems to be within a factor of 2' of the exact value for large x."""
    xs = np.linspace(0.02, 1.0, 200)
    r10 = V.log_volume_ratio_bound(11, xs) / V.log_volume_ratio(11, xs)    # odd power 9 = 2j+1
    r100 = V.log_volume_ratio_bound(101, xs) / V.log_volume_ratio(101, xs)
    assert np.all(r10 >= 1 - 1e-9) and np.all(r100 >= 1 - 1e-9)
    assert r10[-1] == pytest.approx(1.0) and r100[-1] == pytest.approx(1.0)
    # n = 10 (11 for an odd power): within a factor of about 2 everywhere
    assert r10.max() < 2.3
    # n = 100: the factor reaches about 6 near x = 0.86 (discrepancy with the text)
    assert 6.0 < r100.max() < 6.3
    assert 0.8 < xs[np.argmax(r100)] < 0.9
    # the factor 2 is the small-x limit 2p/(n-1) of bound/exact, p the odd power used:
    # 2(n-2)/(n-1) for odd n, exactly 2 for even n; the approach is slow (~1/ln(1/x))
    for n in [10, 11, 100, 101]:
        p = n - 2 if n % 2 else n - 1
        limit = 2 * p / (n - 1)
        r = [V.log_volume_ratio_bound(n, x) / V.log_volume_ratio(n, x) for x in (1e-9, 1e-30, 1e-300)]
        assert r[0] > r[1] > r[2] > limit                      # falling towards the limit
        assert r[2] == pytest.approx(limit, rel=0.005)
    assert V.log_volume_ratio_bound(10, 1e-9) / V.log_volume_ratio(10, 1e-9) == pytest.approx(2.03, abs=0.005)
    # the absolute gap is small on Fig. C.5(b)'s scale (0..200) for x >= 0.8
    gap = V.log_volume_ratio_bound(100, xs) - V.log_volume_ratio(100, xs)
    assert np.all(gap[xs >= 0.8] < 20)


def test_fig_c5_numbers_of_the_volume_module_docstring():
    """The module docstring's own numbers, at the n it names (the test above uses n + 1):
    n = 10: bound/exact below 2.5 on (0, 1] (below 2.2 with the power n - 2 = 8) and 1 at
    x = 1; n = 100: up to about 6.2, near x = 0.86."""
    xs = np.concatenate([np.geomspace(1e-12, 1e-3, 200), np.linspace(1e-3, 1.0, 4000)])
    exact10 = V.log_volume_ratio(10, xs)
    r10 = V.log_volume_ratio_bound(10, xs) / exact10
    r8 = (8 * np.log(1 / xs) + np.log(2)) / exact10
    assert 2.4 < r10.max() < 2.5 and 2.15 < r8.max() < 2.2
    assert r10[-1] == pytest.approx(1.0)
    r100 = V.log_volume_ratio_bound(100, xs) / V.log_volume_ratio(100, xs)
    assert r100.max() == pytest.approx(6.2, abs=0.05)
    assert xs[np.argmax(r100)] == pytest.approx(0.86, abs=0.005)


# -- Monte-Carlo volume of version space ------------------------------------------------------------
def test_version_space_volume_two_points_exact():
    """Two points in R^3: V is a lune of angle pi - theta, fraction (pi - theta) / (2 pi)."""
    theta = 1.0
    X = np.array([[1.0, 0, 0], [np.cos(theta), np.sin(theta), 0]])
    vol, se = V.version_space_volume(X, [1, 1], n_draws=400_000, random_state=1)
    assert abs(vol - (np.pi - theta) / (2 * np.pi)) < 4 * se


def test_version_space_volume_path_monotone_and_reuses_sampler():
    rng = np.random.default_rng(2)
    w = np.array([0.3, 0.5, 0.8])
    X = rng.normal(size=(8, 3))
    y = np.where(X @ w > 0, 1.0, -1.0)
    path = V.version_space_volume_path(X, y, n_draws=100_000, random_state=5)
    assert path[0] == 1.0 and len(path) == 9
    assert np.all(np.diff(path) <= 0)
    assert path[1] == pytest.approx(0.5, abs=0.01)
    # same number as the package's sampler with the same seed
    assert path[-1] == len(sample_version_space(X, y, 100_000, random_state=5)) / 100_000


def test_ball_volume_lower_bounds_version_space():
    """P_W(V(z)) >= P_W(ball of Theorem C.13) = exp(-log_volume_ratio(n, 1 - sqrt(1 - Gamma^2)))."""
    rng = np.random.default_rng(3)
    n = 3
    w = np.array([1.0, 0.0, 0.0])
    X = rng.normal(size=(60, n))
    X = X[np.abs(X @ w) / np.linalg.norm(X, axis=1) > 0.5][:6]
    y = np.sign(X @ w)
    G = PB.normalized_margin(X, y, w)
    ball = math.exp(-V.log_volume_ratio(n, V.cap_x_from_margin(G)))
    vol, se = V.version_space_volume(X, y, n_draws=200_000, random_state=4)
    assert vol + 4 * se >= ball
    # and the mirrored region of w lies between the ball and V
    sym, se2 = V.symmetric_region_volume(X, y, w, n_draws=200_000, random_state=4)
    assert ball - 4 * se2 <= sym <= vol + 1e-12
    # power: the ball (0.096) is 2.4 times below V (0.231) and 1.6 times below the mirrored
    # region (0.156); a lower bound 2.6, resp. 1.7 times too large would be caught
    assert 2.6 * ball > vol + 4 * se and 1.7 * ball > sym + 4 * se2


def test_bad_input():
    with pytest.raises(ValueError, match="x"):
        V.log_volume_ratio(5, 0.0)
    with pytest.raises(ValueError, match="x"):
        V.log_volume_ratio(5, 2.5)
    with pytest.raises(ValueError, match="n"):
        V.log_volume_ratio(1, 0.5)
    with pytest.raises(ValueError, match="x"):
        V.thm_c15_bound(2, 1.5)
    with pytest.raises(ValueError, match="1/2"):
        V.tr_lemma2_bound(2, 0.5)
    with pytest.raises(ValueError, match="Gamma"):
        V.cap_x_from_margin(1.2)
    with pytest.raises(ValueError):
        V.version_space_volume(np.ones((2, 2)), [1, 0])
    with pytest.raises(ValueError, match="n_draws"):
        V.cap_fraction_mc(3, 0.5, n_draws=0)
