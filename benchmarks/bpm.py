"""Benchmark: cost per bounce of the kernel billiard and time to the stopping rule.

Problem (issue 5): two moons without label noise or jitter
(``kernelclf.datasets.make_moons(m, noise=0, flip=0)``), RBF kernel sigma =
0.5, m in {500, 1000, 2000, 4000}, single-threaded BLAS, kernel columns
computed on demand (no Gram matrix is stored).

Kernel access is one :class:`kernelclf.kernels.gram.Gram` (columns on demand, LRU
column cache; "kernel evals / bounce" counts ``m`` per column handed out, cache
hits included, so it measures the algorithm's demand, not the cache).

* Time per bounce: two billiard runs from the same starting point with
  ``max_bounces`` B1 = 500 and B2 = 3000 (tol so small that the stopping rule
  never fires); (t2 - t1) / 2500 removes the set-up cost (perceptron start,
  first direction).  Kernel evaluations per bounce are counted the same way.
  The growth exponent is the least-squares slope of log(time per bounce) on
  log m (target <= 1.2: one kernel column, O(m), per bounce).
* Time to the stopping rule: ``BayesPointMachine(RBF(0.5), tol=1e-3)`` fit
  (start, bounces, everything; columns on demand, and again with the Gram
  matrix stored) against the hard-margin SVM without bias
  (``SupportVectorMachine(hard_margin=True, fit_bias=False)``, SMO) on the
  same data; test error of both on 4000 fresh points.
For scale (issue 5): the book's own C/R billiard needs ~6.7 s for 5000
bounces at m = 500.

Table 1 section (issue 14): on split 0 of each BPM Table 1 data set (standardised
inputs, the table's RBF width, the protocol of ``kernelclf.experiments``), the fit time of
the default ``BayesPointMachine`` (stored Gram matrix, compiled billiard, printed stopping
rule with the E2 weights at tol = 1e-3) against the hard-margin SVM without bias that
chapter 12 compares it with (SMO, and the QP solver when SMO stops at its cap, as
``experiments._one_split`` does); best of ``REPEATS`` runs each, after one warm-up fit that
loads the compiled code. "BPM/SVM" is the ratio of the two fit times; "split s" is the time
of one whole split of the Table 1 protocol (both fits and predictions), from which the
100-split run is estimated (Heart has 10 splits).

Issue 27 section ("safe by default"): the default ``BayesPointMachine(RBF(0.5),
random_state=0)`` (``lam='auto'``) against ``SupportVectorMachine(RBF(0.5), C=1)`` on noisy
two moons (noise 0.3; the package's generator, which also flips 5 % of the labels, and
scikit-learn's), m = 500 and 4000, test accuracy on 2000 fresh points (seed 1). Fit times
are the best of ``REPEATS`` runs each, after a warm-up fit; "ratio" is BPM / SVM. Test
accuracies are also averaged over ``ISSUE27_SEEDS`` training sets (same test set).

Run: ``python -m benchmarks.bpm`` (``--table1-only`` skips the two-moons part,
``--issue27-only`` runs only the issue 27 section); writes ``benchmarks/results/bpm.json``.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from kernelclf.bayespoint import BayesPointMachine, find_version_space_point, kernel_billiard  # noqa: E402
from kernelclf.datasets import make_moons  # noqa: E402
from kernelclf.kernels import RBF, Gram  # noqa: E402
from kernelclf.margin import SupportVectorMachine  # noqa: E402

SIZES = (500, 1000, 2000, 4000)
SIGMA = 0.5
B1, B2 = 500, 3000


def _data(m, seed=0):
    X, y = make_moons(m, noise=0.0, flip=0.0, random_state=seed)
    return X, np.where(y > 0, 1.0, -1.0)


def _per_bounce(X, y, kernel):
    cols = Gram(kernel, X, precompute=False)
    start, _ = find_version_space_point(cols, y, random_state=0)
    out = []
    for B in (B1, B2):
        cols = Gram(kernel, X, precompute=False)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = kernel_billiard(cols, y, start=start, tol=1e-15, max_bounces=B, random_state=0)
        out.append((time.perf_counter() - t0, cols.n_evaluations, r.n_bounces))
    (t1, e1, b1), (t2, e2, b2) = out
    return (t2 - t1) / (b2 - b1), (e2 - e1) / (b2 - b1)


def _warm_up():
    """Load the compiled billiard (numba cache) before anything is timed."""
    X, y = _data(60, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for engine in ("compiled", "python"):
            kernel_billiard(RBF(SIGMA)(X), y, tol=1e-2, random_state=0, engine=engine)


def run(sizes=SIZES):
    _warm_up()
    kernel = RBF(SIGMA)
    Xt, yt = _data(4000, seed=1)
    rows = []
    for m in sizes:
        X, y = _data(m)
        t_b, ev_b = _per_bounce(X, y, kernel)
        t0 = time.perf_counter()
        bpm = BayesPointMachine(kernel, tol=1e-3, max_bounces=100_000, precompute=False,
                                random_state=0).fit(X, y)
        t_bpm = time.perf_counter() - t0
        t0 = time.perf_counter()
        BayesPointMachine(kernel, tol=1e-3, max_bounces=100_000, precompute=True,
                          random_state=0).fit(X, y)
        t_bpm_gram = time.perf_counter() - t0
        t0 = time.perf_counter()
        svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False).fit(X, y)
        t_svm = time.perf_counter() - t0
        rows.append({
            "m": m, "s_per_bounce": t_b, "kernel_evals_per_bounce": ev_b,
            "bpm_fit_s": t_bpm, "bpm_fit_stored_gram_s": t_bpm_gram, "bpm_bounces": int(bpm.n_bounces_),
            "bpm_restarts": int(bpm.n_restarts_), "bpm_converged": bool(bpm.converged_),
            "svm_fit_s": t_svm,
            "bpm_test_error": float(np.mean(bpm.predict(Xt) != yt)),
            "svm_test_error": float(np.mean(svm.predict(Xt) != yt)),
        })
        print(f"m={m} done", flush=True)
    logm = np.log([r["m"] for r in rows])
    growth = {
        "s_per_bounce": float(np.polyfit(logm, np.log([r["s_per_bounce"] for r in rows]), 1)[0]),
        "kernel_evals_per_bounce": float(
            np.polyfit(logm, np.log([r["kernel_evals_per_bounce"] for r in rows]), 1)[0]),
        "bpm_fit_s": float(np.polyfit(logm, np.log([r["bpm_fit_s"] for r in rows]), 1)[0]),
        "bpm_fit_stored_gram_s": float(
            np.polyfit(logm, np.log([r["bpm_fit_stored_gram_s"] for r in rows]), 1)[0]),
        "svm_fit_s": float(np.polyfit(logm, np.log([r["svm_fit_s"] for r in rows]), 1)[0]),
    }
    return {"problem": f"make_moons(m, noise=0, flip=0, seed=0), RBF sigma={SIGMA}, "
                       "on-demand kernel columns, BPM tol=1e-3 (rho_2 rule), hard-margin SVM "
                       "without bias (SMO), test set 4000 points seed 1, single-threaded BLAS",
            "versions": {"python": platform.python_version(), "numpy": np.__version__},
            "rows": rows, "growth_exponent": growth}


REPEATS = 3


def _best_time(fn, repeats=REPEATS):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _svm_fit(kernel, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False).fit(X, y)
        if not svm.converged_:
            svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False, solver="qp",
                                       tol=1e-8).fit(X, y)
    return svm


def run_table1(datasets=None):
    """BPM vs SVM fit time per Table 1 data set (split 0), and the time of one split."""
    from kernelclf.experiments import TABLE1_SIGMA, table1_splits
    from kernelclf.experiments.bpm import _one_split, _standardise

    _warm_up()
    rows = []
    for name in datasets or TABLE1_SIGMA:
        sigma = TABLE1_SIGMA[name]
        Xtr, ytr, Xte, yte = table1_splits(name, 1)[0]
        Xs, _ = _standardise(Xtr, Xte)
        kernel = RBF(sigma)
        t_bpm, bpm = _best_time(lambda: BayesPointMachine(kernel, random_state=0).fit(Xs, ytr))
        t_svm, svm = _best_time(lambda: _svm_fit(kernel, Xs, ytr))
        t_split, _ = _best_time(lambda: _one_split(Xtr, ytr, Xte, yte, sigma, 1e-3, 0), 1)
        n_splits = 10 if name == "heart" else 100
        rows.append({"dataset": name, "m": len(ytr), "sigma": sigma,
                     "bpm_fit_s": t_bpm, "svm_fit_s": t_svm, "ratio": t_bpm / t_svm,
                     "bounces": int(bpm.n_bounces_), "converged": bool(bpm.converged_),
                     "us_per_bounce": 1e6 * t_bpm / max(bpm.n_bounces_, 1),
                     "svm_solver": str(svm.get_params().get("solver")),
                     "split_s": t_split, "n_splits": n_splits,
                     "estimated_run_s": t_split * n_splits})
        print(f"{name} done", flush=True)
    return rows


def table1_table(rows):
    lines = ["| data | m | bounces | µs / bounce (whole fit) | BPM fit s | SVM fit s (solver) "
             "| BPM/SVM | split s | est. 100 splits s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['m']} | {r['bounces']} | {r['us_per_bounce']:.2f} | "
                     f"{r['bpm_fit_s']:.3f} | {r['svm_fit_s']:.3f} ({r['svm_solver']}) | {r['ratio']:.2f} | "
                     f"{r['split_s']:.2f} | {r['estimated_run_s']:.0f} |")
    total = sum(r["estimated_run_s"] for r in rows)
    lines.append(f"\nEstimated serial time of the full Table 1 run: {total:.0f} s "
                 f"({total / 60:.1f} min; about half with --n-jobs 2 on two free cores)")
    return "\n".join(lines)


def table(result):
    lines = ["| m | ms / bounce | kernel evals / bounce | BPM fit s (on demand) "
             "| BPM fit s (stored Gram) | bounces | restarts | SVM fit s | BPM test err "
             "| SVM test err |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['m']} | {1e3 * r['s_per_bounce']:.3f} | "
                     f"{r['kernel_evals_per_bounce']:.0f} | {r['bpm_fit_s']:.2f} | "
                     f"{r['bpm_fit_stored_gram_s']:.2f} | "
                     f"{r['bpm_bounces']} | {r['bpm_restarts']} | {r['svm_fit_s']:.2f} | "
                     f"{r['bpm_test_error']:.4f} | {r['svm_test_error']:.4f} |")
    g = result["growth_exponent"]
    lines.append(f"\nGrowth exponent in m: time per bounce {g['s_per_bounce']:.2f}, kernel "
                 f"evaluations per bounce {g['kernel_evals_per_bounce']:.2f}, BPM fit "
                 f"{g['bpm_fit_s']:.2f}, SVM fit {g['svm_fit_s']:.2f}")
    return "\n".join(lines)


ISSUE27_SIZES = (500, 4000)
ISSUE27_SEEDS = 5


def _noisy_moons(source, m, seed):
    if source == "kernelclf":
        return make_moons(m, noise=0.3, random_state=seed)
    from sklearn.datasets import make_moons as sk_moons

    X, y = sk_moons(m, noise=0.3, random_state=seed)
    return X, np.where(y > 0, 1.0, -1.0)


def run_issue27(sizes=ISSUE27_SIZES, seeds=ISSUE27_SEEDS):
    """Default BPM (lam='auto') against the SVM with C = 1 on noisy two moons (issue 27)."""
    _warm_up()
    kernel = RBF(SIGMA)
    rows = []
    for source in ("kernelclf", "sklearn"):
        Xt, yt = _noisy_moons(source, 2000, 1)
        for m in sizes:
            acc = {"bpm": [], "svm": []}
            for seed in range(seeds):
                X, y = _noisy_moons(source, m, seed)
                if seed == 0:
                    t_svm, svm = _best_time(lambda: SupportVectorMachine(kernel, C=1.0).fit(X, y))
                    t_bpm, bpm = _best_time(lambda: BayesPointMachine(kernel, random_state=0)
                                            .fit(X, y))
                    row = {"data": source, "m": m, "svm_fit_s": t_svm, "bpm_fit_s": t_bpm,
                           "ratio": t_bpm / t_svm, "lam": bpm.lam_, "reason": bpm.lam_reason_,
                           "bounces": int(bpm.n_bounces_)}
                else:
                    svm = SupportVectorMachine(kernel, C=1.0).fit(X, y)
                    bpm = BayesPointMachine(kernel, random_state=0).fit(X, y)
                acc["svm"].append(float(np.mean(svm.predict(Xt) == yt)))
                acc["bpm"].append(float(np.mean(bpm.predict(Xt) == yt)))
            row.update({"svm_acc": acc["svm"][0], "bpm_acc": acc["bpm"][0],
                        "svm_acc_mean": float(np.mean(acc["svm"])),
                        "bpm_acc_mean": float(np.mean(acc["bpm"])),
                        "acc_diff_sem": float(np.std(np.subtract(acc["bpm"], acc["svm"]), ddof=1)
                                              / np.sqrt(seeds)) if seeds > 1 else 0.0})
            rows.append(row)
            print(f"issue 27: {source} m={m} done", flush=True)
    return rows


def issue27_table(rows):
    lines = ["| data | m | SVM fit s | BPM fit s | BPM/SVM | lam_ | bounces | SVM acc | BPM acc "
             f"| SVM acc (mean of {ISSUE27_SEEDS}) | BPM acc (mean) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['data']} | {r['m']} | {r['svm_fit_s']:.3f} | {r['bpm_fit_s']:.3f} | "
                     f"{r['ratio']:.1f} | {r['lam']:g} | {r['bounces']} | {r['svm_acc']:.4f} | "
                     f"{r['bpm_acc']:.4f} | {r['svm_acc_mean']:.4f} | {r['bpm_acc_mean']:.4f} "
                     f"(± {r['acc_diff_sem']:.4f}) |")
    lines.append("\n± is the standard error of the mean BPM - SVM accuracy difference over "
                 "the training sets.")
    return "\n".join(lines)


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if "--issue27-only" in argv:
        rows = run_issue27()
        print(issue27_table(rows))
        out = Path(__file__).resolve().parent / "results" / "bpm_issue27.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"versions": {"python": platform.python_version(),
                                                "numpy": np.__version__}, "issue27": rows},
                                  indent=2))
        print(f"\nwritten {out}")
        return
    t1 = run_table1()
    print(table1_table(t1))
    if "--table1-only" in argv:
        result = {"versions": {"python": platform.python_version(), "numpy": np.__version__}}
    else:
        result = run()
        print(table(result))
    result["table1"] = t1
    result["issue27"] = run_issue27()
    print(issue27_table(result["issue27"]))
    out = Path(__file__).resolve().parent / "results" / "bpm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
