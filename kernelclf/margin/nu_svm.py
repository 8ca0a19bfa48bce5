"""Book chapter 04 (``book/04_support_vector_machines.md``): the nu-support vector machine.

LKC §2.4.4 (eq. 2.52), App. B.5.4 and D.2.2; Schölkopf, Smola, Williamson & Bartlett (2000),
"New support vector algorithms". The margin ``rho`` becomes a variable and ``nu`` in
``(0, 1]`` replaces ``C``: it bounds the fraction of margin errors from above and the
fraction of support vectors from below. Solved in libsvm's scaling ``a = m alpha`` by the
SMO of :mod:`kernelclf.margin.smo` (its two-group form with a bias) or by
:func:`kernelclf.optim.solve_qp`; Gram access, the decision function, the stored attributes
and Platt's probabilities are shared with the C-SVM (:mod:`kernelclf.margin.svm`,
:mod:`kernelclf.margin.platt`).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import KERNEL_CONSTRAINT, Int, Real
from ..optim import solve_qp
from .smo import default_max_iter, solve_smo
from .svm import _SVMBase

__all__ = ["NuSupportVectorMachine"]


class NuSupportVectorMachine(_SVMBase):
    """nu-support vector machine (LKC eq. 2.52, App. B.5.4, D.2.2; Schölkopf et al. 2000).

    Primal: ``min 1/2 ||w||^2 - nu rho + (1/m) sum xi_i`` subject to
    ``y_i f(x_i) >= rho - xi_i``, ``xi >= 0`` (``rho >= 0``). Dual (book
    scaling): ``max -1/2 alpha' Y G Y alpha`` subject to ``0 <= alpha_i <= 1/m``
    and ``sum alpha_i >= nu`` (plus ``y'alpha = 0`` with a bias). As in libsvm the
    solver works with ``a = m alpha`` and the equality ``sum a = nu m`` (the
    inequality is active whenever ``rho > 0``). The book's own R code for this
    model stops at an infeasible point (see the peer notes), so this estimator is
    checked against scikit-learn's ``NuSVC`` and the nu-property instead.

    Parameters
    ----------
    kernel : kernel, name or callable (default linear)
    nu : float in (0, 1]
        Upper bound on the fraction of margin errors and lower bound on the
        fraction of support vectors (when ``rho > 0``).
    fit_bias : bool, default True
    solver : {'smo', 'qp'}
    tol, max_iter, cache_mb : as in :class:`~kernelclf.margin.svm.SupportVectorMachine`
    probability, random_state : as in :class:`~kernelclf.margin.svm.SupportVectorMachine`
        Platt scaling on 5-fold cross-validated decision values (libsvm offers it
        for the nu-SVM too); every fold machine is a nu-SVM with the same ``nu``,
        which must be feasible on each training part.

    Attributes
    ----------
    alpha_ : (m,) array
        Signed ``alpha_i y_i`` of all ``m`` training examples (book scaling,
        ``|alpha_i| <= 1/m``).
    multipliers_ : (m,) array
        The book's ``alpha_i`` in ``[0, 1/m]`` of all ``m`` training examples (``sum
        alpha_i = nu`` when ``rho > 0``); zero off the support vectors (with
        ``solver='qp'``: below the threshold of ``support_``).
    dual_coef_ : (1, n_SV) array
        As scikit-learn's ``NuSVC.dual_coef_``: ``alpha_i y_i`` of the support vectors in
        the order of ``support_``, i.e. ``alpha_[support_][None, :]``. Book scaling:
        libsvm divides by ``rho``, so ``NuSVC.dual_coef_ = dual_coef_ / rho_`` and
        ``NuSVC.intercept_ = intercept_ / rho_``.
    support_ : (n_SV,) array of int
        Indices with ``alpha_i > 0`` (with ``solver='qp'``: ``> 1e-5 max alpha``), in
        ``NuSVC``'s order: those of ``classes_[0]`` first, each class in index order.
    support_vectors_, n_support_ : ``X[support_]`` and the count per class, as ``NuSVC``
    rho_ : float, the margin parameter ``rho``
    intercept_ : float
    dual_objective_ : float, ``-1/2 alpha' Y G Y alpha`` (book scaling)
    probA_, probB_ : float, Platt's sigmoid (``probability=True`` only)
    margin_, X_fit_, kernel_, classes_, n_iter_

    Notes
    -----
    No example weights here (``fit`` takes no ``sample_weight``): the book's nu-SVM
    gives every example the same box ``1/m``. For weighted examples use
    :class:`~kernelclf.margin.svm.SupportVectorMachine` with ``sample_weight`` / ``class_weight``.
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "nu": [Real(0, 1, closed="right")],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
        "probability": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, nu=0.5, fit_bias=True, solver="smo", tol=1e-3,
                 max_iter=None, cache_mb=200.0, probability=False, random_state=None):
        self.kernel = kernel
        self.nu = nu
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.probability = probability
        self.random_state = random_state

    def fit(self, X, y):
        """Solve the nu-SVM dual for ``(X, y)`` (and Platt's sigmoid with
        ``probability=True``)."""
        X, y = self._fit_binary(X, y)
        tol = float(self.tol)
        nu = float(self.nu)
        m = len(y)
        pos = y > 0
        if self.fit_bias and nu * m / 2 > min(pos.sum(), (~pos).sum()) + 1e-12:
            raise ValueError(
                f"nu={nu} is infeasible for this sample: with a bias it must satisfy "
                f"nu <= 2 min(m+, m-)/m = {2 * min(pos.sum(), (~pos).sum()) / m:.4f}")
        gram = self._gram(X)
        if self.solver == "qp":
            K = gram.full()
            H = (y[:, None] * K) * y[None, :]
            if self.fit_bias:
                sol = solve_qp(H, np.zeros(m), A1=np.vstack([y, np.ones(m)]), b1=[0.0, nu],
                               l=0.0, u=1.0 / m, tol=min(tol, 1e-9))
            else:
                sol = solve_qp(H, np.zeros(m), A2=-np.ones((1, m)), b2=[-nu], l=0.0,
                               u=1.0 / m, tol=min(tol, 1e-9))
            a = np.clip(sol.x, 0.0, 1.0 / m) * m       # libsvm scaling
            G = H @ a                                   # gradient of 1/2 a'Qa
            bias, rho = self._rho_from_gradient(G, a, y, 1e-5)
            n_iter, converged = sol.iterations, True
        else:
            max_iter = default_max_iter(m) if self.max_iter is None else int(self.max_iter)
            a0 = np.zeros(m)
            if self.fit_bias:
                for cls in (pos, ~pos):
                    a0[cls] = self._fill(nu * m / 2, cls.sum())
                res = solve_smo(np.zeros(m), 1.0, gram, s=y, groups=y, alpha0=a0, tol=tol,
                                max_iter=max_iter)
                bias, rho = res.bias, res.rho
            else:
                # fold the labels into the kernel so that the single equality
                # sum a = nu m has unit signs
                a0[:] = self._fill(nu * m, m)
                res = solve_smo(np.zeros(m), 1.0, gram, kernel_signs=y, alpha0=a0, tol=tol,
                                max_iter=max_iter)
                # rho = G_t on the free variables (all have y_t f_t = rho)
                G = res.gradient
                free = (res.alpha > 0) & (res.alpha < 1)
                rho = float(G[free].mean()) if free.any() else float(
                    np.min(G, where=res.alpha < 1, initial=np.inf))
                bias = 0.0
            a, n_iter, converged = res.alpha, res.iterations, res.converged
        # back to the book's scaling alpha = a / m
        alpha = a / m
        if not self.fit_bias:
            bias = 0.0
        sv = np.flatnonzero(a > 0)
        quad = float(a[sv] @ (y[sv] * (gram.columns(sv)[sv] @ (a[sv] * y[sv])))) / m ** 2
        self.rho_ = float(rho) / m
        self._finish(X, y, alpha, float(bias) / m, -0.5 * quad, quad, max(int(n_iter), 1),
                     converged)
        if self.probability:
            self._fit_probability(X, self.classes_[(y > 0).astype(int)])
        return self

    @staticmethod
    def _fill(total, n):
        """Feasible start: ``total`` spread as ones from the front (libsvm's init)."""
        v = np.zeros(n)
        full = int(np.floor(total))
        v[:full] = 1.0
        if full < n:
            v[full] = total - full
        return v

    def _rho_from_gradient(self, G, a, y, eps):
        """libsvm's (bias, rho) from the gradient of 1/2 a'Qa (a in [0, 1])."""
        def r(mask):
            free = mask & (a > eps) & (a < 1 - eps)
            if free.any():
                return float(G[free].mean())
            ub = np.min(G, where=mask & (a <= eps), initial=np.inf)
            lb = np.max(G, where=mask & (a >= 1 - eps), initial=-np.inf)
            return float((ub + lb) / 2)
        if not self.fit_bias:
            rr = r(np.ones_like(a, dtype=bool))
            return 0.0, rr
        rp, rn = r(y > 0), r(y < 0)
        return -(rp - rn) / 2.0, (rp + rn) / 2.0

    def margin_errors(self):
        """Fraction of training points with ``y_i f(x_i) < rho`` (the nu-property's
        lower side: it is at most ``nu``)."""
        check_is_fitted(self, "alpha_")
        f = self.decision_function(self.X_fit_)
        return float(np.mean(self.y_fit_ * f < self.rho_ * (1 - 1e-6)))
