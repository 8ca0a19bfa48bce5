"""The estimator contract shared by every classifier and regressor of the package.

Book chapter 00 (``book/00_preface.md``); its "Notation" section, the conventions of LKC §2.1
(labels ``y in {-1, +1}``) and eq. (2.54) (kernel expansions).

What every estimator gets from here
-----------------------------------
* **Parameter validation** through scikit-learn's ``_parameter_constraints`` (checked
  at the start of ``fit``); :class:`Real` and :class:`Int` are intervals that refuse
  booleans, so ``C=True`` is an error everywhere.
* **Input validation** through scikit-learn's ``validate_data`` (arrays: finite,
  2-D, float64; ``n_features_in_``, the feature-count message at predict time), or,
  when the kernel takes strings (``kernel.accepts_strings``), a list of strings.
* **One fit preamble**, :meth:`KernelMixin._fit_kernel`: the ``kernel`` parameter is
  turned into a *cloned* kernel object ``kernel_``, so changing the parameter after
  ``fit`` (``set_params(kernel__sigma=...)``) never changes a fitted model. Passing a
  kernel class instead of an instance (``kernel=RBF``) is a ``TypeError`` that says
  to pass ``RBF()``. Once the training inputs are validated, data-driven kernel
  parameters are fixed on ``kernel_`` (:meth:`kernelclf.kernels.closure.Kernel.resolve`:
  ``RBF(sigma='scale')`` gets the width of scikit-learn's ``gamma='scale'``), so
  ``kernel_`` holds numbers and ``kernel`` keeps ``'scale'``.
* **One row-taking helper**, :func:`kernelclf.kernels.rows.take_rows`, for arrays and lists
  of strings; and the training Gram matrix through :class:`kernelclf.kernels.gram.Gram`
  (with its numerical guard, and a memory check: a fit whose ``m x m`` arrays would not
  fit in memory is refused before they are allocated).
* **Binary labels**: any two labels, ``classes_[0]`` mapped to -1 and ``classes_[1]``
  to +1; the estimators declare themselves binary-only to scikit-learn (wrap them
  with :mod:`kernelclf.multiclass` for more classes).

Default kernels (``kernel=None``), in one place
-----------------------------------------------
================================================  =====================================
estimator                                         default kernel
================================================  =====================================
Gaussian process regression                       ``ARDRBF(sigma='scale')`` (one width
                                                  for all inputs; ``optimize=True``
                                                  adapts it, still one width)
Gaussian process classification, RVMs             ``RBF(sigma='scale')``
every other estimator with a ``kernel``           ``Linear()`` (the book's plain
                                                  inner product)
================================================  =====================================

``sigma='scale'`` is scikit-learn's default width (``gamma='scale'``,
``gamma = 1 / (N Var(X))``, i.e. ``sigma = sqrt(N Var(X) / 2)``), fixed from the training
inputs at ``fit``; the name ``kernel='rbf'`` means the same kernel. Each estimator states
its default in the class attribute ``_default_kernel`` (a zero-argument factory);
:func:`kernelclf.discovery.default_kernel_table` lists them.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions, make_constraint
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .kernels.closure import Kernel, _CachedParamNames, sparse_refusal
from .kernels.gram import Gram, cross_gram
from .kernels.gram_guard import check_memory
from .kernels.rows import n_rows
from .kernels.vector import Linear, as_kernel

__all__ = ["KernelMixin", "BinaryKernelClassifier", "Real", "Int", "KERNEL_CONSTRAINT",
           "labels_to_pm1", "validate_test_inputs"]


class Real(Interval):
    """``Interval(numbers.Real, ...)`` that refuses booleans."""

    def __init__(self, left=None, right=None, closed="neither"):
        super().__init__(numbers.Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


class Int(Interval):
    """``Interval(numbers.Integral, ...)`` that refuses booleans."""

    def __init__(self, left=None, right=None, closed="left"):
        super().__init__(numbers.Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


#: what the ``kernel`` parameter of every estimator accepts
KERNEL_CONSTRAINT = [None, StrOptions({"linear", "rbf", "poly", "polynomial"}), callable]


def _two_labels(y):
    """The labels of ``y`` (1-D) as a sorted array, when they are certainly a
    classification target with at most two labels by scikit-learn's rules
    (``type_of_target`` 'binary'): booleans, integers, or floats with at most two
    distinct values, whole numbers below 2^53; else None. Then scikit-learn's check,
    which costs more than the fit of a small SVM, is skipped (and ``np.unique``: the
    labels are known); anything else gets it."""
    if not isinstance(y, np.ndarray) or y.ndim != 1 or y.dtype.kind not in "biuf" \
            or y.size == 0:
        return None
    first = y[0]
    other = y[y != first]
    if other.size and np.any(other != other[0]):
        return None                             # a third value
    two = np.array([first, other[0]] if other.size else [first], dtype=y.dtype)
    if y.dtype.kind == "f" and not (np.all(np.abs(two) < 2.0 ** 53)
                                    and np.all(two == np.floor(two))):
        return None
    two.sort()
    return two


def _plain_binary(y):
    """Whether scikit-learn's target check may be skipped for ``y`` (:func:`_two_labels`)."""
    return _two_labels(y) is not None


def labels_to_pm1(y):
    """Return ``(classes, y_pm)``: the two sorted labels and ``y`` as -1/+1 floats.

    Raises ``ValueError`` unless ``y`` holds exactly two distinct labels.
    """
    if not (isinstance(y, np.ndarray) and y.ndim == 1):     # (validated y: as it is)
        y = column_or_1d(y, warn=True)
    classes = _two_labels(y)
    if classes is not None and classes.size == 2:           # (np.unique's classes)
        return classes, np.where(y == classes[1], 1.0, -1.0)
    if classes is None:
        check_classification_targets(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) == 1:
        raise ValueError(
            f"this classifier needs two classes in y, got 1 class ({classes.tolist()})")
    if len(classes) > 2:
        raise ValueError(
            "Only binary classification is supported. The type of the target is "
            f"{type_of_target(y)} ({len(classes)} classes: {classes.tolist()[:5]}); wrap the "
            "estimator in kernelclf.multiclass (one-versus-one, DAG, one-versus-rest)")
    return classes, np.where(y_idx == 1, 1.0, -1.0)


_MADE = {}
#: the types of parameter values whose verdict is kept (:func:`_made_constraints`): for
#: them the constraints' ``is_satisfied_by`` depends on the type and the value only
_SCALARS = frozenset((type(None), bool, int, float, str))
_KEPT = 256             # verdicts kept per constraint list at most


def _made_constraints(src):
    """scikit-learn's ``make_constraint`` of each entry of a parameter's constraint list,
    kept per list (and remade when the list no longer equals the one they were made from),
    with the set of ``(type, value)`` of plain values (``None``, booleans, integers,
    floats, strings) that satisfied one of them: ``(constraints, accepted)``."""
    hit = _MADE.get(id(src))
    if hit is None or hit[0] is not src or hit[1] != src:
        hit = _MADE[id(src)] = (src, list(src), [make_constraint(c) for c in src], set())
    return hit[2], hit[3]


def _plain_sample(X, y):
    """Whether scikit-learn's ``validate_data(X, y, dtype=np.float64, ensure_all_finite=True)``
    would return ``X`` itself and ``y`` reshaped to 1-D, raising nothing and warning
    nothing: ``X`` a plain 2-D float64 NumPy array with at least one row and one column,
    ``y`` a plain 1-D array of booleans or numbers of the same length, both finite (the
    sum first, as scikit-learn tests; a sum that overflows sends the sample to
    scikit-learn's check). Anything else goes through scikit-learn."""
    if not (type(X) is np.ndarray and type(y) is np.ndarray and X.dtype == np.float64
            and X.ndim == 2 and y.ndim == 1 and X.shape[0] >= 1 and X.shape[1] >= 1
            and y.shape[0] == X.shape[0] and y.dtype.kind in "biuf"):
        return False
    if not np.isfinite(np.add.reduce(X, axis=None)):
        return False
    return y.dtype.kind != "f" or bool(np.isfinite(np.add.reduce(y)))


def _check_strings(X):
    if isinstance(X, (str, bytes)):
        raise ValueError("X must be a sequence of strings, not a single string; wrap it "
                         f"in a list: [{X!r}]")
    if isinstance(X, np.ndarray) and X.ndim != 1:
        raise ValueError(f"X must be a 1-D sequence of strings, got shape {X.shape}")
    try:
        X = list(X)
    except TypeError:
        raise ValueError(f"X must be a sequence of strings, got {type(X).__name__}") from None
    if len(X) == 0:
        raise ValueError("X is empty: Found array with 0 sample(s) (shape=(0,)); at least "
                         "one string is required")
    return X


class KernelMixin(_CachedParamNames):
    """The fit preamble and input validation of a kernel estimator.

    Subclasses define ``kernel`` in ``__init__`` (or nothing, for estimators
    without a kernel) and may set ``_default_kernel``. The parameter names that
    scikit-learn's ``get_params`` reads from ``__init__`` are kept per class
    (``kernelclf.kernels.closure._CachedParamNames``).
    """

    _default_kernel = Linear
    #: the estimator computes with scipy.sparse inputs when its kernel does (the dual
    #: machines: their only use of the inputs is the kernel)
    _sparse_inputs = False

    # -- parameters -------------------------------------------------------
    def _validate_params(self):
        """scikit-learn's check of the parameters against ``_parameter_constraints``
        (``BaseEstimator._validate_params``), with each list of constraints turned into
        constraint objects once (:func:`_made_constraints`) instead of at every fit (a
        twentieth of a small fit's time), and a plain value (``None``, a boolean, an
        integer, a float, a string) that satisfied its constraints before passing without
        asking them again (their verdict on such a value depends on its type and value
        only); a parameter that satisfies none of its constraints goes to scikit-learn's
        check, which raises its error."""
        spec = self._parameter_constraints
        for name, val in self.get_params(deep=False).items():
            src = spec.get(name)
            if src is None or (isinstance(src, str) and src == "no_validation"):
                continue
            made, accepted = _made_constraints(src)
            key = (type(val), val) if type(val) in _SCALARS else None
            if key is not None and key in accepted:     # (the same verdict as before)
                continue
            if not any(c.is_satisfied_by(val) for c in made):
                return super()._validate_params()
            if key is not None:
                if len(accepted) >= _KEPT:
                    accepted.clear()
                accepted.add(key)
        return None

    # -- kernel -----------------------------------------------------------
    def _fit_kernel(self):
        """Set ``kernel_``: a clone of the ``kernel`` parameter as a kernel object."""
        kernel = getattr(self, "kernel", None)
        if kernel is None:
            self.kernel_ = self._default_kernel()
        else:
            k = as_kernel(kernel)
            self.kernel_ = clone(k) if isinstance(k, Kernel) else k
        return self.kernel_

    def _resolve_kernel(self, X):
        """Fix the data-driven parameters of ``kernel_`` from the validated training
        inputs ``X`` (e.g. ``RBF(sigma='scale')``); the ``kernel`` parameter is untouched."""
        kernel = getattr(self, "kernel_", None)
        if isinstance(kernel, Kernel):
            self.kernel_ = kernel.resolve(X)
        return getattr(self, "kernel_", None)

    def _takes_strings(self):
        kernel = getattr(self, "kernel_", None)
        if kernel is None:
            kernel = getattr(self, "kernel", None)
            kernel = None if kernel is None else as_kernel(kernel)
        return bool(getattr(kernel, "accepts_strings", False))

    def _takes_sparse(self):
        """Whether sparse inputs are taken: the estimator computes with them
        (``_sparse_inputs``) and so does its kernel (``kernel.accepts_sparse``)."""
        if not self._sparse_inputs:
            return False
        kernel = getattr(self, "kernel_", None)
        if kernel is None:
            kernel = getattr(self, "kernel", None)
            try:
                kernel = self._default_kernel() if kernel is None else as_kernel(kernel)
            except (TypeError, ValueError):
                return False
        return bool(getattr(kernel, "accepts_sparse", False))

    def _sparse_option(self, X):
        """``accept_sparse`` for scikit-learn's validation: 'csr' when sparse inputs are
        taken; a clear ``TypeError`` for sparse inputs to an estimator that would take
        them with another kernel."""
        if self._takes_sparse():
            return "csr"
        if self._sparse_inputs and sp.issparse(X):
            raise TypeError(sparse_refusal(getattr(self, "kernel_", None) or self.kernel))
        return False

    # -- inputs -----------------------------------------------------------
    def _validate_X(self, X, reset):
        if self._takes_strings():
            if reset and hasattr(self, "n_features_in_"):
                del self.n_features_in_
            return _check_strings(X)
        return validate_data(self, X, reset=reset, dtype=np.float64,
                             ensure_all_finite=True, accept_sparse=self._sparse_option(X))

    def _validate_Xy(self, X, y, y_numeric=False):
        """Validate a training sample; returns ``(X, y)`` (``y`` 1-D).

        Also fixes the data-driven parameters of ``kernel_`` from ``X``
        (:meth:`_resolve_kernel`), so every estimator that validates its training sample
        here fits with numbers.
        """
        if self._takes_strings():
            X = self._validate_X(X, reset=True)
            y = column_or_1d(y, warn=True)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} samples but y has {len(y)}: inconsistent "
                                 "numbers of samples")
        elif _plain_sample(X, y):
            # what validate_data returns and sets for these inputs, without its cost (a
            # tenth of a small fit): X itself, y as column_or_1d gives it, the feature count
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            self.n_features_in_ = X.shape[1]
            y = y.reshape(-1)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True,
                                 y_numeric=y_numeric, accept_sparse=self._sparse_option(X))
            y = column_or_1d(y, warn=True) if np.ndim(y) > 1 else y
        if y_numeric:
            y = np.asarray(y, dtype=np.float64)
            if not np.all(np.isfinite(y)):
                raise ValueError("Input y contains NaN or infinity.")
        self._resolve_kernel(X)
        return X, y

    def _validate_test(self, X, fitted=None):
        """Validate test inputs: ``NotFittedError`` before ``fit``, same feature count."""
        check_is_fitted(self, fitted)
        return self._validate_X(X, reset=False)

    def _training_gram(self, X, ridge=0.0, copies=None, **kwargs):
        """The training Gram matrix as a :class:`kernelclf.kernels.gram.Gram` (guard included).

        ``copies``: the number of ``m x m`` float arrays the fit will hold at its peak; a fit
        that would not fit in memory is then refused before anything is allocated
        (:func:`kernelclf.kernels.gram_guard.check_memory`, which names the size).
        """
        if copies:
            m = n_rows(X)
            check_memory(m, m, copies=copies, kernel=self.kernel_,
                         what=f"training Gram matrix of {type(self).__name__}")
        return Gram(self.kernel_, X, ridge=ridge, **kwargs)

    def _kernel_rows(self, X, Y):
        """``k(X, Y)`` checked for NaN/inf."""
        return cross_gram(self.kernel_, X, Y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self._takes_strings():
            tags.input_tags.string = True
            tags.input_tags.two_d_array = False
        tags.input_tags.sparse = self._takes_sparse()
        return tags


class BinaryKernelClassifier(KernelMixin, ClassifierMixin, BaseEstimator):
    """Base of the binary classifiers: labels, the expansion, ``predict``.

    Subclasses set ``classes_`` (through :meth:`_fit_binary`), ``X_fit_``,
    ``alpha_`` (signed expansion coefficients), optionally ``intercept_``, and
    ``kernel_``. ``decision_function`` evaluates
    ``f(x) = sum_i alpha_i k(x_i, x) + intercept_``.
    """

    #: What the classifier is, for kernelclf.bounds.report_tags (see that module's docstring): the
    #: ``family`` of rows it gets, its ``margin`` scale ('soft', 'hard') and ``bias`` (True,
    #: False); ``None`` = unknown / read from the fitted model. Each family overrides it.
    _bound_tags = {"family": None, "margin": None, "bias": None}

    def _fit_binary(self, X, y):
        """The fit preamble: validate parameters, clone the kernel, validate the
        sample, map the labels. Returns ``(X, y_pm)``."""
        self._validate_params()
        self._fit_kernel()
        X, y = self._validate_Xy(X, y)
        self.classes_, y_pm = labels_to_pm1(y)
        return X, y_pm

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def decision_function(self, X):
        """Real-valued output ``f(x)``; its sign is the predicted class."""
        X = self._validate_test(X)
        b = getattr(self, "intercept_", 0.0)
        if n_rows(self.X_fit_) == 0:         # an empty expansion (e.g. every weight pruned)
            return np.full(n_rows(X), float(b))
        return self._kernel_rows(X, self.X_fit_) @ self.alpha_ + b

    def predict(self, X):
        """Predict ``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``."""
        f = self.decision_function(X)
        return self.classes_[(np.asarray(f) > 0).astype(int)]


def validate_test_inputs(estimator, X, fitted=None):
    """Validate test inputs of a fitted estimator of the package (see :class:`KernelMixin`)."""
    return estimator._validate_test(X, fitted)
