"""Book chapter 04 (``book/04_support_vector_machines.md``): checkers for the SVM exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

#: ch04-ex-1: LKC's lambda on the chapter's noisy moons (m = 300), RBF(0.5), no bias
_LAM, _M = 0.01, 300


def _book_objective(C=None, fit_bias=False, slack_sum=False, lam_on_w=True, csvm=False):
    # the worked solution of ch04-ex-1: (1/m) sum xi + lambda ||w||^2 (LKC eq. 2.48) at the
    # SVM fitted with C = 1/(2 lambda m), xi_i = max(0, 1 - y_i f(x_i))
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF
    from kernelclf.margin import SupportVectorMachine

    X, y = make_moons(_M, random_state=1)
    C = 1.0 / (2 * _LAM * _M) if C is None else C
    svm = SupportVectorMachine(RBF(0.5), C=C, fit_bias=fit_bias, tol=1e-8).fit(X, y)
    K = RBF(0.5)(X)
    ys = np.where(y > 0, 1.0, -1.0)
    xi = np.maximum(0.0, 1.0 - ys * svm.decision_function(X))
    w2 = float(svm.alpha_ @ K @ svm.alpha_)
    if csvm:  # the C-SVM's own objective 1/2 ||w||^2 + C sum xi
        return 0.5 * w2 + C * xi.sum()
    return (xi.sum() if slack_sum else xi.mean()) + (_LAM if lam_on_w else 1.0) * w2


def _nu_rho():
    # the worked solution of ch04-ex-3 (Schölkopf et al. 2000; LKC eq. 2.52)
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF
    from kernelclf.margin import NuSupportVectorMachine

    X, y = make_moons(300, random_state=1)
    return NuSupportVectorMachine(RBF(0.5), nu=0.3, tol=1e-9).fit(X, y).rho_


def _nu_C():
    return 1.0 / (300 * _nu_rho())


def _reductions(k, n):
    # ch04-ex-4: machines and training points per machine of the two reductions (LKC §2.4.4)
    return [k, k * (k - 1) // 2, k * n, 2 * n]


EXERCISES = [
    Exercise(
        label="ch04-ex-1",
        kind="number",
        solution=_book_objective,
        # a minimum: no honest evaluation lands below it; the package's default solver
        # tolerance lands 5e-5 (relative) above it
        rtol=(1e-5, 1e-4),
        atol=0.0,
        asks="the value of LKC's objective (1/m) sum xi + lambda ||w||^2 at the SVM fitted on "
             "X, y with lambda = 0.01, RBF(0.5), no bias and C = 1/(2 lambda m) (one number).",
        hint="Fit SupportVectorMachine(RBF(0.5), C=1/(2 lambda m), fit_bias=False), take "
             "xi_i = max(0, 1 - y_i f(x_i)) and ||w||^2 = alpha_' K alpha_, and add the mean "
             "slack to lambda ||w||^2 (LKC eq. 2.48, section 'Soft margins').",
        mistakes=[
            (lambda: _book_objective(slack_sum=True),
             "You summed the slacks: LKC's objective averages them, (1/m) sum xi (eq. 2.48)."),
            (lambda: _book_objective(lam_on_w=False),
             "The regulariser is lambda ||w||^2: multiply ||w||^2 by lambda = 0.01 (eq. 2.48)."),
            (lambda: _book_objective(csvm=True),
             "That is the C-SVM's own objective 1/2 ||w||^2 + C sum xi at the solution: it has "
             "the same minimiser but is the book's divided by 2 lambda; evaluate the book's "
             "(eq. 2.48)."),
            (lambda: _book_objective(fit_bias=True),
             "That machine has a bias: the exercise's machine has none (fit_bias=False), as "
             "LKC's objective here has no b."),
            (lambda: _book_objective(C=1.0 / (2 * _LAM)),
             "That is the objective at the machine with C = 1/(2 lambda), without the m: the "
             "matching C is 1/(2 lambda m) (erratum E6, LKC App. D.2.1)."),
        ],
        inputs=(r"\lambda = 0.01", "make_moons(300, random_state=1)", r"\sigma=0.5", "no bias",
                r"\frac1m\sum_i\xi_i + \lambda\|\mathbf{w}\|^2",
                r"\xi_i=\max(0,1-y_if(x_i))", r"C=1/(2\lambda m)"),
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
        inputs=(r"\nu=0.3", "with bias", r"\sigma = 0.5", "`X, y`", r"C=1/(m\rho)"),
    ),
    Exercise(
        label="ch04-ex-4",
        kind="array",
        integer=True,
        solution=np.array(_reductions(26, 100)),
        asks="[machines of one-versus-rest, machines of one-versus-one, training points per "
             "one-versus-rest machine, training points per one-versus-one machine] for "
             "n_classes classes of per_class points each (four integers).",
        hint="One-versus-rest trains one machine per class on all the data; one-versus-one "
             "one machine per unordered pair of classes on the points of those two classes "
             "only (LKC §2.4.4, section 'More than two classes').",
        mistakes=[
            (np.array([26, 26 * 25, 2600, 200]),
             "You counted ordered pairs: the machine for (a, b) is the machine for (b, a), so "
             "one-versus-one trains k(k − 1)/2 machines (LKC §2.4.4)."),
            (np.array([26, 325, 100, 200]),
             "A one-versus-rest machine separates its class from all the others, so it is "
             "trained on every point, not only on its own class (LKC §2.4.4)."),
            (np.array([25, 325, 2600, 200]),
             "One-versus-rest trains a machine for every class, the last one included, and "
             "predicts the class with the largest output (LKC §2.4.4)."),
        ],
        inputs=("n_classes, per_class = 26, 100", "one-versus-rest", "one-versus-one",
                "how many training points"),
    ),
]
