"""Brute-force labelings, shattering and growth functions of tiny hypothesis classes.

Book chapter 14 (``book/14_vc_theory_and_srm.md``); LKC Definition 4.9 (covering number
``N_H(m)``), Theorem 4.10 (Sauer's lemma, VC dimension eq. 4.18) and Example 4.13;
Cover (1965) for the counting function of linear classifiers.

For a finite sample ``x`` the set of labelings (dichotomies) a class realises is finite,
so it can be listed exactly. For each class below the labeling only changes when a
parameter crosses a finite set of *critical values*; evaluating the class once between
every two consecutive critical values (and beyond the extremes) visits every labeling.
That is the brute force: no sampling, and no tolerance except one for the sine class
(critical frequencies that coincide up to rounding are merged, see :func:`labelings_sine`).
An independent check,
:func:`labelings_lp`, asks a linear program for each of the ``2^m`` labelings.

Classes (labels in ``{-1, +1}``; the boundary case ``sign(0)`` never arises because
parameters are taken strictly between critical values):

* thresholds ``x -> sign(x - t)`` (``two_sided=True`` adds ``sign(t - x)``);
* intervals ``x -> +1 iff a <= x <= b`` (``-1`` everywhere is included);
* half-planes in R^2, ``x -> sign(<w, x> + b)`` (``bias=True``) or ``sign(<w, x>)``;
* ``x -> sign(sin(w x))`` for ``w`` in ``[-w_max, w_max]`` (LKC Example 4.13.3).

The sine class has infinite VC dimension, yet for a *given* finite sample and a bounded
frequency range its labelings can still be listed: ``sin(w x_i)`` changes sign only at
``w = k pi / x_i``, so between those finitely many critical frequencies the labeling is
constant. What cannot be done is to bound the count over all samples by a polynomial:
the ``m >= 2`` points ``x_i = 2^-i`` are shattered as soon as ``w_max > pi (2^m - 2)``,
so every ``m`` is shattered by some sample and the growth function is ``m ln 2``.
"""
from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

from ._validation import check_finite, check_int, check_positive

__all__ = [
    "labelings_thresholds",
    "labelings_intervals",
    "labelings_halfplanes",
    "labelings_sine",
    "labelings_lp",
    "separating_halfplane",
    "count_labelings",
    "is_shattered",
    "growth_function",
    "vc_dimension",
    "erm_threshold",
    "CLASSES",
]


def _points_1d(x):
    x = check_finite(x, "x")
    if x.ndim != 1 or len(x) == 0:
        raise ValueError("x must be a non-empty 1-d array of points")
    return x


def _points_2d(X):
    X = check_finite(X, "X")
    if X.ndim != 2 or X.shape[1] != 2 or len(X) == 0:
        raise ValueError("X must be an (m, 2) array of points in the plane")
    return X


def _unique_rows(L):
    L = np.asarray(L, dtype=np.int8)
    if L.size == 0:
        return L.reshape(0, L.shape[-1] if L.ndim == 2 else 0)
    return np.unique(L, axis=0)


def _between(values):
    """Points strictly between consecutive distinct sorted values, plus one beyond each end."""
    v = np.unique(values)
    if len(v) == 0:
        return np.array([0.0])
    gap = max(1.0, float(v[-1] - v[0]))
    return np.r_[v[0] - gap, (v[:-1] + v[1:]) / 2.0, v[-1] + gap]


def labelings_thresholds(x, two_sided=False):
    """All labelings of ``x`` by thresholds ``sign(x - t)`` (and ``sign(t - x)``).

    Returns
    -------
    labelings : (k, m) int8 array of distinct rows in {-1, +1}
        ``k = (#distinct x) + 1`` one-sided, ``2 (#distinct x)`` two-sided.
    """
    x = _points_1d(x)
    t = _between(x)
    L = np.where(x[None, :] > t[:, None], 1, -1)
    if two_sided:
        L = np.vstack([L, -L])
    return _unique_rows(L)


def labelings_intervals(x):
    """All labelings of ``x`` by indicator functions of closed intervals ``[a, b]``.

    Returns
    -------
    labelings : (k, m) int8 array; ``k = n(n+1)/2 + 1`` for ``n`` distinct points.
    """
    x = _points_1d(x)
    c = _between(x)
    rows = [np.full(len(x), -1)]
    for i in range(len(c)):
        for j in range(i + 1, len(c)):
            rows.append(np.where((x > c[i]) & (x < c[j]), 1, -1))
    return _unique_rows(rows)


def _critical_angles_bias(X):
    # the order of the projections <u(theta), x_i> changes when u is orthogonal to x_i - x_j
    d = X[:, None, :] - X[None, :, :]
    iu = np.triu_indices(len(X), 1)
    d = d[iu]
    d = d[np.linalg.norm(d, axis=1) > 0]
    ang = np.arctan2(d[:, 1], d[:, 0]) + np.pi / 2
    return np.mod(np.r_[ang, ang + np.pi], 2 * np.pi)


def labelings_halfplanes(X, bias=True):
    """All labelings of points in R^2 by half-planes, by enumeration of critical directions.

    ``bias=True``: ``sign(<w, x> + b)``; between two critical directions (normals of the
    segments ``x_i - x_j``) the order of the projections is fixed, so sorting them and
    cutting between neighbours gives every labeling. ``bias=False``: ``sign(<w, x>)``;
    the labeling changes only when ``w`` is orthogonal to some ``x_i`` (points at the
    origin are rejected: ``sign(0) = 0`` is no label).

    Returns
    -------
    labelings : (k, m) int8 array. For points in general position ``k = m^2 - m + 2``
    with bias and ``k = 2m`` without (Cover's counting function, see the tests).
    """
    X = _points_2d(X)
    m = len(X)
    if bias:
        crit = _critical_angles_bias(X)
    else:
        if (np.linalg.norm(X, axis=1) == 0).any():
            raise ValueError("without bias a point at the origin gets sign(0) = 0; remove it")
        ang = np.arctan2(X[:, 1], X[:, 0]) + np.pi / 2
        crit = np.mod(np.r_[ang, ang + np.pi], 2 * np.pi)
    crit = np.unique(crit)
    if len(crit) == 0:
        thetas = np.array([0.0])
    else:
        nxt = np.r_[crit[1:], crit[0] + 2 * np.pi]
        thetas = (crit + nxt) / 2.0
    U = np.c_[np.cos(thetas), np.sin(thetas)]
    P = U @ X.T                                       # (n_dir, m) projections
    if not bias:
        return _unique_rows(np.where(P > 0, 1, -1))
    rows = []
    for p in P:
        cuts = _between(p)
        rows.append(np.where(p[None, :] > cuts[:, None], 1, -1))
    L = np.vstack(rows)
    return _unique_rows(np.vstack([L, -L])) if m else L


#: relative distance below which two critical frequencies of the sine class are one
_MERGE_RTOL = 1e-9


def labelings_sine(x, w_max):
    """All labelings of ``x`` by ``sign(sin(w x))`` with ``|w| <= w_max`` (LKC Ex. 4.13.3).

    The sign of ``sin(w x_i)`` flips exactly at ``w = k pi / |x_i|``; the function
    evaluates one frequency strictly inside every interval between consecutive critical
    frequencies in ``(0, w_max]`` and mirrors to ``w < 0`` (``sin(-w x) = -sin(w x)``).
    Points equal to 0 would get ``sign(0) = 0`` and are rejected; ``w = 0`` is excluded
    for the same reason. Critical frequencies within a relative ``1e-9`` of each other are
    treated as one: for commensurate points (``x_i / x_j`` rational, e.g. evenly spaced
    points) many of them coincide exactly, and rounding would otherwise leave slivers
    whose labeling has some ``sin(w x_i)`` equal to zero up to rounding (a spurious
    labeling). Two genuinely distinct critical frequencies that close would be merged too
    (their sliver's labeling lost); the tests compare with exact rational counts and with a
    dense frequency grid.

    Parameters
    ----------
    x : (m,) array of non-zero reals
    w_max : float > 0
        Frequency range. The number of critical values is about
        ``w_max sum_i |x_i| / pi``; it is capped at 2,000,000.

    Returns
    -------
    labelings : (k, m) int8 array
    """
    x = _points_1d(x)
    if (x == 0).any():
        raise ValueError("x = 0 gets sign(sin(0)) = 0 for every w; remove it")
    w_max = float(check_positive(w_max, "w_max"))
    ax = np.abs(x)
    counts = np.floor(w_max * ax / np.pi).astype(np.int64)
    if counts.sum() > 2_000_000:
        raise ValueError("w_max too large for an exact enumeration (over 2e6 critical values)")
    crit = np.concatenate([np.arange(1, k + 1) * np.pi / a for k, a in zip(counts, ax)] + [[0.0, w_max]])
    crit = np.unique(crit[(crit >= 0) & (crit <= w_max)])
    # Critical frequencies k pi / x_i and l pi / x_j that are equal mathematically (x_i, x_j
    # commensurate, e.g. evenly spaced points) differ by rounding only; a midpoint between
    # two such values has sin(w x_i) = 0 up to rounding and a random sign, which adds
    # labelings that no frequency realises. Values closer than a relative 1e-9 are merged.
    keep = np.r_[True, np.diff(crit) > _MERGE_RTOL * crit[1:]]
    crit = crit[keep]
    w = (crit[:-1] + crit[1:]) / 2.0
    labels = []
    for start in range(0, len(w), 100_000):                 # chunks keep memory small
        S = np.sin(np.outer(w[start:start + 100_000], x))
        labels.append(_unique_rows(np.where(S > 0, 1, -1)))
    L = _unique_rows(np.vstack(labels))
    return _unique_rows(np.vstack([L, -L]))


def separating_halfplane(X, y, bias=True):
    """A half-plane (or hyperplane) realising the labeling ``y``, or ``None``.

    Solves the feasibility LP ``y_i (<w, x_i> + b) >= 1`` with HiGHS (``b = 0`` when
    ``bias=False``). Strict separability of a finite set is equivalent to this LP being
    feasible (scale ``w, b`` up).

    Returns
    -------
    (w, b) or None
    """
    X = check_finite(X, "X")
    if X.ndim != 2:
        raise ValueError("X must be a 2-d array")
    y = np.asarray(y, dtype=float)
    if y.shape != (len(X),) or not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must be a vector of -1/+1 labels, one per row of X")
    n = X.shape[1]
    A = -(y[:, None] * (np.c_[X, np.ones(len(X))] if bias else X))
    nv = n + 1 if bias else n
    res = linprog(np.zeros(nv), A_ub=A, b_ub=-np.ones(len(X)), bounds=[(None, None)] * nv,
                  method="highs")
    if res.status != 0:
        return None
    w = res.x[:n]
    return w, (float(res.x[n]) if bias else 0.0)


def labelings_lp(X, bias=True):
    """Reference enumeration: test all ``2^m`` labelings with :func:`separating_halfplane`.

    Works in any dimension (linear classifiers ``sign(<w, x> + b)``); use it to check
    :func:`labelings_halfplanes` and Cover's counting function. Limited to ``m <= 14``.
    """
    X = check_finite(X, "X")
    if X.ndim == 1:
        X = X[:, None]
    m = len(X)
    if m > 14:
        raise ValueError("2^m LPs: keep m <= 14")
    rows = [y for y in itertools.product((-1, 1), repeat=m)
            if separating_halfplane(X, np.array(y), bias=bias) is not None]
    return _unique_rows(np.array(rows).reshape(-1, m))


def count_labelings(labelings):
    """Number of distinct labelings (rows)."""
    L = np.asarray(labelings)
    if L.ndim != 2:
        raise ValueError("labelings must be a (k, m) array")
    return int(len(np.unique(L, axis=0))) if L.size else 0


def is_shattered(labelings):
    """True iff all ``2^m`` labelings of the ``m`` points are realised (LKC after eq. 4.18)."""
    L = np.asarray(labelings)
    return count_labelings(L) == 2 ** L.shape[1]


#: name -> (labeling function on a sample, sampler of a random sample of size m)
CLASSES = {
    "thresholds": (lambda x: labelings_thresholds(x), lambda rng, m: rng.uniform(0, 1, m)),
    "thresholds_two_sided": (lambda x: labelings_thresholds(x, two_sided=True),
                             lambda rng, m: rng.uniform(0, 1, m)),
    "intervals": (labelings_intervals, lambda rng, m: rng.uniform(0, 1, m)),
    "halfplanes": (lambda X: labelings_halfplanes(X, bias=True),
                   lambda rng, m: rng.normal(size=(m, 2))),
    "halfplanes_no_bias": (lambda X: labelings_halfplanes(X, bias=False),
                           lambda rng, m: rng.normal(size=(m, 2))),
}


def growth_function(name, m, n_samples=20, random_state=0, log=False):
    """Covering number ``N_H(m)`` (LKC Def. 4.9) of a tiny class, by brute force.

    The maximum over samples of the number of labelings is taken over ``n_samples``
    random samples of size ``m`` (continuous distributions, so points are distinct and
    in general position with probability one). For these classes every sample in
    general position attains the maximum, so the value is exact: ``m + 1``
    (thresholds), ``2m`` (two-sided thresholds), ``m(m+1)/2 + 1`` (intervals),
    ``m^2 - m + 2`` (half-planes with bias), ``2m`` (without bias); the tests check this
    against Sauer's lemma and an LP enumeration. For ``"sine"`` use
    :func:`labelings_sine` on a chosen sample.

    Parameters
    ----------
    name : str
        A key of :data:`CLASSES`.
    m : int >= 1
    n_samples : int >= 1
        Random samples of size ``m`` over which the maximum is taken.
    random_state : int or numpy.random.Generator
        Seed of the samples.
    log : bool
        Return ``G_H(m) = ln N_H(m)`` (the growth function) instead.
    """
    if name not in CLASSES:
        raise ValueError(f"unknown class {name!r}; choose from {sorted(CLASSES)}")
    m = int(check_int(m, "m", minimum=1))
    n_samples = int(check_int(n_samples, "n_samples", minimum=1))
    fn, sampler = CLASSES[name]
    rng = np.random.default_rng(random_state)
    best = max(count_labelings(fn(sampler(rng, m))) for _ in range(n_samples))
    return float(np.log(best)) if log else best


def vc_dimension(name, m_max=8, **kwargs):
    """Largest ``m <= m_max`` with ``N_H(m) = 2^m`` (LKC eq. 4.18), by :func:`growth_function`.

    Returns ``m_max`` if every size up to ``m_max`` is shattered (then the VC dimension
    is at least ``m_max``).
    """
    m_max = int(check_int(m_max, "m_max", minimum=1))
    d = 0
    for m in range(1, m_max + 1):
        if growth_function(name, m, **kwargs) == 2 ** m:
            d = m
        else:
            break
    return d


def erm_threshold(x, y):
    """Empirical risk minimiser over thresholds ``x -> sign(x - t)`` (LKC eq. 2.12).

    Scans the ``m + 1`` distinct labelings of :func:`labelings_thresholds` in sorted
    order with cumulative error counts (O(m log m)). Ties go to the smallest ``t``.

    Parameters
    ----------
    x : (m,) array of reals
    y : (m,) array of labels in {-1, +1}

    Returns
    -------
    t : float
        A threshold midway between the two sorted points where the best cut lies
        (``x_min - 1`` or ``x_max + 1`` at the ends).
    remp : float
        Its training error.
    """
    x = _points_1d(x)
    y = np.asarray(y)
    if y.shape != x.shape or not np.isin(y, (-1, 1)).all():
        raise ValueError("y must hold one -1/+1 label per point of x")
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    # cut after k sorted points: the first k are predicted -1, the rest +1
    errors = np.r_[0, np.cumsum(ys == 1)] + np.r_[np.cumsum((ys == -1)[::-1])[::-1], 0]
    # a cut between equal x values is not realisable
    valid = np.r_[True, xs[1:] > xs[:-1], True]
    errors = np.where(valid, errors, len(xs) + 1)
    k = int(np.argmin(errors))
    ends = np.r_[xs[0] - 1.0, xs, xs[-1] + 1.0]
    t = (ends[k] + ends[k + 1]) / 2.0
    return float(t), float(errors[k] / len(xs))
