"""Tests for kernelclf.bayes.fisher (seed inventory rows 19 and 20)."""
import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from kernelclf.bayes import FisherDiscriminant, KernelFisherDiscriminant, fisher, fisher_criterion
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
    assert fisher.__name__ == "kernelclf.bayes.fisher"


# -- the estimator contract (issue 9) and bad input (issue 17) ------------------------

def test_fisher_discriminant_is_on_the_contract():
    """Regression: FisherDiscriminant did not use the shared base (predict before fit
    raised AttributeError, booleans were accepted as reg)."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils._param_validation import InvalidParameterError

    from kernelclf.base import BinaryKernelClassifier

    X, y = two_gaussians(40)
    assert issubclass(FisherDiscriminant, BinaryKernelClassifier)
    with pytest.raises(NotFittedError):
        FisherDiscriminant().predict(X)
    with pytest.raises(NotFittedError):
        FisherDiscriminant().decision_function(X)
    with pytest.raises(InvalidParameterError, match="reg"):
        FisherDiscriminant(reg=True).fit(X, y)
    with pytest.raises(InvalidParameterError, match="lam"):
        KernelFisherDiscriminant(lam=-1.0).fit(X, y)


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_fisher_discriminant_at_extreme_scales(scale):
    """Inputs at any finite scale give the classifier of the unscaled inputs (Fisher's
    rule is invariant under x -> c x), instead of an overflow inside scipy."""
    X, y = two_gaussians(80, seed=3)
    ref = FisherDiscriminant().fit(X, y)
    model = FisherDiscriminant().fit(X * scale, y)
    np.testing.assert_allclose(model.decision_function(X * scale), ref.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(model.coef_ * scale, ref.coef_, rtol=1e-9)


def test_fisher_numbers_unchanged_by_the_exact_rescaling():
    """The power-of-two rescaling is exact: same numbers as the direct formulas."""
    X, y = two_gaussians(60, seed=7)
    X = X * 37.0
    model = FisherDiscriminant(reg=0.5).fit(X, y)
    pos, neg = y > 0, y < 0
    mu_p, mu_n = X[pos].mean(0), X[neg].mean(0)
    S = (X.T @ X - pos.sum() * np.outer(mu_p, mu_p) - neg.sum() * np.outer(mu_n, mu_n)) / 60
    S = S + 0.5 * np.eye(X.shape[1])
    w = np.linalg.solve(S, mu_p - mu_n)
    b = 0.5 * (mu_n @ np.linalg.solve(S, mu_n) - mu_p @ np.linalg.solve(S, mu_p)) \
        + np.log(pos.sum() / neg.sum())
    np.testing.assert_allclose(model.coef_, w, rtol=1e-10)
    assert model.intercept_ == pytest.approx(b, rel=1e-10)
    np.testing.assert_allclose(model.covariance_, S, rtol=1e-12)


def test_kernel_fisher_keeps_its_own_kernel_and_guards_the_gram():
    """Regression: KernelFisherDiscriminant kept the user's kernel object."""
    from kernelclf.kernels import IndefiniteKernelError

    X, y = two_gaussians(50, seed=1)
    model = KernelFisherDiscriminant(kernel=RBF(1.0)).fit(X, y)
    before = model.decision_function(X)
    model.set_params(kernel__sigma=0.05)
    np.testing.assert_array_equal(model.decision_function(X), before)
    assert model.kernel_ is not model.kernel
    with pytest.raises(IndefiniteKernelError):
        KernelFisherDiscriminant(kernel=lambda A, B: -RBF(1.0)(A, B)).fit(X, y)
    with pytest.raises(ValueError, match="NaN or infinity"), np.errstate(all="ignore"):
        KernelFisherDiscriminant().fit(X * 1e300, y)


def test_kernel_fisher_on_lists_of_strings_equals_the_explicit_feature_map():
    from _string_data import promoters, spectrum_features

    from kernelclf.kernels import Normalized, SpectrumKernel

    S_tr, y_tr, S_te, _ = promoters()
    F = spectrum_features(S_tr + S_te, 2)
    F_tr, F_te = F[:len(S_tr)], F[len(S_tr):]
    model = KernelFisherDiscriminant(kernel=Normalized(SpectrumKernel(2)), lam=0.1).fit(S_tr, y_tr)
    ref = KernelFisherDiscriminant(kernel=Linear(), lam=0.1).fit(F_tr, y_tr)
    np.testing.assert_allclose(model.decision_function(S_te), ref.decision_function(F_te),
                               rtol=1e-8, atol=1e-8)
    assert model.X_fit_ == S_tr
