"""Book chapter 00 (``book/00_preface.md``): the exercise checkers' machinery.

An :class:`Exercise` records what a right answer is (the worked solution's answer), how
close an answer must be, other answers the statement also admits, and the typical wrong
answers with the hint each should get. The chapters' entries live in one module per chapter
(``ch03.py`` …); :func:`~kernelclf.book.exercises.check` finds them by the exercise label
the book already uses (``"ch03-ex-2"``).

Kinds of answer:

``number``
    one number (a Python or NumPy int or float, a :class:`fractions.Fraction`, a
    :class:`decimal.Decimal`, a one-element array), right within ``rtol``/``atol`` of the
    solution; with ``integer=True`` a whole number, compared exactly.
``array``
    an array (or list, tuple) of the solution's shape (size-one axes are ignored), right
    elementwise within ``rtol``/``atol``; with ``integer=True`` whole numbers, compared
    exactly.
``choice``
    one of the stated ``options``, or a set of them when the solution is a tuple/list/set.
    Options are compared after Unicode compatibility folding (``ℓ`` is ``l``, ``²`` is
    ``2``), without case, ``^``, quotes and outer full stops, with dashes and underscores
    read as spaces and runs of spaces as one.
``function``
    a callable the reader writes; it is run on the hidden ``cases`` (tuples of positional
    arguments) and its results are compared with the solution function's. Every call gets
    fresh copies of the arguments, so a function may change its inputs in place.

Text is an answer only where the exercise lists options: a number passed as text
(``"12.5"``) is refused with a message saying so, as are truth values, complex numbers,
``nan``, ``inf`` and numbers too large for a float.

A wrong answer is compared with each recorded mistake in turn by the same rule; the first
that matches gives its hint. An answer that is the solution rounded (or cut) to the digits
it was given with, two or more of them, is told that it is close and needs more digits; an
answer matching a recorded mistake only in its rounded digits gets that mistake's hint;
otherwise the exercise's general hint is given. Nothing here needs a network or myst-nb,
so the same checks work in JupyterLab, in the downloaded reader notebooks and in the
in-browser lab.
"""
from __future__ import annotations

import copy
import html
import math
import unicodedata
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

__all__ = ["Exercise", "CheckResult", "Progress", "KINDS", "sampling_tolerance"]

KINDS = ("number", "array", "choice", "function")
STATUSES = ("right", "wrong", "untried")

_DASHES = dict.fromkeys(map(ord, "-\u2010\u2011\u2012\u2013\u2014\u2212_"), " ")


def sampling_tolerance(n, sd, confidence=0.999):
    """Half-width of an interval that holds a correct Monte Carlo estimate.

    An estimate that averages ``n`` independent draws of a quantity with standard
    deviation ``sd`` has standard error ``sd / sqrt(n)`` and is close to normal (central
    limit theorem). The half-width is ``z sd / sqrt(n) + 1/n`` with ``z`` the standard
    normal quantile that leaves half the allowed miss probability, ``(1 - confidence)/2``,
    outside (3.48 for 0.999): the halving and the ``1/n`` (one step of the lattice a
    fraction of ``n`` draws lives on) are a margin for the normal approximation, so that a
    checker with this ``atol`` refuses a correct estimate from ``n`` or more draws with
    probability at most ``1 - confidence`` (checked against the exact binomial law of a
    fraction in ``tests/test_exercises_fairness.py``).

    Parameters
    ----------
    n : int, >= 1
        The smallest sample size the exercise asks for.
    sd : float, > 0
        The standard deviation of one draw (``sqrt(q (1 - q))`` for a fraction ``q``).
    confidence : float in (0, 1)

    Returns
    -------
    float
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not sd > 0 or not math.isfinite(sd):
        raise ValueError(f"sd must be a positive number, got {sd!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 4)
    return z * sd / math.sqrt(n) + 1.0 / n


def _numbers(x):
    """``(float array, None)`` or ``(None, what is wrong)`` for a number or array answer."""
    if isinstance(x, (str, bytes)):
        return None, "text"
    if isinstance(x, (bool, np.bool_)):
        return None, "bool"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        return None, "form"
    kind = raw.dtype.kind
    if kind in "US":
        return None, "text"
    if kind == "b":
        return None, "bool"
    if kind == "c":
        return None, "complex"
    if kind == "O":
        flat = raw.ravel().tolist()
        if any(isinstance(v, (str, bytes)) for v in flat):
            return None, "text"
        if any(isinstance(v, (bool, np.bool_)) for v in flat):
            return None, "bool"
        if any(isinstance(v, complex) for v in flat):
            return None, "complex"
    if kind not in "iufO":
        return None, "form"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = raw.astype(float)
    except OverflowError:
        return None, "huge"
    except (TypeError, ValueError):
        return None, "form"
    if np.isnan(a).any():
        return None, "nan"
    if np.isinf(a).any():
        # a finite integer beyond the float range turns into inf on the way
        if kind in "iuO" and all(isinstance(v, (int, np.integer)) for v in raw.ravel().tolist()):
            return None, "huge"
        return None, "inf"
    return a, None


def _last_place(x):
    """``(significant digits, value of one unit in the last digit)`` of the float ``x`` as
    Python writes it (``0.1016`` has 4 digits and unit ``1e-4``)."""
    d = Decimal(repr(float(x))).normalize()
    t = d.as_tuple()
    return len(t.digits), 10.0 ** t.exponent


def _rounded_from(a, r, same=None):
    """Whether every entry of ``a`` is ``r`` rounded or cut to the digits it is written with
    (at least two significant digits: one unit in the last place). An entry for which
    ``same(ai, ri)`` holds (equal within the exercise's tolerance) needs no digits: rounding
    0.49999999999999994 to three places gives 0.5."""
    a, r = np.ravel(a), np.ravel(r)
    if a.shape != r.shape:
        return False
    for ai, ri in zip(a, r):
        if ai == ri or (same is not None and same(ai, ri)):
            continue
        n, unit = _last_place(ai)
        if n < 2 or abs(ai - ri) > unit * (1 + 1e-9):
            return False
    return True


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
        that importing the registry stays cheap); the same holds for each recorded mistake
        and alternative.
    asks : str
        What to pass, in one line (shown when the answer is ``None`` or of the wrong form).
    hint : str
        The hint for a wrong answer that matches no recorded mistake; it names the idea and
        the section or equation to reread, never the value.
    mistakes : list of (answer, hint)
        Typical wrong answers (for ``function``: wrong functions) and the hint each gets.
    rtol, atol : float
        Tolerances for ``number``, ``array`` and ``function`` answers. ``rtol`` may be a
        pair ``(below, above)`` for a one-sided quantity (a minimum that no honest search
        undercuts, say).
    options : sequence of str, optional
        The options of a ``choice``.
    cases : sequence of tuple, optional
        The hidden argument tuples a ``function`` answer is run on.
    integer : bool
        A ``number`` or ``array`` whose entries are counts or sizes: the answer must be
        whole numbers (``30.0`` is 30, ``30.4`` is refused) and is compared exactly.
    alternatives : list of (answer, message)
        Other answers the statement admits (another reading of it, another admissible
        constant); each is accepted as right with its message.
    samples : int, optional
        For a Monte Carlo estimate: the least sample size the exercise asks for. With
        ``sd`` it sets ``atol = sampling_tolerance(samples, sd)`` (``rtol = 0``), and an
        answer within three times that of the solution is told to use more samples.
    sd : float, optional
        The standard deviation of one draw of the estimated quantity.
    inputs : sequence of str
        Everything the checked answer depends on (data and its seed, sizes, constants, the
        spelling of options), each as the exercise statement writes it: the statement, or a
        visible code cell between it and the call cell, must contain each of them, so that
        a reader can compute the answer without opening the solution (checked by
        ``tests/test_exercises.py``).
    """

    label: str
    kind: str
    solution: Any
    asks: str
    hint: str
    mistakes: Sequence[tuple] = field(default_factory=list)
    rtol: Any = 1e-6
    atol: float = 1e-9
    options: Sequence[str] | None = None
    cases: Sequence[tuple] | None = None
    integer: bool = False
    alternatives: Sequence[tuple] = field(default_factory=list)
    samples: int | None = None
    sd: float | None = None
    inputs: Sequence[str] = ()

    def __post_init__(self):
        self._cache = {}
        if self.kind not in KINDS:
            raise ValueError(f"{self.label}: kind must be one of {KINDS}, got {self.kind!r}")
        if isinstance(self.inputs, str) or not all(isinstance(i, str) and i.strip()
                                                   for i in self.inputs):
            raise ValueError(f"{self.label}: inputs must be a sequence of non-empty strings")
        if self.kind == "function" and not self.cases:
            raise ValueError(f"{self.label}: a function exercise needs hidden cases")
        if self.integer and self.kind not in ("number", "array"):
            raise ValueError(f"{self.label}: only number and array answers can be integers")
        if (self.samples is None) != (self.sd is None):
            raise ValueError(f"{self.label}: give samples and sd together")
        if self.samples is not None:
            if self.kind != "number":
                raise ValueError(f"{self.label}: a Monte Carlo tolerance needs a number answer")
            self.atol, self.rtol = sampling_tolerance(self.samples, self.sd), 0.0
        if self.kind == "choice":
            if not self.options:
                raise ValueError(f"{self.label}: a choice exercise needs its options")
            known = [self._norm(o) for o in self.options]
            if len(set(known)) != len(known):
                raise ValueError(f"{self.label}: two options read the same: {self.options}")
            for s in self._choice_set(self.answer):
                if s not in known:
                    raise ValueError(f"{self.label}: solution {s!r} is not among the options")
            for a, _ in self.alternatives:
                if not callable(a) and not self._choice_set(a) <= set(known):
                    raise ValueError(f"{self.label}: alternative {a!r} is not among the options")

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

    @property
    def other_right_answers(self):
        """The admitted alternatives as ``[(answer, message), ...]``, computed on first use."""
        return [(self._value(("alternative", i), a), m)
                for i, (a, m) in enumerate(self.alternatives)]

    # -- comparing ---------------------------------------------------------------------
    @staticmethod
    def _norm(s):
        s = unicodedata.normalize("NFKC", str(s)).casefold().translate(_DASHES)
        s = " ".join(s.replace("^", "").split())
        return s.strip("'\"\u2018\u2019\u201c\u201d .").strip()

    def _choice_set(self, a):
        if isinstance(a, (list, tuple, set, frozenset)):
            return frozenset(self._norm(x) for x in a)
        return frozenset([self._norm(a)])

    def _call(self, f, args):
        return f(*copy.deepcopy(args))

    def _outputs(self, f, key=None):
        """The results of ``f`` on fresh copies of the hidden cases (cached under ``key``
        for the reference and the recorded mistakes), or the exception it raised."""
        if key is not None and key in self._cache:
            return self._cache[key]
        out = []
        for args in self.cases:
            try:
                out.append(self._call(f, args))
            except Exception as exc:  # the reader's function failed on a hidden case
                out = exc
                break
        if key is not None:
            self._cache[key] = out
        return out

    def _within(self, a, r):
        """Elementwise ``a`` close to ``r`` by ``rtol``/``atol`` (``rtol`` one- or two-sided)."""
        if isinstance(self.rtol, (tuple, list)):
            below, above = self.rtol
        else:
            below = above = self.rtol
        d = a - r
        return bool(np.all((d >= -(below * np.abs(r) + self.atol))
                           & (d <= above * np.abs(r) + self.atol)))

    def form_error(self, answer):
        """A message when ``answer`` has the wrong form, else ``None``."""
        if answer is None:
            return f"Not answered yet: {self.asks}"
        if self.kind in ("number", "array"):
            a, problem = _numbers(answer)
            if problem is not None:
                return self._form_message(answer, problem)
            if self.kind == "number" and a.size != 1:
                return f"Expected one number, got an array of shape {a.shape}: {self.asks}"
            if self.kind == "array":
                want = np.shape(self.answer)
                if a.shape != want and np.squeeze(a).shape != np.squeeze(np.empty(want)).shape:
                    return f"Expected an array of shape {want}, got {a.shape}: {self.asks}"
            if self.integer and not np.all(a == np.round(a)):
                return (f"Expected {'a whole number' if self.kind == 'number' else 'whole numbers'}"
                        f" (the question asks for a count or size), got {self._show(answer)}: "
                        f"{self.asks}")
        if self.kind == "function" and not callable(answer):
            return f"Expected a function: {self.asks}"
        if self.kind == "choice":
            known = {self._norm(o) for o in self.options}
            bad = [s for s in self._choice_set(answer) if s not in known]
            if bad:
                opts = ", ".join(repr(o) for o in self.options)
                return f"{bad[0]!r} is not one of the options ({opts})."
        return None

    @staticmethod
    def _show(answer):
        text = repr(answer)
        return text if len(text) <= 60 else text[:57] + "..."

    def _form_message(self, answer, problem):
        if problem == "text":
            try:
                float(answer)
                as_number = f" (pass {str(answer).strip()} without quotes)"
            except (TypeError, ValueError):
                as_number = ""
            return (f"Got text, {self._show(answer)}: this exercise wants a number, not a string"
                    f"{as_number}; text is an answer only where an exercise lists options. "
                    f"{self.asks}")
        if problem == "bool":
            return f"Got a truth value, {self._show(answer)}: pass a number. {self.asks}"
        if problem == "complex":
            return (f"Got a complex number, {self._show(answer)}: the answer is real; take the "
                    f"real part only if the imaginary part is rounding noise. {self.asks}")
        if problem == "huge":
            return ("Your answer is a number too large for a float (beyond about 1.8e308): "
                    f"no answer here is that large; look for a product or power that ran away. "
                    f"{self.asks}")
        if problem == "nan":
            return ("Your answer is (or contains) nan, 'not a number': a step of the computation "
                    "was undefined, such as 0/0, the logarithm of a negative number or the mean "
                    f"of an empty array. {self.asks}")
        if problem == "inf":
            return ("Your answer is (or contains) an infinite value: a step of the computation "
                    f"overflowed or divided by zero. {self.asks}")
        if self.kind == "number":
            return f"Expected one number: {self.asks}"
        return f"Expected an array of numbers: {self.asks}"

    def same(self, answer, reference):
        """Whether ``answer`` agrees with ``reference`` (the solution, an alternative or a
        recorded mistake)."""
        if self.kind in ("number", "array"):
            a, _ = _numbers(answer)
            r, _ = _numbers(reference)
            if a is None or r is None:
                return False
            if self.kind == "array":
                a, r = np.squeeze(a), np.squeeze(r)
            if a.size != r.size or (self.kind == "array" and a.shape != r.shape):
                return False
            a, r = a.reshape(r.shape), r
            if self.integer:
                return bool(np.all(a == r))
            return self._within(a, r)
        if self.kind == "choice":
            return self._choice_set(answer) == self._choice_set(reference)
        return self._same_outputs(self._outputs(answer), self._reference_outputs(reference))

    def _reference_outputs(self, f):
        """Outputs of the solution or a recorded wrong function, computed once each."""
        if f is self.solution:
            return self._outputs(f, "reference")
        for i, (wrong, _) in enumerate(self.mistakes):
            if f is wrong:
                return self._outputs(f, ("mistake outputs", i))
        return self._outputs(f)

    def _same_outputs(self, got, want):
        if isinstance(got, Exception) or isinstance(want, Exception):
            return False
        for g, w in zip(got, want):
            try:
                g = np.asarray(g, dtype=float)
                w = np.asarray(w, dtype=float)
            except (TypeError, ValueError):
                return False
            if g.shape != w.shape or not self._within(g, w) or not np.all(np.isfinite(g)):
                return False
        return True

    def _rounded(self, answer, reference):
        """Whether ``answer`` is ``reference`` rounded to the digits the answer shows."""
        if self.kind not in ("number", "array") or self.integer:
            return False
        a, _ = _numbers(answer)
        r, _ = _numbers(reference)
        if a is None or r is None or a.size != r.size:
            return False
        return _rounded_from(a, r, lambda ai, ri: self._within(np.float64(ai), np.float64(ri)))

    def verdict(self, answer):
        """Return ``(status, message)``: status is ``"unanswered"``, ``"form"``, ``"right"``,
        ``"mistake"``, ``"close"`` or ``"wrong"``."""
        msg = self.form_error(answer)
        if answer is None:
            return "unanswered", msg
        if msg is not None:
            return "form", msg
        if self.kind == "function":
            return self._function_verdict(answer)
        if self.same(answer, self.answer):
            return "right", "Right."
        for other, message in self.other_right_answers:
            if self.same(answer, other):
                return "right", message
        for wrong, hint in self.wrong_answers:
            if self.same(answer, wrong):
                return "mistake", hint
        if self.samples is not None:
            a, r = _numbers(answer)[0].item(), float(np.asarray(self.answer, dtype=float))
            if abs(a - r) <= 3 * self.atol:
                return "close", (
                    f"Close, but further from the exact value than an estimate from "
                    f"{self.samples:,} samples is likely to be: use at least {self.samples:,} "
                    "samples (the error of a mean shrinks like 1/sqrt(n)), or compute the "
                    "value exactly.")
        if self._rounded(answer, self.answer):
            return "close", (
                "Close: that is the answer rounded to the digits you gave, but the checker "
                "asks for more. Pass the computed value itself rather than a rounded one.")
        for wrong, hint in self.wrong_answers:
            if self._rounded(answer, wrong):
                return "mistake", hint
        return "wrong", self.hint

    def _function_verdict(self, f):
        got = self._outputs(f)
        if self._same_outputs(got, self._reference_outputs(self.solution)):
            return "right", "Right."
        for wrong, hint in self.wrong_answers:
            if self._same_outputs(got, self._reference_outputs(wrong)):
                return "mistake", hint
        if isinstance(got, Exception):
            return "wrong", (f"Your function raised {type(got).__name__}: {got} on one of the "
                             f"hidden cases. {self.hint}")
        if any(g is None for g in got):
            return "wrong", ("Your function returned None on a hidden case: does it end with a "
                             f"`return`? {self.hint}")
        return "wrong", self.hint

    def judge(self, answer):
        """Return ``(correct, message)`` for ``answer``; ``correct`` is ``None`` when unanswered."""
        status, message = self.verdict(answer)
        if status == "unanswered":
            return None, message
        return status == "right", message


class CheckResult:
    """What :func:`~kernelclf.book.exercises.check` returns: true when the answer is right.

    ``worked`` marks the check of a worked solution, which is not the reader's answer and
    does not count in :func:`~kernelclf.book.exercises.progress`.
    """

    def __init__(self, label, correct, message, status=None, worked=False):
        self.label, self.message, self.worked = label, message, worked
        self.answered = correct is not None
        self.correct = bool(correct)
        self.status = status or ("right" if self.correct else
                                 ("wrong" if self.answered else "unanswered"))

    def __bool__(self):
        return self.correct

    @property
    def mark(self):
        return "\u2714" if self.correct else ("\u2718" if self.answered else "?")

    @property
    def _title(self):
        return f"{self.label} (worked solution)" if self.worked else self.label

    def __repr__(self):
        return f"{self.mark} {self._title}: {self.message}"

    def _repr_html_(self):
        colour = "#1a7f37" if self.correct else ("#b35900" if self.answered else "#555555")
        return (f'<div class="kernelclf-check" style="color:{colour}"><b>{self.mark} '
                f'{html.escape(self._title)}</b>: {html.escape(self.message)}</div>')


class Progress:
    """The exercises of a chapter: answered right, tried but not right yet, or not tried,
    since the kernel started. ``rows`` holds ``(label, status)`` pairs, status one of
    ``"right"``, ``"wrong"``, ``"untried"``."""

    MARKS = {"right": "\u2714", "wrong": "\u2718", "untried": "\u00b7"}
    WORDS = {"right": "right", "wrong": "tried, not right yet", "untried": "not tried yet"}

    def __init__(self, chapter, rows):
        self.chapter, self.rows = chapter, list(rows)
        for lab, status in self.rows:
            if status not in STATUSES:
                raise ValueError(f"{lab}: unknown status {status!r}")

    def count(self, status):
        return sum(s == status for _, s in self.rows)

    @property
    def done(self):
        """The number answered right."""
        return self.count("right")

    @property
    def summary(self):
        return (f"{self.chapter}: {self.count('right')} right, {self.count('wrong')} tried but "
                f"not right yet, {self.count('untried')} not tried, of {len(self.rows)} "
                "checkable exercises")

    def __repr__(self):
        lines = [self.summary]
        lines += [f"  {self.MARKS[s]} {lab}: {self.WORDS[s]}" for lab, s in self.rows]
        return "\n".join(lines)

    def _repr_html_(self):
        items = "".join(f"<li>{self.MARKS[s]} {html.escape(lab)}: {self.WORDS[s]}</li>"
                        for lab, s in self.rows)
        return (f'<div class="kernelclf-progress"><b>{html.escape(self.chapter)}</b>'
                f"{html.escape(self.summary[len(self.chapter):])}<ul>{items}</ul></div>")
