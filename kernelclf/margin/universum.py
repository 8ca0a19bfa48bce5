"""Book chapter 13 (``book/13_relative_margin_machines.md``): the Universum SVM of RMM §5.4.1.

RMM Table 3 compares the relative margin machine with the Universum SVM of Weston, Collobert,
Sinz, Bottou and Vapnik (2006), *Inference with the Universum*: an SVM with bias that is also
given unlabelled "Universum" points, drawn from neither class, on which its outputs should
stay small. Each Universum point ``u`` pays the epsilon-insensitive loss
``C_U max(0, |f(u)| - epsilon)``:

``min 1/2 ||w||^2 + C sum_i xi_i + C_U sum_u (zeta_u + zeta*_u)``
s.t. ``y_i f(x_i) >= 1 - xi_i`` and ``-epsilon - zeta*_u <= f(u) <= epsilon + zeta_u``.

Writing each Universum point twice, once with label +1 and once with -1, each copy with the
constraint ``y f(u) >= -epsilon - zeta`` (Weston et al.'s construction), the dual is that of
an SVM with per-point targets ``c_j`` (1 for a labelled point, ``-epsilon`` for a copy) and
boxes ``C_j`` (``C`` or ``C_U``):

``max sum_j c_j beta_j - 1/2 sum_jk beta_j beta_k y_j y_k k(x_j, x_k)``,
``sum_j beta_j y_j = 0``, ``0 <= beta_j <= C_j``,

solved here with :func:`kernelclf.optim.solve_qp`. Without Universum points this is the
SVM's dual (LKC §2.4.2 with bias). The estimator states this dual (each Universum point
has two variables); the fit, the threshold, the stored attributes and the decision function
come from the dual machines' base (``kernelclf.margin._dual``), shared with the SVMs.
"""
from __future__ import annotations

import numpy as np

from ..base import KERNEL_CONSTRAINT, Real
from ._dual import DualClassifier
from ._dual_problem import DualProblem

__all__ = ["UniversumSVM"]


class UniversumSVM(DualClassifier):
    """Book chapter 13 (``book/13_relative_margin_machines.md``); RMM §5.4.1, Table 3.

    The Universum SVM (Weston et al. 2006): an SVM with bias plus an epsilon-insensitive
    penalty ``C_U max(0, |f(u)| - epsilon)`` on Universum points ``u`` passed to
    :meth:`fit` as ``X_universum``. Solved in the dual (see the module docstring) with
    :func:`kernelclf.optim.solve_qp`; meant for a few thousand points at most.

    Parameters
    ----------
    kernel : kernel, name or callable (default linear)
    C : float > 0
        Price of the hinge loss on the labelled points.
    C_universum : float >= 0 or None
        Price ``C_U`` of the Universum loss (default: ``C``). Zero ignores the Universum.
    epsilon : float >= 0
        Width of the insensitive band ``|f(u)| <= epsilon``.
    tol : float
        Tolerance of the QP and of the free-multiplier test for the bias.

    Attributes
    ----------
    alpha_ : (m + n_u,) array
        Signed expansion coefficients over ``X_fit_`` (labelled points, then Universum
        points): ``f(x) = sum_j alpha_[j] k(x_j, x) + intercept_``.
    multipliers_ : (m + 2 n_u,) array
        The dual variables ``beta >= 0`` (labelled points, then the +1 and the -1 copies
        of each Universum point). ``SVC`` has no such attribute.
    dual_coef_ : (1, n_SV) array
        As scikit-learn's ``SVC.dual_coef_``: the expansion coefficients of the support
        vectors in the order of ``support_``, i.e. ``alpha_[support_][None, :]``
        (``beta_j y_j`` for a labelled point). Without Universum points (or with
        ``C_universum=0``) these are ``SVC``'s up to the interior-point solver's accuracy
        (within ``1e-3 C`` on noisy two moons, ``tests/test_rmm_theory.py``).
    support_ : (n_SV,) array of int
        Indices into ``X_fit_`` of the points with a coefficient above ``1e-8 max(1, C,
        C_U)``, in ``SVC``'s order: labelled points of ``classes_[0]``, then of
        ``classes_[1]``, then Universum points, each group in index order. The
        interior-point solution has no exact zeros, so this can hold a few points more
        than ``SVC``'s support (with coefficients below ``1e-4 C`` in those tests; not a bound:
        another noisy two-moons sample can give a few ``1e-4 C``).
    support_vectors_ : array or list
        ``X_fit_[support_]``.
    intercept_ : float
    coef_ : (1, d) array
        Linear kernel only (else ``AttributeError``): ``w = sum_j alpha_j x_j`` over
        ``X_fit_``.
    X_fit_, n_universum_, dual_objective_, n_iter_, converged_, kernel_, classes_
    """

    _parameter_constraints = {
        "kernel": KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="neither")],
        "C_universum": [Real(0, None, closed="left"), None],
        "epsilon": [Real(0, None, closed="left")],
        "tol": [Real(0, None, closed="neither")],
    }

    def __init__(self, kernel=None, C=1.0, C_universum=None, epsilon=0.0, tol=1e-8):
        self.kernel = kernel
        self.C = C
        self.C_universum = C_universum
        self.epsilon = epsilon
        self.tol = tol

    #: the quadratic program (LKC App. D), at ``tol`` itself
    _default_solver = "qp"
    _sparse_inputs = False          # the Universum points are stacked under dense inputs
    _qp_tol_cap = np.inf

    def fit(self, X, y, X_universum=None):
        """Fit on the labelled sample ``(X, y)`` and the Universum points ``X_universum``."""
        X, y = self._validate_training(X, y)
        if X_universum is None or len(X_universum) == 0:
            U = X[:0]
        else:
            U = self._validate_X(X_universum, reset=False)
        self.n_universum_ = len(U)
        XU = np.vstack([X, U]) if isinstance(X, np.ndarray) else list(X) + list(U)
        return self._fit_validated(XU, y)

    def _gram(self, XU):
        return self._training_gram(XU, copies=6)       # checked (PSD, scale)

    def _dual_problem(self, gram, y, w):
        """The SVM dual with each Universum point twice (module docstring): targets
        ``c = (1, -epsilon, -epsilon)``, signs ``(y, +1, -1)``, boxes ``(C, C_U, C_U)``."""
        m, nu = len(y), self.n_universum_
        CU = float(self.C if self.C_universum is None else self.C_universum)
        return DualProblem(p=np.r_[np.ones(m), np.full(2 * nu, -float(self.epsilon))],
                           box=np.r_[np.full(m, float(self.C)), np.full(2 * nu, CU)],
                           s=np.r_[y, np.ones(nu), -np.ones(nu)],
                           points=np.r_[np.arange(m + nu), np.arange(m, m + nu)])

    def _solve_problem(self, problem, gram, **kw):
        try:
            return super()._solve_problem(problem, gram, **kw)
        except (ArithmeticError, ValueError) as exc:
            big = float(np.max(np.abs(gram.diag))) if gram.diag.size else 0.0
            raise ValueError(
                f"UniversumSVM: the dual QP failed ({type(exc).__name__}: {exc}); the kernel's "
                f"diagonal reaches {big:.3g}: rescale the inputs (or the kernel) to a moderate "
                "scale") from exc

    def _support_mask(self, coef, sol):
        """``|alpha_j| > 1e-8 max(1, C, C_U)`` (the interior-point solution)."""
        CU = float(self.C if self.C_universum is None else self.C_universum)
        return np.abs(coef) > 1e-8 * max(1.0, float(self.C), CU)

    def _support_key(self, y, m):
        # SVC's order: classes_[0], then classes_[1], then the Universum points
        return np.r_[(y > 0).astype(int), np.full(m - len(y), 2)]

    def _store_extra(self, X, y, problem, sol):
        self.y_fit_ = y
