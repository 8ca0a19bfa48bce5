"""Leave-one-out error, the Jaakkola–Haussler bound, and the linear-programming
machines built on it: the leave-one-out machine and the adaptive margin machine.

Book chapter 05 (``book/05_loo_and_adaptive_margin_machines.md``); LKC §2.5
(Def. 2.35, Thm 2.36, Thm 2.37 / eq. 2.55,
eq. 2.56–2.58, Remark 2.39), App. B.6 and D.2.3.

All models here are bias-free, as in the book, and use the expansion
``f(x) = sum_j alpha_j y_j k(x_j, x)`` (eq. 2.54) with the book's non-negative
``alpha_j``; the estimators store the signed products ``alpha_j y_j`` in
``alpha_`` (package convention) and the book's values in ``multipliers_``, both over all
``m`` points; ``support_``, ``support_vectors_`` and ``dual_coef_`` (the ``(1, n_SV)``
array of the ``alpha_j y_j`` of the support vectors) mean what they mean in
scikit-learn's ``SVC``.

Erratum E7: App. D.2.3 writes the constraint matrix with diagonal
``k_ii - lambda``, which equals eq. (2.58)'s ``(1 - lambda) k_ii`` only when
``k_ii = 1`` (normalised kernels). This module implements eq. (2.58).

Cost in the number ``m`` of training examples: the linear program has ``2m`` variables
and ``m`` dense constraints (``m^2`` non-zeros); HiGHS's simplex typically needs O(m)
iterations of O(m^2) work, roughly O(m^3) time, with no better guarantee. Memory: the
Gram matrix, the constraint matrix (``m x 2m``), its sparse copy and HiGHS's own models,
about 22 ``m x m`` float arrays at the peak (measured; 11 GB at ``m = 8000``). A fit
whose arrays would not fit in memory is refused before it starts, naming the size
(:func:`kernelclf.kernels.gram_guard.check_memory`); fits on at least
:data:`kernelclf.progress.LONG_FIT_M` examples show their two stages, Gram matrix and
LP (:func:`kernelclf.progress.fit_progress`; HiGHS reports no iterations while it runs).
"""
from __future__ import annotations

import numpy as np

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Real
from ..kernels.rows import take_rows
from ..optim import solve_lp
from ..progress import fit_progress

#: peak number of m x m float arrays of an LP-machine fit (see the module docstring)
_LP_COPIES = 22

__all__ = [
    "LeaveOneOutMachine", "AdaptiveMarginMachine",
]


class _LPMachine(BinaryKernelClassifier):
    """Shared LP set-up for eq. (2.56)–(2.58): min 1'xi s.t. Y(G - D)Y alpha >= 1 - xi."""

    def _diag_factor(self):
        raise TypeError("abstract")

    def fit(self, X, y):
        """Solve the linear program for the sample ``(X, y)``."""
        X, y = self._fit_binary(X, y)
        lam = self._diag_factor()
        m = len(y)
        bar = fit_progress(m, total=2, unit="stage", desc=f"{type(self).__name__} LP")
        try:
            bar.set_postfix_str("Gram matrix")
            G = self._training_gram(X, copies=_LP_COPIES).full()
            bar.update()
            bar.set_postfix_str(f"linear program, {2 * m} variables (HiGHS)")
            # eq. (2.58): y_i sum_j alpha_j y_j k_ij - lambda alpha_i k_ii >= 1 - xi_i
            M = (y[:, None] * G) * y[None, :]
            M[np.diag_indices(m)] -= lam * np.diag(G)
            A2 = np.hstack([-M, -np.eye(m)])
            c = np.r_[np.zeros(m), np.ones(m)]
            sol = solve_lp(c, A2=A2, b2=-np.ones(m), l=0.0)
            bar.update()
        finally:
            bar.close()
        a = np.maximum(sol.x[:m], 0.0)
        xi = np.maximum(sol.x[m:], 0.0)
        self.X_fit_ = X
        self.y_fit_ = y
        self.multipliers_ = a
        self.alpha_ = a * y
        self.slack_ = xi
        self.objective_ = float(sol.objective)
        tol = 1e-9 * max(1.0, float(a.max(initial=0.0)))
        sv = np.flatnonzero(a > tol)
        # SVC's order: the support vectors of classes_[0], then those of classes_[1]
        self.support_ = sv[np.argsort(y[sv] > 0, kind="stable")]
        self.dual_coef_ = self.alpha_[self.support_][None, :]
        self.support_vectors_ = take_rows(X, self.support_)
        self.n_iter_ = max(int(sol.iterations), 1)
        return self


class LeaveOneOutMachine(_LPMachine):
    """Leave-one-out machine (LOOM), LKC §2.5.2, eq. (2.56).

    Minimises the hinge upper bound ``sum_i xi_i`` of the Jaakkola–Haussler
    bound (2.55): ``y_i sum_{j != i} alpha_j y_j k(x_i, x_j) >= 1 - xi_i``,
    ``alpha, xi >= 0``, solved as a linear program with HiGHS
    (:func:`kernelclf.optim.solve_lp`). Equivalently an AMM with ``lam = 1``,
    or the same LP with the diagonal of the Gram matrix set to zero.
    Book chapter 05. Cost: roughly O(m^3) time and about 22 ``m x m`` float arrays
    (11 GB at ``m = 8000``; see the module docstring).

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients ``alpha_i y_i`` of all ``m`` training points;
        ``f(x) = sum_i alpha_[i] k(x_i, x)`` (no bias).
    multipliers_ : (m,) array
        The book's ``alpha_i >= 0`` of all ``m`` points (the LP's variables). ``SVC`` has
        no such attribute.
    dual_coef_ : (1, n_SV) array
        As scikit-learn's ``SVC.dual_coef_``: ``alpha_i y_i`` of the support vectors in
        the order of ``support_``, i.e. ``alpha_[support_][None, :]``.
    support_ : (n_SV,) array of int
        Indices with ``alpha_i > 1e-9 max(1, max alpha)`` (above the LP's round-off), in
        ``SVC``'s order: those of ``classes_[0]`` first, each class in index order.
    support_vectors_ : array or list
        ``X[support_]``, as ``SVC``.
    slack_ : the ``xi_i``; ``objective_``: ``sum xi_i``
    X_fit_, kernel_, classes_
    """

    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT}

    def __init__(self, kernel=None):
        self.kernel = kernel

    def _diag_factor(self):
        return 1.0


class AdaptiveMarginMachine(_LPMachine):
    """Adaptive margin machine, LKC §2.5.4, eq. (2.57)–(2.58), App. D.2.3.

    ``minimise sum_i xi_i`` subject to
    ``y_i sum_j alpha_j y_j k(x_i, x_j) >= 1 - xi_i + lam alpha_i k(x_i, x_i)``,
    ``alpha, xi >= 0``: each point must reach a functional margin that grows
    with its own coefficient. ``lam = 1`` is the leave-one-out machine.
    Erratum E7: the constraint matrix has diagonal ``(1 - lam) k_ii`` as in
    eq. (2.58), not ``k_ii - lam`` as printed in D.2.3 (the two agree only for
    ``k_ii = 1``). Book chapter 05. Cost: roughly O(m^3) time and about 22 ``m x m``
    float arrays (11 GB at ``m = 8000``; see the module docstring).

    Parameters
    ----------
    kernel : kernel, name or callable (default linear)
    lam : float >= 0, default 1.0
        The book's ``lambda``.

    Attributes
    ----------
    as in :class:`LeaveOneOutMachine`.
    """

    _bound_tags = {"family": "amm", "margin": "soft", "bias": False}  # kernelclf.bounds.report_tags
    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT, "lam": [Real(0, None, closed="left")]}

    def __init__(self, kernel=None, lam=1.0):
        self.kernel = kernel
        self.lam = lam

    def _diag_factor(self):
        lam = float(self.lam)
        if not np.isfinite(lam):
            raise ValueError(f"lam must be a finite number >= 0, got {self.lam!r}")
        return lam
