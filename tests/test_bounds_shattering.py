"""Tests for kernelclf.bounds.shattering (LKC Def. 4.9, Thm 4.10, Example 4.13;
book chapter 14).

Independent references: one linear program per labeling (all 2^m labelings) for the
half-plane classes, direct evaluation on a dense parameter grid for thresholds,
intervals and sine, the closed-form counts (m + 1, m(m+1)/2 + 1, Cover's
m^2 - m + 2 and 2m), the classical explicit frequencies that shatter
x_i = 10^-i with sign(sin(w x)), and Sauer's lemma (Thm 4.10), which must bound every
brute-force growth function.
"""
import itertools
import math

import numpy as np
import pytest

from kernelclf.bounds import shattering as S
from kernelclf.bounds import vc

VC_DIM = {"thresholds": 1, "thresholds_two_sided": 2, "intervals": 2, "halfplanes": 3,
          "halfplanes_no_bias": 2}
CLOSED = {"thresholds": lambda m: m + 1, "thresholds_two_sided": lambda m: 2 * m,
          "intervals": lambda m: m * (m + 1) // 2 + 1, "halfplanes": lambda m: m * m - m + 2,
          "halfplanes_no_bias": lambda m: 2 * m}


def _as_set(L):
    return {tuple(r) for r in np.asarray(L)}


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_growth_function_closed_forms_and_sauer(name):
    for m in range(1, 9):
        n = S.growth_function(name, m, n_samples=5)
        closed = CLOSED[name](m)
        assert n == min(closed, 2**m)
        # Sauer's lemma (4.17) bounds the brute-force count, with equality up to theta
        sauer = math.exp(vc.growth_exact(m, VC_DIM[name]))
        assert n <= sauer + 1e-9
        if m <= VC_DIM[name]:
            assert n == 2**m
        assert math.log(n) <= vc.growth_exact(m, VC_DIM[name]) + 1e-12
    assert S.vc_dimension(name, m_max=6) == VC_DIM[name]
    assert S.growth_function(name, 4, log=True) == pytest.approx(math.log(S.growth_function(name, 4)))


def test_thresholds_and_intervals_against_a_parameter_grid():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 7)
    t = np.linspace(-0.1, 1.1, 20_001)
    grid = np.where(x[None, :] > t[:, None], 1, -1)
    assert _as_set(S.labelings_thresholds(x)) == _as_set(grid)
    assert _as_set(S.labelings_thresholds(x, two_sided=True)) == _as_set(grid) | _as_set(-grid)
    a = np.linspace(-0.1, 1.1, 601)
    A, B = np.meshgrid(a, a, indexing="ij")
    keep = A <= B
    inside = (x[None, :] >= A[keep][:, None]) & (x[None, :] <= B[keep][:, None])
    grid = np.where(inside, 1, -1)
    assert _as_set(S.labelings_intervals(x)) == _as_set(grid)
    # repeated points count once
    assert S.count_labelings(S.labelings_thresholds([0.2, 0.2, 0.5])) == 3


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("bias", [True, False])
def test_halfplanes_against_linear_programs(seed, bias):
    rng = np.random.default_rng(seed)
    m = 4 + seed % 4
    X = rng.normal(size=(m, 2))
    enum = S.labelings_halfplanes(X, bias=bias)
    lp = S.labelings_lp(X, bias=bias)
    assert _as_set(enum) == _as_set(lp)
    assert len(enum) == (m * m - m + 2 if bias else 2 * m)       # Cover's counting function


def test_halfplanes_degenerate_configurations():
    line = np.c_[np.linspace(0, 1, 5), np.linspace(0, 2, 5)]      # collinear: like 1-d
    assert _as_set(S.labelings_halfplanes(line)) == _as_set(S.labelings_lp(line))
    assert S.count_labelings(S.labelings_halfplanes(line)) == 2 * 5
    square = np.array([[0, 0], [1, 0], [0, 1], [1, 1.0]])          # XOR is not realisable
    L = _as_set(S.labelings_halfplanes(square))
    assert len(L) == 14 and (1, -1, -1, 1) not in L and (-1, 1, 1, -1) not in L
    tri_in = np.array([[0, 0], [4, 0], [0, 4], [1, 1.0]])          # a point inside a triangle
    assert _as_set(S.labelings_halfplanes(tri_in)) == _as_set(S.labelings_lp(tri_in))
    three = np.array([[0, 0], [1, 0], [0, 1.0]])
    assert S.is_shattered(S.labelings_halfplanes(three))
    # without bias, two points on a ray through the origin cannot be split
    ray = np.array([[1, 1], [2, 2.0]])
    assert not S.is_shattered(S.labelings_halfplanes(ray, bias=False))


def test_separating_halfplane_realises_the_labeling():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 2))
    for y in itertools.product((-1, 1), repeat=5):
        sol = S.separating_halfplane(X, np.array(y))
        if sol is not None:
            w, b = sol
            assert np.all(np.sign(X @ w + b) == np.array(y))
    assert S.separating_halfplane(np.array([[0, 0], [1, 0], [2, 0.0]]), np.array([1, -1, 1])) is None


def test_sine_against_a_frequency_grid():
    x = np.array([0.13, 0.41, 0.77, 1.0, 1.6])
    w_max = 40.0
    w = np.linspace(1e-6, w_max, 400_001)
    grid = np.where(np.sin(np.outer(w, x)) > 0, 1, -1)
    grid = _as_set(grid) | _as_set(-grid)
    assert _as_set(S.labelings_sine(x, w_max)) == grid


def test_sine_shatters_the_classical_points():
    # LKC Example 4.13.3: x_i = 10^-i is shattered by w = pi (1 + sum_i (1 - y_i)/2 10^i)
    m = 4
    x = 10.0 ** -np.arange(1, m + 1)
    for y in itertools.product((-1, 1), repeat=m):
        y = np.array(y)
        w = np.pi * (1 + np.sum((1 - y) / 2 * 10.0 ** np.arange(1, m + 1)))
        assert np.all(np.sign(np.sin(w * x)) == y)
    assert S.is_shattered(S.labelings_sine(x, np.pi * 1.2 * 10**m))
    # binary points x_i = 2^-i (m >= 2) are shattered exactly when w_max > pi (2^m - 2)
    for m in range(2, 9):
        x = 2.0 ** -np.arange(1, m + 1)
        w_star = np.pi * (2**m - 2)
        assert S.is_shattered(S.labelings_sine(x, w_star + 1e-6))
        assert not S.is_shattered(S.labelings_sine(x, w_star - 1e-6))
    # so no finite VC dimension: Sauer's polynomial is exceeded at every theta
    for theta in range(1, 6):
        m = theta + 3
        x = 2.0 ** -np.arange(1, m + 1)
        count = S.count_labelings(S.labelings_sine(x, np.pi * 2**m + 1e-9))
        assert count > math.exp(vc.growth_exact(m, theta))


def _exact_sine_count(ks, step, w_max):
    """Labelings of sign(sin(w x)) on x_i = k_i * step, |w| <= w_max, in exact arithmetic.

    With theta = w * step / pi the sign of sin(w x_i) is (-1)^floor(k_i theta); it changes
    at the rationals j / k_i, so one rational midpoint per interval lists every labeling.
    """
    from fractions import Fraction

    t_max = Fraction(w_max * step / math.pi).limit_denominator(10**9)
    crit = {Fraction(0), t_max}
    for k in ks:
        crit |= {Fraction(j, k) for j in range(1, int(t_max * k) + 1)}
    crit = sorted(c for c in crit if c <= t_max)
    labs = set()
    for a, b in zip(crit[:-1], crit[1:]):
        t = (a + b) / 2
        lab = tuple(1 if (k * t.numerator // t.denominator) % 2 == 0 else -1 for k in ks)
        labs |= {lab, tuple(-v for v in lab)}
    return len(labs)


@pytest.mark.parametrize("ks, step", [((5, 14, 23, 32, 41, 50), 0.02),   # linspace(0.1, 1, 6)
                                      ((1, 2, 3, 4, 5, 6), 1.0), ((3, 7, 11), 0.1)])
def test_sine_commensurate_points_against_exact_counts(ks, step):
    """Evenly spaced points: many critical frequencies coincide, and rounding must not add
    labelings. sin(w k step) repeats in w with period 2 pi / step, so beyond one period the
    count stays at the one-period value (and 6 such points are never shattered)."""
    x = np.array(ks, dtype=float) * step
    period = 2 * np.pi / step
    for w_max in [0.3 * period, period, 5 * period, 20 * period]:
        got = S.count_labelings(S.labelings_sine(x, w_max))
        assert got == _exact_sine_count(ks, step, w_max), (ks, w_max)
    assert _exact_sine_count(ks, step, 20 * period) == _exact_sine_count(ks, step, period)
    if len(ks) == 6:
        assert _exact_sine_count(ks, step, period) < 2**6


def test_sine_count_grows_with_frequency_range():
    x = np.linspace(0.1, 1, 6)
    counts = [S.count_labelings(S.labelings_sine(x, W)) for W in [5, 20, 50, 100]]
    assert counts == sorted(counts) and counts[-1] < 2**6        # evenly spaced: not shattered


def test_erm_threshold_against_a_grid():
    rng = np.random.default_rng(4)
    for m in [1, 5, 30, 200]:
        x = np.round(rng.uniform(0, 1, m), 2)                 # ties included
        y = np.where(rng.uniform(size=m) < 0.5 + 0.4 * (x > 0.4), 1, -1)
        t, remp = S.erm_threshold(x, y)
        assert np.mean(np.where(x > t, 1, -1) != y) == pytest.approx(remp)
        grid = np.linspace(-0.5, 1.5, 40_001)
        best = (np.where(x[None, :] > grid[:, None], 1, -1) != y[None, :]).mean(axis=1).min()
        assert remp == pytest.approx(best)
    with pytest.raises(ValueError):
        S.erm_threshold([0.1, 0.2], [1, 0])


@pytest.mark.parametrize("call", [
    lambda: S.labelings_thresholds([]), lambda: S.labelings_thresholds([[0.1, 0.2]]),
    lambda: S.labelings_halfplanes(np.zeros((3, 3))),
    lambda: S.labelings_halfplanes([[0, 0], [1, 1]], bias=False),
    lambda: S.labelings_sine([0.0, 1.0], 10.0), lambda: S.labelings_sine([1.0], -1.0),
    lambda: S.labelings_sine([1.0], 1e9), lambda: S.labelings_lp(np.zeros((15, 2))),
    lambda: S.growth_function("lines", 3), lambda: S.growth_function("intervals", 0),
    lambda: S.separating_halfplane(np.zeros((2, 2)), [1, 0]), lambda: S.labelings_intervals([np.nan, 1.0]),
])
def test_input_validation(call):
    with pytest.raises(ValueError):
        call()
