"""Book chapter 06 (``book/06_bayesian_learning.md``): checkers for the Bayesian-learning exercises."""
from __future__ import annotations

from kernelclf.book.exercises._core import Exercise

# ch06-ex-1: Beta(3, 5) prior, 70 heads in 100 tosses (LKC Definition 3.4, conjugacy)
_A, _B, _N, _I = 3.0, 5.0, 100, 70


def _beta_variance(a, b):
    # the variance of a Beta(a, b) variable
    return a * b / ((a + b) ** 2 * (a + b + 1))

EXERCISES = [
    Exercise(
        label="ch06-ex-1",
        kind="number",
        solution=(_A + _I) / (_A + _B + _N),
        rtol=1e-4,
        asks="the posterior mean of p for the Beta(3, 5) prior after 70 heads in 100 tosses "
             "(one number).",
        hint="The posterior is Beta(a + i, b + n - i) (section 'A conjugate example', LKC "
             "Definition 3.4); the mean of Beta(a', b') is a'/(a' + b').",
        mistakes=[
            (_I / _N, "0.7 is the relative frequency i/n: the prior's a and b pseudo-tosses are "
                      "missing (posterior Beta(a + i, b + n - i), LKC Definition 3.4)."),
            ((_A + _I - 1) / (_A + _B + _N - 2), "That is the posterior mode (a + i - 1)/(a + b + "
                                                 "n - 2); the mean is (a + i)/(a + b + n)."),
            ((_A + _I) / _N, "The denominator needs the prior's pseudo-tosses too: "
                             "(a + i)/(a + b + n), the mean of Beta(a + i, b + n - i)."),
        ],
        inputs=("a = 3", "b = 5", "70 heads", "n = 100"),
    ),
    Exercise(
        label="ch06-ex-2",
        kind="choice",
        options=["MAP", "Gibbs", "Bayes"],
        solution="MAP",
        asks="which of the three strategies has exactly the same risk for every noise level "
             "beta: one of 'MAP', 'Gibbs', 'Bayes'.",
        hint="With a uniform prior the posterior is exp(-errors/beta) up to a constant "
             "(LKC Definition 3.2): which strategy only needs the order of the posterior "
             "values, not their sizes (Definitions 3.6-3.8)?",
        mistakes=[
            ("Gibbs", "A Gibbs draw depends on how the posterior mass is spread, which beta "
                      "changes: at large beta it tends to a draw from the flat prior "
                      "(LKC Definition 3.8)."),
            ("Bayes", "The Bayes vote weights every hypothesis by its posterior probability, "
                      "and those weights change with beta (LKC eq. 3.5-3.7), even if its "
                      "decisions change little."),
        ],
        inputs=('"MAP"', '"Gibbs"', '"Bayes"', "m = 10", "exactly the same risk for every"),
    ),
    Exercise(
        label="ch06-ex-4",
        kind="number",
        solution=_beta_variance(_A + _I, _B + _N - _I),
        rtol=1e-4,
        asks="the posterior variance of p for the Beta(3, 5) prior after 70 heads in 100 "
             "tosses (one number).",
        hint="The posterior is Beta(a + i, b + n - i) (LKC Definition 3.4); a Beta(a', b') "
             "variable has variance a' b' / ((a' + b')² (a' + b' + 1)).",
        mistakes=[
            (_beta_variance(_A, _B),
             "That is the variance of the prior Beta(a, b): the tosses have not been used yet. "
             "Update the parameters first (posterior Beta(a + i, b + n - i), LKC Definition "
             "3.4)."),
            (_I * (_N - _I) / _N**3,
             "That is i(n - i)/n³, the variance of the relative frequency i/n when p is fixed "
             "at i/n: a frequentist sampling variance, and the prior's pseudo-tosses are "
             "missing. The posterior variance is that of Beta(a + i, b + n - i)."),
            (_beta_variance(_A + _I, _B + _N - _I) ** 0.5,
             "That is the posterior standard deviation: the exercise asks for the variance, "
             "its square."),
            ((_A + _I) * (_B + _N - _I) / (_A + _B + _N) ** 3,
             "The denominator of the Beta variance is (a' + b')² (a' + b' + 1), with the + 1: "
             "check it against stats.beta(a', b').var()."),
        ],
        inputs=("Beta$(3, 5)$", "70 heads", "100 tosses", "posterior variance of $p$"),
    ),
]
