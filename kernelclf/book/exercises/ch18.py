"""Book chapter 18 (``book/18_bound_dashboard.md``): checkers for the dashboard's exercises."""
from __future__ import annotations

import math

from kernelclf.book.exercises._core import Exercise

DELTA = 0.05
M_TOY = 150


def _needed_gamma(n=None):
    # the worked solution of ch18-ex-2: bisection of eq. 5.12 (LKC Theorem 5.10) in Gamma
    from kernelclf.bounds import pac_bayes_margin as pbm

    def bound_at(G):
        return float(pbm.pac_bayes_margin_bound(M_TOY, G, DELTA, n=n))

    lo, hi = (pbm.margin_threshold() if n is None else 1e-6), 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bound_at(mid) >= 1 else (lo, mid)
    return hi


def _threshold():
    from kernelclf.bounds import pac_bayes_margin as pbm

    return float(pbm.margin_threshold())


_L = math.log(1 / DELTA)
_L_RATIO = math.log(DELTA / 1e-6)   # ln(0.05 / 1e-6): what delta = 1e-6 adds to ln(1/delta)

EXERCISES = [
    Exercise(
        label="ch18-ex-1",
        kind="number",
        solution=2 * _L_RATIO / M_TOY,
        rtol=1e-6,
        asks="how much the PAC-Bayes margin bound (eq. 5.12) of the hard-margin SVM on the "
             "teacher toy (m = 150) grows when delta goes from 0.05 to 1e-6 (one number).",
        hint="δ enters eq. 5.12 only through the term (2/m) ln(1/δ) (LKC Theorem 5.10): the "
             "change is that term at 10⁻⁶ minus that term at 0.05; or take the difference of "
             "the two reports' values.",
        mistakes=[
            (_L_RATIO / M_TOY,
             "The logarithm of eq. 5.12 carries the factor 2/m, not 1/m (LKC Theorem 5.10)."),
            (2 * math.log(1e6) / M_TOY,
             "That is the whole term (2/m) ln(1/δ) at δ = 10⁻⁶; the question asks how much the "
             "bound grows, so subtract its value at δ = 0.05."),
            (4 * _L_RATIO / M_TOY,
             "The factor 4/m belongs to the zero-error VC bound (eq. 4.15); the PAC-Bayes "
             "margin bound has 2/m in front of ln(1/δ) (LKC Theorem 5.10)."),
            (2 * math.log10(DELTA / 1e-6) / M_TOY,
             "Your logarithm is to base 10: the bounds use the natural logarithm."),
        ],
        inputs=("δ = 10⁻⁶", "0.05", "PAC-Bayes margin bound", "hard-margin SVM on the teacher toy",
                "m = 150"),
    ),
    Exercise(
        label="ch18-ex-2",
        kind="number",
        solution=_needed_gamma,
        rtol=1e-3,
        asks="the normalised margin Gamma above which eq. 5.12 with d = m drops below one at "
             "m = 150, delta = 0.05 (a number in (0, 1)).",
        hint="Bisect pac_bayes_margin.pac_bayes_margin_bound(150, Gamma, 0.05) in Gamma between the "
             "threshold 0.919 and 1 (LKC Theorem 5.10, eq. 5.12, with d = m).",
        mistakes=[
            (_threshold, "That is the threshold where the first term alone reaches one; the "
                         "terms (2/m)(2 ln m + ln(1/delta) + 2) of eq. 5.12 push the needed "
                         "Gamma higher (LKC Theorem 5.10)."),
            (lambda: _needed_gamma(n=5),
             "You used the input dimension n = 5: an RBF kernel has an infinite feature space, "
             "so d = min(m, n) = m in eq. 5.12 (LKC Remark 5.12)."),
        ],
        inputs=("d=m", "m=150", "δ = 0.05", "eq. 5.12", "drop below one"),
    ),
    Exercise(
        label="ch18-ex-3",
        kind="number",
        solution=(M_TOY / 2 - math.log(M_TOY) - _L) / math.log(math.e * M_TOY),
        rtol=1e-3,
        asks="the largest mistake bound M for which eq. 5.17 is below one at m = 150, "
             "delta = 0.05 (a number).",
        hint="Solve (2/m)(M ln(e m) + ln m + ln(1/delta)) = 1 for M (LKC Theorem 5.23, "
             "eq. 5.17).",
        mistakes=[
            ((M_TOY / 2 - math.log(M_TOY) - _L) / math.log(M_TOY),
             "You divided by ln m: eq. 5.17 pays ln(e m) = 1 + ln m per mistake "
             "(LKC Theorem 5.23)."),
            ((M_TOY - math.log(M_TOY) - _L) / math.log(math.e * M_TOY),
             "You dropped the factor 2 of 2/m in eq. 5.17 (LKC Theorem 5.23): solve "
             "M ln(e m) + ln m + ln(1/delta) = m/2."),
        ],
        inputs=("eq. 5.17", "m=150", "δ = 0.05", "largest M"),
    ),
]
