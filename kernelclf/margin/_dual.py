"""Book chapters 04 and 13 (``book/04_support_vector_machines.md``, ``book/13_relative_margin_machines.md``).

The estimator base of the dual kernel machines.

LKC §2.4 and eq. (2.54) (the expansion ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``); the
role of scikit-learn's ``BaseLibSVM``. Each dual machine (the C-SVM and the nu-SVM,
epsilon-SVR, the relative margin machines, the Universum SVM) states its dual problem
(:class:`~kernelclf.margin._dual_problem.DualProblem`: ``Q``'s signs, ``p``, the box,
the equality groups, the map of variables to examples) in ``_dual_problem``; everything
else is written once, here:

* the fit: validation (parameters, inputs, labels or targets), the training Gram matrix
  (whole, or columns on demand for large samples; or the matrix passed with
  ``kernel='precomputed'``), the solver
  (:func:`~kernelclf.margin._dual_problem.solve_dual`, SMO or the quadratic program), the
  convergence warning;
* the fitted attributes, with scikit-learn's ``SVC`` names and meaning: ``alpha_`` (the
  expansion coefficients of all examples), ``intercept_``, ``support_`` (``SVC``'s order:
  class by class, each in index order), ``dual_coef_``, ``support_vectors_``,
  ``n_support_``, ``multipliers_`` (the book's non-negative dual variables),
  ``dual_objective_``, ``n_iter_``, ``converged_``;
* the threshold, from the multipliers of the equalities
  (:func:`~kernelclf.margin._dual_problem.equality_multipliers`, libsvm's rule, for the SMO;
  :func:`~kernelclf.margin._dual_problem.interior_multipliers` for the quadratic program);
* the decision function ``f(x) = sum_{i in SV} alpha_i k(x_i, x) + b`` and, for the linear
  kernel, the weight vector ``coef_ = w = sum_i alpha_i x_i`` (as ``SVC.coef_``).

``kernel='precomputed'`` (as ``SVC``): ``fit`` takes the ``m x m`` Gram matrix of the
training examples and ``predict`` / ``decision_function`` the ``n x m`` matrix of kernel
values between the test and the training examples; the estimator is then "pairwise" for
scikit-learn's cross-validation. ``X_fit_`` is the training Gram matrix and
``support_vectors_`` its rows of the support vectors, so that
``decision_function(support_vectors_)`` gives their outputs (``SVC`` keeps an empty array
there). Unlike ``SVC``, the matrix passes the package's Gram guard
(:mod:`kernelclf.kernels.gram_guard`: finite, symmetric, positive semi-definite).

Sparse inputs (scipy.sparse, as ``SVC``): with a kernel that computes on sparse rows
(linear, polynomial, RBF, constants and callables, and the sums, products, multiples and
normalisations of such kernels) ``fit`` takes a sparse ``X`` (kept as CSR in ``X_fit_``);
``support_vectors_``, ``dual_coef_`` and ``coef_`` are then sparse matrices, as ``SVC``'s
after a sparse fit. A model fitted on sparse inputs also takes dense test inputs (as
``SVC``'s does), and, unlike ``SVC``, a model fitted on dense inputs takes sparse ones.
"""
from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, KernelMixin
from ..kernels.gram import Gram
from ..kernels.rows import is_sparse, n_rows, take_rows
from ..kernels.vector import Linear
from ._dual_problem import solve_dual
from .smo import HAVE_NUMBA, default_max_iter

__all__ = ["DUAL_KERNEL_CONSTRAINT", "DualKernelMachine", "DualClassifier", "DualRegressor"]

#: the ``kernel`` parameter of a dual machine: :data:`kernelclf.base.KERNEL_CONSTRAINT` or
#: ``'precomputed'``
DUAL_KERNEL_CONSTRAINT = [
    StrOptions(c.options | {"precomputed"}) if isinstance(c, StrOptions) else c
    for c in KERNEL_CONSTRAINT]

# the whole Gram matrix up to this many examples (else columns on demand, cached)
_PRECOMPUTE_MAX = 200
# ... and without numba (the NumPy engine: the in-browser lab, a bare install) up to
# _PRECOMPUTE_MAX_NUMPY examples (2000: 32 MB) when the matrix fits in ``cache_mb`` and
# either m <= _PRECOMPUTE_SMALL_NUMPY or the inputs are wide (see _whole_without_numba)
_PRECOMPUTE_MAX_NUMPY = 2000
_PRECOMPUTE_SMALL_NUMPY = 500
# the fraction of the columns the NumPy SMO computes on the benchmark's cells (0.25-0.55)
_COLUMNS_NEEDED = 0.3


def _whole_without_numba(X, m, cache_mb):
    """Whether the NumPy engine gets the whole Gram matrix of ``m`` inputs ``X``.

    Without numba each kernel column costs a Python call, a matrix-vector product and a
    finite check; the whole matrix is one kernel call (a matrix product through BLAS)
    and one check. Measured on the benchmark's cells (NumPy engine, one thread): the
    SMO computes 25-55 % of the columns; for 2-D inputs (two moons) the whole matrix
    pays at m = 500 (the per-column Python cost dominates) but not at m = 2000 (35 ms
    against 4-6 ms of columns), for 784 pixels (MNIST, m = 1250) it costs 56-70 ms
    against 75-108 ms of columns. Rule: ``m <= 500``, or wide inputs, for which
    :class:`kernelclf.kernels.gram.ColumnSlots`' cost model (``8 + n`` per column entry
    against ``8 + n / 20`` per matrix entry, ``n`` features) makes the whole matrix
    cheaper once 30 % of the columns are needed (``n >= 23``); always ``m <= 2000`` and
    ``8 m^2`` bytes within ``cache_mb``."""
    if m > _PRECOMPUTE_MAX_NUMPY or 8.0 * m * m > float(cache_mb) * 2 ** 20:
        return False
    if m <= _PRECOMPUTE_SMALL_NUMPY:
        return True
    n = X.shape[1] if X.ndim == 2 else 1
    return (8.0 + n / 20.0) / (8.0 + n) <= _COLUMNS_NEEDED


def _default_max_iter(m):
    """The SMO's iteration cap of a dual machine on ``m`` examples (``max_iter=None``):
    libsvm's (:func:`kernelclf.margin.smo.default_max_iter`)."""
    return default_max_iter(m)


class DualKernelMachine(KernelMixin, BaseEstimator):
    """Base of the dual kernel machines (module docstring).

    A subclass defines ``_dual_problem(gram, y, weights)``, returning the
    :class:`~kernelclf.margin._dual_problem.DualProblem` of the validated sample, and may
    refine the hooks ``_solve`` (several solves), ``_gram``, ``_support_mask``,
    ``_threshold`` and ``_store_extra`` (its own fitted attributes).
    """

    #: scipy.sparse inputs with a kernel that takes them (linear, polynomial, RBF), as SVC
    _sparse_inputs = True
    #: the solver without a ``solver`` parameter ('smo' or 'qp')
    _default_solver = "smo"
    #: the quadratic program's tolerance is ``min(tol, _qp_tol_cap)``
    _qp_tol_cap = 1e-8
    #: the SMO's final exact solve on the free variables (``solve_smo(polish=True)``)
    _polish = True
    #: the interior-point solution's support: ``|alpha_i| > _qp_support * max |alpha|``
    _qp_support = 1e-5

    # -- kernel='precomputed' -----------------------------------------------------
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _fit_kernel(self):
        if self._precomputed():
            self.kernel_ = "precomputed"
            return self.kernel_
        return super()._fit_kernel()

    def _takes_strings(self):
        return False if self._precomputed() else super()._takes_strings()

    def _takes_sparse(self):
        return False if self._precomputed() else super()._takes_sparse()

    def _sparse_option(self, X):
        if self._precomputed() and sp.issparse(X):
            raise TypeError("Sparse precomputed kernels are not supported: with "
                            "kernel='precomputed' pass the Gram matrix as a dense array "
                            "(K.toarray())")
        return super()._sparse_option(X)

    def _validate_X(self, X, reset):
        if not self._precomputed():
            return super()._validate_X(X, reset)
        m = self.X_fit_.shape[0]
        self._sparse_option(X)
        if np.ndim(X) == 2 and np.shape(X)[1] != m:
            raise ValueError(
                f"kernel='precomputed': X must be the kernel matrix between the test points "
                f"and the {m} training points ({m} columns), got shape {np.shape(X)}")
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)

    def _check_square(self, X):
        if self._precomputed() and X.shape[0] != X.shape[1]:
            raise ValueError(
                "kernel='precomputed': X must be the square Gram matrix of the training "
                f"examples (m x m), got a {X.shape[0]} x {X.shape[1]} matrix")

    def _train_part(self, X, idx):
        """Examples ``idx`` of validated training inputs (for a precomputed kernel: the
        rows and the columns ``idx`` of the Gram matrix)."""
        return X[np.ix_(idx, idx)] if self._precomputed() else take_rows(X, idx)

    def _test_part(self, X, rows, train):
        """Examples ``rows`` as test inputs of a machine fitted on the examples ``train``
        (for a precomputed kernel: rows ``rows``, columns ``train``)."""
        return X[np.ix_(rows, train)] if self._precomputed() else take_rows(X, rows)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags

    # -- the fit ------------------------------------------------------------------
    def _gram(self, X):
        """The training Gram matrix: the given one (``kernel='precomputed'``), whole for
        small samples (``m <= 200``; without numba see :func:`_whole_without_numba`) or
        the quadratic program, else columns on demand from the cache
        (:class:`kernelclf.kernels.gram.Gram`)."""
        if self._precomputed():
            return Gram(G=X)
        m = n_rows(X)
        pre = self._route() == "qp" or m <= _PRECOMPUTE_MAX or \
            not (isinstance(X, np.ndarray) or is_sparse(X)) or \
            (not HAVE_NUMBA and _whole_without_numba(X, m, self.cache_mb))
        return self._training_gram(X, precompute=pre, cache_mb=self.cache_mb)

    def _route(self):
        """'qp' or 'smo' ('auto' is the SMO)."""
        return "qp" if getattr(self, "solver", self._default_solver) == "qp" else "smo"

    def _max_iter(self, m):
        """The SMO's iteration cap for ``m`` examples (``max_iter``, by default
        :func:`_default_max_iter`)."""
        max_iter = getattr(self, "max_iter", None)
        return _default_max_iter(m) if max_iter is None else int(max_iter)

    def _solve_problem(self, problem, gram, **kw):
        """Solve a :class:`~kernelclf.margin._dual_problem.DualProblem` with this machine's
        solver settings (``kw`` overrides them, e.g. ``max_iter`` or ``alpha0``)."""
        solver = self._route()
        kw.setdefault("max_iter", self._max_iter(gram.diag.shape[0]))
        return solve_dual(problem, gram, solver=solver,
                          tol=float(self.tol), qp_tol=min(float(self.tol), self._qp_tol_cap),
                          polish=self._polish, **kw)

    def _solve_checked(self, problem, gram, m, max_iter, check):
        """Solve in two parts when the problem may be infeasible (a hard margin, a hard tube):
        a short SMO run of at most ``20 m + 1000`` steps; if it has not converged, ``check()``
        (which raises for an infeasible problem) runs before the rest of ``max_iter`` is
        spent from where the short run stopped. A diverging dual is checked the same way."""
        from .smo import DualDivergenceError

        first = min(max_iter, 20 * m + 1000)
        try:
            sol = self._solve_problem(problem, gram, max_iter=first)
            if not sol.converged:
                check()
                if max_iter > first:
                    it0 = sol.iterations
                    sol = self._solve_problem(problem, gram, max_iter=max_iter - first,
                                              alpha0=sol.alpha)
                    sol.iterations += it0
        except DualDivergenceError:
            check()
            raise
        return sol

    def _solve(self, X, y, weights):
        """``(problem, solution)`` for the validated sample with example weights ``weights``
        (None or finite, ``>= 0``). Examples of weight 0 are left out of the dual, as libsvm
        does (``remove_zero_weight``): the problem of the others is solved and its variables
        are mapped to their examples (``points``), so they never become support vectors."""
        if weights is None or np.all(weights > 0):
            return self._solve_sample(X, y, weights)
        keep = np.flatnonzero(weights > 0)
        problem, sol = self._solve_sample(self._train_part(X, keep), y[keep], weights[keep])
        points = keep if problem.points is None else keep[problem.points]
        return replace(problem, points=points), sol

    def _solve_sample(self, X, y, weights):
        """``(problem, solution)`` for a sample whose weights (None or all > 0) are kept."""
        gram = self._gram(X)
        problem = self._dual_problem(gram, y, weights)
        return problem, self._solve_problem(problem, gram)

    def _fit_validated(self, X, y, weights=None):
        problem, sol = self._solve(X, y, weights)
        self._store(X, y, problem, sol)
        return self

    # -- the fitted attributes ----------------------------------------------------
    def _support_mask(self, coef, sol):
        """Support vectors: ``alpha_i != 0`` (SMO), ``|alpha_i| > _qp_support max |alpha|``
        (QP, whose multipliers are never exactly 0)."""
        if sol.route == "qp":
            return np.abs(coef) > self._qp_support * max(float(np.abs(coef).max(initial=0.0)),
                                                         1e-300)
        return coef != 0

    def _support_key(self, y, m):
        """Order of ``support_``: by this key, then by index (``None``: by index)."""
        return None

    def _threshold(self, problem, sol):
        """``intercept_``: the equality's multiplier (0 without equality)."""
        return sol.bias / problem.scale

    def _store(self, X, y, problem, sol):
        m = n_rows(X)
        coef = problem.coefficients(sol.alpha, m)
        self.X_fit_ = X
        self.alpha_ = coef
        self.intercept_ = float(self._threshold(problem, sol))
        sv = np.flatnonzero(self._support_mask(coef, sol))
        key = self._support_key(y, m)
        if key is not None:
            sv = sv[np.argsort(key[sv], kind="stable")]
        self.support_ = sv
        self.dual_coef_ = sp.csr_matrix(coef[sv][None, :]) if is_sparse(X) else coef[sv][None, :]
        self.support_vectors_ = take_rows(X, sv)
        self.multipliers_ = sol.alpha / problem.scale if problem.scale != 1.0 else sol.alpha
        self.dual_objective_ = float(-sol.objective / problem.scale ** 2)
        self.n_iter_ = max(int(sol.iterations), 1)
        self.converged_ = bool(sol.converged)
        self._store_extra(X, y, problem, sol)
        if not sol.converged:
            hint = "max_iter or tol" if "max_iter" in self.get_params() else "tol"
            warnings.warn(f"{type(self).__name__} stopped after {self.n_iter_} iterations "
                          f"before reaching the tolerance tol={self.tol:g}; the model is not "
                          f"optimal (raise {hint})", ConvergenceWarning, stacklevel=5)

    def _store_extra(self, X, y, problem, sol):
        """The machine's own fitted attributes (none here)."""

    def _train_outputs(self, X, problem, sol):
        """``(K alpha_)_i`` on every training example, without threshold: read off the
        gradient (:meth:`DualProblem.outputs`), and for the examples left out of the dual
        (weight 0) computed from the support vectors."""
        m = n_rows(X)
        g = problem.outputs(sol.alpha, sol.gradient, m)
        out = np.flatnonzero(np.isnan(g))
        if out.size:
            sv = np.flatnonzero(self.alpha_)
            K = X[np.ix_(out, sv)] if self._precomputed() else \
                self._kernel_rows(take_rows(X, out), take_rows(X, sv))
            g[out] = K @ self.alpha_[sv] if sv.size else 0.0
        return g

    # -- example weights ----------------------------------------------------------
    def _sample_weights(self, X, sample_weight):
        """``sample_weight`` validated (finite, ``>= 0``, one per example), or None."""
        if sample_weight is None:
            return None
        self._refuse_weights()
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if not np.any(sw > 0):
            raise ValueError("sample_weight is 0 on every example: at least one example "
                             "needs a positive weight")
        return sw

    def _refuse_weights(self):
        """Raise when this machine's settings cannot weight examples (none here)."""

    @staticmethod
    def _weight_norm(problem, sol):
        """``||w|| = sqrt(alpha' K alpha)`` from ``a'Qa = a'(G + p)`` (without ``shift``)."""
        a = sol.alpha
        quad = float(a @ (sol.gradient + problem.p))
        if np.any(problem.shift):
            quad -= float(a @ (problem.shift * a))
        return float(np.sqrt(max(quad, 0.0))) / problem.scale

    # -- the function -------------------------------------------------------------
    def _decision(self, X):
        """``f(x) = sum_{i in support_} alpha_[i] k(x_i, x) + intercept_``."""
        X = self._validate_test(X)
        sv = self.support_
        if len(sv) == 0:
            return np.full(n_rows(X), self.intercept_)
        K = X[:, sv] if self._precomputed() else \
            self._kernel_rows(X, take_rows(self.X_fit_, sv))
        return K @ self.alpha_[sv] + self.intercept_

    @property
    def coef_(self):
        """The weight vector ``w = sum_i alpha_[i] x_i`` of the linear kernel, a ``(1, d)``
        array as scikit-learn's ``SVC.coef_`` (so ``f(x) = x w' + intercept_``); for any
        other kernel ``w`` lives in its feature space and this is an ``AttributeError``."""
        check_is_fitted(self, "alpha_")
        if not isinstance(self.kernel_, Linear):
            raise AttributeError(
                f"coef_ is only available when using a linear kernel; this "
                f"{type(self).__name__} was fitted with kernel {self.kernel_!r}, whose weight "
                "vector lives in the kernel's feature space (its expansion is dual_coef_ on "
                "support_vectors_)")
        sv = self.support_
        w = np.asarray(self.X_fit_[sv].T @ self.alpha_[sv], dtype=float).ravel()[None, :]
        if is_sparse(self.X_fit_):
            return sp.csr_matrix(w)
        w.setflags(write=False)         # computed from the model: writing it changes nothing
        return w


class DualClassifier(DualKernelMachine, BinaryKernelClassifier):
    """A binary dual machine: labels ``classes_`` mapped to -1/+1, ``decision_function``,
    ``support_`` in ``SVC``'s order, ``n_support_`` per class."""

    def _validate_training(self, X, y):
        X, y = self._fit_binary(X, y)
        self._check_square(X)
        return X, y

    def _fit(self, X, y, sample_weight=None):
        X, y = self._validate_training(X, y)
        w = self._example_weights(X, y, sample_weight)
        self._fit_validated(X, y, w)
        if getattr(self, "probability", False):     # Platt scaling (kernelclf.margin.platt)
            self._fit_probability(X, self.classes_[(y > 0).astype(int)], w)
        return self

    def _example_weights(self, X, y, sample_weight):
        """``w_i = sample_weight_i * class_weight[y_i]`` (None: no weighting), libsvm's
        per-example weights (Chang & Lin 2011, with the per-instance extension scikit-learn
        uses); sets ``class_weight_`` (ones without ``class_weight``).

        ``class_weight`` (for machines with that parameter): a dict maps labels of ``y`` to
        finite weights ``>= 0`` (labels not named keep 1; a label that is not in ``y`` is an
        error); ``'balanced'`` gives class ``c`` the weight ``W / (2 W_c)``, ``W_c`` the
        total ``sample_weight`` of the class (the counts without sample weights, then
        scikit-learn's ``'balanced'``)."""
        self.class_weight_ = np.ones(2)
        cw = getattr(self, "class_weight", None)
        if sample_weight is None and cw is None:
            return None
        self._refuse_weights()
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self._check_both_classes(sw, y, "sample_weight")
        if isinstance(cw, dict):
            known = set(self.classes_.tolist())
            unknown = [k for k in cw if k not in known]
            if unknown:
                raise ValueError(f"class_weight has weights for labels that are not classes "
                                 f"of y: {unknown!r} (the classes are "
                                 f"{self.classes_.tolist()!r})")
            try:
                vals = np.array([float(v) for v in cw.values()])
            except (TypeError, ValueError):
                vals = np.array([np.nan])
            if not np.all(np.isfinite(vals) & (vals >= 0)):
                raise ValueError(f"class_weight values must be finite numbers >= 0, got {cw!r}")
        if cw == "balanced":
            # W / (2 W_c) with the weighted class totals W_c (written out: the
            # sample_weight argument of compute_class_weight is new in scikit-learn 1.7,
            # and the in-browser lab has 1.6)
            totals = np.array([sw[y < 0].sum(), sw[y > 0].sum()])
            self.class_weight_ = totals.sum() / (2.0 * totals)
        elif cw is not None:
            labels = self.classes_[(y > 0).astype(int)]
            self.class_weight_ = np.asarray(
                compute_class_weight(cw, classes=self.classes_, y=labels), dtype=float)
        w = sw * self.class_weight_[(y > 0).astype(int)]
        self._check_both_classes(w, y, "sample_weight * class_weight")
        return w

    def _check_both_classes(self, w, y, what):
        for side, c in zip((y < 0, y > 0), self.classes_.tolist()):
            if not np.any(w[side] > 0):
                raise ValueError(f"{what} is 0 on every example of class {c!r}: "
                                 f"{type(self).__name__} needs examples of both classes "
                                 "with positive weight")

    def _support_key(self, y, m):
        return (y > 0).astype(int)

    def _store_extra(self, X, y, problem, sol):
        self.y_fit_ = y
        k = np.count_nonzero(y[self.support_] > 0)
        self.n_support_ = np.array([self.support_.size - k, k])

    def decision_function(self, X):
        """``f(x) = sum_{i in support_} alpha_[i] k(x_i, x) + intercept_``; its sign is the
        predicted class (``classes_[1]`` where ``f(x) > 0``)."""
        return self._decision(X)


class DualRegressor(RegressorMixin, DualKernelMachine):
    """A dual regression machine: real targets, ``predict`` is the expansion."""

    def _validate_training(self, X, y):
        self._validate_params()
        self._fit_kernel()
        X, t = self._validate_Xy(X, y, y_numeric=True)
        self._check_square(X)
        return X, t

    def _fit(self, X, y, sample_weight=None):
        X, t = self._validate_training(X, y)
        return self._fit_validated(X, t, self._sample_weights(X, sample_weight))

    def predict(self, X):
        """``f(x) = sum_{i in support_} alpha_[i] k(x_i, x) + intercept_``."""
        return self._decision(X)
