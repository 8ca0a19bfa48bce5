"""The kernel billiard's stopping rules compared (book chapter 11, "Which stopping rule?").

Book chapter 11 (``book/11_kernel_billiard.md``); LKC §3.4.1 and App. B.9 (the printed rule,
erratum E2), BPM §4.2 (about a thousand bounces at TOL 1e-4, erratum E24), TR 99-11 Alg. 1
(TR's rule, erratum E12), and our batch-means rule
(:func:`~kernelclf.bayespoint.billiard.kernel_billiard`, ``stopping=``).

For each stopping rule and several tolerances, three runs from random starts on two
problems: the 3-D toy of chapter 10 (``make_teacher(10, 3, random_state=0)``, linear
kernel, ``refresh=0.1`` as on the page) and split 0 of Thyroid (BPM Table 1's data, inputs
standardised as in chapter 12, RBF ``sigma = 3``), and on Thyroid two reference runs of a
fixed length (``5 * 10**5`` bounces, a tolerance the rule never meets); on split 0 of Banana
(RBF ``sigma = 0.5``) batch means at TOL 0.05 against the printed rule at ``1e-3``. Each
record keeps the run's dual coefficients, so the page computes every distance itself. In
the in-browser lab, without numba, these runs (about two million bounces) would take
minutes; the page reads the committed file and a hidden check reruns every task and
compares (the engines fly the same trajectory on the same Gram matrix, so the records
agree exactly).

* :func:`stopping_problem` - Gram matrix and labels of ``"toy"``, ``"thyroid"``, ``"banana"``;
* :func:`stopping_run` - one run, its record;
* :func:`stopping_tasks` - the protocol as runner tasks;
* :func:`stopping_study` - ``{(problem, rule, tol): [record, ...]}`` (also the reference and Banana runs);
* the command ``billiard-stopping`` of ``python -m kernelclf.experiments``::

      python -m kernelclf.experiments billiard-stopping --out billiard_stopping.jsonl
"""
from __future__ import annotations

import time
import warnings

from .runner import Experiment, Task, register

__all__ = ["STOPPING_RULES_STUDIED", "STOPPING_SEEDS", "LONG_SEEDS", "LONG_BOUNCES", "TR_CAP", "SIGMAS",
           "stopping_problem", "stopping_run", "stopping_tasks", "stopping_study"]

#: the rules and tolerances of the figure (TR's rule never fires: capped)
STOPPING_RULES_STUDIED = {
    "rho2": (1e-2, 3e-3, 1e-3, 3e-4),
    "batch": (0.2, 0.1, 0.05, 0.03),
    "rho2-printed": (1e-4,),
    "tr": (1e-3,),
}
#: random starts per rule and tolerance
STOPPING_SEEDS = (0, 1, 2)
#: the two reference runs on Thyroid: seeds and length
LONG_SEEDS, LONG_BOUNCES = (100, 101), 500_000
#: bounce cap of TR's rule
TR_CAP = 20_000
#: RBF widths of the two data sets (Thyroid as in BPM Table 1)
SIGMAS = {"thyroid": 3.0, "banana": 0.5}


def stopping_problem(name, sigma=None):
    """``(G, y)`` of the problem ``"toy"`` (linear kernel), ``"thyroid"`` or ``"banana"``
    (RBF of width ``sigma``, by default that of :data:`SIGMAS`)."""
    from ..kernels import RBF

    if name == "toy":
        from ..datasets import make_teacher

        X, y = make_teacher(10, 3, random_state=0)
        return X @ X.T, y
    from .bpm import _standardise, table1_splits

    sigma = SIGMAS[name] if sigma is None else float(sigma)
    X, y, _, _ = table1_splits(name, 1)[0]
    X, _ = _standardise(X, X)
    return RBF(sigma)(X), y


def stopping_run(problem, rule, tol, seed, max_bounces=None, refresh=None):
    """One run of :func:`~kernelclf.bayespoint.billiard.kernel_billiard` on ``problem``: its dual
    coefficients ``alpha``, ``n_bounces``, ``converged``, ``statistic``, the ``engine`` and
    the wall-clock ``seconds``. On the toy ``refresh`` defaults to 0.1 (the page's), on the
    data sets to none."""
    from sklearn.exceptions import ConvergenceWarning

    from ..bayespoint import kernel_billiard

    G, y = stopping_problem(problem)
    kw = {}
    if refresh is not None or problem == "toy":
        kw["refresh"] = 0.1 if refresh is None else float(refresh)
    if max_bounces is not None:
        kw["max_bounces"] = int(max_bounces)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # TR's rule and the fixed-length runs hit their cap
        warnings.simplefilter("ignore", ConvergenceWarning)
        r = kernel_billiard(G, y, tol=tol, stopping=rule, random_state=seed, **kw)
    seconds = time.perf_counter() - t0
    return {"alpha": [float(a) for a in r.alpha], "n_bounces": int(r.n_bounces),
            "converged": bool(r.converged), "statistic": float(r.statistic),
            "engine": r.engine, "seconds": seconds}


def stopping_tasks():
    """The protocol as :class:`~kernelclf.experiments.runner.Task` objects: keys
    ``"toy/rho2/0.001/2"``, ``"long/100"``, ``"banana/batch/0.05/0"``."""
    tasks = []
    for problem in ("toy", "thyroid"):
        for rule, tols in STOPPING_RULES_STUDIED.items():
            cap = TR_CAP if rule == "tr" else None
            for tol in tols:
                for s in STOPPING_SEEDS:
                    tasks.append(Task(f"{problem}/{rule}/{tol:g}/{s}", stopping_run,
                                      (problem, rule, float(tol), s, cap),
                                      {"problem": problem, "rule": rule, "tol": float(tol),
                                       "seed": s}))
    for s in LONG_SEEDS:
        tasks.append(Task(f"long/{s}", stopping_run, ("thyroid", "rho2", 1e-12, s, LONG_BOUNCES),
                          {"problem": "thyroid", "rule": "long", "tol": 1e-12, "seed": s}))
    for rule, tol in (("batch", 0.05), ("rho2", 1e-3)):
        tasks.append(Task(f"banana/{rule}/{tol:g}/0", stopping_run, ("banana", rule, tol, 0),
                          {"problem": "banana", "rule": rule, "tol": tol, "seed": 0}))
    return tasks


def stopping_study(records):
    """The records by run: ``{(problem, rule, tol): [record, ...]}`` (records in seed
    order; the reference runs under ``("thyroid", "long", 1e-12)``)."""
    out = {}
    for r in sorted(records, key=lambda r: r["seed"]):
        out.setdefault((r["problem"], r["rule"], r["tol"]), []).append(r["result"])
    return out


def _report(args, records):
    lines = ["problem rule tol: bounces of the runs"]
    for (p, rule, tol), recs in stopping_study(records).items():
        lines.append(f"  {p} {rule} {tol:g}: {[r['n_bounces'] for r in recs]}")
    return "\n".join(lines)


register(Experiment(
    name="billiard-stopping",
    help="ch11 'Which stopping rule?': the kernel billiard's stopping rules on the 3-D toy, "
         "Thyroid and Banana",
    add_arguments=lambda p: None,
    tasks=lambda a: stopping_tasks(),
    config=lambda a: {"rules": {k: list(v) for k, v in STOPPING_RULES_STUDIED.items()},
                      "seeds": list(STOPPING_SEEDS), "long_seeds": list(LONG_SEEDS),
                      "long_bounces": LONG_BOUNCES, "tr_cap": TR_CAP, "sigmas": SIGMAS},
    report=_report,
))
