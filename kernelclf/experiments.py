"""Experiment protocols of the Bayes point machine paper, and their command line.

Book chapter 12 (``book/12_bpm_experiments.md``); BPM §4 (Table 1, Fig. 8, Fig. 9)
and TR 99-11 §6 (Table 1, Fig. 6).

* :func:`bpm_table1` — BPM Table 1 (= TR Table 1): hard-margin SVM against the
  hard-boundary Bayes point machine (kernel billiard, ``lam = 0``) with the RBF
  widths of the paper, test error over many train/test splits, and a paired
  one-sided t-test.  Splits: Sonar and Thyroid use their 100 fixed splits,
  Heart its 10 original splits; Ionosphere and Pima diabetes seeded 60:40
  splits; Banana and Waveform seeded random training sets of 400 points
  (the size of the Rätsch realisations BPM used; BPM §4 quotes m = 400) with
  the remaining points as test set.  Inputs are standardised with the
  training mean and deviation of each split.  Neither classifier has a bias
  (LKC/BPM convention).
* :func:`soft_boundary_curve` — BPM Fig. 8 / TR Fig. 6: test error against the
  ridge ``lam`` for the soft-boundary BPM (``G + lam I``) and the quadratic
  (L2) soft-margin SVM, whose dual is the hard-margin dual on ``G + lam I``
  (``C = 1 / lam``, LKC eq. 2.49–2.50).
* :func:`one_vs_rest_bpm` and :func:`rejection_curve` — BPM §4.3, Fig. 9.

Long runs: progress, results files, resume
-------------------------------------------
A protocol is a list of independent :class:`Task` objects (one per split) run by
:func:`run_tasks`: a progress bar on ``sys.stderr`` (:mod:`kernelclf.progress`), each
finished split appended at once to a JSON-lines results file, and on a rerun with the
same settings only the splits missing from that file are computed. The file starts
with a header line (command and the settings that change a split's result, e.g.
``tol`` and ``seed``); a file written with other settings is refused with a message
saying how they differ. A split that raises is recorded with its seed and error, the
other splits go on, and the failure is reported at the end (and retried on the next
rerun).

Command line (joblib-parallel over splits)::

    python -m kernelclf.experiments bpm-table1 --splits 100 --n-jobs -1 --out table1.jsonl

Every command takes ``--out FILE.jsonl`` (results file; rerun to resume), ``--fresh``
(start over, overwriting the file), ``--quiet`` (no progress bar or messages) and
``--n-jobs``. Adding a command is one :func:`register` call with an
:class:`Experiment` (its own arguments, its tasks, the settings stored in the header
and the report printed at the end); progress, results file and resume come with it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .kernels import RBF
from .progress import progress as _progress

__all__ = ["TABLE1_SIGMA", "TABLE1_REPORTED", "table1_splits", "table1_tasks", "table1_rows",
           "bpm_table1", "format_table1", "soft_boundary_curve", "one_vs_rest_bpm",
           "rejection_curve", "Task", "RunResult", "run_tasks", "ResultsFileError",
           "SplitsFailedError", "Experiment", "COMMANDS", "register", "build_parser", "main"]


#: RBF widths of BPM Table 1 (chosen there to be optimal for the SVM).
TABLE1_SIGMA = {"heart": 10.0, "thyroid": 3.0, "diabetes": 5.0, "waveform": 20.0,
                "banana": 0.5, "sonar": 1.0, "ionosphere": 1.5}

#: Numbers reported in BPM Table 1: (SVM mean, sd, BPM mean, sd, p) in % .
TABLE1_REPORTED = {"heart": (25.4, 0.40, 22.8, 0.34, 1.00),
                   "thyroid": (5.3, 0.24, 4.4, 0.21, 1.00),
                   "diabetes": (33.1, 0.24, 32.0, 0.25, 1.00),
                   "waveform": (13.0, 0.10, 12.1, 0.09, 1.00),
                   "banana": (16.2, 0.15, 15.1, 0.14, 1.00),
                   "sonar": (15.4, 0.37, 15.9, 0.38, 0.01),
                   "ionosphere": (11.9, 0.25, 11.5, 0.25, 0.99)}


def _pm(y):
    y = np.asarray(y)
    vals = np.unique(y)
    return np.where(y == vals[-1], 1.0, -1.0)


def table1_splits(name, n_splits=100, seed=0):
    """``[(X_train, y_train, X_test, y_test), ...]`` for a Table 1 data set."""
    from .datasets import load

    rng = np.random.default_rng(seed)
    out = []
    if name in ("sonar", "thyroid"):
        b = load(f"{name}_splits")
        for s in range(min(n_splits, len(b.X_train))):
            out.append((b.X_train[s], _pm(b.y_train[s]), b.X_test[s], _pm(b.y_test[s])))
        return out
    if name == "heart":
        b = load("heart")
        y = _pm(b.y)
        for s in range(min(n_splits, len(b.train_idx))):
            tr, te = b.train_idx[s], b.test_idx[s]
            out.append((b.X[tr], y[tr], b.X[te], y[te]))
        return out
    key = {"diabetes": "pima_diabetes"}.get(name, name)
    b = load(key)
    X, y = np.asarray(b.X, dtype=float), _pm(b.y)
    m = len(y)
    n_train = 400 if name in ("banana", "waveform") else int(round(0.6 * m))
    for _ in range(n_splits):
        perm = rng.permutation(m)
        tr, te = perm[:n_train], perm[n_train:]
        out.append((X[tr], y[tr], X[te], y[te]))
    return out


def _standardise(Xtr, Xte):
    mu = Xtr.mean(axis=0)
    sd = Xtr.std(axis=0)
    sd[sd == 0] = 1.0
    return (Xtr - mu) / sd, (Xte - mu) / sd


def _one_split(Xtr, ytr, Xte, yte, sigma, tol, seed, lam=0.0):
    from .billiard import NotSeparableError
    from .bpm import BayesPointMachine
    from .optim import InfeasibleProblemError
    from .svm import SupportVectorMachine

    Xtr, Xte = _standardise(Xtr, Xte)
    kernel = RBF(sigma)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            bpm = BayesPointMachine(kernel, lam=lam, tol=tol, random_state=seed).fit(Xtr, ytr)
            used = lam
        except NotSeparableError:
            used = max(lam, 1e-3)
            bpm = BayesPointMachine(kernel, lam=used, tol=tol, random_state=seed).fit(Xtr, ytr)
        if used > 0:
            svm = SupportVectorMachine(kernel, C=1.0 / used, loss="squared_hinge",
                                       fit_bias=False).fit(Xtr, ytr)
        else:
            svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False).fit(Xtr, ytr)
            if not svm.converged_:  # SMO can stall on ill-conditioned hard margins
                try:
                    svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False,
                                               solver="qp", tol=1e-8).fit(Xtr, ytr)
                except InfeasibleProblemError:
                    # a strictly positive definite Gram matrix separates every labelling,
                    # but the hard-margin dual may need coefficients beyond 1e9 (Banana,
                    # sigma = 0.5): take the limit C -> infinity at C = 1e6 (L2 slacks)
                    svm = SupportVectorMachine(kernel, C=1e6, loss="squared_hinge",
                                               fit_bias=False).fit(Xtr, ytr)
    return (float(np.mean(svm.predict(Xte) != yte)), float(np.mean(bpm.predict(Xte) != yte)),
            used, int(bpm.n_bounces_))


def _table1_split(Xtr, ytr, Xte, yte, sigma, tol, seed):
    svm_err, bpm_err, lam, bounces = _one_split(Xtr, ytr, Xte, yte, sigma, tol, seed)
    return {"svm_error": svm_err, "bpm_error": bpm_err, "lam": lam, "bounces": bounces}


def table1_tasks(datasets=None, n_splits=100, tol=1e-3, seed=0):
    """The BPM Table 1 protocol as a list of :class:`Task` (one per data set and split).

    Task keys are ``"<data set>/<split>"``; split ``s`` of a data set is the same
    whatever ``n_splits`` is (fixed splits, or the ``s``-th draw of one seeded
    generator), and its billiard is seeded with ``seed + s``.
    """
    tasks = []
    for name in list(datasets or TABLE1_SIGMA):
        if name not in TABLE1_SIGMA:
            raise ValueError(f"unknown Table 1 data set {name!r}; choose from {sorted(TABLE1_SIGMA)}")
        sigma = TABLE1_SIGMA[name]
        for s, split in enumerate(table1_splits(name, n_splits, seed)):
            tasks.append(Task(f"{name}/{s}", _table1_split, (*split, sigma, tol, seed + s),
                              {"dataset": name, "split": s, "seed": seed + s, "sigma": sigma}))
    return tasks


def _sem(v):
    return float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0


def table1_rows(records, datasets=None):
    """Table 1 rows (errors in %) from the per-split records of :func:`run_tasks`.

    Splits are taken in their index order, so a resumed or parallel run gives the
    same numbers as an uninterrupted serial one. Data sets without any finished
    split are left out.
    """
    by_name = {}
    for rec in records:
        by_name.setdefault(rec["dataset"], []).append(rec)
    names = list(datasets or TABLE1_SIGMA)
    rows = []
    for name in names:
        recs = sorted(by_name.get(name, []), key=lambda r: r["split"])
        if not recs:
            continue
        r = np.array([[x["result"]["svm_error"], x["result"]["bpm_error"]] for x in recs]) * 100
        lams = np.array([x["result"]["lam"] for x in recs])
        bounces = [x["result"]["bounces"] for x in recs]
        n = len(r)
        diff = r[:, 1] - r[:, 0]
        if n > 1 and np.any(diff != 0):
            p = float(stats.ttest_rel(r[:, 1], r[:, 0], alternative="less").pvalue)
        else:
            p = 0.5
        rows.append({"dataset": name, "n_splits": n, "sigma": TABLE1_SIGMA[name],
                     "svm_mean": float(r[:, 0].mean()), "svm_sem": _sem(r[:, 0]),
                     "bpm_mean": float(r[:, 1].mean()), "bpm_sem": _sem(r[:, 1]),
                     "p_bpm_better": p, "confidence": 1.0 - p,
                     "bpm_wins": int(np.sum(diff < 0)), "svm_wins": int(np.sum(diff > 0)),
                     "splits_with_ridge": int(np.sum(lams > 0)),
                     "mean_bounces": float(np.mean(bounces)),
                     "reported": TABLE1_REPORTED[name]})
    return rows


def bpm_table1(datasets=None, n_splits=100, n_jobs=1, tol=1e-3, seed=0, verbose=0, *,
               out=None, fresh=False, progress=None, backend="loky", scheduler=None):
    """Run the BPM Table 1 protocol; returns a list of result dicts (errors in %).

    Parameters
    ----------
    datasets : list of str, optional
        Keys of :data:`TABLE1_SIGMA` (default: all seven).
    n_splits : int
        Splits per data set (Heart has 10).
    n_jobs : int
        joblib workers over the splits.
    tol : float
        Stopping tolerance of the kernel billiard.
    seed : int
        Seed of the random splits; split ``s`` seeds its billiard with ``seed + s``.
    verbose : int
        ``> 0`` shows a progress bar (as ``progress=True``).
    out : str or path, optional
        JSON-lines results file: each split is appended when it finishes, and a rerun
        with the same ``tol`` and ``seed`` computes only the splits missing from it.
    fresh : bool
        Ignore and overwrite an existing ``out``.
    progress : bool or None
        Progress bar on ``sys.stderr`` (``None``: :func:`kernelclf.progress.progress_enabled`).
    backend, scheduler :
        Where the splits run: joblib (``'loky'``) or a ``dask.distributed`` cluster
        (``'dask'``, at ``scheduler`` or a local one); see :func:`run_tasks`.

    Raises
    ------
    SplitsFailedError
        After all other splits have run (and been saved), when some split raised;
        the error lists each failed split with its seed.
    """
    names = list(datasets or TABLE1_SIGMA)
    if verbose and progress is None:
        progress = True
    run = run_tasks(table1_tasks(names, n_splits, tol, seed), command="bpm-table1",
                    config={"tol": tol, "seed": seed}, out=out, fresh=fresh, n_jobs=n_jobs,
                    backend=backend, scheduler=scheduler,
                    progress=progress, desc="bpm-table1", verbose=progress is not False)
    if run.failures:
        raise SplitsFailedError(run)
    return table1_rows(run.records, names)


def format_table1(rows):
    """Markdown table: ours beside the paper's numbers."""
    lines = ["| data | splits | SVM % (ours) | BPM % (ours) | 1 - p (ours) | BPM/SVM wins "
             "| SVM % (paper) | BPM % (paper) | p (paper) | σ |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, ss, b, bs, p = r["reported"]
        lines.append(f"| {r['dataset']} | {r['n_splits']} | {r['svm_mean']:.1f} ± {r['svm_sem']:.2f} "
                     f"| {r['bpm_mean']:.1f} ± {r['bpm_sem']:.2f} | {r['confidence']:.2f} "
                     f"| {r['bpm_wins']}/{r['svm_wins']} | {s} ± {ss} | {b} ± {bs} | {p:.2f} "
                     f"| {r['sigma']} |")
    lines.append("\n± is the standard error of the mean over splits (as in the paper); "
                 "1 - p is the confidence of the one-sided paired t-test that the BPM "
                 "error is lower (the paper's p column).")
    return "\n".join(lines)


def soft_boundary_curve(splits, lambdas, sigma=None, kernel=None, tol=1e-2, seed=0,
                        standardise=True):
    """Test error (%) against ``lam`` for the soft-boundary BPM and the L2-SVM.

    BPM Fig. 8 / TR Fig. 6.  The L2 soft-margin SVM without bias has the
    hard-margin dual on ``G + lam I`` (``C = 1/lam``); ``lam = 0`` is the
    hard margin.  Returns ``(bpm, svm)`` arrays of shape ``(len(lambdas),
    len(splits))``.
    """
    from .bpm import BayesPointMachine
    from .svm import SupportVectorMachine

    if kernel is None:
        kernel = RBF(sigma)
    bpm_err = np.zeros((len(lambdas), len(splits)))
    svm_err = np.zeros_like(bpm_err)
    for j, (Xtr, ytr, Xte, yte) in enumerate(splits):
        if standardise:
            Xtr, Xte = _standardise(Xtr, Xte)
        for i, lam in enumerate(lambdas):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                bpm = BayesPointMachine(kernel, lam=lam, tol=tol, random_state=seed + j).fit(Xtr, ytr)
                if lam > 0:
                    svm = SupportVectorMachine(kernel, C=1.0 / lam, loss="squared_hinge",
                                               fit_bias=False).fit(Xtr, ytr)
                else:
                    svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=False).fit(Xtr, ytr)
            bpm_err[i, j] = 100 * np.mean(bpm.predict(Xte) != yte)
            svm_err[i, j] = 100 * np.mean(svm.predict(Xte) != yte)
    return bpm_err, svm_err


def one_vs_rest_bpm(Xtr, ytr, Xte, kernel, n_samples=10, lam=0.0, random_state=None):
    """Perceptron-sampling BPM for several classes (BPM §4.3).

    One Bayes point per class (``n_samples`` normalised perceptrons on
    random permutations, class against the rest); each test point gets the
    cosine outputs ``f_y(x) = <w_y, phi(x)> / ||phi(x)||`` and is assigned to
    the arg-max.  Returns ``(predicted labels, max cosine)``; the second is
    the confidence used for rejection.
    """
    from .bpm import BayesPointMachine

    rng = check_random_state(random_state)
    classes = np.unique(ytr)
    scores = np.empty((len(Xte), len(classes)))
    for k, c in enumerate(classes):
        clf = BayesPointMachine(kernel, method="perceptron", lam=lam, n_samples=n_samples,
                                random_state=rng).fit(Xtr, (ytr == c).astype(int))
        scores[:, k] = clf.normalized_decision_function(Xte)
    return classes[np.argmax(scores, axis=1)], scores.max(axis=1)


def rejection_curve(confidence, correct, rates):
    """Error on the kept points after rejecting the fraction ``r`` of test
    points with the smallest confidence (BPM Fig. 9)."""
    order = np.argsort(confidence)
    correct = np.asarray(correct, dtype=bool)[order]
    n = len(order)
    out = []
    for r in rates:
        k = int(round(r * n))
        kept = correct[k:]
        out.append(float(1.0 - kept.mean()) if len(kept) else 0.0)
    return np.array(out)


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
        ``fresh`` is false, tasks whose key has a successful record are not run again.
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
                                    "config": _normalise(config)}) + "\n")
        else:
            done = {k: r for k, r in existing.items() if "result" in r}
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

#: modules imported by :func:`build_parser` before it lists :data:`COMMANDS`; a module
#: that defines commands elsewhere calls :func:`register` at import time and is named here
COMMAND_MODULES: tuple = ("kernelclf.rmm_experiments",)


def register(experiment):
    """Add an :class:`Experiment` to the command line (returns it)."""
    COMMANDS[experiment.name] = experiment
    return experiment


def _table1_arguments(p):
    p.add_argument("--splits", type=int, default=100, help="splits per data set (default 100)")
    p.add_argument("--datasets", nargs="*", default=None, choices=sorted(TABLE1_SIGMA),
                   help="data sets (default: all)")
    p.add_argument("--tol", type=float, default=1e-3, help="billiard tolerance (default 1e-3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random splits (default 0)")


register(Experiment(
    name="bpm-table1",
    help="BPM Table 1: hard-margin SVM vs BPM",
    add_arguments=_table1_arguments,
    tasks=lambda a: table1_tasks(a.datasets, a.splits, a.tol, a.seed),
    config=lambda a: {"tol": a.tol, "seed": a.seed},
    report=lambda a, records: format_table1(table1_rows(records, a.datasets)),
))


def _positive_jobs(text):
    n = int(text)
    if n == 0:
        raise argparse.ArgumentTypeError("--n-jobs must be a positive number or negative "
                                         "(-1: all cores), not 0")
    return n


def build_parser():
    """The argument parser: one subcommand per entry of :data:`COMMANDS`."""
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(module)
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


if __name__ == "__main__":
    # run the package's module (not this ``__main__`` copy), so that commands registered
    # from other modules land in the one registry
    from kernelclf.experiments import main as _main

    sys.exit(_main())
