"""One epoch of the kernel perceptron with cached outputs, compiled and NumPy.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); LKC Algorithm 3 (App. D.1),
the dual perceptron. :func:`kernelclf.bayespoint.versionspace.find_version_space_point` runs
epochs of it, each on a fresh random permutation drawn by the caller, to find a starting
point of the kernel billiard inside version space.

An epoch visits the examples in the order ``perm``; example ``i`` is a mistake when
``y_i (G gamma)_i <= 0``, and then ``gamma_i += y_i`` and the outputs ``G gamma`` gain
``y_i`` times column ``i`` of ``G + ridge I`` (one column per mistake). Two twins do exactly
this, with the same floating-point operations in the same order, so they return the same
bits as each other and as the plain Python loop they replace:

* :func:`_epoch` - numba-compiled, on the stored matrix (the rows of a symmetric ``G`` are
  its columns, as :meth:`kernelclf.kernels.gram.Gram.column` reads them);
* :func:`_epoch_np` - NumPy, with any ``column(i)``: it does not test the examples one by one
  in Python but finds the next mistake of the order with one vector comparison, since the
  outputs change only at a mistake (Python work per mistake, not per example).
"""
from __future__ import annotations

import numpy as np

try:  # without numba (Pyodide) the NumPy twin runs
    from .._jit import njit as _njit

    def _jit(f):  # no fastmath: the twins must agree to the bit
        return _njit(cache=True, nogil=True, error_model="numpy")(f)
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency; Pyodide has none
    def _jit(f):
        return f
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "perceptron_epoch", "epoch_runner"]


@_jit
def _epoch(G, ridge, y, perm, gamma, out):
    """One epoch in place on the stored matrix ``G`` (plus ``ridge`` on the diagonal);
    returns the number of mistakes."""
    m = y.shape[0]
    mistakes = 0
    for k in range(perm.shape[0]):
        i = perm[k]
        if y[i] * out[i] <= 0.0:
            yi = y[i]
            gamma[i] += yi
            for j in range(m):
                g = G[i, j]
                if j == i:
                    g += ridge
                out[j] += yi * g
            mistakes += 1
    return mistakes


def _epoch_np(column, y, perm, gamma, out):
    """NumPy twin of :func:`_epoch`: ``column(i)`` gives column ``i`` (ridge included)."""
    mistakes = 0
    k, n = 0, perm.shape[0]
    while k < n:
        rest = perm[k:]
        wrong = y[rest] * out[rest] <= 0.0
        j = int(np.argmax(wrong))
        if not wrong[j]:
            break
        i = int(rest[j])
        yi = y[i]
        gamma[i] += yi
        out += yi * np.asarray(column(i), dtype=float)
        mistakes += 1
        k += j + 1
    return mistakes


def epoch_runner(G, y):
    """``run(perm, gamma, out)``: :func:`perceptron_epoch` on ``G, y`` with the choice of twin
    and the matrix looked up once (for a loop of epochs; same results, same counts)."""
    if isinstance(G, np.ndarray):
        stored, ridge, gram = G.T, 0.0, None
    else:
        stored = G.stored() if hasattr(G, "stored") else None
        ridge, gram = getattr(G, "ridge", 0.0), G
    if HAVE_NUMBA and stored is not None and stored.dtype == np.float64:
        ridge = float(ridge)

        def run(perm, gamma, out):
            k = _epoch(stored, ridge, y, np.asarray(perm, dtype=np.int64), gamma, out)
            if gram is not None:
                gram.n_evaluations += k * gram.m
            return k
        return run
    return lambda perm, gamma, out: perceptron_epoch(G, y, perm, gamma, out)


def perceptron_epoch(G, y, perm, gamma, out):
    """Run one perceptron epoch over ``perm`` in place; returns the number of mistakes.

    ``G`` is an ``(m, m)`` array (its columns are read) or a
    :class:`~kernelclf.kernels.gram.Gram` (its ridge included; one column, ``m`` kernel
    evaluations, counted per mistake). The compiled twin runs when numba is present and
    the matrix is stored, the NumPy twin otherwise; both give the same result."""
    if isinstance(G, np.ndarray):
        stored, ridge, gram = G.T, 0.0, None      # row i of G.T is column i of G
    else:
        stored = G.stored() if hasattr(G, "stored") else None
        ridge, gram = getattr(G, "ridge", 0.0), G
    if HAVE_NUMBA and stored is not None and stored.dtype == np.float64:
        k = _epoch(stored, float(ridge), y, np.asarray(perm, dtype=np.int64), gamma, out)
        if gram is not None:
            gram.n_evaluations += k * G.m
        return k
    column = G.column if gram is not None else (lambda i: G[:, i])
    return _epoch_np(column, y, np.asarray(perm), gamma, out)
