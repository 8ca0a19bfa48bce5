"""Luckiness, covering-number, fat-shattering and margin bounds for real-valued classifiers.

Book chapter 15 (``book/15_margin_bounds.md``); LKC §4.3 (Theorem 4.19 eq. 4.23,
Examples 4.21–4.22), §4.4 (Definition 4.24, Theorem 4.25, Corollary 4.26 eq. 4.26,
Definition 4.28, Lemma 4.29, Theorem 4.30 eq. 4.27, Lemma 4.31 eq. 4.28, Theorem 4.32
eq. 4.29, Remark 4.33, Lemma 4.34 eq. 4.31–4.32, Theorem 4.35 eq. 4.33, Remark 4.36
eq. 4.34–4.35, Theorem 4.37 eq. 4.36–4.38), App. C.3–C.6; TR 99-11 Theorem 1
(Shawe-Taylor et al. 1998).

Notation as in the book: ``m`` training sample size, ``delta`` confidence, ``gamma`` the
(geometrical) margin γ_z(w) = min_i y_i<w, x_i>/||w||, ``varsigma`` (ς) the radius of
a ball in feature space holding every ``phi(x)``, ``vartheta_eff`` (ϑ_eff) an effective
VC dimension, ``d_eff`` the effective dimensionality of the robust bounds, ``Delta``
(Δ) the extra coordinate of the augmented space of §4.4.3. ``ld`` is the logarithm to
base 2 (LKC p. 331).

Return convention of :mod:`kernelclf.bounds`: every bound returns the raw right-hand
side of its theorem, never clipped; a value >= 1 is trivial
(:func:`kernelclf.bounds.trivial`). When the *premise* of a theorem fails (for example
``vartheta_eff > 2m`` in Theorem 4.30, or a margin below ``sqrt(32/m) * varsigma`` in
Theorem 4.32) the theorem gives no guarantee and the function returns ``inf``: the
formula evaluated outside its range can come out small (a negative ``ld``) and would
otherwise look like a useful bound.

Erratum E23 (Remark 4.33): the book prints ``m > 34 816`` as the smallest sample size at
which eq. (4.29) drops below one for ``varsigma^2 / gamma^2 = 1``. Evaluating eq. (4.29)
without the ``ld(2/delta)`` term (as Fig. 4.8's caption says) gives 34 820; dropping the
whole ``ld(2m/delta)`` term gives 34 783. 34 816 = 34 * 1024 is the first multiple of 1024
past 34 783, which suggests a coarse grid. See :func:`nontrivial_sample_size`.
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

__all__ = [
    # luckiness (§4.3)
    "luckiness_bound",
    "pac_luckiness_bound",
    "empirical_vc_luckiness_log_omega",
    "empirical_vc_luckiness_bound",
    "empirical_vc_dimension",
    # covering numbers and fat shattering (§4.4, §4.4.1)
    "covering_number_tail",
    "covering_number_bound",
    "greedy_cover",
    "sample_rkhs_ball",
    "alon_log_covering",
    "fat_shattering_gamma",
    "linear_fat_shattering",
    "fat_shattering_bound",
    # PAC margin bound (§4.4.2)
    "margin_complexity",
    "pac_margin_bound",
    "nontrivial_sample_size",
    # robust margin bounds (§4.4.3)
    "margin_deficits",
    "margin_distribution",
    "margin_distribution_d_eff",
    "optimal_Delta",
    "Delta_grid",
    "margin_distribution_bound",
    "robust_d_eff",
    "robust_margin_bound",
    "soft_margin_d_eff",
    "amm_d_eff",
    # TR 99-11
    "tr_margin_bound",
]

def _ld(x):
    with np.errstate(divide="ignore"):
        return np.log2(x)


def _xldx(d, c):
    """``d * ld(c / d)`` with the limit 0 at ``d = 0``."""
    d = np.asarray(d, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = d * _ld(c / np.where(d > 0, d, 1.0))
    return np.where(d > 0, out, 0.0)


def _fat_form(m, d, tail_ld):
    """``(2/m) (d ld(8em/d) ld(32m) + tail_ld)``, ``inf`` where ``d > 2m``.

    The common shape of eqs. (4.27), (4.29), (4.32), (4.33) and (4.38).
    """
    m = np.asarray(m, dtype=float)
    value = 2.0 / m * (_xldx(d, 8.0 * np.e * m) * _ld(32.0 * m) + tail_ld)
    return np.where(np.asarray(d) <= 2.0 * m, value, np.inf)


# ---------------------------------------------------------------------------------------
# Luckiness framework, §4.3
# ---------------------------------------------------------------------------------------
def luckiness_bound(m, d, delta, p_d=1.0):
    """Luckiness bound, LKC Theorem 4.19, eq. (4.23), and its stratified form.

    If ``R_emp[h, z] = 0`` and ``omega(L(z, h), delta p_d / 4) <= 2^d`` for a luckiness
    function ``L`` that is probably smooth w.r.t. ``omega`` (Definition 4.18), then with
    probability at least ``1 - delta``

    ``R[h] <= (2/m) (d + ld(4 / (delta p_d)))``.

    ``p_d = 1`` is eq. (4.23) for one level ``d`` fixed in advance; positive ``p_d``
    summing to at most one over the levels give the bound simultaneously for all of
    them (the multiple-testing step after eq. 4.23, Lemma 4.14).

    Parameters
    ----------
    m : array_like of int, >= 1
    d : array_like of int, >= 0
        The level: ``ld`` of the number of luckier equivalence classes that may occur.
    delta : array_like in (0, 1)
    p_d : array_like in (0, 1], default 1
        Prior weight of level ``d``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    d = check_int(d, "d", minimum=0)
    delta = check_delta(delta)
    p_d = check_positive(p_d, "p_d")
    if (p_d > 1).any():
        raise ValueError(f"p_d must lie in (0, 1], got {p_d!r}")
    m, d, delta, p_d = broadcast(m, d, delta, p_d)
    return result(2.0 / m * (d + _ld(4.0 / (delta * p_d))))


def pac_luckiness_bound(m, vartheta, delta):
    """PAC luckiness, LKC Example 4.21.

    With ``L(z, h) = -vartheta`` (the VC dimension) and ``omega = (2em/vartheta)^vartheta``
    (Sauer's lemma, Theorem A.105), Theorem 4.19 gives, for every consistent ``h``,

    ``R[h] <= (2/m) (vartheta ld(2em / vartheta) + ld(4/delta))``,

    which is eq. (4.15) up to constants.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta : array_like of int, >= 1
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    vt = check_int(vartheta, "vartheta", minimum=1)
    delta = check_delta(delta)
    m, vt, delta = broadcast(m, vt, delta)
    return result(2.0 / m * (_xldx(vt, 2.0 * np.e * m) + _ld(4.0 / delta)))


def empirical_vc_luckiness_log_omega(m, vartheta_z, delta):
    """``ld omega(L, delta)`` of the empirical VC dimension luckiness, LKC Example 4.22.

    The luckiness ``L(z, h) = -vartheta(z)`` (the empirical VC dimension of the class
    on the sample, :func:`empirical_vc_dimension`) is probably smooth (App. C.4,
    Theorem C.6) w.r.t. ``omega(L, delta) = (em / (-2L - 2 ln delta))^(-4L - 4 ln delta)``
    for ``delta`` in ``(0, 1/2]``, so

    ``ld omega = (4 vartheta(z) - 4 ln delta) ld(em / (2 vartheta(z) - 2 ln delta))``.

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta_z : array_like of int, >= 0
    delta : array_like in (0, 1/2]

    Returns
    -------
    log2_omega : float or ndarray
    """
    m = check_m(m)
    vt = check_int(vartheta_z, "vartheta_z", minimum=0)
    delta = check_delta(delta)
    if (delta > 0.5).any():
        raise ValueError(f"delta must lie in (0, 1/2] (LKC Example 4.22), got {delta!r}")
    m, vt, delta = broadcast(m, vt, delta)
    a = 2.0 * vt - 2.0 * np.log(delta)
    return result(2.0 * a * _ld(np.e * m / a))


def empirical_vc_luckiness_bound(m, vartheta_z, delta):
    """Bound from the empirical VC dimension luckiness (LKC Example 4.22 + Theorem 4.19).

    The level ``d`` is not known before the sample arrives, so the levels
    ``d = 1, ..., 2m`` get the uniform weight ``p_d = 1/(2m)`` (the stratified form
    of eq. 4.23). The smallest admissible level is
    ``d = max(1, ceil(ld omega(-vartheta(z), delta / (8m))))`` and then

    ``R[h] <= (2/m) (d + ld(8m / delta))``

    for every consistent ``h``. Returns ``inf`` if ``d > 2m`` (no level applies).

    Parameters
    ----------
    m : array_like of int, >= 1
    vartheta_z : array_like of int, >= 0
        Empirical VC dimension on the training sample.
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    vt = check_int(vartheta_z, "vartheta_z", minimum=0)
    delta = check_delta(delta)
    m, vt, delta = broadcast(m, vt, delta)
    level = np.asarray(empirical_vc_luckiness_log_omega(m, vt, delta / (8.0 * m)))
    d = np.maximum(1.0, np.ceil(level - 1e-12))
    value = 2.0 / m * (d + _ld(8.0 * m / delta))
    return result(np.where(d <= 2.0 * m, value, np.inf))


def empirical_vc_dimension(losses):
    """Empirical VC dimension of a finite class on a sample, LKC Example 4.22.

    The largest ``j`` such that some ``j`` of the ``m`` sample points see all ``2^j``
    loss patterns among the hypotheses (brute force over subsets).

    Parameters
    ----------
    losses : array_like of shape (n_hypotheses, m)
        Zero-one losses (or any binary labels) of each hypothesis on each point.

    Returns
    -------
    int
        ``vartheta(z)``; 0 when no single point sees both values.
    """
    L = np.asarray(losses)
    if L.ndim != 2 or L.size == 0:
        raise ValueError(f"losses must be a non-empty 2-D array, got shape {L.shape}")
    if not np.isin(L, [0, 1, -1, True, False]).all():
        raise ValueError("losses must be binary (0/1 or -1/+1)")
    if L.shape[1] > 20:
        raise ValueError(f"brute force over subsets is limited to m <= 20 points, got {L.shape[1]}")
    L = (L > 0).astype(np.int64)
    n_h, m = L.shape
    best = 0
    for j in range(1, m + 1):
        if 2 ** j > n_h:
            break
        weights = 1 << np.arange(j)
        if any(len(np.unique(L[:, list(S)] @ weights)) == 2 ** j
               for S in itertools.combinations(range(m), j)):
            best = j
        else:
            break   # a shattered (j+1)-set contains a shattered j-set
    return best


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

    ``R[h_w] <= (2/m) (ceil(ld N_inf(gamma_z(w)/2, 2m)) + ld m + ld(1/delta))``.

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
        value = 2.0 / m * (np.ceil(lc - 1e-12) + _ld(m) + _ld(1.0 / delta))
    return result(np.where(lc <= m / 2.0, value, np.inf))


def greedy_cover(values, gamma):
    """A (not necessarily smallest) ``l_inf`` cover of a finite function class, Def. 4.24.

    Each row of ``values`` is ``(f(x_1), ..., f(x_m))`` for one function ``f``. The
    greedy rule takes the first uncovered row as a cover element and removes every
    row within ``gamma`` of it in the maximum norm, until none is left. Every row is
    then within ``gamma`` of an element (a cover at scale ``gamma``, the 2γ-boxes of
    Fig. 4.5), and the elements are more than ``gamma`` apart, so the count lies between
    the smallest cover at scale ``gamma`` and the smallest cover at scale ``gamma/2``
    of the same finite class.

    Parameters
    ----------
    values : array_like of shape (n_functions, m)
    gamma : float, > 0

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
    left = np.ones(len(V), dtype=bool)
    centres = []
    while left.any():
        c = int(np.flatnonzero(left)[0])
        centres.append(c)
        left &= np.max(np.abs(V - V[c]), axis=1) > gamma
    return np.asarray(centres, dtype=int)


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

    ``R[h_w] <= (2/m) (vartheta_eff ld(8em/vartheta_eff) ld(32m) + ld m + ld(2/delta))``.

    With ``vartheta_eff = 64 varsigma^2 / gamma^2`` (Lemma 4.31 at scale ``gamma/8``)
    this is the PAC margin bound eq. (4.29), :func:`pac_margin_bound`.

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


# ---------------------------------------------------------------------------------------
# PAC margin bound, §4.4.2
# ---------------------------------------------------------------------------------------
def margin_complexity(gamma, varsigma=1.0):
    """Margin complexity ``varsigma^2 / gamma^2``, LKC Remark 4.33.

    The effective VC dimension ``vartheta_eff`` of a linear classifier with margin
    ``gamma`` on data in a ball of radius ``varsigma``; the condition of Theorem 4.32 is
    ``m / vartheta_eff >= 32`` (Vapnik's rule of thumb).
    """
    gamma = check_positive(gamma, "gamma")
    vs = check_positive(varsigma, "varsigma")
    gamma, vs = broadcast(gamma, vs)
    return result((vs / gamma) ** 2)


def pac_margin_bound(m, gamma, delta, varsigma=1.0):
    """PAC margin bound, LKC Theorem 4.32, eq. (4.29).

    If ``P_X(||phi(x)|| <= varsigma) = 1`` and a linear classifier separates the ``m``
    training points with geometrical margin ``gamma >= sqrt(32/m) varsigma``, then with
    probability at least ``1 - delta``

    ``R[h_w] <= (2/m) ((64 varsigma^2/gamma^2) ld(gamma^2 e m / (8 varsigma^2)) ld(32m)
    + ld(2m/delta))``.

    Parameters
    ----------
    m : array_like of int, >= 1
    gamma : array_like, > 0
        Geometrical margin ``gamma_z(w)`` (see :mod:`kernelclf.bounds.inputs`).
    delta : array_like in (0, 1)
    varsigma : array_like, > 0, default 1 (RBF and normalised kernels)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`);
        ``inf`` where ``gamma < sqrt(32/m) varsigma``.
    """
    m = check_m(m)
    gamma = check_positive(gamma, "gamma")
    delta = check_delta(delta)
    vs = check_positive(varsigma, "varsigma")
    m, gamma, delta, vs = broadcast(m, gamma, delta, vs)
    d = 64.0 * vs**2 / gamma**2
    return result(_fat_form(m, d, _ld(2.0 * m / delta)))


def nontrivial_sample_size(vartheta_eff, delta=None, keep_ld_m=True, target=1.0):
    """Smallest ``m`` at which eq. (4.29) falls below ``target``, LKC Remark 4.33 / Fig. 4.8.

    Eq. (4.29) with margin complexity ``varsigma^2/gamma^2 = vartheta_eff`` reads
    ``(2/m)(64 vartheta_eff ld(em/(8 vartheta_eff)) ld(32m) + ld(2m/delta))``. It
    decreases in ``m`` for ``m >= 32 vartheta_eff`` (where the theorem starts to apply),
    so the least integer is found by doubling and bisection.

    Parameters
    ----------
    vartheta_eff : array_like, > 0
        Margin complexity ``varsigma^2 / gamma^2``.
    delta : None or array_like in (0, 1)
        ``None`` drops ``ld(2/delta)`` as in the caption of Fig. 4.8.
    keep_ld_m : bool, default True
        With ``delta=None``: keep the remaining ``ld m`` (True, the caption's reading)
        or drop the whole last term (False).
    target : float, default 1

    Returns
    -------
    m : int or ndarray of int

    Notes
    -----
    Erratum E23: for ``vartheta_eff = 1`` this gives 34 820 (``keep_ld_m=True``) and
    34 783 (``keep_ld_m=False``); the book prints 34 816.
    """
    vt = check_positive(vartheta_eff, "vartheta_eff")
    target = float(check_positive(target, "target"))
    if delta is None:
        dl = np.full(vt.shape, np.nan)
    else:
        dl = check_delta(delta)
    vt, dl = broadcast(vt, dl)
    out = np.empty(vt.shape, dtype=np.int64)
    for idx in np.ndindex(vt.shape):
        c = float(vt[idx])
        dd = float(dl[idx])

        def value(mm, c=c, dd=dd):
            if np.isnan(dd):
                tail = np.log2(mm) if keep_ld_m else 0.0
            else:
                tail = np.log2(2.0 * mm / dd)
            return float(_fat_form(mm, 64.0 * c, tail))

        lo = max(1, int(np.ceil(32.0 * c)))
        if value(lo) < target:
            out[idx] = lo
            continue
        hi = 2 * lo
        while not value(hi) < target:
            hi *= 2
        while hi - lo > 1:                      # value(lo) >= target > value(hi)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if value(mid) < target else (mid, hi)
        out[idx] = hi
    return out[()] if out.ndim == 0 else out


# ---------------------------------------------------------------------------------------
# Robust margin bounds, §4.4.3
# ---------------------------------------------------------------------------------------
def margin_deficits(margins, gamma):
    """``d((x_i, y_i), w, gamma) = max{0, gamma - y_i <w, x_i>}``, LKC §4.4.3 step 2.

    How far each training point falls short of the functional margin ``gamma``.

    Parameters
    ----------
    margins : array_like
        Functional margins ``y_i <w, x_i>``.
    gamma : array_like, > 0 (broadcast against ``margins``)
    """
    t = as_float(margins, "margins")
    if not np.isfinite(t).all():
        raise ValueError("margins must be finite")
    gamma = check_positive(gamma, "gamma")
    return result(np.maximum(0.0, gamma - t))


def margin_distribution(margins, gamma):
    """``D(z, w, gamma) = sqrt(sum_i d((x_i, y_i), w, gamma)^2)``, LKC eq. (4.31).

    Parameters
    ----------
    margins : array_like of shape (..., m)
        Functional margins ``y_i <w, x_i>``; the last axis runs over the sample.
    gamma : array_like, > 0, broadcast against ``margins[..., 0]``

    Returns
    -------
    D : float or ndarray of shape (...)
    """
    t = as_float(margins, "margins")
    if t.ndim == 0:
        raise ValueError("margins must have at least one axis (the sample)")
    g = np.asarray(check_positive(gamma, "gamma"))[..., None]
    return result(np.sqrt(np.sum(np.asarray(margin_deficits(t, g)) ** 2, axis=-1)))


def margin_distribution_d_eff(gamma, D, Delta, varsigma=1.0, w_norm=1.0):
    """Effective dimensionality for a fixed ``Delta``, LKC Lemma 4.34, eq. (4.32).

    ``d_eff(Delta) = 64 (||w||^2 + D^2/Delta^2)(varsigma^2 + Delta^2) / gamma^2``: the
    margin complexity of the modified classifier in the augmented space
    ``tau_Delta(x) = (x, Delta I_x)`` (§4.4.3), whose margin is at least ``gamma`` on all
    training points.

    Parameters
    ----------
    gamma : array_like, > 0
    D : array_like, >= 0
        :func:`margin_distribution`.
    Delta : array_like, > 0
    varsigma, w_norm : array_like, > 0
    """
    gamma = check_positive(gamma, "gamma")
    D = check_nonnegative(D, "D")
    Dl = check_positive(Delta, "Delta")
    vs = check_positive(varsigma, "varsigma")
    wn = check_positive(w_norm, "w_norm")
    gamma, D, Dl, vs, wn = broadcast(gamma, D, Dl, vs, wn)
    return result(64.0 * (wn**2 + D**2 / Dl**2) * (vs**2 + Dl**2) / gamma**2)


def optimal_Delta(D, varsigma=1.0):
    """Minimiser ``Delta* = sqrt(varsigma D)`` of eq. (4.32) for ``||w|| = 1``, LKC App. C.6.

    At ``Delta*`` the factor ``(1 + D^2/Delta^2)(varsigma^2 + Delta^2)`` equals
    ``(varsigma + D)^2``. ``D = 0`` gives ``Delta* = 0`` (no augmentation needed).
    """
    D = check_nonnegative(D, "D")
    vs = check_positive(varsigma, "varsigma")
    D, vs = broadcast(D, vs)
    return result(np.sqrt(vs * D))


def Delta_grid(m, varsigma=1.0):
    """The data-independent sequence of ``Delta`` values of LKC App. C.6.

    ``Delta_1 = 2 varsigma sqrt(m)`` (the largest possible ``D``) and
    ``Delta_{i+1} = Delta_i / 2`` down to the first value ``Delta_s <= varsigma/32``
    (so ``varsigma/64 < Delta_s``); the book shows ``s < 8 + ld(m)/2``. Applying
    Lemma 4.34 at every grid value with weight ``1/s`` yields Theorem 4.35.

    Parameters
    ----------
    m : int, >= 1
    varsigma : float, > 0

    Returns
    -------
    Delta : ndarray of shape (s,)
    """
    m = int(check_m(m))
    vs = float(check_positive(varsigma, "varsigma"))
    grid = [2.0 * vs * np.sqrt(m)]
    while grid[-1] > vs / 32.0:
        grid.append(grid[-1] / 2.0)
    return np.asarray(grid)


def margin_distribution_bound(m, d_eff, delta):
    """Margin distribution bound for one fixed ``Delta``, LKC Lemma 4.34.

    ``R[h_w] <= (2/m)(d_eff ld(8em/d_eff) ld(32m) + ld(2m/delta))`` with ``d_eff`` from
    :func:`margin_distribution_d_eff`, valid when ``d_eff <= 2m``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`);
        ``inf`` where ``d_eff > 2m``.
    """
    m = check_m(m)
    d = check_nonnegative(d_eff, "d_eff", allow_inf=True)
    delta = check_delta(delta)
    m, d, delta = broadcast(m, d, delta)
    return result(_fat_form(m, d, _ld(2.0 * m / delta)))


def robust_d_eff(gamma, D, varsigma=1.0):
    """Effective dimensionality of the robust margin bound, LKC Theorem 4.35.

    ``d_eff = 65 (varsigma + 3 D(z, w, gamma))^2 / gamma^2`` for ``||w|| = 1`` and
    ``gamma`` in ``(0, varsigma]``. The book's example: ``m - 1`` points at margin
    ``varsigma`` and one at 0, with ``gamma = varsigma``, has ``D = varsigma`` and
    ``d_eff = 65 * 16 = 1040``.

    Parameters
    ----------
    gamma : array_like in (0, varsigma]
    D : array_like, >= 0
        :func:`margin_distribution` at the same ``gamma`` with unit-norm ``w``.
    varsigma : array_like, > 0
    """
    gamma = check_positive(gamma, "gamma")
    D = check_nonnegative(D, "D")
    vs = check_positive(varsigma, "varsigma")
    gamma, D, vs = broadcast(gamma, D, vs)
    if (gamma > vs * (1 + 1e-12)).any():
        raise ValueError("gamma must lie in (0, varsigma] (LKC Theorem 4.35)")
    return result(65.0 * (vs + 3.0 * D) ** 2 / gamma**2)


def robust_margin_bound(m, d_eff, delta):
    """Robust margin bound, LKC Theorem 4.35, eq. (4.33) (also Theorem 4.37).

    ``R[h_w] <= (2/m)(d_eff ld(8em/d_eff) ld(32m) + ld((16 + ld m) m / delta))``

    with ``d_eff`` from :func:`robust_d_eff`, :func:`soft_margin_d_eff` or
    :func:`amm_d_eff`, valid when ``d_eff <= 2m``. It holds for all ``gamma`` at once; the
    union over the ``s < 8 + ld(m)/2`` grid values of :func:`Delta_grid` costs the
    ``16 + ld m`` factor.

    Parameters
    ----------
    m : array_like of int, >= 1
    d_eff : array_like, >= 0
    delta : array_like in (0, 1)

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`);
        ``inf`` where ``d_eff > 2m``.
    """
    m = check_m(m)
    d = check_nonnegative(d_eff, "d_eff", allow_inf=True)
    delta = check_delta(delta)
    m, d, delta = broadcast(m, d, delta)
    return result(_fat_form(m, d, _ld((16.0 + _ld(m)) * m / delta)))


def soft_margin_d_eff(w_norm, xi, varsigma=1.0, norm=2):
    """Effective dimensionality of a soft-margin solution, LKC Remark 4.36, eq. (4.34)–(4.35).

    Theorem 4.35 at ``gamma = 1/||w||`` and ``w / ||w||`` gives
    ``d_eff = 65 (varsigma ||w|| + 3 ||xi||_2)^2`` (eq. 4.34) with the slacks
    ``xi_i = max{0, 1 - y_i <w, x_i>}``; ``norm=1`` gives the weaker eq. (4.35). The
    theorem needs ``gamma = 1/||w|| <= varsigma``.

    Parameters
    ----------
    w_norm : array_like, > 0
        ``||w||`` (canonical scaling, functional margin 1).
    xi : array_like of shape (..., m), >= 0
        Slacks; the last axis runs over the sample.
    varsigma : array_like, > 0
    norm : {1, 2}
    """
    wn = check_positive(w_norm, "w_norm")
    xi = check_nonnegative(xi, "xi")
    vs = check_positive(varsigma, "varsigma")
    if xi.ndim == 0:
        raise ValueError("xi must have at least one axis (the sample)")
    if norm not in (1, 2):
        raise ValueError(f"norm must be 1 or 2, got {norm!r}")
    size = np.sqrt(np.sum(xi**2, axis=-1)) if norm == 2 else np.sum(xi, axis=-1)
    wn, size, vs = broadcast(wn, size, vs)
    return result(65.0 * (vs * wn + 3.0 * size) ** 2)


def amm_d_eff(w_norm, xi, alpha, k_diag, lam, varsigma=1.0):
    """Effective dimensionality of the adaptive margin machine, LKC Theorem 4.37, eq. (4.38).

    For a feasible solution ``alpha >= 0``, ``xi >= 0`` of the linear program
    (2.57)–(2.58) with ``w = sum_i alpha_i y_i x_i``,

    ``d_eff = 65 (varsigma ||w|| + 3 sum_i max{0, xi_i - lam alpha_i k(x_i, x_i)})^2``;

    the risk bound is then :func:`robust_margin_bound`. It upper-bounds the eq. (4.37)
    value ``65 (varsigma ||w|| + 3 sqrt(sum_i max{0, 1 - y_i <w, x_i>}^2))^2`` because of
    the constraints (eq. 4.36) and ``||c||_2 <= ||c||_1``.

    Parameters
    ----------
    w_norm : array_like, > 0
    xi, alpha, k_diag : array_like of shape (..., m), >= 0
        Slacks, the book's non-negative coefficients and ``k(x_i, x_i)``.
    lam : array_like, >= 0
        The AMM parameter ``lambda`` of eq. (2.58).
    varsigma : array_like, > 0
    """
    wn = check_positive(w_norm, "w_norm")
    xi = check_nonnegative(xi, "xi")
    alpha = check_nonnegative(alpha, "alpha")
    kd = check_nonnegative(k_diag, "k_diag")
    lam = check_nonnegative(lam, "lam")
    vs = check_positive(varsigma, "varsigma")
    if xi.ndim == 0:
        raise ValueError("xi must have at least one axis (the sample)")
    xi, alpha, kd = broadcast(xi, alpha, kd)
    c = np.maximum(0.0, xi - np.asarray(lam)[..., None] * alpha * kd)
    wn, total, vs = broadcast(wn, c.sum(axis=-1), vs)
    return result(65.0 * (vs * wn + 3.0 * total) ** 2)


# ---------------------------------------------------------------------------------------
# TR 99-11, Theorem 1
# ---------------------------------------------------------------------------------------
def tr_margin_bound(m, gamma, delta, varsigma=1.0):
    """Margin bound quoted as Theorem 1 of TR 99-11 (Shawe-Taylor et al. 1998).

    For ``m`` (TR: ``ell``) points in a ball of radius ``varsigma`` (TR: ``R``) separated
    with margin ``gamma``, with confidence ``1 - delta`` (TR: ``1 - epsilon``)

    ``R[h] <= (2/m)(kappa ld(8em/kappa) ld(32m) + ld(8m/delta))``,
    ``kappa = ceil(577 varsigma^2 / gamma^2)``.

    Our text of TR shows ``8 epsilon ell / kappa`` inside the first logarithm; the
    constant is Euler's ``e``, as in the original and in LKC eq. (4.27) (a reading slip
    of the text conversion). TR states no range for ``kappa``; the fat-shattering argument behind it needs the
    dimension to be at most ``2m`` (as in LKC Theorem 4.30), and beyond that the first
    term turns negative. This function returns ``inf`` where ``kappa > 2m``.

    Returns
    -------
    bound : float or ndarray
        Raw value, may exceed 1 (trivial; see :func:`kernelclf.bounds.trivial`).
    """
    m = check_m(m)
    gamma = check_positive(gamma, "gamma")
    delta = check_delta(delta)
    vs = check_positive(varsigma, "varsigma")
    m, gamma, delta, vs = broadcast(m, gamma, delta, vs)
    kappa = np.ceil(577.0 * vs**2 / gamma**2 - 1e-9)
    return result(_fat_form(m, kappa, _ld(8.0 * m / delta)))
