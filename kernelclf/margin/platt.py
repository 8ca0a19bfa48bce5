"""Book chapter "For scikit-learn users" (``book/sklearn_guide.md``), section "Probabilities
and calibration"; the SVMs it serves are in chapter 04. Platt's sigmoid, the SVMs' probabilities.

Not a topic of LKC (whose classifiers output signs and margins): Platt (1999), "Probabilistic
outputs for support vector machines", fitted as libsvm does (Lin, Lin & Weng 2007, "A note on
Platt's probabilistic outputs for support vector machines", Machine Learning 68).
``probability=True`` of :class:`~kernelclf.margin.svm.SupportVectorMachine` and
:class:`~kernelclf.margin.nu_svm.NuSupportVectorMachine` adds the sigmoid
``P(y = classes_[1] | x) = 1 / (1 + exp(A f(x) + B))``, fitted on decision values of 5-fold
cross-validation (not on the training outputs, which are biased towards the margin), with
Platt's regularised targets and Newton's method with a backtracking line search
(:func:`fit_platt_sigmoid`). The scikit-learn guide compares it with scikit-learn's
calibration.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

__all__ = ["fit_platt_sigmoid"]

# cross-validation folds for Platt scaling (libsvm's svm_binary_svc_probability)
_PLATT_FOLDS = 5


def fit_platt_sigmoid(decision_values, y, *, max_iter=100, tol=1e-5):
    """Fit Platt's sigmoid ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` to decision values.

    Platt (1999), "Probabilistic outputs for support vector machines", with the
    algorithm of Lin, Lin & Weng (2007), "A note on Platt's probabilistic outputs for
    support vector machines" (Machine Learning 68), as in libsvm's ``sigmoid_train``:
    the cross-entropy to Platt's regularised targets ``t_+ = (N_+ + 1)/(N_+ + 2)`` and
    ``t_- = 1/(N_- + 2)`` is minimised by Newton's method on ``(A, B)`` (Hessian
    ridged by ``1e-12``) with a backtracking line search (sufficient decrease
    ``1e-4``, smallest step ``1e-10``), written so that no ``exp`` overflows.

    Parameters
    ----------
    decision_values : (n,) array
        The outputs ``f`` (for an SVM: cross-validated, see
        :class:`~kernelclf.margin.svm.SupportVectorMachine`).
    y : (n,) array
        Labels; ``y > 0`` is the positive class, anything else the negative one.
    max_iter : int, default 100
        Newton iterations (libsvm: 100).
    tol : float, default 1e-5
        Stop when both gradient components are below ``tol`` (libsvm: 1e-5).

    Returns
    -------
    A, B : float
        The sigmoid's slope and offset (``A < 0`` when larger ``f`` means ``+1``).
    """
    f = np.asarray(decision_values, dtype=float).ravel()
    pos = np.asarray(y).ravel() > 0
    if f.shape != pos.shape:
        raise ValueError(f"decision_values has {f.size} entries but y has {pos.size}")
    if not np.all(np.isfinite(f)):
        raise ValueError("decision_values contains NaN or infinity")
    n1 = float(pos.sum())
    n0 = float(pos.size - n1)
    t = np.where(pos, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))

    def objective(A, B):
        z = A * f + B
        return float(np.sum(t * z + np.logaddexp(0.0, -z)))

    A, B = 0.0, float(np.log((n0 + 1.0) / (n1 + 1.0)))
    fval = objective(A, B)
    for _ in range(int(max_iter)):
        z = A * f + B
        p = expit(-z)                     # 1 / (1 + exp(z)), the model's P(+1)
        d2 = p * (1.0 - p)
        d1 = t - p
        g1, g2 = float(f @ d1), float(d1.sum())
        if abs(g1) < tol and abs(g2) < tol:
            break
        h11 = 1e-12 + float(f * f @ d2)
        h22 = 1e-12 + float(d2.sum())
        h21 = float(f @ d2)
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-10:
            newA, newB = A + step * dA, B + step * dB
            newf = objective(newA, newB)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        else:                              # line search failed: at round-off level
            break
    return float(A), float(B)


def _platt_folds(labels, random_state):
    """The ``(train, test)`` index pairs of the cross-validation for Platt scaling:
    stratified 5-fold when every class has 5 examples, else libsvm's random cut of a
    permutation at ``k m / 5`` (see ``_PlattScaling._fit_probability``)."""
    m = len(labels)
    counts = np.unique(labels, return_counts=True)[1]
    if counts.min() >= _PLATT_FOLDS:
        cv = StratifiedKFold(n_splits=_PLATT_FOLDS, shuffle=True, random_state=random_state)
        return list(cv.split(np.zeros((m, 1)), labels))
    perm = check_random_state(random_state).permutation(m)
    cuts = [k * m // _PLATT_FOLDS for k in range(_PLATT_FOLDS + 1)]
    return [(np.sort(np.r_[perm[:a], perm[b:]]), np.sort(perm[a:b]))
            for a, b in zip(cuts[:-1], cuts[1:])]


def _probability_on(estimator):
    """``available_if`` check: ``predict_proba`` exists only with ``probability=True``."""
    if not estimator.probability:
        raise AttributeError(f"predict_proba is not available when probability=False: "
                             f"set {type(estimator).__name__}(probability=True) and fit again")
    return True


class _PlattScaling:
    """Platt scaling for the SVM estimators (mixed into the C-SVM of
    :mod:`kernelclf.margin.svm` and the nu-SVM of :mod:`kernelclf.margin.nu_svm`, dual
    machines of ``kernelclf.margin._dual``): the sigmoid fit behind
    ``probability=True`` and the ``predict_proba`` / ``predict_log_proba`` it offers."""

    def _fit_probability(self, X, labels, weights=None):
        """Platt scaling as in libsvm (Lin, Lin & Weng 2007): fit the sigmoid on the
        decision values of a 5-fold cross-validation of this estimator.

        The folds are ``StratifiedKFold(5, shuffle=True, random_state)`` when each class
        has at least 5 examples (stratification keeps both classes in every training
        part); otherwise libsvm's own folds (``svm_binary_svc_probability``): a random
        permutation cut at ``k m / 5``, ``k = 0, ..., 5``, so that any sample ``SVC``
        takes works (some folds may then be empty, some training parts hold one class).
        A training part holding (positive weight on) one class only gives its held-out
        points the value +1 or -1, and one without examples the value 0, as libsvm does.
        Example weights, if any, are used by the fold machines (libsvm passes them on)
        but not by the sigmoid fit (libsvm's ``sigmoid_train`` has none).
        """
        m = len(labels)
        y_pm = np.where(labels == self.classes_[1], 1.0, -1.0)
        sub = clone(self).set_params(probability=False)
        if weights is not None and "class_weight" in sub.get_params():
            sub.set_params(class_weight=None)     # the weights below include it
        f = np.zeros(m)
        for k, (tr, te) in enumerate(_platt_folds(labels, self.random_state)):
            if te.size == 0:
                continue
            live = y_pm[tr] if weights is None else y_pm[tr][weights[tr] > 0]
            has_pos, has_neg = bool(np.any(live > 0)), bool(np.any(live < 0))
            if not (has_pos and has_neg):
                f[te] = 1.0 if has_pos else (-1.0 if has_neg else 0.0)
                continue
            kw = {} if weights is None else {"sample_weight": weights[tr]}
            fold = self._fold_estimator(clone(sub), labels[tr],
                                        None if weights is None else weights[tr])
            try:
                model = fold.fit(self._train_part(X, tr), labels[tr], **kw)
            except ValueError as exc:
                raise ValueError(f"probability=True: fold {k + 1} of the {_PLATT_FOLDS}-fold "
                                 f"cross-validation for Platt scaling failed: {exc}") from exc
            f[te] = model.decision_function(self._test_part(X, te, tr))
        self.probA_, self.probB_ = fit_platt_sigmoid(f, y_pm)

    def _fold_estimator(self, sub, labels, weights):
        """The machine fitted on one fold's training part (``sub``, a clone without
        ``probability``; a machine may adapt it to the part)."""
        return sub

    def _platt_logit(self, X):
        check_is_fitted(self, "alpha_")
        if not hasattr(self, "probA_"):
            raise NotFittedError(f"This {type(self).__name__} was fitted with "
                                 "probability=False; fit it again with probability=True "
                                 "to use predict_proba")
        return self.probA_ * self.decision_function(X) + self.probB_

    @available_if(_probability_on)
    def predict_proba(self, X):
        """Platt's probabilities ``(n, 2)``: columns ``classes_[0]``, ``classes_[1]``.

        ``P(classes_[1] | x) = 1 / (1 + exp(probA_ f(x) + probB_))`` (Platt 1999;
        Lin, Lin & Weng 2007), monotone in :meth:`decision_function` (decreasing
        if ``probA_ > 0``, which happens only when the cross-validated outputs point
        the wrong way). Only with ``probability=True``. As in libsvm, the arg-max of
        the probabilities may differ from :meth:`predict` (the sign of ``f``) for
        points near the boundary, since the sigmoid's midpoint ``f = -probB_/probA_``
        need not be 0.
        """
        z = self._platt_logit(X)
        return np.column_stack([expit(z), expit(-z)])

    @available_if(_probability_on)
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`, computed without underflow."""
        z = self._platt_logit(X)
        return np.column_stack([-np.logaddexp(0.0, -z), -np.logaddexp(0.0, z)])
