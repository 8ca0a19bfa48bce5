"""Book chapter 07 (``book/07_gaussian_processes.md``): checkers for the Gaussian-process exercises."""
from __future__ import annotations

from kernelclf.book.exercises._core import Exercise

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
    ),
]
