"""Headless Debian Chromium for the browser tests (``tests/test_site.py``, ``tests/test_lab.py``).

``KERNELCLF_CHROMIUM`` overrides the executable; ``.ci/ensure_chromium.py`` installs it.
"""
import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("KERNELCLF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"



class LabHandler(http.server.SimpleHTTPRequestHandler):
    """A quiet static server of the built site with the in-browser lab's types (WebAssembly,
    ES modules), for :func:`serve`."""
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript", ".json": "application/json"}

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve ``directory`` on 127.0.0.1 (a free port, :class:`LabHandler`, a thread of this
    process) for the duration: yields the origin ``http://127.0.0.1:<port>``."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(LabHandler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()


def block_foreign(context, base, outside):
    """Abort and record in ``outside`` every request of ``context`` (a browser context or a
    page) that is not for the origin ``base`` (``http://host:port``; a trailing slash is
    ignored), nor a ``data:`` or ``blob:`` URL.

    The route's pattern is a regular expression that matches only such requests, so
    Playwright's driver hands this process only those and lets every request for ``base``
    continue on its own. A route that matches every request (``"**/*"``) holds each one
    until this process next talks to Playwright, because the sync API runs route handlers
    only inside its own calls:
    with the lab test's poll every second, each request of the page's chain of scripts waited
    up to a second, and the first kernel took 16.7-21.7 s to start instead of 10-12 s
    (2026-11-30, two lanes, idle machine).
    """
    def abort(route):
        outside.append(route.request.url)
        route.abort("internetdisconnected")

    origin = re.escape(base.rstrip("/"))
    context.route(re.compile(rf"^(?!{origin}/|data:|blob:)"), abort)


@contextlib.contextmanager
def chromium(args=()):
    """A Playwright browser on the system Chromium, closed on exit."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", *args])
        try:
            yield b
        finally:
            b.close()


# a fingerprint of what the display area of an explorer shows: the bytes of its images
# (read back from their blob URLs) and its text
_SHOWN_JS = """async (ex) => {
  const area = ex.children[1];
  const parts = [];
  for (const img of area.querySelectorAll('img')) {
    if (!img.src) continue;
    const buf = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let h = 2166136261;
    for (const b of buf) { h = Math.imul(h ^ b, 16777619) >>> 0; }
    parts.push(`img:${buf.length}:${h}`);
  }
  parts.push('text:' + area.innerText);
  return parts.join('|');
}"""


def _shown(explorer):
    return explorer.evaluate(_SHOWN_JS)


def _move(page, control):
    """Move one control (slider, drop-down or toggle buttons) to another value; return a
    label of what was done."""
    handle = control.locator(".noUi-handle")
    if handle.count():
        now = float(handle.get_attribute("aria-valuenow"))
        top = float(handle.get_attribute("aria-valuemax"))
        handle.focus()
        key = "ArrowRight" if now < top else "ArrowLeft"
        page.keyboard.press(key)
        return f"slider {key}"
    select = control.locator("select")
    if select.count():
        n = select.locator("option").count()
        current = select.evaluate("s => s.selectedIndex")
        select.select_option(index=(current + 1) % n)
        return f"dropdown -> option {(current + 1) % n}"
    buttons = control.locator("button:not(.mod-active)")
    if buttons.count():
        buttons.first.click()
        return "toggle"
    raise AssertionError("a control of unknown kind: " + control.inner_html()[:200])
