"""Book chapter 07 (``book/07_gaussian_processes.md``): Gaussian process regression (LKC Alg. 4).

LKC §3.2.1 (eq. 3.8–3.15, evidence p. 86, Figs 3.2–3.3), Ex. 3.11–3.12 (automatic
relevance determination), Theorems A.96–A.97 (derivatives of an inverse and of a log determinant) and
App. D.3
(Algorithm 4). The classification half of the chapter, with the likelihoods of
§3.2.2, is :mod:`kernelclf.bayes.gp`.

Conventions of the regressor
----------------------------
* The latent function has the prior covariance ``k`` and the
  targets carry Gaussian noise of variance ``noise`` (the book's sigma_t^2), so
  the training covariance is ``C = G + sigma_t^2 I`` (LKC eq. 3.15).
* Every linear system is solved through a Cholesky factor (LKC footnote 6, p. 91);
  only the gradient of the log evidence, used when the hyper-parameters are
  optimised, forms ``C^{-1}``, from the same factor.
* Cost: the fit is cubic in the number ``m`` of training examples (a Cholesky
  factor of an ``m x m`` matrix per evidence evaluation) and holds a
  few ``m x m`` arrays (3, about 1.5 GB at ``m = 8000``; more for evidence
  maximisation). A fit whose arrays would not fit in memory is refused before it
  starts (:func:`kernelclf.kernels.gram_guard.check_memory`);
  fits on at least :data:`kernelclf.progress.LONG_FIT_M` examples show their progress
  (:func:`kernelclf.progress.fit_progress`).
* Default kernel: ``ARDRBF(sigma='scale')``, scikit-learn's ``gamma='scale'`` width fixed
  from the training inputs at ``fit``.
"""
from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..base import KERNEL_CONSTRAINT, Int, KernelMixin, Real
from ..kernels.closure import Kernel, _check_vectors
from ..kernels.gram_guard import DegenerateKernelWarning, IndefiniteKernelError
from ..kernels.hyper import gram_and_gradient, kernel_theta, kernel_with_theta
from ..kernels.vector import check_length_scales, scale_sigma, squared_distances
from ..progress import fit_progress

__all__ = ["ARDRBF", "GaussianProcessRegressor", "TargetOffsetWarning"]


class TargetOffsetWarning(UserWarning):
    """The regression targets sit far from the prior's mean 0 (see ``normalize_y``)."""


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
    return kernel_theta(kernel)


class GaussianProcessRegressor(KernelMixin, RegressorMixin, BaseEstimator):
    """Gaussian process regression (LKC Algorithm 4, p. 325; §3.2, eq. 3.8–3.15).

    Fits ``alpha = (G + sigma_t^2 I)^-1 t`` by a Cholesky solve; the predictive
    distribution at ``x`` is normal with mean ``k_x' alpha`` and variance
    ``k(x, x) + sigma_t^2 - k_x' (G + sigma_t^2 I)^-1 k_x`` (eq. 3.13–3.14).
    The log evidence (LKC p. 86) is
    ``-1/2 (m ln 2 pi + ln|G + sigma_t^2 I| + t' (G + sigma_t^2 I)^-1 t)``.

    With ``optimize=True`` the evidence is maximised over ``ln sigma_t^2`` and the
    kernel's log hyperparameters (:mod:`kernelclf.kernels.hyper`: an :class:`ARDRBF`'s
    log amplitude and log length scales, ARD, LKC Ex. 3.11–3.12; an ``RBF``'s width,
    the factor of ``c * k``, the parts of sums and products), with L-BFGS-B and the
    analytic gradient ``1/2 tr((alpha alpha' - C^-1) dC/d theta)`` (LKC
    Theorems A.96–A.97). Other kernels are kept fixed and only the noise is adapted.

    Cost in the number ``m`` of training examples: the fit is one Cholesky factorisation,
    O(m^3) time, and holds about 3 ``m x m`` float arrays (the Gram matrix, ``G +
    sigma_t^2 I`` and its factor ``L_``, kept for predictions): 1.5 GB at ``m = 8000``.
    With ``optimize=True`` every evaluation of the evidence costs the same again, and the
    gradient holds one more ``m x m`` array per hyperparameter (twice, while it is
    built): ``5 + 2 p`` arrays for ``p`` kernel hyperparameters (9 for one width and the
    amplitude; ARD on ``N`` inputs ``2 N + 7``). Predictions cost O(m) per
    test point for the mean and O(m^2) with ``return_std``. A fit whose arrays would not
    fit in memory is refused before it starts, naming the size
    (:func:`kernelclf.kernels.gram_guard.check_memory`); fits on at least
    :data:`kernelclf.progress.LONG_FIT_M` examples show their stages or evidence
    evaluations (:func:`kernelclf.progress.fit_progress`).

    Parameters
    ----------
    kernel : Kernel, str, callable or None
        Covariance function; ``None`` means ``ARDRBF(sigma='scale')`` (one length scale
        from the training inputs, scikit-learn's ``gamma='scale'``). String kernels on lists
        of strings are accepted (their parameters stay fixed under ``optimize``).
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
    normalize_y : bool
        As scikit-learn's: fit the process to the targets minus their mean, divided by
        their standard deviation, and map the predictions back. The prior then has the
        targets' mean and scale, instead of mean 0 and variance ``k(x, x)``; ``noise``,
        ``noise_`` and the log evidence refer to the normalised targets (as
        scikit-learn's ``alpha`` and ``log_marginal_likelihood_value_`` do). Without it
        a fit on targets whose mean is more than one standard deviation away from 0
        warns (:class:`TargetOffsetWarning`): the zero-mean prior must then explain the
        offset, and evidence maximisation tends to explain the targets as noise instead
        (on the diabetes data, features standardised, R^2 drops from about 0.4 to below 0).

    Attributes
    ----------
    alpha_ : ndarray (m,)
        Expansion coefficients of the predictive mean (of the normalised targets with
        ``normalize_y=True``).
    kernel_ : Kernel
        The (optimised) kernel, a clone of ``kernel``.
    kernel_start_ : Kernel
        The kernel evidence maximisation started from (``kernel`` with ``'scale'`` fixed).
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
        "normalize_y": ["boolean"],
    }
    _default_kernel = functools.partial(ARDRBF, sigma="scale")

    def __init__(self, kernel=None, noise=0.1, optimize=False, n_restarts=0,
                 bounds=(1e-5, 1e5), random_state=None, normalize_y=False):
        self.kernel = kernel
        self.noise = noise
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.bounds = bounds
        self.random_state = random_state
        self.normalize_y = normalize_y

    def _evidence(self, kernel, log_noise, X, t, eval_gradient):
        noise = np.exp(log_noise)
        m = len(t)
        if eval_gradient:
            K, dK = gram_and_gradient(kernel, X)
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
        ``eval_gradient=True`` returns ``(value, gradient)``. With ``normalize_y=True`` it is
        the evidence of the normalised targets (as scikit-learn's).
        """
        check_is_fitted(self, "alpha_")
        if theta is None:
            theta = np.concatenate([_kernel_theta(self.kernel_), [np.log(self.noise_)]])
        theta = np.asarray(theta, dtype=float)
        kern = kernel_with_theta(self.kernel_, theta[:-1])
        return self._evidence(kern, theta[-1], self.X_fit_, self.y_fit_, eval_gradient)

    def fit(self, X, y):
        """Fit to inputs ``X`` (m, n) (or a list of strings) and real targets ``y`` (m,)."""
        self._validate_params()
        lo, hi = _check_bounds(self.bounds)
        self._fit_kernel()
        X, y = self._validate_Xy(X, _numeric_targets(y), y_numeric=True)
        y = np.asarray(y, dtype=float)
        if self.normalize_y:
            self._y_train_mean = float(np.mean(y))
            spread = float(np.std(y))
            self._y_train_std = spread if spread > 0 else 1.0
            y = (y - self._y_train_mean) / self._y_train_std
        else:
            self._y_train_mean, self._y_train_std = 0.0, 1.0
            _warn_offset(y, self.optimize)
        kernel = self.kernel_               # with 'scale' fixed from X
        self.kernel_start_ = kernel
        noise = float(self.noise)
        m = len(y)
        copies = 3
        if self.optimize:
            copies = 5 + 2 * len(_kernel_theta(kernel))
        bar = fit_progress(m, desc="GP regression", unit="step",
                           total=None if self.optimize else 2)
        try:
            bar.set_postfix_str("Gram matrix")
            # the numerical guard on the starting kernel (and the memory check); when the
            # evidence may move the kernel, its degeneracy is judged on the kernel chosen
            gram, start = _guarded(lambda: self._training_gram(X, copies=copies),
                                   keep=not self.optimize)
            if self.optimize:
                bar.set_postfix_str("evidence maximisation")
                kernel, noise = self._maximise_evidence(kernel, noise, X, y, lo, hi, bar)
                if kernel is not self.kernel_:
                    self.kernel_ = kernel
                    gram = self._optimised_gram(X, y, noise, blame_targets=not start)
                else:
                    _reissue(start)
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

    def _optimised_gram(self, X, y, noise, blame_targets=True):
        """The Gram matrix of the optimised kernel. Its guard's warning about a degenerate
        matrix would blame the inputs, which passed it with the starting kernel: the
        evidence chose this kernel, so the warning names the targets instead (unless the
        starting kernel was degenerate too: then the guard's own warning stands)."""
        gram, caught = _guarded(lambda: self._training_gram(X), keep=False)
        if not blame_targets:
            _reissue(caught)
            return gram
        for w in caught:
            text = str(w.message)
            kind = ("nearly constant" if "is nearly constant" in text else
                    "numerically constant" if "numerically constant" in text else
                    "numerically the identity")
            what = ("explains the targets as noise around the prior mean (its predictions "
                    "stay near " + ("the targets' mean" if self.normalize_y else "0") + ")"
                    if kind.endswith("identity") else
                    "barely tells the training inputs apart (a nearly constant function)")
            raw = np.asarray(y) * self._y_train_std + self._y_train_mean
            advice = ("Pass normalize_y=True (the prior then takes the targets' mean and "
                      "scale), try n_restarts > 0 or tighter bounds." if not self.normalize_y
                      else "Try n_restarts > 0 or tighter bounds.")
            warnings.warn(
                f"evidence maximisation chose the kernel {self.kernel_!r} with noise "
                f"{noise:.3g}, whose training Gram matrix is {kind}: the "
                f"model {what}. The inputs are not the cause (the starting kernel "
                f"{self.kernel_start_!r} was usable on them); the evidence found no "
                f"structure in the targets (mean {np.mean(raw):.3g}, standard deviation "
                f"{np.std(raw):.3g}) at a better optimum. {advice}",
                DegenerateKernelWarning, stacklevel=3)
        return gram

    def _maximise_evidence(self, kernel, noise, X, y, lo, hi, bar=None):
        theta0 = np.concatenate([_kernel_theta(kernel), [np.log(noise)]])
        lo, hi = np.log(lo), np.log(hi)

        def objective(theta):
            kern = kernel_with_theta(kernel, theta[:-1])
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
        kern = kernel_with_theta(kernel, theta[:-1])
        return kern, float(np.exp(theta[-1]))

    def predict(self, X, return_std=False, include_noise=True):
        """Predictive mean (and standard deviation) at ``X`` (LKC eq. 3.13–3.14).

        ``include_noise=True`` gives the variance of a new *target*
        (``+ sigma_t^2``); ``False`` that of the latent function value.
        """
        X = self._validate_test(X)
        Ks = self._kernel_rows(X, self.X_fit_)
        scale, shift = getattr(self, "_y_train_std", 1.0), getattr(self, "_y_train_mean", 0.0)
        mean = Ks @ self.alpha_ * scale + shift
        if not return_std:
            return mean
        V = solve_triangular(self.L_, Ks.T, lower=True)
        var = np.asarray(self.kernel_.diag(X), dtype=float) - np.einsum("ij,ij->j", V, V)
        if include_noise:
            var = var + self.noise_
        return mean, np.sqrt(np.maximum(var, 0.0)) * scale


def _guarded(make, keep):
    """``(make(), degeneracy warnings)``: the guard's :class:`DegenerateKernelWarning` are
    collected instead of shown (all shown, and none returned, when ``keep``); any other
    warning is shown at once."""
    if keep:
        return make(), []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateKernelWarning)
        out = make()
    held = [w for w in caught if issubclass(w.category, DegenerateKernelWarning)]
    _reissue([w for w in caught if not issubclass(w.category, DegenerateKernelWarning)])
    return out, held


def _reissue(caught):
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _warn_offset(y, optimize):
    """Warn when the targets' mean is more than one standard deviation from the prior's
    mean 0 (see ``normalize_y`` of :class:`GaussianProcessRegressor`)."""
    if len(y) < 2:
        return
    mean, spread = float(np.mean(y)), float(np.std(y))
    if abs(mean) <= spread or mean == 0.0:
        return
    effect = ("evidence maximisation tends to explain such targets as noise (a kernel "
              "matrix near the identity, predictions near 0)" if optimize else
              "the kernel must carry the offset, and predictions fall back to 0 away from "
              "the training inputs")
    warnings.warn(
        f"the regression targets have mean {mean:.3g} and standard deviation {spread:.3g}, "
        f"but the Gaussian process prior has mean 0: {effect}. Pass normalize_y=True "
        "(scikit-learn's option: the prior takes the targets' mean and scale) or centre "
        "the targets", TargetOffsetWarning, stacklevel=3)


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
