"""Vector kernels, the closure rules, and Gram-matrix utilities.

Book chapter 02 (``book/02_kernels.md``); LKC §2.3, Table 2.1 (polynomial, RBF and
Mahalanobis kernels), Theorem 2.20, Corollary 2.21 and eq. (2.22).

Every kernel is a small scikit-learn style object: its parameters are
stored in ``__init__`` and exposed through ``get_params``, so estimators that
hold a kernel can be cloned and grid-searched (``kernel__sigma`` etc.).
Calling a kernel on ``(X, Y)`` returns the Gram matrix ``K[i, j] = k(x_i, y_j)``;
``kernel.diag(X)`` returns ``k(x_i, x_i)`` without building the matrix.

Kernels combine with the closure rules of LKC Theorem 2.20::

    k1 + k2        Sum
    k1 * k2        Product (Schur product of Gram matrices)
    c * k          Scaled, c > 0
    k + c          Sum with a Constant kernel, c >= 0
    Normalized(k)  k(x, x') / sqrt(k(x, x) k(x', x'))   (LKC eq. 2.22)
    Exponential(k) exp(k(x, x') / sigma^2)              (Cor. 2.21)
    InducedRBF(k)  exp(-d_k(x, x')^2 / (2 sigma^2))     (Cor. 2.21)

Inputs are checked by every kernel: vector kernels take a 2-D, finite float array (and
the second argument must have as many features as the first); only kernels that say so
(``accepts_strings``) take lists of strings. Data-driven parameters (``RBF(sigma='scale')``)
are fixed from the training inputs by :meth:`Kernel.resolve`, which every estimator of the
package calls when it fits, so the fitted ``kernel_`` holds numbers.
"""
from __future__ import annotations

import functools
import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Mahalanobis", "Constant", "Sum", "Product", "Scaled",
    "Normalized", "Exponential", "InducedRBF", "CallableKernel", "as_kernel",
    "is_psd", "min_eigenvalue", "center_gram", "normalize_gram", "add_diagonal",
    "feature_space_distances", "WhitenedKernel", "scale_sigma",
]


def _as_vectors(X):
    # fast path for inputs an estimator has already validated (a finite float64 matrix)
    if (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.size
            and np.isfinite(X).all()):
        return X
    return check_array(X, dtype=np.float64, ensure_all_finite=True)


def _check_vectors(X, Y=None):
    X = _as_vectors(X)
    if Y is None:
        return X, X
    Y = _as_vectors(Y)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; a kernel needs "
            "vectors of the same dimension")
    return X, Y


def _is_strings(X):
    """Whether ``X`` is a non-empty sequence of ``str`` (a list, tuple or 1-D string array)."""
    if isinstance(X, np.ndarray):
        return X.ndim == 1 and X.dtype.kind == "U" and X.size > 0
    return (isinstance(X, (list, tuple)) and len(X) > 0
            and all(isinstance(s, str) for s in X))


def _check_strings_pair(X, Y):
    from .rows import check_strings

    Xs = check_strings(X, "X")
    if Y is None or Y is X:
        return Xs, Xs
    return Xs, check_strings(Y, "Y")


def _kernel_class_error(cls):
    name = cls.__name__
    return TypeError(f"{name} is a kernel class, not a kernel: pass an instance, e.g. "
                     f"{name}() (kernel={name}() instead of kernel={name})")


def _check_positive(value, name, strict=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if strict and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if not strict and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")


class Kernel(BaseEstimator):
    """Base class: ``k(X, Y=None) -> Gram matrix``; supports ``+``, ``*`` and scaling.

    Subclasses implement ``_gram(X, Y)`` on validated inputs and may override
    ``diag``. ``accepts_strings`` tells estimators not to coerce ``X`` to a
    float array (string kernels set it).
    """

    accepts_strings = False

    def __call__(self, X, Y=None):
        Xv, Yv = self._validate(X, Y)
        return self._gram(Xv, Yv)

    def _validate(self, X, Y):
        return _check_vectors(X, Y)

    def _gram(self, X, Y):  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} does not define a Gram matrix")

    def resolve(self, X):
        """This kernel with its data-driven parameters fixed from the training inputs ``X``.

        ``RBF(sigma='scale')`` becomes ``RBF(sigma=s)`` with ``s`` from :func:`scale_sigma`;
        kernels built from other kernels (sums, products, ...) resolve their parts. A kernel
        without data-driven parameters is returned as it is (the same object). Every
        estimator of the package calls this on its clone ``kernel_`` when it fits
        (:class:`kernelclf.base.KernelMixin`), so the fitted kernel holds numbers and the
        ``kernel`` parameter is not changed.
        """
        params = self.get_params(deep=False)
        changed = {}
        for name, value in params.items():
            if isinstance(value, Kernel):
                new = value.resolve(X)
                if new is not value:
                    changed[name] = new
        if not changed:
            return self
        return type(self)(**{**params, **changed})

    def column_function(self, X):
        """Return ``i -> K[:, i]`` for the training inputs ``X`` (validated once).

        The Gram-access object (:class:`kernelclf.kernels.gram.Gram`) calls this to get
        one column of the Gram matrix at a time; kernels with a cheaper column
        (RBF, linear) override it.
        """
        from .rows import take_rows

        Xv, _ = self._validate(X, None)
        return lambda i: np.asarray(self._gram(Xv, take_rows(Xv, i)), dtype=float)[:, 0]

    def diag(self, X):
        """Return the vector ``k(x_i, x_i)``; generic version goes row by row."""
        Xv, _ = self._validate(X, None)
        return np.array([self._gram(Xv[i:i + 1], Xv[i:i + 1])[0, 0] for i in range(len(Xv))])

    # closure rules (LKC Theorem 2.20)
    def __add__(self, other):
        if isinstance(other, numbers.Real):
            return Sum(self, Constant(float(other)))
        return Sum(self, as_kernel(other))

    __radd__ = __add__

    def __mul__(self, other):
        if isinstance(other, numbers.Real):
            return Scaled(self, float(other))
        return Product(self, as_kernel(other))

    __rmul__ = __mul__


class Linear(Kernel):
    """Linear kernel ``<x, x'>`` (LKC Table 2.1 with p = 1)."""

    def _gram(self, X, Y):
        return X @ Y.T

    def column_function(self, X):
        Xv, _ = self._validate(X, None)
        return lambda i: Xv @ Xv[i]

    def diag(self, X):
        X, _ = self._validate(X, None)
        return np.einsum("ij,ij->i", X, X)


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
    """Polynomial kernel ``(<x, x'> + offset) ** degree`` (LKC Table 2.1).

    ``offset = 0`` gives the p-th degree polynomial kernel whose feature space
    has dimension C(N+p-1, p); ``offset > 0`` the complete polynomial kernel of
    dimension C(N+p, p) (LKC Example 2.22).

    Parameters
    ----------
    degree : int >= 1
    offset : float >= 0
    """

    def __init__(self, degree=2, offset=0.0):
        self.degree = degree
        self.offset = offset

    def _check(self):
        if (isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral)
                or self.degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        _check_positive(self.offset, "offset", strict=False)

    def _gram(self, X, Y):
        self._check()
        return _int_power(X @ Y.T + self.offset, int(self.degree))

    def column_function(self, X):
        """One column ``(X x_i + offset) ** degree``, the inputs validated once."""
        self._check()
        Xv, _ = self._validate(X, None)
        offset, degree = float(self.offset), int(self.degree)
        return lambda i: _int_power(Xv @ Xv[i] + offset, degree)

    def diag(self, X):
        self._check()
        X, _ = self._validate(X, None)
        return (np.einsum("ij,ij->i", X, X) + self.offset) ** self.degree


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
        X = _as_vectors(X)
    except (TypeError, ValueError) as exc:
        raise ValueError("sigma='scale' (scikit-learn's gamma='scale') takes the width from "
                         f"the variance of vector inputs; these inputs cannot be used: {exc}"
                         ) from exc
    top = float(np.max(np.abs(X)))
    if top == 0.0:
        return math.sqrt(0.5)
    var = float((X / top).var())
    if var <= 1e-20:
        return math.sqrt(0.5) * top
    return top * math.sqrt(X.shape[1] * var / 2.0)


_SCALE = "scale"


def _width_value(value, name):
    """A width parameter: ``'scale'`` or a finite number > 0 (as a float)."""
    if isinstance(value, str):
        if value == _SCALE:
            return _SCALE
        raise ValueError(f"{name} must be a number > 0 or 'scale', got {value!r}")
    _check_positive(value, name)
    return float(value)


class RBF(Kernel):
    """Gaussian RBF kernel ``exp(-||x - x'||^2 / (2 sigma^2))`` (LKC Table 2.1).

    The width is given in the book's parameterisation, ``sigma``, or in
    scikit-learn's, ``gamma = 1 / (2 sigma^2)`` (``exp(-gamma ||x - x'||^2)``): one of
    them, not both. Without either, ``sigma = 1``.

    ``'scale'`` (for either) is scikit-learn's data-driven default ``gamma='scale'``:
    ``gamma = 1 / (N Var(X))`` on the training inputs, i.e.
    ``sigma = sqrt(N Var(X) / 2)`` (:func:`scale_sigma`). An estimator fixes it when it
    fits (:meth:`Kernel.resolve`: its ``kernel_`` holds the number, its ``kernel``
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
        return w if w == _SCALE else 0.5 / w ** 2

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
        sigma = scale_sigma(X)
        if self._gamma is not None:
            return RBF(gamma=0.5 / sigma ** 2)
        return RBF(sigma=sigma)

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
        return np.ones(len(X))

    def column_function(self, X):
        """One column ``exp(-||x_j - x_i||^2 / (2 sigma^2))`` in O(m N) without the matrix."""
        Xv, _ = self._validate(X, None)
        Xs = Xv / self._sigma_for(Xv)
        sq = np.einsum("ij,ij->i", Xs, Xs)

        def column(i):
            d2 = sq + (sq[i] - 2.0 * (Xs @ Xs[i]))
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
    LKC Example 3.12; :class:`kernelclf.bayes.gp.ARDRBF` is the same kernel with the factor 1/2
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
    no temporary matrices)."""
    xx = np.einsum("ij,ij->i", X, X)
    yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y)
    d2 = X @ Y.T
    d2 *= -2.0
    d2 += xx[:, None]
    d2 += yy[None, :]
    np.maximum(d2, 0.0, out=d2)
    if X is Y:
        np.fill_diagonal(d2, 0.0)
    return d2


class _Composite(Kernel):
    """Kernel built from other kernels; validation is delegated to the parts."""

    def _validate(self, X, Y):
        for value in self.get_params(deep=False).values():
            if isinstance(value, type) and issubclass(value, Kernel):
                raise _kernel_class_error(value)
        return X, (X if Y is None else Y)

    @property
    def accepts_strings(self):
        """Strings when every part that looks at its inputs takes strings (a
        :class:`Constant` takes anything, so ``string_kernel + c`` takes strings)."""
        parts = [k for k in self._parts() if not getattr(k, "takes_any_input", False)]
        return bool(parts) and all(getattr(k, "accepts_strings", False) for k in parts)

    def _parts(self):
        return [v for v in self.get_params(deep=False).values() if isinstance(v, Kernel)]


class Constant(Kernel):
    """Constant kernel ``k(x, x') = c`` with ``c >= 0`` (rank-one, PSD; LKC Theorem 2.20
    with a constant feature map).

    It checks its inputs like the vector kernels (a 2-D finite array, the same number
    of features in both arguments), or, given a list of strings, like the string
    kernels: so ``SpectrumKernel(3) + 1.0`` takes strings. Alone in an estimator it
    takes vectors.
    """

    #: a constant ignores what the inputs are (composites do not count it, see _Composite)
    takes_any_input = True

    def __init__(self, c=1.0):
        self.c = c

    def _validate(self, X, Y):
        if _is_strings(X):
            return _check_strings_pair(X, Y)
        return _check_vectors(X, Y)

    def _gram(self, X, Y):
        _check_positive(self.c, "c", strict=False)
        return np.full((len(X), len(Y)), float(self.c))

    def diag(self, X):
        _check_positive(self.c, "c", strict=False)
        return np.full(len(X), float(self.c))


class Sum(_Composite):
    """``k1(x, x') + k2(x, x')`` (LKC Theorem 2.20, first rule)."""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2

    def _gram(self, X, Y):
        return self.k1(X, Y) + self.k2(X, Y)

    def column_function(self, X):
        f1, f2 = self.k1.column_function(X), self.k2.column_function(X)
        return lambda i: f1(i) + f2(i)

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)


class Product(_Composite):
    """``k1(x, x') * k2(x, x')``: the Schur product (LKC Theorem 2.20)."""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2

    def _gram(self, X, Y):
        return self.k1(X, Y) * self.k2(X, Y)

    def column_function(self, X):
        f1, f2 = self.k1.column_function(X), self.k2.column_function(X)
        return lambda i: f1(i) * f2(i)

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)


class Scaled(_Composite):
    """``c * k(x, x')`` with ``c > 0`` (LKC Theorem 2.20)."""

    def __init__(self, kernel, c=1.0):
        self.kernel = kernel
        self.c = c

    def _gram(self, X, Y):
        _check_positive(self.c, "c")
        return self.c * self.kernel(X, Y)

    def column_function(self, X):
        """``c`` times the part's column (the part validates the inputs once)."""
        _check_positive(self.c, "c")
        c, f = float(self.c), self.kernel.column_function(X)
        return lambda i: c * f(i)

    def diag(self, X):
        _check_positive(self.c, "c")
        return self.c * self.kernel.diag(X)


class Normalized(_Composite):
    """Cosine in feature space, ``k(x,x') / sqrt(k(x,x) k(x',x'))`` (LKC eq. 2.22).

    Points with ``k(x, x) = 0`` (the origin of feature space) get zero rows.
    """

    def __init__(self, kernel):
        self.kernel = kernel

    def _gram(self, X, Y):
        K = self.kernel(X, Y)
        dx = np.asarray(self.kernel.diag(X), dtype=float)
        dy = dx if Y is X else np.asarray(self.kernel.diag(Y), dtype=float)
        return _scale_by_diagonals(K, dx, dy)

    def diag(self, X):
        d = np.asarray(self.kernel.diag(X), dtype=float)
        return (d > 0).astype(float)


def _scale_by_diagonals(K, dx, dy):
    if np.any(dx < 0) or np.any(dy < 0):
        raise ValueError("normalisation needs k(x, x) >= 0 for every x")
    sx = np.where(dx > 0, 1.0 / np.sqrt(np.where(dx > 0, dx, 1.0)), 0.0)
    sy = np.where(dy > 0, 1.0 / np.sqrt(np.where(dy > 0, dy, 1.0)), 0.0)
    return K * sx[:, None] * sy[None, :]


class Exponential(_Composite):
    """``exp(k(x, x') / sigma^2)`` (LKC Corollary 2.21)."""

    def __init__(self, kernel, sigma=1.0):
        self.kernel = kernel
        self.sigma = sigma

    def _gram(self, X, Y):
        _check_positive(self.sigma, "sigma")
        return np.exp(self.kernel(X, Y) / self.sigma ** 2)

    def diag(self, X):
        _check_positive(self.sigma, "sigma")
        return np.exp(np.asarray(self.kernel.diag(X)) / self.sigma ** 2)


class InducedRBF(_Composite):
    """RBF kernel in the metric induced by another kernel (LKC Corollary 2.21).

    ``exp(-(k(x,x) - 2 k(x,x') + k(x',x')) / (2 sigma^2))``; with
    ``Linear()`` inside it equals :class:`RBF`.
    """

    def __init__(self, kernel, sigma=1.0):
        self.kernel = kernel
        self.sigma = sigma

    def _gram(self, X, Y):
        _check_positive(self.sigma, "sigma")
        d2 = feature_space_distances(self.kernel, X, Y, squared=True)
        return np.exp(-d2 / (2.0 * self.sigma ** 2))

    def diag(self, X):
        _check_positive(self.sigma, "sigma")
        return np.ones(len(X))


class CallableKernel(Kernel):
    """Wrap a function ``f(X, Y) -> Gram`` so it behaves like a kernel object.

    The inputs are checked before ``f`` sees them, as for the vector kernels (2-D,
    finite, the same number of features), or as lists of strings when
    ``accepts_strings=True``; ``f`` must return the ``(len(X), len(Y))`` matrix.

    Parameters
    ----------
    function : callable
        ``f(X, Y)`` returning ``k(x_i, y_j)`` for all pairs.
    accepts_strings : bool, default False
        ``f`` takes lists of strings (estimators then keep ``X`` as strings).
    """

    def __init__(self, function, accepts_strings=False):
        self.function = function
        self.accepts_strings = accepts_strings

    def _validate(self, X, Y):
        if isinstance(self.function, type) and issubclass(self.function, Kernel):
            raise _kernel_class_error(self.function)
        if self.accepts_strings:
            return _check_strings_pair(X, Y)
        return _check_vectors(X, Y)

    def _gram(self, X, Y):
        K = np.asarray(self.function(X, Y), dtype=float)
        expected = (len(X), len(Y))
        if K.shape != expected:
            raise ValueError(
                f"the kernel function {getattr(self.function, '__name__', self.function)!r} "
                f"returned an array of shape {K.shape}; a kernel must return the "
                f"(len(X), len(Y)) = {expected} matrix of the values k(x_i, y_j)")
        return K


_NAMED = {"linear": Linear, "rbf": functools.partial(RBF, sigma=_SCALE),
          "poly": Polynomial, "polynomial": Polynomial}


def as_kernel(kernel):
    """Turn ``None``, a name, a callable or a :class:`Kernel` into a :class:`Kernel`.

    ``None`` means ``Linear()``; the names are ``'linear'``, ``'rbf'``
    (``RBF(sigma='scale')``, scikit-learn's default width) and ``'poly'``
    (``Polynomial()``). A kernel *class* (``RBF`` instead of ``RBF()``) is refused
    with a ``TypeError``.
    """
    if kernel is None:
        return Linear()
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, type) and issubclass(kernel, Kernel):
        raise _kernel_class_error(kernel)
    if isinstance(kernel, str):
        try:
            return _NAMED[kernel.lower()]()
        except KeyError:
            raise ValueError(f"unknown kernel name {kernel!r}; use one of {sorted(_NAMED)} "
                             "or a kernelclf.kernels object") from None
    if callable(kernel):
        return CallableKernel(kernel)
    raise TypeError(f"cannot use {kernel!r} as a kernel")


# ---------------------------------------------------------------------------
# Gram-matrix utilities (LKC Definition 2.15, Proposition 2.18)

def _check_square(K):
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"a Gram matrix must be square, got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError("a Gram matrix must be non-empty")
    if not np.all(np.isfinite(K)):
        raise ValueError("the Gram matrix contains NaN or infinity")
    return K


def min_eigenvalue(K):
    """Smallest eigenvalue of the symmetric part of ``K``."""
    K = _check_square(K)
    return float(np.linalg.eigvalsh(0.5 * (K + K.T))[0])


def is_psd(K, tol=1e-10):
    """True when ``K`` is symmetric and its smallest eigenvalue is >= ``-tol * max(1, |K|)``
    (LKC Proposition 2.18: a symmetric function is a kernel iff every Gram matrix is PSD)."""
    K = _check_square(K)
    scale = max(1.0, float(np.abs(K).max())) if K.size else 1.0
    if not np.allclose(K, K.T, atol=tol * scale, rtol=0):
        return False
    return min_eigenvalue(K) >= -tol * scale


def center_gram(K, K_test=None):
    """Centre a Gram matrix in feature space: ``H K H`` with ``H = I - 11'/m``.

    With ``K_test`` (shape ``(n, m)``, test rows against the training points)
    the test rows are centred with the training mean, as kernel PCA does.
    """
    K = _check_square(K)
    m = K.shape[0]
    col = K.mean(axis=0)
    tot = col.mean()
    Kc = K - col[None, :] - col[:, None] + tot
    if K_test is None:
        return Kc
    K_test = np.asarray(K_test, dtype=float)
    if K_test.ndim != 2 or K_test.shape[1] != m:
        raise ValueError(f"K_test must have shape (n, {m}), got {K_test.shape}")
    return K_test - col[None, :] - K_test.mean(axis=1)[:, None] + tot


def normalize_gram(K):
    """Normalise a square Gram matrix to unit diagonal (LKC eq. 2.22)."""
    K = _check_square(K)
    d = np.diag(K).copy()
    return _scale_by_diagonals(K, d, d)


def add_diagonal(K, lam):
    """Return ``K + lam * I``: the ridge used by the quadratic soft margin (LKC
    eq. 2.50), GP noise (eq. 3.15) and soft-boundary Bayes points (BPM §3.3)."""
    K = _check_square(K)
    _check_positive(lam, "lam", strict=False)
    return K + lam * np.eye(K.shape[0])


def feature_space_distances(kernel, X, Y=None, squared=False):
    """Distances in feature space, ``k(x,x) - 2k(x,x') + k(x',x')`` (LKC eq. 1.2).

    Works with any kernel object; negative round-off is clipped to zero.
    """
    kernel = as_kernel(kernel)
    Yv = X if Y is None else Y
    K = kernel(X, Yv)
    dx = np.asarray(kernel.diag(X), dtype=float)
    dy = dx if Y is None else np.asarray(kernel.diag(Yv), dtype=float)
    d2 = np.maximum(dx[:, None] + dy[None, :] - 2.0 * K, 0.0)
    if Y is None:
        np.fill_diagonal(d2, 0.0)
    return d2 if squared else np.sqrt(d2)


class WhitenedKernel(Kernel):
    """The whitened kernel ``k-hat`` of the Sigma-SVM (RMM §3.1; Shivaswamy & Jebara 2010).

    For a base kernel ``k`` with feature map ``phi`` and a reference sample
    ``x_1..x_n`` (the training inputs, set by :meth:`fit`), with feature-space mean
    ``mu`` and covariance ``Sigma`` (``1/n`` normalisation),

    ``k-hat(x, x') = (phi(x) - mu)' ((1 - D) I + D Sigma)^{-1} (phi(x') - mu)``.

    By the Woodbury identity (the formula of RMM §3.1) this is

    ``k-hat(x, x') = [kc(x, x') - kc_x' (c I + Kc)^{-1} kc_x'] / (1 - D)``,
    ``c = n (1 - D) / D``,

    where ``kc`` is the kernel centred on the reference sample, ``Kc`` its centred
    Gram matrix and ``kc_x`` the vector ``kc(x_j, x)``. The inverse is applied through
    one eigendecomposition of ``Kc`` (O(n^3), done once in :meth:`fit`; solve, don't
    invert). ``D = 0`` gives the centred kernel (the SVM on centred data);
    ``D -> 1`` whitens completely (affine invariance, RMM eq. 7).

    Parameters
    ----------
    kernel : kernel object, name or callable (default linear)
    D : float in [0, 1)

    Attributes (after ``fit``)
    --------------------------
    X_ref_ : the reference inputs
    train_gram_ : (n, n) array, ``k-hat`` on the reference inputs
    """

    def __init__(self, kernel=None, D=0.5):
        self.kernel = kernel
        self.D = D

    @property
    def accepts_strings(self):
        return bool(getattr(as_kernel(self.kernel), "accepts_strings", False))

    def _validate(self, X, Y):
        return X, (X if Y is None else Y)

    def _check_D(self):
        D = self.D
        if isinstance(D, bool) or not isinstance(D, numbers.Real) or not 0 <= D < 1:
            raise ValueError(f"D must be a real number in [0, 1), got {D!r}")
        return float(D)

    def fit(self, X):
        """Set the reference sample (mean, covariance) to ``X``; returns ``self``."""
        D = self._check_D()
        base = as_kernel(self.kernel)
        if not base.accepts_strings:
            X = _as_vectors(X)
        base = base.resolve(X)            # e.g. RBF(sigma='scale'): the reference sample's
        K = np.asarray(base(X), dtype=float)
        n = K.shape[0]
        col = K.mean(axis=0)
        tot = float(col.mean())
        Kc = K - col[None, :] - col[:, None] + tot
        Kc = 0.5 * (Kc + Kc.T)
        self.base_ = base
        self.X_ref_ = X
        self.col_mean_ = col
        self.total_mean_ = tot
        if D > 0:
            ev, U = np.linalg.eigh(Kc)
            ev = np.maximum(ev, 0.0)
            c = n * (1.0 - D) / D
            self.proj_ = U / np.sqrt(c + ev)[None, :]
            Z = Kc @ self.proj_
            G = (Kc - Z @ Z.T) / (1.0 - D)
        else:
            self.proj_ = None
            G = Kc
        self.train_gram_ = 0.5 * (G + G.T)
        return self

    def resolve(self, X):
        """A fitted whitened kernel is returned as it is (its base kernel was resolved on
        the reference sample by :meth:`fit`)."""
        if hasattr(self, "X_ref_"):
            return self
        return super().resolve(X)

    def _centred_rows(self, X):
        """``(kc(x, x_j))_j`` and ``mean_j k(x, x_j)`` for the rows of ``X``."""
        if not hasattr(self, "X_ref_"):
            raise ValueError("WhitenedKernel is data-dependent: call fit(X_reference) first")
        R = np.asarray(self.base_(X, self.X_ref_), dtype=float)
        rmean = R.mean(axis=1)
        return R - self.col_mean_[None, :] - rmean[:, None] + self.total_mean_, rmean

    def _gram(self, X, Y):
        D = self._check_D()
        cX, mX = self._centred_rows(X)
        if Y is X:
            cY, mY = cX, mX
        else:
            cY, mY = self._centred_rows(Y)
        Kxy = np.asarray(self.base_(X, Y), dtype=float) - mX[:, None] - mY[None, :] + \
            self.total_mean_
        if self.proj_ is None:
            return Kxy
        ZX = cX @ self.proj_
        ZY = ZX if Y is X else cY @ self.proj_
        return (Kxy - ZX @ ZY.T) / (1.0 - D)

    def diag(self, X):
        D = self._check_D()
        cX, mX = self._centred_rows(X)
        d = np.asarray(self.base_.diag(X), dtype=float) - 2.0 * mX + self.total_mean_
        if self.proj_ is None:
            return d
        ZX = cX @ self.proj_
        return (d - np.einsum("ij,ij->i", ZX, ZX)) / (1.0 - D)
