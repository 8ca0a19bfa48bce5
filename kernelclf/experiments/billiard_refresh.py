"""Refreshes bias the kernel billiard (book chapter 11, the section on refreshes).

Book chapter 11 (``book/11_kernel_billiard.md``); LKC §3.4.1 (the billiard), BPM App. B
Alg. 2; the refresh (a fresh random direction with probability ``refresh`` per bounce) is
ours (:func:`~kernelclf.bayespoint.billiard.kernel_billiard`, ``refresh=``), after RM §18.5.1's
random restarts.

On the regular 3-D toy of chapter 10 (``make_teacher(10, 3, random_state=0)``, linear
kernel), 15 runs of a fixed length (30 000 bounces, a tolerance the rule never meets) for
each of three refresh probabilities; each record keeps the run's dual coefficients, and the
page measures their angles to its Monte-Carlo centre of mass. In the in-browser lab, without
numba, these 1.35 million bounces would take minutes; the page reads the committed file and
a hidden check reruns every task and compares.

* :func:`refresh_tasks` - the protocol as runner tasks;
* :func:`refresh_runs` - ``{refresh: [record of seed 0, 1, ...]}``;
* the command ``billiard-refresh`` of ``python -m kernelclf.experiments``::

      python -m kernelclf.experiments billiard-refresh --out billiard_refresh.jsonl
"""
from __future__ import annotations

from .billiard_stopping import stopping_run
from .runner import Experiment, Task, register

__all__ = ["REFRESHES", "REFRESH_SEEDS", "REFRESH_BOUNCES", "refresh_tasks", "refresh_runs"]

#: refresh probabilities, seeds and the fixed length of each run
REFRESHES = (0.01, 0.1, 1.0)
REFRESH_SEEDS = tuple(range(15))
REFRESH_BOUNCES = 30_000


def refresh_tasks():
    """One :class:`~kernelclf.experiments.runner.Task` per refresh and seed (key
    ``"0.1/7"``), each a :func:`~kernelclf.experiments.billiard_stopping.stopping_run` on
    the toy with that refresh."""
    return [Task(f"{p:g}/{s}", stopping_run, ("toy", "rho2", 1e-12, s, REFRESH_BOUNCES, p),
                 {"refresh": p, "seed": s})
            for p in REFRESHES for s in REFRESH_SEEDS]


def refresh_runs(records):
    """``{refresh: [record result, ...]}`` with the runs in seed order."""
    out = {}
    for r in sorted(records, key=lambda r: (r["refresh"], r["seed"])):
        out.setdefault(r["refresh"], []).append(r["result"])
    return out


def _report(args, records):
    return "\n".join(f"refresh {p:g}: {len(v)} runs of {v[0]['n_bounces']} bounces"
                     for p, v in refresh_runs(records).items())


register(Experiment(
    name="billiard-refresh",
    help="ch11 refreshes: 15 fixed-length runs of the kernel billiard on the 3-D toy for "
         "each of three refresh probabilities",
    add_arguments=lambda p: None,
    tasks=lambda a: refresh_tasks(),
    config=lambda a: {"refreshes": list(REFRESHES), "seeds": list(REFRESH_SEEDS),
                      "bounces": REFRESH_BOUNCES},
    report=_report,
))
