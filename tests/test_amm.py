"""Tests for kernelclf.margin.amm (LKC §2.5, Thm 2.37, eq. 2.55-2.58, App. B.6, D.2.3;
book chapter 05).

Independent references: brute-force refitting for the leave-one-out error,
Vapnik's #SV/m bound, the LP with the zero-diagonal Gram matrix solved by
SciPy's interior-point HiGHS variant, and the LP constraints themselves.
"""
import numpy as np
import pytest
from scipy.optimize import linprog

from kernelclf.bounds.loo import jaakkola_haussler_bound, leave_one_out_error, support_vector_bound
from kernelclf.datasets import make_moons
from kernelclf.kernels import RBF, Linear, Polynomial
from kernelclf.margin import AdaptiveMarginMachine, LeaveOneOutMachine, SupportVectorMachine


def _small(seed, m=40):
    return make_moons(m, noise=0.25, flip=0.1, random_state=seed)


@pytest.mark.parametrize("seed,C", [(0, 1.0), (1, 10.0), (2, 0.3), (3, 3.0)])
def test_loo_below_jaakkola_haussler_below_sv_fraction(seed, C):
    X, y = _small(seed)
    est = SupportVectorMachine(RBF(0.7), C=C, fit_bias=False, tol=1e-10)
    svm = est.fit(X, y)
    loo_brute = leave_one_out_error(est, X, y, shortcut=False)
    loo_fast = leave_one_out_error(est, X, y, shortcut=True)
    jh = jaakkola_haussler_bound(svm)
    assert loo_fast == loo_brute
    assert loo_brute <= jh + 1e-12 <= support_vector_bound(svm) + 2e-12
    # the bound recomputed from its definition with an explicit double loop
    K = RBF(0.7)(X)
    a, yy = svm.multipliers_, np.where(y > 0, 1.0, -1.0)
    terms = [-yy[i] * sum(a[j] * yy[j] * K[i, j] for j in range(len(y)) if j != i) >= 0
             for i in range(len(y))]
    assert jh == pytest.approx(np.mean(terms))


def test_jaakkola_haussler_requires_bias_free_svm():
    X, y = _small(4)
    with pytest.raises(ValueError, match="fit_bias=False"):
        jaakkola_haussler_bound(SupportVectorMachine(RBF(0.7)).fit(X, y))


def _check_constraints(model, X, y, lam, kernel):
    K = kernel(X)
    yy = np.where(y == model.classes_[1], 1.0, -1.0)
    a, xi = model.multipliers_, model.slack_
    np.testing.assert_array_equal(model.dual_coef_[0], (a * np.where(
        y == model.classes_[1], 1.0, -1.0))[model.support_])             # SVC's layout
    lhs = yy * (K @ (a * yy))
    rhs = 1 - xi + lam * a * np.diag(K)
    assert np.all(a >= 0) and np.all(xi >= 0)
    assert np.all(lhs >= rhs - 1e-7 * max(1, np.abs(lhs).max()))
    assert model.objective_ == pytest.approx(xi.sum(), abs=1e-7)


def _loom_reference(K, yy):
    """eq. (2.56) with the Gram diagonal set to zero, solved by HiGHS interior point."""
    m = len(yy)
    K0 = K - np.diag(np.diag(K))
    M = yy[:, None] * K0 * yy[None, :]
    res = linprog(np.r_[np.zeros(m), np.ones(m)], A_ub=np.hstack([-M, -np.eye(m)]),
                  b_ub=-np.ones(m), bounds=[(0, None)] * (2 * m), method="highs-ipm")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("kernel", [RBF(0.5), 3.0 * RBF(0.8), Polynomial(2, 1.0)])
def test_loom_equals_zero_diagonal_lp_and_amm_lambda_one(kernel):
    X, y = _small(5, m=60)
    loom = LeaveOneOutMachine(kernel).fit(X, y)
    amm1 = AdaptiveMarginMachine(kernel, lam=1.0).fit(X, y)
    yy = np.where(y > 0, 1.0, -1.0)
    ref = _loom_reference(kernel(X), yy)
    assert loom.objective_ == pytest.approx(ref, rel=1e-6, abs=1e-8)
    assert amm1.objective_ == pytest.approx(loom.objective_, rel=1e-9, abs=1e-9)
    _check_constraints(loom, X, y, 1.0, kernel)
    _check_constraints(amm1, X, y, 1.0, kernel)
    # sparse expansion
    assert len(loom.support_) < len(y)


@pytest.mark.parametrize("lam", [0.0, 0.3, 2.0])
def test_amm_constraints_hold_and_objective_grows_with_lambda(lam):
    kernel = 2.0 * RBF(0.6)                          # k_ii = 2: exposes erratum E7
    X, y = _small(6, m=60)
    model = AdaptiveMarginMachine(kernel, lam=lam).fit(X, y)
    _check_constraints(model, X, y, lam, kernel)
    bigger = AdaptiveMarginMachine(kernel, lam=lam + 0.5).fit(X, y)
    # larger lambda tightens every constraint, so the optimum cannot fall
    assert bigger.objective_ >= model.objective_ - 1e-8
    acc = np.mean(model.predict(X) == y)
    assert acc > 0.7


def test_erratum_e7_printed_diagonal_differs_when_kii_is_not_one():
    kernel = 2.0 * RBF(0.6)
    X, y = _small(7, m=50)
    lam = 0.5
    model = AdaptiveMarginMachine(kernel, lam=lam).fit(X, y)
    K = kernel(X)
    yy = np.where(y > 0, 1.0, -1.0)
    m = len(y)
    # D.2.3 as printed: diagonal k_ii - lambda
    M = yy[:, None] * K * yy[None, :] - lam * np.eye(m)
    res = linprog(np.r_[np.zeros(m), np.ones(m)], A_ub=np.hstack([-M, -np.eye(m)]),
                  b_ub=-np.ones(m), bounds=[(0, None)] * (2 * m), method="highs-ipm")
    # eq. (2.58): diagonal (1 - lambda) k_ii
    M2 = yy[:, None] * K * yy[None, :] - lam * np.diag(np.diag(K))
    res2 = linprog(np.r_[np.zeros(m), np.ones(m)], A_ub=np.hstack([-M2, -np.eye(m)]),
                   b_ub=-np.ones(m), bounds=[(0, None)] * (2 * m), method="highs-ipm")
    assert model.objective_ == pytest.approx(res2.fun, rel=1e-6, abs=1e-8)
    assert abs(res.fun - res2.fun) > 1e-3
    # with a normalised kernel (k_ii = 1) the two coincide
    norm = AdaptiveMarginMachine(RBF(0.6), lam=lam).fit(X, y)
    K1 = RBF(0.6)(X)
    M3 = yy[:, None] * K1 * yy[None, :] - lam * np.eye(m)
    res3 = linprog(np.r_[np.zeros(m), np.ones(m)], A_ub=np.hstack([-M3, -np.eye(m)]),
                   b_ub=-np.ones(m), bounds=[(0, None)] * (2 * m), method="highs-ipm")
    assert norm.objective_ == pytest.approx(res3.fun, rel=1e-6, abs=1e-8)


def test_bad_input():
    X, y = _small(8, m=30)
    with pytest.raises(ValueError):
        AdaptiveMarginMachine(lam=-1).fit(X, y)
    with pytest.raises(ValueError):
        AdaptiveMarginMachine(lam=np.inf).fit(X, y)
    with pytest.raises(ValueError):
        LeaveOneOutMachine().fit(X, np.ones(30))
    with pytest.raises(ValueError):
        LeaveOneOutMachine(Linear()).fit(X[:, :1].tolist() + [[np.nan]], np.r_[y, 1])


def test_loo_of_lp_machine_is_brute_force():
    """The SV shortcut is only valid for SVMs: for the LOOM every point is refitted."""
    X, y = _small(9, m=25)
    est = LeaveOneOutMachine(RBF(0.7))
    loo = leave_one_out_error(est, X, y)
    errs = 0
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        f = est.fit(X[keep], y[keep]).decision_function(X[i:i + 1])[0]
        errs += (1 if y[i] > 0 else -1) * f <= 0
    assert loo == errs / len(y)


def test_amm_lp_where_highs_reports_unknown_status():
    """Thyroid split 1, RBF(1), lam = 2: HiGHS's simplex ends with model status "Unknown" on
    this feasible, bounded LP, with or without a box depending on the machine; solve_lp
    retries (box, interior point).  Reference: the same LP solved by SciPy's HiGHS
    interior-point method inside an explicit box, whose optimum is interior."""
    from kernelclf.datasets import load

    b = load("thyroid_splits")
    X, y = b.X_train[1], b.y_train[1]
    amm_ = AdaptiveMarginMachine(RBF(1.0), lam=2.0).fit(X, y)
    G = RBF(1.0)(X)
    ys = np.where(y == amm_.classes_[1], 1.0, -1.0)
    m = len(ys)
    M = ys[:, None] * G * ys[None, :] - 2.0 * np.diag(np.diag(G))
    ref = linprog(np.r_[np.zeros(m), np.ones(m)], A_ub=np.hstack([-M, -np.eye(m)]),
                  b_ub=-np.ones(m), bounds=[(0, 1e9)] * (2 * m), method="highs-ipm")
    assert ref.status == 0 and ref.x.max() < 1e8
    assert amm_.objective_ == pytest.approx(ref.fun, rel=1e-6)
    scale = 1 + np.abs(M) @ amm_.multipliers_  # HiGHS's feasibility tolerance is relative
    assert np.all(M @ amm_.multipliers_ >= 1 - amm_.slack_ - 1e-6 * scale)
    assert amm_.slack_.sum() == pytest.approx(amm_.objective_, rel=1e-9)


def _unknown_for(fail):
    """A stand-in for SciPy's linprog answering "Unknown" (status 4) when ``fail(method,
    boxed)`` is true, else solving; records the calls."""
    import scipy.optimize as so

    real, calls = so.linprog, []

    def fake(c, bounds=None, method="highs", **kw):
        boxed = any(b is not None and b[1] is not None and b[1] >= 1e7 for b in bounds)
        calls.append((method, boxed))
        if fail(method, boxed):
            return so.OptimizeResult(status=4, message="model_status is Unknown", x=None)
        return real(c, bounds=bounds, method=method, **kw)

    return fake, calls


@pytest.mark.parametrize("fail,tried", [
    (lambda meth, boxed: not boxed, [("highs", False), ("highs", True)]),
    (lambda meth, boxed: meth == "highs", [("highs", False), ("highs", True), ("highs-ipm", False)]),
])
def test_solve_lp_retries_when_highs_says_unknown(monkeypatch, fail, tried):
    """The fallbacks of solve_lp on a status-4 answer; reference: the LP solved directly
    (a small LP with the AMM's structure: min 1'xi s.t. M a + xi >= 1, a, xi >= 0)."""
    import scipy.optimize as so

    from kernelclf.optim import solve_lp
    rng = np.random.default_rng(0)
    m = 12
    M = rng.normal(size=(m, m))
    c = np.r_[np.zeros(m), np.ones(m)]
    A, b = np.hstack([-M, -np.eye(m)]), -np.ones(m)
    ref = linprog(c, A_ub=A, b_ub=b, bounds=[(0, None)] * (2 * m), method="highs")
    fake, calls = _unknown_for(fail)
    monkeypatch.setattr(so, "linprog", fake)
    sol = solve_lp(c, A2=A, b2=b)
    assert calls == tried
    assert sol.objective == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)
    assert np.all(A @ sol.x <= b + 1e-7)


def test_solve_lp_gives_up_with_a_clear_error(monkeypatch):
    import scipy.optimize as so

    from kernelclf.optim import InfeasibleProblemError, solve_lp
    fake, calls = _unknown_for(lambda meth, boxed: True)
    monkeypatch.setattr(so, "linprog", fake)
    with pytest.raises(InfeasibleProblemError, match="HiGHS stopped"):
        solve_lp(np.ones(2), A2=-np.eye(2), b2=-np.ones(2))
    assert len(calls) == 4
