"""One epoch of the kernel perceptron with cached outputs, compiled and NumPy.

Book chapter 10 (``book/10_version_space_and_bayes_point.md``); LKC Algorithm 3 (App. D.1),
the dual perceptron. :func:`kernelclf.bayespoint.versionspace.find_version_space_point` runs
epochs of it, each on a fresh random permutation drawn by the caller, to find a starting
point of the kernel billiard inside version space.

An epoch visits the examples in the order ``perm``; example ``i`` is a mistake when
``y_i (G gamma)_i <= 0``, and then ``gamma_i += y_i`` and the outputs ``G gamma`` gain
``y_i`` times column ``i`` of ``G + ridge I`` (one column per mistake). Two twins do exactly
this, with the same floating-point operations in the same order, so they return the same
bits as each other and as the plain Python loop they replace:

* :func:`_epoch` - numba-compiled, on the stored matrix (the rows of a symmetric ``G`` are
  its columns, as :meth:`kernelclf.kernels.gram.Gram.column` reads them);
* :func:`_epoch_np` - NumPy, with any ``column(i)``: it does not test the examples one by one
  in Python but finds the next mistake of the order with one vector comparison, since the
  outputs change only at a mistake (Python work per mistake, not per example).

:func:`perceptron_epochs` runs a sequence of epochs, each on a fresh permutation drawn as
``rng.permutation(m)`` draws it. With numba and a stored matrix the epochs and the draws run in
one compiled call (:func:`_epochs`) when ``rng`` is a ``numpy.random.RandomState`` on NumPy's
Mersenne Twister (what ``sklearn.utils.check_random_state`` makes): the permutations are drawn
by the algorithm of ``RandomState.permutation``, whose stream NumPy keeps fixed (NEP 19): a
Fisher-Yates shuffle of ``arange(m)`` from the last position down, each index ``j <= i`` drawn
by masked rejection from 32-bit outputs (NumPy's ``random_interval``), here from the
generator's own state (its 624 words and position, read and advanced in place through the
bit generator's ``ctypes.state_address``, the layout checked once against its ``state``). So
the permutations, the generator's state afterwards and the result are those of the loop of
Python calls (``tests/test_versionspace.py`` compares them); on a Thyroid split of BPM Table 1
(m = 140, about 60 epochs) the draws were most of the perceptron's time.
"""
from __future__ import annotations

import numpy as np

try:  # without numba (Pyodide) the NumPy twin runs
    from .._jit import njit as _njit

    def _jit(f):  # no fastmath: the twins must agree to the bit
        return _njit(cache=True, nogil=True, error_model="numpy")(f)
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency; Pyodide has none
    def _jit(f):
        return f
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "perceptron_epoch", "epoch_runner", "perceptron_epochs"]


@_jit
def _epoch(G, ridge, y, perm, gamma, out):
    """One epoch in place on the stored matrix ``G`` (plus ``ridge`` on the diagonal);
    returns the number of mistakes."""
    m = y.shape[0]
    mistakes = 0
    for k in range(perm.shape[0]):
        i = perm[k]
        if y[i] * out[i] <= 0.0:
            yi = y[i]
            gamma[i] += yi
            for j in range(m):
                g = G[i, j]
                if j == i:
                    g += ridge
                out[j] += yi * g
            mistakes += 1
    return mistakes


@_jit
def _epochs(G, ridge, y, key, pos, gamma, out, max_epochs):
    """Up to ``max_epochs`` epochs of :func:`_epoch`, each on ``rng.permutation(m)`` drawn
    from the Mersenne Twister state ``key`` (624 words) and ``pos[0]`` (the position; both
    advanced in place, as NumPy's ``mt19937_next32`` does); returns ``(mistakes,
    converged)``."""
    m = y.shape[0]
    upper, lower = np.uint32(0x80000000), np.uint32(0x7fffffff)
    matrix, one, zero = np.uint32(0x9908b0df), np.uint32(1), np.uint32(0)
    p = np.int64(pos[0])
    perm = np.empty(m, dtype=np.int64)
    mistakes = 0
    for _ in range(max_epochs):
        for i in range(m):
            perm[i] = i
        for i in range(m - 1, 0, -1):     # RandomState.shuffle of arange(m)
            top = np.uint32(i)            # random_interval(i): the smallest mask >= i
            mask = top | (top >> np.uint32(1))
            mask |= mask >> np.uint32(2)
            mask |= mask >> np.uint32(4)
            mask |= mask >> np.uint32(8)
            mask |= mask >> np.uint32(16)
            while True:
                if p >= 624:              # mt19937_gen: the next 624 words
                    for q in range(624):
                        v = (key[q] & upper) | (key[(q + 1) % 624] & lower)
                        key[q] = key[(q + 397) % 624] ^ (v >> one) ^ (
                            matrix if (v & one) != zero else zero)
                    p = 0
                v = key[p]                # mt19937_next32: one word, tempered
                p += 1
                v ^= v >> np.uint32(11)
                v ^= (v << np.uint32(7)) & np.uint32(0x9d2c5680)
                v ^= (v << np.uint32(15)) & np.uint32(0xefc60000)
                v ^= v >> np.uint32(18)
                v &= mask
                if v <= top:
                    break
            j = np.int64(v)
            t = perm[i]
            perm[i] = perm[j]
            perm[j] = t
        k = _epoch(G, ridge, y, perm, gamma, out)
        mistakes += k
        if k == 0:
            pos[0] = p
            return mistakes, True
    pos[0] = p
    return mistakes, False


def _epoch_np(column, y, perm, gamma, out):
    """NumPy twin of :func:`_epoch`: ``column(i)`` gives column ``i`` (ridge included)."""
    mistakes = 0
    k, n = 0, perm.shape[0]
    while k < n:
        rest = perm[k:]
        wrong = y[rest] * out[rest] <= 0.0
        j = int(np.argmax(wrong))
        if not wrong[j]:
            break
        i = int(rest[j])
        yi = y[i]
        gamma[i] += yi
        out += yi * np.asarray(column(i), dtype=float)
        mistakes += 1
        k += j + 1
    return mistakes


def epoch_runner(G, y):
    """``run(perm, gamma, out)``: :func:`perceptron_epoch` on ``G, y`` with the choice of twin
    and the matrix looked up once (for a loop of epochs; same results, same counts)."""
    if isinstance(G, np.ndarray):
        stored, ridge, gram = G.T, 0.0, None
    else:
        stored = G.stored() if hasattr(G, "stored") else None
        ridge, gram = getattr(G, "ridge", 0.0), G
    if HAVE_NUMBA and stored is not None and stored.dtype == np.float64:
        ridge = float(ridge)

        def run(perm, gamma, out):
            k = _epoch(stored, ridge, y, np.asarray(perm, dtype=np.int64), gamma, out)
            if gram is not None:
                gram.n_evaluations += k * gram.m
            return k
        return run
    return lambda perm, gamma, out: perceptron_epoch(G, y, perm, gamma, out)


def perceptron_epoch(G, y, perm, gamma, out):
    """Run one perceptron epoch over ``perm`` in place; returns the number of mistakes.

    ``G`` is an ``(m, m)`` array (its columns are read) or a
    :class:`~kernelclf.kernels.gram.Gram` (its ridge included; one column, ``m`` kernel
    evaluations, counted per mistake). The compiled twin runs when numba is present and
    the matrix is stored, the NumPy twin otherwise; both give the same result."""
    if isinstance(G, np.ndarray):
        stored, ridge, gram = G.T, 0.0, None      # row i of G.T is column i of G
    else:
        stored = G.stored() if hasattr(G, "stored") else None
        ridge, gram = getattr(G, "ridge", 0.0), G
    if HAVE_NUMBA and stored is not None and stored.dtype == np.float64:
        k = _epoch(stored, float(ridge), y, np.asarray(perm, dtype=np.int64), gamma, out)
        if gram is not None:
            gram.n_evaluations += k * G.m
        return k
    column = G.column if gram is not None else (lambda i: G[:, i])
    return _epoch_np(column, y, np.asarray(perm), gamma, out)


_MT_LAYOUT = []   # [bool], once checked: NumPy's MT19937 state struct read as expected
_MT_LAST = [None]  # (bit generator, its views) of the last call


def _mt_state(bitgen):
    """``(key, pos)``: views of the 624 words and the position of an ``MT19937`` bit
    generator's state (NumPy's C struct ``{uint32 key[624]; int pos;}``, at the documented
    ``ctypes.state_address``), or ``None`` if the layout does not match ``bitgen.state``."""
    import ctypes

    last = _MT_LAST[0]
    if last is not None and last[0] is bitgen:     # (the fit's kept generator: same views)
        return last[1]
    words = np.ctypeslib.as_array(ctypes.cast(bitgen.ctypes.state_address,
                                              ctypes.POINTER(ctypes.c_uint32)), (625,))
    key, pos = words[:624], words[624:].view(np.int32)
    if not _MT_LAYOUT:
        st = bitgen.state
        _MT_LAYOUT.append(st.get("bit_generator") == "MT19937"
                          and np.array_equal(key, st["state"]["key"])
                          and int(pos[0]) == int(st["state"]["pos"]))
    out = (key, pos) if _MT_LAYOUT[0] else None
    _MT_LAST[0] = (bitgen, out)    # (holds the generator: its state stays where the views are)
    return out


def perceptron_epochs(G, y, rng, gamma, out, max_epochs):
    """Epochs of :func:`perceptron_epoch`, each on ``rng.permutation(m)``, until one makes no
    mistake (``True``) or ``max_epochs`` have run (``False``).

    The same as ``any(perceptron_epoch(G, y, rng.permutation(m), gamma, out) == 0 ...)``
    (``gamma``, ``out``, the kernel evaluations counted and the state of ``rng``
    afterwards): in one compiled call when numba is present, the matrix is stored and
    ``rng`` is a ``RandomState`` on NumPy's ``MT19937`` (module docstring); that loop
    otherwise.
    """
    m = y.shape[0]
    if HAVE_NUMBA and isinstance(rng, np.random.RandomState):
        bitgen = rng._bit_generator   # noqa: SLF001 - RandomState has no public accessor
        if isinstance(G, np.ndarray):
            stored, ridge, gram = G.T, 0.0, None
        else:
            stored = G.stored() if hasattr(G, "stored") else None
            ridge, gram = getattr(G, "ridge", 0.0), G
        state = _mt_state(bitgen) if isinstance(bitgen, np.random.MT19937) else None
        if state is not None and stored is not None and stored.dtype == np.float64:
            with bitgen.lock:                     # as RandomState.permutation holds it
                k, done = _epochs(stored, float(ridge), y, *state, gamma, out, int(max_epochs))
            if gram is not None:
                gram.n_evaluations += k * gram.m
            return bool(done)
    epoch = epoch_runner(G, y)
    for _ in range(int(max_epochs)):
        if epoch(rng.permutation(m), gamma, out) == 0:
            return True
    return False
