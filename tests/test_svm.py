"""Tests for kernelclf.margin.svm, kernelclf.margin.nu_svm and kernelclf.margin.platt
(LKC §2.4, eq. 2.45-2.52, App. B.5, D.2; Platt 1999; book chapter 04).

Independent references: scikit-learn's libsvm (SVC, NuSVC), cvxopt's
interior-point QP, the KKT conditions, the nu-property (Schölkopf et al. 2000,
Prop. 5), and an LP separability certificate.
"""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_blobs
from sklearn.exceptions import NotFittedError
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, NuSVC

from kernelclf.datasets import make_moons, peer_moons
from kernelclf.kernels import RBF, Linear, Polynomial
from kernelclf.margin import _dual, is_separable, platt, smo
from kernelclf.margin.nu_svm import NuSupportVectorMachine
from kernelclf.margin.svm import SupportVectorMachine


def _cancer(m=200):
    d = load_breast_cancer()
    X = StandardScaler().fit_transform(d.data)[:m]
    return X, d.target[:m]


def _gaussians(m=150, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 4))
    y = np.where(X[:, 0] - X[:, 1] + 0.8 * rng.normal(size=m) > 0, 1, -1)
    return X, y


def _sk_kernel(kernel):
    """The same kernel in scikit-learn's parameterisation."""
    if isinstance(kernel, RBF):
        return {"kernel": "rbf", "gamma": kernel.gamma}
    if isinstance(kernel, Polynomial):
        return {"kernel": "poly", "degree": kernel.degree, "gamma": 1.0, "coef0": kernel.offset}
    return {"kernel": "linear"}


def _sk_dual(sk, X, y_pm, kernel):
    a = np.zeros(len(y_pm))
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    K = kernel(X)
    return a, a.sum() - 0.5 * (a * y_pm) @ K @ (a * y_pm)


CASES = [
    ("moons", lambda: make_moons(400, random_state=1), RBF(0.5), 1.0),
    ("moons-C10", lambda: make_moons(300, random_state=2), RBF(0.5), 10.0),
    ("cancer-rbf", _cancer, RBF(3.0), 2.0),
    ("gauss-linear", _gaussians, Linear(), 0.5),
    ("gauss-poly", lambda: _gaussians(120, 1), Polynomial(2, 1.0), 0.1),
]


@pytest.mark.parametrize("name,data,kernel,C", CASES, ids=[c[0] for c in CASES])
def test_dual_objective_matches_sklearn_svc(name, data, kernel, C):
    X, y = data()
    ours = SupportVectorMachine(kernel, C=C, tol=1e-8).fit(X, y)
    sk = SVC(C=C, tol=1e-8, **_sk_kernel(kernel)).fit(X, y)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    _, D = _sk_dual(sk, X, y_pm, kernel)
    assert abs(ours.dual_objective_ - D) <= 1e-6 * abs(D)
    # same classifier: decision values and support vectors
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-4)
    assert set(ours.support_) == set(sk.support_)
    assert np.array_equal(ours.predict(X), sk.predict(X))


def test_default_tolerance_is_close_to_tight_solution():
    X, y = make_moons(500, random_state=0)
    loose = SupportVectorMachine(RBF(0.5)).fit(X, y)          # tol 1e-3 like libsvm
    tight = SupportVectorMachine(RBF(0.5), tol=1e-9).fit(X, y)
    assert abs(loose.dual_objective_ - tight.dual_objective_) <= 1e-5 * tight.dual_objective_


@pytest.mark.parametrize("fit_bias", [True, False])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_qp_route_and_smo_agree(fit_bias, loss):
    X, y = make_moons(150, random_state=3)
    kw = dict(kernel=RBF(0.7), C=3.0, loss=loss, fit_bias=fit_bias)
    a = SupportVectorMachine(solver="smo", tol=1e-9, **kw).fit(X, y)
    b = SupportVectorMachine(solver="qp", tol=1e-9, **kw).fit(X, y)
    assert a.dual_objective_ == pytest.approx(b.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-3)
    assert a.margin_ == pytest.approx(b.margin_, rel=1e-4)


@pytest.mark.parametrize("fit_bias", [True, False])
def test_kkt_conditions_at_the_solution(fit_bias):
    X, y = _cancer(150)
    C = 1.5
    s = SupportVectorMachine(RBF(3.0), C=C, fit_bias=fit_bias, tol=1e-9).fit(X, y)
    y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
    yf = y_pm * s.decision_function(X)
    a = s.multipliers_
    tol = 1e-6
    assert np.all(a >= 0) and np.all(a <= C)
    assert np.all(yf[a == 0] >= 1 - tol)
    free = (a > 0) & (a < C)
    assert free.any() and np.all(np.abs(yf[free] - 1) <= tol)
    assert np.all(yf[a == C] <= 1 + tol)
    if fit_bias:
        assert abs(y_pm @ a) < 1e-9
    # strong duality: primal = 1/2 ||w||^2 + C sum xi equals the dual value
    xi = np.maximum(0, 1 - yf)
    primal = 0.5 / s.margin_ ** 2 + C * xi.sum()
    assert primal == pytest.approx(s.dual_objective_, rel=1e-6)
    assert np.array_equal(s.alpha_, a * y_pm)


def test_squared_hinge_equals_hard_margin_on_ridged_gram():
    X, y = make_moons(200, random_state=4)
    C = 2.0
    k = RBF(0.5)
    ours = SupportVectorMachine(k, C=C, loss="squared_hinge", tol=1e-9).fit(X, y)
    K = k(X) + np.eye(len(y)) / C
    sk = SVC(kernel="precomputed", C=1e10, tol=1e-9).fit(K, y)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    a = np.zeros(len(y))
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    D = a.sum() - 0.5 * (a * y_pm) @ K @ (a * y_pm)
    assert abs(ours.dual_objective_ - D) <= 1e-6 * D
    # and our own hard margin on the ridged Gram matrix, via a precomputed kernel
    hard = SupportVectorMachine(lambda A, B: _ridged(k, X, C, A, B), hard_margin=True,
                                tol=1e-9).fit(X, y)
    assert hard.dual_objective_ == pytest.approx(ours.dual_objective_, rel=1e-8)
    # LKC eq. 2.50: slack of the quadratic soft margin is xi = lambda m alpha = alpha / C
    xi = np.maximum(0, 1 - y_pm * ours.decision_function(X))
    np.testing.assert_allclose(xi, ours.multipliers_ / C, atol=1e-6)


def _ridged(k, X, C, A, B):
    K = k(A, B)
    if A.shape == X.shape and B.shape == X.shape and np.array_equal(A, B):
        K = K + np.eye(len(A)) / C
    return K


def test_hard_margin_separable_matches_sklearn_and_margin():
    X, y = make_moons(300, noise=0.1, flip=0.0, random_state=0)
    k = RBF(0.5)
    s = SupportVectorMachine(k, hard_margin=True, tol=1e-9).fit(X, y)
    sk = SVC(C=1e8, tol=1e-9, **_sk_kernel(k)).fit(X, y)
    y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
    a, D = _sk_dual(sk, X, y_pm, k)
    assert a.max() < 1e7                       # the box is never active for sklearn
    assert abs(s.dual_objective_ - D) <= 1e-6 * D
    # at the optimum ||w||^2 = sum alpha = 2 D (LKC App. B.5.1)
    assert s.margin_ == pytest.approx(1 / np.sqrt(s.multipliers_.sum()), rel=1e-6)
    assert s.margin_ == pytest.approx(1 / np.sqrt(2 * D), rel=1e-6)
    assert np.min(y_pm * s.decision_function(X)) == pytest.approx(1.0, abs=1e-6)
    # as C grows, the soft margin reaches the hard margin (LKC §2.4.2)
    soft = SupportVectorMachine(k, C=1e6, tol=1e-9).fit(X, y)
    assert soft.dual_objective_ == pytest.approx(s.dual_objective_, rel=1e-6)


def test_hard_margin_attribute_at_tol_is_not_the_sample_margin():
    """margin_ docstring: the sample's geometric margin at the optimum only; a fit stopped
    at the default tol (its polish not kept) has min y f down to about 1 - tol."""
    X, y = make_blobs(60, centers=2, cluster_std=1.0, random_state=3)
    fits = {tol: SupportVectorMachine(RBF(0.5), hard_margin=True, fit_bias=False,
                                      tol=tol).fit(X, y) for tol in (1e-3, 1e-9)}
    low = {}
    for tol, s in fits.items():
        y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
        low[tol] = np.min(y_pm * s.decision_function(X))
    assert abs(low[1e-9] - 1.0) < 1e-9                  # at the optimum: margin_ is it
    assert 1.0 - 2e-3 < low[1e-3] < 1.0 - 1e-4            # at tol: visibly below 1


def test_margin_attribute_is_one_over_norm_w_as_documented():
    """margin_ docstrings: 1/||w|| (the band |f| <= 1) for the C-SVM, smaller than the
    soft margin's sample margin; for the nu-SVM rho_ * margin_ is libsvm's 1/||coef_||."""
    X, y = make_moons(120, noise=0.3, random_state=0)
    s = SupportVectorMachine(tol=1e-8).fit(X, y)
    y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
    assert s.margin_ == pytest.approx(1 / np.linalg.norm(s.coef_), rel=1e-12)
    # with slack the sample's geometric margin (LKC Def. 2.30) is below margin_, here < 0
    assert np.min(y_pm * s.decision_function(X)) * s.margin_ < 0 < s.margin_
    X, y = make_blobs(120, centers=[[-1, -1], [1, 1]], cluster_std=1.0, random_state=0)
    nu = NuSupportVectorMachine(nu=0.5, tol=1e-8).fit(X, y)
    ref = NuSVC(kernel="linear", nu=0.5, tol=1e-8).fit(X, y)
    assert nu.rho_ > 0
    assert nu.margin_ == pytest.approx(1 / np.linalg.norm(nu.coef_), rel=1e-12)
    assert nu.rho_ * nu.margin_ == pytest.approx(1 / np.linalg.norm(ref.coef_), rel=1e-4)
    assert nu.margin_ > 1 / np.linalg.norm(ref.coef_) * 2     # not the band's margin


@pytest.mark.parametrize("solver", ["smo", "qp"])
@pytest.mark.parametrize("fit_bias", [True, False])
def test_hard_margin_non_separable_raises(solver, fit_bias):
    X, y = _gaussians(120, seed=5)                   # noisy labels: not linearly separable
    assert not is_separable(Linear()(X), np.where(y > 0, 1.0, -1.0), fit_bias)
    with pytest.raises(ValueError, match="not separable"):
        SupportVectorMachine(Linear(), hard_margin=True, fit_bias=fit_bias,
                             solver=solver).fit(X, y)


def test_hard_margin_conflicting_duplicates_raise_fast():
    X, y = make_moons(60, noise=0.1, flip=0.0, random_state=0)
    X = np.vstack([X, X[:1]])
    y = np.r_[y, -y[:1]]
    with pytest.raises(ValueError, match="not separable"):
        SupportVectorMachine(RBF(0.5), hard_margin=True).fit(X, y)


def test_large_sample_uses_kernel_columns_and_matches_precomputed(monkeypatch):
    X, y = make_moons(400, random_state=6)
    a = SupportVectorMachine(RBF(0.5), tol=1e-8).fit(X, y)
    monkeypatch.setattr(_dual, "_PRECOMPUTE_MAX", 100)
    b = SupportVectorMachine(RBF(0.5), tol=1e-8, cache_mb=1.0).fit(X, y)
    # (past the budget the columns are kept in single precision, libsvm's Qfloat: the
    # optimum of the rounded matrix; in double precision the same optimum to 1e-9)
    assert a.dual_objective_ == pytest.approx(b.dual_objective_, rel=1e-7)
    from kernelclf.margin.smo import compiled
    monkeypatch.setattr(compiled, "SINGLE", False)
    c = SupportVectorMachine(RBF(0.5), tol=1e-8, cache_mb=1.0).fit(X, y)
    assert a.dual_objective_ == pytest.approx(c.dual_objective_, rel=1e-9)


# ---------------------------------------------------------------- nu-SVM

def _sk_nu(sk, X, y_pm, kernel, nu):
    """sklearn's NuSVC solution in the book's scaling (alpha <= 1/m, sum = nu)."""
    m = len(y_pm)
    dc = np.abs(sk.dual_coef_[0])
    a = np.zeros(m)
    a[sk.support_] = nu * dc / dc.sum()
    r = nu * m / dc.sum()                          # libsvm's rescaling factor
    W = 0.5 * (a * y_pm) @ kernel(X) @ (a * y_pm)
    return a, W, r / m, sk.intercept_[0] * r / m


NU_CASES = [
    ("moons", lambda: make_moons(300, random_state=7), RBF(0.5), 0.2),
    ("cancer", _cancer, RBF(3.0), 0.3),
    ("gauss-linear", _gaussians, Linear(), 0.5),
]


@pytest.mark.parametrize("name,data,kernel,nu", NU_CASES, ids=[c[0] for c in NU_CASES])
def test_nu_svm_matches_sklearn_nusvc(name, data, kernel, nu):
    X, y = data()
    ours = NuSupportVectorMachine(kernel, nu=nu, tol=1e-9).fit(X, y)
    sk = NuSVC(nu=nu, tol=1e-9, **_sk_kernel(kernel)).fit(X, y)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    a, W, rho, b = _sk_nu(sk, X, y_pm, kernel, nu)
    assert abs(-ours.dual_objective_ - W) <= 1e-6 * W
    assert ours.rho_ == pytest.approx(rho, rel=1e-5)
    assert ours.intercept_ == pytest.approx(b, abs=1e-6 * max(1, rho))
    assert ours.multipliers_.sum() == pytest.approx(nu)
    # decision functions are proportional (libsvm divides by rho)
    np.testing.assert_allclose(ours.decision_function(X) / ours.rho_, sk.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("fit_bias", [True, False])
@pytest.mark.parametrize("nu", [0.2, 0.4, 0.6])
def test_nu_property(fit_bias, nu):
    X, y = make_moons(300, random_state=8)
    s = NuSupportVectorMachine(RBF(0.5), nu=nu, fit_bias=fit_bias, tol=1e-9).fit(X, y)
    assert s.rho_ > 0
    frac_sv = len(s.support_) / len(y)
    assert s.margin_errors() <= nu + 1e-12 <= frac_sv + 2e-12


@pytest.mark.parametrize("fit_bias", [True, False])
def test_nu_qp_route_agrees(fit_bias):
    X, y = make_moons(120, random_state=9)
    a = NuSupportVectorMachine(RBF(0.5), nu=0.3, fit_bias=fit_bias, tol=1e-10).fit(X, y)
    b = NuSupportVectorMachine(RBF(0.5), nu=0.3, fit_bias=fit_bias, solver="qp").fit(X, y)
    assert a.dual_objective_ == pytest.approx(b.dual_objective_, rel=1e-6)
    assert a.rho_ == pytest.approx(b.rho_, rel=1e-3)


def test_nu_svm_equals_c_svm_with_matching_c():
    """Schölkopf et al. (2000) Prop. 6: nu-SVM solution = C-SVM with C = 1/(m rho)
    after scaling (up to the factor rho)."""
    X, y = make_moons(200, random_state=10)
    nus = NuSupportVectorMachine(RBF(0.5), nu=0.3, tol=1e-10).fit(X, y)
    m = len(y)
    C = 1.0 / (m * nus.rho_)
    cs = SupportVectorMachine(RBF(0.5), C=C, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(nus.decision_function(X) / nus.rho_, cs.decision_function(X),
                               atol=1e-4)


# ---------------------------------------------------------------- API, bad input

def test_bad_input_raises_clear_errors():
    X, y = make_moons(40, random_state=0)
    with pytest.raises(ValueError):
        SupportVectorMachine(C=0).fit(X, y)
    with pytest.raises(ValueError):
        SupportVectorMachine(C=np.nan).fit(X, y)
    with pytest.raises(ValueError):
        SupportVectorMachine(loss="log").fit(X, y)
    with pytest.raises(ValueError):
        SupportVectorMachine(solver="newton").fit(X, y)
    with pytest.raises(ValueError):
        SupportVectorMachine(tol=-1).fit(X, y)
    with pytest.raises(ValueError):
        SupportVectorMachine().fit(X, np.zeros(40))          # one class
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        SupportVectorMachine().fit(Xn, y)
    with pytest.raises(ValueError):
        SupportVectorMachine().fit(X, y[:-1])
    with pytest.raises(NotFittedError):
        SupportVectorMachine().predict(X)
    with pytest.raises(ValueError):
        SupportVectorMachine().fit(X, y).predict(np.ones((3, 5)))
    with pytest.raises(ValueError):
        NuSupportVectorMachine(nu=1.5).fit(X, y)
    with pytest.raises(ValueError):
        NuSupportVectorMachine(nu=0).fit(X, y)
    Xbig, ybig = make_moons(300, random_state=0)     # kernel columns computed on demand
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError):
            SupportVectorMachine(RBF(bad)).fit(X, y)
        with pytest.raises(ValueError):
            SupportVectorMachine(RBF(bad)).fit(Xbig, ybig)
    yy = np.r_[np.ones(36), -np.ones(4)]
    with pytest.raises(ValueError, match="infeasible"):
        NuSupportVectorMachine(nu=0.5).fit(X, yy)


def test_labels_clone_and_multiclass_wrappers():
    X, y = make_blobs(150, centers=3, random_state=0)
    base = SupportVectorMachine(RBF(1.0), C=1.0)
    assert clone(base).get_params()["C"] == 1.0
    for wrapper in (OneVsRestClassifier, OneVsOneClassifier):
        ours = wrapper(base).fit(X, y)
        sk = wrapper(SVC(C=1.0, gamma=RBF(1.0).gamma)).fit(X, y)
        assert np.mean(ours.predict(X) == sk.predict(X)) >= 0.99
    # string labels map to classes_ and back
    Xb, yb = make_moons(80, random_state=0)
    lab = np.where(yb > 0, "pos", "neg")
    s = SupportVectorMachine(RBF(0.5)).fit(Xb, lab)
    assert list(s.classes_) == ["neg", "pos"]
    assert set(s.predict(Xb)) <= {"neg", "pos"}


# ---------------------------------------------------------------- peer anchors

def test_peer_measurements_moons_m500():
    """peer-measurements.md §1-3 at m = 500 (sklearn tol 1e-6 / two-implementation anchors)."""
    k = RBF(0.5)
    X, y = peer_moons(500)
    s = SupportVectorMachine(k, C=1.0, tol=1e-8).fit(X, y)
    assert abs(s.dual_objective_ - 94.6008336529) <= 1e-6 * 94.6008336529
    assert len(s.support_) == 117 and int(np.sum(s.multipliers_ >= 1.0)) == 95
    assert s.intercept_ == pytest.approx(-0.09531, abs=1e-5)
    assert s.decision_function([[0.0, 0.0]])[0] == pytest.approx(1.31113, abs=1e-5)
    nu = NuSupportVectorMachine(k, nu=0.2, tol=1e-8).fit(X, y)
    W = -nu.dual_objective_ * 500 ** 2                 # libsvm scaling
    assert abs(W - 5.95823472796) <= 1e-6 * 5.95823472796 and len(nu.support_) == 113
    l2 = SupportVectorMachine(k, C=1.0, loss="squared_hinge", tol=1e-8).fit(X, y)
    assert abs(l2.dual_objective_ - 68.1230344082) <= 1e-6 * 68.1230344082
    assert len(l2.support_) == 458
    Xh, yh = peer_moons(500, noise=0.1, flip=0.0)
    h = SupportVectorMachine(k, hard_margin=True, tol=1e-8).fit(Xh, yh)
    assert abs(h.dual_objective_ - 64.6806039688) <= 1e-6 * 64.6806039688
    assert len(h.support_) == 11 and h.margin_ == pytest.approx(0.0879, abs=1e-4)


# ---------------------------------------------------------------- example weights (issue 27)

def _weights(m, seed=0, zeros=8):
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 3.0, m)
    w[rng.choice(m, zeros, replace=False)] = 0.0
    return w


def _sk_alpha(sk, m, sample_weight=None):
    """sklearn's signed dual coefficients on the original indices.

    libsvm drops examples of weight 0 and scikit-learn's ``support_`` then indexes the
    reduced sample (scikit-learn issue #25380, PR #27763): map it back.
    """
    rows = np.arange(m) if sample_weight is None else np.flatnonzero(sample_weight > 0)
    a = np.zeros(m)
    a[rows[sk.support_]] = sk.dual_coef_[0]
    return a, set(rows[sk.support_].tolist())


WEIGHT_CASES = [
    ("cancer-rbf", _cancer, RBF(3.0), 2.0),
    ("gauss-linear", _gaussians, Linear(), 0.5),
]


@pytest.mark.parametrize("class_weight", [None, "dict", "balanced"])
@pytest.mark.parametrize("weighted", [False, True], ids=["no-sw", "sw"])
@pytest.mark.parametrize("name,data,kernel,C", WEIGHT_CASES, ids=[c[0] for c in WEIGHT_CASES])
def test_weights_match_sklearn_svc(name, data, kernel, C, weighted, class_weight):
    """Box C_i = C w_i (libsvm): same support vectors, dual coefficients, intercept as SVC."""
    X, y = data()
    m = len(y)
    sw = _weights(m) if weighted else None
    cw = {"dict": {y.min(): 2.5}, None: None, "balanced": "balanced"}[class_weight]
    ours = SupportVectorMachine(kernel, C=C, tol=1e-9, class_weight=cw).fit(X, y, sample_weight=sw)
    sk_cw = cw
    if class_weight == "balanced":
        # ours balances the weighted class totals: W / (2 W_c) (computed here by hand)
        w = np.ones(m) if sw is None else sw
        want = [w.sum() / (2 * w[y == c].sum()) for c in ours.classes_]
        np.testing.assert_allclose(ours.class_weight_, want, rtol=1e-12)
        if weighted:          # SVC's 'balanced' counts examples, ignoring sample_weight
            sk_cw = dict(zip(ours.classes_.tolist(), ours.class_weight_))
    sk = SVC(C=C, tol=1e-9, **_sk_kernel(kernel), class_weight=sk_cw).fit(X, y, sample_weight=sw)
    a_sk, sv_sk = _sk_alpha(sk, m, sw)
    assert set(ours.support_.tolist()) == sv_sk
    np.testing.assert_allclose(ours.alpha_, a_sk, atol=1e-4 * C)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-4)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-4)
    # the per-example box of the weighted dual holds: 0 <= alpha_i <= C w_i
    Ci = C * (np.ones(m) if sw is None else sw) * ours.class_weight_[(y == ours.classes_[1]) * 1]
    assert np.all(ours.multipliers_ <= Ci * (1 + 1e-12)) and np.all(ours.multipliers_[Ci == 0] == 0)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_bias", [True, False])
def test_weighted_kkt_and_qp(loss, fit_bias):
    """KKT conditions of the weighted primal min 1/2||w||^2 + sum C_i xi_i (hinge) or
    1/2||w||^2 + 1/2 sum C_i xi_i^2 (squared hinge), and the QP route agrees."""
    X, y = _gaussians(120, seed=3)
    C = 0.8
    sw = _weights(len(y), seed=1, zeros=5)
    kw = dict(kernel=RBF(1.5), C=C, loss=loss, fit_bias=fit_bias)
    s = SupportVectorMachine(tol=1e-10, **kw).fit(X, y, sample_weight=sw)
    q = SupportVectorMachine(solver="qp", tol=1e-10, **kw).fit(X, y, sample_weight=sw)
    assert s.dual_objective_ == pytest.approx(q.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(s.decision_function(X), q.decision_function(X), atol=1e-4)
    y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
    yf = y_pm * s.decision_function(X)
    a, Ci = s.multipliers_, C * sw
    xi = np.maximum(0.0, 1.0 - yf)
    assert np.all(a[sw == 0] == 0)
    live = sw > 0
    if loss == "hinge":
        tol = 1e-7
        assert np.all(a <= Ci + 1e-12)
        assert np.all(yf[live & (a == 0)] >= 1 - tol)
        free = (a > 0) & (a < Ci)
        assert free.any() and np.all(np.abs(yf[free] - 1) <= tol)
        assert np.all(yf[live & (a >= Ci)] <= 1 + tol)
        primal = 0.5 / s.margin_ ** 2 + Ci @ xi
    else:
        # weighted eq. (2.50): xi_i = alpha_i / C_i on the live examples
        np.testing.assert_allclose(xi[live], a[live] / Ci[live], atol=1e-7)
        primal = 0.5 / s.margin_ ** 2 + 0.5 * Ci @ xi ** 2
    assert primal == pytest.approx(s.dual_objective_, rel=1e-7)
    if fit_bias:
        assert abs(y_pm @ a) < 1e-9


def test_integer_weights_equal_repeated_examples():
    """Weight k = the example k times, weight 0 = no example (the primal is the same);
    at the default tolerance, thanks to the exact solve on the free variables."""
    X, y = make_moons(120, random_state=11)
    w = np.random.default_rng(2).integers(0, 4, len(y))
    weighted = SupportVectorMachine(RBF(0.5), C=1.0).fit(X, y, sample_weight=w)
    repeated = SupportVectorMachine(RBF(0.5), C=1.0).fit(X.repeat(w, axis=0), y.repeat(w))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               rtol=1e-7, atol=1e-9)
    # unit weights change nothing; a common factor is the same as scaling C
    plain = SupportVectorMachine(RBF(0.5), C=2.0).fit(X, y)
    np.testing.assert_allclose(
        SupportVectorMachine(RBF(0.5), C=2.0).fit(X, y, np.ones(len(y))).alpha_, plain.alpha_)
    np.testing.assert_allclose(
        SupportVectorMachine(RBF(0.5), C=1.0).fit(X, y, np.full(len(y), 2.0)).alpha_,
        plain.alpha_, atol=1e-9)


def test_class_weight_favours_the_weighted_class():
    X, y = _gaussians(200, seed=4)
    base = SupportVectorMachine(Linear(), C=0.05).fit(X, y)
    heavy = SupportVectorMachine(Linear(), C=0.05, class_weight={1: 10.0}).fit(X, y)
    recall = [np.mean(est.predict(X)[y == 1] == 1) for est in (base, heavy)]
    assert recall[1] > recall[0]
    np.testing.assert_array_equal(heavy.class_weight_, [1.0, 10.0])
    # class_weight c = sample_weight c on that class
    sw = np.where(y == 1, 10.0, 1.0)
    same = SupportVectorMachine(Linear(), C=0.05).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(heavy.decision_function(X), same.decision_function(X), atol=1e-9)


def test_bad_weights_raise_clear_errors():
    X, y = make_moons(40, random_state=0)
    m = len(y)
    svm_ = SupportVectorMachine(RBF(0.5))
    cases = [
        (np.ones(m - 1), r"sample_weight.shape == \(39,\), expected \(40,\)"),
        (np.ones((m, 2)), "Sample weights must be 1D array or scalar"),
        (np.r_[-1.0, np.ones(m - 1)], "Negative values in data passed to `sample_weight`"),
        (np.r_[np.nan, np.ones(m - 1)], "Input sample_weight contains NaN"),
        (np.r_[np.inf, np.ones(m - 1)], "Input sample_weight contains infinity"),
        (np.zeros(m), "Sample weights must contain at least one non-zero number"),
        (np.where(y > 0, 1.0, 0.0), r"sample_weight is 0 on every example of class -1"),
    ]
    for sw, msg in cases:
        with pytest.raises(ValueError, match=msg):
            svm_.fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match=r"class_weight has weights for labels that are not "
                                         r"classes of y: \[3\]"):
        SupportVectorMachine(class_weight={1: 2.0, 3: 1.0}).fit(X, y)
    for bad in (-1.0, np.nan, np.inf, "heavy"):
        with pytest.raises(ValueError, match="class_weight values must be finite numbers >= 0"):
            SupportVectorMachine(class_weight={1: bad}).fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight \* class_weight is 0 on every example "
                                         r"of class 1"):
        SupportVectorMachine(class_weight={1: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):          # InvalidParameterError
        SupportVectorMachine(class_weight="auto").fit(X, y)
    for kw in ({"sample_weight": np.ones(m)}, {}):
        est = SupportVectorMachine(RBF(0.5), hard_margin=True,
                                   class_weight=None if kw else {1: 2.0})
        with pytest.raises(ValueError, match="hard margin .* has no slack"):
            est.fit(X, y, **kw)
    with pytest.raises(ValueError, match="sample_weight is 0 on every example of class -1"):
        NuSupportVectorMachine().fit(X, y, sample_weight=np.where(y > 0, 1.0, 0.0))


def test_weights_on_string_kernels_and_labels():
    """Weights go with any input the kernel takes (lists of strings here); class_weight
    keys are the labels; weight 0 is the same as leaving the string out."""
    from kernelclf.kernels import Normalized, SpectrumKernel

    rng = np.random.default_rng(0)
    X = ["".join(rng.choice(list("acgt"), 20)) for _ in range(40)]
    X = [s if i % 2 == 0 else s[:5] + "gattac" + s[11:] for i, s in enumerate(X)]
    lab = np.where(np.arange(40) % 2, "pos", "neg")
    k = Normalized(SpectrumKernel(3))
    a = SupportVectorMachine(k, class_weight={"pos": 3.0}).fit(X, lab)
    b = SupportVectorMachine(k).fit(X, lab, sample_weight=np.where(lab == "pos", 3.0, 1.0))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)
    w = np.ones(40)
    w[:4] = 0.0
    c = SupportVectorMachine(k, probability=True, random_state=0).fit(X, lab, sample_weight=w)
    d = SupportVectorMachine(k).fit(X[4:], lab[4:])
    np.testing.assert_allclose(c.decision_function(X), d.decision_function(X), atol=1e-9)
    assert not set(c.support_.tolist()) & {0, 1, 2, 3}
    assert np.allclose(c.predict_proba(X).sum(axis=1), 1.0)


# ---------------------------------------------------------------- probabilities (issue 27)

def _platt_reference(f, y):
    """Platt's objective with his regularised targets, minimised by BFGS (scipy)."""
    from scipy.optimize import minimize

    pos = y > 0
    n1, n0 = pos.sum(), (~pos).sum()
    t = np.where(pos, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))

    def obj(ab):
        z = ab[0] * f + ab[1]
        p = 1 / (1 + np.exp(z))
        return np.sum(t * z + np.logaddexp(0, -z)), np.array([f @ (t - p), np.sum(t - p)])

    return minimize(obj, [0.0, 0.0], jac=True, method="BFGS", options={"gtol": 1e-10}).x


def test_fit_platt_sigmoid_minimises_platts_objective():
    rng = np.random.default_rng(0)
    for n, shift in ((300, 0.3), (40, -1.0), (1000, 2.0)):
        f = 2.0 * rng.normal(size=n)
        y = np.where(f + rng.normal(size=n) > shift, 1, -1)
        A, B = platt.fit_platt_sigmoid(f, y)
        np.testing.assert_allclose([A, B], _platt_reference(f, y), atol=1e-5)
        assert A < 0
    # perfectly separated outputs: the regularised targets keep (A, B) finite
    A, B = platt.fit_platt_sigmoid([-3.0, -2.0, 2.0, 3.0], [-1, -1, 1, 1])
    assert np.isfinite(A) and np.isfinite(B) and A < 0
    with pytest.raises(ValueError, match="NaN"):
        platt.fit_platt_sigmoid([0.0, np.nan], [1, -1])


def _calibrated_svc(C, kernel, class_weight=None, nu=None):
    """scikit-learn's Platt scaling on cross-validated SVC outputs with the same folds
    (scikit-learn 1.9 recommends exactly this in place of SVC(probability=True))."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import StratifiedKFold

    base = NuSVC(nu=nu, tol=1e-9, **_sk_kernel(kernel)) if nu else \
        SVC(C=C, tol=1e-9, class_weight=class_weight, **_sk_kernel(kernel))
    return CalibratedClassifierCV(base, method="sigmoid", ensemble=False,
                                  cv=StratifiedKFold(5, shuffle=True, random_state=0))


@pytest.mark.parametrize("class_weight", [None, {0: 3.0}])
def test_probabilities_match_calibrated_svc(class_weight):
    """Platt (1999) / Lin, Lin & Weng (2007): sigmoid on 5-fold cross-validated outputs.
    Reference: scikit-learn's CalibratedClassifierCV(SVC, 'sigmoid', ensemble=False) on
    the same folds; tolerance 1e-5 (both solve the same two-parameter problem, LBFGS
    there and Newton here, on decision values that agree to ~1e-6)."""
    X, y = _cancer(200)
    Xt = StandardScaler().fit_transform(load_breast_cancer().data)[300:450]
    k = RBF(3.0)
    ours = SupportVectorMachine(k, C=2.0, tol=1e-9, probability=True, random_state=0,
                                class_weight=class_weight).fit(X, y)
    ref = _calibrated_svc(2.0, k, class_weight).fit(X, y)
    P = ours.predict_proba(Xt)
    np.testing.assert_allclose(P, ref.predict_proba(Xt), atol=1e-5)
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # monotone in the decision function (probA_ < 0 on sensible data)
    f = ours.decision_function(Xt)
    assert ours.probA_ < 0
    order = np.argsort(f)
    assert np.all(np.diff(P[order, 1]) >= 0) and P[order[-1], 1] > P[order[0], 1]
    np.testing.assert_allclose(ours.predict_log_proba(Xt), np.log(P), rtol=1e-10)
    # the model itself is the plain SVM; the same seed gives the same sigmoid
    plain = SupportVectorMachine(k, C=2.0, tol=1e-9, class_weight=class_weight).fit(X, y)
    np.testing.assert_array_equal(ours.alpha_, plain.alpha_)
    again = clone(ours).fit(X, y)
    assert (again.probA_, again.probB_) == (ours.probA_, ours.probB_)


def test_nu_svm_probabilities():
    """The nu-SVM's outputs are scaled by each fold's rho (book scaling) where NuSVC
    divides by it, so the pooled cross-validated values differ slightly from libsvm's:
    agreement with the calibrated NuSVC to 0.03."""
    X, y = make_moons(300, random_state=3)
    Xt, _ = make_moons(300, random_state=4)
    k = RBF(0.5)
    ours = NuSupportVectorMachine(k, nu=0.3, tol=1e-9, probability=True, random_state=0).fit(X, y)
    P = ours.predict_proba(Xt)
    np.testing.assert_allclose(P, _calibrated_svc(None, k, nu=0.3).fit(X, y).predict_proba(Xt),
                               atol=0.03)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    order = np.argsort(ours.decision_function(Xt))
    assert np.all(np.diff(P[order, 1]) >= 0)


def test_predict_proba_only_with_probability_true():
    X, y = make_moons(60, random_state=0)
    for Est in (SupportVectorMachine, NuSupportVectorMachine):
        assert not hasattr(Est(), "predict_proba")
        assert not hasattr(Est(), "predict_log_proba")
        assert hasattr(Est(probability=True), "predict_proba")
        fitted = Est(RBF(0.5)).fit(X, y)
        with pytest.raises(AttributeError, match="has no attribute 'predict_proba'") as exc:
            fitted.predict_proba(X)
        assert "probability=False" in str(exc.value.__cause__)
        fitted.set_params(probability=True)       # not refitted: no sigmoid yet
        with pytest.raises(NotFittedError, match="probability=False"):
            fitted.predict_proba(X)
        with pytest.raises(NotFittedError):
            Est(probability=True).predict_proba(X)
    tiny = SupportVectorMachine(probability=True, random_state=0).fit(X[:4], np.array([0, 1, 0, 1]))
    assert np.all(np.isfinite(tiny.predict_proba(X)))        # libsvm's folds (issue 38)
    with pytest.raises(ValueError, match="probability"):
        SupportVectorMachine(probability="yes").fit(X, y)


def test_probability_with_a_single_example_of_a_class():
    """One example of class -1: libsvm's folds (fewer than 5 examples in a class); the
    training part of its fold has no -1, so its held-out point gets the output +1
    (libsvm's rule) instead of a failing fit; the sigmoid is still fitted and the
    probabilities are proper."""
    X, y = make_moons(60, random_state=1)
    y = np.where(np.arange(60) < 59, 1, -1)
    s = SupportVectorMachine(RBF(0.5), C=10.0, probability=True, random_state=0).fit(X, y)
    P = s.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)
    assert np.all(P[:, 1] > 0.5)                 # 59 of 60 examples are +1


@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
@pytest.mark.parametrize("m", [150, 600])
def test_compiled_smo_matches_svc_dual_and_support_vectors(C, m):
    """Issue 29: the dual objective equals libsvm's to 1e-6 relative and the support
    vectors are the same (two moons, noise 0.3, RBF sigma 0.5 = gamma 2, tight tolerance)."""
    from sklearn.datasets import make_moons
    X, y = make_moons(m, noise=0.3, random_state=0)
    k = RBF(0.5)
    ours = SupportVectorMachine(k, C=C, tol=1e-6).fit(X, y)
    sk = SVC(C=C, gamma=k.gamma, tol=1e-6).fit(X, y)
    v = sk.dual_coef_[0]
    D_sk = float(np.abs(v).sum() - 0.5 * v @ k(X[sk.support_]) @ v)
    assert abs(ours.dual_objective_ - D_sk) <= 1e-6 * abs(D_sk)
    assert np.array_equal(np.sort(ours.support_), np.sort(sk.support_))
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-4)


def test_support_vectors_as_in_svc():
    """Issue 24: support_, support_vectors_ and n_support_ mean what they mean in SVC."""
    X, y = make_blobs(120, centers=2, cluster_std=3.0, random_state=3)
    ours = SupportVectorMachine(RBF(1.0), C=1.0, tol=1e-6).fit(X, y)
    sk = SVC(C=1.0, gamma=RBF(1.0).gamma, tol=1e-6).fit(X, y)
    assert np.array_equal(np.sort(ours.support_), np.sort(sk.support_))
    assert np.array_equal(ours.support_vectors_, X[ours.support_])
    assert np.array_equal(ours.n_support_, sk.n_support_)


# ---------------------------------------------------------------- SVC's attribute names (issue 24)

def test_dual_coef_support_and_intercept_equal_svcs():
    """Issue 24, no name traps: dual_coef_ (1, n_SV) of y_i alpha_i, support_ (in SVC's
    class-by-class order), support_vectors_, n_support_ and intercept_ are SVC's, with
    SVC's gamma = 1/(2 sigma^2), to the solver tolerance."""
    X, y = make_moons(200, noise=0.3, random_state=5)
    sigma, C = 0.6, 2.0
    ours = SupportVectorMachine(RBF(sigma), C=C, tol=1e-8).fit(X, y)
    sk = SVC(C=C, kernel="rbf", gamma=1.0 / (2.0 * sigma ** 2), tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    assert ours.dual_coef_.shape == sk.dual_coef_.shape == (1, len(sk.support_))
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-4 * C)
    np.testing.assert_array_equal(ours.support_vectors_, sk.support_vectors_)
    np.testing.assert_array_equal(ours.n_support_, sk.n_support_)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], abs=1e-6)
    # the signed coefficients of all m points, and the expansion over the support
    np.testing.assert_array_equal(ours.dual_coef_[0], ours.alpha_[ours.support_])
    f = RBF(sigma)(X, ours.support_vectors_) @ ours.dual_coef_[0] + ours.intercept_
    np.testing.assert_allclose(f, ours.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_multipliers_are_the_books_alphas(loss):
    """multipliers_: the book's alpha_i >= 0 of all m points, <= C (hinge), zero off the
    support; dual_coef_ is multipliers_ * y on the support."""
    X, y = make_moons(150, noise=0.3, random_state=6)
    C = 1.5
    s = SupportVectorMachine(RBF(0.5), C=C, loss=loss).fit(X, y)
    a = s.multipliers_
    y_pm = np.where(y == s.classes_[1], 1.0, -1.0)
    assert a.shape == (len(y),)
    assert np.all(a >= 0)
    if loss == "hinge":
        assert np.all(a <= C) and np.any(a == C)
    off = np.setdiff1d(np.arange(len(y)), s.support_)
    assert np.all(a[off] == 0) and np.all(a[s.support_] > 0)
    np.testing.assert_array_equal(s.dual_coef_[0], (a * y_pm)[s.support_])
    np.testing.assert_array_equal(s.alpha_, a * y_pm)


def test_nu_svm_dual_coef_is_nusvcs_times_rho():
    """NuSVC divides by rho (libsvm); the book's scaling keeps it: same support_ in the
    same order, NuSVC.dual_coef_ = dual_coef_ / rho_, NuSVC.intercept_ = intercept_ / rho_."""
    X, y = make_moons(200, noise=0.3, random_state=7)
    k = RBF(0.5)
    ours = NuSupportVectorMachine(k, nu=0.3, tol=1e-9).fit(X, y)
    sk = NuSVC(nu=0.3, tol=1e-9, **_sk_kernel(k)).fit(X, y)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    # libsvm's tolerance on the free coefficients and on rho: 2e-3 relative
    np.testing.assert_allclose(ours.dual_coef_ / ours.rho_, sk.dual_coef_, rtol=2e-3)
    assert ours.intercept_ / ours.rho_ == pytest.approx(sk.intercept_[0], rel=2e-3)
    assert np.all(ours.multipliers_ >= 0) and np.all(ours.multipliers_ <= 1 / len(y))
    assert ours.multipliers_.sum() == pytest.approx(0.3)


def _margin_machines():
    from kernelclf.margin.amm import AdaptiveMarginMachine, LeaveOneOutMachine
    from kernelclf.margin.rmm import RelativeMarginMachine, RelaxedRMM, SigmaSVM
    from kernelclf.margin.universum import UniversumSVM

    return [SupportVectorMachine(RBF(0.5), C=2.0), NuSupportVectorMachine(RBF(0.5), nu=0.3),
            RelativeMarginMachine(RBF(0.5), C=2.0, B=1.5), RelaxedRMM(RBF(0.5), C=2.0),
            SigmaSVM(RBF(0.5), C=2.0), AdaptiveMarginMachine(RBF(0.5), lam=0.5),
            LeaveOneOutMachine(RBF(0.5)), UniversumSVM(RBF(0.5), C=2.0)]


@pytest.mark.parametrize("est", _margin_machines(), ids=lambda e: type(e).__name__)
def test_every_margin_machine_names_its_coefficients_as_svc(est):
    """Issue 24: for every kernel margin machine dual_coef_ is the (1, n_SV) array of the
    expansion coefficients of the support vectors in the order of support_ (classes_[0]'s
    first, as SVC), support_vectors_ their inputs; multipliers_ keeps the book's
    non-negative dual variables."""
    X, y = make_moons(80, noise=0.3, random_state=8)
    est.fit(X, y)
    sv = est.support_
    assert est.dual_coef_.shape == (1, len(sv)) and len(sv) > 0
    np.testing.assert_array_equal(est.dual_coef_[0], est.alpha_[sv])
    off = np.setdiff1d(np.arange(len(est.alpha_)), sv)
    assert np.all(np.abs(est.alpha_[off]) <= 1e-7 * np.abs(est.alpha_).max())
    np.testing.assert_array_equal(est.support_vectors_, est.X_fit_[sv])
    labels = np.where(y[sv] == est.classes_[1], 1, 0)
    assert np.all(np.diff(labels) >= 0)                  # classes_[0]'s support vectors first
    assert np.all(np.diff(sv[labels == 0]) > 0) and np.all(np.diff(sv[labels == 1]) > 0)
    assert est.multipliers_.ndim == 1 and np.all(est.multipliers_ >= 0)
    assert len(est.multipliers_) >= len(y)


def test_margin_errors_exceed_nu_at_the_default_tol_but_not_at_the_optimum():
    """The margin_errors docstring: the nu-property holds at the optimum, not for a fit
    stopped at tol. With a small rho the default tol counts far more than nu margin errors
    (as scikit-learn's NuSVC does), a tight tol fewer than nu."""
    from sklearn.datasets import make_moons as sk_make_moons

    X, y = sk_make_moons(80, noise=0.3, random_state=0)
    loose = NuSupportVectorMachine(RBF(1.0), nu=0.1).fit(X, y)
    # (without numba the NumPy engine's active-set finish ends at the optimum already)
    assert loose.margin_errors() == pytest.approx(0.275 if smo.HAVE_NUMBA else 0.0625)
    sk = NuSVC(gamma=0.5, nu=0.1).fit(X, y)
    assert np.mean((2 * y - 1) * sk.decision_function(X) < 1 - 1e-6) == pytest.approx(0.2625)
    tight = NuSupportVectorMachine(RBF(1.0), nu=0.1, tol=1e-9).fit(X, y)
    assert tight.converged_ and tight.rho_ > 0
    assert tight.margin_errors() == pytest.approx(0.0625)


def test_the_qp_gap_tolerance_of_the_svm_and_the_nu_svm(monkeypatch):
    """The tol docstrings: solver='qp' hands cvxopt min(tol, 1e-8) for the C-SVM and
    min(tol, 1e-9) for the nu-SVM (whose tol is otherwise as the C-SVM's)."""
    seen = []
    real = _dual.solve_dual

    def spy(*args, **kwargs):
        seen.append(kwargs["qp_tol"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_dual, "solve_dual", spy)
    X, y = make_moons(40, noise=0.2, random_state=0)
    for tol in (1e-3, 1e-10):
        SupportVectorMachine(RBF(0.5), solver="qp", tol=tol).fit(X, y)
        NuSupportVectorMachine(RBF(0.5), nu=0.3, solver="qp", tol=tol).fit(X, y)
    assert seen == [1e-8, 1e-9, 1e-10, 1e-10]
