"""Rows of training inputs, for arrays and lists of strings alike.

Book chapter 02 (``book/02_kernels.md``). The one place where the package indexes
training inputs, so that kernels, Gram matrices and estimators work the same on float
arrays and on lists of strings (chapter 02b).
"""
from __future__ import annotations

import numpy as np

__all__ = ["n_rows", "take_rows"]


def n_rows(X):
    """Number of examples in an array or a list of strings."""
    return X.shape[0] if isinstance(X, np.ndarray) else len(X)


def take_rows(X, idx):
    """Rows ``idx`` (an int, a slice, an index array or a mask) of an array or a list.

    The one place where the package indexes training inputs, so that estimators
    work the same on float arrays and on lists of strings. An int gives a
    one-row block (``X[i:i+1]`` or ``[X[i]]``).
    """
    if isinstance(X, np.ndarray):
        if isinstance(idx, (int, np.integer)):
            return X[idx:idx + 1] if idx != -1 else X[-1:]
        return X[idx]
    if isinstance(idx, (int, np.integer)):
        return [X[idx]]
    if isinstance(idx, slice):
        return list(X[idx])
    idx = np.asarray(idx)
    if idx.dtype == bool:
        idx = np.flatnonzero(idx)
    return [X[int(i)] for i in idx]
