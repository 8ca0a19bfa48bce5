"""Tests of kernelclf.bounds.report and the modules it is made of (kernelclf.bounds.report_tags:
the bounds, the declared tags and the cost of a row; kernelclf.bounds.report_rows: the rows of
each family of bounds): which bounds apply, and that every value is the bound function
evaluated at inputs computed here independently (from the dual coefficients and the Gram
matrix, least squares, or a separately fitted SVM)."""
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from kernelclf.bayes import GaussianProcessClassifier, GaussianProcessRegressor, RelevanceVectorClassifier
from kernelclf.bayespoint import BayesPointMachine
from kernelclf.bounds import compression as cb
from kernelclf.bounds import covering as cov
from kernelclf.bounds import format_report, report, vc
from kernelclf.bounds import margin as mb
from kernelclf.bounds import pac_bayes_margin as pb
from kernelclf.bounds import rademacher as rd
from kernelclf.bounds import stability as sb
from kernelclf.bounds.report_tags import BOUND_NAMES
from kernelclf.datasets import make_linear_separable
from kernelclf.kernels import RBF, Linear
from kernelclf.margin import (
    AdaptiveMarginMachine,
    KernelPerceptron,
    Perceptron,
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    SupportVectorMachine,
)

DELTA = 0.05


def separable(m=200, dim=3, margin=0.3, seed=0, n_test=0):
    X, y = make_linear_separable(m + n_test, dim, margin=margin, random_state=seed)
    return (X[:m], y[:m]) if n_test == 0 else (X[:m], y[:m], X[m:], y[m:])


def noisy(m=120, dim=3, seed=1, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (m, dim))
    y = np.sign(X @ np.arange(1.0, dim + 1) + 0.3)
    y[rng.choice(m, int(flip * m), replace=False)] *= -1
    return X, y


def by_name(records):
    return {r["name"]: r for r in records}


def applicable(records):
    return {r["name"] for r in records if r["applicable"]}


MARGIN = {"PAC margin bound", "Fat-shattering bound", "TR margin bound", "Robust margin bound",
          "PAC-Bayes margin bound"}
VC = {"VC bound", "PAC VC bound"}
PERC = {"Compression bound", "Mistake bound (updates)", "Mistake bound (Novikoff)"}

CASES = [
    ("perceptron", lambda: Perceptron(), "sep", VC | MARGIN | PERC),
    ("kernel perceptron", lambda: KernelPerceptron(RBF(1.0)), "sep", MARGIN | PERC),
    ("hard SVM", lambda: SupportVectorMachine(hard_margin=True, fit_bias=False, solver="qp",
                                              tol=1e-10), "sep",
     VC | MARGIN | {"Compression bound", "Rademacher bound F_E"}),
    ("soft SVM", lambda: SupportVectorMachine(C=1.0, fit_bias=False), "noisy",
     {"VC bound", "Robust margin bound", "Soft-margin bound", "Lossy compression bound",
      "Stability bound", "Rademacher bound F_E"}),
    ("soft SVM with bias", lambda: SupportVectorMachine(C=1.0), "noisy",
     {"VC bound", "Robust margin bound", "Soft-margin bound", "Lossy compression bound",
      "Rademacher bound F_E"}),
    ("AMM", lambda: AdaptiveMarginMachine(lam=0.5), "noisy",
     {"VC bound", "Robust margin bound", "AMM bound", "Rademacher bound F_E"}),
    ("AMM separable", lambda: AdaptiveMarginMachine(lam=0.5), "sep",
     VC | MARGIN | {"AMM bound", "Rademacher bound F_E"}),
    ("BPM billiard", lambda: BayesPointMachine(random_state=0, tol=1e-2, max_bounces=300), "sep",
     VC | MARGIN),
    ("BPM perceptron", lambda: BayesPointMachine(method="perceptron", n_perceptrons=10,
                                                 random_state=0), "sep", VC | MARGIN),
    ("RMM", lambda: RelativeMarginMachine(C=1.0, B=0.5, B_mode="relative"), "noisy",
     {"VC bound", "Robust margin bound", "Soft-margin bound", "Rademacher bound F_E",
      "Rademacher bound RMM"}),
    ("relaxed RMM", lambda: RelaxedRMM(C=1.0, D=1.0), "noisy",
     {"VC bound", "Robust margin bound", "Soft-margin bound", "Rademacher bound F_E"}),
    ("Sigma-SVM", lambda: SigmaSVM(C=1.0, D=0.5), "noisy",
     {"VC bound", "Robust margin bound", "Soft-margin bound", "Rademacher bound F_E",
      "Rademacher bound Σ-SVM"}),
    ("GP", lambda: GaussianProcessClassifier(RBF(1.0), optimizer=None), "noisy",
     {"Robust margin bound", "Stability bound"}),
    ("RVM", lambda: RelevanceVectorClassifier(RBF(1.0)), "noisy", {"Robust margin bound"}),
]


@pytest.mark.parametrize("label, make, data, expected", CASES, ids=[c[0] for c in CASES])
def test_expected_bounds_apply(label, make, data, expected):
    X, y = separable(60) if data == "sep" else noisy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y)
    recs = report(est, X, y, DELTA)
    assert [r["name"] for r in recs] == BOUND_NAMES
    assert applicable(recs) == expected
    for r in recs:
        if r["applicable"]:
            assert r["trivial"] == (r["value"] >= 1.0)
            assert (r["reason"] == "") == math.isfinite(r["value"])   # every inf says why
            assert r["inputs"] and not math.isnan(r["value"])
        else:
            assert r["trivial"] is None and math.isnan(r["value"]) and r["reason"]
        assert r["source"] and r["skipped"] is False
    text = format_report(recs)
    for name in expected:
        assert name in text
    for r in recs:
        if r["reason"]:
            assert r["reason"] in text
    short = format_report(recs, show_inapplicable=False)
    assert all(r["name"] in short for r in recs if r["applicable"])
    assert "n/a" not in short


# ------------------------------------------------------------------------------------------
# values against the bound functions at independently computed inputs
# ------------------------------------------------------------------------------------------
def robust_min(gm, m, varsigma):
    """min over gamma in the observed geometric margins (and varsigma) of eq. 4.33."""
    cands = np.r_[np.unique(gm[(gm > 0) & (gm <= varsigma)]), varsigma]
    vals = []
    for g in cands:
        Dg = np.sqrt(np.sum(np.maximum(0.0, g - gm) ** 2))
        vals.append(float(mb.robust_margin_bound(m, 65 * (varsigma + 3 * Dg) ** 2 / g**2, DELTA)))
    return min(vals)


def test_hard_svm_values_from_the_dual():
    X, y = separable(400, 3, margin=0.5, seed=3)
    m = len(y)
    svm = SupportVectorMachine(hard_margin=True, fit_bias=False, solver="qp", tol=1e-10).fit(X, y)
    r = by_name(report(svm, X, y, DELTA))
    G = X @ X.T
    a = svm.multipliers_ * y                     # signed coefficients from the dual
    f = G @ a
    wn = np.sqrt(a @ G @ a)
    gamma = np.min(y * f) / wn
    vs = np.sqrt(np.max(np.diag(G)))
    assert gamma >= 0.5 - 1e-6                   # the generator's margin is attained or beaten
    assert gamma >= np.sqrt(32 / m) * vs         # premise of Theorem 4.32: a finite value
    assert r["PAC margin bound"]["value"] == pytest.approx(float(mb.pac_margin_bound(m, gamma, DELTA, vs)),
                                                           rel=1e-6)
    assert np.isfinite(r["PAC margin bound"]["value"])
    assert r["Fat-shattering bound"]["value"] == pytest.approx(
        float(cov.fat_shattering_bound(m, 64 * vs**2 / gamma**2, DELTA)), rel=1e-6)
    assert r["TR margin bound"]["value"] == pytest.approx(float(mb.tr_margin_bound(m, gamma, DELTA, vs)),
                                                          rel=1e-6)
    Gamma = np.min(y * f / (wn * np.linalg.norm(X, axis=1)))
    assert r["PAC-Bayes margin bound"]["value"] == pytest.approx(
        float(pb.pac_bayes_margin_bound(m, Gamma, DELTA, 3)), rel=1e-6)
    assert r["PAC-Bayes margin bound"]["inputs"]["n"] == 3
    # the note states the dimension used (it once said "n = inf" for every kernel)
    assert r["PAC-Bayes margin bound"]["note"] == "n = 3: feature space R^3, d = min(m, n)"
    assert r["VC bound"]["value"] == pytest.approx(float(vc.vc_dimension_bound(0.0, m, DELTA, 3)))
    assert r["PAC VC bound"]["value"] == pytest.approx(float(vc.pac_dimension_bound(m, DELTA, 3)))
    # support vectors: the points on the margin (KKT), general position -> exactly those
    d = int(np.sum(np.abs(y * f / (np.min(y * f)) - 1) < 1e-5))
    assert r["Compression bound"]["inputs"]["d"] == d
    assert r["Compression bound"]["value"] == pytest.approx(
        float(cb.pac_compression_bound(m, d, DELTA, True)))
    assert r["Compression bound"]["value"] < 1
    assert r["Robust margin bound"]["value"] == pytest.approx(robust_min(y * f / wn, m, vs), rel=1e-6)
    xi = np.maximum(0, 1 - y * f).sum()
    assert r["Rademacher bound F_E"]["value"] == pytest.approx(
        float(rd.svm_margin_bound(xi, 1.0, 0.5 * wn**2, np.trace(G), m, DELTA)), rel=1e-6)


def test_pac_bayes_note_names_the_dimension_used():
    X, y = separable(60, 2, margin=0.3, seed=4)
    rbf = SupportVectorMachine(RBF(1.0), hard_margin=True, fit_bias=False).fit(X, y)
    rec = by_name(report(rbf, X, y, DELTA))["PAC-Bayes margin bound"]
    assert rec["applicable"] and rec["inputs"]["n"] == math.inf and rec["inputs"]["d"] == len(y)
    assert rec["note"] == "n = inf: infinite feature space, d = m"
    lin = SupportVectorMachine(hard_margin=True, fit_bias=True).fit(X, y)
    rec = by_name(report(lin, X, y, DELTA))["PAC-Bayes margin bound"]
    assert rec["inputs"]["n"] == 3 and "R^3" in rec["note"] and "inf" not in rec["note"]


def test_soft_svm_values_stability_and_bias_augmentation():
    X, y = noisy(150)
    m = len(y)
    G = X @ X.T
    for fit_bias in (False, True):
        svm = SupportVectorMachine(C=0.5, fit_bias=fit_bias, solver="qp", tol=1e-10).fit(X, y)
        r = by_name(report(svm, X, y, DELTA))
        a = svm.multipliers_ * y
        b = svm.intercept_
        f = G @ a + b
        wn = np.sqrt(a @ G @ a + b**2)           # (w, b) augmented
        vs = np.sqrt(np.max(np.diag(G)) + (1.0 if b != 0 else 0.0))
        xi = np.maximum(0, 1 - y * f)
        remp = np.mean(y * f <= 0)
        assert remp > 0
        d_eff = 65 * (vs * wn + 3 * np.linalg.norm(xi)) ** 2
        assert r["Soft-margin bound"]["value"] == pytest.approx(
            float(mb.robust_margin_bound(m, d_eff, DELTA)), rel=1e-6)
        d = int(np.sum(svm.multipliers_ > 1e-8 * svm.multipliers_.max()))
        assert r["Lossy compression bound"]["value"] == pytest.approx(
            float(cb.lossy_compression_bound(m, d, remp, DELTA, True)), rel=1e-6)
        trK = np.trace(G) + (m if b != 0 else 0)
        assert r["Rademacher bound F_E"]["value"] == pytest.approx(
            float(rd.svm_margin_bound(xi.sum(), 1.0, 0.5 * wn**2, trK, m, DELTA)), rel=1e-6)
        assert r["VC bound"]["inputs"]["vartheta"] == 3 + fit_bias
        assert r["Robust margin bound"]["value"] == pytest.approx(robust_min(y * f / wn, m, vs),
                                                                  rel=1e-6)
        if fit_bias:
            assert not r["Stability bound"]["applicable"]
            assert "bias" in r["Stability bound"]["reason"]
        else:
            lam = 1 / (2 * 0.5 * m)              # C = 1/(2 lambda m)
            rtau = np.mean(np.clip(1 - y * f, 0, 1))
            assert r["Stability bound"]["value"] == pytest.approx(float(
                sb.classification_stability_bound(rtau, m, lam, DELTA, tau=1.0,
                                                  sup_k=np.max(np.diag(G)), loss_lipschitz=1.0)))


def test_amm_value_from_the_lp_solution():
    X, y = noisy(80)
    m = len(y)
    lam = 0.5
    amm = AdaptiveMarginMachine(lam=lam).fit(X, y)
    r = by_name(report(amm, X, y, DELTA))
    G = X @ X.T
    a = amm.multipliers_
    wn = np.sqrt((a * y) @ G @ (a * y))
    vs = np.sqrt(np.max(np.diag(G)))
    c = np.maximum(0, amm.slack_ - lam * a * np.diag(G))
    d_eff = 65 * (vs * wn + 3 * c.sum()) ** 2
    assert r["AMM bound"]["inputs"]["d_eff"] == pytest.approx(d_eff, rel=1e-9)
    assert r["AMM bound"]["value"] == pytest.approx(float(mb.robust_margin_bound(m, d_eff, DELTA)))


@pytest.mark.parametrize("kernel", [None, RBF(0.7)])
def test_perceptron_values(kernel):
    X, y = separable(150, 3, margin=0.2, seed=5)
    m = len(y)
    p = Perceptron() if kernel is None else KernelPerceptron(kernel)
    p.fit(X, y)
    r = by_name(report(p, X, y, DELTA))
    if kernel is None:
        n_upd = len(p.mistake_indices_)
        G = X @ X.T
    else:
        n_upd = int(np.sum(np.abs(p.alpha_)))    # alpha_i = y_i * (updates on example i)
        G = kernel(X, X)
    d = len(set(p.mistake_indices_.tolist()))
    assert r["Compression bound"]["value"] == pytest.approx(float(cb.pac_compression_bound(m, d, DELTA)))
    assert r["Mistake bound (updates)"]["inputs"]["M"] == n_upd
    assert r["Mistake bound (updates)"]["value"] == pytest.approx(
        float(cb.mistake_bound_risk(n_upd, m, DELTA)))
    # Novikoff's M from a separately fitted hard-margin SVM without bias (Example 5.24)
    svm = SupportVectorMachine(kernel=kernel, hard_margin=True, fit_bias=False, solver="qp",
                               tol=1e-10).fit(X, y)
    M = np.max(np.diag(G)) / svm.margin_**2
    assert r["Mistake bound (Novikoff)"]["inputs"]["M"] == pytest.approx(M, rel=1e-4)
    assert r["Mistake bound (Novikoff)"]["value"] == pytest.approx(float(cb.mistake_bound_risk(M, m, DELTA)),
                                                                   rel=1e-4)
    assert n_upd <= M * (1 + 1e-6)               # Novikoff's theorem on this sample


def test_shuffled_or_unconverged_perceptron_is_no_compression_scheme():
    X, y = separable(60)
    p = Perceptron(shuffle=True, random_state=0).fit(X, y)
    r = by_name(report(p, X, y, DELTA))
    assert not r["Compression bound"]["applicable"] and "order" in r["Compression bound"]["reason"]
    Xn, yn = noisy(60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = Perceptron(max_epochs=5).fit(Xn, yn)
    r = by_name(report(p, Xn, yn, DELTA))
    assert not r["Compression bound"]["applicable"] and "converge" in r["Compression bound"]["reason"]
    assert not r["PAC margin bound"]["applicable"]


def lsq_affine(X, f):
    """(w, b) with f = X w + b, by least squares (exact for a linear-kernel model)."""
    A = np.c_[X, np.ones(len(X))]
    sol, *_ = np.linalg.lstsq(A, f, rcond=None)
    assert np.allclose(A @ sol, f, atol=1e-8)
    return sol[:-1], sol[-1]


def test_sigma_svm_and_rmm_values_in_input_coordinates():
    X, y = noisy(90)
    m = len(y)
    delta = 0.1
    # Sigma-SVM: f(x) = u'(x - mu) + b, class G^S with Sigma_D = (1-D) I + D Cov
    D = 0.6
    sig = SigmaSVM(C=1.0, D=D, solver="qp", tol=1e-10).fit(X, y)
    f = sig.decision_function(X)
    u, c0 = lsq_affine(X, f)
    mu = X.mean(axis=0)
    b = c0 + u @ mu
    Xc = X - mu
    Sig_D = (1 - D) * np.eye(3) + D * Xc.T @ Xc / m
    B = 0.5 * (u @ Sig_D @ u + b**2)
    xi = np.maximum(0, 1 - y * f).sum()
    r = by_name(report(sig, X, y, delta))
    assert r["Rademacher bound Σ-SVM"]["inputs"]["B"] == pytest.approx(B, rel=1e-6)
    S = np.c_[Xc, np.ones(m)]
    SigU = (1 - D) * np.eye(4) + D * S.T @ S / m
    q = np.sum(S * np.linalg.solve(SigU, S.T).T)
    eq31 = xi / m + 3 * np.sqrt(np.log(8 / delta) / (2 * m)) + 4 * np.sqrt(2 * B) / m * np.sqrt(q)
    assert r["Rademacher bound Σ-SVM"]["value"] == pytest.approx(eq31, rel=1e-6)
    assert r["VC bound"]["inputs"]["vartheta"] == 4        # affine in R^3
    # RMM: class H^S_{E,D} on the augmented points (x, 1), D chosen by the caller
    Dr = 0.3
    rmm = RelativeMarginMachine(C=1.0, B=0.5, B_mode="relative", solver="qp").fit(X, y)
    f = rmm.decision_function(X)
    w, b = lsq_affine(X, f)
    E = 0.5 * (1 - Dr) * (w @ w + b**2) + 0.5 * Dr * np.max(f**2)
    xi = np.maximum(0, 1 - y * f).sum()
    r = by_name(report(rmm, X, y, delta, D=Dr))
    assert r["Rademacher bound RMM"]["inputs"]["E"] == pytest.approx(E, rel=1e-6)
    direct = float(rd.rmm_margin_bound(xi, 1.0, E, np.c_[X, np.ones(m)], Dr, delta))
    assert r["Rademacher bound RMM"]["value"] == pytest.approx(direct, rel=1e-4)
    assert np.max(np.abs(f)) <= rmm.B_ * (1 + 1e-3)           # the output bound holds


def test_gp_stability_from_the_latent_expansion():
    X, y = noisy(70)
    m = len(y)
    k = RBF(1.0)
    gp = GaussianProcessClassifier(k, optimizer=None).fit(X, y)
    r = by_name(report(gp, X, y, DELTA))
    t = y * (k(X, X) @ gp.alpha_)                # latent mode t = G alpha
    rtau = np.mean(np.clip(1 - t, 0, 1))
    assert r["Stability bound"]["value"] == pytest.approx(float(
        sb.classification_stability_bound(rtau, m, 1 / (2 * m), DELTA, tau=1.0, sup_k=1.0,
                                          loss_lipschitz=1.0)))
    assert r["Stability bound"]["trivial"]       # lambda = 1/(2m): beta_m = sup_k, no guarantee
    gp2 = GaussianProcessClassifier(k, noise=0.1, optimizer=None).fit(X, y)
    assert not by_name(report(gp2, X, y, DELTA))["Stability bound"]["applicable"]


# ------------------------------------------------------------------------------------------
# the bounds hold on simulated separable problems
# ------------------------------------------------------------------------------------------
def test_bounds_hold_on_simulated_separable_problems():
    delta, n_draws = 0.1, 8
    violations = {}
    nontrivial = set()
    for seed in range(n_draws):
        X, y, Xt, yt = separable(300, 3, margin=0.3, seed=100 + seed, n_test=4000)
        for est in (SupportVectorMachine(hard_margin=True, fit_bias=False), Perceptron()):
            est.fit(X, y)
            err = float(np.mean(est.predict(Xt) != yt))
            for r in report(est, X, y, delta):
                if r["applicable"]:
                    key = (type(est).__name__, r["name"])
                    violations[key] = violations.get(key, 0) + (r["value"] < err)
                    if not r["trivial"]:
                        nontrivial.add(key)
    assert ("SupportVectorMachine", "Compression bound") in nontrivial
    for key, v in violations.items():
        assert v <= delta * n_draws, key
    # at m = 300 the test errors are 0 or below 0.01, so this loop could not catch a bound
    # that is too small by any factor: the power test below works where the errors are not 0


def test_report_bounds_hold_with_power():
    # m = 30 points in 2-D with (almost) no margin: the test errors of the hard SVM and the
    # perceptron are a few per cent, and the non-trivial compression bounds are 4-20 times
    # above them. The bounds hold (at most delta of the draws violate them); divided by 12
    # they fail in at least 3 of 10 draws, so a bound 12 times too small would be caught.
    delta, n_draws, k = 0.1, 10, 12.0
    pairs = {}
    for seed in range(n_draws):
        X, y, Xt, yt = separable(30, 2, margin=0.001, seed=100 + seed, n_test=20_000)
        for est in (SupportVectorMachine(hard_margin=True, fit_bias=False), Perceptron()):
            est.fit(X, y)
            err = float(np.mean(est.predict(Xt) != yt))
            for r in report(est, X, y, delta):
                if r["applicable"]:
                    pairs.setdefault((type(est).__name__, r["name"]), []).append((r["value"], err))
    for key, vals in pairs.items():
        assert sum(v < e for v, e in vals) <= delta * n_draws, key
    for key in [("SupportVectorMachine", "Compression bound"), ("Perceptron", "Compression bound")]:
        vals = pairs[key]
        assert any(v < 1 for v, _ in vals)  # non-trivial on some draws
        assert sum(v / k < e for v, e in vals) >= 3, key


def test_any_two_labels_give_the_same_report():
    X, y = noisy(60)
    lab = np.where(y > 0, "yes", "no")
    r1 = report(SupportVectorMachine(C=1.0, fit_bias=False).fit(X, y), X, y)
    r2 = report(SupportVectorMachine(C=1.0, fit_bias=False).fit(X, lab), X, lab)
    v1 = np.array([r["value"] for r in r1])
    v2 = np.array([r["value"] for r in r2])
    np.testing.assert_allclose(v1, v2, rtol=1e-6, equal_nan=True)


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------
def test_bad_input():
    X, y = separable(40)
    with pytest.raises(NotFittedError):
        report(SupportVectorMachine(), X, y)
    svm = SupportVectorMachine(kernel=Linear(), fit_bias=False).fit(X, y)
    with pytest.raises(ValueError, match="samples"):
        report(svm, X, y[:-1])
    with pytest.raises(ValueError):
        report(svm, X[:, :2], y)                 # wrong number of features
    with pytest.raises(ValueError, match="delta"):
        report(svm, X, y, delta=1.5)
    with pytest.raises(ValueError, match="D"):
        report(svm, X, y, D=1.0)
    with pytest.raises(ValueError, match="labels"):
        report(svm, X, np.where(y > 0, 2, -1))
    reg = GaussianProcessRegressor(Linear(), noise=0.1).fit(X, y)
    with pytest.raises(TypeError, match="classifier"):
        report(reg, X, y)
    with pytest.raises(TypeError):
        format_report("not records")
    with pytest.raises(ValueError, match="record"):
        format_report([{"name": "x"}])


# ------------------------------------------------------------------------------------------
# issue 24: the report asks the estimator what it is (declared tags, no class names)
# ------------------------------------------------------------------------------------------
def same_records(r1, r2):
    assert [r["applicable"] for r in r1] == [r["applicable"] for r in r2]
    np.testing.assert_allclose([r["value"] for r in r1], [r["value"] for r in r2], rtol=1e-12,
                               equal_nan=True)
    assert [r["reason"] for r in r1] == [r["reason"] for r in r2]


class LargeMarginClassifier(SupportVectorMachine):
    """An SVM under another name: it inherits the SVM's tags."""


class UndeclaredSVM(SupportVectorMachine):
    """An SVM that declares nothing: it must lose every row that needs the SVM's tags."""

    _bound_tags = {}


@pytest.mark.parametrize("params, data", [({"hard_margin": True, "fit_bias": False}, "sep"),
                                          ({"C": 1.0, "fit_bias": False}, "noisy"),
                                          ({"C": 1.0}, "noisy")])
def test_a_renamed_svm_gets_the_svm_rows(params, data):
    X, y = separable(60) if data == "sep" else noisy()
    ref = report(SupportVectorMachine(**params).fit(X, y), X, y)
    renamed = report(LargeMarginClassifier(**params).fit(X, y), X, y)
    same_records(ref, renamed)
    svm_rows = {"Compression bound", "Lossy compression bound", "Stability bound",
                "Soft-margin bound", "Rademacher bound F_E"}
    assert applicable(renamed) & svm_rows                 # the rows the tags switch on
    undeclared = report(UndeclaredSVM(**params).fit(X, y), X, y)
    assert not applicable(undeclared) & svm_rows
    assert "family" in by_name(undeclared)["Compression bound"]["reason"]
    assert applicable(undeclared) == applicable(ref) - svm_rows


@pytest.mark.parametrize("module", ["report", "report_rows", "report_tags"])
def test_report_names_no_estimator_class(module):
    """The report decides by tags: no identifier or word in report.py, report_rows.py or
    report_tags.py is an estimator class name."""
    import ast
    import importlib
    import re

    from kernelclf.bounds import report_rows, report_tags
    from kernelclf.discovery import all_estimators

    mod = importlib.import_module("kernelclf.bounds.report")   # the attribute is the function
    mod = {"report": mod, "report_rows": report_rows, "report_tags": report_tags}[module]

    names = {name for name, _ in all_estimators()}
    assert {"SupportVectorMachine", "SigmaSVM", "GaussianProcessClassifier"} <= names
    tree = ast.parse(open(mod.__file__, encoding="utf-8").read())
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.alias):
            words.update(node.name.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(re.findall(r"[A-Za-z_]\w*", node.value))
    assert not words & names, sorted(words & names)


def test_every_classifier_of_the_package_declares_valid_tags():
    from kernelclf.bayes import GaussianProcessClassifier
    from kernelclf.bounds.report_tags import FAMILIES, bound_tags
    from kernelclf.discovery import all_estimators

    for name, cls in all_estimators("classifier"):
        tags = bound_tags(cls())
        assert set(tags) == {"family", "margin", "bias"}
        assert tags["family"] in FAMILIES + (None,), name
    expected = {
        SupportVectorMachine(hard_margin=True, fit_bias=False): ("svm", "hard", False),
        SupportVectorMachine(C=2.0): ("svm", "soft", True),
        Perceptron(): ("perceptron", None, False),
        KernelPerceptron(): ("perceptron", None, False),
        AdaptiveMarginMachine(): ("amm", "soft", False),
        RelativeMarginMachine(): ("rmm", "soft", True),
        RelaxedRMM(): ("relaxed_rmm", "soft", True),
        SigmaSVM(): ("sigma_svm", "soft", True),
        GaussianProcessClassifier(): ("gp", None, False),
        BayesPointMachine(): ("bpm", None, False),
        RelevanceVectorClassifier(): (None, None, None),          # the base class's default
    }
    for est, (family, margin, bias) in expected.items():
        assert bound_tags(est) == {"family": family, "margin": margin, "bias": bias}, est


def test_malformed_tags_are_refused():
    from kernelclf.bounds.report_tags import bound_tags

    X, y = separable(30)
    for tags, match in [({"familiy": "svm"}, "unknown keys"), ({"family": "svn"}, "family"),
                        ({"margin": "wide"}, "margin"), ({"bias": "yes"}, "bias")]:
        cls = type("Declared", (SupportVectorMachine,), {"_bound_tags": tags})
        est = cls(fit_bias=False).fit(X, y)
        with pytest.raises(ValueError, match=match):
            bound_tags(est)
        with pytest.raises(ValueError, match=match):
            report(est, X, y)


# ------------------------------------------------------------------------------------------
# issue 27: every inf says why, the summary, pipelines, other classifiers, slow rows
# ------------------------------------------------------------------------------------------
def test_each_inf_names_the_failed_range_condition():
    from kernelclf.datasets import make_teacher

    X, y = make_teacher(150, 5, random_state=0)           # the teacher toy of chapter 18
    svm = SupportVectorMachine(hard_margin=True, fit_bias=False, solver="qp", tol=1e-10).fit(X, y)
    r = by_name(report(svm, X, y, DELTA))
    G = X @ X.T
    a = svm.multipliers_ * y
    f = G @ a
    wn = np.sqrt(a @ G @ a)
    gamma = np.min(y * f) / wn
    vs = np.sqrt(np.max(np.diag(G)))
    assert gamma < np.sqrt(32 / 150) * vs                 # this sample: eq. 4.29 is inf
    pac = r["PAC margin bound"]
    assert np.isinf(pac["value"]) and "sqrt(32/m)" in pac["reason"]
    assert f"m >= 32 varsigma^2/gamma^2 = {math.ceil(32 * vs**2 / gamma**2)}" in pac["reason"]
    fat = r["Fat-shattering bound"]
    assert np.isinf(fat["value"]) and f"{64 * vs**2 / gamma**2:.4g} > 2m = 300" in fat["reason"]
    tr = r["TR margin bound"]
    assert np.isinf(tr["value"]) and f"= {math.ceil(577 * vs**2 / gamma**2)} > 2m" in tr["reason"]
    rob = r["Robust margin bound"]
    if np.isinf(rob["value"]):
        assert rob["inputs"]["d_eff"] > 300 and "d_eff" in rob["reason"]
    text = format_report(report(svm, X, y, DELTA))
    assert "why inf: margin too small for m" in text


def test_compression_of_every_point_is_inf_and_says_so():
    X, y = noisy(60, flip=0.3)
    svm = SupportVectorMachine(C=1e-4, fit_bias=False).fit(X, y)
    assert len(svm.support_) == len(y)                    # a tiny C: every point is bounded
    rec = by_name(report(svm, X, y))["Lossy compression bound"]
    assert rec["applicable"] and np.isinf(rec["value"]) and rec["trivial"]
    assert "d = m = 60" in rec["reason"] and "nothing is compressed" in rec["reason"]


def test_summary_ends_with_the_tightest_nontrivial_bound_beside_the_training_error():
    X, y = separable(150, 5, margin=0.3, seed=4)
    svm = SupportVectorMachine(hard_margin=True, fit_bias=False).fit(X, y)
    recs = report(svm, X, y)
    remp = float(np.mean(svm.predict(X) != y))
    assert recs.training_error == remp == 0.0 and recs.m == 150 and recs.delta == DELTA
    finite = [(r["value"], r["name"]) for r in recs if r["applicable"] and r["value"] < 1]
    best_value, best_name = min(finite)
    assert recs.tightest["name"] == best_name
    last = format_report(recs).splitlines()[-1]
    assert last == (f"training error 0 (m = 150); tightest non-trivial bound {best_value:.4g}: "
                    f"{best_name} ({recs.tightest['source']})")
    n_app = sum(r["applicable"] for r in recs)
    assert f"{n_app} of 17 bounds apply" in format_report(recs, show_inapplicable=False)
    assert format_report(recs).splitlines()[0].startswith(
        "SupportVectorMachine (family 'svm', margin 'hard', bias False); m = 150")
    # a plain list (e.g. filtered records) has no training error to show
    plain = format_report(list(recs))
    assert plain.splitlines()[-1].startswith("training error not recorded; tightest")


def test_summary_says_when_every_bound_is_trivial():
    X, y = noisy(120)
    rvm = RelevanceVectorClassifier(RBF(1.0)).fit(X, y)
    recs = report(rvm, X, y)
    assert all(r["trivial"] for r in recs if r["applicable"]) and recs.tightest is None
    remp = float(np.mean(rvm.predict(X) != y))
    assert format_report(recs).splitlines()[-1] == (
        f"training error {remp:.4g} (m = 120); every bound that applies is trivial (>= 1) at m = 120")


def test_pipeline_is_reported_through_its_last_step():
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = noisy(80)
    X = 3.0 * X + 1.0
    pipe = make_pipeline(StandardScaler(), SupportVectorMachine(C=1.0, fit_bias=False)).fit(X, y)
    # reference: the same two steps fitted by hand
    mu, sd = X.mean(axis=0), X.std(axis=0)
    Xs = (X - mu) / sd
    svm = SupportVectorMachine(C=1.0, fit_bias=False).fit(Xs, y)
    ref, got = report(svm, Xs, y), report(pipe, X, y)
    np.testing.assert_allclose([r["value"] for r in got], [r["value"] for r in ref], rtol=1e-8,
                               equal_nan=True)
    assert got.estimator == "SupportVectorMachine"
    nested = Pipeline([("outer", make_pipeline(StandardScaler(), "passthrough")),
                       ("clf", SupportVectorMachine(C=1.0, fit_bias=False))]).fit(X, y)
    np.testing.assert_allclose([r["value"] for r in report(nested, X, y)],
                               [r["value"] for r in ref], rtol=1e-8, equal_nan=True)


def test_unsupported_wrappers_are_refused_with_what_to_pass():
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = noisy(60)
    with pytest.raises(TypeError, match="last step is a binary classifier"):
        report(make_pipeline(StandardScaler(), "passthrough").fit(X, y), X, y)
    with pytest.raises(TypeError, match="not a classifier.*Pipeline whose last step"):
        report(make_pipeline(StandardScaler(), Ridge()).fit(X, y), X, y)
    with pytest.raises(NotFittedError):
        report(make_pipeline(StandardScaler(), SupportVectorMachine()), X, y)
    search = GridSearchCV(SupportVectorMachine(fit_bias=False), {"C": [0.5, 1.0]}, cv=2).fit(X, y)
    with pytest.raises(TypeError, match="best_estimator_"):
        report(search, X, y)
    report(search.best_estimator_, X, y)                  # what the message asks for works
    from kernelclf.multiclass import OneVsRestClassifier
    y3 = np.where(X[:, 0] > 0.3, 2, np.where(y > 0, 1, 0))
    ovr = OneVsRestClassifier(SupportVectorMachine()).fit(X, y3)
    with pytest.raises(ValueError, match="binary.*estimators_"):
        report(ovr, X, y3)


def test_scikit_learn_linear_classifier_gets_the_bounds_that_need_no_tags():
    from sklearn.linear_model import LogisticRegression

    X, y = separable(120, 3, margin=0.3, seed=2)
    m = len(y)
    lr = LogisticRegression(C=100.0).fit(X, y)
    recs = report(lr, X, y)
    r = by_name(recs)
    f = X @ lr.coef_.ravel() + lr.intercept_[0]
    remp = float(np.mean(y * f <= 0))
    assert recs.training_error == remp == 0.0
    assert applicable(recs) == VC | MARGIN
    assert r["VC bound"]["inputs"]["vartheta"] == 4      # affine in R^3: n + 1
    assert r["VC bound"]["value"] == pytest.approx(float(vc.vc_dimension_bound(0.0, m, DELTA, 4)))
    wn = np.sqrt(lr.coef_.ravel() @ lr.coef_.ravel() + lr.intercept_[0] ** 2)
    vs = np.sqrt(np.max(np.sum(X**2, axis=1)) + 1.0)
    assert r["Robust margin bound"]["value"] == pytest.approx(robust_min(y * f / wn, m, vs), rel=1e-6)
    assert "family None" in r["Compression bound"]["reason"]
    assert "canonical scale" in r["Soft-margin bound"]["reason"]
    assert "LogisticRegression" in format_report(recs).splitlines()[0]


@pytest.mark.parametrize("kind", ["tree", "forest", "rbf SVC"])
def test_a_black_box_classifier_gets_its_training_error_and_the_reasons(kind):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    X, y = noisy(100)
    est = {"tree": DecisionTreeClassifier(max_depth=2, random_state=0),
           "forest": RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0),
           "rbf SVC": SVC(C=0.3)}[kind]
    est.fit(X, y)
    recs = report(est, X, y)
    if kind != "rbf SVC":
        remp = float(np.mean(est.predict(X) != y))
    else:
        remp = float(np.mean(y * est.decision_function(X) <= 0))
    assert 0 < recs.training_error == pytest.approx(remp)
    assert not applicable(recs)
    assert all("neither a kernel expansion" in r["reason"] for r in by_name(recs).values()
               if r["name"] in MARGIN | VC)
    last = format_report(recs).splitlines()[-1]
    assert "no bound applies: " in last and "scikit-learn's" in last      # and what to do
    assert "multiclass" not in last       # a forest has estimators_ but is no one-vs-rest wrapper
    assert ("kernelclf.margin" in last) == (kind == "rbf SVC")


def test_a_binary_multiclass_wrapper_is_told_to_report_its_machine():
    """The hint names one-vs-rest wrappers (the package's and scikit-learn's), and the call it
    suggests works; an ensemble with ``estimators_`` (a forest) gets no such hint (above)."""
    from sklearn.multiclass import OneVsRestClassifier as SkOneVsRest

    from kernelclf.multiclass import OneVsRestClassifier

    X, y = separable(80, 3, margin=0.2, seed=1)
    for wrapper in (OneVsRestClassifier, SkOneVsRest):
        model = wrapper(SupportVectorMachine(fit_bias=False)).fit(X, y)
        recs = report(model, X, y)
        assert not applicable(recs) and "multiclass wrapper" in recs.hint
        inner = report(model.estimators_[0], X, (y == model.classes_[1]).astype(int))
        assert applicable(inner)


def test_stability_with_class_weights():
    if "class_weight" not in SupportVectorMachine().get_params():
        pytest.skip("this SupportVectorMachine has no class_weight")
    X, y = noisy(90)
    m = len(y)
    svm = SupportVectorMachine(C=0.5, fit_bias=False, class_weight={-1.0: 2.0, 1.0: 0.5}).fit(X, y)
    r = by_name(report(svm, X, y))["Stability bound"]
    f = X @ X.T @ svm.alpha_
    rtau = np.mean(np.clip(1 - y * f, 0, 1))
    # loss 2 hinge or 0.5 hinge: Lipschitz 2, lambda = 1/(2 C m) as without weights
    assert r["value"] == pytest.approx(float(sb.classification_stability_bound(
        rtau, m, 1 / (2 * 0.5 * m), DELTA, tau=1.0, sup_k=np.max(np.sum(X**2, axis=1)),
        loss_lipschitz=2.0)))
    bal = SupportVectorMachine(C=0.5, fit_bias=False, class_weight="balanced").fit(X, y)
    assert "sample" in by_name(report(bal, X, y))["Stability bound"]["reason"]


def test_a_kernel_or_weights_chosen_on_the_sample_switch_off_compression_and_stability():
    """The theorems fix the kernel in advance. Refit on the support vectors alone, an SVM
    whose kernel width ('scale') or class weights ('balanced') come from the sample is
    another classifier, so its support vectors are no compression scheme; with numbers
    given it is the same classifier and the rows stay."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0.5, 1, (80, 2)), rng.normal(-0.5, 1, (20, 2))]
    y = np.r_[np.ones(80), -np.ones(20)]
    Xt = rng.normal(0, 2, (20000, 2))

    def refit_disagreement(make):
        svm = make().fit(X, y)
        sv = svm.support_
        return svm, float(np.mean(svm.predict(Xt) != make().fit(X[sv], y[sv]).predict(Xt)))

    width = float(RBF("scale").resolve(X).sigma)
    for make, chosen in [
        (lambda: SupportVectorMachine(C=1.0, fit_bias=False, tol=1e-6), False),
        (lambda: SupportVectorMachine(RBF(width), C=1.0, fit_bias=False, tol=1e-6), False),
        (lambda: SupportVectorMachine("rbf", C=1.0, fit_bias=False, tol=1e-6), True),
        (lambda: SupportVectorMachine(C=1.0, fit_bias=False, class_weight="balanced", tol=1e-6),
         True),
    ]:
        svm, dis = refit_disagreement(make)
        assert (dis > 1e-3) == chosen, (svm, dis)               # the premise, measured
        r = by_name(report(svm, X, y))
        assert r["Lossy compression bound"]["applicable"] != chosen
        if chosen:
            assert "compression scheme" in r["Lossy compression bound"]["reason"]
    r = by_name(report(SupportVectorMachine("rbf", C=1.0, fit_bias=False).fit(X, y), X, y))
    assert not r["Stability bound"]["applicable"] and "RKHS" in r["Stability bound"]["reason"]
    assert all("not certified" in x["note"] for x in r.values() if x["applicable"])
    assert r["Robust margin bound"]["applicable"] and r["Rademacher bound F_E"]["applicable"]
    # a Gaussian process whose width maximises the evidence on the sample
    Xn, yn = noisy(60)
    tuned = GaussianProcessClassifier(RBF(1.0)).fit(Xn, yn)
    assert tuned.kernel_.sigma != 1.0
    r = by_name(report(tuned, Xn, yn))
    assert not r["Stability bound"]["applicable"] and "evidence" in r["Stability bound"]["reason"]
    assert "not certified" in r["Robust margin bound"]["note"]
    fixed = by_name(report(GaussianProcessClassifier(RBF(1.0), optimizer=None).fit(Xn, yn), Xn, yn))
    assert fixed["Stability bound"]["applicable"]
    assert "not certified" not in fixed["Robust margin bound"]["note"]
    # the kernel perceptron: its update examples rerun with another width
    Xs, ys = separable(60)
    kp = by_name(report(KernelPerceptron("rbf").fit(Xs, ys), Xs, ys))
    assert not any(kp[b]["applicable"] for b in PERC)
    assert all(by_name(report(KernelPerceptron(RBF(1.0)).fit(Xs, ys), Xs, ys))[b]["applicable"]
               for b in PERC)
    # the Sigma-SVM measures margins with a kernel whitened by the sample's covariance: not
    # certified, except the VC rows (affine classes of R^n) and eq. 31 (the whitened class)
    sig = SigmaSVM(C=1.0, D=0.5).fit(Xn, yn)
    noted = {b for b, x in by_name(report(sig, Xn, yn)).items() if "chosen on this sample" in x["note"]}
    assert noted == {"Robust margin bound", "Soft-margin bound", "Rademacher bound F_E"}
    rmm = RelativeMarginMachine(C=1.0, B=0.5, B_mode="relative").fit(Xn, yn)
    assert not any("chosen on this sample" in x["note"] for x in report(rmm, Xn, yn))


def rbf_rmm(m, seed=3):
    X, y = noisy(m, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RelativeMarginMachine(RBF(1.0), C=1.0).fit(X, y), X, y   # B = None: fast


def test_the_slow_rmm_row_warns_before_it_starts_above_the_threshold():
    from kernelclf.bounds.report_tags import SLOW_SECONDS, SlowBoundWarning, estimated_seconds

    assert estimated_seconds("Rademacher bound RMM", 60) < SLOW_SECONDS
    assert estimated_seconds("Rademacher bound RMM", 230) > SLOW_SECONDS
    assert estimated_seconds("Rademacher bound RMM", 5000, n_features=13) < SLOW_SECONDS
    # below: no warning, the row is evaluated
    est, X, y = rbf_rmm(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowBoundWarning)
        rec = by_name(report(est, X, y))["Rademacher bound RMM"]
    assert rec["applicable"] and not rec["skipped"]
    # above: the warning comes first; as an error it stops the report before the QP starts
    est, X, y = rbf_rmm(230)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowBoundWarning)
        with pytest.raises(SlowBoundWarning, match="m = 230.*skip_slow=True"):
            report(est, X, y)
        recs = report(est, X, y, skip_slow=True)          # no warning, the row is left out
    rec = by_name(recs)["Rademacher bound RMM"]
    assert rec["skipped"] and not rec["applicable"] and math.isnan(rec["value"])
    assert rec["reason"].startswith("skipped (skip_slow=True)") and "m = 230" in rec["reason"]
    text = format_report(recs)
    assert "skipped (skip_slow=True)" in text and "1 skipped" in text
    assert by_name(recs)["Rademacher bound F_E"]["applicable"]        # the other rows stay


def test_slow_warning_points_at_the_caller_and_threshold_is_a_setting(monkeypatch):
    import importlib

    mod = importlib.import_module("kernelclf.bounds.report_tags")   # the setting lives there
    est, X, y = rbf_rmm(60)
    monkeypatch.setattr(mod, "SLOW_SECONDS", 1e-4)
    with pytest.warns(mod.SlowBoundWarning) as caught:
        rec = by_name(report(est, X, y))["Rademacher bound RMM"]
    assert rec["applicable"]                              # warned, then evaluated
    assert [w.filename for w in caught] == [__file__]
    Xp, yp = separable(80)
    p = Perceptron().fit(Xp, yp)
    r = by_name(report(p, Xp, yp, skip_slow=True))
    assert r["Mistake bound (Novikoff)"]["skipped"] and r["Mistake bound (updates)"]["applicable"]
