"""Book chapter 04 (``book/04_support_vector_machines.md``): the nu-support vector machine.

LKC §2.4.4 (eq. 2.52), App. B.5.4 and D.2.2; Schölkopf, Smola, Williamson & Bartlett (2000),
"New support vector algorithms". The margin ``rho`` becomes a variable and ``nu`` in
``(0, 1]`` replaces ``C``: at the optimum (with ``rho > 0``) it bounds the fraction of margin
errors from above and the fraction of support vectors from below; a fit stopped at ``tol`` can
count more margin errors
(:meth:`~kernelclf.margin.nu_svm.NuSupportVectorMachine.margin_errors`). Solved in libsvm's
scaling ``a = m alpha`` by the SMO of :mod:`kernelclf.margin.smo` (its two-group form with a
bias) or by
:func:`kernelclf.optim.solve_qp`, both on the same problem (the equality ``sum a = nu m``,
and one per class with a bias). The estimator states this dual; the fit, Gram access, the
threshold (from the multipliers of the equalities), the decision function and the stored
attributes come from the dual machines' base (``kernelclf.margin._dual``), Platt's
probabilities from :mod:`kernelclf.margin.platt`, as for the C-SVM (:mod:`kernelclf.margin.svm`).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import Int, Real
from ._dual import DUAL_KERNEL_CONSTRAINT, DualClassifier
from ._dual_problem import DualProblem, fill_from_front
from .platt import _PlattScaling

__all__ = ["NuSupportVectorMachine"]


class NuSupportVectorMachine(_PlattScaling, DualClassifier):
    """nu-support vector machine (LKC eq. 2.52, App. B.5.4, D.2.2; Schölkopf et al. 2000).

    Primal: ``min 1/2 ||w||^2 - nu rho + (1/m) sum xi_i`` subject to
    ``y_i f(x_i) >= rho - xi_i``, ``xi >= 0`` (``rho >= 0``). Dual (book
    scaling): ``max -1/2 alpha' Y G Y alpha`` subject to ``0 <= alpha_i <= 1/m``
    and ``sum alpha_i >= nu`` (plus ``y'alpha = 0`` with a bias). As in libsvm the
    solver works with ``a = m alpha`` and the equality ``sum a = nu m`` (the
    inequality is active whenever ``rho > 0``). This estimator is checked against
    scikit-learn's ``NuSVC`` and the nu-property (``tests/test_svm.py``).

    Parameters
    ----------
    kernel : kernel, name, callable or 'precomputed' (default linear)
        ``'precomputed'`` (as scikit-learn's ``SVC``): ``fit`` takes the ``m x m`` Gram
        matrix of the training examples, ``decision_function`` and ``predict`` the
        ``n x m`` kernel matrix between test and training examples; ``X_fit_`` is then the
        training Gram matrix and ``support_vectors_`` its rows of the support vectors.
    nu : float in (0, 1]
        At the optimum (with ``rho > 0``) an upper bound on the fraction of margin
        errors and a lower bound on the fraction of support vectors; a fit stopped at
        ``tol`` can count more margin errors
        (:meth:`~kernelclf.margin.nu_svm.NuSupportVectorMachine.margin_errors`).
    fit_bias : bool, default True
    solver : {'smo', 'qp'}
    tol, max_iter, cache_mb : as in :class:`~kernelclf.margin.svm.SupportVectorMachine`
        (but the QP's gap tolerance is ``min(tol, 1e-9)``)
    probability, random_state : as in :class:`~kernelclf.margin.svm.SupportVectorMachine`
        Platt scaling on 5-fold cross-validated decision values (libsvm offers it
        for the nu-SVM too); every fold machine is a nu-SVM with the same ``nu``, or the
        largest ``nu`` its training part allows when that is smaller.

    Attributes
    ----------
    alpha_ : (m,) array
        Signed ``alpha_i y_i`` of all ``m`` training examples (book scaling,
        ``|alpha_i| <= 1/m``; with weights ``<= w_i / W``).
    multipliers_ : (m,) array
        The book's ``alpha_i`` in ``[0, 1/m]`` (with weights ``[0, w_i / W]``, Notes) of
        all ``m`` training examples (``sum alpha_i = nu`` when ``rho > 0``); zero off the
        support vectors (with ``solver='qp'``: below the threshold of ``support_``).
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
    coef_ : (1, d) array
        Linear kernel only: ``w = sum_i alpha_i y_i x_i`` (book scaling;
        ``NuSVC.coef_ = coef_ / rho_``).
    dual_objective_ : float, ``-1/2 alpha' Y G Y alpha`` (book scaling)
    probA_, probB_ : float, Platt's sigmoid (``probability=True`` only)
    margin_ : float
        ``1/||w||`` in the book scaling, where the margin of the band ``|f(x)| <= rho``
        is ``rho_ * margin_`` (``1/||NuSVC.coef_||`` for a linear kernel).
    X_fit_, kernel_, classes_, n_iter_

    Notes
    -----
    Example weights. The book's nu-SVM gives every example the same box ``1/m``. With
    weights ``w_i`` (``sample_weight``) and ``W = sum_i w_i`` the slack term becomes
    ``(1/W) sum_i w_i xi_i``: the box of ``alpha_i`` is ``w_i / W`` and, in libsvm's
    scaling ``a = W alpha``, ``0 <= a_i <= w_i`` with ``sum a = nu W`` (and ``nu W / 2``
    per class with a bias), which is libsvm's weighted nu-SVM (its ``solve_nu_svc`` with
    per-example weights, as scikit-learn's ``NuSVC(...).fit(X, y, sample_weight)``).
    Multiplying all weights by one number changes nothing; integer weights give the model
    of the repeated examples; examples of weight 0 are left out (as libsvm does).
    Feasibility becomes ``nu W / 2 <= min(W_+, W_-)`` with the classes' total weights
    ``W_+, W_-``. There is no ``class_weight``: scikit-learn's ``NuSVC`` accepts one but
    ignores it (libsvm's class weights scale ``C``, which the nu-SVM does not have;
    scikit-learn issue #30332), and weighting a class by a large factor makes the other
    class's total too small for the equality with any usual ``nu``; per-class factors can
    be given through ``sample_weight``.
    """

    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
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

    # the interior-point route's tolerance: min(tol, 1e-9)
    _qp_tol_cap = 1e-9

    def fit(self, X, y, sample_weight=None):
        """Solve the nu-SVM dual for ``(X, y)`` (and Platt's sigmoid with
        ``probability=True``).

        Parameters
        ----------
        X : array (m, d), or list of strings for a string kernel
        y : (m,) array with two distinct labels
        sample_weight : (m,) array of finite numbers >= 0, optional
            Per-example weights ``w_i`` of the slack term (Notes): box ``w_i`` and
            ``sum a = nu W`` in libsvm's scaling, as ``NuSVC``. Both classes need some
            positive weight.
        """
        return self._fit(X, y, sample_weight)

    def _dual_problem(self, gram, y, w):
        """LKC eq. (2.52) in libsvm's scaling ``a = W alpha`` (``scale = W``, the total
        weight, ``m`` without weights): ``p = 0``, box ``w_i`` (1 without weights),
        ``sum a = nu W``; with a bias, one equality per class (``groups = y``), each
        ``sum a = nu W / 2``; without, the labels folded into the kernel."""
        nu = float(self.nu)
        m = len(y)
        box = np.ones(m) if w is None else np.asarray(w, dtype=float)
        total = float(box.sum())
        pos = y > 0
        if self.fit_bias and nu * total / 2 > min(box[pos].sum(), box[~pos].sum()) * \
                (1 + 1e-12) + 1e-12:
            what = "2 min(m+, m-) / m" if w is None else \
                "2 min(W+, W-) / W (W+, W-: the total sample_weight of each class)"
            raise ValueError(
                f"nu={nu} is infeasible for this sample: with a bias it must satisfy "
                f"nu <= {what} = {2 * min(box[pos].sum(), box[~pos].sum()) / total:.4f}")
        a0 = np.zeros(m)
        if self.fit_bias:
            for cls in (pos, ~pos):
                a0[cls] = fill_from_front(nu * total / 2, box[cls])
            return DualProblem(p=np.zeros(m), box=1.0 if w is None else box, s=y, groups=y,
                               alpha0=a0, scale=total)
        a0[:] = fill_from_front(nu * total, box)
        return DualProblem(p=np.zeros(m), box=1.0 if w is None else box, s=np.ones(m),
                           kernel_signs=y, alpha0=a0, scale=total)

    def _fold_estimator(self, sub, labels, weights):
        """The machine of one fold of Platt's cross-validation: with a bias and a ``nu``
        that the fold's training part cannot take (its smaller class too small), the
        largest feasible ``nu`` of that part, ``2 min(W+, W-) / W`` (libsvm goes on with
        the class sums it can reach)."""
        if not self.fit_bias:
            return sub
        w = np.ones(len(labels)) if weights is None else weights
        pos = labels == self.classes_[1]
        top = 2.0 * min(w[pos].sum(), w[~pos].sum()) / w.sum()
        return sub.set_params(nu=top) if float(self.nu) > top else sub

    def _bias_rho(self, problem, sol):
        """libsvm's ``(b, rho)`` from the multipliers of the equalities (libsvm scaling):
        with a bias ``mu_-, mu_+`` of the two classes give ``b = (mu_+ + mu_-)/2`` and
        ``rho = (mu_- - mu_+)/2``; without, ``rho = -mu``."""
        if self.fit_bias:
            mu_neg, mu_pos = sol.multipliers
            return (mu_pos + mu_neg) / 2.0, (mu_neg - mu_pos) / 2.0
        return 0.0, -sol.multipliers[0]

    def _threshold(self, problem, sol):
        return self._bias_rho(problem, sol)[0] / problem.scale

    def _store_extra(self, X, y, problem, sol):
        super()._store_extra(X, y, problem, sol)
        self.rho_ = float(self._bias_rho(problem, sol)[1]) / problem.scale
        self.multipliers_ = self.alpha_ * y
        self.w_norm_ = self._weight_norm(problem, sol)
        self.margin_ = 1.0 / self.w_norm_ if self.w_norm_ > 0 else np.inf

    def margin_errors(self):
        """Fraction of training points with ``y_i f(x_i) < rho`` (the nu-property's
        lower side: at the optimum, with ``rho > 0``, it is at most ``nu``).

        A fit stopped at ``tol`` puts the points of the margin on it only to within ``tol``,
        so this fraction can exceed ``nu``, by far when ``rho`` is small: on scikit-learn's
        ``make_moons(80, noise=0.3, random_state=0)`` with ``RBF(1.0)`` and ``nu = 0.1`` it is
        0.275 at the default ``tol`` (scikit-learn's ``NuSVC``: 0.2625) and 0.0625 at
        ``tol=1e-9`` (``tests/test_svm.py``; without numba the NumPy engine's active-set
        finish, :mod:`kernelclf.margin.smo`, ends at the optimum there already at the
        default ``tol``: 0.0625)."""
        check_is_fitted(self, "alpha_")
        f = self.decision_function(self.X_fit_)
        return float(np.mean(self.y_fit_ * f < self.rho_ * (1 - 1e-6)))
