"""Separability and margins: is a sample linearly separable in feature space, and the
geometric margin of a weight vector on it.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); also chapter 04.
LKC Def. 2.12 and §2.4 (a sample is separable exactly when its version space is
non-empty), Def. 2.30 (geometric margin). The hard-margin machines (SVM, perceptron)
and the Bayes point machines ask these questions before they fit.
"""
from __future__ import annotations

import math

import numpy as np

from ..optim import InfeasibleProblemError, solve_lp

__all__ = ["NotSeparableError", "is_separable", "geometric_margin"]


class NotSeparableError(ValueError):
    """The training sample has an empty version space (no consistent classifier)."""


def _gram_matrix(K):
    """A dense Gram matrix from an array or a :class:`kernelclf.kernels.gram.Gram`."""
    full = getattr(K, "full", None)
    return np.asarray(full() if callable(full) else K, dtype=float)


def _check_labels(y, m):
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (m,):
        raise ValueError(f"y must have {m} entries, got shape {y.shape}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold labels -1/+1 (use kernelclf.base.labels_to_pm1)")
    return y


def _separating_lp(K, y, fit_bias):
    """Solve the feasibility LP ``y_i ((K beta)_i + b) >= 1``; ``None`` if infeasible."""
    m = len(y)
    A = -(y[:, None] * K)
    if fit_bias:
        A = np.hstack([A, -y[:, None]])
    try:
        return solve_lp(np.zeros(A.shape[1]), A2=A, b2=-np.ones(m), l=None)
    except InfeasibleProblemError:
        return None


def is_separable(K, y, fit_bias=True):
    """Whether some ``f = K beta (+ b)`` has ``y_i f(x_i) >= 1`` for all ``i``.

    A linear-programming feasibility test (HiGHS through
    :func:`kernelclf.optim.solve_lp`). Any ``f`` with ``y_i f(x_i) > 0`` can be
    rescaled to reach 1, and by the representer theorem (LKC Theorem 2.29) the
    weight vector may be taken in the span of the mapped inputs; so the sample is
    separable in feature space (with or without bias) exactly when this LP is
    feasible, i.e. when the version space (LKC Def. 2.12) is non-empty and the
    hard-margin SVM (LKC eq. 2.45) has a solution.

    Parameters
    ----------
    K : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
        Gram matrix of the training inputs.
    y : (m,) array of -1/+1
    fit_bias : bool
        Allow a threshold ``b``.

    Returns
    -------
    bool
    """
    K = _gram_matrix(K)
    y = _check_labels(y, K.shape[0])
    return _separating_lp(K, y, bool(fit_bias)) is not None


def geometric_margin(X_or_G, y, w_or_alpha, precomputed=False):
    """Geometric margin ``gamma_z(w) = min_i y_i <x_i, w> / ||w||`` (LKC Def. 2.30).

    With ``precomputed=True`` the first argument is a Gram matrix ``G`` and
    ``w_or_alpha`` holds expansion coefficients ``alpha``
    (``w = sum_i alpha_i phi(x_i)``), so the margin is
    ``min_i y_i (G alpha)_i / sqrt(alpha' G alpha)``. Negative when ``w``
    misclassifies a point; positive exactly when ``w / ||w||`` lies in version space.
    """
    y = np.asarray(y, dtype=float).ravel()
    v = np.asarray(w_or_alpha, dtype=float).ravel()
    if precomputed:
        G = _gram_matrix(X_or_G)
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"G must be a square Gram matrix, got shape {G.shape}")
        if not np.all(np.isfinite(G)):
            raise ValueError("G contains NaN or infinity")
        y = _check_labels(y, G.shape[0])
        if v.shape != y.shape:
            raise ValueError(f"alpha must have {len(y)} entries, got {v.shape}")
        out = G @ v
        norm = math.sqrt(max(float(v @ out), 0.0))
    else:
        X = np.asarray(X_or_G, dtype=float)
        if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != v.shape[0]:
            raise ValueError(f"shapes do not match: X {X.shape}, y {y.shape}, w {v.shape}")
        out = X @ v
        norm = float(np.linalg.norm(v))
    if norm == 0.0:
        raise ValueError("the weight vector is zero; its margin is undefined")
    return float(np.min(y * out) / norm)
