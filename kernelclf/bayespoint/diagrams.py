"""Diagrams of the billiard's geometry, drawn by the code that the billiards use.

Book chapter 11 (``book/11_kernel_billiard.md``); TR 99-11 Figs 8-10 (App. A), RM Figs
18.5 and 18.7-18.10 (Ruján & Marchand, §18.3-18.5).

Each function draws one diagram on a given matplotlib axis and returns the numbers it
drew, so that the chapter can check them: the flight and reflection use
:func:`~kernelclf.bayespoint.billiard.reflect`, the weighted addition
:func:`~kernelclf.bayespoint.billiard.slerp_add`, and the maximal-margin picture
:func:`~kernelclf.bayespoint.connector.minimal_connector`. All are two-dimensional
sections: a great circle of the unit sphere, or a plane cut of the version-space cone.
"""
from __future__ import annotations

import numpy as np

from .billiard import reflect, slerp_add
from .connector import minimal_connector

__all__ = ["draw_chord_and_arc", "draw_reflection", "draw_point_mirror",
           "draw_spherical_addition", "draw_semi_transparent_mirror", "draw_onion_flight",
           "draw_minimal_connector"]

_CIRCLE = np.linspace(0, 2 * np.pi, 361)


def _unit(t):
    return np.array([np.cos(t), np.sin(t)])


def _circle(ax, **kw):
    ax.plot(np.cos(_CIRCLE), np.sin(_CIRCLE), color="0.7", lw=0.8, **kw)


def _finish(ax, title, lim=1.3):
    ax.set(aspect="equal", xlim=(-lim, lim), ylim=(-lim, lim), title=title,
           xlabel="first coordinate", ylabel="second coordinate")


def draw_chord_and_arc(ax, theta=1.2):
    """TR Fig. 8: a flight of angle ``theta`` on the unit circle, its arc and its chord.

    LKC/BPM weight a flight by its chord ``2 sin(theta/2)`` (``weighting="chord"``), RM
    eq. 18.27 by its arc ``theta`` (``weighting="arc"``). Returns ``(arc, chord)``.
    """
    b0, b1 = _unit(0.3), _unit(0.3 + theta)
    _circle(ax)
    t = np.linspace(0.3, 0.3 + theta, 100)
    ax.plot(np.cos(t), np.sin(t), lw=2.5, color="tab:orange", label=f"arc {theta:.2f}")
    chord = float(np.linalg.norm(b1 - b0))
    ax.plot(*np.c_[b0, b1], lw=2, ls="--", color="tab:blue", label=f"chord {chord:.2f}")
    for p, name in ((b0, "b"), (b1, "b'")):
        ax.plot(*p, "ko", ms=4)
        ax.annotate(name, p, xytext=(6, 0), textcoords="offset points")
    ax.plot([0, b0[0], 0, b1[0]], [0, b0[1], 0, b1[1]], color="0.5", lw=0.6)
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "TR Fig. 8: chord and arc")
    return theta, chord


def draw_reflection(ax, normal=(0.2, 1.0), start=(-0.9, 0.9), direction=(0.45, -0.8)):
    """TR Fig. 9 / RM Fig. 18.7: flight to a plane and specular reflection on it.

    With ``d = <W, X>`` and ``V_perp = <V, X>`` the flight time is ``tau = -d / V_perp``
    (RM Fig. 18.7; LKC eq. 3.31 with its minus sign, E12); the ball hits at ``W + tau V``
    and leaves along the mirrored direction, computed by
    :func:`~kernelclf.bayespoint.billiard.reflect` with the identity as Gram matrix.
    Returns ``(tau, v_in, v_out)``.
    """
    x = np.asarray(normal, float)
    x = x / np.linalg.norm(x)
    W, V = np.asarray(start, float), np.asarray(direction, float)
    tau = -(W @ x) / (V @ x)
    hit = W + tau * V
    # reflect() works on dual coefficients; in the basis (x, x_perp) the wall's example is
    # the first basis vector, so its Gram matrix is the identity
    Q = np.c_[x, [-x[1], x[0]]]
    beta = Q.T @ V
    beta_out, _ = reflect(beta, beta.copy(), 0, np.eye(2)[:, 0], 1.0)
    v_out = Q @ beta_out
    s = np.linspace(-1.4, 1.4, 2)
    ax.plot(-x[1] * s, x[0] * s, color="tab:blue", lw=2, label="plane <w, x> = 0")
    ax.annotate("", xy=0.5 * x, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="k"))
    ax.annotate("x", 0.5 * x, xytext=(4, 0), textcoords="offset points")
    ax.plot(*np.c_[W, hit], color="tab:orange", lw=2, label=f"flight, tau = {tau:.2f}")
    ax.annotate("", xy=hit + 0.8 * v_out, xytext=hit,
                arrowprops=dict(arrowstyle="->", color="tab:green", lw=2))
    ax.plot([], [], color="tab:green", label="reflected direction")
    ax.plot(*W, "ko", ms=4)
    ax.annotate("W", W, xytext=(-12, 4), textcoords="offset points")
    ax.plot(*hit, "ks", ms=4)
    ax.annotate("W + tau V", hit, xytext=(-6, -14), textcoords="offset points", ha="right")
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "TR Fig. 9 / RM Fig. 18.7: one bounce", lim=1.4)
    return float(tau), V, v_out


def draw_point_mirror(ax, w_angle=1.2, x_angle=0.2):
    """TR Fig. 10 (E15): mirroring an example's plane at the point ``w`` of the sphere.

    The mirrored example is ``x' = 2 <w, x> w - x`` (E15: TR §4.3 and App. A.3 print it
    without the last ``w``; A.3's check that ``x'`` has unit length needs it): the
    reflection of ``x`` through the axis ``w``. Its plane meets the circle where the
    plane of ``x`` does, point-mirrored at ``w``. Returns ``(x, x_mirrored)``.
    """
    w, x = _unit(w_angle), _unit(x_angle)
    xm = 2 * (w @ x) * w - x
    _circle(ax)
    for v, col, name in ((x, "tab:blue", "x"), (xm, "tab:red", "x'")):
        p = np.array([-v[1], v[0]])  # the plane's trace on the circle: +-p
        ax.plot([-1.25 * p[0], 1.25 * p[0]], [-1.25 * p[1], 1.25 * p[1]], color=col, lw=1.5,
                label=f"plane of {name}")
        ax.annotate("", xy=0.6 * v, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=col))
        ax.annotate(name, 0.6 * v, xytext=(4, 2), textcoords="offset points", color=col)
    ax.plot([0, w[0]], [0, w[1]], color="k", lw=1)
    ax.plot(*w, "k*", ms=10, label="w")
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "TR Fig. 10: mirrored example")
    return x, xm


def draw_spherical_addition(ax, phi=1.4, wa=2.0, wb=1.0):
    """RM Fig. 18.8: weighted addition of two unit vectors along the great circle.

    The sum ``c`` of ``a`` (weight ``wa``) and ``b`` (weight ``wb``) lies at the angle
    ``phi_1 = wb / (wa + wb) phi`` from ``a`` (RM eq. 18.27;
    :func:`~kernelclf.bayespoint.billiard.slerp_add`). Returns ``(phi_1, c)``.
    """
    a, b = _unit(0.0), _unit(phi)
    c = slerp_add(a, b, wa, wb)
    phi1 = float(np.arccos(np.clip(c @ a, -1, 1)))
    _circle(ax)
    for v, col, name in ((a, "tab:blue", f"a (weight {wa:g})"),
                         (b, "tab:orange", f"b (weight {wb:g})"),
                         (c, "tab:green", f"c (weight {wa + wb:g})")):
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=col, lw=2))
        ax.plot([], [], color=col, label=name)
    t = np.linspace(0, phi1, 50)
    ax.plot(0.3 * np.cos(t), 0.3 * np.sin(t), color="tab:green", lw=1)
    ax.annotate(f"phi_1 = {phi1:.2f}", (0.3, 0.12), fontsize=7)
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "RM Fig. 18.8: weighted addition")
    return phi1, c


def draw_semi_transparent_mirror(ax, normal=(0.0, 1.0)):
    """RM Fig. 18.9: the light trap's semi-transparent plane.

    A ball on the correct side (``<W, x> > 0``) is reflected; one on the wrong side passes
    through, after which that example is classified correctly. Returns the two outgoing
    directions ``(reflected, passed)``.
    """
    x = np.asarray(normal, float)
    x = x / np.linalg.norm(x)
    ax.plot([-1.3, 1.3], [0, 0], color="tab:blue", lw=3, alpha=0.5,
            label="semi-transparent plane")
    ax.annotate("", xy=0.5 * x, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="k"))
    ax.annotate("x (correct side)", 0.5 * x, xytext=(4, 0), textcoords="offset points",
                fontsize=7)
    hit = np.array([-0.4, 0.0])
    V = np.array([0.6, -0.8])  # from the correct side (V_perp < 0): mirrored
    out = V - 2 * (V @ x) * x
    ax.plot(*np.c_[hit - V, hit, hit + out], color="tab:green", lw=2,
            label="from above: reflected")
    hit2 = np.array([0.6, 0.0])
    U = np.array([0.6, 0.8])  # from the wrong side (V_perp > 0): passes unchanged
    ax.plot(*np.c_[hit2 - U, hit2, hit2 + 0.6 * U], color="tab:red", lw=2,
            label="from below: passes")
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "RM Fig. 18.9: the light trap's mirror")
    return out, U


def draw_onion_flight(ax, n_walls=5, seed=3):
    """RM Fig. 18.10: a flight continued past the first wall (the onion billiard).

    A plane section of version space: each wall ``<w, x_i> = 0`` is a line, the region
    with no error a polygon. Starting inside it, the ray is cut by its crossings with the
    walls; the piece after the ``k``-th crossing lies where ``k`` examples are
    misclassified, and goes into the centre of mass of that shell
    (:func:`~kernelclf.bayespoint.rujan.onion_billiard`). Returns the sorted crossing
    times.
    """
    rng = np.random.default_rng(seed)
    ang = np.sort(rng.uniform(0, 2 * np.pi, n_walls))
    normals = np.c_[np.cos(ang), np.sin(ang)]
    offsets = rng.uniform(0.4, 0.8, n_walls)  # wall i: <n_i, p> <= o_i is the correct side
    s = np.linspace(-2, 2, 2)
    for n, o in zip(normals, offsets):
        p0 = o * n
        d = np.array([-n[1], n[0]])
        ax.plot(p0[0] + s * d[0], p0[1] + s * d[1], color="tab:blue", lw=1)
    start, v = np.zeros(2), _unit(0.5)
    with np.errstate(divide="ignore"):
        t = offsets / (normals @ v)
    t = np.sort(t[t > 0])
    edges = np.r_[0.0, t[:3], t[min(2, len(t) - 1)] + 0.5]
    for k in range(len(edges) - 1):
        a, b = start + edges[k] * v, start + edges[k + 1] * v
        ax.plot(*np.c_[a, b], lw=3, color=f"C{k + 1}", label=f"{k} errors")
    ax.plot(*start, "ko", ms=4)
    ax.legend(fontsize=7, loc="lower left")
    _finish(ax, "RM Fig. 18.10: past the first wall", lim=2.0)
    return t


def draw_minimal_connector(ax, X, y, tol=1e-10):
    """RM Fig. 18.5: the maximal-margin perceptron from the minimal connector.

    Draws the convex hulls of the two classes, the minimal connector ``X_+ - X_-``
    (eq. 18.5-18.7), the maximal-margin line half-way between the hulls with its two
    margin lines, and circles the active vertices. Linear kernel in two dimensions.
    Returns the :class:`~kernelclf.bayespoint.connector.ConnectorResult`.
    """
    from scipy.spatial import ConvexHull

    X = np.asarray(X, float)
    r = minimal_connector(X @ X.T, y, fit_bias=True, tol=tol)
    for s, col in ((1, "tab:blue"), (-1, "tab:red")):
        P = X[y == s]
        ax.scatter(*P.T, s=14, color=col, label=f"class {s:+d}")
        hull = ConvexHull(P)
        V = P[np.r_[hull.vertices, hull.vertices[:1]]]
        ax.plot(*V.T, color=col, lw=0.8)
    Xp = r.weights[y > 0] @ X[y > 0]
    Xm = r.weights[y < 0] @ X[y < 0]
    ax.plot(*np.c_[Xp, Xm], "k-", lw=2, label="minimal connector")
    w = X.T @ r.alpha
    d = np.array([-w[1], w[0]]) / np.linalg.norm(w)
    s = np.linspace(-3, 3, 2)
    for level, ls in ((0, "-"), (1, ":"), (-1, ":")):
        p0 = (level - r.intercept) * w / (w @ w)
        ax.plot(p0[0] + s * d[0], p0[1] + s * d[1], "g" + ls, lw=1.2)
    ax.scatter(*X[r.active].T, s=80, facecolors="none", edgecolors="k",
               label="active vertices")
    lo, hi = X.min(0) - 0.3, X.max(0) + 0.3
    ax.set(xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]), aspect="equal",
           xlabel="first coordinate", ylabel="second coordinate",
           title="RM Fig. 18.5: minimal connector")
    ax.legend(fontsize=7, loc="best")
    return r
