"""Volume ratios on the unit sphere and Monte-Carlo volumes of version space.

Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``); LKC App. C.8 (Theorem C.13,
Theorem C.14 eq. C.13, Theorem C.15 eq. C.14–C.16, Lemmas C.18 and C.20, Fig. C.5);
TR 99-11 App. B.1 (Lemmas 1–3, eq. 39–44), §4.1–4.3; BPM §5.

Geometry. For a unit vector ``w`` of the sphere in ``R^n`` the cap of points ``v`` with
``<w, v> > 1 - x`` (angular radius ``arccos(1 - x)``, ``x`` in ``(0, 2]``) occupies the
fraction ``∫_0^{arccos(1-x)} sin^{n-2} / ∫_0^π sin^{n-2}`` of the sphere's surface
(Theorem C.14; TR Lemma 1 prints ``∫_0^{2π}`` in the numerator, erratum E17). Three
parametrisations occur in the sources:

* LKC Theorem C.14 and TR Lemma 1: a ball of Euclidean radius ``gamma``,
  ``x = gamma^2 / 2`` (:func:`cap_x_from_radius`);
* LKC Theorem 5.10: the ball ``<w, v> > sqrt(1 - Gamma^2)`` for the normalised margin
  ``Gamma``, ``x = 1 - sqrt(1 - Gamma^2)`` (:func:`cap_x_from_margin`);
* TR Lemma 2 writes the cap as ``arccos(1 - 2x)``: TR's ``x`` is half of LKC's.

:func:`log_volume_ratio` evaluates ``ln(vol(sphere)/vol(cap))`` by quadrature in log space
(no underflow for ``n`` in the thousands), :func:`sin_power_integral_closed_form` is the
closed form ``S(k, x)`` of the proofs of TR Lemma 2 / LKC Theorem C.15 for odd powers.

What we found when checking the printed claims (see ``tests/test_bounds_volume.py``):

* Fig. C.5: the text says the bound (C.14) is "within a factor of 2" of the exact value
  (C.13) for large ``x``. For ``n = 10`` the ratio bound/exact stays below 2.5 on
  ``(0, 1]`` (below 2.2 with the power ``n - 2 = 8``, which Theorem C.15 does not cover)
  and equals 1 at ``x = 1``; for ``n = 100`` it rises to about 6.2 near ``x = 0.86``:
  only the absolute gap is small on the figure's scale (0–200). The factor 2
  is really the small-``x`` limit of bound/exact: the exact value grows like
  ``((n-1)/2) ln(1/x)``, the bound like ``p ln(1/x)`` with the odd power ``p`` used, so
  the limit is ``2p/(n-1)``: ``2(n-2)/(n-1)`` for odd ``n`` (``p = n - 2``) and exactly 2
  for even ``n`` (``p = n - 1``, :func:`log_volume_ratio_bound`). It is approached slowly
  (about ``1/ln(1/x)``): at ``n = 10``, ``x = 1e-9`` the quotient is still 2.03.
* TR Lemma 2 states ``<= -(2k+1) ln x`` (TR's ``x``); LKC Theorem C.15 is sharper,
  ``(2j+1) ln(1/x) + ln 2`` in LKC's ``x = 2 x_TR``, because Bollmann's Lemma C.20 bounds
  the central-binomial sum by ``2x((2x)^{2j} - 1)/(2x - 1)`` where TR Lemma 3 has
  ``2(x^{2k+1} - x)/(2x - 1)``. Both inequalities hold (tested on a grid).
* The proof of Theorem 5.10 applies Theorem C.15, stated for odd powers ``2j+1 = n-2``,
  with the exponent ``n``; since the exact ratio grows with ``n``, even ``n`` is covered
  by the next odd power (:func:`log_volume_ratio_bound` uses ``n - 2`` or ``n - 1``).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from ..bayespoint.versionspace import sample_version_space
from ._validation import as_float, broadcast, check_int, check_positive, result

__all__ = [
    "cap_x_from_radius",
    "cap_x_from_margin",
    "log_sin_power_integral",
    "log_volume_ratio",
    "log_volume_ratio_bound",
    "thm_c15_bound",
    "tr_lemma2_bound",
    "sin_power_integral_closed_form",
    "central_binomial_sum",
    "central_binomial_series",
    "tr_lemma3_bound",
    "bollmann_bound",
    "cap_fraction_mc",
    "version_space_volume",
    "version_space_volume_path",
    "symmetric_region_volume",
]


# ---------------------------------------------------------------------------------------
# parametrisations
# ---------------------------------------------------------------------------------------
def cap_x_from_radius(gamma):
    """``x = gamma^2 / 2`` for a ball of Euclidean radius ``gamma`` in ``(0, 2]`` (Theorem C.14)."""
    g = check_positive(gamma, "gamma")
    if (g > 2).any():
        raise ValueError(f"gamma must lie in (0, 2] (the sphere's diameter), got {gamma!r}")
    return result(g**2 / 2.0)


def cap_x_from_margin(Gamma):
    """``x = 1 - sqrt(1 - Gamma^2)`` for the ball of Theorem 5.10 / C.13, ``Gamma`` in (0, 1]."""
    G = check_positive(Gamma, "Gamma")
    if (G > 1).any():
        raise ValueError(f"Gamma must lie in (0, 1], got {Gamma!r}")
    return result(G**2 / (1.0 + np.sqrt(1.0 - G**2)))


def _check_x(x, upper, name="x"):
    a = check_positive(x, name)
    if (a > upper).any():
        raise ValueError(f"{name} must lie in (0, {upper:g}], got {x!r}")
    return a


def _check_n(n):
    return check_int(n, "n", minimum=2)


# ---------------------------------------------------------------------------------------
# exact ratio (Theorem C.14) by quadrature
# ---------------------------------------------------------------------------------------
def _log_full(p):
    """``ln ∫_0^π sin^p = ln(sqrt(pi) Gamma((p+1)/2) / Gamma(p/2 + 1))``."""
    return 0.5 * math.log(math.pi) + special.gammaln((p + 1) / 2.0) - special.gammaln(p / 2.0 + 1.0)


def _log_head(p, a):
    """``ln ∫_0^a sin^p`` for ``0 < a <= pi/2`` by quadrature of ``(sin t / sin a)^p``."""
    sa = math.sin(a)
    if p == 0:
        return math.log(a)
    log_sa = math.log(sa)

    def f(t):
        return math.exp(p * (math.log(math.sin(t)) - log_sa)) if t > 0 else 0.0

    # the integrand rises from 0 to 1 at t = a and is concentrated in a layer of width ~ 1/p
    lo = max(0.0, a - 50.0 * max(math.tan(a), 1e-300) / p) if p > 50 else 0.0
    val, _ = integrate.quad(f, lo, a, epsabs=0.0, epsrel=1e-12, limit=200)
    return p * log_sa + math.log(val)


def log_sin_power_integral(p, a):
    """``ln ∫_0^a sin^p(t) dt`` for ``p >= 0`` and ``a`` in ``(0, pi]``, by quadrature.

    The integral is written ``sin^p(a) ∫_0^a (sin t / sin a)^p dt`` (``a <= pi/2``) and as
    the full integral (Gamma functions) minus the mirror piece for ``a > pi/2``, so large
    ``p`` and tiny caps do not underflow.
    """
    p = int(check_int(p, "p", minimum=0))
    a = float(check_positive(a, "a"))
    if a > math.pi * (1 + 1e-15):
        raise ValueError(f"a must lie in (0, pi], got {a!r}")
    a = min(a, math.pi)
    if a <= math.pi / 2:
        return _log_head(p, a)
    full = _log_full(p)
    if a >= math.pi:
        return full
    rest = _log_head(p, math.pi - a)
    return full + math.log1p(-math.exp(rest - full))


def log_volume_ratio(n, x):
    """``ln(vol(sphere) / vol(cap))`` on the unit sphere of ``R^n``, LKC Theorem C.14, eq. (C.13).

    ``ln(∫_0^π sin^{n-2} / ∫_0^{arccos(1-x)} sin^{n-2})`` for the cap ``<w, v> > 1 - x``.
    With ``x = gamma^2/2`` it is the ball of Euclidean radius ``gamma``
    (:func:`cap_x_from_radius`); with ``x = 1 - sqrt(1 - Gamma^2)`` the ball of Theorem
    5.10 (:func:`cap_x_from_margin`). ``x = 1`` is a hemisphere (``ln 2``), ``x = 2`` the
    whole sphere (0). The cap's angle is computed as ``2 asin(sqrt(x/2))``, which equals
    ``arccos(1 - x)`` and stays exact for tiny ``x`` (``1 - x`` rounds to 1 below about
    ``1.1e-16``). For ``x -> 0`` the value approaches
    ``((n-1)/2) ln(1/x) + ln ∫_0^π sin^{n-2} - ((n-1)/2) ln 2 + ln(n-1)``.

    Parameters
    ----------
    n : array_like of int, >= 2
    x : array_like in (0, 2]

    Returns
    -------
    float or ndarray
    """
    n = _check_n(n)
    x = _check_x(x, 2.0)
    n, x = broadcast(n, x)
    out = np.empty(n.shape, dtype=float)
    for idx in np.ndindex(n.shape):
        p = int(n[idx]) - 2
        # the angle with 1 - cos a = x; acos(1 - x) would round to 0 for x < 1.1e-16
        a = 2.0 * math.asin(math.sqrt(min(float(x[idx]), 2.0) / 2.0))
        out[idx] = max(_log_full(p) - log_sin_power_integral(p, a), 0.0)
    return result(out)


# ---------------------------------------------------------------------------------------
# bounds (Theorem C.15, TR Lemma 2-3, Lemma C.20)
# ---------------------------------------------------------------------------------------
def thm_c15_bound(j, x):
    """LKC Theorem C.15, eq. (C.14): ``(2j+1) ln(1/x) + ln 2`` for ``x`` in (0, 1].

    Bounds ``ln(∫_0^π sin^{2j+1} / ∫_0^{arccos(1-x)} sin^{2j+1})``, i.e. the log volume
    ratio on the sphere of ``R^{2j+3}``.
    """
    j = check_int(j, "j", minimum=0)
    x = _check_x(x, 1.0)
    j, x = broadcast(j, x)
    return result((2 * j + 1) * np.log(1.0 / x) + np.log(2.0))


def log_volume_ratio_bound(n, x):
    """Theorem C.15 applied on the sphere of ``R^n``: ``p ln(1/x) + ln 2`` with ``p`` odd.

    ``p = n - 2`` when that is odd; otherwise ``p = n - 1`` (the ratio grows with the
    dimension, so the next odd power bounds it). The proof of Theorem 5.10 uses the weaker
    ``n ln(1/x) + ln 2``. Valid for ``x`` in (0, 1]; this is the "bound" curve of Fig. C.5.
    """
    n = _check_n(n)
    x = _check_x(x, 1.0)
    n, x = broadcast(n, x)
    p = np.where((n - 2) % 2 == 1, n - 2, n - 1)
    return result(p * np.log(1.0 / x) + np.log(2.0))


def tr_lemma2_bound(k, x):
    """TR 99-11 Lemma 2, eq. (39): ``-(2k+1) ln x`` for ``x`` in (0, 1/2) (TR's ``x``).

    Bounds ``ln(∫_0^π sin^{2k+1} / ∫_0^{arccos(1-2x)} sin^{2k+1})``; weaker than
    :func:`thm_c15_bound` at ``2x`` by ``2k ln 2``.
    """
    k = check_int(k, "k", minimum=0)
    x = check_positive(x, "x")
    if (x >= 0.5).any():
        raise ValueError(f"x must lie in (0, 1/2) (TR Lemma 2), got {x!r}")
    k, x = broadcast(k, x)
    return result(-(2 * k + 1) * np.log(x))


def sin_power_integral_closed_form(k, x):
    """``S(k, x) = ∫_0^{arccos(1-2x)} sin^{2k+1}``, closed form of TR Lemma 2 / LKC eq. (C.15)–(C.16).

    ``S(k, x) = (1/(2k+1)) (4^k / C(2k, k)) (2x + (2x - 1) sum_{i=1}^k C(2i, i) x^i (1-x)^i)``
    for ``x`` in ``[0, 1]`` (TR's ``x``; ``S(k, 1)`` is the whole integral over ``[0, pi]``).
    """
    k = int(check_int(k, "k", minimum=0))
    x = as_float(x, "x")
    if ((x < 0) | (x > 1)).any():
        raise ValueError(f"x must lie in [0, 1], got {x!r}")
    lead = math.exp(k * math.log(4.0) - math.lgamma(2 * k + 1) + 2 * math.lgamma(k + 1)) / (2 * k + 1)
    return result(lead * (2 * x + (2 * x - 1) * _central_sum(k, x)))


def _central_sum(k, x):
    u = np.asarray(x * (1 - x), dtype=float)
    total = np.zeros_like(u)
    term = np.ones_like(u)
    for i in range(1, k + 1):
        term = term * (2.0 * (2 * i - 1) / i) * u   # C(2i, i) u^i from the previous term (Lemma C.16)
        total = total + term
    return total


def central_binomial_sum(k, x):
    """``sum_{i=1}^k C(2i, i) x^i (1-x)^i`` (TR Lemma 3, LKC Lemma C.20)."""
    k = int(check_int(k, "k", minimum=0))
    x = as_float(x, "x")
    if ((x < 0) | (x > 1)).any():
        raise ValueError(f"x must lie in [0, 1], got {x!r}")
    return result(_central_sum(k, x))


def central_binomial_series(x):
    """``sum_{i>=1} C(2i, i) x^i (1-x)^i = 2x / (1 - 2x)`` for ``x`` in [0, 1/2) (TR eq. 44, Lemma C.18)."""
    x = as_float(x, "x")
    if ((x < 0) | (x >= 0.5)).any():
        raise ValueError(f"x must lie in [0, 1/2), got {x!r}")
    return result(2 * x / (1 - 2 * x))


def tr_lemma3_bound(k, x):
    """TR 99-11 Lemma 3: ``sum_{i=1}^k C(2i,i) x^i(1-x)^i <= 2(x^{2k+1} - x)/(2x - 1)``, ``x`` in (0, 1/2)."""
    k = check_int(k, "k", minimum=1)
    x = check_positive(x, "x")
    if (x >= 0.5).any():
        raise ValueError(f"x must lie in (0, 1/2), got {x!r}")
    k, x = broadcast(k, x)
    return result(2 * (x ** (2 * k + 1) - x) / (2 * x - 1))


def bollmann_bound(j, x):
    """Bollmann's lemma, LKC Lemma C.20: the sum is ``<= 2x((2x)^{2j} - 1)/(2x - 1)``, ``x`` in (0, 1/2)."""
    j = check_int(j, "j", minimum=1)
    x = check_positive(x, "x")
    if (x >= 0.5).any():
        raise ValueError(f"x must lie in (0, 1/2), got {x!r}")
    j, x = broadcast(j, x)
    return result(2 * x * ((2 * x) ** (2 * j) - 1) / (2 * x - 1))


# ---------------------------------------------------------------------------------------
# Monte Carlo
# ---------------------------------------------------------------------------------------
def cap_fraction_mc(n, x, n_draws=200_000, random_state=None):
    """Monte-Carlo fraction of the sphere of ``R^n`` in the cap ``<e_1, v> > 1 - x``.

    Uniform directions are normalised Gaussian vectors; the fraction estimates
    ``exp(-log_volume_ratio(n, x))``. Returns ``(fraction, standard_error)``.
    """
    n = int(check_int(n, "n", minimum=2))
    x = float(_check_x(x, 2.0))
    n_draws = int(check_int(n_draws, "n_draws", minimum=1))
    rng = np.random.default_rng(random_state)
    hits = 0
    done = 0
    while done < n_draws:
        b = min(100_000, n_draws - done)
        V = rng.standard_normal((b, n))
        c = V[:, 0] / np.linalg.norm(V, axis=1)
        hits += int(np.count_nonzero(c > 1 - x))
        done += b
    f = hits / n_draws
    return f, math.sqrt(max(f * (1 - f), 0.0) / n_draws)


def version_space_volume(X, y, n_draws=200_000, random_state=None):
    """Monte-Carlo estimate of the uniform prior mass ``P_W(V(z))`` of version space.

    The fraction of uniform directions on the sphere of ``R^n`` that classify every
    training point correctly, counted with :func:`kernelclf.bayespoint.versionspace.sample_version_space`
    (rejection sampling; small ``n`` and ``m`` only). Under the PAC likelihood this is the
    evidence (LKC Remark 5.5) and ``ln(1/P_W(V(z)))`` the complexity of the Gibbs and Bayes
    bounds (Theorems 5.2 and 5.4; TR Corollary 1, "effective VC dimension").

    Parameters
    ----------
    X : (m, n) array
        Training inputs in explicit feature coordinates (no bias).
    y : (m,) array of -1/+1
    n_draws : int
    random_state : int, Generator or None

    Returns
    -------
    volume : float
        Fraction of accepted directions (0 when none is accepted).
    stderr : float
        Binomial standard error ``sqrt(v (1 - v) / n_draws)``.
    """
    n_draws = int(check_int(n_draws, "n_draws", minimum=1))
    W = sample_version_space(X, y, n_draws=n_draws, random_state=random_state)
    v = len(W) / n_draws
    return v, math.sqrt(max(v * (1 - v), 0.0) / n_draws)


def version_space_volume_path(X, y, n_draws=200_000, random_state=None):
    """``P_W(V(z_1..k))`` for ``k = 0, 1, ..., m``: the volume as the points arrive.

    One call of :func:`kernelclf.bayespoint.versionspace.sample_version_space` on the first point keeps
    the directions of its half-sphere; the later points only filter them, so every prefix is
    measured on the same ``n_draws`` directions (exactly what calling
    :func:`version_space_volume` on each prefix with the same seed would count) and the
    estimates are non-increasing (``V`` of a longer sample is a subset). Returns an array of
    length ``m + 1`` starting with 1.
    """
    X = as_float(X, "X")
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have {X.shape[0]} entries, got shape {y.shape}")
    n_draws = int(check_int(n_draws, "n_draws", minimum=1))
    W = sample_version_space(X[:1], y[:1], n_draws=n_draws, random_state=random_state)
    inside = (W @ (y[:, None] * X).T) > 0
    counts = np.logical_and.accumulate(inside, axis=1).sum(axis=0)
    return np.r_[1.0, counts / n_draws]


def symmetric_region_volume(X, y, w, n_draws=200_000, random_state=None):
    """Monte-Carlo mass of ``R(w) = V(z) ∩ V(z'(w))``, the point-symmetric region of TR §4.3.

    ``z'(w)`` holds the mirror images ``2 <w, x_i> w - x_i`` of the points with their labels
    (:func:`kernelclf.bounds.bayes_point.mirrored_sample`). ``R(w)`` is symmetric about ``w``,
    so the Bayes classifier over it is ``w`` itself (TR Lemma 4) and TR Theorem 3 bounds the
    risk of ``w`` with ``vol(R(w))``. TR Fig. 4 suggests ``vol(R(w_cm)) > vol(R(w_SVM))``.
    Returns ``(volume, stderr)``.
    """
    from .bayes_point import mirrored_sample

    X = as_float(X, "X")
    y = np.asarray(y, dtype=float).ravel()
    Xm = mirrored_sample(X, w)
    return version_space_volume(np.vstack([X, Xm]), np.r_[y, y], n_draws, random_state)
