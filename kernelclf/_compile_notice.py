"""A one-line notice while numba compiles the package's loops on first use.

Book chapter 04 (``book/04_support_vector_machines.md``); the compiled SMO, billiard and
separability loops (:mod:`kernelclf._jit`).

numba compiles a function the first time it is called with new argument types, and keeps
the machine code in its on-disk cache; after an install or an update of the package the
first fits therefore pause for seconds while nothing is printed. numba announces each
compilation it cannot take from the cache (the ``numba:compile`` event); this module
listens, and when a compilation of the package's code starts, prints one line on
``sys.stderr`` saying what is compiled and that ``python -m kernelclf.compile`` does it
ahead of time (at most one line per pause: no line while compilations follow each other
within :data:`QUIET_SECONDS`). The line follows the policy of the progress bars
(:func:`kernelclf.progress.progress_enabled`): shown in a terminal and in Jupyter, not in
pipes, logs and test runs, nor where ``KERNELCLF_PROGRESS=0`` (the book's builds). Without
numba (Pyodide, bare installs, or numba hidden by ``KERNELCLF_NO_NUMBA``) nothing is
compiled and nothing is registered.
"""
from __future__ import annotations

import contextlib
import sys
import time

__all__ = ["QUIET_SECONDS", "install", "notices", "silenced"]

#: compilations that start within this many seconds of the last one's end share its line
QUIET_SECONDS = 5.0

_STATE = {"installed": False, "depth": 0, "last_end": None, "lines": [], "silent": False}


def _module_of(event):
    data = getattr(event, "data", None) or {}
    disp = data.get("dispatcher") if isinstance(data, dict) else None
    func = getattr(disp, "py_func", None)
    return getattr(func, "__module__", "") or "", getattr(func, "__name__", "?")


def _notice(module, name):
    from .progress import progress_enabled

    last = _STATE["last_end"]
    if last is not None and time.monotonic() - last < QUIET_SECONDS:
        return
    line = (f"kernelclf: numba is compiling {module} ({name}) for this machine, once after an "
            "install or update (the result is cached); `python -m kernelclf.compile` does "
            "it ahead of time")
    _STATE["lines"].append(line)
    if progress_enabled() and not _STATE["silent"]:
        stream = sys.stderr
        if stream is not None:
            print(line, file=stream, flush=True)


def install():
    """Register the listener with numba (once; False when numba is not installed)."""
    if _STATE["installed"]:
        return True
    from . import _jit

    if not _jit.HAVE_NUMBA:      # not installed, or hidden by KERNELCLF_NO_NUMBA
        return False
    try:
        from numba.core import event
    except ImportError:          # pragma: no cover - Pyodide, bare installs
        return False

    class _Listener(event.Listener):
        def on_start(self, ev):
            module, name = _module_of(ev)
            if not module.startswith("kernelclf."):
                return
            if _STATE["depth"] == 0:
                _notice(module, name)
            _STATE["depth"] += 1

        def on_end(self, ev):
            module, _ = _module_of(ev)
            if not module.startswith("kernelclf."):
                return
            _STATE["depth"] = max(_STATE["depth"] - 1, 0)
            _STATE["last_end"] = time.monotonic()

    event.register("numba:compile", _Listener())
    _STATE["installed"] = True
    return True


def notices():
    """The notices composed in this process so far (shown or not), oldest first."""
    return list(_STATE["lines"])


@contextlib.contextmanager
def silenced():
    """No notice inside the block (``python -m kernelclf.compile`` reports for itself)."""
    old = _STATE["silent"]
    _STATE["silent"] = True
    try:
        yield
    finally:
        _STATE["silent"] = old
