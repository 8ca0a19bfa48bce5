"""Book chapter 15 (``book/15_margin_bounds.md``): covering numbers and the fat shattering dimension.

LKC §4.4 (Definition 4.24, Theorem 4.25, Corollary 4.26 eq. 4.26), §4.4.1 (Definition
4.28, Lemma 4.29, Theorem 4.30 eq. 4.27, Lemma 4.31 eq. 4.28), App. C.5; Alon et al.
(1997) for Lemma 4.29. The margin bounds built on them (§4.4.2–4.4.3) are in
:mod:`kernelclf.bounds.margin`.

Notation as in the book: ``m`` training sample size, ``delta`` confidence, ``gamma`` a
scale or the (geometrical) margin γ_z(w) = min_i y_i<w, x_i>/||w||, ``varsigma`` (ς) the
radius of a ball in feature space holding every ``phi(x)``, ``vartheta_eff`` (ϑ_eff) an
effective VC dimension (a fat shattering dimension). ``ld`` is the logarithm to base 2
(LKC p. 331), from :mod:`kernelclf.bounds.luckiness`. ``_fat_form``, the shape
``(2/m)(d ld(8em/d) ld(32m) + tail)`` that Theorem 4.30 shares with the margin bounds,
lives here.

Return convention of :mod:`kernelclf.bounds`: every bound returns the raw right-hand
side of its theorem, never clipped; a value >= 1 is trivial
(:func:`kernelclf.bounds.trivial`). When the *premise* of a theorem fails (for example
``vartheta_eff > 2m`` in Theorem 4.30, or ``ld N > m/2`` in Corollary 4.26) the theorem
gives no guarantee and the function returns ``inf``: the formula evaluated outside its
range can come out small (a negative ``ld``) and would otherwise look like a useful bound.
"""
from __future__ import annotations

import itertools

import numpy as np

from ._validation import (
    as_float,
    broadcast,
    check_delta,
    check_int,
    check_m,
    check_nonnegative,
    check_positive,
    result,
)
from .luckiness import _ld, _xldx

__all__ = [
    # covering numbers (§4.4)
    "covering_number_tail",
    "covering_number_bound",
    "greedy_cover",
    "sample_rkhs_ball",
    "sample_rkhs_ball_lkc",
    # fat shattering (§4.4.1)
    "alon_log_covering",
    "fat_shattering_gamma",
    "linear_fat_shattering",
    "fat_shattering_bound",
]


def _fat_form(m, d, tail_ld, ceil=True):
    """``(2/m) (ceil(d ld(8em/d) ld(32m)) + tail_ld)``, ``inf`` where ``d > 2m``.

    The common shape of eqs. (4.27), (4.29), (4.32), (4.33) and (4.38). LKC prints the
    complexity term of each of them inside a ceiling: the proof of Theorem 4.30 applies
    Theorem 4.25 at the integer level ``i >= b(gamma)`` (LKC pp. 148-149), so the term is
    an integer number of bits. ``ceil=False`` gives the form without it (TR 99-11
    Theorem 1 has no ceiling). The ceiling raises a value by less than ``2/m``.

    The proof of Theorem 4.30 spreads ``delta`` over ``ceil(m/2)`` levels, as Corollary 4.26
    does; for odd ``m`` it yields ``ld(m + 1)`` where the book prints ``ld m``. Unlike
    :func:`covering_number_bound`, the callers keep the printed ``tail_ld``: the difference
    ``(2/m) ld(1 + 1/m)`` is below ``3/m^2``.
    """
    m = np.asarray(m, dtype=float)
    bits = _xldx(d, 8.0 * np.e * m) * _ld(32.0 * m)
    if ceil:
        with np.errstate(invalid="ignore"):
            bits = np.ceil(bits - 1e-9)
    value = 2.0 / m * (bits + tail_ld)
    return np.where(np.asarray(d) <= 2.0 * m, value, np.inf)


# ---------------------------------------------------------------------------------------
# Covering numbers, §4.4
# ---------------------------------------------------------------------------------------
def covering_number_tail(m, d, epsilon):
    """Covering number bound, LKC Theorem 4.25.

    ``P(exists h_w in V(Z): R[h_w] > epsilon and N_inf(gamma_Z(w)/2, 2m) <= 2^d)
    < 2^(d + 1 - epsilon m / 2)``.

    Parameters
    ----------
    m : array_like of int, >= 1
    d : array_like of int, >= 0
    epsilon : array_like, > 0

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    d = check_int(d, "d", minimum=0)
    eps = check_positive(epsilon, "epsilon")
    m, d, eps = broadcast(m, d, eps)
    return result(np.exp2(d + 1.0 - eps * m / 2.0))


def covering_number_bound(m, log2_cover, delta):
    """Covering number bound on the risk, LKC Corollary 4.26, eq. (4.26).

    For every consistent ``h_w`` with ``N_inf(gamma_z(w)/2, 2m) <= 2^(m/2)``, with
    probability at least ``1 - delta``

    ``R[h_w] <= (2/m) (ceil(ld N_inf(gamma_z(w)/2, 2m)) + ld(2 ceil(m/2)) + ld(1/delta))``.

    For even ``m`` the middle term is the book's ``ld m``. The corollary spreads ``delta``
    uniformly over the levels ``i = 1, ..., ceil(m/2)`` of Theorem 4.25, whose tail
    ``2^(i + 1 - epsilon m / 2)`` then gives ``ld(2 ceil(m/2) / delta)``; for odd ``m``
    that is ``ld((m + 1)/delta)``, a little more than the printed ``ld m + ld(1/delta)``
    (an overlooked rounding in the book, negligible for large ``m``). We use the derived
    term. The levels start at ``i = 1`` (Theorem 4.25 has ``d`` in ``N+``), so a cover of
    size one (``ld N = 0``) is charged one bit, not the printed ``ceil(ld N) = 0``.

    Parameters
    ----------
    m : array_like of int, >= 1
    log2_cover : array_like, >= 0
        ``ld N_inf(gamma_z(w)/2, 2m)``, e.g. from :func:`alon_log_covering`.
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`);
        ``inf`` where ``log2_cover > m/2`` (the corollary does not apply).
    """
    m = check_m(m)
    lc = check_nonnegative(log2_cover, "log2_cover", allow_inf=True)
    delta = check_delta(delta)
    m, lc, delta = broadcast(m, lc, delta)
    with np.errstate(invalid="ignore"):
        level = np.maximum(1.0, np.ceil(lc - 1e-12))   # the levels are i = 1, ..., ceil(m/2)
        value = 2.0 / m * (level + _ld(2.0 * np.ceil(m / 2.0)) + _ld(1.0 / delta))
    return result(np.where(lc <= m / 2.0, value, np.inf))


#: the selection rules of :func:`greedy_cover`
COVER_RULES = ("first", "fewest", "most")


def greedy_cover(values, gamma, rule="first"):
    """A (not necessarily smallest) ``l_inf`` cover of a finite function class, Def. 4.24.

    Each row of ``values`` is ``(f(x_1), ..., f(x_m))`` for one function ``f``. The
    greedy rule takes an uncovered row as a cover element and removes every row within
    ``gamma`` of it in the maximum norm, until none is left. Every row is then within
    ``gamma`` of an element (a cover at scale ``gamma``, the 2γ-boxes of Fig. 4.5), and the
    elements are more than ``gamma`` apart, so the count lies between the smallest cover
    at scale ``gamma`` and the smallest cover at scale ``gamma/2`` of the same finite class,
    whichever uncovered row each step takes.

    Parameters
    ----------
    values : array_like of shape (n_functions, m)
    gamma : float, > 0
    rule : {"first", "fewest", "most"}
        Which uncovered row becomes the next element: the first one; the one whose box
        holds the fewest uncovered rows (the rule that the R code published for LKC
        Fig. 4.5 executes: it sorts the counts in increasing order and takes the first);
        or the one whose box holds the most. Ties go to the first such row. Here a row
        within exactly ``gamma`` counts as covered; the R code needs strictly less, which
        makes a difference only for values exactly ``gamma`` apart.

    Returns
    -------
    centres : ndarray of int
        Row indices of the cover elements.
    """
    V = np.asarray(values, dtype=float)
    if V.ndim == 1:
        V = V[:, None]
    if V.ndim != 2 or len(V) == 0:
        raise ValueError(f"values must be a non-empty 2-D array, got shape {V.shape}")
    if not np.isfinite(V).all():
        raise ValueError("values must be finite")
    gamma = float(check_positive(gamma, "gamma"))
    if rule not in COVER_RULES:
        raise ValueError(f"rule must be one of {COVER_RULES}, got {rule!r}")
    left = np.ones(len(V), dtype=bool)
    close = None
    if rule != "first":
        close = np.max(np.abs(V[:, None] - V[None]), axis=2) <= gamma
    centres = []
    while left.any():
        idx = np.flatnonzero(left)
        if rule == "first":
            c = int(idx[0])
        else:
            held = close[np.ix_(idx, idx)].sum(axis=1)
            c = int(idx[np.argmin(held) if rule == "fewest" else np.argmax(held)])
        centres.append(c)
        left &= np.max(np.abs(V - V[c]), axis=1) > gamma
    return np.asarray(centres, dtype=int)


def sample_rkhs_ball_lkc(G, n_functions, random_state=None):
    """Coefficients of RKHS-ball functions on two points, drawn as LKC's Fig. 4.5 code draws them.

    The class is that of :func:`sample_rkhs_ball` (``f = a_1 k(x_1, .) + a_2 k(x_2, .)``
    with ``a'G a <= 1``, LKC §4.4, Definition 2.15) for ``m = 2`` and a Gram matrix
    ``G = [[1, k], [k, 1]]`` with ``|k| < 1`` (a normalised kernel such as the RBF). The
    distribution is the one of the R code published for the book's figure: ``a_1``
    uniform on ``[-1/sqrt(1-k^2), 1/sqrt(1-k^2)]`` (the values for which some ``a_2``
    is admissible), then ``a_2`` uniform on the admissible interval
    ``-k a_1 +- sqrt(1 - a_1^2 (1-k^2))``. That is not uniform on the ellipse: the
    functions crowd towards the ends of the ``a_1`` range.

    Parameters
    ----------
    G : array_like of shape (2, 2)
        ``[[1, k], [k, 1]]`` with ``|k| < 1``.
    n_functions : int, >= 1
    random_state : None, int or numpy Generator

    Returns
    -------
    alpha : ndarray of shape (n_functions, 2)
    """
    G = _check_matrix(G)
    n = int(check_int(n_functions, "n_functions", minimum=1))
    if G.shape != (2, 2) or not np.allclose(np.diag(G), 1.0):
        raise ValueError("G must be a 2 x 2 Gram matrix with unit diagonal")
    k = float(G[0, 1])
    if not abs(k) < 1:
        raise ValueError(f"the off-diagonal entry must lie in (-1, 1), got {k}")
    rng = np.random.default_rng(random_state)
    lim = 1.0 / np.sqrt(1.0 - k * k)
    a1 = rng.uniform(-lim, lim, size=n)
    half = np.sqrt(np.maximum(1.0 - a1**2 * (1.0 - k * k), 0.0))
    a2 = rng.uniform(-k * a1 - half, -k * a1 + half)
    return np.column_stack([a1, a2])


def sample_rkhs_ball(G, n_functions, random_state=None):
    """Coefficients of functions ``f = sum_i alpha_i k(x_i, .)`` with ``||f||^2 = alpha'G alpha <= 1``.

    The function class of Fig. 4.5 (LKC §4.4, Definition 2.15): ``u`` uniform in the
    unit ball of ``R^m`` and ``alpha = G^{-1/2} u``, so that ``||f||^2 = ||u||^2 <= 1``
    and the values on the sample, ``G alpha = G^{1/2} u``, fill the ellipsoid
    ``{v : v'G^{-1}v <= 1}`` uniformly.

    Parameters
    ----------
    G : array_like of shape (m, m)
        Positive definite Gram matrix of the points ``x_1..x_m``.
    n_functions : int, >= 1
    random_state : None, int or numpy Generator

    Returns
    -------
    alpha : ndarray of shape (n_functions, m)
    """
    G = _check_matrix(G)
    n = int(check_int(n_functions, "n_functions", minimum=1))
    evals, evecs = np.linalg.eigh(G)
    if evals.min() <= 1e-12 * max(1.0, evals.max()):
        raise ValueError("G must be positive definite")
    rng = np.random.default_rng(random_state)
    m = len(G)
    u = rng.standard_normal((n, m))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    u *= rng.uniform(size=(n, 1)) ** (1.0 / m)
    inv_sqrt = (evecs / np.sqrt(evals)) @ evecs.T
    return u @ inv_sqrt


def _check_matrix(G):
    """Square, symmetric, finite matrix (for :func:`sample_rkhs_ball`)."""
    G = as_float(G, "G")
    if G.ndim != 2 or G.shape[0] != G.shape[1] or len(G) == 0:
        raise ValueError(f"G must be a non-empty square matrix, got shape {G.shape}")
    if not np.isfinite(G).all():
        raise ValueError("G must be finite")
    if not np.allclose(G, G.T, atol=1e-10 * max(1.0, np.abs(G).max())):
        raise ValueError("G must be symmetric")
    return G


# ---------------------------------------------------------------------------------------
# Fat shattering, §4.4.1
# ---------------------------------------------------------------------------------------
def alon_log_covering(m, gamma, fat, a=0.0, b=1.0):
    """Bound on the log covering number, LKC Lemma 4.29 (Alon et al. 1997).

    For functions into ``[a, b]`` and ``d = fat(gamma/4) <= m``,

    ``ld N_inf(gamma, m) <= 1 + d ld(2em(b - a) / (d gamma)) ld(4m(b - a)^2 / gamma^2)``.

    With ``[a, b] = [-tau, tau]`` this is the truncated-class bound of §4.4.1.

    The range ``gamma < b`` is the lemma's and is enforced. The book's own use of the lemma
    in §4.4.1 (LKC pp. 148-149) takes the class truncated to ``[-tau, tau]`` with
    ``tau = e(d)`` at the scale ``gamma_z(w)/2 >= e(d)``, i.e. at ``gamma >= b``, outside
    that range; this function refuses such a ``gamma``, so that step of the book cannot be
    evaluated with it.

    Parameters
    ----------
    m : array_like of int, >= 1
    gamma : array_like, with ``max(a, 0) < gamma < b`` (the lemma's ``gamma in (a, b)``)
    fat : array_like, >= 0
        ``fat_F(gamma / 4)``.
    a, b : float, ``a < b``

    Returns
    -------
    log2_cover : float or ndarray
        ``inf`` where ``fat > m`` (the lemma does not apply).
    """
    m = check_m(m)
    gamma = check_positive(gamma, "gamma")
    d = check_nonnegative(fat, "fat")
    a = float(as_float(a, "a"))
    b = float(as_float(b, "b"))
    if not a < b:
        raise ValueError(f"need a < b, got a={a}, b={b}")
    if ((gamma <= a) | (gamma >= b)).any():
        raise ValueError(f"gamma must lie in (a, b) = ({a}, {b}), got {gamma!r}")
    m, gamma, d = broadcast(m, gamma, d)
    span = b - a
    value = 1.0 + _xldx(d, 2.0 * np.e * m * span / gamma) * _ld(4.0 * m * span**2 / gamma**2)
    return result(np.where(d <= m, value, np.inf))


def fat_shattering_gamma(values):
    """Largest scale at which a finite class gamma-shatters its points, LKC Def. 4.28.

    ``values[k, i] = f_k(x_i)``. The points are gamma-shattered if there are witnesses
    ``r_i`` such that every labelling ``y`` is realised by some ``f_k`` with
    ``y_i (f_k(x_i) - r_i) >= gamma`` for all ``i`` (Fig. 4.7). Being shattered at scale
    ``gamma`` is monotone in ``gamma``, and the largest scale is half a difference
    ``f_k(x_i) - f_l(x_i)``, so a bisection over those candidates finds it. For one
    ``gamma`` the feasible witnesses form a union of boxes whose finite corners are
    values ``f_k(x_i) -+ gamma``; checking every such corner decides feasibility exactly
    (brute force, ``(2 n_functions + 1)^m`` candidate witness vectors).

    Parameters
    ----------
    values : array_like of shape (n_functions, m)

    Returns
    -------
    gamma : float
        The largest ``gamma``; ``0.0`` means the points are not gamma-shattered for any
        ``gamma > 0``.
    r : ndarray of shape (m,) or None
        Witnesses attaining it (``None`` when ``gamma = 0``).
    """
    V = np.asarray(values, dtype=float)
    if V.ndim != 2 or V.size == 0 or not np.isfinite(V).all():
        raise ValueError(f"values must be a finite non-empty 2-D array, got shape {V.shape}")
    n_f, m = V.shape
    n_lab = 2 ** m
    if n_lab > n_f:
        return 0.0, None            # fewer functions than labellings: cannot shatter
    if (2 * n_f + 1) ** m * n_lab * n_f * m > 5e7:
        raise ValueError(f"{n_f} functions on {m} points are too many for brute force")
    labels = np.array(list(itertools.product([-1.0, 1.0], repeat=m)))       # (L, m)

    def witness(g):
        cands = [np.r_[V[:, i] - g, V[:, i] + g, 0.0] for i in range(m)]
        R = np.array(list(itertools.product(*cands)))                      # (C, m)
        # ok[c, l] = exists k: y_l,i (V[k, i] - R[c, i]) >= g for all i
        marg = labels[None, :, None, :] * (V[None, None, :, :] - R[:, None, None, :])
        ok = (marg.min(axis=3) >= g * (1 - 1e-12) - 1e-15).any(axis=2).all(axis=1)
        hit = np.flatnonzero(ok)
        return R[hit[0]] if hit.size else None

    diffs = (V[:, None, :] - V[None, :, :]) / 2.0
    cand = np.unique(diffs[diffs > 0])
    lo, hi = -1, len(cand)              # invariant: cand[lo] feasible (or lo = -1), cand[hi] not
    best_r = None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r = witness(cand[mid])
        if r is None:
            hi = mid
        else:
            lo, best_r = mid, r
    if lo < 0:
        return 0.0, None
    return float(cand[lo]), np.asarray(best_r, dtype=float)


def linear_fat_shattering(gamma, varsigma=1.0, B=1.0):
    """Fat shattering dimension of bounded linear functions, LKC Lemma 4.31, eq. (4.28).

    For ``{x -> <w, x> : ||w|| <= B}`` on the ball of radius ``varsigma``,
    ``fat(gamma) <= (B varsigma / gamma)^2`` (proof: App. C.5, Lemmas C.8–C.9).

    Parameters
    ----------
    gamma : array_like, > 0
    varsigma : array_like, > 0
    B : array_like, > 0

    Returns
    -------
    float or ndarray
        The upper bound ``(B varsigma / gamma)^2``.
    """
    gamma = check_positive(gamma, "gamma")
    vs = check_positive(varsigma, "varsigma")
    B = check_positive(B, "B")
    gamma, vs, B = broadcast(gamma, vs, B)
    return result((B * vs / gamma) ** 2)


def fat_shattering_bound(m, vartheta_eff, delta):
    """Fat shattering bound, LKC Theorem 4.30, eq. (4.27).

    For every consistent ``h_w`` whose margin has ``vartheta_eff = fat(gamma_z(w)/8)
    <= 2m``, with probability at least ``1 - delta``

    ``R[h_w] <= (2/m) (ceil(vartheta_eff ld(8em/vartheta_eff) ld(32m)) + ld m + ld(2/delta))``.

    With ``vartheta_eff = 64 varsigma^2 / gamma^2`` (Lemma 4.31 at scale ``gamma/8``)
    this is the PAC margin bound eq. (4.29),
    :func:`kernelclf.bounds.margin.pac_margin_bound`.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta_eff : array_like, >= 0
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`);
        ``inf`` where ``vartheta_eff > 2m``.
    """
    m = check_m(m)
    vt = check_nonnegative(vartheta_eff, "vartheta_eff", allow_inf=True)
    delta = check_delta(delta)
    m, vt, delta = broadcast(m, vt, delta)
    return result(_fat_form(m, vt, _ld(m) + _ld(2.0 / delta)))
