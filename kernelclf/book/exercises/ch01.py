"""Book chapter 01 (``book/01_introduction.md``): checkers for the introduction's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _n_needed(eps, deltas, factor=2.0):
    # Hoeffding's test-set bound (LKC Theorem A.112): n >= ln(1/delta) / (2 eps^2)
    return np.array([np.ceil(np.log(1.0 / d) / (factor * eps**2)) for d in deltas])


def _vandermonde(columns=15, gram=False):
    # the chapter's fifteen training inputs (LKC Fig. 1.3's setting): the first draw of
    # default_rng(0)
    rng = np.random.default_rng(0)
    x_train = np.sort(rng.uniform(-1.0, 1.0, size=15))
    V = np.vander(x_train, columns, increasing=True)
    return float(np.linalg.cond(V.T @ V if gram else V))


# ch01-ex-1: the two vectors of the exercise's cell
_XA, _XB = np.array([1.0, 2.0, 2.0]), np.array([2.0, 1.0, 0.0])


def _product_distance(xa=_XA, xb=_XB):
    # eq. ch01-eq-feature-distance with k(x, x~) = <x, x~>^2 (LKC eq. 2.22 for the distance)
    return float(np.sqrt((xa @ xa) ** 2 - 2 * (xa @ xb) ** 2 + (xb @ xb) ** 2))


EXERCISES = [
    Exercise(
        label="ch01-ex-1",
        kind="number",
        solution=_product_distance,
        rtol=1e-6,
        asks="the feature-space distance ‖φ(x_a) − φ(x_b)‖ of the pairwise-product map for the "
             "vectors x_a, x_b of the exercise's cell (a number).",
        hint="Either build the nine products φ(x) = (x_i x_j) of each vector and take the "
             "Euclidean distance, or use eq. ch01-eq-feature-distance with "
             "k(x, x~) = ⟨x, x~⟩² (section ch01-nearest-neighbour).",
        mistakes=[
            (float(np.linalg.norm(_XA - _XB)),
             "That is the distance of the inputs themselves: the exercise asks for the "
             "distance of their images under φ (eq. ch01-eq-feature-distance)."),
            (float(np.linalg.norm(_XA - _XB) ** 2),
             "That is ‖φ(x_a − x_b)‖ = ‖x_a − x_b‖²: φ is not linear, so φ(x_a) − φ(x_b) is "
             "not φ(x_a − x_b). Compute the images first, or use the kernel distance "
             "(eq. ch01-eq-feature-distance)."),
            (_product_distance() ** 2,
             "That is the squared distance k(x, x) − 2k(x, x~) + k(x~, x~): take its square "
             "root (eq. ch01-eq-feature-distance)."),
        ],
        inputs=("x_a, x_b = np.array([1.0, 2.0, 2.0]), np.array([2.0, 1.0, 0.0])",
                r"\boldsymbol{\phi}(\mathbf{x}) = (x_i x_j)_{i,j=1}^3"),
    ),
    Exercise(
        label="ch01-ex-3",
        kind="array",
        solution=lambda: _n_needed(0.02, (0.05, 0.001)),
        integer=True,
        asks="[n for delta = 0.05, n for delta = 0.001]: the smallest integers n with "
             "sqrt(ln(1/delta) / (2 n)) <= 0.02.",
        hint="Solve sqrt(ln(1/δ)/(2n)) ≤ ε for n and round up to an integer "
             "(eq. ch01-eq-test-bound, Hoeffding's inequality, LKC Theorem A.112).",
        mistakes=[
            (lambda: _n_needed(0.02, (0.05, 0.001), factor=1.0),
             "These are twice the right sizes: the width is sqrt(ln(1/δ)/(2n)), so n ≥ "
             "ln(1/δ)/(2ε²) — keep the factor 2 of eq. ch01-eq-test-bound."),
            (lambda: _n_needed(0.02, (0.05, 0.001)) - 1,
             "One short each: n must make the width at most ε, so round ln(1/δ)/(2ε²) up, "
             "not down (eq. ch01-eq-test-bound)."),
            (lambda: np.array([np.ceil(np.log(1 / d) / (2 * 0.02)) for d in (0.05, 0.001)]),
             "The width is a square root: squaring it gives ε² in the denominator, not ε "
             "(eq. ch01-eq-test-bound)."),
        ],
        inputs=("0.02", "1 - \\delta = 0.95", "\\delta = 0.001"),
    ),
    Exercise(
        label="ch01-ex-4",
        kind="number",
        solution=_vandermonde,
        rtol=1e-3,
        asks="the 2-norm condition number of the 15 × 15 Vandermonde matrix of x_train "
             "(np.linalg.cond), a number of order 1e9.",
        hint="Build V = np.vander(x_train, 15, increasing=True) from the chapter's fifteen "
             "training inputs and take np.linalg.cond(V) (section ch01-function-learning).",
        mistakes=[
            (lambda: _vandermonde(14),
             "That is the 15 × 14 matrix of a degree-13 fit: a degree-14 polynomial has 15 "
             "coefficients, x^0 … x^14 (section ch01-function-learning)."),
            (lambda: _vandermonde(15, gram=True),
             "That is the condition number of VᵀV, in exact arithmetic the square of the one "
             "asked for (rounding distorts it at this size): take the condition number of V "
             "itself (section ch01-function-learning)."),
        ],
        inputs=("function-learning example", "all 15 training points", "15 \\times 15",
                r"V_{ij} = x_i^{\,j}", "i = 1, \\ldots, 15", "j = 0, \\ldots, 14"),
    ),
]
