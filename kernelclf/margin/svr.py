"""Book chapter 04 (``book/04_support_vector_machines.md``): epsilon-insensitive support vector regression.

LKC §2.4.4 (eq. 2.51, the epsilon-insensitive loss ``max(|t - f(x)| - eps, 0)``);
the regularised form is LKC eq. (5.19), whose stability LKC Example 5.33 bounds
(:func:`kernelclf.bounds.stability.svr_stability_bound`). Solver: libsvm's epsilon-SVR
(Chang & Lin 2011, §2.4; libsvm's ``solve_epsilon_svr``).

Primal. With the book's regulariser ``lambda``

``min_f (1/m) sum_i max(|t_i - f(x_i)| - eps, 0) + lambda ||f||^2``

is, after dividing by ``2 lambda``, the usual ``min 1/2 ||w||^2 + C sum_i (xi_i + xi_i^*)``
with ``C = 1/(2 lambda m)`` (the same rescaling as the classifier's, see
:mod:`kernelclf.margin.svm`); ``lambda_`` reports ``lambda``.

Dual. With ``beta = alpha - alpha^*`` (``alpha, alpha^* in [0, C]^m``)

``min 1/2 beta' K beta + eps sum_i (alpha_i + alpha_i^*) - t' beta``,  and ``1' beta = 0``
when a bias ``b`` is fitted,

a quadratic program in the ``2m`` variables ``z = (alpha, alpha^*)``. As libsvm does
(Chang & Lin 2011, §2.4), it is written in the form of the classifier's dual,
``min 1/2 z'Qz - p'z`` over the box ``[0, C]^{2m}`` with signs
``s = (+1, ..., +1, -1, ..., -1)``, ``Q = diag(s) [[K, K], [K, K]] diag(s)``,
``p = (t - eps, -t - eps)`` and, with a bias, the equality ``s'z = 0``, and solved by the
package's SMO (:func:`kernelclf.margin.smo.solve_smo`: pairwise steps with the equality,
coordinate descent without it; its polishing makes the result exact up to round-off when
SMO has found which variables sit at a bound, and is not kept otherwise). ``solver='qp'``
hands the same problem to the dense interior-point :func:`kernelclf.optim.solve_qp` (LKC
App. D form; O(m^3) per iteration), for checking and teaching. The prediction is
``f(x) = sum_i beta_i k(x_i, x) + b``. The bias comes from the Karush-Kuhn-Tucker
conditions: every free ``alpha_i`` gives ``b = t_i - eps - (K beta)_i``, every free
``alpha_i^*`` gives ``b = t_i + eps - (K beta)_i``; their mean is taken, or the midpoint of
the interval the bound multipliers leave when none is free (libsvm's rule, Chang & Lin 2011).
With these signs SMO's threshold (``F_t = -s_t (Qz - p)_t`` averaged over the free
variables) is exactly this rule; from the QP's interior point, whose multipliers are never
exactly at a bound, the threshold maximises the Lagrangian for the fitted ``beta`` (the same
number at an exact optimum). The estimator states this dual (``z`` has two variables per
example, read through one Gram matrix); the fit, the threshold, the stored attributes and
the prediction come from the dual machines' base (``kernelclf.margin._dual``).

Example weights. ``fit(X, y, sample_weight)`` gives example ``i`` the penalty ``C w_i``: the
box of ``alpha_i`` and ``alpha_i^*`` is ``[0, C w_i]`` (libsvm's ``solve_epsilon_svr`` with
per-example weights, scikit-learn's ``SVR(...).fit(X, y, sample_weight)``); examples of
weight 0 are left out.

``C = inf`` is the hard tube: at the optimum every target within ``epsilon`` of ``f`` (the
boxes are infinite, as for the hard-margin SVM). When no function of the kernel's feature
space (plus a bias) meets that, the dual is unbounded; the fit then stops with a
``ValueError`` once a linear program confirms that the tube is infeasible. On a nearly
singular Gram matrix SMO can instead stop at its iteration limit with a
``ConvergenceWarning``, and that fit can leave targets outside the tube although the tube
is feasible (60 points
uniform on ``[-3, 3]``, ``t = sin x`` plus noise 0.1, ``RBF(0.3)``, ``epsilon = 0.1``:
a target 0.2 outside; ``tests/test_svr.py``).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..base import Real
from ..kernels.gram import Gram
from ..optim import InfeasibleProblemError, SolverStoppedError, solve_lp
from ._dual import DUAL_KERNEL_CONSTRAINT, DualRegressor
from ._dual_problem import DualProblem
from .smo import DualDivergenceError, default_max_iter

# hard tube (C = inf): a multiplier beyond this means the dual is running off to infinity
_ALPHA_BOUND = 1e9

__all__ = ["SupportVectorRegression"]


class SupportVectorRegression(DualRegressor):
    """Book chapter 04 (``book/04_support_vector_machines.md``): epsilon-SVR (LKC §2.4.4, eq. 2.51).

    Minimises ``1/2 ||w||^2 + C sum_i max(|t_i - f(x_i)| - epsilon, 0)``, i.e. LKC's
    regularised risk (eq. 5.19) with the epsilon-insensitive loss and
    ``lambda = 1/(2 C m)``, by solving its dual in the ``2m`` variables
    ``(alpha, alpha^*)`` with the package's SMO, as libsvm's epsilon-SVR does (module
    docstring). Same problem and parameterisation as scikit-learn's ``SVR``.

    Parameters
    ----------
    kernel : kernel object, name, callable or 'precomputed', default None (linear)
        The kernel ``k``; cloned into ``kernel_`` at ``fit``. ``'precomputed'`` (as
        scikit-learn's ``SVR``): ``fit`` takes the ``m x m`` Gram matrix of the training
        examples, ``predict`` the ``n x m`` kernel matrix between test and training
        examples; ``X_fit_`` is then the training Gram matrix and ``support_vectors_`` its
        rows of the support vectors.
    C : float > 0 or inf, default 1.0
        Penalty of the epsilon-insensitive loss (per example ``C w_i`` with
        ``sample_weight``); ``inf``: the hard tube, every target within ``epsilon`` of the
        function at the optimum (not after a stop at the iteration limit; module docstring).
    epsilon : float >= 0, default 0.1
        Half-width of the tube in which errors cost nothing.
    fit_bias : bool, default True
        Fit the bias ``b`` (adds the constraint ``sum_i beta_i = 0``); ``False`` gives LKC's
        bias-free form.
    solver : {'smo', 'qp'}, default 'smo'
        SMO with second-order working-set selection on the ``2m``-variable dual
        (:func:`kernelclf.margin.smo.solve_smo`, libsvm's method; pairwise steps with the
        bias, coordinate descent without), or the dense interior-point QP of
        :func:`kernelclf.optim.solve_qp` (cvxopt's where cvxopt is installed, else the
        package's NumPy method; ``O(m^3)`` per iteration; for checking).
    tol : float > 0, default 1e-3
        SMO: tolerance on the maximal KKT violation (libsvm's 1e-3 by default), after
        which the KKT equations of the free variables are solved exactly when that keeps
        the point feasible (``solve_smo(polish=True)``, at most 1000 free variables), so
        the result is exact up to round-off whenever SMO has found which variables sit at
        a bound (otherwise it is SMO's, accurate to ``tol``); QP: gap tolerance of the
        interior-point method, at most ``1e-8``.

    Attributes
    ----------
    alpha_ : ndarray (m,)
        ``beta_i = alpha_i - alpha_i^*``, the expansion coefficients of ``f``.
    multipliers_ : ndarray (2m,)
        The dual variables ``(alpha, alpha^*)`` in ``[0, C]`` (``[0, C w_i]`` with
    ``sample_weight``).
    dual_coef_ : ndarray (1, n_SV)
        ``beta`` on the support vectors (scikit-learn's ``SVR`` layout).
    intercept_ : float
        The bias ``b`` (0 when ``fit_bias=False``).
    coef_ : ndarray (1, d)
        Linear kernel only (else ``AttributeError``): ``w = sum_i beta_i x_i``, as
        ``SVR.coef_``.
    support_ : ndarray of int
        Indices of the support vectors in increasing order (SMO: ``beta_i != 0``, as
        libsvm; QP: ``|beta_i| > 1e-7 C``, ``1e-7 max |beta|`` for ``C = inf``).
    support_vectors_ : array or list
        ``X[support_]`` (scikit-learn's layout).
    n_support_ : int
        ``len(support_)`` (``SVR.n_support_`` holds it in a one-element array).
    dual_objective_ : float
        ``1/2 beta'K beta + epsilon ||beta||_1 - t'beta`` at the solution.
    slack_ : ndarray (m,)
        Training losses ``xi_i + xi_i^* = max(|t_i - f(x_i)| - epsilon, 0)``.
    lambda_ : float
        The book's regulariser ``1/(2 C m)`` (LKC eq. 5.19, Example 5.33).
    n_iter_ : int
        SMO steps (QP: interior-point iterations).
    converged_ : bool
        Whether the SMO reached ``tol`` (else a ``ConvergenceWarning``).
    X_fit_, kernel_, n_features_in_
    """

    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="right")],
        "epsilon": [Real(0, None, closed="left")],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
    }

    def __init__(self, kernel=None, C=1.0, epsilon=0.1, fit_bias=True, solver="smo", tol=1e-3):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        """Fit to inputs ``X`` (array (m, d), or strings for a string kernel) and targets ``y``.

        ``sample_weight`` : (m,) array of finite numbers >= 0, optional
            Per-example factor of ``C`` (box ``[0, C w_i]`` of both multipliers), as
            scikit-learn's ``SVR``; weight 0 removes an example from the problem (a width
            taken from the data, ``gamma='scale'``, still sees every row of ``X``, as in
            ``SVC``).
        """
        return self._fit(X, y, sample_weight)

    def _gram(self, X):
        if self._precomputed():
            return super()._gram(X)
        # the whole matrix (its columns on demand would be other last bits: another SMO
        # path); the QP holds a (2m x 2m) matrix, i.e. 4 Gram-sized arrays, plus K
        return self._training_gram(X, copies=6, precompute=True)

    def _max_iter(self, m):
        return None                     # the SMO's own cap

    def _dual_problem(self, gram, t, w):
        """libsvm's epsilon-SVR dual (module docstring): ``z = (alpha, alpha^*)``, two
        variables per example, signs ``(+1, -1)``, ``p = (t - eps, -t - eps)``, box ``C w_i``
        (``C`` without weights), the equality ``s'z = 0`` with a bias."""
        m = len(t)
        eps = float(self.epsilon)
        C = float(self.C)
        box = C if w is None else np.tile(C * np.asarray(w, dtype=float), 2)
        return DualProblem(p=np.concatenate([t - eps, -t - eps]), box=box,
                           s=np.concatenate([np.ones(m), -np.ones(m)]),
                           points=np.tile(np.arange(m), 2), equality=bool(self.fit_bias),
                           alpha_bound=_ALPHA_BOUND if np.isinf(C) else np.inf)

    def _solve_sample(self, X, t, w):
        if not np.isinf(float(self.C)):
            return super()._solve_sample(X, t, w)
        gram = self._gram(X)
        problem = self._dual_problem(gram, t, w)
        if self._route() == "qp":
            try:
                sol = self._solve_problem(problem, gram)
            except DualDivergenceError:
                self._check_tube(gram, t)
                raise
            if not sol.converged:
                self._check_tube(gram, t)
            return problem, sol
        # as the hard-margin SVM: a short SMO run, then (if it has not converged) the LP
        # decides whether the tube is feasible before the remaining budget is spent (an
        # infeasible tube would otherwise run the whole budget, minutes without numba)
        max_iter = default_max_iter(len(problem.p))     # the SMO's own cap (2m variables)
        sol = self._solve_checked(problem, gram, len(t), max_iter,
                                  lambda: self._check_tube(gram, t))
        return problem, sol

    def _check_tube(self, gram, t):
        """``ValueError`` when no ``f = K beta + b`` has every ``|t_i - f_i| <= epsilon`` (an
        LP in ``(beta, b)``): the hard tube of ``C = inf`` is infeasible."""
        K = gram.full() if isinstance(gram, Gram) else np.asarray(gram)
        m = len(t)
        eps = float(self.epsilon)
        A = np.hstack([K, np.ones((m, 1)) if self.fit_bias else np.zeros((m, 1))])
        try:
            solve_lp(np.zeros(m + 1), A2=np.vstack([A, -A]),
                     b2=np.concatenate([t + eps, eps - t]), l=None)
        except SolverStoppedError:
            return
        except InfeasibleProblemError:
            raise ValueError(
                f"C=inf asks for every target within epsilon={eps:g} of the function (the "
                "hard tube), and no function of this kernel "
                f"{'with' if self.fit_bias else 'without'} bias meets that on this sample: the "
                "dual is unbounded. Use a finite C, a larger epsilon or a more flexible "
                "kernel.") from None

    def _support_mask(self, coef, sol):
        """``beta_i != 0`` (SMO, as libsvm); ``|beta_i| > 1e-7 C`` (QP; ``1e-7 max |beta|``
        for ``C = inf``)."""
        if sol.route != "qp":
            return coef != 0
        scale = float(self.C) if np.isfinite(float(self.C)) else \
            max(float(np.abs(coef).max(initial=0.0)), 1e-300)
        return np.abs(coef) > 1e-7 * scale

    def _store_extra(self, X, t, problem, sol):
        m = len(t)
        beta = self.alpha_
        self.multipliers_ = problem.by_example(sol.alpha, m).ravel()
        f0 = self._train_outputs(X, problem, sol)
        eps = float(self.epsilon)
        self.n_support_ = len(self.support_)
        self.dual_objective_ = float(0.5 * beta @ f0 + eps * np.abs(beta).sum() - t @ beta)
        self.slack_ = np.maximum(np.abs(t - f0 - self.intercept_) - eps, 0.0)
        self.lambda_ = 1.0 / (2.0 * float(self.C) * m)
