"""Version-space primitives: separability, a consistent point, margins, Monte-Carlo sampling.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); LKC Def. 2.12 and
§2.4 (version space), Def. 2.30 (geometric margin), §3.4 (Bayes point, centre of
mass); BPM §2, Theorems 11-12; TR 99-11 §2.

For a kernel classifier without bias, ``f(x) = <w, phi(x)>``, the *version space*
of a sample ``z = ((x_1, y_1), ..., (x_m, y_m))`` is the set of unit weight vectors
that classify every example correctly, ``V(z) = {w : ||w|| = 1, y_i <w, phi(x_i)> > 0}``
(LKC Def. 2.12), the intersection of a convex polyhedral cone with the unit sphere.
This module collects what the chapters on version space, the Bayes point and the
PAC-Bayesian bounds need about it:

* :func:`~kernelclf.margin.separability.is_separable` - is ``V(z)`` non-empty? (margin
  bounds first, a capped linear program for small m: bounded in time);
* :func:`find_version_space_point` - a point of ``V(z)`` in dual coefficients (the
  kernel perceptron, falling back on the same linear program);
* :func:`~kernelclf.margin.separability.geometric_margin` - the margin of a weight vector on the sample;
* :func:`sample_version_space` and :func:`version_space_centre` - rejection
  sampling of uniform directions on the sphere and the centre of mass of ``V(z)``,
  the brute-force reference for the kernel billiard (chapter 11) in low dimension;
* :func:`corner_average` - Rychetsky, Shawe-Taylor and Glesner's direct estimate of
  the Bayes point as the mean of the ``m`` corners of ``V(z)`` (as summarised in BPM §3);
* :func:`posterior_disagreement` and :func:`bayes_point_from_samples` - the expected
  disagreement ``E_W[arccos(<W, v>)/pi]`` of BPM Lemma 13 and its minimiser, the Bayes point
  (BPM Def. 9, Thm 10), on posterior samples.

:class:`~kernelclf.margin.separability.NotSeparableError` (an empty version space) is defined
with the separability test in :mod:`kernelclf.margin.separability`.
"""
from __future__ import annotations

import math

import numpy as np

from ..margin.separability import (
    NotSeparableError,
    _check_labels,
    _gram_matrix,
    _separating_lp,
)

__all__ = [
    "find_version_space_point", "sample_version_space", "version_space_centre", "corner_average",
    "posterior_disagreement", "bayes_point_from_samples",
]


def find_version_space_point(G, y, max_epochs=100, random_state=None, use_lp=True):
    """Dual coefficients ``gamma`` of a point of version space: ``y_i (G gamma)_i > 0``.

    Runs the kernel perceptron with cached outputs (LKC Algorithm 3, App. D.1; one
    Gram column per mistake) on a fresh random permutation per epoch. On a
    separable sample it stops after finitely many mistakes (Novikoff, LKC Theorem
    2.31). If it has not stopped after ``max_epochs`` epochs, the linear program of
    :func:`~kernelclf.margin.separability.is_separable` decides: its solution is returned when it
    is feasible, a
    :class:`~kernelclf.margin.separability.NotSeparableError` is raised when it is not.

    Parameters
    ----------
    G : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
        Gram matrix (a ``Gram`` gives one column per mistake, with its ridge).
    y : (m,) array of -1/+1
    max_epochs : int
    random_state : int, RandomState or None
    use_lp : bool
        Without the LP, a sample not separated within ``max_epochs`` raises.

    Returns
    -------
    gamma : (m,) array
    outputs : (m,) array
        ``G gamma``.
    """
    from sklearn.utils import check_random_state

    from .perceptron_epochs import perceptron_epochs

    rng = check_random_state(random_state)
    if not hasattr(G, "column"):
        G = np.asarray(G, dtype=float)
    m = G.m if hasattr(G, "m") else G.shape[0]
    y = np.ascontiguousarray(_check_labels(y, m), dtype=float)
    gamma = np.zeros(m)
    out = np.zeros(m)
    # epochs on fresh permutations rng.permutation(m) (with their draws in one compiled
    # call, or NumPy that jumps from mistake to mistake: the same updates in the same
    # order as a loop over the examples)
    if perceptron_epochs(G, y, rng, gamma, out, max_epochs):
        return gamma, out
    if not use_lp:
        raise NotSeparableError(
            f"the kernel perceptron made mistakes in each of {max_epochs} epochs: the sample "
            "seems not to be separable in feature space; use soft boundaries lam > 0")
    K = _gram_matrix(G)
    sol = _separating_lp(K, y, fit_bias=False)
    if sol is None:
        raise NotSeparableError(
            "the training sample is not separable in feature space, so its version space "
            "is empty and there is no hard-boundary Bayes point; use soft boundaries "
            "lam > 0 (BPM §3.3), which make every sample separable")
    gamma = np.asarray(sol.x, dtype=float)
    out = K @ gamma
    if np.min(y * out) <= 0:
        raise NotSeparableError(
            "no classifier consistent with the sample was found (numerically); "
            "use soft boundaries lam > 0")
    return gamma, out


def sample_version_space(X, y, n_draws=300_000, random_state=None, block=100_000):
    """Uniform samples of version space by rejection (Monte Carlo on the sphere).

    Draws ``n_draws`` directions uniformly on the unit sphere of ``R^d``
    (normalised standard Gaussian vectors, whose law is rotation invariant) and
    keeps those in ``V(z) = {w : y_i <x_i, w> > 0 for all i}`` (LKC Def. 2.12). The
    kept ones are uniform on ``V(z)``; their fraction estimates the relative
    surface measure of ``V(z)`` on the sphere. The acceptance rate falls
    exponentially with the dimension and the sample size, so this is a reference
    for small problems (``d`` up to about 5), not a learning algorithm (the kernel
    billiard, :func:`kernelclf.bayespoint.billiard.kernel_billiard`, is).

    Parameters
    ----------
    X : (m, d) array
        Inputs in explicit coordinates (rows are feature vectors; no bias).
    y : (m,) array of -1/+1
    n_draws : int
        Number of directions drawn.
    random_state : int, numpy Generator or None
        Seed of ``numpy.random.default_rng``; the directions are drawn in blocks of
        ``block`` rows from one stream, so the result does not depend on ``block``.
    block : int
        Rows per block (memory).

    Returns
    -------
    W : (n_accepted, d) array
        Unit vectors in version space.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    y = _check_labels(y, X.shape[0])
    n_draws = int(n_draws)
    if n_draws < 1:
        raise ValueError(f"n_draws must be >= 1, got {n_draws}")
    rng = np.random.default_rng(random_state)
    Yx = y[:, None] * X
    kept = []
    done = 0
    while done < n_draws:
        n = min(int(block), n_draws - done)
        W = rng.normal(size=(n, X.shape[1]))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        kept.append(W[np.all(W @ Yx.T > 0, axis=1)])
        done += n
    return np.concatenate(kept, axis=0)


def version_space_centre(X, y, n_draws=300_000, random_state=None, precomputed=False,
                         min_accepted=1000, tol=1e-10):
    """Normalised centre of mass of version space, by rejection sampling.

    The centre of mass ``E[W] / ||E[W]||`` for ``W`` uniform on ``V(z)`` (BPM eq. 12;
    LKC §3.4.1) approximates the Bayes point (LKC Def. 3.15). It is estimated by the
    mean of :func:`sample_version_space`.

    With ``precomputed=True``, ``X`` is a Gram matrix ``G`` and the centre is
    returned as dual coefficients ``alpha`` with ``alpha' G alpha = 1``. The
    sampling then runs in the span of the mapped inputs, in the coordinates
    ``Phi = U Lambda^{1/2}`` of ``G = U Lambda U'`` (eigenvalues below ``tol``
    times the largest dropped). This gives the same direction as sampling in the
    whole feature space: the centre of mass lies in the span (BPM Theorems 11-12),
    and for a uniform ``W`` the direction of its projection onto the span is
    uniform on the span's sphere and independent of the projection's length.

    Parameters
    ----------
    X : (m, d) inputs, or (m, m) Gram matrix when ``precomputed``
    y : (m,) array of -1/+1
    n_draws, random_state : see :func:`sample_version_space`
    precomputed : bool
    min_accepted : int
        Raise ``ValueError`` when fewer samples fall into version space (too small
        a version space, or too high a dimension, for rejection sampling).
    tol : float
        Relative eigenvalue cut-off (``precomputed`` only).

    Returns
    -------
    centre : (d,) unit vector, or (m,) dual coefficients when ``precomputed``
    """
    if precomputed:
        G = _gram_matrix(X)
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"G must be a square Gram matrix, got shape {G.shape}")
        lam, U = np.linalg.eigh(0.5 * (G + G.T))
        keep = lam > tol * max(float(lam[-1]), 0.0)
        if not np.any(keep):
            raise ValueError("the Gram matrix is zero: version space is undefined")
        U, lam = U[:, keep], lam[keep]
        coords = U * np.sqrt(lam)
    else:
        coords = X
    W = sample_version_space(coords, y, n_draws, random_state)
    if len(W) < int(min_accepted):
        raise ValueError(
            f"only {len(W)} of {n_draws} random directions fell into version space (fewer "
            f"than min_accepted={min_accepted}): it is too small, or the dimension too high, "
            "for rejection sampling; raise n_draws or use the kernel billiard")
    c = W.mean(axis=0)
    c /= np.linalg.norm(c)
    if not precomputed:
        return c
    alpha = U @ (c / np.sqrt(lam))
    return alpha / math.sqrt(float(alpha @ G @ alpha))


def corner_average(G, y, rcond=1e-10):
    """Mean of the ``m`` corners of version space (Rychetsky et al. 2000, in BPM §3).

    When the Gram matrix ``G`` is invertible the version-space cone is simplicial: its
    ``i``-th edge ``w_i`` lies on every wall but its own, ``<x_j, w_i> = 0`` for
    ``j != i``, with ``y_i <x_i, w_i> > 0``. With ``w_i = sum_j alpha_ij x_j`` this reads
    ``G alpha_i = y_i e_i``, so ``alpha_i = y_i G^{-1} e_i`` (BPM §3, the remark on direct
    Bayes point machines), scaled to unit length. The average of the unit corners,
    normalised, estimates the centre of mass at the cost of one ``O(m^3)`` inversion.

    Parameters
    ----------
    G : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
    y : (m,) labels in {-1, +1}
    rcond : float
        ``G`` must have ``lambda_min / lambda_max > rcond`` (else a ``ValueError``: the
        cone then has fewer than ``m`` edges and the corners are not defined this way).

    Returns
    -------
    alpha : (m,) array
        Dual coefficients of the normalised mean, ``alpha' G alpha = 1``.
    corners : (m, m) array
        Row ``i``: the unit corner ``alpha_i``.
    """
    K = _gram_matrix(G)
    m = K.shape[0]
    y = _check_labels(y, m)
    ev = np.linalg.eigvalsh(K)
    if not ev[0] > rcond * max(ev[-1], 0.0):
        raise ValueError(f"the Gram matrix is singular (smallest/largest eigenvalue "
                         f"{ev[0]:.3g}/{ev[-1]:.3g}): version space has fewer than m = {m} "
                         "corners, so the corner average is not defined")
    A = np.linalg.solve(K, np.diag(y)).T          # row i: y_i G^{-1} e_i
    A /= np.sqrt(np.einsum("ij,jk,ik->i", A, K, A))[:, None]
    a = A.mean(axis=0)
    return a / np.sqrt(a @ K @ a), A


def posterior_disagreement(W, v):
    """Mean disagreement ``E_W[arccos(<W, v>)/pi]`` of a unit vector ``v`` with samples ``W``.

    With inputs spherically distributed in feature space, two unit weight vectors disagree on
    the fraction ``arccos(<w, v>)/pi`` of inputs (BPM Lemma 13); averaged over posterior
    samples ``W`` (rows, e.g. from :func:`sample_version_space`) this is the expected
    disagreement of ``v`` with the Gibbs classifier, which the Bayes point minimises (BPM
    Def. 9, proof of Thm 10 in App. A.1). Rows of ``W`` and ``v`` are normalised first.
    """
    W = np.asarray(W, dtype=float)
    v = np.asarray(v, dtype=float)
    W = W / np.linalg.norm(W, axis=1, keepdims=True)
    v = v / np.linalg.norm(v)
    return float(np.mean(np.arccos(np.clip(W @ v, -1.0, 1.0))) / np.pi)


def bayes_point_from_samples(W, start=None):
    """The unit vector minimising :func:`posterior_disagreement` over samples ``W``.

    The Bayes point of BPM Def. 9 under the spherical input law of BPM Lemma 13, estimated
    on posterior samples by a local search on the sphere started at ``start`` (default: the
    normalised mean of ``W``, the centre of mass of BPM eq. 12). Only sensible in low
    dimension with many samples. Returns ``(v, value)``.
    """
    from scipy.optimize import minimize

    W = np.asarray(W, dtype=float)
    W = W / np.linalg.norm(W, axis=1, keepdims=True)
    v0 = W.mean(axis=0) if start is None else np.asarray(start, dtype=float)
    v0 = v0 / np.linalg.norm(v0)

    def objective(u):
        return posterior_disagreement(W, u)

    res = minimize(objective, v0, method="Nelder-Mead",
                   options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 4000})
    v = res.x / np.linalg.norm(res.x)
    return v, objective(v)
