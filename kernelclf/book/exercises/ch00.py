"""Book chapter 00 (``book/00_preface.md``): checkers for the preface's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

_BOOK_ALPHA = np.array([0.5, 0.0, 1.2])
_Y = np.array([1.0, -1.0, -1.0])


def _weighted_add(s, t, mu):
    # LKC App. B.9 with erratum E2: s (+)_mu t = rho1 s + rho2 t, c = <s, t>
    s, t = np.asarray(s, dtype=float), np.asarray(t, dtype=float)
    c = float(s @ t)
    rho1 = mu * np.sqrt((2 - mu**2 * (1 - c)) / (1 + c))
    rho2 = 1 - mu**2 * (1 - c) - rho1 * c
    return rho1 * s + rho2 * t


def _normalised_chord(s, t, mu):
    p = mu * np.asarray(s, dtype=float) + (1 - mu) * np.asarray(t, dtype=float)
    return p / np.linalg.norm(p)


def _chord(s, t, mu):
    return mu * np.asarray(s, dtype=float) + (1 - mu) * np.asarray(t, dtype=float)


def _swapped(s, t, mu):
    return _weighted_add(t, s, mu)


def _unit_vector_cases():
    rng = np.random.default_rng(2)
    cases = []
    for d, mu in ((2, 0.3), (3, 0.8), (5, 0.55), (8, 0.1), (4, 1.0), (3, 0.0)):
        s, t = rng.normal(size=(2, d))
        cases.append((s / np.linalg.norm(s), t / np.linalg.norm(t), mu))
    return cases

EXERCISES = [
    Exercise(
        label="ch00-ex-1",
        kind="array",
        # the package stores alpha_i y_i (LKC eq. 2.54, preface "Conventions")
        solution=_BOOK_ALPHA * _Y,
        atol=1e-9,
        asks="alpha_ for book coefficients alpha = (0.5, 0, 1.2) and labels y = (+1, -1, -1): "
             "an array of three numbers.",
        hint="The package stores signed coefficients, one per example: alpha_[i] = α_i y_i "
             "(preface, section Notation and conventions; LKC eq. 2.54).",
        mistakes=[
            (_BOOK_ALPHA, "Those are the book's unsigned α_i: the package multiplies each by "
                          "its label y_i, so negative-class entries become negative (preface, "
                          "Notation and conventions)."),
            (-_BOOK_ALPHA * _Y, "Every sign is flipped: alpha_[i] = α_i y_i, so it has the sign "
                                "of the example's own label (+ for y = +1; LKC eq. 2.54)."),
        ],
        inputs=("(0.5, 0, 1.2)", "(+1, -1, -1)"),
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
        inputs=("RBF(sigma=0.2)",),
    ),
    Exercise(
        label="ch00-ex-3",
        kind="function",
        solution=_weighted_add,
        cases=_unit_vector_cases(),
        rtol=1e-9,
        atol=1e-12,
        asks="a function weighted_add(s, t, mu) of two unit vectors (1-D arrays of equal "
             "length) and mu in [0, 1], returning s ⊕_μ t.",
        hint="s ⊕_μ t = ρ₁ s + ρ₂ t must satisfy two conditions: unit length and "
             "‖t − s ⊕_μ t‖ = μ‖t − s‖; with c = ⟨s, t⟩ they are two equations in ρ₁, ρ₂ "
             "(LKC App. B.9, erratum E2 in the preface's table).",
        mistakes=[
            (_normalised_chord,
             "Your point is on the great circle and has unit length, but it is not at distance "
             "μ‖t − s‖ from t: normalising the straight-line interpolation moves it along the "
             "arc. Impose the distance condition itself (LKC App. B.9)."),
            (_chord,
             "Your point is at the right distance from t but lies inside the sphere: the "
             "straight-line interpolation is shorter than one. The result must be a unit "
             "vector (LKC App. B.9)."),
            (_swapped,
             "The roles of s and t are exchanged: your point is at distance μ‖t − s‖ from s. "
             "The distance is measured from t, so μ = 0 gives t and μ = 1 gives s "
             "(LKC App. B.9)."),
        ],
        inputs=("weighted_add(s, t, mu)", "unit vectors",
                r"\lVert t - s\oplus_\mu t\rVert = \mu\lVert t-s\rVert"),
    ),
]
