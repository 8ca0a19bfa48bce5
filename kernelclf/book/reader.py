"""Reader notebooks: the book's MyST chapters as plain Jupyter notebooks.

Book chapter 00 (``book/00_preface.md``); every chapter is converted by it. No source
formula: this is the book's publishing tool, not an algorithm of LKC.

The chapters in ``book/`` are jupytext MyST notebooks. Jupyter Book renders their
directives and roles, but JupyterLab 4.6 (``jupyterlab-myst`` 2.7.0, the newest release,
does not support it) and every other notebook viewer show them as raw text: ``(ch03)=``,
``{cite}`...```, ``:class: dropdown``, solutions unfolded under their exercises.
:func:`reader_notebook` turns a chapter (the ``.md`` source, or the executed ``.ipynb``
that Jupyter Book writes, outputs kept) into a notebook that reads well anywhere:

* labels ``(name)=`` become HTML anchors; ``{ref}``, ``{numref}``, ``{doc}``, ``{eq}``
  and ``{prf:ref}`` become links (``#label`` in the same chapter,
  ``NN_name.ipynb#label`` in another) whose text is the section title or the number;
* ``{cite}`` becomes "(Author Year)" from ``book/references.bib``; ``{quoted}`13.3 <BPM
  Table 1>``` becomes the plain number (:mod:`kernelclf.book.typed_numbers`);
* exercises are numbered per chapter ("Exercise 2"); every solution sits in a collapsed
  ``<details>`` block, and code cells inside a solution are collapsed (JupyterLab's
  ``jupyter.source_hidden``/``outputs_hidden`` cell metadata);
* ``prf:`` boxes, admonitions and figures become quoted blocks with a bold title; labelled
  equations ``$$ ... $$ (label)`` get ``\\tag{n}``, numbered per chapter;
* cells tagged ``remove-cell`` (the hidden checks) are dropped; ``remove-input`` and
  ``hide-input`` cells are kept with their source collapsed; code is never changed.

Command line: ``python -m kernelclf.book.reader [--book book] -o OUTDIR SOURCE...`` (used by
the Makefile's ``notebooks``, ``book`` and ``check-chapter`` targets).
"""
from __future__ import annotations

import argparse
import copy
import html
import re
from pathlib import Path

import nbformat

__all__ = ["reader_notebook", "write_reader_notebook", "label_index", "RAW_MYST"]

#: patterns of MyST markup that must not survive in a reader notebook's Markdown
RAW_MYST = {
    "directive": re.compile(r"^ {0,3}(`{3,}|:{3,})\s*\{[\w:.-]+\}", re.M),
    "role": re.compile(r"\{[\w:.-]+\}`[^`]*`"),
    "label": re.compile(r"^\s*\([\w:.-]+\)=\s*$", re.M),
    "option": re.compile(r"^:(class|label|tags|name|alt|width|align|nonumber|all):", re.M),
}

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})\s*$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:.-]+)\}\s*(?P<arg>.*)$")
_LABEL = re.compile(r"^\s*\((?P<label>[^()\s]+)\)=\s*$")
_ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<body>[^`]*)`")
_MATH_LABEL = re.compile(r"^(?P<head>.*?)\$\$\s*\((?P<label>[^()\s]+)\)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>\s*$", re.S)

_ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention",
                "danger", "error", "seealso", "admonition", "margin", "sidebar", "topic"}
_DROP = {"bibliography", "nb-exec-table", "tableofcontents", "glue:any", "only"}
_CODE_DIRECTIVES = {"code", "code-block", "sourcecode", "literalinclude"}


# ----------------------------------------------------------------------------- parsing

def _blocks(lines):
    """Split Markdown lines into ``("text", lines)``, ``("fence", lines)`` (a plain code
    block, kept verbatim) and ``("directive", name, arg, options, body)`` items."""
    out, text, i = [], [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            text.append(lines[i])
            i += 1
            continue
        fence, info = m["fence"], m["info"].strip()
        j = i + 1
        while j < len(lines):
            c = _CLOSE.match(lines[j])
            if c and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence):
                break
            j += 1
        if text:
            out.append(("text", text))
            text = []
        d = _DIRECTIVE.match(info)
        if d and fence[0] != "~":
            options, body = _options(lines[i + 1:j])
            out.append(("directive", d["name"], d["arg"].strip(), options, body))
        else:
            out.append(("fence", lines[i:j + 1]))
        i = j + 1
    if text:
        out.append(("text", text))
    return out


def _options(body):
    """Directive options (``:key: value`` lines or a ``---`` YAML block) and content."""
    options = {}
    if body and body[0].strip() == "---":
        import yaml

        end = next((k for k in range(1, len(body)) if body[k].strip() == "---"), None)
        if end is not None:
            options = {str(k): "" if v is None else v
                       for k, v in (yaml.safe_load("\n".join(body[1:end])) or {}).items()}
            body = body[end + 1:]
    k = 0
    while k < len(body):
        m = re.match(r"^:([\w-]+):\s*(.*)$", body[k])
        if not m:
            break
        options[m.group(1)] = m.group(2).strip()
        k += 1
    body = body[k:]
    while body and not body[0].strip():
        body = body[1:]
    return options, body


def _kind(name):
    """The counter a directive's number is taken from (``None``: not numbered)."""
    if name in ("exercise", "exercise-start"):
        return "Exercise"
    if name.startswith("prf:"):
        return name[4:].capitalize()
    if name in ("figure", "table", "list-table", "code-block", "math"):
        return {"list-table": "Table", "code-block": "Listing"}.get(name, name.capitalize())
    return None


# ----------------------------------------------------------------------------- index

def _markdown_of(path):
    path = Path(path)
    if path.suffix == ".ipynb":
        nb = nbformat.read(str(path), as_version=4)
    else:
        import jupytext

        nb = jupytext.read(str(path))
    return nb


def _is_notebook_page(path):
    with open(path, encoding="utf-8") as fh:
        return "kernelspec:" in fh.read(600)


def label_index(book_dir):
    """Every label of the book's MyST pages: ``label -> (page stem, text, is_notebook)``.

    ``text`` is a section's title, "Exercise 2", "Algorithm 1", or "(3)" for an
    equation; numbers count per page, in the order :func:`reader_notebook` numbers them.
    """
    index = {}
    for path in sorted(Path(book_dir).glob("*.md")):
        stem, notebook = path.stem, _is_notebook_page(path)
        _scan(path.read_text(encoding="utf-8").splitlines(), stem, notebook, {}, index)
    return index


def _scan(lines, stem, notebook, counters, index):
    pending = None
    for item in _blocks(lines):
        if item[0] == "text":
            for line in item[1]:
                m = _LABEL.match(line)
                if m:
                    pending = m["label"]
                    continue
                h = _HEADING.match(line)
                if h and pending:
                    index[pending] = (stem, _inline_plain(h.group(2)), notebook)
                    pending = None
                elif line.strip():
                    pending = None
                ml = _MATH_LABEL.match(line)
                if ml:
                    n = counters["Equation"] = counters.get("Equation", 0) + 1
                    index[ml["label"]] = (stem, f"({n})", notebook)
            continue
        if item[0] != "directive":
            continue
        _, name, arg, options, body = item
        kind = _kind(name)
        label = options.get("label") or options.get("name")
        figure = _cell_figure(options.get("mystnb")) if name == "code-cell" else None
        if figure is not None:
            n = counters["Figure"] = counters.get("Figure", 0) + 1
            if figure.get("name"):
                index[str(figure["name"])] = (stem, f"Figure {n}", notebook)
            continue
        if kind == "Math":
            if label:
                n = counters["Equation"] = counters.get("Equation", 0) + 1
                index[label] = (stem, f"({n})", notebook)
            continue
        if kind is not None:
            n = counters[kind] = counters.get(kind, 0) + 1
            if label:
                index[label] = (stem, f"{kind} {n}", notebook)
        if name != "code-cell" and name not in _CODE_DIRECTIVES:
            _scan(body, stem, notebook, counters, index)


def _cell_figure(mystnb):
    """The ``mystnb: figure:`` options of a code cell (caption, name), or ``None``."""
    figure = mystnb.get("figure") if isinstance(mystnb, dict) else None
    return figure if isinstance(figure, dict) and (figure.get("caption") or figure.get("name")) else None


def _inline_plain(text):
    return _ROLE.sub(lambda m: _EXPLICIT.sub(r"\g<text>", m["body"]), text).strip()


def _bibliography(book_dir):
    """``key -> (authors, year)`` from ``references.bib`` (empty if there is none)."""
    path = Path(book_dir) / "references.bib"
    if not path.is_file():
        return {}
    try:
        from pybtex.database import parse_file
        from pybtex.richtext import Text
    except ImportError:  # pybtex comes with jupyter-book; without it, a rough reading
        return _bibliography_rough(path.read_text(encoding="utf-8"))

    def plain(s):
        try:
            return Text.from_latex(s).render_as("text")
        except Exception:  # pragma: no cover - odd LaTeX in a name
            return s.replace("{", "").replace("}", "")

    out = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [plain(" ".join(p.prelast_names + p.last_names)) for p in people]
        if not last:
            who = plain(entry.fields.get("organization", entry.fields.get("title", key)))
        elif len(last) == 1:
            who = last[0]
        elif len(last) == 2:
            who = f"{last[0]} and {last[1]}"
        else:
            who = f"{last[0]} et al."
        out[key] = (who, entry.fields.get("year", "n.d."))
    return out


def _bibliography_rough(text):
    out = {}
    for m in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,(.*?)\n\}", text, re.S):
        key, body = m.group(1), m.group(2)
        author = re.search(r"author\s*=\s*\{(.*?)\}\s*,?\s*$", body, re.M)
        year = re.search(r"year\s*=\s*\{?(\d{4})", body)
        names = [n.strip().replace("{", "").replace("}", "") for n in
                 (author.group(1).split(" and ") if author else [])]
        last = [n.split(",")[0] if "," in n else n.split()[-1] for n in names if n]
        who = (last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2
               else f"{last[0]} et al." if last else key)
        out[key] = (who, year.group(1) if year else "n.d.")
    return out


# ----------------------------------------------------------------------------- rendering

class _Converter:
    def __init__(self, stem, index, bib):
        self.stem, self.index, self.bib = stem, index, bib
        self.counters = {}
        self.exercise = None          # number of the last exercise seen
        self.in_solution = False      # between solution-start and solution-end
        self.details_open = False     # a <details> of that solution is open in this cell
        self.solution_title = ""

    # ------------------------------------------------------------------ roles
    def _link(self, label, text):
        where = self.index.get(label)
        if where is None:
            return text
        stem, _, notebook = where
        if stem == self.stem:
            return f"[{text}](#{label})"
        if notebook:
            return f"[{text}]({stem}.ipynb#{label})"
        return text

    def _role(self, m):
        name, body = m["name"], m["body"]
        explicit = _EXPLICIT.match(body)
        text, target = (explicit["text"], explicit["target"].strip()) if explicit else (None, body.strip())
        if name.startswith("cite"):
            keys = [k.strip() for k in target.split(",") if k.strip()]
            refs = [self.bib.get(k, (k, "")) for k in keys]
            if name in ("cite:t", "cite:ts", "cite:author"):
                return "; ".join(f"{a} ({y})" if y else a for a, y in refs)
            return "(" + "; ".join(f"{a} {y}".strip() for a, y in refs) + ")"
        if name == "eq":
            number = self.index.get(target, (None, f"({target})", False))[1]
            if text is None:
                text = number
                if target in self.index and self.index[target][0] != self.stem:
                    text = f"{number} of {self.index[target][0]}"
            return self._link(target, text)
        if name in ("ref", "numref", "prf:ref", "doc", "any"):
            if name == "doc":
                stem = Path(target).name
                page = next(((t, nb) for s, t, nb in self.index.values() if s == stem), (stem, False))
                title = text or page[0]
                return f"[{title}]({stem}.ipynb)" if stem != self.stem and page[1] else title
            found = self.index.get(target)
            default = found[1] if found else target
            if text is None:
                text = default
            elif name == "numref":
                number = default.split()[-1] if found else ""
                text = text.replace("%s", number).replace("{number}", number)
            return self._link(target, text)
        if name == "math":
            return f"${body}$"
        if name == "quoted":  # {quoted}`13.3 <BPM Table 1>`: the number (the place is a tooltip online)
            return (text if text is not None else body).strip()
        if name in ("code", "samp", "file", "command", "kbd"):
            return f"`{body}`"
        if name == "sub":
            return f"<sub>{body}</sub>"
        if name == "sup":
            return f"<sup>{body}</sup>"
        if name == "abbr":
            return re.sub(r"\s*\(.*\)\s*$", "", body)
        return text if text is not None else body

    def roles(self, line):
        return _ROLE.sub(self._role, line)

    # ------------------------------------------------------------------ text
    def _emit(self, out, line):
        if self.in_solution and not self.details_open and line.strip():
            out += [f"<details><summary><b>{self.solution_title} (continued)</b></summary>", ""]
            self.details_open = True
        out.append(line)

    def text(self, lines, out):
        math_start = None
        # roles first, on the whole block: a role's text may wrap onto the next line
        lines = self.roles("\n".join(lines)).split("\n")
        for line in lines:
            m = _LABEL.match(line)
            if m:
                self._emit(out, _anchor(m["label"]))
                out.append("")
                continue
            stripped = line.strip()
            if math_start is None and stripped.startswith("$$"):
                rest = stripped[2:]
                ml = _MATH_LABEL.match(rest)
                if ml and ml["head"].strip():       # one-line $$ x $$ (label)
                    self._emit(out, _anchor(ml["label"]))
                    out.append("")
                    out.append(f"$${ml['head']} {self._tag(ml['label'])}$$")
                    continue
                self._emit(out, line)
                if "$$" not in rest:
                    math_start = len(out) - 1
                continue
            if math_start is not None and "$$" in stripped:
                ml = _MATH_LABEL.match(stripped)
                if ml:
                    label = ml["label"]
                    out.insert(math_start, "")
                    out.insert(math_start, _anchor(label))
                    line = f"{ml['head']}{self._tag(label)}\n$$" if ml["head"].strip() else \
                        f"{self._tag(label)}\n$$"
                math_start = None
                out.append(line)
                continue
            if math_start is not None:
                out.append(line)
                continue
            self._emit(out, line)

    def _tag(self, label):
        number = self.index.get(label, (None, None, None))[1]
        if number is None or self.index[label][0] != self.stem:
            n = self.counters["Equation"] = self.counters.get("Equation", 0) + 1
            number = f"({n})"
        return "\\tag{" + number.strip("()") + "}"

    # ------------------------------------------------------------------ directives
    def _number(self, name, options):
        kind = _kind(name)
        label = options.get("label") or options.get("name")
        if label and label in self.index and self.index[label][0] == self.stem:
            text = self.index[label][1]
            self.counters[kind] = int(text.split()[-1])
            return text
        n = self.counters[kind] = self.counters.get(kind, 0) + 1
        return f"{kind} {n}"

    def _boxed(self, title, body, label, out, collapsed=False):
        if label:
            self._emit(out, _anchor(label))
            out.append("")
        if collapsed:
            self._emit(out, f"<details><summary><b>{title}</b></summary>")
        else:
            self._emit(out, "<blockquote>")
            out += ["", f"**{title}**" if title else ""]
        out.append("")
        self.markdown(body, out)
        out += ["", "</details>" if collapsed else "</blockquote>", ""]

    def directive(self, name, arg, options, body, out):
        label = options.get("label") or options.get("name")
        collapsed = "dropdown" in str(options.get("class", "")).split()
        arg = self.roles(arg)
        if name in ("exercise", "exercise-start"):
            number = self._number(name, options)
            self.exercise = number.split()[-1]
            title = f"{number} ({arg})" if arg else number
            if label:
                self._emit(out, _anchor(label))
                out.append("")
            self._emit(out, f"**{title}.**")
            out.append("")
            self.markdown(body, out)
        elif name == "exercise-end":
            return
        elif name in ("solution", "solution-start"):
            target = arg.strip()
            found = self.index.get(target)
            number = found[1] if found and found[0] == self.stem else (
                f"Exercise {self.exercise}" if self.exercise else "the exercise")
            self.solution_title = f"Solution to {number}"
            if name == "solution":
                self._boxed(self.solution_title, body, label, out, collapsed=True)
                return
            if label:
                self._emit(out, _anchor(label))
                out.append("")
            out += [f"<details><summary><b>{self.solution_title}</b></summary>", ""]
            self.in_solution = self.details_open = True
        elif name == "solution-end":
            if self.details_open:
                out += ["", "</details>", ""]
            self.in_solution = self.details_open = False
        elif name.startswith("prf:") or name in ("figure", "table", "list-table"):
            if name == "figure":
                alt = options.get("alt", "")
                number = self._number(name, options)
                image = f"![{alt}]({arg})" if arg else ""
                self._boxed(f"{number}", ([image, ""] if image else []) + body, label, out)
                return
            number = self._number(name, options)
            title = f"{number} ({arg})" if arg else number
            self._boxed(title, body, label, out, collapsed)
        elif name == "math":
            if label:
                self._emit(out, _anchor(label))
                out.append("")
            tag = self._tag(label) if label else ""
            self._emit(out, "$$")
            out += body + ([tag] if tag else []) + ["$$", ""]
        elif name in _CODE_DIRECTIVES:
            lang = arg.split()[0] if arg else ""
            self._emit(out, f"```{lang}")
            out += body + ["```"]
        elif name in _DROP:
            self._emit(out, "*(This list is on the book's website.)*")
        elif name in _ADMONITIONS:
            title = arg if name == "admonition" else (name.capitalize() + (f": {arg}" if arg else ""))
            self._boxed(title, body, label, out, collapsed)
        elif name in ("raw", "eval-rst"):
            if name == "raw" and arg.strip() == "html":
                out += body
        else:  # an unknown directive: keep its content, drop the markup
            self._boxed(arg or name, body, label, out, collapsed)

    # ------------------------------------------------------------------ cells
    def markdown(self, lines, out):
        for item in _blocks(lines):
            if item[0] == "text":
                self.text(item[1], out)
            elif item[0] == "fence":
                self._emit(out, item[1][0])
                out += item[1][1:]
            else:
                self.directive(*item[1:], out)

    def cell(self, source):
        out = []
        if self.in_solution:
            self.details_open = False
        self.markdown(source.splitlines(), out)
        if self.details_open:
            out += ["", "</details>"]
            self.details_open = False
        text = "\n".join(out)
        text = re.sub(r"\n{3,}", "\n\n", text).strip("\n")
        return text


def _anchor(label):
    label = html.escape(label, quote=True)
    return f'<a id="{label}" name="{label}"></a>'


# ----------------------------------------------------------------------------- notebook

def _book_dir_for(source, book_dir):
    if book_dir is not None:
        return Path(book_dir)
    source = Path(source)
    if source.suffix == ".md":
        return source.parent
    return Path(__file__).resolve().parents[2] / "book"


def reader_notebook(source, book_dir=None, index=None):
    """The reader notebook of one chapter.

    Parameters
    ----------
    source : str or Path
        A chapter: its MyST source ``book/NN_name.md``, or an executed notebook of it
        (``_build/jupyter_execute/book/NN_name.ipynb``; outputs are kept).
    book_dir : str or Path, optional
        The folder of the chapters (labels and the bibliography are read there);
        default: the source's folder for ``.md``, else the repository's ``book/``.
    index : dict, optional
        A precomputed :func:`label_index` of ``book_dir`` (saves time for many chapters).

    Returns
    -------
    nbformat.NotebookNode
    """
    source = Path(source)
    if source.suffix not in (".md", ".ipynb"):
        raise ValueError(f"a chapter is a .md or .ipynb file, got {source}")
    if not source.is_file():
        raise FileNotFoundError(source)
    book = _book_dir_for(source, book_dir)
    if index is None:
        index = label_index(book)
    nb = _markdown_of(source)
    conv = _Converter(source.stem, index, _bibliography(book))
    cells = []
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if "remove-cell" in tags:
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            text = conv.cell(cell.source)
            if not text.strip():
                continue
            cell.source = text
        elif cell.cell_type == "code":
            hidden = cell.metadata.setdefault("jupyter", {})
            if tags & {"hide-input", "remove-input"}:
                hidden["source_hidden"] = True
            if "remove-output" in tags:
                cell.outputs = []
            if conv.in_solution:
                hidden["source_hidden"] = hidden["outputs_hidden"] = True
                cell.metadata["tags"] = sorted(tags | {"solution"})
            if not hidden:
                del cell.metadata["jupyter"]
            figure = _cell_figure(cell.metadata.get("mystnb"))
            if figure is not None:  # myst-nb's figure caption, shown under the output
                cells.append(cell)
                name = str(figure.get("name", "")) or None
                number = conv._number("figure", {"label": name} if name else {})
                caption = conv.cell(str(figure.get("caption", "")))
                lines = ([_anchor(name), ""] if name else []) + [f"**{number}.** {caption}".strip()]
                cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
                continue
        cells.append(cell)
    note = nbformat.v4.new_markdown_cell(
        f"*This is the reader version of `book/{source.stem}.md` from the kernelclf repository: "
        "the book's MyST markup is rendered as plain Markdown and the solutions are folded "
        "(click **Solution** to open one). Run it with Kernel → Restart Kernel and Run All "
        "Cells; in a clone of the repository, `make lab` opens these notebooks.*")
    first_md = next((k for k, c in enumerate(cells) if c.cell_type == "markdown"), -1)
    cells.insert(first_md + 1, note)
    metadata = {k: v for k, v in nb.metadata.items() if k in ("kernelspec", "language_info", "widgets")}
    out = nbformat.v4.new_notebook(cells=cells, metadata=metadata)
    for cell in out.cells:
        if "id" not in cell:
            cell["id"] = nbformat.v4.new_code_cell().id
        if cell.cell_type == "code":
            cell.setdefault("outputs", [])
            cell.setdefault("execution_count", None)
    nbformat.validate(out)
    return out


def write_reader_notebook(source, out_dir, book_dir=None, index=None):
    """Write the reader notebook of ``source`` as ``out_dir/<stem>.ipynb``; return its path."""
    nb = reader_notebook(source, book_dir=book_dir, index=index)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / (Path(source).stem + ".ipynb")
    nbformat.write(nb, str(path))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kernelclf.book.reader", description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="+", help="chapters (.md) or executed notebooks (.ipynb)")
    parser.add_argument("-o", "--out", required=True, help="folder for the reader notebooks")
    parser.add_argument("--book", default=None, help="folder of the MyST chapters (labels, bibliography)")
    args = parser.parse_args(argv)
    indexes = {}
    for src in args.sources:
        book = _book_dir_for(src, args.book)
        if book not in indexes:
            indexes[book] = label_index(book)
        if not _is_notebook_source(src):
            continue
        path = write_reader_notebook(src, args.out, book_dir=book, index=indexes[book])
        print(f"wrote {path}")


def _is_notebook_source(src):
    src = Path(src)
    return src.suffix == ".ipynb" or _is_notebook_page(src)


if __name__ == "__main__":
    main()
