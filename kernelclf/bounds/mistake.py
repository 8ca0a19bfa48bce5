"""Mistake bounds: Novikoff's bound on the perceptron's updates and the risk bound of a
mistake-driven algorithm.

Book chapters 03 and 17 (``book/03_perceptron.md``, ``book/17_compression_stability_rademacher.md``);
LKC Theorem 2.31 (App. B.4) and Theorem 5.23 (eq. 5.17), Examples 5.24-5.25.
"""
from __future__ import annotations

import numpy as np

from ..margin.perceptron import _check_gram_labels
from ..margin.separability import geometric_margin
from ._validation import as_float, broadcast, check_m, result

__all__ = ["novikoff_bound", "mistake_bound_risk"]


def novikoff_bound(X_or_G, y, margin, precomputed=False):
    """Novikoff's mistake bound ``(varsigma / gamma)^2`` (LKC Theorem 2.31, App. B.4).

    ``varsigma = max_i ||phi(x_i)||`` is the radius of the smallest ball about
    the origin containing the (mapped) sample.

    Parameters
    ----------
    X_or_G : (m, n) inputs, or (m, m) Gram matrix when ``precomputed=True``
    y : (m,) labels in {-1, +1}
    margin : float or array
        Either a geometric margin ``gamma > 0`` achievable on the sample (for
        the tightest bound, that of the hard-margin SVM, LKC Example 5.24), or a
        separating weight vector ``w`` (coefficients ``alpha`` when
        ``precomputed``), whose margin :func:`~kernelclf.margin.separability.geometric_margin` computes.
    precomputed : bool

    Returns
    -------
    float
        Upper bound on the number of perceptron updates on the sample.
    """
    if precomputed:
        G, _ = _check_gram_labels(X_or_G, y)
        radius2 = float(np.max(np.diag(G)))
    else:
        X = np.asarray(X_or_G, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        radius2 = float(np.max(np.einsum("ij,ij->i", X, X)))
    if np.ndim(margin) == 0:
        gamma = float(margin)
    else:
        gamma = geometric_margin(X_or_G, y, margin, precomputed=precomputed)
    if not gamma > 0:
        raise ValueError(f"the margin must be positive (a separating w), got {gamma}")
    return radius2 / gamma ** 2


def mistake_bound_risk(n_mistakes, m, delta=0.05):
    """Mistake bound turned into a risk bound, LKC Theorem 5.23, eq. (5.17).

    For a mistake-driven on-line algorithm with mistake bound ``M`` run to convergence on a
    sample of size ``m`` labelled by a hypothesis of its class, with probability at least
    ``1 - delta``: ``R <= (2/m)(M ln(e m) + ln m + ln(1/delta))``.
    ``n_mistakes`` may be real (e.g. Novikoff's ``(varsigma/gamma)^2``,
    :func:`~kernelclf.bounds.compression.perceptron_mistake_bound`, or ``ld |H|``,
    :func:`~kernelclf.bounds.compression.halving_mistake_bound`).
    The one implementation; :mod:`kernelclf.bounds.compression` re-exports it beside the
    compression bounds (book chapter 17). ``delta = 1`` is allowed (the statement is then empty and
    the value is the bound's complexity part alone); the value may exceed 1 (then it is
    trivial, :func:`kernelclf.bounds.trivial`).
    """
    M = as_float(n_mistakes, "n_mistakes")
    if (M < 0).any() or not np.isfinite(M).all():
        raise ValueError(f"n_mistakes must be finite and >= 0, got {n_mistakes!r}")
    m = check_m(m)
    d = as_float(delta, "delta")
    if ((d <= 0) | (d > 1)).any():
        raise ValueError(f"delta must lie in (0, 1], got {delta!r}")
    M, m, d = broadcast(M, m, d)
    mf = m.astype(float)
    return result(2.0 / mf * (M * np.log(np.e * mf) + np.log(mf) + np.log(1.0 / d)))
