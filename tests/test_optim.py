"""kernelclf.optim.solve_lp: HiGHS's "Unknown" answers, the iteration cap, and its errors.

Issue 27: with only free variables (``l=None``, ``u=None``) the retry after an "Unknown"
answer crashed with ``TypeError: 'float' object is not iterable`` (``max(1.0, *())``).
HiGHS is replaced by a stand-in (``monkeypatch`` on ``scipy.optimize.linprog``) that
answers "Unknown" for chosen methods and solves otherwise; the reference for every solved
program is SciPy's HiGHS called directly. (The solver of the QP, without cvxopt, is tested
in ``tests/test_optim_ipm.py``.)
"""
import numpy as np
import pytest
import scipy.optimize as so
from scipy.optimize import linprog

from kernelclf.optim import InfeasibleProblemError, SolverStoppedError, solve_lp

REAL_LINPROG = so.linprog


def _stand_in(fail):
    """linprog answering "Unknown" (status 4) when ``fail(method, boxed)``; records calls."""
    calls = []

    def fake(c, bounds=None, method="highs", **kw):
        boxed = any(b[0] is not None and b[0] <= -1e7 for b in bounds)
        calls.append((method, boxed))
        if fail(method, boxed):
            return so.OptimizeResult(status=4, message="model_status is Unknown", x=None, nit=0)
        return REAL_LINPROG(c, bounds=bounds, method=method, **kw)

    return fake, calls


def _free_lp(m=8, seed=0):
    """min c'x s.t. A x <= b with every x_j free: a bounded program (A has full column rank
    and c = -A'p with p > 0, so c'x = -p'Ax >= -p'b)."""
    rng = np.random.default_rng(seed)
    A = np.vstack([rng.normal(size=(m, m)), -rng.normal(size=(m, m))])
    b = rng.uniform(1.0, 2.0, size=2 * m)
    c = -A.T @ rng.uniform(0.5, 1.0, size=2 * m)
    return c, A, b


@pytest.mark.parametrize("fail,tried", [
    (lambda meth, boxed: not boxed, [("highs", False), ("highs", True)]),
    (lambda meth, boxed: meth == "highs", [("highs", False), ("highs", True),
                                           ("highs-ipm", False)]),
])
def test_unknown_status_with_free_variables_retries_instead_of_crashing(monkeypatch, fail,
                                                                        tried):
    c, A, b = _free_lp()
    ref = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * len(c), method="highs")
    assert ref.status == 0
    fake, calls = _stand_in(fail)
    monkeypatch.setattr(so, "linprog", fake)
    sol = solve_lp(c, A2=A, b2=b, l=None, u=None)
    assert calls == tried
    assert sol.objective == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)
    assert np.all(A @ sol.x <= b + 1e-7)


def test_unknown_on_every_attempt_is_a_clear_error(monkeypatch):
    c, A, b = _free_lp()
    fake, calls = _stand_in(lambda meth, boxed: True)
    monkeypatch.setattr(so, "linprog", fake)
    with pytest.raises(SolverStoppedError, match="HiGHS stopped.*feasibility is unknown") as exc:
        solve_lp(c, A2=A, b2=b, l=None)
    assert isinstance(exc.value, InfeasibleProblemError)  # callers catching that still work
    assert len(calls) == 4 and "highs-ipm (boxed)" in str(exc.value)


def test_iteration_cap_stops_with_solver_stopped_error():
    """A cap of one iteration on a program that needs more (reference: HiGHS's own count)."""
    rng = np.random.default_rng(3)
    m = 40
    A = rng.normal(size=(2 * m, m))
    b = rng.uniform(1.0, 2.0, size=2 * m)
    c = rng.normal(size=m)
    ref = linprog(c, A_ub=A, b_ub=b, bounds=[(-10, 10)] * m, method="highs")
    assert ref.status == 0 and ref.nit > 1
    sol = solve_lp(c, A2=A, b2=b, l=-10.0, u=10.0, max_iter=ref.nit + 10)
    assert sol.objective == pytest.approx(ref.fun, rel=1e-9)
    with pytest.raises(SolverStoppedError, match="HiGHS stopped"):
        solve_lp(c, A2=A, b2=b, l=-10.0, u=10.0, max_iter=1)
    with pytest.raises(ValueError, match="max_iter"):
        solve_lp(c, A2=A, b2=b, max_iter=0)


def test_infeasible_program_is_certified_not_stopped():
    """x >= 1 and x <= -1: HiGHS certifies infeasibility (not a SolverStoppedError)."""
    with pytest.raises(InfeasibleProblemError, match="HiGHS stopped") as exc:
        solve_lp(np.ones(1), A2=np.array([[-1.0], [1.0]]), b2=[-1.0, -1.0], l=None)
    assert not isinstance(exc.value, SolverStoppedError)
