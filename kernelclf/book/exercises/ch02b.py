"""Book chapter 02b (``book/02b_string_kernels.md``): checkers for the string-kernel exercises."""
from __future__ import annotations

from kernelclf.book.exercises._core import Exercise

LAM = 0.5

EXERCISES = [
    Exercise(
        label="ch02b-ex-1",
        kind="number",
        # ca, ct, at with extents (2, 2), (3, 4), (2, 3) in "cat" / "cart" (LKC eq. 2.28)
        solution=LAM ** (2 + 2) + LAM ** (3 + 4) + LAM ** (2 + 3),
        rtol=1e-9,
        asks='k_2("cat", "cart") for lambda = 0.5, computed by hand (a number).',
        hint="List the subsequences of length 2 of \"cat\", find each in \"cart\", and weight "
             "every pair of occurrences by λ^(extent in u + extent in v) (LKC eq. 2.28, "
             "section ch02b-ssk).",
        mistakes=[
            (LAM ** 7, "0.0078125 is k_3, the single common subsequence \"cat\": the exercise "
                       "asks for n = 2, where ca, ct and at all count (LKC eq. 2.28)."),
            (LAM ** 4 + LAM ** 5, "You left out \"ct\", which is a subsequence of both strings "
                                  "with a gap (extents 3 and 4): subsequences need not be "
                                  "contiguous (LKC Def. 2.24)."),
            (LAM ** 2 + LAM ** 3 + LAM ** 2, "You weighted each match by the extent in one "
                                              "string only: the weight is λ to the sum of both "
                                              "extents (LKC eq. 2.28)."),
        ],
    ),
    Exercise(
        label="ch02b-ex-2",
        kind="choice",
        options=["rare transitions", "frequent transitions", "all transitions equally"],
        solution="rare transitions",
        asks='one of "rare transitions", "frequent transitions", "all transitions equally".',
        hint="Write the Fisher score of a Markov chain, n_ab(s)/A(a, b), and take the inner "
             "product of two scores (LKC Def. 2.27, eq. 2.33, with I replaced by the identity).",
        mistakes=[
            ("frequent transitions", "The count n_ab is divided by A(a, b), so each shared "
                                     "transition is weighted by A(a, b)^(-2): a small "
                                     "probability gives a large weight (LKC eq. 2.33)."),
            ("all transitions equally", "That holds only for a uniform chain (A ≡ 1/4); in "
                                        "general the weight A(a, b)^(-2) differs between "
                                        "transitions (LKC eq. 2.33)."),
        ],
    ),
]
