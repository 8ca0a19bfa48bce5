"""Relative margin machines, their relaxed variants and the whitened (Sigma-) SVM.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010),
"Maximum relative margin and data-dependent regularization", JMLR 11 (RMM), §3.1–3.4;
erratum E19 of book chapter 00 (KKT list of §3.3).

The relative margin machine (RMM eq. 8, in the QP form eq. 11) is the soft-margin SVM
with an explicit bias plus the output bounds ``-B <= w'x_i + b <= B``::

    min 1/2 ||w||^2 + C sum xi_i
    s.t. y_i (w'x_i + b) >= 1 - xi_i,  xi_i >= 0,  |w'x_i + b| <= B     (i = 1..m)

Its dual (RMM eq. 12), with ``v = alpha o y - lam + lam*``, is::

    max  sum alpha_i - B sum (lam_i + lam*_i) - 1/2 v'Kv
    s.t. 1'v = 0,  0 <= alpha <= C,  lam, lam* >= 0

and ``f(x) = sum_j v_j k(x_j, x) + b``. The package's ``alpha_`` is the expansion ``v``
over all ``m`` points (the package convention: signed coefficients of ``f``);
``multipliers_`` holds the classification multipliers ``alpha`` and ``beta_`` the
multipliers ``(lam, lam*)`` of the two bounds. As in scikit-learn's ``SVC``, ``support_``
lists the points with ``v_j != 0`` (those of ``classes_[0]`` first) and ``dual_coef_`` is
the ``(1, n_SV)`` array of their ``v_j``; with ``B = None`` (or a large ``B``) the RMM is
the SVM and these equal ``SVC``'s.

The dual (``rmm_problem``) and its fast solver
(:func:`~kernelclf.margin.rmm_solver.solve_rmm`) are in :mod:`kernelclf.margin.rmm_solver`;
:func:`solve_rmm_qp` here solves the same dual as a quadratic programme (the reference the
fast solver is tested against). The estimators state this dual; the fit, the threshold,
the stored attributes and the decision function come from the dual machines' base
(``kernelclf.margin._dual``), shared with the SVMs. The relaxed RMM solves several duals
(a bisection on its bound ``t``) and completes the interior-point solution by a linear
programme; the Sigma-SVM is the SVM's dual on a whitened kernel.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..base import KERNEL_CONSTRAINT, Int, Real
from ..kernels.gram import Gram
from ..kernels.whitened import WhitenedKernel
from ..optim import solve_lp
from ._dual import DUAL_KERNEL_CONSTRAINT, DualClassifier
from ._dual_problem import solve_dual

__all__ = [
    "solve_rmm_qp", "kkt_violations", "rmm_bound", "RelativeMarginMachine", "RelaxedRMM",
    "SigmaSVM",
]

from .rmm_solver import _check_B, rmm_problem, rmm_result


def solve_rmm_qp(K, y, C, B, *, lam_ub=np.inf, budget=None, tol=1e-9):
    """Solve the RMM dual (eq. 12) as one dense QP (reference solver; cvxopt, or NumPy).

    Variables ``z = (alpha, lam, lam*)`` (``3m``); ``H = S (1 1' (x) K) S`` with
    ``S = diag(y, -1, +1)``; the equality is ``s'z = 0`` (LKC eq. D.1 form through
    :func:`kernelclf.optim.solve_qp`). ``B=None`` solves the SVM dual (eq. 5).
    With ``budget=D`` the linear cost of the bound multipliers is 1 and
    ``sum(lam + lam*) <= D`` is added: the dual of the variable-bound RMM eq. 14
    (and, with ``lam_ub = D nu / m``, of the relaxed RMM eq. 15); its value then
    includes the constant ``D``.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    Bv = np.inf if B is None else float(B)
    problem = rmm_problem(y, float(C), Bv, float(lam_ub), budget=budget)
    sol = solve_dual(problem, Gram(G=K, check=False), solver="qp", qp_tol=tol)
    if budget is None:
        return rmm_result(problem, sol, y, Bv)
    res = rmm_result(problem, sol, y, 1.0)
    res.bias = np.nan                       # completed by the caller (depends on t)
    res.objective += float(budget)
    return res


def kkt_violations(res, y, C, B, eps=1e-3, zero=0.0):
    """Check the KKT termination list of RMM §3.3 (with erratum E19) for a solution.

    Returns a dict ``{condition: number of violating points}`` for the seven
    conditions (only the three on ``alpha`` when ``B`` is ``None`` or infinite),
    evaluated with ``f_i = g_i + b`` and tolerance ``eps``; ``zero``
    decides when a multiplier counts as being at its bound (0 for the fast solver,
    whose variables sit exactly at bounds).
    """
    y = np.asarray(y, dtype=float)
    f = res.g + res.bias
    a, lam, lams = res.alpha, res.lam, res.lam_star
    free = (a > zero) & (a < C - zero)
    at0 = a <= zero
    atC = a >= C - zero
    out = {
        "0<alpha<C: |y - g - b| <= eps": int(np.sum(free & (np.abs(y - res.g - res.bias) > eps))),
        "alpha=0: y f >= 1 - eps": int(np.sum(at0 & (y * f < 1 - eps))),
        "alpha=C: y f <= 1 + eps": int(np.sum(atC & (y * f > 1 + eps))),
    }
    if B is not None and np.isfinite(B):
        out["lam>0: |f - B| <= eps"] = int(np.sum((lam > zero) & (np.abs(f - B) > eps)))
        out["lam=0: f <= B + eps (E19)"] = int(np.sum((lam <= zero) & (f > B + eps)))
        out["lam*>0: |-f - B| <= eps"] = int(np.sum((lams > zero) & (np.abs(-f - B) > eps)))
        out["lam*=0: -f <= B + eps (E19)"] = int(np.sum((lams <= zero) & (-f > B + eps)))
    return out


def rmm_bound(theta, k, K):
    """The bound ``B = 1 + (theta - 1) k / K`` between 1 and the SVM's largest output ``theta``.

    RMM §5.7 tries ``k / K = 1/2, 1/4, 1/10`` (its bounds B1, B2, B3); the paper's text
    names no other values of B (§5.2 tunes B by validation, and Figures 6 and 7 of §5.1
    and §5.3 sweep B from the SVM's end down towards 1, without listing the values).
    """
    return 1.0 + (float(theta) - 1.0) * float(k) / float(K)


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------
class _RMMBase(DualClassifier):
    """The RMM family on the dual machines' base: the dual of ``rmm_problem``, support
    ``v_i != 0``, the bounds' multipliers ``beta_`` and the training outputs."""

    def _costs(self, w):
        """``C_i = C w_i`` (``C`` without weights)."""
        return float(self.C) if w is None else float(self.C) * np.asarray(w, dtype=float)

    def _dual_problem(self, gram, y, w):
        """The SVM dual (RMM eq. 5 with bias) in ``rmm_problem``'s form, box ``C w_i``."""
        return rmm_problem(y, self._costs(w), np.inf)

    def _example_weights(self, X, y, sample_weight):
        w = super()._example_weights(X, y, sample_weight)
        self._weights = np.ones(len(y)) if w is None else w
        return w

    def _slack_cost(self, xi):
        """``sum_i C w_i xi_i`` (the weights of the last fit)."""
        return float(self.C) * float(np.sum(self._weights * xi))

    def _support_mask(self, coef, sol):
        return coef != 0

    def _outputs(self, problem, sol, m):
        """``(K v)_i`` and ``max_i |f(x_i)|`` of a solution."""
        g = problem.outputs(sol.alpha, sol.gradient, m)
        return g, float(np.max(np.abs(g + sol.bias)))

    def _store_extra(self, X, y, problem, sol):
        super()._store_extra(X, y, problem, sol)
        m = len(y)
        a = problem.by_example(sol.alpha, m)
        self.multipliers_ = a[0]
        self.beta_ = a[1:].T if len(a) > 1 else np.zeros((m, 2))
        g = self._train_outputs(X, problem, sol)
        self.train_outputs_ = g + self.intercept_
        self.w_norm_ = float(np.sqrt(max(float(self.alpha_ @ g), 0.0)))

    def primal_objective(self):
        """``1/2 ||w||^2 + C sum_i w_i xi_i`` at the fitted ``(w, b)`` (eq. 11; ``w_i`` the
        example weights, 1 without)."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return 0.5 * self.w_norm_ ** 2 + self._slack_cost(xi)


class RelativeMarginMachine(_RMMBase):
    """Relative margin machine with bias (RMM eq. 8 / QP form eq. 11, dual eq. 12).

    The soft-margin SVM of RMM eq. 4 with the additional bounds ``|w'x_i + b| <= B``
    on the training outputs: a large margin *relative to the spread* of the
    projections.

    Parameters
    ----------
    kernel : kernel object, name, callable or 'precomputed', default None (linear)
        ``'precomputed'`` (as scikit-learn's ``SVC``): ``fit`` takes the ``m x m`` Gram
        matrix of the training examples, ``decision_function`` and ``predict`` the
        ``n x m`` kernel matrix between test and training examples; ``X_fit_`` is then the
        training Gram matrix and ``support_vectors_`` its rows of the support vectors.
    C : float > 0
        Soft-margin constant (``1/2 ||w||^2 + C sum xi_i``, as
        :class:`kernelclf.margin.svm.SupportVectorMachine`).
    B : float or None
        The output bound. ``None`` gives the SVM. With ``B_mode='absolute'``
        ``B`` is the bound itself and must be > 1 (a ``ValueError`` otherwise);
        any ``B >= theta = max_i |f_SVM(x_i)|`` reproduces the SVM (same ``C``; at the
        optimum: with ``theta`` from a fit stopped at ``tol`` the two machines' outputs
        agree to about ``tol``).
        With ``B_mode='relative'``, ``B = kappa`` in ``(0, 1]`` places the bound at
        ``1 + (theta - 1) kappa``, the form of the bounds B1, B2, B3 of RMM §5.7
        (``kappa = 1/2, 1/4, 1/10``; the paper lists no other grid for B);
        ``kappa = 1`` is the SVM, ``kappa -> 0`` the tightest bound. The SVM is
        then fitted first (on the same Gram matrix) and warm-starts the RMM. When
        ``theta <= 1`` no bound above 1 is active and the SVM is returned.
    B_mode : {'absolute', 'relative'}
    solver : {'auto', 'smo', 'qp'}
        ``'smo'`` (and ``'auto'``): the decomposition solver :func:`~kernelclf.margin.rmm_solver.solve_rmm`;
        ``'qp'``: one interior-point QP on the whole dual (:func:`solve_rmm_qp` through
        :func:`kernelclf.optim.solve_qp`: cvxopt where it is installed, else the package's
        NumPy method; dense, ``3m`` variables, for checking).
    tol : float
        ``epsilon`` of the KKT list (§3.3) for the fast solver (paper: 0.001); the
        QP uses ``min(tol, 1e-8)``.
    max_iter : int or None
    cache_mb : float
        Memory for the training Gram matrix (columns on demand when m > 200). When the
        whole matrix fits (``8 m^2`` bytes; m <= 5120 at 200 MB), the compiled solver
        computes it at once after using a share of the columns set by the input
        dimension (:class:`kernelclf.kernels.gram.ColumnSlots`).

    Attributes
    ----------
    alpha_ : (m,) array
        Expansion coefficients ``v_i = alpha_i y_i - lam_i + lam*_i`` of ``f`` for all
        ``m`` training points.
    multipliers_ : (m,) array
        The dual's classification multipliers ``alpha_i`` in ``[0, C]`` for all ``m``
        points (the bounds' multipliers are in ``beta_``). ``SVC`` has no such
        attribute.
    beta_ : (m, 2) array
        Multipliers of the bounds: column 0 for ``f(x_i) <= B`` (``lam``), column 1
        for ``f(x_i) >= -B`` (``lam*``).
    dual_coef_ : (1, n_SV) array
        As scikit-learn's ``SVC.dual_coef_``: the expansion coefficients ``v_i`` of the
        support vectors in the order of ``support_`` (``alpha_[support_][None, :]``);
        without active bounds ``v_i = alpha_i y_i``, ``SVC``'s own values.
    support_ : (n_SV,) array of int
        Indices with ``v_i != 0``, in ``SVC``'s order: those of ``classes_[0]`` first,
        each class in index order.
    support_vectors_ : array or list
        ``X[support_]``, as ``SVC``.
    intercept_ : float
    coef_ : (1, d) array
        Linear kernel only (else ``AttributeError``): ``w = sum_i v_i x_i``, as
        ``SVC.coef_``.
    dual_objective_ : float
        Value of eq. 12 (equals :meth:`primal_objective` at the optimum).
    B_ : float
        The absolute bound used (``inf`` for the SVM).
    theta_ : float
        ``max_i |f_SVM(x_i)|`` (only computed with ``B_mode='relative'``; else nan).
    n_support_ : (2,) array of int
        Support vectors per class, in the order of ``classes_`` (as ``SVC``).
    n_iter_, converged_, train_outputs_, X_fit_, kernel_, classes_
    """

    _bound_tags = {"family": "rmm", "margin": "soft", "bias": True}  # kernelclf.bounds.report_tags
    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "B": [Real(None, None), None],
        "B_mode": [StrOptions({"absolute", "relative"})],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, B=None, B_mode="absolute", solver="auto",
                 tol=1e-3, max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.B = B
        self.B_mode = B_mode
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y, sample_weight=None):
        """Solve the RMM dual for ``(X, y)`` (any two labels).

        ``sample_weight`` : (m,) array of finite numbers >= 0, optional
            Per-example factor of ``C`` (box ``0 <= alpha_i <= C w_i``), as for the
            :class:`~kernelclf.margin.svm.SupportVectorMachine`; the output bounds apply
            to every example of positive weight (exactly at the optimum; a fit stopped at
            ``tol`` keeps ``|f(x_i)| <= B + tol``, the KKT list of RMM §3.3 with erratum
            E19, and can exceed ``B`` by more than round-off); weight 0 removes an example
            from the problem (a width taken from the data, ``gamma='scale'``, still sees
            every row of ``X``, as in ``SVC``).
        """
        self._validate_params()
        if self.B is not None:
            if self.B_mode == "absolute":
                _check_B(self.B)
            elif not 0 < float(self.B) <= 1:
                raise ValueError(f"with B_mode='relative' B is the fraction kappa in (0, 1] "
                                 f"of the grid 1 + (theta - 1) kappa, got B={self.B!r}")
        return self._fit(X, y, sample_weight)

    def _solve_sample(self, X, y, w):
        gram = self._gram(X)
        m = len(y)
        self.theta_ = np.nan
        start = None
        if self.B is None:
            B = np.inf
        elif self.B_mode == "absolute":
            B = float(self.B)
        else:
            svm_problem = self._dual_problem(gram, y, w)
            svm = self._solve_problem(svm_problem, gram)
            self.theta_ = self._outputs(svm_problem, svm, m)[1]
            # theta <= 1: every SVM output is inside the margin, so no bound B > 1 is
            # active and the RMM is the SVM for every B
            B = rmm_bound(self.theta_, float(self.B), 1.0)
            if not B > 1 or B >= self.theta_:
                B = np.inf
            start = svm.alpha
        self.B_ = B
        problem = rmm_problem(y, self._costs(w), B)
        if start is not None and problem.n > m:
            start = np.concatenate([start, np.zeros(2 * m)])
        return problem, self._solve_problem(problem, gram, alpha0=start)


class RelaxedRMM(_RMMBase):
    """The RMM with a learned bound ``t >= 1`` (RMM eq. 14) and its relaxation (eq. 15).

    Eq. 14: ``min 1/2 ||w||^2 + C sum xi + D t`` subject to the SVM constraints and
    ``|w'x_i + b| <= t``, ``t >= 1``. Eq. 15 (``nu`` given) adds slacks on the
    bounds, ``|f_i| <= t + tau_i`` with the penalty ``D (t + (nu/m) sum (tau + tau*))``;
    ``nu`` controls the fraction of points outside the band. The dual of both is
    eq. 12 with ``B = 1`` plus the budget ``sum(lam + lam*) <= D`` (and the box
    ``lam, lam* <= D nu / m`` for eq. 15), plus the constant ``D``.

    Parameters
    ----------
    kernel, C : as :class:`RelativeMarginMachine`
    D : float > 0
        Price of the bound ``t``.
    nu : float > 0 or None
        ``None``: hard bounds (eq. 14); else the relaxed RMM (eq. 15).
    solver : {'auto', 'smo', 'qp'}
        ``'qp'``: the dual above as one interior-point QP (cvxopt where it is installed,
        else the package's NumPy method). ``'smo'`` (``'auto'``): the optimal
        value is convex in ``t`` with slope ``D - sum(lam + lam*)`` (envelope
        theorem), so ``t`` is found by bisection on that slope, each point solving
        the fixed-``t`` problem (eq. 11 / its relaxation) with :func:`~kernelclf.margin.rmm_solver.solve_rmm`
        and warm starts.
    tol, max_iter, cache_mb : as :class:`RelativeMarginMachine`

    Attributes
    ----------
    t_ : float
        The learned bound.
    alpha_, multipliers_, beta_, dual_coef_, support_, support_vectors_, intercept_, dual_objective_, n_iter_
        As :class:`RelativeMarginMachine`.
    """

    _bound_tags = {"family": "relaxed_rmm", "margin": "soft", "bias": True}  # kernelclf.bounds.report_tags
    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "D": [Real(0, None, closed="neither")],
        "nu": [Real(0, None, closed="neither"), None],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, D=1.0, nu=None, solver="auto", tol=1e-3,
                 max_iter=None, cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.D = D
        self.nu = nu
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y, sample_weight=None):
        """Solve eq. 14 (``nu=None``) or eq. 15 for ``(X, y)``.

        ``sample_weight`` : (m,) array of finite numbers >= 0, optional
            Per-example weights ``w_i`` of the losses: ``C w_i xi_i`` and, for eq. 15,
            ``D nu w_i / W (tau_i + tau*_i)`` with ``W = sum_i w_i`` (``1/m`` without
            weights), so integer weights give the model of the repeated examples; the box
            of ``alpha_i`` is ``C w_i``, that of ``lam_i, lam*_i`` is ``D nu w_i / W``.
            Weight 0 removes an example from the problem (a width taken from the data,
            ``gamma='scale'``, still sees every row of ``X``, as in ``SVC``).
        """
        return self._fit(X, y, sample_weight)

    def _band_costs(self, w, m):
        """``U_i = D nu w_i / W`` (``D nu / m`` without weights; ``inf`` for eq. 14)."""
        if self.nu is None:
            return np.inf
        scale = float(self.D) * float(self.nu)
        return scale / m if w is None else scale * np.asarray(w, dtype=float) / float(np.sum(w))

    def _solve_sample(self, X, y, w):
        gram = self._gram(X)
        m = len(y)
        C, D = self._costs(w), float(self.D)
        U = self._band_costs(w, m)
        if self.solver == "qp":
            problem = rmm_problem(y, C, 1.0, U, budget=D)
            sol = self._solve_problem(problem, gram)
            b, self.t_ = self._complete(problem.outputs(sol.alpha, sol.gradient, m), y, C, U)
            # the budget's dual has the constant D; its threshold comes from the LP
            return problem, replace(sol, multipliers=[b], objective=sol.objective - D)
        problem, sol, self.t_ = self._bisect(gram, y, C, D, U)
        return problem, sol

    def _penalty(self, f, t):
        if self.nu is None:
            return float(self.D) * t
        over = np.maximum(0.0, f - t) + np.maximum(0.0, -f - t)
        w = self._weights
        return float(self.D) * (t + float(self.nu) * float(np.sum(w * over)) / float(w.sum()))

    def primal_objective(self):
        """Value of eq. 14 / 15 at the fitted ``(w, b, t)``."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return (0.5 * self.w_norm_ ** 2 + self._slack_cost(xi)
                + self._penalty(f, self.t_))

    def _complete(self, g, y, C, U):
        """Bias and bound for a fixed ``w`` (``g = Kv``): the LP over ``(b, t, slacks)``
        with the slack costs ``C`` (of ``xi``) and ``U`` (of ``tau, tau*``)."""
        m = len(y)
        D = float(self.D)
        # variables: b, t, xi (m), tau (m), tau* (m)
        soft = self.nu is not None
        n = 2 + m + (2 * m if soft else 0)
        c = np.zeros(n)
        c[1] = D
        c[2:2 + m] = C
        if soft:
            c[2 + m:] = np.tile(np.broadcast_to(U, (m,)), 2)
        rows, rhs = [], []
        I = np.eye(m)
        # -y_i b - xi_i <= y_i g_i - 1
        A = np.zeros((m, n))
        A[:, 0] = -y
        A[:, 2:2 + m] = -I
        rows.append(A)
        rhs.append(y * g - 1.0)
        # b - t - tau_i <= -g_i ;  -b - t - tau*_i <= g_i
        A = np.zeros((m, n))
        A[:, 0] = 1.0
        A[:, 1] = -1.0
        if soft:
            A[:, 2 + m:2 + 2 * m] = -I
        rows.append(A)
        rhs.append(-g)
        A = np.zeros((m, n))
        A[:, 0] = -1.0
        A[:, 1] = -1.0
        if soft:
            A[:, 2 + 2 * m:] = -I
        rows.append(A)
        rhs.append(g)
        lo = np.zeros(n)
        lo[0] = -np.inf
        lo[1] = 1.0
        sol = solve_lp(c, A2=np.vstack(rows), b2=np.concatenate(rhs), l=lo)
        return float(sol.x[0]), float(sol.x[1])

    def _bisect(self, gram, y, C, D, U):
        """``t`` by bisection on the slope ``D - sum(lam + lam*)`` (class docstring):
        ``(problem, solution, t)``, the solution's objective that of eq. 14 / 15."""
        m = len(y)
        total = 0

        def inner(t, start):
            nonlocal total
            problem = rmm_problem(y, C, t, U)
            r = self._solve_problem(problem, gram, alpha0=start)
            total += r.iterations
            return problem, r

        def spent(r):                           # sum(lam + lam*)
            return r.alpha[m:2 * m].sum() + r.alpha[2 * m:].sum()

        svm_problem = rmm_problem(y, C, np.inf)
        svm = self._solve_problem(svm_problem, gram)
        total += svm.iterations
        theta = self._outputs(svm_problem, svm, m)[1]
        if theta <= 1.0 + 1e-12:
            return svm_problem, replace(svm, objective=svm.objective - D,
                                        iterations=total), 1.0
        lo, hi = 1.0, theta
        p_lo, r_lo = inner(1.0 + 1e-9, np.concatenate([svm.alpha, np.zeros(2 * m)]))
        if spent(r_lo) <= D:
            problem, res, t = p_lo, r_lo, 1.0
        else:
            problem, res, t = svm_problem, svm, theta
            best = r_lo
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                p_mid, r = inner(mid, best.alpha)
                if spent(r) > D:
                    lo, best = mid, r
                else:
                    hi, problem, res, t = mid, p_mid, r, mid
                if hi - lo <= 1e-6 * hi:
                    break
        # objective of eq. 14/15 at the fixed-t solution: inner dual + D t
        obj = res.objective - D * t if t < theta else svm.objective - D * theta
        return problem, replace(res, objective=float(obj), iterations=total), t


class SigmaSVM(_RMMBase):
    """The whitened SVM, Sigma-SVM (RMM §3.1, primal eq. 6, dual eq. 7).

    ``min (1-D)/2 ||w||^2 + D/2 ||Sigma^{1/2} w||^2 + C sum xi`` on centred data;
    in kernel form an SVM with bias on the whitened kernel
    :class:`kernelclf.kernels.whitened.WhitenedKernel` (the formula for ``k-hat`` in §3.1),
    which costs O(m^3) once (an eigendecomposition of the centred Gram matrix).
    ``D = 0`` is the SVM on centred data (the same classifier as the SVM with bias);
    ``D -> 1`` approaches affine invariance.

    Parameters
    ----------
    kernel : base kernel (default linear)
    C : float > 0
    D : float in [0, 1)
    solver : {'auto', 'smo', 'qp'}
    tol, max_iter, cache_mb : as :class:`RelativeMarginMachine`

    Attributes
    ----------
    kernel_ : the fitted :class:`kernelclf.kernels.whitened.WhitenedKernel`
    alpha_, multipliers_, dual_coef_, support_, support_vectors_, intercept_, dual_objective_, n_iter_
        As :class:`RelativeMarginMachine` (``beta_`` is zero: the SVM has no output bounds).
    """

    _bound_tags = {"family": "sigma_svm", "margin": "soft", "bias": True}  # kernelclf.bounds.report_tags
    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "D": [Real(0, 1, closed="left")],
        "solver": [StrOptions({"auto", "smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
    }

    def __init__(self, kernel=None, C=1.0, D=0.5, solver="auto", tol=1e-3, max_iter=None,
                 cache_mb=200.0):
        self.kernel = kernel
        self.C = C
        self.D = D
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        """Fit the whitened kernel on ``X`` and solve the SVM dual (eq. 7) on it."""
        return self._fit(X, y)

    def _solve_sample(self, X, y, w):
        self.kernel_ = WhitenedKernel(self.kernel_, float(self.D)).fit(X)
        return super()._solve_sample(X, y, w)

    def _gram(self, X):
        return Gram(G=self.kernel_.train_gram_, kernel=self.kernel_, X=X)

    def primal_objective(self):
        """``1/2 w'((1-D) I + D Sigma) w + C sum xi`` (eq. 6) at the fitted solution."""
        f = self.train_outputs_
        xi = np.maximum(0.0, 1.0 - self.y_fit_ * f)
        return 0.5 * self.w_norm_ ** 2 + float(self.C) * float(xi.sum())
