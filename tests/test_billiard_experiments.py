"""The committed results files that chapter 11 reads (kernelclf.experiments.billiard_stopping,
kernelclf.experiments.billiard_refresh), rerun in part here, with numba and (make
unit-no-numba) without it: the NumPy engine that the in-browser lab runs gives the records
of the file exactly, so the page shows the lab what the lab itself would compute."""
import os
from pathlib import Path

import numpy as np
import pytest

from kernelclf.bayespoint.billiard_engines import HAVE_NUMBA
from kernelclf.experiments import billiard_refresh as br
from kernelclf.experiments import billiard_stopping as bs
from kernelclf.experiments.results import load_results

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("KERNELCLF_DATA") or ROOT.parent / "shared" / "data")


@pytest.fixture(scope="module")
def data_home():
    if not (DATA / "README.md").exists():
        pytest.skip(f"no shared data folder at {DATA}")
    os.environ.setdefault("KERNELCLF_DATA", str(DATA))


def _same(fresh, rec, key):
    assert fresh["n_bounces"] == rec["n_bounces"], key
    assert fresh["converged"] == rec["converged"], key
    assert np.array_equal(fresh["alpha"], rec["alpha"]), key
    assert np.array_equal(fresh["statistic"], rec["statistic"], equal_nan=True), key
    assert fresh["engine"] == ("compiled" if HAVE_NUMBA else "numpy")


def test_stopping_file_has_every_task_and_reruns(data_home):
    res = load_results("billiard_stopping.jsonl")
    tasks = {t.key: t for t in bs.stopping_tasks()}
    assert res.failed == 0 and {r["key"] for r in res.records} == set(tasks)
    assert res.header["config"]["sigmas"] == bs.SIGMAS
    recs = {r["key"]: r["result"] for r in res.records}
    # a few short runs of each problem and rule (the page's hidden check reruns them all)
    for key in ("toy/rho2/0.001/0", "toy/batch/0.05/1", "toy/rho2-printed/0.0001/2",
                "thyroid/rho2/0.01/2", "thyroid/batch/0.1/1", "thyroid/rho2-printed/0.0001/0",
                "banana/batch/0.05/0"):
        _same(tasks[key].fn(*tasks[key].args), recs[key], key)


def test_stopping_records_differ_between_seeds(data_home):
    """The comparison above has power: another seed's run is not the same record."""
    recs = {r["key"]: r["result"] for r in load_results("billiard_stopping.jsonl").records}
    a, b = recs["toy/rho2/0.001/0"], recs["toy/rho2/0.001/1"]
    assert a["n_bounces"] != b["n_bounces"] and not np.array_equal(a["alpha"], b["alpha"])


def test_refresh_file_reruns():
    res = load_results("billiard_refresh.jsonl")
    tasks = {t.key: t for t in br.refresh_tasks()}
    assert res.failed == 0 and {r["key"] for r in res.records} == set(tasks)
    recs = {r["key"]: r["result"] for r in res.records}
    assert {r["n_bounces"] for r in recs.values()} == {br.REFRESH_BOUNCES}
    for key in ("0.1/3",):
        _same(tasks[key].fn(*tasks[key].args), recs[key], key)
