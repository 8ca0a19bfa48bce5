"""Leave-one-out error and the bounds on it: the Jaakkola-Haussler bound and the
support-vector fraction.

Book chapter 05 (``book/05_loo_and_adaptive_margin_machines.md``); LKC §2.5
(Def. 2.35, Thm 2.36, Thm 2.37 / eq. 2.55), App. B.6.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..base import labels_to_pm1
from ..kernels.rows import take_rows

__all__ = ["leave_one_out_error", "jaakkola_haussler_bound", "support_vector_bound"]


def leave_one_out_error(estimator, X, y, shortcut=True):
    """Exact leave-one-out error ``R_loo`` (LKC Def. 2.35) by refitting.

    Parameters
    ----------
    estimator : classifier
        Unfitted (it is cloned for every fold).
    X, y : training sample
    shortcut : bool, default True
        For :class:`kernelclf.margin.svm.SupportVectorMachine` (C-SVM, hard or quadratic
        margin), refit only for support vectors: removing a point with
        ``alpha_i = 0`` leaves the solution optimal (the argument of LKC App. B.6, the
        proof of Theorem 2.37: with ``alpha_t = 0`` the function maximised there is the
        dual without example ``t``; with a bias ``y' alpha = 0`` still holds) and
        that point is classified with ``y_i f(x_i) >= 1``. Other estimators (the
        LP machines, the nu-SVM whose box depends on ``m``) are always refitted
        for every point. ``False`` refits for every point.

    Returns
    -------
    float
        Fraction of points ``i`` with ``y_i f_{-i}(x_i) <= 0`` (ties count as
        errors, matching the step function ``I_{t >= 0}`` of eq. 2.55).
    """
    classes, y_pm = labels_to_pm1(y)
    X = X if isinstance(X, (list, np.ndarray)) else np.asarray(X)
    m = len(y_pm)
    idx = np.arange(m)
    from ..margin.svm import SupportVectorMachine

    if shortcut and isinstance(estimator, SupportVectorMachine):
        full = clone(estimator).fit(X, y)
        idx = np.asarray(full.support_)
    errors = 0
    for i in idx:
        keep = np.r_[0:i, i + 1:m]
        model = clone(estimator).fit(take_rows(X, keep), np.asarray(y)[keep])
        f = float(np.ravel(model.decision_function(take_rows(X, int(i))))[0])
        sign = 1.0 if model.classes_[1] == classes[1] else -1.0
        errors += y_pm[i] * sign * f <= 0
    return errors / m


def _require_bias_free(svm):
    check_is_fitted(svm, "alpha_")
    if getattr(svm, "fit_bias", False):
        raise ValueError("the Jaakkola-Haussler bound (LKC Thm 2.37) is stated for the "
                         "bias-free SVM of eq. (2.53); fit with fit_bias=False")


def jaakkola_haussler_bound(svm):
    """Jaakkola–Haussler leave-one-out bound, LKC Theorem 2.37, eq. (2.55).

    ``R_loo <= (1/m) sum_i I( -y_i sum_{j != i} alpha_j y_j k(x_i, x_j) >= 0 )``
    for the maximiser ``alpha`` of the box-constrained dual (2.53), i.e. a
    fitted :class:`kernelclf.margin.svm.SupportVectorMachine` with ``fit_bias=False``
    (hinge loss or hard margin). Proof: LKC App. B.6.
    """
    _require_bias_free(svm)
    X = svm.X_fit_
    y = svm.y_fit_
    sv = svm.support_
    f = svm.kernel_(X, take_rows(X, sv)) @ svm.alpha_[sv]   # sum_j alpha_j y_j k(x_i, x_j)
    own = svm.alpha_ * np.asarray(svm.kernel_.diag(X))  # the j = i term
    return float(np.mean(-y * (f - own) >= 0))


def support_vector_bound(svm):
    """Vapnik's leave-one-out bound ``#SV / m`` (LKC §2.5.1)."""
    check_is_fitted(svm, "alpha_")
    return len(svm.support_) / len(svm.alpha_)
