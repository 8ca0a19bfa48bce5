"""LKC Theorems 5.1 and 5.6 on the finite threshold class of ``bounds.finite_class``
(book chapter 16): training errors against a brute-force count, exact risks against Monte
Carlo, and the bounds checked with power (they hold; weakened versions fail)."""
from __future__ import annotations

import numpy as np
import pytest

from kernelclf.bounds import pac_bayes as pb
from kernelclf.bounds.finite_class import threshold_grid_experiment


def test_training_errors_match_brute_force():
    # same random stream: regenerate x and the flips exactly as the function draws them
    m, n_grid, n_runs, noise = 17, 11, 5, 0.2
    res = threshold_grid_experiment(m, n_grid, theta_index=4, noise=noise, n_runs=n_runs,
                                    random_state=np.random.default_rng(3))
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (n_runs, m))
    flip = rng.uniform(0, 1, (n_runs, m)) < noise
    y = np.where(x >= res.thresholds[4], 1, -1) * np.where(flip, -1, 1)
    for r in range(n_runs):
        for j, t in enumerate(res.thresholds):
            pred = np.where(x[r] >= t, 1, -1)
            assert res.emp_risk[r, j] == pytest.approx(np.mean(pred != y[r]))


def test_exact_risk_matches_monte_carlo():
    res = threshold_grid_experiment(4000, 21, theta_index=6, noise=0.1, n_runs=50,
                                    random_state=0)
    # the average training error over runs estimates the risk (200 000 draws per threshold)
    np.testing.assert_allclose(res.emp_risk.mean(0), res.risk, atol=0.004)


def test_occam_bound_holds_and_has_power():
    # LKC Theorem 5.1 with the uniform prior 1/101: the worst consistent hypothesis of each
    # run is the one that makes the bound tight
    m, n_grid, delta = 50, 101, 0.05
    res = threshold_grid_experiment(m, n_grid, noise=0.0, n_runs=2000, random_state=0)
    worst = np.where(res.emp_risk == 0, res.risk[None], -1.0).max(axis=1)
    b = float(pb.occam_bound(m, delta, 1.0 / n_grid))
    assert b < 1
    assert np.mean(worst > b) <= delta
    assert np.mean(worst > b / 3) > 1.5 * delta  # a bound 3 times too small is caught


def test_theorem_5_6_holds_and_has_power():
    m, n_grid, delta = 100, 101, 0.05
    res = threshold_grid_experiment(m, n_grid, noise=0.1, n_runs=1000, random_state=1)
    dev = (res.risk[None] - res.emp_risk).max(axis=1)  # worst hypothesis of each run
    eps = float(pb.occam_bound_with_errors(m, 0.0, delta, 1.0 / n_grid))
    assert np.mean(dev > eps) <= delta
    assert np.mean(dev > eps / 2) > 2 * delta  # a deviation term half as large is caught


def test_bad_input():
    with pytest.raises(ValueError, match="noise"):
        threshold_grid_experiment(10, noise=0.5)
    with pytest.raises(ValueError, match="theta_index"):
        threshold_grid_experiment(10, n_grid=5, theta_index=5)
    with pytest.raises(ValueError):
        threshold_grid_experiment(0)
