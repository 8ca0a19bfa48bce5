"""The third checkable exercise of each chapter (issue 39): for each new checker, a learner-style
test -- a right answer in three natural forms passes, each recorded mistake gets its own hint,
and a near miss is refused -- plus, where the answer is computed, a check of the reference
against an independent route."""
from __future__ import annotations

import numpy as np
import pytest

from kernelclf.book.exercises import check, registry

REG = registry()


def _right(label, answer):
    res = check(label, answer)
    assert res, res
    return res


def _refused(label, answer):
    res = check(label, answer)
    assert not res and res.answered, res
    return res


def _mistakes_get_their_hints(label):
    for wrong, hint in REG[label].wrong_answers:
        assert _refused(label, wrong).message == hint, (label, wrong)


# ---------------------------------------------------------------------------------- ch00
def test_ch00_ex_3_weighted_add():
    from kernelclf.bayespoint.billiard import oplus

    def by_formula(s, t, mu):
        c = s @ t
        r1 = mu * np.sqrt((2 - mu**2 * (1 - c)) / (1 + c))
        return r1 * s + (1 - mu**2 * (1 - c) - r1 * c) * t

    def by_angles(s, t, mu):
        # walk from t towards s along the great circle, by the angle whose chord is mu |t - s|
        phi = np.arccos(np.clip(s @ t, -1, 1))
        psi = 2 * np.arcsin(mu * np.sin(phi / 2))
        u = (s - np.cos(phi) * t) / np.sin(phi)
        return np.cos(psi) * t + np.sin(psi) * u

    def with_lists(s, t, mu):
        c = sum(a * b for a, b in zip(s, t))
        r1 = mu * ((2 - mu * mu * (1 - c)) / (1 + c)) ** 0.5
        r2 = 1 - mu * mu * (1 - c) - r1 * c
        return [r1 * a + r2 * b for a, b in zip(s, t)]

    for f in (by_formula, by_angles, with_lists, lambda s, t, mu: oplus(s, t, mu)):
        _right("ch00-ex-3", f)
    # the reference meets the two conditions that define s (+)_mu t
    for s, t, mu in REG["ch00-ex-3"].cases:
        p = REG["ch00-ex-3"].solution(s, t, mu)
        assert np.isclose(np.linalg.norm(p), 1) and np.isclose(
            np.linalg.norm(t - p), mu * np.linalg.norm(t - s))
    _mistakes_get_their_hints("ch00-ex-3")

    def near_miss(s, t, mu):   # drops the mu^2 (1 - c) of rho_2
        c = s @ t
        r1 = mu * np.sqrt((2 - mu**2 * (1 - c)) / (1 + c))
        return r1 * s + (1 - r1 * c) * t

    _refused("ch00-ex-3", near_miss)


# ---------------------------------------------------------------------------------- ch01
def test_ch01_ex_1_feature_space_distance():
    from kernelclf.kernels import Polynomial
    from kernelclf.kernels.gram_ops import feature_space_distances

    xa, xb = np.array([1.0, 2.0, 2.0]), np.array([2.0, 1.0, 0.0])
    explicit = np.linalg.norm(np.outer(xa, xa).ravel() - np.outer(xb, xb).ravel())
    via_kernel = feature_space_distances(Polynomial(2), xa[None, :], xb[None, :])[0, 0]
    assert REG["ch01-ex-1"].answer == pytest.approx(explicit, rel=1e-12)
    for answer in (explicit, float(via_kernel), np.sqrt(74), 74 ** 0.5):
        _right("ch01-ex-1", answer)
    _mistakes_get_their_hints("ch01-ex-1")
    _refused("ch01-ex-1", np.sqrt(73))       # a near miss: one product miscounted
    assert _refused("ch01-ex-1", 8.6).message.startswith("Close")


# ---------------------------------------------------------------------------------- ch02
def test_ch02_ex_1_smallest_eigenvalue():
    from fractions import Fraction

    from kernelclf.kernels import CallableKernel
    from kernelclf.kernels.gram_ops import min_eigenvalue

    pts = np.array([[0.0, 0.0], [1.0, 2.0]])
    sqdist = CallableKernel(lambda A, B: ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    assert REG["ch02-ex-1"].answer == pytest.approx(min_eigenvalue(sqdist(pts)), abs=1e-12)
    for answer in (-5, -5.0, Fraction(-5), np.linalg.eigvalsh(sqdist(pts))[:1]):
        _right("ch02-ex-1", answer)
    _mistakes_get_their_hints("ch02-ex-1")
    _refused("ch02-ex-1", -4.9)


# ---------------------------------------------------------------------------------- ch02b
def test_ch02b_ex_5_normalised_spectrum():
    from collections import Counter

    u, v = "the cat sat", "the hat sat"

    def counts(s, p):
        return Counter(s[i:i + p] for i in range(len(s) - p + 1))

    def value(p):
        a, b = counts(u, p), counts(v, p)
        return sum(n * b[w] for w, n in a.items()) / np.sqrt(
            sum(n * n for n in a.values()) * sum(n * n for n in b.values()))

    right = [value(p) for p in range(1, 6)]
    np.testing.assert_allclose(REG["ch02b-ex-5"].answer, right, rtol=1e-12)
    # exact fractions: 21/sqrt(21*23), 10/12, 6/9, 4/8, 2/7
    exact = [21 / np.sqrt(21 * 23), 10 / 12, 6 / 9, 4 / 8, 2 / 7]
    for answer in (right, np.array(exact), tuple(exact), np.array([exact])):
        _right("ch02b-ex-5", answer)
    _mistakes_get_their_hints("ch02b-ex-5")
    _refused("ch02b-ex-5", right[::-1])
    _refused("ch02b-ex-5", [value(p) for p in range(2, 7)])       # off by one in p
    # rounded to three places (0.49999999999999994 becomes 0.5, one digit): still "Close"
    assert _refused("ch02b-ex-5", np.round(right, 3)).message.startswith("Close")


# ---------------------------------------------------------------------------------- ch03
def test_ch03_ex_2_tau_with_the_fewest_updates():
    import math
    from fractions import Fraction

    from kernelclf.margin import Perceptron

    # the statement's sample, and the fact the checker's answer rests on
    rng = np.random.default_rng(6)
    Q = rng.uniform(0, 1, size=(1000, 2))
    s = Q.sum(axis=1) - 1
    keep = np.abs(s) > 0.05 * math.sqrt(2)
    Q, yq = Q[keep][:200], np.sign(s[keep][:200])
    taus = (0.1, 1.0, 10.0)
    ups = [Perceptron(max_epochs=5000).fit(np.column_stack([Q, np.full(200, t)]), yq).n_updates_
           for t in taus]
    assert REG["ch03-ex-2"].answer == taus[int(np.argmin(ups))]
    for answer in (taus[int(np.argmin(ups))], 1, Fraction(1), np.array([1.0])):
        _right("ch03-ex-2", answer)
    _mistakes_get_their_hints("ch03-ex-2")
    _refused("ch03-ex-2", 2)
    _refused("ch03-ex-2", min(ups))        # the count itself, not the tau


# ---------------------------------------------------------------------------------- ch04
def test_ch04_ex_1_book_objective_at_the_svm():
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF
    from kernelclf.margin import SupportVectorMachine

    X, y = make_moons(300, random_state=1)
    lam, m = 0.01, 300
    K = RBF(0.5)(X)
    ys = np.where(y > 0, 1.0, -1.0)

    def objective(model):       # through the dual coefficients, as the worked solution does
        beta = model.multipliers_ * ys
        return np.mean(np.maximum(0, 1 - ys * (K @ beta))) + lam * beta @ K @ beta

    tight = SupportVectorMachine(RBF(0.5), C=1 / (2 * lam * m), fit_bias=False, tol=1e-8).fit(X, y)
    default = SupportVectorMachine(RBF(0.5), C=1 / (2 * lam * m), fit_bias=False).fit(X, y)
    f = default.decision_function(X)
    by_hand = np.mean([max(0.0, 1 - t * v) for t, v in zip(ys, f)]) + lam * float(
        default.alpha_ @ K @ default.alpha_)
    for answer in (objective(tight), objective(default), by_hand):
        _right("ch04-ex-1", answer)
    # no primal point does better than the fitted one (the one-sided tolerance is safe)
    rng = np.random.default_rng(0)
    C = 1 / (2 * lam * m)
    for _ in range(10):
        beta = np.clip(tight.multipliers_ + 0.02 * C * rng.normal(size=m), 0, C) * ys
        worse = np.mean(np.maximum(0, 1 - ys * (K @ beta))) + lam * beta @ K @ beta
        assert worse > REG["ch04-ex-1"].answer
    _mistakes_get_their_hints("ch04-ex-1")
    _refused("ch04-ex-1", REG["ch04-ex-1"].answer * 1.002)      # a near miss
    assert _refused("ch04-ex-1", 0.284).message.startswith("Close")


def test_ch04_ex_4_reductions():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

    k, n = 26, 100
    labels = np.repeat(np.arange(k), 3)
    X = np.random.default_rng(0).normal(size=(len(labels), 2)) + labels[:, None]
    fitted = [len(w(LogisticRegression()).fit(X, labels).estimators_)
              for w in (OneVsRestClassifier, OneVsOneClassifier)]
    np.testing.assert_array_equal(REG["ch04-ex-4"].answer[:2], fitted)
    right = [26, 325, 2600, 200]
    for answer in (right, np.array(right, dtype=float), (k, k * (k - 1) // 2, k * n, 2 * n)):
        _right("ch04-ex-4", answer)
    _mistakes_get_their_hints("ch04-ex-4")
    _refused("ch04-ex-4", [26, 325, 2600, 199])


# ---------------------------------------------------------------------------------- ch05
def test_ch05_ex_1_which_machine_sees_the_diagonal():
    for answer in ("SVM", " svm ", ["SVM"], {"Svm"}):
        _right("ch05-ex-1", answer)
    _mistakes_get_their_hints("ch05-ex-1")
    _refused("ch05-ex-1", ["SVM", "LOOM"])          # two options where one is asked for
    assert "not one of the options" in _refused("ch05-ex-1", "the SVM").message


# ---------------------------------------------------------------------------------- ch06
def test_ch06_ex_4_posterior_variance():
    from fractions import Fraction

    from scipy import stats

    post = stats.beta(73, 35)
    assert REG["ch06-ex-4"].answer == pytest.approx(post.var(), rel=1e-12)
    draws = post.rvs(size=400_000, random_state=np.random.default_rng(0))
    assert REG["ch06-ex-4"].answer == pytest.approx(draws.var(), rel=0.01)
    for answer in (post.var(), Fraction(73 * 35, 108**2 * 109), post.std() ** 2):
        _right("ch06-ex-4", answer)
    _mistakes_get_their_hints("ch06-ex-4")
    _refused("ch06-ex-4", post.var() * 1.001)
    assert _refused("ch06-ex-4", 0.00201).message.startswith("Close")


# ---------------------------------------------------------------------------------- ch07
def test_ch07_ex_4_target_variance_at_a_training_input():
    from kernelclf.bayes import ARDRBF, GaussianProcessRegressor

    X6 = np.array([[0.5], [1.8], [3.0], [4.6], [6.0], [7.4]])
    t6 = np.array([0.23, 0.48, -0.37, -0.28, 0.32, -0.38])
    g = GaussianProcessRegressor(kernel=ARDRBF(1.0), noise=0.05).fit(X6, t6)
    _, sd = g.predict(X6[2:3], return_std=True)
    # an independent route: scikit-learn's GP with the noise as a white kernel
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGP
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import WhiteKernel

    sk = SkGP(kernel=SkRBF(1.0) + WhiteKernel(0.05), optimizer=None).fit(X6, t6)
    _, sd_sk = sk.predict(X6[2:3], return_std=True)   # includes the white noise
    for answer in (sd[0] ** 2, sd_sk[0] ** 2, np.array([sd[0] ** 2])):
        _right("ch07-ex-4", answer)
    _mistakes_get_their_hints("ch07-ex-4")
    _refused("ch07-ex-4", sd[0] ** 2 * 1.001)
    _refused("ch07-ex-4", float(g.predict(X6[3:4], return_std=True)[1][0] ** 2))  # X6[3]


# ---------------------------------------------------------------------------------- ch08
def _sinc_fit(**params):
    import warnings

    from kernelclf.bayes import RelevanceVectorRegressor
    from kernelclf.kernels import RBF

    rng = np.random.default_rng(0)
    Xs = rng.uniform(-10, 10, size=(100, 1))
    ts = np.sinc(Xs[:, 0] / np.pi) + 0.1 * rng.normal(size=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RelevanceVectorRegressor(kernel=RBF(2.0), **params).fit(Xs, ts)


def test_ch08_ex_1_evidence_gap_after_40_iterations():
    em = _sinc_fit(solver="book", update="em", max_iter=40)
    mk = _sinc_fit(solver="book", update="mackay", max_iter=40)
    gap = mk.evidence_trace_[-1] - em.evidence_trace_[-1]
    assert gap > 0                                      # MacKay gets further
    for answer in (gap, float(mk.log_evidence_ - em.log_evidence_), np.array([gap])):
        _right("ch08-ex-1", answer)
    _mistakes_get_their_hints("ch08-ex-1")
    _refused("ch08-ex-1", mk.evidence_trace_[-2] - em.evidence_trace_[-2])   # one step short
    assert _refused("ch08-ex-1", round(gap, 2)).message.startswith("Close")


def test_ch08_ex_2_effective_number_of_parameters():
    rvr = _sinc_fit(solver="book", max_iter=300)
    zeta = 1 - np.diag(rvr.sigma_) / rvr.theta_
    # the same number as a trace: n - trace(Sigma Theta^-1)
    as_trace = len(rvr.theta_) - np.trace(rvr.sigma_ @ np.diag(1 / rvr.theta_))
    for answer in (zeta.sum(), as_trace, sum(float(z) for z in zeta)):
        _right("ch08-ex-2", answer)
    assert 0 < zeta.sum() < rvr.n_relevance_
    _mistakes_get_their_hints("ch08-ex-2")
    _refused("ch08-ex-2", zeta.sum() * 1.001)


# ---------------------------------------------------------------------------------- ch09
def test_ch09_ex_4_fisher_direction():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    from kernelclf.bayes import FisherDiscriminant

    def with_package(X, y):
        w = FisherDiscriminant().fit(X, y).coef_
        return w / np.linalg.norm(w)

    def with_sklearn(X, y):      # LDA's coefficients are Sigma^-1 (mu_+ - mu_-) up to scale
        w = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).coef_[0]
        return w / np.linalg.norm(w)

    def with_unbiased_covariance(X, y):
        Xp, Xn = X[y > 0], X[y < 0]
        S = (np.cov(Xp.T) * (len(Xp) - 1) + np.cov(Xn.T) * (len(Xn) - 1)) / (len(y) - 2)
        w = np.linalg.inv(S) @ (Xp.mean(0) - Xn.mean(0))
        return (w / np.sqrt(np.sum(w**2))).tolist()

    for f in (with_package, with_sklearn, with_unbiased_covariance):
        _right("ch09-ex-4", f)
    _mistakes_get_their_hints("ch09-ex-4")

    def total_covariance_of_one_class(X, y):   # a near miss: the positives' covariance only
        w = np.linalg.solve(np.cov(X[y > 0].T), X[y > 0].mean(0) - X[y < 0].mean(0))
        return w / np.linalg.norm(w)

    _refused("ch09-ex-4", total_covariance_of_one_class)


# ---------------------------------------------------------------------------------- ch12
def test_ch12_ex_2_cosine_between_alpha_and_y():
    from kernelclf.book.exercises import ch12

    # the tolerance covers the billiard's own randomness: every seed's estimate passes
    cosines = [ch12._cosine_to_labels(random_state=seed) for seed in range(6)]
    assert max(cosines) - min(cosines) < REG["ch12-ex-2"].atol
    for c in cosines:
        _right("ch12-ex-2", c)
    _right("ch12-ex-2", np.array([cosines[0]]))
    _right("ch12-ex-2", round(cosines[0], 3))
    _mistakes_get_their_hints("ch12-ex-2")
    # the plain billiard, whatever its seed, is far off
    for seed in range(3):
        _refused("ch12-ex-2", ch12._cosine_to_labels(refresh=0.0, random_state=seed))
    _refused("ch12-ex-2", REG["ch12-ex-2"].answer - 0.01)


# ---------------------------------------------------------------------------------- ch13
def _band_sample():
    rng = np.random.default_rng(0)
    rng.normal(size=(60, 2))
    Xt = rng.normal(size=(150, 2)) * np.array([2.5, 0.7])
    yt = np.where(Xt[:, 1] + 0.25 * Xt[:, 0] + 0.3 * rng.normal(size=150) > 0, 1.0, -1.0)
    return Xt, yt


def test_ch13_ex_1_theta_at_c_1():
    from sklearn.svm import SVC

    from kernelclf.kernels import RBF
    from kernelclf.margin import SupportVectorMachine

    Xt, yt = _band_sample()
    ours = np.abs(SupportVectorMachine(RBF(1.5), C=1.0).fit(Xt, yt).decision_function(Xt)).max()
    sk = np.abs(SVC(C=1.0, gamma=RBF(1.5).gamma, tol=1e-6).fit(Xt, yt).decision_function(Xt)).max()
    for answer in (ours, sk, round(float(sk), 3)):
        _right("ch13-ex-1", answer)
    _mistakes_get_their_hints("ch13-ex-1")
    _refused("ch13-ex-1", 1.02 * sk)


def test_ch13_ex_4_cap_for_nu_4():
    from kernelclf.kernels import RBF
    from kernelclf.margin import RelaxedRMM

    for answer in (37, 37.0, np.int64(37), 150 // 4):
        _right("ch13-ex-4", answer)
    _mistakes_get_their_hints("ch13-ex-4")
    assert "whole number" in _refused("ch13-ex-4", 150 / 4).message
    # the cap holds on the chapter's sample, for nu = 4 and its neighbours
    Xt, yt = _band_sample()
    for nu in (3.0, 4.0, 6.0):
        r = RelaxedRMM(RBF(1.5), C=10.0, D=1.0, nu=nu).fit(Xt, yt)
        assert np.sum(np.abs(r.decision_function(Xt)) > r.t_ + 1e-3) <= 150 // nu


def test_ch13_ex_5_active_bounds():
    from kernelclf.kernels import RBF
    from kernelclf.margin import RelativeMarginMachine

    Xt, yt = _band_sample()
    counts = set()
    for tol in (1e-3, 1e-6):      # the count does not depend on the solver's tolerance
        m = RelativeMarginMachine(RBF(1.5), C=10.0, B=0.35, B_mode="relative",
                                  tol=tol).fit(Xt, yt)
        counts.add(int(np.sum(np.any(m.beta_ > 0, axis=1))))
        counts.add(int(np.sum(np.abs(m.decision_function(Xt)) >= m.B_ - 1e-4)))
    assert counts == {REG["ch13-ex-5"].answer}
    for answer in (counts.pop(), float(REG["ch13-ex-5"].answer), np.array(REG["ch13-ex-5"].answer)):
        _right("ch13-ex-5", answer)
    _mistakes_get_their_hints("ch13-ex-5")
    _refused("ch13-ex-5", REG["ch13-ex-5"].answer + 4)


# ---------------------------------------------------------------------------------- ch14
def test_ch14_ex_3_price_of_the_geometric_prior():
    from kernelclf.bounds import vc

    # independent of the training errors: the bound minus R_emp, from the formula of eq. 4.20
    g = float(vc.growth_exact(6000, 15))

    def term(prior):
        return np.sqrt(8 / 3000 * (np.log(4 / 0.05) + np.log(1 / prior) + g))

    by_formula = term(2.0**-4) - term(0.1)
    remp = np.linspace(0.45, 0.09, 10)              # any training errors give the same raise
    theta_d = [(d + 1) * (d + 2) // 2 for d in range(1, 11)]
    _, b_geo = vc.srm_select(remp, 3000, 0.05, theta_d, prior=0.5 ** np.arange(1, 11))
    _, b_uni = vc.srm_select(remp, 3000, 0.05, theta_d)
    for answer in (by_formula, b_geo[3] - b_uni[3], np.float32(by_formula)):
        _right("ch14-ex-3", answer)
    _mistakes_get_their_hints("ch14-ex-3")
    _refused("ch14-ex-3", by_formula * 1.01)
    assert _refused("ch14-ex-3", 0.00116).message.startswith("Close")


def test_ch14_ex_4_six_points_in_r4():
    from math import comb

    from kernelclf.bounds import shattering

    counts = {shattering.count_labelings(shattering.labelings_lp(
        np.random.default_rng(s).normal(size=(6, 4)), bias=False)) for s in range(3)}
    assert counts == {2 * sum(comb(5, i) for i in range(4))}
    for answer in (counts.pop(), 52.0, np.int32(52)):
        _right("ch14-ex-4", answer)
    _mistakes_get_their_hints("ch14-ex-4")
    _refused("ch14-ex-4", 53)


# ---------------------------------------------------------------------------------- ch15
def test_ch15_ex_3_best_grid_value():
    # the grid of App. C.6 written out: 2 sqrt(m) halved until it is at most 1/32
    grid = [2 * np.sqrt(1000)]
    while grid[-1] > 1 / 32:
        grid.append(grid[-1] / 2)
    grid = np.array(grid)
    f = (1 + 0.25 / grid**2) * (1 + grid**2)
    right = f.min()
    loop = min((1 + 0.25 / d**2) * (1 + d**2) for d in grid)
    expanded = min(1 + d**2 + 0.25 / d**2 + 0.25 for d in grid)
    for answer in (right, loop, expanded):
        _right("ch15-ex-3", answer)
    _mistakes_get_their_hints("ch15-ex-3")
    _refused("ch15-ex-3", np.sort(f)[1])               # the second best grid value
    assert _refused("ch15-ex-3", round(right, 3)).message.startswith("Close")


# ---------------------------------------------------------------------------------- ch16
def test_ch16_ex_2_nats_saved():
    from scipy import integrate

    from kernelclf.bounds import volume as vol

    def log_inv_cap(n, angle):      # ln(vol(sphere)/vol(cap)) by quadrature of sin^(n-2)
        whole = integrate.quad(lambda t: np.sin(t) ** (n - 2), 0, np.pi)[0]
        cap = integrate.quad(lambda t: np.sin(t) ** (n - 2), 0, angle)[0]
        return np.log(whole / cap)

    g = np.array([0.1, 0.3, 0.6])
    by_angles = [log_inv_cap(100, 2 * np.arcsin(x / 2)) - log_inv_cap(100, np.arcsin(x))
                 for x in g]
    by_package = (vol.log_volume_ratio(100, vol.cap_x_from_radius(g))
                  - vol.log_volume_ratio(100, vol.cap_x_from_margin(g)))
    np.testing.assert_allclose(REG["ch16-ex-2"].answer, by_angles, rtol=1e-6)
    for answer in (by_angles, by_package, tuple(float(v) for v in by_package)):
        _right("ch16-ex-2", answer)
    _mistakes_get_their_hints("ch16-ex-2")
    _refused("ch16-ex-2", by_package[::-1])


def test_ch16_ex_3_sample_size_for_seventy_percent():
    ell = np.arange(7, 5000)
    direct = (ell * np.log(2) - np.log(100) + np.log(20) + 2 * np.log(ell) + 1) / ell
    first = int(ell[np.argmax(direct < 0.7)])
    assert np.all(np.diff(direct) < 0)               # one crossing only
    # a loop that stops at the first ell below 0.7
    n = 7
    while (n * np.log(2) - np.log(100) + np.log(20) + 2 * np.log(n) + 1) / n >= 0.7:
        n += 1
    for answer in (first, n, float(first)):
        _right("ch16-ex-3", answer)
    _mistakes_get_their_hints("ch16-ex-3")
    _refused("ch16-ex-3", first - 1)


# ---------------------------------------------------------------------------------- ch17
def test_ch17_ex_3_active_landmarks():
    from kernelclf.book.exercises import ch17
    from kernelclf.bounds import rademacher as rb

    X = ch17._toy_points()
    lam = rb.rademacher_T2(X, X, 0.5, 0.9, return_result=True).lam
    on = lam > 1e-6 * lam.max()
    # they are the points at the ends of the long axis, and the count does not hinge on the
    # threshold
    assert np.allclose(np.abs(X[on, 0]), np.abs(X[:, 0]).max())
    assert {ch17._active_landmarks(floor=f) for f in (1e-3, 1e-6, 1e-9)} == {int(on.sum())}
    for answer in (int(on.sum()), float(on.sum()), np.count_nonzero(on)):
        _right("ch17-ex-3", answer)
    _mistakes_get_their_hints("ch17-ex-3")
    _refused("ch17-ex-3", int(on.sum()) + 2)



def test_ch17_ex_2_replace_one_bound_at_lambda_025():
    from kernelclf.bounds import stability as sb

    beta = float(sb.regularized_beta(25, 0.25, 1, 0.5**2))   # C_l = 1, sup k = R^2
    right = 2 * beta
    assert right == pytest.approx(2 * 1 * 0.25 / (2 * 0.25 * 25))
    for answer in (right, 0.5**2 / (0.25 * 25), 1 / 25):
        _right("ch17-ex-2", answer)
    _mistakes_get_their_hints("ch17-ex-2")
    _refused("ch17-ex-2", 2 * right)
    # the chapter's stability table: the exercise's lambda is not one of its rows
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "book"
            / "17_compression_stability_rademacher.md").read_text(encoding="utf-8")
    rows = re.search(r"for lam in \[([^\]]*)\]:", page).group(1)
    assert 0.25 not in [float(v) for v in rows.split(",")]

# ---------------------------------------------------------------------------------- ch18
def test_ch18_ex_1_growth_of_the_pac_bayes_margin_bound():
    import math

    from kernelclf.bounds import pac_bayes_margin as pbm

    # the bound's own function at two deltas (any margin, any dimension): the difference
    # does not depend on them
    diffs = [float(pbm.pac_bayes_margin_bound(150, G, 1e-6, n=n)
                   - pbm.pac_bayes_margin_bound(150, G, 0.05, n=n))
             for G, n in ((0.95, 5), (0.99, 5), (0.97, None))]
    assert np.ptp(diffs) < 1e-12
    right = diffs[0]
    for answer in (right, 2 * (math.log(1e6) - math.log(20)) / 150,
                   2 / 150 * np.log(0.05 / 1e-6)):
        _right("ch18-ex-1", answer)
    _mistakes_get_their_hints("ch18-ex-1")
    _refused("ch18-ex-1", 2 * math.log(0.05 / 1e-5) / 150)    # delta = 1e-5 instead of 1e-6
    assert _refused("ch18-ex-1", round(right, 3)).message.startswith("Close")


# ---------------------------------------------------------------------------------- appendix
def test_appa_ex_4_bennett_poll_size():
    from kernelclf.bounds import concentration as conc

    p, eps = 0.01, 0.05
    var, c = p * (1 - p), 1 - p
    n = np.arange(1, 5000)
    # Bennett written out (LKC Theorem A.114, sum deviation t = n eps), and in the other
    # common form (n sigma^2 / c^2) h2(eps c / sigma^2), h2(u) = (1 + u) ln(1 + u) - u
    t = n * eps
    u = t * c / (n * var)
    book = np.exp(-(t / c) * ((1 + 1 / u) * np.log(1 + u) - 1))
    u2 = eps * c / var
    other = np.exp(-n * var / c**2 * ((1 + u2) * np.log(1 + u2) - u2))
    first = int(n[book <= 0.01][0])
    assert first == int(n[other <= 0.01][0])
    assert np.all(np.diff(book) < 0)                         # one crossing only
    assert first < int(n[conc.bernstein(n, eps, var, c) <= 0.01][0])
    for answer in (first, float(first), np.int64(first)):
        _right("appa-ex-4", answer)
    _mistakes_get_their_hints("appa-ex-4")
    _refused("appa-ex-4", first - 1)
    _refused("appa-ex-4", first + 0.4)


def test_appa_ex_1_poll_size_from_the_books_mcdiarmid():
    # the book's form (LKC A.119) with c_i = 1/n: exp(-n eps^2 / 2) per tail
    n = np.arange(1, 10_000)
    both = 2 * np.exp(-n * 0.05**2 / 2)
    first = int(n[both <= 0.01][0])
    assert first == int(np.ceil(2 * np.log(200) / 0.05**2))
    for answer in (first, float(first), np.int64(first)):
        _right("appa-ex-1", answer)
    _mistakes_get_their_hints("appa-ex-1")
    _refused("appa-ex-1", first - 1)
    _refused("appa-ex-1", 2 * np.log(200) / 0.05**2)       # the bound itself, not a whole number
