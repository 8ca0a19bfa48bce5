"""Benchmark: the fast RMM solver against the cvxopt QP and the package's SVM (RMM §5.7).

Problem (RMM §5.7, Fig. 10): digits 0-4 against 5-9, inputs scaled to unit norm, the
polynomial kernel (1 + u'v)^5 divided by 32 (unit diagonal, i.e. trace(K) = m as in
RMM §5.2), C = 1, tolerance 1e-3 (the paper's epsilon). Two data sets: scikit-learn's
8 x 8 digits (``load_digits``, at most 1797 examples) and the MNIST 5 000 subset of the
data home (784 features; m up to 4000). For each m the SVM (``kernelclf.margin.svm``, SMO) is
fitted first, ``theta = max_i |f_SVM(x_i)|``, and the RMM is fitted with the paper's
three bounds B1 = 1 + (theta-1)/2, B2 = 1 + (theta-1)/4, B3 = 1 + (theta-1)/10 by the
fast solver (:func:`kernelclf.margin.rmm.solve_rmm` through ``RelativeMarginMachine``) and,
for m <= ``QP_MAX``, by the dense cvxopt QP (``solver='qp'``, B2 only). Both estimators
start from kernel columns on demand (m > 200); both compiled solvers move to the whole
matrix once they have used a share of the columns set by the input dimension
(:class:`kernelclf.kernels.gram.ColumnSlots`). Both
run on the package's compiled SMO (the RMM on its ``3m`` variables through a
:class:`kernelclf.kernels.gram.Replicated` Gram matrix); the column ``Binf`` fits the RMM
solver with no bound (``B=None``: the SVM dual through the same call) as a same-path
reference: ``B3/Binf`` is the price of the bounds alone. All fits in the
same process with single-threaded BLAS, interleaved, after one warm-up fit (numba loads
its compiled loop once per process); times are medians of ``REPEATS`` runs (QP: one
run). Reported: times, QP / fast and fast / SVM ratios, the
relative difference of the dual values (fast against QP), and the growth exponent of
each fit time in m (least-squares slope of log time on log m).

Run: ``python -m benchmarks.rmm [--quick]``; writes ``benchmarks/results/rmm.json`` (with
the commit, date and machine facts of the run). With ``--record`` it also writes the run as
the package's results file ``kernelclf/experiments/results/rmm_runtime.jsonl`` (a header with
the command, commit, date and machine facts, then one record per data set and m;
:mod:`kernelclf.experiments.results`), the file that chapter 13's run-time table renders
(:func:`kernelclf.experiments.rmm_results.runtime_markdown`). ``--from-json PATH`` turns a
saved ``rmm.json`` into that file without running anything (:func:`record_from_json`).
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from kernelclf.kernels import Polynomial, Scaled  # noqa: E402
from kernelclf.margin import (  # noqa: E402
    RelativeMarginMachine,
    SupportVectorMachine,  # noqa: E402
    rmm_bound,
)

REPEATS = 3
C, TOL = 1.0, 1e-3
KAPPAS = {"B1": 1 / 2, "B2": 1 / 4, "B3": 1 / 10}
SIZES = {"digits": (500, 1000, 1797), "mnist5k": (500, 1000, 2000, 4000)}
QP_MAX = 2000
#: the results file the chapter renders, and the name its records give each data set
RECORD_NAME = "rmm_runtime.jsonl"
DATA_LABELS = {"digits": "digits", "mnist5k": "MNIST-5k"}


def kernel():
    """(1 + u'v)^5 / 32: unit diagonal on unit-norm inputs (RMM §5.2 trace normalisation)."""
    return Scaled(Polynomial(5, 1.0), 1.0 / 32.0)


def load_task(name, seed=0):
    """Digits 0-4 (label -1) against 5-9 (+1), unit-norm rows, shuffled with ``seed``."""
    if name == "digits":
        from sklearn.datasets import load_digits
        d = load_digits()
        X, t = d.data.astype(float), d.target
    else:
        from kernelclf.datasets import load
        b = load("mnist5k")
        X, t = np.asarray(b.X, dtype=float), np.asarray(b.y)
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    y = np.where(t <= 4, -1.0, 1.0)
    p = np.random.default_rng(seed).permutation(len(y))
    return X[p], y[p]


def _timed(fit):
    t0 = time.perf_counter()
    model = fit()
    return time.perf_counter() - t0, model


def _slope(ms, ts):
    ms, ts = np.asarray(ms, float), np.asarray(ts, float)
    if len(ms) < 2:
        return float("nan")
    return float(np.polyfit(np.log(ms), np.log(ts), 1)[0])


def _warm_up():
    X, y = load_task("digits")
    RelativeMarginMachine(kernel(), C=C, B=2.0, tol=TOL).fit(X[:300], y[:300])


def run(datasets=("digits", "mnist5k"), sizes=None, repeats=REPEATS, qp_max=QP_MAX):
    _warm_up()
    rows = []
    for name in datasets:
        X, y = load_task(name)
        for m in (sizes or SIZES[name]):
            m = min(m, len(y))
            Xm, ym = X[:m], y[:m]
            times = {k: [] for k in ["SVM", "Binf", *KAPPAS]}
            for _ in range(repeats):
                t, svm = _timed(lambda: SupportVectorMachine(kernel(), C=C, tol=TOL).fit(Xm, ym))
                times["SVM"].append(t)
                theta = float(np.max(np.abs(svm.decision_function(Xm))))
                t, _ = _timed(lambda: RelativeMarginMachine(kernel(), C=C, B=None,
                                                            tol=TOL).fit(Xm, ym))
                times["Binf"].append(t)
                fast = {}
                for key, kap in KAPPAS.items():
                    B = rmm_bound(theta, kap, 1)
                    t, fast[key] = _timed(lambda: RelativeMarginMachine(
                        kernel(), C=C, B=B, tol=TOL).fit(Xm, ym))
                    times[key].append(t)
            row = {"data": name, "m": m, "theta": theta,
                   **{f"t_{k}": float(np.median(v)) for k, v in times.items()},
                   **{f"iter_{k}": int(fast[k].n_iter_) for k in KAPPAS},
                   "iter_SVM": int(svm.n_iter_)}
            if m <= qp_max:
                B = rmm_bound(theta, KAPPAS["B2"], 1)
                t, qp = _timed(lambda: RelativeMarginMachine(kernel(), C=C, B=B,
                                                             solver="qp").fit(Xm, ym))
                row["t_QP_B2"] = t
                row["qp_over_fast_B2"] = t / row["t_B2"]
                ref = qp.dual_objective_
                row["rel_dual_gap_B2"] = abs(fast["B2"].dual_objective_ - ref) / abs(ref)
                row["decision_agreement_B2"] = float(np.mean(
                    np.sign(fast["B2"].decision_function(Xm)) == np.sign(qp.decision_function(Xm))))
            for k in KAPPAS:
                row[f"{k}_over_SVM"] = row[f"t_{k}"] / row["t_SVM"]
            row["B3_over_Binf"] = row["t_B3"] / row["t_Binf"]
            rows.append(row)
            print(_fmt_row(row), flush=True)
    slopes = {}
    for name in datasets:
        sub = [r for r in rows if r["data"] == name]
        ms = [r["m"] for r in sub]
        for k in ["SVM", "Binf", *KAPPAS]:
            slopes[f"{name}:{k}"] = _slope(ms, [r[f"t_{k}"] for r in sub])
        qs = [r for r in sub if "t_QP_B2" in r]
        slopes[f"{name}:QP_B2"] = _slope([r["m"] for r in qs], [r["t_QP_B2"] for r in qs])
    from kernelclf.experiments.runner import provenance

    return {"rows": rows, "growth_exponents": slopes, "C": C, "tol": TOL,
            "kernel": "(1 + u'v)^5 / 32 on unit-norm inputs", "repeats": repeats,
            "python": platform.python_version(), "machine": platform.machine(),
            "machine_facts": _machine_facts(),
            "provenance": provenance("python -m benchmarks.rmm")}


def _machine_facts():
    """Where the run took place: processor, core count, system and library versions."""
    import scipy

    try:
        import numba
        numba_version = numba.__version__
    except ImportError:                          # the NumPy engines ran
        numba_version = None
    return {"processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "system": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "numba": numba_version,
            "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}


def _fmt_row(r):
    qp = (f"{r['t_QP_B2']:8.2f} {r['qp_over_fast_B2']:7.1f}x {r['rel_dual_gap_B2']:.1e}"
          if "t_QP_B2" in r else f"{'-':>8} {'-':>8} {'-':>7}")
    return (f"{r['data']:8s} {r['m']:5d} {r['theta']:6.2f} {r['t_SVM']:7.3f} "
            f"{r['t_Binf']:7.3f} {r['t_B1']:7.3f} {r['t_B2']:7.3f} {r['t_B3']:7.3f}  "
            f"{r['B1_over_SVM']:5.2f} {r['B2_over_SVM']:5.2f} {r['B3_over_SVM']:5.2f} "
            f"{r['B3_over_Binf']:7.2f}  {qp}")


def table(result):
    head = (f"{'data':8s} {'m':>5s} {'theta':>6s} {'SVM s':>7s} {'Binf s':>7s} {'B1 s':>7s} "
            f"{'B2 s':>7s} {'B3 s':>7s}  {'B1/S':>5s} {'B2/S':>5s} {'B3/S':>5s} {'B3/Binf':>7s}  "
            f"{'QP(B2) s':>8s} "
            f"{'QP/fast':>8s} {'dD/D':>7s}")
    lines = [head] + [_fmt_row(r) for r in result["rows"]]
    lines.append("growth exponents: " + ", ".join(
        f"{k} {v:.2f}" for k, v in result["growth_exponents"].items() if np.isfinite(v)))
    return "\n".join(lines)


def _record_result(row):
    """The ``result`` of one record (the fields ``runtime_markdown`` reads, then the rest
    of the row): times in seconds, ratios, the QP's time and relative dual difference
    (``None`` above ``QP_MAX``)."""
    return {"svm": row["t_SVM"], "rmm_inf": row["t_Binf"],
            "rmm": [row[f"t_{k}"] for k in KAPPAS],
            "rmm_over_svm": [row[f"{k}_over_SVM"] for k in KAPPAS],
            "b3_over_inf": row["B3_over_Binf"], "qp": row.get("t_QP_B2"),
            "qp_over_fast": row.get("qp_over_fast_B2"), "dual_diff": row.get("rel_dual_gap_B2"),
            "qp_decision_agreement": row.get("decision_agreement_B2"), "theta": row["theta"],
            "iterations": {k: row[f"iter_{k}"] for k in ["SVM", *KAPPAS]}}


def _relabel(key):
    """``"mnist5k:B3"`` -> ``"MNIST-5k:B3"`` (the data set as the chapter names it)."""
    data, _, fit = key.partition(":")
    return f"{DATA_LABELS.get(data, data)}:{fit}"


def write_record(result, path, provenance=None):
    """Write a run of :func:`run` as a results file of :mod:`kernelclf.experiments.results`.

    A header (``command``, the settings in ``config`` -- C, tol, the kernel's degree, the
    repeats, the growth exponents, the machine facts -- and ``provenance``: command, commit,
    date, and a ``note`` where given), then one record per (data set, m), keyed
    ``"<data>/<m>"`` with the data set named as the chapter names it (``DATA_LABELS``), each
    carrying the same ``provenance``. ``provenance`` defaults to the run's own (``result
    ["provenance"]``), else to this checkout's commit and the present time.
    """
    if provenance is None:
        provenance = result.get("provenance")
    if provenance is None:
        from kernelclf.experiments.runner import provenance as _here

        provenance = _here("python -m benchmarks.rmm --record")
    facts = dict(result.get("machine_facts") or {})
    for k in ("python", "machine"):
        if k in result:
            facts.setdefault(k, result[k])
    config = {"C": result["C"], "tol": result["tol"], "degree": kernel().kernel.degree,
              "kernel": result.get("kernel"), "repeats": result.get("repeats"),
              "bounds": {k: f"1 + (theta - 1) * {v:g}" for k, v in KAPPAS.items()},
              "growth_exponents": {_relabel(k): v for k, v in result["growth_exponents"].items()},
              "machine": facts}
    header = {"kernelclf_results": 1, "command": "benchmarks.rmm", "config": config,
              "provenance": provenance}
    lines = [json.dumps(header)]
    for row in result["rows"]:
        data = DATA_LABELS.get(row["data"], row["data"])
        lines.append(json.dumps({"key": f"{data}/{row['m']}", "data": data, "m": row["m"],
                                 "result": _record_result(row), "provenance": provenance}))
    Path(path).write_text("\n".join(lines) + "\n")


def record_from_json(json_path, out_path, commit=None, date=None, note=None,
                     command="python -m benchmarks.rmm"):
    """Turn a saved ``benchmarks/results/rmm.json`` into the results file ``out_path``
    (:func:`write_record`) without running anything.

    The provenance is the json's own where it has one (runs since ``--record`` exists);
    else ``command``, ``commit`` (required then) and ``date`` (default: the json file's
    modification time, UTC, ISO 8601), with ``note`` saying how the file was made.
    Returns the provenance written.
    """
    result = json.loads(Path(json_path).read_text())
    prov = dict(result.get("provenance") or {})
    if not prov:
        if not commit:
            raise ValueError(f"{json_path} records no commit: pass the commit of the run")
        if date is None:
            mtime = Path(json_path).stat().st_mtime
            date = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).isoformat(
                timespec="seconds")
        prov = {"command": command, "commit": commit, "date": date}
    if note:
        prov["note"] = note
    write_record(result, out_path, prov)
    return prov


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.rmm")
    ap.add_argument("--quick", action="store_true", help="digits only, one repeat, no QP")
    ap.add_argument("--qp-max", type=int, default=QP_MAX)
    ap.add_argument("--record", action="store_true",
                    help=f"also write the run as kernelclf/experiments/results/{RECORD_NAME}")
    ap.add_argument("--from-json", metavar="PATH",
                    help="write the results file from a saved rmm.json; runs nothing")
    ap.add_argument("--commit", help="with --from-json: the commit the saved run ran on")
    ap.add_argument("--date", help="with --from-json: the run's date (default: the file's mtime)")
    ap.add_argument("--note", help="with --from-json: how the run was made")
    ap.add_argument("--out", help=f"results file to write (default: the package's {RECORD_NAME})")
    args = ap.parse_args(argv)
    if args.quick and args.record and not args.out:
        # a quick run (digits only, no QP) must not replace the committed full run the
        # chapter renders
        ap.error("--quick --record would overwrite the committed full run "
                 f"{RECORD_NAME}; give --out PATH")
    if args.out:
        out_record = args.out
    else:
        from kernelclf.experiments.results import results_path

        out_record = results_path(RECORD_NAME)
    if args.from_json:
        prov = record_from_json(args.from_json, out_record, commit=args.commit, date=args.date,
                                note=args.note)
        print(f"written {out_record} ({prov})")
        return None
    if args.quick:
        result = run(("digits",), repeats=1, qp_max=0)
    else:
        result = run(qp_max=args.qp_max)
    print(table(result))
    out = Path(__file__).resolve().parent / "results" / "rmm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    if args.record:
        write_record(result, out_record)
        print(f"written {out_record}")
    return result


if __name__ == "__main__":
    main()
