"""LKC Example 5.11 / Fig. 5.1 on the book's splits (kernelclf.experiments.lkc) and its
committed results file."""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from kernelclf.experiments import COMMANDS, build_parser, lkc
from kernelclf.experiments.results import load_results

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("KERNELCLF_DATA", str(ROOT.parent / "shared" / "data"))


def _have_splits():
    try:
        from kernelclf.datasets import load

        load("thyroid_splits")
        return True
    except (FileNotFoundError, OSError):
        return False


needs_data = pytest.mark.skipif(not _have_splits(), reason="the book's splits are not in the data home")


@needs_data
def test_one_split_against_the_interior_point_hard_margin_solver():
    """The SMO fit at the book's C = 1e20 and the hard-margin QP (cvxopt, an independent
    solver) predict the same test labels, raw and normalised."""
    from kernelclf.datasets import load
    from kernelclf.kernels import Polynomial
    from kernelclf.kernels.closure import Normalized
    from kernelclf.margin.svm import SupportVectorMachine

    res = lkc.normalisation_split("thyroid", 3, degrees=(2, 8))
    assert res["degrees"] == [2, 8] and res["converged"] and res["n_train"] == 140
    d = load("thyroid_splits")
    Xtr, ytr, Xte, yte = d.X_train[3], d.y_train[3], d.X_test[3], d.y_test[3]
    for j, p in enumerate((2, 8)):
        for name, k in (("raw", Polynomial(p, 1.0)), ("normalised", Normalized(Polynomial(p, 1.0)))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                qp = SupportVectorMachine(k, hard_margin=True, fit_bias=False, solver="qp",
                                          tol=1e-8).fit(Xtr, ytr)
            assert np.mean(qp.predict(Xte) != yte) == pytest.approx(res[name][j], abs=1.5 / len(yte))


def test_curves_means_errors_and_paired_test():
    recs = [{"dataset": "sonar", "split": s,
             "result": {"degrees": [2, 4], "raw": [0.2 + 0.01 * s, 0.3], "normalised": [0.2, 0.3]}}
            for s in range(5)]
    c = lkc.normalisation_curves(recs)["sonar"]
    assert c["splits"] == 5 and list(c["degrees"]) == [2, 4]
    np.testing.assert_allclose(c["raw_mean"], [0.22, 0.3])
    np.testing.assert_allclose(c["raw_sem"], [np.std([0.2, 0.21, 0.22, 0.23, 0.24], ddof=1) / np.sqrt(5), 0])
    from scipy.stats import t as student_t

    diffs = 0.01 * np.arange(5)  # raw minus normalised at p = 2
    t_stat = diffs.mean() / (diffs.std(ddof=1) / np.sqrt(5))
    assert c["p_better"][0] == pytest.approx(student_t.sf(t_stat, 4))   # one-sided, 4 dof
    assert c["p_better"][1] == 1.0   # equal on every split: no test
    recs[1]["result"]["degrees"] = [2, 6]
    with pytest.raises(ValueError, match="different degrees"):
        lkc.normalisation_curves(recs)


def test_bad_arguments_and_the_command():
    with pytest.raises(ValueError, match="dataset"):
        lkc.normalisation_split("heart", 0)
    assert "lkc-fig5-1" in COMMANDS
    a = build_parser().parse_args(["lkc-fig5-1", "--splits", "3", "--degrees", "2", "4"])
    tasks = COMMANDS["lkc-fig5-1"].tasks(a)
    assert [t.key for t in tasks][:4] == ["thyroid/0", "thyroid/1", "thyroid/2", "sonar/0"]
    assert COMMANDS["lkc-fig5-1"].config(a) == {"degrees": [2, 4], "C": 1e20}
    assert lkc.FIG51_DEGREES[0] == 2 and lkc.FIG51_DEGREES[-1] == 40


def test_committed_file_is_the_full_protocol():
    res = load_results("lkc_fig5_1.jsonl")
    assert res.header["command"] == "lkc-fig5-1" and res.failed == 0
    assert res.header["config"] == {"degrees": list(lkc.FIG51_DEGREES), "C": lkc.FIG51_C}
    assert "lkc-fig5-1" in res.header["provenance"]["command"]
    keys = {r["key"] for r in res.records}
    assert keys == {f"{d}/{s}" for d in lkc.FIG51_DATASETS for s in range(100)}
    assert all(r["result"]["converged"] for r in res.records)


@needs_data
def test_committed_file_reruns():
    """A split of the committed file, recomputed now, gives the same errors."""
    res = load_results("lkc_fig5_1.jsonl")
    rec = next(r for r in res.records if r["key"] == "sonar/17")
    again = lkc.normalisation_split("sonar", 17, degrees=rec["result"]["degrees"][:6])
    assert again["raw"] == rec["result"]["raw"][:6]
    assert again["normalised"] == rec["result"]["normalised"][:6]
