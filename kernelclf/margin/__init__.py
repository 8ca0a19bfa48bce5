"""Margin machines: separability, the perceptron, support vector machines and their SMO
solver, the leave-one-out and adaptive margin machines, relative margin machines
(book chapters 03-05 and 13; LKC Ch. 2, RMM).

Book chapters 03 and 04 (``book/03_perceptron.md``, ``book/04_support_vector_machines.md``);
also chapters 05 and 13.

* :mod:`~kernelclf.margin.separability` - is a sample separable; geometric margins (LKC Def. 2.30)
* :mod:`~kernelclf.margin.perceptron` - primal, dual and kernel perceptron, halving (LKC §2.3)
* :mod:`~kernelclf.margin.smo` - the SMO solver with second-order working-set selection
* :mod:`~kernelclf.margin.svm` - hard, soft (L1/L2) and nu support vector machines (LKC §2.4)
* :mod:`~kernelclf.margin.amm` - leave-one-out and adaptive margin machines (LKC §2.5)
* :mod:`~kernelclf.margin.rmm` - relative margin machines (Shivaswamy and Jebara 2010)
"""
from .amm import AdaptiveMarginMachine, LeaveOneOutMachine
from .perceptron import (
    HalvingResult,
    KernelPerceptron,
    Perceptron,
    halving_algorithm,
    perceptron_on_permutation,
)
from .rmm import (
    RelativeMarginMachine,
    RelaxedRMM,
    RMMResult,
    SigmaSVM,
    kkt_violations,
    rmm_bound,
    solve_rmm,
    solve_rmm_qp,
)
from .separability import NotSeparableError, geometric_margin, is_separable
from .smo import DualDivergenceError, SMOResult, solve_smo
from .svm import NuSupportVectorMachine, SupportVectorMachine

__all__ = [
    "NotSeparableError", "is_separable", "geometric_margin", "Perceptron", "KernelPerceptron",
    "perceptron_on_permutation", "halving_algorithm", "HalvingResult", "SMOResult", "solve_smo",
    "DualDivergenceError", "SupportVectorMachine", "NuSupportVectorMachine", "LeaveOneOutMachine",
    "AdaptiveMarginMachine", "RMMResult", "solve_rmm", "solve_rmm_qp", "kkt_violations",
    "rmm_bound", "RelativeMarginMachine", "RelaxedRMM", "SigmaSVM",
]
