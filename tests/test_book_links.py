"""One hop each way between book and code, kept in step with ``_toc.yml``.

* every module of the package names its chapter(s) in one format at the top of its
  docstring: ``Book chapter NN (``book/NN_name.md``)`` or
  ``Book chapters NN and MM (``book/...md``, ``book/...md``)``;
* the README's chapter table lists exactly the chapters of ``_toc.yml`` and, in its
  ``code`` column, modules that exist and whose docstrings name that chapter;
* every module appears in the code column of a chapter its docstring names.
"""
import ast
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BACK_MATTER = {"book/references", "book/execution_report", "book/reproductions"}
CHAPTER_RE = re.compile(r"^Book chapters? [^\n(]*\(((?:``book/[\w.-]+\.md``(?:, )?)+)\)",
                        re.MULTILINE)


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [c["file"] for c in part["chapters"]]
    files += [c["file"] for c in toc.get("chapters", [])]
    return [f for f in files if f not in BACK_MATTER]


def _modules():
    out = {}
    for path in sorted((ROOT / "kernelclf").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _docstring_chapters(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    m = CHAPTER_RE.search(doc)
    if not m:
        return None
    return ["book/" + Path(f.strip("`")).stem for f in re.findall(r"``book/[\w.-]+\.md``", m.group(1))]


def _readme_table():
    rows = {}
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| file |"))
    cols = [c.strip() for c in lines[header].strip("|").split("|")]
    assert "code" in cols, "the README chapter table needs a 'code' column"
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(cols, (c.strip() for c in line.strip("|").split("|")), strict=True))
        chapter = cells["file"].strip("`")
        rows[chapter] = set(re.findall(r"`(kernelclf[\w.]*)`", cells["code"]))
    return rows


MODULES = _modules()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_docstring_names_a_chapter_of_the_toc(name):
    chapters = _docstring_chapters(MODULES[name])
    assert chapters, (f"{name}: the docstring must name its chapter as "
                      "'Book chapter NN (``book/NN_name.md``)'")
    missing = set(chapters) - set(_toc_files())
    assert not missing, f"{name} names chapters that are not in _toc.yml: {missing}"


def test_readme_chapter_table_matches_the_toc():
    assert list(_readme_table()) == _toc_files()


def test_readme_code_column_points_at_modules_that_point_back():
    table = _readme_table()
    for chapter, modules in table.items():
        for mod in modules:
            assert mod in MODULES, f"README row {chapter}: no module {mod}"
            assert chapter in _docstring_chapters(MODULES[mod]), (
                f"README lists {mod} under {chapter} but its docstring does not name it")
    listed = set().union(*table.values())
    for name in MODULES:
        assert name in listed, f"{name} is not in the README's code column"
