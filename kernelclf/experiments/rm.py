"""Ruján and Marchand's teacher-student learning curves (RM §18.6, Figs 18.11-18.12).

Book chapter 11 (``book/11_kernel_billiard.md``); Ruján & Marchand, "Computing the Bayes
kernel classifier" (RM, in *Advances in Large Margin Classifiers*, 2000), §18.3, §18.5.1
(Alg. 18.1), §18.6.

RM test the flipper on perceptrons: random examples in ``D = 100`` dimensions labelled by a
random teacher perceptron, and the generalisation probability of the flipper's centre of mass
(Fig. 18.11) and of the maximal-margin perceptron (Fig. 18.12) plotted against
``alpha = M / D``, each point an average over ten runs. The protocol here:

* a run (a *teacher*) draws the teacher ``t`` uniformly on the unit sphere and ``M = alpha D``
  standard-normal inputs labelled ``sign(<t, x>)``, from ``numpy.random.default_rng(seed)``
  (our choices: RM's examples are random and their teacher random but fixed, with neither
  the input distribution nor whether runs share a teacher stated);
* the student of Fig. 18.11 is RM's flipper (Alg. 18.1, with its threshold coordinate,
  :func:`~kernelclf.bayespoint.rujan.flipper`) on the linear kernel (our choice to keep the
  threshold in both students: RM do not say whether their runs used it; the teacher has none);
* the maximal-margin perceptron of Fig. 18.12 (with a threshold) is solved twice: by the
  hard-margin SVM with a bias (SMO, to its default tolerance; the curve) and by RM's own
  route, the minimal connector of the two classes' convex hulls (§18.3,
  :func:`~kernelclf.bayespoint.connector.minimal_connector`, a looser tolerance; a check);
* a second flipper run with another seed on the same data measures the scatter of the
  flipper's estimate itself;
* a student ``f(x) = <w, x> + b`` is scored by its exact generalisation probability for
  Gaussian inputs (:func:`generalisation_probability`), so no test set is needed.

RM's text (our copy has the captions, not the plots) fixes ``D`` and the ten runs; the
grid of ``alpha`` is ours (:data:`RM_ALPHAS`). RM's analytic Bayes curve (Opper and Haussler)
is not computed: its formula is not in the sources.

* :func:`generalisation_probability` - exact agreement with the teacher for Gaussian inputs;
* :func:`teacher_student_run` - one teacher at one ``alpha``: both students scored;
* :func:`teacher_student_tasks` - the protocol as runner tasks;
* :func:`teacher_student_curves` - means, standard errors and paired differences per alpha;
* the command ``rm-fig18-11`` of ``python -m kernelclf.experiments``::

      python -m kernelclf.experiments rm-fig18-11 --out rm_fig18_11.jsonl
"""
from __future__ import annotations

import numpy as np
from scipy import integrate, special

from .runner import Experiment, Task, register

__all__ = ["RM_D", "RM_RUNS", "RM_ALPHAS", "FLIPPER_TOL", "CONNECTOR_TOL", "REPEAT_OFFSET",
           "generalisation_probability", "teacher_student_data", "teacher_student_run",
           "teacher_student_tasks", "teacher_student_curves"]

#: input dimension (RM Fig. 18.11's caption)
RM_D = 100
#: runs per point (RM §18.6: an average over ten runs); each run has a teacher of its own
RM_RUNS = 10
#: the grid of alpha = M / D (ours: RM's text does not give the plotted range)
RM_ALPHAS = tuple(float(a) for a in np.arange(1, 21) / 2)
#: the flipper's stopping tolerance (the ``rho2`` rule of ``kernelclf.bayespoint.billiard.kernel_billiard``)
FLIPPER_TOL = 1e-4
#: the minimal connector's relative duality gap
CONNECTOR_TOL = 1e-3
#: seed offset of the second flipper run on the same data
REPEAT_OFFSET = 1000


def generalisation_probability(w, b, teacher):
    """Probability that ``sign(<w, x> + b)`` agrees with ``sign(<t, x>)`` for ``x ~ N(0, I)``.

    With ``u = <t, x>`` (``t`` a unit vector) and ``v = <w, x> / ||w||`` jointly standard
    normal with correlation ``rho = <w, t> / ||w||``, and ``c = b / ||w||``, the agreement is
    ``int_0^inf phi(u) [Phi((rho u + c) / s) + Phi((rho u - c) / s)] du`` with
    ``s = sqrt(1 - rho^2)``; for ``b = 0`` it is ``1 - arccos(rho) / pi``.
    """
    w = np.asarray(w, dtype=float)
    teacher = np.asarray(teacher, dtype=float)
    nw = float(np.linalg.norm(w))
    if not nw > 0:
        raise ValueError("w must be a nonzero vector")
    rho = float(np.clip(w @ teacher / (nw * np.linalg.norm(teacher)), -1.0, 1.0))
    c = float(b) / nw
    s = np.sqrt(max(1.0 - rho * rho, 0.0))
    if s < 1e-12:  # the student is parallel to the teacher: only the offset matters
        return float(1.0 - special.ndtr(abs(c)) + 0.5) if rho > 0 else float(special.ndtr(abs(c)) - 0.5)

    def f(u):
        return np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi) * (
            special.ndtr((rho * u + c) / s) + special.ndtr((rho * u - c) / s))

    val, _ = integrate.quad(f, 0.0, np.inf, epsabs=1e-12, epsrel=1e-10)
    return float(val)


def teacher_student_data(alpha, seed, D=RM_D):
    """The teacher (a unit vector), ``M = round(alpha D)`` standard-normal inputs and their
    labels ``sign(<t, x>)``, all from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(int(seed))
    teacher = rng.standard_normal(int(D))
    teacher /= np.linalg.norm(teacher)
    M = int(round(float(alpha) * int(D)))
    if M < 2:
        raise ValueError(f"alpha * D must give at least 2 examples, got {M}")
    X = rng.standard_normal((M, int(D)))
    y = np.sign(X @ teacher)
    return teacher, X, y


def teacher_student_run(alpha, seed, D=RM_D, flipper_tol=FLIPPER_TOL,
                        connector_tol=CONNECTOR_TOL):
    """One teacher at one ``alpha``: the flipper and the maximal-margin perceptron, scored.

    Parameters
    ----------
    alpha : float
        ``M / D``.
    seed : int
        Seed of the teacher and the data (:func:`teacher_student_data`) and of the flipper;
        a second flipper run on the same data uses ``seed + REPEAT_OFFSET`` (the scatter of
        the estimate itself).
    D : int
    flipper_tol, connector_tol : float
        Stopping tolerances of :func:`~kernelclf.bayespoint.rujan.flipper` and
        :func:`~kernelclf.bayespoint.connector.minimal_connector`.

    Returns
    -------
    dict
        ``M``; generalisation probabilities ``flipper``, ``flipper_repeat`` (the second
        flipper run), ``maximal_margin`` (the hard-margin SVM with a bias, solved by SMO to
        its default tolerance) and ``connector`` (RM's minimal connector, the same plane up
        to ``connector_tol`` when ``connector_converged``; it can stop at its iteration cap
        first); ``flipper_offset`` and ``maximal_margin_offset``: ``b / ||w||``;
        ``bounces`` and ``restarts`` (of the first flipper run), ``flipper_converged`` (both
        flipper runs), ``connector_converged``, ``svm_converged``.
    """
    from ..bayespoint import flipper, minimal_connector
    from ..kernels import Linear
    from ..margin import SupportVectorMachine

    teacher, X, y = teacher_student_data(alpha, seed, D)
    G = X @ X.T
    res, b_f = flipper(G, y, tol=float(flipper_tol), random_state=int(seed))
    w_f = X.T @ res.alpha
    res2, b_f2 = flipper(G, y, tol=float(flipper_tol), random_state=int(seed) + REPEAT_OFFSET)
    svm = SupportVectorMachine(Linear(), hard_margin=True, fit_bias=True).fit(X, y)
    w_s = X.T @ svm.alpha_
    mc = minimal_connector(G, y, fit_bias=True, tol=float(connector_tol))
    return {"M": int(len(y)),
            "flipper": generalisation_probability(w_f, b_f, teacher),
            "flipper_repeat": generalisation_probability(X.T @ res2.alpha, b_f2, teacher),
            "maximal_margin": generalisation_probability(w_s, svm.intercept_, teacher),
            "connector": generalisation_probability(X.T @ mc.alpha, mc.intercept, teacher),
            "flipper_offset": float(b_f / np.linalg.norm(w_f)),
            "maximal_margin_offset": float(svm.intercept_ / np.linalg.norm(w_s)),
            "bounces": int(res.n_bounces), "restarts": int(res.n_restarts),
            "flipper_converged": bool(res.converged and res2.converged),
            "connector_converged": bool(mc.converged),
            "svm_converged": bool(svm.converged_)}


def teacher_student_tasks(alphas=RM_ALPHAS, runs=RM_RUNS, D=RM_D, flipper_tol=FLIPPER_TOL,
                          connector_tol=CONNECTOR_TOL):
    """The protocol as :class:`~kernelclf.experiments.runner.Task` objects, one per alpha and
    run (key ``"2.5/7"``; the run number is the seed)."""
    return [Task(f"{float(a):g}/{r}", teacher_student_run,
                 (float(a), r, int(D), float(flipper_tol), float(connector_tol)),
                 {"alpha": float(a), "seed": r, "D": int(D), "flipper_tol": float(flipper_tol),
                  "connector_tol": float(connector_tol)})
            for a in alphas for r in range(int(runs))]


def teacher_student_curves(records):
    """Per alpha (sorted): ``alpha``, the ``flipper``, ``flipper_repeat``, ``maximal_margin``
    and ``connector`` arrays
    (alphas x runs, runs sorted by seed), their means and standard deviations over the runs,
    the paired difference ``diff = flipper - maximal_margin`` with its mean and standard error,
    and ``seeds``."""
    alphas = sorted({r["alpha"] for r in records})
    by = {a: sorted((r for r in records if r["alpha"] == a), key=lambda r: r["seed"])
          for a in alphas}
    seeds = [r["seed"] for r in by[alphas[0]]]
    if any([r["seed"] for r in by[a]] != seeds for a in alphas):
        raise ValueError("every alpha must have the same runs")
    out = {"alpha": np.array(alphas), "seeds": seeds}
    for name in ("flipper", "flipper_repeat", "maximal_margin", "connector"):
        v = np.array([[r["result"][name] for r in by[a]] for a in alphas], dtype=float)
        out[name] = v
        out[name + "_mean"] = v.mean(1)
        out[name + "_std"] = v.std(1, ddof=1)
    d = out["flipper"] - out["maximal_margin"]
    out["diff"] = d
    out["diff_mean"] = d.mean(1)
    out["diff_sem"] = d.std(1, ddof=1) / np.sqrt(d.shape[1])
    return out


def _arguments(p):
    p.add_argument("--runs", type=int, default=RM_RUNS, help="teachers per alpha (default 10)")
    p.add_argument("--alphas", type=float, nargs="*", default=list(RM_ALPHAS),
                   help="values of alpha = M/D (default 0.5, 1, ..., 10)")
    p.add_argument("--D", type=int, default=RM_D, help="input dimension (default 100)")
    p.add_argument("--flipper-tol", type=float, default=FLIPPER_TOL)
    p.add_argument("--connector-tol", type=float, default=CONNECTOR_TOL)


def _report(args, records):
    c = teacher_student_curves(records)
    lines = ["alpha: flipper / maximal margin mean generalisation probability, difference +- se"]
    for a, f, m, d, s in zip(c["alpha"], c["flipper_mean"], c["maximal_margin_mean"],
                             c["diff_mean"], c["diff_sem"]):
        lines.append(f"  {a:4.1f}: {f:.4f} / {m:.4f}  {d:+.4f} +- {s:.4f}")
    return "\n".join(lines)


register(Experiment(
    name="rm-fig18-11",
    help="RM Figs 18.11-18.12: teacher-student learning curves of the flipper and the "
         "maximal-margin perceptron",
    add_arguments=_arguments,
    tasks=lambda a: teacher_student_tasks(a.alphas, a.runs, a.D, a.flipper_tol,
                                          a.connector_tol),
    config=lambda a: {"D": a.D, "flipper_tol": a.flipper_tol,
                      "connector_tol": a.connector_tol},
    report=_report,
))
