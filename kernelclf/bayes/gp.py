"""Gaussian process classification: the Laplace approximation (LKC Alg. 5) and its likelihoods.

Book chapter 07 (``book/07_gaussian_processes.md``); LKC §3.2.2 (eq. 3.16–3.23,
Remark 3.13, Figs 3.4–3.5), App. B.7 and D.3. Gaussian process regression and the
ARD kernel are in :mod:`kernelclf.bayes.gp_regression`.

Conventions
-----------
* The *beta = 1 logistic convention* is used throughout (this
  settles errata E3/E4 of the errata table in book chapter 00): ``P(Y = +1 | t) = 1 / (1 + exp(-t))``,
  whose log likelihood has second derivative ``-pi (1 - pi)`` (App. B.7,
  eq. B.16–B.17, taken with beta = 1; E4). A noise level beta is absorbed by
  the kernel: App. B.7's likelihood ``pi(t / beta)`` with prior covariance ``k``
  is the model ``pi(s)``, ``s = t / beta``, with covariance ``k / beta^2``;
  LKC Alg. 5 instead divides the Gram matrix by beta, i.e. it is the beta = 1
  model with kernel ``k / beta``.
* Every linear system is solved through a Cholesky factor; no Gram matrix is
  ever inverted (LKC footnote 6, p. 91).
* Cost: the fit is cubic in the number ``m`` of training examples (a Cholesky
  factor of an ``m x m`` matrix per Newton step) and holds a
  few ``m x m`` arrays (3, about 1.5 GB at ``m = 8000``). A fit whose arrays would
  not fit in memory is refused before it
  starts (:func:`kernelclf.kernels.gram_guard.check_memory`);
  fits on at least :data:`kernelclf.progress.LONG_FIT_M` examples show their progress
  (:func:`kernelclf.progress.fit_progress`).
* Default kernel: ``RBF(sigma='scale')``, scikit-learn's ``gamma='scale'`` width fixed
  from the training inputs at ``fit``.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.special import erf, expit, log_expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..kernels.gram_guard import IndefiniteKernelError
from ..kernels.hyper import kernel_theta, kernel_with_theta
from ..kernels.vector import RBF
from ..progress import fit_progress
from .gp_evidence import laplace_evidence, maximise_laplace_evidence

__all__ = ["GaussianProcessClassifier", "laplace_mode", "stable_sigmoid", "softplus",
           "class_likelihood", "sigmoid_loss", "hinge_likelihood"]


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
    tol : float
        Stop when ``||g|| / m < tol``.
    max_iter : int
        Newton steps at most.
    max_halvings : int
        Step halvings per Newton step; when none of them increases ``J`` the iteration
        stops (no ascent direction left at machine precision).
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

    * ``predictive='williams-barber'`` (default): the logistic is approximated by a
      combination of five error functions, whose Gaussian average is exact (Williams &
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
    naming the size (:func:`kernelclf.kernels.gram_guard.check_memory`); fits on at least
    :data:`kernelclf.progress.LONG_FIT_M` examples show the Newton steps
    (:func:`kernelclf.progress.fit_progress`).

    The kernel's parameters are chosen, as in scikit-learn, by maximising the Laplace
    approximation of the evidence (LKC §3.2, App. B.7;
    :mod:`kernelclf.bayes.gp_evidence`) over their logarithms with L-BFGS-B
    (``optimizer``), from the given values and ``n_restarts_optimizer`` random starts:
    an ``RBF``'s width, the factor ``c`` of ``c * RBF(sigma)`` (scikit-learn's
    ``ConstantKernel * RBF``), the parts of sums and products, an ``ARDRBF``'s amplitude
    and length scales (:mod:`kernelclf.kernels.hyper`). As in scikit-learn, the default
    kernel (``kernel=None``) stays fixed; ``kernel='rbf'`` is the same kernel with its
    width optimised; ``optimizer=None`` keeps any kernel as given. Each evaluation of the
    evidence runs the Newton iteration again, so an optimised fit costs tens of fits.

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function (``None``: ``RBF(sigma='scale')``, scikit-learn's
        ``gamma='scale'`` width fixed from the training inputs, and not optimised).
    noise : float >= 0
        Added to the diagonal of the latent covariance (not optimised).
    predictive : {'williams-barber', 'mackay', 'map'}
    tol : float >= 0
        Stop when ``||g|| / m < tol``.
    max_iter : int >= 1
        Newton iterations.
    optimizer : 'fmin_l_bfgs_b', callable or None
        How the evidence is maximised over the kernel's log parameters (scikit-learn's
        parameter: a callable ``optimizer(obj_func, initial_theta, bounds)`` returns
        ``(theta, value)``); ``None`` fixes the kernel.
    n_restarts_optimizer : int >= 0
        Extra runs of the optimiser from log-uniform random starts in ``bounds``.
    bounds : (float, float)
        Bounds of every optimised parameter on the natural scale.
    random_state : int, RandomState or None
        Seeds the random starts.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        ``alpha`` at the Laplace mode; ``f(x) = sum_i alpha_i k(x_i, x)`` is the
        latent posterior mean (:meth:`latent_mean`), whose sign ``predict`` follows
        (eq. 3.22).
    kernel_ : Kernel
        A clone of ``kernel``, with the optimised parameters.
    latent_mode_ : ndarray (m,)
        ``t_hat = G alpha_``.
    log_marginal_likelihood_ : float
        Laplace approximation of the log evidence,
        ``sum_i ln sigmoid(y_i t_i) - 1/2 alpha' t - 1/2 ln|B|``.
    n_iter_ : int
    objective_trace_ : ndarray
        ``J`` after every accepted Newton step (non-decreasing).
    """

    _bound_tags = {"family": "gp", "margin": None, "bias": False}  # kernelclf.bounds.report_tags
    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "noise": [Real(0, None, closed="left")],
        "predictive": [StrOptions({"williams-barber", "mackay", "map"})],
        "tol": [Real(0, None, closed="left")],
        "max_iter": [Int(1, None, closed="left")],
        "optimizer": [StrOptions({"fmin_l_bfgs_b"}), callable, None],
        "n_restarts_optimizer": [Int(0, None, closed="left")],
        "bounds": [tuple, list],
        "random_state": ["random_state"],
    }
    _default_kernel = functools.partial(RBF, sigma="scale")

    def __init__(self, kernel=None, noise=0.0, predictive="williams-barber", tol=1e-10,
                 max_iter=100, optimizer="fmin_l_bfgs_b", n_restarts_optimizer=0,
                 bounds=(1e-5, 1e5), random_state=None):
        self.kernel = kernel
        self.noise = noise
        self.predictive = predictive
        self.tol = tol
        self.max_iter = max_iter
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.bounds = bounds
        self.random_state = random_state

    def fit(self, X, y):
        """Find the Laplace mode for training inputs ``X`` and two-class labels ``y``
        (after maximising the evidence over the kernel's parameters, see the class
        docstring)."""
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_, self.y_fit_ = X, y_pm
        n_theta = len(kernel_theta(self.kernel_)) if self.kernel is not None else 0
        if self.optimizer is not None and n_theta:
            from .gp_regression import _check_bounds, _guarded

            bounds = _check_bounds(self.bounds)
            # the guard and the memory check on the starting kernel (whether the kernel is
            # degenerate is judged on the one the evidence chooses, below)
            _guarded(lambda: self._training_gram(X, ridge=self.noise, copies=5 + n_theta),
                     keep=False)
            self.kernel_, _ = maximise_laplace_evidence(
                self.kernel_, X, y_pm, self._find_mode, noise=self.noise, bounds=bounds,
                n_restarts=self.n_restarts_optimizer, random_state=self.random_state,
                optimizer=self.optimizer)
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

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """The Laplace log evidence at the kernel's log parameters ``theta``
        (:func:`kernelclf.kernels.hyper.kernel_theta` of ``kernel_``; ``None``: the fitted
        value), and with ``eval_gradient=True`` its gradient (scikit-learn's method)."""
        from sklearn.utils.validation import check_is_fitted

        from ..kernels.hyper import gram_and_gradient

        check_is_fitted(self, "alpha_")
        if theta is None:
            if eval_gradient:
                theta = kernel_theta(self.kernel_)
            else:
                return self.log_marginal_likelihood_
        kernel = kernel_with_theta(self.kernel_, np.asarray(theta, dtype=float))
        K, dK = gram_and_gradient(kernel, self.X_fit_)
        if self.noise:
            K = K + self.noise * np.eye(len(K))
        lml, grad = laplace_evidence(K, self.y_fit_, self._find_mode(K, self.y_fit_),
                                     dK if eval_gradient else None)
        return (lml, grad) if eval_gradient else lml

    def _find_mode(self, G, y):
        return laplace_mode(G, y, tol=self.tol, max_iter=self.max_iter)

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
