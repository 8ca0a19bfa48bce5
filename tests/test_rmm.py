"""Tests of kernelclf.margin.rmm (RMM §3.1–3.4): fast solver against cvxopt, KKT list, SVM limit."""
import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from kernelclf.kernels import RBF, Gram, Linear, Polynomial
from kernelclf.margin import (
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    SupportVectorMachine,
    kkt_violations,
    rmm_bound,
    solve_rmm,
    solve_rmm_qp,
)
from kernelclf.margin.rmm_solver import HAVE_NUMBA


def _data(kind, m=80, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "elongated":           # RMM §2: classes separated along a low-spread axis
        X = rng.normal(size=(m, 2)) * np.array([4.0, 0.6])
        y = np.where(X[:, 1] + 0.3 * X[:, 0] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    elif kind == "moons":
        t = rng.uniform(0, np.pi, m)
        lab = rng.integers(0, 2, m)
        X = np.column_stack([np.cos(t) + lab, np.sin(t) * (1 - 2 * lab) + 0.5 * lab])
        X += 0.2 * rng.normal(size=X.shape)
        y = 2.0 * lab - 1.0
    else:                             # overlapping Gaussians in 5-D
        X = rng.normal(size=(m, 5))
        y = np.where(X @ rng.normal(size=5) + 0.8 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


CASES = [("elongated", Linear()), ("moons", RBF(0.7)), ("gauss", Polynomial(3, 1.0)),
         ("gauss", RBF(2.0))]


def _theta(X, y, kernel, C):
    svm = SupportVectorMachine(kernel, C=C, tol=1e-8).fit(X, y)
    return float(np.max(np.abs(svm.decision_function(X))))


@pytest.mark.parametrize("kind,kernel", CASES)
@pytest.mark.parametrize("kappa", [0.6, 0.2])
def test_fast_solver_equals_qp(kind, kernel, kappa):
    X, y = _data(kind)
    C = 2.0
    theta = _theta(X, y, kernel, C)
    B = rmm_bound(theta, kappa, 1)
    fast = RelativeMarginMachine(kernel, C=C, B=B, tol=1e-6).fit(X, y)
    qp = RelativeMarginMachine(kernel, C=C, B=B, solver="qp").fit(X, y)
    assert fast.converged_
    assert fast.dual_objective_ == pytest.approx(qp.dual_objective_, rel=1e-6)
    f1, f2 = fast.decision_function(X), qp.decision_function(X)
    scale = np.max(np.abs(f2))
    assert np.max(np.abs(f1 - f2)) < 1e-3 * scale
    far = np.abs(f2) > 1e-2 * scale
    assert np.all(np.sign(f1[far]) == np.sign(f2[far]))
    # primal = dual (eq. 11 against eq. 12), and the bounds hold
    assert fast.primal_objective() == pytest.approx(fast.dual_objective_, rel=1e-5)
    assert np.all(np.abs(fast.train_outputs_) <= B + 1e-5)
    assert np.all(np.abs(qp.decision_function(X)) <= B + 1e-4)


@pytest.mark.parametrize("kind,kernel", CASES)
def test_kkt_list_of_section_3_3(kind, kernel):
    X, y = _data(kind, seed=3)
    C = 1.0
    B = rmm_bound(_theta(X, y, kernel, C), 0.3, 1)
    eps = 1e-3
    res = solve_rmm(Gram(kernel, X), y, C, B, tol=eps)
    assert res.converged
    viol = kkt_violations(res, y, C, B, eps=eps)
    assert len(viol) == 7
    assert sum(viol.values()) == 0, viol
    assert len(kkt_violations(res, y, C, None, eps=eps)) == 3     # B=None: alpha's three only
    # some bound multipliers are active, so the bounds actually bind
    assert res.lam.sum() + res.lam_star.sum() > 0
    # a perturbed solution violates the list (the check can fail)
    bad = solve_rmm(Gram(kernel, X), y, C, B, tol=eps, max_iter=3)
    assert sum(kkt_violations(bad, y, C, B, eps=eps).values()) > 0


def test_kkt_erratum_E19_sign():
    """E19: for lam_i = 0 the printed condition 'f_i <= B - eps' would reject an exact
    optimum with points on the bound at the tolerance; the corrected one accepts it."""
    X, y = _data("elongated", seed=5)
    C = 1.0
    B = rmm_bound(_theta(X, y, Linear(), C), 0.3, 1)
    res = solve_rmm_qp(Linear()(X), y, C, B)
    f = res.g + res.bias
    on_bound = (res.lam < 1e-7) & (f > B - 1e-4)
    assert on_bound.any() or np.any(np.isclose(f, B, atol=1e-4))
    assert kkt_violations(res, y, C, B, eps=1e-4, zero=1e-7)["lam=0: f <= B + eps (E19)"] == 0


@pytest.mark.parametrize("kind,kernel", CASES[:3])
def test_large_B_is_the_svm(kind, kernel):
    X, y = _data(kind, seed=1)
    C = 1.5
    theta = _theta(X, y, kernel, C)
    svm = SupportVectorMachine(kernel, C=C, fit_bias=True, tol=1e-8).fit(X, y)
    for B in (None, theta * 1.01, 10 * theta):
        rmm = RelativeMarginMachine(kernel, C=C, B=B, tol=1e-8).fit(X, y)
        assert rmm.dual_objective_ == pytest.approx(svm.dual_objective_, rel=1e-6)
        np.testing.assert_allclose(rmm.decision_function(X), svm.decision_function(X),
                                   atol=1e-4 * theta)
        assert np.allclose(rmm.beta_, 0.0)
    rel = RelativeMarginMachine(kernel, C=C, B=1.0, B_mode="relative", tol=1e-8).fit(X, y)
    assert rel.theta_ == pytest.approx(theta, rel=1e-4)
    assert np.isinf(rel.B_)
    np.testing.assert_allclose(rel.decision_function(X), svm.decision_function(X),
                               atol=1e-4 * theta)


def test_large_B_matches_sklearn_svc():
    X, y = _data("moons", m=100, seed=2)
    sigma, C = 0.7, 3.0
    rmm = RelativeMarginMachine(RBF(sigma), C=C, B=1e6, tol=1e-8).fit(X, y)
    svc = SVC(C=C, kernel="rbf", gamma=1 / (2 * sigma ** 2), tol=1e-10).fit(X, y)
    np.testing.assert_allclose(rmm.decision_function(X), svc.decision_function(X), atol=1e-4)
    assert -svc.dual_coef_.sum() == pytest.approx(0.0, abs=1e-8)
    assert np.abs(svc.dual_coef_).sum() == pytest.approx(np.abs(rmm.alpha_).sum(), rel=1e-4)
    # issue 24: without an active bound the RMM's SVC-named attributes are SVC's
    np.testing.assert_array_equal(rmm.support_, svc.support_)
    np.testing.assert_allclose(rmm.dual_coef_, svc.dual_coef_, atol=1e-3 * C)
    np.testing.assert_array_equal(rmm.support_vectors_, svc.support_vectors_)
    np.testing.assert_allclose(rmm.multipliers_[rmm.support_],
                               np.abs(rmm.dual_coef_[0]), atol=1e-12)
    assert np.allclose(rmm.beta_, 0.0)


def test_relative_grid_and_outputs_bounded():
    X, y = _data("gauss", m=120, seed=4)
    k = RBF(2.0)
    prev = None
    for kappa in (0.9, 0.5, 0.2, 0.05):
        r = RelativeMarginMachine(k, C=5.0, B=kappa, B_mode="relative", tol=1e-5).fit(X, y)
        assert r.B_ == pytest.approx(1 + (r.theta_ - 1) * kappa)
        assert np.all(np.abs(r.decision_function(X)) <= r.B_ + 1e-4)
        # a tighter bound shrinks the feasible set: the optimal value cannot decrease
        if prev is not None:
            assert r.dual_objective_ >= prev - 1e-6 * abs(prev)
        prev = r.dual_objective_


def test_output_bounds_hold_to_tol_at_the_default_and_exactly_at_a_tight_tol():
    """RelativeMarginMachine.fit's docstring: the bounds |f(x_i)| <= B hold exactly only at
    the optimum; a fit stopped at the default tol keeps them to within tol (KKT list of
    RMM §3.3 with E19) and may exceed B by more than round-off."""
    from sklearn.datasets import make_moons

    over = []
    for seed in range(4):
        X, y = make_moons(150, noise=0.3, random_state=seed)
        w = np.ones(150)
        w[::7], w[1::5] = 0.0, 2.0
        for sw in (None, w):
            for kappa in (0.5, 0.25, 0.1):
                r = RelativeMarginMachine(RBF(1.0), C=1.0, B=kappa,
                                          B_mode="relative").fit(X, y, sample_weight=sw)
                pos = slice(None) if sw is None else sw > 0
                over.append(np.abs(r.decision_function(X[pos])).max() - r.B_)
    assert max(over) <= 1e-3                    # within the default tol
    assert max(over) > 1e-6                     # but not to round-off for every fit
    X, y = make_moons(150, noise=0.3, random_state=1)
    tight = RelativeMarginMachine(RBF(1.0), C=1.0, B=0.1, B_mode="relative",
                                  tol=1e-8).fit(X, y)
    assert np.abs(tight.decision_function(X)).max() <= tight.B_ + 1e-9


def test_bad_input():
    X, y = _data("gauss", m=30)
    for B in (1.0, 0.5, -2.0):
        with pytest.raises(ValueError, match="B must be > 1"):
            RelativeMarginMachine(B=B).fit(X, y)
    with pytest.raises(ValueError, match="kappa"):
        RelativeMarginMachine(B=1.5, B_mode="relative").fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RelativeMarginMachine(B=2.0).fit(Xn, y)
    with pytest.raises(ValueError, match="two classes"):
        RelativeMarginMachine(B=2.0).fit(X, np.ones(len(y)))
    with pytest.raises(ValueError):
        SigmaSVM(D=1.0).fit(X, y)


def test_check_estimator_all_pass():
    for est in (RelativeMarginMachine(), RelativeMarginMachine(B=0.5, B_mode="relative"),
                RelaxedRMM(D=1.0, nu=0.5), SigmaSVM(D=0.5)):
        check_estimator(est)


# ---- variants: eq. 14 and eq. 15 ------------------------------------------------
@pytest.mark.parametrize("nu", [None, 0.3, 2.0])
@pytest.mark.parametrize("D", [0.3, 3.0])
def test_relaxed_bisection_equals_qp(nu, D):
    X, y = _data("moons", m=70, seed=6)
    qp = RelaxedRMM(RBF(0.7), C=2.0, D=D, nu=nu, solver="qp").fit(X, y)
    fast = RelaxedRMM(RBF(0.7), C=2.0, D=D, nu=nu, solver="smo", tol=1e-7).fit(X, y)
    assert qp.primal_objective() == pytest.approx(qp.dual_objective_, rel=1e-6)
    assert fast.primal_objective() == pytest.approx(qp.dual_objective_, rel=1e-5)
    np.testing.assert_allclose(fast.decision_function(X), qp.decision_function(X), atol=2e-3)
    assert qp.t_ >= 1.0 and fast.t_ >= 1.0
    if nu is None:     # with hard bounds t = max(1, max |f|) is unique; with slacks it may not be
        assert fast.t_ == pytest.approx(qp.t_, rel=1e-3, abs=1e-3)
        assert np.all(np.abs(qp.decision_function(X)) <= qp.t_ + 1e-5)


def test_eq14_reproduces_eq11_for_some_D():
    """RMM §3.4: for each B there is a D with the same solution. With D equal to the
    bound multipliers' total at B (the slope of the value in t), eq. 14 returns t = B."""
    X, y = _data("elongated", m=80, seed=7)
    C = 1.0
    B = rmm_bound(_theta(X, y, Linear(), C), 0.4, 1)
    r11 = RelativeMarginMachine(Linear(), C=C, B=B, solver="qp").fit(X, y)
    D = float(r11.beta_.sum())
    assert D > 0
    r14 = RelaxedRMM(Linear(), C=C, D=D, solver="qp").fit(X, y)
    assert r14.t_ == pytest.approx(B, rel=1e-4)
    np.testing.assert_allclose(r14.decision_function(X), r11.decision_function(X), atol=1e-4)


def test_eq15_nu_controls_outliers():
    X, y = _data("gauss", m=100, seed=8)
    out = []
    for nu in (0.2, 1.0, 5.0):
        r = RelaxedRMM(RBF(2.0), C=5.0, D=2.0, nu=nu, solver="qp").fit(X, y)
        f = r.decision_function(X)
        out.append(np.mean(np.abs(f) > r.t_ + 1e-5))
        # slack beyond the band only where the band multiplier sits at its cap D nu / m
        cap = 2.0 * nu / len(y)
        outside = np.abs(f) > r.t_ + 1e-3
        assert np.all(r.beta_[outside].max(axis=1) >= cap * (1 - 1e-3))
    assert out[0] >= out[1] >= out[2]


# ---- Sigma-SVM -----------------------------------------------------------------
def _explicit_whitening(X, D):
    mu = X.mean(axis=0)
    S = np.cov(X.T, bias=True)
    M = (1 - D) * np.eye(X.shape[1]) + D * S
    ev, U = np.linalg.eigh(M)
    W = U @ np.diag(ev ** -0.5) @ U.T
    return lambda Z: (Z - mu) @ W


@pytest.mark.parametrize("D", [0.0, 0.3, 0.9])
def test_sigma_svm_linear_equals_svm_on_whitened_data(D):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(70, 3)) @ np.array([[3.0, 0.5, 0.0], [0.0, 0.4, 0.2], [0.1, 0.0, 2.0]])
    y = np.where(X[:, 1] + 0.2 * rng.normal(size=70) > 0, 1, -1)
    Xt = rng.normal(size=(40, 3))
    T = _explicit_whitening(X, D)
    sig = SigmaSVM(Linear(), C=2.0, D=D, tol=1e-8).fit(X, y)
    ref = SupportVectorMachine(Linear(), C=2.0, tol=1e-8).fit(T(X), y)
    np.testing.assert_allclose(sig.decision_function(Xt), ref.decision_function(T(Xt)),
                               atol=1e-5)
    assert sig.dual_objective_ == pytest.approx(ref.dual_objective_, rel=1e-6)


def test_sigma_svm_translation_invariant_and_D0_is_svm():
    X, y = _data("moons", m=60, seed=10)
    Xt = _data("moons", m=30, seed=11)[0]
    shift = np.array([7.0, -3.0])
    a = SigmaSVM(RBF(0.8), C=1.0, D=0.7, tol=1e-8).fit(X, y)
    b = SigmaSVM(RBF(0.8), C=1.0, D=0.7, tol=1e-8).fit(X + shift, y)
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(Xt + shift),
                               atol=1e-6)
    lin = SigmaSVM(Linear(), C=1.0, D=0.7, tol=1e-8).fit(X, y)
    lin2 = SigmaSVM(Linear(), C=1.0, D=0.7, tol=1e-8).fit(X + shift, y)
    np.testing.assert_allclose(lin.decision_function(Xt), lin2.decision_function(Xt + shift),
                               atol=1e-6)
    # D = 0: the SVM on centred data = the SVM with bias
    s0 = SigmaSVM(RBF(0.8), C=1.0, D=0.0, tol=1e-8).fit(X, y)
    svm = SupportVectorMachine(RBF(0.8), C=1.0, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(s0.decision_function(Xt), svm.decision_function(Xt), atol=1e-5)


def test_sigma_svm_qp_equals_smo():
    X, y = _data("gauss", m=60, seed=12)
    a = SigmaSVM(RBF(2.0), C=1.0, D=0.5, tol=1e-8).fit(X, y)
    b = SigmaSVM(RBF(2.0), C=1.0, D=0.5, solver="qp").fit(X, y)
    assert a.dual_objective_ == pytest.approx(b.dual_objective_, rel=1e-6)


# ------------------------------------------------------- compiled engine = NumPy engine

def _same_solution(a, b):
    assert a.iterations == b.iterations and a.converged == b.converged
    for key in ("alpha", "lam", "lam_star", "v", "g"):
        np.testing.assert_allclose(getattr(a, key), getattr(b, key), rtol=1e-9, atol=1e-12)
    assert a.bias == pytest.approx(b.bias, rel=1e-9, abs=1e-12)
    assert a.objective == pytest.approx(b.objective, rel=1e-12)


def _same_columns(gram):
    """The Gram's Python columns computed with the compiled columns' formula (where the
    kernel has one), so that both engines see the same numbers bit for bit."""
    from kernelclf.kernels import native_columns

    spec = native_columns.column_spec(gram)
    if spec[0] == native_columns.NONE:
        return gram

    def column(i):
        out = np.empty(gram.m)
        native_columns._column(out, i, *spec)
        return out
    gram._colfun = gram._rawfun = gram._cache.column = column
    return gram


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kind,kernel", CASES)
@pytest.mark.parametrize("kappa", [None, 0.5, 0.15])
def test_compiled_engine_takes_the_numpy_engines_steps(kind, kernel, kappa):
    """The RMM runs on the package's SMO (a Replicated Gram matrix): the compiled loop is
    the element-by-element twin of the NumPy loop, so with the same kernel values (the
    compiled columns' formula on both sides) the same iterates; a cache of four columns
    forces evictions."""
    X, y = _data(kind, m=120, seed=7)
    C = 2.0
    B = None if kappa is None else rmm_bound(_theta(X, y, kernel, C), kappa, 1)
    runs = {}
    for engine in ("numpy", "compiled"):
        gram = _same_columns(Gram(kernel, X, precompute=False, cache_mb=4 * 8 * 120 / 2 ** 20))
        runs[engine] = solve_rmm(gram, y, C, B, tol=1e-5, engine=engine, newton_every=50)
    _same_solution(runs["numpy"], runs["compiled"])
    assert sum(kkt_violations(runs["compiled"], y, C, B if B else np.inf, eps=1e-5).values()) == 0


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_compiled_engine_with_ridge_bounds_and_warm_start():
    X, y = _data("moons", m=100, seed=8)
    C, B = 1.0, 1.6
    base = {}
    for engine in ("numpy", "compiled"):
        gram = Gram(RBF(0.7), X, ridge=0.3)
        first = solve_rmm(gram, y, C, B, lam_ub=0.05, tol=1e-4, engine=engine)
        base[engine] = solve_rmm(gram, y, C, 1.4, lam_ub=0.05, tol=1e-4, engine=engine,
                                 alpha0=first.alpha, lam0=first.lam, lam_star0=first.lam_star)
    _same_solution(base["numpy"], base["compiled"])
    assert np.all(base["compiled"].lam <= 0.05 + 1e-12)


def test_engine_is_checked(monkeypatch):
    import kernelclf.margin.rmm_solver as rmm
    X, y = _data("gauss", m=30)
    with pytest.raises(ValueError, match="engine"):
        solve_rmm(Gram(Linear(), X), y, 1.0, 2.0, engine="fortran")
    monkeypatch.setattr(rmm, "HAVE_NUMBA", False)
    with pytest.raises(ImportError, match="numba"):
        solve_rmm(Gram(Linear(), X), y, 1.0, 2.0, engine="compiled")
    # 'auto' falls back to NumPy without numba
    assert solve_rmm(Gram(Linear(), X), y, 1.0, 2.0).converged


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_compiled_engine_after_switching_to_the_whole_matrix():
    """64 features: the compiled engine's slots switch to the whole matrix (after
    native_columns.switch_fraction of the columns, then computed anew by
    native_columns.whole_matrix); same optimum as the NumPy engine (columns throughout)
    and as cvxopt."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(240, 64))
    y = np.where(X[:, :8].sum(axis=1) + 0.5 * rng.normal(size=240) > 0, 1.0, -1.0)
    k, C = Polynomial(2, 1.0), 1.0
    B = rmm_bound(_theta(X, y, k, C), 0.2, 1)
    gram = Gram(k, X, precompute=False)
    fast = solve_rmm(gram, y, C, B, tol=1e-6, engine="compiled")
    # the whole matrix is held: c columns computed one by one, then the whole matrix
    assert any(c * 240 + 240 ** 2 == gram.n_computed for c in range(2, 240))
    ref = solve_rmm(Gram(k, X, precompute=False), y, C, B, tol=1e-6, engine="numpy")
    qp = solve_rmm_qp(k(X), y, C, B)
    assert fast.converged and ref.converged
    assert fast.objective == pytest.approx(ref.objective, rel=1e-7)
    assert fast.objective == pytest.approx(qp.objective, rel=1e-6)
    assert sum(kkt_violations(fast, y, C, B, eps=1e-6).values()) == 0


@pytest.mark.parametrize("kwargs, match", [
    ({"B": -3.0}, "B must be > 1"),
    ({"B": 1.0}, "B must be > 1"),
    ({"B": "2"}, "B must be a number"),
    ({"C": -1.0}, "C == -1.0, must be > 0"),
    ({"C": 0.0}, "C == 0.0, must be > 0"),
    ({"C": np.inf}, "C must be finite"),
    ({"lam_ub": -1.0}, "lam_ub == -1.0, must be >= 0"),
    ({"tol": 0.0}, "tol == 0.0, must be > 0"),
    ({"max_iter": 0}, "max_iter == 0, must be >= 1"),
])
def test_solve_rmm_validates_its_arguments(kwargs, match):
    """Issue 24: the public solver refused nothing (B=-3 and C=-1 'converged')."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    args = {"C": 1.0, "B": 2.0, **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        solve_rmm(Linear()(X), y, args.pop("C"), args.pop("B"), **args)


@pytest.mark.parametrize("y", [[0, 0, 1, 1], [1, 1, 2, 2], [-1, -1, 1, 3]])
def test_solve_rmm_wants_plus_minus_one_labels(y):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match=r"labels in \{-1, \+1\}"):
        solve_rmm(Linear()(X), np.array(y), 1.0, 2.0)
    # the estimator maps any two labels itself
    if len(set(y)) == 2:
        assert RelativeMarginMachine(B=2.0).fit(X, y).predict(X).tolist() == list(y)


@pytest.mark.parametrize("change, message", [
    (dict(alpha0=np.full(80, np.nan)), "alpha0 contains NaN"),
    (dict(lam0=np.full(80, np.inf)), "lam0 contains infinity"),
    (dict(lam_star0=np.zeros(79)), "lam_star0 must be a vector of 80 numbers"),
    (dict(tol=0.0), "tol == 0.0, must be > 0"),
    (dict(max_iter=0), "max_iter == 0, must be >= 1"),
    (dict(C=-1.0), "C == -1.0, must be > 0"),
])
def test_solve_rmm_refuses_bad_input(change, message):
    """Issue 37: the public RMM solver checks its warm starts (finite, of the right shape)
    besides its scalars, with scikit-learn's validators."""
    X, y = _data("elongated")
    kw = {"C": 1.0, "B": 2.0, **change}
    with pytest.raises(ValueError, match=message):
        solve_rmm(RBF(1.0)(X), y, kw.pop("C"), kw.pop("B"), **kw)


def test_an_infinite_step_is_reported_as_an_unbounded_dual():
    """A negative definite matrix (-K for an RBF K) and unbounded bound multipliers: the
    SMO steps grow without bound; the solver says the dual is unbounded instead of
    returning an infinite multiplier as converged (which a warm start then carried on)."""
    X, y = _data("elongated", m=20)
    with pytest.raises(ValueError, match="unbounded"):
        solve_rmm(-RBF(1.0)(X), y, 1.0, 2.0)


def test_B_above_a_tol_fit_theta_gives_the_svm_to_about_tol():
    """The B docstring: ``B >= theta`` reproduces the SVM at the optimum; with ``theta``
    taken from a fit stopped at the default tol the outputs agree to about tol (not to
    round-off: on some of these moons samples the bound is active)."""
    from sklearn.datasets import make_moons

    Z = np.random.default_rng(9).normal(size=(200, 2))
    diffs = []
    for seed in range(4):
        X, y = make_moons(60, noise=0.3, random_state=seed)
        svm = SupportVectorMachine(RBF(1.0), C=2.0).fit(X, y)
        theta = float(np.max(np.abs(svm.decision_function(X))))
        rmm = RelativeMarginMachine(RBF(1.0), C=2.0, B=theta * 1.0001).fit(X, y)
        diffs.append(np.abs(rmm.decision_function(Z) - svm.decision_function(Z)).max())
    assert max(diffs) <= 3 * svm.tol
    assert max(diffs) > 1e-6       # not round-off: the "at the optimum" qualifier is needed
