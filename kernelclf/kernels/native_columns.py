"""Kernel columns computed inside compiled solver loops (numba), for the common kernels.

Book chapters 02 and 04 (``book/02_kernels.md``, ``book/04_support_vector_machines.md``);
LKC Table 2.1 (linear, polynomial and RBF kernels), Definition 2.15 (Gram matrix).

A compiled loop that reads columns from a :class:`kernelclf.kernels.gram.ColumnSlots`
returns to Python for every missing column; for the linear, polynomial and RBF kernels
on a float array it can instead compute the column itself: :func:`column_spec`
turns a :class:`kernelclf.kernels.gram.Gram` into plain arrays (``kind``, the inputs
scaled as the kernel's own column function scales them, their squared norms and the
parameters), and :func:`fill_slot` computes column ``i`` into a slot, evicting the least
recently used one exactly as :meth:`kernelclf.kernels.gram.ColumnSlots.fill` does.

Sparse inputs (``scipy.sparse``, e.g. word counts) are copied to a dense array first
when that copy takes at most ``DENSE_MB`` MiB (a BLAS product over the dense rows
then costs less than scipy's sparse product per column, about a third for 2000
documents of 800 words); larger ones are kept in CSR form (``kind > SPARSE``: the
values, column indices and row pointers), and a column's inner products are sparse
dot products (:func:`_sparse_dots`: ``x_i`` scattered once into a dense work vector of
the features' length, then for each row the sum of its values times the work vector's
entries at its indices): a cost proportional to the non-zeros, not to ``m n``.

Two dense layouts, by the number of features ``n``:

* few features (``n <= 32``): the inputs stored by feature (``n x m``), the inner
  products of a column summed feature by feature in passes over all examples that the
  compiler vectorises;
* many features (``kind > ROWS``): the inputs stored by example (``m x n``), a whole
  column's inner products ``X x_i`` one matrix-vector product of BLAS (``dgemv``, a
  blocked loop over the features instead of one pass per feature); the entries of a
  column on some rows only (the SMO's shrunk problem) one such product over those
  rows stored contiguously by the caller (:func:`column_on_rows`; the whole column's
  numbers, measured bit for bit but for its last ``m mod 4`` rows), or, from the rows
  in place, one vectorised dot product per row (:func:`column_at`, :func:`_rowdot`,
  summed in another order than BLAS: the same numbers to round-off, not bit for bit).

Then the kernel's formula; for the RBF kernel the exponential is :func:`_exp`'s
polynomial, within one unit in the last place of libm's (numba calls libm once per
value, which cost three times as much as the whole column does now). The values agree
with the kernels' NumPy columns to round-off (the same formulas, summed in another
order); on few features :func:`column_at` gives exactly the numbers of :func:`_column`
on its rows.

A pairwise machine of :class:`kernelclf.multiclass.OneVsOneClassifier` past its budget
reads its columns from blocks of its two classes (``kind > PAIR``, :func:`_pair_column`):
the entries at the rows of the column's own class are its row of that class's diagonal
block (:func:`kernel_block`, computed once per class), those at the other class's rows one
matrix-vector product over that class's rows -- half the inputs a column of the pair
streams, where most of a column's time goes on 256 features.

A matrix product computes the whole matrix at a lower cost per entry than columns do,
the more so the more features there are; :func:`switch_fraction` is the fraction of the
columns after which a solver that could hold them all (``ColumnSlots``' switch) computes
the whole matrix instead, by :func:`whole_matrix` (one product ``X X'`` and the
kernel's formula, from the same arrays as the columns).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .vector import RBF, Linear, Polynomial

try:
    from .._jit import njit as _njit
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - Pyodide
    HAVE_NUMBA = False

__all__ = ["NONE", "column_spec", "fill_slot", "column_at", "column_into", "column_at_into",
           "column_on_rows", "column_on_rows_into", "take_slot", "switch_fraction",
           "whole_rbf_matrix", "whole_matrix", "kernel_block", "pair_matrix", "ROWS",
           "SPARSE"]

#: The ``kind`` that :func:`column_spec` returns when the columns must come from Python
#: (no numba, another kernel, a stored matrix, inputs other than a numeric 2-D array,
#: a ridge).
NONE = 0
LINEAR, POLY, RBF_KIND = range(1, 4)
#: ``kind - ROWS`` is the kernel when the inputs are stored by example (many features)
ROWS = 4
#: ``kind - SPARSE`` is the kernel when the inputs are kept in CSR form (sparse inputs
#: whose dense copy would take more than ``DENSE_MB`` MiB)
SPARSE = 8
#: ``kind - PAIR`` is the kernel of the columns of a one-versus-one pair assembled from
#: its classes' blocks (:func:`_pair_column`; inputs of many features, by example)
PAIR = 16
#: the fraction of a pair's columns (:func:`_pair_column`) after which its solver computes
#: the pair's whole matrix instead (:func:`switch_fraction`)
PAIR_SWITCH = 0.3
#: the most features stored by feature; more are stored by example (BLAS products)
MAX_FEATURES = 32
#: inputs up to this many MiB are read from the cache by the columns' matrix-vector
#: products (:func:`switch_fraction`; half of a core's 4 MiB of L2 cache, the rest
#: for the columns, the solver's arrays and other jobs)
CACHE_MB = 2.0
#: sparse inputs (scipy.sparse) are copied to a dense array when it takes at most this
#: many MiB; larger ones are kept in CSR form (``kind > SPARSE``)
DENSE_MB = 64.0
_NO_INDEX = np.zeros(1, dtype=np.int64)
_EMPTY = (NONE, np.zeros((1, 1)), np.zeros(1), 0.0, 1, _NO_INDEX, _NO_INDEX, np.zeros(1))


def column_spec(gram):
    """``(kind, X, sq, offset, degree, ind, ptr, work)`` for :func:`fill_slot`, or ``kind =
    NONE`` when the columns must come from Python (another kernel, a stored matrix, a
    ridge). ``X`` holds the scaled inputs by feature (``n x m``, ``kind`` one of
    ``LINEAR, POLY, RBF_KIND``) or, for more than ``MAX_FEATURES`` features, by example
    (``m x n``, ``kind`` that plus ``ROWS``); sparse inputs whose dense copy would take
    more than ``DENSE_MB`` MiB stay sparse (``kind`` plus ``SPARSE``): ``X`` is then the
    CSR values (``1 x nnz``), ``ind`` their column indices, ``ptr`` the row pointers
    (``m + 1``) and ``work`` zeros of the features' length (the scattered ``x_i`` of
    :func:`_sparse_dots`); for dense inputs those three are placeholders. A Gram of a
    one-versus-one pair given its classes' blocks (``_pair_spec``, from
    :meth:`kernelclf.multiclass._ClassBlocks.pair_spec`) has that spec (``kind`` plus
    ``PAIR``, :func:`_pair_column`)."""
    pair = getattr(gram, "_pair_spec", None)
    if pair is not None:
        return pair
    kernel, X = getattr(gram, "kernel", None), getattr(gram, "X", None)
    if (HAVE_NUMBA and sp.issparse(X) and X.ndim == 2
            and type(kernel) in (RBF, Linear, Polynomial)):
        if 8.0 * X.shape[0] * X.shape[1] <= DENSE_MB * 2 ** 20:
            X = X.toarray()     # (a dense copy: a column is then one BLAS product)
        elif (getattr(gram, "_G", None) is None and not gram.ridge
              and X.dtype.kind in "fiu" and X.shape[0] == gram.m):
            return _sparse_spec(kernel, X)
    if (not HAVE_NUMBA or getattr(gram, "_G", None) is not None or gram.ridge
            or not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind not in "fiu"
            or X.shape[0] != gram.m):
        return _EMPTY
    X = np.ascontiguousarray(X, dtype=float)
    rows = ROWS if X.shape[1] > MAX_FEATURES else 0
    kind = type(kernel)
    tail = (_NO_INDEX, _NO_INDEX, np.zeros(1))
    if kind is RBF:
        w = kernel._width()
        if not isinstance(w, float) or getattr(w, "ndim", 0):
            return _EMPTY
        Xs = np.ascontiguousarray(X / kernel._sigma_for(X))
        return (RBF_KIND + rows, _layout(Xs, rows), np.einsum("ij,ij->i", Xs, Xs), 0.0, 1,
                *tail)
    if kind is Linear:
        return (LINEAR + rows, _layout(X, rows), np.zeros(len(X)), 0.0, 1, *tail)
    if kind is Polynomial:
        gamma = kernel._gamma_for(X)        # (gamma <x, x'>: the inputs scaled by sqrt(gamma))
        Xs = X if gamma == 1.0 else X * math.sqrt(gamma)
        return (POLY + rows, _layout(Xs, rows), np.zeros(len(X)), float(kernel.offset),
                int(kernel.degree), *tail)
    return _EMPTY


def _sparse_spec(kernel, X):
    """:func:`column_spec` of sparse inputs kept in CSR form (the same scalings as the
    dense inputs get: ``X / sigma`` for the RBF kernel, ``sqrt(gamma) X`` for the
    polynomial one); duplicate entries summed, indices as int64."""
    X = sp.csr_matrix(X, dtype=float, copy=True)
    X.sum_duplicates()
    kind = type(kernel)
    sq = np.zeros(X.shape[0])
    offset, degree = 0.0, 1
    if kind is RBF:
        w = kernel._width()
        if not isinstance(w, float) or getattr(w, "ndim", 0):
            return _EMPTY
        X = X / kernel._sigma_for(X)
        sq = np.asarray(X.multiply(X).sum(axis=1), dtype=float).ravel()
        base = RBF_KIND
    elif kind is Linear:
        base = LINEAR
    else:
        gamma = kernel._gamma_for(X)
        X = X if gamma == 1.0 else X * math.sqrt(gamma)
        offset, degree = float(kernel.offset), int(kernel.degree)
        base = POLY
    X = sp.csr_matrix(X)
    return (base + SPARSE, np.ascontiguousarray(X.data, dtype=float).reshape(1, -1), sq,
            offset, degree, np.ascontiguousarray(X.indices, dtype=np.int64),
            np.ascontiguousarray(X.indptr, dtype=np.int64), np.zeros(X.shape[1]))


def _layout(X, rows):
    """The inputs by example (``rows``) or by feature, contiguous."""
    return np.ascontiguousarray(X if rows else X.T)


def switch_fraction(kind, m, n):
    """The fraction of the columns after which a compiled loop that could hold them all
    computes the whole matrix instead (:func:`whole_matrix`, through
    :class:`kernelclf.kernels.gram.ColumnSlots`), for compiled columns of ``kind`` on ``m``
    examples with ``n`` features; ``None``: never (few features: a compiled column costs
    about what an entry of the whole matrix does; sparse inputs in CSR form: a column
    costs in proportion to the non-zeros).

    The cost model, measured on one core of the shared 2-core machine (Xeon, 4 MiB of
    L2 cache per core; best of 7 runs, thread time, with other jobs running; columns of
    ``m = 2000`` and 4000 examples of 50, 256 and 784 features, against
    :func:`whole_matrix`), in nanoseconds: an entry of the whole matrix ``4 + 0.015 n``
    (a symmetric matrix product, which reuses what it reads, and the formula in the
    same pass), a column entry ``2 + 0.15 n`` while the inputs (``8 m n`` bytes) take at
    most ``CACHE_MB`` MiB, else ``4 + 0.3 n`` (each matrix-vector product then streams the
    inputs from memory, and waits for it). Their ratio ``rho`` (the whole matrix's cost
    in columns, as a fraction of ``m``) is 0.5 for 50 features, 0.10 for 256 and 0.066
    for 784. The ski-rental rule would switch after the fraction ``rho``: at most twice
    the better of the two strategies, but twice the matrix's cost for every solve that
    needs more columns, and an SVM's solve needs the columns of all its support
    vectors, mostly many (0.27 to 0.99 of ``m`` on twelve of the broad benchmark's cells
    of 2000 and 4000 examples). The switch comes after ``rho / 4``: a quarter more than the
    matrix alone costs, while a solve that needs fewer columns (few support vectors)
    pays for those only; the columns computed before are dropped (:func:`whole_matrix`
    computes them anew, cheaper than copying them into place).

    A one-versus-one pair's columns from its classes' blocks (``kind > PAIR``,
    :func:`_pair_column`) switch to the pair's matrix after ``PAIR_SWITCH`` of them: such a
    column costs 25 to 45 ns per entry on USPS' 256 features (its own class's half copied
    from the class's diagonal block, the other's one matrix-vector product over that
    class's rows), the pair's matrix from the blocks about 7 ns per entry, and the
    columns computed before the switch are lost. The pairs of the broad benchmark's
    ten-class USPS cell (m = 7291) read 0.02 to 0.16 of their columns at C = 100, up to
    0.24 at C = 1; its fit's CPU time with a switch after 0.1, 0.15, 0.2, 0.3 of the
    columns or none was 0.84, 0.74, 0.73, 0.72, 0.73 s at C = 100 and 1.09, 0.92, 0.83,
    0.82, 0.81 s at C = 1 (best of 4, interleaved, one core of the shared machine)."""
    if kind > PAIR:
        return PAIR_SWITCH
    if kind <= ROWS or kind > SPARSE:      # (sparse: columns cost by the non-zeros)
        return None
    if 8.0 * m * n <= CACHE_MB * 2 ** 20:
        column = 2.0 + 0.15 * n
    else:
        column = 4.0 + 0.3 * n
    return min(1.0, (4.0 + 0.015 * n) / column / 4.0)


# exp(x) = 2^k e^r, k = round(x / ln 2), r = x - k ln 2 (Cody & Waite's two-part ln 2),
# e^r by its Taylor polynomial of degree 13 (|r| <= ln 2 / 2: truncation below 1e-17
# relative), 2^k applied as two powers of two (exact, and right into the subnormals).
# Written as plain arithmetic on arrays, the loop vectorises (numba calls libm's exp one
# value at a time); the result is within one unit in the last place of libm's.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0              # 1.5 * 2^52: x + _ROUND - _ROUND rounds x
_C = [1.0 / math.factorial(k) for k in range(14)]
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = _C[2:]


def _exp_parts(v, n, e1, e2):
    """``v[:n] <- e^r`` and ``e1, e2`` the bit patterns of the two powers of two whose
    product with it is ``exp(v)`` (see :func:`_exp`)."""
    for t in range(n):
        x = v[t]
        x = -746.0 if x < -746.0 else x          # exp(-746) rounds to 0
        x = 710.0 if x > 710.0 else x            # exp(710) overflows
        kf = (x * _LOG2E + _ROUND) - _ROUND
        r = (x - kf * _LN2_HI) - kf * _LN2_LO
        p = _C13
        p = p * r + _C12
        p = p * r + _C11
        p = p * r + _C10
        p = p * r + _C9
        p = p * r + _C8
        p = p * r + _C7
        p = p * r + _C6
        p = p * r + _C5
        p = p * r + _C4
        p = p * r + _C3
        p = p * r + _C2
        p = p * r + 1.0
        v[t] = p * r + 1.0
        k = np.int64(kf)
        h = k >> 1
        e1[t] = (h + 1023) << 52
        e2[t] = (k - h + 1023) << 52


def _scale(v, n, f1, f2):
    for t in range(n):
        v[t] = (v[t] * f1[t]) * f2[t]


def _exp(v, n):
    """``v[:n] <- exp(v[:n])`` in place (NaN stays NaN)."""
    e = np.empty(2 * n, dtype=np.int64)
    e1 = e[:n]
    e2 = e[n:]
    _exp_parts(v, n, e1, e2)
    _scale(v, n, e1.view(np.float64), e2.view(np.float64))


def _dots(out, i, rows, n, full, XT):
    """``out[k] = <x_rows[k], x_i>`` for ``k < n`` (``rows`` the identity when ``full``),
    each sum over the features in their order, from 0; ``XT`` holds the inputs by feature.
    Four features per pass over ``out`` (the same additions in the same order as one
    feature per pass: the same numbers bit for bit), so ``out`` is read and written a
    quarter as often: 1.8 to 1.9 times faster on the broad benchmark's twonorm-20 inputs
    (20 features; m = 2000 and 6400, whole columns and a third of the rows, one core,
    measured)."""
    for k in range(n):
        out[k] = 0.0
    nf = XT.shape[0]
    f = 0
    while f + 4 <= nf:
        x0 = XT[f, i]
        x1 = XT[f + 1, i]
        x2 = XT[f + 2, i]
        x3 = XT[f + 3, i]
        r0 = XT[f]
        r1 = XT[f + 1]
        r2 = XT[f + 2]
        r3 = XT[f + 3]
        if full:
            for k in range(n):
                out[k] = (((out[k] + r0[k] * x0) + r1[k] * x1) + r2[k] * x2) + r3[k] * x3
        else:
            for k in range(n):
                j = rows[k]
                out[k] = (((out[k] + r0[j] * x0) + r1[j] * x1) + r2[j] * x2) + r3[j] * x3
        f += 4
    while f < nf:
        xi = XT[f, i]
        row = XT[f]
        if full:
            for k in range(n):
                out[k] += row[k] * xi
        else:
            for k in range(n):
                out[k] += row[rows[k]] * xi
        f += 1


def _rowdot(a, b):
    """``<a, b>`` of two contiguous rows (compiled with reassociation: vectorised)."""
    s = 0.0
    for f in range(a.size):
        s += a[f] * b[f]
    return s


def _row_dots(out, i, rows, n, X):
    """``out[k] = <x_rows[k], x_i>`` for ``k < n``; ``X`` holds the inputs by example."""
    xi = X[i]
    for k in range(n):
        out[k] = _rowdot(X[rows[k]], xi)


def _formula(out, i, rows, n, full, kind, sq, offset, degree):
    """``out[k] <- k(x_rows[k], x_i)`` from the inner products in ``out[:n]`` (``kind``
    without ``ROWS``); False if one is not finite."""
    if kind == RBF_KIND:
        sqi = sq[i]
        for k in range(n):
            d2 = (sq[k] if full else sq[rows[k]]) + (sqi - 2.0 * out[k])
            out[k] = -0.5 * (0.0 if d2 < 0.0 else d2)
        _exp(out, n)
    elif kind == POLY:
        a = np.empty(n)
        for k in range(n):
            a[k] = out[k] + offset
            out[k] = 1.0
        p = degree
        while p:                # (a^degree by squaring, the same steps for every entry)
            if p & 1:
                for k in range(n):
                    out[k] *= a[k]
            p >>= 1
            if p:
                for k in range(n):
                    a[k] *= a[k]
    ok = True
    for k in range(n):
        ok = ok and np.isfinite(out[k])
    return ok


def _sparse_dots(out, i, rows, n, full, X, ind, ptr, work):
    """``out[k] = <x_rows[k], x_i>`` for ``k < n`` (``rows`` the identity when ``full``)
    of inputs in CSR form (values ``X[0]``, column indices ``ind``, row pointers ``ptr``):
    ``x_i`` scattered into ``work`` (zeros of the features' length, zeros again on
    return), then each row's values times the entries of ``work`` at its indices."""
    data = X[0]
    for p in range(ptr[i], ptr[i + 1]):
        work[ind[p]] = data[p]
    for k in range(n):
        j = k if full else rows[k]
        s = 0.0
        for p in range(ptr[j], ptr[j + 1]):
            s += data[p] * work[ind[p]]
        out[k] = s
    for p in range(ptr[i], ptr[i + 1]):
        work[ind[p]] = 0.0


def _entries(out, i, rows, n, full, kind, XT, sq, offset, degree, ind, ptr, work):
    """``out[k] = k(x_rows[k], x_i)``, ``k < n`` (inputs by feature, by example for
    ``kind > ROWS``, in CSR form for ``kind > SPARSE``: in the last two, the rows are
    given, ``full`` is not used); False if one is not finite."""
    if kind > SPARSE:
        _sparse_dots(out, i, rows, n, full, XT, ind, ptr, work)
        return _formula(out, i, rows, n, full, kind - SPARSE, sq, offset, degree)
    if kind > ROWS:
        _row_dots(out, i, rows, n, XT)
        return _formula(out, i, rows, n, False, kind - ROWS, sq, offset, degree)
    _dots(out, i, rows, n, full, XT)
    return _formula(out, i, rows, n, full, kind, sq, offset, degree)


_NO_ROWS = np.zeros(1, dtype=np.int64)


def _pair_column(out, t, kind, X, sq, offset, degree, ind, ptr, work):
    """Column ``t`` of the kernel matrix of a one-versus-one pair (its examples in their
    order in the sample) from its classes' blocks (LKC Definition 2.15: a pair's Gram
    matrix holds entries of the whole sample's), for :func:`_column` (``kind`` without
    ``PAIR``; the arrays of :meth:`kernelclf.multiclass._ClassBlocks.pair_spec`): ``X``,
    ``sq`` the scaled inputs of the whole sample sorted by class and their squared norms;
    ``work`` the classes' diagonal blocks (:func:`kernel_block`), one after the other;
    ``ptr = [start_i, n_i, start_j, n_j, block_i, block_j]`` the two classes' first rows
    in ``X``, their sizes and their blocks' offsets in ``work``; ``ind`` the place of each
    of the pair's examples in its two classes (``rank``, plus ``n_i`` for class ``j``),
    then the pair's positions of the examples of class ``i``, then of class ``j``.

    The entries at the rows of ``t``'s own class are its row of that class's block; those
    at the other class's rows its inner products with them, one BLAS matrix-vector product
    over that class's rows (contiguous in ``X``: about half the memory a product over the
    pair's rows streams, which stays in the cache), then the kernel's formula as
    :func:`pair_matrix` evaluates it (:func:`_formula`, the other class's squared norms
    then ``t``'s): :func:`pair_matrix`'s numbers to round-off (its inner products come
    from a matrix product). False if a value is not finite."""
    n = out.size
    ni = ptr[1]
    q = ind[t]
    if q < ni:                  # t of class i: the other class is j
        a, own, n_own, blk = q, ptr[0], ni, ptr[4]
        other, n_other = ptr[2], ptr[3]
        own_at, other_at = n, n + ni
    else:
        a, own, n_own, blk = q - ni, ptr[2], ptr[3], ptr[5]
        other, n_other = ptr[0], ni
        own_at, other_at = n + ni, n
    base = blk + a * n_own
    for b in range(n_own):
        out[ind[own_at + b]] = work[base + b]
    tmp = np.empty(n_other)
    np.dot(X[other:other + n_other], X[own + a], tmp)
    sq2 = np.empty(n_other + 1)
    for b in range(n_other):
        sq2[b] = sq[other + b]
    sq2[n_other] = sq[own + a]
    ok = _formula(tmp, n_other, _NO_ROWS, n_other, True, kind, sq2, offset, degree)
    for b in range(n_other):
        out[ind[other_at + b]] = tmp[b]
    return ok


def _column(out, i, kind, X, sq, offset, degree, ind, ptr, work):
    """Column ``i`` of the kernel matrix into ``out`` (contiguous, ``m`` entries); False
    if a value is not finite."""
    if kind > PAIR:             # a one-versus-one pair's column from its classes' blocks
        return _pair_column(out, i, kind - PAIR, X, sq, offset, degree, ind, ptr, work)
    if kind > SPARSE:           # sparse dot products over every row
        return _entries(out, i, _NO_ROWS, ptr.size - 1, True, kind, X, sq, offset, degree, ind,
                        ptr, work)
    if kind > ROWS:             # X x_i: one BLAS matrix-vector product
        np.dot(X, X[i], out)
        return _formula(out, i, _NO_ROWS, X.shape[0], True, kind - ROWS, sq, offset,
                        degree)
    return _entries(out, i, _NO_ROWS, X.shape[1], True, kind, X, sq, offset, degree, ind,
                    ptr, work)


def column_at(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work):
    """The entries ``k(x_rows[k], x_i)``, ``k < n``, of column ``i`` into ``out[:n]`` (on
    few features and in CSR form the same numbers as :func:`_column` gives there, on
    many features the same to round-off); False if one is not finite."""
    return _entries(out, i, rows, n, False, kind, X, sq, offset, degree, ind, ptr, work)


def column_on_rows(out, i, rows, n, kind, X, Xr, sq, offset, degree):
    """The entries ``k(x_rows[k], x_i)``, ``k < n``, of column ``i`` into ``out[:n]`` on
    many features (``ROWS < kind < SPARSE``: ``X`` holds the inputs by example), from
    ``Xr``, the rows ``x_rows[k]`` stored contiguously (``Xr[k] = X[rows[k]]`` for ``k <
    n``, and at least ``n + 4`` rows of memory): their inner products with ``x_i`` by one
    BLAS matrix-vector product over the first ``n - n mod 4`` rows, the last ``n mod 4``
    by one over the block of four that ends with them (the rows after ``n`` in ``Xr``
    pad it; those products are dropped). In blocks of four rows the products are summed
    as in the whole column (:func:`_column`) on all its rows but the last ``m mod 4``
    (OpenBLAS's ``dgemv``, which treats a last block of fewer rows apart; measured bit
    for bit on 16000 x 50, 4000 x 784 and 7291 x 256 inputs): the whole column's numbers
    there, to round-off elsewhere. The product streams contiguous memory, where
    :func:`column_at`'s dot products read scattered rows (a third of the time on 4000
    of 16000 rows of 50 features, one core, measured). False if a value is not
    finite."""
    xi = X[i]
    head = n - n % 4
    if head:
        np.dot(Xr[:head], xi, out[:head])
    if head < n:
        tail = np.empty(4)
        np.dot(Xr[head:head + 4], xi, tail)
        for k in range(head, n):
            out[k] = tail[k - head]
    return _formula(out, i, rows, n, False, kind - ROWS, sq, offset, degree)


def _lower_formula(K, kind, sq, offset, degree):
    """``K[i, k] <- k(x_k, x_i)`` from the inner products in the lower triangle of ``K``
    (``k <= i``; ``kind`` without ``ROWS``): in blocks of 32 rows, the formula on each
    row's first ``i + 1`` entries (:func:`_formula`, the columns' formula), then the
    block's columns of the upper triangle copied from those rows while they are in the
    cache (the matrix exactly symmetric); False if a value is not finite."""
    m = K.shape[0]
    ok = True
    for i0 in range(0, m, 32):
        i1 = min(i0 + 32, m)
        for i in range(i0, i1):
            if not _formula(K[i], i, _NO_ROWS, i + 1, True, kind, sq, offset, degree):
                ok = False
        for k in range(i1 - 1):
            out = K[k]
            for i in range(max(i0, k + 1), i1):
                out[i] = K[i, k]
    return ok


def _inner_products(X):
    """The lower triangle of ``X X'`` (C order; the upper one is not set) by one BLAS
    ``dsyrk`` (SciPy's: the upper triangle of the Fortran-ordered product, read through
    its transpose), without NumPy's second pass that copies the other triangle; NumPy's
    product ``X @ X.T`` for inputs other than a C-ordered float array."""
    if X.dtype == np.float64 and X.flags.c_contiguous and X.shape[0]:
        from scipy.linalg.blas import dsyrk

        return dsyrk(1.0, X.T, trans=1, lower=0).T
    return X @ X.T


def whole_matrix(spec):
    """The whole kernel matrix from :func:`column_spec`'s arrays on many features
    (``kind > ROWS``, dense rows): the inner products ``X X'`` in one BLAS call (``dsyrk``:
    half the operations of a general product, one triangle, :func:`_inner_products`),
    then the kernel's formula on that triangle row by row, in place, and the other
    triangle copied from it (:func:`_lower_formula`; :func:`_formula`, as the compiled
    columns: the same numbers to round-off, not bit for bit; no pass of NumPy's over the
    matrix for the norms, the clipping, the exponential or the finite check). ``None``
    when a value is not finite (the caller then raises the package's error through the
    Gram's checked path)."""
    kind, X, sq, offset, degree = spec[:5]
    K = _inner_products(X)
    return K if _lower_formula(K, kind - ROWS, sq, offset, degree) else None


def _block_formula(K, kind, sq2, offset, degree):
    """``K[a, b] <- k(x_b, x_a)`` from the inner products in ``K`` (``r x c``), row by row
    with :func:`_formula` and the squared norms ``sq2``: the columns' ``c`` then the
    rows' ``r`` (row ``a`` is :func:`_formula`'s ``i = c + a``); False if a value is not
    finite."""
    ok = True
    c = K.shape[1]
    for a in range(K.shape[0]):
        if not _formula(K[a], c + a, _NO_ROWS, c, True, kind, sq2, offset, degree):
            ok = False
    return ok


def kernel_block(spec, rows, out=None):
    """The diagonal block ``k(x_a, x_b)``, ``a, b`` in a group of examples, of the kernel
    matrix of :func:`column_spec`'s arrays on many features (``kind > ROWS``, dense rows):
    the inner products by one BLAS product (NumPy's ``Xr @ Xr.T``, ``dsyrk``), then
    :func:`whole_matrix`'s formula, the same operations per entry (the block's row of
    ``x_a`` is that matrix's row of ``x_a`` below the diagonal; above it, that matrix
    holds its lower triangle's numbers). ``rows``: ``(X_rows, sq_rows)``, a contiguous
    copy of the group's rows of ``X`` and their squared norms. ``None`` when a value is not
    finite.

    The entries equal :func:`whole_matrix`'s on a sample holding the group to round-off,
    not bit for bit: OpenBLAS sums the inner products of a product's last rows and
    columns (beyond its kernel's blocks of 4 x 8) in another order, so an entry can
    differ in its last bits with the place of its two examples in the product (measured:
    up to 2e-15 on USPS' unit-norm rows). ``out``: a C-contiguous square array the block
    is written into (the same product, into that memory)."""
    kind, _, _, offset, degree = spec[:5]
    Xr, sqr = rows
    K = Xr @ Xr.T if out is None else np.dot(Xr, Xr.T, out=out)
    return K if _block_formula(K, kind - ROWS, np.concatenate([sqr, sqr]), offset,
                               degree) else None


def _assemble_pair(K, rank, in_j, Kii, Kjj, P, sq_ji, sq_ij, kind, offset, degree):
    """``K`` (the pair's matrix, its examples in their order) row by row: the row of an
    example of class ``i`` (its place ``rank`` in the class) is its row of ``Kii`` and the
    formula of its row of the inner products ``P`` (``n_i x n_j``); an example of class
    ``j`` gets the formula of its column of ``P`` and its row of ``Kjj`` (:func:`_formula`
    on each, as :func:`kernel_block`: ``sq_ji``, ``sq_ij`` the squared norms of class
    ``j`` then ``i`` and of ``i`` then ``j``); each row assembled in the classes' order,
    then put into the pair's. False if a value is not finite."""
    n = K.shape[0]
    ni, nj = Kii.shape[0], Kjj.shape[0]
    q = np.empty(n, dtype=np.int64)
    for c in range(n):
        q[c] = rank[c] + (ni if in_j[c] else 0)
    tmp = np.empty(n)
    ok = True
    for r in range(n):
        a = rank[r]
        if in_j[r]:
            for b in range(ni):
                tmp[b] = P[b, a]
            if not _formula(tmp, ni + a, _NO_ROWS, ni, True, kind, sq_ij, offset, degree):
                ok = False
            row = Kjj[a]
            for b in range(nj):
                tmp[ni + b] = row[b]
        else:
            row = Kii[a]
            for b in range(ni):
                tmp[b] = row[b]
            seg = tmp[ni:]
            prow = P[a]
            for b in range(nj):
                seg[b] = prow[b]
            if not _formula(seg, nj + a, _NO_ROWS, nj, True, kind, sq_ji, offset, degree):
                ok = False
        out = K[r]
        for c in range(n):
            out[c] = tmp[q[c]]
    return ok


def pair_matrix(spec, rows_i, rows_j, Kii, Kjj, in_j):
    """The kernel matrix of the examples of two groups ``i`` and ``j`` in their order
    (``in_j``: which are of ``j``) from the groups' diagonal blocks (:func:`kernel_block`)
    and one BLAS product for the inner products between the groups, whose formula is
    evaluated in the same pass that puts each row in place (:func:`_assemble_pair`: the
    numbers of :func:`kernel_block`'s formula). ``rows_i``, ``rows_j``: as
    :func:`kernel_block`'s ``rows``. ``None`` when a value is not finite."""
    kind, _, _, offset, degree = spec[:5]
    (Xi, sqi), (Xj, sqj) = rows_i, rows_j
    P = Xi @ Xj.T
    in_j = np.ascontiguousarray(in_j, dtype=np.bool_)
    rank = np.empty(in_j.size, dtype=np.int64)
    rank[~in_j] = np.arange(Xi.shape[0])
    rank[in_j] = np.arange(Xj.shape[0])
    K = np.empty((in_j.size, in_j.size))
    ok = _assemble_pair(K, rank, in_j, Kii, Kjj, P, np.concatenate([sqj, sqi]),
                        np.concatenate([sqi, sqj]), kind - ROWS, offset, degree)
    return K if ok else None


def column_into(out, i, kind, X, sq, offset, degree, ind, ptr, work):
    """:func:`_column` into ``out`` of any float type: a single-precision store (the
    columns of a budget that cannot hold them all, as libsvm's ``Qfloat``) gets the
    values computed in double precision, rounded once when stored."""
    if out.dtype == np.float64:
        return _column(out, i, kind, X, sq, offset, degree, ind, ptr, work)
    tmp = np.empty(out.size)
    ok = _column(tmp, i, kind, X, sq, offset, degree, ind, ptr, work)
    out[:] = tmp
    return ok


def column_at_into(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work):
    """:func:`column_at` into ``out`` of any float type (as :func:`column_into`)."""
    if out.dtype == np.float64:
        return column_at(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work)
    tmp = np.empty(n)
    ok = column_at(tmp, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work)
    out[:n] = tmp
    return ok


def column_on_rows_into(out, i, rows, n, kind, X, Xr, sq, offset, degree):
    """:func:`column_on_rows` into ``out`` of any float type (as :func:`column_into`)."""
    if out.dtype == np.float64:
        return column_on_rows(out, i, rows, n, kind, X, Xr, sq, offset, degree)
    tmp = np.empty(n)
    ok = column_on_rows(tmp, i, rows, n, kind, X, Xr, sq, offset, degree)
    out[:n] = tmp
    return ok


def _column_into_typed(out, i, kind, X, sq, offset, degree, ind, ptr, work):
    """numba's version of :func:`column_into`, chosen by the type of ``out`` when the
    caller is compiled (the double-precision one is the plain call)."""
    if out.dtype == _nb_types.float64:
        def impl(out, i, kind, X, sq, offset, degree, ind, ptr, work):
            return _column(out, i, kind, X, sq, offset, degree, ind, ptr, work)
    else:
        def impl(out, i, kind, X, sq, offset, degree, ind, ptr, work):
            tmp = np.empty(out.size)
            ok = _column(tmp, i, kind, X, sq, offset, degree, ind, ptr, work)
            for k in range(out.size):
                out[k] = tmp[k]
            return ok
    return impl


def _column_at_into_typed(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work):
    """numba's version of :func:`column_at_into` (as :func:`_column_into_typed`)."""
    if out.dtype == _nb_types.float64:
        def impl(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work):
            return column_at(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work)
    else:
        def impl(out, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work):
            tmp = np.empty(n)
            ok = column_at(tmp, i, rows, n, kind, X, sq, offset, degree, ind, ptr, work)
            for k in range(n):
                out[k] = tmp[k]
            return ok
    return impl


def _column_on_rows_into_typed(out, i, rows, n, kind, X, Xr, sq, offset, degree):
    """numba's version of :func:`column_on_rows_into` (as :func:`_column_into_typed`)."""
    if out.dtype == _nb_types.float64:
        def impl(out, i, rows, n, kind, X, Xr, sq, offset, degree):
            return column_on_rows(out, i, rows, n, kind, X, Xr, sq, offset, degree)
    else:
        def impl(out, i, rows, n, kind, X, Xr, sq, offset, degree):
            tmp = np.empty(n)
            ok = column_on_rows(tmp, i, rows, n, kind, X, Xr, sq, offset, degree)
            for k in range(n):
                out[k] = tmp[k]
            return ok
    return impl


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


def fill_slot(i, data, slot, owner, stamp, clock, ust, kind, X, sq, offset, degree, ind, ptr,
              work):
    """Compute column ``i`` into a slot of ``data`` (``ust = [used, filled]``); returns the
    slot, or -1 when the column has a value that is not finite (Python then fills it
    through the Gram's checked columns, which raise the package's error)."""
    capacity = stamp.size
    used = ust[0]
    s = take_slot(slot, owner, stamp, used, capacity)
    if used < capacity:
        ust[0] = used + 1
    if not column_into(data[s], i, kind, X, sq, offset, degree, ind, ptr, work):
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


def _rbf_exponents(G, sq):
    """``G`` holds the inner products ``<x_i, x_j>`` of the scaled inputs, ``sq`` their
    squared norms: writes ``-max(d_ij, 0) / 2`` with ``d_ij = (-2 <x_i, x_j> + sq_i) +
    sq_j``, ``-0`` on the diagonal, in place, in one pass (the operations, in their order,
    of ``kernelclf.kernels.vector.squared_distances`` and :meth:`RBF._gram
    <kernelclf.kernels.vector.RBF>`, which make six passes)."""
    m = G.shape[0]
    for i in range(m):
        row = G[i]
        sqi = sq[i]
        for j in range(m):
            v = (row[j] * -2.0 + sqi) + sq[j]
            row[j] = (0.0 if v < 0.0 else v) * -0.5
        row[i] = -0.0


def whole_rbf_matrix(kernel, X):
    """The RBF kernel's matrix of ``X`` with itself, or None (no numba, another kernel, a
    width per feature, inputs other than a float array, squared norms above ``1e300``).

    The numbers of the kernel's own matrix bit for bit (:meth:`RBF._gram
    <kernelclf.kernels.vector.RBF>`: the inputs divided by the width, their inner products
    by one matrix product, ``exp(-||x_i - x_j||^2 / 2)`` with the squared distances of
    ``kernelclf.kernels.vector.squared_distances``), in three passes over the ``m x m``
    matrix instead of eight: the product, one compiled pass for the exponents
    (:func:`_rbf_exponents`), NumPy's exponential in place. With squared norms up to
    ``1e300`` every exponent is finite and at most 0, so every entry lies in ``[0, 1]``
    and the diagonal's are 1 (the kernel guard's range check needs no pass over the
    matrix: :func:`kernelclf.kernels.gram_guard.check_gram`'s ``bounds``). For the
    one-versus-one machines that read one kernel matrix of the whole sample
    (:mod:`kernelclf.multiclass`)."""
    if (not HAVE_NUMBA or type(kernel) is not RBF or not isinstance(X, np.ndarray)
            or X.ndim != 2 or X.dtype != np.float64 or X.shape[0] == 0):
        return None
    w = kernel._width()
    if not isinstance(w, float) or getattr(w, "ndim", 0):
        return None
    Xs = X / kernel._sigma_for(X)
    sq = np.einsum("ij,ij->i", Xs, Xs)
    if not np.all(sq <= 1e300):         # (overflow, NaN: the kernel's own path and message)
        return None
    G = np.asarray(Xs @ Xs.T)
    _rbf_exponents(G, sq)
    return np.exp(G, out=G)



def _poly_entries(G, gamma, scaled, offset, degree):
    """``G`` holds ``<x_i, x_j>``: writes ``(gamma <x_i, x_j> + offset) ** degree`` in place
    with the operations, in their order, of :meth:`Polynomial._gram
    <kernelclf.kernels.vector.Polynomial>` (the product by ``gamma`` when it is not 1, the
    offset, ``kernelclf.kernels.vector._int_power``'s squarings) in one pass instead of
    four; returns the smallest and the largest entry and whether all are finite."""
    lo = np.inf
    hi = -np.inf
    finite = True
    m, n = G.shape
    for i in range(m):
        row = G[i]
        for j in range(n):
            a = row[j]
            if scaled:
                a = a * gamma
            a = a + offset
            p = degree
            if p == 1:
                r = a
            else:
                r = 0.0
                have = False
                while True:
                    if p & 1:
                        r = r * a if have else a
                        have = True
                    p >>= 1
                    if p == 0:
                        break
                    a = a * a
            row[j] = r
            if not np.isfinite(r):
                finite = False
            if r < lo:
                lo = r
            if r > hi:
                hi = r
    return lo, hi, finite


def _whole_polynomial_matrix(kernel, X):
    """The polynomial kernel's matrix of ``X`` with itself and its bounds ``(lo, hi)`` (the
    smallest and the largest entry; None when one is not finite: the guard's finite
    check then finds it and says so), or ``(None, None)`` (no numba, another kernel,
    inputs other than a finite float array).

    The numbers of the kernel's own matrix bit for bit (the same product ``X X'``, then
    :func:`_poly_entries`: the kernel's operations in one compiled pass instead of four),
    without the kernel's second input check; the bounds spare the guard's range check
    its two passes (:func:`kernelclf.kernels.gram_guard.check_gram`'s ``bounds``)."""
    if (not HAVE_NUMBA or type(kernel) is not Polynomial or type(X) is not np.ndarray
            or X.ndim != 2 or X.dtype != np.float64 or X.size == 0
            or not np.isfinite(X).all()):
        return None, None
    gamma = kernel._gamma_for(X)
    degree = int(kernel.degree)
    G = np.asarray(X @ X.T)                     # (kernelclf.kernels.rows.inner_products)
    lo, hi, finite = _poly_entries(G, float(gamma), gamma != 1.0, float(kernel.offset), degree)
    return G, ((float(lo), float(hi)) if finite else None)


if HAVE_NUMBA:
    _o = dict(cache=True, nogil=True, boundscheck=False)
    _rbf_exponents = _njit(**_o)(_rbf_exponents)
    _poly_entries = _njit(**_o)(_poly_entries)
    _exp_parts = _njit(**_o)(_exp_parts)
    _scale = _njit(**_o)(_scale)
    _exp = _njit(**_o)(_exp)
    _dots = _njit(**_o)(_dots)
    _rowdot = _njit(cache=True, nogil=True, boundscheck=False,
                    fastmath={"reassoc", "contract"})(_rowdot)
    _row_dots = _njit(**_o)(_row_dots)
    _sparse_dots = _njit(**_o)(_sparse_dots)
    _formula = _njit(**_o)(_formula)
    _entries = _njit(**_o)(_entries)
    _lower_formula = _njit(**_o)(_lower_formula)
    _block_formula = _njit(**_o)(_block_formula)
    _assemble_pair = _njit(**_o)(_assemble_pair)
    _pair_column = _njit(**_o)(_pair_column)
    _column = _njit(cache=True, nogil=True, inline="always")(_column)
    column_at = _njit(cache=True, nogil=True, inline="always")(column_at)
    column_on_rows = _njit(cache=True, nogil=True)(column_on_rows)
    take_slot = _njit(cache=True, nogil=True, inline="always")(take_slot)
    from numba import types as _nb_types
    from numba.extending import overload as _overload
    _overload(column_into, inline="always")(_column_into_typed)
    _overload(column_at_into, inline="always")(_column_at_into_typed)
    _overload(column_on_rows_into, inline="always")(_column_on_rows_into_typed)
    fill_slot = _njit(cache=True, nogil=True)(fill_slot)
