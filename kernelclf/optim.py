"""Generic quadratic and linear programs in the book's form (LKC App. D, eq. D.1).

Book chapter 04 (``book/04_support_vector_machines.md``); LKC App. D. The quadratic program is::

    minimise    1/2 x' H x + c' x
    such that   A1 x  = b1
                A2 x <= b2
                l <= x <= u

:func:`solve_qp` hands it to cvxopt's interior-point solver (quietly);
:func:`solve_lp` solves the linear program (``H = 0``) with SciPy's HiGHS.
Both return a :class:`Solution` and raise :class:`InfeasibleProblemError`
when the solver certifies infeasibility or fails to converge.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Solution", "InfeasibleProblemError", "solve_qp", "solve_lp"]


class InfeasibleProblemError(ValueError):
    """The program has no feasible point (or the solver could not find one)."""


@dataclass
class Solution:
    """Result of :func:`solve_qp` / :func:`solve_lp`.

    Attributes
    ----------
    x : ndarray
        The minimiser.
    objective : float
        ``1/2 x'Hx + c'x`` at ``x``.
    status : str
        Solver status string.
    iterations : int
        Solver iterations.
    """

    x: np.ndarray
    objective: float
    status: str
    iterations: int


def _as_2d(A, n, name):
    if A is None:
        return None
    A = np.atleast_2d(np.asarray(A, dtype=float))
    if A.shape[1] != n:
        raise ValueError(f"{name} must have {n} columns, got shape {A.shape}")
    return A


def _bounds_rows(l, u, n):
    """Stack the box l <= x <= u as inequality rows (skipping infinite bounds)."""
    G, h = [], []
    if l is not None:
        l = np.broadcast_to(np.asarray(l, dtype=float), (n,))
        idx = np.flatnonzero(np.isfinite(l))
        if len(idx):
            rows = np.zeros((len(idx), n))
            rows[np.arange(len(idx)), idx] = -1.0
            G.append(rows)
            h.append(-l[idx])
    if u is not None:
        u = np.broadcast_to(np.asarray(u, dtype=float), (n,))
        idx = np.flatnonzero(np.isfinite(u))
        if len(idx):
            rows = np.zeros((len(idx), n))
            rows[np.arange(len(idx)), idx] = 1.0
            G.append(rows)
            h.append(u[idx])
    return G, h


def solve_qp(H, c, A1=None, b1=None, A2=None, b2=None, l=None, u=None,
             tol=1e-9, max_iter=200):
    """Solve the quadratic program of LKC eq. (D.1) with cvxopt.

    Parameters
    ----------
    H : (n, n) array, symmetric positive semi-definite
    c : (n,) array
    A1, b1 : equality constraints ``A1 x = b1`` (optional)
    A2, b2 : inequality constraints ``A2 x <= b2`` (optional)
    l, u : scalars or (n,) arrays of lower/upper bounds (``None``/inf: none)
    tol : float
        Absolute and relative gap tolerance handed to cvxopt.
    max_iter : int

    Returns
    -------
    Solution
    """
    from cvxopt import matrix, solvers

    H = np.asarray(H, dtype=float)
    c = np.asarray(c, dtype=float).ravel()
    n = c.size
    if H.shape != (n, n):
        raise ValueError(f"H must have shape ({n}, {n}), got {H.shape}")
    if not (np.all(np.isfinite(H)) and np.all(np.isfinite(c))):
        raise ValueError("H and c must be finite")
    H = 0.5 * (H + H.T)
    A1 = _as_2d(A1, n, "A1")
    A2 = _as_2d(A2, n, "A2")
    G, h = _bounds_rows(l, u, n)
    if A2 is not None:
        G.insert(0, A2)
        h.insert(0, np.asarray(b2, dtype=float).ravel())
    kwargs = {}
    if G:
        kwargs["G"] = matrix(np.vstack(G))
        kwargs["h"] = matrix(np.concatenate(h))
    if A1 is not None:
        kwargs["A"] = matrix(A1)
        kwargs["b"] = matrix(np.asarray(b1, dtype=float).ravel())
    options = {"show_progress": False, "abstol": tol, "reltol": tol,
               "feastol": max(tol, 1e-10), "maxiters": int(max_iter)}
    try:
        res = solvers.qp(matrix(H), matrix(c), options=options, **kwargs)
    except (ValueError, ArithmeticError) as exc:  # rank(A) < p, singular KKT system...
        raise InfeasibleProblemError(f"cvxopt could not solve the QP: {exc}{_convexity_note(H)}") \
            from exc
    status = res["status"]
    x = np.array(res["x"]).ravel()
    if status != "optimal":
        # cvxopt reports 'unknown' when it stalls; accept only near-feasible points
        pres = res.get("primal infeasibility") or np.inf
        if status == "unknown" and pres is not None and pres < 1e-6:
            status = "optimal (inaccurate)"
        else:
            raise InfeasibleProblemError(
                f"cvxopt stopped with status {status!r} (primal infeasibility "
                f"{res.get('primal infeasibility')}); the constraints may admit no solution"
                f"{_convexity_note(H)}")
    obj = 0.5 * x @ H @ x + c @ x
    return Solution(x=x, objective=float(obj), status=status, iterations=int(res["iterations"]))


def _convexity_note(H):
    """Why a QP may have failed: ``H`` not positive semi-definite (an indefinite kernel)."""
    if H.shape[0] > 3000:
        return ""
    ev = np.linalg.eigvalsh(H)
    top = max(abs(float(ev[0])), abs(float(ev[-1])), 1e-300)
    if ev[0] < -1e-9 * top:
        return (f"; the quadratic term is not positive semi-definite (eigenvalues down to "
                f"{ev[0]:.3g} against {ev[-1]:.3g}), so the problem is not convex: the kernel "
                "is indefinite on these inputs; use a positive semi-definite kernel")
    return ""


def solve_lp(c, A1=None, b1=None, A2=None, b2=None, l=0.0, u=None):
    """Solve ``min c'x`` s.t. ``A1 x = b1``, ``A2 x <= b2``, ``l <= x <= u`` with HiGHS.

    ``l`` defaults to 0 (as in SciPy); pass ``None`` or ``-inf`` for free variables.
    """
    from scipy.optimize import linprog

    c = np.asarray(c, dtype=float).ravel()
    n = c.size
    lo = np.broadcast_to(np.asarray(-np.inf if l is None else l, dtype=float), (n,))
    hi = np.broadcast_to(np.asarray(np.inf if u is None else u, dtype=float), (n,))
    bounds = [(None if not np.isfinite(a) else a, None if not np.isfinite(b) else b)
              for a, b in zip(lo, hi)]
    res = linprog(c, A_ub=_as_2d(A2, n, "A2"), b_ub=None if b2 is None else np.ravel(b2),
                  A_eq=_as_2d(A1, n, "A1"), b_eq=None if b1 is None else np.ravel(b1),
                  bounds=bounds, method="highs")
    if res.status != 0:
        raise InfeasibleProblemError(f"HiGHS stopped: {res.message}")
    return Solution(x=res.x, objective=float(res.fun), status="optimal", iterations=int(res.nit))
