"""Book chapter 00 (``book/00_preface.md``): checkers for the book's self-study exercises.

Under a checkable exercise the chapter has a cell such as::

    answer = None  # your answer to the exercise
    check("ch03-ex-2", answer)

which prints ✔ or ✘ with a hint that names the likely mistake and the section to reread.
:func:`progress` shows which exercises of a chapter have been checked right since the
notebook was opened. The entries live in one module per chapter (``ch03.py`` holds the
``EXERCISES`` of chapter 3), keyed by the labels the book uses; each holds the worked
solution's answer and at least two typical wrong answers with their hints, which
``tests/test_exercises.py`` runs, so tests and readers see the same cases.
"""
from __future__ import annotations

import importlib
import pkgutil
import re

from ._core import CheckResult, Exercise, Progress

__all__ = ["check", "progress", "registry", "Exercise", "CheckResult", "Progress"]

_LABEL = re.compile(r"^(ch\d\d[a-z]?|appa)-ex-\d+$")
_REGISTRY: dict[str, Exercise] | None = None
_RIGHT: set[str] = set()


def registry():
    """All registered exercises, ``{label: Exercise}``, from every chapter module."""
    global _REGISTRY
    if _REGISTRY is None:
        reg = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            mod = importlib.import_module(f"{__name__}.{info.name}")
            for ex in getattr(mod, "EXERCISES", []):
                if not _LABEL.match(ex.label) or not ex.label.startswith(info.name + "-"):
                    raise ValueError(f"exercise {ex.label!r} does not belong in module {info.name}")
                if ex.label in reg:
                    raise ValueError(f"exercise {ex.label!r} registered twice")
                reg[ex.label] = ex
        _REGISTRY = reg
    return _REGISTRY


def check(label, answer=None):
    """Check ``answer`` to the exercise ``label``; return a :class:`CheckResult`.

    The result shows as ✔ or ✘ with a message in a notebook and is true when the answer is
    right. A right answer is remembered for :func:`progress`.
    """
    reg = registry()
    if label not in reg:
        raise KeyError(f"no checker for exercise {label!r}; checkable: {', '.join(sorted(reg))}")
    correct, message = reg[label].judge(answer)
    if correct:
        _RIGHT.add(label)
    return CheckResult(label, correct, message)


def progress(chapter):
    """The exercises of ``chapter`` (``"ch03"``, ``"appa"``) checked right so far."""
    rows = [(lab, lab in _RIGHT) for lab in sorted(registry(), key=_order) if lab.startswith(chapter + "-")]
    if not rows:
        raise KeyError(f"no checkable exercises for chapter {chapter!r}")
    return Progress(chapter, rows)


def _order(label):
    head, _, num = label.rpartition("-")
    return head, int(num)
