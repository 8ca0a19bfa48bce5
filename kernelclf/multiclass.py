"""Multiclass meta-estimators around the package's binary classifiers.

Book chapter 12 (``book/12_bpm_experiments.md``); LKC §2.4.4; RMM §5.2; BPM §4.3;
the decision DAG of Platt, Cristianini & Shawe-Taylor (NIPS 12, 2000).

Every classifier of the package is binary (``classes_[0]`` is -1, ``classes_[1]`` is
+1), except the nearest-neighbour and nearest-centroid rules of :mod:`kernelclf.neighbors`.
The three reductions of LKC §2.4.4 ("Multiclass Support Vector Machines") turn any of the
binary ones into a classifier for ``K >= 2`` classes:

* :class:`OneVsOneClassifier` -- ``K (K - 1) / 2`` machines, one per pair of classes,
  trained on the examples of the two classes only; the prediction is the class with
  the most pairwise wins (LKC §2.4.4, method 2). Ties are broken uniformly at random
  with a seeded generator, as in the digit experiments of RMM §5.2.
* :class:`DAGClassifier` -- the same pairwise machines, combined by the decision
  DAG of Platt et al. (2000): a point is sent through ``K - 1`` of them, each one
  removing a class from the list of candidates (LKC §2.4.4, the last paragraph on
  multiclass machines).
* :class:`OneVsRestClassifier` -- ``K`` machines, class ``k`` against the rest, and
  the arg-max of the ``K`` real outputs (LKC §2.4.4, method 1); with the rejection
  protocol of BPM §4.3 / Fig. 9 (reject the test points whose winning output is
  smallest), see :meth:`OneVsRestClassifier.rejection_curve`.

With ``K = 2`` each of them fits a single binary machine (on the labels encoded as
0/1, so that it is the bare binary estimator) and returns its ``predict`` and
``decision_function`` unchanged.

Probabilities. When the binary estimator has ``predict_proba`` (e.g.
:class:`kernelclf.margin.svm.SupportVectorMachine` with ``probability=True``, or a
Gaussian process classifier), so do the reductions -- and only then
(``hasattr(wrapper, "predict_proba")`` follows the estimator):

* one-versus-rest: the ``K`` probabilities ``P_k(x)`` of "class ``k``" divided by
  their sum, as scikit-learn's ``OneVsRestClassifier`` does;
* one-versus-one and the DAG: pairwise coupling of the pairwise probabilities
  ``r_ij = P(i | i or j, x)`` by the second method of Wu, Lin & Weng (2004, JMLR 5,
  "Probability estimates for multi-class classification by pairwise coupling"), the one
  libsvm uses (see :func:`pairwise_coupling`); scikit-learn's ``OneVsOneClassifier``
  has no ``predict_proba``.

Weights. A binary machine sees its two labels as 0 and 1, so the wrappers translate the
estimator's ``class_weight`` (keys: the labels of ``y``) into each machine's classes: the
weights ``c_k`` of the ``K`` classes are fixed once on the whole sample (a dict: the
named labels, 1 for the others; ``'balanced'``: ``W / (K W_k)`` with ``W_k`` the total
``sample_weight`` of class ``k``, the counts without sample weights, as scikit-learn's
``SVC``), the machine of pair ``(i, j)`` gets ``class_weight={0: c_i, 1: c_j}`` (libsvm's
one-versus-one weights, ``SVC(class_weight=...)``), and machine ``k`` of one-versus-rest,
whose "rest" mixes classes, gets them as per-example factors of its ``sample_weight``.
``fit(X, y, sample_weight)`` passes each machine the weights of its examples.

One kernel. A kernel with a parameter taken from the data (``kernel='rbf'`` or
``'poly'``, scikit-learn's ``gamma='scale'``) is fixed once on the whole training sample
and given to every machine, as ``SVC`` does (each machine would otherwise take it from its
own examples).

One kernel matrix. The pairwise machines of a
:class:`kernelclf.margin.svm.SupportVectorMachine` (SMO solver, a kernel of fixed
parameters, array inputs, ``n_jobs`` None or 1) read their training matrices from one
kernel matrix of the whole sample, computed once, when that ``m x m`` matrix and three
buffers of the largest pair's size (``8 (m^2 + 3 n^2)`` bytes, ``n`` the examples of the
two largest classes) fit in the estimator's ``cache_mb`` (200 MB by default: ten equal
classes up to about ``m = 4800``); the machine of a
pair gets its rows and columns of it instead of computing its own (the pairs' matrices
hold each off-diagonal block once and each diagonal block ``K - 1`` times: with equal
classes ``(2 K - 2) / K`` times the entries of the whole matrix), and skips the
re-validation of what the wrapper has validated (libsvm shares one validation of the
sample among its pairwise problems in the same way). The machines are those of a clone
fitted on each pair's examples (up to the round-off of the kernel values;
``tests/test_multiclass_shared_gram.py`` compares the two); the kernel guard
(:mod:`kernelclf.kernels.gram_guard`) checks the whole matrix once (and each pair's for
kernels that are not positive semi-definite by construction). With numba, for the
C-SVM with bias (hinge loss, no Platt scaling), positive class weights, no
``sample_weight`` and a kernel positive semi-definite by construction, the pairs' duals
are solved in one compiled call (``solve_pairs_on_blocks`` of
:mod:`kernelclf.margin.smo.compiled`): the binary machine's own pair loop and polish on
each pair's rows and columns of the whole matrix, read in place, then each machine's
attributes from its solution, as libsvm solves its pairwise problems one
after another in compiled code; those machines hold their ``X_fit_`` and
``support_vectors_`` as rows of one private copy of the sample, taken when first read
(pickling and deep copies write the arrays), instead of a copy of their examples each (as
libsvm's pairwise problems index one copy of the sample). With a larger sample the machine
of a pair is fitted on its examples with the SMO's own kernel columns (computed as needed,
as libsvm's are), the machine a clone's ``fit`` gives, but without the clone and the
re-validation of what the wrapper has validated; with numba and a kernel positive
semi-definite by construction the guard's sample checks then run once on the whole sample
(these machines are evaluated one by one, as those of any other estimator, which gets a
clone fitted per pair). With compiled columns of many features (and the classes' diagonal
blocks within half of ``cache_mb``) a pair's kernel values come from blocks of its classes
(``_ClassBlocks``): each class's diagonal block computed once; the SMO of a pair computes
the columns it reads, as libsvm does, each from its row of its class's block and one
matrix-vector product over the other class's rows, and switches to the pair's whole
matrix, assembled from the blocks and one product between the two classes, only past
``PAIR_SWITCH`` of them (:mod:`kernelclf.kernels.native_columns`) -- the entries of the
pair's own matrix to round-off (not bit for bit: BLAS sums a product's last rows in
another order, a matrix-vector product in yet another). On USPS' ten classes (m = 7291,
RBF, C = 100) the 45 pairs read 6.5 million kernel values this way, where their whole
matrices from the blocks took 47 million.
Machines that read one kernel matrix are also evaluated together:
``predict``, ``decision_function``, ``vote_counts`` and ``pairwise_winners`` compute one
kernel matrix between the test points and the union of the machines' support vectors
(a support vector of several machines is evaluated once, as in libsvm's prediction) and
give each machine's ``decision_function`` from its columns.

Precomputed kernels. With ``kernel='precomputed'`` (the estimator is "pairwise", as in
scikit-learn) ``X`` is a Gram matrix: the machine of a pair is fitted on the rows and the
columns of its two classes' examples and evaluated on the columns of those examples.

Relation to scikit-learn. ``sklearn.multiclass.OneVsOneClassifier`` breaks ties in the
vote by the summed confidences of the pairwise machines; that rule is available here as
``tie_break="confidence"`` and reproduces scikit-learn's ``decision_function`` exactly
when both wrap the same pairwise machines: with a data-driven kernel (``kernel='rbf'`` or
``'poly'``) scikit-learn's wrapper lets each pair take its width from its own examples,
ours fixes one on the whole sample (above).
scikit-learn has no random tie-breaking and no decision DAG. Its
``OneVsRestClassifier`` trains the same machines as ours (labels ``y == k`` as 0/1).
"""
from __future__ import annotations

import functools
import hashlib

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils._tags import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from .base import Int, _check_strings
from .kernels.gram import ColumnCache, Gram
from .kernels.rows import n_rows, take_rows

__all__ = ["OneVsOneClassifier", "DAGClassifier", "OneVsRestClassifier", "rejection_errors",
           "pairs", "pairwise_coupling", "REJECTION_RATES"]

_N_JOBS = [Int(None, None, closed="neither"), None]


def pairs(n_classes):
    """The pairs ``(i, j)``, ``i < j``, in the order of the pairwise machines.

    Lexicographic order, the order of ``estimators_`` here and in scikit-learn's
    ``OneVsOneClassifier``.
    """
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


#: the rejection rates of BPM Fig. 9 (0, 0.01, ..., 0.1): the default of
#: :meth:`OneVsRestClassifier.rejection_curve`
REJECTION_RATES = np.linspace(0.0, 0.1, 11)
REJECTION_RATES.flags.writeable = False


def rejection_errors(confidence, correct, fractions):
    """Error on the kept points after rejecting the least confident ones (BPM §4.3).

    For each rejection rate ``r`` in ``fractions`` the ``round(r * n)`` points with the
    smallest ``confidence`` are rejected (BPM §4.3 rejects ``r * 10 000`` MNIST test
    points by the smallest winning output, Fig. 9 plots the error of the others). Ties in
    ``confidence`` are rejected in the order the points are given (stable sort).

    Parameters
    ----------
    confidence : (n,) array
        The larger, the more confident.
    correct : (n,) bool array
        Whether each point was classified correctly.
    fractions : sequence of floats in [0, 1]

    Returns
    -------
    (len(fractions),) array
        The error rate on the kept points (``nan`` where nothing is kept).
    """
    confidence = np.asarray(confidence, dtype=float).ravel()
    correct = np.asarray(correct, dtype=bool).ravel()
    if confidence.shape != correct.shape:
        raise ValueError(f"confidence has {confidence.size} entries but correct has "
                         f"{correct.size}")
    fractions = np.atleast_1d(np.asarray(fractions, dtype=float))
    if np.any(~np.isfinite(fractions)) or np.any((fractions < 0) | (fractions > 1)):
        raise ValueError(f"rejection fractions must lie in [0, 1], got {fractions.tolist()}")
    n = confidence.size
    order = np.argsort(confidence, kind="stable")
    # correct points among those from position k on (in rising confidence), for every k
    right_tail = np.concatenate([np.cumsum(correct[order][::-1])[::-1], [0]])
    out = np.empty(len(fractions))
    for t, r in enumerate(fractions):
        k = int(round(r * n))
        kept = n - k
        out[t] = 1.0 - right_tail[k] / kept if kept else np.nan
    return out


def pairwise_coupling(r, min_prob=1e-7):
    """Class probabilities from pairwise ones (Wu, Lin & Weng 2004, second method).

    Given ``r_ij``, an estimate of ``P(y = i | y in {i, j}, x)`` for every pair
    ``i != j`` (``r_ij + r_ji = 1``), the probabilities ``p`` minimise
    ``sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`` over ``sum_i p_i = 1``, i.e.
    ``min p'Qp`` with ``Q_ii = sum_{s != i} r_si^2`` and ``Q_ij = -r_ji r_ij``. Wu et
    al. show that ``Q`` is positive definite when all ``r_ij > 0`` and that the
    constraints ``p_i >= 0`` are then inactive, so ``p`` solves the linear system
    ``[[Q, e], [e', 0]] [p; b] = [0; 1]``; it is solved directly here (libsvm's
    ``multiclass_probability`` iterates to the same point). As in libsvm, the
    ``r_ij`` are first clipped to ``[min_prob, 1 - min_prob]``. If the ``r_ij`` come
    from one distribution, ``r_ij = p_i / (p_i + p_j)``, that ``p`` is recovered.

    Parameters
    ----------
    r : (K, K) or (n, K, K) array
        ``r[..., i, j]`` estimates ``P(i | i or j)``; the diagonal is ignored.
    min_prob : float, default 1e-7

    Returns
    -------
    (K,) or (n, K) array
        Non-negative rows summing to 1.
    """
    r = np.asarray(r, dtype=float)
    single = r.ndim == 2
    if single:
        r = r[None]
    if r.ndim != 3 or r.shape[1] != r.shape[2] or r.shape[1] < 2:
        raise ValueError(f"r must be a (K, K) or (n, K, K) array with K >= 2, got shape "
                         f"{np.shape(r) if not single else r.shape[1:]}")
    n, K, _ = r.shape
    off = ~np.eye(K, dtype=bool)
    if not np.all(np.isfinite(r[:, off])):
        raise ValueError("pairwise probabilities contain NaN or infinity")
    r = np.clip(r, min_prob, 1.0 - min_prob)
    M = np.zeros((n, K + 1, K + 1))
    M[:, :K, :K] = -r * np.swapaxes(r, 1, 2)                  # Q_ts = -r_st r_ts
    M[:, np.arange(K), np.arange(K)] = np.sum(r ** 2 * off, axis=1)   # Q_tt
    M[:, :K, K] = 1.0
    M[:, K, :K] = 1.0
    rhs = np.zeros((n, K + 1))
    rhs[:, K] = 1.0
    p = np.linalg.solve(M, rhs[..., None])[..., 0][:, :K]
    p = np.clip(p, 0.0, None)                                 # round-off only
    p /= p.sum(axis=1, keepdims=True)
    return p[0] if single else p


def _positive_proba(est, X):
    """``P(label 1 | x)`` from a binary estimator trained on labels 0/1."""
    proba = np.asarray(est.predict_proba(X), dtype=float)
    classes = list(np.asarray(est.classes_).tolist())
    return proba[:, classes.index(1)]


def _estimators_have(method):
    """``available_if`` check: the fitted machines (else the estimator) have ``method``."""
    def check(self):
        est = self.estimators_[0] if hasattr(self, "estimators_") else self._base()
        getattr(est, method)                   # AttributeError when it is missing
        return True
    return check


def _fit_one(estimator, X, y, sample_weight=None, what=None):
    kw = {} if sample_weight is None else {"sample_weight": sample_weight}
    try:
        return clone(estimator).fit(X, y, **kw)
    except ValueError as exc:
        if what is not None and hasattr(exc, "add_note"):
            exc.add_note(f"(raised by the binary machine of {what})")
        raise


def _kernel_copy(kernel):
    """An unfitted copy of a kernel object (a plain callable as it is)."""
    return clone(kernel) if hasattr(kernel, "get_params") else kernel


def _pair_machine(template, kernel, cw, i, j):
    """The machine of the pair ``(i, j)``: a copy of ``template`` without re-validating its
    parameters (:func:`_shallow_copy`), with ``kernel`` and the pair's class weights."""
    est = _shallow_copy(template)
    est.kernel = kernel
    if cw is not None:
        est.class_weight = {0: cw[i], 1: cw[j]}
    return est


def _note_pair(exc, labels, i, j):
    """Name the pair whose binary machine raised ``exc`` (Python 3.11's exception notes)."""
    if hasattr(exc, "add_note"):
        exc.add_note(f"(raised by the binary machine of the classes {labels[i]!r} and "
                     f"{labels[j]!r}, labelled 0 and 1)")


def _shallow_copy(obj):
    """``copy.copy(obj)`` for an estimator of this package (its state is its ``__dict__``;
    scikit-learn's ``__getstate__``/``__setstate__`` add and remove a version only for
    scikit-learn's own classes), without the pickling protocol's cost; ``copy.copy``
    for anything else."""
    import copy

    cls = type(obj)
    plain = _PLAIN_STATE.get(cls)
    if plain is None:                   # (decided once per class)
        plain = _PLAIN_STATE[cls] = bool(
            issubclass(cls, BaseEstimator) and not cls.__module__.startswith("sklearn.")
            and cls.__getstate__ is BaseEstimator.__getstate__
            and cls.__setstate__ is BaseEstimator.__setstate__
            and not hasattr(cls, "__copy__") and not hasattr(cls, "__slots__"))
    if plain:
        new = object.__new__(cls)
        new.__dict__.update(obj.__dict__)
        return new
    return copy.copy(obj)


#: per class: whether :func:`_shallow_copy` may copy its ``__dict__`` alone
_PLAIN_STATE = {}


def _takes_sample_weight(estimator):
    import inspect

    try:
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


def _row_digest(X, r):
    """A 64-bit integer determined by the content of row ``r`` of ``X``."""
    row = X[r]
    if hasattr(row, "toarray"):                  # a row of a sparse matrix
        row = row.toarray()
    if isinstance(row, str):
        data = row.encode("utf-8", "surrogatepass")
    elif isinstance(row, bytes):
        data = row
    else:
        data = np.ascontiguousarray(np.asarray(row, dtype=np.float64)).tobytes()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _two_columns(y):
    """Whether ``y`` has several columns (an array's shape, or a list of rows), without
    converting anything else (objects that only pretend to be arrays stay untouched)."""
    shape = getattr(y, "shape", None)
    if shape is None and isinstance(y, (list, tuple)) and len(y) \
            and isinstance(y[0], (list, tuple, np.ndarray)):
        shape = (len(y), len(y[0]))
    return shape is not None and len(shape) == 2 and shape[1] > 1


def _multilabel_refusal(name, y):
    """The message for a 2-D ``y``: one label per example only (no multilabel fits)."""
    from sklearn.utils.multiclass import type_of_target

    try:
        kind = type_of_target(y)
    except ValueError:
        kind = "unknown"
    shape = np.shape(y)
    what = ("a multilabel indicator matrix" if kind == "multilabel-indicator" else
            f"a 2-D array ({kind} targets)")
    return (f"{name} takes one label per example (a 1-D y); this y is {what} of shape "
            f"{shape}. Unlike scikit-learn's OneVsRestClassifier it does not fit multilabel "
            "targets: use sklearn.multiclass.OneVsRestClassifier(estimator) (one binary machine "
            "per column of y, any estimator of this package) or "
            "sklearn.multioutput.MultiOutputClassifier")


class _MulticlassBase(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Validation, class encoding and tags shared by the three reductions."""

    def _base(self):
        if self.estimator is None:
            from .margin.svm import SupportVectorMachine
            return SupportVectorMachine()
        return self.estimator

    def _takes_strings(self):
        return bool(get_tags(self._base()).input_tags.string)

    def _pairwise_input(self):
        return bool(get_tags(self._base()).input_tags.pairwise)

    def _shared_kernel(self, base, X):
        """``base`` with its kernel's data-driven parameters (``kernel='rbf'``, ``'poly'``:
        scikit-learn's ``gamma='scale'``) fixed on the whole training sample ``X``, so that
        every machine has the same kernel (as in ``SVC``); ``base`` itself otherwise."""
        from .base import KernelMixin
        from .kernels.closure import Kernel
        from .kernels.vector import as_kernel

        if not isinstance(base, KernelMixin):           # another library's estimator
            return base
        params = base.get_params(deep=False)
        kernel = params.get("kernel")
        if kernel is None or isinstance(X, list) or (isinstance(kernel, str)
                                                     and kernel == "precomputed"):
            return base
        try:
            k = as_kernel(kernel)
        except (TypeError, ValueError):
            return base                  # refused by the estimator's own validation
        if not isinstance(k, Kernel) or k.resolve(X) is k:   # (no data-driven parameter)
            return base
        fixed = clone(k).resolve(X)
        if fixed is k or repr(fixed) == repr(k):
            return base
        return clone(base).set_params(kernel=fixed)

    def _class_weights(self, y_idx, sample_weight):
        """The weights ``c_k`` of the ``K`` classes from the estimator's ``class_weight``
        (module docstring), or None when it has none; sets ``class_weight_``."""
        base = self._base()
        params = base.get_params(deep=False) if hasattr(base, "get_params") else {}
        cw = params.get("class_weight")
        if cw is None:
            return None
        K = len(self.classes_)
        if isinstance(cw, str) and cw == "balanced":
            sw = np.ones(len(y_idx)) if sample_weight is None else sample_weight
            totals = np.bincount(y_idx, weights=sw, minlength=K)
            if np.any(totals <= 0):
                raise ValueError("class_weight='balanced' needs a positive total sample_weight "
                                 "in every class")
            out = totals.sum() / (K * totals)
        elif isinstance(cw, dict):
            known = set(self.classes_.tolist())
            unknown = [k for k in cw if k not in known]
            if unknown:
                raise ValueError(f"class_weight has weights for labels that are not classes "
                                 f"of y: {unknown!r} (the classes are "
                                 f"{self.classes_.tolist()!r})")
            try:
                out = np.array([float(cw.get(c, 1.0)) for c in self.classes_.tolist()])
            except (TypeError, ValueError):
                out = np.array([np.nan])
            if not np.all(np.isfinite(out) & (out >= 0)):
                raise ValueError(f"class_weight values must be finite numbers >= 0, got {cw!r}")
        else:
            return None                   # refused by the estimator's own validation
        self.class_weight_ = out
        return out

    def _sample_weight(self, X, sample_weight):
        if sample_weight is None:
            return None
        if not _takes_sample_weight(self._base()):
            raise TypeError(f"{type(self).__name__}.fit got sample_weight, but the estimator "
                            f"{type(self._base()).__name__} takes no sample_weight")
        return _check_sample_weight(sample_weight, X, dtype=np.float64,
                                    ensure_non_negative=True)

    def _validate_fit(self, X, y):
        """Validate parameters and sample; set ``classes_``; return ``(X, y_idx)``."""
        self._validate_params()
        if _two_columns(y):
            raise ValueError(_multilabel_refusal(type(self).__name__, y))
        if self._takes_strings():
            if hasattr(self, "n_features_in_"):
                del self.n_features_in_
            X = _check_strings(X)
            y = column_or_1d(y, warn=True)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} samples but y has {len(y)}: inconsistent "
                                 "numbers of samples")
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True,
                                 accept_sparse=self._sparse())
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes in y, got 1 "
                             f"class ({self.classes_.tolist()})")
        return X, y_idx

    def _validate_test(self, X):
        check_is_fitted(self, "estimators_")
        if self._takes_strings():
            return _check_strings(X)
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True,
                             accept_sparse=self._sparse())

    def _sparse(self):
        """'csr' when the binary estimator takes scipy.sparse inputs (its tag), else False."""
        return "csr" if get_tags(self._base()).input_tags.sparse else False

    @property
    def n_classes_(self):
        """Number of classes ``K``."""
        return len(self.classes_)

    @available_if(_estimators_have("predict_proba"))
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba` (only when the binary estimator has
        ``predict_proba``)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self._base())
        tags.classifier_tags.multi_class = True
        tags.classifier_tags.poor_score = sub.classifier_tags.poor_score \
            if sub.classifier_tags is not None else False
        tags.input_tags.string = sub.input_tags.string
        tags.input_tags.two_d_array = sub.input_tags.two_d_array
        tags.input_tags.pairwise = sub.input_tags.pairwise
        tags.input_tags.sparse = sub.input_tags.sparse
        return tags


class _PairGram(Gram):
    """The training Gram of a pairwise machine of :meth:`_PairwiseBase._fit_without_clones`
    (no checks: the wrapper's guard has checked the whole sample; a kernel of fixed
    parameters): :class:`~kernelclf.kernels.gram.Gram` ``(kernel, X, precompute=False,
    cache_mb=cache_mb, check=False)``, with its diagonal given (the whole sample's at the
    pair's rows: a kernel's diagonal is computed row by row) and its kernel's column
    function (:meth:`kernelclf.kernels.closure.Kernel.column_function`, a pass over the
    pair's inputs) made when a column is first asked of it: the pair's SMO computes its
    columns in compiled code (from its classes' blocks, or from
    :func:`kernelclf.kernels.native_columns.column_spec`'s arrays), and most pairs never
    ask."""

    def __init__(self, kernel, X, diag, cache_mb):
        self.ridge = 0.0
        self.n_evaluations = 0
        self.n_computed = 0
        self.kernel, self.X, self.m = kernel, X, X.shape[0]
        self._G = None
        self._colfun = self._rawfun = functools.partial(_lazy_column, self)
        self._cache = ColumnCache(self._colfun, self.m, cache_mb)
        self._diag = np.array(diag, dtype=float)
        self._diag.setflags(write=False)


def _lazy_column(gram, i):
    """Column ``i`` of a :class:`_PairGram`, by its kernel's column function (made at the
    first call and kept)."""
    f = gram.__dict__.get("_python_columns")
    if f is None:
        f = gram._python_columns = gram.kernel.column_function(gram.X)
    return f(i)


class _ClassBlocks:
    """The kernel columns and matrices of the pairwise machines that compute their own
    (module docstring, "One kernel matrix": the whole one does not fit ``cache_mb``), from
    blocks of the classes: each class's diagonal block computed once, when a first pair
    needs it, and kept until the fit ends (all of them at most ``SHARE`` of ``cache_mb``);
    the entries between two classes computed for their pair (LKC Definition 2.15: the
    entries of a pair's Gram matrix are those of the whole sample's).

    For the compiled columns of many features: a pair's SMO computes the columns it reads
    from them (:meth:`pair_spec`, :func:`kernelclf.kernels.native_columns._pair_column`:
    a column's entries at its own class's rows are its row of that class's block, those at
    the other class's rows one matrix-vector product over that class's rows), as libsvm
    computes a pair's columns on demand; past
    :data:`~kernelclf.kernels.native_columns.PAIR_SWITCH` of them it switches to the
    pair's whole matrix (:meth:`kernelclf.kernels.gram.ColumnSlots._store_native`, which
    calls :meth:`pair_matrix`: the diagonal blocks and one product for the entries between
    the classes). A machine of ``K`` classes computes ``2 / K`` of its classes' diagonal
    entries once instead of all of them in each of its ``K - 1`` pairs. The entries are
    those of :func:`~kernelclf.kernels.native_columns.whole_matrix` on the pair's examples
    to round-off (:func:`~kernelclf.kernels.native_columns.kernel_block`)."""

    #: the diagonal blocks may take at most this fraction of ``cache_mb``
    SHARE = 0.5
    #: the pairs' SMO computes its columns from the blocks (:meth:`pair_spec`); False: the
    #: binary machine's compiled columns until its switch to the pair's matrix
    COLUMNS = True

    def __init__(self, spec, members):
        self.spec = spec
        X, sq = spec[1], spec[2]
        order = np.concatenate(members)
        # the scaled inputs sorted by class (each class's rows contiguous) and their norms
        self.X = np.ascontiguousarray(X[order])
        self.sq = np.ascontiguousarray(sq[order])
        sizes = np.array([idx.size for idx in members], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.at = np.concatenate([[0], np.cumsum(sizes ** 2)]).astype(np.int64)
        self.rows = [(self.X[a:b], self.sq[a:b]) for a, b in
                     zip(self.starts[:-1].tolist(), self.starts[1:].tolist())]
        self.flat = None            # every diagonal block, one after the other
        self.diag = {}
        self.n_computed = 0

    @classmethod
    def of(cls, kernel, X, y_idx, K, cache_mb):
        """The blocks of the sample ``X`` (classes ``y_idx``), or None: inputs without
        compiled columns of many features, or diagonal blocks larger than ``SHARE`` of
        ``cache_mb``."""
        from .kernels.native_columns import ROWS, SPARSE, column_spec

        if not isinstance(X, np.ndarray):
            return None
        counts = np.bincount(y_idx, minlength=K)
        if 8.0 * float(np.sum(counts.astype(float) ** 2)) > cls.SHARE * cache_mb * 2 ** 20:
            return None
        spec = column_spec(Gram(kernel, X, precompute=False, cache_mb=0.01, check=False))
        if not ROWS < spec[0] < SPARSE:
            return None
        return cls(spec, [np.flatnonzero(y_idx == c) for c in range(K)])

    def _diagonal(self, c):
        """Class ``c``'s diagonal block (a view of ``flat``), computed when first asked
        for; None when a value is not finite."""
        from .kernels.native_columns import kernel_block

        D = self.diag.get(c)
        if D is None:
            if self.flat is None:
                self.flat = np.empty(int(self.at[-1]))
            n = self.rows[c][0].shape[0]
            D = kernel_block(self.spec, self.rows[c],
                             out=self.flat[self.at[c]:self.at[c + 1]].reshape(n, n))
            if D is None:
                return None
            self.n_computed += D.size
            self.diag[c] = D
        return D

    def pair_spec(self, i, j, in_j):
        """The compiled columns of the pair ``(i, j)``'s matrix (its examples in their
        order in ``X``, ``in_j``: which are of class ``j``): a
        :func:`kernelclf.kernels.native_columns.column_spec` of ``kind`` plus ``PAIR``
        (the arrays :func:`~kernelclf.kernels.native_columns._pair_column` reads), or None
        when a diagonal block has a value that is not finite."""
        from .kernels.native_columns import PAIR, ROWS

        if self._diagonal(i) is None or self._diagonal(j) is None:
            return None
        kind, _, _, offset, degree = self.spec[:5]
        in_j = np.asarray(in_j, dtype=bool)
        at_i, at_j = np.flatnonzero(~in_j), np.flatnonzero(in_j)
        ni = at_i.size
        code = np.empty(in_j.size, dtype=np.int64)
        code[at_i] = np.arange(ni)
        code[at_j] = ni + np.arange(at_j.size)
        ind = np.concatenate([code, at_i, at_j]).astype(np.int64)
        ptr = np.array([self.starts[i], ni, self.starts[j], at_j.size, self.at[i],
                        self.at[j]], dtype=np.int64)
        return (kind - ROWS + PAIR, self.X, self.sq, offset, degree, ind, ptr, self.flat)

    def pair_matrix(self, i, j, in_j):
        """The kernel matrix of the pair ``(i, j)``'s examples in their order in ``X``
        (``in_j``: which are of class ``j``), or None when a value is not finite."""
        from .kernels.native_columns import pair_matrix

        Kii, Kjj = self._diagonal(i), self._diagonal(j)
        if Kii is None or Kjj is None:
            return None
        self.n_computed += 2 * Kii.shape[0] * Kjj.shape[0]
        return pair_matrix(self.spec, self.rows[i], self.rows[j], Kii, Kjj, in_j)


class _PairwiseBase(_MulticlassBase):
    """The ``K (K - 1) / 2`` pairwise machines of LKC §2.4.4 (method 2)."""

    def fit(self, X, y, sample_weight=None):
        """Fit one binary machine per pair of classes ``i < j``.

        The machine of pair ``(i, j)`` sees only the examples of classes ``i`` and ``j``,
        labelled 0 and 1 (so its ``classes_[1]``, the +1 side, is class ``j``), in the
        order they appear in ``X`` -- as in scikit-learn's ``OneVsOneClassifier``. The
        estimator's ``class_weight`` becomes ``{0: c_i, 1: c_j}`` for that machine, and
        ``sample_weight`` (optional, for an estimator whose ``fit`` takes it) is passed on
        for its examples (module docstring). With a precomputed kernel ``X`` is the Gram
        matrix and the machine gets its rows and columns of the two classes.
        """
        X, y_idx = self._validate_fit(X, y)
        sw = self._sample_weight(X, sample_weight)
        cw = self._class_weights(y_idx, sw)
        base = self._shared_kernel(self._base(), X)
        pairwise = self._pairwise_input()
        shared = None if pairwise else self._shared_gram(base, X, y_idx)
        if shared is not None:
            self._pair_rows = None          # (set by the batched fit, which has them)
            self.estimators_ = self._fit_on_shared_gram(base, X, y_idx, sw, cw, shared)
            self.pairs_ = pairs(len(self.classes_))
            self._train_rows = None
            if self._pair_rows is None:
                self._pair_rows = [np.flatnonzero((y_idx == i) | (y_idx == j))
                                   for i, j in self.pairs_]
            return self
        fixed = None if pairwise else self._fixed_kernel(base, X)
        if fixed is not None:
            self.estimators_ = self._fit_without_clones(base, X, y_idx, sw, cw, fixed[0])
            self.pairs_ = pairs(len(self.classes_))
            self._train_rows = self._pair_rows = None    # (evaluated machine by machine)
            return self
        self._pair_rows = None
        jobs, rows = [], []
        for i, j in pairs(len(self.classes_)):
            idx = np.flatnonzero((y_idx == i) | (y_idx == j))
            est = base if cw is None else clone(base).set_params(
                class_weight={0: cw[i], 1: cw[j]})
            Xp = X[np.ix_(idx, idx)] if pairwise else take_rows(X, idx)
            labels = self.classes_.tolist()
            what = f"the classes {labels[i]!r} and {labels[j]!r}, labelled 0 and 1"
            jobs.append(delayed(_fit_one)(est, Xp, (y_idx[idx] == j).astype(int),
                                          None if sw is None else sw[idx], what))
            rows.append(idx)
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(jobs)
        self.pairs_ = pairs(len(self.classes_))
        self._train_rows = rows if pairwise else None
        return self

    def _shared_gram(self, base, X, y_idx):
        """The kernel of the pairwise machines when they read one kernel matrix of the
        whole sample (module docstring, "One kernel matrix"), or None when each computes
        its own."""
        fixed = self._fixed_kernel(base, X)
        if fixed is None:
            return None
        kernel, budget = fixed
        m = X.shape[0]
        largest = np.sort(np.bincount(y_idx))[-2:].sum()     # the examples of the largest pair
        if 8.0 * (m * m + 3.0 * largest ** 2) > budget:
            return None                  # too large
        return kernel

    def _fixed_kernel(self, base, X):
        """``(kernel, budget in bytes)`` when the pairwise machines may share kernel values
        (a :class:`kernelclf.margin.svm.SupportVectorMachine` with SMO, one job, an array
        input, a kernel of fixed parameters), else None."""
        from .kernels.closure import Kernel
        from .margin.svm import SupportVectorMachine

        if type(base) is not SupportVectorMachine or self.n_jobs not in (None, 1) \
                or not isinstance(X, np.ndarray) or X.ndim != 2:
            return None
        params = base.get_params(deep=False)
        if params["solver"] != "smo" or (isinstance(params["kernel"], str)
                                         and params["kernel"] == "precomputed"):
            return None
        try:
            budget = float(params["cache_mb"]) * 2 ** 20
            probe = clone(base)
            probe._validate_params()
            kernel = probe._fit_kernel()
        except (TypeError, ValueError):
            return None                  # refused by the estimator's own validation
        if not isinstance(kernel, Kernel):
            return None
        fixed = kernel.resolve(X)        # (the same object without data-driven parameters)
        if fixed is not kernel and repr(fixed) != repr(kernel):
            return None                  # a width each machine takes itself
        return kernel, budget

    def _fit_on_shared_gram(self, base, X, y_idx, sw, cw, kernel):
        """The pairwise machines, each fitted on its rows and columns of one kernel matrix.

        The matrix is computed once with the examples sorted by class (one kernel call,
        checked once by the guard), so that a pair's matrix is assembled from four
        contiguous blocks and then put into the order of the pair's examples in ``X``
        (the order of the general path)."""

        from .kernels.gram_guard import _psd_by_construction, check_gram, check_memory
        from .kernels.native_columns import whole_rbf_matrix

        K, m = len(self.classes_), X.shape[0]
        members = [np.flatnonzero(y_idx == c) for c in range(K)]
        rank = np.empty(m, dtype=np.intp)         # each example's place in its class
        for idx in members:
            rank[idx] = np.arange(idx.size)
        starts = np.concatenate([[0], np.cumsum([idx.size for idx in members])])
        blocks = [slice(starts[c], starts[c + 1]) for c in range(K)]
        Xs = X[np.concatenate(members)]
        check_memory(m, m, what="kernel matrix of the whole training sample", kernel=kernel)
        G = whole_rbf_matrix(kernel, Xs)         # (RBF with numba: the same, in fewer passes)
        if G is None:
            G = np.asarray(kernel(Xs), dtype=float)
            check_gram(G, kernel, Xs)
        else:                                   # (entries in [0, 1], the diagonal's 1)
            check_gram(G, kernel, Xs, bounds=(0.0, 1.0))
        psd = _psd_by_construction(kernel)      # (else the guard also sees each pair's)
        # memory for the largest pair, reused by every pair (fresh pages cost a fault each;
        # a fitted machine keeps no reference to its training matrix)
        size = max(members[i].size + members[j].size for i, j in pairs(K)) ** 2
        bufs = [np.empty(size) for _ in range(3)]
        template = clone(base)
        labels = self.classes_.tolist()
        if psd and sw is None and (cw is None or np.all(cw > 0)) \
                and template._batch_pairs():
            return self._fit_batched(template, X, y_idx, cw, G, members, rank, starts,
                                     kernel, labels, Xs)
        out = []
        for i, j in pairs(K):
            idx = np.flatnonzero((y_idx == i) | (y_idx == j))
            ni, n = members[i].size, idx.size
            a, b = blocks[i], blocks[j]
            Xp = X[idx]
            try:
                B, T, Gp = (buf[:n * n].reshape(n, n) for buf in bufs)
                B[:ni, :ni], B[:ni, ni:] = G[a, a], G[a, b]
                B[ni:, :ni], B[ni:, ni:] = G[b, a], G[b, b]
                in_j = y_idx[idx] == j
                perm = rank[idx] + ni * in_j
                np.take(np.take(B, perm, axis=0, out=T), perm, axis=1, out=Gp)
                if not psd:
                    check_gram(Gp, kernel, Xp)
                est = _pair_machine(template, _kernel_copy(template.kernel), cw, i, j)
                est._fit_on_gram(Xp, in_j.astype(int), Gram(kernel, Xp, G=Gp, check=False),
                                 None if sw is None else sw[idx])
            except ValueError as exc:
                _note_pair(exc, labels, i, j)
                raise
            out.append(est)
        return out

    def _fit_batched(self, template, X, y_idx, cw, G, members, rank, starts, kernel,
                     labels, Xs):
        """The pairwise machines of :meth:`_fit_on_shared_gram` with every pair's dual
        solved in one compiled call (:func:`kernelclf.margin.smo.compiled.solve_pairs_on_blocks`:
        the pair loop of the binary SVM on each pair's rows and columns of ``G``, read in
        place, from the start the binary fit takes); each machine then gets its polish, its
        threshold and its attributes as in :meth:`SupportVectorMachine._fit_on_gram`. For
        the C-SVM of positive weights, with numba (``SupportVectorMachine._batch_pairs``)."""
        from .margin.smo import compiled as _cc

        C = float(template.C)
        K = len(self.classes_)
        plist = pairs(K)
        pi, pj = (np.array(side) for side in zip(*plist))
        # every pair's examples at once: (pair, example) in the order of the pairs, each
        # pair's examples in their order in X (np.nonzero of a matrix goes row by row)
        member = y_idx[None, :] == np.arange(K)[:, None]
        pair_of, rows = np.nonzero(member[pi] | member[pj])
        counts = np.bincount(pair_of, minlength=len(plist))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        in_j = y_idx[rows] == pj[pair_of]
        pos_all = (np.where(in_j, starts[pj][pair_of], starts[pi][pair_of])
                   + rank[rows]).astype(np.int64)
        s_all = np.where(in_j, 1.0, -1.0)
        C_all = np.full(rows.size, C) if cw is None else \
            C * np.where(in_j, cw[pj][pair_of], cw[pi][pair_of])
        max_iters = [template._max_iter(int(n)) for n in counts]
        # each pair's examples (rows of X), for the evaluation from one kernel matrix
        self._pair_rows = [rows[offsets[p]:offsets[p + 1]] for p in range(len(plist))]
        alpha_all, F_all, codes, iters, gaps, objectives, polished = \
            _cc.solve_pairs_on_blocks(G, pos_all, offsets.astype(np.int64), s_all, C_all,
                                      float(template.tol), np.asarray(max_iters, dtype=np.int64),
                                      template._polish)
        # the kernel objects of each machine (``kernel`` and the fitted ``kernel_``): copies
        # of one clone when its parameters are plain numbers or strings (what a clone per
        # machine would hold), else a clone per machine
        kparam = template.kernel
        kfit = _shallow_copy(template)._fit_kernel()
        plain = cw is None and all(
            isinstance(v, (str, bool, int, float, type(None))) or np.isscalar(v)
            for k in (kparam, kfit) if hasattr(k, "get_params")
            for v in k.get_params(deep=False).values())
        out = [_pair_machine(template, _shallow_copy(kparam) if plain
                             else _kernel_copy(kparam), cw, i, j) for i, j in plist]
        done = np.zeros(len(plist), dtype=bool)
        if plain:           # (the machines of converged pairs, polished in compiled code)
            done = template._fit_pairs_on_solutions(
                out, X, rows, s_all, C_all, alpha_all,
                F_all, offsets, iters, objectives, [_shallow_copy(kfit) for _ in plist],
                (codes == _cc.DONE) & (polished != 2), Xs, pos_all)
        for p, (i, j) in enumerate(plist):
            if done[p]:
                continue
            a, b = offsets[p], offsets[p + 1]
            idx, in_j_p = rows[a:b], in_j[a:b]
            est = out[p]
            try:
                sol = est._pair_solution(G, pos_all[a:b], s_all[a:b], C_all[a:b],
                                         alpha_all[a:b].copy(), F_all[a:b].copy(),
                                         int(codes[p]), int(iters[p]), float(gaps[p]),
                                         float(objectives[p]), int(polished[p]))
                if plain:
                    est._fit_on_solution(X[idx], in_j_p.astype(int), _shallow_copy(kfit), sol)
                else:
                    est._fit_on_gram(X[idx], in_j_p.astype(int), None, solution=sol)
            except ValueError as exc:
                _note_pair(exc, labels, i, j)
                raise
        return out

    def _fit_without_clones(self, base, X, y_idx, sw, cw, kernel):
        """The pairwise machines when the whole kernel matrix does not fit ``cache_mb``
        (module docstring, "One kernel matrix"): each fitted on its pair's examples with its
        own kernel columns (:meth:`SupportVectorMachine._fit_on_gram` without a matrix:
        the SMO's column cache and kernel guard of :meth:`SupportVectorMachine.fit`), the
        same machine as a clone's ``fit``, without the clone and the re-validation of the
        parameters and inputs the wrapper has validated.

        With numba and a kernel positive semi-definite by construction, the kernel guard's
        sample checks (finite, in range, not degenerate: :class:`kernelclf.kernels.gram.Gram`)
        run once on the whole sample instead of once per pair, and each pair's SMO gets its
        columns unchecked by Python (its compiled columns, which the kernel has, refuse a
        value that is not finite); pairs of at most ``_PRECOMPUTE_MAX`` examples, whose matrix is stored and
        checked whole, keep their own. ``kernel``: the machines' kernel, fixed
        (:meth:`_fixed_kernel`)."""
        from .kernels.gram_guard import _psd_by_construction
        from .kernels.native_columns import NONE, column_spec
        from .margin._dual import _PRECOMPUTE_MAX
        from .margin.smo import HAVE_NUMBA

        template = clone(base)
        labels = self.classes_.tolist()
        kparam = template.kernel
        once = HAVE_NUMBA and _psd_by_construction(kernel)
        if once:            # (the guard's checks; its columns compiled, as the pairs' are)
            whole = Gram(kernel, X, precompute=False, cache_mb=0.01)
            once = column_spec(whole)[0] != NONE
        K = len(self.classes_)
        blocks = _ClassBlocks.of(kernel, X, y_idx, K, float(template.cache_mb)) \
            if once else None
        out = []
        for i, j in pairs(K):
            idx = np.flatnonzero((y_idx == i) | (y_idx == j))
            est = _pair_machine(template, _kernel_copy(kparam), cw, i, j)
            Xp = X[idx]
            gram = _PairGram(kernel, Xp, whole.diag[idx], template.cache_mb) \
                if once and idx.size > _PRECOMPUTE_MAX else None
            if gram is not None and blocks is not None:
                in_j = y_idx[idx] == j
                gram._pair_whole = functools.partial(blocks.pair_matrix, i, j, in_j)
                # (the pair's columns from the blocks while its budget holds them all)
                if blocks.COLUMNS and \
                        int(template.cache_mb * 2 ** 20 // (8 * idx.size)) >= idx.size:
                    gram._pair_spec = blocks.pair_spec(i, j, in_j)
            try:
                est._fit_on_gram(Xp, (y_idx[idx] == j).astype(int), gram,
                                 None if sw is None else sw[idx])
            except ValueError as exc:
                _note_pair(exc, labels, i, j)
                raise
            out.append(est)
        return out

    def _input_of(self, p, X, rows=None):
        """What machine ``p`` evaluates for the test inputs ``X`` (their rows ``rows``): the
        inputs, or, for a precomputed kernel, the columns of the machine's training
        examples."""
        if rows is not None:
            X = take_rows(X, rows)
        train = getattr(self, "_train_rows", None)
        return X if train is None else X[:, train[p]]

    @staticmethod
    def _wins_j(est, X):
        """Boolean array: does the machine of pair ``(i, j)`` vote for ``j``?"""
        return np.asarray(est.predict(X)).ravel() == 1

    def pairwise_winners(self, X):
        """``(n, K (K - 1) / 2)`` int array: the class index each pairwise machine votes for.

        Column ``p`` belongs to the pair ``pairs_[p]``.
        """
        X = self._validate_test(X)
        return self._pairwise_winners(X, self._shared_outputs(X))

    def _pairwise_winners(self, X, outputs=None):
        """``outputs``: :meth:`_shared_outputs` of ``X`` when it has them."""
        out = np.empty((n_rows(X), len(self.pairs_)), dtype=int)
        for p, ((i, j), est) in enumerate(zip(self.pairs_, self.estimators_)):
            wins = outputs[:, p] > 0 if outputs is not None else \
                self._wins_j(est, self._input_of(p, X))
            out[:, p] = np.where(wins, j, i)
        return out

    def _shared_outputs(self, X):
        """``(n, K (K - 1) / 2)``: the ``decision_function`` of every pairwise machine on
        the validated test inputs ``X``, from one kernel matrix between ``X`` and the union
        of the machines' support vectors (as libsvm's one-versus-one prediction: a support
        vector of several machines is evaluated once), or None (machines fitted one by
        one, or inputs that are not an array)."""
        from .margin.svm import SupportVectorMachine, _RowsOf

        rows = getattr(self, "_pair_rows", None)
        ests = self.estimators_
        if rows is None or not isinstance(X, np.ndarray) or len(rows) != len(ests) \
                or any(type(e) is not SupportVectorMachine for e in ests):
            return None
        glob = [r[e.support_] for r, e in zip(rows, ests)]     # support vectors in X's rows
        union = np.unique(np.concatenate(glob))
        where = [np.searchsorted(union, g) for g in glob]
        XU = np.empty((union.size, X.shape[1]))
        for w, e in zip(where, ests):       # (rows of the wrapper's copy, left unread)
            sv = e.__dict__.get("support_vectors_")
            XU[w] = sv.take() if type(sv) is _RowsOf else e.support_vectors_
        KU = ests[0]._kernel_rows(X, XU)
        out = np.empty((X.shape[0], len(ests)))
        for p, (w, e) in enumerate(zip(where, ests)):
            out[:, p] = KU[:, w] @ e.dual_coef_[0] + e.intercept_
        return out

    @available_if(_estimators_have("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities ``(n, K)`` by pairwise coupling (Wu, Lin & Weng 2004).

        The machine of pair ``(i, j)`` gives ``r_ji = P(j | i or j, x)`` (its
        probability of label 1) and ``r_ij = 1 - r_ji``; :func:`pairwise_coupling`
        combines them (libsvm's multi-class probabilities). Only when the binary
        estimator has ``predict_proba``. With ``K = 2``: the single machine's
        ``predict_proba``. The arg-max of the probabilities need not be the voted (or
        DAG) prediction: the vote counts wins, the coupling weighs how sure each
        machine is.
        """
        X = self._validate_test(X)
        if len(self.classes_) == 2:
            return np.asarray(self.estimators_[0].predict_proba(X), dtype=float)
        K = len(self.classes_)
        r = np.full((n_rows(X), K, K), 0.5)
        for p, ((i, j), est) in enumerate(zip(self.pairs_, self.estimators_)):
            q = _positive_proba(est, self._input_of(p, X))
            r[:, j, i] = q
            r[:, i, j] = 1.0 - q
        return pairwise_coupling(r)


class OneVsOneClassifier(_PairwiseBase):
    """One-versus-one: majority vote of the pairwise machines (LKC §2.4.4; RMM §5.2).

    Each of the ``K (K - 1) / 2`` binary machines votes for one of its two classes; the
    prediction is the class with most wins, ``argmax_y n_y`` of LKC §2.4.4 (method 2).
    RMM §5.2 (45 machines for the ten digits) breaks ties uniformly at random.

    Parameters
    ----------
    estimator : binary classifier, default None
        Any estimator with ``fit`` and ``predict`` (and ``decision_function`` for
        ``tie_break="confidence"``; with ``predict_proba`` the wrapper has
        :meth:`predict_proba`, by pairwise coupling); ``None`` means
        :class:`kernelclf.margin.svm.SupportVectorMachine` with its defaults. It is cloned for
        every pair.
    tie_break : {'random', 'first', 'confidence'}, default 'random'
        How a point with several classes sharing the largest number of votes is decided.

        * ``'random'`` (RMM §5.2): uniformly among the tied classes. The draw for a test
          point comes from a generator seeded with a fit-time seed (from
          ``random_state``) and a hash of the point itself, so a point gets the same
          answer in every call and in every batch (scikit-learn checks that predictions
          on a subset equal those on the whole); over points and over seeds the choice is
          uniform over the tied classes.
        * ``'first'``: the tied class with the lowest index in ``classes_``.
        * ``'confidence'``: scikit-learn's rule (``sklearn.multiclass.OneVsOneClassifier``):
          the class whose summed pairwise ``decision_function`` values are largest; this
          reproduces scikit-learn's ``decision_function`` exactly, given the same pairwise
          machines (a data-driven width, ``kernel='rbf'`` or ``'poly'``, is fixed here on
          the whole sample and in scikit-learn's wrapper on each pair's examples: module
          docstring).
    random_state : int, RandomState or None
        Seeds the random tie-breaking (drawn once in ``fit``). Not passed on to the
        pairwise machines (set ``estimator__random_state`` for them).
    n_jobs : int or None
        Pairwise machines fitted in parallel (joblib).

    Attributes
    ----------
    estimators_ : list of fitted binary estimators
        One per pair ``pairs_[p] = (i, j)``, ``i < j``, trained with class ``j`` as 1.
        With ``K = 2`` the single machine is trained on all of ``X`` and ``predict`` /
        ``decision_function`` are its own.
    pairs_ : list of (int, int)
    classes_ : (K,) array
    tie_seed_ : int
        The seed of the random tie-breaking.
    n_features_in_ : int
        For array inputs (not for lists of strings).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "tie_break": [StrOptions({"random", "first", "confidence"})],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
    }

    def __init__(self, estimator=None, tie_break="random", random_state=None, n_jobs=None):
        self.estimator = estimator
        self.tie_break = tie_break
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit the pairwise machines (weights as in the module docstring) and draw the
        tie-breaking seed."""
        super().fit(X, y, sample_weight)
        self.tie_seed_ = int(check_random_state(self.random_state).randint(2 ** 31 - 1))
        return self

    def vote_counts(self, X):
        """``(n, K)`` int array: ``n_y``, the number of pairwise wins of each class.

        Every row sums to ``K (K - 1) / 2``.
        """
        X = self._validate_test(X)
        return self._votes(self._pairwise_winners(X, self._shared_outputs(X)))

    def _votes(self, winners):
        K = len(self.classes_)
        votes = np.zeros((winners.shape[0], K), dtype=int)
        for p in range(winners.shape[1]):
            np.add.at(votes, (np.arange(winners.shape[0]), winners[:, p]), 1)
        return votes

    def _tie_keys(self, X, votes, outputs=None):
        """Fractional keys in ``[0, 1/3)`` that order the tied classes of each row
        (``outputs``: :meth:`_shared_outputs` of ``X`` when it has them)."""
        keys = np.zeros(votes.shape)
        if self.tie_break == "first":
            return keys
        if self.tie_break == "confidence":
            conf = np.zeros(votes.shape)
            for p, ((i, j), est) in enumerate(zip(self.pairs_, self.estimators_)):
                c = outputs[:, p] if outputs is not None else \
                    np.ravel(est.decision_function(self._input_of(p, X)))
                conf[:, i] -= c
                conf[:, j] += c
            return conf / (3 * (np.abs(conf) + 1))  # sklearn's monotone map into (-1/3, 1/3)
        tied = votes == votes.max(axis=1, keepdims=True)
        K = votes.shape[1]
        for r in np.flatnonzero(tied.sum(axis=1) > 1):
            u = np.random.default_rng([self.tie_seed_, _row_digest(X, r)]).random(K)
            keys[r, tied[r]] = u[tied[r]] / 3
        return keys

    def decision_function(self, X):
        """Votes plus a tie-breaking key: ``(n, K)``, or the binary output if ``K = 2``.

        The integer part of each entry is the vote count ``n_y`` (``np.rint`` recovers it,
        see also :meth:`vote_counts`); the key, of absolute value below 1/3, never
        overturns a difference of one vote and makes ``argmax`` the prediction:

        * ``tie_break='random'``: on rows with tied winners, independent uniform keys in
          ``[0, 1/3)`` on the tied classes (zero elsewhere);
        * ``tie_break='first'``: no key (plain vote counts);
        * ``tie_break='confidence'``: scikit-learn's normalised summed confidences
          ``s / (3 (|s| + 1))``, where ``s_y`` adds the pairwise outputs in favour of
          ``y`` -- identical to ``sklearn.multiclass.OneVsOneClassifier`` with the same
          pairwise machines (see the class docstring on data-driven kernel widths).
        """
        X = self._validate_test(X)
        if len(self.classes_) == 2:
            return self.estimators_[0].decision_function(X)
        F = self._shared_outputs(X)
        votes = self._votes(self._pairwise_winners(X, F))
        return votes + self._tie_keys(X, votes, F)

    def predict(self, X):
        """The class with most pairwise wins, ties broken by ``tie_break``."""
        X = self._validate_test(X)
        if len(self.classes_) == 2:
            return self.classes_[self._wins_j(self.estimators_[0], X).astype(int)]
        F = self._shared_outputs(X)
        votes = self._votes(self._pairwise_winners(X, F))
        return self.classes_[np.argmax(votes + self._tie_keys(X, votes, F), axis=1)]


class DAGClassifier(_PairwiseBase):
    """Decision DAG over the pairwise machines (Platt, Cristianini & Shawe-Taylor, 2000).

    LKC §2.4.4 (the last paragraph on multiclass machines, before support vector
    regression). The classes are kept in a list (the order of ``classes_``). The root
    machine compares the first and the last class of the list; the class it votes
    against leaves the list, and the next machine compares the new first and last
    classes. After ``K - 1`` evaluations one class is left: the
    prediction. The decision is made by elimination, not by counting votes; when one
    class beats all others (it wins all its ``K - 1`` comparisons) the DAG and the
    one-versus-one vote agree, since that class is never eliminated.

    Parameters
    ----------
    estimator : binary classifier, default None
        Any estimator with ``fit`` and ``predict`` (with ``predict_proba`` the DAG
        offers :meth:`predict_proba`: the pairwise coupling of the same machines, as for
        :class:`OneVsOneClassifier`); ``None`` means
        :class:`kernelclf.margin.svm.SupportVectorMachine`.
    n_jobs : int or None
        Pairwise machines fitted in parallel (joblib).

    Attributes
    ----------
    estimators_ : list of fitted binary estimators
        As in :class:`OneVsOneClassifier` (the same machines).
    pairs_ : list of (int, int)
    classes_ : (K,) array
    n_features_in_ : int
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_jobs": _N_JOBS,
    }

    def __init__(self, estimator=None, n_jobs=None):
        self.estimator = estimator
        self.n_jobs = n_jobs

    def _walk(self, X):
        n, K = n_rows(X), len(self.classes_)
        index = {pq: p for p, pq in enumerate(self.pairs_)}
        lo = np.zeros(n, dtype=int)
        hi = np.full(n, K - 1, dtype=int)
        path = np.empty((n, K - 1), dtype=int)
        for step in range(K - 1):
            for a, b in set(zip(lo.tolist(), hi.tolist())):
                rows = np.flatnonzero((lo == a) & (hi == b))
                p = index[(a, b)]
                path[rows, step] = p
                wins_b = self._wins_j(self.estimators_[p], self._input_of(p, X, rows))
                lo[rows[wins_b]] += 1      # class a eliminated
                hi[rows[~wins_b]] -= 1     # class b eliminated
        return lo, path

    def decision_path(self, X):
        """``(n, K - 1)`` int array: the pairwise machine (index into ``pairs_``) used at
        each level of the DAG for each point."""
        X = self._validate_test(X)
        return self._walk(X)[1]

    def predict(self, X):
        """The class left after ``K - 1`` eliminations."""
        X = self._validate_test(X)
        return self.classes_[self._walk(X)[0]]


class OneVsRestClassifier(_MulticlassBase):
    """One-versus-rest with arg-max decision and rejection (LKC §2.4.4; BPM §4.3).

    Machine ``k`` is trained on all examples, class ``k`` labelled 1 and the others 0;
    the prediction is ``argmax_y f_y(x)`` (LKC §2.4.4, method 1; BPM §4.3, where
    ``f_y`` is the output of the Bayes point of class ``y``). BPM §4.3 then measures how
    the error depends on the winning output ``max_y f_y(x)``: for a rejection rate ``r``
    the fraction ``r`` of test points with the smallest winning output is rejected, and
    the error on the remaining points is plotted against ``r`` (Fig. 9).
    :meth:`rejection_curve` does that (with :func:`rejection_errors`); the margin between
    the two largest outputs is offered as an alternative confidence.

    Parameters
    ----------
    estimator : binary classifier, default None
        Any estimator with ``fit`` and ``decision_function`` (or the method named by
        ``response_method``; with ``predict_proba`` the wrapper has :meth:`predict_proba`);
        ``None`` means :class:`kernelclf.margin.svm.SupportVectorMachine`.
    response_method : str, default 'decision_function'
        The method giving each machine's real-valued output. BPM §4.3 uses the cosine
        between the weight vector and the image of ``x`` (the output divided by
        ``||phi(x)||``), which for :class:`kernelclf.bayespoint.bpm.BayesPointMachine` is
        ``'normalized_decision_function'``.
    n_jobs : int or None
        Machines fitted in parallel (joblib).

    Attributes
    ----------
    estimators_ : list of fitted binary estimators
        ``K`` machines, or one machine when ``K = 2`` (trained on all labels as 0/1; its
        ``predict`` and output are returned unchanged).
    classes_ : (K,) array
    n_features_in_ : int

    Notes
    -----
    Exact ties in the outputs go to the lowest class index (``np.argmax``), as in
    scikit-learn's ``OneVsRestClassifier`` (which loops over its machines in reverse
    order for that reason; ``tests/test_multiclass.py`` checks the two agree on ties).
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "decision_function"]), None],
        "response_method": [str],
        "n_jobs": _N_JOBS,
    }

    def __init__(self, estimator=None, response_method="decision_function", n_jobs=None):
        self.estimator = estimator
        self.response_method = response_method
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit ``K`` machines, class ``k`` (as 1) against the rest (as 0).

        The estimator's ``class_weight`` becomes per-example factors of each machine's
        ``sample_weight`` (the "rest" mixes classes; module docstring), and
        ``sample_weight`` (optional) is passed on; with ``K = 2`` the single machine keeps
        the ``class_weight`` of the two classes (``{0: c_0, 1: c_1}``).
        """
        X, y_idx = self._validate_fit(X, y)
        base = self._base()
        if not callable(getattr(base, self.response_method, None)):
            raise ValueError(f"the estimator {type(base).__name__} has no method "
                             f"response_method={self.response_method!r}")
        sw = self._sample_weight(X, sample_weight)
        cw = self._class_weights(y_idx, sw)
        base = self._shared_kernel(base, X)
        K = len(self.classes_)
        targets = [y_idx] if K == 2 else [(y_idx == k).astype(int) for k in range(K)]
        if cw is not None and K == 2:
            base = clone(base).set_params(class_weight={0: cw[0], 1: cw[1]})
        elif cw is not None:
            if not _takes_sample_weight(base):
                raise TypeError(f"one-versus-rest gives class_weight to each machine as "
                                f"sample weights, but {type(base).__name__}.fit takes no "
                                "sample_weight")
            factors = cw[y_idx]
            sw = factors if sw is None else sw * factors
            base = clone(base).set_params(class_weight=None)
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(base, X, t, sw,
                              None if K == 2 else f"class {self.classes_.tolist()[k]!r} "
                              "(labelled 1) against the rest (labelled 0)")
            for k, t in enumerate(targets))
        return self

    def _outputs(self, X):
        n = n_rows(X)
        cols = []
        for est in self.estimators_:
            f = np.asarray(getattr(est, self.response_method)(X), dtype=float)
            if f.size != n:
                raise ValueError(f"{self.response_method} of {type(est).__name__} must give "
                                 f"one real output per point, got shape {f.shape} for {n} "
                                 "points")
            cols.append(f.ravel())
        return cols[0] if len(cols) == 1 else np.column_stack(cols)

    def decision_function(self, X):
        """``(n, K)`` outputs ``f_y(x)``, or the single machine's ``(n,)`` output if ``K = 2``."""
        X = self._validate_test(X)
        return self._outputs(X)

    @available_if(_estimators_have("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities ``(n, K)``: each machine's ``P(class k | x)``, normalised.

        As scikit-learn's ``OneVsRestClassifier`` (single-label case): column ``k`` is
        machine ``k``'s probability of its label 1 divided by the row's sum (a row of
        zeros, possible only with hard 0/1 outputs, becomes ``1/K`` each). Only when
        the binary estimator has ``predict_proba``. With ``K = 2``: the single
        machine's ``predict_proba``. The arg-max equals :meth:`predict` when every
        machine's probability is the same increasing function of its output (e.g.
        logistic regression); with per-machine Platt sigmoids it may differ.
        """
        X = self._validate_test(X)
        if len(self.classes_) == 2:
            return np.asarray(self.estimators_[0].predict_proba(X), dtype=float)
        P = np.column_stack([_positive_proba(est, X) for est in self.estimators_])
        total = P.sum(axis=1, keepdims=True)
        return np.divide(P, total, out=np.full_like(P, 1.0 / P.shape[1]), where=total > 0)

    def predict(self, X):
        """``argmax_y f_y(x)`` (for ``K = 2``: the binary machine's prediction)."""
        X = self._validate_test(X)
        if len(self.classes_) == 2:
            pred = np.asarray(self.estimators_[0].predict(X)).ravel() == 1
            return self.classes_[pred.astype(int)]
        return self.classes_[np.argmax(self._outputs(X), axis=1)]

    def confidence(self, X, kind="max"):
        """Per-point confidence used for rejection.

        ``kind='max'``: the winning output ``max_y f_y(x)`` (BPM §4.3, the quantity
        rejected on there); ``kind='gap'``: the largest output minus the second largest.
        For ``K = 2`` the single output ``f`` stands for the pair ``(-f, f)``, giving
        ``|f|`` and ``2 |f|``.
        """
        if kind not in ("max", "gap"):
            raise ValueError(f"kind must be 'max' or 'gap', got {kind!r}")
        X = self._validate_test(X)
        F = self._outputs(X)
        if F.ndim == 1:
            F = np.column_stack([-F, F])
        if kind == "max":
            return F.max(axis=1)
        top2 = np.sort(F, axis=1)[:, -2:]
        return top2[:, 1] - top2[:, 0]

    def rejection_curve(self, X, y, fractions=None, kind="max"):
        """Error on the kept test points for each rejection rate (BPM §4.3, Fig. 9).

        Rejects the ``round(r n)`` points of ``X`` with the smallest :meth:`confidence`
        (``kind='max'`` is BPM's winning output) and returns the error rate of the
        predictions on the others, one value per ``r`` in ``fractions`` (see
        :func:`rejection_errors`). ``fractions=None`` is :data:`REJECTION_RATES`, the
        rates of BPM Fig. 9 (0 to 10 % in steps of 1 %).
        """
        if fractions is None:
            fractions = REJECTION_RATES
        y = column_or_1d(y, warn=True)
        correct = self.predict(X) == y
        return rejection_errors(self.confidence(X, kind), correct, fractions)
