"""Book chapter 13 (``book/13_relative_margin_machines.md``): the RMM paper's side forms.

Shivaswamy & Jebara (2010), *Maximum relative margin and data-dependent regularization*
(RMM). The estimators of :mod:`kernelclf.margin.rmm` solve the RMM as the QP eq. 11 (and
its dual eq. 12). This module holds the other forms the paper states, written
independently of those estimators so that they can check them:

* :func:`chebyshev_eta` — §2.2, eq. 1: the largest ``eta`` for which the one-sided
  Chebyshev condition ``E[y f] >= sqrt(eta / (1 - eta)) sqrt(V[y f])`` holds for given
  projections.
* :func:`affine_map_problem` — §2.3, eq. 2: learn an affine map ``A~ = [A b]`` that gives a
  fixed hyperplane ``(w0, b0)`` a large margin ``rho`` and the mapped points a small radius
  ``R`` (a second-order cone program, cvxopt). Lemma 1 says the optimal ``A~`` has rank one.
* :func:`rmm_primal_linear` — eq. 11 for a linear kernel as a plain QP in ``(w, b, xi)``
  (:func:`kernelclf.optim.solve_qp`), the reference the dual forms are compared with.
* :func:`rmm_sdp_dual` and :func:`rmm_dual_value` — §3.2, the dual eq. 9 of the QCQP eq. 8
  and the weight vector eq. 10. As printed, eq. 9 has ``+ B^2/2 sum(lambda)`` and lacks
  the term ``-(alpha'y)^2 / (2 * 1'lambda)``; the Lagrangian of eq. 8 gives

  ``max 1'alpha - 1/2 u'(I + Sigma_l)^{-1} u - (alpha'y)^2 / (2 * 1'lambda) - B^2/2 * 1'lambda``

  with ``u = sum_i alpha_i y_i (x_i - mu_l)`` (erratum; :func:`rmm_dual_value` evaluates both
  forms). :func:`rmm_sdp_dual` maximises the corrected form as a semidefinite program
  (``cvxopt.solvers.sdp``) through its homogeneous form: with ``x~ = [x; 1]``,
  ``M(lambda) = diag(1, ..., 1, 0) + sum_i lambda_i x~_i x~_i'`` and
  ``a = sum_i alpha_i y_i x~_i``, the two middle terms (those with ``u`` and ``alpha'y``)
  together equal ``-1/2 a' M(lambda)^{-1} a`` (a Schur complement), and
  ``t >= 1/2 a'M^{-1}a`` is the linear matrix inequality ``[[M, a], [a', 2t]] >= 0``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["chebyshev_eta", "affine_map_problem", "rmm_primal_linear", "rmm_dual_value",
           "rmm_sdp_dual"]


def chebyshev_eta(projections):
    """RMM eq. 1: the largest ``eta`` with ``mean >= sqrt(eta/(1-eta)) * sd``.

    ``projections`` are the values ``y_i f(x_i)``. Rearranged, eq. 1 holds exactly when
    ``eta <= mean^2 / (mean^2 + var)`` (and for no ``eta > 0`` when the mean is not
    positive); by the one-sided Chebyshev (Cantelli) inequality, a distribution of
    ``y f`` with that mean and variance puts at least this probability on ``y f >= 0``
    when the mean is positive. Population moments (``ddof=0``) of the sample are used.
    """
    z = np.asarray(projections, dtype=float).ravel()
    mean, var = float(z.mean()), float(z.var())
    if mean <= 0:
        return 0.0
    return mean ** 2 / (mean ** 2 + var)


def _cvxopt():
    from cvxopt import matrix, solvers

    return matrix, solvers


def affine_map_problem(X, y, E=1.0, w0=None, b0=0.0, tol=1e-9):
    """RMM §2.3, eq. 2: the affine map that gives a fixed hyperplane a large margin.

    ``min_{A~, R, rho}  -rho + E R``  s.t.  ``y_i (w0' A~ x~_i + b0) >= rho`` and
    ``1/2 ||A~ x~_i||^2 <= R``, with ``A~ = [A b]`` (``d x (d+1)``) and ``x~ = [x; 1]``.
    Solved as a second-order cone program with ``cvxopt.solvers.socp`` (each radius
    constraint is the cone ``||(sqrt(2) A~ x~_i, R - 1)|| <= R + 1``). Eq. 2 has no slacks
    (footnote 2 of the paper), so only a separable sample has a positive margin: on any other
    ``w0' A~ x~ + b0`` is an affine function that errs on some point, and the optimal ``rho``
    is at most 0 (no error is raised).

    Parameters
    ----------
    X : (m, d) array
    y : (m,) array of +-1
    E : float > 0
        Price of the radius.
    w0 : (d,) unit vector or None
        The fixed normal (default ``e_1``).
    b0 : float
        The fixed offset.
    tol : float
        Absolute, relative and feasibility tolerance handed to cvxopt.

    Returns
    -------
    dict with ``A`` (the ``d x (d+1)`` matrix ``A~``), ``rho``, ``R``, ``singular_values``
    of ``A~`` and ``objective``.
    """
    matrix, solvers = _cvxopt()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    m, d = X.shape
    w0 = np.eye(d)[0] if w0 is None else np.asarray(w0, dtype=float)
    w0 = w0 / np.linalg.norm(w0)
    Xt = np.c_[X, np.ones(m)]
    p = d * (d + 1)                      # A~ row-major, then R, then rho
    n = p + 2
    c = np.zeros(n)
    c[p], c[p + 1] = E, -1.0
    # y_i (w0' A~ x~_i + b0) >= rho  ->  rho - y_i w0' A~ x~_i <= y_i b0
    G_l = np.zeros((m, n))
    for i in range(m):
        G_l[i, :p] = -y[i] * np.kron(w0, Xt[i])
        G_l[i, p + 1] = 1.0
    h_l = y * b0
    Gq, hq = [], []
    for i in range(m):
        # s = h - G x = [R + 1; sqrt(2) A~ x~_i; R - 1]
        G = np.zeros((d + 2, n))
        h = np.zeros(d + 2)
        G[0, p], h[0] = -1.0, 1.0
        for r in range(d):
            G[1 + r, r * (d + 1):(r + 1) * (d + 1)] = -np.sqrt(2.0) * Xt[i]
        G[d + 1, p], h[d + 1] = -1.0, -1.0
        Gq.append(matrix(G))
        hq.append(matrix(h))
    opts = {"show_progress": False, "abstol": tol, "reltol": tol, "feastol": tol,
            "maxiters": 200}
    saved = dict(solvers.options)       # socp reads the global options only
    solvers.options.update(opts)
    try:
        sol = solvers.socp(matrix(c), Gl=matrix(G_l), hl=matrix(h_l), Gq=Gq, hq=hq)
    finally:
        solvers.options.clear()
        solvers.options.update(saved)
    if sol["status"] != "optimal":
        raise RuntimeError(f"eq. 2: cvxopt returned {sol['status']!r}")
    x = np.array(sol["x"]).ravel()
    A = x[:p].reshape(d, d + 1)
    return {"A": A, "R": float(x[p]), "rho": float(x[p + 1]),
            "singular_values": np.linalg.svd(A, compute_uv=False),
            "objective": float(c @ x)}


def rmm_primal_linear(X, y, C, B, tol=1e-10):
    """RMM eq. 11 for a linear kernel, as a QP in ``(w, b, xi)``.

    ``min 1/2 ||w||^2 + C sum xi`` s.t. ``y_i (w'x_i + b) >= 1 - xi_i``, ``xi >= 0`` and
    ``-B <= w'x_i + b <= B``, solved by :func:`kernelclf.optim.solve_qp`. Returns
    ``(w, b, objective)``.
    """
    from ..optim import solve_qp

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    m, d = X.shape
    n = d + 1 + m
    H = np.zeros((n, n))
    H[:d, :d] = np.eye(d)
    c = np.r_[np.zeros(d + 1), np.full(m, float(C))]
    Xb = np.c_[X, np.ones(m)]
    cls = np.c_[-y[:, None] * Xb, -np.eye(m)]
    up = np.c_[Xb, np.zeros((m, m))]
    A2 = np.vstack([cls, up, -up])
    b2 = np.r_[-np.ones(m), np.full(2 * m, float(B))]
    lo = np.r_[np.full(d + 1, -np.inf), np.zeros(m)]
    sol = solve_qp(H, c, A2=A2, b2=b2, l=lo, tol=tol)
    z = np.asarray(sol.x).ravel()
    w, b, xi = z[:d], float(z[d]), z[d + 1:]
    return w, b, float(0.5 * w @ w + C * xi.sum())


def rmm_dual_value(alpha, lam, X, y, B, form="corrected"):
    """The objective of the RMM's QCQP dual (eq. 9) at ``(alpha, lambda)``, linear kernel.

    ``form='corrected'``: ``1'a - 1/2 u'(I + S)^{-1} u - (a'y)^2 / (2 * 1'l) - B^2/2 * 1'l``
    (derived from the Lagrangian of eq. 8, see the module docstring); ``'printed'``:
    the paper's eq. 9, ``1'a - 1/2 u'(I + S)^{-1} u + B^2/2 * 1'l``. Here
    ``S = Sigma_lambda`` and ``mu = mu_lambda`` of §3.2 and ``u = sum a_i y_i (x_i - mu)``.
    Also returns ``w`` of eq. 10 and ``b`` from the stationarity condition in ``b``.
    """
    a = np.asarray(alpha, dtype=float)
    lam = np.asarray(lam, dtype=float)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    L = float(lam.sum())
    if L <= 0:
        raise ValueError("the dual needs 1'lambda > 0 (some bound active)")
    mu = lam @ X / L
    S = (X * lam[:, None]).T @ X - L * np.outer(mu, mu)
    u = (a * y) @ (X - mu)
    M = np.eye(X.shape[1]) + S
    w = np.linalg.solve(M, u)                                  # eq. 10
    b = (float(a @ y) - float(lam @ (X @ w))) / L
    quad = 0.5 * float(u @ w)
    if form == "printed":
        value = float(a.sum()) - quad + 0.5 * B ** 2 * L
    elif form == "corrected":
        value = float(a.sum()) - quad - float(a @ y) ** 2 / (2 * L) - 0.5 * B ** 2 * L
    else:
        raise ValueError(f"form must be 'corrected' or 'printed', got {form!r}")
    return value, w, b


def rmm_sdp_dual(X, y, C, B, tol=1e-9):
    """Solve the corrected RMM dual (eq. 9, linear kernel) as an SDP with cvxopt.

    Variables ``(alpha, lambda, t)``: maximise ``1'alpha - B^2/2 * 1'lambda - t`` subject to
    ``0 <= alpha <= C``, ``lambda >= 0`` and ``[[M(lambda), a(alpha)], [a', 2t]] >= 0``
    (see the module docstring). The weight vector and bias are then ``[w; b] =
    M(lambda)^{-1} a``, which is eq. 10. Meant for small samples: the paper (§3.2) says the
    SDP keeps this form from scaling beyond a few hundred points, and here it serves only to
    check the other forms on a few dozen.

    Returns
    -------
    dict with ``alpha``, ``lam``, ``w``, ``b`` and ``value`` (the dual optimum).
    """
    matrix, solvers = _cvxopt()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    m, d = X.shape
    Xt = np.c_[X, np.ones(m)]
    k = d + 2                           # LMI size
    n = 2 * m + 1
    c = np.r_[-np.ones(m), np.full(m, 0.5 * B ** 2), 1.0]
    # linear: -alpha <= 0, alpha <= C, -lambda <= 0
    G_l = np.zeros((3 * m, n))
    G_l[:m, :m] = -np.eye(m)
    G_l[m:2 * m, :m] = np.eye(m)
    G_l[2 * m:, m:2 * m] = -np.eye(m)
    h_l = np.r_[np.zeros(m), np.full(m, float(C)), np.zeros(m)]
    # LMI: h - sum_j x_j G_j >= 0 with h = [[P, 0], [0, 0]]
    h_s = np.zeros((k, k))
    h_s[:d, :d] = np.eye(d)
    G_s = np.zeros((k * k, n))
    for i in range(m):
        Gi = np.zeros((k, k))
        Gi[:d + 1, d + 1] = Gi[d + 1, :d + 1] = -y[i] * Xt[i]
        G_s[:, i] = Gi.ravel(order="F")
        Gl_ = np.zeros((k, k))
        Gl_[:d + 1, :d + 1] = -np.outer(Xt[i], Xt[i])
        G_s[:, m + i] = Gl_.ravel(order="F")
    Gt = np.zeros((k, k))
    Gt[d + 1, d + 1] = -2.0
    G_s[:, 2 * m] = Gt.ravel(order="F")
    opts = {"show_progress": False, "abstol": tol, "reltol": tol, "feastol": tol,
            "maxiters": 200}
    sol = solvers.sdp(matrix(c), Gl=matrix(G_l), hl=matrix(h_l), Gs=[matrix(G_s)],
                      hs=[matrix(h_s)], options=opts)
    if sol["status"] != "optimal":
        raise RuntimeError(f"eq. 9 (SDP): cvxopt returned {sol['status']!r}")
    x = np.array(sol["x"]).ravel()
    alpha, lam = x[:m], x[m:2 * m]
    P = np.zeros((d + 1, d + 1))
    P[:d, :d] = np.eye(d)
    M = P + (Xt * lam[:, None]).T @ Xt
    a = (alpha * y) @ Xt
    z = np.linalg.lstsq(M, a, rcond=None)[0]
    return {"alpha": alpha, "lam": lam, "w": z[:d], "b": float(z[d]), "value": -float(c @ x)}
