"""Tests for kernelclf.margin.svm (LKC §2.4, eq. 2.45-2.52, App. B.5, D.2; book chapter 04).

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
from kernelclf.margin import NuSupportVectorMachine, SupportVectorMachine, is_separable, svm


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
    a = s.dual_coef_
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
    np.testing.assert_allclose(xi, ours.dual_coef_ / C, atol=1e-6)


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
    assert s.margin_ == pytest.approx(1 / np.sqrt(s.dual_coef_.sum()), rel=1e-6)
    assert s.margin_ == pytest.approx(1 / np.sqrt(2 * D), rel=1e-6)
    assert np.min(y_pm * s.decision_function(X)) == pytest.approx(1.0, abs=1e-6)
    # as C grows, the soft margin reaches the hard margin (LKC §2.4.2)
    soft = SupportVectorMachine(k, C=1e6, tol=1e-9).fit(X, y)
    assert soft.dual_objective_ == pytest.approx(s.dual_objective_, rel=1e-6)


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
    monkeypatch.setattr(svm, "_PRECOMPUTE_MAX", 100)
    b = SupportVectorMachine(RBF(0.5), tol=1e-8, cache_mb=1.0).fit(X, y)
    assert a.dual_objective_ == pytest.approx(b.dual_objective_, rel=1e-9)


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
    assert ours.dual_coef_.sum() == pytest.approx(nu)
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
    assert len(s.support_) == 117 and int(np.sum(s.dual_coef_ >= 1.0)) == 95
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
