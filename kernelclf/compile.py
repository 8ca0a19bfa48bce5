"""Compile the package's numba loops once, ahead of time: ``python -m kernelclf.compile``.

Book chapter 04 (``book/04_support_vector_machines.md``); the compiled SMO solver
(:mod:`kernelclf.margin.smo.compiled`), the kernel
columns it computes itself (:mod:`kernelclf.kernels.native_columns`), the billiard of the
Bayes point machine (:mod:`kernelclf.bayespoint.billiard_engines`) and the separability
test (:mod:`kernelclf.margin.separability`).

numba compiles each of these the first time it runs with new argument types and keeps
the result in its cache (:mod:`kernelclf._jit`), so after an install or an update the
first fits pause (the SVM's first fit, the first Bayes point machine, the first SVM
whose columns do not all fit in its cache). This command makes those pauses happen now:
it fits the estimators that use them on small seeded samples, one path of the solvers
after the other, and reports how many compiled functions are ready and how many it had
to compile (the rest came from the cache). ``make setup`` runs it. Without numba it
says so and does nothing (the package then runs its NumPy twins).

The fits choose the solvers' paths as a real fit would: columns computed by the
compiled loop for few features (and by NumPy for many), the pairwise loop with a
threshold and the coordinate loop without, the compacted layout when the column cache
is smaller than the sample, the kernel billiard with its separability test.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np

__all__ = ["compile_all", "compiled_functions", "main"]


def compiled_functions():
    """The package's numba functions, ``{'module.name': dispatcher}`` (empty without numba)."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:         # pragma: no cover - Pyodide, bare installs
        return {}
    found = {}
    for info in pkgutil.walk_packages([str(Path(__file__).parent)], "kernelclf."):
        if info.name.startswith("kernelclf.book") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == info.name:
                found[f"{info.name}.{value.py_func.__name__}"] = value
    return found


def _warm_up():
    """Fits that run every compiled path once (small seeded samples)."""
    from .bayespoint import BayesPointMachine
    from .kernels import RBF
    from .margin import (
        NuSupportVectorMachine,
        RelativeMarginMachine,
        SupportVectorMachine,
        SupportVectorRegression,
    )
    from .multiclass import OneVsOneClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=400) > 0, 1, -1)
    wide = np.hstack([X] * 10)                     # 40 features: columns from NumPy
    steps = [
        ("SVM, RBF columns compiled", lambda: SupportVectorMachine(RBF()).fit(X, y)),
        ("SVM, linear and polynomial columns (and a small sample's whole matrix)",
         lambda: (SupportVectorMachine().fit(X, y), SupportVectorMachine("poly").fit(X, y),
                  SupportVectorMachine("poly").fit(X[:150], y[:150]))),
        ("SVM without threshold (coordinate steps)",
         lambda: SupportVectorMachine(RBF(), fit_bias=False).fit(X, y)),
        ("SVM, columns from NumPy", lambda: SupportVectorMachine(RBF()).fit(wide, y)),
        ("SVM, compacted cache",
         lambda: SupportVectorMachine(RBF(), cache_mb=0.5).fit(
             rng.normal(size=(2500, 4)), np.where(rng.normal(size=2500) > 0, 1, -1))),
        ("SVM, compacted cache on many features",
         lambda: SupportVectorMachine(RBF(), cache_mb=1.0).fit(
             rng.normal(size=(2100, 40)), np.where(rng.normal(size=2100) > 0, 1, -1))),
        ("SVM, most columns held on many features (blocks of columns ahead)",
         lambda: SupportVectorMachine(RBF(), cache_mb=2.3).fit(
             rng.normal(size=(1000, 40)), np.where(rng.normal(size=1000) > 0, 1, -1))),
        ("one-versus-one, every pair in one call",
         lambda: OneVsOneClassifier(SupportVectorMachine(RBF())).fit(
             X, np.digitize(X[:, 0], [-0.5, 0.5]))),
        ("one-versus-one, each pair's columns (and whole matrix) from its classes' blocks",
         lambda: OneVsOneClassifier(SupportVectorMachine(RBF(), cache_mb=8)).fit(
             np.vstack([wide] * 3)[:900] + 0.1 * rng.normal(size=(900, 40)),
             np.arange(900) % 3)),
        ("nu-SVM and SVR", lambda: (NuSupportVectorMachine(RBF()).fit(X, y),
                                    SupportVectorRegression(RBF()).fit(X, X[:, 0]))),
        ("relative margin machine", lambda: RelativeMarginMachine(RBF()).fit(X, y)),
        ("Bayes point machine (billiard)",
         lambda: BayesPointMachine(RBF(), random_state=0).fit(X[:80], y[:80])),
    ]
    for _name, fit in steps:
        yield _name, fit


def compile_all(verbose=True, stream=None):
    """Run the warm-up fits; returns ``{'functions', 'compiled', 'loaded', 'inlined',
    'missing', 'seconds'}``: the number of compiled functions of the package, how many had
    to be compiled now, how many came from numba's cache, how many are only inlined into
    others, the names of those the fits did not reach (judged only when nothing came from
    the cache), and the time taken."""
    stream = sys.stdout if stream is None else stream
    functions = compiled_functions()
    if not functions:
        if verbose:
            print("kernelclf: numba is not installed; nothing to compile (the package runs "
                  "its NumPy versions)", file=stream)
        return {"functions": 0, "compiled": 0, "loaded": 0, "inlined": 0, "missing": [],
                "seconds": 0.0}
    from numba.core import event

    compiled = []

    class _Count(event.Listener):
        def on_start(self, ev):
            func = ev.data["dispatcher"].py_func
            if func.__module__.startswith("kernelclf."):
                compiled.append(f"{func.__module__}.{func.__name__}")

        def on_end(self, ev):
            pass

    from ._compile_notice import silenced

    listener = _Count()
    event.register("numba:compile", listener)
    start = time.perf_counter()
    try:
        for name, fit in _warm_up():
            t0, n0 = time.perf_counter(), len(compiled)
            with warnings.catch_warnings(), silenced():
                warnings.simplefilter("ignore")
                fit()
            if verbose:
                print(f"  {name}: {time.perf_counter() - t0:.1f} s"
                      f"{f', {len(compiled) - n0} compiled' if len(compiled) > n0 else ''}",
                      file=stream, flush=True)
    finally:
        event.unregister("numba:compile", listener)
    seconds = time.perf_counter() - start
    now = set(compiled)
    inlined = {n for n, d in functions.items() if d.targetoptions.get("inline") == "always"}
    loaded = {n for n, d in functions.items()
              if sum(getattr(d, "_cache_hits", {}).values()) and n not in now}
    # With nothing from the cache every function the fits reach has machine code of its
    # own (those only inlined into others excepted); a function loaded from the cache
    # brings the ones it calls inside its own code, so they then have none.
    missing = [] if loaded else sorted(n for n, d in functions.items()
                                       if not d.signatures and n not in inlined)
    result = {"functions": len(functions), "compiled": len(now), "loaded": len(loaded),
              "inlined": len(inlined), "missing": missing, "seconds": seconds}
    if verbose:
        print(f"kernelclf: the compiled loops are ready in {seconds:.1f} s ({len(functions)} "
              f"numba functions: {len(now)} compiled now, {len(loaded)} loaded from numba's "
              f"cache with those they call, {len(inlined)} inlined into others)"
              + (f"; not reached: {', '.join(missing)}" if missing else ""), file=stream)
    return result


def main(argv=None):
    """``python -m kernelclf.compile [--quiet]``; exit status 1 if a function was not reached."""
    parser = argparse.ArgumentParser(prog="python -m kernelclf.compile",
                                     description="Compile kernelclf's numba loops now, once, "
                                                 "instead of during the first fits.")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    result = compile_all(verbose=not args.quiet)
    return 1 if result["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
