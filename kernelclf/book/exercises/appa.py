"""Book chapter A (``book/appendix_a_concentration.md``): checkers for the appendix's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _poll_sizes(hoeffding_two_sided=True, cheb_var=0.25, bern_var=0.01 * 0.99, bern_c=0.99):
    # the worked solution of appa-ex-2 (LKC Theorems A.110, A.112, A.115; eq. A.45)
    from kernelclf.bounds import concentration as conc

    nn = np.arange(1, 50_000)
    n_cheb = nn[conc.chebyshev(0.05, cheb_var, nn) <= 0.01][0]
    n_hoef = nn[conc.hoeffding(nn, 0.05, two_sided=hoeffding_two_sided) <= 0.01][0]
    n_bern = nn[conc.bernstein(nn, 0.05, bern_var, bern_c) <= 0.01][0]
    return np.array([n_cheb, n_hoef, n_bern], dtype=float)


def _bennett_size(p=0.01, variance=None, c=None, tails=1.0):
    # the worked solution of appa-ex-4: the least n with tails * Bennett(n) <= 0.01 for the
    # centred Bernoulli(p) answers, |X - p| <= c = 1 - p, sigma^2 = p (1 - p) (LKC Theorem A.114)
    from kernelclf.bounds import concentration as conc

    variance = p * (1 - p) if variance is None else variance
    c = 1 - p if c is None else c
    nn = np.arange(1, 50_000)
    return int(nn[tails * conc.bennett(nn, 0.05, variance, c, mean=True) <= 0.01][0])


def _bennett_without_minus_one(p=0.01):
    # a recorded mistake: h(u) = (1 + 1/u) ln(1 + u) without the "- 1"
    c, var = 1 - p, p * (1 - p)
    u = 0.05 * c / var
    nn = np.arange(1, 50_000)
    return int(nn[np.exp(-nn * 0.05 / c * (1 + 1 / u) * np.log1p(u)) <= 0.01][0])


def _mcdiarmid_size(form="book", tails=2.0):
    # the worked solution of appa-ex-1: the least n with tails * McDiarmid(eps = 0.05,
    # c_i = 1/n) <= 0.01 for the mean of n answers in [0, 1] (LKC Theorem A.119)
    from kernelclf.bounds import concentration as conc

    for n in range(1, 50_000):
        if tails * conc.mcdiarmid(0.05, np.full(n, 1.0 / n), form=form) <= 0.01:
            return n
    raise RuntimeError("no n below 50 000")


EXERCISES = [
    Exercise(
        # the ratio of the exponents (1/4) asked before is as good as printed in the appendix
        # (the McDiarmid figure's caption: the original's exponent is four times larger), so
        # the exercise asks what that factor costs a poll (issue 39)
        label="appa-ex-1",
        kind="number",
        solution=_mcdiarmid_size,
        integer=True,
        asks="the least number n of independent answers in [0, 1] for which McDiarmid's "
             "inequality in the book's form (A.119), applied to their mean and to both tails, "
             "guarantees |mean - expectation| <= 0.05 with probability 0.99 (an integer).",
        hint="Changing one answer moves the mean by at most c_i = 1/n; put sum c_i^2 into "
             "(A.119) as printed, double it for both tails, and find the first n at which it "
             "is at most 0.01 (LKC Theorem A.119).",
        inputs=("(A.45)", "mean of n variables in [a,b]", "book's form", "[0,1]",
                r"\varepsilon=0.05", "probability 0.99", "both tails"),
        mistakes=[
            (lambda: _mcdiarmid_size(form="original"),
             "That is the size from McDiarmid's original constant, which is Hoeffding's; the "
             "exercise asks about the form printed in LKC (A.119)."),
            (lambda: _mcdiarmid_size(tails=1.0),
             "That bounds one tail only; within 0.05 on both sides needs twice the probability "
             "of one tail to be at most 0.01."),
            (lambda: 4 * _mcdiarmid_size(form="original"),
             "Four times Hoeffding's size is enough, but not the least: that size was rounded "
             "up before you multiplied. Solve the book's bound for n directly."),
        ],
    ),
    Exercise(
        label="appa-ex-2",
        kind="array",
        solution=_poll_sizes,
        integer=True,
        alternatives=[
            # Bernstein's constants are open in the statement: the range bound c = 1 of an
            # answer in [0, 1], or the variance bound sigma^2 <= p, costs one more answer (each
            # of the three combinations gives the same size)
            (lambda: _poll_sizes(bern_var=0.01, bern_c=1.0),
             "Right, with the looser admissible constants in Bernstein's inequality (the range "
             "bound c = 1 or the variance bound sigma^2 <= p); the centred answers X - p lie in "
             "[-p, 1 - p] and have variance p(1 - p), and those constants need one answer "
             "fewer (LKC Theorem A.115)."),
        ],
        asks="[n_Chebyshev, n_Hoeffding, n_Bernstein]: the three sample sizes of the poll "
             "(integers).",
        hint="Scan n: Chebyshev with variance 1/4, two-sided Hoeffding 2 exp(-2 n eps^2), "
             "Bernstein with sigma^2 = p(1 - p), c = 1 - p at p = 0.01 (LKC Theorems A.110, "
             "A.112, A.115).",
        mistakes=[
            (lambda: _poll_sizes(hoeffding_two_sided=False),
             "Your Hoeffding size is too small: the poll needs both tails, 2 exp(-2 n eps^2) "
             "<= 0.01 (two-sided form of LKC Theorem A.112)."),
            (lambda: _poll_sizes(cheb_var=1.0),
             "Your Chebyshev size is four times too large: a variable in [0, 1] has variance "
             "at most 1/4, not 1 (LKC Theorem A.110)."),
        ],
        inputs=(r"\varepsilon=0.05", "probability 0.99", "worst variance 1/4", "two-sided Hoeffding",
                r"p\le0.01", "upper tail", "how many independent answers"),
    ),
    Exercise(
        label="appa-ex-4",
        kind="number",
        solution=_bennett_size,
        integer=True,
        asks="the least number of Bernoulli(p = 0.01) answers for which Bennett's inequality "
             "(A.114), with sigma^2 = p(1 - p) and c = 1 - p, puts the upper tail "
             "P(mean - p > 0.05) at or below 0.01 (an integer).",
        hint="Scan n: Bennett's bound for the mean is exp(-(n eps / c) h(eps c / sigma^2)) with "
             "h(u) = (1 + 1/u) ln(1 + u) - 1; take the first n at which it is at most 0.01 "
             "(LKC Theorem A.114, or concentration.bennett(..., mean=True)).",
        mistakes=[
            (128,
             "That is Bernstein's size (LKC Theorem A.115). Bernstein is derived from Bennett "
             "with a cruder bound on the logarithm, so Bennett needs no more answers."),
            (lambda: _bennett_size(tails=2.0),
             "You bounded both tails (2 exp(...) <= 0.01); the question is about the upper "
             "tail only, one exponential."),
            (lambda: _bennett_size(variance=0.25, c=1.0),
             "You used the worst-case variance 1/4 of an answer in [0, 1]; Bennett pays off "
             "because the variance p(1 - p) of a rare answer is small."),
            (_bennett_without_minus_one,
             "Your h lacks the '- 1': h(u) = (1 + 1/u) ln(1 + u) - 1 (LKC Theorem A.114)."),
            (lambda: _bennett_size(variance=0.01, c=1.0),
             "You used the looser constants sigma^2 = p and c = 1 together (or dropped the "
             "1/c in front of h); the exercise fixes sigma^2 = p(1 - p) and c = 1 - p."),
        ],
        inputs=("Bennett's inequality (Theorem A.114)", "p=0.01", r"\varepsilon=0.05",
                "at most 0.01", "upper tail", r"\sigma^2=p(1-p)", "c=1-p"),
    ),
]
