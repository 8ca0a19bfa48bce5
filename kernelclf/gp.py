"""Gaussian processes: regression (LKC Alg. 4) and Laplace classification (Alg. 5).

Book chapter 07 (``book/07_gaussian_processes.md``); LKC §3.2 (eq. 3.8–3.22),
App. B.7 and D.3.

Conventions
-----------
* Regression: the latent function has the prior covariance ``k`` and the
  targets carry Gaussian noise of variance ``noise`` (the book's sigma_t^2), so
  the training covariance is ``C = G + sigma_t^2 I`` (LKC eq. 3.15).
* Classification: the *beta = 1 logistic convention* is used throughout (this
  settles erratum E3/E4 of the seed inventory): ``P(Y = +1 | t) = 1 / (1 + exp(-t))``,
  whose log likelihood has second derivative ``-pi (1 - pi)`` (App. B.7,
  eq. B.16–B.17, taken with beta = 1; E4). A noise level beta is absorbed by
  the kernel: App. B.7's likelihood ``pi(t / beta)`` with prior covariance ``k``
  is the model ``pi(s)``, ``s = t / beta``, with covariance ``k / beta^2``;
  LKC Alg. 5 instead divides the Gram matrix by beta, i.e. it is the beta = 1
  model with kernel ``k / beta``.
* Every linear system is solved through a Cholesky factor; no Gram matrix is
  ever inverted (LKC footnote 6, p. 91).
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize
from scipy.special import erf, expit, log_expit
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, check_X_y

from .base import BinaryKernelClassifier, validate_binary, validate_test_inputs
from .kernels import RBF, Kernel, _check_vectors, as_kernel, squared_distances

__all__ = ["ARDRBF", "GaussianProcessRegressor", "GaussianProcessClassifier",
           "laplace_mode", "stable_sigmoid", "softplus"]


def stable_sigmoid(t):
    """Logistic function ``1 / (1 + exp(-t))`` without overflow (LKC App. D.3)."""
    return expit(t)


def softplus(t):
    """``ln(1 + exp(t))`` computed without overflow (``= -log_expit(-t)``)."""
    return -log_expit(-np.asarray(t, dtype=float))


class ARDRBF(Kernel):
    """Automatic relevance determination RBF kernel (LKC §3.2, Ex. 3.11–3.12, Fig. 3.3).

    ``k(x, x') = amplitude * exp(-1/2 * sum_d (x_d - x'_d)^2 / sigma_d^2)``: an RBF
    kernel in the Mahalanobis metric with the diagonal matrix ``diag(sigma)^-2``.
    A scalar ``sigma`` gives the isotropic kernel ``amplitude * RBF(sigma)``.

    The kernel exposes its hyperparameters on the log scale
    (:attr:`theta`) together with the analytic derivatives of the Gram
    matrix, which :class:`GaussianProcessRegressor` uses to maximise the
    evidence.

    Parameters
    ----------
    sigma : float or array of shape (n_features,)
        Length scales, all > 0.
    amplitude : float > 0
        Prior variance ``k(x, x)``.
    """

    def __init__(self, sigma=1.0, amplitude=1.0):
        self.sigma = sigma
        self.amplitude = amplitude

    def _params(self, n_features):
        sigma = np.atleast_1d(np.asarray(self.sigma, dtype=float))
        if sigma.ndim != 1 or not np.all(np.isfinite(sigma)) or np.any(sigma <= 0):
            raise ValueError(f"sigma must be positive and finite, got {self.sigma!r}")
        if len(sigma) not in (1, n_features):
            raise ValueError(f"sigma has {len(sigma)} entries but the inputs have "
                             f"{n_features} features")
        amp = self.amplitude
        if not isinstance(amp, numbers.Real) or not np.isfinite(amp) or amp <= 0:
            raise ValueError(f"amplitude must be a positive finite number, got {amp!r}")
        return sigma, float(amp)

    @property
    def theta(self):
        """Log hyperparameters ``[ln amplitude, ln sigma_1, ...]``."""
        return np.log(np.concatenate([[self.amplitude], np.atleast_1d(self.sigma)]))

    def with_theta(self, theta):
        """A copy of the kernel with log hyperparameters ``theta``."""
        theta = np.asarray(theta, dtype=float)
        sigma = np.exp(theta[1:])
        return ARDRBF(sigma=float(sigma[0]) if np.ndim(self.sigma) == 0 else sigma,
                      amplitude=float(np.exp(theta[0])))

    def _gram(self, X, Y):
        sigma, amp = self._params(X.shape[1])
        Xs = X / sigma
        return amp * np.exp(-0.5 * squared_distances(Xs, Xs if Y is X else Y / sigma))

    def diag(self, X):
        X, _ = self._validate(X, None)
        _, amp = self._params(X.shape[1])
        return np.full(len(X), amp)

    def gram_and_gradient(self, X):
        """Gram matrix ``K`` and ``dK / d theta_j`` stacked on the last axis."""
        X, _ = _check_vectors(X)
        sigma, amp = self._params(X.shape[1])
        K = self._gram(X, X)
        grads = [K]
        if len(sigma) == 1:
            Xs = X / sigma
            grads.append(K * squared_distances(Xs, Xs))
        else:
            for d in range(X.shape[1]):
                diff = (X[:, d][:, None] - X[:, d][None, :]) / sigma[d]
                grads.append(K * diff ** 2)
        return K, np.stack(grads, axis=-1)


def _kernel_theta(kernel):
    return np.asarray(kernel.theta, dtype=float) if hasattr(kernel, "gram_and_gradient") \
        else np.empty(0)


class GaussianProcessRegressor(RegressorMixin, BaseEstimator):
    """Gaussian process regression (LKC Algorithm 4, p. 325; §3.2, eq. 3.8–3.15).

    Fits ``alpha = (G + sigma_t^2 I)^-1 t`` by a Cholesky solve; the predictive
    distribution at ``x`` is normal with mean ``k_x' alpha`` and variance
    ``k(x, x) + sigma_t^2 - k_x' (G + sigma_t^2 I)^-1 k_x`` (eq. 3.13–3.14).
    The log evidence (LKC p. 86) is
    ``-1/2 (m ln 2 pi + ln|G + sigma_t^2 I| + t' (G + sigma_t^2 I)^-1 t)``.

    With ``optimize=True`` the evidence is maximised over ``ln sigma_t^2`` and,
    when the kernel is an :class:`ARDRBF`, over its log amplitude and log length
    scales (ARD, LKC Ex. 3.11–3.12), with L-BFGS-B and the analytic gradient
    ``1/2 tr((alpha alpha' - C^-1) dC/d theta)`` (LKC App. A.96–A.97).
    Other kernels are kept fixed and only the noise is adapted.

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function; ``None`` means ``ARDRBF(1.0)``.
    noise : float > 0
        Noise variance sigma_t^2 (initial value when ``optimize=True``).
    optimize : bool
        Maximise the evidence over the hyperparameters.
    n_restarts : int
        Extra optimiser runs from random log-uniform starts in ``bounds``.
    bounds : (float, float)
        Bounds for every hyperparameter (amplitude, length scales, noise)
        on the natural scale.
    random_state : int, RandomState or None

    Attributes
    ----------
    alpha_ : ndarray (m,)
        Expansion coefficients of the predictive mean.
    kernel_ : Kernel
        The (optimised) kernel.
    noise_ : float
        The (optimised) noise variance.
    log_marginal_likelihood_ : float
        Log evidence at the fitted hyperparameters.
    """

    def __init__(self, kernel=None, noise=0.1, optimize=False, n_restarts=0,
                 bounds=(1e-5, 1e5), random_state=None):
        self.kernel = kernel
        self.noise = noise
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.bounds = bounds
        self.random_state = random_state

    def _evidence(self, kernel, log_noise, X, t, eval_gradient):
        noise = np.exp(log_noise)
        m = len(t)
        if eval_gradient and hasattr(kernel, "gram_and_gradient"):
            K, dK = kernel.gram_and_gradient(X)
        else:
            K, dK = kernel(X), np.empty((m, m, 0))
        C = K.copy()
        C[np.diag_indices_from(C)] += noise
        try:
            L = cholesky(C, lower=True)
        except np.linalg.LinAlgError:
            return (-np.inf, np.zeros(dK.shape[2] + 1)) if eval_gradient else -np.inf
        alpha = cho_solve((L, True), t)
        lml = -0.5 * (t @ alpha) - np.log(np.diag(L)).sum() - 0.5 * m * np.log(2 * np.pi)
        if not eval_gradient:
            return lml
        inner = np.outer(alpha, alpha) - cho_solve((L, True), np.eye(m))
        grad_k = 0.5 * np.einsum("ij,jik->k", inner, dK)
        grad_noise = 0.5 * noise * np.trace(inner)
        return lml, np.concatenate([grad_k, [grad_noise]])

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """Log evidence at log hyperparameters ``theta`` = [kernel theta..., ln sigma_t^2].

        Without ``theta`` the fitted value is returned. With
        ``eval_gradient=True`` returns ``(value, gradient)``.
        """
        check_is_fitted(self, "alpha_")
        if theta is None:
            theta = np.concatenate([_kernel_theta(self.kernel_), [np.log(self.noise_)]])
        theta = np.asarray(theta, dtype=float)
        kern = self.kernel_.with_theta(theta[:-1]) if len(theta) > 1 else self.kernel_
        return self._evidence(kern, theta[-1], self.X_fit_, self.y_fit_, eval_gradient)

    def fit(self, X, y):
        """Fit to inputs ``X`` (m, n) and real targets ``y`` (m,)."""
        X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True)
        if not isinstance(self.noise, numbers.Real) or not self.noise > 0:
            raise ValueError(f"noise must be > 0, got {self.noise!r}")
        kernel = ARDRBF(1.0) if self.kernel is None else as_kernel(self.kernel)
        self.n_features_in_ = X.shape[1]
        self.X_fit_, self.y_fit_ = X, y
        noise = float(self.noise)
        if self.optimize:
            kernel, noise = self._maximise_evidence(kernel, noise, X, y)
        self.kernel_, self.noise_ = kernel, noise
        K = kernel(X)
        K[np.diag_indices_from(K)] += noise
        self.L_ = cholesky(K, lower=True)
        self.alpha_ = cho_solve((self.L_, True), y)
        self.log_marginal_likelihood_ = float(
            -0.5 * y @ self.alpha_ - np.log(np.diag(self.L_)).sum()
            - 0.5 * len(y) * np.log(2 * np.pi))
        return self

    def _maximise_evidence(self, kernel, noise, X, y):
        has_grad = hasattr(kernel, "gram_and_gradient")
        theta0 = np.concatenate([_kernel_theta(kernel), [np.log(noise)]])
        lo, hi = np.log(self.bounds[0]), np.log(self.bounds[1])

        def objective(theta):
            kern = kernel.with_theta(theta[:-1]) if has_grad else kernel
            val, grad = self._evidence(kern, theta[-1], X, y, True)
            if not np.isfinite(val):
                return 1e25, np.zeros_like(theta)
            return -val, -grad

        rng = check_random_state(self.random_state)
        starts = [theta0] + [rng.uniform(lo, hi, size=len(theta0))
                             for _ in range(int(self.n_restarts))]
        best = None
        for start in starts:
            res = minimize(objective, start, jac=True, method="L-BFGS-B",
                           bounds=[(lo, hi)] * len(theta0))
            if best is None or res.fun < best.fun:
                best = res
        theta = best.x
        kern = kernel.with_theta(theta[:-1]) if has_grad else kernel
        return kern, float(np.exp(theta[-1]))

    def predict(self, X, return_std=False, include_noise=True):
        """Predictive mean (and standard deviation) at ``X`` (LKC eq. 3.13–3.14).

        ``include_noise=True`` gives the variance of a new *target*
        (``+ sigma_t^2``); ``False`` that of the latent function value.
        """
        X = validate_test_inputs(self, X, "alpha_")
        Ks = self.kernel_(X, self.X_fit_)
        mean = Ks @ self.alpha_
        if not return_std:
            return mean
        V = solve_triangular(self.L_, Ks.T, lower=True)
        var = np.asarray(self.kernel_.diag(X), dtype=float) - np.einsum("ij,ij->j", V, V)
        if include_noise:
            var = var + self.noise_
        return mean, np.sqrt(np.maximum(var, 0.0))


def _objective(alpha, t, y01):
    """LKC B.7.3: J(alpha) = 1/2 (y+1)' t - sum ln(1 + e^t) - 1/2 alpha' G alpha, t = G alpha."""
    return float(y01 @ t - softplus(t).sum() - 0.5 * alpha @ t)


def laplace_mode(G, y, tol=1e-10, max_iter=100, max_halvings=8):
    """Mode of the Laplace approximation for GP classification in alpha-space.

    Stabilised LKC Algorithm 5 (p. 326; App. B.7.3) with beta = 1: maximise
    ``J(alpha) = 1/2 (y+1)' t - sum_i ln(1 + exp(t_i)) - 1/2 alpha' G alpha``,
    ``t = G alpha``, by Newton steps ``alpha <- alpha - eta Delta`` where
    ``H Delta = g``, ``g = (y+1)/2 - pi(t) - alpha`` and ``H = -(P G + I)``,
    ``P = diag(pi (1 - pi))``. The system is solved through the Cholesky factor
    of ``B = I + P^1/2 G P^1/2`` (``(I + P G)^-1 = I - P^1/2 B^-1 P^1/2 G``), never
    by inverting ``G``; the step length is halved (eta = 2^-i, i <= max_halvings)
    until ``J`` increases.

    Parameters
    ----------
    G : ndarray (m, m)
        Latent covariance matrix (kernel Gram matrix, plus noise if any).
    y : ndarray (m,)
        Labels in {-1, +1}.

    Returns
    -------
    dict with ``alpha``, ``t``, ``pi``, ``L`` (Cholesky factor of B at the
    mode), ``sqrt_p``, ``J`` (objective per accepted iteration), ``n_iter`` and
    ``converged``.
    """
    m = len(y)
    y01 = (np.asarray(y, dtype=float) + 1.0) / 2.0
    alpha = np.zeros(m)
    t = np.zeros(m)
    J = _objective(alpha, t, y01)
    trace = [J]
    converged = False
    for it in range(max_iter + 1):
        pi = expit(t)
        g = y01 - pi - alpha
        w = np.sqrt(pi * (1.0 - pi))
        B = w[:, None] * G * w[None, :]
        B[np.diag_indices_from(B)] += 1.0
        L = cholesky(B, lower=True, overwrite_a=True, check_finite=False)
        if np.linalg.norm(g) / m < tol:
            converged = True
            break
        if it == max_iter:
            break
        delta = g - w * cho_solve((L, True), w * (G @ g), check_finite=False)
        # H = -(PG + I), H Delta' = g  =>  Delta' = -delta; alpha - eta Delta' = alpha + eta delta
        eta, accepted = 1.0, False
        for _ in range(max_halvings + 1):
            a_new = alpha + eta * delta
            t_new = G @ a_new
            J_new = _objective(a_new, t_new, y01)
            if J_new > J:
                accepted = True
                break
            eta *= 0.5
        if not accepted:
            converged = True  # no ascent direction left at machine precision
            break
        alpha, t, J = a_new, t_new, J_new
        trace.append(J)
    return dict(alpha=alpha, t=t, pi=pi, L=L, sqrt_p=w, J=np.array(trace),
                n_iter=it, converged=converged)


# Williams & Barber (1998) / scikit-learn: logistic ~ sum of 5 error functions
_WB_LAMBDAS = np.array([0.41, 0.4, 0.37, 0.44, 0.39])[:, None]
_WB_COEFS = np.array([-1854.8214151, 3516.89893646, 221.29346712, 128.12323805,
                      -2010.49422654])[:, None]


class GaussianProcessClassifier(BinaryKernelClassifier):
    """Binary GP classification with the Laplace approximation (LKC Algorithm 5).

    LKC §3.2.2 (eq. 3.16–3.22), App. B.7.1–B.7.3 and D.3, stabilised as in
    B.7.3: Newton's method in alpha-space (``t = G alpha``) with a halving line
    search, a stable sigmoid/softplus and Cholesky solves (see
    :func:`laplace_mode`). Errata: E3/E4 resolved by the beta = 1 logistic
    convention ``P(Y=+1|t) = 1/(1+e^-t)`` with second derivative
    ``pi (1 - pi)`` (B.7); B.7's ``pi(t / beta)`` with kernel ``k`` equals this
    model with kernel ``k / beta^2`` and latent values ``t / beta`` (tested).

    The latent covariance of the training points is ``G = K + noise * I``;
    ``noise`` (the book's sigma_t^2) defaults to 0, which is the model of
    scikit-learn's ``GaussianProcessClassifier``.

    Predictive probabilities average the logistic over the Gaussian Laplace
    posterior of the latent value (mean ``k_x' alpha``, variance
    ``k(x,x) + noise - k_x' P^1/2 B^-1 P^1/2 k_x``, LKC eq. 3.21 in stable form):

    * ``predictive='williams-barber'`` (default): the logistic is written as a
      combination of five error functions and integrated exactly (Williams &
      Barber 1998); this is what scikit-learn computes;
    * ``'mackay'``: the probit approximation ``sigmoid(mu / sqrt(1 + pi v / 8))``;
    * ``'map'``: the plug-in ``sigmoid(mu)`` (the sign rule of eq. 3.22).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function (``None``: ``RBF(1.0)``).
    noise : float >= 0
        Added to the diagonal of the latent covariance.
    predictive : {'williams-barber', 'mackay', 'map'}
    tol : float
        Stop when ``||g|| / m < tol``.
    max_iter : int
        Newton iterations.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        ``alpha`` at the Laplace mode; ``f(x) = sum_i alpha_i k(x_i, x)`` is the
        latent posterior mean, so ``decision_function``/``predict`` follow eq. 3.22.
    latent_mode_ : ndarray (m,)
        ``t_hat = G alpha_``.
    log_marginal_likelihood_ : float
        Laplace approximation of the log evidence,
        ``sum_i ln sigmoid(y_i t_i) - 1/2 alpha' t - 1/2 ln|B|``.
    n_iter_ : int
    objective_trace_ : ndarray
        ``J`` after every accepted Newton step (non-decreasing).
    """

    def __init__(self, kernel=None, noise=0.0, predictive="williams-barber", tol=1e-10,
                 max_iter=100):
        self.kernel = kernel
        self.noise = noise
        self.predictive = predictive
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Find the Laplace mode for training inputs ``X`` and two-class labels ``y``."""
        kernel = RBF(1.0) if self.kernel is None else as_kernel(self.kernel)
        X, y_pm, classes = validate_binary(X, y, kernel)
        if self.predictive not in ("williams-barber", "mackay", "map"):
            raise ValueError(f"unknown predictive {self.predictive!r}; use "
                             "'williams-barber', 'mackay' or 'map'")
        if not isinstance(self.noise, numbers.Real) or not self.noise >= 0:
            raise ValueError(f"noise must be >= 0, got {self.noise!r}")
        self._set_training_data(X, classes)
        self.kernel_, self.X_fit_, self.y_fit_ = kernel, X, y_pm
        G = np.asarray(kernel(X), dtype=float)
        if self.noise:
            G[np.diag_indices_from(G)] += self.noise
        res = laplace_mode(G, y_pm, tol=self.tol, max_iter=self.max_iter)
        if not res["converged"]:
            warnings.warn(f"Laplace Newton iteration stopped after {self.max_iter} steps "
                          "without reaching tol", ConvergenceWarning, stacklevel=2)
        self.alpha_ = res["alpha"]
        self.latent_mode_ = res["t"]
        self.L_, self.sqrt_p_ = res["L"], res["sqrt_p"]
        self.n_iter_ = res["n_iter"]
        self.objective_trace_ = res["J"]
        self.log_marginal_likelihood_ = float(
            log_expit(y_pm * res["t"]).sum() - 0.5 * res["alpha"] @ res["t"]
            - np.log(np.diag(res["L"])).sum())
        return self

    def latent_mean_and_variance(self, X):
        """Laplace posterior mean and variance of the latent value at ``X``."""
        X = self._validate_test(X)
        Ks = self.kernel_(X, self.X_fit_)
        mean = Ks @ self.alpha_
        V = solve_triangular(self.L_, self.sqrt_p_[:, None] * Ks.T, lower=True)
        var = (np.asarray(self.kernel_.diag(X), dtype=float) + self.noise
               - np.einsum("ij,ij->j", V, V))
        return mean, np.maximum(var, 1e-300)

    def predict_proba(self, X):
        """Columns ``P(classes_[0] | x)``, ``P(classes_[1] | x)``."""
        mu, var = self.latent_mean_and_variance(X)
        if self.predictive == "map":
            p = expit(mu)
        elif self.predictive == "mackay":
            p = expit(mu / np.sqrt(1.0 + np.pi * var / 8.0))
        else:
            a = 1.0 / (2.0 * var)
            gam = _WB_LAMBDAS * mu
            integrals = (np.sqrt(np.pi / a) * erf(gam * np.sqrt(a / (a + _WB_LAMBDAS ** 2)))
                         / (2.0 * np.sqrt(var * 2.0 * np.pi)))
            p = (_WB_COEFS * integrals).sum(axis=0) + 0.5 * _WB_COEFS.sum()
        p = np.clip(p, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])
