"""PAC-Bayesian bounds: single hypotheses, Gibbs and Bayes classifiers, and their kl forms.

Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``); LKC §5.1.1 (Theorem 5.1
eq. 5.2, Theorem 5.2 eq. 5.5, Lemma 5.3 eq. 5.6, Theorem 5.4 eq. 5.7, Remark 5.5,
Theorem 5.6 eq. 5.8, Remark 5.7 eq. 5.9), App. C.7 (Lemma C.10). The margin bound of
LKC §5.1.2 is in :mod:`kernelclf.bounds.pac_bayes_margin`; TR 99-11 §4 and BPM Theorem 10
(bounds for the Bayes point) are in :mod:`kernelclf.bounds.bayes_point`.

Notation as in LKC: ``m`` sample size (TR: ``ell``), ``delta`` confidence (TR:
``epsilon``), ``mass`` the prior probability ``P_H(H(z))`` of the set of hypotheses a
bound is about (a single hypothesis, a subset of version space, version space itself:
the *evidence* under the PAC likelihood, Remark 5.5; TR: ``vol(Q; P_H)``). Every
function taking ``mass`` also accepts its negative logarithm through the keyword
``log_inv_mass = ln(1/mass)`` (exactly one of the two), because version-space volumes
underflow long before the bounds become uninteresting (``2^-2000``). Logarithms are
natural in this chapter.

Return convention of :mod:`kernelclf.bounds`: every bound returns the raw right-hand
side of its theorem, never clipped; a value >= 1 is trivial
(:func:`kernelclf.bounds.trivial`).

The kl form. Eq. (5.9) comes from Hoeffding's inequality. The tighter standard form
(Seeger 2002; Maurer 2004) bounds the binary relative entropy instead,
``kl(E_Q R_emp || E_Q R) <= (KL(Q||P) + ln(2 sqrt(m)/delta)) / m`` for ``m >= 8``; the
risk bound is its inverse in the second argument, :func:`kl_inverse` (bisection,
robust at the ends ``q = 0`` and ``q = 1``). Pinsker's inequality
``kl(q||p) >= 2 (p - q)^2`` turns it back into a square-root bound, which lies below
eq. (5.9) for every input (tested). The same inversion applied to the binomial tail
(Chernoff) gives :func:`occam_kl_bound`, a kl form of the first part of Theorem 5.6.
These two are not printed in the sources; they are flagged as such in their docstrings.
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
    check_probability,
    result,
)

__all__ = [
    # LKC §5.1.1
    "occam_bound",
    "gibbs_bound",
    "gibbs_bayes_factor",
    "bayes_bound",
    "trivial_mass",
    "occam_bound_with_errors",
    "gibbs_bound_with_errors",
    "kl_bound",
    # kl forms
    "binary_kl",
    "kl_inverse",
    "kl_pac_bayes_bound",
    "occam_kl_bound",
    "gaussian_kl",
]


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _complexity(mass, log_inv_mass, name="mass"):
    """``ln(1/mass)`` from exactly one of ``mass`` in (0, 1] or ``log_inv_mass >= 0``."""
    if (mass is None) == (log_inv_mass is None):
        raise ValueError(f"give exactly one of {name} and log_inv_{name}")
    if mass is not None:
        p = check_probability(mass, name)
        if (p <= 0).any():
            raise ValueError(f"{name} must be > 0 (a set of prior probability 0 has no bound), "
                             f"got {mass!r}")
        return -np.log(p)
    return check_nonnegative(log_inv_mass, f"log_inv_{name}", allow_inf=True)


def _n_classes(n_classes):
    k = check_int(n_classes, "n_classes", minimum=2)
    return k.astype(float)


# ---------------------------------------------------------------------------------------
# LKC §5.1.1: bounds for Bayesian algorithms
# ---------------------------------------------------------------------------------------
def occam_bound(m, delta, mass=None, *, log_inv_mass=None):
    """Bound for single hypotheses, LKC Theorem 5.1, eq. (5.2).

    With probability at least ``1 - delta``, every hypothesis with zero training error
    and prior probability ``P_H(h) = mass > 0`` has

    ``R[h] <= (ln(1/P_H(h)) + ln(1/delta)) / m``.

    The binomial tail ``P(R_emp = 0, R > eps) < exp(-m eps)`` for one hypothesis,
    spread over a countable class with the weights ``P_H(h)`` (Lemma 4.14).

    Parameters
    ----------
    m : array_like of int, >= 1
    delta : array_like in (0, 1)
    mass : array_like in (0, 1], optional
        Prior probability ``P_H(h)`` of the hypothesis.
    log_inv_mass : array_like, >= 0, keyword only
        ``ln(1/P_H(h))`` instead of ``mass``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    delta = check_delta(delta)
    c = _complexity(mass, log_inv_mass)
    m, delta, c = broadcast(m, delta, c)
    return result((c + np.log(1.0 / delta)) / m)


def gibbs_bound(m, delta, mass=None, *, log_inv_mass=None):
    """Bound for the Gibbs classifier over a subset of version space, LKC Theorem 5.2, eq. (5.5).

    With probability at least ``1 - delta``, for every subset ``H(z)`` of version space with
    ``P_H(H(z)) = mass > 0``, the Gibbs classifier that draws ``h`` from the prior
    restricted to ``H(z)`` has

    ``R[Gibbs_H(z)] <= (ln(1/P_H(H(z))) + 2 ln m + ln(1/delta) + 1) / m``.

    Also TR 99-11 Theorem 2, eq. (15)
    (:func:`~kernelclf.bounds.bayes_point.tr_gibbs_bound`). The proof applies the
    quantifier reversal lemma (Lemma C.10) with ``alpha = P_H(H(z))/m`` and
    ``beta = 1/m``.

    Parameters
    ----------
    m : array_like of int, >= 1
    delta : array_like in (0, 1)
    mass : array_like in (0, 1], optional
        ``P_H(H(z))``; for ``H(z) = V(z)`` the evidence under the PAC likelihood.
    log_inv_mass : array_like, >= 0, keyword only

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    delta = check_delta(delta)
    c = _complexity(mass, log_inv_mass)
    m, delta, c = broadcast(m, delta, c)
    return result((c + 2.0 * np.log(m) + np.log(1.0 / delta) + 1.0) / m)


def gibbs_bayes_factor(gibbs_risk, n_classes=2):
    """Gibbs-Bayes lemma, LKC Lemma 5.3, eq. (5.6): ``R[Bayes_z] <= |Y| R[Gibbs_z]``.

    Where the Bayes classifier errs, at least a fraction ``1/|Y|`` of the posterior
    (its majority) errs too. TR 99-11 proves the binary case in Theorem 3.

    Parameters
    ----------
    gibbs_risk : array_like in [0, 1] (or a bound on it, >= 0)
    n_classes : int, >= 2
    """
    r = check_nonnegative(gibbs_risk, "gibbs_risk", allow_inf=True)
    k = _n_classes(n_classes)
    r, k = broadcast(r, k)
    return result(k * r)


def bayes_bound(m, delta, mass=None, *, log_inv_mass=None, n_classes=2):
    """Bound for the Bayes classifier over a subset of version space, LKC Theorem 5.4, eq. (5.7).

    ``R[Bayes_H(z)] <= (|Y|/m)(ln(1/P_H(H(z))) + 2 ln m + ln(1/delta) + 1)``:
    :func:`gibbs_bound` times ``|Y|`` (Lemma 5.3). For two classes this is TR 99-11
    Theorem 3 and, with ``H(z) = V(z)``, Corollary 1, eq. (17). Trivial as soon as
    ``P_H(V(z)) <= exp(-m/|Y|)`` (:func:`trivial_mass`).

    Parameters
    ----------
    m : array_like of int, >= 1
    delta : array_like in (0, 1)
    mass : array_like in (0, 1], optional
    log_inv_mass : array_like, >= 0, keyword only
    n_classes : int, >= 2
        ``|Y|``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    g = gibbs_bound(m, delta, mass, log_inv_mass=log_inv_mass)
    return gibbs_bayes_factor(g, n_classes)


def trivial_mass(m, n_classes=2):
    """``exp(-m/|Y|)``: below this prior mass eq. (5.7) exceeds one (LKC after Theorem 5.4).

    The remark drops the positive terms ``2 ln m + ln(1/delta) + 1``; the bound is
    trivial somewhat earlier.
    """
    m = check_m(m)
    k = _n_classes(n_classes)
    m, k = broadcast(m, k)
    return result(np.exp(-m / k))


def occam_bound_with_errors(m, emp_risk, delta, mass=None, *, log_inv_mass=None):
    """Single-hypothesis bound with training errors, LKC Theorem 5.6 (first part).

    With probability at least ``1 - delta``, for all ``h`` with ``P_H(h) = mass > 0``:

    ``R[h] <= R_emp[h, z] + sqrt((ln(1/P_H(h)) + ln(1/delta)) / (2m))``

    (Hoeffding's inequality in place of the binomial tail). See :func:`occam_kl_bound`
    for the tighter kl form.

    Parameters
    ----------
    m : array_like of int, >= 1
    emp_risk : array_like in [0, 1]
    delta : array_like in (0, 1)
    mass, log_inv_mass : prior probability of ``h`` (exactly one)
    """
    m = check_m(m)
    q = check_probability(emp_risk, "emp_risk")
    delta = check_delta(delta)
    c = _complexity(mass, log_inv_mass)
    m, q, delta, c = broadcast(m, q, delta, c)
    return result(q + np.sqrt((c + np.log(1.0 / delta)) / (2.0 * m)))


def gibbs_bound_with_errors(m, emp_risk, delta, mass=None, *, log_inv_mass=None):
    """Gibbs bound with training errors, LKC Theorem 5.6, eq. (5.8).

    With probability at least ``1 - delta``, for every subset ``H(z)`` with
    ``P_H(H(z)) = mass > 0`` (not necessarily inside version space),

    ``R[Gibbs_H(z)] <= R_emp[H(z), z] + sqrt((ln(1/P_H(H(z))) + 2 ln m + ln(1/delta)) / (2m))
    + 1/m``,

    where ``R_emp[H(z), z]`` (``emp_risk``) is the average training error of the
    hypotheses in ``H(z)`` under the restricted prior.

    Parameters
    ----------
    m : array_like of int, >= 1
    emp_risk : array_like in [0, 1]
    delta : array_like in (0, 1)
    mass, log_inv_mass : prior probability of ``H(z)`` (exactly one)
    """
    m = check_m(m)
    q = check_probability(emp_risk, "emp_risk")
    delta = check_delta(delta)
    c = _complexity(mass, log_inv_mass)
    m, q, delta, c = broadcast(m, q, delta, c)
    return result(q + np.sqrt((c + 2.0 * np.log(m) + np.log(1.0 / delta)) / (2.0 * m)) + 1.0 / m)


def kl_bound(m, emp_risk, kl, delta):
    """PAC-Bayesian bound for a posterior measure ``Q``, LKC Remark 5.7, eq. (5.9).

    Uniformly over all measures ``Q`` on the hypothesis space, with probability at
    least ``1 - delta`` the Gibbs classifier of ``Q`` has

    ``R[Gibbs_Q] <= E_Q R_emp[H, z] + sqrt((KL(Q||P) + ln m + ln(1/delta) + 2) / (2m - 1))``.

    Parameters
    ----------
    m : array_like of int, >= 1
    emp_risk : array_like in [0, 1]
        ``E_Q R_emp[H, z]``, the ``Q``-average training error.
    kl : array_like, >= 0
        ``KL(Q||P)`` in nats (e.g. :func:`gaussian_kl`).
    delta : array_like in (0, 1)
    """
    m = check_m(m)
    q = check_probability(emp_risk, "emp_risk")
    kl = check_nonnegative(kl, "kl", allow_inf=True)
    delta = check_delta(delta)
    m, q, kl, delta = broadcast(m, q, kl, delta)
    return result(q + np.sqrt((kl + np.log(m) + np.log(1.0 / delta) + 2.0) / (2.0 * m - 1.0)))


# ---------------------------------------------------------------------------------------
# kl forms
# ---------------------------------------------------------------------------------------
def _kl_raw(q, p):
    """``kl(q||p)`` for float arrays, ``0 ln 0 = 0``, ``+inf`` where ``p`` in {0, 1} and ``q != p``."""
    q, p = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(p, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0) / p), 0.0)
        b = np.where(q < 1, (1 - q) * np.log(np.where(q < 1, 1 - q, 1.0) / (1 - p)), 0.0)
    out = a + b
    out = np.where(np.isnan(out), np.inf, out)
    return np.maximum(out, 0.0)


def binary_kl(q, p):
    """Relative entropy of Bernoulli laws, ``kl(q||p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))``.

    ``0 ln 0 = 0``; ``+inf`` where ``p`` is 0 or 1 and ``q`` differs from it.

    Parameters
    ----------
    q, p : array_like in [0, 1]
    """
    q = check_probability(q, "q")
    p = check_probability(p, "p")
    q, p = broadcast(q, p)
    return result(_kl_raw(q, p))


def kl_inverse(q, c, tol=1e-12, max_iter=200):
    """Upper inverse of the binary kl: ``sup{p in [q, 1] : kl(q||p) <= c}``, by bisection.

    ``kl(q||.)`` is continuous and increasing on ``[q, 1)`` from 0 to ``+inf`` (for
    ``q < 1``), so the set is an interval ``[q, p*]`` with ``p* < 1`` for finite ``c`` and
    bisection on it converges whatever ``q`` and ``c``: ``p* = 1`` only for ``c = inf`` or
    ``q = 1``, ``p* = q`` when ``c = 0``. The returned value is the lower end of the final
    bracket, so it satisfies ``kl(q||p) <= c`` and lies within ``tol`` of ``p*``.

    Parameters
    ----------
    q : array_like in [0, 1]
    c : array_like, >= 0 (``inf`` allowed)
    tol : float, > 0
    max_iter : int, >= 1
        Cap on bisection steps (60 reach double precision).

    Returns
    -------
    p : float or ndarray
    """
    q = check_probability(q, "q")
    c = check_nonnegative(c, "c", allow_inf=True)
    tol = float(check_nonnegative(tol, "tol"))
    max_iter = int(check_int(max_iter, "max_iter", minimum=1))
    q, c = broadcast(q, c)
    q = q.astype(float).copy()
    c = c.astype(float).copy()
    lo = q.copy()
    hi = np.ones_like(q)
    full = np.isinf(c) | (q >= 1.0)
    lo = np.where(full, 1.0, lo)
    for _ in range(max_iter):
        if np.all(hi - lo <= tol):
            break
        mid = 0.5 * (lo + hi)
        ok = _kl_raw(q, mid) <= c
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    return result(lo)


def kl_pac_bayes_bound(m, emp_risk, kl, delta):
    """kl form of the PAC-Bayesian bound of Remark 5.7 (Seeger 2002, Maurer 2004).

    Uniformly over posteriors ``Q``, with probability at least ``1 - delta``,

    ``kl(E_Q R_emp || R[Gibbs_Q]) <= (KL(Q||P) + ln(2 sqrt(m) / delta)) / m``  (``m >= 8``),

    so ``R[Gibbs_Q] <= kl_inverse(E_Q R_emp, (KL + ln(2 sqrt(m)/delta)) / m)``. Not printed
    in LKC or TR: a standard tightening of eq. (5.9), always below it (Pinsker's inequality
    gives ``<= E_Q R_emp + sqrt((KL + ln(2 sqrt m / delta)) / (2m))``, whose numerator and
    denominator are smaller and larger than those of eq. 5.9).

    Parameters
    ----------
    m : array_like of int, >= 8
    emp_risk : array_like in [0, 1]
    kl : array_like, >= 0
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray, in [emp_risk, 1]
    """
    m = check_m(m, minimum=8)
    q = check_probability(emp_risk, "emp_risk")
    kl = check_nonnegative(kl, "kl", allow_inf=True)
    delta = check_delta(delta)
    m, q, kl, delta = broadcast(m, q, kl, delta)
    return kl_inverse(q, (kl + np.log(2.0 * np.sqrt(m) / delta)) / m)


def occam_kl_bound(m, emp_risk, delta, mass=None, *, log_inv_mass=None):
    """kl form of the single-hypothesis bound (Chernoff's binomial tail, Langford 2005).

    For one hypothesis, ``P(R_emp <= q) <= exp(-m kl(q || R))`` when ``q <= R``; spreading
    ``delta`` with the prior as in Theorem 5.1 gives, with probability ``1 - delta``, for all
    ``h`` with ``P_H(h) > 0``:
    ``R[h] <= kl_inverse(R_emp[h, z], (ln(1/P_H(h)) + ln(1/delta)) / m)``.

    At ``R_emp = 0`` this is ``1 - exp(-(ln(1/P_H(h)) + ln(1/delta))/m)``, slightly below
    eq. (5.2); with errors it is below the first part of Theorem 5.6 (Pinsker). Not printed
    in the sources.
    """
    m = check_m(m)
    q = check_probability(emp_risk, "emp_risk")
    delta = check_delta(delta)
    c = _complexity(mass, log_inv_mass)
    m, q, delta, c = broadcast(m, q, delta, c)
    return kl_inverse(q, (c + np.log(1.0 / delta)) / m)


def gaussian_kl(mean_q, cov_q, mean_p, cov_p):
    """``KL(Q||P)`` of two multivariate normal laws (nats), for eq. (5.9) with Gaussian posteriors.

    ``0.5 (tr(S_p^-1 S_q) + (mu_p - mu_q)' S_p^-1 (mu_p - mu_q) - n + ln det S_p - ln det S_q)``.

    Parameters
    ----------
    mean_q, mean_p : (n,) arrays
    cov_q, cov_p : (n, n) symmetric positive definite arrays
    """
    mq = as_float(mean_q, "mean_q").ravel()
    mp = as_float(mean_p, "mean_p").ravel()
    Sq = as_float(cov_q, "cov_q")
    Sp = as_float(cov_p, "cov_p")
    n = mq.size
    if mp.size != n or Sq.shape != (n, n) or Sp.shape != (n, n):
        raise ValueError(f"shapes do not match: means {mq.shape}, {mp.shape}, covariances "
                         f"{Sq.shape}, {Sp.shape}")
    for S, name in [(Sq, "cov_q"), (Sp, "cov_p")]:
        if not np.isfinite(S).all() or not np.allclose(S, S.T, atol=1e-10 * max(1.0, np.abs(S).max())):
            raise ValueError(f"{name} must be a finite symmetric matrix")
    try:
        Lq = np.linalg.cholesky(Sq)
        Lp = np.linalg.cholesky(Sp)
    except np.linalg.LinAlgError as exc:
        raise ValueError("covariances must be positive definite") from exc
    A = np.linalg.solve(Lp, Lq)
    d = np.linalg.solve(Lp, mp - mq)
    logdet = 2.0 * (np.log(np.diag(Lp)).sum() - np.log(np.diag(Lq)).sum())
    return float(0.5 * (np.sum(A**2) + d @ d - n + logdet))
