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
    """Each group's arrays are in seed order, so arrays of two groups pair seed by seed (the
    records of the two sizes come in different orders here)."""
    recs = []
    for seed, (a, b) in enumerate(((0.03, 0.01), (0.02, 0.02), (0.05, 0.01))):
        for n, shift in ((10, 0.0), (40, 0.001)):
            recs.append({"fig": 4, "result": {"n_train": n, "seed": seed, "svm": a + shift,
                                              "rmm": b, "bayes": 0.008, "svm_angle": 1.0,
                                              "rmm_angle": 0.5, "svm_C": 1.0, "rmm_C": 1.0,
                                              "rmm_kappa": 0.5}})
    order = [0, 2, 4, 5, 1, 3]  # size 10: seeds 0, 1, 2; size 40: seeds 2, 0, 1
    c = rs.size_curves([recs[i] for i in order])
    g = c["groups"]
    assert list(g[10]["seed"]) == list(g[40]["seed"]) == [0, 1, 2]
    assert g[40]["svm"] - g[10]["svm"] == pytest.approx(np.full(3, 0.001))
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


def test_angle_is_the_oriented_angle_between_the_normals():
    """The angle Fig. 3's text reports, against normals of known direction."""
    class Linear:
        def __init__(self, w, b):
            self.w, self.b = np.asarray(w, float), b

        def decision_function(self, X):
            return X @ self.w + self.b

    bayes = np.array([2.0, -1.0])
    t = np.radians(30.0)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    assert rs._angle(Linear(3.0 * rot @ bayes, 0.4), bayes) == pytest.approx(30.0)
    assert rs._angle(Linear(-bayes, -0.2), bayes) == pytest.approx(180.0)
    assert rs._angle(Linear(0.5 * bayes, 7.0), bayes) == pytest.approx(0.0, abs=1e-6)


def test_bound_curves_stack_the_repetitions_in_seed_order():
    recs = [{"fig": 6, "result": {"seed": s, "C_grid": [1.0, 10.0], "kappas": [1.0, 0.5],
                                  "val": [[s, 1.0], [2.0, 3.0]], "test": [[0.0, s], [1.0, 1.0]],
                                  "bayes": 0.01 * s}} for s in (2, 0, 1)]
    b = rs.bound_curves(recs + [{"fig": 5, "result": {}}])
    assert b["reps"] == 3 and list(b["bayes"]) == pytest.approx([0.0, 0.01, 0.02])
    assert b["val"].shape == b["test"].shape == (3, 2, 2)
    assert list(b["test"][:, 0, 1]) == [0.0, 1.0, 2.0]
    assert b["val_mean"][0, 0] == pytest.approx(1.0) and list(b["kappas"]) == [1.0, 0.5]
