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

Every record is a dict with the keys

``name``
    short name of the bound (the same set of names for every estimator, in a fixed order);
``source``
    theorem / equation it evaluates;
``applicable``
    whether the premises hold (estimator type, fitted state, training error);
``value``
    raw right-hand side (``nan`` when not applicable; ``inf`` when the function reports a
    failed range condition, e.g. ``d_eff > 2m``);
``trivial``
    ``value >= 1`` (``None`` when not applicable);
``inputs``
    dict of the numbers passed to the bound function;
``reason``
    why the bound does not apply (empty string otherwise);
``note``
    caveats of the evaluation (``""`` if none).

Applicability in brief (``R_emp`` is the training error with ``sign(0)`` counted wrong):

* margin bounds (eq. 4.29, 4.27, TR Thm 1, Thm 5.10) need ``R_emp = 0``; the robust margin
  bound (eq. 4.33) holds for every kernel classifier; the soft-margin form (eq. 4.34) and
  the F_E Rademacher bound (eq. 29) are evaluated at the canonical scale of the
  soft-margin machines (SVM, RMM, Σ-SVM; the AMM for eq. 29), the AMM form (eq. 4.38) for
  the adaptive margin machine;
* VC bounds need a linear kernel in ``R^n`` (``vartheta = n``, or ``n + 1`` with a bias);
* compression: the SVM's support vectors (permutation invariant; eq. 5.16 if
  ``R_emp = 0``, else the lossy Theorem 5.18) and a converged fixed-order perceptron's
  update indices (Theorem 5.17, ordered); the perceptron's mistake bounds (eq. 5.17) with its
  observed number of updates and with Novikoff's bound (Example 5.24);
* stability (Theorem 5.34): regularised risk minimisers in an RKHS without bias, namely the
  hinge-loss SVM with ``fit_bias=False`` (``lambda = 1/(2 C m)``) and the Laplace-mode
  Gaussian process classifier with ``noise=0`` (logistic loss, Lipschitz 1,
  ``lambda = 1/(2m)``);
* RMM Theorem 18: eq. 29 (class ``F_E``), eq. 31 for :class:`~kernelclf.margin.rmm.SigmaSVM`
  (class ``G^S_{B,D}``, its own ``D``), eq. 30 for
  :class:`~kernelclf.margin.rmm.RelativeMarginMachine` (class ``H^S_{E,D}``, ``D`` chosen by the
  caller).

An intercept ``b`` is folded into the weight vector as in :mod:`kernelclf.bounds.inputs`
(``w~ = (w, b)``, ``phi~(x) = (phi(x), 1)``). The radius ``varsigma`` and ``sup_x k(x, x)``
are their sample values. Quantities such as ``E`` or ``B`` of RMM Theorem 18 are read off
the fitted model although the theorem fixes them in advance; the records say so in
``note``.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import compression as _comp
from . import inputs as _inputs
from . import margin as _margin
from . import pac_bayes as _pb
from . import rademacher as _rad
from . import stability as _stab
from . import vc as _vc
from ._validation import check_delta

__all__ = ["report", "format_report", "BOUND_NAMES"]

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


def _rec(name, value=None, inputs=None, reason="", note=""):
    if value is None:
        return {"name": name, "source": _SOURCE[name], "applicable": False, "value": math.nan,
                "trivial": None, "inputs": dict(inputs or {}), "reason": reason, "note": note}
    value = float(value)
    return {"name": name, "source": _SOURCE[name], "applicable": True, "value": value,
            "trivial": bool(value >= 1.0), "inputs": dict(inputs or {}), "reason": "",
            "note": note}


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

    def __init__(self, est, X, y, delta, D):
        from ..bayes.gp import GaussianProcessClassifier

        self.est = est
        self.delta = delta
        self.D = D
        self.name = type(est).__name__
        self.model = _LatentView(est) if isinstance(est, GaussianProcessClassifier) else est
        self.X = X
        self.y_pm = _inputs.signed_labels(est, y)
        self.t = _inputs.functional_margins(self.model, X, y)   # also checks len(X) == len(y)
        self.m = int(self.t.size)
        self.remp = float(np.mean(self.t <= 0))
        self.mi = _inputs.margin_inputs(self.model, X, y)
        self.bias = _inputs._intercept(est) != 0.0 or bool(getattr(est, "fit_bias", False)) \
            or self.name in ("RelativeMarginMachine", "SigmaSVM", "RelaxedRMM") \
            or bool(getattr(est, "bias", False) is True)
        self._kd = None

    @property
    def k_diag(self):
        """``k(x_i, x_i)`` on the training sample (kernel of the fitted model)."""
        if self._kd is None:
            self._kd = np.asarray(_inputs._kernel_diag(self.model, self.X), dtype=float)
        return self._kd

    def linear_dimension(self):
        """``n`` if the classifier is linear in ``R^n`` (else ``None``)."""
        from ..kernels.vector import Linear, WhitenedKernel

        k = getattr(self.est, "kernel_", None)
        if isinstance(k, WhitenedKernel):
            k = getattr(k, "base_", None)
        if isinstance(k, Linear) and not isinstance(self.X, list):
            return int(np.asarray(self.X).shape[1])
        return None

    def gram(self):
        return np.asarray(self.model.kernel_(self.X, self.X), dtype=float)


# ---------------------------------------------------------------------------------------
# one function per family; each returns records
# ---------------------------------------------------------------------------------------
def _vc_records(c):
    n = c.linear_dimension()
    names = ["VC bound", "PAC VC bound"]
    if n is None:
        reason = "needs a linear kernel in R^n (the VC dimension of the kernel's class is unknown)"
        return [_rec(nm, reason=reason) for nm in names]
    vt = n + (1 if c.bias else 0)
    inp = {"m": c.m, "vartheta": vt, "remp": c.remp, "delta": c.delta}
    out = [_rec("VC bound", _vc.vc_dimension_bound(c.remp, c.m, c.delta, vt), inp,
                note="vartheta = n + 1 (hyperplanes with bias)" if c.bias else "vartheta = n")]
    if c.remp > 0:
        out.append(_rec("PAC VC bound", reason=f"training error {c.remp:.3g} > 0"))
    else:
        out.append(_rec("PAC VC bound", _vc.pac_dimension_bound(c.m, c.delta, vt),
                        {"m": c.m, "vartheta": vt, "delta": c.delta}))
    return out


def _margin_records(c):
    mi = c.mi
    names = ["PAC margin bound", "Fat-shattering bound", "TR margin bound"]
    if c.remp > 0 or mi.gamma <= 0:
        reason = f"training error {c.remp:.3g} > 0: the margin bounds need a consistent classifier"
        out = [_rec(nm, reason=reason) for nm in names]
    else:
        inp = {"m": c.m, "gamma": mi.gamma, "varsigma": mi.varsigma, "delta": c.delta}
        vt = float(_margin.linear_fat_shattering(mi.gamma / 8.0, mi.varsigma))
        out = [
            _rec("PAC margin bound", _margin.pac_margin_bound(c.m, mi.gamma, c.delta, mi.varsigma),
                 inp, note="inf: gamma < sqrt(32/m) varsigma" if mi.gamma < math.sqrt(32 / c.m)
                 * mi.varsigma else ""),
            _rec("Fat-shattering bound", _margin.fat_shattering_bound(c.m, vt, c.delta),
                 {"m": c.m, "vartheta_eff": vt, "delta": c.delta},
                 note="fat(gamma/8) <= 64 varsigma^2/gamma^2: equals eq. 4.29"),
            _rec("TR margin bound", _margin.tr_margin_bound(c.m, mi.gamma, c.delta, mi.varsigma), inp),
        ]
    out.append(_rec("Robust margin bound", mi.robust_margin_bound(c.delta),
                    {"m": c.m, "varsigma": mi.varsigma, "delta": c.delta},
                    note="minimum over gamma in (0, varsigma] (the theorem holds for all gamma)"))
    return out


_SOFT = ("SupportVectorMachine", "RelativeMarginMachine", "SigmaSVM")


def _soft_records(c):
    mi = c.mi
    if c.name not in _SOFT:
        return [_rec("Soft-margin bound", reason="evaluated at the canonical scale (functional "
                     "margin 1) of soft-margin machines: SVM, RMM, Sigma-SVM")]
    if getattr(c.est, "hard_margin", False):
        return [_rec("Soft-margin bound", reason="hard-margin SVM: no slacks (see eq. 4.29)")]
    if 1.0 / mi.w_norm > mi.varsigma:
        return [_rec("Soft-margin bound", reason="gamma = 1/||w|| exceeds varsigma (Theorem "
                     "4.35 needs gamma <= varsigma)")]
    xi = np.maximum(0.0, 1.0 - c.t)
    d = float(_margin.soft_margin_d_eff(mi.w_norm, xi, mi.varsigma, norm=2))
    return [_rec("Soft-margin bound", _margin.robust_margin_bound(c.m, d, c.delta),
                 {"m": c.m, "d_eff": d, "w_norm": mi.w_norm, "slack_norm": float(np.linalg.norm(xi)),
                  "varsigma": mi.varsigma, "delta": c.delta})]


def _amm_records(c):
    if c.name != "AdaptiveMarginMachine":
        return [_rec("AMM bound", reason="only for the adaptive margin machine")]
    d = _inputs.amm_d_eff(c.est, c.X, _labels_back(c))
    return [_rec("AMM bound", _margin.robust_margin_bound(c.m, d, c.delta),
                 {"m": c.m, "d_eff": d, "lam": float(c.est.lam), "varsigma": c.mi.varsigma,
                  "delta": c.delta})]


def _labels_back(c):
    classes = np.asarray(c.est.classes_)
    return np.where(c.y_pm > 0, classes[1], classes[0])


def _pac_bayes_records(c):
    if c.remp > 0:
        return [_rec("PAC-Bayes margin bound", reason=f"training error {c.remp:.3g} > 0 "
                     "(Theorem 5.10 needs Gamma > 0)")]
    G = _pb.normalized_margin_of(c.model, c.X, _labels_back(c))
    n = c.linear_dimension()
    if n is not None:
        n = n + (1 if c.bias else 0)
    return [_rec("PAC-Bayes margin bound", _pb.pac_bayes_margin_bound(c.m, G, c.delta, n),
                 {"m": c.m, "Gamma": G, "n": n, "delta": c.delta},
                 note="n = None: infinite feature space, d = m")]


def _compression_records(c):
    from ..margin.perceptron import KernelPerceptron, Perceptron
    from ..margin.svm import SupportVectorMachine

    names = ["Compression bound", "Lossy compression bound", "Mistake bound (updates)",
             "Mistake bound (Novikoff)"]
    est = c.est
    if isinstance(est, SupportVectorMachine):
        d = int(_comp.svm_compression(est).size)
        inp = {"m": c.m, "d": d, "delta": c.delta}
        note = "support vectors, permutation invariant (Example 5.16)"
        if c.remp == 0:
            out = [_rec("Compression bound", _comp.pac_compression_bound(c.m, d, c.delta, True),
                        inp, note=note),
                   _rec("Lossy compression bound", reason="training error 0: see the PAC "
                        "compression bound")]
        else:
            out = [_rec("Compression bound", reason=f"training error {c.remp:.3g} > 0 (see the "
                        "lossy compression bound)"),
                   _rec("Lossy compression bound",
                        _comp.lossy_compression_bound(c.m, d, c.remp, c.delta, True),
                        {**inp, "remp": c.remp}, note=note)]
        reason = "only for perceptrons (mistake-driven on-line algorithms)"
        return out + [_rec(nm, reason=reason) for nm in names[2:]]
    if isinstance(est, (Perceptron, KernelPerceptron)):
        try:
            idx = _comp.perceptron_compression(est)
        except ValueError as exc:
            return [_rec(nm, reason=str(exc)) for nm in names]
        d = int(idx.size)
        out = [_rec("Compression bound", _comp.pac_compression_bound(c.m, d, c.delta, False),
                    {"m": c.m, "d": d, "delta": c.delta},
                    note="update indices, ordered (Example 5.15)"),
               _rec("Lossy compression bound", reason="training error 0: see the PAC "
                    "compression bound")]
        M = int(est.n_updates_)
        out.append(_rec("Mistake bound (updates)", _comp.mistake_bound_risk(M, c.m, c.delta),
                        {"m": c.m, "M": M, "delta": c.delta}))
        if isinstance(est, KernelPerceptron):
            Mn = _comp.perceptron_mistake_bound(c.gram(), c.y_pm, precomputed=True)
        else:
            Mn = _comp.perceptron_mistake_bound(np.asarray(c.X, dtype=float), c.y_pm)
        out.append(_rec("Mistake bound (Novikoff)", _comp.mistake_bound_risk(Mn, c.m, c.delta),
                        {"m": c.m, "M": float(Mn), "delta": c.delta},
                        note="M = (varsigma / gamma(w_SVM))^2, hard-margin SVM without bias"))
        return out
    return ([_rec(nm, reason="only for the SVM (support vectors) and converged perceptrons "
                  "(update indices)") for nm in names[:2]]
            + [_rec(nm, reason="only for perceptrons (mistake-driven on-line algorithms)")
               for nm in names[2:]])


def _stability_records(c):
    from ..bayes.gp import GaussianProcessClassifier
    from ..margin.svm import SupportVectorMachine

    est = c.est
    if isinstance(est, SupportVectorMachine):
        if est.hard_margin or est.loss != "hinge":
            return [_rec("Stability bound", reason="needs the hinge-loss soft-margin SVM (a "
                         "Lipschitz loss, Theorem 5.31)")]
        if est.fit_bias:
            return [_rec("Stability bound", reason="the bias is not regularised: Theorem 5.31 is "
                         "for f in an RKHS without bias (fit_bias=False)")]
        lam = 1.0 / (2.0 * float(est.C) * c.m)
        note = "lambda = 1/(2 C m) (eq. 2.47), hinge loss, Lipschitz 1"
    elif isinstance(est, GaussianProcessClassifier):
        if float(est.noise) != 0.0:
            return [_rec("Stability bound", reason="noise > 0 changes the regulariser "
                         "(G + noise I): not of the form of eq. 5.19")]
        lam = 1.0 / (2.0 * c.m)
        note = "Laplace mode = regularised logistic loss, lambda = 1/(2m), Lipschitz 1"
    else:
        return [_rec("Stability bound", reason="only for regularised risk minimisers without "
                     "bias (hinge SVM with fit_bias=False, GP classifier)")]
    sup_k = float(np.max(c.k_diag))
    remp_tau = _stab.clipped_empirical_risk(c.t, np.ones_like(c.t), tau=1.0)
    value = _stab.classification_stability_bound(remp_tau, c.m, lam, c.delta, tau=1.0,
                                                 sup_k=sup_k, loss_lipschitz=1.0)
    return [_rec("Stability bound", value, {"m": c.m, "lam": lam, "remp_tau": remp_tau,
                                             "sup_k": sup_k, "tau": 1.0, "delta": c.delta},
                 note=note + "; sup_k from the sample")]


def _coordinates(c):
    """Coordinates ``Z`` of the training points in feature space, ``Z Z' = K``."""
    from ..kernels.vector import WhitenedKernel

    k = c.est.kernel_
    if isinstance(k, WhitenedKernel):
        k = k.base_
    (Z,) = _rad.feature_map(k, c.X)
    return Z


def _rademacher_records(c):
    out = []
    mi = c.mi
    slack = float(_rad.margin_slacks(c.t, np.ones_like(c.t), 1.0).sum())
    note_E = "E (B) read off the fitted model (Theorem 18 fixes it in advance); gamma = 1"
    if c.name in _SOFT + ("AdaptiveMarginMachine",):
        E = 0.5 * mi.w_norm**2
        trK = float(np.sum(c.k_diag)) + (c.m if mi.augmented else 0.0)
        out.append(_rec("Rademacher bound F_E", _rad.svm_margin_bound(slack, 1.0, E, trK, c.m,
                                                                      c.delta),
                        {"n": c.m, "slack_sum": slack, "gamma": 1.0, "E": E, "trace_K": trK,
                         "delta": c.delta}, note=note_E))
    else:
        out.append(_rec("Rademacher bound F_E", reason="evaluated at the canonical scale "
                        "(functional margin 1) of SVM, RMM, Sigma-SVM and AMM"))
    if c.name == "SigmaSVM":
        D = float(c.est.D)
        Z = _coordinates(c)
        S = np.c_[Z - Z.mean(axis=0), np.ones(c.m)]     # centred, augmented with the bias
        B = 0.5 * mi.w_norm**2                          # = 1/2 (u' Sigma_D u + b^2)
        val = _rad.sigma_svm_margin_bound(slack, 1.0, B, S, D, c.delta)
        out.append(_rec("Rademacher bound Σ-SVM", val,
                        {"n": c.m, "slack_sum": slack, "gamma": 1.0, "B": B, "D": D,
                         "delta": c.delta},
                        note=note_E + "; O(1/sqrt(n tr K)) term left out (not certified)"))
    else:
        out.append(_rec("Rademacher bound Σ-SVM", reason="only for SigmaSVM"))
    if c.name == "RelativeMarginMachine":
        D = float(c.D)
        Z = _coordinates(c)
        S = np.c_[Z, np.ones(c.m)]                       # augmented with the bias
        f = c.t * c.y_pm
        E = 0.5 * (1.0 - D) * mi.w_norm**2 + 0.5 * D * float(np.max(f**2))
        val = _rad.rmm_margin_bound(slack, 1.0, E, S, D, c.delta)
        out.append(_rec("Rademacher bound RMM", val,
                        {"n": c.m, "slack_sum": slack, "gamma": 1.0, "E": E, "D": D,
                         "delta": c.delta},
                        note=note_E + "; O(1/sqrt(n_v tr K)) term left out (not certified)"))
    else:
        out.append(_rec("Rademacher bound RMM", reason="only for RelativeMarginMachine"))
    return out


def report(estimator, X, y, delta=0.05, D=0.5):
    """Every bound of the package evaluated for a fitted binary classifier.

    Parameters
    ----------
    estimator : fitted binary classifier of the package
        A kernel expansion (``alpha_``, ``X_fit_``, ``kernel_``) or a primal linear model
        (``coef_``).
    X, y : the training sample the estimator was fitted on (``y`` in its original labels)
    delta : float in (0, 1), default 0.05
        Confidence: each bound holds with probability at least ``1 - delta``.
    D : float in [0, 1), default 0.5
        ``D`` of the class ``H^S_{E,D}`` used for the RMM bound (eq. 30); the relative margin
        machine itself has no ``D``. The Sigma-SVM uses its own ``D``.

    Returns
    -------
    list of dict
        One record per bound of :data:`BOUND_NAMES`, in that order (see the module
        docstring for the keys).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.
    TypeError
        If it is neither a kernel expansion nor a primal linear model.
    ValueError
        For a bad ``delta`` or ``D``, ``X`` and ``y`` of different lengths, labels not in
        ``classes_``, or inputs of the wrong width.

    Notes
    -----
    Cost: everything is a few kernel evaluations on the sample, except the RMM bound
    (eq. 30), which solves the convex problem of RMM Theorem 10 in ``m`` variables; with a
    full-rank kernel (RBF) that takes seconds to minutes for a few hundred points. The
    perceptron's Novikoff bound solves one hard-margin QP.
    """
    check_is_fitted(estimator)
    delta = float(check_delta(delta))
    D = float(D)
    if not 0.0 <= D < 1.0:
        raise ValueError(f"D must lie in [0, 1), got {D!r}")
    if not hasattr(estimator, "classes_"):
        raise TypeError(f"{type(estimator).__name__} is not a classifier (no classes_)")
    yv = np.asarray(y)
    n_x = len(X) if isinstance(X, list) else np.asarray(X).shape[0]
    if yv.ndim != 1 or n_x != yv.shape[0]:
        raise ValueError(f"X has {n_x} samples but y has shape {yv.shape}: one label per row needed")
    if not isinstance(X, list):
        X = np.asarray(X, dtype=float)
    c = _Context(estimator, X, yv, delta, D)
    if c.mi.w_norm == 0.0:
        raise ValueError("the fitted weight vector is zero: no margin, no bound")
    records = (_vc_records(c) + _margin_records(c) + _soft_records(c) + _amm_records(c)
               + _pac_bayes_records(c) + _compression_records(c) + _stability_records(c)
               + _rademacher_records(c))
    order = {name: i for i, name in enumerate(BOUND_NAMES)}
    records.sort(key=lambda r: order[r["name"]])
    assert [r["name"] for r in records] == BOUND_NAMES
    return records


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
    """A plain-text table of the records of :func:`report`.

    Columns: bound, source, value, trivial flag, and the inputs used (or the reason the
    bound does not apply). With ``width`` the last column is cut to fit that many
    characters per line. ``show_inapplicable=False`` leaves out the bounds that do not apply.
    """
    if not isinstance(records, (list, tuple)) or not all(isinstance(r, dict) for r in records):
        raise TypeError("records must be a list of dicts as returned by report()")
    rows = [("bound", "source", "value", "trivial", "inputs / reason")]
    for r in records:
        try:
            applicable = r["applicable"]
            if not applicable and not show_inapplicable:
                continue
            if applicable:
                detail = ", ".join(f"{k}={_fmt(v)}" for k, v in r["inputs"].items())
                flag = "yes" if r["trivial"] else "no"
            else:
                detail = "n/a: " + r["reason"]
                flag = "-"
            rows.append((r["name"], r["source"], _fmt(r["value"]), flag, detail))
        except KeyError as exc:
            raise ValueError(f"record without the key {exc}: not a record of report()") from None
    w = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for k, row in enumerate(rows):
        head = "  ".join(row[i].ljust(w[i]) for i in range(4)) + "  "
        tail = row[4]
        room = len(tail) if width is None else max(20, int(width) - len(head))
        lines.append(head + (tail if len(tail) <= room else tail[:room - 3] + "..."))
        if k == 0:
            lines.append("-" * (len(head) + max(len(r[4]) for r in rows) if width is None
                                else min(int(width), len(head) + room)))
    return "\n".join(lines)
