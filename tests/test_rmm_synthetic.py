"""RMM §5.1 (Figs 3-6) on the paper's protocol: the committed results file reruns, and the
summaries pair the repetitions (kernelclf.experiments.rmm_synthetic)."""
import numpy as np
import pytest

from kernelclf.experiments import rmm_synthetic as rs
from kernelclf.experiments.results import load_results


@pytest.fixture(scope="module")
def committed():
    return load_results("rmm_synthetic.jsonl")


def test_committed_file_has_the_papers_protocol(committed):
    assert committed.header["config"]["n_val"] == 100_000 == rs.N_VAL
    assert committed.header["config"]["n_test"] == 100_000 == rs.N_TEST
    recs = committed.records
    for fig, n_groups in ((4, len(rs.FIG4_SIZES)), (5, len(rs.FIG5_SCALES)), (6, 1)):
        mine = [r for r in recs if r["fig"] == fig]
        assert len(mine) == rs.REPS * n_groups, fig
        assert {r["result"]["seed"] for r in mine} == set(range(rs.REPS))
    assert {r["result"]["n_train"] for r in recs if r["fig"] == 5} == {rs.FIG5_N}


def test_committed_file_reruns(committed):
    """Two records of the file, recomputed now with their stored settings, agree."""
    recs = {r["key"]: r["result"] for r in committed.records}
    old = recs["fig4/n=20/3"]
    again = rs.errors_record(old["n_train"], old["seed"], old["s"], old["n_val"], old["n_test"])
    for k in ("svm", "rmm", "bayes", "svm_C", "rmm_C", "rmm_kappa"):
        assert again[k] == old[k], k
    assert again["svm_angle"] == pytest.approx(old["svm_angle"], abs=1e-6)
    old = recs["fig6/2"]
    again = rs.bound_record(old["n_train"], old["seed"], old["s"], old["n_val"], old["n_test"],
                            C_grid=old["C_grid"][3:4], kappas=old["kappas"])
    assert again["test"][0] == old["test"][3] and again["val"][0] == old["val"][3]
    assert again["bayes"] == old["bayes"]


def test_curves_pair_the_repetitions_by_seed():
    """The paired difference is taken seed by seed (a shuffled order would change it)."""
    recs = []
    for seed, (a, b) in enumerate(((0.03, 0.01), (0.02, 0.02), (0.05, 0.01))):
        for n, shift in ((10, 0.0), (40, 0.001)):
            recs.append({"fig": 4, "result": {"n_train": n, "seed": seed, "svm": a + shift,
                                              "rmm": b, "bayes": 0.008, "svm_angle": 1.0,
                                              "rmm_angle": 0.5, "svm_C": 1.0, "rmm_C": 1.0,
                                              "rmm_kappa": 0.5}})
    c = rs.size_curves(recs[::-1])
    assert list(c["x"]) == [10, 40] and list(c["reps"]) == [3, 3]
    d = np.array([0.02, 0.0, 0.04])
    assert c["diff_mean"][0] == pytest.approx(d.mean())
    assert c["diff_sem"][0] == pytest.approx(d.std(ddof=1) / np.sqrt(3))
    assert c["svm_mean"][1] - c["svm_mean"][0] == pytest.approx(0.001)


def test_bound_record_kappa_one_is_the_svm_and_the_bayes_error_is_the_synthetic_one():
    from kernelclf.experiments.rmm import synthetic_errors

    b = rs.bound_record(40, 5, n_val=2000, n_test=2000, C_grid=(1.0, 10.0), kappas=(1.0, 0.3))
    e = synthetic_errors(40, seed=5, n_val=2000, n_test=2000, C_grid=(1.0, 10.0),
                         kappas=(1.0, 0.3))
    assert b["bayes"] == e["bayes"]
    j = (1.0, 10.0).index(e["svm_C"])
    assert min(b["val"][0][0], b["val"][1][0]) == b["val"][j][0]
    assert b["test"][j][0] == e["svm"]


def test_tasks_cover_each_figure_and_reject_others():
    t = rs.synthetic_tasks(figs=(6, 5, 4), reps=2, sizes=(10, 20), scales=(1.0, 4.0))
    assert [x.key for x in t][:2] == ["fig6/0", "fig6/1"]
    assert len(t) == 2 + 4 + 4
    with pytest.raises(ValueError, match="figs are 4, 5 and 6"):
        rs.synthetic_tasks(figs=(3,))
