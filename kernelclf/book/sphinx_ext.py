"""The book's Sphinx extension (``extra_extensions: [kernelclf.book.sphinx_ext]`` in ``_config.yml``).

Book chapter 00 (``book/00_preface.md``). Under the title of every notebook page it adds a
note with a link to the page's reader notebook (``_notebooks/NAME.ipynb``: the executed
chapter converted by :mod:`kernelclf.book.reader`, written there by the Makefile), to the
in-browser lab (:mod:`kernelclf.book.lite`), and how to run it live. It registers the
``{quoted}`NUMBER <SOURCE place>``` role of the typed-number convention
(:mod:`kernelclf.book.typed_numbers`): the number is shown alone, its place in the source
as the HTML ``title`` (a tooltip) of an ``<abbr class="kernelclf-quoted">``. It also drops
scripts that Jupyter Book registers twice (a second ``const THEBE_JS_URL`` was a script
error on every page) and numbers equations, exercises, algorithms, theorems and figures
per page instead of across the whole book.
"""
from __future__ import annotations

import html
import re

__all__ = ["setup"]


def _run_note(pagename, source, repository=""):
    name = pagename.rsplit("/", 1)[-1]
    up = "../" * pagename.count("/")
    widgets = "explore(" in source or "ipywidgets" in source
    repo = (f'<a class="reference external" href="{html.escape(repository, quote=True)}">'
            f"the kernelclf repository</a>") if repository else "the kernelclf repository"
    text = (f'<a class="reference external kernelclf-lite-link" '
            f'href="{up}lite/notebooks/index.html?path={name}.ipynb">Run it in your '
            "browser</a>: the site carries a JupyterLite lab whose Python (Pyodide) runs in "
            "the page, with nothing to install (the first start takes a few seconds). "
            f'Or download it as a notebook, <a class="reference external" '
            f'href="{up}_notebooks/{name}.ipynb" download><code>{name}.ipynb</code></a> '
            "(executed, with its outputs; the book's markup is plain Markdown there and the "
            "solutions are folded), and open it in JupyterLab; or, in a clone of "
            f"{repo}, run <code>make lab</code> and open <code>{name}.ipynb</code>.")
    if widgets:
        text += (" The widgets on this page switch between figures computed when the book "
                 "was built; in a running kernel they recompute live.")
    return (f'<div class="admonition tip kernelclf-run-note"><p class="admonition-title">'
            f"Run this chapter</p><p>{text}</p></div>")


def _add_run_note(app, pagename, templatename, context, doctree):
    if doctree is None or "body" not in context:
        return
    try:
        path = app.env.doc2path(pagename)
        source = open(path, encoding="utf-8").read()
    except OSError:
        return
    if "kernelspec:" not in source[:400]:
        return  # plain pages (references) have no notebook
    body = context["body"]
    end = body.find("</h1>")
    if end < 0:
        return
    end += len("</h1>")
    options = getattr(getattr(app, "config", None), "html_theme_options", None) or {}
    repository = options.get("repository_url", "") if isinstance(options, dict) else ""
    context["body"] = body[:end] + _run_note(pagename, source, repository) + body[end:]


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    """Drop repeated identical ``<script>`` entries. Jupyter Book registers sphinx-thebe's
    inline configuration twice (with different priorities, so Sphinx keeps both), and the
    second ``const THEBE_JS_URL`` was a script error on every page."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, kept = set(), []
    for js in scripts:
        attributes = getattr(js, "attributes", {}) or {}
        name = str(getattr(js, "filename", js) or "")  # inline scripts: None or ""
        key = (name, tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key in seen:
            continue
        seen.add(key)
        kept.append(js)
    context["script_files"] = kept


def _number_per_page(app, env):
    """Number equations, exercises, algorithms, theorems and figures per page ("Exercise 1"
    in every chapter, as the reader notebooks of :mod:`kernelclf.book.reader` do). Without a
    numbered table of contents Sphinx counts them across the whole book (chapter 3's
    exercises were 16-19 and its first equation (10)); this runs after Sphinx assigned its
    numbers and restarts each counter on every page, keeping the order."""
    numbers = getattr(env, "toc_fignumbers", None) or {}
    for by_type in numbers.values():
        for ids in by_type.values():
            groups = {}
            for key in sorted(ids, key=lambda k: ids[k]):
                prefix = tuple(ids[key][:-1])
                groups[prefix] = groups.get(prefix, 0) + 1
                ids[key] = (*prefix, groups[prefix])
    return []


def quoted_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{quoted}`13.3 <BPM Table 1>```: the number, with its source place as a tooltip.

    A role without a place (``<...>``) is an error on the page: the convention asks for
    the precise place in the source.
    """
    from docutils import nodes
    from docutils.utils import unescape

    m = re.match(r"^(?P<number>.*?)\s*<(?P<place>[^<>]+)>\s*$", unescape(text), re.S)
    if m is None or not m["number"].strip():
        msg = inliner.reporter.error(
            f"{{quoted}} needs 'NUMBER <SOURCE place>', got {text!r}", line=lineno)
        problem = inliner.problematic(rawtext, rawtext, msg)
        return [problem], [msg]
    node = nodes.abbreviation(rawtext, m["number"].strip(), explanation=m["place"].strip(),
                              classes=["kernelclf-quoted"])
    return [node], []


def setup(app):
    """Sphinx entry point: add the 'Run this chapter' note to every notebook page, drop
    duplicated scripts, number per page and register the ``{quoted}`` role."""
    app.add_role("quoted", quoted_role)
    app.connect("html-page-context", _add_run_note)
    app.connect("html-page-context", _dedupe_scripts, priority=999)  # after the themes
    app.connect("env-get-updated", _number_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
