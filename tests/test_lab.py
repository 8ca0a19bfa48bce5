"""Browser test of a reader notebook in a running JupyterLab (issue 15).

A reader notebook (``kernelclf.book.reader``) of a short chapter is written into a temporary
folder, ``jupyter lab`` is started there on 127.0.0.1 with a token (its settings,
runtime and workspace folders are temporary too), and Playwright drives Debian's
Chromium: the notebook opens, Run All runs every cell, no cell ends in an error, the
rendered Markdown shows no raw MyST markup, and every solution starts folded (its
``<details>`` closed, its code cells collapsed) and opens on a click.

``KERNELCLF_LAB_CHAPTER`` picks another chapter (default ``01_introduction``).
"""
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from _browser import chromium

from kernelclf.book.reader import write_reader_notebook

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = os.environ.get("KERNELCLF_LAB_CHAPTER", "01_introduction")
#: Run All of the chapter, in seconds
RUN_TIMEOUT = 90

RAW = {
    "directive": re.compile(r"```\s*\{[\w:.-]+\}"),
    "directive name": re.compile(r"^\s*\{[\w:.-]+\}", re.M),  # a fence Lab shows as code
    "role": re.compile(r"\{[\w:.-]+\}`"),
    "label": re.compile(r"^\s*\([\w:.-]+\)=\s*$", re.M),
    "option": re.compile(r"^\s*:(class|label|tags):", re.M),
    "escaped html": re.compile(r"</?(details|summary|blockquote)>"),
}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a folder holding the chapter's reader notebook."""
    root = tmp_path_factory.mktemp("lab")
    work = root / "notebooks"
    write_reader_notebook(ROOT / "book" / f"{CHAPTER}.md", work, book_dir=ROOT / "book")
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell stays in the page (no virtual scrolling), so all of them can be inspected
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    apputils = root / "settings" / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True)
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"checkForUpdates": False, "fetchNews": "false"}))
    token, port = secrets.token_hex(16), _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "config"),
               JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(root / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "workspaces"),
               KERNELCLF_PROGRESS="0", PYDEVD_DISABLE_FILE_VALIDATION="1")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail("jupyter lab exited: " + (root / "lab.log").read_text()[-2000:])
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("jupyter lab did not start within 60 s")
                time.sleep(0.5)
        yield url, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


_STATE_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model) return null;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = [];
  const list = panel.content.model.cells;
  for (let i = 0; i < list.length; i++) {
    const c = list.get(i);
    if (c.type !== 'code') continue;
    cells.push({count: c.executionCount, outputs: c.outputs.toJSON(),
                source: c.sharedModel.getSource().slice(0, 60)});
  }
  return {status: kernel ? kernel.status : 'none', cells};
}"""


def _errors(state):
    found = []
    for cell in state["cells"]:
        for out in cell["outputs"]:
            if out.get("output_type") == "error":
                found.append(f"{cell['source']!r}: {out.get('ename')}: {out.get('evalue')}")
    return found


def test_reader_notebook_runs_in_jupyterlab(lab, browser):
    url, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page_errors = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    try:
        page.goto(f"{url}/lab/tree/{CHAPTER}.ipynb?token={token}", timeout=60_000)
        page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown", timeout=60_000)
        page.wait_for_function("() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                               " return p && p.sessionContext && p.sessionContext.session &&"
                               " p.sessionContext.session.kernel &&"
                               " p.sessionContext.session.kernel.status === 'idle'; }", timeout=60_000)

        # ---- before running: raw MyST and folded solutions, as a reader first sees them
        rendered = page.locator(".jp-MarkdownCell .jp-RenderedMarkdown")
        text = "\n".join(rendered.all_inner_texts())
        assert text.strip(), "no Markdown was rendered"
        for what, rx in RAW.items():
            m = rx.search(text)
            assert m is None, f"raw MyST visible ({what}): {text[max(0, m.start() - 40):m.end() + 40]!r}"
        details = page.locator(".jp-RenderedMarkdown details")
        source = (ROOT / "book" / f"{CHAPTER}.md").read_text(encoding="utf-8")
        n_solutions = len(re.findall(r"\{solution(?:-start)?\}", source))
        assert details.count() >= n_solutions
        assert page.locator(".jp-RenderedMarkdown details[open]").count() == 0, "a solution is open"
        if n_solutions:
            first = details.first
            first.scroll_into_view_if_needed()
            hidden_part = first.locator(":scope > :not(summary)").first
            assert not hidden_part.is_visible(), "the solution text is visible before it is opened"
            first.locator("summary").click()
            page.wait_for_timeout(200)
            assert hidden_part.is_visible(), "clicking 'Solution' did not open it"
            first.locator("summary").click()
        collapsed = page.evaluate("""() => {
            const list = window.jupyterapp.shell.currentWidget.content.widgets;
            return list.filter(w => w.model.type === 'code' &&
                               (w.model.getMetadata('tags') || []).includes('solution'))
                       .map(w => w.inputHidden && w.outputHidden);
        }""")
        assert all(collapsed), "a code cell of a solution is not collapsed"

        # ---- Run All
        started = time.monotonic()
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        state = None
        while time.monotonic() - started < RUN_TIMEOUT:
            page.wait_for_timeout(1000)
            state = page.evaluate(_STATE_JS)
            if state and (_errors(state) or (state["status"] == "idle"
                                              and all(c["count"] for c in state["cells"]))):
                break
        assert state is not None
        assert not _errors(state), "cells failed in JupyterLab:\n" + "\n".join(_errors(state))
        not_run = [c["source"] for c in state["cells"] if not c["count"]]
        assert not not_run, f"Run All did not finish in {RUN_TIMEOUT} s: {not_run[:3]}"
        assert any(c["outputs"] for c in state["cells"]), "no cell produced output"
        # after running: still no raw markup, still folded
        text = "\n".join(page.locator(".jp-MarkdownCell .jp-RenderedMarkdown").all_inner_texts())
        assert not any(rx.search(text) for rx in RAW.values())
        assert page.locator(".jp-RenderedMarkdown details[open]").count() == 0
        assert not page_errors, f"script errors in JupyterLab: {page_errors}"
    finally:
        page.close()
