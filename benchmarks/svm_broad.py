"""Benchmark: kernelclf's SVM (compiled SMO) against scikit-learn's SVC on a broad grid.

Issue 41 of the project (``benchmarks.svm`` covers two moons and MNIST-5k only). Inputs
with 20 to 800 features, three kernels, C from 0.01 to 1000, m from 200 to 16000, and a
ten-class problem solved one-versus-one on both sides.

Problems (:data:`PROBLEMS`; every one seeded, ``m`` training examples and a fixed test set
drawn apart from them):

* ``tabular-50``: ``sklearn.datasets.make_classification`` (50 features, 20 informative,
  10 % flipped labels, seed 0), standardised with the training pool's mean and standard
  deviation; RBF ``gamma = 1/50`` (scikit-learn's ``gamma='scale'`` for unit variance),
  polynomial ``(<x, x'>/50 + 1)^3``, linear;
* ``twonorm-20``: the data home's Raetsch ``twonorm`` pool (7400 x 20, real-valued
  tabular), standardised; RBF ``gamma = 1/20``, polynomial ``(<x, x'>/20 + 1)^3``,
  linear;
* ``bow-800``: seeded synthetic bag-of-words counts, a vocabulary of 800 words with Zipf
  frequencies, two classes that tilt the frequencies of 100 words each, Poisson(60)
  document lengths, rows scaled to unit norm (cosine normalisation); passed to both as
  the same ``scipy.sparse`` CSR matrix (both estimators take sparse inputs); RBF
  ``gamma = 1``, polynomial ``(<x, x'> + 1)^2``, linear;
* ``usps-256``: USPS (7291 training / 2007 test images, 256 features), digits 0-4 against
  5-9, unit-norm rows; RBF ``gamma = 0.5``, polynomial ``(<x, x'> + 1)^3``, linear;
* ``mnist-784``: MNIST-5k (``kernelclf.datasets.load("mnist5k")``, 784 features), digits
  0-4 against 5-9, unit-norm rows, the last 1000 of a seeded permutation for testing;
  same kernels as USPS;
* ``usps-10class``: USPS, all ten digits, unit-norm rows, RBF ``gamma = 0.5``: our
  :class:`kernelclf.multiclass.OneVsOneClassifier` around
  :class:`kernelclf.margin.SupportVectorMachine` (``tie_break='first'``, libsvm's vote)
  against ``SVC``'s built-in one-versus-one, same kernel and C.

The same kernel on both sides: ``RBF(gamma=g)`` is ``SVC(kernel='rbf', gamma=g)``,
``Polynomial(degree, offset, gamma)`` is ``SVC(kernel='poly', degree=degree,
gamma=gamma, coef0=offset)``, ``Linear()`` is ``SVC(kernel='linear')``; so both solve
the same dual, and the dual objectives of the two tol-1e-3 solutions are compared
(``_sklearn_dual`` evaluates ``SVC``'s coefficients with our kernel).

The grid (:func:`grid`): every binary problem and kernel over C in {0.01, 1, 1000} and
three sizes from 200 to the problem's largest (16000 for the synthetic sets), except the
linear kernel at C = 1000, which runs at m = 200 only (on ``tabular-50`` both libraries
stop there at the iteration cap of ``max(10^7, 100 m)`` without reaching the tolerance,
seconds per fit; the time grows with m);
the ten-class problem over C in {1, 100} and m in {500, 2000, 7291}. ``--quick`` keeps
m <= 2000.

Single-threaded BLAS (set before numpy is imported). The two fits of a cell run
interleaved in one process, and each time is the best of the repeats (5 for m <= 2000,
else 2; the machine is shared: the best run is the one least disturbed). Both sides
include their kernel evaluations and input checks. Reported per cell: the fit-time
ratio kernelclf / SVC, both times, the relative difference of the dual objectives
(binary cells), the numbers of support vectors, both test accuracies and the fraction of
test points on which the two predictions agree; per problem, kernel and C the growth
exponent of the fit time in m (least-squares slope of log time on log m).

Run: ``python -m benchmarks.svm_broad`` (``--quick`` for m <= 2000; ``--max-m N``,
``--only NAME`` and ``--repeats N`` for smaller pieces); writes
``benchmarks/results/svm_broad.json``. With ``--record`` it also writes the run as the
package's results file ``kernelclf/experiments/results/svm_broad_benchmark.jsonl`` (a
header with the command, commit, date and machine, then one record per cell;
:mod:`kernelclf.experiments.results`).
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import functools  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import sklearn  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from benchmarks._cli import check_argv  # noqa: E402
from kernelclf.kernels import RBF, Linear, Polynomial  # noqa: E402
from kernelclf.margin import SupportVectorMachine  # noqa: E402
from kernelclf.multiclass import OneVsOneClassifier  # noqa: E402

from .svm import _best_times  # noqa: E402  (interleaved best-of-repeats timing, one place)

TOL = 1e-3
CS = (0.01, 1.0, 1000.0)
MULTICLASS_CS = (1.0, 100.0)
QUICK_MAX_M = 2000
N_TEST = 1000


def _repeats(m):
    return 5 if m <= 2000 else 2


# -- kernels: one specification, both libraries ---------------------------------------
def kernel_pair(spec):
    """``(our kernel, SVC keyword arguments)`` of a kernel specification: ``("rbf", gamma)``,
    ``("poly", degree, gamma, coef0)`` or ``("linear",)``; both define the same function
    ``k(x, x')``."""
    kind = spec[0]
    if kind == "rbf":
        return RBF(gamma=spec[1]), {"kernel": "rbf", "gamma": spec[1]}
    if kind == "poly":
        degree, gamma, coef0 = spec[1:]
        return (Polynomial(degree, coef0, gamma),
                {"kernel": "poly", "degree": degree, "gamma": gamma, "coef0": coef0})
    if kind == "linear":
        return Linear(), {"kernel": "linear"}
    raise ValueError(f"unknown kernel specification {spec!r}")


# -- problems ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """One benchmark problem: ``make(m)`` gives ``(X, y, X_test, y_test)`` with ``m``
    training examples (the first ``m`` of a fixed seeded pool, so a larger ``m`` extends
    a smaller one) and a fixed test set."""

    name: str
    description: str
    n_features: int
    sizes: tuple
    kernels: dict
    make: object
    multiclass: bool = False
    sparse: bool = False


def _unit_rows(X):
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def _standardise(X, Xt):
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (X - mu) / sd, (Xt - mu) / sd


@functools.lru_cache(maxsize=None)
def _tabular_pool():
    from sklearn.datasets import make_classification

    X, y = make_classification(16000 + N_TEST, n_features=50, n_informative=20,
                               n_redundant=10, flip_y=0.1, class_sep=1.0, random_state=0)
    Xtr, Xte = _standardise(X[:16000], X[16000:])
    return Xtr, np.where(y[:16000] > 0, 1.0, -1.0), Xte, np.where(y[16000:] > 0, 1.0, -1.0)


def tabular_task(m):
    X, y, Xt, yt = _tabular_pool()
    return X[:m], y[:m], Xt, yt


@functools.lru_cache(maxsize=None)
def _twonorm_pool():
    from kernelclf.datasets import load

    b = load("twonorm")
    X, y = np.asarray(b.X, dtype=float), np.asarray(b.y, dtype=float)
    p = np.random.default_rng(0).permutation(len(y))
    X, y = X[p], y[p]
    Xtr, Xte = _standardise(X[:-N_TEST], X[-N_TEST:])
    return Xtr, y[:-N_TEST], Xte, y[-N_TEST:]


def twonorm_task(m):
    X, y, Xt, yt = _twonorm_pool()
    return X[:m], y[:m], Xt, yt


def bag_of_words(n, vocabulary=800, length=60, tilt=100, seed=0):
    """``n`` seeded synthetic documents as unit-norm word counts (CSR) and labels +-1.

    Word frequencies follow Zipf's law ``p_w ~ 1/(w + 1)``; class +1 triples the frequency
    of words ``0 .. tilt-1`` of a seeded shuffle of the vocabulary, class -1 of the next
    ``tilt`` words; a document's length is Poisson(``length``) (at least 1) and its words
    are drawn independently."""
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, vocabulary + 1)
    order = rng.permutation(vocabulary)
    p = np.empty((2, vocabulary))
    for c in (0, 1):
        w = base.copy()
        w[order[c * tilt:(c + 1) * tilt]] *= 3.0
        p[c] = w / w.sum()
    y = rng.integers(0, 2, n)
    lengths = np.maximum(rng.poisson(length, n), 1)
    counts = np.stack([rng.multinomial(lengths[i], p[y[i]]) for i in range(n)])
    X = sp.csr_matrix(_unit_rows(counts.astype(float)))
    return X, np.where(y > 0, 1.0, -1.0)


@functools.lru_cache(maxsize=None)
def _bow_pool():
    X, y = bag_of_words(16000 + N_TEST)
    return X[:16000], y[:16000], X[16000:], y[16000:]


def bow_task(m):
    X, y, Xt, yt = _bow_pool()
    return X[:m], y[:m], Xt, yt


@functools.lru_cache(maxsize=None)
def _usps_pool():
    from kernelclf.datasets import load

    b = load("usps")
    X, t = np.asarray(b.X_train, dtype=float), np.asarray(b.y_train)
    Xt, tt = np.asarray(b.X_test, dtype=float), np.asarray(b.y_test)
    p = np.random.default_rng(0).permutation(len(t))
    return _unit_rows(X[p]), t[p].astype(int), _unit_rows(Xt[:N_TEST]), tt[:N_TEST].astype(int)


def usps_task(m):
    X, t, Xt, tt = _usps_pool()
    return X[:m], np.where(t[:m] <= 4, -1.0, 1.0), Xt, np.where(tt <= 4, -1.0, 1.0)


def usps10_task(m):
    X, t, Xt, tt = _usps_pool()
    return X[:m], t[:m], Xt, tt


@functools.lru_cache(maxsize=None)
def _mnist_pool():
    from kernelclf.datasets import load

    b = load("mnist5k")
    X, t = _unit_rows(np.asarray(b.X, dtype=float)), np.asarray(b.y).astype(int)
    p = np.random.default_rng(0).permutation(len(t))
    X, t = X[p], t[p]
    return X[:-N_TEST], t[:-N_TEST], X[-N_TEST:], t[-N_TEST:]


def mnist_task(m):
    X, t, Xt, tt = _mnist_pool()
    return X[:m], np.where(t[:m] <= 4, -1.0, 1.0), Xt, np.where(tt <= 4, -1.0, 1.0)


def _image_kernels():
    return {"rbf": ("rbf", 0.5), "poly": ("poly", 3, 1.0, 1.0), "linear": ("linear",)}


PROBLEMS = {p.name: p for p in (
    Problem("tabular-50", "make_classification(50 features, 20 informative, flip_y 0.1), "
            "standardised", 50, (200, 2000, 16000),
            {"rbf": ("rbf", 1 / 50), "poly": ("poly", 3, 1 / 50, 1.0), "linear": ("linear",)},
            tabular_task),
    Problem("twonorm-20", "Raetsch twonorm (7400 x 20), standardised", 20, (200, 2000, 6400),
            {"rbf": ("rbf", 1 / 20), "poly": ("poly", 3, 1 / 20, 1.0), "linear": ("linear",)},
            twonorm_task),
    Problem("bow-800", "synthetic bag of words (800 words, Zipf, Poisson(60) lengths), "
            "unit-norm counts, sparse CSR", 800, (200, 2000, 16000),
            {"rbf": ("rbf", 1.0), "poly": ("poly", 2, 1.0, 1.0), "linear": ("linear",)},
            bow_task, sparse=True),
    Problem("usps-256", "USPS 0-4 vs 5-9, unit-norm rows", 256, (200, 2000, 7291),
            _image_kernels(), usps_task),
    Problem("mnist-784", "MNIST-5k 0-4 vs 5-9, unit-norm rows", 784, (200, 2000, 4000),
            _image_kernels(), mnist_task),
    Problem("usps-10class", "USPS ten digits, unit-norm rows, one-versus-one", 256,
            (500, 2000, 7291), {"rbf": ("rbf", 0.5)}, usps10_task, multiclass=True),
)}


def grid(quick=False, max_m=None, only=None):
    """The cells ``(problem name, kernel name, C, m)`` of a run (module docstring)."""
    limit = QUICK_MAX_M if quick else None
    if max_m is not None:
        limit = max_m if limit is None else min(limit, max_m)
    cells = []
    for p in PROBLEMS.values():
        if only and p.name not in only:
            continue
        sizes = [m for m in p.sizes if limit is None or m <= limit]
        for kname in p.kernels:
            for C in (MULTICLASS_CS if p.multiclass else CS):
                for m in sizes:
                    if kname == "linear" and C >= 1000 and m > min(p.sizes):
                        continue
                    cells.append((p.name, kname, C, m))
    return cells


# -- timing and comparison ------------------------------------------------------------
def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _sklearn_dual(sk, X, kernel):
    """The dual objective ``sum a_i - 1/2 sum a_i a_j y_i y_j k(x_i, x_j)`` at ``SVC``'s
    coefficients, the kernel evaluated by ours."""
    v = sk.dual_coef_.toarray()[0] if sp.issparse(sk.dual_coef_) else sk.dual_coef_[0]
    return float(np.abs(v).sum() - 0.5 * v @ kernel(_dense(X[sk.support_])) @ v)


def run_cell(name, kname, C, m, repeats=None):
    """Fit both libraries on one cell and compare them (module docstring)."""
    p = PROBLEMS[name]
    X, y, Xt, yt = p.make(m)
    kernel, svc_kw = kernel_pair(p.kernels[kname])
    repeats = _repeats(m) if repeats is None else repeats
    if p.multiclass:
        def ours_fit():
            return OneVsOneClassifier(SupportVectorMachine(kernel, C=C, tol=TOL),
                                      tie_break="first").fit(X, y)
    else:
        def ours_fit():
            return SupportVectorMachine(kernel, C=C, tol=TOL).fit(X, y)
    (t_ours, t_sk), (ours, sk) = _best_times(
        [ours_fit, lambda: SVC(C=C, tol=TOL, **svc_kw).fit(X, y)], repeats)
    pred_ours, pred_sk = ours.predict(Xt), sk.predict(Xt)
    row = {"problem": name, "kernel": kname, "C": C, "m": m, "d": p.n_features,
           "kernelclf_s": t_ours, "sklearn_s": t_sk, "ratio": t_ours / t_sk,
           "accuracy_kernelclf": float(np.mean(pred_ours == yt)),
           "accuracy_sklearn": float(np.mean(pred_sk == yt)),
           "prediction_agreement": float(np.mean(pred_ours == pred_sk)), "repeats": repeats}
    if p.multiclass:
        dc = sk.dual_coef_
        row.update({"n_sv_kernelclf": int(sum(len(e.support_) for e in ours.estimators_)),
                    "n_sv_sklearn": int(np.count_nonzero(dc.toarray() if sp.issparse(dc)
                                                         else dc)),
                    "n_sv_counts": "summed over the 45 pairwise machines"})
    else:
        d_ours, d_sk = ours.dual_objective_, _sklearn_dual(sk, X, kernel)
        sv_ours, sv_sk = set(ours.support_.tolist()), set(sk.support_.tolist())
        row.update({"D_kernelclf": d_ours, "D_sklearn": d_sk,
                    "rel_dD": abs(d_ours - d_sk) / abs(d_sk),
                    "n_sv_kernelclf": len(sv_ours), "n_sv_sklearn": len(sv_sk),
                    "n_sv_differ": len(sv_ours ^ sv_sk),
                    "iterations_kernelclf": int(ours.n_iter_),
                    "iterations_sklearn": int(np.sum(sk.n_iter_)),
                    "converged_kernelclf": bool(ours.converged_),
                    "fit_status_sklearn": int(sk.fit_status_)})
    return row


def _growth(rows, key):
    ms = np.log([r["m"] for r in rows])
    return float(np.polyfit(ms, np.log([r[key] for r in rows]), 1)[0]) if len(rows) > 1 \
        else float("nan")


def _warm_up():
    """Compile (or load from numba's cache) every path the cells use, outside the timings."""
    X, y = tabular_task(300)[:2]
    Xs, ys = bow_task(300)[:2]
    for spec in (("rbf", 0.02), ("poly", 3, 0.02, 1.0), ("linear",)):
        kernel = kernel_pair(spec)[0]
        SupportVectorMachine(kernel, C=1.0).fit(X, y)
        SupportVectorMachine(kernel, C=1.0).fit(Xs, ys)


def run(cells, repeats=None, echo=True):
    _warm_up()
    rows = []
    for cell in cells:
        rows.append(run_cell(*cell, repeats=repeats))
        if echo:
            print(_line(rows[-1]), flush=True)
    growth = {}
    for key in sorted({(r["problem"], r["kernel"], r["C"]) for r in rows}):
        sub = sorted((r for r in rows if (r["problem"], r["kernel"], r["C"]) == key),
                     key=lambda r: r["m"])
        growth["/".join(map(str, key))] = {"kernelclf": _growth(sub, "kernelclf_s"),
                                            "sklearn": _growth(sub, "sklearn_s")}
    return {"setting": "tol 1e-3, bias, single-threaded BLAS, interleaved, best of repeats",
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "sklearn": sklearn.__version__},
            "problems": {p.name: {"description": p.description, "d": p.n_features,
                                  "kernels": {k: list(v) for k, v in p.kernels.items()}}
                         for p in PROBLEMS.values()},
            "rows": rows, "growth_exponent": growth}


def _line(r):
    dual = f"|dD/D| {r['rel_dD']:.1e}" if "rel_dD" in r else "(multiclass)"
    return (f"{r['problem']:12s} {r['kernel']:6s} C={r['C']:<6g} m={r['m']:6d} ours "
            f"{r['kernelclf_s']:.4f}s  SVC {r['sklearn_s']:.4f}s  ratio {r['ratio']:.2f}  "
            f"{dual}  SV {r['n_sv_kernelclf']}/{r['n_sv_sklearn']}  agree "
            f"{r['prediction_agreement']:.3f}")


def table(result):
    """One Markdown table per problem and kernel: ratio (|dD/D|) per m and C."""
    out = []
    rows = result["rows"]
    for name, kname in dict.fromkeys((r["problem"], r["kernel"]) for r in rows):
        sub = [r for r in rows if (r["problem"], r["kernel"]) == (name, kname)]
        cs = sorted({r["C"] for r in sub})
        out.append(f"\n{name}, {kname}: fit-time ratio kernelclf / SVC (|dD/D|)")
        out.append("| m | " + " | ".join(f"C = {c:g}" for c in cs) + " |")
        out.append("|---" * (len(cs) + 1) + "|")
        for m in sorted({r["m"] for r in sub}):
            cells = []
            for c in cs:
                r = next((r for r in sub if r["m"] == m and r["C"] == c), None)
                cells.append("-" if r is None else f"{r['ratio']:.2f}" + (
                    f" ({r['rel_dD']:.0e})" if "rel_dD" in r else ""))
            out.append(f"| {m} | " + " | ".join(cells) + " |")
    above = [r for r in rows if r["ratio"] > 1]
    out.append(f"\ncells with ratio > 1: {len(above)} of {len(rows)}")
    for r in sorted(above, key=lambda r: -r["ratio"]):
        out.append(f"  {r['problem']} {r['kernel']} C={r['C']:g} m={r['m']}: {r['ratio']:.2f}")
    return "\n".join(out)


def _cpu():
    """The CPU's model name and its widest vector extension, from ``/proc/cpuinfo`` (Linux;
    ``None`` elsewhere): the same code's ratios differ from one CPU to another."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None, None
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines()
                  if ln.startswith("model name")), None)
    flags = next((set(ln.split(":", 1)[1].split()) for ln in text.splitlines()
                  if ln.startswith("flags")), set())
    simd = next((f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in flags), None)
    return model, simd


def machine():
    """Where the run took place (the timings depend on it)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    model, simd = _cpu()
    return {"node": platform.node(), "machine": platform.machine(),
            "processor": platform.processor(), "cpu_model": model, "simd": simd,
            "cpu_count": os.cpu_count(),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
            "load_average": None if load is None else [round(v, 2) for v in load]}


def write_record(result, path, command):
    """The run as a results file of :mod:`kernelclf.experiments.results`: a header (the
    command, commit, date and machine, the setting, the versions and the growth
    exponents), then one record per cell, keyed ``problem/kernel/C/m``."""
    from kernelclf.experiments.runner import provenance

    prov = provenance(command)
    prov["command"] = command       # (provenance reads sys.argv of a ``__main__.py`` run)
    header = {"kernelclf_results": 1, "command": "benchmarks.svm_broad",
              "provenance": prov, "machine": machine(),
              "config": {"setting": result["setting"], "versions": result["versions"],
                         "problems": result["problems"],
                         "growth_exponent": result["growth_exponent"]}}
    lines = [json.dumps(header)]
    for r in result["rows"]:
        lines.append(json.dumps({"key": f"{r['problem']}/{r['kernel']}/{r['C']:g}/{r['m']}",
                                 "problem": r["problem"], "kernel": r["kernel"], "m": r["m"],
                                 "C": r["C"], "result": r}))
    Path(path).write_text("\n".join(lines) + "\n")


def _option(argv, flag, cast):
    if flag not in argv:
        return None
    return cast(argv[argv.index(flag) + 1])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if check_argv(argv, "benchmarks.svm_broad", __doc__, flags=("--quick", "--record"),
                  options={"--max-m": "N", "--only": "NAME[,NAME...]", "--repeats": "N"}):
        return
    only = _option(argv, "--only", lambda s: s.split(","))
    cells = grid(quick="--quick" in argv, max_m=_option(argv, "--max-m", int), only=only)
    start = machine()
    result = run(cells, repeats=_option(argv, "--repeats", int))
    result["machine"] = {"start": start, "end": machine()}
    print(table(result))
    out = Path(__file__).resolve().parent / "results" / "svm_broad.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")
    if "--record" in argv:
        from kernelclf.experiments.results import results_path

        path = results_path("svm_broad_benchmark.jsonl")
        write_record(result, path, "python -m benchmarks.svm_broad " + " ".join(argv))
        print(f"written {path}")


if __name__ == "__main__":
    main()
