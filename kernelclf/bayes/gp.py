"""Gaussian processes: regression (LKC Alg. 4) and Laplace classification (Alg. 5).

Book chapter 07 (``book/07_gaussian_processes.md``); LKC §3.2 (eq. 3.8–3.23,
Figs 3.4–3.5), App. B.7 and D.3.

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
* Cost: both fits are cubic in the number ``m`` of training examples (a Cholesky
  factor of an ``m x m`` matrix per Newton step or evidence evaluation) and hold a
  few ``m x m`` arrays (3, about 1.5 GB at ``m = 8000``; more for evidence
  maximisation). A fit whose arrays would not fit in memory is refused before it
  starts (:func:`kernelclf.kernels.gram.check_memory`);
  fits on at least :data:`kernelclf.progress.LONG_FIT_M` examples show their progress
  (:func:`kernelclf.progress.fit_progress`).
* Default kernels: ``RBF(sigma='scale')`` (classification) and
  ``ARDRBF(sigma='scale')`` (regression), scikit-learn's ``gamma='scale'`` width fixed
  from the training inputs at ``fit``.
"""
from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize
from scipy.special import erf, expit, log_expit
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, KernelMixin, Real
from ..kernels.closure import Kernel, _check_vectors
from ..kernels.gram import IndefiniteKernelError
from ..kernels.vector import RBF, check_length_scales, scale_sigma, squared_distances
from ..progress import fit_progress

__all__ = ["ARDRBF", "GaussianProcessRegressor", "GaussianProcessClassifier",
           "laplace_mode", "stable_sigmoid", "softplus", "class_likelihood", "sigmoid_loss",
           "hinge_likelihood"]


def stable_sigmoid(t):
    """Logistic function ``1 / (1 + exp(-t))`` without overflow (LKC App. D.3)."""
    return expit(t)


def softplus(t):
    """``ln(1 + exp(t))`` computed without overflow (``= -log_expit(-t)``)."""
    return -log_expit(-np.asarray(t, dtype=float))


def class_likelihood(t, y=1, beta=1.0):
    """LKC eq. (3.16): ``P(Y = y | T = t) = exp(2 y t / beta) / (1 + exp(2 y t / beta))``.

    The latent output ``t`` is turned into a class probability by a sigmoid whose
    steepness is set by the noise level ``beta > 0`` (LKC Fig. 3.4): ``beta -> 0`` gives
    the step ``1[y t > 0]``, a large ``beta`` a flat curve around 1/2. The package's
    classifier uses the plain logistic function, which is eq. (3.16) with ``beta = 2``
    (App. B.7 writes it as ``pi(t / beta)`` with ``beta = 1``; see the module notes).
    """
    beta = float(beta)
    if not beta > 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    return expit(2.0 * np.asarray(y, dtype=float) * np.asarray(t, dtype=float) / beta)


def sigmoid_loss(t, y=1, beta=1.0):
    """The loss ``l_sigmoid(t, y) = ln(1 + exp(-2 y t / beta))`` of LKC eq. (3.23).

    It is ``-ln`` of :func:`class_likelihood` (the book prints it as
    ``ln(1 + exp(2yt/beta)) - 2yt/beta``, the same function), a smooth stand-in for the
    zero-one loss ``1[y t <= 0]`` that is not an upper bound of it (LKC Fig. 3.5, left).
    """
    beta = float(beta)
    if not beta > 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    return softplus(-2.0 * np.asarray(y, dtype=float) * np.asarray(t, dtype=float) / beta)


def hinge_likelihood(t, y=1):
    """``exp(-max(1 - y t, 0))``: the "likelihood" the hinge loss induces (Remark 3.13).

    Summed over ``y = -1, +1`` it is not 1 (it reaches ``1 + exp(-2)`` at ``|t| = 1``), so
    the soft-margin SVM's loss is not the negative log of a normalised class model
    (LKC Fig. 3.5, right).
    """
    t = np.asarray(t, dtype=float)
    return np.exp(-np.maximum(1.0 - np.asarray(y, dtype=float) * t, 0.0))


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
    sigma : float, array of shape (n_features,) or 'scale'
        Length scales, all > 0. ``'scale'``: one length scale from the training inputs,
        ``sqrt(N Var(X) / 2)`` (scikit-learn's ``gamma='scale'``,
        :func:`kernelclf.kernels.vector.scale_sigma`), fixed by :meth:`resolve` when an
        estimator fits (``kernel(X)`` uses ``X`` itself).
    amplitude : float > 0
        Prior variance ``k(x, x)``.
    """

    def __init__(self, sigma=1.0, amplitude=1.0):
        self.sigma = sigma
        self.amplitude = amplitude

    def _is_scale(self):
        if isinstance(self.sigma, str):
            if self.sigma != "scale":
                raise ValueError(f"sigma must be positive length scales or 'scale', got "
                                 f"{self.sigma!r}")
            return True
        return False

    def resolve(self, X):
        """``sigma='scale'`` fixed from the training inputs ``X``; otherwise ``self``."""
        if not self._is_scale():
            return self
        return ARDRBF(sigma=scale_sigma(X), amplitude=self.amplitude)

    def _advice_width(self):
        if self._is_scale() or np.ndim(self.sigma) != 0:
            return None
        return float(self.sigma)

    def _params(self, n_features):
        if self._is_scale():
            raise ValueError(f"{self!r} takes its length scale from the training inputs: an "
                             "estimator fixes it when it fits (see its kernel_), and kernel(X) "
                             "uses X; otherwise call kernel.resolve(X_train) first")
        sigma = check_length_scales(self.sigma, n_features)
        amp = self.amplitude
        if not isinstance(amp, numbers.Real) or not np.isfinite(amp) or amp <= 0:
            raise ValueError(f"amplitude must be a positive finite number, got {amp!r}")
        return sigma, float(amp)

    @property
    def theta(self):
        """Log hyperparameters ``[ln amplitude, ln sigma_1, ...]`` (after :meth:`resolve`
        for ``sigma='scale'``)."""
        if self._is_scale():
            raise ValueError(f"{self!r} has no numeric length scale yet; call "
                             "resolve(X_train) first")
        return np.log(np.concatenate([[self.amplitude], np.atleast_1d(self.sigma)]))

    def with_theta(self, theta):
        """A copy of the kernel with log hyperparameters ``theta``."""
        theta = np.asarray(theta, dtype=float)
        sigma = np.exp(theta[1:])
        return ARDRBF(sigma=float(sigma[0]) if np.ndim(self.sigma) == 0 else sigma,
                      amplitude=float(np.exp(theta[0])))

    def _gram(self, X, Y):
        if self._is_scale() and Y is X:
            return self.resolve(X)._gram(X, Y)
        sigma, amp = self._params(X.shape[1])
        Xs = X / sigma
        return amp * np.exp(-0.5 * squared_distances(Xs, Xs if Y is X else Y / sigma))

    def diag(self, X):
        X, _ = self._validate(X, None)
        if self._is_scale():
            return self.resolve(X).diag(X)
        _, amp = self._params(X.shape[1])
        return np.full(len(X), amp)

    def gram_and_gradient(self, X):
        """Gram matrix ``K`` and ``dK / d theta_j`` stacked on the last axis."""
        X, _ = _check_vectors(X)
        if self._is_scale():
            return self.resolve(X).gram_and_gradient(X)
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


def _cholesky(A, kernel, what):
    """Lower Cholesky factor of ``A``; an indefinite matrix is blamed on the kernel."""
    try:
        return cholesky(A, lower=True)
    except LinAlgError:
        raise IndefiniteKernelError(
            f"the {what} built from the kernel {kernel!r} is not positive definite, so the "
            "kernel is not a valid covariance function on these inputs (LKC Prop. 2.18)"
        ) from None


def _kernel_theta(kernel):
    return np.asarray(kernel.theta, dtype=float) if hasattr(kernel, "gram_and_gradient") \
        else np.empty(0)


class GaussianProcessRegressor(KernelMixin, RegressorMixin, BaseEstimator):
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

    Cost in the number ``m`` of training examples: the fit is one Cholesky factorisation,
    O(m^3) time, and holds about 3 ``m x m`` float arrays (the Gram matrix, ``G +
    sigma_t^2 I`` and its factor ``L_``, kept for predictions): 1.5 GB at ``m = 8000``.
    With ``optimize=True`` every evaluation of the evidence costs the same again, and the
    gradient holds one more ``m x m`` array per hyperparameter (twice, while it is
    built): ``5 + 2 p`` arrays for ``p`` kernel hyperparameters (9 for one width and the
    amplitude; ARD on ``N`` inputs ``2 N + 7``). Predictions cost O(m) per
    test point for the mean and O(m^2) with ``return_std``. A fit whose arrays would not
    fit in memory is refused before it starts, naming the size
    (:func:`kernelclf.kernels.gram.check_memory`); fits on at least
    :data:`kernelclf.progress.LONG_FIT_M` examples show their stages or evidence
    evaluations (:func:`kernelclf.progress.fit_progress`).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function; ``None`` means ``ARDRBF(sigma='scale')`` (one length scale
        from the training inputs, scikit-learn's ``gamma='scale'``). String kernels on lists
        of strings are accepted (only the noise is then adapted by ``optimize``).
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
        The (optimised) kernel, a clone of ``kernel``.
    noise_ : float
        The (optimised) noise variance.
    log_marginal_likelihood_ : float
        Log evidence at the fitted hyperparameters.
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "noise": [Real(0, None, closed="neither")],
        "optimize": ["boolean"],
        "n_restarts": [Int(0, None, closed="left")],
        "bounds": [tuple, list],
        "random_state": ["random_state"],
    }
    _default_kernel = functools.partial(ARDRBF, sigma="scale")

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
        """Fit to inputs ``X`` (m, n) (or a list of strings) and real targets ``y`` (m,)."""
        self._validate_params()
        lo, hi = _check_bounds(self.bounds)
        self._fit_kernel()
        X, y = self._validate_Xy(X, _numeric_targets(y), y_numeric=True)
        kernel = self.kernel_               # with 'scale' fixed from X
        noise = float(self.noise)
        m = len(y)
        copies = 3
        if self.optimize:
            copies = 5 + 2 * len(_kernel_theta(kernel))
        bar = fit_progress(m, desc="GP regression", unit="step",
                           total=None if self.optimize else 2)
        try:
            bar.set_postfix_str("Gram matrix")
            # the numerical guard on the starting kernel (and the memory check)
            gram = self._training_gram(X, copies=copies)
            if self.optimize:
                bar.set_postfix_str("evidence maximisation")
                kernel, noise = self._maximise_evidence(kernel, noise, X, y, lo, hi, bar)
                if kernel is not self.kernel_:
                    self.kernel_ = kernel
                    gram = self._training_gram(X)
            else:
                bar.update()
            bar.set_postfix_str("Cholesky factor")
            self.X_fit_, self.y_fit_ = X, y
            self.noise_ = noise
            self.L_ = _cholesky(gram.with_ridge(noise).full(), self.kernel_,
                                "training covariance G + noise I")
            bar.update()
        finally:
            bar.close()
        self.alpha_ = cho_solve((self.L_, True), y)
        self.log_marginal_likelihood_ = float(
            -0.5 * y @ self.alpha_ - np.log(np.diag(self.L_)).sum()
            - 0.5 * len(y) * np.log(2 * np.pi))
        return self

    def _maximise_evidence(self, kernel, noise, X, y, lo, hi, bar=None):
        has_grad = hasattr(kernel, "gram_and_gradient")
        theta0 = np.concatenate([_kernel_theta(kernel), [np.log(noise)]])
        lo, hi = np.log(lo), np.log(hi)

        def objective(theta):
            kern = kernel.with_theta(theta[:-1]) if has_grad else kernel
            val, grad = self._evidence(kern, theta[-1], X, y, True)
            if bar is not None:
                bar.update()
                bar.set_postfix_str(f"log evidence {val:.6g}")
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
        X = self._validate_test(X)
        Ks = self._kernel_rows(X, self.X_fit_)
        mean = Ks @ self.alpha_
        if not return_std:
            return mean
        V = solve_triangular(self.L_, Ks.T, lower=True)
        var = np.asarray(self.kernel_.diag(X), dtype=float) - np.einsum("ij,ij->j", V, V)
        if include_noise:
            var = var + self.noise_
        return mean, np.sqrt(np.maximum(var, 0.0))


def _check_bounds(bounds):
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (low, high) of numbers, got {bounds!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise ValueError(f"bounds must satisfy 0 < low < high < inf, got {bounds!r}")
    return lo, hi


def _numeric_targets(y):
    """Refuse non-numeric regression targets with a clear message (before numpy does)."""
    try:
        arr = y if hasattr(y, "dtype") else np.asarray(y)
    except (TypeError, ValueError):
        return y  # ragged input: let the validation report it
    kind = getattr(getattr(arr, "dtype", None), "kind", "")
    if kind in ("U", "S"):
        raise ValueError("regression targets y must be numbers, got strings such as "
                         f"{np.ravel(arr)[:1].tolist()}; encode them as floats (for class "
                         "labels use a classifier)")
    if kind == "O":
        try:
            np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("regression targets y must be numbers, got values such as "
                             f"{np.ravel(arr)[:1].tolist()}") from None
    return y


def _objective(alpha, t, y01):
    """LKC B.7.3: J(alpha) = 1/2 (y+1)' t - sum ln(1 + e^t) - 1/2 alpha' G alpha, t = G alpha."""
    return float(y01 @ t - softplus(t).sum() - 0.5 * alpha @ t)


def laplace_mode(G, y, tol=1e-10, max_iter=100, max_halvings=8, bar=None):
    """Mode of the Laplace approximation for GP classification in alpha-space.

    Stabilised LKC Algorithm 5 (p. 326; App. B.7.3) with beta = 1: maximise
    ``J(alpha) = 1/2 (y+1)' t - sum_i ln(1 + exp(t_i)) - 1/2 alpha' G alpha``,
    ``t = G alpha``, by Newton steps ``alpha <- alpha - eta Delta`` where
    ``H Delta = g``, ``g = (y+1)/2 - pi(t) - alpha`` and ``H = -(P G + I)``,
    ``P = diag(pi (1 - pi))``. The system is solved through the Cholesky factor
    of ``B = I + P^1/2 G P^1/2`` (``(I + P G)^-1 = I - P^1/2 B^-1 P^1/2 G``), never
    by inverting ``G``; the step length is halved (eta = 2^-i, i <= max_halvings)
    until ``J`` increases.

    Each Newton step costs O(m^3) (the Cholesky factor of ``B``); the iteration holds
    ``G`` and ``B`` (factorised in place), two ``m x m`` arrays.

    Parameters
    ----------
    G : ndarray (m, m)
        Latent covariance matrix (kernel Gram matrix, plus noise if any).
    y : ndarray (m,)
        Labels in {-1, +1}.
    bar : progress bar, optional
        Updated once per Newton step (:func:`kernelclf.progress.fit_progress`).

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
        B = G * w[None, :]                     # one m x m array: no temporaries, and its
        B *= w[:, None]                        # symmetric transpose is factorised in place
        B[np.diag_indices_from(B)] += 1.0
        L = cholesky(B.T, lower=True, overwrite_a=True, check_finite=False)
        if bar is not None:
            bar.update()
            bar.set_postfix_str(f"J {J:.6g}, |g|/m {np.linalg.norm(g) / m:.2g}")
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

    ``decision_function`` returns the predictive log-odds
    ``ln(P(classes_[1] | x) / P(classes_[0] | x))`` of these probabilities, so it
    ranks test points exactly as ``predict_proba`` does; its sign is the sign of the
    latent mean (all three predictives are odd in ``mu``). The latent posterior mean
    itself is :meth:`latent_mean` (and :meth:`latent_mean_and_variance`).

    Cost in the number ``m`` of training examples: every Newton step factorises an
    ``m x m`` matrix, O(m^3) time (a few to a few dozen steps), and the fit holds at most
    3 ``m x m`` float arrays (``G``, and ``B`` factorised in place into ``L_``, kept for
    predictions; the Gram matrix and its copy while ``G`` is made): 1.5 GB at
    ``m = 8000``. Predictions cost O(m) per test point for the latent mean and O(m^2)
    for the variance (all three predictives need it except
    ``'map'``). A fit whose arrays would not fit in memory is refused before it starts,
    naming the size (:func:`kernelclf.kernels.gram.check_memory`); fits on at least
    :data:`kernelclf.progress.LONG_FIT_M` examples show the Newton steps
    (:func:`kernelclf.progress.fit_progress`).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function (``None``: ``RBF(sigma='scale')``, scikit-learn's
        ``gamma='scale'`` width fixed from the training inputs).
    noise : float >= 0
        Added to the diagonal of the latent covariance.
    predictive : {'williams-barber', 'mackay', 'map'}
    tol : float >= 0
        Stop when ``||g|| / m < tol``.
    max_iter : int >= 1
        Newton iterations.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        ``alpha`` at the Laplace mode; ``f(x) = sum_i alpha_i k(x_i, x)`` is the
        latent posterior mean (:meth:`latent_mean`), whose sign ``predict`` follows
        (eq. 3.22).
    kernel_ : Kernel
        A clone of ``kernel``.
    latent_mode_ : ndarray (m,)
        ``t_hat = G alpha_``.
    log_marginal_likelihood_ : float
        Laplace approximation of the log evidence,
        ``sum_i ln sigmoid(y_i t_i) - 1/2 alpha' t - 1/2 ln|B|``.
    n_iter_ : int
    objective_trace_ : ndarray
        ``J`` after every accepted Newton step (non-decreasing).
    """

    _bound_tags = {"family": "gp", "margin": None, "bias": False}  # kernelclf.bounds.report
    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "noise": [Real(0, None, closed="left")],
        "predictive": [StrOptions({"williams-barber", "mackay", "map"})],
        "tol": [Real(0, None, closed="left")],
        "max_iter": [Int(1, None, closed="left")],
    }
    _default_kernel = functools.partial(RBF, sigma="scale")

    def __init__(self, kernel=None, noise=0.0, predictive="williams-barber", tol=1e-10,
                 max_iter=100):
        self.kernel = kernel
        self.noise = noise
        self.predictive = predictive
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Find the Laplace mode for training inputs ``X`` and two-class labels ``y``."""
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_, self.y_fit_ = X, y_pm
        G = self._training_gram(X, ridge=self.noise, copies=3).full()
        bar = fit_progress(len(y_pm), total=self.max_iter + 1, unit="step",
                           desc="GP classification, Laplace (Newton)")
        try:
            res = laplace_mode(G, y_pm, tol=self.tol, max_iter=self.max_iter, bar=bar)
        except LinAlgError:
            raise IndefiniteKernelError(
                f"the latent covariance built from the kernel {self.kernel_!r} is not positive "
                "semi-definite, so the Laplace approximation does not exist (LKC Prop. 2.18)"
            ) from None
        finally:
            bar.close()
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

    def latent_mean(self, X):
        """Laplace posterior mean ``sum_i alpha_i k(x_i, x)`` of the latent value (eq. 3.22)."""
        X = self._validate_test(X)
        return self._kernel_rows(X, self.X_fit_) @ self.alpha_

    def latent_mean_and_variance(self, X):
        """Laplace posterior mean and variance of the latent value at ``X`` (eq. 3.21)."""
        X = self._validate_test(X)
        Ks = self._kernel_rows(X, self.X_fit_)
        mean = Ks @ self.alpha_
        V = solve_triangular(self.L_, self.sqrt_p_[:, None] * Ks.T, lower=True)
        var = (np.asarray(self.kernel_.diag(X), dtype=float) + self.noise
               - np.einsum("ij,ij->j", V, V))
        return mean, np.maximum(var, 1e-300)

    def _predictive(self, X):
        """``(P(classes_[0] | x), P(classes_[1] | x), log-odds)`` of the chosen predictive."""
        mu, var = self.latent_mean_and_variance(X)
        if self.predictive in ("map", "mackay"):
            z = mu if self.predictive == "map" else mu / np.sqrt(1.0 + np.pi * var / 8.0)
            return expit(-z), expit(z), z
        # Williams & Barber: P = 1/2 + (an odd function of mu). The constant is taken as
        # exactly 1/2 (the printed coefficients sum to 1 - 1e-8), so that the predictive
        # is symmetric, P(+1 | mu) = 1 - P(+1 | -mu), and its sign rule is that of mu.
        a = 1.0 / (2.0 * var)
        gam = _WB_LAMBDAS * mu
        integrals = (np.sqrt(np.pi / a) * erf(gam * np.sqrt(a / (a + _WB_LAMBDAS ** 2)))
                     / (2.0 * np.sqrt(var * 2.0 * np.pi)))
        odd = (_WB_COEFS * integrals).sum(axis=0)
        p1, p0 = np.clip(0.5 + odd, 0.0, 1.0), np.clip(0.5 - odd, 0.0, 1.0)
        tiny = np.finfo(float).tiny
        return p0, p1, np.log(np.maximum(p1, tiny)) - np.log(np.maximum(p0, tiny))

    def predict_proba(self, X):
        """Columns ``P(classes_[0] | x)``, ``P(classes_[1] | x)`` (see the class docstring)."""
        p0, p1, _ = self._predictive(X)
        return np.column_stack([p0, p1])

    def decision_function(self, X):
        """Predictive log-odds ``ln(P(classes_[1] | x) / P(classes_[0] | x))``.

        A monotone function of ``predict_proba(X)[:, 1]``, positive for ``classes_[1]``
        exactly where the latent mean is positive (eq. 3.22). For ``'map'`` and
        ``'mackay'`` it is the logistic's argument (``mu`` and
        ``mu / sqrt(1 + pi v / 8)``); for ``'williams-barber'`` the log-odds of its
        probabilities (probabilities below the smallest positive float are taken at
        that float, so the values stay finite). The latent mean is :meth:`latent_mean`.
        """
        return self._predictive(X)[2]
