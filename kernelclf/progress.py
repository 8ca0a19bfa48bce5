"""Progress bars for long loops: the command line, scripts and notebooks.

Book chapter 12 (``book/12_bpm_experiments.md``); used by the experiment protocols of
BPM §4 (:mod:`kernelclf.experiments`) and by any notebook loop that runs for long.

One helper, :func:`progress`, wraps `tqdm <https://tqdm.github.io>`_ with a single
policy for when a bar is shown:

* ``enabled=True`` / ``False`` always wins (the command line passes ``not --quiet``);
* otherwise the environment variable ``KERNELCLF_PROGRESS`` decides when it is set
  (``0``/``off``/``false``/``no`` hide the bars, ``1``/``on``/``true``/``yes`` show them);
  the Makefile sets ``KERNELCLF_PROGRESS=0`` for the book build and the notebook tests,
  so executed chapters never store progress bars;
* otherwise a bar is shown in an interactive Jupyter kernel (as a widget, through
  ``tqdm.auto``) and in a terminal (``sys.stderr`` is a TTY), and hidden everywhere
  else (pipes, log files, test runs).

Bars always go to ``sys.stderr``, so the results printed on ``sys.stdout`` stay clean.

Long fits
---------
The estimators whose cost grows like ``m^3`` (Gaussian processes, relevance vector
machines, the kernel Fisher discriminant, the LP machines) report their stages and
iterations through :func:`fit_progress`: the same policy, but only for fits on at
least :data:`LONG_FIT_M` examples (from a fraction of a second to several seconds and
more), so small fits in a loop never draw bars.
"""
from __future__ import annotations

import os
import sys

__all__ = ["progress", "progress_enabled", "fit_progress", "ENV_VAR", "LONG_FIT_M"]

#: the environment variable that switches progress bars on or off everywhere
ENV_VAR = "KERNELCLF_PROGRESS"

#: fits on at least this many examples show their progress (:func:`fit_progress`);
#: a cubic fit at m = 3000 takes from a fraction of a second (one Cholesky factorisation of the
#: 3000 x 3000 matrix)
#: to several seconds (an eigendecomposition, or an iterative fit) on one core
LONG_FIT_M = 3000

_OFF = {"0", "off", "false", "no"}
_ON = {"1", "on", "true", "yes"}


def _in_jupyter_kernel():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:  # pragma: no cover - a broken IPython install
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def progress_enabled(enabled=None):
    """Whether :func:`progress` shows a bar (the policy of the module docstring)."""
    if enabled is not None:
        return bool(enabled)
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env in _OFF:
        return False
    if env in _ON:
        return True
    if _in_jupyter_kernel():
        return True
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Silent:
    """What :func:`progress` returns when tqdm is not installed: iterates, counts, shows
    nothing, and has the methods callers use on a bar."""

    def __init__(self, iterable=None, total=None):
        self.iterable, self.total, self.n = iterable, total, 0

    def __iter__(self):
        for item in self.iterable:
            self.n += 1
            yield item

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, *args, **kwargs):
        pass

    def set_description(self, *args, **kwargs):
        pass

    def write(self, text, *args, **kwargs):
        print(text, file=sys.stderr)

    def close(self):
        pass


def progress(iterable=None, *, total=None, desc=None, enabled=None, unit="it", **kwargs):
    """A tqdm progress bar on ``sys.stderr``, or a silent stand-in when disabled.

    Parameters
    ----------
    iterable : iterable, optional
        Wrapped as by ``tqdm(iterable)``; omit it to drive the bar by hand with
        ``bar.update(n)``.
    total : int, optional
        Number of steps (taken from ``len(iterable)`` when possible).
    desc : str, optional
        Label in front of the bar.
    enabled : bool or None
        ``None`` applies the policy of :func:`progress_enabled`.
    unit : str
        Name of one step, as tqdm's ``unit``.
    **kwargs
        Passed to tqdm (``initial``, ``leave``, ``postfix`` ...).

    Returns
    -------
    tqdm.tqdm
        Also when disabled (``disable=True``), so ``update``, ``set_postfix_str``,
        ``write`` and ``close`` can be called unconditionally. Without tqdm installed
        (it comes with the ``fast`` extra) a silent stand-in with the same methods.

    Examples
    --------
    >>> from kernelclf.progress import progress
    >>> sum(progress(range(3), enabled=False))
    3
    """
    show = progress_enabled(enabled)
    try:
        if show and enabled is None and _in_jupyter_kernel():
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm
    except ImportError:      # tqdm is in the 'fast' extra: without it, no bar
        return _Silent(iterable, total)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, total=total, desc=desc, disable=not show, file=sys.stderr,
                unit=unit, **kwargs)


def fit_progress(m, *, total=None, desc=None, unit="it", enabled=None, **kwargs):
    """A :func:`progress` bar for the stages or iterations of a fit on ``m`` examples.

    Shown (under the policy of :func:`progress_enabled`) only when
    ``m >= LONG_FIT_M``; smaller fits get the silent stand-in, unless ``enabled`` says
    otherwise. The bar is closed by the caller (``bar.close()``, or ``with``).

    Examples
    --------
    >>> from kernelclf.progress import fit_progress
    >>> bar = fit_progress(10, total=2, desc="demo")      # a small fit: no bar
    >>> bar.update(); bar.close()
    """
    if enabled is None and m < LONG_FIT_M:
        enabled = False
    kwargs.setdefault("leave", False)
    return progress(total=total, desc=desc, unit=unit, enabled=enabled, **kwargs)
