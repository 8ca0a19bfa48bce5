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

import math

import numpy as np
from scipy.linalg import lapack, lstsq

from ..._jit import HAVE_NUMBA
from . import compiled as _cc

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
    group). Where ``Q_FF`` is positive definite (a positive definite kernel on distinct
    examples) the system is solved through its Cholesky factor and the Schur complement
    of ``A`` (:func:`_cholesky_kkt`: half the operations of an LU of the bordered
    matrix); when that point leaves the box and ``Q_FF``'s reciprocal condition number
    (LAPACK ``pocon``) is at least ``n eps``, the system is regular and its one solution
    is not in the box, so nothing else is tried. Otherwise (``Q_FF`` not numerically
    positive definite, or ill-conditioned and the point outside the box) the bordered
    system is solved by LU; when its reciprocal condition number is below ``n eps``
    (``Q_FF`` singular, e.g. for repeated examples) and that point leaves the box, it is
    solved again by least squares: the minimum-norm solution, from LAPACK's complete
    orthogonal factorisation ``gelsy`` (a few LU solves' cost, where the SVD-based
    ``gelsd`` costs tens). A regular system has one solution, so when it leaves the box
    nothing else is tried;
    ``res`` is updated in place only if the new point is in the box and its KKT
    violation is not larger than ``res.gap``, which must be the KKT violation
    (:func:`_kkt_gap`) at ``res``'s point, as :func:`kernelclf.margin.smo._result` sets it.
    ``getcols(idx)``, when given, returns the block ``K[:, idx]`` at once
    (:meth:`kernelclf.kernels.gram.ColumnSlots.columns`, or a view of rows of a stored
    matrix); where its columns are rows of one matrix in memory (:func:`_rows_of`), the
    block is never formed: ``Q_FF`` and the new gradient are read from those rows in
    compiled code. ``bias=False`` leaves ``res.bias`` (and ``res.rho``) as they are.
    """
    alpha = res.alpha
    idx = np.flatnonzero((alpha > 0) & (alpha < C))
    n = idx.size
    if n == 0 or n > max_free:
        return
    sF = s[idx]
    if gmask is None:
        A = np.empty((0, n))
    elif len(gmask) == 1:                       # (one group holds every variable)
        A = sF[None, :]
    else:
        A = np.array([sF * gm[idx] for gm in gmask if gm[idx].any()]).reshape(-1, n)
    k = A.shape[0]
    g = -res.gradient[idx]
    src = _rows_of(getcols, idx)
    cols = None
    if src is not None:             # Q_FF's lower triangle read in place, no K[:, F]
        D, rows = src
        Q = np.empty((n, n))
        _cc._free_lower(D, rows, idx, sF, Q)
    else:
        if getcols is not None:                 # K[:, F] at once (the cached columns)
            cols = getcols(idx)
        else:                                   # K[:, F], one column fetch each
            cols = np.empty((alpha.size, n))
            for r, i in enumerate(idx):
                cols[:, r] = getcol(i)
        Q = np.ascontiguousarray(cols[idx].T) * sF[:, None] * sF    # (row c: column c)

    CF = C[idx]

    def in_box(x):
        new = alpha[idx] + x[:n]
        return bool((np.isfinite(new) & (new >= 0) & (new <= CF)).all())

    qmax = float(np.diagonal(Q).max())          # (bounds the 1-norm, before Q is factored)
    ok, d, L = _cholesky_kkt(Q, A, g)           # (Q now holds its factor, L)
    inside = ok and in_box(d)
    if ok and not inside and _rcond_cholesky(L, n * qmax) >= _EPS * (n + k):
        return                      # the unique solution leaves the box: the wrong active set
    if not inside:                  # not positive definite, or ill-conditioned: bordered LU
        if src is not None:         # (Q_FF again, its lower triangle; the full matrix)
            _cc._free_lower(D, rows, idx, sF, Q)
        else:
            Q = np.ascontiguousarray(cols[idx].T) * sF[:, None] * sF
        Q = np.tril(Q) + np.tril(Q, -1).T
        M = np.zeros((n + k, n + k))
        M[:n, :n] = Q
        M[:n, n:] = A.T
        M[n:, :n] = A
        rhs = np.zeros(n + k)
        rhs[:n] = g
        x, lu = _lu_factor_solve(M, rhs)
        if not in_box(x):
            if _regular(M, lu):     # the unique solution leaves the box
                return
            # singular Q_FF (e.g. repeated examples): the minimum-norm solution
            x = _min_norm_solution(M, rhs)
            if not in_box(x):
                return
        d = x[:n]
    new = alpha[idx] + d
    F = -s * res.gradient
    if src is not None:
        Fn = np.empty(alpha.size)
        _cc._free_update(D, rows, sF * d, F, Fn)
    else:
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


def _rows_of(getcols, idx):
    """``(D, rows)`` when the columns ``idx`` of ``K`` are rows of one matrix in memory:
    row ``rows[r]`` of ``D`` is the column ``idx[r]`` -- a stored matrix's rows
    (``getcols.rows``), or the column store of a :class:`kernelclf.kernels.gram.ColumnSlots`
    whose ``columns`` ``getcols`` is, when every one of them is in its slots (the whole
    matrix held, or the pair loop's cache) -- a C-ordered array of double or single
    precision (the slots' ``Qfloat`` columns past the budget, each value widened exactly
    where it is read), and numba is there: :func:`_polish` then reads ``Q_FF`` and the
    new gradient from them in compiled code
    (:func:`kernelclf.margin.smo.compiled._free_lower`, ``_free_update``), the numbers
    ``getcols(idx)`` would return, without the ``m x n`` block (which, gathered from
    single-precision slots, cost 16 to 24 ms of the 0.13 s fits of the broad benchmark's
    twonorm-20 cells at m = 6400, C = 1000, 553 and 761 free variables). Else None."""
    if getcols is None or not HAVE_NUMBA:
        return None
    D = getattr(getcols, "rows", None)
    rows = idx
    if D is None:
        slots = getattr(getcols, "__self__", None)
        D = getattr(slots, "data", None)
        slot = getattr(slots, "slot", None)
        if not isinstance(slot, np.ndarray):
            return None
        rows = slot[idx]
        if rows.size and rows.min() < 0:
            return None
    if not (isinstance(D, np.ndarray) and D.dtype in (np.float64, np.float32)
            and D.ndim == 2 and D.flags.c_contiguous):
        return None
    return D, np.ascontiguousarray(rows, dtype=np.int64)


def _cholesky_kkt(Q, A, g):
    """``(ok, d, L)``: the solution ``d`` of ``Q d + A' lam = g``, ``A d = 0`` through the
    Cholesky factor ``L`` of ``Q`` (its lower triangle read; LAPACK ``potrf`` on its
    transpose, the upper triangle in Fortran order, in place when ``Q`` is C-ordered, so
    ``Q`` then holds ``L`` in that triangle) and the Schur complement of ``A``; ``ok`` False when
    ``Q`` (or the Schur complement) is not numerically positive definite, or the
    factor's pivots reveal a numerically singular ``Q``
    (:data:`kernelclf.margin.smo.compiled.PIVOT_RATIO`). The solves:
    :func:`kernelclf.margin.smo.compiled._schur_solve` (which states the method) with
    numba, else LAPACK's ``potrs`` through SciPy (the same steps; the triangular solves'
    sums in LAPACK's order)."""
    n, k = g.size, A.shape[0]
    c, info = lapack.dpotrf(Q.T, lower=0, clean=0, overwrite_a=1)
    L = c.T
    if info != 0:
        return False, np.zeros(n), L
    if HAVE_NUMBA:
        return (*_cc._schur_solve(L, A, g), L)
    piv = np.diagonal(c) ** 2
    if not piv.min() >= _cc.PIVOT_RATIO * piv.max():    # (numerically singular)
        return False, np.zeros(n), L
    U, info = lapack.dpotrs(c, np.column_stack([g, A.T]), lower=0)
    if info != 0:
        return False, np.zeros(n), L
    d = U[:, 0].copy()
    if k:
        S = A @ U[:, 1:]
        if k == 1 and not S[0, 0] > 0 or k == 2 and not (
                S[0, 0] > 0 and S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0] > 0):
            return False, d, L
        d -= U[:, 1:] @ np.linalg.solve(S, A @ U[:, 0])
    return True, d, L


def _rcond_cholesky(L, anorm):
    """The reciprocal condition number (1-norm, LAPACK ``pocon``) of ``Q = L L'`` from the
    factor that :func:`_cholesky_kkt` leaves in the lower triangle of ``L`` (C-ordered;
    read in place as the upper triangle of its transpose) and ``anorm``, the 1-norm of
    ``Q`` or a bound on it (the polish's ``n max_i Q_ii``, from ``|Q_ij| <= sqrt(Q_ii
    Q_jj)``: a smaller estimate, the safe side); 0 when LAPACK reports an error."""
    rcond, info = lapack.dpocon(L.T, float(anorm), uplo="U")
    return float(rcond) if info == 0 else 0.0


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





def _active_set(alpha, F, C, s, gmask, getcol, tol, max_rounds, release=16, max_free=1000,
                getcols=None):
    """A primal active-set method from the present point (the NumPy engine's finish of
    the pairwise SMO; Nocedal & Wright 2006, *Numerical Optimization*, §16.5, with the
    equalities of the groups as in libsvm's duals).

    The working set ``W`` starts as the free variables; the others stay at their bounds.
    Each round moves ``W`` along the minimiser of the objective on its affine set (the
    bordered system of :func:`_polish`, with ``Q_WW`` ridged by ``RIDGE`` times its
    largest diagonal entry so that it stays regular where ``Q_WW`` is singular, e.g. for
    repeated examples), shortened to stay in the box: a descent step, so the objective
    never increases and every point stays feasible. A variable that the shortened step
    takes to a bound is put on it and leaves ``W``, and so do, before any step, the
    variables at a bound that the step would take out of the box (the inverse of the
    bordered matrix is downdated, not refactored). After a full step, with the exact
    gradient, up to ``release`` bounded variables whose gradient points most into the
    box (against their group's multiplier, the mean of ``F`` over its part of ``W``; by
    more than ``EXACT`` relative to it) join ``W``. Where there is none, the point is the
    optimum to round-off: it ends there, True if the KKT violation of the whole problem
    (:func:`_kkt_gap`) is at most ``tol`` (SMO's own stopping rule). After
    ``max_rounds`` rounds it ends with True if that violation is at most ``tol`` at the
    last full step. ``alpha`` and ``F`` are updated in place and ``F`` is exact on
    return; False where a round cannot go on (a group without a variable in ``W``, a
    step that does not descend) or where ``W`` has more than ``max_free`` variables
    (the inverse costs ``|W|^3``). Between two full steps only the rows of ``W`` of the gradient are
    updated, from one block of columns (``getcols(idx)``, ``K[:, idx]`` as ``getcol`` reads
    the columns, when given: a stored matrix's; else column by column).
    """
    m = alpha.size
    inW = (alpha > 0) & (alpha < C)
    grp = np.zeros(m, dtype=np.intp)
    for g, gm in enumerate(gmask):
        grp[gm] = g
    k = len(gmask)
    rounds = 0
    full = False
    # (the rounds below count NumPy calls: Python pays per call on these small arrays)
    total = np.add.reduce
    while rounds < max_rounds:
        W0 = np.flatnonzero(inW)            # the block of this full step
        n0 = W0.size
        g0 = grp[W0]
        count = np.bincount(g0, minlength=k)     # ... per group (all: each group has one)
        if n0 == 0 or n0 > max_free or (k > 1 and not count.all()):
            return False
        s0 = s[W0]
        a0, C0 = alpha[W0], C[W0]
        if getcols is not None:
            cols = np.ascontiguousarray(getcols(W0), dtype=float)
        else:
            rows = np.empty((n0, m))        # the block's columns, gathered as rows
            for r, i in enumerate(W0):
                rows[r] = getcol(i)
            cols = np.ascontiguousarray(rows.T)
        Q0 = cols[W0] * np.outer(s0, s0)
        ridge = RIDGE * float(Q0.diagonal().max(initial=0.0))
        # -G on W0 (s F: the sign flips are exact, so G0 -= Q0 x gives the numbers of
        # F0 -= s0 (Q0 x)), kept exact
        G0 = s0 * F[W0]
        live = np.ones(n0, dtype=bool)      # the block's variables still in W
        ls = live * s0                      # s on W (0 off W)
        Minv = _bordered_inverse(Q0, s0, g0, live, k, ridge)
        v = np.zeros(n0 + k)
        vW = v[:n0]
        lim = np.empty(n0)
        fresh = refine = 0
        full = False
        while rounds < max_rounds and Minv is not None:
            rounds += 1
            np.multiply(G0, live, out=vW)   # -G_W (0 off W)
            d = Minv[:n0] @ v               # the Newton step on W (0 off W)
            # (projected on the equalities: the inverse keeps them to round-off only)
            sd = s0 * d
            if k == 1:
                d -= ls * (total(sd) / count[0])
            else:
                d -= ls * (np.bincount(g0, weights=sd, minlength=k) / count)[g0]
            dv = float(vW @ d)
            if not (math.isfinite(dv) and dv > 0):
                if fresh:                   # (round-off of the downdates: refactor once)
                    Minv, fresh = _bordered_inverse(Q0, s0, g0, live, k, ridge), 0
                    continue
                break
            lim.fill(np.inf)                # the step length to each variable's bound
            np.divide(a0, -d, out=lim, where=d < 0)
            np.divide(C0 - a0, d, out=lim, where=d > 0)
            j = int(lim.argmin())           # (no NaN here: d and a0 are finite)
            t = lim.item(j)
            if t <= 0:                      # at a bound and pushed out of the box:
                out = lim <= 0              # they leave W before any step is taken
                live &= ~out
                ls = live * s0
                count -= np.bincount(g0[out], minlength=k)
                if not count.all():
                    break
                _drop(Minv, np.flatnonzero(out))
                fresh += 1
                continue
            if t >= 1.0:                    # the minimiser on W: a full step
                new = _clip(a0 + d, 0.0, C0)
            else:                           # shortened to the first bound
                new = _clip(a0 + t * d, 0.0, C0)
                new[j] = 0.0 if d[j] < 0 else C0[j]
            G0 -= Q0 @ (new - a0)           # K[W0, W] (s_W step)
            a0 = new
            if t >= 1.0:
                # the ridge and a near-singular Q_WW leave F unequal on W by more than
                # round-off: a few more Newton steps from here (iterative refinement)
                if refine < REFINE and _spread(s0 * G0, live, g0, k) > REFINE_ABOVE * max(
                        1.0, float(np.abs(G0[live]).max())):
                    refine += 1
                    continue
                full = True
                break
            live[j] = False                 # W without j
            ls[j] = 0.0 * s0[j]             # (live * s0 there)
            count[g0[j]] -= 1
            if count[g0[j]] == 0:
                break
            fresh += 1
            if fresh >= REFRESH:
                Minv, fresh = _bordered_inverse(Q0, s0, g0, live, k, ridge), 0
            else:
                _drop(Minv, j)
        # the whole gradient from the block's change (one product per full step)
        F -= cols @ (s0 * (a0 - alpha[W0]))
        alpha[W0] = a0
        inW[W0] = live
        if not full:
            return False
        up, low = _up_low(alpha, C, s)
        gap = _kkt_gap(F, alpha, C, s, gmask, (up, low))
        if gap <= tol and rounds >= max_rounds:
            return True
        W = np.flatnonzero(inW)
        gW = grp[W]
        b = np.bincount(gW, weights=F[W], minlength=k) / np.maximum(
            np.bincount(gW, minlength=k), 1)
        bt = b[grp]
        out = ~inW
        viol = np.maximum(np.where(up & out, F - bt, 0.0), np.where(low & out, bt - F, 0.0))
        # (beyond tol: the finish goes on to the exact optimum while it has rounds left)
        cand = np.flatnonzero(viol > EXACT * max(1.0, float(np.abs(b).max())))
        if cand.size == 0:
            return bool(gap <= tol)
        if cand.size > release:
            cand = cand[np.argpartition(viol[cand], -release)[-release:]]
        inW[cand] = True
    return bool(full and _kkt_gap(F, alpha, C, s, gmask) <= tol)


# np.clip's ufunc without its Python wrapper (NumPy 2; the wrapper where it is missing)
_clip = getattr(getattr(np, "_core", None) and np._core.umath, "clip", np.clip)

#: :func:`_active_set`: the ridge of ``Q_WW`` relative to its largest diagonal entry, and
#: the downdates of the inverse between two refactorisations
RIDGE = 1e-10
REFRESH = 25
#: the KKT violation (relative to the multipliers) below which a bounded variable is
#: not brought back: the finish's own target, far below any ``tol``
EXACT = 1e-12
#: ... and the refinement steps after a full step (a ridged or near-singular system)
#: while ``F`` on the free set spreads by more than ``REFINE_ABOVE`` (relative)
REFINE = 3
REFINE_ABOVE = 1e-10


def _spread(F0, live, g0, k):
    """The largest spread ``max F - min F`` over the block's live variables of a group."""
    if k == 1:
        return float(np.ptp(F0[live]))
    return max(float(np.ptp(F0[live & (g0 == g)])) for g in range(k))   # (none empty)


def _drop(Minv, R):
    """Remove the rows and columns ``R`` (an index, or an array of them) from the matrix
    whose inverse is ``Minv``, in place: the inverse of the rest (the Schur complement
    ``P - Q S^-1 Q'`` of the inverse's blocks) where they were, zeros in their rows and
    columns."""
    if not isinstance(R, int) and len(R) == 1:
        R = int(R[0])
    if isinstance(R, int):
        Minv -= Minv[:, R, None] * (Minv[R] / Minv[R, R])
    else:
        Minv -= Minv[:, R] @ np.linalg.solve(Minv[np.ix_(R, R)], Minv[R])
    Minv[R] = 0.0
    Minv[:, R] = 0.0


def _bordered_inverse(Q0, s0, g0, live, k, ridge):
    """The inverse of the bordered matrix ``[[Q_WW + ridge I, A'], [A, 0]]`` of the block's
    variables ``live`` (``A``: one row ``s`` per group), in the block's positions (zeros
    off ``W``), or None when it is not finite."""
    n0 = live.size
    sub = np.flatnonzero(live)
    n = sub.size
    whole = n == n0                 # (every variable of the block: no gathers)
    gW = g0 if whole else g0[sub]
    sW = s0 if whole else s0[sub]
    M = np.zeros((n + k, n + k))
    M[:n, :n] = Q0 if whole else Q0[np.ix_(sub, sub)]
    diag = np.arange(n)
    M[diag, diag] += ridge
    M[diag, n + gW] = sW
    M[n + gW, diag] = sW
    try:
        inv = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(inv)):
        return None
    if whole:
        return inv
    pos = np.concatenate([sub, n0 + np.arange(k)])
    Minv = np.zeros((n0 + k, n0 + k))
    Minv[np.ix_(pos, pos)] = inv
    return Minv
