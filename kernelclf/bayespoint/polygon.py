"""Billiards and centres in a flat convex polygon: Ruján's two-dimensional pictures.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); Ruján & Marchand (RM)
§18.2, Figs 18.1-18.4; LKC §2.4.3 (the SVM as the centre of the largest inscribed ball).

A flat polygon stands in for version space: its points are classifiers, a test
input is a direction, and the Bayes vote for it changes sign on the line that halves
the polygon's area. These helpers compute the area centroid, a ball's trajectory
and its centre of mass, halving lines and the largest inscribed circle.
"""
from __future__ import annotations

import numpy as np

__all__ = ["polygon_billiard", "polygon_centroid", "clip_polygon", "polygon_bisector",
           "polygon_inscribed_circle"]


def polygon_centroid(vertices):
    """Area centroid of a simple polygon (shoelace formula). Returns ``(centroid, area)``."""
    P = np.asarray(vertices, dtype=float)
    x, yv = P[:, 0], P[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(yv, -1)
    cross = x * y1 - x1 * yv
    A = cross.sum() / 2.0
    cx = ((x + x1) * cross).sum() / (6.0 * A)
    cy = ((yv + y1) * cross).sum() / (6.0 * A)
    return np.array([cx, cy]), abs(A)


def polygon_billiard(vertices, start, direction, n_bounces=1000):
    """A ball bouncing in a convex polygon (RM Fig. 18.4).

    Returns ``(points, centre)``: the bounce points and the trajectory's
    centre of mass (chord midpoints weighted by chord length), which tends
    to the polygon's centroid for an ergodic trajectory.
    """
    P = np.asarray(vertices, dtype=float)
    E = np.roll(P, -1, axis=0) - P
    N = np.stack([E[:, 1], -E[:, 0]], axis=1)
    # orient normals inwards
    cen = P.mean(axis=0)
    sgn = np.sign(np.einsum("ij,ij->i", cen - P, N))
    N = N * sgn[:, None]
    N /= np.linalg.norm(N, axis=1)[:, None]
    x = np.asarray(start, dtype=float).copy()
    v = np.asarray(direction, dtype=float)
    v = v / np.linalg.norm(v)
    pts = [x.copy()]
    tot, acc, last = 0.0, np.zeros(2), -1
    for _ in range(int(n_bounces)):
        dist = np.einsum("ij,ij->i", x - P, N)  # >= 0 inside
        vel = N @ v
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(vel < 0, -dist / vel, np.inf)
        if last >= 0:
            t[last] = np.inf
        c = int(np.argmin(t))
        xn = x + t[c] * v
        L = t[c]
        acc += L * (x + xn) / 2.0
        tot += L
        v = v - 2.0 * (v @ N[c]) * N[c]
        x = xn
        last = c
        pts.append(x.copy())
    return np.array(pts), acc / tot


def clip_polygon(vertices, normal, offset):
    """Part of a convex polygon with ``<normal, x> >= offset`` (one Sutherland–Hodgman pass)."""
    P = np.asarray(vertices, dtype=float)
    s = P @ np.asarray(normal, dtype=float) - offset
    out = []
    n = len(P)
    for i in range(n):
        j = (i + 1) % n
        if s[i] >= 0:
            out.append(P[i])
        if (s[i] >= 0) != (s[j] >= 0):
            t = s[i] / (s[i] - s[j])
            out.append(P[i] + t * (P[j] - P[i]))
    return np.array(out).reshape(-1, 2)


def polygon_bisector(vertices, normal, tol=1e-12):
    """Offset ``b`` such that the line ``<normal, x> = b`` halves the polygon's area.

    In Ruján's 2-D picture (RM §18.2, Fig. 18.1) this is the Bayes decision
    line for test direction ``normal``: half of the version space votes each
    way.  Found by bisection on ``b``.
    """
    P = np.asarray(vertices, dtype=float)
    normal = np.asarray(normal, dtype=float)
    _, A = polygon_centroid(P)
    proj = P @ normal
    lo, hi = proj.min(), proj.max()
    while hi - lo > tol * max(1.0, abs(hi) + abs(lo)):
        mid = 0.5 * (lo + hi)
        Q = clip_polygon(P, normal, mid)
        area = polygon_centroid(Q)[1] if len(Q) >= 3 else 0.0
        if area > A / 2:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def polygon_inscribed_circle(vertices):
    """Largest inscribed circle of a convex polygon (Chebyshev centre, an LP).

    The 2-D analogue of the hard-margin SVM, whose weight vector is the
    centre of the largest ball inside version space (LKC §2.4.3).  Returns
    ``(centre, radius)``.
    """
    from ..optim import solve_lp

    P = np.asarray(vertices, dtype=float)
    E = np.roll(P, -1, axis=0) - P
    N = np.stack([E[:, 1], -E[:, 0]], axis=1)
    N /= np.linalg.norm(N, axis=1)[:, None]
    cen = P.mean(axis=0)
    sgn = np.sign(np.einsum("ij,ij->i", cen - P, N))
    N = N * sgn[:, None]  # inward unit normals
    # maximise r subject to <N_k, x - P_k> >= r
    A2 = np.hstack([-N, np.ones((len(P), 1))])
    b2 = -np.einsum("ij,ij->i", N, P)
    sol = solve_lp(np.array([0.0, 0.0, -1.0]), A2=A2, b2=b2, l=[-np.inf, -np.inf, 0.0])
    return sol.x[:2], float(sol.x[2])
