"""The prose-number check of the book's hidden cells (issue 25)."""
import pytest

from kernelclf.book.claims import says, typed_value


@pytest.mark.parametrize("text, value, half", [
    ("0.101", 0.101, 5e-4), ("41 %", 41.0, 0.5), ("2.4e-3", 2.4e-3, 5e-5),
    ("\u22120.25", -0.25, 5e-3), ("4,000", 4000.0, 0.5), ("1.7\u00d7", 1.7, 0.05), ("12", 12.0, 0.5),
    ("10\u207b\u00b3", 1e-3, 5e-4), ("2.4 \u00d7 10\u207b\u00b3", 2.4e-3, 5e-5), ("10^{-3}", 1e-3, 5e-4),
    ("\u22121.5 \u00d7 10\u2074", -1.5e4, 500.0),
])
def test_typed_value(text, value, half):
    v, h = typed_value(text)
    assert v == pytest.approx(value) and h == pytest.approx(half)


def test_says_passes_on_rounding_and_fails_on_a_moved_number():
    assert says(0.1014, "0.101") == 0.1014
    says(40.6, "41 %")
    with pytest.raises(AssertionError, match="computes 0.166"):
        says(0.166, "0.101")
    with pytest.raises(AssertionError):
        says(0.1016, "0.101")
    with pytest.raises(AssertionError):
        says(float("nan"), "0.1")
    with pytest.raises(ValueError):
        typed_value("about ten")


def test_says_reads_powers_of_ten_as_the_page_types_them():
    says(2.44e-3, "2.4 \u00d7 10\u207b\u00b3")
    with pytest.raises(AssertionError):
        says(2.5e-3, "2.4 \u00d7 10\u207b\u00b3")
    with pytest.raises(AssertionError):
        says(1.6e-3, "10\u207b\u00b3")


def test_says_has_no_absolute_slack_for_tiny_numbers():
    says(1.04e-12, "1e-12")
    with pytest.raises(AssertionError):
        says(3e-10, "1e-12")


def test_no_page_chains_says_checks_with_and():
    """``says`` returns the value it checks, so ``says(a, "0") and says(b, "2")`` as a
    statement skips the second check whenever ``a`` is falsy (zero): pages write one check
    per statement (``says(a, ...); says(b, ...)``) instead."""
    import re
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    chained = [f"{p.name}:{i}" for p in sorted(book.glob("*.md"))
               for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
               if re.match(r"^\s*says\(", line) and re.search(r"\)\s+and\s+says\(", line)]
    assert not chained, f"says checks chained with 'and': {chained[:10]}"
