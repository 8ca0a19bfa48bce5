"""Benchmark: kernelclf's default SVM solver (SMO, WSS2) against scikit-learn's SVC.

Problem (issue 3; peer-measurements §1): two moons with Gaussian noise 0.15 and
5 % flipped labels, generated exactly as in the peer measurements
(``kernelclf.datasets.peer_moons``; its tight-tolerance dual values D* reproduce the peers' table:
94.6008336529 / 165.935212084 / 290.895062856 / 614.611972004), RBF kernel with
sigma = 0.5 (sklearn gamma = 2), C = 1, bias, tolerance 1e-3 for both,
m in {500, 1000, 2000, 4000}. Single-threaded BLAS. Both fits run in the same
process, interleaved; times are medians of 5 runs (including kernel evaluations on both
sides). Reported: fit-time ratio (kernelclf / sklearn), |Delta D / D| between
the two default-tolerance solutions and against a tight reference
(sklearn with tol 1e-6), and the growth exponent of the fit time in m
(least-squares slope of log time on log m).

Run: ``python -m benchmarks.svm``; writes ``benchmarks/results/svm.json``.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from kernelclf.datasets import peer_moons  # noqa: E402
from kernelclf.kernels import RBF  # noqa: E402
from kernelclf.margin import SupportVectorMachine  # noqa: E402

SIZES = (500, 1000, 2000, 4000)
REPEATS = 5
SIGMA, C, TOL = 0.5, 1.0, 1e-3
PEER_D = {500: 94.6008336529, 1000: 165.935212084, 2000: 290.895062856, 4000: 614.611972004}


def _median_times(fits, repeats=REPEATS):
    """Median wall time of each fit; the fits are interleaved so that both see
    the same background load on a shared machine."""
    times = [[] for _ in fits]
    models = [None] * len(fits)
    for _ in range(repeats):
        for k, fit in enumerate(fits):
            t0 = time.perf_counter()
            models[k] = fit()
            times[k].append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in times], models


def _sklearn_dual(sk, X, y_pm, kernel):
    sv = sk.support_
    a = np.abs(sk.dual_coef_[0])
    v = a * y_pm[sv]
    return float(a.sum() - 0.5 * v @ kernel(X[sv]) @ v)


def run(sizes=SIZES):
    kernel = RBF(SIGMA)
    rows = []
    for m in sizes:
        X, y = peer_moons(m)
        y_pm = np.where(y > 0, 1.0, -1.0)
        (t_ours, t_sk), (ours, sk) = _median_times(
            [lambda: SupportVectorMachine(kernel, C=C, tol=TOL).fit(X, y),
             lambda: SVC(C=C, gamma=kernel.gamma, tol=TOL).fit(X, y)])
        ref = SVC(C=C, gamma=kernel.gamma, tol=1e-6).fit(X, y)
        D_ours = ours.dual_objective_
        D_sk = _sklearn_dual(sk, X, y_pm, kernel)
        D_ref = _sklearn_dual(ref, X, y_pm, kernel)
        rows.append({
            "m": m, "kernelclf_s": t_ours, "sklearn_s": t_sk, "ratio": t_ours / t_sk,
            "D_kernelclf": D_ours, "D_sklearn": D_sk, "D_ref_tol1e-6": D_ref,
            "D_peer_table": PEER_D.get(m),
            "rel_dD_vs_sklearn": abs(D_ours - D_sk) / abs(D_sk),
            "rel_dD_vs_ref": abs(D_ours - D_ref) / abs(D_ref),
            "n_sv_kernelclf": int(len(ours.support_)), "n_sv_sklearn": int(len(sk.support_)),
            "iterations_kernelclf": int(ours.n_iter_),
        })
    logm = np.log([r["m"] for r in rows])
    growth = {name: float(np.polyfit(logm, np.log([r[key] for r in rows]), 1)[0])
              for name, key in (("kernelclf", "kernelclf_s"), ("sklearn", "sklearn_s"))}
    return {"problem": "peer moons(m, noise=0.15, flip=0.05, seed=0), RBF sigma=0.5 (gamma=2), "
                       "C=1, bias, tol=1e-3, single-threaded BLAS, median of 5",
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "sklearn": sklearn.__version__},
            "rows": rows, "growth_exponent": growth}


def table(result):
    lines = ["| m | kernelclf s | sklearn s | ratio | abs(dD/D) vs sklearn | abs(dD/D) vs tol-1e-6 ref "
             "| D ref (peer D*) | #SV ours / sklearn | SMO iterations |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['m']} | {r['kernelclf_s']:.4f} | {r['sklearn_s']:.4f} | "
                     f"{r['ratio']:.2f} | {r['rel_dD_vs_sklearn']:.1e} | {r['rel_dD_vs_ref']:.1e} | "
                     f"{r['D_ref_tol1e-6']:.6f} ({r['D_peer_table']}) | "
                     f"{r['n_sv_kernelclf']} / {r['n_sv_sklearn']} | {r['iterations_kernelclf']} |")
    g = result["growth_exponent"]
    lines.append(f"\nGrowth exponent of fit time in m: kernelclf {g['kernelclf']:.2f}, "
                 f"sklearn {g['sklearn']:.2f}")
    return "\n".join(lines)


def main(argv=None):
    result = run()
    print(table(result))
    out = Path(__file__).resolve().parent / "results" / "svm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
