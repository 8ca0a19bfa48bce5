"""The README's numbers and commands, checked against what they describe.

The benchmark table itself is checked in ``tests/test_smo.py`` (against the recorded run
``kernelclf/experiments/results/svm_benchmark.jsonl``); here are the sentences around it
(growth exponents, the MNIST-5k cells, the agreement of the dual values, which sizes exceed
the column cache), the versions the README names (Python, Pyodide), the Gram guard's
range, the make targets and the experiment commands it shows, and the citations.
"""
import math
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _benchmark_part():
    return README[README.index("* `benchmarks.svm`"):README.index("* `benchmarks.bayes`")]


@pytest.fixture(scope="module")
def bench():
    from kernelclf.experiments.results import load_results

    return load_results("svm_benchmark.jsonl")


def test_python_version_is_the_environments():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    version = python.split("=")[1]
    assert f"On a machine with Python {version} " in README


def test_pyodide_version_is_the_labs():
    from kernelclf.book.lite import PYODIDE_VERSION

    named = set(re.findall(r"[Pp]yodide[ -](\d+\.\d+\.\d+)", README))
    named |= set(re.findall(r"official (\d+\.\d+\.\d+) release", README))
    assert named == {PYODIDE_VERSION}


def test_gram_guard_range_is_the_guards():
    from kernelclf.kernels import gram_guard

    lo, hi = gram_guard._RANGE
    assert f"`[{lo:.0e}, {hi:.0e}]`".replace("e+", "e") in README
    # "a largest kernel value outside [...]": entries far below the range are fine when the
    # largest is inside it; a matrix whose largest value is below the range is refused
    import numpy as np

    from kernelclf.kernels import RBF
    from kernelclf.margin import SupportVectorMachine

    assert "a largest\nkernel value `|k(x_i, x_j)|` outside" in README
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    far = np.r_[X, X + 1e4]                      # RBF values exp(-1e8): far below 1e-100
    assert RBF(0.5)(far).min() < lo
    SupportVectorMachine(RBF(0.5)).fit(far, np.r_[y, y])
    with pytest.raises(ValueError, match="outside"):
        SupportVectorMachine("linear").fit(X * np.sqrt(lo) * 1e-3, y)


def test_benchmark_growth_exponents_are_the_records(bench):
    part = _benchmark_part()
    moons = next(k for k in bench.header["config"]["growth_exponent"] if k.startswith("moons"))
    assert "σ = 0.5" in part and moons.endswith("RBF sigma 0.5")
    heading = re.search(r"\| m \|(.*)\|\n", part).group(1)
    cs = [float(c.split("=")[1]) for c in heading.split("|") if "=" in c]
    typed = re.search(r"Growth exponents ours / SVC: (.*?) for the four C\.", part, re.S).group(1)
    pairs = re.findall(r"(\d\.\d\d)/(\d\.\d\d)", typed)
    assert len(pairs) == len(cs) == 4
    growth = bench.header["config"]["growth_exponent"][moons]
    for c, (ours, svc) in zip(cs, pairs):
        g = growth[str(c)]
        assert (f"{g['kernelclf']:.2f}", f"{g['sklearn']:.2f}") == (ours, svc)


def test_benchmark_mnist_sentence_is_the_record(bench):
    part = " ".join(_benchmark_part().split())
    found = re.search(r"On MNIST-5k \(m = ([\d, ]+); C = (\d+) and (\d+)\) the ratio is "
                      r"(\d\.\d\d)–(\d\.\d\d) in all (\w+) cells", part)
    assert found, "the MNIST-5k sentence of the README changed its form"
    ms = [int(v) for v in found.group(1).split(",")]
    cs = [float(found.group(2)), float(found.group(3))]
    cells = [r for r in bench.records if r["problem"].startswith("MNIST-5k")]
    assert sorted({r["m"] for r in cells}) == ms and sorted({r["C"] for r in cells}) == cs
    words = {"twelve": 12, "eight": 8, "sixteen": 16, "twenty-four": 24}
    assert words[found.group(6)] == len(cells)
    ratios = [r["result"]["ratio"] for r in cells]
    assert f"{min(ratios):.2f}" == found.group(4) and f"{max(ratios):.2f}" == found.group(5)


def test_benchmark_dual_agreement_is_the_records_largest(bench):
    part = " ".join(_benchmark_part().split())
    typed = float(re.search(r"agree with libsvm's to (\d(?:\.\d+)?e-\d+) relative in every cell",
                            part).group(1))
    worst = max(r["result"]["rel_dD"] for r in bench.records)
    # the typed bound is the largest relative difference rounded up to one digit
    exponent = math.floor(math.log10(worst))
    assert typed == math.ceil(worst / 10.0 ** exponent) * 10.0 ** exponent


def test_benchmark_sizes_whose_columns_exceed_the_cache(bench):
    """'where the columns outnumber the cache (m = 8000 and 16 000 here)': the sizes at
    which the default column cache of SupportVectorMachine holds fewer columns than m, the
    condition under which the compiled SMO switches to the compacted layout."""
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF
    from kernelclf.kernels.gram import ColumnSlots, Gram
    from kernelclf.margin import SupportVectorMachine

    part = " ".join(_benchmark_part().split())
    typed = re.search(r"columns outnumber the cache \(m = ([\d ]+) and ([\d ]+) here\)", part)
    named = sorted(int(v.replace(" ", "")) for v in typed.groups())
    cache_mb = SupportVectorMachine().cache_mb
    exceed = []
    for m in sorted({r["m"] for r in bench.records if r["problem"].startswith("moons")}):
        X, _ = make_moons(m, random_state=0)
        slots = ColumnSlots(Gram(RBF(0.5), X, precompute=False, cache_mb=cache_mb, check=False))
        if slots.capacity < m:
            exceed.append(m)
    assert exceed == named


def test_make_targets_exist():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    shown = set(re.findall(r"^make ([\w-]+)", README, re.M))
    assert {"book", "test", "lab", "serve", "notebooks", "bench", "check-chapter",
            "check"} <= shown <= targets
    assert "--bind 127.0.0.1 --directory $(HTML) 8000" in makefile
    assert "http://127.0.0.1:8000" in README


def test_experiment_commands_parse():
    from kernelclf.experiments.cli import build_parser
    from kernelclf.experiments.rmm_benchmarks import TABLE4_SIZES

    p = build_parser()
    part = " ".join(README[README.index("The full Bayes point machine protocol"):
                           README.index("## Citing the sources")].split())
    commands = re.findall(r"`(?:python -m kernelclf\.experiments )?((?:bpm|rmm)-[\w-]+[^`]*)`",
                          part)
    assert len(commands) == 4
    for command in commands:
        p.parse_args(command.split())
    a = p.parse_args("rmm-table4 --splits 100".split())
    assert a.splits == 100
    assert p.parse_args("rmm-text --repeats 10".split()).repeats == 10
    for data in ("usps", "mnist5k", "sklearn"):
        assert p.parse_args(f"rmm-digits --data {data}".split()).data == data
    a = p.parse_args("bpm-table1 --backend dask --scheduler tcp://HOST:8786".split())
    assert (a.backend, a.scheduler) == ("dask", "tcp://HOST:8786")
    assert p.parse_args(["bpm-table1"]).backend == "loky"
    # "the 13 Rätsch benchmarks"
    count = int(re.search(r"the (\d+) Rätsch benchmarks", part).group(1))
    assert count == len(TABLE4_SIZES)


def test_citations_are_the_bibliographys():
    bib = (ROOT / "book" / "references.bib").read_text()

    def entry(key):
        block = bib[bib.index(key):]
        block = block[:block.index("\n}")]
        return {k: v for k, v in re.findall(r"(\w+)\s*=\s*\{([^}]*)\}", block)}

    bpm, rmm = entry("herbrich2001bpm"), entry("shivaswamy2010rmm")
    for e in (bpm, rmm):
        pages = e["pages"].replace("--", "–")
        assert f"*JMLR* {e['volume']}:{pages}, {e['year']}." in README
    lkc, tr, rm = entry("herbrich2002lkc"), entry("herbrich1999tr"), entry("rujan2000billiard")
    assert f"MIT Press, {lkc['year']}." in README and f"(MIT Press {lkc['year']})" in README
    assert f"Technical Report {tr['number']}, TU Berlin, {tr['year']}." in README
    text = " ".join(README.split())
    assert f"*Advances in Large Margin Classifiers*, MIT Press, {rm['year']}." in text
    assert f"(TU Berlin {tr['number']})" in text and f"with a billiard ({rm['year']})" in text
    assert f"*Bayes Point Machines* (JMLR {bpm['year']})" in text
    assert f"*Maximum Relative Margin and Data-Dependent Regularization* (JMLR {rmm['year']})" in text
    seeds = ROOT.parent / "shared" / "seeds"
    if seeds.is_dir():  # the BPM text names its own volume and pages
        head = next(seeds.glob("001_*.txt")).read_text(encoding="utf-8")[:200]
        assert f"{bpm['volume']} ({bpm['year']}) {bpm['pages'].replace('--', '–')}" in head


def test_numba_extra_covers_the_compiled_modules():
    """'numba (the compiled SMO loops of the SVMs and the RMM, the kernel billiard and its
    perceptron start, the separability margin bounds ...)': the modules that compile with numba are those."""
    package = ROOT / "kernelclf"
    compiled = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                      if "njit" in p.read_text(encoding="utf-8") and p.name != "_jit.py")
    assert compiled == ["bayespoint/billiard_engines.py", "bayespoint/perceptron_epochs.py",
                        "kernels/_guard_screen.py", "kernels/native_columns.py",
                        "margin/smo/compiled.py", "margin/smo/step.py"]
    text = " ".join(README.split())
    assert ("numba (the compiled SMO loops of the SVMs and the RMM, the kernel billiard and its "
            "perceptron start, the separability margin bounds;") in text
    # the RMM runs on the SMO: its solver calls solve_smo
    assert "solve_smo" in (ROOT / "kernelclf" / "margin" / "rmm_solver.py").read_text()
    # ... and so do the separability margin bounds (the nearest-point problem)
    # (through the solver's inner entries, past solve_smo's public argument checks: _solve,
    # and _margin_steps, the compiled pair loop on a stored matrix)
    assert "from .smo import _margin_steps, _solve" in (
        ROOT / "kernelclf" / "margin" / "separability.py").read_text()


def test_rmm_benchmark_is_the_one_described():
    """'digits 0–4 vs 5–9, poly degree 5, RMM §5.7' of the benchmarks list."""
    import sys

    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import rmm as bench_rmm
    finally:
        sys.path.remove(str(ROOT))
    assert "digits 0–4 vs 5–9, poly degree 5, RMM §5.7" in " ".join(README.split())
    assert bench_rmm.kernel().kernel.degree == 5
    X, y = bench_rmm.load_task("digits")
    from sklearn.datasets import load_digits

    digits = load_digits()
    assert (y < 0).sum() == (digits.target <= 4).sum() and len(y) == len(digits.target)


def test_which_protocols_send_their_data_with_their_tasks(tmp_path, monkeypatch):
    """'bpm-table1 and rmm-text send their data with the tasks ..., while rmm-table4
    and rmm-digits load their data set inside each task': the first two hold the data in
    the task (the split's arrays, the corpus bound to the task function); the other two fail
    in an empty data home when the task itself runs."""
    from types import SimpleNamespace

    import numpy as np

    from kernelclf.experiments.bpm import table1_tasks
    from kernelclf.experiments.rmm import digits_degree
    from kernelclf.experiments.rmm_benchmarks import table4_split
    from kernelclf.experiments.rmm_text import _text_tasks

    text = " ".join(README.split())
    assert ("bpm-table1 and rmm-text send their data with the tasks, so their workers need "
            "no data home, while rmm-table4 and rmm-digits (on usps or mnist5k) load their "
            "data set inside each task") in text
    try:
        bpm_task = table1_tasks(["heart"], n_splits=1)[0]
        text_task = _text_tasks(SimpleNamespace(repeats=1, n_train=50, seed=0))[0]
    except FileNotFoundError:
        pytest.skip("the data home lacks heart or Reuters-21578")
    X_train = bpm_task.args[0]
    assert isinstance(X_train, np.ndarray) and X_train.ndim == 2 and len(X_train) > 0
    assert len(text_task.fn.keywords["documents"]) > 0
    monkeypatch.setenv("KERNELCLF_DATA", str(tmp_path))        # an empty data home
    for fn, args in ((table4_split, ("banana", 0, 0, {})), (digits_degree, ("usps", 3))):
        with pytest.raises(FileNotFoundError):
            fn(*args)
