"""The rows of the bound report: per family of bounds, do its premises hold, and its value.

Book chapter 18 (``book/18_bound_dashboard.md``); it gathers the bounds of LKC §4.2
(Remark 4.11, eq. 4.14-4.15 with eq. 4.19), §4.4 (Theorem 4.30 eq. 4.27, Theorem 4.32
eq. 4.29, Theorem 4.35 eq. 4.33, Remark 4.36 eq. 4.34, Theorem 4.37 eq. 4.38), §5.1
(Theorem 5.10 eq. 5.12), §5.2 (Theorem 5.17 / eq. 5.16, Theorem 5.18, Theorem 5.23
eq. 5.17 with Example 5.24), §5.3 (Theorem 5.34 with errata E8, E9), TR 99-11 Theorem 1 and
RMM Theorem 18 (eq. 29-31).

One function per family of bounds turns the fitted estimator into records (the keys are
listed in :mod:`kernelclf.bounds.report`): it reads what each theorem needs from the
estimator (through :mod:`kernelclf.bounds.inputs` and public fitted attributes), decides
whether the theorem's premises hold for this estimator in this fitted state, given the tags
it declares (:mod:`kernelclf.bounds.report_tags`), and calls the bound functions of
:mod:`~kernelclf.bounds.vc`, :mod:`~kernelclf.bounds.covering`, :mod:`~kernelclf.bounds.margin`,
:mod:`~kernelclf.bounds.pac_bayes_margin`, :mod:`~kernelclf.bounds.compression`,
:mod:`~kernelclf.bounds.stability` and :mod:`~kernelclf.bounds.rademacher`. No row does bound
arithmetic of its own. A row expected to take long (``Slow rows`` in
:mod:`kernelclf.bounds.report_tags`) warns before it starts, or is left out with
``skip_slow``.

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
  process classifier with ``noise=0`` (logistic loss, Lipschitz 1, ``lambda = 1/(2m)``),
  each with its kernel fixed before the sample (see below);
* RMM Theorem 18: eq. 29 (class ``F_E``), eq. 31 for the Σ-SVM (class ``G^S_{B,D}``, its
  own ``D``), eq. 30 for the relative margin machine (class ``H^S_{E,D}``, ``D`` chosen by
  the caller).

Every theorem fixes the kernel before the sample is drawn. A kernel whose parameters were
chosen on the sample (evidence maximisation of a Gaussian process, or data-driven
parameters such as ``RBF(sigma='scale')``, or the Sigma-SVM's kernel whitened with the
sample's covariance) switches off the stability and compression rows, whose algorithm would
then change its kernel with the sample (as would an SVM with ``class_weight='balanced'``,
whose weights come from the sample); every other row says in ``note`` that it is not
certified, except the VC rows (the class of affine classifiers in ``R^n`` does not depend on
the kernel's parameters) and RMM eq. 31 (written for the whitened class).

An intercept ``b`` is folded into the weight vector as in :mod:`kernelclf.bounds.inputs`
(``w~ = (w, b)``, ``phi~(x) = (phi(x), 1)``). The radius ``varsigma`` and ``sup_x k(x, x)``
are their sample values. Quantities such as ``E`` or ``B`` of RMM Theorem 18 are read off
the fitted model although the theorem fixes them in advance; the records say so in
``note``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator

from . import compression as _comp
from . import covering as _cov
from . import inputs as _inputs
from . import margin as _margin
from . import pac_bayes_margin as _pb
from . import rademacher as _rad
from . import report_tags as _tags
from . import stability as _stab
from . import vc as _vc
from .report_tags import _SOURCE, SlowBoundWarning, _is_true, bound_tags, estimated_seconds

#: the rows are private: :func:`~kernelclf.bounds.report.report` is the entry point
__all__ = []


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


# ---------------------------------------------------------------------------------------
# slow rows
# ---------------------------------------------------------------------------------------
def _slow(c, name, what):
    """``None`` if the row may run now; a skipped record with ``skip_slow``; else warn first."""
    sec = estimated_seconds(name, c.m, c.linear_dimension())
    if sec <= _tags.SLOW_SECONDS:
        return None
    msg = f"{what} at m = {c.m}: estimated {sec:.0f} s"
    if c.skip_slow:
        return _rec(name, reason=f"skipped (skip_slow=True): {msg} > SLOW_SECONDS = "
                    f"{_tags.SLOW_SECONDS:g} s", skipped=True)
    warnings.warn(f"{name} ({_SOURCE[name]}) {msg}; report(..., skip_slow=True) leaves this row "
                  "out", SlowBoundWarning, stacklevel=4)
    return None


# ---------------------------------------------------------------------------------------
# what the rows share
# ---------------------------------------------------------------------------------------
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
        self.kernel_choice = self._kernel_chosen_on_sample()

    def _kernel_chosen_on_sample(self):
        """Why the fitted kernel depends on the training sample, or ``''``.

        Every theorem of the report fixes the feature space, i.e. the kernel, before the
        sample is drawn. Two ways of fitting break that: the kernel's parameters maximise
        the evidence on the labelled sample (a Gaussian process with an ``optimizer``), or
        they are data-driven parameters set from the training inputs (``RBF(sigma='scale')``,
        the name ``'rbf'``, :meth:`kernelclf.kernels.closure.Kernel.resolve`). The
        Sigma-SVM's whitened kernel (``k-hat`` of RMM §3.1) is set by the sample's covariance
        as well: its class is the data-dependent one of RMM eq. 31, and every other row
        measures margins in a feature space the sample chose. A kernel of the package given
        with numbers, or no kernel at all, gives ``''``.
        """
        from ..kernels.closure import Kernel
        from ..kernels.hyper import kernel_theta
        from ..kernels.vector import as_kernel
        from ..kernels.whitened import WhitenedKernel

        est = self.est
        fitted = getattr(est, "kernel_", None)
        if not isinstance(fitted, Kernel):
            return ""
        if isinstance(fitted, WhitenedKernel):
            return ("it is whitened with the covariance of this sample (k-hat of RMM §3.1), so "
                    "margins and norms are measured in a feature space the sample set")
        param = getattr(est, "kernel", None)
        try:
            if getattr(est, "optimizer", None) is not None and param is not None \
                    and len(kernel_theta(fitted)) > 0:
                return (f"its parameters were chosen by maximising the evidence on this sample "
                        f"(optimizer={est.optimizer!r}; fitted kernel {fitted!r})")
            default = getattr(est, "_default_kernel", None)
            k0 = default() if param is None and default is not None else as_kernel(param)
            if isinstance(k0, Kernel) and not isinstance(self.X, list) and k0.resolve(self.X) is not k0:
                return (f"{k0!r} takes its parameters from the training inputs "
                        f"(fitted kernel {fitted!r})")
        except (TypeError, ValueError):
            return ""
        return ""

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
        vt = float(_cov.linear_fat_shattering(g / 8.0, vs))
        kappa = math.ceil(577.0 * vs**2 / g**2 - 1e-9)
        out = [
            _rec("PAC margin bound", _margin.pac_margin_bound(m, g, c.delta, vs), inp,
                 why_inf=f"margin too small for m: gamma = {_g(g)} < sqrt(32/m) varsigma = "
                 f"{_g(math.sqrt(32 / m) * vs)}; Theorem 4.32 needs m >= 32 varsigma^2/gamma^2 "
                 f"= {math.ceil(32 * vs**2 / g**2)}"),
            _rec("Fat-shattering bound", _cov.fat_shattering_bound(m, vt, c.delta),
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
                    note="minimum over gamma at the observed margins in (0, varsigma] and varsigma "
                    "(the theorem holds for all gamma at once)",
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
    # the feature space's dimension n (infinite for RBF kernels) and d = min(m, n) of eq. 5.12
    return [_rec(name, _pb.pac_bayes_margin_bound(c.m, G, c.delta, n),
                 {"m": c.m, "Gamma": G, "n": float("inf") if n is None else n,
                  "d": c.m if n is None else min(c.m, n), "delta": c.delta},
                 note="n = inf: infinite feature space, d = m" if n is None else
                 f"n = {n}: feature space R^{n}, d = min(m, n)",
                 why_inf=f"normalised margin Gamma = {_g(G)} <= 0")]


def _compression_records(c):
    names = ["Compression bound", "Lossy compression bound", "Mistake bound (updates)",
             "Mistake bound (Novikoff)"]
    est = c.est
    not_online = ("only for mistake-driven on-line learners run to convergence (family "
                  "'perceptron')")
    all_d = "every training point is kept (d = m = {}): nothing is compressed".format(c.m)
    if c.family == "svm":
        refit = ("" if not isinstance(getattr(est, "class_weight", None), str) else
                 f"class_weight={est.class_weight!r} computes the weights from the sample")
        refit = refit or (c.kernel_choice and "the kernel " + c.kernel_choice)
        if refit:
            reason = (f"{refit}: trained on its support vectors alone the machine would choose "
                      "other values, so they are not a compression scheme (Example 5.16)")
            return ([_rec(nm, reason=reason) for nm in names[:2]]
                    + [_rec(nm, reason=not_online) for nm in names[2:]])
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
        if c.kernel_choice:
            reason = (f"the kernel {c.kernel_choice}: rerun on its update examples alone the "
                      "perceptron would use another kernel, so they are not a compression "
                      "scheme (Example 5.15, Theorem 5.23)")
            return [_rec(nm, reason=reason) for nm in names]
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
        note = f"lambda = 1/(2 C m) (eq. 2.48), hinge loss, Lipschitz {lip:g}" + \
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
    if c.kernel_choice:
        return [_rec(name, reason=f"the kernel {c.kernel_choice}: Theorem 5.31 is for one RKHS "
                     "fixed before the sample, and a kernel chosen on the sample changes with it")]
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
                            note=note_E + "; O(1/sqrt(n tr K)) term left out and landmarks U = the "
                            "training sample (not certified)"))
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
                            note=note_E + "; O(1/sqrt(n_v tr K)) term left out and landmarks V = the "
                            "training sample (not certified)"))
    return out
