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
        alternatives=[
            # on the prescribed run (sinc data, 40 iterations) both traces happen to rise at
            # every step, so "both" answers the question as asked about that run
            ("both", "True of this run: both traces rise at every one of the 40 steps. Only "
                     "one of the two updates is guaranteed to, on any data: which one, and "
                     "what in its derivation promises it (LKC App. B.8)?"),
        ],
        asks="which update is guaranteed never to decrease the log evidence, on any data: one "
             "of 'em', 'mackay', 'both', 'neither'.",
        hint="Look at np.diff of each evidence trace over the 40 iterations, and ask which of "
             "the two updates is derived so that a step cannot lower the evidence "
             "(LKC App. B.8, eq. B.22 and B.23).",
        mistakes=[
            ("mackay", "The MacKay update (eq. B.23) sets a derivative of the evidence to zero "
                       "and rearranges it into a fixed point; nothing in that derivation "
                       "promises a rise at every step. What does the other update rest on "
                       "(LKC App. B.8)?"),
            ("neither", "Look at np.diff of the two evidence traces: at least one of them never "
                        "goes down in the 40 iterations (LKC App. B.8)."),
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
