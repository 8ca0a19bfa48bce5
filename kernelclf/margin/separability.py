"""Separability and margins: is a sample linearly separable in feature space, how large can
its margin be, and the geometric margin of a weight vector on it.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); also chapters 03 (geometric
margins), 04 (the hard margin's test), 11 and 12 (the Bayes point machine's questions).
LKC Def. 2.12 and §2.4 (a sample is separable exactly when its version space is
non-empty), Def. 2.30 (geometric margin), eq. 2.45 (the hard-margin SVM, whose margin is
the largest one). The Bayes point machine asks these questions as it fits (how large the
margin is, to choose hard or soft boundaries; whether a start that fails means an empty
version space), the hard-margin SVM only when a first short run of its SMO solver
(``20 m + 1000`` steps) has not converged or its dual diverges, and with ``solver='qp'``
when the QP solver reports the problem infeasible (to refuse a sample that is not
separable; a small margin can also need that many SMO steps); the perceptron does not ask (on such a sample
it stops at its epoch budget and returns its pocket iterate).

Every test here is bounded in time and memory: each solver has an iteration budget, and
the linear program runs only on small samples:

* :func:`hard_margin_bounds` - lower and upper bounds on the largest margin, from an
  iteration-capped nearest-point solver that reads kernel columns on demand;
* :func:`check_separability` - separable / not separable / undecided: a consistent
  classifier from the nearest-point solver, else (only for ``m <= LP_MAX_M``) an
  iteration-capped linear program;
* :func:`is_separable` - the same as a ``bool``, raising
  :class:`SeparabilityUndecidedError` when the budget does not settle the question.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_scalar

from ..kernels.gram import as_gram
from ..optim import InfeasibleProblemError, Solution, SolverStoppedError, solve_lp
from .smo import _margin_steps, _solve

__all__ = ["NotSeparableError", "SeparabilityUndecidedError", "MarginBounds", "Separability",
           "hard_margin_bounds", "check_separability", "is_separable", "geometric_margin",
           "LP_MAX_M"]

#: Largest sample for which :func:`check_separability` falls back on the linear program.
#: HiGHS on the dense ``m x m`` constraint matrix of a nearly singular Gram matrix can run
#: for minutes (500 noisy two-moons points with 5 % of the labels flipped, RBF(0.5)); the
#: program is also capped at ``5 m + 1000`` iterations. On the package's
#: ``kernelclf.datasets.make_moons(500, noise=0.3)`` (which flips 5 % of the labels) with
#: seeds 0 to 3 and RBF(0.5), each of the eight programs (with and without a threshold)
#: reached the cap, after 0.25 to 1 ms of CPU time per iteration (one thread, two
#: measurements on a loaded shared machine: 0.9 to 3.3 s per program). On scikit-learn's
#: ``make_moons``, which flips no labels, HiGHS reports five of those eight programs
#: feasible before the cap (their solutions misclassify training examples in floating
#: point, see :class:`Separability`).
LP_MAX_M = 500

class NotSeparableError(ValueError):
    """The training sample has an empty version space (no consistent classifier)."""


class SeparabilityUndecidedError(NotSeparableError):
    """Separability could not be decided within the iteration budget.

    No classifier consistent with the sample was found, and none was ruled out either
    (the sample is too large for the linear program, or HiGHS stopped at its iteration
    cap). A subclass of :class:`NotSeparableError`: a hard-boundary learner has no
    consistent classifier to start from either way, and the remedy is the same (soft
    boundaries, or a larger budget).
    """


def _gram_matrix(K):
    """A dense Gram matrix from an array or a :class:`kernelclf.kernels.gram.Gram`."""
    full = getattr(K, "full", None)
    return np.asarray(full() if callable(full) else K, dtype=float)


def _check_labels(y, m):
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (m,):
        raise ValueError(f"y must have {m} entries, got shape {y.shape}")
    if not np.all((y == 1.0) | (y == -1.0)):  # np.isin(y, (-1, 1)), several times faster
        raise ValueError("y must hold labels -1/+1 (use kernelclf.base.labels_to_pm1)")
    return y


def _as_columns(K):
    """A Gram-access object (``column``, ``diag``, ``matvec``) for an array or a ``Gram``."""
    if hasattr(K, "column") and hasattr(K, "diag") and hasattr(K, "matvec"):
        return K
    gram = as_gram(K)
    if not hasattr(gram, "matvec"):
        raise TypeError("K must be a square array or a kernelclf.kernels.gram.Gram")
    return gram


@dataclass
class MarginBounds:
    """Result of :func:`hard_margin_bounds` (margins in feature-space units).

    Attributes
    ----------
    lower : float
        Geometric margin (LKC Def. 2.30) of the classifier ``coef`` (with the threshold
        ``bias`` when ``fit_bias``): a lower bound on the largest margin ``gamma*``.
        Positive exactly when ``coef`` separates the sample.
    upper : float
        An upper bound on ``gamma*``, ``||w_u||`` (``/ 2`` with a threshold). On a sample
        that is not separable the minimum is 0; the run often ends a little above it (the
        pair steps stop at round-off), and ``lower`` is then negative (``-inf`` when
        ``w_u = 0`` exactly).
    radius : float
        ``R = max_i sqrt(k(x_i, x_i))``.
    coef : (m,) array
        Signed expansion coefficients, ``w = sum_i coef_i phi(x_i)``.
    bias : float
        Threshold (0 without ``fit_bias``).
    iterations : int
    converged : bool
        ``upper - lower <= tol * upper`` was reached, or the pair steps reached the
        nearest point (no step lowers ``||w_u||`` any more). On a sample that is not
        separable only the second can happen (``lower < 0 <= upper``): ``converged``
        then says the bounds are final, not that they are close.
    """

    lower: float
    upper: float
    radius: float
    coef: np.ndarray
    bias: float
    iterations: int
    converged: bool

    @property
    def relative(self):
        """``(lower / R, upper / R)``: the bounds in units of the data radius."""
        R = self.radius if self.radius > 0 else 1.0
        return self.lower / R, self.upper / R


def _margin_of(g, wn2, groups, fit_bias):
    """Lower and upper bound from ``g = Q u`` and ``wn2 = u'Q u`` (see hard_margin_bounds)."""
    if not wn2 > 0:
        return -math.inf, 0.0
    wn = math.sqrt(wn2)
    if fit_bias:
        low = sum(float(g[mask].min()) for mask in groups) / (2.0 * wn)
        return low, wn / 2.0
    return float(g.min()) / wn, wn


def hard_margin_bounds(K, y, fit_bias=False, *, threshold=None, max_iter=None, tol=1e-4,
                       engine="auto"):
    """Bounds on the largest geometric margin of a sample, by a capped nearest-point solver.

    The largest margin ``gamma*`` of a classifier without threshold (the margin of the
    hard-margin SVM, LKC eq. 2.45 and Def. 2.30) is the distance from the origin to the
    convex hull of the points ``y_i phi(x_i)``; with a threshold it is half the distance
    between the convex hulls of the two classes (the geometric reading of the hard-margin
    SVM: Bennett & Bredensteiner, ICML 2000; Keerthi et al., IEEE TNN 11, 2000). This
    function minimises ``||w_u||^2 = u' Q u``, ``Q = diag(y) K diag(y)``, over the weights
    ``u >= 0`` with ``sum_i u_i = 1`` (per class with a threshold), by pair steps that move
    weight from one example to another (the Mitchell-Demyanov-Malozemov step, with the
    second-order choice of the partner of Fan, Chen & Lin, JMLR 6, 2005, WSS 2): the pair
    steps of the package's SMO (:func:`kernelclf.margin.smo.solve_smo`) on this problem
    (no linear term, no upper bound, kernel signs ``y``, one equality per class with a
    threshold). One step reads two kernel columns and costs ``O(m)``. With columns on
    demand the memory is not ``O(m)``: the columns read stay in the Gram's
    least-recently-used cache, bounded by its budget ``cache_mb`` (the compiled engine also
    copies them into its own column slots, which may switch to the whole matrix when it
    fits their budget), and the exact products ``K v`` are computed in blocks of 512 rows.
    Below a few thousand points these together reach about the size of the whole ``m x m``
    matrix, or more. The stopping test below runs every ``max(16, min(m, 1000) // 4)``
    steps and at the end, so a run may take up to that many steps more than the first
    iterate that passes it.

    Every iterate gives both bounds. ``w_u = sum_i u_i y_i phi(x_i)``; for a unit ``w``
    with margin ``gamma``, ``<w, w_u> >= gamma`` (``>= 2 gamma`` between the two hulls), so
    ``gamma* <= ||w_u||`` (``||w_u|| / 2``) is the upper bound; the geometric margin of
    ``w_u`` itself (with the best threshold) is the lower bound. At the minimiser both are
    ``gamma*`` (for a sample that is not separable the minimum is 0 and the lower bound
    stays negative).

    Parameters
    ----------
    K : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
        Gram matrix (a ``Gram`` with a ridge gives the margins of ``G + ridge I``;
        columns on demand are read one at a time, through its cache).
    y : (m,) array of -1/+1
    fit_bias : bool
        Allow a threshold ``b`` (both classes must be present).
    threshold : float >= 0, optional
        Stop as soon as ``gamma* >= threshold * R`` or ``gamma* < threshold * R`` is
        certain (``lower >= threshold R``, or ``upper < threshold R``); ``0`` stops at the
        first classifier that separates the sample. ``R = max_i sqrt(k(x_i, x_i))``.
    max_iter : int, optional
        Pair steps at most (default ``10 m + 1000``).
    tol : float
        Stop when ``upper - lower <= tol * upper``.
    engine : {'auto', 'numpy'}
        The engine of :func:`kernelclf.margin.smo.solve_smo`: ``'auto'`` runs the steps
        numba-compiled when numba is installed; ``'numpy'`` always in NumPy (what runs
        without numba).

    Returns
    -------
    MarginBounds
    """
    gram = _as_columns(K)
    m = int(gram.m) if hasattr(gram, "m") else len(np.asarray(gram.diag))
    y = _check_labels(y, m)
    if max_iter is None:
        max_iter = 10 * m + 1000
    max_iter = int(check_scalar(max_iter, "max_iter", numbers.Integral, min_val=0))
    tol = check_scalar(tol, "tol", numbers.Real, min_val=0, include_boundaries="neither")
    if not math.isfinite(tol):
        raise ValueError(f"tol must be finite, got {tol!r}")
    if threshold is not None:
        threshold = check_scalar(threshold, "threshold", numbers.Real, min_val=0)
        if not math.isfinite(threshold):
            raise ValueError(f"threshold must be finite, got {threshold!r}")
    if engine not in ("auto", "numpy"):
        raise ValueError(f"engine must be 'auto' or 'numpy', got {engine!r}")
    kd = np.asarray(gram.diag, dtype=float)
    R = math.sqrt(max(float(kd.max(initial=0.0)), 0.0))
    if fit_bias:
        groups = [y > 0, y < 0]
        if not all(mask.any() for mask in groups):
            raise ValueError("fit_bias=True needs examples of both classes")
    else:
        groups = [np.ones(m, dtype=bool)]
    u = np.zeros(m)
    for mask in groups:
        u[mask] = 1.0 / mask.sum()
    thr = -1.0 if threshold is None else float(threshold) * R

    def stop(alpha, grad):
        return _stop(*_margin_of(grad, float(alpha @ grad), groups, fit_bias), thr, tol)
    # the compiled engine runs this test itself (the same decisions: it leaves to ``stop``
    # those that round-off in ``u'g`` could change), without a return to Python per chunk
    stop.margin_test = (thr, tol)

    # the pair steps are SMO's on min 1/2 u'Qu (p = 0, no upper bound, the sums of u fixed
    # by the start): kernel signs y, one equality per class with a threshold
    # (solve_smo's own set-up, its argument checks skipped: they hold here, and the
    # threshold it would compute is not used)
    kw = dict(s=np.ones(m), kernel_signs=y, groups=y if fit_bias else None, shrinking=False,
              tol=float(max(1e-13 * R * R, 1e-300)), engine=engine, callback=stop,
              callback_every=max(16, min(m, 1000) // 4), bias=False)
    p0, C0 = np.zeros(m), np.full(m, np.inf)
    g = y * np.asarray(gram.matvec(y * u), dtype=float)
    it, optimal = 0, False
    while True:
        low, up = _margin_of(g, float(u @ g), groups, fit_bias)
        if optimal or it >= max_iter or _stop(low, up, thr, tol):
            break
        fast = None if fit_bias or engine != "auto" else _margin_steps(
            gram, y, u, kw["tol"], max_iter - it, kw["callback_every"], stop)
        if fast is None:
            res = _solve(p0, C0, gram, alpha0=u, max_iter=max_iter - it, **kw)
            fast = res.alpha, res.gradient, res.iterations, \
                "done" if res.converged else ("stalled" if res.stalled else "")
        u, g, n, how = fast
        it += n
        optimal = how in ("done", "stalled")        # no pair step lowers u'Qu any more
        if n and _margin_of(g, float(u @ g), groups, fit_bias)[0] > 0:
            # a separator is claimed: recompute g exactly (one product K v), so that the
            # certificate does not rest on accumulated updates
            g = y * np.asarray(gram.matvec(y * u), dtype=float)
    converged = optimal or up - low <= tol * up
    coef = y * u
    bias = 0.0
    if fit_bias:
        bias = -0.5 * (float(g[groups[0]].min()) - float(g[groups[1]].min()))
    return MarginBounds(lower=float(low), upper=float(up), radius=R, coef=coef, bias=bias,
                        iterations=it, converged=bool(converged))


def _stop(low, up, thr, tol):
    """The stopping test of the pair steps (``thr < 0``: no threshold; ``0``: a separator)."""
    if up - low <= tol * up:
        return True
    if thr == 0.0:
        return low > 0
    return thr > 0 and (low >= thr or up < thr)


@dataclass
class Separability:
    """Result of :func:`check_separability`.

    Attributes
    ----------
    separable : bool or None
        ``True``: the sample is separable. With ``method='nearest point'``, ``coef`` (and
        ``bias``) classify every example correctly (checked with an exact product
        ``K coef``); with ``method='linear program'`` HiGHS reported the feasibility program
        feasible and ``coef`` is its solution, not checked: on a nearly singular Gram
        matrix it can misclassify training examples in floating point (scikit-learn's
        ``make_moons(500, noise=0.3)``, seeds 0 to 3, RBF(0.5): in the five of the eight
        programs, with and without a threshold, that HiGHS reported feasible, coefficients
        of 1e10 to 3e11 misclassify 9 to 26 examples);
        ``False``: the linear program certifies that no classifier does;
        ``None``: undecided within the budget.
    method : str
        What decided: ``'nearest point'``, ``'linear program'`` or ``'budget'``.
    coef : (m,) array or None
        The classifier ``w = sum_i coef_i phi(x_i)`` when ``separable`` (consistent with
        the sample when ``method='nearest point'``, see ``separable``).
    bias : float
    bounds : MarginBounds or None
        The nearest-point bounds on the largest margin.
    message : str
        The decision in words.
    """

    separable: bool | None
    method: str
    coef: np.ndarray | None
    bias: float
    bounds: MarginBounds | None
    message: str


def _lp_separator(K, y, fit_bias, max_iter):
    """The feasibility LP ``y_i ((K beta)_i + b) >= 1`` (True/False/None, solution)."""
    m = len(y)
    A = -(y[:, None] * K)
    if fit_bias:
        A = np.hstack([A, -y[:, None]])
    try:
        sol = solve_lp(np.zeros(A.shape[1]), A2=A, b2=-np.ones(m), l=None, max_iter=max_iter)
    except SolverStoppedError:
        return None, None
    except InfeasibleProblemError:
        return False, None
    return True, sol


def check_separability(K, y, fit_bias=False, *, max_iter=None, lp_max_m=None, lp_max_iter=None):
    """Is the sample separable in feature space? A test bounded in time and memory.

    Some ``f = K beta (+ b)`` with ``y_i f(x_i) > 0`` for all ``i`` exists exactly when the
    version space is non-empty (LKC Def. 2.12; by the representer theorem, LKC Theorem
    2.29, ``w`` may be taken in the span of the mapped inputs). The test:

    1. :func:`hard_margin_bounds` with ``threshold=0``: pair steps until some iterate
       separates the sample (checked with an exact product ``K coef``) or ``max_iter``
       steps are done. A separable sample with margin ``gamma*`` is found quickly unless
       ``gamma*`` is tiny compared with the radius.
    2. Only if no separator was found and ``m <= lp_max_m``: the feasibility linear program
       ``y_i ((K beta)_i + b) >= 1`` (HiGHS through :func:`kernelclf.optim.solve_lp`),
       capped at ``lp_max_iter`` iterations. Feasible: separable; infeasible: certainly not
       (HiGHS's verdicts, within its tolerances; its solution is returned unchecked, see
       :class:`Separability`).
    3. Otherwise (a larger sample, or HiGHS at its cap) the answer is ``None``, undecided.

    Parameters
    ----------
    K : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
    y : (m,) array of -1/+1
    fit_bias : bool
        Allow a threshold ``b``.
    max_iter : int, optional
        Nearest-point pair steps (default ``4 m + 100`` when the LP may follow, else
        ``10 m + 1000``).
    lp_max_m : int, optional
        Largest ``m`` for the linear program (default :data:`LP_MAX_M`).
    lp_max_iter : int, optional
        HiGHS iteration cap (default ``5 m + 1000``).

    Returns
    -------
    Separability
    """
    gram = _as_columns(K)
    m = int(gram.m) if hasattr(gram, "m") else len(np.asarray(gram.diag))
    y = _check_labels(y, m)
    lp_max_m = LP_MAX_M if lp_max_m is None else int(
        check_scalar(lp_max_m, "lp_max_m", numbers.Integral, min_val=0))
    if lp_max_iter is not None:
        check_scalar(lp_max_iter, "lp_max_iter", numbers.Integral, min_val=1)
    use_lp = m <= lp_max_m
    if max_iter is None:
        max_iter = 4 * m + 100 if use_lp else 10 * m + 1000
    if fit_bias and len(np.unique(y)) < 2:
        return Separability(True, "nearest point", np.zeros(m), float(y[0]), None,
                            "one class only: the threshold alone classifies every example")
    nb = hard_margin_bounds(gram, y, fit_bias, threshold=0.0, max_iter=max_iter)
    lo, up = nb.relative
    if nb.lower > 0:
        return Separability(True, "nearest point", nb.coef, nb.bias, nb,
                            f"separable: a classifier with margin {lo:.3g} R was found "
                            f"after {nb.iterations} nearest-point steps")
    if use_lp:
        ok, sol = _lp_separator(_gram_matrix(gram), y, bool(fit_bias),
                                5 * m + 1000 if lp_max_iter is None else int(lp_max_iter))
        if ok:
            x = np.asarray(sol.x, dtype=float)
            return Separability(True, "linear program", x[:m], float(x[m]) if fit_bias else 0.0,
                                nb, "separable: the linear program found a consistent classifier")
        if ok is False:
            return Separability(False, "linear program", None, 0.0, nb,
                                "not separable: the linear program is infeasible")
        why = ("HiGHS stopped without an answer to the linear program (its iteration cap, "
               "or numerical trouble)")
    else:
        why = f"m = {m} > {lp_max_m} is too large for the linear program"
    return Separability(None, "budget", None, 0.0, nb,
                        f"undecided: no consistent classifier after {nb.iterations} "
                        f"nearest-point steps (the largest margin is at most {up:.3g} R, "
                        f"R = {nb.radius:.3g}), and {why}")


def is_separable(K, y, fit_bias=True, *, max_iter=None):
    """Whether some ``f = K beta (+ b)`` has ``y_i f(x_i) > 0`` for all ``i``.

    :func:`check_separability` as a ``bool``: the sample is separable in feature space
    (with or without bias) exactly when its version space (LKC Def. 2.12) is non-empty and
    the hard-margin SVM (LKC eq. 2.45) has a solution.

    Parameters
    ----------
    K : (m, m) array or :class:`kernelclf.kernels.gram.Gram`
        Gram matrix of the training inputs.
    y : (m,) array of -1/+1
    fit_bias : bool
        Allow a threshold ``b``.
    max_iter : int, optional
        Nearest-point budget, see :func:`check_separability`.

    Returns
    -------
    bool

    Raises
    ------
    SeparabilityUndecidedError
        When the budget does not decide: no separator was found, and the sample is too
        large for the linear program or HiGHS stopped at its iteration cap (as on 500
        noisy two-moons points, see :data:`LP_MAX_M`).
    """
    res = check_separability(K, y, fit_bias, max_iter=max_iter)
    if res.separable is None:
        raise SeparabilityUndecidedError(
            f"could not decide whether the sample is separable in feature space: "
            f"{res.message}; it is not separable, or only with a negligible margin")
    return bool(res.separable)


def _separating_lp(K, y, fit_bias):
    """A classifier ``y_i ((K x)_i + b) > 0`` (``x`` ends with ``b`` when ``fit_bias``), or
    ``None`` when the sample is certainly not separable; raises
    :class:`SeparabilityUndecidedError` when :func:`check_separability` cannot decide.
    (Used by :func:`kernelclf.bayespoint.versionspace.find_version_space_point`.)"""
    res = check_separability(K, np.asarray(y, dtype=float), bool(fit_bias))
    if res.separable is None:
        raise SeparabilityUndecidedError(
            f"no classifier consistent with the sample was found: {res.message}; use soft "
            "boundaries lam > 0 (BPM §3.3)")
    if not res.separable:
        return None
    x = np.r_[res.coef, res.bias] if fit_bias else np.asarray(res.coef, dtype=float)
    return Solution(x=x, objective=0.0, status=res.method, iterations=0)


def geometric_margin(X_or_G, y, w_or_alpha, precomputed=False):
    """Geometric margin ``gamma_z(w) = min_i y_i <x_i, w> / ||w||`` (LKC Def. 2.30).

    With ``precomputed=True`` the first argument is a Gram matrix ``G`` and
    ``w_or_alpha`` holds expansion coefficients ``alpha``
    (``w = sum_i alpha_i phi(x_i)``), so the margin is
    ``min_i y_i (G alpha)_i / sqrt(alpha' G alpha)``. Negative when ``w``
    misclassifies a point; positive exactly when ``w / ||w||`` lies in version space.
    """
    y = np.asarray(y, dtype=float).ravel()
    v = np.asarray(w_or_alpha, dtype=float).ravel()
    if precomputed:
        G = _gram_matrix(X_or_G)
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"G must be a square Gram matrix, got shape {G.shape}")
        if not np.all(np.isfinite(G)):
            raise ValueError("G contains NaN or infinity")
        y = _check_labels(y, G.shape[0])
        if v.shape != y.shape:
            raise ValueError(f"alpha must have {len(y)} entries, got {v.shape}")
        out = G @ v
        norm = math.sqrt(max(float(v @ out), 0.0))
    else:
        X = np.asarray(X_or_G, dtype=float)
        if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != v.shape[0]:
            raise ValueError(f"shapes do not match: X {X.shape}, y {y.shape}, w {v.shape}")
        out = X @ v
        norm = float(np.linalg.norm(v))
    if norm == 0.0:
        raise ValueError("the weight vector is zero; its margin is undefined")
    return float(np.min(y * out) / norm)
