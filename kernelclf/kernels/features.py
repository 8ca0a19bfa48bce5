"""Explicit feature maps: the other side of the kernel trick.

Book chapter 02 (``book/02_kernels.md``); LKC §2.3, Example 2.13
(eq. 2.15-2.16), Example 2.16 (finite-input Mercer construction) and
Example 2.22 (explicit polynomial features).

These functions build the feature vectors phi(x) whose inner products a
kernel computes implicitly.  They exist to *check* kernels and to show what
the kernel saves: the explicit polynomial map has C(N+p-1, p) coordinates,
while the kernel ``(<u, v> + c) ** p`` costs O(N + p) operations.
"""
from __future__ import annotations

import itertools
import math
import numbers
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_array

__all__ = [
    "feature_dimension", "exponent_vectors", "polynomial_features",
    "quadratic_feature_map", "quadratic_decision_curve",
    "MercerFeatures", "mercer_features",
]

#: refuse to build explicit maps larger than this many coordinates
MAX_DIMENSION = 2_000_000


def _check_degree(degree):
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    return int(degree)


def _check_offset(offset):
    if (isinstance(offset, bool) or not isinstance(offset, numbers.Real)
            or not np.isfinite(offset) or offset < 0):
        raise ValueError(f"offset must be a finite real number >= 0, got {offset!r}")
    return float(offset)


def feature_dimension(n_features, degree, complete=False):
    """Number of distinct monomial features of the polynomial kernel.

    LKC Table 2.1 and Example 2.22: the p-th degree kernel ``<u, v> ** p`` on
    ``R^N`` has ``C(N + p - 1, p)`` features (the number of exponent vectors
    ``r`` with ``r_1 + ... + r_N = p``); the complete kernel
    ``(<u, v> + c) ** p`` is the p-th degree kernel on ``R^(N+1)`` and has
    ``C(N + p, p)``.

    Parameters
    ----------
    n_features : int >= 1
        Input dimension N.
    degree : int >= 1
        Polynomial degree p.
    complete : bool
        Count the complete polynomial kernel's features.

    Returns
    -------
    int
    """
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) \
            or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
    p = _check_degree(degree)
    n = int(n_features) + (1 if complete else 0)
    return math.comb(n + p - 1, p)


def _index_vectors(n_features, degree):
    """Sorted index vectors ``i_1 <= ... <= i_p``: one per distinct monomial."""
    dim = feature_dimension(n_features, degree)
    if dim > MAX_DIMENSION:
        raise ValueError(f"the explicit map would have {dim} coordinates (> {MAX_DIMENSION}); "
                         "use the kernel instead")
    return np.array(list(itertools.combinations_with_replacement(range(n_features), degree)),
                    dtype=np.intp).reshape(dim, degree)


def exponent_vectors(n_features, degree):
    """All exponent vectors ``r`` in ``{0..p}^N`` with ``sum(r) = p`` (LKC Ex. 2.22).

    Returns
    -------
    ndarray of shape (C(N+p-1, p), N), integer
        One row per monomial ``u_1^r_1 ... u_N^r_N``, in lexicographic order
        of the sorted index vectors ``i_1 <= ... <= i_p``.
    """
    combos = _index_vectors(n_features, degree)
    R = np.zeros((len(combos), n_features), dtype=np.int64)
    for j in range(combos.shape[1]):
        np.add.at(R, (np.arange(len(combos)), combos[:, j]), 1)
    return R


def polynomial_features(X, degree, offset=0.0, complete=None):
    """Explicit feature map of the polynomial kernel (LKC Example 2.22).

    Coordinate ``r`` (an exponent vector with ``r_1 + ... + r_N = p``) is

    ``phi_r(u) = sqrt(p! / (r_1! ... r_N!)) * u_1^r_1 * ... * u_N^r_N``,

    so that ``<phi(u), phi(v)> = <u, v> ** p``.  The complete polynomial
    kernel ``(<u, v> + c) ** p`` is the p-th degree kernel on the augmented
    vector ``(u, sqrt(c))``, which gives ``C(N + p, p)`` coordinates.

    Parameters
    ----------
    X : array-like of shape (n_samples, N)
    degree : int >= 1
        The degree p.
    offset : float >= 0
        The constant c of the complete polynomial kernel.
    complete : bool or None
        Append the coordinate ``sqrt(offset)`` (complete kernel).  The
        default ``None`` means ``offset > 0``.

    Returns
    -------
    ndarray of shape (n_samples, feature_dimension(N, p, complete))
        The rows ``phi(x_i)``; ``Phi @ Phi.T`` equals
        ``kernelclf.kernels.vector.Polynomial(degree, offset)(X)``.
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True)
    p = _check_degree(degree)
    c = _check_offset(offset)
    if complete is None:
        complete = c > 0
    elif not complete and c > 0:
        raise ValueError("offset > 0 needs complete=True (the kernel is then the complete "
                         "polynomial kernel)")
    if complete:
        X = np.hstack([X, np.full((X.shape[0], 1), math.sqrt(c))])
    n_features = X.shape[1]
    combos = _index_vectors(n_features, p)
    R = exponent_vectors(n_features, p)
    # multinomial coefficient p! / (r_1! ... r_N!), in logs to avoid overflow
    lgamma = np.vectorize(math.lgamma, otypes=[float])
    coef = np.sqrt(np.exp(math.lgamma(p + 1) - lgamma(R + 1.0).sum(axis=1)))
    mono = np.ones((X.shape[0], len(combos)))
    for j in range(p):
        mono *= X[:, combos[:, j]]
    return mono * coef[None, :]


def quadratic_feature_map(X):
    """The map of LKC Example 2.13, eq. (2.15): ``phi(x) = (x_1, x_2^2, x_1 x_2)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)

    Returns
    -------
    ndarray of shape (n_samples, 3)
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True)
    if X.shape[1] != 2:
        raise ValueError(f"the map of LKC eq. 2.15 needs 2 input features, got {X.shape[1]}")
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([x1, x2 ** 2, x1 * x2])


def quadratic_decision_curve(x1, w):
    """Decision curve in input space of the linear classifier ``<w, phi(x)>`` (LKC eq. 2.16).

    Solves ``w_1 x_1 + w_2 x_2^2 + w_3 x_1 x_2 = 0`` for ``x_2``:

    ``x_2 = -w_3 x_1 / (2 w_2) +- sqrt(x_1 (w_3^2 x_1 - 4 w_1 w_2)) / (2 w_2)``.

    Parameters
    ----------
    x1 : array-like
        Values of the first input coordinate.
    w : array-like of length 3, with ``w[1] != 0``
        Weight vector in feature space.

    Returns
    -------
    (x2_plus, x2_minus) : two ndarrays shaped like ``x1``
        The two branches; NaN where the discriminant is negative (no point of
        the curve above that ``x_1``).
    """
    x1 = np.asarray(x1, dtype=float)
    w = np.asarray(w, dtype=float).ravel()
    if w.shape != (3,) or not np.all(np.isfinite(w)):
        raise ValueError(f"w must be 3 finite numbers, got {w!r}")
    w1, w2, w3 = w
    if w2 == 0:
        raise ValueError("w[1] must be nonzero; with w_2 = 0 the curve is x_1 = 0 "
                         "or x_2 = -w_1 / w_3")
    disc = x1 * (w3 ** 2 * x1 - 4.0 * w1 * w2)
    root = np.sqrt(np.where(disc >= 0, disc, np.nan))
    centre = -w3 * x1 / (2.0 * w2)
    return centre + root / (2.0 * w2), centre - root / (2.0 * w2)


class MercerFeatures(NamedTuple):
    """Result of :func:`mercer_features`."""

    #: rows phi(x_i) = Lambda^(1/2) u_i over the positive eigenvalues, shape (r, n)
    features: np.ndarray
    #: all eigenvalues of K, largest first
    eigenvalues: np.ndarray
    #: eigenvalues below -tol * scale (empty when K is PSD)
    negative_eigenvalues: np.ndarray
    #: True when no eigenvalue is below -tol * scale
    is_psd: bool


def mercer_features(K, tol=1e-10):
    """Feature vectors of a finite input set from its kernel matrix (LKC Example 2.16).

    With ``K = U Lambda U'`` (eigenvalues ``lambda_1 >= ... >= lambda_n > 0``)
    the map ``phi(x_i) = Lambda^(1/2) u_i`` (``u_i'`` the i-th row of ``U``)
    reproduces ``K_ij = <phi(x_i), phi(x_j)>``.  A negative eigenvalue would
    need a feature with negative squared length, so such a ``K`` is not a
    kernel matrix; it is reported in ``negative_eigenvalues`` and
    ``is_psd`` is False (the returned features then reproduce only the
    positive part of ``K``).

    Parameters
    ----------
    K : array-like of shape (r, r), symmetric
    tol : float
        Eigenvalues within ``tol * max(1, max|K|)`` of zero count as zero.

    Returns
    -------
    MercerFeatures
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinity")
    scale = max(1.0, float(np.abs(K).max()))
    if not np.allclose(K, K.T, atol=tol * scale, rtol=0):
        raise ValueError("K must be symmetric: a kernel matrix satisfies K_ij = K_ji")
    lam, U = np.linalg.eigh(0.5 * (K + K.T))
    lam, U = lam[::-1], U[:, ::-1]
    keep = lam > tol * scale
    features = U[:, keep] * np.sqrt(lam[keep])[None, :]
    negative = lam[lam < -tol * scale]
    return MercerFeatures(features, lam, negative, bool(negative.size == 0))
