"""Gap-weighted subsequence kernel: ``python -m benchmarks.strings``.

1. Gram matrix of 50 random ACGT strings of length 300, n = 5, lam = 0.5,
   unnormalised, single-threaded.
2. The same Gram for random strings over 27 symbols (letters and space), where
   ``method="auto"`` falls back to the dynamic programme (27^5 > 32768).
3. Single pairs of random ACGT strings of length 100 / 500 / 1000, same n, lam.

Contenders:

* ``kernelclf auto``: :class:`kernelclf.kernels.strings.SubsequenceKernel` with its
  default ``method="auto"`` (explicit feature map, since 4^5 <= 32768);
* ``kernelclf dp``: the same kernel with ``method="dp"``, the batched,
  whole-table dynamic programme of LKC App. B.2.2 (the path used for large
  alphabets such as text);
* ``plain DP``: the O(n|s||t|) recursion of Lodhi et al. (2002) one character
  at a time in pure Python (for the Gram it is timed on 10 pairs and
  extrapolated to the 1275 pairs of the upper triangle, marked ``~``);
* ``strkernels`` 0.2.15 (C, OpenMP forced to one thread), when importable.
  Its ``SubsequenceStringKernel(maxlen=n)`` returns the SUM k_1 + ... + k_n,
  so it is compared with ``SubsequenceKernel(cumulative=True)`` (rows marked
  "sum"); ``normalizer=None`` gives raw values.  It is not a project
  dependency: install it into a separate directory and point
  ``KERNELCLF_STRKERNELS_PATH`` at it, e.g.
  ``pip install --no-deps --target /tmp/strk strkernels==0.2.15``.

Times are the best of 3 runs (1 for the plain DP), wall clock; the load
average of the machine is recorded with the results because the timings are
only comparable within one run.  Every contender's value is checked against
kernelclf's (relative difference reported).
Writes ``benchmarks/results/strings.json`` and prints a table.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

from benchmarks._cli import check_argv  # noqa: E402
from kernelclf.kernels import SubsequenceKernel  # noqa: E402

N, LAM = 5, 0.5


def _best_time(fn, repeats=3):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def plain_dp(s, t, n, lam, cumulative=False):
    """Lodhi et al. (2002) recursion, one character at a time (pure Python)."""
    ls, lt = len(s), len(t)
    prev = [[1.0] * (lt + 1) for _ in range(ls + 1)]
    total = 0.0
    for i in range(1, n + 1):
        level = sum(lam * lam * prev[a - 1][b - 1] for a in range(1, ls + 1)
                    for b in range(1, lt + 1) if s[a - 1] == t[b - 1])
        if cumulative or i == n:
            total += level
        if i == n:
            break
        cur = [[0.0] * (lt + 1) for _ in range(ls + 1)]
        for a in range(1, ls + 1):
            kpp, sa, row_prev, row, row_up = 0.0, s[a - 1], prev[a - 1], cur[a], cur[a - 1]
            for b in range(1, lt + 1):
                kpp = lam * kpp + (lam * lam * row_prev[b - 1] if sa == t[b - 1] else 0.0)
                row[b] = lam * row_up[b] + kpp
        prev = cur
    return total


def _strkernels():
    path = os.environ.get("KERNELCLF_STRKERNELS_PATH")
    if path and path not in sys.path:
        sys.path.insert(0, path)
    try:
        import strkernels
    except ImportError:
        return None
    return strkernels


def _random_dna(rng, m, length):
    return ["".join(rng.choice(list("ACGT"), length)) for _ in range(m)]


def bench_gram(sk):
    rng = np.random.default_rng(0)
    X = _random_dna(rng, 50, 300)
    rows = []
    t_auto, K = _best_time(lambda: SubsequenceKernel(N, LAM)(X))
    t_dp, K_dp = _best_time(lambda: SubsequenceKernel(N, LAM, method="dp")(X))
    t_sum, K_sum = _best_time(lambda: SubsequenceKernel(N, LAM, cumulative=True)(X))
    t_sum_dp, K_sum_dp = _best_time(
        lambda: SubsequenceKernel(N, LAM, cumulative=True, method="dp")(X))
    pairs = [(0, 1), (0, 0), (2, 7), (3, 3), (10, 40), (11, 12), (20, 21), (30, 49), (5, 6),
             (8, 9)]
    t0 = time.perf_counter()
    plain = [plain_dp(X[i], X[j], N, LAM) for i, j in pairs]
    t_plain = (time.perf_counter() - t0) / len(pairs) * (50 * 51 // 2)
    rel = lambda a, b: float(np.max(np.abs(a - b)) / np.max(np.abs(b)))  # noqa: E731
    rows += [
        dict(task="Gram 50x300", value="k_5", contender="kernelclf auto (features)",
             seconds=t_auto, K01=K[0, 1], K00=K[0, 0], rel_diff=0.0),
        dict(task="Gram 50x300", value="k_5", contender="kernelclf dp", seconds=t_dp,
             K01=K_dp[0, 1], K00=K_dp[0, 0], rel_diff=rel(K_dp, K)),
        dict(task="Gram 50x300", value="k_5", contender="plain DP (~ from 10 pairs)",
             seconds=t_plain, K01=plain[0], K00=plain[1],
             rel_diff=rel(np.array(plain), np.array([K[i, j] for i, j in pairs]))),
        dict(task="Gram 50x300", value="sum", contender="kernelclf auto (features)",
             seconds=t_sum, K01=K_sum[0, 1], K00=K_sum[0, 0], rel_diff=0.0),
        dict(task="Gram 50x300", value="sum", contender="kernelclf dp", seconds=t_sum_dp,
             K01=K_sum_dp[0, 1], K00=K_sum_dp[0, 0], rel_diff=rel(K_sum_dp, K_sum)),
    ]
    if sk is not None:
        kern = sk.SubsequenceStringKernel(normalizer=None, maxlen=N, ssk_lambda=LAM)
        Xa = np.array(X)
        t_sk, K_sk = _best_time(lambda: kern(Xa, Xa))
        rows.append(dict(task="Gram 50x300", value="sum", contender="strkernels 0.2.15 (C)",
                         seconds=t_sk, K01=K_sk[0, 1], K00=K_sk[0, 0],
                         rel_diff=rel(K_sk, K_sum)))
    # a text-sized alphabet: 27^5 features are too many, so "auto" runs the DP
    T = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz "), 300)) for _ in range(50)]
    t_txt, K_txt = _best_time(lambda: SubsequenceKernel(N, LAM, cumulative=True)(T))
    rows.append(dict(task="Gram 50x300/27", value="sum", contender="kernelclf auto (dp)",
                     seconds=t_txt, K01=K_txt[0, 1], K00=K_txt[0, 0], rel_diff=0.0))
    if sk is not None:
        kern = sk.SubsequenceStringKernel(normalizer=None, maxlen=N, ssk_lambda=LAM)
        Ta = np.array(T)
        t_sk, K_sk = _best_time(lambda: kern(Ta, Ta))
        rows.append(dict(task="Gram 50x300/27", value="sum", contender="strkernels 0.2.15 (C)",
                         seconds=t_sk, K01=K_sk[0, 1], K00=K_sk[0, 0],
                         rel_diff=rel(K_sk, K_txt)))
    return rows


def bench_pairs(sk, lengths):
    rows = []
    for L in lengths:
        rng = np.random.default_rng(L)
        s, t = _random_dna(rng, 2, L)
        for cumulative, label in ((False, "k_5"), (True, "sum")):
            ref = None
            for name, method in (("kernelclf auto (features)", "auto"), ("kernelclf dp", "dp")):
                sec, v = _best_time(lambda: SubsequenceKernel(
                    N, LAM, cumulative=cumulative, method=method)([s], [t])[0, 0])
                ref = v if ref is None else ref
                rows.append(dict(task=f"pair {L}", value=label, contender=name, seconds=sec,
                                 K01=v, rel_diff=abs(v - ref) / ref))
            sec, v = _best_time(lambda: plain_dp(s, t, N, LAM, cumulative), repeats=1)
            rows.append(dict(task=f"pair {L}", value=label, contender="plain DP", seconds=sec,
                             K01=v, rel_diff=abs(v - ref) / ref))
            if sk is not None and cumulative:
                kern = sk.SubsequenceStringKernel(normalizer=None, maxlen=N, ssk_lambda=LAM)
                sec, v = _best_time(lambda: kern(np.array([s]), np.array([t]))[0, 0])
                rows.append(dict(task=f"pair {L}", value=label, contender="strkernels 0.2.15 (C)",
                                 seconds=sec, K01=v, rel_diff=abs(v - ref) / ref))
    return rows


def _table(rows):
    head = (f"| {'task':<14} | {'value':<5} | {'contender':<27} | {'time':>10} | "
            f"{'k(s,t)':>12} | {'k(s,s)':>10} | {'rel. diff':>9} |")
    lines = [head, "|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|"]
    for r in rows:
        sec = r["seconds"]
        t = f"{sec:.3f} s" if sec >= 0.1 else f"{sec * 1e3:.2f} ms"
        if r["contender"].startswith("plain DP (~"):
            t = "~" + t
        k00 = f"{r['K00']:.4f}" if "K00" in r else ""
        lines.append(f"| {r['task']:<14} | {r['value']:<5} | {r['contender']:<27} | {t:>10} | "
                     f"{r['K01']:>12.6g} | {k00:>10} | {r['rel_diff']:>9.1e} |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if check_argv(argv, "benchmarks.strings", __doc__, flags=("--quick",)):
        return
    lengths = [100, 500] if "--quick" in argv else [100, 500, 1000]
    sk = _strkernels()
    rows = bench_gram(sk) + bench_pairs(sk, lengths)
    out = Path(__file__).resolve().parent / "results" / "strings.json"
    out.parent.mkdir(exist_ok=True)
    meta = dict(n=N, lam=LAM, threads=os.environ.get("OMP_NUM_THREADS"),
                load_average=os.getloadavg(),
                python=platform.python_version(), numpy=np.__version__,
                strkernels=None if sk is None else "0.2.15", machine=platform.machine())
    out.write_text(json.dumps(dict(meta=meta, rows=rows), indent=2, default=float))
    print(f"subsequence kernel, n = {N}, lam = {LAM}, single thread "
          f"(strkernels {'found' if sk else 'NOT installed'}; "
          f"load average {os.getloadavg()[0]:.1f})")
    print(_table(rows))
    print(f"wrote {out}")
    return rows


if __name__ == "__main__":
    main()
