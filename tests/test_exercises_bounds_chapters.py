"""Exercise checkers of the bound chapters 14-18 and appendix A (issue 28): each module holds at
least three checkable exercises (issue 39), each with two or more recorded mistakes."""
from __future__ import annotations

import pytest

from kernelclf.book.exercises import appa, ch14, ch15, ch16, ch17, ch18


@pytest.mark.parametrize("mod", [ch14, ch15, ch16, ch17, ch18, appa])
def test_each_bound_chapter_has_three_checkable_exercises(mod):
    assert len(mod.EXERCISES) >= 3
    for ex in mod.EXERCISES:
        assert len(ex.mistakes) >= 2
        ok, _ = ex.judge(ex.answer if ex.kind != "function" else ex.solution)
        assert ok, ex.label
