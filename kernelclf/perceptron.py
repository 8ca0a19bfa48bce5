"""Perceptron learning: primal, dual/kernel, permutation, and mistake bounds.

Book chapter 03 (``book/03_perceptron.md``). Sources: LKC §2.2.1 and App. D.1
(Algorithms 1-3), Theorem 2.31 with its proof in App. B.4 (Novikoff), §5.2.2
(Theorem 5.23, Examples 5.24-5.25); BPM §3.2 and App. B, Algorithm 1.

All learners here are *mistake driven*: they sweep over the training sample and
change the hypothesis only on an example it gets wrong, with the book's test
``y_j f(x_j) <= 0`` (a point on the hyperplane counts as a mistake). The
hyperplanes pass through the origin (no bias), as in the book. The training
stops after the first sweep (epoch) without a mistake; on a sample that is not
linearly separable in feature space that never happens, so every learner stops
after ``max_epochs`` sweeps, sets ``converged_ = False`` and emits a
:class:`sklearn.exceptions.ConvergenceWarning`.

Conventions (book chapter 00): ``alpha_`` holds *signed* coefficients,
``f(x) = sum_i alpha_i k(x_i, x)``; after training each ``alpha_i`` equals
``y_i`` times the number of updates made on example ``i``.
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, check_random_state

from .base import BinaryKernelClassifier, validate_binary
from .kernels import Linear, as_kernel

__all__ = [
    "Perceptron", "KernelPerceptron", "perceptron_on_permutation",
    "geometric_margin", "novikoff_bound", "mistake_bound_risk",
    "halving_algorithm", "HalvingResult",
]


def _check_max_epochs(max_epochs):
    if not isinstance(max_epochs, numbers.Integral) or isinstance(max_epochs, bool) \
            or max_epochs < 1:
        raise ValueError(f"max_epochs must be a positive integer, got {max_epochs!r}")
    return int(max_epochs)


def _epoch_orders(m, shuffle, random_state):
    """Yield the visiting order of every epoch: ``0..m-1``, or a fresh random
    permutation per epoch when ``shuffle`` is true."""
    rng = check_random_state(random_state) if shuffle else None
    identity = np.arange(m)
    while True:
        yield rng.permutation(m) if shuffle else identity


def _warn_not_separated(n_epochs, n_updates, who):
    warnings.warn(
        f"{who}: the training sample was not separated after {n_epochs} epochs "
        f"({n_updates} updates); it may not be linearly separable in feature space "
        "(increase max_epochs, or use a soft-margin method)",
        ConvergenceWarning, stacklevel=3)


def _dual_sweeps(column, y, orders, max_epochs, callback=None):
    """Algorithm 3 of LKC App. D.1 (kernel perceptron with cached outputs).

    ``column(j)`` returns the j-th column of the Gram matrix, ``k(x_i, x_j)``
    for all i; it is called once per mistake. ``orders`` yields the visiting
    order of each epoch. Returns ``(alpha, o, mistakes, n_epochs, converged)``.
    """
    m = len(y)
    alpha = np.zeros(m)
    o = np.zeros(m)
    mistakes = []
    for epoch in range(1, max_epochs + 1):
        order = next(orders)
        clean = True
        for j in order:
            if y[j] * o[j] <= 0:
                alpha[j] += y[j]
                o += y[j] * np.asarray(column(j), dtype=float).ravel()
                mistakes.append(int(j))
                clean = False
                if callback is not None:
                    callback(int(j), alpha.copy(), o.copy())
        if clean:
            return alpha, o, mistakes, epoch, True
    return alpha, o, mistakes, max_epochs, False


class Perceptron(BinaryKernelClassifier):
    """Rosenblatt's perceptron in primal variables (LKC Algorithm 1, App. D.1; §2.2.1).

    Starting from ``w = 0``, sweep over the sample; whenever
    ``y_j <x_j, w> <= 0`` add ``y_j x_j`` to ``w``. Stop after a sweep without
    mistakes. The hyperplane passes through the origin (no bias). On separable
    data Novikoff's theorem (LKC Theorem 2.31) bounds the number of updates by
    ``(max_i ||x_i|| / gamma)^2`` for any margin ``gamma`` achievable on the sample.
    Book chapter 03.

    Parameters
    ----------
    max_epochs : int, default=1000
        Maximum number of sweeps over the sample.
    shuffle : bool, default=False
        Visit the sample in a fresh random order every epoch (the book's
        algorithm uses the fixed order ``1..m``).
    random_state : int, RandomState or None
        Seed for ``shuffle``.
    callback : callable or None
        Debugging/teaching hook called after every update as
        ``callback(j, w)`` with the index ``j`` of the mistake and a copy of
        the new weight vector.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weight vector ``w`` (eq. 2.17: ``w = sum over updates of y_j x_j``).
    n_updates_ : int
        Number of mistakes (= updates) made during training.
    n_epochs_ : int
        Number of sweeps made (including the final mistake-free one).
    converged_ : bool
        Whether a mistake-free sweep was reached within ``max_epochs``.
    mistake_indices_ : ndarray of int
        Training indices of the updates, in the order they were made.
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (``y = +1``).
    """

    def __init__(self, max_epochs=1000, shuffle=False, random_state=None, callback=None):
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.callback = callback

    def fit(self, X, y):
        """Run Algorithm 1 on ``(X, y)``; any two labels are mapped to -1/+1."""
        max_epochs = _check_max_epochs(self.max_epochs)
        X, y_pm, classes = validate_binary(X, y)
        self._set_training_data(X, classes)
        self.kernel_ = Linear()
        m, n = X.shape
        w = np.zeros(n)
        mistakes = []
        orders = _epoch_orders(m, self.shuffle, self.random_state)
        converged = False
        epoch = 0
        for epoch in range(1, max_epochs + 1):
            clean = True
            for j in next(orders):
                if y_pm[j] * (X[j] @ w) <= 0:
                    w = w + y_pm[j] * X[j]
                    mistakes.append(int(j))
                    clean = False
                    if self.callback is not None:
                        self.callback(int(j), w.copy())
            if clean:
                converged = True
                break
        self.coef_ = w
        self.n_updates_ = len(mistakes)
        self.n_epochs_ = epoch
        self.converged_ = converged
        self.mistake_indices_ = np.asarray(mistakes, dtype=int)
        if not converged:
            _warn_not_separated(epoch, len(mistakes), "Perceptron")
        return self

    def decision_function(self, X):
        """Real-valued output ``<x, w>``; its sign is the predicted class."""
        check_is_fitted(self, "coef_")
        X = self._validate_test(X)
        return X @ self.coef_


class KernelPerceptron(BinaryKernelClassifier):
    """Kernel perceptron in dual variables with cached outputs
    (LKC Algorithms 2-3, App. D.1; BPM §3.2).

    The weight vector is kept as ``w = sum_i alpha_i phi(x_i)`` (signed
    ``alpha``) together with the cached outputs ``o = G alpha`` on the training
    points. On a mistake at ``j`` (``y_j o_j <= 0``): ``alpha_j += y_j`` and
    ``o += y_j G[:, j]``. Only that one Gram column is evaluated, so the memory is
    O(m) and the number of kernel columns computed equals the number of
    mistakes. Algorithm 2 (which recomputes ``o_j`` from scratch) visits the same
    points and returns the same ``alpha``. Book chapter 03.

    Parameters
    ----------
    kernel : None, str, callable or kernelclf.kernels.Kernel
        ``None`` means the linear kernel (then ``X' alpha`` equals the primal
        :class:`Perceptron` weight vector for the same visiting order).
    max_epochs : int, default=1000
    shuffle : bool, default=False
    random_state : int, RandomState or None
    callback : callable or None
        Called after every update as ``callback(j, alpha, o)`` (copies), e.g. to
        check that the cache ``o`` equals ``G alpha`` or to animate training.

    Attributes
    ----------
    alpha_ : ndarray of shape (m,)
        Signed expansion coefficients; ``alpha_i / y_i`` is the number of
        updates made on example ``i``.
    outputs_ : ndarray of shape (m,)
        Final cached outputs ``o = G alpha`` on the training sample.
    X_fit_ : training inputs
    kernel_ : Kernel
    n_updates_, n_epochs_, converged_, mistake_indices_ : as in :class:`Perceptron`
    n_kernel_rows_ : int
        Number of Gram columns (rows, by symmetry) evaluated; equals ``n_updates_``.
    classes_ : ndarray of shape (2,)
    """

    def __init__(self, kernel=None, max_epochs=1000, shuffle=False, random_state=None,
                 callback=None):
        self.kernel = kernel
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.callback = callback

    def fit(self, X, y):
        """Run Algorithm 3 on ``(X, y)``; any two labels are mapped to -1/+1."""
        max_epochs = _check_max_epochs(self.max_epochs)
        kernel = clone(as_kernel(self.kernel))
        X, y_pm, classes = validate_binary(X, y, kernel)
        self._set_training_data(X, classes)
        self.kernel_ = kernel
        self.X_fit_ = X
        m = len(y_pm)
        counter = [0]

        def column(j):
            counter[0] += 1
            return kernel(X, X[j:j + 1])

        orders = _epoch_orders(m, self.shuffle, self.random_state)
        alpha, o, mistakes, epochs, converged = _dual_sweeps(
            column, y_pm, orders, max_epochs, self.callback)
        self.alpha_ = alpha
        self.outputs_ = o
        self.n_updates_ = len(mistakes)
        self.n_epochs_ = epochs
        self.converged_ = converged
        self.mistake_indices_ = np.asarray(mistakes, dtype=int)
        self.n_kernel_rows_ = counter[0]
        if not converged:
            _warn_not_separated(epochs, len(mistakes), "KernelPerceptron")
        return self


def _check_gram_labels(G, y):
    G = np.asarray(G, dtype=float)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square Gram matrix, got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("G contains NaN or infinity")
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != G.shape[0]:
        raise ValueError(f"G has {G.shape[0]} rows but y has {y.shape[0]} labels")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold labels -1 and +1")
    return G, y


def perceptron_on_permutation(G, y, order, max_epochs=1000):
    """Dual perceptron visiting the sample in the order ``order``
    (BPM App. B, Algorithm 1; BPM §3.2).

    Every epoch visits ``order[0], order[1], ...``; on a mistake at
    ``p = order[i]`` the update is ``alpha_p += y_p`` and ``o += y_p G[:, p]``.
    The printed algorithm increments ``alpha_i`` instead of ``alpha_Pi(i)``
    (erratum E11); this function indexes the coefficient by ``Pi(i)``, so the
    returned ``alpha`` is in the original sample order and ``G alpha`` are the
    outputs. Different permutations give (possibly) different points of version
    space, which the Bayes point machine averages (book chapter 12).

    Parameters
    ----------
    G : (m, m) Gram matrix
    y : (m,) labels in {-1, +1}
    order : (m,) permutation of ``0..m-1``
    max_epochs : int

    Returns
    -------
    alpha : ndarray of shape (m,)
        Signed coefficients; if the run converged, ``y_i (G alpha)_i > 0`` for all i.
        If it did not, a ConvergenceWarning is emitted and the last ``alpha`` returned.
    """
    max_epochs = _check_max_epochs(max_epochs)
    G, y = _check_gram_labels(G, y)
    order = np.asarray(order)
    m = len(y)
    if order.shape != (m,) or not np.array_equal(np.sort(order), np.arange(m)):
        raise ValueError(f"order must be a permutation of 0..{m - 1}")

    def same_order():
        while True:
            yield order

    alpha, _, mistakes, epochs, converged = _dual_sweeps(
        lambda j: G[:, j], y, same_order(), max_epochs)
    if not converged:
        _warn_not_separated(epochs, len(mistakes), "perceptron_on_permutation")
    return alpha


def geometric_margin(X_or_G, y, w_or_alpha, precomputed=False):
    """Geometric margin ``gamma_z(w) = min_i y_i <x_i, w> / ||w||`` (LKC Def. 2.30).

    With ``precomputed=True`` the first argument is a Gram matrix ``G`` and
    ``w_or_alpha`` holds expansion coefficients ``alpha``
    (``w = sum_i alpha_i phi(x_i)``), so the margin is
    ``min_i y_i (G alpha)_i / sqrt(alpha' G alpha)``. Negative when ``w``
    misclassifies a point.
    """
    y = np.asarray(y, dtype=float).ravel()
    v = np.asarray(w_or_alpha, dtype=float).ravel()
    if precomputed:
        G, y = _check_gram_labels(X_or_G, y)
        if v.shape != y.shape:
            raise ValueError(f"alpha must have {len(y)} entries, got {v.shape}")
        out = G @ v
        norm = math.sqrt(max(float(v @ out), 0.0))
    else:
        X = np.asarray(X_or_G, dtype=float)
        if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != v.shape[0]:
            raise ValueError(f"shapes do not match: X {X.shape}, y {y.shape}, w {v.shape}")
        out = X @ v
        norm = float(np.linalg.norm(v))
    if norm == 0.0:
        raise ValueError("the weight vector is zero; its margin is undefined")
    return float(np.min(y * out) / norm)


def novikoff_bound(X_or_G, y, margin, precomputed=False):
    """Novikoff's mistake bound ``(varsigma / gamma)^2`` (LKC Theorem 2.31, App. B.4).

    ``varsigma = max_i ||phi(x_i)||`` is the radius of the smallest ball about
    the origin containing the (mapped) sample.

    Parameters
    ----------
    X_or_G : (m, n) inputs, or (m, m) Gram matrix when ``precomputed=True``
    y : (m,) labels in {-1, +1}
    margin : float or array
        Either a geometric margin ``gamma > 0`` achievable on the sample (for
        the tightest bound, that of the hard-margin SVM, LKC Example 5.24), or a
        separating weight vector ``w`` (coefficients ``alpha`` when
        ``precomputed``), whose margin :func:`geometric_margin` computes.
    precomputed : bool

    Returns
    -------
    float
        Upper bound on the number of perceptron updates on the sample.
    """
    if precomputed:
        G, _ = _check_gram_labels(X_or_G, y)
        radius2 = float(np.max(np.diag(G)))
    else:
        X = np.asarray(X_or_G, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        radius2 = float(np.max(np.einsum("ij,ij->i", X, X)))
    if np.ndim(margin) == 0:
        gamma = float(margin)
    else:
        gamma = geometric_margin(X_or_G, y, margin, precomputed=precomputed)
    if not gamma > 0:
        raise ValueError(f"the margin must be positive (a separating w), got {gamma}")
    return radius2 / gamma ** 2


def mistake_bound_risk(n_mistakes, m, delta=0.05):
    """Generalisation bound from a mistake bound (LKC Theorem 5.23, eq. 5.17).

    With probability at least ``1 - delta`` the expected risk of a
    mistake-driven algorithm that made (at most) ``n_mistakes`` updates on a
    separable sample of size ``m`` is at most
    ``(2/m) (M ln(e m) + ln m + ln(1/delta))``. For the perceptron, ``M`` may be
    the Novikoff bound (LKC Example 5.24); for the halving algorithm,
    ``log2 |H|`` (Example 5.25). The value may exceed 1 (then it is vacuous).
    """
    if not (0 < delta <= 1):
        raise ValueError(f"delta must lie in (0, 1], got {delta}")
    if m < 1 or n_mistakes < 0:
        raise ValueError("need m >= 1 and n_mistakes >= 0")
    return 2.0 / m * (n_mistakes * math.log(math.e * m) + math.log(m) + math.log(1.0 / delta))


@dataclass
class HalvingResult:
    """Result of :func:`halving_algorithm`.

    Attributes
    ----------
    n_mistakes : int
        Number of mistakes of the majority vote during learning.
    mistake_indices : ndarray of int
        Example indices of those mistakes, in order.
    consistent : ndarray of bool, shape (|H|,)
        The final set ``C`` of retained hypotheses.
    prediction : ndarray, shape (m,)
        Majority vote of ``C`` on the sample (equals ``y`` at the end).
    n_epochs : int
        Sweeps over the sample (the last one is mistake-free).
    """

    n_mistakes: int
    mistake_indices: np.ndarray
    consistent: np.ndarray
    prediction: np.ndarray
    n_epochs: int


def halving_algorithm(hypotheses_predictions, y):
    """The halving algorithm on a finite hypothesis class (LKC Example 5.25, eq. 5.18).

    Keep the set ``C`` of retained hypotheses (initially all of ``H``). For
    each example predict the label with most votes in ``C`` (ties go to the
    smaller label); on a mistake remove from ``C`` every hypothesis that is
    wrong on it. As in the book the procedure is mistake driven (removal only
    on mistakes), and it sweeps the sample until a sweep has no mistake. Each
    mistake at least halves ``C`` for two classes, so if some ``h in H`` labels
    the sample correctly there are at most ``log2 |H|`` mistakes.

    Parameters
    ----------
    hypotheses_predictions : array of shape (|H|, m)
        Row ``h`` holds the labels hypothesis ``h`` assigns to the m examples.
    y : array of shape (m,)
        True labels (same label set).

    Returns
    -------
    HalvingResult

    Raises
    ------
    ValueError
        On shape mismatch, or when ``C`` becomes empty (no hypothesis in ``H``
        labels the sample correctly).
    """
    P = np.asarray(hypotheses_predictions)
    y = np.asarray(y).ravel()
    if P.ndim != 2 or P.shape[1] != y.shape[0] or P.shape[0] == 0:
        raise ValueError(f"hypotheses_predictions must have shape (|H|, {y.shape[0]}) "
                         f"with |H| >= 1, got {P.shape}")
    labels = np.unique(np.concatenate([P.ravel(), y]))
    active = np.ones(P.shape[0], dtype=bool)
    mistakes = []
    epochs = 0
    while True:
        epochs += 1
        clean = True
        for i in range(y.shape[0]):
            votes = [np.count_nonzero(P[active, i] == c) for c in labels]
            y_hat = labels[int(np.argmax(votes))]
            if y_hat != y[i]:
                mistakes.append(i)
                clean = False
                active &= P[:, i] == y[i]
                if not active.any():
                    raise ValueError("no hypothesis in H labels the sample correctly; "
                                     "the halving algorithm needs a consistent h in H")
        if clean:
            break
    pred = np.array([labels[int(np.argmax([np.count_nonzero(P[active, i] == c) for c in labels]))]
                     for i in range(y.shape[0])])
    return HalvingResult(n_mistakes=len(mistakes), mistake_indices=np.asarray(mistakes, dtype=int),
                         consistent=active, prediction=pred, n_epochs=epochs)
