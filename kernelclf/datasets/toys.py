"""Seeded toy problems for figures, tests and benchmarks.

Book chapter 01 (``book/01_introduction.md``); the toy problems of all chapters.

All generators return ``(X, y)`` with ``X`` of shape ``(m, dim)`` (float64) and
labels ``y`` in ``{-1, +1}`` (int64), draw everything from
``numpy.random.default_rng(random_state)`` (or a passed ``Generator``) and give
identical output for identical arguments; :func:`peer_moons`, which reproduces a fixed
reference problem, takes ``seed`` instead and returns float labels.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["make_moons", "peer_moons", "make_linear_separable", "make_gaussians",
           "make_teacher"]


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_real(value, name, low, high, low_open=False, high_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    too_low = value <= low if low_open else value < low
    too_high = value >= high if high_open else value > high
    if too_low or too_high:
        lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
        raise ValueError(f"{name} must lie in {lo}{low}, {high}{hi}, got {value!r}")
    return float(value)


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, bool) or not isinstance(
            random_state, numbers.Integral):
        raise ValueError("random_state must be an int seed or a numpy Generator "
                         f"(results must be reproducible), got {random_state!r}")
    return np.random.default_rng(int(random_state))


def make_moons(m, noise=0.15, flip=0.05, random_state=0):
    """Two interleaved half-moons with Gaussian noise and flipped labels.

    The two-moons problem of the book's figures, tests and benchmarks: the upper moon
    ``(cos t, sin t)`` has label -1 and the lower moon ``(1 - cos t, 1/2 - sin t)`` label +1, with
    ``t ~ U[0, pi]`` drawn independently per point (``m // 2`` upper, the rest
    lower).  Each coordinate gets ``N(0, noise**2)`` noise; then exactly
    ``round(flip * m)`` labels, chosen uniformly without replacement, are
    flipped.  The points do not depend on ``flip``: the same seed with
    ``flip=0`` gives the same ``X`` and the clean labels.

    Parameters
    ----------
    m : int >= 2
    noise : float >= 0
        Standard deviation of the coordinate noise.
    flip : float in [0, 1]
        Fraction of labels flipped.
    random_state : int or numpy.random.Generator

    Returns
    -------
    X : ndarray (m, 2), y : ndarray (m,) in {-1, +1}
    """
    m = _check_int(m, "m", 2)
    noise = _check_real(noise, "noise", 0.0, np.inf, high_open=True)
    flip = _check_real(flip, "flip", 0.0, 1.0)
    rng = _rng(random_state)
    m_up = m // 2
    t = rng.uniform(0.0, np.pi, size=m)
    up = np.column_stack([np.cos(t[:m_up]), np.sin(t[:m_up])])
    low = np.column_stack([1.0 - np.cos(t[m_up:]), 0.5 - np.sin(t[m_up:])])
    X = np.vstack([up, low]) + noise * rng.standard_normal(size=(m, 2))
    y = np.concatenate([-np.ones(m_up, dtype=np.int64), np.ones(m - m_up, dtype=np.int64)])
    order = rng.permutation(m)
    X, y = X[order], y[order]
    n_flip = int(round(flip * m))
    flipped = rng.choice(m, size=n_flip, replace=False)
    y[flipped] = -y[flipped]
    return X, y


def peer_moons(m, noise=0.15, flip=0.05, seed=0):
    """The two-moons problem in the exact form used to compare the package with other
    implementations (scikit-learn's ``SVC`` and ``NuSVC`` at a tight tolerance).

    ``m // 2`` points on the
    upper moon (label -1) followed by the rest on the lower moon (label +1), angles
    drawn as two uniform blocks, ``N(0, noise^2)`` coordinate noise, then each label
    flipped independently with probability ``flip`` — all from one
    ``numpy.random.default_rng(seed)`` stream in that order. Unlike
    :func:`make_moons` the points are sorted by class and the number of flips is
    random; use it to reproduce those reference values (e.g. the C-SVM dual optimum
    94.6008336529 at m = 500, RBF sigma = 0.5, C = 1, which ``tests/test_svm.py``
    checks), :func:`make_moons` otherwise.

    Returns
    -------
    X : ndarray (m, 2), y : ndarray (m,) of -1.0/+1.0
    """
    m = _check_int(m, "m", 2)
    noise = _check_real(noise, "noise", 0.0, np.inf, high_open=True)
    flip = _check_real(flip, "flip", 0.0, 1.0)
    rng = np.random.default_rng(seed)
    n1, n2 = m // 2, m - m // 2
    t1, t2 = rng.uniform(0, np.pi, n1), rng.uniform(0, np.pi, n2)
    X = np.r_[np.c_[np.cos(t1), np.sin(t1)], np.c_[1 - np.cos(t2), 0.5 - np.sin(t2)]]
    X = X + rng.normal(0, noise, (m, 2))
    y = np.r_[-np.ones(n1), np.ones(n2)]
    y[rng.random(m) < flip] *= -1
    return X, y


def make_linear_separable(m, dim=2, margin=0.1, random_state=0, return_w=False):
    """Points in the unit ball, separable through the origin with a margin.

    A unit normal ``w`` is drawn uniformly on the sphere.  Each point is
    ``x = s w + r u`` with ``|s| ~ U[margin, 1]`` (random sign), ``u`` a random
    unit vector orthogonal to ``w`` and ``r = sqrt(1 - s**2) * v**(1/(dim-1))``,
    ``v ~ U[0, 1]``; its label is ``sign(s)``.  Hence ``||x|| <= 1`` (R <= 1)
    and ``y_i <w, x_i> >= margin`` for every point: a geometric margin of at
    least ``margin`` through the origin (no bias), as needed by the perceptron
    and Novikoff's bound (LKC Theorem 2.31) and the kernel billiard.

    Parameters
    ----------
    m : int >= 1
    dim : int >= 1
    margin : float in (0, 1)
    random_state : int or numpy.random.Generator
    return_w : bool
        Also return the unit normal ``w``.

    Returns
    -------
    X : ndarray (m, dim), y : ndarray (m,) in {-1, +1}[, w : ndarray (dim,)]
    """
    m = _check_int(m, "m", 1)
    dim = _check_int(dim, "dim", 1)
    margin = _check_real(margin, "margin", 0.0, 1.0, low_open=True, high_open=True)
    rng = _rng(random_state)
    w = rng.normal(size=dim)
    w /= np.linalg.norm(w)
    sign = np.where(rng.random(m) < 0.5, -1, 1)
    s = sign * rng.uniform(margin, 1.0, size=m)
    X = s[:, None] * w[None, :]
    if dim > 1:
        u = rng.normal(size=(m, dim))
        u -= (u @ w)[:, None] * w[None, :]
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        r = np.sqrt(1.0 - s**2) * rng.random(m) ** (1.0 / (dim - 1))
        X = X + r[:, None] * u
    y = sign.astype(np.int64)
    return (X, y, w) if return_w else (X, y)


def make_gaussians(m, dim=2, separation=2.0, random_state=0):
    """Two isotropic unit-variance Gaussians with means ``+-separation/2 * e_1``.

    ``ceil(m/2)`` points get label +1 (mean ``+separation/2`` on the first
    axis), the rest -1; rows are returned in random order.  The Bayes-optimal
    rule is ``sign(x_1)`` with error ``Phi(-separation/2)``.

    Parameters
    ----------
    m : int >= 2
    dim : int >= 1
    separation : float >= 0
        Distance between the two means.
    random_state : int or numpy.random.Generator

    Returns
    -------
    X : ndarray (m, dim), y : ndarray (m,) in {-1, +1}
    """
    m = _check_int(m, "m", 2)
    dim = _check_int(dim, "dim", 1)
    separation = _check_real(separation, "separation", 0.0, np.inf, high_open=True)
    rng = _rng(random_state)
    n_pos = (m + 1) // 2
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(m - n_pos, dtype=np.int64)])
    X = rng.normal(size=(m, dim))
    X[:, 0] += y * separation / 2.0
    order = rng.permutation(m)
    return X[order], y[order]


def make_teacher(m=10, dim=3, squeeze=1.0, flip=0.0, n_test=0, random_state=0,
                 return_teacher=False):
    """The teacher toy of BPM §4.1 (Fig. 6): uniform inputs labelled by a random hyperplane.

    A teacher ``t ~ N(0, I_dim)`` is drawn, then ``m`` inputs uniform in
    ``[-1, 1]^dim``; the last input coordinate is multiplied by ``squeeze`` (a
    value below 1 stretches the version space of a linear kernel along that
    axis, chapter 10); labels are ``sign(<t, x>)`` (a hyperplane through the
    origin, so the sample is separable without bias); then exactly
    ``int(flip * m)`` labels, chosen without replacement, are flipped (label
    noise, chapter 12). With ``n_test > 0`` a test sample of ``n_test`` uniform
    inputs (not squeezed) with the teacher's noise-free labels follows. Random
    numbers are drawn in this order from one ``default_rng(random_state)``
    stream, so the training sample does not depend on ``n_test``.

    Parameters
    ----------
    m : int >= 1
    dim : int >= 1
    squeeze : float > 0
        Factor on the last input coordinate of the training inputs.
    flip : float in [0, 1]
        Fraction of flipped training labels.
    n_test : int >= 0
    random_state : int or numpy.random.Generator
    return_teacher : bool
        Also return the teacher ``t``.

    Returns
    -------
    X : ndarray (m, dim), y : ndarray (m,) in {-1, +1}
        followed by ``X_test, y_test`` when ``n_test > 0`` and by ``t`` when
        ``return_teacher``.
    """
    m = _check_int(m, "m", 1)
    dim = _check_int(dim, "dim", 1)
    squeeze = _check_real(squeeze, "squeeze", 0.0, np.inf, low_open=True, high_open=True)
    flip = _check_real(flip, "flip", 0.0, 1.0)
    n_test = _check_int(n_test, "n_test", 0)
    rng = _rng(random_state)
    teacher = rng.normal(size=dim)
    X = rng.uniform(-1.0, 1.0, (m, dim))
    X[:, -1] *= squeeze
    y = np.where(X @ teacher > 0, 1, -1).astype(np.int64)
    n_flip = int(flip * m)
    if n_flip:
        y[rng.choice(m, n_flip, replace=False)] *= -1
    out = (X, y)
    if n_test:
        Xt = rng.uniform(-1.0, 1.0, (n_test, dim))
        out += (Xt, np.where(Xt @ teacher > 0, 1, -1).astype(np.int64))
    if return_teacher:
        out += (teacher,)
    return out
