"""The kernel billiard: the centre of mass of version space in O(m) kernel work per bounce.

Book chapter 11 (``book/11_kernel_billiard.md``); LKC §3.4.1, Algorithm 10 (App. D.6),
App. B.9; BPM §3.1, App. A.4, App. B Alg. 2; TR 99-11 §3, App. A.

The version space of a kernel classifier without bias is the cone
``{w : y_i <w, x_i> > 0 for all i}`` cut by the unit sphere (LKC Def. 2.12, see
:mod:`kernelclf.versionspace`). A billiard ball is shot from a point inside it; it
flies along a great circle to the nearest bounding hyperplane, is reflected there
and flies on. The normalised bounce points are samples from the version space, and
the centre of mass of the trajectory approximates the Bayes point (LKC §3.4.1).

Everything is written in dual variables: a position ``b = sum_i gamma_i x_i``,
a direction ``v = sum_i beta_i x_i`` and the running centre of mass
``w = sum_i alpha_i x_i``.  Algorithm 10 recomputes ``G gamma`` and
``G beta`` at every bounce (``O(m^2)`` kernel work); here the outputs ``G
gamma``, ``G beta`` and ``G alpha`` are cached.  Moving along the ray and
averaging are linear in the caches, and a reflection changes a single
coefficient of ``beta``, so one bounce needs **one kernel column**, i.e.
``m`` kernel evaluations, read from a :class:`kernelclf.gram.Gram` (the stored
matrix, or columns computed on demand with an LRU cache).  Only the (rare)
restarts with a fresh random direction cost ``m^2`` evaluations.

Ruján and Marchand's variants (flipper, light trap, onion billiard) are in
:mod:`kernelclf.rujan`, the two-dimensional polygon billiards in
:mod:`kernelclf.polygon`.

Errata corrected (seed inventory): E2 — the weights ``rho_1, rho_2`` of the
spherical addition ``⊕µ`` (the book's printed radicand is negative);
E12 — the flight time carries a minus sign, ``tau_i = -d_i / nu_i``, and the
stopping rule is skipped on the first pass, where it is ``0/0``;
E14 — soft boundaries add ``lam`` to the diagonal of the Gram matrix.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .gram import Gram
from .versionspace import NotSeparableError, _check_labels, find_version_space_point

__all__ = ["BilliardResult", "rho", "oplus", "slerp_add", "reflect", "kernel_billiard",
           "NotSeparableError"]


# ---------------------------------------------------------------------------
# kernel access: one Gram object (kernelclf.gram)

def _as_gram(G, kernel, X, lam):
    """A :class:`~kernelclf.gram.Gram` of ``G + lam I``.

    A given ``Gram`` is used as it is (its own ridge); a matrix ``G`` is wrapped;
    a ``kernel`` with inputs ``X`` gives columns on demand (``precompute=False``),
    which is what makes one bounce cost ``m`` kernel evaluations.
    """
    if isinstance(G, Gram):
        if lam:
            raise ValueError("pass the ridge to the Gram object (Gram(..., ridge=lam)), "
                             "not lam to the billiard")
        gram = G
    elif G is not None:
        if X is not None:
            raise ValueError("pass either a Gram matrix G or a kernel with inputs X")
        gram = Gram(G=G, ridge=lam)
    else:
        if X is None:
            raise ValueError("pass a Gram matrix G (or a kernelclf.gram.Gram), or a kernel "
                             "with inputs X")
        gram = Gram(kernel, X, ridge=lam, precompute=False)
    if np.any(gram.diag <= 0):
        raise NotSeparableError("every k(x_i, x_i) + lam must be positive (a zero vector "
                         "in feature space cannot bound a version space)")
    return gram

# ---------------------------------------------------------------------------
# spherical weighted addition (LKC App. B.9; BPM App. A.4; TR App. A.4)

def rho(c, mu):
    """Weights ``(rho_1, rho_2)`` of ``s ⊕µ t = rho_1 s + rho_2 t`` for unit vectors.

    ``c = <s, t>`` and ``mu`` in ``[0, 1]`` is the fraction of the chord from
    ``t`` to ``s`` at which the result lies: ``||t - s ⊕µ t|| = mu ||t - s||``.
    Uses the corrected closed form (erratum E2)::

        rho_1 = mu * sqrt((2 - mu^2 (1 - c)) / (1 + c))
        rho_2 = 1 - mu^2 (1 - c) - rho_1 c

    Vectorised over ``c`` and ``mu``; ``c`` is clipped to ``(-1, 1]``.
    """
    if np.ndim(c) == 0 and np.ndim(mu) == 0:  # scalar fast path (once per bounce)
        c, mu = min(max(float(c), -1.0 + 1e-12), 1.0), float(mu)
        if not 0.0 <= mu <= 1.0:
            raise ValueError("mu must lie in [0, 1]")
        a = mu * mu * (1.0 - c)
        r1 = mu * math.sqrt(max(2.0 - a, 0.0) / (1.0 + c))
        return r1, 1.0 - a - r1 * c
    c = np.clip(np.asarray(c, dtype=float), -1.0 + 1e-12, 1.0)
    mu = np.asarray(mu, dtype=float)
    if np.any((mu < 0) | (mu > 1)):
        raise ValueError("mu must lie in [0, 1]")
    a = mu * mu * (1.0 - c)
    r1 = mu * np.sqrt(np.maximum(2.0 - a, 0.0) / (1.0 + c))
    r2 = 1.0 - a - r1 * c
    if r1.ndim == 0:
        return float(r1), float(r2)
    return r1, r2


def oplus(s, t, mu, G=None):
    """Spherical weighted addition ``s ⊕µ t`` of two unit vectors.

    With a Gram matrix ``G`` the vectors are dual coefficients and inner
    products are ``s' G t``; otherwise they are coordinates.  ``mu = 1``
    returns ``s``, ``mu = 0`` returns ``t`` (LKC App. B.9, erratum E2).
    """
    s = np.asarray(s, dtype=float)
    t = np.asarray(t, dtype=float)
    c = float(s @ t) if G is None else float(s @ np.asarray(G) @ t)
    r1, r2 = rho(c, mu)
    return r1 * s + r2 * t


def slerp_add(a, b, wa, wb, G=None):
    """Weighted addition of unit vectors along the great circle (RM eq. 18.27).

    Returns the point a fraction ``wb / (wa + wb)`` of the arc from ``a`` to
    ``b``: ``cos(phi f) a + sin(phi f)/sin(phi) (b - cos(phi) a)`` with
    ``cos(phi) = <a, b>`` (computed through ``G`` for dual coefficients).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    cphi = float(a @ b) if G is None else float(a @ np.asarray(G) @ b)
    cphi = min(1.0, max(-1.0, cphi))
    phi = np.arccos(cphi)
    f = wb / (wa + wb) if wa + wb > 0 else 1.0
    if phi < 1e-12:
        return a.copy()
    return np.cos(phi * f) * a + np.sin(phi * f) / np.sin(phi) * (b - cphi * a)

# ---------------------------------------------------------------------------
# the kernel billiard (LKC Algorithm 10 with cached outputs)

@dataclass
class BilliardResult:
    """Output of :func:`kernel_billiard` and its variants.

    Attributes
    ----------
    alpha : (m,) array
        Centre of mass of the trajectory, normalised to ``alpha' G alpha = 1``.
    n_bounces, n_restarts : int
    converged : bool
        Whether the stopping rule ``rho_2 <= tol`` was reached.
    positions : list of (m,) arrays
        Normalised bounce points (and the start), if ``record=True``.
    midpoints : list of (m,) arrays
        Normalised chord midpoints, if ``record=True``.
    hits : list of int
        Index of the example whose hyperplane was hit at each bounce.
    chords, rho2 : lists of float
        Chord lengths and the stopping quantity per bounce.
    kernel_evaluations : dict
        ``start``, ``bounces``, ``restarts`` and ``refresh``: kernel entries computed.
    """

    alpha: np.ndarray
    n_bounces: int = 0
    n_restarts: int = 0
    converged: bool = False
    positions: list = field(default_factory=list)
    midpoints: list = field(default_factory=list)
    hits: list = field(default_factory=list)
    chords: list = field(default_factory=list)
    rho2: list = field(default_factory=list)
    kernel_evaluations: dict = field(default_factory=dict)


def _random_direction(cols, rng, y, last, gamma=None, u=None):
    """A fresh random direction (``m^2`` evaluations) pointing into the
    version space from the plane last hit (BPM eq. 22), made tangent to the
    sphere at the position ``gamma`` when it is given."""
    for _ in range(100):
        beta = rng.standard_normal(cols.m)
        w = cols.matvec(beta)
        n0 = beta @ w
        if gamma is not None:
            beta, w = _tangent(beta, w, gamma, u)
        # redraw a nearly radial direction: normalising a tiny tangent part
        # would blow up coefficient components in the null space of G
        if beta @ w > 1e-3 * n0:
            break
    if last is not None and y[last] * w[last] < 0:
        beta, w = -beta, -w
    nb = np.sqrt(max(beta @ w, 1e-300))
    return beta / nb, w / nb


def reflect(beta, G_beta, c, column, k_cc):
    """Mirror the direction ``v = sum_j beta_j x_j`` on the hyperplane of example ``c``.

    ``v <- v - 2 <v, x_c> x_c / ||x_c||^2`` (LKC eq. 3.33) changes only
    ``beta_c`` (by ``-2 (G beta)_c / k_cc``); the cached outputs ``G beta``
    are updated with the kernel column ``G[:, c]``.  Returns new
    ``(beta, G beta)``; the inputs are not modified.
    """
    coef = -2.0 * G_beta[c] / k_cc
    beta = beta.copy()
    beta[c] += coef
    return beta, G_beta + coef * np.asarray(column, dtype=float)


def _tangent(beta, w, gamma, u):
    """Remove the component of the direction along the (unit) position."""
    s = gamma @ w
    return beta - s * gamma, w - s * u


def kernel_billiard(G=None, y=None, *, kernel=None, X=None, lam=0.0, start=None,
                    tol=1e-3, tau_max=1.0, max_bounces=10000, min_bounces=10,
                    max_restarts=None, restart="geodesic", refresh=0.0, record=False,
                    random_state=None, weighting="chord"):
    """Kernel billiard: centre of mass of version space (LKC Algorithm 10).

    LKC §3.4.1, eq. 3.31–3.33, App. B.9, Algorithm 10 (p. 330); BPM §3.1,
    App. A, App. B Alg. 2; TR §3, Alg. 1.  Book chapter 11.

    Each bounce: flight times ``tau_i = -d_i / nu_i`` with ``d = Y G gamma``
    and ``nu = Y G beta`` (E12: minus sign); the nearest positive one
    ``tau_c`` is taken (the plane just left is excluded).  The ball moves to
    ``gamma + tau_c beta`` (normalised), the direction is reflected on plane
    ``c`` (``beta_c -= 2 (G beta)_c / k_cc``, eq. 3.33), and the chord midpoint
    ``zeta`` is added to the centre of mass with ``alpha <- alpha ⊕µ zeta``,
    ``mu = Xi / (Xi + xi)`` (``Xi`` the accumulated chord length, ``xi`` the
    new chord; erratum E2 for ``⊕µ``).  Stops when ``rho_2(p_min, Xi / (Xi +
    xi_max)) <= tol`` (guarded on the first pass, E12).

    Parameters
    ----------
    G : (m, m) array or :class:`kernelclf.gram.Gram`, optional
        Gram matrix; or pass ``kernel`` and ``X`` to compute columns on demand.
    y : (m,) array of -1/+1
    lam : float
        Soft boundaries: billiard in ``G + lam I`` (BPM §3.3, erratum E14).
    start : (m,) array, optional
        Coefficients of a starting point strictly inside the version space;
        found by :func:`kernelclf.versionspace.find_version_space_point` when omitted.
    tol : float
        Threshold on ``rho_2``, the largest weight a new chord could get.
    tau_max : float
        Restart (or continue geodesically) when the flight time reaches this
        value; ``arctan(tau_max)`` is the longest arc flown in one piece.
    restart : {'geodesic', 'random'}
    refresh : float
        Probability per bounce of replacing the reflected direction by a
        fresh random one (``m^2`` evaluations; expected cost per bounce
        ``refresh * m^2``, so ``refresh ~ 1/m`` keeps it ``O(m)``).  A spherical
        polygon billiard need not be ergodic: a ball that only meets two
        planes keeps the component of ``b x v`` along their intersection
        fixed and can stay in a band for ever.  Random refreshes (RM §18.5:
        random scattering) break such invariant sets.
    max_bounces, min_bounces : int
    max_restarts : int, optional
        Default ``10 * max_bounces``; reaching it stops with a warning.
    record : bool
        Keep positions, midpoints and hit planes.
    weighting : {'chord', 'arc'}
        ``'chord'``: ⊕µ with chord lengths (LKC/BPM); ``'arc'``: arc-length
        weights with great-circle (slerp) averaging (RM eq. 18.27).

    Returns
    -------
    BilliardResult
    """
    if weighting not in ("chord", "arc"):
        raise ValueError("weighting must be 'chord' or 'arc'")
    if restart not in ("geodesic", "random"):
        raise ValueError("restart must be 'geodesic' or 'random'")
    if not tau_max > 0:
        raise ValueError(f"tau_max must be positive, got {tau_max!r}")
    cols = _as_gram(G, kernel, X, lam)
    m = cols.m
    y = _check_labels(y, m)
    rng = check_random_state(random_state)
    if max_restarts is None:
        max_restarts = 10 * int(max_bounces)
    kdiag = cols.diag

    ev0 = cols.n_evaluations
    if start is None:
        gamma, u = find_version_space_point(cols, y, random_state=rng)
    else:
        gamma = np.asarray(start, dtype=float).copy()
        u = cols.matvec(gamma)
        if np.min(y * u) <= 0:
            raise ValueError("start is not strictly inside the version space "
                             "(some y_i (G gamma)_i <= 0)")
    s = np.sqrt(gamma @ u)
    gamma, u = gamma / s, u / s
    beta, w = _random_direction(cols, rng, y, None, gamma, u)
    ev_start = cols.n_evaluations - ev0
    ev_restart = ev_refresh = 0

    res = BilliardResult(alpha=np.zeros(m))
    if record:
        res.positions.append(gamma.copy())
    alpha = np.zeros(m)
    ga = np.zeros(m)
    Xi = 0.0
    xi_max = 0.0
    p_min = 1.0
    last = None
    n_b = n_r = 0
    converged = False
    while n_b < max_bounces:
        nu = y * w
        d = y * u
        ahead = nu < 0
        if last is not None:
            ahead[last] = False
        if np.any(ahead):
            idx = np.flatnonzero(ahead)
            taus = np.maximum(-d[idx] / nu[idx], 0.0)
            j = int(np.argmin(taus))
            c, t = int(idx[j]), float(taus[j])
        else:
            c, t = None, np.inf
        if not t < tau_max:
            n_r += 1
            if n_r > max_restarts:
                break
            if restart == "random":
                e = cols.n_evaluations
                beta, w = _random_direction(cols, rng, y, last, gamma, u)
                ev_restart += cols.n_evaluations - e
                continue
            c, t = None, float(tau_max)  # geodesic continuation, no reflection
        # fly along the great circle: b -> (b + t v) / h, tangent v -> (v - t b) / h
        h = np.sqrt(1.0 + t * t)
        g_new = (gamma + t * beta) / h
        u_new = (u + t * w) / h
        beta = (beta - t * gamma) / h
        w = (w - t * u) / h
        xi = float(np.sqrt(max(2.0 - 2.0 / h, 0.0)))  # chord ||b - b_new||, <b, b_new> = 1/h
        nz = np.sqrt(2.0 + 2.0 / h)
        z = (gamma + g_new) / nz
        uz = (u + u_new) / nz
        if c is not None:
            # reflect the direction on the plane of example c: one kernel column
            beta, w = reflect(beta, w, c, cols.column(c), kdiag[c])
            if refresh > 0 and rng.random_sample() < refresh:
                e = cols.n_evaluations
                beta, w = _random_direction(cols, rng, y, c, g_new, u_new)
                ev_refresh += cols.n_evaluations - e
        beta, w = _tangent(beta, w, g_new, u_new)
        nb = np.sqrt(max(beta @ w, 1e-300))
        beta /= nb
        w /= nb
        # centre of mass of the trajectory
        if weighting == "arc":
            xi = float(np.arctan(t))
        if Xi == 0.0:
            alpha, ga = z.copy(), uz.copy()
        elif xi > 0:
            p = float(z @ ga)
            p_min = min(p_min, p)
            if weighting == "chord":
                r1, r2 = rho(p, Xi / (Xi + xi))
                alpha = r1 * alpha + r2 * z
                ga = r1 * ga + r2 * uz
            else:
                alpha, ga = _slerp_dual(alpha, ga, z, uz, Xi, xi)
            na = np.sqrt(max(alpha @ ga, 1e-300))
            alpha /= na
            ga /= na
        Xi += xi
        xi_max = max(xi_max, xi)
        gamma, u = g_new, u_new
        last = c
        if c is not None:
            n_b += 1
        r2max = rho(p_min, Xi / (Xi + xi_max))[1] if Xi > 0 else 1.0
        if record:
            res.positions.append(gamma.copy())
            res.midpoints.append(z.copy())
            res.hits.append(-1 if c is None else c)
        res.chords.append(xi)
        res.rho2.append(r2max)
        if n_b >= min_bounces and r2max <= tol:
            converged = True
            break
    if not converged:
        why = (f"{max_restarts} restarts" if n_r > max_restarts else f"{max_bounces} bounces")
        warnings.warn(f"kernel billiard stopped after {why} before rho_2 <= tol={tol} "
                      f"(last rho_2 = {res.rho2[-1] if res.rho2 else np.nan:.3g}); "
                      "raise max_bounces or tol", ConvergenceWarning, stacklevel=2)
    if n_b == 0:
        alpha, ga = gamma.copy(), u.copy()
    res.alpha = alpha
    res.n_bounces = n_b
    res.n_restarts = n_r
    res.converged = converged
    ev_total = cols.n_evaluations - ev0
    res.kernel_evaluations = {"start": ev_start, "restarts": ev_restart, "refresh": ev_refresh,
                              "bounces": ev_total - ev_start - ev_restart - ev_refresh}
    res.G_alpha = ga
    return res


def _slerp_dual(alpha, ga, z, uz, wa, wb):
    """Slerp addition (RM eq. 18.27) acting on coefficients and cached outputs."""
    cphi = min(1.0, max(-1.0, float(z @ ga)))
    phi = np.arccos(cphi)
    if phi < 1e-12:
        return alpha, ga
    f = wb / (wa + wb)
    a1 = np.cos(phi * f) - np.sin(phi * f) / np.sin(phi) * cphi
    a2 = np.sin(phi * f) / np.sin(phi)
    return a1 * alpha + a2 * z, a1 * ga + a2 * uz
