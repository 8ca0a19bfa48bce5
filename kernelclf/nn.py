"""k-nearest-neighbour classification in a kernel-induced feature space.

LKC §1.2 (eq. 1.1-1.2, Fig. 1.6); book chapter 01.  The distance between two
inputs is measured after the feature map, ``||phi(x) - phi(x')||``, which a
kernel gives without computing ``phi``:

    ||phi(x) - phi(x')||^2 = k(x, x) - 2 k(x, x') + k(x', x')      (LKC eq. 1.2)

(:func:`kernelclf.kernels.feature_space_distances`).  With the linear kernel
this is the Euclidean distance of the book's Fig. 1.6; with the homogeneous
polynomial kernel ``<x, x'>^2`` it is the distance between the vectors of all
pairwise products ``x_i x_j``.

:class:`KernelNearestCentroid` is the cheap alternative of LKC p. 10: one
linear function per class, ``f_c(x) = <w_c, phi(x)> + b_c``, whose weight
vector ``w_c`` is the mean of the class's mapped images -- a kernel
classifier ``f_c(x) = sum_i alpha_i k(x_i, x) + b_c`` with ``alpha_i = 1/m_c``.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from .base import validate_inputs, validate_test_inputs
from .kernels import as_kernel, feature_space_distances

__all__ = ["KernelNearestNeighbors", "KernelNearestCentroid"]


def _take(X, mask):
    """Rows of an array, or items of a list of strings, where ``mask`` is true."""
    if isinstance(X, np.ndarray):
        return X[mask]
    return [x for x, keep in zip(X, mask) if keep]


class KernelNearestNeighbors(ClassifierMixin, BaseEstimator):
    """Majority vote of the ``k`` nearest training points in feature space.

    LKC §1.2, eq. (1.2); book chapter 01.  The classifier stores the whole
    training sample (the first drawback the book names) and computes the
    feature-space distance of each test point to every stored point.  Any
    number of classes is allowed.  Ties between equally frequent classes go to
    the smallest label (the class that comes first in ``classes_``), and ties
    in distance to the training point with the smaller index, as in
    scikit-learn's brute-force ``KNeighborsClassifier``.

    Parameters
    ----------
    n_neighbors : int, default 1
        Number of neighbours ``k`` that vote.
    kernel : kernel object, str, callable or None
        ``None`` means the linear kernel, i.e. Euclidean distance in input space
        (see :func:`kernelclf.kernels.as_kernel`).

    Attributes
    ----------
    classes_ : ndarray
        Sorted distinct training labels.
    kernel_ : Kernel
    X_fit_ : ndarray or list
        Stored training inputs.
    y_fit_ : ndarray of int
        Training labels as indices into ``classes_``.
    """

    def __init__(self, n_neighbors=1, kernel=None):
        self.n_neighbors = n_neighbors
        self.kernel = kernel

    def fit(self, X, y):
        """Store the training sample."""
        kernel = as_kernel(self.kernel)
        X = validate_inputs(X, kernel)
        y = column_or_1d(np.asarray(y), warn=True)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
        check_classification_targets(y)
        k = self.n_neighbors
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_neighbors must be a positive integer, got {k!r}")
        if k > len(X):
            raise ValueError(f"n_neighbors={k} exceeds the number of training points ({len(X)})")
        self.classes_, self.y_fit_ = np.unique(y, return_inverse=True)
        self.kernel_ = kernel
        self.X_fit_ = X
        if isinstance(X, np.ndarray):
            self.n_features_in_ = X.shape[1]
        return self

    def _validate_test(self, X):
        return validate_test_inputs(self, X)

    def kneighbors(self, X, n_neighbors=None):
        """Feature-space distances to, and indices of, the nearest training points.

        Returns ``(dist, ind)``, both of shape ``(n_test, k)``, sorted by
        increasing distance (stable: equal distances keep the training order).
        """
        X = self._validate_test(X)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= len(self.X_fit_):
            raise ValueError(f"n_neighbors must be an integer in [1, {len(self.X_fit_)}], got {k!r}")
        d2 = feature_space_distances(self.kernel_, X, self.X_fit_, squared=True)
        ind = np.argsort(d2, axis=1, kind="stable")[:, :k]
        return np.sqrt(np.take_along_axis(d2, ind, axis=1)), ind

    def predict_proba(self, X):
        """Fraction of the ``k`` neighbours in each class (columns follow ``classes_``)."""
        _, ind = self.kneighbors(X)
        votes = self.y_fit_[ind]
        counts = np.stack([(votes == c).sum(axis=1) for c in range(len(self.classes_))], axis=1)
        return counts / ind.shape[1]

    def predict(self, X):
        """Majority class among the ``k`` nearest neighbours."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class KernelNearestCentroid(ClassifierMixin, BaseEstimator):
    """Assign ``x`` to the class whose mean in feature space is closest.

    LKC §1.2, eq. (1.1) and the kernel expansion on p. 11; book chapter 01.
    For each class ``c`` with ``m_c`` training points the mean
    ``w_c = (1/m_c) sum_{i in c} phi(x_i)`` defines the linear function

        f_c(x) = <w_c, phi(x)> - ||w_c||^2 / 2
               = sum_{i in c} k(x_i, x) / m_c - sum_{i,j in c} k(x_i, x_j) / (2 m_c^2),

    and ``argmax_c f_c(x) = argmin_c ||phi(x) - w_c||``.  With the linear kernel
    this is scikit-learn's ``NearestCentroid``.  Ties go to the first class.

    Parameters
    ----------
    kernel : kernel object, str, callable or None
        ``None`` means the linear kernel.

    Attributes
    ----------
    classes_ : ndarray
    alpha_ : ndarray (n_classes, m)
        Signed expansion coefficients: ``alpha_[c, i] = 1/m_c`` if ``y_i = c``, else 0.
    intercept_ : ndarray (n_classes,)
        ``-||w_c||^2 / 2``.
    """

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y):
        """Compute the expansion coefficients and offsets of the class means."""
        kernel = as_kernel(self.kernel)
        X = validate_inputs(X, kernel)
        y = column_or_1d(np.asarray(y), warn=True)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
        check_classification_targets(y)
        self.classes_, idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("need at least two classes in y")
        onehot = (idx[None, :] == np.arange(len(self.classes_))[:, None]).astype(float)
        self.alpha_ = onehot / onehot.sum(axis=1, keepdims=True)
        # ||w_c||^2 = mean of the class's own Gram block (only the diagonal blocks are needed)
        self.intercept_ = np.array([
            -0.5 * np.mean(kernel(_take(X, idx == c))) for c in range(len(self.classes_))])
        self.kernel_ = kernel
        self.X_fit_ = X
        if isinstance(X, np.ndarray):
            self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """The class scores ``f_c(x)``, shape ``(n_test, n_classes)``."""
        X = validate_test_inputs(self, X, "alpha_")
        return self.kernel_(X, self.X_fit_) @ self.alpha_.T + self.intercept_

    def predict(self, X):
        """The class with the largest score."""
        scores = self.decision_function(X)
        return self.classes_[np.argmax(scores, axis=1)]
