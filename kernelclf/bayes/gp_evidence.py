"""The Laplace evidence of Gaussian process classification and its gradient.

Book chapter 07 (``book/07_gaussian_processes.md``); LKC §3.2 (the evidence and its
maximisation over the kernel's parameters, p. 86; ``t' G^-1 t`` and the mode, eq. 3.20),
App. B.7 (the mode of the Laplace approximation and its covariance, B.7.1-B.7.3) and
Theorems A.96-A.97 (the derivatives of an inverse and of a log determinant).

The Laplace approximation replaces the posterior of the latent values by a normal
density at its mode ``t_hat`` (App. B.7), and with it the evidence ``P(y | X, theta)`` by

``ln Z = sum_i ln pi(y_i t_hat_i) - 1/2 alpha' t_hat - 1/2 ln |B|``,
``B = I + P^1/2 G P^1/2``, ``P = diag(pi (1 - pi))``, ``G alpha = t_hat``,

the value :class:`~kernelclf.bayes.gp.GaussianProcessClassifier` reports as
``log_marginal_likelihood_``. LKC maximises the evidence over the kernel's parameters for
regression, where it is exact (§3.2.1); for classification its derivative has two
parts: the explicit one at a fixed mode (as in regression, with Theorem A.97 for the log
determinant) and the change of the mode itself with the kernel. That second part is not
in LKC; it is Williams and Barber's (1998) and Rasmussen and Williams' (2006, Alg. 5.1),
the derivative scikit-learn's ``GaussianProcessClassifier`` uses. In the book's
notation (``R = P^1/2 B^-1 P^1/2``, ``dG = dG / d theta_j``):

* explicit: ``1/2 alpha' dG alpha - 1/2 tr(R dG)``;
* through the mode: ``s' (b - G R b)`` with ``b = dG (y01 - pi)``, the mode's change,
  and ``s_i = -1/2 [(G^-1 + P)^-1]_ii pi_i (1 - pi_i) (1 - 2 pi_i)`` (the third
  derivative of the log likelihood, ``-pi (1 - pi) (1 - 2 pi)``, with the sign of the
  derivative of ``-1/2 ln |B|``).

``tests/test_gp_evidence.py`` checks the gradient against finite differences of the
evidence (the mode found again at each point) and the optimum against scikit-learn's.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.optimize import minimize
from scipy.special import log_expit
from sklearn.utils import check_random_state

from ..kernels.hyper import gram_and_gradient, kernel_theta, kernel_with_theta

__all__ = ["laplace_evidence", "maximise_laplace_evidence"]


def laplace_evidence(G, y, mode, dG=None):
    """The Laplace log evidence at the covariance ``G`` (and its gradient).

    Parameters
    ----------
    G : ndarray (m, m)
        Latent covariance of the training points (kernel Gram matrix plus any noise).
    y : ndarray (m,)
        Labels in {-1, +1}.
    mode : dict
        The mode of the Laplace approximation for ``G`` and ``y``, as
        :func:`kernelclf.bayes.gp.laplace_mode` returns it.
    dG : ndarray (m, m, p), optional
        ``dG / d theta_j`` stacked on the last axis; with it the gradient is returned.

    Returns
    -------
    (log_evidence, gradient or None)
    """
    y = np.asarray(y, dtype=float)
    res = mode
    alpha, t, L, w = res["alpha"], res["t"], res["L"], res["sqrt_p"]
    lml = float(log_expit(y * t).sum() - 0.5 * alpha @ t - np.log(np.diag(L)).sum())
    if dG is None:
        return lml, None
    pi = res["pi"]
    y01 = (y + 1.0) / 2.0
    R = w[:, None] * cho_solve((L, True), np.diag(w), check_finite=False)
    C = solve_triangular(L, w[:, None] * G, lower=True, check_finite=False)
    s = -0.5 * (np.diag(G) - np.einsum("ij,ij->j", C, C)) * (pi * (1 - pi) * (1 - 2 * pi))
    grad = np.empty(dG.shape[2])
    for j in range(dG.shape[2]):
        D = dG[:, :, j]
        explicit = 0.5 * alpha @ D @ alpha - 0.5 * np.einsum("ij,ji->", R, D)
        b = D @ (y01 - pi)
        grad[j] = explicit + s @ (b - G @ (R @ b))
    return lml, grad


def maximise_laplace_evidence(kernel, X, y, find_mode, noise=0.0, bounds=(1e-5, 1e5),
                              n_restarts=0, random_state=None, optimizer="fmin_l_bfgs_b"):
    """The kernel whose Laplace evidence is largest, by L-BFGS-B on the log hyperparameters.

    ``find_mode(G, y)`` returns the mode of the Laplace approximation
    (:func:`kernelclf.bayes.gp.laplace_mode` with the classifier's ``tol`` and ``max_iter``).

    Starts from ``kernel`` (its parameters fixed from the data first, see
    :mod:`kernelclf.kernels.hyper`) and from ``n_restarts`` log-uniform draws in
    ``bounds``, as scikit-learn's ``n_restarts_optimizer``; keeps the best run. A callable
    ``optimizer(obj_func, initial_theta, bounds)`` returning ``(theta, value)`` replaces
    L-BFGS-B, with scikit-learn's contract (``obj_func(theta, eval_gradient=True)`` gives
    the negative log evidence and its gradient).

    Returns
    -------
    (kernel, log_evidence)
    """
    theta0 = kernel_theta(kernel)
    lo, hi = np.log(bounds[0]), np.log(bounds[1])

    def covariance(theta):
        K, dK = gram_and_gradient(kernel_with_theta(kernel, theta), X)
        if noise:
            K = K + noise * np.eye(len(K))
        return K, dK

    def objective(theta, eval_gradient=True):
        try:
            K, dK = covariance(theta)
            lml, grad = laplace_evidence(K, y, find_mode(K, y), dK if eval_gradient else None)
        except (np.linalg.LinAlgError, ValueError, FloatingPointError):
            return (1e25, np.zeros_like(theta)) if eval_gradient else 1e25
        if not np.isfinite(lml):
            return (1e25, np.zeros_like(theta)) if eval_gradient else 1e25
        return (-lml, -grad) if eval_gradient else -lml

    rng = check_random_state(random_state)
    starts = [np.clip(theta0, lo, hi)] + [rng.uniform(lo, hi, size=len(theta0))
                                          for _ in range(int(n_restarts))]
    best_theta, best_value = theta0, objective(theta0, eval_gradient=False)
    for start in starts:
        if callable(optimizer):
            theta, value = optimizer(objective, start, [(lo, hi)] * len(theta0))
        else:
            res = minimize(objective, start, jac=True, method="L-BFGS-B",
                           bounds=[(lo, hi)] * len(theta0))
            theta, value = res.x, res.fun
        if value < best_value:
            best_theta, best_value = np.asarray(theta, dtype=float), float(value)
    return kernel_with_theta(kernel, best_theta), -best_value
