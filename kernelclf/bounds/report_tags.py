"""What the bound report works from: its bounds, an estimator's declared tags, a row's cost.

Book chapter 18 (``book/18_bound_dashboard.md``); the declarations behind
:func:`~kernelclf.bounds.report.report`: the names and sources of the bounds it evaluates
(LKC §4.2, §4.4, §5.1-5.3, TR 99-11 Theorem 1, RMM Theorem 18; :data:`BOUND_NAMES`), what an
estimator says it is (the tags that switch on the rows of LKC eq. 4.19, Remark 4.36 eq. 4.34,
Theorem 4.37, Examples 5.15, 5.16 and 5.24, Theorem 5.34, RMM eq. 29-31) and what a row costs
(RMM Theorem 10 for eq. 30, LKC Example 5.24). The rows themselves are in
:mod:`kernelclf.bounds.report_rows`.

What the estimator is: declared tags
------------------------------------
The report never looks at class names. An estimator says what it is through the class
attribute ``_bound_tags``, a dict read with :func:`bound_tags` (missing keys take the
defaults below; any value may instead be a callable ``f(estimator)``, evaluated when the
report is made, for tags that depend on a hyper-parameter, e.g. the SVM's ``fit_bias``):

``family`` (default ``None``)
    the learning algorithm, which decides the family-specific rows and the
    hyper-parameters they read: ``"svm"`` (support vectors ``support_`` as a compression
    scheme, Example 5.16; with ``loss='hinge'``, a soft margin and no bias the stability
    bound with ``lambda = 1/(2 C m)``; both need the kernel and the class weights fixed
    before the sample, see :mod:`kernelclf.bounds.report_rows`), ``"perceptron"``
    (fixed-order, mistake-driven: ``mistake_indices_``, ``n_updates_``, ``converged_``,
    ``shuffle``; Examples 5.15, 5.24; its kernel fixed before the sample), ``"amm"``
    (``lam`` and the slacks of eq. 2.58, Theorem 4.37), ``"rmm"`` (class
    ``H^S_{E,D}``, eq. 30), ``"sigma_svm"`` (class ``G^S_{B,D}`` with its own ``D``,
    eq. 31), ``"gp"`` (Laplace-mode GP classifier: ``latent_mean`` is the kernel expansion,
    ``noise = 0`` and a kernel fixed before the sample (``optimizer=None`` or a kernel
    without free parameters, no ``'scale'``) give the stability bound with
    ``lambda = 1/(2m)``), ``"relaxed_rmm"``
    and ``"bpm"`` (no row of their own) or ``None`` (unknown);
``margin`` (default ``None``)
    ``"soft"``: trained at the canonical scale (functional margin 1, hinge slacks beyond
    it), so eq. 4.34 and eq. 29 are evaluated at ``gamma = 1/||w||``; ``"hard"``: the
    canonical scale without slacks (eq. 29 only; eq. 4.34 reduces to eq. 4.33);
    ``None``: the scale of ``f`` carries no meaning (perceptron, Bayes point, GP);
``bias`` (default ``None``)
    ``True``/``False``: the hypothesis class has / has no threshold ``b`` (a linear
    class in ``R^n`` then has VC dimension ``n + 1`` / ``n``, eq. 4.19); ``None``: read
    it from the fitted model (a non-zero ``intercept_``, or a true ``fit_bias``,
    ``fit_intercept`` or ``bias`` parameter). A non-zero ``intercept_`` always counts.

:class:`kernelclf.base.BinaryKernelClassifier` declares the defaults; each estimator
family overrides them. An estimator without ``_bound_tags`` (e.g. a scikit-learn
classifier) gets the defaults: its training error; if it exposes a weight vector
(``coef_``) or a kernel expansion (``alpha_``, ``X_fit_``, ``kernel_``), the robust margin
bound and, with zero training error, the other margin bounds (eq. 4.27, 4.29, TR Theorem 1)
and the PAC-Bayes margin bound (``d = m`` unless it is linear in ``R^n``); the VC bounds if
it is linear in ``R^n``. Every other record says why it does not apply.

A fitted :class:`sklearn.pipeline.Pipeline` is reported through its last step, on the
sample transformed by the steps before it (``pipeline[:-1].transform(X)``).

Slow rows
---------
Most rows cost a few kernel evaluations on the sample. Three grow fast with ``m``: the RMM
bound (eq. 30) minimises the convex problem of RMM Theorem 10 over ``m`` landmark
weights in a feature space of dimension ``d`` (``n + 1`` for the linear kernel, up to
``m + 1`` otherwise), about ``m d^2`` operations per step; the Σ-SVM bound needs the
coordinates of the sample in feature space (an ``m x m`` eigendecomposition unless the
kernel is linear); Novikoff's mistake bound solves a dense hard-margin QP in ``m``
variables. :func:`estimated_seconds` turns ``m`` and ``d`` into a rough time; a row above
:data:`SLOW_SECONDS` issues a :class:`SlowBoundWarning` *before* it starts, or, with
``skip_slow=True``, is left out (``skipped``).
"""
from __future__ import annotations

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

__all__ = ["bound_tags", "estimated_seconds", "SlowBoundWarning", "BOUND_NAMES", "FAMILIES",
           "DEFAULT_TAGS", "SLOW_SECONDS"]

#: the bounds :func:`~kernelclf.bounds.report.report` knows, in the order of its
#: records, with their sources
BOUNDS = [
    ("VC bound", "LKC Remark 4.11 (eq. 4.14 with 4.19)"),
    ("PAC VC bound", "LKC eq. 4.15 with 4.19"),
    ("PAC margin bound", "LKC Theorem 4.32, eq. 4.29"),
    ("Fat-shattering bound", "LKC Theorem 4.30, eq. 4.27 + Lemma 4.31"),
    ("TR margin bound", "TR 99-11 Theorem 1"),
    ("Robust margin bound", "LKC Theorem 4.35, eq. 4.33"),
    ("Soft-margin bound", "LKC Remark 4.36, eq. 4.34 + 4.33"),
    ("AMM bound", "LKC Theorem 4.37, eq. 4.38 + 4.33"),
    ("PAC-Bayes margin bound", "LKC Theorem 5.10, eq. 5.12"),
    ("Compression bound", "LKC Theorem 5.17 / eq. 5.16"),
    ("Lossy compression bound", "LKC Theorem 5.18"),
    ("Mistake bound (updates)", "LKC Theorem 5.23, eq. 5.17"),
    ("Mistake bound (Novikoff)", "LKC Theorem 5.23 + Example 5.24"),
    ("Stability bound", "LKC Theorem 5.34 (E8, E9)"),
    ("Rademacher bound F_E", "RMM Theorem 18 i, eq. 29"),
    ("Rademacher bound Σ-SVM", "RMM Theorem 18 iii, eq. 31"),
    ("Rademacher bound RMM", "RMM Theorem 18 ii, eq. 30"),
]
BOUND_NAMES = [name for name, _ in BOUNDS]
_SOURCE = dict(BOUNDS)

#: the values of the ``family`` tag (module docstring); ``None`` means unknown
FAMILIES = ("svm", "perceptron", "amm", "rmm", "sigma_svm", "relaxed_rmm", "gp", "bpm")
_MARGINS = ("soft", "hard")
#: the tags of an estimator that declares nothing (e.g. a scikit-learn classifier)
DEFAULT_TAGS = {"family": None, "margin": None, "bias": None}

#: a row whose :func:`estimated_seconds` exceeds this warns before it starts (or is skipped)
SLOW_SECONDS = 5.0


class SlowBoundWarning(UserWarning):
    """A row of :func:`~kernelclf.bounds.report.report` is about to start and is expected to
    take long."""


# ---------------------------------------------------------------------------------------
# what the estimator declares
# ---------------------------------------------------------------------------------------
def bound_tags(estimator):
    """The declared tags of an estimator, resolved for this instance and checked.

    Reads the class attribute ``_bound_tags`` (module docstring), fills in
    :data:`DEFAULT_TAGS` for missing keys and calls callable values with the estimator.

    Parameters
    ----------
    estimator : estimator instance

    Returns
    -------
    dict
        ``{"family": str or None, "margin": "soft", "hard" or None, "bias": bool or None}``.

    Raises
    ------
    TypeError
        If ``_bound_tags`` is not a dict.
    ValueError
        For an unknown key or a value outside the documented ones (a typo in a declaration
        must not silently switch rows off).
    """
    declared = getattr(estimator, "_bound_tags", None)
    declared = {} if declared is None else declared
    name = type(estimator).__name__
    if not isinstance(declared, dict):
        raise TypeError(f"{name}._bound_tags must be a dict, got {type(declared).__name__}")
    unknown = sorted(set(declared) - set(DEFAULT_TAGS))
    if unknown:
        raise ValueError(f"{name}._bound_tags has unknown keys {unknown}; the keys are "
                         f"{sorted(DEFAULT_TAGS)}")
    tags = {}
    for key, default in DEFAULT_TAGS.items():
        value = declared.get(key, default)
        tags[key] = value(estimator) if callable(value) else value
    if tags["family"] is not None and tags["family"] not in FAMILIES:
        raise ValueError(f"{name} declares family {tags['family']!r}; one of {FAMILIES} or None")
    if tags["margin"] is not None and tags["margin"] not in _MARGINS:
        raise ValueError(f"{name} declares margin {tags['margin']!r}; one of {_MARGINS} or None")
    if tags["bias"] is not None:
        if not isinstance(tags["bias"], (bool, np.bool_)):
            raise ValueError(f"{name} declares bias {tags['bias']!r}; True, False or None")
        tags["bias"] = bool(tags["bias"])
    return tags


def _is_true(value):
    return isinstance(value, (bool, np.bool_)) and bool(value)


def _unwrap(estimator, X):
    """The classifier to report and its input ``X`` (through a pipeline's transformers)."""
    est = estimator
    while isinstance(est, Pipeline):
        last = est.steps[-1][1] if est.steps else None
        if last is None or (isinstance(last, str) and last == "passthrough"):
            raise TypeError("the last step of the pipeline is 'passthrough', not a classifier: "
                            "pass a fitted Pipeline whose last step is a binary classifier")
        check_is_fitted(last)
        if len(est.steps) > 1:
            X = est[:-1].transform(X)
        est = last
    check_is_fitted(est)
    name = type(est).__name__
    if hasattr(est, "best_estimator_"):
        raise TypeError(f"{name} is a hyper-parameter search: pass its refitted best_estimator_ "
                        "(a fitted classifier) and the sample it was refitted on")
    if not hasattr(est, "classes_"):
        raise TypeError(f"{name} is not a classifier (no classes_): pass a fitted binary "
                        "classifier, or a fitted Pipeline whose last step is one")
    if len(est.classes_) != 2:
        raise ValueError(f"{name} has {len(est.classes_)} classes: the bounds are for binary "
                         "classifiers; for a multi-class wrapper pass one of its binary "
                         "estimators (estimators_) with the labels it was trained on")
    return est, X


# ---------------------------------------------------------------------------------------
# what a row costs
# ---------------------------------------------------------------------------------------
#: rough seconds per unit of work on one core (measured at m = 100-2000, OpenBLAS)
_T_LBFGS, _T_EIGH, _T_QP = 5e-7, 3e-10, 1e-9


def estimated_seconds(name, m, n_features=None):
    """Rough run time in seconds of one row of :func:`~kernelclf.bounds.report.report`.

    Parameters
    ----------
    name : str
        A name of :data:`BOUND_NAMES`.
    m : int
        Sample size.
    n_features : int or None
        Dimension ``n`` of the inputs if the kernel is linear (the coordinates in feature
        space are then the inputs); ``None`` for any other kernel (up to ``m`` coordinates,
        from an ``m x m`` eigendecomposition).

    Returns
    -------
    float
        ``5e-7 m d^2`` for the L-BFGS-B solution of RMM Theorem 10 (eq. 30) on ``d``
        augmented coordinates (``n + 1``, or ``m + 1``), plus ``3e-10 m^3`` for the
        eigendecomposition when the kernel is not linear (eq. 30 and eq. 31);
        ``1e-9 m^3`` for the dense hard-margin QP of Novikoff's bound (Example 5.24); 0 for
        every other row, which costs a few kernel evaluations. A cautious estimate, not a
        prediction: the number of L-BFGS-B steps varies from sample to sample, and on two
        moons with ``RBF(1.0)`` (a relative margin machine, m = 300 and 600, two samples
        each, one thread on a shared machine) the eq. 30 row took between about 2.5 and
        23 times less than this estimate.
    """
    if name not in _SOURCE:
        raise ValueError(f"unknown bound {name!r}; one of {BOUND_NAMES}")
    m = float(m)
    eigh = 0.0 if n_features is not None else _T_EIGH * m**3
    if name == "Rademacher bound RMM":
        d = (m if n_features is None else float(n_features)) + 1.0
        return eigh + _T_LBFGS * m * d**2
    if name == "Rademacher bound Σ-SVM":
        return eigh
    if name == "Mistake bound (Novikoff)":
        return _T_QP * m**3
    return 0.0

