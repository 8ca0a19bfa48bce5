"""Compression bounds and mistake bounds turned into risk bounds.

Book chapter 17 (``book/17_compression_stability_rademacher.md``); LKC §5.2: Definition 5.14
(compression scheme, eq. 5.13), Examples 5.15-5.16 (perceptron and SVM as compression
schemes), Theorem 5.17 and eq. (5.16) (PAC compression bound), Theorem 5.18 (lossy
compression bound), Definitions 5.21-5.22 and Theorem 5.23 eq. (5.17) (mistake-driven
algorithms), Examples 5.24 (perceptron, Novikoff's bound of Theorem 2.31) and 5.25
(halving algorithm, eq. 5.18).

A *compression scheme of size d* keeps ``d`` of the ``m`` training examples and rebuilds
the learned hypothesis from them alone. The bounds count the index vectors that could
have been chosen (``C(m, d) d!`` ordered ones, ``C(m, d)`` when the rebuilding ignores
the order) and test the rebuilt hypothesis on the ``m - d`` examples it did not see.

* :func:`perceptron_compression` / :func:`svm_compression` return the compression
  function's output for a fitted perceptron (its update indices, Example 5.15) or SVM
  (its support vectors, Example 5.16), and :func:`reconstruct` refits a clone of the
  estimator on those examples; the tests check that the rebuilt classifier is the same.
* :func:`pac_compression_bound` (Theorem 5.17, eq. 5.16) and
  :func:`lossy_compression_bound` (Theorem 5.18) are the bounds themselves;
  :func:`compression_bound_relaxed` is the ``(2/m)(d ln(em/d) + ...)`` form after eq. 5.16.
* :func:`~kernelclf.bounds.mistake.mistake_bound_risk` is eq. (5.17), with :func:`perceptron_mistake_bound`
  (Example 5.24: ``(varsigma / gamma(w_SVM))^2``) and :func:`halving_mistake_bound`
  (Example 5.25: ``ld |H|``) as the mistake bounds.

Return convention of :mod:`kernelclf.bounds`: raw right-hand sides, never clipped (a value
>= 1 is trivial, :func:`kernelclf.bounds.trivial`); ``inf`` when ``d >= m`` (no example
is left to test the rebuilt hypothesis on, the theorem says nothing).
"""
from __future__ import annotations

import numpy as np
from scipy.special import gammaln
from sklearn.base import clone

from ._validation import (
    broadcast,
    check_delta,
    check_int,
    check_m,
    check_probability,
    result,
)
from .mistake import mistake_bound_risk, novikoff_bound  # eq. 5.17 lives with the mistake bounds

__all__ = [
    "log_index_vectors",
    "pac_compression_bound",
    "compression_bound_relaxed",
    "lossy_compression_bound",
    "mistake_bound_risk",
    "perceptron_mistake_bound",
    "halving_mistake_bound",
    "perceptron_compression",
    "svm_compression",
    "reconstruct",
]


def _check_d(m, d):
    m = check_m(m)
    d = check_int(d, "d", minimum=0)
    m, d = broadcast(m, d)
    if (d > m).any():
        raise ValueError(f"the compression size d must not exceed m, got d={d!r}, m={m!r}")
    return m, d


def log_index_vectors(m, d, permutation_invariant=False):
    """Log of the number of index vectors of size ``d`` (Definition 5.14).

    ``ln(C(m, d) d!) = ln(m! / (m - d)!)`` for ordered index vectors with distinct
    entries (the set ``I_{d,m}``), ``ln C(m, d)`` when the reconstruction is permutation
    invariant (LKC footnote 4 of §5.2.1). Computed with log-gamma, so large ``m`` is fine.
    """
    m, d = _check_d(m, d)
    m = m.astype(float)
    d = d.astype(float)
    log_ordered = gammaln(m + 1) - gammaln(m - d + 1)
    if permutation_invariant:
        return result(log_ordered - gammaln(d + 1))
    return result(log_ordered)


def pac_compression_bound(m, d, delta, permutation_invariant=False):
    """PAC compression bound, LKC Theorem 5.17 (and eq. 5.16 when permutation invariant).

    If the learned hypothesis has zero training error and is rebuilt from ``d`` of the
    ``m`` examples, then with probability at least ``1 - delta``

    ``R <= (ln(C(m, d) d!) + ln m + ln(1/delta)) / (m - d)``;

    without the ``d!`` for a permutation-invariant scheme (eq. 5.16, e.g. the SVM). The
    ``ln m`` pays for not knowing ``d`` in advance (uniform prior over ``d``, Lemma 4.14).

    Parameters
    ----------
    m : array_like of int, >= 1
    d : array_like of int, 0 <= d <= m
    delta : array_like in (0, 1)
    permutation_invariant : bool

    Returns
    -------
    bound : float or ndarray
        Raw value; ``inf`` where ``d == m``.
    """
    m, d = _check_d(m, d)
    delta = check_delta(delta)
    m, d, delta = broadcast(m, d, delta)
    log_n = log_index_vectors(m, d, permutation_invariant)
    mf = m.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (log_n + np.log(mf) + np.log(1.0 / delta)) / (mf - d)
    return result(np.where(d < m, value, np.inf))


def compression_bound_relaxed(m, d, delta):
    """The relaxed form of eq. (5.16) stated after Theorem 5.17.

    ``R <= (2/m)(d ln(e m / d) + ln m + ln(1/delta))``, from ``C(m, d) < (e m/d)^d``
    (Theorem A.105) and ``1/(m - d) <= 2/m`` for ``d <= m/2`` (LKC footnote 5: for
    ``d > m/2`` the right-hand side exceeds 1 anyway). ``d ln(em/d)`` is 0 at ``d = 0``.
    """
    m, d = _check_d(m, d)
    delta = check_delta(delta)
    m, d, delta = broadcast(m, d, delta)
    mf, df = m.astype(float), d.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        dterm = np.where(df > 0, df * np.log(np.e * mf / np.where(df > 0, df, 1.0)), 0.0)
    return result(2.0 / mf * (dterm + np.log(mf) + np.log(1.0 / delta)))


def lossy_compression_bound(m, d, remp, delta, permutation_invariant=False):
    """Lossy compression bound, LKC Theorem 5.18.

    For a compression scheme of size ``d`` whose hypothesis has training error ``remp``,
    with probability at least ``1 - delta``

    ``R <= m/(m - d) remp + sqrt((ln(C(m, d) d!) + 2 ln m + ln(1/delta)) / (2 (m - d)))``

    (Hoeffding on the ``m - d`` examples not used, union bound over the index vectors and
    over the ``m^2`` pairs of size and error count). ``d!`` is dropped when permutation
    invariant. ``inf`` where ``d == m``.
    """
    m, d = _check_d(m, d)
    remp = check_probability(remp, "remp")
    delta = check_delta(delta)
    m, d, remp, delta = broadcast(m, d, remp, delta)
    log_n = log_index_vectors(m, d, permutation_invariant)
    mf = m.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = mf / (mf - d) * remp + np.sqrt(
            (log_n + 2.0 * np.log(mf) + np.log(1.0 / delta)) / (2.0 * (mf - d)))
    return result(np.where(d < m, value, np.inf))


def perceptron_mistake_bound(X_or_G, y, precomputed=False, tol=1e-10):
    """The perceptron's mistake bound of LKC Example 5.24: ``(varsigma / gamma(w_SVM))^2``.

    ``varsigma = max_i ||phi(x_i)||`` and ``gamma(w_SVM)`` the largest geometric margin on
    the sample, that of the hard-margin SVM without bias (Novikoff, Theorem 2.31; it holds
    for every visiting order). Solves the hard-margin dual (eq. 2.46) with
    :func:`kernelclf.optim.solve_qp` and calls :func:`kernelclf.bounds.mistake.novikoff_bound`.

    Parameters
    ----------
    X_or_G : (m, n) inputs (linear kernel) or an (m, m) Gram matrix if ``precomputed``
    y : (m,) labels in {-1, +1}; the sample must be separable through the origin
    precomputed : bool
        ``X_or_G`` is a Gram matrix.
    tol : float
        Gap tolerance of the quadratic program.
    """
    from ..optim import solve_qp

    A = np.asarray(X_or_G, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if A.ndim != 2 or A.shape[0] != y.shape[0]:
        raise ValueError(f"X_or_G must have one row per label, got shape {A.shape} and {y.shape}")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must hold labels -1 and +1")
    G = A if precomputed else A @ A.T
    # hard-margin dual without bias (LKC eq. 2.46): ||w_SVM||^2 = sum(alpha) at the optimum
    H = (y[:, None] * G) * y[None, :]
    sol = solve_qp(H + 1e-12 * np.eye(len(y)), -np.ones(len(y)), l=0.0, tol=tol)
    w2 = float(sol.x @ H @ sol.x)
    if not np.isfinite(w2) or w2 <= 0 or w2 > 1e12:
        raise ValueError("the sample is not separable through the origin: no mistake bound")
    return novikoff_bound(A, y, 1.0 / np.sqrt(w2), precomputed=precomputed)


def halving_mistake_bound(n_hypotheses):
    """Mistake bound ``ld |H|`` of the halving algorithm, LKC Example 5.25."""
    n = check_int(n_hypotheses, "n_hypotheses", minimum=1)
    return result(np.log2(n.astype(float)))


def perceptron_compression(perceptron):
    """Compression function of the perceptron, LKC Example 5.15.

    The distinct training indices on which a fitted (converged)
    :class:`~kernelclf.margin.perceptron.Perceptron` or
    :class:`~kernelclf.margin.perceptron.KernelPerceptron` made an update, in increasing order
    (the order of the training sample, which the fixed-order perceptron visits). Rerunning
    the perceptron on these examples, in this order, repeats exactly the same updates.
    Not permutation invariant: another order can give another weight vector, so
    Theorem 5.17 keeps the ``d!``.
    """
    idx = getattr(perceptron, "mistake_indices_", None)
    if idx is None:
        raise ValueError("expected a fitted perceptron with a mistake_indices_ attribute")
    if getattr(perceptron, "shuffle", False):
        raise ValueError("the reconstruction of Example 5.15 needs the fixed visiting order "
                         "(shuffle=False)")
    if not getattr(perceptron, "converged_", True):
        raise ValueError("the perceptron did not converge: it is not a compression scheme of its "
                         "update indices (the pocket iterate is returned)")
    return np.unique(np.asarray(idx, dtype=int))


def svm_compression(svm):
    """Compression function of the SVM, LKC Example 5.16: the support vector indices.

    Points with ``y_i <x_i, w> = 1 - xi_i`` (eq. 5.14): only they can carry a non-zero
    expansion coefficient, so the SVM trained on them alone has the same solution; the
    order does not matter (a permutation-invariant scheme, eq. 5.16).
    """
    idx = getattr(svm, "support_", None)
    if idx is None:
        raise ValueError("expected a fitted SVM with a support_ attribute")
    return np.sort(np.asarray(idx, dtype=int))


def reconstruct(estimator, X, y, indices):
    """Reconstruction function of Definition 5.14: refit a clone on ``X[indices]``.

    ``indices`` are kept in the given order. Returns the refitted clone; compare its
    ``decision_function`` with the original's to check eq. (5.13).
    """
    idx = np.asarray(indices, dtype=int).ravel()
    y = np.asarray(y)
    if idx.size == 0:
        raise ValueError("empty compression set: nothing to rebuild the classifier from")
    if idx.min() < 0 or idx.max() >= len(y):
        raise ValueError(f"indices must lie in 0..{len(y) - 1}")
    Xs = X[idx] if hasattr(X, "__getitem__") and not isinstance(X, list) else [X[i] for i in idx]
    return clone(estimator).fit(Xs, y[idx])
