"""Discovery of the package's public estimators (used by the contract and bad-input tests).

Book chapter 00 (``book/00_preface.md``). Every public class of a package module
that is a scikit-learn estimator (and not a kernel) is listed, so that a new
estimator is covered by ``tests/test_common.py`` and ``tests/test_bad_input.py``
without editing them.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

__all__ = ["all_estimators", "default_kernel_table"]

#: the protocols and the book's tooling hold no estimators of their own
_SKIP_PACKAGES = ("kernelclf.experiments", "kernelclf.book")


def all_estimators(type_filter=None):
    """Return sorted ``(name, class)`` pairs of public estimators of the package.

    ``type_filter`` is ``'classifier'``, ``'regressor'`` or ``None`` (all).
    """
    from sklearn.base import BaseEstimator, is_classifier, is_regressor

    from .kernels.closure import Kernel

    found = {}
    for info in pkgutil.walk_packages([str(Path(__file__).parent)], "kernelclf."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")) or name.startswith(_SKIP_PACKAGES) \
                or name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for cname, obj in vars(module).items():
            if (cname.startswith("_") or not inspect.isclass(obj) or obj.__module__ != name
                    or not issubclass(obj, BaseEstimator) or issubclass(obj, Kernel)
                    or inspect.isabstract(obj)):
                continue
            if not (hasattr(obj, "fit") and (hasattr(obj, "predict") or hasattr(obj, "transform"))):
                continue
            found[cname] = obj
    out = sorted(found.items())
    if type_filter == "classifier":
        out = [(n, c) for n, c in out if is_classifier(c())]
    elif type_filter == "regressor":
        out = [(n, c) for n, c in out if is_regressor(c())]
    return out


def default_kernel_table():
    """``{estimator name: default kernel}`` for every public estimator."""
    table = {}
    for name, cls in all_estimators():
        factory = getattr(cls, "_default_kernel", None)
        if factory is not None and "kernel" in cls().get_params():
            table[name] = factory()
    return table
