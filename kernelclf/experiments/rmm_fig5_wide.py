"""One repetition of RMM Fig. 5 at the largest stretch with a widened C grid (book chapter 13).

Book chapter 13 (``book/13_relative_margin_machines.md``), the synthetic Gaussians;
Shivaswamy & Jebara, "Maximum Relative Margin and Data-Dependent Regularization" (RMM, JMLR
2010), §5.1, Fig. 5 and eq. 35.

The page asks whether the edge of the C grid of :mod:`kernelclf.experiments.rmm_synthetic`
limits the curves of Fig. 5 at large stretch: it reruns the first repetition at ``s = 32``
(:func:`~kernelclf.experiments.rmm_synthetic.errors_record`, the same draws) with C = 10 000
and 100 000 added to the grid (our check; the paper states no grid). Without numba (the
in-browser lab) the RMM fits at those C take minutes, so the page reads this command's
results file and a hidden check reruns it and compares.

* :data:`WIDE_C_GRID` - the widened grid;
* :func:`wide_record` - that repetition's record;
* :func:`wide_tasks` - the one task;
* the command ``rmm-fig5-wide`` of ``python -m kernelclf.experiments``::

      python -m kernelclf.experiments rmm-fig5-wide --out rmm_fig5_wide.jsonl
"""
from __future__ import annotations

from .rmm_synthetic import C_GRID, FIG5_N, errors_record
from .runner import Experiment, Task, register

__all__ = ["WIDE_C_GRID", "WIDE_SCALE", "WIDE_SEED", "wide_record", "wide_tasks"]

#: the C grid of the Fig. 5 runs with two larger values added
WIDE_C_GRID = C_GRID + (10_000.0, 100_000.0)
#: the stretch and the repetition (seed) rerun
WIDE_SCALE, WIDE_SEED = 32.0, 0


def wide_record(n_train=FIG5_N, seed=WIDE_SEED, s=WIDE_SCALE):
    """:func:`~kernelclf.experiments.rmm_synthetic.errors_record` with :data:`WIDE_C_GRID`."""
    return errors_record(n_train, seed, s, C_grid=WIDE_C_GRID)


def wide_tasks():
    """The one :class:`~kernelclf.experiments.runner.Task`: key ``"fig5/s=32/0/wide"``."""
    return [Task(f"fig5/s={WIDE_SCALE:g}/{WIDE_SEED}/wide", wide_record,
                 (FIG5_N, WIDE_SEED, WIDE_SCALE), {"s": WIDE_SCALE, "seed": WIDE_SEED})]


def _report(args, records):
    r = records[0]["result"]
    return (f"s = {r['s']:g}, seed {r['seed']}: SVM {100 * r['svm']:.2f} % (C = {r['svm_C']:g}), "
            f"RMM {100 * r['rmm']:.2f} % (C = {r['rmm_C']:g}, kappa = {r['rmm_kappa']:g}), "
            f"Bayes {100 * r['bayes']:.2f} %")


register(Experiment(
    name="rmm-fig5-wide",
    help="RMM Fig. 5 (ch13): the first repetition at s = 32 with C = 1e4 and 1e5 added to "
         "the grid",
    add_arguments=lambda p: None,
    tasks=lambda a: wide_tasks(),
    config=lambda a: {"C_grid": list(WIDE_C_GRID), "n_train": FIG5_N},
    report=_report,
))
