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

Example weights (C-SVM only). ``fit(X, y, sample_weight)`` and the ``class_weight``
parameter give every example its own penalty ``C_i = C w_i`` with
``w_i = sample_weight_i * class_weight[y_i]``: for the hinge loss the box of the
dual becomes ``0 <= alpha_i <= C_i`` (libsvm's per-class weights, Chang & Lin 2011,
and its per-instance-weight extension, which scikit-learn's ``SVC`` uses); for the
squared hinge the slack term is ``(1/2) sum C_i xi_i^2`` and the ridge of eq. (2.50)
becomes ``diag(1/C_i)``. Examples of weight 0 are left out of the dual (as libsvm
does); they never become support vectors. The hard margin has no slack to weight:
weights are refused there.

Probabilities. ``probability=True`` adds Platt's sigmoid
``P(y = classes_[1] | x) = 1 / (1 + exp(A f(x) + B))`` (Platt 1999), fitted as
libsvm does (Lin, Lin & Weng 2007): on decision values of 5-fold cross-validation
(not on the training outputs, which are biased towards the margin), with Platt's
regularised targets and Newton's method with a backtracking line search
(:func:`fit_platt_sigmoid`).
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..kernels.rows import take_rows
from ..optim import InfeasibleProblemError, solve_qp
from .separability import is_separable
from .smo import DualDivergenceError, solve_smo

__all__ = ["SupportVectorMachine", "NuSupportVectorMachine", "is_separable",
           "fit_platt_sigmoid"]

# hard margin: an alpha beyond this means the dual is running off to infinity
_ALPHA_BOUND = 1e9
# precompute the Gram matrix up to this many examples (else cached columns)
_PRECOMPUTE_MAX = 200
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
        :class:`SupportVectorMachine`).
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


def _probability_on(estimator):
    """``available_if`` check: ``predict_proba`` exists only with ``probability=True``."""
    if not estimator.probability:
        raise AttributeError(f"predict_proba is not available when probability=False: "
                             f"set {type(estimator).__name__}(probability=True) and fit again")
    return True


class _SVMBase(BinaryKernelClassifier):
    """Shared pieces: Gram access, decision function over the support vectors,
    Platt scaling."""

    def _fit_probability(self, X, labels, weights=None):
        """Platt scaling as in libsvm (Lin, Lin & Weng 2007): fit the sigmoid on the
        decision values of a 5-fold cross-validation of this estimator.

        The folds are ``StratifiedKFold(5, shuffle=True, random_state)``; libsvm draws
        plain random folds (stratification keeps both classes in every training part).
        A training part holding (positive weight on) one class only gives its held-out
        points the value +1 or -1, as libsvm does. Example weights, if any, are used
        by the fold machines (libsvm passes them on) but not by the sigmoid fit
        (libsvm's ``sigmoid_train`` has none).
        """
        m = len(labels)
        if m < _PLATT_FOLDS:
            raise ValueError(f"probability=True needs at least {_PLATT_FOLDS} training "
                             f"examples ({_PLATT_FOLDS}-fold cross-validation for Platt "
                             f"scaling), got {m}")
        y_pm = np.where(labels == self.classes_[1], 1.0, -1.0)
        sub = clone(self).set_params(probability=False)
        if weights is not None:
            sub.set_params(class_weight=None)     # the weights below include it
        cv = StratifiedKFold(n_splits=_PLATT_FOLDS, shuffle=True,
                             random_state=self.random_state)
        f = np.zeros(m)
        for k, (tr, te) in enumerate(cv.split(np.zeros((m, 1)), labels)):
            live = y_pm[tr] if weights is None else y_pm[tr][weights[tr] > 0]
            has_pos, has_neg = bool(np.any(live > 0)), bool(np.any(live < 0))
            if not (has_pos and has_neg):
                f[te] = 1.0 if has_pos else (-1.0 if has_neg else 0.0)
                continue
            kw = {} if weights is None else {"sample_weight": weights[tr]}
            try:
                model = clone(sub).fit(take_rows(X, tr), labels[tr], **kw)
            except ValueError as exc:
                raise ValueError(f"probability=True: fold {k + 1} of the {_PLATT_FOLDS}-fold "
                                 f"cross-validation for Platt scaling failed: {exc}") from exc
            f[te] = model.decision_function(take_rows(X, te))
        self.probA_, self.probB_ = fit_platt_sigmoid(f, y_pm)

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
        self.support_vectors_ = take_rows(X, self.support_)
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
        ``G + I/C``. Ignored when ``hard_margin=True``. Per example it is multiplied
        by the weights: ``C_i = C * sample_weight_i * class_weight[y_i]``.
    loss : {'hinge', 'squared_hinge'}
    hard_margin : bool
        Solve eq. (2.45) (no slack). A sample that is not separable in feature
        space raises ``ValueError``. There is no slack to weight, so
        ``sample_weight`` and ``class_weight`` raise ``ValueError`` here.
    fit_bias : bool, default True
        Add a threshold ``b`` (constraint ``y'alpha = 0``). The book's SVM has
        no bias (``fit_bias=False``).
    solver : {'smo', 'qp'}
        SMO with second-order working-set selection (:func:`kernelclf.margin.smo.solve_smo`)
        or cvxopt's interior-point QP (:func:`kernelclf.optim.solve_qp`).
    tol : float
        SMO: tolerance on the maximal KKT violation (libsvm's 1e-3 by default),
        after which the KKT equations of the free variables are solved exactly when
        that keeps the point feasible (``solve_smo(polish=True)``, at most 1000 free
        variables), so the result is exact up to round-off whenever SMO has found
        which variables sit at a bound;
        QP: gap tolerance handed to cvxopt (use ``tol <= 1e-8`` there).
    max_iter : int or None
        SMO iteration cap (default ``100_000 + 100 m``).
    cache_mb : float
        Kernel column cache for large samples.
    class_weight : dict, 'balanced' or None, default None
        Weight of each class in the slack penalty, ``C_i = C * class_weight[y_i]``
        (libsvm's ``-wi``; scikit-learn ``SVC(class_weight=...)``). A dict maps labels
        of ``y`` to finite weights ``>= 0`` (labels not named keep weight 1; naming a
        label that is not in ``y`` is an error). ``'balanced'`` gives class ``c`` the
        weight ``W / (2 W_c)`` with ``W_c`` the total ``sample_weight`` of the class
        (the counts when there are no sample weights, then equal to ``SVC``'s
        ``'balanced'``; with sample weights ``SVC`` uses the unweighted counts).
        Hinge and squared hinge only.
    probability : bool, default False
        Fit Platt's sigmoid on 5-fold cross-validated decision values (Platt 1999;
        Lin, Lin & Weng 2007; libsvm's ``-b 1``) and offer :meth:`predict_proba`.
        Costs five more fits.
    random_state : int, RandomState or None, default None
        Shuffles the cross-validation folds of ``probability=True`` (unused
        otherwise).

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients ``alpha_i y_i`` (LKC's ``alpha_i y_i``, eq. 2.54).
    dual_coef_ : (m,) array
        The book's non-negative dual variables ``alpha_i`` (``alpha_i <= C_i``).
    support_ : array of int
        Indices of the support vectors (``alpha_i > 0``).
    support_vectors_ : array or list
        The support vectors, ``X[support_]`` (as scikit-learn's ``SVC``).
    n_support_ : (2,) array of int
        Support vectors per class, in the order of ``classes_`` (as ``SVC``).
    intercept_ : float
        Threshold ``b`` (0 when ``fit_bias=False``).
    dual_objective_ : float
        Dual value ``sum alpha_i - 1/2 alpha' (Y G Y + R) alpha`` (``R = diag(1/C_i)``
        for the squared hinge, else 0); equals scikit-learn's / libsvm's dual.
    margin_ : float
        Geometric margin ``1/||w||`` in feature space (LKC Def. 2.30).
    class_weight_ : (2,) array
        The weight of ``classes_[0]`` and ``classes_[1]`` (ones without
        ``class_weight``).
    probA_, probB_ : float
        Platt's sigmoid (only with ``probability=True``):
        ``P(classes_[1] | x) = 1 / (1 + exp(probA_ f(x) + probB_))``.
    X_fit_, kernel_, classes_, n_iter_, converged_
    """

    _bound_tags = {"family": "svm", "bias": lambda s: s.fit_bias,  # kernelclf.bounds.report
                   "margin": lambda s: "hard" if s.hard_margin else "soft"}
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
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "probability": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, C=1.0, loss="hinge", hard_margin=False, fit_bias=True,
                 solver="smo", tol=1e-3, max_iter=None, cache_mb=200.0, class_weight=None,
                 probability=False, random_state=None):
        self.kernel = kernel
        self.C = C
        self.loss = loss
        self.hard_margin = hard_margin
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.class_weight = class_weight
        self.probability = probability
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Solve the dual for the sample ``(X, y)`` (any two labels).

        Parameters
        ----------
        X : array (m, d), or list of strings for a string kernel
        y : (m,) array with two distinct labels
        sample_weight : (m,) array of finite numbers >= 0, optional
            Per-example factor of ``C`` (hinge: box ``0 <= alpha_i <= C w_i``;
            squared hinge: ridge ``1/(C w_i)``), as in libsvm / scikit-learn ``SVC``.
            Integer weights give the same model as repeating the examples; weight 0
            removes an example. Both classes need some positive weight. Not for
            ``hard_margin=True``.
        """
        X, y = self._fit_binary(X, y)
        labels = self.classes_[(y > 0).astype(int)]
        w = self._example_weights(X, y, labels, sample_weight)
        if w is None or np.all(w > 0):
            keep = None
            a, bias, obj, quad, n_iter, converged = self._solve(X, y, w)
        else:                       # weight 0: the example is not in the dual (libsvm)
            keep = np.flatnonzero(w > 0)
            a_k, bias, obj, quad, n_iter, converged = self._solve(
                take_rows(X, keep), y[keep], w[keep])
            a = np.zeros(len(y))
            a[keep] = a_k
        self._finish(X, y, a, bias, obj, quad, max(int(n_iter), 1), converged)
        if self.probability:
            self._fit_probability(X, labels, w)
        return self

    def _example_weights(self, X, y, labels, sample_weight):
        """``w_i = sample_weight_i * class_weight[y_i]`` (None: no weighting); sets
        ``class_weight_``."""
        self.class_weight_ = np.ones(2)
        if sample_weight is None and self.class_weight is None:
            return None
        if self.hard_margin:
            raise ValueError(
                "sample_weight and class_weight scale the slack penalty C per example; the "
                "hard margin (hard_margin=True) has no slack, so they cannot be used with it. "
                "Use a soft margin (hard_margin=False) with a large C instead.")
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self._check_both_classes(sw, y, "sample_weight")
        cw = self.class_weight
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
            self.class_weight_ = np.asarray(
                compute_class_weight(cw, classes=self.classes_, y=labels), dtype=float)
        w = sw * self.class_weight_[(y > 0).astype(int)]
        self._check_both_classes(w, y, "sample_weight * class_weight")
        return w

    def _check_both_classes(self, w, y, what):
        for side, c in zip((y < 0, y > 0), self.classes_.tolist()):
            if not np.any(w[side] > 0):
                raise ValueError(f"{what} is 0 on every example of class {c!r}: the SVM needs "
                                 "examples of both classes with positive weight")

    def _solve(self, X, y, w):
        """The dual for ``(X, y)`` with example weights ``w`` (None or all > 0).

        Returns ``(a, bias, dual objective, a' Y G Y a, iterations, converged)``.
        """
        tol = float(self.tol)
        m = len(y)
        C = float(self.C) if w is None else float(self.C) * w
        if self.hard_margin:
            box, shift = np.inf, 0.0
        elif self.loss == "hinge":
            box, shift = C, 0.0
        else:
            box, shift = np.inf, 1.0 / C
        gram = self._gram(X)
        if self.solver == "qp":
            a, bias, obj, n_iter = self._fit_qp(gram.full(), y, box, shift, tol)
            converged = True
        else:
            max_iter = 100_000 + 100 * m if self.max_iter is None else int(self.max_iter)
            hard = bool(self.hard_margin)
            bound = _ALPHA_BOUND if hard else np.inf
            # hard margin: a short first run; if it has not converged, an LP decides
            # whether the sample is separable before the remaining budget is spent
            first = min(max_iter, 20 * m + 1000) if hard else max_iter
            kw = dict(s=y, equality=bool(self.fit_bias), tol=tol, alpha_bound=bound,
                      polish=True)
            if np.ndim(shift):
                kw["diag_shift"] = shift
                solver_gram = gram
            else:
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
        # ||w||^2 = a'YGYa = 2 (sum a - D) - a' R a  (R = diag(shift))
        quad = 2.0 * (a.sum() - obj) - float(a @ (shift * a))
        return a, bias, obj, quad, n_iter, converged

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
        if np.any(shift):
            H[np.diag_indices(m)] += shift
        kw = {"A1": y[None, :], "b1": [0.0]} if self.fit_bias else {}
        try:
            sol = solve_qp(H, -np.ones(m), l=0.0, u=None if np.all(np.isinf(box)) else box,
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
    probability, random_state : as in :class:`SupportVectorMachine`
        Platt scaling on 5-fold cross-validated decision values (libsvm offers it
        for the nu-SVM too); every fold machine is a nu-SVM with the same ``nu``,
        which must be feasible on each training part.

    Attributes
    ----------
    alpha_ : signed ``alpha_i y_i`` (book scaling, ``|alpha_i| <= 1/m``)
    dual_coef_ : the book's ``alpha_i >= 0``
    rho_ : float, the margin parameter ``rho``
    intercept_ : float
    dual_objective_ : float, ``-1/2 alpha' Y G Y alpha`` (book scaling)
    probA_, probB_ : float, Platt's sigmoid (``probability=True`` only)
    support_, margin_, X_fit_, kernel_, classes_, n_iter_

    Notes
    -----
    No example weights here (``fit`` takes no ``sample_weight``): the book's nu-SVM
    gives every example the same box ``1/m``. For weighted examples use
    :class:`SupportVectorMachine` with ``sample_weight`` / ``class_weight``.
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
