"""The execution report's run times (issue 38: every run time showed "-").

``conftest.py`` adds up the seconds nbval spends in each chapter's cells and writes them
into the saved notebook; ``.ci/nbval_cache.py`` files them in the book build's
jupyter-cache, where myst-nb's execution table reads them (``execution_seconds``).
"""
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A chapter

```{code-cell} ipython3
x = 1 + 1
print(x)
```
"""


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_conftest_adds_up_the_seconds_of_a_chapters_cells():
    conftest = sys.modules.get("conftest") or _load("kernelclf_conftest", ROOT / "conftest.py")
    for phase, seconds in (("setup", 0.25), ("call", 1.5), ("teardown", 0.25)):
        conftest.pytest_runtest_logreport(SimpleNamespace(
            nodeid="book/zz_fake.md::Cell 0", failed=False, skipped=False, duration=seconds,
            when=phase))
    conftest.pytest_runtest_logreport(SimpleNamespace(
        nodeid="book/zz_fake.md::Cell 1", failed=False, skipped=False, duration=0.5,
        when="call"))
    assert conftest.chapter_seconds(["book/zz_fake.md::Cell 0", "book/zz_fake.md::Cell 1"]) \
        == pytest.approx(2.5)


def test_nbval_executions_are_filed_with_their_run_time(tmp_path):
    pytest.importorskip("jupyter_cache")
    from jupyter_cache import get_cache
    from myst_nb.ext.execution_tables import _key2transform

    book = tmp_path / "book"
    book.mkdir()
    (book / "zz_chapter.md").write_text(CHAPTER, encoding="utf-8")
    saved = tmp_path / "saved"
    saved.mkdir()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 1 + 1\nprint(x)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter"), cell]
    nb.metadata["kernelclf"] = {"execution_seconds": 3.25}
    nbformat.write(nb, str(saved / "zz_chapter.ipynb"))
    _load("nbval_cache", ROOT / ".ci" / "nbval_cache.py").main(str(saved), str(tmp_path / "cache"),
                                                              str(book))
    records = get_cache(str(tmp_path / "cache")).list_cache_records()
    assert len(records) == 1 and records[0].data["execution_seconds"] == 3.25
    assert _key2transform["runtime"](records[0].data["execution_seconds"]) == "3.25"
