"""Book chapter 02 (``book/02_kernels.md``): the Gram matrix's numerical guard and memory limit.

LKC Definition 2.15 (Gram matrix) and Proposition 2.18 (a kernel's Gram matrices are
positive semi-definite). The guard is run by :class:`kernelclf.kernels.gram.Gram` on the
training data and by :func:`kernelclf.kernels.gram.cross_gram` on test-time kernel rows;
the cubic fits ask :func:`check_memory` before they allocate their ``m x m`` arrays.

The numerical guard
-------------------
A :class:`kernelclf.kernels.gram.Gram` built on training data checks, once:

* that the kernel values are finite (else a ``ValueError`` that names the kernel and
  the scale of the inputs: kernel values overflow for inputs around ``1e300``);
* that the kernel values are of a usable size: the largest ``|k(x_i, x_j)|`` must lie in
  ``[1e-100, 1e100]``, so that products and sums of a few of them (Cholesky factors,
  ``G @ G``, quadratic programmes) neither overflow nor underflow (a zero matrix is
  allowed: it is what a linear kernel gives on zero inputs). The error names the
  kernel and the scale of the inputs and suggests rescaling them;
* that a precomputed matrix is symmetric;
* that the matrix is positive semi-definite (LKC Prop. 2.18), on the whole matrix
  when ``m <= 200`` and on a random sample of 200 rows otherwise (a
  Cholesky factorisation with a small jitter first; eigenvalues only when it fails). A
  clearly indefinite kernel (its smallest eigenvalue at most minus half its largest,
  ``|lambda_min| >= 0.5 lambda_max``, e.g. a callable returning ``-G``) raises a
  ``ValueError``; a slightly indefinite one (a sigmoid kernel; an eigenvalue below
  ``-1e-8 lambda_max sqrt(m)``, more than round-off) gives a ``RuntimeWarning`` that names
  the kernel. Kernels whose class declares ``psd_by_construction`` (the linear,
  polynomial and RBF kernels: positive semi-definite and symmetric by a theorem) skip
  this test and the symmetry test: their matrices can fail them only by round-off.

* that the matrix is not degenerate: a :class:`DegenerateKernelWarning` when it is
  numerically the identity (every input similar only to itself: the median over
  (at most 64 random) rows of ``sum_{j != i} |k_ij| / sqrt(k_ii k_jj)``, scaled up from
  the sample to all ``m`` inputs, is below ``1e-2``; e.g. ``RBF(sigma=1)`` on the raw 8x8 digits, whose
  typical squared distance is about 2400), numerically constant (all entries agree to
  8 digits: a very wide kernel, or identical inputs), or, for kernels with a width (RBF
  kernels), nearly constant: the width is so large that typical pairs look alike (the
  median over pairs of ``1 - k_ij / sqrt(k_ii k_jj)`` below ``1e-4``; e.g. ``RBF(sigma=1e3)``
  on standardised data, where a classifier with its default regularisation predicts
  the majority class). The warning names the kernel's
  ``sigma`` (RBF kernels), the median squared distance between inputs over a sample of
  pairs, and the width ``sigma='scale'`` would give.

Switch the guard off for speed with ``gram_checks("off")`` (a context manager) or
``set_gram_checks("off")``; ``"warn"`` downgrades the error to a warning.

Memory
------
A kernel matrix that would not fit in memory is refused *before* it is allocated, with
a :class:`GramMemoryError` that names its size: the whole training Gram matrix
(:class:`kernelclf.kernels.gram.Gram` with ``precompute``,
:meth:`kernelclf.kernels.gram.Gram.full`), test-time kernel rows
(:func:`kernelclf.kernels.gram.cross_gram`), and, through :func:`check_memory`, the
several ``m x m`` arrays of the cubic fits (Gaussian processes, relevance vector
machines, kernel Fisher discriminant, the LP machines). The limit is the memory
available on the machine (``'auto'``, looked up only for requests above 64 MiB), a
number of MiB, or ``None`` (no check): :func:`set_memory_limit` or the context manager
:func:`memory_limit`.
"""
from __future__ import annotations

import contextlib
import functools
import warnings

import numpy as np

# the degeneracy thresholds, the RBF width for advice and the compiled screen before
# _check_degenerate live in their own module (which imports nothing from this one)
from ._guard_screen import _CONSTANT, _IDENTITY, _WIDE, _rbf_sigma, _screen_degenerate

__all__ = ["IndefiniteKernelError", "gram_checks", "set_gram_checks", "get_gram_checks",
           "check_gram", "DegenerateKernelWarning", "GramMemoryError", "check_memory",
           "available_memory", "set_memory_limit", "get_memory_limit", "memory_limit"]

_MODES = ("raise", "warn", "off")
_STATE = {"mode": "raise"}
_SAMPLE = 200
_CLEAR = 0.5          # |lambda_min| >= 0.5 lambda_max: clearly indefinite
_SLIGHT = 1e-8        # relative round-off allowed below zero
_RANGE = (1e-100, 1e100)  # kernel values the solvers handle: products of two stay finite
_PAIRS = 1000         # pairs of inputs sampled for the typical squared distance
_MEMORY = {"limit": "auto"}
_QUIET = 64 * 2 ** 20  # 'auto' looks at the machine only for requests above this


class IndefiniteKernelError(ValueError):
    """The kernel's Gram matrix on the training inputs is not positive semi-definite."""


class DegenerateKernelWarning(RuntimeWarning):
    """The training Gram matrix is numerically the identity or (nearly) constant."""


class GramMemoryError(MemoryError):
    """A kernel matrix would not fit in the memory allowed (see :func:`set_memory_limit`)."""


# ---------------------------------------------------------------- memory
def set_memory_limit(limit):
    """Set the memory allowed for kernel matrices: ``'auto'`` (default: the memory
    available on the machine), a number of MiB, or ``None`` (no check)."""
    if limit is None or limit == "auto":
        _MEMORY["limit"] = limit
        return
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise ValueError(f"the memory limit must be 'auto', None or a number of MiB > 0, "
                         f"got {limit!r}")
    _MEMORY["limit"] = float(limit)


def get_memory_limit():
    """The current memory limit (``'auto'``, MiB, or ``None``)."""
    return _MEMORY["limit"]


@contextlib.contextmanager
def memory_limit(limit):
    """Context manager: ``with memory_limit(512): est.fit(X, y)`` (MiB)."""
    old = _MEMORY["limit"]
    set_memory_limit(limit)
    try:
        yield
    finally:
        _MEMORY["limit"] = old


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def available_memory():
    """Bytes of memory available to this process now, or ``None`` when unknown.

    Linux: ``MemAvailable`` of ``/proc/meminfo``, within the cgroup's limit (containers);
    elsewhere psutil when installed, else ``os.sysconf``.
    """
    import os

    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        avail = None
    for limit_file, used_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                  ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                   "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        cap, used = _read_int(limit_file), _read_int(used_file)
        if cap is not None and used is not None and cap < 2 ** 60:
            room = max(cap - used, 0)
            avail = room if avail is None else min(avail, room)
            break
    if avail is not None:
        return avail
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _size_text(nbytes):
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes} bytes"


def check_memory(n_rows, n_cols, copies=1, what="kernel matrix", kernel=None):
    """Refuse a request for ``copies`` float64 arrays of ``n_rows x n_cols`` that would not
    fit in the memory allowed (:func:`set_memory_limit`); returns the bytes needed.

    Called before anything is allocated, so a fit that cannot finish fails at once with
    a :class:`GramMemoryError` naming the size, instead of swapping or being killed.
    """
    one = 8 * int(n_rows) * int(n_cols)
    need = one * max(int(copies), 1)
    limit = _MEMORY["limit"]
    if limit is None:
        return need
    if limit == "auto":
        if need <= _QUIET:
            return need
        cap = available_memory()
        if cap is None:
            return need
        source = "the memory available on this machine"
    else:
        cap = int(limit * 2 ** 20)
        source = f"the limit set with set_memory_limit({limit:g}) (MiB)"
    if need > cap:
        name = f" (kernel {_kernel_name(kernel)})" if kernel is not None else ""
        many = "" if copies <= 1 else f"; this fit holds about {copies} such arrays, {_size_text(need)}"
        raise GramMemoryError(
            f"the {what}{name} has {n_rows} x {n_cols} entries, {_size_text(one)} as float64"
            f"{many}: more than {source}, {_size_text(cap)}. Refused before allocating it. "
            "Use fewer examples (a subsample, or batches at prediction time) or an explicit "
            "low-rank feature map with a linear method; "
            "kernelclf.kernels.gram_guard.set_memory_limit(None) switches this check off")
    return need


def set_gram_checks(mode):
    """Set the Gram guard globally: ``'raise'`` (default), ``'warn'`` or ``'off'``."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    _STATE["mode"] = mode


def get_gram_checks():
    """The current mode of the Gram guard."""
    return _STATE["mode"]


@contextlib.contextmanager
def gram_checks(mode):
    """Context manager: ``with gram_checks('off'): est.fit(X, y)``."""
    old = _STATE["mode"]
    set_gram_checks(mode)
    try:
        yield
    finally:
        _STATE["mode"] = old


def _kernel_name(kernel):
    try:
        return repr(kernel)
    except Exception:  # pragma: no cover - a broken __repr__
        return type(kernel).__name__


def _scale_text(X):
    if isinstance(X, np.ndarray) and X.dtype.kind in "fiu" and X.size:
        return f"; the inputs reach |x| = {float(np.max(np.abs(X))):.3g}, rescale them"
    return ""


def _check_finite(values, kernel, X, what="Gram matrix"):
    # (np.all's result by its ufunc: called once per column made, where the wrapper's
    # Python steps cost more than the test)
    if not np.logical_and.reduce(np.isfinite(values), axis=None):
        name = _kernel_name(kernel) if kernel is not None else "given as a matrix"
        raise ValueError(
            f"the {what} of the kernel {name} contains NaN or infinity"
            f"{_scale_text(X)} (kernel values overflow)")


def _finite_columns(column, kernel, X):
    def checked(i):
        col = column(i)
        _check_finite(col, kernel, X)
        return col
    return checked


def _asymmetry(G, block=1024):
    """``max |G - G'|`` in row blocks (no second ``m x m`` array)."""
    worst = 0.0
    for s in range(0, G.shape[0], block):
        worst = max(worst, float(np.max(np.abs(G[s:s + block] - G[:, s:s + block].T))))
    return worst


def _typical_sq_distance(X, random_state=0):
    """Median squared distance over up to ``_PAIRS`` random pairs of different inputs."""
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu"
            and X.shape[0] >= 2):
        return None
    m = X.shape[0]
    n = min(_PAIRS, m * (m - 1) // 2)
    rng = np.random.default_rng(random_state)
    i = rng.integers(0, m, size=n)
    j = (i + rng.integers(1, m, size=n)) % m
    with np.errstate(over="ignore", invalid="ignore"):
        diff = X[i].astype(float) - X[j]
        return float(np.median(np.einsum("ij,ij->i", diff, diff))), n


_COLUMNS = 20000     # columns used by the degeneracy check (a sample beyond this)
_ROWS = 64           # rows used by the degeneracy check: the median of 64 row masses


@functools.lru_cache(maxsize=64)
def _degeneracy_sample(m, random_state=0):
    """Rows (at most ``_ROWS``) and columns (at most ``_COLUMNS``) for the check (kept per
    ``m``: read-only arrays)."""
    rng = np.random.default_rng(random_state)
    rows = np.arange(m) if m <= _ROWS else np.sort(rng.choice(m, _ROWS, replace=False))
    cols = np.arange(m) if m <= _COLUMNS else np.sort(rng.choice(m, _COLUMNS, replace=False))
    rows.flags.writeable = cols.flags.writeable = False
    return rows, cols


def _block(G, rows, cols):
    """``G[rows][:, cols]`` for the sample of :func:`_degeneracy_sample` (read only): the
    rows alone when ``cols`` are all columns (one gather instead of ``np.ix_``'s), ``G``
    itself when ``rows`` are all rows too."""
    if cols.size != G.shape[1]:
        return G[np.ix_(rows, cols)]
    return G if rows.size == G.shape[0] else G[rows]


def _typical_closeness(R, rows, cols, ir, ic, most=64):
    """The median over pairs ``i != j`` of the block of ``1 - k_ij / sqrt(k_ii k_jj)`` (at
    most ``most`` columns of it): how far typical pairs are from looking identical.

    ``None`` when the block has no such pair, or when fewer than half of its pairs are
    within ``_WIDE`` of identical (then the median is at least ``_WIDE``: the kernel is not
    nearly constant, and the median itself, which costs a sort, is not needed).
    """
    step = max(1, -(-len(cols) // most))
    sub = slice(None, None, step)
    C = R[:, sub] * np.outer(ir, ic[sub])
    off = rows[:, None] != cols[sub][None, :]           # not an input with itself
    n_off = np.count_nonzero(off)
    if n_off == 0 or 2 * np.count_nonzero((C > 1.0 - _WIDE) & off) < n_off:
        return None
    return float(np.median(1.0 - C[off]))


def _check_degenerate(R, rows, cols, d_rows, d_cols, n_total, kernel, X):
    """Warn when the Gram matrix is numerically the identity or numerically constant,
    judged on its block ``R = G[rows][:, cols]`` with diagonals ``d_rows``, ``d_cols``
    (module docstring)."""
    if n_total < 2:
        return
    hi, lo = float(R.max()), float(R.min())
    top = max(hi, -lo)
    if top == 0.0:
        return
    sigma = _rbf_sigma(kernel)
    wide, kind = None, None
    if hi - lo <= _CONSTANT * top:
        kind = "constant"
        detail = (f"all its entries equal {float(R[0, 0]):.6g} to 8 digits, so the kernel "
                  "does not tell the inputs apart")
    else:
        if not (np.all(d_rows > 0) and np.all(d_cols > 0)):
            return
        ir, ic = 1.0 / np.sqrt(d_rows), 1.0 / np.sqrt(d_cols)
        if isinstance(sigma, float):
            wide = _typical_closeness(R, rows, cols, ir, ic)
    if wide is not None and wide < _WIDE:
        kind = "nearly constant"
        detail = (f"the kernel values of typical pairs of inputs differ from those of an input "
                  f"with itself by a fraction {wide:.2g} (median over pairs), so the kernel "
                  "barely tells the inputs apart: a classifier with its default "
                  "regularisation may then predict the majority class for every input, and "
                  "a regressor a nearly constant function")
    elif kind is None:
        A = np.abs(R)
        # sum_{j != i} |k_ij| / sqrt(k_ii k_jj): a matrix-vector product, less each
        # row's own entry (rows and cols are sorted, so searchsorted finds it)
        at = np.minimum(np.searchsorted(cols, rows), len(cols) - 1)
        own = cols[at] == rows
        total = (A @ ic) * ir
        if own.all():
            total -= A[np.arange(len(rows)), at] * ir * ic[at]
        else:
            total[own] -= A[np.flatnonzero(own), at[own]] * ir[own] * ic[at[own]]
        others = len(cols) - own.astype(int)
        mass = np.maximum(total, 0.0) * (n_total - 1) / np.maximum(others, 1)
        mass.sort()                 # (the median; np.median costs more on 64 numbers)
        h = mass.size // 2
        typical = float(mass[h] if mass.size % 2 else 0.5 * (mass[h - 1] + mass[h]))
        if typical > _IDENTITY:
            return
        C = A * ir[:, None] * ic[None, :]
        C[np.flatnonzero(own), at[own]] = 0.0
        kind = "the identity"
        detail = (f"each input is similar only to itself (in the median row the off-diagonal "
                  f"values, normalised by the diagonal, sum to {typical:.2g}; the largest is "
                  f"{float(C.max()):.2g}), so the model can memorise the training sample but "
                  "says almost nothing about new inputs")
    name = _kernel_name(kernel) if kernel is not None else "given as a matrix"
    state = kind if kind == "nearly constant" else f"numerically {kind}"
    parts = [f"the training Gram matrix of the kernel {name} is {state}: {detail}."]
    dist = _typical_sq_distance(X)
    if dist is not None:
        d2, pairs = dist
        if d2 == 0.0:
            parts.append(f"The inputs are (nearly) all equal: the median squared distance "
                         f"between them is 0 ({pairs} random pairs).")
        else:
            text = (f"The typical squared distance between inputs is {d2:.3g} (median over "
                    f"{pairs} random pairs)")
            if isinstance(sigma, float):
                text += (f", against 2 sigma^2 = {2 * sigma * sigma:.3g} for sigma = "
                         f"{sigma:.3g}: the kernel is about exp(-{d2 / (2 * sigma) / sigma:.3g}) "
                         "there")
            parts.append(text + ".")
    if isinstance(sigma, float) and dist is not None and dist[0] > 0:
        from .vector import scale_sigma

        other = ("; or a width nearer the typical distance between the inputs"
                 if kind == "nearly constant" else "; or standardise the inputs")
        parts.append(f"Use sigma='scale' (scikit-learn's gamma='scale', what kernel='rbf' "
                     f"uses): sigma = {scale_sigma(X):.3g} here{other}.")
    elif dist is None or dist[0] > 0:
        parts.append("Rescale the inputs or choose kernel parameters under which different "
                     "inputs are somewhat similar (for RBF kernels: sigma='scale').")
    warnings.warn(" ".join(parts), DegenerateKernelWarning, stacklevel=4)


class _LazyName:
    """``str()`` gives the kernel's name (``repr`` is slow for estimators: only on error)."""

    def __init__(self, kernel):
        self.kernel = kernel

    def __format__(self, spec):
        return _kernel_name(self.kernel) if self.kernel is not None else "given as a matrix"

    def __str__(self):
        return self.__format__("")


def _psd_by_construction(kernel):
    """Whether the kernel's own class declares every Gram matrix positive semi-definite
    (``Kernel.psd_by_construction``; read from the class itself, not inherited)."""
    return kernel is not None and bool(type(kernel).__dict__.get("psd_by_construction",
                                                                  False))


def _check_range(G, kernel=None, X=None, mode=None, scale=None):
    """The largest absolute value of ``G``; refuses values the solvers would under- or
    overflow on (outside ``[1e-100, 1e100]``). Returns the scale (0 for a zero matrix).
    ``scale``: that value when the caller has it."""
    mode = get_gram_checks() if mode is None else mode
    if scale is None:
        scale = max(float(G.max()), -float(G.min())) if G.size else 0.0
    if mode == "off" or scale == 0.0:
        return scale
    if not _RANGE[0] <= scale <= _RANGE[1]:
        way = "underflow" if scale < _RANGE[0] else "overflow"
        _complain(mode, f"the kernel {_LazyName(kernel)} gives values up to {scale:.3g} on "
                  f"the training inputs, outside [{_RANGE[0]:.0e}, {_RANGE[1]:.0e}] where the "
                  f"solvers would {way}{_scale_text(X)}. Rescale the inputs (or the kernel); "
                  "kernelclf.kernels.gram_guard.gram_checks('off') skips this check",
                  error=True, kind=ValueError)
    return scale


def check_gram(G, kernel=None, X=None, mode=None, random_state=0, degenerate=True,
               bounds=None):
    """Check a (sub-)Gram matrix: finite, symmetric, positive semi-definite, not degenerate.

    Returns the smallest eigenvalue relative to the largest one. Raises
    :class:`IndefiniteKernelError` for a clearly indefinite kernel and warns for a
    slightly indefinite one, and (``degenerate=True``) warns with a
    :class:`DegenerateKernelWarning` when the matrix is numerically the identity or
    constant (see the module docstring); ``mode`` overrides the global setting.
    ``bounds``: ``(lo, hi)`` when the caller knows that every entry of ``G`` is finite
    and lies in ``[lo, hi]``, and that ``max(hi, -lo)`` is the largest absolute entry (the
    range check then makes no pass over ``G``).
    """
    mode = get_gram_checks() if mode is None else mode
    G = np.asarray(G, dtype=float)
    if G.size == 0:
        return 0.0
    # finite exactly when the largest and the smallest entry are (NaN propagates through
    # max and min); the message comes from _check_finite
    lo, hi = (float(G.min()), float(G.max())) if bounds is None else \
        (float(bounds[0]), float(bounds[1]))
    if not (np.isfinite(hi) and np.isfinite(lo)):
        _check_finite(G, kernel, X)
    if mode == "off":
        return 0.0
    name = _LazyName(kernel)            # the repr is built only for a message
    scale = _check_range(G, kernel, X, mode, scale=max(hi, -lo))
    if scale == 0.0:        # zero inputs with a linear kernel, centred constant inputs...
        return 0.0
    if _psd_by_construction(kernel):     # symmetric and PSD by a theorem
        if degenerate:
            rows, cols = _degeneracy_sample(G.shape[0], random_state)
            d = np.diag(G)
            if not _screen_degenerate(G, rows, cols, d[rows], d[cols], G.shape[0], kernel):
                _check_degenerate(_block(G, rows, cols), rows, cols, d[rows], d[cols],
                                  G.shape[0], kernel, X)
        return 0.0
    if _asymmetry(G) > 1e-8 * scale:
        _complain(mode, f"the Gram matrix of the kernel {name} is not symmetric "
                  "(a kernel must satisfy k(x, x') = k(x', x))")
        G = 0.5 * (G + G.T)
    m = G.shape[0]
    if degenerate:
        rows, cols = _degeneracy_sample(m, random_state)
        d = np.diag(G)
        if not _screen_degenerate(G, rows, cols, d[rows], d[cols], m, kernel):
            _check_degenerate(_block(G, rows, cols), rows, cols, d[rows], d[cols], m, kernel,
                              X)
    if m > _SAMPLE:
        idx = np.sort(np.random.default_rng(random_state).choice(m, _SAMPLE, replace=False))
        G = G[np.ix_(idx, idx)]
    # fast path: a Cholesky factorisation with a small relative jitter succeeds
    jitter = _SLIGHT * max(float(np.trace(G)) / G.shape[0], 1e-300) * max(1.0, np.sqrt(m))
    try:
        np.linalg.cholesky(G + jitter * np.eye(G.shape[0]))
        return 0.0
    except np.linalg.LinAlgError:
        pass
    ev = np.linalg.eigvalsh(G)
    lo, hi = float(ev[0]), float(ev[-1])
    top = max(abs(lo), abs(hi), 1e-300)
    if lo >= -_SLIGHT * top * max(1.0, np.sqrt(m)):
        return lo / top
    if hi <= 0 or -lo >= _CLEAR * hi:
        _complain(mode, f"the kernel {name} is not positive semi-definite on the training "
                  f"inputs: its Gram matrix has eigenvalues down to {lo:.3g} against a largest "
                  f"of {hi:.3g} (LKC Prop. 2.18). Use a valid kernel, or switch the check off "
                  "with kernelclf.kernels.gram_guard.gram_checks('off').", error=True)
    else:
        warnings.warn(
            f"the kernel {name} is slightly indefinite on the training inputs (smallest "
            f"Gram eigenvalue {lo:.3g}, largest {hi:.3g}); solvers may behave as for a "
            "nearby positive semi-definite kernel", RuntimeWarning, stacklevel=3)
    return lo / top


def _complain(mode, message, error=True, kind=None):
    if mode == "raise" and error:
        raise (kind or IndefiniteKernelError)(message)
    warnings.warn(message, RuntimeWarning, stacklevel=4)
