"""Book chapter 10 (``book/10_version_space_and_bayes_point.md``): checkers for its exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise


def _minimax_distance():
    # the worked solution of ch10-ex-3: grid search around the centroid of the chapter's pentagon
    from kernelclf.bayespoint.polygon import polygon_bisector, polygon_centroid

    poly = np.array([[0, 0], [6, 0], [7, 0.8], [2.0, 2.2], [-0.6, 1.2]])
    cen, _ = polygon_centroid(poly)
    normals = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, np.pi, 36, endpoint=False)])
    offsets = np.array([polygon_bisector(poly, n) for n in normals])
    gx, gy = np.meshgrid(np.linspace(cen[0] - 0.5, cen[0] + 0.5, 201),
                         np.linspace(cen[1] - 0.5, cen[1] + 0.5, 201))
    P = np.c_[gx.ravel(), gy.ravel()]
    return float(np.abs(P @ normals.T - offsets).max(axis=1).min())


def _centroid_distance():
    from kernelclf.bayespoint.polygon import polygon_bisector, polygon_centroid

    poly = np.array([[0, 0], [6, 0], [7, 0.8], [2.0, 2.2], [-0.6, 1.2]])
    cen, _ = polygon_centroid(poly)
    normals = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, np.pi, 36, endpoint=False)])
    offsets = np.array([polygon_bisector(poly, n) for n in normals])
    return float(np.abs(normals @ cen - offsets).max())


def _sup_gap_above(eps):
    x = np.linspace(eps, 1, 200_001)[1:]
    return float(np.max(np.arccos(x) / np.pi - (1 - x) / 2))


EXERCISES = [
    Exercise(
        label="ch10-ex-2",
        kind="number",
        solution=0.8 / np.pi,
        atol=2e-3,
        asks="the fraction of spherically distributed inputs on which two unit vectors at "
             "angle θ = 0.8 disagree (a number in [0, 1]).",
        hint="Project the inputs onto the plane of w and v: the two boundary lines cut the "
             "circle into four arcs, and two of them carry different labels (BPM Lemma 13, "
             "Fig. 11).",
        mistakes=[
            (0.4 / np.pi, "That is one arc only: the inputs on which w and v disagree form two "
                          "opposite arcs of angle θ each, 2θ/2π in all (BPM Fig. 11)."),
            ((1 - np.cos(0.8)) / 2, "That is the Euclidean proxy ‖w − v‖²/4 = (1 − cos θ)/2 of "
                                    "BPM Lemma 14, not the disagreement arccos⟨w, v⟩/π of "
                                    "Lemma 13."),
        ],
    ),
    Exercise(
        label="ch10-ex-3",
        kind="number",
        solution=_minimax_distance,
        atol=3e-3,
        asks="the smallest achievable largest distance to the 36 area-halving lines of the "
             "chapter's pentagon (a number).",
        hint="Minimise, over points p, the largest |⟨n_k, p⟩ − b_k| over the 36 halving lines "
             "(normal n_k, offset b_k from polygon_bisector); a fine grid around the centroid "
             "is enough (RM §18.2, Fig. 18.2).",
        mistakes=[
            (_centroid_distance, "That is the centroid's largest distance: the minimax point is "
                                 "another point, found by minimising over a grid (RM Fig. 18.2)."),
            (0.0, "Zero would mean one point lies on every halving line; RM Fig. 18.2 shows "
                  "that they do not all meet, so search for the best point instead."),
        ],
    ),
    Exercise(
        label="ch10-ex-4",
        kind="number",
        solution=lambda: _sup_gap_above(0.1),
        atol=1e-3,
        asks="the largest gap arccos(x)/π − (1 − x)/2 over all inner products x > ε = 0.1 "
             "(a number).",
        hint="The gap f(x) peaks at x* = √(1 − 4/π²) ≈ 0.7712; for ε below x* the supremum is "
             "the peak value (BPM Lemma 14, erratum E13).",
        mistakes=[
            (lambda: float(np.arccos(0.1) / np.pi - 0.45),
             "That is f(ε) itself — the printed κ of BPM Lemma 14 (erratum E13): inner "
             "products above ε reach the peak at x* ≈ 0.7712, where f is larger."),
            (0.11, "0.11 is the paper's rounded constant, not the supremum itself: evaluate "
                   "f at its peak x* = √(1 − 4/π²) (BPM Fig. 12)."),
        ],
    ),
]
