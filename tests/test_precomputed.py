"""``kernel='precomputed'`` for the dual machines (kernelclf.margin._dual), as scikit-learn's
``SVC``: fit on the m x m Gram matrix, predict from the n x m test-versus-training matrix.

References: scikit-learn's SVC, NuSVC and SVR with ``kernel='precomputed'`` (libsvm), and
the same machine fitted with the kernel object (the same dual, the same numbers).
"""
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC, SVR, NuSVC
from sklearn.utils._param_validation import InvalidParameterError

from kernelclf.kernels import RBF
from kernelclf.kernels.gram_guard import IndefiniteKernelError
from kernelclf.margin import (
    NuSupportVectorMachine,
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    SupportVectorMachine,
)
from kernelclf.margin.svr import SupportVectorRegression
from kernelclf.margin.universum import UniversumSVM


def _split(m=200, n=60, seed=0):
    X, y = make_moons(m + n, noise=0.3, random_state=seed)
    return X[:m], y[:m], X[m:], y[m:]


def test_svm_matches_svc_precomputed():
    X, y, Xt, _ = _split()
    k = RBF(0.6)
    K, Kt = k(X), k(Xt, X)
    ours = SupportVectorMachine("precomputed", C=2.0, tol=1e-8).fit(K, y)
    sk = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(K, y)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_array_equal(ours.n_support_, sk.n_support_)
    # libsvm's own accuracy at tol 1e-8 (ours is polished to the exact optimum)
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-4)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-5)
    np.testing.assert_allclose(ours.decision_function(Kt), sk.decision_function(Kt), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(Kt), sk.predict(Kt))
    # the same machine as with the kernel object
    direct = SupportVectorMachine(k, C=2.0, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(ours.support_, direct.support_)
    np.testing.assert_allclose(ours.decision_function(Kt), direct.decision_function(Xt),
                               atol=1e-9)
    # X_fit_ is the Gram matrix: support_vectors_ are its rows, valid test inputs
    np.testing.assert_array_equal(ours.support_vectors_, K[ours.support_])
    np.testing.assert_allclose(ours.decision_function(ours.support_vectors_),
                               direct.decision_function(X[ours.support_]), atol=1e-9)
    assert ours.n_features_in_ == len(y)


@pytest.mark.parametrize("fit_bias", [True, False])
def test_nu_svm_matches_nusvc_precomputed(fit_bias):
    X, y, Xt, _ = _split(seed=1)
    k = RBF(0.5)
    K, Kt = k(X), k(Xt, X)
    ours = NuSupportVectorMachine("precomputed", nu=0.3, fit_bias=fit_bias, tol=1e-9).fit(K, y)
    direct = NuSupportVectorMachine(k, nu=0.3, fit_bias=fit_bias, tol=1e-9).fit(X, y)
    np.testing.assert_array_equal(ours.support_, direct.support_)
    np.testing.assert_allclose(ours.decision_function(Kt), direct.decision_function(Xt),
                               atol=1e-9)
    assert ours.rho_ == pytest.approx(direct.rho_, rel=1e-9)
    if fit_bias:             # NuSVC has a bias; libsvm divides by rho
        sk = NuSVC(kernel="precomputed", nu=0.3, tol=1e-9).fit(K, y)
        np.testing.assert_array_equal(ours.support_, sk.support_)
        np.testing.assert_allclose(ours.dual_coef_ / ours.rho_, sk.dual_coef_, rtol=2e-3)
        np.testing.assert_allclose(ours.decision_function(Kt) / ours.rho_,
                                   sk.decision_function(Kt), rtol=2e-3, atol=2e-3)


def test_svr_matches_svr_precomputed():
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, (150, 1))
    t = np.sinc(X[:, 0]) + 0.1 * rng.normal(size=150)
    Xt = np.linspace(-3, 3, 40)[:, None]
    k = RBF(1.0)
    K, Kt = k(X), k(Xt, X)
    ours = SupportVectorRegression("precomputed", C=1.0, epsilon=0.1, tol=1e-8).fit(K, t)
    sk = SVR(kernel="precomputed", C=1.0, epsilon=0.1, tol=1e-8).fit(K, t)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-4)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-5)
    np.testing.assert_allclose(ours.predict(Kt), sk.predict(Kt), atol=1e-5)
    direct = SupportVectorRegression(k, C=1.0, epsilon=0.1, tol=1e-8).fit(X, t)
    np.testing.assert_allclose(ours.predict(Kt), direct.predict(Xt), atol=1e-9)


@pytest.mark.parametrize("est", [RelativeMarginMachine(RBF(0.5), C=2.0, B=1.4),
                                 RelativeMarginMachine(RBF(0.5), C=2.0, B=0.5,
                                                       B_mode="relative"),
                                 RelaxedRMM(RBF(0.5), C=2.0, D=0.5),
                                 RelaxedRMM(RBF(0.5), C=2.0, D=0.5, solver="qp")],
                         ids=["rmm", "rmm-relative", "relaxed", "relaxed-qp"])
def test_rmm_family_precomputed_is_the_same_machine(est):
    X, y, Xt, _ = _split(120, 40, seed=3)
    k = est.kernel
    direct = est.fit(X, y)
    f_direct, sv = direct.decision_function(Xt), direct.support_.copy()
    pre = est.set_params(kernel="precomputed").fit(k(X), y)
    np.testing.assert_array_equal(pre.support_, sv)
    np.testing.assert_allclose(pre.decision_function(k(Xt, X)), f_direct, atol=1e-7)


def test_weights_probabilities_and_hard_margin_with_a_precomputed_kernel():
    """The subsets of the fit (weight-0 examples, Platt's folds) take rows and columns."""
    X, y, Xt, _ = _split(100, 30, seed=4)
    k = RBF(0.5)
    K, Kt = k(X), k(Xt, X)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    w[:7] = 0.0
    kw = dict(C=1.5, tol=1e-8, probability=True, random_state=0)
    a = SupportVectorMachine(k, **kw).fit(X, y, sample_weight=w)
    b = SupportVectorMachine("precomputed", **kw).fit(K, y, sample_weight=w)
    np.testing.assert_array_equal(a.support_, b.support_)
    assert not np.any(np.isin(np.arange(7), b.support_))
    np.testing.assert_allclose(b.predict_proba(Kt), a.predict_proba(Xt), atol=1e-7)
    Xs, ys = make_moons(60, noise=0.05, random_state=0)
    h = SupportVectorMachine("precomputed", hard_margin=True).fit(RBF(0.3)(Xs), ys)
    assert np.min(np.where(ys == 1, 1, -1) * h.decision_function(RBF(0.3)(Xs))) > 1 - 1e-3


def test_pairwise_for_cross_validation():
    """scikit-learn's splitters take rows and columns of a pairwise estimator's X."""
    X, y, _, _ = _split(150, 0, seed=5)
    est = SupportVectorMachine("precomputed")
    assert est.__sklearn_tags__().input_tags.pairwise
    assert not SupportVectorMachine(RBF(0.5)).__sklearn_tags__().input_tags.pairwise
    grid = {"C": [0.3, 3.0]}
    pre = GridSearchCV(est, grid, cv=3).fit(RBF(0.5)(X), y)
    direct = GridSearchCV(SupportVectorMachine(RBF(0.5)), grid, cv=3).fit(X, y)
    np.testing.assert_allclose(pre.cv_results_["mean_test_score"],
                               direct.cv_results_["mean_test_score"])


def test_precomputed_shapes_give_clear_errors():
    X, y, Xt, _ = _split(40, 10, seed=6)
    K = RBF(0.5)(X)
    for Est in (SupportVectorMachine, NuSupportVectorMachine, RelativeMarginMachine):
        with pytest.raises(ValueError, match=r"square Gram matrix.*40 x 39"):
            Est(kernel="precomputed").fit(K[:, :39], y)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            Est(kernel="precomputed").fit(K[:39], y)
        est = Est(kernel="precomputed").fit(K, y)
        with pytest.raises(ValueError, match=r"the 40 training points \(40 columns\), got "
                                             r"shape \(10, 2\)"):
            est.decision_function(Xt)
        with pytest.raises(ValueError, match="Expected 2D array"):
            est.decision_function(K[0])
    with pytest.raises(ValueError, match=r"square Gram matrix.*40 x 39"):
        SupportVectorRegression(kernel="precomputed").fit(K[:, :39], np.arange(40.0))
    with pytest.raises(IndefiniteKernelError, match="not positive semi-definite"):
        SupportVectorMachine(kernel="precomputed").fit(K - 4.0 * np.eye(40), y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        SupportVectorMachine(kernel="precomputed").fit(np.where(K > 0.9, np.nan, K), y)
    for Est in (SigmaSVM, UniversumSVM):       # these need the kernel function itself
        with pytest.raises(InvalidParameterError, match="'kernel' parameter"):
            Est(kernel="precomputed").fit(K, y)


# ---------------------------------------------------------------- coef_ of the linear kernel

def test_coef_matches_svc_svr_and_nusvc_linear():
    X, y, Xt, _ = _split(150, 40, seed=7)
    ours = SupportVectorMachine(kernel="linear", C=0.5, tol=1e-8).fit(X, y)
    sk = SVC(kernel="linear", C=0.5, tol=1e-8).fit(X, y)
    assert ours.coef_.shape == sk.coef_.shape == (1, 2)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-5)
    np.testing.assert_allclose(Xt @ ours.coef_[0] + ours.intercept_,
                               ours.decision_function(Xt), atol=1e-12)
    # (nu m / 2 not whole: a free multiplier in each class fixes rho, as in NuSVC)
    nu = NuSupportVectorMachine(nu=0.37, tol=1e-9).fit(X, y)          # default: linear
    nsk = NuSVC(kernel="linear", nu=0.37, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(nu.coef_ / nu.rho_, nsk.coef_, rtol=2e-3)
    t = X @ np.array([1.0, -2.0]) + 0.1 * np.random.default_rng(0).normal(size=len(X))
    svr = SupportVectorRegression(C=2.0, epsilon=0.05, tol=1e-8).fit(X, t)
    ssk = SVR(kernel="linear", C=2.0, epsilon=0.05, tol=1e-8).fit(X, t)
    np.testing.assert_allclose(svr.coef_, ssk.coef_, rtol=1e-5)
    for est in (RelativeMarginMachine(C=2.0, B=1.5), RelaxedRMM(C=2.0),
                UniversumSVM(C=2.0)):
        est.fit(X, y)
        np.testing.assert_allclose(Xt @ est.coef_[0] + est.intercept_,
                                   est.decision_function(Xt), atol=1e-10)


def test_coef_only_for_the_linear_kernel():
    X, y, _, _ = _split(60, 0, seed=8)
    assert not hasattr(SupportVectorMachine(kernel="linear"), "coef_")      # not fitted
    for est in (SupportVectorMachine(RBF(0.5)), SupportVectorMachine("precomputed"),
                SigmaSVM(C=1.0), SupportVectorRegression(kernel="rbf")):
        Xf = X @ X.T if est.kernel == "precomputed" else X
        est.fit(Xf, y.astype(float) if isinstance(est, SupportVectorRegression) else y)
        with pytest.raises(AttributeError, match="only available when using a linear kernel"):
            est.coef_
        assert not hasattr(est, "coef_")
