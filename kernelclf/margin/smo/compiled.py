"""The compiled engine of :func:`kernelclf.margin.smo.solve_smo` (numba).

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5; Fan, Chen &
Lin (2005, JMLR 6, §3, WSS 2); Chang & Lin (2011, libsvm, §4-5).

One pairwise loop, :func:`_pairs`, runs every problem with equalities, on libsvm's
compacted layout: the ``n`` active variables' values are copied into contiguous arrays
(the ``Layout``), so that the selection and the gradient update are passes over
contiguous memory. While every variable is active (``n = m``) the passes read whole
kernel columns; once shrinking has set variables aside they read compacted columns,
``n`` entries each (column ``c`` in ``cflat[c n : (c + 1) n]``), copied from the whole
column when that is cached, else computed on the active rows only (on many features from
the active inputs, stored in the layout's order: one BLAS product). Every shrinking step
moves the survivors forward in place, in the variables, their inputs and the compacted
columns; bringing every variable back reconstructs the gradient of the shrunk ones (the
operations of :class:`kernelclf.margin.smo.kkt._Reconstruction`) from whole columns
(with one pool of columns on many features, from blocks of kernel entries on the shrunk
rows only, one BLAS matrix product per block of moved variables: :func:`_rec_blocked`;
libsvm keeps a second gradient of the variables at the upper bound for it, ``G_bar``,
updated from a whole column at every change of bound). When the budget holds at most
half of the whole columns (``POOL_SHARE``) and the loop computes its columns itself,
whole and compacted columns share the budget as in libsvm's one cache of columns of the
active length (:func:`_compact_memory`): the whole ones fill it while every variable is
active, the first shrinking turns them into compacted ones (:func:`_pool_whole`), which
then fill it. A budget that holds more keeps most of its whole columns through the
shrunk phases (the split of :func:`_compact_memory`): there the reconstruction, which
needs the whole column of every variable that moved, finds them, where the pool has to
compute them again (in blocks, on the shrunk rows).

The loop's state is named: the iterate and the problem (``Problem``), the layout,
the two column stores (``Cache``), and two small arrays of counters and values
(``st``, ``fst``, indexed by named constants) that it keeps between calls. The
variants are generated from that one body: kernel signs (``SIGNED``) and two equality
groups (``TWO``) are global constants of a copy of :func:`_pairs` made for each case
(:func:`_variant`), which numba folds at compile time; diagonal shifts, a map to the
columns of a :class:`kernelclf.kernels.gram.Replicated` matrix and compiled kernel
columns are plain arguments (they act outside the passes).
``solve_pairs_on_blocks`` runs that loop, and the polish, on many C-SVM duals whose
matrices are rows and columns of one stored matrix, in one call (the pairwise machines of
:class:`kernelclf.multiclass.OneVsOneClassifier`).

When the budget cannot hold every whole column, both stores keep their columns in single
precision (libsvm's ``Qfloat`` in its ``svm.cpp``;
:meth:`kernelclf.kernels.gram.ColumnSlots.single`, set by
:func:`kernelclf.margin.smo.solve_smo` before the first column is read, for this loop and
for the NumPy engine alike, so that both read the same rounded numbers and stay twins):
twice as many columns in the same memory, each value computed in double precision and
rounded once; the gradient, the step and the reconstruction's sums stay in double
precision. The loop then solves the dual of the rounded matrix, as libsvm does (its
optimum within the rounding's effect of the exact one); where every column fits, nothing
changes. Past the budget, a missing column is also made whole (rather than on the active
rows only) while the store of whole columns has room (``ust[4]``; not with one pool of
columns, below): the reconstruction of the gradient, which needs the whole column of
every variable that moved, finds it there.

Columns come from a :class:`kernelclf.kernels.gram.ColumnSlots`. For the linear,
polynomial and RBF kernels on dense inputs the loop computes a missing column itself
(:mod:`kernelclf.kernels.native_columns`: on many features one BLAS matrix-vector
product); otherwise it returns to Python (code ``NEED``), which fills the whole column,
and the interrupted iteration is redone from its start. On many features, when every
column fits in the budget, the loop also returns once the compiled columns have reached
:func:`kernelclf.kernels.native_columns.switch_fraction` of them: Python then computes
the whole matrix at once (``ColumnSlots``' switch, by
:func:`kernelclf.kernels.native_columns.whole_matrix`; a matrix product costs less per
entry). The matrix seen by the solver is ``Q_ij = q_i q_j K_ij + [i = j] r_i`` (kernel
signs ``q``, a diagonal shift ``r``); sign changes are exact, so this gives the numbers
of the NumPy engine's wrapped columns. Each call returns to Python every ``every`` steps
(a Newton step, a stopping test). :func:`_coords` is the compiled coordinate descent of
the problems without equality.
"""
from __future__ import annotations

import threading
import types
from collections import namedtuple

import numpy as np

from ..._jit import HAVE_NUMBA
from ...kernels.native_columns import (
    NONE,
    ROWS,
    SPARSE,
    _formula,
    column_at_into,
    column_on_rows_into,
    column_spec,
    fill_slot,
    switch_fraction,
    take_slot,
)
from .step import (
    CALLBACK,
    DONE,
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
    from ..._jit import njit as _njit

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo

#: the iterate and the problem, one entry per variable (``pt``: the cached column of
#: each variable; ``F0``, ``a0``: the last point where every gradient was exact)
Problem = namedtuple("Problem", "F alpha up low Kd r q s C grp pt F0 a0 miss")
#: the compacted layout: ``act[k]`` the variable at position ``k``, ``pos`` its inverse,
#: the others the active variables' values (``keep`` and ``score`` are scratch)
Layout = namedtuple("Layout", "act pos Fl al upl lowl Kdl rl ql sl Cl grpl keep score")
#: whole columns (``data[slot[u]]``, least recently used slot replaced, ``ust = [used,
#: filled, entries, limit, room, pooled, blocked, single]``: compiled whole columns are
#: made while ``filled < limit``; ``room``: past the budget, a missing column is made
#: whole while there is room; ``pooled``: ``cflat`` is the memory of ``data``, see
#: :func:`_shrink`; ``blocked``: the reconstruction by :func:`_rec_blocked`; ``single``:
#: ``data`` in single precision), compacted columns, the compiled kernel (``kind``...)
#: and, for dense inputs of many features whose whole columns do not all fit, the
#: active variables' inputs in the layout's order (``xr[k] = X[act[k]]``, ``m + 4``
#: rows; else one row; scratch for :func:`_rec_blocked` during a reconstruction)
Cache = namedtuple("Cache", "data slot owner stamp clock ust cflat cslot cowner cstamp cst "
                            "kind X sq offset degree ind ptr work xr")
# the counters st and the values fst kept between calls
IT, COUNTER, N, RESUME, UNSHRUNK, STALE, LOADED, REC, FINAL = range(9)
GAP, BEST = range(2)
#: past the budget, a missing column is computed whole while the whole columns' store has
#: room (no column evicted for it): the gradient's reconstruction reads it there later
#: (not with one pool of columns, where the compacted columns use that memory)
ROOM = True
ROOM_AT, POOLED, BLOCKED, SINGLE_AT, AHEAD_AT = 4, 5, 6, 7, 8      # (the entries of ust)
#: past the budget, without one pool, on dense inputs of many features: a missing whole
#: column is computed together with those of up to this many more variables, the most
#: violating ones on either side whose columns are missing, in one BLAS matrix product
#: while the store of whole columns has room for them (:func:`_ahead`; 0: never). On the
#: broad benchmark's USPS cells (7291 examples, 256 features, 7164 of the columns held)
#: seven more halve the fit's CPU time at C = 0.01 and cut it by a fifth to a quarter at
#: C = 1 and 1000 (about twice the columns computed, each block at about the cost of one
#: matrix-vector product); three gain little, fifteen less than seven at C = 1
AHEAD = 7
#: with one pool of columns on dense inputs of many features, the reconstruction's
#: entries from matrix products over the shrunk rows (:func:`_rec_blocked`)
BLOCK_REC = True
#: the moved variables per matrix product of :func:`_rec_blocked`
REC_BLOCK = 128
# compile-time flags of _pairs, set per variant (_variant)
SIGNED = False
TWO = False


def _load(P, L, n):
    """Copy the active variables ``act[:n]`` into the layout."""
    act, pos = L.act, L.pos
    pos[:] = -1
    for k in range(n):
        pos[act[k]] = k
    for dst, src in ((L.Fl, P.F), (L.al, P.alpha), (L.Kdl, P.Kd), (L.rl, P.r),
                     (L.ql, P.q), (L.sl, P.s), (L.Cl, P.C)):
        for k in range(n):
            dst[k] = src[act[k]]
    for dst, src in ((L.upl, P.up), (L.lowl, P.low)):
        for k in range(n):
            dst[k] = src[act[k]]
    grpl, grp = L.grpl, P.grp
    for k in range(n):
        grpl[k] = grp[act[k]]


def _store(P, L, k0, n):
    """Write the layout's values at positions ``k0..n-1`` back to the full arrays."""
    act = L.act
    for dst, src in ((P.F, L.Fl), (P.alpha, L.al)):
        for k in range(k0, n):
            dst[act[k]] = src[k]
    for dst, src in ((P.up, L.upl), (P.low, L.lowl)):
        for k in range(k0, n):
            dst[act[k]] = src[k]


def _forget(Cc):
    """Empty the store of compacted columns."""
    cowner, cslot = Cc.cowner, Cc.cslot
    for c in range(Cc.cst[0]):
        if cowner[c] >= 0:
            cslot[cowner[c]] = -1
        cowner[c] = -1
    Cc.cst[0] = 0


def _whole(u, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree, ind, ptr,
           work):
    """The slot of the whole column ``u``, computed if the kernel is compiled (the
    arguments of :func:`kernelclf.kernels.native_columns.fill_slot`), stamped as used;
    -1 when Python must fill it."""
    c = slot[u]
    if c < 0 and kind != NONE and ust[1] < ust[3]:
        c = fill_slot(u, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree,
                      ind, ptr, work)
    if c >= 0:
        clock[0] += 1
        stamp[c] = clock[0]
    return c


def _whole_of(Cc, u):
    """:func:`_whole` on the cache ``Cc`` (off the loop's hot path)."""
    return _whole(u, Cc.data, Cc.slot, Cc.owner, Cc.stamp, Cc.clock, Cc.ust, Cc.kind, Cc.X,
                  Cc.sq, Cc.offset, Cc.degree, Cc.ind, Cc.ptr, Cc.work)


def _fetch(pt, act, Cc, g, n, mapped, L):
    """The compacted column of variable ``g`` (its active rows) when it is not cached:
    ``(column, -1)``, copied from the whole column (made first when all whole columns
    fit, or for a map) or computed on the active rows (from the active inputs ``Cc.xr``
    when they are stored, :func:`~kernelclf.kernels.native_columns.column_on_rows`); or
    ``(empty, u)`` when Python must fill the whole column ``u`` first."""
    data, slot, cflat, cslot, cstamp, clock = Cc.data, Cc.slot, Cc.cflat, Cc.cslot, \
        Cc.cstamp, Cc.clock
    u = pt[g]
    w = slot[u]
    if w < 0 and (Cc.kind == NONE or mapped or Cc.stamp.size >= slot.size
                  or (Cc.ust[ROOM_AT] and Cc.ust[0] < Cc.stamp.size)):
        if Cc.ust[AHEAD_AT] and not mapped:
            _ahead(Cc, L, n, u)
        w = _whole_of(Cc, u)
        if w < 0:
            return cflat[:0], u
    ccap = min(cflat.size // n, n, cstamp.size)
    used = Cc.cst[0]
    c = take_slot(cslot, Cc.cowner, cstamp, used, ccap)
    if used < ccap:
        Cc.cst[0] = used + 1
    out = cflat[c * n:(c + 1) * n]
    if w >= 0:
        col = data[w]
        if mapped:
            for k in range(n):
                out[k] = col[pt[act[k]]]
        else:
            for k in range(n):
                out[k] = col[act[k]]
    else:                       # the active rows of a compiled column: n kernel values
        if Cc.xr.shape[0] > pt.size + 3:    # (the active inputs in the layout's order)
            ok = column_on_rows_into(out, g, act, n, Cc.kind, Cc.X, Cc.xr, Cc.sq, Cc.offset,
                                     Cc.degree)
        else:
            ok = column_at_into(out, g, act, n, Cc.kind, Cc.X, Cc.sq, Cc.offset, Cc.degree,
                                Cc.ind, Cc.ptr, Cc.work)
        if not ok:
            Cc.cowner[c] = -1
            return cflat[:0], g
        Cc.ust[2] += n
    cslot[g] = c
    Cc.cowner[c] = g
    clock[0] += 1
    cstamp[c] = clock[0]
    return out, -1


def _ahead(Cc, L, n, u):
    """The whole column of variable ``u`` (missing) and those of up to ``ust[AHEAD_AT]``
    more, in one BLAS matrix product of their inputs with all inputs (dense, by example)
    and the kernel's formula (:func:`~kernelclf.kernels.native_columns._formula`, as
    :func:`~kernelclf.kernels.native_columns.fill_slot`'s columns: the same numbers to
    round-off), into free slots of the whole columns' store (nothing is evicted; nothing
    is done when there is no room for all of them). The others are the active variables
    that the selection would take next as they stand: alternately the largest ``F`` over
    the up set and the smallest over the low set, among those whose columns are missing.
    One product streams the inputs from memory once for all of them, where each column's
    matrix-vector product streams them again."""
    ust, slot, owner, stamp, clock, data = Cc.ust, Cc.slot, Cc.owner, Cc.stamp, Cc.clock, \
        Cc.data
    X = Cc.X
    cap = stamp.size
    nb = ust[AHEAD_AT] + 1
    if ust[0] + nb > cap or ust[1] + nb > ust[3]:
        return
    act, Fl, upl, lowl = L.act, L.Fl, L.upl, L.lowl
    cand = np.empty(nb, dtype=np.int64)
    cand[0] = u
    nc = 1
    for r in range(nb - 1):
        up = r % 2 == 0
        best = -np.inf
        bk = -1
        for k in range(n):
            t = act[k]
            if slot[t] >= 0 or not (upl[k] if up else lowl[k]):
                continue
            f = Fl[k] if up else -Fl[k]
            if f > best:
                dup = False
                for c in range(nc):
                    if cand[c] == t:
                        dup = True
                if not dup:
                    best = f
                    bk = t
        if bk >= 0:
            cand[nc] = bk
            nc += 1
    nf = X.shape[1]
    m = X.shape[0]
    Xb = np.empty((nc, nf))
    for c in range(nc):
        src = X[cand[c]]
        dst = Xb[c]
        for f in range(nf):
            dst[f] = src[f]
    V = np.empty((nc, m))
    np.dot(Xb, X.T, V)
    for c in range(nc):
        row = V[c]
        t = cand[c]
        if not _formula(row, t, _NO_ROWS_I, m, True, Cc.kind - ROWS, Cc.sq, Cc.offset,
                        Cc.degree):
            continue            # (not stored: its own fill finds the value and says so)
        w = ust[0]
        ust[0] = w + 1
        out = data[w]
        for k in range(m):
            out[k] = row[k]
        slot[t] = w
        owner[w] = t
        clock[0] += 1
        stamp[w] = clock[0]
        ust[1] += 1


def _group_gap(L, n, ng):
    """The largest KKT gap ``max F(up) - min F(low)`` of the groups in the layout."""
    Fl, upl, lowl, grpl = L.Fl, L.upl, L.lowl, L.grpl
    gap = -np.inf
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
        gap = max(gap, gmax - gmin)
    return gap


def _shrink(P, L, Cc, n, ng):
    """libsvm's shrinking (the rule of :func:`kernelclf.margin.smo.loops._shrink`) in the
    layout: the survivors, their stored inputs (``Cc.xr``, gathered from ``X`` on the
    first shrinking from the whole problem) and their compacted columns move forward in
    place; with one pool of columns the whole ones become compacted ones
    (:func:`_pool_whole`). Returns the new ``n``."""
    act, pos, keep, Fl, upl, lowl, grpl = L.act, L.pos, L.keep, L.Fl, L.upl, L.lowl, L.grpl
    F, alpha, up, low, al = P.F, P.alpha, P.up, P.low, L.al
    for k in range(n):
        keep[k] = 1
    for g in range(ng):
        gmax = -np.inf
        gmin = np.inf
        for k in range(n):
            if grpl[k] == g:
                if upl[k] and Fl[k] > gmax:
                    gmax = Fl[k]
                if lowl[k] and Fl[k] < gmin:
                    gmin = Fl[k]
        for k in range(n):
            if grpl[k] == g and ((upl[k] and not lowl[k] and Fl[k] < gmin)
                                 or (lowl[k] and not upl[k] and Fl[k] > gmax)):
                keep[k] = 0
    n2 = 0
    for k in range(n):
        if keep[k]:
            keep[n2] = k        # (keep[k2] becomes the old place of survivor k2 <= k)
            n2 += 1
        else:                   # set aside: its values back to the full arrays
            t = act[k]
            F[t] = Fl[k]
            alpha[t] = al[k]
            up[t] = upl[k]
            low[t] = lowl[k]
            pos[t] = -1
    if n2 == n:
        return n
    for arr in (Fl, al, L.Kdl, L.rl, L.ql, L.sl, L.Cl):
        for k2 in range(n2):
            arr[k2] = arr[keep[k2]]
    for arr in (upl, lowl):
        for k2 in range(n2):
            arr[k2] = arr[keep[k2]]
    for k2 in range(n2):
        act[k2] = act[keep[k2]]
        grpl[k2] = grpl[keep[k2]]
        pos[act[k2]] = k2
    xr = Cc.xr
    if xr.shape[0] > F.size + 3:    # the active inputs follow (gathered from X at first)
        X = Cc.X
        whole = n == F.size
        for k2 in range(n2):
            if whole or keep[k2] != k2:
                src = X[act[k2]] if whole else xr[keep[k2]]
                dst = xr[k2]
                for f in range(dst.size):
                    dst[f] = src[f]
    # compacted column c (length n) becomes column c2 <= c (length n2 <= n): every read
    # lies at or after every write
    cflat, cslot, cowner, cstamp, cst = Cc.cflat, Cc.cslot, Cc.cowner, Cc.cstamp, Cc.cst
    c2 = 0
    for c in range(cst[0]):
        g = cowner[c]
        if g < 0:
            continue
        if pos[g] < 0:
            cslot[g] = -1
            continue
        for k2 in range(n2):
            cflat[c2 * n2 + k2] = cflat[c * n + keep[k2]]
        cowner[c2] = g
        cstamp[c2] = cstamp[c]
        cslot[g] = c2
        c2 += 1
    for c in range(c2, cst[0]):
        cowner[c] = -1
    cst[0] = c2
    if Cc.ust[POOLED] and n == F.size:
        _pool_whole(Cc, pos, act, n, n2)
    return n2


def _pool_whole(Cc, pos, act, m, n2):
    """The first shrinking from the whole problem with one pool of columns
    (``ust[POOLED]``: ``cflat`` is the memory of ``data``): each whole column of a
    variable still active becomes its compacted column (its active rows, in place: slot
    ``w`` becomes compacted column ``c <= w``, of length ``n2 < m``, so that every read
    lies at or after every write), the others are let go; no whole column is kept."""
    cflat, cslot, cowner, cstamp, cst = Cc.cflat, Cc.cslot, Cc.cowner, Cc.cstamp, Cc.cst
    slot, owner, stamp, ust = Cc.slot, Cc.owner, Cc.stamp, Cc.ust
    ccap = min(cflat.size // n2, n2, cstamp.size) if n2 > 0 else 0
    c2 = cst[0]
    for w in range(ust[0]):
        u = owner[w]
        if u < 0:
            continue
        slot[u] = -1
        owner[w] = -1
        if pos[u] < 0 or c2 >= ccap:
            continue
        base = w * m
        out = c2 * n2
        for k2 in range(n2):
            cflat[out + k2] = cflat[base + act[k2]]
        cslot[u] = c2
        cowner[c2] = u
        cstamp[c2] = stamp[w]
        c2 += 1
    cst[0] = c2
    ust[0] = 0


def _start_rec(P, L, Cc, st, n):
    """Bring every variable back: write the layout back, and start the reconstruction of
    the shrunk variables' gradient (continued by :func:`_continue_rec`; the shrunk
    variables marked in ``P.miss``)."""
    m = P.F.size
    act, miss, F, F0 = L.act, P.miss, P.F, P.F0
    _store(P, L, 0, n)
    _forget(Cc)
    for t in range(m):
        miss[t] = True
    for k in range(n):
        miss[act[k]] = False
    for t in range(m):
        act[t] = t
        if miss[t]:
            F[t] = F0[t]
    st[N] = m
    st[REC] = 0
    st[LOADED] = 0


def _continue_rec(P, L, Cc, st, shifted, mapped):
    """``F_t = F0_t - sum_k Q_tk s_k (a_k - a0_k)`` for the shrunk ``t``, over the ``k``
    that moved since the last exact point (the operations, and their order, of
    :class:`kernelclf.margin.smo.kkt._Reconstruction`). Returns -1 when done (that point
    is then the new reference), or the whole column Python must fill first."""
    m = P.F.size
    F, F0, alpha, a0, s, q, r, pt = P.F, P.F0, P.alpha, P.a0, P.s, P.q, P.r, P.pt
    data, slot, owner, stamp, clock, ust = Cc.data, Cc.slot, Cc.owner, Cc.stamp, Cc.clock, \
        Cc.ust
    kind, X, sq, offset, degree = Cc.kind, Cc.X, Cc.sq, Cc.offset, Cc.degree
    ind, ptr, work = Cc.ind, Cc.ptr, Cc.work
    miss = P.miss
    if st[REC] == 0 and ust[BLOCKED] and not mapped:
        k0 = _rec_blocked(P, Cc, shifted)
        if k0 < 0:
            for t in range(m):
                F0[t] = F[t]
                a0[t] = alpha[t]
            st[REC] = -1
            return -1
        st[REC] = k0            # (a value that is not finite: the columns' checked path,
        ust[BLOCKED] = 0        # which raises the package's error)
    for k in range(st[REC], m):
        d = alpha[k] - a0[k]
        if d == 0.0:
            continue
        w = _whole(pt[k], data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree,
                   ind, ptr, work)
        if w < 0:
            st[REC] = k
            return pt[k]
        col = data[w]
        coef = s[k] * d
        qk = q[k]
        for t in range(m):      # (over all m with a mask: a pass the compiler vectorises)
            if miss[t]:
                v = col[pt[t]] if mapped else col[t]
                if SIGNED:
                    v = v * (q[t] * qk)
                if shifted and t == k:
                    v = v + r[k]
                F[t] = F[t] - v * coef
    for t in range(m):
        F0[t] = F[t]
        a0[t] = alpha[t]
    st[REC] = -1
    return -1


def _rec_blocked(P, Cc, shifted):
    """:func:`_continue_rec` from its start with one pool of columns (``ust[BLOCKED]``;
    dense inputs of many features, no whole column cached at a reconstruction): the
    entries ``Q_tk`` of the shrunk ``t`` and the ``k`` that moved come from blocks of up
    to :data:`REC_BLOCK` moved variables, each one BLAS matrix product of their inputs
    with the shrunk variables' inputs (gathered into ``Cc.xr``, free until the next
    shrinking) and the kernel's formula on it (:func:`~kernelclf.kernels.native_columns._formula`,
    as the compiled columns), rounded to the columns' precision; the subtractions are
    :func:`_continue_rec`'s, in its order. The product computes only the shrunk rows
    (the whole columns of the moved variables would cost a matrix-vector product each over
    every row, which streams the inputs from memory once per column). The entries equal
    the columns' to round-off (the product sums in another order). Returns -1 when
    done, else the first moved variable whose block has a value that is not finite
    (``F`` then holds the subtractions of the variables before it)."""
    m = P.F.size
    F, alpha, a0, s, q, r, miss = P.F, P.alpha, P.a0, P.s, P.q, P.r, P.miss
    X, xr, sq, kind = Cc.X, Cc.xr, Cc.sq, Cc.kind
    single = Cc.ust[SINGLE_AT] != 0
    nr = 0
    for t in range(m):
        if miss[t]:
            nr += 1
    idx = np.empty(nr, dtype=np.int64)
    at = np.full(m, -1, dtype=np.int64)
    nr = 0
    for t in range(m):
        if miss[t]:
            idx[nr] = t
            at[t] = nr
            nr += 1
    nf = X.shape[1]
    for a in range(nr):             # the shrunk variables' inputs, contiguous
        src = X[idx[a]]
        dst = xr[a]
        for f in range(nf):
            dst[f] = src[f]
    Fr = np.empty(nr)
    qr = np.empty(nr)
    for a in range(nr):
        Fr[a] = F[idx[a]]
        qr[a] = q[idx[a]]
    B = REC_BLOCK
    ks = np.empty(B, dtype=np.int64)
    Xk = np.empty((B, nf))
    V = np.empty((B, nr))
    Xin = xr[:nr]
    bad = -1
    k = 0
    while k < m and bad < 0:
        nb = 0
        while k < m and nb < B:
            if alpha[k] - a0[k] != 0.0:
                ks[nb] = k
                nb += 1
            k += 1
        if nb == 0:
            break
        for j in range(nb):
            src = X[ks[j]]
            dst = Xk[j]
            for f in range(nf):
                dst[f] = src[f]
        np.dot(Xk[:nb], Xin.T, V[:nb])
        Cc.ust[2] += nb * nr
        for j in range(nb):
            u = ks[j]
            row = V[j]
            if not _formula(row, u, idx, nr, False, kind - ROWS, sq, Cc.offset, Cc.degree):
                bad = u
                break
            if single:
                for a in range(nr):
                    row[a] = np.float32(row[a])
            coef = s[u] * (alpha[u] - a0[u])
            qu = q[u]
            au = at[u]
            keep = Fr[au] if au >= 0 else 0.0
            for a in range(nr):
                v = row[a]
                if SIGNED:
                    v = v * (qr[a] * qu)
                Fr[a] = Fr[a] - v * coef
            if shifted and au >= 0:     # (the diagonal entry carries the shift r)
                v = row[au]
                if SIGNED:
                    v = v * (qu * qu)
                Fr[au] = keep - (v + r[u]) * coef
    for a in range(nr):
        F[idx[a]] = Fr[a]
    return bad


def _extremes(Fl, upl, lowl, grpl, n, g):
    """``(max F over up, its first position, min F over low)`` in group ``g``: the plain
    scan (:func:`_extremes_vec` gives its numbers in vectorised passes, and asks it where
    it cannot)."""
    gmax = -np.inf
    ii = -1
    gmin = np.inf
    for k in range(n):
        f = Fl[k]
        inside = grpl[k] == g if TWO else True
        # (no branch on the flags but for a new extreme: the flags are unpredictable)
        fu = f if (upl[k] and inside) else -np.inf
        fl = f if (lowl[k] and inside) else np.inf
        if fu > gmax:
            gmax = fu
            ii = k
        gmin = fl if fl < gmin else gmin
    return gmax, ii, gmin


#: :func:`_extremes_vec`: the bits of a double read as an int64 and mapped to ``b ^ ((b >> 63)
#: & _MAGNITUDE)`` are ordered as the numbers are (negative ones by their magnitude,
#: reversed; NaN beyond the infinities), and ``_NO_KEY_*`` lie beyond every key
_MAGNITUDE = np.int64(0x7FFFFFFFFFFFFFFF)
_NO_KEY_LOW = np.iinfo(np.int64).min
_NO_KEY_HIGH = np.iinfo(np.int64).max
#: the block of positions :func:`_extremes_vec` and :func:`_second_vec` test at once for the first
#: position of their extreme
_BLOCK = 16
#: ... and the fewest active variables for which the pair loop calls them (below it the
#: plain scans, which cost less there: the two equal at about 128 variables, one core,
#: measured; both give the same numbers). The choice is made in the loop itself: behind a
#: function that chooses, inlined, the loop around the scans took 90 ns more per step at
#: 50 to 200 variables (tabular-50, linear, C = 1, m = 200: 1.45 times main's fit)
_VECTOR_MIN = 256


def _extremes_vec(Fl, bits, upl, lowl, grpl, n, g):
    """``(max F over up, its first position, min F over low)`` in group ``g``, the numbers
    of :func:`_extremes` bit for bit, in passes the compiler vectorises: the two
    extremes as integer maximum and minimum of the values' order-preserving keys
    (``_MAGNITUDE``; floating-point maxima vectorise only under fast-math), then the first
    position of the maximum, tested ``_BLOCK`` positions at a time; the maximum returned is
    ``F`` there (the scan's, whose comparison ``>`` takes the first of equal values). Where
    a signed zero could tell the two apart (an extreme equal to 0: the keys order -0 below
    +0, the scan keeps the first) or a value is not a number (the keys order NaN beyond
    the infinities, the scan skips it), the scan decides. On twonorm-20 (m = 2000) a
    quarter of the scan's time, which was a third of the pair loop's. ``bits``: ``Fl``
    viewed as int64 (made once per call of the loop: a view made here would cost
    reference counts at every step)."""
    kmax = _NO_KEY_LOW
    kmin = _NO_KEY_HIGH
    for k in range(n):
        b = bits[k]
        key = b ^ ((b >> 63) & _MAGNITUDE)
        inside = grpl[k] == g if TWO else True
        ku = key if (upl[k] and inside) else _NO_KEY_LOW
        kl = key if (lowl[k] and inside) else _NO_KEY_HIGH
        kmax = ku if ku > kmax else kmax
        kmin = kl if kl < kmin else kmin
    gmin = np.inf
    if kmin != _NO_KEY_HIGH:
        kmin = kmin ^ ((kmin >> 63) & _MAGNITUDE)
        gmin = _as_double(kmin)
    if kmax == _NO_KEY_LOW:
        if gmin != gmin or gmin == 0.0:
            return _extremes(Fl, upl, lowl, grpl, n, g)
        return -np.inf, -1, gmin
    kmax = kmax ^ ((kmax >> 63) & _MAGNITUDE)
    gmax = _as_double(kmax)
    ii = -1
    if gmax == -np.inf and gmin == gmin and gmin != 0.0:
        return -np.inf, -1, gmin        # (the scan takes no position for -inf)
    if gmax == gmax and gmax != 0.0 and gmin == gmin and gmin != 0.0:
        k0 = 0
        while k0 < n and ii < 0:
            k1 = min(k0 + _BLOCK, n)
            hit = False
            for k in range(k0, k1):
                inside = grpl[k] == g if TWO else True
                hit = hit | (upl[k] and inside and Fl[k] == gmax)
            if hit:
                for k in range(k0, k1):
                    inside = grpl[k] == g if TWO else True
                    if upl[k] and inside and Fl[k] == gmax:
                        ii = k
                        break
            k0 = k1
    if ii < 0:
        return _extremes(Fl, upl, lowl, grpl, n, g)
    return Fl[ii], ii, gmin


def _as_double(key):
    """The double whose bits are the int64 ``key`` (a scalar's view: no memory taken)."""
    return np.int64(key).view(np.float64)


def _second(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdi, qi, gmax, g, n):
    """WSS 2's partner of ``i``: the first position with the largest ``b_t^2 / a_t`` over
    the low variables of group ``g`` with ``b_t = gmax - F_t > 0`` (0: none); the scores
    (:func:`_scores`), then a plain scan (:func:`_second_vec` gives its numbers in
    vectorised passes)."""
    _scores(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdi, qi, gmax, g, n)
    jb = -1
    bb = 0.0
    for k in range(n):
        if score[k] > bb:
            bb = score[k]
            jb = k
    return jb, bb


def _scores(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdi, qi, gmax, g, n):
    """WSS 2's score ``b_t^2 / a_t`` of every position (0 off the low variables of group
    ``g`` with ``b_t = gmax - F_t > 0``) into ``score``, a pass the compiler vectorises."""
    for k in range(n):
        bt = gmax - Fl[k]
        kit = Ki[k] * (ql[k] * qi) if SIGNED else Ki[k]
        at = kit * -2.0 + Kdl[k] + Kdi
        at = TAU if at < TAU else at
        ratio = (bt * bt) / at
        ok = lowl[k] and bt > 0.0 and (grpl[k] == g if TWO else True)
        score[k] = ratio if ok else 0.0


def _second_vec(Fl, lowl, grpl, ql, Kdl, score, bits, Ki, Kdi, qi, gmax, g, n):
    """WSS 2's partner of ``i``: the first position with the largest ``b_t^2 / a_t`` over
    the low variables of group ``g`` with ``b_t = gmax - F_t > 0`` (0: none). The scores
    go into a buffer first (:func:`_scores`); their maximum is an integer maximum of their
    bits (the scores are ``+0`` or positive, whose bits are ordered as the numbers are),
    its first position found ``_BLOCK`` at a time (the numbers of :func:`_second` bit
    for bit; a score that is not a number, whose bits lie beyond the infinity's, goes
    back to the scan). ``bits``: ``score`` viewed as int64 (as :func:`_extremes_vec`'
    ``bits``)."""
    _scores(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdi, qi, gmax, g, n)
    kb = np.int64(0)
    for k in range(n):
        b = bits[k]
        kb = b if b > kb else kb
    if kb == 0:
        return -1, 0.0
    bb = _as_double(kb)
    if bb != bb:
        return _second(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdi, qi, gmax, g, n)
    k0 = 0
    while k0 < n:
        k1 = min(k0 + _BLOCK, n)
        hit = False
        for k in range(k0, k1):
            hit = hit | (bits[k] == kb)
        if hit:
            for k in range(k0, k1):
                if bits[k] == kb:
                    return k, bb
        k0 = k1
    return -1, 0.0


def _update(Fl, ql, Ki, Kj, qi, qj, ci, cj, n):
    """``F_k <- (F_k - Q_ik c_i) - Q_jk c_j`` (the order of the NumPy engine)."""
    for k in range(n):
        if SIGNED:
            Fl[k] = (Fl[k] - Ki[k] * (ql[k] * qi) * ci) - Kj[k] * (ql[k] * qj) * cj
        else:
            Fl[k] = (Fl[k] - Ki[k] * ci) - Kj[k] * cj


def _pairs(P, L, Cc, st, fst, tol, max_iter, shrinking, alpha_bound, every, shifted,
           mapped):
    """Pairwise SMO (the rules and the arithmetic of :func:`kernelclf.margin.smo.loops.pairwise`)
    on the compacted layout. Returns ``(code, need)``: ``NEED`` asks Python for the whole
    column ``need``; ``CALLBACK`` comes every ``every`` steps; the full arrays are
    current on every other return."""
    m = P.F.size
    reset = m if m < 1000 else 1000
    ng = 2 if TWO else 1
    # the named state unpacked once per call: every use of a tuple's array costs a pair
    # of atomic reference counts, which in the loop cost more than the passes
    act, Fl, al, upl, lowl, Kdl, rl = L.act, L.Fl, L.al, L.upl, L.lowl, L.Kdl, L.rl
    ql, sl, Cl, grpl, score = L.ql, L.sl, L.Cl, L.grpl, L.score
    slot, data, stamp, clock, owner, ust = Cc.slot, Cc.data, Cc.stamp, Cc.clock, Cc.owner, \
        Cc.ust
    kind, X, sq, offset, degree = Cc.kind, Cc.X, Cc.sq, Cc.offset, Cc.degree
    ind, ptr, work = Cc.ind, Cc.ptr, Cc.work
    cslot, cflat, cstamp, pt = Cc.cslot, Cc.cflat, Cc.cstamp, P.pt
    Fbits = Fl.view(np.int64)           # (the selection's integer keys, _extremes_vec)
    sbits = score.view(np.int64)
    while True:
        if st[REC] >= 0:
            need = _continue_rec(P, L, Cc, st, shifted, mapped)
            if need >= 0:
                return NEED, need
            if st[FINAL]:
                return MAXITER, -1
        if st[LOADED] == 0:
            _load(P, L, st[N])
            st[LOADED] = 1
        n = st[N]
        if st[IT] >= max_iter:
            if n < m:           # the gradient is made exact before the stop
                st[FINAL] = 1
                _start_rec(P, L, Cc, st, n)
                continue
            _store(P, L, 0, n)
            st[LOADED] = 0
            return MAXITER, -1
        if st[RESUME] == 0 and shrinking:
            st[COUNTER] -= 1
            if st[COUNTER] == 0:
                st[COUNTER] = reset
                gap = _group_gap(L, n, ng)
                back = False
                if st[UNSHRUNK] == 0 and gap <= 10.0 * tol:
                    st[UNSHRUNK] = 1    # libsvm's one-time unshrink at 10 tol
                    back = n < m
                elif n < m:             # the shrunk problem stagnates?
                    if gap < fst[BEST]:
                        fst[BEST] = gap
                        st[STALE] = 0
                    else:
                        st[STALE] += 1
                    back = st[STALE] >= PATIENCE
                if back:
                    st[COUNTER] = 1     # (this block again after the reconstruction)
                    st[STALE] = 0
                    fst[BEST] = np.inf
                    _start_rec(P, L, Cc, st, n)
                    continue
                n = _shrink(P, L, Cc, n, ng)
                st[N] = n
        st[RESUME] = 1
        direct = n == m and not mapped
        gap = -np.inf
        best = -1.0
        bi = -1
        bj = -1
        Kb = cflat[:0]
        for g in range(ng):
            if n >= _VECTOR_MIN:
                gmax, ii, gmin = _extremes_vec(Fl, Fbits, upl, lowl, grpl, n, g)
            else:
                gmax, ii, gmin = _extremes(Fl, upl, lowl, grpl, n, g)
            if gmax - gmin > gap:
                gap = gmax - gmin
            if gmax == -np.inf or gmax - gmin <= 0:
                continue
            u = act[ii]
            c = slot[u] if direct else cslot[u]
            if c >= 0:          # (a cached column: stamped as used)
                clock[0] += 1
                if direct:
                    stamp[c] = clock[0]
                    Ki = data[c]
                else:
                    cstamp[c] = clock[0]
                    Ki = cflat[c * n:(c + 1) * n]
            elif direct:        # (a whole column, made here: a call with the cache's
                if ust[AHEAD_AT]:   # arrays costs less than one with the cache)
                    _ahead(Cc, L, n, u)
                c = _whole(u, data, slot, owner, stamp, clock, ust, kind, X, sq, offset,
                           degree, ind, ptr, work)
                if c < 0:
                    return NEED, u
                Ki = data[c]
            else:
                Ki, need = _fetch(pt, act, Cc, u, n, mapped, L)
                if need >= 0:
                    return NEED, need
            if n >= _VECTOR_MIN:
                jb, bb = _second_vec(Fl, lowl, grpl, ql, Kdl, score, sbits, Ki, Kdl[ii],
                                     ql[ii], gmax, g, n)
            else:
                jb, bb = _second(Fl, lowl, grpl, ql, Kdl, score, Ki, Kdl[ii], ql[ii], gmax, g,
                                 n)
            if not bb > 0:
                continue
            if bi < 0 or bb > best:
                best = bb
                bi = ii
                bj = jb
                Kb = Ki
        fst[GAP] = gap
        if gap <= tol or bi < 0:
            if n < m:           # the full problem is checked (its gradient rebuilt); as
                st[COUNTER] = 2  # libsvm, one step on it, then shrinking again
                st[RESUME] = 0
                st[STALE] = 0
                fst[BEST] = np.inf
                _start_rec(P, L, Cc, st, n)
                continue
            _store(P, L, 0, n)
            st[LOADED] = 0
            return DONE, -1
        i = bi
        j = bj
        # the column of j (with two groups, that of i again: the other group's may have
        # taken its slot); the column of i is still the one the selection read
        Ki = Kb
        Kj = Kb
        for t in range(ng):
            u = act[j] if t == 0 else act[i]
            c = slot[u] if direct else cslot[u]
            if c >= 0:
                clock[0] += 1
                if direct:
                    stamp[c] = clock[0]
                    col = data[c]
                else:
                    cstamp[c] = clock[0]
                    col = cflat[c * n:(c + 1) * n]
            elif direct:
                if ust[AHEAD_AT]:
                    _ahead(Cc, L, n, u)
                c = _whole(u, data, slot, owner, stamp, clock, ust, kind, X, sq, offset,
                           degree, ind, ptr, work)
                if c < 0:
                    return NEED, u
                col = data[c]
            else:
                col, need = _fetch(pt, act, Cc, u, n, mapped, L)
                if need >= 0:
                    return NEED, need
            if t == 0:
                Kj = col
            else:
                Ki = col
        qi = ql[i]
        qj = ql[j]
        ai, aj = pair_step_c(al[i], al[j], Cl[i], Cl[j], -sl[i] * Fl[i], -sl[j] * Fl[j],
                             max(Kdl[i] + Kdl[j] - 2.0 * (Ki[j] * (qj * qi)), TAU),
                             sl[i] != sl[j])
        dai = ai - al[i]
        daj = aj - al[j]
        if dai == 0.0 and daj == 0.0:   # a step below round-off (as the NumPy engine)
            if n < m:
                st[COUNTER] = reset
                st[RESUME] = 0
                st[STALE] = 0
                fst[BEST] = np.inf
                _start_rec(P, L, Cc, st, n)
                continue
            _store(P, L, 0, n)
            st[LOADED] = 0
            return STALLED, -1
        al[i] = ai
        al[j] = aj
        ci = sl[i] * dai
        cj = sl[j] * daj
        fi = Fl[i]
        fj = Fl[j]
        _update(Fl, ql, Ki, Kj, qi, qj, ci, cj, n)
        if shifted:            # the diagonal entries carry the shift r
            Fl[i] = (fi - (Ki[i] * (qi * qi) + rl[i]) * ci) - Kj[i] * (qi * qj) * cj
            Fl[j] = (fj - Ki[j] * (qj * qi) * ci) - (Kj[j] * (qj * qj) + rl[j]) * cj
        upl[i], lowl[i] = bound_flags_c(sl[i], ai, Cl[i])
        upl[j], lowl[j] = bound_flags_c(sl[j], aj, Cl[j])
        st[IT] += 1
        st[RESUME] = 0
        if ai > alpha_bound or aj > alpha_bound:
            _store(P, L, 0, n)
            st[LOADED] = 0
            return UNBOUNDED, -1
        if every > 0 and st[IT] % every == 0:
            _store(P, L, 0, n)
            st[LOADED] = 0
            return CALLBACK, -1


def _coords(P, Cc, Kds, st, fst, tol, max_iter, every, alpha_bound, signed, shifted):
    """Greedy coordinate descent (the rules and the arithmetic of
    :func:`kernelclf.margin.smo.loops.coordinate`) on whole columns. ``st[RESUME]``: the
    gap test of this iteration is done. ``CALLBACK`` asks for the Newton step on the free
    variables before this iteration's coordinate step."""
    F, alpha, s, C, q = P.F, P.alpha, P.s, P.C, P.q
    data, slot, owner, stamp, clock, ust = Cc.data, Cc.slot, Cc.owner, Cc.stamp, Cc.clock, \
        Cc.ust
    kind, X, sq, offset, degree = Cc.kind, Cc.X, Cc.sq, Cc.offset, Cc.degree
    ind, ptr, work = Cc.ind, Cc.ptr, Cc.work
    m = F.size
    while st[IT] < max_iter:
        if st[RESUME] == 0:
            gap = 0.0
            for t in range(m):
                G = -s[t] * F[t]
                if alpha[t] <= 0:
                    pg = G if G < 0.0 else 0.0
                elif alpha[t] >= C[t]:
                    pg = G if G > 0.0 else 0.0
                else:
                    pg = G
                gap = max(gap, abs(pg))
            fst[GAP] = gap
            if gap <= tol:
                return DONE, -1
            st[RESUME] = 1
            if st[IT] and st[IT] % every == 0:
                return CALLBACK, -1
        best = -np.inf
        tb = -1
        nb = 0.0
        db = 0.0
        for t in range(m):
            G = -s[t] * F[t]
            new = min(max(alpha[t] - G / Kds[t], 0.0), C[t])
            d = new - alpha[t]
            gain = -G * d - 0.5 * Kds[t] * d * d
            if gain > best:
                best = gain
                tb = t
                nb = new
                db = d
        if not best > 0:
            return DONE, -1          # no decrease possible (flat direction at round-off)
        t = tb
        w = _whole(t, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree,
                   ind, ptr, work)
        if w < 0:
            return NEED, t
        Kt = data[w]
        alpha[t] = nb
        c = s[t] * db
        qt = q[t]
        ft = F[t]
        for u in range(m):
            F[u] = F[u] - (Kt[u] * (q[u] * qt) if signed else Kt[u]) * c
        if shifted:
            F[t] = ft - (Kt[t] * (q[t] * qt) + P.r[t]) * c
        st[IT] += 1
        st[RESUME] = 0
        if alpha[t] > alpha_bound:
            return UNBOUNDED, -1
    return MAXITER, -1


if HAVE_NUMBA:
    _o = dict(cache=True, nogil=True)
    _load = _njit(**_o)(_load)
    _store = _njit(**_o)(_store)
    _forget = _njit(**_o)(_forget)
    _whole = _njit(**_o)(_whole)
    _whole_of = _njit(**_o)(_whole_of)
    _group_gap = _njit(**_o)(_group_gap)
    _pool_whole = _njit(**_o)(_pool_whole)
    _shrink = _njit(**_o)(_shrink)
    _start_rec = _njit(**_o)(_start_rec)
    _coords = _njit(**_o, error_model="numpy")(_coords)
    _ahead = _njit(**_o)(_ahead)
    _fetch = _njit(**_o)(_fetch)
    _as_double = _njit(**_o, inline="always")(_as_double)
_VARIANTS = {}


def _variant(signed, two):
    """The compiled pair loop (and the helpers that read the flags) for kernel signs
    and/or two groups: a copy of each function whose globals ``SIGNED`` and ``TWO`` are
    the given constants (numba folds them); cached on disk like any compiled function."""
    key = (bool(signed), bool(two))
    if key not in _VARIANTS:
        tag = ("_signed" if key[0] else "") + ("_two" if key[1] else "")
        space = dict(globals(), SIGNED=key[0], TWO=key[1])
        for f, inline in ((_extremes, True), (_extremes_vec, False), (_scores, True),
                          (_second, True), (_second_vec, False), (_update, True),
                          (_rec_blocked, False), (_continue_rec, False), (_pairs, False)):
            name = f.__name__ + tag
            copy = types.FunctionType(f.__code__, space, name, f.__defaults__)
            copy.__qualname__ = name
            if HAVE_NUMBA:
                opts = dict(cache=True, nogil=True, error_model="numpy")
                copy = _njit(**opts, inline="always")(copy) if inline else _njit(**opts)(copy)
            space[f.__name__] = copy
        _VARIANTS[key] = space
    return _VARIANTS[key]["_pairs"]


def _margin_test(F, alpha, s, grp, two, thr, stol):
    """The stopping test of :func:`kernelclf.margin.separability.hard_margin_bounds` on
    the gradient ``g = -s F`` (its ``_margin_of`` and ``_stop``) in compiled code: 1 stop,
    0 go on, -1 undecided. ``u'g`` is summed here in another order than NumPy's dot;
    the test is decided only when it gives the same answer for ``u'g`` moved by a
    relative ``1e-9`` either way, ten times more than the two sums can differ (each is
    within ``m eps sum_i |u_i g_i|`` of the exact sum, checked to be at most
    ``1e-10 u'g``), else Python decides."""
    m = F.size
    wn2 = 0.0
    absum = 0.0
    gmin0 = np.inf
    gmin1 = np.inf
    for t in range(m):
        g = -s[t] * F[t]
        v = alpha[t] * g
        wn2 += v
        absum += abs(v)
        if two and grp[t] == 1:
            if g < gmin1:
                gmin1 = g
        elif g < gmin0:
            gmin0 = g
    if not wn2 > 0 or not m * 2.3e-16 * absum <= 1e-10 * wn2:
        return -1
    out = -2
    for k in range(3):
        w2 = wn2 * (1.0 - 1e-9) if k == 0 else (wn2 if k == 1 else wn2 * (1.0 + 1e-9))
        wn = np.sqrt(w2)
        if two:
            low = (gmin0 + gmin1) / (2.0 * wn)
            up = wn / 2.0
        else:
            low = gmin0 / wn
            up = wn
        if up - low <= stol * up:
            d = 1
        elif thr == 0.0:
            d = 1 if low > 0 else 0
        else:
            d = 1 if thr > 0 and (low >= thr or up < thr) else 0
        if out == -2:
            out = d
        elif d != out:
            return -1
    return out


#: a compiled loop stopped by :func:`_margin_test` (not a code of ``_pairs``)
MARGIN_STOP = 100


def _pairs_margin(P, L, Cc, st, fst, tol, max_iter, shrinking, alpha_bound, every,
                  shifted, mapped, thr, stol):
    """:func:`_pairs` with :func:`_margin_test` run every ``every`` steps in compiled
    code (the callback of :func:`kernelclf.margin.separability.hard_margin_bounds`):
    returns to Python only for a column, at the end, or when the test is undecided
    (``CALLBACK``; Python then runs the callback). ``MARGIN_STOP``: the test said stop."""
    while True:
        code, need = _pairs(P, L, Cc, st, fst, tol, max_iter, shrinking, alpha_bound, every,
                            shifted, mapped)
        if code != CALLBACK:
            return code, need
        d = _margin_test(P.F, P.alpha, P.s, P.grp, TWO, thr, stol)
        if d == 1:
            return MARGIN_STOP, -1
        if d < 0:
            return CALLBACK, -1


if HAVE_NUMBA:
    _margin_test = _njit(**_o, error_model="numpy")(_margin_test)


def _margin_variant(signed, two):
    """:func:`_pairs_margin` compiled with the pair loop of :func:`_variant`."""
    key = ("margin", bool(signed), bool(two))
    if key not in _VARIANTS:
        _variant(signed, two)
        space = _VARIANTS[(bool(signed), bool(two))]
        # (a name per variant: numba's disk cache tells functions apart by name, and the
        # variants' argument types are the same)
        name = "_pairs_margin" + ("_signed" if signed else "") + ("_two" if two else "")
        copy = types.FunctionType(_pairs_margin.__code__, space, name)
        copy.__qualname__ = name
        if HAVE_NUMBA:
            copy = _njit(cache=True, nogil=True, error_model="numpy")(copy)
        _VARIANTS[key] = copy
    return _VARIANTS[key]


def run_pairwise(slots, Kd, r, q, s, grp, ng, C, alpha, F, tol, max_iter, shrinking,
                 alpha_bound, points=None, every=0, on_every=None, margin_test=None):
    """Drive :func:`_pairs` (filling the columns it asks for, calling
    ``on_every(iterations, up, low)`` every ``every`` steps: True stops). ``points``: the
    cached column of each variable (a :class:`kernelclf.kernels.gram.Replicated` matrix's
    ``points``; default its own). Returns ``(code, iterations)``; ``code`` ``CALLBACK``
    means stopped by ``on_every``. ``alpha`` and ``F`` are updated in place and exact.
    ``margin_test = (thr, tol)``: ``on_every`` is the stopping test of
    :func:`kernelclf.margin.separability.hard_margin_bounds`, run in compiled code
    (:func:`_pairs_margin`; ``on_every`` only where that one is undecided)."""
    if getattr(_SCRATCH, "busy", False):     # (a solve inside a callback: its own memory)
        _SCRATCH.__dict__.clear()
    _SCRATCH.busy = True
    try:
        return _run_pairwise(slots, Kd, r, q, s, grp, ng, C, alpha, F, tol, max_iter,
                             shrinking, alpha_bound, points, every, on_every, margin_test)
    finally:
        _SCRATCH.busy = False


def _run_pairwise(slots, Kd, r, q, s, grp, ng, C, alpha, F, tol, max_iter, shrinking,
                  alpha_bound, points, every, on_every, margin_test=None):
    m = F.size
    pos = s > 0
    below, above = alpha < C, alpha > 0
    up = np.where(pos, below, above)
    low = np.where(pos, above, below)
    mapped = points is not None
    # the layout, the reference point and the compacted columns' bookkeeping in memory
    # kept between solves (fresh pages cost a fault each)
    f8 = _scratch(m, np.float64, 10)
    i8 = _scratch(m, np.int64, 9)
    b1 = _scratch(m, np.bool_, 3)
    pt = np.ascontiguousarray(points, dtype=np.int64) if mapped else i8[0]
    if not mapped:
        pt[:] = np.arange(m)
    f8[0] = F
    f8[1] = alpha
    b1[2] = 0
    P = Problem(F, alpha, up, low, Kd, r, q, s, C, grp, pt, f8[0], f8[1], b1[2])
    i8[1] = np.arange(m)
    L = Layout(i8[1], i8[2], f8[2], f8[3], b1[0], b1[1], f8[4], f8[5], f8[6], f8[7], f8[8],
               i8[3], i8[4], f8[9])
    st = np.array([0, min(m, 1000), m, 0, 0, 0, 0, -1, 0], dtype=np.int64)
    fst = np.array([np.inf, np.inf])
    if SINGLE:                      # (past the budget: columns in single precision;
        slots.single()              # solve_smo has set it before its first column)
    spec, ust = _native(slots)
    # one pool of columns (whole, then compacted) when no callback reads columns between
    # the loop's calls (Python's fill would write over compacted columns) and the budget
    # holds at most POOL_SHARE of the columns
    slots.pooled = (spec[0] != NONE and not mapped and every == 0
                    and slots.capacity <= POOL_SHARE * slots.m)
    cflat = _compact_memory(slots, m)           # (may lower the whole columns' capacity)
    ust[:2] = slots.used, slots.filled
    ust[POOLED] = slots.pooled and slots.capacity < slots.m
    if ust[POOLED]:                             # (no whole columns while shrunk)
        ust[ROOM_AT] = 0
    xr = _NO_ROWS
    if ON_ROWS and ROWS < spec[0] < SPARSE and slots.capacity < slots.m and not mapped:
        xr = np.zeros((m + 4, spec[1].shape[1]))    # (column_on_rows reads 4 rows ahead)
        ust[BLOCKED] = BLOCK_REC and ust[POOLED]
        ust[SINGLE_AT] = slots.data.dtype == np.float32
        ust[AHEAD_AT] = 0 if ust[POOLED] else AHEAD
    i8[5:7] = -1
    i8[7:9] = 0
    compact = (cflat, i8[5], i8[6], i8[7], i8[8, :1])
    signed = bool((q != 1.0).any())                    # (the method: np.any's dispatch
    shifted = bool((r != 0.0).any())                   # costs more than the test)
    loop = _variant(signed, ng == 2)
    extra = ()
    if margin_test is not None and every > 0:
        loop = _margin_variant(signed, ng == 2)
        extra = (float(margin_test[0]), float(margin_test[1]))
    stopped = False
    while True:
        cap = slots.capacity
        Cc = Cache(slots.data[:cap], slots.slot, slots.owner[:cap], slots.stamp[:cap],
                   slots.clock, ust, *compact, *spec, xr)
        code, need = loop(P, L, Cc, st, fst, float(tol), int(max_iter), bool(shrinking),
                          float(alpha_bound), int(every), shifted, mapped, *extra)
        _sync(slots, ust)
        if code == MARGIN_STOP:         # (as on_every returning True)
            stopped, max_iter = True, int(st[IT])
            ust[0], ust[1] = slots.used, slots.filled
            continue
        if code == NEED:
            _fill(slots, need, ust)
            # a compiled column had a value that is not finite (unless the loop asked
            # for the switch to the whole matrix)
            if spec[0] != NONE and not slots.switched:
                raise ValueError(f"the kernel column {need} has values that are not finite "
                                 "(kernel values overflow)")
            continue
        if code == CALLBACK:
            # stopped: one more call ends at max_iter, after making the gradient exact
            stopped = bool(on_every(int(st[IT]), up, low))
            max_iter = int(st[IT]) if stopped else max_iter
            ust[0], ust[1] = slots.used, slots.filled
            continue
        return (CALLBACK if stopped else code), int(st[IT])


def _gap_one(F, alpha, C, s):
    """The KKT gap ``max F(up) - min F(low)`` of one equality group (the operations of
    :func:`kernelclf.margin.smo.kkt._kkt_gap`)."""
    fmax = -np.inf
    fmin = np.inf
    for t in range(F.size):
        below = alpha[t] < C[t]
        above = alpha[t] > 0
        up = below if s[t] > 0 else above
        low = above if s[t] > 0 else below
        if up and F[t] > fmax:
            fmax = F[t]
        if low and F[t] < fmin:
            fmin = F[t]
    return max(-np.inf, fmax - fmin)


def _objective_one(alpha, F, s):
    """``1/2 a'(G - p)`` with ``G = -s F``, ``p = 1``."""
    out = 0.0
    for t in range(F.size):
        out += alpha[t] * (-s[t] * F[t] - 1.0)
    return 0.5 * out


def _polish_one(G, pt, alpha, F, C, s, gap, max_free):
    """:func:`kernelclf.margin.smo.kkt._polish` for one equality group on the matrix
    ``G[pt][:, pt]`` (read in place; ``p = 1``, no signs, no shift): the KKT system of
    the free variables solved through the Cholesky factor of ``Q_FF`` and the Schur
    complement of the equality (:func:`_cholesky_kkt`, the same numbers as Python's
    polish); kept, in place, when the point stays in the box and its KKT gap is not
    larger than ``gap``. Returns ``(status, gap)``: 0 nothing to do or not kept, 1 kept,
    2 ``Q_FF`` not positive definite or the point outside the box (Python's polish
    decides: the condition number, the bordered LU, the minimum-norm solution when the
    system is singular)."""
    n = F.size
    nf = 0
    for t in range(n):
        if alpha[t] > 0 and alpha[t] < C[t]:
            nf += 1
    if nf == 0 or nf > max_free:
        return 0, gap
    idx = np.empty(nf, dtype=np.int64)
    k = 0
    for t in range(n):
        if alpha[t] > 0 and alpha[t] < C[t]:
            idx[k] = t
            k += 1
    rows = np.empty(nf, dtype=np.int64)
    sF = np.empty(nf)
    g = np.empty(nf)
    A = np.empty((1, nf))
    for a in range(nf):
        rows[a] = pt[idx[a]]
        sF[a] = s[idx[a]]
        A[0, a] = sF[a]
        g[a] = -(-s[idx[a]] * F[idx[a]])
    M = np.empty((nf, nf))
    _free_lower(G, rows, rows, sF, M)
    ok, x = _cholesky_kkt(M, A, g)
    if not ok:
        return 2, gap
    for a in range(nf):
        v = alpha[idx[a]] + x[a]
        if not (np.isfinite(v) and v >= 0 and v <= C[idx[a]]):
            return 2, gap
    acc = np.zeros(n)
    for c in range(nf):
        row = G[pt[idx[c]]]
        wc = s[idx[c]] * x[c]
        for t in range(n):
            acc[t] += row[pt[t]] * wc
    Fn = np.empty(n)
    for t in range(n):
        Fn[t] = F[t] - acc[t]
    an = alpha.copy()
    for a in range(nf):
        an[idx[a]] = alpha[idx[a]] + x[a]
    g2 = _gap_one(Fn, an, C, s)
    if not g2 <= gap:
        return 0, gap
    for t in range(n):
        alpha[t] = an[t]
        F[t] = Fn[t]
    return 1, g2


def _free_lower(D, rows, cols, sF, M):
    """The lower triangle of the polish's matrix ``Q_FF``: ``M[c, a] = (D[rows[c], cols[a]]
    * sF[a]) * sF[c]`` for ``a <= c``, read from ``D`` whose row ``rows[c]`` holds the
    column of free variable ``c`` (a stored matrix by rows, the whole matrix held, or the
    column cache's slots; ``cols[a]``: the entry of free variable ``a`` in it). Row ``c``
    of ``M`` is written from one row of ``D`` in one pass; the upper triangle is left as
    it is (the Cholesky factorisation reads the lower one only)."""
    n = rows.size
    for c in range(n):
        row = D[rows[c]]
        sc = sF[c]
        out = M[c]
        for a in range(c + 1):
            out[a] = (row[cols[a]] * sF[a]) * sc


#: the smallest ratio of the Cholesky factor's pivots ``L_ii^2`` (smallest to largest)
#: at which the polish trusts its solution through the factor (``sqrt(eps)``; below it
#: ``Q_FF`` is taken as singular and the bordered LU decides, :func:`_schur_solve`)
PIVOT_RATIO = 2.0 ** -26


def _cholesky_kkt(M, A, g):
    """``(ok, d)``: :func:`_schur_solve` on the Cholesky factor of the lower triangle of
    ``M`` (LAPACK ``potrf`` through ``np.linalg.cholesky``: the routine and the triangle
    that Python's polish factors in place, :func:`kernelclf.margin.smo.kkt._polish`, so
    the same numbers); ``ok`` False when ``M`` is not numerically positive definite."""
    try:
        L = np.linalg.cholesky(M)
    except Exception:
        return False, np.zeros(g.size)
    return _schur_solve(L, A, g)


def _schur_solve(L, A, g):
    """The solution ``d`` of the polish's bordered system ``Q d + A' lam = g``, ``A d = 0``
    (:func:`kernelclf.margin.smo.kkt._polish`) from the Cholesky factor ``Q = L L'`` (the
    lower triangle of ``L`` read) and the Schur complement of the ``k <= 2`` rows of ``A``
    (Nocedal & Wright 2006, §16.2, the range-space method): ``U = Q^{-1} [g, A']`` by two
    triangular solves each, ``S = A U_A`` (``k x k``), ``S lam = A u_g``,
    ``d = u_g - U_A lam``. Returns ``(ok, d)``, ``ok`` False (then the bordered LU
    decides) when ``S`` is not positive definite or the factor's pivots reveal a
    numerically singular ``Q``: the smallest ``L_ii^2`` below :data:`PIVOT_RATIO` times
    the largest (the pivots lie between ``Q``'s extreme eigenvalues, so their ratio is at
    least ``1 / cond(Q)``; measured: ``1e-2`` to ``0.8`` on the broad benchmark's
    problems, ``2e-15`` on 21 free variables of a linear kernel on 20 features, where
    ``potrf`` ends on round-off). The forward solves' dot products are summed in four
    interleaved parts (one dependency chain each), the backward ones are ``axpy``
    updates along the rows of ``L``."""
    n = g.size
    k = A.shape[0]
    d = np.zeros(n)
    pmin = np.inf
    pmax = 0.0
    for i in range(n):
        piv = L[i, i] * L[i, i]
        pmin = min(pmin, piv)
        pmax = max(pmax, piv)
    if not (pmin >= PIVOT_RATIO * pmax):
        return False, d
    R = np.empty((k + 1, n))
    R[0] = g
    for j in range(k):
        R[j + 1] = A[j]
    for r in range(k + 1):
        b = R[r]
        for i in range(n):
            row = L[i]
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            j = 0
            while j + 4 <= i:
                a0 += row[j] * b[j]
                a1 += row[j + 1] * b[j + 1]
                a2 += row[j + 2] * b[j + 2]
                a3 += row[j + 3] * b[j + 3]
                j += 4
            while j < i:
                a0 += row[j] * b[j]
                j += 1
            b[i] = (b[i] - ((a0 + a1) + (a2 + a3))) / row[i]
        for i in range(n - 1, -1, -1):
            row = L[i]
            xi = b[i] / row[i]
            b[i] = xi
            for j in range(i):
                b[j] -= xi * row[j]
    for t in range(n):
        d[t] = R[0, t]
    if k == 0:
        return True, d
    S = np.empty((k, k))
    rhs = np.empty(k)
    for i in range(k):
        acc = 0.0
        for t in range(n):
            acc += A[i, t] * R[0, t]
        rhs[i] = acc
        for j in range(k):
            acc = 0.0
            for t in range(n):
                acc += A[i, t] * R[j + 1, t]
            S[i, j] = acc
    lam = np.empty(k)
    if k == 1:
        if not (S[0, 0] > 0):
            return False, d
        lam[0] = rhs[0] / S[0, 0]
    else:
        det = S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]
        if not (det > 0 and S[0, 0] > 0):
            return False, d
        lam[0] = (S[1, 1] * rhs[0] - S[0, 1] * rhs[1]) / det
        lam[1] = (S[0, 0] * rhs[1] - S[1, 0] * rhs[0]) / det
    for j in range(k):
        lj = lam[j]
        for t in range(n):
            d[t] -= R[j + 1, t] * lj
    return True, d


def _free_update(D, rows, w, F, out):
    """``out = F - K[:, F] w`` for the polish's step ``w = s_F d`` (the new ``F``), read
    row by row from ``D`` (row ``rows[c]``: the column of free variable ``c``, as in
    :func:`_free_lower`), without gathering the ``m x n`` block of columns."""
    m = F.size
    acc = np.zeros(m)
    for c in range(rows.size):
        row = D[rows[c]]
        wc = w[c]
        for t in range(m):
            acc[t] += row[t] * wc
    for t in range(m):
        out[t] = F[t] - acc[t]


if HAVE_NUMBA:
    _gap_one = _njit(**_o)(_gap_one)
    _free_lower = _njit(**_o)(_free_lower)
    _schur_solve = _njit(**_o)(_schur_solve)
    _cholesky_kkt = _njit(**_o)(_cholesky_kkt)
    _free_update = _njit(**_o)(_free_update)
    _objective_one = _njit(**_o)(_objective_one)
    _polish_one = _njit(**_o)(_polish_one)


def _pairs_on_blocks(G, pos, offsets, s_all, C_all, tol, max_iters, polish, alpha_all,
                     F_all, codes, iters, gaps, objectives, polished):
    """The pair loop :func:`_pairs` run on many problems of one stored matrix in one call:
    problem ``k`` has the variables ``offsets[k]:offsets[k + 1]``, its matrix is
    ``G[pos[v], pos[w]]`` for its variables ``v, w``, its signs ``s_all``, its box
    ``C_all``, ``p = 1``, one equality group, shrinking, no diagonal shift, no kernel
    signs: the C-SVM dual of the pairwise machines of
    :class:`kernelclf.multiclass.OneVsOneClassifier`. The loop reads ``G`` through the
    map ``pos`` (as it reads a :class:`kernelclf.kernels.gram.Replicated` matrix): a
    column is gathered when the loop first uses it, into the compacted columns, which
    hold all of them. Each problem starts from ``alpha = 0`` with the state
    :func:`run_pairwise` sets up, and the loop takes the steps :func:`run_pairwise`
    takes on that problem's matrix stored (the same values, the same operations). A
    converged problem is then polished (``polish``; :func:`_polish_one`, at most 1000
    free variables, as :func:`kernelclf.margin.smo.kkt._polish`). Writes each problem's
    ``alpha``, ``F`` (exact), code, iterations, KKT gap, objective and polish status
    (``2``: for Python's polish, from the point the pair loop left)."""
    npb = offsets.size - 1
    M = G.shape[0]
    big = 0
    for k in range(npb):
        big = max(big, offsets[k + 1] - offsets[k])
    cflat = np.empty(max(2 * big, big * big))
    spec_X = np.zeros((1, 1))
    spec_sq = np.zeros(1)
    no_index = np.zeros(1, dtype=np.int64)
    work = np.zeros(1)
    slot = np.arange(M)
    owner = np.arange(M)
    stamp = np.zeros(M, dtype=np.int64)
    for k in range(npb):
        o = offsets[k]
        n = offsets[k + 1] - o
        pt = pos[o:o + n].copy()
        s = s_all[o:o + n].copy()
        C = C_all[o:o + n].copy()
        alpha = np.zeros(n)
        F = s * 1.0
        Kd = np.empty(n)
        for a in range(n):
            Kd[a] = G[pt[a], pt[a]] + 0.0
        r = np.zeros(n)
        q = np.ones(n)
        grp = np.zeros(n, dtype=np.int64)
        up = np.empty(n, dtype=np.bool_)
        low = np.empty(n, dtype=np.bool_)
        for a in range(n):
            below = alpha[a] < C[a]
            above = alpha[a] > 0
            up[a] = below if s[a] > 0 else above
            low[a] = above if s[a] > 0 else below
        P = Problem(F, alpha, up, low, Kd, r, q, s, C, grp, pt, F.copy(), alpha.copy(),
                    np.zeros(n, dtype=np.bool_))
        L = Layout(np.arange(n), np.empty(n, dtype=np.int64), np.empty(n), np.empty(n),
                   np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_), np.empty(n),
                   np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                   np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n))
        st = np.zeros(9, dtype=np.int64)
        st[COUNTER] = min(n, 1000)
        st[N] = n
        st[REC] = -1
        fst = np.array([np.inf, np.inf])
        ust = np.array([M, 0, 0, np.iinfo(np.int64).max, 0, 0, 0, 0, 0], dtype=np.int64)
        Cc = Cache(G, slot, owner, stamp, np.zeros(1, dtype=np.int64), ust, cflat,
                   np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64),
                   np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64), NONE, spec_X,
                   spec_sq, 0.0, 1, no_index, no_index, work, spec_X)
        code, need = _pairs(P, L, Cc, st, fst, tol, max_iters[k], True, np.inf, 0, False,
                            True)
        codes[k] = code
        iters[k] = st[IT]
        gap = _gap_one(F, alpha, C, s)
        status = 0
        if polish and code == DONE:
            status, gap = _polish_one(G, pt, alpha, F, C, s, gap, 1000)
        gaps[k] = gap
        objectives[k] = _objective_one(alpha, F, s)
        polished[k] = status
        for a in range(n):
            alpha_all[o + a] = alpha[a]
            F_all[o + a] = F[a]


def solve_pairs_on_blocks(G, pos, offsets, s_all, C_all, tol, max_iters, polish=True):
    """:func:`_pairs_on_blocks` (compiled with the pair loop of one group, unsigned):
    returns ``(alpha, F, codes, iterations, gaps, objectives, polished)`` over all
    problems (the first two over their variables)."""
    key = "blocks"
    if key not in _VARIANTS:
        _variant(False, False)
        space = _VARIANTS[(False, False)]
        copy = types.FunctionType(_pairs_on_blocks.__code__, space, "_pairs_on_blocks")
        copy.__qualname__ = "_pairs_on_blocks"
        if HAVE_NUMBA:
            copy = _njit(cache=True, nogil=True, error_model="numpy")(copy)
        _VARIANTS[key] = copy
    total, npb = int(offsets[-1]), offsets.size - 1
    alpha, F = np.empty(total), np.empty(total)
    codes, iters, polished = (np.empty(npb, dtype=np.int64) for _ in range(3))
    gaps, objectives = np.empty(npb), np.empty(npb)
    _VARIANTS[key](np.ascontiguousarray(G, dtype=float), pos, offsets, s_all, C_all,
                   float(tol), max_iters, bool(polish), alpha, F, codes, iters, gaps,
                   objectives, polished)
    return alpha, F, codes, iters, gaps, objectives, polished


def run_coordinate(slots, Kd, Kds, r, q, s, C, alpha, F, tol, max_iter, every, alpha_bound,
                   newton):
    """Drive :func:`_coords`; ``newton()`` runs the Newton step on the free variables in
    place. Returns ``(code, iterations)``."""
    m = F.size
    st = np.zeros(9, dtype=np.int64)
    fst = np.array([np.inf, np.inf])
    spec, ust = _native(slots)
    P = Problem(F, alpha, alpha > 0, alpha > 0, Kd, r, q, s, C, np.zeros(m, np.int64),
                np.arange(m), F, alpha, np.zeros(m, np.int8))
    signed, shifted = bool(np.any(q != 1.0)), bool(np.any(r != 0.0))
    empty = (np.zeros(0), np.zeros(m, np.int64), np.zeros(0, np.int64),
             np.zeros(0, np.int64), np.zeros(1, np.int64))
    while True:
        Cc = Cache(slots.data, slots.slot, slots.owner, slots.stamp, slots.clock, ust,
                   *empty, *spec, _NO_ROWS)
        code, need = _coords(P, Cc, Kds, st, fst, float(tol), int(max_iter), int(every),
                             float(alpha_bound), signed, shifted)
        _sync(slots, ust)
        if code == NEED:
            _fill(slots, need, ust)
        elif code == CALLBACK:
            newton()
            ust[0], ust[1] = slots.used, slots.filled
        else:
            return code, int(st[IT])


def _native(slots):
    """The kernel's compiled columns (:mod:`kernelclf.kernels.native_columns`) when it has
    them, and ``ust`` (``[used, filled, entries, limit]``). ``data`` then holds the whole
    budget; it switches to the whole matrix after ``limit`` whole columns when they all
    fit and there are many features (:func:`~kernelclf.kernels.native_columns.switch_fraction`),
    else never (``limit`` above any count)."""
    spec = column_spec(slots.gram)
    limit = np.iinfo(np.int64).max
    if spec[0] != NONE:
        slots.reserve()
        X = spec[1]
        f = slots.switch = switch_fraction(spec[0], X.shape[0], X.shape[1])
        if f is not None and slots.capacity == slots.m:
            limit = max(2, int(np.ceil(f * slots.m)))
            slots.native = spec         # (the whole matrix from the same arrays)
    return spec, np.array([slots.used, slots.filled, 0, limit, ROOM, 0, 0, 0, 0],
                          dtype=np.int64)


def _compact_memory(slots, m):
    """Memory for the compacted columns. When the budget holds at most ``POOL_SHARE`` of
    the whole columns and the loop computes its columns itself without callbacks
    (``slots.pooled``), the whole budget: it holds whole columns while every variable is
    active, compacted ones once shrinking has set some aside (libsvm's one cache of
    columns of the active length; :func:`_shrink` turns the whole columns into compacted
    ones). When they do not all fit otherwise, the budget is split as libsvm's layout
    needs it: the compacted columns
    get a quarter of the columns the budget cannot hold, at most a quarter of the budget
    (``COMPACT_SHARE``), and the rest keeps whole columns (untouched while the problem is
    compacted, so that the reconstruction finds most of them): three quarters while the
    budget holds at most half of the columns, nearly all of it when it holds nearly all
    of them (then the whole columns of every variable that moves fit and each is computed
    about once, as in libsvm's single store; the test
    ``test_a_budget_holding_nearly_every_column_computes_each_about_once``); otherwise a
    quarter of the budget is added. A budget that holds every column in single precision
    but not in double (``slots.spare``: the single-precision columns it holds beyond the
    ``m - 1`` slots, :meth:`kernelclf.kernels.gram.ColumnSlots.single`) gives the
    compacted columns that spare memory too, where the split leaves them about one
    column (then, with hundreds of free variables, the loop gathered a compacted column
    from its whole one at most steps: 21 % of the fit on the broad benchmark's twonorm-20
    polynomial cell at m = 6400, C = 1000, 553 free variables)."""
    if slots.capacity < slots.m and getattr(slots, "pooled", False):
        return slots.data.reshape(-1)
    if slots.capacity < slots.m:
        cap = getattr(slots, "_whole_capacity", None)
        if cap is None:
            slots.reserve()
            cap = slots._whole_capacity = max(2, int(slots.capacity - COMPACT_SHARE * min(
                slots.capacity, slots.m - slots.capacity)))
            for c in range(cap, slots.used):          # columns beyond it are let go
                if slots.owner[c] >= 0:
                    slots.slot[slots.owner[c]] = -1
                slots.owner[c] = -1
            spare = getattr(slots, "spare", 0)
            slots._compact = slots.data[cap:].reshape(-1) if not spare else np.empty(
                (slots.data.shape[0] - cap + spare) * slots.m, dtype=slots.data.dtype)
            slots.capacity = cap
            slots.used = min(slots.used, cap)
        return slots._compact if slots._compact.size >= 2 * m else \
            np.empty(2 * m, dtype=slots.data.dtype)
    return _scratch(max(2 * m, slots.capacity * slots.m // 4, min(m * m, 64 * m)))


_SCRATCH = threading.local()
#: past the budget, the columns are kept in single precision (:meth:`ColumnSlots.single`)
SINGLE = True
#: past the budget, the compacted columns' share of the columns it cannot hold (and of
#: the budget at most; :func:`_compact_memory`)
COMPACT_SHARE = 0.25
#: past a budget that holds at most this share of the columns (in single precision), one
#: pool of columns rather than the split (:func:`_compact_memory`; 0: never)
POOL_SHARE = 0.5
#: past the budget, on many features, the compacted columns from the active inputs stored
#: in the layout's order (:func:`~kernelclf.kernels.native_columns.column_on_rows`)
ON_ROWS = True
_NO_ROWS = np.zeros((1, 1))
_NO_ROWS_I = np.zeros(1, dtype=np.int64)


def _scratch(size, dtype=np.float64, rows=0):
    """Memory kept between the solves of one thread (fresh memory costs a page fault per
    page written): ``size`` entries of ``dtype``, or ``rows`` rows of them. Rows lie 40
    entries apart beyond their length: rows a multiple of 4 KiB apart make the loads of
    one row wait on the stores to another (4K aliasing; the loop reads several at once)."""
    key = (np.dtype(dtype).str, rows)
    buf = _SCRATCH.__dict__.get(key)
    stride = size + 40 if rows else size
    n = stride * max(rows, 1)
    if buf is None or buf.size < n:
        buf = _SCRATCH.__dict__[key] = np.empty(max(n, 16), dtype=dtype)
    return buf[:n].reshape(rows, stride)[:, :size] if rows else buf[:size]


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
