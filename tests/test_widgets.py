"""Tests of kernelclf.book.widgets: precomputed (static) and live widgets agree, errors are clear.

The browser side (the links really switch the stored figures in a static page) is
tested in tests/test_site.py; here we check the Python side and the widget state a
notebook executor stores, which is what the website embeds.
"""
import base64
import io
import json
import math

import matplotlib

matplotlib.use("Agg")
import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from kernelclf.book import sphinx_ext as sx  # noqa: E402
from kernelclf.book import widgets as kw  # noqa: E402
from kernelclf.book.widgets import Dropdown, Slider, Toggle, explore, render  # noqa: E402

CALLS = []


def draw(sigma=1.0, kernel="rbf", normalise=False):
    CALLS.append((sigma, kernel, normalise))
    x = np.linspace(-3, 3, 200)
    y = np.exp(-x ** 2 / (2 * sigma ** 2)) if kernel == "rbf" else (1 + sigma * x) ** 2
    if normalise:
        y = y / y.max()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(x, y)
    ax.set_xlabel("x")
    ax.set_ylabel("k(x, 0)")
    ax.set_title(f"{kernel} {sigma:g} {normalise}")
    return fig


def controls():
    return (Slider("sigma", [0.3, 1.0, 3.0], value=1.0, description="σ", live=(0.1, 3.0, 0.1)),
            Dropdown("kernel", ["rbf", "poly"]), Toggle("normalise"))


def pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)


def grid(specs):
    import itertools
    names = [s.name for s in specs]
    return [dict(zip(names, combo)) for combo in itertools.product(*(s.values for s in specs))]


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv(kw.ENV_VAR, raising=False)
    CALLS.clear()
    yield
    plt.close("all")


def test_static_grid_holds_every_state_and_matches_a_direct_drawing():
    specs = controls()
    e = explore(draw, *specs, mode="static", dpi=50)
    assert e.mode == "static"
    points = grid(specs)
    assert len(e.states) == len(points) == 3 * 2 * 2
    # one draw per grid point (the static figure reuses the default point's figure)
    assert sorted(CALLS) == sorted(tuple(v.values()) for v in points)
    assert not plt.get_fignums(), "explore must close the figures it draws"
    for values in points:
        img = e.state_widget(**values)
        assert isinstance(img, W.Image)
        # independent reference: the same figure saved by matplotlib directly
        ref = io.BytesIO()
        draw(**values).savefig(ref, format="png", dpi=50, bbox_inches="tight")
        a, b = pixels(img.value), pixels(ref.getvalue())
        assert a.shape == b.shape
        # quantisation to 256 colours changes pixels only slightly
        assert np.abs(a - b).mean() < 2.0, values
    # distinct states really differ
    pngs = {e.state_widget(**v).value for v in points}
    assert len(pngs) == len(points)


def test_links_and_stacks_index_the_product_grid():
    specs = controls()
    e = explore(draw, *specs, mode="static", dpi=40)
    # level j has prod(n_1..n_{j-1}) stacks, each linked to control j
    sizes = [len(s.values) for s in specs]
    assert len(e._links) == sum(math.prod(sizes[:j]) for j in range(len(sizes)))
    for link in e._links:
        (src, strait), (dst, dtrait) = link.source, link.target
        assert strait == "index" and dtrait == "selected_index"
        assert isinstance(dst, W.Stack)
        assert src in e.controls.values()
    # walking the stacks by index reaches the state of those values
    for values in grid(specs):
        w = e.display_area
        for s in specs:
            w = w.children[s.values.index(values[s.name])]
        assert w.value == e.states[tuple(values.values())][0][1]
    # the defaults are selected
    assert e.display_area.selected_index == 1 and e.controls["sigma"].index == 1
    assert e.controls["normalise"].index == 0 and e.values == {
        "sigma": 1.0, "kernel": "rbf", "normalise": False}


def test_live_callback_runs_and_equals_the_precomputed_states():
    specs = controls()
    static = explore(draw, *specs, mode="static", dpi=50)
    live = explore(draw, *specs, mode="live", dpi=50)
    assert isinstance(live.controls["sigma"], W.FloatSlider)
    assert isinstance(live.controls["normalise"], W.ToggleButtons)
    # consecutive grid points differ in at least one control, so each one triggers a redraw
    # whose arguments are the new values
    for values in grid(specs):
        CALLS.clear()
        for name, v in values.items():
            live.controls[name].value = v
        assert CALLS and CALLS[-1] == (values["sigma"], values["kernel"], values["normalise"])
        assert type(CALLS[-1][2]) is bool
        assert live.values == values
        shown = live.display_area.children[0]
        assert shown.value == static.state_widget(**values).value, values
    # live mode also computes off the grid
    live.controls["sigma"].value = 0.5
    assert CALLS[-1][0] == 0.5
    assert live.current_parts[0][1] not in {p[0][1] for p in static.states.values()}


def test_draw_calling_plt_show_and_printing_is_captured():
    def old_style(n=1):
        print("n is", n)
        plt.plot(np.arange(n + 2))
        plt.xlabel("i")
        plt.show()

    parts = render(old_style, {"n": 2}, dpi=40)
    assert parts[0] == ("html", "<pre>n is 2\n</pre>")
    assert parts[1][0] == "png" and parts[1][1][:8] == b"\x89PNG\r\n\x1a\n"
    assert not plt.get_fignums()

    def shows_and_returns_a_number(a=1.0):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([0, a])
        plt.show()
        return 2 * a                      # e.g. a log evidence: not shown, ignored

    parts = render(shows_and_returns_a_number, {"a": 3.0}, dpi=40)
    assert [k for k, _ in parts] == ["png"]
    assert Image.open(io.BytesIO(parts[0][1])).size[0] < 2 * 40 + 10   # drawn at dpi=40

    def text(n=1):
        return f"value {n} <b>"
    e = explore(text, Slider("n", [1, 2, 3]), mode="static")
    assert e.state_widget(n=3).value == "<pre>value 3 &lt;b&gt;</pre>"


def test_note_says_precomputed_or_live():
    specs = controls()
    s = explore(draw, *specs, mode="static", dpi=30).note.value
    assert "Precomputed" in s and "12 figures" in s and "σ ∈ {0.3, 1, 3}" in s
    assert "kernel ∈ {rbf, poly}" in s and "normalise ∈ {off, on}" in s
    live = explore(draw, *specs, mode="live", dpi=30).note.value
    assert "Live" in live and "σ from 0.1 to 3" in live
    text = explore(lambda n: f"n={n}", Slider("n", [1, 2, 3]), mode="static").note.value
    assert "3 results for n ∈ {1, 2, 3}" in text


def test_display_is_one_output_with_the_static_figure_as_fallback():
    """Issue 25: the widget and its static figure are one output (one mime bundle), so a
    front end with a widget manager shows the widget only and any other the image."""
    from IPython.testing.globalipapp import get_ipython
    from IPython.utils.capture import capture_output

    get_ipython()
    e = explore(draw, *controls(), mode="static", dpi=30)
    with capture_output() as cap:
        e._ipython_display_()
    assert len(cap.outputs) == 1
    data = cap.outputs[0].data
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == e.model_id
    # the static figure is the default state at full resolution
    assert base64.b64decode(data["image/png"]) == e._default_static_png[0][1]
    static = Image.open(io.BytesIO(e._default_static_png[0][1]))
    small = Image.open(io.BytesIO(e.default_parts[0][1]))
    assert static.size[0] > small.size[0]
    e2 = explore(draw, *controls(), mode="static", dpi=30, static=False)
    with capture_output() as cap:
        e2._ipython_display_()
    assert len(cap.outputs) == 1 and "image/png" not in cap.outputs[0].data
    # several parts (a figure and some HTML): the fallback is HTML holding both
    from IPython.display import HTML

    e3 = explore(lambda n: [HTML(f"<b>n={n}</b>"), draw(1.0, "rbf", False)], Slider("n", [1, 2]),
                 mode="static", dpi=30)
    with capture_output() as cap:
        e3._ipython_display_()
    (out,) = cap.outputs
    assert "<b>n=" in out.data["text/html"] and "data:image/png;base64," in out.data["text/html"]


@pytest.mark.parametrize("make, message", [
    (lambda: explore(draw), "at least one control"),
    (lambda: explore(draw, Slider("sigma", [])), "empty"),
    (lambda: explore(draw, Slider("sigma", [1.0, 1.0])), "listed twice"),
    (lambda: explore(draw, Slider("sigma", [1.0, 2.0], value=1.5)), "not one of the precomputed"),
    (lambda: explore(draw, Slider("sigma", [0.1, 1.0]), Slider("sigma", [2.0])), "share a name"),
    (lambda: explore(lambda **kw: "x", Slider("sigma", list(np.linspace(0.1, 3, 10))),
                     Dropdown("kernel", ["rbf", "poly"]), Toggle("normalise"),
                     Slider("x", [1, 2, 3]), mode="static"), "120 states"),
    (lambda: explore(draw, Slider("width", [1.0, 2.0])), "cannot be called"),
    (lambda: explore(lambda sigma: None, Slider("sigma", [1.0, 2.0]), mode="static"),
     "showed nothing"),
    (lambda: explore(lambda sigma: 3, Slider("sigma", [1.0, 2.0]), mode="static"),
     "cannot show"),
    (lambda: explore(draw, Slider("sigma", [1.0, 2.0]), mode="sometimes"), "static' or 'live"),
    (lambda: Slider("two words", [1]), "identifier"),
    (lambda: Slider("sigma", [1.0, 2.0], live=(2.0, 1.0, 0.1)), "increasing"),
    (lambda: Dropdown("kernel", ["a", "b"], labels=["x"]), "labels"),
])
def test_bad_grids_give_clear_errors(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_max_states_can_be_raised():
    e = explore(lambda n, m: f"{n}{m}", Slider("n", list(range(10))), Slider("m", list(range(6))),
                mode="static", max_states=60)
    assert len(e.states) == 60 and e.state_widget(n=9, m=5).value == "<pre>95</pre>"


def test_mode_from_environment(monkeypatch):
    monkeypatch.setenv(kw.ENV_VAR, "live")
    assert kw.widget_mode() == "live" and kw.widget_mode("static") == "static"
    monkeypatch.setenv(kw.ENV_VAR, "precomputed")
    assert kw.widget_mode() == "static"
    monkeypatch.delenv(kw.ENV_VAR)
    assert kw.widget_mode() == "static"  # no interactive kernel in a test run


def test_executor_stores_a_self_contained_static_widget(tmp_path):
    """Run a notebook the way jupyter-book does (nbclient, no stdin): the widget is
    precomputed, and the stored widget state holds the stacks, the links and every image
    (the site embeds exactly this state)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    code = (
        "import matplotlib.pyplot as plt\n"
        "from kernelclf.book.widgets import explore, Slider, Toggle\n"
        "def f(a, flip):\n"
        "    fig, ax = plt.subplots(figsize=(2, 2))\n"
        "    ax.plot([0, 1], [0, -a if flip else a])\n"
        "    return fig\n"
        "e = explore(f, Slider('a', [1, 2, 3]), Toggle('flip'), dpi=30)\n"
        "print(e.mode)\n"
        "e\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outs = nb.cells[0].outputs
    assert outs[0]["text"].strip() == "static"
    assert len(outs) == 2                                       # one output for the widget
    assert "image/png" in outs[1]["data"]                       # its static fallback
    view = outs[1]["data"]["application/vnd.jupyter.widget-view+json"]
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert view["model_id"] in state
    names = [m["model_name"] for m in state.values()]
    assert names.count("StackModel") == 1 + 3 and names.count("LinkModel") == 1 + 3
    images = [m for m in state.values() if m["model_name"] == "ImageModel"]
    assert len(images) == 6 and all(m.get("buffers") for m in images)
    json.dumps(nb.metadata["widgets"])  # serialisable as stored in the page


def test_a_kernel_with_stdin_runs_live():
    """A person at JupyterLab has a stdin channel: the same code then runs live."""
    jupyter_client = pytest.importorskip("jupyter_client")
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        out = []
        kc.execute_interactive("from kernelclf.book.widgets import widget_mode; print(widget_mode())",
                               allow_stdin=True, timeout=60,
                               output_hook=lambda m: out.append(m["content"].get("text", "")))
        assert "".join(out).strip() == "live"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_sphinx_note_links_the_executed_notebook():
    class Env:
        def doc2path(self, name):
            return path

    class App:
        env = Env()

    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as fh:
        fh.write("---\nkernelspec:\n  name: python3\n---\n# T\nexplore(f, Slider('a', [1]))\n")
        path = fh.name
    context = {"body": '<section><h1>T<a href="#">#</a></h1><p>text</p></section>'}
    sx._add_run_note(App(), "book/07_gp", "page.html", context, doctree=object())
    body = context["body"]
    assert body.index("</h1>") < body.index("kernelclf-run-note") < body.index("<p>text")
    assert 'href="../_notebooks/07_gp.ipynb"' in body and "make lab" in body
    assert 'href="../lite/notebooks/index.html?path=07_gp.ipynb"' in body
    assert "recompute live" in body
    # pages that are not notebooks get no note
    with open(path, "w") as fh:
        fh.write("# References\n")
    context = {"body": "<h1>R</h1>"}
    sx._add_run_note(App(), "book/references", "page.html", context, doctree=object())
    assert context["body"] == "<h1>R</h1>"
