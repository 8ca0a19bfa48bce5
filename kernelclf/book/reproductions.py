"""Book chapter 00 (``book/00_preface.md``): the reproduction index of the five sources.

``book/reproductions.csv`` has one row per numbered figure, table and algorithm box of the
five sources, per evaluable theorem, and per diagram: which chapter shows it (and under which
label), how closely (a status from :data:`STATUSES`), the code that computes it, the test
or hidden check that compares it with the source, and a flag from :data:`FLAGS` where our
result contradicts what the source prints (``disagrees: <reason>``) or predates the present
code (``stale: <reason>``). :func:`render` turns the registry into the
Markdown of the book's *Reproductions* page; :func:`setup` is the Sphinx extension that does
so at build time, so the page cannot drift from the registry. ``tests/test_reproductions.py``
keeps registry, captions and chapters in step.
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

__all__ = ["SOURCES", "STATUSES", "FLAGS", "KINDS", "COLUMNS", "load", "validate", "render",
           "counts", "flag_counts", "proof_labels"]

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
    "reduced": "the source's set-up on less data or fewer splits, as the page states",
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


def _breakable(text):
    """Dotted paths and test ids with a zero-width space after each ``.``, ``/``, ``::`` and
    ``_``, so a narrow column can wrap them."""
    for sep in ("::", ".", "/", "_"):
        text = text.replace(sep, sep + "\u200b")
    return text


def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def proof_labels(book_dir):
    """Labels of sphinx-proof directives (``{prf:algorithm}``, ``{prf:theorem}``...) in the
    chapters of ``book_dir``: they are linked with the ``prf:ref`` role, not ``ref``."""
    found = set()
    pat = re.compile(r"```\{prf:\w+\}[^\n]*\n(?::[^\n]*\n)*?:label: (\S+)")
    for md in Path(book_dir).glob("*.md"):
        found.update(pat.findall(md.read_text(encoding="utf-8")))
    return found


def render(rows, proof=frozenset()):
    """The MyST Markdown of the Reproductions page's tables (``proof``: the labels of
    sphinx-proof directives, see :func:`proof_labels`)."""
    c = counts(rows)
    statuses = list(STATUSES)
    out = ["| source | items | " + " | ".join(statuses) + " |",
           "|---|---|" + "---|" * len(statuses)]
    for s in SOURCES:
        out.append(f"| {s} | {sum(c[s].values())} | " + " | ".join(str(c[s][k]) for k in statuses) + " |")
    out.append("")
    out.append("What the statuses mean: " + "; ".join(f"*{k}*: {v}" for k, v in STATUSES.items()) + ".")
    for s, title in SOURCES.items():
        mine = sorted((r for r in rows if r["source"] == s), key=lambda r: _item_key(r["item"]))
        # a list-table with fixed relative widths: the long last column wraps inside the
        # text column instead of widening the table
        out += ["", f"## {s}: {title}", "",
                "```{list-table}", ":header-rows: 1", ":widths: 16 12 9 63", ":width: 100%", "",
                "* - item", "  - status", "  - where", "  - code, check and note"]
        for r in mine:
            role = "prf:ref" if r["label"] in proof else "ref"
            short = r["chapter"].split("_")[0]
            short = "App. A" if short == "appendix" else f"ch{short}"
            where = f"{{{role}}}`{short} <{r['label']}>`" if r["label"] else "–"
            how = [f"code {_breakable(r['function'])}" if r["function"] else "",
                   f"check {_breakable(r['check'])}" if r["check"] else "",
                   " ".join(_breakable(w) if len(w) > 30 else w for w in r["note"].split(" ")),
                   f"**{r['flag']}**" if r["flag"] else ""]
            out += [f"* - {s} {r['item']} ({r['kind']})", f"  - {r['status']}", f"  - {where}",
                    f"  - {_cell('; '.join(h for h in how if h)) or '–'}"]
        out.append("```")
    return "\n".join(out) + "\n"


MARKER = "<!-- reproductions table -->"


def _source_read(app, docname, source):
    if docname.endswith("reproductions") and MARKER in source[0]:
        book = Path(app.srcdir) / "book"
        source[0] = source[0].replace(MARKER, render(load(book / "reproductions.csv"), proof_labels(book)))


def setup(app):
    """Sphinx extension: fill the Reproductions page from the registry at build time."""
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
