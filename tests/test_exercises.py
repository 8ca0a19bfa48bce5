"""The exercise checkers (issue 28): every checker accepts its worked solution, rejects each
recorded wrong answer with that answer's hint, and sits under its exercise in the book."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kernelclf.book.exercises._core as _core  # every chapter's module, imported by name
import kernelclf.book.exercises.appa as appa
import kernelclf.book.exercises.ch00 as ch00
import kernelclf.book.exercises.ch01 as ch01
import kernelclf.book.exercises.ch02 as ch02
import kernelclf.book.exercises.ch02b as ch02b
import kernelclf.book.exercises.ch03 as ch03
import kernelclf.book.exercises.ch04 as ch04
import kernelclf.book.exercises.ch05 as ch05
import kernelclf.book.exercises.ch06 as ch06
import kernelclf.book.exercises.ch07 as ch07
import kernelclf.book.exercises.ch08 as ch08
import kernelclf.book.exercises.ch09 as ch09
import kernelclf.book.exercises.ch10 as ch10
import kernelclf.book.exercises.ch11 as ch11
import kernelclf.book.exercises.ch12 as ch12
import kernelclf.book.exercises.ch13 as ch13
import kernelclf.book.exercises.ch14 as ch14
import kernelclf.book.exercises.ch15 as ch15
import kernelclf.book.exercises.ch16 as ch16
import kernelclf.book.exercises.ch17 as ch17
import kernelclf.book.exercises.ch18 as ch18
from kernelclf.book.exercises import Exercise, check, progress, registry

BOOK = Path(__file__).resolve().parents[1] / "book"
EX_LABEL = re.compile(r"```\{exercise-start\}\n:label: ([\w-]+)")
REG = registry()


def _chapter_of(label):
    return label.rsplit("-ex-", 1)[0]


def _sources():
    out = {}
    for md in sorted(BOOK.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for lab in EX_LABEL.findall(text):
            out[lab] = (md, text)
    return out


SOURCES = _sources()


@pytest.mark.parametrize("label", sorted(REG))
def test_checker_accepts_its_solution(label):
    ex = REG[label]
    res = check(label, ex.answer if ex.kind != "function" else ex.solution)
    assert res, res


@pytest.mark.parametrize("label", sorted(REG))
def test_checker_rejects_recorded_mistakes_with_their_hints(label):
    ex = REG[label]
    wrong = ex.wrong_answers
    assert len(wrong) >= 2, f"{label}: record at least two typical wrong answers"
    hints = [h for _, h in wrong]
    assert len(set(hints)) == len(hints), f"{label}: two mistakes share one hint"
    for answer, hint in wrong:
        res = check(label, answer)
        assert not res and res.answered
        assert res.message == hint, (label, answer, res.message)
        assert hint != ex.hint


@pytest.mark.parametrize("label", sorted(REG))
def test_unanswered_and_wrong_form(label):
    ex = REG[label]
    res = check(label, None)
    assert not res and not res.answered and "Not answered" in res.message
    bad = {"number": "twelve", "array": np.zeros((17, 3, 2)), "choice": "no such option",
           "function": 3.0}[ex.kind]
    res = check(label, bad)
    assert not res and res.answered


@pytest.mark.parametrize("label", sorted(REG))
def test_checker_sits_under_its_exercise(label):
    assert label in SOURCES, f"{label} has a checker but no exercise in the book"
    md, text = SOURCES[label]
    start = text.index(f":label: {label}\n")
    end = text.index(f"```{{solution-start}} {label}", start)
    assert re.search(r'check\("' + re.escape(label) + r'"', text[start:end]), (
        f"{md.name}: put a call cell check(\"{label}\", ...) between the exercise and its solution")


def test_every_chapter_has_three_checkable_exercises():
    chapters = {_chapter_of(lab) for lab in SOURCES}
    counts = {ch: sum(_chapter_of(lab) == ch for lab in REG) for ch in chapters}
    short = {ch: n for ch, n in counts.items() if n < 3}
    assert not short, f"chapters with fewer than three checkable exercises: {short}"


_CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)


def _normalised(text):
    """Text as a reader sees it, for finding an input in it: TeX spacing commands, thin
    and no-break spaces, ``$`` and line breaks read as (one) space or nothing."""
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = text.translate({0x2009: " ", 0x202F: " ", 0xA0: " ", ord("$"): None})
    return " ".join(text.split())


def _visible_cells(segment):
    """The code cells of ``segment`` a reader sees (not tagged remove-cell/remove-input)."""
    out = []
    for m in _CELL.finditer(segment):
        body = m.group(1)
        head = "\n".join(line for line in body.splitlines() if line.startswith(":"))
        if re.search(r"remove-(cell|input)", head):
            continue
        out.append(body)
    return out


def statement_and_setup(label):
    """The exercise statement of ``label`` and the visible code cells between it and the
    call cell ``check("label", ...)`` (that cell itself excluded)."""
    md, text = SOURCES[label]
    start = text.index(f":label: {label}\n")
    end = text.index("```{exercise-end}", start)
    call = re.search(r'check\("' + re.escape(label) + r'"', text[end:])
    assert call, f"{md.name}: no call cell for {label}"
    call_at = end + call.start()
    cell_start = text.rindex("```{code-cell}", end, call_at)
    return text[start:end], _visible_cells(text[end:cell_start])


def _names(text, item):
    item = _normalised(item)
    pattern = re.escape(item)
    if item[0].isalnum():
        pattern = r"(?<![\w.])" + pattern
    if item[-1].isalnum():
        pattern += r"(?![\w]|\.\d)"
    return re.search(pattern, _normalised(text)) is not None


@pytest.mark.parametrize("label", sorted(REG))
def test_call_cell_text_names_every_input(label):
    """Each exercise states everything its checker depends on (data, seed, sizes, constants,
    spelling of options) before its call cell: in the statement or in a visible code cell
    between the statement and the call cell."""
    ex = REG[label]
    assert ex.inputs, f"{label}: list the inputs the checked answer depends on (inputs=...)"
    statement, cells = statement_and_setup(label)
    missing = [item for item in ex.inputs
               if not any(_names(text, item) for text in [statement, *cells])]
    assert not missing, (f"{SOURCES[label][0].name}, {label}: the statement (or a visible cell "
                         f"above the call cell) does not name {missing}")


def test_input_matching_reads_what_a_reader_sees():
    assert _names(r"at $m = 100\,000$ and", "m = 100 000")
    assert _names("sigma = 0.5.", "0.5")
    assert not _names("sigma = 0.55", "0.5") and not _names("10.5", "0.5")
    assert not _names("x1.5", "1.5")
    assert _visible_cells("```{code-cell} ipython3\n:tags: [remove-cell]\nA = 1\n```\n"
                          "```{code-cell} ipython3\nB = 2\n```\n") == ["B = 2\n"]


def test_every_chapter_with_checkers_shows_progress():
    for ch in {_chapter_of(lab) for lab in REG}:
        md, text = SOURCES[min(lab for lab in REG if _chapter_of(lab) == ch)]
        assert f'progress("{ch}")' in text, f"{md.name}: add a progress(\"{ch}\") cell"


def test_progress_counts_right_answers_only(monkeypatch):
    import kernelclf.book.exercises as exercises

    monkeypatch.setattr(exercises, "_STATUS", {})
    label = sorted(REG)[0]
    ex = REG[label]
    ch = _chapter_of(label)
    check(label, ex.wrong_answers[0][0])
    assert (label, "wrong") in progress(ch).rows and progress(ch).done == 0
    check(label, ex.answer if ex.kind != "function" else ex.solution)
    p = progress(ch)
    assert p.done == 1 and (label, "right") in p.rows
    assert "checkable exercises" in repr(p) and "1 right" in repr(p)


def test_exercise_validation():
    with pytest.raises(ValueError, match="kind"):
        Exercise("ch03-ex-9", "essay", 1, "a", "h")
    with pytest.raises(ValueError, match="options"):
        Exercise("ch03-ex-9", "choice", "a", "a", "h", options=["b"])
    with pytest.raises(ValueError, match="hidden cases"):
        Exercise("ch03-ex-9", "function", abs, "a", "h")
    with pytest.raises(KeyError, match="no checker"):
        check("ch99-ex-1", 1)


def test_function_checker_runs_hidden_cases_and_names_a_crash():
    ex = Exercise("ch03-ex-9", "function", lambda a, b: a * b, "f(a, b)", "reread eq. 1",
                  mistakes=[(lambda a, b: a + b, "added")], cases=[(2.0, 3.0), (1.0, 1.0)])
    assert ex.judge(lambda a, b: b * a)[0]
    assert ex.judge(lambda a, b: a + b) == (False, "added")
    ok, msg = ex.judge(lambda a, b: 1 / 0)
    assert not ok and "ZeroDivisionError" in msg


def test_every_chapter_module_is_in_the_registry():
    for mod in (appa, ch00, ch01, ch02, ch02b, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10,
                ch11, ch12, ch13, ch14, ch15, ch16, ch17, ch18):
        labels = [ex.label for ex in mod.EXERCISES]
        assert labels and all(REG[lab] is ex for lab, ex in zip(labels, mod.EXERCISES))
    assert _core.KINDS == ("number", "array", "choice", "function")

