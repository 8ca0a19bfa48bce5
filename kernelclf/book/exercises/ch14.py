"""Book chapter 14 (``book/14_vc_theory_and_srm.md``): checkers for the VC chapter's exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _sample_sizes(target_vc=0.1):
    # the worked solution of ch14-ex-2 (LKC Remark 4.11; eq. 4.15 with eq. 4.19)
    from kernelclf.bounds import vc

    m_vc = int(vc.nontrivial_sample_size(10, 0.05, remp=0.0, target=target_vc))
    mm = np.arange(10, 20_000)
    m_pac = int(mm[vc.pac_dimension_bound(mm, 0.05, 10) <= 0.1][0])
    return np.array([m_vc, m_pac], dtype=float)


EXERCISES = [
    Exercise(
        label="ch14-ex-2",
        kind="array",
        solution=_sample_sizes,
        integer=True,
        asks="[m_VC, m_PAC]: the smallest m for which Remark 4.11 gives eps_VC <= 0.1, then the "
             "smallest m for which eq. 4.15 with eq. 4.19 gives a risk <= 0.1 (theta = 10, "
             "delta = 0.05).",
        hint="Reread Remark 4.11 (the square-root VC form) and eq. 4.15 with the growth bound "
             "eq. 4.19 (the 1/m PAC form); both decrease in m, so scan m or use "
             "vc.nontrivial_sample_size.",
        mistakes=[
            (lambda: _sample_sizes()[::-1],
             "The two sizes are swapped: the square-root VC form (Remark 4.11) needs the "
             "larger sample, the 1/m PAC form of eq. 4.15 the smaller one."),
            (lambda: _sample_sizes(target_vc=np.sqrt(0.1)),
             "Your VC size is far too small: you asked for eps_VC^2 <= 0.1, i.e. forgot the "
             "square root of Remark 4.11 (eq. 4.14); ask for the bound itself to reach 0.1."),
        ],
    ),
    Exercise(
        label="ch14-ex-4",
        kind="number",
        solution=14,
        integer=True,
        asks="the number of labelings (of 16) that linear classifiers without bias in R^3 "
             "realise on four points in general position (an integer).",
        hint="Count with shattering.count_labelings(shattering.labelings_lp(four, bias=False)) "
             "or with Cover's formula 2 * sum_{i<n} C(m-1, i) (LKC Example 4.13.2, §4.2.1).",
        mistakes=[
            (16, "16 would mean the four points are shattered, but the VC dimension of linear "
                 "classifiers through the origin in R^3 is 3 (LKC Example 4.13.2)."),
            (7, "That is half the count: Cover's formula has a factor 2, since w and -w give "
                "complementary labelings (LKC Example 4.13.2)."),
        ],
    ),
]
