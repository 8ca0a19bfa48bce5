"""The command line of the experiments: ``python -m kernelclf.experiments COMMAND``.

Book chapters 12 and 13 (``book/12_bpm_experiments.md``, ``book/13_relative_margin_machines.md``).
Every command takes ``--out FILE.jsonl`` (results file; rerun
to resume), ``--fresh`` (start over, overwriting the file), ``--quiet`` (no progress bar
or messages) and ``--n-jobs``; for example::

    python -m kernelclf.experiments bpm-table1 --splits 100 --n-jobs -1 --out table1.jsonl

The commands are those the protocol modules register (:mod:`kernelclf.experiments.bpm`,
:mod:`kernelclf.experiments.billiard_refresh`, :mod:`kernelclf.experiments.billiard_stopping`,
:mod:`kernelclf.experiments.lkc`, :mod:`kernelclf.experiments.rm`,
:mod:`kernelclf.experiments.rmm`,
:mod:`kernelclf.experiments.rmm_benchmarks`, :mod:`kernelclf.experiments.rmm_fig5_wide`,
:mod:`kernelclf.experiments.rmm_text`,
:mod:`kernelclf.experiments.rmm_universum`), imported here.
"""
from __future__ import annotations

import argparse
import sys

from . import billiard_refresh as _billiard_refresh  # noqa: F401  (registers its commands)
from . import billiard_stopping as _billiard_stopping  # noqa: F401  (registers its commands)
from . import bpm as _bpm  # noqa: F401  (registers its commands)
from . import lkc as _lkc  # noqa: F401  (registers its commands)
from . import rm as _rm  # noqa: F401  (registers its commands)
from . import rmm as _rmm  # noqa: F401  (registers its commands)
from . import rmm_benchmarks as _rmm_benchmarks  # noqa: F401  (registers its commands)
from . import rmm_fig5_wide as _rmm_fig5_wide  # noqa: F401  (registers its commands)
from . import rmm_synthetic as _rmm_synthetic  # noqa: F401  (registers its commands)
from . import rmm_text as _rmm_text  # noqa: F401  (registers its commands)
from . import rmm_universum as _rmm_universum  # noqa: F401  (registers its commands)
from .runner import COMMANDS, ResultsFileError, _failure_text, run_tasks

__all__ = ["build_parser", "main"]


def _positive_jobs(text):
    n = int(text)
    if n == 0:
        raise argparse.ArgumentTypeError("--n-jobs must be a positive number or negative "
                                         "(-1: all cores), not 0")
    return n


def build_parser():
    """The argument parser: one subcommand per entry of :data:`~kernelclf.experiments.runner.COMMANDS`."""
    parser = argparse.ArgumentParser(prog="python -m kernelclf.experiments",
                                     description="Bayes point machine experiments (chapter 12) "
                                     "and other long protocols; progress on stderr, results "
                                     "saved per split, reruns resume")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, exp in COMMANDS.items():
        p = sub.add_parser(name, help=exp.help, description=exp.help)
        exp.add_arguments(p)
        g = p.add_argument_group("running, saving and resuming")
        g.add_argument("--n-jobs", type=_positive_jobs, default=1,
                       help="workers over the splits (-1: all cores); with --backend dask "
                       "and no --scheduler, the workers of the local cluster")
        g.add_argument("--backend", choices=("loky", "dask"), default="loky",
                       help="loky: joblib processes on this machine (default); dask: a "
                       "dask.distributed cluster (--scheduler ADDRESS, or a local cluster "
                       "on 127.0.0.1)")
        g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (with "
                       "--backend dask)")
        g.add_argument("--out", default=None, metavar="FILE.jsonl",
                       help="results file (JSON lines, one record per finished split); "
                       "rerunning the same command resumes from it")
        g.add_argument("--fresh", action="store_true",
                       help="start over: overwrite --out instead of resuming from it")
        g.add_argument("--quiet", action="store_true",
                       help="no progress bar and no messages on stderr (failures are still "
                       "reported)")
    return parser


def main(argv=None):
    """Entry point of ``python -m kernelclf.experiments``; returns the exit status
    (0 done, 1 some splits failed, 2 bad arguments or results file, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    exp = COMMANDS[args.command]
    if args.fresh and args.out is None:
        parser.error("--fresh needs --out (the results file to start over)")
    if args.scheduler and args.backend != "dask":
        parser.error("--scheduler needs --backend dask")
    try:
        tasks = exp.tasks(args)
        run = run_tasks(tasks, command=exp.name, config=exp.config(args), out=args.out,
                        fresh=args.fresh, n_jobs=args.n_jobs, progress=not args.quiet,
                        desc=exp.name, verbose=not args.quiet, backend=args.backend,
                        scheduler=args.scheduler)
    except ResultsFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if run.records:
        print(exp.report(args, run.records))
    if run.failures:
        print(_failure_text(run), file=sys.stderr)
        return 1
    return 0
