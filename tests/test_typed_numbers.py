"""Every number typed on a book page is computed, quoted, a parameter or structural (issue 36).

The classifier is :mod:`kernelclf.book.typed_numbers`; the contract it implements is the
typed-number convention (``says`` checks, the ``{quoted}`` role, visible code literals,
reference words). ``python -m kernelclf.book.typed_numbers`` (``make numbers``) prints the
same per-page table and the list of unclassified tokens as ``page:line: token … context``.

``ENFORCE``: while the pages are being brought under the convention the page test reports
(a warning with the counts, the test is an expected failure) instead of failing ``make
test``; set ``ENFORCE = True`` to make every unclassified number a failure.
``ENFORCE_QUOTED`` does the same for ``{quoted}`` numbers missing from their source's text
(new markup, so it is enforced from the start).
"""
import re
import textwrap
import warnings
from pathlib import Path

import pytest

from kernelclf.book.claims import says, typed_value
from kernelclf.book.typed_numbers import (
    classify_page,
    classify_text,
    counts,
    default_seeds,
    format_counts,
    format_tokens,
    main,
    notebook_pages,
    number_key,
    seed_keys,
)

ENFORCE = True           # unclassified numbers fail
ENFORCE_QUOTED = True    # a {quoted} number absent from its source's text fails

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
PAGES = notebook_pages(BOOK)
SEEDS = seed_keys(default_seeds(BOOK))


@pytest.fixture(scope="module")
def results():
    return {str(p.relative_to(ROOT)): classify_page(p, seeds=SEEDS, name=str(p.relative_to(ROOT)))
            for p in PAGES}


# ----------------------------------------------------------------------------- the book

def test_the_pages_are_the_notebook_pages():
    names = {p.stem for p in PAGES}
    assert {"00_preface", "02b_string_kernels", "18_bound_dashboard", "appendix_a_concentration",
            "sklearn_guide"} <= names
    assert not any(n.startswith("api_") or n in ("references", "reproductions") for n in names)


@pytest.mark.xfail(not ENFORCE, strict=False,
                   reason="ENFORCE = False in tests/test_typed_numbers.py: the pages are being fixed")
def test_every_typed_number_is_classified(results):
    table = format_counts(results)
    print(table)
    bad = [t for tokens in results.values() for t in tokens if t.cls == "unclassified"]
    if bad:
        listing = format_tokens(bad)
        print(listing)
        if not ENFORCE:
            warnings.warn(f"{len(bad)} unclassified typed numbers on "
                          f"{len({t.page for t in bad})} pages (issue 36; "
                          "python -m kernelclf.book.typed_numbers lists them)", UserWarning)
        pytest.fail(f"{len(bad)} typed numbers are neither computed, quoted, a parameter nor "
                    f"structural:\n{table}\n{listing}")


def test_quoted_numbers_occur_in_their_sources(results):
    if SEEDS is None:
        pytest.skip("no ../shared/seeds beside the checkout")
    bad = [t for tokens in results.values() for t in tokens
           if t.where == "quoted" and t.cls == "unclassified"]
    if bad and not ENFORCE_QUOTED:
        pytest.xfail(f"{len(bad)} bad quotes (ENFORCE_QUOTED = False)")
    assert not bad, "quoted numbers not found in their source (or without a place):\n" + \
        format_tokens(bad)


def test_every_token_sits_on_its_line(results):
    """The line numbers are right: each token's text is on the line it is reported on."""
    wrong = []
    for page, tokens in results.items():
        lines = (ROOT / page).read_text(encoding="utf-8").split("\n")
        for t in tokens:
            if t.where == "glue":
                continue
            line = _flat(lines[t.line - 1])
            # (a digit group may wrap onto the next line of a folded caption)
            if _flat(t.text.lstrip("-\u2212")).split(" ")[0] not in line:
                wrong.append(str(t))
    assert not wrong, "\n".join(wrong[:20])


def _flat(s):
    return re.sub(r"[\s\u00a0\u2009\u202f]+", " ", s)


def test_command_line(capsys, tmp_path):
    page = _page(tmp_path, "A value of 0.37 here.", code="x = 1")
    assert main([str(page), "--seeds", str(tmp_path / "none")]) == 1
    out = capsys.readouterr().out
    assert "unclassified" in out.splitlines()[1]  # the table head, after the note on the seeds
    assert f"{page}:12: 0.37 \u2026 A value of 0.37 here." in out
    page.write_text(page.read_text().replace("0.37", "1"))
    assert main([str(page), "--seeds", str(tmp_path / "none")]) == 0


# ----------------------------------------------------------------------------- the classifier

HEAD = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "    format_version: 0.13\nkernelspec:\n  display_name: Python 3\n  language: python\n"
        "  name: python3\n---\n")


def _text(markdown, code=None, hidden=None):
    """A page: a Markdown cell, a visible code cell, a hidden (remove-cell) code cell."""
    out = HEAD + markdown + "\n"
    if code is not None:
        out += "\n```{code-cell} ipython3\n" + code + "\n```\n"
    if hidden is not None:
        out += "\n```{code-cell} ipython3\n:tags: [remove-cell]\n" + hidden + "\n```\n"
    return out


def _page(tmp_path, markdown, **kw):
    path = tmp_path / "page.md"
    path.write_text(_text(markdown, **kw), encoding="utf-8")
    return path


def classes(markdown, code=None, hidden=None, seeds=None):
    """``{token: class}`` of a one-cell page (tokens must be distinct)."""
    tokens = classify_text(_text(markdown, code, hidden), seeds=seeds)
    return {t.text: t.cls for t in tokens}


def one(markdown, token, **kw):
    got = classes(markdown, **kw)
    assert token in got, f"{token!r} not read in {markdown!r}: {got}"
    return got[token]


def test_computed_by_says_in_a_hidden_cell():
    hidden = 'from kernelclf.book.claims import says\nsays(err, "0.101")\nsays(n, "34 816")'
    assert one("The error is 0.101.", "0.101", hidden=hidden) == "computed"
    assert one("We need 34\u2009816 points.", "34\u2009816", hidden=hidden) == "computed"
    assert one("We need 34,816 points.", "34,816", hidden=hidden) == "computed"
    # a says with a different number does not close it; neither do the digits typed
    assert one("The error is 0.102.", "0.102", hidden=hidden) == "unclassified"
    assert one("The error is 0.1010.", "0.1010", hidden=hidden) == "unclassified"


def test_says_normalises_units_minus_and_exponents():
    hidden = 'says(a, "41 %")\nsays(b, "\u22120.25")\nsays(c, "2.4e-3")\nsays(d, "1.7\u00d7")'
    got = classes("Gain 41 %, margin \u22120.25, tolerance 2.4 \u00d7 10\u207b\u00b3 and "
                  "1.7\u00d7 faster; but 0.25 is not \u22120.25's twin.", hidden=hidden)
    assert got["41 %"] == "computed" and got["\u22120.25"] == "computed"
    assert got["2.4 \u00d7 10\u207b\u00b3"] == "computed" and got["1.7\u00d7"] == "computed"
    assert got["0.25"] == "unclassified"
    assert one("A tolerance $\\epsilon = 2.4\\times 10^{-3}$.", "2.4\\times 10^{-3}",
               hidden='says(c, "2.4e-3")') == "computed"


def test_a_computed_looking_decimal_without_says_is_unclassified():
    assert one("The test error is 0.166 on this split.", "0.166", code="x = 2") == "unclassified"


def test_parameter_is_a_literal_of_visible_code():
    code = ("from kernelclf.kernels import RBF\nclf = RBF(0.5)\nn = 200\ntol = 1e-3\n"
            "for s in range(5):\n    pass")
    got = classes("Width 0.5, 200 points, five seeds averaged over 5 runs, tolerance 0.001.",
                  code=code)
    assert got["0.5"] == got["200"] == got["5"] == got["0.001"] == "parameter"
    assert one("a ridge $\\lambda=10^{-3}$", "10^{-3}", code=code) == "parameter"
    # 10**4 is not the literal 10 000
    assert one("with 10 000 bounces", "10 000", code="B = 10**4") == "unclassified"
    assert one("with 10 000 bounces", "10 000", code="B = 10_000") == "parameter"
    assert one("labels \u22121 and 1", "\u22121", code="y = -1") == "parameter"


def test_a_parameter_is_a_literal_in_a_setting_position():
    code = ("import numpy as np\nm = 300\nCs = [0.1, 1, 10]\nclf = RBF(0.5)\n"
            "x = np.linspace(-10, 10, 200)\nfor C in (0.25, 4):\n    pass\n"
            "opts = {'tol': 1e-3, 'shift': (-3, 8)}\ndef f(a, b=17):\n    return a\n"
            "g = fit(X, C=64)\nsizes = (20, 50) if fast else (200, 800)\n")
    got = classes("m 300, C 0.1, 1 and 10, width 0.5, from \u221210 on 200 points, C 0.25, "
                  "4, tol 0.001, shift \u22123 and 8, b 17, C 64, m 800.", code=code)
    for tok in ("300", "0.1", "1", "10", "0.5", "\u221210", "200", "0.25", "4", "0.001",
                "\u22123", "8", "17", "64", "800"):
        assert got[tok] == "parameter", (tok, got)
    # subscripts, slices, arithmetic, comparisons, format specs and strings set nothing
    code = ("y = x[7] + a[:, 11]\nz = x ** 3 + 6 * np.pi\nok = err < 0.05\n"
            "print(f'{err:.4f}', '0.9')\nfor i in range(len(x) - 12):\n    pass\n")
    got = classes("7, 11, 3, 6, 0.05, 4, 0.9 and 12.", code=code)
    assert set(got.values()) == {"unclassified"}, got
    # the old rule (any literal of the code) took each of them as a parameter
    assert {"7", "11", "3", "6", "0.05", "0.9", "12"} <= set(got)


def test_a_cell_with_magics_is_read_without_them_and_an_unparsable_cell_sets_nothing():
    assert one("We use 400 points.", "400", code="%matplotlib inline\nn = 400") == "parameter"
    assert one("We use 400 points.", "400", code="%%time\nn = 400") == "parameter"
    assert one("We use 400 points.", "400", code="files = !ls\nn = 400") == "unclassified"


def test_a_literal_only_in_a_hidden_cell_or_an_assert_or_a_says_is_no_parameter():
    assert one("We use 400 points.", "400", hidden="n = 400") == "unclassified"
    assert one("We use 400 points.", "400", code="assert n == 400") == "unclassified"
    assert one("We use 400 points.", "400", code='says(n * 400, "1")') == "unclassified"
    removed = _text("We use 400 points.") + "\n```{code-cell} ipython3\n:tags: [remove-input]\nn = 400\n```\n"
    assert {t.text: t.cls for t in classify_text(removed)}["400"] == "unclassified"
    shown = _text("We use 400 points.") + "\n```{code-cell} ipython3\n:tags: [hide-input]\nn = 400\n```\n"
    assert {t.text: t.cls for t in classify_text(shown)}["400"] == "parameter"


def test_a_literal_in_a_code_span_or_a_fenced_block_is_not_code_that_runs():
    md = "Call `RBF(0.7)`:\n\n```python\nRBF(0.7)\n```\n\nwith width 0.7."
    assert classes(md) == {"0.7": "unclassified"}


def test_structural_after_a_reference_word_with_lists_and_ranges():
    got = classes("See LKC eq. 2.45\u20132.52, Figs 2 and 3, Lemmas 19\u201320, BPM \u00a74.2, "
                  "p. 187, eq. (B.12), Theorem A.7 and chapters 10 and 11.")
    for tok in ("2.45", "2.52", "2", "3", "19", "20", "4.2", "187", "12", "7", "10", "11"):
        assert got[tok] == "structural", (tok, got)


def test_a_reference_word_must_directly_precede_the_number():
    # a count or a measured value later in a sentence that names a table is not structural
    got = classes("Table 1 of BPM reports 13.3 on thyroid, and chapter 4 and 100 samples.")
    assert got["1"] == "structural" and got["4"] == "structural"
    assert got["13.3"] == "unclassified" and got["100"] == "unclassified"
    assert one("the line (1-x)/2 is drawn", "1") == "unclassified"
    assert one("the figure shows 27 support vectors", "27") == "unclassified"
    # common nouns name a place only when capitalised (or before a dotted number)
    got = classes("training examples 300, 600 and a grid of step 1024; Example 7, Step 3, "
                  "examples 5.24\u20135.25")
    assert got["300"] == got["600"] == got["1024"] == "unclassified"
    assert got["7"] == got["3"] == got["5.24"] == got["5.25"] == "structural"


def test_heading_list_marker_year_and_glued_names_are_structural():
    got = classes("# 12. Bayes points\n\n1. first step\n2. second step\n\n"
                  "As Fan, Chen & Lin 2005 and Herbrich (2002) show, L1 and x_1 on MNIST-5k.")
    for tok in ("12", "1", "2", "2005", "2002", "5"):
        assert got[tok] == "structural", (tok, got)
    # a wrapped paragraph line that starts with a number is text, not a list marker
    assert one("a polynomial of degree\n10. We redo it.", "10") == "unclassified"
    assert one("A quantity degree-10 fit.", "10") == "unclassified"
    assert one("In 2005 we had 2005 points.", "2005") == "unclassified"
    assert one("the run of 25 November 2026", "2026") == "unclassified"


def test_math_numbers_typed_only_as_values():
    got = classes("Here $m = 100$ and $\\sigma\\approx 0.84$, but $x^2 + \\tfrac12$ and "
                  "$\\sum_{i=1}^m 2\\pi k_3$ and $C = 1/\\lambda$ and $i = 1, \\dots, m$.")
    assert got["100"] == "unclassified" and got["0.84"] == "unclassified"
    for tok in ("2", "12", "1", "3"):
        assert got[tok] == "structural", (tok, got)
    # the whole formula a number, and a list after a relation
    assert one("the default $10^{-2}$", "10^{-2}") == "unclassified"
    got = classes("$\\sigma = 0.5, 0.7, 3$", code="s = [0.5, 0.7]")
    assert got["0.5"] == got["0.7"] == "parameter" and got["3"] == "unclassified"
    assert one("a number in inline math $t = 17$ after =", "17", hidden="t = 17") == "unclassified"
    assert one("uniform on $[-0.5, 3]$", "3") == "structural"     # no relation: no list


def test_word_numbers_only_in_n_of_m():
    got = classes("two of five seeds; three runs", hidden='says(k, "2")\nsays(n, "5")')
    assert got == {"two": "computed", "five": "computed"}
    # the N of "N of M" is a claimed count: a parameter never closes it; the M may be one
    got = classes("3 of 5 seeds", code="k = 3\nn = 5")
    assert got == {"3": "unclassified", "5": "parameter"}
    assert one("3 of 5 seeds", "3", hidden='says(k, "3")') == "computed"


def test_the_n_of_n_of_m_is_computed_never_a_parameter():
    code = "basis = fit(X, n_basis=100, keep=20)\nseeds = range(5)\nk = 3\nthree = 3"
    # the old rule: 20 and 3 are literals of the code, so they passed as parameters
    got = classes("using 20 of the 100 basis functions", code=code)
    assert got == {"20": "unclassified", "100": "parameter"}
    got = classes("3 out of 5 seeds; three of its five runs", code=code)
    assert got == {"3": "unclassified", "5": "parameter", "three": "unclassified",
                   "five": "parameter"}
    hidden = 'says(n_kept, "20")\nsays(wins, "three")'
    got = classes("using 20 of the 100 basis functions; three of five seeds win",
                  code=code, hidden=hidden)
    assert got == {"20": "computed", "100": "parameter", "three": "computed", "five": "parameter"}
    # never structural either; "one of the two classes" is the idiom, not a count
    assert one("Chapter 3 of 18 chapters", "3", code="k = 3") == "unclassified"
    assert classes("one of the two classes") == {}
    # "the first 6 of the 100 splits" picks a part: 6 may be a parameter
    assert one("on the first 6 of the 100 splits", "6", code="n_splits = 6") == "parameter"
    # a number alone is still a parameter
    assert one("we keep 20 basis functions", "20", code=code) == "parameter"


def test_a_number_after_a_comparative_word_is_never_a_parameter():
    code = "m = fit(X, n=20, C=0.5, tol=1e-3)"
    for lead in ("fewer than", "more than", "less than", "at most", "at least", "about",
                 "around", "roughly", "nearly", "almost", "approximately", "over", "under",
                 "below", "above", "only", "\u2248", "~"):
        text = f"It kept {lead} 20 vectors."
        assert one(text, "20", code=code) == "unclassified", lead          # old: parameter
        assert one(text, "20", hidden='says(k, "20")') == "computed", lead
    assert one("a width of about 0.5", "0.5", code=code) == "unclassified"
    assert one("a width $\\sigma \\approx 0.5$", "0.5", code=code) == "unclassified"
    assert one("a tolerance of about $10^{-3}$", "10^{-3}", code=code) == "unclassified"
    # legitimate parameters next to these words are still parameters
    assert one("with 20 vectors (about twice the rest)", "20", code=code) == "parameter"
    assert one("a width $\\sigma = 0.5$", "0.5", code=code) == "parameter"
    assert one("the mean error averaged over 20 draws", "20", code=code) == "parameter"
    assert one("rising over 0 to 1", "0", code="lim = (0, 1)") == "parameter"
    assert one("shipping above 20 units", "20", code=code) == "unclassified"
    assert one("see LKC~20 here", "20", code=code) == "parameter"      # no "~" after a letter


def test_a_measured_value_is_never_a_parameter_unless_the_same_setting_string():
    code = "clf = SVC(C=0.1, noise=10)\nrate = 2.5\nfactor = 3"
    # % and a multiplier: measured (the old rule took 10 % for the literal 0.1)
    assert one("the error drops by 10 % here", "10 %", code="noise = 0.1") == "unclassified"
    assert one("the error drops by 10 %", "10 %", code="x = f(10 * y)") == "unclassified"
    assert one("the billiard is 3\u00d7 faster", "3\u00d7", code=code) == "unclassified"
    assert one("the error is 10 % of the rest", "10 %", hidden='says(e, "10 %")') == "computed"
    # ... unless the same string is a setting literal and no measured word follows it
    assert one("with 10 % label noise", "10 %", code=code) == "parameter"
    assert one("a 3\u00d7 wider grid", "3\u00d7", code=code) == "parameter"
    # a percentage is no longer its fraction: "10 %" is not the literal 0.1
    assert one("with 10 % label noise", "10 %", code="noise = 0.1") == "unclassified"
    # a decimal in a sentence on an error, accuracy, risk, rate or time
    for text in ("The test error is 0.1 on this split.", "A risk of 0.1, the lowest.",
                 "It runs in 2.5 s on two cores.", "The learning rate of 2.5 here.",
                 "It takes 2.5 ms.", "An accuracy near 0.1."):
        tok = "0.1" if "0.1" in text else "2.5"
        clf = classes(text, code="x = f(0.2, 2.6)")[tok]   # not a setting string: never
        assert clf == "unclassified", text
    assert one("The test error is 0.1 on this split.", "0.1", code=code) == "parameter"
    assert one("It runs in 2.5 s on two cores.", "2.5", code=code) == "unclassified"
    assert one("Its error at C = 0.1 is 0.12.", "0.12", code=code + "\nlim = (0, 0.12)") == \
        "parameter"
    assert one("It has a 0.1 error rate at best.", "0.1", code=code) == "unclassified"
    # the same string: 0.10 is not the literal 0.1; a plain decimal elsewhere is a parameter
    assert one("The test error with C 0.10 here.", "0.10", code=code) == "unclassified"
    assert one("With C = 0.1 the margin is wide.", "0.1", code=code) == "parameter"


def test_targets_comments_and_roles_are_not_read():
    md = ("See [chapter text 0.9](12_bpm.md#sec-3), {cite}`herbrich2002`, {ref}`fig-3`, "
          "{py:func}`f <kernelclf.x2.f3>`, <!-- 0.55 --> and {glue:text}`err:.3f`.\n\n"
          "(sec-7)=\n% a comment 0.66\n")
    got = classify_text(_text(md))
    assert sorted((t.text, t.cls) for t in got) == [("0.9", "unclassified"), ("{glue}", "computed")]


def test_captions_and_alt_texts_are_read_with_their_lines():
    page = HEAD + textwrap.dedent("""
        Intro.

        ```{code-cell} ipython3
        ---
        mystnb:
          figure:
            caption: |
              Test error of the SVM (LKC Fig. 2.1) on
              300 noisy moons, 0.12 at best.
            name: fig-x
          image:
            alt: >-
              A line falling from 0.5
              to 0.25.
        ---
        m = 300
        ```
        """)
    tokens = classify_text(page, seeds=None)
    lines = page.split("\n")
    got = {(t.text, t.cls, t.where) for t in tokens}
    assert ("2.1", "structural", "caption") in got and ("300", "parameter", "caption") in got
    assert ("0.12", "unclassified", "caption") in got
    assert ("0.5", "unclassified", "alt") in got and ("0.25", "unclassified", "alt") in got
    for t in tokens:
        assert t.text in lines[t.line - 1], (t, lines[t.line - 1])


def test_directive_titles_bodies_and_options():
    md = ("```{exercise-start} Take 12 points\n:label: ex-5\n```\nUse 0.3.\n```{exercise-end}\n```\n\n"
          "```{figure} img_7.png\n:alt: a curve at 0.4\n:width: 80%\n:name: fig-9\n\nCaption 0.8.\n```\n\n"
          "```{math}\n:label: eq-3\nm = 250\n```\n")
    got = classes(md)
    assert got == {"12": "unclassified", "0.3": "unclassified", "0.4": "unclassified",
                   "0.8": "unclassified", "250": "unclassified"}


def test_markdown_tables_are_read():
    got = classes("| data | error |\n|---|---|\n| thyroid | 4.4 |\n", hidden='says(e, "4.4")')
    assert got == {"4.4": "computed"}


def test_markdown_cell_line_numbers_in_a_multi_cell_page():
    page = (_text("First 0.11.") + "\n```{code-cell} ipython3\nx = 1\n```\n\n+++\n\n"
            "Later\ncome 0.22 and 0.33\n")
    tokens = {t.text: t.line for t in classify_text(page)}
    lines = page.split("\n")
    for tok, line in tokens.items():
        assert tok in lines[line - 1]
    assert tokens["0.22"] == tokens["0.33"] == len(lines) - 1


def test_quoted_numbers(tmp_path):
    seeds = {"BPM": {number_key("13.3"), number_key("1e-4")}, "LKC": set(), "TR": None,
             "RM": set(), "RMM": set()}
    got = classify_text(_text("BPM has {quoted}`13.3 <BPM Table 1>`, {quoted}`10\u207b\u2074 <BPM p. 17>`, "
                              "{quoted}`13.4 <BPM Table 1>`, {quoted}`0.9 <XYZ p. 3>`, "
                              "{quoted}`0.7 <TR>` and {quoted}`0.6 <TR eq. 3>`."), seeds=seeds)
    cls = {t.text: (t.cls, t.reason) for t in got}
    assert cls["13.3"][0] == "quoted" and cls["10\u207b\u2074"][0] == "quoted"
    assert cls["13.4"] == ("unclassified", "{quoted} number not found in the text of BPM")
    assert "not one of" in cls["0.9"][1] and "names no place" in cls["0.7"][1]
    assert cls["0.6"][0] == "quoted"   # TR's text is absent here: the lookup is skipped
    assert all(t.where == "quoted" for t in got)


def test_seed_texts_hold_what_the_sources_print():
    if SEEDS is None:
        pytest.skip("no ../shared/seeds beside the checkout")
    bpm = SEEDS["BPM"]
    for typed in ("25.4", "0.21", "1 000", "60 000", "10^{-4}", "7 291"):   # BPM §4.2, Table 1
        assert number_key(typed) in bpm, typed
    assert number_key("13.3") not in bpm and number_key("25.41") not in bpm
    assert number_key("987654") not in bpm


def test_number_keys():
    assert number_key("34 816") == number_key("34\u2009816") == number_key("34,816") == "34816"
    assert number_key("\u22120.25") == number_key("-0.25") == "-0.25"
    assert number_key("2.4e-3") == number_key("2.4 \u00d7 10\u207b\u00b3") == \
        number_key("2.4\\times 10^{-3}") == "2.4e-3"
    assert number_key("1e-3") == number_key("10^{-3}") == number_key("10\u207b\u00b3") == "1e-3"
    assert number_key("41 %") == "41" and number_key("0.10") != number_key("0.1")
    assert number_key("two") == "2" and number_key("about") is None


def test_says_reads_word_numbers():
    assert typed_value("two") == (2.0, 0.5)
    says(5, "five")
    with pytest.raises(AssertionError):
        says(4, "five")


def test_counts_table():
    tokens = classify_text(_text("Values 0.1 and Table 2.", hidden='says(x, "0.1")'))
    c = counts(tokens)
    assert c == {"computed": 1, "quoted": 0, "parameter": 0, "structural": 1, "unclassified": 0,
                 "total": 2}
    table = format_counts({"book/x.md": tokens})
    assert table.splitlines()[2].split() == ["x", "2", "1", "0", "0", "1", "0"]


# ----------------------------------------------------------------------------- the {quoted} role

def test_quoted_role_renders_the_number_with_its_place_as_tooltip():
    """The role makes an ``abbreviation`` node; Sphinx's HTML writer renders its explanation
    as the ``title`` attribute (``<abbr title="BPM Table 1">``; checked in a book build)."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from docutils.parsers.rst import roles

    from kernelclf.book.sphinx_ext import quoted_role

    roles.register_local_role("quoted", quoted_role)
    tree = publish_doctree("BPM has :quoted:`13.3 <BPM Table 1>` here.")
    (abbr,) = list(tree.findall(nodes.abbreviation))
    assert abbr.astext() == "13.3" and abbr["explanation"] == "BPM Table 1"
    assert abbr["classes"] == ["kernelclf-quoted"]
    bad = publish_doctree("x :quoted:`13.3` y", settings_overrides={"report_level": 5})
    assert list(bad.findall(nodes.problematic)) and not list(bad.findall(nodes.abbreviation))


def test_quoted_role_in_the_reader_notebook_is_the_plain_number(tmp_path):
    from kernelclf.book.reader import RAW_MYST, reader_notebook

    path = _page(tmp_path, "The paper has {quoted}`13.3 <BPM Table 1>` and\n{quoted}`0.93 <LKC p. 187>`.")
    nb = reader_notebook(path, book_dir=tmp_path)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "The paper has 13.3 and\n0.93." in text
    assert not RAW_MYST["role"].search(text)
