"""Book chapter 05 (``book/05_loo_and_adaptive_margin_machines.md``): checkers for its exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

_GRID = [0.15, 0.25, 0.4, 0.6, 1.0, 1.6]


def _sample():
    from kernelclf.datasets import make_moons

    X, y = make_moons(80, noise=0.25, flip=0.05, random_state=0)
    X_test, y_test = make_moons(3000, noise=0.25, flip=0.05, random_state=99)
    return X, y, X_test, y_test


def _loom_lp(zero_diagonal=True):
    # the worked solution of ch05-ex-2: the LP of LKC eq. 2.56 with G's diagonal removed
    from kernelclf.kernels import RBF
    from kernelclf.optim import solve_lp

    X, y, _, _ = _sample()
    G = RBF(0.5)(X)
    if zero_diagonal:
        G = G - np.diag(np.diag(G))
    ys = np.where(y > 0, 1.0, -1.0)
    m = len(y)
    A2 = np.hstack([-(ys[:, None] * G * ys[None, :]), -np.eye(m)])
    return solve_lp(np.r_[np.zeros(m), np.ones(m)], A2=A2, b2=-np.ones(m), l=0.0).objective


def _sigma_picked(column):
    # the worked solution of ch05-ex-3: 0 JH bound, 1 exact LOO, 2 #SV/m, 3 test error
    from kernelclf.bounds.loo import jaakkola_haussler_bound, leave_one_out_error, support_vector_bound
    from kernelclf.kernels import RBF
    from kernelclf.margin import SupportVectorMachine

    X, y, X_test, y_test = _sample()
    crit = []
    for s in _GRID:
        est = SupportVectorMachine(RBF(s), C=1.0, fit_bias=False, tol=1e-8)
        mdl = est.fit(X, y)
        crit.append([jaakkola_haussler_bound(mdl), leave_one_out_error(est, X, y),
                     support_vector_bound(mdl), np.mean(mdl.predict(X_test) != y_test)][column])
    return _GRID[int(np.argmin(crit))]


EXERCISES = [
    Exercise(
        label="ch05-ex-1",
        kind="choice",
        options=["LOOM", "SVM", "both", "neither"],
        # the page's worked solution measures both changes and checks the option it implies
        solution="SVM",
        asks='which decision function changes when c = 5 is added on the Gram diagonal: one '
             'of "LOOM", "SVM", "both", "neither".',
        hint="Write down where k(x_i, x_i) enters each problem: the LOOM's constraints "
             "(LKC eq. 2.56, sums over j ≠ i) and the dual objective of the soft-margin "
             "machine (LKC eq. 2.53, the term α'YGYα).",
        mistakes=[
            ("LOOM", "The LOOM's constraints sum over j ≠ i only (LKC eq. 2.56): the diagonal "
                     "of G never enters its problem, so its solution cannot change. Look at "
                     "the other machine's dual objective α'YGYα."),
            ("both", "One of the two never sees the diagonal: the LOOM's constraints sum over "
                     "j ≠ i (LKC eq. 2.56)."),
            ("neither", "The soft-margin machine's dual objective α'YGYα contains the diagonal "
                        "G_ii: adding c to it acts like a quadratic soft margin and changes "
                        "the solution (LKC eq. 2.50, Remark 2.32)."),
        ],
        inputs=('"LOOM"', '"SVM"', '"both"', '"neither"', "c=0", "c=5",
                r"c\,\mathbb{I}_{x=x'}"),
    ),
    Exercise(
        label="ch05-ex-2",
        kind="number",
        solution=_loom_lp,
        rtol=1e-4,
        asks="the optimal value of the LP of eq. 2.56 (sum of the slacks) on X, y with the "
             "RBF kernel (sigma = 0.5) and the Gram diagonal removed (one number).",
        hint="Variables (alpha, xi), cost (0, 1), constraints -Y G0 Y alpha - xi <= -1 with "
             "alpha, xi >= 0 and G0 the Gram matrix with a zero diagonal (LKC eq. 2.56).",
        mistakes=[
            (0.0, "An optimum of 0 means the diagonal is still in G: each point then supports "
                  "itself. Remove diag(G) before building the constraints (LKC eq. 2.56, "
                  "§2.5.2)."),
            (lambda: _loom_lp() / 80, "That is the mean slack; the LP's objective is the sum "
                                      "1'xi over the m = 80 points (LKC eq. 2.56)."),
        ],
        inputs=(r"\lambda=1", "zero diagonal", r"\sigma = 0.5", "`X, y`", "eq. 2.56"),
    ),
    Exercise(
        label="ch05-ex-3",
        kind="number",
        solution=lambda: _sigma_picked(0),
        atol=1e-3,
        asks="the sigma of the grid [0.15, 0.25, 0.4, 0.6, 1.0, 1.6] that minimises the "
             "Jaakkola-Haussler bound (the first one on a tie, as np.argmin does).",
        hint="Fit the bias-free SVM with C = 1 for each sigma and take the argmin of "
             "jaakkola_haussler_bound (LKC Theorem 2.37, eq. 2.55), not of another column.",
        mistakes=[
            (lambda: _sigma_picked(3), "That sigma minimises the test error, which a learner "
                                       "cannot see; the exercise asks for the minimiser of the "
                                       "Jaakkola-Haussler bound (LKC Theorem 2.37)."),
            (lambda: _sigma_picked(1), "That sigma minimises the exact leave-one-out error "
                                       "(LKC Def. 2.35); the bound (Theorem 2.37) is only an "
                                       "upper bound on it and picks another width."),
        ],
        inputs=("grid = [0.15, 0.25, 0.4, 0.6, 1.0, 1.6]", "C=1", "bias-free", "`X, y`",
                "the first minimiser", "np.argmin"),
    ),
]
