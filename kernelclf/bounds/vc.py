"""VC and PAC generalisation error bounds, Sauer's lemma, and structural risk minimisation.

Book chapter 14 (``book/14_vc_theory_and_srm.md``); LKC §4.2 (Theorem 4.6 eq. 4.8,
Theorem 4.7 eq. 4.11–4.13, confidence intervals eq. 4.14–4.15, Definition 4.9,
Theorem 4.10 eq. 4.17–4.19, Remark 4.11, Lemma 4.14 eq. 4.20–4.21) and App. C.1–C.2.

Notation as in the book: ``m`` training sample size, ``delta`` confidence,
``epsilon`` deviation, ``vartheta`` (ϑ) the VC dimension. The complexity of a hypothesis
space enters through its **growth function** ``G_H(2m) = ln N_H(2m)`` (Definition 4.9:
the logarithm of the covering number, the largest number of distinct loss patterns on
``2m`` points), passed as ``growth_2m``; it is a logarithm so that rich classes do not
overflow. :func:`growth_exact` and :func:`growth_bound` give it from ϑ.

Return convention of :mod:`kernelclf.bounds`: raw values, never clipped; a bound >= 1
on a probability or a risk is trivial (:func:`kernelclf.bounds.trivial`).
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    broadcast,
    check_delta,
    check_int,
    check_m,
    check_nonnegative,
    check_positive,
    check_probability,
    result,
)
from .concentration import log_binomial_sum

__all__ = [
    "finite_class_tail",
    "finite_class_epsilon",
    "vc_tail",
    "pac_tail",
    "erm_tail",
    "vc_epsilon",
    "pac_epsilon",
    "vc_bound",
    "growth_exact",
    "growth_bound",
    "complexity_term",
    "vc_dimension_bound",
    "pac_dimension_bound",
    "srm_bound",
    "srm_pac_bound",
    "srm_select",
    "nontrivial_sample_size",
]


def finite_class_tail(m, epsilon, size):
    """VC bound for a finite hypothesis space, LKC Theorem 4.6, eq. (4.8).

    ``P(exists h in H: |R[h] - R_emp[h, Z]| > epsilon) < 2 |H| exp(-2 m epsilon^2)``
    (union bound over ``H`` plus two-sided Hoeffding).

    Parameters
    ----------
    m : array_like of int, >= 1
    epsilon : array_like, > 0
    size : array_like of int, >= 1
        ``|H|``.

    Returns
    -------
    bound : float or ndarray (raw; >= 1 is trivial)
    """
    m = check_m(m)
    eps = check_positive(epsilon, "epsilon")
    size = check_positive(size, "size", allow_inf=True)
    m, eps, size = broadcast(m, eps, size)
    return result(2.0 * size * np.exp(-2.0 * m * eps**2))


def finite_class_epsilon(m, delta, size):
    """Uniform deviation at confidence ``1 - delta`` from eq. (4.8) (Theorem 4.6).

    With probability at least ``1 - delta`` every ``h`` in a finite ``H`` has
    ``|R[h] - R_emp[h]| <= sqrt((ln(2|H|) + ln(1/delta)) / (2m))``.

    Returns
    -------
    epsilon : float or ndarray (raw; >= 1 is trivial)
    """
    m = check_m(m)
    delta = check_delta(delta)
    size = check_positive(size, "size")
    m, delta, size = broadcast(m, delta, size)
    return result(np.sqrt((np.log(2.0 * size) + np.log(1.0 / delta)) / (2.0 * m)))


def _growth(growth_2m):
    return check_nonnegative(growth_2m, "growth_2m", allow_inf=True)


def vc_tail(m, epsilon, growth_2m):
    """VC bound on the uniform deviation, LKC Theorem 4.7, eq. (4.11).

    ``P(exists h: |R[h] - R_emp[h, Z]| > epsilon) < 4 N_H(2m) exp(-m epsilon^2 / 8)``.

    Parameters
    ----------
    m : array_like of int, >= 1
    epsilon : array_like, > 0
    growth_2m : array_like, >= 0
        ``G_H(2m) = ln N_H(2m)`` (Definition 4.9).

    Returns
    -------
    bound : float or ndarray (raw; >= 1 is trivial)
    """
    m = check_m(m)
    eps = check_positive(epsilon, "epsilon")
    g = _growth(growth_2m)
    m, eps, g = broadcast(m, eps, g)
    return result(np.exp(np.log(4.0) + g - m * eps**2 / 8.0))


def pac_tail(m, epsilon, growth_2m):
    """PAC bound for consistent hypotheses, LKC Theorem 4.7, eq. (4.12).

    ``P(exists h in V_H(Z): R[h] > epsilon) < 2 N_H(2m) exp(-m epsilon / 4)``, where
    ``V_H(z)`` is the version space (hypotheses with zero training error).
    """
    m = check_m(m)
    eps = check_positive(epsilon, "epsilon")
    g = _growth(growth_2m)
    m, eps, g = broadcast(m, eps, g)
    return result(np.exp(np.log(2.0) + g - m * eps / 4.0))


def erm_tail(m, epsilon, growth_2m):
    """Generalisation error of empirical risk minimisation, LKC Theorem 4.7, eq. (4.13).

    ``P(R[A_ERM(Z)] - R[h*] > epsilon) < 4 N_H(2m) exp(-m epsilon^2 / 32)``
    (eq. 4.11 at ``epsilon / 2`` combined with eq. 4.6).
    """
    m = check_m(m)
    eps = check_positive(epsilon, "epsilon")
    g = _growth(growth_2m)
    m, eps, g = broadcast(m, eps, g)
    return result(np.exp(np.log(4.0) + g - m * eps**2 / 32.0))


def vc_epsilon(m, delta, growth_2m):
    """VC confidence interval width ``epsilon_VC(m, delta)``, LKC eq. (4.14).

    ``sqrt((8/m) (ln(4/delta) + G_H(2m)))``: with probability at least ``1 - delta``,
    ``R[h] <= R_emp[h, z] + epsilon_VC`` for all ``h`` simultaneously.

    Returns
    -------
    epsilon : float or ndarray (raw; >= 1 is trivial)
    """
    m = check_m(m)
    delta = check_delta(delta)
    g = _growth(growth_2m)
    m, delta, g = broadcast(m, delta, g)
    return result(np.sqrt(8.0 / m * (np.log(4.0 / delta) + g)))


def pac_epsilon(m, delta, growth_2m):
    """PAC confidence bound ``epsilon_PAC(m, delta)``, LKC eq. (4.15).

    ``(4/m) (ln(2/delta) + G_H(2m))``: with probability at least ``1 - delta`` every
    hypothesis with zero training error has ``R[h] <= epsilon_PAC``.

    Returns
    -------
    epsilon : float or ndarray (raw; >= 1 is trivial)
    """
    m = check_m(m)
    delta = check_delta(delta)
    g = _growth(growth_2m)
    m, delta, g = broadcast(m, delta, g)
    return result(4.0 / m * (np.log(2.0 / delta) + g))


def vc_bound(remp, m, delta, growth_2m):
    """The VC bound on the expected risk, LKC eq. (4.14): ``R_emp + epsilon_VC(m, delta)``.

    Parameters
    ----------
    remp : array_like in [0, 1]
        Training error ``R_emp[h, z]``.
    m, delta, growth_2m : see :func:`vc_epsilon`

    Returns
    -------
    bound : float or ndarray (raw; >= 1 is trivial)
    """
    remp = check_probability(remp, "remp")
    return result(remp + vc_epsilon(m, delta, growth_2m))


def growth_exact(m, vartheta):
    """Sauer's bound on the growth function, LKC Theorem 4.10, eq. (4.17).

    ``G_H(m) <= m ln 2`` for ``m <= vartheta`` (with equality) and
    ``G_H(m) <= ln sum_{i=0}^{vartheta} C(m, i)`` for ``m > vartheta``; the sum
    with ``i > m`` terms dropped is ``2^m``, so one formula covers both cases.

    Parameters
    ----------
    m : array_like of int, >= 0
    vartheta : array_like of int, >= 0
        VC dimension ϑ (eq. 4.18).

    Returns
    -------
    growth : float or ndarray
        Upper bound on ``ln N_H(m)`` (exact for ``m <= vartheta``).
    """
    m = check_int(m, "m", minimum=0)
    vt = check_int(vartheta, "vartheta", minimum=0)
    return log_binomial_sum(m, vt)


def growth_bound(m, vartheta):
    """Closed-form growth bound, LKC eq. (4.19) / Theorem A.105.

    ``G_H(m) < vartheta (ln(m / vartheta) + 1)`` for ``m > vartheta``; for
    ``m <= vartheta`` the growth function equals ``m ln 2`` (Theorem 4.10, case 1 of
    eq. 4.17), which is returned there.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta : array_like of int, >= 1
    """
    m = check_m(m)
    vt = check_m(vartheta, "vartheta")
    m, vt = broadcast(m, vt)
    with np.errstate(divide="ignore"):
        big = vt * (np.log(m / vt) + 1.0)
    return result(np.where(m > vt, big, m * np.log(2.0)))


def complexity_term(m, vartheta):
    """VC complexity term ``(vartheta/m) (ln(2m/vartheta) + 1)``, LKC Remark 4.11, Fig. 4.2.

    It is ``growth_bound(2m, vartheta) / m`` for ``2m > vartheta``. At
    ``vartheta / m = 1/30`` (Vapnik's rule of thumb ``m / vartheta > 30``) it equals
    ``(ln 60 + 1) / 30 = 0.1698``; the book's text says "less than 0.15", which holds only
    from ``m / vartheta = 34.99`` on (the first integer ratio is 35).
    """
    m = check_m(m)
    vt = check_m(vartheta, "vartheta")
    m, vt = broadcast(m, vt)
    if (2 * m <= vt).any():
        raise ValueError("the complexity term of Remark 4.11 needs 2m > vartheta")
    return result(vt / m * (np.log(2.0 * m / vt) + 1.0))


def vc_dimension_bound(remp, m, delta, vartheta):
    """VC bound in terms of the VC dimension, LKC Remark 4.11.

    ``R[h] <= R_emp[h, z] + sqrt(8 (ln(4/delta)/m + (vartheta/m)(ln(2m/vartheta) + 1)))``
    for ``2m > vartheta``: eq. (4.14) with ``G_H(2m)`` replaced by eq. (4.19). For
    ``2m <= vartheta`` the growth function is ``2m ln 2`` and the bound is trivial;
    that value is returned.

    Parameters
    ----------
    remp : array_like in [0, 1]
    m : array_like of int, >= 1
    delta : array_like in (0, 1)
    vartheta : array_like of int, >= 1

    Returns
    -------
    bound : float or ndarray (raw; >= 1 is trivial)
    """
    return vc_bound(remp, m, delta, growth_bound(2 * check_m(m), vartheta))


def pac_dimension_bound(m, delta, vartheta):
    """Eq. (4.15) with the growth function bounded by eq. (4.19) (zero training error).

    ``(4/m) (ln(2/delta) + vartheta (ln(2m/vartheta) + 1))`` for ``2m > vartheta``.
    """
    return pac_epsilon(m, delta, growth_bound(2 * check_m(m), vartheta))


def _log_prior(prior):
    p = check_probability(prior, "prior")
    if (p <= 0).any():
        raise ValueError("prior probabilities P_S(H_i) must be > 0")
    return np.log(1.0 / p)


def srm_bound(remp, m, delta, growth_2m, prior):
    """SRM bound with a prior over the structure, LKC Lemma 4.14, eq. (4.20).

    With probability at least ``1 - delta``, simultaneously for every ``H_i`` of the
    structure and every ``h in H_i``,
    ``R[h] <= R_emp[h, z] + sqrt((8/m)(ln(4/delta) + ln(1/P_S(H_i)) + G_{H_i}(2m)))``.

    Parameters
    ----------
    remp : array_like in [0, 1]
    m, delta : as in :func:`vc_epsilon`
    growth_2m : array_like, >= 0
        ``G_{H_i}(2m)`` of each class.
    prior : array_like in (0, 1]
        ``P_S(H_i)`` of each class; over the whole structure they must sum to at most 1
        (the caller's duty here; :func:`srm_select` checks it).
    """
    remp = check_probability(remp, "remp")
    lp = _log_prior(prior)
    g = _growth(growth_2m)
    g, lp = broadcast(g, lp)
    return result(remp + vc_epsilon(m, delta, g + lp))


def srm_pac_bound(m, delta, growth_2m, prior):
    """SRM bound for zero training error, LKC Lemma 4.14, eq. (4.21).

    ``R[h] <= (4/m)(ln(2/delta) + ln(1/P_S(H_i)) + G_{H_i}(2m))`` for every ``h`` in
    ``H_i`` with ``R_emp[h, z] = 0``, simultaneously over the structure.
    """
    lp = _log_prior(prior)
    g = _growth(growth_2m)
    g, lp = broadcast(g, lp)
    return pac_epsilon(m, delta, g + lp)


def srm_select(remp, m, delta, vartheta, prior=None):
    """Structural risk minimisation over nested classes, LKC §4.2.3 and eq. (4.20).

    Parameters
    ----------
    remp : (s,) array_like in [0, 1]
        Training errors of the chosen hypothesis in each class ``H_1, ..., H_s``.
    m : int, >= 1
    delta : float in (0, 1)
    vartheta : (s,) array_like of int, >= 1
        VC dimensions; ``G_{H_i}(2m)`` is bounded by eq. (4.17) (exact Sauer sum).
    prior : (s,) array_like or None
        ``P_S(H_i)``; ``None`` means uniform ``1/s`` (Remark 4.15). Must sum to <= 1.

    Returns
    -------
    index : int
        Index of the class with the smallest bound.
    bounds : (s,) ndarray
        The bound (4.20) of every class (raw).
    """
    remp = np.atleast_1d(check_probability(remp, "remp"))
    vt = np.atleast_1d(check_m(vartheta, "vartheta"))
    if remp.shape != vt.shape or remp.ndim != 1:
        raise ValueError("remp and vartheta must be 1-d sequences of the same length")
    s = len(remp)
    prior = np.full(s, 1.0 / s) if prior is None else np.atleast_1d(check_probability(prior, "prior"))
    if prior.shape != remp.shape:
        raise ValueError("prior must have one entry per class")
    if prior.sum() > 1.0 + 1e-12:
        raise ValueError(f"prior must sum to at most 1, got {prior.sum():.6g}")
    g = growth_exact(2 * int(check_m(m)), vt)
    bounds = np.asarray(srm_bound(remp, m, delta, g, prior), dtype=float)
    return int(np.argmin(bounds)), bounds


def nontrivial_sample_size(vartheta, delta, remp=0.0, target=1.0):
    """Smallest ``m`` at which the Remark 4.11 bound drops below ``target``.

    Finds the least integer ``m`` with ``vc_dimension_bound(remp, m, delta, vartheta)
    < target`` by doubling and bisection (the bound decreases in ``m`` once
    ``2m > vartheta``, LKC Remark 4.11 / Fig. 4.2).

    Parameters
    ----------
    vartheta : array_like of int, >= 1
    delta : array_like in (0, 1)
    remp : array_like in [0, 1), default 0
    target : float in (remp, 1], default 1 (the point where the bound becomes non-trivial)

    Returns
    -------
    m : int or ndarray of int
    """
    vt = check_m(vartheta, "vartheta")
    delta = check_delta(delta)
    remp = check_probability(remp, "remp")
    target = check_positive(target, "target")
    vt, delta, remp, target = broadcast(vt, delta, remp, target)
    if (target <= remp).any():
        raise ValueError("target must exceed remp")
    out = np.empty(vt.shape, dtype=np.int64)
    for idx in np.ndindex(vt.shape):
        args = (float(remp[idx]), float(delta[idx]), int(vt[idx]))

        def ok(mm, args=args):
            return float(vc_dimension_bound(args[0], mm, args[1], args[2])) < float(target[idx])

        lo = max(1, (int(vt[idx]) + 1) // 2)       # 2m > vartheta from here on
        if ok(lo):
            out[idx] = lo
            continue
        hi = 2 * lo
        while not ok(hi):
            hi *= 2
        while hi - lo > 1:                        # invariant: not ok(lo), ok(hi)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        out[idx] = hi
    return out[()] if out.ndim == 0 else out
