"""Book chapter 17 (``book/17_compression_stability_rademacher.md``): checkers for its exercises."""
from __future__ import annotations

import math

from kernelclf.book.exercises._core import Exercise

_LN_20_FACT = math.lgamma(21)


def _toy_points(gap=0.1):
    # the chapter's toy points of RMM Table 1: 40 points on two rows at x_2 = +-gap
    import numpy as np

    tt = gap * np.arange(1, 20, 2)
    return np.array([[s * a, b * gap] for a in tt for s in (-1, 1) for b in (-1, 1)])


def _active_landmarks(D=0.9, floor=1e-6, E=0.5):
    # ch17-ex-3: landmarks with a non-zero minimising multiplier of T_2 (RMM Theorem 10, §4.7)
    import numpy as np

    from kernelclf.bounds import rademacher as rb

    X = _toy_points()
    lam = rb.rademacher_T2(X, X, E, D, return_result=True).lam
    return int(np.sum(lam > floor * lam.max()))

EXERCISES = [
    Exercise(
        label="ch17-ex-1",
        kind="number",
        solution=_LN_20_FACT / 980,
        rtol=2e-3,
        asks="how much the d! adds to the bound of Theorem 5.17 at m = 1000, d = 20 "
             "(a number; delta cancels).",
        hint="Subtract eq. 5.16 (permutation invariant) from Theorem 5.17 (ordered): only "
             "ln(d!) differs, divided by the m - d examples not kept (LKC §5.2.1).",
        mistakes=[
            (_LN_20_FACT, "That is ln 20! itself: Theorem 5.17 divides the log count of index "
                          "vectors by m - d (LKC §5.2.1)."),
            (_LN_20_FACT / 1000, "Divided by m: the bound of Theorem 5.17 divides by m - d = 980, "
                                 "the examples the rebuilt hypothesis is tested on (LKC §5.2.1)."),
        ],
        inputs=("m=1000", "d=20", "Theorem 5.17", "eq. 5.16", "minus"),
    ),
    Exercise(
        label="ch17-ex-2",
        kind="number",
        # lambda = 0.25: the chapter's stability table prints beta_m at 0.1 (issue 39)
        solution=2 * 0.5**2 / (2 * 0.25 * 25),
        rtol=1e-6,
        asks="the bound 2 beta_m on the replace-one stability for m = 25, lambda = 0.25, inputs "
             "in a ball of radius 0.5, linear kernel, hinge loss (Lipschitz constant 1).",
        hint="Theorem 5.31 (erratum E9) gives beta_m = C_l^2 sup k(x, x) / (2 lambda m) with "
             "sup k(x, x) = R^2 for the linear kernel; Theorem 5.27 doubles it for a "
             "replaced example (LKC §5.3).",
        mistakes=[
            (0.5**2 / (2 * 0.25 * 25), "That is beta_m, the remove-one stability: replacing an "
                                       "example goes through the removal twice, 2 beta_m "
                                       "(LKC Theorem 5.27)."),
            (2 * 0.5 / (2 * 0.25 * 25), "You used sup k(x, x) = R; for the linear kernel "
                                        "k(x, x) = ||x||^2 <= R^2 (LKC Theorem 5.31, erratum "
                                        "E9)."),
            (2 * 0.5**4 / (2 * 0.25 * 25), "You used (sup k(x, x))^2 as Theorem 5.31 is printed; "
                                           "the bound has sup k(x, x) itself (erratum E9)."),
            (2 * 0.5**2 / (2 * 0.1 * 25), "That is 2 beta_m at lambda = 0.1, the table's row; "
                                          "the exercise's machine has lambda = 0.25."),
        ],
        inputs=(r"\lambda=0.25", "m_s = 25", "R_s = 0.5", "linear kernel", "hinge loss",
                r"bound $2\beta_m$"),
    ),
    Exercise(
        label="ch17-ex-3",
        kind="number",
        solution=_active_landmarks,
        integer=True,
        asks="the number of landmarks whose minimising multiplier lambda_j of T_2 exceeds "
             "lam_floor times the largest, on the toy points at D = 0.9 (an integer).",
        hint="Call rb.rademacher_T2(Xtoy, Xtoy, E, 0.9, return_result=True) and count the "
             "entries of .lam above lam_floor * .lam.max() (T_2 is RMM Theorem 10; §4.7 "
             "discusses its multipliers).",
        mistakes=[
            (40, "All 40 landmarks are active at D = 0, where the objective depends on the "
                 "multipliers only through their sum; at D = 0.9 the minimiser drops most of "
                 "them."),
            (2, "The points at the ends of the long axis come in pairs: each end has one point "
                "above and one below the axis (x_2 = ±gap). Count the multipliers themselves."),
            (0, "Some multiplier is always active: at least the largest one exceeds lam_floor "
                "times itself. Count the entries of .lam above the threshold."),
        ],
        inputs=("`Xtoy`", "D_active = 0.9", "lam_floor = 1e-6", "E"),
    ),
]
