"""Book chapter 08 (``book/08_relevance_vector_machines.md``): checkers for the RVM exercises."""
from __future__ import annotations

from kernelclf.book.exercises._core import Exercise

_THETA = 0.5   # the fixed prior variance of ch08-ex-3

EXERCISES = [
    Exercise(
        label="ch08-ex-1",
        kind="choice",
        options=["em", "mackay", "both", "neither"],
        solution="em",
        asks="which update never decreases the log evidence: one of 'em', 'mackay', 'both', "
             "'neither'.",
        hint="Look at np.diff of each evidence trace; EM's guarantee comes from its being an "
             "EM algorithm with the weights as hidden variables (LKC App. B.8, eq. B.22).",
        mistakes=[
            ("mackay", "The MacKay update (eq. B.23) gets further but carries no monotonicity "
                       "guarantee; it is the EM update (eq. B.22) that never decreases the "
                       "evidence."),
            ("both", "Only EM (eq. B.22) is guaranteed monotone; the MacKay fixed point update "
                     "(eq. B.23) is not an EM step."),
        ],
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
    ),
]
