"""PAC-Bayesian bounds: single hypotheses, Gibbs and Bayes classifiers, and the margin bound.

Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``); LKC §5.1 (Theorem 5.1
eq. 5.2, Theorem 5.2 eq. 5.5, Lemma 5.3 eq. 5.6, Theorem 5.4 eq. 5.7, Remark 5.5,
Theorem 5.6 eq. 5.8, Remark 5.7 eq. 5.9, Theorem 5.10 eq. 5.11–5.12), App. C.7–C.8
(Lemma C.10, Theorem C.13); TR 99-11 §4 (Theorems 2–3 eq. 15, Corollary 1 eq. 17,
Corollary 2, §4.3 and App. A.3 for the mirrored version space); BPM §5.

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
(:func:`kernelclf.bounds.trivial`). Where the premise of a theorem fails (a normalised
margin ``Gamma <= 0``, i.e. a training error) the function returns ``inf``.

The kl form. Eq. (5.9) comes from Hoeffding's inequality. The tighter standard form
(Seeger 2002; Maurer 2004) bounds the binary relative entropy instead,
``kl(E_Q R_emp || E_Q R) <= (KL(Q||P) + ln(2 sqrt(m)/delta)) / m`` for ``m >= 8``; the
risk bound is its inverse in the second argument, :func:`kl_inverse` (bisection,
robust at the ends ``q = 0`` and ``q = 1``). Pinsker's inequality
``kl(q||p) >= 2 (p - q)^2`` turns it back into a square-root bound, which lies below
eq. (5.9) for every input (tested). The same inversion applied to the binomial tail
(Chernoff) gives :func:`occam_kl_bound`, a kl form of the first part of Theorem 5.6.
These two are not printed in the sources; they are flagged as such in their docstrings.

The threshold of Theorem 5.10. ``-ln(1 - sqrt(1 - Gamma^2)) < 1/2`` exactly when
``Gamma > sqrt(2 e^{-1/2} - e^{-1}) = 0.91934`` (:func:`margin_threshold`); our copy
of LKC prints "≈ 0.91", the seed inventory 0.919.
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
    # LKC §5.1.2
    "margin_threshold",
    "margin_log_volume_bound",
    "pac_bayes_margin_bound",
    "normalized_margin",
    "normalized_margin_of",
    "mirrored_sample",
    # TR 99-11 §4
    "tr_gibbs_bound",
    "tr_bayes_bound",
    "tr_bayes_version_space_bound",
    "tr_svm_bound",
    # BPM Theorem 10 / Lemma 14
    "centre_of_mass_kappa",
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

    Also TR 99-11 Theorem 2, eq. (15) (:func:`tr_gibbs_bound`). The proof applies the
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


def mirrored_sample(X, w):
    """Mirror images ``x'_i = 2 <w, x_i> w - x_i`` of the training points about ``w`` (TR §4.3).

    Reflecting a hyperplane with normal ``x_i`` through the point ``w`` of the unit sphere
    gives the hyperplane with normal ``x'_i`` (TR App. A.3; the printed formula in TR §4.3
    drops the trailing ``w``, erratum E15). With the original labels,
    ``R(w) = V(S) ∩ V(S'(w))`` is point-symmetric about ``w``, hence Bayes-admissible
    (TR Lemma 4), and its volume enters :func:`tr_bayes_bound`.

    Parameters
    ----------
    X : (m, n) array
    w : (n,) array, normalised inside
    """
    X = as_float(X, "X")
    w = as_float(w, "w").ravel()
    if X.ndim != 2 or X.shape[1] != w.size:
        raise ValueError(f"shapes do not match: X {X.shape}, w {w.shape}")
    nw = np.linalg.norm(w)
    if nw == 0 or not np.isfinite(nw):
        raise ValueError("w must be a finite non-zero vector")
    w = w / nw
    return 2.0 * np.outer(X @ w, w) - X


# ---------------------------------------------------------------------------------------
# TR 99-11 §4
# ---------------------------------------------------------------------------------------
def tr_gibbs_bound(ell, epsilon, volume=None, *, log_inv_volume=None):
    """TR 99-11 Theorem 2, eq. (15) (McAllester): the Gibbs bound of LKC Theorem 5.2.

    ``R(P_Q) <= (ln(1/vol(Q; P_H)) + ln(1/epsilon) + 2 ln ell + 1) / ell`` for every
    measurable ``Q`` inside version space, with confidence ``1 - epsilon``.
    """
    return gibbs_bound(ell, epsilon, volume, log_inv_mass=log_inv_volume)


def tr_bayes_bound(ell, epsilon, volume=None, *, log_inv_volume=None):
    """TR 99-11 Theorem 3: twice :func:`tr_gibbs_bound` for the Bayes classifier of ``P_Q``.

    Equal to LKC eq. (5.7) with ``|Y| = 2``.
    """
    return bayes_bound(ell, epsilon, volume, log_inv_mass=log_inv_volume, n_classes=2)


def tr_bayes_version_space_bound(ell, epsilon, volume=None, *, log_inv_volume=None):
    """TR 99-11 Corollary 1, eq. (17): Theorem 3 with ``Q = V(S)``.

    ``(2/ell)(ln(1/vol(V(S))) + ln(1/epsilon) + 2 ln ell + 1)``; trivial once
    ``vol(V(S)) <= 2^-ell`` (roughly, TR §4.1). TR's example "``omega = 0.01``, ``ell = 100``
    gives less than 70%" (``vol = 100 * 2^-100``) evaluates to 1.56 here (0.78 for the Gibbs
    classifier); erratum E18.
    """
    return tr_bayes_bound(ell, epsilon, volume, log_inv_volume=log_inv_volume)


def tr_svm_bound(ell, gamma, epsilon, n):
    """TR 99-11 Corollary 2: the linear SVM bound on the unit sphere of ``R^n``.

    For inputs on the unit sphere, a hyperplane ``||w|| = 1`` with margin
    ``gamma = min_i y_i <w, x_i>`` has, with confidence ``1 - epsilon``,

    ``R <= (2/ell)(n ln kappa + 2 ln ell + ln(1/epsilon) + 1)``, ``kappa = 4/gamma^2``,

    from ``ln(vol(H)/vol(B(S))) <= n ln(4/gamma^2)`` (TR App. B.1, Lemma 2 with
    ``x = gamma^2/4``). ``inf`` where ``gamma <= 0``.

    Parameters
    ----------
    ell : array_like of int, >= 1
    gamma : array_like, <= 1
    epsilon : array_like in (0, 1)
    n : array_like of int, >= 1
    """
    ell = check_m(ell, "ell")
    g = as_float(gamma, "gamma")
    if (g > 1 + 1e-12).any():
        raise ValueError(f"gamma must be <= 1 on the unit sphere, got {gamma!r}")
    eps = check_delta(epsilon, "epsilon")
    n = check_int(n, "n", minimum=1)
    ell, g, eps, n = broadcast(ell, g, eps, n)
    with np.errstate(divide="ignore"):
        kappa = np.where(g > 0, 4.0 / np.where(g > 0, g, 1.0) ** 2, np.inf)
        val = 2.0 / ell * (n * np.log(kappa) + 2.0 * np.log(ell) + np.log(1.0 / eps) + 1.0)
    return result(val)


# ---------------------------------------------------------------------------------------
# BPM Theorem 10 / Lemma 14: the centre of mass as a proxy for the Bayes point
# ---------------------------------------------------------------------------------------
#: where ``f(x) = arccos(x)/pi - (1 - x)/2`` peaks on (0, 1): ``sqrt(1 - 4/pi^2)``
CENTRE_OF_MASS_X_STAR = float(np.sqrt(1.0 - 4.0 / np.pi ** 2))


def centre_of_mass_kappa(epsilon, printed=False):
    """The slack ``kappa(epsilon)`` of BPM Theorem 10 and Lemma 14 (erratum E13).

    Lemma 14 replaces the angle ``arccos(<v, w>)/pi`` between unit vectors by the
    Euclidean proxy ``||w - v||^2 / 4 = (1 - <v, w>)/2``; ``kappa`` bounds the
    difference ``f(x) = arccos(x)/pi - (1 - x)/2`` over every ``x = |<v, w>| > epsilon``
    (``f`` is odd, zero at 0 and 1, and peaks at ``x* = sqrt(1 - 4/pi^2) ~ 0.7712``
    with ``f(x*) ~ 0.1053``). So ``sup_{x > epsilon} f(x) = f(epsilon)`` when
    ``epsilon >= x*`` and ``f(x*) <= 0.11`` otherwise: the regime boundary is ``x*``.
    The paper prints "``f(epsilon)`` if ``epsilon < 0.23``, 0.11 otherwise" — the 0.23
    is ``1 - x*``, and with it ``kappa`` is smaller than the supremum for every
    ``epsilon`` in (0, 0.23), where it returns ``f(epsilon)`` although inner products up to
    ``x*`` are allowed (for ``epsilon = 0.1`` it gives 0.018 instead of 0.105), so the
    printed form is not a bound. ``printed=True`` returns that form for comparison.
    """
    eps = check_probability(epsilon, "epsilon")
    f = np.arccos(eps) / np.pi - (1.0 - eps) / 2.0
    if printed:
        return result(np.where(eps < 0.23, f, 0.11))
    return result(np.where(eps >= CENTRE_OF_MASS_X_STAR, f, 0.11))

