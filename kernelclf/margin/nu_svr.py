"""Book chapter "For scikit-learn users" (``book/sklearn_guide.md``); the SVMs it extends are in chapter 04.

Nu-support vector regression.

Schölkopf, Smola, Williamson & Bartlett (2000), "New support vector algorithms", Neural
Computation 12 (§3, the nu-SVR); Chang & Lin (2011), *LIBSVM*, §2.5 and §4.2 (its dual and
threshold; their §2.4 is the epsilon-SVR). The nu-SVM of LKC eq. (2.52) does for
classification what this does for the epsilon-SVR of LKC §2.4.4
(:mod:`kernelclf.margin.svr`): the tube's half-width ``epsilon`` becomes a variable, and
``nu`` in ``(0, 1]`` bounds the fraction of examples outside the tube from above and the
fraction of support vectors from below (at the optimum; a fit stopped at ``tol`` can leave
a few examples of the tube's edge just outside it: a fraction 0.525 of the examples outside
for ``nu = 0.5`` on the sample of ``tests/test_one_class_nu_svr.py``, at most ``nu`` at
``tol=1e-8``).

Primal (with example weights ``w_i``, all 1 by default, ``W = sum_i w_i``)::

    min 1/2 ||w||^2 + C (nu W epsilon + sum_i w_i (xi_i + xi_i^*))
    s.t. f(x_i) - t_i <= epsilon + xi_i,  t_i - f(x_i) <= epsilon + xi_i^*,  xi, xi^* >= 0

(libsvm's scaling: with unit weights ``C (nu m epsilon + sum (xi + xi^*))``, i.e. the
paper's ``C (nu epsilon + (1/m) sum (xi + xi^*))`` with ``C`` multiplied by ``m``).

Dual, in the form of :mod:`kernelclf.margin._dual_problem`: the ``2m`` variables
``z = (alpha, alpha^*)`` of the epsilon-SVR, signs ``s = (+1, -1)``, ``p = (t, -t)``, box
``C w_i`` and libsvm's two equalities ``sum_i alpha_i = sum_i alpha_i^* = C nu W / 2``
(one per sign: two groups). The SMO's pairs are then chosen within a group (libsvm's
``Solver_NU``, as for the nu-SVM). The multipliers ``mu_+, mu_-`` of the two equalities
give the threshold and the tube: ``b = (mu_+ + mu_-)/2`` and ``epsilon = (mu_+ - mu_-)/2``
(a free ``alpha_i`` puts ``t_i`` on the upper edge ``f(x_i) + epsilon``, a free ``alpha_i^*``
on the lower edge). ``f(x) = sum_i (alpha_i - alpha_i^*) k(x_i, x) + b``, as
scikit-learn's ``NuSVR`` (same problem and parameterisation).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..base import Int, Real
from ._dual import DUAL_KERNEL_CONSTRAINT, DualRegressor
from ._dual_problem import DualProblem, fill_from_front

__all__ = ["NuSupportVectorRegression"]


class NuSupportVectorRegression(DualRegressor):
    """nu-support vector regression (Schölkopf et al. 2000; libsvm's nu-SVR).

    The epsilon-SVR (:class:`~kernelclf.margin.svr.SupportVectorRegression`) with the
    tube's half-width learned: ``nu`` replaces ``epsilon`` (module docstring). Same problem
    and parameters as scikit-learn's ``NuSVR``.

    Parameters
    ----------
    kernel : kernel object, name, callable or 'precomputed', default None (linear)
        ``'precomputed'``: ``fit`` takes the ``m x m`` Gram matrix of the training examples,
        ``predict`` the ``n x m`` kernel matrix between test and training examples.
    nu : float in (0, 1], default 0.5
        Upper bound on the fraction of examples outside the tube (weighted by
        ``sample_weight``) and lower bound on the fraction of support vectors, at the
        optimum (a fit stopped at ``tol`` can leave a few more outside, module docstring).
    C : float > 0, default 1.0
        Penalty (libsvm's scaling, module docstring).
    solver : {'smo', 'qp'}, default 'smo'
        The package's SMO (:func:`kernelclf.margin.smo.solve_smo`, two equality groups) or
        the dense interior-point QP (:func:`kernelclf.optim.solve_qp`, for checking).
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
        ``beta_i = alpha_i - alpha_i^*``, the expansion coefficients of ``f``.
    multipliers_ : ndarray (2m,)
        The dual variables ``(alpha, alpha^*)`` in ``[0, C w_i]``.
    dual_coef_ : ndarray (1, n_SV)
        ``beta`` on the support vectors (``NuSVR.dual_coef_``).
    support_ : ndarray of int
        Indices with ``beta_i != 0`` (QP: ``|beta_i| > 1e-7 C``), increasing.
    support_vectors_ : array or list
        ``X[support_]``.
    n_support_ : int
        ``len(support_)`` (``NuSVR.n_support_`` holds it in a one-element array).
    intercept_ : float
        The threshold ``b`` (``NuSVR.intercept_``).
    epsilon_ : float
        The learned half-width of the tube.
    coef_ : ndarray (1, d)
        Linear kernel only: ``w = sum_i beta_i x_i``.
    dual_objective_ : float
        ``1/2 beta' K beta - t' beta`` at the solution (the dual's value without its
        equalities' terms; libsvm reports the same number as ``obj``).
    n_iter_, converged_, X_fit_, kernel_, n_features_in_
    """

    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "nu": [Real(0, 1, closed="right")],
        "C": [Real(0, None, closed="neither")],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }
    _qp_tol_cap = 1e-9

    def __init__(self, kernel=None, nu=0.5, C=1.0, solver="smo", tol=1e-3, max_iter=None,
                 cache_mb=200.0):
        self.kernel = kernel
        self.nu = nu
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y, sample_weight=None):
        """Fit to inputs ``X`` (array (m, d), or strings for a string kernel) and targets ``y``.

        ``sample_weight`` : (m,) array of finite numbers >= 0, optional
            Per-example factor of ``C`` (module docstring), as scikit-learn's ``NuSVR``;
            weight 0 removes an example from the problem (a width taken from the data,
            ``gamma='scale'``, still sees every row of ``X``, as in ``SVC``).
        """
        return self._fit(X, y, sample_weight)

    def _gram(self, X):
        if self._precomputed():
            return super()._gram(X)
        return self._training_gram(X, copies=6, precompute=True)   # as the epsilon-SVR

    def _dual_problem(self, gram, t, w):
        """libsvm's nu-SVR dual (module docstring): ``(alpha, alpha^*)``, signs ``(+1, -1)``,
        ``p = (t, -t)``, box ``C w_i``, one equality per sign, each ``C nu W / 2``."""
        m = len(t)
        C = float(self.C)
        box = np.full(m, C) if w is None else C * np.asarray(w, dtype=float)
        half = fill_from_front(float(self.nu) * float(box.sum()) / 2.0, box)
        s = np.concatenate([np.ones(m), -np.ones(m)])
        return DualProblem(p=np.concatenate([t, -t]), box=np.tile(box, 2), s=s, groups=s,
                           points=np.tile(np.arange(m), 2),
                           alpha0=np.concatenate([half, half]))

    def _threshold(self, problem, sol):
        mu_neg, mu_pos = sol.multipliers            # groups in the order -1, +1
        return 0.5 * (mu_pos + mu_neg)

    def _support_mask(self, coef, sol):
        """``beta_i != 0`` (SMO, as libsvm); ``|beta_i| > 1e-7 C`` (QP)."""
        return np.abs(coef) > (1e-7 * float(self.C) if sol.route == "qp" else 0.0)

    def _store_extra(self, X, t, problem, sol):
        mu_neg, mu_pos = sol.multipliers
        self.epsilon_ = float(0.5 * (mu_pos - mu_neg))
        beta = self.alpha_
        self.multipliers_ = problem.by_example(sol.alpha, len(t)).ravel()
        f0 = self._train_outputs(X, problem, sol)
        self.n_support_ = len(self.support_)
        self.dual_objective_ = float(0.5 * beta @ f0 - t @ beta)
