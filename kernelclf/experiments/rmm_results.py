"""Book chapter 13 (``book/13_relative_margin_machines.md``): committed RMM result files.

The long RMM protocols (RMM Fig. 8, Tables 3 and 4) are run once with
``python -m kernelclf.experiments ... --out kernelclf/experiments/results/<name>.jsonl``; the
chapter reads the JSON-lines files the runner writes (a header with the command and its settings, then one
record per split, each with its ``provenance``: command, commit and date) and renders them
with the paper's numbers beside ours. Nothing here runs an experiment.

* :func:`load_results` — header and records of a results file.
* :func:`provenance` — one line naming the command, commit and date of a file.
* :func:`fig8_counts` — RMM Fig. 8: SVM and RMM test errors per digit pair.
* :func:`table4_markdown` — RMM Table 4 rows from an ``rmm-table4`` file, paper in brackets.
* :func:`table2_markdown` — RMM Table 2 rows from a transcribed ``rmm-digits`` summary file,
  ``ours / paper`` in every cell.
* :func:`table2_splits` / :func:`table2_splits_markdown` — RMM Table 2 from a five-split
  ``rmm-digits --splits 5`` file: the refits' test errors beside the paper's, and the chosen
  parameters with the number of splits whose own best point agrees.
* :func:`text_markdown` — the §5.5 text table from its transcribed summary file.
* :func:`table3_markdown` — RMM Table 3 from an ``rmm-universum`` file, paper beside.
"""
from __future__ import annotations

import numpy as np

from .results import RESULTS_DIR
from .results import load_results as _load_results

__all__ = ["RESULTS_DIR", "load_results", "provenance", "fig8_counts", "table4_markdown",
           "table3_markdown", "table2_markdown", "table2_splits", "table2_splits_markdown",
           "text_markdown", "table4_summary_markdown", "runtime_markdown"]

def load_results(name):
    """``(header, records)`` of the results file ``name`` (a path, or a file name in the
    package's results folder); records that failed are left out. A thin view of
    :func:`kernelclf.experiments.results.load_results`, the one reader of results files."""
    res = _load_results(name)
    return res.header, res.records


def provenance(header):
    """``"<command> (commit <short>, <date>)"`` from a results-file header."""
    p = header.get("provenance", {})
    return f"`{p.get('command', '?')}` (commit {str(p.get('commit', '?'))[:7]}, " \
           f"{str(p.get('date', '?'))[:10]})"


def fig8_counts(records):
    """``(pairs, svm_errors, rmm_errors, n_test)`` arrays from ``rmm-pairs`` records."""
    recs = sorted(records, key=lambda r: (r["a"], r["b"]))
    pairs = [(r["a"], r["b"]) for r in recs]
    svm = np.array([r["result"]["svm"] for r in recs])
    rmm = np.array([r["result"]["rmm"] for r in recs])
    n = np.array([r["result"]["n_test"] for r in recs])
    return pairs, svm, rmm, n


def _table4_results(records):
    results = {}
    for r in records:
        results.setdefault(r["data"], (r["params"], []))[1].append(r["result"])
    return results


def table4_markdown(records, methods=None):
    """Markdown rows of RMM Table 4 from ``rmm-table4`` records: mean ± sd (%) per method,
    the paper's mean in brackets, bold where not significantly worse than the row's best
    (paired t-test, p >= 0.05, among the methods in the file), the chosen nu of the relaxed
    RMMs, and the number of splits on which the relaxed RMM's errors differ from the SVM's.
    Returns ``(markdown, rows)`` with ``rows`` as from
    :func:`~kernelclf.experiments.rmm_benchmarks.table4_rows`."""
    from .rmm_benchmarks import TABLE4_METHODS, TABLE4_REPORTED, table4_rows

    res = _table4_results(records)
    rows = table4_rows(res)
    methods = [m for m in TABLE4_METHODS if m in rows[0]["mean"]] if methods is None else methods
    head = "| data | " + " | ".join(methods) + " | ν (C=D) / ν | splits RMM ≠ SVM |"
    out = [head, "|" + "---|" * (len(methods) + 3)]
    for r in rows:
        rep = TABLE4_REPORTED[r["data"]]
        cells = []
        for m in methods:
            txt = f"{r['mean'][m]:.1f} ± {r['sd'][m]:.1f}"
            if r["p_vs_best"][m] >= 0.05:
                txt = f"**{txt}**"
            cells.append(f"{txt} ({rep[TABLE4_METHODS.index(m)][0]:.1f})")
        params, per = res[r["data"]]
        nus = " / ".join(f"{params[m]['nu']:g}" for m in ("RMM (C=D)", "RMM") if m in params)
        diff = sum(1 for s in per if "RMM" in s and s["RMM"] != s["SVM"])
        out.append(f"| {r['data'].replace('_', ' ')} | " + " | ".join(cells) +
                   f" | {nus} | {diff} |")
    return "\n".join(out), rows


def table3_markdown(records):
    """RMM Table 3 from ``rmm-universum`` records: mean ± sd (%) and the paired t-test
    p-value against the RMM, ours beside the paper's. Returns ``(markdown, rows)``."""
    from .rmm_universum import TABLE3_REPORTED, universum_rows

    rows = universum_rows([r["result"] for r in records])
    out = ["| method | Universum size (ours) | ours: error % | paper: error % | "
           "ours: p vs RMM | paper: p vs RMM |", "|---|---|---|---|---|---|"]
    first = records[0]["result"]
    ours_u = [k for k in rows if k.startswith("U-SVM")]
    paper_u = ["U-SVM 1000", "U-SVM 3000", "U-SVM all"]  # our smaller Universums, in order
    paper_of = {"SVM": "SVM", "RMM": "RMM", **dict(zip(ours_u, paper_u))}
    for k, v in rows.items():
        pk = paper_of.get(k)
        rep = TABLE3_REPORTED.get(pk)
        size = str(first.get(k + " size", "–"))
        p = "–" if v["p_vs_rmm"] is None else f"{v['p_vs_rmm']:.3f}"
        pp = TABLE3_REPORTED.get("p " + pk.split()[-1]) if pk and pk.startswith("U") else None
        paper_txt = "–" if rep is None else f"{rep[0]:.3f} ± {rep[1]:.3f}"
        out.append(f"| {k} | {size} | {v['mean']:.2f} ± {v['sd']:.2f} | {paper_txt} | {p} | "
                   f"{'–' if pp is None else f'{pp:.3f}'} |")
    return "\n".join(out), rows


def table2_markdown(records):
    """RMM Table 2 from the records of one ``rmm_table2_<data>.jsonl`` file: test errors per
    method and column (degrees 1..7, RBF), ``ours / paper`` (the paper's row that the data
    set is compared with, ``kernelclf.experiments.rmm.TABLE2_ROW``)."""
    from .rmm import TABLE2_REPORTED, TABLE2_ROW

    data = records[0]["data"]
    rep = TABLE2_REPORTED[TABLE2_ROW[data]]
    cols = [f"degree {d}" for d in range(1, 8)] + ["RBF"]
    out = ["| method | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for r in records:
        key = "Sigma-SVM" if r["method"] == "Σ-SVM" else r["method"]
        cells = [f"{o} / {p}" for o, p in zip(r["result"]["errors"], rep[key])]
        out.append(f"| {r['method']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


_T2_COLUMNS = (1, 2, 3, 4, 5, 6, 7, "rbf")
_T2_METHODS = ("SVM", "Sigma-SVM", "KLDA", "RMM")
_T2_LABEL = {"SVM": "SVM", "Sigma-SVM": "Σ-SVM", "KLDA": "KLDA", "RMM": "RMM"}


def _point(q):
    """A grid point's parameters (its ``'errors'`` and the RBF width left out)."""
    return {k: v for k, v in q.items() if k not in ("errors", "sigma")}


def table2_splits(records, n_splits=None):
    """Per column, the five-split protocol of RMM Table 2 (§5.2) read back from the records of
    an ``rmm-digits --splits 5`` file (``'validation'`` records of
    :func:`kernelclf.experiments.rmm.table2_split_record`, ``'refit'`` records of
    :func:`~kernelclf.experiments.rmm.table2_refit`).

    For every column (degree ``1..7`` or ``'rbf'``) whose ``n_splits`` splits (default
    :data:`kernelclf.experiments.rmm.TABLE2_SPLITS`, five) are all in the file, and every
    method, the grid point with the fewest validation errors summed over the splits
    (ties to the first grid point) is recomputed from the per-split grids; ``'agree'`` counts
    the splits on which that point has the fewest errors of the grid (ties included), and
    ``'split_best'`` lists each split's own best points. For ``'rbf'``, ``'width_agree'``
    counts the splits whose own best (width, C) pairs of the SVM include the chosen width.
    Where the column's refit record is present, its test errors are under ``'errors'``
    (else ``None``); a refit whose parameters differ from the recomputed ones raises
    ``ValueError``, so a file whose refits do not follow from its splits cannot be rendered.
    Returns a list of dicts (``'column'``, ``'n_splits'``, ``'params'``, ``'val_errors'``,
    ``'agree'``, ``'split_best'``, ``'errors'``, ``'n_test'``, ``'sigma'``,
    ``'width_agree'``) in column order.
    """
    from .rmm import TABLE2_SPLITS

    n_splits = TABLE2_SPLITS if n_splits is None else n_splits
    val, refit = {}, {}
    for r in records:
        if r.get("stage") == "validation":
            val.setdefault(r["degree"], {})[r["split"]] = r["result"]
        elif r.get("stage") == "refit":
            refit[r["degree"]] = r["result"]
    out = []
    for col in _T2_COLUMNS:
        splits, n = val.get(col, {}), n_splits
        if sorted(splits) != list(range(n)):
            continue                        # the column's splits are not all in the file
        res = [splits[s] for s in range(n)]
        q = refit.get(col)
        if q is not None and q["n_splits"] != n:
            raise ValueError(f"column {col}: the refit used {q['n_splits']} splits, not {n}")
        row = {"column": col, "n_splits": n, "params": {}, "val_errors": {}, "agree": {},
               "split_best": {}, "errors": None if q is None else q["errors"],
               "n_test": None if q is None else q["n_test"], "sigma": res[0].get("sigma"),
               "width_agree": None}
        for meth in (m for m in _T2_METHODS if m in res[0]["grid"]):
            errs = np.array([[p["errors"] for p in r["grid"][meth]] for r in res])
            total = errs.sum(axis=0)
            best = _point(res[0]["grid"][meth][int(np.argmin(total))])
            row["params"][meth], row["val_errors"][meth] = best, int(total.min())
            row["split_best"][meth] = [[_point(p) for p, e in zip(r["grid"][meth], er)
                                        if e == er.min()] for r, er in zip(res, errs)]
            row["agree"][meth] = sum(best in b for b in row["split_best"][meth])
            if q is not None and _point(q["params"][meth]) != best:
                raise ValueError(f"column {col}, {meth}: the refit's parameters "
                                 f"{q['params'][meth]} are not the fewest summed errors' {best}")
        if col == "rbf":
            if any(r.get("sigma") != row["sigma"] for r in res):
                raise ValueError("the split records of the RBF column disagree about the width")
            agree = 0
            for r in res:
                w = r["width"]
                low = min(p["errors"] for p in w)
                agree += row["sigma"] in {p["sigma"] for p in w if p["errors"] == low}
            row["width_agree"] = agree
        out.append(row)
    return out


def _param_text(x):
    """``10``, ``0.25``, ``10⁻⁴`` (powers of ten below 0.01 as powers)."""
    e = np.log10(x)
    if x < 0.01 and np.isclose(e, round(e)):
        return "10" + str(int(round(e))).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{x:g}"


def table2_splits_markdown(records, row="USPS", n_splits=None):
    """RMM Table 2 from a five-split file (:func:`table2_splits`) as two Markdown tables.

    ``errors``: test errors per method and column, ``ours / paper`` (the paper's ``row`` of
    Table 2), for the columns whose refit is in the file (empty if there is none).
    ``params``: per column (one line per kernel) and method the chosen parameters (SVM: C;
    Σ-SVM: C, D; KLDA: the ridge; RMM: C, κ) and, in brackets, on how many of the splits
    that point is the split's own best (ties included); the RBF line names the width and
    how many splits' own best SVM (width, C) pairs have it. Returns
    ``(errors, params, rows)`` with ``rows`` from
    :func:`table2_splits`.
    """
    from .rmm import TABLE2_REPORTED

    rep = TABLE2_REPORTED[row]
    rows = table2_splits(records, n_splits)
    done = [r for r in rows if r["errors"] is not None]
    name = {c: f"degree {c}" for c in range(1, 8)} | {"rbf": "RBF"}
    errors = ["| method | " + " | ".join(name[r["column"]] for r in done) + " |",
              "|---" * (len(done) + 1) + "|"]
    for meth in _T2_METHODS:
        if done and meth in done[0]["errors"]:
            cells = [f"{r['errors'][meth]} / {rep[meth][_T2_COLUMNS.index(r['column'])]}"
                     for r in done]
            errors.append(f"| {_T2_LABEL[meth]} | " + " | ".join(cells) + " |")
    errors = errors if done else []
    heads = {"SVM": "SVM: C", "Sigma-SVM": "Σ-SVM: C, D", "KLDA": "KLDA: ridge",
             "RMM": "RMM: C, κ"}
    meths = [m for m in _T2_METHODS if rows and m in rows[0]["params"]]
    params = ["| kernel | " + " | ".join(heads[m] for m in meths) + " |",
              "|---" * (len(meths) + 1) + "|"]
    for r in rows:
        n = r["n_splits"]
        kern = name[r["column"]]
        if r["column"] == "rbf":
            kern += f", width σ = {_param_text(r['sigma'])} ({r['width_agree']}/{n})"
        cells = [", ".join(_param_text(v) for v in r["params"][m].values())
                 + f" ({r['agree'][m]}/{n})" for m in meths]
        params.append(f"| {kern} | " + " | ".join(cells) + " |")
    return "\n".join(errors), "\n".join(params), rows


def text_markdown(records):
    """The §5.5 text table (Reuters-21578 pairs) from its transcribed summary file."""
    out = ["| topics | train / validation / test | SVM % | RMM % | RMM gain % | p |",
           "|---|---|---|---|---|---|"]
    for r in records:
        q = r["result"]
        out.append(f"| {' / '.join(r['pair'])} | {q['n_train']} / {q['n_val']} / {q['n_test']} | "
                   f"{q['svm']:.2f} | {q['rmm']:.2f} | {q['gain']:.1f} | {q['p']:.3f} |")
    return "\n".join(out)


def table4_summary_markdown(records):
    """RMM Table 4 from a transcribed summary file (per data set and method: mean, sd and
    whether it was bold), the paper's mean in brackets."""
    from .rmm_benchmarks import TABLE4_METHODS, TABLE4_REPORTED

    out = ["| data | " + " | ".join(TABLE4_METHODS) + " |", "|---" * (len(TABLE4_METHODS) + 1) + "|"]
    for r in records:
        rep = TABLE4_REPORTED[r["data"]]
        cells = []
        for j, m in enumerate(TABLE4_METHODS):
            q = r["result"][m]
            txt = f"{q['mean']:.1f} ± {q['sd']:.1f}"
            cells.append(f"{'**' + txt + '**' if q['bold'] else txt} ({rep[j][0]:.1f})")
        out.append(f"| {r['data'].replace('_', ' ')} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _thin(n):
    """``1 193`` for 1193 (a thin space every three digits, as the book types counts)."""
    return f"{n:,}".replace(",", " ")


def _sci(x):
    """``x`` to one significant digit as ``d·10ⁿ`` (9.6e-9 gives ``1·10⁻⁸``, not ``10·10⁻⁹``)."""
    mant, e = f"{x:.0e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mant}·10{str(int(e)).translate(sup)}"


def runtime_markdown(records):
    """The RMM run-time table (RMM §5.7, ``python -m benchmarks.rmm``) from its results file
    (``rmm_runtime.jsonl``, written by ``benchmarks.rmm --record`` or ``--from-json``): fit
    times of the SVM and the RMM, their ratios, the cvxopt QP and the relative dual
    difference. Fit times to the millisecond, the QP's to a tenth of a second, ratios to two
    decimals (B3 ÷ (B = ∞) to one), QP ÷ fast rounded to a whole number, the dual
    difference to one significant digit; ``–`` where the QP was not run."""
    out = ["| data, m | SVM (s) | RMM B = ∞ (s) | RMM B1 / B2 / B3 (s) | RMM ÷ SVM | B3 ÷ (B = ∞) | "
           "cvxopt QP, B2 (s) | QP ÷ fast | relative dual difference |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        q = r["result"]
        qp = "–" if q["qp"] is None else f"{q['qp']:.1f}"
        ratio = "–" if q["qp_over_fast"] is None else f"{_thin(round(q['qp_over_fast']))}×"
        dd = "–" if q["dual_diff"] is None else _sci(q["dual_diff"])
        out.append(f"| {r['data']}, {_thin(r['m'])} | {q['svm']:.3f} | {q['rmm_inf']:.3f} | "
                   + " / ".join(f"{v:.3f}" for v in q["rmm"]) + " | "
                   + " / ".join(f"{v:.2f}" for v in q["rmm_over_svm"])
                   + f" | {q['b3_over_inf']:.1f} | {qp} | {ratio} | {dd} |")
    return "\n".join(out)
