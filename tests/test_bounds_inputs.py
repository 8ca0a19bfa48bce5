"""Tests of kernelclf.bounds.inputs (book chapter 15): bound inputs read from fitted models.

References: the SVM's own dual quantities (hard margin: ||w||^2 = alpha'1, margin 1/||w||,
LKC App. B.5), primal computations with the linear kernel, the primal perceptron, the AMM
constraints (LKC eq. 2.58, eq. 4.36–4.38) and Remark 4.36's identity.
"""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from kernelclf.bayespoint import BayesPointMachine
from kernelclf.bounds import inputs as I
from kernelclf.bounds import margin as M
from kernelclf.kernels import RBF, Linear, Polynomial
from kernelclf.margin import AdaptiveMarginMachine, KernelPerceptron, Perceptron, SupportVectorMachine


@pytest.fixture(scope="module")
def separable():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    w = np.array([1.0, -2.0, 0.5])
    t = X @ w
    keep = np.abs(t) > 0.5
    X, t = X[keep], t[keep]
    y = np.where(t > 0, "pos", "neg")           # string labels: mapped through classes_
    return X, y


def test_hard_margin_svm(separable):
    X, y = separable
    svm = SupportVectorMachine(Linear(), hard_margin=True, fit_bias=False, tol=1e-10).fit(X, y)
    y_pm = I.signed_labels(svm, y)
    assert set(y_pm) == {-1.0, 1.0} and np.all((y == "pos") == (y_pm > 0))
    wn = I.weight_norm(svm)
    w = X.T @ svm.alpha_                         # primal weight vector (linear kernel)
    assert wn == pytest.approx(np.linalg.norm(w), rel=1e-10)
    # hard margin: ||w||^2 = sum_i alpha_i (book alpha >= 0) and gamma = 1/||w||
    assert wn**2 == pytest.approx(np.sum(np.abs(svm.alpha_)), rel=1e-5)
    assert I.margin(svm, X, y) == pytest.approx(1 / wn, rel=1e-5)
    assert I.margin(svm, X, y) == pytest.approx(svm.margin_, rel=1e-5)
    assert I.feature_radius(svm) == pytest.approx(np.linalg.norm(X, axis=1).max())
    assert I.training_error(svm, X, y) == 0.0
    assert I.n_support(svm) == len(svm.support_)
    mi = I.margin_inputs(svm, X, y)
    assert mi.m == len(y) and not mi.augmented and mi.n_support == len(svm.support_)
    assert mi.vartheta_eff == pytest.approx(mi.varsigma**2 / mi.gamma**2)
    assert mi.pac_margin_bound(0.05) == M.pac_margin_bound(mi.m, mi.gamma, 0.05, mi.varsigma)
    # geometric margins are invariant under rescaling of the dual coefficients
    assert np.allclose(I.geometric_margins(svm, X, y), (np.where(y == "pos", 1, -1) * (X @ w)) / wn)


def test_kernel_perceptron_equals_primal_perceptron(separable):
    X, y = separable
    kp = KernelPerceptron(Linear()).fit(X, y)
    pp = Perceptron().fit(X, y)
    assert np.allclose(X.T @ kp.alpha_, pp.coef_)
    assert I.weight_norm(kp) == pytest.approx(I.weight_norm(pp))
    assert np.allclose(I.functional_margins(kp, X, y), I.functional_margins(pp, X, y))
    assert I.margin(kp, X, y) == pytest.approx(I.margin(pp, X, y))
    assert I.feature_radius(pp, X) == pytest.approx(I.feature_radius(kp))
    # support: points that received an update
    assert I.n_support(kp) == I.n_support(pp) == len(np.unique(pp.mistake_indices_))
    assert I.training_error(kp, X, y) == 0.0


def test_rbf_radius_and_norm():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, 1, -1)
    svm = SupportVectorMachine(RBF(1.0), hard_margin=True, fit_bias=False, tol=1e-10).fit(X, y)
    assert I.feature_radius(svm) == pytest.approx(1.0)          # k(x, x) = 1
    G = RBF(1.0)(X, X)
    assert I.weight_norm(svm) == pytest.approx(np.sqrt(svm.alpha_ @ G @ svm.alpha_))
    assert I.margin(svm, X, y) == pytest.approx(1 / I.weight_norm(svm), rel=1e-4)
    poly = SupportVectorMachine(Polynomial(degree=2), C=1.0, fit_bias=False).fit(X, y)
    assert I.feature_radius(poly) == pytest.approx(
        np.sqrt(np.max(np.diag(Polynomial(degree=2)(X, X)))))


def test_intercept_augmentation(separable):
    X, y = separable
    X = X + np.array([3.0, 0, 0])                 # a bias is needed
    svm = SupportVectorMachine(Linear(), C=10.0, fit_bias=True).fit(X, y)
    b = svm.intercept_
    assert b != 0
    w = X.T @ svm.alpha_
    assert I.weight_norm(svm) == pytest.approx(np.sqrt(w @ w + b * b))
    assert I.feature_radius(svm) == pytest.approx(np.sqrt(np.max((X * X).sum(1)) + 1))
    mi = I.margin_inputs(svm, X, y)
    assert mi.augmented
    # the augmented homogeneous classifier (w, b) . (x, 1) gives the same outputs
    Xa = np.c_[X, np.ones(len(X))]
    wa = np.r_[w, b]
    assert np.allclose(mi.margins, I.signed_labels(svm, y) * (Xa @ wa))
    assert mi.gamma == pytest.approx(np.min(mi.margins) / np.linalg.norm(wa))
    with pytest.raises(ValueError, match="homogeneous"):
        I.weight_norm(svm, augment=False)


def test_soft_margin_training_error_and_remark_4_36():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=80) > 0, 1, -1)
    svm = SupportVectorMachine(RBF(1.0), C=1.0, fit_bias=False).fit(X, y)
    err = I.training_error(svm, X, y)
    assert err == pytest.approx(1 - svm.score(X, y))
    assert err > 0 and I.margin(svm, X, y) < 0
    mi = I.margin_inputs(svm, X, y)
    assert np.isinf(mi.pac_margin_bound(0.05))     # Theorem 4.32 needs zero training error
    xi = I.slacks(svm, X, y)
    wn = I.weight_norm(svm)
    # Remark 4.36: D(z, w/||w||, 1/||w||)^2 = sum xi^2 / ||w||^2 and eq. (4.34)
    assert mi.D(1 / wn) ** 2 == pytest.approx(np.sum(xi**2) / wn**2)
    assert mi.soft_margin_d_eff() == pytest.approx(65 * (mi.varsigma * wn + 3 * np.linalg.norm(xi)) ** 2)
    if 1 / wn <= mi.varsigma:
        assert mi.soft_margin_d_eff() == pytest.approx(
            float(M.robust_d_eff(1 / wn, mi.D(1 / wn), mi.varsigma)))
    # the robust bound over a gamma grid is at most its value at any single gamma in the grid
    g = float(np.quantile(mi.geometric_margins[mi.geometric_margins > 0], 0.5))
    assert mi.robust_margin_bound(0.05) <= mi.robust_margin_bound(0.05, gamma=g)


@pytest.mark.parametrize("spread, finite", [(0.3, True), (0.4, False)])
def test_best_robust_margin_is_the_grid_minimum(spread, finite):
    """Theorem 4.35 at each observed margin in (0, varsigma] and at varsigma, computed here
    from the SVM's outputs; the chosen gamma has the smallest d_eff and the smallest bound
    (two clusters at +-(2, 0): a finite bound at gamma = min margin for the tighter one, an
    inf bound at a gamma above the smallest margin for the wider one)."""
    rng = np.random.default_rng(5)
    y = np.where(rng.random(400) < 0.5, 1, -1)
    X = np.c_[2.0 * y, np.zeros(400)] + spread * rng.normal(size=(400, 2))
    svm = SupportVectorMachine(Linear(), C=1.0, fit_bias=False).fit(X, y)
    mi = I.margin_inputs(svm, X, y)
    gm = y * (X @ (X.T @ svm.alpha_)) / np.linalg.norm(X.T @ svm.alpha_)
    vs = np.sqrt(np.max(np.sum(X**2, axis=1)))
    grid = np.r_[np.unique(gm[(gm > 0) & (gm <= vs)]), vs]
    d = np.array([65 * (vs + 3 * np.sqrt(np.sum(np.maximum(0, g - gm) ** 2))) ** 2 / g**2
                  for g in grid])
    gamma, d_eff, value = mi.best_robust_margin(0.05)
    assert d_eff == pytest.approx(d.min(), rel=1e-9)
    assert gamma == pytest.approx(grid[np.argmin(d)], rel=1e-9)
    assert value == pytest.approx(float(M.robust_margin_bound(400, d.min(), 0.05)))
    assert value == mi.robust_margin_bound(0.05)
    assert np.isfinite(value) == finite == (d.min() <= 800)
    assert (gamma > gm[gm > 0].min()) != finite           # the grid matters, not only min margin


def test_amm_theorem_4_37():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 2))
    y = np.where(X[:, 0] - X[:, 1] + 0.7 * rng.normal(size=50) > 0, 1, -1)
    lam = 0.5
    amm = AdaptiveMarginMachine(RBF(1.0), lam=lam).fit(X, y)
    y_pm = I.signed_labels(amm, y)
    a = amm.alpha_ * y_pm
    assert np.all(a >= -1e-9)
    xi = I.amm_slacks(amm, X, y)
    t = I.functional_margins(amm, X, y)
    kd = np.ones(len(y))
    # feasibility of (alpha, xi) for eq. (2.58) ...
    assert np.all(t >= 1 - xi + lam * a * kd - 1e-6)
    # ... so eq. (4.36) holds and eq. (4.38) dominates the eq. (4.37) value
    assert np.all(np.maximum(0, 1 - t) <= np.maximum(0, xi - lam * a * kd) + 1e-6)
    d38 = I.amm_d_eff(amm, X, y)
    d37 = I.margin_inputs(amm, X, y).soft_margin_d_eff()
    assert d38 >= d37 * (1 - 1e-9)
    wn = I.weight_norm(amm)
    assert d38 == pytest.approx(
        65 * (wn + 3 * np.sum(np.maximum(0, xi - lam * np.maximum(a, 0)))) ** 2, rel=1e-9)
    # the slacks the LP reports equal the smallest feasible ones (the LP minimises sum xi)
    minimal = np.maximum(0, 1 - t + lam * np.maximum(a, 0) * kd)
    assert np.allclose(xi, minimal, atol=1e-6)
    with pytest.raises(TypeError):
        I.amm_d_eff(SupportVectorMachine(RBF(1.0), fit_bias=False).fit(X, y), X, y)


def test_bayes_point_machine_unit_norm():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bpm = BayesPointMachine(RBF(1.0), random_state=0).fit(X, y)
    G = RBF(1.0)(X, X)
    assert I.weight_norm(bpm) == pytest.approx(np.sqrt(bpm.alpha_ @ G @ bpm.alpha_))
    mi = I.margin_inputs(bpm, X, y)
    assert mi.training_error == pytest.approx(1 - bpm.score(X, y))
    assert mi.varsigma == pytest.approx(1.0)


def test_errors(separable):
    X, y = separable
    with pytest.raises(NotFittedError):
        I.weight_norm(SupportVectorMachine())
    svm = SupportVectorMachine(Linear(), hard_margin=True, fit_bias=False).fit(X, y)
    with pytest.raises(ValueError, match="not in classes_"):
        I.signed_labels(svm, np.append(y[:-1], "other"))
    with pytest.raises(ValueError):
        I.functional_margins(svm, X, y[:-1])

    class Blob:
        classes_ = np.array([0, 1])

        def __sklearn_is_fitted__(self):
            return True

    with pytest.raises(TypeError):
        I.weight_norm(Blob())
