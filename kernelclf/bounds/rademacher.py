"""Rademacher complexities and the margin bounds of the SVM, Sigma-SVM and RMM.

Book chapter 17 (``book/17_compression_stability_rademacher.md``); Shivaswamy & Jebara
(2010), "Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §4:
Definitions 3-5 and 7 (function classes ``F_E``, ``H^S_{E,D}``, ``H^V_{E,D}``,
``G^U_{B,D}``), Definition 8 (empirical Rademacher complexity), Theorems 9-11 (``T_0``,
``T_2``, ``T_1``), Lemma 12, Theorems 13-14 (eq. 19-21), Theorem 18 (eq. 29-31), eq. (32)-(33)
(whitened margin), Table 1 and Figure 2; App. C (the landmark count ``n_v``); erratum E20.

Notation of the paper: ``n`` examples ``S = {x_1..x_n}``, ``E`` the norm budget
(``1/2 w'w <= E``), ``D in (0, 1)`` and ``Dbar = 1 - D``, landmark sets ``U`` and ``V``.
The bias is suppressed throughout (RMM footnote 4): ``g(x) = w'x``. The empirical
Rademacher complexity carries the paper's factor 2 and absolute value,
``R_hat(F) = E_sigma sup_f |(2/n) sum_i sigma_i f(x_i)|``.

Kernels: every function takes explicit inputs and an optional ``kernel``. With a kernel,
all sets are mapped by the empirical kernel map of their union (coordinates from an
eigendecomposition of the joint Gram matrix). Every quantity here (norms, ``x' A^{-1} x``
for ``A = a I + sum_j c_j u_j u_j'``) only involves vectors of that span, on whose
orthogonal complement ``A`` acts as ``a I``, so the coordinates give exact values.

For the three classes the supremum over the class has a closed form per ``sigma``:
``F_E``: ``sqrt(2E) ||s||`` with ``s = sum_i sigma_i x_i`` (Cauchy-Schwarz, proof of
Theorem 9); ``G^U_{B,D}``: ``sqrt(2B s' Sigma_U^{-1} s)`` with
``Sigma_U = Dbar I + (D/|U|) sum_u u u'``; ``H^V_{E,D}``: the dual of problem (16),
``min_lambda 1/2 s' Sigma_lambda^{-1} s + E sum lambda`` with
``Sigma_lambda = Dbar sum(lambda) I + D sum_j lambda_j v_j v_j'``.
:func:`empirical_rademacher` averages these over random ``sigma``;
:func:`empirical_rademacher_exact` enumerates all ``2^n`` sign vectors for ``F_E``.

Theorem 18's RMM and Sigma-SVM bounds contain terms only given as ``O(1/sqrt(n_v tr K))``
and ``O(1/sqrt(n tr K))`` and an expectation over the landmarks; :func:`rmm_margin_bound`
and :func:`sigma_svm_margin_bound` evaluate the data-dependent parts with the training
sample as landmark set (what §4.7 and Table 1 do) and leave the ``O`` terms out: they are
the "quantities of interest" of §4.7 plus the slack and confidence terms, not certified
bounds. Theorem 15's term is explicit in its proof (eq. 22): :func:`rmm_concentration_term`
evaluates it with the corrected Lemma 19 constant of :func:`rmm_lipschitz_constant`.

App. C (``n_v``, erratum E20 ``D -> Dbar``): :func:`landmark_count` returns the exact root
and the simplified upper bound. The exact root tends to ``1/(4 b^2)`` (below 1 for every
``delta < 1``) as ``n`` grows, while the simplified bound grows like ``sqrt(n)``; only the
latter matches the ``n_v = O(sqrt(n))`` of Theorem 17 (errata candidate, chapter 17).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from sklearn.utils.validation import check_random_state

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
    "feature_map",
    "rademacher_T0",
    "rademacher_T1",
    "rademacher_T2",
    "T2Result",
    "sup_F",
    "sup_G",
    "sup_H",
    "RademacherEstimate",
    "empirical_rademacher",
    "empirical_rademacher_exact",
    "rademacher_transfer",
    "rademacher_risk_bound",
    "margin_bound",
    "svm_margin_bound",
    "sigma_svm_margin_bound",
    "rmm_margin_bound",
    "margin_slacks",
    "svm_class_margin",
    "whitened_margin",
    "rmm_class_margin",
    "landmark_count",
    "rmm_lipschitz_constant",
    "rmm_concentration_term",
]


# ---------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------
def _check_matrix(A, name):
    A = as_float(A, name)
    if A.ndim != 2 or A.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name} must be finite")
    return A


def _check_D(D, allow_zero=True):
    D = float(D)
    lo_ok = D >= 0 if allow_zero else D > 0
    if not (lo_ok and D < 1):
        raise ValueError(f"D must lie in [0, 1) (Dbar = 1 - D > 0), got {D!r}")
    return D


def feature_map(kernel, *sets):
    """Coordinates of every set in the span of their union (empirical kernel map).

    With ``kernel=None`` the sets are returned unchanged (linear kernel on the inputs).
    Otherwise the Gram matrix ``K`` of the stacked sets is factorised as ``K = Z Z'``
    (eigendecomposition, eigenvalues below ``1e-12 max`` dropped) and the rows of ``Z``
    are returned, split like the input sets.
    """
    if kernel is None:
        out = tuple(_check_matrix(S, "X") for S in sets)
        if len({S.shape[1] for S in out}) > 1:
            raise ValueError("the sample and the landmarks must have the same number of features, "
                             f"got {[S.shape[1] for S in out]}")
        return out
    from ..kernels.vector import as_kernel

    k = as_kernel(kernel)
    A = np.vstack([np.asarray(S, dtype=float) for S in sets])
    K = cross_gram(k, A, A)
    K = 0.5 * (K + K.T)
    ev, Q = np.linalg.eigh(K)
    keep = ev > 1e-12 * max(ev.max(), 1e-300)
    Z = Q[:, keep] * np.sqrt(ev[keep])
    out, start = [], 0
    for S in sets:
        out.append(Z[start:start + len(S)])
        start += len(S)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# T0, T1, T2
# ---------------------------------------------------------------------------------------
def rademacher_T0(E, trace_K, n):
    """RMM Theorem 9: ``R_hat(F_E) <= T_0 = (2 sqrt(2E)/n) sqrt(tr K)``."""
    E = check_positive(E, "E")
    trace_K = check_nonnegative(trace_K, "trace_K")
    n = check_m(n, "n")
    E, trace_K, n = broadcast(E, trace_K, n)
    return result(2.0 * np.sqrt(2.0 * E) / n * np.sqrt(trace_K))


def _sigma_U(U, D):
    d = U.shape[1]
    return (1.0 - D) * np.eye(d) + (D / len(U)) * (U.T @ U)


def rademacher_T1(X, U, B, D, kernel=None):
    """RMM Theorem 11: ``T_1(U, S) = (2 sqrt(2B)/|S|) (sum_x x'(Dbar I + (D/|U|) sum_u uu')^{-1} x)^{1/2}``.

    Bounds ``R_hat(G^U_{B,D})``; equals ``T_0`` (with ``E = B``) at ``D = 0``.
    """
    B = float(check_positive(B, "B"))
    D = _check_D(D)
    X, U = feature_map(kernel, X, U)
    Sig = _sigma_U(U, D)
    q = np.sum(X * np.linalg.solve(Sig, X.T).T)
    return float(2.0 * np.sqrt(2.0 * B) / len(X) * np.sqrt(q))


@dataclass
class T2Result:
    """Value and minimiser of the convex problem of RMM Theorem 10."""

    value: float
    lam: np.ndarray
    success: bool


def _t2_minimise(Y, V, D, weight, c, lam0=None):
    """min_{lambda >= 0} weight * sum_y y' Sigma_lambda^{-1} y + c * sum(lambda).

    ``Sigma_lambda = Dbar sum(lambda) I + D sum_j lambda_j v_j v_j'``. Convex (a matrix
    fractional function of an affine matrix); solved with L-BFGS-B and the exact gradient
    ``-weight (Dbar ||Sigma^{-1} Y'||_F^2 + D ||V Sigma^{-1} Y'||^2_rows) + c``.
    """
    Dbar = 1.0 - D
    nv, d = V.shape
    qY = float(np.sum(Y * Y))
    # D = 0 optimum (Sigma = L I): L = sqrt(weight qY / c), a good start in general
    L0 = np.sqrt(max(weight * qY, 1e-300) / c)
    x0 = np.full(nv, L0 / nv) if lam0 is None else np.maximum(np.asarray(lam0, float), 0.0)
    tiny = 1e-300

    def fg(lam):
        lam = np.maximum(lam, 0.0)
        L = lam.sum()
        if L <= tiny:
            return 1e300, -np.ones(nv)
        Sig = Dbar * L * np.eye(d) + D * (V.T * lam) @ V
        try:
            cho = np.linalg.cholesky(Sig)
        except np.linalg.LinAlgError:
            return 1e300, -np.ones(nv)
        M = np.linalg.solve(cho.T, np.linalg.solve(cho, Y.T))        # Sigma^{-1} Y'
        val = weight * float(np.sum(Y.T * M)) + c * L
        grad = -weight * (Dbar * float(np.sum(M * M)) + D * np.sum((V @ M) ** 2, axis=1)) + c
        return val, grad

    res = minimize(fg, x0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * nv,
                   options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-12})
    val, _ = fg(res.x)
    return T2Result(value=float(val), lam=np.maximum(res.x, 0.0), success=bool(res.success))


def rademacher_T2(X, V, E, D, kernel=None, return_result=False):
    """RMM Theorem 10: ``R_hat(H^V_{E,D}) <= T_2(V, S)``,

    ``T_2 = min_{lambda >= 0} (1/n) sum_x x' Sigma_lambda^{-1} x + (2E/n) sum lambda`` with
    ``Sigma_lambda = Dbar sum(lambda) I + D sum_j lambda_j v_j v_j'``. The paper solves it as
    an SDP (Schur complement); it is a smooth convex problem in ``n_v`` variables and is
    solved here by L-BFGS-B with the exact gradient (the tests compare with cvxopt's SDP
    solver). At ``D = 0`` it equals ``T_0``.
    """
    E = float(check_positive(E, "E"))
    D = _check_D(D)
    X, V = feature_map(kernel, X, V)
    n = len(X)
    res = _t2_minimise(X, V, D, 1.0 / n, 2.0 * E / n)
    return res if return_result else res.value


# ---------------------------------------------------------------------------------------
# per-sigma suprema and Monte Carlo
# ---------------------------------------------------------------------------------------
def sup_F(s, E):
    """``sup_{1/2 w'w <= E} |w's| = sqrt(2E) ||s||`` (rows of ``s`` are sign-weighted sums)."""
    s = np.atleast_2d(np.asarray(s, dtype=float))
    return np.sqrt(2.0 * E) * np.linalg.norm(s, axis=1)


def sup_G(s, U, B, D):
    """``sup |w's|`` over ``G^U_{B,D}`` (Definition 7): ``sqrt(2B s' Sigma_U^{-1} s)``."""
    s = np.atleast_2d(np.asarray(s, dtype=float))
    Sig = _sigma_U(np.asarray(U, dtype=float), D)
    return np.sqrt(2.0 * B * np.sum(s * np.linalg.solve(Sig, s.T).T, axis=1))


def sup_H(s, V, E, D, return_w=False):
    """``sup |w's|`` over ``H^V_{E,D}`` (Definition 5) through the dual of problem (16).

    ``min_lambda 1/2 s' Sigma_lambda^{-1} s + E sum lambda``; with ``return_w`` also the
    primal maximiser ``w = Sigma_lambda^{-1} s`` (a certificate: it is feasible and
    ``w's`` equals the dual value at the optimum).
    """
    s = np.atleast_2d(np.asarray(s, dtype=float))
    V = np.asarray(V, dtype=float)
    vals, ws = [], []
    for row in s:
        r = _t2_minimise(row[None, :], V, D, 0.5, E)
        vals.append(r.value)
        if return_w:
            L = r.lam.sum()
            Sig = (1 - D) * L * np.eye(V.shape[1]) + D * (V.T * r.lam) @ V
            ws.append(np.linalg.solve(Sig, row))
    vals = np.asarray(vals)
    return (vals, np.asarray(ws)) if return_w else vals


@dataclass
class RademacherEstimate:
    """Monte-Carlo estimate of an empirical Rademacher complexity.

    Attributes
    ----------
    value : float
        Mean of the per-draw suprema (times ``2/n``).
    stderr : float
        Standard error of the mean.
    draws : ndarray
        The per-draw values, in order (cumulative means show the convergence).
    """

    value: float
    stderr: float
    draws: np.ndarray


def _signs(n, n_draws, random_state):
    rng = check_random_state(random_state)
    return rng.choice([-1.0, 1.0], size=(n_draws, n))


def empirical_rademacher(X, E, cls="F", landmarks=None, D=0.0, n_draws=200, random_state=None,
                         kernel=None):
    """Monte-Carlo estimate of ``R_hat`` (RMM Definition 8) for ``F_E``, ``G^U`` or ``H^V``.

    Parameters
    ----------
    X : (n, d) sample ``S``
    E : float > 0
        ``E`` of ``F_E`` / ``H^V_{E,D}``, or ``B`` of ``G^U_{B,D}``.
    cls : {"F", "G", "H"}
    landmarks : (k, d) array, the ``U`` of ``G`` or ``V`` of ``H`` (required for those)
    D : float in [0, 1)
    n_draws : int
    random_state : int, RandomState or None
    kernel : optional kernel (see the module docstring)

    Returns
    -------
    RademacherEstimate
    """
    E = float(check_positive(E, "E"))
    if cls not in ("F", "G", "H"):
        raise ValueError(f"cls must be 'F', 'G' or 'H', got {cls!r}")
    n_draws = int(check_m(n_draws, "n_draws"))
    D = _check_D(D)
    if cls != "F" and landmarks is None:
        raise ValueError(f"class {cls!r} needs a landmark set")
    if cls == "F":
        (X,) = feature_map(kernel, X)
    else:
        X, L = feature_map(kernel, X, landmarks)
    n = len(X)
    s = _signs(n, n_draws, random_state) @ X
    if cls == "F":
        sup = sup_F(s, E)
    elif cls == "G":
        sup = sup_G(s, L, E, D)
    else:
        sup = sup_H(s, L, E, D)
    draws = 2.0 / n * sup
    se = float(draws.std(ddof=1) / np.sqrt(n_draws)) if n_draws > 1 else np.inf
    return RademacherEstimate(value=float(draws.mean()), stderr=se, draws=draws)


def empirical_rademacher_exact(X, E, kernel=None, max_n=20):
    """``R_hat(F_E)`` by enumerating all ``2^n`` sign vectors (``n <= max_n``)."""
    E = float(check_positive(E, "E"))
    (X,) = feature_map(kernel, X)
    n = len(X)
    if n > max_n:
        raise ValueError(f"exact enumeration needs n <= {max_n}, got n = {n}")
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
    return float(np.mean(2.0 / n * sup_F(signs @ X, E)))


# ---------------------------------------------------------------------------------------
# from complexity to risk
# ---------------------------------------------------------------------------------------
def _conf(n, delta, k=2.0):
    return np.sqrt(np.log(k / delta) / (2.0 * n))


def rademacher_transfer(rhat, n, delta):
    """RMM Lemma 12 (eq. 17): ``R(F) <= R_hat(F) + 2 sqrt(ln(2/delta)/(2n))``."""
    rhat = check_nonnegative(rhat, "rhat")
    n = check_m(n, "n")
    delta = check_delta(delta)
    rhat, n, delta = broadcast(rhat, n, delta)
    return result(rhat + 2.0 * _conf(n, delta))


def rademacher_risk_bound(emp_mean, rhat, n, delta):
    """RMM Theorem 13 (eq. 19) for a class of ``[0, 1]``-valued functions:
    ``E f <= E_hat f + R_hat + 3 sqrt(ln(2/delta)/(2n))``."""
    emp_mean = check_nonnegative(emp_mean, "emp_mean")
    rhat = check_nonnegative(rhat, "rhat")
    n = check_m(n, "n")
    delta = check_delta(delta)
    emp_mean, rhat, n, delta = broadcast(emp_mean, rhat, n, delta)
    return result(emp_mean + rhat + 3.0 * _conf(n, delta))


def margin_slacks(g, y, gamma):
    """``xi_i = max(0, gamma - y_i g(x_i))`` (RMM Theorem 18; see :func:`margin_bound`)."""
    g, y = broadcast(as_float(g, "g"), as_float(y, "y"))
    return np.maximum(0.0, float(gamma) - y * g)


def margin_bound(slack_sum, gamma, rhat, n, delta, log_factor=2.0):
    """RMM Theorem 14 (eq. 21):
    ``P(y != sign g(x)) <= sum xi/(n gamma) + (2/gamma) R_hat + 3 sqrt(ln(2/delta)/(2n))``.

    The slacks are ``xi_i = max(0, gamma - y_i g(x_i))`` (:func:`margin_slacks`), as in
    Theorem 18 and Shawe-Taylor & Cristianini (2004, Thm 4.17); Theorem 14 prints
    ``max(0, 1 - y_i g(x_i))``, which does not scale with ``gamma`` (errata candidate).
    ``log_factor`` is the ``2`` of ``ln(2/delta)`` (Theorem 18 ii/iii use 8 after the union
    bound with Theorems 15-17).
    """
    slack_sum = check_nonnegative(slack_sum, "slack_sum")
    gamma = check_positive(gamma, "gamma")
    rhat = check_nonnegative(rhat, "rhat")
    n = check_m(n, "n")
    delta = check_delta(delta)
    slack_sum, gamma, rhat, n, delta = broadcast(slack_sum, gamma, rhat, n, delta)
    return result(slack_sum / (n * gamma) + 2.0 / gamma * rhat + 3.0 * _conf(n, delta, log_factor))


def svm_margin_bound(slack_sum, gamma, E, trace_K, n, delta):
    """RMM Theorem 18 i (eq. 29), the SVM bound for ``g in F_E``:
    ``sum xi/(gamma n) + 3 sqrt(ln(2/delta)/(2n)) + (4 sqrt(2E)/(n gamma)) sqrt(tr K)``."""
    return margin_bound(slack_sum, gamma, rademacher_T0(E, trace_K, n), n, delta)


def sigma_svm_margin_bound(slack_sum, gamma, B, X, D, delta, U=None, kernel=None):
    """RMM Theorem 18 iii (eq. 31) without its ``O(1/sqrt(n tr K))`` term, landmarks ``U = S``.

    ``sum xi/(n gamma) + 3 sqrt(ln(8/delta)/(2n)) + (2/gamma) T_1(U, S)``, where
    ``(2/gamma) T_1 = (4 sqrt(2B)/(n gamma)) (sum_x x'(Dbar I + (D/n) sum uu')^{-1} x)^{1/2}``.
    """
    n = len(X)
    t1 = rademacher_T1(X, X if U is None else U, B, D, kernel=kernel)
    return margin_bound(slack_sum, gamma, t1, n, delta, log_factor=8.0)


def rmm_margin_bound(slack_sum, gamma, E, X, D, delta, V=None, kernel=None):
    """RMM Theorem 18 ii (eq. 30) without its ``O(1/sqrt(n_v tr K))`` term, landmarks ``V = S``.

    ``sum xi/(n gamma) + 3 sqrt(ln(8/delta)/(2n)) + (2/gamma) T_2(V, S)``.
    """
    n = len(X)
    t2 = rademacher_T2(X, X if V is None else V, E, D, kernel=kernel)
    return margin_bound(slack_sum, gamma, t2, n, delta, log_factor=8.0)


# ---------------------------------------------------------------------------------------
# margins of the three classes (RMM §4.7)
# ---------------------------------------------------------------------------------------
def _hard_margin_w(X, y, B=None):
    """min 1/2 ||w||^2 s.t. y_i w'x_i >= 1 (and |w'x_j| <= B): the no-bias hard SVM/RMM."""
    from ..optim import solve_qp

    n, d = X.shape
    A = -(y[:, None] * X)
    b = -np.ones(n)
    if B is not None:
        A = np.vstack([A, X, -X])
        b = np.concatenate([b, np.full(2 * n, B)])
    sol = solve_qp(np.eye(d), np.zeros(d), A2=A, b2=b, tol=1e-10)
    return sol.x


def _check_labels(X, y):
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != X.shape[0] or not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must hold one label in {-1, +1} per row of X")
    return y


def svm_class_margin(X, y, E, kernel=None):
    """Largest ``gamma`` with ``y_i w'x_i >= gamma`` and ``1/2 w'w <= E`` (RMM §4.7):
    ``sqrt(2E)`` times the geometric margin of the hard-margin SVM without bias."""
    E = float(check_positive(E, "E"))
    (X,) = feature_map(kernel, X)
    y = _check_labels(X, y)
    w = _hard_margin_w(X, y)
    return float(np.sqrt(2.0 * E) / np.linalg.norm(w))


def whitened_margin(X, y, E, D, kernel=None):
    """``gamma_hat`` of eq. (32)-(33): the margin of class ``G^S_{E,D}``.

    ``max gamma`` s.t. ``y_i w'x_i >= gamma``, ``1/2 w' Sigma w <= E`` with
    ``Sigma = Dbar I + (D/n) sum_j x_j x_j'``; by ``u = Sigma^{1/2} w`` it is the SVM class
    margin on the whitened data ``Sigma^{-1/2} x``.
    """
    E = float(check_positive(E, "E"))
    D = _check_D(D)
    (X,) = feature_map(kernel, X)
    y = _check_labels(X, y)
    ev, Q = np.linalg.eigh(_sigma_U(X, D))
    Xw = X @ Q / np.sqrt(ev) @ Q.T
    return svm_class_margin(Xw, y, E)


def rmm_class_margin(X, y, E, D, kernel=None):
    """Margin of class ``H^S_{E,D}`` (Definition 4), the analogue of eq. (32) for the RMM.

    ``max gamma`` s.t. ``y_i w'x_i >= gamma`` and ``Dbar/2 w'w + D/2 (w'x_j)^2 <= E`` for all
    ``j``. Rescaling ``w`` shows ``gamma = sqrt(2E / t)`` with
    ``t = min_w max_j Dbar w'w + D (w'x_j)^2`` over ``y_i w'x_i >= 1``, and
    ``t = min_B Dbar ||w_B||^2 + D B^2`` where ``w_B`` is the hard-margin RMM without bias and
    output bound ``B`` (RMM eq. 8 with ``C = inf``); a convex 1-D search over ``B``.
    """
    E = float(check_positive(E, "E"))
    D = _check_D(D)
    (X,) = feature_map(kernel, X)
    y = _check_labels(X, y)
    w_svm = _hard_margin_w(X, y)
    B_max = float(np.max(np.abs(X @ w_svm)))
    if D == 0.0:
        return float(np.sqrt(2.0 * E) / np.linalg.norm(w_svm))
    from ..optim import solve_lp

    n, d = X.shape
    # smallest feasible B: min B s.t. y_i w'x_i >= 1, |w'x_j| <= B (an LP in (w, B))
    c = np.r_[np.zeros(d), 1.0]
    A = np.vstack([np.c_[-(y[:, None] * X), np.zeros(n)], np.c_[X, -np.ones(n)],
                   np.c_[-X, -np.ones(n)]])
    b = np.r_[-np.ones(n), np.zeros(2 * n)]
    lp = solve_lp(c, A2=A, b2=b, l=np.r_[np.full(d, -np.inf), 0.0])
    B_min = float(lp.x[-1])

    def t_of(B):
        w = _hard_margin_w(X, y, B)
        return (1.0 - D) * float(w @ w) + D * float(np.max((X @ w) ** 2))

    lo = B_min * (1 + 1e-7) + 1e-12
    if B_max <= lo:
        t = t_of(max(B_max, lo))
    else:
        res = minimize_scalar(t_of, bounds=(lo, B_max), method="bounded",
                              options={"xatol": 1e-9 * B_max})
        t = min(float(res.fun), t_of(B_max), t_of(lo))
    return float(np.sqrt(2.0 * E / t))


# ---------------------------------------------------------------------------------------
# App. C
# ---------------------------------------------------------------------------------------
def landmark_count(n, R, E, D, delta):
    """Number of landmarks ``n_v`` of RMM App. C (Theorem 17), with erratum E20.

    With ``c = 4 R sqrt(2E/Dbar)`` (E20: the paper prints ``D``) and
    ``b = (3/2) sqrt(ln(2/delta)/2)``, equating the right side of eq. (28) to ``1/n_v`` gives
    ``x^2 - 2bx = (c + 2b)/sqrt(n)`` for ``x = 1/sqrt(n_v)``.

    Returns
    -------
    exact : float or ndarray
        ``n_v = 1 / (b + sqrt(b^2 + (c + 2b)/sqrt(n)))^2``, the positive root.
    simplified : float or ndarray
        The paper's upper bound ``sqrt(n) / (c + 2b)``.
    """
    n = check_m(n, "n")
    R = check_positive(R, "R")
    E = check_positive(E, "E")
    D = as_float(D, "D")
    if ((D < 0) | (D >= 1)).any():
        raise ValueError(f"D must lie in [0, 1), got {D!r}")
    delta = check_delta(delta)
    n, R, E, D, delta = broadcast(n, R, E, D, delta)
    c = 4.0 * R * np.sqrt(2.0 * E / (1.0 - D))
    b = 1.5 * np.sqrt(np.log(2.0 / delta) / 2.0)
    t = (c + 2.0 * b) / np.sqrt(n)
    exact = 1.0 / (b + np.sqrt(b**2 + t)) ** 2
    return result(exact), result(np.sqrt(n) / (c + 2.0 * b))


def rmm_lipschitz_constant(X, B, D, R, n_landmarks=None, form="derived", which="T1", kernel=None):
    """RMM App. B, Lemmas 19 and 20: how much one landmark can move ``T_1`` (and ``T_2``).

    Theorems 15-16 apply McDiarmid's inequality to ``T_1(U, S)`` (Theorem 11) and
    ``T_2(V, S)`` (Theorem 10) as functions of the landmarks, which needs the largest change
    when one landmark ``u_k`` (of norm at most ``R``) is replaced. Following the proof (all
    other landmarks at 0, Woodbury's identity, ``u_k`` along the top eigenvector of
    ``sum_i x_i x_i'``), with ``S = sum_i x_i'x_i``, ``mu`` the largest eigenvalue of
    ``sum_i x_i x_i'``, ``n = |S|``, ``n_u`` landmarks and ``Dbar = 1 - D``:

    ``L = (2 sqrt(2B) / (n sqrt(Dbar))) (sqrt(S) - sqrt(S - D R^2 mu / (n_u Dbar + D R^2)))``

    (``form="derived"``; ``B`` is ``E`` for ``T_2``). The paper prints the prefactor as
    ``2 sqrt(2B)/(D n)`` in Lemma 19 and ``2 sqrt(2E)/(Dbar n)`` in Lemma 20, and the
    denominator ``n D + D R^2`` in Lemma 19 (``form="lemma19"`` / ``"lemma20"``); the
    derivation in its own proof gives ``sqrt(Dbar)`` and ``n_u Dbar`` (errata candidates).

    ``which="T2"``: in ``T_2`` the landmarks enter as ``D sum_j lambda_j v_j v_j'`` without
    the factor ``1/n_v`` of ``T_1``, so the same worst case (one landmark, the others at 0)
    gives the formula with ``n_u = 1``; the proof of Lemma 20 reuses the ``T_1`` expression
    with ``D/n``, and its printed constant is smaller than the change of ``T_2`` at that
    configuration (``tests/test_bounds_rademacher.py`` shows it; errata candidate).

    Parameters
    ----------
    X : (n, d) sample ``S`` (or inputs of ``kernel``)
    B : float > 0, ``B`` of ``G^U_{B,D}`` (``E`` of ``H^V_{E,D}``)
    D : float in (0, 1)
    R : float > 0, bound on the norm of every landmark (and input) in feature space
    n_landmarks : int, number of landmarks (default ``n``)
    form : {"derived", "lemma19", "lemma20"}
    which : {"T1", "T2"}, the bound whose constant is wanted (only for ``form="derived"``)
    kernel : optional kernel; then ``X`` is mapped with :func:`feature_map`
    """
    B = float(check_positive(B, "B"))
    D = float(_check_D(D))
    if not D > 0:
        raise ValueError("D must lie in (0, 1): at D = 0 no landmark has any effect")
    R = float(check_positive(R, "R"))
    (X,) = feature_map(kernel, X)
    n = len(X)
    n_u = n if n_landmarks is None else int(check_m(n_landmarks, "n_landmarks"))
    if which not in ("T1", "T2"):
        raise ValueError(f"which must be 'T1' or 'T2', got {which!r}")
    if which == "T2" and form == "derived":
        n_u = 1
    if form not in ("derived", "lemma19", "lemma20"):
        raise ValueError(f"form must be 'derived', 'lemma19' or 'lemma20', got {form!r}")
    S = float(np.sum(X * X))
    mu = float(np.linalg.eigvalsh(X.T @ X)[-1])
    Dbar = 1.0 - D
    if form == "lemma19":
        pre, den = 2.0 * np.sqrt(2.0 * B) / (D * n), n_u * D + D * R**2
    elif form == "lemma20":
        pre, den = 2.0 * np.sqrt(2.0 * B) / (Dbar * n), n_u * Dbar + D * R**2
    else:
        pre, den = 2.0 * np.sqrt(2.0 * B) / (np.sqrt(Dbar) * n), n_u * Dbar + D * R**2
    return float(pre * (np.sqrt(S) - np.sqrt(max(S - D * R**2 * mu / den, 0.0))))


def rmm_concentration_term(X, B, D, R, delta, n_landmarks=None, which="T1", kernel=None):
    """RMM Theorem 15, eq. (22): McDiarmid's deviation term of ``T_1`` (or ``T_2``) over the landmarks.

    The proof of Theorem 15 (RMM §4.6.1) treats ``T_1(U, S)`` (Theorem 11) as a function of
    the ``n_u`` landmarks, drawn i.i.d. from the input distribution with norms at most ``R``.
    Each landmark moves it by at most the same constant ``c`` (App. B), so McDiarmid's
    inequality (RMM eq. 36) gives ``P[T_1 - E_U T_1 >= eps] <= exp(-2 eps^2 / (n_u c^2))``;
    setting the right side to ``delta``:

    ``eps = c sqrt(n_u ln(1/delta) / 2)``,

    so ``T_1(U, S) <= E_U[T_1(U, S)] + eps`` with probability at least ``1 - delta``. The
    paper writes this out as eq. (22) with Lemma 19's printed constant, whose prefactor
    ``1/D`` should be ``1/sqrt(Dbar)`` and whose ``n D`` should be ``n_u Dbar`` (errata
    candidate, chapter 17); eq. (22) itself prints ``Dbar`` for ``sqrt(Dbar)``. Here ``c`` is
    the corrected constant of :func:`rmm_lipschitz_constant` (``form="derived"``), which is
    attained, so ``eps`` is McDiarmid's bound at its best constant. The statement of
    Theorem 15 keeps only the order ``O(1/sqrt(n tr K))`` of this term.

    ``which="T2"`` gives part (ii) the same way for ``T_2(V, S)`` (Theorem 10) with the
    constant derived for ``T_2`` (one landmark at weight ``D``, ``n_u = 1`` inside ``c``) and
    ``n_u = n_v`` landmarks in McDiarmid's sum; the printed part (ii) compares ``T_2`` with
    ``E_V[T_1]``, which we read as ``E_V[T_2]``.

    Parameters
    ----------
    X : (n, d) sample ``S`` (or inputs of ``kernel``)
    B : float > 0, ``B`` of ``G^U_{B,D}`` (``E`` of ``H^V_{E,D}`` for ``which="T2"``)
    D : float in (0, 1)
    R : float > 0, bound on the norm of every landmark (and input) in feature space
    delta : float or array in (0, 1), the probability that the deviation exceeds ``eps``
    n_landmarks : int, number of landmarks ``n_u`` (``n_v``); default ``n``, as in eq. (22)
    which : {"T1", "T2"}
    kernel : optional kernel; then ``X`` is mapped with :func:`feature_map`

    Returns
    -------
    eps : float (array if ``delta`` is an array)
    """
    delta = check_delta(delta)
    (X,) = feature_map(kernel, X)
    n_u = len(X) if n_landmarks is None else int(check_m(n_landmarks, "n_landmarks"))
    c = rmm_lipschitz_constant(X, B, D, R, n_landmarks=n_u, form="derived", which=which)
    eps = c * np.sqrt(n_u * np.log(1.0 / delta) / 2.0)
    return float(eps) if np.ndim(eps) == 0 else eps
