"""Bayesian kernel classifiers: ``python -m benchmarks.bayes``.

1. GP classification (Laplace, fixed kernel ``4 * RBF(0.5)``) on two-moons,
   m in {200, 500, 1000, 2000}: kernelclf vs scikit-learn's
   ``GaussianProcessClassifier(ConstantKernel(4, 'fixed') * RBF(0.5, 'fixed'),
   optimizer=None)``; fit time ratio and the difference of the log marginal
   likelihoods, plus the largest difference of ``predict_proba`` on a 50x50 grid.
2. RVM classification (RBF sigma = 0.5, i.e. gamma = 2) on two-moons,
   m in {200, 500, 1000}: the fast sequential solver (Tipping & Faul 2003) vs the
   book's re-estimation (LKC Alg. 7); time, #RV, test accuracy.
   If the PyPI package ``fastrvm`` (C++ SparseBayes) is importable, it runs on
   the same data in the same process (``RVC(kernel='rbf', gamma=2)``); it is an
   optional peer, not a dependency (e.g. ``pip install --target DIR fastrvm`` and
   ``PYTHONPATH=DIR``). The book solver is skipped above m = 500.
3. RVM regression (sinc, RBF sigma = 2), same two solvers.

Times are medians of 3 runs with single-threaded BLAS, in one process.
Writes ``benchmarks/results/bayes.json`` and prints a table.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from benchmarks._cli import check_argv  # noqa: E402


def _median_time(fn, repeats=3):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def bench_gpc(sizes):
    import sklearn
    from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import ConstantKernel

    from kernelclf.bayes import GaussianProcessClassifier
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF

    g1, g2 = np.meshgrid(np.linspace(-1.5, 2.5, 50), np.linspace(-1, 1.5, 50))
    grid = np.c_[g1.ravel(), g2.ravel()]
    rows = []
    for m in sizes:
        X, y = make_moons(m, random_state=0)
        t_sk, sk = _median_time(lambda: SkGPC(
            kernel=ConstantKernel(4.0, "fixed") * SkRBF(0.5, "fixed"), optimizer=None).fit(X, y))
        t_kc, kc = _median_time(
            lambda: GaussianProcessClassifier(kernel=4.0 * RBF(0.5), optimizer=None).fit(X, y))
        lml_sk = float(sk.log_marginal_likelihood_value_)
        lml_kc = kc.log_marginal_likelihood_
        rows.append(dict(
            m=m, sklearn_s=t_sk, kernelclf_s=t_kc, ratio=t_kc / t_sk, lml_sklearn=lml_sk,
            lml_kernelclf=lml_kc, delta_lml=lml_kc - lml_sk,
            rel_delta_lml=abs(lml_kc - lml_sk) / abs(lml_sk), newton_iter=kc.n_iter_,
            max_abs_dproba_grid=float(np.abs(kc.predict_proba(grid) - sk.predict_proba(grid)).max()),
            sklearn_version=sklearn.__version__))
    return rows


def bench_rvc(sizes, book_max_m=500):
    from kernelclf.bayes import RelevanceVectorClassifier
    from kernelclf.datasets import make_moons
    from kernelclf.kernels import RBF

    try:  # optional peer: the C++ SparseBayes port on PyPI (not a project dependency)
        from fastrvm import RVC as FastRVC
    except ImportError:
        FastRVC = None
    Xt, yt = make_moons(2000, random_state=1)
    rows = []
    for m in sizes:
        X, y = make_moons(m, random_state=0)
        row = dict(m=m)
        solvers = ("fast", "book") if m <= book_max_m else ("fast",)
        for solver in solvers:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t, model = _median_time(lambda: RelevanceVectorClassifier(
                    kernel=RBF(0.5), solver=solver).fit(X, y), repeats=3 if solver == "fast" else 1)
            row.update({f"{solver}_s": t, f"{solver}_rv": model.n_relevance_,
                        f"{solver}_acc": model.score(Xt, yt), f"{solver}_iter": model.n_iter_,
                        f"{solver}_log_evidence": model.log_evidence_,
                        f"{solver}_converged": not any("max_iter" in str(w.message) for w in caught)})
        if "book_s" in row:
            row["book_over_fast"] = row["book_s"] / row["fast_s"]
        if FastRVC is not None:
            t, peer = _median_time(lambda: FastRVC(kernel="rbf", gamma=2.0).fit(X, y))
            row.update(fastrvm_s=t, fastrvm_rv=int(np.ravel(peer.n_relevance_)[0]),
                       fastrvm_acc=float(peer.score(Xt, yt)), fast_over_fastrvm=row["fast_s"] / t)
        rows.append(row)
    return rows


def bench_rvr(sizes):
    from kernelclf.bayes import RelevanceVectorRegressor
    from kernelclf.kernels import RBF

    Xt = np.linspace(-10, 10, 1000)[:, None]
    ft = np.sinc(Xt[:, 0] / np.pi)
    rows = []
    for m in sizes:
        rng = np.random.default_rng(0)
        X = rng.uniform(-10, 10, size=(m, 1))
        t = np.sinc(X[:, 0] / np.pi) + 0.1 * rng.normal(size=m)
        row = dict(m=m)
        for solver in ("fast", "book"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tt, model = _median_time(lambda: RelevanceVectorRegressor(
                    kernel=RBF(2.0), solver=solver).fit(X, t), repeats=3 if solver == "fast" else 1)
            row.update({f"{solver}_s": tt, f"{solver}_rv": model.n_relevance_,
                        f"{solver}_rmse": float(np.sqrt(np.mean((model.predict(Xt) - ft) ** 2))),
                        f"{solver}_iter": model.n_iter_,
                        f"{solver}_converged": not any("max_iter" in str(w.message) for w in caught)})
        rows.append(row)
    return rows


def _table(rows, cols):
    head = " | ".join(c for c, _ in cols)
    lines = [f"| {head} |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(fmt.format(r[c]) if c in r else "–" for c, fmt in cols) + " |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if check_argv(argv, "benchmarks.bayes", __doc__):
        return
    with threadpool_limits(1):
        gpc = bench_gpc([200, 500, 1000, 2000])
        rvc = bench_rvc([200, 500, 1000])
        rvr = bench_rvr([200, 500])
    result = dict(machine=platform.machine(), python=platform.python_version(),
                  blas_threads=1, gpc=gpc, rvc=rvc, rvr=rvr)
    out = Path(__file__).resolve().parent / "results" / "bayes.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print("GP classification, Laplace, fixed kernel 4*RBF(0.5), make_moons(m), 1 BLAS thread")
    print(_table(gpc, [("m", "{}"), ("sklearn_s", "{:.4f}"), ("kernelclf_s", "{:.4f}"),
                       ("ratio", "{:.2f}"), ("lml_sklearn", "{:.10f}"), ("delta_lml", "{:.2e}"),
                       ("rel_delta_lml", "{:.1e}"), ("newton_iter", "{}"),
                       ("max_abs_dproba_grid", "{:.1e}")]))
    print("\nRVM classification, RBF sigma=0.5, make_moons(m); accuracy on make_moons(2000, seed 1)")
    cols = [("m", "{}"), ("fast_s", "{:.4f}"), ("fast_rv", "{}"), ("fast_acc", "{:.4f}"),
            ("fast_iter", "{}"), ("book_s", "{:.3f}"), ("book_rv", "{}"), ("book_acc", "{:.4f}"),
            ("book_iter", "{}"), ("book_converged", "{}"), ("book_over_fast", "{:.1f}")]
    if "fastrvm_s" in rvc[0]:
        cols += [("fastrvm_s", "{:.4f}"), ("fastrvm_rv", "{}"), ("fastrvm_acc", "{:.4f}"),
                 ("fast_over_fastrvm", "{:.2f}")]
    print(_table(rvc, cols))
    print("\nRVM regression, sinc + N(0, 0.1^2), RBF sigma=2; rmse vs noise-free sinc")
    print(_table(rvr, [("m", "{}"), ("fast_s", "{:.4f}"), ("fast_rv", "{}"), ("fast_rmse", "{:.4f}"),
                       ("fast_iter", "{}"), ("book_s", "{:.3f}"), ("book_rv", "{}"),
                       ("book_rmse", "{:.4f}"), ("book_iter", "{}"), ("book_converged", "{}")]))
    print(f"\nwritten {out}")
    return result


if __name__ == "__main__":
    main()
