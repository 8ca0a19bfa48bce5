"""Reader notebooks (``kernelclf.book.reader``): no raw MyST left, solutions folded, code untouched.

Every chapter of ``book/`` is converted; the checks read the MyST source independently
(jupytext and regular expressions written here, not the module's parser).
"""
import ast
import functools
import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from kernelclf.book.reader import label_index, reader_notebook, write_reader_notebook

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CHAPTERS = sorted(p for p in BOOK.glob("*.md") if "kernelspec:" in p.read_text(encoding="utf-8")[:600])

# raw MyST as a reader would see it in JupyterLab
RAW = {
    "directive fence": re.compile(r"^\s*(`{3,}|:{3,})\s*\{[\w:.-]+\}", re.M),
    "role": re.compile(r"\{[\w:.-]+\}`"),
    "label line": re.compile(r"^\s*\([^()\s]+\)=\s*$", re.M),
    "directive option": re.compile(r"^\s*:(class|label|tags|name|alt|width|all):", re.M),
    "labelled dollar math": re.compile(r"\$\$\s*\([\w:.-]+\)"),
}


@pytest.fixture(scope="module")
def index():
    return label_index(BOOK)


@pytest.fixture(scope="module")
def converted(index):
    cache = {}

    def get(path):
        if path not in cache:
            cache[path] = reader_notebook(path, book_dir=BOOK, index=index)
        return cache[path]
    return get


@functools.lru_cache(maxsize=None)
def _source(path):
    """The chapter as jupytext reads it (cached: several tests read every chapter)."""
    return jupytext.read(path)


def _without_code_fences(text):
    return re.sub(r"^ {0,3}(`{3,}|~{3,})(?![^\n]*\{)[^\n]*\n.*?^ {0,3}\1\s*$", "", text, flags=re.S | re.M)


def _removed(cell):
    return "remove-cell" in cell.metadata.get("tags", [])


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_raw_myst(converted, path):
    nb = converted(path)
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        text = _without_code_fences(cell.source)
        for what, rx in RAW.items():
            for m in rx.finditer(text):
                found.append(f"cell {k}, {what}: {text[max(0, m.start() - 30):m.end() + 30]!r}")
    assert not found, "\n".join(found)


def _solution_spans(source_nb):
    """For each cell of the jupytext notebook: is it (partly) inside a solution?"""
    inside, flags = False, []
    for cell in source_nb.cells:
        flags.append(inside)
        if cell.cell_type == "markdown":
            for m in re.finditer(r"\{(solution-start|solution-end)\}", cell.source):
                inside = m.group(1) == "solution-start"
    return flags


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_solutions_are_folded(converted, path):
    source = path.read_text(encoding="utf-8")
    n_solutions = len(re.findall(r"\{solution(?:-start)?\}", source))
    nb = converted(path)
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    summaries = sum(len(re.findall(r"<summary><b>Solution to Exercise \d+", s)) for s in md)
    assert summaries >= n_solutions
    for s in md:  # every <details> closes in its own cell (Markdown cannot span cells)
        assert s.count("<details>") == s.count("</details>"), s[:300]
        # nothing of a solution outside its <details>: text after the opening is closed first
        depth = 0
        for tag in re.findall(r"</?details>", s):
            depth += 1 if tag == "<details>" else -1
            assert depth in (0, 1)
    # code cells inside a solution are collapsed (input and output)
    src_nb = _source(path)
    inside = _solution_spans(src_nb)
    kept = [(c, f) for c, f in zip(src_nb.cells, inside) if c.cell_type == "code" and not _removed(c)]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(kept) == len(code)
    for (orig, in_solution), cell in zip(kept, code):
        if in_solution:
            hidden = cell.metadata.get("jupyter", {})
            assert hidden.get("source_hidden") and hidden.get("outputs_hidden"), cell.source[:80]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_unchanged(converted, path):
    src_nb = _source(path)
    expected = [c.source for c in src_nb.cells if c.cell_type == "code" and not _removed(c)]
    nb = converted(path)
    got = [c.source for c in nb.cells if c.cell_type == "code"]
    assert got == expected
    assert not any("remove-cell" in c.metadata.get("tags", []) for c in nb.cells)
    for orig in src_nb.cells:
        if "hide-input" in orig.metadata.get("tags", []):
            match = [c for c in nb.cells if c.source == orig.source]
            assert match and match[0].metadata["jupyter"]["source_hidden"]
    nbformat.validate(nb)
    assert "jupytext" not in nb.metadata  # Lab must not pair the reader notebook with the source


def _names(tree):
    stored, loaded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return stored, loaded


def _parse(source):
    lines = [ln for ln in source.splitlines() if not ln.startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_dropped_cells_define_nothing_used_later(path):
    """Run All of a reader notebook must not need a name only a dropped (remove-cell) cell
    defines."""
    defined, only_removed, problems = set(), set(), []
    for cell in _source(path).cells:
        if cell.cell_type != "code":
            continue
        stored, loaded = _names(_parse(cell.source))
        if _removed(cell):
            only_removed |= stored - defined
            continue
        missing = (loaded & only_removed) - defined - stored
        if missing:
            problems.append(f"{sorted(missing)} used in: {cell.source[:60]!r}")
        defined |= stored
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exercises_numbered_per_chapter(converted, path):
    n = len(re.findall(r"\{exercise(?:-start)?\}", path.read_text(encoding="utf-8")))
    text = "\n".join(c.source for c in converted(path).cells if c.cell_type == "markdown")
    numbers = [int(k) for k in re.findall(r"^\*\*Exercise (\d+)", text, re.M)]
    assert numbers == list(range(1, n + 1))


# ---------------------------------------------------------------- small synthetic chapters

def _write(tmp_path, name, body):
    head = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
            "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n")
    path = tmp_path / f"{name}.md"
    path.write_text(head + body, encoding="utf-8")
    return path


def test_roles_labels_and_equations(tmp_path):
    (tmp_path / "references.bib").write_text(
        "@book{k1, author={Ralf Herbrich}, title={T}, year={2002}}\n"
        "@article{k2, author={A. Smith and B. Jones and C. Brown}, title={U}, year={1999}}\n")
    _write(tmp_path, "01_a", "(sec-a)=\n# Chapter A\n\nText.\n\n$$\nx = 1\n$$ (eq-a1)\n\n"
           "$$\ny = 2\n$$ (eq-a2)\n")
    path = _write(tmp_path, "02_b",
                  "(sec-b)=\n# Chapter B\n\nSee {cite}`k1,k2` and {cite:t}`k1`, {eq}`eq-a2`, "
                  "{ref}`sec-a`, {ref}`that one <sec-a>` and\n{ref}`wrapped\n<sec-b>`.\n\n"
                  "$$ z = 3 $$ (eq-b1)\n\nNow {eq}`eq-b1`.\n\n"
                  "````{prf:theorem} Big\n:label: thm-b\n\nInner {math}`a`.\n\n```{note}\nNested.\n```\n"
                  "````\n\nBy {prf:ref}`thm-b`.\n\n```python\n{cite}`not-a-role-in-code`\n```\n")
    nb = reader_notebook(path)
    text = "\n".join(c.source for c in nb.cells)
    assert "(Herbrich 2002; Smith et al. 1999)" in text
    assert "Herbrich (2002)" in text
    assert "[(2) of 01_a](01_a.ipynb#eq-a2)" in text
    assert "[Chapter A](01_a.ipynb#sec-a)" in text and "[that one](01_a.ipynb#sec-a)" in text
    assert "[wrapped](#sec-b)" in text
    assert "\\tag{1}" in text and "[(1)](#eq-b1)" in text
    assert "**Theorem 1 (Big)**" in text and "[Theorem 1](#thm-b)" in text
    assert "**Note**" in text and "Nested." in text and "$a$" in text
    assert '<a id="thm-b"' in text and '<a id="sec-b"' in text
    assert "{cite}`not-a-role-in-code`" in text  # code blocks stay verbatim


def test_gated_solution_with_code_and_executed_outputs(tmp_path):
    path = _write(tmp_path, "03_c",
                  "# C\n\n```{exercise-start}\n:label: c-ex-1\n```\nDo it.\n```{exercise-end}\n```\n\n"
                  "```{solution-start} c-ex-1\n:class: dropdown\n```\nFirst part.\n\n"
                  "```{code-cell} ipython3\nprint(1)\n```\n\nSecond part.\n```{solution-end}\n```\n\n"
                  "After.\n\n```{code-cell} ipython3\n:tags: [remove-cell]\nassert True\n```\n\n"
                  "```{code-cell} ipython3\n:tags: [hide-input]\nprint(2)\n```\n")
    nb = jupytext.read(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="out\n")]
    executed = tmp_path / "exec" / "03_c.ipynb"
    executed.parent.mkdir()
    nbformat.write(nb, str(executed))
    out = write_reader_notebook(executed, tmp_path / "out", book_dir=tmp_path)
    reader = json.loads(out.read_text())
    cells = reader["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert ["".join(c["source"]) for c in code] == ["print(1)", "print(2)"]
    assert all(c["outputs"] for c in code), "outputs of the executed notebook were lost"
    assert code[0]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert code[1]["metadata"]["jupyter"] == {"source_hidden": True}
    md = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "<summary><b>Solution to Exercise 1</b></summary>\n\nFirst part." in md
    assert "<summary><b>Solution to Exercise 1 (continued)</b></summary>\n\nSecond part." in md
    after = md.index("After.")
    assert md.rfind("</details>", 0, after) > md.rfind("Second part.")


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="md or .ipynb"):
        reader_notebook(tmp_path / "x.txt")
    with pytest.raises(FileNotFoundError):
        reader_notebook(tmp_path / "missing.md")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_reference_resolves(index, path):
    """A reference whose label is unknown would show the bare label in the reader notebook."""
    text = path.read_text(encoding="utf-8")
    missing = []
    for name, body in re.findall(r"\{(eq|ref|numref|prf:ref)\}`([^`]*)`", text):
        target = re.sub(r"^.*<([^<>]+)>\s*$", r"\1", body, flags=re.S).strip()
        if target not in index:
            missing.append(f"{{{name}}}`{body}`")
    assert not missing, f"labels not found in book/: {missing}"


# ---------------------------------------------------------------- the website's side

def test_site_numbers_per_page_like_the_reader():
    """kernelclf.book.widgets restarts Sphinx's global counters on every page, so the website's
    "Exercise 1" is the reader notebook's "Exercise 1"."""
    from types import SimpleNamespace

    from kernelclf.book.sphinx_ext import _number_per_page

    # Sphinx's global numbering: the preface has exercises 1-3, chapter 3 has 4-5
    numbers = {"book/00_preface": {"exercise": {"a": (1,), "b": (2,), "c": (3,)}},
               "book/03": {"exercise": {"y": (5,), "x": (4,)}, "displaymath": {"e2": (11,), "e1": (10,)},
                           "algorithm": {"s": (2, 7)}}}
    assert _number_per_page(None, SimpleNamespace(toc_fignumbers=numbers)) == []
    assert numbers["book/00_preface"]["exercise"] == {"a": (1,), "b": (2,), "c": (3,)}
    assert numbers["book/03"]["exercise"] == {"x": (1,), "y": (2,)}
    assert numbers["book/03"]["displaymath"] == {"e1": (1,), "e2": (2,)}
    assert numbers["book/03"]["algorithm"] == {"s": (2, 1)}  # a section prefix is kept


def test_site_drops_scripts_registered_twice():
    from sphinx.builders.html._assets import _JavaScript

    from kernelclf.book.sphinx_ext import _dedupe_scripts

    thebe = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript("a.js"), _JavaScript(None, body=thebe), _JavaScript("b.js", priority=800),
               _JavaScript("", body=thebe, priority=600), _JavaScript("a.js")]
    context = {"script_files": scripts}
    _dedupe_scripts(None, "p", "page.html", context, None)
    kept = context["script_files"]
    assert [getattr(js, "filename") for js in kept] == ["a.js", None, "b.js"]


def test_code_cell_figure_caption(tmp_path):
    """A code cell's myst-nb figure caption (``mystnb: figure: {caption, name}``) is shown
    under the cell, numbered, and references to it resolve."""
    path = _write(tmp_path, "04_d",
                  "# D\n\nSee {numref}`Figure %s <fig-d>` and {ref}`fig-d`.\n\n"
                  "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: The *margin* of "
                  "{cite}`k9`.\n    name: fig-d\n---\nprint(3)\n```\n\nAfter.\n")
    nb = reader_notebook(path)
    sources = [c.source for c in nb.cells]
    code = next(k for k, c in enumerate(nb.cells) if c.cell_type == "code")
    assert nb.cells[code].source == "print(3)"
    assert sources[code + 1] == '<a id="fig-d" name="fig-d"></a>\n\n**Figure 1.** The *margin* of (k9).'
    assert "[Figure 1](#fig-d) and [Figure 1](#fig-d)" in "\n".join(sources)


def test_rough_bibliography_reading_agrees_with_pybtex():
    """Without pybtex the reader reads references.bib roughly; names without LaTeX accents
    come out as pybtex gives them."""
    from kernelclf.book.reader import _bibliography, _bibliography_rough

    exact = _bibliography(BOOK)
    rough = _bibliography_rough((BOOK / "references.bib").read_text(encoding="utf-8"))
    assert set(rough) == set(exact)
    plain = [k for k, (who, _) in exact.items() if who.isascii()]
    assert len(plain) > len(exact) // 2
    assert {k: rough[k] for k in plain} == {k: exact[k] for k in plain}
