"""Tests for kernelclf.bayes.rvm_regression (LKC Algorithm 6, §3.3, eq. 3.24-3.25; seed
inventory row 17) against the multivariate normal density, the fixed point of eq. B.23 and
scikit-learn's Gaussian process."""
import warnings

import numpy as np
import pytest
from _bayes_data import sinc_data
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import WhiteKernel

from kernelclf.bayes import rvm_regression
from kernelclf.bayes.rvm_regression import RelevanceVectorRegressor
from kernelclf.kernels import RBF


def full_evidence(model, X, t):
    """log N(t; 0, sigma^2 I + Phi Theta Phi') from scratch (LKC eq. 3.25)."""
    Phi = model.kernel_(X, model.X_fit_)
    theta = model.theta_
    C = model.noise_ * np.eye(len(t)) + (Phi * theta) @ Phi.T
    return multivariate_normal(np.zeros(len(t)), C).logpdf(t)


@pytest.mark.parametrize("solver", ["fast", "book"])
def test_regression_evidence_is_mvn_logpdf_and_pruned_weights(solver):
    X, t = sinc_data(120)
    model = RelevanceVectorRegressor(kernel=RBF(2.0), solver=solver).fit(X, t)
    assert model.log_evidence_ == pytest.approx(full_evidence(model, X, t), rel=1e-9)
    # pruned weights are exactly zero and gone from the model
    assert np.count_nonzero(model.weights_) == model.n_relevance_ == len(model.X_fit_)
    np.testing.assert_array_equal(model.X_fit_, X[model.relevance_indices_])
    np.testing.assert_allclose(model.predict(X), RBF(2.0)(X) @ model.weights_, atol=1e-12)
    assert model.n_relevance_ <= 15 and model.sparsity_ >= 0.85


def test_regression_evidence_non_decreasing():
    X, t = sinc_data(80, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        em = RelevanceVectorRegressor(kernel=RBF(2.0), solver="book", update="em",
                                      max_iter=60).fit(X, t)
    d = np.diff(em.evidence_trace_)
    assert np.all(d >= -1e-9 * np.abs(em.evidence_trace_[1:]))  # EM (B.22) never decreases
    assert d.sum() > 1.0
    fast = RelevanceVectorRegressor(kernel=RBF(2.0), noise=0.01, fit_noise=False).fit(X, t)
    assert np.all(np.diff(fast.evidence_trace_) >= -1e-9)  # each step maximises over one theta_i


def test_regression_book_fixed_point():
    X, t = sinc_data(100, seed=2)
    model = RelevanceVectorRegressor(kernel=RBF(2.0), solver="book", tol=1e-6,
                                     max_iter=5000).fit(X, t)
    theta = model.theta_
    zeta = 1 - np.diag(model.sigma_) / theta
    assert np.all((zeta > 0) & (zeta <= 1))
    np.testing.assert_allclose(theta, model.alpha_ ** 2 / zeta, rtol=1e-2)  # B.23 fixed point


def test_regression_accuracy_vs_gp_reference():
    X, t = sinc_data(200, seed=3)
    Xt = np.linspace(-10, 10, 500)[:, None]
    f = np.sinc(Xt[:, 0] / np.pi)
    ours = RelevanceVectorRegressor(kernel=RBF(2.0)).fit(X, t)
    ref = SkGPR(kernel=SkRBF(2.0, "fixed") + WhiteKernel(0.01, "fixed"), optimizer=None).fit(X, t)
    rmse = np.sqrt(np.mean((ours.predict(Xt) - f) ** 2))
    rmse_ref = np.sqrt(np.mean((ref.predict(Xt) - f) ** 2))
    print(f"sinc m=200: RVM rmse {rmse:.4f} with {ours.n_relevance_} RV; GP rmse {rmse_ref:.4f}")
    assert rmse <= 1.5 * rmse_ref + 0.005
    assert ours.noise_ == pytest.approx(0.01, rel=0.3)
    _, std = ours.predict(Xt, return_std=True)
    assert np.all(std >= np.sqrt(ours.noise_))


def test_regression_bias():
    X, t = sinc_data(100, seed=8)
    model = RelevanceVectorRegressor(kernel=RBF(2.0), bias=True).fit(X, t + 5.0)
    assert abs(model.intercept_) > 1.0  # the constant column carries the offset
    Xt = np.linspace(-9, 9, 50)[:, None]
    mean, std = model.predict(Xt, return_std=True)
    Phi = np.c_[RBF(2.0)(Xt, model.X_fit_), np.ones(50)] if len(model.sigma_) > model.n_relevance_ \
        else RBF(2.0)(Xt, model.X_fit_)
    np.testing.assert_allclose(std ** 2, model.noise_ + np.einsum("ij,jk,ik->i", Phi, model.sigma_, Phi))
    assert np.sqrt(np.mean((mean - 5.0 - np.sinc(Xt[:, 0] / np.pi)) ** 2)) < 0.06


def test_bad_input():
    X, t = sinc_data(20)
    with pytest.raises(ValueError):
        RelevanceVectorRegressor().fit(np.r_[X[:-1], [[np.nan]]], t)
    with pytest.raises(ValueError):
        RelevanceVectorRegressor().fit(X, t[:5])
    with pytest.raises(ValueError, match="solver"):
        RelevanceVectorRegressor(solver="em").fit(X, t)
    with pytest.raises(ValueError, match="noise"):
        RelevanceVectorRegressor().fit(X, np.ones(20))
    assert rvm_regression.__name__ == "kernelclf.bayes.rvm_regression"
