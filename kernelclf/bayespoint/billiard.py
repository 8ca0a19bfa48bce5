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

Stopping rules (``stopping=``; chapter 11 compares them): the printed rule
``rho_2(p_min, Xi / (Xi + xi_max)) <= TOL`` with the corrected weights (``'rho2'``, the
default), the same with LKC's uncorrected ``rho_1`` (``'rho2-printed'``: NaN, so it stops
at once), TR Alg. 1's variant ``rho_2(p_max, lambda_max / Lambda)`` (``'tr'``, E12) and
batch means of the chord-weighted midpoints (``'batch'``). Since
``rho_2(c, mu) >= 1 - mu``, the printed rule needs at least ``(1 - TOL) / TOL`` flights
(E24: BPM §4.2 reports about 1000 bounces at TOL of about 1e-4).

Engines and randomness: the driver :func:`kernel_billiard` holds the run's one random
generator (made from ``random_state``) and draws every random direction - at the start,
at random restarts and at refreshes - with one function, :func:`_random_direction`; the
``O(m)`` steps between them are flown by one of three engines of
:mod:`kernelclf.bayespoint.billiard_engines`: numba-compiled (the whole loop, on a stored
Gram matrix, under a microsecond per bounce at ``m ~ 150``), Python calling the compiled
steps (columns on demand from the :class:`~kernelclf.kernels.gram.Gram` object), or NumPy
(no numba: Pyodide). Which engine runs changes the speed, not the answer: the engines do
the same floating-point operations in the same order.

Ruján and Marchand's variants (flipper, light trap, onion billiard) are in
:mod:`kernelclf.bayespoint.rujan`, the two-dimensional polygon billiards in
:mod:`kernelclf.bayespoint.polygon`.

Errata corrected (the errata table of book chapter 00): E2 — the weights ``rho_1, rho_2`` of the
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
from . import billiard_engines as _eng
from .billiard_engines import STOPPING_RULES
from .versionspace import find_version_space_point

__all__ = ["BilliardResult", "rho", "oplus", "slerp_add", "reflect", "kernel_billiard",
           "NotSeparableError", "STOPPING_RULES"]


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
# the random direction: drawn here only, from the driver's one generator

class _NoTangentDirection(RuntimeError):
    """The span of the training points has no direction tangent to the sphere at the
    position: it is one-dimensional, and version space is a single point."""


def _random_direction(cols, rng, y, last=None, gamma=None, u=None):
    """A fresh random direction ``v = sum_j beta_j x_j`` of unit length.

    The one place where the billiards draw a direction (``m^2`` kernel evaluations):
    the kernel billiard at its start, at random restarts and refreshes, and Ruján and
    Marchand's light trap and onion billiard (:mod:`kernelclf.bayespoint.rujan`).
    BPM App. B Alg. 2 (random start direction), RM §18.5 (random scattering).

    Parameters
    ----------
    cols : :class:`~kernelclf.kernels.gram.Gram`
        Gram matrix (its ``matvec`` gives ``G beta``).
    rng : numpy.random.RandomState
        The caller's generator; the only source of randomness.
    y : (m,) array of -1/+1
    last : int, optional
        Wall the ball sits on; the direction is turned to point into the version space
        from it (``y_last (G beta)_last >= 0``). ``None`` or negative: any direction.
    gamma, u : (m,) arrays, optional
        Unit position ``gamma`` and its outputs ``u = G gamma``; when given the direction
        is made tangent to the sphere there, and draws that are nearly radial (tangent
        part under 1e-3 of the squared length) are redrawn.

    Returns
    -------
    beta, w : (m,) arrays
        Coefficients and outputs ``w = G beta`` with ``beta' G beta = 1``.

    Raises
    ------
    _NoTangentDirection
        When 20 draws find no tangent direction.
    """
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
        raise _NoTangentDirection("no random direction tangent to the sphere in 20 draws")
    if last is not None and last >= 0 and y[last] * w[last] < 0:
        beta, w = -beta, -w
    nb = np.sqrt(max(beta @ w, 1e-300))
    return beta / nb, w / nb


def _tangent(beta, w, gamma, u):
    """Remove the component of the direction along the (unit) position."""
    s = gamma @ w
    return beta - s * gamma, w - s * u


def reflect(beta, G_beta, c, column, k_cc):
    """Mirror the direction ``v = sum_j beta_j x_j`` on the hyperplane of example ``c``.

    ``v <- v - 2 <v, x_c> x_c / ||x_c||^2`` (LKC eq. 3.33; the caption of RM Fig. 18.7
    prints ``V + 2 V_perp X``, E21) changes only
    ``beta_c`` (by ``-2 (G beta)_c / k_cc``); the cached outputs ``G beta``
    are updated with the kernel column ``G[:, c]``.  Returns new
    ``(beta, G beta)``; the inputs are not modified.
    """
    coef = -2.0 * G_beta[c] / k_cc
    beta = beta.copy()
    beta[c] += coef
    return beta, G_beta + coef * np.asarray(column, dtype=float)

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
        Index of the example whose hyperplane was hit at each flight (``-1``: a
        geodesic continuation), if ``record=True``.
    chords, rho2 : lists of float
        Chord lengths and the stopping statistic per flight (for the batch rule the
        last evaluated standard error), with every engine.
    kernel_evaluations : dict
        ``start``, ``bounces``, ``restarts`` and ``refresh``: kernel entries computed.
    engine : str
        The engine that ran (``'compiled'``, ``'python'`` or ``'numpy'``).
    G_alpha : (m,) array
        The outputs ``G alpha`` of the estimate.
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
    engine: str = ""
    G_alpha: np.ndarray | None = None


class _Columns:
    """``cols[c]``: kernel column ``c`` read from a Gram object (the Python engines)."""

    def __init__(self, gram):
        self.gram = gram

    def __getitem__(self, c):
        return np.asarray(self.gram.column(int(c)), dtype=float)


#: random or centre restarts in a row without a bounce after which a run stops (a ball
#: with no wall within ``arctan(tau_max)`` would otherwise restart until ``max_restarts``)
_MAX_STUCK = 1000


def kernel_billiard(G=None, y=None, *, kernel=None, X=None, lam=0.0, start=None,
                    tol=1e-3, tau_max=1.0, max_bounces=500_000, min_bounces=10,
                    max_restarts=None, restart="geodesic", refresh=0.0, record=False,
                    random_state=None, weighting="chord", stopping="rho2", engine="auto",
                    trace=True):
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
    * ``'tr'`` — TR Alg. 1's own variant (erratum E12): stop when
      ``rho_2(p_max, xi_max / Xi) <= tol``, with ``p_max`` the largest cosine seen between a
      midpoint and the estimate (0 before the second flight) and ``Xi`` the path length.
      Taken literally its weight ``xi_max / Xi`` tends to 0, so ``rho_2`` tends to 1 and the
      rule never fires once ``min_bounces`` has skipped the first pass (where it is
      ``rho_2(0, 1) = 0``). Implemented for the study of book chapter 11.
    * ``'batch'`` — batch means (ours): the chord-weighted midpoints are summed in
      batches of flights (16 at first; when 64 batches are full, neighbours are merged
      and the batch length doubles); every 8 batches from 32 on, the standard error of
      the direction of the mean, ``sqrt(sum_b (L_b/Lbar)^2 ||S_b/L_b - M||^2 /
      (n (n-1))) / ||M||`` in radians, is compared with ``tol``.  It targets the
      accuracy of the estimate, so ``tol`` is an angle (e.g. ``0.02`` rad).

    Randomness and engines: every random number of a run comes from one generator made
    from ``random_state`` (a ``numpy.random.RandomState``): the starting point (when
    ``start`` is omitted), the starting direction, the random restarts, and the
    refreshes, whose bounce counts are drawn as geometric gaps with parameter
    ``refresh``. The directions are drawn by one function and handed to the engine that
    flies the ``O(m)`` steps (:mod:`kernelclf.bayespoint.billiard_engines`), whose
    twins do the same floating-point operations in the same order. So the engine does
    not change the answer: on the same Gram matrix a seeded run makes the same bounces
    and returns the same ``alpha`` with every engine, and NumPy's global random state is
    never used for a seeded run. (Columns computed on demand from a kernel may differ
    from a stored matrix in the last bit, and a long trajectory can then differ too.)

    Parameters
    ----------
    G : (m, m) array or :class:`kernelclf.kernels.gram.Gram`, optional
        Gram matrix; or pass ``kernel`` and ``X`` to compute columns on demand.
    y : (m,) array of -1/+1
    kernel, X : kernel object and training inputs, optional
        Instead of ``G``: kernel columns computed on demand (with an LRU cache).
    lam : float
        Soft boundaries: billiard in ``G + lam I`` (BPM §3.3, erratum E14).
    start : (m,) array, optional
        Coefficients of a starting point strictly inside the version space;
        found by :func:`kernelclf.bayespoint.versionspace.find_version_space_point` when omitted.
    tol : float
        Threshold of the stopping rule: on ``rho_2`` (the weight a new piece of
        trajectory would get if it were no longer than the longest so far and its
        midpoint no further off; TR §3's upper bound, which a longer piece can exceed)
        or on the batch-means standard error.
    tau_max : float
        Restart (or continue geodesically) when the flight time reaches this
        value; ``arctan(tau_max)`` is the longest arc flown in one piece.
    restart : {'geodesic', 'random', 'centre'}
        What to do when no wall lies within ``tau_max``: ``'geodesic'`` flies the arc
        ``arctan(tau_max)`` on along the same great circle; ``'random'`` (BPM App. B
        Alg. 2) draws a fresh random direction from the same point; ``'centre'`` (RM
        Alg. 18.1, step 5: an escaped ball restarts from the current centre of mass) moves
        the ball to the normalised current estimate ``alpha`` (it lies inside version
        space) and draws a fresh random direction there. The jump is not a flight: it adds
        nothing to the centre of mass. Random and centre restarts cost ``m^2`` evaluations.
    refresh : float in [0, 1]
        Probability per bounce of replacing the reflected direction by a
        fresh random one (``m^2`` evaluations; expected cost per bounce
        ``refresh * m^2``, so ``refresh ~ 1/m`` keeps it ``O(m)``).  A spherical
        polygon billiard need not be ergodic: a ball that only meets two
        planes keeps the component of ``b x v`` along their intersection
        fixed and can stay in a band for ever.  Random refreshes (RM §18.5:
        random scattering) break such invariant sets.
    max_bounces, min_bounces : int
    max_restarts : int, optional
        Default ``10 * max_bounces``; reaching it stops with a warning. A run also stops
        with a warning after 1000 random or centre restarts in a row without a bounce
        (the ball is stuck: no wall lies within ``arctan(tau_max)`` of it).
    record : bool
        Keep positions, midpoints and hit planes (any engine).
    random_state : int, RandomState or None
        Seed or generator (``sklearn.utils.check_random_state``; ``None`` takes NumPy's
        global RandomState, as everywhere in scikit-learn).
    weighting : {'chord', 'arc'}
        ``'chord'``: ⊕µ with chord lengths (LKC/BPM); ``'arc'``: arc-length
        weights with great-circle (slerp) averaging (RM eq. 18.27).
    stopping : {'rho2', 'rho2-printed', 'tr', 'batch'}
        Stopping rule, see above.
    engine : {'auto', 'compiled', 'python', 'numpy'}
        What flies the ``O(m)`` steps; all run the same loop on the same random
        directions and give the same result. ``'compiled'``: the whole loop
        numba-compiled on the stored Gram matrix (computed in full if it is not stored;
        needs numba). ``'python'``: Python runs the loop and calls the compiled steps,
        reading one kernel column per bounce from the ``Gram`` object (columns on
        demand). ``'numpy'``: Python runs the loop with the NumPy twins of the steps
        (no numba needed). ``'auto'``: ``'compiled'`` when numba is installed and the
        matrix is stored (a matrix ``G``, or a ``Gram`` that holds it), ``'python'``
        when numba is installed and columns come on demand (``kernel`` and ``X``),
        ``'numpy'`` without numba (Pyodide); ``'python'`` without numba runs as
        ``'numpy'``.
    trace : bool
        Keep the chord and the stopping statistic of every flight (``chords``, ``rho2``);
        ``False`` leaves both lists empty (the fit of
        :class:`~kernelclf.bayespoint.bpm.BayesPointMachine`, which does not read them,
        saves building two Python lists of one float per flight).

    Returns
    -------
    BilliardResult
    """
    if weighting not in ("chord", "arc"):
        raise ValueError("weighting must be 'chord' or 'arc'")
    if restart not in ("geodesic", "random", "centre"):
        raise ValueError("restart must be 'geodesic', 'random' or 'centre'")
    if stopping not in STOPPING_RULES:
        raise ValueError(f"stopping must be one of {STOPPING_RULES}, got {stopping!r}")
    if not tau_max > 0:
        raise ValueError(f"tau_max must be positive, got {tau_max!r}")
    if not (isinstance(tol, numbers.Real) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    if not 0.0 <= refresh <= 1.0:
        raise ValueError(f"refresh must lie in [0, 1], got {refresh!r}")
    cols = _as_gram(G, kernel, X, lam)
    engine, fly = _eng.select_engine(engine, cols.precomputed)
    m = cols.m
    y = np.ascontiguousarray(_check_labels(y, m))
    rng = check_random_state(random_state)
    if max_restarts is None:
        max_restarts = 10 * int(max_bounces)
    kdiag = np.ascontiguousarray(cols.diag, dtype=float)

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
        return BilliardResult(
            alpha=gamma, converged=True, stopping=stopping, statistic=0.0, engine=engine,
            kernel_evaluations={"start": cols.n_evaluations - ev0, "restarts": 0,
                                "refresh": 0, "bounces": 0}, G_alpha=u)
    beta, w = np.ascontiguousarray(beta), np.ascontiguousarray(w)
    ev_start = cols.n_evaluations - ev0
    ev_restart = ev_refresh = 0

    fs, ist, batch = _eng._new_state(m, stopping)
    alpha, ga, z, uz = (np.zeros(m) for _ in range(4))
    # trace buffers, emptied into the result's lists whenever they are full
    n_trace = min(4096, max(16, (1 << 17) // m)) if record else 4096
    chords, stats = np.zeros(n_trace), np.zeros(n_trace)
    hits = np.zeros(n_trace, dtype=np.int64)
    P = np.zeros((n_trace if record else 0, m))
    Z = np.zeros_like(P)
    res = BilliardResult(alpha=np.zeros(m), stopping=stopping, engine=engine)
    if record:
        res.positions.append(gamma.copy())

    def schedule_refresh():  # bounce count of the next refresh: a geometric gap
        ist[_eng._REFRESH_AT] = ist[_eng._NB] + rng.geometric(refresh) if refresh > 0 else -1

    ridge = 0.0  # columns of G + lam I as read; else the loop adds the ridge itself
    if engine == "compiled":
        kcols = cols.stored()  # rows of the stored matrix without the ridge: no copy
        if kcols is not None and kcols.dtype == np.float64 and kcols.flags.c_contiguous:
            ridge = float(cols.ridge)
        else:
            kcols = np.ascontiguousarray(cols.full())
            cols.n_evaluations -= m * m  # the bounces' columns are counted below, one each
    else:
        kcols = _Columns(cols)
    schedule_refresh()
    args = (_eng._RULE_CODE[stopping], float(tol), float(tau_max), int(max_bounces),
            int(min_bounces), int(max_restarts), restart != "geodesic", weighting == "arc",
            ridge)
    stuck, nb_seen = 0, -1  # consecutive restarts without a bounce (a stuck ball)
    while True:
        event = fly(kcols, y, kdiag, gamma, u, beta, w, alpha, ga, z, uz, fs, ist, *batch,
                    chords, stats, hits, P, Z, *args)
        k = int(ist[_eng._NTRACE])
        if trace:
            res.chords.extend(chords[:k].tolist())
            res.rho2.extend(stats[:k].tolist())
        if record:
            res.hits.extend(hits[:k].tolist())
            res.positions.extend(P[:k].copy())
            res.midpoints.extend(Z[:k].copy())
        ist[_eng._NTRACE] = 0
        if event == _eng.RESTART:
            stuck = stuck + 1 if int(ist[_eng._NB]) == nb_seen else 1
            nb_seen = int(ist[_eng._NB])
            if stuck > _MAX_STUCK:
                break
        if event in (_eng.RESTART, _eng.REFRESH):
            e = cols.n_evaluations
            last = int(ist[_eng._LAST])
            if event == _eng.RESTART and restart == "centre" and ist[_eng._NFL] > 0:
                # RM Alg. 18.1: restart from the current centre of mass (inside version space)
                na = math.sqrt(max(float(alpha @ ga), 1e-300))
                gamma[:], u[:] = alpha / na, ga / na
                last = ist[_eng._LAST] = -1
            beta[:], w[:] = _random_direction(cols, rng, y, last if last >= 0 else None,
                                              gamma, u)
            if event == _eng.RESTART:
                ev_restart += cols.n_evaluations - e
            else:
                ev_refresh += cols.n_evaluations - e
                schedule_refresh()
        elif event != _eng.TRACE_FULL:
            break
    converged = event == _eng.CONVERGED
    n_b, n_r = int(ist[_eng._NB]), int(ist[_eng._NR])
    if engine == "compiled":
        cols.n_evaluations += m * n_b
    if not converged:
        why = f"{max_restarts} restarts" if event == _eng.MAX_RESTARTS else \
            f"{max_bounces} bounces"
        if stuck > _MAX_STUCK:
            why = (f"{_MAX_STUCK} restarts in a row without a bounce (no wall within "
                   f"arctan(tau_max) = {math.degrees(math.atan(tau_max)):.3g} deg of the "
                   f"ball: raise tau_max)")
        warnings.warn(f"kernel billiard stopped after {why} before its stopping rule "
                      f"({stopping!r}: statistic <= tol={tol}) was met (last value "
                      f"{fs[_eng._STAT]:.3g}); raise max_bounces or tol", ConvergenceWarning,
                      stacklevel=2)
    if ist[_eng._NFL] == 0:
        alpha, ga = gamma.copy(), u.copy()
    na = np.sqrt(max(float(alpha @ ga), 1e-300))
    res.alpha, res.G_alpha = alpha / na, ga / na
    res.n_bounces = n_b
    res.n_restarts = n_r
    res.n_flights = int(ist[_eng._NFL])
    res.converged = bool(converged)
    res.statistic = float(fs[_eng._STAT])
    ev_total = cols.n_evaluations - ev0
    res.kernel_evaluations = {"start": ev_start, "restarts": ev_restart, "refresh": ev_refresh,
                              "bounces": ev_total - ev_start - ev_restart - ev_refresh}
    return res
