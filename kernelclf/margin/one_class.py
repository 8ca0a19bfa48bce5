"""Book chapter "For scikit-learn users" (``book/sklearn_guide.md``); the SVMs it extends are in chapter 04.

The one-class support vector machine.

Schölkopf, Platt, Shawe-Taylor, Smola & Williamson (2001), "Estimating the support of a
high-dimensional distribution", Neural Computation 13 (§4, eq. 3-5 and the dual eq. 6-7);
Chang & Lin (2011), *LIBSVM*, §2.3. Not a topic of LKC, but close to its nu-SVM (eq. 2.52;
the dual is derived in §B.5.4): that dual without labels, divided by ``nu``, and with
``rho`` free, so that ``sum alpha >= nu`` becomes an equality. It separates the training
inputs from the origin of the feature space with the largest margin, and
``f(x) = <w, phi(x)> - rho`` is positive on a region holding most of them.

Primal (with example weights ``w_i``, all 1 by default, ``W = sum_i w_i``)::

    min 1/2 ||w||^2 + (1 / (nu W)) sum_i w_i xi_i - rho
    s.t. <w, phi(x_i)> >= rho - xi_i,  xi_i >= 0

Dual: ``min 1/2 alpha' K alpha`` over ``0 <= alpha_i <= w_i / (nu W)`` with
``sum_i alpha_i = 1``. As libsvm (and scikit-learn's ``OneClassSVM``) the solver works in
the scaling ``a = nu W alpha``: ``0 <= a_i <= w_i``, ``sum a = nu W``, the problem of
:mod:`kernelclf.margin._dual_problem` with ``p = 0``, signs ``+1`` and one equality, solved
by the package's SMO from libsvm's start (:func:`~kernelclf.margin._dual_problem.fill_from_front`).
The equality's multiplier is ``-rho`` (at the optimum every free ``a_i`` has ``(K a)_i = rho``), so
``f(x) = sum_i a_i k(x_i, x) - rho`` in the same scaling as ``OneClassSVM``'s
``decision_function``. At the optimum ``nu`` bounds the fraction of training examples with
``f < 0`` (outliers) from above and the fraction of support vectors from below (Schölkopf
et al. 2001, Prop. 4). A fit stopped at ``tol`` places the boundary examples only to within
``tol``, and some may fall just below 0: on 80 points uniform on ``[-3, 3]``
(``numpy.random.default_rng(0)``) with ``RBF(1.0)`` and ``nu = 0.2``, 0.225 of them at the
default ``tol`` (as scikit-learn's ``OneClassSVM``), 0.1625 at ``tol=1e-9``
(``tests/test_one_class_nu_svr.py``). Without numba the NumPy engine's active-set finish
(:mod:`kernelclf.margin.smo`) ends at the optimum there already at the default ``tol``
(0.1625).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import OutlierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import Int, KernelMixin, Real
from ..kernels.rows import n_rows, take_rows
from ._dual import DUAL_KERNEL_CONSTRAINT, DualKernelMachine
from ._dual_problem import DualProblem, fill_from_front

__all__ = ["OneClassSupportVectorMachine"]

# |f(x)| <= this times the size of its terms: on the boundary (round-off of an exact solution)
_ON_BOUNDARY = 1e-10


class OneClassSupportVectorMachine(OutlierMixin, DualKernelMachine):
    """One-class SVM (Schölkopf et al. 2001; libsvm's one-class SVM): novelty detection.

    The nu-SVM's dual without labels (module docstring); the same problem, parameters and
    fitted values as scikit-learn's ``OneClassSVM``. ``predict`` gives +1 (inlier) where
    ``decision_function(x) >= 0`` and -1 (outlier) elsewhere.

    Parameters
    ----------
    kernel : kernel object, name, callable or 'precomputed', default None (linear)
        ``'precomputed'``: ``fit`` takes the ``m x m`` Gram matrix of the training examples,
        the other methods the ``n x m`` kernel matrix between test and training examples.
        (``OneClassSVM``'s default is ``'rbf'``; the package's default kernel is linear,
        for which only the direction from the origin matters.)
    nu : float in (0, 1], default 0.5
        Upper bound on the fraction of training outliers (weighted by ``sample_weight``)
        and lower bound on the fraction of support vectors, at the optimum (a fit
        stopped at ``tol`` can count a few outliers more, module docstring).
    solver : {'smo', 'qp'}, default 'smo'
        The package's SMO (:func:`kernelclf.margin.smo.solve_smo`) or the dense
        interior-point QP (:func:`kernelclf.optim.solve_qp`, for checking).
    tol : float > 0, default 1e-3
        SMO: tolerance on the maximal KKT violation (libsvm's); QP: gap tolerance, at most
        ``1e-9``.
    max_iter : int or None
        SMO iteration cap (default as :class:`~kernelclf.margin.svm.SupportVectorMachine`).
    cache_mb : float
        Kernel column cache for large samples.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        The multipliers ``a_i`` in libsvm's scaling (``0 <= a_i <= w_i``, ``sum = nu W``) of
        all ``m`` training examples: ``f(x) = sum_i alpha_i k(x_i, x) + intercept_``.
    multipliers_ : ndarray (m,)
        The same ``a_i`` (the package's name for the dual variables).
    dual_coef_ : ndarray (1, n_SV)
        ``a`` on the support vectors (``OneClassSVM.dual_coef_``).
    support_ : ndarray of int
        Indices with ``a_i > 0`` (QP: ``a_i > 1e-5 max a``), increasing.
    support_vectors_ : array or list
        ``X[support_]``.
    n_support_ : int
        ``len(support_)`` (``OneClassSVM.n_support_`` holds it in a one-element array).
    intercept_ : float
        ``-rho`` (``OneClassSVM.intercept_``).
    offset_ : float
        ``rho``: ``decision_function = score_samples - offset_`` (``OneClassSVM.offset_``).
    coef_ : ndarray (1, d)
        Linear kernel only: ``w = sum_i a_i x_i``.
    dual_objective_ : float
        ``-1/2 a' K a`` (libsvm's ``obj`` with the opposite sign).
    n_iter_, converged_, X_fit_, kernel_, n_features_in_
    """

    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "nu": [Real(0, 1, closed="right")],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }
    _qp_tol_cap = 1e-9

    def __init__(self, kernel=None, nu=0.5, solver="smo", tol=1e-3, max_iter=None,
                 cache_mb=200.0):
        self.kernel = kernel
        self.nu = nu
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y=None, sample_weight=None):
        """Solve the one-class dual for the inputs ``X`` (``y`` is ignored).

        ``sample_weight`` : (m,) array of finite numbers >= 0, optional
            Per-example weights ``w_i`` (module docstring), as ``OneClassSVM``; weight 0
            removes an example from the problem (a width taken from the data,
            ``gamma='scale'``, still sees every row of ``X``, as in ``SVC``).
        """
        self._validate_params()
        self._fit_kernel()
        if self._precomputed():
            X = validate_data(self, X, reset=True, dtype=np.float64, ensure_all_finite=True)
        else:
            X = KernelMixin._validate_X(self, X, reset=True)
        self._resolve_kernel(X)
        self._check_square(X)
        w = self._sample_weights(X, sample_weight)
        return self._fit_validated(X, np.ones(n_rows(X)), w)

    def _dual_problem(self, gram, y, w):
        """``p = 0``, signs ``+1``, box ``w_i`` (1 without weights), ``sum a = nu W`` from
        libsvm's start."""
        m = len(y)
        box = np.ones(m) if w is None else np.asarray(w, dtype=float)
        a0 = fill_from_front(float(self.nu) * float(box.sum()), box)
        return DualProblem(p=np.zeros(m), box=1.0 if w is None else box, s=np.ones(m),
                           alpha0=a0)

    def _store_extra(self, X, y, problem, sol):
        self.multipliers_ = problem.by_example(sol.alpha, len(y))[0]
        self.n_support_ = len(self.support_)
        self.offset_ = -self.intercept_

    def decision_function(self, X):
        """``f(x) = sum_i alpha_i k(x_i, x) - rho``: positive inside the estimated support,
        0 on its boundary.

        The free support vectors lie on the boundary (``f = 0`` at the optimum), where
        round-off would put them on either side; a value within ``1e-10`` times the size of
        its terms, ``sum_i |alpha_i k(x_i, x)| + |rho|``, of 0 is returned as 0, so at the
        optimum those examples are inliers whatever the rounding (outliers are the examples
        with ``f < 0``, those the ``nu``-property counts). A fit stopped at ``tol`` places
        them only to within about ``tol`` of 0, and some can come out below it, as outliers
        (on the module docstring's sample, ``nu = 0.2``: four of eight free support vectors
        at the default ``tol``, none at ``tol=1e-9``). With a linear kernel, ``w = 0`` and
        every value is 0 when the origin is a weighted mean ``sum_i c_i x_i`` with
        ``sum_i c_i = 1`` and ``0 <= c_i <= w_i / (nu W)`` (a reduced convex hull: the convex
        hull when ``nu W <= min_i w_i``, only the weighted mean at ``nu = 1``); the origin in
        the convex hull is not enough for a larger ``nu``.
        """
        X = self._validate_test(X)
        sv = self.support_
        K = X[:, sv] if self._precomputed() else \
            self._kernel_rows(X, take_rows(self.X_fit_, sv))
        a = self.alpha_[sv]
        f = K @ a + self.intercept_
        size = np.abs(K) @ np.abs(a) + abs(self.intercept_)
        f[np.abs(f) <= _ON_BOUNDARY * size] = 0.0
        return f

    def score_samples(self, X):
        """``sum_i alpha_i k(x_i, x)``, i.e. ``decision_function(X) + offset_``."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 where ``decision_function(x) >= 0`` (inlier), -1 elsewhere (outlier)."""
        check_is_fitted(self, "alpha_")
        return np.where(self.decision_function(X) >= 0, 1, -1)
