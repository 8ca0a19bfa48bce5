"""The relative margin machine's dual solver: the package's SMO on the RMM dual.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010),
"Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §3.3 and
eq. 12; erratum E19 of book chapter 00 (KKT list of §3.3). The estimators are in
:mod:`kernelclf.margin.rmm`.

The RMM dual (eq. 12) has ``3m`` variables, ``a = (alpha, lam, lam*)``, and one
equality ``sum_t s_t a_t = 0`` with signs ``s = (y, -1, +1)``. In the form of
:func:`kernelclf.margin.smo.solve_smo` it is

    minimise 1/2 a' Q a - p' a,   0 <= a <= (C, U, U),   s' a = 0,

with ``p = (1, -B, -B)`` and ``Q = diag(s) [[K, K, K], [K, K, K], [K, K, K]] diag(s)``:
every variable of point ``i`` has the column of ``x_i``, so the gradient is fixed by the
``m``-vector ``g = K v``, ``v = alpha o y - lam + lam*``, and ``F_t = -s_t (grad)_t`` is
``y_i - g_i``, ``B - g_i`` or ``-B - g_i``. :func:`solve_rmm` hands this problem to the
same SMO as the SVMs (§3.3's decomposition with working sets of two variables: the
second-order selection of Fan, Chen & Lin 2005, libsvm's shrinking and bias, a Newton
step on the free variables every ``newton_every`` pair steps, the final Newton polish),
on a :class:`kernelclf.kernels.gram.Replicated` view of the Gram matrix,
whose compiled loop reads the ``m x m`` matrix's columns through the point of each
variable. It stops when the maximal KKT violation ``max_up F - min_low F`` is at most
``tol``, which is the KKT list of RMM §3.3 with ``epsilon = tol`` (E19: the conditions
for ``lam_i = 0`` read ``f_i <= B + epsilon``). With ``B = None`` (or no room for the
bound multipliers) the problem is the SVM dual on the ``m`` variables ``alpha``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_scalar

from ..kernels.gram import Replicated, as_gram
from .smo import DualDivergenceError, solve_smo
from .smo_compiled import HAVE_NUMBA

__all__ = ["HAVE_NUMBA", "RMMResult", "solve_rmm"]

_PRECOMPUTE_MAX = 200     # as kernelclf.margin.svm: whole Gram matrix up to this many examples


@dataclass
class RMMResult:
    """Solution of the RMM dual (eq. 12) by :func:`solve_rmm` or :func:`~kernelclf.margin.rmm.solve_rmm_qp`.

    Attributes
    ----------
    alpha, lam, lam_star : (m,) arrays
        Multipliers of the classification constraints and of the upper
        (``f <= B``) and lower (``f >= -B``) bounds.
    v : (m,) array
        ``alpha o y - lam + lam_star``, the expansion of ``f``.
    g : (m,) array
        ``K v`` (outputs without bias).
    bias : float
    objective : float
        Dual value of eq. 12 (maximisation form).
    iterations : int
    gap : float
        Final maximal KKT violation (fast solver; 0 for the QP).
    converged : bool
    """

    alpha: np.ndarray
    lam: np.ndarray
    lam_star: np.ndarray
    v: np.ndarray
    g: np.ndarray
    bias: float
    objective: float
    iterations: int
    gap: float
    converged: bool


_UNBOUNDED_TEXT = ("the RMM dual is unbounded (an infinite step was taken); check that "
                   "B > 1 and the kernel is positive semi-definite")


def _check_pm1_labels(y):
    """The solver works on labels in {-1, +1} (estimators map any two labels there)."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        y = y.ravel() if y.ndim == 2 and 1 in y.shape else y
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of labels in {{-1, +1}}, got shape "
                         f"{np.shape(y)}")
    bad = ~np.isin(y, (-1.0, 1.0))
    if bad.any():
        raise ValueError("solve_rmm needs labels in {-1, +1}, got "
                         f"{np.unique(y[bad])[:5].tolist()}; map the two classes to -1 and +1 "
                         "(the estimators, e.g. RelativeMarginMachine, do this for any labels)")
    return y


def _check_B(B):
    if B is None:
        return np.inf
    if isinstance(B, bool) or not isinstance(B, numbers.Real):
        raise TypeError(f"the output bound B must be a number > 1 or None, got {B!r}")
    B = float(B)
    if not B > 1:
        raise ValueError(
            f"the output bound B must be > 1, got B={B!r}: with B <= 1 no point can lie "
            "beyond the margin (RMM §3.2 takes B > 1; B >= max_i |f_SVM(x_i)| is the SVM)")
    return B


def solve_rmm(gram, y, C, B, *, lam_ub=np.inf, alpha0=None, lam0=None, lam_star0=None,
              tol=1e-3, max_iter=None, newton_every=None, engine="auto"):
    """Solve the RMM dual (RMM eq. 12) by SMO (§3.3; module docstring).

    Parameters
    ----------
    gram : :class:`kernelclf.kernels.gram.Gram` or (m, m) array
        The training Gram matrix (columns are taken with ``column(i)``).
    y : (m,) array of +/-1
    C : float > 0
        Box of the classification multipliers.
    B : float > 1 or None
        Output bound; ``None`` (or ``inf``) freezes the bound multipliers at 0 and
        solves the SVM dual (RMM eq. 5 with bias).
    lam_ub : float
        Upper bound of ``lam`` and ``lam*`` (``inf`` for eq. 12; ``D nu / m`` for the
        fixed-``t`` inner problem of the relaxed RMM, eq. 15).
    alpha0, lam0, lam_star0 : arrays, optional
        Feasible warm start (e.g. the SVM solution with zero bound multipliers).
    tol : float
        Stopping tolerance ``epsilon`` of the KKT list of §3.3.
    max_iter : int, optional
        Iteration cap (default ``100_000 + 100 m``).
    newton_every : int or None
        Every this many pair steps, a Newton step on the free variables (``solve_smo``'s
        ``newton_every``): at a tight bound many variables are free and pair steps alone
        zigzag. Default ``max(m, 500)``; 0 switches it off.
    engine : {'auto', 'compiled', 'numpy'}
        The engine of :func:`kernelclf.margin.smo.solve_smo` (both take the same steps).

    Returns
    -------
    RMMResult
    """
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"engine must be 'auto', 'compiled' or 'numpy', got {engine!r}")
    if engine == "compiled" and not HAVE_NUMBA:
        raise ImportError("engine='compiled' needs numba; use engine='numpy'")
    y = _check_pm1_labels(y)
    m = y.size
    C = check_scalar(C, "C", numbers.Real, min_val=0, include_boundaries="neither")
    if not np.isfinite(C):
        raise ValueError(f"C must be finite, got C={C!r} (B=None with a finite C is the SVM)")
    B = _check_B(B)
    lam_ub = check_scalar(lam_ub, "lam_ub", numbers.Real, min_val=0)
    tol = check_scalar(tol, "tol", numbers.Real, min_val=0, include_boundaries="neither")
    if max_iter is not None:
        check_scalar(max_iter, "max_iter", numbers.Integral, min_val=1)
    gram = as_gram(gram)
    if np.shape(gram.diag) != (m,):
        raise ValueError(f"the Gram matrix must be {m} x {m}")
    C, B, U = float(C), float(B), float(lam_ub)
    if np.isinf(B):
        U = 0.0                       # the SVM: bound multipliers stay at zero
    max_iter = 100_000 + 100 * m if max_iter is None else int(max_iter)
    alpha = np.zeros(m) if alpha0 is None else np.clip(np.array(alpha0, dtype=float), 0, C)
    lam = np.zeros(m) if lam0 is None or U == 0 else np.clip(np.array(lam0, float), 0, U)
    lams = np.zeros(m) if lam_star0 is None or U == 0 else np.clip(
        np.array(lam_star0, float), 0, U)
    v = alpha * y - lam + lams
    if abs(v.sum()) > 1e-8 * max(1.0, np.abs(v).sum()):
        raise ValueError("the warm start violates the equality alpha'y - 1'lam + 1'lam* = 0")
    newton_every = max(m, 500) if newton_every is None else int(newton_every)
    kw = dict(tol=tol, max_iter=max_iter, polish=True, engine=engine,
              newton_every=newton_every)
    try:
        if U == 0:                    # the SVM dual on alpha
            res = solve_smo(np.ones(m), C, gram, s=y, alpha0=alpha, **kw)
            a = res.alpha
            lam, lams = np.zeros(m), np.zeros(m)
            alpha = a
            F = -y * res.gradient
        else:
            s = np.concatenate([y, -np.ones(m), np.ones(m)])
            p = np.concatenate([np.ones(m), np.full(2 * m, -B)])
            box = np.concatenate([np.full(m, C), np.full(2 * m, U)])
            res = solve_smo(p, box, Replicated(gram, 3), s=s,
                            alpha0=np.concatenate([alpha, lam, lams]), **kw)
            alpha, lam, lams = (res.alpha[:m].copy(), res.alpha[m:2 * m].copy(),
                                res.alpha[2 * m:].copy())
            F = (-s * res.gradient)[:m]
    except DualDivergenceError as exc:
        raise ValueError(_UNBOUNDED_TEXT) from exc
    v = alpha * y - lam + lams
    g = y - F                         # F = y_i - g_i for the alpha_i
    obj = float(alpha.sum() - (0.0 if np.isinf(B) else B * (lam.sum() + lams.sum()))
                - 0.5 * v @ g)
    return RMMResult(alpha=alpha, lam=lam, lam_star=lams, v=v, g=g, bias=float(res.bias),
                     objective=obj, iterations=int(res.iterations),
                     gap=float(max(res.gap, 0.0)) if np.isfinite(res.gap) else 0.0,
                     converged=bool(res.converged))


def _primal_bias(g, y, B):
    """The bias that minimises the primal (eq. 11) for fixed ``w`` (``g = Kv``).

    ``sum_i max(0, 1 - y_i (g_i + b))`` is convex and piecewise linear in ``b``, and the
    bounds give the interval ``max(-B - g) <= b <= min(B - g)``; the minimum is at a
    breakpoint ``y_i - g_i`` or an end of the interval (the midpoint of the minimising
    segment when it is flat). Used to complete interior-point (QP) solutions, whose
    multipliers are never exactly at their bounds.
    """
    lo = float(np.max(-B - g)) if np.isfinite(B) else -np.inf
    hi = float(np.min(B - g)) if np.isfinite(B) else np.inf
    cand = np.clip(y - g, lo, hi)
    cand = np.unique(np.concatenate([cand, [x for x in (lo, hi) if np.isfinite(x)]]))
    obj = np.maximum(0.0, 1.0 - y[None, :] * (g[None, :] + cand[:, None])).sum(axis=1)
    best = obj.min()
    arg = cand[obj <= best + 1e-10 * max(1.0, best)]
    return float(0.5 * (arg.min() + arg.max()))
