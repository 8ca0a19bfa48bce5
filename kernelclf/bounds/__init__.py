"""Learning-theory bounds as pure, vectorised functions.

Book chapters 14 and A (``book/14_vc_theory_and_srm.md``, ``book/appendix_a_concentration.md``);
also ``book/15_margin_bounds.md``; LKC Ch. 4-5, App. A.5 and C; TR §4; RMM §4.

One module per family of bounds: :mod:`~kernelclf.bounds.concentration`,
:mod:`~kernelclf.bounds.vc`, :mod:`~kernelclf.bounds.luckiness`,
:mod:`~kernelclf.bounds.covering` (covering numbers, fat shattering), :mod:`~kernelclf.bounds.margin`,
:mod:`~kernelclf.bounds.pac_bayes`, :mod:`~kernelclf.bounds.pac_bayes_margin`,
:mod:`~kernelclf.bounds.bayes_point` (TR's and BPM's bounds for the Bayes point),
:mod:`~kernelclf.bounds.inputs` (what a bound needs, read from a fitted estimator),
:mod:`~kernelclf.bounds.shattering` (brute-force growth functions of tiny classes),
:mod:`~kernelclf.bounds.symmetrisation` (the swappings of the VC proofs) and
:mod:`~kernelclf.bounds.finite_class` (the Occam and Gibbs bounds on a finite class of thresholds).
Import them as ``from kernelclf.bounds import vc``.

Convention: every bound function validates its arguments (``ValueError`` naming the
argument), broadcasts them like numpy, and returns the **raw** right-hand side of its
theorem (a numpy scalar for scalar inputs), never clipped. A probability or risk bound
>= 1 is trivial: :func:`trivial` flags such values and :func:`clip_trivial` caps them at
1 for plotting.
"""
from . import loo, mistake
from ._validation import clip_trivial, trivial
from .report import format_report, report

__all__ = ["concentration", "vc", "margin", "inputs", "shattering", "symmetrisation", "trivial",
           "clip_trivial"]
__all__ += ["luckiness", "covering"]  # chapter 15, beside margin
# chapter 16: import as ``from kernelclf.bounds import pac_bayes``
__all__ += ["pac_bayes", "pac_bayes_margin", "bayes_point", "volume", "finite_class"]
__all__ += ["compression", "stability", "rademacher"]  # chapter 17
__all__ += ["report", "format_report"]  # chapter 18
__all__ += ["loo", "mistake"]  # chapters 03 and 05: leave-one-out and mistake bounds
