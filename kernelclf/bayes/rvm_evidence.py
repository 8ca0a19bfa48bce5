"""Book chapter 08 (``book/08_relevance_vector_machines.md``): the sparse Bayesian machinery.

LKC §3.3 (eq. 3.24–3.28, Remark 3.14, Fig. 3.6), App. B.8 and D.4 (Algorithms 6 and 7);
Tipping (2001); Tipping & Faul (2003) for the fast sequential solver. What both relevance
vector machines share: the prior of the weights and its marginal, the Cholesky posterior,
the single-precision moves of the fast solver, the stopping rule of the book solver and the
common estimator base. The estimators are in :mod:`kernelclf.bayes.rvm_regression`
(regression, LKC Alg. 6) and :mod:`kernelclf.bayes.rvm` (classification, LKC Alg. 7).

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
  largest increase of the (Laplace) log evidence. The posterior is recomputed
  over the active columns in every step (not updated), so a step costs
  ``O(m n_active^2)`` in regression and ``O(m^2 n_active)`` in classification
  (the statistics S, Q of all m candidates) instead of the book solver's
  ``O(m^3)`` while most columns are active. One addition to the published
  method: when the best move is a re-estimation, re-estimating *all* active
  precisions at once is tried as well and kept if it gains more evidence;
  it is meant to cut short a zig-zag between strongly correlated basis functions
  (how much it helps is not measured: on some samples it takes more steps).

Pruned weights are exactly zero (LKC footnote 7); only the relevance vectors
are kept in ``X_fit_``.

Cost in the number ``m`` of training examples: the design matrix is the whole Gram
matrix, and both solvers form ``Phi' Phi`` (or ``Phi' B Phi``), O(m^3) time; the book
solver then spends O(m^3) per iteration until the pruning has removed most columns,
the fast solver O(m n_active^2) (regression) or O(m^2 n_active) (classification) per
step. Memory (peaks measured): 3 ``m x m``
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

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from scipy.special import gammaln
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, Int, Real
from ..kernels.rows import n_rows, take_rows
from ..kernels.vector import RBF
from ..progress import fit_progress

__all__ = ["marginal_weight_prior"]

_LOG2PI = np.log(2.0 * np.pi)
_GAIN_TOL = 1e-5  # nats: smaller gains are not worth another step


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
