"""Every applicable generalisation bound for one fitted classifier, as a list of records.

Book chapter 18 (``book/18_bound_dashboard.md``); it gathers the bounds of LKC §4.2
(Remark 4.11, eq. 4.14-4.15 with eq. 4.19), §4.4 (Theorem 4.30 eq. 4.27, Theorem 4.32
eq. 4.29, Theorem 4.35 eq. 4.33, Remark 4.36 eq. 4.34, Theorem 4.37 eq. 4.38), §5.1
(Theorem 5.10 eq. 5.12), §5.2 (Theorem 5.17 / eq. 5.16, Theorem 5.18, Theorem 5.23
eq. 5.17 with Example 5.24), §5.3 (Theorem 5.34 with errata E8, E9), TR 99-11 Theorem 1 and
RMM Theorem 18 (eq. 29-31).

:func:`report` does no bound arithmetic of its own. It reads what each theorem needs from
the fitted estimator (through :mod:`kernelclf.bounds.inputs` and public fitted attributes),
decides whether the theorem's premises hold for this estimator in this fitted state, and
calls the bound functions of :mod:`~kernelclf.bounds.vc`, :mod:`~kernelclf.bounds.margin`,
:mod:`~kernelclf.bounds.pac_bayes`, :mod:`~kernelclf.bounds.compression`,
:mod:`~kernelclf.bounds.stability` and :mod:`~kernelclf.bounds.rademacher`.

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
    bound with ``lambda = 1/(2 C m)``), ``"perceptron"`` (fixed-order, mistake-driven:
    ``mistake_indices_``, ``n_updates_``, ``converged_``, ``shuffle``; Examples 5.15,
    5.24), ``"amm"`` (``lam`` and the slacks of eq. 2.58, Theorem 4.37), ``"rmm"`` (class
    ``H^S_{E,D}``, eq. 30), ``"sigma_svm"`` (class ``G^S_{B,D}`` with its own ``D``,
    eq. 31), ``"gp"`` (Laplace-mode GP classifier: ``latent_mean`` is the kernel expansion,
    ``noise = 0`` gives the stability bound with ``lambda = 1/(2m)``), ``"relaxed_rmm"``
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
classifier) gets the defaults: its training error, the robust margin bound if it exposes a
weight vector (``coef_``) or a kernel expansion (``alpha_``, ``X_fit_``, ``kernel_``), the
VC and PAC-Bayes bounds if it is linear in ``R^n``; every other record says why it does
not apply.

A fitted :class:`sklearn.pipeline.Pipeline` is reported through its last step, on the
sample transformed by the steps before it (``pipeline[:-1].transform(X)``).

Records
-------
:func:`report` returns a :class:`BoundReport`, a list with one dict per bound with the keys

``name``
    short name of the bound (the same set of names for every estimator, in a fixed order);
``source``
    theorem / equation it evaluates;
``applicable``
    whether the premises hold (declared tags, fitted state, training error) and the row
    was evaluated;
``value``
    raw right-hand side (``nan`` when not applicable; ``inf`` when a range condition of
    the theorem fails, e.g. ``d_eff > 2m``);
``trivial``
    ``value >= 1`` (``None`` when not applicable);
``inputs``
    dict of the numbers passed to the bound function;
``reason``
    which premise failed: why the bound does not apply, why it was skipped, or why its
    value is ``inf``; empty for a finite value;
``skipped``
    ``True`` if the premises hold but the row was left out on request (``skip_slow``);
``note``
    caveats of the evaluation (``""`` if none).

Applicability in brief (``R_emp`` is the training error with ``sign(0)`` counted wrong):

* margin bounds (eq. 4.29, 4.27, TR Thm 1, Thm 5.10) need ``R_emp = 0``; the robust margin
  bound (eq. 4.33) holds for every classifier with a weight vector; the soft-margin form
  (eq. 4.34) and the F_E Rademacher bound (eq. 29) are evaluated at the canonical scale
  (``margin`` tag), the AMM form (eq. 4.38) for the adaptive margin machine;
* VC bounds need a classifier linear in ``R^n`` (linear kernel or ``coef_``;
  ``vartheta = n``, or ``n + 1`` with a bias);
* compression: the SVM's support vectors (permutation invariant; eq. 5.16 if
  ``R_emp = 0``, else the lossy Theorem 5.18) and a converged fixed-order perceptron's
  update indices (Theorem 5.17, ordered); the perceptron's mistake bounds (eq. 5.17) with its
  observed number of updates and with Novikoff's bound (Example 5.24);
* stability (Theorem 5.34): regularised risk minimisers in an RKHS without bias, namely the
  hinge-loss SVM without bias (``lambda = 1/(2 C m)``) and the Laplace-mode Gaussian
  process classifier with ``noise=0`` (logistic loss, Lipschitz 1, ``lambda = 1/(2m)``);
* RMM Theorem 18: eq. 29 (class ``F_E``), eq. 31 for the Σ-SVM (class ``G^S_{B,D}``, its
  own ``D``), eq. 30 for the relative margin machine (class ``H^S_{E,D}``, ``D`` chosen by
  the caller).

An intercept ``b`` is folded into the weight vector as in :mod:`kernelclf.bounds.inputs`
(``w~ = (w, b)``, ``phi~(x) = (phi(x), 1)``). The radius ``varsigma`` and ``sup_x k(x, x)``
are their sample values. Quantities such as ``E`` or ``B`` of RMM Theorem 18 are read off
the fitted model although the theorem fixes them in advance; the records say so in
``note``.

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

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from . import compression as _comp
from . import inputs as _inputs
from . import margin as _margin
from . import pac_bayes as _pb
from . import rademacher as _rad
from . import stability as _stab
from . import vc as _vc
from ._validation import check_delta

__all__ = ["report", "format_report", "bound_tags", "estimated_seconds", "BoundReport",
           "SlowBoundWarning", "BOUND_NAMES", "FAMILIES", "DEFAULT_TAGS", "SLOW_SECONDS"]

#: the bounds :func:`report` knows, in the order of its records, with their sources
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
    """A row of :func:`report` is about to start and is expected to take long."""


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
# slow rows
# ---------------------------------------------------------------------------------------
#: rough seconds per unit of work on one core (measured at m = 100-2000, OpenBLAS)
_T_LBFGS, _T_EIGH, _T_QP = 5e-7, 3e-10, 1e-9


def estimated_seconds(name, m, n_features=None):
    """Rough run time in seconds of one row of :func:`report` (one core).

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
        every other row, which costs a few kernel evaluations. Good to a factor of a few.
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


def _slow(c, name, what):
    """``None`` if the row may run now; a skipped record with ``skip_slow``; else warn first."""
    sec = estimated_seconds(name, c.m, c.linear_dimension())
    if sec <= SLOW_SECONDS:
        return None
    msg = f"{what} at m = {c.m}: estimated {sec:.0f} s"
    if c.skip_slow:
        return _rec(name, reason=f"skipped (skip_slow=True): {msg} > SLOW_SECONDS = "
                    f"{SLOW_SECONDS:g} s", skipped=True)
    warnings.warn(f"{name} ({_SOURCE[name]}) {msg}; report(..., skip_slow=True) leaves this row "
                  "out", SlowBoundWarning, stacklevel=4)
    return None


# ---------------------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------------------
def _g(x):
    return f"{float(x):.4g}"


def _rec(name, value=None, inputs=None, reason="", note="", why_inf="", skipped=False):
    """One record; ``value=None`` means not applicable (``reason`` required)."""
    if value is None:
        if not reason:
            raise AssertionError(f"{name}: a record that does not apply needs a reason")
        return {"name": name, "source": _SOURCE[name], "applicable": False, "value": math.nan,
                "trivial": None, "inputs": dict(inputs or {}), "reason": reason,
                "skipped": bool(skipped), "note": note}
    value = float(value)
    if math.isfinite(value):
        reason = ""
    else:
        reason = why_inf or f"a range condition of {_SOURCE[name]} fails (value {value})"
    return {"name": name, "source": _SOURCE[name], "applicable": True, "value": value,
            "trivial": not value < 1.0, "inputs": dict(inputs or {}), "reason": reason,
            "skipped": False, "note": note}


class BoundReport(list):
    """The records of :func:`report`: a list of dicts, one per bound of :data:`BOUND_NAMES`.

    Being a list, it is used as one; the facts about the sample and the estimator sit beside
    the records as attributes.

    Attributes
    ----------
    estimator : str
        Class name of the reported classifier (the last step of a pipeline).
    tags : dict
        Its resolved tags (:func:`bound_tags`).
    m : int
        Sample size.
    training_error : float
        ``R_emp`` with ``sign(0)`` counted as an error.
    delta : float
        Confidence parameter of every bound.
    """

    def __init__(self, records=(), *, estimator="", tags=None, m=None, training_error=None,
                 delta=None):
        super().__init__(records)
        self.estimator = estimator
        self.tags = dict(tags or {})
        self.m = m
        self.training_error = training_error
        self.delta = delta

    @property
    def tightest(self):
        """The record of the smallest bound below 1, or ``None`` if every bound is trivial."""
        return _tightest(self)

    def summary(self):
        """The closing lines of :func:`format_report`."""
        return _summary(self)


def _tightest(records):
    best = None
    for r in records:
        if r["applicable"] and r["value"] < 1.0 and (best is None or r["value"] < best["value"]):
            best = r
    return best


def _summary(records):
    n_app = sum(bool(r["applicable"]) for r in records)
    n_inf = sum(bool(r["applicable"]) and not math.isfinite(r["value"]) for r in records)
    n_triv = sum(bool(r["applicable"]) and bool(r["trivial"]) for r in records)
    n_skip = sum(bool(r.get("skipped", False)) for r in records)
    first = (f"{n_app} of {len(records)} bounds apply, {n_triv} of them trivial (>= 1), "
             f"{n_inf} of those inf")
    if n_skip:
        first += f"; {n_skip} skipped (skip_slow)"
    remp = getattr(records, "training_error", None)
    m = getattr(records, "m", None)
    lead = ("training error not recorded" if remp is None
            else f"training error {remp:.4g}" + ("" if m is None else f" (m = {m})"))
    best = _tightest(records)
    if best is not None:
        last = (f"{lead}; tightest non-trivial bound {best['value']:.4g}: {best['name']} "
                f"({best['source']})")
    elif n_app:
        last = f"{lead}; every bound that applies is trivial (>= 1)" + \
            ("" if m is None else f" at m = {m}")
    else:
        last = f"{lead}; no bound applies"
    return first + "\n" + last


class _LatentView(BaseEstimator):
    """The kernel expansion ``sum_i alpha_i k(x_i, .)`` of a fitted GP classifier.

    Its ``decision_function`` is the latent mean (LKC eq. 3.22), the real-valued function
    whose sign the classifier predicts; the GP's own ``decision_function`` may return
    predictive log-odds, which have the same sign but another scale.
    """

    def __init__(self, est):
        self.est = est
        self.alpha_ = est.alpha_
        self.X_fit_ = est.X_fit_
        self.kernel_ = est.kernel_
        self.classes_ = est.classes_

    def fit(self, X, y):  # pragma: no cover - only here for sklearn's check_is_fitted
        raise TypeError("a view of a fitted model")

    def decision_function(self, X):
        return self.est.latent_mean(X)


class _Context:
    """What several bounds share, computed once from the estimator and its training sample."""

    def __init__(self, est, X, y, delta, D, skip_slow):
        self.est = est
        self.delta = delta
        self.D = D
        self.skip_slow = bool(skip_slow)
        self.X = X
        self.tags = bound_tags(est)
        self.family = self.tags["family"]
        self.label = type(est).__name__
        self.y_pm = _inputs.signed_labels(est, y)
        self.m = int(self.y_pm.size)
        try:
            self.kind = _inputs._kind(est)
            self.opaque = ""
        except TypeError:
            self.kind = None
            self.opaque = (f"{self.label} exposes neither a kernel expansion (alpha_, X_fit_, "
                           "kernel_) nor a weight vector (coef_): no ||w||, no margin")
        self.model = _LatentView(est) if self.family == "gp" else est
        if self.kind is not None:
            self.t = _inputs.functional_margins(self.model, X, y)   # also checks len(X) == len(y)
            self.remp = float(np.mean(self.t <= 0))
            self.mi = _inputs.margin_inputs(self.model, X, y)
            has_b = _inputs._intercept(est) != 0.0
        else:
            self.t, self.mi, has_b = None, None, False
            self.remp = self._opaque_training_error()
        bias = self.tags["bias"]
        if bias is None:
            bias = any(_is_true(getattr(est, p, False)) for p in ("fit_bias", "fit_intercept", "bias"))
        self.bias = bool(bias) or has_b
        self._kd = None

    def _opaque_training_error(self):
        if hasattr(self.est, "decision_function"):
            f = np.ravel(np.asarray(self.est.decision_function(self.X), dtype=float))
            if f.shape != self.y_pm.shape:
                raise ValueError(f"X has {f.size} samples but y has {self.y_pm.size}")
            return float(np.mean(self.y_pm * f <= 0))
        pred = np.asarray(self.est.predict(self.X))
        return float(np.mean(np.where(pred == np.asarray(self.est.classes_)[1], 1.0, -1.0)
                             != self.y_pm))

    @property
    def k_diag(self):
        """``k(x_i, x_i)`` on the training sample (kernel of the fitted model)."""
        if self._kd is None:
            self._kd = np.asarray(_inputs._kernel_diag(self.model, self.X), dtype=float)
        return self._kd

    def base_kernel(self):
        """The fitted kernel, or the base kernel of a whitened one."""
        from ..kernels.whitened import WhitenedKernel

        k = getattr(self.model, "kernel_", None)
        return k.base_ if isinstance(k, WhitenedKernel) else k

    def linear_dimension(self):
        """``n`` if the classifier is linear in ``R^n`` (else ``None``)."""
        from ..kernels.vector import Linear

        if self.kind is None or isinstance(self.X, list):
            return None
        k = self.base_kernel()
        if isinstance(k, Linear) or (k is None and self.kind == "primal"):
            return int(np.asarray(self.X).shape[1])
        return None

    def gram(self):
        return np.asarray(self.model.kernel_(self.X, self.X), dtype=float)

    def coordinates(self):
        """Coordinates ``Z`` of the training points in feature space, ``Z Z' = K``."""
        if self.linear_dimension() is not None:
            return np.asarray(self.X, dtype=float)      # linear kernel: the inputs themselves
        (Z,) = _rad.feature_map(self.base_kernel(), self.X)
        return Z

    def labels_back(self):
        classes = np.asarray(self.est.classes_)
        return np.where(self.y_pm > 0, classes[1], classes[0])

    def no_model(self, names):
        """Records for rows that need a weight vector, if there is none."""
        if self.mi is None:
            return [_rec(nm, reason=self.opaque) for nm in names]
        return None


# ---------------------------------------------------------------------------------------
# one function per family; each returns records
# ---------------------------------------------------------------------------------------
def _vc_records(c):
    names = ["VC bound", "PAC VC bound"]
    n = c.linear_dimension()
    if n is None:
        reason = ("needs a classifier linear in R^n (a linear kernel or coef_ on vector inputs): "
                  "the VC dimension of this class is not known")
        if c.kind is None:
            reason = c.opaque + "; " + reason
        return [_rec(nm, reason=reason) for nm in names]
    vt = n + (1 if c.bias else 0)
    inp = {"m": c.m, "vartheta": vt, "remp": c.remp, "delta": c.delta}
    out = [_rec("VC bound", _vc.vc_dimension_bound(c.remp, c.m, c.delta, vt), inp,
                note="vartheta = n + 1 (hyperplanes with bias)" if c.bias else "vartheta = n")]
    if c.remp > 0:
        out.append(_rec("PAC VC bound", reason=f"training error {c.remp:.3g} > 0: eq. 4.15 is "
                        "for a classifier consistent with the sample"))
    else:
        out.append(_rec("PAC VC bound", _vc.pac_dimension_bound(c.m, c.delta, vt),
                        {"m": c.m, "vartheta": vt, "delta": c.delta}))
    return out


def _margin_records(c):
    names = ["PAC margin bound", "Fat-shattering bound", "TR margin bound"]
    none = c.no_model(names + ["Robust margin bound"])
    if none:
        return none
    mi, m = c.mi, c.m
    if c.remp > 0 or mi.gamma <= 0:
        reason = (f"training error {c.remp:.3g} > 0 (margin gamma = {mi.gamma:.3g} <= 0): "
                  "Theorems 4.30, 4.32 and TR Theorem 1 need a consistent classifier")
        out = [_rec(nm, reason=reason) for nm in names]
    else:
        g, vs = mi.gamma, mi.varsigma
        inp = {"m": m, "gamma": g, "varsigma": vs, "delta": c.delta}
        vt = float(_margin.linear_fat_shattering(g / 8.0, vs))
        kappa = math.ceil(577.0 * vs**2 / g**2 - 1e-9)
        out = [
            _rec("PAC margin bound", _margin.pac_margin_bound(m, g, c.delta, vs), inp,
                 why_inf=f"margin too small for m: gamma = {_g(g)} < sqrt(32/m) varsigma = "
                 f"{_g(math.sqrt(32 / m) * vs)}; Theorem 4.32 needs m >= 32 varsigma^2/gamma^2 "
                 f"= {math.ceil(32 * vs**2 / g**2)}"),
            _rec("Fat-shattering bound", _margin.fat_shattering_bound(m, vt, c.delta),
                 {"m": m, "vartheta_eff": vt, "delta": c.delta},
                 note="fat(gamma/8) <= 64 varsigma^2/gamma^2: equals eq. 4.29",
                 why_inf=f"vartheta_eff = 64 varsigma^2/gamma^2 = {_g(vt)} > 2m = {2 * m}: "
                 "Theorem 4.30 needs vartheta_eff <= 2m"),
            _rec("TR margin bound", _margin.tr_margin_bound(m, g, c.delta, vs), inp,
                 why_inf=f"kappa = ceil(577 varsigma^2/gamma^2) = {kappa} > 2m = {2 * m}: the "
                 "fat-shattering argument needs kappa <= 2m"),
        ]
    g_r, d_r, v_r = mi.best_robust_margin(c.delta)
    out.append(_rec("Robust margin bound", v_r,
                    {"m": m, "gamma": g_r, "d_eff": d_r, "varsigma": mi.varsigma, "delta": c.delta},
                    note="minimum over gamma in (0, varsigma] (the theorem holds for all gamma)",
                    why_inf=f"d_eff = 65 (varsigma + 3 D(gamma))^2/gamma^2 >= {_g(d_r)} > 2m = "
                    f"{2 * m} at every gamma tried: Theorem 4.35 needs d_eff <= 2m"))
    return out


def _no_canonical_scale(c, declared="'soft' or 'hard'"):
    return (f"needs the canonical scale of a margin machine (functional margin 1: declared "
            f"margin {declared}); {c.label} declares none, so the scale of its f is arbitrary")


def _soft_records(c):
    name = "Soft-margin bound"
    none = c.no_model([name])
    if none:
        return none
    mi = c.mi
    if c.tags["margin"] is None:
        return [_rec(name, reason=_no_canonical_scale(c, "'soft'"))]
    if c.tags["margin"] == "hard":
        return [_rec(name, reason="hard margin: no slacks, and eq. 4.34 reduces to eq. 4.33 at "
                     "gamma = 1/||w|| (see the robust margin bound)")]
    if c.family == "amm":
        return [_rec(name, reason="the AMM's slacks (eq. 2.58) are not the hinge slacks of "
                     "eq. 4.34: see the AMM bound (eq. 4.38)")]
    if 1.0 / mi.w_norm > mi.varsigma:
        return [_rec(name, reason=f"gamma = 1/||w|| = {_g(1 / mi.w_norm)} exceeds varsigma = "
                     f"{_g(mi.varsigma)} (Theorem 4.35 needs gamma <= varsigma)")]
    xi = np.maximum(0.0, 1.0 - c.t)
    d = float(_margin.soft_margin_d_eff(mi.w_norm, xi, mi.varsigma, norm=2))
    return [_rec(name, _margin.robust_margin_bound(c.m, d, c.delta),
                 {"m": c.m, "d_eff": d, "w_norm": mi.w_norm, "slack_norm": float(np.linalg.norm(xi)),
                  "varsigma": mi.varsigma, "delta": c.delta},
                 why_inf=f"d_eff = 65 (varsigma ||w|| + 3 ||xi||)^2 = {_g(d)} > 2m = {2 * c.m}: "
                 "Theorem 4.35 needs d_eff <= 2m")]


def _amm_records(c):
    name = "AMM bound"
    if c.family != "amm":
        return [_rec(name, reason="only for the adaptive margin machine (family 'amm'): eq. 4.38 "
                     "uses its coefficients and the slacks of eq. 2.58")]
    none = c.no_model([name])
    if none:
        return none
    d = _inputs.amm_d_eff(c.est, c.X, c.labels_back())
    return [_rec(name, _margin.robust_margin_bound(c.m, d, c.delta),
                 {"m": c.m, "d_eff": d, "lam": float(c.est.lam), "varsigma": c.mi.varsigma,
                  "delta": c.delta},
                 why_inf=f"d_eff = 65 (varsigma ||w|| + 3 sum_i max(0, xi_i - lam alpha_i k_ii))^2 "
                 f"= {_g(d)} > 2m = {2 * c.m}: Theorem 4.37 needs d_eff <= 2m")]


def _pac_bayes_records(c):
    name = "PAC-Bayes margin bound"
    none = c.no_model([name])
    if none:
        return none
    if c.remp > 0:
        return [_rec(name, reason=f"training error {c.remp:.3g} > 0: Theorem 5.10 needs a "
                     "positive normalised margin Gamma")]
    G = _pb.normalized_margin_of(c.model, c.X, c.labels_back())
    n = c.linear_dimension()
    if n is not None:
        n = n + (1 if c.bias else 0)
    return [_rec(name, _pb.pac_bayes_margin_bound(c.m, G, c.delta, n),
                 {"m": c.m, "Gamma": G, "n": n, "delta": c.delta},
                 note="n = None: infinite feature space, d = m",
                 why_inf=f"normalised margin Gamma = {_g(G)} <= 0")]


def _compression_records(c):
    names = ["Compression bound", "Lossy compression bound", "Mistake bound (updates)",
             "Mistake bound (Novikoff)"]
    est = c.est
    not_online = ("only for mistake-driven on-line learners run to convergence (family "
                  "'perceptron')")
    all_d = "every training point is kept (d = m = {}): nothing is compressed".format(c.m)
    if c.family == "svm":
        d = int(_comp.svm_compression(est).size)
        inp = {"m": c.m, "d": d, "delta": c.delta}
        note = "support vectors, permutation invariant (Example 5.16)"
        if c.remp == 0:
            out = [_rec("Compression bound", _comp.pac_compression_bound(c.m, d, c.delta, True),
                        inp, note=note, why_inf=all_d),
                   _rec("Lossy compression bound", reason="training error 0: see the PAC "
                        "compression bound")]
        else:
            out = [_rec("Compression bound", reason=f"training error {c.remp:.3g} > 0: eq. 5.16 "
                        "needs a consistent reconstruction (see the lossy compression bound)"),
                   _rec("Lossy compression bound",
                        _comp.lossy_compression_bound(c.m, d, c.remp, c.delta, True),
                        {**inp, "remp": c.remp}, note=note, why_inf=all_d)]
        return out + [_rec(nm, reason=not_online) for nm in names[2:]]
    if c.family == "perceptron":
        try:
            idx = _comp.perceptron_compression(est)
        except ValueError as exc:
            return [_rec(nm, reason=str(exc)) for nm in names]
        d = int(idx.size)
        out = [_rec("Compression bound", _comp.pac_compression_bound(c.m, d, c.delta, False),
                    {"m": c.m, "d": d, "delta": c.delta},
                    note="update indices, ordered (Example 5.15)", why_inf=all_d),
               _rec("Lossy compression bound", reason="training error 0: see the PAC "
                    "compression bound")]
        M = int(est.n_updates_)
        out.append(_rec("Mistake bound (updates)", _comp.mistake_bound_risk(M, c.m, c.delta),
                        {"m": c.m, "M": M, "delta": c.delta}))
        slow = _slow(c, "Mistake bound (Novikoff)", "solves a dense hard-margin QP in m variables")
        if slow is not None:
            return out + [slow]
        if c.kind == "expansion":
            Mn = _comp.perceptron_mistake_bound(c.gram(), c.y_pm, precomputed=True)
        else:
            Mn = _comp.perceptron_mistake_bound(np.asarray(c.X, dtype=float), c.y_pm)
        out.append(_rec("Mistake bound (Novikoff)", _comp.mistake_bound_risk(Mn, c.m, c.delta),
                        {"m": c.m, "M": float(Mn), "delta": c.delta},
                        note="M = (varsigma / gamma(w_SVM))^2, hard-margin SVM without bias"))
        return out
    reason = ("needs a declared compression scheme: the support vectors of an SVM (family 'svm') "
              f"or the update indices of a converged perceptron (family 'perceptron'); {c.label} "
              f"declares family {c.family!r}")
    return [_rec(nm, reason=reason) for nm in names[:2]] + [_rec(nm, reason=not_online)
                                                             for nm in names[2:]]


def _stability_records(c):
    name = "Stability bound"
    est = c.est
    if c.family == "svm":
        if c.tags["margin"] != "soft":
            return [_rec(name, reason="hard margin: no loss term, not a regularised risk "
                         "minimiser with a Lipschitz loss (Theorem 5.31)")]
        if getattr(est, "loss", "hinge") != "hinge":
            return [_rec(name, reason=f"loss {est.loss!r} is not Lipschitz: Theorem 5.31 needs a "
                         "Lipschitz loss (the hinge loss)")]
        if c.bias:
            return [_rec(name, reason="the bias is not regularised: Theorem 5.31 is for f in an "
                         "RKHS without bias (fit_bias=False)")]
        if isinstance(getattr(est, "class_weight", None), str):
            return [_rec(name, reason=f"class_weight={est.class_weight!r} computes the weights "
                         "from the sample: the loss changes with the sample, outside Theorem 5.31")]
        lam = 1.0 / (2.0 * float(est.C) * c.m)
        # C_i = C c_{y_i}: the loss c_y hinge(y f) is Lipschitz with constant max_y c_y
        lip = float(np.max(np.asarray(getattr(est, "class_weight_", [1.0]), dtype=float)))
        note = f"lambda = 1/(2 C m) (eq. 2.47), hinge loss, Lipschitz {lip:g}" + \
            (" (largest class weight)" if lip != 1.0 else "")
    elif c.family == "gp":
        if float(est.noise) != 0.0:
            return [_rec(name, reason="noise > 0 changes the regulariser (G + noise I): not of "
                         "the form of eq. 5.19")]
        lam, lip = 1.0 / (2.0 * c.m), 1.0
        note = "Laplace mode = regularised logistic loss, lambda = 1/(2m), Lipschitz 1"
    else:
        return [_rec(name, reason="only for regularised risk minimisers in an RKHS without bias "
                     "(family 'svm' with the hinge loss and no bias, family 'gp' with noise 0)")]
    none = c.no_model([name])
    if none:
        return none
    sup_k = float(np.max(c.k_diag))
    remp_tau = _stab.clipped_empirical_risk(c.t, np.ones_like(c.t), tau=1.0)
    value = _stab.classification_stability_bound(remp_tau, c.m, lam, c.delta, tau=1.0,
                                                 sup_k=sup_k, loss_lipschitz=lip)
    return [_rec(name, value, {"m": c.m, "lam": lam, "remp_tau": remp_tau, "sup_k": sup_k,
                               "tau": 1.0, "lipschitz": lip, "delta": c.delta},
                 note=note + "; sup_k from the sample")]


def _rademacher_records(c):
    names = ["Rademacher bound F_E", "Rademacher bound Σ-SVM", "Rademacher bound RMM"]
    none = c.no_model(names)
    if none:
        return none
    out = []
    mi = c.mi
    slack = float(_rad.margin_slacks(c.t, np.ones_like(c.t), 1.0).sum())
    note_E = "E (B) read off the fitted model (Theorem 18 fixes it in advance); gamma = 1"
    if c.tags["margin"] is not None:
        E = 0.5 * mi.w_norm**2
        trK = float(np.sum(c.k_diag)) + (c.m if mi.augmented else 0.0)
        out.append(_rec(names[0], _rad.svm_margin_bound(slack, 1.0, E, trK, c.m, c.delta),
                        {"n": c.m, "slack_sum": slack, "gamma": 1.0, "E": E, "trace_K": trK,
                         "delta": c.delta}, note=note_E))
    else:
        out.append(_rec(names[0], reason=_no_canonical_scale(c)))
    if c.family != "sigma_svm":
        out.append(_rec(names[1], reason="only for the Sigma-SVM (family 'sigma_svm'): class "
                        "G^S_{B,D} with the machine's own D"))
    else:
        slow = _slow(c, names[1], "needs the coordinates of the sample in feature space")
        if slow is not None:
            out.append(slow)
        else:
            D = float(c.est.D)
            Z = c.coordinates()
            S = np.c_[Z - Z.mean(axis=0), np.ones(c.m)]     # centred, augmented with the bias
            B = 0.5 * mi.w_norm**2                          # = 1/2 (u' Sigma_D u + b^2)
            val = _rad.sigma_svm_margin_bound(slack, 1.0, B, S, D, c.delta)
            out.append(_rec(names[1], val, {"n": c.m, "slack_sum": slack, "gamma": 1.0, "B": B,
                                            "D": D, "delta": c.delta},
                            note=note_E + "; O(1/sqrt(n tr K)) term left out (not certified)"))
    if c.family != "rmm":
        out.append(_rec(names[2], reason="only for the relative margin machine (family 'rmm'): "
                        "class H^S_{E,D}"))
    else:
        slow = _slow(c, names[2], "minimises the convex problem of RMM Theorem 10 over m weights")
        if slow is not None:
            out.append(slow)
        else:
            D = float(c.D)
            Z = c.coordinates()
            S = np.c_[Z, np.ones(c.m)]                       # augmented with the bias
            f = c.t * c.y_pm
            E = 0.5 * (1.0 - D) * mi.w_norm**2 + 0.5 * D * float(np.max(f**2))
            val = _rad.rmm_margin_bound(slack, 1.0, E, S, D, c.delta)
            out.append(_rec(names[2], val, {"n": c.m, "slack_sum": slack, "gamma": 1.0, "E": E,
                                            "D": D, "delta": c.delta},
                            note=note_E + "; O(1/sqrt(n_v tr K)) term left out (not certified)"))
    return out


def report(estimator, X, y, delta=0.05, D=0.5, skip_slow=False):
    """Every bound of the package evaluated for a fitted binary classifier.

    Parameters
    ----------
    estimator : fitted binary classifier, or a fitted :class:`sklearn.pipeline.Pipeline`
        A classifier of the package declares what it is through ``_bound_tags`` (module
        docstring); any other scikit-learn binary classifier is reported with the default
        tags. A pipeline is reported through its last step on ``pipeline[:-1].transform(X)``.
    X, y : the training sample the estimator was fitted on (``y`` in its original labels)
    delta : float in (0, 1), default 0.05
        Confidence: each bound holds with probability at least ``1 - delta``.
    D : float in [0, 1), default 0.5
        ``D`` of the class ``H^S_{E,D}`` used for the RMM bound (eq. 30); the relative margin
        machine itself has no ``D``. The Sigma-SVM uses its own ``D``.
    skip_slow : bool, default False
        Leave out the rows whose :func:`estimated_seconds` exceed :data:`SLOW_SECONDS`
        (recorded with ``skipped=True`` and the estimate in ``reason``). Otherwise such a row
        issues a :class:`SlowBoundWarning` before it starts.

    Returns
    -------
    BoundReport
        A list with one record per bound of :data:`BOUND_NAMES`, in that order (see the
        module docstring for the keys), with ``m``, ``training_error``, ``tags`` and
        ``tightest`` beside it.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.
    TypeError
        If it is not a classifier, a pipeline ending in ``'passthrough'``, or a
        hyper-parameter search (pass its ``best_estimator_``).
    ValueError
        For a bad ``delta`` or ``D``, more than two classes, ``X`` and ``y`` of different
        lengths, labels not in ``classes_``, inputs of the wrong width, a zero weight
        vector, or a malformed ``_bound_tags``.

    Notes
    -----
    Cost: everything is a few kernel evaluations on the sample, except the rows listed in
    the module docstring ("Slow rows"); the RMM bound (eq. 30) with a full-rank kernel
    (RBF) takes seconds at m = 200 and tens of seconds at m = 400.
    """
    delta = float(check_delta(delta))
    D = float(D)
    if not 0.0 <= D < 1.0:
        raise ValueError(f"D must lie in [0, 1), got {D!r}")
    est, X = _unwrap(estimator, X)
    yv = np.asarray(y)
    if hasattr(X, "toarray"):                       # a sparse matrix from a transformer
        X = X.toarray()
    n_x = len(X) if isinstance(X, list) else np.asarray(X).shape[0]
    if yv.ndim != 1 or n_x != yv.shape[0]:
        raise ValueError(f"X has {n_x} samples but y has shape {yv.shape}: one label per row needed")
    if not isinstance(X, list):
        X = np.asarray(X, dtype=float)
    c = _Context(est, X, yv, delta, D, skip_slow)
    records = (_vc_records(c) + _margin_records(c) + _soft_records(c) + _amm_records(c)
               + _pac_bayes_records(c) + _compression_records(c) + _stability_records(c)
               + _rademacher_records(c))
    order = {name: i for i, name in enumerate(BOUND_NAMES)}
    records.sort(key=lambda r: order[r["name"]])
    assert [r["name"] for r in records] == BOUND_NAMES
    return BoundReport(records, estimator=c.label, tags=c.tags, m=c.m, training_error=c.remp,
                       delta=delta)


def _fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{v:.4g}"
    return str(v)


def format_report(records, show_inapplicable=True, width=None):
    """A plain-text table of the records of :func:`report`, closed by a summary.

    Columns: bound, source, value, trivial flag, and the inputs used; for a value of
    ``inf`` the failed range condition comes first ("why inf: ..."), for a bound that does
    not apply the reason ("n/a: ..."), for a row left out by ``skip_slow`` the estimate
    ("skipped: ..."). With ``width`` the last column is cut to fit that many characters per
    line. ``show_inapplicable=False`` leaves out the bounds that do not apply.

    The summary counts the bounds that apply, are trivial and are ``inf``, and ends with
    the training error beside the tightest non-trivial bound (or says that every bound is
    trivial). A :class:`BoundReport` is introduced by the estimator's class name and tags.
    """
    if not isinstance(records, (list, tuple)) or not all(isinstance(r, dict) for r in records):
        raise TypeError("records must be a list of dicts as returned by report()")
    rows = [("bound", "source", "value", "trivial", "inputs / reason")]
    for r in records:
        try:
            applicable = r["applicable"]
            if not applicable and not show_inapplicable:
                continue
            inputs = ", ".join(f"{k}={_fmt(v)}" for k, v in r["inputs"].items())
            if applicable:
                detail = inputs if not r["reason"] else f"why inf: {r['reason']} | {inputs}"
                flag = "yes" if r["trivial"] else "no"
            else:
                detail = r["reason"] if r.get("skipped") else "n/a: " + r["reason"]
                flag = "-"
            rows.append((r["name"], r["source"], _fmt(r["value"]), flag, detail))
        except KeyError as exc:
            raise ValueError(f"record without the key {exc}: not a record of report()") from None
    w = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    if isinstance(records, BoundReport):
        tags = ", ".join(f"{k} {v!r}" for k, v in records.tags.items())
        lines.append(f"{records.estimator} ({tags}); m = {records.m}, delta = {records.delta:g}")
    for k, row in enumerate(rows):
        head = "  ".join(row[i].ljust(w[i]) for i in range(4)) + "  "
        tail = row[4]
        room = len(tail) if width is None else max(20, int(width) - len(head))
        lines.append(head + (tail if len(tail) <= room else tail[:room - 3] + "..."))
        if k == 0:
            lines.append("-" * (len(head) + max(len(r[4]) for r in rows) if width is None
                                else min(int(width), len(head) + room)))
    return "\n".join(lines) + "\n\n" + _summary(records)
