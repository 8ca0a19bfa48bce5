"""Browser test of the built website (``make book`` first; ``make site-test`` runs it).

Playwright drives Debian's Chromium (``/usr/bin/chromium``, headless) against the
site in ``_build/html`` served on 127.0.0.1. For every page of ``_toc.yml``: it loads,
no request fails, images load, math is typeset by MathJax, a widget is drawn where
the chapter has one, and a solution dropdown opens. The executed notebooks offered
for download must be served too, and every notebook page links its own.

Widgets (issue 13, ``kernelclf.book.widgets``): on every page with one, each control of
each widget is moved to another value and the figure it shows must change (the
image bytes differ), with no failed request, once normally and once with every
request that does not go to 127.0.0.1 aborted. No widget may be a plain
``ipywidgets.interactive`` (dead on a static page). Every page stays under a weight
limit.

``KERNELCLF_SITE=/path/to/html`` points the test at another build, e.g. the folder
``make check-chapter CH=02_kernels`` prints; the pages of ``_toc.yml`` missing from
such a partial build are skipped.

Issue 25: a widget's output shows its figure once (the widget; the static copy only where
no widget manager runs), and at 1280 px no table or display equation is wider than its column.

Issue 15: any script error on a page (Playwright's ``pageerror``) fails the test, as a
failed request does; no figure may be shown at less than 60 % of the width it was drawn
at (its text would be too small to read); a wide table scrolls inside its own box
instead of being cut off at the column edge; the downloadable notebooks are the reader
notebooks of ``kernelclf.book.reader`` (no raw MyST).

Issue 36 (read from the built HTML, no browser needed): no page shows a Markdown table as raw
text (a ``<p>`` holding ``|---|``: a ``display(Markdown(...))`` table that was not parsed as
MyST, see ``nb_render_markdown_format`` in ``_config.yml``), and no page shows a cell's stderr
(myst-nb's ``output stderr`` block: a warning the reader cannot act on) unless the cell is
tagged ``stderr-ok`` (:data:`STDERR_OK_TAG`), which says that the text next to it discusses
that output. Otherwise silence the warning where it is raised, or tag the cell
``remove-stderr`` (myst-nb drops its stderr) if the output is irrelevant.
"""
import os
import re
from pathlib import Path

import pytest
import yaml
from _browser import _move, _shown, block_foreign, chromium, serve

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("KERNELCLF_SITE") or ROOT / "_build" / "html")
PARTIAL = bool(os.environ.get("KERNELCLF_SITE"))
#: the page's HTML (with its embedded widget state) plus its own images
PAGE_LIMIT = 3_000_000
#: the embedded widget state of one page
WIDGET_STATE_LIMIT = 2_000_000
#: a figure shown at less than this fraction of its natural width has illegible text
MIN_FIGURE_SCALE = 0.6
#: the cell tag that allows a cell's stderr on the page (the text discusses it)
STDERR_OK_TAG = "stderr-ok"


def toc_pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [c["file"] for c in part.get("chapters", [])]
    pages += [c["file"] for c in toc.get("chapters", [])]
    return pages


PAGES = toc_pages()
if PARTIAL:
    PAGES = [p for p in PAGES if (HTML / (p + ".html")).is_file()] or PAGES


def source_of(entry):
    return (ROOT / (entry + ".md")).read_text(encoding="utf-8")


def has_widget(source):
    return "ipywidgets" in source or "explore(" in source


WIDGET_PAGES = [p for p in PAGES if has_widget(source_of(p))]


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").is_file():
        pytest.fail("the book is not built: run `make book` before the browser test")
    with serve(HTML) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def open_page(browser, url, offline=False):
    """Open ``url``; return the page, the response and a list that collects every failed
    request and every script error (``pageerror``) of the page."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    failed = []
    page.on("pageerror", lambda e: failed.append(f"page error: {e}"))
    if offline:
        block_foreign(page, "/".join(url.split("/", 3)[:3]), [])
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: failed.append(f"{r.url} (HTTP {r.status})")
            if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
    response = page.goto(url, wait_until="networkidle", timeout=60_000)
    return page, response, failed


def _check_page(page, response, failed, entry):
    """The page loads whole: title, math, images, widgets, run links, a folding solution,
    no failed request or script error. Leaves the page as it found it (the solution it
    opened is folded again) for the checks that follow on the same load."""
    source = source_of(entry)
    assert response is not None and response.status == 200
    assert page.locator("main h1").count() >= 1, "page has no title"
    if re.search(r"\$[^$\n]+\$", source):
        page.wait_for_selector("mjx-container", state="attached", timeout=30_000)
        assert page.locator("mjx-container").count() > 0, "math is not typeset"
    broken = page.evaluate("() => Array.from(document.images)"
                           ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    assert not broken, f"images did not load: {broken}"
    if has_widget(source):
        page.wait_for_selector(".jupyter-widgets, .widget-slider", state="attached", timeout=30_000)
        assert page.locator(".jupyter-widgets").count() > 0, "no widget was drawn"
    if "kernelspec:" in source[:400]:
        note = page.locator(".kernelclf-run-note a[href$='.ipynb']:not(.kernelclf-lite-link)")
        assert note.count() == 1, "no link to the executed notebook under the title"
        href = note.get_attribute("href")
        assert href.endswith(f"_notebooks/{Path(entry).name}.ipynb"), href
        assert page.request.get(note.evaluate("a => a.href")).status == 200, href
        lite = page.locator(".kernelclf-run-note a.kernelclf-lite-link")
        assert lite.count() == 1, "no 'Run it in your browser' link under the title"
        assert lite.get_attribute("href").endswith(
            f"lite/notebooks/index.html?path={Path(entry).name}.ipynb")
        assert page.request.get(lite.evaluate("a => a.href")).status == 200
        lite_file = lite.evaluate("a => new URL('../files/' + new URL(a.href)"
                                  ".searchParams.get('path'), a.href).href")
        assert page.request.get(lite_file).status == 200, lite_file
    if "solution-start" in source:
        solution = page.locator("div.solution.dropdown").first
        assert solution.count() == 1, "no folded solution on the page"
        body = solution.locator(".solution-content, section").first
        assert not body.is_visible(), "the solution is not folded"
        solution.locator(".admonition-title").first.click()
        page.wait_for_timeout(300)
        assert body.is_visible(), "clicking the solution title did not open it"
        solution.locator(".admonition-title").first.click()     # folded again
        page.wait_for_timeout(300)
    page.wait_for_timeout(500)  # late script errors (widget manager, MathJax)
    assert not failed, f"failed requests or page errors: {failed}"


#: the per-page checks, in the order they run on one load of the page
_CHECKS = ("page", "tables", "figures")


@pytest.fixture(scope="module")
def visits():
    """``{entry: {check: None or the exception it raised}}``: each page is loaded once and
    every per-page check runs on that load (one page load instead of three: issue 29)."""
    return {}


def visit(server, browser, visits, entry):
    """Load ``entry`` once, run :data:`_CHECKS` on it in order and record their outcomes."""
    if entry not in visits:
        outcome = {}
        page, response, failed = open_page(browser, f"{server}/{entry}.html")
        try:
            for name, check in (("page", lambda: _check_page(page, response, failed, entry)),
                                ("tables", lambda: _check_tables(page, entry)),
                                ("figures", lambda: _check_figures(page))):
                try:
                    check()
                    outcome[name] = None
                except Exception as exc:  # noqa: BLE001 - re-raised by the test of that check
                    outcome[name] = exc
        finally:
            page.close()
        visits[entry] = outcome
    return visits[entry]


def _outcome(server, browser, visits, entry, check):
    exc = visit(server, browser, visits, entry)[check]
    if exc is not None:
        raise exc


@pytest.mark.parametrize("entry", PAGES)
def test_page(server, browser, visits, entry):
    """Every page loads whole (:func:`_check_page`)."""
    _outcome(server, browser, visits, entry, "page")


NOTEBOOK_PAGES = [p for p in PAGES if "kernelspec:" in (ROOT / (p + ".md")).read_text()]


@pytest.mark.parametrize("entry", NOTEBOOK_PAGES)
def test_notebook_download(server, entry):
    """Every chapter's notebook is served: executed (with outputs) and a reader notebook
    (no raw MyST in its Markdown, solutions folded)."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server}/_notebooks/{Path(entry).name}.ipynb", timeout=30) as r:
        nb = json.loads(r.read())
    assert any(c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    markdown = re.sub(r"^(```|~~~)(?![^\n]*\{).*?^\1", "", markdown, flags=re.S | re.M)
    for raw in (r"^\s*`{3,}\s*\{[\w:.-]+\}", r"\{[\w:.-]+\}`", r"^\s*\([^()\s]+\)=\s*$",
                r"^:(class|label):"):
        found = re.search(raw, markdown, re.M)
        assert found is None, f"raw MyST in the notebook: {markdown[found.start():found.end() + 40]!r}"
    if "solution-start" in source_of(entry):
        assert "<details><summary><b>Solution to Exercise" in markdown


_FIGURE_SCALES_JS = """() => Array.from(document.querySelectorAll('main img')).map(i => {
  const r = i.getBoundingClientRect();
  return {src: i.currentSrc || i.src, natural: i.naturalWidth, shown: r.width};
}).filter(x => x.shown > 0 && x.natural >= 100)"""


_FIGURE_TEXT_JS = """() => Array.from(document.querySelectorAll('main .cell_output img'))
  .filter(i => !i.closest('.jupyter-widgets'))
  .map(i => {
    const fig = i.closest('figure');
    const out = i.closest('.cell_output');
    return {src: (i.currentSrc || i.src).split('/').pop().slice(0, 40),
            alt: (i.getAttribute('alt') || '').trim(),
            caption: !!(fig && fig.querySelector('figcaption') &&
                        fig.querySelector('figcaption').textContent.trim()),
            widget: !!out.querySelector('.jupyter-widgets, script[type*="widget-view"]')};
  })"""


def _check_figures(page):
    """No figure is shrunk below 60 % of its natural width (its text would be illegible);
    every figure is described (alt text) and, outside widgets, captioned."""
    titles = page.locator("div.dropdown > .admonition-title")  # figures in solutions too
    for k in range(titles.count()):
        titles.nth(k).click()
    page.wait_for_timeout(300)
    small = [f"{Path(x['src']).name[:40]}: {x['natural']} px shown at {x['shown']:.0f} px"
             for x in page.evaluate(_FIGURE_SCALES_JS)
             if x["shown"] < MIN_FIGURE_SCALE * x["natural"]]
    assert not small, "figures shown too small to read:\n" + "\n".join(small)
    # every figure has alt text, and a caption unless it is the static view beside a
    # widget (issue 15)
    figures = page.evaluate(_FIGURE_TEXT_JS)
    no_alt = [f["src"] for f in figures if not f["alt"] or f["alt"].startswith("_")]
    no_caption = [f["src"] for f in figures if not f["caption"] and not f["widget"]]
    assert not no_alt, f"figures without alt text: {no_alt}"
    assert not no_caption, f"figures without a caption: {no_caption}"


@pytest.mark.parametrize("entry", PAGES)
def test_figures_legible(server, browser, visits, entry):
    """Figures legible, described and captioned (:func:`_check_figures`)."""
    _outcome(server, browser, visits, entry, "figures")


_TABLES_JS = """() => {
  const article = document.querySelector('main .bd-article') || document.querySelector('main');
  const right = article.getBoundingClientRect().right + 1;
  const bad = [];
  for (const t of article.querySelectorAll('table')) {
    if (t.getBoundingClientRect().width === 0) continue;
    let box = t, scrolls = false;
    while (box && box !== article) {
      const o = getComputedStyle(box).overflowX;
      if ((o === 'auto' || o === 'scroll') && box.getBoundingClientRect().right <= right) {
        scrolls = true; break;
      }
      box = box.parentElement;
    }
    const fits = t.getBoundingClientRect().right <= right;
    if (!fits && !scrolls) bad.push(t.innerText.slice(0, 60));
  }
  return bad;
}"""


#: tables and display equations wider than the text column (issue 25): a reader at 1280 px
#: must see a whole table or equation without scrolling sideways
_TOO_WIDE_JS = """() => {
  const article = document.querySelector('main .bd-article') || document.querySelector('main');
  const column = article.getBoundingClientRect().width + 1;
  const bad = [];
  for (const t of article.querySelectorAll('table')) {
    const w = Math.max(t.scrollWidth, t.getBoundingClientRect().width);
    if (t.getBoundingClientRect().width > 0 && w > column)
      bad.push(`table ${Math.round(w)} px: ${t.innerText.slice(0, 50)}`);
  }
  for (const m of article.querySelectorAll('mjx-container[display="true"]')) {
    const inner = m.firstElementChild || m;
    const w = Math.max(inner.getBoundingClientRect().width, m.scrollWidth);
    const text = m.getAttribute('aria-label') || m.textContent;
    if (m.getBoundingClientRect().width > 0 && w > column)
      bad.push(`equation ${Math.round(w)} px: ${text.slice(0, 50)}`);
  }
  return {column: Math.round(column), bad};
}"""


def _check_tables(page, entry):
    """A table wider than the column scrolls inside its own box, never past the column; and
    at 1280 px no table or display equation is wider than the column at all (issue 25)."""
    bad = page.evaluate(_TABLES_JS)
    assert not bad, f"tables cut off at the column edge: {bad}"
    if page.locator("mjx-container").count() or re.search(r"\$\$|\{math\}", source_of(entry)):
        page.wait_for_selector("mjx-container", state="attached", timeout=30_000)
        page.wait_for_timeout(300)
    wide = page.evaluate(_TOO_WIDE_JS)
    assert not wide["bad"], (f"wider than the {wide['column']} px column at 1280 px:\n"
                             + "\n".join(wide["bad"]))
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('main .bd-article table'))
        .filter(t => t.scrollWidth > t.clientWidth + 1)
        .map(t => getComputedStyle(t).overflowX)""")
    assert all(o in ("auto", "scroll") for o in wide), wide


@pytest.mark.parametrize("entry", PAGES)
def test_wide_tables_scroll_in_their_box(server, browser, visits, entry):
    """Tables and display equations fit the column (:func:`_check_tables`)."""
    _outcome(server, browser, visits, entry, "tables")


def test_download_links_resolve(server, browser):
    """The links offered on the first page point at notebooks that exist."""
    page, response, failed = open_page(browser, f"{server}/{PAGES[0]}.html")
    try:
        links = page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href$=\\'.ipynb\\']')).map(a => a.href)")
        if PARTIAL:  # a one-chapter build has only its own notebooks
            built = {Path(p).name for p in NOTEBOOK_PAGES}
            links = [u for u in links if Path(u).stem in built]
        assert len(links) >= len(NOTEBOOK_PAGES) - 1
        for url in links:
            assert page.request.get(url).status == 200, url
    finally:
        page.close()


# ------------------------------------------------------------------ widgets (issue 13)

@pytest.mark.parametrize("offline", [False, True], ids=["online", "offline"])
@pytest.mark.parametrize("entry", WIDGET_PAGES)
def test_widgets_respond_without_a_kernel(server, browser, entry, offline):
    page, response, failed = open_page(browser, f"{server}/{entry}.html", offline=offline)
    try:
        assert response is not None and response.status == 200
        page.wait_for_selector(".kernelclf-explorer", state="attached", timeout=30_000)
        page.wait_for_timeout(500)
        assert page.locator(".widget-interact").count() == 0, (
            "an ipywidgets.interactive is on the page: it cannot compute without a kernel")
        assert page.locator(".kernelclf-explorer-live").count() == 0, "a live widget was embedded"
        explorers = page.locator(".kernelclf-explorer")
        assert explorers.count() >= 1
        # issue 25: the figure appears once: an output holding a widget shows no other image
        # (the static copy stays in the notebook for front ends without a widget manager)
        twice = page.evaluate("""() => Array.from(document.querySelectorAll('main .cell_output'))
            .filter(o => o.querySelector('.jupyter-widgets'))
            .map(o => Array.from(o.querySelectorAll('img'))
                 .filter(i => !i.closest('.jupyter-widgets') && i.getBoundingClientRect().width > 0)
                 .map(i => (i.currentSrc || i.src).split('/').pop().slice(0, 40)))
            .filter(extra => extra.length)""")
        assert not twice, f"a widget's output also shows a static figure: {twice}"
        for i in range(explorers.count()):
            ex = explorers.nth(i)
            ex.scroll_into_view_if_needed()
            assert "Precomputed" in ex.locator(".kernelclf-widget-note").inner_text()
            controls = ex.locator(":scope > :first-child > *")
            assert controls.count() >= 1, f"widget {i} has no controls"
            for j in range(controls.count()):
                before = _shown(ex)
                action = _move(page, controls.nth(j))
                after = before
                for _ in range(50):
                    page.wait_for_timeout(100)
                    after = _shown(ex)
                    if after != before:
                        break
                assert after != before, (
                    f"widget {i}, control {j} ({action}): the displayed output did not change")
                assert "img:" in after or len(after) > 10, "the widget shows nothing"
        assert not failed, f"failed requests or page errors: {failed}"
    finally:
        page.close()


@pytest.mark.parametrize("entry", PAGES)
def test_page_weight(entry):
    """The page (with its embedded widget state) and its own images stay light."""
    html_path = HTML / (entry + ".html")
    text = html_path.read_text(encoding="utf-8")
    total = html_path.stat().st_size
    for src in set(re.findall(r'src="((?:\.\./)*_images/[^"]+)"', text)):
        total += (html_path.parent / src).resolve().stat().st_size
    state = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>',
                      text, re.S)
    state_size = len(state.group(1)) if state else 0
    print(f"{entry}: page {total / 1e6:.2f} MB, widget state {state_size / 1e6:.2f} MB")
    assert state_size < WIDGET_STATE_LIMIT, f"widget state {state_size} bytes"
    assert total < PAGE_LIMIT, f"page weight {total} bytes"


# ------------------------------------------------------------------ API reference (issue 24)

#: the families whose ``__all__`` the API reference covers, beside ``kernelclf.__all__``
API_FAMILIES = ["kernelclf.kernels", "kernelclf.margin", "kernelclf.bayes", "kernelclf.bayespoint",
                "kernelclf.bounds", "kernelclf.multiclass", "kernelclf.neighbors",
                "kernelclf.datasets", "kernelclf.experiments", "kernelclf.base", "kernelclf.optim",
                "kernelclf.progress", "kernelclf.discovery"]
API_PAGES = [p for p in PAGES if Path(p).name.startswith("api_")]


def _api_entry(owner, name):
    """``(exact id or None, prefix)``: the element id the API pages must have for ``name`` of
    ``owner.__all__``. A class or function of a public module is documented under that
    module (``kernelclf.margin.svm.SupportVectorMachine``), a module by its module target;
    data and objects of private modules under their family or one of its modules."""
    import importlib
    import inspect

    mod = importlib.import_module(owner)
    obj = getattr(mod, name) if hasattr(mod, name) else importlib.import_module(f"{owner}.{name}")
    if inspect.ismodule(obj):
        return f"module-{obj.__name__}", None
    home = getattr(obj, "__module__", None) if (inspect.isclass(obj) or inspect.isfunction(obj)) \
        else None
    if home and not any(part.startswith("_") for part in home.split(".")):
        return f"{home}.{obj.__qualname__}", None
    return None, owner


def test_api_reference_covers_every_public_name():
    """Every name of ``kernelclf.__all__`` and of each family's ``__all__`` has an entry (an
    element id) in the built API pages, and each family has its own section."""
    import importlib

    if not API_PAGES or not all((HTML / (p + ".html")).is_file() for p in API_PAGES):
        if PARTIAL:
            pytest.skip("this build has no API pages")
        pytest.fail(f"API pages missing from the build: {API_PAGES}")
    ids = set()
    for page in API_PAGES:
        ids |= set(re.findall(r'\bid="([^"]+)"', (HTML / (page + ".html")).read_text(encoding="utf-8")))
    missing, checked = [], 0
    for owner in ["kernelclf"] + API_FAMILIES:
        assert f"module-{owner}" in ids, f"no section for {owner} in the API pages"
        for name in importlib.import_module(owner).__all__:
            exact, prefix = _api_entry(owner, name)
            checked += 1
            if exact is not None:
                found = exact in ids
            else:
                root = "kernelclf" if owner == "kernelclf" else prefix
                found = any(i.endswith("." + name) and (i.startswith(root + ".")) for i in ids)
            if not found:
                missing.append(f"{owner}.{name} (expected {exact or f'{prefix}[.module].{name}'})")
    print(f"{checked} public names, all in the API pages" if not missing else "")
    assert not missing, "public names without an API entry:\n" + "\n".join(missing)


# ------------------------------------------------------------------ raw tables and stderr (issue 36)

def _soup(entry):
    from bs4 import BeautifulSoup

    path = HTML / (entry + ".html")
    if not path.is_file():
        pytest.fail(f"{path} is not built: run `make book` before the site test")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


#: a Markdown table's delimiter row, as it reads when the table was not parsed (Sphinx's
#: smartquotes turn ``---`` into an em dash: ``|—|—|``)
RAW_TABLE = re.compile(r"\|\s*:?(?:-{3,}|[\u2013\u2014][-\u2013\u2014]*):?\s*\|")


def raw_tables(soup):
    """The text of every paragraph that holds a Markdown table's delimiter row."""
    return [" ".join(p.get_text().split())[:160] for p in soup.find_all("p")
            if RAW_TABLE.search(p.get_text())]


def shown_stderr(soup):
    """``(cell's first code line, stderr text)`` of every stderr output shown on the page
    outside a cell tagged :data:`STDERR_OK_TAG`."""
    out = []
    for block in soup.select("div.output.stderr"):
        cell = block.find_parent("div", class_="cell")
        classes = cell.get("class", []) if cell is not None else []
        if f"tag_{STDERR_OK_TAG}" in classes:
            continue
        code = cell.select_one("div.cell_input pre") if cell is not None else None
        lines = code.get_text().strip().splitlines() if code is not None else []
        first = lines[0] if lines else "?"
        out.append((first, block.get_text().strip()[:200]))
    return out


@pytest.mark.parametrize("entry", PAGES)
def test_no_raw_table_text(entry):
    """A Markdown table (a chapter's ``display(Markdown(...))``) is rendered as a table."""
    found = raw_tables(_soup(entry))
    assert not found, f"{entry}: Markdown tables shown as raw text: {found}"


@pytest.mark.parametrize("entry", PAGES)
def test_no_stderr_shown(entry):
    """No cell shows its stderr (warnings) unless tagged ``stderr-ok``."""
    found = shown_stderr(_soup(entry))
    assert not found, f"{entry}: stderr shown (tag the cell {STDERR_OK_TAG!r} only if the text " \
        f"discusses it): {found}"


def test_raw_table_and_stderr_detectors():
    """The two detectors find what they look for (and not a tagged cell's stderr)."""
    from bs4 import BeautifulSoup

    page = BeautifulSoup(
        '<p>| a | b | |---|---| | 1 | 2 |</p><p>x | y</p><table><tr><td>|---|</td></tr></table>'
        '<div class="cell docutils container"><div class="cell_input"><pre>warn()\nmore</pre></div>'
        '<div class="cell_output"><div class="output stderr"><pre>UserWarning: x</pre></div></div></div>'
        '<div class="cell tag_stderr-ok docutils container"><div class="cell_input"><pre>ok()</pre></div>'
        '<div class="cell_output"><div class="output stderr"><pre>discussed</pre></div></div></div>'
        '<p>| --- | --- |</p><p>| a |\n|\u2014|\u2014|</p><p>a \u2014 b | c</p>', "html.parser")
    assert raw_tables(page) == ["| a | b | |---|---| | 1 | 2 |", "| --- | --- |", "| a | |\u2014|\u2014|"]
    assert shown_stderr(page) == [("warn()", "UserWarning: x")]
