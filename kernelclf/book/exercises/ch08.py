"""Book chapter 08 (``book/08_relevance_vector_machines.md``): checkers for the RVM exercises."""
from __future__ import annotations

import warnings

import numpy as np

from kernelclf.book.exercises._core import Exercise

_THETA = 0.5   # the fixed prior variance of ch08-ex-3


def _sinc_data():
    # the chapter's regression sample: 100 noisy sinc values, default_rng(0)
    rng = np.random.default_rng(0)
    Xs = rng.uniform(-10, 10, size=(100, 1))
    ts = np.sinc(Xs[:, 0] / np.pi) + 0.1 * rng.normal(size=100)
    return Xs, ts


def _fit(**params):
    from kernelclf.bayes import RelevanceVectorRegressor
    from kernelclf.kernels import RBF

    Xs, ts = _sinc_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RelevanceVectorRegressor(kernel=RBF(2.0), **params).fit(Xs, ts)


def _evidence_gap(**params):
    # the worked solution of ch08-ex-1 (LKC App. B.8, eq. B.22 and B.23): the last log
    # evidence of the MacKay run minus that of the EM run
    params = {"solver": "book", "max_iter": 40, **params}
    return float(_fit(update="mackay", **params).evidence_trace_[-1]
                 - _fit(update="em", **params).evidence_trace_[-1])


def _mackay_rise():
    trace = _fit(update="mackay", solver="book", max_iter=40).evidence_trace_
    return float(trace[-1] - trace[0])


def _effective_parameters(complement=False):
    # the worked solution of ch08-ex-2: sum_i zeta_i = sum_i (1 - Sigma_ii / theta_i) of the
    # chapter's model (LKC App. B.8); with complement, sum_i Sigma_ii / theta_i
    rvr = _fit(solver="book", max_iter=300)
    ratio = np.diag(rvr.sigma_) / rvr.theta_
    return float(ratio.sum() if complement else (1 - ratio).sum())


def _n_relevance():
    return _fit(solver="book", max_iter=300).n_relevance_


EXERCISES = [
    Exercise(
        label="ch08-ex-1",
        kind="number",
        solution=_evidence_gap,
        rtol=1e-6,
        asks="the last log evidence of the MacKay run minus that of the EM run, after 40 "
             "iterations of the book solver on the sinc data with RBF(2.0) (one number).",
        hint="Fit RelevanceVectorRegressor(kernel=RBF(2.0), solver='book', update=..., "
             "max_iter=40) on Xs, ts once with each update and subtract the last entries of "
             "the two evidence_trace_ arrays, MacKay minus EM (LKC App. B.8, eq. B.22, B.23).",
        mistakes=[
            (lambda: -_evidence_gap(),
             "The sign is flipped: the exercise asks for the MacKay run's log evidence minus "
             "the EM run's."),
            (lambda: _mackay_rise(),
             "That is how far the MacKay run rose from its starting value: the exercise "
             "compares the final values of the two runs, MacKay minus EM."),
            (lambda: _evidence_gap(solver="fast"),
             "A difference of zero is what the package's default solver='fast' gives: it "
             "ignores update=..., so both runs are the same. Pass solver='book', which uses "
             "the book's two re-estimation formulas (LKC App. B.8, Algorithm ch08-alg-rvr)."),
        ],
        inputs=("`update='em'`", "`update='mackay'`", "40 iterations", "RBF(2.0)",
                "solver='book'", "`Xs, ts`", "MacKay run minus that of the EM run"),
    ),
    Exercise(
        label="ch08-ex-2",
        kind="number",
        solution=_effective_parameters,
        rtol=1e-6,
        asks="the effective number of parameters sum_i zeta_i of the fitted sinc model rvr "
             "(one number).",
        hint="ζ_i = 1 − Σ_ii/θ_i for the relevance vectors, from the fitted posterior "
             "covariance rvr.sigma_ and prior variances rvr.theta_ (LKC App. B.8, the model "
             "section's definition of ζ).",
        mistakes=[
            (_n_relevance,
             "That is the number of relevance vectors: each ζ_i is at most one, and it is one "
             "only for a weight the data determine completely. Sum 1 − Σ_ii/θ_i instead."),
            (100, "100 counts every basis function: the pruned ones have no weight left, and "
                  "the others count with their ζ_i = 1 − Σ_ii/θ_i."),
            (lambda: _effective_parameters(complement=True),
             "That is the sum of Σ_ii/θ_i, the part of each weight still set by the prior: "
             "ζ_i is one minus that ratio."),
        ],
        inputs=("\\sum_i\\zeta_i", "fitted sinc model `rvr`"),
    ),
    Exercise(
        label="ch08-ex-3",
        kind="number",
        solution=1.0 / _THETA,
        atol=1e-4,
        asks="the largest absolute difference between the finite-difference Hessian and the "
             "printed form -Phi' P Phi, for theta_i = 0.5 (one number).",
        hint="The prior term -1/2 w' Theta^{-1} w of J contributes -Theta^{-1} to the Hessian "
             "(LKC App. B.8, erratum E5): the printed form misses exactly that diagonal.",
        mistakes=[
            (_THETA, "0.5 is theta itself; the missing prior term's second derivative is "
                     "1/theta on the diagonal (erratum E5, App. B.8)."),
            (0.0, "A difference of 0 means you compared with the corrected form "
                  "-(Phi' P Phi + Theta^{-1}); the exercise asks about the printed one (E5)."),
        ],
        inputs=("\\theta_i = 0.5", "-\\boldsymbol\\Phi'\\mathbf{P}\\boldsymbol\\Phi",
                "finite differences"),
    ),
]
