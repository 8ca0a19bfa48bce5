"""Book chapter 02 (``book/02_kernels.md``): the compiled screen of the Gram guard's
degeneracy check.

:func:`kernelclf.kernels.gram_guard.check_gram` (and the on-demand
:class:`kernelclf.kernels.gram.Gram`) warn when a training Gram matrix is numerically the
identity or (nearly) constant, judged on a block of 64 sampled rows (the module docstring
of :mod:`kernelclf.kernels.gram_guard`). Most matrices are neither; for them one compiled
pass over the block (:func:`_degeneracy_stats`) says so, and the NumPy check
(``_check_degenerate``, a dozen passes and temporaries: a tenth of a small SVM fit) runs
only where the pass cannot tell. Without numba the NumPy check always runs. The
thresholds of that check (``_IDENTITY``, ``_CONSTANT``, ``_WIDE``) and the RBF width it
names in its advice (:func:`_rbf_sigma`) are defined here and imported by the guard, so
that the import runs one way.
"""
from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA

if HAVE_NUMBA:
    from .._jit import njit as _njit

__all__ = []

_IDENTITY = 1e-2      # median off-diagonal mass of a row (normalised) below this: identity
_CONSTANT = 1e-8      # spread of the entries relative to the largest: constant
_WIDE = 1e-4          # median of 1 - k_ij / sqrt(k_ii k_jj) below this: nearly constant


def _rbf_sigma(kernel, depth=0):
    """The width sigma of the first RBF-type part of a kernel (for advice), or None."""
    if kernel is None or depth > 8:
        return None
    width = getattr(kernel, "_advice_width", None)
    if callable(width):
        try:
            return width()
        except Exception:
            return None
    get = getattr(kernel, "get_params", None)
    if get is None:
        return None
    try:
        parts = get(deep=False).values()
    except Exception:
        return None
    for part in parts:
        if hasattr(part, "get_params") and not isinstance(part, type):
            found = _rbf_sigma(part, depth + 1)
            if found is not None:
                return found
    return None


def _degeneracy_stats(A, rix, rows, ir, ic, step, n_total, close):
    """One pass over the rows ``rix`` of ``A`` (every column), the block ``R`` of
    :func:`_check_degenerate` with ``cols`` all the columns and ``rows`` the examples of its
    rows: ``(hi, lo, n_off, n_close, typical)``, the block's largest and smallest entry,
    :func:`_typical_closeness`' count of the pairs ``i != j`` of its columns ``::step`` and
    of those whose normalised value ``R_ij * (ir_i * ic_j)`` exceeds ``close`` (the same
    products, so the same counts), and the median row mass of the identity test (its sums
    in another order than the matrix-vector product's: equal to round-off)."""
    nr = rix.size
    nc = A.shape[1]
    hi = -np.inf
    lo = np.inf
    n_off = 0
    n_close = 0
    mass = np.empty(nr)
    for k in range(nr):
        row = A[rix[k]]
        own = rows[k]
        irk = ir[k]
        acc = 0.0
        for j in range(nc):
            v = row[j]
            if v > hi:
                hi = v
            if v < lo:
                lo = v
            acc += abs(v) * ic[j]
        for j in range(0, nc, step):
            if j != own:
                n_off += 1
                if row[j] * (irk * ic[j]) > close:
                    n_close += 1
        total = acc * irk - (abs(row[own]) * irk) * ic[own]
        mass[k] = max(total, 0.0) * (n_total - 1) / max(nc - 1, 1)
    mass.sort()
    h = nr // 2
    typical = mass[h] if nr % 2 else 0.5 * (mass[h - 1] + mass[h])
    return hi, lo, n_off, n_close, typical


if HAVE_NUMBA:
    _degeneracy_stats = _njit(cache=True, nogil=True, boundscheck=False)(_degeneracy_stats)


def _screen_degenerate(A, rows, cols, d_rows, d_cols, n_total, kernel, rix=None):
    """Whether :func:`_check_degenerate` on the block ``A[rix]`` (``rix``: ``rows``) with
    diagonals ``d_rows``, ``d_cols`` certainly returns without a warning, decided by one
    compiled pass (:func:`_degeneracy_stats`); False when it cannot tell (no numba,
    sampled columns, a diagonal entry not positive, a verdict near a threshold), and the
    caller then runs :func:`_check_degenerate`, whose verdict this one never changes: the
    extremes and the closeness counts are that function's numbers, and the median row
    mass, equal to round-off, decides only beyond ``1e-6`` of ``_IDENTITY``."""
    if not (HAVE_NUMBA and n_total >= 2 and isinstance(A, np.ndarray)
            and A.dtype == np.float64 and A.ndim == 2 and A.flags.c_contiguous
            and cols.size == A.shape[1] and cols.size >= 2 and cols[-1] == cols.size - 1
            and rows.size >= 1):
        return False
    if not (np.all(d_rows > 0) and np.all(d_cols > 0)):
        return False
    ir, ic = 1.0 / np.sqrt(d_rows), 1.0 / np.sqrt(d_cols)
    step = max(1, -(-len(cols) // 64))          # (_typical_closeness' columns)
    hi, lo, n_off, n_close, typical = _degeneracy_stats(
        A, rows if rix is None else rix, rows, ir, ic, step, n_total, 1.0 - _WIDE)
    top = max(hi, -lo)
    if top == 0.0:
        return True
    if hi - lo <= _CONSTANT * top:
        return False
    if isinstance(_rbf_sigma(kernel), float) and not (n_off == 0 or 2 * n_close < n_off):
        return False
    return bool(typical > _IDENTITY * (1.0 + 1e-6))
