"""The kernel billiard: the centre of mass of version space in O(m) kernel work per bounce.

Book chapter 11 (``book/11_kernel_billiard.md``); LKC §3.4.1, Algorithm 10 (App. D.6),
App. B.9; BPM §3.1, App. A.4, App. B Alg. 2; TR 99-11 §3, App. A.

The version space of a kernel classifier without bias is the cone
``{w : y_i <w, x_i> > 0 for all i}`` cut by the unit sphere (LKC Def. 2.12, see
:mod:`kernelclf.bayespoint.versionspace`). A billiard ball is shot from a point inside it; it
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
``m`` kernel evaluations, read from a :class:`kernelclf.kernels.gram.Gram` (the stored
matrix, or columns computed on demand with an LRU cache).  Only the (rare)
restarts with a fresh random direction cost ``m^2`` evaluations.

Stopping rules (``stopping=``; chapter 11 compares them, issue 14): the printed rule
``rho_2(p_min, Xi / (Xi + xi_max)) <= TOL`` with the corrected weights (``'rho2'``, the
default), the same with LKC's uncorrected ``rho_1`` (``'rho2-printed'``: NaN, so it stops
at once) and batch means of the chord-weighted midpoints (``'batch'``). Since
``rho_2(c, mu) >= 1 - mu``, the printed rule needs at least ``(1 - TOL) / TOL`` flights.

Speed: the per-flight steps are numba-compiled functions; with a stored Gram matrix the
whole loop runs compiled (``engine='compiled'``, under a microsecond per bounce at
``m ~ 150``), otherwise Python drives the same functions and reads one column per bounce
from the :class:`~kernelclf.kernels.gram.Gram` object (``engine='python'``).

Ruján and Marchand's variants (flipper, light trap, onion billiard) are in
:mod:`kernelclf.bayespoint.rujan`, the two-dimensional polygon billiards in
:mod:`kernelclf.bayespoint.polygon`.

Errata corrected (seed inventory): E2 — the weights ``rho_1, rho_2`` of the
spherical addition ``⊕µ`` (the book's printed radicand is negative);
E12 — the flight time carries a minus sign, ``tau_i = -d_i / nu_i``, and the
stopping rule is skipped on the first pass, where it is ``0/0``;
E14 — soft boundaries add ``lam`` to the diagonal of the Gram matrix.
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..kernels.gram import Gram
from ..margin.separability import NotSeparableError, _check_labels
from .versionspace import find_version_space_point

__all__ = ["BilliardResult", "rho", "oplus", "slerp_add", "reflect", "kernel_billiard",
           "NotSeparableError", "STOPPING_RULES", "HAVE_NUMBA"]


# ---------------------------------------------------------------------------
# kernel access: one Gram object (kernelclf.kernels.gram)

def _as_gram(G, kernel, X, lam):
    """A :class:`~kernelclf.kernels.gram.Gram` of ``G + lam I``.

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
            raise ValueError("pass a Gram matrix G (or a kernelclf.kernels.gram.Gram), or a kernel "
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
# compiled per-flight steps (numba when installed, plain Python otherwise)

try:  # numba compiles the O(m) steps; without it the same functions run as Python
    from numba import njit as _njit

    def _jit(f):
        return _njit(cache=True, nogil=True)(f)

    def _jit_fast(f):  # reassociation lets the O(m) loops use SIMD; NaN/inf semantics kept
        return _njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz", "arcp"})(f)
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency
    def _jit(f):
        return f
    _jit_fast = _jit
    HAVE_NUMBA = False

#: stopping rules and their codes in the compiled loop
STOPPING_RULES = ("batch", "rho2", "rho2-printed")
_RULE_CODE = {"rho2": 0, "rho2-printed": 1, "batch": 2}
#: batch-means rule: flights per batch at the start, batches kept (merged in pairs when full)
BATCH_START, BATCH_SLOTS = 16, 64
# float state: Xi, xi_max, p_min, stat, cur_L, tot_L
_XI, _XIMAX, _PMIN, _STAT, _CURL, _TOTL = range(6)
# int state: last, n_bounces, n_restarts, n_batches, batch_size, cur_count, n_flights
_LAST, _NB, _NR, _NBATCH, _BSIZE, _CURN, _NFL = range(7)


@_jit
def _rho_scalar(c, mu):
    """``(rho_1, rho_2)`` of ``⊕µ`` (erratum E2), scalar version for the compiled loop."""
    if c < -1.0 + 1e-12:
        c = -1.0 + 1e-12
    elif c > 1.0:
        c = 1.0
    a = mu * mu * (1.0 - c)
    r = 2.0 - a
    r1 = mu * math.sqrt((r if r > 0.0 else 0.0) / (1.0 + c))
    return r1, 1.0 - a - r1 * c


@_jit
def _rho2_printed(c, mu):
    """``rho_2`` with LKC's printed ``rho_1`` (App. B.9, before erratum E2): the radicand
    ``(-mu^2 - mu^2 c - 2)/(c + 1)`` is negative for every ``c > -1``, so the result is NaN."""
    rad = (-mu * mu - mu * mu * c - 2.0) / (c + 1.0)
    r1 = mu * math.sqrt(rad) if rad >= 0.0 else math.nan
    return -r1 * c + (mu * mu * (1.0 - c) - 1.0)


@_jit_fast
def _next_wall(y, u, w, last, tau_max):
    """Nearest wall ahead: ``(c, tau_c)``; ``c = -1`` when none is nearer than ``tau_max``."""
    best = math.inf
    c = -1
    for i in range(y.shape[0]):
        nu = y[i] * w[i]
        if nu < 0.0 and i != last:
            t = -(y[i] * u[i]) / nu
            if t < 0.0:
                t = 0.0
            if t < best:
                best = t
                c = i
    if not best < tau_max:
        return -1, best
    return c, best


@_jit_fast
def _step(gamma, u, beta, w, t, z, uz, c, col, kcc, ga, fix):
    """One flight, in place: fly the arc ``arctan t`` along the great circle, put the
    normalised chord midpoint in ``z`` (outputs ``uz``) and mirror the direction on wall
    ``c`` (LKC eq. 3.33: ``beta_c`` and one kernel column; ``c < 0``: no wall).  Returns the
    chord length and ``p = <zeta, w>`` with the estimate's outputs ``ga``.

    Both moves keep the direction tangent and of unit length in exact arithmetic (the new
    position lies on wall ``c``, and a reflection is an isometry); ``fix`` re-projects and
    renormalises it to remove the round-off."""
    m = gamma.shape[0]
    h = math.sqrt(1.0 + t * t)
    xi = math.sqrt(max(2.0 - 2.0 / h, 0.0))
    nz = math.sqrt(2.0 + 2.0 / h)
    coef = 0.0
    if c >= 0:
        coef = -2.0 * ((w[c] - t * u[c]) / h) / kcc
    s = 0.0
    p = 0.0
    for i in range(m):
        g0, u0 = gamma[i], u[i]
        gn = (g0 + t * beta[i]) / h
        un = (u0 + t * w[i]) / h
        bn = (beta[i] - t * g0) / h
        wn = (w[i] - t * u0) / h
        if c >= 0:
            wn += coef * col[i]
        zi = (g0 + gn) / nz
        z[i] = zi
        uz[i] = (u0 + un) / nz
        p += zi * ga[i]
        gamma[i] = gn
        u[i] = un
        beta[i] = bn
        w[i] = wn
        s += gn * wn
    if c >= 0:
        beta[c] += coef
    if fix:
        nb = 0.0
        for i in range(m):
            beta[i] -= s * gamma[i]
            w[i] -= s * u[i]
            nb += beta[i] * w[i]
        nb = 1.0 / math.sqrt(max(nb, 1e-300))
        for i in range(m):
            beta[i] *= nb
            w[i] *= nb
    return xi, p


@_jit_fast
def _accumulate(alpha, ga, z, uz, xi, p, fs, arc, t, renorm):
    """Add the chord midpoint to the centre of mass: ``alpha ⊕µ zeta`` with
    ``mu = Xi / (Xi + xi)`` (chord weights, E2) or slerp with arc weights (RM eq. 18.27).
    Both keep unit length exactly in exact arithmetic; ``renorm`` removes the round-off."""
    m = alpha.shape[0]
    if arc:
        xi = math.atan(t)
    Xi = fs[_XI]
    if Xi == 0.0:
        for i in range(m):
            alpha[i] = z[i]
            ga[i] = uz[i]
    elif xi > 0.0:
        if p < fs[_PMIN]:
            fs[_PMIN] = p
        if arc:
            cphi = min(1.0, max(-1.0, p))
            phi = math.acos(cphi)
            if phi >= 1e-12:
                f = xi / (Xi + xi)
                r2 = math.sin(phi * f) / math.sin(phi)
                r1 = math.cos(phi * f) - r2 * cphi
            else:
                r1, r2 = 1.0, 0.0
        else:
            r1, r2 = _rho_scalar(p, Xi / (Xi + xi))
        na = 0.0
        for i in range(m):
            alpha[i] = r1 * alpha[i] + r2 * z[i]
            ga[i] = r1 * ga[i] + r2 * uz[i]
        if renorm:
            for i in range(m):
                na += alpha[i] * ga[i]
            na = math.sqrt(max(na, 1e-300))
            for i in range(m):
                alpha[i] /= na
                ga[i] /= na
    fs[_XI] = Xi + xi
    if xi > fs[_XIMAX]:
        fs[_XIMAX] = xi
    return xi


@_jit_fast
def _batch_error(bc, bo, bl, nb, tot_c, tot_o, tot_l):
    """Batch-means standard error of the direction of the chord-weighted mean midpoint.

    With batch sums ``S_b`` (lengths ``L_b``), the mean ``M = sum S_b / sum L_b`` and
    ``Lbar`` the mean batch length, ``Var M ~ sum_b (L_b/Lbar)^2 ||S_b/L_b - M||^2 /
    (n (n - 1))`` (the ratio estimator of batch means); divided by ``||M||`` it is the
    standard error of the angle of ``M`` in radians (norms through the cached outputs).
    """
    m = tot_c.shape[0]
    lbar = tot_l / nb
    mm = 0.0
    for i in range(m):
        mm += tot_c[i] * tot_o[i]
    mm /= tot_l * tot_l
    var = 0.0
    for b in range(nb):
        lb = bl[b]
        d = 0.0
        for i in range(m):
            d += (bc[b, i] / lb - tot_c[i] / tot_l) * (bo[b, i] / lb - tot_o[i] / tot_l)
        var += (lb / lbar) ** 2 * d
    var /= nb * (nb - 1.0)
    return math.sqrt(max(var, 0.0) / max(mm, 1e-300))


@_jit
def _stop_statistic(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c, tot_o):
    """Update and return the stopping statistic of ``rule`` after one flight
    (``nan`` when it is not evaluated at this flight: batch rule between checks)."""
    if rule == 0 or rule == 1:
        Xi = fs[_XI]
        if Xi <= 0.0:
            return 1.0
        mu = Xi / (Xi + fs[_XIMAX])
        if rule == 0:
            return _rho_scalar(fs[_PMIN], mu)[1]
        return _rho2_printed(fs[_PMIN], mu)
    # batch means
    m = cur_c.shape[0]
    for i in range(m):
        cur_c[i] += xi * z[i]
        cur_o[i] += xi * uz[i]
    fs[_CURL] += xi
    ist[_CURN] += 1
    if ist[_CURN] < ist[_BSIZE]:
        return math.inf
    nb = ist[_NBATCH]
    for i in range(m):
        bc[nb, i] = cur_c[i]
        bo[nb, i] = cur_o[i]
        tot_c[i] += cur_c[i]
        tot_o[i] += cur_o[i]
        cur_c[i] = 0.0
        cur_o[i] = 0.0
    bl[nb] = fs[_CURL]
    fs[_TOTL] += fs[_CURL]
    fs[_CURL] = 0.0
    ist[_CURN] = 0
    nb += 1
    stat = math.inf
    slots = bc.shape[0]
    if nb >= slots // 2 and nb % 8 == 0 and fs[_TOTL] > 0.0:
        stat = _batch_error(bc, bo, bl, nb, tot_c, tot_o, fs[_TOTL])
    if nb == slots:  # merge neighbouring batches, double the batch size
        for b in range(slots // 2):
            for i in range(m):
                bc[b, i] = bc[2 * b, i] + bc[2 * b + 1, i]
                bo[b, i] = bo[2 * b, i] + bo[2 * b + 1, i]
            bl[b] = bl[2 * b] + bl[2 * b + 1]
        nb = slots // 2
        ist[_BSIZE] *= 2
    ist[_NBATCH] = nb
    return stat


@_jit
def _random_direction_G(G, y, last, gamma, u, beta, w):
    """Fresh random tangent direction (``m^2`` work) pointing into version space from
    wall ``last``; the compiled twin of :func:`_random_direction`."""
    m = G.shape[0]
    for _ in range(100):
        for i in range(m):
            beta[i] = np.random.standard_normal()
        n0 = 0.0
        for i in range(m):
            s = 0.0
            for j in range(m):
                s += G[i, j] * beta[j]
            w[i] = s
            n0 += beta[i] * s
        s = 0.0
        for i in range(m):
            s += gamma[i] * w[i]
        nb = 0.0
        for i in range(m):
            beta[i] -= s * gamma[i]
            w[i] -= s * u[i]
            nb += beta[i] * w[i]
        if nb > 1e-3 * n0:
            break
    if last >= 0 and y[last] * w[last] < 0.0:
        for i in range(m):
            beta[i] = -beta[i]
            w[i] = -w[i]
    nb = 0.0
    for i in range(m):
        nb += beta[i] * w[i]
    nb = math.sqrt(max(nb, 1e-300))
    for i in range(m):
        beta[i] /= nb
        w[i] /= nb


@_jit
def _seed(seed):
    np.random.seed(seed)


@_jit
def _run_compiled(G, y, kdiag, gamma, u, beta, w, alpha, ga, z, uz, fs, ist, bc, bo, bl,
                  cur_c, cur_o, tot_c, tot_o, rule, tol, tau_max, max_bounces, min_bounces,
                  max_restarts, random_restart, refresh, arc):
    """The whole billiard with a stored Gram matrix; returns ``(converged, n_restart,
    n_refresh)``, the fresh random directions drawn at restarts and refreshes (each
    ``m^2`` work)."""
    n_random = 0
    n_refresh = 0
    while ist[_NB] < max_bounces:
        c, t = _next_wall(y, u, w, ist[_LAST], tau_max)
        if c < 0:
            ist[_NR] += 1
            if ist[_NR] > max_restarts:
                return False, n_random, n_refresh
            if random_restart:
                _random_direction_G(G, y, ist[_LAST], gamma, u, beta, w)
                n_random += 1
                continue
            t = tau_max
        fix = ist[_NFL] % 16 == 15
        if c >= 0:
            xi, p = _step(gamma, u, beta, w, t, z, uz, c, G[c], kdiag[c], ga, fix)
            if refresh > 0.0 and np.random.random() < refresh:
                _random_direction_G(G, y, c, gamma, u, beta, w)
                n_refresh += 1
        else:
            xi, p = _step(gamma, u, beta, w, t, z, uz, c, kdiag, 1.0, ga, fix)
        xi = _accumulate(alpha, ga, z, uz, xi, p, fs, arc, t, ist[_NFL] % 64 == 63)
        ist[_LAST] = c
        ist[_NFL] += 1
        if c >= 0:
            ist[_NB] += 1
        stat = _stop_statistic(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c, tot_o)
        if not math.isinf(stat):
            fs[_STAT] = stat
        if ist[_NB] >= min_bounces and not stat > tol:
            return True, n_random, n_refresh
    return False, n_random, n_refresh



# ---------------------------------------------------------------------------
# NumPy twins of the per-flight steps, used when numba is missing (Pyodide, the book's
# in-browser lab): the same arithmetic with vector operations instead of Python loops
# over the m examples (tests/test_billiard.py compares each with its compiled twin).

def _next_wall_np(y, u, w, last, tau_max):
    nu = y * w
    ahead = nu < 0.0
    if 0 <= last < ahead.shape[0]:
        ahead[last] = False
    if not ahead.any():
        return -1, math.inf
    idx = np.flatnonzero(ahead)
    t = np.maximum(-(y[idx] * u[idx]) / nu[idx], 0.0)
    k = int(np.argmin(t))
    best = float(t[k])
    if not best < tau_max:
        return -1, best
    return int(idx[k]), best


def _step_np(gamma, u, beta, w, t, z, uz, c, col, kcc, ga, fix):
    h = math.sqrt(1.0 + t * t)
    xi = math.sqrt(max(2.0 - 2.0 / h, 0.0))
    nz = math.sqrt(2.0 + 2.0 / h)
    coef = -2.0 * ((w[c] - t * u[c]) / h) / kcc if c >= 0 else 0.0
    gn = (gamma + t * beta) / h
    un = (u + t * w) / h
    bn = (beta - t * gamma) / h
    wn = (w - t * u) / h
    if c >= 0:
        wn += coef * col
    np.divide(gamma + gn, nz, out=z)
    np.divide(u + un, nz, out=uz)
    p = float(z @ ga)
    gamma[:], u[:], beta[:], w[:] = gn, un, bn, wn
    s = float(gn @ wn)
    if c >= 0:
        beta[c] += coef
    if fix:
        beta -= s * gamma
        w -= s * u
        nb = 1.0 / math.sqrt(max(float(beta @ w), 1e-300))
        beta *= nb
        w *= nb
    return xi, p


def _accumulate_np(alpha, ga, z, uz, xi, p, fs, arc, t, renorm):
    if arc:
        xi = math.atan(t)
    Xi = fs[_XI]
    if Xi == 0.0:
        alpha[:] = z
        ga[:] = uz
    elif xi > 0.0:
        if p < fs[_PMIN]:
            fs[_PMIN] = p
        if arc:
            cphi = min(1.0, max(-1.0, p))
            phi = math.acos(cphi)
            if phi >= 1e-12:
                f = xi / (Xi + xi)
                r2 = math.sin(phi * f) / math.sin(phi)
                r1 = math.cos(phi * f) - r2 * cphi
            else:
                r1, r2 = 1.0, 0.0
        else:
            r1, r2 = _rho_scalar(p, Xi / (Xi + xi))
        alpha *= r1
        alpha += r2 * z
        ga *= r1
        ga += r2 * uz
        if renorm:
            na = math.sqrt(max(float(alpha @ ga), 1e-300))
            alpha /= na
            ga /= na
    fs[_XI] = Xi + xi
    if xi > fs[_XIMAX]:
        fs[_XIMAX] = xi
    return xi


def _batch_error_np(bc, bo, bl, nb, tot_c, tot_o, tot_l):
    lbar = tot_l / nb
    mm = float(tot_c @ tot_o) / (tot_l * tot_l)
    lb = bl[:nb, None]
    d = np.einsum("bi,bi->b", bc[:nb] / lb - tot_c / tot_l, bo[:nb] / lb - tot_o / tot_l)
    var = float(np.sum((bl[:nb] / lbar) ** 2 * d)) / (nb * (nb - 1.0))
    return math.sqrt(max(var, 0.0) / max(mm, 1e-300))


def _stop_statistic_np(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c, tot_o):
    if rule == 0 or rule == 1:
        Xi = fs[_XI]
        if Xi <= 0.0:
            return 1.0
        mu = Xi / (Xi + fs[_XIMAX])
        if rule == 0:
            return _rho_scalar(fs[_PMIN], mu)[1]
        return _rho2_printed(fs[_PMIN], mu)
    cur_c += xi * z
    cur_o += xi * uz
    fs[_CURL] += xi
    ist[_CURN] += 1
    if ist[_CURN] < ist[_BSIZE]:
        return math.inf
    nb = ist[_NBATCH]
    bc[nb], bo[nb] = cur_c, cur_o
    tot_c += cur_c
    tot_o += cur_o
    cur_c[:] = 0.0
    cur_o[:] = 0.0
    bl[nb] = fs[_CURL]
    fs[_TOTL] += fs[_CURL]
    fs[_CURL] = 0.0
    ist[_CURN] = 0
    nb += 1
    stat = math.inf
    slots = bc.shape[0]
    if nb >= slots // 2 and nb % 8 == 0 and fs[_TOTL] > 0.0:
        stat = _batch_error_np(bc, bo, bl, nb, tot_c, tot_o, fs[_TOTL])
    if nb == slots:
        half = slots // 2
        bc[:half] = bc[0::2] + bc[1::2]
        bo[:half] = bo[0::2] + bo[1::2]
        bl[:half] = bl[0::2] + bl[1::2]
        nb = half
        ist[_BSIZE] *= 2
    ist[_NBATCH] = nb
    return stat


def _random_direction_G_np(G, y, last, gamma, u, beta, w):
    m = G.shape[0]
    for _ in range(100):
        beta[:] = np.random.standard_normal(m)
        w[:] = G @ beta
        n0 = float(beta @ w)
        s = float(gamma @ w)
        beta -= s * gamma
        w -= s * u
        if float(beta @ w) > 1e-3 * n0:
            break
    if last >= 0 and y[last] * w[last] < 0.0:
        beta *= -1.0
        w *= -1.0
    nb = math.sqrt(max(float(beta @ w), 1e-300))
    beta /= nb
    w /= nb


if not HAVE_NUMBA:  # pragma: no cover - exercised by tests/test_billiard.py via monkeypatch
    _next_wall, _step, _accumulate = _next_wall_np, _step_np, _accumulate_np
    _batch_error, _stop_statistic = _batch_error_np, _stop_statistic_np
    _random_direction_G = _random_direction_G_np

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
        Whether the stopping rule was met (statistic ``<= tol``).
    n_flights : int
        Pieces of trajectory (bounces plus geodesic continuations).
    stopping : str
        The stopping rule used; ``statistic`` its last evaluated value.
    positions : list of (m,) arrays
        Normalised bounce points (and the start), if ``record=True``.
    midpoints : list of (m,) arrays
        Normalised chord midpoints, if ``record=True``.
    hits : list of int
        Index of the example whose hyperplane was hit at each bounce.
    chords, rho2 : lists of float
        Chord lengths and the stopping statistic per flight (``engine='python'`` only;
        for the batch rule the last evaluated standard error).
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
    n_flights: int = 0
    stopping: str = "rho2"
    statistic: float = float("nan")


class _NoTangentDirection(Exception):
    """The span of the training points has no direction tangent to the sphere at the
    position: it is one-dimensional, and version space is a single point."""


def _random_direction(cols, rng, y, last, gamma=None, u=None):
    """A fresh random direction (``m^2`` evaluations) pointing into the
    version space from the plane last hit (BPM eq. 22), made tangent to the
    sphere at the position ``gamma`` when it is given.  Raises
    :class:`_NoTangentDirection` when 20 draws find no tangent direction."""
    for _ in range(20):
        beta = rng.standard_normal(cols.m)
        w = cols.matvec(beta)
        n0 = beta @ w
        if gamma is not None:
            beta, w = _tangent(beta, w, gamma, u)
        # redraw a nearly radial direction: normalising a tiny tangent part
        # would blow up coefficient components in the null space of G
        if beta @ w > 1e-3 * n0 and n0 > 0:
            break
    else:
        raise _NoTangentDirection
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
                    tol=1e-3, tau_max=1.0, max_bounces=500_000, min_bounces=10,
                    max_restarts=None, restart="geodesic", refresh=0.0, record=False,
                    random_state=None, weighting="chord", stopping="rho2", engine="auto"):
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
    new chord; erratum E2 for ``⊕µ``).

    Stopping rules (``stopping``; book chapter 11 compares them):

    * ``'rho2'`` — the printed rule of LKC Alg. 10 / BPM Alg. 2 with the corrected
      weights of erratum E2: stop when ``rho_2(p_min, Xi / (Xi + xi_max)) <= tol``
      (guarded on the first pass, E12).  Since ``rho_2 >= xi_max / (Xi + xi_max)``,
      it needs at least ``(1 - tol) / tol`` bounces whatever the problem.
    * ``'rho2-printed'`` — the same with LKC's printed ``rho_1`` (before E2), whose
      radicand is negative: ``rho_2`` is NaN, the loop condition ``rho_2 > TOL`` is
      false, and the run ends as soon as ``min_bounces`` allows.  For the study only.
    * ``'batch'`` — batch means (ours): the chord-weighted midpoints are summed in
      batches of flights (16 at first; when 64 batches are full, neighbours are merged
      and the batch length doubles); every 8 batches from 32 on, the standard error of
      the direction of the mean, ``sqrt(sum_b (L_b/Lbar)^2 ||S_b/L_b - M||^2 /
      (n (n-1))) / ||M||`` in radians, is compared with ``tol``.  It targets the
      accuracy of the estimate, so ``tol`` is an angle (e.g. ``0.02`` rad).

    Parameters
    ----------
    G : (m, m) array or :class:`kernelclf.kernels.gram.Gram`, optional
        Gram matrix; or pass ``kernel`` and ``X`` to compute columns on demand.
    y : (m,) array of -1/+1
    lam : float
        Soft boundaries: billiard in ``G + lam I`` (BPM §3.3, erratum E14).
    start : (m,) array, optional
        Coefficients of a starting point strictly inside the version space;
        found by :func:`kernelclf.bayespoint.versionspace.find_version_space_point` when omitted.
    tol : float
        Threshold of the stopping rule: on ``rho_2`` (the largest weight a new
        piece of trajectory can still get) or on the batch-means standard error.
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
        Keep positions, midpoints and hit planes (runs the Python loop).
    weighting : {'chord', 'arc'}
        ``'chord'``: ⊕µ with chord lengths (LKC/BPM); ``'arc'``: arc-length
        weights with great-circle (slerp) averaging (RM eq. 18.27).
    stopping : {'rho2', 'rho2-printed', 'batch'}
        Stopping rule, see above.
    engine : {'auto', 'compiled', 'python'}
        ``'compiled'`` runs the whole loop in numba-compiled code on the stored Gram
        matrix; ``'python'`` steps through the same compiled per-flight functions from
        Python, reading one kernel column per bounce from the ``Gram`` object (columns on
        demand, records).  ``'auto'``: compiled when the matrix is stored and
        ``record=False``.  With the same random directions both give the same trajectory.

    Returns
    -------
    BilliardResult
    """
    if weighting not in ("chord", "arc"):
        raise ValueError("weighting must be 'chord' or 'arc'")
    if restart not in ("geodesic", "random"):
        raise ValueError("restart must be 'geodesic' or 'random'")
    if stopping not in STOPPING_RULES:
        raise ValueError(f"stopping must be one of {STOPPING_RULES}, got {stopping!r}")
    if engine not in ("auto", "compiled", "python"):
        raise ValueError("engine must be 'auto', 'compiled' or 'python'")
    if not tau_max > 0:
        raise ValueError(f"tau_max must be positive, got {tau_max!r}")
    if not (isinstance(tol, numbers.Real) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    cols = _as_gram(G, kernel, X, lam)
    m = cols.m
    y = _check_labels(y, m)
    rng = check_random_state(random_state)
    if max_restarts is None:
        max_restarts = 10 * int(max_bounces)
    kdiag = np.ascontiguousarray(cols.diag, dtype=float)
    if engine == "compiled" and record:
        raise ValueError("record=True needs engine='python'")
    compiled = engine == "compiled" or (engine == "auto" and cols.precomputed and not record)

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
    if not (np.isfinite(s) and s > 0):
        raise ValueError("the starting point has zero or non-finite length in feature space")
    gamma, u = np.ascontiguousarray(gamma / s), np.ascontiguousarray(u / s)
    try:
        beta, w = _random_direction(cols, rng, y, None, gamma, u)
    except _NoTangentDirection:
        # the training points span one dimension: the sphere meets their span in two
        # points, one of which is the start; it is the whole version space and its
        # centre (exact, no bounces needed)
        res = BilliardResult(alpha=gamma, converged=True, stopping=stopping, statistic=0.0)
        res.kernel_evaluations = {"start": cols.n_evaluations - ev0, "restarts": 0,
                                  "refresh": 0, "bounces": 0}
        res.G_alpha = u
        return res
    beta, w = np.ascontiguousarray(beta), np.ascontiguousarray(w)
    ev_start = cols.n_evaluations - ev0
    ev_restart = ev_refresh = 0

    rule = _RULE_CODE[stopping]
    nslot = BATCH_SLOTS if stopping == "batch" else 0
    bc, bo = np.zeros((nslot, m)), np.zeros((nslot, m))
    bl = np.zeros(nslot)
    cur_c, cur_o, tot_c, tot_o = (np.zeros(m) for _ in range(4))
    alpha, ga, z, uz = (np.zeros(m) for _ in range(4))
    fs = np.zeros(6)
    fs[_PMIN] = 1.0
    fs[_STAT] = np.nan
    ist = np.zeros(7, dtype=np.int64)
    ist[_LAST] = -1
    ist[_BSIZE] = BATCH_START
    res = BilliardResult(alpha=np.zeros(m))
    arc = weighting == "arc"

    if compiled:
        Gf = np.ascontiguousarray(cols.full())
        _seed(int(rng.randint(2**31 - 1)))
        converged, n_random, n_refresh = _run_compiled(
            Gf, y, kdiag, gamma, u, beta, w, alpha, ga, z, uz, fs, ist, bc, bo, bl, cur_c, cur_o,
            tot_c, tot_o, rule, float(tol), float(tau_max), int(max_bounces), int(min_bounces),
            int(max_restarts), restart == "random", float(refresh), arc)
        ev_restart, ev_refresh = m * m * int(n_random), m * m * int(n_refresh)
        cols.n_evaluations += m * int(ist[_NB]) + ev_restart + ev_refresh - m * m  # not full()
    else:
        if record:
            res.positions.append(gamma.copy())
        converged = False
        while ist[_NB] < max_bounces:
            c, t = _next_wall(y, u, w, int(ist[_LAST]), float(tau_max))
            c = int(c)
            if c < 0:
                ist[_NR] += 1
                if ist[_NR] > max_restarts:
                    break
                if restart == "random":
                    e = cols.n_evaluations
                    last = None if ist[_LAST] < 0 else int(ist[_LAST])
                    beta[:], w[:] = _random_direction(cols, rng, y, last, gamma, u)
                    ev_restart += cols.n_evaluations - e
                    continue
                t = float(tau_max)  # geodesic continuation, no reflection
            fix = ist[_NFL] % 16 == 15
            if c >= 0:
                xi, p = _step(gamma, u, beta, w, t, z, uz, c,
                              np.asarray(cols.column(c), dtype=float), kdiag[c], ga, fix)
                if refresh > 0 and rng.random_sample() < refresh:
                    e = cols.n_evaluations
                    beta[:], w[:] = _random_direction(cols, rng, y, c, gamma, u)
                    ev_refresh += cols.n_evaluations - e
            else:
                xi, p = _step(gamma, u, beta, w, t, z, uz, c, kdiag, 1.0, ga, fix)
            xi = _accumulate(alpha, ga, z, uz, xi, p, fs, arc, t, ist[_NFL] % 64 == 63)
            ist[_LAST] = c
            ist[_NFL] += 1
            if c >= 0:
                ist[_NB] += 1
            stat = _stop_statistic(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c,
                                   tot_o)
            if not math.isinf(stat):
                fs[_STAT] = stat
            if record:
                res.positions.append(gamma.copy())
                res.midpoints.append(z.copy())
                res.hits.append(c)
            res.chords.append(xi)
            res.rho2.append(float(fs[_STAT]))
            if ist[_NB] >= min_bounces and not stat > tol:
                converged = True
                break
    n_b, n_r = int(ist[_NB]), int(ist[_NR])
    if not converged:
        why = (f"{max_restarts} restarts" if n_r > max_restarts else f"{max_bounces} bounces")
        warnings.warn(f"kernel billiard stopped after {why} before its stopping rule "
                      f"({stopping!r}: statistic <= tol={tol}) was met (last value "
                      f"{fs[_STAT]:.3g}); raise max_bounces or tol", ConvergenceWarning,
                      stacklevel=2)
    if ist[_NFL] == 0:
        alpha, ga = gamma.copy(), u.copy()
    na = np.sqrt(max(float(alpha @ ga), 1e-300))
    alpha, ga = alpha / na, ga / na
    res.alpha = alpha
    res.n_bounces = n_b
    res.n_restarts = n_r
    res.n_flights = int(ist[_NFL])
    res.converged = bool(converged)
    res.stopping = stopping
    res.statistic = float(fs[_STAT])
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
