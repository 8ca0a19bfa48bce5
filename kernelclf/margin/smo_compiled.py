"""The SMO loops of :func:`kernelclf.margin.smo.solve_smo` compiled with numba.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5;
Fan, Chen & Lin (2005, JMLR 6, §3, WSS 2); Chang & Lin (2011, libsvm, §4-5).

Two loops, each the element-by-element twin of a NumPy loop of :mod:`kernelclf.margin.smo`
(same selection, same step, same update, floating-point operations in the same order),
so that on the same kernel columns both engines take the same steps and return the same
``alpha`` (the columns computed here by :mod:`kernelclf.kernels.native_columns` can
differ from NumPy's in the last bit, and then the paths part):

* :func:`_pair_loop` -- the pairwise SMO with the second-order working-set selection,
  one or two equality groups (the C-SVM with bias; the nu-SVM with bias) and the
  shrinking of :func:`kernelclf.margin.smo._shrink`;
* :func:`_coord_loop` -- greedy single-variable Newton steps (the book's SVMs without
  bias), returning to Python every ``newton_every`` steps for the Newton step on the
  free variables.

With one equality (the C-SVM with bias, its quadratic-margin variant, the RMM) the
pairwise loop selects ``i`` with :mod:`kernelclf.margin.smo_passes`; without kernel
signs and a map to cached columns also its partner ``j`` and the gradient update. When
Python is not needed for the columns, the gradient of the shrunk variables is
reconstructed in compiled code too (:func:`kernelclf.margin.smo_compact._unshrink`).

When the kernel's columns are computed in compiled code and the cache cannot hold all
of them, ``run_pairwise`` runs the third twin instead,
:func:`kernelclf.margin.smo_compact._pair_compact` (the same steps on libsvm's
compacted layout, where a column costs only its active entries).

Both read the columns of ``K`` from a :class:`kernelclf.kernels.gram.ColumnSlots`
(column ``i`` is ``data[slot[i]]``) and return to Python only when a column is
missing (Python fills it and calls again; the interrupted iteration is redone from
its start, its earlier phases remembered in the integer state ``st``). The matrix
seen by the solver is ``Q_ij = q_i q_j K_ij + [i = j] r_i``: kernel signs ``q`` (the
nu-SVM without bias folds the labels into the kernel) and a diagonal shift ``r``
(the quadratic soft margin's ``1/C_i``, LKC eq. 2.50). Sign changes are exact in
floating point, so this gives the same numbers as the NumPy wrappers that build
the signed or shifted columns.
"""
from __future__ import annotations

import numpy as np

from ..kernels.native_columns import NONE, column_spec, fill_slot
from .smo_compact import _unshrink, run_compact
from .smo_passes import (
    extremes,
    extremes_all,
    group_gap,
    second,
    second_all,
    update,
    update_all,
)
from .smo_step import (
    DONE,
    MAXITER,
    NEED,
    NEWTON,
    PATIENCE,
    STALLED,
    TAU,
    UNBOUNDED,
    UNSHRINK,
    bound_flags_c,
    pair_step_c,
)

try:
    from .._jit import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - Pyodide: solve_smo runs its NumPy loops
    HAVE_NUMBA = False

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo



def _shrink_c(F, up, low, grp, ng, active, n_act):
    """Compiled twin of :func:`kernelclf.margin.smo._shrink` on the active variables
    ``active[:n_act]``; returns the new active size (``m``: all, ``active`` the identity)."""
    m = F.size
    marks = np.zeros(m, dtype=np.int8)
    for k in range(n_act):
        marks[active[k]] = 1
    for g in range(ng):
        gmax = -np.inf
        gmin = np.inf
        for t in range(m):
            if grp[t] != g or marks[t] == 0:
                continue
            if up[t] and F[t] > gmax:
                gmax = F[t]
            if low[t] and F[t] < gmin:
                gmin = F[t]
        for t in range(m):
            if grp[t] != g or marks[t] == 0:
                continue
            if (up[t] and not low[t] and F[t] < gmin) or \
                    (low[t] and not up[t] and F[t] > gmax):
                marks[t] = 0
    n = 0
    for t in range(m):
        if marks[t]:
            active[n] = t
            n += 1
    return n


def _resident(t, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree):
    """The slot of Gram column ``t``, computed natively when the kernel allows it, stamped
    as just used (LRU); -1 when Python must fill it (the loop then returns ``NEED``)."""
    st = slot[t]
    if st < 0 and kind != NONE:
        st = fill_slot(t, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree)
    if st >= 0:
        clock[0] += 1
        stamp[st] = clock[0]
    return st


def _pair_loop(data, slot, stamp, clock, owner, ust, kind, X, sq, offset, degree, Kd, r, q, s,
               grp, ng, C, alpha, F, up, low, active, pt, st, fst, tol, max_iter, shrinking,
               alpha_bound, newton_every):
    """Pairwise SMO (compiled twin of :func:`kernelclf.margin.smo._pairwise`).

    Variable ``t`` reads row ``pt[t]`` of the cached columns, and its own column is the
    cached column ``pt[t]`` (``pt`` the identity, or the examples of a
    :class:`kernelclf.kernels.gram.Replicated` matrix). ``st = [it, counter, n_active,
    pre_done, unshrunk, stale]``, ``fst = [gap, best_gap]`` (kept between calls). Returns
    ``(code, need)``, ``need`` a column of the cache.
    """
    m = F.size
    reset = m if m < 1000 else 1000
    mapped = False              # (loops on the identity read the columns directly)
    for t in range(m):
        if pt[t] != t:
            mapped = True
    signed = False
    shifted = False
    for t in range(m):
        if q[t] != 1.0:
            signed = True
        if r[t] != 0.0:
            shifted = True
    # one equality, no signs, no map (a shift is in Kd): the partner by smo_passes
    plain = ng == 1 and not mapped and not signed
    score = np.empty(m if plain else 0)
    while st[0] < max_iter:
        n_act = st[2]
        if st[3] == 0 and shrinking:
            st[1] -= 1
            if st[1] == 0:
                st[1] = reset
                # back to all variables? (as the NumPy loop; Python reconstructs, and
                # on the call after it the counter is at 1: this block runs again)
                g = group_gap(F, up, low, grp, ng, active, n_act, False)
                if st[4] == 0 and g <= 10.0 * tol:
                    st[4] = 1   # libsvm's one-time unshrink (the active gap is 10 tol)
                    if n_act < m:
                        st[1] = 1
                        return UNSHRINK, -1
                elif n_act < m:     # the shrunk problem stagnates
                    if g < fst[1]:
                        fst[1] = g
                        st[5] = 0
                    else:
                        st[5] += 1
                    if st[5] >= PATIENCE:
                        st[1] = 1
                        return UNSHRINK, -1
                n_act = _shrink_c(F, up, low, grp, ng, active, n_act)
                st[2] = n_act
        st[3] = 1
        gap = -np.inf
        best = -1.0
        bi = -1
        bj = -1
        for g in range(ng):
            if ng == 1:         # (smo_passes)
                if n_act == m:
                    gmax, ii, gmin = extremes_all(F, up, low, m)
                else:
                    gmax, ii, gmin = extremes(F, up, low, active, n_act)
                    ii = active[ii] if ii >= 0 else -1
            else:
                gmax = -np.inf
                ii = -1
                gmin = np.inf
                # (branch-free but for a new extreme, which is rare: the flags are
                # unpredictable branches)
                for k in range(n_act):
                    t = active[k]
                    f = F[t]
                    inside = grp[t] == g
                    fu = f if up[t] and inside else -np.inf
                    fl = f if low[t] and inside else np.inf
                    if fu > gmax:
                        gmax = fu
                        ii = t
                    if fl < gmin:
                        gmin = fl
            if gmax - gmin > gap:
                gap = gmax - gmin
            if gmax == -np.inf or gmax - gmin <= 0:
                continue
            i = ii
            si = slot[pt[i]]
            if si < 0:          # (the common case stays inline: no call per iteration)
                si = _resident(pt[i], data, slot, owner, stamp, clock, ust, kind, X, sq,
                               offset, degree)
            else:
                clock[0] += 1
                stamp[si] = clock[0]
            if si < 0:
                fst[0] = gap
                return NEED, pt[i]
            Ki = data[si]
            Kdi = Kd[i]
            if plain:
                if n_act == m:
                    jb, bb = second_all(F, low, Ki, Kd, Kdi, gmax, m, score)
                else:
                    jb, bb = second(F, low, Ki, Kd, Kdi, gmax, active, n_act)
                    jb = active[jb] if jb >= 0 else -1
            else:
                qi = q[i]
                jb = -1
                bb = 0.0
                for k in range(n_act):
                    t = active[k]
                    bt = gmax - F[t]
                    # every variable is scored; those not in the group's low set, or with
                    # b_t <= 0 (i among them, so the diagonal shift never enters), score 0
                    kt = Ki[pt[t]] if mapped else Ki[t]
                    kit = kt * (q[t] * qi) if signed else kt
                    at = kit * -2.0 + Kd[t] + Kdi
                    at = TAU if at < TAU else at
                    ratio = (bt * bt) / at
                    ok = low[t] and bt > 0.0 and (ng == 1 or grp[t] == g)
                    ratio = ratio if ok else 0.0
                    if ratio > bb:
                        bb = ratio
                        jb = t
            if not bb > 0:
                continue
            if bi < 0 or bb > best:
                best = bb
                bi = i
                bj = jb
        fst[0] = gap
        if gap <= tol or bi < 0:
            if st[2] < m:       # Python reconstructs the shrunk gradient, then all active
                st[1] = reset
                st[3] = 0
                return UNSHRINK, -1
            return DONE, -1
        i = bi
        j = bj
        si = slot[pt[i]]
        if si < 0:
            return NEED, pt[i]
        sj = slot[pt[j]]
        if sj < 0:
            sj = _resident(pt[j], data, slot, owner, stamp, clock, ust, kind, X, sq, offset,
                           degree)
        else:
            clock[0] += 1
            stamp[sj] = clock[0]
        if sj < 0:
            return NEED, pt[j]
        Ki = data[si]
        Kj = data[sj]
        Ci = C[i]
        Cj = C[j]
        ai = alpha[i]
        aj = alpha[j]
        Gi = -s[i] * F[i]
        Gj = -s[j] * F[j]
        Kij = Ki[pt[j]] * (q[j] * q[i])
        quad = Kd[i] + Kd[j] - 2.0 * Kij
        if quad < TAU:
            quad = TAU
        ai, aj = pair_step_c(ai, aj, Ci, Cj, Gi, Gj, quad, s[i] != s[j])
        dai = ai - alpha[i]
        daj = aj - alpha[j]
        if dai == 0.0 and daj == 0.0:   # a step below round-off (as the NumPy loop)
            if st[2] < m:
                st[1] = reset
                st[3] = 0
                return UNSHRINK, -1
            return STALLED, -1
        alpha[i] = ai
        alpha[j] = aj
        ci = s[i] * dai
        cj = s[j] * daj
        qi = q[i]
        qj = q[j]
        fi = F[i]
        fj = F[j]
        # F -= Q_i ci; F -= Q_j cj (one pass, the same operations element by element)
        if mapped:
            for k in range(n_act):
                t = active[k]
                u = pt[t]
                if signed:
                    F[t] = (F[t] - Ki[u] * (q[t] * qi) * ci) - Kj[u] * (q[t] * qj) * cj
                else:
                    F[t] = (F[t] - Ki[u] * ci) - Kj[u] * cj
        elif signed:
            for k in range(n_act):
                t = active[k]
                F[t] = (F[t] - Ki[t] * (q[t] * qi) * ci) - Kj[t] * (q[t] * qj) * cj
        elif n_act == m:
            update_all(F, Ki, Kj, ci, cj, m)
        else:                   # as libsvm: the gradient of the active variables only
            update(F, Ki, Kj, ci, cj, active, n_act)
        if shifted:            # the diagonal entries carry the shift r
            F[i] = (fi - (Ki[pt[i]] * (q[i] * qi) + r[i]) * ci) - Kj[pt[i]] * (q[i] * qj) * cj
            F[j] = (fj - Ki[pt[j]] * (q[j] * qi) * ci) - (Kj[pt[j]] * (q[j] * qj) + r[j]) * cj
        up[i], low[i] = bound_flags_c(s[i], ai, Ci)
        up[j], low[j] = bound_flags_c(s[j], aj, Cj)
        st[0] += 1
        st[3] = 0
        if ai > alpha_bound or aj > alpha_bound:
            return UNBOUNDED, -1
        if newton_every > 0 and st[0] % newton_every == 0:
            return NEWTON, -1
    return MAXITER, -1


def _coord_loop(data, slot, stamp, clock, owner, ust, kind, X, sq, offset, degree, Kd, Kds,
                r, q, s, C, alpha, F, st, fst, tol, max_iter, newton_every, alpha_bound):
    """Greedy coordinate descent (compiled twin of
    :func:`kernelclf.margin.smo._coordinate_descent`).

    ``st = [it, resume]`` (``resume``: the gap test of this iteration is done),
    ``fst = [gap]``. Returns ``(code, need)``; ``NEWTON`` asks Python for the Newton
    step on the free variables before this iteration's coordinate step.
    """
    m = F.size
    signed = False
    shifted = False
    for t in range(m):
        if q[t] != 1.0:
            signed = True
        if r[t] != 0.0:
            shifted = True
    while st[0] < max_iter:
        if st[1] == 0:
            gap = 0.0
            for t in range(m):
                G = -s[t] * F[t]
                if alpha[t] <= 0:
                    pg = G if G < 0.0 else 0.0
                elif alpha[t] >= C[t]:
                    pg = G if G > 0.0 else 0.0
                else:
                    pg = G
                if abs(pg) > gap:
                    gap = abs(pg)
            fst[0] = gap
            if gap <= tol:
                return DONE, -1
            st[1] = 1
            if st[0] and st[0] % newton_every == 0:
                return NEWTON, -1
        best = -np.inf
        tb = -1
        nb = 0.0
        db = 0.0
        for t in range(m):
            G = -s[t] * F[t]
            new = alpha[t] - G / Kds[t]
            if new < 0.0:
                new = 0.0
            if new > C[t]:
                new = C[t]
            d = new - alpha[t]
            gain = -G * d - 0.5 * Kds[t] * d * d
            if gain > best:
                best = gain
                tb = t
                nb = new
                db = d
        if not best > 0:
            return DONE, -2          # no decrease possible (flat direction at round-off)
        t = tb
        sl = _resident(t, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree)
        if sl < 0:
            return NEED, t
        Kt = data[sl]
        alpha[t] = nb
        c = s[t] * db
        qt = q[t]
        ft = F[t]
        if signed:
            for u in range(m):
                F[u] = F[u] - Kt[u] * (q[u] * qt) * c
        else:
            for u in range(m):
                F[u] = F[u] - Kt[u] * c
        if shifted:
            F[t] = ft - (Kt[t] * (q[t] * qt) + r[t]) * c
        st[0] += 1
        st[1] = 0
        if alpha[t] > alpha_bound:
            return UNBOUNDED, -1
    return MAXITER, -1


if HAVE_NUMBA:
    _resident = _njit(cache=True, nogil=True)(_resident)
    _shrink_c = _njit(cache=True, nogil=True)(_shrink_c)
    _pair_loop = _njit(cache=True, nogil=True, error_model="numpy")(_pair_loop)
    _coord_loop = _njit(cache=True, nogil=True)(_coord_loop)


def run_pairwise(slots, Kd, r, q, s, grp, ng, C, alpha, F, up, low, tol, max_iter,
                 shrinking, alpha_bound, reconstruct, points=None, newton_every=0,
                 newton=None):
    """Drive :func:`_pair_loop` (filling missing columns; ``reconstruct(idx)`` recomputes
    the gradient of the shrunk variables ``idx``); returns ``(code, it, gap)`` with
    ``code`` one of ``DONE``, ``MAXITER``, ``UNBOUNDED``, ``STALLED``. ``points``: the cached column of
    each variable (default: its own; a :class:`kernelclf.kernels.gram.Replicated`
    matrix's ``points``). ``newton()`` takes the Newton step due every ``newton_every``
    pair steps (not on the compacted layout, which is used without it)."""
    m = F.size
    st = np.array([0, min(m, 1000), m, 0, 0, 0], dtype=np.int64)
    fst = np.array([np.inf, np.inf])
    active = np.arange(m, dtype=np.int64)
    pt = active.copy() if points is None else np.ascontiguousarray(points, dtype=np.int64)
    spec, ust = _native(slots)
    # columns made in compiled code, more of them than the cache holds: libsvm's
    # compacted layout (smo_compact), in which a column costs only its active entries;
    # when every column fits, whole columns are kept and none is computed twice
    compact = (spec[0] != NONE and 8 <= slots.capacity < m and points is None
               and not newton_every)
    while True:
        if compact:
            code, need = run_compact(slots, spec, ust, Kd, r, q, s, grp, ng, C, alpha, F, up,
                                     low, active, st, fst, tol, max_iter, shrinking,
                                     alpha_bound, reconstruct)
        else:
            code, need = _pair_loop(slots.data, slots.slot, slots.stamp, slots.clock,
                                    slots.owner, ust, *spec, Kd, r, q, s, grp, ng, C, alpha,
                                    F, up, low, active, pt, st, fst, float(tol),
                                    int(max_iter), bool(shrinking), float(alpha_bound),
                                    int(newton_every))
        _sync(slots, ust)
        if code == NEED:
            _fill(slots, need, ust)
            if compact:         # the compiled column had a value that is not finite
                raise ValueError(f"the kernel column {need} has values that are not finite "
                                 "(kernel values overflow)")
            continue
        if code == NEWTON:
            newton()
            ust[0], ust[1] = slots.used, slots.filled
            continue
        if code == UNSHRINK or (code == MAXITER and st[2] < m):
            keep = np.ones(m, dtype=bool)
            keep[active[:st[2]]] = False
            idx = np.flatnonzero(keep)
            bad = 0
            if spec[0] != NONE and points is None:  # in compiled code, the same numbers
                data = slots.data
                bad = _unshrink(st[2], m, active, np.zeros(m, dtype=np.int64), F,
                                reconstruct.F0, alpha, reconstruct.a0, s, q, r,
                                bool(np.any(q != 1.0)), bool(np.any(r != 0.0)), data,
                                data.reshape(-1), slots.slot, slots.owner, slots.stamp,
                                slots.clock, ust, *spec)
                _sync(slots, ust)
            if bad != -1:       # (Python's columns: a value that is not finite raises)
                reconstruct(idx)
                ust[0], ust[1] = slots.used, slots.filled
            active[:] = np.arange(m)
            st[2] = m
            st[5] = 0
            fst[1] = np.inf
            if code == UNSHRINK:
                continue
        return code, int(st[0]), float(fst[0])


def _native(slots):
    """The kernel's compiled columns (:mod:`kernelclf.kernels.native_columns`) when it has
    them: ``data`` then holds the whole budget and never switches to the whole matrix."""
    spec = column_spec(slots.gram)
    if spec[0] != NONE:
        slots.reserve()
        slots.switch = None
    return spec, np.array([slots.used, slots.filled, 0], dtype=np.int64)


def _sync(slots, ust):
    """Python's view of the slots after a compiled call (``ust = [used, filled, entries]``:
    whole columns filled, and kernel entries of compacted columns)."""
    new = int(ust[1]) - slots.filled
    if new or ust[2]:
        slots.gram.n_computed += new * slots.m + int(ust[2])
        ust[2] = 0
    slots.used, slots.filled = int(ust[0]), int(ust[1])


def _fill(slots, i, ust):
    """A column the compiled code could not make: through the Gram's (checked) columns."""
    slots.fill(i)
    ust[0], ust[1] = slots.used, slots.filled


def run_coordinate(slots, Kd, Kds, r, q, s, C, alpha, F, tol, max_iter, newton_every,
                   alpha_bound, newton):
    """Drive :func:`_coord_loop`; ``newton()`` runs the Newton step on the free variables
    in place. Returns ``(code, it, gap)``."""
    st = np.zeros(2, dtype=np.int64)
    fst = np.array([np.inf])
    spec, ust = _native(slots)
    while True:
        code, need = _coord_loop(slots.data, slots.slot, slots.stamp, slots.clock, slots.owner,
                                 ust, *spec, Kd, Kds, r, q, s, C, alpha, F, st, fst,
                                 float(tol), int(max_iter), int(newton_every),
                                 float(alpha_bound))
        _sync(slots, ust)
        if code == NEED:
            _fill(slots, need, ust)
        elif code == NEWTON:
            newton()
            ust[0], ust[1] = slots.used, slots.filled
        else:
            return code, int(st[0]), float(fst[0])
