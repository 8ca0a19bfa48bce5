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
With ``lam=0`` this raises :class:`~kernelclf.margin.separability.NotSeparableError`.
The default ``lam='auto'`` does not settle for hard boundaries merely because
the sample is separable: a flexible kernel (a narrow RBF) separates almost any sample of
distinct points, noisy ones included, with a margin that is a tiny fraction of the data
radius, and the hard-boundary Bayes point then overfits. The yardstick is ``R / sqrt(m)``
(``R = max_i sqrt(k(x_i, x_i))``), the margin of a kernel that merely memorises the sample
(``m`` orthogonal feature vectors of length ``R``). Hard boundaries are fitted only when the
sample is separable with a margin of at least ``AUTO_MARGIN = 0.1`` times that, i.e. when
``(R / gamma*)^2 <= 100 m``; otherwise the soft-boundary machine with the ridge
``lam = mean_i k(x_i, x_i)``, which for a normalised kernel corresponds to the quadratic
soft-margin SVM with ``C = 1`` (BPM §3.3; LKC eq. 2.49-2.50). The margin is bounded from
both sides by :func:`~kernelclf.margin.separability.hard_margin_bounds` (an
iteration-capped nearest-point solver whose pair steps read two kernel columns each, from a
stored matrix or computed on demand); the fitted attributes
``lam_``, ``margin_bounds_`` and ``lam_reason_`` record the decision.

Nothing in ``fit`` solves a linear program in ``m`` variables for a large sample: the
start point in version space comes from the kernel perceptron (100 epochs), then from the
nearest-point solver, and the linear program is tried only for ``m <= LP_MAX_M`` (with an
iteration cap), see :func:`~kernelclf.margin.separability.check_separability`.
"""
from __future__ import annotations

import numbers
import threading
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, BinaryKernelClassifier, Int, Real
from ..kernels.rows import take_rows
from ..margin.separability import (
    NotSeparableError,
    SeparabilityUndecidedError,
    check_separability,
    hard_margin_bounds,
    is_separable,
)
from .billiard import kernel_billiard
from .versionspace import find_version_space_point

__all__ = ["BayesPointMachine", "perceptron_samples", "NotSeparableError", "AUTO_MARGIN"]

#: ``lam='auto'`` fits hard boundaries only when the sample is separable with a margin of
#: at least ``AUTO_MARGIN R / sqrt(m)``, ``R = max_i sqrt(k(x_i, x_i))`` (``R / sqrt(m)``:
#: the margin of a kernel that only memorises the sample).
AUTO_MARGIN = 0.1
# lam='auto' with kernel columns on demand: size of the subsample tried first
_SUBSAMPLE = 1000


_RNG = threading.local()


class _ReusedRandomState(np.random.RandomState):
    """A ``RandomState`` that :func:`_random_state` hands out and :func:`_release` keeps."""


def _random_state(seed):
    """``check_random_state(seed)``, without its cost for an integer seed.

    ``numpy.random.RandomState(seed)`` first seeds a new Mersenne Twister from fresh
    entropy through a ``SeedSequence`` and then replaces that state by the legacy seeding
    of ``seed``: about 0.1 ms, a twentieth of a default fit on a Thyroid split. Reseeding a
    kept generator (``RandomState.seed``, the same legacy seeding) gives the same stream.
    One generator is kept per thread; a fit takes it (a fit nested in another, say inside a
    kernel function, finds none and makes its own) and gives it back with :func:`_release`.
    """
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        rng = getattr(_RNG, "rng", None)
        _RNG.rng = None
        if rng is None:
            rng = _ReusedRandomState()
        rng.seed(seed)
        return rng
    return check_random_state(seed)


def _release(rng):
    """Give a generator of :func:`_random_state` back for the thread's next fit."""
    if isinstance(rng, _ReusedRandomState):
        _RNG.rng = rng


def _not_separable_message(extra=""):
    return ("the training sample is not separable in feature space with lam=0, so its "
            "version space is empty and a hard-boundary Bayes point does not exist"
            + extra + "; use soft boundaries lam > 0 (BPM §3.3), which make every sample "
            "separable")


def perceptron_samples(G, y, n_perceptrons, max_epochs=1000, random_state=None):
    """Normalised kernel-perceptron solutions on random permutations.

    BPM §3.2 and App. B, Algorithm 1 (erratum E11: the coefficient of the
    visited example ``Pi(i)`` is updated).  Each run visits the sample in a
    fresh random order until it makes no mistake; its ``alpha`` is scaled to
    ``alpha' G alpha = 1``.

    Returns
    -------
    samples : (n_perceptrons, m) array
        Rows are points of the version space (``y_i (G a)_i > 0``).

    Raises
    ------
    NotSeparableError
        If a run has not converged after ``max_epochs`` epochs: the sample is not
        separable, or (a :class:`~kernelclf.margin.separability.SeparabilityUndecidedError`)
        :func:`~kernelclf.margin.separability.is_separable` could not decide within its
        budget, or it is separable and ``max_epochs`` was too small.
    """
    from ..margin.perceptron import perceptron_on_permutation

    if isinstance(n_perceptrons, (bool, np.bool_)) \
            or not isinstance(n_perceptrons, numbers.Integral) or n_perceptrons < 1:
        raise ValueError(f"n_perceptrons must be an integer >= 1, got {n_perceptrons!r}")
    G = np.asarray(G, dtype=float)
    y = np.asarray(y, dtype=float)
    rng = check_random_state(random_state)
    m = len(y)
    out = np.empty((int(n_perceptrons), m))
    for s in range(int(n_perceptrons)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            a = perceptron_on_permutation(G, y, rng.permutation(m), max_epochs=max_epochs)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught) or \
                np.min(y * (G @ a)) <= 0:
            if not is_separable(G, y, fit_bias=False):
                raise NotSeparableError(_not_separable_message(
                    f" (the perceptron still erred after {max_epochs} epochs and a "
                    "separability test finds no consistent classifier)"))
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
        ``n_perceptrons`` normalised perceptron solutions on random permutations.
    lam : float >= 0 or 'auto', default 'auto'
        Soft boundaries: train on ``G + lam I`` (BPM eq. 27 / TR eq. 18).
        With ``lam = 0`` a sample that is not separable raises
        :class:`~kernelclf.margin.separability.NotSeparableError` (a ``ValueError``; its
        subclass :class:`~kernelclf.margin.separability.SeparabilityUndecidedError` when
        no consistent classifier was found within the budget of the separability test).
        ``'auto'`` decides from the largest margin ``gamma*`` of the sample in feature
        space, bounded by :func:`~kernelclf.margin.separability.hard_margin_bounds`
        (at most ``10 m + 1000`` nearest-point steps, stopping as soon as the comparison
        is settled), against ``tau R`` with ``tau = AUTO_MARGIN / sqrt(m)``
        (``AUTO_MARGIN = 0.1``, ``R = max_i sqrt(k(x_i, x_i))``; ``R / sqrt(m)`` is the
        margin of a kernel that merely memorises the sample):

        * ``lam_ = 0`` (hard boundaries) when ``gamma* >= tau R`` is certain: a classifier
          with that margin was found;
        * ``lam_ = mean_i k(x_i, x_i)`` (soft boundaries) otherwise: when
          ``gamma* < tau R`` is certain (the sample is not separable, or only by a
          negligible margin, as noisy data under a narrow RBF kernel), and also when the
          step budget ran out before either was certain.

        With kernel columns computed on demand (``m > 2000`` under ``precompute='auto'``)
        a random subsample of 1000 examples is examined first: dropping examples can only
        enlarge the largest margin, so a subsample margin certainly below ``tau R`` (``tau``
        and ``R`` of the whole sample) decides for soft boundaries at once.
        No warning is issued; ``lam_``, ``margin_bounds_`` and ``lam_reason_`` say what
        was decided and why.
    n_perceptrons : int, default 100
        Number of perceptron runs (``method='perceptron'``). Called ``n_samples`` in
        earlier versions (in scikit-learn ``n_samples`` is the number of examples).
    tol : float, default 1e-2
        Billiard stopping threshold: on ``rho_2`` (the weight a new piece of trajectory
        would get if it were no longer than the longest so far; TR §3's upper bound, which
        a longer piece can exceed) for ``stopping='rho2'``, on the estimated standard
        error of the direction (radians) for ``stopping='batch'``. The default 1e-2: on
        noisy two moons (m = 500 and 4000, RBF(0.5); seven training sets) it reaches the
        test accuracy of ``tol=1e-3`` (within 0.006) with 10-17 times fewer bounces
        (``tests/test_bpm.py``), which puts the fit within a few times the SVM's
        (``python -m benchmarks.bpm --noisy-moons-only`` times the default against the SVM);
        the paper's protocols (chapter 12, :mod:`kernelclf.experiments.bpm`) pass
        ``tol=1e-3``.
    stopping : {'rho2', 'batch', 'rho2-printed'}, default 'rho2'
        Billiard stopping rule, see :func:`~kernelclf.bayespoint.billiard.kernel_billiard`.  The
        default is the printed rule of LKC Alg. 10 / BPM Alg. 2 with the weights of
        erratum E2; book chapter 11 compares it with batch means and with the rule as
        printed in LKC (which stops at once).  It needs at least ``(1 - tol) / tol``
        bounces; ``tol = 1e-3`` took 1.07e4-2.8e5 bounces in chapter 12's Table 1 run.
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
    margin_bounds_ : tuple (lower, upper) or None
        ``lam='auto'`` only: the bounds on ``gamma* / R`` that decided (``None`` when
        ``lam`` was given; ``lower = -inf`` when a subsample decided).
    lam_reason_ : str
        How ``lam_`` came about, in words.
    n_bounces_ : int
        Bounces flown (0 for ``method='perceptron'``).
    n_restarts_ : int
    converged_ : bool
    samples_ : (n_perceptrons, m) array
        Perceptron samples (``method='perceptron'`` only).
    n_kernel_evaluations_ : dict
        Kernel evaluations of the billiard's start, bounces and restarts.
    X_fit_, kernel_, classes_
    """

    _bound_tags = {"family": "bpm", "margin": None, "bias": False}  # kernelclf.bounds.report_tags
    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "method": [StrOptions({"billiard", "perceptron"})],
        "lam": [Real(0, None, closed="left"), StrOptions({"auto"})],
        "n_perceptrons": [Int(1, None, closed="left")],
        "tol": [Real(0, 1, closed="neither")],
        "stopping": [StrOptions({"rho2", "batch", "rho2-printed"})],
        "max_bounces": [Int(1, None, closed="left")],
        "tau_max": [Real(0, None, closed="neither")],
        "refresh": [Real(0, 1, closed="both")],
        "max_epochs": [Int(1, None, closed="left")],
        "precompute": [StrOptions({"auto"}), "boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, method="billiard", lam="auto", n_perceptrons=100, tol=1e-2,
                 stopping="rho2", max_bounces=500_000, tau_max=1.0, refresh=0.0,
                 max_epochs=1000, precompute="auto", random_state=None):
        self.kernel = kernel
        self.method = method
        self.lam = lam
        self.n_perceptrons = n_perceptrons
        self.tol = tol
        self.stopping = stopping
        self.max_bounces = max_bounces
        self.tau_max = tau_max
        self.refresh = refresh
        self.max_epochs = max_epochs
        self.precompute = precompute
        self.random_state = random_state

    def _choose_ridge(self, X, gram, y):
        """``lam='auto'``: hard boundaries only for a margin of at least ``tau R``."""
        m = len(y)
        tau = AUTO_MARGIN / np.sqrt(m)
        R = float(np.sqrt(np.max(gram.diag)))
        lam = float(np.mean(gram.diag))
        soft = (f"lam='auto': soft boundaries, lam = mean k(x_i, x_i) = {lam:.4g}; "
                f"the largest margin")
        negligible = (f"below tau R = 0.1 R / sqrt(m) = {tau:.3g} R (not separable, or only "
                      "by a negligible margin)")
        if not gram.precomputed and m > _SUBSAMPLE:
            # columns on demand: a subsample (matrix stored, compiled steps) first. Fewer
            # constraints can only enlarge the largest margin, so a subsample whose margin is
            # certainly below tau R settles the question for the whole sample.
            idx = np.sort(np.random.default_rng(0).choice(m, _SUBSAMPLE, replace=False))
            sub = self._training_gram(take_rows(X, idx), precompute=True)
            R_sub = float(np.sqrt(np.max(sub.diag)))
            nb = hard_margin_bounds(sub, y[idx], fit_bias=False, threshold=tau * R / R_sub,
                                    max_iter=10 * _SUBSAMPLE + 1000)
            if nb.upper < tau * R:
                self.margin_bounds_ = (-np.inf, nb.upper / R)
                self.lam_reason_ = (f"{soft} of a random subsample of {_SUBSAMPLE} examples, "
                                    f"which bounds the sample's, is at most "
                                    f"{nb.upper / R:.3g} R, {negligible}")
                return lam, None
        nb = hard_margin_bounds(gram, y, fit_bias=False, threshold=tau, max_iter=10 * m + 1000)
        low, up = nb.relative
        self.margin_bounds_ = (low, up)
        if low >= tau:
            self.lam_reason_ = (f"lam='auto': hard boundaries, the sample is separable with "
                                f"margin >= {low:.3g} R >= tau R = 0.1 R / sqrt(m) = {tau:.3g} R")
            return 0.0, nb.coef
        if up < tau:
            self.lam_reason_ = f"{soft} is at most {up:.3g} R, {negligible}"
        else:
            self.lam_reason_ = (f"{soft} lies in [{max(low, 0.0):.3g}, {up:.3g}] R after "
                                f"{nb.iterations} nearest-point steps, not certainly above "
                                f"tau R = 0.1 R / sqrt(m) = {tau:.3g} R")
        return lam, None

    @staticmethod
    def _start(gram, y, rng, hint=None):
        """A point strictly inside the version space of ``gram``, in bounded time.

        The kernel perceptron first (100 epochs, drawing its permutations from ``rng`` as
        :func:`~kernelclf.bayespoint.billiard.kernel_billiard` would), then ``hint``, then
        :func:`~kernelclf.margin.separability.check_separability` (nearest point; a linear
        program only for small ``m``).
        """
        try:
            return find_version_space_point(gram, y, random_state=rng, use_lp=False)[0]
        except NotSeparableError:
            pass
        if hint is not None:
            return hint
        res = check_separability(gram, y, fit_bias=False)
        if res.separable:
            coef = np.asarray(res.coef, dtype=float)
            margins = y * (gram.full() @ coef) if hasattr(gram, "full") else None
            if margins is None or np.min(margins) > 0:
                return coef
            # separable in exact arithmetic perhaps, but the solver's point is not strictly
            # inside in floating point (e.g. near-duplicate inputs under a narrow RBF kernel)
            raise SeparabilityUndecidedError(
                "the separability test's consistent classifier is not strictly inside the "
                f"version space in floating point (smallest margin {np.min(margins):.3g}; "
                f"lam={gram.ridge:g}): use soft boundaries lam > 0 (BPM §3.3) or lam='auto'")
        if res.separable is False:
            raise NotSeparableError(_not_separable_message(
                " (the perceptron still erred after 100 epochs and a linear program finds "
                "no consistent classifier)"))
        raise SeparabilityUndecidedError(
            "no classifier consistent with the training sample was found in feature space "
            f"(lam={gram.ridge:g}): {res.message}. The version space is empty or too thin "
            "for hard boundaries; use soft boundaries lam > 0 (BPM §3.3) or lam='auto'")

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
        n_perceptrons = self.n_perceptrons
        self.X_fit_ = X
        auto = isinstance(self.lam, str)
        lam = 0.0 if auto else float(self.lam)
        rng = _random_state(self.random_state)
        pre = None if self.precompute == "auto" else bool(self.precompute)
        self._check_zero_vectors(X, lam, pre)
        if self.method == "perceptron":
            pre = True
        gram = self._training_gram(X, 0.0 if auto else lam, precompute=pre)
        hint = None
        self.margin_bounds_ = None
        self.lam_reason_ = f"lam={lam:g} given"
        if auto:
            lam, hint = self._choose_ridge(X, gram, y_pm)
            if lam:
                gram = gram.with_ridge(lam)
        self.lam_ = lam
        if self.method == "perceptron":
            G = gram.full()
            S = perceptron_samples(G, y_pm, n_perceptrons, self.max_epochs, rng)
            a = S.mean(axis=0)
            self.alpha_ = a / np.sqrt(a @ G @ a)
            self.samples_ = S
            self.n_bounces_ = 0
            self.n_restarts_ = 0
            self.converged_ = True
            self.n_kernel_evaluations_ = {"start": len(G) ** 2, "bounces": 0, "restarts": 0}
            _release(rng)
            return self
        ev0 = gram.n_evaluations
        start = self._start(gram, y_pm, rng, hint)
        ev_start = gram.n_evaluations - ev0
        res = kernel_billiard(gram, y_pm, start=start, random_state=rng, tol=float(self.tol),
                              stopping=self.stopping, tau_max=float(self.tau_max),
                              max_bounces=int(self.max_bounces), refresh=float(self.refresh),
                              trace=False)
        self.alpha_ = res.alpha
        self.n_bounces_ = res.n_bounces
        self.n_restarts_ = res.n_restarts
        self.converged_ = res.converged
        self.n_kernel_evaluations_ = dict(res.kernel_evaluations)
        self.n_kernel_evaluations_["start"] = self.n_kernel_evaluations_.get("start", 0) + ev_start
        _release(rng)
        return self

    def normalized_decision_function(self, X):
        """``f(x) / sqrt(k(x, x) + lam)``: the cosine between ``w`` and
        ``phi(x)`` (BPM §4.3, used for one-vs-rest votes and rejection)."""
        Xv = self._validate_test(X, "alpha_")
        f = self._kernel_rows(Xv, self.X_fit_) @ self.alpha_
        return f / np.sqrt(np.asarray(self.kernel_.diag(Xv), dtype=float) + self.lam_)
