"""Tests for the dual machines' base (kernelclf.margin._dual, kernelclf.margin._dual_problem).

References: the SMO's own threshold (kernelclf.margin.smo, an independent implementation of
libsvm's rule), exact optima (SMO at tol 1e-12), the KKT conditions, explicit kernel sums.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from kernelclf.kernels import RBF, Gram, Linear
from kernelclf.kernels.gram import Replicated
from kernelclf.margin import (
    NuSupportVectorMachine,
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    SupportVectorMachine,
)
from kernelclf.margin._dual import DualClassifier, DualKernelMachine, DualRegressor
from kernelclf.margin._dual_problem import (
    DualProblem,
    equality_multipliers,
    interior_multipliers,
    solve_dual,
)
from kernelclf.margin.rmm_solver import rmm_problem
from kernelclf.margin.smo import solve_smo
from kernelclf.margin.svr import SupportVectorRegression
from kernelclf.margin.universum import UniversumSVM
from kernelclf.optim import have_cvxopt


def _moons(m=120, seed=0):
    X, y = make_moons(m, noise=0.3, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def _nu_start(y, k):
    """A feasible nu-SVM start: ``k`` ones in each class."""
    a0 = np.zeros(len(y))
    for cls in (y > 0, y < 0):
        a0[np.flatnonzero(cls)[:k]] = 1.0
    return a0


def _problems(y, t):
    m = len(y)
    return {
        "c-svm": DualProblem(p=np.ones(m), box=2.0, s=y),
        "nu-svm": DualProblem(p=np.zeros(m), box=1.0, s=y, groups=y,
                              alpha0=_nu_start(y, 18)),
        "svr": DualProblem(p=np.r_[t - 0.1, -t - 0.1], box=1.0, s=np.r_[np.ones(m), -np.ones(m)],
                           points=np.tile(np.arange(m), 2)),
        "rmm": rmm_problem(y, 2.0, 1.3),
    }


@pytest.mark.parametrize("name", ["c-svm", "nu-svm", "svr", "rmm"])
def test_libsvm_rule_equals_the_smos_threshold(name):
    """The one threshold rule of the dual machines gives the SMO's own numbers (libsvm's
    b, and for two groups the nu-SVM's b and rho) on the SMO's solution."""
    X, y = _moons()
    t = np.sin(X[:, 0])
    problem = _problems(y, t)[name]
    gram = Gram(RBF(0.5), X)
    sol = solve_dual(problem, gram, tol=1e-6)
    matrix = gram if problem.points is None else Replicated(gram, problem.n // len(y))
    res = solve_smo(problem.p, problem.box, matrix, s=problem.s, groups=problem.groups,
                    alpha0=problem.alpha0, tol=1e-6, polish=True,
                    newton_every=problem.newton_every)
    np.testing.assert_array_equal(sol.alpha, res.alpha)
    if name == "nu-svm":
        mu_neg, mu_pos = sol.multipliers
        assert (mu_pos + mu_neg) / 2 == res.bias and (mu_neg - mu_pos) / 2 == res.rho
    else:
        assert sol.bias == res.bias


def test_threshold_rules_agree_at_an_exact_optimum_and_from_the_interior_point():
    """At the SMO's exact optimum both rules give the same threshold; from the interior
    point of the QP, ``interior_multipliers`` is within the QP's accuracy of it."""
    X, y = _moons(150, 1)
    gram = Gram(RBF(0.5), X)
    for problem in (DualProblem(p=np.ones(150), box=2.0, s=y), rmm_problem(y, 2.0, 1.2)):
        exact = solve_dual(problem, gram, tol=1e-12)
        F = -problem.s * exact.gradient
        b_int = interior_multipliers(F, problem.box, problem.s)[0]
        assert b_int == pytest.approx(exact.bias, abs=1e-9)
        qp = solve_dual(problem, gram, solver="qp", qp_tol=1e-9)
        assert qp.route == "qp" and qp.bias == pytest.approx(exact.bias, abs=1e-5)


def test_interior_rule_where_counting_free_multipliers_fails():
    """RMM with an RBF kernel on overlapping Gaussians: libsvm's rule applied to the
    interior point (multipliers within 1e-6 max of a bound counted as bounded) misses the
    threshold by more than 1e-4, the interior rule finds it to 1e-6."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = np.where(X @ rng.normal(size=5) + 0.8 * rng.normal(size=60) > 0, 1.0, -1.0)
    gram = Gram(RBF(2.0), X)
    problem = rmm_problem(y, 2.0, 1.3057)
    exact = solve_dual(problem, gram, tol=1e-10)
    qp = solve_dual(problem, gram, solver="qp", qp_tol=1e-8)
    a, F = qp.alpha, -problem.s * qp.gradient
    eps = 1e-6 * a.max()
    box = problem.box
    free = (a > eps) & (a < box - eps)
    if have_cvxopt():       # (cvxopt's interior point; the NumPy one stops elsewhere)
        assert abs(F[free].mean() - exact.bias) > 1e-4      # the counting rule
    assert abs(qp.bias - exact.bias) < 1e-6                   # the interior rule


def test_equality_multipliers_without_free_variables_take_the_interval_midpoint():
    F = np.array([0.0, 1.0, 3.0, 4.0])
    a = np.array([0.0, 2.0, 0.0, 2.0])
    s = np.array([1.0, 1.0, -1.0, -1.0])
    # up (may increase s a): a_0 (F 0), a_3 (F 4); low: a_1 (F 1), a_2 (F 3)
    assert equality_multipliers(F, a, 2.0, s) == [0.5 * (4.0 + 1.0)]
    assert equality_multipliers(F, a, 2.0, s, groups=np.array([0, 0, 1, 1])) == [0.5, 3.5]


@pytest.mark.parametrize("machine", ["svr", "rmm", "universum"])
def test_coefficients_and_outputs_fold_the_variables_onto_the_examples(machine):
    """``coefficients`` sums ``r_t a_t`` over each example's variables and ``outputs``
    reads ``K coef`` off the gradient: against the explicit sums."""
    X, y = _moons(80, 2)
    K = RBF(0.5)(X)
    m = len(y)
    if machine == "svr":
        problem = _problems(y, np.sin(X[:, 0]))["svr"]
    elif machine == "rmm":
        problem = rmm_problem(y, 2.0, 1.2)
    else:
        nu = 10
        problem = DualProblem(p=np.r_[np.ones(m - nu), np.full(2 * nu, -0.1)],
                              box=np.r_[np.full(m - nu, 2.0), np.full(2 * nu, 0.5)],
                              s=np.r_[y[:m - nu], np.ones(nu), -np.ones(nu)],
                              points=np.r_[np.arange(m), np.arange(m - nu, m)])
    sol = solve_dual(problem, Gram(G=K), tol=1e-8)
    coef = problem.coefficients(sol.alpha, m)
    expect = np.zeros(m)
    np.add.at(expect, problem.points, problem.s * sol.alpha)
    np.testing.assert_allclose(coef, expect, atol=1e-15)
    np.testing.assert_allclose(problem.outputs(sol.alpha, sol.gradient, m), K @ coef,
                               atol=1e-10)


@pytest.mark.parametrize("est", [SupportVectorMachine(RBF(0.3), C=100.0, max_iter=3),
                                 NuSupportVectorMachine(RBF(0.3), nu=0.2, max_iter=3),
                                 RelativeMarginMachine(RBF(0.3), C=100.0, B=1.5, max_iter=3),
                                 RelaxedRMM(RBF(0.3), C=100.0, max_iter=3),
                                 SigmaSVM(RBF(0.3), C=100.0, max_iter=3)],
                         ids=lambda e: type(e).__name__)
def test_every_machine_warns_once_when_the_smo_stops_short(est):
    X, y = _moons(150, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    mine = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(mine) == 1 and "raise max_iter or tol" in str(mine[0].message)
    assert est.converged_ is False and est.n_iter_ >= 3


def test_every_dual_machine_is_built_on_the_base():
    for cls in (SupportVectorMachine, NuSupportVectorMachine, RelativeMarginMachine,
                RelaxedRMM, SigmaSVM, UniversumSVM):
        assert issubclass(cls, DualClassifier)
    assert issubclass(SupportVectorRegression, DualRegressor)
    assert issubclass(DualClassifier, DualKernelMachine)
    for cls in (SupportVectorMachine, NuSupportVectorMachine, RelativeMarginMachine,
                SupportVectorRegression):
        assert "decision_function" not in vars(cls) and "predict" not in vars(cls)


def test_nu_svm_qp_route_is_the_smos_problem():
    """The nu-SVM's quadratic program solves the SMO's problem (libsvm's scaling, the two
    class equalities): the same support vectors, rho and threshold to the QP's accuracy."""
    X, y = _moons(150, 0)
    smo = NuSupportVectorMachine(RBF(0.5), nu=0.3, tol=1e-12).fit(X, y)
    qp = NuSupportVectorMachine(RBF(0.5), nu=0.3, solver="qp").fit(X, y)
    np.testing.assert_array_equal(qp.support_, smo.support_)
    assert qp.rho_ == pytest.approx(smo.rho_, rel=1e-6)
    assert qp.intercept_ == pytest.approx(smo.intercept_, abs=1e-6 * smo.rho_)


def test_linear_svm_w_norm_from_the_gradient():
    """``w_norm_`` (read off the solver's gradient) is ``||sum_i alpha_i x_i||``."""
    X, y = _moons(100, 4)
    for loss in ("hinge", "squared_hinge"):
        s = SupportVectorMachine(Linear(), C=0.7, loss=loss, tol=1e-8).fit(X, y)
        w = s.alpha_ @ X
        assert s.w_norm_ == pytest.approx(np.linalg.norm(w), rel=1e-9)


def test_without_numba_the_whole_matrix_where_it_is_cheaper(monkeypatch):
    """The NumPy engine's Gram (``_whole_without_numba``): whole for m <= 500 and for
    wide inputs up to m = 2000 within cache_mb, columns on demand for narrow inputs
    above 500 and with numba above 200; the solution is the columns' to round-off."""
    from kernelclf.margin import _dual

    def gram_of(X, y, numba, **kw):
        monkeypatch.setattr(_dual, "HAVE_NUMBA", numba)
        est = SupportVectorMachine(RBF(4.0), C=10.0, tol=1e-8, **kw).fit(X, y)
        return est, est._gram(est.X_fit_).precomputed

    rng = np.random.default_rng(0)
    X2, y2 = make_moons(600, noise=0.3, random_state=0)
    Xw = rng.normal(size=(600, 30))
    yw = np.where(Xw[:, 0] + 0.5 * Xw[:, 1] ** 2 > 0.5, 1, -1)
    assert gram_of(X2[:400], y2[:400], False)[1]
    assert not gram_of(X2[:400], y2[:400], True)[1]
    assert not gram_of(X2, y2, False)[1]                    # 2 features, m = 600
    whole, pre = gram_of(Xw, yw, False)
    assert pre
    assert not gram_of(Xw, yw, False, cache_mb=2.0)[1]     # 2.9 MB > 2 MiB
    cols, pre = gram_of(Xw, yw, True)
    assert not pre
    assert whole.dual_objective_ == pytest.approx(cols.dual_objective_, rel=1e-9)
    assert np.array_equal(whole.support_, cols.support_)
