"""The reproduction index (issue 26): ``book/reproductions.csv`` against the sources, the
captions and the chapters."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml

from kernelclf.book.reproductions import MARKER, SOURCES, load, render, validate

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SEEDS = ROOT.parent / "shared" / "seeds"
ROWS = load()
KEYS = {(r["source"], r["item"]) for r in ROWS}
CITE = re.compile(r"\b(LKC|BPM|TR|RMM|RM)\s+(Fig\.|Table|Alg\.)\s+([A-D]?\d+(?:\.\d+)?)")
#: the seed file of each source, and the numbered items it has (read off the seeds; the test
#: below re-reads them when the seeds are beside the checkout)
SEED_FILES = {"TR": "000_", "BPM": "001_", "RMM": "002_", "LKC": "003_", "RM": "004_"}
NUMBERED = {
    "TR": [f"Fig. {i}" for i in range(1, 11)] + ["Table 1", "Alg. 1"],
    "BPM": [f"Fig. {i}" for i in range(1, 13)] + ["Table 1", "Alg. 1", "Alg. 2"],
    "RMM": [f"Fig. {i}" for i in range(1, 11)] + [f"Table {i}" for i in range(1, 5)],
    "LKC": ([f"Fig. 1.{i}" for i in range(1, 7)] + [f"Fig. 2.{i}" for i in range(1, 9)]
            + [f"Fig. 3.{i}" for i in range(1, 9)] + [f"Fig. 4.{i}" for i in range(1, 9)]
            + ["Fig. 5.1", "Fig. 5.2"] + [f"Fig. A.{i}" for i in range(1, 6)]
            + [f"Fig. C.{i}" for i in range(1, 6)] + ["Table 2.1", "Table A.1", "Table A.2"]
            + [f"Alg. {i}" for i in range(1, 11)]),
    "RM": [f"Fig. 18.{i}" for i in range(1, 14)] + ["Table 18.1", "Alg. 18.1"],
}


def _chapters():
    return {p.stem: p.read_text(encoding="utf-8") for p in BOOK.glob("*.md")}


CHAPTERS = _chapters()


def _captions(text):
    """(name, caption) of every figure of a chapter: code-cell figure metadata and directives."""
    out = []
    for block in re.findall(r"```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", text, flags=re.S):
        meta = yaml.safe_load(block) or {}
        fig = (meta.get("mystnb") or {}).get("figure") or {}
        if fig.get("caption"):
            out.append((fig.get("name", ""), str(fig["caption"])))
    for m in re.finditer(r"```\{figure\}[^\n]*\n((?::[^\n]*\n)*)\n?(.*?)```", text, flags=re.S):
        name = re.search(r":name: (\S+)", m.group(1))
        out.append((name.group(1) if name else "", m.group(2)))
    return out


def test_registry_is_sound():
    assert validate(ROWS) == []


@pytest.mark.parametrize("source", sorted(NUMBERED))
def test_every_numbered_item_has_a_row(source):
    missing = [it for it in NUMBERED[source] if (source, it) not in KEYS]
    assert not missing, f"{source}: no registry row for {missing}"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source texts are not beside the checkout")
@pytest.mark.parametrize("source", sorted(SEED_FILES))
def test_numbered_items_match_the_seeds(source):
    (path,) = SEEDS.glob(SEED_FILES[source] + "*")
    text = path.read_text(encoding="utf-8")
    found = {f"Fig. {n}" for n in re.findall(r"^Figure ([A-D]?\d+(?:\.\d+)?)", text, flags=re.M)}
    found |= {f"Table {n}" for n in re.findall(r"^Table ([A-D]?\d+(?:\.\d+)?)", text, flags=re.M)}
    assert found <= set(NUMBERED[source]), sorted(found - set(NUMBERED[source]))


def test_labels_exist_in_their_chapters():
    bad = []
    for r in ROWS:
        if not r["label"]:
            continue
        text = CHAPTERS.get(r["chapter"])
        pat = re.compile(r"(name: |\(|:label: |label: )" + re.escape(r["label"]) + r"(\)=|\s|$)", re.M)
        if text is None or not pat.search(text):
            bad.append((r["source"], r["item"], r["chapter"], r["label"]))
    assert not bad, f"labels not found in their chapters: {bad}"


def test_cited_captions_have_rows_and_one_citation_form():
    unlisted, loose = [], []
    for stem, text in CHAPTERS.items():
        for name, cap in _captions(text):
            for src, kind, num in CITE.findall(cap):
                if (src, f"{kind} {num}") not in KEYS:
                    unlisted.append((stem, name, f"{src} {kind} {num}"))
            stripped = CITE.sub("", cap)
            if re.search(r"\b(Figs?\.|Figures?|Alg\.) ?\d", stripped):
                loose.append((stem, name, cap[:90]))
    assert not unlisted, f"captions cite items with no registry row: {unlisted}"
    assert not loose, f"captions cite a source item in another form than 'LKC Fig. 4.8': {loose}"


def test_reproduced_rows_name_an_existing_check():
    bad = []
    for r in ROWS:
        if r["status"] != "reproduced":
            continue
        path, _, name = r["check"].partition("::")
        f = ROOT / path
        if not f.is_file():
            bad.append((r["source"], r["item"], r["check"]))
        elif path.startswith("tests/") and name and f"def {name.split('[')[0]}(" not in f.read_text():
            bad.append((r["source"], r["item"], r["check"]))
    assert not bad, bad


def _resolves(fn):
    """A dotted path (module, then attributes) or ``book/<page>.md::name`` defined there."""
    if fn.startswith("book/"):
        path, _, name = fn.partition("::")
        f = ROOT / path
        return f.is_file() and (not name or re.search(rf"^def {re.escape(name)}\(", f.read_text(), re.M))
    parts = fn.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for a in parts[i:]:
                obj = getattr(obj, a)
        except AttributeError:
            return False
        return True
    return False


def test_functions_exist():
    bad = [(r["source"], r["item"], fn) for r in ROWS
           for fn in filter(None, (s.strip() for s in r["function"].split(";"))) if not _resolves(fn)]
    assert not bad, f"functions that do not exist: {bad}"


def test_page_is_generated_from_the_registry():
    page = (BOOK / "reproductions.md").read_text(encoding="utf-8")
    assert MARKER in page
    assert "book/reproductions" in (ROOT / "_toc.yml").read_text()
    md = render(ROWS)
    for s in SOURCES:
        assert f"## {s}:" in md
    assert md.count("\n* - ") >= len(ROWS)  # one list-table row per registry row


def test_the_page_prose_matches_the_rows():
    """book/reproductions.md: 'for a reproduced item, the [check] that compares our numbers
    with the source's'; 'an item that cannot be rebuilt here has no link, and its note says
    why'; the kinds are the numbered items, theorems and methods the prose names."""
    assert all(r["check"] for r in ROWS if r["status"] == "reproduced")
    for r in ROWS:
        if r["status"] == "not reproducible":
            assert not r["label"] and r["note"], (r["source"], r["item"])
        else:
            assert r["label"], (r["source"], r["item"])
    numbered = {(s, it) for s, items in NUMBERED.items() for it in items}
    for r in ROWS:
        if (r["source"], r["item"]) not in numbered:
            assert r["kind"] in ("theorem", "method"), (r["source"], r["item"], r["kind"])
