"""The relative margin machine's dual solver: SMO-type pair steps on the RMM dual.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010),
"Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §3.3 and
eq. 12; erratum E19 of the seed inventory (KKT list of §3.3). The estimators are in
:mod:`kernelclf.margin.rmm`.

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

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_scalar

from ..kernels.gram import ColumnSlots, Gram, as_gram

__all__ = ["HAVE_NUMBA", "RMMResult", "solve_rmm"]

TAU = 1e-12
_PRECOMPUTE_MAX = 200     # as kernelclf.margin.svm: whole Gram matrix up to this many examples


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
    compiled = HAVE_NUMBA and (engine == "compiled" or (
        engine == "auto" and isinstance(gram, Gram)))
    getter = getattr(gram, "column_getter", None)
    getcol = getter() if getter is not None else gram.column
    Kd = np.ascontiguousarray(gram.diag, dtype=float)
    if Kd.shape != (m,):
        raise ValueError(f"the Gram matrix must be {m} x {m}")
    C, B, U = float(C), float(B), float(lam_ub)
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
