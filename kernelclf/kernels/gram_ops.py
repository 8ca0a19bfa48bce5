"""Book chapter 02 (``book/02_kernels.md``): operations on a Gram matrix (PSD test, centring, ...).

LKC Definition 2.15 (the Gram matrix ``G_ij = k(x_i, x_j)``) and Proposition 2.18 (a
symmetric function is a kernel iff all its Gram matrices are positive semi-definite):
:func:`min_eigenvalue` and :func:`is_psd` test that numerically; :func:`center_gram`
centres in feature space (as kernel PCA does), :func:`normalize_gram` scales to unit
diagonal (LKC eq. 2.22), :func:`add_diagonal` adds the ridge ``lam * I`` and
:func:`feature_space_distances` gives the distances ``||phi(x) - phi(x')||`` (LKC eq. 1.2).

These take a matrix already computed; lazy access to the Gram matrix of a training set
(columns on demand, caches, the numerical guard) is :class:`kernelclf.kernels.gram.Gram`.
"""
from __future__ import annotations

import numpy as np

from .closure import _check_positive, _scale_by_diagonals, squared_feature_distances
from .vector import as_kernel

__all__ = ["is_psd", "min_eigenvalue", "center_gram", "normalize_gram", "add_diagonal",
           "feature_space_distances"]


def _check_square(K):
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"a Gram matrix must be square, got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError("a Gram matrix must be non-empty")
    if not np.all(np.isfinite(K)):
        raise ValueError("the Gram matrix contains NaN or infinity")
    return K


def min_eigenvalue(K):
    """Smallest eigenvalue of the symmetric part of ``K``."""
    K = _check_square(K)
    return float(np.linalg.eigvalsh(0.5 * (K + K.T))[0])


def is_psd(K, tol=1e-10):
    """True when ``K`` is symmetric and its smallest eigenvalue is >= ``-tol * max(1, |K|)``
    (LKC Proposition 2.18: a symmetric function is a kernel iff every Gram matrix is PSD)."""
    K = _check_square(K)
    scale = max(1.0, float(np.abs(K).max())) if K.size else 1.0
    if not np.allclose(K, K.T, atol=tol * scale, rtol=0):
        return False
    return min_eigenvalue(K) >= -tol * scale


def center_gram(K, K_test=None):
    """Centre a Gram matrix in feature space: ``H K H`` with ``H = I - 11'/m``.

    With ``K_test`` (shape ``(n, m)``, test rows against the training points)
    the test rows are centred with the training mean, as kernel PCA does.
    """
    K = _check_square(K)
    m = K.shape[0]
    col = K.mean(axis=0)
    tot = col.mean()
    Kc = K - col[None, :] - col[:, None] + tot
    if K_test is None:
        return Kc
    K_test = np.asarray(K_test, dtype=float)
    if K_test.ndim != 2 or K_test.shape[1] != m:
        raise ValueError(f"K_test must have shape (n, {m}), got {K_test.shape}")
    return K_test - col[None, :] - K_test.mean(axis=1)[:, None] + tot


def normalize_gram(K):
    """Normalise a square Gram matrix to unit diagonal (LKC eq. 2.22)."""
    K = _check_square(K)
    d = np.diag(K).copy()
    return _scale_by_diagonals(K, d, d)


def add_diagonal(K, lam):
    """Return ``K + lam * I``: the ridge used by the quadratic soft margin (LKC
    eq. 2.50), GP noise (eq. 3.15) and soft-boundary Bayes points (BPM §3.3)."""
    K = _check_square(K)
    _check_positive(lam, "lam", strict=False)
    return K + lam * np.eye(K.shape[0])


def feature_space_distances(kernel, X, Y=None, squared=False):
    """Distances in feature space, ``||phi(x) - phi(x')||`` (LKC eq. 1.2).

    ``||phi(x) - phi(x')||^2 = k(x,x) - 2k(x,x') + k(x',x')``: the matrix of distances
    between the rows of ``X`` and those of ``Y`` (default ``X``), or of their squares with
    ``squared=True``. Works with any kernel object; negative round-off is clipped to zero.
    """
    d2 = squared_feature_distances(as_kernel(kernel), X, Y)
    return d2 if squared else np.sqrt(d2)
