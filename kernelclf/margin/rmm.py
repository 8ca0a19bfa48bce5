"""Relative margin machines, their relaxed variants and the whitened (Sigma-) SVM.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010),
"Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §3.1–3.4;
erratum E19 of the seed inventory (KKT list of §3.3).

The relative margin machine (RMM eq. 8, in the QP form eq. 11) is the soft-margin SVM
with an explicit bias plus the output bounds ``-B <= w'x_i + b <= B``::

    min 1/2 ||w||^2 + C sum xi_i
    s.t. y_i (w'x_i + b) >= 1 - xi_i,  xi_i >= 0,  |w'x_i + b| <= B     (i = 1..m)

Its dual (RMM eq. 12), with ``v = alpha o y - lam + lam*``, is::

    max  sum alpha_i - B sum (lam_i + lam*_i) - 1/2 v'Kv
    s.t. 1'v = 0,  0 <= alpha <= C,  lam, lam* >= 0

and ``f(x) = sum_j v_j k(x_j, x) + b``. The package's ``alpha_`` is the expansion ``v``
(the package convention: signed coefficients of ``f``); ``dual_coef_`` holds the
classification multipliers ``alpha`` and ``beta_`` the multipliers of the two bounds.

The fast solver
---------------
:func:`solve_rmm` is an SMO-type decomposition method (the §3.3 working-set idea with
working sets of two variables). All ``3m`` dual variables share the single equality
``sum_t s_t a_t = 0`` with signs ``s = (y, -1, +1)``, so the pair step of SMO applies.
The gradient of every variable is fixed by the ``m``-vector ``g = Kv``: with
``F_t = -s_t (grad)_t`` one finds ``F = y_i - g_i`` for ``alpha_i``, ``B - g_i`` for
``lam_i`` and ``-B - g_i`` for ``lam*_i``. Because ``-B < y_i < B`` the three variables
of point ``i`` are ordered, so the most violating candidate of each point is known
without looking at all three: the solver keeps one "up" and one "low" offset per point
and selects pairs exactly as the SVM's second-order rule (Fan, Chen & Lin 2005, WSS 2)
over ``m`` points. One iteration costs the same as an SVM iteration: O(m) vector work
and at most two kernel columns from the package's :class:`kernelclf.kernels.gram.Gram`.
It stops when the maximal KKT violation ``max_up F - min_low F`` is at most ``tol``,
which is the KKT list of RMM §3.3 with ``epsilon = tol`` (E19: the conditions for
``lam_i = 0`` read ``f_i <= B + epsilon``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..kernels.gram import ColumnSlots, Gram, as_gram
from ..kernels.rows import take_rows
from ..kernels.vector import WhitenedKernel
from ..optim import solve_lp, solve_qp

__all__ = [
    "HAVE_NUMBA", "RMMResult", "solve_rmm", "solve_rmm_qp", "kkt_violations", "rmm_bound",
    "RelativeMarginMachine", "RelaxedRMM", "SigmaSVM",
]

TAU = 1e-12
_PRECOMPUTE_MAX = 200     # as kernelclf.margin.svm: whole Gram matrix up to this many examples


@dataclass
class RMMResult:
    """Solution of the RMM dual (eq. 12) by :func:`solve_rmm` or :func:`solve_rmm_qp`.

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


def _offsets(alpha, lam, lams, y, C, B, U):
    """Per-point offsets (r_up, kind_up, r_low, kind_low): ``F = r - g``.

    kinds: 0 = alpha, 1 = lam (upper bound), 2 = lam* (lower bound).
    """
    a_up = np.where(y > 0, alpha < C, alpha > 0)
    a_low = np.where(y > 0, alpha > 0, alpha < C)
    r_up = np.where(lam > 0, B, np.where(a_up, y, np.where(lams < U, -B, -np.inf)))
    k_up = np.where(lam > 0, 1, np.where(a_up, 0, 2))
    r_low = np.where(lams > 0, -B, np.where(a_low, y, np.where(lam < U, B, np.inf)))
    k_low = np.where(lams > 0, 2, np.where(a_low, 0, 1))
    return r_up.astype(float), k_up, r_low.astype(float), k_low


def _offset_one(i, alpha, lam, lams, y, C, B, U):
    yi = y[i]
    ai = alpha[i]
    a_up = ai < C if yi > 0 else ai > 0
    a_low = ai > 0 if yi > 0 else ai < C
    if lam[i] > 0:
        ru, ku = B, 1
    elif a_up:
        ru, ku = yi, 0
    elif lams[i] < U:
        ru, ku = -B, 2
    else:
        ru, ku = -np.inf, 2
    if lams[i] > 0:
        rl, kl = -B, 2
    elif a_low:
        rl, kl = yi, 0
    elif lam[i] < U:
        rl, kl = B, 1
    else:
        rl, kl = np.inf, 1
    return ru, ku, rl, kl


def _pair_step(i, j, ki, kj, step, alpha, lam, lams, y, C, U):
    """Apply one pair step in place: the signed variable of ``i`` ("up", kind ``ki``) grows
    by ``d``, that of ``j`` ("low", kind ``kj``) shrinks by ``d``, with ``d`` the Newton
    step cut to the room both have left (kinds: 0 alpha, 1 lam, 2 lam*). Returns ``d``
    (not finite: the dual is unbounded, nothing applied)."""
    if ki == 0:
        cap_i = C - alpha[i] if y[i] > 0 else alpha[i]
    elif ki == 1:
        cap_i = lam[i]
    else:
        cap_i = U - lams[i]
    if kj == 0:
        cap_j = alpha[j] if y[j] > 0 else C - alpha[j]
    elif kj == 1:
        cap_j = U - lam[j]
    else:
        cap_j = lams[j]
    d = step
    if cap_i < d:
        d = cap_i
    if cap_j < d:
        d = cap_j
    if not np.isfinite(d):
        return d
    if ki == 0:
        if d == cap_i:
            alpha[i] = C if y[i] > 0 else 0.0
        else:
            alpha[i] = alpha[i] + y[i] * d
    elif ki == 1:
        lam[i] = 0.0 if d == cap_i else lam[i] - d
    else:
        lams[i] = U if d == cap_i else lams[i] + d
    if kj == 0:
        if d == cap_j:
            alpha[j] = 0.0 if y[j] > 0 else C
        else:
            alpha[j] = alpha[j] - y[j] * d
    elif kj == 1:
        lam[j] = U if d == cap_j else lam[j] + d
    else:
        lams[j] = 0.0 if d == cap_j else lams[j] - d
    return d


# ---------------------------------------------------------------------------
# the pair-step loop compiled (numba when installed; the NumPy loop otherwise)

try:
    from numba import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency; Pyodide has none
    HAVE_NUMBA = False

# codes returned by the compiled loop
_DONE, _MAXITER, _NEED, _NEWTON, _UNBOUNDED = range(5)


def _pair_loop(data, slot, stamp, clock, Kd, y, alpha, lam, lams, v, g, r_up, k_up,
               r_low, k_low, C, B, U, tol, it, max_iter, newton_every):
    """The loop of :func:`solve_rmm` on columns ``data[slot[i]]`` (compiled twin).

    Same selection, step and update as the NumPy loop, element by element in the
    same order of floating-point operations, so both take the same steps. Returns
    ``(code, it, gap, need)``: converged, at ``max_iter``, column ``need`` missing
    (fill it and call again; the interrupted step is redone from its start), a
    Newton step due, or an infinite step.
    """
    m = y.size
    gap = np.inf
    while it < max_iter:
        i = -1
        Fi = -np.inf
        Fmin = np.inf
        for t in range(m):
            fu = r_up[t] - g[t]
            if fu > Fi:
                Fi = fu
                i = t
            fl = r_low[t] - g[t]
            if fl < Fmin:
                Fmin = fl
        if i < 0:
            return _DONE, it, -np.inf, -1
        gap = Fi - Fmin
        if not gap > tol:
            return _DONE, it, gap, -1
        si = slot[i]
        if si < 0:
            return _NEED, it, gap, i
        clock[0] += 1
        stamp[si] = clock[0]
        Ki = data[si]
        j = -1
        best = -np.inf
        Kdi = Kd[i]
        for t in range(m):
            bt = Fi - (r_low[t] - g[t])
            if not bt > 0.0:            # a zero score: wins only as the first candidate
                if j < 0:
                    best = 0.0
                    j = t
                continue
            at = Ki[t] * -2.0 + Kd[t] + Kdi
            if at < 1e-12:
                at = 1e-12
            bt = bt * bt / at
            if bt > best:
                best = bt
                j = t
        if not best > 0:
            return _DONE, it, gap, -1
        if j != i:
            sj = slot[j]
            if sj < 0:
                return _NEED, it, gap, j
            clock[0] += 1
            stamp[sj] = clock[0]
            Kj = data[sj]
        else:
            Kj = Ki
        ki = k_up[i]
        kj = k_low[j]
        diff = Fi - (r_low[j] - g[j])
        if i == j:
            aij = 1e-12
        else:
            aij = Kd[i] + Kd[j] - 2.0 * Ki[j]
            if aij < 1e-12:
                aij = 1e-12
        d = _pair_step_c(i, j, ki, kj, diff / aij, alpha, lam, lams, y, C, U)
        if not np.isfinite(d):
            return _UNBOUNDED, it, gap, -1
        if i != j:
            v[i] += d
            v[j] -= d
            for t in range(m):
                g[t] = (g[t] + d * Ki[t]) - d * Kj[t]
        r_up[i], k_up[i], r_low[i], k_low[i] = _offset_one_c(i, alpha, lam, lams, y, C, B, U)
        if j != i:
            r_up[j], k_up[j], r_low[j], k_low[j] = _offset_one_c(j, alpha, lam, lams, y,
                                                                 C, B, U)
        it += 1
        if newton_every > 0 and it % newton_every == 0:
            return _NEWTON, it, gap, -1
    return _MAXITER, it, gap, -1


if HAVE_NUMBA:
    _offset_one_c = _njit(cache=True, nogil=True)(_offset_one)
    _pair_step_c = _njit(cache=True, nogil=True)(_pair_step)
    _pair_loop = _njit(cache=True, nogil=True)(_pair_loop)
else:  # pragma: no cover - Pyodide: solve_rmm uses its NumPy loop
    _offset_one_c = _offset_one
    _pair_step_c = _pair_step


def _run_compiled(slots, Kd, y, alpha, lam, lams, v, g, r_up, k_up, r_low, k_low,
                  C, B, U, tol, max_iter, newton_every):
    """Drive :func:`_pair_loop`: fill missing columns, run the Newton steps."""
    it = 0
    while True:
        code, it, gap, need = _pair_loop(
            slots.data, slots.slot, slots.stamp, slots.clock, Kd, y, alpha, lam, lams, v, g,
            r_up, k_up, r_low, k_low, C, B, U, tol, it, max_iter, newton_every)
        if code == _NEED:
            slots.fill(need)
        elif code == _NEWTON:
            P = _newton_on_free(alpha, lam, lams, v, g, y, C, B, U, slots.column,
                                getblock=slots.columns)
            if P is not None:
                r_up[P], k_up[P], r_low[P], k_low[P] = _offsets(
                    alpha[P], lam[P], lams[P], y[P], C, B, U)
        elif code == _UNBOUNDED:
            raise ValueError(_UNBOUNDED_TEXT)
        else:
            return it, gap, code == _DONE


_UNBOUNDED_TEXT = ("the RMM dual is unbounded (an infinite step was taken); check that "
                   "B > 1 and the kernel is positive semi-definite")


def _check_B(B):
    if B is None:
        return np.inf
    B = float(B)
    if not B > 1:
        raise ValueError(
            f"the output bound B must be > 1, got B={B!r}: with B <= 1 no point can lie "
            "beyond the margin (RMM §3.2 takes B > 1; B >= max_i |f_SVM(x_i)| is the SVM)")
    return B


def solve_rmm(gram, y, C, B, *, lam_ub=np.inf, alpha0=None, lam0=None, lam_star0=None,
              tol=1e-3, max_iter=None, newton_every=None, engine="auto"):
    """Solve the RMM dual (RMM eq. 12) by SMO-type decomposition (§3.3).

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
        Every this many pair steps, one Newton step on the free variables (the
        equality-constrained minimiser over the current free set, shortened to stay
        feasible; a descent step for a convex quadratic). Default ``max(m, 500)``;
        0 switches it off.
    engine : {'auto', 'compiled', 'numpy'}
        ``'compiled'`` runs the pair steps in numba-compiled code on the columns of a
        :class:`kernelclf.kernels.gram.ColumnSlots` (one array filled from the Gram matrix,
        returning to Python only for a missing column or a Newton step);
        ``'numpy'`` runs them as NumPy vector operations on the Gram's column cache.
        Both take the same steps (the compiled loop repeats the NumPy arithmetic
        element by element). ``'auto'``: compiled when numba is installed (not in
        Pyodide) and the Gram matrix is a :class:`kernelclf.kernels.gram.Gram`.

    Returns
    -------
    RMMResult
    """
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"engine must be 'auto', 'compiled' or 'numpy', got {engine!r}")
    if engine == "compiled" and not HAVE_NUMBA:
        raise ImportError("engine='compiled' needs numba; use engine='numpy'")
    y = np.asarray(y, dtype=float).ravel()
    m = y.size
    gram = as_gram(gram)
    compiled = HAVE_NUMBA and (engine == "compiled" or (
        engine == "auto" and isinstance(gram, Gram)))
    getter = getattr(gram, "column_getter", None)
    getcol = getter() if getter is not None else gram.column
    Kd = np.ascontiguousarray(gram.diag, dtype=float)
    if Kd.shape != (m,):
        raise ValueError(f"the Gram matrix must be {m} x {m}")
    C = float(C)
    B = np.inf if B is None else float(B)
    U = float(lam_ub)
    if np.isinf(B):
        U = 0.0                       # the SVM: bound multipliers stay at zero
    max_iter = 100_000 + 100 * m if max_iter is None else int(max_iter)
    newton_every = max(m, 500) if newton_every is None else int(newton_every)
    alpha = np.zeros(m) if alpha0 is None else np.clip(np.array(alpha0, dtype=float), 0, C)
    lam = np.zeros(m) if lam0 is None or U == 0 else np.clip(np.array(lam0, float), 0, U)
    lams = np.zeros(m) if lam_star0 is None or U == 0 else np.clip(
        np.array(lam_star0, float), 0, U)
    v = alpha * y - lam + lams
    if abs(v.sum()) > 1e-8 * max(1.0, np.abs(v).sum()):
        raise ValueError("the warm start violates the equality alpha'y - 1'lam + 1'lam* = 0")
    if compiled:
        slots = ColumnSlots(gram if isinstance(gram, Gram) else Gram(
            G=np.column_stack([getcol(i) for i in range(m)]), check=False))
        getcol = slots.column
    g = np.zeros(m)
    for k in np.flatnonzero(v):
        g += getcol(k) * v[k]
    Bf = B if np.isfinite(B) else 1e300        # offsets of frozen bounds never win
    r_up, k_up, r_low, k_low = _offsets(alpha, lam, lams, y, C, Bf, U)
    it = 0
    gap = np.inf
    converged = False
    ninf = -np.inf
    if compiled:
        it, gap, converged = _run_compiled(slots, Kd, y, alpha, lam, lams, v, g, r_up,
                                           k_up, r_low, k_low, C, Bf, U, float(tol),
                                           max_iter, newton_every)
    while not compiled and it < max_iter:
        Fup = r_up - g
        i = int(Fup.argmax())
        Fi = Fup[i]
        Flow = r_low - g
        gap = Fi - Flow.min()
        if not gap > tol or Fi == ninf:
            converged = True
            break
        Ki = getcol(i)
        b = np.subtract(Fi, Flow)
        np.maximum(b, 0.0, out=b)
        a = np.multiply(Ki, -2.0)
        a += Kd
        a += Kd[i]
        np.maximum(a, TAU, out=a)
        b *= b
        b /= a
        j = int(b.argmax())
        if not b[j] > 0:
            converged = True
            break
        ki, kj = int(k_up[i]), int(k_low[j])
        diff = Fi - Flow[j]
        aij = TAU if (i == j) else max(Kd[i] + Kd[j] - 2.0 * Ki[j], TAU)
        d = _pair_step(i, j, ki, kj, diff / aij, alpha, lam, lams, y, C, U)
        if not np.isfinite(d):
            raise ValueError(_UNBOUNDED_TEXT)
        if i != j:
            v[i] += d
            v[j] -= d
            g += d * Ki
            g -= d * getcol(j)
        r_up[i], k_up[i], r_low[i], k_low[i] = _offset_one(i, alpha, lam, lams, y, C, Bf, U)
        if j != i:
            r_up[j], k_up[j], r_low[j], k_low[j] = _offset_one(j, alpha, lam, lams, y, C,
                                                               Bf, U)
        it += 1
        if newton_every and it % newton_every == 0:
            P = _newton_on_free(alpha, lam, lams, v, g, y, C, Bf, U, getcol)
            if P is not None:
                r_up[P], k_up[P], r_low[P], k_low[P] = _offsets(
                    alpha[P], lam[P], lams[P], y[P], C, Bf, U)
    v = alpha * y - lam + lams
    bias = _bias(alpha, lam, lams, y, g, C, Bf, U, r_up, r_low)
    obj = float(alpha.sum() - (0.0 if np.isinf(B) else B * (lam.sum() + lams.sum()))
                - 0.5 * v @ g)
    return RMMResult(alpha=alpha, lam=lam, lam_star=lams, v=v, g=g, bias=bias, objective=obj,
                     iterations=it, gap=float(max(gap, 0.0)) if np.isfinite(gap) else 0.0,
                     converged=converged)


def _newton_on_free(alpha, lam, lams, v, g, y, C, B, U, getcol, max_free=2000, getblock=None):
    """Newton step on the free variables of the RMM dual (in place).

    On the free set ``P`` (points with exactly one variable strictly inside its box)
    the KKT conditions of §3.3 read ``g_i + b = r_i`` (``r = y_i, B, -B`` for a free
    ``alpha_i, lam_i, lam*_i``) and ``1'v = 0``; this linear system gives the minimiser
    of the dual over the free variables. The step towards it is shortened to stay in
    the box; on a convex quadratic every step length in (0, 1] decreases the
    objective. Returns the indices that moved (or None).
    """
    fa = (alpha > 0) & (alpha < C)
    fl = (lam > 0) & (lam < U)
    fs = (lams > 0) & (lams < U)
    one = fa.astype(int) + fl + fs == 1
    P = np.flatnonzero(one)
    if P.size < 2 or P.size > max_free:
        return None
    kind = np.where(fa[P], 0, np.where(fl[P], 1, 2))
    r = np.where(kind == 0, y[P], np.where(kind == 1, B, -B))
    KP = getblock(P) if getblock is not None else \
        np.column_stack([getcol(i) for i in P])           # K[:, P]
    KPP = KP[P]
    n = P.size
    A = np.empty((n + 1, n + 1))
    A[:n, :n] = KPP
    A[:n, n] = 1.0
    A[n, :n] = 1.0
    A[n, n] = 0.0
    A[:n, :n][np.diag_indices(n)] += 1e-10 * max(float(np.trace(KPP)) / n, 1e-300)
    rhs = np.empty(n + 1)
    rhs[:n] = r - (g[P] - KPP @ v[P])
    rhs[n] = -(v.sum() - v[P].sum())
    try:
        sol = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        return None
    d = sol[:n] - v[P]
    if not np.all(np.isfinite(d)):
        return None
    # variable changes: alpha += y d, lam -= d, lam* += d; cap the step length
    cur = np.where(kind == 0, alpha[P], np.where(kind == 1, lam[P], lams[P]))
    dv = np.where(kind == 0, y[P] * d, np.where(kind == 1, -d, d))
    ub = np.where(kind == 0, C, U)
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = np.where(dv < 0, -cur / dv, np.where(dv > 0, (ub - cur) / dv, np.inf))
    tau = min(1.0, float(lim.min(initial=np.inf)))
    if not tau > 0:
        return None
    new = np.clip(cur + tau * dv, 0.0, ub)
    hit = np.isclose(lim, tau, rtol=1e-12, atol=0) & (tau < 1.0)
    new[hit & (dv < 0)] = 0.0
    new[hit & (dv > 0)] = ub[hit & (dv > 0)]
    k0, k1, k2 = kind == 0, kind == 1, kind == 2
    alpha[P[k0]] = new[k0]
    lam[P[k1]] = new[k1]
    lams[P[k2]] = new[k2]
    vnew = alpha[P] * y[P] - lam[P] + lams[P]
    dvv = vnew - v[P]
    v[P] = vnew
    g += KP @ dvv
    return P


def _primal_bias(g, y, B):
    """The bias that minimises the primal (eq. 11) for fixed ``w`` (``g = Kv``).

    ``sum_i max(0, 1 - y_i (g_i + b))`` is convex and piecewise linear in ``b``, and the
    bounds give the interval ``max(-B - g) <= b <= min(B - g)``; the minimum is at a
    breakpoint ``y_i - g_i`` or an end of the interval (the midpoint of the minimising
    segment when it is flat). Used to complete interior-point (QP) solutions, whose
    multipliers are never exactly at their bounds.
    """
    lo = float(np.max(-B - g)) if np.isfinite(B) else -np.inf
    hi = float(np.min(B - g)) if np.isfinite(B) else np.inf
    cand = np.clip(y - g, lo, hi)
    cand = np.unique(np.concatenate([cand, [x for x in (lo, hi) if np.isfinite(x)]]))
    obj = np.maximum(0.0, 1.0 - y[None, :] * (g[None, :] + cand[:, None])).sum(axis=1)
    best = obj.min()
    arg = cand[obj <= best + 1e-10 * max(1.0, best)]
    return float(0.5 * (arg.min() + arg.max()))


def _bias(alpha, lam, lams, y, g, C, B, U, r_up, r_low, eps=0.0):
    """libsvm-style threshold: mean of ``F`` over the free variables (§3.3: ``b`` from
    the KKT conditions), else the midpoint of the feasible interval."""
    vals = []
    fa = (alpha > eps) & (alpha < C - eps)
    vals.append(y[fa] - g[fa])
    fl = (lam > eps) & (lam < U - eps)
    vals.append(B - g[fl])
    fs = (lams > eps) & (lams < U - eps)
    vals.append(-B - g[fs])
    allv = np.concatenate(vals)
    if allv.size:
        return float(allv.mean())
    lo = float(np.max(r_up - g, initial=-np.inf))
    hi = float(np.min(r_low - g, initial=np.inf))
    ends = [x for x in (lo, hi) if np.isfinite(x)]
    return float(np.mean(ends)) if ends else 0.0


def solve_rmm_qp(K, y, C, B, *, lam_ub=np.inf, budget=None, tol=1e-9):
    """Solve the RMM dual (eq. 12) as one dense QP with cvxopt (reference solver).

    Variables ``z = (alpha, lam, lam*)`` (``3m``); ``H = S (1 1' (x) K) S`` with
    ``S = diag(y, -1, +1)``; the equality is ``s'z = 0`` (LKC eq. D.1 form through
    :func:`kernelclf.optim.solve_qp`). ``B=None`` solves the SVM dual (eq. 5).
    With ``budget=D`` the linear cost of the bound multipliers is 1 and
    ``sum(lam + lam*) <= D`` is added: the dual of the variable-bound RMM eq. 14
    (and, with ``lam_ub = D nu / m``, of the relaxed RMM eq. 15); its value then
    includes the constant ``D``.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    m = y.size
    C = float(C)
    if B is None and budget is None:
        H = (y[:, None] * K) * y[None, :]
        sol = solve_qp(H, -np.ones(m), A1=y[None, :], b1=[0.0], l=0.0, u=C, tol=tol)
        alpha = np.clip(sol.x, 0.0, C)
        lam = lams = np.zeros(m)
        Bv, U = np.inf, 0.0
    else:
        Bv = 1.0 if budget is not None else float(B)
        U = float(lam_ub)
        s = np.concatenate([y, -np.ones(m), np.ones(m)])
        K3 = np.tile(K, (3, 3))
        H = K3 * np.outer(s, s)
        c = np.concatenate([-np.ones(m), Bv * np.ones(m), Bv * np.ones(m)])
        u = np.concatenate([np.full(m, C), np.full(2 * m, U)])
        kw = {}
        if budget is not None:
            kw = {"A2": np.concatenate([np.zeros(m), np.ones(2 * m)])[None, :],
                  "b2": [float(budget)]}
        sol = solve_qp(H, c, A1=s[None, :], b1=[0.0], l=0.0, u=u, tol=tol, **kw)
        z = np.clip(sol.x, 0.0, u)
        alpha, lam, lams = z[:m], z[m:2 * m], z[2 * m:]
    v = alpha * y - lam + lams
    g = K @ v
    if budget is None:
        bias = _primal_bias(g, y, Bv)
        obj = float(alpha.sum() - (0.0 if not np.isfinite(Bv) else Bv * (lam.sum() +
                                                                           lams.sum()))
                    - 0.5 * v @ g)
    else:
        bias = np.nan                      # completed by the caller (depends on t)
        obj = float(alpha.sum() - (lam.sum() + lams.sum()) + float(budget) - 0.5 * v @ g)
    return RMMResult(alpha=alpha, lam=lam, lam_star=lams, v=v, g=g, bias=float(bias),
                     objective=obj, iterations=int(sol.iterations), gap=0.0, converged=True)


def kkt_violations(res, y, C, B, eps=1e-3, zero=0.0):
    """Check the KKT termination list of RMM §3.3 (with erratum E19) for a solution.

    Returns a dict ``{condition: number of violating points}`` for the seven
    conditions, evaluated with ``f_i = g_i + b`` and tolerance ``eps``; ``zero``
    decides when a multiplier counts as being at its bound (0 for the fast solver,
    whose variables sit exactly at bounds).
    """
    y = np.asarray(y, dtype=float)
    f = res.g + res.bias
    a, lam, lams = res.alpha, res.lam, res.lam_star
    free = (a > zero) & (a < C - zero)
    at0 = a <= zero
    atC = a >= C - zero
    out = {
        "0<alpha<C: |y - g - b| <= eps": int(np.sum(free & (np.abs(y - res.g - res.bias) > eps))),
        "alpha=0: y f >= 1 - eps": int(np.sum(at0 & (y * f < 1 - eps))),
        "alpha=C: y f <= 1 + eps": int(np.sum(atC & (y * f > 1 + eps))),
    }
    if B is not None and np.isfinite(B):
        out["lam>0: |f - B| <= eps"] = int(np.sum((lam > zero) & (np.abs(f - B) > eps)))
        out["lam=0: f <= B + eps (E19)"] = int(np.sum((lam <= zero) & (f > B + eps)))
        out["lam*>0: |-f - B| <= eps"] = int(np.sum((lams > zero) & (np.abs(-f - B) > eps)))
        out["lam*=0: -f <= B + eps (E19)"] = int(np.sum((lams <= zero) & (-f > B + eps)))
    return out


def rmm_bound(theta, k, K):
    """The paper's grid of bounds ``B = 1 + (theta - 1) k / K`` (RMM §5.2, §5.7)."""
    return 1.0 + (float(theta) - 1.0) * float(k) / float(K)


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------
class _RMMBase(BinaryKernelClassifier):

    def _gram(self, X, solver):
        m = len(X) if not isinstance(X, np.ndarray) else X.shape[0]
        pre = solver == "qp" or m <= _PRECOMPUTE_MAX or not isinstance(X, np.ndarray)
        return self._training_gram(X, precompute=pre, cache_mb=self.cache_mb)

    def decision_function(self, X):
        """``f(x) = sum_{j in support_} alpha_[j] k(x_j, x) + intercept_``."""
        X = self._validate_test(X)
        sv = self.support_
        if len(sv) == 0:
            return np.full(len(X), self.intercept_)
        return self._kernel_rows(X, take_rows(self.X_fit_, sv)) @ self.alpha_[sv] + \
            self.intercept_

    def _store(self, X, y, res, n_iter, converged):
        self.X_fit_ = X
        self.y_fit_ = y
        self.dual_coef_ = res.alpha
        self.beta_ = np.column_stack([res.lam, res.lam_star])
        self.alpha_ = res.v
        self.intercept_ = float(res.bias)
        self.dual_objective_ = float(res.objective)
        self.support_ = np.flatnonzero(res.v != 0)
        self.n_iter_ = max(int(n_iter), 1)
        self.converged_ = bool(converged)
        self.train_outputs_ = res.g + res.bias
        self.w_norm_ = float(np.sqrt(max(float(res.v @ res.g), 0.0)))
        if not converged:
            warnings.warn(f"{type(self).__name__} stopped after {n_iter} iterations before "
                          "reaching the tolerance; raise max_iter or tol", ConvergenceWarning,
                          stacklevel=3)

    def primal_objective(self):
        """``1/2 ||w||^2 + C sum xi_i`` at the fitted ``(w, b)`` (eq. 11)."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return 0.5 * self.w_norm_ ** 2 + float(self.C) * float(xi.sum())


class RelativeMarginMachine(_RMMBase):
    """Relative margin machine with bias (RMM eq. 8 / QP form eq. 11, dual eq. 12).

    The soft-margin SVM of RMM eq. 4 with the additional bounds ``|w'x_i + b| <= B``
    on the training outputs: a large margin *relative to the spread* of the
    projections.

    Parameters
    ----------
    kernel : kernel object, name or callable, default None (linear)
    C : float > 0
        Soft-margin constant (``1/2 ||w||^2 + C sum xi_i``, as
        :class:`kernelclf.margin.svm.SupportVectorMachine`).
    B : float or None
        The output bound. ``None`` gives the SVM. With ``B_mode='absolute'``
        ``B`` is the bound itself and must be > 1 (a ``ValueError`` otherwise);
        any ``B >= theta = max_i |f_SVM(x_i)|`` reproduces the SVM (same ``C``).
        With ``B_mode='relative'``, ``B = kappa`` in ``(0, 1]`` places the bound on
        the paper's grid ``1 + (theta - 1) kappa`` (RMM §5.2/§5.7: ``kappa = k/K``);
        ``kappa = 1`` is the SVM, ``kappa -> 0`` the tightest bound. The SVM is
        then fitted first (on the same Gram matrix) and warm-starts the RMM. When
        ``theta <= 1`` no bound above 1 is active and the SVM is returned.
    B_mode : {'absolute', 'relative'}
    solver : {'auto', 'smo', 'qp'}
        ``'smo'`` (and ``'auto'``): the decomposition solver :func:`solve_rmm`;
        ``'qp'``: cvxopt on the whole dual (:func:`solve_rmm_qp`; dense, ``3m``
        variables, for checking).
    tol : float
        ``epsilon`` of the KKT list (§3.3) for the fast solver (paper: 0.001); the
        QP uses ``min(tol, 1e-8)``.
    max_iter : int or None
    cache_mb : float
        Memory for the training Gram matrix (columns on demand when m > 200). When the
        whole matrix fits (``8 m^2`` bytes; m <= 5120 at 200 MB), the compiled solver
        computes it at once after using a share of the columns set by the input
        dimension (:class:`kernelclf.kernels.gram.ColumnSlots`).

    Attributes
    ----------
    alpha_ : (m,) array
        Expansion coefficients ``alpha_i y_i - lam_i + lam*_i`` of ``f``.
    dual_coef_ : (m,) array
        Classification multipliers ``alpha_i`` in ``[0, C]``.
    beta_ : (m, 2) array
        Multipliers of the bounds: column 0 for ``f(x_i) <= B`` (``lam``), column 1
        for ``f(x_i) >= -B`` (``lam*``).
    intercept_ : float
    support_ : indices with a non-zero expansion coefficient
    dual_objective_ : float
        Value of eq. 12 (equals :meth:`primal_objective` at the optimum).
    B_ : float
        The absolute bound used (``inf`` for the SVM).
    theta_ : float
        ``max_i |f_SVM(x_i)|`` (only computed with ``B_mode='relative'``; else nan).
    n_iter_, converged_, train_outputs_, X_fit_, kernel_, classes_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "B": [Real(None, None), None],
        "B_mode": [StrOptions({"absolute", "relative"})],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, B=None, B_mode="absolute", solver="auto",
                 tol=1e-3, max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.B = B
        self.B_mode = B_mode
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Solve the RMM dual for ``(X, y)`` (any two labels)."""
        self._validate_params()
        if self.B is not None:
            if self.B_mode == "absolute":
                _check_B(self.B)
            elif not 0 < float(self.B) <= 1:
                raise ValueError(f"with B_mode='relative' B is the fraction kappa in (0, 1] "
                                 f"of the grid 1 + (theta - 1) kappa, got B={self.B!r}")
        X, y = self._fit_binary(X, y)
        solver = "smo" if self.solver == "auto" else self.solver
        C = float(self.C)
        gram = self._gram(X, solver)
        K = gram.full() if solver == "qp" else None
        self.theta_ = np.nan
        start = {}
        if self.B is None:
            B = np.inf
        elif self.B_mode == "absolute":
            B = float(self.B)
        else:
            svm = (solve_rmm_qp(K, y, C, None, tol=min(self.tol, 1e-8)) if solver == "qp"
                   else solve_rmm(gram, y, C, None, tol=self.tol, max_iter=self.max_iter))
            self.theta_ = float(np.max(np.abs(svm.g + svm.bias)))
            # theta <= 1: every SVM output is inside the margin, so no bound B > 1 is
            # active and the RMM is the SVM for every B
            B = rmm_bound(self.theta_, float(self.B), 1.0)
            if not B > 1 or B >= self.theta_:
                B = np.inf
            start = {"alpha0": svm.alpha}
        self.B_ = B
        if solver == "qp":
            res = solve_rmm_qp(K, y, C, None if np.isinf(B) else B, tol=min(self.tol, 1e-8))
        else:
            res = solve_rmm(gram, y, C, None if np.isinf(B) else B, tol=self.tol,
                            max_iter=self.max_iter, **start)
        self._store(X, y, res, res.iterations, res.converged)
        return self


class RelaxedRMM(_RMMBase):
    """The RMM with a learned bound ``t >= 1`` (RMM eq. 14) and its relaxation (eq. 15).

    Eq. 14: ``min 1/2 ||w||^2 + C sum xi + D t`` subject to the SVM constraints and
    ``|w'x_i + b| <= t``, ``t >= 1``. Eq. 15 (``nu`` given) adds slacks on the
    bounds, ``|f_i| <= t + tau_i`` with the penalty ``D (t + (nu/m) sum (tau + tau*))``;
    ``nu`` controls the fraction of points outside the band. The dual of both is
    eq. 12 with ``B = 1`` plus the budget ``sum(lam + lam*) <= D`` (and the box
    ``lam, lam* <= D nu / m`` for eq. 15), plus the constant ``D``.

    Parameters
    ----------
    kernel, C : as :class:`RelativeMarginMachine`
    D : float > 0
        Price of the bound ``t``.
    nu : float > 0 or None
        ``None``: hard bounds (eq. 14); else the relaxed RMM (eq. 15).
    solver : {'auto', 'smo', 'qp'}
        ``'qp'``: the dual above with cvxopt. ``'smo'`` (``'auto'``): the optimal
        value is convex in ``t`` with slope ``D - sum(lam + lam*)`` (envelope
        theorem), so ``t`` is found by bisection on that slope, each point solving
        the fixed-``t`` problem (eq. 11 / its relaxation) with :func:`solve_rmm`
        and warm starts.
    tol, max_iter, cache_mb : as :class:`RelativeMarginMachine`

    Attributes
    ----------
    t_ : float
        The learned bound.
    alpha_, dual_coef_, beta_, intercept_, support_, dual_objective_, n_iter_
        As :class:`RelativeMarginMachine`.
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "D": [Real(0, None, closed="neither")],
        "nu": [Real(0, None, closed="neither"), None],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, D=1.0, nu=None, solver="auto", tol=1e-3,
                 max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.D = D
        self.nu = nu
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Solve eq. 14 (``nu=None``) or eq. 15 for ``(X, y)``."""
        X, y = self._fit_binary(X, y)
        solver = "smo" if self.solver == "auto" else self.solver
        m = len(y)
        C, D = float(self.C), float(self.D)
        U = np.inf if self.nu is None else D * float(self.nu) / m
        gram = self._gram(X, solver)
        if solver == "qp":
            res = solve_rmm_qp(gram.full(), y, C, None, lam_ub=U, budget=D,
                               tol=min(self.tol, 1e-8))
            b, t = self._complete(res.g, y)
            res.bias = b
            n_iter = res.iterations
        else:
            res, t, n_iter = self._bisect(gram, y, C, D, U)
        self.t_ = float(t)
        self._store(X, y, res, n_iter, res.converged)
        return self

    def _penalty(self, f, t):
        m = len(f)
        if self.nu is None:
            return float(self.D) * t
        over = np.maximum(0.0, f - t) + np.maximum(0.0, -f - t)
        return float(self.D) * (t + float(self.nu) / m * float(over.sum()))

    def primal_objective(self):
        """Value of eq. 14 / 15 at the fitted ``(w, b, t)``."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return (0.5 * self.w_norm_ ** 2 + float(self.C) * float(xi.sum())
                + self._penalty(f, self.t_))

    def _complete(self, g, y):
        """Bias and bound for a fixed ``w`` (``g = Kv``): the LP over ``(b, t, slacks)``."""
        m = len(y)
        C, D = float(self.C), float(self.D)
        # variables: b, t, xi (m), tau (m), tau* (m)
        soft = self.nu is not None
        n = 2 + m + (2 * m if soft else 0)
        c = np.zeros(n)
        c[1] = D
        c[2:2 + m] = C
        if soft:
            c[2 + m:] = D * float(self.nu) / m
        rows, rhs = [], []
        I = np.eye(m)
        # -y_i b - xi_i <= y_i g_i - 1
        A = np.zeros((m, n))
        A[:, 0] = -y
        A[:, 2:2 + m] = -I
        rows.append(A)
        rhs.append(y * g - 1.0)
        # b - t - tau_i <= -g_i ;  -b - t - tau*_i <= g_i
        A = np.zeros((m, n))
        A[:, 0] = 1.0
        A[:, 1] = -1.0
        if soft:
            A[:, 2 + m:2 + 2 * m] = -I
        rows.append(A)
        rhs.append(-g)
        A = np.zeros((m, n))
        A[:, 0] = -1.0
        A[:, 1] = -1.0
        if soft:
            A[:, 2 + 2 * m:] = -I
        rows.append(A)
        rhs.append(g)
        lo = np.zeros(n)
        lo[0] = -np.inf
        lo[1] = 1.0
        sol = solve_lp(c, A2=np.vstack(rows), b2=np.concatenate(rhs), l=lo)
        return float(sol.x[0]), float(sol.x[1])

    def _bisect(self, gram, y, C, D, U):
        tol = float(self.tol)
        total = 0
        kw = {"tol": tol, "max_iter": self.max_iter}

        def inner(t, start):
            nonlocal total
            r = solve_rmm(gram, y, C, t, lam_ub=U, **start, **kw)
            total += r.iterations
            return r

        svm = solve_rmm(gram, y, C, None, **kw)
        total += svm.iterations
        theta = float(np.max(np.abs(svm.g + svm.bias)))
        if theta <= 1.0 + 1e-12:
            res, t = svm, 1.0
            res.objective = svm.objective + D
            return res, t, total
        lo, hi = 1.0, theta
        start = {"alpha0": svm.alpha}
        r_lo = inner(1.0 + 1e-9, start)
        if r_lo.lam.sum() + r_lo.lam_star.sum() <= D:
            res, t = r_lo, 1.0
        else:
            res, t = svm, theta
            best = r_lo
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                r = inner(mid, {"alpha0": best.alpha, "lam0": best.lam,
                                "lam_star0": best.lam_star})
                if r.lam.sum() + r.lam_star.sum() > D:
                    lo, best = mid, r
                else:
                    hi, res, t = mid, r, mid
                if hi - lo <= 1e-6 * hi:
                    break
        # objective of eq. 14/15 at the fixed-t solution: inner dual + D t
        res.objective = float(res.objective + D * t) if t < theta else float(
            svm.objective + D * theta)
        return res, t, total


class SigmaSVM(_RMMBase):
    """The whitened SVM, Sigma-SVM (RMM §3.1, primal eq. 6, dual eq. 7).

    ``min (1-D)/2 ||w||^2 + D/2 ||Sigma^{1/2} w||^2 + C sum xi`` on centred data;
    in kernel form an SVM with bias on the whitened kernel
    :class:`kernelclf.kernels.vector.WhitenedKernel` (the formula for ``k-hat`` in §3.1),
    which costs O(m^3) once (an eigendecomposition of the centred Gram matrix).
    ``D = 0`` is the SVM on centred data (the same classifier as the SVM with bias);
    ``D -> 1`` approaches affine invariance.

    Parameters
    ----------
    kernel : base kernel (default linear)
    C : float > 0
    D : float in [0, 1)
    solver : {'auto', 'smo', 'qp'}
    tol, max_iter, cache_mb : as :class:`RelativeMarginMachine`

    Attributes
    ----------
    kernel_ : the fitted :class:`kernelclf.kernels.vector.WhitenedKernel`
    alpha_, dual_coef_, intercept_, support_, dual_objective_, n_iter_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "D": [Real(0, 1, closed="left")],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, D=0.5, solver="auto", tol=1e-3, max_iter=None,
                 cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.D = D
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Fit the whitened kernel on ``X`` and solve the SVM dual (eq. 7) on it."""
        X, y = self._fit_binary(X, y)
        solver = "smo" if self.solver == "auto" else self.solver
        self.kernel_ = WhitenedKernel(self.kernel_, float(self.D)).fit(X)
        gram = Gram(G=self.kernel_.train_gram_, kernel=self.kernel_, X=X)
        if solver == "qp":
            res = solve_rmm_qp(gram.full(), y, float(self.C), None, tol=min(self.tol, 1e-8))
        else:
            res = solve_rmm(gram, y, float(self.C), None, tol=self.tol, max_iter=self.max_iter)
        self._store(X, y, res, res.iterations, res.converged)
        return self

    def primal_objective(self):
        """``1/2 w'((1-D) I + D Sigma) w + C sum xi`` (eq. 6) at the fitted solution."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return 0.5 * self.w_norm_ ** 2 + float(self.C) * float(xi.sum())
