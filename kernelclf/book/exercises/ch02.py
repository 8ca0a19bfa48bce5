"""Book chapter 02 (``book/02_kernels.md``): checkers for the vector-kernel exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _largest_fitting_p(numbers_per_image):
    from kernelclf.kernels import feature_dimension

    fits = [p for p in range(1, 8) if feature_dimension(256, p, complete=True) <= numbers_per_image]
    return max(fits)


#: the two points of ch02-ex-1
_U, _V = np.array([0.0, 0.0]), np.array([1.0, 2.0])
_D2 = float(np.sum((_U - _V) ** 2))


def _smallest_eigenvalue():
    # Gram matrix of k(u, v) = ||u - v||^2 on the two points: [[0, d2], [d2, 0]]
    G = np.array([[0.0, _D2], [_D2, 0.0]])
    return float(np.linalg.eigvalsh(G)[0])


EXERCISES = [
    Exercise(
        label="ch02-ex-1",
        kind="number",
        solution=_smallest_eigenvalue,
        rtol=1e-9,
        asks="the smallest eigenvalue of the 2 × 2 Gram matrix of k(u, v) = ‖u − v‖² on the "
             "two points of two_points (a number).",
        hint="Write the Gram matrix entry by entry: k(x, x) on the diagonal, k(u, v) off it; "
             "a symmetric 2 × 2 matrix [[a, b], [b, a]] has eigenvalues a ± b "
             "(LKC Def. 2.15 and Proposition 2.18, section ch02-gram).",
        mistakes=[
            (_D2, "That is the largest eigenvalue: the matrix [[0, d], [d, 0]] has two, of "
                  "opposite signs, and the smallest decides whether it is PSD "
                  "(LKC Proposition 2.18)."),
            (0.0, "0 is the diagonal, k(x, x) = ‖x − x‖²: the eigenvalues of the 2 × 2 Gram "
                  "matrix come from the off-diagonal entry too (LKC Def. 2.15)."),
            (-float(np.sqrt(_D2)), "That is minus the distance ‖u − v‖; the kernel is the "
                                   "squared distance, and that is what fills the Gram "
                                   "matrix."),
        ],
        inputs=("two_points = np.array([[0.0, 0.0], [1.0, 2.0]])",
                r"k(\mathbf{u}, \mathbf{v}) = \lVert\mathbf{u} - \mathbf{v}\rVert^2"),
    ),
    Exercise(
        label="ch02-ex-3",
        kind="number",
        # 8 GB / 8 bytes = 1e9 numbers for 1000 images: 1e6 features per image (LKC Table 2.1)
        solution=lambda: _largest_fitting_p(8e9 / 8 / 1000),
        integer=True,
        asks="the largest degree p (an integer from 1 to 7) whose explicit complete-polynomial "
             "features of 1000 images with N = 256 fit into 8 GB at 8 bytes per number.",
        hint="Count the features with C(N + p, p) (feature_dimension(256, p, complete=True), "
             "LKC Table 2.1 / Example 2.22) and compare with 8e9 / (8 · 1000) per image.",
        mistakes=[
            (lambda: _largest_fitting_p(8e9 / 8),
             "You let one image use all of the memory: the 1e9 numbers are shared by 1000 "
             "images, so each may have at most 1e6 features (section ch02-poly-features)."),
            (lambda: _largest_fitting_p(8e9 / 1000),
             "You counted bytes as numbers: each number takes 8 bytes, so 8 GB hold 1e9 "
             "numbers, 1e6 per image (section ch02-poly-features)."),
        ],
        inputs=("N = 256", "p = 1, \\dots, 7", "1000 images", "8 GB", "8 bytes per number",
                "complete polynomial kernel"),
    ),
    Exercise(
        label="ch02-ex-4",
        kind="number",
        # unit feature vectors at 45 degrees: sqrt(2 - 2 cos(pi/4)) (LKC eq. 2.22)
        solution=float(np.sqrt(2.0 - np.sqrt(2.0))),
        rtol=1e-4,
        asks="the feature-space distance of the normalised linear kernel between (1, 0) and "
             "(1, 1) (a number).",
        hint="Normalising puts both feature vectors on the unit sphere; their distance is "
             "sqrt(2 - 2 cos of the angle) (LKC eq. 2.22, chapter 01 eq. ch01-eq-feature-distance).",
        mistakes=[
            (2.0 - np.sqrt(2.0), "That is the squared distance 2 - 2 cos: take its square root "
                                 "(chapter 01 eq. ch01-eq-feature-distance)."),
            (1.0, "1 is the distance of the raw inputs (1, 0) and (1, 1): the normalised kernel "
                  "first divides each by its length (LKC eq. 2.22)."),
        ],
        inputs=("\\mathbf{x} = (1, 0)", "\\tilde{\\mathbf{x}} = (1, 1)", "Normalized(Linear())"),
    ),
]
