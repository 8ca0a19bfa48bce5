"""Ruján and Marchand's billiards: the flipper, the light trap and the onion billiard.

Book chapter 11 (``book/11_kernel_billiard.md``); Ruján & Marchand, "Computing the
Bayes kernel classifier" (RM, in *Advances in Large Margin Classifiers*, 2000),
§18.3-18.5, Alg. 18.1, eq. 18.18-18.27.

These variants build on the kernel billiard of :mod:`kernelclf.bayespoint.billiard` (LKC
Algorithm 10): a threshold coordinate with arc-length weights (the flipper),
semi-transparent walls that lead a ball from any start into version space (the
light trap), and centres of mass of the regions with a given number of training
errors (the onion, or soft, billiard).

Every random direction - the flipper's (it is a kernel billiard), the light trap's start
and escapes, the onion billiard's start and restarts - is drawn by the same helper as the
kernel billiard's, ``_random_direction`` of :mod:`kernelclf.bayespoint.billiard`, from the
one generator made from ``random_state`` (NumPy's global random state is never used for a
seeded call).
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.utils import check_random_state

from ..kernels.gram import Gram
from ..kernels.vector import as_kernel
from ..margin.separability import _check_labels
from .billiard import _NoTangentDirection, _random_direction, kernel_billiard
from .versionspace import find_version_space_point

__all__ = ["flipper", "light_trap", "onion_billiard", "hoeffding_sample_size",
           "flipper_bounce_estimate"]


def flipper(G=None, y=None, *, kernel=None, X=None, lam=0.0, **kwargs):
    """Ruján–Marchand's flipper with a threshold coordinate (RM Alg. 18.1).

    The threshold is an extra coordinate: every example becomes ``(phi(x),
    1)``, i.e. the kernel ``k + 1``, and its plane normal is ``y (phi(x),
    1) / sqrt(k(x, x) + 1)`` (RM eq. 18.18–18.26; eq. 18.21 prints a stray ``alpha_p``
    in it, E21).  Arc-length weights with
    great-circle averaging (RM eq. 18.27) replace ⊕µ.  Returns ``(result,
    intercept)`` with ``intercept = sum_i alpha_i`` (the threshold
    coordinate of the centre of mass), so that ``f(x) = sum_i alpha_i
    k(x_i, x) + intercept``.  As in RM Alg. 18.1 (step 5) a ball that escapes - no wall
    within ``tau_max``, RM's ``tau = inf`` - restarts from the current centre of mass in a
    fresh random direction (``restart="centre"``, the default here; pass
    ``restart="geodesic"`` or ``"random"`` for the kernel billiard's other rules), and
    ``refresh`` adds random directions.  Keyword arguments go to
    :func:`~kernelclf.bayespoint.billiard.kernel_billiard`; :func:`flipper_bounce_estimate`
    is RM's estimate (eq. 18.13) of the bounces needed.
    """
    if G is None:
        K = np.asarray(as_kernel(kernel)(X), dtype=float)
    else:
        K = np.asarray(G, dtype=float)
    kwargs.setdefault("weighting", "arc")
    kwargs.setdefault("restart", "centre")
    res = kernel_billiard(K + 1.0, y, lam=lam, **kwargs)
    return res, float(np.sum(res.alpha))


def light_trap(G, y, start=None, max_bounces=10000, random_state=None):
    """Light-trap start (RM §18.5.2): semi-transparent walls lead into version space.

    The ball flies to the nearest hyperplane ahead.  If it is on the correct
    side of that plane (example currently classified correctly) it is
    reflected; if it is on the wrong side it passes through and the example
    becomes correct.  The number of training errors therefore never
    increases.  The default start is the class-centroid classifier
    ``alpha_i = y_i / m_{y_i}`` (the Gaussian-kernel limit sigma -> 0).

    Returns ``(gamma, errors)``: a point with zero errors (if reached) and
    the error count after every flight.
    """
    G = np.asarray(G, dtype=float)
    m = G.shape[0]
    y = _check_labels(y, m)
    rng = check_random_state(random_state)
    if start is None:
        npos, nneg = np.sum(y > 0), np.sum(y < 0)
        gamma = np.where(y > 0, 1.0 / npos, -1.0 / nneg)
    else:
        gamma = np.asarray(start, dtype=float).copy()
    u = G @ gamma
    gamma, u = gamma / np.sqrt(gamma @ u), u / np.sqrt(gamma @ u)
    cols = Gram(G=G)
    try:
        beta, w = _random_direction(cols, rng, y, None, gamma, u)
    except _NoTangentDirection:  # one-dimensional span: the ball cannot move
        return gamma, [int(np.sum(y * u <= 0))]
    wrong = y * u <= 0
    errors = [int(wrong.sum())]
    last = None
    kd = np.diag(G)
    for _ in range(int(max_bounces)):
        if errors[-1] == 0:
            break
        d, nu = y * u, y * w
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = -d / nu
        tau[~np.isfinite(tau) | (tau < 0)] = np.inf
        if last is not None:
            tau[last] = np.inf
        c = int(np.argmin(tau))
        if not np.isfinite(tau[c]):  # no plane ahead: a fresh direction
            beta, w = _random_direction(cols, rng, y, None, gamma, u)
            last = None
            continue
        gamma = gamma + tau[c] * beta
        u = u + tau[c] * w
        s = np.sqrt(gamma @ u)
        gamma, u = gamma / s, u / s
        if not wrong[c]:  # correct side: the mirror reflects
            coef = -2.0 * w[c] / kd[c]
            beta[c] += coef
            w += coef * G[:, c]
            nb = np.sqrt(beta @ w)
            beta, w = beta / nb, w / nb
        else:  # wrong side: the ball passes and example c becomes correct
            wrong[c] = False
        last = c
        errors.append(int(wrong.sum()))
    return gamma, errors


def onion_billiard(G, y, n_shells=3, n_flights=2000, random_state=None):
    """Soft (onion) billiard (RM §18.5.3): centres of mass of error shells.

    Starting inside the zero-error version space, the ball flies through
    the planes instead of stopping at the first one.  Along each flight the
    sorted positive flight times ``tau_(1) < tau_(2) < ...`` cut the ray into
    pieces; the piece between ``tau_(k)`` and ``tau_(k+1)`` lies in the region
    where the classifier makes ``k`` extra errors.  The chord midpoint of each
    piece is accumulated (weighted by its length) into the centre of mass of
    the ``(n_-, n_+)`` error class reached (counted among negative / positive
    examples).  After each flight the ball is reflected at the first plane as
    in the hard billiard.

    Returns a dict ``{(n_neg, n_pos): alpha}`` of normalised centres of mass
    (coefficients); ``(0, 0)`` is the ordinary Bayes point estimate.
    """
    G = np.asarray(G, dtype=float)
    m = G.shape[0]
    y = _check_labels(y, m)
    rng = check_random_state(random_state)
    cols = Gram(G=G)
    gamma, u = find_version_space_point(cols, y, random_state=rng)
    s = np.sqrt(gamma @ u)
    gamma, u = gamma / s, u / s
    try:
        beta, w = _random_direction(cols, rng, y, None, gamma, u)
    except _NoTangentDirection:  # one-dimensional span: version space is the start
        return {(0, 0): gamma}
    sums = {}
    kd = np.diag(G)
    last = None
    for _ in range(int(n_flights)):
        nu, d = y * w, y * u
        ahead = nu < 0
        if last is not None:
            ahead[last] = False
        idx = np.flatnonzero(ahead)
        if len(idx) == 0:
            beta, w = _random_direction(cols, rng, y, last, gamma, u)
            continue
        taus = np.maximum(-d[idx] / nu[idx], 0.0)
        order = np.argsort(taus)
        taus, idx = taus[order], idx[order]
        nneg = npos = 0
        prev = (gamma, u)
        for k in range(min(n_shells + 1, len(taus))):
            g1 = gamma + taus[k] * beta
            u1 = u + taus[k] * w
            q = np.sqrt(g1 @ u1)
            g1, u1 = g1 / q, u1 / q
            g0, u0 = prev
            xi = np.sqrt(max((g0 - g1) @ (u0 - u1), 0.0))
            z = g0 + g1
            z = z / np.sqrt(z @ (u0 + u1))
            key = (nneg, npos)
            acc = sums.setdefault(key, np.zeros(m))
            acc += xi * z
            if y[idx[k]] < 0:
                nneg += 1
            else:
                npos += 1
            prev = (g1, u1)
        c = int(idx[0])
        g1 = gamma + taus[0] * beta
        u1 = u + taus[0] * w
        q = np.sqrt(g1 @ u1)
        gamma, u = g1 / q, u1 / q
        coef = -2.0 * w[c] / kd[c]
        beta[c] += coef
        w += coef * G[:, c]
        nb = np.sqrt(beta @ w)
        beta, w = beta / nb, w / nb
        last = c
    out = {}
    for key, acc in sums.items():
        n = np.sqrt(max(acc @ G @ acc, 1e-300))
        out[key] = acc / n
    return out


def hoeffding_sample_size(n, eps, eta, low=-1.0, high=1.0):
    """Samples that put a mean of ``n``-vectors within ``eps`` w.p. ``1 - eta`` (RM Lemma 18.1).

    RM App. 18.8, eq. 18.29: if ``k`` independent draws of a vector whose ``n`` components
    lie in ``[low, high]`` are averaged, the Euclidean error of the mean is below ``eps``
    with probability at least ``1 - eta`` once

    ``k > n (high - low)^2 / (2 eps^2) * ln(2 n / eta)``

    (Hoeffding's inequality, eq. 18.30, for each component at accuracy ``eps / sqrt(n)``,
    and a union bound over the ``n`` components). Returns the right-hand side (a float);
    the smallest sufficient integer is ``floor(value) + 1``.
    """
    n, eps, eta = int(n), float(eps), float(eta)
    if n < 1 or not eps > 0 or not 0 < eta < 1 or not high > low:
        raise ValueError("need n >= 1, eps > 0, 0 < eta < 1 and high > low")
    return n * (high - low) ** 2 / (2.0 * eps ** 2) * math.log(2.0 * n / eta)


def flipper_bounce_estimate(m, eps, eta, low=-1.0, high=1.0):
    """RM's estimate ``N_B`` of the flipper's bounces (RM eq. 18.13 = eq. 18.31).

    Lemma 18.1 (:func:`hoeffding_sample_size`) applied to the ``m`` dual coefficients
    ``alpha`` of the centre of mass, each assumed to lie in ``[low, high]``: the number of
    *independent* samples of version space that estimate the centre within ``eps`` with
    probability ``1 - eta``. RM add to it the bounces a trajectory needs before its points
    are independent (their correlation length, left open in RM §18.5.1), so it is a lower
    estimate of the bounces, not a bound on them. Book chapter 11 sets it beside the
    billiard's bounce counts.
    """
    return hoeffding_sample_size(m, eps, eta, low, high)
