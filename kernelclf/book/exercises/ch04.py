"""Book chapter 04 (``book/04_support_vector_machines.md``): checkers for the SVM exercises."""
from __future__ import annotations

from kernelclf.book.exercises._core import Exercise


def _nu_rho():
    # the worked solution of ch04-ex-3 (Schölkopf et al. 2000; LKC eq. 2.52)
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF
    from kernelclf.margin import NuSupportVectorMachine

    X, y = make_moons(300, random_state=1)
    return NuSupportVectorMachine(RBF(0.5), nu=0.3, tol=1e-9).fit(X, y).rho_


def _nu_C():
    return 1.0 / (300 * _nu_rho())


EXERCISES = [
    Exercise(
        label="ch04-ex-1",
        kind="number",
        solution=1.0 / (2 * 0.01 * 300),
        rtol=1e-3,
        asks="the C of SupportVectorMachine that matches LKC's lambda = 0.01 on the 300 noisy "
             "moons (one number).",
        hint="Divide LKC's objective (1/m) sum xi + lambda ||w||^2 by 2 lambda and read off the "
             "factor in front of sum xi (LKC eq. 2.48 and the section 'Soft margins').",
        mistakes=[
            (1.0 / (2 * 0.01), "1/(2 lambda) forgets the m: the book's objective averages the "
                               "slacks, so C = 1/(2 lambda m) (erratum E6, LKC App. D.2.1)."),
            (1.0 / (0.01 * 300), "1/(lambda m) is the C of the quadratic soft margin (eq. 2.49); "
                                 "for the hinge loss C = 1/(2 lambda m) (eq. 2.48)."),
            (2 * 0.01 * 300, "That is 2 lambda m, the reciprocal: C = 1/(2 lambda m) (eq. 2.48)."),
        ],
    ),
    Exercise(
        label="ch04-ex-3",
        kind="number",
        solution=_nu_C,
        rtol=1e-3,
        asks="the C of the C-SVM equivalent to the nu-SVM with nu = 0.3 on X, y (one number, "
             "computed from the fitted rho_).",
        hint="Divide the nu-SVM's primal by rho (section 'The ν-trick', LKC eq. 2.52): the slack "
             "term becomes (1/(m rho)) sum xi, so C = 1/(m rho) with m = 300.",
        mistakes=[
            (_nu_rho, "That is rho itself; the equivalent C is 1/(m rho) (LKC eq. 2.52)."),
            (lambda: 1.0 / _nu_rho(), "1/rho forgets the m = 300 in front: the nu-SVM averages "
                                      "its slacks, so C = 1/(m rho) (LKC eq. 2.52)."),
            (lambda: 0.3 / (300 * _nu_rho()), "nu does not enter C: dividing the primal by rho "
                                              "gives C = 1/(m rho) (LKC eq. 2.52)."),
        ],
    ),
]
