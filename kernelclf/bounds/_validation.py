"""Shared argument checks and the return-value convention of :mod:`kernelclf.bounds`.

Book chapters 14 and A (``book/14_vc_theory_and_srm.md``, ``book/appendix_a_concentration.md``);
shared with ``book/15_margin_bounds.md``; LKC Ch. 4-5, App. A.5.

Every check accepts a scalar or an array-like, converts it to a float (or integer) numpy
array, and raises a :class:`ValueError` naming the argument and the violated condition.
The bound functions broadcast their checked arguments against each other with
:func:`broadcast` and hand the result to :func:`result`, which returns a numpy scalar for
scalar inputs and an array otherwise.

Convention (the whole library): a bound function returns the **raw** value of the
right-hand side of its theorem, never clipped. A probability or risk bound of 1 or more
says nothing; :func:`trivial` marks those entries and :func:`clip_trivial` maps them to 1
for plotting. Keeping the raw value lets tests and chapters see *how far* from
non-trivial a bound is.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_float",
    "check_delta",
    "check_m",
    "check_int",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_open_probability",
    "check_finite",
    "broadcast",
    "result",
    "trivial",
    "clip_trivial",
]


def as_float(x, name):
    """Convert ``x`` to a float ndarray; raise ``ValueError`` for NaN or non-numeric input."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {x!r}") from exc
    if np.isnan(a).any():
        raise ValueError(f"{name} must not contain NaN")
    return a


def check_finite(x, name):
    """Float array of finite values."""
    a = as_float(x, name)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite, got {x!r}")
    return a


def check_delta(delta, name="delta"):
    """Confidence parameter: float array with every entry in the open interval (0, 1)."""
    a = as_float(delta, name)
    if ((a <= 0) | (a >= 1)).any():
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {delta!r}")
    return a


def check_open_probability(x, name):
    """Float array with entries in (0, 1); same as :func:`check_delta` with another name."""
    return check_delta(x, name)


def check_probability(x, name):
    """Float array with entries in the closed interval [0, 1]."""
    a = as_float(x, name)
    if ((a < 0) | (a > 1)).any():
        raise ValueError(f"{name} must lie in [0, 1], got {x!r}")
    return a


def check_positive(x, name, allow_inf=False):
    """Float array with entries > 0 (finite unless ``allow_inf``)."""
    a = as_float(x, name)
    if (a <= 0).any():
        raise ValueError(f"{name} must be > 0, got {x!r}")
    if not allow_inf and not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite, got {x!r}")
    return a


def check_nonnegative(x, name, allow_inf=False):
    """Float array with entries >= 0 (finite unless ``allow_inf``)."""
    a = as_float(x, name)
    if (a < 0).any():
        raise ValueError(f"{name} must be >= 0, got {x!r}")
    if not allow_inf and not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite, got {x!r}")
    return a


def check_int(x, name, minimum=0):
    """Integer (int64) array with entries >= ``minimum``; floats must be whole numbers."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got a boolean")
    if isinstance(x, numbers.Integral):
        a = np.asarray(int(x), dtype=np.int64)
    else:
        f = as_float(x, name)
        if not np.isfinite(f).all() or (f != np.round(f)).any():
            raise ValueError(f"{name} must contain whole numbers, got {x!r}")
        a = f.astype(np.int64)
    if (a < minimum).any():
        raise ValueError(f"{name} must be >= {minimum}, got {x!r}")
    return a


def check_m(m, name="m", minimum=1):
    """Sample size: integer array with every entry >= ``minimum`` (default 1)."""
    return check_int(m, name, minimum=minimum)


def broadcast(*arrays):
    """Broadcast checked arguments; raise ``ValueError`` with the shapes if impossible."""
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError as exc:
        shapes = ", ".join(str(np.shape(a)) for a in arrays)
        raise ValueError(f"arguments cannot be broadcast together: shapes {shapes}") from exc


def result(value):
    """Return a numpy scalar for 0-d input, else the array itself (float dtype)."""
    value = np.asarray(value, dtype=float)
    return value[()] if value.ndim == 0 else value


def trivial(bound):
    """Boolean mask: True where a probability/risk bound is >= 1 and so says nothing.

    Parameters
    ----------
    bound : array_like
        Raw values returned by a function of :mod:`kernelclf.bounds`.
    """
    b = np.asarray(bound, dtype=float)
    out = b >= 1.0
    return bool(out) if out.ndim == 0 else out


def clip_trivial(bound):
    """The bound with trivial entries (>= 1) replaced by 1, e.g. for plots."""
    return result(np.minimum(np.asarray(bound, dtype=float), 1.0))
