"""Book chapter 00 (``book/00_preface.md``): the exercise checkers' machinery.

An :class:`Exercise` records what a right answer is (the worked solution's answer), how
close an answer must be, and the typical wrong answers with the hint each should get. The
chapters' entries live in one module per chapter (``ch03.py`` …); :func:`check` finds them by
the exercise label the book already uses (``"ch03-ex-2"``).

Kinds of answer:

``number``
    a float, right within ``rtol``/``atol`` of the solution.
``array``
    an array of the solution's shape, right elementwise within ``rtol``/``atol``.
``choice``
    one of the stated ``options`` (strings compared without case and outer spaces), or a
    set of them when the solution is a tuple/list/set.
``function``
    a callable the reader writes; it is run on the hidden ``cases`` (tuples of positional
    arguments) and its results are compared with the solution function's.

A wrong answer is compared with each recorded mistake in turn by the same rule; the first
that matches gives its hint, otherwise the exercise's general hint is given. Nothing here
needs a network or myst-nb, so the same checks work in JupyterLab, in the downloaded reader
notebooks and in the in-browser lab.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["Exercise", "CheckResult", "Progress", "KINDS"]

KINDS = ("number", "array", "choice", "function")


def _as_float(x):
    try:
        v = float(np.asarray(x, dtype=float).reshape(()))
    except (TypeError, ValueError):
        return None
    return v


@dataclass
class Exercise:
    """One checkable exercise.

    Parameters
    ----------
    label : str
        The exercise label in the book, e.g. ``"ch03-ex-2"``.
    kind : {"number", "array", "choice", "function"}
        What the answer is.
    solution : object
        The worked solution's answer (a number, an array, an option or a set of options, or
        a reference function). For a ``number``, ``array`` or ``choice`` it may also be a
        function of no arguments that computes the answer (called once, on first use, so
        that importing the registry stays cheap); the same holds for each recorded mistake.
    asks : str
        What to pass, in one line (shown when the answer is ``None`` or of the wrong form).
    hint : str
        The hint for a wrong answer that matches no recorded mistake; name the section or
        equation to reread.
    mistakes : list of (answer, hint)
        Typical wrong answers (for ``function``: wrong functions) and the hint each gets.
    rtol, atol : float
        Tolerances for ``number``, ``array`` and ``function`` answers.
    options : sequence of str, optional
        The options of a ``choice``.
    cases : sequence of tuple, optional
        The hidden argument tuples a ``function`` answer is run on.
    """

    label: str
    kind: str
    solution: Any
    asks: str
    hint: str
    mistakes: Sequence[tuple] = field(default_factory=list)
    rtol: float = 1e-6
    atol: float = 1e-9
    options: Sequence[str] | None = None
    cases: Sequence[tuple] | None = None

    def __post_init__(self):
        self._cache = {}
        if self.kind not in KINDS:
            raise ValueError(f"{self.label}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "function" and not self.cases:
            raise ValueError(f"{self.label}: a function exercise needs hidden cases")
        if self.kind == "choice":
            if not self.options:
                raise ValueError(f"{self.label}: a choice exercise needs its options")
            known = {self._norm(o) for o in self.options}
            for s in self._choice_set(self.answer):
                if s not in known:
                    raise ValueError(f"{self.label}: solution {s!r} is not among the options")

    # -- lazily computed answers --------------------------------------------------------
    def _value(self, key, v):
        if self.kind == "function" or not callable(v):
            return v
        if key not in self._cache:
            self._cache[key] = v()
        return self._cache[key]

    @property
    def answer(self):
        """The worked solution's answer (computed on first use when given as a function)."""
        return self._value("solution", self.solution)

    @property
    def wrong_answers(self):
        """The recorded mistakes as ``[(answer, hint), ...]``, computed on first use."""
        return [(self._value(("mistake", i), w), h) for i, (w, h) in enumerate(self.mistakes)]

    # -- comparing ---------------------------------------------------------------------
    @staticmethod
    def _norm(s):
        return str(s).strip().lower()

    def _choice_set(self, a):
        if isinstance(a, (list, tuple, set, frozenset)):
            return frozenset(self._norm(x) for x in a)
        return frozenset([self._norm(a)])

    def _outputs(self, f):
        out = []
        for args in self.cases:
            try:
                out.append(f(*args))
            except Exception as exc:  # the reader's function failed on a hidden case
                return exc
        return out

    def form_error(self, answer):
        """A message when ``answer`` has the wrong form, else ``None``."""
        if answer is None:
            return f"Not answered yet: {self.asks}"
        if self.kind == "number" and _as_float(answer) is None:
            return f"Expected one number: {self.asks}"
        if self.kind == "array":
            try:
                a = np.asarray(answer, dtype=float)
            except (TypeError, ValueError):
                return f"Expected an array of numbers: {self.asks}"
            want = np.shape(self.answer)
            if a.shape != want:
                return f"Expected an array of shape {want}, got {a.shape}: {self.asks}"
        if self.kind == "function" and not callable(answer):
            return f"Expected a function: {self.asks}"
        if self.kind == "choice":
            known = {self._norm(o) for o in self.options}
            bad = [s for s in self._choice_set(answer) if s not in known]
            if bad:
                opts = ", ".join(repr(o) for o in self.options)
                return f"{bad[0]!r} is not one of the options ({opts})."
        return None

    def same(self, answer, reference):
        """Whether ``answer`` agrees with ``reference`` (the solution or a recorded mistake)."""
        if self.kind == "number":
            a, r = _as_float(answer), _as_float(reference)
            if a is None or r is None or not math.isfinite(a):
                return False
            return math.isclose(a, r, rel_tol=self.rtol, abs_tol=self.atol)
        if self.kind == "array":
            a = np.asarray(answer, dtype=float)
            r = np.asarray(reference, dtype=float)
            return a.shape == r.shape and bool(np.allclose(a, r, rtol=self.rtol, atol=self.atol))
        if self.kind == "choice":
            return self._choice_set(answer) == self._choice_set(reference)
        got = self._outputs(answer)
        want = self._outputs(reference)
        if isinstance(got, Exception) or isinstance(want, Exception):
            return False
        for g, w in zip(got, want):
            try:
                g = np.asarray(g, dtype=float)
                w = np.asarray(w, dtype=float)
            except (TypeError, ValueError):
                return False
            if g.shape != w.shape or not np.allclose(g, w, rtol=self.rtol, atol=self.atol):
                return False
        return True

    def judge(self, answer):
        """Return ``(correct, message)`` for ``answer``; ``correct`` is ``None`` when unanswered."""
        msg = self.form_error(answer)
        if answer is None:
            return None, msg
        if msg is not None:
            return False, msg
        if self.same(answer, self.answer):
            return True, "Right."
        for wrong, hint in self.wrong_answers:
            if self.same(answer, wrong):
                return False, hint
        if self.kind == "function":
            got = self._outputs(answer)
            if isinstance(got, Exception):
                return False, (f"Your function raised {type(got).__name__}: {got} on one of "
                               f"the hidden cases. {self.hint}")
        return False, self.hint


class CheckResult:
    """What :func:`~kernelclf.book.exercises.check` returns: true when the answer is right."""

    def __init__(self, label, correct, message):
        self.label, self.message = label, message
        self.answered = correct is not None
        self.correct = bool(correct)

    def __bool__(self):
        return self.correct

    @property
    def mark(self):
        return "\u2714" if self.correct else ("\u2718" if self.answered else "?")

    def __repr__(self):
        return f"{self.mark} {self.label}: {self.message}"

    def _repr_html_(self):
        colour = "#1a7f37" if self.correct else ("#b35900" if self.answered else "#555555")
        mark = self.mark
        return (f'<div class="kernelclf-check" style="color:{colour}"><b>{mark} '
                f'{html.escape(self.label)}</b>: {html.escape(self.message)}</div>')


class Progress:
    """Which exercises of a chapter have been checked right since the kernel started."""

    def __init__(self, chapter, rows):
        self.chapter, self.rows = chapter, rows  # rows: list of (label, done)

    @property
    def done(self):
        return sum(d for _, d in self.rows)

    def __repr__(self):
        lines = [f"{self.chapter}: {self.done} of {len(self.rows)} checkable exercises right"]
        marks = {True: "\u2714", False: "\u00b7"}
        lines += [f"  {marks[bool(d)]} {lab}" for lab, d in self.rows]
        return "\n".join(lines)

    def _repr_html_(self):
        items = "".join(f"<li>{'&#10004;' if d else '&middot;'} {html.escape(lab)}</li>"
                        for lab, d in self.rows)
        return (f'<div class="kernelclf-progress"><b>{html.escape(self.chapter)}</b>: '
                f"{self.done} of {len(self.rows)} checkable exercises right<ul>{items}</ul></div>")


Checker = Callable[[Any], CheckResult]
