"""KKT quantities of the SMO duals: violation, bias, gradient reconstruction, Newton steps.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5; Fan, Chen &
Lin (2005, JMLR 6); Chang & Lin (2011, libsvm §4-5); Stellato et al. (2020, OSQP's
polishing). Helpers of :func:`kernelclf.margin.smo.solve_smo`, shared by its NumPy and its
compiled engine (:mod:`kernelclf.margin.smo.compiled`): they run in Python once per solve
(or every so many steps), on ``F_t = -s_t G_t`` with ``G = Q a - p`` the gradient. The
gradient reconstruction of the NumPy engine is :class:`_Reconstruction`; the compiled
engine does the same operations in compiled code.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import lapack, lstsq

__all__ = []


def _up_low(alpha, C, s):
    """The variables that can move up and down: ``(up, low)``."""
    pos = s > 0
    below, above = alpha < C, alpha > 0
    return np.where(pos, below, above), np.where(pos, above, below)


def _kkt_gap(F, alpha, C, s, gmask, up_low=None):
    """Maximal KKT violation: ``max F(up) - min F(low)`` over the equality groups, or
    the largest projected gradient without equality constraint (``gmask=None``).
    ``up_low``: :func:`_up_low` of ``alpha`` when the caller has it."""
    if gmask is None:
        G = -s * F
        pg = np.where(alpha <= 0, np.minimum(G, 0.0),
                      np.where(alpha >= C, np.maximum(G, 0.0), G))
        return float(np.abs(pg).max(initial=0.0))
    up, low = _up_low(alpha, C, s) if up_low is None else up_low
    if len(gmask) == 1:         # one group holds every variable (solve_smo's groups)
        return float(max(-np.inf, np.max(F, where=up, initial=-np.inf)
                         - np.min(F, where=low, initial=np.inf)))
    gap = -np.inf
    for gm in gmask:
        gap = max(gap, np.max(F, where=up & gm, initial=-np.inf)
                  - np.min(F, where=low & gm, initial=np.inf))
    return float(gap)


def _polish(res, p, C, s, gmask, getcol, max_free=1000, getcols=None, bias=True):
    """Solve the KKT equations on the free set exactly (Stellato et al. 2020's polishing).

    With the bounded variables fixed, the free ones ``a_F`` must satisfy
    ``Q_FF d + A' lam = -G_F`` and ``A d = 0`` (``A``: one row ``s_F`` per equality
    group). The bordered system is solved by LU. When its reciprocal condition number
    is below ``n eps`` (``Q_FF`` singular, e.g. for repeated examples) and that point
    leaves the box, it is solved again by least squares: the minimum-norm solution,
    from LAPACK's complete orthogonal factorisation ``gelsy`` (a few LU solves' cost,
    where the SVD-based ``gelsd`` costs tens). A regular system has one solution, so
    when it leaves the box nothing else is tried;
    ``res`` is updated in place only if the new point is in the box and its KKT
    violation is not larger than ``res.gap``, which must be the KKT violation
    (:func:`_kkt_gap`) at ``res``'s point, as :func:`kernelclf.margin.smo._result` sets it.
    ``getcols(idx)``, when given, returns the block ``K[:, idx]`` at once
    (:meth:`kernelclf.kernels.gram.ColumnSlots.columns`, or a view of rows of a stored
    matrix). ``bias=False`` leaves
    ``res.bias`` (and ``res.rho``) as they are.
    """
    alpha = res.alpha
    idx = np.flatnonzero((alpha > 0) & (alpha < C))
    n = idx.size
    if n == 0 or n > max_free:
        return
    sF = s[idx]
    if getcols is not None:                     # K[:, F] at once (the cached columns)
        cols = getcols(idx)
    else:                                       # K[:, F], one column fetch each
        cols = np.empty((alpha.size, n))
        for r, i in enumerate(idx):
            cols[:, r] = getcol(i)
    KFF = cols[idx]
    if gmask is None:
        A = np.empty((0, n))
    elif len(gmask) == 1:                       # (one group holds every variable)
        A = sF[None, :]
    else:
        A = np.array([sF * gm[idx] for gm in gmask if gm[idx].any()]).reshape(-1, n)
    k = A.shape[0]
    M = np.zeros((n + k, n + k))
    M[:n, :n] = KFF * sF[:, None] * sF
    M[:n, n:] = A.T
    M[n:, :n] = A
    rhs = np.zeros(n + k)
    rhs[:n] = -res.gradient[idx]

    CF = C[idx]

    def in_box(x):
        new = alpha[idx] + x[:n]
        return bool((np.isfinite(new) & (new >= 0) & (new <= CF)).all())

    x, lu = _lu_factor_solve(M, rhs)
    if not in_box(x):
        if _regular(M, lu):     # the unique solution leaves the box: the active set is wrong
            return
        # singular Q_FF (e.g. repeated examples): the minimum-norm solution
        x = _min_norm_solution(M, rhs)
        if not in_box(x):
            return
    d = x[:n]
    new = alpha[idx] + d
    F = -s * res.gradient
    Fn = F - cols @ (sF * d)
    an = alpha.copy()
    an[idx] = new
    gap = _kkt_gap(Fn, an, C, s, gmask)
    if not gap <= res.gap:
        return
    alpha[idx] = new
    res.gradient = -s * Fn
    res.gap = gap
    res.objective = _objective(alpha, Fn, s, p)
    if gmask is None or not bias:
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


def _lu_solution(M, rhs):
    """``(x, regular)``: the LU solution of ``M x = rhs`` and whether ``M`` is regular,
    i.e. its reciprocal condition number (LAPACK ``gecon``, 1-norm) is at least
    ``n eps``, the rank cut-off of :func:`_min_norm_solution`."""
    x, lu = _lu_factor_solve(M, rhs)
    return x, _regular(M, lu)


def _lu_factor_solve(M, rhs):
    """``(x, lu)``: the solution of ``M x = rhs`` by LAPACK's LU (``getrf``, ``getrs``: what
    ``scipy.linalg.lu_factor`` and ``lu_solve`` call, without their checks and batching)
    and the factors (None when they are unusable; ``x`` is then NaN)."""
    lu, piv, info = lapack.dgetrf(M)            # (M is copied, not overwritten)
    if info != 0:               # an exactly zero pivot (singular) or an illegal value
        return np.full(M.shape[0], np.nan), None
    x, info = lapack.dgetrs(lu, piv, rhs)
    if info != 0:
        return np.full(M.shape[0], np.nan), None
    return x, lu


def _regular(M, lu):
    """Whether ``M`` (factored as ``lu`` by :func:`_lu_factor_solve`) is regular: its
    reciprocal condition number (LAPACK ``gecon``, 1-norm) is at least ``n eps``, the rank
    cut-off of :func:`_min_norm_solution`. Computed only where the answer matters."""
    if lu is None:
        return False
    rcond, info = lapack.dgecon(lu, float(np.abs(M).sum(axis=0).max()), norm="1")
    return bool(info == 0 and rcond >= _EPS * M.shape[0])


_EPS = float(np.finfo(float).eps)


def _min_norm_solution(M, rhs):
    """Least-squares solution of minimum norm (rank from a pivoted QR, as ``lstsq``'s
    ``rcond=None`` cut-off does from the singular values)."""
    cond = _EPS * max(M.shape)
    try:
        return lstsq(M, rhs, cond=cond, lapack_driver="gelsy", check_finite=False)[0]
    except (np.linalg.LinAlgError, ValueError):
        return np.full(M.shape[1], np.nan)


def _objective(alpha, F, s, p):
    G = -s * F
    return float(0.5 * alpha @ (G - p))


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


def _newton_on_free_eq(alpha, F, C, s, gmask, getcol, max_free=2000):
    """Newton step on the free variables under the equalities (the pairwise SMO's
    periodic step, ``newton_every`` of :func:`kernelclf.margin.smo.solve_smo`).

    With the variables at a bound fixed, the free ones move along the solution of the
    bordered system of :func:`_polish` (the minimiser over their affine set; the
    minimum-norm solution when ``Q_FF`` is singular, e.g. two variables of one example in
    a :class:`kernelclf.kernels.gram.Replicated` matrix), shortened to stay in the box,
    if that decreases the objective. Variables that the shortened step takes to a bound
    are put exactly on it. Returns the indices that moved (or None).
    """
    idx = np.flatnonzero((alpha > 0) & (alpha < C))
    n = idx.size
    if n < 2 or n > max_free:
        return None
    sF = s[idx]
    cols = np.empty((alpha.size, n))
    for r, i in enumerate(idx):
        cols[:, r] = getcol(i)
    QFF = cols[idx] * np.outer(sF, sF)
    A = np.array([sF * gm[idx] for gm in gmask if gm[idx].any()]).reshape(-1, n)
    k = A.shape[0]
    M = np.zeros((n + k, n + k))
    M[:n, :n] = QFF
    M[:n, n:] = A.T
    M[n:, :n] = A
    GF = -sF * F[idx]
    rhs = np.zeros(n + k)
    rhs[:n] = -GF
    x, regular = _lu_solution(M, rhs)
    if not regular:
        x = _min_norm_solution(M, rhs)
    d = x[:n]
    if not (np.all(np.isfinite(d)) and GF @ d + 0.5 * d @ QFF @ d < 0):
        return None
    aF, CF = alpha[idx], C[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = np.where(d < 0, -aF / d, np.where(d > 0, (CF - aF) / d, np.inf))
    t = min(1.0, float(lim.min(initial=np.inf)))
    if not t > 0:
        return None
    new = np.clip(aF + t * d, 0.0, CF)
    hit = (lim <= t * (1 + 1e-12)) & (t < 1.0)
    new[hit & (d < 0)] = 0.0
    new[hit & (d > 0)] = CF[hit & (d > 0)]
    step = new - aF
    alpha[idx] = new
    F -= cols @ (sF * step)
    return idx


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


class _Reconstruction:
    """libsvm's gradient reconstruction for the shrunk variables, from the last point
    at which every gradient was exact (the start, or the last reconstruction).

    Called with the shrunk variables ``idx``, it sets ``F_t`` for ``t`` in ``idx`` to
    ``F0_t - sum_k Q_tk s_k (a_k - a0_k)`` over the variables ``k`` that moved since
    that point (``F0``, ``a0``: the values then), and takes the present point as the new
    reference. The first reconstruction touches every variable that has left zero;
    the later ones only those that moved since (near the optimum, the free ones), where
    a sum from scratch would again take a column per non-zero ``a_k``. ``F`` and
    ``alpha`` are the engines' arrays, updated in place by them.
    """

    def __init__(self, F, alpha, s, getcol):
        self.F, self.alpha, self.s, self.getcol = F, alpha, s, getcol
        self._mark()

    def _mark(self):
        if not hasattr(self, "F0"):
            self.F0, self.a0 = np.empty_like(self.F), np.empty_like(self.alpha)
        self.F0[:] = self.F             # in place: the compiled loop shares these arrays
        self.a0[:] = self.alpha

    def __call__(self, idx):
        if idx.size:
            Fi = self.F0[idx]
            delta = self.alpha - self.a0
            for k in np.flatnonzero(delta):
                Fi -= self.getcol(k)[idx] * (self.s[k] * delta[k])
            self.F[idx] = Fi
        self._mark()
