"""Algorithmic stability bounds and an empirical stability measurement.

Book chapter 17 (``book/17_compression_stability_rademacher.md``); LKC §5.3: Definition
5.26 (uniform stability ``beta_m``), Theorem 5.27 (replace-one stability ``2 beta_m``),
Definition 5.28 and Examples 5.29-5.30 (Lipschitz losses), Theorem 5.31 (stability of
regularised risk minimisers, eq. 5.19, proof in App. C.9.1), Theorem 5.32 (the two
McDiarmid bounds, proof in App. C.9.2) with the ``beta_m <= eta/m`` form after it,
Example 5.33 (support vector regression), eq. (5.20) and Figure 5.2 (clipped loss),
Theorem 5.34 and the soft-margin SVC bound after it; errata E8 and E9 of book chapter 00.
The two lemmas inside the proof of Theorem 5.32 are exposed on their own:
:func:`expected_gap_bound` (Lemma C.21) and :func:`bounded_differences` (Lemma C.22), and
:func:`stability_gap_monte_carlo` measures the expectation of Lemma C.21 by simulation.

Erratum E8 (eq. 5.20): the clipped loss is printed with "0 if yt > 1"; it must be 0 for
``yt > tau`` (the middle piece ``1 - yt/tau`` already reaches 0 at ``yt = tau``; Fig. 5.2
draws it so). :func:`clipped_loss` implements the corrected, continuous version.

Erratum E9 (Theorem 5.31): the book defines ``kappa = sup_x k(x, x)`` and then writes
``kappa^2`` in ``beta_m <= C_l^2 kappa^2 / (2 lambda m)``. The proof (App. C.9.1, with the
reproducing property ``|f(x)| <= ||f|| sqrt(k(x, x))``; C.17 prints ``||f|| k(x, x)``)
gives ``beta_m <= C_l^2 sup_x k(x, x) / (2 lambda m)``, i.e. ``kappa^2`` is the supremum of
``k(x, x)`` and ``kappa`` the radius of the data in feature space. Every function here
takes that supremum as ``sup_k`` (``kappa^2``). For normalised and RBF kernels ``sup_k = 1``
and both readings agree; the test ``test_e9_sup_k_not_squared`` shows that the printed
reading is violated when ``sup_k < 1``.

Theorem 5.31 fixes ``m``: the sample with example ``i`` removed is trained with the same
factor ``1/m`` in eq. (5.19). An SVM written as ``1/2 ||w||^2 + C sum xi_i`` has
``C = 1/(2 lambda m)`` (LKC eq. 2.48), so refitting a clone with the same ``C`` on
``m - 1`` examples is exactly that convention (:func:`empirical_stability`).

Return convention of :mod:`kernelclf.bounds`: raw right-hand sides, never clipped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from ..kernels.gram import cross_gram
from ._validation import (
    as_float,
    broadcast,
    check_delta,
    check_m,
    check_nonnegative,
    check_positive,
    result,
)

__all__ = [
    "clipped_loss",
    "clipped_empirical_risk",
    "hinge_loss",
    "epsilon_insensitive_loss",
    "regularized_beta",
    "replace_one_stability",
    "stability_bound",
    "stability_bound_loo",
    "expected_gap_bound",
    "bounded_differences",
    "GapMonteCarlo",
    "stability_gap_monte_carlo",
    "eta_stability_bound",
    "minimal_lambda",
    "svr_stability_bound",
    "classification_stability_bound",
    "soft_svc_stability_bound",
    "StabilityMeasurement",
    "empirical_stability",
    "rkhs_distance",
]


# ---------------------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------------------
def clipped_loss(f, y, tau=1.0):
    """Clipped linear soft-margin loss ``l_tau``, LKC eq. (5.20) with erratum E8.

    ``l_tau(t, y) = 0`` if ``yt > tau``, ``1 - yt/tau`` if ``0 <= yt <= tau``, ``1`` if
    ``yt < 0``: a ``1/tau``-Lipschitz upper bound on ``I[y f(x) <= 0]`` with values in
    ``[0, 1]`` (Figure 5.2). The printed first case ``yt > 1`` is wrong for ``tau != 1``.
    """
    f = as_float(f, "f")
    y = as_float(y, "y")
    tau = check_positive(tau, "tau")
    f, y, tau = broadcast(f, y, tau)
    return result(np.clip(1.0 - y * f / tau, 0.0, 1.0))


def clipped_empirical_risk(f, y, tau=1.0):
    """``R^tau_emp = (1/m) sum_i l_tau(f(x_i), y_i)`` (the quantity in Theorem 5.34)."""
    return float(np.mean(clipped_loss(f, y, tau)))


def hinge_loss(f, y):
    """Linear soft-margin loss ``max(1 - yt, 0)`` (eq. 2.47), Lipschitz constant 1 (Ex. 5.29)."""
    f, y = broadcast(as_float(f, "f"), as_float(y, "y"))
    return result(np.maximum(1.0 - y * f, 0.0))


def epsilon_insensitive_loss(f, t, epsilon=0.1):
    """``max(|t - f| - epsilon, 0)`` (eq. 2.51), Lipschitz constant 1 (Example 5.30)."""
    f, t = broadcast(as_float(f, "f"), as_float(t, "t"))
    eps = check_nonnegative(epsilon, "epsilon")
    return result(np.maximum(np.abs(t - f) - eps, 0.0))


# ---------------------------------------------------------------------------------------
# beta_m and the bounds
# ---------------------------------------------------------------------------------------
def regularized_beta(m, lam, C_l=1.0, sup_k=1.0):
    """Uniform stability of regularised risk minimisers, LKC Theorem 5.31 (erratum E9).

    ``beta_m <= C_l^2 sup_x k(x, x) / (2 lambda m)`` for eq. (5.19) with a convex loss of
    Lipschitz constant ``C_l``. ``sup_k`` is the supremum of ``k(x, x)`` (the book's
    ``kappa^2``; see the module docstring).
    """
    m = check_m(m)
    lam = check_positive(lam, "lam")
    C_l = check_positive(C_l, "C_l")
    sup_k = check_positive(sup_k, "sup_k")
    m, lam, C_l, sup_k = broadcast(m, lam, C_l, sup_k)
    return result(C_l**2 * sup_k / (2.0 * lam * m))


def replace_one_stability(beta):
    """Theorem 5.27: a ``beta_m``-stable algorithm changes any loss by at most ``2 beta_m``
    when one training example is replaced."""
    return result(2.0 * check_nonnegative(beta, "beta", allow_inf=True))


def _mcdiarmid_eps(c_times_m, m, delta):
    """``eps`` with ``exp(-m eps^2 / (2 c^2)) = delta``: ``c sqrt(2 ln(1/delta) / m)``."""
    return c_times_m * np.sqrt(2.0 * np.log(1.0 / delta) / m)


def stability_bound(remp, m, beta, delta, b=1.0):
    """Training-error form of LKC Theorem 5.32, solved for the risk.

    With probability at least ``1 - delta``, for a ``beta_m``-stable algorithm whose loss
    lies in ``[0, b]``: ``R <= R_emp + 2 beta_m + (4 m beta_m + b) sqrt(2 ln(1/delta)/m)``.
    """
    remp = as_float(remp, "remp")
    m = check_m(m)
    beta = check_nonnegative(beta, "beta")
    delta = check_delta(delta)
    b = check_positive(b, "b")
    remp, m, beta, delta, b = broadcast(remp, m, beta, delta, b)
    mf = m.astype(float)
    return result(remp + 2.0 * beta + _mcdiarmid_eps(4.0 * mf * beta + b, mf, delta))


def stability_bound_loo(rloo, m, beta, beta_prev, delta, b=1.0):
    """Leave-one-out form of LKC Theorem 5.32, solved for the risk.

    ``R <= R_loo + beta_m + (2 m (beta_m + beta_{m-1}) + b) sqrt(2 ln(1/delta)/m)``.
    """
    rloo = as_float(rloo, "rloo")
    m = check_m(m, minimum=2)
    beta = check_nonnegative(beta, "beta")
    beta_prev = check_nonnegative(beta_prev, "beta_prev")
    delta = check_delta(delta)
    b = check_positive(b, "b")
    rloo, m, beta, beta_prev, delta, b = broadcast(rloo, m, beta, beta_prev, delta, b)
    mf = m.astype(float)
    return result(rloo + beta + _mcdiarmid_eps(2.0 * mf * (beta + beta_prev) + b, mf, delta))


def expected_gap_bound(beta, loo=False):
    """LKC Lemma C.21: the expected gap between risk and training (or leave-one-out) error.

    For a ``beta_m``-stable algorithm ``E[R[f_Z] - R_emp[f_Z, Z]] <= 2 beta_m`` and
    ``E[R[f_Z] - R_loo[A, Z]] <= beta_m`` (``loo=True``); the expectation is over the
    training sample. These are the centring terms of the two bounds of Theorem 5.32.
    """
    beta = check_nonnegative(beta, "beta", allow_inf=True)
    return result(beta if loo else 2.0 * beta)


def bounded_differences(m, beta, beta_prev=None, b=1.0):
    """LKC Lemma C.22: how much one replaced example can move risk and error estimates.

    For a ``beta_m``-stable algorithm with a loss in ``[0, b]``, replacing one of the ``m``
    examples changes the risk by at most ``2 beta_m``, the training error by at most
    ``2 beta_m + b/m`` and the leave-one-out error by at most ``2 beta_{m-1} + b/m``
    (``beta_prev``; ``beta_m`` when not given). Returns ``(c_risk, c_emp, c_loo)``;
    McDiarmid's inequality with ``c = c_risk + c_emp`` (or ``c_risk + c_loo``) gives the
    deviation terms of Theorem 5.32 (:func:`stability_bound`, :func:`stability_bound_loo`).
    """
    m = check_m(m)
    beta = check_nonnegative(beta, "beta")
    beta_prev = beta if beta_prev is None else check_nonnegative(beta_prev, "beta_prev")
    b = check_positive(b, "b")
    m, beta, beta_prev, b = broadcast(m, beta, beta_prev, b)
    mf = m.astype(float)
    return result(2.0 * beta), result(2.0 * beta + b / mf), result(2.0 * beta_prev + b / mf)


def eta_stability_bound(remp, m, eta, delta, b=1.0):
    """The form after Theorem 5.32 for ``beta_m <= eta / m``:
    ``R <= R_emp + 2 eta/m + sqrt(2 (4 eta + b)^2 ln(1/delta) / m)``."""
    m = check_m(m)
    eta = check_nonnegative(eta, "eta")
    return stability_bound(remp, m, eta / m, delta, b)


def minimal_lambda(m, b=1.0, C_l=1.0, sup_k=1.0):
    """Smallest useful regularisation, after Theorem 5.32: ``lambda >= C_l^2 sup_k / (b m)``.

    With ``beta_m = C_l^2 sup_k / (2 lambda m)`` a smaller ``lambda`` makes ``4 m beta_m > 2 b m``,
    so the deviation term of :func:`stability_bound` exceeds ``2 b sqrt(2 m ln(1/delta))``,
    far above the trivial value ``b``.
    """
    m = check_m(m)
    b = check_positive(b, "b")
    C_l = check_positive(C_l, "C_l")
    sup_k = check_positive(sup_k, "sup_k")
    m, b, C_l, sup_k = broadcast(m, b, C_l, sup_k)
    return result(C_l**2 * sup_k / (b * m))


def svr_stability_bound(slack_sum, m, lam, delta, b, sup_k=1.0):
    """Support vector regression, LKC Example 5.33 (erratum E9 for ``kappa^2``).

    ``R <= (1/m)(xi'1 + sup_k/lambda) + sqrt(2 (2 sup_k/lambda + b)^2 ln(1/delta) / m)``,
    the risk being the expected epsilon-insensitive loss (bounded by ``b``).
    """
    slack_sum = check_nonnegative(slack_sum, "slack_sum")
    m = check_m(m)
    beta = regularized_beta(m, lam, 1.0, sup_k)
    return stability_bound(slack_sum / m, m, beta, delta, b)


def classification_stability_bound(remp_tau, m, lam, delta, tau=1.0, sup_k=1.0,
                                   loss_lipschitz=None):
    """Algorithmic stability for classification, LKC Theorem 5.34 (E8, E9).

    With probability at least ``1 - delta``

    ``R[sign f] <= R^tau_emp + sup_k/(lambda m tau^2)
    + sqrt(2 (2 sup_k/(lambda tau^2) + 1)^2 ln(1/delta) / m)``,

    Theorem 5.32 with ``b = 1`` for the clipped loss (eq. 5.20, Lipschitz ``1/tau``) and
    ``beta_m = C_l^2 sup_k / (2 lambda m)`` with ``C_l = 1/tau``, the book's choice. If the
    algorithm minimises a loss of another Lipschitz constant ``loss_lipschitz`` (e.g. the
    hinge loss, 1, for the ordinary SVM), its outputs move by at most
    ``loss_lipschitz sup_k / (2 lambda m)`` (App. C.9.1), and ``l_tau`` by ``1/tau`` times
    that, which is the ``beta_m`` used then.
    """
    remp_tau = check_nonnegative(remp_tau, "remp_tau")
    tau = check_positive(tau, "tau")
    m = check_m(m)
    c_train = 1.0 / tau if loss_lipschitz is None else check_positive(loss_lipschitz,
                                                                      "loss_lipschitz")
    output_change = regularized_beta(m, lam, np.sqrt(c_train), sup_k)   # c_train sup_k/(2 lam m)
    beta = output_change / tau
    return stability_bound(remp_tau, m, beta, delta, 1.0)


def soft_svc_stability_bound(slack_sum, m, lam, delta, printed=False):
    """The soft-margin SVC bound after Theorem 5.34 (``sup_k = tau = 1``, eq. 2.47).

    ``printed=False``: Theorem 5.34 with ``tau = sup_k = 1`` and ``R^1_emp <= xi'1 / m``:
    ``(1/m)(xi'1 + 1/lambda) + sqrt(2) (2/lambda + 1) sqrt(ln(1/delta)/m)``.

    ``printed=True``: the formula as printed on LKC p. 193,
    ``(1/m)(xi'1 + 1/lambda) + 2 sqrt((1 + lambda)^2 ln(1/delta) / (lambda^2 m))``, whose
    deviation term ``2 (1 + lambda)/lambda`` is *smaller* than Theorem 5.34's
    ``sqrt(2)(2 + lambda)/lambda`` for ``lambda < sqrt(2)`` (errata candidate: the
    specialisation does not follow from the theorem; see chapter 17).
    """
    slack_sum = check_nonnegative(slack_sum, "slack_sum")
    m = check_m(m)
    lam = check_positive(lam, "lam")
    delta = check_delta(delta)
    slack_sum, m, lam, delta = broadcast(slack_sum, m, lam, delta)
    mf = m.astype(float)
    head = (slack_sum + 1.0 / lam) / mf
    if printed:
        return result(head + 2.0 * np.sqrt((1.0 + lam) ** 2 * np.log(1.0 / delta) / (lam**2 * mf)))
    return result(head + np.sqrt(2.0 * (2.0 / lam + 1.0) ** 2 * np.log(1.0 / delta) / mf))


# ---------------------------------------------------------------------------------------
# empirical stability
# ---------------------------------------------------------------------------------------
def rkhs_distance(est_a, est_b):
    """``||f_a - f_b||`` in the RKHS of two fitted kernel expansions (same kernel).

    Uses ``alpha_``, ``X_fit_`` and ``kernel_`` (``f = sum_i alpha_i k(x_i, .)``); the
    intercepts are not part of the RKHS norm and must be zero for the Theorem 5.31 setting.
    Primal linear models with ``coef_`` use ``||w_a - w_b||``.
    """
    if hasattr(est_a, "coef_") and not hasattr(est_a, "alpha_"):
        return float(np.linalg.norm(np.ravel(est_a.coef_) - np.ravel(est_b.coef_)))
    ka = est_a.kernel_
    Xa, Xb = est_a.X_fit_, est_b.X_fit_
    aa, ab = np.ravel(est_a.alpha_), np.ravel(est_b.alpha_)
    q = (aa @ cross_gram(ka, Xa, Xa) @ aa - 2.0 * aa @ cross_gram(ka, Xa, Xb) @ ab
         + ab @ cross_gram(ka, Xb, Xb) @ ab)
    return float(np.sqrt(max(q, 0.0)))


@dataclass
class StabilityMeasurement:
    """Result of :func:`empirical_stability`.

    Attributes
    ----------
    beta : float
        ``max_i max_(x,t) |l(f_z(x), t) - l(f_z'(x), t)|`` over the evaluation points.
    output_change : float
        ``max_i max_x |f_z(x) - f_z'(x)|`` over the evaluation points.
    rkhs_change : float
        ``max_i ||f_z - f_z'||`` (nan if the estimator is not a kernel expansion); times
        ``sqrt(sup_k)`` it bounds the output change at *every* ``x``.
    per_index : ndarray
        The loss change for each perturbed index.
    indices : ndarray of int
        The perturbed indices.
    """

    beta: float
    output_change: float
    rkhs_change: float
    per_index: np.ndarray
    indices: np.ndarray


def empirical_stability(estimator, X, y, X_eval, y_eval, loss=hinge_loss, mode="remove",
                        indices=None, X_new=None, y_new=None):
    """Measure uniform stability (Definition 5.26) or replace-one stability (Theorem 5.27).

    Fits a clone of ``estimator`` on ``(X, y)`` and, for each ``i`` in ``indices`` (all by
    default), on the sample with example ``i`` removed (``mode="remove"``) or replaced by
    ``(X_new[k], y_new[k])`` for the ``k``-th perturbed index (``mode="replace"``). The
    estimator's hyper-parameters are kept, so an SVM with ``C = 1/(2 lambda m)`` is refitted
    with the ``m`` of the full sample, the convention of Theorem 5.31.

    Parameters
    ----------
    estimator : unfitted classifier or regressor with ``decision_function`` or ``predict``
    X, y : training sample
    X_eval, y_eval : test pairs ``(x, t)`` at which the losses are compared
    loss : callable ``loss(f, t)``
    mode : {"remove", "replace"}
    indices : sequence of int, optional
    X_new, y_new : replacement examples (one per perturbed index) for ``mode="replace"``

    Returns
    -------
    StabilityMeasurement
    """
    if mode not in ("remove", "replace"):
        raise ValueError(f"mode must be 'remove' or 'replace', got {mode!r}")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    m = len(y)
    if X.ndim != 2 or X.shape[0] != m or m < 2:
        raise ValueError(f"need a 2-D X with one row per label and m >= 2, got {X.shape}")
    idx = np.arange(m) if indices is None else np.asarray(indices, dtype=int).ravel()
    if idx.size == 0 or idx.min() < 0 or idx.max() >= m:
        raise ValueError(f"indices must be a non-empty subset of 0..{m - 1}")
    if mode == "replace":
        if X_new is None or y_new is None:
            raise ValueError("mode='replace' needs X_new and y_new (one example per index)")
        X_new = np.asarray(X_new, dtype=float)
        y_new = np.asarray(y_new)
        if X_new.shape != (idx.size, X.shape[1]) or y_new.shape != (idx.size,):
            raise ValueError(f"X_new must have shape ({idx.size}, {X.shape[1]}) and y_new "
                             f"({idx.size},), got {X_new.shape} and {y_new.shape}")

    def out(est, A):
        return est.decision_function(A) if hasattr(est, "decision_function") else est.predict(A)

    base = clone(estimator).fit(X, y)
    f0 = out(base, X_eval)
    l0 = loss(f0, y_eval)
    per, outs, norms = [], [], []
    for k, i in enumerate(idx):
        if mode == "remove":
            keep = np.arange(m) != i
            Xi, yi = X[keep], y[keep]
        else:
            Xi, yi = X.copy(), y.copy()
            Xi[i], yi[i] = X_new[k], y_new[k]
        est = clone(estimator).fit(Xi, yi)
        fi = out(est, X_eval)
        per.append(float(np.max(np.abs(loss(fi, y_eval) - l0))))
        outs.append(float(np.max(np.abs(fi - f0))))
        try:
            norms.append(rkhs_distance(base, est))
        except AttributeError:
            norms.append(np.nan)
    per = np.asarray(per)
    return StabilityMeasurement(beta=float(per.max()), output_change=float(max(outs)),
                                rkhs_change=float(np.max(norms)), per_index=per, indices=idx)


@dataclass
class GapMonteCarlo:
    """Result of :func:`stability_gap_monte_carlo` (one entry per simulated sample).

    Attributes
    ----------
    gap : (n_runs,) ``R[f_z] - R_emp[f_z, z]`` (risk estimated on the test pairs)
    gap_loo : (n_runs,) ``R[f_z] - R_loo[A, z]``
    beta_measured : (n_runs,) measured remove-one stability on the test pairs (as
        :func:`empirical_stability`)
    loo_loss : (n_runs,) the leave-one-out error ``R_loo`` itself
    """

    gap: np.ndarray
    gap_loo: np.ndarray
    beta_measured: np.ndarray
    loo_loss: np.ndarray


def stability_gap_monte_carlo(estimator, draw, m, n_runs, X_test, y_test, loss=hinge_loss,
                              random_state=None):
    """Simulate the expectations of LKC Lemma C.21 for a learning algorithm.

    For each of ``n_runs`` samples ``z = draw(m, rng)`` it fits ``estimator`` on ``z`` and
    on every ``z`` with one example removed (the same ``m + 1`` fits as
    :func:`empirical_stability`), and returns the gap between the risk (mean loss on
    ``(X_test, y_test)``, a large sample of the same distribution) and the training error,
    the gap to the leave-one-out error, and the measured stability. The means of ``gap``
    and ``gap_loo`` estimate the left-hand sides of Lemma C.21.

    Parameters
    ----------
    estimator : unfitted estimator with ``decision_function`` (or ``predict``)
    draw : callable ``draw(m, rng) -> (X, y)``
    m, n_runs : int
    X_test, y_test : test pairs
    loss : callable ``loss(f, t)``
    random_state : None, int or numpy Generator
    """
    m = int(check_m(m, minimum=2))
    n_runs = int(check_m(n_runs, "n_runs"))
    rng = random_state if isinstance(random_state, np.random.Generator) \
        else np.random.default_rng(random_state)
    X_test = np.asarray(X_test, dtype=float)
    y_test = np.asarray(y_test)

    def out(est, A):
        return est.decision_function(A) if hasattr(est, "decision_function") else est.predict(A)

    gap, gap_loo, betas, loos = [], [], [], []
    for _ in range(n_runs):
        X, y = draw(m, rng)
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        base = clone(estimator).fit(X, y)
        l0 = loss(out(base, X_test), y_test)
        risk = float(np.mean(l0))
        emp = float(np.mean(loss(out(base, X), y)))
        loo, beta = [], 0.0
        for i in range(m):
            keep = np.arange(m) != i
            est = clone(estimator).fit(X[keep], y[keep])
            loo.append(float(loss(out(est, X[i:i + 1]), y[i:i + 1])[0]))
            beta = max(beta, float(np.max(np.abs(loss(out(est, X_test), y_test) - l0))))
        r_loo = float(np.mean(loo))
        gap.append(risk - emp)
        gap_loo.append(risk - r_loo)
        betas.append(beta)
        loos.append(r_loo)
    return GapMonteCarlo(gap=np.asarray(gap), gap_loo=np.asarray(gap_loo),
                         beta_measured=np.asarray(betas), loo_loss=np.asarray(loos))
