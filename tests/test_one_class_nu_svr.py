"""The one-class SVM and the nu-SVR on the SMO core (issue 38).

References: scikit-learn's ``OneClassSVM`` and ``NuSVR`` (libsvm's one-class and nu-SVR
solvers: decision values, support, dual coefficients, offsets, with and without
``sample_weight``), the nu-properties of Schölkopf et al. (2000, 2001) and, for the nu-SVR,
the epsilon-SVR with the learned tube (libsvm: the same function). Both SMO engines.
"""
import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_regression
from sklearn.svm import SVR, NuSVR, OneClassSVM

import kernelclf.margin.smo as smo
from kernelclf.margin import (
    NuSupportVectorRegression,
    OneClassSupportVectorMachine,
    SupportVectorRegression,
)
from kernelclf.margin.smo import HAVE_NUMBA


@pytest.fixture(params=["compiled", "numpy"])
def engine(request, monkeypatch):
    """The compiled SMO (when numba is there) and the NumPy engine."""
    if request.param == "compiled" and not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    if request.param == "numpy":
        monkeypatch.setattr(smo, "HAVE_NUMBA", False)
    return request.param


def _regression(m=250, seed=0):
    X, t = make_regression(m, n_features=4, noise=5.0, random_state=seed)
    return X, t / 50.0


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_class_is_oneclasssvm(kernel, weighted, engine):
    X, _ = make_blobs(250, centers=2, random_state=0)
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(X)) if weighted else None
    ours = OneClassSupportVectorMachine(kernel=kernel, nu=0.23, tol=1e-8).fit(
        X, sample_weight=w)
    sk = OneClassSVM(kernel=kernel, nu=0.23, tol=1e-8).fit(X, sample_weight=w)
    scale = np.abs(sk.decision_function(X)).max()
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X),
                               atol=1e-6 * scale)
    np.testing.assert_allclose(ours.score_samples(X), sk.score_samples(X), atol=1e-6 * scale)
    assert ours.offset_ == pytest.approx(sk.offset_[0], rel=1e-6)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], rel=1e-6)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X)[ours.decision_function(X) != 0],
                                  sk.predict(X)[ours.decision_function(X) != 0])


@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5])
def test_one_class_nu_property(nu):
    """Schölkopf et al. (2001), Prop. 4: outliers (f < 0) at most nu m, support vectors at
    least nu m; the dual's sum is nu m in libsvm's scaling, every a_i in [0, 1]."""
    X, _ = make_blobs(300, centers=3, cluster_std=2.0, random_state=2)
    est = OneClassSupportVectorMachine(kernel="rbf", nu=nu).fit(X)
    f = est.decision_function(X)
    assert np.mean(f < 0) <= nu + 1e-12
    assert len(est.support_) >= nu * len(X) - 1e-9
    assert est.alpha_.sum() == pytest.approx(nu * len(X))
    assert np.all((est.alpha_ >= 0) & (est.alpha_ <= 1))
    np.testing.assert_array_equal(est.predict(X), np.where(f >= 0, 1, -1))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nu_svr_is_nusvr(kernel, weighted, engine):
    X, t = _regression()
    w = None
    if weighted:
        w = np.random.default_rng(2).uniform(0.2, 3.0, len(t))
        w[:6] = 0.0
    ours = NuSupportVectorRegression(kernel=kernel, nu=0.3, C=2.0, tol=1e-8).fit(
        X, t, sample_weight=w)
    sk = NuSVR(kernel=kernel, nu=0.3, C=2.0, tol=1e-8).fit(X, t, sample_weight=w)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-5)
    kept = np.arange(len(t)) if w is None else np.flatnonzero(w > 0)
    np.testing.assert_array_equal(ours.support_, kept[sk.support_])
    if kernel == "linear":      # K has rank 4: the dual coefficients are not unique, w is
        np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-5)
    else:
        # K's smallest eigenvalues are below 1e-6: coefficients within 1e-4 (of C = 2) give
        # the same function to 1e-6; the dual value is not worse than libsvm's
        np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-4)
        K = ours.kernel_(X)
        beta = np.zeros(len(t))
        beta[kept[sk.support_]] = sk.dual_coef_[0]
        sk_value = 0.5 * beta @ K @ beta - t @ beta
        assert ours.dual_objective_ <= sk_value + 1e-9 * abs(sk_value)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-5)


def test_nu_svr_nu_property_and_its_epsilon_svr():
    """Schölkopf et al. (2000), Prop. 1: the fraction of examples outside the tube is at
    most nu, that of support vectors at least nu; the epsilon-SVR with the learned
    epsilon_ and the same C is the same machine."""
    X, t = _regression(200, seed=3)
    for nu in (0.2, 0.6):
        est = NuSupportVectorRegression(kernel="rbf", nu=nu, C=3.0, tol=1e-8).fit(X, t)
        r = np.abs(t - est.predict(X))
        assert est.epsilon_ > 0
        assert np.mean(r > est.epsilon_ * (1 + 1e-6) + 1e-9) <= nu + 1e-12
        assert len(est.support_) >= nu * len(t) - 1e-9
        eps = SupportVectorRegression(kernel="rbf", C=3.0, epsilon=est.epsilon_,
                                      tol=1e-8).fit(X, t)
        np.testing.assert_allclose(eps.predict(X), est.predict(X), atol=1e-6)
        sk = SVR(C=3.0, epsilon=est.epsilon_, tol=1e-8).fit(X, t)
        np.testing.assert_allclose(sk.predict(X), est.predict(X), atol=1e-5)


def test_estimators_are_importable_and_precomputed():
    import kernelclf

    assert kernelclf.OneClassSupportVectorMachine is OneClassSupportVectorMachine
    assert kernelclf.NuSupportVectorRegression is NuSupportVectorRegression
    X, t = _regression(60)
    K = X @ X.T
    a = NuSupportVectorRegression(kernel="precomputed").fit(K, t)
    b = NuSupportVectorRegression(kernel="linear").fit(X, t)
    np.testing.assert_allclose(a.predict(K), b.predict(X), atol=1e-8)
    c = OneClassSupportVectorMachine(kernel="precomputed", nu=0.3).fit(K)
    d = OneClassSupportVectorMachine(kernel="linear", nu=0.3).fit(X)
    np.testing.assert_allclose(c.decision_function(K), d.decision_function(X), atol=1e-8)


def test_modules_define_the_exported_classes():
    """The classes live in their own modules and are the ones exported by the family
    package and by kernelclf itself."""
    import kernelclf
    import kernelclf.margin.nu_svr as nu_svr
    import kernelclf.margin.one_class as one_class

    assert nu_svr.NuSupportVectorRegression is NuSupportVectorRegression
    assert one_class.OneClassSupportVectorMachine is OneClassSupportVectorMachine
    assert kernelclf.NuSupportVectorRegression is NuSupportVectorRegression
    assert kernelclf.OneClassSupportVectorMachine is OneClassSupportVectorMachine


@pytest.mark.parametrize("nu", [0.2, 0.5])
def test_nu_properties_with_weights(nu):
    """The ``nu`` docstrings: with ``sample_weight`` the bounds hold for the weighted
    fractions (outside the tube / outliers at most ``nu``, support vectors at least ``nu``),
    and the one-class dual sums to ``nu W`` with every ``a_i`` in ``[0, w_i]``."""
    X, t = _regression(120, seed=4)
    w = np.random.default_rng(5).uniform(0.2, 3.0, len(t))
    W = w.sum()
    est = NuSupportVectorRegression(kernel="rbf", nu=nu, C=3.0, tol=1e-8).fit(
        X, t, sample_weight=w)
    outside = np.abs(t - est.predict(X)) > est.epsilon_ * (1 + 1e-6) + 1e-9
    assert w[outside].sum() / W <= nu + 1e-9
    assert w[est.support_].sum() / W >= nu - 1e-9
    oc = OneClassSupportVectorMachine(kernel="rbf", nu=nu, tol=1e-8).fit(X, sample_weight=w)
    f = oc.decision_function(X)
    assert w[f < 0].sum() / W <= nu + 1e-9
    assert w[oc.support_].sum() / W >= nu - 1e-9
    assert oc.alpha_.sum() == pytest.approx(nu * W)
    assert np.all((oc.alpha_ >= 0) & (oc.alpha_ <= w * (1 + 1e-12)))


def test_weight_zero_removes_an_example_but_not_from_a_scale_width():
    """The ``fit`` docstrings: weight 0 is the example left out, for a kernel of fixed
    parameters; ``gamma='scale'`` is still taken from every row of ``X`` (as SVC's)."""
    from kernelclf.kernels import RBF

    X, t = _regression(90, seed=6)
    X[:10] *= 4.0                           # rows whose removal changes the scale width
    w = np.ones(len(t))
    w[:10] = 0.0
    for make, out in ((lambda k: NuSupportVectorRegression(k, nu=0.3, tol=1e-8), "predict"),
                      (lambda k: OneClassSupportVectorMachine(k, nu=0.3, tol=1e-8),
                       "decision_function")):
        kept = make(RBF(2.0)).fit(X[10:], t[10:])
        zero = make(RBF(2.0)).fit(X, t, sample_weight=w)
        np.testing.assert_allclose(getattr(zero, out)(X), getattr(kept, out)(X), atol=1e-9)
        assert zero.support_.min() >= 10
        scale = make("rbf").fit(X, t, sample_weight=w)
        assert scale.kernel_.gamma == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-12)
        assert make("rbf").fit(X[10:], t[10:]).kernel_.gamma != pytest.approx(
            scale.kernel_.gamma, rel=1e-3)


def test_one_class_linear_kernel_with_the_origin_in_the_hull_is_zero():
    """``decision_function``'s docstring: with a linear kernel and the origin in the reduced
    convex hull of the inputs, ``w = 0`` and every value is 0 (every example an inlier)."""
    X = np.random.default_rng(7).normal(size=(60, 2))
    est = OneClassSupportVectorMachine(nu=0.3).fit(X)
    assert np.abs(est.coef_).max() < 1e-12
    np.testing.assert_array_equal(est.decision_function(X), 0.0)
    np.testing.assert_array_equal(est.predict(X), 1)
    # inputs away from the origin: w != 0 and some values below 0
    shifted = OneClassSupportVectorMachine(nu=0.3).fit(X + 5.0)
    assert np.abs(shifted.coef_).max() > 0.1 and np.any(shifted.decision_function(X + 5.0) < 0)
    # the condition is the reduced hull (weights c_i <= 1/(nu m)), not the convex hull: an LP
    # decides it, and the origin inside the convex hull is not enough for a larger nu
    from scipy.optimize import linprog
    from scipy.spatial import Delaunay

    Z = np.random.default_rng(0).normal(size=(60, 2))
    outcomes = []
    for shift in (0.0, 1.0):
        Xs = Z + [shift, 0.0]
        assert Delaunay(Xs).find_simplex(np.zeros((1, 2)))[0] >= 0      # origin in the hull
        for nu in (0.1, 0.5, 0.9):
            lp = linprog(np.zeros(60), A_eq=np.vstack([Xs.T, np.ones(60)]), b_eq=[0, 0, 1],
                         bounds=(0, 1 / (nu * 60)))
            w_zero = np.abs(OneClassSupportVectorMachine(nu=nu).fit(Xs).coef_).max() < 1e-8
            assert w_zero == (lp.status == 0)
            outcomes.append(w_zero)
    assert any(outcomes) and not all(outcomes)


def test_n_support_is_the_count_that_scikit_learn_holds_in_an_array():
    """The ``n_support_`` docstrings: ``len(support_)``, a number; the scikit-learn peers
    hold the same count in a one-element array."""
    X, t = _regression(80, seed=8)
    pairs = (
        (SupportVectorRegression("rbf", tol=1e-8).fit(X, t), SVR(tol=1e-8).fit(X, t)),
        (NuSupportVectorRegression("rbf", nu=0.3, tol=1e-8).fit(X, t),
         NuSVR(nu=0.3, tol=1e-8).fit(X, t)),
        (OneClassSupportVectorMachine("rbf", nu=0.3, tol=1e-8).fit(X),
         OneClassSVM(nu=0.3, tol=1e-8).fit(X)),
    )
    for ours, sk in pairs:
        assert np.ndim(ours.n_support_) == 0 and ours.n_support_ == len(ours.support_)
        assert np.shape(sk.n_support_) == (1,) and sk.n_support_[0] == ours.n_support_


def test_free_support_vectors_are_inliers_at_the_optimum_not_at_the_default_tol(engine):
    """The decision_function docstring: on the boundary within round-off the value is 0
    (an inlier) at the optimum; a fit stopped at the default tol leaves some free support
    vectors below 0 (four of eight here), within about tol of it. The NumPy engine's
    active-set finish ends at the optimum already at the default tol (seven, none below)."""
    from kernelclf.kernels import RBF

    X = np.random.default_rng(0).uniform(-3, 3, (80, 1))
    counts = []
    for tol in (1e-3, 1e-9):
        est = OneClassSupportVectorMachine(RBF(1.0), nu=0.2, tol=tol).fit(X)
        f = est.decision_function(X)
        free = (est.alpha_ > 0) & (est.alpha_ < 1)
        counts.append((int(free.sum()), int(np.sum(f[free] < 0))))
        assert np.all(f[free] > -2 * tol)
    assert counts[0] == ((8, 4) if engine == "compiled" else (7, 0))
    assert counts[1][1] == 0


def test_the_nu_properties_hold_at_the_optimum_not_at_the_default_tol(engine):
    """The module docstrings of one_class and nu_svr: at the default tol a few boundary
    examples fall outside (more than nu of them), at a tight tol no more than nu (with the
    NumPy engine's active-set finish already at the default tol: it ends at the optimum)."""
    from kernelclf.kernels import RBF

    X = np.random.default_rng(0).uniform(-3, 3, (80, 1))
    out = [np.mean(OneClassSupportVectorMachine(RBF(1.0), nu=0.2, tol=tol).fit(X)
                   .decision_function(X) < 0) for tol in (1e-3, 1e-9)]
    assert out == pytest.approx([0.225 if engine == "compiled" else 0.1625, 0.1625])
    assert np.mean(OneClassSVM(gamma=0.5, nu=0.2).fit(X).decision_function(X) < 0) == 0.225
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (80, 1))
    t = np.sin(X[:, 0]) + 0.2 * rng.normal(size=80)
    outside = []
    for tol in (1e-3, 1e-8):
        est = NuSupportVectorRegression(RBF(1.0), nu=0.5, tol=tol).fit(X, t)
        outside.append(np.mean(np.abs(t - est.predict(X)) > est.epsilon_ * (1 + 1e-6) + 1e-9))
    assert outside[0] == pytest.approx(0.525) and outside[1] <= 0.5
