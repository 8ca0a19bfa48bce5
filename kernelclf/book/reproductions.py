"""Book chapter 00 (``book/00_preface.md``): the reproduction index of the five sources.

``book/reproductions.csv`` has one row per numbered figure, table and algorithm box of the
five sources, per evaluable theorem, and per diagram: which chapter shows it (and under which
label), how closely (a status from :data:`STATUSES`), the code that computes it, the test
or hidden check that compares it with the source, and a flag from :data:`FLAGS` where our
result contradicts what the source prints (``disagrees: <reason>``) or predates the present
code (``stale: <reason>``). :func:`render_counts` and :func:`render` turn the registry into
the Markdown of the book's *Reproductions* page; :func:`setup` is the Sphinx extension that does
so at build time, so the page cannot drift from the registry. ``tests/test_reproductions.py``
keeps registry, captions and chapters in step.
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

__all__ = ["SOURCES", "STATUSES", "FLAGS", "MARKERS", "KINDS", "COLUMNS", "load", "validate",
           "render", "render_counts", "counts", "flag_counts", "checks", "page_targets",
           "proof_labels"]

#: the five sources, in the book's order, with the abbreviation captions use
SOURCES = {
    "LKC": "R. Herbrich, *Learning Kernel Classifiers* (MIT Press 2002)",
    "BPM": "R. Herbrich, T. Graepel, C. Campbell, *Bayes Point Machines* (JMLR 2001)",
    "TR": "R. Herbrich, T. Graepel, C. Campbell, *Bayesian Learning in RKHS* (TR 99-11)",
    "RM": "P. Ruján, M. Marchand, *Computing the Bayes kernel classifier* (the billiard chapter)",
    "RMM": ("P. Shivaswamy, T. Jebara, *Maximum Relative Margin and Data-Dependent "
            "Regularization* (JMLR 2010)"),
}
#: how closely an item is rebuilt
STATUSES = {
    "reproduced": "the source's protocol; our numbers beside the source's, checked",
    "reduced": ("the source's set-up on less data, fewer splits or repeats, or a smaller "
                "parameter search, or with part of the item left out, as the note says"),
    "analogue": "the idea of the item on our own data or parameters",
    "drawn": "a diagram, drawn by code",
    "not reproducible": "cannot be rebuilt here; the note gives the reason",
}
#: what a row's ``flag`` column may say, as ``<flag>: <reason>``
FLAGS = {
    "disagrees": ("the page shows that a number or statement the source prints for this item "
                  "does not hold; the reason is given"),
    "stale": "the result shown was produced by an older version of our code; a rerun is pending",
}
KINDS = ("figure", "table", "algorithm", "theorem", "diagram", "method")
COLUMNS = ("source", "item", "kind", "status", "chapter", "label", "function", "check", "note",
           "flag")
DEFAULT = Path(__file__).resolve().parents[2] / "book" / "reproductions.csv"


def load(path=DEFAULT):
    """The registry's rows, as a list of dicts with the keys :data:`COLUMNS`."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path}: columns must be {','.join(COLUMNS)}")
        return [{k: (v or "").strip() for k, v in row.items()} for row in reader]


def validate(rows):
    """The problems of a registry (empty when it is sound)."""
    problems, seen = [], set()
    for i, r in enumerate(rows, start=2):
        where = f"row {i} ({r['source']} {r['item']})"
        key = (r["source"], r["item"])
        if key in seen:
            problems.append(f"{where}: listed twice")
        seen.add(key)
        if r["source"] not in SOURCES:
            problems.append(f"{where}: unknown source {r['source']!r}")
        if r["status"] not in STATUSES:
            problems.append(f"{where}: status {r['status']!r} is not one of {sorted(STATUSES)}")
        if r["kind"] not in KINDS:
            problems.append(f"{where}: kind {r['kind']!r} is not one of {KINDS}")
        if r["status"] == "not reproducible":
            if not r["note"]:
                problems.append(f"{where}: a not-reproducible row needs its reason in the note")
        elif not (r["chapter"] and r["label"]):
            problems.append(f"{where}: a shown item needs its chapter and label")
        if r["status"] == "reproduced" and not r["check"]:
            problems.append(f"{where}: a reproduced row names the check that compares with the source")
        if r["status"] in ("reduced", "analogue", "reproduced") and not r["function"]:
            problems.append(f"{where}: name the code that computes it")
        if r["flag"]:
            flag, _, reason = r["flag"].partition(":")
            if flag not in FLAGS or not reason.strip():
                problems.append(f"{where}: flag {r['flag']!r} is not '<flag>: <reason>' with a "
                                f"flag from {sorted(FLAGS)}")
            elif r["status"] == "not reproducible":
                problems.append(f"{where}: an item that is not rebuilt cannot be flagged")
    return problems


def counts(rows):
    """``{source: Counter(status)}``."""
    out = {s: Counter() for s in SOURCES}
    for r in rows:
        out.setdefault(r["source"], Counter())[r["status"]] += 1
    return out


def flag_counts(rows):
    """``{source: Counter(flag)}`` (the flag's name, without its reason)."""
    out = {s: Counter() for s in SOURCES}
    for r in rows:
        if r["flag"]:
            out.setdefault(r["source"], Counter())[r["flag"].partition(":")[0]] += 1
    return out


def _item_key(item):
    head, _, num = item.partition(" ")
    parts = []
    for p in num.replace("–", ".").split("."):
        parts.append((0, int(p), "") if p.isdigit() else (1, 0, p))
    order = {"Fig.": 0, "Table": 1, "Alg.": 2}
    return order.get(head, 3), head, parts


#: a badge (sphinx-design role) and a marker for each status and flag
MARKERS = {
    "reproduced": ("bdg-success", "✔"),
    "reduced": ("bdg-info", "◐"),
    "analogue": ("bdg-light", "≈"),
    "drawn": ("bdg-primary-line", "✎"),
    "not reproducible": ("bdg-dark", "✗"),
    "disagrees": ("bdg-danger", "⚠"),
    "stale": ("bdg-warning", "↻"),
}
#: a token of a note that names a file, test or dotted path: set as code, never broken
_IDENT = re.compile(r"^[\w./:-]*(?:::|\.py\b|\.jsonl\b|kernelclf\.)[\w./:()-]*$")


def _badge(name):
    role, mark = MARKERS[name]
    return f"{{{role}}}`{mark} {name}`"


def _short(chapter):
    """``ch04``, ``ch02b``, ``App. A``: how the page names a chapter."""
    head = chapter.split("_")[0]
    return "App. A" if head == "appendix" else f"ch{head}"


def _plain(md):
    """A heading or bold lead of a page as plain link text: roles, code, math and emphasis
    marks dropped, their text kept."""
    md = re.sub(r"\{[\w:-]+\}`([^`<]*?)(?:\s*<[^`]*>)?`", r"\1", md)
    md = md.replace("`", "").replace("$", "").replace("**", "").replace("\\", "")
    md = re.sub(r"[<>]", "", md)
    return " ".join(md.split()).rstrip(":. ")


def page_targets(book_dir):
    """``{label: (kind, text)}`` for the link targets of the chapters in ``book_dir``.

    ``kind`` is ``"figure"`` (a captioned, named figure: linked by number), ``"exercise"``
    (by number), ``"proof"`` (a sphinx-proof directive: by its own title), ``"section"``
    (a target before a heading: ``text`` is the heading) or ``"paragraph"`` (``text`` is the
    paragraph's bold lead, else the heading of the section it is in).
    """
    out = {}
    for md in Path(book_dir).glob("*.md"):
        text = md.read_text(encoding="utf-8")
        for block in re.findall(r"```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", text, flags=re.S):
            name = re.search(r"^\s+name:\s*(\S+)", block, flags=re.M)
            if name and re.search(r"^\s+figure:", block, flags=re.M) and "caption:" in block:
                out[name.group(1)] = ("figure", "")
        for m in re.finditer(r"```\{(?:glue:)?figure\}[^\n]*\n((?::[^\n]*\n)*)", text):
            name = re.search(r":name: (\S+)", m.group(1))
            if name:
                out[name.group(1)] = ("figure", "")
        for label in re.findall(r"```\{exercise(?:-start)?\}[^\n]*\n:label: (\S+)", text):
            out[label] = ("exercise", "")
        for label in re.findall(r"```\{prf:\w+\}[^\n]*\n(?::[^\n]*\n)*?:label: (\S+)", text):
            out[label] = ("proof", "")
        heading = ""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("#") and " " in line:
                heading = _plain(line.split(" ", 1)[1])
            m = re.fullmatch(r"\((\S+)\)=", line)
            if not m:
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if nxt.startswith("#"):
                out[m.group(1)] = ("section", _plain(nxt.split(" ", 1)[1]))
            else:
                lead = re.match(r"\*\*(.+?)\*\*", nxt)
                out[m.group(1)] = ("paragraph", _plain(lead.group(1)) if lead else heading)
    return out


def proof_labels(book_dir):
    """Labels of sphinx-proof directives (``{prf:algorithm}``, ``{prf:theorem}``...) in the
    chapters of ``book_dir``: they are linked with the ``prf:ref`` role, not ``ref``."""
    return {k for k, (kind, _) in page_targets(book_dir).items() if kind == "proof"}


def _where(r, targets):
    """The link to the item on its page, with the chapter's own number for a figure or an
    exercise, the proof's title, or the section's heading."""
    if not r["label"]:
        return "–"
    short, label = _short(r["chapter"]), r["label"]
    kind, text = targets.get(label, ("section", ""))
    if kind == "figure":
        return f"{{numref}}`{short} Fig. %s <{label}>`"
    if kind == "exercise":
        return f"{{numref}}`{short} Exercise %s <{label}>`"
    if kind == "proof":
        return f"{short}, {{prf:ref}}`{label}`"
    return f"{{ref}}`{short} § {text} <{label}>`" if text else f"{short}, {{ref}}`{label}`"


def _note(text):
    """A note with its file, test and module names set as code (whole, unbroken)."""
    return " ".join(f"`{w.rstrip(';,)')}`{w[len(w.rstrip(';,)')):]}" if _IDENT.match(w.rstrip(";,)"))
                    else w for w in text.split())


def _html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def checks(row):
    """The tests and hidden checks a row names in its ``check`` column: ``tests/...`` or
    ``book/<page>.md::<what it asserts>``, several separated by ``; ``."""
    return [c.strip() for c in re.split(r";\s+(?=(?:tests|book)/)", row["check"]) if c.strip()]


def _details(r):
    """The code and the check of a row, as a collapsed HTML ``<details>`` block."""
    parts = []
    for fn in filter(None, (f.strip() for f in r["function"].split(";"))):
        page, _, name = fn.partition("::")
        parts.append(f"code: <code>{_html(name)}</code>, defined on the page"
                     if page.startswith("book/") else f"code: <code>{_html(fn)}</code>")
    for chk in checks(r):
        path, _, what = chk.partition("::")
        if path.startswith("book/"):
            parts.append(f"check: a hidden cell of {_short(Path(path).stem)}: {_html(what)}"
                         if what else f"check: the hidden cells of {_short(Path(path).stem)}")
        else:
            parts.append(f"check: <code>{_html(chk)}</code>")
    if not parts:
        return []
    return (["    <details class=\"kernelclf-repro\"><summary>code and check</summary>"]
            + [f"    <p>{p}</p>" for p in parts] + ["    </details>"])


def render_counts(rows):
    """The MyST Markdown of the count table (a column per source, a row per status and
    flag) and the legend of the markers."""
    c, f = counts(rows), flag_counts(rows)
    cols = list(SOURCES)
    out = ["| | " + " | ".join(cols) + " | all |", "|---|" + "--:|" * (len(cols) + 1)]
    for group, names in ((c, STATUSES), (f, FLAGS)):
        for k in names:
            vals = [group[s][k] for s in cols]
            out.append(f"| {_badge(k)} | " + " | ".join(map(str, vals)) + f" | {sum(vals)} |")
    sizes = [sum(c[s].values()) for s in cols]
    out.append("| items | " + " | ".join(map(str, sizes)) + f" | {sum(sizes)} |")
    out += ["", "What the markers mean:", ""]
    out += [f"- {_badge(k)} {v}" for k, v in list(STATUSES.items()) + list(FLAGS.items())]
    return "\n".join(out) + "\n"


def render(rows, targets=None):
    """The MyST Markdown of the Reproductions page's tables, one per source
    (``targets``: the chapters' link targets, see :func:`page_targets`; read from the book
    when not given)."""
    targets = page_targets(DEFAULT.parent) if targets is None else targets
    out = []
    for s, title in SOURCES.items():
        mine = sorted((r for r in rows if r["source"] == s), key=lambda r: _item_key(r["item"]))
        out += ["", f"## {s}: {title}", "",
                "````{list-table}", ":header-rows: 1", ":widths: 13 20 19 48", ":width: 100%",
                ":class: kernelclf-repro", "",
                "* - item", "  - status", "  - shown in", "  - what differs"]
        for r in mine:
            status = _badge(r["status"])
            note = _note(r["note"]) if r["note"] else ""
            if r["flag"]:
                flag, _, reason = r["flag"].partition(":")
                status += " " + _badge(flag)
                note = (note + " " if note else "") + f"**{flag}:** {_note(reason.strip())}"
            out += [f"* - {s} {r['item']}", f"  - {status}",
                    f"  - {_where(r, targets)}", f"  - {note or '–'}"] + _details(r)
        out.append("````")
    return "\n".join(out) + "\n"


MARKER = "<!-- reproductions table -->"
COUNTS_MARKER = "<!-- reproductions counts -->"


def _source_read(app, docname, source):
    if docname.endswith("reproductions") and MARKER in source[0]:
        book = Path(app.srcdir) / "book"
        rows = load(book / "reproductions.csv")
        source[0] = (source[0].replace(COUNTS_MARKER, render_counts(rows))
                     .replace(MARKER, render(rows, page_targets(book))))


def setup(app):
    """Sphinx extension: fill the Reproductions page from the registry at build time."""
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
