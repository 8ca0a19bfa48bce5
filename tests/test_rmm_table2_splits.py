"""RMM Table 2 (§5.2) on the paper's five 80:20 splits (kernelclf.experiments.rmm):

* the eigendecomposition memo of the whitened kernel is bit-identical and shared across D;
* a split record scores every grid point (the SVM's against scikit-learn's SVC), and split 0
  is the one split of ``digits_table2``;
* the refit takes the grid point with the fewest validation errors summed over the splits
  (a point no single split prefers) and equals a direct one-versus-one fit on all digits;
* the command records the splits, then (second run) the refits;
* one grid point of the committed USPS file reruns (skipped until the file is committed).
"""
import json
import os

import numpy as np
import pytest

from kernelclf.experiments import rmm as rx


def _small_digits(n_classes=4, seed=0):
    from sklearn.datasets import load_digits

    d = load_digits(n_class=n_classes)
    p = np.random.default_rng(seed).permutation(len(d.target))[:360]
    X, y = d.data[p], d.target[p]
    return X[:240], y[:240], X[240:], y[240:]


def _raw(name):
    """``(header, records)`` of a committed results file, through the package's one reader."""
    from kernelclf.experiments.rmm_results import RESULTS_DIR, load_results

    if not (RESULTS_DIR / name).exists():
        pytest.skip(f"{name} not committed")
    return load_results(name)


_TINY = {"C_grid": (1.0, 10.0), "kappas": (0.5,), "D_grid": (0.5,), "lam_grid": (1e-3,)}


def test_eigh_memo_reuses_the_decomposition_across_D_and_is_bit_identical():
    from kernelclf.kernels.whitened import _eigh_memo
    from kernelclf.margin.rmm import SigmaSVM

    Xtr, ytr, Xte, _ = _small_digits(n_classes=2)
    U, V = rx._unit_rows(Xtr), rx._unit_rows(Xte)
    k = rx.unit_poly(2)
    plain = [SigmaSVM(k, C=1.0, D=D).fit(U, ytr).decision_function(V) for D in (0.5, 0.9)]
    with _eigh_memo() as memo:
        again = [SigmaSVM(k, C=1.0, D=D).fit(U, ytr).decision_function(V) for D in (0.5, 0.9)]
        assert len(memo) == 1                       # one decomposition for both D
    for p, q in zip(plain, again):
        np.testing.assert_array_equal(p, q)
    assert not np.allclose(plain[0], plain[1])      # D matters, so the reuse is not trivial


def test_table2_split_record_scores_every_grid_point_and_split_0_is_the_one_split_protocol():
    from sklearn.svm import SVC

    rec0 = rx.table2_split_record("sklearn", 2, 0, methods=("SVM", "KLDA"), **_TINY)
    rec1 = rx.table2_split_record("sklearn", 2, 1, methods=("SVM",), **_TINY)
    assert [q["C"] for q in rec0["grid"]["SVM"]] == [1.0, 10.0]
    assert rec0["n_fit"] + rec0["n_val"] == 1222 and rec0["n_val"] == 1222 - int(0.8 * 1222)
    for meth, pts in rec0["grid"].items():
        assert rec0["chosen"][meth]["errors"] == min(q["errors"] for q in pts)
    # split 0 is the split of digits_table2 (default_rng(seed)): the same choice
    Xtr, ytr, Xte, yte = rx._digits_data("sklearn")
    old = rx.digits_table2(Xtr, ytr, Xte, yte, degrees=(2,), methods=("SVM", "KLDA"),
                           C_grid=(1.0, 10.0), lam_grid=(1e-3,))
    assert old["params"][0]["SVM"]["C"] == rec0["chosen"]["SVM"]["C"]
    # the splits differ, and each is a partition of the training digits
    U, y, _, _, a0, b0 = rx._table2_fit_val("sklearn", 0, 0)
    # split 0's indices are digits_table2's own: default_rng(seed)'s permutation cut at 80 %
    perm = np.random.default_rng(0).permutation(len(y))
    np.testing.assert_array_equal(np.r_[a0, b0], perm)
    assert len(a0) == int(0.8 * len(y))
    _, _, _, _, a1, b1 = rx._table2_fit_val("sklearn", 0, 1)
    assert sorted(np.r_[a1, b1]) == list(range(len(y))) and set(b0) != set(b1)
    # the SVM points against scikit-learn's one-versus-one SVC (up to tied votes)
    k = rx.unit_poly(2)
    for q in rec1["grid"]["SVM"]:
        ref = SVC(kernel="precomputed", C=q["C"]).fit(k(U[a1]), y[a1])
        ref_err = int(np.sum(ref.predict(k(U[b1], U[a1])) != y[b1]))
        assert abs(q["errors"] - ref_err) <= 2


def test_table2_refit_takes_the_fewest_errors_summed_over_the_splits_and_refits_on_all():
    from kernelclf.margin.rmm import RelativeMarginMachine
    from kernelclf.multiclass import OneVsOneClassifier

    def svm(errs):
        return {"grid": {"SVM": [{"C": C, "errors": e} for C, e in zip((0.1, 1.0, 10.0), errs)]}}

    # per split the best C is 0.1, 0.1 and 10; summed, C = 1 (on no split the best)
    splits = [svm((5, 6, 20)), svm((5, 6, 20)), svm((30, 6, 1))]
    out = rx.table2_refit("sklearn", 1, splits)
    assert out["params"] == {"SVM": {"C": 1.0}} and out["val_errors"] == {"SVM": 18}
    Xtr, ytr, Xte, yte = rx._digits_data("sklearn")
    ref = OneVsOneClassifier(RelativeMarginMachine(rx.unit_poly(1), C=1.0, tol=1e-3),
                             random_state=0).fit(rx._unit_rows(Xtr), ytr)
    assert out["errors"]["SVM"] == int(np.sum(ref.predict(rx._unit_rows(Xte)) != yte))
    assert out["n_test"] == len(yte) and out["n_splits"] == 3
    with pytest.raises(ValueError, match="RBF width"):
        rx.table2_refit("sklearn", "rbf", [{**splits[0], "sigma": 0.5},
                                           {**splits[1], "sigma": 0.7}])


def test_table2_five_split_command_records_the_splits_then_the_refits(tmp_path, monkeypatch):
    from kernelclf.experiments.cli import main

    monkeypatch.setitem(rx.TABLE2_GRIDS, "C_grid", (1.0, 10.0))
    for k_, v in (("kappas", (0.5,)), ("D_grid", (0.5,)), ("lam_grid", (1e-3,)),
                  ("sigma_grid", (0.5, 0.7))):
        monkeypatch.setitem(rx.TABLE2_GRIDS, k_, v)
    rx._rbf_width.cache_clear()
    out = tmp_path / "t2.jsonl"
    argv = ["rmm-digits", "--data", "sklearn", "--splits", "2", "--kernels", "rbf",
            "--out", str(out), "--quiet"]
    main(argv)
    recs = [json.loads(t) for t in out.read_text().splitlines()]
    assert recs[0]["config"]["splits"] == 2 and {"command", "commit", "date"} <= set(
        recs[0]["provenance"])
    assert [r["stage"] for r in recs[1:]] == ["validation"] * 2
    main(argv)                                          # the second run adds the refit
    recs = [json.loads(t) for t in out.read_text().splitlines()]
    assert [r["stage"] for r in recs[1:]] == ["validation"] * 2 + ["refit"]
    val = [r["result"] for r in recs[1:3]]
    # the width: the SVM's fewest validation errors over (width, C) summed over both splits
    tot = np.sum([[q["errors"] for q in v["width"]] for v in val], axis=0)
    assert val[0]["sigma"] == val[1]["sigma"] == val[0]["width"][int(np.argmin(tot))]["sigma"]
    refit = recs[3]["result"]
    assert refit == rx.table2_refit("sklearn", "rbf", val)
    rx._rbf_width.cache_clear()


@pytest.mark.skipif(not os.environ.get("KERNELCLF_DATA"), reason="needs the data home")
def test_usps_five_split_file_reruns_one_grid_point():
    """One record of the committed five-split USPS file, rerun: the SVM's validation
    errors at C = 10, degree 1, split 1 (skipped until the file is committed)."""
    from kernelclf.margin.rmm import RelativeMarginMachine

    head, raw = _raw("rmm_table2_usps_splits.jsonl")
    assert head["config"]["splits"] == rx.TABLE2_SPLITS
    rec = next(r for r in raw if r["key"] == "usps/1/split1")
    pt = next(q for q in rec["result"]["grid"]["SVM"] if q["C"] == 10.0)
    U, y, _, _, a, b = rx._table2_fit_val("usps", 0, 1)
    est = RelativeMarginMachine(rx.unit_poly(1), C=10.0, tol=1e-3)
    assert rx.table2_val_errors(est, U, y, a, b, 0) == pt["errors"]


def _val(degree, split, grid, **extra):
    return {"key": f"usps/{degree}/split{split}", "degree": degree, "split": split,
            "stage": "validation", "result": {"grid": grid, **extra}}


def test_table2_splits_markdown_recomputes_the_choice_counts_agreement_and_checks_the_refit():
    from kernelclf.experiments.rmm_results import table2_splits_markdown

    def svm(errs):
        return {"SVM": [{"C": C, "errors": e} for C, e in zip((0.1, 1.0, 10.0), errs)]}

    def rmm(errs):
        return {"RMM": [{"C": 10.0, "kappa": k, "errors": e} for k, e in zip((0.5, 0.1), errs)]}

    # degree 2: summed, C = 1 (18 errors), the best on split 2 only (a tie there with C = 10);
    # the RMM's kappa = 0.1 wins on both splits; degree 3 has one split only (left out)
    recs = [_val(2, 0, {**svm((5, 12, 20)), **rmm((9, 7))}),
            _val(2, 1, {**svm((30, 6, 6)), **rmm((8, 3))}),
            _val(3, 0, {**svm((1, 2, 3)), **rmm((1, 2))}),
            {"key": "usps/2/refit", "degree": 2, "stage": "refit", "result": {
                "params": {"SVM": {"C": 1.0}, "RMM": {"C": 10.0, "kappa": 0.1}},
                "errors": {"SVM": 111, "RMM": 98}, "n_test": 2007, "n_splits": 2}}]
    errors, params, rows = table2_splits_markdown(recs, n_splits=2)
    assert [r["column"] for r in rows] == [2]
    r = rows[0]
    assert r["params"] == {"SVM": {"C": 1.0}, "RMM": {"C": 10.0, "kappa": 0.1}}
    assert r["val_errors"] == {"SVM": 18, "RMM": 10} and r["agree"] == {"SVM": 1, "RMM": 2}
    assert r["split_best"]["SVM"] == [[{"C": 0.1}], [{"C": 1.0}, {"C": 10.0}]]
    rep = rx.TABLE2_REPORTED["USPS"]
    assert errors.splitlines() == ["| method | degree 2 |", "|---|---|",
                                   f"| SVM | 111 / {rep['SVM'][1]} |",
                                   f"| RMM | 98 / {rep['RMM'][1]} |"]
    assert params.splitlines()[2] == "| degree 2 | 1 (1/2) | 10, 0.1 (2/2) |"
    # no refit yet: the parameters render, the error table is empty
    errors, params, _ = table2_splits_markdown(recs[:3], n_splits=2)
    assert errors == "" and params.count("\n") == 2
    # a refit whose parameters do not follow from the splits is refused
    bad = {**recs[3], "result": {**recs[3]["result"], "params": {
        "SVM": {"C": 10.0}, "RMM": {"C": 10.0, "kappa": 0.1}}}}
    with pytest.raises(ValueError, match="fewest summed errors"):
        table2_splits_markdown(recs[:3] + [bad], n_splits=2)


def test_table2_splits_rbf_width_agreement_counts_the_splits_own_best_widths():
    from kernelclf.experiments.rmm_results import table2_splits_markdown

    def width(errs):
        return [{"sigma": s, "C": 1.0, "errors": e} for s, e in zip((0.35, 0.5, 0.7), errs)]

    grid = {"KLDA": [{"lam": 1e-4, "errors": 3}, {"lam": 1e-3, "errors": 4}]}
    recs = [_val("rbf", s, grid, sigma=0.5, width=width(w))
            for s, w in enumerate(((4, 4, 9), (2, 3, 1), (5, 3, 8)))]
    _, params, rows = table2_splits_markdown(recs, n_splits=3)
    assert rows[0]["width_agree"] == 2              # splits 0 (tie) and 2, not split 1
    assert params.splitlines()[2] == "| RBF, width σ = 0.5 (2/3) | 10⁻⁴ (3/3) |"
    recs[1]["result"]["sigma"] = 0.7
    with pytest.raises(ValueError, match="width"):
        table2_splits_markdown(recs, n_splits=3)


@pytest.mark.skipif(not os.environ.get("KERNELCLF_DATA"), reason="needs the data home")
def test_usps_five_split_file_is_complete_and_its_refits_follow_from_its_splits():
    """The committed file: five validation records per column, a refit per column whose
    parameters are the fewest summed validation errors (``table2_splits`` raises otherwise),
    rendered beside the paper's USPS row."""
    from kernelclf.experiments.rmm_results import table2_splits_markdown

    head, raw = _raw("rmm_table2_usps_splits.jsonl")
    assert head["config"]["data"] == "usps" and head["config"]["grids"] == {
        k: list(v) for k, v in rx.TABLE2_GRIDS.items()}
    errors, params, rows = table2_splits_markdown(raw)
    assert [r["column"] for r in rows] == [1, 2, 3, 4, 5, 6, 7, "rbf"]
    refits = {r["degree"]: r["result"] for r in raw if r["stage"] == "refit"}
    rep = rx.TABLE2_REPORTED["USPS"]
    for r in rows:
        assert r["errors"] == refits[r["column"]]["errors"] and r["n_test"] == 2007
        assert r["val_errors"] == refits[r["column"]]["val_errors"]
    body = [ln.strip("|").split("|") for ln in errors.splitlines()[2:]]
    for line, meth in zip(body, ("SVM", "Sigma-SVM", "KLDA", "RMM")):
        assert [int(c.split("/")[0]) for c in line[1:]] == [r["errors"][meth] for r in rows]
        assert [int(c.split("/")[1]) for c in line[1:]] == rep[meth]
    # the RBF width every split used is the SVM's (width, C) pair with the fewest validation
    # errors summed over the five splits' width grids (table2_splits only checks that they agree)
    wsp = sorted((r for r in raw if r["stage"] == "validation" and r["degree"] == "rbf"),
                 key=lambda r: r["split"])
    tot = np.sum([[q["errors"] for q in r["result"]["width"]] for r in wsp], axis=0)
    assert rows[-1]["sigma"] == wsp[0]["result"]["width"][int(np.argmin(tot))]["sigma"]
    assert all(r["result"]["n_fit"] + r["result"]["n_val"] == 7291 for r in raw
               if r["stage"] == "validation")
