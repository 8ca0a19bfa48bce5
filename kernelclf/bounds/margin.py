"""Book chapter 15 (``book/15_margin_bounds.md``): the PAC margin bound and the robust margin bounds.

LKC §4.4.2 (Theorem 4.32 eq. 4.29, Remark 4.33), §4.4.3 (Lemma 4.34 eq. 4.31–4.32,
Theorem 4.35 eq. 4.33, Remark 4.36 eq. 4.34–4.35, Theorem 4.37 eq. 4.36–4.38), App. C.6;
TR 99-11 Theorem 1 (Shawe-Taylor et al. 1998). The luckiness bounds (§4.3) are in
:mod:`kernelclf.bounds.luckiness`, covering numbers and the fat shattering dimension
(§4.4–4.4.1) in :mod:`kernelclf.bounds.covering`.

Notation as in the book: ``m`` training sample size, ``delta`` confidence, ``gamma`` the
(geometrical) margin γ_z(w) = min_i y_i<w, x_i>/||w||, ``varsigma`` (ς) the radius of
a ball in feature space holding every ``phi(x)``, ``vartheta_eff`` (ϑ_eff) an effective
VC dimension, ``d_eff`` the effective dimensionality of the robust bounds, ``Delta``
(Δ) the extra coordinate of the augmented space of §4.4.3. ``ld`` is the logarithm to
base 2 (LKC p. 331).

Return convention of :mod:`kernelclf.bounds`: every bound returns the raw right-hand
side of its theorem, never clipped; a value >= 1 is trivial
(:func:`kernelclf.bounds.trivial`). When the *premise* of a theorem fails (for example
a margin below ``sqrt(32/m) * varsigma`` in Theorem 4.32, or ``d_eff > 2m`` in Theorem
4.35) the theorem gives no guarantee and the function returns ``inf``: the formula
evaluated outside its range can come out small (a negative ``ld``) and would otherwise
look like a useful bound.

Ceilings. LKC prints the complexity term ``d ld(8em/d) ld(32m)`` of eqs. (4.27), (4.29),
(4.32), (4.33) and (4.38) inside a ceiling (the proof stratifies over integer levels, LKC
pp. 148-149); every bound here keeps it, which raises a value by less than ``2/m``. TR 99-11
Theorem 1 prints no ceiling and :func:`tr_margin_bound` has none.

Erratum E23 (Remark 4.33): the book prints ``m > 34 816`` as the smallest sample size at
which eq. (4.29) drops below one for ``varsigma^2 / gamma^2 = 1``. Evaluating eq. (4.29)
(with its ceiling) without the ``ld(2/delta)`` term, as Fig. 4.8's caption says, gives
34 821; dropping the whole ``ld(2m/delta)`` term gives 34 785. 34 816 = 34 * 1024 is the
first multiple of 1024 past 34 785, which suggests a coarse grid. See
:func:`nontrivial_sample_size`.
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    as_float,
    broadcast,
    check_delta,
    check_m,
    check_nonnegative,
    check_positive,
    result,
)
from .covering import _fat_form
from .luckiness import _ld

__all__ = [
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

    ``R[h_w] <= (2/m) (ceil((64 varsigma^2/gamma^2) ld(gamma^2 e m / (8 varsigma^2)) ld(32m))
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
    ``(2/m)(ceil(64 vartheta_eff ld(em/(8 vartheta_eff)) ld(32m)) + ld(2m/delta))``. It
    decreases in ``m`` for ``m >= 32 vartheta_eff`` (where the theorem starts to apply)
    apart from the ceiling, which adds less than ``2/m``; the least integer of the form
    without the ceiling is found by doubling and bisection, and the ceiling's least integer
    by scanning forward from it.

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
    Erratum E23: for ``vartheta_eff = 1`` this gives 34 821 (``keep_ld_m=True``) and
    34 785 (``keep_ld_m=False``); the book prints 34 816. (Without the ceiling of eq. 4.29
    the two would be 34 820 and 34 783.)
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

        def value(mm, ceil, c=c, dd=dd):
            if np.isnan(dd):
                tail = np.log2(mm) if keep_ld_m else 0.0
            else:
                tail = np.log2(2.0 * mm / dd)
            return float(_fat_form(mm, 64.0 * c, tail, ceil=ceil))

        # Without the ceiling the bound decreases in m: bisection finds its least m. The
        # ceiling adds less than 2/m and makes unit steps in m go up now and then, but it
        # never lowers the value, so the least m with the ceiling is at or after that one:
        # scan forward from there.
        lo = max(1, int(np.ceil(32.0 * c)))
        if value(lo, False) < target:
            hi = lo
        else:
            hi = 2 * lo
            while not value(hi, False) < target:
                hi *= 2
            while hi - lo > 1:                  # value(lo) >= target > value(hi), no ceiling
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if value(mid, False) < target else (mid, hi)
        while not value(hi, True) < target:
            hi += 1
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

    ``R[h_w] <= (2/m)(ceil(d_eff ld(8em/d_eff) ld(32m)) + ld(2m/delta))`` with ``d_eff`` from
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

    ``R[h_w] <= (2/m)(ceil(d_eff ld(8em/d_eff) ld(32m)) + ld((16 + ld m) m / delta))``

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
    of the text conversion). TR prints no ceiling around the first term (LKC's forms have
    one), and this function adds none. TR states no range for ``kappa``; the range
    ``kappa <= 2m`` is ours, taken from the fat-shattering argument behind the bound (LKC
    Theorem 4.30 needs its dimension to be at most ``2m``). This function returns ``inf``
    where ``kappa > 2m``.

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
    return result(_fat_form(m, kappa, _ld(8.0 * m / delta), ceil=False))
