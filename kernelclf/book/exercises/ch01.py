"""Book chapter 01 (``book/01_introduction.md``): checkers for the introduction's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _n_needed(eps, deltas, factor=2.0):
    # Hoeffding's test-set bound (LKC Theorem A.112): n >= ln(1/delta) / (2 eps^2)
    return np.array([np.ceil(np.log(1.0 / d) / (factor * eps**2)) for d in deltas])


def _vandermonde(columns=12, gram=False):
    # the chapter's twelve training inputs: the first draw of default_rng(0)
    rng = np.random.default_rng(0)
    x_train = np.sort(rng.uniform(-0.5, 1.0, size=12))
    V = np.vander(x_train, columns, increasing=True)
    return float(np.linalg.cond(V.T @ V if gram else V))


EXERCISES = [
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
    ),
    Exercise(
        label="ch01-ex-4",
        kind="number",
        solution=_vandermonde,
        rtol=1e-3,
        asks="the 2-norm condition number of the 12 × 12 Vandermonde matrix of x_train "
             "(np.linalg.cond), a number of order 1e7.",
        hint="Build V = np.vander(x_train, 12, increasing=True) from the chapter's twelve "
             "training inputs and take np.linalg.cond(V) (section ch01-function-learning).",
        mistakes=[
            (lambda: _vandermonde(11),
             "That is the 12 × 11 matrix of the degree-10 fit: a degree-11 polynomial has 12 "
             "coefficients, x^0 … x^11 (section ch01-function-learning)."),
            (lambda: _vandermonde(12, gram=True),
             "That is the condition number of VᵀV, the square of the one asked for: take the "
             "condition number of V itself (section ch01-function-learning)."),
        ],
    ),
]
