"""Tests for kernelclf.fisher (seed inventory rows 19 and 20)."""
import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from kernelclf import fisher
from kernelclf.fisher import FisherDiscriminant, KernelFisherDiscriminant, fisher_criterion
from kernelclf.kernels import RBF, Linear


def two_gaussians(m, d=5, shift=1.5, seed=0, frac=0.4):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d)
    y = np.where(rng.random(m) < frac, 1, -1)
    X = rng.normal(size=(m, d)) @ A.T + np.outer(y > 0, shift * np.ones(d) / np.sqrt(d))
    return X, y


def cosine(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_direction_and_decision_match_sklearn_lda():
    X, y = two_gaussians(400)
    fd = FisherDiscriminant().fit(X, y)
    for solver in ("svd", "lsqr", "eigen"):
        lda = LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        assert cosine(fd.coef_, lda.coef_.ravel()) >= 0.999
    # with empirical priors, sklearn's lsqr LDA is the same rule, offset ln(m+/m-) included
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(fd.decision_function(X), lda.decision_function(X), rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(fd.predict(X), lda.predict(X))


def test_least_squares_link_remark_3_16():
    X, y = two_gaussians(300, seed=1)
    m = len(y)
    mp, mn = (y > 0).sum(), (y < 0).sum()
    targets = np.where(y > 0, m / mp, -m / mn)
    coef, *_ = np.linalg.lstsq(np.c_[X, np.ones(m)], targets, rcond=None)
    w_ls, b_ls = coef[:-1], coef[-1]
    fd = FisherDiscriminant().fit(X, y)
    assert cosine(w_ls, fd.coef_) > 1 - 1e-10
    assert b_ls == pytest.approx(-X.mean(axis=0) @ w_ls, rel=1e-8)  # eq. 3.42


def test_direction_maximises_fisher_criterion():
    X, y = two_gaussians(300, seed=2)
    w = FisherDiscriminant().fit(X, y).coef_
    best = fisher_criterion(w, X, y)
    rng = np.random.default_rng(0)
    for v in rng.normal(size=(300, X.shape[1])):
        assert fisher_criterion(v, X, y) <= best + 1e-12
    for eps in (1e-3, -1e-3):
        e = np.zeros_like(w)
        e[0] = eps
        assert fisher_criterion(w + e * np.linalg.norm(w), X, y) <= best


def test_kfd_linear_kernel_matches_primal():
    X, y = two_gaussians(200, seed=3)
    fd = FisherDiscriminant().fit(X, y)
    kfd = KernelFisherDiscriminant(kernel=Linear(), lam=1e-8).fit(X, y)
    Xt, _ = two_gaussians(50, seed=4)
    np.testing.assert_allclose(kfd.decision_function(Xt), fd.decision_function(Xt),
                               rtol=1e-4, atol=1e-4)
    assert cosine(X.T @ kfd.alpha_, fd.coef_) > 1 - 1e-8


def test_kfd_rbf_nonlinear_problem():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2))
    y = np.where(np.linalg.norm(X, axis=1) < 1.1, 1, -1)  # circle: no linear rule works
    kfd = KernelFisherDiscriminant(kernel=RBF(0.7), lam=1e-3).fit(X, y)
    assert kfd.score(X, y) > 0.95
    assert FisherDiscriminant().fit(X, y).score(X, y) < 0.8
    # S is symmetric positive definite
    G = RBF(0.7)(X)
    kp, kn = G[:, y > 0].mean(1), G[:, y < 0].mean(1)
    S = (G @ G - (y > 0).sum() * np.outer(kp, kp) - (y < 0).sum() * np.outer(kn, kn)) / 300
    assert np.linalg.eigvalsh(S + 1e-3 * np.eye(300)).min() > 0
    np.testing.assert_allclose(S @ kfd.alpha_ + 1e-3 * kfd.alpha_, kp - kn, atol=1e-8)


def test_bad_input():
    X, y = two_gaussians(30)
    with pytest.raises(ValueError, match="NaN|infinity"):
        FisherDiscriminant().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match="two classes"):
        FisherDiscriminant().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="two classes"):
        KernelFisherDiscriminant().fit(X, np.ones(30))
    with pytest.raises(ValueError):
        KernelFisherDiscriminant().fit(X, y[:5])
    with pytest.raises(ValueError, match="lam"):
        KernelFisherDiscriminant(lam=0).fit(X, y)
    with pytest.raises(ValueError, match="singular"):
        FisherDiscriminant().fit(np.c_[X, np.zeros(30)], y)  # constant feature
    with pytest.raises(ValueError, match="features"):
        FisherDiscriminant().fit(X, y).predict(X[:, :2])
    assert fisher.__name__ == "kernelclf.fisher"
