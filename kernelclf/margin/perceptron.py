"""Perceptron learning: primal, dual/kernel, permutation, and mistake bounds.

Book chapter 03 (``book/03_perceptron.md``). Sources: LKC §2.2.1 and App. D.1
(Algorithms 1-3), Theorem 2.31 with its proof in App. B.4 (Novikoff), §5.2.2
(Theorem 5.23, Examples 5.24-5.25); BPM §3.2 and App. B, Algorithm 1.

The perceptrons here (the two estimators and :func:`perceptron_on_permutation`) are
*mistake driven*: they sweep over the training sample and
change the hypothesis only on an example it gets wrong, with the book's test
``y_j f(x_j) <= 0`` (a point on the hyperplane counts as a mistake). The
hyperplanes pass through the origin (no bias), as in the book. The training
stops after the first sweep (epoch) without a mistake; on a sample that is not
linearly separable in feature space that never happens, so each of them stops
after ``max_epochs`` sweeps (or as soon as a fixed-order run is seen to cycle),
emits a :class:`sklearn.exceptions.ConvergenceWarning` (the estimators also set
``converged_ = False``) and returns the iterate with the fewest training mistakes
(Gallant's pocket algorithm, IEEE Trans. Neural Networks 1(2), 1990). The halving
algorithm is mistake driven too but has no epoch budget: it raises ``ValueError`` when
its set of retained hypotheses becomes empty.

Conventions (book chapter 00): ``alpha_`` holds *signed* coefficients,
``f(x) = sum_i alpha_i k(x_i, x)``; after training each ``alpha_i`` equals
``y_i`` times the number of updates made on example ``i`` (when not converged: among the
first ``pocket_update_`` updates, those of the returned pocket iterate).
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_random_state

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int

__all__ = [
    "Perceptron", "KernelPerceptron", "perceptron_on_permutation", "halving_algorithm",
    "HalvingResult",
]


def _epoch_orders(m, shuffle, random_state):
    """Yield the visiting order of every epoch: ``0..m-1``, or a fresh random
    permutation per epoch when ``shuffle`` is true."""
    rng = check_random_state(random_state) if shuffle else None
    identity = np.arange(m)
    while True:
        yield rng.permutation(m) if shuffle else identity


def _warn_not_separated(n_epochs, n_updates, who, cycle, n_errors, m):
    why = ("the updates repeat in a cycle, which happens only on a sample that is not "
           "linearly separable in feature space" if cycle else
           "it may not be linearly separable in feature space (increase max_epochs, or use "
           "a soft-margin method)")
    warnings.warn(
        f"{who}: the training sample was not separated after {n_epochs} epochs "
        f"({n_updates} updates); {why}. Returning the pocket iterate (Gallant 1990), the "
        f"one with the fewest training mistakes seen: {n_errors} of {m}",
        ConvergenceWarning, stacklevel=3)


class _CycleDetector:
    """Stops a fixed-order perceptron whose state at the start of an epoch recurs.

    With the same visiting order in every epoch the updates depend only on the
    state (the weight vector, or the cached outputs ``o = G alpha``), so a state seen
    before at an epoch start means that the run repeats itself for ever; on a
    separable sample this cannot happen (every update strictly increases
    ``<w*, w>``, LKC App. B.4). States are compared after rounding to nine digits
    relative to ``scale``.
    """

    def __init__(self, scale, enabled=True):
        self.factor = 1e9 / scale if scale > 0 else 1e9
        self.enabled = enabled
        self.seen = set()

    def repeated(self, state):
        if not self.enabled:
            return False
        key = hash((np.round(np.asarray(state) * self.factor) + 0.0).tobytes())
        if key in self.seen:
            return True
        self.seen.add(key)
        return False


class _Pocket:
    """Gallant's pocket (with ratchet): the iterate with the fewest training mistakes.

    S. I. Gallant, "Perceptron-based learning algorithms", IEEE Transactions on
    Neural Networks 1(2):179-191, 1990. The perceptron keeps running; a copy of the
    current hypothesis goes into the "pocket" whenever it makes strictly fewer
    mistakes on the whole training sample than the one held there.
    """

    def __init__(self, m, *state):
        self.errors = m + 1
        self.state = state
        self.update = 0

    def offer(self, errors, update, *state):
        if errors < self.errors:
            self.errors = int(errors)
            self.state = tuple(np.array(s, copy=True) for s in state)
            self.update = update


def _dual_sweeps(column, y, orders, max_epochs, callback=None, fixed_order=False, scale=1.0):
    """Algorithm 3 of LKC App. D.1 (kernel perceptron with cached outputs), with a pocket.

    ``column(j)`` returns the j-th column of the Gram matrix, ``k(x_i, x_j)``
    for all i; it is called once per mistake. ``orders`` yields the visiting
    order of each epoch (``fixed_order``: the same every epoch, which enables the
    cycle check). Returns ``(alpha, o, mistakes, n_epochs, converged, cycle,
    pocket)``; ``alpha, o`` are the last iterate and ``pocket`` the
    :class:`_Pocket` holding the iterate with the fewest training mistakes.
    """
    m = len(y)
    alpha = np.zeros(m)
    o = np.zeros(m)
    mistakes = []
    pocket = _Pocket(m, alpha.copy(), o.copy())
    pocket.offer(m, 0, alpha, o)
    cycles = _CycleDetector(scale, fixed_order)
    for epoch in range(1, max_epochs + 1):
        if cycles.repeated(o):
            return alpha, o, mistakes, epoch - 1, False, True, pocket
        order = next(orders)
        clean = True
        for j in order:
            if y[j] * o[j] <= 0:
                alpha[j] += y[j]
                o += y[j] * np.asarray(column(j), dtype=float).ravel()
                mistakes.append(int(j))
                clean = False
                pocket.offer(np.count_nonzero(y * o <= 0), len(mistakes), alpha, o)
                if callback is not None:
                    callback(int(j), alpha.copy(), o.copy())
        if clean:
            pocket.offer(0, len(mistakes), alpha, o)
            return alpha, o, mistakes, epoch, True, False, pocket
    return alpha, o, mistakes, max_epochs, False, False, pocket


_PERCEPTRON_CONSTRAINTS = {
    "max_epochs": [Int(1, None, closed="left")],
    "shuffle": ["boolean"],
    "random_state": ["random_state"],
    "callback": [callable, None],
}


class Perceptron(BinaryKernelClassifier):
    """Rosenblatt's perceptron in primal variables (LKC Algorithm 1, App. D.1; §2.2.1).

    Starting from ``w = 0``, sweep over the sample; whenever
    ``y_j <x_j, w> <= 0`` add ``y_j x_j`` to ``w``. Stop after a sweep without
    mistakes. The hyperplane passes through the origin (no bias). On separable
    data Novikoff's theorem (LKC Theorem 2.31) bounds the number of updates by
    ``(max_i ||x_i|| / gamma)^2`` for any margin ``gamma`` achievable on the sample.
    Book chapter 03.

    On a sample that is not linearly separable the sweeps never end: training
    stops after ``max_epochs`` sweeps, or earlier when (with the fixed visiting
    order) the weight vector at the start of a sweep repeats one seen before (a
    cycle of identical updates). It then returns, with a ``ConvergenceWarning``,
    the *pocket* iterate: of all weight vectors visited, the one with the fewest
    training mistakes (Gallant's pocket algorithm with ratchet, S. I. Gallant,
    "Perceptron-based learning algorithms", IEEE Trans. Neural Networks 1(2),
    1990).

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
        The weight vector ``w`` (eq. 2.17: ``w = sum over updates of y_j x_j``); on a
        non-separable sample the pocket iterate, the sum over its first
        ``pocket_update_`` updates.
    n_updates_ : int
        Number of mistakes (= updates) made during training.
    n_epochs_ : int
        Number of sweeps made (including the final mistake-free one).
    converged_ : bool
        Whether a mistake-free sweep was reached within ``max_epochs``.
    cycle_detected_ : bool
        Whether training stopped because the updates repeat in a cycle.
    n_training_errors_ : int
        Training mistakes (``y_j <x_j, w> <= 0``) of the returned ``coef_``.
    pocket_update_ : int
        Number of updates after which the returned iterate was reached.
    mistake_indices_ : ndarray of int
        Training indices of the updates, in the order they were made.
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (``y = +1``).
    """

    _bound_tags = {"family": "perceptron", "margin": None, "bias": False}  # kernelclf.bounds.report_tags
    _parameter_constraints = dict(_PERCEPTRON_CONSTRAINTS)

    def __init__(self, max_epochs=1000, shuffle=False, random_state=None, callback=None):
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.callback = callback

    def fit(self, X, y):
        """Run Algorithm 1 on ``(X, y)``; any two labels are mapped to -1/+1."""
        X, y_pm = self._fit_binary(X, y)
        max_epochs = int(self.max_epochs)
        m, n = X.shape
        w = np.zeros(n)
        mistakes = []
        orders = _epoch_orders(m, self.shuffle, self.random_state)
        pocket = _Pocket(m, w.copy())
        pocket.offer(m, 0, w)
        with np.errstate(over="ignore"):
            sq = np.einsum("ij,ij->i", X, X)
        if not np.all(np.isfinite(sq)) or np.max(sq) > 1e100:
            raise ValueError(
                f"Perceptron: the inputs are too large (largest |x_ij| = {np.max(np.abs(X)):.3g}): "
                "their squared norms overflow or exceed 1e100, so the outputs <x, w> would "
                "overflow to infinity or NaN; rescale the inputs (the perceptron is "
                "scale-invariant)")
        scale = float(np.sqrt(np.max(sq)))
        cycles = _CycleDetector(scale, not self.shuffle)
        converged = cycle = False
        epoch = 0
        for epoch in range(1, max_epochs + 1):
            if cycles.repeated(w):
                cycle, epoch = True, epoch - 1
                break
            clean = True
            for j in next(orders):
                if y_pm[j] * (X[j] @ w) <= 0:
                    w = w + y_pm[j] * X[j]
                    mistakes.append(int(j))
                    clean = False
                    pocket.offer(np.count_nonzero(y_pm * (X @ w) <= 0), len(mistakes), w)
                    if self.callback is not None:
                        self.callback(int(j), w.copy())
            if clean:
                converged = True
                pocket.offer(0, len(mistakes), w)
                break
        self.coef_ = w if converged else pocket.state[0]
        self.n_updates_ = len(mistakes)
        self.n_epochs_ = epoch
        self.converged_ = converged
        self.cycle_detected_ = cycle
        self.n_training_errors_ = 0 if converged else pocket.errors
        self.pocket_update_ = len(mistakes) if converged else pocket.update
        self.mistake_indices_ = np.asarray(mistakes, dtype=int)
        if not converged:
            _warn_not_separated(epoch, len(mistakes), "Perceptron", cycle, pocket.errors, m)
        return self

    def decision_function(self, X):
        """Real-valued output ``<x, w>``; its sign is the predicted class."""
        X = self._validate_test(X, "coef_")
        return X @ self.coef_


class KernelPerceptron(BinaryKernelClassifier):
    """Kernel perceptron in dual variables with cached outputs
    (LKC Algorithms 2-3, App. D.1; BPM §3.2).

    The weight vector is kept as ``w = sum_i alpha_i phi(x_i)`` (signed
    ``alpha``) together with the cached outputs ``o = G alpha`` on the training
    points. On a mistake at ``j`` (``y_j o_j <= 0``): ``alpha_j += y_j`` and
    ``o += y_j G[:, j]``. Only that one Gram column is read, computed on demand
    (with a least-recently-used cache, :class:`kernelclf.kernels.gram.Gram`), so the
    memory is O(m) per column. Algorithm 2 (which recomputes ``o_j`` from scratch)
    visits the same points and returns the same ``alpha``. Book chapter 03.

    On a non-separable sample it stops after ``max_epochs`` sweeps or at a cycle
    (the cached outputs at the start of a sweep repeat, fixed order only) and
    returns Gallant's pocket iterate, the one with the fewest training mistakes,
    with a ``ConvergenceWarning`` (as :class:`Perceptron`).

    Parameters
    ----------
    kernel : None, str, callable or kernelclf.kernels.closure.Kernel
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
        updates made on example ``i`` (up to the pocket iterate when not converged).
    outputs_ : ndarray of shape (m,)
        Cached outputs ``o = G alpha`` of the returned ``alpha_``.
    X_fit_ : training inputs
    kernel_ : Kernel
    n_updates_, n_epochs_, converged_, cycle_detected_, n_training_errors_,
    pocket_update_, mistake_indices_ : as in :class:`Perceptron`
    n_kernel_rows_ : int
        Number of Gram columns read (one per update; equals ``n_updates_``). With
        the column cache a column read again is not recomputed.
    classes_ : ndarray of shape (2,)
    """

    _bound_tags = {"family": "perceptron", "margin": None, "bias": False}  # kernelclf.bounds.report_tags
    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT, **_PERCEPTRON_CONSTRAINTS}

    def __init__(self, kernel=None, max_epochs=1000, shuffle=False, random_state=None,
                 callback=None):
        self.kernel = kernel
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.callback = callback

    def fit(self, X, y):
        """Run Algorithm 3 on ``(X, y)``; any two labels are mapped to -1/+1."""
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_ = X
        m = len(y_pm)
        gram = self._training_gram(X, precompute=False)
        orders = _epoch_orders(m, self.shuffle, self.random_state)
        scale = float(np.max(np.abs(gram.diag))) if m else 1.0
        alpha, o, mistakes, epochs, converged, cycle, pocket = _dual_sweeps(
            gram.column, y_pm, orders, int(self.max_epochs), self.callback,
            fixed_order=not self.shuffle, scale=scale)
        if not converged:
            alpha, o = pocket.state
        self.alpha_ = alpha
        self.outputs_ = o
        self.n_updates_ = len(mistakes)
        self.n_epochs_ = epochs
        self.converged_ = converged
        self.cycle_detected_ = cycle
        self.n_training_errors_ = 0 if converged else pocket.errors
        self.pocket_update_ = len(mistakes) if converged else pocket.update
        self.mistake_indices_ = np.asarray(mistakes, dtype=int)
        self.n_kernel_rows_ = gram.n_evaluations // max(m, 1)
        if not converged:
            _warn_not_separated(epochs, len(mistakes), "KernelPerceptron", cycle,
                                pocket.errors, m)
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
        If it did not (after ``max_epochs`` epochs, or earlier at a cycle of identical
        updates), a ConvergenceWarning is emitted and the pocket iterate (fewest
        training mistakes, Gallant 1990) is returned.
    """
    if isinstance(max_epochs, bool) or not isinstance(max_epochs, numbers.Integral) \
            or max_epochs < 1:
        raise ValueError(f"max_epochs must be a positive integer, got {max_epochs!r}")
    G, y = _check_gram_labels(G, y)
    order = np.asarray(order)
    m = len(y)
    if order.shape != (m,) or not np.array_equal(np.sort(order), np.arange(m)):
        raise ValueError(f"order must be a permutation of 0..{m - 1}")

    def same_order():
        while True:
            yield order

    scale = float(np.max(np.abs(np.diag(G)))) if m else 1.0
    alpha, _, mistakes, epochs, converged, cycle, pocket = _dual_sweeps(
        lambda j: G[:, j], y, same_order(), int(max_epochs), fixed_order=True, scale=scale)
    if not converged:
        _warn_not_separated(epochs, len(mistakes), "perceptron_on_permutation", cycle,
                            pocket.errors, m)
        alpha = pocket.state[0]
    return alpha


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
