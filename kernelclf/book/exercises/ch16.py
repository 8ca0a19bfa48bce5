"""Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``): checkers for the PAC-Bayes exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

DELTA = 0.05


def _first_m(variant="right"):
    # the worked solution of ch16-ex-1: eq. 5.12 (LKC Theorem 5.10) with d = m, Gamma = 0.95
    from kernelclf.bounds import pac_bayes_margin as pbm

    ms = np.arange(3, 20_000)
    b = pbm.pac_bayes_margin_bound(ms, 0.95, DELTA)
    const = 2 * float(pbm.margin_log_volume_bound(0.95, 1))
    if variant == "no factor 2":  # d ln(...) / m instead of 2 d ln(...) / m
        b = b - const / 2
    elif variant == "d = 1":  # the feature-space dimension of the RBF kernel forgotten
        b = pbm.pac_bayes_margin_bound(ms, 0.95, DELTA, n=1)
    return int(ms[np.argmax(b < 1)])


VARIANTS = ["eq. 17 (Bayes)", "eq. 15 (Gibbs)", "eq. 15 without 2 ln l", "none of them"]

EXERCISES = [
    Exercise(
        label="ch16-ex-1",
        kind="number",
        solution=_first_m,
        integer=True,
        asks="the smallest m at which eq. 5.12 with d = m, Gamma = 0.95, delta = 0.05 falls "
             "below one (an integer).",
        hint="Evaluate pac_bayes_margin.pac_bayes_margin_bound(m, 0.95, 0.05) on m = 3, 4, ... and "
             "take the first m below one (LKC Theorem 5.10, eq. 5.12).",
        mistakes=[
            (lambda: _first_m("no factor 2"),
             "Too small: eq. 5.12 has (2/m) in front of d ln(1/(1 - sqrt(1 - Gamma^2))), so with "
             "d = m the constant part is 2 ln(...), not ln(...) (LKC Theorem 5.10)."),
            (lambda: _first_m("d = 1"),
             "Far too small: you used d = 1, but an RBF kernel's feature space is infinite, so "
             "d = min(m, n) = m in eq. 5.12 (LKC Theorem 5.10, Remark 5.12)."),
        ],
    ),
    Exercise(
        label="ch16-ex-3",
        kind="choice",
        options=VARIANTS,
        solution="eq. 15 without 2 ln l",
        asks="which variant gives a number below 0.7 for vol(V) = 100 * 2^-100, l = 100, "
             "eps = 0.05: one of " + ", ".join(repr(v) for v in VARIANTS) + ".",
        hint="Evaluate every variant at ln(1/vol) = 100 ln 2 - ln 100 and compare it with 0.7: "
             "the printed ones with bayes_point.tr_gibbs_bound and "
             "tr_bayes_version_space_bound, a modified one by writing out the terms of its "
             "equation yourself (TR §4, erratum E18).",
        mistakes=[
            ("eq. 15 (Gibbs)", "Evaluate TR eq. 15 as printed (bayes_point.tr_gibbs_bound) at "
                               "these values: it does not get below 0.7 (TR §4)."),
            ("eq. 17 (Bayes)", "TR eq. 17 carries the factor 2 of the Bayes classifier; "
                               "evaluate it (bayes_point.tr_bayes_version_space_bound): it is "
                               "not even below one here (TR §4)."),
            ("none of them", "The printed forms both stay above 0.7, but the list has a third "
                             "variant: write out its terms and evaluate it too (TR §4)."),
        ],
    ),
]
