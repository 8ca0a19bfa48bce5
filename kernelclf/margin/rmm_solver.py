"""The relative margin machine's dual solver: the package's SMO on the RMM dual.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010),
"Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §3.3 and
eq. 12; erratum E19 of book chapter 00 (KKT list of §3.3). The estimators are in
:mod:`kernelclf.margin.rmm`.

The RMM dual (eq. 12) has ``3m`` variables, ``a = (alpha, lam, lam*)``, and one
equality ``sum_t s_t a_t = 0`` with signs ``s = (y, -1, +1)``. In the form of
:func:`kernelclf.margin.smo.solve_smo` it is

    minimise 1/2 a' Q a - p' a,   0 <= a <= (C, U, U),   s' a = 0,

with ``p = (1, -B, -B)`` and ``Q = diag(s) [[K, K, K], [K, K, K], [K, K, K]] diag(s)``:
every variable of point ``i`` has the column of ``x_i``, so the gradient is fixed by the
``m``-vector ``g = K v``, ``v = alpha o y - lam + lam*``, and ``F_t = -s_t (grad)_t`` is
``y_i - g_i``, ``B - g_i`` or ``-B - g_i``. :func:`solve_rmm` hands this problem to the
same SMO as the SVMs: a decomposition, as in §3.3, but not §3.3's. The paper adapts
SVMlight (Joachims 1998): each step solves a sub-problem (eq. 13) in ``p`` variables
taken from the top and the bottom of the list of KKT violators (``p = 800`` in its
§5.7). Here the working sets have two variables, chosen by the second-order rule of Fan,
Chen & Lin 2005, with libsvm's shrinking and bias, a Newton step on the free variables
every ``newton_every`` pair steps and the final Newton polish: the solver the package's
SVMs already use, on a :class:`kernelclf.kernels.gram.Replicated` view of the Gram matrix,
whose compiled loop reads the ``m x m`` matrix's columns through the point of each
variable. It stops when the maximal KKT violation ``max_up F - min_low F`` is at most
``tol``, which implies the KKT list of RMM §3.3 with ``epsilon = tol`` (E19: the conditions
for ``lam_i = 0`` read ``f_i <= B + epsilon``). With ``B = None`` (or no room for the
bound multipliers) the problem is the SVM dual on the ``m`` variables ``alpha``.
``rmm_problem`` states this dual in the form shared by the package's dual machines
(``kernelclf.margin._dual_problem``), whose solver call and threshold :func:`solve_rmm`
and the estimators of :mod:`kernelclf.margin.rmm` use.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import assert_all_finite, check_scalar

from ..kernels.gram import as_gram
from ._dual_problem import DualProblem, solve_dual
from .smo import HAVE_NUMBA, DualDivergenceError

__all__ = ["HAVE_NUMBA", "RMMResult", "solve_rmm"]


@dataclass
class RMMResult:
    """Solution of the RMM dual (eq. 12) by :func:`solve_rmm` or :func:`~kernelclf.margin.rmm.solve_rmm_qp`.

    Attributes
    ----------
    alpha, lam, lam_star : (m,) arrays
        Multipliers of the classification constraints and of the upper
        (``f <= B``) and lower (``f >= -B``) bounds.
    v : (m,) array
        ``alpha o y - lam + lam_star``, the expansion of ``f``.
    g : (m,) array
        ``K v`` (outputs without bias).
    bias : float
    objective : float
        Dual value of eq. 12 (maximisation form).
    iterations : int
    gap : float
        Final maximal KKT violation (fast solver; 0 for the QP).
    converged : bool
    """

    alpha: np.ndarray
    lam: np.ndarray
    lam_star: np.ndarray
    v: np.ndarray
    g: np.ndarray
    bias: float
    objective: float
    iterations: int
    gap: float
    converged: bool


_UNBOUNDED_TEXT = ("the RMM dual is unbounded (an infinite step was taken); check that "
                   "B > 1 and the kernel is positive semi-definite")


def _check_pm1_labels(y):
    """The solver works on labels in {-1, +1} (estimators map any two labels there)."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        y = y.ravel() if y.ndim == 2 and 1 in y.shape else y
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of labels in {{-1, +1}}, got shape "
                         f"{np.shape(y)}")
    bad = ~np.isin(y, (-1.0, 1.0))
    if bad.any():
        raise ValueError("solve_rmm needs labels in {-1, +1}, got "
                         f"{np.unique(y[bad])[:5].tolist()}; map the two classes to -1 and +1 "
                         "(the estimators, e.g. RelativeMarginMachine, do this for any labels)")
    return y


def _check_B(B):
    if B is None:
        return np.inf
    if isinstance(B, bool) or not isinstance(B, numbers.Real):
        raise TypeError(f"the output bound B must be a number > 1 or None, got {B!r}")
    B = float(B)
    if not B > 1:
        raise ValueError(
            f"the output bound B must be > 1, got B={B!r}: with B <= 1 no point can lie "
            "beyond the margin (RMM §3.2 takes B > 1; B >= max_i |f_SVM(x_i)| is the SVM)")
    return B


def rmm_problem(y, C, B, lam_ub=np.inf, *, budget=None, newton_every=None):
    """The RMM dual (eq. 12) as a :class:`~kernelclf.margin._dual_problem.DualProblem`.

    ``3m`` variables ``(alpha, lam, lam*)`` of the examples ``(i, i, i)``, signs
    ``s = (y, -1, +1)``, ``p = (1, -B, -B)``, box ``(C, U, U)`` and the equality ``s'a = 0``;
    with ``B = inf`` or ``U = 0`` the SVM dual on the ``m`` variables ``alpha``. With
    ``budget=D`` (the quadratic program only) the cost of the bound multipliers is 1 and
    ``sum(lam + lam*) <= D`` is added: the dual of eq. 14 / 15 without its constant ``D``.
    ``C`` and ``lam_ub`` may be numbers or one value per example (example weights).
    """
    m = y.size
    newton_every = max(m, 500) if newton_every is None else int(newton_every)
    C = np.broadcast_to(np.asarray(C, dtype=float), (m,))
    U = np.broadcast_to(np.asarray(lam_ub, dtype=float), (m,))
    if budget is None and (np.isinf(B) or not np.any(U)):
        return DualProblem(p=np.ones(m), box=float(C[0]) if np.all(C == C[0]) else C.copy(),
                           s=y, newton_every=newton_every)
    B = 1.0 if budget is not None else float(B)
    ineq = None
    if budget is not None:
        ineq = (np.concatenate([np.zeros(m), np.ones(2 * m)])[None, :], [float(budget)])
    return DualProblem(p=np.concatenate([np.ones(m), np.full(2 * m, -B)]),
                       box=np.concatenate([C, U, U]),
                       s=np.concatenate([y, -np.ones(m), np.ones(m)]),
                       points=np.tile(np.arange(m), 3), newton_every=newton_every,
                       inequality=ineq)


def rmm_result(problem, sol, y, B):
    """The :class:`RMMResult` of a solution of :func:`rmm_problem` (``B = None`` with a
    budget: the bias and the objective's constant are the caller's)."""
    m = y.size
    a = sol.alpha
    alpha = a[:m].copy()
    lam, lams = (a[m:2 * m].copy(), a[2 * m:].copy()) if a.size > m else (np.zeros(m),
                                                                            np.zeros(m))
    v = problem.coefficients(a, m)
    g = problem.outputs(a, sol.gradient, m)
    Bv = np.inf if B is None else float(B)
    bound = 0.0 if not np.isfinite(Bv) else Bv * (lam.sum() + lams.sum())
    obj = float(alpha.sum() - bound - 0.5 * v @ g)
    return RMMResult(alpha=alpha, lam=lam, lam_star=lams, v=v, g=g, bias=sol.bias,
                     objective=obj, iterations=int(sol.iterations), gap=0.0,
                     converged=bool(sol.converged))


def solve_rmm(gram, y, C, B, *, lam_ub=np.inf, alpha0=None, lam0=None, lam_star0=None,
              tol=1e-3, max_iter=None, newton_every=None, engine="auto"):
    """Solve the RMM dual (RMM eq. 12) by SMO (not §3.3's working sets; module docstring).

    Parameters
    ----------
    gram : :class:`kernelclf.kernels.gram.Gram` or (m, m) array
        The training Gram matrix (columns are taken with ``column(i)``).
    y : (m,) array of +/-1
    C : float > 0
        Box of the classification multipliers.
    B : float > 1 or None
        Output bound; ``None`` (or ``inf``) freezes the bound multipliers at 0 and
        solves the SVM dual (RMM eq. 5 with bias).
    lam_ub : float
        Upper bound of ``lam`` and ``lam*`` (``inf`` for eq. 12; ``D nu / m`` for the
        fixed-``t`` inner problem of the relaxed RMM, eq. 15).
    alpha0, lam0, lam_star0 : arrays, optional
        Feasible warm start (e.g. the SVM solution with zero bound multipliers).
    tol : float
        Stopping tolerance ``epsilon`` of the KKT list of §3.3.
    max_iter : int, optional
        Iteration cap (default ``100_000 + 100 m``).
    newton_every : int or None
        Every this many pair steps, a Newton step on the free variables (``solve_smo``'s
        ``newton_every``): at a tight bound many variables are free and pair steps alone
        zigzag. Default ``max(m, 500)``; 0 switches it off.
    engine : {'auto', 'compiled', 'numpy'}
        The engine of :func:`kernelclf.margin.smo.solve_smo`.

    Returns
    -------
    RMMResult
    """
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"engine must be 'auto', 'compiled' or 'numpy', got {engine!r}")
    if engine == "compiled" and not HAVE_NUMBA:
        raise ImportError("engine='compiled' needs numba; use engine='numpy'")
    y = _check_pm1_labels(y)
    m = y.size
    C = check_scalar(C, "C", numbers.Real, min_val=0, include_boundaries="neither")
    if not np.isfinite(C):
        raise ValueError(f"C must be finite, got C={C!r} (B=None with a finite C is the SVM)")
    B = _check_B(B)
    lam_ub = check_scalar(lam_ub, "lam_ub", numbers.Real, min_val=0)
    tol = check_scalar(tol, "tol", numbers.Real, min_val=0, include_boundaries="neither")
    if max_iter is not None:
        check_scalar(max_iter, "max_iter", numbers.Integral, min_val=1)
    gram = as_gram(gram)
    if np.shape(gram.diag) != (m,):
        raise ValueError(f"the Gram matrix must be {m} x {m}")
    C, B, U = float(C), float(B), float(lam_ub)
    if np.isinf(B):
        U = 0.0                       # the SVM: bound multipliers stay at zero
    max_iter = 100_000 + 100 * m if max_iter is None else int(max_iter)
    for name, start in (("alpha0", alpha0), ("lam0", lam0), ("lam_star0", lam_star0)):
        if start is not None:
            start = np.asarray(start, dtype=float)
            if start.shape != (m,):
                raise ValueError(f"{name} must be a vector of {m} numbers, got shape "
                                 f"{start.shape}")
            assert_all_finite(start, input_name=name)
    alpha = np.zeros(m) if alpha0 is None else np.clip(np.array(alpha0, dtype=float), 0, C)
    lam = np.zeros(m) if lam0 is None or U == 0 else np.clip(np.array(lam0, float), 0, U)
    lams = np.zeros(m) if lam_star0 is None or U == 0 else np.clip(
        np.array(lam_star0, float), 0, U)
    v = alpha * y - lam + lams
    if abs(v.sum()) > 1e-8 * max(1.0, np.abs(v).sum()):
        raise ValueError("the warm start violates the equality alpha'y - 1'lam + 1'lam* = 0")
    problem = rmm_problem(y, C, B, U, newton_every=newton_every)
    start = alpha if problem.n == m else np.concatenate([alpha, lam, lams])
    try:
        sol = solve_dual(problem, gram, solver="smo", tol=tol, max_iter=max_iter,
                         engine=engine, alpha0=start)
    except DualDivergenceError as exc:
        raise ValueError(_UNBOUNDED_TEXT) from exc
    if not np.all(np.isfinite(sol.alpha)):          # an infinite step (the dual unbounded)
        raise ValueError(_UNBOUNDED_TEXT)
    res = rmm_result(problem, sol, y, B)
    res.gap = float(max(sol.gap, 0.0)) if np.isfinite(sol.gap) else 0.0
    return res
