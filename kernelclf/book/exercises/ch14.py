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


def _srm_complexity(prior, m=3000, vartheta=15):
    # the complexity term of eq. 4.20 (LKC Lemma 4.14), bound minus R_emp, at delta = 0.05
    from kernelclf.bounds import vc

    return float(vc.srm_bound(0.0, m, 0.05, vc.growth_exact(2 * m, vartheta), prior))


def _prior_raise(d=4, geometric_exponent=None, m=3000):
    # ch14-ex-3: how much the prior 2^-d raises the bound of the degree-d class over the
    # uniform prior 1/10 (the bound minus the training error does not depend on R_emp);
    # the VC dimension of degree d is C(d + 2, 2), 15 at d = 4
    vartheta = (d + 1) * (d + 2) // 2
    e = d if geometric_exponent is None else geometric_exponent
    return _srm_complexity(2.0**-e, m, vartheta) - _srm_complexity(0.1, m, vartheta)


def _cover(m, n, top=None):
    # Cover's count 2 sum_{i < n} C(m - 1, i) (Cover's function-counting theorem, 1965; LKC
    # does not state it)
    from math import comb

    return 2 * sum(comb(m - 1, i) for i in range(n if top is None else top))


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
        inputs=(r"\vartheta=10", r"\delta=0.05", r"\varepsilon_{\rm VC}\le0.1",
                "Remark 4.11", "eq. 4.15 with eq. 4.19", "at most 0.1"),
    ),
    Exercise(
        label="ch14-ex-3",
        kind="number",
        solution=_prior_raise,
        rtol=1e-6,
        asks="how much the prior P_S(H_d) = 2^-d raises the bound of eq. 4.20 of the degree "
             "the uniform prior picks, compared with the uniform prior (the geometric prior's "
             "bound minus the uniform prior's, one number).",
        hint="Call vc.srm_select(train_err, 3000, 0.05, theta_d, prior=0.5**degrees) and "
             "compare its bound with srm_b at the degree the uniform prior picks; the prior "
             "enters as ln(1/P_S) inside the square root of eq. 4.20 (LKC Lemma 4.14, "
             "Remark 4.15).",
        mistakes=[
            (float(np.log(16 / 10)),
             "That is the change of ln(1/P_S) itself, in nats: it enters the bound inside "
             "sqrt((8/m)(ln(4/δ) + ln(1/P_S) + G(2m))), so the bound moves by much less "
             "(eq. 4.20)."),
            (lambda: -_prior_raise(),
             "The sign is flipped: 2^-d gives that degree less prior mass than 1/10, so its "
             "bound goes up; take the geometric prior's bound minus the uniform prior's."),
            (lambda: _prior_raise(geometric_exponent=3),
             "Your prior gives that degree 2^-(d-1): index the degrees from d = 1, so that "
             "P_S(H_d) = 2^-d with the array degrees, which starts at 1."),
            (lambda: _prior_raise(d=10),
             "That is the change at d = 10; the exercise asks about the degree the uniform "
             "prior picks (the dotted line of the figure)."),
        ],
        inputs=(r"P_S(\mathcal H_d)=2^{-d}", "`banana`", "the degree the uniform prior picks",
                "geometric prior's bound minus the uniform prior's"),
    ),
    Exercise(
        label="ch14-ex-4",
        kind="number",
        solution=_cover(6, 4),
        integer=True,
        asks="the number of labelings (of 64) that linear classifiers without bias in R^4 "
             "realise on six points in general position (an integer).",
        hint="Count with shattering.count_labelings(shattering.labelings_lp(points, "
             "bias=False)) on six random points of R^4, or with Cover's formula "
             "2 * sum_{i<n} C(m-1, i) (Cover's function-counting theorem, Cover 1965; "
             "not in LKC).",
        mistakes=[
            (64, "64 would mean the six points are shattered, but the VC dimension of linear "
                 "classifiers through the origin in R^4 is 4 (LKC Example 4.13.2)."),
            (_cover(6, 4) // 2, "That is half the count: Cover's formula has a factor 2, since "
                                "w and -w give complementary labelings (Cover 1965)."),
            (_cover(6, 4, top=5), "Cover's sum runs over i < n, not i <= n: "
                                  "2 sum_{i=0}^{n-1} C(m-1, i) (Cover 1965)."),
            (57, "That is Sauer's bound sum_{i<=n} C(m, i), an upper bound on the count; "
                 "for points in general position Cover's formula gives the count itself "
                 "(Cover 1965; Sauer's bound is LKC Theorem 4.10)."),
        ],
        inputs=("six points in general position", r"\mathbb R^4", "without bias"),
    ),
]
