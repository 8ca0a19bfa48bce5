"""Book chapter 15 (``book/15_margin_bounds.md``): checkers for the margin chapter's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

DELTA = 0.05


def _eq429(divisor=8.0, last="ld m + ld(2/delta)"):
    # the worked solution of ch15-ex-1: eq. 4.27 with fat(gamma/8) <= (8 varsigma/gamma)^2
    from kernelclf.bounds import covering as cv

    m, g, vs = 10**5, 0.7, 1.0
    bound = float(cv.fat_shattering_bound(m, cv.linear_fat_shattering(g / divisor, vs), DELTA))
    if last == "ld(2/delta)":  # the mistake: the ld m of eq. 4.27 dropped
        bound -= 2.0 / m * np.log2(m)
    return bound


def _eq429_no_ceiling():
    # the mistake of dropping the ceiling of eq. 4.29 around its first term
    m, g, vs = 10**5, 0.7, 1.0
    first = 64 * vs**2 / g**2 * np.log2(g**2 * np.e * m / (8 * vs**2)) * np.log2(32 * m)
    return float(2.0 / m * (first + np.log2(2 * m / DELTA)))


def _least_m(d_eff):
    # the worked solution of ch15-ex-2: least m with Theorem 4.35 below one (bisection)
    from kernelclf.bounds import margin as mb

    def fn(m):
        return float(mb.robust_margin_bound(m, d_eff, DELTA))

    lo = int(d_eff // 2)
    hi = lo
    while fn(hi) >= 1:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fn(mid) < 1 else (mid, hi)
    return hi


def _m_pac():
    from kernelclf.bounds import margin as mb

    return int(mb.nontrivial_sample_size(1.0, delta=DELTA))


def _grid_f(m=1000, vs=1.0, D=0.5, pick="min"):
    # ch15-ex-3: f(Delta) = (1 + D^2/Delta^2)(varsigma^2 + Delta^2) on the grid of LKC App. C.6
    from kernelclf.bounds import margin as mb

    g = mb.Delta_grid(m, vs)
    f = (1 + D**2 / g**2) * (vs**2 + g**2)
    if pick == "below":  # the largest grid value below the continuous minimiser sqrt(vs D)
        return float(f[np.flatnonzero(g < np.sqrt(vs * D))[0]])
    return float(f.min())


EXERCISES = [
    Exercise(
        label="ch15-ex-1",
        kind="number",
        solution=_eq429,
        # a closed form: any route that evaluates it agrees to rounding error
        rtol=1e-6,
        asks="the value of eq. 4.29 (equivalently eq. 4.27 with fat(gamma/8) from Lemma 4.31) "
             "at m = 100 000, gamma = 0.7, varsigma = 1, delta = 0.05.",
        hint="Theorem 4.30 (eq. 4.27) needs the fat shattering dimension at gamma/8; Lemma 4.31 "
             "gives fat(gamma/8) <= (8 varsigma / gamma)^2. Reread LKC §4.3.3, eq. 4.29.",
        mistakes=[
            (lambda: _eq429(1.0),
             "You used fat(gamma), not fat(gamma/8): Theorem 4.30 evaluates the fat shattering "
             "dimension at an eighth of the margin (LKC eq. 4.27)."),
            (lambda: _eq429(4.0),
             "You used fat(gamma/4): the scale in Theorem 4.30 is gamma/8, which gives the 64 "
             "in eq. 4.29 (LKC §4.3.3)."),
            (lambda: _eq429(last="ld(2/delta)"),
             "Your last term is ld(2/delta) alone: eq. 4.27 ends with ld m + ld(2/delta), and "
             "eq. 4.29 keeps both, combined into one logarithm (LKC §4.3.3)."),
            (_eq429_no_ceiling,
             "Close, but eq. 4.29 rounds its first term up to a whole number (the ceiling "
             "around 64ς²/γ² · ld(γ²em/(8ς²)) · ld(32m)), as eq. 4.27 does "
             "(LKC Theorems 4.30 and 4.32)."),
        ],
        inputs=("m = 100 000", r"\gamma = 0.7", r"\varsigma = 1", r"\delta = 0.05", "eq. 4.29"),
    ),
    Exercise(
        label="ch15-ex-2",
        kind="number",
        solution=lambda: _least_m(1040.0),
        integer=True,
        asks="the least m at which Theorem 4.35 (eq. 4.33) with d_eff = 1040 drops below one "
             "at delta = 0.05 (an integer).",
        hint="Evaluate margin.robust_margin_bound(m, 1040, 0.05) and bisect on integers; the "
             "bound decreases in m once d_eff <= 2m (LKC Theorem 4.35, eq. 4.33).",
        mistakes=[
            (_m_pac,
             "That is the PAC margin bound's size for margin complexity 1 (eq. 4.29), the "
             "comparison in the exercise's second part; the robust bound of Theorem 4.35 needs "
             "far more examples."),
            (lambda: _least_m(64.0),
             "You put d_eff = 64 (the constant of eq. 4.29); the book's example has "
             "d_eff = 1040 for every m (LKC Theorem 4.35 and the example after it)."),
        ],
        inputs=("1040", "δ = 0.05", "eq. 4.33", "drops below one"),
    ),
    Exercise(
        label="ch15-ex-3",
        kind="number",
        solution=_grid_f,
        rtol=1e-6,
        asks="the smallest value of f(Δ) = (1 + D²/Δ²)(ς² + Δ²) over the grid "
             "Delta_grid(1000, 1.0) of App. C.6, for ς = 1 and D = 0.5 (one number).",
        hint="Evaluate f at every value of margin.Delta_grid(1000, 1.0) and take the smallest "
             "(LKC App. C.6, the proof of Theorem 4.35); the grid halves from 2ς√m downwards.",
        mistakes=[
            (lambda: (1.0 + 0.5) ** 2,
             "That is f(Δ*) = (ς + D)², the minimum over all Δ > 0: the grid is fixed before "
             "the data and need not contain Δ* = √(ςD), so its best value is larger "
             "(LKC App. C.6)."),
            (lambda: (1.0 + 3 * 0.5) ** 2,
             "That is (ς + 3D)², the guarantee the proof gives for the grid: an upper bound "
             "on the smallest grid value, which is the number asked for (LKC App. C.6)."),
            (lambda: _grid_f(pick="below"),
             "That is f at the largest grid value below Δ*: the grid value on the other side "
             "of Δ* does better here; take the minimum over the whole grid."),
        ],
        inputs=("grid_m, grid_vs, grid_D = 1000, 1.0, 0.5", "Delta_grid",
                r"f(\Delta)=(1+D^2/\Delta^2)(\varsigma^2+\Delta^2)"),
    ),
]
