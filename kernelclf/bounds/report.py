"""Every applicable generalisation bound for one fitted classifier, as a list of records.

Book chapter 18 (``book/18_bound_dashboard.md``); it gathers the bounds of LKC §4.2
(Remark 4.11, eq. 4.14-4.15 with eq. 4.19), §4.4 (Theorem 4.30 eq. 4.27, Theorem 4.32
eq. 4.29, Theorem 4.35 eq. 4.33, Remark 4.36 eq. 4.34, Theorem 4.37 eq. 4.38), §5.1
(Theorem 5.10 eq. 5.12), §5.2 (Theorem 5.17 / eq. 5.16, Theorem 5.18, Theorem 5.23
eq. 5.17 with Example 5.24), §5.3 (Theorem 5.34 with errata E8, E9), TR 99-11 Theorem 1 and
RMM Theorem 18 (eq. 29-31).

:func:`report` does no bound arithmetic of its own. It resolves what the estimator is
(:mod:`kernelclf.bounds.report_tags`: the declared tags, a pipeline's last step), collects
the rows of every family of bounds (:mod:`kernelclf.bounds.report_rows`, which call the
bound functions of :mod:`~kernelclf.bounds.vc`, :mod:`~kernelclf.bounds.covering`,
:mod:`~kernelclf.bounds.margin`, :mod:`~kernelclf.bounds.pac_bayes_margin`,
:mod:`~kernelclf.bounds.compression`,
:mod:`~kernelclf.bounds.stability` and :mod:`~kernelclf.bounds.rademacher`) in the order of
:data:`~kernelclf.bounds.report_tags.BOUND_NAMES`, and returns them as a
:class:`BoundReport`; :func:`format_report` prints them as a table closed by a summary.

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
    caveats of the evaluation (``""`` if none), e.g. a kernel chosen on the sample
    (:mod:`kernelclf.bounds.report_rows`), which the theorems fix in advance.

Which bound applies to which estimator is set out in :mod:`kernelclf.bounds.report_rows`;
which rows are slow, in :mod:`kernelclf.bounds.report_tags`.
"""
from __future__ import annotations

import math

import numpy as np

from ._validation import check_delta
from .report_rows import (
    _amm_records,
    _compression_records,
    _Context,
    _margin_records,
    _pac_bayes_records,
    _rademacher_records,
    _soft_records,
    _stability_records,
    _vc_records,
)
from .report_tags import BOUND_NAMES, _unwrap

__all__ = ["report", "format_report", "BoundReport"]


class BoundReport(list):
    """The records of :func:`report`: a list of dicts, one per bound of
    :data:`~kernelclf.bounds.report_tags.BOUND_NAMES`.

    Being a list, it is used as one; the facts about the sample and the estimator sit beside
    the records as attributes.

    Attributes
    ----------
    estimator : str
        Class name of the reported classifier (the last step of a pipeline).
    tags : dict
        Its resolved tags (:func:`~kernelclf.bounds.report_tags.bound_tags`).
    m : int
        Sample size.
    training_error : float
        ``R_emp`` with ``sign(0)`` counted as an error.
    delta : float
        Confidence parameter of every bound.
    hint : str
        When no bound applies, why, and what to report instead (else ``''``).
    """

    def __init__(self, records=(), *, estimator="", tags=None, m=None, training_error=None,
                 delta=None, hint=""):
        super().__init__(records)
        self.estimator = estimator
        self.tags = dict(tags or {})
        self.m = m
        self.training_error = training_error
        self.delta = delta
        self.hint = hint

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
        hint = getattr(records, "hint", "")
        last = f"{lead}; no bound applies" + (f": {hint}" if hint else "")
    return first + "\n" + last


def _no_bound_hint(est, name):
    """Why no bound applies to ``est`` (named ``name``), and what to report instead."""
    # a one-vs-rest/one-vs-one wrapper (of the package or of scikit-learn), not any model with
    # estimators_ (a random forest or a bagging ensemble has them too)
    if hasattr(est, "estimators_") and type(est).__module__ in ("kernelclf.multiclass",
                                                               "sklearn.multiclass"):
        return (f"{name} is a multiclass wrapper, and the bounds are those of one binary "
                "machine; with two classes report the machine inside it, "
                "report(model.estimators_[0], X, (y == model.classes_[1]).astype(int))")
    expansion = "a kernel expansion (alpha_, X_fit_, kernel_) or a weight vector (coef_)"
    if type(est).__module__.split(".")[0] == "sklearn":
        same = (" (for an SVC: the support vector machine of kernelclf.margin with the same C, "
                "and RBF(gamma=...) for its gamma)" if "SVC" in type(est).__name__ else "")
        return (f"{name} is scikit-learn's: the bounds read {expansion} and what the "
                "classifier is (_bound_tags) from the package's estimators; report the "
                f"package's estimator of the same method instead{same}")
    return (f"the bounds read {expansion} and what the classifier is (its _bound_tags, "
            f"kernelclf.bounds.report_tags); {name} has neither")


def report(estimator, X, y, delta=0.05, D=0.5, skip_slow=False):
    """Every bound of the package evaluated for a fitted binary classifier.

    Parameters
    ----------
    estimator : fitted binary classifier, or a fitted :class:`sklearn.pipeline.Pipeline`
        A classifier of the package declares what it is through ``_bound_tags``
        (:mod:`kernelclf.bounds.report_tags`); any other scikit-learn binary classifier is
        reported with the default tags. A pipeline is reported through its last step on
        ``pipeline[:-1].transform(X)``.
    X, y : the training sample the estimator was fitted on (``y`` in its original labels)
    delta : float in (0, 1), default 0.05
        Confidence: each bound holds with probability at least ``1 - delta``.
    D : float in [0, 1), default 0.5
        ``D`` of the class ``H^S_{E,D}`` used for the RMM bound (eq. 30); the relative margin
        machine itself has no ``D``. The Sigma-SVM uses its own ``D``.
    skip_slow : bool, default False
        Leave out the rows whose :func:`~kernelclf.bounds.report_tags.estimated_seconds`
        exceed :data:`~kernelclf.bounds.report_tags.SLOW_SECONDS` (recorded with
        ``skipped=True`` and the estimate in ``reason``). Otherwise such a row issues a
        :class:`~kernelclf.bounds.report_tags.SlowBoundWarning` before it starts.

    Returns
    -------
    BoundReport
        A list with one record per bound of
        :data:`~kernelclf.bounds.report_tags.BOUND_NAMES`, in that order (see the module
        docstring for the keys), with ``m``, ``training_error``, ``tags`` and ``tightest``
        beside it.

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
        vector, a malformed ``_bound_tags``, or a model fitted with
        ``kernel='precomputed'`` (the bounds need the kernel function).

    Notes
    -----
    Cost: everything is a few kernel evaluations on the sample, except the rows listed in
    :mod:`kernelclf.bounds.report_tags` ("Slow rows"); the RMM bound (eq. 30) with a
    full-rank kernel (RBF) grows like ``m^3``: with one thread a whole report on a
    relative margin machine (two moons, ``RBF(1.0)``, three samples) took 0.2 to 0.6 s of
    CPU time at m = 200 and 2.5 to 4.2 s at m = 400 (on a busy shared machine the
    wall-clock time was up to about three times longer).
    """
    delta = float(check_delta(delta))
    D = float(D)
    if not 0.0 <= D < 1.0:
        raise ValueError(f"D must lie in [0, 1), got {D!r}")
    est, X = _unwrap(estimator, X)
    if isinstance(getattr(est, "kernel_", None), str) and est.kernel_ == "precomputed":
        raise ValueError(
            f"report() computes kernel values itself (norms, radii, margins of the sample), "
            f"and this {type(est).__name__} was fitted with kernel='precomputed': it has no "
            "kernel function to evaluate. Fit it with the kernel itself (a kernel object, or "
            "your function wrapped by kernelclf.kernels.CallableKernel) to report its bounds.")
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
    if c.kernel_choice:                 # the theorems fix the kernel before the sample
        caveat = (f"the kernel was chosen on this sample ({c.kernel_choice}); the theorem "
                  "fixes it in advance: not certified")
        # the VC class (affine maps of R^n) does not depend on the kernel's parameters, and
        # RMM eq. 31 is written for the whitened, sample-dependent class
        keep = {"VC bound", "PAC VC bound", "Rademacher bound Σ-SVM"}
        for r in records:
            if r["applicable"] and r["name"] not in keep:
                r["note"] = f"{r['note']}; {caveat}" if r["note"] else caveat
    hint = "" if any(r["applicable"] for r in records) else _no_bound_hint(est, c.label)
    return BoundReport(records, estimator=c.label, tags=c.tags, m=c.m, training_error=c.remp,
                       delta=delta, hint=hint)


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
