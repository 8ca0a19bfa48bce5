"""The compiled pairwise SMO on a compacted working set (libsvm's shrinking layout).

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5;
Fan, Chen & Lin (2005, JMLR 6, §3, WSS 2); Chang & Lin (2011, libsvm, §5.1, shrinking).

:func:`kernelclf.margin.smo_compiled._pair_loop` reads the active variables through an
index list and keeps whole kernel columns. When the kernel's columns are computed in
compiled code (:mod:`kernelclf.kernels.native_columns`: linear, polynomial and RBF
kernels on few features), :func:`_pair_compact` takes the same steps on a compacted
problem instead, as libsvm does: the ``n`` active variables are copied into contiguous
arrays (``F``, ``alpha``, the bound flags, the diagonal...), and each cached column
holds only their ``n`` entries. Every shrinking step copies the survivors forward, in
place, in the variables and in the cached columns (column ``c`` occupies
``flat[c n : (c + 1) n]`` of the cache's memory, so more columns fit as ``n`` falls),
and a missing column costs ``n`` kernel values, not ``m``. The loops then run over
contiguous memory without an index list.

The arithmetic is that of ``_pair_loop`` element by element (the same selection with
the same tie-breaking, since the active variables keep their order; the same step; the
same update) and the kernel values are the same numbers, so both loops, and the NumPy
loop of :func:`kernelclf.margin.smo.solve_smo`, produce the same iterates. On leaving
the compacted layout (to unshrink, at the end, on an error) the variables are written
back and the cache is emptied: its memory no longer holds whole columns.
"""
from __future__ import annotations

import numpy as np

from ..kernels.native_columns import column_at

try:
    from numba import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - Pyodide: solve_smo runs its NumPy loops
    HAVE_NUMBA = False

__all__ = ["run_compact"]

TAU = 1e-12
# return codes of the compiled loops (here and in smo_compiled, which imports them)
DONE, MAXITER, NEED, NEWTON, UNBOUNDED, UNSHRINK = range(6)


def _empty_cache(slot, owner, ust):
    """Forget every cached column (their layout is no longer that of whole columns)."""
    for c in range(ust[0]):
        if owner[c] >= 0:
            slot[owner[c]] = -1
        owner[c] = -1
    ust[0] = 0


def _column(g, n, act, flat, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree):
    """The cache slot of the (compacted) column of variable ``g``, computed if missing
    (``n`` kernel values), stamped as just used; -1 if a value is not finite."""
    c = slot[g]
    if c < 0:
        ccap = flat.size // n
        if ccap > stamp.size:
            ccap = stamp.size
        used = ust[0]
        if used < ccap:
            c = used
            ust[0] = used + 1
        else:
            c = 0
            low = stamp[0]
            for k in range(1, used):
                if stamp[k] < low:
                    low = stamp[k]
                    c = k
            if owner[c] >= 0:
                slot[owner[c]] = -1
        if not column_at(flat[c * n:(c + 1) * n], g, act, n, kind, X, sq, offset, degree):
            owner[c] = -1
            return -1
        slot[g] = c
        owner[c] = g
        ust[2] += n
    clock[0] += 1
    stamp[c] = clock[0]
    return c


def _shrink_compact(n, act, pos, keep, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl, grpl, ng,
                    F, alpha, up, low, flat, slot, owner, stamp, ust):
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
    # the cached columns of surviving variables, forward in place: column c (length n)
    # becomes column c2 <= c (length n2 <= n); every read lies at or after every write
    c2 = 0
    for c in range(ust[0]):
        g = owner[c]
        if g < 0:
            continue
        if pos[g] < 0:
            slot[g] = -1
            continue
        base, nbase = c * n, c2 * n2
        for k2 in range(n2):
            flat[nbase + k2] = flat[base + keep[k2]]
        owner[c2] = g
        stamp[c2] = stamp[c]
        slot[g] = c2
        c2 += 1
    for c in range(c2, ust[0]):
        owner[c] = -1
    ust[0] = c2
    return n2


def _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low):
    for k in range(n):
        g = act[k]
        F[g] = Fl[k]
        alpha[g] = al[k]
        up[g] = upl[k]
        low[g] = lowl[k]


def _leave(code, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot, owner, ust):
    _write_back(n, act, Fl, al, upl, lowl, F, alpha, up, low)
    if n < m:
        _empty_cache(slot, owner, ust)
    return code


def _pair_compact(flat, slot, stamp, clock, owner, ust, kind, X, sq, offset, degree, Kd, r,
                  q, s, grp, ng, C, alpha, F, up, low, act, pos, keep, Fl, al, upl, lowl,
                  Kdl, rl, ql, sl, Cl, grpl, st, fst, tol, max_iter, shrinking, alpha_bound):
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
    n = st[2]
    if n < m:                       # re-entered after a failed column: start afresh
        _empty_cache(slot, owner, ust)
    for t in range(m):
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
    while st[0] < max_iter:
        if st[3] == 0 and shrinking:
            st[1] -= 1
            if st[1] == 0:
                st[1] = reset
                n = _shrink_compact(n, act, pos, keep, Fl, al, upl, lowl, Kdl, rl, ql, sl, Cl,
                                    grpl, ng, F, alpha, up, low, flat, slot, owner, stamp, ust)
                st[2] = n
        st[3] = 1
        gap = -np.inf
        best = -1.0
        bi = -1
        bj = -1
        for g in range(ng):
            gmax = -np.inf
            ii = -1
            gmin = np.inf
            for k in range(n):
                if ng > 1 and grpl[k] != g:
                    continue
                if upl[k] and Fl[k] > gmax:
                    gmax = Fl[k]
                    ii = k
                if lowl[k] and Fl[k] < gmin:
                    gmin = Fl[k]
            if gmax - gmin > gap:
                gap = gmax - gmin
            if gmax == -np.inf or gmax - gmin <= 0:
                continue
            i = ii
            ci = _column(act[i], n, act, flat, slot, owner, stamp, clock, ust, kind, X, sq,
                         offset, degree)
            if ci < 0:
                fst[0] = gap
                return _leave(NEED, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot,
                              owner, ust), act[i]
            Ki = flat[ci * n:(ci + 1) * n]
            Kdi = Kdl[i]
            qi = ql[i]
            jb = -1
            bb = -np.inf
            for k in range(n):
                if not lowl[k] or (ng > 1 and grpl[k] != g):
                    bt = 0.0
                else:
                    bt = gmax - Fl[k]
                    if bt < 0.0:
                        bt = 0.0
                if not bt > 0.0:
                    if jb < 0:
                        jb = k
                        bb = 0.0
                    continue
                kit = Ki[k] * (ql[k] * qi) if signed else Ki[k]
                at = kit * -2.0 + Kdl[k] + Kdi
                if at < TAU:
                    at = TAU
                bt = bt * bt
                bt = bt / at
                if bt > bb:
                    bb = bt
                    jb = k
            if not bb > 0:
                continue
            if bi < 0 or bb > best:
                best = bb
                bi = i
                bj = jb
        fst[0] = gap
        if gap <= tol or bi < 0:
            if n < m:           # Python reconstructs the shrunk gradient, then all active
                st[1] = reset
                st[3] = 0
                return _leave(UNSHRINK, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot,
                              owner, ust), -1
            return _leave(DONE, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot, owner,
                          ust), -1
        i = bi
        j = bj
        ci = _column(act[i], n, act, flat, slot, owner, stamp, clock, ust, kind, X, sq,
                     offset, degree)
        cj = -1 if ci < 0 else _column(act[j], n, act, flat, slot, owner, stamp, clock, ust,
                                       kind, X, sq, offset, degree)
        if cj < 0:
            return _leave(NEED, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot, owner,
                          ust), act[i] if ci < 0 else act[j]
        Ki = flat[ci * n:(ci + 1) * n]
        Kj = flat[cj * n:(cj + 1) * n]
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
        if sl[i] != sl[j]:
            delta = (-Gi - Gj) / quad
            diff = ai - aj
            ai += delta
            aj += delta
            if diff > 0:
                if aj < 0:
                    aj = 0.0
                    ai = diff
            elif ai < 0:
                ai = 0.0
                aj = -diff
            if diff > Ci - Cj:
                if ai > Ci:
                    ai = Ci
                    aj = Ci - diff
            elif aj > Cj:
                aj = Cj
                ai = Cj + diff
        else:
            delta = (Gi - Gj) / quad
            total = ai + aj
            ai -= delta
            aj += delta
            if total > Ci:
                if ai > Ci:
                    ai = Ci
                    aj = total - Ci
            elif aj < 0:
                aj = 0.0
                ai = total
            if total > Cj:
                if aj > Cj:
                    aj = Cj
                    ai = total - Cj
            elif ai < 0:
                ai = 0.0
                aj = total
        dai = ai - al[i]
        daj = aj - al[j]
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
            for k in range(n):
                Fl[k] = (Fl[k] - Ki[k] * ci_) - Kj[k] * cj_
        if shifted:            # the diagonal entries carry the shift r
            Fl[i] = (fi - (Ki[i] * (ql[i] * qi) + rl[i]) * ci_) - Kj[i] * (ql[i] * qj) * cj_
            Fl[j] = (fj - Ki[j] * (ql[j] * qi) * ci_) - (Kj[j] * (ql[j] * qj) + rl[j]) * cj_
        if sl[i] > 0:
            upl[i] = ai < Ci
            lowl[i] = ai > 0
        else:
            upl[i] = ai > 0
            lowl[i] = ai < Ci
        if sl[j] > 0:
            upl[j] = aj < Cj
            lowl[j] = aj > 0
        else:
            upl[j] = aj > 0
            lowl[j] = aj < Cj
        st[0] += 1
        st[3] = 0
        if ai > alpha_bound or aj > alpha_bound:
            return _leave(UNBOUNDED, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot,
                          owner, ust), -1
    return _leave(MAXITER, n, m, act, Fl, al, upl, lowl, F, alpha, up, low, slot, owner,
                  ust), -1


if HAVE_NUMBA:
    _empty_cache = _njit(cache=True, nogil=True)(_empty_cache)
    _column = _njit(cache=True, nogil=True)(_column)
    _write_back = _njit(cache=True, nogil=True)(_write_back)
    _leave = _njit(cache=True, nogil=True)(_leave)
    _shrink_compact = _njit(cache=True, nogil=True)(_shrink_compact)
    _pair_compact = _njit(cache=True, nogil=True, error_model="numpy")(_pair_compact)


def run_compact(slots, spec, ust, Kd, r, q, s, grp, ng, C, alpha, F, up, low, active, st, fst,
                tol, max_iter, shrinking, alpha_bound):
    """One call of :func:`_pair_compact` on the slots' memory (``slots.reserve()`` done);
    returns ``(code, need)``."""
    m = F.size
    buf = _buffers(m)
    return _pair_compact(slots.data.reshape(-1), slots.slot, slots.stamp, slots.clock,
                         slots.owner, ust, *spec, Kd, r, q, s, grp, ng, C, alpha, F, up, low,
                         active, *buf, st, fst, float(tol), int(max_iter), bool(shrinking),
                         float(alpha_bound))


def _buffers(m):
    """``pos, keep`` and the compacted copies ``F, alpha, up, low, Kd, r, q, s, C, grp``."""
    return (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
            np.empty(m), np.empty(m, dtype=np.bool_), np.empty(m, dtype=np.bool_),
            np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m),
            np.empty(m, dtype=np.int64))
