"""Generic quadratic and linear programs in the book's form (LKC App. D, eq. D.1).

Book chapter 04 (``book/04_support_vector_machines.md``); LKC App. D. The quadratic program is::

    minimise    1/2 x' H x + c' x
    such that   A1 x  = b1
                A2 x <= b2
                l <= x <= u

:func:`solve_qp` hands it to cvxopt's interior-point solver (quietly) when cvxopt is
installed and otherwise to :func:`solve_qp_ipm`, a dense primal-dual interior-point method
in NumPy (Mehrotra's predictor-corrector, the same family as cvxopt's ``coneqp``), so the
package also runs where no cvxopt exists (Pyodide, the book's in-browser lab);
:func:`solve_lp` solves the linear program (``H = 0``) with SciPy's HiGHS.
Both return a :class:`Solution` and raise :class:`InfeasibleProblemError`
when the solver certifies infeasibility or fails to converge; :func:`solve_lp` raises its
subclass :class:`SolverStoppedError` when HiGHS stops without an answer (iteration cap,
numerical trouble), which says nothing about feasibility.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Solution", "InfeasibleProblemError", "SolverStoppedError", "solve_qp", "solve_qp_ipm",
           "solve_lp", "have_cvxopt"]


class InfeasibleProblemError(ValueError):
    """The program has no feasible point (or the solver could not find one)."""


class SolverStoppedError(InfeasibleProblemError):
    """The solver stopped without an answer (iteration limit, numerical trouble).

    A subclass of :class:`InfeasibleProblemError` so that callers that only need "no
    solution" keep working; callers that must tell "infeasible" from "unknown" (the
    separability test of :mod:`kernelclf.margin.separability`) catch it first.
    """


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


def have_cvxopt():
    """Whether cvxopt can be imported (it does not exist for Pyodide)."""
    try:
        import cvxopt  # noqa: F401
    except ImportError:
        return False
    return True


def _standard_form(H, c, A1, b1, A2, b2, l, u):
    """Validate and stack (D.1) as ``min 1/2 x'Hx + c'x, A x = b, G x <= h``."""
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
    G = np.vstack(G) if G else None
    h = np.concatenate(h) if G is not None else None
    b = None if A1 is None else np.asarray(b1, dtype=float).ravel()
    return H, c, A1, b, G, h


def solve_qp(H, c, A1=None, b1=None, A2=None, b2=None, l=None, u=None,
             tol=1e-9, max_iter=200, solver="auto"):
    """Solve the quadratic program of LKC eq. (D.1) with cvxopt (or NumPy without it).

    Parameters
    ----------
    H : (n, n) array, symmetric positive semi-definite
    c : (n,) array
    A1, b1 : equality constraints ``A1 x = b1`` (optional)
    A2, b2 : inequality constraints ``A2 x <= b2`` (optional)
    l, u : scalars or (n,) arrays of lower/upper bounds (``None``/inf: none)
    tol : float
        Absolute and relative gap tolerance handed to the solver.
    max_iter : int
    solver : {'auto', 'cvxopt', 'ipm'}
        ``'auto'``: cvxopt when it can be imported, else :func:`solve_qp_ipm`.

    Returns
    -------
    Solution
    """
    if solver not in ("auto", "cvxopt", "ipm"):
        raise ValueError(f"solver must be 'auto', 'cvxopt' or 'ipm', got {solver!r}")
    H, c, A, b, G, h = _standard_form(H, c, A1, b1, A2, b2, l, u)
    if solver == "ipm" or (solver == "auto" and not have_cvxopt()):
        return _ipm(H, c, A, b, G, h, tol, max_iter)
    from cvxopt import matrix, solvers

    kwargs = {}
    if G is not None:
        kwargs["G"] = matrix(G)
        kwargs["h"] = matrix(h)
    if A is not None:
        kwargs["A"] = matrix(A)
        kwargs["b"] = matrix(b)
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


def solve_qp_ipm(H, c, A1=None, b1=None, A2=None, b2=None, l=None, u=None,
                 tol=1e-9, max_iter=200):
    """Solve (D.1) with the package's own primal-dual interior-point method (NumPy only).

    Mehrotra's predictor-corrector on the KKT conditions of
    ``min 1/2 x'Hx + c'x`` s.t. ``A x = b``, ``G x + s = h``, ``s >= 0`` (Nocedal & Wright,
    *Numerical Optimization*, §16.6; the same method as cvxopt's ``coneqp`` on the
    non-negative orthant). Each step solves the reduced system
    ``[[H + G' diag(z/s) G, A'], [A, 0]]`` densely, so it suits the book's problems (a few
    thousand variables at most). It stops when the primal and dual residuals are below
    ``max(tol, 1e-10)`` relative to the data and the duality gap ``s'z`` is below ``tol``
    (absolute) or ``tol`` relative to the objective, as cvxopt does, and raises
    :class:`InfeasibleProblemError` when the iterates diverge (an infeasible or unbounded
    program) or ``max_iter`` is reached. :func:`solve_qp` uses it when cvxopt is missing.
    Book chapter 04 (``book/04_support_vector_machines.md``); LKC App. D.
    """
    return _ipm(*_standard_form(H, c, A1, b1, A2, b2, l, u), tol, max_iter)


def _kkt_solve(K, rhs):
    try:
        return np.linalg.solve(K, rhs)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(K, rhs, rcond=None)[0]


def _weighted_gram(G, n):
    """``D -> G' diag(D) G`` for the interior-point steps. Rows of ``G`` with one entry (the
    bounds ``l <= x <= u``) add only to the diagonal: their part is a vector, not an
    ``(n, n)`` matrix product (a cubic cost per step that dominated the in-browser lab's
    WebAssembly BLAS); the other rows keep the product. With bounds only the result equals
    the dense product bit for bit (each diagonal entry sums at most two nonzero terms)."""
    G = np.zeros((0, n)) if G is None else G
    single = np.count_nonzero(G, axis=1) == 1
    s_col = np.argmax(G[single] != 0, axis=1)
    s_sq = G[single, s_col] ** 2
    G_rest = G[~single]

    def G_DG(D):
        M = (G_rest.T * D[~single]) @ G_rest if G_rest.shape[0] else np.zeros((n, n))
        M[np.arange(n), np.arange(n)] += np.bincount(s_col, s_sq * D[single], minlength=n)
        return M

    return G_DG


def _ipm(H, c, A, b, G, h, tol, max_iter):
    n = c.size
    p = 0 if A is None else A.shape[0]
    q = 0 if G is None else G.shape[0]
    A = np.zeros((0, n)) if A is None else A
    b = np.zeros(0) if b is None else b
    G = np.zeros((0, n)) if G is None else G
    h = np.zeros(0) if h is None else h
    feastol = max(tol, 1e-10)
    scale = max(1.0, float(np.abs(H).max(initial=0.0)))
    reg = 1e-13 * scale

    G_DG = _weighted_gram(G, n)

    def solve(D, r_x, r_y):
        K = np.zeros((n + p, n + p))
        K[:n, :n] = H + G_DG(D)
        K[np.arange(n), np.arange(n)] += reg
        K[:n, n:] = A.T
        K[n:, :n] = A
        K[np.arange(n, n + p), np.arange(n, n + p)] -= reg
        sol = _kkt_solve(K, np.concatenate([r_x, r_y]))
        return sol[:n], sol[n:]

    # start: the equality-constrained least-squares point, slacks shifted inside the orthant
    x, y = solve(np.ones(q), -c + G.T @ h, b)
    s = h - G @ x
    z = np.ones(q)
    if q:
        s = s + max(0.0, 1.0 - s.min())
        z = np.full(q, max(1.0, float(np.abs(s).mean())) / max(1.0, float(np.abs(s).mean())))
    nb = 1.0 + max(np.linalg.norm(b), np.linalg.norm(h))
    nc = 1.0 + np.linalg.norm(c)
    status = "unknown"
    for it in range(1, int(max_iter) + 1):
        rd = H @ x + c + A.T @ y + G.T @ z
        rp = A @ x - b
        ri = G @ x + s - h
        gap = float(s @ z)
        pobj = 0.5 * x @ H @ x + c @ x
        pres = max(np.linalg.norm(rp), np.linalg.norm(ri)) / nb
        dres = np.linalg.norm(rd) / nc
        if pres <= feastol and dres <= feastol and (
                gap <= tol or gap <= tol * max(abs(pobj), 1e-300) or q == 0):
            status = "optimal"
            break
        if not (np.all(np.isfinite(x)) and np.abs(x).max(initial=0.0) < 1e12
                and np.abs(z).max(initial=0.0) < 1e14):
            status = "diverged"
            break
        if q == 0:  # equality constraints only: one Newton step solves it
            dx, dy = solve(np.zeros(0), -rd, -rp)
            x, y = x + dx, y + dy
            continue
        D = z / s
        mu = gap / q

        def direction(rc):
            # z*ds + s*dz = rc, G dx + ds = -ri  =>  dz = D (G dx + ri) + rc/s
            dx, dy = solve(D, -rd - G.T @ (D * ri + rc / s), -rp)
            dz = D * (G @ dx + ri) + rc / s
            ds = (rc - s * dz) / z
            return dx, dy, dz, ds

        def step(v, dv):
            neg = dv < 0
            return min(1.0, float((-v[neg] / dv[neg]).min())) if neg.any() else 1.0

        dx, dy, dz, ds = direction(-s * z)
        a_aff = min(step(s, ds), step(z, dz))
        mu_aff = float((s + a_aff * ds) @ (z + a_aff * dz)) / q
        sigma = (mu_aff / mu) ** 3
        dx, dy, dz, ds = direction(-s * z - ds * dz + sigma * mu)
        alpha = min(1.0, 0.99 * min(step(s, ds), step(z, dz)))
        x, y, z, s = x + alpha * dx, y + alpha * dy, z + alpha * dz, s + alpha * ds
    else:
        it = int(max_iter)
    if status != "optimal":
        pres = max(np.linalg.norm(A @ x - b), np.linalg.norm(np.maximum(G @ x - h, 0))) / nb
        if status == "unknown" and pres < 1e-6:
            status = "optimal (inaccurate)"
        else:
            raise InfeasibleProblemError(
                f"the interior-point QP solver stopped after {it} iterations ({status}; primal "
                f"infeasibility {pres:.3g}); the constraints may admit no solution or the "
                f"objective may be unbounded{_convexity_note(H)}")
    return Solution(x=x, objective=float(0.5 * x @ H @ x + c @ x), status=status, iterations=it)


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


def solve_lp(c, A1=None, b1=None, A2=None, b2=None, l=0.0, u=None, max_iter=None):
    """Solve ``min c'x`` s.t. ``A1 x = b1``, ``A2 x <= b2``, ``l <= x <= u`` with HiGHS.

    ``l`` defaults to 0 (as in SciPy); pass ``None`` or ``-inf`` for free variables.
    ``max_iter`` caps the iterations of each HiGHS run (``None``: HiGHS's own limit), which
    bounds the time of programs on which the simplex method stalls.

    HiGHS 1.x sometimes ends with model status "Unknown" (SciPy status 4) on feasible,
    bounded programs whose optimal set is unbounded (the adaptive margin machine's LP on
    some Thyroid splits; which programs do depends on the machine). Then the program is
    solved again: by HiGHS inside the box ``|x_j| <= 1e8 max(1, largest finite bound)`` on
    the free sides, then by HiGHS's interior-point method without and with the box; a boxed
    answer counts only when no variable ends on a side of the box that was free.

    Raises
    ------
    InfeasibleProblemError
        HiGHS certifies that the program is infeasible or unbounded.
    SolverStoppedError
        (a subclass) HiGHS stopped without an answer: the iteration limit, or "Unknown" and
        numerical trouble on every retry. Nothing is known about feasibility then.
    """
    from scipy.optimize import linprog

    c = np.asarray(c, dtype=float).ravel()
    n = c.size
    lo = np.broadcast_to(np.asarray(-np.inf if l is None else l, dtype=float), (n,))
    hi = np.broadcast_to(np.asarray(np.inf if u is None else u, dtype=float), (n,))
    bounds = [(None if not np.isfinite(a) else a, None if not np.isfinite(b) else b)
              for a, b in zip(lo, hi)]
    problem = dict(A_ub=_as_2d(A2, n, "A2"), b_ub=None if b2 is None else np.ravel(b2),
                   A_eq=_as_2d(A1, n, "A1"), b_eq=None if b1 is None else np.ravel(b1),
                   method="highs")
    if max_iter is not None:
        if not int(max_iter) >= 1:
            raise ValueError(f"max_iter must be a positive integer or None, got {max_iter!r}")
        problem["options"] = {"maxiter": int(max_iter)}
    res = linprog(c, bounds=bounds, **problem)
    attempts = [("highs", "unboxed", res)]
    if res.status == 4:
        # "Unknown": retry inside a large box, then with the interior-point method
        finite = np.abs(np.r_[lo, hi])
        finite = finite[np.isfinite(finite)]
        box = _LP_BOX * max(1.0, float(finite.max(initial=0.0)))
        boxed = [(-box if a is None else a, box if b is None else b) for a, b in bounds]
        free = np.array([[a is None, b is None] for a, b in bounds], dtype=bool).reshape(n, 2)
        for method, bnds in (("highs", boxed), ("highs-ipm", bounds), ("highs-ipm", boxed)):
            retry = linprog(c, bounds=bnds, **{**problem, "method": method})
            attempts.append((method, "boxed" if bnds is boxed else "unboxed", retry))
            if retry.status != 0 or retry.x is None:
                continue
            if bnds is boxed and ((free[:, 0] & (retry.x <= -0.999 * box))
                                  | (free[:, 1] & (retry.x >= 0.999 * box))).any():
                continue
            res = retry
            break
    if res.status in (2, 3):
        raise InfeasibleProblemError(f"HiGHS stopped: {res.message}")
    if res.status != 0 or res.x is None:
        tried = "; ".join(f"{meth} ({how}): status {getattr(r, 'status', '?')}, "
                          f"{getattr(r, 'message', '')}" for meth, how, r in attempts)
        raise SolverStoppedError(
            f"HiGHS stopped without solving the linear program ({n} variables); attempts: "
            f"{tried}. Its feasibility is unknown: rescale the data, or use a smaller problem")
    return Solution(x=res.x, objective=float(res.fun), status="optimal", iterations=int(res.nit))


_LP_BOX = 1e8
