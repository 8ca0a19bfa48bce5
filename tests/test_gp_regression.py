"""Tests for kernelclf.bayes.gp_regression (LKC Algorithm 4, §3.2.1, Ex. 3.11-3.12) against
independent references: weight-space Bayesian linear regression, the multivariate normal
density, finite differences and scikit-learn."""
import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.stats import multivariate_normal
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel

from kernelclf.bayes import gp_regression
from kernelclf.bayes.gp_regression import ARDRBF, GaussianProcessRegressor
from kernelclf.kernels import RBF, Linear


def test_module_name():
    assert gp_regression.__name__ == "kernelclf.bayes.gp_regression"
    assert gp_regression.GaussianProcessRegressor is GaussianProcessRegressor


def test_gpr_equals_weight_space_bayesian_linear_regression():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    t = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=30)
    s2 = 0.09
    Xt = rng.normal(size=(7, 3))
    model = GaussianProcessRegressor(kernel=Linear(), noise=s2).fit(X, t)
    # LKC eq. 3.10: posterior over w with prior N(0, I)
    Sigma = np.linalg.inv(X.T @ X / s2 + np.eye(3))
    w = Sigma @ X.T @ t / s2
    mean, std = model.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, Xt @ w, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(std ** 2, np.einsum("ij,jk,ik->i", Xt, Sigma, Xt) + s2, rtol=1e-10)
    assert np.all(std ** 2 >= s2)
    _, std_f = model.predict(Xt, return_std=True, include_noise=False)
    np.testing.assert_allclose(std ** 2 - std_f ** 2, s2)


def test_gpr_log_evidence_is_mvn_logpdf():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 8, size=(20, 1))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=20)
    k = ARDRBF(1.3, amplitude=0.7)
    model = GaussianProcessRegressor(kernel=k, noise=0.05).fit(X, t)
    C = 0.7 * np.exp(-(X - X.T) ** 2 / (2 * 1.3 ** 2)) + 0.05 * np.eye(20)
    ref = multivariate_normal(mean=np.zeros(20), cov=C).logpdf(t)
    assert model.log_marginal_likelihood_ == pytest.approx(ref, rel=1e-10)
    assert model.log_marginal_likelihood() == pytest.approx(ref, rel=1e-10)
    # ARDRBF with one scale equals amplitude * RBF
    np.testing.assert_allclose(k(X), 0.7 * RBF(1.3)(X))


@pytest.mark.parametrize("sigma", [0.8, np.array([0.7, 2.5])])
def test_gpr_evidence_gradient_matches_finite_differences(sigma):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(25, 2))
    t = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=25)
    model = GaussianProcessRegressor(kernel=ARDRBF(sigma, 1.5), noise=0.2).fit(X, t)
    theta = np.concatenate([model.kernel_.theta, [np.log(0.2)]])
    _, grad = model.log_marginal_likelihood(theta, eval_gradient=True)
    fd = approx_fprime(theta, lambda th: model.log_marginal_likelihood(th), 1e-6)
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-5)


def test_gpr_ard_evidence_maximisation_finds_irrelevant_feature():
    rng = np.random.default_rng(7)
    X = rng.uniform(-3, 3, size=(60, 2))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)  # feature 2 is irrelevant
    model = GaussianProcessRegressor(kernel=ARDRBF(np.array([1.0, 1.0])), noise=0.5,
                                     optimize=True).fit(X, t)
    s1, s2 = model.kernel_.sigma
    assert s2 > 10 * s1
    assert model.log_marginal_likelihood_ > GaussianProcessRegressor(
        kernel=ARDRBF(np.array([1.0, 1.0])), noise=0.5).fit(X, t).log_marginal_likelihood_
    # at the optimum the gradient vanishes (interior point)
    theta = np.concatenate([model.kernel_.theta, [np.log(model.noise_)]])
    _, grad = model.log_marginal_likelihood(theta, eval_gradient=True)
    interior = (theta > np.log(1e-5) + 0.1) & (theta < np.log(1e5) - 0.1)
    assert np.all(np.abs(grad[interior]) < 1e-3)
    assert 0.003 < model.noise_ < 0.03


def test_gpr_evidence_maximisation_matches_sklearn():
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
    from sklearn.gaussian_process.kernels import WhiteKernel
    rng = np.random.default_rng(7)
    X = rng.uniform(-3, 3, size=(60, 2))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    ours = GaussianProcessRegressor(kernel=ARDRBF(np.array([1.0, 1.0])), noise=0.5,
                                    optimize=True).fit(X, t)
    b = (1e-5, 1e5)
    sk = SkGPR(ConstantKernel(1.0, b) * SkRBF([1.0, 1.0], b) + WhiteKernel(0.5, b),
               alpha=0.0).fit(X, t)
    assert ours.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_,
                                                          abs=1e-5)
    assert ours.noise_ == pytest.approx(sk.kernel_.k2.noise_level, rel=1e-3)
    np.testing.assert_allclose(ours.kernel_.sigma[0], sk.kernel_.k1.k2.length_scale[0], rtol=1e-3)


# ---------------------------------------------------------------------------
# normalize_y and targets far from the prior's mean (issue 38)

def test_normalize_y_is_scikit_learns():
    """Fixed kernel: the same mean, standard deviation and (normalised) log evidence."""
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
    rng = np.random.default_rng(11)
    X = rng.uniform(-3, 3, size=(40, 2))
    t = 200.0 + 30.0 * np.sin(X[:, 0]) + 3.0 * rng.normal(size=40)
    Xt = rng.uniform(-3, 3, size=(9, 2))
    ours = GaussianProcessRegressor(ARDRBF(1.2, 0.8), noise=0.05, normalize_y=True).fit(X, t)
    sk = SkGPR(ConstantKernel(0.8, "fixed") * SkRBF(1.2, "fixed"), alpha=0.05,
               normalize_y=True).fit(X, t)
    mean, std = ours.predict(Xt, return_std=True, include_noise=False)
    sk_mean, sk_std = sk.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, sk_mean, rtol=1e-10)
    np.testing.assert_allclose(std, sk_std, rtol=1e-8)
    assert ours.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_,
                                                          rel=1e-10)
    _, std_y = ours.predict(Xt, return_std=True)
    np.testing.assert_allclose(std_y ** 2 - std ** 2, 0.05 * np.std(t) ** 2, rtol=1e-8)
    # constant targets: divided by 1, as scikit-learn does
    flat = GaussianProcessRegressor(ARDRBF(1.2), normalize_y=True).fit(X, np.full(40, 7.0))
    np.testing.assert_allclose(flat.predict(Xt), 7.0)


def _diabetes():
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


def test_diabetes_with_normalize_y_matches_scikit_learn():
    """Standardised features, targets of mean 152 and sd 77: R^2 was -4.5 without the option."""
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
    from sklearn.gaussian_process.kernels import WhiteKernel
    from sklearn.metrics import r2_score
    Xtr, Xte, ytr, yte = _diabetes()
    ours = GaussianProcessRegressor(optimize=True, normalize_y=True).fit(Xtr, ytr)
    sk = SkGPR(ConstantKernel() * SkRBF() + WhiteKernel(), normalize_y=True,
               random_state=0).fit(Xtr, ytr)
    r2, r2_sk = r2_score(yte, ours.predict(Xte)), r2_score(yte, sk.predict(Xte))
    assert r2 > 0.35 and r2 == pytest.approx(r2_sk, abs=0.01)
    assert ours.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_,
                                                          abs=0.05)


def test_targets_far_from_zero_warn_and_name_the_targets():
    from sklearn.metrics import r2_score

    from kernelclf.bayes import TargetOffsetWarning
    from kernelclf.kernels import DegenerateKernelWarning
    Xtr, Xte, ytr, yte = _diabetes()
    with pytest.warns(TargetOffsetWarning, match="normalize_y=True"):
        with pytest.warns(DegenerateKernelWarning) as record:
            collapsed = GaussianProcessRegressor(optimize=True).fit(Xtr, ytr)
    assert r2_score(yte, collapsed.predict(Xte)) < 0     # the collapse the warnings explain
    degenerate = [str(w.message) for w in record
                  if issubclass(w.category, DegenerateKernelWarning)]
    assert len(degenerate) == 1
    assert "evidence maximisation" in degenerate[0] and "targets" in degenerate[0]
    assert "normalize_y=True" in degenerate[0]
    assert "standardise the inputs" not in degenerate[0]
    assert "The inputs are not the cause" in degenerate[0]
    # centred targets (or normalize_y) do not warn
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", TargetOffsetWarning)
        GaussianProcessRegressor().fit(Xtr, ytr - ytr.mean())
        GaussianProcessRegressor(normalize_y=True).fit(Xtr, ytr)
