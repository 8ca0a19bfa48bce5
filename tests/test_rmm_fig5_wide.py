"""The widened-grid rerun of RMM Fig. 5 that chapter 13 reads (kernelclf.experiments.rmm_fig5_wide).

The page's hidden check reruns the record and compares it exactly; here the file's shape: its
grid, its one task, and a record that is the task's repetition with the wider grid (the same
draws as the Fig. 5 record of rmm_synthetic.jsonl: the Bayes error and validation size agree,
and the chosen C lies beyond that file's grid)."""
from kernelclf.experiments import rmm_fig5_wide as wide
from kernelclf.experiments.results import load_results
from kernelclf.experiments.rmm_synthetic import C_GRID, FIG5_N


def test_wide_grid_extends_the_fig5_grid():
    assert wide.WIDE_C_GRID[:len(C_GRID)] == C_GRID
    assert min(wide.WIDE_C_GRID[len(C_GRID):]) > max(C_GRID)


def test_committed_file_is_the_one_task():
    res = load_results("rmm_fig5_wide.jsonl")
    (task,) = wide.wide_tasks()
    assert res.failed == 0 and [r["key"] for r in res.records] == [task.key]
    assert res.header["config"] == {"C_grid": list(wide.WIDE_C_GRID), "n_train": FIG5_N}
    rec = res.records[0]["result"]
    assert (rec["n_train"], rec["seed"], rec["s"]) == (FIG5_N, wide.WIDE_SEED, wide.WIDE_SCALE)
    narrow = next(r["result"] for r in load_results("rmm_synthetic.jsonl").records
                  if r["key"] == f"fig5/s={wide.WIDE_SCALE:g}/{wide.WIDE_SEED}")
    assert rec["bayes"] == narrow["bayes"] and rec["n_val"] == narrow["n_val"]
    assert rec["svm_C"] in wide.WIDE_C_GRID and rec["rmm_C"] in wide.WIDE_C_GRID
    assert rec["rmm_C"] > max(C_GRID) and rec != narrow
