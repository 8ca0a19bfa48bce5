"""Rows of training inputs, for arrays and lists of strings alike.

Book chapter 02 (``book/02_kernels.md``). The one place where the package indexes
training inputs, so that kernels, Gram matrices and estimators work the same on float
arrays and on lists of strings (chapter 02b).
"""
from __future__ import annotations

import numpy as np

__all__ = ["n_rows", "take_rows", "check_strings"]


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
