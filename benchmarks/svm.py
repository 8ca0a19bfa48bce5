"""Benchmark: kernelclf's SVM (compiled SMO) against scikit-learn's SVC (libsvm).

Book chapter 04 (``book/04_support_vector_machines.md``); issue 29 of the project.
Problems:

* two moons (``sklearn.datasets.make_moons(m, noise=0.3, random_state=0)``), RBF kernel
  sigma = 0.5 (scikit-learn gamma = 2), with bias, tolerance 1e-3 for both, over
  C in {0.1, 1, 10, 100} and m in {500, 2000, 8000, 16000};
* MNIST-5k (``kernelclf.datasets.load("mnist5k")``), digits 0-4 against 5-9, unit-norm rows,
  the polynomial kernel ``(<x, x'> + 1)^3`` and the RBF kernel sigma = 1 (gamma = 0.5),
  C = 1 and 10, m in {1250, 2500, 5000}.

Single-threaded BLAS. The two fits of a cell run interleaved in one process, and each
time is the best of ``REPEATS`` runs (the machine is shared: the best run is the one
least disturbed). Both sides include their kernel evaluations and input checks.
Reported per cell: the fit-time ratio kernelclf / SVC, both times, the relative
difference of the dual objectives of the two tol-1e-3 solutions, the numbers of
support vectors, and the growth exponent of the fit time in m (least-squares slope of
log time on log m) per C.

Run: ``python -m benchmarks.svm`` (``--quick`` for m <= 2000 only); writes
``benchmarks/results/svm.json``. With ``--record`` it also writes the run as the package's
results file ``kernelclf/experiments/results/svm_benchmark.jsonl`` (a header with the
command, commit and date, then one record per cell; :mod:`kernelclf.experiments.results`),
the record that chapter 04 renders and checks.

``--engine numpy`` measures the NumPy engine (the in-browser lab's and a bare install's):
it sets ``KERNELCLF_NO_NUMBA=1`` before kernelclf is imported, so the whole package runs
as without numba (the SMO loops and the kernel columns alike), not only the solver's loop
(``engine='numpy'`` of :func:`kernelclf.margin.smo.solve_smo`, which the estimator does
not expose). With ``--quick`` it runs the 12 cells at m <= 2000 (MNIST-5k at m = 1250
only), writes ``benchmarks/results/svm_numpy.json``, and ``--record`` writes
``kernelclf/experiments/results/svm_benchmark_numpy.jsonl`` (never the compiled engine's
record). Every result names its engine.
"""
import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"


def _engine(argv):
    """The engine asked for on the command line: 'compiled' (default) or 'numpy'."""
    if "--engine" not in argv:
        return "compiled"
    k = argv.index("--engine")
    name = argv[k + 1] if k + 1 < len(argv) else ""
    if name not in ("compiled", "numpy"):
        raise SystemExit(f"--engine must be 'compiled' or 'numpy', got {name!r}")
    return name


if __name__ == "__main__" and _engine(sys.argv[1:]) == "numpy":
    os.environ["KERNELCLF_NO_NUMBA"] = "1"      # before kernelclf is imported

import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.datasets import make_moons  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from benchmarks._cli import check_argv  # noqa: E402
from kernelclf._jit import HAVE_NUMBA  # noqa: E402
from kernelclf.kernels import RBF, Polynomial  # noqa: E402
from kernelclf.margin import SupportVectorMachine  # noqa: E402

CS = (0.1, 1.0, 10.0, 100.0)
SIZES = (500, 2000, 8000, 16000)
MNIST_SIZES = (1250, 2500, 5000)
MNIST_CS = (1.0, 10.0)
TOL = 1e-3


def _repeats(m):
    # (a fit of a few ms is preempted in most runs on a loaded machine: more tries)
    return 25 if m <= 500 else 5 if m <= 2000 else 2


def _best_times(fits, repeats):
    """Best wall time of each fit, the fits interleaved (same background load)."""
    times = [np.inf] * len(fits)
    models = [None] * len(fits)
    for _ in range(repeats):
        for k, fit in enumerate(fits):
            t0 = time.perf_counter()
            models[k] = fit()
            times[k] = min(times[k], time.perf_counter() - t0)
    return times, models


def _sklearn_dual(sk, X, y_pm, kernel):
    sv = sk.support_
    v = sk.dual_coef_[0]                         # y_i a_i of the support vectors
    return float(np.abs(v).sum() - 0.5 * v @ kernel(X[sv]) @ v)


def _cell(X, y, kernel, svc_kw, C, repeats):
    y_pm = np.where(y > 0, 1.0, -1.0)
    (t_ours, t_sk), (ours, sk) = _best_times(
        [lambda: SupportVectorMachine(kernel, C=C, tol=TOL).fit(X, y),
         lambda: SVC(C=C, tol=TOL, **svc_kw).fit(X, y)], repeats)
    d_ours, d_sk = ours.dual_objective_, _sklearn_dual(sk, X, y_pm, kernel)
    sv_ours, sv_sk = set(ours.support_.tolist()), set(sk.support_.tolist())
    return {"m": len(y), "C": C, "kernelclf_s": t_ours, "sklearn_s": t_sk,
            "ratio": t_ours / t_sk, "D_kernelclf": d_ours, "D_sklearn": d_sk,
            "rel_dD": abs(d_ours - d_sk) / abs(d_sk),
            "n_sv_kernelclf": len(sv_ours), "n_sv_sklearn": len(sv_sk),
            "n_sv_differ": len(sv_ours ^ sv_sk), "iterations_kernelclf": int(ours.n_iter_),
            "iterations_sklearn": int(np.sum(sk.n_iter_))}


def mnist_task(m, seed=0):
    """MNIST-5k, digits 0-4 (-1) against 5-9 (+1), unit-norm rows, the first ``m`` of a
    seeded permutation."""
    from kernelclf.datasets import load
    b = load("mnist5k")
    X, t = np.asarray(b.X, dtype=float), np.asarray(b.y)
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    p = np.random.default_rng(seed).permutation(len(t))[:m]
    return X[p], np.where(t[p] <= 4, -1.0, 1.0)


def _growth(rows, key):
    ms = np.log([r["m"] for r in rows])
    return float(np.polyfit(ms, np.log([r[key] for r in rows]), 1)[0]) if len(rows) > 1 \
        else float("nan")


def run(sizes=SIZES, cs=CS, mnist_sizes=MNIST_SIZES, mnist_cs=MNIST_CS):
    # warm up the compiled code (numba's cache) outside the timings
    Xw, yw = make_moons(300, noise=0.3, random_state=1)
    SupportVectorMachine(RBF(0.5), C=1.0).fit(Xw, yw)
    SupportVectorMachine(RBF(0.5), C=1.0).fit(Xw[:150], yw[:150])
    groups = []
    rbf = RBF(0.5)
    rows = []
    for m in sizes:
        X, y = make_moons(m, noise=0.3, random_state=0)
        for C in cs:
            rows.append(_cell(X, y, rbf, {"gamma": rbf.gamma}, C, _repeats(m)))
            print(_line(rows[-1]), flush=True)
    groups.append({"problem": "moons(noise 0.3), RBF sigma 0.5", "rows": rows})
    for name, kernel, svc_kw in (
            ("MNIST-5k 0-4 vs 5-9, polynomial (<x,x'>+1)^3", Polynomial(3, 1.0),
             {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 1.0}),
            ("MNIST-5k 0-4 vs 5-9, RBF sigma 1", RBF(1.0), {"gamma": 0.5})):
        rows = []
        for m in mnist_sizes:
            X, y = mnist_task(m)
            for C in mnist_cs:
                rows.append(_cell(X, y, kernel, svc_kw, C, 2))
                print(name, _line(rows[-1]), flush=True)
        groups.append({"problem": name, "rows": rows})
    for g in groups:
        g["growth_exponent"] = {}
        for C in sorted({r["C"] for r in g["rows"]}):
            sub = [r for r in g["rows"] if r["C"] == C]
            g["growth_exponent"][str(C)] = {"kernelclf": _growth(sub, "kernelclf_s"),
                                            "sklearn": _growth(sub, "sklearn_s")}
    return {"setting": "tol 1e-3, bias, single-threaded BLAS, interleaved, best of repeats",
            "engine": "compiled" if HAVE_NUMBA else "numpy",
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "sklearn": sklearn.__version__},
            "groups": groups}


def _line(r):
    return (f"m={r['m']:6d} C={r['C']:<6g} ours {r['kernelclf_s']:.4f}s  SVC "
            f"{r['sklearn_s']:.4f}s  ratio {r['ratio']:.2f}  |dD/D| {r['rel_dD']:.1e}  "
            f"SV {r['n_sv_kernelclf']}/{r['n_sv_sklearn']} (differ {r['n_sv_differ']})")


def table(result):
    out = []
    for g in result["groups"]:
        cs = sorted({r["C"] for r in g["rows"]})
        ms = sorted({r["m"] for r in g["rows"]})
        out.append(f"\n{g['problem']}: fit-time ratio kernelclf / SVC (|dD/D|)")
        out.append("| m | " + " | ".join(f"C = {c:g}" for c in cs) + " |")
        out.append("|---" * (len(cs) + 1) + "|")
        for m in ms:
            cells = []
            for c in cs:
                r = next(r for r in g["rows"] if r["m"] == m and r["C"] == c)
                cells.append(f"{r['ratio']:.2f} ({r['rel_dD']:.0e})")
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        out.append("growth exponents in m (kernelclf / SVC): " + ", ".join(
            f"C={c}: {v['kernelclf']:.2f} / {v['sklearn']:.2f}"
            for c, v in g["growth_exponent"].items()))
    return "\n".join(out)


def write_record(result, path, command="python -m benchmarks.svm --record"):
    """The run as a results file of :mod:`kernelclf.experiments.results`: a header (the
    command, commit and date, the setting, the engine, the versions and the growth
    exponents), then one record per cell, keyed ``problem/m/C``."""
    from kernelclf.experiments.runner import provenance

    engine = result.get("engine", "compiled")
    prov = provenance(command)
    header = {"kernelclf_results": 1, "command": "benchmarks.svm", "provenance": prov,
              "config": {"setting": result["setting"], "engine": engine,
                         "versions": result["versions"],
                         "growth_exponent": {g["problem"]: g["growth_exponent"]
                                             for g in result["groups"]}}}
    lines = [json.dumps(header)]
    for g in result["groups"]:
        for r in g["rows"]:
            lines.append(json.dumps({"key": f"{g['problem']}/{r['m']}/{r['C']:g}",
                                     "problem": g["problem"], "m": r["m"], "C": r["C"],
                                     "result": r}))
    Path(path).write_text("\n".join(lines) + "\n")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if check_argv(argv, "benchmarks.svm", __doc__, flags=("--quick", "--record"),
                  options={"--engine": "compiled|numpy"}):
        return
    engine = "compiled" if HAVE_NUMBA else "numpy"
    if _engine(argv) != engine:
        raise SystemExit(f"--engine {_engine(argv)}: this process runs the {engine} engine "
                         "(run it as python -m benchmarks.svm)")
    numpy = engine == "numpy"
    if "--quick" in argv:
        result = run(sizes=(500, 2000), mnist_sizes=(1250,) if numpy else (1250, 2500))
    else:
        result = run()
    print(f"engine: {result['engine']}")
    print(table(result))
    out = Path(__file__).resolve().parent / "results" / ("svm_numpy.json" if numpy
                                                         else "svm.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")
    if "--record" in argv:
        from kernelclf.experiments.results import results_path

        path = results_path("svm_benchmark_numpy.jsonl" if numpy else "svm_benchmark.jsonl")
        write_record(result, path, " ".join(["python -m benchmarks.svm", *argv]))
        print(f"written {path}")


if __name__ == "__main__":
    main()
