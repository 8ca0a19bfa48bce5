"""The ghost sample and the swapping permutations of the VC and luckiness proofs.

Book chapter 14 (``book/14_vc_theory_and_srm.md``); LKC App. C.1 (Lemma C.1, the proof of
Theorem 4.7 with Figs C.1 and C.2) and App. C.2 (Lemma C.7, Fig. C.3).

The proofs double the sample: ``z`` of size ``2m`` is split into a first half
``z_1, ..., z_m`` and a second half ``z_{m+1}, ..., z_{2m}``, and a *swapping* ``s`` in
``{0, 1}^m`` exchanges ``z_i`` and ``z_{i+m}`` wherever ``s_i = 1`` (LKC's permutation
``pi_s``). Under the uniform measure over the ``2^m`` swappings the two halves are
exchangeable, and the proofs count the swappings for which an event holds:

* :func:`worst_threshold` - the set ``A(z)`` of Lemma C.1 (Fig. C.1) for the class of
  thresholds ``[0, t]`` under the uniform law on ``[0, 1]``;
* :func:`swap_permutation` - the permutation ``pi_s`` of the ``2m`` indices;
* :func:`zero_error_swappings` - the swappings after which a hypothesis makes no error on
  the first half and more than ``m eps / 2`` errors on the second (Fig. C.2), with the bound
  ``2^(m - m eps / 2)`` of the proof of eq. 4.12;
* :func:`subsample_swappings` - for a subsample of ``d`` of the ``2m`` examples, the number
  ``S_{d,j}`` of swappings that put exactly ``j`` of them into the first half (Fig. C.3),
  with the closed form :func:`subsample_swapping_count` and the bound of Lemma C.7,
  :func:`lemma_c7_bound`.
"""
from __future__ import annotations

import itertools
from math import comb

import numpy as np

__all__ = ["worst_threshold", "swap_permutation", "zero_error_swappings",
           "subsample_swappings", "subsample_swapping_count", "lemma_c7_bound"]


def worst_threshold(z):
    """``A(z) = argsup_A |P(A) - v_z(A)|`` of Lemma C.1 over the sets ``A = [0, t]``, for a
    sample ``z`` of the uniform law on ``[0, 1]`` (where ``P([0, t]) = t``).

    Returns ``(t, P(A), v_z(A))``: the supremum of ``|t - F_z(t)|`` (``F_z`` the empirical
    distribution function) is attained at a sample point, from the left or from the right;
    ``v_z(A)`` is the limit of ``F_z`` there on the side that attains it.
    """
    z = np.sort(np.asarray(z, dtype=float).ravel())
    if z.size == 0 or np.any((z < 0) | (z > 1)):
        raise ValueError("z must be a non-empty sample of [0, 1]")
    m = z.size
    right = np.arange(1, m + 1) / m - z      # F_z(t) - t at t = z_(i), F_z including z_(i)
    left = z - np.arange(0, m) / m           # t - F_z(t-) just below z_(i)
    i, k = int(np.argmax(right)), int(np.argmax(left))
    if right[i] >= left[k]:
        return float(z[i]), float(z[i]), float((i + 1) / m)
    return float(z[k]), float(z[k]), float(k / m)


def swap_permutation(s):
    """LKC's ``pi_s`` for a swapping ``s`` in ``{0, 1}^m``: the permutation of ``0, ..., 2m-1``
    that exchanges ``i`` and ``i + m`` wherever ``s[i] = 1``."""
    s = np.asarray(s, dtype=int).ravel()
    if np.any((s != 0) & (s != 1)):
        raise ValueError("a swapping is a vector of zeros and ones")
    m = s.size
    first = np.where(s == 1, np.arange(m) + m, np.arange(m))
    return np.concatenate([first, np.where(s == 1, np.arange(m), np.arange(m) + m)])


def _swappings(m):
    return np.array(list(itertools.product((0, 1), repeat=m)), dtype=int).reshape(-1, m)


def zero_error_swappings(errors, eps):
    """Fig. C.2: the swappings after which a hypothesis that errs on the examples marked in
    ``errors`` (a boolean vector of length ``2m``) has no error on the first half and more
    than ``m eps / 2`` errors on the second (the event ``Q_z(h)`` of the proof of eq. 4.12).

    Returns ``(count, bound)`` with the bound ``2^(m - m eps / 2)`` of that proof. Counted
    by enumerating all ``2^m`` swappings (so keep ``m`` small).
    """
    e = np.asarray(errors, dtype=bool).ravel()
    if e.size % 2 or e.size == 0:
        raise ValueError("errors must have an even, positive length 2m")
    m = e.size // 2
    if m > 20:
        raise ValueError(f"2^{m} swappings are too many to enumerate")
    count = 0
    for s in _swappings(m):
        after = e[swap_permutation(s)]
        count += int(not after[:m].any() and after[m:].sum() > m * eps / 2)
    return count, 2.0 ** (m - m * eps / 2)


def subsample_swappings(indices, m):
    """Fig. C.3: ``S[j]``, for ``j = 0, ..., d``, the number of the ``2^m`` swappings after
    which exactly ``j`` of the ``d`` examples ``indices`` (0-based, in ``0, ..., 2m-1``) are in
    the first half. Counted by enumeration."""
    idx = np.unique(np.asarray(indices, dtype=int).ravel())
    if idx.size != np.asarray(indices).size or np.any((idx < 0) | (idx >= 2 * m)):
        raise ValueError(f"indices must be distinct and in 0..{2 * m - 1}")
    if m > 20:
        raise ValueError(f"2^{m} swappings are too many to enumerate")
    out = np.zeros(idx.size + 1, dtype=int)
    for s in _swappings(m):
        position = np.argsort(swap_permutation(s))  # where each example lands
        out[int(np.sum(position[idx] < m))] += 1
    return out


def subsample_swapping_count(d, j, m, r=0):
    """``S^r_{d,j} = C(d - 2r, j - r) 2^(m - d + 2r)`` (proof of Lemma C.7): the number of
    swappings that put exactly ``j`` of ``d`` examples into the first half when ``r`` pairs
    of them are swapping counterparts (indices ``i`` and ``i + m``)."""
    if j < r or j - r > d - 2 * r:
        return 0
    return comb(d - 2 * r, j - r) * 2 ** (m - d + 2 * r)


def lemma_c7_bound(d, j, m):
    """The bound ``S_{d,j} <= C(d, j) 2^(m - d)`` of LKC Lemma C.7 (stated for ``d <= m`` and
    ``j < d / 3``)."""
    return comb(d, j) * 2 ** (m - d)
