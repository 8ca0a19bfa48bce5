"""Sequential minimal optimisation for the box-constrained SVM duals.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5;
Fan, Chen & Lin (2005). Solves::

    minimise    1/2 a' Q a - p' a
    subject to  0 <= a_i <= C_i                      (C_i may be +inf)
                sum_{i in g} s_i a_i = const_g        for every group g   (optional)

with ``Q_ij = s_i s_j K_ij`` for a positive semi-definite matrix ``K`` and signs
``s_i = +/-1`` (the labels). This covers the duals of LKC §2.4 (eq. 2.46,
2.48, 2.50, 2.52; App. B.5):

* with one group and ``s = y`` the pair constraint ``y'a = 0`` of the biased
  C-SVM (Platt 1999; the usual libsvm form);
* with two groups (the two classes, ``groups = s = y``) the two equalities
  ``sum_{y_i = +1} a_i = sum_{y_i = -1} a_i = nu m / 2`` of the biased nu-SVM
  (libsvm's nu solver: pairs are chosen inside one class);
* without equality constraint (``equality=False``): the book's bias-free SVM,
  solved by greedy single-coordinate Newton steps, with a (slightly ridged)
  Newton step on all free variables every ``m`` updates.

Working-set selection is the second-order rule WSS2 of Fan, Chen & Lin
(2005, JMLR 6, §3, WSS 2): ``i`` maximises the
violation ``-s_t G_t`` over the "up" set, ``j`` maximises the guaranteed
decrease ``b_ij^2 / a_ij`` over the "low" set. The loop stops when the maximal
KKT violation ``m(a) - M(a)`` (the gap between the two sets) drops to ``tol``
(libsvm's default is ``1e-3``). Columns of ``K`` come from the package's
Gram-access object (:class:`kernelclf.kernels.gram.Gram`: a precomputed matrix, or
columns on demand in a least-recently-used cache).
Every iteration costs O(m) vectorised numpy work plus at most two kernel
columns. Optional shrinking restricts the selection to the variables that can
still move and re-checks the full problem before stopping.

The bias is computed libsvm-style from the free variables (the average of
``s_t G_t`` over ``0 < a_t < C_t``; the midpoint of the feasible interval
when there are none).

Optional polishing (``polish=True``): once SMO has stopped at tolerance ``tol``,
the variables at a bound are taken as the active set and the KKT equations of the
free ones (with the equality constraints) are solved exactly, as in the
"solution polishing" of OSQP (Stellato et al. 2020, Math. Prog. Comp. 12). The
polished point is kept only if it stays in the box and its maximal KKT violation
is not larger than SMO's; then the solution is exact up to round-off instead of
``tol``-accurate (and, e.g., integer per-example bounds give the same machine as
repeated examples).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.gram import as_gram

__all__ = ["SMOResult", "solve_smo", "DualDivergenceError"]

TAU = 1e-12


class DualDivergenceError(ValueError):
    """The dual objective is unbounded below (e.g. a hard margin on a
    sample that is not separable in feature space)."""


@dataclass
class SMOResult:
    """Result of :func:`solve_smo`.

    Attributes
    ----------
    alpha : ndarray
        The minimiser ``a`` (non-negative, book's unsigned coefficients).
    objective : float
        ``1/2 a'Qa - p'a`` at ``alpha``.
    bias : float
        Threshold ``b`` such that ``f(x) = sum_i s_i a_i k(x_i, x) + b``
        (0 without equality constraint). For two groups (nu-SVM) this is
        ``-(r_+ - r_-)/2`` and ``rho`` holds ``(r_+ + r_-)/2``.
    iterations : int
    gap : float
        Final maximal KKT violation.
    converged : bool
    gradient : ndarray
        ``Q a - p``.
    rho : float
        Only for two groups: the margin parameter of the nu-SVM (else nan).
    """

    alpha: np.ndarray
    objective: float
    bias: float
    iterations: int
    gap: float
    converged: bool
    gradient: np.ndarray
    rho: float = float("nan")


def solve_smo(p, C, gram, *, s=None, groups=None, equality=True, alpha0=None, tol=1e-3,
              max_iter=None, shrinking=True, alpha_bound=np.inf, polish=False):
    """Minimise ``1/2 a'Qa - p'a`` over a box (and equality constraints) by SMO.

    Parameters
    ----------
    p : (m,) array
        Linear term (``1`` for the C-SVM dual, ``0`` for the nu-SVM dual).
    C : float or (m,) array
        Upper bounds ``C_i > 0`` (``np.inf`` allowed: hard margin); a vector gives
        every variable its own box (libsvm's per-example weights ``C_i = C w_i``).
    gram : :class:`kernelclf.kernels.gram.Gram` or (m, m) array
        The matrix ``K`` (``Q = diag(s) K diag(s)``): the package's Gram-access
        object (columns on demand, cached; a ridge such as the quadratic soft
        margin's ``I/C`` lives in it, LKC eq. 2.50), or a precomputed matrix.
        Any object with ``column(i)`` and ``diag`` works.
    s : (m,) array of +/-1, optional
        Signs (labels); default all +1.
    groups : (m,) int array, optional
        Group of each variable for the equalities ``sum_{g} s_i a_i = const``
        (default: one group). Ignored when ``equality=False``.
    equality : bool
        Keep the equalities (pairwise SMO) or drop them (coordinate descent).
    alpha0 : (m,) array, optional
        Feasible starting point (default 0, feasible for the C-SVM).
    tol : float
        Stopping tolerance on the maximal KKT violation (libsvm: 1e-3).
    max_iter : int, optional
        Iteration cap (default ``max(10_000_000, 100 m)``).
    shrinking : bool
        Use shrinking heuristics.
    alpha_bound : float
        Raise :class:`DualDivergenceError` when some ``a_i`` exceeds it
        (used to detect an unbounded hard-margin dual).
    polish : bool, default False
        After convergence, solve the KKT equations on the free variables exactly
        (see the module notes); kept only if it does not increase the KKT violation.
        Skipped when more than 1000 variables are free.

    Returns
    -------
    SMOResult
    """
    p = np.ascontiguousarray(p, dtype=float).ravel()
    m = p.size
    s = np.ones(m) if s is None else np.asarray(s, dtype=float).ravel()
    if s.shape != (m,) or not np.all(np.abs(s) == 1):
        raise ValueError("s must be a vector of +1/-1 of the same length as p")
    C = np.asarray(C, dtype=float)
    if C.ndim > 1 or (C.ndim == 1 and C.size != m):
        raise ValueError(f"C must be a number or a vector of {m} upper bounds, got shape "
                         f"{C.shape}")
    C = np.broadcast_to(C, (m,)).copy()
    if np.any(np.isnan(C)) or np.any(C <= 0):
        raise ValueError("upper bounds C must be > 0")
    gram = as_gram(gram)
    getter = getattr(gram, "column_getter", None)
    getcol = getter() if getter is not None else gram.column
    Kd = np.asarray(gram.diag, dtype=float)
    if Kd.shape != (m,):
        raise ValueError(f"the kernel matrix must be {m} x {m}")
    if max_iter is None:
        max_iter = max(10_000_000, 100 * m)
    alpha = np.zeros(m) if alpha0 is None else np.array(alpha0, dtype=float).ravel()
    if alpha.shape != (m,) or np.any(alpha < 0) or np.any(alpha > C):
        raise ValueError("alpha0 must lie in the box [0, C]")

    # F_t = -s_t G_t with G = Q a - p, built from the non-zero starting values
    F = s * p
    for k in np.flatnonzero(alpha):
        F -= getcol(k) * (s[k] * alpha[k])
    if not equality:
        res = _coordinate_descent(p, C, s, getcol, Kd, alpha, F, tol, max_iter,
                                  alpha_bound)
        if polish and res.converged:
            _polish(res, p, C, s, None, getcol)
        return res
    if groups is None:
        groups = np.zeros(m, dtype=int)
    groups = np.asarray(groups).ravel()
    labels = np.unique(groups)
    if len(labels) > 2:
        raise ValueError("at most two equality groups are supported")
    res = _pairwise(p, C, s, groups, labels, getcol, Kd, alpha, F, tol, max_iter,
                    shrinking, alpha_bound)
    if polish and res.converged:
        _polish(res, p, C, s, [groups == g for g in labels], getcol)
    return res


def _kkt_gap(F, alpha, C, s, gmask):
    """Maximal KKT violation: ``max F(up) - min F(low)`` over the equality groups, or
    the largest projected gradient without equality constraint (``gmask=None``)."""
    if gmask is None:
        G = -s * F
        pg = np.where(alpha <= 0, np.minimum(G, 0.0),
                      np.where(alpha >= C, np.maximum(G, 0.0), G))
        return float(np.abs(pg).max(initial=0.0))
    pos = s > 0
    up = np.where(pos, alpha < C, alpha > 0)
    low = np.where(pos, alpha > 0, alpha < C)
    gap = -np.inf
    for gm in gmask:
        gap = max(gap, np.max(F, where=up & gm, initial=-np.inf)
                  - np.min(F, where=low & gm, initial=np.inf))
    return float(gap)


def _polish(res, p, C, s, gmask, getcol, max_free=1000):
    """Solve the KKT equations on the free set exactly (Stellato et al. 2020's polishing).

    With the bounded variables fixed, the free ones ``a_F`` must satisfy
    ``Q_FF d + A' lam = -G_F`` and ``A d = 0`` (``A``: one row ``s_F`` per equality
    group). The bordered system is solved by least squares (``Q_FF`` may be singular,
    e.g. for repeated examples); ``res`` is updated in place only if the new point is
    in the box and its KKT violation is not larger.
    """
    alpha = res.alpha
    idx = np.flatnonzero((alpha > 0) & (alpha < C))
    n = idx.size
    if n == 0 or n > max_free:
        return
    sF = s[idx]
    KFF = np.empty((n, n))
    for r, i in enumerate(idx):
        KFF[:, r] = getcol(i)[idx]
    A = np.empty((0, n)) if gmask is None else \
        np.array([sF * gm[idx] for gm in gmask if gm[idx].any()]).reshape(-1, n)
    k = A.shape[0]
    M = np.zeros((n + k, n + k))
    M[:n, :n] = KFF * np.outer(sF, sF)
    M[:n, n:] = A.T
    M[n:, :n] = A
    rhs = np.zeros(n + k)
    rhs[:n] = -res.gradient[idx]

    def in_box(x):
        new = alpha[idx] + x[:n]
        return bool(np.all(np.isfinite(new)) and np.all(new >= 0) and np.all(new <= C[idx]))

    try:
        x = np.linalg.solve(M, rhs)
    except np.linalg.LinAlgError:
        x = np.full(n + k, np.nan)
    if not in_box(x):
        # singular Q_FF (e.g. repeated examples): the minimum-norm solution
        x = np.linalg.lstsq(M, rhs, rcond=None)[0]
        if not in_box(x):
            return
    d = x[:n]
    new = alpha[idx] + d
    F = -s * res.gradient
    gap0 = _kkt_gap(F, alpha, C, s, gmask)
    Fn = F.copy()
    for r, i in enumerate(idx):
        if d[r]:
            Fn -= getcol(i) * (s[i] * d[r])
    an = alpha.copy()
    an[idx] = new
    gap = _kkt_gap(Fn, an, C, s, gmask)
    if not gap <= gap0:
        return
    alpha[idx] = new
    res.gradient = -s * Fn
    res.gap = gap
    res.objective = _objective(alpha, Fn, s, p)
    if gmask is None:
        return
    if len(gmask) == 1:
        pos = s > 0
        res.bias = _bias(Fn, alpha, C, s, np.where(pos, alpha < C, alpha > 0),
                         np.where(pos, alpha > 0, alpha < C))
    else:
        r = {float(s[gm][0]): _group_rho(Fn, alpha, C, s, gm) for gm in gmask}
        rpos, rneg = r.get(1.0, 0.0), r.get(-1.0, 0.0)
        res.bias = float(-(rpos - rneg) / 2.0)
        res.rho = float((rpos + rneg) / 2.0)


def _objective(alpha, F, s, p):
    G = -s * F
    return float(0.5 * alpha @ (G - p))


def _pairwise(p, C, s, groups, labels, getcol, Kd, alpha, F, tol, max_iter, shrinking,
              alpha_bound):
    m = p.size
    pos = s > 0
    # up: a_t may move so that s_t a_t increases; low: so that it decreases
    up = np.where(pos, alpha < C, alpha > 0)
    low = np.where(pos, alpha > 0, alpha < C)
    gmask = [groups == g for g in labels]
    ninf, pinf = -np.inf, np.inf
    active = np.arange(m)
    shrunk = False
    counter = min(m, 1000)
    it = 0
    converged = False
    gap = np.inf
    while it < max_iter:
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = min(m, 1000)
                active, shrunk = _shrink(F, up, low, gmask, active, shrunk)
        Fa = F[active] if shrunk else F
        upa = up[active] if shrunk else up
        lowa = low[active] if shrunk else low
        best = None
        gap = ninf
        for gm in gmask:
            gma = gm[active] if shrunk else gm
            mu = upa & gma if len(gmask) > 1 else upa
            ml = lowa & gma if len(gmask) > 1 else lowa
            Fu = np.where(mu, Fa, ninf)
            ii = int(Fu.argmax())
            gmax = Fu[ii]
            Fl = np.where(ml, Fa, pinf)
            gmin = Fl.min()
            if gmax - gmin > gap:
                gap = gmax - gmin
            if gmax == ninf or gmax - gmin <= 0:
                continue
            i = int(active[ii]) if shrunk else ii
            Ki = getcol(i)
            Kia = Ki[active] if shrunk else Ki
            # b = gmax - F_t > 0 on eligible t (0 elsewhere); a = K_ii + K_tt - 2 K_it
            b = np.subtract(gmax, Fl)
            np.maximum(b, 0.0, out=b)
            a = np.multiply(Kia, -2.0)
            a += Kd[active] if shrunk else Kd
            a += Kd[i]
            np.maximum(a, TAU, out=a)
            b *= b
            b /= a
            jj = int(b.argmax())
            if not b[jj] > 0:
                continue
            if best is None or b[jj] > best[0]:
                best = (b[jj], i, (int(active[jj]) if shrunk else jj), Ki)
        if gap <= tol or best is None:
            if shrunk:
                # reconstruct the full problem and check again
                active = np.arange(m)
                shrunk = False
                counter = min(m, 1000)
                continue
            converged = gap <= tol or best is None
            break
        _, i, j, Ki = best
        Kj = getcol(j)
        Ci, Cj = float(C[i]), float(C[j])
        ai, aj = float(alpha[i]), float(alpha[j])
        Gi, Gj = float(-s[i] * F[i]), float(-s[j] * F[j])
        Kij = float(Ki[j])
        if s[i] != s[j]:
            quad = max(Kd[i] + Kd[j] - 2.0 * Kij, TAU)
            delta = (-Gi - Gj) / quad
            diff = ai - aj
            ai += delta
            aj += delta
            if diff > 0:
                if aj < 0:
                    aj, ai = 0.0, diff
            elif ai < 0:
                ai, aj = 0.0, -diff
            if diff > Ci - Cj:
                if ai > Ci:
                    ai, aj = Ci, Ci - diff
            elif aj > Cj:
                aj, ai = Cj, Cj + diff
        else:
            quad = max(Kd[i] + Kd[j] - 2.0 * Kij, TAU)
            delta = (Gi - Gj) / quad
            total = ai + aj
            ai -= delta
            aj += delta
            if total > Ci:
                if ai > Ci:
                    ai, aj = Ci, total - Ci
            elif aj < 0:
                aj, ai = 0.0, total
            if total > Cj:
                if aj > Cj:
                    aj, ai = Cj, total - Cj
            elif ai < 0:
                ai, aj = 0.0, total
        dai, daj = ai - alpha[i], aj - alpha[j]
        alpha[i], alpha[j] = ai, aj
        F -= Ki * (s[i] * dai)
        F -= Kj * (s[j] * daj)
        if s[i] > 0:
            up[i], low[i] = ai < Ci, ai > 0
        else:
            up[i], low[i] = ai > 0, ai < Ci
        if s[j] > 0:
            up[j], low[j] = aj < Cj, aj > 0
        else:
            up[j], low[j] = aj > 0, aj < Cj
        it += 1
        if ai > alpha_bound or aj > alpha_bound:
            raise DualDivergenceError(
                f"dual variable exceeded {alpha_bound:g} after {it} iterations: the dual "
                "is unbounded (the sample is not separable in feature space)")
    res = SMOResult(alpha=alpha, objective=_objective(alpha, F, s, p), bias=0.0,
                    iterations=it, gap=float(gap), converged=converged,
                    gradient=-s * F)
    if len(gmask) == 1:
        res.bias = _bias(F, alpha, C, s, up, low)
    else:
        # each group must have one sign (the nu-SVM groups are the classes)
        r = {float(s[gm][0]): _group_rho(F, alpha, C, s, gm) for gm in gmask}
        rpos, rneg = r.get(1.0, 0.0), r.get(-1.0, 0.0)
        res.bias = float(-(rpos - rneg) / 2.0)
        res.rho = float((rpos + rneg) / 2.0)
    return res


def _shrink(F, up, low, gmask, active, shrunk):
    """Keep only variables that can still take part in a violating pair."""
    keep = np.zeros(F.size, dtype=bool)
    for gm in gmask:
        gmax = np.max(F, where=up & gm, initial=-np.inf)
        gmin = np.min(F, where=low & gm, initial=np.inf)
        # a variable that can only move "up" with F below gmin, or only "down"
        # with F above gmax, is stuck at its bound
        stuck_up = up & ~low & (F < gmin)
        stuck_low = low & ~up & (F > gmax)
        keep |= gm & ~(stuck_up | stuck_low)
    if keep.all():
        return np.arange(F.size), False
    return np.flatnonzero(keep), True


def _bias(F, alpha, C, s, up, low):
    """libsvm's threshold from the free variables (F_t = -s_t G_t = b on the margin)."""
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(F[free].mean())
    ub = np.min(F, where=low, initial=np.inf)
    lb = np.max(F, where=up, initial=-np.inf)
    if not np.isfinite(ub):
        return float(lb)
    if not np.isfinite(lb):
        return float(ub)
    return float((ub + lb) / 2.0)


def _group_rho(F, alpha, C, s, gm):
    """libsvm's nu-SVM quantity r for one class: mean gradient over its free variables."""
    G = -s * F
    at_upper = alpha >= C
    at_lower = alpha <= 0
    free = gm & ~at_upper & ~at_lower
    if free.any():
        return float(G[free].mean())
    ub = np.min(G, where=gm & at_lower, initial=np.inf)
    lb = np.max(G, where=gm & at_upper, initial=-np.inf)
    return float((ub + lb) / 2.0)


def _newton_on_free(alpha, F, C, s, getcol, max_free=1500):
    """Projected Newton step on the free variables (accelerates coordinate descent).

    Solves ``Q_FF d = -G_F`` for the free set ``F``, shortens the step to stay in
    the box, and applies it; for a convex quadratic any step length in (0, 1]
    along the Newton direction decreases the objective.
    """
    idx = np.flatnonzero((alpha > 0) & (alpha < C))
    if idx.size == 0 or idx.size > max_free:
        return
    cols = np.column_stack([getcol(i) for i in idx])         # K[:, F]
    sF = s[idx]
    QFF = cols[idx] * np.outer(sF, sF)
    GF = -sF * F[idx]
    # a tiny ridge keeps the system solvable; on a singular Q_FF the step then runs
    # along the flat directions until it meets the box (still a descent direction:
    # g'd = -g'(Q + mu I)^{-1} g < 0 and d'Qd <= -g'd)
    mu = 1e-10 * max(float(np.trace(QFF)) / idx.size, 1e-300)
    try:
        d = -np.linalg.solve(QFF + mu * np.eye(idx.size), GF)
    except np.linalg.LinAlgError:
        d = -np.linalg.lstsq(QFF, GF, rcond=None)[0]
    if not np.all(np.isfinite(d)):
        return
    aF, CF = alpha[idx], C[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = np.where(d < 0, -aF / d, np.where(d > 0, (CF - aF) / d, np.inf))
    t = min(1.0, float(lim.min(initial=np.inf)))
    if not t > 0:
        return
    step = t * d
    if GF @ step + 0.5 * step @ QFF @ step >= 0:
        return
    new = np.clip(aF + step, 0.0, CF)
    step = new - aF
    alpha[idx] = new
    F -= cols @ (sF * step)


def _coordinate_descent(p, C, s, getcol, Kd, alpha, F, tol, max_iter, alpha_bound):
    """Greedy single-variable Newton steps for the problem without equality,
    with a projected Newton step on the free variables every ``m`` updates."""
    m = p.size
    Kd_safe = np.maximum(Kd, TAU)
    it = 0
    converged = False
    gap = np.inf
    newton_every = max(20, m)
    while it < max_iter:
        G = -s * F
        # projected gradient: the KKT violation of each coordinate
        pg = np.where(alpha <= 0, np.minimum(G, 0.0), np.where(alpha >= C, np.maximum(G, 0.0), G))
        gap = float(np.abs(pg).max()) if m else 0.0
        if gap <= tol:
            converged = True
            break
        if it and it % newton_every == 0:
            _newton_on_free(alpha, F, C, s, getcol)
            G = -s * F
        new = np.clip(alpha - G / Kd_safe, 0.0, C)
        d = new - alpha
        gain = -G * d - 0.5 * Kd_safe * d * d
        t = int(gain.argmax())
        if not gain[t] > 0:
            # violation left but no decrease possible: flat direction at round-off
            converged = True
            break
        dt = d[t]
        alpha[t] = new[t]
        F -= getcol(t) * (s[t] * dt)
        it += 1
        if alpha[t] > alpha_bound:
            raise DualDivergenceError(
                f"dual variable exceeded {alpha_bound:g} after {it} iterations: the dual "
                "is unbounded (the sample is not separable in feature space)")
    return SMOResult(alpha=alpha, objective=_objective(alpha, F, s, p), bias=0.0,
                     iterations=it, gap=float(gap), converged=converged, gradient=-s * F)
