"""The NumPy engine of :func:`kernelclf.margin.smo.solve_smo`: its two loops as vector operations.

Book chapter 04 (``book/04_support_vector_machines.md``); LKC §2.4, App. B.5; Fan, Chen &
Lin (2005, JMLR 6, §3, WSS 2); Chang & Lin (2011, libsvm, §4-5).

This engine runs wherever numba does not (Pyodide's in-browser lab, an install without
the ``fast`` extra). ``pairwise`` is the pairwise SMO with second-order working-set
selection, one or two equality groups and shrinking (the rules of the package notes,
:mod:`kernelclf.margin.smo`); ``coordinate`` the greedy single-variable Newton steps
of the problems without equality. Columns come from ``getcol(i)`` (the Gram's own cache,
:class:`kernelclf.kernels.gram.ColumnCache`); the pair step is that of
:mod:`kernelclf.margin.smo.step` (its bound flags written out in the loop: the same
comparisons), the reconstruction of the shrunk gradient that of
:mod:`kernelclf.margin.smo.kkt`. Python pays per operation, so a pair step reads its
scalars from Python lists and finds the largest (smallest) ``F`` on "up" ("low") as ``F``
plus a vector of 0 and -inf (+inf), ``F + 0 = F``. The compiled engine
(:mod:`kernelclf.margin.smo.compiled`) follows the same rules with the same floating-point
operations in the same order.

With ``finish=True`` (``engine='auto'`` without numba) ``pairwise`` hands over to the
active-set method :func:`kernelclf.margin.smo.kkt._active_set` when its gap first drops
to ``FINISH_FROM`` times ``tol`` and again at each ``FINISH_STEP``-fold further drop
(the package notes, "The NumPy engine's finish"): Python pays per pair step, and the
finish replaces the thousands of steps of large ``C`` by a few dozen linear solves.
"""
from __future__ import annotations

import numpy as np

from .kkt import _active_set, _newton_on_free, _Reconstruction
from .step import PATIENCE, TAU, pair_step

__all__ = []          # engine internals of kernelclf.margin.smo.solve_smo

#: ``finish``: the first active-set finish when the pair loop's gap drops to this many
#: times ``tol``, the next ones each time it has dropped ``FINISH_STEP`` times further
FINISH_FROM = 1000.0
FINISH_STEP = 3.0
#: ... and not before this many pair steps per variable (where the pair loop is about to
#: end, at small C, it is cheaper than a finish)
FINISH_AFTER = 0.5
#: ... and only with at most this many free variables (the finish inverts a matrix of
#: their number, at a cubic cost)
FINISH_MAX_FREE = 1000


def pairwise(p, C, s, gmask, getcol, Kd, alpha, F, tol, max_iter, shrinking, alpha_bound,
             every=0, on_every=None, finish=False, getcols=None):
    """Pairwise SMO on ``F_t = -s_t G_t`` (updated in place with ``alpha``); ``gmask`` the
    masks of the equality groups. Every ``every`` steps ``on_every()`` runs (a Newton step;
    True stops the loop). ``finish``: hand over to the active-set finish (module notes;
    its rounds are not counted as iterations; ``getcols``: ``idx -> K[:, idx]`` for it,
    or None). Returns ``(iterations, how)`` with ``how``
    one of 'done', 'maxiter', 'stalled', 'stopped', 'unbounded'; the gradient is exact
    at the end."""
    m = p.size
    pos = s > 0
    # up: a_t may move so that s_t a_t increases; low: so that it decreases
    up = np.where(pos, alpha < C, alpha > 0)
    low = np.where(pos, alpha > 0, alpha < C)
    ninf, pinf = -np.inf, np.inf
    active = np.arange(m)
    shrunk = unshrunk = False   # unshrunk: libsvm's one-time unshrink at 10 tol is done
    best_gap, stale = np.inf, 0     # the stagnation watch of the shrunk problem
    counter = reset = min(m, 1000)
    it = 0
    how = "maxiter"
    reconstruct = _Reconstruction(F, alpha, s, getcol)
    try_at = FINISH_FROM * tol if finish else -np.inf     # the next active-set finish
    finish_after = FINISH_AFTER * m
    one = len(gmask) == 1
    # the step's scalars as Python floats (the same numbers; fewer NumPy scalar reads)
    sl, Cl, Kdl = s.tolist(), C.tolist(), Kd.tolist()
    fmin = np.minimum.reduce
    pen_up, pen_low = _penalties(up, low)
    Kda = Kd                    # Kd on the active variables (gathered when they change)

    def everyone():             # all variables back, the shrunk ones' gradient rebuilt
        nonlocal active, shrunk, best_gap, stale, Kda
        reconstruct(_inactive(active, m))
        active, shrunk, best_gap, stale, Kda = np.arange(m), False, np.inf, 0, Kd

    while it < max_iter:
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = reset
                while True:         # back to all variables first? (the package notes)
                    g = _active_gap(F, up, low, gmask, active)
                    if not unshrunk and g <= 10.0 * tol:
                        unshrunk = True
                        if not shrunk:
                            break
                    elif shrunk:
                        best_gap, stale = (g, 0) if g < best_gap else (best_gap, stale + 1)
                        if stale < PATIENCE:
                            break
                    else:
                        break
                    everyone()
                active, shrunk = _shrink(F, up, low, gmask, active)
                Kda = Kd[active] if shrunk else Kd
        best = None
        gap = ninf
        if one and not shrunk:
            # (the loop below for one group on every variable, with fewer Python steps:
            # F with -inf off "up" and +inf off "low" as sums, F + 0 = F)
            Fu = F + pen_up
            i = int(Fu.argmax())
            gmax = Fu.item(i)
            Fl = F + pen_low
            g = gmax - fmin(Fl).item()
            if g > gap:
                gap = g
            if not (gmax == ninf or g <= 0):
                Ki = getcol(i)
                b = _gains(gmax, Fl, Ki, Kd, Kd[i])
                j = int(b.argmax())
                bj = b.item(j)
                if bj > 0:
                    best = (bj, i, j, Ki)
        else:
            Fa = F[active] if shrunk else F
            upa = up[active] if shrunk else up
            lowa = low[active] if shrunk else low
            # (shrinking can leave no variable active: then no pair, and the full problem
            # is reconstructed and checked below, as libsvm does)
            for gm in (gmask if Fa.size else ()):
                gma = gm[active] if shrunk else gm
                mu = upa & gma if not one else upa
                ml = lowa & gma if not one else lowa
                Fu = np.where(mu, Fa, ninf)
                ii = int(Fu.argmax())
                gmax = Fu[ii]
                Fl = np.where(ml, Fa, pinf)
                gmin = fmin(Fl)
                if gmax - gmin > gap:
                    gap = gmax - gmin
                if gmax == ninf or gmax - gmin <= 0:
                    continue
                i = int(active[ii]) if shrunk else ii
                Ki = getcol(i)
                b = _gains(gmax, Fl, Ki[active] if shrunk else Ki, Kda, Kd[i])
                jj = int(b.argmax())
                if not b[jj] > 0:
                    continue
                if best is None or b[jj] > best[0]:
                    best = (b[jj], i, (int(active[jj]) if shrunk else jj), Ki)
        if gap <= try_at and gap > tol and best is not None and it >= finish_after:
            try_at = gap / FINISH_STEP if gap / FINISH_STEP > tol else -np.inf
            if shrunk:
                everyone()
                counter = reset
            n_free = int(np.count_nonzero((alpha > 0) & (alpha < C)))
            done = n_free <= FINISH_MAX_FREE and _active_set(
                alpha, F, C, s, gmask, getcol, tol, 20 + 4 * n_free, max_free=FINISH_MAX_FREE,
                getcols=getcols)
            up[:] = np.where(pos, alpha < C, alpha > 0)
            low[:] = np.where(pos, alpha > 0, alpha < C)
            pen_up, pen_low = _penalties(up, low)
            if float(alpha.max()) > alpha_bound:
                how = "unbounded"
                break
            if done:
                how = "done"
                break
            continue
        if gap <= tol or best is None:
            if shrunk:          # the full problem is checked (its gradient rebuilt); as
                everyone()      # libsvm, one step on it, then shrinking again
                counter = 2
                continue
            how = "done"
            break
        _, i, j, Ki = best
        Kj = getcol(j)
        Ci, Cj = Cl[i], Cl[j]
        ai0, aj0 = alpha.item(i), alpha.item(j)
        si, sj = sl[i], sl[j]
        Gi, Gj = -si * F.item(i), -sj * F.item(j)
        quad = max(Kdl[i] + Kdl[j] - 2.0 * Ki.item(j), TAU)
        ai, aj = pair_step(ai0, aj0, Ci, Cj, Gi, Gj, quad, si != sj)
        dai, daj = ai - ai0, aj - aj0
        if dai == 0.0 and daj == 0.0:
            # a step below round-off: nothing changes, and the same pair would come back
            # for ever; the full problem is checked, then the loop stops
            if shrunk:
                everyone()
                counter = reset
                continue
            how = "stalled"
            break
        alpha[i], alpha[j] = ai, aj
        # (the factors as NumPy scalars: a column of single precision is then multiplied
        # in double precision, as the compiled loop does)
        if shrunk:              # as libsvm: the gradient of the active variables only
            F[active] -= Ki[active] * (s[i] * dai)
            F[active] -= Kj[active] * (s[j] * daj)
        else:
            F -= Ki * (s[i] * dai)
            F -= Kj * (s[j] * daj)
        # (bound_flags of kernelclf.margin.smo.step, written out)
        ui, li = (ai < Ci, ai > 0) if si > 0 else (ai > 0, ai < Ci)
        uj, lj = (aj < Cj, aj > 0) if sj > 0 else (aj > 0, aj < Cj)
        up[i], low[i], up[j], low[j] = ui, li, uj, lj
        pen_up[i], pen_low[i] = (0.0 if ui else ninf), (0.0 if li else pinf)
        pen_up[j], pen_low[j] = (0.0 if uj else ninf), (0.0 if lj else pinf)
        it += 1
        if ai > alpha_bound or aj > alpha_bound:
            how = "unbounded"
            break
        if every and it % every == 0:
            stop = on_every(it, up, low)
            pen_up, pen_low = _penalties(up, low)       # (a Newton step may move them)
            if stop:
                how = "stopped"
                break
    if shrunk:
        reconstruct(_inactive(active, m))
    return it, how


def _gains(gmax, Fl, Ki, Kd, kii):
    """Second-order gains of the partners t of ``i`` (Fan, Chen & Lin 2005, as in libsvm's
    WSS 2): ``b_t = max(gmax - F_t, 0)^2 / max(K_ii + K_tt - 2 K_it, TAU)``, where ``Fl``
    holds ``F`` on the eligible t and ``+inf`` elsewhere (gain 0 there)."""
    b = np.subtract(gmax, Fl)
    np.maximum(b, 0.0, out=b)
    a = np.multiply(Ki, -2.0)
    a += Kd
    a += kii
    np.maximum(a, TAU, out=a)
    b *= b
    b /= a
    return b


def _penalties(up, low):
    """0 on "up" (on "low") and -inf (+inf) elsewhere: ``F`` plus them is ``F`` where a
    variable may move and excludes it elsewhere from the largest (smallest) entry."""
    return np.where(up, 0.0, -np.inf), np.where(low, 0.0, np.inf)


def _inactive(active, m):
    keep = np.ones(m, dtype=bool)
    keep[active] = False
    return np.flatnonzero(keep)


def _active_gap(F, up, low, gmask, active):
    """The largest KKT gap ``max F(up) - min F(low)`` of the groups over ``active``."""
    act = np.zeros(F.size, dtype=bool)
    act[active] = True
    return max(np.max(F, where=up & gm & act, initial=-np.inf)
               - np.min(F, where=low & gm & act, initial=np.inf) for gm in gmask)


def _shrink(F, up, low, gmask, active):
    """libsvm's shrinking: keep the active variables that can still take part in a
    violating pair (a variable that can only move "up" with ``F`` below ``min F(low)``,
    or only "down" with ``F`` above ``max F(up)``, is stuck at its bound)."""
    keep = np.zeros(F.size, dtype=bool)
    act = np.zeros(F.size, dtype=bool)
    act[active] = True
    for gm in gmask:
        gm = gm & act
        gmax = np.max(F, where=up & gm, initial=-np.inf)
        gmin = np.min(F, where=low & gm, initial=np.inf)
        stuck = (up & ~low & (F < gmin)) | (low & ~up & (F > gmax))
        keep |= gm & ~stuck
    if keep.all():
        return np.arange(F.size), False
    return np.flatnonzero(keep), True


def coordinate(p, C, s, getcol, Kd, alpha, F, tol, max_iter, alpha_bound):
    """Greedy single-variable Newton steps for the problem without equality, with a
    projected Newton step on the free variables every ``max(20, m)`` updates. Returns
    ``(iterations, how)`` as ``pairwise``."""
    m = p.size
    Kd_safe = np.maximum(Kd, TAU)
    it = 0
    newton_every = max(20, m)
    while it < max_iter:
        G = -s * F
        # projected gradient: the KKT violation of each coordinate
        pg = np.where(alpha <= 0, np.minimum(G, 0.0), np.where(alpha >= C, np.maximum(G, 0.0), G))
        if (float(np.abs(pg).max()) if m else 0.0) <= tol:
            return it, "done"
        if it and it % newton_every == 0:
            _newton_on_free(alpha, F, C, s, getcol)
            G = -s * F
        new = np.clip(alpha - G / Kd_safe, 0.0, C)
        d = new - alpha
        gain = -G * d - 0.5 * Kd_safe * d * d
        t = int(gain.argmax())
        if not gain[t] > 0:     # violation left but no decrease possible (round-off)
            return it, "done"
        dt = d[t]
        alpha[t] = new[t]
        F -= getcol(t) * (s[t] * dt)
        it += 1
        if alpha[t] > alpha_bound:
            return it, "unbounded"
    return it, "maxiter"

