"""The package without cvxopt: kernelclf.optim.solve_qp_ipm and every QP route falling back to it.

cvxopt does not exist for Pyodide (the in-browser lab), so ``solve_qp`` must work without it.
Independent references: cvxopt's ``coneqp`` on the same programs (dual values and minimisers),
scikit-learn's libsvm (SVC) for the SVM dual, the package's SMO for the RMM dual, and closed
forms (an equality-constrained least-norm problem; an infeasible and an unbounded program).
The ``no_cvxopt`` fixture hides cvxopt (``import cvxopt`` raises ImportError) as Pyodide does.
"""
import sys

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.svm import SVC

from kernelclf.kernels import RBF, Linear
from kernelclf.optim import InfeasibleProblemError, have_cvxopt, solve_qp, solve_qp_ipm


@pytest.fixture
def no_cvxopt(monkeypatch):
    monkeypatch.setitem(sys.modules, "cvxopt", None)
    assert not have_cvxopt()


def _svm_dual(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=m) > 0, 1.0, -1.0)
    K = RBF(1.0)(X, X)
    return (y[:, None] * K) * y[None, :], y


PROGRAMS = {
    "C-SVM dual with bias": lambda H, y: dict(A1=y[None, :], b1=[0.0], l=0.0, u=1.0),
    "C-SVM dual without bias": lambda H, y: dict(l=0.0, u=10.0),
    "hard-margin dual": lambda H, y: dict(l=0.0),
    "nu-SVM dual": lambda H, y: dict(A2=-np.ones((1, len(y))), b2=[-0.3], l=0.0,
                                     u=1.0 / len(y)),
}


@pytest.mark.parametrize("m", [15, 80, 200])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_ipm_matches_cvxopt(program, m):
    H, y = _svm_dual(m, m)
    c = np.zeros(m) if program == "nu-SVM dual" else -np.ones(m)
    if program == "hard-margin dual":  # a ridge keeps the hard-margin dual bounded
        H = H + 0.5 * np.eye(m)
    kw = PROGRAMS[program](H, y)
    ref = solve_qp(H, c, tol=1e-10, solver="cvxopt", **kw)
    ours = solve_qp_ipm(H, c, tol=1e-10, **kw)
    assert ours.status == "optimal"
    assert abs(ours.objective - ref.objective) <= 1e-7 * max(1.0, abs(ref.objective))
    assert np.abs(ours.x - ref.x).max() < 1e-4 * max(1.0, np.abs(ref.x).max())
    # feasibility of our minimiser
    if "A1" in kw:
        assert abs(kw["A1"] @ ours.x - kw["b1"]).max() < 1e-8
    assert ours.x.min() >= -1e-8


def test_equality_only_least_norm_closed_form():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 7))
    b = rng.normal(size=3)
    sol = solve_qp_ipm(np.eye(7), np.zeros(7), A1=A, b1=b)
    np.testing.assert_allclose(sol.x, np.linalg.pinv(A) @ b, atol=1e-10)


def test_infeasible_and_unbounded_programs_raise():
    with pytest.raises(InfeasibleProblemError, match="no solution|unbounded"):
        solve_qp_ipm(np.eye(2), np.zeros(2), A2=[[1.0, 0.0], [-1.0, 0.0]], b2=[-1.0, -1.0])
    with pytest.raises(InfeasibleProblemError):
        solve_qp_ipm(np.zeros((2, 2)), -np.ones(2), l=0.0)  # min -x1 - x2, x >= 0
    with pytest.raises(ValueError, match="solver"):
        solve_qp(np.eye(2), np.zeros(2), solver="mosek")


def test_solve_qp_falls_back_without_cvxopt(no_cvxopt):
    H, y = _svm_dual(60, 3)
    sol = solve_qp(H, -np.ones(60), A1=y[None, :], b1=[0.0], l=0.0, u=1.0)
    assert sol.status == "optimal"
    with pytest.raises(ImportError):
        solve_qp(H, -np.ones(60), l=0.0, u=1.0, solver="cvxopt")


def test_svm_qp_route_without_cvxopt_matches_libsvm(no_cvxopt):
    from kernelclf.margin.nu_svm import NuSupportVectorMachine
    from kernelclf.margin.svm import SupportVectorMachine

    X, y = make_moons(120, noise=0.25, random_state=0)
    ours = SupportVectorMachine(RBF(0.5), C=2.0, solver="qp", tol=1e-9).fit(X, y)
    ref = SVC(C=2.0, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    d = ref.dual_coef_.ravel()
    ref_dual = np.abs(d).sum() - 0.5 * d @ RBF(0.5)(X[ref.support_], X[ref.support_]) @ d
    assert abs(ours.dual_objective_ - ref_dual) < 1e-6 * abs(ref_dual)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    nu = NuSupportVectorMachine(RBF(0.5), nu=0.3, solver="qp").fit(X, y)
    nu_smo = NuSupportVectorMachine(RBF(0.5), nu=0.3, tol=1e-6).fit(X, y)
    assert np.mean(nu.predict(X) == nu_smo.predict(X)) > 0.99


def test_hard_margin_errors_without_cvxopt(no_cvxopt):
    from kernelclf.margin import SupportVectorMachine

    X, y = make_moons(80, noise=0.4, random_state=1)  # not separable with a linear kernel
    with pytest.raises(ValueError, match="not separable"):
        SupportVectorMachine(Linear(), hard_margin=True, solver="qp").fit(X, y)
    Xs = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
    ys = np.array([1, 1, -1, -1])
    hard = SupportVectorMachine(Linear(), hard_margin=True, fit_bias=False, solver="qp",
                                tol=1e-10).fit(Xs, ys)
    np.testing.assert_allclose(np.abs(hard.decision_function(Xs)).min(), 1.0, atol=1e-6)


def test_rmm_qp_route_without_cvxopt_matches_smo(no_cvxopt):
    from kernelclf.margin import RelativeMarginMachine

    X, y = make_moons(100, noise=0.2, random_state=2)
    qp = RelativeMarginMachine(RBF(0.7), C=1.0, B=1.5, solver="qp").fit(X, y)
    smo = RelativeMarginMachine(RBF(0.7), C=1.0, B=1.5, solver="smo", tol=1e-6).fit(X, y)
    assert abs(qp.dual_objective_ - smo.dual_objective_) < 1e-5 * abs(smo.dual_objective_)
    assert np.abs(qp.decision_function(X)).max() <= 1.5 + 1e-5


def test_hard_margin_error_names_the_kernel_range():
    """On well-scaled matrices the error says nothing of the range; on a degree-16
    polynomial of inputs whose lengths differ a thousandfold it warns that the verdict may be
    round-off, with the span of the diagonal."""
    from kernelclf.kernels import Polynomial
    from kernelclf.margin.svm import _range_note

    X, y = make_moons(80, noise=0.4, random_state=1)
    assert _range_note(Linear()(X + 3.0)) == "" and _range_note(RBF(0.5)(X)) == ""
    Xw = X * np.linspace(0.01, 10.0, len(X))[:, None]
    K = Polynomial(16, 0.0)(Xw)
    note = _range_note(K)
    span = np.log10(np.diag(K).max() / np.diag(K).min())
    assert span > 10 and f"spans {span:.0f} orders" in note and "round-off" in note
    assert _range_note(Polynomial(2, 0.0)(X + 3.0)) == ""


def test_ipm_bound_rows_enter_as_a_diagonal():
    """G' D G with the bounds' rows as a diagonal equals the dense product: bit for bit when
    every row is a bound (so the interior-point iterates do not change), to round-off with a
    general inequality row as well."""
    from kernelclf.optim import _bounds_rows, _weighted_gram

    rng = np.random.default_rng(5)
    n = 30
    G_box = np.vstack(_bounds_rows(0.0, rng.random(n) + 0.5, n)[0])
    G_mixed = np.vstack([rng.standard_normal((2, n)), G_box])
    for G, exact in ((G_box, True), (G_mixed, False), (G_box[:n], True)):
        D = rng.random(G.shape[0]) * 10.0 ** rng.integers(-6, 6, G.shape[0])
        ours, dense = _weighted_gram(G, n)(D), (G.T * D) @ G
        if exact:
            assert np.array_equal(ours, dense)
        else:
            np.testing.assert_allclose(ours, dense, rtol=1e-12, atol=1e-12 * np.abs(dense).max())
