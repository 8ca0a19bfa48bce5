"""Book chapter 03 (``book/03_perceptron.md``): checkers for the perceptron's exercises."""
from __future__ import annotations

from itertools import permutations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _distinct_permutation_solutions():
    # the worked solution of ch03-ex-4, recomputed (BPM §3.2, App. B Algorithm 1)
    from kernelclf.datasets import make_linear_separable
    from kernelclf.margin import perceptron_on_permutation

    X7, y7 = make_linear_separable(7, dim=2, margin=0.05, random_state=8)
    G7 = X7 @ X7.T
    sols = {tuple(perceptron_on_permutation(G7, y7, np.array(o))) for o in permutations(range(7))}
    return len(sols)


EXERCISES = [
    Exercise(
        label="ch03-ex-1",
        kind="choice",
        options=["unchanged", "multiplied by c", "multiplied by c^2", "divided by c^2"],
        solution="unchanged",
        asks="what happens to Novikoff's bound (ς/γ*)² when every input is multiplied by c > 0: "
             "one of 'unchanged', 'multiplied by c', 'multiplied by c^2', 'divided by c^2'.",
        hint="Follow one update: how do ⟨c·x, c·w⟩ and its sign change? Then see how ς and γ* "
             "scale (Novikoff's theorem, LKC Theorem 2.31).",
        mistakes=[
            ("multiplied by c^2", "ς grows by the factor c, right; now follow the margin γ*: "
                                  "how does min_i y_i⟨x_i, w⟩/‖w‖ change when every x_i is "
                                  "multiplied by c (LKC Theorem 2.31)?"),
            ("divided by c^2", "The margin γ* grows by the factor c, right; now follow the "
                               "radius ς = max_i ‖x_i‖ (LKC Theorem 2.31)."),
        ],
        inputs=('"unchanged"', '"multiplied by c"', '"multiplied by c^2"', '"divided by c^2"',
                "c > 0"),
    ),
    Exercise(
        label="ch03-ex-2",
        kind="number",
        # the fewest updates (and the smallest bound) at tau = 1: asserted on the page, whose
        # worked solution checks the tau it computes against this value
        solution=1.0,
        rtol=1e-9,
        asks="the tau of {0.1, 1, 10} for which the perceptron on the augmented sample "
             "(Q, tau) makes the fewest updates (a number).",
        hint="For each tau append the column tau to Q, fit Perceptron(max_epochs=5000) and read "
             "n_updates_; compare with Novikoff's bound (ς/γ*)² of the augmented sample "
             "(LKC Theorem 2.31).",
        mistakes=[
            (0.1, "A small tau keeps ς small, but a threshold b then needs the weight b/tau on "
                  "the new coordinate: the normal vector gets long and the geometric margin "
                  "small, so (ς/γ*)² and the updates grow (LKC Theorem 2.31)."),
            (10.0, "A large tau makes the threshold cheap, but it adds tau² to every ‖x‖², so "
                   "ς grows faster than the margin and (ς/γ*)² and the updates grow "
                   "(LKC Theorem 2.31)."),
        ],
        inputs=("rng = np.random.default_rng(6)", "Q, yq = Q[keep][:200], np.sign(s[keep][:200])",
                r"\tau \in \{0.1, 1, 10\}", "Perceptron(max_epochs=5000)", "number of updates"),
    ),
    Exercise(
        label="ch03-ex-4",
        kind="number",
        solution=_distinct_permutation_solutions,
        integer=True,
        asks="the number of distinct perceptron solutions over all 5040 orders of the sample "
             "X7, y7 of the exercise (an integer).",
        hint="Run `perceptron_on_permutation` on every order from itertools.permutations(range(7)) "
             "and count distinct solutions, e.g. as a set of tuples of the returned α (BPM §3.2).",
        mistakes=[
            (5040, "5040 counts the orders, not the solutions: put each returned α in a set "
                   "(as a tuple) and count the set."),
            (1, "Only one solution means every run returned the same α: did you pass the "
                "permutation as the order argument (BPM App. B, Algorithm 1)?"),
        ],
        inputs=("X7, y7 = make_linear_separable(7, dim=2, margin=0.05, random_state=8)",
                "G7 = X7 @ X7.T", "perceptron_on_permutation", "7! = 5040"),
    ),
]
