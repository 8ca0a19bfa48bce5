"""Support vector machines: hard margin, L1 / L2 soft margin.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4.1–2.4.2,
eq. (2.45)–(2.50), App. B.5.1–B.5.3 and D.2.1. The nu-SVM (LKC eq. 2.52) is in
:mod:`kernelclf.margin.nu_svm`, Platt's probabilities in :mod:`kernelclf.margin.platt`.

Parameterisation. The book regularises with ``lambda``: its linear soft margin (LKC
§2.4.2, p. 54: the hinge loss of eq. 2.47 in the regularised risk, eq. 2.48 being the same
problem times ``m``) is ``min (1/m) sum xi_i + lambda ||w||^2``. Dividing by ``2 lambda`` gives the
usual form ``min 1/2 ||w||^2 + C sum xi_i`` with ``C = 1/(2 lambda m)``, which
is the box ``0 <= alpha_i <= 1/(2 lambda m)`` of App. D.2.1 (erratum E6: the
page once prints ``1/(2 lambda)``; the ``m`` belongs there). For the quadratic
soft margin (eq. 2.49) ``min (1/m) sum xi_i^2 + lambda ||w||^2`` becomes
``1/2 ||w||^2 + (C/2) sum xi_i^2`` with ``C = 1/(lambda m)``; its dual is a
hard-margin dual on ``G + lambda m I = G + I/C`` (eq. 2.50, Remark 2.32).

Coefficients. LKC writes ``w = sum_i alpha_i y_i x_i`` with ``alpha_i >= 0``
(eq. 2.54). Here ``multipliers_`` holds those non-negative book ``alpha_i`` over all
``m`` examples and ``alpha_`` the signed products ``alpha_i y_i``, so that
``f(x) = sum_i alpha_[i] k(x_i, x) + intercept_`` (package convention).
``dual_coef_``, ``support_`` and ``support_vectors_`` are scikit-learn's ``SVC``
attributes with ``SVC``'s meaning: ``dual_coef_`` is the ``(1, n_SV)`` array of the
``alpha_i y_i`` of the support vectors, listed as ``support_`` lists them (those of
``classes_[0]`` first, then those of ``classes_[1]``, each in index order).

The book's SVMs have no bias (``fit_bias=False``); ``fit_bias=True`` adds the
usual threshold ``b`` and with it the constraint ``y' alpha = 0``, as in
libsvm / scikit-learn ``SVC``. The default solver is the SMO of
:mod:`kernelclf.margin.smo`; ``solver='qp'`` uses :func:`kernelclf.optim.solve_qp`
(App. D.2 settings) for checking and teaching. The estimator states its dual problem
(signs ``y``, ``p = 1``, the box, the ridge of the squared hinge); the fit, the threshold,
the stored attributes and the decision function come from the dual machines' base
(``kernelclf.margin._dual``, as scikit-learn's ``BaseLibSVM``), which the nu-SVM,
epsilon-SVR, the relative margin machines and the Universum SVM share.

Example weights (of this C-SVM; the nu-SVM, the regression SVMs, the one-class SVM and the
relative margin machines take ``sample_weight`` too, as their ``fit`` says, and none of them
has ``class_weight``). ``fit(X, y, sample_weight)`` and the ``class_weight`` parameter give
every example its own penalty ``C_i = C w_i`` with ``w_i = sample_weight_i *
class_weight[y_i]``: for the hinge loss the box of the dual becomes ``0 <= alpha_i <= C_i``
(libsvm's per-class weights, Chang & Lin 2011, and its per-instance-weight extension, which
scikit-learn's ``SVC`` uses); for the squared hinge the slack term is ``(1/2) sum C_i
xi_i^2`` and the ridge of eq. (2.50) becomes ``diag(1/C_i)``. Examples of weight 0 are left
out of the dual (as libsvm does); they never become support vectors. The hard margin has no
slack to weight: weights are refused there.

Probabilities. ``probability=True`` adds Platt's sigmoid
``P(y = classes_[1] | x) = 1 / (1 + exp(A f(x) + B))`` (Platt 1999), fitted as
libsvm does (Lin, Lin & Weng 2007): on decision values of 5-fold cross-validation
(not on the training outputs, which are biased towards the margin), with Platt's
regularised targets and Newton's method with a backtracking line search
(:func:`~kernelclf.margin.platt.fit_platt_sigmoid`, :mod:`kernelclf.margin.platt`).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..base import Int, Real
from ..kernels.rows import n_rows
from ..optim import InfeasibleProblemError
from ._dual import DUAL_KERNEL_CONSTRAINT, DualClassifier
from ._dual_problem import DualProblem
from .platt import _PlattScaling
from .separability import is_separable

__all__ = ["SupportVectorMachine", "is_separable"]

# hard margin: an alpha beyond this means the dual is running off to infinity
_ALPHA_BOUND = 1e9


class _RowsOf:
    """``X_fit_`` or ``support_vectors_`` of a pairwise machine of a one-versus-one wrapper
    until it is first read: the rows ``rows`` of ``store``, a private array of the
    wrapper's training inputs shared by its machines
    (:meth:`SupportVectorMachine._fit_pairs_on_solutions`), instead of a copy per machine
    (libsvm's pairwise problems likewise index one copy of the sample). Reading the
    attribute replaces it by ``np.take(store, rows, axis=0)`` (the array the machine would
    otherwise hold); pickling and deep copies write that array."""

    __slots__ = ("store", "rows")

    def __init__(self, store, rows):
        self.store = store
        self.rows = rows

    def take(self):
        """The rows as a new array."""
        return np.take(self.store, self.rows, axis=0)

    def __array__(self, dtype=None, copy=None):
        out = self.take()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __reduce_ex__(self, protocol):
        return self.take().__reduce_ex__(protocol)


def _rows_attribute(name):
    """A property for the instance attribute ``name`` (kept in ``__dict__``) that turns a
    :class:`_RowsOf` into its array when read (no docstring: the class's Attributes
    section documents the attribute)."""
    def get(self):
        d = self.__dict__
        try:
            value = d[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 f"{name!r}") from None
        if type(value) is _RowsOf:
            value = d[name] = value.take()
        return value

    def set_(self, value):
        self.__dict__[name] = value

    def delete(self):
        try:
            del self.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None

    return property(get, set_, delete)


class SupportVectorMachine(_PlattScaling, DualClassifier):
    """Support vector machine: hard margin, linear or quadratic soft margin.

    LKC §2.4.1–2.4.2: hard margin eq. (2.45)/(2.46), linear soft margin
    (2.47)/(2.48), quadratic soft margin (2.49)/(2.50); duals in App. B.5.1–B.5.3,
    QP settings in App. D.2.1 (erratum E6 corrected: box ``u = 1/(2 lambda m)``).
    Book chapter 04.

    Parameters
    ----------
    kernel : kernel object, name, callable or 'precomputed', default None (linear)
        ``'precomputed'`` (as scikit-learn's ``SVC``): ``fit`` takes the ``m x m`` Gram
        matrix of the training examples, ``decision_function`` and ``predict`` the
        ``n x m`` kernel matrix between test and training examples; ``X_fit_`` is then the
        training Gram matrix and ``support_vectors_`` its rows of the support vectors.
    C : float > 0, default 1.0
        Soft-margin constant in the usual scaling. Hinge loss:
        ``1/2 ||w||^2 + C sum xi_i``, i.e. ``C = 1/(2 lambda m)`` in the book's
        eq. (2.48). Squared hinge: ``1/2 ||w||^2 + (C/2) sum xi_i^2``, i.e.
        ``lambda m = 1/C`` in eq. (2.49); the dual is the hard-margin dual on
        ``G + I/C``. Ignored when ``hard_margin=True``. Per example it is multiplied
        by the weights: ``C_i = C * sample_weight_i * class_weight[y_i]``. ``inf`` (as
        ``SVC(C=np.inf)``) is the hard margin of either loss: no slack is affordable;
        weights then only remove the examples of weight 0.
    loss : {'hinge', 'squared_hinge'}
    hard_margin : bool
        Solve eq. (2.45) (no slack). A sample that is not separable in feature
        space raises ``ValueError``. There is no slack to weight, so
        ``sample_weight`` and ``class_weight`` raise ``ValueError`` here.
    fit_bias : bool, default True
        Add a threshold ``b`` (constraint ``y'alpha = 0``). The book's SVM has
        no bias (``fit_bias=False``).
    solver : {'smo', 'qp'}
        SMO with second-order working-set selection (:func:`kernelclf.margin.smo.solve_smo`)
        or the interior-point QP of :func:`kernelclf.optim.solve_qp` (cvxopt's where cvxopt
        is installed, else the package's NumPy method, as in the in-browser lab).
    tol : float
        SMO: tolerance on the maximal KKT violation (libsvm's 1e-3 by default),
        after which the KKT equations of the free variables are solved exactly when
        that keeps the point feasible (``solve_smo(polish=True)``, at most 1000 free
        variables), so the result is exact up to round-off whenever SMO has found
        which variables sit at a bound (otherwise it is SMO's, accurate to ``tol``);
        QP: gap tolerance handed to the QP solver, at most ``1e-8`` (``min(tol, 1e-8)``).
    max_iter : int or None
        SMO iteration cap (default libsvm's ``max(10^7, 100 m)``,
        ``kernelclf.margin.smo.default_max_iter``).
    cache_mb : float
        Memory for kernel columns (MB; scikit-learn's ``cache_size``). When the training
        matrix does not fit in it, SMO computes columns on demand and, as libsvm does, keeps
        them in single precision (each value computed in double and rounded once, every sum
        in double): the reported dual objective is then that of the rounded matrix, within
        ``2**-24 * alpha' |K| alpha / 2`` of the exact one (see ``kernelclf.margin.smo``).
    class_weight : dict, 'balanced' or None, default None
        Weight of each class in the slack penalty, ``C_i = C * class_weight[y_i]``
        (libsvm's ``-wi``; scikit-learn ``SVC(class_weight=...)``). A dict maps labels
        of ``y`` to finite weights ``>= 0`` (labels not named keep weight 1; naming a
        label that is not in ``y`` is an error). ``'balanced'`` gives class ``c`` the
        weight ``W / (2 W_c)`` with ``W_c`` the total ``sample_weight`` of the class
        (the counts when there are no sample weights, then equal to ``SVC``'s
        ``'balanced'``; with sample weights ``SVC`` uses the unweighted counts).
        Hinge and squared hinge only.
    probability : bool, default False
        Fit Platt's sigmoid on 5-fold cross-validated decision values (Platt 1999;
        Lin, Lin & Weng 2007; libsvm's ``-b 1``) and offer :meth:`predict_proba`.
        Costs five more fits.
    random_state : int, RandomState or None, default None
        Shuffles the cross-validation folds of ``probability=True`` (unused
        otherwise).

    Attributes
    ----------
    alpha_ : (m,) array
        Signed coefficients ``alpha_i y_i`` (LKC's ``alpha_i y_i``, eq. 2.54) of all
        ``m`` training examples.
    multipliers_ : (m,) array
        The book's non-negative dual variables ``alpha_i`` of all ``m`` training
        examples (``0 <= alpha_i <= C_i``; no upper bound for the hard margin and the
        squared hinge); zero off the support vectors (with ``solver='qp'``: below the
        threshold of ``support_``). ``SVC`` has no such attribute: its ``dual_coef_``
        is ``multipliers_[support_] * y[support_]`` with ``y`` in ``{-1, +1}``.
    dual_coef_ : (1, n_SV) array
        As scikit-learn's ``SVC.dual_coef_``: the signed coefficients
        ``alpha_i y_i`` (``y_i = +1`` for ``classes_[1]``) of the support vectors, in
        the order of ``support_``, i.e. ``alpha_[support_][None, :]``.
    support_ : (n_SV,) array of int
        Indices of the support vectors (``alpha_i > 0``; with ``solver='qp'``
        ``alpha_i > 1e-5 max alpha``), in ``SVC``'s order: those of ``classes_[0]``
        first, then those of ``classes_[1]``, each in increasing index order.
    support_vectors_ : array or list
        The support vectors, ``X[support_]`` (as scikit-learn's ``SVC``).
    n_support_ : (2,) array of int
        Support vectors per class, in the order of ``classes_`` (as ``SVC``).
    intercept_ : float
        Threshold ``b`` (0 when ``fit_bias=False``); ``SVC.intercept_`` holds the same
        number in a ``(1,)`` array.
    coef_ : (1, d) array
        Linear kernel only (else ``AttributeError``): ``w = sum_i alpha_i y_i x_i``, as
        ``SVC.coef_``.
    dual_objective_ : float
        Dual value ``sum alpha_i - 1/2 alpha' (Y G Y + R) alpha`` (``R = diag(1/C_i)``
        for the squared hinge, else 0). For the hinge loss it equals this value at the
        coefficients of scikit-learn's ``SVC`` (which has no attribute for it; libsvm prints
        its negative as ``obj``, the minimum of its dual in minimisation form).
    margin_ : float
        ``1/||w||`` in feature space, the distance between the hyperplanes ``f = 0`` and
        ``f = 1``: for the hard margin at the optimum the geometric margin of the sample
        (LKC Def. 2.30); a fit stopped at ``tol`` (when the polish is not kept) has
        ``min_i y_i f(x_i)`` down to about ``1 - tol``, so the sample's margin is then up
        to that fraction below ``margin_``; with slack, points inside the band ``|f| < 1``
        have a smaller geometric margin (negative when misclassified).
    class_weight_ : (2,) array
        The weight of ``classes_[0]`` and ``classes_[1]`` (ones without
        ``class_weight``).
    probA_, probB_ : float
        Platt's sigmoid (only with ``probability=True``):
        ``P(classes_[1] | x) = 1 / (1 + exp(probA_ f(x) + probB_))``.
    X_fit_, kernel_, classes_, n_iter_, converged_
    """

    # instance attributes that may hold a :class:`_RowsOf` until they are read
    X_fit_ = _rows_attribute("X_fit_")
    support_vectors_ = _rows_attribute("support_vectors_")
    _bound_tags = {"family": "svm", "bias": lambda s: s.fit_bias,  # kernelclf.bounds.report_tags
                   "margin": lambda s: "hard" if s._hard() else "soft"}
    _parameter_constraints = {
        "kernel": DUAL_KERNEL_CONSTRAINT,
        "C": [Real(0, None, closed="right")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "hard_margin": ["boolean"],
        "fit_bias": ["boolean"],
        "solver": [StrOptions({"smo", "qp"})],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Int(1, None, closed="left"), None],
        "cache_mb": [Real(0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "probability": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, C=1.0, loss="hinge", hard_margin=False, fit_bias=True,
                 solver="smo", tol=1e-3, max_iter=None, cache_mb=200.0, class_weight=None,
                 probability=False, random_state=None):
        self.kernel = kernel
        self.C = C
        self.loss = loss
        self.hard_margin = hard_margin
        self.fit_bias = fit_bias
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.class_weight = class_weight
        self.probability = probability
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Solve the dual for the sample ``(X, y)`` (any two labels).

        Parameters
        ----------
        X : array (m, d), or list of strings for a string kernel
        y : (m,) array with two distinct labels
        sample_weight : (m,) array of finite numbers >= 0, optional
            Per-example factor of ``C`` (hinge: box ``0 <= alpha_i <= C w_i``;
            squared hinge: ridge ``1/(C w_i)``), as in libsvm / scikit-learn ``SVC``.
            For a kernel of fixed parameters, integer weights give the same model as
            repeating the examples (at the optimum; two fits stopped at ``tol`` agree to
            about ``tol``) and weight 0 removes an example (a width taken from
            the data, ``gamma='scale'``, sees the rows of ``X`` as given, as in ``SVC``).
            Both classes need some positive weight. Not for ``hard_margin=True``.
        """
        return self._fit(X, y, sample_weight)

    def _fit_on_gram(self, X, y, gram, sample_weight=None, solution=None):
        """Fit on inputs validated by a wrapper, with their training Gram matrix given.

        For :class:`kernelclf.multiclass.OneVsOneClassifier`, whose pairwise machines read
        their matrices from one kernel matrix of the whole sample instead of computing
        each its own (the fitted machine is the one :meth:`fit` gives on ``(X, y)``, up to
        the round-off of the kernel values). The wrapper has validated this estimator's
        parameters and ``X`` (a float array, as :meth:`fit` validates it); ``y``: a 1-D integer
        array of the labels 0 and 1, both present (``classes_`` is ``[0, 1]``); ``gram``: a
        :class:`kernelclf.kernels.gram.Gram` of this estimator's kernel on ``X`` (its
        data-driven parameters already fixed, as the wrapper fixes them). Examples of weight
        0 are left out and the others' matrix is computed as in :meth:`fit`. ``solution``:
        the dual's solution when the wrapper has solved it (:meth:`_pair_solution`; no
        weight 0, ``gram`` then unused).
        """
        self._fit_kernel()              # (the parameters: validated by the wrapper)
        self._resolve_kernel(X)
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.arange(2)      # (np.unique of the labels 0 and 1)
        y = np.where(y == 1, 1.0, -1.0)
        w = self._example_weights(X, y, sample_weight)
        self._given_gram = gram
        self._given_solution = solution
        try:
            self._fit_validated(X, y, w)
        finally:
            del self._given_gram, self._given_solution
        if self.probability:            # Platt scaling (its fold machines fit as usual)
            self._fit_probability(X, self.classes_[(y > 0).astype(int)], w)
        return self

    def _fit_on_solution(self, X, y, kernel, solution):
        """:meth:`_fit_on_gram` without weights, the dual already solved
        (:meth:`_pair_solution`) and ``kernel_`` given (this estimator's kernel, fixed and
        resolved by the wrapper; a kernel object of its own)."""
        self.kernel_ = kernel
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.arange(2)      # (np.unique of the labels 0 and 1)
        y = np.where(y == 1, 1.0, -1.0)
        w = self._example_weights(X, y, None)
        self._store(X, y, self._dual_problem(None, y, w), solution)
        return self

    @staticmethod
    def _fit_pairs_on_solutions(machines, X, rows, s, box, alpha, F, offsets, iterations,
                                objectives, kernels, ready, store=None, at=None):
        """:meth:`_fit_on_solution` for many machines at once, from the concatenated
        solutions of :func:`kernelclf.margin.smo.compiled.solve_pairs_on_blocks`.

        Machine ``p`` (unfitted, no weights, its kernel fixed) is fitted on ``X[rows[a:b]]``
        with the signs ``s[a:b]`` as labels, ``a, b = offsets[p], offsets[p + 1]``, and the
        dual's end point ``alpha[a:b]``, ``F[a:b]`` (after the compiled polish), its box,
        steps and objective; ``kernels[p]``: its ``kernel_``. Only the machines with
        ``ready[p]`` (the loop converged, the polish was decided in compiled code) are
        fitted, and of those only the ones whose multipliers are finite and which have a
        free variable (libsvm's threshold: the mean of ``F`` over them); the others are left
        to :meth:`_pair_solution` and :meth:`_fit_on_solution` (the same machine, with the
        general rules). The attributes are those of :meth:`_fit_on_solution` and, where
        that computes them with a sum, the same sums on the same numbers (the threshold,
        ``w_norm_``); the signs, the support and its order, the support vectors and the
        per-class counts come from one vectorised pass over all machines (as libsvm builds
        its model of the ``K (K - 1) / 2`` problems in one pass). The arrays of a machine
        are views of arrays shared by the machines (disjoint parts of them). ``store``, ``at``:
        a private array of the training inputs whose rows ``at`` are the rows ``rows`` of
        ``X`` (the wrapper's copy sorted by class); ``X_fit_`` and ``support_vectors_`` of
        a machine are then its rows of ``store`` taken when first read (:class:`_RowsOf`),
        else copies of them at once. Returns the boolean array of the machines fitted."""
        n_p = len(machines)
        counts = np.diff(offsets)
        pair_of = np.repeat(np.arange(n_p), counts)
        finite = np.isfinite(alpha)
        free = (alpha > 0) & (alpha < box)
        n_free = np.bincount(pair_of[free], minlength=n_p)
        bad = np.bincount(pair_of[~finite], minlength=n_p)
        done = np.asarray(ready, dtype=bool) & (n_free > 0) & (bad == 0)
        coef = s * alpha                          # (DualProblem.coefficients: y alpha)
        grad = -s * F                             # (_pair_solution: F = -s * grad)
        quad = grad + 1.0                         # (_weight_norm: gradient + p, p = 1)
        free_at = np.concatenate([[0], np.cumsum(n_free)])
        F_free = F[free]                          # (= -s * grad exactly: s = +-1)
        # the support: alpha_i y_i != 0, those of label -1 then those of +1, each in index
        # order (DualClassifier's order of support_)
        nz = np.flatnonzero(coef != 0)
        key = 2 * pair_of[nz] + (s[nz] > 0)
        sv = nz[np.argsort(key, kind="stable")]
        per_side = np.bincount(key, minlength=2 * n_p).reshape(n_p, 2)
        sv_at = np.concatenate([[0], np.cumsum(per_side.sum(axis=1))])
        local = sv - np.repeat(offsets[:-1], per_side.sum(axis=1))
        dual = coef[sv]
        X_all = np.take(X, rows, axis=0) if store is None else None
        SV_all = np.take(X, rows[sv], axis=0) if store is None else None
        sv_rows = None if store is None else at[sv]      # (their rows of store)
        d = X.shape[1]
        for p in np.flatnonzero(done).tolist():
            a, b = offsets[p], offsets[p + 1]
            u, v = sv_at[p], sv_at[p + 1]
            w_norm = float(np.sqrt(max(float(alpha[a:b] @ quad[a:b]), 0.0)))
            machines[p].__dict__.update(
                kernel_=kernels[p], n_features_in_=d, classes_=np.arange(2),
                class_weight_=np.ones(2), alpha_=coef[a:b],
                X_fit_=X_all[a:b] if store is None else _RowsOf(store, at[a:b]),
                intercept_=float(np.add.reduce(F_free[free_at[p]:free_at[p + 1]]))
                / int(n_free[p]),               # (ndarray.mean's sum and division)
                support_=local[u:v], dual_coef_=dual[None, u:v],
                support_vectors_=SV_all[u:v] if store is None else
                _RowsOf(store, sv_rows[u:v]), multipliers_=alpha[a:b],
                dual_objective_=float(-objectives[p]), n_iter_=max(int(iterations[p]), 1),
                converged_=True, y_fit_=s[a:b], n_support_=per_side[p].copy(),
                w_norm_=w_norm, margin_=1.0 / w_norm if w_norm > 0 else np.inf)
        return done

    def _batch_pairs(self):
        """Whether the pairwise machines of a one-versus-one wrapper may have their duals
        solved together in compiled code (:meth:`_pair_solution`): the C-SVM with bias
        (hinge loss, soft margin), SMO, no Platt scaling, numba installed."""
        from .smo import HAVE_NUMBA

        return bool(HAVE_NUMBA and self.solver == "smo" and self.loss == "hinge"
                    and not self._hard() and self.fit_bias and not self.probability)

    def _pair_solution(self, G, pos, s, box, alpha, F, code, iterations, gap, objective,
                       polished):
        """The dual's solution from the compiled pair loop's end point and polish
        (:func:`kernelclf.margin.smo.compiled.solve_pairs_on_blocks` on the matrix
        ``G[pos][:, pos]``: ``alpha``, ``F``, the loop's code and steps, the KKT gap and
        objective, the polish status): libsvm's threshold from it, as
        :func:`kernelclf.margin._dual_problem.solve_dual` computes it; where the compiled
        polish left the decision to Python (status 2: ``Q_FF`` not positive definite, or a solution
        outside the box), the polish of :func:`kernelclf.margin.smo.solve_smo` from the
        loop's end point. The machine is then the one :meth:`_fit_on_gram` gives (up to
        the round-off of the sums)."""
        from . import smo
        from ._dual_problem import DualSolution, equality_multipliers

        converged = code == smo._cc.DONE
        if polished == 2:
            n = s.size
            p, gmask = np.ones(n), [np.ones(n, dtype=bool)]
            res = smo._result(p, box, s, gmask, alpha, F, iterations, smo._HOW[code],
                              np.inf, bias=False)
            smo._polish(res, p, box, s, gmask, None,
                        getcols=lambda idx: G[np.ix_(pos[idx], pos)].T, bias=False)
            alpha, grad, gap, objective = res.alpha, res.gradient, res.gap, res.objective
        else:
            grad = -s * F
        if not np.isfinite(alpha).all():
            raise ValueError("the dual problem is unbounded (the SMO took an infinite step); "
                             "check that the kernel is positive semi-definite")
        Fs = -s * grad
        free = (alpha > 0) & (alpha < box)
        # libsvm's threshold: the mean over the free variables (equality_multipliers'
        # first case, without its general set-up), else the rule for none free
        mult = [float(Fs[free].mean())] if free.any() else \
            equality_multipliers(Fs, alpha, box, s, None)
        return DualSolution(alpha=alpha, gradient=grad, objective=float(objective),
                            multipliers=mult, iterations=int(iterations),
                            converged=bool(converged), route="smo", gap=float(gap))

    def _gram(self, X):
        """The Gram matrix given to :meth:`_fit_on_gram` (for its sample ``X``), else the
        dual machines' own (:meth:`kernelclf.margin._dual.DualKernelMachine._gram`)."""
        given = self.__dict__.get("_given_gram")
        if given is not None and given.m == n_rows(X):
            return given
        return super()._gram(X)

    def _refuse_weights(self):
        if self.hard_margin:
            raise ValueError(
                "sample_weight and class_weight scale the slack penalty C per example; the "
                "hard margin (hard_margin=True) has no slack, so they cannot be used with it. "
                "Use a soft margin (hard_margin=False) with a large C instead.")

    def _hard(self):
        """The hard margin: ``hard_margin=True``, or ``C = inf`` (no slack is affordable)."""
        return bool(self.hard_margin) or np.isinf(float(self.C))

    def _hard_name(self):
        return "hard_margin=True" if self.hard_margin else "C=inf (the hard margin)"

    def _dual_problem(self, gram, y, w):
        """LKC eq. (2.46), (2.48) or (2.50) with the weights ``w`` (None or all > 0):
        ``p = 1``, signs ``y``, box ``C_i`` (hinge; inf otherwise), ``shift = 1/C_i``
        (squared hinge), the equality ``y'a = 0`` with a bias."""
        m = len(y)
        C = float(self.C) if w is None else float(self.C) * w
        if self._hard():
            box, shift = np.inf, 0.0
        elif self.loss == "hinge":
            box, shift = C, 0.0
        else:
            box, shift = np.inf, 1.0 / C
        return DualProblem(p=np.ones(m), box=box, s=y, equality=bool(self.fit_bias),
                           shift=shift, alpha_bound=_ALPHA_BOUND if self._hard() else np.inf)

    def _solve_sample(self, X, y, w):
        """The dual of ``(X, y)`` with weights ``w`` (None or all > 0); the hard margin is
        first given a short run, after which an LP decides whether the sample is separable
        before the remaining budget is spent."""
        given = self.__dict__.get("_given_solution")
        if given is not None:           # (solved by the wrapper: _pair_solution)
            return self._dual_problem(None, y, w), given
        gram = self._gram(X)
        problem = self._dual_problem(gram, y, w)
        if not self._hard():
            return problem, self._solve_problem(problem, gram)
        if self.solver == "qp":
            try:
                return problem, self._solve_problem(problem, gram)
            except InfeasibleProblemError as exc:
                self._raise_not_separable(gram, y, exc)
                raise
        sol = self._solve_checked(problem, gram, len(y), self._max_iter(len(y)),
                                  lambda: self._raise_not_separable(gram, y))
        return problem, sol

    def _store_extra(self, X, y, problem, sol):
        super()._store_extra(X, y, problem, sol)
        self.multipliers_ = self.alpha_ * y
        self.w_norm_ = self._weight_norm(problem, sol)
        self.margin_ = 1.0 / self.w_norm_ if self.w_norm_ > 0 else np.inf

    def _raise_not_separable(self, gram, y, cause=None):
        """The error for a solver that stopped on a hard margin, when a linear program on
        the kernel matrix (:func:`~kernelclf.margin.separability.is_separable`) finds the
        sample not separable; returns otherwise."""
        G = gram.full()
        if not is_separable(G, y, bool(self.fit_bias)):
            raise ValueError(
                f"{self._hard_name()} but the training sample is not separable in feature "
                f"space ({'with' if self.fit_bias else 'without'} bias; a linear program on "
                "the kernel matrix finds no separating expansion): the hard-margin dual "
                "(LKC eq. 2.46) is unbounded. Use a soft margin (hard_margin=False, a finite "
                f"C) or a more flexible kernel.{_range_note(G)}") from cause


def _range_note(G):
    """A hint when the kernel matrix's diagonal (the squared feature-space lengths) spans ten
    or more orders of magnitude, as a high-degree polynomial on raw inputs gives: then both
    programs work at the limit of double precision and their verdict may be round-off."""
    d = np.abs(np.diag(G))
    d = d[np.isfinite(d) & (d > 0)]
    if d.size and d.max() >= 1e10 * d.min():
        return (f" The kernel matrix's diagonal spans {np.log10(d.max() / d.min()):.0f} orders "
                "of magnitude, so this verdict may be round-off: rescale the inputs or "
                "normalise the kernel.")
    return ""
