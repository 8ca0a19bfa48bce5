"""Book chapter 02 (``book/02_kernels.md``): the vector kernels of LKC Table 2.1 and kernel names.

LKC §2.3, Table 2.1: the linear, polynomial, Gaussian RBF and Mahalanobis kernels on
vectors in R^N, each a :class:`~kernelclf.kernels.closure.Kernel` object (parameters in
``__init__``, ``kernel(X, Y)`` the Gram matrix, ``kernel.diag(X)``, cheap Gram columns for
the SMO solvers), with scikit-learn's data-driven RBF width ``'scale'``
(:func:`scale_sigma`) and polynomial scale ``gamma='scale'`` (:func:`scale_gamma`).
:func:`as_kernel` turns what the estimators accept as ``kernel`` (``None``, ``'linear'``,
``'rbf'``, ``'poly'``, a callable, a kernel object) into a kernel.

The closure rules that combine kernels are in :mod:`kernelclf.kernels.closure`, the
operations on a Gram matrix (PSD test, centring, normalisation) in
:mod:`kernelclf.kernels.gram_ops`, and the whitened kernel of the Sigma-SVM in
:mod:`kernelclf.kernels.whitened`.
"""
from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .closure import KERNEL_NAMES, Kernel, _as_vectors, _check_positive, kernel_operand
from .rows import inner_products, squared_norms

__all__ = ["Linear", "Polynomial", "RBF", "Mahalanobis", "as_kernel", "scale_sigma",
           "scale_gamma"]


def _column_products(Xv):
    """``i -> X x_i`` (the inner products of every row with row ``i``), dense or sparse."""
    if sp.issparse(Xv):
        return lambda i: inner_products(Xv, Xv[i:i + 1])[:, 0]
    return lambda i: Xv @ Xv[i]


class Linear(Kernel):
    """Linear kernel ``<x, x'>`` (LKC Table 2.1 with p = 1). Takes dense or scipy.sparse
    rows."""

    psd_by_construction = True  # a Gram matrix X X' (LKC Def. 2.15)
    accepts_sparse = True

    def _gram(self, X, Y):
        return inner_products(X, Y)

    def column_function(self, X):
        Xv, _ = self._validate(X, None)
        return _column_products(Xv)

    def diag(self, X):
        X, _ = self._validate(X, None)
        return squared_norms(X)


def _int_power(a, p):
    """``a ** p`` for an integer ``p >= 1`` by repeated squaring; overwrites ``a``.

    A few multiplications instead of ``pow`` per entry: the polynomial kernel's
    columns (the inner loop of every SMO fit with it) take less than half the time.
    Agrees with ``a ** p`` to a few units in the last place.
    """
    if p == 1:
        return a
    result = None
    while True:
        if p & 1:
            result = a.copy() if result is None else np.multiply(result, a, out=result)
        p >>= 1
        if not p:
            return result
        np.multiply(a, a, out=a)


class Polynomial(Kernel):
    """Polynomial kernel ``(gamma <x, x'> + offset) ** degree`` (LKC Table 2.1).

    ``offset = 0`` gives the p-th degree polynomial kernel whose feature space
    has dimension C(N+p-1, p); ``offset > 0`` the complete polynomial kernel of
    dimension C(N+p, p) (LKC Example 2.22). The scale ``gamma`` multiplies the inner
    product, as in scikit-learn's ``SVC(kernel='poly')``: ``(gamma <x, x'> + coef0) **
    degree``, so ``offset`` is ``SVC``'s ``coef0``. Scaling the inputs by ``sqrt(gamma)``
    gives the same kernel, so LKC's kernel is ``gamma = 1``, the default here.

    ``gamma='scale'`` is scikit-learn's data-driven ``gamma = 1 / (N Var(X))`` on the
    training inputs (``N`` features): the inner products of typical inputs are then of
    order one whatever the units of the inputs, so their powers neither explode nor
    vanish. An estimator fixes it when it fits (:meth:`resolve`; its ``kernel_`` holds
    the number); ``kernel(X)`` uses ``X`` itself, ``kernel(X, Y)`` needs :meth:`resolve`
    first. The estimators' ``kernel='poly'`` is ``SVC``'s default polynomial kernel,
    ``Polynomial(degree=3, gamma='scale', offset=0.0)``.

    Parameters
    ----------
    degree : int >= 1
    offset : float >= 0
        The constant added to the scaled inner product (``SVC``'s ``coef0``).
    gamma : float > 0 or 'scale'
        The scale of the inner product (``SVC``'s ``gamma``).
    """

    psd_by_construction = True  # sums and products of kernels (LKC Thm. 2.20), checked in _check
    accepts_sparse = True

    def __init__(self, degree=2, offset=0.0, gamma=1.0):
        self.degree = degree
        self.offset = offset
        self.gamma = gamma

    def _check(self):
        if (isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral)
                or self.degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        _check_positive(self.offset, "offset", strict=False)
        return _width_value(self.gamma, "gamma")

    def _gamma_for(self, X, Y=None):
        """The scale for inputs ``X`` (and ``Y``): ``'scale'`` is taken from ``X`` only
        when the Gram matrix is that of ``X`` with itself."""
        gamma = self._check()
        if gamma == _SCALE:
            if Y is not None and Y is not X:
                raise ValueError(
                    f"{self!r} takes its scale from the training inputs: an estimator fixes "
                    "it when it fits (see its kernel_), and kernel(X) uses X; for "
                    "kernel(X, Y) call kernel.resolve(X_train) first")
            gamma = scale_gamma(X)
        return gamma

    def resolve(self, X):
        """``Polynomial(gamma='scale')`` with the scale fixed from ``X`` (see
        :func:`scale_gamma`); any other polynomial kernel is returned as it is."""
        if self._check() != _SCALE:
            return self
        X = _as_vectors(X, sparse=True)
        gamma = scale_gamma(X)
        if not np.finfo(float).tiny <= gamma < np.inf:
            raise ValueError(
                f"gamma='scale' is 1 / (N Var(X)) = {gamma:.3g} for these inputs (they reach "
                f"|x| = {_largest(X):.3g}), not a usable scale; rescale the inputs "
                "(e.g. StandardScaler) or give gamma as a number")
        return Polynomial(self.degree, self.offset, gamma=gamma)

    def _inner(self, X, Y):
        """``gamma <x, y>`` for all pairs (the plain product when ``gamma = 1``)."""
        gamma = self._gamma_for(X, Y)
        G = inner_products(X, Y)
        if gamma != 1.0:
            G *= gamma
        return G

    def _gram(self, X, Y):
        G = self._inner(X, Y)               # (a new array: the offset is added in place)
        G += self.offset
        return _int_power(G, int(self.degree))

    def column_function(self, X):
        """One column ``(gamma X x_i + offset) ** degree``, the inputs validated once."""
        Xv, _ = self._validate(X, None)
        gamma = self._gamma_for(Xv)
        offset, degree = float(self.offset), int(self.degree)
        dots = _column_products(Xv)
        if gamma == 1.0:
            return lambda i: _int_power(dots(i) + offset, degree)
        return lambda i: _int_power(gamma * dots(i) + offset, degree)

    def diag(self, X):
        X, _ = self._validate(X, None)
        gamma = self._gamma_for(X)
        return (gamma * squared_norms(X) + self.offset) ** self.degree


def scale_sigma(X):
    """The RBF width of scikit-learn's ``gamma='scale'``: ``sigma = sqrt(N Var(X) / 2)``.

    scikit-learn's rule (``SVC(gamma='scale')``) is ``gamma = 1 / (N Var(X))`` with ``N``
    features and ``Var(X)`` the variance of all entries of ``X``; with the book's
    parameterisation ``k = exp(-||x - x'||^2 / (2 sigma^2))`` (LKC Table 2.1) this is
    ``sigma = sqrt(1 / (2 gamma))``. The expected squared distance between two inputs
    drawn from the sample is ``2 N Var(X)`` when the features have equal variances, so
    the kernel value at a typical distance is about ``exp(-2)``: neither the identity
    matrix (too narrow) nor a constant one (too wide).

    The variance is computed on ``X`` divided by its largest magnitude, so the width
    follows the inputs at any finite scale (scikit-learn's ``X.var()`` underflows to 0
    below about ``1e-154`` and overflows above ``1e154``). Constant inputs (relative
    spread below ``1e-10``) give any width the same constant Gram matrix; they get
    ``sqrt(1/2)`` times their largest magnitude (scikit-learn: ``gamma = 1``).

    Parameters
    ----------
    X : array of shape (m, N)
        Training inputs (2-D, finite).

    Returns
    -------
    float
    """
    try:
        X = _as_vectors(X, sparse=True)
    except (TypeError, ValueError) as exc:
        raise ValueError("sigma='scale' (scikit-learn's gamma='scale') takes the width from "
                         f"the variance of vector inputs; these inputs cannot be used: {exc}"
                         ) from exc
    top = _largest(X)
    if top == 0.0:
        return math.sqrt(0.5)
    if sp.issparse(X):          # the variance of all m N entries, zeros included (as SVC)
        Z = X / top
        n = X.shape[0] * X.shape[1]
        var = float(Z.multiply(Z).sum()) / n - (float(Z.sum()) / n) ** 2
    else:
        var = float((X / top).var())
    if var <= 1e-20:
        return math.sqrt(0.5) * top
    return top * math.sqrt(X.shape[1] * var / 2.0)


def _largest(X):
    """``max |x_ij|`` of a dense or sparse matrix."""
    if sp.issparse(X):
        return float(abs(X).max()) if X.nnz else 0.0
    return float(np.max(np.abs(X)))


def scale_gamma(X):
    """scikit-learn's ``gamma='scale'``, ``1 / (N Var(X))``, for the polynomial kernel.

    The same rule as :func:`scale_sigma` (``gamma = 1 / (2 sigma^2)``), computed as it is
    without over- or underflow for inputs at any finite scale (scikit-learn's
    ``X.var()`` overflows above about ``1e154``); constant inputs give
    ``1 / max|x|^2`` (scikit-learn: ``gamma = 1``).

    Parameters
    ----------
    X : array of shape (m, N)
        Training inputs (2-D, finite).

    Returns
    -------
    float
    """
    sigma = scale_sigma(X)
    return (0.5 / sigma) / sigma


_SCALE = "scale"


def _width_value(value, name):
    """A width parameter: ``'scale'`` or a finite number > 0 (as a float)."""
    if isinstance(value, str):
        if value == _SCALE:
            return _SCALE
        raise ValueError(f"{name} must be a number > 0 or 'scale', got {value!r}")
    _check_positive(value, name)
    return float(value)


def _gamma_of(sigma):
    """``1 / (2 sigma^2)`` without an ``OverflowError`` (0 or inf when out of range)."""
    try:
        square = sigma ** 2
    except OverflowError:
        return 0.0
    return 0.5 / square if square > 0 else math.inf


def _rbf_like(kernel, sigma):
    """``RBF`` of width ``sigma`` in the parameterisation ``kernel`` was given in (``gamma``
    when it was, and when ``gamma`` is a normal float at this width; else ``sigma``)."""
    if kernel.get_params()["gamma"] is not None:
        gamma = _gamma_of(sigma)
        if np.finfo(float).tiny <= gamma < np.inf:
            return RBF(gamma=gamma)
    return RBF(sigma=sigma)


class RBF(Kernel):
    """Gaussian RBF kernel ``exp(-||x - x'||^2 / (2 sigma^2))`` (LKC Table 2.1).

    The width is given in the book's parameterisation, ``sigma``, or in
    scikit-learn's, ``gamma = 1 / (2 sigma^2)`` (``exp(-gamma ||x - x'||^2)``): one of
    them, not both. Without either, ``sigma = 1``.

    ``'scale'`` (for either) is scikit-learn's data-driven default ``gamma='scale'``:
    ``gamma = 1 / (N Var(X))`` on the training inputs, i.e.
    ``sigma = sqrt(N Var(X) / 2)`` (:func:`scale_sigma`). An estimator fixes it when it
    fits (:meth:`~kernelclf.kernels.closure.Kernel.resolve`: its ``kernel_`` holds the number, its ``kernel``
    parameter keeps ``'scale'``); ``kernel(X)`` uses ``X`` itself, and ``kernel(X, Y)``
    needs :meth:`resolve` first. The estimators' ``kernel='rbf'`` is
    ``RBF(sigma='scale')``.

    The attributes ``sigma`` and ``gamma`` read the width in either parameterisation
    (``RBF(sigma=2.0).gamma == 0.125``, ``RBF(gamma=0.5).sigma == 1.0``; ``'scale'``
    before it is resolved); ``get_params`` returns the parameters as given, so
    ``clone``, ``set_params`` and grid searches over ``kernel__sigma`` or
    ``kernel__gamma`` work.

    Parameters
    ----------
    sigma : float > 0, 'scale' or None
        Kernel width.
    gamma : float > 0, 'scale' or None
        ``1 / (2 sigma^2)``, instead of ``sigma``.
    """

    psd_by_construction = True  # LKC Table 2.1 (Bochner: a Gaussian spectral density)
    accepts_sparse = True       # distances from the row norms and the inner products

    def __init__(self, sigma=None, gamma=None):
        self.sigma = sigma
        self.gamma = gamma

    def get_params(self, deep=True):
        """The parameters as given (``None`` for the one not used)."""
        return {"sigma": self._sigma, "gamma": self._gamma}

    def _width(self):
        """The width sigma as a float, or ``'scale'``; checks the parameters."""
        sigma, gamma = self._sigma, self._gamma
        if sigma is not None and gamma is not None:
            raise ValueError(
                f"RBF takes its width as sigma or as gamma = 1/(2 sigma^2), not both; got "
                f"sigma={sigma!r} and gamma={gamma!r}: set one of them to None")
        if gamma is not None:
            g = _width_value(gamma, "gamma")
            return g if g == _SCALE else math.sqrt(0.5 / g)
        return 1.0 if sigma is None else _width_value(sigma, "sigma")

    @property
    def sigma(self):
        """The width ``sigma`` (from ``gamma`` if that was given; ``'scale'`` unresolved)."""
        return self._width()

    @sigma.setter
    def sigma(self, value):
        self._sigma = value

    @property
    def gamma(self):
        """scikit-learn's ``gamma = 1 / (2 sigma^2)`` (``'scale'`` unresolved)."""
        if self._gamma is not None and self._sigma is None and not isinstance(self._gamma, str):
            return _width_value(self._gamma, "gamma")
        w = self._width()
        return w if w == _SCALE else _gamma_of(w)

    @gamma.setter
    def gamma(self, value):
        self._gamma = value

    def _advice_width(self):
        """sigma as a float for the Gram guard's advice (None while it is ``'scale'``)."""
        w = self._width()
        return w if isinstance(w, float) else None

    def _sigma_for(self, X, Y=None):
        """The width for inputs ``X`` (and ``Y``): ``'scale'`` is taken from ``X`` only when
        the Gram matrix is that of ``X`` with itself."""
        w = self._width()
        if w == _SCALE:
            if Y is not None and Y is not X:
                raise ValueError(
                    f"{self!r} takes its width from the training inputs: an estimator fixes "
                    "it when it fits (see its kernel_), and kernel(X) uses X; for "
                    "kernel(X, Y) call kernel.resolve(X_train) first")
            w = scale_sigma(X)
        return w

    def resolve(self, X):
        """``RBF(sigma='scale')`` with the width fixed from ``X`` (see :func:`scale_sigma`);
        any other RBF is returned as it is."""
        if self._width() != _SCALE:
            return self
        return _rbf_like(self, scale_sigma(X))

    def _gram(self, X, Y):
        sigma = self._sigma_for(X, Y)
        # distances of the inputs in units of sigma: no under- or overflow of sigma^2
        Xs = X / sigma
        d2 = squared_distances(Xs, Xs if Y is X else Y / sigma)
        d2 *= -0.5
        return np.exp(d2, out=d2)

    def diag(self, X):
        self._width()
        X, _ = self._validate(X, None)
        return np.ones(X.shape[0])

    def column_function(self, X):
        """One column ``exp(-||x_j - x_i||^2 / (2 sigma^2))`` in O(m N) without the matrix."""
        Xv, _ = self._validate(X, None)
        Xs = Xv / self._sigma_for(Xv)
        sq = squared_norms(Xs)
        dots = _column_products(Xs)

        def column(i):
            d2 = sq + (sq[i] - 2.0 * dots(i))
            np.maximum(d2, 0.0, out=d2)
            d2 *= -0.5
            return np.exp(d2, out=d2)
        return column


def check_length_scales(sigma, n_features):
    """Per-coordinate length scales: one positive finite value, or one per feature."""
    out = np.atleast_1d(np.asarray(sigma, dtype=float))
    if out.ndim != 1 or not np.all(np.isfinite(out)) or np.any(out <= 0):
        raise ValueError(f"sigma must be positive and finite, got {sigma!r}")
    if len(out) not in (1, n_features):
        raise ValueError(f"sigma has {len(out)} entries but the inputs have "
                         f"{n_features} features")
    return out


class Mahalanobis(Kernel):
    """Mahalanobis kernel ``exp(-(u - v)' Sigma (u - v))`` (LKC Table 2.1, Remark 2.19).

    As in the book's table, ``Sigma = diag(sigma_1^-2, ..., sigma_N^-2)`` (note: no factor
    1/2, unlike :class:`RBF`), so each input coordinate has its own length scale and a
    large ``sigma_i`` switches coordinate ``i`` off (automatic relevance determination,
    LKC Example 3.12; :class:`kernelclf.bayes.gp_regression.ARDRBF` is the same kernel with the factor 1/2
    and an amplitude, for evidence maximisation). ``metric`` replaces the diagonal by any
    symmetric positive semi-definite matrix.

    It is the RBF kernel of width ``1/sqrt(2)`` on the inputs mapped by ``L'`` with
    ``Sigma = L L'``, hence a Mercer kernel with ``k(x, x) = 1``.

    Parameters
    ----------
    sigma : float or array of shape (n_features,)
        Length scales, all > 0 (a float: the same for every coordinate, i.e.
        ``RBF(sigma / sqrt(2))``). Ignored when ``metric`` is given.
    metric : array of shape (n_features, n_features), optional
        The matrix ``Sigma`` itself (symmetric, positive semi-definite).
    """

    def __init__(self, sigma=1.0, metric=None):
        self.sigma = sigma
        self.metric = metric

    def _factor(self, n_features):
        """A matrix ``L`` with ``Sigma = L L'`` (columns scaled by 1/sigma if diagonal)."""
        if self.metric is not None:
            M = check_array(self.metric, ensure_2d=True, dtype=float)
            if M.shape != (n_features, n_features):
                raise ValueError(f"metric has shape {M.shape} but the inputs have "
                                 f"{n_features} features")
            if not np.allclose(M, M.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(M).max())):
                raise ValueError("metric must be symmetric")
            w, V = np.linalg.eigh((M + M.T) / 2)
            if w[0] < -1e-10 * max(1.0, abs(w[-1])):
                raise ValueError(f"metric must be positive semi-definite (smallest "
                                 f"eigenvalue {w[0]:.3g})")
            return V * np.sqrt(np.clip(w, 0.0, None))
        sigma = check_length_scales(self.sigma, n_features)
        return np.diag(np.broadcast_to(1.0 / sigma, (n_features,)))

    def _gram(self, X, Y):
        L = self._factor(X.shape[1])
        if Y.shape[1] != X.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but Y has {Y.shape[1]}")
        return np.exp(-squared_distances(X @ L, Y @ L))

    def diag(self, X):
        X, _ = self._validate(X, None)
        self._factor(X.shape[1])
        return np.ones(len(X))


def squared_distances(X, Y):
    """Squared Euclidean distances, clipped at 0 against round-off (one (m, n) array:
    no temporary matrices); dense or sparse rows."""
    xx = squared_norms(X)
    yy = xx if Y is X else squared_norms(Y)
    d2 = inner_products(X, Y)
    d2 *= -2.0
    d2 += xx[:, None]
    d2 += yy[None, :]
    np.maximum(d2, 0.0, out=d2)
    if X is Y:
        np.fill_diagonal(d2, 0.0)
    return d2


#: ``'poly'`` is ``SVC``'s default polynomial kernel: degree 3, ``gamma='scale'``, ``coef0 = 0``
_SVC_POLY = functools.partial(Polynomial, degree=3, offset=0.0, gamma=_SCALE)
KERNEL_NAMES.update({"linear": Linear, "rbf": functools.partial(RBF, sigma=_SCALE),
                     "poly": _SVC_POLY, "polynomial": _SVC_POLY})


def as_kernel(kernel):
    """Turn ``None``, a name, a callable or a :class:`~kernelclf.kernels.closure.Kernel` into a
    kernel object.

    ``None`` means ``Linear()``; the names are ``'linear'``, ``'rbf'``
    (``RBF(sigma='scale')``, scikit-learn's default width) and ``'poly'`` (or
    ``'polynomial'``: ``Polynomial(degree=3, gamma='scale')``, ``SVC(kernel='poly')``'s
    default kernel); a callable ``f(X, Y)`` is wrapped in
    :class:`~kernelclf.kernels.closure.CallableKernel`. A kernel *class* (``RBF`` instead
    of ``RBF()``) is refused with a ``TypeError``.
    """
    if kernel is None:
        return Linear()
    return kernel_operand(kernel)
