"""Book chapter 13 (``book/13_relative_margin_machines.md``): checkers for the RMM exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _band_sample():
    # the sample of the chapter's §3.2 section (RMM §3.2-3.3)
    rng = np.random.default_rng(0)
    rng.normal(size=(60, 2))                       # the §3.1 sample comes first
    Xt = rng.normal(size=(150, 2)) * np.array([2.5, 0.7])
    yt = np.where(Xt[:, 1] + 0.25 * Xt[:, 0] + 0.3 * rng.normal(size=150) > 0, 1.0, -1.0)
    return Xt, yt


_cache = {}


def _svm(C=1.0):
    # the SVM (an RMM without bound) on the §3.2 sample with RBF(1.5)
    if ("svm", C) not in _cache:
        from kernelclf.kernels import RBF
        from kernelclf.margin import RelativeMarginMachine

        Xt, yt = _band_sample()
        _cache["svm", C] = RelativeMarginMachine(RBF(1.5), C=C, tol=1e-4).fit(Xt, yt), Xt
    return _cache["svm", C]


def _theta(C=1.0):
    svm, Xt = _svm(C)
    return float(np.abs(svm.decision_function(Xt)).max())


def _signed_max(C=1.0):
    svm, Xt = _svm(C)
    return float(svm.decision_function(Xt).max())


def _inverse_norm(C=1.0):
    svm, _ = _svm(C)
    return 1.0 / svm.w_norm_


def _band_model_counts():
    # ch13-ex-5: the kappa = 0.35 band model of the chapter; points with an active bound
    # (a positive multiplier of |f| <= B), support vectors, points on or outside |f| = 1
    from kernelclf.kernels import RBF
    from kernelclf.margin import RelativeMarginMachine

    if "band" not in _cache:
        Xt, yt = _band_sample()
        mdl = RelativeMarginMachine(RBF(1.5), C=10.0, B=0.35, B_mode="relative",
                                    tol=1e-4).fit(Xt, yt)
        f = np.abs(mdl.decision_function(Xt))
        _cache["band"] = {"active": int(np.sum(np.any(mdl.beta_ > 0, axis=1))),
                          "sv": int(np.sum(mdl.alpha_ != 0)),
                          "margin": int(np.sum(f >= 1 - 1e-3))}
    return _cache["band"]


def _nu_cap(m, nu):
    # RMM eq. 15: each point strictly outside the band has the multiplier D nu / m, and the
    # multipliers sum to at most D: at most floor(m / nu) such points
    return int(np.floor(m / nu))


EXERCISES = [
    Exercise(
        label="ch13-ex-1",
        kind="number",
        solution=_theta,
        rtol=0.01,
        asks="theta = max_i |f_SVM(x_i)| for the chapter's sample Xt, yt with RBF(1.5) and "
             "C = 1 (a number).",
        hint="theta is the largest absolute training output of the SVM, the B above which the "
             "RMM's bounds are inactive (RMM §3.2, the paragraph after eq. 8): fit the SVM "
             "with C = 1 and take the largest |f(x_i)|.",
        mistakes=[
            (_signed_max, "That is the largest signed output: the bound is |f| <= B, so the "
                          "negative class's outputs count too. Take np.abs first (RMM eq. 8)."),
            (_inverse_norm, "That is 1/||w||, the geometric margin; theta is measured in output "
                            "units, max_i |f(x_i)| (RMM §3.2)."),
            (lambda: _theta(10.0),
             "That is theta for C = 10, the value the chapter prints; the exercise asks for "
             "the SVM with C = 1."),
        ],
        inputs=("`Xt, yt`", "RBF width 1.5", "C = 1", r"\theta=\max_i|f_{\rm SVM}(x_i)|"),
    ),
    Exercise(
        label="ch13-ex-4",
        kind="number",
        solution=_nu_cap(150, 4),
        integer=True,
        asks="the largest number of training points that can lie strictly outside the band "
             "|f| <= t at the optimum of eq. 15 with m = 150 and nu = 4 (an integer).",
        hint="In the dual of eq. 15 each multiplier of a band constraint is capped at D nu / m and "
             "they sum to at most D; a point strictly outside the band has its multiplier at the "
             "cap (RMM §3.4, eq. 15; the chapter's paragraph on what nu does). A count is a "
             "whole number.",
        mistakes=[
            (4, "nu is not a count: a point outside the band costs D nu / m per unit, raising t "
                "costs D, so the count is capped by m / nu (RMM eq. 15)."),
            (600, "m nu would hold if the multipliers could reach D each; they are capped at "
                  "D nu / m and sum to at most D, so at most m / nu sit at the cap (eq. 15)."),
            (150, "All m points outside is the nu <= 1 case, where t stays at 1; with nu = 4 "
                  "the budget D allows at most m / nu capped multipliers (RMM §3.4)."),
            (_nu_cap(150, 4) + 1, "m / nu is not a whole number here: the capped multipliers "
                                  "may not sum to more than D, so round m / nu down, not up."),
            (_nu_cap(150, 5), "That is the cap for nu = 5, the value of the chapter's table; "
                              "the exercise asks about nu = 4."),
        ],
        inputs=("eq. 15", "m=150", r"\nu=4", "strictly outside the band"),
    ),
    Exercise(
        label="ch13-ex-5",
        kind="number",
        solution=lambda: _band_model_counts()["active"],
        integer=True,
        asks="the number of training points of band_models[0.35] with a positive multiplier "
             "of the bound constraints (a non-zero row of beta_), an integer.",
        hint="The bound -B <= f(x_i) <= B has the multipliers λ_i, λ_i* (RMM §3.3, eq. 11 "
             "and its dual eq. 12; beta_ holds them, one row per point): count the rows with a positive "
             "entry. These are the points whose outputs the bound holds back.",
        mistakes=[
            (0, "No point lies strictly outside |f| <= B, since the bound is a constraint: but "
                "points can sit on it, with a positive multiplier. Count the non-zero rows of "
                "beta_ (RMM §3.3)."),
            (lambda: _band_model_counts()["sv"],
             "That counts the support vectors (non-zero alpha_), the points with "
             "y_i f(x_i) <= 1; the bound's multipliers are in beta_ "
             "(RMM §3.3)."),
            (lambda: _band_model_counts()["margin"],
             "That counts the points on or outside the margin |f| >= 1; the bound is |f| = B, "
             "further out, and only the points on it have a positive multiplier in beta_."),
        ],
        inputs=("band_models[0.35]", "`beta_`", "positive multiplier"),
    ),
]
