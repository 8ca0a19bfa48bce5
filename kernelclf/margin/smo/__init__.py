"""Sequential minimal optimisation for the box-constrained SVM duals.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5;
Fan, Chen & Lin (2005). Solves::

    minimise    1/2 a' Q a - p' a
    subject to  0 <= a_i <= C_i                      (C_i may be +inf)
                sum_{i in g} s_i a_i = const_g        for every group g   (optional)

with ``Q_ij = s_i s_j K_ij`` for a positive semi-definite matrix ``K`` and signs
``s_i = +/-1`` (the labels). This covers the duals of LKC §2.4 (eq. 2.46,
2.48, 2.50, 2.52; App. B.5):

* with one group and ``s = y`` the pair constraint ``y'a = 0`` of the biased
  C-SVM (Platt 1999; the usual libsvm form);
* with two groups (the two classes, ``groups = s = y``) the two equalities
  ``sum_{y_i = +1} a_i = sum_{y_i = -1} a_i = nu m / 2`` of the biased nu-SVM
  (libsvm's nu solver: pairs are chosen inside one class);
* without equality constraint (``equality=False``): the book's bias-free SVM,
  solved by greedy single-coordinate Newton steps, with a (slightly ridged)
  Newton step on the free variables (when at most 1500 are free) every ``max(20, m)``
  updates;
* with one group, signs ``s = (y, -1, +1)`` and ``K`` a
  :class:`kernelclf.kernels.gram.Replicated` matrix (the Gram matrix in 3 x 3 blocks,
  read through the point of each variable, never stored), the relative margin
  machine's dual (RMM eq. 12; :func:`kernelclf.margin.rmm_solver.solve_rmm`), with a
  Newton step on the free variables every ``newton_every`` pair steps.

Working-set selection is the second-order rule WSS2 of Fan, Chen & Lin
(2005, JMLR 6, §3, WSS 2): ``i`` maximises the
violation ``-s_t G_t`` over the "up" set, ``j`` maximises the guaranteed
decrease ``b_ij^2 / a_ij`` over the "low" set. The loop stops when the maximal
KKT violation ``m(a) - M(a)`` (the gap between the two sets) drops to ``tol``
(libsvm's default is ``1e-3``). Columns of ``K`` come from the package's
Gram-access object (:class:`kernelclf.kernels.gram.Gram`: a precomputed matrix, or
columns on demand in a least-recently-used cache).
Every iteration costs O(m) work plus at most two kernel columns.

Shrinking (libsvm's, Chang & Lin 2011, §5.1; on by default): every ``min(m, 1000)``
iterations, a variable at a bound whose gradient says it would only move further out is
set aside, and the selection and the gradient update run on the others. Every variable
comes back (the gradient of the set-aside ones reconstructed, and the full problem
checked) when the shrunk problem has converged, as in libsvm (which then takes one step on
the full problem and shrinks again at the next iteration, not ``min(m, 1000)`` steps
later: steps on every variable cost far more than steps on a small shrunk problem); once,
as in libsvm, when
its gap first drops to ``10 tol``; and -- our addition -- when its gap has not reached a
new low for ``PATIENCE`` (10) rounds. On low-rank kernels the shrunk problem can zigzag
for a long time above ``10 tol`` while the set-aside variables violate the KKT conditions
(with the watch switched off, seed 19 of the problems below, m = 48 and the kernel
``(<x, x'> + 1)^2``, still has a full gap of 2.0 after 100 000 iterations and 0.23 after a
million, where the fit with the watch converges after 200 429; the regression tests on
such problems are in ``tests/test_smo.py``); with the watch such fits
take about the steps they take without shrinking (0.86 to 1.07 times as many on the
thirty problems of that kind, m = 48, seeds 0 to 29 of ``_low_rank(seed, scale=2.0)`` in
``tests/test_smo.py``, at ``C = 140``, ``tol = 1e-4``; seed 8 stops at ``max_iter`` either
way; the regression test checks four, at most 1.25 times). After any stop
the reported ``gap`` is the full problem's.

The loop stops at ``max_iter`` (default libsvm's limit ``max(10^7, 100 m)``; scikit-learn's
``SVC`` has none), and, not converged and ``stalled``, at a pair step that changes
neither variable: such a step is below the round-off of ``alpha`` (``tol`` finer than
floating point resolves), and the same pair would come back for ever.

Two engines: NumPy vector operations (:mod:`kernelclf.margin.smo.loops`; always there,
e.g. in Pyodide), and loops compiled with numba (:mod:`kernelclf.margin.smo.compiled`;
the default when numba is installed) on libsvm's compacted layout, which read the columns
from a :class:`kernelclf.kernels.gram.ColumnSlots` and, for the linear, polynomial and
RBF kernels on few features, compute missing columns themselves
(:mod:`kernelclf.kernels.native_columns`). Both follow the same rules with the same
floating-point operations in the same order, so on the same kernel values (a stored
matrix, or columns computed by Python) they take the same steps, bit for bit. The
compiled kernel columns agree with NumPy's to round-off, not bit for bit (the sums run in
another order, the exponential is the compiled loop's own): there the two engines stop at
different points of the same tolerance, after different numbers of steps. When a budget
cannot hold every column of a matrix computed on demand, both engines' pair loops keep the
columns in single precision (libsvm's ``Qfloat``, :meth:`kernelclf.kernels.gram.ColumnSlots.single`;
each value computed in double precision, rounded once; every sum in double precision):
both then solve the dual of the rounded matrix, on the same numbers, still twins; its
optimum is the exact one's to within the rounding's effect (``tests/test_smo.py``). The KKT
helpers (bias, polishing, Newton steps, the NumPy engine's gradient reconstruction) are
:mod:`kernelclf.margin.smo.kkt`.

The NumPy engine's finish (``engine='auto'`` without numba, e.g. in the in-browser lab;
``engine='numpy'`` runs the pair loop alone, the compiled loop's twin step for step): one
Python-level pair step costs over ten times libsvm's compiled one, and at large ``C`` SMO takes
tens of thousands of them (40 315 in the benchmark's fit without numba: two moons,
m = 2000, C = 100, columns on demand). With the equalities, one kernel matrix and no
``newton_every`` or callback, the pair loop therefore hands over once it has taken ``m/2``
steps, its gap (over the variables shrinking has left in play) has dropped to ``1000 tol``
and at most ``FINISH_MAX_FREE`` (1000) variables are free (again at each further third of
the gap, if the finish did not end it): a primal
active-set method (:func:`kernelclf.margin.smo.kkt._active_set`; Nocedal & Wright 2006,
§16.5) moves the free variables to the minimiser on their affine set in one linear solve,
shortened to the box, sends the variables that meet a bound to it, and brings back the
bounded ones that violate the KKT conditions, in blocks, until none does: the optimum to
round-off, where SMO would stop anywhere within ``tol``. It counts as converged only if
the KKT violation of the whole problem, from the exact gradient, is at most ``tol`` --
SMO's own stopping rule; otherwise the pair loop goes on from the finish's (lower)
point. ``iterations`` counts the pair steps only, not the finish's rounds (1156 pair steps
in that fit, against the pair loop's 40 315 alone). At small ``C`` the pair loop ends
before ``m/2`` steps and runs alone. (``engine='auto'`` also takes the NumPy engine, and
its finish, with numba installed when ``gram`` is an object of the caller's with
``column`` and ``diag`` rather than a :class:`kernelclf.kernels.gram.Gram` or an array.)

The bias is computed libsvm-style from the free variables (the average of
``s_t G_t`` over ``0 < a_t < C_t``; the midpoint of the feasible interval
when there are none).

Optional polishing (``polish=True``): once SMO has stopped at tolerance ``tol``,
the variables at a bound are taken as the active set and the KKT equations of the
free ones (with the equality constraints) are solved exactly, as in the
"solution polishing" of OSQP (Stellato et al. 2020, Math. Prog. Comp. 12): through the
Cholesky factor of ``Q_FF`` and the Schur complement of the equalities where ``Q_FF`` is
positive definite, else by LU and least squares on the bordered system. The
polished point is kept only if it stays in the box and its maximal KKT violation
is not larger than SMO's; then the solution is exact up to round-off instead of
``tol``-accurate (and, e.g., integer per-example bounds give the same machine as
repeated examples). Where SMO has stopped before the bounded variables are the
optimum's, the exact solution of the free variables' equations leaves the box, and the
result is SMO's own, accurate to ``tol`` only (book chapter 04 shows both outcomes on
two moons: kept for C = 1 and 10, not for C = 100). The polish is skipped when more
than 1000 variables are free.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.utils import assert_all_finite, check_scalar

from ..._jit import HAVE_NUMBA
from ...kernels.gram import ColumnSlots, Gram, Replicated, as_gram
from . import compiled as _cc
from . import loops
from .kkt import (
    _bias,
    _group_rho,
    _kkt_gap,
    _newton_on_free,
    _newton_on_free_eq,
    _polish,
    _up_low,
)
from .step import TAU

__all__ = ["SMOResult", "solve_smo", "DualDivergenceError", "HAVE_NUMBA"]


class DualDivergenceError(ValueError):
    """The dual objective is unbounded below (e.g. a hard margin on a
    sample that is not separable in feature space)."""


@dataclass
class SMOResult:
    """Result of :func:`solve_smo`.

    Attributes
    ----------
    alpha : ndarray
        The minimiser ``a`` (non-negative, book's unsigned coefficients).
    objective : float
        ``1/2 a'Qa - p'a`` at ``alpha``.
    bias : float
        Threshold ``b`` such that ``f(x) = sum_i s_i a_i k(x_i, x) + b``
        (0 without equality constraint). For two groups (nu-SVM) this is
        ``-(r_+ - r_-)/2`` and ``rho`` holds ``(r_+ + r_-)/2``.
    iterations : int
    gap : float
        Final maximal KKT violation.
    converged : bool
    gradient : ndarray
        ``Q a - p``.
    rho : float
        Only for two groups: the margin parameter of the nu-SVM (else nan).
    stalled : bool
        The pairwise loop stopped before ``tol`` because a step changed nothing (the
        step is below the round-off of ``alpha``: the same pair would be chosen for
        ever); ``converged`` is then False. ``tol`` is finer than floating point
        resolves for this problem.
    """

    alpha: np.ndarray
    objective: float
    bias: float
    iterations: int
    gap: float
    converged: bool
    gradient: np.ndarray
    rho: float = float("nan")
    stalled: bool = False


def default_max_iter(m):
    """libsvm's iteration limit for ``m`` variables, ``max(10^7, 100 m)`` (Chang & Lin's
    ``svm.cpp``; scikit-learn's ``SVC(max_iter=-1)`` lifts it): the default of
    :func:`solve_smo` and of the SVM estimators."""
    return max(10_000_000, 100 * int(m))


def solve_smo(p, C, gram, *, s=None, groups=None, equality=True, alpha0=None, tol=1e-3,
              max_iter=None, shrinking=True, alpha_bound=np.inf, polish=False,
              diag_shift=None, kernel_signs=None, engine="auto", newton_every=0,
              callback=None, callback_every=0):
    """Minimise ``1/2 a'Qa - p'a`` over a box (and equality constraints) by SMO.

    Parameters
    ----------
    p : (m,) array
        Linear term (``1`` for the C-SVM dual, ``0`` for the nu-SVM dual).
    C : float or (m,) array
        Upper bounds ``C_i > 0`` (``np.inf`` allowed: hard margin); a vector gives
        every variable its own box (libsvm's per-example weights ``C_i = C w_i``).
    gram : :class:`kernelclf.kernels.gram.Gram` or (m, m) array
        The matrix ``K`` (``Q = diag(s) K diag(s)``): the package's Gram-access
        object (columns on demand, cached; a ridge such as the quadratic soft
        margin's ``I/C`` lives in it, LKC eq. 2.50), or a precomputed matrix; a
        :class:`kernelclf.kernels.gram.Replicated` matrix for duals with several
        variables per example (the compiled loop then reads its base's columns).
        Any object with ``column(i)`` and ``diag`` works.
    s : (m,) array of +/-1, optional
        Signs (labels); default all +1.
    groups : (m,) int array, optional
        Group of each variable for the equalities ``sum_{g} s_i a_i = const``
        (default: one group). Ignored when ``equality=False``.
    equality : bool
        Keep the equalities (pairwise SMO) or drop them (coordinate descent).
    alpha0 : (m,) array, optional
        Feasible starting point (default 0, feasible for the C-SVM).
    tol : float
        Stopping tolerance on the maximal KKT violation (libsvm: 1e-3).
    max_iter : int, optional
        Iteration cap (default libsvm's ``max(10^7, 100 m)``, ``default_max_iter(m)``).
    shrinking : bool
        Use shrinking heuristics.
    alpha_bound : float
        Raise :class:`DualDivergenceError` when some ``a_i`` exceeds it
        (used to detect an unbounded hard-margin dual).
    polish : bool, default False
        After convergence, solve the KKT equations on the free variables exactly
        (see the module notes); kept only if the point stays in the box and the KKT
        violation does not increase, else SMO's ``tol``-accurate point is returned.
        Skipped when more than 1000 variables are free.
    diag_shift : float or (m,) array, optional
        Added to the diagonal of ``K`` (the weighted quadratic soft margin's ``1/C_i``,
        LKC eq. 2.50); a single number may instead live in the Gram's ridge.
    kernel_signs : (m,) array of +/-1, optional
        Signs ``q`` with ``Q = diag(q s) K diag(q s)`` while the equalities keep the
        signs ``s`` (the nu-SVM without bias: ``s = 1``, ``q = y``).
    newton_every : int, default 0
        With the equalities: every this many pair steps, a Newton step on the free
        variables (:func:`kernelclf.margin.smo.kkt._newton_on_free_eq`; 0: none). It
        helps where many variables are free and pair steps zigzag, as in the relative
        margin machine's dual at a tight bound (:func:`kernelclf.margin.rmm_solver.solve_rmm`).
    engine : {'auto', 'compiled', 'numpy'}
        ``'compiled'`` runs the loops in numba-compiled code
        (:mod:`kernelclf.margin.smo.compiled`) on the columns of a
        :class:`kernelclf.kernels.gram.ColumnSlots`; ``'numpy'`` runs them as NumPy
        vector operations (Pyodide has no numba). On the same kernel values both take the
        same steps (module notes). ``'auto'``: compiled when numba is installed and
        ``gram`` is a :class:`kernelclf.kernels.gram.Gram` or an array; else NumPy, with
        the pair loop's active-set finish (module notes) where it applies.
    callback : callable, optional
        With the equalities: ``callback(alpha, gradient)`` every ``callback_every`` pair
        steps; a true result stops the loop (not converged). The gradient is exact for
        the variables that shrinking has not set aside (all of them with
        ``shrinking=False``).
    callback_every : int, default 0

    Returns
    -------
    SMOResult
    """
    p = np.ascontiguousarray(p, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"p must be a non-empty vector, got shape {p.shape}")
    assert_all_finite(p, input_name="p")
    m = p.size
    s = np.ones(m) if s is None else _signs(s, m, "s")
    C = _bounds(C, m)
    tol = check_scalar(tol, "tol", numbers.Real, min_val=0, include_boundaries="neither")
    if not np.isfinite(tol):
        raise ValueError(f"tol must be finite, got {tol!r}")
    if max_iter is not None:
        max_iter = check_scalar(max_iter, "max_iter", numbers.Integral, min_val=1)
    alpha_bound = check_scalar(alpha_bound, "alpha_bound", numbers.Real, min_val=0,
                               include_boundaries="neither")
    newton_every = check_scalar(newton_every, "newton_every", numbers.Integral, min_val=0)
    for name, flag in (("equality", equality), ("shrinking", shrinking), ("polish", polish)):
        check_scalar(flag, name, (bool, np.bool_))
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"engine must be 'auto', 'compiled' or 'numpy', got {engine!r}")
    if engine == "compiled" and not HAVE_NUMBA:
        raise ImportError("engine='compiled' needs numba; use engine='numpy'")
    callback_every = check_scalar(callback_every, "callback_every", numbers.Integral,
                                  min_val=0)
    return _solve(p, C, gram, s=s, groups=groups, equality=equality, alpha0=alpha0,
                  tol=float(tol), max_iter=max_iter, shrinking=shrinking,
                  alpha_bound=alpha_bound, polish=polish, diag_shift=diag_shift,
                  kernel_signs=kernel_signs, engine=engine, newton_every=newton_every,
                  callback=callback, callback_every=callback_every)


def _solve(p, C, gram, *, s, groups=None, equality=True, alpha0=None, tol=1e-3,
           max_iter=None, shrinking=True, alpha_bound=np.inf, polish=False, diag_shift=None,
           kernel_signs=None, engine="auto", newton_every=0, callback=None,
           callback_every=0, bias=True):
    """:func:`solve_smo` on arguments already checked: ``p`` a float vector, ``s`` its
    signs, ``C`` the vector of bounds, the scalars valid. The package's own dual problems
    (:func:`kernelclf.margin._dual_problem.solve_dual`), built and checked by the
    estimators, call it directly and skip the argument checks of the public function.
    ``bias=False`` leaves ``bias`` (and ``rho``) of the result unset (0 and nan): for a
    caller that computes the equalities' multipliers itself, as ``solve_dual`` does."""
    m = p.size
    gram = as_gram(gram)
    Kd = np.asarray(gram.diag, dtype=float)
    if Kd.shape != (m,):
        raise ValueError(f"the kernel matrix must be {m} x {m}")
    r = np.zeros(m)
    if diag_shift is not None:
        r = np.broadcast_to(np.asarray(diag_shift, dtype=float), (m,)).copy()
        assert_all_finite(r, input_name="diag_shift")
        if np.any(r < 0):
            raise ValueError("diag_shift must be >= 0 (the matrix must stay positive "
                             "semi-definite)")
    shift = r                                   # (r may take the Gram's ridge below)
    q = np.ones(m) if kernel_signs is None else _signs(kernel_signs, m, "kernel_signs")
    Kd = Kd + r
    points = gram.points if isinstance(gram, Replicated) else None
    compiled = HAVE_NUMBA and (engine == "compiled" or (
        engine == "auto" and isinstance(gram if points is None else gram.base, Gram)))
    if points is not None and not equality:     # (the compiled coordinate loop reads
        compiled = False                        # its own columns only)
    slots = None
    if compiled:
        slots, column, r = _column_slots(gram, points, r)
        if equality and _cc.SINGLE:
            slots.single()          # (past the budget: the pair loop's columns, from here)
    elif equality and _single_past_budget(gram if points is None else gram.base):
        # the NumPy engine on the compiled one's store of single-precision columns (the
        # same rounded numbers: the twin of the compiled loop past the budget)
        held, column, r = _column_slots(gram, points, r)
        held.single()
    else:
        getter = getattr(gram, "column_getter", None)
        column = getter() if getter is not None else gram.column
    getcol = _wrap_columns(column, q, r, kernel_signs is not None)
    if max_iter is None:
        max_iter = default_max_iter(m)
    alpha = np.zeros(m)
    if alpha0 is not None:
        alpha = np.array(alpha0, dtype=float).ravel()
        assert_all_finite(alpha, input_name="alpha0")
        if alpha.shape != (m,) or np.any(alpha < 0) or np.any(alpha > C):
            raise ValueError(f"alpha0 must be a feasible start: a vector of {m} numbers in "
                             "the box [0, C]")

    # F_t = -s_t G_t with G = Q a - p, built from the non-zero starting values
    F = s * p
    if alpha0 is not None:
        _subtract_start(F, alpha, s, q, shift, gram, getcol)
    if not equality:
        every = max(20, m)
        if slots is not None:
            code, it = _cc.run_coordinate(
                slots, Kd, np.maximum(Kd, TAU), r, q, s, C, alpha, F, tol, max_iter, every,
                alpha_bound, lambda: _newton_on_free(alpha, F, C, s, getcol))
            how = _HOW[code]
        else:
            it, how = loops.coordinate(p, C, s, getcol, Kd, alpha, F, tol, max_iter,
                                       alpha_bound)
        res = _result(p, C, s, None, alpha, F, it, how, alpha_bound)
        if polish and res.converged:
            _polish(res, p, C, s, None, getcol, bias=bias,
                    getcols=_blocks(gram, slots) if points is None and getcol is column
                    else None)
        return res
    if groups is None:                          # one group: every variable
        gmask = [np.ones(m, dtype=bool)]
    else:
        groups = np.asarray(groups)
        if groups.shape != (m,):
            raise ValueError(f"groups must be a vector of {m} labels, got shape "
                             f"{groups.shape}")
        labels = np.unique(groups)
        if len(labels) > 2:
            raise ValueError("at most two equality groups are supported")
        gmask = [groups == g for g in labels]
    every = math.gcd(int(newton_every), callback_every if callback is not None else 0)

    def on_every(it, up, low):
        """The Newton step due, and the caller's callback (True: stop)."""
        if newton_every and it % newton_every == 0:
            if _newton_on_free_eq(alpha, F, C, s, gmask, getcol) is not None:
                up[:], low[:] = np.where(s > 0, alpha < C, alpha > 0), \
                    np.where(s > 0, alpha > 0, alpha < C)
        return bool(callback is not None and callback_every and it % callback_every == 0
                    and callback(alpha, -s * F))

    finish = False
    if slots is not None:
        grp = np.zeros(m, dtype=np.int64)
        for k, gm in enumerate(gmask):
            grp[gm] = k
        # (a callback that is the margin bounds' stopping test runs compiled)
        test = getattr(callback, "margin_test", None) if not newton_every else None
        code, it = _cc.run_pairwise(slots, Kd, r, q, s, grp, len(gmask), C, alpha, F, tol,
                                    max_iter, shrinking, alpha_bound, points, every,
                                    on_every, test)
        how = _HOW[code]
    else:
        finish = engine == "auto" and points is None and not every
        it, how = loops.pairwise(p, C, s, gmask, getcol, Kd, alpha, F, tol, max_iter,
                                 shrinking, alpha_bound, every, on_every, finish,
                                 _blocks(gram, slots) if finish and getcol is column else None)
    res = _result(p, C, s, gmask, alpha, F, it, how, alpha_bound, bias)
    # (the NumPy engine's finish may have left nothing to polish: a violation at round-off)
    exact = finish and res.gap <= 1e-12 * max(1.0, float(np.abs(F).max()))
    if polish and res.converged and not exact:
        _polish(res, p, C, s, gmask, getcol,
                getcols=_blocks(gram, slots) if points is None and getcol is column
                else None, bias=bias)
    return res


def _column_slots(gram, points, r):
    """The column store of the pair loops on a :class:`~kernelclf.kernels.gram.Gram`:
    ``(slots, column, r)``, a :class:`~kernelclf.kernels.gram.ColumnSlots` of the
    Gram (of its base for a :class:`~kernelclf.kernels.gram.Replicated` view; a
    matrix of another kind's columns stored), its columns, and the diagonal shift ``r``
    with the Gram's ridge moved into it (the columns then come without it)."""
    base = gram if points is None else gram.base
    if not isinstance(base, Gram):
        base = Gram(G=np.column_stack([base.column(i) for i in range(base.diag.size)]),
                    check=False)
    if base.ridge and points is None:
        r = r + base.ridge
        base = base.with_ridge(0.0)
    slots = ColumnSlots(base)
    if slots.capacity < min(base.m, 4):
        slots = ColumnSlots(base, cache_mb=4.01 * 8 * base.m / 2 ** 20)
    column = slots.column if points is None else _replicated_columns(slots, gram)
    return slots, column, r


def _single_past_budget(base):
    """Whether the pair loops keep ``base``'s columns in single precision: columns
    computed on demand whose budget cannot hold them all in double precision
    (:meth:`kernelclf.kernels.gram.ColumnSlots.single`, the compiled engine's ``SINGLE``;
    both engines then read the same rounded numbers)."""
    if not (_cc.SINGLE and isinstance(base, Gram)) or base.precomputed:
        return False
    return max(4, base._cache.capacity) < base.m


def _margin_steps(gram, q, alpha0, tol, max_iter, every, callback):
    """The pair steps of :func:`kernelclf.margin.separability.hard_margin_bounds` without
    threshold (``_solve(0, inf, gram, s=1, kernel_signs=q, alpha0=alpha0, shrinking=False,
    callback=callback, callback_every=every, bias=False)``) on a stored matrix without
    ridge, compiled: the same operations on the same numbers as that call (so the same
    iterates), without its set-up for the general problem (argument checks, the result's
    KKT gap and objective, which the bounds do not read). Returns ``(alpha, gradient,
    iterations, code)`` with ``code`` one of ``'done'``, ``'maxiter'``, ``'stalled'``,
    ``'stopped'``; ``None`` when that call would not run the compiled loop on the stored
    matrix with the product start (no numba, a ridge, columns on demand, a zero weight
    in ``alpha0``): the caller then calls ``_solve``."""
    K = gram.stored() if HAVE_NUMBA and isinstance(gram, Gram) and not gram.ridge else None
    if K is None:
        return None
    m = q.size
    alpha = np.array(alpha0, dtype=float)
    if alpha.shape != (m,) or np.count_nonzero(alpha) != m or not np.all(alpha > 0):
        return None
    s = np.ones(m)
    r = np.zeros(m)
    Kd = np.asarray(gram.diag, dtype=float) + r
    slots = ColumnSlots(gram)
    # F = s * p - s * (Q alpha), as _solve and _subtract_start compute it (p = 0)
    F = s * np.zeros(m)
    sa = s * alpha
    F -= q * ((q * sa) @ K) + (r + gram.ridge) * sa

    def on_every(it, up, low):
        return bool(every and it % every == 0 and callback(alpha, -s * F))

    code, it = _cc.run_pairwise(slots, Kd, r, q, s, np.zeros(m, dtype=np.int64), 1,
                                np.full(m, np.inf), alpha, F, float(tol), max_iter, False,
                                np.inf, None, every, on_every,
                                getattr(callback, "margin_test", None))
    return alpha, -s * F, it, _HOW[code]


_HOW = {_cc.DONE: "done", _cc.MAXITER: "maxiter", _cc.STALLED: "stalled",
        _cc.CALLBACK: "stopped", _cc.UNBOUNDED: "unbounded"}


def _signs(v, m, name):
    """A vector of ``m`` signs +1/-1 (checked)."""
    v = np.asarray(v, dtype=float).ravel()
    if v.shape != (m,) or not np.all(np.abs(v) == 1):      # (NaN is not +/-1)
        raise ValueError(f"{name} must be a vector of +1/-1 of the same length as p")
    return v


def _bounds(C, m):
    """The upper bounds as a vector: a number or ``m`` numbers ``> 0`` (``inf`` allowed)."""
    C = np.asarray(C, dtype=float)
    if C.ndim > 1 or (C.ndim == 1 and C.size != m):
        raise ValueError(f"C must be a number or a vector of {m} upper bounds, got shape "
                         f"{C.shape}")
    C = np.broadcast_to(C, (m,)).copy()
    if np.any(np.isnan(C)) or np.any(C <= 0):
        raise ValueError("upper bounds C must be > 0")
    return C


def _wrap_columns(getcol, q, r, signed):
    """Columns of ``diag(q) K diag(q) + diag(r)`` from columns of ``K`` (NumPy engine;
    the compiled loops compute the same numbers element by element)."""
    shifted = bool(np.any(r))
    if not signed and not shifted:
        return getcol

    def column(i):
        col = getcol(i) * (q * q[i]) if signed else np.array(getcol(i), dtype=float)
        if shifted:
            col[i] += r[i]
        return col
    return column


def _subtract_start(F, alpha, s, q, shift, gram, getcol):
    """``F -= s * (Q alpha)`` for a starting point ``alpha`` (``Q = diag(q s) (K + ridge I)
    diag(q s) + diag(shift)``, ``getcol`` its signed columns). On a stored matrix, when
    every ``alpha_k`` is non-zero (the margin bounds' start,
    :func:`kernelclf.margin.separability.hard_margin_bounds`), as one product,
    ``q * (K' v) + (ridge + shift) s alpha`` with ``v = q s alpha`` (the columns as
    ``getcol`` reads them: rows of the stored matrix); else one column per non-zero
    ``alpha_k`` (a matrix computed on demand keeps them cached for the solver). The two
    agree to round-off. The sparse starts of the other machines (the nu-SVM's, a warm
    start) keep the column sum: a fit stopped at ``tol`` may end at another point within
    ``tol`` when the last bits of ``F`` change."""
    nz = np.flatnonzero(alpha)
    K = gram.stored() if isinstance(gram, Gram) else None
    if K is not None and nz.size == alpha.size:
        sa = s * alpha
        F -= q * ((q * sa) @ K) + (shift + gram.ridge) * sa
        return
    for k in nz:
        F -= getcol(k) * (s[k] * alpha[k])


def _blocks(gram, slots):
    """``idx -> K[:, idx]`` for the polish, where the solver reads the plain columns of
    ``gram`` (no signs, no shift): rows of a stored matrix without ridge (the columns as
    the solver reads them; a transposed view, no copy of the block), or the compiled
    engine's cached columns; None (one column at a time) otherwise."""
    K = gram.stored() if isinstance(gram, Gram) and not gram.ridge else None
    if K is not None:
        return _StoredColumns(K)
    return None if slots is None else slots.columns


class _StoredColumns:
    """``idx -> K[idx].T`` (the columns ``idx`` of a stored matrix as the solver reads them:
    its rows, a transposed view), with the matrix as ``rows`` (the polish reads ``K[F, F]``
    from it in place, :func:`kernelclf.margin.smo.kkt._rows_of`)."""

    __slots__ = ("rows",)

    def __init__(self, K):
        self.rows = K

    def __call__(self, idx):
        return self.rows[idx].T


def _replicated_columns(slots, gram):
    """Columns of a :class:`~kernelclf.kernels.gram.Replicated` matrix from the cached
    columns of its base."""
    points, copies = gram.points, gram.copies
    return lambda u: np.tile(slots.column(int(points[u])), copies)


def _result(p, C, s, gmask, alpha, F, it, how, alpha_bound, bias=True):
    """The result; its ``gap`` is the full problem's at the final point (after any stop,
    the gradient of every variable is exact there). ``bias=False``: without ``bias`` and
    ``rho`` (:func:`_solve`)."""
    if how == "unbounded":
        raise DualDivergenceError(
            f"dual variable exceeded {alpha_bound:g} after {it} iterations: the dual is "
            "unbounded (the sample is not separable in feature space)")
    G = -s * F
    up_low = None if gmask is None else _up_low(alpha, C, s)   # (for the gap and the bias)
    res = SMOResult(alpha=alpha, objective=float(0.5 * alpha @ (G - p)), bias=0.0,
                    iterations=it, gap=_kkt_gap(F, alpha, C, s, gmask, up_low),
                    converged=how == "done", gradient=G, stalled=how == "stalled")
    if gmask is None or not bias:
        return res
    if len(gmask) == 1:
        res.bias = _bias(F, alpha, C, s, *up_low)
    else:
        # each group must have one sign (the nu-SVM groups are the classes)
        r = {float(s[gm][0]): _group_rho(F, alpha, C, s, gm) for gm in gmask}
        rpos, rneg = r.get(1.0, 0.0), r.get(-1.0, 0.0)
        res.bias = float(-(rpos - rneg) / 2.0)
        res.rho = float((rpos + rneg) / 2.0)
    return res
