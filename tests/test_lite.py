"""The in-browser lab (kernelclf.book.lite): its build pieces, and every chapter run in it offline.

Unit tests check the pieces against independent readings: the wheel the build packs is a
valid wheel (its RECORD hashes recomputed here, ``zipfile``'s own integrity test), the lock
entries carry the sha256 of the files, ``jupyter-lite.json`` names Pyodide and turns the PyPI
fallback off, the data copy matches the registry's checksums.

The browser test (marker ``browser``) serves the built site (``make book``) on 127.0.0.1 and
drives Debian's Chromium with every other host unresolvable (``--host-resolver-rules``) and
every request to another origin aborted and recorded: each chapter opens from the link of its
page in the lab, its Pyodide kernel starts, Run All finishes with no error output, and where
the chapter has an ``explore`` widget, moving a control after the run changes what the widget
shows (recomputed in Python in the page). Two chapters run at a time; the kernel-start and
run times of every chapter are printed (``make site-test`` shows them).
"""
import base64
import csv
import functools
import hashlib
import http.server
import io
import os
import re
import threading
import time
import zipfile
from pathlib import Path

import pytest

from kernelclf.book import lite

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("KERNELCLF_SITE", ROOT / "_build" / "html"))
CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("*.md")
                  if "kernelspec:" in p.read_text(encoding="utf-8")[:400])
#: seconds for a kernel to start, and for one chapter's Run All in Pyodide
KERNEL_TIMEOUT, RUN_TIMEOUT, WIDGET_TIMEOUT = 300, 900, 120
#: MyST markup a reader must never see (directives, roles, labels, directive options)
RAW_MYST = re.compile(r"```\s*\{[\w:.-]+\}|\{[\w:.-]+\}`|^\s*\([\w:.-]+\)=\s*$|^\s*:(class|label|tags):",
                      re.M)


# ------------------------------------------------------------------ build pieces

def test_build_wheel_is_a_valid_wheel(tmp_path):
    whl = lite.build_wheel(ROOT / "kernelclf", tmp_path)
    assert whl.name == "kernelclf-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl) as zf:
        assert zf.testzip() is None
        names = set(zf.namelist())
        record = zf.read("kernelclf-0.1.0.dist-info/RECORD").decode()
        rows = list(csv.reader(io.StringIO(record)))
        assert {r[0] for r in rows} == names
        for name, digest, size in rows:
            if name.endswith("RECORD"):
                continue
            data = zf.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data)
        assert "Root-Is-Purelib: true" in zf.read("kernelclf-0.1.0.dist-info/WHEEL").decode()
    expected = {f"kernelclf/{p.relative_to(ROOT / 'kernelclf').as_posix()}"
                for p in (ROOT / "kernelclf").rglob("*.py") if "__pycache__" not in p.parts}
    assert expected <= names
    # reproducible: the same bytes twice
    again = lite.build_wheel(ROOT / "kernelclf", tmp_path / "again")
    assert again.read_bytes() == whl.read_bytes()


def test_extend_lock_adds_entries_with_hashes(tmp_path):
    whl = lite.build_wheel(ROOT / "kernelclf", tmp_path)
    fake = {}
    for dist in lite.LITE_WHEELS:
        path = tmp_path / f"{dist}-1.0-py3-none-any.whl"
        path.write_bytes(dist.encode())
        fake[dist] = path
    base = {"numpy", "scipy", "scikit-learn", "matplotlib", "joblib", "traitlets", "ipython"}
    lock = {"info": {"version": lite.PYODIDE_VERSION},
            "packages": {n: {"name": n} for n in base}}
    lite.extend_lock(lock, [whl, *fake.values()])
    entry = lock["packages"]["kernelclf"]
    assert entry["file_name"] == whl.name and entry["imports"] == ["kernelclf"]
    assert entry["sha256"] == hashlib.sha256(whl.read_bytes()).hexdigest()
    assert set(entry["depends"]) <= set(lock["packages"])
    assert lock["packages"]["jupyterlab-widgets"]["sha256"] == hashlib.sha256(
        b"jupyterlab_widgets").hexdigest()
    with pytest.raises(ValueError, match="depends"):
        lite.extend_lock({"packages": {}}, [whl])
    with pytest.raises(ValueError, match="no lock entry"):
        other = tmp_path / "other-1.0-py3-none-any.whl"
        other.write_bytes(b"x")
        lite.extend_lock(lock, [other])


def test_lite_config_names_pyodide_and_disables_pypi():
    cfg = lite.lite_config("./pyodide/pyodide.js")
    kernel = cfg["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel == {"pyodideUrl": "./pyodide/pyodide.js", "disablePyPIFallback": True}
    cdn = lite.lite_config(lite.PYODIDE_CDN, preload=["a.whl"])
    kernel = cdn["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert "v0.27.7/full/pyodide.js" in kernel["pyodideUrl"]
    assert kernel["loadPyodideOptions"] == {"packages": ["a.whl"]}


def test_copy_data_matches_the_registry(tmp_path):
    from kernelclf.datasets import REGISTRY, data_home

    if not (data_home() / "raetsch").is_dir():
        pytest.skip("no data home with the Raetsch benchmarks (set KERNELCLF_DATA)")
    copied = lite.copy_data(tmp_path)
    assert copied
    for spec in REGISTRY.values():
        for fname, sha in spec.files:
            rel = f"{spec.folder}/{fname}"
            if rel in copied:
                assert hashlib.sha256((tmp_path / rel).read_bytes()).hexdigest() == sha


def test_data_home_inside_pyodide(monkeypatch):
    from kernelclf.datasets import _registry

    monkeypatch.delenv("KERNELCLF_DATA", raising=False)
    monkeypatch.setattr(_registry.sys, "platform", "emscripten")
    assert str(_registry.data_home()) == _registry.LITE_DATA_HOME


# ------------------------------------------------------------------ browser

_KERNEL_IDLE = """() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  return k ? k.status : null; }"""
_STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = [], list = panel.content.model.cells;
  for (let i = 0; i < list.length; i++) {
    const c = list.get(i);
    if (c.type !== 'code') continue;
    const errors = c.outputs.toJSON().filter(o => o.output_type === 'error')
                    .map(o => o.ename + ': ' + o.evalue);
    cells.push({count: c.executionCount, errors, source: c.sharedModel.getSource().slice(0, 60)});
  }
  return {status: kernel ? kernel.status : 'none', cells};
}"""


class _Run:
    """One chapter in one browser context: open, wait for the kernel, Run All, poll."""

    def __init__(self, browser, base, chapter, outside):
        from _browser import _move, _shown

        self._move, self._shown = _move, _shown
        self.chapter, self.errors, self.widget = chapter, [], "no widget"
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.route("**/*", functools.partial(_only_local, base, outside))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.t0 = time.monotonic()
        self.page.goto(f"{base}/lite/notebooks/index.html?path={chapter}.ipynb", timeout=60_000)
        self.stage, self.kernel_s, self.run_s, self.state = "kernel", None, None, None

    def poll(self):
        """Advance; return True when finished."""
        now = time.monotonic()
        if self.stage == "kernel":
            if self.page.evaluate(_KERNEL_IDLE) == "idle":
                self.kernel_s = now - self.t0
                text = "\n".join(self.page.locator(".jp-RenderedMarkdown").all_inner_texts())
                raw = RAW_MYST.search(text)
                if not text.strip() or raw:
                    self.errors.append(f"raw MyST in the lab: {raw.group(0) if raw else 'no text'}")
                self.page.evaluate("() => window.jupyterapp.commands.execute("
                                   "'notebook:run-all-cells')")
                self.t1, self.stage = now, "run"
            elif now - self.t0 > KERNEL_TIMEOUT:
                self.errors.append(f"the kernel did not start within {KERNEL_TIMEOUT} s")
                return True
            return False
        if self.stage == "run":
            self.state = state = self.page.evaluate(_STATE)
            failed = [f"{c['source']!r}: {e}" for c in state["cells"] for e in c["errors"]]
            done = state["status"] == "idle" and all(c["count"] for c in state["cells"])
            if failed or done or now - self.t1 > RUN_TIMEOUT:
                self.run_s = now - self.t1
                self.errors += failed
                if not (failed or done):
                    left = [c["source"] for c in state["cells"] if not c["count"]]
                    self.errors.append(f"Run All did not finish in {RUN_TIMEOUT} s: {left[:2]}")
                if self.errors:
                    return True
                self._start_widget()
                return self.stage == "done"
            return False
        if self.stage == "widget":
            if self._shown(self.explorer) != self.before:
                self.widget = f"{self.how}: the output changed after {now - self.t2:.1f} s"
                self.stage = "done"
            elif now - self.t2 > WIDGET_TIMEOUT:
                self.errors.append(f"moving the widget ({self.how}) did not change its output "
                                   f"within {WIDGET_TIMEOUT} s")
                self.stage = "done"
        return self.stage == "done"

    def _start_widget(self):
        explorers = self.page.locator(".kernelclf-explorer")
        if not explorers.count():
            self.stage = "done"
            return
        self.explorer = explorers.first
        self.explorer.scroll_into_view_if_needed()
        self.before = self._shown(self.explorer)
        control = self.explorer.locator(".widget-slider, .widget-dropdown, .widget-toggle-buttons")
        self.how = _move_in_lab(self.page, control.first, self._move)
        self.t2, self.stage = time.monotonic(), "widget"

    def close(self):
        self.context.close()


def _move_in_lab(page, control, move):
    """Move a control as a reader does. Sliders are dragged with the mouse by a bit more
    than one step (in the notebook, arrow keys belong to the notebook's own shortcuts);
    drop-downs and toggle buttons as on the static pages."""
    handle = control.locator(".noUi-handle")
    if not handle.count():
        return move(page, control)
    low, now, top = (float(handle.get_attribute(f"aria-value{k}")) for k in ("min", "now", "max"))
    box, track = handle.bounding_box(), control.locator(".noUi-base").bounding_box()
    step = track["width"] / max(top - low, 1e-12)  # one unit of the slider's value
    sign = 1 if now < top else -1
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + sign * max(1.2 * step, 0.15 * track["width"]), y, steps=6)
    page.mouse.up()
    return f"slider dragged {'right' if sign > 0 else 'left'} from {now:g}"


def _only_local(base, outside, route):
    url = route.request.url
    if url.startswith((base, "data:", "blob:")):
        route.continue_()
    else:
        outside.append(url)
        route.abort("internetdisconnected")


@pytest.fixture(scope="module")
def lite_results():
    """Run every chapter in the lab (two at a time); ``{chapter: _Run}``, and the URLs that
    tried to leave the machine."""
    from _browser import chromium

    if not (SITE / "lite" / "jupyter-lite.json").is_file():
        pytest.fail(f"no in-browser lab in {SITE}/lite: build the site first (make book)")

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".mjs": "text/javascript",
                          ".js": "text/javascript", ".json": "application/json"}

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Handler, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_port}"
    outside, results, todo = [], {}, list(CHAPTERS)
    try:
        # no host but the loopback resolves, whatever makes the request (page, worker,
        # service worker); the route above also records and aborts other origins
        with chromium(["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]) as browser:
            running = []
            while todo or running:
                while todo and len(running) < 2:
                    running.append(_Run(browser, base, todo.pop(0), outside))
                time.sleep(1.0)
                for run in list(running):
                    if run.poll():
                        running.remove(run)
                        run.close()
                        results[run.chapter] = run
                        print(f"lite {run.chapter}: kernel start {run.kernel_s or 0:.1f} s, "
                              f"run all {run.run_s or 0:.1f} s, widget: {run.widget}; "
                              f"{'errors: ' + '; '.join(run.errors) if run.errors else 'ok'}",
                              flush=True)
    finally:
        httpd.shutdown()
    return results, outside


@pytest.mark.browser
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_in_the_browser(lite_results, chapter):
    results, _ = lite_results
    run = results[chapter]
    print(f"{chapter}: kernel start {run.kernel_s or 0:.1f} s, run all {run.run_s or 0:.1f} s, "
          f"widget: {run.widget}")
    assert not run.errors, "\n".join(run.errors)
    source = (ROOT / "book" / f"{chapter}.md").read_text(encoding="utf-8")
    if re.search(r"^[^#\n]*explore\(", source, re.M):
        assert "output changed" in run.widget, run.widget


@pytest.mark.browser
def test_no_request_leaves_the_machine(lite_results):
    _, outside = lite_results
    assert not outside, f"requests to other hosts: {sorted(set(outside))[:10]}"
