"""Let nbval collect the book's MyST Markdown notebooks directly.

nbval only collects ``.ipynb``.  The chapters in ``book/`` are jupytext MyST
files, so with ``--nbval``/``--nbval-lax`` we collect every ``book/*.md`` whose
header declares a jupytext notebook, reading it with ``jupytext.read``: no
generated ``.ipynb`` is needed and none is written.  This relies on
``nbval.plugin.IPyNbFile.collect`` reading ``self.nb`` through the module-level
``nbformat``; nbval is pinned (``nbval==0.11.0``) in ``pyproject.toml`` for that.

With ``KERNELCLF_NBVAL_SAVE=DIR`` (``make test`` sets it) every chapter whose cells all
passed is also written, with the outputs nbval received and the kernel's widget state, to
``DIR/<chapter>.ipynb``, with the seconds its cells took in the notebook's metadata
(``kernelclf.execution_seconds``); ``.ci/nbval_cache.py`` then files these executions, run
times included, in the book build's jupyter-cache, so the build shows what nbval ran (and
its execution report how long it took) instead of running every chapter again (a chapter
whose code cells differ from what nbval ran is executed by the build).
"""
import contextlib
import json
import os
from pathlib import Path

# reader notebooks written by `make notebooks` / `make lab` are not test sources
collect_ignore_glob = ["book/*.ipynb"]


def _is_myst_notebook(path):
    if path.suffix != ".md" or path.parent.name != "book":
        return False
    with open(path, encoding="utf-8") as fh:
        head = fh.read(600)
    return head.startswith("---") and "jupytext:" in head and "kernelspec:" in head


@contextlib.contextmanager
def _jupytext_reader():
    import jupytext
    import nbval.plugin as plugin

    original = plugin.nbformat.read

    def read(path, as_version=4, **kwargs):
        return jupytext.read(path, as_version=as_version)

    plugin.nbformat.read = read
    try:
        yield
    finally:
        plugin.nbformat.read = original


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if not _is_myst_notebook(file_path):
        return None
    from nbval.plugin import IPyNbFile

    class MystNbFile(IPyNbFile):
        def collect(self):
            with _jupytext_reader():
                self._cells = list(super().collect())
            yield from self._cells

        def teardown(self):
            save = os.environ.get("KERNELCLF_NBVAL_SAVE")
            try:
                if save and self.kernel is not None and self.kernel.is_alive():
                    _save_execution(self, Path(save))
            finally:
                super().teardown()

    return MystNbFile.from_parent(parent, path=file_path)


#: nbval reports of the chapter cells: node id -> passed (setup, call and teardown so far)
_PASSED = {}
#: node id -> seconds spent in the cell (setup, call and teardown), for the execution report
_SECONDS = {}


def pytest_runtest_logreport(report):
    if "::Cell " in report.nodeid:
        _PASSED[report.nodeid] = _PASSED.get(report.nodeid, True) and not report.failed \
            and not report.skipped
        _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + float(report.duration)


_WIDGET_STATE = """\
import json as _json, sys as _sys
_w = _sys.modules.get("ipywidgets")
print(_json.dumps(_w.Widget.get_manager_state(drop_defaults=False) if _w and _w.Widget.widgets
                  else None))
del _json, _sys, _w
"""


def _kernel_output(kernel, code, timeout=60):
    """Run ``code`` in nbval's kernel, return what it printed to stdout."""
    msg_id = kernel.execute_cell_input(code, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=timeout)
    text = []
    while True:
        msg = kernel.get_message("iopub", timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
            text.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            raise RuntimeError(msg["content"]["evalue"])
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return "".join(text)


def chapter_seconds(nodeids):
    """Seconds nbval spent in the given cells (their setup, call and teardown)."""
    return round(sum(_SECONDS.get(n, 0.0) for n in nodeids), 3)


def _save_execution(nbfile, folder):
    """Write the executed chapter (every code cell passed and ran) as a notebook."""
    import nbformat

    cells = getattr(nbfile, "_cells", [])
    if not cells or nbfile.timed_out or not all(_PASSED.get(c.nodeid) for c in cells) \
            or any(c.test_outputs is None for c in cells):
        return
    nb = nbformat.from_dict(json.loads(json.dumps(nbfile.nb)))  # a copy
    code = [c for c in nb.cells if c.cell_type == "code"]
    if len(code) != len(cells):
        return
    for count, (cell, item) in enumerate(zip(code, cells), start=1):
        cell.execution_count = count
        cell.outputs = [nbformat.from_dict(json.loads(json.dumps(o))) for o in item.test_outputs]
        for out in cell.outputs:
            if out.output_type == "execute_result":
                out.execution_count = count
    state = json.loads(_kernel_output(nbfile.kernel, _WIDGET_STATE))
    if state:
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    # the chapter's run time, shown by the book's execution report (.ci/nbval_cache.py)
    nb.metadata["kernelclf"] = {"execution_seconds": chapter_seconds(c.nodeid for c in cells)}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / (Path(str(nbfile.fspath)).stem + ".ipynb")))
