"""Kernel columns computed inside compiled solver loops (numba), for the common kernels.

Book chapters 02 and 04 (``book/02_kernels.md``, ``book/04_support_vector_machines.md``);
LKC Table 2.1 (linear, polynomial and RBF kernels), Definition 2.15 (Gram matrix).

A compiled loop that reads columns from a :class:`kernelclf.kernels.gram.ColumnSlots`
returns to Python for every missing column; for the linear, polynomial and RBF kernels
on a float array it can instead compute the column itself: :func:`column_spec` turns a
:class:`kernelclf.kernels.gram.Gram` into plain arrays (``kind``, the inputs scaled as
the kernel's own column function scales them, their squared norms and the parameters),
and :func:`fill_slot` computes column ``i`` into a slot, evicting the least recently
used one exactly as :meth:`kernelclf.kernels.gram.ColumnSlots.fill` does. Only for
inputs with few features (``n <= 32``): there a column costs ``O(m n)`` scalar work;
with many features the matrix products of NumPy (and the switch to the whole matrix
of :class:`~kernelclf.kernels.gram.ColumnSlots`) are faster. The values agree with the
kernels' NumPy columns to round-off (the same formulas, summed in another order).
"""
from __future__ import annotations

import numpy as np

from .vector import RBF, Linear, Polynomial

try:
    from numba import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - Pyodide
    HAVE_NUMBA = False

__all__ = ["NONE", "column_spec", "fill_slot", "column_at", "take_slot"]

NONE, LINEAR, POLY, RBF_KIND = range(4)
MAX_FEATURES = 32
_EMPTY = (NONE, np.zeros((1, 1)), np.zeros(1), 0.0, 1)


def column_spec(gram):
    """``(kind, X, sq, offset, degree)`` for :func:`fill_slot`, or ``kind = NONE`` when the
    columns must come from Python (another kernel, a stored matrix, many features, a ridge)."""
    kernel, X = getattr(gram, "kernel", None), getattr(gram, "X", None)
    if (not HAVE_NUMBA or getattr(gram, "_G", None) is not None or gram.ridge
            or not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind not in "fiu"
            or X.shape[1] > MAX_FEATURES or X.shape[0] != gram.m):
        return _EMPTY
    X = np.ascontiguousarray(X, dtype=float)
    kind = type(kernel)
    if kind is RBF:
        w = kernel._width()
        if not isinstance(w, float) or getattr(w, "ndim", 0):
            return _EMPTY
        Xs = np.ascontiguousarray(X / kernel._sigma_for(X))
        return RBF_KIND, Xs, np.einsum("ij,ij->i", Xs, Xs), 0.0, 1
    if kind is Linear:
        return LINEAR, X, np.zeros(len(X)), 0.0, 1
    if kind is Polynomial:
        kernel._check()
        return POLY, X, np.zeros(len(X)), float(kernel.offset), int(kernel.degree)
    return _EMPTY


def _entry(t, i, kind, X, sq, offset, degree):
    """The kernel value ``k(x_t, x_i)`` (the formula of the kernel's NumPy column)."""
    n = X.shape[1]
    dot = 0.0
    for k in range(n):
        dot += X[t, k] * X[i, k]
    if kind == RBF_KIND:
        d2 = sq[t] + (sq[i] - 2.0 * dot)
        if d2 < 0.0:
            d2 = 0.0
        return np.exp(-0.5 * d2)
    if kind == LINEAR:
        return dot
    a = dot + offset
    v = 1.0
    p = degree
    while p:
        if p & 1:
            v *= a
        p >>= 1
        if p:
            a *= a
    return v


def _column(out, i, kind, X, sq, offset, degree):
    """Column ``i`` of the kernel matrix into ``out``; False if a value is not finite."""
    ok = True
    for t in range(X.shape[0]):
        v = _entry(t, i, kind, X, sq, offset, degree)
        if not np.isfinite(v):
            ok = False
        out[t] = v
    return ok


def column_at(out, i, rows, n, kind, X, sq, offset, degree):
    """The entries ``k(x_rows[k], x_i)``, ``k < n``, of column ``i`` into ``out[:n]`` (the
    same numbers as :func:`_column` gives there); False if one is not finite."""
    ok = True
    for k in range(n):
        v = _entry(rows[k], i, kind, X, sq, offset, degree)
        if not np.isfinite(v):
            ok = False
        out[k] = v
    return ok


def take_slot(slot, owner, stamp, used, capacity):
    """A slot for a new column: the next unused one while ``used < capacity`` (the caller
    counts it), else the least recently used one, whose column is forgotten."""
    if used < capacity:
        return used
    s = 0
    low = stamp[0]
    for k in range(1, used):
        if stamp[k] < low:
            low = stamp[k]
            s = k
    if owner[s] >= 0:
        slot[owner[s]] = -1
    return s


def fill_slot(i, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree):
    """Compute column ``i`` into a slot of ``data`` (``ust = [used, filled]``); returns the
    slot, or -1 when the column has a value that is not finite (Python then fills it
    through the Gram's checked columns, which raise the package's error)."""
    capacity = stamp.size
    used = ust[0]
    s = take_slot(slot, owner, stamp, used, capacity)
    if used < capacity:
        ust[0] = used + 1
    if not _column(data[s], i, kind, X, sq, offset, degree):
        if used < capacity:
            ust[0] = used               # the fresh slot stays unused
        owner[s] = -1                   # an evicted slot stays empty (stamp kept)
        return -1
    slot[i] = s
    owner[s] = i
    clock[0] += 1
    stamp[s] = clock[0]
    ust[1] += 1
    return s


if HAVE_NUMBA:
    _entry = _njit(cache=True, nogil=True, inline="always")(_entry)
    _column = _njit(cache=True, nogil=True, inline="always")(_column)
    column_at = _njit(cache=True, nogil=True, inline="always")(column_at)
    take_slot = _njit(cache=True, nogil=True, inline="always")(take_slot)
    fill_slot = _njit(cache=True, nogil=True)(fill_slot)
