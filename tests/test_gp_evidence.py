"""Evidence maximisation of the GP classifier (:mod:`kernelclf.bayes.gp_evidence`, issue 38)
and the kernels' log hyperparameters (:mod:`kernelclf.kernels.hyper`).

References: finite differences of the Laplace evidence (the mode found again at every
point), and scikit-learn's ``GaussianProcessClassifier`` (its test data, its learned
kernel, its log marginal likelihood and gradient, breast cancer).
"""
import warnings

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel

from kernelclf.bayes import ARDRBF, GaussianProcessClassifier
from kernelclf.bayes.gp import laplace_mode
from kernelclf.bayes.gp_evidence import laplace_evidence
from kernelclf.kernels import (
    RBF,
    Constant,
    DegenerateKernelWarning,
    Linear,
    gram_and_gradient,
    hyperparameter_names,
    kernel_theta,
    kernel_with_theta,
)

# scikit-learn's own test data for GaussianProcessClassifier (sklearn/gaussian_process/tests)
X_SK = np.atleast_2d(np.linspace(0, 10, 30)).T
Y_SK = np.array(np.sin(X_SK).ravel() > 0, dtype=int)
X2_SK = np.atleast_2d([2.0, 4.0, 5.5, 6.5, 7.5]).T


def _moons(m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=m) > 0, 1, -1)
    return X, y


KERNELS = [RBF(0.8), 3.0 * RBF(1.2), RBF(gamma=0.4), ARDRBF(np.array([0.7, 1.5]), 2.0),
           RBF(1.0) + Constant(0.5), 2.0 * RBF(0.9) * (Linear() + Constant(1.0))]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_gram_gradient_matches_finite_differences(kernel):
    X, _ = _moons(12)
    theta = kernel_theta(kernel)
    assert len(theta) == len(hyperparameter_names(kernel)) > 0
    K, dK = gram_and_gradient(kernel, X)
    np.testing.assert_allclose(K, kernel(X), rtol=1e-12)
    np.testing.assert_allclose(kernel_with_theta(kernel, theta)(X), K, rtol=1e-12)
    for j in range(len(theta)):
        e = np.zeros_like(theta)
        e[j] = 1e-6
        fd = (kernel_with_theta(kernel, theta + e)(X) - kernel_with_theta(kernel, theta - e)(X)) / 2e-6
        np.testing.assert_allclose(dK[:, :, j], fd, rtol=1e-5, atol=1e-8)


def test_fixed_kernels_have_no_hyperparameters():
    from kernelclf.kernels import Normalized, SpectrumKernel

    for k in (Linear(), Normalized(RBF(1.0)), SpectrumKernel(2), Constant(0.0)):
        assert len(kernel_theta(k)) == 0 and hyperparameter_names(k) == []
        assert kernel_with_theta(k, np.empty(0)) is k
    K, dK = gram_and_gradient(Linear(), _moons(5)[0])
    assert dK.shape == (5, 5, 0)
    with pytest.raises(ValueError, match="resolve"):
        kernel_theta(RBF("scale"))


@pytest.mark.parametrize("kernel", [4.0 * RBF(0.5), ARDRBF(np.array([0.6, 1.3]), 1.5)], ids=repr)
@pytest.mark.parametrize("noise", [0.0, 0.1])
def test_laplace_evidence_gradient_matches_finite_differences(kernel, noise):
    X, y = _moons(40)
    theta = kernel_theta(kernel)

    def lml(th):
        G = kernel_with_theta(kernel, th)(X) + noise * np.eye(len(X))
        return laplace_evidence(G, y, laplace_mode(G, y, tol=1e-13))[0]

    G, dG = gram_and_gradient(kernel, X)
    G = G + noise * np.eye(len(X))
    value, grad = laplace_evidence(G, y, laplace_mode(G, y, tol=1e-13), dG)
    assert value == pytest.approx(lml(theta), rel=1e-12)
    h = 1e-3                     # central differences: error O(h^2), above the mode's noise
    fd = [(lml(theta + h * e) - lml(theta - h * e)) / (2 * h) for e in np.eye(len(theta))]
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


def test_evidence_and_gradient_equal_scikit_learns():
    X, y = _moons(40, seed=3)
    ours = GaussianProcessClassifier(2.0 * RBF(0.7), optimizer=None).fit(X, y)
    sk = SkGPC(ConstantKernel(2.0) * SkRBF(0.7), optimizer=None).fit(X, y)
    for theta in (np.log([2.0, 0.7]), np.log([0.3, 2.5])):
        v, g = ours.log_marginal_likelihood(theta, eval_gradient=True)
        sv, sg = sk.log_marginal_likelihood(theta, eval_gradient=True)
        assert v == pytest.approx(sv, rel=1e-9)
        np.testing.assert_allclose(g, sg, rtol=1e-6, atol=1e-9)
    assert ours.log_marginal_likelihood() == ours.log_marginal_likelihood_


def test_learns_scikit_learns_kernel_on_its_test_data():
    """Issue 38: scikit-learn learns 16.9**2 * RBF(0.891), log evidence -12.12; ours stayed
    at the initial kernel (-16.89)."""
    ours = GaussianProcessClassifier(1.0 * RBF(1.0)).fit(X_SK, Y_SK)
    sk = SkGPC(1.0 * SkRBF(1.0)).fit(X_SK, Y_SK)
    assert sk.log_marginal_likelihood_value_ == pytest.approx(-12.12, abs=5e-3)
    assert ours.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_,
                                                          abs=1e-6)
    c, sigma = ours.kernel_.c, ours.kernel_.kernel.sigma
    assert c == pytest.approx(sk.kernel_.k1.constant_value, rel=1e-3)
    assert sigma == pytest.approx(sk.kernel_.k2.length_scale, rel=1e-3)
    assert np.sqrt(c) == pytest.approx(16.9, abs=0.05) and sigma == pytest.approx(0.891, abs=1e-3)
    np.testing.assert_allclose(ours.predict_proba(X2_SK), sk.predict_proba(X2_SK), atol=1e-5)
    # without optimisation: the initial kernel and its evidence, -16.89
    fixed = GaussianProcessClassifier(1.0 * RBF(1.0), optimizer=None).fit(X_SK, Y_SK)
    assert fixed.log_marginal_likelihood_ == pytest.approx(-16.894, abs=1e-3)
    assert fixed.kernel_.c == 1.0
    # the parameter is given as it was: the fitted model holds the optimised copy
    assert ours.kernel.c == 1.0 and ours.kernel_ is not ours.kernel


def test_default_kernel_stays_fixed_and_rbf_is_optimised():
    """As scikit-learn's default kernel, kernel=None is not optimised; 'rbf' is."""
    default = GaussianProcessClassifier().fit(X_SK, Y_SK)
    fixed = GaussianProcessClassifier(RBF("scale"), optimizer=None).fit(X_SK, Y_SK)
    assert default.kernel_.sigma == fixed.kernel_.sigma
    assert default.log_marginal_likelihood_ == fixed.log_marginal_likelihood_
    tuned = GaussianProcessClassifier("rbf").fit(X_SK, Y_SK)
    assert tuned.kernel_.sigma != fixed.kernel_.sigma
    assert tuned.log_marginal_likelihood_ > fixed.log_marginal_likelihood_ + 0.1
    # at an interior optimum the gradient vanishes
    _, grad = tuned.log_marginal_likelihood(kernel_theta(tuned.kernel_), eval_gradient=True)
    assert np.abs(grad).max() < 1e-3


def test_restarts_and_a_callable_optimizer():
    X, y = _moons(40, seed=5)
    one = GaussianProcessClassifier(1.0 * RBF(1.0)).fit(X, y)
    more = GaussianProcessClassifier(1.0 * RBF(1.0), n_restarts_optimizer=3,
                                     random_state=0).fit(X, y)
    again = GaussianProcessClassifier(1.0 * RBF(1.0), n_restarts_optimizer=3,
                                      random_state=0).fit(X, y)
    assert more.log_marginal_likelihood_ >= one.log_marginal_likelihood_ - 1e-9
    assert more.log_marginal_likelihood_ == again.log_marginal_likelihood_
    calls = []

    def optimizer(obj_func, initial_theta, bounds):
        calls.append(len(bounds))
        value, grad = obj_func(initial_theta, eval_gradient=True)
        assert grad.shape == initial_theta.shape
        return initial_theta - 0.5, obj_func(initial_theta - 0.5, eval_gradient=False)

    own = GaussianProcessClassifier(1.0 * RBF(1.0), optimizer=optimizer).fit(X, y)
    assert calls == [2]
    if own.kernel_.c != 1.0:        # the callable's point was better than the start
        assert own.kernel_.c == pytest.approx(np.exp(-0.5))
    with pytest.raises(ValueError, match="bounds"):
        GaussianProcessClassifier(RBF(1.0), bounds=(1.0, 0.1)).fit(X, y)


@pytest.mark.parametrize("scaled", [False, True])
def test_breast_cancer_matches_scikit_learn(scaled):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if scaled:
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    ours = GaussianProcessClassifier(1.0 * RBF(1.0)).fit(Xtr, ytr)
    sk = SkGPC(1.0 * SkRBF(1.0)).fit(Xtr, ytr)
    assert ours.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_,
                                                          abs=0.01)
    assert ours.score(Xte, yte) == pytest.approx(sk.score(Xte, yte), abs=0.006)
    with warnings.catch_warnings():      # the fixed start is degenerate on raw inputs
        warnings.simplefilter("ignore", DegenerateKernelWarning)
        start = GaussianProcessClassifier(1.0 * RBF(1.0), optimizer=None).fit(Xtr, ytr)
    assert ours.log_marginal_likelihood_ > start.log_marginal_likelihood_
