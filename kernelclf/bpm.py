"""Bayes point machines: the centre of mass of version space as a classifier.

Book chapters 10–12.  Under a uniform prior on the unit sphere of weight
vectors and the noise-free (PAC) likelihood the posterior is uniform on the
version space, and its centre of mass approximates the Bayes point (LKC
§3.4, Def. 3.15, eq. 3.29–3.33; BPM §2.3–2.5, §3; TR §2–3).  Two ways to
compute it are offered:

* ``method='billiard'`` — the kernel billiard of :mod:`kernelclf.billiard`
  (LKC Algorithm 10; BPM §3.1, App. B Alg. 2), with one kernel column per
  bounce;
* ``method='perceptron'`` — the average of normalised kernel-perceptron
  solutions found on random permutations of the sample (BPM §3.2, App. B
  Alg. 1 with erratum E11, via :func:`kernelclf.perceptron.perceptron_on_permutation`).

Soft boundaries (BPM §3.3, eq. 26–27; TR §5 eq. 18) train on ``G + lam I``
(erratum E14: the ridge is added, not multiplied) and predict with the
unchanged kernel.  Like LKC, BPM and TR, the classifier has no bias:
``f(x) = sum_i alpha_i k(x_i, x)`` with signed ``alpha_i``.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .base import BinaryKernelClassifier, validate_binary
from .billiard import GramColumns, NotSeparableError, kernel_billiard
from .kernels import Kernel, as_kernel

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
    from .perceptron import perceptron_on_permutation

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
            from .svm import is_separable
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
    JMLR 2001) §3.1–3.3, App. A–B; TR 99-11 §3, §5.  Book chapters 10–12.
    Errata E2 (weights of ⊕µ), E11 (permutation index), E12 (sign of the
    flight time, first-pass 0/0) and E14 (additive ridge) are corrected.

    Parameters
    ----------
    kernel : kernel object, name or callable, default None (linear)
    method : {'billiard', 'perceptron'}
        Kernel billiard (``O(m)`` kernel work per bounce) or the average of
        ``n_samples`` normalised perceptron solutions on random permutations.
    lam : float >= 0
        Soft boundaries: train on ``G + lam I`` (BPM eq. 27 / TR eq. 18).
        With ``lam = 0`` a non-separable sample raises
        :class:`~kernelclf.billiard.NotSeparableError` (a ``ValueError``).
    n_samples : int
        Number of perceptron runs (``method='perceptron'``).
    tol : float
        Billiard stopping threshold on ``rho_2`` (the largest weight a new
        piece of trajectory can still get).
    max_bounces : int
        Billiard bounce cap (a ``ConvergenceWarning`` when reached).
    tau_max : float
        Longest flight (``tan`` of the arc) before a restart, see
        :func:`~kernelclf.billiard.kernel_billiard`.
    refresh : float
        Probability per bounce of a random new direction (mixing aid).
    max_epochs : int
        Epoch cap for each perceptron run (also for the billiard's start).
    precompute : {'auto', True, False}
        Billiard only: store the Gram matrix (fast column reads) or compute
        each kernel column on demand (memory ``O(m)``, one column of kernel
        evaluations per bounce).  ``'auto'`` stores it for ``m <= 2000``.
    random_state : int, RandomState or None

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients of the centre of mass, ``alpha' (G + lam I) alpha = 1``.
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

    def __init__(self, kernel=None, method="billiard", lam=0.0, n_samples=100, tol=1e-3,
                 max_bounces=10000, tau_max=1.0, refresh=0.0, max_epochs=1000,
                 precompute="auto", random_state=None):
        self.kernel = kernel
        self.method = method
        self.lam = lam
        self.n_samples = n_samples
        self.tol = tol
        self.max_bounces = max_bounces
        self.tau_max = tau_max
        self.refresh = refresh
        self.max_epochs = max_epochs
        self.precompute = precompute
        self.random_state = random_state

    def fit(self, X, y):
        """Find the centre of mass of the version space of ``(X, y)``."""
        if self.method not in ("billiard", "perceptron"):
            raise ValueError(f"method must be 'billiard' or 'perceptron', got {self.method!r}")
        lam = float(self.lam)
        if not lam >= 0:
            raise ValueError(f"lam must be >= 0, got {self.lam!r}")
        if int(self.n_samples) < 1 or int(self.max_bounces) < 1 or int(self.max_epochs) < 1:
            raise ValueError("n_samples, max_bounces and max_epochs must be positive")
        if not 0 < float(self.tol) < 1:
            raise ValueError(f"tol must lie in (0, 1), got {self.tol!r}")
        kernel = as_kernel(self.kernel)
        self.kernel_ = clone(kernel) if isinstance(kernel, Kernel) else kernel
        X, y_pm, classes = validate_binary(X, y, self.kernel_)
        self._set_training_data(X, classes)
        self.X_fit_ = X
        rng = check_random_state(self.random_state)
        if self.method == "perceptron":
            G = np.asarray(self.kernel_(X), dtype=float)
            if lam:
                G = G + lam * np.eye(len(G))
            S = perceptron_samples(G, y_pm, self.n_samples, self.max_epochs, rng)
            a = S.mean(axis=0)
            self.alpha_ = a / np.sqrt(a @ G @ a)
            self.samples_ = S
            self.n_bounces_ = 0
            self.n_restarts_ = 0
            self.converged_ = True
            self.n_kernel_evaluations_ = {"start": len(G) ** 2, "bounces": 0, "restarts": 0}
            return self
        pre = self.precompute
        if pre not in ("auto", True, False):
            raise ValueError(f"precompute must be 'auto', True or False, got {pre!r}")
        if pre is True or (pre == "auto" and len(X) <= 2000):
            cols = GramColumns(G=np.asarray(self.kernel_(X), dtype=float), lam=lam)
        else:
            cols = GramColumns(kernel=self.kernel_, X=X, lam=lam)
        res = kernel_billiard(cols, y_pm, tol=float(self.tol), tau_max=float(self.tau_max),
                              max_bounces=int(self.max_bounces), refresh=float(self.refresh),
                              random_state=rng)
        self.alpha_ = res.alpha
        self.n_bounces_ = res.n_bounces
        self.n_restarts_ = res.n_restarts
        self.converged_ = res.converged
        self.n_kernel_evaluations_ = res.kernel_evaluations
        return self

    def normalized_decision_function(self, X):
        """``f(x) / sqrt(k(x, x) + lam)``: the cosine between ``w`` and
        ``phi(x)`` (BPM §4.3, used for one-vs-rest votes and rejection)."""
        check_is_fitted(self, "alpha_")
        Xv = self._validate_test(X)
        f = self.decision_function(Xv)
        return f / np.sqrt(np.asarray(self.kernel_.diag(Xv), dtype=float) + float(self.lam))
