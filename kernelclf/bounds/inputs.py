"""What a margin bound needs, read from a fitted classifier of the package.

Book chapter 15 (``book/15_margin_bounds.md``); LKC Definition 2.30 (functional and
geometrical margin), §4.4 (Theorem 4.32, Remark 4.33), §4.4.3 (eq. 4.31, Remark 4.36,
Theorem 4.37 eq. 4.36–4.38), eq. (2.54) (kernel expansions).

Every helper uses only public fitted attributes, so any binary classifier of the package
can be scored: either a kernel expansion (``alpha_`` signed coefficients, ``X_fit_``,
``kernel_``, optionally ``intercept_``; :class:`~kernelclf.margin.svm.SupportVectorMachine`,
:class:`~kernelclf.margin.perceptron.KernelPerceptron`,
:class:`~kernelclf.margin.amm.AdaptiveMarginMachine`, :class:`~kernelclf.bayespoint.bpm.BayesPointMachine`,
...) or a primal linear model (``coef_``, :class:`~kernelclf.margin.perceptron.Perceptron`).
Labels are mapped to -1/+1 through ``classes_`` and margins come from
``decision_function``.

The bounds of LKC are stated for homogeneous classifiers ``sign(<w, phi(x)>)``. A
fitted ``intercept_ = b != 0`` is handled by the usual augmentation: ``w~ = (w, b)`` and
``phi~(x) = (phi(x), 1)`` give the same classifier, with ``||w~||^2 = ||w||^2 + b^2`` and
``||phi~(x)||^2 = k(x, x) + 1``; ``augment=False`` refuses such models instead.

The radius ``varsigma`` of Theorem 4.32 must bound ``||phi(x)||`` on the whole support of
``P_X``; :func:`feature_radius` returns its sample value ``max_i sqrt(k(x_i, x_i))``,
which is exact for kernels with constant diagonal (RBF, normalised kernels: 1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..kernels.rows import take_rows
from . import margin as _margin

__all__ = [
    "MarginInputs",
    "signed_labels",
    "weight_norm",
    "feature_radius",
    "functional_margins",
    "geometric_margins",
    "margin",
    "training_error",
    "n_support",
    "slacks",
    "amm_slacks",
    "amm_d_eff",
    "margin_inputs",
]


def _intercept(est):
    b = getattr(est, "intercept_", 0.0)
    b = np.ravel(np.asarray(b, dtype=float))
    if b.size > 1:
        raise ValueError("only binary classifiers with a scalar intercept_ are supported")
    return float(b[0]) if b.size else 0.0


def _check_intercept(est, augment):
    b = _intercept(est)
    if b != 0.0 and not augment:
        raise ValueError(
            f"{type(est).__name__} has intercept_ = {b:.6g}; the margin bounds of LKC §4.4 "
            "are for homogeneous classifiers. Use augment=True (w~ = (w, b), "
            "phi~(x) = (phi(x), 1)) or fit without a bias")
    return b


def _kind(est):
    if hasattr(est, "alpha_") and hasattr(est, "X_fit_") and hasattr(est, "kernel_"):
        alpha = np.asarray(est.alpha_, dtype=float)
        if alpha.ndim != 1:
            raise ValueError(f"alpha_ must be 1-D (a binary classifier), got shape {alpha.shape}")
        return "expansion"
    if hasattr(est, "coef_"):
        return "primal"
    raise TypeError(
        f"{type(est).__name__} exposes neither a kernel expansion (alpha_, X_fit_, kernel_) "
        "nor a primal weight vector (coef_); it cannot be scored by a margin bound")


def _check(est):
    check_is_fitted(est)
    return _kind(est)


def signed_labels(estimator, y):
    """Labels ``y`` as -1/+1 floats through ``estimator.classes_`` (``classes_[1]`` is +1).

    Raises ``ValueError`` for labels the estimator was not fitted on.
    """
    check_is_fitted(estimator, "classes_")
    classes = np.asarray(estimator.classes_)
    if len(classes) != 2:
        raise ValueError(f"a binary classifier is needed, classes_ = {classes.tolist()}")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(f"y contains labels not in classes_ {classes.tolist()}: "
                         f"{np.unique(y[unknown]).tolist()[:5]}")
    return np.where(y == classes[1], 1.0, -1.0)


def weight_norm(estimator, augment=True):
    """``||w||`` of the fitted classifier (RKHS norm of ``f`` minus its intercept).

    For a kernel expansion ``w = sum_i alpha_i phi(x_i)`` (eq. 2.54, signed ``alpha``),
    ``||w||^2 = alpha' G alpha`` with ``G = k(X_fit_, X_fit_)`` restricted to the non-zero
    coefficients; for a primal model ``||coef_||``. With ``augment`` the intercept
    enters as an extra weight: ``sqrt(||w||^2 + b^2)``.
    """
    kind = _check(estimator)
    b = _check_intercept(estimator, augment)
    if kind == "expansion":
        alpha = np.asarray(estimator.alpha_, dtype=float)
        idx = np.flatnonzero(alpha)
        if idx.size == 0:
            sq = 0.0
        else:
            Xs = take_rows(estimator.X_fit_, idx)
            K = np.asarray(estimator.kernel_(Xs, Xs), dtype=float)
            sq = float(alpha[idx] @ K @ alpha[idx])
    else:
        w = np.ravel(np.asarray(estimator.coef_, dtype=float))
        sq = float(w @ w)
    return float(np.sqrt(max(sq, 0.0) + b * b))


def _kernel_diag(est, X):
    kernel = est.kernel_ if hasattr(est, "kernel_") else None
    if kernel is None:
        X = np.asarray(X, dtype=float)
        return np.einsum("ij,ij->i", X, X)
    diag = getattr(kernel, "diag", None)
    if diag is not None:
        return np.asarray(diag(X), dtype=float)
    return np.diag(np.asarray(kernel(X, X), dtype=float))


def feature_radius(estimator, X=None, augment=True):
    """``varsigma = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i))`` from ``kernel_.diag``.

    ``X`` defaults to ``X_fit_``. With ``augment`` and a non-zero intercept the radius of
    the augmented points ``(phi(x), 1)``: ``sqrt(max_i k(x_i, x_i) + 1)``.
    """
    kind = _check(estimator)
    b = _check_intercept(estimator, augment)
    if X is None:
        if not hasattr(estimator, "X_fit_"):
            raise ValueError(f"{type(estimator).__name__} has no X_fit_; pass the sample X")
        X = estimator.X_fit_
    elif kind == "expansion" and not isinstance(X, list):
        X = np.asarray(X, dtype=float)
    kd = _kernel_diag(estimator, X)
    if kd.size == 0:
        raise ValueError("X is empty")
    sq = float(np.max(kd)) + (1.0 if b != 0.0 else 0.0)
    return float(np.sqrt(max(sq, 0.0)))


def functional_margins(estimator, X, y):
    """``y_i f(x_i)`` for the sample ``(X, y)`` (LKC Definition 2.30), from ``decision_function``."""
    _check(estimator)
    y_pm = signed_labels(estimator, y)
    f = np.ravel(np.asarray(estimator.decision_function(X), dtype=float))
    if f.shape != y_pm.shape:
        raise ValueError(f"X has {f.size} samples but y has {y_pm.size}")
    return y_pm * f


def geometric_margins(estimator, X, y, augment=True):
    """``y_i f(x_i) / ||w||``: the geometrical margins of Definition 2.30 (eq. 4.29 input)."""
    wn = weight_norm(estimator, augment=augment)
    if wn == 0.0:
        raise ValueError("the weight vector is zero: the margin is undefined")
    return functional_margins(estimator, X, y) / wn


def margin(estimator, X, y, augment=True):
    """Geometrical margin ``gamma_z(w) = min_i y_i f(x_i) / ||w||`` (LKC Definition 2.30).

    Negative when a training point is misclassified; the PAC margin bound (Theorem 4.32)
    needs it positive.
    """
    return float(np.min(geometric_margins(estimator, X, y, augment=augment)))


def training_error(estimator, X, y):
    """Training error ``R_emp`` with ``sign(0)`` counted as an error (``y_i f(x_i) <= 0``)."""
    return float(np.mean(functional_margins(estimator, X, y) <= 0))


def n_support(estimator, tol=1e-8):
    """Number of non-zero expansion coefficients, ``|alpha_i| > tol * max_j |alpha_j|``.

    The number of support vectors of an SVM, of updates-bearing points of a perceptron
    (for a primal model: the length of ``mistake_indices_`` if present).
    """
    kind = _check(estimator)
    if kind == "expansion":
        a = np.abs(np.asarray(estimator.alpha_, dtype=float))
        top = float(a.max(initial=0.0))
        return int(np.sum(a > tol * top)) if top > 0 else 0
    if hasattr(estimator, "mistake_indices_"):
        return int(len(np.unique(estimator.mistake_indices_)))
    raise ValueError(f"{type(estimator).__name__} is a primal model without an expansion")


def slacks(estimator, X, y):
    """``xi_i = max{0, 1 - y_i f(x_i)}`` at the fitted scale (LKC eq. 2.48–2.49, Remark 4.36).

    With the canonical scaling (functional margin 1) these are the soft-margin SVM slacks
    and ``D(z, w/||w||, 1/||w||)^2 = sum_i xi_i^2 / ||w||^2``.
    """
    return np.maximum(0.0, 1.0 - functional_margins(estimator, X, y))


def _amm_parts(estimator, X, y):
    if not hasattr(estimator, "lam"):
        raise TypeError(f"{type(estimator).__name__} has no 'lam': not an adaptive margin "
                        "machine (LKC eq. 2.57-2.58)")
    if _check(estimator) != "expansion":
        raise TypeError("an AMM is a kernel expansion (alpha_, X_fit_, kernel_)")
    if _intercept(estimator) != 0.0:
        raise ValueError("Theorem 4.37 is for the bias-free AMM")
    y_pm = signed_labels(estimator, y)
    alpha = np.asarray(estimator.alpha_, dtype=float)
    if alpha.shape != y_pm.shape:
        raise ValueError("X, y must be the training sample of the AMM (one alpha per point)")
    a = alpha * y_pm                                      # the book's alpha_i >= 0
    if (a < -1e-8 * max(1.0, np.abs(a).max())).any():
        raise ValueError("alpha_ * y has negative entries: y is not the AMM's training labels")
    a = np.maximum(a, 0.0)
    kd = _kernel_diag(estimator, X)
    return y_pm, a, kd, float(estimator.lam)


def amm_slacks(estimator, X, y):
    """Slacks ``xi`` of a fitted adaptive margin machine, LKC eq. (2.58).

    ``slack_`` if the estimator exposes it, else the smallest feasible slacks
    ``xi_i = max{0, 1 - y_i f(x_i) + lam alpha_i k(x_i, x_i)}`` (what the LP optimum
    attains, since the objective is ``sum_i xi_i``).
    """
    y_pm, a, kd, lam = _amm_parts(estimator, X, y)
    xi = getattr(estimator, "slack_", None)
    if xi is not None:
        xi = np.maximum(np.asarray(xi, dtype=float), 0.0)
        if xi.shape == y_pm.shape:
            return xi
    t = functional_margins(estimator, X, y)
    return np.maximum(0.0, 1.0 - t + lam * a * kd)


def amm_d_eff(estimator, X, y, varsigma=None):
    """``d_eff`` of Theorem 4.37, eq. (4.38), for a fitted adaptive margin machine.

    ``65 (varsigma ||w|| + 3 sum_i max{0, xi_i - lam alpha_i k(x_i, x_i)})^2`` with
    ``X, y`` the AMM's training sample; ``varsigma`` defaults to :func:`feature_radius`.
    """
    y_pm, a, kd, lam = _amm_parts(estimator, X, y)
    xi = amm_slacks(estimator, X, y)
    vs = feature_radius(estimator, X) if varsigma is None else varsigma
    return float(_margin.amm_d_eff(weight_norm(estimator), xi, a, kd, lam, vs))


@dataclass(frozen=True)
class MarginInputs:
    """Everything the bounds of :mod:`kernelclf.bounds.margin` take from a classifier.

    Attributes
    ----------
    m : int
        Sample size.
    gamma : float
        Geometrical margin ``gamma_z(w)`` (negative if a point is misclassified).
    varsigma : float
        Radius ``max_i ||phi(x_i)||`` (augmented if there is an intercept).
    w_norm : float
        ``||w||`` (augmented if there is an intercept).
    margins : ndarray
        Functional margins ``y_i f(x_i)``.
    training_error : float
    n_support : int or None
        ``None`` for primal models without ``mistake_indices_``.
    augmented : bool
        Whether an intercept was folded into ``w`` and ``phi``.
    """

    m: int
    gamma: float
    varsigma: float
    w_norm: float
    margins: np.ndarray
    training_error: float
    n_support: int | None
    augmented: bool

    @property
    def geometric_margins(self):
        """``y_i f(x_i) / ||w||``."""
        return self.margins / self.w_norm

    @property
    def vartheta_eff(self):
        """Margin complexity ``varsigma^2 / gamma^2`` (Remark 4.33); ``inf`` if ``gamma <= 0``."""
        return self.varsigma**2 / self.gamma**2 if self.gamma > 0 else np.inf

    def D(self, gamma):
        """``D(z, w/||w||, gamma)`` of eq. (4.31) for the unit-norm weight vector."""
        return float(_margin.margin_distribution(self.geometric_margins, gamma))

    def pac_margin_bound(self, delta):
        """Eq. (4.29) at the observed margin; ``inf`` if not consistent or premise fails."""
        if self.training_error > 0 or self.gamma <= 0:
            return np.inf
        return float(_margin.pac_margin_bound(self.m, self.gamma, delta, self.varsigma))

    def robust_margin_bound(self, delta, gamma=None):
        """Eq. (4.33) with ``d_eff = 65 (varsigma + 3D)^2/gamma^2``.

        ``gamma`` defaults to the value in ``(0, varsigma]`` that minimises the bound over
        a grid of observed margins (legitimate: Theorem 4.35 holds for all ``gamma`` at
        once).
        """
        if gamma is None:
            return self.best_robust_margin(delta)[2]
        d = _margin.robust_d_eff(gamma, self.D(gamma), self.varsigma)
        return float(_margin.robust_margin_bound(self.m, d, delta))

    def best_robust_margin(self, delta):
        """``(gamma, d_eff, bound)`` of eq. (4.33) at the best ``gamma`` of the grid.

        The grid is the observed geometrical margins in ``(0, varsigma]`` and ``varsigma``
        itself; ``d_eff = 65 (varsigma + 3 D(z, w, gamma))^2 / gamma^2`` (Theorem 4.35).
        Eq. (4.33) grows with ``d_eff`` wherever it is finite (``d_eff <= 2m``), so the
        best ``gamma`` is the one with the smallest ``d_eff``; ``bound`` is ``inf`` when even
        that ``d_eff`` exceeds ``2m``.
        """
        cands = np.unique(np.clip(self.geometric_margins, 0, None))
        cands = np.r_[cands[(cands > 0) & (cands <= self.varsigma)], self.varsigma]
        d = np.array([float(_margin.robust_d_eff(g, self.D(g), self.varsigma)) for g in cands])
        values = np.array([float(_margin.robust_margin_bound(self.m, di, delta)) for di in d])
        i = int(np.argmin(values)) if np.isfinite(values).any() else int(np.argmin(d))
        return float(cands[i]), float(d[i]), float(values[i])

    def soft_margin_d_eff(self, norm=2):
        """Eq. (4.34) (``norm=2``) or (4.35) (``norm=1``) at the fitted scale."""
        xi = np.maximum(0.0, 1.0 - self.margins)
        return float(_margin.soft_margin_d_eff(self.w_norm, xi, self.varsigma, norm=norm))


def margin_inputs(estimator, X, y, augment=True):
    """Collect :class:`MarginInputs` for a fitted classifier on its training sample ``(X, y)``.

    Parameters
    ----------
    estimator : fitted binary classifier of the package
    X, y : the training sample (``y`` in the estimator's original labels)
    augment : bool, default True
        Fold a non-zero ``intercept_`` into ``w`` and ``phi`` (module docstring).
    """
    t = functional_margins(estimator, X, y)
    wn = weight_norm(estimator, augment=augment)
    if wn == 0.0:
        raise ValueError("the weight vector is zero: the margin is undefined")
    try:
        nsv = n_support(estimator)
    except ValueError:
        nsv = None
    if _kind(estimator) == "expansion" and not isinstance(X, list):
        X = np.asarray(X, dtype=float)
    return MarginInputs(
        m=int(t.size), gamma=float(np.min(t) / wn),
        varsigma=feature_radius(estimator, X, augment=augment), w_norm=wn, margins=t,
        training_error=float(np.mean(t <= 0)), n_support=nsv,
        augmented=_intercept(estimator) != 0.0)
