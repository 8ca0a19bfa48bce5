"""Tests of kernelclf.bounds.compression (book chapter 17; LKC §5.2, Thm 5.17-5.18, 5.23).

References: the formulas re-typed here with math.comb / math.factorial, the reconstruction
identities of Examples 5.15-5.16 (refit on the compression set, compare the classifiers),
Novikoff's bound checked against actual perceptron runs, the scalar implementation in
kernelclf.margin.perceptron, and simulations with the exact risk of a known target.
"""
import math
import warnings

import numpy as np
import pytest

from kernelclf.bounds import compression as C
from kernelclf.bounds import trivial
from kernelclf.bounds.mistake import mistake_bound_risk as scalar_mistake_bound_risk
from kernelclf.kernels import RBF
from kernelclf.margin import KernelPerceptron, Perceptron, SupportVectorMachine, halving_algorithm


def separable(m, n=3, gap=0.1, seed=0, noise=0.0):
    """Gaussian inputs labelled by w* = e_1 through the origin, a gap of ``gap`` removed."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((4 * m + 100, n))
    X = X[np.abs(X[:, 0]) > gap][:m]
    y = np.sign(X[:, 0])
    if noise:
        flip = rng.random(m) < noise
        y = np.where(flip, -y, y)
    return X, y


def risk(est, gap, noise=0.0, n=3, size=40_000, seed=99):
    Xt, yt = separable(size, n=n, gap=gap, seed=seed)
    err = np.mean(np.sign(est.decision_function(Xt)) != yt)
    return noise + (1 - 2 * noise) * err


# -- formulas ---------------------------------------------------------------------------
@pytest.mark.parametrize("m,d", [(10, 0), (50, 3), (200, 17), (1000, 999)])
def test_log_index_vectors_against_math(m, d):
    ordered = math.log(math.comb(m, d) * math.factorial(d))
    assert C.log_index_vectors(m, d) == pytest.approx(ordered, rel=1e-10, abs=1e-10)
    assert C.log_index_vectors(m, d, True) == pytest.approx(math.log(math.comb(m, d)),
                                                            rel=1e-10, abs=1e-10)


def test_thm_5_17_and_5_18_retyped():
    m, d, delta = 300, 12, 0.05
    pi = (math.log(math.comb(m, d)) + math.log(m) + math.log(1 / delta)) / (m - d)
    npi = (math.log(math.comb(m, d) * math.factorial(d)) + math.log(m) + math.log(1 / delta)) / (m - d)
    assert C.pac_compression_bound(m, d, delta, permutation_invariant=True) == pytest.approx(pi)
    assert C.pac_compression_bound(m, d, delta) == pytest.approx(npi)
    remp = 0.04
    lossy = m / (m - d) * remp + math.sqrt(
        (math.log(math.comb(m, d)) + 2 * math.log(m) + math.log(1 / delta)) / (2 * (m - d)))
    assert C.lossy_compression_bound(m, d, remp, delta, True) == pytest.approx(lossy)
    # the lossy bound with remp = 0 is looser than the PAC one (sqrt vs 1/(m-d) rate)
    assert C.lossy_compression_bound(m, d, 0.0, delta, True) > pi


def test_relaxed_form_dominates_eq_5_16_for_small_d():
    m = 500
    d = np.arange(0, m // 2 + 1)
    exact = C.pac_compression_bound(m, d, 0.05, permutation_invariant=True)
    relaxed = C.compression_bound_relaxed(m, d, 0.05)
    assert np.all(relaxed >= exact - 1e-12)
    # footnote 5: for d > m/2 the relaxed value is > 1 (trivially true)
    assert C.compression_bound_relaxed(m, m // 2 + 1, 0.05) > 1


def test_d_equals_m_is_inf_and_bad_input():
    assert np.isinf(C.pac_compression_bound(10, 10, 0.1))
    assert np.isinf(C.lossy_compression_bound(10, 10, 0.0, 0.1))
    assert trivial(C.pac_compression_bound(10, 10, 0.1))
    with pytest.raises(ValueError, match="d"):
        C.pac_compression_bound(10, 11, 0.1)
    with pytest.raises(ValueError, match="delta"):
        C.pac_compression_bound(10, 1, 1.5)
    with pytest.raises(ValueError, match="remp"):
        C.lossy_compression_bound(10, 1, -0.1, 0.1)
    with pytest.raises(ValueError, match="n_mistakes"):
        C.mistake_bound_risk(-1, 10, 0.1)
    with pytest.raises(ValueError, match="n_hypotheses"):
        C.halving_mistake_bound(0)


def test_mistake_bound_risk_matches_perceptron_module():
    for M, m, delta in [(0, 10, 0.5), (3.5, 100, 0.05), (40, 1000, 0.01)]:
        assert C.mistake_bound_risk(M, m, delta) == pytest.approx(
            scalar_mistake_bound_risk(M, m, delta))
    vec = C.mistake_bound_risk([1, 2], [100, 200], 0.05)
    assert vec.shape == (2,)


# -- Examples 5.15 and 5.16: reconstruction identities -----------------------------------
def test_example_5_15_perceptron_reconstruction():
    X, y = separable(80, gap=0.2, seed=1)
    p = Perceptron().fit(X, y)
    idx = C.perceptron_compression(p)
    assert 0 < len(idx) < len(y)
    q = C.reconstruct(p, X, y, idx)
    np.testing.assert_allclose(q.coef_, p.coef_, atol=1e-12)
    assert q.n_updates_ == p.n_updates_       # the very same update sequence
    # a shuffled order of the compression set may give another weight vector: no d! saved
    kp = KernelPerceptron(kernel=RBF(1.0)).fit(X, y)
    kidx = C.perceptron_compression(kp)
    kq = C.reconstruct(kp, X, y, kidx)
    Xt = np.random.default_rng(5).standard_normal((50, 3))
    np.testing.assert_allclose(kq.decision_function(Xt), kp.decision_function(Xt), atol=1e-10)


def test_perceptron_compression_refuses_unconverged_or_shuffled():
    X, y = separable(40, seed=2, noise=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = Perceptron(max_epochs=5).fit(X, y)
    with pytest.raises(ValueError, match="converge"):
        C.perceptron_compression(p)
    Xs, ys = separable(40, seed=2)
    with pytest.raises(ValueError, match="shuffle"):
        C.perceptron_compression(Perceptron(shuffle=True, random_state=0).fit(Xs, ys))
    with pytest.raises(ValueError, match="empty"):
        C.reconstruct(Perceptron(), Xs, ys, [])


@pytest.mark.parametrize("kw", [dict(hard_margin=True, fit_bias=False),
                                dict(C=0.5, fit_bias=True),
                                dict(C=2.0, kernel=RBF(1.5), fit_bias=False)])
def test_example_5_16_svm_reconstruction(kw):
    X, y = separable(60, gap=0.05, seed=3, noise=0.0 if kw.get("hard_margin") else 0.1)
    svm = SupportVectorMachine(solver="qp", tol=1e-10, **kw).fit(X, y)
    idx = C.svm_compression(svm)
    assert len(idx) < len(y)
    Xt = np.random.default_rng(7).standard_normal((100, 3))
    f = svm.decision_function(Xt)
    for order in (idx, idx[::-1], np.random.default_rng(0).permutation(idx)):
        g = C.reconstruct(svm, X, y, order).decision_function(Xt)
        np.testing.assert_allclose(g, f, atol=1e-5 * max(1.0, np.abs(f).max()))


# -- Example 5.24: Novikoff's bound is a mistake bound for every order ----------------------
def test_perceptron_mistake_bound_dominates_runs():
    X, y = separable(60, gap=0.3, seed=4)
    M = C.perceptron_mistake_bound(X, y)
    rng = np.random.default_rng(0)
    for _ in range(20):
        order = rng.permutation(len(y))
        assert Perceptron().fit(X[order], y[order]).n_updates_ <= M
    # precomputed Gram gives the same value
    assert C.perceptron_mistake_bound(X @ X.T, y, precomputed=True) == pytest.approx(M, rel=1e-5)
    # reference: (max ||x|| / gamma)^2 with gamma from the hard-margin SVM class
    svm = SupportVectorMachine(hard_margin=True, fit_bias=False, solver="qp", tol=1e-10).fit(X, y)
    ref = np.max(np.sum(X**2, 1)) / svm.margin_**2
    assert M == pytest.approx(ref, rel=1e-4)


def test_halving_mistake_bound_vs_runs():
    grid = np.linspace(0, 1, 65)                                 # |H| = 65, ld = 6.02
    rng = np.random.default_rng(1)
    for _ in range(10):
        x = rng.random(40)
        theta = rng.choice(grid)
        P = np.where(x[None, :] >= grid[:, None], 1, -1)
        y = np.where(x >= theta, 1, -1)
        res = halving_algorithm(P, y)
        assert res.n_mistakes <= C.halving_mistake_bound(len(grid))


# -- simulations: each bound holds in at least a 1 - delta fraction of draws ---------------
def test_simulation_compression_and_mistake_bounds_hold():
    delta, gap, m = 0.1, 0.2, 60
    fails = np.zeros(3)
    runs = 25
    for s in range(runs):
        X, y = separable(m, gap=gap, seed=100 + s)
        p = Perceptron().fit(X, y)
        r_p = risk(p, gap)
        d_p = len(C.perceptron_compression(p))
        fails[0] += r_p > C.pac_compression_bound(m, d_p, delta)
        fails[1] += r_p > C.mistake_bound_risk(p.n_updates_, m, delta)
        svm = SupportVectorMachine(hard_margin=True, fit_bias=False, solver="qp", tol=1e-10).fit(X, y)
        d_s = len(C.svm_compression(svm))
        fails[2] += risk(svm, gap) > C.pac_compression_bound(m, d_s, delta, True)
    assert np.all(fails / runs <= delta)


def test_simulation_halving_bound_holds_uniformly_over_version_space():
    delta, m = 0.1, 80
    grid = np.linspace(0, 1, 101)
    rng = np.random.default_rng(3)
    fails = 0
    for _ in range(40):
        theta = rng.choice(grid)
        x = rng.random(m)
        P = np.where(x[None, :] >= grid[:, None], 1, -1)
        y = np.where(x >= theta, 1, -1)
        res = halving_algorithm(P, y)
        worst = np.max(np.abs(grid[res.consistent] - theta))   # exact risk under U[0, 1]
        fails += worst > C.mistake_bound_risk(C.halving_mistake_bound(len(grid)), m, delta)
    assert fails / 40 <= delta


def test_simulation_lossy_bound_holds_with_label_noise():
    delta, gap, m, noise = 0.1, 0.05, 300, 0.03
    fails, values = 0, []
    for s in range(8):
        X, y = separable(m, gap=gap, seed=200 + s, noise=noise)
        svm = SupportVectorMachine(C=10.0, fit_bias=False, solver="qp", tol=1e-10).fit(X, y)
        remp = np.mean(np.sign(svm.decision_function(X)) != y)
        d = len(C.svm_compression(svm))
        bound = C.lossy_compression_bound(m, d, remp, delta, True)
        values.append(bound)
        fails += risk(svm, gap, noise=noise) > bound
    assert fails / 8 <= delta
    assert max(values) < 1, values                 # the check is not vacuous
