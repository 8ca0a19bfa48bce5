"""Book chapter 11 (``book/11_kernel_billiard.md``): checkers for the kernel billiard's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _mirror(v, x):
    # LKC eq. 3.33: the Householder mirror of v on the plane with normal x
    v, x = np.asarray(v, float), np.asarray(x, float)
    return v - 2.0 * (v @ x) / (x @ x) * x


def _mirror_cases():
    rng = np.random.default_rng(11)
    return [(rng.normal(size=d), 3.0 * rng.normal(size=d)) for d in (2, 3, 5, 8)]


def _lemma_18_1(m, eps, eta, width):
    # RM Lemma 18.1, eq. 18.31: k > m (b - a)^2 / (2 eps^2) ln(2 m / eta)
    return m * width ** 2 / (2 * eps ** 2) * np.log(2 * m / eta)


EXERCISES = [
    Exercise(
        label="ch11-ex-1",
        kind="function",
        solution=_mirror,
        cases=_mirror_cases(),
        rtol=1e-9,
        atol=1e-12,
        asks="a function mirror(v, x) that returns the direction v mirrored on the plane "
             "with normal x (both 1-D NumPy arrays, x of any length).",
        hint="The mirror removes twice the component of v along the unit normal x/||x|| "
             "(LKC eq. 3.33, §3.4.1).",
        mistakes=[
            (lambda v, x: np.asarray(v) - (np.asarray(v) @ x) / (x @ x) * np.asarray(x),
             "That is the projection onto the plane, not the mirror: the component along x "
             "must be removed twice, so that it changes sign (LKC eq. 3.33)."),
            (lambda v, x: np.asarray(v) - 2.0 * (np.asarray(v) @ x) * np.asarray(x),
             "The normal is not of unit length here: divide by ||x||^2 = <x, x> "
             "(LKC eq. 3.33 writes the division; in the dual it is k(x_c, x_c))."),
        ],
        inputs=("mirror(v, x)", "need not have unit length", "plane with normal"),
    ),
    Exercise(
        label="ch11-ex-3",
        kind="number",
        solution=1,
        integer=True,
        asks="the number of training errors of the soft billiard's solution (lambda = 0.1) "
             "counted with the ORIGINAL kernel, y_i (G alpha)_i <= 0 (an integer).",
        hint="Count y_i (G alpha)_i <= 0 with the Gram matrix G of the original kernel, as a "
             "test point would see it (BPM §3.3, eq. 26-27; TR §5).",
        mistakes=[
            (0, "Zero errors is what the enlarged kernel G + lambda I gives: there every "
                "sample is separable. Count with the original G, as a test point sees it "
                "(BPM §3.3, eq. 26-27)."),
            (2, "The twins have the same input, hence the same output, and opposite labels: "
                "exactly one of them is wrong, and the other points are fitted "
                "(reread the soft-boundary section, BPM §3.3)."),
        ],
        inputs=("first 30 points of the moons sample `Xs, ys`",
                "a copy of the first point with the opposite label", r"\sigma=0.4",
                "`tol=1e-2`", "`random_state=0`", r"\lambda=0.1", "with the original kernel"),
    ),
    Exercise(
        label="ch11-ex-4",
        kind="number",
        solution=lambda: float(_lemma_18_1(140, 0.05, 0.05, 2.0)),
        rtol=1e-3,
        asks="RM's sample size k of eq. 18.31 (Lemma 18.1) for m = 140 dual coefficients, "
             "each in [-1, 1], eps = 0.05 and eta = 0.05 (a number).",
        hint="Use k = m (b - a)^2 / (2 eps^2) ln(2 m / eta) (RM Lemma 18.1, eq. 18.29 with "
             "n = m, eq. 18.31); here b - a = 2.",
        mistakes=[
            (lambda: float(140 * 4 / (2 * 0.05 ** 2) * np.log(2 / 0.05)),
             "The logarithm is ln(2 m / eta): the union bound over the m components puts "
             "the factor m inside it (RM Lemma 18.1, proof)."),
            (lambda: float(4 / (2 * 0.05 ** 2) * np.log(2 * 140 / 0.05)),
             "Each component must be within eps / sqrt(m), not eps, so the bound carries a "
             "leading factor m (RM eq. 18.29-18.30)."),
            (lambda: float(_lemma_18_1(140, 0.05, 0.05, 1.0)),
             "The interval [-1, 1] has width b - a = 2, and it enters squared (RM eq. 18.30)."),
        ],
        inputs=("eq. 18.31", "m=140", "[-1,1]", r"\epsilon=\eta=0.05"),
    ),
]
