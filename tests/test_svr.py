"""Book chapter 04 (``book/04_support_vector_machines.md``): tests of the epsilon-SVR."""
import numpy as np
import pytest
from sklearn.svm import SVR

from kernelclf.bounds.stability import epsilon_insensitive_loss, svr_stability_bound
from kernelclf.kernels import RBF
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


@pytest.mark.parametrize("C, epsilon, seed", [(1.0, 0.1, 0), (10.0, 0.05, 1), (0.3, 0.2, 2)])
def test_rbf_svr_matches_sklearn(C, epsilon, seed):
    X, t = _sinc(60, seed)
    ours = SupportVectorRegression(kernel=RBF(gamma=0.5), C=C, epsilon=epsilon).fit(X, t)
    sk = SVR(kernel="rbf", gamma=0.5, C=C, epsilon=epsilon, tol=1e-10).fit(X, t)
    obj, beta = _sk_dual_objective(sk, X, t)
    assert ours.dual_objective_ == pytest.approx(obj, rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(ours.alpha_, beta, atol=1e-4 * C)   # K is near-singular
    Xt = np.linspace(-3, 3, 41)[:, None]
    np.testing.assert_allclose(ours.predict(Xt), sk.predict(Xt), atol=1e-5)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-5)
    # scikit-learn's layout (issue 24): dual_coef_ (1, n_SV) on support_, support_vectors_
    np.testing.assert_array_equal(ours.dual_coef_[0], ours.alpha_[ours.support_])
    np.testing.assert_array_equal(ours.support_vectors_, X[ours.support_])


def test_linear_svr_matches_sklearn():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3))
    t = X @ np.array([1.0, -2.0, 0.5]) + 0.3 + 0.2 * rng.standard_normal(40)
    ours = SupportVectorRegression(C=2.0, epsilon=0.1).fit(X, t)
    sk = SVR(kernel="linear", C=2.0, epsilon=0.1, tol=1e-10).fit(X, t)
    obj, _ = _sk_dual_objective(sk, X, t)
    assert ours.dual_objective_ == pytest.approx(obj, rel=1e-6)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-5)


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


def test_without_bias_and_the_primal_equals_the_dual():
    X, t = _sinc(40, 5)
    est = SupportVectorRegression(kernel=RBF(sigma=1.0), C=1.0, epsilon=0.1,
                                  fit_bias=False).fit(X, t)
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
    with pytest.raises(NotFittedError):
        SupportVectorRegression().predict(np.zeros((2, 1)))
