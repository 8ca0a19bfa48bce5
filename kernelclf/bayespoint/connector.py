"""Ruján and Marchand's maximal-margin perceptron as the minimal connector of two convex hulls.

Book chapter 11 (``book/11_kernel_billiard.md``); Ruján & Marchand (RM, in *Advances in
Large Margin Classifiers*, 2000), §18.3, eq. 18.1-18.8, Fig. 18.5.

RM write the maximal-margin ("maximal dead zone") perceptron as the dual of the *minimal
connector* problem (Lampert 1969): find a point ``X_+`` of the convex hull of the positive
examples and a point ``X_-`` of the convex hull of the negative ones that are closest
together (eq. 18.5-18.7). The connector ``w_mm = X_+ - X_-`` is the normal of the
maximal-margin plane, which passes half-way between the two hulls, and only the vertices
with positive convex weights (RM's *active* vertices, the support vectors) enter it.
Without a threshold the same construction finds the point of the hull of the signed
examples ``y_i x_i`` closest to the origin.

Everything is written with kernel values: ``X_+ - X_- = sum_i c_i y_i phi(x_i)`` with
convex weights ``c`` summing to one within each class (eq. 18.5-18.6), so the squared
length ``L^2`` of eq. 18.7 is ``(c * y)' G (c * y)``. The weights are found by the
Mitchell-Dem'yanov-Malozemov iteration: within one class, weight moves from the vertex
that lies furthest along ``w_mm`` (among those in use) to the vertex that lies least far,
by the step that minimises ``L^2`` exactly. It stops when, in both classes, the two
vertices' outputs differ by at most ``tol * L^2``; at the optimum the active vertices
of each class have equal outputs (they satisfy eq. 18.1-18.2 as equalities).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..margin.separability import NotSeparableError, _check_labels

__all__ = ["ConnectorResult", "minimal_connector"]


@dataclass
class ConnectorResult:
    """The minimal connector and the maximal-margin classifier it defines.

    Attributes
    ----------
    weights : (m,) array
        Convex weights ``c_i >= 0`` of eq. 18.5-18.6 (summing to one per class; over all
        examples without a threshold).
    connector : (m,) array
        Signed coefficients ``c_i y_i`` of ``w_mm = X_+ - X_-``.
    length : float
        ``L = ||X_+ - X_-||`` (eq. 18.7).
    alpha : (m,) array
        Coefficients of the canonical hard-margin solution, ``w = 2 w_mm / L^2`` with a
        threshold (``w_mm / L^2`` without), so that ``f(x) = sum_i alpha_i k(x_i, x) +
        intercept`` equals +-1 on the active vertices (the SVM's normalisation).
    intercept : float
        Threshold of ``f``: the plane half-way between the hulls (0 without a threshold).
    margin : float
        Geometric margin ``1 / ||w||``: half the gap ``L`` with a threshold, ``L`` without.
    active : array of int
        Indices with ``c_i > 0`` (RM's active vertices).
    n_iter : int
    converged : bool
    """

    weights: np.ndarray
    connector: np.ndarray
    length: float
    alpha: np.ndarray
    intercept: float
    margin: float
    active: np.ndarray
    n_iter: int
    converged: bool


def minimal_connector(G, y, fit_bias=True, tol=1e-6, max_iter=200_000):
    """Minimal connector of the two classes' convex hulls (RM §18.3, eq. 18.5-18.7).

    Parameters
    ----------
    G : (m, m) array
        Gram matrix ``k(x_i, x_j)``.
    y : (m,) array of -1/+1
    fit_bias : bool
        ``True``: the two hulls (RM's perceptron with thresholds ``b_{+1}, b_{-1}``,
        eq. 18.1-18.4). ``False``: the hull of ``y_i phi(x_i)`` against the origin (a plane
        through the origin, as the book's SVMs without bias).
    tol : float
        Stop when within each group the largest and smallest outputs of the vertices
        differ by at most ``tol * L^2`` (relative duality gap).
    max_iter : int

    Returns
    -------
    ConnectorResult

    Raises
    ------
    NotSeparableError
        When the hulls meet (``L`` reaches 0): no maximal-margin plane exists.
    """
    G = np.asarray(G, dtype=float)
    m = G.shape[0]
    y = _check_labels(y, m)
    groups = [np.flatnonzero(y > 0), np.flatnonzero(y < 0)] if fit_bias else [np.arange(m)]
    if any(len(g) == 0 for g in groups):
        raise ValueError("both classes must be present")
    c = np.zeros(m)
    for g in groups:
        c[g] = 1.0 / len(g)
    u = G @ (c * y)  # outputs <w_mm, phi(x_i)>
    kd = np.diag(G)
    converged = False
    for it in range(int(max_iter)):
        grad = y * u
        L2 = float((c * y) @ u)
        if L2 <= 1e-14 * max(float(kd.max()), 1e-300):
            raise NotSeparableError("the convex hulls meet: the sample is not separable "
                                    "(by a plane with threshold)" if fit_bias else
                                    "the hull of the signed examples contains the origin")
        best = None
        for g in groups:
            gg = grad[g]
            lo = g[int(np.argmin(gg))]
            used = g[c[g] > 0]
            up = used[int(np.argmax(grad[used]))]
            gap = grad[up] - grad[lo]
            if best is None or gap > best[0]:
                best = (gap, up, lo)
        gap, up, lo = best
        if gap <= tol * L2:
            converged = True
            break
        d2 = kd[up] + kd[lo] - 2.0 * y[up] * y[lo] * G[up, lo]
        t = min(c[up], gap / d2) if d2 > 0 else c[up]
        c[up] -= t
        c[lo] += t
        u += t * (y[lo] * G[:, lo] - y[up] * G[:, up])
    n_iter = it + 1 if not converged else it
    a = c * y
    u = G @ a
    L2 = float(a @ u)
    if fit_bias:
        top = float(np.min(u[y > 0]))  # b_{+1} of eq. 18.1
        bottom = float(np.max(u[y < 0]))  # b_{-1} of eq. 18.2
        scale = 2.0 / (top - bottom) if top > bottom else 2.0 / L2
        alpha, intercept = scale * a, -scale * 0.5 * (top + bottom)
    else:
        alpha, intercept = a / float(np.min(y * u)), 0.0
    margin = 1.0 / np.sqrt(float(alpha @ G @ alpha))
    return ConnectorResult(weights=c, connector=a, length=float(np.sqrt(L2)), alpha=alpha,
                           intercept=float(intercept), margin=float(margin),
                           active=np.flatnonzero(c > 0), n_iter=n_iter, converged=converged)
