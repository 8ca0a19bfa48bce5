"""Fisher discriminants: primal (LKC Algorithm 8) and kernel (Algorithm 9).

Book chapter 09 (``book/09_fisher_discriminants.md``); LKC §3.5 (eq. 3.34–3.42),
App. B.10 and D.5; Mika et al. (1999) for the kernel version.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import BinaryKernelClassifier, validate_binary
from .kernels import as_kernel

__all__ = ["FisherDiscriminant", "KernelFisherDiscriminant", "fisher_criterion"]


def fisher_criterion(w, X, y):
    """Fisher's criterion (LKC eq. 3.38) under the shared-covariance model.

    ``J(w) = (mu_+(w) - mu_-(w))^2 / (sigma_+^2(w) + sigma_-^2(w))`` for the
    projections ``<x, w>``, with both projected variances estimated by
    ``w' Sigma w`` from the pooled ML covariance ``Sigma`` of eq. 3.39 (the
    model behind eq. 3.37), so that ``J`` is the Rayleigh quotient maximised by
    ``Sigma^-1 (mu_+ - mu_-)`` (labels in {-1, +1}).
    """
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    y = np.asarray(y)
    pos, neg = y > 0, y <= 0
    mu_p, mu_n = X[pos].mean(axis=0), X[neg].mean(axis=0)
    R = np.where(pos[:, None], X - mu_p, X - mu_n)
    s2 = float(np.mean((R @ w) ** 2))
    return float((w @ (mu_p - mu_n)) ** 2 / (2.0 * s2))


def _spd_solve(S, rhs, what):
    try:
        return cho_solve(cho_factor(S, lower=True), rhs)
    except LinAlgError:
        raise ValueError(f"the {what} is singular; increase the regularisation "
                         "parameter") from None


class FisherDiscriminant(ClassifierMixin, BaseEstimator):
    """Fisher's linear discriminant with the class-prior offset (LKC Algorithm 8, p. 329).

    Maximum-likelihood fit of two Gaussian classes with a shared covariance
    (LKC eq. 3.36–3.39, App. B.10): class means ``mu_y`` and the pooled
    covariance ``Sigma = (X'X - sum_y m_y mu_y mu_y') / m``. Then
    ``w = Sigma^-1 (mu_+ - mu_-)`` (a Cholesky solve, not an inverse) and
    ``b = 1/2 (mu_-' Sigma^-1 mu_- - mu_+' Sigma^-1 mu_+) + ln(m_+ / m_-)``.
    The direction maximises Fisher's criterion (eq. 3.38); it is also the
    least-squares direction of Remark 3.16.

    Parameters
    ----------
    reg : float >= 0
        Added to the diagonal of ``Sigma`` (0 = the book's estimator).

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    intercept_ : float
    means_ : ndarray (2, n_features)
        Class means of ``classes_[0]`` (negative) and ``classes_[1]``.
    covariance_ : ndarray (n_features, n_features)
    classes_ : ndarray (2,)
    """

    def __init__(self, reg=0.0):
        self.reg = reg

    def fit(self, X, y):
        """Estimate the class means, the pooled covariance, ``w`` and ``b``."""
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=True)
        X, y_pm, classes = validate_binary(X, y)
        if not isinstance(self.reg, numbers.Real) or not self.reg >= 0:
            raise ValueError(f"reg must be >= 0, got {self.reg!r}")
        m = len(y_pm)
        pos, neg = y_pm > 0, y_pm < 0
        mp, mn = int(pos.sum()), int(neg.sum())
        mu_p, mu_n = X[pos].mean(axis=0), X[neg].mean(axis=0)
        S = (X.T @ X - mp * np.outer(mu_p, mu_p) - mn * np.outer(mu_n, mu_n)) / m
        S = 0.5 * (S + S.T) + self.reg * np.eye(X.shape[1])
        sol = _spd_solve(S, np.column_stack([mu_p, mu_n]), "pooled covariance")
        self.coef_ = sol[:, 0] - sol[:, 1]
        self.intercept_ = float(0.5 * (mu_n @ sol[:, 1] - mu_p @ sol[:, 0]) + np.log(mp / mn))
        self.means_ = np.vstack([mu_n, mu_p])
        self.covariance_ = S
        self.classes_ = classes
        return self

    def decision_function(self, X):
        """``<w, x> + b``; positive means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """Class labels by the sign of :meth:`decision_function`."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class KernelFisherDiscriminant(BinaryKernelClassifier):
    """Regularised kernel Fisher discriminant (LKC Algorithm 9, p. 329; eq. 3.40).

    With the Gram matrix ``G``, ``k_y = G 1_y / m_y`` and
    ``S = (G G - sum_y m_y k_y k_y') / m + lambda I`` (symmetric positive
    definite for ``lambda > 0``; the unregularised matrix has rank <= m - 2),
    the expansion is ``alpha = S^-1 (k_+ - k_-)`` and the offset
    ``b = 1/2 (k_-' S^-1 k_- - k_+' S^-1 k_+) + ln(m_+ / m_-)``; the classifier
    is ``sign(sum_i alpha_i k(x_i, x) + b)``. ``S`` is factorised by Cholesky,
    never inverted. With a linear kernel and small ``lambda`` it reproduces
    :class:`FisherDiscriminant` (m > n).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        ``None`` means linear.
    lam : float > 0
        Regularisation ``lambda``.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        Signed expansion coefficients.
    intercept_ : float
    kernel_, X_fit_, classes_
    """

    def __init__(self, kernel=None, lam=1e-3):
        self.kernel = kernel
        self.lam = lam

    def fit(self, X, y):
        """Solve ``S alpha = k_+ - k_-`` for the training sample."""
        kernel = as_kernel(self.kernel)
        X, y_pm, classes = validate_binary(X, y, kernel)
        if not isinstance(self.lam, numbers.Real) or not self.lam > 0:
            raise ValueError(f"lam must be > 0, got {self.lam!r}")
        self._set_training_data(X, classes)
        self.kernel_, self.X_fit_ = kernel, X
        G = np.asarray(kernel(X), dtype=float)
        m = len(y_pm)
        pos, neg = y_pm > 0, y_pm < 0
        mp, mn = int(pos.sum()), int(neg.sum())
        kp, kn = G[:, pos].mean(axis=1), G[:, neg].mean(axis=1)
        S = (G @ G - mp * np.outer(kp, kp) - mn * np.outer(kn, kn)) / m
        S = 0.5 * (S + S.T)
        S[np.diag_indices_from(S)] += self.lam
        sol = _spd_solve(S, np.column_stack([kp, kn]), "matrix S")
        self.alpha_ = sol[:, 0] - sol[:, 1]
        self.intercept_ = float(0.5 * (kn @ sol[:, 1] - kp @ sol[:, 0]) + np.log(mp / mn))
        return self
