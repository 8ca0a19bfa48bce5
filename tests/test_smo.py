"""Tests for kernelclf.margin.smo (SMO with WSS2; book chapter 04).

References: cvxopt's interior-point QP (kernelclf.optim.solve_qp, an independent
solver), scikit-learn's libsvm, and the KKT conditions of the box-constrained
dual (Fan, Chen & Lin 2005, eq. 3-4).
"""
import warnings

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelclf.kernels import RBF, ColumnCache, Gram, Linear, Polynomial
from kernelclf.margin import DualDivergenceError, smo, solve_smo
from kernelclf.margin.smo import HAVE_NUMBA
from kernelclf.margin.smo.kkt import _Reconstruction
from kernelclf.optim import solve_qp


def _data(seed, m=80, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + 0.4 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def _kkt_gap(alpha, G, C, s):
    """Maximal violation m(a) - M(a) of the KKT conditions with y'a = 0."""
    F = -s * G
    up = np.where(s > 0, alpha < C, alpha > 0)
    low = np.where(s > 0, alpha > 0, alpha < C)
    return F[up].max() - F[low].min()


@pytest.mark.parametrize("seed,kernel,C", [(0, RBF(1.0), 1.0), (1, Linear(), 0.3),
                                           (2, Polynomial(2, 1.0), 5.0)])
def test_equality_case_matches_qp(seed, kernel, C):
    X, y = _data(seed)
    K = kernel(X)
    m = len(y)
    res = solve_smo(np.ones(m), C, K, s=y, tol=1e-9)
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=C, tol=1e-10)
    assert res.converged
    assert abs(res.objective - qp.objective) <= 1e-6 * abs(qp.objective)
    assert abs(y @ res.alpha) < 1e-10
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= C)
    # objective reported equals the objective recomputed from scratch
    assert np.isclose(res.objective, 0.5 * res.alpha @ Q @ res.alpha - res.alpha.sum())
    assert _kkt_gap(res.alpha, Q @ res.alpha - 1, C, y) <= 1e-9 * 1.0001


def test_no_equality_case_matches_qp_and_kkt():
    X, y = _data(3)
    K = RBF(0.7)(X)
    m = len(y)
    C = np.linspace(0.5, 2.0, m)                       # vector C
    res = solve_smo(np.ones(m), C, K, s=y, equality=False, tol=1e-9)
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, -np.ones(m), l=0.0, u=C, tol=1e-10)
    assert abs(res.objective - qp.objective) <= 1e-6 * abs(qp.objective)
    G = Q @ res.alpha - 1
    at0, atC = res.alpha <= 0, res.alpha >= C
    free = ~at0 & ~atC
    assert np.all(G[at0] >= -1e-8) and np.all(G[atC] <= 1e-8) and np.all(np.abs(G[free]) <= 1e-8)
    assert res.bias == 0.0


def test_bias_matches_libsvm():
    X, y = _data(4, m=120)
    k = RBF(0.8)
    res = solve_smo(np.ones(len(y)), 2.0, k(X), s=y, tol=1e-10)
    sk = SVC(C=2.0, gamma=k.gamma, tol=1e-10).fit(X, y)
    assert res.bias == pytest.approx(sk.intercept_[0], abs=1e-6)
    a = np.zeros(len(y))
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    assert np.max(np.abs(a - res.alpha)) < 1e-5


def test_kernel_columns_and_precomputed_agree_and_cache_is_bounded():
    X, y = _data(5, m=150)
    k = RBF(0.5)
    r1 = solve_smo(np.ones(150), 1.0, k(X), s=y, tol=1e-8)
    r2 = solve_smo(np.ones(150), 1.0, Gram(k, X, precompute=False, cache_mb=0.0), s=y,
                   tol=1e-8)
    r3 = solve_smo(np.ones(150), 1.0, Gram(G=k(X)), s=y, tol=1e-8, shrinking=False)
    # r2's budget holds 2 of 150 columns: past it the columns are kept in single precision
    # (libsvm's Qfloat), so its objective is the rounded matrix's; at its multipliers the
    # exact matrix's objective is r1's, and the two differ by at most the rounding's
    # effect (each entry within 2^-24 of its size)
    a, K = r2.alpha, k(X)
    exact = 0.5 * (y * a) @ K @ (y * a) - a.sum()
    assert r1.objective == pytest.approx(exact, rel=1e-9)
    assert abs(r2.objective - exact) <= 0.5 * 2.0 ** -24 * a @ np.abs(K) @ a
    assert r1.objective == pytest.approx(r3.objective, rel=1e-9)
    cache = ColumnCache(lambda i: np.full(10, float(i)), 10, cache_mb=0.0)
    for i in range(5):
        assert cache[i][0] == i
    assert len(cache._store) == cache.capacity == 2
    assert cache[4][0] == 4 and cache.computed == 5


def test_two_groups_nu_problem_matches_qp():
    X, y = _data(6, m=90)
    K = RBF(1.0)(X)
    m, nu = 90, 0.4
    a0 = np.zeros(m)
    for cls in (y > 0, y < 0):
        n_c = cls.sum()
        v = np.zeros(n_c)
        v[:int(nu * m / 2)] = 1.0
        v[int(nu * m / 2)] = nu * m / 2 - int(nu * m / 2)
        a0[cls] = v
    res = solve_smo(np.zeros(m), 1.0, K, s=y, groups=y, alpha0=a0, tol=1e-10)
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, np.zeros(m), A1=np.vstack([y, np.ones(m)]), b1=[0.0, nu * m], l=0.0,
                  u=1.0, tol=1e-10)
    assert res.objective == pytest.approx(qp.objective, rel=1e-6)
    assert res.alpha[y > 0].sum() == pytest.approx(nu * m / 2)
    assert res.alpha[y < 0].sum() == pytest.approx(nu * m / 2)


def test_divergence_detected_and_bad_input():
    # two identical points with opposite signs: the hard-margin dual is unbounded
    K = np.ones((2, 2))
    with pytest.raises(DualDivergenceError):
        solve_smo(np.ones(2), np.inf, K, s=np.array([1.0, -1.0]), alpha_bound=1e6)
    with pytest.raises(ValueError):
        solve_smo(np.ones(3), 1.0, np.eye(3), s=np.array([1.0, 0.0, -1.0]))
    with pytest.raises(ValueError):
        solve_smo(np.ones(3), -1.0, np.eye(3))
    with pytest.raises(ValueError):
        solve_smo(np.ones(3), 1.0, np.full((3, 3), np.nan))
    with pytest.raises(ValueError):
        solve_smo(np.ones(3), 1.0, np.eye(3), alpha0=np.full(3, 2.0))
    with pytest.raises(ValueError):
        solve_smo(np.ones(3), 1.0, np.eye(2))


def test_max_iter_reports_not_converged():
    X, y = _data(7, m=100)
    res = solve_smo(np.ones(100), 10.0, RBF(0.3)(X), s=y, tol=1e-12, max_iter=5)
    assert not res.converged and res.iterations == 5
    # the no-equality solver reports non-convergence the same way
    res2 = smo.solve_smo(np.ones(100), 1e6, Linear()(X), s=y, equality=False, tol=1e-12,
                         max_iter=3)
    assert not res2.converged and res2.iterations == 3


def test_shrinking_gives_the_same_optimum():
    X, y = _data(8, m=300, d=2)
    K = RBF(0.3)(X)
    a = solve_smo(np.ones(300), 10.0, K, s=y, tol=1e-9, shrinking=True)
    b = solve_smo(np.ones(300), 10.0, K, s=y, tol=1e-9, shrinking=False)
    assert a.iterations > 300                  # at least one shrinking round took place
    assert a.converged and b.converged
    assert a.objective == pytest.approx(b.objective, rel=1e-10)
    Q = y[:, None] * K * y[None, :]
    assert _kkt_gap(a.alpha, Q @ a.alpha - 1, 10.0, y) <= 1e-9 * 1.0001


# -- per-example bounds and polishing (issue 27) ---------------------------------------

def test_vector_C_with_equality_matches_qp_and_libsvm_weights():
    """C_i = C w_i: the box of libsvm's weighted C-SVM (scikit-learn SVC sample_weight)."""
    X, y = _data(9, m=100)
    k = RBF(0.9)
    K = k(X)
    m = len(y)
    w = np.random.default_rng(0).uniform(0.1, 4.0, m)
    C = 1.5 * w
    res = solve_smo(np.ones(m), C, K, s=y, tol=1e-10)
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=C, tol=1e-10)
    assert res.converged
    assert res.objective == pytest.approx(qp.objective, rel=1e-7)
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= C) and abs(y @ res.alpha) < 1e-10
    assert _kkt_gap(res.alpha, Q @ res.alpha - 1, C, y) <= 1e-10 * 1.0001
    sk = SVC(C=1.5, gamma=k.gamma, tol=1e-10).fit(X, y, sample_weight=w)
    a = np.zeros(m)
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    assert np.max(np.abs(a - res.alpha)) < 1e-5
    assert res.bias == pytest.approx(sk.intercept_[0], abs=1e-6)


@pytest.mark.parametrize("equality", [True, False])
def test_polish_reaches_the_exact_optimum(equality):
    """At a loose tolerance SMO stops early; the exact solve on the free set then gives
    the KKT point to round-off (checked by the KKT conditions and cvxopt's optimum). The
    pair loop itself (the NumPy engine's 'auto' run ends with an active-set finish that
    is exact by itself, see test_the_numpy_finish_*)."""
    X, y = _data(10, m=120)
    K = RBF(0.8)(X)
    m = len(y)
    C = np.where(y > 0, 2.0, 0.7)
    tol = 1e-3 if equality else 1e-2      # coordinate descent is already exact at 1e-3 here
    engine = "auto" if HAVE_NUMBA else "numpy"
    loose = solve_smo(np.ones(m), C, K, s=y, equality=equality, tol=tol, engine=engine)
    pol = solve_smo(np.ones(m), C, K, s=y, equality=equality, tol=tol, polish=True,
                    engine=engine)
    assert loose.gap > 1e-6 and pol.gap < 1e-9
    assert pol.objective <= loose.objective
    Q = y[:, None] * K * y[None, :]
    kw = {"A1": y[None, :], "b1": [0.0]} if equality else {}
    qp = solve_qp(Q, -np.ones(m), l=0.0, u=C, tol=1e-11, **kw)
    assert pol.objective == pytest.approx(qp.objective, rel=1e-9)
    G = Q @ pol.alpha - 1
    np.testing.assert_allclose(pol.gradient, G, atol=1e-9)
    if equality:
        assert _kkt_gap(pol.alpha, G, C, y) < 1e-9
        free = (pol.alpha > 0) & (pol.alpha < C)
        np.testing.assert_allclose(-y[free] * G[free], pol.bias, atol=1e-9)


def test_polish_with_repeated_examples_and_nu_groups():
    """Repeated examples make Q_FF singular (least squares then); the two-group nu
    problem is polished under both equalities."""
    X, y = _data(11, m=60)
    X, y = np.vstack([X, X[:20]]), np.r_[y, y[:20]]
    K = RBF(1.0)(X)
    m = len(y)
    res = solve_smo(np.ones(m), 1.0, K, s=y, tol=1e-3, polish=True)
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=1.0, tol=1e-11)
    assert res.gap < 1e-9 and res.objective == pytest.approx(qp.objective, rel=1e-8)
    nu = 0.4
    a0 = np.zeros(m)
    for cls in (y > 0, y < 0):
        a0[np.flatnonzero(cls)[:int(nu * m / 2)]] = 1.0
        a0[np.flatnonzero(cls)[int(nu * m / 2)]] = nu * m / 2 - int(nu * m / 2)
    r = solve_smo(np.zeros(m), 1.0, K, s=y, groups=y, alpha0=a0, tol=1e-3, polish=True)
    assert r.gap < 1e-9
    assert r.alpha[y > 0].sum() == pytest.approx(nu * m / 2)
    assert r.alpha[y < 0].sum() == pytest.approx(nu * m / 2)


@pytest.mark.parametrize("seed, d", [(0, 2), (0, 3), (5, 5)])
def test_polish_with_more_free_variables_than_features(seed, d):
    """A linear kernel on ``d`` features leaves ``d + 1`` free variables at the optimum:
    ``Q_FF`` is singular (rank ``d``; its Cholesky factorisation may end on round-off
    instead of failing) while the bordered system with the equality is regular. The
    polish must not trust the factor there (its pivots reveal the singular matrix) and
    reaches the exact optimum through the bordered system (cvxopt's optimum, the KKT
    conditions to round-off)."""
    rng = np.random.default_rng(seed)
    m = 200
    X = rng.normal(size=(m, d))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=m) > 0, 1.0, -1.0)
    K = Linear()(X)
    res = solve_smo(np.ones(m), 1.0, K, s=y, tol=1e-3, polish=True)
    assert np.count_nonzero((res.alpha > 0) & (res.alpha < 1.0)) > d
    Q = y[:, None] * K * y[None, :]
    qp = solve_qp(Q, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=1.0, tol=1e-11)
    assert res.gap < 1e-9
    assert res.objective == pytest.approx(qp.objective, rel=1e-9)
    assert _kkt_gap(res.alpha, Q @ res.alpha - 1, 1.0, y) < 1e-9


def test_bounds_of_the_wrong_shape_are_refused():
    with pytest.raises(ValueError, match="vector of 3 upper bounds"):
        solve_smo(np.ones(3), np.ones(2), np.eye(3))
    with pytest.raises(ValueError, match="vector of 3 upper bounds"):
        solve_smo(np.ones(3), np.ones((3, 1)), np.eye(3))
    with pytest.raises(ValueError, match="must be > 0"):
        solve_smo(np.ones(3), np.array([1.0, 0.0, 1.0]), np.eye(3))


# ---------------------------------------------------------------- the two engines
class _PythonRBF(RBF):
    """The RBF kernel with its columns computed by Python (kernels.native_columns compiles
    the columns of RBF itself only): both engines then read the same numbers."""


def _twin_cases():
    X, y = _data(7, m=120)
    m = len(y)
    K = RBF(0.8)(X)
    sep = RBF(0.3)(X)                                  # a narrow RBF: separable
    a0 = np.zeros(m)
    for cls in (y > 0, y < 0):                         # feasible nu start, nu = 0.3
        v = np.zeros(cls.sum())
        v[:int(0.3 * m / 2)] = 1.0
        a0[cls] = v
    b0 = np.zeros(m)
    b0[:int(0.3 * m)] = 1.0
    return {
        "L1 bias": (np.ones(m), 2.0, K, dict(s=y)),
        "L1 bias vector C": (np.ones(m), np.linspace(0.5, 3, m), K, dict(s=y)),
        "L2 bias (ridge)": (np.ones(m), np.inf, Gram(G=K, check=False).with_ridge(0.5),
                            dict(s=y)),
        "L2 bias (diag shift)": (np.ones(m), np.inf, K, dict(s=y,
                                                            diag_shift=np.linspace(.1, 1, m))),
        "hard bias": (np.ones(m), np.inf, sep, dict(s=y)),
        "L1 no bias": (np.ones(m), 5.0, K, dict(s=y, equality=False)),
        "L2 no bias": (np.ones(m), np.inf, K, dict(s=y, equality=False, diag_shift=0.3)),
        "hard no bias": (np.ones(m), np.inf, sep, dict(s=y, equality=False)),
        "nu bias": (np.zeros(m), 1.0, K, dict(s=y, groups=y, alpha0=a0)),
        "nu no bias": (np.zeros(m), 1.0, K, dict(kernel_signs=y, alpha0=b0)),
        "L1 no shrinking": (np.ones(m), 2.0, K, dict(s=y, shrinking=False)),
        "columns, small cache": (np.ones(m), 2.0, Gram(_PythonRBF(0.8),
                                                       np.c_[X, np.zeros((m, 40))],
                                                       precompute=False, cache_mb=0.005),
                                 dict(s=y)),
    }


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("name", list(_twin_cases()))
@pytest.mark.parametrize("tol", [1e-3, 1e-8])
def test_compiled_and_numpy_engines_take_the_same_steps(name, tol):
    """The compiled loop repeats the NumPy arithmetic element by element (smo.compiled):
    same number of iterations, the same alpha bit for bit, the same bias and gap."""
    p, C, K, kw = _twin_cases()[name]
    a = solve_smo(p, C, K, tol=tol, engine="numpy", **kw)
    b = solve_smo(p, C, K, tol=tol, engine="compiled", **kw)
    assert a.converged and b.converged
    assert a.iterations == b.iterations > 0
    assert np.array_equal(a.alpha, b.alpha)
    assert a.bias == b.bias and a.gap == b.gap and a.objective == b.objective
    assert np.array_equal(a.gradient, b.gradient)
    if "nu bias" in name:
        assert a.rho == b.rho


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_compiled_kernel_columns_agree_with_numpy_columns():
    """Columns computed inside the compiled loop (kernels.native_columns; few features)
    equal NumPy's to round-off: the same optimum at a tight tolerance."""
    X, y = _data(8, m=400, d=2)
    for kernel in (RBF(0.5), Polynomial(3, 1.0), Linear()):
        g1 = Gram(kernel, X, precompute=False, cache_mb=0.05)
        g2 = Gram(kernel, X, precompute=False, cache_mb=0.05)
        a = solve_smo(np.ones(400), 1.0, g1, s=y, tol=1e-9, engine="numpy")
        b = solve_smo(np.ones(400), 1.0, g2, s=y, tol=1e-9, engine="compiled")
        assert b.converged
        assert abs(a.objective - b.objective) <= 1e-9 * abs(a.objective)
        assert np.max(np.abs(a.alpha - b.alpha)) < 1e-6


def test_kkt_helpers_are_shared_by_both_engines():
    """smo.kkt's gradient reconstruction (from the last exact point, over the variables
    that moved since) gives the gradient computed from scratch, twice in a row, and
    leaves the variables it was not asked for alone."""
    X, y = _data(9, m=60)
    K = RBF(1.0)(X)
    res = solve_smo(np.ones(60), 1.0, K, s=y, tol=1e-6)
    alpha, F = np.zeros(60), y.copy()            # the start: F = s p with p = 1
    rec = _Reconstruction(F, alpha, y, lambda k: K[k])
    alpha[:] = res.alpha
    rec(np.arange(60))
    assert np.allclose(-y * F, res.gradient, atol=1e-10)
    alpha[:5] *= 0.5                             # a few move; half the rest are stale
    stale = F.copy()
    rec(np.arange(30, 60))
    exact = y - K @ (y * alpha)                # F_t = s_t p_t - sum_k K_tk s_k a_k
    assert np.allclose(F[30:], exact[30:], atol=1e-10)
    assert np.array_equal(F[:30], stale[:30]) and not np.allclose(F[:30], exact[:30])
    assert HAVE_NUMBA == smo.HAVE_NUMBA


def test_engine_argument_is_checked():
    with pytest.raises(ValueError, match="engine"):
        solve_smo(np.ones(3), 1.0, np.eye(3), engine="fast")
    with pytest.raises(ValueError, match="kernel_signs"):
        solve_smo(np.ones(3), 1.0, np.eye(3), kernel_signs=[1, 0, 1])


def _native_gram(X, cache_mb, kernel=None):
    """A Gram on few features (its columns computed in compiled code) whose Python columns
    use the same formula, so that both engines see the same numbers bit for bit."""
    from kernelclf.kernels import native_columns

    g = Gram(RBF(0.8) if kernel is None else kernel, X, precompute=False, check=False,
             cache_mb=cache_mb)
    spec = native_columns.column_spec(g)
    assert spec[0] != native_columns.NONE

    def column(i):
        out = np.empty(len(X))
        native_columns._column(out, i, *spec)
        return out
    g._colfun = g._rawfun = g._cache.column = column
    return g


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("pool", [True, False], ids=["pool", "split"])
@pytest.mark.parametrize("case", ["L1 bias", "vector C", "diag shift", "nu bias", "nu no bias"])
def test_the_compacted_layout_takes_the_same_steps(case, pool, monkeypatch):
    """Issue 29: with compiled columns and a cache smaller than the sample, the compiled
    SMO runs on libsvm's layout (shrinking moves the active variables and their cached
    entries forward; a missing column is computed on the active ones), its columns in
    one pool (whole while every variable is active, turned into compacted ones at the
    first shrinking: the budget holds at most half of the columns,
    ``compiled.POOL_SHARE``) or, with the pool off, in a budget split between whole
    columns (three quarters) and compacted ones. Either way it takes the NumPy engine's
    steps bit for bit, through shrinking and unshrinking (the gradient reconstructed in
    compiled code). Both at the same budget: past it, both engines keep their columns in
    single precision (:meth:`kernelclf.kernels.gram.ColumnSlots.single`) and read the
    same rounded numbers."""
    import kernelclf.margin.smo.loops as loops  # (the NumPy engine)
    from kernelclf.margin.smo import compiled, kkt

    X, y = _data(11, m=700, d=2)
    m = len(y)
    kw = {"L1 bias": dict(s=y), "vector C": dict(s=y, C=np.linspace(5, 60, m)),
          "diag shift": dict(s=y, C=np.inf, diag_shift=np.linspace(.05, .5, m)),
          "nu bias": dict(s=y, groups=y, p=np.zeros(m), C=1.0),
          "nu no bias": dict(kernel_signs=y, p=np.zeros(m), C=1.0)}[case]
    p, C = kw.pop("p", np.ones(m)), kw.pop("C", 30.0)
    tol = 1e-7
    if case.startswith("nu"):                      # a feasible start, nu = 0.2
        a0 = np.zeros(m)
        for cls in ((y > 0, y < 0) if case == "nu bias" else (np.ones(m, bool),)):
            idx = np.flatnonzero(cls)[:int(0.2 * m / (2 if case == "nu bias" else 1))]
            a0[idx] = 1.0
        kw["alpha0"] = a0
        tol = 1e-3                                 # (the nu dual stalls near 1e-5 here)
    calls, rebuilt = [], []
    real = compiled._compact_memory

    def spy(slots, m):
        calls.append((slots.capacity < slots.m, slots.pooled))
        return real(slots, m)

    class Spied(kkt._Reconstruction):
        def __call__(self, idx):
            rebuilt.append(idx.size)
            super().__call__(idx)
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    monkeypatch.setattr(loops, "_Reconstruction", Spied)
    if not pool:
        monkeypatch.setattr(compiled, "POOL_SHARE", 0.0)
    # (74 of 700 columns fit in double precision: both engines keep 148 in single)
    a = solve_smo(p, C, _native_gram(X, 0.4), tol=tol, engine="numpy", **kw)
    assert rebuilt and 0 < min(rebuilt)           # the NumPy engine shrank and unshrank
    g = _native_gram(X, 0.4)
    b = solve_smo(p, C, g, tol=tol, engine="compiled", **kw)
    assert calls == [(True, pool)] and a.converged and b.converged
    assert a.iterations == b.iterations > 0
    assert np.array_equal(a.alpha, b.alpha) and np.array_equal(a.gradient, b.gradient)
    assert a.bias == b.bias and a.gap == b.gap


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel, d, C", [(RBF(0.8), 2, 30.0), (Polynomial(3, 1.0, 0.02), 50, 1000.0),
                                          (Linear(), 40, 1.0), (RBF(gamma=0.02), 40, 1.0)])
def test_single_precision_columns_past_the_budget_solve_the_double_problem(kernel, d, C,
                                                                           monkeypatch):
    """Past the budget the compiled SMO keeps its columns in single precision (libsvm's
    ``Qfloat``): it solves the dual of the rounded matrix. Its solution meets the KKT
    conditions of the double-precision problem to within tol plus the rounding's effect
    on the gradient (each entry within ``2^-24 |K_tk|``), and its dual objective is within
    1e-6 (relative) of the double-precision solution's (the matrix stored)."""
    from kernelclf.margin.smo import compiled

    X, y = _data(7, m=400, d=d)
    m = len(y)
    stores = []
    real = compiled._compact_memory

    def spy(slots, m):
        out = real(slots, m)
        stores.append((slots.data.dtype, out.dtype, slots.capacity))
        return out
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    K = kernel(X)
    tol = 1e-3
    ref = solve_smo(np.ones(m), C, K, s=y, tol=tol, engine="compiled")
    g = Gram(kernel, X, precompute=False, check=False, cache_mb=60 * 8 * m / 2 ** 20)
    res = solve_smo(np.ones(m), C, g, s=y, tol=tol, engine="compiled")
    # (60 columns in double precision: 120 in single, at most half of the 400: one pool
    # of columns, whole then compacted, compiled.POOL_SHARE)
    assert stores[-1] == (np.float32, np.float32, 120)
    assert ref.converged and res.converged
    a = res.alpha
    G = y * (K @ (y * a)) - 1.0                     # the exact gradient
    effect = 2.0 ** -24 * np.abs(K) @ a
    gap = _kkt_gap(a, G, C, y)
    assert gap <= tol + 2.0 * effect.max()
    assert abs(a @ y) <= 1e-9 * C * m
    assert res.objective == pytest.approx(ref.objective, rel=1e-6)
    D = 0.5 * a @ (G - 1.0)                         # (the objective at the exact matrix)
    assert D == pytest.approx(ref.objective, rel=1e-6)


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_a_budget_holding_nearly_every_column_computes_each_about_once(monkeypatch):
    """Past the budget the compacted columns get a quarter of the columns the budget
    cannot hold (smo.compiled._compact_memory): with 195 double-precision columns of 400
    (390 in single precision, 10 missing) the whole columns take 387 slots, and each
    column is computed about once, as in libsvm's single store: at most 1.25 m^2 kernel
    entries (with three quarters of the budget for whole columns, 292 slots, this fit
    computes 1.7 m^2: columns made on the active rows, then whole again for the
    gradient's reconstruction). The solution is the NumPy engine's at the same budget (the
    same rounded numbers: the same steps)."""
    from kernelclf.margin.smo import compiled

    X, y = _data(4, m=400, d=40)
    m = len(y)
    held = []
    real = compiled._compact_memory

    def spy(slots, m):
        out = real(slots, m)
        held.append(slots)
        return out
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    kernel, budget, kw = RBF(gamma=0.05), 195 * 8 * m / 2 ** 20, dict(s=y, tol=1e-4)
    g = Gram(kernel, X, precompute=False, check=False, cache_mb=budget)
    res = solve_smo(np.ones(m), 1.0, g, engine="compiled", **kw)
    slots = held[-1]
    assert slots.data.dtype == np.float32 and slots.capacity == int(390 - 0.25 * 10)
    assert res.converged and np.count_nonzero(res.alpha) > 300
    assert g.n_computed <= 1.25 * m * m
    ref = solve_smo(np.ones(m), 1.0, Gram(kernel, X, precompute=False, check=False,
                                          cache_mb=budget), engine="numpy", **kw)
    assert ref.iterations == res.iterations and np.array_equal(ref.alpha, res.alpha)


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_a_budget_holding_every_column_in_single_precision(monkeypatch):
    """A budget of 300 double-precision columns of 400 holds them all in single precision:
    399 slots (:meth:`kernelclf.kernels.gram.ColumnSlots.single`, at most ``m - 1``),
    398 of them for whole columns, and the spare 201 columns' memory with the 399th for
    the compacted columns (smo.compiled._compact_memory; the split alone would leave
    them that one column). The polish reads ``Q_FF`` and the new
    gradient from the single-precision slots in place (kkt._rows_of: no ``m x n``
    block). The compiled fit takes the NumPy engine's steps at the same budget bit for
    bit (the same rounded numbers), and both polish to the same optimum of the rounded
    matrix: the same multipliers to round-off (the new gradient summed in another order),
    the KKT conditions to round-off."""
    from kernelclf.margin.smo import compiled

    X, y = _data(6, m=400, d=4)
    m = len(y)
    stores, reads = [], []
    real, real_lower = compiled._compact_memory, compiled._free_lower

    def spy(slots, m):
        out = real(slots, m)
        stores.append((slots.data.dtype, slots.capacity, slots.spare, out.size))
        return out

    def lower(D, *args):
        reads.append(D.dtype)
        return real_lower(D, *args)
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    monkeypatch.setattr(compiled, "_free_lower", lower)
    budget, kw = 300 * 8 * m / 2 ** 20, dict(s=y, tol=1e-3, polish=True)
    res = solve_smo(np.ones(m), 10.0, _native_gram(X, budget), engine="compiled", **kw)
    assert stores == [(np.float32, 398, 201, 202 * m)]
    assert reads == [np.dtype(np.float32)]
    loop = solve_smo(np.ones(m), 10.0, _native_gram(X, budget), engine="numpy", **kw)
    assert res.iterations == loop.iterations > 0
    assert res.gap < 1e-9 and loop.gap < 1e-9          # both polished (kept)
    np.testing.assert_allclose(res.alpha, loop.alpha, rtol=0, atol=1e-12 * 10.0)
    assert res.objective == pytest.approx(loop.objective, rel=1e-13)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_replicated_gram_takes_the_steps_of_the_whole_matrix(engine):
    """Issue 24: the relative margin machine's 3m variables share the columns of their
    points (kernels.gram.Replicated). The SMO on the view (the compiled loop reads the
    m x m columns through ``points``) takes the steps of the SMO on the 3m x 3m matrix
    written out, bit for bit, including the periodic Newton step."""
    from kernelclf.kernels import Replicated

    if engine == "compiled" and not smo.HAVE_NUMBA:
        pytest.skip("needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
    X, y = _data(12, m=80)
    K = RBF(0.8)(X)
    K = 0.5 * (K + K.T)                      # exactly symmetric: rows are columns
    view = Replicated(Gram(G=K, check=False), 3)
    big = np.tile(K, (3, 3))
    assert view.m == 240 and np.array_equal(view.diag, np.diag(big))
    assert all(np.array_equal(view.column(u), big[:, u]) for u in (0, 79, 80, 239))
    s = np.concatenate([y, -np.ones(80), np.ones(80)])
    p = np.concatenate([np.ones(80), np.full(160, -1.5)])
    box = np.concatenate([np.full(80, 2.0), np.full(160, 0.3)])
    kw = dict(s=s, tol=1e-6, newton_every=37, engine=engine)
    a = solve_smo(p, box, view, **kw)
    b = solve_smo(p, box, big, **kw)
    assert a.converged and a.iterations == b.iterations > 37
    assert np.array_equal(a.alpha, b.alpha) and a.bias == b.bias


def test_the_two_variable_step_keeps_the_equality_and_the_box():
    """smo.step.pair_step (one definition for both engines): the step keeps
    s_i a_i + s_j a_j, stays in the box, is the unclipped Newton step when that fits,
    and its compiled twin returns the same numbers."""
    from kernelclf.margin.smo import step as smo_step

    rng = np.random.default_rng(3)
    for _ in range(500):
        Ci, Cj = rng.uniform(0.5, 3.0, 2)
        ai, aj = rng.uniform(0, Ci), rng.uniform(0, Cj)
        Gi, Gj = rng.normal(size=2)
        quad = rng.uniform(0.1, 2.0)
        for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            ni, nj = smo_step.pair_step(ai, aj, Ci, Cj, Gi, Gj, quad, si != sj)
            assert 0 <= ni <= Ci and 0 <= nj <= Cj
            assert si * ni + sj * nj == pytest.approx(si * ai + sj * aj, abs=1e-12)
            assert (ni, nj) == smo_step.pair_step_c(ai, aj, Ci, Cj, Gi, Gj, quad, si != sj)
    # unclipped: opposite signs move both by (-Gi - Gj) / quad
    ni, nj = smo_step.pair_step(1.0, 1.0, 5.0, 5.0, -0.2, -0.4, 2.0, True)
    assert (ni, nj) == pytest.approx((1.3, 1.3))
    assert smo_step.bound_flags(1, 0.0, 1.0) == (True, False)
    assert smo_step.bound_flags(-1, 0.0, 1.0) == (False, True)
    assert smo_step.bound_flags(1, 0.5, 1.0) == (True, True)


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_the_compiled_passes_choose_as_argmax_does():
    """The passes of the compiled loop (in each variant): the extremes, WSS 2's partner and
    the update equal their NumPy formulas, ties going to the first position (as
    np.argmax), with kernel signs and two groups; no candidate gives position -1 and
    score 0."""
    from kernelclf.margin.smo import compiled

    rng = np.random.default_rng(5)
    for signed, two in ((False, False), (True, False), (False, True), (True, True)):
        compiled._variant(signed, two)
        space = compiled._VARIANTS[signed, two]
        for trial in range(100):
            n = int(rng.integers(1, 60))
            F = rng.integers(-3, 4, n).astype(float)           # many ties
            up, low = rng.random(n) < 0.6, rng.random(n) < 0.6
            grp = rng.integers(0, 2, n) if two else np.zeros(n, np.int64)
            q = rng.choice([-1.0, 1.0], n) if signed else np.ones(n)
            Ki, Kj, Kd = rng.random(n), rng.random(n), 1.0 + rng.random(n)
            e = np.empty(n)
            L = compiled.Layout(np.arange(n), np.arange(n), F.copy(), e, up, low, Kd, e, q,
                                e, e, grp, np.arange(n), np.empty(n))
            g = int(trial % 2) if two else 0
            inside = grp == g
            Fu, Fl = np.where(up & inside, F, -np.inf), np.where(low & inside, F, np.inf)
            gmax, ii, gmin = space["_extremes"](L.Fl, L.upl, L.lowl, L.grpl, n, g)
            assert (gmax, gmin) == (Fu.max(), Fl.min())
            assert ii == (int(Fu.argmax()) if gmax > -np.inf else -1)
            top = F.max() if trial % 3 else 0.5
            b = top - F
            a = np.maximum(Ki * (q * q[0]) * -2.0 + Kd + 1.3, smo.TAU)
            score = np.where(low & (b > 0) & inside, (b * b) / a, 0.0)
            jb, bb = space["_second"](L.Fl, L.lowl, L.grpl, L.ql, L.Kdl, L.score, Ki, 1.3,
                                      q[0], top, g, n)
            assert bb == score.max() and jb == (int(score.argmax()) if bb > 0 else -1)
            space["_update"](L.Fl, L.ql, Ki, Kj, q[0], q[-1], 0.7, -0.2, n)
            expect = (F - Ki * (q * q[0]) * 0.7) - Kj * (q * q[-1]) * -0.2
            assert np.array_equal(L.Fl, expect)


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_the_compiled_exponential_is_within_an_ulp():
    """native_columns._exp (the vectorised exp of the compiled RBF columns) against
    libm's exp (math.exp): within one unit in the last place from 1 down through the
    subnormals to 0, exact at 0, NaN kept."""
    import math

    from kernelclf.kernels import native_columns as nc

    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.random(20000) * 750.0, -rng.random(2000) * 1e-6,
                        [0.0, -0.0, -1e-300, -708.3, -708.5, -740.0, -745.1, -746.0, -800.0,
                         -1e300, -np.inf, 3.0, 700.0]])
    v = x.copy()
    nc._exp(v, v.size)
    ref = np.array([math.exp(t) for t in x])
    ulp = np.abs(v - ref) / np.spacing(np.maximum(ref, 5e-324))
    assert ulp.max() <= 1.0 and v[x == 0].tolist() == [1.0, 1.0]
    w = np.array([np.nan, -1.0])
    nc._exp(w, 2)
    assert np.isnan(w[0]) and w[1] == math.exp(-1.0)


def test_the_readme_quotes_the_recorded_svm_benchmark():
    """The README's table of fit-time ratios is the committed record of
    ``python -m benchmarks.svm --record`` (which chapter 04 renders), to two decimals,
    and the commit it names is the record's."""
    from pathlib import Path

    from kernelclf.experiments.results import load_results, parse_markdown_table

    bench = load_results("svm_benchmark.jsonl")
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    part = text[text.index("* `benchmarks.svm`"):text.index("* `benchmarks.bayes`")]
    heading, rows = parse_markdown_table(part)
    cs = [float(h.split("=")[1]) for h in heading[1:]]
    moons = {(r["m"], r["C"]): r["result"]["ratio"] for r in bench.records
             if r["problem"].startswith("moons")}
    assert len(rows) * len(cs) == len(moons) == 16
    for row in rows:
        for c, cell in zip(cs, row[1:]):
            assert cell == f"{moons[int(row[0]), c]:.2f}"
    assert f"commit {bench.header['provenance']['commit'][:7]}" in part


# -- issue 37: a shrink that leaves no variable active --------------------------------
def _engines():
    return ["numpy"] + (["compiled"] if smo.HAVE_NUMBA else [])


@pytest.mark.parametrize("engine", _engines())
@pytest.mark.parametrize("kernel", [Linear(), RBF(1.0)], ids=["linear", "rbf"])
def test_a_shrink_that_empties_the_active_set_ends_at_the_optimum(engine, kernel):
    """Two points of opposite labels: after one step both sit at a bound the shrink sets
    aside, and no variable is left active (the NumPy engine crashed there: "argmax of an
    empty sequence"). As libsvm, the loop then reconstructs the gradient and checks the
    full problem. The optimum in closed form: ``a_1 = a_2 = min(C, 2 / ||x_1 - x_2||^2)``
    in feature space."""
    C = 1.0
    capped = 0
    for seed in range(14):
        X = np.random.default_rng(seed).normal(size=(2, 2))
        y = np.array([1.0, -1.0])
        K = kernel(X)
        res = solve_smo(np.ones(2), C, K, s=y, engine=engine, polish=True)
        a = min(C, 2.0 / (K[0, 0] + K[1, 1] - 2.0 * K[0, 1]))
        capped += a == C
        assert res.converged
        np.testing.assert_allclose(res.alpha, [a, a], rtol=1e-12)
    assert capped >= 6                      # the case that shrinks everything: both at C


@pytest.mark.parametrize("engine", _engines())
def test_small_problems_with_duplicates_agree_across_engines(engine):
    """Tiny samples (2 to 13 points, some with a repeated point, random labels): every
    engine converges to cvxopt's optimum (the compiled one here also on the compacted
    layout: a cache of 8 columns). With that cache both engines keep the columns in
    single precision (libsvm's Qfloat): the multipliers reach the optimum of the exact
    matrix all the same, and the reported objective (the rounded matrix's) lies within
    the rounding's effect of the exact objective at them."""
    for seed in range(60):
        rng = np.random.default_rng(seed)
        m = int(rng.integers(2, 14))
        X = rng.normal(size=(m, 2))
        if m > 2 and seed % 2:
            X[-1] = X[0]
        y = rng.choice([-1.0, 1.0], m)
        y[0] = -y[1]
        C = float(rng.choice([0.1, 1.0, 100.0]))
        kernel = Linear() if seed % 3 == 0 else RBF(1.0)
        g = Gram(kernel, X, precompute=False, check=False,
                 cache_mb=8.2 * 8 * m / 2 ** 20 if seed % 4 == 1 else 200.0)
        res = solve_smo(np.ones(m), C, g, s=y, engine=engine, tol=1e-9)
        K = kernel(X)
        Q = y[:, None] * K * y[None, :]
        qp = solve_qp(Q, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=C, tol=1e-11)
        assert res.converged
        a = res.alpha
        exact = 0.5 * a @ Q @ a - a.sum()
        assert exact == pytest.approx(qp.objective, rel=1e-6, abs=1e-8)
        assert abs(res.objective - exact) <= (0.5 * 2.0 ** -24 * a @ np.abs(K) @ a
                                              if seed % 4 == 1 else 1e-9 * abs(exact))


def test_estimators_fit_tiny_samples_with_the_numpy_engine(monkeypatch):
    """The fits of issue 37 that crashed without numba (the NumPy engine forced): two
    points with kernel='rbf', one-versus-one on 4 points in 3 classes, three points with
    a duplicate; each against scikit-learn's SVC."""
    from sklearn.multiclass import OneVsOneClassifier

    from kernelclf.margin import SupportVectorMachine

    monkeypatch.setattr(smo, "HAVE_NUMBA", False)
    for seed in range(14):
        X = np.random.default_rng(seed).normal(size=(2, 2))
        ours = SupportVectorMachine("rbf").fit(X, [0, 1])
        sk = SVC(kernel="rbf").fit(X, [0, 1])
        np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X),
                                   atol=1e-6)
    y = [0, 1, 2, 2]
    for seed in range(5):
        X = np.random.default_rng(seed).normal(size=(4, 2))
        for kernel, sk_kw in ((None, dict(kernel="linear")), ("rbf", {})):
            ours = OneVsOneClassifier(SupportVectorMachine(kernel, tol=1e-10)).fit(X, y)
            sk = OneVsOneClassifier(SVC(tol=1e-10, **sk_kw)).fit(X, y)
            np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X),
                                       atol=1e-6)
    X3 = np.array([[0.0, 0.0], [1.0, 2.0], [1.0, 2.0]])
    for y3 in ([0, 1, 1], [1, 0, 1]):
        ours = SupportVectorMachine("rbf", C=10.0).fit(X3, y3)
        sk = SVC(C=10.0).fit(X3, y3)
        np.testing.assert_allclose(ours.decision_function(X3), sk.decision_function(X3),
                                   atol=1e-6)


# -- issue 37: libsvm's safeguards (unshrink at 10 tol, the full gap, the iteration limit) --
def _low_rank(seed, scale=None):
    """m = 48 points on 1-3 features, random labels, the kernel (<x, x'> + 1)^2 (rank 3, 6
    or 10): uniform on [-1, 1] (``scale=None``), or normal times ``scale``."""
    rng = np.random.default_rng(seed)
    d = 1 + seed % 3
    X = rng.uniform(-1, 1, size=(48, d)) if scale is None else rng.normal(size=(48, d)) * scale
    return X, rng.choice([-1.0, 1.0], 48)


@pytest.mark.parametrize("engine", _engines())
def test_low_rank_polynomial_problems_reach_libsvms_optimum(engine, monkeypatch):
    """Issue 37: C = 140, tol = 1e-4, 30 random problems on a low-rank kernel, fitted with
    the estimator's defaults (the NumPy engine forced, or the compiled one). Every fit
    converges (the old default of 100 000 + 100 m iterations stopped some of them; the
    default is now libsvm's own limit), its KKT gap on the full problem, from a gradient
    computed afresh, is within tol, and its dual value is SVC's to 1e-6. The pair loop
    (compiled) needs more than the old limit on some; the NumPy engine's active-set finish
    (kernelclf.margin.smo.loops) ends all of them in far fewer pair steps."""
    from sklearn.exceptions import ConvergenceWarning

    from kernelclf.margin import SupportVectorMachine

    if engine == "numpy":
        monkeypatch.setattr(smo, "HAVE_NUMBA", False)
    kernel = Polynomial(2, 1.0)
    iterations = []
    for seed in range(30):
        X, y = _low_rank(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            est = SupportVectorMachine(kernel, C=140.0, tol=1e-4).fit(X, y)
        sk = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=140.0, tol=1e-4).fit(X, y)
        K = kernel(X)
        v = sk.dual_coef_[0]
        D = np.abs(v).sum() - 0.5 * v @ K[np.ix_(sk.support_, sk.support_)] @ v
        a = est.multipliers_
        Q = y[:, None] * K * y[None, :]
        assert est.converged_ and _kkt_gap(a, Q @ a - 1.0, 140.0, y) <= 1e-4
        assert est.dual_objective_ == pytest.approx(D, rel=1e-6)
        iterations.append(est.n_iter_)
    if engine == "compiled":
        assert max(iterations) > 100_000 + 100 * 48     # (beyond the old default)
    else:
        assert max(iterations) < 10_000


def test_shrinking_does_not_stall_on_a_low_rank_problem():
    """The shrunk problem of a low-rank kernel can zigzag for a long time above 10 tol
    while the variables set aside violate the KKT conditions (without the watch, seed 19
    still has a full gap of about 2 after 100 000 steps, see the smo module docstring and
    ``test_without_the_stagnation_watch_a_low_rank_fit_stays_far_from_tol``; seeds 22, 27
    and 28 took 1.4 to 3.7 times the steps). The gap of the shrunk problem is watched: when
    it has not reached a new low for PATIENCE rounds, every variable comes back. With
    shrinking the fit now takes at most 1.25 times the steps it takes without, on these
    four problems."""
    for seed in (19, 22, 27, 28):
        X, y = _low_rank(seed, scale=2.0)
        K = Polynomial(2, 1.0)(X)
        a = solve_smo(np.ones(48), 140.0, K, s=y, tol=1e-4)
        b = solve_smo(np.ones(48), 140.0, K, s=y, tol=1e-4, shrinking=False)
        assert a.converged and b.converged
        assert a.iterations <= 1.25 * b.iterations
        assert a.objective == pytest.approx(b.objective, rel=1e-6)


@pytest.mark.parametrize("engine", _engines())
def test_the_reported_gap_is_the_full_problems_after_any_stop(engine):
    """After a stop at max_iter in the middle of a shrunk phase (and after convergence),
    ``gap`` is the maximal KKT violation of the full problem at the returned point, as
    computed from a gradient made afresh (it was the shrunk problem's, 2e-3 against 0.47
    in such a case)."""
    X, y = _low_rank(28, scale=2.0)
    K = Polynomial(2, 1.0)(X)
    Q = y[:, None] * K * y[None, :]
    for max_iter in (3000, 30_000, None):
        res = solve_smo(np.ones(48), 140.0, K, s=y, tol=1e-4, max_iter=max_iter,
                        engine=engine)
        assert res.converged == (max_iter is None)
        G = Q @ res.alpha - 1.0
        np.testing.assert_allclose(res.gradient, G, rtol=0, atol=1e-8)
        assert res.gap == pytest.approx(_kkt_gap(res.alpha, G, 140.0, y), abs=1e-8)
    res = solve_smo(np.ones(100), 1e6, Linear()(_data(7, m=100)[0]), s=_data(7, m=100)[1],
                    equality=False, tol=1e-12, max_iter=3, engine=engine)
    X7, y7 = _data(7, m=100)
    G = (y7[:, None] * Linear()(X7) * y7[None, :]) @ res.alpha - 1.0
    pg = np.where(res.alpha <= 0, np.minimum(G, 0), np.where(res.alpha >= 1e6,
                                                             np.maximum(G, 0), G))
    assert not res.converged and res.gap == pytest.approx(np.abs(pg).max(), rel=1e-12)


@pytest.mark.parametrize("engine", _engines())
def test_a_tolerance_below_round_off_stops_as_stalled(engine):
    """tol = 1e-16 cannot be reached here: a pair step then changes neither variable (it is
    below their round-off), and the same pair would be chosen for ever. The loop stops
    at the first such step, not converged and ``stalled``, instead of running to libsvm's
    limit of ten million iterations."""
    X, y = _data(3, m=200, d=2)
    res = solve_smo(np.ones(200), 1e3, RBF(0.5)(X), s=y, tol=1e-16, engine=engine)
    assert not res.converged and res.stalled and 0 < res.iterations < 1_000_000
    assert res.gap < 1e-10                  # round-off level, above tol
    ok = solve_smo(np.ones(200), 1e3, RBF(0.5)(X), s=y, tol=1e-9, engine=engine)
    assert ok.converged and not ok.stalled


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_the_engines_take_the_same_steps_through_the_unshrinks(monkeypatch):
    """libsvm's unshrink at 10 tol and the stagnation watch bring every variable back
    in all three loops at the same iterations: the NumPy loop, the compiled one and the
    compiled one on the compacted layout take the same steps bit for bit."""
    from kernelclf.margin.smo import compiled, kkt, loops

    X, y = _low_rank(28, scale=2.0)
    kernel = Polynomial(2, 1.0)
    rebuilt, calls = [], []

    class Spied(kkt._Reconstruction):
        def __call__(self, idx):
            rebuilt.append(idx.size)
            super().__call__(idx)
    real = compiled._compact_memory

    def spy(slots, m):
        calls.append(slots.capacity < slots.m)
        return real(slots, m)
    monkeypatch.setattr(loops, "_Reconstruction", Spied)
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    kw = dict(s=y, tol=1e-4)
    a = solve_smo(np.ones(48), 140.0, _native_gram(X, 200.0, kernel), engine="numpy", **kw)
    assert len(rebuilt) > 10                      # many returns to the full problem
    b = solve_smo(np.ones(48), 140.0, _native_gram(X, 200.0, kernel), engine="compiled", **kw)
    c = solve_smo(np.ones(48), 140.0, _native_gram(X, 20 * 8 * 48 / 2 ** 20, kernel),
                  engine="compiled", **kw)
    assert calls == [False, True]                 # whole columns all fit, then a split
    # (past the budget, on the same single-precision columns as the compacted layout)
    d = solve_smo(np.ones(48), 140.0, _native_gram(X, 20 * 8 * 48 / 2 ** 20, kernel),
                  engine="numpy", **kw)
    for one, other in ((a, b), (d, c)):
        assert one.converged and other.converged and one.iterations == other.iterations
        assert np.array_equal(one.alpha, other.alpha) and one.gap == other.gap


# -- issue 37: solve_smo checks its inputs ----------------------------------------------
_OK = dict(p=np.ones(3), C=1.0, gram=np.eye(3), s=np.array([1.0, -1.0, 1.0]))


@pytest.mark.parametrize("change, message", [
    (dict(p=np.array([1.0, np.nan, 1.0])), "p contains NaN"),
    (dict(p=np.array([1.0, np.inf, 1.0])), "p contains infinity"),
    (dict(p=np.ones((3, 1))), "p must be a non-empty vector"),
    (dict(p=np.ones(0), gram=np.eye(0), s=np.ones(0)), "p must be a non-empty vector"),
    (dict(tol=0.0), "tol == 0.0, must be > 0"),
    (dict(tol=-1e-3), "tol == -0.001, must be > 0"),
    (dict(tol=np.nan), "tol must be finite"),
    (dict(tol=np.inf), "tol must be finite"),
    (dict(tol="1e-3"), "tol must be an instance of"),
    (dict(max_iter=0), "max_iter == 0, must be >= 1"),
    (dict(max_iter=2.5), "max_iter must be an instance of"),
    (dict(alpha0=np.array([2.0, 0.0, 0.0])), "alpha0 must be a feasible start"),
    (dict(alpha0=np.array([-0.5, 0.0, 0.0])), "alpha0 must be a feasible start"),
    (dict(alpha0=np.zeros(2)), "alpha0 must be a feasible start"),
    (dict(alpha0=np.array([np.nan, 0.0, 0.0])), "alpha0 contains NaN"),
    (dict(s=np.array([1.0, np.nan, 1.0])), "s must be a vector of \\+1/-1"),
    (dict(s=np.array([1.0, 0.5, 1.0])), "s must be a vector of \\+1/-1"),
    (dict(kernel_signs=np.array([1.0, -1.0])), "kernel_signs must be a vector"),
    (dict(diag_shift=-0.1), "diag_shift must be >= 0"),
    (dict(diag_shift=np.array([0.1, np.nan, 0.1])), "diag_shift contains NaN"),
    (dict(groups=np.zeros(2)), "groups must be a vector of 3 labels"),
    (dict(groups=np.array([0, 1, 2])), "at most two equality groups"),
    (dict(alpha_bound=0.0), "alpha_bound == 0.0, must be > 0"),
    (dict(newton_every=-1), "newton_every == -1, must be >= 0"),
    (dict(shrinking="yes"), "shrinking must be an instance of"),
    (dict(polish=1), "polish must be an instance of"),
    (dict(C=np.array([1.0, np.nan, 1.0])), "upper bounds C must be > 0"),
    (dict(gram=np.eye(4)), "the kernel matrix must be 3 x 3"),
    (dict(engine="fast"), "engine must be"),
])
def test_solve_smo_refuses_bad_input(change, message):
    """Each argument of the public solver is checked (scikit-learn's ``check_scalar`` and
    ``assert_all_finite``), with a message that names it; a valid call goes through."""
    kw = {**_OK, **change}
    p, C, gram = kw.pop("p"), kw.pop("C"), kw.pop("gram")
    with pytest.raises((ValueError, TypeError), match=message):
        solve_smo(p, C, gram, **kw)
    assert solve_smo(_OK["p"], _OK["C"], _OK["gram"], s=_OK["s"]).converged


def test_without_the_stagnation_watch_a_low_rank_fit_stays_far_from_tol(monkeypatch):
    """The smo module docstring: with the watch switched off (PATIENCE never reached),
    seed 19 of the low-rank problems is still at a full gap of 2.0 after 100 000
    iterations (0.23 after a million, not run here: 35 s); with the watch it converges
    after 200 429 (NumPy engine; the compiled one takes the same steps)."""
    from kernelclf.margin.smo import loops

    X, y = _low_rank(19, scale=2.0)
    K = Polynomial(2, 1.0)(X)
    res = solve_smo(np.ones(48), 140.0, K, s=y, tol=1e-4, max_iter=300_000, engine="numpy")
    assert res.converged and res.iterations == pytest.approx(200_429, rel=0.05)
    monkeypatch.setattr(loops, "PATIENCE", 10**9)
    res = solve_smo(np.ones(48), 140.0, K, s=y, tol=1e-4, max_iter=100_000, engine="numpy")
    assert not res.converged and res.gap == pytest.approx(2.0, abs=0.1)       # tol = 1e-4


@pytest.mark.parametrize("C", [0.1, 10.0, 100.0])
@pytest.mark.parametrize("two_groups", [False, True], ids=["C-SVM", "nu-SVM"])
def test_the_numpy_finish_reaches_the_pair_loops_optimum(C, two_groups, monkeypatch):
    """Issue 41: without numba the pairwise SMO ends with the active-set finish
    (kernelclf.margin.smo.kkt._active_set). Its point satisfies the KKT conditions to
    ``tol`` on a gradient computed afresh, keeps the equalities to round-off, and its dual
    value is that of the pair loop run to 1e-9 up to what ``tol`` allows; at large C it
    takes a fraction of the pair loop's steps."""
    from sklearn.datasets import make_moons

    X, y01 = make_moons(300, noise=0.3, random_state=0)
    y = np.where(y01 > 0, 1.0, -1.0)
    K = RBF(0.5)(X)
    m = len(y)
    if two_groups:      # the nu-SVM's dual: p = 0, one equality per class, a feasible start
        p, groups, Cv = np.zeros(m), y, np.full(m, C / m)
        alpha0 = np.where(y > 0, 0.5 / (y > 0).sum(), 0.5 / (y < 0).sum()) * (C / m) * 30
        alpha0 = np.minimum(alpha0, Cv)
    else:
        p, groups, Cv, alpha0 = np.ones(m), None, np.full(m, C), None
    tol = 1e-3 * (C / m if two_groups else 1.0)
    kw = dict(s=y, groups=groups, alpha0=alpha0)
    exact = solve_smo(p, Cv, K, tol=1e-9, engine="numpy", **kw)
    pairs = solve_smo(p, Cv, K, tol=tol, engine="numpy", **kw)
    monkeypatch.setattr(smo, "HAVE_NUMBA", False)
    fin = solve_smo(p, Cv, K, tol=tol, **kw)
    assert fin.converged and exact.converged
    Q = y[:, None] * K * y[None, :]
    G = Q @ fin.alpha - p
    np.testing.assert_allclose(fin.gradient, G, atol=1e-9 * max(1.0, np.abs(G).max()))
    assert np.all(fin.alpha >= 0) and np.all(fin.alpha <= Cv)
    for gm in ([y > 0, y < 0] if two_groups else [np.ones(m, dtype=bool)]):
        start = alpha0 if alpha0 is not None else np.zeros(m)
        assert abs(y[gm] @ (fin.alpha[gm] - start[gm])) < 1e-10 * max(1.0, Cv.max())
    gmask = [y > 0, y < 0] if two_groups else [np.ones(m, dtype=bool)]
    F = -y * G
    up = np.where(y > 0, fin.alpha < Cv, fin.alpha > 0)
    low = np.where(y > 0, fin.alpha > 0, fin.alpha < Cv)
    gap = max(np.max(F, where=up & gm, initial=-np.inf)
              - np.min(F, where=low & gm, initial=np.inf) for gm in gmask)
    assert gap <= tol
    # the dual value: within what tol allows (the pair loop's own distance, with room)
    slack = max(abs(pairs.objective - exact.objective), 1e-9 * abs(exact.objective))
    assert abs(fin.objective - exact.objective) <= 10 * slack
    if C == 100.0 and not two_groups:
        assert fin.iterations < pairs.iterations / 4


def _finish_spies(monkeypatch, max_rounds=None):
    """Spies on the NumPy engine's active-set finish and pair steps: the finish's calls
    (its result, and the point and F it left) and the pair steps' arguments, in order."""
    from kernelclf.margin.smo import loops

    events = []
    real_finish, real_step = loops._active_set, loops.pair_step

    def finish(alpha, F, C, s, gmask, getcol, tol, rounds, **kw):
        done = real_finish(alpha, F, C, s, gmask, getcol, tol, max_rounds or rounds, **kw)
        events.append(("finish", done, alpha.copy(), F.copy()))
        return done

    def step(ai, aj, Ci, Cj, Gi, Gj, *rest):
        events.append(("pair", ai, aj, Gi, Gj))
        return real_step(ai, aj, Ci, Cj, Gi, Gj, *rest)

    monkeypatch.setattr(loops, "_active_set", finish)
    monkeypatch.setattr(loops, "pair_step", step)
    return events


def test_the_numpy_finish_runs_where_the_package_notes_say(monkeypatch):
    """The package notes ("The NumPy engine's finish") and chapter 04: engine='auto' without
    numba hands the pair loop over to the active-set finish; engine='numpy', a Newton step
    every few pair steps (newton_every) and more free variables than FINISH_MAX_FREE leave it
    out; ``iterations`` counts the pair steps only; where the finish falls short of tol,
    the pair loop goes on from the finish's point (its alpha and exact F)."""
    from sklearn.datasets import make_moons

    from kernelclf.margin.smo import loops

    X, y01 = make_moons(300, noise=0.3, random_state=0)
    y = np.where(y01 > 0, 1.0, -1.0)
    K, p, m = RBF(0.5)(X), np.ones(300), 300
    monkeypatch.setattr(smo, "HAVE_NUMBA", False)

    def run(**kw):
        with pytest.MonkeyPatch.context() as mp:
            events = _finish_spies(mp, kw.pop("max_rounds", None))
            res = solve_smo(p, 100.0, K, s=y, tol=1e-3, **kw)
        return res, [e for e in events if e[0] == "finish"], events

    res, fin, events = run()
    assert fin and fin[-1][1] and res.converged and res.gap <= 1e-3
    assert res.iterations == sum(e[0] == "pair" for e in events)   # (rounds not counted)
    assert res.iterations < m                                       # (it ended the fit)
    for kw in (dict(engine="numpy"), dict(newton_every=50)):
        res2, fin2, _ = run(**kw)
        assert not fin2 and res2.converged and res2.iterations > 2 * res.iterations
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(loops, "FINISH_MAX_FREE", 5)
        res3, fin3, _ = run()
    assert not fin3 and res3.converged
    # a finish cut short (one round): the pair loop goes on from where it stopped
    res4, fin4, events4 = run(max_rounds=1)
    assert res4.converged and not fin4[0][1]
    k = next(n for n, e in enumerate(events4) if e[0] == "finish")
    _, _, a_fin, F_fin = events4[k]
    _, ai, aj, Gi, Gj = next(e for e in events4[k + 1:] if e[0] == "pair")
    G_fin = -y * F_fin
    np.testing.assert_allclose(G_fin, y * (K @ (y * a_fin)) - p, atol=1e-10)   # F exact
    assert np.any((a_fin == ai) & (G_fin == Gi)) and np.any((a_fin == aj) & (G_fin == Gj))


def test_the_benchmark_fit_steps_of_the_package_notes(monkeypatch):
    """The package notes: without numba the benchmark's fit (two moons, m = 2000, C = 100,
    RBF sigma 0.5, columns on demand) takes 40 315 pair steps with the pair loop alone, and
    1156 (its ``n_iter_``) with the active-set finish."""
    from sklearn.datasets import make_moons

    from kernelclf.margin import SupportVectorMachine
    from kernelclf.margin.smo import loops

    X, y = make_moons(2000, noise=0.3, random_state=0)
    monkeypatch.setattr(smo, "HAVE_NUMBA", False)
    est = SupportVectorMachine(RBF(0.5), C=100.0, tol=1e-3).fit(X, y)
    assert est.converged_ and est.n_iter_ == 1156
    monkeypatch.setattr(loops, "FINISH_FROM", 0.0)        # the pair loop alone
    alone = SupportVectorMachine(RBF(0.5), C=100.0, tol=1e-3).fit(X, y)
    assert alone.converged_ and alone.n_iter_ == 40315


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
def test_auto_takes_the_numpy_finish_for_a_callers_column_object(monkeypatch):
    """The package notes: with numba installed, engine='auto' runs the NumPy engine and its
    finish on a caller's object with ``column`` and ``diag``, the compiled loop (no finish)
    on an array."""
    from sklearn.datasets import make_moons

    X, y01 = make_moons(300, noise=0.3, random_state=0)
    y = np.where(y01 > 0, 1.0, -1.0)
    K = RBF(0.5)(X)

    class Columns:
        diag = np.diag(K).copy()

        def column(self, i):
            return K[:, i]

    events = _finish_spies(monkeypatch)
    solve_smo(np.ones(300), 100.0, K, s=y, tol=1e-3)
    assert not events                       # compiled: neither finish nor NumPy pair steps
    res = solve_smo(np.ones(300), 100.0, Columns(), s=y, tol=1e-3)
    assert res.converged and any(e[0] == "finish" for e in events)


@pytest.mark.skipif(not smo.HAVE_NUMBA, reason="needs numba (not installed, or hidden by KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("signed, two", [(False, False), (True, False), (False, True)])
def test_the_selection_passes_give_the_plain_scans_numbers(signed, two):
    """The pair loop's vectorised selection (smo.compiled._extremes_vec, _second_vec:
    integer extremes of the values' bits, the first position searched in blocks; used from
    ``_VECTOR_MIN`` active variables) returns what the plain scans (_extremes, _second)
    return, bit for bit -- the extreme, its first position among equal values, the sign of a zero -- on
    inputs with ties, signed zeros, infinities and NaN, in one group and in two."""
    from kernelclf.margin.smo import compiled

    compiled._variant(signed, two)
    space = compiled._VARIANTS[(signed, two)]
    rng = np.random.default_rng(1)
    for trial in range(1500):
        n = int(rng.integers(1, 200)) + (compiled._VECTOR_MIN if trial % 2 else 0)
        F = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
        case = trial % 6
        if case == 1:
            F[rng.integers(0, n, 3)] = 0.0
            F[rng.integers(0, n, 2)] = -0.0
        elif case == 2:
            F[rng.integers(0, n, 4)] = F.max()
        elif case == 3:
            F[rng.integers(0, n, 2)] = np.nan
        elif case == 4:
            F[rng.integers(0, n, 2)] = rng.choice([np.inf, -np.inf])
        elif case == 5:
            F = np.round(F)
        up, low = rng.random(n) < rng.random(), rng.random(n) < rng.random()
        grp, g = rng.integers(0, 2, n), int(rng.integers(0, 2))
        got = space["_extremes_vec"](F, F.view(np.int64), up, low, grp, n, g)
        ref = space["_extremes"](F, up, low, grp, n, g)
        assert got[1] == ref[1]
        for x, y in ((got[0], ref[0]), (got[2], ref[2])):
            assert (x == y and np.signbit(x) == np.signbit(y)) or (np.isnan(x) and np.isnan(y))
        gmax = ref[0] if np.isfinite(ref[0]) else 1.0
        q, Kd, Ki = rng.choice([-1.0, 1.0], n), rng.random(n) + 0.5, 0.3 * rng.normal(size=n)
        score = np.empty(n)
        got = space["_second_vec"](F, low, grp, q, Kd, score, score.view(np.int64), Ki, 1.0,
                                   1.0, gmax, g, n)
        ref = space["_second"](F, low, grp, q, Kd, np.empty(n), Ki, 1.0, 1.0, gmax, g, n)
        assert got[0] == ref[0] and (got[1] == ref[1] or (np.isnan(got[1]) and np.isnan(ref[1])))
