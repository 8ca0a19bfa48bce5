"""Browser test of the built website (``make book`` first; ``make site-test`` runs it).

Playwright drives Debian's Chromium (``/usr/bin/chromium``, headless) against the
site in ``_build/html`` served on 127.0.0.1. For every page of ``_toc.yml``: it loads,
no request fails, images load, math is typeset by MathJax, a widget is drawn where
the chapter has one, and a solution dropdown opens. The executed notebooks offered
for download must be served too.
"""
import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
CHROMIUM = os.environ.get("KERNELCLF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def toc_pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [c["file"] for c in part.get("chapters", [])]
    pages += [c["file"] for c in toc.get("chapters", [])]
    return pages


PAGES = toc_pages()


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").is_file():
        pytest.fail("the book is not built: run `make book` before the browser test")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def open_page(browser, url):
    page = browser.new_page()
    failed = []
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: failed.append(f"{r.url} (HTTP {r.status})")
            if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
    response = page.goto(url, wait_until="networkidle", timeout=60_000)
    return page, response, failed


@pytest.mark.parametrize("entry", PAGES)
def test_page(server, browser, entry):
    source = (ROOT / (entry + ".md")).read_text(encoding="utf-8")
    page, response, failed = open_page(browser, f"{server}/{entry}.html")
    try:
        assert response is not None and response.status == 200
        assert page.locator("main h1").count() >= 1, "page has no title"
        if re.search(r"\$[^$\n]+\$", source):
            page.wait_for_selector("mjx-container", state="attached", timeout=30_000)
            assert page.locator("mjx-container").count() > 0, "math is not typeset"
        broken = page.evaluate(
            "() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        assert not broken, f"images did not load: {broken}"
        if "ipywidgets" in source:
            page.wait_for_selector(".jupyter-widgets, .widget-slider", state="attached", timeout=30_000)
            assert page.locator(".jupyter-widgets").count() > 0, "no widget was drawn"
        if "solution-start" in source:
            solution = page.locator("div.solution.dropdown").first
            assert solution.count() == 1, "no folded solution on the page"
            body = solution.locator(".solution-content, section").first
            assert not body.is_visible(), "the solution is not folded"
            solution.locator(".admonition-title").first.click()
            page.wait_for_timeout(300)
            assert body.is_visible(), "clicking the solution title did not open it"
        assert not failed, f"failed requests: {failed}"
    finally:
        page.close()


NOTEBOOK_PAGES = [p for p in PAGES if "kernelspec:" in (ROOT / (p + ".md")).read_text()]


@pytest.mark.parametrize("entry", NOTEBOOK_PAGES)
def test_notebook_download(server, entry):
    """Every chapter's executed notebook is served, with its outputs."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server}/_notebooks/{Path(entry).name}.ipynb", timeout=30) as r:
        nb = json.loads(r.read())
    assert any(c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")


def test_download_links_resolve(server, browser):
    """The links offered on the first page point at notebooks that exist."""
    page, response, failed = open_page(browser, f"{server}/{PAGES[0]}.html")
    try:
        links = page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href$=\\'.ipynb\\']')).map(a => a.href)")
        assert len(links) >= len(NOTEBOOK_PAGES) - 1
        for url in links:
            assert page.request.get(url).status == 200, url
    finally:
        page.close()
