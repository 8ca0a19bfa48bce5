"""Benchmark: cost per bounce of the kernel billiard and time to the stopping rule.

Problem (issue 5): two moons without label noise or jitter
(``kernelclf.datasets.make_moons(m, noise=0, flip=0)``), RBF kernel sigma =
0.5, m in {500, 1000, 2000, 4000}, single-threaded BLAS, kernel columns
computed on demand (no Gram matrix is stored).

Kernel access is one :class:`kernelclf.gram.Gram` (columns on demand, LRU
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

Run: ``python -m benchmarks.bpm``; writes ``benchmarks/results/bpm.json``.
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

from kernelclf.billiard import kernel_billiard  # noqa: E402
from kernelclf.bpm import BayesPointMachine  # noqa: E402
from kernelclf.datasets import make_moons  # noqa: E402
from kernelclf.gram import Gram  # noqa: E402
from kernelclf.kernels import RBF  # noqa: E402
from kernelclf.svm import SupportVectorMachine  # noqa: E402
from kernelclf.versionspace import find_version_space_point  # noqa: E402

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


def run(sizes=SIZES):
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


def main(argv=None):
    result = run()
    print(table(result))
    out = Path(__file__).resolve().parent / "results" / "bpm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
