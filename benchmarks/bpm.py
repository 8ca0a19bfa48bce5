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

Table 1 section (issue 14; SVC column, issue 41): on the first ``--splits`` splits (default 1)
of each BPM Table 1 data set (standardised inputs, the table's RBF width, the protocol of
``kernelclf.experiments``), the fit time of the default ``BayesPointMachine`` (stored Gram
matrix, compiled billiard, ``lam='auto'``, its default stopping rule) against the hard-margin
SVM without bias that chapter 12 compares it with (SMO; the QP solver when SMO stops at its cap
or its coefficients diverge; C = 1e6 with squared slacks when the QP does not separate, as
``experiments._one_split`` does) and against scikit-learn's ``SVC`` with the same kernel
(``gamma = 1 / (2 sigma^2)``, its default C = 1, or ``--svc-C``: a large C comes closer to the
hard margin of the machines compared; ``--bpm-tol`` sets the BPM's ``tol``, to time another
stopping threshold than the default). The three fits are warmed alike; the BPM and SVC are then
timed interleaved in lockstep (BPM, SVC, then again: both equally often, each run after the
other fit, until both have had at least ``--repeats`` runs and either their runs add up to
``BUDGET_S`` seconds or ``MAX_REPEATS`` runs; a fit left to run back to back would be favoured,
see ``_interleaved_best``), the SVM on its own after them (the hard-margin SVM takes up to
seconds on Banana), best of the runs each. Warming: before the first split, ``_warm_up`` fits
each of the three once on small samples (the BPM on one where ``lam='auto'`` chooses hard
boundaries and on one where it chooses soft ones), so that no timed split pays the first fit of
a process (numba's start-up and its cached code for the BPM, about 0.3 s; imports and about 10
ms for ``SVC``: see ``_warm_up``), a cost paid once per process, not per fit; and on every
split each fit is run once untimed before the timed runs, its time recorded (``bpm_first_s``,
``svc_first_s`` in the JSON record). "BPM/SVM" and "BPM/SVC" are ratios of these best
wall-clock times, per split, and the table shows their median and largest over the splits;
"BPM/SVC CPU" is the ratio of the best CPU times of the process (all three fits are
single-threaded here), which does not count the time a fit waits for a core, the larger part of
a few-millisecond fit's wall-clock time on a loaded machine. "split s" is the time of one whole
split of the Table 1 protocol (both fits and predictions) on split 0, from which the 100-split
run is estimated (Heart has 10 splits). ``--passes P`` times the BPM and ``SVC`` on every split
``P`` times, in ``P`` passes over the splits, and keeps each split's best (on a loaded machine
a burst of load during the second or so in which one split is timed inflates the longer fit
more, in wall-clock and in CPU time). A second table gives, per split, the BPM's and SVC's best
fit times and the parts of the BPM's fit, each timed on its own (interleaved best, as the
fits): the validation of the parameters and the sample, the Gram matrix, ``lam='auto'``'s
margin bounds, the perceptron start and the billiard with its bounces.

Noisy two moons ("safe by default", issue 27): the default ``BayesPointMachine(RBF(0.5),
random_state=0)`` (``lam='auto'``) against ``SupportVectorMachine(RBF(0.5), C=1)`` and
``SVC(gamma=2, C=1)`` (the same kernel) on noisy two moons (noise 0.3; the package's
generator, which also flips 5 % of the labels, and scikit-learn's), m = 500 and 4000, test
accuracy on 2000 fresh points (seed 1). Fit times are the best of interleaved runs (as in the
Table 1 section), after a warm-up fit; ratios are BPM / SVM and BPM / SVC. Test accuracies are also
averaged over ``NOISY_SEEDS`` training sets (same test set).

Stopping threshold study (``--tol-study 1e-2 2e-2 --splits 100``): the test error and bounces
of the default ``BayesPointMachine`` at each ``tol`` on the Table 1 protocol's splits, paired
with the first ``tol``, next to the mean BPM error of the committed Table 1 results file
(:func:`run_tol_study`).

Run: ``python -m benchmarks.bpm`` (``--help`` lists the options: ``--table1-only`` skips the
two-moons part, ``--no-noisy-moons`` the noisy two-moons section, ``--noisy-moons-only``
runs only that section); writes
``benchmarks/results/bpm.json`` (``bpm_noisy_moons.json`` for ``--noisy-moons-only``,
``bpm_tol_study.json`` for ``--tol-study``).
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
from kernelclf.kernels import RBF, DegenerateKernelWarning, Gram  # noqa: E402
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
    """Run once, before anything is timed, every fit the sections time: the compiled
    billiard of both engines, default ``BayesPointMachine`` fits on a sample where
    ``lam='auto'`` chooses hard boundaries and on one where it chooses soft ones (the
    margin bounds' compiled steps, the perceptron start, the Gram matrix and its guard),
    the SVM and scikit-learn's ``SVC``. The first fit of a process pays one-off costs that
    no later fit pays: for the BPM (and every numba-compiled fit) the first compiled call
    initialises numba's code generator (0.2-0.3 s of CPU on the project's machine, for any
    compiled function) and each compiled function is loaded from numba's cache (a few to
    tens of milliseconds); for ``SVC`` the import of ``sklearn.svm`` (which
    :func:`_svc_fit` does) and a first fit of about 10 ms. Both are warmed here alike."""
    X, y = _data(60, seed=5)
    Xn, yn = make_moons(200, noise=0.3, random_state=5)        # noisy: lam='auto' soft
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for engine in ("compiled", "python"):
            kernel_billiard(RBF(SIGMA)(X), y, tol=1e-2, random_state=0, engine=engine)
        for Xw, yw in ((X, y), (Xn, yn)):
            BayesPointMachine(RBF(SIGMA), random_state=0).fit(Xw, yw)
            SupportVectorMachine(RBF(SIGMA), C=1.0).fit(Xw, yw)
            _svc_fit(SIGMA, Xw, yw)
        _svm_fit(RBF(SIGMA), X, y)      # (the hard margin: on the separable sample only)


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
#: interleaved timing: a fit is repeated until its runs add up to BUDGET_S seconds (at most
#: MAX_REPEATS runs), so that fits of milliseconds get a best time on a loaded machine
BUDGET_S, MAX_REPEATS = 1.0, 200


def _best_time(fn, repeats=REPEATS):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _interleaved_best(fns, repeats=REPEATS, budget=BUDGET_S, max_repeats=MAX_REPEATS,
                     first=None, lockstep=False):
    """Best wall-clock time, best CPU time of this process and last result of each
    function, timed in turn (all once, then all again, ...), so that a change of the
    machine's load hits them alike: each at least ``repeats`` times, and a function whose
    runs have not yet added up to ``budget`` seconds again (at most ``max_repeats`` runs).
    On a loaded machine a fit of a few milliseconds is preempted in most runs, which the
    wall clock counts and the CPU time (single-threaded fits) does not.

    Every function is first run once untimed, all alike (a first call on new data can pay
    one-off costs: code loaded for a new input's types, memory); its wall-clock time is
    appended to the list ``first`` when one is given, so that the record shows it, and it
    counts neither in the best times nor in the budget.

    ``lockstep``: every round runs every function, as long as any of them needs more runs,
    so that all run equally often and each run follows the same others. Otherwise a
    function that has had its runs drops out, and the rest then run back to back: a fit
    repeated back to back (its data and code still in the caches, its memory reused) can
    take a sixth less time than between other fits (``SVC`` on a Banana split: 1.59 ms
    best in the rounds after the BPM's budget ran out, 1.90 ms in the rounds before), so
    a ratio of the two would favour the one left alone."""
    for fn in fns:
        t0 = time.perf_counter()
        fn()
        if first is not None:
            first.append(time.perf_counter() - t0)
    best, cpu, out = [np.inf] * len(fns), [np.inf] * len(fns), [None] * len(fns)
    spent, runs = [0.0] * len(fns), [0] * len(fns)
    while True:
        todo = [k for k in range(len(fns)) if runs[k] < repeats
                or (spent[k] < budget and runs[k] < max_repeats)]
        if not todo:
            return best, cpu, out
        if lockstep:
            todo = range(len(fns))
        for k in todo:
            c0, t0 = time.process_time(), time.perf_counter()
            out[k] = fns[k]()
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            best[k], spent[k], runs[k] = min(best[k], dt), spent[k] + dt, runs[k] + 1
            cpu[k] = min(cpu[k], dc)


def _svm_fit(kernel, X, y):
    from kernelclf.experiments.bpm import _hard_margin_svm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _hard_margin_svm(kernel, X, y)


def _svc_fit(sigma, X, y, C=1.0):
    from sklearn.svm import SVC

    return SVC(kernel="rbf", gamma=1.0 / (2.0 * sigma ** 2), C=C).fit(X, y)


def _bpm_phases(kernel, X, y, repeats=REPEATS, tol=None):
    """Best wall-clock times (s) of the parts of a default ``BayesPointMachine`` fit, each
    run on its own (interleaved, as the fits): ``validate`` (parameters, inputs, labels),
    ``gram`` (the training Gram matrix, with its guard), ``ridge`` (``lam='auto'``: the
    nearest-point bounds on the margin), ``start`` (the point in version space: the kernel
    perceptron, with the fit's seeding of its generator) and ``billiard`` (the flights to
    the stopping rule, from that start with the generator as the start leaves it, as in the
    fit; the time to restore the generator's state before each run, timed alike, is
    subtracted); the rest of the fit (attributes) is not timed here."""
    from kernelclf.bayespoint.bpm import _random_state

    est = BayesPointMachine(kernel, random_state=0, **_tol_kw(tol))
    Xv, yv = est._fit_binary(X, y)
    gram = est._training_gram(Xv, 0.0, precompute=None)
    lam, hint = est._choose_ridge(Xv, gram, yv)
    g = gram.with_ridge(lam) if lam else gram
    rng = _random_state(0)
    start = est._start(g, yv, rng, hint)
    state = rng.get_state()                      # the generator as the fit leaves it
    rng_b = np.random.RandomState()

    def billiard():
        rng_b.set_state(state)
        return kernel_billiard(g, yv, start=start, tol=est.tol, random_state=rng_b,
                               trace=False)

    (t_val, t_gram, t_ridge, t_start, t_bill, t_set), _, (_, _, _, _, res, _) = \
        _interleaved_best([
            lambda: est._fit_binary(X, y),
            lambda: est._training_gram(Xv, 0.0, precompute=None),
            lambda: est._choose_ridge(Xv, gram, yv),
            lambda: est._start(g, yv, _random_state(0), hint),
            billiard,
            lambda: rng_b.set_state(state)], repeats)
    return {"validate_s": t_val, "gram_s": t_gram, "ridge_s": t_ridge, "start_s": t_start,
            "billiard_s": max(t_bill - t_set, 0.0), "billiard_bounces": int(res.n_bounces)}


def _svm_solver(svm):
    p = svm.get_params()
    return "C=1e6" if p.get("C") == 1e6 else str(p.get("solver"))


def _tol_kw(tol):
    return {} if tol is None else {"tol": float(tol)}


def _time_bpm_and_svc(kernel, sigma, Xs, ytr, repeats, svc_C, bpm_tol, first=None):
    """The default BPM's and ``SVC``'s fits on one split timed in lockstep
    (:func:`_interleaved_best`): their best wall-clock and CPU times and fitted models."""
    return _interleaved_best([
        lambda: BayesPointMachine(kernel, random_state=0, **_tol_kw(bpm_tol)).fit(Xs, ytr),
        lambda: _svc_fit(sigma, Xs, ytr, svc_C)], repeats, first=first, lockstep=True)


def _retime(kernel, sigma, Xs, ytr, repeats, svc_C, bpm_tol, sp):
    """Another pass of the BPM's and SVC's interleaved timing on one split (warmed alike,
    as the first): ``sp``'s best times and ratios become the best over the passes (the
    ratio of each pass on its own is kept in ``bpm_svc_by_pass``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateKernelWarning)   # said in the first pass
        (t_bpm, t_svc), (c_bpm, c_svc), _ = _time_bpm_and_svc(kernel, sigma, Xs, ytr,
                                                              repeats, svc_C, bpm_tol)
    sp.setdefault("bpm_svc_by_pass", [sp["bpm_svc"]]).append(t_bpm / t_svc)
    for key, t in (("bpm_fit_s", t_bpm), ("svc_fit_s", t_svc), ("bpm_cpu_s", c_bpm),
                   ("svc_cpu_s", c_svc)):
        sp[key] = min(sp[key], t)
    sp["bpm_svm"] = sp["bpm_fit_s"] / sp["svm_fit_s"]
    sp["bpm_svc"] = sp["bpm_fit_s"] / sp["svc_fit_s"]
    sp["bpm_svc_cpu"] = sp["bpm_cpu_s"] / max(sp["svc_cpu_s"], 1e-9)


def run_table1(datasets=None, n_splits=1, repeats=REPEATS, svc_C=1.0, bpm_tol=None,
               passes=1):
    """BPM vs SVM vs SVC fit time per Table 1 data set (first ``n_splits`` splits), and the
    time of one split. ``bpm_tol``: the BPM's ``tol`` (``None``: its default). ``passes``:
    after the first pass over a data set's splits, the BPM and SVC are timed again on every
    split ``passes - 1`` more times (a pass over all splits each), and a split's best times
    are the best over the passes: a burst of load during one split's second of timing,
    which slows a fit of a few milliseconds more than a shorter one (a fit preempted
    mid-way also refills its caches, which its CPU time counts), then does not decide its
    ratio."""
    from kernelclf.experiments import TABLE1_SIGMA, table1_splits
    from kernelclf.experiments.bpm import _one_split, _standardise

    _warm_up()
    rows = []
    for name in datasets or TABLE1_SIGMA:
        sigma = TABLE1_SIGMA[name]
        kernel = RBF(sigma)
        splits = table1_splits(name, n_splits)
        per = []
        for Xtr, ytr, Xte, yte in splits:
            Xs, _ = _standardise(Xtr, Xte)
            with warnings.catch_warnings(record=True) as caught:
                # the table's width can make the Gram matrix nearly the identity (Sonar,
                # sigma = 1 on 60 standardised features): said once, not once per fit
                warnings.simplefilter("always", DegenerateKernelWarning)
                first = []
                (t_bpm, t_svc), (c_bpm, c_svc), (bpm, svc) = _time_bpm_and_svc(
                    kernel, sigma, Xs, ytr, repeats, svc_C, bpm_tol, first)
                (t_svm,), (c_svm,), (svm,) = _interleaved_best(
                    [lambda: _svm_fit(kernel, Xs, ytr)], repeats)
            degenerate = [w for w in caught if issubclass(w.category, DegenerateKernelWarning)]
            for w in caught:
                if w not in degenerate:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if degenerate and not per:
                print(f"{name}: DegenerateKernelWarning: {str(degenerate[0].message)[:160]}...",
                      flush=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateKernelWarning)   # said above
                phases = _bpm_phases(kernel, Xs, ytr, repeats, bpm_tol)
            per.append({**phases, "bpm_fit_s": t_bpm, "svm_fit_s": t_svm, "svc_fit_s": t_svc,
                        "bpm_svm": t_bpm / t_svm, "bpm_svc": t_bpm / t_svc,
                        "bpm_cpu_s": c_bpm, "svm_cpu_s": c_svm, "svc_cpu_s": c_svc,
                        "bpm_svc_cpu": c_bpm / max(c_svc, 1e-9),
                        "bpm_first_s": first[0], "svc_first_s": first[1],
                        "bounces": int(bpm.n_bounces_), "converged": bool(bpm.converged_),
                        "lam": float(bpm.lam_), "svm_solver": _svm_solver(svm),
                        "bpm_test_error": float(np.mean(bpm.predict(_standardise(Xtr, Xte)[1])
                                                        != yte)),
                        "svc_test_error": float(np.mean(svc.predict(_standardise(Xtr, Xte)[1])
                                                        != yte))})
        for _ in range(int(passes) - 1):
            for (Xtr, ytr, Xte, _yte), sp in zip(splits, per):
                _retime(kernel, sigma, _standardise(Xtr, Xte)[0], ytr, repeats, svc_C,
                        bpm_tol, sp)
        for sp in per:
            sp["passes"] = int(passes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateKernelWarning)   # said above
            t_split, _ = _best_time(lambda: _one_split(*splits[0], sigma, 1e-3, 0), 1)
        n_total = 10 if name == "heart" else 100
        first = per[0]
        rows.append({"dataset": name, "m": len(splits[0][1]), "sigma": sigma, "svc_C": svc_C,
                     "bpm_tol": bpm_tol,
                     "n_splits_timed": len(per), "splits": per,
                     "bpm_fit_s": first["bpm_fit_s"], "svm_fit_s": first["svm_fit_s"],
                     "svc_fit_s": first["svc_fit_s"],
                     "ratio": float(np.median([r["bpm_svm"] for r in per])),
                     "ratio_max": float(np.max([r["bpm_svm"] for r in per])),
                     "ratio_svc": float(np.median([r["bpm_svc"] for r in per])),
                     "ratio_svc_max": float(np.max([r["bpm_svc"] for r in per])),
                     "ratio_svc_cpu": float(np.median([r["bpm_svc_cpu"] for r in per])),
                     "ratio_svc_cpu_max": float(np.max([r["bpm_svc_cpu"] for r in per])),
                     "bounces": first["bounces"], "converged": first["converged"],
                     "us_per_bounce": 1e6 * first["bpm_fit_s"] / max(first["bounces"], 1),
                     "svm_solver": first["svm_solver"],
                     "bpm_test_error_mean": float(np.mean([r["bpm_test_error"] for r in per])),
                     "svc_test_error_mean": float(np.mean([r["svc_test_error"] for r in per])),
                     "split_s": t_split, "n_splits": n_total,
                     "estimated_run_s": t_split * n_total})
        print(f"{name} done", flush=True)
    return rows


def table1_table(rows):
    lines = ["| data | m | splits | bounces | µs / bounce (whole fit) | BPM fit s | SVM fit s "
             "(solver) | SVC fit s | BPM/SVM (median, max) | BPM/SVC (median, max) | BPM/SVC CPU "
             "(median, max) | BPM err | SVC err | split s | est. 100 splits s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['m']} | {r['n_splits_timed']} | {r['bounces']} | "
                     f"{r['us_per_bounce']:.2f} | {r['bpm_fit_s']:.4f} | {r['svm_fit_s']:.4f} "
                     f"({r['svm_solver']}) | {r['svc_fit_s']:.4f} | {r['ratio']:.2f}, "
                     f"{r['ratio_max']:.2f} | {r['ratio_svc']:.2f}, {r['ratio_svc_max']:.2f} | "
                     f"{r['ratio_svc_cpu']:.2f}, {r['ratio_svc_cpu_max']:.2f} | "
                     f"{r['bpm_test_error_mean']:.4f} | {r['svc_test_error_mean']:.4f} | "
                     f"{r['split_s']:.2f} | {r['estimated_run_s']:.0f} |")
    total = sum(r["estimated_run_s"] for r in rows)
    lines.append("\nFit times are those of the first split (best wall clock); ratios are per "
                 "split, of the best wall-clock times or of the best CPU times of the process "
                 "(CPU: not counting the time the fit waited for a core on a loaded machine); "
                 "errors are the mean test error over the timed splits "
                 f"(SVC: C = {rows[0]['svc_C']:g}).")
    lines.append(f"Estimated serial time of the full Table 1 run: {total:.0f} s "
                 f"({total / 60:.1f} min; about half with --n-jobs 2 on two free cores)")
    return "\n".join(lines)


def table1_split_table(rows):
    """Per split: the BPM's and SVC's fit times, their ratio, and the parts of the BPM's fit
    (:func:`_bpm_phases`, each timed on its own), in milliseconds."""
    lines = ["| data | split | BPM ms | SVC ms | BPM/SVC | validate ms | gram ms | ridge ms | "
             "start ms | billiard ms (bounces) | BPM err | SVC err |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for k, sp in enumerate(r["splits"]):
            lines.append(f"| {r['dataset']} | {k} | {1e3 * sp['bpm_fit_s']:.2f} | "
                         f"{1e3 * sp['svc_fit_s']:.2f} | {sp['bpm_svc']:.2f} | "
                         f"{1e3 * sp['validate_s']:.2f} | {1e3 * sp['gram_s']:.2f} | "
                         f"{1e3 * sp['ridge_s']:.2f} | "
                         f"{1e3 * sp['start_s']:.2f} | {1e3 * sp['billiard_s']:.2f} "
                         f"({sp['billiard_bounces']}) | {sp['bpm_test_error']:.4f} | "
                         f"{sp['svc_test_error']:.4f} |")
    lines.append("\nThe parts of the BPM's fit are timed on their own (best of the runs), after "
                 "the interleaved fits; 'validate' is the checks of the parameters, inputs "
                 "and labels, 'ridge' lam='auto''s margin bounds (the nearest-point pair steps "
                 "of the package's SMO), 'start' the kernel perceptron.")
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


NOISY_SIZES = (500, 4000)
NOISY_SEEDS = 5


def _noisy_moons(source, m, seed):
    if source == "kernelclf":
        return make_moons(m, noise=0.3, random_state=seed)
    from sklearn.datasets import make_moons as sk_moons

    X, y = sk_moons(m, noise=0.3, random_state=seed)
    return X, np.where(y > 0, 1.0, -1.0)


def run_noisy_moons(sizes=NOISY_SIZES, seeds=NOISY_SEEDS, repeats=REPEATS):
    """Default BPM (lam='auto') against the SVM and SVC with C = 1 on noisy two moons."""
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
                    (t_bpm, t_svm, t_svc), (c_bpm, _, c_svc), (bpm, svm, _) = _interleaved_best([
                        lambda: BayesPointMachine(kernel, random_state=0).fit(X, y),
                        lambda: SupportVectorMachine(kernel, C=1.0).fit(X, y),
                        lambda: _svc_fit(SIGMA, X, y)], repeats)
                    row = {"data": source, "m": m, "svm_fit_s": t_svm, "svc_fit_s": t_svc,
                           "bpm_fit_s": t_bpm, "ratio": t_bpm / t_svm,
                           "ratio_svc": t_bpm / t_svc, "bpm_cpu_s": c_bpm, "svc_cpu_s": c_svc,
                           "ratio_svc_cpu": c_bpm / max(c_svc, 1e-9), "lam": bpm.lam_,
                           "reason": bpm.lam_reason_, "bounces": int(bpm.n_bounces_)}
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
            print(f"noisy moons: {source} m={m} done", flush=True)
    return rows


def noisy_moons_table(rows):
    lines = ["| data | m | SVM fit s | SVC fit s | BPM fit s | BPM/SVM | BPM/SVC | BPM/SVC CPU | lam_ "
             f"| bounces | SVM acc | BPM acc | SVM acc (mean of {NOISY_SEEDS}) | BPM acc (mean) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['data']} | {r['m']} | {r['svm_fit_s']:.3f} | {r['svc_fit_s']:.3f} | "
                     f"{r['bpm_fit_s']:.3f} | {r['ratio']:.2f} | {r['ratio_svc']:.2f} | "
                     f"{r['ratio_svc_cpu']:.2f} | "
                     f"{r['lam']:g} | {r['bounces']} | {r['svm_acc']:.4f} | "
                     f"{r['bpm_acc']:.4f} | {r['svm_acc_mean']:.4f} | {r['bpm_acc_mean']:.4f} "
                     f"(± {r['acc_diff_sem']:.4f}) |")
    lines.append("\n± is the standard error of the mean BPM - SVM accuracy difference over "
                 "the training sets.")
    return "\n".join(lines)


def run_tol_study(tols=(1e-2, 2e-2), n_splits=100, seed_offset=0, datasets=None):
    """Test error and bounces of the default ``BayesPointMachine`` at each ``tol`` (the
    first is the reference), on the splits of the BPM Table 1 protocol
    (:func:`kernelclf.experiments.bpm.table1_tasks`: standardised inputs, the table's RBF
    width; the billiard of split ``s`` seeded ``s + seed_offset``), against the mean BPM
    error of the committed Table 1 results file (``tol=1e-3``, ``lam=0`` with its fallback,
    so not the same machine for the data sets where ``lam='auto'`` chooses soft
    boundaries). Per data set: mean errors, the mean paired difference to the first ``tol``
    with its standard error, median bounces."""
    from kernelclf.experiments import TABLE1_SIGMA
    from kernelclf.experiments.bpm import _standardise, table1_tasks
    from kernelclf.experiments.results import load_results

    ref = {}
    for r in load_results("bpm_table1.jsonl").records:
        ref.setdefault(r["dataset"], []).append(r["result"]["bpm_error"])
    rows = []
    for name in datasets or TABLE1_SIGMA:
        err = {t: [] for t in tols}
        bounces = {t: [] for t in tols}
        for task in table1_tasks([name], n_splits):
            Xtr, ytr, Xte, yte, sigma, _, seed = task.args
            Xs, Xt = _standardise(Xtr, Xte)
            for t in tols:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    b = BayesPointMachine(RBF(sigma), tol=t, random_state=seed + seed_offset)
                    b.fit(Xs, ytr)
                err[t].append(float(np.mean(b.predict(Xt) != yte)))
                bounces[t].append(int(b.n_bounces_))
        row = {"dataset": name, "n_splits": len(err[tols[0]]), "seed_offset": seed_offset,
               "table1_file_bpm_error": float(np.mean(ref[name])) if name in ref else None}
        for t in tols:
            d = np.subtract(err[t], err[tols[0]])
            row[f"error_{t:g}"] = float(np.mean(err[t]))
            row[f"bounces_median_{t:g}"] = float(np.median(bounces[t]))
            row[f"diff_{t:g}"] = float(d.mean())
            row[f"diff_sem_{t:g}"] = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0
        rows.append(row)
        print(f"tol study: {name} done", flush=True)
    return rows


def tol_study_table(rows, tols):
    head = " | ".join(f"err tol={t:g} (bounces)" for t in tols)
    lines = [f"| data | splits | {head} | " + " | ".join(
        f"{t:g} - {tols[0]:g} (± s.e.)" for t in tols[1:]) + " | Table 1 file BPM err |",
        "|---" * (3 + 2 * len(tols) - 1) + "|"]
    for r in rows:
        errs = " | ".join(f"{r[f'error_{t:g}']:.4f} ({r[f'bounces_median_{t:g}']:.0f})"
                          for t in tols)
        diffs = " | ".join(f"{r[f'diff_{t:g}']:+.4f} ± {r[f'diff_sem_{t:g}']:.4f}"
                           for t in tols[1:])
        f = r["table1_file_bpm_error"]
        lines.append(f"| {r['dataset']} | {r['n_splits']} | {errs} | {diffs} | "
                     f"{'-' if f is None else f'{f:.4f}'} |")
    lines.append("\nDefault BayesPointMachine (lam='auto'); bounces are medians; ± is the "
                 "standard error of the mean paired difference over the splits.")
    return "\n".join(lines)


def _versions():
    import sklearn

    return {"python": platform.python_version(), "numpy": np.__version__,
            "scikit-learn": sklearn.__version__}


def main(argv=None):
    import argparse

    from kernelclf.experiments import TABLE1_SIGMA

    ap = argparse.ArgumentParser(prog="python -m benchmarks.bpm", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    part = ap.add_mutually_exclusive_group()
    part.add_argument("--table1-only", action="store_true",
                      help="the Table 1 and noisy two-moons sections, not the two-moons "
                           "bounce timing")
    part.add_argument("--noisy-moons-only", action="store_true",
                      help="only the noisy two-moons section (default BPM vs SVM and SVC)")
    part.add_argument("--tol-study", type=float, nargs="+", metavar="TOL", default=None,
                      help="only the accuracy of the default BPM at these tol values (the "
                           "first the reference) on --splits splits of each Table 1 data set")
    ap.add_argument("--seed-offset", type=int, default=0,
                    help="--tol-study: the billiard of split s is seeded s + this")
    ap.add_argument("--datasets", nargs="+", choices=sorted(TABLE1_SIGMA), default=None,
                    help="Table 1 data sets to time (default: all)")
    ap.add_argument("--splits", type=int, default=1,
                    help="splits per Table 1 data set to time (default 1)")
    ap.add_argument("--passes", type=int, default=1,
                    help="Table 1 section: time the BPM and SVC on every split this many "
                         "times, a pass over the splits each, keeping the best (default 1)")
    ap.add_argument("--repeats", type=int, default=REPEATS,
                    help=f"timed runs per fit, best kept (default {REPEATS})")
    ap.add_argument("--svc-C", type=float, default=1.0,
                    help="C of scikit-learn's SVC in the Table 1 section (default 1)")
    ap.add_argument("--bpm-tol", type=float, default=None,
                    help="tol of the BPM in the Table 1 section (default: its default)")
    ap.add_argument("--no-noisy-moons", action="store_true",
                    help="skip the noisy two-moons section (with --table1-only: the Table 1 "
                         "section alone)")
    ap.add_argument("--out", type=Path, default=None, help="JSON file to write")
    args = ap.parse_args(argv)
    results = Path(__file__).resolve().parent / "results"
    if args.tol_study:
        tols = tuple(args.tol_study)
        rows = run_tol_study(tols, args.splits, args.seed_offset, args.datasets)
        print(tol_study_table(rows, tols))
        out = args.out or results / "bpm_tol_study.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"versions": _versions(), "tols": tols, "rows": rows},
                                  indent=2))
        print(f"\nwritten {out}")
        return
    if args.noisy_moons_only:
        rows = run_noisy_moons(repeats=args.repeats)
        print(noisy_moons_table(rows))
        out = args.out or results / "bpm_noisy_moons.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"versions": _versions(), "noisy_moons": rows}, indent=2))
        print(f"\nwritten {out}")
        return
    t1 = run_table1(args.datasets, args.splits, args.repeats, args.svc_C, args.bpm_tol,
                    args.passes)
    print(table1_table(t1))
    print(table1_split_table(t1))
    if args.table1_only:
        result = {"versions": _versions()}
    else:
        result = run()
        print(table(result))
    result["table1"] = t1
    if not args.no_noisy_moons:
        result["noisy_moons"] = run_noisy_moons(repeats=args.repeats)
        print(noisy_moons_table(result["noisy_moons"]))
    out = args.out or results / "bpm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
