"""Let nbval collect the book's MyST Markdown notebooks directly.

nbval only collects ``.ipynb``.  The chapters in ``book/`` are jupytext MyST
files, so with ``--nbval``/``--nbval-lax`` we collect every ``book/*.md`` whose
header declares a jupytext notebook, reading it with ``jupytext.read``: no
generated ``.ipynb`` is needed and none is written.  This relies on
``nbval.plugin.IPyNbFile.collect`` reading ``self.nb`` through the module-level
``nbformat``; nbval is pinned (``nbval==0.11.0``) in ``pyproject.toml`` for that.
"""
import contextlib

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
                yield from super().collect()

    return MystNbFile.from_parent(parent, path=file_path)
