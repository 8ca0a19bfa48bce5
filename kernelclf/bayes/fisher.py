"""Fisher discriminants: primal (LKC Algorithm 8) and kernel (Algorithm 9).

Book chapter 09 (``book/09_fisher_discriminants.md``); LKC §3.5 (eq. 3.34–3.42),
App. B.10 and D.5; Mika et al. (1999) for the kernel version.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Real
from ..kernels.vector import Linear
from ..progress import fit_progress

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


def _spd_solve(S, rhs, what, param, overwrite=False):
    """Solve ``S x = rhs`` through the Cholesky factor of ``S`` (its lower triangle is
    read; ``overwrite=True`` factorises in place, without a copy of ``S``)."""
    if not np.all(np.isfinite(S)):
        raise ValueError(f"the {what} overflows (it contains infinity or NaN); rescale the "
                         "inputs or the kernel")
    try:
        return cho_solve(cho_factor(S, lower=True, overwrite_a=overwrite), rhs)
    except LinAlgError:
        raise ValueError(f"the {what} is singular (e.g. constant or collinear features, or "
                         f"one point per class); increase the regularisation parameter {param}"
                         ) from None


class FisherDiscriminant(BinaryKernelClassifier):
    """Fisher's linear discriminant with the class-prior offset (LKC Algorithm 8, p. 329).

    Maximum-likelihood fit of two Gaussian classes with a shared covariance
    (LKC eq. 3.36–3.39, App. B.10): class means ``mu_y`` and the pooled
    covariance ``Sigma = (X'X - sum_y m_y mu_y mu_y') / m``. Then
    ``w = Sigma^-1 (mu_+ - mu_-)`` (a Cholesky solve, not an inverse) and
    ``b = 1/2 (mu_-' Sigma^-1 mu_- - mu_+' Sigma^-1 mu_+) + ln(m_+ / m_-)``.
    The direction maximises Fisher's criterion (eq. 3.38); it is also the
    least-squares direction of Remark 3.16.

    The estimates are computed on the inputs divided by a power of two near their
    largest magnitude and mapped back (exact in floating point), so that inputs of
    any finite scale (``1e-300`` to ``1e300``) give the same classifier.
    This is the primal, linear-kernel case of :class:`KernelFisherDiscriminant`
    (``kernel_`` is ``Linear()``).

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

    _parameter_constraints = {"reg": [Real(0, None, closed="left")]}
    _default_kernel = Linear

    def __init__(self, reg=0.0):
        self.reg = reg

    def fit(self, X, y):
        """Estimate the class means, the pooled covariance, ``w`` and ``b``."""
        X, y_pm = self._fit_binary(X, y)
        top = float(np.max(np.abs(X)))
        # an exact power-of-two rescaling keeps X'X finite and non-zero for any finite scale
        scale = 2.0 ** np.round(np.log2(top)) if top > 0 else 1.0
        Xs = X / scale
        m = len(y_pm)
        pos, neg = y_pm > 0, y_pm < 0
        mp, mn = int(pos.sum()), int(neg.sum())
        mu_p, mu_n = Xs[pos].mean(axis=0), Xs[neg].mean(axis=0)
        S = (Xs.T @ Xs - mp * np.outer(mu_p, mu_p) - mn * np.outer(mu_n, mu_n)) / m
        S = 0.5 * (S + S.T)
        if self.reg:
            with np.errstate(over="ignore"):
                S[np.diag_indices_from(S)] += self.reg / scale / scale
        sol = _spd_solve(S, np.column_stack([mu_p, mu_n]), "pooled covariance", "reg")
        self.coef_ = (sol[:, 0] - sol[:, 1]) / scale
        self.intercept_ = float(0.5 * (mu_n @ sol[:, 1] - mu_p @ sol[:, 0]) + np.log(mp / mn))
        self.means_ = np.vstack([mu_n, mu_p]) * scale
        with np.errstate(over="ignore"):
            self.covariance_ = S * scale * scale
        return self

    def decision_function(self, X):
        """``<w, x> + b``; positive means ``classes_[1]``."""
        X = self._validate_test(X)
        return X @ self.coef_ + self.intercept_


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

    Cost in the number ``m`` of training examples: ``G G`` and the Cholesky factor of
    ``S`` take O(m^3) time (about ``2 m^3 + m^3/3`` flops), and the fit holds at most 3
    ``m x m`` float arrays (``G``, ``S`` factorised in place, one rank-two update):
    1.5 GB at ``m = 8000``. Predictions cost O(m) per test point. A fit whose arrays
    would not fit in memory is refused before it starts, naming the size
    (:func:`kernelclf.kernels.gram_guard.check_memory`); fits on at least
    :data:`kernelclf.progress.LONG_FIT_M` examples show their three stages
    (:func:`kernelclf.progress.fit_progress`).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        ``None`` means linear. Cloned into ``kernel_`` at ``fit``; string kernels
        take lists of strings.
    lam : float > 0
        Regularisation ``lambda``.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        Signed expansion coefficients.
    intercept_ : float
    kernel_, X_fit_, classes_
    """

    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT,
                              "lam": [Real(0, None, closed="neither")]}

    def __init__(self, kernel=None, lam=1e-3):
        self.kernel = kernel
        self.lam = lam

    def fit(self, X, y):
        """Solve ``S alpha = k_+ - k_-`` for the training sample."""
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_ = X
        m = len(y_pm)
        bar = fit_progress(m, total=3, unit="stage", desc="kernel Fisher discriminant")
        try:
            bar.set_postfix_str("Gram matrix")
            G = self._training_gram(X, copies=3).full()
            bar.update()
            bar.set_postfix_str("S = (G G - sum_y m_y k_y k_y') / m + lam I")
            pos, neg = y_pm > 0, y_pm < 0
            mp, mn = int(pos.sum()), int(neg.sum())
            kp, kn = G[:, pos].mean(axis=1), G[:, neg].mean(axis=1)
            S = G @ G
            del G
            K2 = np.column_stack([np.sqrt(mp) * kp, np.sqrt(mn) * kn])
            S -= K2 @ K2.T                       # the rank-two class-mean term, in place
            S /= m
            S[np.diag_indices_from(S)] += self.lam
            bar.update()
            bar.set_postfix_str("Cholesky solve")
            sol = _spd_solve(S, np.column_stack([kp, kn]), "matrix S", "lam", overwrite=True)
            bar.update()
        finally:
            bar.close()
        self.alpha_ = sol[:, 0] - sol[:, 1]
        self.intercept_ = float(0.5 * (kn @ sol[:, 1] - kp @ sol[:, 0]) + np.log(mp / mn))
        return self
