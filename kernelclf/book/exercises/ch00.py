"""Book chapter 00 (``book/00_preface.md``): checkers for the preface's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

_BOOK_ALPHA = np.array([0.5, 0.0, 1.2])
_Y = np.array([1.0, -1.0, -1.0])

EXERCISES = [
    Exercise(
        label="ch00-ex-1",
        kind="array",
        # the package stores alpha_i y_i (LKC eq. 2.5-2.7, preface "Conventions")
        solution=_BOOK_ALPHA * _Y,
        atol=1e-9,
        asks="alpha_ for book coefficients alpha = (0.5, 0, 1.2) and labels y = (+1, -1, -1): "
             "an array of three numbers.",
        hint="The package stores signed coefficients, one per example: alpha_[i] = α_i y_i "
             "(preface, section Notation and conventions; LKC eq. 2.5-2.7).",
        mistakes=[
            (_BOOK_ALPHA, "Those are the book's unsigned α_i: the package multiplies each by "
                          "its label y_i, so negative-class entries become negative (preface, "
                          "Notation and conventions)."),
            (-_BOOK_ALPHA * _Y, "Every sign is flipped: alpha_[i] = α_i y_i, so it has the sign "
                                "of the example's own label (+ for y = +1; LKC eq. 2.5-2.7)."),
        ],
    ),
    Exercise(
        label="ch00-ex-2",
        kind="number",
        solution=1.0 / (2 * 0.2**2),
        rtol=1e-6,
        asks="scikit-learn's gamma for RBF(sigma=0.2) (a number).",
        hint="scikit-learn writes exp(-γ‖x - x'‖²) and the book exp(-‖x - x'‖²/(2σ²)) "
             "(LKC Table 2.1): match the exponents.",
        mistakes=[
            (1.0 / 0.2**2, "25 drops the factor 2 of the book's 2σ²: γ = 1/(2σ²) "
                           "(LKC Table 2.1)."),
            (1.0 / (2 * 0.2), "σ enters squared: γ = 1/(2σ²), not 1/(2σ) (LKC Table 2.1)."),
            (2 * 0.2**2, "That is 1/γ: γ is the reciprocal of 2σ² (LKC Table 2.1)."),
        ],
    ),
]
