"""Book chapter 00 (``book/00_preface.md``): hidden checks that tie typed prose to outputs.

A number typed in a sentence, caption or alt text that the page computes is checked by a
hidden cell (tag ``remove-cell``) beside it::

    from kernelclf.book.claims import says
    says(test_error, "0.101")          # the prose says 0.101
    says(100 * rel_margin, "41 %")     # the prose says 41 %

:func:`says` passes when the value rounds to the typed number at the precision it is typed
with (``"0.101"`` allows ±0.0005, ``"41 %"`` ±0.5, ``"2.4e-3"`` ±0.05e-3), so a change in the
code that moves the number fails the page instead of leaving the prose stale. Being plain
``assert`` logic it runs the same under nbval, in the book build, in JupyterLab and in the
in-browser lab.
"""
from __future__ import annotations

import math
import re

__all__ = ["says", "typed_value"]

_NUM = re.compile(r"^\s*([+\-\u2212]?)(\d+(?:[ ,]\d{3})*)(?:\.(\d+))?"
                  r"(?:[eE]([+\-\u2212]?\d+))?\s*(%|\u00d7|x)?\s*$")


_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}


def typed_value(text):
    """``(value, half_unit)`` of a number as typed in prose, e.g. ``"0.101"`` -> (0.101, 5e-4).

    A word number (``"two"`` ... ``"twenty"``, as in "two of five seeds") is exact: half
    unit 0.5.
    """
    word = str(text).strip().lower()
    if word in _WORDS:
        return float(_WORDS[word]), 0.5
    m = _NUM.match(str(text))
    if not m:
        return _powered_value(text)
    sign, whole, frac, exp, _unit = m.groups()
    whole = whole.replace(",", "").replace(" ", "")
    frac = frac or ""
    e = int(exp.replace("\u2212", "-")) if exp else 0
    value = float(f"{whole}.{frac}" if frac else whole) * 10.0 ** e
    if sign in ("-", "\u2212"):
        value = -value
    half_unit = 0.5 * 10.0 ** (e - len(frac))
    return value, half_unit


def _powered_value(text):
    """A number typed with a power of ten (``"10⁻³"``, ``"2.4 × 10⁻³"``, ``"10^{-3}"``), read
    as :mod:`kernelclf.book.typed_numbers` reads it on the page."""
    from .typed_numbers import number_key

    key = number_key(text)
    m = re.fullmatch(r"(-?)(\d+)(?:\.(\d+))?(?:e(-?\d+))?", key or "")
    if not m:
        raise ValueError(f"not a typed number: {text!r}")
    sign, whole, frac, exp = m.groups()
    e = int(exp or 0)
    value = float(f"{whole}.{frac or ''}") * 10.0 ** e
    return (-value if sign else value), 0.5 * 10.0 ** (e - len(frac or ""))


def says(value, text, slack=0.0):
    """Assert that ``value`` is the number typed as ``text`` (to the digits it is typed with).

    Returns ``value`` so a check can be chained; raises :class:`AssertionError` naming both
    the computed and the typed number otherwise.
    """
    want, half = typed_value(text)
    v = float(value)
    if not (math.isfinite(v) and abs(v - want) <= half * (1 + 1e-9) + slack):
        raise AssertionError(f"the page says {text!r} but computes {v!r}")
    return value
