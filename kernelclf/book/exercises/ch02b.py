"""Book chapter 02b (``book/02b_string_kernels.md``): checkers for the string-kernel exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

LAM = 0.5

#: ch02b-ex-5: two strings one letter apart, and the substring lengths asked for
_U, _V = "the cat sat", "the hat sat"
_PS = [1, 2, 3, 4, 5]


def _spectrum_values(normalised=True, binary=False):
    # the p-spectrum kernel (LKC eq. 2.25 with s = p) of _U and _V, normalised (LKC eq. 2.22)
    from kernelclf.kernels import SpectrumKernel, normalize_gram

    out = []
    for p in _PS:
        K = SpectrumKernel(p)([_U, _V])
        if binary:  # one feature per distinct p-mer, present or not
            grams = [{w[i:i + p] for i in range(len(w) - p + 1)} for w in (_U, _V)]
            K = np.array([[len(a & b) for b in grams] for a in grams], dtype=float)
        out.append((normalize_gram(K) if normalised else K)[0, 1])
    return np.array(out)

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
        inputs=('k_2(\\text{"cat"}, \\text{"cart"})', "\\lambda = 0.5"),
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
        inputs=("rare transitions", "frequent transitions", "all transitions equally"),
    ),
    Exercise(
        label="ch02b-ex-5",
        kind="array",
        solution=_spectrum_values,
        rtol=1e-6,
        asks="the normalised p-spectrum kernel values of u and v for p = 1, ..., 5 (an array "
             "of five numbers).",
        hint="Count the contiguous substrings of length p in each string (spaces included, "
             "every occurrence), take k_p(u, v) = Σ_b #b(u) #b(v) and divide by "
             "sqrt(k_p(u, u) k_p(v, v)) (LKC eq. 2.22 and 2.25; SpectrumKernel and "
             "normalize_gram do both).",
        mistakes=[
            (lambda: _spectrum_values(normalised=False),
             "Those are the raw counts k_p(u, v): the exercise asks for the normalised kernel, "
             "k_p(u, v) / sqrt(k_p(u, u) k_p(v, v)) (LKC eq. 2.22)."),
            (lambda: _spectrum_values(binary=True),
             "You counted each distinct substring once: the spectrum kernel multiplies the "
             "numbers of occurrences, #b(u) #b(v), so a substring that occurs twice counts "
             "twice (LKC eq. 2.25)."),
        ],
        inputs=('u, v = "the cat sat", "the hat sat"', "ps_short = [1, 2, 3, 4, 5]",
                "spaces count as symbols", "every occurrence counts",
                r"k_p(u, v)/\sqrt{k_p(u, u)\,k_p(v, v)}"),
    ),
]
