"""Book chapter 04 (``book/04_support_vector_machines.md``): tests of the epsilon-SVR.

The default solver is the package's SMO on libsvm's 2m-variable epsilon-SVR dual
(Chang & Lin 2011, §2.3); ``solver='qp'`` is the dense interior-point QP it is checked
against, and scikit-learn's ``SVR`` (libsvm) is the outside reference.
"""
import functools
import time

import numpy as np
import pytest
from sklearn.svm import SVR

import kernelclf.margin._dual_problem as dual_problem
from kernelclf.bounds.stability import epsilon_insensitive_loss, svr_stability_bound
from kernelclf.kernels import RBF
from kernelclf.margin.smo import HAVE_NUMBA
from kernelclf.margin.smo import _solve as smo_body
from kernelclf.margin.svr import SupportVectorRegression


def _sinc(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(m, 1))
    t = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(m)
    return X, t


def _sk_dual_objective(sk, X, t):
    beta = np.zeros(len(t))
    beta[sk.support_] = sk.dual_coef_[0]
    K = np.exp(-sk.gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) \
        if sk.kernel == "rbf" else X @ X.T
    return 0.5 * beta @ K @ beta + sk.epsilon * np.abs(beta).sum() - t @ beta, beta


@pytest.mark.parametrize("tol", [1e-3, 1e-10])
@pytest.mark.parametrize("C, epsilon, seed", [(1.0, 0.1, 0), (10.0, 0.05, 1), (0.3, 0.2, 2)])
def test_rbf_svr_matches_sklearn(C, epsilon, seed, tol):
    """The SMO fit equals SVR's at the same tol (libsvm's 1e-3, and tight): dual_coef_,
    support_, intercept_ and predictions to the solvers' accuracy.

    K is numerically singular here (60 points on a line, RBF): the coefficients are far
    less determined than the predictions. At tol 1e-3 two tol-accurate solutions may
    differ in them by much more than tol (at C = 10, SVR's own stops 0.57 from the exact
    coefficients, in the largest entry); there both are compared with the exact solution
    (SVR at tol 1e-12), ours no further from it than twice SVR's own distance."""
    X, t = _sinc(60, seed)
    ours = SupportVectorRegression(kernel=RBF(sigma=1.0), C=C, epsilon=epsilon, tol=tol).fit(X, t)
    assert ours.solver == "smo"
    sk = SVR(kernel="rbf", gamma=1 / (2 * 1.0 ** 2), C=C, epsilon=epsilon, tol=tol).fit(X, t)
    obj, beta = _sk_dual_objective(sk, X, t)
    Xt = np.linspace(-3, 3, 41)[:, None]
    np.testing.assert_array_equal(ours.support_, sk.support_)
    if tol == 1e-3:             # SVR stops tol-accurate (ours is polished when it can be)
        f_atol, rel = tol, tol
        exact = SVR(kernel="rbf", gamma=0.5, C=C, epsilon=epsilon, tol=1e-12).fit(X, t)
        _, beta_exact = _sk_dual_objective(exact, X, t)
        err_sk = np.abs(beta - beta_exact).max()
        assert np.abs(ours.alpha_ - beta_exact).max() <= 2 * err_sk + 1e-6 * C
    else:                       # K is near-singular: beta is less well determined than f
        coef_atol, f_atol, rel = 1e-4 * C, 1e-5, 1e-6
        np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, rtol=0, atol=coef_atol)
        np.testing.assert_allclose(ours.alpha_, beta, rtol=0, atol=coef_atol)
    np.testing.assert_allclose(ours.predict(Xt), sk.predict(Xt), rtol=0, atol=f_atol)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=f_atol)
    assert ours.dual_objective_ == pytest.approx(obj, rel=rel, abs=1e-8)
    # scikit-learn's layout (issue 24): dual_coef_ (1, n_SV) on support_, support_vectors_
    np.testing.assert_array_equal(ours.dual_coef_[0], ours.alpha_[ours.support_])
    np.testing.assert_array_equal(ours.support_vectors_, X[ours.support_])


def test_linear_svr_matches_sklearn():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3))
    t = X @ np.array([1.0, -2.0, 0.5]) + 0.3 + 0.2 * rng.standard_normal(40)
    ours = SupportVectorRegression(C=2.0, epsilon=0.1, tol=1e-10).fit(X, t)
    sk = SVR(kernel="linear", C=2.0, epsilon=0.1, tol=1e-10).fit(X, t)
    obj, _ = _sk_dual_objective(sk, X, t)
    assert ours.dual_objective_ == pytest.approx(obj, rel=1e-6)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-5)


def _agree(smo, qp, X, t, C, atol=1e-6):
    # the same support vectors, but for points on the tube's edge (|beta_i| ~ 0 in both)
    differ = np.setxor1d(smo.support_, qp.support_)
    assert np.all(np.abs(smo.alpha_[differ]) < atol * C)
    assert np.all(np.abs(qp.alpha_[differ]) < atol * C)
    assert differ.size <= max(1, len(qp.support_) // 100)
    np.testing.assert_allclose(smo.alpha_, qp.alpha_, rtol=0, atol=atol * C)
    np.testing.assert_allclose(smo.predict(X), qp.predict(X), rtol=0, atol=atol)
    assert smo.intercept_ == pytest.approx(qp.intercept_, abs=atol)
    assert smo.dual_objective_ == pytest.approx(qp.dual_objective_, abs=atol)


@pytest.mark.parametrize("fit_bias", [True, False])
@pytest.mark.parametrize("C, epsilon, seed", [(1.0, 0.1, 0), (10.0, 0.05, 1), (0.3, 0.2, 2)])
def test_smo_and_qp_routes_agree_at_tight_tol(C, epsilon, seed, fit_bias):
    """With and without bias (no scikit-learn reference for the book's bias-free SVR)."""
    X, t = _sinc(60, seed)
    kw = dict(kernel=RBF(sigma=1.0), C=C, epsilon=epsilon, fit_bias=fit_bias)
    smo = SupportVectorRegression(**kw, tol=1e-8).fit(X, t)
    qp = SupportVectorRegression(**kw, solver="qp", tol=1e-10).fit(X, t)
    _agree(smo, qp, np.vstack([X, np.linspace(-3, 3, 41)[:, None]]), t, C)
    if not fit_bias:
        assert smo.intercept_ == qp.intercept_ == 0.0
    # at libsvm's default tol the fit is still within tol of the exact one
    default = SupportVectorRegression(**kw).fit(X, t)
    np.testing.assert_allclose(default.predict(X), qp.predict(X), rtol=0, atol=2e-3)


def test_numpy_engine_gives_the_same_fit(monkeypatch):
    """Without numba (Pyodide) solve_smo runs NumPy loops: the same steps, the same fit."""
    X, t = _sinc(150, 7)
    for fit_bias in (True, False):
        est = SupportVectorRegression(RBF(sigma=1.0), fit_bias=fit_bias)
        compiled = est.fit(X, t).alpha_.copy(), est.intercept_
        with monkeypatch.context() as mp:
            mp.setattr(dual_problem, "_solve_smo", functools.partial(smo_body, engine="numpy"))
            numpy_fit = est.fit(X, t).alpha_.copy(), est.intercept_
        np.testing.assert_array_equal(compiled[0], numpy_fit[0])
        assert compiled[1] == numpy_fit[1]


def test_smo_is_much_faster_than_the_qp_at_m_800():
    """The point of the SMO (issue 29): the QP is O(m^3) per iteration in 2m variables."""
    X, t = _sinc(800, 8)
    kw = dict(kernel=RBF(sigma=1.0), C=1.0, epsilon=0.1)
    SupportVectorRegression(**kw).fit(X[:50], t[:50])          # warm-up (numba's cache)
    t0 = time.perf_counter()
    SupportVectorRegression(**kw).fit(X, t)                     # libsvm's default tol
    t1 = time.perf_counter()
    smo = SupportVectorRegression(**kw, tol=1e-8).fit(X, t)
    t2 = time.perf_counter()
    qp = SupportVectorRegression(**kw, solver="qp", tol=1e-10).fit(X, t)
    t3 = time.perf_counter()
    assert max(t1 - t0, t2 - t1) < (t3 - t2) / 5
    # K is near-singular at m = 800: the interior-point QP, not the SMO, is the less exact
    # here (a larger dual objective, one more support vector than SVR's, |beta| ~ 5e-6)
    _agree(smo, qp, X, t, 1.0, atol=1e-5)


def test_slack_is_the_epsilon_insensitive_loss_and_support_vectors_leave_the_tube():
    X, t = _sinc(50, 4)
    est = SupportVectorRegression(kernel=RBF(sigma=1.0), C=1.0, epsilon=0.1).fit(X, t)
    f = est.predict(X)
    np.testing.assert_allclose(est.slack_, epsilon_insensitive_loss(f, t, 0.1), atol=1e-10)
    inside = np.abs(t - f) < 0.1 - 1e-4
    assert not np.any(np.isin(np.flatnonzero(inside), est.support_))
    assert est.lambda_ == pytest.approx(1 / (2 * 1.0 * 50))
    assert np.sum(est.alpha_) == pytest.approx(0.0, abs=1e-8)
    assert np.all(np.abs(est.alpha_) <= 1.0 + 1e-9)
    assert est.n_iter_ > 0


def test_without_bias_and_the_primal_equals_the_dual():
    X, t = _sinc(40, 5)
    est = SupportVectorRegression(kernel=RBF(sigma=1.0), C=1.0, epsilon=0.1,
                                  fit_bias=False, tol=1e-8).fit(X, t)
    assert est.intercept_ == 0.0
    K = RBF(sigma=1.0)(X)
    primal = 0.5 * est.alpha_ @ K @ est.alpha_ + est.C * est.slack_.sum()
    assert primal == pytest.approx(-est.dual_objective_, rel=1e-6)   # strong duality


def test_stability_bound_of_example_5_33_is_finite():
    X, t = _sinc(200, 6)
    est = SupportVectorRegression(kernel=RBF(sigma=1.0), C=0.05, epsilon=0.1).fit(X, t)
    bound = svr_stability_bound(est.slack_.sum(), 200, est.lambda_, 0.05, b=2.0)
    assert np.isfinite(bound) and bound > est.slack_.mean()


def test_refuses_bad_parameters_and_unfitted_use():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(ValueError):
        SupportVectorRegression(C=-1).fit(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="solver"):
        SupportVectorRegression(solver="newton").fit(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(NotFittedError):
        SupportVectorRegression().predict(np.zeros((2, 1)))


@pytest.mark.skipif(not HAVE_NUMBA, reason="runs the SMO to its 10^7-step limit: minutes on "
                    "the NumPy engine (numba not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_hard_tube_holds_at_the_optimum_not_after_a_stop_at_the_iteration_limit():
    """The svr module docstring: C=inf keeps every target within epsilon when SMO converges;
    on a nearly singular Gram matrix it can stop at its limit (ConvergenceWarning) with a
    target 0.2 outside a tube that is feasible: the inputs are distinct, so the Gaussian
    Gram matrix is positive definite and some f = K beta interpolates t exactly. (HiGHS
    also reports the tube's linear program feasible, but on this numerically singular
    matrix its solution misses the tube in floating point: that status alone is no proof.)"""
    from scipy.optimize import linprog
    from sklearn.exceptions import ConvergenceWarning
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (60, 1))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    K = RBF(0.3)(X, X)
    A = np.hstack([K, np.ones((60, 1))])          # f = K beta + b within 0.1 of t: feasible
    lp = linprog(np.zeros(61), A_ub=np.vstack([A, -A]),
                 b_ub=np.concatenate([t + 0.1, 0.1 - t]), bounds=(None, None), method="highs")
    assert lp.status == 0
    assert len(np.unique(X[:, 0])) == 60       # distinct: positive definite, t interpolable
    with pytest.warns(ConvergenceWarning):
        est = SupportVectorRegression(RBF(0.3), C=np.inf, epsilon=0.1).fit(X, t)
    assert np.round(np.abs(t - est.predict(X)).max() - 0.1, 1) == 0.2
    ok = SupportVectorRegression(RBF(1.0), C=np.inf, epsilon=0.3).fit(X, t)
    assert np.abs(t - ok.predict(X)).max() <= 0.3 + 1e-12
