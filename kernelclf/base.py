"""Shared plumbing for the binary kernel classifiers of the package.

Conventions (book chapter 00, "Notation"): labels are mapped to ``y in {-1, +1}``
internally, ``classes_[0]`` is the negative and ``classes_[1]`` the positive
class; the expansion is ``f(x) = sum_i alpha_i k(x_i, x)`` with *signed*
coefficients ``alpha_i`` and no bias unless an estimator says otherwise.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from .kernels import as_kernel

__all__ = ["BinaryKernelClassifier", "validate_binary", "validate_inputs", "validate_test_inputs",
           "labels_to_pm1"]


def labels_to_pm1(y):
    """Return ``(classes, y_pm)``: the two sorted labels and ``y`` as -1/+1 floats.

    Raises ``ValueError`` unless ``y`` holds exactly two distinct labels.
    """
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        raise ValueError(
            f"this classifier needs exactly two classes in y, got {len(classes)} "
            f"({classes.tolist()[:5]}); use sklearn.multiclass wrappers for more")
    return classes, np.where(y_idx == 1, 1.0, -1.0)


def validate_inputs(X, kernel=None, allow_strings=None):
    """Validate ``X`` for a kernel: a finite 2-D float array, or a list of
    strings when the kernel accepts strings."""
    if allow_strings is None:
        allow_strings = bool(getattr(as_kernel(kernel), "accepts_strings", False))
    if allow_strings:
        if isinstance(X, str):
            raise ValueError("X must be a sequence of strings, not a single string")
        X = list(X)
        if len(X) == 0:
            raise ValueError("X is empty")
        return X
    return check_array(X, dtype=np.float64, ensure_all_finite=True)


def validate_binary(X, y, kernel=None):
    """Validate a training sample: returns ``(X, y_pm, classes)``."""
    X = validate_inputs(X, kernel)
    y = np.asarray(y)
    if y.ndim != 1:
        y = column_or_1d(y, warn=True)
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity")
    classes, y_pm = labels_to_pm1(y)
    return X, y_pm, classes


def validate_test_inputs(estimator, X, fitted="X_fit_"):
    """Validate test inputs for a fitted kernel estimator (``kernel_``, ``X_fit_``).

    Raises ``NotFittedError`` before ``fit`` and a ``ValueError`` when a vector
    input has a different number of features than the training inputs.
    """
    check_is_fitted(estimator, fitted)
    X = validate_inputs(X, estimator.kernel_)
    n = getattr(estimator, "n_features_in_", None)
    if n is not None and isinstance(X, np.ndarray) and X.shape[1] != n:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} "
                         f"was fitted with {n} features")
    return X


class BinaryKernelClassifier(ClassifierMixin, BaseEstimator):
    """Mixin-style base: label bookkeeping, ``predict`` from ``decision_function``.

    Subclasses set ``classes_``, ``X_fit_`` (training inputs), ``alpha_``
    (signed expansion coefficients), optionally ``intercept_``, and a kernel in
    ``kernel_``. ``decision_function`` then evaluates
    ``f(x) = sum_i alpha_i k(x_i, x) + intercept_``.
    """

    def _set_training_data(self, X, classes):
        self.classes_ = classes
        if isinstance(X, np.ndarray):
            self.n_features_in_ = X.shape[1]

    def _validate_test(self, X):
        return validate_test_inputs(self, X, "classes_")

    def decision_function(self, X):
        """Real-valued output ``f(x)``; its sign is the predicted class."""
        X = self._validate_test(X)
        K = self.kernel_(X, self.X_fit_)
        return K @ self.alpha_ + getattr(self, "intercept_", 0.0)

    def predict(self, X):
        """Predict ``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``."""
        f = self.decision_function(X)
        return self.classes_[(np.asarray(f) > 0).astype(int)]
