"""Tests of kernelclf.bounds.stability (book chapter 17; LKC §5.3, App. C.9; errata E8, E9).

References: the piecewise definition of eq. (5.20) re-typed, Lipschitz constants checked
numerically, Theorem 5.32 inverted by hand (McDiarmid's exponent), brute-force retraining
of an SVM without bias (the eq. 5.19 setting) with one example removed or replaced, and a
simulation with a known Bayes-optimal target.
"""
import numpy as np
import pytest

from kernelclf.bounds import stability as S
from kernelclf.kernels import RBF
from kernelclf.margin import SupportVectorMachine


def ball_sample(m, R, seed, n=3, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    X = R * X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0.5, 1.0, (m, 1))
    y = np.where(X[:, 0] + noise * R * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


def sphere(k, R, seed, n=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((k, n))
    return R * X / np.linalg.norm(X, axis=1, keepdims=True), np.where(rng.random(k) < 0.5, 1.0, -1.0)


def svm(lam, m, kernel=None):
    """eq. (5.19) with the hinge loss: C = 1/(2 lambda m) (LKC eq. 2.47), no bias."""
    return SupportVectorMachine(kernel=kernel, C=1 / (2 * lam * m), fit_bias=False, solver="qp",
                                tol=1e-10)


# -- eq. (5.20), erratum E8 ---------------------------------------------------------------
def test_clipped_loss_e8_piecewise():
    t = np.linspace(-3, 3, 601)
    for tau in (0.5, 1.0, 2.0):
        ref = np.where(t > tau, 0.0, np.where(t >= 0, 1 - t / tau, 1.0))
        np.testing.assert_allclose(S.clipped_loss(t, 1.0, tau), ref, atol=1e-15)
        # upper bound on the zero-one loss, 1/tau-Lipschitz, values in [0, 1]
        assert np.all(S.clipped_loss(t, 1.0, tau) >= (t <= 0))
        slope = np.abs(np.diff(S.clipped_loss(t, 1.0, tau))) / np.diff(t)
        assert slope.max() <= 1 / tau + 1e-9
    # the printed first case ("0 if yt > 1") would make l_2 jump from 0.5 to 0 at yt = 1
    assert S.clipped_loss(1.0 + 1e-9, 1.0, 2.0) == pytest.approx(0.5, abs=1e-8)
    printed = lambda t, tau: np.where(t > 1, 0.0, np.where(t >= 0, 1 - t / tau, 1.0))  # noqa: E731
    assert printed(1.0 + 1e-9, 2.0) == 0.0 and printed(1.0, 2.0) == 0.5
    # for tau < 1 the printed version has no value on (tau, 1]; ours is 0 there
    assert S.clipped_loss(0.75, 1.0, 0.5) == 0.0
    assert S.clipped_empirical_risk([2.0, -1.0, 0.5], [1, 1, 1], 1.0) == pytest.approx(0.5)


def test_lipschitz_examples_5_29_5_30():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 3, (2, 10_000))
    y = np.where(rng.random(10_000) < 0.5, 1.0, -1.0)
    assert np.all(np.abs(S.hinge_loss(a, y) - S.hinge_loss(b, y)) <= np.abs(a - b) + 1e-12)
    t = rng.normal(0, 3, 10_000)
    d = np.abs(S.epsilon_insensitive_loss(a, t, 0.3) - S.epsilon_insensitive_loss(b, t, 0.3))
    assert np.all(d <= np.abs(a - b) + 1e-12)


# -- the bounds, re-typed -----------------------------------------------------------------
def test_thm_5_32_inverted_by_mcdiarmid():
    remp, m, beta, delta, b = 0.1, 500, 0.002, 0.05, 1.0
    bound = S.stability_bound(remp, m, beta, delta, b)
    eps = bound - remp - 2 * beta
    assert np.exp(-m * eps**2 / (2 * (4 * m * beta + b) ** 2)) == pytest.approx(delta)
    loo = S.stability_bound_loo(remp, m, beta, 0.0021, delta, b)
    eps = loo - remp - beta
    assert np.exp(-m * eps**2 / (2 * (2 * m * (beta + 0.0021) + b) ** 2)) == pytest.approx(delta)
    assert S.eta_stability_bound(remp, m, beta * m, delta, b) == pytest.approx(bound)
    assert S.replace_one_stability(beta) == 2 * beta


def test_ex_5_33_and_thm_5_34_specialisations():
    m, lam, delta, b, k2 = 400, 0.3, 0.05, 2.0, 1.7
    slack = 37.0
    ref = (slack + k2 / lam) / m + np.sqrt(2 * (2 * k2 / lam + b) ** 2 * np.log(1 / delta) / m)
    assert S.svr_stability_bound(slack, m, lam, delta, b, sup_k=k2) == pytest.approx(ref)
    tau, remp = 0.7, 0.12
    ref = (remp + k2 / (lam * m * tau**2)
           + np.sqrt(2 * (2 * k2 / (lam * tau**2) + 1) ** 2 * np.log(1 / delta) / m))
    assert S.classification_stability_bound(remp, m, lam, delta, tau, k2) == pytest.approx(ref)
    # an algorithm minimising the hinge loss (Lipschitz 1) has beta = sup_k / (2 lam m tau)
    hinge = S.classification_stability_bound(remp, m, lam, delta, tau, k2, loss_lipschitz=1.0)
    beta = k2 / (2 * lam * m * tau)
    assert hinge == pytest.approx(S.stability_bound(remp, m, beta, delta, 1.0))
    # soft SVC: Thm 5.34 with tau = sup_k = 1 and R^1_emp <= xi'1/m
    assert S.soft_svc_stability_bound(slack, m, lam, delta) == pytest.approx(
        S.classification_stability_bound(slack / m, m, lam, delta))


def test_soft_svc_printed_formula_differs_from_thm_5_34():
    """Errata candidate: LKC p. 193 prints 2 sqrt((1+lam)^2 ln(1/delta)/(lam^2 m)); Thm 5.34
    with kappa = tau = 1 gives sqrt(2) (2/lam + 1) sqrt(ln(1/delta)/m)."""
    m, delta = 1000, 0.05
    lam = np.array([0.01, 0.1, 1.0, 1.4, 1.5, 10.0])
    derived = S.soft_svc_stability_bound(0.0, m, lam, delta)
    printed = S.soft_svc_stability_bound(0.0, m, lam, delta, printed=True)
    # the two deviation terms cross at lam = sqrt(2)
    assert np.all((printed < derived) == (lam < np.sqrt(2)))
    # ratio -> sqrt(2) as lam -> 0
    dev_ratio = (derived[0] - 1 / (lam[0] * m)) / (printed[0] - 1 / (lam[0] * m))
    assert dev_ratio == pytest.approx((np.sqrt(2) * 2.01) / (2 * 1.01), rel=1e-9)


def test_minimal_lambda_makes_bound_trivial_below():
    m, b = 300, 1.0
    lam0 = S.minimal_lambda(m, b)
    assert lam0 == pytest.approx(1 / m)
    assert S.stability_bound(0.0, m, S.regularized_beta(m, 0.5 * lam0), 0.05, b) > b


def test_bad_input():
    with pytest.raises(ValueError, match="tau"):
        S.clipped_loss(1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="lam"):
        S.regularized_beta(10, -1.0)
    with pytest.raises(ValueError, match="delta"):
        S.stability_bound(0.1, 10, 0.1, 0.0)
    with pytest.raises(ValueError, match="mode"):
        S.empirical_stability(svm(1, 5), np.zeros((5, 2)), np.ones(5), np.zeros((1, 2)),
                              np.ones(1), mode="swap")
    with pytest.raises(ValueError, match="X_new"):
        S.empirical_stability(svm(1, 5), np.zeros((5, 2)), np.ones(5), np.zeros((1, 2)),
                              np.ones(1), mode="replace")


# -- Theorem 5.31 against brute-force retraining ------------------------------------------------
@pytest.mark.parametrize("R,lam,seed", [(0.5, 1.0, 0), (0.5, 0.05, 1), (2.0, 0.1, 2),
                                        (1.0, 0.02, 3)])
def test_empirical_stability_below_beta_m_linear(R, lam, seed):
    m = 25
    X, y = ball_sample(m, R, seed)
    Xe, ye = sphere(300, R, seed + 10)
    meas = S.empirical_stability(svm(lam, m), X, y, Xe, ye)
    beta = S.regularized_beta(m, lam, C_l=1.0, sup_k=R**2)
    # sup over all ||x|| <= R of |f_z(x) - f_z\i(x)| is R ||w_z - w_z\i||
    assert meas.rkhs_change * R <= beta * (1 + 1e-6)
    assert meas.output_change <= beta * (1 + 1e-6)
    assert meas.beta <= beta * (1 + 1e-6)
    # Theorem 5.27: replacing an example costs at most 2 beta_m
    Xn, yn = ball_sample(m, R, seed + 20)
    rep = S.empirical_stability(svm(lam, m), X, y, Xe, ye, mode="replace", X_new=Xn, y_new=-yn)
    assert rep.beta <= S.replace_one_stability(beta) * (1 + 1e-6)


def test_e9_sup_k_not_squared():
    """E9: with sup k(x,x) = R^2 < 1 the printed kappa^2 = (sup k)^2 is violated; sup k is not."""
    m, R, lam = 25, 0.5, 1.0
    X, y = ball_sample(m, R, 0)
    Xe, ye = sphere(300, R, 10)
    meas = S.empirical_stability(svm(lam, m), X, y, Xe, ye)
    corrected = S.regularized_beta(m, lam, 1.0, sup_k=R**2)
    printed = S.regularized_beta(m, lam, 1.0, sup_k=R**4)
    assert printed < meas.rkhs_change * R <= corrected * (1 + 1e-6)
    assert meas.rkhs_change * R > 0.9 * corrected            # Theorem 5.31 is nearly tight here


def test_empirical_stability_below_beta_m_rbf():
    m, lam = 25, 0.05
    X, y = ball_sample(m, 1.0, 4)
    Xe, ye = sphere(200, 1.0, 5)
    meas = S.empirical_stability(svm(lam, m, RBF(0.7)), X, y, Xe, ye, indices=range(0, m, 3))
    beta = S.regularized_beta(m, lam, 1.0, sup_k=1.0)          # k(x, x) = 1 for the RBF kernel
    assert meas.rkhs_change <= beta * (1 + 1e-6)               # sup_x |df(x)| <= ||df|| * 1
    assert meas.beta <= beta * (1 + 1e-6)
    # clipped loss l_tau: (1/tau)-Lipschitz, so its stability is at most beta / tau
    tau = 0.5
    clip = S.empirical_stability(svm(lam, m, RBF(0.7)), X, y, Xe, ye, indices=range(0, m, 3),
                                 loss=lambda f, t: S.clipped_loss(f, t, tau))
    assert clip.beta <= beta / tau * (1 + 1e-6)


def test_simulation_thm_5_34_holds():
    """R[sign f] <= bound in >= 1 - delta of draws (RBF SVM, hinge loss, so loss_lipschitz=1)."""
    delta, m, lam, tau = 0.1, 200, 0.05, 1.0
    rng = np.random.default_rng(7)
    fails = 0
    for s in range(10):
        X = rng.uniform(-1, 1, (m, 2))
        y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
        flip = rng.random(m) < 0.1
        y[flip] *= -1
        est = svm(lam, m, RBF(0.5)).fit(X, y)
        Xt = rng.uniform(-1, 1, (20_000, 2))
        yt = np.where(Xt[:, 0] * Xt[:, 1] > 0, 1.0, -1.0)
        r = 0.1 + 0.8 * np.mean(np.sign(est.decision_function(Xt)) != yt)
        remp = S.clipped_empirical_risk(est.decision_function(X), y, tau)
        fails += r > S.classification_stability_bound(remp, m, lam, delta, tau, 1.0,
                                                      loss_lipschitz=1.0)
    assert fails / 10 <= delta
