"""A resumable runner for long protocols: tasks, results files, resume, and the registry
of the ``python -m kernelclf.experiments`` commands.

Book chapters 12 and 13 (``book/12_bpm_experiments.md``, ``book/13_relative_margin_machines.md``).
No source formula: this runs the sources'
protocols (one module per paper beside this one).

A protocol is a list of independent :class:`Task` objects (one per split) run by
:func:`run_tasks`: a progress bar on ``sys.stderr`` (:mod:`kernelclf.progress`), each
finished split appended at once to a JSON-lines results file, and on a rerun with the
same settings only the splits missing from that file are computed. The file starts
with a header line (command and the settings that change a split's result, e.g.
``tol`` and ``seed``); a file written with other settings is refused with a message
saying how they differ. A split that raises is recorded with its seed and error, the
other splits go on, and the failure is reported at the end (and retried on the next
rerun).

Adding a command is one :func:`register` call with an :class:`Experiment` (its own
arguments, its tasks, the settings stored in the header and the report printed at the
end); progress, results file and resume come with it.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

from ..progress import progress as _progress

__all__ = ["Task", "RunResult", "ResultsFileError", "SplitsFailedError", "run_tasks", "Experiment",
           "register", "COMMANDS"]


# ------------------------------------------------------------------ running protocols
@dataclass(frozen=True)
class Task:
    """One unit of a protocol (usually one train/test split).

    Attributes
    ----------
    key : str
        Unique within its command and stable across runs (e.g. ``"heart/3"``); the
        results file is resumed by key.
    fn : callable
        A module-level (picklable) function; ``fn(*args)`` returns a JSON-serialisable
        dict, stored as the record's ``"result"``.
    args : tuple
    meta : dict
        Stored in the record beside the key (data set, split index, ``seed`` ...);
        ``seed`` is quoted when the task fails.
    """

    key: str
    fn: Callable
    args: tuple = ()
    meta: dict = field(default_factory=dict)


@dataclass
class RunResult:
    """What :func:`run_tasks` returns: successful records (in task order), failures,
    and how many tasks were taken from the results file / computed now."""

    records: list
    failures: list
    n_resumed: int
    n_run: int
    out: str | None = None


class ResultsFileError(ValueError):
    """A results file cannot be resumed (other settings, or not a results file)."""


class SplitsFailedError(RuntimeError):
    """Some splits raised; the others ran and were saved (see ``.run``)."""

    def __init__(self, run):
        self.run = run
        super().__init__(_failure_text(run))


_HEADER_KEY = "kernelclf_results"


_FORMAT = 1


def _same_meta(rec, meta):
    """Whether a stored record was made for the task with metadata ``meta`` (compared as
    the JSON the record was written as, so tuples and lists are alike)."""
    return (json.dumps({k: rec.get(k) for k in meta}, sort_keys=True)
            == json.dumps(meta, sort_keys=True))


def _call(task):
    t0 = time.perf_counter()
    rec = {"key": task.key, **task.meta}
    try:
        rec["result"] = task.fn(*task.args)
    except Exception as exc:  # reported, never lost: the other tasks go on
        rec["error"] = f"{type(exc).__name__}: {exc}"
        rec["traceback"] = traceback.format_exc(limit=-4)
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def provenance(command):
    """Where a record comes from: ``{"command": ..., "commit": ..., "date": ...}``.

    ``command`` is the command line that ran (``sys.argv`` of ``python -m
    kernelclf.experiments``, else the protocol's name), ``commit`` the git commit of the
    package's working tree with ``+dirty`` when it has uncommitted changes (``None`` outside
    a git checkout), ``date`` the UTC time in ISO 8601.
    """
    import subprocess

    argv = sys.argv
    if argv and os.path.basename(argv[0]) in ("__main__.py", "cli.py"):
        line = "python -m kernelclf.experiments " + " ".join(argv[1:])
    else:
        line = command
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, timeout=30).stdout
        commit = commit + ("+dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"command": line, "commit": commit, "date": _utc_now()}


def _utc_now():
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _normalise(config):
    return json.loads(json.dumps(config, sort_keys=True))


def _describe(config):
    return ", ".join(f"{k}={v!r}" for k, v in sorted(config.items())) or "no settings"


def _read_results(path, command, config):
    """Finished records ``{key: record}`` of a results file, after checking its header.

    A last line cut short by a killed process is dropped (and cut from the file).
    """
    with open(path, "rb") as fh:
        data = fh.read()
    if not data.strip():
        return None
    complete = data if data.endswith(b"\n") else data[:data.rfind(b"\n") + 1]
    lines = complete.decode("utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get(_HEADER_KEY) != _FORMAT:
        raise ResultsFileError(
            f"{path} is not a results file of kernelclf.experiments (no header line); "
            "pass --fresh to overwrite it, or choose another --out")
    if header.get("command") != command or _normalise(header.get("config", {})) != \
            _normalise(config):
        old = header.get("config", {})
        diff = {k for k in set(old) | set(config) if old.get(k) != config.get(k)}
        raise ResultsFileError(
            f"{path} holds results of '{header.get('command')}' with {_describe(old)}, "
            f"not of '{command}' with {_describe(config)} (differs in: "
            f"{', '.join(sorted(diff)) or 'command'}). Rerun with the same settings to "
            "resume, pass --fresh to start over (overwrites the file), or choose another --out")
    done = {}
    for line in lines[1:]:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and "key" in rec:
            done[rec["key"]] = rec          # a later record of a key replaces an earlier one
    if len(complete) < len(data):
        with open(path, "r+b") as fh:       # a partial line from a killed run
            fh.truncate(len(complete))
    return done


def _failure_text(run):
    lines = [f"{len(run.failures)} split(s) failed (the other {len(run.records)} finished"
             + (f" and are saved in {run.out}" if run.out else "") + "):"]
    for rec in run.failures:
        seed = rec.get("seed", "?")
        lines.append(f"  {rec['key']} (seed {seed}): {rec['error']}")
    if run.out:
        lines.append("rerun the same command to retry only these splits")
    return "\n".join(lines)


def _dask_results(todo, n_jobs, scheduler):
    """Run ``_call`` on each task on a ``dask.distributed`` cluster, yielding records as
    they finish: the cluster at ``scheduler`` (``"tcp://host:8786"``), or a local cluster
    on 127.0.0.1 with ``n_jobs`` single-threaded worker processes (``-1``: one per core),
    closed at the end."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - dask is in the test extra
        raise ImportError("--backend dask needs dask.distributed: pip install "
                          "'dask[distributed]'") from exc
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        n = (os.cpu_count() or 1) if n_jobs is None or n_jobs < 0 else int(n_jobs)
        cluster = LocalCluster(n_workers=max(1, n), threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        futures = client.map(_call, todo, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_tasks(tasks, *, command="experiment", config=None, out=None, fresh=False, n_jobs=1,
              progress=None, desc=None, verbose=True, backend="loky", scheduler=None):
    """Run a protocol's tasks with a progress bar, saving and resuming each result.

    Parameters
    ----------
    tasks : list of Task
    command : str
        Name stored in the results file's header (a file of another command is refused).
    config : dict
        The settings that change a task's result (JSON-serialisable); stored in the
        header, and a rerun with other settings is refused with a
        :class:`ResultsFileError` naming the differences.
    out : str or path, optional
        JSON-lines results file: a header line, then one record per finished task,
        appended (and flushed) as soon as the task finishes. When it exists and
        ``fresh`` is false, tasks whose key has a successful record are not run again,
        unless the record's metadata (data set, split, seed, a split's stored indices ...)
        differ from the task's: then the record was made for another task of that key (a
        protocol whose splits changed) and the task runs again.
    fresh : bool
        Start over: overwrite ``out``.
    n_jobs : int
        Workers (results are written in the order they finish): joblib processes, or the
        worker processes of a local ``dask.distributed`` cluster.
    backend : {'loky', 'dask'}
        ``'loky'``: joblib's process pool on this machine. ``'dask'``: a
        ``dask.distributed`` cluster — the one whose scheduler is at ``scheduler``, or a
        local cluster on 127.0.0.1 started (and stopped) here. Records are the same
        either way; only where the tasks run changes.
    scheduler : str, optional
        Address of a running dask scheduler (``tcp://host:8786``), for ``backend='dask'``.
    progress : bool or None
        Progress bar (see :mod:`kernelclf.progress`).
    desc : str, optional
        Label of the progress bar.
    verbose : bool
        Say on ``sys.stderr`` how many tasks were resumed, and each failure.

    Returns
    -------
    RunResult
        Successful records of all ``tasks`` (resumed or new) in task order, and the
        failed records (each with ``key``, ``seed`` when the task has one, ``error``).
    """
    if backend not in ("loky", "dask"):
        raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("a scheduler address needs backend='dask'")
    tasks = list(tasks)
    config = {} if config is None else dict(config)
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    done = {}
    fh = None
    origin = provenance(command) if out is not None else None
    if out is not None:
        out = os.fspath(out)
        existing = None
        if not fresh and os.path.exists(out):
            existing = _read_results(out, command, config)
        if existing is None:
            parent = os.path.dirname(os.path.abspath(out))
            os.makedirs(parent, exist_ok=True)
            with open(out, "w") as f:
                f.write(json.dumps({_HEADER_KEY: _FORMAT, "command": command,
                                    "config": _normalise(config),
                                    "provenance": origin}) + "\n")
        else:
            meta = {t.key: t.meta for t in tasks}
            done = {k: r for k, r in existing.items()
                    if "result" in r and (k not in meta or _same_meta(r, meta[k]))}
        fh = open(out, "a")
    todo = [t for t in tasks if t.key not in done]
    n_resumed = len(tasks) - len(todo)
    if verbose and n_resumed and progress is not False:
        print(f"resuming from {out}: {n_resumed} of {len(tasks)} split(s) already done, "
              f"{len(todo)} to run", file=sys.stderr)
    new, failures = {}, []
    bar = _progress(total=len(tasks), initial=n_resumed, desc=desc or command, enabled=progress,
                    unit="split", mininterval=0, miniters=1)   # redraw after every split
    try:
        if backend == "dask" and todo:
            results = _dask_results(todo, n_jobs, scheduler)
        elif n_jobs == 1 or len(todo) <= 1:
            results = (_call(t) for t in todo)
        else:
            from joblib import Parallel, delayed
            results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(_call)(t) for t in todo)
        for rec in results:
            if fh is not None:
                rec = {**rec, "provenance": {**origin, "date": _utc_now()}}
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            if "error" in rec:
                failures.append(rec)
                if verbose:
                    bar.write(f"split {rec['key']} (seed {rec.get('seed', '?')}) failed: "
                              f"{rec['error']}", file=sys.stderr)
                bar.set_postfix_str(f"{len(failures)} failed")
            else:
                new[rec["key"]] = rec
            bar.update(1)
    except KeyboardInterrupt:
        if out is not None:
            print(f"\ninterrupted: {n_resumed + len(new)} of {len(tasks)} split(s) are saved in "
                  f"{out}; rerun the same command to finish the others", file=sys.stderr)
        raise
    finally:
        bar.close()
        if fh is not None:
            fh.close()
    order = {k: i for i, k in enumerate(keys)}
    records = [done.get(k) or new.get(k) for k in keys if k in done or k in new]
    failures.sort(key=lambda r: order[r["key"]])
    return RunResult(records, failures, n_resumed, len(todo), out)


# ------------------------------------------------------------------ the command line
@dataclass
class Experiment:
    """A command of ``python -m kernelclf.experiments``.

    Attributes
    ----------
    name : str
        The subcommand (``bpm-table1``).
    help : str
        One line for ``--help``.
    add_arguments : callable
        ``add_arguments(parser)`` adds the command's own options (the common ones,
        ``--out --fresh --quiet --n-jobs``, are added for every command).
    tasks : callable
        ``tasks(args) -> list[Task]``.
    config : callable
        ``config(args) -> dict``: the settings that change a task's result (stored in
        the results file's header; options that only select tasks, such as the
        number of splits, do not belong here, so a rerun with more splits reuses
        the finished ones).
    report : callable
        ``report(args, records) -> str``, printed on ``sys.stdout`` at the end.
    """

    name: str
    help: str
    add_arguments: Callable
    tasks: Callable
    config: Callable
    report: Callable


#: the subcommands of ``python -m kernelclf.experiments``, by name
COMMANDS: dict = {}


def register(experiment):
    """Add an :class:`Experiment` to the command line (returns it)."""
    COMMANDS[experiment.name] = experiment
    return experiment
