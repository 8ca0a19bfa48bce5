"""The two-variable step of SMO and the constants its engines share.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC App. B.5; Platt (1999);
Fan, Chen & Lin (2005, JMLR 6, §3); Chang & Lin (2011, libsvm, §4.1).

With the pair ``(i, j)`` chosen, SMO minimises the dual along the one direction that
keeps ``s_i a_i + s_j a_j`` fixed: a Newton step of length ``delta`` (the gradients
``G_i, G_j`` over the curvature ``quad = Q_ii + Q_jj - 2 s_i s_j Q_ij``), clipped to the
box ``[0, C_i] x [0, C_j]`` as libsvm clips it. ``pair_step`` is that step and
``bound_flags`` the "up"/"low" membership of a variable after it. The NumPy engine
(:mod:`kernelclf.margin.smo.loops`) calls them as Python functions, the compiled engine
(:mod:`kernelclf.margin.smo.compiled`) as their inlined numba-compiled twins
(``pair_step_c``, ``bound_flags_c``): one definition, the same floating-point operations.
"""
from __future__ import annotations

from ..._jit import HAVE_NUMBA

if HAVE_NUMBA:
    from ..._jit import njit as _njit

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo

#: the curvature floor of the pair step (libsvm's TAU)
TAU = 1e-12
#: shrinking rounds without a new smallest gap of the shrunk problem before every
#: variable is brought back (kernelclf.margin.smo, "Shrinking")
PATIENCE = 10
# how a call of a compiled loop ends
DONE, MAXITER, NEED, CALLBACK, UNBOUNDED, STALLED = range(6)


def pair_step(ai, aj, Ci, Cj, Gi, Gj, quad, opposite):
    """The new ``(a_i, a_j)`` after SMO's step on the pair (libsvm's clipping).

    ``opposite``: ``s_i != s_j`` (then ``a_i - a_j`` is kept), else ``a_i + a_j`` is
    kept. ``quad`` is the curvature along the step, at least ``TAU``.
    """
    if opposite:
        delta = (-Gi - Gj) / quad
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0:
            if aj < 0:
                aj = 0.0
                ai = diff
        elif ai < 0:
            ai = 0.0
            aj = -diff
        if diff > Ci - Cj:
            if ai > Ci:
                ai = Ci
                aj = Ci - diff
        elif aj > Cj:
            aj = Cj
            ai = Cj + diff
    else:
        delta = (Gi - Gj) / quad
        total = ai + aj
        ai -= delta
        aj += delta
        if total > Ci:
            if ai > Ci:
                ai = Ci
                aj = total - Ci
        elif aj < 0:
            aj = 0.0
            ai = total
        if total > Cj:
            if aj > Cj:
                aj = Cj
                ai = total - Cj
        elif ai < 0:
            ai = 0.0
            aj = total
    return ai, aj


def bound_flags(s, a, C):
    """``(up, low)``: whether ``s a`` may still grow, and shrink, inside ``[0, C]``."""
    if s > 0:
        return a < C, a > 0
    return a > 0, a < C


if HAVE_NUMBA:
    pair_step_c = _njit(cache=True, nogil=True, inline="always")(pair_step)
    bound_flags_c = _njit(cache=True, nogil=True, inline="always")(bound_flags)
else:  # pragma: no cover - Pyodide
    pair_step_c = pair_step
    bound_flags_c = bound_flags
