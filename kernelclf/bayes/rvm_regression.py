"""Book chapter 08 (``book/08_relevance_vector_machines.md``): relevance vector regression (LKC Alg. 6).

LKC §3.3 (eq. 3.24–3.25), App. B.8.4 (the evidence) and D.4 (Algorithm 6); Tipping (2001);
Tipping & Faul (2003) for the fast sequential solver, which here also re-estimates the noise
variance. The prior, the posterior and the steps both solvers share are in
:mod:`kernelclf.bayes.rvm_evidence`, with the solvers described; classification, the other
half of the chapter, is :mod:`kernelclf.bayes.rvm`.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from ..base import KernelMixin, Real
from .gp_regression import _numeric_targets
from .rvm_evidence import (
    _COMMON_CONSTRAINTS,
    _COPIES,
    _GAIN_TOL,
    _LOG2PI,
    _book_solver_done,
    _design,
    _fast_actions,
    _initial_basis,
    _iteration_bar,
    _posterior,
    _RVMBase,
    _tick,
)

__all__ = ["RelevanceVectorRegressor"]


def _rvr_evidence(R, Phi_a, t, mu, theta_a, noise):
    """LKC App. B.8.4: log N(t; 0, sigma^2 I + Phi Theta Phi') via the Cholesky factor R."""
    m = len(t)
    r = t - Phi_a @ mu
    return float(-0.5 * (m * _LOG2PI + m * np.log(noise) + 2 * np.log(np.diag(R)).sum()
                         + np.log(theta_a).sum() + r @ r / noise + mu @ (mu / theta_a)))


class RelevanceVectorRegressor(_RVMBase, KernelMixin, RegressorMixin, BaseEstimator):
    """Relevance vector regression (LKC Algorithm 6, p. 327; §3.3, eq. 3.24–3.25).

    Posterior ``Sigma = (sigma_t^-2 Phi'Phi + Theta^-1)^-1``,
    ``mu = sigma_t^-2 Sigma Phi' t``; the evidence ``N(t; 0, sigma_t^2 I + Phi Theta Phi')``
    (eq. 3.25, App. B.8.4) is maximised over ``theta`` and ``sigma_t^2``. See
    :mod:`kernelclf.bayes.rvm_evidence` for the two solvers. With the book solver the
    noise is re-estimated by ``||t - Phi mu||^2 / (m - sum zeta)`` (Alg. 6) or, for
    ``update='em'``, by its EM form ``(||t - Phi mu||^2 + sigma_t^2 sum zeta) / m``.

    Cost: O(m^3) time and 3 (fast) or 9 (book) ``m x m`` float arrays, about 1.5 / 4.6 GB
    at ``m = 8000`` (:mod:`~kernelclf.bayes.rvm_evidence`); too large a fit is refused
    before it starts, and long fits show their iterations.

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Basis functions ``k(x_i, .)``; ``None`` means ``RBF(sigma='scale')``
        (scikit-learn's ``gamma='scale'`` width, fixed from the training inputs). String
        kernels take lists of strings. The kernel is cloned into ``kernel_`` at ``fit``.
    solver : {'fast', 'book'}
    update : {'mackay', 'em'}
        Re-estimation rule of the book solver (B.23 or B.22).
    noise : float or None
        Initial noise variance (``None``: 10 % of the target variance).
    fit_noise : bool
        Re-estimate the noise variance.
    bias : bool
        Add a constant basis function (its weight is ``intercept_``).
    prune_tol : float
        Book solver: prune ``theta_j < prune_tol`` (LKC's TOL).
    tol : float >= 0
        Stop when the largest change of ``ln theta_i`` over the active basis
        functions is below ``tol`` (and, for the fast solver, no addition or
        deletion increases the log evidence), or when no step changes the log
        evidence by more than 1e-5 (fast) / 1e-7 (book) nats.
    max_iter : int

    Attributes
    ----------
    alpha_ : ndarray
        Weights of the relevance vectors ``X_fit_`` (posterior mean).
    theta_ : ndarray
        Their prior variances ``theta_i``.
    sigma_ : ndarray
        Posterior covariance of the active weights (bias last, if any).
    relevance_indices_ : ndarray
        Their indices in the training set.
    weights_ : ndarray (m (+1),)
        All weights, pruned ones exactly 0.
    noise_ : float
    log_evidence_ : float
    evidence_trace_ : ndarray
        Log evidence after every iteration.
    n_relevance_, sparsity_ : int, float
        Number of relevance vectors and the fraction of training points pruned.
    n_iter_ : int
    """

    _parameter_constraints = {**_COMMON_CONSTRAINTS,
                              "noise": [Real(0, None, closed="neither"), None],
                              "fit_noise": ["boolean"]}

    def __init__(self, kernel=None, solver="fast", update="mackay", noise=None, fit_noise=True,
                 bias=False, prune_tol=1e-9, tol=1e-3, max_iter=1000):
        self.kernel = kernel
        self.solver = solver
        self.update = update
        self.noise = noise
        self.fit_noise = fit_noise
        self.bias = bias
        self.prune_tol = prune_tol
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Fit to inputs ``X`` (or a list of strings) and real targets ``y``."""
        self._validate_params()
        self._fit_kernel()
        X, t = self._validate_Xy(X, _numeric_targets(y), y_numeric=True)
        noise = 0.1 * float(np.var(t)) if self.noise is None else float(self.noise)
        if not noise > 0:
            raise ValueError(
                "the default noise variance (10 % of the target variance) is 0 because the "
                f"targets are constant{' (n_samples=1)' if len(t) == 1 else ''}; pass "
                "noise=... explicitly")
        Phi = _design(self._training_gram(X, copies=_COPIES[False, self.solver]), self.bias)
        run = self._fit_fast if self.solver == "fast" else self._fit_book
        bar = _iteration_bar(len(t), "regression", self.solver, self.max_iter)
        try:
            idx, mu, Sigma, noise, trace, n_iter, converged, theta = run(Phi, t, noise, bar)
        finally:
            bar.close()
        if not converged:
            warnings.warn(f"RVM stopped after max_iter={self.max_iter} iterations before "
                          "convergence", ConvergenceWarning, stacklevel=2)
        self.noise_ = noise
        self.evidence_trace_ = np.array(trace)
        self.log_evidence_ = float(trace[-1])
        self.n_iter_ = n_iter
        self._finish(X, idx, mu, Sigma, theta, self.bias)
        return self

    def _fit_book(self, Phi, t, noise, bar=None):
        m, N = Phi.shape
        theta = np.ones(N)
        trace = []
        converged = False
        for it in range(1, self.max_iter + 1):
            act = np.flatnonzero(theta > self.prune_tol)
            theta[theta <= self.prune_tol] = 0.0
            P = Phi[:, act]
            R, Sigma = _posterior(1.0 / theta[act], P.T @ P / noise)
            mu = Sigma @ (P.T @ t) / noise
            trace.append(_rvr_evidence(R, P, t, mu, theta[act], noise))
            _tick(bar, len(act), trace[-1])
            zeta = 1.0 - np.diag(Sigma) / theta[act]
            old = theta[act].copy()
            res = t - P @ mu
            if self.update == "em":
                theta[act] = np.diag(Sigma) + mu ** 2
                if self.fit_noise:
                    noise = float((res @ res + noise * zeta.sum()) / m)
            else:
                theta[act] = mu ** 2 / np.maximum(zeta, 1e-300)
                if self.fit_noise:
                    noise = float(res @ res / max(m - zeta.sum(), 1e-12))
            if _book_solver_done(theta, act, old, trace, self.prune_tol, self.tol):
                converged = True
                break
        act = np.flatnonzero(theta > self.prune_tol)
        P = Phi[:, act]
        R, Sigma = _posterior(1.0 / theta[act], P.T @ P / noise)
        mu = Sigma @ (P.T @ t) / noise
        trace.append(_rvr_evidence(R, P, t, mu, theta[act], noise))
        return act, mu, Sigma, noise, trace, it, converged, theta[act]

    def _fit_fast(self, Phi, t, noise, bar=None):
        m, N = Phi.shape
        PtP = Phi.T @ Phi
        Ptt = Phi.T @ t
        diagPtP = np.diag(PtP).copy()
        alpha = np.full(N, np.inf)  # precisions 1/theta
        i0, a0 = _initial_basis(Phi, t)
        alpha[i0] = a0
        trace = []
        converged = False
        for it in range(1, self.max_iter + 1):
            act = np.flatnonzero(np.isfinite(alpha))
            beta = 1.0 / noise
            R, Sigma = _posterior(alpha[act], beta * PtP[np.ix_(act, act)])
            mu = beta * Sigma @ Ptt[act]
            trace.append(_rvr_evidence(R, Phi[:, act], t, mu, 1.0 / alpha[act], noise))
            _tick(bar, len(act), trace[-1])
            if self.fit_noise and it > 1:
                gamma = 1.0 - alpha[act] * np.diag(Sigma)
                res = t - Phi[:, act] @ mu
                new_noise = float(res @ res / max(m - gamma.sum(), 1e-12))
                noise_changed = abs(np.log(new_noise / noise)) > self.tol
                noise, beta = new_noise, 1.0 / new_noise
                R, Sigma = _posterior(alpha[act], beta * PtP[np.ix_(act, act)])
                mu = beta * Sigma @ Ptt[act]
            else:
                noise_changed = False
            B = PtP[:, act]
            BS = B @ Sigma
            S = beta * diagPtP - beta ** 2 * np.einsum("ij,ij->i", BS, B)
            Q = beta * Ptt - beta ** 2 * (BS @ Ptt[act])
            mask = np.isfinite(alpha)
            gain, i, a_new, structural, change = _fast_actions(S, Q, alpha, mask)
            if (gain < _GAIN_TOL or (not structural and change < self.tol)) \
                    and not noise_changed:
                converged = True
                break
            if gain >= _GAIN_TOL and mask[i] and np.isfinite(a_new):
                # a re-estimation: try re-estimating every active alpha at once, which
                # avoids zig-zagging between correlated basis functions; keep it only if
                # it gains more evidence than the single best step
                a_old = alpha[act]
                s_a = a_old * S[act] / (a_old - S[act])
                q_a = a_old * Q[act] / (a_old - S[act])
                th = q_a ** 2 - s_a
                a_all = np.where(th > 0, s_a ** 2 / np.where(th > 0, th, 1.0), a_old)
                Rb, Sb = _posterior(a_all, beta * PtP[np.ix_(act, act)])
                mub = beta * Sb @ Ptt[act]
                e_all = _rvr_evidence(Rb, Phi[:, act], t, mub, 1.0 / a_all, noise)
                Rc, Sc = _posterior(alpha[act], beta * PtP[np.ix_(act, act)])
                e_now = _rvr_evidence(Rc, Phi[:, act], t, beta * Sc @ Ptt[act], 1.0 / a_old, noise)
                if e_all - e_now > gain:
                    alpha[act] = a_all
                    continue
            if gain >= _GAIN_TOL:
                alpha[i] = a_new
        act = np.flatnonzero(np.isfinite(alpha))
        R, Sigma = _posterior(alpha[act], PtP[np.ix_(act, act)] / noise)
        mu = Sigma @ Ptt[act] / noise
        trace.append(_rvr_evidence(R, Phi[:, act], t, mu, 1.0 / alpha[act], noise))
        return act, mu, Sigma, noise, trace, it, converged, 1.0 / alpha[act]

    def predict(self, X, return_std=False):
        """Predictive mean (and standard deviation ``sqrt(sigma_t^2 + phi' Sigma phi)``)."""
        X = self._validate_test(X)
        Phi = self._phi(X)
        mean = Phi[:, :self.n_relevance_] @ self.alpha_ + self.intercept_
        if not return_std:
            return mean
        var = self.noise_ + np.einsum("ij,jk,ik->i", Phi, self.sigma_, Phi)
        return mean, np.sqrt(var)
