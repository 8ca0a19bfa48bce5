"""The kernel billiard's engines: its per-flight steps and its flight loop, compiled and NumPy.

Book chapter 11 (``book/11_kernel_billiard.md``); LKC §3.4.1, Algorithm 10 (App. D.6),
App. B.9; BPM App. B Alg. 2; TR 99-11 App. A. The driver is
:func:`kernelclf.bayespoint.billiard.kernel_billiard`.

One flight of the billiard is four steps on dual coefficients and their cached outputs
(``G gamma``, ``G beta``, ``G alpha``), each ``O(m)``:

* :func:`_next_wall` - the nearest wall ahead, ``tau_i = -d_i / nu_i`` (erratum E12):
  the flight times of all walls (:func:`_times`), then the nearest (:func:`_pick_wall`);
* :func:`_step` - fly the arc, take the chord midpoint, mirror the direction on the wall
  (LKC eq. 3.33: one kernel column); in the same pass over the examples it writes the
  flight times of the next flight, so that between bounces the next wall costs only
  :func:`_pick_wall` (every 16th flight, which re-projects the direction, excepted);
* :func:`_accumulate` - add the midpoint to the centre of mass with ``⊕µ`` (erratum E2) or
  by slerp (RM eq. 18.27);
* :func:`_stop_statistic` - the stopping statistic (``rho_2`` or batch means,
  :func:`_batch_error`); the ``rho_2`` rules need only the float state
  (:func:`_rho2_statistic`).

Speed at the sizes of BPM Table 1 (``m`` of 100 to 400) is set by the fixed cost of a
flight as much as by its ``O(m)`` passes: a call of a compiled function counts a reference
to every array it is passed. So the loop calls the ``rho_2`` statistic without the batch
buffers, the small helpers (:func:`_dot`, :func:`_rho_scalar`, :func:`_pick_wall`,
:func:`_accumulate`) are inlined into it, and the flight times ride along in the pass of
:func:`_step`. (:func:`_step` itself is not inlined: its loop is no longer vectorised then.)

Each step exists twice, side by side: a numba-compiled loop over the ``m`` examples and a
NumPy twin (suffix ``_np``) with vector operations, which is what runs without numba
(Pyodide, the book's in-browser lab). The twins do the same IEEE operations in the same
order - the compiled code is built without ``fastmath`` (no reassociation, no fused
multiply-add), and every sum over the examples goes through :func:`_dot`, eight running
sums in a fixed order that NumPy reproduces with ``cumsum`` - so they return the same
bits. This matters: the billiard amplifies round-off (a near-tie between two walls
decides the rest of the trajectory), and twins that agreed only to round-off made
different bounces after some thousands of flights. ``tests/test_billiard.py`` checks
that the twins give the same outputs for the same inputs.

The flight loop :func:`_fly` is written once and run by three engines:

* ``'compiled'`` - :data:`_fly_compiled`, the loop compiled by numba, on the stored Gram
  matrix, read in place (its rows are the kernel columns; a ridge is added by :func:`_step`
  to the one entry of a column that has it);
* ``'python'`` - the same code run by Python, calling the compiled steps and reading one
  column per bounce from a :class:`~kernelclf.kernels.gram.Gram` object (columns on demand);
* ``'numpy'`` - the same code run by Python with the NumPy twins in place of the compiled
  steps (:data:`_fly_numpy`).

No engine draws random numbers. The loop stops and returns an event whenever the driver
has to act - a fresh random direction is due (a random restart, or a refresh at the bounce
count the driver scheduled), the trace buffers are full, or the run is over - so all
randomness comes from the driver's one generator, and on the same Gram matrix every engine
flies the same trajectory. (Columns computed on demand from a kernel can differ from the
stored matrix's in the last bit, and then, after enough bounces, so can the trajectory.)
"""
from __future__ import annotations

import math
import types

import numpy as np

try:  # numba compiles the O(m) steps and the loop; without it the NumPy twins run
    from .._jit import njit as _njit

    def _jit(f):  # no fastmath: IEEE arithmetic in the written order, as in the twins
        return _njit(cache=True, nogil=True)(f)

    def _jit_inline(f):  # as _jit, and inlined where the loop calls it (numba IR): no
        # call, no reference counts on the arrays passed (the fixed cost of a flight)
        return _njit(cache=True, nogil=True, inline="always")(f)

    def _jit_vec(f):  # as _jit, with NumPy's error model (x / 0 is inf or nan, no
        # exception, as in the NumPy twins): a loop that divides without a branch vectorises
        return _njit(cache=True, nogil=True, error_model="numpy")(f)
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency; Pyodide has none
    def _jit(f):
        return f
    _jit_vec = _jit_inline = _jit
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "ENGINES", "STOPPING_RULES", "select_engine"]

#: engines of :func:`kernelclf.bayespoint.billiard.kernel_billiard`
ENGINES = ("auto", "compiled", "python", "numpy")
#: stopping rules and their codes in the loop
STOPPING_RULES = ("batch", "rho2", "rho2-printed", "tr")
_RULE_CODE = {"rho2": 0, "rho2-printed": 1, "batch": 2, "tr": 3}
#: batch-means rule: flights per batch at the start, batches kept (merged in pairs when full)
BATCH_START, BATCH_SLOTS = 16, 64
# float state: Xi, xi_max, p_min, stat, cur_L, tot_L, p_max (TR Alg. 1's rule)
_XI, _XIMAX, _PMIN, _STAT, _CURL, _TOTL, _PMAX = range(7)
# int state: last, n_bounces, n_restarts, n_batches, batch_size, cur_count, n_flights,
# bounce count at which the next refresh is due (-1: none), entries in the trace buffers
_LAST, _NB, _NR, _NBATCH, _BSIZE, _CURN, _NFL, _REFRESH_AT, _NTRACE = range(9)
#: events that end a call of the loop
CONVERGED, MAX_BOUNCES, MAX_RESTARTS, RESTART, REFRESH, TRACE_FULL = range(6)


def _new_state(m, stopping):
    """Fresh loop state for ``m`` examples: float state ``fs``, int state ``ist`` and the
    batch-means buffers ``(bc, bo, bl, cur_c, cur_o, tot_c, tot_o)``."""
    nslot = BATCH_SLOTS if stopping == "batch" else 0
    fs = np.zeros(7)
    fs[_PMIN] = 1.0
    fs[_STAT] = np.nan
    ist = np.zeros(9, dtype=np.int64)
    ist[_LAST] = -1
    ist[_BSIZE] = BATCH_START
    ist[_REFRESH_AT] = -1
    batch = (np.zeros((nslot, m)), np.zeros((nslot, m)), np.zeros(nslot),
             *(np.zeros(m) for _ in range(4)))
    return fs, ist, batch


# ---------------------------------------------------------------------------
# the per-flight steps: each compiled step followed by its NumPy twin

@_jit_inline
def _rho_scalar(c, mu):
    """``(rho_1, rho_2)`` of ``⊕µ`` (erratum E2), scalar version for the loop."""
    if c < -1.0 + 1e-12:
        c = -1.0 + 1e-12
    elif c > 1.0:
        c = 1.0
    a = mu * mu * (1.0 - c)
    r = 2.0 - a
    r1 = mu * math.sqrt((r if r > 0.0 else 0.0) / (1.0 + c))
    return r1, 1.0 - a - r1 * c


@_jit
def _rho2_printed(c, mu):
    """``rho_2`` with LKC's printed ``rho_1`` (App. B.9, before erratum E2): the radicand
    ``(-mu^2 - mu^2 c - 2)/(c + 1)`` is negative for every ``c > -1``, so the result is NaN."""
    rad = (-mu * mu - mu * mu * c - 2.0) / (c + 1.0)
    r1 = mu * math.sqrt(rad) if rad >= 0.0 else math.nan
    return -r1 * c + (mu * mu * (1.0 - c) - 1.0)


@_jit_inline
def _dot(a, b):
    """``sum_i a_i b_i`` in a fixed order: eight running sums (lane ``j`` adds the
    products ``i = j mod 8`` below the last multiple of 8, in increasing ``i``), added
    pairwise, then the remaining products in order. The lanes are independent, so the
    compiler can run them side by side without reordering any addition."""
    m = a.shape[0]
    n8 = m - m % 8
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for i in range(0, n8, 8):
        s0 += a[i] * b[i]
        s1 += a[i + 1] * b[i + 1]
        s2 += a[i + 2] * b[i + 2]
        s3 += a[i + 3] * b[i + 3]
        s4 += a[i + 4] * b[i + 4]
        s5 += a[i + 5] * b[i + 5]
        s6 += a[i + 6] * b[i + 6]
        s7 += a[i + 7] * b[i + 7]
    s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for i in range(n8, m):
        s += a[i] * b[i]
    return s


def _dot_np(a, b):
    """NumPy twin of :func:`_dot` (the lanes summed by ``cumsum``, which adds in order)."""
    m = a.shape[0]
    n8 = m - m % 8
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    if n8:
        s0, s1, s2, s3, s4, s5, s6, s7 = \
            np.cumsum((a[:n8] * b[:n8]).reshape(-1, 8), axis=0)[-1].tolist()
    s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for i in range(n8, m):
        s += float(a[i]) * float(b[i])
    return s


@_jit_vec
def _first_argmin(T):
    """``(i, T[i])`` for the first index of the smallest entry (``(-1, inf)`` if none is
    below ``inf``; NaN entries are never taken), as ``np.argmin`` on NaN-free ``T``.
    Four running minima (lane ``j`` takes the indices ``i = j mod 4`` below the last
    multiple of 4) with their first indices, merged with ties to the smaller index: the
    lanes are independent, so the compiler runs them side by side."""
    m = T.shape[0]
    n4 = m - m % 4
    b0 = b1 = b2 = b3 = math.inf
    i0 = i1 = i2 = i3 = -1
    for i in range(0, n4, 4):
        t = T[i]
        k = t < b0
        b0 = t if k else b0
        i0 = i if k else i0
        t = T[i + 1]
        k = t < b1
        b1 = t if k else b1
        i1 = i + 1 if k else i1
        t = T[i + 2]
        k = t < b2
        b2 = t if k else b2
        i2 = i + 2 if k else i2
        t = T[i + 3]
        k = t < b3
        b3 = t if k else b3
        i3 = i + 3 if k else i3
    best, c = b0, i0
    if b1 < best or (b1 == best and i1 < c):
        best, c = b1, i1
    if b2 < best or (b2 == best and i2 < c):
        best, c = b2, i2
    if b3 < best or (b3 == best and i3 < c):
        best, c = b3, i3
    for i in range(n4, m):
        if T[i] < best:
            best, c = T[i], i
    return c, best


@_jit_vec
def _times(y, u, w, T):
    """Flight times of all walls into ``T``: ``tau_i = -d_i / nu_i`` with ``d = Y G gamma``,
    ``nu = Y G beta`` (erratum E12) for the walls approached (``nu_i < 0``), ``inf`` for the
    others; a negative time (a wall crossed by round-off) counts as 0. A loop without
    branches, which the compiler vectorises. (One pass with a branch per wall mispredicted
    about half of them: the walls ahead change from flight to flight at random.)"""
    for i in range(y.shape[0]):
        nu = y[i] * w[i]
        t = -(y[i] * u[i]) / nu
        t = 0.0 if t < 0.0 else t
        T[i] = t if nu < 0.0 else math.inf


def _times_np(y, u, w, T):
    """NumPy twin of :func:`_times`."""
    nu = y * w
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(-(y * u), nu, out=T)
    T[T < 0.0] = 0.0
    T[~(nu < 0.0)] = math.inf
    T[np.isnan(T)] = math.inf


@_jit_inline
def _pick_wall(T, last, tau_max):
    """The nearest wall ahead from the flight times ``T`` of :func:`_times`: ``(c, tau_c)``,
    the wall just left (``last``) excluded, the first of equal times kept; ``c = -1`` when
    none is nearer than ``tau_max``. ``T[last]`` is overwritten."""
    if 0 <= last < T.shape[0]:
        T[last] = math.inf
    c, best = _first_argmin(T)
    if not best < tau_max:
        return -1, best
    return c, best


def _pick_wall_np(T, last, tau_max):
    """NumPy twin of :func:`_pick_wall` (ties go to the first index, as there)."""
    if 0 <= last < T.shape[0]:
        T[last] = math.inf
    c = int(np.argmin(T))
    best = float(T[c])
    if not best < tau_max:
        return -1, best
    return c, best


@_jit
def _next_wall(y, u, w, last, tau_max, T):
    """Nearest wall ahead: ``(c, tau_c)``; ``c = -1`` when none is nearer than ``tau_max``.

    Two passes: the times of all walls into the scratch array ``T`` (:func:`_times`), then
    the first index of the smallest, the wall just left excluded (:func:`_pick_wall`).
    Between bounces the flight loop skips the first pass: :func:`_step` computes the times
    from the new position and direction in its own loop."""
    _times(y, u, w, T)
    return _pick_wall(T, last, tau_max)


def _next_wall_np(y, u, w, last, tau_max, T):
    """NumPy twin of :func:`_next_wall`."""
    _times_np(y, u, w, T)
    return _pick_wall_np(T, last, tau_max)


@_jit_vec
def _step(gamma, u, beta, w, t, z, uz, c, col, kcc, ga, fix, y, T, ridge):
    """One flight, in place: fly the arc ``arctan t`` along the great circle, put the
    normalised chord midpoint in ``z`` (outputs ``uz``) and mirror the direction on wall
    ``c`` (LKC eq. 3.33: ``beta_c`` and one kernel column ``col``; ``c < 0``: no wall).
    Returns the chord length and ``p = <zeta, w>`` with the estimate's outputs ``ga``.

    Both moves keep the direction tangent and of unit length in exact arithmetic (the new
    position lies on wall ``c``, and a reflection is an isometry); ``fix`` re-projects and
    renormalises it to remove the round-off. Without ``fix`` the same loop also writes the
    flight times of the next flight to ``T`` (as :func:`_times` would from the new ``u`` and
    ``w``), so that the next wall costs one pass over ``T`` (:func:`_pick_wall`); with
    ``fix`` ``T`` is left as it was (stale: the caller recomputes it). ``ridge``: ``col`` is
    a column of the stored matrix without the ridge, whose entry ``c`` is then redone with
    ``col[c] + ridge`` (the value a column of ``G + ridge I`` holds; 0: ``col`` has it)."""
    m = gamma.shape[0]
    h = math.sqrt(1.0 + t * t)
    xi = math.sqrt(max(2.0 - 2.0 / h, 0.0))
    nz = math.sqrt(2.0 + 2.0 / h)
    ih, inz = 1.0 / h, 1.0 / nz
    coef = 0.0
    wc = uc = 0.0
    if c >= 0:
        wc, uc = w[c], u[c]
        coef = -2.0 * ((wc - t * uc) * ih) / kcc
    for i in range(m):
        g0, u0 = gamma[i], u[i]
        gn = (g0 + t * beta[i]) * ih
        un = (u0 + t * w[i]) * ih
        bn = (beta[i] - t * g0) * ih
        wn = (w[i] - t * u0) * ih
        if c >= 0:
            wn += coef * col[i]
        z[i] = (g0 + gn) * inz
        uz[i] = (u0 + un) * inz
        gamma[i] = gn
        u[i] = un
        beta[i] = bn
        w[i] = wn
        if not fix:  # the flight times of the next flight (as _times)
            nu = y[i] * wn
            tt = -(y[i] * un) / nu
            tt = 0.0 if tt < 0.0 else tt
            T[i] = tt if nu < 0.0 else math.inf
    if c >= 0 and ridge != 0.0:  # entry c of the column of G + ridge I
        wn = (wc - t * uc) * ih
        wn += coef * (col[c] + ridge)
        w[c] = wn
        if not fix:
            nu = y[c] * wn
            tt = -(y[c] * u[c]) / nu
            tt = 0.0 if tt < 0.0 else tt
            T[c] = tt if nu < 0.0 else math.inf
    p = _dot(z, ga)
    if c >= 0:
        beta[c] += coef
    if fix:
        s = _dot(gamma, w)
        for i in range(m):
            beta[i] -= s * gamma[i]
            w[i] -= s * u[i]
        nb = 1.0 / math.sqrt(max(_dot(beta, w), 1e-300))
        for i in range(m):
            beta[i] *= nb
            w[i] *= nb
    return xi, p


def _step_np(gamma, u, beta, w, t, z, uz, c, col, kcc, ga, fix, y, T, ridge):
    """NumPy twin of :func:`_step` (in place, the same outputs)."""
    h = math.sqrt(1.0 + t * t)
    xi = math.sqrt(max(2.0 - 2.0 / h, 0.0))
    nz = math.sqrt(2.0 + 2.0 / h)
    ih, inz = 1.0 / h, 1.0 / nz
    wc, uc = (float(w[c]), float(u[c])) if c >= 0 else (0.0, 0.0)
    coef = -2.0 * ((wc - t * uc) * ih) / kcc if c >= 0 else 0.0
    gn = (gamma + t * beta) * ih
    un = (u + t * w) * ih
    bn = (beta - t * gamma) * ih
    wn = (w - t * u) * ih
    if c >= 0:
        wn += coef * col
    np.multiply(gamma + gn, inz, out=z)
    np.multiply(u + un, inz, out=uz)
    gamma[:], u[:], beta[:], w[:] = gn, un, bn, wn
    if c >= 0 and ridge != 0.0:  # entry c of the column of G + ridge I
        w[c] = (wc - t * uc) * ih + coef * (float(col[c]) + ridge)
    if not fix:
        _times_np(y, u, w, T)
    p = _dot_np(z, ga)
    if c >= 0:
        beta[c] += coef
    if fix:
        s = _dot_np(gamma, w)
        beta -= s * gamma
        w -= s * u
        nb = 1.0 / math.sqrt(max(_dot_np(beta, w), 1e-300))
        beta *= nb
        w *= nb
    return xi, p


@_jit_inline
def _accumulate(alpha, ga, z, uz, xi, p, fs, arc, t, renorm):
    """Add the chord midpoint to the centre of mass: ``alpha ⊕µ zeta`` with
    ``mu = Xi / (Xi + xi)`` (chord weights, E2) or slerp with arc weights (RM eq. 18.27).
    Both keep unit length exactly in exact arithmetic; ``renorm`` removes the round-off."""
    m = alpha.shape[0]
    if arc:
        xi = math.atan(t)
    Xi = fs[_XI]
    if Xi == 0.0:
        for i in range(m):
            alpha[i] = z[i]
            ga[i] = uz[i]
    elif xi > 0.0:
        if p < fs[_PMIN]:
            fs[_PMIN] = p
        if p > fs[_PMAX]:
            fs[_PMAX] = p
        if arc:
            cphi = min(1.0, max(-1.0, p))
            phi = math.acos(cphi)
            if phi >= 1e-12:
                f = xi / (Xi + xi)
                r2 = math.sin(phi * f) / math.sin(phi)
                r1 = math.cos(phi * f) - r2 * cphi
            else:
                r1, r2 = 1.0, 0.0
        else:
            r1, r2 = _rho_scalar(p, Xi / (Xi + xi))
        for i in range(m):
            alpha[i] = r1 * alpha[i] + r2 * z[i]
            ga[i] = r1 * ga[i] + r2 * uz[i]
        if renorm:
            na = math.sqrt(max(_dot(alpha, ga), 1e-300))
            for i in range(m):
                alpha[i] /= na
                ga[i] /= na
    fs[_XI] = Xi + xi
    if xi > fs[_XIMAX]:
        fs[_XIMAX] = xi
    return xi


def _accumulate_np(alpha, ga, z, uz, xi, p, fs, arc, t, renorm):
    """NumPy twin of :func:`_accumulate`."""
    if arc:
        xi = math.atan(t)
    Xi = fs[_XI]
    if Xi == 0.0:
        alpha[:] = z
        ga[:] = uz
    elif xi > 0.0:
        if p < fs[_PMIN]:
            fs[_PMIN] = p
        if p > fs[_PMAX]:
            fs[_PMAX] = p
        if arc:
            cphi = min(1.0, max(-1.0, p))
            phi = math.acos(cphi)
            if phi >= 1e-12:
                f = xi / (Xi + xi)
                r2 = math.sin(phi * f) / math.sin(phi)
                r1 = math.cos(phi * f) - r2 * cphi
            else:
                r1, r2 = 1.0, 0.0
        else:
            r1, r2 = _rho_scalar(p, Xi / (Xi + xi))
        alpha[:] = r1 * alpha + r2 * z
        ga[:] = r1 * ga + r2 * uz
        if renorm:
            na = math.sqrt(max(_dot_np(alpha, ga), 1e-300))
            alpha /= na
            ga /= na
    fs[_XI] = Xi + xi
    if xi > fs[_XIMAX]:
        fs[_XIMAX] = xi
    return xi


@_jit
def _batch_error(bc, bo, bl, nb, tot_c, tot_o, tot_l):
    """Batch-means standard error of the direction of the chord-weighted mean midpoint.

    With batch sums ``S_b`` (lengths ``L_b``), the mean ``M = sum S_b / sum L_b`` and
    ``Lbar`` the mean batch length, ``Var M ~ sum_b (L_b/Lbar)^2 ||S_b/L_b - M||^2 /
    (n (n - 1))`` (the ratio estimator of batch means); divided by ``||M||`` it is the
    standard error of the angle of ``M`` in radians (norms through the cached outputs).
    """
    lbar = tot_l / nb
    mm = _dot(tot_c, tot_o) / (tot_l * tot_l)
    mc, mo = tot_c / tot_l, tot_o / tot_l
    var = 0.0
    for b in range(nb):
        lb = bl[b]
        var += (lb / lbar) * (lb / lbar) * _dot(bc[b] / lb - mc, bo[b] / lb - mo)
    var /= nb * (nb - 1.0)
    return math.sqrt(max(var, 0.0) / max(mm, 1e-300))


def _batch_error_np(bc, bo, bl, nb, tot_c, tot_o, tot_l):
    """NumPy twin of :func:`_batch_error`."""
    lbar = tot_l / nb
    mm = _dot_np(tot_c, tot_o) / (tot_l * tot_l)
    mc, mo = tot_c / tot_l, tot_o / tot_l
    var = 0.0
    for b in range(nb):
        lb = float(bl[b])
        var += (lb / lbar) * (lb / lbar) * _dot_np(bc[b] / lb - mc, bo[b] / lb - mo)
    var /= nb * (nb - 1.0)
    return math.sqrt(max(var, 0.0) / max(mm, 1e-300))


@_jit_inline
def _rho2_statistic(rule, fs):
    """The statistic of the rules ``rho2``, ``rho2-printed`` and ``tr`` (codes 0, 1, 3) from
    the float state alone; one function for every engine (scalar arithmetic only). The
    flight loop calls it directly for these rules: passing the batch buffers to
    :func:`_stop_statistic` at every flight costs more than the statistic."""
    Xi = fs[_XI]
    if Xi <= 0.0:
        return 1.0
    if rule == 3:  # TR Alg. 1: rho_2(p_max, lambda_max / Lambda), E12 (guarded at 0/0)
        return _rho_scalar(fs[_PMAX], fs[_XIMAX] / Xi)[1]
    mu = Xi / (Xi + fs[_XIMAX])
    if rule == 0:
        return _rho_scalar(fs[_PMIN], mu)[1]
    return _rho2_printed(fs[_PMIN], mu)


@_jit
def _stop_statistic(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c, tot_o):
    """Update and return the stopping statistic of ``rule`` after one flight
    (``inf`` when it is not evaluated at this flight: batch rule between checks)."""
    if rule != 2:
        return _rho2_statistic(rule, fs)
    # batch means
    m = cur_c.shape[0]
    for i in range(m):
        cur_c[i] += xi * z[i]
        cur_o[i] += xi * uz[i]
    fs[_CURL] += xi
    ist[_CURN] += 1
    if ist[_CURN] < ist[_BSIZE]:
        return math.inf
    nb = ist[_NBATCH]
    for i in range(m):
        bc[nb, i] = cur_c[i]
        bo[nb, i] = cur_o[i]
        tot_c[i] += cur_c[i]
        tot_o[i] += cur_o[i]
        cur_c[i] = 0.0
        cur_o[i] = 0.0
    bl[nb] = fs[_CURL]
    fs[_TOTL] += fs[_CURL]
    fs[_CURL] = 0.0
    ist[_CURN] = 0
    nb += 1
    stat = math.inf
    slots = bc.shape[0]
    if nb >= slots // 2 and nb % 8 == 0 and fs[_TOTL] > 0.0:
        stat = _batch_error(bc, bo, bl, nb, tot_c, tot_o, fs[_TOTL])
    if nb == slots:  # merge neighbouring batches, double the batch size
        for b in range(slots // 2):
            for i in range(m):
                bc[b, i] = bc[2 * b, i] + bc[2 * b + 1, i]
                bo[b, i] = bo[2 * b, i] + bo[2 * b + 1, i]
            bl[b] = bl[2 * b] + bl[2 * b + 1]
        nb = slots // 2
        ist[_BSIZE] *= 2
    ist[_NBATCH] = nb
    return stat


def _stop_statistic_np(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c, tot_o):
    """NumPy twin of :func:`_stop_statistic`."""
    if rule != 2:
        return _rho2_statistic(rule, fs)
    cur_c += xi * z
    cur_o += xi * uz
    fs[_CURL] += xi
    ist[_CURN] += 1
    if ist[_CURN] < ist[_BSIZE]:
        return math.inf
    nb = ist[_NBATCH]
    bc[nb], bo[nb] = cur_c, cur_o
    tot_c += cur_c
    tot_o += cur_o
    cur_c[:] = 0.0
    cur_o[:] = 0.0
    bl[nb] = fs[_CURL]
    fs[_TOTL] += fs[_CURL]
    fs[_CURL] = 0.0
    ist[_CURN] = 0
    nb += 1
    stat = math.inf
    slots = bc.shape[0]
    if nb >= slots // 2 and nb % 8 == 0 and fs[_TOTL] > 0.0:
        stat = _batch_error_np(bc, bo, bl, nb, tot_c, tot_o, fs[_TOTL])
    if nb == slots:  # merge neighbouring batches, double the batch size
        half = slots // 2
        bc[:half] = bc[0::2] + bc[1::2]
        bo[:half] = bo[0::2] + bo[1::2]
        bl[:half] = bl[0::2] + bl[1::2]
        nb = half
        ist[_BSIZE] *= 2
    ist[_NBATCH] = nb
    return stat


# ---------------------------------------------------------------------------
# the flight loop, written once

def _fly(G, y, kdiag, gamma, u, beta, w, alpha, ga, z, uz, fs, ist, bc, bo, bl, cur_c, cur_o,
         tot_c, tot_o, chords, stats, hits, P, Z, rule, tol, tau_max, max_bounces,
         min_bounces, max_restarts, random_restart, arc, ridge):
    """Fly the billiard until the driver has to act; return the event.

    LKC Algorithm 10 (App. D.6) and BPM App. B Alg. 2 with cached outputs: per flight the
    nearest wall (or, beyond ``tau_max``, a restart), the step with its reflection, the
    update of the centre of mass and the stopping statistic. All arrays are updated in
    place; ``G[c]`` is kernel column ``c`` (a row of the stored matrix, or a column read
    from a ``Gram`` object in the Python engines), of ``G + ridge I`` when ``ridge`` is 0
    and of ``G`` otherwise (the stored matrix without its ridge, which is then added to
    entry ``c``; ``kdiag`` holds the ridge in either case).

    Per flight the chord, the statistic and the wall hit (``-1``: geodesic continuation)
    are written to ``chords``, ``stats`` and ``hits`` at ``ist[_NTRACE]``, and the position
    and chord midpoint to ``P`` and ``Z`` when these have rows.

    Returns one of ``CONVERGED`` (the stopping rule is met), ``MAX_BOUNCES``,
    ``MAX_RESTARTS`` (more restarts than ``max_restarts``), ``RESTART`` (no wall within
    ``tau_max`` and ``random_restart``: the driver puts a fresh direction in ``beta, w``
    and calls again), ``REFRESH`` (the bounce count reached ``ist[_REFRESH_AT]``: the same)
    and ``TRACE_FULL`` (the driver empties the trace buffers, sets ``ist[_NTRACE] = 0``
    and calls again).
    """
    T = np.empty(y.shape[0])  # scratch: the flight times of the walls
    fresh = False  # whether T holds the times of this flight (written by the last _step)
    while ist[_NB] < max_bounces:
        k = ist[_NTRACE]
        if k >= chords.shape[0]:
            return TRACE_FULL
        if fresh:
            c, t = _pick_wall(T, ist[_LAST], tau_max)
        else:
            c, t = _next_wall(y, u, w, ist[_LAST], tau_max, T)
        if c < 0:
            ist[_NR] += 1
            if ist[_NR] > max_restarts:
                return MAX_RESTARTS
            if random_restart:
                return RESTART
            t = tau_max  # geodesic continuation, no reflection
        fix = ist[_NFL] % 16 == 15
        if c >= 0:
            xi, p = _step(gamma, u, beta, w, t, z, uz, c, G[c], kdiag[c], ga, fix, y, T,
                          ridge)
        else:
            xi, p = _step(gamma, u, beta, w, t, z, uz, c, kdiag, 1.0, ga, fix, y, T, 0.0)
        fresh = not fix
        xi = _accumulate(alpha, ga, z, uz, xi, p, fs, arc, t, ist[_NFL] % 64 == 63)
        ist[_LAST] = c
        ist[_NFL] += 1
        if c >= 0:
            ist[_NB] += 1
        if rule == 2:
            stat = _stop_statistic(rule, fs, ist, xi, z, uz, bc, bo, bl, cur_c, cur_o, tot_c,
                                   tot_o)
        else:
            stat = _rho2_statistic(rule, fs)
        if not math.isinf(stat):
            fs[_STAT] = stat
        chords[k] = xi
        stats[k] = fs[_STAT]
        hits[k] = c
        if P.shape[0] > 0:
            P[k, :] = gamma
            Z[k, :] = z
        ist[_NTRACE] = k + 1
        if ist[_NB] >= min_bounces and not stat > tol:
            return CONVERGED
        if c >= 0 and ist[_NB] == ist[_REFRESH_AT] and ist[_NB] < max_bounces:
            return REFRESH
    return MAX_BOUNCES


#: the loop compiled by numba (the compiled steps inlined); ``_fly`` itself run by Python
#: calls the same compiled steps one at a time
_fly_compiled = _jit(_fly)

#: the same code run by Python with every step replaced by its NumPy twin
_NUMPY_TWINS = {"_next_wall": _next_wall_np, "_pick_wall": _pick_wall_np, "_step": _step_np,
                "_accumulate": _accumulate_np, "_stop_statistic": _stop_statistic_np}
_fly_numpy = types.FunctionType(_fly.__code__, {**_fly.__globals__, **_NUMPY_TWINS},
                                "_fly_numpy", _fly.__defaults__, _fly.__closure__)
_fly_numpy.__doc__ = _fly.__doc__


def select_engine(engine, stored):
    """Name of the engine that runs and its loop function.

    ``'auto'`` takes ``'compiled'`` when numba is installed and the Gram matrix is
    stored, ``'python'`` when numba is installed and columns are computed on demand, and
    ``'numpy'`` without numba. ``'python'`` without numba runs the NumPy twins as well.
    ``'compiled'`` needs numba (``ImportError`` otherwise).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "compiled" and not HAVE_NUMBA:
        raise ImportError("engine='compiled' needs numba; use engine='numpy'")
    if engine == "auto":
        engine = ("compiled" if stored else "python") if HAVE_NUMBA else "numpy"
    if engine == "python" and not HAVE_NUMBA:
        engine = "numpy"
    return engine, {"compiled": _fly_compiled, "python": _fly, "numpy": _fly_numpy}[engine]
