"""Book chapters 04 and 13 (``book/04_support_vector_machines.md``, ``book/13_relative_margin_machines.md``).

The dual problem of a kernel machine, its two solvers and its threshold.

LKC §2.4 and App. B.5 (the SVM duals), App. D (the quadratic program); Chang & Lin (2011),
*LIBSVM: a library for support vector machines* (one dual form for every machine, and the
threshold); Shivaswamy & Jebara (2010), RMM eq. 12.

Every dual kernel machine of the package states its dual as one problem::

    minimise    1/2 a' Q a - p' a
    subject to  0 <= a_t <= box_t                                   (box_t may be inf)
                sum_{t in g} s_t a_t = c_g      for each group g     (optional)

in ``n`` variables ``a``. Each variable ``t`` belongs to one training example ``i(t)``
(``points``; the identity when there is one variable per example) and
``Q_tu = r_t r_u K_{i(t) i(u)} + shift_t [t = u]`` with the kernel matrix ``K`` of the
examples, the signs ``r = q s`` (``s`` the signs of the equalities, ``q`` optional signs
folded into the kernel) and a diagonal ``shift`` (the quadratic soft margin's ``1/C_i``,
LKC eq. 2.50). The constants ``c_g`` are those of the starting point ``alpha0`` (0 without
one). The machine's function is the expansion ``f(x) = sum_i coef_i k(x_i, x) + b`` with
``coef_i = sum_{t: i(t) = i} r_t a_t / scale`` (:meth:`DualProblem.coefficients`).

=================  ==========  ===============  =================  ==================
machine            variables   ``s``            ``p``              box
=================  ==========  ===============  =================  ==================
C-SVM (LKC 2.48)   ``m``       ``y``            ``1``              ``C_i`` (inf: hard)
nu-SVM (LKC 2.52)  ``m``       ``y`` (2 groups) ``0``              ``1`` (scale ``m``)
epsilon-SVR        ``2m``      ``(1, -1)``      ``(t - e, -t - e)``  ``C``
RMM (eq. 12)       ``3m``      ``(y, -1, +1)``  ``(1, -B, -B)``    ``(C, U, U)``
Universum SVM      ``m + 2u``  ``(y, +1, -1)``  ``(1, -e, -e)``    ``(C, C_U, C_U)``
=================  ==========  ===============  =================  ==================

:func:`solve_dual` solves it by the package's SMO (:func:`kernelclf.margin.smo.solve_smo`) or
as one dense quadratic program (:func:`kernelclf.optim.solve_qp`, LKC App. D). The
multiplier of each equality, i.e. the threshold, is computed here and nowhere else in the
dual machines: by libsvm's rule from the SMO's solution (:func:`equality_multipliers`), by
maximising the Lagrangian in it from an interior-point solution, whose multipliers never
sit exactly at their bounds (:func:`interior_multipliers`); at an exact optimum both give
the same threshold.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels.gram import Gram, Replicated
from ..optim import solve_qp
from .smo import HAVE_NUMBA
from .smo import _solve as _solve_smo

__all__ = ["DualProblem", "DualSolution", "equality_multipliers", "interior_multipliers",
           "solve_dual", "fill_from_front"]


@dataclass
class DualProblem:
    """One dual problem (module docstring): what a machine hands to :func:`solve_dual`.

    Attributes
    ----------
    p : (n,) array
        Linear term.
    box : float or (n,) array
        Upper bounds (``np.inf`` allowed).
    s : (n,) array of +/-1
        Signs of the equalities (the labels for the SVMs).
    points : (n,) int array or None
        Example of each variable (``None``: variable ``t`` is example ``t``).
    groups : (n,) array or None
        Equality group of each variable (``None``: one group).
    equality : bool
        Keep the equalities (a machine with a bias) or not.
    shift : float or (n,) array
        Added to the diagonal of ``Q``.
    kernel_signs : (n,) array of +/-1 or None
        Signs ``q`` folded into the kernel only (``r = q s``).
    alpha0 : (n,) array or None
        Feasible start; fixes the equality constants.
    scale : float
        The machine's multipliers are ``a / scale`` (the nu-SVM's ``m``).
    alpha_bound : float
        The SMO stops with :class:`~kernelclf.margin.smo.DualDivergenceError` beyond it.
    newton_every : int
        The SMO's periodic Newton step on the free variables (0: none).
    inequality : tuple (A2, b2) or None
        Extra constraints ``A2 a <= b2``, for the quadratic program only.
    """

    p: np.ndarray
    box: np.ndarray
    s: np.ndarray
    points: np.ndarray | None = None
    groups: np.ndarray | None = None
    equality: bool = True
    shift: float | np.ndarray = 0.0
    kernel_signs: np.ndarray | None = None
    alpha0: np.ndarray | None = None
    scale: float = 1.0
    alpha_bound: float = np.inf
    newton_every: int = 0
    inequality: tuple | None = field(default=None, repr=False)

    @property
    def n(self):
        """Number of variables."""
        return self.p.size

    def signs(self):
        """``r = q s``, the signs of the variables in ``Q`` and in the expansion."""
        return self.s if self.kernel_signs is None else self.kernel_signs * self.s

    def coefficients(self, a, m):
        """The expansion coefficients ``coef_i = sum_{i(t) = i} r_t a_t / scale`` of the
        ``m`` examples."""
        ra = self.signs() * a
        if self.points is not None:
            ra = np.bincount(self.points, weights=ra, minlength=m)
        return ra / self.scale if self.scale != 1.0 else ra

    def by_example(self, a, m):
        """The variables at their examples: a ``(blocks, m)`` array whose row ``j`` holds the
        ``j``-th block of variables (``n / blocks`` consecutive variables over the same
        examples, e.g. ``alpha`` and ``alpha^*`` of the SVR) at the examples they belong to,
        0 for an example without variable (left out of the dual)."""
        points = np.arange(self.n) if self.points is None else self.points
        k = np.unique(points).size
        blocks = self.n // k
        out = np.zeros((blocks, m))
        for j in range(blocks):
            out[j, points[j * k:(j + 1) * k]] = a[j * k:(j + 1) * k]
        return out

    def outputs(self, a, gradient, m):
        """``(K coef)_i``, the outputs without threshold on the examples, read off the
        gradient ``Q a - p`` (from the first variable of each example; nan for an example
        without variable)."""
        r = self.signs()
        shift = np.broadcast_to(np.asarray(self.shift, dtype=float), (self.n,))
        out = r * (gradient + self.p - shift * a)
        if self.points is not None:
            examples, first = np.unique(self.points, return_index=True)
            full = np.full(m, np.nan)
            full[examples] = out[first]
            out = full
        return out / self.scale if self.scale != 1.0 else out

    def matrix(self, K):
        """The dense ``Q`` from the examples' kernel matrix ``K`` (quadratic program)."""
        if self.points is not None:
            K = K[np.ix_(self.points, self.points)]
        r = self.signs()
        H = (r[:, None] * K) * r[None, :]
        if np.any(self.shift):
            H[np.diag_indices(self.n)] += self.shift
        return H

    def equalities(self):
        """``(A, c)``: one row ``s_t [t in g]`` per group and the constants of ``alpha0``."""
        groups = np.zeros(self.n) if self.groups is None else self.groups
        A = np.array([self.s * (groups == g) for g in np.unique(groups)])
        c = A @ self.alpha0 if self.alpha0 is not None else np.zeros(len(A))
        return A, c


def fill_from_front(total, box):
    """A feasible start for an equality ``sum a = total``: ``a_t = min(box_t, what is left of
    total)``, from the front (libsvm's start for the nu-SVM, the nu-SVR and the one-class
    SVM)."""
    box = np.asarray(box, dtype=float)
    before = np.concatenate([[0.0], np.cumsum(box)[:-1]])
    return np.clip(total - before, 0.0, box)


@dataclass
class DualSolution:
    """A solution of a :class:`DualProblem` by :func:`solve_dual`.

    Attributes
    ----------
    alpha : (n,) array
        The minimiser ``a``.
    gradient : (n,) array
        ``Q a - p``.
    objective : float
        ``1/2 a'Qa - p'a``.
    multipliers : list of float
        The multiplier of each equality group (in the order of ``np.unique(groups)``),
        from :func:`equality_multipliers` (SMO) or :func:`interior_multipliers` (QP);
        empty without equalities.
    iterations : int
        SMO steps, or interior-point iterations.
    converged : bool
    route : {'smo', 'qp'}
    gap : float
        The SMO's final maximal KKT violation (0 for the quadratic program).
    """

    alpha: np.ndarray
    gradient: np.ndarray
    objective: float
    multipliers: list
    iterations: int
    converged: bool
    route: str
    gap: float = 0.0

    @property
    def bias(self):
        """The threshold ``b`` of a one-group problem (0 without equality)."""
        return float(self.multipliers[0]) if self.multipliers else 0.0


def equality_multipliers(F, a, box, s, groups=None):
    """The multiplier of each equality group by libsvm's rule (Chang & Lin 2011).

    ``F_t = -s_t (Q a - p)_t`` equals the group's multiplier on every free variable
    (``0 < a_t < box_t``); their mean is returned, or, when no variable of the
    group is free, the midpoint of the interval the variables at a bound leave
    (``max F`` over those that may move up, ``min F`` over those that may move down). For
    the C-SVM, SVR, the RMM and the Universum SVM the multiplier is the threshold ``b``;
    the nu-SVM turns its two into ``b`` and ``rho``. For the SMO's solutions, whose
    variables sit exactly at their bounds (an interior-point solution has
    :func:`interior_multipliers`).
    """
    box = np.broadcast_to(np.asarray(box, dtype=float), a.shape)
    at_low = a <= 0
    at_up = a >= box
    free = ~at_low & ~at_up
    if groups is None and free.any():       # one group with free variables (the usual)
        return [float(F[free].mean())]
    pos = s > 0
    up = np.where(pos, ~at_up, ~at_low)
    low = np.where(pos, ~at_low, ~at_up)
    groups = np.zeros(a.size) if groups is None else groups
    out = []
    for g in np.unique(groups):
        gm = groups == g
        fg = free & gm
        if fg.any():
            out.append(float(F[fg].mean()))
            continue
        ub = float(np.min(F, where=low & gm, initial=np.inf))
        lb = float(np.max(F, where=up & gm, initial=-np.inf))
        vals = [v for v in (ub, lb) if np.isfinite(v)]
        out.append(float(np.mean(vals)) if vals else 0.0)
    return out


def interior_multipliers(F, box, s, groups=None, const=None):
    """The multiplier of each equality group for an interior-point solution.

    Its multipliers are never exactly at their bounds, so libsvm's rule
    (:func:`equality_multipliers`) cannot tell the free ones. Instead, with the gradient
    fixed, each group's multiplier ``mu`` maximises the Lagrangian, linear in the
    variables: ``phi(mu) = sum_t box_t min(0, s_t (mu - F_t)) - c_g mu``, where an
    infinite box makes ``s_t (mu - F_t) >= 0`` a constraint. For the C-SVM and the RMM this
    is the threshold minimising the primal (hinge losses and output bounds) for the fitted
    ``w``. ``phi`` is concave and piecewise linear: its maximum is at one of the ``F_t``
    (or an end of the constraints' interval); on a flat top the midpoint is returned.
    At an exact optimum this is libsvm's threshold.
    """
    box = np.broadcast_to(np.asarray(box, dtype=float), F.shape)
    groups = np.zeros(F.size) if groups is None else groups
    labels = np.unique(groups)
    const = np.zeros(len(labels)) if const is None else const
    out = []
    for g, c in zip(labels, const):
        gm = groups == g
        fin = gm & np.isfinite(box)
        pos, neg = fin & (s > 0), fin & (s < 0)
        lo = float(np.max(F, where=gm & ~fin & (s > 0), initial=-np.inf))
        hi = float(np.min(F, where=gm & ~fin & (s < 0), initial=np.inf))
        if lo > hi:
            out.append(0.5 * (lo + hi))
            continue
        ends = [v for v in (lo, hi) if np.isfinite(v)]
        cand = np.unique(np.concatenate([np.clip(F[fin], lo, hi), ends]))
        if cand.size == 0:
            out.append(0.0)
            continue
        Fp, wp = _sorted(F[pos], box[pos])
        Fn, wn = _sorted(F[neg], box[neg])
        # sum over s > 0, F > u of box (u - F); over s < 0, F < u of box (F - u)
        k = np.searchsorted(Fp, cand, side="right")
        W, WF = _tail_sums(wp, wp * Fp)
        j = np.searchsorted(Fn, cand, side="left")
        V, VF = _head_sums(wn, wn * Fn)
        phi = (cand * W[k] - WF[k]) + (VF[j] - cand * V[j]) - float(c) * cand
        best = phi.max()
        arg = cand[phi >= best - 1e-10 * max(1.0, abs(best))]
        out.append(float(0.5 * (arg.min() + arg.max())))
    return out


def _sorted(F, w):
    order = np.argsort(F, kind="stable")
    return F[order], w[order]


def _tail_sums(w, wF):
    """``sum_{r >= k}`` of ``w`` and ``wF`` for every ``k`` (0 at the end)."""
    return (np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]]),
            np.concatenate([np.cumsum(wF[::-1])[::-1], [0.0]]))


def _head_sums(w, wF):
    """``sum_{r < k}`` of ``w`` and ``wF`` for every ``k`` (0 at the start)."""
    return np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(wF)])


class _Replicated(Replicated):
    """:class:`~kernelclf.kernels.gram.Replicated` without the whole replicated matrix when
    the compiled engine runs (it reads the base's columns; only the NumPy engine reads rows
    of the whole matrix, whose copy would cost more than a small fit)."""

    WHOLE_MB = 0.0 if HAVE_NUMBA else Replicated.WHOLE_MB


def _smo_matrix(problem, gram):
    """The matrix handed to the SMO: the Gram itself, a replicated view of it, or the
    gathered matrix for any other map of variables to examples."""
    points = problem.points
    if points is None:
        return gram
    m = gram.diag.shape[0]
    copies = problem.n // m
    if copies * m == problem.n and np.array_equal(points, np.tile(np.arange(m), copies)):
        return _Replicated(gram, copies)
    return Gram(G=gram.full()[np.ix_(points, points)], check=False)


def solve_dual(problem, gram, *, solver="smo", tol=1e-3, max_iter=None, qp_tol=1e-8,
               engine="auto", alpha0=None, polish=True):
    """Solve ``problem`` on the examples' kernel matrix ``gram`` (a
    :class:`kernelclf.kernels.gram.Gram`).

    ``solver='smo'``: :func:`kernelclf.margin.smo.solve_smo` (tolerance ``tol``, cap
    ``max_iter``, with its exact solution on the free variables at the end unless
    ``polish=False``); ``'qp'``: :func:`kernelclf.optim.solve_qp` on the dense
    ``Q`` (tolerance ``qp_tol``; ``problem.inequality`` only here). ``alpha0`` overrides
    the problem's start (a warm start with the same equality constants). Returns a
    :class:`DualSolution` whose multipliers come from :func:`equality_multipliers`.
    """
    p, s = problem.p, problem.s
    box = np.broadcast_to(np.asarray(problem.box, dtype=float), (problem.n,))
    groups = problem.groups
    if solver == "qp":
        H = problem.matrix(gram.full())
        kw = {}
        if problem.equality:
            A, c = problem.equalities()
            kw = {"A1": A, "b1": c}
        if problem.inequality is not None:
            kw["A2"], kw["b2"] = problem.inequality
        sol = solve_qp(H, -p, l=0.0, u=None if np.all(np.isinf(box)) else box, tol=qp_tol,
                       **kw)
        a = np.clip(sol.x, 0.0, box)
        G = H @ a - p
        objective = float(0.5 * a @ (H @ a) - p @ a)
        mult = interior_multipliers(-s * G, box, s, groups, kw["b1"]) if problem.equality \
            else []
        n_iter, converged, gap = int(sol.iterations), True, 0.0
    else:
        kw = dict(groups=groups, equality=problem.equality, tol=tol, max_iter=max_iter,
                  polish=polish, alpha_bound=problem.alpha_bound, engine=engine,
                  alpha0=problem.alpha0 if alpha0 is None else alpha0,
                  kernel_signs=problem.kernel_signs, newton_every=problem.newton_every,
                  bias=False)        # (the multipliers are computed below, once)
        matrix = _smo_matrix(problem, gram)
        if np.ndim(problem.shift) or (problem.shift and not isinstance(matrix, Gram)):
            kw["diag_shift"] = problem.shift
        elif problem.shift:         # a single number lives in the Gram's ridge
            matrix = matrix.with_ridge(float(problem.shift))
        res = _solve_smo(np.ascontiguousarray(p, dtype=float), np.array(box, dtype=float),
                         matrix, s=np.ascontiguousarray(s, dtype=float), **kw)
        if not np.all(np.isfinite(res.alpha)):     # an infinite step: the dual is unbounded
            raise ValueError("the dual problem is unbounded (the SMO took an infinite step); "
                             "check that the kernel is positive semi-definite")
        a, G, objective = res.alpha, res.gradient, float(res.objective)
        mult = equality_multipliers(-s * G, a, box, s, groups) if problem.equality else []
        n_iter, converged, gap = int(res.iterations), bool(res.converged), float(res.gap)
    return DualSolution(alpha=a, gradient=G, objective=objective, multipliers=mult,
                        iterations=n_iter, converged=converged, route=solver, gap=gap)
