"""RM Figs 18.11-18.12: the teacher-student protocol of kernelclf.experiments.rm."""
import numpy as np
import pytest

from kernelclf.experiments import rm
from kernelclf.experiments.results import load_results


def test_generalisation_probability_closed_form_without_threshold():
    rng = np.random.default_rng(0)
    t = rng.standard_normal(7)
    t /= np.linalg.norm(t)
    for _ in range(5):
        w = t + rng.standard_normal(7)
        exact = 1 - np.arccos(w @ t / np.linalg.norm(w)) / np.pi
        assert rm.generalisation_probability(w, 0.0, t) == pytest.approx(exact, abs=1e-10)


def test_generalisation_probability_matches_monte_carlo_with_threshold():
    """With an offset the integral agrees with a sample of 400 000 Gaussian inputs."""
    rng = np.random.default_rng(1)
    t = rng.standard_normal(5)
    t /= np.linalg.norm(t)
    w, b = t + 0.8 * rng.standard_normal(5), 0.5
    X = rng.standard_normal((400_000, 5))
    mc = np.mean(np.sign(X @ w + b) == np.sign(X @ t))
    exact = rm.generalisation_probability(w, b, t)
    assert abs(exact - mc) < 4 * np.sqrt(0.25 / len(X))
    # the offset matters: without it the value moves by more than the sampling error
    assert abs(rm.generalisation_probability(w, 0.0, t) - mc) > 10 * np.sqrt(0.25 / len(X))


def test_parallel_student_with_offset():
    t = np.array([1.0, 0.0])
    from scipy.stats import norm
    assert rm.generalisation_probability(t, 0.3, t) == pytest.approx(1.5 - norm.cdf(0.3))
    assert rm.generalisation_probability(-t, 0.3, t) == pytest.approx(norm.cdf(0.3) - 0.5)


def test_bad_input():
    with pytest.raises(ValueError):
        rm.generalisation_probability(np.zeros(3), 0.0, np.ones(3))
    with pytest.raises(ValueError):
        rm.teacher_student_data(0.01, 0)


def test_committed_file_reruns():
    """Two records of the committed file, recomputed now, give the same numbers."""
    res = load_results("rm_fig18_11.jsonl")
    assert res.header["config"]["D"] == rm.RM_D and res.failed == 0
    keys = {r["key"] for r in res.records}
    assert keys == {f"{a:g}/{s}" for a in rm.RM_ALPHAS for s in range(rm.RM_RUNS)}
    for key in ("0.5/3", "1/7"):
        rec = next(r for r in res.records if r["key"] == key)
        again = rm.teacher_student_run(rec["alpha"], rec["seed"], rec["D"],
                                       rec["flipper_tol"], rec["connector_tol"])
        for name in ("flipper", "flipper_repeat", "maximal_margin", "connector"):
            assert again[name] == pytest.approx(rec["result"][name], abs=1e-9), name
        assert again["bounces"] == rec["result"]["bounces"]


def test_curves_pair_runs_by_seed():
    """Means and the paired standard error per alpha, runs matched by seed whatever the order."""
    rng = np.random.default_rng(2)
    vals = rng.uniform(0.6, 0.9, size=(2, 4, 4))  # (alpha, seed, [flipper, repeat, mm, conn])
    names = ("flipper", "flipper_repeat", "maximal_margin", "connector")
    recs = [{"alpha": a, "seed": s, "result": dict(zip(names, vals[i, s]))}
            for i, a in enumerate((1.0, 0.5)) for s in (3, 1, 0, 2)]
    c = rm.teacher_student_curves(recs)
    assert list(c["alpha"]) == [0.5, 1.0] and c["seeds"] == [0, 1, 2, 3]
    d = vals[::-1, :, 0] - vals[::-1, :, 2]  # alpha sorted, seeds 0..3
    np.testing.assert_allclose(c["diff"], d)
    np.testing.assert_allclose(c["diff_sem"], d.std(1, ddof=1) / 2)
    np.testing.assert_allclose(c["flipper_mean"], vals[::-1, :, 0].mean(1))
    with pytest.raises(ValueError):
        rm.teacher_student_curves(recs[:-1])  # a seed missing at one alpha
