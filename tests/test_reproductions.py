"""The reproduction index (issue 26): ``book/reproductions.csv`` against the sources, the
captions and the chapters."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml

from kernelclf.book.reproductions import (
    COUNTS_MARKER,
    MARKER,
    SOURCES,
    load,
    render,
    render_counts,
    validate,
)

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


#: a number of a numbered item: chapter-numbered (2.7), plain (12) or appendix (A.2, C.13)
NUMBER = r"([A-D]\.\d+|\d+(?:\.\d+)?)"


def seed_items(text):
    """The numbered figures, tables and algorithm boxes of a seed text: lines that start with
    ``Figure``, ``Table`` or ``Algorithm`` and a number, also in bold (TR's ``**Figure 1:**``),
    with appendix numbers (``Figure A.2``) and the number on the next line (LKC's
    ``Figure`` / ``A.1``)."""
    found = set()
    for word, kind in (("Figure", "Fig."), ("Table", "Table"), ("Algorithm", "Alg.")):
        pat = r"^\**" + word + r"\s+" + NUMBER + r"(?=[\s:*)]|$)"
        found |= {f"{kind} {n}" for n in re.findall(pat, text, flags=re.M)}
    return found


def test_seed_items_reads_every_form():
    text = ("**Figure 1:** (a) bound\nFigure\nA.1\nGeometrical proof\nFigure C.13\n"
            "Table 2.1 some kernels\n**Algorithm 1** Pseudocode\nAlgorithm 18.1 : Flipper\n"
            "Algorithmic Stability Bounds\nFigure 3.3). The appealing feature\n")
    assert seed_items(text) == {"Fig. 1", "Fig. A.1", "Fig. C.13", "Table 2.1", "Alg. 1",
                                "Alg. 18.1", "Fig. 3.3"}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source texts are not beside the checkout")
@pytest.mark.parametrize("source", sorted(SEED_FILES))
def test_numbered_items_match_the_seeds(source):
    """The numbered items of each source, read off its text, are exactly :data:`NUMBERED`
    (so every one has a row, by the test above), and the registry names no other figure,
    table or algorithm box of that source."""
    (path,) = SEEDS.glob(SEED_FILES[source] + "*")
    found = seed_items(path.read_text(encoding="utf-8"))
    assert found == set(NUMBERED[source]), (sorted(found - set(NUMBERED[source])),
                                            sorted(set(NUMBERED[source]) - found))
    listed = {r["item"] for r in ROWS if r["source"] == source
              and r["item"].split(" ")[0] in ("Fig.", "Table", "Alg.")}
    assert listed == found, sorted(listed ^ found)


#: results of the sources that the chapters name but that have no row, and why: the registry
#: lists numbered figures, tables and algorithm boxes, the theorems whose bounds the chapters
#: evaluate, and the methods they implement (the page's introduction says so)
NOT_ROWS = {
    ("BPM", "Thm 8"): "optimality of the Bayes strategy, checked in ch06 on a noisy toy outside "
                      "its noise-free premise; not a bound",
    ("BPM", "Thm 11"): "named only (the centre of mass lies in the span of the inputs)",
    ("BPM", "Thm 12"): "named only (the centre of mass lies in the span of the inputs)",
    ("TR", "Lemma 4"): "named only (point symmetry and Bayes admissibility)",
    ("LKC", "Cor. A.51"): "named only",
    ("LKC", "Thm A.49"): "named only",
    ("LKC", "Thm A.79"): "a linear-algebra tool (Woodbury), checked numerically in App. A",
    ("LKC", "Thm A.80"): "a linear-algebra tool (partitioned inverse), checked numerically in App. A",
    ("LKC", "Thm A.87"): "a linear-algebra tool (Rayleigh quotient), checked numerically in App. A",
    ("LKC", "Thm A.88"): "a linear-algebra tool (generalised Rayleigh quotient), checked in App. A",
    ("LKC", "Lemma A.111"): "a step of the proof of Thm A.119 (erratum E25)",
    ("LKC", "Thm C.6"): "named only, as the theorem whose proof LKC Lemma C.7 and Fig. C.3 serve",
    ("LKC", "Thm 2.20"): "kernel closure properties, a tool (tests/test_kernels.py)",
    ("LKC", "Thm 2.29"): "the representer theorem, a tool",
    ("LKC", "Thm 2.36"): "unbiasedness of the leave-one-out error, a tool of ch05",
    ("LKC", "Example 2.16"): "the finite-input Mercer construction, worked through in ch02",
    ("LKC", "Example 2.22"): "the explicit polynomial feature map, worked through in ch02",
    ("LKC", "Example 2.28"): "the Fisher kernel, discussed in ch02b",
    ("LKC", "Example 3.5"): "a conjugate prior, worked through in ch06",
    ("LKC", "Example 3.11"): "shown with LKC Fig. 3.2 (multi-modal evidence)",
    ("LKC", "Example 3.12"): "the ARD kernel, shown with LKC Fig. 3.3",
    ("LKC", "Example 4.2"): "shown with LKC Fig. 4.1",
    ("LKC", "Example 5.11"): "shown with LKC Fig. 5.1",
    ("LKC", "Example 5.16"): "the SVM as a compression scheme, evaluated with LKC Thm 5.17",
    ("LKC", "Example 5.30"): "the SVR's loss constant, evaluated with LKC Example 5.33",
    ("LKC", "Remark 2.25"): "the ridge problem, shown with LKC Fig. 2.5",
    ("LKC", "Remark 2.39"): "which points get coefficients, checked with LKC Eq. 2.56 (the LOOM)",
    ("LKC", "Remark 4.33"): "shown with LKC Fig. 4.8 (erratum E23)",
    ("LKC", "Lemma C.1"): "its main step is drawn and checked with LKC Fig. C.1",
}
RESULT = re.compile(r"\b(?:(LKC|BPM|TR|RMM|RM)\s+)?(Theorems?|Thm|Lemmas?|Corollary|Cor\.|Remark|"
                    r"Examples?)\s+(" + NUMBER + r"(?:(?:,\s*|\s+and\s+|–)" + NUMBER + r")*)")
KIND_WORD = {"Theorem": "Thm", "Theorems": "Thm", "Thm": "Thm", "Lemma": "Lemma", "Lemmas": "Lemma",
             "Corollary": "Cor.", "Cor.": "Cor.", "Remark": "Remark", "Example": "Example",
             "Examples": "Example"}


def named_results(text):
    """``{(source, item)}`` of the theorems, lemmas, corollaries, remarks and examples a page
    names with their source (``LKC Example 4.13``, ``BPM Lemmas 13 and 14``) or by an appendix
    number, which only LKC has (``Theorem C.13``, ``Lemma C.20``); code cells are not read."""
    prose = re.sub(r"```\{code-cell\}[^\n]*\n(---\n.*?\n---\n)?.*?```",
                   lambda m: m.group(1) or "", text, flags=re.S)  # captions stay, code goes
    found = set()
    for m in RESULT.finditer(prose):
        src, kind, nums = m.group(1), m.group(2), m.group(3)
        for n in re.findall(NUMBER, nums):
            if src or re.match(r"[A-D]\.", n):
                found.add((src or "LKC", f"{KIND_WORD[kind]} {n}"))
    return found


def test_named_results_reads_appendix_numbers_and_lists():
    text = ("Theorem C.13 shows; Bollmann's Lemma C.20; LKC Examples 4.21 and 4.22; "
            "(BPM Thm 11–12); Theorem 5.10 alone\n```{code-cell} ipython3\n---\nmystnb:\n"
            "  figure:\n    caption: TR Lemma 3\n---\n# LKC Remark 9.9\n```")
    assert named_results(text) == {("LKC", "Thm C.13"), ("LKC", "Lemma C.20"),
                                   ("LKC", "Example 4.21"), ("LKC", "Example 4.22"),
                                   ("BPM", "Thm 11"), ("BPM", "Thm 12"), ("TR", "Lemma 3")}


def test_results_the_chapters_name_have_rows():
    """Every result a chapter names with its source or an appendix number has a row, or is in
    :data:`NOT_ROWS` with the reason; and every entry of :data:`NOT_ROWS` is still named."""
    named = set()
    for stem, text in CHAPTERS.items():
        if not (stem.startswith("api_") or stem in ("reproductions", "references")):
            named |= named_results(text)
    missing = sorted(named - KEYS - set(NOT_ROWS))
    assert not missing, f"named in the chapters, with no row and no reason: {missing}"
    assert not set(NOT_ROWS) & KEYS, "a result with a row needs no entry in NOT_ROWS"
    assert set(NOT_ROWS) <= named, sorted(set(NOT_ROWS) - named)


#: the corrections of the registry's check (issue 40): status, and whether the row is flagged
CORRECTED = {
    # bounds evaluated on our own samples, the sources print no numbers for them
    ("LKC", "Thm 2.31"): "analogue", ("LKC", "Thm 5.23"): "analogue",
    ("LKC", "Example 5.24"): "analogue", ("LKC", "Example 5.25"): "analogue",
    ("RM", "Eq. 18.13"): "analogue", ("RM", "Lemma 18.1"): "analogue",
    ("TR", "Lemma 3"): "analogue", ("RMM", "Table 1"): "analogue",
    # the source's setting and its statements checked; diagrams are drawn
    ("TR", "Fig. 2"): "reproduced", ("LKC", "Fig. 3.3"): "reproduced",
    ("BPM", "Lemma 13"): "reproduced", ("LKC", "Fig. 3.7"): "drawn", ("BPM", "Fig. 2"): "drawn",
    ("BPM", "Fig. 3"): "drawn", ("RMM", "Fig. 2"): "drawn",
    # proof diagrams, drawn (C.2 and C.3 with their swappings enumerated)
    ("LKC", "Fig. C.1"): "drawn", ("LKC", "Fig. C.2"): "drawn", ("LKC", "Fig. C.3"): "drawn",
    ("LKC", "Fig. A.1"): "drawn", ("LKC", "Fig. 2.8"): "drawn", ("BPM", "Fig. 5"): "drawn",
    ("TR", "Fig. 3"): "drawn",
    # evaluated in the chapters, rows added
    ("LKC", "Thm C.13"): "analogue", ("LKC", "Lemma C.20"): "analogue",
    ("LKC", "Remark 4.11"): "reproduced", ("LKC", "Example 4.13"): "analogue",
    ("LKC", "Example 4.21"): "analogue", ("LKC", "Example 4.22"): "analogue",
    ("TR", "Sec. 4.3"): "analogue",
}
FLAGGED = {("TR", "Fig. 1"): "disagrees", ("LKC", "Fig. 3.6"): "disagrees",
           ("LKC", "Remark 4.11"): "disagrees", ("LKC", "Fig. 4.8"): "disagrees",
           ("BPM", "Fig. 5"): "disagrees",
           ("TR", "Fig. 3"): "disagrees", ("LKC", "Fig. 2.3"): "disagrees"}


def test_corrected_statuses_and_flags():
    row = {(r["source"], r["item"]): r for r in ROWS}
    wrong = {k: row[k]["status"] for k, v in CORRECTED.items() if row[k]["status"] != v}
    assert not wrong, wrong
    assert all(row[k]["flag"].startswith(v + ":") for k, v in FLAGGED.items())
    # the notes say what the check found
    assert "1.558" in row["TR", "Fig. 1"]["flag"] and "70 %" in row["TR", "Fig. 1"]["flag"]
    assert "a = 1e-5 b = 1e4" in row["LKC", "Fig. 3.6"]["flag"]
    assert "2/3-MNIST and Full-MNIST" in row["RMM", "Table 2"]["note"]
    assert "all it has" not in row["BPM", "Table 1"]["note"]
    assert "60:40" in row["BPM", "Table 1"]["note"]
    # E23: the registry's numbers are the code's (eq. 4.29 with its ceiling), not 34 820
    from kernelclf.bounds.margin import nontrivial_sample_size

    caption, bare = nontrivial_sample_size(1.0), nontrivial_sample_size(1.0, keep_ld_m=False)
    for k in ("note", "flag"):
        text = row["LKC", "Fig. 4.8"][k]
        assert f"{caption // 1000} {caption % 1000:03d}" in text and "34 820" not in text
        assert f"{bare // 1000} {bare % 1000:03d}" in text and "34 816" in text
    # LKC Fig. 4.1: the plug-in risk the row quotes is the one chapter 14 asserts
    ch14 = CHAPTERS["14_vc_theory_and_srm"]
    (risk,) = re.findall(r'says\(plugin_risk\(th1, th2\), "([\d.]+)"\)', ch14)
    for k in ("check", "flag"):
        assert risk in row["LKC", "Fig. 4.1"][k] and "0.489" not in row["LKC", "Fig. 4.1"][k]
    # BPM Fig. 5 / TR Fig. 3: the shapes drawn are not those of the papers' equation
    for k in (("BPM", "Fig. 5"), ("TR", "Fig. 3")):
        assert "1/sqrt(sigma_j + lambda)" in row[k]["flag"] and "cigar" in row[k]["flag"]


def test_bounds_the_sources_print_no_numbers_for_are_not_reproduced():
    """A theorem evaluated on our own samples, for which the source prints no numbers, is an
    analogue by the registry's own definition (issue 40)."""
    bad = [(r["source"], r["item"]) for r in ROWS
           if r["kind"] in ("theorem", "table") and "prints no numbers" in r["note"]
           and r["status"] != "analogue"]
    assert not bad, bad


def test_flags_are_sound():
    from kernelclf.book.reproductions import FLAGS, flag_counts

    flagged = [r for r in ROWS if r["flag"]]
    assert all(r["flag"].partition(":")[0] in FLAGS for r in flagged)
    assert sum(sum(c.values()) for c in flag_counts(ROWS).values()) == len(flagged)
    # a flag is a finding of a check: a flagged row names its check
    assert all(r["check"] for r in flagged), [(r["source"], r["item"]) for r in flagged if not r["check"]]
    bad = validate([dict(ROWS[0], flag="differs: x"), dict(ROWS[0], item="x", flag="stale:")])
    assert len(bad) == 2


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


_ITEM = r"(?:LKC|BPM|TR|RMM|RM)\s+(?:Fig\.|Table|Alg\.)\s+[A-D]?\d+(?:\.\d+)?(?:\s*\([^()]*\))?"
_LIST = _ITEM + r"(?:(?:,\s*|\s+and\s+)" + _ITEM + r")*"
#: what a caption says of the items it names: "an analogue of LKC Fig. 3.7", "BPM Fig. 10
#: reproduced", "LKC Fig. 3.7 (...) and BPM Fig. 3 (...) drawn"
STATUS_PHRASES = [(re.compile(r"analogue of\s+(" + _LIST + ")"), "analogue"),
                  (re.compile("(" + _LIST + r")\s+reproduced"), "reproduced"),
                  (re.compile("(" + _LIST + r")\s+drawn"), "drawn")]


def caption_statuses(caption):
    """``{(source, item): status}`` for the items a caption calls an analogue, reproduced or
    drawn."""
    cap = " ".join(caption.split())
    out = {}
    for pat, status in STATUS_PHRASES:
        for m in pat.finditer(cap):
            for src, kind, num in CITE.findall(re.sub(r"\([^()]*\)", "", m.group(1))):
                out[src, f"{kind} {num}"] = status
    return out


def test_caption_statuses_reads_lists_and_asides():
    assert caption_statuses("An analogue of LKC Fig. 3.7 (left: x) and BPM Fig. 3; TR Fig. 7 "
                            "draws") == {("LKC", "Fig. 3.7"): "analogue", ("BPM", "Fig. 3"): "analogue"}
    assert caption_statuses("BPM Fig. 5 and TR Fig. 3 drawn: ... BPM Fig. 10\n reproduced") == {
        ("BPM", "Fig. 5"): "drawn", ("TR", "Fig. 3"): "drawn", ("BPM", "Fig. 10"): "reproduced"}


def test_captions_agree_with_the_statuses_of_their_rows():
    """A figure that a row links to does not call that row's item something else than its
    status (e.g. 'an analogue of' an item the registry calls drawn)."""
    caps = {name: cap for text in CHAPTERS.values() for name, cap in _captions(text)}
    bad = []
    for r in ROWS:
        said = caption_statuses(caps.get(r["label"], "")).get((r["source"], r["item"]))
        if said and said != r["status"]:
            bad.append((r["source"], r["item"], r["label"], r["status"], said))
    assert not bad, bad


def test_rows_name_existing_checks():
    from kernelclf.book.reproductions import checks

    bad = []
    for r in ROWS:
        for c in checks(r):
            path, _, name = c.partition("::")
            f = ROOT / path
            if not f.is_file():
                bad.append((r["source"], r["item"], c))
            elif path.startswith("tests/") and name and f"def {name.split('[')[0]}(" not in f.read_text():
                bad.append((r["source"], r["item"], c))
    assert all(checks(r) for r in ROWS if r["status"] == "reproduced")
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
    assert MARKER in page and COUNTS_MARKER in page
    assert "book/reproductions" in (ROOT / "_toc.yml").read_text()
    md = render(ROWS)
    for s in SOURCES:
        assert f"## {s}:" in md
    assert md.count("\n* - ") == len(ROWS) + len(SOURCES)  # a header and one row per registry row


def test_page_for_a_reader():
    """Issue 40: a count table at the top, a marker for every status and flag, links named
    with the chapter's own figure (or exercise) number or the section's heading, the code
    and check collapsed, and names of files, tests and modules unbroken."""
    from collections import Counter

    from kernelclf.book.reproductions import FLAGS, MARKERS, STATUSES, checks, page_targets

    page = (BOOK / "reproductions.md").read_text(encoding="utf-8")
    assert page.index(COUNTS_MARKER) < page.index(MARKER)
    assert page.index(COUNTS_MARKER) < 1200  # the counts come first, after a short paragraph
    head = render_counts(ROWS)
    lines = head.splitlines()
    assert lines[0] == "| | " + " | ".join(SOURCES) + " | all |"
    table = {line.split("|")[1].strip(): [int(x) for x in line.strip("|").split("|")[1:]]
             for line in lines[2:] if line.startswith("| ")}
    for name in list(STATUSES) + list(FLAGS):
        role, mark = MARKERS[name]
        badge = f"{{{role}}}`{mark} {name}`"
        want = [sum(1 for r in ROWS if r["source"] == s and (r["status"] == name
                    or r["flag"].partition(":")[0] == name)) for s in SOURCES]
        assert table[badge] == want + [sum(want)], name
        assert f"- {badge} " in head  # the legend
    assert table["items"] == [sum(r["source"] == s for r in ROWS) for s in SOURCES] + [len(ROWS)]
    body = render(ROWS)
    flagged = Counter(r["flag"].partition(":")[0] for r in ROWS if r["flag"])
    assert body.count("{bdg-") == len(ROWS) + sum(flagged.values())  # one per status and flag
    assert "\u200b" not in body + head  # no zero-width spaces inside identifiers
    targets = page_targets(BOOK)
    for r in ROWS:
        if not r["label"]:
            continue
        kind = targets[r["label"]][0]
        link = {"figure": f"Fig. %s <{r['label']}>`", "exercise": f"Exercise %s <{r['label']}>`",
                "proof": f"{{prf:ref}}`{r['label']}`"}.get(kind, f"<{r['label']}>`")
        assert link in body, (r["source"], r["item"], kind)
        if kind in ("section", "paragraph"):
            assert re.search(r"\{ref\}`ch\w+ § [^`<]+ <" + re.escape(r["label"]) + ">`", body) \
                or re.search(r"\{ref\}`App\. A § [^`<]+ <" + re.escape(r["label"]) + ">`", body)
    # the code and the checks sit in a collapsed block; every test id is shown whole, as code
    assert body.count("<details") == sum(1 for r in ROWS if r["function"] or r["check"])
    for r in ROWS:
        for c in checks(r):
            if c.startswith("tests/"):
                assert f"<code>{c}</code>" in body
    # long names in notes are code spans, which the page's style never breaks
    css = (ROOT / "_static" / "kernelclf.css").read_text()
    assert "table.kernelclf-repro code" in css and "white-space: nowrap" in css
    for r in ROWS:
        for w in r["note"].split():
            if "::" in w or w.rstrip(";,)").endswith((".py", ".jsonl")):
                assert f"`{w.rstrip(';,)')}`" in body


def test_page_targets_kinds():
    from kernelclf.book.reproductions import page_targets

    t = page_targets(BOOK)
    assert t["fig-ch04-normalisation"] == ("figure", "")
    assert t["ch03-alg-primal"][0] == "proof"
    assert t["ch17-ex-2"][0] == "exercise"
    assert t["ch13-table2-full"] == ("paragraph", "Table 2, USPS in full")
    assert t["ch17-rmm-table1"] == ("section", "RMM Table 1")


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
