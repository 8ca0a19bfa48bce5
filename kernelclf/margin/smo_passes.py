"""The three passes of a compiled SMO iteration, as small compiled functions.

Book chapter 04 (``book/04_support_vector_machines.md``); Fan, Chen & Lin (2005, JMLR 6,
§3, WSS 2); Chang & Lin (2011, libsvm, §4.1).

Each iteration of the pairwise SMO (:mod:`kernelclf.margin.smo_compiled`,
:mod:`kernelclf.margin.smo_compact`) makes three passes over the active variables:

* ``extremes`` -- the largest ``F_t`` over the "up" set (its first position: ``i``)
  and the smallest over the "low" set (their difference is the KKT gap);
* ``second`` -- WSS 2's partner ``j``: the largest ``b_t^2 / a_t`` over the low
  variables with ``b_t = F_i - F_t > 0`` and the curvature ``a_t = K_ii + K_tt - 2 K_it``
  (at least ``TAU``);
* ``update`` -- ``F -= K_i c_i + K_j c_j`` after the step.

``extremes`` serves every problem with one equality; ``second`` and
``update`` those without kernel signs and without a map to cached columns (a
diagonal shift is in ``K_tt``; the loops correct ``F_i`` and ``F_j`` for it after the
update). The loops keep their own passes for the others (two groups, signs, a map).
The ``_all`` variants run over the first ``n`` variables directly (all active,
or the compacted layout); the others over the positions ``idx[:n]``.

Written for the processor rather than for the reader: the up/low flags decide nothing
by a branch (a variable outside the set scores -inf, +inf or 0), so the only branch
left is "a new best", which is rarely taken and well predicted; the flags are close to
random from one variable to the next, and branching on them cost a misprediction every
few variables. ``second_all`` scores into a buffer first, a pass the compiler
vectorises, divisions included. They are inlined into the loops. Ties go to the first
position, as ``argmax`` does in the NumPy loop, so both engines choose the same pairs.
"""
from __future__ import annotations

import numpy as np

from .smo_step import TAU

try:
    from .._jit import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - Pyodide
    HAVE_NUMBA = False

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo


def extremes(F, up, low, idx, n):
    """``(max F over up, its first position, min F over low)`` over ``idx[:n]``."""
    gmax = -np.inf
    ii = -1
    gmin = np.inf
    for k in range(n):
        t = idx[k]
        f = F[t]
        fu = f if up[t] else -np.inf
        fl = f if low[t] else np.inf
        if fu > gmax:
            gmax = fu
            ii = k
        gmin = fl if fl < gmin else gmin
    return gmax, ii, gmin


def extremes_all(F, up, low, n):
    """:func:`extremes` over ``0..n-1``."""
    gmax = -np.inf
    ii = -1
    gmin = np.inf
    for t in range(n):
        f = F[t]
        fu = f if up[t] else -np.inf
        fl = f if low[t] else np.inf
        if fu > gmax:
            gmax = fu
            ii = t
        gmin = fl if fl < gmin else gmin
    return gmax, ii, gmin


def second(F, low, Ki, Kd, Kdi, gmax, idx, n):
    """WSS 2's second index over ``idx[:n]``: its position and score (0: none)."""
    jb = -1
    bb = 0.0
    for k in range(n):
        t = idx[k]
        bt = gmax - F[t]
        at = Ki[t] * -2.0 + Kd[t] + Kdi
        at = TAU if at < TAU else at
        ratio = (bt * bt) / at
        ratio = ratio if (low[t] and bt > 0.0) else 0.0
        if ratio > bb:
            bb = ratio
            jb = k
    return jb, bb


def second_all(F, low, Ki, Kd, Kdi, gmax, n, score):
    """:func:`second` over ``0..n-1`` (returns the variable itself). Two passes, the
    scores into ``score`` first: on contiguous arrays that pass is vectorised (divisions
    included), which pays from a few dozen variables on."""
    for t in range(n):
        bt = gmax - F[t]
        at = Ki[t] * -2.0 + Kd[t] + Kdi
        at = TAU if at < TAU else at
        ratio = (bt * bt) / at
        score[t] = ratio if (low[t] and bt > 0.0) else 0.0
    jb = -1
    bb = 0.0
    for t in range(n):
        if score[t] > bb:
            bb = score[t]
            jb = t
    return jb, bb


def group_gap(F, up, low, grp, ng, idx, n, direct):
    """The largest KKT gap ``max F(up) - min F(low)`` of the ``ng`` groups over the
    variables ``idx[:n]`` (``direct``: over ``0..n-1``); -inf when no group has both."""
    gap = -np.inf
    for g in range(ng):
        gmax = -np.inf
        gmin = np.inf
        for k in range(n):
            t = k if direct else idx[k]
            if grp[t] != g:
                continue
            if up[t] and F[t] > gmax:
                gmax = F[t]
            if low[t] and F[t] < gmin:
                gmin = F[t]
        if gmax - gmin > gap:
            gap = gmax - gmin
    return gap


def update(F, Ki, Kj, ci, cj, idx, n):
    """``F_t <- (F_t - K_it c_i) - K_jt c_j`` for ``t`` in ``idx[:n]`` (the order of the
    NumPy loop's operations)."""
    for k in range(n):
        t = idx[k]
        F[t] = (F[t] - Ki[t] * ci) - Kj[t] * cj


def update_all(F, Ki, Kj, ci, cj, n):
    """:func:`update` over ``0..n-1``."""
    for t in range(n):
        F[t] = (F[t] - Ki[t] * ci) - Kj[t] * cj


if HAVE_NUMBA:
    _o = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy", inline="always")
    extremes = _njit(**_o)(extremes)
    extremes_all = _njit(**_o)(extremes_all)
    second = _njit(**_o)(second)
    second_all = _njit(**_o)(second_all)
    update = _njit(**_o)(update)
    update_all = _njit(**_o)(update_all)
    group_gap = _njit(cache=True, nogil=True, boundscheck=False)(group_gap)
