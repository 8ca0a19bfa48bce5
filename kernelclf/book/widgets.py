"""Interactive figures that work live in Jupyter and precomputed on the static website.

Book chapter 00 (``book/00_preface.md``); the widgets of every chapter use it. No source
formula: this is the book's tool for its figures, not an algorithm of LKC.

A chapter's figure is a function ``draw(**values)`` that returns a matplotlib
:class:`~matplotlib.figure.Figure` (or text, or an object with ``_repr_html_``).
:func:`explore` turns it plus a few controls into a widget that works in both places
where the book is read:

* **live** (a JupyterLab kernel, ``make lab``): an ordinary ipywidgets interaction; every
  change of a control calls ``draw`` again in the kernel;
* **precomputed** (the static website, built by executing the notebooks): ``draw`` runs
  once for every point of the product grid of the controls' values while the book is
  executed; each result is stored as a small PNG in an ``ipywidgets.Image``. The images
  sit in nested ``ipywidgets.Stack`` containers, one nesting level per control, and each
  control's ``index`` is tied to the ``selected_index`` of every stack of its level by
  ``ipywidgets.jslink``. The links run in the browser's widget manager, so moving a
  control flips to the stored figure with no kernel and no network.

Example::

    from kernelclf.book.widgets import explore, Slider, Dropdown, Toggle

    def draw(sigma, kernel, normalise):
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(grid, profile(sigma, kernel, normalise))
        ax.set(xlabel="x", ylabel="k(0, x)")
        return fig

    explore(draw,
            Slider("sigma", [0.1, 0.3, 1.0, 3.0], value=1.0, description="σ"),
            Dropdown("kernel", ["rbf", "poly"]),
            Toggle("normalise", value=False))

Displaying the result (last expression of a cell, or ``display(...)``) makes one output:
the widget (its controls, the figure, and a one-line note saying whether it is precomputed,
and for which values, or live), with the figure at the default values as an ordinary static
image in the same output, which only a front end without a widget manager shows (a notebook
viewer, print, readers without JavaScript); the website and JupyterLab show the widget alone.

Which mode is used: the ``mode`` argument, else the environment variable
``KERNELCLF_WIDGETS`` (``static``/``precomputed`` or ``live``), else *live* inside an
interactive Jupyter kernel and *precomputed* everywhere else: notebook executors such as
jupyter-book (nbclient) and nbval run cells without a stdin channel, which is how they are
told apart from a person at JupyterLab. Precomputed widgets also work in JupyterLab (the
links run in the front end); live widgets on a static page would be dead, which is the
problem this module exists to solve.

``draw`` must be deterministic (seed every random draw inside it): the precomputed image
of a grid point is then byte-for-byte the image the live widget shows for it, which
``tests/test_widgets.py`` checks.
"""
from __future__ import annotations

import base64
import html
import inspect
import io
import itertools
import math
import os
import sys
from numbers import Integral, Real

import ipywidgets as W

__all__ = ["explore", "Explorer", "Slider", "Dropdown", "Toggle", "render", "widget_mode",
           "ENV_VAR", "MAX_STATES"]

#: the environment variable that forces ``static`` (precomputed) or ``live`` widgets
ENV_VAR = "KERNELCLF_WIDGETS"
#: the largest product grid :func:`explore` precomputes unless ``max_states`` says otherwise
MAX_STATES = 48

_STATIC = {"static", "precomputed", "precompute", "embed", "0", "off"}
_LIVE = {"live", "kernel", "1", "on"}


def _fmt(v):
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, Integral):
        return str(int(v))
    if isinstance(v, Real):
        return f"{float(v):g}"
    return str(v)


class _Control:
    """A named control over a finite list of values (the precomputed grid)."""

    kind = "control"

    def __init__(self, name, values, value=None, description=None, labels=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a control name must be a Python identifier, got {name!r}")
        values = list(values)
        if not values:
            raise ValueError(f"control {name!r}: the list of values is empty")
        for i, a in enumerate(values):
            for b in values[:i]:
                if type(a) is type(b) and a == b:
                    raise ValueError(f"control {name!r}: the value {a!r} is listed twice")
        if value is None:
            value = values[len(values) // 2] if self.kind == "slider" else values[0]
        index = next((i for i, v in enumerate(values) if type(v) is type(value) and v == value),
                     None)
        if index is None:
            index = next((i for i, v in enumerate(values) if v == value), None)
        if index is None:
            raise ValueError(f"control {name!r}: the default value {value!r} is not one of the "
                             f"precomputed values {values!r}")
        if labels is None:
            labels = [_fmt(v) for v in values]
        labels = [str(s) for s in labels]
        if len(labels) != len(values):
            raise ValueError(f"control {name!r}: {len(labels)} labels for {len(values)} values")
        if len(set(labels)) != len(labels):
            raise ValueError(f"control {name!r}: the labels {labels!r} are not distinct")
        self.name = name
        self.values = values
        self.index = index
        self.value = values[index]
        self.description = name if description is None else description
        self.labels = labels

    def __repr__(self):
        return (f"{type(self).__name__}({self.name!r}, {self.values!r}, "
                f"value={self.value!r})")

    # one widget with an integer ``index`` trait (precomputed mode); a selection slider
    # unless a subclass has a better-suited control
    def index_widget(self):
        return W.SelectionSlider(options=list(zip(self.labels, range(len(self.values)))),
                                 value=self.index, description=self.description,
                                 continuous_update=True)

    # one widget with a ``value`` trait (live mode)
    def live_widget(self):
        return self.index_widget()

    def summary(self):
        return f"{self.description} ∈ {{{', '.join(self.labels)}}}"

    def live_summary(self):
        return self.summary()


class Slider(_Control):
    """A slider over a list of values.

    Parameters
    ----------
    name : str
        The keyword argument of ``draw`` that receives the value.
    values : sequence
        The grid precomputed for the static page, in slider order.
    value : optional
        The default (one of ``values``; the middle value if omitted).
    description : str, optional
        The label shown left of the slider (default: ``name``).
    labels : sequence of str, optional
        How the values are shown (default ``f"{v:g}"`` for numbers).
    live : tuple (min, max, step), optional
        In a live kernel, a continuous slider over this range instead of the grid
        (``FloatSlider``, or ``IntSlider`` when all three are integers).
    log : bool
        With ``live``: a logarithmic slider (``FloatLogSlider``; ``step`` is in decades).
    """

    kind = "slider"

    def __init__(self, name, values, value=None, description=None, labels=None, live=None,
                 log=False):
        super().__init__(name, values, value, description, labels)
        if live is not None:
            live = tuple(live)
            if len(live) != 3 or not all(isinstance(t, Real) for t in live):
                raise ValueError(f"control {name!r}: live must be (min, max, step), got {live!r}")
            lo, hi, step = live
            if not (lo < hi and step > 0) or (log and lo <= 0):
                raise ValueError(f"control {name!r}: live range {live!r} is not increasing "
                                 "with a positive step (and positive bounds if log)")
        self.live = live
        self.log = bool(log)

    def index_widget(self):
        return W.SelectionSlider(options=list(zip(self.labels, self.values)), index=self.index,
                                 description=self.description, continuous_update=True,
                                 style={"description_width": "initial"})

    def live_widget(self):
        if self.live is None:
            w = self.index_widget()
            w.continuous_update = False
            return w
        lo, hi, step = self.live
        common = dict(description=self.description, continuous_update=False,
                      style={"description_width": "initial"})
        if self.log:
            return W.FloatLogSlider(value=float(self.value), base=10, min=math.log10(lo),
                                    max=math.log10(hi), step=step, **common)
        if all(isinstance(t, Integral) for t in self.live) and isinstance(self.value, Integral):
            return W.IntSlider(value=int(self.value), min=lo, max=hi, step=step, **common)
        return W.FloatSlider(value=float(self.value), min=lo, max=hi, step=step, **common)

    def live_summary(self):
        if self.live is None:
            return super().summary()
        return f"{self.description} from {_fmt(self.live[0])} to {_fmt(self.live[1])}"


class Dropdown(_Control):
    """A drop-down list over ``values`` (the first value is the default unless ``value``)."""

    kind = "dropdown"

    def index_widget(self):
        return W.Dropdown(options=list(zip(self.labels, self.values)), index=self.index,
                          description=self.description, style={"description_width": "initial"})


class Toggle(_Control):
    """An on/off switch; ``draw`` receives ``False`` or ``True``.

    Drawn as a pair of toggle buttons (whose ``index`` can be linked in the browser;
    a check box's boolean value cannot index a stack).
    """

    kind = "toggle"

    def __init__(self, name, value=False, description=None, labels=("off", "on")):
        super().__init__(name, [False, True], bool(value), description, labels)

    def index_widget(self):
        return W.ToggleButtons(options=list(zip(self.labels, self.values)), index=self.index,
                               description=self.description,
                               style={"description_width": "initial", "button_width": "auto"})


# ---------------------------------------------------------------------------- rendering

def _png_of_figure(fig, dpi, colors):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight",
                metadata={"Software": None})
    return _shrink_png(buf.getvalue(), colors)


def _shrink_png(data, colors):
    """Quantise a PNG to a ``colors``-entry palette (deterministic; about 3x smaller)."""
    if not colors:
        return data
    from PIL import Image

    im = Image.open(io.BytesIO(data)).convert("RGB")
    im = im.quantize(colors=int(colors), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    im.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _parts_of(obj, targets):
    """Turn what ``draw`` returned into ("png", bytes) / ("html", str) parts, one list per
    ``(dpi, colors)`` target."""
    from matplotlib.figure import Figure

    if obj is None:
        return [[] for _ in targets]
    if isinstance(obj, (list, tuple)):
        out = [[] for _ in targets]
        for o in obj:
            for acc, parts in zip(out, _parts_of(o, targets)):
                acc.extend(parts)
        return out
    if isinstance(obj, Figure):
        return [[("png", _png_of_figure(obj, dpi, colors))] for dpi, colors in targets]
    if isinstance(obj, str):
        return [[("html", f"<pre>{html.escape(obj)}</pre>")] for _ in targets]
    png = None
    if isinstance(obj, (bytes, bytearray)) and bytes(obj[:8]) == b"\x89PNG\r\n\x1a\n":
        png = bytes(obj)
    elif hasattr(obj, "_repr_png_") and obj._repr_png_() is not None:
        png = obj._repr_png_()
    if png is not None:
        return [[("png", _shrink_png(png, colors))] for _, colors in targets]
    if hasattr(obj, "_repr_html_") and obj._repr_html_() is not None:
        return [[("html", obj._repr_html_())] for _ in targets]
    raise TypeError(f"draw returned a {type(obj).__name__}, which the widget cannot show: "
                    "return a matplotlib Figure, a str, PNG bytes, or an object with "
                    "_repr_html_/_repr_png_ (or a list of these)")


def render(draw, values, dpi=72, colors=256):
    """Call ``draw(**values)`` and return what it shows as a list of parts.

    Each part is ``("png", bytes)`` or ``("html", str)``. Figures returned by ``draw`` are
    saved as PNG at ``dpi`` (quantised to ``colors`` colours, ``None`` to keep 24 bit) and
    closed. A ``draw`` that calls ``plt.show()`` instead of returning is accepted too
    (``plt.show`` does nothing while ``draw`` runs; the figures it opened are saved and
    closed), and what it prints or displays is captured; a value it returns that cannot be
    shown (a number, say) is then ignored. Nothing is displayed in
    the calling cell.
    """
    return _render(draw, values, [(dpi, colors)])[0]


def _render(draw, values, targets):
    import base64

    import matplotlib.pyplot as plt
    from IPython.utils.capture import capture_output
    from matplotlib.figure import Figure

    before = set(plt.get_fignums())
    show = plt.show
    plt.show = _no_show  # figures left open are saved below, at the widget's resolution
    try:
        with capture_output(stdout=True, stderr=False, display=True) as cap:
            result = draw(**values)
    finally:
        plt.show = show
    returned = list(result) if isinstance(result, (list, tuple)) else [result]
    try:
        out = _parts_of(result, targets)
        unshowable = None
    except TypeError as exc:  # e.g. a number returned next to a drawn figure: ignored
        out, unshowable = [[] for _ in targets], exc
    for item in cap.outputs:
        data = item.data
        if "image/png" in data:
            png = data["image/png"]
            if isinstance(png, str):
                png = base64.b64decode(png)
            for acc, (_, colors) in zip(out, targets):
                acc.append(("png", _shrink_png(png, colors)))
        elif "text/html" in data:
            for acc in out:
                acc.append(("html", data["text/html"]))
        elif "text/plain" in data:
            for acc in out:
                acc.append(("html", f"<pre>{html.escape(data['text/plain'])}</pre>"))
    if cap.stdout:
        for acc in out:
            acc.insert(0, ("html", f"<pre>{html.escape(cap.stdout)}</pre>"))
    left = [n for n in plt.get_fignums() if n not in before]
    for n in left:
        fig = plt.figure(n)
        if not any(fig is r for r in returned):
            for acc, (dpi, colors) in zip(out, targets):
                acc.append(("png", _png_of_figure(fig, dpi, colors)))
    for n in left:
        plt.close(n)
    for r in returned:
        if isinstance(r, Figure):
            plt.close(r)
    if not out[0]:
        if unshowable is not None:
            raise unshowable
        raise TypeError(f"draw({_call(values)}) showed nothing: return a matplotlib Figure "
                        "(or text / an object with _repr_html_)")
    return out


def _no_show(*args, **kwargs):
    return None


def _call(values):
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def _part_widget(part):
    kind, data = part
    if kind == "png":
        return W.Image(value=data, format="png", layout=W.Layout(max_width="100%", height="auto"))
    return W.HTML(value=data)


def _parts_widget(parts):
    if len(parts) == 1:
        return _part_widget(parts[0])
    return W.VBox([_part_widget(p) for p in parts])


# ---------------------------------------------------------------------------- mode

def _in_interactive_kernel():
    ipy = sys.modules.get("IPython")
    if ipy is None:
        return False
    try:
        shell = ipy.get_ipython()
    except Exception:  # pragma: no cover - a broken IPython install
        return False
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return False
    if sys.platform == "emscripten":  # the in-browser lab (kernelclf.book.lite): a reader's page
        return True
    # a person at a notebook front end has a stdin channel; nbclient and nbval do not
    return bool(getattr(kernel, "_allow_stdin", False))


def widget_mode(mode=None):
    """Return ``"static"`` or ``"live"``: ``mode`` if given, else ``$KERNELCLF_WIDGETS``,
    else ``"live"`` in an interactive Jupyter kernel and ``"static"`` otherwise."""
    for source in (mode, os.environ.get(ENV_VAR)):
        if source is None or str(source).strip() == "":
            continue
        key = str(source).strip().lower()
        if key in _STATIC:
            return "static"
        if key in _LIVE:
            return "live"
        raise ValueError(f"widget mode must be 'static' or 'live', got {source!r}")
    return "live" if _in_interactive_kernel() else "static"


# ---------------------------------------------------------------------------- explorer

class Explorer(W.VBox):
    """The widget :func:`explore` returns: controls, the figure area and a one-line note.

    Attributes
    ----------
    mode : {"static", "live"}
    controls : dict
        ``name -> widget`` of the controls (``index`` trait in static mode).
    specs : list
        The :class:`Slider`/:class:`Dropdown`/:class:`Toggle` specifications.
    states : dict
        Static mode: ``tuple of values -> list of parts`` for every grid point.
    default_parts : list
        The parts drawn at the default values (also the static figure).
    """

    def __init__(self, draw, specs, mode, dpi, colors, static, note, static_dpi):
        self.draw = draw
        self.specs = specs
        self.mode = mode
        self.dpi = dpi
        self.colors = colors
        self.show_static = static
        self.static_dpi = static_dpi
        defaults = {s.name: s.value for s in specs}
        self.default_values = defaults
        self.states = {}
        self._links = []
        if mode == "static":
            self.controls = {s.name: s.index_widget() for s in specs}
            self._default_static_png = None
            self.display_area = self._build_stacks(0, ())
        else:
            self.controls = {s.name: s.live_widget() for s in specs}
            self.default_parts, self._default_static_png = self._draw(defaults, static)
            self.current_parts = self.default_parts
            self.display_area = W.Box([_parts_widget(self.default_parts)])
            for w in self.controls.values():
                w.observe(self._on_change, names="value")
        # one label width for all controls, so that the sliders line up
        width = f"{max(len(s.description) for s in specs) + 2}ch"
        for w in self.controls.values():
            w.style.description_width = width
        text = note if note is not None else self._note()
        self.note = W.HTML(value=f'<div class="kernelclf-widget-note" style="font-size:85%;'
                                 f'line-height:1.4;color:#555">{text}</div>')
        box = W.HBox if len(specs) <= 2 and all(s.kind != "slider" for s in specs) else W.VBox
        super().__init__([box(list(self.controls.values())), self.display_area, self.note])
        self.add_class("kernelclf-explorer")
        self.add_class(f"kernelclf-explorer-{mode}")

    # -- static mode: every grid point rendered, nested stacks linked in the browser
    def _draw(self, values, with_static=False):
        """Draw at ``values``; with ``with_static`` also a full-resolution static figure."""
        targets = [(self.dpi, self.colors)]
        if with_static:
            targets.append((self.static_dpi, None))
        out = _render(self.draw, values, targets)
        return out[0], (out[1] if with_static else None)

    def _build_stacks(self, level, prefix):
        if level == len(self.specs):
            values = dict(zip((s.name for s in self.specs), prefix))
            is_default = all(v is s.value for v, s in zip(prefix, self.specs))
            parts, static_png = self._draw(values, self.show_static and is_default)
            if is_default:
                self.default_parts, self._default_static_png = parts, static_png
            self.states[prefix] = parts
            return _parts_widget(parts)
        spec = self.specs[level]
        children = [self._build_stacks(level + 1, prefix + (v,)) for v in spec.values]
        stack = W.Stack(children, selected_index=spec.index)
        self._links.append(W.jslink((self.controls[spec.name], "index"),
                                    (stack, "selected_index")))
        return stack

    def state_widget(self, **values):
        """Static mode: the stored widget shown when the controls are at ``values``."""
        if self.mode != "static":
            raise RuntimeError("state_widget exists in static mode only")
        w = self.display_area
        for spec in self.specs:
            v = values.get(spec.name, spec.value)
            idx = next((i for i, x in enumerate(spec.values) if x == v), None)
            if idx is None:
                raise ValueError(f"{spec.name}={v!r} is not one of {spec.values!r}")
            w = w.children[idx]
        return w

    # -- live mode
    @property
    def values(self):
        """The values the controls are at now (live mode: the widgets' values)."""
        if self.mode == "static":
            return {s.name: s.values[self.controls[s.name].index] for s in self.specs}
        return {name: w.value for name, w in self.controls.items()}

    def _on_change(self, change=None):
        parts, _ = self._draw(self.values)
        self.current_parts = parts
        self.display_area.children = [_parts_widget(parts)]

    def _note(self):
        if self.mode == "static":
            n = len(self.states)
            images = all(k == "png" for parts in self.states.values() for k, _ in parts)
            what = "figure" if images else "result"
            grid = " × ".join(html.escape(s.summary()) for s in self.specs)
            return (f"Precomputed when the book was built: {n} {what}{'s' * (n != 1)} for "
                    f"{grid}. The controls switch between them in the browser, with no "
                    "kernel. Run the notebook live (<code>make lab</code>) to recompute.")
        ranges = "; ".join(html.escape(s.live_summary()) for s in self.specs)
        return ("Live: each change of a control recomputes the figure in the running kernel "
                f"({ranges}).")

    # -- display: one output, the widget with the static figure as its fallback
    def _ipython_display_(self):
        from IPython.display import display

        display(self._widget_bundle(), raw=True)

    def _widget_bundle(self):
        """The widget's view plus, in the same output, the static figure at the default
        values as ``image/png`` (one image) or ``text/html`` (several parts): a front end with
        a widget manager (JupyterLab, the website) shows the widget only, any other (a
        notebook viewer, print) the static figure; the figure never appears twice."""
        bundle = dict(W.VBox._repr_mimebundle_(self))
        parts = self._default_static_png if self.show_static else None
        if parts:
            if len(parts) == 1 and parts[0][0] == "png":
                bundle["image/png"] = base64.b64encode(parts[0][1]).decode("ascii")
            else:
                bundle["text/html"] = "".join(
                    f'<img src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}"'
                    ' alt="the figure at the default values"/>' if kind == "png" else data
                    for kind, data in parts)
        return bundle


def explore(draw, *controls, mode=None, static=True, dpi=64, static_dpi=None, colors=256,
            max_states=MAX_STATES, note=None):
    """An interactive figure that works live in Jupyter and precomputed on the website.

    Parameters
    ----------
    draw : callable
        ``draw(**values)`` for the controls' names; returns a matplotlib Figure (closed
        after saving), a str, PNG bytes, an object with ``_repr_html_``/``_repr_png_``, or
        a list of these. Must be deterministic (seed it).
    *controls : Slider, Dropdown, Toggle
        One or more controls; their names are the keyword arguments of ``draw``.
    mode : {"static", "live"}, optional
        Overrides :func:`widget_mode` (``$KERNELCLF_WIDGETS``, else live only in an
        interactive kernel).
    static : bool
        Display the figure at the default values as a plain image before the widget
        (for print and for readers without JavaScript).
    dpi : int
        Resolution of the widget's images (small, to keep pages light).
    static_dpi : int, optional
        Resolution of the static figure (default: the figure's own ``dpi``).
    colors : int or None
        Palette size the widget's PNGs are quantised to (``None``: 24-bit PNG).
    max_states : int
        Largest product grid precomputed; a larger one raises ``ValueError``.
    note : str, optional
        Replaces the automatic one-line note under the widget.

    Returns
    -------
    Explorer
        Display it (last expression of a cell or ``display(...)``).

    Raises
    ------
    ValueError
        No controls, repeated names, a grid larger than ``max_states``, a bad default.
    TypeError
        ``draw`` does not accept the controls' names, or returns nothing showable.
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")
    if not controls:
        raise ValueError("explore needs at least one control (Slider, Dropdown or Toggle)")
    for c in controls:
        if not isinstance(c, _Control):
            raise TypeError(f"controls must be Slider, Dropdown or Toggle, got {c!r}")
    names = [c.name for c in controls]
    if len(set(names)) != len(names):
        raise ValueError(f"two controls share a name: {names}")
    try:
        inspect.signature(draw).bind(**{c.name: c.value for c in controls})
    except TypeError as exc:
        raise TypeError(f"draw{inspect.signature(draw)} cannot be called with the controls "
                        f"{names}: {exc}") from None
    except ValueError:  # builtins without a signature
        pass
    n_states = math.prod(len(c.values) for c in controls)
    mode = widget_mode(mode)
    if mode == "static" and n_states > max_states:
        raise ValueError(f"the grid {' x '.join(str(len(c.values)) for c in controls)} has "
                         f"{n_states} states, more than max_states={max_states}: use fewer "
                         "values (each state is an image stored in the page)")
    if static_dpi is None:
        import matplotlib as mpl
        static_dpi = mpl.rcParams["figure.dpi"]
    return Explorer(draw, list(controls), mode, dpi, colors, static, note, static_dpi)


def grid_values(*controls):
    """All grid points of ``controls`` in the order :func:`explore` renders them."""
    return [dict(zip((c.name for c in controls), combo))
            for combo in itertools.product(*(c.values for c in controls))]
