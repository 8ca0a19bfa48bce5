"""Every name the API pages document imports from where the page says (issue 38).

The pages ``book/api_*.md`` (written by ``.ci/api_pages.py``) say where to import their
names from: the family for the whole page ("Import these names from `kernelclf.margin`"),
a module for its own section ("Import these names from `kernelclf.margin.svm`"), or
each section's module ("Import each name from the module its section names"). This test
reads the pages as a user would and imports every documented name from there; the object
must be the documented one. Every estimator is importable from ``kernelclf`` itself.
"""
import importlib
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = sorted(BOOK.glob("api_*.md"))
PAGE_LINE = re.compile(r"^Import these names from `([\w.]+)` \(`from \1 import \.\.\.`\)", re.M)
EACH = "Import each name from the module its section names"
DIRECTIVE = re.compile(r"^\.\. (?:autoclass|autofunction|autoexception|autodata):: ([\w.]+)$"
                       r"|^\.\. py:data:: (\w+)$", re.M)


def _documented(page):
    """``(section module, name, documented object's module path or None, where to import)``."""
    text = page.read_text()
    head = text.split("\n## ", 1)[0]
    found = PAGE_LINE.search(head)
    page_home = found.group(1) if found else None
    each = EACH in head
    out = []
    for block in text.split("\n## `")[1:]:
        module = block.split("`", 1)[0]
        own = PAGE_LINE.search(block.split("```", 1)[0])
        if own:
            home = own.group(1)
        elif page_home and not each:
            home = page_home
        else:
            home = module
        for full, data in DIRECTIVE.findall(block):
            if full:
                out.append((module, full.rsplit(".", 1)[1], full.rsplit(".", 1)[0], home))
            else:
                out.append((module, data, None, home))
    return out


def test_the_pages_document_names_and_say_where_they_come_from():
    assert len(PAGES) >= 9
    entries = [e for p in PAGES for e in _documented(p)]
    assert len(entries) > 400          # the parser reads the pages (494 entries at the time of writing)
    bounds = [e for e in _documented(BOOK / "api_bounds.md")]
    assert {e[3] for e in bounds if e[1] == "vc_bound"} == {"kernelclf.bounds.vc"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_documented_name_imports_from_where_its_page_says(page):
    failures = []
    for module, name, owner, home in _documented(page):
        try:
            got = getattr(importlib.import_module(home), name)
        except (ImportError, AttributeError) as err:
            failures.append(f"from {home} import {name}: {err}")
            continue
        documented = getattr(importlib.import_module(owner or module), name)
        if got is not documented:
            failures.append(f"from {home} import {name} is not {owner or module}.{name}")
    assert not failures, "\n".join(failures)


def test_every_estimator_and_top_level_name_imports_from_kernelclf():
    import kernelclf
    from kernelclf.discovery import all_estimators

    missing = [n for n, cls in all_estimators() if getattr(kernelclf, n, None) is not cls]
    assert not missing, missing
    assert {"SupportVectorRegression", "UniversumSVM"} <= set(kernelclf.__all__)
    core = (BOOK / "api_core.md").read_text()
    listed = re.findall(r"\{py:\w+\}`(\w+) <([\w.]+)>`",
                        core.split("Importable from the top level", 1)[1].split("\n\n", 1)[0])
    assert len(listed) == len(kernelclf.__all__) - 1            # all but __version__
    for name, full in listed:
        owner, attr = full.rsplit(".", 1)
        assert getattr(kernelclf, name) is getattr(importlib.import_module(owner), attr), name


def test_committed_api_pages_are_what_the_generator_writes(tmp_path):
    """The committed pages equal ``.ci/api_pages.py``'s output: running the generator after a
    change to the package must not silently undo text fixed on a page (edit the docstring
    or the generator, then regenerate)."""
    import subprocess
    import sys

    root = BOOK.parent
    subprocess.run([sys.executable, str(root / ".ci" / "api_pages.py"), str(tmp_path)],
                   check=True, capture_output=True, cwd=root)
    written = sorted(p.name for p in tmp_path.glob("api_*.md"))
    assert written == [p.name for p in PAGES]
    stale = [name for name in written
             if (tmp_path / name).read_text() != (BOOK / name).read_text()]
    assert not stale, f"regenerate with `python .ci/api_pages.py book`: {stale} differ"
