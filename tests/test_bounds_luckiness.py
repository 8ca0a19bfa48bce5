"""Tests of kernelclf.bounds.luckiness (book chapter 15; LKC §4.3, Examples 4.21–4.22).

References used: the formulas of Theorem 4.19 and Examples 4.21–4.22 re-typed
independently here, and brute force for the empirical VC dimension (half-planes,
thresholds and intervals, whose VC dimensions are known).
"""
import numpy as np
import pytest
from _monotone import decreasing, increasing

from kernelclf.bounds import luckiness as lk
from kernelclf.bounds import shattering

LD = np.log2


def test_luckiness_formulas():
    assert lk.luckiness_bound(100, 7, 0.05) == pytest.approx(2 / 100 * (7 + LD(4 / 0.05)))
    assert lk.luckiness_bound(100, 7, 0.05, 0.25) == pytest.approx(2 / 100 * (7 + LD(16 / 0.05)))
    m, vt, delta = 500, 4, 0.1
    assert lk.pac_luckiness_bound(m, vt, delta) == pytest.approx(
        2 / m * (vt * LD(2 * np.e * m / vt) + LD(4 / delta)))
    # Example 4.22: omega at L = -vartheta
    a = 2 * vt - 2 * np.log(delta)
    assert lk.empirical_vc_luckiness_log_omega(m, vt, delta) == pytest.approx(LD((np.e * m / a) ** (2 * a)))
    # the stratified bound uses the smallest integer level d with ld omega(delta/(8m)) <= d
    lev = lk.empirical_vc_luckiness_log_omega(m, vt, delta / (8 * m))
    d = max(1, int(np.ceil(lev)))
    assert lk.empirical_vc_luckiness_bound(m, vt, delta) == pytest.approx(
        float(lk.luckiness_bound(m, d, delta, 1 / (2 * m))))


def test_empirical_vc_dimension_brute_force():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(7, 2))
    # half-planes with bias in R^2: VC dimension 3; without bias: 2 (LKC Example 4.13)
    assert lk.empirical_vc_dimension(shattering.labelings_halfplanes(X, bias=True)) == 3
    assert lk.empirical_vc_dimension(shattering.labelings_halfplanes(X, bias=False)) == 2
    x = np.sort(rng.uniform(size=6))
    assert lk.empirical_vc_dimension(shattering.labelings_thresholds(x)) == 1
    assert lk.empirical_vc_dimension(shattering.labelings_intervals(x)) == 2
    # a class that sees only one pattern on a point has empirical VC dimension 0
    assert lk.empirical_vc_dimension(np.ones((3, 4))) == 0
    # a small sample can have a smaller empirical VC dimension than the class
    assert lk.empirical_vc_dimension(shattering.labelings_halfplanes(X[:2], bias=True)) == 2


# -- monotonicity ---------------------------------------------------------------------------
_dec, _inc = decreasing, increasing


def test_monotonicity():
    ms = np.unique(np.logspace(5, 9, 40).astype(int))
    ds = np.logspace(-6, -0.1, 30)
    assert _inc(lk.luckiness_bound(1000, np.arange(0, 50), 0.05))
    assert _dec(lk.luckiness_bound(1000, 5, ds))
    assert _dec(lk.luckiness_bound(1000, 5, 0.05, np.linspace(0.01, 1, 20)))
    assert _inc(lk.pac_luckiness_bound(1000, np.arange(1, 100), 0.05))
    assert _dec(lk.pac_luckiness_bound(ms, 10, 0.05))
    assert _inc(lk.empirical_vc_luckiness_bound(10**5, np.arange(0, 60, 3), 0.05))
    assert _dec(lk.empirical_vc_luckiness_bound(ms, 10, 0.05))


# -- validation -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: lk.luckiness_bound(100, 1.5, 0.05),
    lambda: lk.luckiness_bound(100, 1, 0.05, p_d=1.5),
    lambda: lk.empirical_vc_luckiness_log_omega(100, 2, 0.7),
    lambda: lk.empirical_vc_dimension(np.full((2, 2), 0.5)),
])
def test_validation_errors(call):
    with pytest.raises(ValueError):
        call()
