"""Book chapter 09 (``book/09_fisher_discriminants.md``): checkers for the Fisher-discriminant exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _imbalanced(m, seed):
    r = np.random.default_rng(seed)
    y = np.where(r.random(m) < 0.1, 1, -1)
    return r.normal(size=(m, 2)) + 1.2 * (y > 0)[:, None], y


def _prior_offsets(which):
    # the worked solution of ch09-ex-2 (LKC eq. 3.37, Algorithm 8): accuracy on the test set
    from kernelclf.bayes import FisherDiscriminant

    Xi, yi = _imbalanced(500, 1)
    Xit, yit = _imbalanced(20000, 2)
    fdi = FisherDiscriminant().fit(Xi, yi)
    log_ratio = np.log((yi > 0).sum() / (yi < 0).sum())
    shift = {"without": -log_ratio, "with": 0.0, "twice": log_ratio}[which]
    f = Xit @ fdi.coef_ + fdi.intercept_ + shift
    return float(np.mean(np.where(f > 0, 1, -1) == yit))


def _unequal(m, seed):
    r = np.random.default_rng(seed)
    y = np.where(r.random(m) < 0.5, 1, -1)
    Xp = r.normal(size=(m, 2)) * [1.0, 4.0] + [2.0, 3.0]
    Xn = r.normal(size=(m, 2)) * [0.2, 0.2]
    return np.where((y > 0)[:, None], Xp, Xn), y


def _unequal_scores(which):
    # the worked solution of ch09-ex-3: test accuracy of Fisher / logistic regression
    from sklearn.linear_model import LogisticRegression

    from kernelclf.bayes import FisherDiscriminant

    Xu, yu = _unequal(2000, 3)
    Xut, yut = _unequal(20000, 4)
    model = FisherDiscriminant() if which == "fisher" else LogisticRegression()
    return float(model.fit(Xu, yu).score(Xut, yut))


def _pooled(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    mu_p, mu_n = X[y > 0].mean(axis=0), X[y < 0].mean(axis=0)
    R = np.where((y > 0)[:, None], X - mu_p, X - mu_n)
    return R.T @ R / len(y), mu_p - mu_n


def _fisher_direction(X, y):
    # the direction of LKC Algorithm 8: Sigma^-1 (mu_+ - mu_-) (eq. 3.37) with the pooled
    # estimate of eq. 3.39, unit length
    S, d = _pooled(X, y)
    w = np.linalg.solve(S, d)
    return w / np.linalg.norm(w)


def _mean_difference(X, y):
    _, d = _pooled(X, y)
    return d / np.linalg.norm(d)


def _times_covariance(X, y):
    S, d = _pooled(X, y)
    w = S @ d
    return w / np.linalg.norm(w)


def _not_normalised(X, y):
    S, d = _pooled(X, y)
    return np.linalg.solve(S, d)


def _direction_cases():
    rng = np.random.default_rng(9)
    cases = []
    for n, m in ((2, 30), (3, 50), (5, 80), (2, 200)):
        A = rng.normal(size=(n, n)) + 2 * np.eye(n)         # correlated, anisotropic classes
        y = np.where(rng.random(m) < 0.4, 1, -1)
        y[:2] = [1, -1]
        X = rng.normal(size=(m, n)) @ A + np.outer(y > 0, rng.normal(size=n))
        cases.append((X, y))
    return cases


EXERCISES = [
    Exercise(
        label="ch09-ex-2",
        kind="number",
        solution=lambda: _prior_offsets("without"),
        atol=5e-5,
        asks="the test accuracy on Xit, yit of the fitted direction with the offset of eq. 3.37 "
             "for p = 1/2, i.e. without the term ln(m+/m-) (one number).",
        hint="Subtract ln(m+/m-) from the fitted intercept_ (Algorithm 8 adds it, LKC eq. 3.37 "
             "and App. D.5) and score sign(Xit @ coef_ + offset) against yit.",
        mistakes=[
            (lambda: _prior_offsets("with"), "That is the fitted classifier's accuracy, with the "
                                             "prior term still in; remove ln(m+/m-) from the "
                                             "offset (Algorithm 8, LKC eq. 3.37)."),
            (lambda: _prior_offsets("twice"), "The sign of the correction is flipped: you added "
                                              "ln(m+/m-) a second time instead of removing it "
                                              "(Algorithm 8, LKC eq. 3.37)."),
        ],
        inputs=("def imbalanced(m, seed, p_pos=0.1):", "Xi, yi = imbalanced(500, 1)",
                "Xit, yit = imbalanced(20000, 2)", "p = \\tfrac12",
                "without \\ln(m_{+1}/m_{-1})"),
    ),
    Exercise(
        label="ch09-ex-3",
        kind="number",
        solution=lambda: _unequal_scores("fisher"),
        atol=5e-5,
        asks="the test accuracy of FisherDiscriminant on Xut, yut, trained on Xu, yu (one "
             "number).",
        hint="Fit FisherDiscriminant() on the 2000 training points and call .score on the "
             "20000 test points (LKC Algorithm 8, §3.5).",
        mistakes=[
            (lambda: _unequal_scores("logistic"), "That is logistic regression's accuracy; the "
                                                  "exercise asks for Fisher's (Algorithm 8)."),
            (lambda: 1.0 - _unequal_scores("fisher"), "That is Fisher's test error; the exercise "
                                                      "asks for its accuracy, 1 minus it."),
        ],
        inputs=("def unequal(m, seed):", "Xu, yu = unequal(2000, 3)",
                "Xut, yut = unequal(20000, 4)", "`LogisticRegression()` with its default settings"),
    ),
    Exercise(
        label="ch09-ex-4",
        kind="function",
        solution=_fisher_direction,
        cases=_direction_cases(),
        rtol=1e-6,
        atol=1e-9,
        asks="a function fisher_direction(X, y) of an (m, n) array and labels ±1 that returns "
             "the direction of Algorithm 8 as a unit vector (1-D array of length n) pointing "
             "from the negative towards the positive class.",
        hint="Estimate the class means and the pooled within-class covariance Σ̂ (LKC eq. "
             "3.39, Algorithm 8), solve Σ̂ w = μ̂₊ − μ̂₋ and divide w by its length.",
        mistakes=[
            (_mean_difference,
             "That is the direction between the class means, the nearest-mean rule's: Fisher "
             "also accounts for the shape of the classes through the pooled covariance, "
             "w ∝ Σ̂⁻¹(μ̂₊ − μ̂₋) (LKC eq. 3.37)."),
            (_times_covariance,
             "You multiplied the mean difference by Σ̂: the direction uses its inverse, so "
             "solve Σ̂ w = μ̂₊ − μ̂₋ (LKC eq. 3.37, Algorithm 8)."),
            (_not_normalised,
             "The direction is right but not of unit length: divide it by its norm."),
            (lambda X, y: -_fisher_direction(X, y),
             "It points the wrong way: positives must get the larger values, ⟨w, μ̂₊ − μ̂₋⟩ > 0."),
        ],
        inputs=("fisher_direction(X, y)", "unit length", "labels $\\pm 1$",
                "\\hat{\\boldsymbol\\mu}_{+1} - \\hat{\\boldsymbol\\mu}_{-1}"),
    ),
]
