"""Book chapter 12 (``book/12_bpm_experiments.md``): checkers for its exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _one_sided_paired_p(bpm, svm):
    # the worked solution of ch12-ex-1: t = mean(d) / (sd(d)/sqrt(n)), d = bpm - svm, and the
    # lower tail of Student's t with n - 1 degrees of freedom (BPM §4.2, p column of Table 1)
    from scipy import stats

    d = np.asarray(bpm, dtype=float) - np.asarray(svm, dtype=float)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))
    return float(stats.t.cdf(t, df=len(d) - 1))


def _two_sided(bpm, svm):
    from scipy import stats

    return float(stats.ttest_rel(bpm, svm).pvalue)


def _unpaired(bpm, svm):
    from scipy import stats

    return float(stats.ttest_ind(bpm, svm, alternative="less").pvalue)


def _wrong_tail(bpm, svm):
    return 1.0 - _one_sided_paired_p(bpm, svm)


def _cosine_to_labels(lam=1e4, refresh=0.05, random_state=0):
    # the worked solution of ch12-ex-2: cos(alpha, y) of the soft-boundary Bayes point on the
    # chapter's noisy moons (BPM §3.3: alpha -> y as lambda grows; refreshes, RM §18.2)
    import warnings

    from kernelclf.bayespoint import BayesPointMachine
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF

    Xm, ym = make_moons(80, noise=0.25, flip=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = BayesPointMachine(RBF(0.5), lam=lam, tol=5e-3, refresh=refresh, max_bounces=20_000,
                              random_state=random_state).fit(Xm, ym).alpha_
    y = np.where(ym > 0, 1.0, -1.0)
    return float(a @ y / np.linalg.norm(a) / np.linalg.norm(y))


_rng = np.random.default_rng(12)
_CASES = []
for _n, _shift in ((2, -1.0), (5, -0.5), (10, 0.3), (30, -0.2)):
    _s = 20 + _rng.normal(0, 2, _n)
    _CASES.append((_s + _shift + _rng.normal(0, 1, _n), _s))


EXERCISES = [
    Exercise(
        label="ch12-ex-1",
        kind="function",
        solution=_one_sided_paired_p,
        cases=_CASES,
        atol=1e-8,
        rtol=1e-6,
        asks="a function p(bpm_errors, svm_errors) returning the p-value of the one-sided "
             "paired t-test of 'the BPM error is lower' (arrays of per-split errors).",
        hint="Pair the splits: d = bpm − svm, t = mean(d)/(sd(d)/√n) with n − 1 degrees of "
             "freedom, and take the lower tail P(T ≤ t) (BPM §4.2, the p column of Table 1).",
        mistakes=[
            (_two_sided, "That is the two-sided p-value (scipy's ttest_rel default): the "
                         "question is one-sided, 'BPM lower', so take only the lower tail "
                         "(alternative='less'; BPM §4.2)."),
            (_unpaired, "That treats the two columns as independent samples (ttest_ind): both "
                        "methods ran on the same splits, so test the paired differences "
                        "(BPM §4.2)."),
            (_wrong_tail, "That is the upper tail, the confidence 1 − p printed in our table: "
                          "the p-value of 'BPM lower' is P(T ≤ t) with d = bpm − svm."),
        ],
        inputs=("one_sided_p(bpm, svm)", "one-sided", "paired",
                '"the BPM error is lower than the L2-SVM\'s"'),
    ),
    Exercise(
        label="ch12-ex-2",
        kind="number",
        solution=_cosine_to_labels,
        # the billiard's estimate depends on its random directions: over the seeds 0-5 the
        # cosine spreads by 1.2e-3 (tests/test_exercises_third.py), well inside 2e-3
        rtol=0.0,
        atol=2e-3,
        asks="cos(alpha, y) of the Bayes point with lambda = 1e4 and direction refreshes "
             "(refresh_rate) on Xm, ym, fitted with bpm_params (one number).",
        hint="Fit BayesPointMachine(RBF(0.5), lam=1e4, refresh=refresh_rate, **bpm_params) on "
             "Xm, ym and take alpha_ @ y / (‖alpha_‖ ‖y‖) with the labels y as ±1 (BPM §3.3, "
             "the soft boundary).",
        mistakes=[
            (lambda: _cosine_to_labels(refresh=0.0),
             "That is the plain billiard, without refreshes: in the near-orthant version space "
             "of a large λ it keeps to a few great circles and misses the centre. Pass "
             "refresh=refresh_rate (the solution of this exercise explains why)."),
            (lambda: _cosine_to_labels(lam=10.0),
             "That is the Bayes point for λ = 10: the exercise asks about λ = 10⁴, where "
             "version space is nearly an orthant."),
            (1.0, "That is the limit λ → ∞; at λ = 10⁴ the kernel still bends version space a "
                  "little and the billiard's estimate has its own error: measure the cosine."),
        ],
        inputs=("Xm, ym", "bpm_params = dict(tol=5e-3, max_bounces=20_000, random_state=0)",
                "refresh_rate = 0.05", "RBF(0.5)", r"\lambda = 10^4"),
    ),
    Exercise(
        label="ch12-ex-4",
        kind="number",
        solution=1 - 0.9 * 0.03 / 0.08,
        rtol=1e-6,
        asks="the share of the errors removed when rejecting 10 % of the test points brings "
             "the error on the kept points from 8 % to 3 % (a number in [0, 1]).",
        hint="Count errors, not rates: before, 0.08 n; after, 0.03 of the 0.9 n kept points "
             "(BPM §4.3, Fig. 9).",
        mistakes=[
            (1 - 0.03 / 0.08, "That compares the two rates as if the same number of points "
                              "were kept: after rejection only 90 % of the points remain "
                              "(BPM §4.3)."),
            (0.05, "That is the drop of the error rate, not the share of errors removed: "
                   "divide the errors removed by the errors before (BPM §4.3, Fig. 9)."),
        ],
        inputs=("8 %", "10 %", "3 %"),
    ),
]
