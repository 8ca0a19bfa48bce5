"""Typed numbers of the book's pages: each one computed, quoted, a parameter or structural.

Book chapter 00 (``book/00_preface.md``): how the book is checked (``make numbers``). No
source formula: this is the book's checking tool.

Every number token typed in a notebook page's prose (Markdown cells, directive titles and
bodies, Markdown tables, figure captions and alt texts in code-cell metadata) falls in one
class:

``computed``
    equal, as typed, to the ``TEXT`` of a ``says(value, "TEXT")`` call in a code cell of
    the page (:func:`kernelclf.book.claims.says`), or produced by a ``{glue}`` role;
``quoted``
    written as ``{quoted}`NUMBER <SOURCE place>``` with SOURCE one of :data:`SOURCES`;
    with the seed texts at hand the number must occur in that source's text;
``parameter``
    the same numeric value is a literal in a *setting* position of a *visible* code cell
    (not tagged ``remove-cell``/``remove-input``): a call argument (``RBF(0.5)``,
    ``C=10``), an assignment's right-hand side (``m = 300``, ``Cs = [0.1, 1, 10]``), a
    ``for`` iterable, a ``def`` default; not a subscript, an operand of arithmetic, a
    comparison, nor inside a ``says(...)`` call or an ``assert``
    (:func:`_setting_literals`). Some typed numbers cannot be parameters
    (:func:`_not_a_parameter`): see below;
``structural``
    a number that names a place: directly after a reference word (``Table``, ``eq.``,
    ``§``, ``Lemmas`` ...), with the list or range that starts right after it; a heading's
    own number or a list marker; a year in a citation; a number glued to letters
    (``L1``, ``MNIST-5k``, ``x_1``); a digit in math that is not a typed value;
``unclassified``
    anything else: the page must close it (add a ``says`` check, quote it, let the code
    set it, or rewrite the sentence).

A measured or claimed number is never a parameter, even when the code sets the same value
(:func:`_not_a_parameter`): the N of "N of M" ("20 of the 100 basis functions": N must be
computed, M may be a parameter); a number right after a comparative or approximating word
("fewer than", "at most", "about", "only", "over", "≈", "~" ...); a number with ``%`` or
``×``, and a decimal in a sentence on an error, accuracy, risk, rate or time -- these two
stay parameters only when the very string typed (``0.1``, not ``0.10``; ``10 %`` is not
``0.1``) is a setting literal and no measured word ("error", "s", "faster" ...) follows.

Inside math (``$...$``, ``$$...$$``, ``{math}``) a number is typed only when it has a
decimal point, follows a relation (``=``, ``\\approx``, ``<``, ``\\le`` ...; not as an
index ``\\sum_{i=1}``, not as the coefficient of a formula ``= 2\\pi``), continues a list
of typed numbers after a relation, or is the whole formula (``$10^{-3}$``). Word numbers
are read only in "N of M" phrases ("two of five seeds").

Command line: ``python -m kernelclf.book.typed_numbers [PAGE ...] [--all]`` prints the
per-page counts and every unclassified token as ``page:line: token ... context``; it
exits with status 1 when a token is unclassified. Without pages it reads every
notebook page of ``book/``.
"""
from __future__ import annotations

import argparse
import ast
import math
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["SOURCES", "CLASSES", "Token", "classify_page", "classify_text", "counts",
           "format_counts", "format_tokens", "number_key", "notebook_pages", "seed_keys",
           "main"]

#: the sources a ``{quoted}`` number may come from, and the prefix of their seed text
SOURCES = {"LKC": "003_", "BPM": "001_", "TR": "000_", "RM": "004_", "RMM": "002_"}
CLASSES = ("computed", "quoted", "parameter", "structural", "unclassified")

MINUS = "\u2212"
_SUPER = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a",
                       "0123456789-+")
_SUPERS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_SPACES = " \u00a0\u2009\u202f"
_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
               "eighty": 80, "ninety": 90, "hundred": 100})


@dataclass
class Token:
    """One typed number of a page and its class."""
    page: str
    line: int
    text: str
    cls: str
    reason: str = ""
    context: str = ""
    where: str = "prose"      # prose, math, quoted, glue, caption, alt
    key: str | None = field(default=None, repr=False)

    def __str__(self):
        return f"{self.page}:{self.line}: {self.text} \u2026 {self.context}"


# ----------------------------------------------------------------------------- numbers

_EXP_PROSE = (r"[eE][-+\u2212]?\d+(?![\w.])"
              r"|[ \u00a0\u2009\u202f]?[\u00d7x\u00b7][ \u00a0\u2009\u202f]?10"
              r"(?:\^\{?[-+\u2212]?\d+\}?|[\u207b\u207a]?[" + _SUPERS + r"]+)")
_PROSE_NUM = re.compile(
    r"(?P<sign>[-+\u2212])?"
    r"(?P<int>\d{1,3}(?:(?:[ \u00a0\u2009\u202f]|,)\d{3})+(?!\d)|\d+)"
    r"(?P<frac>(?:\.\d+)+)?"
    r"(?P<exp>" + _EXP_PROSE + r"|(?<=(?<![\d.])10)(?:\^\{?[-+\u2212]?\d+\}?"
    r"|[\u207b\u207a]?[" + _SUPERS + r"]+))?"
    r"(?P<unit>[ \u00a0\u2009\u202f]?%|[ \u00a0\u2009\u202f]?\u00d7(?![ \u00a0\u2009\u202f]?\d)"
    r"|x(?![A-Za-z0-9]))?")

_MATH_EXP = (r"\s*(?:\\times|\\cdot|\u00d7|\u00b7)\s*10\s*\^\s*(?:\{\s*[-+\u2212]?\s*\d+\s*\}|\d)"
             r"|(?<=(?<![\d.])10)\s*\^\s*(?:\{\s*[-+\u2212]?\s*\d+\s*\}|\d)")
_MATH_NUM = re.compile(
    r"(?P<int>\d{1,3}(?:(?:\{,\}|\\[,;:]|~|\\ )\d{3})+(?!\d)|\d+)"
    r"(?P<frac>\.\d+)?"
    r"(?P<exp>" + _MATH_EXP + r")?"
    r"(?P<unit>\s*(?:\\[,;:!]\s*)?\\%)?")


def _exp_value(exp):
    """The exponent of ``e-3``, ``×10⁻³``, ``·10⁴``, ``\\times 10^{-3}``, ``^{-3}`` (int)."""
    if not exp:
        return 0
    t = exp.translate(_SUPER).replace(MINUS, "-")
    m = re.match(r"\s*[eE]([-+]?\d+)", t)
    if m:
        return int(m.group(1))
    if re.search(r"[\u00d7x\u00b7]|\\times|\\cdot", t):
        t = t[re.search(r"10", t).end():]      # the exponent after "× 10"
    m = re.search(r"([-+]?)\s*(\d+)", t.replace("{", " ").replace("^", " "))
    return int(m.group(1) + m.group(2))


def _canonical(sign, whole, frac, exp, bare_power):
    """Canonical key: sign, digits as typed (no grouping), exponent; e.g. ``2.4e-3``."""
    whole = re.sub(r"[^\d]", "", whole)
    if bare_power:                      # 10^{-3} == 1e-3
        whole, frac = "1", ""
    mant = whole + (frac or "")
    e = _exp_value(exp) if exp else 0
    key = ("-" if sign else "") + mant + (f"e{e}" if e else "")
    return key


def _is_bare_power(m):
    exp = m.group("exp")
    return bool(exp) and m.group("int") == "10" and not m.group("frac") and not re.match(
        r"\s*(?:[eE]|[\u00d7x\u00b7]|\\times|\\cdot)|[ \u00a0\u2009\u202f][\u00d7x\u00b7]", exp)


def number_key(text):
    """The canonical key of a typed number (as in a ``says`` TEXT), or ``None``.

    Digit grouping (spaces, thin spaces, commas), the Unicode minus, a ``%``/``×``/``x``
    unit and the exponent spelling (``1e-3``, ``10^{-3}``, ``10⁻³``, ``1 × 10⁻³``) are
    normalised; the digits typed are kept (``"0.10"`` and ``"0.1"`` differ).
    """
    text = str(text).strip()
    low = text.lower()
    if low in _WORDS:
        return str(_WORDS[low])
    text = text.replace("$", "").strip()
    m = _PROSE_NUM.fullmatch(text)
    if m is None:
        m = _MATH_NUM.fullmatch(text.lstrip("-+\u2212"))
        if m is None:
            return None
        neg = text[:1] in "-\u2212"
        return _canonical(neg, m.group("int"), m.group("frac"), m.group("exp"), _is_bare_power(m))
    sign = m.group("sign") in ("-", MINUS)
    return _canonical(sign, m.group("int"), m.group("frac"), m.group("exp"), _is_bare_power(m))


def _key_value(key):
    if key is None:
        return None
    try:
        return float(key)
    except ValueError:
        return None


# ----------------------------------------------------------------------------- code cells

_SAYS_NAMES = {"says"}


def _code_tree(source):
    lines = []
    for line in source.splitlines():
        s = line.lstrip()
        lines.append("" if s.startswith(("%", "!")) else line)
    text = "\n".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):      # the literal as the code spells it
        if isinstance(node, ast.Constant):
            node.kernelclf_text = ast.get_source_segment(text, node)
    return tree


def _is_says(node):
    f = node.func
    return (isinstance(f, ast.Name) and f.id in _SAYS_NAMES) or (
        isinstance(f, ast.Attribute) and f.attr in _SAYS_NAMES)


def code_facts(source, visible):
    """``(says_keys, setting_keys)`` of one code cell.

    ``says_keys``: canonical keys of the TEXT of every ``says(value, "TEXT")`` call.
    ``setting_keys``: the keys (:func:`number_key` of the literal as the code spells it,
    ``-1`` with its sign) of the numeric literals a *visible* cell puts in a setting
    position (:func:`_setting_literals`), outside ``says`` calls and ``assert`` statements.
    A cell that does not parse once its IPython magics are blanked gives no settings.
    """
    tree = _code_tree(source)
    says_keys, settings = set(), set()
    if tree is None:
        return says_keys, settings
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_says(node):
            text = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "text"), None)
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                key = number_key(text.value)
                if key is not None:
                    says_keys.add(key)
    if visible:
        settings = _setting_literals(tree)
    return says_keys, settings


def _setting_literals(tree):
    """Keys of the numeric literals in a *setting* position of a parsed cell.

    Setting positions: a call's positional argument (``RBF(0.5)``, ``range(5)``,
    ``np.linspace(-10, 10, 200)``) or keyword value (``C=10``); the right-hand side of an
    assignment (``m = 300``, ``Cs = [0.1, 1, 10]``); the iterable of a ``for`` loop or a
    comprehension (``for C in (0.1, 1, 10)``); a default of a ``def`` or ``lambda``. The
    literal itself stands there, alone or in a tuple, list, set or dict of literals, or as
    a branch of a conditional expression (``(50, 200) if fast else (200, 800)``; a unary
    minus or plus included). Not: subscripts and slices (``x[0]``, ``a[:, 1]``),
    operands of arithmetic (``x ** 2``, ``2 * np.pi``), comparisons, strings and format
    specs, anything inside a ``says(...)`` call or an ``assert``.
    """
    keys = set()

    def literal(node):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for e in node.elts:
                literal(e)
        elif isinstance(node, ast.Dict):
            for k in node.keys:
                if k is not None:
                    literal(k)
            for v in node.values:
                literal(v)
        elif isinstance(node, ast.Starred):
            literal(node.value)
        elif isinstance(node, ast.IfExp):       # a setting chosen by a condition
            literal(node.body)
            literal(node.orelse)
        elif isinstance(node, ast.Constant) and _numeric(node.value):
            keys.add(_literal_key(node, ""))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
                isinstance(node.operand, ast.Constant) and _numeric(node.operand.value):
            keys.add(_literal_key(node.operand, "-" if isinstance(node.op, ast.USub) else ""))

    def visit(node):
        if isinstance(node, ast.Assert) or (isinstance(node, ast.Call) and _is_says(node)):
            return
        if isinstance(node, ast.Call):
            for a in node.args:
                literal(a)
            for k in node.keywords:
                literal(k.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            if node.value is not None:
                literal(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            literal(node.iter)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                literal(d)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    keys.discard(None)
    return keys


def _literal_key(node, sign):
    """The key of a numeric literal as the code spells it (``1e-3``, ``10_000``, ``0.10``)."""
    text = getattr(node, "kernelclf_text", None) or repr(node.value)
    key = number_key(text.replace("_", ""))
    if key is None:
        key = number_key(repr(float(node.value)))
    return sign + key


def _numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# ----------------------------------------------------------------------------- reading a page

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:.-]+)\}\s*(?P<arg>.*)$")
#: directives whose whole block is not prose
_SKIP_DIRECTIVES = {"code", "code-block", "sourcecode", "literalinclude", "raw", "eval-rst",
                    "bibliography", "tableofcontents", "nb-exec-table", "glue:any", "glue",
                    "glue:text", "glue:math", "glue:md", "code-cell", "raw-cell", "iframe",
                    "mermaid", "graphviz", "include", "toctree", "autoclass", "autofunction",
                    "automodule", "autosummary", "csv-table"}
#: directives whose argument is a target or a file, not a title
_TARGET_ARG = {"figure", "image", "solution", "solution-start", "solution-end", "exercise-end",
               "glue:figure", "math", "only", "card"}
_MATH_DIRECTIVES = {"math"}
_READ_OPTIONS = {"alt"}

#: roles whose body is a target (an explicit ``text <target>`` title is read)
_TARGET_ROLES = re.compile(r"^(ref|numref|doc|eq|prf:ref|any|download|term|py:\w+|std:\w+|"
                           r"external.*|label|envvar|token|keyword|option|mod|func|class|"
                           r"meth|attr|data|exc|obj)$")
_SKIP_ROLES = re.compile(r"^(cite.*|footcite.*|code|kbd|samp|file|command|program|"
                         r"raw-.*|glue.*|bibliography|regexp|mailheader|mimetype|dfn)$")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>\s*$", re.S)

_REF_WORDS = (r"§§?|¶|eqs?\.|equations?|figs?\.?|figures?|tables?|thms?\.?|theorems?|lemmas?|"
              r"lemmata|cors?\.|corollar(?:y|ies)|defs?\.|definitions?|"
              r"exercises?|remarks?|algorithms?|algs?\.|chapters?|chs?\.?|sections?|secs?\.|"
              r"p\.|pp\.|pages?|app\.|appendix|appendices|props?\.|propositions?|lines?|"
              r"footnotes?|parts?|propert(?:y|ies)|assumptions?|items?|rows?|columns?|"
              r"panels?")
#: words that are also common nouns ("training examples 300", "a grid of step 1024"): a
#: place only when capitalised ("Example 2.16", "Step 5") or before a dotted number
_REF_CAPITALISED = r"Ex\.|Exs\.|Examples?|Steps?|Problems?"
_REF_GAP = r"[ \u00a0\u2009\u202f~]*"
_REF_BEFORE = re.compile(r"(?:(?<=[^\w])|^)(?:(?i:" + _REF_WORDS + r")" + _REF_GAP +
                         r"|(?:" + _REF_CAPITALISED + r")" + _REF_GAP +
                         r"|(?i:eqs?\.|equations?)" + _REF_GAP + r"\(\s*)(?:[A-Z]\.)?$")
_REF_BEFORE_DOTTED = re.compile(r"(?:(?<=[^\w])|^)(?i:exs?\.|examples?|steps?|problems?)" +
                                _REF_GAP + r"(?:[A-Z]\.)?$")
_LIST_SEP = re.compile(r"^[a-z]?\)?\s*(?:,\s*(?:and\s+|or\s+)?|[\u2013\u2014\u2212/-]\s*|"
                       r"\s+(?:and|or|to|through|&)\s+|\s*[\u2013\u2014]\s*)\(?(?:[A-Z]\.)?$")
_YEAR_NAME = re.compile(r"(?:[A-Z\u00c0-\u017f][\w'\u2019\u00c0-\u017f-]*|et al\.|al\.)"
                        r",?[ \u00a0]+$")
_YEAR_STOP = {"In", "On", "At", "By", "From", "Since", "Until", "Before", "After", "The",
              "A", "An", "And", "Or", "For", "Of", "To", "With", "Around", "About", "Circa",
              "Between", "Over", "Under", "Only", "All", "Some", "Each", "Every", "Our",
              "Its", "Their", "These", "Those", "This", "That", "Table", "Figure", "Chapter",
              "Section", "Page", "Fig", "Eq", "Step", "Lemma", "Theorem", "Exercise", "Part",
              # a date is not a citation
              "January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"}
_UNIT_AFTER = re.compile(r"^(?:ms|\u00b5s|us|ns|s|min|h|px|pt|em|k|K|M|kB|KB|MB|GB|GiB|MiB|"
                         r"B|Hz|kHz|dB)(?![A-Za-z])")

_RELATION = (r"(?:=|\\approx|<|>|\\leq?(?![a-z])|\\geq?(?![a-z])|\\neq?(?![a-z])|\\lt|\\gt|"
             r"\\leqslant|\\geqslant|\u2248|\u2264|\u2265|\u2260)")
_AFTER_RELATION = re.compile(_RELATION + r"(?:\s|\\[,;:! ]|\{)*(?:(?:[-+\u2212]|\\pm|\\mp)"
                             r"(?:\s|\{)*)?$")
_LIST_CONT = re.compile(r"^\s*,\s*(?:\\[,;:!]\s*)?(?:[-+\u2212]|\\pm|\\mp)?\s*$")
_FORMULA_NEXT = re.compile(r"^\s*(?:[/*(\[_^'|!]|\\(?!(?:,|;|:|!| |quad|qquad|text\b|"
                           r"mathrm\b|%|[lc]?dots|ldots|;|}|\)))[A-Za-z]|[A-Za-z]|"
                           r"[-+\u2212]\s*(?![\d.]))")
_INDEX_RANGE = re.compile(r"^\s*,\s*\\[lc]?dots|^\s*,\s*\\ldots|^\s*,\s*\.\.\.")


def _line_starts(text):
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Cell:
    """The reading of one Markdown text (a cell, a caption): what is prose, math, quoted."""

    def __init__(self, text):
        self.text = text
        self.kind = bytearray(b"p" * len(text))   # p prose, s skip, m math
        self.math = []       # (start, end) of math content
        self.quoted = []     # (start, end, number_text, location)
        self.glue = []       # offsets of glue roles
        self.markers = []    # (start, end, reason) of structural markup numbers

    def skip(self, a, b):
        self.kind[a:b] = b"s" * (b - a)

    def view(self):
        """The text with skipped, math and quoted characters blanked (newlines kept)."""
        return "".join(c if k == ord("p") or c == "\n" else " "
                       for c, k in zip(self.text, self.kind))


def _read_markdown(text):
    cell = _Cell(text)
    lines = text.split("\n")
    starts = []
    pos = 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    _scan_blocks(cell, lines, starts, 0, len(lines))
    _scan_inline(cell)
    return cell


def _options_end(cell, lines, starts, i, end):
    """Mask directive options (``:key: value`` lines or a ``---`` YAML block) from line
    ``i``; an ``alt`` value stays prose. Returns the first body line."""
    if i < end and lines[i].strip() == "---":
        j = i + 1
        while j < end and lines[j].strip() != "---":
            j += 1
        for k in range(i, min(j + 1, end)):
            _mask_option(cell, lines[k], starts[k], r"^\s*([\w-]+):\s*")
        return min(j + 1, end)
    while i < end:
        m = re.match(r"^\s*:([\w-]+):\s*", lines[i])
        if not m:
            break
        _mask_option(cell, lines[i], starts[i], r"^\s*:([\w-]+):\s*")
        i += 1
    return i


def _mask_option(cell, line, start, pattern):
    m = re.match(pattern, line)
    if m and m.group(1) in _READ_OPTIONS:
        cell.skip(start, start + m.end())
    else:
        cell.skip(start, start + len(line))


def _scan_blocks(cell, lines, starts, begin, end):
    i = begin
    while i < end:
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m["fence"], m["info"].strip()
        j = i + 1
        while j < end:
            c = re.match(r"^ {0,3}(`{3,}|~{3,}|:{3,})\s*$", lines[j])
            if c and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence):
                break
            j += 1
        close = min(j, end - 1) if j < end else None
        block_end = (j + 1) if j < end else end
        d = _DIRECTIVE.match(info)
        if not d or fence[0] == "~" or d["name"] in _SKIP_DIRECTIVES:
            cell.skip(starts[i], starts[block_end - 1] + len(lines[block_end - 1]))
            i = block_end
            continue
        name = d["name"]
        line = lines[i]
        if name in _TARGET_ARG or not d["arg"].strip():
            cell.skip(starts[i], starts[i] + len(line))
        else:  # the title stays prose
            cell.skip(starts[i], starts[i] + line.index("}") + 1)
        if close is not None:
            cell.skip(starts[close], starts[close] + len(lines[close]))
        body_end = close if close is not None else end
        body = _options_end(cell, lines, starts, i + 1, body_end)
        if name in _MATH_DIRECTIVES:
            if body < body_end:
                a, b = starts[body], starts[body_end - 1] + len(lines[body_end - 1])
                cell.kind[a:b] = b"m" * (b - a)
                cell.math.append((a, b))
        else:
            _scan_blocks(cell, lines, starts, body, body_end)
        i = block_end


_LINE_SKIPS = [
    re.compile(r"^%.*$", re.M),                                 # MyST comment
    re.compile(r"^\s*\([^()\s]+\)=\s*$", re.M),                 # target (label)=
    re.compile(r"^\s{0,3}\[[^\]]+\]:\s+\S.*$", re.M),           # link definition
]


def _scan_inline(cell):
    text = cell.text

    def current():
        return "".join(c if k == ord("p") else ("\n" if c == "\n" else "\0")
                       for c, k in zip(text, cell.kind))

    v = current()
    for m in re.finditer(r"<!--.*?-->", v, re.S):
        cell.skip(m.start(), m.end())
    v = current()
    for rx in _LINE_SKIPS:
        for m in rx.finditer(v):
            cell.skip(m.start(), m.end())
    v = current()
    # roles and code spans (backtick constructs) first: they may hold $ and [ ]
    for m in re.finditer(r"(\{(?P<role>[\w:.+-]+)\})?(?P<ticks>`+)(?P<body>.+?)(?<!`)(?P=ticks)(?!`)",
                         v, re.S):
        if "\0" in m.group(0) or "\n\n" in m.group(0):
            continue
        role, a, b = m["role"], m.start("body"), m.end("body")
        cell.skip(m.start(), m.end())
        if role is None:
            continue
        body = m["body"]
        explicit = _EXPLICIT.match(body)
        if role == "quoted":
            number, loc = (explicit["text"], explicit["target"]) if explicit else (body, "")
            cell.quoted.append((a, a + len(number), number, loc.strip()))
        elif role == "math":
            cell.kind[a:b] = b"m" * (b - a)
            cell.math.append((a, b))
        elif role.startswith("glue"):
            cell.glue.append(m.start())
        elif _SKIP_ROLES.match(role):
            pass
        elif _TARGET_ROLES.match(role):
            if explicit:
                ta = a + explicit.start("text")
                cell.kind[ta:ta + len(explicit["text"])] = b"p" * len(explicit["text"])
        else:
            cell.kind[a:b] = b"p" * (b - a)
    v = current()
    # display math $$...$$ with an optional (label)
    for m in re.finditer(r"\$\$(?P<body>.+?)\$\$(?P<label>[ \t]*\([^()\s]+\))?", v, re.S):
        if "\0" in m.group("body"):
            continue
        cell.skip(m.start(), m.end())
        a, b = m.start("body"), m.end("body")
        cell.kind[a:b] = b"m" * (b - a)
        cell.math.append((a, b))
    v = current()
    # amsmath environments on their own lines
    for m in re.finditer(r"^\s*\\begin\{(?P<env>[\w*]+)\}.*?\\end\{(?P=env)\}", v, re.S | re.M):
        cell.kind[m.start():m.end()] = b"m" * (m.end() - m.start())
        cell.math.append((m.start(), m.end()))
    v = current()
    for m in re.finditer(r"(?<![\\$])\$(?=[^\s$])(?P<body>[^$\0]+?)(?<![\s\\])\$(?![\d$])", v):
        if "\n\n" in m.group(0):
            continue
        cell.skip(m.start(), m.end())
        a, b = m.start("body"), m.end("body")
        cell.kind[a:b] = b"m" * (b - a)
        cell.math.append((a, b))
    v = current()
    # links and images: the text (alt) is read, the target is not
    for m in re.finditer(r"!?\[(?P<text>[^\]\0]*)\]\((?P<target>[^)\0]*)\)", v):
        cell.skip(m.start(), m.start("text"))
        cell.skip(m.end("text"), m.end())
    v = current()
    for rx in (r"\]\[[^\]\0]*\]", r"\[\^[^\]\0]+\]:?", r"<https?://[^>\0]+>",
               r"</?[A-Za-z][^>\0]*>", r"https?://[^\s)\]>\0]+", r"\{\{.*?\}\}",
               r"&#?\w+;", r"\{[\w:.-]+\}(?=\s|$)"):
        for m in re.finditer(rx, v):
            a = m.start() + (1 if rx.startswith(r"\]\[") else 0)
            cell.skip(a, m.end())
        v = current()


# ----------------------------------------------------------------------------- classifying

@dataclass
class _PageFacts:
    says: set           # keys of the says() TEXTs
    settings: set       # keys of the setting literals of the visible code, as spelled

    @property
    def values(self):
        return [v for v in map(_key_value, self.settings) if v is not None]


def _tokens_of_cell(cell, facts, seeds, emit):
    """Classify the numbers of one read Markdown text; ``emit(offset, text, cls, reason,
    where, key)`` receives each."""
    text = cell.text
    prose = cell.view()
    for offset in cell.glue:
        emit(offset, "{glue}", "computed", "glue role", "glue", None)
    for a, b, number, loc in cell.quoted:
        _classify_quoted(a, number, loc, seeds, emit)
    for a, b in cell.math:
        _classify_math(text, a, b, facts, emit, prose)
    _classify_prose(prose, facts, emit)


def _classify_quoted(a, number, loc, seeds, emit):
    source = loc.split()[0] if loc.split() else ""
    found = list(_PROSE_NUM.finditer(number.replace("$", " ")))
    if not found:
        emit(a, number or "{quoted}", "unclassified", "{quoted} role without a number",
             "quoted", None)
        return
    for m in found:
        key = _prose_key(m, number)
        if source not in SOURCES:
            emit(a + m.start(), m.group(0), "unclassified",
                 f"{{quoted}} source {source!r} is not one of {', '.join(SOURCES)}", "quoted", key)
        elif len(loc.split()) < 2:
            emit(a + m.start(), m.group(0), "unclassified",
                 f"{{quoted}} names no place in {source} (e.g. '{source} p. 12')", "quoted", key)
        elif seeds is not None and seeds.get(source) is not None and key not in seeds[source]:
            emit(a + m.start(), m.group(0), "unclassified",
                 f"{{quoted}} number not found in the text of {source}", "quoted", key)
        else:
            emit(a + m.start(), m.group(0), "quoted", loc, "quoted", key)


def _prose_key(m, text):
    sign = m.group("sign") in ("-", MINUS) and _sign_allowed(text, m.start())
    return _canonical(sign, m.group("int"), m.group("frac"), m.group("exp"), _is_bare_power(m))


def _sign_allowed(text, start):
    """A ``-`` before a number is a sign only after a space, an opening bracket, a relation
    or the start (``19-20`` is a range, ``MNIST-5`` a name); ``−`` always is."""
    if text[start] == MINUS:
        return start == 0 or not text[start - 1].isdigit()
    if text[start] not in "-+":
        return False
    return start == 0 or text[start - 1] in " \u00a0\u2009\u202f\n([{=<>\u2264\u2265\u2248\t:;,"


def _match_value(facts, key, percent):
    if key is None:
        return False
    v = _key_value(key)
    if v is None:
        return False
    wanted = [v] + ([v / 100] if percent else [])
    return any(math.isclose(w, lit, rel_tol=1e-12, abs_tol=1e-300) for w in wanted
               for lit in facts.values)


def _typed_class(facts, key, percent, not_param=None):
    """``(class, reason)`` of a typed number that is not structural; ``not_param`` is
    ``None`` or ``(why, exception)`` from :func:`_not_a_parameter`: the number cannot be a
    parameter, except (``exception`` true) when its key, as typed, is a setting literal."""
    if key is not None and key in facts.says:
        return "computed", "says"
    if not_param is not None:
        why, exception = not_param
        if exception and key is not None and key in facts.settings:
            return "parameter", f"setting literal, the same string ({why}; not a measured value)"
        return "unclassified", f"no says(); {why}: must be computed or quoted, not a parameter"
    if _match_value(facts, key, percent):
        return "parameter", "setting literal of visible code"
    return "unclassified", "no says(), no setting literal of visible code"


#: "N of M": the N is a count the page claims ("20 of the 100 basis functions")
_N_OF_M = re.compile(r"(?i)(?<![\w.,\u2212-])(?P<a>[a-z]+|\d+)(?P<of>\s+(?:out\s+)?of\s+"
                     r"(?P<art>(?:the|its|their)\s+)?)(?P<b>[a-z]+|\d+)(?![\w]|\.\d)")
#: a comparative or approximating word right before a number: the number is a measurement
_COMPARATIVE = re.compile(
    r"(?i)(?:(?<![\w-])(?:(?:fewer|more|less)\s+than|at\s+(?:most|least)|about|around|roughly|"
    r"nearly|almost|approximately|over|under|below|above|only)|\u2248|(?:^|(?<=\s))~)"
    r"[\s\u00a0\u2009\u202f]*$")
#: "averaged over 30 draws", "the union bound over 140 coordinates": over/under is the span
#: of a sum or an average there, not a comparison
_AGGREGATE_BEFORE = re.compile(r"(?i)\b(?:averag\w*|mean|median|error|sum\w*|total|union|"
                               r"max\w*|min\w*)\b[^.;:!?]{0,40}$")
_MATH_APPROX = re.compile(r"(?:\\approx|\u2248|\\simeq)(?:\s|\\[,;:! ]|\{)*(?:[-+\u2212](?:\s|\{)*)?$")
#: words of a sentence that make its decimals measured values, and the words that, right
#: after a number, make it one
_MEASURED_SENTENCE = re.compile(r"(?i)\b(?:errors?|accurac(?:y|ies)|risks?|rates?|times?)\b")
_MEASURED_AFTER = re.compile(r"(?i)(?:errors?|accurac(?:y|ies)|risks?|rates?|times?|ms|s|\u00b5s|"
                             r"us|sec|seconds?|faster|slower)$")
_SENTENCE_END = re.compile(r"[.!?](?=[\s)\]*_]|$)|\n[ \t]*\n|\|")


def _n_of_m_starts(prose):
    """Offsets of the N of every "N of M" (also "N of the M", "N out of M", "N of its M";
    digits or number words). A word N "one" before an article ("one of the two classes")
    is the idiom, not a count; "the first 6 of the 100 splits" (first, last) picks a part,
    it claims no count (the 6 may be a parameter)."""
    out = {}
    for m in _N_OF_M.finditer(prose):
        a, b = m.group("a"), m.group("b")
        if not all(w.isdigit() or w.lower() in _WORDS for w in (a, b)):
            continue
        if a.lower() == "one" and m.group("art"):
            continue
        if re.search(r"(?i)\b(?:first|last)\s+$", prose[max(0, m.start() - 12):m.start()]):
            continue
        out[m.start("a")] = m
    return out


def _not_a_parameter(view, start, end, m_unit, decimal, n_of_m, math_before=None):
    """Why a typed number cannot be a parameter, as ``(why, exception)``, or ``None``.

    1. the N of "N of M" is a count the page claims (``exception`` false);
    2. a number right after a comparative or approximating word ("fewer than", "at most",
       "about", "only", "over", "≈", "~" ...; in math ``\\approx``) is a measurement (``exception``
       false); "over"/"under" after an averaging word ("averaged over 30 draws") is not;
    3. a number with ``%`` or ``×``/``x``, and a decimal in a sentence that says "error",
       "accuracy", "risk", "rate" or "time" (or with ``ms``/``s`` after it), is a measured
       value (``exception`` true: it stays a parameter when the same string, e.g. ``0.1``,
       is a setting literal and the word right after it is not a measured quantity --
       "error", "accuracy", "risk", "rate", "time", "ms", "s", "faster", "slower" ...).

    ``view``: the cell's prose view (math and markup blanked, offsets kept); ``start``,
    ``end``: the token's span in it; ``math_before``: for a number in math, the formula up
    to it (rule 2 then reads ``\\approx`` there, and the prose before the formula only when
    the number opens it).
    """
    if start in n_of_m:
        return "the N of 'N of M'", False
    before = view[:start]
    if math_before is not None:
        comparative = bool(_MATH_APPROX.search(math_before))
        if not comparative and re.fullmatch(r"[\s{]*[-+\u2212]?[\s{]*", math_before):
            comparative = _comparative(before.rstrip("$ "), view, end)
    else:
        comparative = _comparative(before, view, end)
    if comparative:
        return "after a comparative or approximating word", False
    after = re.match(r"[\s\u00a0\u2009\u202f$]*([^\W\d_]+|\u00b5s)?", view[end:])
    word_after = after.group(1) or ""
    measured_after = bool(_MEASURED_AFTER.match(word_after))
    if m_unit:
        return f"a number with {m_unit.strip()!r}", not measured_after
    if decimal:
        a = max((x.end() for x in _SENTENCE_END.finditer(view, 0, start)), default=0)
        z = _SENTENCE_END.search(view, end)
        sentence = view[a:z.start() if z else len(view)]
        if measured_after or _MEASURED_SENTENCE.search(sentence):
            return "a decimal in a sentence on a measured error, rate or time", not measured_after
    return None


def _comparative(before, view, end):
    c = _COMPARATIVE.search(before[-40:])
    if not c:
        return False
    word = c.group(0).strip().lower()
    if word in ("over", "under"):
        if _AGGREGATE_BEFORE.search(before[:len(before) - len(c.group(0))]):
            return False
        if re.match(r"[\d.,\s\u00a0\u2009\u202f]*\s+to\s", view[end:end + 20]):
            return False     # "over 0 to 1": a range
    return True


def _classify_prose(prose, facts, emit):
    n_of_m = _n_of_m_starts(prose)
    tokens = []
    for m in _PROSE_NUM.finditer(prose):
        start = m.start()
        if m.group("sign") and not _sign_allowed(prose, start):
            start += 1
        tokens.append((start, m))
    prev_ref = None      # end offset of the last token that was a reference-led number
    prev_shape = prev_num = None
    for start, m in tokens:
        end = m.end()
        text = prose[start:end].strip()
        key = _prose_key(m, prose) if start == m.start() else _canonical(
            False, m.group("int"), m.group("frac"), m.group("exp"), _is_bare_power(m))
        percent = "%" in (m.group("unit") or "")
        shape = (m.group("frac") or "").count(".")
        before = prose[:start]
        line_start = before.rfind("\n") + 1
        head = before[line_start:]
        reason = None
        # structural -------------------------------------------------------------------
        if start in n_of_m and not m.group("frac"):
            pass        # the N of "N of M" is a count, never a place
        elif re.fullmatch(r"\s{0,3}#{1,6}[ \t]+", head):
            reason = "heading number"
        elif _list_marker(prose, line_start, head, m):
            reason = "list marker"
        elif _REF_BEFORE.search(before[-40:]) or (
                m.group("frac") and _REF_BEFORE_DOTTED.search(before[-40:])):
            reason = "after a reference word"
        elif prev_ref is not None and shape == prev_shape and _LIST_SEP.match(prose[prev_ref:start]) \
                and _next_in_list(prev_num, m):
            reason = "list or range after a reference word"
        elif _glued(prose, start, end, m):
            reason = "glued to letters"
        elif _citation_year(prose, start, end, m):
            reason = "year of a citation"
        if reason is not None:
            if reason.startswith(("after", "list")):
                prev_ref, prev_shape, prev_num = end, shape, m
            else:
                prev_ref = None
            emit(start, text, "structural", reason, "prose", key)
            continue
        prev_ref = None
        if "." in (m.group("frac") or "")[1:]:
            emit(start, text, "unclassified", "dotted number (a version? a section without "
                 "a reference word?)", "prose", None)
            continue
        not_param = _not_a_parameter(prose, start, end, m.group("unit"),
                                     bool(m.group("frac") or m.group("exp")), n_of_m)
        cls, why = _typed_class(facts, key, percent, not_param)
        emit(start, text, cls, why, "prose", key)
    # word numbers in "N of M"
    for m in n_of_m.values():
        for g in ("a", "b"):
            w = m.group(g)
            if w.isdigit():
                continue
            key = str(_WORDS[w.lower()])
            not_param = ("the N of 'N of M'", False) if g == "a" else \
                _not_a_parameter(prose, m.start(g), m.end(g), None, False, {})
            cls, why = _typed_class(facts, key, False, not_param)
            emit(m.start(g), w, cls, why + " (word number in 'N of M')", "prose", key)


def _list_marker(prose, line_start, head, m):
    """``1. text`` at the start of a block, or in a list: Markdown's own numbering (a
    number in a wrapped paragraph line, ``degree\n10. We``, is text)."""
    if not re.fullmatch(r"[ \t]*", head) or m.group("frac") or m.group("exp") or m.group("unit"):
        return False
    if not re.match(r"[.)](?:\s|$)", prose[m.end("int"):m.end("int") + 2]):
        return False
    if m.group("int") == "1":
        return True
    # walk up the block: a list item above (before a blank line) makes this one an item
    lines = prose[:line_start].split("\n")[:-1]
    for line in reversed(lines):
        if not line.strip():
            return False
        if re.match(r"\s*(?:\d+[.)]|[-*+])\s", line):
            return True
    return not lines or not lines[-1].strip()


def _next_in_list(prev, m):
    """A list or range after a reference word goes up by small steps ("Figs 2 and 3",
    "eq. 2.45-2.52", "Lemmas 19-20"): "chapter 4 and 100 samples" is not a list."""
    a = [int(x) for x in re.findall(r"\d+", prev.group("int") + (prev.group("frac") or ""))]
    b = [int(x) for x in re.findall(r"\d+", m.group("int") + (m.group("frac") or ""))]
    if len(a) != len(b) or not a:
        return False
    if len(a) == 1:
        return 0 < b[0] - a[0] <= 40
    return 0 <= b[0] - a[0] <= 5 and b > a


def _glued(prose, start, end, m):
    s = start
    before = prose[s - 1] if s > 0 else " "
    if before.isalpha() or before == "_":
        return True
    if before == "-":   # MNIST-5k, Reuters-21578, SHA-256 (a name), not degree-10 (a quantity)
        word = re.search(r"([^\W\d_][\w]*)$", prose[:s - 1])
        if word and word.group(1)[0].isupper():
            return True
    if before == "." and s > 1 and prose[s - 2].isupper() and (s < 3 or not prose[s - 3].isalpha()):
        return True     # B.7, A.3: a number in a lettered appendix
    # the token's own end (units were consumed); exponent letters belong to the token
    after = prose[end:end + 12]
    if m.group("unit"):
        return False
    if after[:1].isalpha() or after[:1] == "_":
        if _UNIT_AFTER.match(after):
            return False
        return True
    if after[:1] == "-" and re.match(r"-[A-Z][A-Z]*(?![a-z])", after):
        return True
    return False


def _citation_year(prose, start, end, m):
    if m.group("frac") or m.group("exp") or m.group("unit") or not re.fullmatch(r"\d{4}", m.group("int")):
        return False
    if not 1900 <= int(m.group("int")) <= 2029:
        return False
    before = prose[max(0, start - 60):start]
    after = prose[end:end + 3]
    if re.search(r"\(\s*$", before) and re.match(r"[a-z]?\s*[),;]", after):
        return True
    n = _YEAR_NAME.search(before)
    if n:
        word = n.group(0).strip().rstrip(",")
        return word not in _YEAR_STOP
    return False


def _classify_math(text, a, b, facts, emit, view=None):
    body = text[a:b]
    prev_typed_end = None
    whole = re.sub(r"\\[,;:! ]|\\%|\\text\{\s*%?\s*\}|[{}\s]|\\pm|\\mp|^[-+\u2212]", "", body)
    for m in _MATH_NUM.finditer(body):
        s, e = m.start(), m.end()
        if s > 0 and (body[s - 1].isdigit() or body[s - 1] == "."):
            continue
        before, after = body[:s], body[e:]
        bare = _is_bare_power(m)
        key_core = _canonical(False, m.group("int"), m.group("frac"), m.group("exp"), bare)
        sign = re.search(r"(?:^|[=<>({,\s])\s*([-\u2212])\s*$", before) is not None and \
            re.search(r"(?:^|[^\w)}\]])\s*[-\u2212]\s*$", before) is not None
        key = ("-" + key_core) if sign else key_core
        token = body[s:e].strip()
        percent = bool(m.group("unit"))
        typed, why = False, ""
        in_script = _in_script(before)
        if m.group("frac"):
            typed, why = True, "decimal in math"
        elif whole == re.sub(r"\\[,;:! ]|\\%|[{}\s]", "", body[s:e]) or \
                whole.lstrip("-+\u2212") == re.sub(r"\\[,;:! ]|\\%|[{}\s]", "", body[s:e]):
            typed, why = True, "the whole formula is a number"
        elif not in_script and _AFTER_RELATION.search(before) and not _FORMULA_NEXT.match(after) \
                and not _INDEX_RANGE.match(after):
            typed, why = True, "after a relation"
        elif prev_typed_end is not None and _LIST_CONT.match(body[prev_typed_end:s]) and \
                not _FORMULA_NEXT.match(after):
            typed, why = True, "list after a relation"
        if not typed:
            prev_typed_end = None
            emit(a + s, token, "structural", "math: exponent, index or coefficient", "math", None)
            continue
        # only a value after a relation starts a list ("= 0.5, 0.7, 1"; not "[-0.5, 3]")
        in_list = prev_typed_end is not None and _LIST_CONT.match(body[prev_typed_end:s])
        prev_typed_end = e if (in_list or (not in_script and _AFTER_RELATION.search(before))) else None
        not_param = None if view is None else _not_a_parameter(
            view, a + s, a + e, "%" if percent else None, bool(m.group("frac") or m.group("exp")),
            {}, math_before=body[:s])
        cls, reason = _typed_class(facts, key, percent, not_param)
        emit(a + s, ("-" if sign else "") + token, cls, f"{reason} ({why})", "math", key)


def _in_script(before):
    """True when the position is inside a ``_{...}``/``^{...}`` group (an index, a power)."""
    depth = 0
    for k in range(len(before) - 1, -1, -1):
        c = before[k]
        if c == "}" and (k == 0 or before[k - 1] != "\\"):
            depth += 1
        elif c == "{" and (k == 0 or before[k - 1] != "\\"):
            if depth == 0:
                j = k - 1
                while j >= 0 and before[j] == " ":
                    j -= 1
                return j >= 0 and before[j] in "_^"
            depth -= 1
    return False


# ----------------------------------------------------------------------------- pages

def _cells_with_lines(text):
    """``(cell, first_line, header_lines)`` of a MyST notebook's cells (0-based lines;
    ``header_lines``: the fence and metadata lines of a code cell)."""
    import jupytext

    nb = jupytext.reads(text, fmt="md:myst")
    lines = text.split("\n")
    starts = _line_starts(text)
    pos = 0
    out = []
    for c in nb.cells:
        if c.cell_type == "code":
            fence = re.compile(r"^`{3,}\{code-cell\}.*$", re.M).search(text, pos)
            if fence is None:
                raise ValueError("a code cell without its {code-cell} fence")
            at = text.find(c.source, fence.end()) if c.source else fence.end()
            if at < 0:
                raise ValueError(f"cannot locate code cell {c.source[:60]!r}")
            first = _line_of(starts, at) if c.source else _line_of(starts, fence.start()) + 1
            hdr = (_line_of(starts, fence.start()), first)
            out.append((c, first, lines[hdr[0]:hdr[1]], hdr[0]))
            pos = at + len(c.source)
        else:
            if not c.source.strip():
                continue
            at = text.find(c.source, pos)
            if at < 0:   # jupytext changed the text (it should not): place it by its first line
                first_line = next(x for x in c.source.split("\n") if x.strip())
                at = text.find(first_line, pos)
                if at < 0:
                    raise ValueError(f"cannot locate Markdown cell {c.source[:60]!r}")
                at -= c.source.index(first_line)
            out.append((c, _line_of(starts, at), None, None))
            pos = at + len(c.source)
    return nb, out


def _visible(cell):
    tags = set(cell.metadata.get("tags", []))
    return not tags & {"remove-cell", "remove-input"}


def _metadata_texts(cell):
    """``(key, text)`` of a code cell's caption and alt text."""
    mystnb = cell.metadata.get("mystnb")
    out = []
    if isinstance(mystnb, dict):
        fig = mystnb.get("figure")
        if isinstance(fig, dict) and isinstance(fig.get("caption"), str):
            out.append(("caption", fig["caption"]))
        img = mystnb.get("image")
        if isinstance(img, dict) and isinstance(img.get("alt"), str):
            out.append(("alt", img["alt"]))
    return out


def _metadata_line_map(header, key, value):
    """A function ``offset in value -> line index in header`` by counting words."""
    key_line = None
    for i, line in enumerate(header):
        if re.match(rf"^\s*{key}:", line):
            key_line = i
            break
    if key_line is None:
        return lambda offset: 0
    indent = len(header[key_line]) - len(header[key_line].lstrip())
    first = re.sub(rf"^\s*{key}:\s*", "", header[key_line])
    if re.fullmatch(r"[|>][-+0-9]*\s*", first):
        first = ""
    spans = [(key_line, len(first.split()))]
    for i in range(key_line + 1, len(header)):
        line = header[i]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        spans.append((i, len(line.split())))

    def where(offset):
        n = len(value[:offset].split()) if value[:offset].strip() else 0
        if offset < len(value) and offset > 0 and not value[offset - 1].isspace():
            n -= 1   # inside a word
        n = max(n, 0)
        for i, words in spans:
            if n < words:
                return i
            n -= words
        return spans[-1][0]

    return where


def classify_text(text, page="page.md", seeds=None):
    """Classify every typed number of one MyST notebook page given as text.

    Parameters
    ----------
    text : str
        The page (jupytext MyST Markdown).
    page : str
        Its name, used in the tokens.
    seeds : dict or None
        ``source -> set of number keys`` (:func:`seed_keys`); ``None`` skips the check
        that a quoted number occurs in its source.

    Returns
    -------
    list of Token
    """
    nb, cells = _cells_with_lines(text)
    says, literals = set(), set()
    for c, *_ in cells:
        if c.cell_type != "code":
            continue
        tags = set(c.metadata.get("tags", []))
        if "skip-execution" in tags:
            continue
        s, lit = code_facts(c.source, _visible(c))
        says |= s
        literals |= lit
    facts = _PageFacts(says, literals)
    file_lines = text.split("\n")
    tokens = []
    for c, first, header, header_first in cells:
        if c.cell_type == "markdown":
            if "remove-cell" in set(c.metadata.get("tags", [])):
                continue
            read = _read_markdown(c.source)
            starts = _line_starts(c.source)

            def emit(offset, tok, cls, reason, where, key, _s=starts, _f=first):
                line = _f + _line_of(_s, offset)
                tokens.append(Token(page, line + 1, tok, cls, reason,
                                    _context(file_lines[line], tok), where, key))
            _tokens_of_cell(read, facts, seeds, emit)
        elif c.cell_type == "code" and header is not None:
            for key, value in _metadata_texts(c):
                read = _read_markdown(value)
                where_of = _metadata_line_map(header, key, value)

                def emit(offset, tok, cls, reason, where, k, _w=where_of, _h=header_first,
                         _key=key):
                    line = _h + _w(offset)
                    tokens.append(Token(page, line + 1, tok, cls, reason,
                                        _context(file_lines[line], tok),
                                        _key if where == "prose" else f"{_key} {where}", k))
                _tokens_of_cell(read, facts, seeds, emit)
    tokens.sort(key=lambda t: t.line)
    return tokens


def _context(line, token):
    line = line.strip()
    i = line.find(token)
    if i < 0 or len(line) <= 90:
        return line[:90]
    a = max(0, i - 40)
    return ("\u2026" if a else "") + line[a:a + 90] + ("\u2026" if a + 90 < len(line) else "")


def classify_page(path, seeds=None, name=None):
    """Classify every typed number of the page at ``path`` (see :func:`classify_text`);
    ``name`` (default: the path) names the page in the tokens."""
    path = Path(path)
    return classify_text(path.read_text(encoding="utf-8"), page=name or str(path), seeds=seeds)


# ----------------------------------------------------------------------------- seeds

@lru_cache(maxsize=None)
def _seed_text_keys(path):
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return frozenset(_text_keys(text))


def _text_keys(text):
    """Every number key a source text contains, with the spellings its extraction produces
    (``10−4`` for 10⁻⁴, ``1 000`` for 1000, ``4.4±0.21``): grouped and ungrouped, signed and
    unsigned."""
    keys = set()
    for m in _PROSE_NUM.finditer(text):
        sign = m.group("sign") in ("-", MINUS)
        for s in {sign, False}:
            keys.add(_canonical(s, m.group("int"), m.group("frac"), m.group("exp"), _is_bare_power(m)))
            keys.add(_canonical(s, m.group("int"), m.group("frac"), None, False))
            for part in re.split(r"[ \u00a0\u2009\u202f,]", m.group("int")):
                keys.add(_canonical(s, part, None, None, False))
    # flattened powers: "10−4" is 10^{-4}, "× 10−3" a mantissa's exponent
    for m in re.finditer(r"(?:(?P<mant>\d+(?:\.\d+)?)\s*[\u00d7\u00b7x]\s*)?(?<![\d.])10\s?"
                         r"(?P<e>[-\u2212]\s?\d+|\d)(?![\d.])", text):
        e = int(m.group("e").replace(MINUS, "-").replace(" ", ""))
        mant = m.group("mant") or "1"
        for s in ("", "-"):
            keys.add(f"{s}{mant}e{e}" if e else f"{s}{mant}")
    for m in re.finditer(r"(?<![\d.])10\^\{?([-\u2212]?\d+)\}?", text):
        keys.add(f"1e{int(m.group(1).replace(MINUS, '-'))}")
    return keys


def seed_keys(seeds_dir):
    """``source -> frozenset of number keys`` for the seed texts in ``seeds_dir``, or
    ``None`` when the folder is absent."""
    seeds_dir = Path(seeds_dir)
    if not seeds_dir.is_dir():
        return None
    out = {}
    for source, prefix in SOURCES.items():
        found = sorted(seeds_dir.glob(prefix + "*.txt"))
        out[source] = _seed_text_keys(str(found[0])) if found else None
    return out


def default_seeds(book_dir):
    """``../shared/seeds`` beside the checkout that holds ``book_dir``."""
    return Path(book_dir).resolve().parent.parent / "shared" / "seeds"


# ----------------------------------------------------------------------------- reports

def notebook_pages(book_dir):
    """The notebook pages (jupytext MyST, with a kernelspec) of ``book_dir``."""
    out = []
    for path in sorted(Path(book_dir).glob("*.md")):
        with open(path, encoding="utf-8") as fh:
            if "kernelspec:" in fh.read(600):
                out.append(path)
    return out


def counts(tokens):
    """``{class: n}`` plus ``total``."""
    c = {k: 0 for k in CLASSES}
    for t in tokens:
        c[t.cls] += 1
    c["total"] = len(tokens)
    return c


def format_counts(results):
    """The per-page count table of ``{page: tokens}`` (a plain-text table with a total row)."""
    cols = ("total",) + CLASSES
    rows = []
    total = {k: 0 for k in cols}
    for page, tokens in results.items():
        c = counts(tokens)
        rows.append((Path(page).stem, *(c[k] for k in cols)))
        for k in cols:
            total[k] += c[k]
    rows.append(("TOTAL", *(total[k] for k in cols)))
    width = max(len(r[0]) for r in rows)
    head = f"{'page':<{width}} " + " ".join(f"{k:>12}" for k in cols)
    lines = [head, "-" * len(head)]
    lines += [f"{r[0]:<{width}} " + " ".join(f"{v:>12}" for v in r[1:]) for r in rows]
    return "\n".join(lines)


def format_tokens(tokens, classes=("unclassified",), reasons=True):
    """One line per token of the given classes: ``page:line: token … context``."""
    out = []
    for t in tokens:
        if t.cls in classes:
            line = str(t)
            if reasons:
                line += f"   [{t.cls}: {t.reason}; {t.where}]"
            out.append(line)
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kernelclf.book.typed_numbers",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", help="MyST notebook pages (default: book/*.md)")
    parser.add_argument("--book", default="book", help="the book folder (default: book)")
    parser.add_argument("--seeds", default=None,
                        help="folder of the seed texts (default: ../shared/seeds beside the checkout)")
    parser.add_argument("--all", action="store_true", help="list every token with its class")
    args = parser.parse_args(argv)
    pages = [Path(p) for p in args.pages] or notebook_pages(args.book)
    seeds_dir = Path(args.seeds) if args.seeds else default_seeds(
        pages[0].parent if pages else args.book)
    seeds = seed_keys(seeds_dir)
    if seeds is None:
        print(f"(no seed texts at {seeds_dir}: quoted numbers are not looked up)")
    results = {str(p): classify_page(p, seeds=seeds) for p in pages}
    print(format_counts(results))
    classes = CLASSES if args.all else ("unclassified",)
    listing = "\n".join(filter(None, (format_tokens(t, classes) for t in results.values())))
    if listing:
        print()
        print(listing)
    bad = sum(counts(t)["unclassified"] for t in results.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
