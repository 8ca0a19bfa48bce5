"""Tests for kernelclf.bayes.rvm (seed inventory rows 17 and 18)."""
import warnings

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import WhiteKernel
from sklearn.svm import SVC

from kernelclf.bayes import RelevanceVectorClassifier, RelevanceVectorRegressor, rvm
from kernelclf.bayes.rvm import _rvc_mode
from kernelclf.kernels import RBF


def sinc_data(m, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-10, 10, size=(m, 1))
    return X, np.sinc(X[:, 0] / np.pi) + noise * rng.normal(size=m)


def moons(m, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, np.pi, m)
    upper = rng.random(m) < 0.5
    X = np.where(upper[:, None], np.c_[np.cos(a), np.sin(a)],
                 np.c_[1 - np.cos(a), 0.5 - np.sin(a)])
    return X + noise * rng.normal(size=X.shape), np.where(upper, 1, -1)


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


def test_classification_hessian_includes_prior_term_e5():
    X, y = moons(60, seed=4)
    P = RBF(0.5)(X)[:, :15]
    a = np.linspace(0.5, 3.0, 15)
    y01 = (y + 1) / 2
    w, t, pi, b, J = _rvc_mode(P, y01, a, np.zeros(15))
    g = P.T @ (y01 - expit(P @ w)) - a * w
    assert np.linalg.norm(g) / 15 < 1e-8  # gradient vanishes at the mode (the stopping rule)

    def grad(v):
        return P.T @ (y01 - expit(P @ v)) - a * v
    eps = 1e-6
    H_fd = np.array([(grad(w + eps * e) - grad(w - eps * e)) / (2 * eps) for e in np.eye(15)])
    H = -((P * b[:, None]).T @ P + np.diag(a))  # corrected Hessian (E5)
    np.testing.assert_allclose(H_fd, H, atol=1e-6)
    assert np.abs(H_fd + (P * b[:, None]).T @ P).max() > 0.4  # the printed form is wrong


@pytest.mark.parametrize("solver", ["fast", "book"])
def test_classification_accuracy_sparsity_vs_svc(solver):
    X, y = moons(200, seed=5)
    Xt, yt = moons(2000, seed=6)
    model = RelevanceVectorClassifier(kernel=RBF(0.5), solver=solver).fit(X, y)
    svc = SVC(kernel="rbf", gamma=2.0, C=1.0).fit(X, y)
    acc, acc_ref = model.score(Xt, yt), svc.score(Xt, yt)
    print(f"moons m=200 {solver}: RVC acc {acc:.4f} with {model.n_relevance_} RV; "
          f"SVC acc {acc_ref:.4f} with {len(svc.support_)} SV")
    assert acc >= acc_ref - 0.02
    assert model.n_relevance_ < len(svc.support_) / 3
    assert np.count_nonzero(model.weights_) == model.n_relevance_
    proba = model.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(Xt), np.where(proba[:, 1] > 0.5, 1, -1))


def test_classification_labels_and_bias():
    X, y = moons(150, seed=7)
    labels = np.where(y > 0, "up", "down")
    model = RelevanceVectorClassifier(kernel=RBF(0.5), bias=True).fit(X + 3.0, labels)
    assert set(model.predict(X + 3.0)) <= {"up", "down"}
    assert model.score(X + 3.0, labels) > 0.9
    assert len(model.weights_) == 151


def test_regression_bias_and_sklearn_clone():
    from sklearn.base import clone
    X, t = sinc_data(100, seed=8)
    model = RelevanceVectorRegressor(kernel=RBF(2.0), bias=True).fit(X, t + 5.0)
    assert abs(model.intercept_) > 1.0  # the constant column carries the offset
    Xt = np.linspace(-9, 9, 50)[:, None]
    mean, std = model.predict(Xt, return_std=True)
    Phi = np.c_[RBF(2.0)(Xt, model.X_fit_), np.ones(50)] if len(model.sigma_) > model.n_relevance_ \
        else RBF(2.0)(Xt, model.X_fit_)
    np.testing.assert_allclose(std ** 2, model.noise_ + np.einsum("ij,jk,ik->i", Phi, model.sigma_, Phi))
    assert np.sqrt(np.mean((mean - 5.0 - np.sinc(Xt[:, 0] / np.pi)) ** 2)) < 0.06
    c = clone(RelevanceVectorClassifier(kernel=RBF(0.3), solver="book"))
    assert c.get_params()["solver"] == "book" and c.get_params()["kernel__sigma"] == 0.3


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
    Xc, y = moons(30)
    with pytest.raises(ValueError, match="two classes"):
        RelevanceVectorClassifier().fit(Xc, np.ones(30))
    with pytest.raises(ValueError, match="update"):
        RelevanceVectorClassifier(update="x").fit(Xc, y)
    with pytest.raises(ValueError, match="features"):
        RelevanceVectorClassifier().fit(Xc, y).predict(np.ones((2, 3)))
    assert rvm.__name__ == "kernelclf.bayes.rvm"


# -- the estimator contract (issue 9) and bad input (issue 17) ------------------------

@pytest.mark.parametrize("Est", [RelevanceVectorClassifier, RelevanceVectorRegressor])
def test_fitted_model_keeps_its_own_kernel(Est):
    """Regression: the RVMs kept the user's kernel object (no clone into kernel_)."""
    X, y = moons(60, seed=5)
    target = y if Est is RelevanceVectorClassifier else y.astype(float)
    est = Est(kernel=RBF(1.0)).fit(X, target)
    before = est.predict(X)
    est.set_params(kernel__sigma=0.05)
    np.testing.assert_array_equal(est.predict(X), before)
    assert est.kernel_ is not est.kernel and est.kernel_.sigma == 1.0


@pytest.mark.parametrize("solver", ["fast", "book"])
def test_rvm_on_lists_of_strings_equal_the_explicit_feature_map(solver):
    """Regression: RelevanceVectorClassifier(kernel=Normalized(SpectrumKernel(2))) raised
    TypeError on strings (the relevance vectors were taken by array indexing). Reference:
    the same solver with the linear kernel on the normalised 2-mer count vectors."""
    from _string_data import promoters, spectrum_features

    from kernelclf.kernels import Linear, Normalized, SpectrumKernel

    S_tr, y_tr, S_te, _ = promoters()
    F = spectrum_features(S_tr + S_te, 2)
    F_tr, F_te = F[:len(S_tr)], F[len(S_tr):]
    kernel = Normalized(SpectrumKernel(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # the fast solver learns little from these 70 sequences (both models alike), and
        # says so (issue 27); the point here is that the two models are the same
        warnings.filterwarnings("ignore", "RelevanceVectorClassifier learned almost nothing",
                                UserWarning)
        rvc = RelevanceVectorClassifier(kernel=kernel, solver=solver).fit(S_tr, y_tr)
        ref = RelevanceVectorClassifier(kernel=Linear(), solver=solver).fit(F_tr, y_tr)
        rvr = RelevanceVectorRegressor(kernel=kernel, solver=solver).fit(S_tr, y_tr.astype(float))
        rref = RelevanceVectorRegressor(kernel=Linear(), solver=solver).fit(F_tr, y_tr.astype(float))
    np.testing.assert_array_equal(rvc.relevance_indices_, ref.relevance_indices_)
    assert rvc.X_fit_ == [S_tr[i] for i in rvc.relevance_indices_]
    np.testing.assert_allclose(rvc.decision_function(S_te), ref.decision_function(F_te),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(rvr.relevance_indices_, rref.relevance_indices_)
    mu, sd = rvr.predict(S_te, return_std=True)
    mu_r, sd_r = rref.predict(F_te, return_std=True)
    np.testing.assert_allclose(mu, mu_r, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sd, sd_r, rtol=1e-6)
    assert not hasattr(rvc, "n_features_in_") and not hasattr(rvr, "n_features_in_")


def test_rvm_bad_parameters_and_inputs_give_clear_errors():
    from sklearn.utils._param_validation import InvalidParameterError

    from kernelclf.kernels import IndefiniteKernelError

    X, y = moons(30, seed=2)
    t = y.astype(float)
    for Est, target in ((RelevanceVectorClassifier, y), (RelevanceVectorRegressor, t)):
        with pytest.raises(InvalidParameterError, match="tol"):
            Est(tol=-1.0).fit(X, target)
        with pytest.raises(InvalidParameterError, match="max_iter"):
            Est(max_iter=0).fit(X, target)
        with pytest.raises(InvalidParameterError, match="bias"):
            Est(bias=1).fit(X, target)
        # overflowing kernel values (a fixed width on huge inputs): an error at fit, not
        # zero relevance vectors
        for solver in ("fast", "book"):
            with pytest.raises(ValueError, match="NaN or infinity.*rescale"), \
                    np.errstate(all="ignore"):
                Est(kernel=RBF(1.0), solver=solver).fit(X * 1e300, target)
        with pytest.raises(IndefiniteKernelError, match="positive semi-definite"):
            Est(kernel=lambda A, B: -RBF(1.0)(A, B)).fit(X, target)
    with pytest.raises(ValueError, match="must be numbers"):
        RelevanceVectorRegressor().fit(X, np.where(y > 0, "up", "down"))
    with pytest.raises(ValueError, match="noise.*n_samples=1"):
        RelevanceVectorRegressor().fit(X[:1], t[:1])


@pytest.mark.parametrize("solver", ["book", "fast"])
def test_rvc_degenerate_inputs_give_correct_models(solver):
    """Regression: solver='book' on all-equal inputs (or inputs scaled by 1e-300) failed with
    'zero-size array to reduction operation'. With a constant kernel the inputs carry no
    information: balanced labels must give P = 1/2 everywhere, 12 against 8 a constant
    probability on the majority side, shrunk towards 1/2 by the prior (below 12/20).
    Issue 27: such a model (no better than the majority class) comes with a warning."""
    rng = np.random.default_rng(0)
    # RBF(1.0) at 1e-300 is numerically constant; the default width 'scale' would follow
    # the inputs' scale (test_default_width_follows_the_scale_of_the_inputs)
    for X, kernel in ((np.ones((20, 2)), None), (rng.normal(size=(20, 2)) * 1e-300, RBF(1.0))):
        for y, lo, hi in ((np.r_[np.ones(10), -np.ones(10)], 0.5 - 1e-6, 0.5 + 1e-6),
                          (np.r_[np.ones(12), -np.ones(8)], 0.5, 0.6)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)     # the constant Gram matrix
                with pytest.warns(UserWarning, match="learned almost nothing .* 20 examples"):
                    model = RelevanceVectorClassifier(kernel=kernel, solver=solver).fit(
                        X, y.astype(int))
            p = model.predict_proba(X)[:, 1]
            assert model.n_relevance_ >= 1 and np.ptp(p) < 1e-12
            assert lo <= p[0] <= hi
    # two points: a model whose probability of +1 is larger at the positive point, but no
    # better than a coin (issue 27: it used to come without a word)
    X2, y2 = np.array([[0.0, 0.0], [1.0, 0.5]]), np.array([-1, 1])
    with pytest.warns(UserWarning, match="learned almost nothing from these 2 examples"):
        p2 = RelevanceVectorClassifier(solver=solver).fit(X2, y2).predict_proba(X2)[:, 1]
    assert np.all(np.isfinite(p2)) and p2[1] > p2[0]
    assert np.max(np.abs(p2 - 0.5)) < 0.05 or np.mean((p2 > 0.5) == (y2 > 0)) <= 0.5


# ---- the marginalised weight prior (LKC Remark 3.14, Fig. 3.6) -----------------------

@pytest.mark.parametrize("a, b", [(0.5, 2.0), (1e-2, 1e2), (3.0, 0.1)])
def test_marginal_weight_prior_is_the_gamma_mixture_of_gaussians(a, b):
    from scipy import integrate, stats

    from kernelclf.bayes import marginal_weight_prior

    w = np.array([-3.0, -0.5, 0.0, 0.2, 1.0, 4.0])
    # Student t with 2a degrees of freedom and scale 1/sqrt(ab)
    np.testing.assert_allclose(marginal_weight_prior(w, a, b),
                               stats.t(df=2 * a, scale=1 / np.sqrt(a * b)).logpdf(w), rtol=1e-10)
    # direct integration over the precision tau ~ Gamma(shape a, scale b)
    for wi in (0.2, 1.0):
        val, _ = integrate.quad(lambda tau: stats.norm(0, 1 / np.sqrt(tau)).pdf(wi)
                                * stats.gamma(a, scale=b).pdf(tau), 0, np.inf, limit=200)
        assert marginal_weight_prior(wi, a, b, log=False) == pytest.approx(val, rel=1e-6)


def test_marginal_weight_prior_concentrates_as_a_to_0():
    from kernelclf.bayes import marginal_weight_prior

    # LKC Fig. 3.6 (left): b = 1/a; the smaller a, the lower the density away from 0
    # relative to the peak at 0, i.e. the prior favours exact zeros
    drops = [marginal_weight_prior(0.0, a, 1 / a) - marginal_weight_prior(1.0, a, 1 / a)
             for a in (1e-2, 1e-3, 1e-4)]
    assert drops[0] < drops[1] < drops[2]
    # two weights: one zero and one at 0.5 beat two at 0.25 (the "sparsity prior")
    a, b = 1e-3, 1e3
    one_zero = marginal_weight_prior(0.0, a, b) + marginal_weight_prior(0.5, a, b)
    both_small = 2 * marginal_weight_prior(0.25, a, b)
    assert one_zero > both_small
    with pytest.raises(ValueError, match="positive"):
        marginal_weight_prior(0.0, 0.0, 1.0)
