"""Billiards in version space: the kernel billiard and Ruján–Marchand's variants.

Book chapter 11. The version space of a kernel classifier without bias is the
cone ``{w : y_i <w, x_i> > 0 for all i}`` cut by the unit sphere (LKC Def. 2.12).
A billiard ball is shot from a point inside it; it flies in a straight line to
the nearest bounding hyperplane, is reflected there and flies on.  The
normalised bounce points are samples from the version space, and the centre
of mass of the trajectory approximates the Bayes point (LKC §3.4.1,
Algorithm 10, App. B.9; BPM §3.1, App. A.4, App. B Alg. 2; TR §3, App. A).

Everything is written in dual variables: a position ``b = sum_i gamma_i x_i``,
a direction ``v = sum_i beta_i x_i`` and the running centre of mass
``w = sum_i alpha_i x_i``.  Algorithm 10 recomputes ``G gamma`` and
``G beta`` at every bounce (``O(m^2)`` kernel work); here the outputs ``G
gamma``, ``G beta`` and ``G alpha`` are cached.  Moving along the ray and
averaging are linear in the caches, and a reflection changes a single
coefficient of ``beta``, so one bounce needs **one kernel column**, i.e.
``m`` kernel evaluations.  Only the (rare) restarts with a fresh random
direction cost ``m^2`` evaluations.

Errata corrected (seed inventory): E2 — the weights ``rho_1, rho_2`` of the
spherical addition ``⊕µ`` (the book's printed radicand is negative);
E12 — the flight time carries a minus sign, ``tau_i = -d_i / nu_i``, and the
stopping rule is skipped on the first pass, where it is ``0/0``;
E14 — soft boundaries add ``lam`` to the diagonal of the Gram matrix.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .kernels import as_kernel

__all__ = ["GramColumns", "BilliardResult", "rho", "oplus", "slerp_add", "reflect",
           "kernel_billiard", "flipper", "light_trap", "onion_billiard",
           "find_version_space_point", "NotSeparableError",
           "polygon_billiard", "polygon_centroid", "clip_polygon", "polygon_bisector",
           "polygon_inscribed_circle"]


class NotSeparableError(ValueError):
    """The training sample has an empty version space (no consistent classifier)."""


# ---------------------------------------------------------------------------
# kernel access with an evaluation counter

class GramColumns:
    """Columns of ``G + lam I`` on demand, with a count of kernel evaluations.

    Either pass a precomputed Gram matrix ``G`` or a ``kernel`` and inputs
    ``X``; in the second case a column ``k(X, x_c)`` is computed only when it
    is asked for, which is what makes one bounce cost ``O(m)`` kernel work.
    ``n_evaluations`` counts kernel entries computed (or read from ``G``).

    Parameters
    ----------
    G : (m, m) array, optional
    kernel : kernel object, name or callable, optional
    X : array of inputs, needed with ``kernel``
    lam : float
        Ridge added to the diagonal (soft boundaries, BPM §3.3, erratum E14).
    """

    def __init__(self, G=None, kernel=None, X=None, lam=0.0):
        if (G is None) == (X is None):
            raise ValueError("pass exactly one of a Gram matrix G or inputs X (with a kernel)")
        self.lam = float(lam)
        if self.lam < 0:
            raise ValueError(f"lam must be >= 0, got {lam!r}")
        if G is not None:
            G = np.asarray(G, dtype=float)
            if G.ndim != 2 or G.shape[0] != G.shape[1]:
                raise ValueError(f"G must be a square matrix, got shape {G.shape}")
            if not np.all(np.isfinite(G)):
                raise ValueError("G contains NaN or infinity")
            self.G, self.m = G, G.shape[0]
            self.kernel = None
            self._diag = np.diag(G).copy()
        else:
            self.G, self.kernel, self.X = None, as_kernel(kernel), X
            self.m = len(X)
            self._diag = np.asarray(self.kernel.diag(X), dtype=float)
        self._diag = self._diag + self.lam
        if np.any(self._diag <= 0):
            raise ValueError("every k(x_i, x_i) + lam must be positive (a zero vector "
                             "in feature space cannot bound a version space)")
        self.n_evaluations = 0

    @property
    def diag(self):
        """``k(x_i, x_i) + lam``."""
        return self._diag

    def column(self, c):
        """Column ``c`` of ``G + lam I`` (``m`` kernel evaluations)."""
        self.n_evaluations += self.m
        if self.G is not None:
            col = self.G[:, c].copy()
        else:
            X = self.X
            xc = X[c:c + 1] if isinstance(X, np.ndarray) else [X[c]]
            col = np.asarray(self.kernel(X, xc), dtype=float).ravel()
        col[c] += self.lam
        return col

    def matvec(self, v, block=512):
        """``(G + lam I) v`` (``m^2`` kernel evaluations, computed in row blocks)."""
        v = np.asarray(v, dtype=float)
        self.n_evaluations += self.m * self.m
        if self.G is not None:
            out = self.G @ v
        else:
            out = np.empty(self.m)
            X = self.X
            for s in range(0, self.m, block):
                rows = X[s:s + block] if isinstance(X, np.ndarray) else X[s:s + block]
                out[s:s + block] = np.asarray(self.kernel(rows, X), dtype=float) @ v
        return out + self.lam * v

    def full(self):
        """The whole matrix ``G + lam I`` (``m^2`` evaluations)."""
        self.n_evaluations += self.m * self.m
        G = self.G if self.G is not None else np.asarray(self.kernel(self.X), dtype=float)
        return G + self.lam * np.eye(self.m)


def _as_columns(G, kernel, X, lam):
    if isinstance(G, GramColumns):
        if lam:
            raise ValueError("pass lam to the GramColumns object, not to the billiard")
        return G
    return GramColumns(G=G, kernel=kernel, X=X, lam=lam)


def _check_labels(y, m):
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (m,):
        raise ValueError(f"y must have {m} entries, got shape {y.shape}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold labels -1/+1 (use kernelclf.base.labels_to_pm1)")
    return y


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
# a starting point inside version space

def find_version_space_point(cols, y, max_epochs=100, random_state=None, use_lp=True):
    """Coefficients ``gamma`` with ``y_i (G gamma)_i > 0`` for all ``i``.

    Runs the kernel perceptron with cached outputs (LKC Algorithm 3; one
    kernel column per mistake) on random permutations.  If it has not
    converged after ``max_epochs`` epochs, feasibility of ``y_i (G gamma)_i >=
    1`` is decided by a linear program (:func:`kernelclf.optim.solve_lp`);
    an infeasible program raises :class:`NotSeparableError`.

    Returns ``(gamma, G gamma)``.
    """
    rng = check_random_state(random_state)
    m = cols.m
    gamma = np.zeros(m)
    out = np.zeros(m)
    for _ in range(int(max_epochs)):
        mistakes = 0
        for i in rng.permutation(m):
            if y[i] * out[i] <= 0:
                gamma[i] += y[i]
                out += y[i] * cols.column(i)
                mistakes += 1
        if mistakes == 0:
            return gamma, out
    if not use_lp:
        raise NotSeparableError(
            f"the kernel perceptron made mistakes in each of {max_epochs} epochs: the sample "
            "seems not to be separable in feature space; use soft boundaries lam > 0")
    from .optim import InfeasibleProblemError, solve_lp
    G = cols.full()
    try:
        sol = solve_lp(np.zeros(m), A2=-(y[:, None] * G), b2=-np.ones(m), l=None)
    except InfeasibleProblemError:
        raise NotSeparableError(
            "the training sample is not separable in feature space, so its version space "
            "is empty and there is no hard-boundary Bayes point; use soft boundaries "
            "lam > 0 (BPM §3.3), which make every sample separable") from None
    gamma = sol.x
    out = G @ gamma
    if np.min(y * out) <= 0:
        raise NotSeparableError(
            "no classifier consistent with the sample was found (numerically); "
            "use soft boundaries lam > 0")
    return gamma, out


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
    G : (m, m) array or :class:`GramColumns`, optional
        Gram matrix; or pass ``kernel`` and ``X`` to compute columns on demand.
    y : (m,) array of -1/+1
    lam : float
        Soft boundaries: billiard in ``G + lam I`` (BPM §3.3, erratum E14).
    start : (m,) array, optional
        Coefficients of a starting point strictly inside the version space;
        found by :func:`find_version_space_point` when omitted.
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
    cols = _as_columns(G, kernel, X, lam)
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


# ---------------------------------------------------------------------------
# Ruján–Marchand variants (RM §18.5)

def flipper(G=None, y=None, *, kernel=None, X=None, lam=0.0, **kwargs):
    """Ruján–Marchand's flipper with a threshold coordinate (RM Alg. 18.1).

    The threshold is an extra coordinate: every example becomes ``(phi(x),
    1)``, i.e. the kernel ``k + 1``, and its plane normal is ``y (phi(x),
    1) / sqrt(k(x, x) + 1)`` (RM eq. 18.18–18.26).  Arc-length weights with
    great-circle averaging (RM eq. 18.27) replace ⊕µ.  Returns ``(result,
    intercept)`` with ``intercept = sum_i alpha_i`` (the threshold
    coordinate of the centre of mass), so that ``f(x) = sum_i alpha_i
    k(x_i, x) + intercept``.  RM restart an escaped ball (``tau = inf``)
    from the current centre of mass; here escapes are handled as in
    :func:`kernel_billiard` (geodesic continuation by default), and
    ``refresh`` adds random directions.  Keyword arguments go to
    :func:`kernel_billiard`.
    """
    if G is None:
        K = np.asarray(as_kernel(kernel)(X), dtype=float)
    else:
        K = np.asarray(G, dtype=float)
    kwargs.setdefault("weighting", "arc")
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
    beta = rng.standard_normal(m)
    w = G @ beta
    beta, w = beta / np.sqrt(beta @ w), w / np.sqrt(beta @ w)
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
        if not np.isfinite(tau[c]):
            beta = rng.standard_normal(m)
            w = G @ beta
            beta, w = beta / np.sqrt(beta @ w), w / np.sqrt(beta @ w)
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
    cols = GramColumns(G=G)
    gamma, u = find_version_space_point(cols, y, random_state=rng)
    s = np.sqrt(gamma @ u)
    gamma, u = gamma / s, u / s
    beta, w = _random_direction(cols, rng, y, None)
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
            beta, w = _random_direction(cols, rng, y, last)
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


# ---------------------------------------------------------------------------
# 2-D polygon billiards (RM §18.2, Figs 18.1–18.4)

def polygon_centroid(vertices):
    """Area centroid of a simple polygon (shoelace formula). Returns ``(centroid, area)``."""
    P = np.asarray(vertices, dtype=float)
    x, yv = P[:, 0], P[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(yv, -1)
    cross = x * y1 - x1 * yv
    A = cross.sum() / 2.0
    cx = ((x + x1) * cross).sum() / (6.0 * A)
    cy = ((yv + y1) * cross).sum() / (6.0 * A)
    return np.array([cx, cy]), abs(A)


def polygon_billiard(vertices, start, direction, n_bounces=1000):
    """A ball bouncing in a convex polygon (RM Fig. 18.4).

    Returns ``(points, centre)``: the bounce points and the trajectory's
    centre of mass (chord midpoints weighted by chord length), which tends
    to the polygon's centroid for an ergodic trajectory.
    """
    P = np.asarray(vertices, dtype=float)
    E = np.roll(P, -1, axis=0) - P
    N = np.stack([E[:, 1], -E[:, 0]], axis=1)
    # orient normals inwards
    cen = P.mean(axis=0)
    sgn = np.sign(np.einsum("ij,ij->i", cen - P, N))
    N = N * sgn[:, None]
    N /= np.linalg.norm(N, axis=1)[:, None]
    x = np.asarray(start, dtype=float).copy()
    v = np.asarray(direction, dtype=float)
    v = v / np.linalg.norm(v)
    pts = [x.copy()]
    tot, acc, last = 0.0, np.zeros(2), -1
    for _ in range(int(n_bounces)):
        dist = np.einsum("ij,ij->i", x - P, N)  # >= 0 inside
        vel = N @ v
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(vel < 0, -dist / vel, np.inf)
        if last >= 0:
            t[last] = np.inf
        c = int(np.argmin(t))
        xn = x + t[c] * v
        L = t[c]
        acc += L * (x + xn) / 2.0
        tot += L
        v = v - 2.0 * (v @ N[c]) * N[c]
        x = xn
        last = c
        pts.append(x.copy())
    return np.array(pts), acc / tot


def clip_polygon(vertices, normal, offset):
    """Part of a convex polygon with ``<normal, x> >= offset`` (one Sutherland–Hodgman pass)."""
    P = np.asarray(vertices, dtype=float)
    s = P @ np.asarray(normal, dtype=float) - offset
    out = []
    n = len(P)
    for i in range(n):
        j = (i + 1) % n
        if s[i] >= 0:
            out.append(P[i])
        if (s[i] >= 0) != (s[j] >= 0):
            t = s[i] / (s[i] - s[j])
            out.append(P[i] + t * (P[j] - P[i]))
    return np.array(out).reshape(-1, 2)


def polygon_bisector(vertices, normal, tol=1e-12):
    """Offset ``b`` such that the line ``<normal, x> = b`` halves the polygon's area.

    In Ruján's 2-D picture (RM §18.2, Fig. 18.1) this is the Bayes decision
    line for test direction ``normal``: half of the version space votes each
    way.  Found by bisection on ``b``.
    """
    P = np.asarray(vertices, dtype=float)
    normal = np.asarray(normal, dtype=float)
    _, A = polygon_centroid(P)
    proj = P @ normal
    lo, hi = proj.min(), proj.max()
    while hi - lo > tol * max(1.0, abs(hi) + abs(lo)):
        mid = 0.5 * (lo + hi)
        Q = clip_polygon(P, normal, mid)
        area = polygon_centroid(Q)[1] if len(Q) >= 3 else 0.0
        if area > A / 2:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def polygon_inscribed_circle(vertices):
    """Largest inscribed circle of a convex polygon (Chebyshev centre, an LP).

    The 2-D analogue of the hard-margin SVM, whose weight vector is the
    centre of the largest ball inside version space (LKC §2.4.3).  Returns
    ``(centre, radius)``.
    """
    from .optim import solve_lp

    P = np.asarray(vertices, dtype=float)
    E = np.roll(P, -1, axis=0) - P
    N = np.stack([E[:, 1], -E[:, 0]], axis=1)
    N /= np.linalg.norm(N, axis=1)[:, None]
    cen = P.mean(axis=0)
    sgn = np.sign(np.einsum("ij,ij->i", cen - P, N))
    N = N * sgn[:, None]  # inward unit normals
    # maximise r subject to <N_k, x - P_k> >= r
    A2 = np.hstack([-N, np.ones((len(P), 1))])
    b2 = -np.einsum("ij,ij->i", N, P)
    sol = solve_lp(np.array([0.0, 0.0, -1.0]), A2=A2, b2=b2, l=[-np.inf, -np.inf, 0.0])
    return sol.x[:2], float(sol.x[2])
