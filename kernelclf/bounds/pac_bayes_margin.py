"""Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``): the PAC-Bayesian margin bound.

LKC §5.1.2 (Theorem 5.10 eq. 5.11–5.12, Example 5.11, Remark 5.12) and App. C.8
(Theorem C.13, Theorems C.14–C.15). A linear classifier that separates the sample with
normalised margin ``Gamma > 0`` (:func:`normalized_margin`, :func:`normalized_margin_of`)
is the Bayes classifier of a ball inside version space whose log inverse prior mass is at
most ``d ln(1/(1 - sqrt(1 - Gamma^2))) + ln 2`` (:func:`margin_log_volume_bound`); the
Bayes bound of LKC Theorem 5.4 (:mod:`kernelclf.bounds.pac_bayes`) for that ball is
:func:`pac_bayes_margin_bound`. Exact and bounded cap volumes on the sphere are in
:mod:`kernelclf.bounds.volume`.

Notation and return convention as in :mod:`kernelclf.bounds.pac_bayes`: ``m`` sample size,
``delta`` confidence, natural logarithms, the raw right-hand side of the theorem, never
clipped (a value >= 1 is trivial, :func:`kernelclf.bounds.trivial`). Where the premise of
the theorem fails (a normalised margin ``Gamma <= 0``, i.e. a training error) the
functions return ``inf``.

The threshold of Theorem 5.10. ``-ln(1 - sqrt(1 - Gamma^2)) < 1/2`` exactly when
``Gamma > sqrt(2 e^{-1/2} - e^{-1}) = 0.91934`` (:func:`margin_threshold`); LKC
(p. 174, in the discussion after Theorem 5.10) prints "≈ 0.91".
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    as_float,
    broadcast,
    check_delta,
    check_int,
    check_m,
    check_nonnegative,
    result,
)

__all__ = [
    # LKC §5.1.2
    "margin_threshold",
    "margin_log_volume_bound",
    "pac_bayes_margin_bound",
    "normalized_margin",
    "normalized_margin_of",
]


# ---------------------------------------------------------------------------------------
# LKC §5.1.2: PAC-Bayesian margin bound
# ---------------------------------------------------------------------------------------
def margin_threshold():
    """``sqrt(2 e^{-1/2} - e^{-1}) = 0.91934...``: above it ``-ln(1 - sqrt(1 - Gamma^2)) < 1/2``.

    LKC after Theorem 5.10: then ``d = m`` (e.g. an RBF kernel) no longer makes eq. (5.12)
    trivial by itself, because its first term ``(2/m) d ln(...)`` stays below 1.
    """
    return float(np.sqrt(2.0 * np.exp(-0.5) - np.exp(-1.0)))


def _cap_x(Gamma):
    """``1 - sqrt(1 - Gamma^2)`` computed without cancellation."""
    return Gamma**2 / (1.0 + np.sqrt(np.maximum(0.0, 1.0 - Gamma**2)))


def margin_log_volume_bound(Gamma, d):
    """``d ln(1/(1 - sqrt(1 - Gamma^2)))``: the complexity term of eq. (5.12).

    LKC App. C.8 bounds ``ln(1/P_W(ball))`` for the ball ``{v : <w, v> > sqrt(1 - Gamma^2)}``
    inside version space (Theorem C.13) by ``n ln(1/x) + ln 2`` with
    ``x = 1 - sqrt(1 - Gamma^2)`` (Theorems C.14–C.15), and then ``ln 2 <= 1``; this is the
    part without ``ln 2``. ``inf`` where ``Gamma <= 0``.
    """
    G = as_float(Gamma, "Gamma")
    if (G > 1 + 1e-12).any():
        raise ValueError(f"Gamma must be <= 1 (a normalised margin), got {Gamma!r}")
    d = check_nonnegative(d, "d")
    G, d = broadcast(np.minimum(G, 1.0), d)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = -d * np.log(_cap_x(np.where(G > 0, G, 1.0)))
    return result(np.where(G > 0, val, np.inf))


def pac_bayes_margin_bound(m, Gamma, delta, n=None):
    """PAC-Bayesian margin bound, LKC Theorem 5.10, eq. (5.12).

    If a linear classifier classifies all ``m`` training points correctly with normalised
    margin ``Gamma_z(w) = min_i y_i <x_i, w> / (||w|| ||x_i||) > 0`` (eq. 5.11), then with
    probability at least ``1 - delta``

    ``R[h_w] <= (2/m)(d ln(1/(1 - sqrt(1 - Gamma^2))) + 2 ln m + ln(1/delta) + 2)``,

    ``d = min(m, n)`` with ``n`` the dimension of feature space. At ``Gamma = 1`` the first
    term vanishes. No bounded support of ``P_X`` is needed (the margin is normalised by
    ``||x_i||``), but the bound grows with the dimension (Remark 5.12).

    Parameters
    ----------
    m : array_like of int, >= 1
    Gamma : array_like, <= 1
        Normalised margin (:func:`normalized_margin`); ``<= 0`` gives ``inf``.
    delta : array_like in (0, 1)
    n : None or array_like of int, >= 1
        Feature-space dimension; ``None`` means infinite (RBF kernels), so ``d = m``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    delta = check_delta(delta)
    G = as_float(Gamma, "Gamma")
    if n is None:
        d = m
    else:
        d = np.minimum(m, check_int(n, "n", minimum=1))
    m, G, delta, d = broadcast(m, G, delta, d)
    term = margin_log_volume_bound(G, d)
    return result(2.0 / m * (term + 2.0 * np.log(m) + np.log(1.0 / delta) + 2.0))


def normalized_margin(X_or_G, y, w_or_alpha, precomputed=False):
    """Normalised margin ``Gamma_z(w) = min_i y_i <x_i, w> / (||w|| ||x_i||)``, LKC eq. (5.11).

    The cosine of the largest angle between ``w`` and a signed training point ``y_i x_i``
    (turned into a margin). With ``precomputed=True`` the first argument is the Gram
    matrix and ``w_or_alpha`` holds signed expansion coefficients
    (``w = sum_i alpha_i phi(x_i)``). Negative if a point is misclassified. Invariant to
    rescaling each ``x_i``: the same value as the geometrical margin after normalising the
    data in feature space (LKC Example 5.11).
    """
    y = np.asarray(y, dtype=float).ravel()
    v = as_float(w_or_alpha, "w_or_alpha").ravel()
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold labels -1/+1")
    A = as_float(X_or_G, "X_or_G")
    if A.ndim != 2 or A.shape[0] != y.size or not np.isfinite(A).all():
        raise ValueError(f"X_or_G must be a finite 2-D array with {y.size} rows, got shape {A.shape}")
    if precomputed:
        if A.shape[1] != A.shape[0] or v.size != y.size:
            raise ValueError(f"G must be square and alpha of length {y.size}")
        out = A @ v
        wn = np.sqrt(max(float(v @ out), 0.0))
        xn = np.sqrt(np.maximum(np.diag(A), 0.0))
    else:
        if A.shape[1] != v.size:
            raise ValueError(f"shapes do not match: X {A.shape}, w {v.shape}")
        out = A @ v
        wn = float(np.linalg.norm(v))
        xn = np.linalg.norm(A, axis=1)
    if wn == 0.0:
        raise ValueError("the weight vector is zero; its margin is undefined")
    if np.any(xn == 0.0):
        raise ValueError("a training point has zero norm in feature space; Gamma is undefined")
    return float(np.min(y * out / (wn * xn)))


def normalized_margin_of(estimator, X, y, augment=True):
    """``Gamma_z(w)`` of eq. (5.11) for a fitted classifier of the package.

    Uses :mod:`kernelclf.bounds.inputs`: the functional margins ``y_i f(x_i)`` from
    ``decision_function``, ``||w||`` from the expansion, and ``||phi(x_i)|| =
    sqrt(k(x_i, x_i))``. A non-zero intercept is absorbed as in that module
    (``w~ = (w, b)``, ``phi~(x) = (phi(x), 1)``) unless ``augment=False``, which refuses it.
    """
    from . import inputs as _inputs

    t = np.asarray(_inputs.functional_margins(estimator, X, y), dtype=float)
    wn = float(_inputs.weight_norm(estimator, augment=augment))
    b = _inputs._check_intercept(estimator, augment)
    Xa = X if isinstance(X, list) else np.asarray(X, dtype=float)
    kd = np.asarray(_inputs._kernel_diag(estimator, Xa), dtype=float) + (1.0 if b != 0.0 else 0.0)
    if np.any(kd <= 0):
        raise ValueError("a training point has zero norm in feature space; Gamma is undefined")
    return float(np.min(t / (wn * np.sqrt(kd))))
