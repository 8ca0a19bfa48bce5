"""numba's ``njit`` for the package, with an on-disk cache that notices edits anywhere.

Book chapter 04 (``book/04_support_vector_machines.md``); the compiled SMO and billiard.

numba stores a compiled function (``cache=True``) with a stamp of the one source file
that defines it. The package's compiled functions call and inline functions of other
modules (the SMO loops inline the kernel columns of
:mod:`kernelclf.kernels.native_columns` and the step of :mod:`kernelclf.margin.smo_step`),
so after an edit to one module another module's cache would still hold the old code,
and calls between the two disagree about their arguments: wrong numbers, or a crash.
Importing this module gives numba cache locators for the package's files whose stamp
is one hash over every module of the package that compiles code (those mentioning
``njit``): an edit to any of them recompiles them all, once.

The locators wrap numba's own (a ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the
module, the user-wide cache); they are put in front of numba's list, which is not a
public interface: if it is missing, numba's default caching applies unchanged.

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
_STAMPS = {}


def source_stamp(root=_ROOT):
    """The hash of the ``.py`` files under ``root`` that mention ``njit`` (their paths
    and contents, in path order): the stamp of every compiled function of the package."""
    root = Path(root)
    if root not in _STAMPS:
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            text = path.read_bytes()
            if b"njit" in text:
                h.update(path.relative_to(root).as_posix().encode() + b"\0" + text + b"\0")
        _STAMPS[root] = h.hexdigest()
    return _STAMPS[root]


def _inside(py_file):
    return os.path.abspath(py_file).startswith(str(_ROOT) + os.sep)


def _install():
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
    if any(getattr(c, "_kernelclf", False) for c in impl._locator_classes):
        return True

    def locator(base):
        class PackageLocator(base):
            _kernelclf = True

            def get_source_stamp(self):
                return source_stamp()

            @classmethod
            def from_function(cls, py_func, py_file):
                return super().from_function(py_func, py_file) if _inside(py_file) else None

        PackageLocator.__name__ = PackageLocator.__qualname__ = "Package" + base.__name__
        return PackageLocator

    impl._locator_classes = [locator(b) for b in bases] + list(impl._locator_classes)
    return True


INSTALLED = HAVE_NUMBA and _install()
