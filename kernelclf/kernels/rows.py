"""Rows of training inputs, for arrays, sparse matrices and lists of strings alike.

Book chapter 02 (``book/02_kernels.md``). The one place where the package indexes
training inputs, so that kernels, Gram matrices and estimators work the same on float
arrays, on scipy.sparse matrices (CSR, as scikit-learn's ``SVC`` takes them) and on lists
of strings (chapter 02b); with the two products the linear, polynomial and RBF kernels
need on sparse rows (:func:`inner_products`, :func:`squared_norms`).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["n_rows", "take_rows", "check_strings", "is_sparse", "inner_products",
           "squared_norms"]


def is_sparse(X):
    """Whether ``X`` is a scipy.sparse matrix or array."""
    return sp.issparse(X)


def n_rows(X):
    """Number of examples in an array, a sparse matrix or a list of strings."""
    return X.shape[0] if isinstance(X, np.ndarray) or sp.issparse(X) else len(X)


def inner_products(X, Y):
    """``X Y'`` as a dense array, for dense or sparse rows (sparse products stay sparse
    until the result, so a pair of short documents costs their common words only)."""
    out = X @ Y.T
    return out.toarray() if sp.issparse(out) else np.asarray(out)


def squared_norms(X):
    """``||x_i||^2`` for every row, dense or sparse."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=float).ravel()
    return np.einsum("ij,ij->i", X, X)


def take_rows(X, idx):
    """Rows ``idx`` (an int, a slice, an index array or a mask) of an array, a sparse
    matrix or a list.

    The one place where the package indexes training inputs, so that estimators
    work the same on float arrays, sparse matrices and lists of strings. An int gives a
    one-row block (``X[i:i+1]`` or ``[X[i]]``).
    """
    if isinstance(X, np.ndarray) or sp.issparse(X):
        if isinstance(idx, (int, np.integer)):
            return X[idx:idx + 1] if idx != -1 else X[-1:]
        if sp.issparse(X) and isinstance(idx, np.ndarray) and idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return X[idx]
    if isinstance(idx, (int, np.integer)):
        return [X[idx]]
    if isinstance(idx, slice):
        return list(X[idx])
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    return [X[int(i)] for i in idx]


def check_strings(X, name="X"):
    """Return ``X`` as a list of ``str``; raise ``TypeError`` for anything else.

    A single string is rejected (it is ambiguous: one document or a list of
    characters?), as are numbers, ``None`` and byte strings.
    """
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of strings, not a single string; "
                        f"wrap it in a list: [{X!r}]")
    if isinstance(X, np.ndarray) and X.ndim != 1:
        raise TypeError(f"{name} must be a 1-D sequence of strings, got an array of shape "
                        f"{X.shape}")
    try:
        items = list(X)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, got {type(X).__name__}") from None
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise TypeError(f"{name}[{i}] is {type(s).__name__} ({s!r:.40}); string kernels "
                            "need every element to be a str")
    return [str(s) for s in items]
