"""The compiled pairwise SMO on a compacted working set (libsvm's shrinking layout).

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5;
Fan, Chen & Lin (2005, JMLR 6, §3, WSS 2); Chang & Lin (2011, libsvm, §5.1, shrinking).

:func:`kernelclf.margin.smo_compiled._pair_loop` reads the active variables through an
index list and keeps whole kernel columns. When the kernel's columns are computed in
compiled code (:mod:`kernelclf.kernels.native_columns`: linear, polynomial and RBF
kernels on few features) and more of them are needed than the cache holds,
:func:`_pair_compact` takes the same steps on a compacted problem instead, as libsvm
does: once shrinking has set variables aside, the ``n`` active ones are copied into
contiguous arrays (``F``, ``alpha``, the bound flags, the diagonal...), and their
columns are kept compacted, ``n`` entries each, in a quarter of the cache's budget
(column ``c`` occupies ``cflat[c n : (c + 1) n]``, so more columns fit as ``n`` falls).
A missing compacted column is copied from the whole column when that is cached, else
computed: ``n`` kernel values, not ``m``. Every shrinking step moves the survivors
forward in place, in the variables and in the compacted columns. The other three
quarters keep whole columns, untouched while the problem is compacted: when the
gradient of the set-aside variables is reconstructed (in compiled code, as
:class:`kernelclf.margin.smo_kkt._Reconstruction` does it), the columns it needs are
mostly there.

The arithmetic is that of ``_pair_loop`` element by element (the same selection with
the same tie-breaking, since the active variables keep their order; the same step; the
same update; the same reconstruction) and the kernel values are the same numbers, so
both compiled loops produce the same iterates (the NumPy loop of
:func:`kernelclf.margin.smo.solve_smo` too, when it reads the same columns; its own
kernel columns can differ from the compiled ones in the last bit). The two compiled loops
share the step, the bound flags and the slot choice
(:mod:`kernelclf.margin.smo_step`, :func:`kernelclf.kernels.native_columns.take_slot`),
and with one equality the selection passes too, and without kernel signs the gradient
update (:mod:`kernelclf.margin.smo_passes`, each pass in a version for the index list and
one for contiguous arrays). For two groups (the nu-SVM) and kernel signs each loop writes
out its own passes: one version with flags for all cases made the fits about 15 % slower
(m = 500 and 2000 on two moons, C = 100; measured 2026-11-26).
"""
from __future__ import annotations

import numpy as np

from ..kernels.native_columns import column_at, fill_slot, take_slot
from .smo_passes import extremes_all, group_gap, second_all, update_all
from .smo_step import (
    DONE,
    HAVE_NUMBA,
    MAXITER,
    NEED,
    PATIENCE,
    STALLED,
    TAU,
    UNBOUNDED,
    bound_flags_c,
    pair_step_c,
)

if HAVE_NUMBA:
    from .._jit import njit as _njit

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo


def _empty_compact(cslot, cowner, cst):
    """Forget the compacted columns."""
    for c in range(cst[0]):
        if cowner[c] >= 0:
            cslot[cowner[c]] = -1
        cowner[c] = -1
    cst[0] = 0


def _full_column(g, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree):
    """The slot of the whole column of variable ``g`` in the whole-column cache, computed
    if missing (:func:`kernelclf.kernels.native_columns.fill_slot`), stamped as used;
    -1 if a value is not finite."""
    c = slot[g]
    if c < 0:
        c = fill_slot(g, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree)
        if c < 0:
            return -1
    clock[0] += 1
    stamp[c] = clock[0]
    return c


def _compact_column(g, n, act, cflat, cslot, cowner, cstamp, cst, fflat, m, slot, clock, ust,
                    kind, X, sq, offset, degree):
    """The slot of the compacted column of variable ``g`` (its ``n`` active entries),
    copied from the whole column when that is cached, else computed (``n`` kernel
    values); stamped as used; -1 if a value is not finite."""
    c = cslot[g]
    if c < 0:
        ccap = cflat.size // n
        if ccap > n:
            ccap = n
        if ccap > cstamp.size:
            ccap = cstamp.size
        used = cst[0]
        c = take_slot(cslot, cowner, cstamp, used, ccap)
        if used < ccap:
            cst[0] = used + 1
        out = cflat[c * n:(c + 1) * n]
        w = slot[g]
        if w >= 0:
            base = w * m
            for k in range(n):
                out[k] = fflat[base + act[k]]
        else:
            if not column_at(out, g, act, n, kind, X, sq, offset, degree):
                cowner[c] = -1
                return -1
            ust[2] += n
        cslot[g] = c
        cowner[c] = g
    clock[0] += 1
    cstamp[c] = clock[0]
    return c


def _shrink_compact(n, act, pos, keep, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, ng,
                    F, alpha, up, low, cflat, cslot, cowner, cstamp, cst):
    """libsvm's shrinking (the rule of :func:`kernelclf.margin.smo._shrink`) on the
    compacted problem; the survivors move forward in place. Returns the new ``n``."""
    for k in range(n):
        keep[k] = 1
    for g in range(ng):
        gmax = -np.inf
        gmin = np.inf
        for k in range(n):
            if grpl[k] != g:
                continue
            if upl[k] and Fl[k] > gmax:
                gmax = Fl[k]
            if lowl[k] and Fl[k] < gmin:
                gmin = Fl[k]
        for k in range(n):
            if grpl[k] != g:
                continue
            if (upl[k] and not lowl[k] and Fl[k] < gmin) or \
                    (lowl[k] and not upl[k] and Fl[k] > gmax):
                keep[k] = 0
    n2 = 0
    for k in range(n):
        n2 += keep[k]
    if n2 == n:
        return n
    _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low)
    # keep[k2] becomes the old place of survivor k2 (ascending: loc[k2] >= k2)
    k2 = 0
    for k in range(n):
        if keep[k]:
            keep[k2] = k
            k2 += 1
        else:
            pos[act[k]] = -1
    for k2 in range(n2):
        k = keep[k2]
        act[k2] = act[k]
        pos[act[k2]] = k2
        Fl[k2] = Fl[k]
        al[k2] = al[k]
        upl[k2] = upl[k]
        lowl[k2] = lowl[k]
        Kdl[k2] = Kdl[k]
        rl[k2] = rl[k]
        ql[k2] = ql[k]
        sl[k2] = sl[k]
        Cl[k2] = Cl[k]
        grpl[k2] = grpl[k]
    # the compacted columns of surviving variables, forward in place: column c (length
    # n) becomes column c2 <= c (length n2 <= n); every read lies at or after every write
    c2 = 0
    for c in range(cst[0]):
        g = cowner[c]
        if g < 0:
            continue
        if pos[g] < 0:
            cslot[g] = -1
            continue
        base, nbase = c * n, c2 * n2
        for k2 in range(n2):
            cflat[nbase + k2] = cflat[base + keep[k2]]
        cowner[c2] = g
        cstamp[c2] = cstamp[c]
        cslot[g] = c2
        c2 += 1
    for c in range(c2, cst[0]):
        cowner[c] = -1
    cst[0] = c2
    return n2


def _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low):
    for k in range(n):
        g = act[k]
        F[g] = Fl[k]
        alpha[g] = al[k]
        up[g] = upl[k]
        low[g] = lowl[k]


def _leave(code, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot, cowner, cst):
    _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low)
    _empty_compact(cslot, cowner, cst)
    return code


def _load(n, act, pos, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, F, alpha, up, low, Kd,
          r, q, s, C, grp):
    """Copy the active variables ``act[:n]`` into the compacted arrays."""
    for t in range(F.size):
        pos[t] = -1
    for k in range(n):
        g = act[k]
        pos[g] = k
        Fl[k] = F[g]
        al[k] = alpha[g]
        upl[k] = up[g]
        lowl[k] = low[g]
        Kdl[k] = Kd[g]
        rl[k] = r[g]
        ql[k] = q[g]
        sl[k] = s[g]
        Cl[k] = C[g]
        grpl[k] = grp[g]


def _unshrink(n, m, act, miss, F, F0, alpha, a0, s, q, r, signed, shifted, data, fflat, slot,
              owner, stamp, clock, ust, kind, X, sq, offset, degree):
    """Back to all ``m`` variables (written back already): the gradient of the shrunk
    ones reconstructed as :class:`kernelclf.margin.smo_kkt._Reconstruction` does it (the
    same operations in the same order) from whole columns, which the whole-column cache
    has kept through the compacted phase. Returns -1, or the variable whose column has
    a value that is not finite."""
    for t in range(m):
        miss[t] = 1
    for k in range(n):
        miss[act[k]] = 0
    for k in range(m):
        act[k] = k
    for t in range(m):
        if miss[t]:
            F[t] = F0[t]
    for k in range(m):
        d = alpha[k] - a0[k]
        if d == 0.0:
            continue
        c = _full_column(k, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree)
        if c < 0:
            return k
        coef = s[k] * d
        qk = q[k]
        base = c * m
        for t in range(m):
            if miss[t]:
                v = fflat[base + t]
                if signed:
                    v = v * (q[t] * qk)
                if shifted and t == k:
                    v = v + r[k]
                F[t] = F[t] - v * coef
    for t in range(m):
        F0[t] = F[t]
        a0[t] = alpha[t]
    return -1


def _col(g, n, m, act, data, fflat, slot, owner, stamp, clock, ust, cflat, cslot, cowner,
         cstamp, cst, kind, X, sq, offset, degree):
    """The slot of variable ``g``'s column: whole (``n = m``) or compacted (a cached one
    is looked up here, inlined in the loop: a call only to make one)."""
    if n == m:
        c = slot[g]
        if c < 0:
            return _full_column(g, data, slot, owner, stamp, clock, ust, kind, X, sq, offset,
                                degree)
        clock[0] += 1
        stamp[c] = clock[0]
        return c
    c = cslot[g]
    if c < 0:
        return _compact_column(g, n, act, cflat, cslot, cowner, cstamp, cst, fflat, m, slot,
                               clock, ust, kind, X, sq, offset, degree)
    clock[0] += 1
    cstamp[c] = clock[0]
    return c


def _pair_compact(data, fflat, slot, stamp, clock, owner, ust, cflat, cslot, cowner, cstamp,
                  cst, kind, X, sq, offset, degree, Kd, r, q, s, grp, ng, C, alpha, F, up, low,
                  act, pos, keep, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, miss, F0, a0,
                  st, fst, tol, max_iter, shrinking, alpha_bound):
    """Pairwise SMO on the compacted working set (twin of
    :func:`kernelclf.margin.smo_compiled._pair_loop`; same ``st``/``fst`` protocol).

    Returns ``(code, need)``; the variables are written back on every return.
    """
    m = F.size
    reset = m if m < 1000 else 1000
    signed = False
    shifted = False
    for t in range(m):
        if q[t] != 1.0:
            signed = True
        if r[t] != 0.0:
            shifted = True
    plain = ng == 1 and not signed          # (a shift is in Kd: the partner by smo_passes)
    score = np.empty(m if plain else 0)
    n = st[2]
    _load(n, act, pos, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, F, alpha, up, low, Kd, r,
          q, s, C, grp)
    want_full = False
    while st[0] < max_iter:
        if want_full:           # reconstruct the shrunk gradient, then all active
            want_full = False
            _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low)
            _empty_compact(cslot, cowner, cst)
            bad = _unshrink(n, m, act, miss, F, F0, alpha, a0, s, q, r, signed, shifted,
                            data, fflat, slot, owner, stamp, clock, ust, kind, X, sq,
                            offset, degree)
            if bad >= 0:
                return _leave(NEED, m, act, F, alpha, up, low, F, alpha, up, low, cslot,
                              cowner, cst), bad
            n = m
            st[2] = m
            st[5] = 0
            fst[1] = np.inf
            _load(n, act, pos, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, F, alpha, up,
                  low, Kd, r, q, s, C, grp)
        if st[3] == 0 and shrinking:
            st[1] -= 1
            if st[1] == 0:
                st[1] = reset
                g = group_gap(Fl, upl, lowl, grpl, ng, act, n, True)
                if st[4] == 0 and g <= 10.0 * tol:
                    st[4] = 1   # libsvm's one-time unshrink (the active gap is 10 tol)
                    if n < m:
                        st[1] = 1       # (this block runs again after the reconstruction)
                        want_full = True
                        continue
                elif n < m:         # the shrunk problem stagnates
                    if g < fst[1]:
                        fst[1] = g
                        st[5] = 0
                    else:
                        st[5] += 1
                    if st[5] >= PATIENCE:
                        st[1] = 1
                        want_full = True
                        continue
                n = _shrink_compact(n, act, pos, keep, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl,
                                    grpl, ng, F, alpha, up, low, cflat, cslot, cowner, cstamp,
                                    cst)
                st[2] = n
        st[3] = 1
        gap = -np.inf
        best = -1.0
        bi = -1
        bj = -1
        for g in range(ng):
            if ng == 1:         # (smo_passes)
                gmax, ii, gmin = extremes_all(Fl, upl, lowl, n)
            else:
                gmax = -np.inf
                ii = -1
                gmin = np.inf
                for k in range(n):  # (branch-free but for a new extreme, as _pair_loop)
                    f = Fl[k]
                    inside = grpl[k] == g
                    fu = f if upl[k] and inside else -np.inf
                    fl = f if lowl[k] and inside else np.inf
                    if fu > gmax:
                        gmax = fu
                        ii = k
                    if fl < gmin:
                        gmin = fl
            if gmax - gmin > gap:
                gap = gmax - gmin
            if gmax == -np.inf or gmax - gmin <= 0:
                continue
            i = ii
            ci = _col(act[i], n, m, act, data, fflat, slot, owner, stamp, clock, ust, cflat,
                      cslot, cowner, cstamp, cst, kind, X, sq, offset, degree)
            if ci < 0:
                fst[0] = gap
                return _leave(NEED, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot,
                              cowner, cst), act[i]
            Ki = fflat[ci * m:(ci + 1) * m] if n == m else cflat[ci * n:(ci + 1) * n]
            Kdi = Kdl[i]
            if plain:
                jb, bb = second_all(Fl, lowl, Ki, Kdl, Kdi, gmax, n, score)
            else:
                qi = ql[i]
                jb = -1
                bb = 0.0
                for k in range(n):
                    bt = gmax - Fl[k]
                    kit = Ki[k] * (ql[k] * qi) if signed else Ki[k]
                    at = kit * -2.0 + Kdl[k] + Kdi
                    at = TAU if at < TAU else at
                    ratio = (bt * bt) / at
                    ok = lowl[k] and bt > 0.0 and (ng == 1 or grpl[k] == g)
                    ratio = ratio if ok else 0.0
                    if ratio > bb:
                        bb = ratio
                        jb = k
            if not bb > 0:
                continue
            if bi < 0 or bb > best:
                best = bb
                bi = i
                bj = jb
        fst[0] = gap
        if gap <= tol or bi < 0:
            if n < m:           # the full problem is checked
                st[1] = reset
                st[3] = 0
                want_full = True
                continue
            return _leave(DONE, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot, cowner,
                          cst), -1
        i = bi
        j = bj
        ci = _col(act[i], n, m, act, data, fflat, slot, owner, stamp, clock, ust, cflat, cslot,
                  cowner, cstamp, cst, kind, X, sq, offset, degree)
        cj = -1 if ci < 0 else _col(act[j], n, m, act, data, fflat, slot, owner, stamp, clock,
                                    ust, cflat, cslot, cowner, cstamp, cst, kind, X, sq,
                                    offset, degree)
        if cj < 0:
            return _leave(NEED, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot, cowner,
                          cst), act[i] if ci < 0 else act[j]
        if n == m:
            Ki = fflat[ci * m:(ci + 1) * m]
            Kj = fflat[cj * m:(cj + 1) * m]
        else:
            Ki = cflat[ci * n:(ci + 1) * n]
            Kj = cflat[cj * n:(cj + 1) * n]
        Ci = Cl[i]
        Cj = Cl[j]
        ai = al[i]
        aj = al[j]
        Gi = -sl[i] * Fl[i]
        Gj = -sl[j] * Fl[j]
        Kij = Ki[j] * (ql[j] * ql[i])
        quad = Kdl[i] + Kdl[j] - 2.0 * Kij
        if quad < TAU:
            quad = TAU
        ai, aj = pair_step_c(ai, aj, Ci, Cj, Gi, Gj, quad, sl[i] != sl[j])
        dai = ai - al[i]
        daj = aj - al[j]
        if dai == 0.0 and daj == 0.0:   # a step below round-off (as the NumPy loop)
            if n < m:
                st[1] = reset
                st[3] = 0
                want_full = True
                continue
            return _leave(STALLED, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot,
                          cowner, cst), -1
        al[i] = ai
        al[j] = aj
        ci_ = sl[i] * dai
        cj_ = sl[j] * daj
        qi = ql[i]
        qj = ql[j]
        fi = Fl[i]
        fj = Fl[j]
        if signed:
            for k in range(n):
                Fl[k] = (Fl[k] - Ki[k] * (ql[k] * qi) * ci_) - Kj[k] * (ql[k] * qj) * cj_
        else:
            update_all(Fl, Ki, Kj, ci_, cj_, n)
        if shifted:            # the diagonal entries carry the shift r
            Fl[i] = (fi - (Ki[i] * (ql[i] * qi) + rl[i]) * ci_) - Kj[i] * (ql[i] * qj) * cj_
            Fl[j] = (fj - Ki[j] * (ql[j] * qi) * ci_) - (Kj[j] * (ql[j] * qj) + rl[j]) * cj_
        upl[i], lowl[i] = bound_flags_c(sl[i], ai, Ci)
        upl[j], lowl[j] = bound_flags_c(sl[j], aj, Cj)
        st[0] += 1
        st[3] = 0
        if ai > alpha_bound or aj > alpha_bound:
            return _leave(UNBOUNDED, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot, cowner, cst), -1
    return _leave(MAXITER, n, act, Fl, al, upl, lowl, F, alpha, up, low, cslot, cowner,
                          cst), -1


if HAVE_NUMBA:
    _empty_compact = _njit(cache=True, nogil=True)(_empty_compact)
    _full_column = _njit(cache=True, nogil=True)(_full_column)
    _compact_column = _njit(cache=True, nogil=True)(_compact_column)
    _col = _njit(cache=True, nogil=True, inline="always")(_col)
    _write_back = _njit(cache=True, nogil=True)(_write_back)
    _leave = _njit(cache=True, nogil=True)(_leave)
    _load = _njit(cache=True, nogil=True)(_load)
    _unshrink = _njit(cache=True, nogil=True)(_unshrink)
    _shrink_compact = _njit(cache=True, nogil=True)(_shrink_compact)
    _pair_compact = _njit(cache=True, nogil=True, error_model="numpy")(_pair_compact)


def run_compact(slots, spec, ust, Kd, r, q, s, grp, ng, C, alpha, F, up, low, active, st, fst,
                tol, max_iter, shrinking, alpha_bound, reconstruction):
    """One call of :func:`_pair_compact`; returns ``(code, need)``.

    The cache's budget (``slots.reserve()`` done) is split: three quarters keep whole
    columns (``slots`` itself, its capacity lowered), a quarter holds the compacted
    columns. ``reconstruction``: the :class:`kernelclf.margin.smo_kkt._Reconstruction` of
    ``F`` and ``alpha``, whose reference point the loop updates in place when it
    reconstructs.
    """
    m = F.size
    cap = getattr(slots, "_whole_capacity", None)
    if cap is None:
        cap = slots._whole_capacity = max(2, 3 * slots.capacity // 4)
        for c in range(cap, slots.used):          # columns beyond it are let go
            if slots.owner[c] >= 0:
                slots.slot[slots.owner[c]] = -1
            slots.owner[c] = -1
        slots._compact_memory = slots.data[cap:].reshape(-1)
        slots.capacity = cap
        slots.used = min(slots.used, cap)
        ust[0] = slots.used
    data = slots.data[:cap]
    buf = _buffers(m)
    cslot = np.full(m, -1, dtype=np.int64)
    cowner = np.full(m, -1, dtype=np.int64)
    cstamp = np.zeros(m, dtype=np.int64)
    cst = np.zeros(1, dtype=np.int64)
    miss = np.zeros(m, dtype=np.int64)
    return _pair_compact(data, data.reshape(-1), slots.slot, slots.stamp[:cap], slots.clock,
                         slots.owner[:cap], ust, slots._compact_memory, cslot, cowner, cstamp,
                         cst, *spec, Kd, r, q, s, grp, ng, C, alpha, F, up, low, active, *buf,
                         miss, reconstruction.F0, reconstruction.a0, st, fst, float(tol),
                         int(max_iter), bool(shrinking), float(alpha_bound))


def _buffers(m):
    """``pos, keep`` and the compacted copies ``F, alpha, up, low, Kd, r, q, s, C, grp``."""
    return (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
            np.empty(m), np.empty(m, dtype=np.bool_), np.empty(m, dtype=np.bool_),
            np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m),
            np.empty(m, dtype=np.int64))
