"""Book chapter 07 (``book/07_gaussian_processes.md``): checkers for the Gaussian-process exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

#: the chapter's six training inputs (section on the evidence), and the noise of ch07-ex-4
_X6 = np.array([0.5, 1.8, 3.0, 4.6, 6.0, 7.4])
_NOISE = 0.05


def _target_variance_at(i, noise=_NOISE, latent=False):
    # eq. ch07-predictive (LKC eq. 3.14) at the training input x_i, RBF of width 1, amplitude 1
    G = np.exp(-0.5 * (_X6[:, None] - _X6[None, :]) ** 2)
    k = G[:, i]
    v = 1.0 - k @ np.linalg.solve(G + noise * np.eye(len(_X6)), k)
    return float(v if latent else v + noise)

EXERCISES = [
    Exercise(
        label="ch07-ex-1",
        kind="number",
        solution=1.0 + 0.05,
        rtol=1e-6,
        asks="the predictive variance of a target far from the six points, for the RBF kernel "
             "of amplitude 1 and noise variance 0.05 (one number).",
        hint="Far from the data k_x -> 0 in eq. (ch07-predictive) (LKC eq. 3.14): what is left "
             "of k(x, x) + sigma_t^2 - k_x'(G + sigma_t^2 I)^{-1} k_x?",
        mistakes=[
            (1.0, "That is the latent variance k(x, x) only; a target adds the noise "
                  "sigma_t^2 = 0.05 (LKC eq. 3.14)."),
            (0.05, "That is the noise alone; far from the data the latent variance returns to "
                   "its prior value k(x, x) = 1 as well (LKC eq. 3.14)."),
            (0.0, "The variance does not vanish away from the data: k_x -> 0 removes the "
                  "subtracted term, leaving k(x, x) + sigma_t^2 (LKC eq. 3.14)."),
        ],
        inputs=("six points", "RBF kernel of amplitude 1", "noise variance 0.05",
                "far away from all training inputs"),
    ),
    Exercise(
        label="ch07-ex-3",
        kind="choice",
        options=["map", "mackay", "williams-barber"],
        solution="williams-barber",
        asks="which predictive is closest to the brute-force average of the logistic over the "
             "Laplace posterior: one of 'map', 'mackay', 'williams-barber'.",
        hint="Compare the largest absolute difference of each predictive to the numerical "
             "average on the grid (section 'Classification with the Laplace approximation', "
             "LKC eq. 3.22).",
        mistakes=[
            ("map", "The plug-in pi(f_hat) ignores the latent variance altogether, so it is the "
                    "least accurate, furthest off where the variance is large (LKC eq. 3.22)."),
            ("mackay", "MacKay's probit rescaling replaces the average by one rescaled "
                       "sigmoid; the other predictive that uses the latent variance fits the "
                       "logistic more closely. Compute the largest absolute difference to the "
                       "numerical average for all three (LKC eq. 3.22)."),
        ],
        inputs=("`predictive='map'`", "`'mackay'`", "`'williams-barber'`", "moons grid",
                "brute-force numerical average"),
    ),
    Exercise(
        label="ch07-ex-4",
        kind="number",
        solution=lambda: _target_variance_at(2),
        rtol=1e-6,
        asks="the predictive variance of a target at the training input X6[2] (x = 3.0) for "
             "the RBF kernel of width and amplitude 1 and noise variance 0.05 (one number).",
        hint="Evaluate v(x) = k(x, x) + σ_t² − k_x'(G + σ_t² I)⁻¹ k_x of eq. ch07-predictive "
             "(LKC eq. 3.14) at x = X6[2], with G the Gram matrix of the six inputs; or ask "
             "GaussianProcessRegressor.predict for return_std=True and square it.",
        mistakes=[
            (_NOISE, "σ_t² alone would mean that the latent value at a training input is known "
                     "exactly: with noisy targets the GP does not interpolate, and the latent "
                     "posterior variance stays above zero. Use (G + σ_t² I)⁻¹, not G⁻¹ "
                     "(eq. ch07-predictive)."),
            (lambda: _target_variance_at(2, latent=True),
             "That is the variance of the latent value f(x): the variance of a target adds "
             "the noise σ_t² (eq. ch07-predictive, LKC eq. 3.14)."),
            (1.0 + _NOISE, "That is the prior value k(x, x) + σ_t², the variance far from the "
                           "data: at a training input the data explain part of it "
                           "(eq. ch07-predictive)."),
        ],
        inputs=("X6[2]", "ARDRBF(1.0)", "noise variance 0.05", "predictive variance of a "
                "*target*"),
    ),
]
