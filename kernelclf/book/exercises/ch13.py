"""Book chapter 13 (``book/13_relative_margin_machines.md``): checkers for the RMM exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _band_problem():
    # the sample and the SVM of the chapter's §3.2 section (RMM §3.2-3.3)
    from kernelclf.kernels import RBF
    from kernelclf.margin import RelativeMarginMachine

    rng = np.random.default_rng(0)
    rng.normal(size=(60, 2))                       # the §3.1 sample comes first
    Xt = rng.normal(size=(150, 2)) * np.array([2.5, 0.7])
    yt = np.where(Xt[:, 1] + 0.25 * Xt[:, 0] + 0.3 * rng.normal(size=150) > 0, 1.0, -1.0)
    svm = RelativeMarginMachine(RBF(1.5), C=10.0, tol=1e-4).fit(Xt, yt)
    return svm, Xt


_cache = {}


def _svm():
    if "svm" not in _cache:
        _cache["svm"] = _band_problem()
    return _cache["svm"]


def _theta():
    svm, Xt = _svm()
    return float(np.abs(svm.decision_function(Xt)).max())


def _signed_max():
    svm, Xt = _svm()
    return float(svm.decision_function(Xt).max())


def _inverse_norm():
    svm, _ = _svm()
    return 1.0 / svm.w_norm_


EXERCISES = [
    Exercise(
        label="ch13-ex-1",
        kind="number",
        solution=_theta,
        rtol=0.01,
        asks="theta = max_i |f_SVM(x_i)| for the chapter's sample Xt, yt (RBF(1.5), C = 10), "
             "a number.",
        hint="theta is the largest absolute training output of the SVM, the B above which the "
             "RMM's bounds are inactive (RMM §3.2, the paragraph after eq. 8).",
        mistakes=[
            (_signed_max, "That is the largest signed output: the bound is |f| <= B, so the "
                          "negative class's outputs count too. Take np.abs first (RMM eq. 8)."),
            (_inverse_norm, "That is 1/||w||, the geometric margin; theta is measured in output "
                            "units, max_i |f(x_i)| (RMM §3.2)."),
        ],
    ),
    Exercise(
        label="ch13-ex-4",
        kind="number",
        solution=30,
        integer=True,
        asks="the largest number of training points that can lie strictly outside the band "
             "|f| <= t at the optimum of eq. 15 with m = 150 and nu = 5 (an integer).",
        hint="In the dual of eq. 15 each multiplier of a band constraint is capped at D nu / m and "
             "they sum to at most D; a point strictly outside the band has its multiplier at the "
             "cap (RMM §3.4, eq. 15; the chapter's paragraph on what nu does).",
        mistakes=[
            (5, "nu is not a count: a point outside the band costs D nu / m per unit, raising t "
                "costs D, so the count is capped by m / nu (RMM eq. 15)."),
            (750, "m nu would hold if the multipliers could reach D each; they are capped at "
                  "D nu / m and sum to at most D, so at most m / nu sit at the cap (eq. 15)."),
            (150, "All m points outside is the nu <= 1 case, where t stays at 1; with nu = 5 "
                  "the budget D allows at most m / nu capped multipliers (RMM §3.4)."),
        ],
    ),
]
