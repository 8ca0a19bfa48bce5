"""Tests for kernelclf.bayes.gp against independent references (seed inventory rows 14 and 16).

The regressor's own tests are in ``tests/test_gp_regression.py``; the tests below that fit
both estimators import the regressor from :mod:`kernelclf.bayes.gp_regression`."""
import numpy as np
import pytest
from _bayes_data import moons
from scipy.special import expit
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel

from kernelclf.bayes import (
    GaussianProcessClassifier,
    gp,
    laplace_mode,
    softplus,
    stable_sigmoid,
)
from kernelclf.bayes.gp_regression import ARDRBF, GaussianProcessRegressor
from kernelclf.kernels import RBF, Linear


@pytest.fixture(scope="module")
def fitted_pair():
    X, y = moons(150)
    ours = GaussianProcessClassifier(kernel=4.0 * RBF(0.5), optimizer=None).fit(X, y)
    ref = SkGPC(kernel=ConstantKernel(4.0, "fixed") * SkRBF(0.5, "fixed"), optimizer=None).fit(X, y)
    return X, y, ours, ref


def test_gpc_log_marginal_likelihood_equals_sklearn(fitted_pair):
    _, _, ours, ref = fitted_pair
    lml = ref.log_marginal_likelihood_value_
    assert abs(ours.log_marginal_likelihood_ - lml) <= 1e-8 * abs(lml)


def test_gpc_predict_proba_equals_sklearn(fitted_pair):
    # same predictive: Williams-Barber 5-erf integral of the logistic
    _, _, ours, ref = fitted_pair
    Xt = np.random.default_rng(1).uniform(-1.5, 2.5, size=(200, 2))
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-8)
    mu_r, var_r = ref.latent_mean_and_variance(Xt)
    mu, var = ours.latent_mean_and_variance(Xt)
    np.testing.assert_allclose(mu, mu_r, atol=1e-7)
    np.testing.assert_allclose(var, var_r, atol=1e-7)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_gpc_mackay_and_map_predictives(fitted_pair):
    X, _, ours, ref = fitted_pair
    Xt = np.random.default_rng(2).uniform(-1.5, 2.5, size=(100, 2))
    mu, var = ours.latent_mean_and_variance(Xt)
    mk = GaussianProcessClassifier(4.0 * RBF(0.5), predictive="mackay",
                                   optimizer=None).fit(*fitted_pair[:2])
    # MacKay's probit approximation is close to, but not equal to, the exact average
    grid = np.linspace(-12, 12, 4001)
    exact = np.array([np.trapezoid(expit(grid * np.sqrt(v) + u)
                                   * np.exp(-grid ** 2 / 2) / np.sqrt(2 * np.pi), grid)
                      for u, v in zip(mu, var)])
    assert np.abs(mk.predict_proba(Xt)[:, 1] - exact).max() < 0.02
    assert np.abs(ours.predict_proba(Xt)[:, 1] - exact).max() < 1e-3
    mp = GaussianProcessClassifier(4.0 * RBF(0.5), predictive="map",
                                   optimizer=None).fit(*fitted_pair[:2])
    np.testing.assert_allclose(mp.predict_proba(Xt)[:, 1], expit(mu))


def test_laplace_fixed_point_and_monotone_objective(fitted_pair):
    X, y, ours, _ = fitted_pair
    G = (4.0 * RBF(0.5))(X)
    a = ours.alpha_
    # gradient of J vanishes: alpha = (y+1)/2 - pi(G alpha)
    np.testing.assert_allclose(a, (y + 1) / 2 - expit(G @ a), atol=1e-9)
    assert np.all(y * a > 0) and np.all(y * a < 1)
    assert np.all(np.diff(ours.objective_trace_) > 0)
    # t-space Newton (LKC B.7.1, eta = 1), t <- (G^-1 + P)^-1 (P t + (y+1)/2 - pi), written
    # as (I + G P)^-1 G (...) to avoid G^-1, reaches the same mode from a different iteration
    t = np.zeros(len(y))
    eye = np.eye(len(y))
    for _ in range(30):
        p = expit(t)
        t = np.linalg.solve(eye + G * (p * (1 - p))[None, :], G @ (p * (1 - p) * t + (y + 1) / 2 - p))
    np.testing.assert_allclose(G @ a, t, atol=1e-8)


def test_beta_convention_e3_e4():
    # App. B.7.1: likelihood pi(t / beta), P = beta^-2 pi (1 - pi) (eq. B.16-B.17), Newton in t;
    # kernelclf's beta = 1 model with kernel k / beta^2 must give latent values t / beta
    X, y = moons(80, seed=3)
    beta = 2.5
    G = (4.0 * RBF(0.5))(X)
    t = np.zeros(80)
    for _ in range(50):
        p = expit(t / beta)
        P = np.diag(p * (1 - p)) / beta ** 2
        t = t + np.linalg.solve(np.eye(80) + G @ P, G @ ((y + 1) / (2 * beta) - p / beta) - t)
    model = GaussianProcessClassifier(kernel=(4.0 / beta ** 2) * RBF(0.5),
                                      optimizer=None).fit(X, y)
    np.testing.assert_allclose(model.latent_mode_, t / beta, atol=1e-8)
    # E4: the Laplace evidence of the B.7 model needs P = beta^-2 pi (1 - pi) (B.16-B.17);
    # with it, it equals ours (the evidence does not depend on the latent scale)
    from scipy.special import log_expit
    a = (y + 1) / (2 * beta) - expit(t / beta) / beta  # = G^-1 t at the mode
    base = log_expit(y * t / beta).sum() - 0.5 * a @ t
    pp = expit(t / beta) * (1 - expit(t / beta))
    lml_b16 = base - 0.5 * np.linalg.slogdet(np.eye(80) + G * (pp / beta ** 2)[None, :])[1]
    lml_p90 = base - 0.5 * np.linalg.slogdet(np.eye(80) + G * (pp / beta)[None, :])[1]
    assert model.log_marginal_likelihood_ == pytest.approx(lml_b16, rel=1e-9)
    assert abs(lml_p90 - model.log_marginal_likelihood_) > 1.0


def test_laplace_mode_singular_gram_and_line_search():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    G = 50.0 * Linear()(X)  # rank 2, huge scale: the full Newton step overshoots
    res = laplace_mode(G, y)
    assert res["converged"]
    assert np.all(np.diff(res["J"]) > 0)
    np.testing.assert_allclose(res["alpha"], (y + 1) / 2 - expit(G @ res["alpha"]), atol=1e-8)


def test_stable_functions():
    t = np.array([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    with np.errstate(all="raise"):
        s = stable_sigmoid(t)
        sp = softplus(t)
    assert s[0] == 0.0 and s[-1] == 1.0 and s[2] == 0.5
    np.testing.assert_allclose(sp, np.logaddexp(0, t))


def test_bad_input():
    X, y = moons(20)
    with pytest.raises(ValueError, match="NaN|infinity"):
        GaussianProcessClassifier().fit(np.where(np.arange(40).reshape(20, 2) == 3, np.nan, X), y)
    with pytest.raises(ValueError, match="two classes"):
        GaussianProcessClassifier().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="samples"):
        GaussianProcessClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="predictive"):
        GaussianProcessClassifier(predictive="ep").fit(X, y)
    with pytest.raises(ValueError, match="noise"):
        GaussianProcessRegressor(noise=0.0).fit(X, y.astype(float))
    with pytest.raises(ValueError):
        GaussianProcessRegressor().fit(X, np.r_[np.nan, y[1:]].astype(float))
    fitted = GaussianProcessClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(np.ones((3, 3)))
    with pytest.raises(ValueError, match="sigma"):
        ARDRBF(np.array([1.0, -1.0]))(X)
    assert gp.__name__ == "kernelclf.bayes.gp"


# -- the estimator contract (issue 9) and bad input (issue 17) ------------------------

@pytest.mark.parametrize("Est", [GaussianProcessClassifier, GaussianProcessRegressor])
def test_fitted_model_keeps_its_own_kernel(Est):
    """Regression: GPC kept the user's kernel object, so set_params after fit changed it."""
    X, y = moons(60, seed=4)
    target = y if Est is GaussianProcessClassifier else y.astype(float)
    fixed = {"optimizer": None} if Est is GaussianProcessClassifier else {}
    est = Est(kernel=RBF(1.0), **fixed).fit(X, target)
    before = est.predict(X)
    est.set_params(kernel__sigma=0.05)
    np.testing.assert_array_equal(est.predict(X), before)
    assert est.kernel_ is not est.kernel and est.kernel_.sigma == 1.0
    refit = Est(kernel=RBF(0.05), **fixed).fit(X, target)
    assert not np.allclose(refit.predict(X[:20] + 0.3),
                           Est(kernel=RBF(1.0), **fixed).fit(X, target).predict(X[:20] + 0.3))


@pytest.mark.parametrize("predictive", ["williams-barber", "mackay", "map"])
def test_gpc_decision_function_is_the_predictive_log_odds(fitted_pair, predictive):
    """decision_function = ln(p / (1 - p)) of predict_proba, so both rank points alike;
    the latent mean stays available as latent_mean (= sum_i alpha_i k(x_i, x))."""
    from scipy.stats import rankdata

    X, y, _, _ = fitted_pair
    model = GaussianProcessClassifier(kernel=4.0 * RBF(0.5), predictive=predictive,
                                      optimizer=None).fit(X, y)
    Xt = np.random.default_rng(1).uniform(-3, 4, size=(400, 2))
    p = model.predict_proba(Xt)[:, 1]
    f = model.decision_function(Xt)
    np.testing.assert_allclose(f, np.log(p) - np.log1p(-p), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(rankdata(f), rankdata(p))
    mu = model.latent_mean(Xt)
    np.testing.assert_allclose(mu, (4.0 * RBF(0.5))(Xt, X) @ model.alpha_, rtol=1e-12)
    np.testing.assert_allclose(mu, model.latent_mean_and_variance(Xt)[0], rtol=1e-12)
    # predict follows the sign of the latent mean (eq. 3.22); the variance only shrinks f
    np.testing.assert_array_equal(model.predict(Xt), np.where(mu > 0, 1, -1))
    if predictive == "map":
        np.testing.assert_allclose(f, mu, rtol=1e-8, atol=1e-10)
    else:
        assert np.all(np.abs(f) <= np.abs(mu) + 1e-9)


def test_gp_on_lists_of_strings_equal_the_explicit_feature_map():
    """GPR and GPC with Normalized(SpectrumKernel(2)) on the promoter sequences equal the
    same models with the linear kernel on the normalised 2-mer count vectors."""
    from _string_data import promoters, spectrum_features

    from kernelclf.kernels import Normalized, SpectrumKernel

    S_tr, y_tr, S_te, _ = promoters()
    F = spectrum_features(S_tr + S_te, 2)
    F_tr, F_te = F[:len(S_tr)], F[len(S_tr):]
    kernel = Normalized(SpectrumKernel(2))
    gpc = GaussianProcessClassifier(kernel=kernel).fit(S_tr, y_tr)
    ref = GaussianProcessClassifier(kernel=Linear()).fit(F_tr, y_tr)
    np.testing.assert_allclose(gpc.predict_proba(S_te), ref.predict_proba(F_te), atol=1e-9)
    assert gpc.log_marginal_likelihood_ == pytest.approx(ref.log_marginal_likelihood_, abs=1e-8)
    assert not hasattr(gpc, "n_features_in_")
    t_tr = y_tr.astype(float)
    gpr = GaussianProcessRegressor(kernel=kernel, noise=0.3, optimize=True).fit(S_tr, t_tr)
    gref = GaussianProcessRegressor(kernel=Linear(), noise=0.3, optimize=True).fit(F_tr, t_tr)
    mu, sd = gpr.predict(S_te, return_std=True)
    mu_r, sd_r = gref.predict(F_te, return_std=True)
    np.testing.assert_allclose(mu, mu_r, atol=1e-7)
    np.testing.assert_allclose(sd, sd_r, atol=1e-7)
    assert gpr.noise_ == pytest.approx(gref.noise_, rel=1e-6)


def test_gp_bad_parameters_and_inputs_give_clear_errors():
    from sklearn.utils._param_validation import InvalidParameterError

    from kernelclf.kernels import IndefiniteKernelError

    X, y = moons(30, seed=2)
    with pytest.raises(InvalidParameterError, match="max_iter"):
        GaussianProcessClassifier(max_iter=-1).fit(X, y)
    with pytest.raises(InvalidParameterError, match="tol"):
        GaussianProcessClassifier(tol=-1e-3).fit(X, y)
    with pytest.raises(InvalidParameterError, match="noise"):
        GaussianProcessClassifier(noise=True).fit(X, y)
    with pytest.raises(ValueError, match="bounds"):
        GaussianProcessRegressor(bounds=(1.0, 0.1), optimize=True).fit(X, y.astype(float))
    # a kernel that is not positive semi-definite: the Gram guard, not a raw LinAlgError
    bad = lambda A, B: -RBF(1.0)(A, B)  # noqa: E731
    for est, target in ((GaussianProcessClassifier(kernel=bad), y),
                        (GaussianProcessRegressor(kernel=bad), y.astype(float))):
        with pytest.raises(IndefiniteKernelError, match="positive semi-definite"):
            est.fit(X, target)
    # kernel values that overflow (a fixed width on huge inputs): a clear error, never NaN
    for est, target in ((GaussianProcessClassifier(kernel=RBF(1.0)), y),
                        (GaussianProcessRegressor(kernel=ARDRBF(1.0)), y.astype(float))):
        with pytest.raises(ValueError, match="NaN or infinity.*rescale"), \
                np.errstate(all="ignore"):
            est.fit(X * 1e300, target)
    # test points at an overflowing distance have kernel value 0: the prior predictive
    with np.errstate(all="ignore"):
        p_far = GaussianProcessClassifier().fit(X, y).predict_proba(X * 1e300)
    np.testing.assert_allclose(p_far, 0.5, atol=1e-12)
    # string targets for a regressor
    with pytest.raises(ValueError, match="must be numbers"):
        GaussianProcessRegressor().fit(X, np.where(y > 0, "a", "b"))


def test_gp_degenerate_inputs_give_correct_models():
    """All inputs equal (or scaled by 1e-300): the kernel is constant, the data carry no
    information beyond the labels' mean, so GPC predicts the same probability everywhere,
    on the side of the majority, and GPR predicts the shrunk target mean."""
    from kernelclf.kernels.gram_guard import DegenerateKernelWarning

    y = np.r_[np.ones(12), -np.ones(8)].astype(int)
    # RBF(1.0) on inputs at 1e-300 is numerically constant (the default width 'scale'
    # follows the inputs' scale instead: test_default_width_follows_the_scale_of_the_inputs)
    for X, kernel in ((np.ones((20, 2)), None),
                      (np.random.default_rng(0).normal(size=(20, 2)) * 1e-300, RBF(1.0))):
        with pytest.warns(DegenerateKernelWarning, match="numerically constant"):
            gpc = GaussianProcessClassifier(kernel=kernel, optimizer=None).fit(X, y)
        p = gpc.predict_proba(X)[:, 1]
        assert np.ptp(p) < 1e-12 and 0.5 < p[0] < 0.6
        # constant kernel k = 1: the latent values are one N(0, 1) variable, so the model is
        # the one-point GP with the summed likelihood; its mode solves t = 12 s(-t) - 8 s(t)
        t = gpc.latent_mode_[0]
        assert t == pytest.approx(12 * expit(-t) - 8 * expit(t), abs=1e-8)
        t_y = y.astype(float)
        with pytest.warns(DegenerateKernelWarning, match="numerically constant"):
            gpr = GaussianProcessRegressor(kernel=RBF(1.0), noise=0.5).fit(X, t_y)
        # constant kernel: posterior mean of a common offset, sum(t) / (m + noise)
        np.testing.assert_allclose(gpr.predict(X), t_y.sum() / (20 + 0.5), rtol=1e-9)


# ---- the class models of LKC §3.2 (eq. 3.16, 3.23, Remark 3.13; Figs 3.4-3.5) -------

def test_class_likelihood_is_eq_3_16_and_normalised():
    from kernelclf.bayes import class_likelihood, sigmoid_loss

    t = np.linspace(-3, 3, 61)
    for beta in (0.1, 1.0, 5.0):
        printed = np.exp(t / beta) / (np.exp(t / beta) + np.exp(-t / beta))
        np.testing.assert_allclose(class_likelihood(t, 1, beta), printed, rtol=1e-12)
        np.testing.assert_allclose(class_likelihood(t, 1, beta) + class_likelihood(t, -1, beta),
                                   1.0, rtol=1e-14)
        # eq. 3.23 as printed: ln(1 + exp(2yt/beta)) - 2yt/beta, for y = -1 and +1
        for y in (-1, 1):
            printed_loss = np.log1p(np.exp(2 * y * t / beta)) - 2 * y * t / beta
            np.testing.assert_allclose(sigmoid_loss(t, y, beta), printed_loss, rtol=1e-10,
                                       atol=1e-12)
            np.testing.assert_allclose(sigmoid_loss(t, y, beta),
                                       -np.log(class_likelihood(t, y, beta)), rtol=1e-10,
                                       atol=1e-12)
    # beta -> 0: the step function; no overflow for huge arguments
    assert np.array_equal(class_likelihood([-1.0, 1.0], 1, 1e-6), [0.0, 1.0])
    assert np.isfinite(sigmoid_loss(-1e6, 1, 1e-3))
    # beta = 2 is the plain logistic function the classifier uses
    np.testing.assert_allclose(class_likelihood(t, 1, 2.0), 1 / (1 + np.exp(-t)), rtol=1e-12)
    # the sigmoid loss is not an upper bound of the zero-one loss (Fig. 3.5, left)
    assert sigmoid_loss(0.0, 1, 1.0) == pytest.approx(np.log(2)) and np.log(2) < 1
    with pytest.raises(ValueError, match="beta"):
        class_likelihood(t, 1, 0.0)


def test_hinge_likelihood_is_not_normalised():
    from kernelclf.bayes import hinge_likelihood

    t = np.linspace(-2, 2, 401)
    total = hinge_likelihood(t, 1) + hinge_likelihood(t, -1)
    assert total.max() == pytest.approx(1 + np.exp(-2), rel=1e-6)  # at |t| = 1
    assert total[200] == pytest.approx(2 * np.exp(-1))  # t = 0
    np.testing.assert_allclose(-np.log(hinge_likelihood(t, 1)), np.maximum(1 - t, 0), atol=1e-15)
