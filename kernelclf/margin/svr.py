"""Book chapter 04 (``book/04_support_vector_machines.md``): epsilon-insensitive support vector regression.

LKC §2.4.4 (eq. 2.51, the epsilon-insensitive loss ``max(|t - f(x)| - eps, 0)``);
the regularised form is LKC eq. (5.19), whose stability LKC Example 5.33 bounds
(:func:`kernelclf.bounds.stability.svr_stability_bound`). Solver: libsvm's epsilon-SVR
(Chang & Lin 2011, §2.4; libsvm's ``solve_epsilon_svr``).

Primal. With the book's regulariser ``lambda``

``min_f (1/m) sum_i max(|t_i - f(x_i)| - eps, 0) + lambda ||f||^2``

is, after dividing by ``2 lambda``, the usual ``min 1/2 ||w||^2 + C sum_i (xi_i + xi_i^*)``
with ``C = 1/(2 lambda m)`` (the same rescaling as the classifier's, see
:mod:`kernelclf.margin.svm`); ``lambda_`` reports ``lambda``.

Dual. With ``beta = alpha - alpha^*`` (``alpha, alpha^* in [0, C]^m``)

``min 1/2 beta' K beta + eps sum_i (alpha_i + alpha_i^*) - t' beta``,  and ``1' beta = 0``
when a bias ``b`` is fitted,

a quadratic program in the ``2m`` variables ``z = (alpha, alpha^*)``. As libsvm does
(Chang & Lin 2011, §2.4), it is written in the form of the classifier's dual,
``min 1/2 z'Qz - p'z`` over the box ``[0, C]^{2m}`` with signs
``s = (+1, ..., +1, -1, ..., -1)``, ``Q = diag(s) [[K, K], [K, K]] diag(s)``,
``p = (t - eps, -t - eps)`` and, with a bias, the equality ``s'z = 0``, and solved by the
package's SMO (:func:`kernelclf.margin.smo.solve_smo`: pairwise steps with the equality,
coordinate descent without it; its polishing makes the result exact up to round-off once
SMO has found which variables sit at a bound). ``solver='qp'`` hands the same problem to
the dense interior-point :func:`kernelclf.optim.solve_qp` (LKC App. D form; O(m^3) per
iteration), for checking and teaching. The prediction is
``f(x) = sum_i beta_i k(x_i, x) + b``. The bias comes from the Karush-Kuhn-Tucker
conditions: every free ``alpha_i`` gives ``b = t_i - eps - (K beta)_i``, every free
``alpha_i^*`` gives ``b = t_i + eps - (K beta)_i``; their mean is taken, or the midpoint of
the interval the bound multipliers leave when none is free (libsvm's rule, Chang & Lin 2011).
With these signs SMO's threshold (``F_t = -s_t (Qz - p)_t`` averaged over the free
variables) is exactly this rule; the QP route applies it with a tolerance for "free".
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import KERNEL_CONSTRAINT, KernelMixin, Real
from ..kernels.gram import Gram
from ..kernels.rows import take_rows
from ..optim import solve_qp
from .smo import solve_smo

__all__ = ["SupportVectorRegression"]


class SupportVectorRegression(KernelMixin, RegressorMixin, BaseEstimator):
    """Book chapter 04 (``book/04_support_vector_machines.md``): epsilon-SVR (LKC §2.4.4, eq. 2.51).

    Minimises ``1/2 ||w||^2 + C sum_i max(|t_i - f(x_i)| - epsilon, 0)``, i.e. LKC's
    regularised risk (eq. 5.19) with the epsilon-insensitive loss and
    ``lambda = 1/(2 C m)``, by solving its dual in the ``2m`` variables
    ``(alpha, alpha^*)`` with the package's SMO, as libsvm's epsilon-SVR does (module
    docstring). Same problem and parameterisation as scikit-learn's ``SVR``.

    Parameters
    ----------
    kernel : kernel object, name or callable, default None (linear)
        The kernel ``k``; cloned into ``kernel_`` at ``fit``.
    C : float > 0, default 1.0
        Penalty of the epsilon-insensitive loss.
    epsilon : float >= 0, default 0.1
        Half-width of the tube in which errors cost nothing.
    fit_bias : bool, default True
        Fit the bias ``b`` (adds the constraint ``sum_i beta_i = 0``); ``False`` gives LKC's
        bias-free form.
    solver : {'smo', 'qp'}, default 'smo'
        SMO with second-order working-set selection on the ``2m``-variable dual
        (:func:`kernelclf.margin.smo.solve_smo`, libsvm's method; pairwise steps with the
        bias, coordinate descent without), or cvxopt's dense interior-point QP
        (:func:`kernelclf.optim.solve_qp`, ``O(m^3)`` per iteration; for checking).
    tol : float > 0, default 1e-3
        SMO: tolerance on the maximal KKT violation (libsvm's 1e-3 by default), after
        which the KKT equations of the free variables are solved exactly when that keeps
        the point feasible (``solve_smo(polish=True)``, at most 1000 free variables), so
        the result is exact up to round-off whenever SMO has found which variables sit at
        a bound; QP: gap tolerance handed to cvxopt, at most ``1e-8``.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        ``beta_i = alpha_i - alpha_i^*``, the expansion coefficients of ``f``.
    dual_coef_ : ndarray (1, n_SV)
        ``beta`` on the support vectors (scikit-learn's ``SVR`` layout).
    intercept_ : float
        The bias ``b`` (0 when ``fit_bias=False``).
    support_ : ndarray of int
        Indices of the support vectors in increasing order (SMO: ``beta_i != 0``, as
        libsvm; QP: ``|beta_i| > 1e-7 C``).
    support_vectors_ : array or list
        ``X[support_]`` (scikit-learn's layout).
    n_support_ : int
    dual_objective_ : float
        ``1/2 beta'K beta + epsilon ||beta||_1 - t'beta`` at the solution.
    slack_ : ndarray (m,)
        Training losses ``xi_i + xi_i^* = max(|t_i - f(x_i)| - epsilon, 0)``.
    lambda_ : float
        The book's regulariser ``1/(2 C m)`` (LKC eq. 5.19, Example 5.33).
    n_iter_ : int
        SMO steps (QP: interior-point iterations).
    X_fit_, kernel_, n_features_in_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "epsilon": [Real(0, None, closed="left")],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
    }

    def __init__(self, kernel=None, C=1.0, epsilon=0.1, fit_bias=True, solver="smo", tol=1e-3):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol

    def fit(self, X, y):
        """Fit to inputs ``X`` (array (m, d), or strings for a string kernel) and targets ``y``."""
        self._validate_params()
        self._fit_kernel()
        X, t = self._validate_Xy(X, y, y_numeric=True)
        m = len(t)
        # both routes hold a (2m x 2m) matrix, i.e. 4 Gram-sized arrays, plus K
        K = np.asarray(self._training_gram(X, copies=6).full(), dtype=float)
        C, eps = float(self.C), float(self.epsilon)
        if self.solver == "qp":
            a, a_star, b, n_iter = self._solve_qp(K, t, C, eps)
            sv_tol = 1e-7 * C
        else:
            a, a_star, b, n_iter = self._solve_smo(K, t, C, eps)
            sv_tol = 0.0
        beta = a - a_star
        f0 = K @ beta
        if not self.fit_bias:
            b = 0.0
        self.X_fit_ = X
        self.alpha_ = beta
        self.support_ = np.flatnonzero(np.abs(beta) > sv_tol)
        self.n_support_ = len(self.support_)
        self.support_vectors_ = take_rows(X, self.support_)
        self.dual_coef_ = beta[self.support_][None, :]
        self.intercept_ = float(b)
        self.dual_objective_ = float(0.5 * beta @ f0 + eps * np.abs(beta).sum() - t @ beta)
        self.slack_ = np.maximum(np.abs(t - f0 - b) - eps, 0.0)
        self.lambda_ = 1.0 / (2.0 * C * m)
        self.n_iter_ = int(n_iter)
        return self

    def _solve_smo(self, K, t, C, eps):
        """The dual by SMO in libsvm's epsilon-SVR form (module docstring):
        ``(alpha, alpha^*, bias, iterations)``."""
        m = len(t)
        s = np.concatenate([np.ones(m), -np.ones(m)])
        p = np.concatenate([t - eps, -t - eps])
        KK = Gram(G=np.block([[K, K], [K, K]]), check=False)     # K itself was checked
        res = solve_smo(p, C, KK, s=s, equality=bool(self.fit_bias), tol=float(self.tol),
                        polish=True)
        if not res.converged:
            warnings.warn(f"{type(self).__name__}: SMO stopped after {res.iterations} "
                          "iterations before reaching the tolerance; the model is not "
                          "optimal (raise tol)", ConvergenceWarning, stacklevel=3)
        z = res.alpha
        return z[:m].copy(), z[m:].copy(), res.bias, res.iterations

    def _solve_qp(self, K, t, C, eps):
        """The dual by :func:`kernelclf.optim.solve_qp`: ``(alpha, alpha^*, bias, iterations)``."""
        m = len(t)
        H = np.block([[K, -K], [-K, K]])
        c = np.concatenate([eps - t, eps + t])
        A1 = b1 = None
        if self.fit_bias:
            A1 = np.concatenate([np.ones(m), -np.ones(m)])[None, :]
            b1 = np.zeros(1)
        sol = solve_qp(H, c, A1=A1, b1=b1, l=0.0, u=C, tol=min(float(self.tol), 1e-8))
        a = np.clip(sol.x[:m], 0.0, C)
        a_star = np.clip(sol.x[m:], 0.0, C)
        b = self._bias(a, a_star, t, K @ (a - a_star), C, eps) if self.fit_bias else 0.0
        return a, a_star, b, sol.iterations

    @staticmethod
    def _bias(a, a_star, t, f0, C, eps):
        """The bias from the KKT conditions (module docstring)."""
        free_tol = 1e-6 * C
        free = (a > free_tol) & (a < C - free_tol)
        free_star = (a_star > free_tol) & (a_star < C - free_tol)
        if free.any() or free_star.any():
            vals = np.concatenate([(t - eps - f0)[free], (t + eps - f0)[free_star]])
            return float(vals.mean())
        # no free multiplier: b lies between the bounds the others leave
        low = np.concatenate([(t - eps - f0)[a <= free_tol], (t + eps - f0)[a_star >= C - free_tol]])
        high = np.concatenate([(t - eps - f0)[a >= C - free_tol], (t + eps - f0)[a_star <= free_tol]])
        lo = low.max() if low.size else -np.inf
        hi = high.min() if high.size else np.inf
        if not np.isfinite(lo):
            return float(hi)
        if not np.isfinite(hi):
            return float(lo)
        return float(0.5 * (lo + hi))

    def predict(self, X):
        """``f(x) = sum_i beta_i k(x_i, x) + b``."""
        check_is_fitted(self, "alpha_")
        X = self._validate_test(X)
        sv = self.support_
        if len(sv) == 0:
            return np.full(len(X), self.intercept_)
        return self._kernel_rows(X, take_rows(self.X_fit_, sv)) @ self.alpha_[sv] + self.intercept_
