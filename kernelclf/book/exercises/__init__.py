"""Book chapter 00 (``book/00_preface.md``): checkers for the book's self-study exercises.

Under a checkable exercise the chapter has a cell such as::

    answer = None  # your answer to the exercise
    check("ch03-ex-2", answer)

which prints ✔ or ✘ with a hint that names the likely mistake and the section to reread
(or says that the answer is close and needs more digits, or what is wrong with its form).
:func:`progress` shows which exercises of a chapter the reader has answered right, which
were tried but not yet right, and which not tried, since the notebook was opened. A worked
solution verifies its own answer with ``check(label, value, worked=True)``: that call fails
loudly if the value does not pass, and is not counted as the reader's answer. The entries
live in one module per chapter (``ch03.py`` holds the ``EXERCISES`` of chapter 3), keyed by
the labels the book uses; each holds the worked solution's answer and at least two typical
wrong answers with their hints, which ``tests/test_exercises.py`` runs, so tests and
readers see the same cases.
"""
from __future__ import annotations

import importlib
import pkgutil
import re

from ._core import CheckResult, Exercise, Progress, sampling_tolerance

__all__ = ["check", "progress", "registry", "Exercise", "CheckResult", "Progress",
           "sampling_tolerance"]

_LABEL = re.compile(r"^(ch\d\d[a-z]?|appa)-ex-\d+$")
_REGISTRY: dict[str, Exercise] | None = None
#: what the reader did per label: "right" once an answer was right, else "wrong" once tried
_STATUS: dict[str, str] = {}


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


def check(label, answer=None, *, worked=False):
    """Check ``answer`` to the exercise ``label``; return a :class:`CheckResult`.

    The result shows as ✔ or ✘ with a message in a notebook and is true when the answer is
    right. The reader's answers are remembered for :func:`progress`: an exercise counts as
    right once an answer to it was right, and as tried once any answer was given.

    With ``worked=True`` (the call in a worked solution) the answer is the book's own: it is
    checked but not remembered, and an answer that does not pass raises ``AssertionError``.
    """
    reg = registry()
    if label not in reg:
        raise KeyError(f"no checker for exercise {label!r}; checkable: {', '.join(sorted(reg))}")
    status, message = reg[label].verdict(answer)
    correct = None if status == "unanswered" else status == "right"
    if worked:
        if not correct:
            raise AssertionError(f"{label}: the worked solution's answer does not pass its "
                                 f"checker: {message}")
        return CheckResult(label, True, "passes the checker (this is the book's answer, "
                           "so it does not count in your progress).", status, worked=True)
    if correct:
        _STATUS[label] = "right"
    elif correct is not None:
        _STATUS.setdefault(label, "wrong")
    return CheckResult(label, correct, message, status)


def progress(chapter):
    """The exercises of ``chapter`` (``"ch03"``, ``"appa"``): right, tried but not right
    yet, or not tried, from the reader's own :func:`check` calls since the kernel started."""
    rows = [(lab, _STATUS.get(lab, "untried"))
            for lab in sorted(registry(), key=_order) if lab.startswith(chapter + "-")]
    if not rows:
        raise KeyError(f"no checkable exercises for chapter {chapter!r}")
    return Progress(chapter, rows)


def _order(label):
    head, _, num = label.rpartition("-")
    return head, int(num)
