"""Book chapter 15 (``book/15_margin_bounds.md``): the luckiness bounds of LKC §4.3.

LKC §4.3 (Theorem 4.19 eq. 4.23, Examples 4.21–4.22), App. C.3–C.4. Covering numbers and
the fat shattering dimension (§4.4–4.4.1) are in :mod:`kernelclf.bounds.covering`, the
margin bounds (§4.4.2–4.4.3) in :mod:`kernelclf.bounds.margin`.

Notation as in the book: ``m`` training sample size, ``delta`` confidence, ``d`` the level
of the luckiness bound, ``vartheta`` (ϑ) a VC dimension and ``vartheta_z`` the empirical
VC dimension on the sample. ``ld`` is the logarithm to base 2 (LKC p. 331); its helpers
``_ld`` and ``_xldx`` live here, in the lowest of the chapter's three modules, and the
other two import them from here.

Return convention of :mod:`kernelclf.bounds`: every bound returns the raw right-hand
side of its theorem, never clipped; a value >= 1 is trivial
(:func:`kernelclf.bounds.trivial`). When no level of the stratified bound applies
(:func:`empirical_vc_luckiness_bound` with a level above ``2m``) the function returns
``inf``: the theorem gives no guarantee there.
"""
from __future__ import annotations

import itertools

import numpy as np

from ._validation import broadcast, check_delta, check_int, check_m, check_positive, result

__all__ = [
    "luckiness_bound",
    "pac_luckiness_bound",
    "empirical_vc_luckiness_log_omega",
    "empirical_vc_luckiness_bound",
    "empirical_vc_dimension",
]


def _ld(x):
    with np.errstate(divide="ignore"):
        return np.log2(x)


def _xldx(d, c):
    """``d * ld(c / d)`` with the limit 0 at ``d = 0``."""
    d = np.asarray(d, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = d * _ld(c / np.where(d > 0, d, 1.0))
    return np.where(d > 0, out, 0.0)


# ---------------------------------------------------------------------------------------
# Luckiness framework, §4.3
# ---------------------------------------------------------------------------------------
def luckiness_bound(m, d, delta, p_d=1.0):
    """Luckiness bound, LKC Theorem 4.19, eq. (4.23), and its stratified form.

    If ``R_emp[h, z] = 0`` and ``omega(L(z, h), delta p_d / 4) <= 2^d`` for a luckiness
    function ``L`` that is probably smooth w.r.t. ``omega`` (Definition 4.18), then with
    probability at least ``1 - delta``

    ``R[h] <= (2/m) (d + ld(4 / (delta p_d)))``.

    ``p_d = 1`` is eq. (4.23) for one level ``d`` fixed in advance; positive ``p_d``
    summing to at most one over the levels give the bound simultaneously for all of
    them (the multiple-testing step after eq. 4.23, Lemma 4.14).

    Parameters
    ----------
    m : array_like of int, >= 1
    d : array_like of int, >= 0
        The level: ``ld`` of the number of luckier equivalence classes that may occur.
    delta : array_like in (0, 1)
    p_d : array_like in (0, 1], default 1
        Prior weight of level ``d``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    d = check_int(d, "d", minimum=0)
    delta = check_delta(delta)
    p_d = check_positive(p_d, "p_d")
    if (p_d > 1).any():
        raise ValueError(f"p_d must lie in (0, 1], got {p_d!r}")
    m, d, delta, p_d = broadcast(m, d, delta, p_d)
    return result(2.0 / m * (d + _ld(4.0 / (delta * p_d))))


def pac_luckiness_bound(m, vartheta, delta):
    """PAC luckiness, LKC Example 4.21.

    With ``L(z, h) = -vartheta`` (the VC dimension) and ``omega = (2em/vartheta)^vartheta``
    (Sauer's lemma, Theorem A.105), Theorem 4.19 gives, for every consistent ``h``,

    ``R[h] <= (2/m) (vartheta ld(2em / vartheta) + ld(4/delta))``,

    which is eq. (4.15) up to constants.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta : array_like of int, >= 1
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    vt = check_int(vartheta, "vartheta", minimum=1)
    delta = check_delta(delta)
    m, vt, delta = broadcast(m, vt, delta)
    return result(2.0 / m * (_xldx(vt, 2.0 * np.e * m) + _ld(4.0 / delta)))


def empirical_vc_luckiness_log_omega(m, vartheta_z, delta):
    """``ld omega(L, delta)`` of the empirical VC dimension luckiness, LKC Example 4.22.

    The luckiness ``L(z, h) = -vartheta(z)`` (the empirical VC dimension of the class
    on the sample, :func:`empirical_vc_dimension`) is probably smooth (App. C.4,
    Theorem C.6) w.r.t. ``omega(L, delta) = (em / (-2L - 2 ln delta))^(-4L - 4 ln delta)``
    for ``delta`` in ``(0, 1/2]``, so

    ``ld omega = (4 vartheta(z) - 4 ln delta) ld(em / (2 vartheta(z) - 2 ln delta))``.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta_z : array_like of int, >= 0
    delta : array_like in (0, 1/2]

    Returns
    -------
    log2_omega : float or ndarray
    """
    m = check_m(m)
    vt = check_int(vartheta_z, "vartheta_z", minimum=0)
    delta = check_delta(delta)
    if (delta > 0.5).any():
        raise ValueError(f"delta must lie in (0, 1/2] (LKC Example 4.22), got {delta!r}")
    m, vt, delta = broadcast(m, vt, delta)
    a = 2.0 * vt - 2.0 * np.log(delta)
    return result(2.0 * a * _ld(np.e * m / a))


def empirical_vc_luckiness_bound(m, vartheta_z, delta):
    """Bound from the empirical VC dimension luckiness (LKC Example 4.22 + Theorem 4.19).

    The level ``d`` is not known before the sample arrives, so the levels
    ``d = 1, ..., 2m`` get the uniform weight ``p_d = 1/(2m)`` (the stratified form
    of eq. 4.23). The smallest admissible level is
    ``d = max(1, ceil(ld omega(-vartheta(z), delta / (8m))))`` and then

    ``R[h] <= (2/m) (d + ld(8m / delta))``

    for every consistent ``h``. Returns ``inf`` if ``d > 2m`` (no level applies).

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta_z : array_like of int, >= 0
        Empirical VC dimension on the training sample.
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    vt = check_int(vartheta_z, "vartheta_z", minimum=0)
    delta = check_delta(delta)
    m, vt, delta = broadcast(m, vt, delta)
    level = np.asarray(empirical_vc_luckiness_log_omega(m, vt, delta / (8.0 * m)))
    d = np.maximum(1.0, np.ceil(level - 1e-12))
    value = 2.0 / m * (d + _ld(8.0 * m / delta))
    return result(np.where(d <= 2.0 * m, value, np.inf))


def empirical_vc_dimension(losses):
    """Empirical VC dimension of a finite class on a sample, LKC Example 4.22.

    The largest ``j`` such that some ``j`` of the ``m`` sample points see all ``2^j``
    loss patterns among the hypotheses (brute force over subsets).

    Parameters
    ----------
    losses : array_like of shape (n_hypotheses, m)
        Zero-one losses (or any binary labels) of each hypothesis on each point.

    Returns
    -------
    int
        ``vartheta(z)``; 0 when no single point sees both values.
    """
    L = np.asarray(losses)
    if L.ndim != 2 or L.size == 0:
        raise ValueError(f"losses must be a non-empty 2-D array, got shape {L.shape}")
    if not np.isin(L, [0, 1, -1, True, False]).all():
        raise ValueError("losses must be binary (0/1 or -1/+1)")
    if L.shape[1] > 20:
        raise ValueError(f"brute force over subsets is limited to m <= 20 points, got {L.shape[1]}")
    L = (L > 0).astype(np.int64)
    n_h, m = L.shape
    best = 0
    for j in range(1, m + 1):
        if 2 ** j > n_h:
            break
        weights = 1 << np.arange(j)
        if any(len(np.unique(L[:, list(S)] @ weights)) == 2 ** j
               for S in itertools.combinations(range(m), j)):
            best = j
        else:
            break   # a shattered (j+1)-set contains a shattered j-set
    return best
