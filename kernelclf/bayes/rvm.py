"""Book chapter 08 (``book/08_relevance_vector_machines.md``): relevance vector classification (LKC Alg. 7).

LKC §3.3, App. B.8.5 and D.4 (Algorithm 7, with erratum E5: the Hessian keeps the prior
term ``Theta^-1``); Tipping (2001); Tipping & Faul (2003) for the fast sequential solver,
here driven by the Laplace estimate of the log evidence. The prior, the posterior and the
steps both solvers share are in :mod:`kernelclf.bayes.rvm_evidence`, with the solvers
described; regression, the other half of the chapter, is :mod:`kernelclf.bayes.rvm_regression`.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import cho_solve, cholesky
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from ..base import BinaryKernelClassifier
from .rvm_evidence import (
    _COMMON_CONSTRAINTS,
    _COPIES,
    _book_solver_done,
    _design,
    _fast_actions,
    _initial_basis,
    _iteration_bar,
    _posterior,
    _RVMBase,
    _tick,
)

__all__ = ["RelevanceVectorClassifier"]

# classification: the gains are Laplace estimates whose error exceeds 1e-5, so a smaller
# threshold only makes the solver shuffle basis functions without improving the fit
_GAIN_TOL_LAPLACE = 1e-3


def _rvc_objective(w, t, y01, a):
    return float(y01 @ t - (-log_expit(-t)).sum() - 0.5 * w @ (a * w))


def _rvc_mode(P, y01, a, w, tol=1e-8, max_iter=50, max_halvings=8):
    """Posterior mode in w-space: LKC Alg. 7 inner loop with H = -(P' B P + A) (E5)."""
    t = P @ w
    J = _rvc_objective(w, t, y01, a)
    for _ in range(max_iter):
        pi = expit(t)
        g = P.T @ (y01 - pi) - a * w
        if np.linalg.norm(g) / len(w) < tol:
            break
        b = pi * (1.0 - pi)
        Hn = (P * b[:, None]).T @ P
        Hn[np.diag_indices_from(Hn)] += a
        step = cho_solve((cholesky(Hn, lower=True, check_finite=False), True), g,
                         check_finite=False)
        eta = 1.0
        for _ in range(max_halvings + 1):
            w_new = w + eta * step
            t_new = P @ w_new
            J_new = _rvc_objective(w_new, t_new, y01, a)
            if J_new > J:
                break
            eta *= 0.5
        else:
            break
        w, t, J = w_new, t_new, J_new
    pi = expit(t)
    b = pi * (1.0 - pi)
    return w, t, pi, b, J


def _warn_if_nothing_learned(f, y_pm, tol=0.01):
    """Warn when the fitted classifier is (close to) the constant 50 % model: training
    accuracy no better than the majority class, or all probabilities within ``tol`` of 1/2."""
    p = expit(f)
    m = len(y_pm)
    accuracy = float(np.mean((f > 0) == (y_pm > 0)))
    majority = float(max(np.mean(y_pm > 0), np.mean(y_pm < 0)))
    reasons = []
    if accuracy <= majority:
        reasons.append(f"its training accuracy, {accuracy:.0%}, is no better than always "
                       f"predicting the majority class ({majority:.0%})")
    spread = float(np.max(np.abs(p - 0.5)))
    if spread < tol:
        reasons.append(f"every training probability lies within {spread:.2g} of 1/2")
    if reasons:
        warnings.warn(
            f"RelevanceVectorClassifier learned almost nothing from these {m} examples: "
            f"{' and '.join(reasons)}. The evidence is largest for (nearly) zero weights when "
            "the sample is tiny (the sparsity prior outweighs it) or its inputs do not tell "
            "the classes apart; use more examples, a kernel suited to the inputs, or "
            "another classifier", UserWarning, stacklevel=3)


def _rvc_evidence(J, R, a):
    """Laplace log evidence: J(w_hat) + 1/2 sum ln a_i - 1/2 ln|Sigma^-1|."""
    return float(J + 0.5 * np.log(a).sum() - np.log(np.diag(R)).sum())


class RelevanceVectorClassifier(_RVMBase, BinaryKernelClassifier):
    """Relevance vector classification (LKC Algorithm 7, p. 328; App. B.8.5).

    Logistic likelihood (beta = 1, as in :mod:`kernelclf.bayes.gp`) and the prior
    ``w_i ~ N(0, theta_i)``; the weight posterior is replaced by its Laplace
    approximation in w-space (the latent covariance is rank-deficient once
    columns are pruned, LKC p. 95). The mode is found by Newton's method with
    step halving and the corrected Hessian ``H = -(Phi' P Phi + Theta^-1)``
    (erratum E5), then ``Sigma = -H^-1`` feeds the update of ``theta``. See
    :mod:`kernelclf.bayes.rvm_evidence` for the ``'book'`` and ``'fast'`` solvers.

    ``predict_proba`` returns the plug-in ``sigmoid(f(x))`` at the mode, as
    Tipping (2001) does; ``decision_function`` is ``f(x) = sum_i alpha_i k(x_i, x) + b``.
    These probabilities are over-confident: they ignore the uncertainty of the weights
    (``sigma_``), and the few weights the sparse model keeps are large. On noisy two moons
    (300 training points, 5 % of the labels flipped, ``RBF(0.5)``) about half of the test
    points get a probability above 0.95, of which fewer are classified correctly than the
    probabilities claim, while the Gaussian process classifier with the same kernel gives
    almost none above 0.95 (``tests/test_user_small.py``). Calibrate them
    (``CalibratedClassifierCV``) where probabilities matter.

    When the evidence is largest for (nearly) zero weights the model has learned
    almost nothing, and ``fit`` says so with a ``UserWarning``: if the training
    accuracy is no better than always predicting the majority class, or every training
    probability lies within 0.01 of 1/2. This happens on tiny samples (two examples:
    the sparsity prior outweighs them) and on inputs that do not tell the classes apart
    (e.g. all equal).

    Cost: O(m^3) time and 3 to 4 (fast) or 9 (book) ``m x m`` float arrays, about 2 /
    4.6 GB at ``m = 8000`` (:mod:`~kernelclf.bayes.rvm_evidence`); too large a fit is
    refused before it starts, and long fits show their iterations.

    Parameters
    ----------
    kernel, solver, update, bias, prune_tol, tol, max_iter
        As in :class:`~kernelclf.bayes.rvm_regression.RelevanceVectorRegressor`.

    Attributes
    ----------
    alpha_, theta_, sigma_, relevance_indices_, weights_, intercept_, log_evidence_,
    evidence_trace_, n_relevance_, sparsity_, n_iter_, classes_
        As in :class:`~kernelclf.bayes.rvm_regression.RelevanceVectorRegressor`;
        ``sigma_`` is the Laplace covariance ``-H^-1`` at the mode and ``log_evidence_``
        the Laplace approximation ``J(w_hat) + 1/2 sum ln theta_i^-1 - 1/2 ln|Sigma^-1|``.
    """

    _parameter_constraints = dict(_COMMON_CONSTRAINTS)

    def __init__(self, kernel=None, solver="fast", update="mackay", bias=False,
                 prune_tol=1e-9, tol=1e-3, max_iter=1000):
        self.kernel = kernel
        self.solver = solver
        self.update = update
        self.bias = bias
        self.prune_tol = prune_tol
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Fit to inputs ``X`` and two-class labels ``y``."""
        X, y_pm = self._fit_binary(X, y)
        Phi = _design(self._training_gram(X, copies=_COPIES[True, self.solver]), self.bias)
        y01 = (y_pm + 1.0) / 2.0
        run = self._fit_fast if self.solver == "fast" else self._fit_book
        bar = _iteration_bar(len(y01), "classification", self.solver, self.max_iter)
        try:
            idx, w, Sigma, trace, n_iter, converged, theta = run(Phi, y01, bar)
        finally:
            bar.close()
        if not converged:
            warnings.warn(f"RVM stopped after max_iter={self.max_iter} iterations before "
                          "convergence", ConvergenceWarning, stacklevel=2)
        _warn_if_nothing_learned(Phi[:, idx] @ w, y_pm)
        self.evidence_trace_ = np.array(trace)
        self.log_evidence_ = float(trace[-1])
        self.n_iter_ = n_iter
        self._finish(X, idx, w, Sigma, theta, self.bias)
        return self

    def _fit_book(self, Phi, y01, bar=None):
        N = Phi.shape[1]
        theta = np.ones(N)
        w = np.zeros(N)
        trace = []
        converged = False
        for it in range(1, self.max_iter + 1):
            theta[theta <= self.prune_tol] = 0.0
            w[theta == 0] = 0.0
            act = np.flatnonzero(theta > 0)
            P = Phi[:, act]
            a = 1.0 / theta[act]
            w_a, t, pi, b, J = _rvc_mode(P, y01, a, w[act])
            w[act] = w_a
            R, Sigma = _posterior(a, (P * b[:, None]).T @ P)
            trace.append(_rvc_evidence(J, R, a))
            _tick(bar, len(act), trace[-1])
            old = theta[act].copy()
            if self.update == "em":
                theta[act] = np.diag(Sigma) + w_a ** 2
            else:
                zeta = 1.0 - np.diag(Sigma) * a
                theta[act] = w_a ** 2 / np.maximum(zeta, 1e-300)
            if _book_solver_done(theta, act, old, trace, self.prune_tol, self.tol):
                converged = True
                break
        act = np.flatnonzero(theta > self.prune_tol)
        P = Phi[:, act]
        a = 1.0 / theta[act]
        w_a, t, pi, b, J = _rvc_mode(P, y01, a, w[act])
        R, Sigma = _posterior(a, (P * b[:, None]).T @ P)
        trace.append(_rvc_evidence(J, R, a))
        return act, w_a, Sigma, trace, it, converged, 1.0 / a

    def _fit_fast(self, Phi, y01, bar=None):
        m, N = Phi.shape
        PhiT = np.ascontiguousarray(Phi.T)
        Phi2T = PhiT ** 2
        alpha = np.full(N, np.inf)
        i0, a0 = _initial_basis(Phi, 2.0 * y01 - 1.0)
        alpha[i0] = a0
        w = np.zeros(N)
        trace = []
        converged = False
        for it in range(1, self.max_iter + 1):
            act = np.flatnonzero(np.isfinite(alpha))
            P = Phi[:, act]
            a = alpha[act]
            w_a, t, pi, b, J = _rvc_mode(P, y01, a, w[act])
            w[:] = 0.0
            w[act] = w_a
            BP = P * b[:, None]
            R, Sigma = _posterior(a, BP.T @ P)
            trace.append(_rvc_evidence(J, R, a))
            _tick(bar, len(act), trace[-1])
            CQ = PhiT @ np.column_stack([BP, y01 - pi])
            C, Q = CQ[:, :-1], CQ[:, -1]  # phi_i' B phi_j (j active) and phi_i'(y - pi)
            S = Phi2T @ b - np.einsum("ij,ij->i", C @ Sigma, C)
            gain, i, a_new, structural, change = _fast_actions(S, Q, alpha, np.isfinite(alpha),
                                                               _GAIN_TOL_LAPLACE)
            if gain < _GAIN_TOL_LAPLACE or (not structural and change < self.tol):
                converged = True
                break
            if np.isfinite(alpha[i]) and np.isfinite(a_new):
                # re-estimation: try all active alphas at once (see the regressor)
                s_a = a * S[act] / (a - S[act])
                q_a = a * Q[act] / (a - S[act])
                th = q_a ** 2 - s_a
                a_all = np.where(th > 0, s_a ** 2 / np.where(th > 0, th, 1.0), a)
                wb, _, _, bb, Jb = _rvc_mode(P, y01, a_all, w_a)
                Rb, _ = _posterior(a_all, (P * bb[:, None]).T @ P)
                if _rvc_evidence(Jb, Rb, a_all) - trace[-1] > gain:
                    alpha[act] = a_all
                    w[act] = wb
                    continue
            alpha[i] = a_new
            if not np.isfinite(a_new):
                w[i] = 0.0
        act = np.flatnonzero(np.isfinite(alpha))
        P = Phi[:, act]
        a = alpha[act]
        w_a, t, pi, b, J = _rvc_mode(P, y01, a, w[act])
        R, Sigma = _posterior(a, (P * b[:, None]).T @ P)
        trace.append(_rvc_evidence(J, R, a))
        return act, w_a, Sigma, trace, it, converged, 1.0 / a

    def predict_proba(self, X):
        """Columns ``P(classes_[0] | x)``, ``P(classes_[1] | x)`` (plug-in sigmoid)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])
