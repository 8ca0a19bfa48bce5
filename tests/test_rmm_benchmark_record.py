"""``benchmarks.rmm``'s results file (chapter 13's run-time table, RMM §5.7 Fig. 10).

* :func:`benchmarks.rmm.record_from_json` turns a saved ``rmm.json`` into the results file
  without running: a small synthetic run goes through it and comes back field for field
  (times, ratios, the QP's absence above ``QP_MAX``, the provenance of the run, not of the
  conversion);
* the committed ``rmm_runtime.jsonl`` parses, and every record has the fields
  :func:`kernelclf.experiments.rmm_results.runtime_markdown` reads, consistent with each other
  (a ratio is the quotient of its times);
* the deterministic part of two records (theta and the SMO steps) reruns: the file is the
  present solvers' (the stale-file check of the registry's RMM Fig. 10 row).
"""
import datetime
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIELDS = {"svm", "rmm_inf", "rmm", "rmm_over_svm", "b3_over_inf", "qp", "qp_over_fast",
          "dual_diff"}


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import rmm
    finally:
        sys.path.remove(str(ROOT))
    return rmm


def _row(data, m, t, qp=None):
    row = {"data": data, "m": m, "theta": 2.0 + m / 1e4,
           **{f"t_{k}": v for k, v in zip(("SVM", "Binf", "B1", "B2", "B3"), t)},
           **{f"iter_{k}": m + j for j, k in enumerate(("B1", "B2", "B3"))}, "iter_SVM": m - 1}
    if qp is not None:
        row.update(t_QP_B2=qp, qp_over_fast_B2=qp / row["t_B2"], rel_dual_gap_B2=3e-9,
                   decision_agreement_B2=1.0)
    for k in ("B1", "B2", "B3"):
        row[f"{k}_over_SVM"] = row[f"t_{k}"] / row["t_SVM"]
    row["B3_over_Binf"] = row["t_B3"] / row["t_Binf"]
    return row


def test_record_from_json_round_trips_a_saved_run(bench, tmp_path):
    from kernelclf.experiments.rmm_results import load_results, provenance, runtime_markdown

    rows = [_row("digits", 500, (0.01, 0.009, 0.012, 0.013, 0.02), qp=1.5),
            _row("mnist5k", 4000, (0.6, 0.55, 0.61, 0.78, 1.3))]
    saved = {"rows": rows, "growth_exponents": {"mnist5k:B3": 2.0}, "C": 1.0, "tol": 1e-3,
             "kernel": "k", "repeats": 3, "python": "3.11.7", "machine": "x86_64"}
    src = tmp_path / "rmm.json"
    src.write_text(json.dumps(saved))
    out = tmp_path / "rmm_runtime.jsonl"
    with pytest.raises(ValueError, match="commit"):        # a saved run without its commit
        bench.record_from_json(src, out)
    prov = bench.record_from_json(src, out, commit="5bd54b7", note="from a saved run")
    head, recs = load_results(out)
    assert head["provenance"] == prov and prov["commit"] == "5bd54b7"
    mtime = datetime.datetime.fromtimestamp(src.stat().st_mtime, datetime.timezone.utc)
    assert prov["date"] == mtime.isoformat(timespec="seconds")
    assert provenance(head).startswith("`python -m benchmarks.rmm` (commit 5bd54b7, ")
    assert (head["config"]["C"], head["config"]["tol"], head["config"]["degree"]) == (1.0, 1e-3, 5)
    assert head["config"]["growth_exponents"] == {"MNIST-5k:B3": 2.0}
    assert head["config"]["machine"] == {"python": "3.11.7", "machine": "x86_64"}
    assert [r["key"] for r in recs] == ["digits/500", "MNIST-5k/4000"]
    for rec, row in zip(recs, rows):
        q = rec["result"]
        assert FIELDS <= set(q) and rec["provenance"] == prov and rec["m"] == row["m"]
        assert (q["svm"], q["rmm_inf"], q["rmm"]) == (
            row["t_SVM"], row["t_Binf"], [row["t_B1"], row["t_B2"], row["t_B3"]])
        assert q["rmm_over_svm"] == [row[f"B{j}_over_SVM"] for j in (1, 2, 3)]
        assert q["b3_over_inf"] == row["B3_over_Binf"] and q["theta"] == row["theta"]
        assert q["iterations"] == {"SVM": row["iter_SVM"], "B1": row["iter_B1"],
                                   "B2": row["iter_B2"], "B3": row["iter_B3"]}
    assert recs[0]["result"]["qp"] == 1.5 and recs[0]["result"]["dual_diff"] == 3e-9
    assert recs[1]["result"]["qp"] is None and recs[1]["result"]["qp_over_fast"] is None
    table = runtime_markdown(recs).splitlines()
    assert table[2].startswith("| digits, 500 | 0.010 | 0.009 | 0.012 / 0.013 / 0.020 | 1.20 / ")
    assert table[3].endswith("| 2.4 | – | – | – |")
    # a saved run that carries its own provenance keeps it (the note is added)
    saved["provenance"] = {"command": "python -m benchmarks.rmm", "commit": "abc1234",
                           "date": "2026-01-02T03:04:05+00:00"}
    src.write_text(json.dumps(saved))
    prov = bench.record_from_json(src, out, commit="ignored", note="n")
    assert prov == {**saved["provenance"], "note": "n"}
    assert load_results(out)[0]["provenance"]["commit"] == "abc1234"


def test_committed_runtime_file_parses_and_has_the_rendered_fields():
    from kernelclf.experiments.rmm_results import load_results

    head, recs = load_results("rmm_runtime.jsonl")
    assert {"command", "commit", "date"} <= set(head["provenance"])
    assert {"C", "tol", "degree", "growth_exponents", "machine"} <= set(head["config"])
    assert {r["data"] for r in recs} == {"digits", "MNIST-5k"} and len(recs) == 7
    for r in recs:
        q = r["result"]
        assert FIELDS <= set(q), (r["key"], FIELDS - set(q))
        assert r["key"] == f"{r['data']}/{r['m']}" and r["provenance"] == head["provenance"]
        assert len(q["rmm"]) == len(q["rmm_over_svm"]) == 3
        assert all(t > 0 for t in [q["svm"], q["rmm_inf"], *q["rmm"]])
        assert q["rmm_over_svm"] == pytest.approx([t / q["svm"] for t in q["rmm"]])
        assert q["b3_over_inf"] == pytest.approx(q["rmm"][2] / q["rmm_inf"])
        if q["qp"] is not None:
            assert q["qp_over_fast"] == pytest.approx(q["qp"] / q["rmm"][1])
            assert 0 <= q["dual_diff"] < 1e-3    # the fast solver at tol 1e-3 against the QP
        else:
            assert q["qp_over_fast"] is None and q["dual_diff"] is None


@pytest.mark.parametrize("key", ["digits/500", "MNIST-5k/500"])
def test_committed_runtime_file_reruns(bench, key):
    """The deterministic part of a record, recomputed now: theta = max |f_SVM| and the SMO
    steps of the SVM and of the RMM at B1, B2, B3 (the times are the idle machine's and are
    not rerun). The step counts may differ by round-off in a few steps: the NumPy engine
    (no numba) computes the kernel columns with other floating-point operations than the
    compiled loop, and the compiled loop's columns changed since the record (BLAS products
    for inputs with more than 32 features, so for the 8 x 8 digits: 505 steps where the
    record has 503 at B2). Fails when the solvers change more than that: rerun
    ``python -m benchmarks.rmm --record`` on an idle machine then."""
    import numpy as np

    from kernelclf.experiments.rmm_results import load_results
    from kernelclf.margin import RelativeMarginMachine, SupportVectorMachine, rmm_bound

    data = key.split("/")[0]
    if data == "MNIST-5k":
        from kernelclf.datasets import load
        try:
            load("mnist5k")
        except Exception as exc:  # noqa: BLE001  (no data home: the 8 x 8 digits still run)
            pytest.skip(f"MNIST-5k not available: {exc}")
    rec = next(r for r in load_results("rmm_runtime.jsonl")[1] if r["key"] == key)
    X, y = bench.load_task({v: k for k, v in bench.DATA_LABELS.items()}[data])
    X, y = X[:rec["m"]], y[:rec["m"]]
    svm = SupportVectorMachine(bench.kernel(), C=bench.C, tol=bench.TOL).fit(X, y)
    theta = float(np.max(np.abs(svm.decision_function(X))))
    assert theta == pytest.approx(rec["result"]["theta"], rel=1e-9)
    steps = {"SVM": int(svm.n_iter_)}
    for k, kappa in bench.KAPPAS.items():
        steps[k] = int(RelativeMarginMachine(bench.kernel(), C=bench.C, B=rmm_bound(theta, kappa, 1),
                                             tol=bench.TOL).fit(X, y).n_iter_)
    want = rec["result"]["iterations"]
    assert steps.keys() == want.keys()
    assert steps == pytest.approx(want, rel=0.02)


def test_runtime_table_dual_difference_has_one_significant_digit():
    """The relative dual difference column: one digit and a power of ten, carried over
    when the digit rounds up to 10 (9.6e-9 is 1·10⁻⁸, not 10·10⁻⁹)."""
    from kernelclf.experiments.rmm_results import _sci

    assert [_sci(x) for x in (6.84e-9, 9.6e-9, 4.38e-7, 9.16e-10)] == [
        "7·10⁻⁹", "1·10⁻⁸", "4·10⁻⁷", "9·10⁻¹⁰"]


def test_quick_record_refuses_to_overwrite_the_committed_run(bench, monkeypatch):
    """``--quick --record`` (digits only, no QP) without ``--out`` stops before running
    anything: the committed file holds the full run the chapter renders."""
    from kernelclf.experiments.results import results_path

    committed = Path(results_path(bench.RECORD_NAME))
    before = committed.read_bytes()
    monkeypatch.setattr(bench, "run", lambda *a, **k: pytest.fail("the quick run started"))
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--record"])
    assert committed.read_bytes() == before
