"""The synthetic Gaussians of RMM §5.1 (Figs 3-6) on the paper's protocol, run offline.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010), §5.1,
eq. 34-35, Figs 3-6. The data, the Bayes rule and one repetition are
:func:`kernelclf.experiments.rmm.synthetic_errors`; this module runs the paper's repetitions
(fifty draws of training, validation and test sets, 100 000 validation and 100 000 test points
per class) and summarises them:

* :func:`errors_record` - one repetition of Figs 3-5 (one training size and scale ``s``):
  test errors of the validation-chosen SVM and RMM and of the Bayes rule, the chosen
  parameters, and the angle between each machine's normal and the Bayes normal (Fig. 3's
  "closer to the Bayes optimal solution");
* :func:`bound_record` - one repetition of Fig. 6: validation and test errors of every
  ``(C, kappa)`` of the grid (``kappa = 1`` is the SVM, ``B = 1 + (theta - 1) kappa``);
* :func:`synthetic_tasks` - the protocol as runner tasks; the command ``rmm-synthetic``::

      python -m kernelclf.experiments rmm-synthetic --out rmm_synthetic.jsonl

* :func:`size_curves`, :func:`scale_curves`, :func:`bound_curves` - means, standard errors and
  paired SVM - RMM differences over the repetitions.

The paper does not print its C and B grids, the training sizes of Fig. 4 (its caption names
6400), the scales of Fig. 5, nor the training size of Figs 3 and 6; the choices below
are ours. The results file's header stores the grids; every record stores its training size,
seed, scale and validation and test sizes (a Fig. 6 record also its grids).
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .rmm import _grid_machine, _synthetic_draw, synthetic_errors
from .runner import Experiment, Task, register

__all__ = ["REPS", "N_VAL", "N_TEST", "C_GRID", "KAPPAS", "FIG4_SIZES", "FIG5_N", "FIG5_SCALES",
           "FIG6_N", "FIG6_KAPPAS", "errors_record", "bound_record", "synthetic_tasks",
           "size_curves", "scale_curves", "bound_curves"]

#: RMM §5.1: fifty repetitions, 100 000 validation and 100 000 test points per class (our
#: reading of the paper's 100,000 per class drawn "to create validation and test sets")
REPS, N_VAL, N_TEST = 50, 100_000, 100_000
#: our C grid (both machines; validation picks its edge, 1000, at large s in Fig. 5)
C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
#: our relative bounds kappa of the RMM, ``B = 1 + (theta - 1) kappa`` (kappa = 1: the SVM)
KAPPAS = (1.0, 0.7, 0.5, 0.3, 0.15)
#: training sizes of Fig. 4 (total, half per class)
FIG4_SIZES = (10, 20, 40, 80, 160, 320)
#: Fig. 5: 100 training points (RMM §5.1) and our scales s of eq. 35
FIG5_N, FIG5_SCALES = 100, (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
#: Fig. 6: training size (ours; the paper's Fig. 5 size), C = 100 is RMM §5.1's, kappas ours
FIG6_N, FIG6_KAPPAS = 100, (1.0, 0.7, 0.5, 0.35, 0.2, 0.1, 0.05, 0.02)


def _normal(model):
    """Unit normal of a fitted linear machine on the plane (from its decision function)."""
    f = model.decision_function(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    w = np.array([f[1] - f[0], f[2] - f[0]])
    return w / np.linalg.norm(w)


def _angle(model, w_bayes):
    """Angle in degrees between a machine's normal and the Bayes normal (oriented)."""
    u = _normal(model)
    v = np.asarray(w_bayes) / np.linalg.norm(w_bayes)
    return float(np.degrees(np.arccos(np.clip(u @ v, -1.0, 1.0))))


def errors_record(n_train, seed, s=1.0, n_val=N_VAL, n_test=N_TEST, C_grid=C_GRID,
                  kappas=KAPPAS):
    """One repetition of RMM §5.1 (Figs 3-5), see :func:`~.rmm.synthetic_errors`.

    Returns a JSON-serialisable dict: test errors (fractions) ``svm``, ``rmm``, ``bayes``;
    the chosen ``svm_C``, ``rmm_C``, ``rmm_kappa``; the angles (degrees) ``svm_angle`` and
    ``rmm_angle`` of the two normals to the Bayes normal; and the settings.
    """
    r = synthetic_errors(int(n_train), seed=int(seed), s=float(s), n_val=int(n_val),
                         n_test=int(n_test), C_grid=tuple(C_grid), kappas=tuple(kappas))
    C, kap = r["rmm_C_kappa"]
    return {"n_train": int(n_train), "seed": int(seed), "s": float(s), "n_val": int(n_val),
            "n_test": int(n_test), "svm": r["svm"], "rmm": r["rmm"], "bayes": r["bayes"],
            "svm_C": float(r["svm_C"]), "rmm_C": float(C), "rmm_kappa": float(kap),
            "svm_angle": _angle(r["svm_model"], r["bayes_w"]),
            "rmm_angle": _angle(r["rmm_model"], r["bayes_w"])}


def bound_record(n_train, seed, s=1.0, n_val=N_VAL, n_test=N_TEST, C_grid=C_GRID,
                 kappas=FIG6_KAPPAS):
    """One repetition of RMM Fig. 6: errors of every ``(C, kappa)`` of the grid.

    Same draws as :func:`~.rmm.synthetic_errors` (training, validation, test, in that order
    from ``default_rng(seed)``, rescaled by the training box). ``kappa = 1`` is the SVM at
    that C; below it the RMM with ``B = 1 + (theta - 1) kappa``. Returns ``val`` and
    ``test``: error fractions of shape ``(len(C_grid), len(kappas))`` as nested lists,
    ``bayes``, and the settings.
    """
    (tr, ytr), (va, yva), (te, yte), (w, c) = _synthetic_draw(
        int(n_train), int(seed), float(s), int(n_val), int(n_test))
    val, test = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in C_grid:
            rv, rt = [], []
            for kap in kappas:
                model = _grid_machine(C, kap, tr, ytr)
                rv.append(float(np.mean(model.predict(va) != yva)))
                rt.append(float(np.mean(model.predict(te) != yte)))
            val.append(rv)
            test.append(rt)
    return {"n_train": int(n_train), "seed": int(seed), "s": float(s), "n_val": int(n_val),
            "n_test": int(n_test), "C_grid": [float(C) for C in C_grid],
            "kappas": [float(k) for k in kappas], "val": val, "test": test,
            "bayes": float(np.mean(np.sign(te @ w + c) != yte))}


def synthetic_tasks(figs=(6, 5, 4), reps=REPS, sizes=FIG4_SIZES, scales=FIG5_SCALES,
                    n_val=N_VAL, n_test=N_TEST):
    """The §5.1 protocol as runner tasks: key ``"fig4/n=40/7"``, ``"fig5/s=4/7"``,
    ``"fig6/7"`` (repetition 7 uses seed 7 for every size and scale)."""
    tasks = []
    for fig in figs:
        for r in range(int(reps)):
            if fig == 6:
                tasks.append(Task(f"fig6/{r}", bound_record, (FIG6_N, r, 1.0, n_val, n_test),
                                  {"fig": 6, "seed": r}))
            elif fig == 5:
                tasks += [Task(f"fig5/s={s:g}/{r}", errors_record,
                               (FIG5_N, r, float(s), n_val, n_test),
                               {"fig": 5, "seed": r, "s": float(s)}) for s in scales]
            elif fig == 4:
                tasks += [Task(f"fig4/n={n}/{r}", errors_record, (int(n), r, 1.0, n_val, n_test),
                               {"fig": 4, "seed": r, "n_train": int(n)}) for n in sizes]
            else:
                raise ValueError(f"figs are 4, 5 and 6, got {fig!r}")
    return tasks


def _paired(records, field):
    """Per value of ``field`` (sorted): arrays (reps,) of svm, rmm, bayes errors and angles."""
    out = {}
    for v in sorted({r["result"][field] for r in records}):
        rs = sorted((r["result"] for r in records if r["result"][field] == v),
                    key=lambda q: q["seed"])
        out[v] = {k: np.array([q[k] for q in rs]) for k in
                  ("svm", "rmm", "bayes", "svm_angle", "rmm_angle", "svm_C", "rmm_C",
                   "rmm_kappa", "seed")}
    return out


def _summary(groups):
    xs = list(groups)
    g = [groups[x] for x in xs]
    n = np.array([len(q["svm"]) for q in g])
    d = [q["svm"] - q["rmm"] for q in g]
    return {"x": np.array(xs, dtype=float), "reps": n,
            **{f"{k}_mean": np.array([q[k].mean() for q in g]) for k in ("svm", "rmm", "bayes")},
            **{f"{k}_sem": np.array([q[k].std(ddof=1) / np.sqrt(len(q[k])) for q in g])
               for k in ("svm", "rmm", "bayes")},
            "diff_mean": np.array([x.mean() for x in d]),
            "diff_sem": np.array([x.std(ddof=1) / np.sqrt(len(x)) for x in d]),
            "groups": groups}


def size_curves(records):
    """Fig. 4: per training size, mean and standard error over the repetitions of the SVM,
    RMM and Bayes test errors, and of the paired difference SVM - RMM (``diff_*``)."""
    return _summary(_paired([r for r in records if r.get("fig") == 4], "n_train"))


def scale_curves(records):
    """Fig. 5: as :func:`size_curves`, per scale ``s`` of eq. 35."""
    return _summary(_paired([r for r in records if r.get("fig") == 5], "s"))


def bound_curves(records):
    """Fig. 6: ``C_grid``, ``kappas``, ``val`` and ``test`` arrays (reps x C x kappa), their
    means over the repetitions, and the Bayes errors per repetition."""
    rs = sorted((r["result"] for r in records if r.get("fig") == 6), key=lambda q: q["seed"])
    val, test = np.array([q["val"] for q in rs]), np.array([q["test"] for q in rs])
    return {"C_grid": np.array(rs[0]["C_grid"]), "kappas": np.array(rs[0]["kappas"]),
            "val": val, "test": test, "val_mean": val.mean(0), "test_mean": test.mean(0),
            "bayes": np.array([q["bayes"] for q in rs]), "reps": len(rs)}


def _arguments(p):
    p.add_argument("--figs", type=int, nargs="*", default=[6, 5, 4], choices=[4, 5, 6],
                   help="which figures (default 6 5 4, in that order)")
    p.add_argument("--reps", type=int, default=REPS, help="repetitions (default 50)")
    p.add_argument("--sizes", type=int, nargs="*", default=list(FIG4_SIZES),
                   help="training sizes of Fig. 4")
    p.add_argument("--scales", type=float, nargs="*", default=list(FIG5_SCALES),
                   help="scales s of Fig. 5")
    p.add_argument("--n-val", type=int, default=N_VAL, help="validation points per class")
    p.add_argument("--n-test", type=int, default=N_TEST, help="test points per class")


def _report(args, records):
    lines = []
    for name, fn in (("Fig. 4, n", size_curves), ("Fig. 5, s", scale_curves)):
        if any(r.get("fig") == int(name[5]) for r in records):
            c = fn(records)
            for x, a, b, e, d, sd in zip(c["x"], c["svm_mean"], c["rmm_mean"], c["bayes_mean"],
                                         c["diff_mean"], c["diff_sem"]):
                lines.append(f"{name} = {x:g}: SVM {100 * a:.2f}%  RMM {100 * b:.2f}%  "
                             f"Bayes {100 * e:.2f}%  SVM-RMM {100 * d:.2f} +- {100 * sd:.2f}")
    if any(r.get("fig") == 6 for r in records):
        c = bound_curves(records)
        lines.append("Fig. 6, mean test error (%) per C (rows) and kappa (columns)")
        for C, row in zip(c["C_grid"], c["test_mean"]):
            lines.append(f"  C = {C:g}: " + " ".join(f"{100 * v:.2f}" for v in row))
    return "\n".join(lines)


register(Experiment(
    name="rmm-synthetic",
    help="RMM §5.1, Figs 4-6: SVM and RMM on the synthetic Gaussians, the paper's protocol",
    add_arguments=_arguments,
    tasks=lambda a: synthetic_tasks(a.figs, a.reps, a.sizes, a.scales, a.n_val, a.n_test),
    config=lambda a: {"n_val": a.n_val, "n_test": a.n_test, "C_grid": list(C_GRID),
                      "kappas": list(KAPPAS), "fig6_kappas": list(FIG6_KAPPAS)},
    report=_report,
))
