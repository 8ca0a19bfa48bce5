"""Book chapter 17 (``book/17_compression_stability_rademacher.md``): checkers for its exercises."""
from __future__ import annotations

import math

from kernelclf.book.exercises._core import Exercise

_LN_20_FACT = math.lgamma(21)

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
    ),
    Exercise(
        label="ch17-ex-2",
        kind="number",
        solution=2 * 0.5**2 / (2 * 0.1 * 25),
        rtol=1e-6,
        asks="the bound 2 beta_m on the replace-one stability for m = 25, lambda = 0.1, inputs "
             "in a ball of radius 0.5, linear kernel, hinge loss (Lipschitz constant 1).",
        hint="Theorem 5.31 (erratum E9) gives beta_m = C_l^2 sup k(x, x) / (2 lambda m) with "
             "sup k(x, x) = R^2 for the linear kernel; Theorem 5.27 doubles it for a "
             "replaced example (LKC §5.3).",
        mistakes=[
            (0.5**2 / (2 * 0.1 * 25), "That is beta_m, the remove-one stability: replacing an "
                                      "example goes through the removal twice, 2 beta_m "
                                      "(LKC Theorem 5.27)."),
            (2 * 0.5 / (2 * 0.1 * 25), "You used sup k(x, x) = R; for the linear kernel "
                                       "k(x, x) = ||x||^2 <= R^2 (LKC Theorem 5.31, erratum E9)."),
        ],
    ),
]
