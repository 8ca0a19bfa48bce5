"""Book chapters 12 and 13 (``book/12_bpm_experiments.md``, ``book/13_relative_margin_machines.md``).

Committed results files of the long protocols, rendered as tables beside the sources' numbers.
No source formula: a page that quotes a full run (BPM Table 1, RMM Tables 2 and 4) reads the
JSON-lines file that :func:`kernelclf.experiments.runner.run_tasks` wrote (a header line with
the command, its settings and where it ran, then one record per finished split) instead of
typing the numbers, so the table on the page is the file's and a test can compare them.

* :func:`load_results` — the header and the successful records of a results file;
* :func:`pivot` — aggregate a record field into ``{row: {column: value}}`` (e.g. mean test
  error per data set and method);
* :func:`markdown_table` — a Markdown table with, for each column, our number and the
  source's beside it;
* :func:`provenance_text` — one line saying which command, commit and date produced a file;
* :func:`parse_markdown_table` — the cells of a Markdown table back (for tests).

Example::

    res = load_results("kernelclf/experiments/results/bpm_table1.jsonl")
    errors = pivot(res.records, row="dataset", column=lambda r: "SVM",
                   value=lambda r: 100 * r["result"]["svm_error"])
    print(markdown_table(errors, source={"heart": {"SVM": 25.4}}))
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["Results", "results_path", "load_results", "field", "pivot", "markdown_table",
           "provenance_text", "parse_markdown_table"]

#: Folder of the committed results files (inside the package, so the book finds them).
RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Results:
    """A results file: its ``header`` (command, config, provenance), the successful
    ``records`` in file order (a later record of a key replaces an earlier one), and the
    number of ``failed`` records left out."""

    header: dict
    records: list
    failed: int
    path: str


def results_path(name):
    """Path of a committed results file ``name`` (e.g. ``"bpm_table1.jsonl"``)."""
    return os.path.join(RESULTS_DIR, name)


def load_results(path):
    """Read a JSON-lines results file of :func:`~kernelclf.experiments.runner.run_tasks`.

    A bare file name is looked up in the package's results folder. Records with an
    ``"error"`` are counted in ``failed``, not returned.
    """
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.dirname(path) == "":
        path = results_path(path)
    with open(path) as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    if not lines:
        raise ValueError(f"{path} is empty")
    header = json.loads(lines[0])
    if not isinstance(header, dict) or "kernelclf_results" not in header:
        raise ValueError(f"{path} has no results header line")
    by_key, failed = {}, {}
    for line in lines[1:]:
        rec = json.loads(line)
        if "error" in rec:
            failed[rec["key"]] = rec
            by_key.pop(rec["key"], None)
        else:
            by_key[rec["key"]] = rec
            failed.pop(rec["key"], None)
    return Results(header, list(by_key.values()), len(failed), path)


def field(spec):
    """A getter from a record: a callable is returned as is, ``"result.svm_error"`` reads
    nested keys."""
    if callable(spec):
        return spec
    keys = str(spec).split(".")

    def get(rec):
        for k in keys:
            rec = rec[k]
        return rec
    return get


def pivot(records, row, column, value, agg: Callable = np.mean):
    """``{row: {column: agg([values])}}`` over ``records``, rows and columns in order of
    first appearance. ``row``, ``column`` and ``value`` are field specs (see :func:`field`);
    ``agg`` gets the list of values of one cell (e.g. ``np.mean``, ``len`` or a function
    returning a tuple such as mean and standard error)."""
    get_r, get_c, get_v = field(row), field(column), field(value)
    cells = {}
    for rec in records:
        cells.setdefault(get_r(rec), {}).setdefault(get_c(rec), []).append(get_v(rec))
    return {r: {c: agg(v) for c, v in cols.items()} for r, cols in cells.items()}


def _fmt(value, fmt):
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if callable(fmt):
        return fmt(value)
    if isinstance(value, (tuple, list)):
        return " ± ".join(fmt.format(v) for v in value)
    return fmt.format(value)


def markdown_table(table, source=None, *, columns=None, rows=None, fmt="{:.1f}", source_fmt=None,
                   row_label="data", ours="ours", theirs="paper", row_names=None):
    """A Markdown table of ``table = {row: {column: value}}`` with the source's numbers beside.

    Parameters
    ----------
    table : dict of dict
        Our numbers (e.g. from :func:`pivot`); a value may be a tuple (printed ``a ± b``).
    source : dict of dict, optional
        The source's numbers, same keys; for each column present in ``source`` a column
        ``"<column> (paper)"`` follows ``"<column> (ours)"``. Missing entries print ``–``.
    columns, rows : list, optional
        Order (default: order of first appearance in ``table``).
    fmt, source_fmt : str, callable or dict
        Format of one value: a format string, a function returning the text, or a dict
        ``{column: format}`` (columns not in it use ``"{}"``); ``source_fmt`` defaults to
        ``fmt``.
    row_label : str
        Heading of the first column.
    ours, theirs : str
        Suffixes of the column headings.
    row_names : dict, optional
        Printed names of the rows.
    """
    source = source or {}
    source_fmt = fmt if source_fmt is None else source_fmt

    def pick(spec, c):
        return spec.get(c, "{}") if isinstance(spec, dict) else spec
    rows = list(table) if rows is None else list(rows)
    if columns is None:
        columns = []
        for r in rows:
            for c in table.get(r, {}):
                if c not in columns:
                    columns.append(c)
    with_source = [c for c in columns if any(c in source.get(r, {}) for r in rows)]
    head = [row_label]
    for c in columns:
        head.append(f"{c} ({ours})" if c in with_source else str(c))
        if c in with_source:
            head.append(f"{c} ({theirs})")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [str((row_names or {}).get(r, r))]
        for c in columns:
            cells.append(_fmt(table.get(r, {}).get(c), pick(fmt, c)))
            if c in with_source:
                cells.append(_fmt(source.get(r, {}).get(c), pick(source_fmt, c)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def provenance_text(results):
    """Which commands, commits and dates produced a :class:`Results`: one line per distinct
    command line (a file extended by reruns, e.g. with more splits, has several), with the
    commit(s) and the first and last date of its records (header values for records
    without provenance)."""
    head = results.header.get("provenance") or {}
    groups = {}
    for rec in results.records:
        prov = rec.get("provenance") or head
        g = groups.setdefault(prov.get("command", results.header.get("command")),
                              {"commits": [], "dates": [], "n": 0})
        g["n"] += 1
        if prov.get("commit") and prov["commit"] not in g["commits"]:
            g["commits"].append(prov["commit"])
        if prov.get("date"):
            g["dates"].append(prov["date"])
    lines = []
    for cmd, g in groups.items():
        commits = ", ".join(c[:12] + ("+dirty" if c.endswith("+dirty") else "")
                            for c in g["commits"]) or "unknown commit"
        when = (f"{min(g['dates'])[:16].replace('T', ' ')} to "
                f"{max(g['dates'])[:16].replace('T', ' ')} UTC") if g["dates"] else "date unknown"
        lines.append(f"{g['n']} record(s) from `{cmd}` (commit {commits}; {when})")
    return "\n".join(lines)


def parse_markdown_table(text):
    """``(heading, rows)`` of the first Markdown table in ``text``: lists of cell strings."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("|")]
    if len(lines) < 2:
        raise ValueError("no Markdown table")
    split = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return split[0], [r for r in split[2:]]
