"""Bayes point machines: the centre of mass of version space as a classifier.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); LKC §3.4, Algorithm 10;
BPM §2-§3; TR 99-11 §2-3, §5. Chapters 11 (the billiard) and 12 (experiments) use it too.

Under a uniform prior on the unit sphere of weight
vectors and the noise-free (PAC) likelihood the posterior is uniform on the
version space, and its centre of mass approximates the Bayes point (LKC
§3.4, Def. 3.15, eq. 3.29–3.33; BPM §2.3–2.5, §3; TR §2–3).  Two ways to
compute it are offered:

* ``method='billiard'`` — the kernel billiard of :mod:`kernelclf.bayespoint.billiard`
  (LKC Algorithm 10; BPM §3.1, App. B Alg. 2), with one kernel column per
  bounce;
* ``method='perceptron'`` — the average of normalised kernel-perceptron
  solutions found on random permutations of the sample (BPM §3.2, App. B
  Alg. 1 with erratum E11, via :func:`kernelclf.margin.perceptron.perceptron_on_permutation`).

Soft boundaries (BPM §3.3, eq. 26–27; TR §5 eq. 18) train on ``G + lam I``
(erratum E14: the ridge is added, not multiplied) and predict with the
unchanged kernel.  Like LKC, BPM and TR, the classifier has no bias:
``f(x) = sum_i alpha_i k(x_i, x)`` with signed ``alpha_i``.

A sample that is not separable in feature space has an empty version space.
With ``lam=0`` this raises :class:`~kernelclf.margin.separability.NotSeparableError`;
with the default ``lam='auto'`` the hard-boundary machine is fitted when the
sample is separable, and otherwise (with a warning) the soft-boundary one with the
ridge ``lam = mean_i k(x_i, x_i)``, which for a normalised kernel corresponds to
the quadratic soft-margin SVM with ``C = 1`` (BPM §3.3; LKC eq. 2.49-2.50).
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..margin.separability import NotSeparableError, is_separable
from .billiard import kernel_billiard
from .versionspace import find_version_space_point

__all__ = ["BayesPointMachine", "perceptron_samples", "NotSeparableError"]


def _not_separable_message(extra=""):
    return ("the training sample is not separable in feature space with lam=0, so its "
            "version space is empty and a hard-boundary Bayes point does not exist"
            + extra + "; use soft boundaries lam > 0 (BPM §3.3), which make every sample "
            "separable")


def perceptron_samples(G, y, n_samples, max_epochs=1000, random_state=None):
    """Normalised kernel-perceptron solutions on random permutations.

    BPM §3.2 and App. B, Algorithm 1 (erratum E11: the coefficient of the
    visited example ``Pi(i)`` is updated).  Each run visits the sample in a
    fresh random order until it makes no mistake; its ``alpha`` is scaled to
    ``alpha' G alpha = 1``.

    Returns
    -------
    samples : (n_samples, m) array
        Rows are points of the version space (``y_i (G a)_i > 0``).

    Raises
    ------
    NotSeparableError
        If a run has not converged after ``max_epochs`` epochs and a linear
        program confirms that the sample is not separable.
    """
    from ..margin.perceptron import perceptron_on_permutation

    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, numbers.Integral) \
            or n_samples < 1:
        raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}")
    G = np.asarray(G, dtype=float)
    y = np.asarray(y, dtype=float)
    rng = check_random_state(random_state)
    m = len(y)
    out = np.empty((int(n_samples), m))
    for s in range(int(n_samples)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            a = perceptron_on_permutation(G, y, rng.permutation(m), max_epochs=max_epochs)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught) or \
                np.min(y * (G @ a)) <= 0:
            if not is_separable(G, y, fit_bias=False):
                raise NotSeparableError(_not_separable_message(
                    f" (the perceptron still erred after {max_epochs} epochs and a "
                    "linear program finds no consistent classifier)"))
            raise NotSeparableError(
                f"the perceptron did not separate the sample within max_epochs={max_epochs} "
                "epochs although it is separable; raise max_epochs or use lam > 0")
        out[s] = a / np.sqrt(a @ G @ a)
    return out


class BayesPointMachine(BinaryKernelClassifier):
    """Bayes point machine (centre of mass of version space).

    LKC §3.4.1, Algorithm 10, App. B.9; BPM (Herbrich, Graepel & Campbell,
    JMLR 2001) §3.1–3.3, App. A–B; TR 99-11 §3, §5.  Book chapters 10-12.
    Errata E2 (weights of ⊕µ), E11 (permutation index), E12 (sign of the
    flight time, first-pass 0/0) and E14 (additive ridge) are corrected.

    Parameters
    ----------
    kernel : kernel object, name or callable, default None (linear)
    method : {'billiard', 'perceptron'}
        Kernel billiard (``O(m)`` kernel work per bounce) or the average of
        ``n_samples`` normalised perceptron solutions on random permutations.
    lam : float >= 0 or 'auto', default 'auto'
        Soft boundaries: train on ``G + lam I`` (BPM eq. 27 / TR eq. 18).
        With ``lam = 0`` a non-separable sample raises
        :class:`~kernelclf.margin.separability.NotSeparableError` (a ``ValueError``).
        ``'auto'``: ``0`` when the sample is separable in feature space, else
        ``mean_i k(x_i, x_i)`` with a ``UserWarning`` (see the module docstring).
    n_samples : int
        Number of perceptron runs (``method='perceptron'``).
    tol : float
        Billiard stopping threshold: on ``rho_2`` (the largest weight a new piece of
        trajectory can still get) for ``stopping='rho2'``, on the estimated standard
        error of the direction (radians) for ``stopping='batch'``.
    stopping : {'rho2', 'batch', 'rho2-printed'}, default 'rho2'
        Billiard stopping rule, see :func:`~kernelclf.bayespoint.billiard.kernel_billiard`.  The
        default is the printed rule of LKC Alg. 10 / BPM Alg. 2 with the weights of
        erratum E2; book chapter 11 compares it with batch means and with the rule as
        printed in LKC (which stops at once).  It needs at least ``(1 - tol) / tol``
        bounces; ``tol = 1e-3`` takes 1.3e4-1.6e5 bounces on the data of chapter 12.
    max_bounces : int
        Billiard bounce cap (a ``ConvergenceWarning`` when reached).
    tau_max : float
        Longest flight (``tan`` of the arc) before a restart, see
        :func:`~kernelclf.bayespoint.billiard.kernel_billiard`.
    refresh : float
        Probability per bounce of a random new direction (mixing aid).
    max_epochs : int
        Epoch cap for each perceptron run (``method='perceptron'``).
    precompute : {'auto', True, False}
        Billiard only: store the Gram matrix (fast column reads) or compute
        each kernel column on demand (memory ``O(m)``, one column of kernel
        evaluations per bounce).  ``'auto'`` stores it for ``m <= 2000``.
    random_state : int, RandomState or None

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients of the centre of mass, ``alpha' (G + lam_ I) alpha = 1``.
    lam_ : float
        The ridge used (``lam``, or the value ``'auto'`` chose).
    n_bounces_ : int
        Bounces flown (0 for ``method='perceptron'``).
    n_restarts_ : int
    converged_ : bool
    samples_ : (n_samples, m) array
        Perceptron samples (``method='perceptron'`` only).
    n_kernel_evaluations_ : dict
        Kernel evaluations of the billiard's start, bounces and restarts.
    X_fit_, kernel_, classes_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "method": [StrOptions({"billiard", "perceptron"})],
        "lam": [Real(0, None, closed="left"), StrOptions({"auto"})],
        "n_samples": [Int(1, None, closed="left")],
        "tol": [Real(0, 1, closed="neither")],
        "stopping": [StrOptions({"rho2", "batch", "rho2-printed"})],
        "max_bounces": [Int(1, None, closed="left")],
        "tau_max": [Real(0, None, closed="neither")],
        "refresh": [Real(0, 1, closed="both")],
        "max_epochs": [Int(1, None, closed="left")],
        "precompute": [StrOptions({"auto"}), "boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, method="billiard", lam="auto", n_samples=100, tol=1e-3,
                 stopping="rho2", max_bounces=500_000, tau_max=1.0, refresh=0.0,
                 max_epochs=1000, precompute="auto", random_state=None):
        self.kernel = kernel
        self.method = method
        self.lam = lam
        self.n_samples = n_samples
        self.tol = tol
        self.stopping = stopping
        self.max_bounces = max_bounces
        self.tau_max = tau_max
        self.refresh = refresh
        self.max_epochs = max_epochs
        self.precompute = precompute
        self.random_state = random_state

    def _auto_ridge(self, gram):
        lam = float(np.mean(gram.diag))
        warnings.warn(
            "BayesPointMachine(lam='auto'): the training sample is not separable in feature "
            "space (empty version space), so the soft-boundary Bayes point on G + lam I is "
            f"fitted with lam = mean k(x_i, x_i) = {lam:.4g} (BPM §3.3); pass lam explicitly "
            "to choose the ridge", UserWarning, stacklevel=3)
        return lam

    def _check_zero_vectors(self, X, lam, pre):
        """A training input with ``k(x, x) = 0`` (a zero vector in feature space, or kernel
        values that underflow) bounds no version space; name it instead of reporting an
        empty version space."""
        if lam > 0:
            return
        diag = np.asarray(self.kernel_.diag(X), dtype=float)
        # negative values: the Gram guard names the indefinite kernel. With lam='auto' a
        # few zero vectors are handled by the soft-boundary fallback (ridge = mean k(x, x)),
        # which is useless only when every k(x_i, x_i) is zero
        auto = isinstance(self.lam, str)
        if (np.all(diag == 0) if auto else np.any(diag == 0)):
            i = int(np.flatnonzero(diag == 0)[0])
            scale = ""
            if isinstance(X, np.ndarray) and X.dtype.kind in "fiu" and X.size:
                scale = f" (largest |x_ij| = {np.max(np.abs(X)):.3g})"
            raise NotSeparableError(
                f"k(x_i, x_i) = 0 for training input {i}{scale}: "
                "a zero vector in feature space, "
                "or kernel values that underflow, cannot bound a version space; rescale the "
                "inputs or use soft boundaries lam > 0")

    def fit(self, X, y):
        """Find the centre of mass of the version space of ``(X, y)``."""
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_ = X
        auto = isinstance(self.lam, str)
        lam = 0.0 if auto else float(self.lam)
        rng = check_random_state(self.random_state)
        pre = None if self.precompute == "auto" else bool(self.precompute)
        self._check_zero_vectors(X, lam, pre)
        if self.method == "perceptron":
            gram = self._training_gram(X, lam, precompute=True)
            if auto:
                try:
                    find_version_space_point(gram, y_pm, max_epochs=min(100, self.max_epochs),
                                             random_state=0)
                except NotSeparableError:
                    lam = self._auto_ridge(gram)
                    gram = gram.with_ridge(lam)
            G = gram.full()
            S = perceptron_samples(G, y_pm, self.n_samples, self.max_epochs, rng)
            a = S.mean(axis=0)
            self.alpha_ = a / np.sqrt(a @ G @ a)
            self.samples_ = S
            self.n_bounces_ = 0
            self.n_restarts_ = 0
            self.converged_ = True
            self.n_kernel_evaluations_ = {"start": len(G) ** 2, "bounces": 0, "restarts": 0}
            self.lam_ = lam
            return self
        gram = self._training_gram(X, lam, precompute=pre)
        kw = dict(tol=float(self.tol), stopping=self.stopping, tau_max=float(self.tau_max),
                  max_bounces=int(self.max_bounces), refresh=float(self.refresh))
        try:
            res = kernel_billiard(gram, y_pm, random_state=rng, **kw)
        except NotSeparableError:
            if not auto:
                raise
            lam = self._auto_ridge(gram)
            res = kernel_billiard(gram.with_ridge(lam), y_pm, random_state=rng, **kw)
        self.alpha_ = res.alpha
        self.n_bounces_ = res.n_bounces
        self.n_restarts_ = res.n_restarts
        self.converged_ = res.converged
        self.n_kernel_evaluations_ = res.kernel_evaluations
        self.lam_ = lam
        return self

    def normalized_decision_function(self, X):
        """``f(x) / sqrt(k(x, x) + lam)``: the cosine between ``w`` and
        ``phi(x)`` (BPM §4.3, used for one-vs-rest votes and rejection)."""
        Xv = self._validate_test(X, "alpha_")
        f = self._kernel_rows(Xv, self.X_fit_) @ self.alpha_
        return f / np.sqrt(np.asarray(self.kernel_.diag(Xv), dtype=float) + self.lam_)
