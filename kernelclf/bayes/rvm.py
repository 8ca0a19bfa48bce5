"""Relevance vector machines: sparse Bayesian regression and classification.

Book chapter 08 (``book/08_relevance_vector_machines.md``); LKC §3.3
(eq. 3.24–3.28, Remark 3.14, Fig. 3.6), App. B.8 and D.4 (Algorithms 6 and 7); Tipping (2001);
Tipping & Faul (2003) for the fast sequential solver.

The model is ``f(x) = sum_i w_i k(x_i, x)`` (plus an optional bias column) with
the prior ``w_i ~ N(0, theta_i)``. Two solvers are offered:

* ``solver='book'``: LKC's re-estimation. Every iteration prunes the
  columns with ``theta_j < prune_tol``, computes the posterior through the
  Cholesky factor ``Sigma^-1 = R'R`` (``ln|Sigma^-1| = 2 sum ln R_ii``) and
  updates ``theta_i = mu_i^2 / zeta_i`` (``update='mackay'``, eq. B.23, as
  printed in Alg. 6/7) or ``theta_i = Sigma_ii + mu_i^2`` (``update='em'``,
  eq. B.22, which never decreases the evidence). Classification (Alg. 7)
  finds the posterior mode by Newton's method with step halving and the
  corrected Hessian ``H = -(Phi' P Phi + Theta^-1)`` (erratum E5: the printed
  algorithm omits ``Theta^-1``).
* ``solver='fast'`` (default): the sequential marginal-likelihood
  maximisation of Tipping & Faul (2003), which starts from one basis
  function and adds, re-estimates or deletes one at a time, choosing the
  largest increase of the (Laplace) log evidence. Its cost per step is
  ``O(m n_active)`` instead of ``O(m^3)``. One addition to the published
  method: when the best move is a re-estimation, re-estimating *all* active
  precisions at once is tried as well and kept if it gains more evidence;
  this stops the zig-zag between strongly correlated basis functions.

Pruned weights are exactly zero (LKC footnote 7); only the relevance vectors
are kept in ``X_fit_``.

Cost in the number ``m`` of training examples: the design matrix is the whole Gram
matrix, and both solvers form ``Phi' Phi`` (or ``Phi' B Phi``), O(m^3) time; the book
solver then spends O(m^3) per iteration until the pruning has removed most columns,
the fast solver O(m n_active) plus O(n_active^3). Memory (peaks measured): 3 ``m x m``
float arrays for the fast solver (1.5 GB at ``m = 8000``), 9 for the book solver while
most columns are active (4.6 GB). A fit whose arrays would not fit in memory is refused before it starts,
naming the size (:func:`kernelclf.kernels.gram_guard.check_memory`); fits on at least
:data:`kernelclf.progress.LONG_FIT_M` examples show their iterations
(:func:`kernelclf.progress.fit_progress`).

The default kernel is ``RBF(sigma='scale')``: scikit-learn's ``gamma='scale'`` width,
fixed from the training inputs at ``fit``.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import expit, gammaln, log_expit
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, KernelMixin, Real
from ..kernels.rows import n_rows, take_rows
from ..kernels.vector import RBF
from ..progress import fit_progress
from .gp_regression import _numeric_targets

__all__ = ["RelevanceVectorRegressor", "RelevanceVectorClassifier", "marginal_weight_prior"]

_LOG2PI = np.log(2.0 * np.pi)
_GAIN_TOL = 1e-5  # nats: smaller gains are not worth another step
# classification: the gains are Laplace estimates whose error exceeds 1e-5, so a smaller
# threshold only makes the solver shuffle basis functions without improving the fit
_GAIN_TOL_LAPLACE = 1e-3


def marginal_weight_prior(w, a, b, log=True):
    """The prior of one weight with its variance integrated out (LKC Remark 3.14, Fig. 3.6).

    With ``w | theta ~ N(0, theta)`` and the precision ``1/theta ~ Gamma(a, b)`` (shape
    ``a``, scale ``b``, LKC's parameterisation), the marginal density of ``w`` is

    ``f(w) = Gamma(a + 1/2) / (sqrt(2 pi) b^a Gamma(a)) * (1/b + w^2/2)^-(a + 1/2)``,

    a Student t density with ``2a`` degrees of freedom and scale ``1/sqrt(a b)``. As
    ``a -> 0``, ``b -> inf`` it piles its mass on ``w = 0`` with heavy tails: the sparsity
    prior the relevance vector machine implicitly uses. Returns the log density unless
    ``log=False``.
    """
    a, b = float(a), float(b)
    if not (a > 0 and b > 0 and np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"a and b must be positive and finite, got a={a!r}, b={b!r}")
    w = np.asarray(w, dtype=float)
    out = (gammaln(a + 0.5) - gammaln(a) - 0.5 * _LOG2PI - a * np.log(b)
           - (a + 0.5) * np.log(1.0 / b + 0.5 * w ** 2))
    return out if log else np.exp(out)


def _posterior(A_inv_diag, PtBP):
    """Cholesky factor R (upper) of Sigma^-1 = Phi'B Phi + diag(1/theta); returns (R, Sigma)."""
    Sinv = PtBP.copy()
    Sinv[np.diag_indices_from(Sinv)] += A_inv_diag
    R = cholesky(Sinv, lower=False, check_finite=False)
    Rinv = solve_triangular(R, np.eye(len(R)), lower=False, check_finite=False)
    return R, Rinv @ Rinv.T


_COMMON_CONSTRAINTS = {
    "kernel": KERNEL_CONSTRAINT,
    "solver": [StrOptions({"fast", "book"})],
    "update": [StrOptions({"mackay", "em"})],
    "bias": ["boolean"],
    "prune_tol": [Real(0, None, closed="neither")],
    "tol": [Real(0, None, closed="left")],
    "max_iter": [Int(1, None, closed="left")],
}


def _keep_last(theta, act, prune_tol):
    """Book solver: the update would prune every basis function; keep the largest one.

    This happens when the data carry no signal the basis can explain (e.g. all inputs
    equal and balanced labels): the evidence is maximised by ``f = 0``. As the fast
    solver never deletes its last basis function, the book solver keeps the one with
    the largest ``theta`` at the pruning threshold, which represents ``f ~ 0``.
    """
    j = act[int(np.argmax(theta[act]))]
    theta[j] = 2.0 * prune_tol


def _book_solver_done(theta, act, old, trace, prune_tol, tol):
    """Stopping rule of the book solver, after the update of ``theta[act]`` (from
    ``old``): every basis function pruned (then the largest is kept, :func:`_keep_last`),
    no active ``theta`` moved by more than ``tol`` in log scale, or the evidence in
    ``trace`` no longer moves."""
    kept = theta[act] > prune_tol
    if not kept.any():
        _keep_last(theta, act, prune_tol)
        return True  # the evidence prefers no basis function at all
    if kept.all() and np.max(np.abs(np.log(theta[act] / old))) < tol:
        return True
    return len(trace) > 1 and abs(trace[-1] - trace[-2]) < _GAIN_TOL * 1e-2


def _design(gram, bias):
    """The design matrix ``Phi = G`` (plus a column of ones for the bias)."""
    Phi = gram.full()
    if bias:
        Phi = np.column_stack([Phi, np.ones(len(Phi))])
    return Phi


def _initial_basis(Phi, target):
    """Index and prior precision of the single starting basis function (Tipping & Faul §4)."""
    norms2 = np.einsum("ij,ij->j", Phi, Phi)
    proj = Phi.T @ target
    i = int(np.argmax(proj ** 2 / np.maximum(norms2, 1e-300)))
    w_ls = proj[i] / norms2[i]
    return i, 1.0 / max(w_ls ** 2, 1e-12)


def _fast_actions(S, Q, alpha, active, gain_tol=_GAIN_TOL):
    """Tipping & Faul (2003) eq. 27-30: best single change of one precision alpha_i.

    Returns (gain, index, new_alpha) where new_alpha = inf means delete.
    """
    s, q = S.copy(), Q.copy()
    a = alpha[active]
    denom = a - S[active]
    s[active] = a * S[active] / denom
    q[active] = a * Q[active] / denom
    theta = q ** 2 - s
    gain = np.full(len(S), -np.inf)
    new_alpha = np.full(len(S), np.inf)
    pos = theta > 0
    add = pos & ~active
    new_alpha[pos] = s[pos] ** 2 / theta[pos]
    with np.errstate(divide="ignore", invalid="ignore"):
        gain[add] = 0.5 * ((Q[add] ** 2 - S[add]) / S[add] + np.log(S[add] / Q[add] ** 2))
        re = pos & active
        d = 1.0 / new_alpha[re] - 1.0 / alpha[re]
        gain[re] = np.where(d == 0, 0.0,
                            0.5 * (Q[re] ** 2 / (S[re] + 1.0 / d) - np.log1p(S[re] * d)))
        dele = active & ~pos
        if active.sum() > 1:
            gain[dele] = 0.5 * (Q[dele] ** 2 / (S[dele] - alpha[dele])
                                - np.log1p(-S[dele] / alpha[dele]))
    gain[~np.isfinite(gain)] = -np.inf
    i = int(np.argmax(gain))
    # converged: no addition or deletion pays, and re-estimates barely move ln(alpha)
    structural = (add | (active & ~pos)) & (gain > gain_tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        moves = np.abs(np.log(new_alpha[pos & active] / alpha[pos & active]))
    change = float(moves.max()) if moves.size else 0.0
    return gain[i], i, new_alpha[i], bool(structural.any()), change


def _rvr_evidence(R, Phi_a, t, mu, theta_a, noise):
    """LKC App. B.8.4: log N(t; 0, sigma^2 I + Phi Theta Phi') via the Cholesky factor R."""
    m = len(t)
    r = t - Phi_a @ mu
    return float(-0.5 * (m * _LOG2PI + m * np.log(noise) + 2 * np.log(np.diag(R)).sum()
                         + np.log(theta_a).sum() + r @ r / noise + mu @ (mu / theta_a)))


#: peak number of m x m float arrays of a fit: (classifier?, solver) -> copies
_COPIES = {(False, "fast"): 3, (False, "book"): 9, (True, "fast"): 4, (True, "book"): 9}


def _iteration_bar(m, kind, solver, max_iter):
    return fit_progress(m, total=max_iter, unit="step", desc=f"RVM {kind} ({solver} solver)")


def _tick(bar, n_active, evidence):
    if bar is not None:
        bar.update()
        bar.set_postfix_str(f"{n_active} active, log evidence {evidence:.6g}")


class _RVMBase:
    _default_kernel = functools.partial(RBF, sigma="scale")

    def _finish(self, X, idx, w, Sigma, theta, bias):
        """Keep only the relevance vectors; split off the bias weight."""
        n_basis = len(X)
        is_bias = idx == n_basis
        self.intercept_ = float(w[is_bias][0]) if bias and is_bias.any() else 0.0
        keep = ~is_bias
        self.relevance_indices_ = idx[keep]
        self.X_fit_ = take_rows(X, idx[keep])
        self.alpha_ = w[keep]
        self.theta_ = theta[keep]
        self.sigma_ = Sigma
        self._active_ = idx
        self.n_relevance_ = int(keep.sum())
        self.sparsity_ = 1.0 - self.n_relevance_ / n_basis
        full = np.zeros(n_basis + int(bias))
        full[idx] = w
        self.weights_ = full

    def _phi(self, X):
        """Active basis functions at ``X`` in the order of ``sigma_`` (bias last)."""
        if self.n_relevance_ == 0:       # every weight pruned: bias-only (or zero) model
            Phi = np.zeros((n_rows(X), 0))
        else:
            Phi = self._kernel_rows(X, self.X_fit_)
        if len(self._active_) > self.n_relevance_:
            Phi = np.column_stack([Phi, np.ones(len(Phi))])
        return Phi


class RelevanceVectorRegressor(_RVMBase, KernelMixin, RegressorMixin, BaseEstimator):
    """Relevance vector regression (LKC Algorithm 6, p. 327; §3.3, eq. 3.24–3.25).

    Posterior ``Sigma = (sigma_t^-2 Phi'Phi + Theta^-1)^-1``,
    ``mu = sigma_t^-2 Sigma Phi' t``; the evidence ``N(t; 0, sigma_t^2 I + Phi Theta Phi')``
    (eq. 3.25, App. B.8.4) is maximised over ``theta`` and ``sigma_t^2``. See the
    module docstring for the two solvers. With the book solver the noise is
    re-estimated by ``||t - Phi mu||^2 / (m - sum zeta)`` (Alg. 6) or, for
    ``update='em'``, by its EM form ``(||t - Phi mu||^2 + sigma_t^2 sum zeta) / m``.

    Cost: O(m^3) time and 3 (fast) or 9 (book) ``m x m`` float arrays, about 1.5 / 4.6 GB
    at ``m = 8000`` (module docstring); too large a fit is refused before it starts, and
    long fits show their iterations.

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
    (erratum E5), then ``Sigma = -H^-1`` feeds the update of ``theta``. See the
    module docstring for the ``'book'`` and ``'fast'`` solvers.

    ``predict_proba`` returns the plug-in ``sigmoid(f(x))`` at the mode, as
    Tipping (2001) does; ``decision_function`` is ``f(x) = sum_i alpha_i k(x_i, x) + b``.

    When the evidence is largest for (nearly) zero weights the model has learned
    almost nothing, and ``fit`` says so with a ``UserWarning``: if the training
    accuracy is no better than always predicting the majority class, or every training
    probability lies within 0.01 of 1/2. This happens on tiny samples (two examples:
    the sparsity prior outweighs them) and on inputs that do not tell the classes apart
    (e.g. all equal).

    Cost: O(m^3) time and 3 to 4 (fast) or 9 (book) ``m x m`` float arrays, about 2 /
    4.6 GB at ``m = 8000`` (module docstring); too large a fit is refused before it
    starts, and long fits show their iterations.

    Parameters
    ----------
    kernel, solver, update, bias, prune_tol, tol, max_iter
        As in :class:`RelevanceVectorRegressor`.

    Attributes
    ----------
    alpha_, theta_, sigma_, relevance_indices_, weights_, intercept_, log_evidence_,
    evidence_trace_, n_relevance_, sparsity_, n_iter_, classes_
        As in :class:`RelevanceVectorRegressor`; ``sigma_`` is the Laplace covariance
        ``-H^-1`` at the mode and ``log_evidence_`` the Laplace approximation
        ``J(w_hat) + 1/2 sum ln theta_i^-1 - 1/2 ln|Sigma^-1|``.
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
