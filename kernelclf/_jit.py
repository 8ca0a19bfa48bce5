"""numba's ``njit`` for the package, with an on-disk cache that notices edits anywhere.

Book chapter 04 (``book/04_support_vector_machines.md``); the compiled SMO and billiard.

numba stores a compiled function (``cache=True``) with a stamp of the one source file
that defines it. The package's compiled functions call and inline functions of other
modules (the SMO loops inline the kernel columns of
:mod:`kernelclf.kernels.native_columns` and the step of :mod:`kernelclf.margin.smo.step`),
so after an edit to one module another module's cache would still hold the old code,
and calls between the two disagree about their arguments: wrong numbers, or a crash.
Importing this module gives numba cache locators for the package's files whose stamp
is one hash over every module of the package that compiles code (those mentioning
``njit``): an edit to any of them recompiles them all, once.

numba asks for the stamp each time it sets up the cache of a compiled function (when
the module defining it is imported or reloaded). The stamp is recomputed then whenever
a ``.py`` file of the package has changed (its modification time or size) since the
last computation: after an edit and a reload in the same process (a notebook's
autoreload) the new code is compiled, not the old one loaded from the cache. Paths are
resolved, so a package imported through a symbolic link gets the same stamp.

The locators wrap numba's own (a ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the
module, the user-wide cache); they are put in front of numba's list, which is not a
public interface (``numba.core.caching``; ``pyproject.toml`` pins numba to the versions
this is tested with): if it is missing, numba's default caching applies unchanged.

With the environment variable ``KERNELCLF_NO_NUMBA`` set to a non-empty value other than
``0``, numba is hidden from the package even where it is installed: this module does not
import it (``HAVE_NUMBA`` is False, there is no ``njit`` to import), so every module takes
its NumPy twin, as in an install without numba (Pyodide, no ``fast`` extra). ``make test``
runs the estimator tests once that way.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: numba hidden from the package (the environment variable, read once at import)
NO_NUMBA = os.environ.get("KERNELCLF_NO_NUMBA", "") not in ("", "0")

HAVE_NUMBA = False
if not NO_NUMBA:
    try:
        from numba import njit  # noqa: F401 - what the compiled modules import from here
        HAVE_NUMBA = True
    except ImportError:  # pragma: no cover - Pyodide: ``from .._jit import njit`` then
        pass            # fails, and the importing modules run their NumPy twins

__all__ = ["source_stamp"]

_ROOT = Path(__file__).resolve().parent
_STAMPS = {}        # root -> (the files' paths, times and sizes, the stamp)


def _files(root):
    """``(path, modification time in ns, size)`` of every ``.py`` file under ``root``, in
    path order."""
    out = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                st = os.stat(path)
                out.append((path, st.st_mtime_ns, st.st_size))
    return out


def source_stamp(root=_ROOT):
    """The hash of the ``.py`` files under ``root`` that mention ``njit`` (their paths
    and contents, in path order): the stamp of every compiled function of the package.
    Computed again whenever a ``.py`` file under ``root`` has changed (time or size)."""
    root = Path(root).resolve()
    files = _files(root)
    cached = _STAMPS.get(root)
    if cached is None or cached[0] != files:
        h = hashlib.sha256()
        for path, _, _ in files:
            with open(path, "rb") as fh:
                text = fh.read()
            if b"njit" in text:
                rel = Path(path).relative_to(root).as_posix()
                h.update(rel.encode() + b"\0" + text + b"\0")
        cached = _STAMPS[root] = (files, h.hexdigest())
    return cached[1]


def _inside(py_file, root=_ROOT):
    return os.path.realpath(py_file).startswith(str(root) + os.sep)


def _install(root=_ROOT):
    """Put locators for the compiled functions defined under ``root`` in front of numba's
    list (once per root); False when numba's interface is not there."""
    root = Path(root).resolve()
    try:
        from numba.core import caching

        def get(name):          # (older numba: the same names with a leading underscore)
            return getattr(caching, name, None) or getattr(caching, "_" + name)

        impl = get("CacheImpl")
        bases = tuple(get(n) for n in ("UserProvidedCacheLocator", "InTreeCacheLocator",
                                        "UserWideCacheLocator"))
        impl._locator_classes     # noqa: B018 - the list this module extends
    except (ImportError, AttributeError):  # pragma: no cover - another numba
        return False
    if any(getattr(c, "_kernelclf", None) == root for c in impl._locator_classes):
        return True

    def locator(base):
        class PackageLocator(base):
            _kernelclf = root

            def get_source_stamp(self):
                return source_stamp(root)

            @classmethod
            def from_function(cls, py_func, py_file):
                if not _inside(py_file, root):
                    return None
                return super().from_function(py_func, os.path.realpath(py_file))

        PackageLocator.__name__ = PackageLocator.__qualname__ = "Package" + base.__name__
        return PackageLocator

    impl._locator_classes = [locator(b) for b in bases] + list(impl._locator_classes)
    return True


INSTALLED = HAVE_NUMBA and _install()
