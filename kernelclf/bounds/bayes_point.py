"""Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``): bounds for the Bayes point.

Also chapter 10 (``book/10_version_space_and_bayes_point.md``, the centre of mass).

A single weight vector ``w`` of version space that votes like the Bayes classifier of a
region around it (a Bayes point of that region) inherits the PAC-Bayesian bound of the
region. TR 99-11 §4 (Theorems 2–3 eq. 15, Corollary 1 eq. 17, Corollary 2, §4.1–4.3,
App. A.3, App. B.1) works this out in its own notation, and BPM §2.3 (Theorem 10), with
App. A (Lemma 14), asks how far the centre of mass is from the Bayes point:

* :func:`tr_gibbs_bound`, :func:`tr_bayes_bound`, :func:`tr_bayes_version_space_bound`:
  TR Theorems 2 and 3 and Corollary 1, i.e. LKC Theorems 5.2 and 5.4
  (:mod:`kernelclf.bounds.pac_bayes`) for two classes (erratum E18 on TR's example);
* :func:`tr_svm_bound`: TR Corollary 2, the ball around the SVM on the unit sphere (LKC's
  sharper form is :func:`kernelclf.bounds.pac_bayes_margin.pac_bayes_margin_bound`);
* :func:`mirrored_sample`: the mirror images that cut out the region
  ``R(w) = V(z) ∩ V(z'(w))``, point-symmetric about ``w`` and so Bayes-admissible
  (TR §4.3; erratum E15); :func:`kernelclf.bounds.volume.symmetric_region_volume`
  estimates its mass;
* :func:`centre_of_mass_kappa`: the slack of BPM Theorem 10 and Lemma 14 (erratum E13).

TR's names: ``ell`` sample size (LKC ``m``), ``epsilon`` confidence (LKC ``delta``),
``volume`` the prior mass ``vol(Q; P_H)`` (LKC ``mass``) or, keyword only, its negative
logarithm ``log_inv_volume``. The bounds return the raw right-hand side of their theorem,
never clipped (a value >= 1 is trivial, :func:`kernelclf.bounds.trivial`), and ``inf``
where a premise fails.
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    as_float,
    broadcast,
    check_delta,
    check_int,
    check_m,
    check_probability,
    result,
)
from .pac_bayes import bayes_bound, gibbs_bound

__all__ = [
    # TR 99-11 §4
    "tr_gibbs_bound",
    "tr_bayes_bound",
    "tr_bayes_version_space_bound",
    "tr_svm_bound",
    "mirrored_sample",
    # BPM Theorem 10 / Lemma 14
    "CENTRE_OF_MASS_X_STAR",
    "centre_of_mass_kappa",
]


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
    classifier) at the confidence ``epsilon = 0.05`` of TR's Fig. 1, which the example does
    not restate (1.59 at ``epsilon = 0.01``); erratum E18.
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
