"""k-nearest-neighbour and nearest-centroid classification in a kernel feature space.

Book chapter 01 (``book/01_introduction.md``); LKC §1.2 (eq. 1.1-1.2, Fig. 1.6).
The distance between two
inputs is measured after the feature map, ``||phi(x) - phi(x')||``, which a
kernel gives without computing ``phi``:

    ||phi(x) - phi(x')||^2 = k(x, x) - 2 k(x, x') + k(x', x')      (LKC eq. 1.2)

(:func:`kernelclf.kernels.gram_ops.feature_space_distances`).  With the linear kernel
this is the Euclidean distance of the book's Fig. 1.6; with the homogeneous
polynomial kernel ``<x, x'>^2`` it is the distance between the vectors of all
pairwise products ``x_i x_j``.

:class:`KernelNearestCentroid` is the cheap alternative of LKC p. 10: one
linear function per class, ``f_c(x) = <w_c, phi(x)> + b_c``, whose weight
vector summarises the class's images (LKC does not say how; here ``w_c`` is the mean
of the class's mapped images) -- a kernel classifier
``f_c(x) = sum_i alpha_i k(x_i, x) + b_c`` with ``alpha_i = 1/m_c``.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets

from .base import KERNEL_CONSTRAINT, Int, KernelMixin
from .kernels.rows import take_rows

__all__ = ["KernelNearestNeighbors", "KernelNearestCentroid"]


def _squared_distances(diag_x, K, diag_y):
    """``k(x,x) - 2 k(x,x') + k(x',x')`` with negative round-off clipped (LKC eq. 1.2)."""
    return np.maximum(diag_x[:, None] + diag_y[None, :] - 2.0 * K, 0.0)


class _MulticlassKernelClassifier(KernelMixin, ClassifierMixin, BaseEstimator):
    """Fit preamble of the (multiclass) classifiers of this module."""

    def _fit_preamble(self, X, y):
        self._validate_params()
        self._fit_kernel()
        X, y = self._validate_Xy(X, y)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        return X, y_idx


class KernelNearestNeighbors(_MulticlassKernelClassifier):
    """Majority vote of the ``k`` nearest training points in feature space.

    LKC §1.2, eq. (1.2); book chapter 01.  The classifier stores the whole
    training sample (the second of the two problems LKC names on p. 10) and
    computes the feature-space distance of each test point to every stored point.  Any
    number of classes is allowed.  Ties between equally frequent classes go to
    the smallest label (the class that comes first in ``classes_``), and ties
    in distance to the training point with the smaller index (a stable sort).
    scikit-learn's brute-force ``KNeighborsClassifier`` does not promise an order
    among equidistant points (it takes them as its partial sort leaves them), so the
    two can differ when the ``k``-th neighbour is tied in distance.

    At ``fit`` the training Gram matrix passes the numerical guard of
    :class:`kernelclf.kernels.gram.Gram` (finite values, positive semi-definite: eq. 1.2
    is a distance only for a valid kernel), and its diagonal ``k(x_i, x_i)`` is kept.

    Parameters
    ----------
    kernel : kernel object, str, callable or None
        ``None`` means the linear kernel, i.e. Euclidean distance in input space
        (see :func:`kernelclf.kernels.vector.as_kernel`). Cloned into ``kernel_``. The
        first parameter, as in the package's other estimators (it used to be
        ``n_neighbors``: pass that by keyword; a whole number given first is refused at
        ``fit`` with this advice).
    n_neighbors : int, default 1
        Number of neighbours ``k`` that vote.

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

    _parameter_constraints = {"n_neighbors": [Int(1, None, closed="left")],
                              "kernel": KERNEL_CONSTRAINT}

    def __init__(self, kernel=None, n_neighbors=1):
        self.kernel = kernel
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        """Store the training sample."""
        if isinstance(self.kernel, numbers.Integral) and not isinstance(self.kernel, bool):
            from sklearn.utils._param_validation import InvalidParameterError

            raise InvalidParameterError(
                f"The 'kernel' parameter of KernelNearestNeighbors must be a kernel, got "
                f"{self.kernel!r}: it takes the kernel first, as the package's other "
                f"estimators do, so KernelNearestNeighbors({self.kernel!r}) reads "
                f"{self.kernel!r} as the kernel. Pass the number of neighbours by keyword, "
                f"KernelNearestNeighbors(n_neighbors={self.kernel!r})")
        X, self.y_fit_ = self._fit_preamble(X, y)
        m = len(self.y_fit_)
        if self.n_neighbors > m:
            raise ValueError(f"n_neighbors={self.n_neighbors} exceeds the number of training "
                             f"points (n_samples={m})")
        self.diag_fit_ = np.array(self._training_gram(X).diag, dtype=float)
        self.X_fit_ = X
        return self

    def kneighbors(self, X, n_neighbors=None):
        """Feature-space distances to, and indices of, the nearest training points.

        Returns ``(dist, ind)``, both of shape ``(n_test, k)``, sorted by
        increasing distance (stable: equal distances keep the training order).
        """
        X = self._validate_test(X)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        m = len(self.diag_fit_)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) \
                or not 1 <= k <= m:
            raise ValueError(f"n_neighbors must be an integer in [1, {m}], got {k!r}")
        K = self._kernel_rows(X, self.X_fit_)
        diag = np.asarray(self.kernel_.diag(X), dtype=float)
        if not np.all(np.isfinite(diag)):
            raise ValueError(f"the kernel {self.kernel_!r} gives NaN or infinity on the test "
                             "inputs (kernel values overflow); rescale them")
        d2 = _squared_distances(diag, K, self.diag_fit_)
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


class KernelNearestCentroid(_MulticlassKernelClassifier):
    """Assign ``x`` to the class whose mean in feature space is closest.

    LKC §1.2, eq. (1.1) and the kernel expansion on p. 11; book chapter 01.
    For each class ``c`` with ``m_c`` training points the mean
    ``w_c = (1/m_c) sum_{i in c} phi(x_i)`` defines the linear function

        f_c(x) = <w_c, phi(x)> - ||w_c||^2 / 2
               = sum_{i in c} k(x_i, x) / m_c - sum_{i,j in c} k(x_i, x_j) / (2 m_c^2),

    and ``argmax_c f_c(x) = argmin_c ||phi(x) - w_c||``.  With the linear kernel
    this is scikit-learn's ``NearestCentroid``.  Ties go to the first class.

    The training Gram matrix passes the numerical guard of
    :class:`kernelclf.kernels.gram.Gram` (with an indefinite kernel the "means" are not
    points of a feature space and the rule inverts).

    Parameters
    ----------
    kernel : kernel object, str, callable or None
        ``None`` means the linear kernel. Cloned into ``kernel_``.

    Attributes
    ----------
    classes_ : ndarray
    alpha_ : ndarray (n_classes, m)
        Signed expansion coefficients: ``alpha_[c, i] = 1/m_c`` if ``y_i = c``, else 0.
    intercept_ : ndarray (n_classes,)
        ``-||w_c||^2 / 2``.
    """

    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT}

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y):
        """Compute the expansion coefficients and offsets of the class means."""
        X, idx = self._fit_preamble(X, y)
        if len(self.classes_) < 2:
            raise ValueError("need at least two classes in y, got 1 class "
                             f"({self.classes_.tolist()})")
        onehot = (idx[None, :] == np.arange(len(self.classes_))[:, None]).astype(float)
        self.alpha_ = onehot / onehot.sum(axis=1, keepdims=True)
        gram = self._training_gram(X)
        # ||w_c||^2 = mean of the class's own Gram block (only the diagonal blocks are needed)
        blocks = []
        for c in range(len(self.classes_)):
            members = np.flatnonzero(idx == c)
            if gram.precomputed:
                block = gram.columns(members)[members]
            else:
                block = self._kernel_rows(take_rows(X, members), take_rows(X, members))
            blocks.append(-0.5 * np.mean(block))
        self.intercept_ = np.array(blocks)
        self.X_fit_ = X
        return self

    def class_scores(self, X):
        """The class scores ``f_c(x)``, shape ``(n_test, n_classes)``."""
        X = self._validate_test(X)
        return self._kernel_rows(X, self.X_fit_) @ self.alpha_.T + self.intercept_

    def decision_function(self, X):
        """Scores in scikit-learn's convention.

        With three or more classes the class scores ``f_c(x)`` (shape
        ``(n_test, n_classes)``, as :meth:`class_scores`); with two classes the
        difference ``f_1(x) - f_0(x)``, positive for ``classes_[1]``.
        """
        scores = self.class_scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X):
        """The class with the largest score (ties: the first class)."""
        scores = self.class_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]
