"""The normalisation experiment of LKC Example 5.11 / Fig. 5.1 on the book's own splits.

Book chapter 04 (``book/04_support_vector_machines.md``), LKC §5.1.1, Example 5.11, Fig. 5.1.

LKC Theorem 5.10 bounds the risk through the margin of data *normalised* in feature space,
and Example 5.11 compares support vector machines with and without that normalisation,
``k(x, x') / sqrt(k(x, x) k(x', x'))`` (LKC eq. 2.22), for the complete polynomial kernel
``(<x, x'> + 1)^p`` of LKC Table 2.1 on 100 splits of Thyroid and Sonar. The splits are the
data home's ``thyroid_splits`` and ``sonar_splits``: the files of the book's own figure code
(public repository rherbrich74/lkc-book, commit 895a1ed, ``normalisation/``). That code also
fixes the setting the book does not print: an SVM without bias and with ``C = 10^20``, a hard
margin in effect. We take those facts, not the code.

* :func:`normalisation_split` - test errors of one split for every degree, raw and normalised;
* :func:`normalisation_tasks` - the protocol as runner tasks (one per data set and split);
* :func:`normalisation_curves` - mean, standard error and paired comparison per degree;
* the command ``lkc-fig5-1`` of ``python -m kernelclf.experiments``::

      python -m kernelclf.experiments lkc-fig5-1 --out lkc_fig5_1.jsonl
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from .runner import Experiment, Task, register

__all__ = ["FIG51_DEGREES", "FIG51_C", "FIG51_DATASETS", "FIG51_AXES", "normalisation_split",
           "normalisation_tasks", "normalisation_curves"]

#: degrees of the complete polynomial kernel: the book's code steps by 2 (up to 20); its
#: printed axes reach 40 (LKC Fig. 5.1), so we step by 2 up to 40
FIG51_DEGREES = tuple(range(2, 41, 2))
#: the trade-off constant of the book's code (``perc.svm(p, C=1e20)``): a hard margin in effect
FIG51_C = 1e20
#: data set name (for the data home) of each panel of LKC Fig. 5.1, left to right
FIG51_DATASETS = {"thyroid": "thyroid_splits", "sonar": "sonar_splits"}
#: the printed vertical axes of LKC Fig. 5.1 (lowest and highest labelled tick, LKC p. 175)
FIG51_AXES = {"thyroid": (0.040, 0.070), "sonar": (0.16, 0.22)}


def normalisation_split(dataset, split, degrees=FIG51_DEGREES, C=FIG51_C):
    """Test errors of the bias-free SVM on one book split, for every degree.

    Parameters
    ----------
    dataset : {"thyroid", "sonar"}
    split : int
        Index of the book's split (0 to 99).
    degrees : sequence of int
        Degrees ``p`` of the complete polynomial kernel ``(<x, x'> + 1)^p``.
    C : float
        Trade-off constant (default the book's ``1e20``).

    Returns
    -------
    dict
        ``degrees``; ``raw`` and ``normalised``: test errors (fractions) per degree; ``raw_sv`` and
        ``normalised_sv``: numbers of support vectors; ``converged``: whether every fit
        converged; ``n_train``, ``n_test``.
    """
    from ..datasets import load
    from ..kernels import Polynomial
    from ..kernels.closure import Normalized
    from ..margin.svm import SupportVectorMachine

    if dataset not in FIG51_DATASETS:
        raise ValueError(f"dataset must be one of {sorted(FIG51_DATASETS)}, got {dataset!r}")
    d = load(FIG51_DATASETS[dataset])
    if not 0 <= int(split) < len(d.X_train):
        raise ValueError(f"split must be in 0..{len(d.X_train) - 1}, got {split!r}")
    Xtr, ytr, Xte, yte = d.X_train[split], d.y_train[split], d.X_test[split], d.y_test[split]
    out = {"degrees": [int(p) for p in degrees], "raw": [], "normalised": [], "raw_sv": [],
           "normalised_sv": [], "converged": True, "n_train": int(len(ytr)),
           "n_test": int(len(yte))}
    for p in degrees:
        for name, kernel in (("raw", Polynomial(int(p), 1.0)),
                             ("normalised", Normalized(Polynomial(int(p), 1.0)))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                svm = SupportVectorMachine(kernel, C=C, fit_bias=False).fit(Xtr, ytr)
            out[name].append(float(np.mean(svm.predict(Xte) != yte)))
            out[name + "_sv"].append(int(len(svm.support_)))
            out["converged"] = out["converged"] and bool(svm.converged_)
    return out


def normalisation_tasks(datasets=tuple(FIG51_DATASETS), splits=100, degrees=FIG51_DEGREES,
                        C=FIG51_C):
    """The protocol of LKC Fig. 5.1 as :class:`~kernelclf.experiments.runner.Task` objects,
    one per data set and split (key ``"thyroid/7"``)."""
    degrees = tuple(int(p) for p in degrees)
    return [Task(f"{name}/{s}", normalisation_split, (name, s, degrees, float(C)),
                 {"dataset": name, "split": s})
            for name in datasets for s in range(int(splits))]


def normalisation_curves(records):
    """Per data set: ``degrees``, the ``raw`` and ``normalised`` error arrays (splits x
    degrees), their means and standard errors (``*_mean``, ``*_sem``), and for each degree
    the one-sided p-value of a paired t-test that normalisation lowers the error
    (``p_better``; 1 where the two agree on every split)."""
    out = {}
    for name in dict.fromkeys(r["dataset"] for r in records):
        recs = sorted((r for r in records if r["dataset"] == name), key=lambda r: r["split"])
        raw = np.array([r["result"]["raw"] for r in recs])
        nrm = np.array([r["result"]["normalised"] for r in recs])
        diff = raw - nrm
        p = np.ones(raw.shape[1])
        for j in range(raw.shape[1]):
            if np.ptp(diff[:, j]) > 0:
                p[j] = stats.ttest_1samp(diff[:, j], 0.0, alternative="greater").pvalue
        if any(r["result"]["degrees"] != recs[0]["result"]["degrees"] for r in recs):
            raise ValueError(f"{name}: the records were run with different degrees")
        out[name] = {"degrees": np.array(recs[0]["result"]["degrees"]), "raw": raw,
                     "normalised": nrm, "splits": len(recs),
                     "raw_mean": raw.mean(0), "normalised_mean": nrm.mean(0),
                     "raw_sem": raw.std(0, ddof=1) / np.sqrt(len(recs)),
                     "normalised_sem": nrm.std(0, ddof=1) / np.sqrt(len(recs)),
                     "p_better": p}
    return out


def _arguments(p):
    p.add_argument("--splits", type=int, default=100, help="splits per data set (default 100)")
    p.add_argument("--datasets", nargs="*", default=list(FIG51_DATASETS),
                   choices=sorted(FIG51_DATASETS), help="data sets (default: both)")
    p.add_argument("--degrees", type=int, nargs="*", default=list(FIG51_DEGREES),
                   help="polynomial degrees (default 2, 4, ..., 40)")
    p.add_argument("--C", type=float, default=FIG51_C, help="trade-off constant (default 1e20)")


def _report(args, records):
    curves = normalisation_curves(records)
    lines = []
    for name, c in curves.items():
        lines.append(f"{name} ({c['splits']} splits), degree: raw / normalised mean test error")
        for p, a, b in zip(c["degrees"], c["raw_mean"], c["normalised_mean"]):
            lines.append(f"  p = {p:2d}: {a:.3f} / {b:.3f}")
    return "\n".join(lines)


register(Experiment(
    name="lkc-fig5-1",
    help="LKC Fig. 5.1: SVM with and without normalisation in feature space, on the book's splits",
    add_arguments=_arguments,
    tasks=lambda a: normalisation_tasks(a.datasets, a.splits, a.degrees, a.C),
    config=lambda a: {"degrees": list(a.degrees), "C": a.C},
    report=_report,
))
