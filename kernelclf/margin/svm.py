"""Support vector machines: hard margin, L1 / L2 soft margin and the nu-SVM.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4.1–2.4.4,
eq. (2.45)–(2.52), App. B.5 and D.2.1–D.2.2.

Parameterisation. The book regularises with ``lambda`` and writes (eq. 2.47)
``min (1/m) sum xi_i + lambda ||w||^2``. Dividing by ``2 lambda`` gives the
usual form ``min 1/2 ||w||^2 + C sum xi_i`` with ``C = 1/(2 lambda m)``, which
is the box ``0 <= alpha_i <= 1/(2 lambda m)`` of App. D.2.1 (erratum E6: the
page once prints ``1/(2 lambda)``; the ``m`` belongs there). For the quadratic
soft margin (eq. 2.49) ``min (1/m) sum xi_i^2 + lambda ||w||^2`` becomes
``1/2 ||w||^2 + (C/2) sum xi_i^2`` with ``C = 1/(lambda m)``; its dual is a
hard-margin dual on ``G + lambda m I = G + I/C`` (eq. 2.50, Remark 2.32).

Coefficients. LKC writes ``w = sum_i alpha_i y_i x_i`` with ``alpha_i >= 0``
(eq. 2.54). Here ``dual_coef_`` holds those non-negative book ``alpha_i`` and
``alpha_`` the signed products ``alpha_i y_i``, so that
``f(x) = sum_i alpha_[i] k(x_i, x) + intercept_`` (package convention).

The book's SVMs have no bias (``fit_bias=False``); ``fit_bias=True`` adds the
usual threshold ``b`` and with it the constraint ``y' alpha = 0``, as in
libsvm / scikit-learn ``SVC``. The default solver is the SMO of
:mod:`kernelclf.margin.smo`; ``solver='qp'`` uses :func:`kernelclf.optim.solve_qp`
(App. D.2 settings) for checking and teaching.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..kernels.rows import take_rows
from ..optim import InfeasibleProblemError, solve_qp
from .separability import is_separable
from .smo import DualDivergenceError, solve_smo

__all__ = ["SupportVectorMachine", "NuSupportVectorMachine", "is_separable"]

# hard margin: an alpha beyond this means the dual is running off to infinity
_ALPHA_BOUND = 1e9
# precompute the Gram matrix up to this many examples (else cached columns)
_PRECOMPUTE_MAX = 200


def _bias_from_gradient(F, a, C, s, eps):
    """libsvm's threshold from ``F_t = -s_t G_t``; ``eps`` decides 'at a bound'."""
    free = (a > eps) & (a < C - eps)
    if free.any():
        return float(F[free].mean())
    pos = s > 0
    up = np.where(pos, a < C - eps, a > eps)
    low = np.where(pos, a > eps, a < C - eps)
    ub = np.min(F, where=low, initial=np.inf)
    lb = np.max(F, where=up, initial=-np.inf)
    vals = [v for v in (ub, lb) if np.isfinite(v)]
    return float(np.mean(vals)) if vals else 0.0


class _SVMBase(BinaryKernelClassifier):
    """Shared pieces: Gram access, decision function over the support vectors."""

    def _gram(self, X):
        """The training Gram matrix: whole for small samples (or the QP), else
        columns on demand from the cache (:class:`kernelclf.kernels.gram.Gram`)."""
        m = len(X)
        pre = self.solver == "qp" or m <= _PRECOMPUTE_MAX or not isinstance(X, np.ndarray)
        return self._training_gram(X, precompute=pre, cache_mb=self.cache_mb)

    def decision_function(self, X):
        """``f(x) = sum_{i in SV} alpha_i k(x_i, x) + intercept_``."""
        X = self._validate_test(X)
        sv = self.support_
        if len(sv) == 0:
            return np.full(len(X), self.intercept_)
        return self._kernel_rows(X, take_rows(self.X_fit_, sv)) @ self.alpha_[sv] + \
            self.intercept_

    def _finish(self, X, y, a, bias, obj, quad, n_iter, converged):
        """Store the fitted attributes (``quad = a' Y G Y a`` without any ridge)."""
        self.X_fit_ = X
        self.y_fit_ = y
        self.dual_coef_ = a
        self.alpha_ = a * y
        self.intercept_ = float(bias)
        self.dual_objective_ = float(obj)
        if self.solver == "qp":
            sv_tol = 1e-5 * max(float(np.max(a, initial=0.0)), 1e-300)
            self.support_ = np.flatnonzero(a > sv_tol)
        else:
            self.support_ = np.flatnonzero(a > 0)
        self.n_support_ = np.array([np.sum(y[self.support_] < 0), np.sum(y[self.support_] > 0)])
        self.w_norm_ = float(np.sqrt(max(quad, 0.0)))
        self.margin_ = 1.0 / self.w_norm_ if self.w_norm_ > 0 else np.inf
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(converged)
        if not converged:
            warnings.warn(f"{type(self).__name__} stopped after max_iter={n_iter} iterations "
                          "before reaching the tolerance; the model is not optimal (raise "
                          "max_iter or tol)", ConvergenceWarning, stacklevel=3)


class SupportVectorMachine(_SVMBase):
    """Support vector machine: hard margin, linear or quadratic soft margin.

    LKC §2.4.1–2.4.2: hard margin eq. (2.45)/(2.46), linear soft margin
    (2.47)/(2.48), quadratic soft margin (2.49)/(2.50); duals in App. B.5.1–B.5.3,
    QP settings in App. D.2.1 (erratum E6 corrected: box ``u = 1/(2 lambda m)``).
    Book chapter 04.

    Parameters
    ----------
    kernel : kernel object, name or callable, default None (linear)
    C : float > 0, default 1.0
        Soft-margin constant in the usual scaling. Hinge loss:
        ``1/2 ||w||^2 + C sum xi_i``, i.e. ``C = 1/(2 lambda m)`` in the book's
        eq. (2.47). Squared hinge: ``1/2 ||w||^2 + (C/2) sum xi_i^2``, i.e.
        ``lambda m = 1/C`` in eq. (2.49); the dual is the hard-margin dual on
        ``G + I/C``. Ignored when ``hard_margin=True``.
    loss : {'hinge', 'squared_hinge'}
    hard_margin : bool
        Solve eq. (2.45) (no slack). A sample that is not separable in feature
        space raises ``ValueError``.
    fit_bias : bool, default True
        Add a threshold ``b`` (constraint ``y'alpha = 0``). The book's SVM has
        no bias (``fit_bias=False``).
    solver : {'smo', 'qp'}
        SMO with second-order working-set selection (:func:`kernelclf.margin.smo.solve_smo`)
        or cvxopt's interior-point QP (:func:`kernelclf.optim.solve_qp`).
    tol : float
        SMO: tolerance on the maximal KKT violation (libsvm's 1e-3 by default);
        QP: gap tolerance handed to cvxopt (use ``tol <= 1e-8`` there).
    max_iter : int or None
        SMO iteration cap (default ``100_000 + 100 m``).
    cache_mb : float
        Kernel column cache for large samples.

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients ``alpha_i y_i`` (LKC's ``alpha_i y_i``, eq. 2.54).
    dual_coef_ : (m,) array
        The book's non-negative dual variables ``alpha_i``.
    support_ : array of int
        Indices of the support vectors (``alpha_i > 0``).
    intercept_ : float
        Threshold ``b`` (0 when ``fit_bias=False``).
    dual_objective_ : float
        Dual value ``sum alpha_i - 1/2 alpha' Y (G + r I) Y alpha`` (``r = 1/C``
        for the squared hinge, else 0); equals scikit-learn's / libsvm's dual.
    margin_ : float
        Geometric margin ``1/||w||`` in feature space (LKC Def. 2.30).
    X_fit_, kernel_, classes_, n_iter_, converged_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "hard_margin": ["boolean"],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, loss="hinge", hard_margin=False, fit_bias=True,
                 solver="smo", tol=1e-3, max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.loss = loss
        self.hard_margin = hard_margin
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Solve the dual for the sample ``(X, y)`` (any two labels)."""
        X, y = self._fit_binary(X, y)
        tol = float(self.tol)
        m = len(y)
        if self.hard_margin:
            box, shift = np.inf, 0.0
        elif self.loss == "hinge":
            box, shift = float(self.C), 0.0
        else:
            box, shift = np.inf, 1.0 / float(self.C)
        gram = self._gram(X)
        if self.solver == "qp":
            a, bias, obj, n_iter = self._fit_qp(gram.full(), y, box, shift, tol)
            converged = True
        else:
            max_iter = 100_000 + 100 * m if self.max_iter is None else int(self.max_iter)
            hard = np.isinf(box) and shift == 0.0
            bound = _ALPHA_BOUND if hard else np.inf
            # hard margin: a short first run; if it has not converged, an LP decides
            # whether the sample is separable before the remaining budget is spent
            first = min(max_iter, 20 * m + 1000) if hard else max_iter
            kw = dict(s=y, equality=bool(self.fit_bias), tol=tol, alpha_bound=bound)
            solver_gram = gram.with_ridge(shift) if shift else gram
            try:
                res = solve_smo(np.ones(m), box, solver_gram, max_iter=first, **kw)
                if hard and not res.converged:
                    self._raise_not_separable(gram, y)
                    if max_iter > first:
                        it0 = res.iterations
                        res = solve_smo(np.ones(m), box, solver_gram, max_iter=max_iter - first,
                                        alpha0=res.alpha, **kw)
                        res.iterations += it0
            except DualDivergenceError:
                self._raise_not_separable(gram, y)
                raise
            a, bias, obj, n_iter, converged = (res.alpha, res.bias, -res.objective,
                                               res.iterations, res.converged)
        if not self.fit_bias:
            bias = 0.0
        # ||w||^2 = a'YGYa = 2 (sum a - D) - shift ||a||^2
        quad = 2.0 * (a.sum() - obj) - shift * float(a @ a)
        self._finish(X, y, a, bias, obj, quad, max(int(n_iter), 1), converged)
        return self

    def _raise_not_separable(self, gram, y):
        if not is_separable(gram.full(), y, bool(self.fit_bias)):
            raise ValueError(
                "hard_margin=True but the training sample is not separable in feature space "
                f"({'with' if self.fit_bias else 'without'} bias): the hard-margin dual "
                "(LKC eq. 2.46) is unbounded. Use a soft margin (hard_margin=False) or a more "
                "flexible kernel.")

    def _fit_qp(self, K, y, box, shift, tol):
        m = len(y)
        H = (y[:, None] * K) * y[None, :]
        if shift:
            H[np.diag_indices(m)] += shift
        kw = {"A1": y[None, :], "b1": [0.0]} if self.fit_bias else {}
        try:
            sol = solve_qp(H, -np.ones(m), l=0.0, u=None if np.isinf(box) else box,
                           tol=min(tol, 1e-8), **kw)
        except InfeasibleProblemError as exc:
            if self.hard_margin and not is_separable(K, y, bool(self.fit_bias)):
                raise ValueError(
                    "hard_margin=True but the training sample is not separable in feature "
                    "space: the QP solver certifies that the hard-margin dual is unbounded"
                ) from exc
            raise
        a = np.clip(sol.x, 0.0, box)
        G = H @ a - 1.0
        eps = 1e-6 * max(float(a.max(initial=0.0)), 1e-12)
        bias = _bias_from_gradient(-y * G, a, box, y, eps) if self.fit_bias else 0.0
        obj = float(a.sum() - 0.5 * a @ H @ a)
        return a, bias, obj, sol.iterations


class _SignedGram:
    """``diag(y) G diag(y)`` column by column (the nu-SVM without bias)."""

    def __init__(self, gram, y):
        self.gram, self.y = gram, y
        self.diag = np.asarray(gram.diag)        # y_i^2 = 1

    def column(self, i):
        return self.gram.column(i) * (self.y * self.y[i])


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
    tol, max_iter, cache_mb : as in :class:`SupportVectorMachine`

    Attributes
    ----------
    alpha_ : signed ``alpha_i y_i`` (book scaling, ``|alpha_i| <= 1/m``)
    dual_coef_ : the book's ``alpha_i >= 0``
    rho_ : float, the margin parameter ``rho``
    intercept_ : float
    dual_objective_ : float, ``-1/2 alpha' Y G Y alpha`` (book scaling)
    support_, margin_, X_fit_, kernel_, classes_, n_iter_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "nu": [Real(0, 1, closed="right")],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, nu=0.5, fit_bias=True, solver="smo", tol=1e-3,
                 max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.nu = nu
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Solve the nu-SVM dual for ``(X, y)``."""
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
            max_iter = 100_000 + 100 * m if self.max_iter is None else int(self.max_iter)
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
                res = solve_smo(np.zeros(m), 1.0, _SignedGram(gram, y), alpha0=a0, tol=tol,
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
