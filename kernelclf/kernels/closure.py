"""Book chapter 02 (``book/02_kernels.md``): the kernel object and the closure rules.

LKC §2.3: Theorem 2.20 (sums, products and positive multiples of kernels are kernels),
Corollary 2.21 (the exponential of a kernel and the RBF kernel in its induced metric) and
eq. (2.22) (normalisation to unit diagonal).

Every kernel is a small scikit-learn style object (:class:`Kernel`): its parameters are
stored in ``__init__`` and exposed through ``get_params``, so estimators that hold a kernel
can be cloned and grid-searched (``kernel__sigma`` etc.). Calling a kernel on ``(X, Y)``
returns the Gram matrix ``K[i, j] = k(x_i, y_j)``; ``kernel.diag(X)`` returns ``k(x_i, x_i)``
without building the matrix.

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

The vector kernels themselves (linear, polynomial, RBF, Mahalanobis) and
:func:`~kernelclf.kernels.vector.as_kernel` are in :mod:`kernelclf.kernels.vector`; it also
fills the table of kernel names used here (``k + 'linear'``).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

__all__ = [
    "Kernel", "Constant", "Sum", "Product", "Scaled", "Normalized", "Exponential", "InducedRBF",
    "CallableKernel",
]


def _as_vectors(X, sparse=False):
    # fast path for inputs an estimator has already validated (a finite float64 matrix)
    if (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.size
            and np.isfinite(X).all()):
        return X
    if sparse and sp.issparse(X):
        if (X.format == "csr" and X.dtype == np.float64 and X.shape[0]
                and np.isfinite(X.data).all()):
            return X
        return check_array(X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=True)
    return check_array(X, dtype=np.float64, ensure_all_finite=True)


def _check_vectors(X, Y=None, sparse=False):
    X = _as_vectors(X, sparse)
    if Y is None:
        return X, X
    Y = _as_vectors(Y, sparse)
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


class _CachedParamNames:
    """scikit-learn's ``_get_param_names`` (the parameters read from ``__init__``'s
    signature by ``inspect``), computed once per class.

    ``get_params`` asks for the names on every call, and a fit calls it several times
    (the parameter validation, the clone of the kernel, resolving its data-driven
    parameters): reading the signature each time costs about 10-30 microseconds, a
    noticeable part of a small fit. A class's ``__init__`` does not change, so the names
    are kept in the class's own ``__dict__`` (a subclass reads its own signature).
    """

    @classmethod
    def _get_param_names(cls):
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = tuple(super(_CachedParamNames, cls)._get_param_names())
            cls._param_names_cache = names
        return list(names)


class Kernel(_CachedParamNames, BaseEstimator):
    """Base class: ``k(X, Y=None) -> Gram matrix``; supports ``+``, ``*`` and scaling.

    Subclasses implement ``_gram(X, Y)`` on validated inputs and may override
    ``diag``. ``accepts_strings`` tells estimators not to coerce ``X`` to a
    float array (string kernels set it). ``psd_by_construction`` (set in the class
    itself, not inherited: a subclass may change the formula) says that every Gram
    matrix of the kernel is positive semi-definite by a theorem (LKC Table 2.1), so the
    numerical guard of :mod:`kernelclf.kernels.gram_guard` skips its sampled
    eigenvalue and symmetry tests (its finiteness, range and degeneracy checks stay).
    """

    accepts_strings = False
    #: the kernel computes on scipy.sparse rows (CSR); the others refuse them clearly
    accepts_sparse = False
    psd_by_construction = False

    def __call__(self, X, Y=None):
        Xv, Yv = self._validate(X, Y)
        return self._gram(Xv, Yv)

    def _validate(self, X, Y):
        if self.accepts_sparse:
            return _check_vectors(X, Y, sparse=True)
        if sp.issparse(X) or sp.issparse(Y):
            raise TypeError(sparse_refusal(self))
        return _check_vectors(X, Y)

    def _gram(self, X, Y):  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} does not define a Gram matrix")

    def resolve(self, X):
        """This kernel with its data-driven parameters fixed from the training inputs ``X``.

        ``RBF(sigma='scale')`` becomes ``RBF(sigma=s)`` with ``s`` from
        :func:`~kernelclf.kernels.vector.scale_sigma`;
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
        return Sum(self, kernel_operand(other))

    __radd__ = __add__

    def __mul__(self, other):
        if isinstance(other, numbers.Real):
            return Scaled(self, float(other))
        return Product(self, kernel_operand(other))

    __rmul__ = __mul__


def sparse_refusal(kernel):
    """The message for sparse inputs to a kernel that needs dense vectors."""
    return (f"Sparse data was passed, but the kernel {kernel!r} needs dense vectors: use a "
            "kernel that takes sparse input (Linear, Polynomial, RBF, and sums, products "
            "and multiples of them) or convert the data with X.toarray()")


class _Composite(Kernel):
    """Kernel built from other kernels; validation is delegated to the parts."""

    @property
    def accepts_sparse(self):
        """Sparse rows when every part takes them."""
        parts = self._parts()
        return bool(parts) and all(getattr(k, "accepts_sparse", False) for k in parts)

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
    accepts_sparse = True

    def __init__(self, c=1.0):
        self.c = c

    def _validate(self, X, Y):
        if _is_strings(X):
            return _check_strings_pair(X, Y)
        return _check_vectors(X, Y, sparse=True)

    def _gram(self, X, Y):
        _check_positive(self.c, "c", strict=False)
        return np.full((X.shape[0], Y.shape[0]), float(self.c)) if hasattr(X, "shape") \
            else np.full((len(X), len(Y)), float(self.c))

    def diag(self, X):
        _check_positive(self.c, "c", strict=False)
        X, _ = self._validate(X, None)
        return np.full(X.shape[0] if hasattr(X, "shape") else len(X), float(self.c))


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
        return np.exp(self.kernel(X, Y) / self.sigma / self.sigma)

    def diag(self, X):
        _check_positive(self.sigma, "sigma")
        return np.exp(np.asarray(self.kernel.diag(X)) / self.sigma / self.sigma)


class InducedRBF(_Composite):
    """RBF kernel in the metric induced by another kernel (LKC Corollary 2.21).

    ``exp(-(k(x,x) - 2 k(x,x') + k(x',x')) / (2 sigma^2))``; with
    ``Linear()`` inside it equals :class:`~kernelclf.kernels.vector.RBF`.
    """

    def __init__(self, kernel, sigma=1.0):
        self.kernel = kernel
        self.sigma = sigma

    def _gram(self, X, Y):
        _check_positive(self.sigma, "sigma")
        d2 = squared_feature_distances(kernel_operand(self.kernel), X, Y)
        return np.exp(-d2 / (2.0 * self.sigma) / self.sigma)

    def diag(self, X):
        _check_positive(self.sigma, "sigma")
        return np.ones(len(X))


class CallableKernel(Kernel):
    """Wrap a function ``f(X, Y) -> Gram`` so it behaves like a kernel object.

    The inputs are checked before ``f`` sees them, as for the vector kernels (2-D,
    finite, the same number of features), or as lists of strings when
    ``accepts_strings=True``; ``f`` must return the ``(len(X), len(Y))`` matrix (a
    scipy.sparse result is made dense). Sparse inputs reach ``f`` as CSR matrices, as
    ``SVC``'s callable kernels get them; a function that cannot take them fails with a
    note saying so.

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
        return _check_vectors(X, Y, sparse=True)

    @property
    def accepts_sparse(self):
        """Sparse vectors are handed to the function (not with ``accepts_strings``)."""
        return not self.accepts_strings

    def _gram(self, X, Y):
        try:
            K = self.function(X, Y)
        except Exception as exc:
            if (sp.issparse(X) or sp.issparse(Y)) and hasattr(exc, "add_note"):
                exc.add_note("(the kernel function was given scipy.sparse CSR matrices; "
                             "pass dense inputs, X.toarray(), if it needs arrays)")
            raise
        K = np.asarray(K.toarray() if sp.issparse(K) else K, dtype=float)
        expected = (X.shape[0] if sp.issparse(X) else len(X),
                    Y.shape[0] if sp.issparse(Y) else len(Y))
        if K.shape != expected:
            raise ValueError(
                f"the kernel function {getattr(self.function, '__name__', self.function)!r} "
                f"returned an array of shape {K.shape}; a kernel must return the "
                f"(len(X), len(Y)) = {expected} matrix of the values k(x_i, y_j)")
        return K


#: kernel names -> constructors (``'linear'``, ``'rbf'``, ``'poly'``); the named kernels are
#: vector kernels, so :mod:`kernelclf.kernels.vector` fills the table when it is imported
#: (which importing any module of :mod:`kernelclf.kernels` does).
KERNEL_NAMES = {}


def kernel_operand(kernel):
    """A :class:`Kernel` from a kernel object, a kernel name or a callable ``f(X, Y)``.

    The operand rule of ``k + other`` and ``k * other`` and of
    :func:`~kernelclf.kernels.vector.as_kernel` (which also takes ``None``). A kernel
    *class* (``RBF`` instead of ``RBF()``) is refused with a ``TypeError``.
    """
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, type) and issubclass(kernel, Kernel):
        raise _kernel_class_error(kernel)
    if isinstance(kernel, str):
        try:
            return KERNEL_NAMES[kernel.lower()]()
        except KeyError:
            raise ValueError(f"unknown kernel name {kernel!r}; use one of {sorted(KERNEL_NAMES)} "
                             "or a kernelclf.kernels object") from None
    if callable(kernel):
        return CallableKernel(kernel)
    raise TypeError(f"cannot use {kernel!r} as a kernel")


def squared_feature_distances(kernel, X, Y=None):
    """Squared distances in feature space, ``k(x,x) - 2k(x,y) + k(y,y)`` (LKC eq. 1.2).

    ``kernel`` is a :class:`Kernel` object; negative round-off is clipped to zero, and
    with ``Y=None`` (``X`` against itself) the diagonal is exactly zero.
    """
    Yv = X if Y is None else Y
    K = kernel(X, Yv)
    dx = np.asarray(kernel.diag(X), dtype=float)
    dy = dx if Y is None else np.asarray(kernel.diag(Yv), dtype=float)
    d2 = np.maximum(dx[:, None] + dy[None, :] - 2.0 * K, 0.0)
    if Y is None:
        np.fill_diagonal(d2, 0.0)
    return d2
