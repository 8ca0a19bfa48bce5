"""Margin machines: separability, the perceptron, support vector machines and their SMO
solver, the leave-one-out and adaptive margin machines, relative margin machines
(book chapters 03-05, 10 and 13 and the scikit-learn guide; LKC Ch. 2, RMM).

Book chapters 03 and 04 (``book/03_perceptron.md``, ``book/04_support_vector_machines.md``);
also chapters 05, 10 and 13 and the scikit-learn guide.

* :mod:`~kernelclf.margin.separability` - is a sample separable; geometric margins (LKC Def. 2.30)
* :mod:`~kernelclf.margin.perceptron` - primal, dual and kernel perceptron, halving (LKC §2.2.1, §2.3, §5.2.2)
* :mod:`~kernelclf.margin.smo` - the SMO solver with second-order working-set selection
* :mod:`~kernelclf.margin.svm` - hard and soft (L1/L2) support vector machines (LKC §2.4)
* :mod:`~kernelclf.margin.nu_svm` - the nu support vector machine (LKC eq. 2.52)
* :mod:`~kernelclf.margin.svr` - epsilon-support vector regression (LKC §2.4.4)
* :mod:`~kernelclf.margin.nu_svr` - nu-support vector regression (Schölkopf et al. 2000)
* :mod:`~kernelclf.margin.one_class` - the one-class SVM (Schölkopf et al. 2001)
* :mod:`~kernelclf.margin.platt` - Platt's sigmoid: the SVMs' probabilities (Platt 1999)
* :mod:`~kernelclf.margin.amm` - leave-one-out and adaptive margin machines (LKC §2.5)
* :mod:`~kernelclf.margin.rmm` - relative margin machines (Shivaswamy and Jebara 2010)
* :mod:`~kernelclf.margin.rmm_solver` - the RMM's dual on the SVMs' SMO (3m variables, RMM §3.3)
* :mod:`~kernelclf.margin.rmm_theory` - the RMM's side forms (Chebyshev, affine map, SDP dual; RMM §2, §3)
* :mod:`~kernelclf.margin.universum` - the Universum SVM of RMM §5.4.1 (Weston et al. 2006)
"""
from .amm import AdaptiveMarginMachine, LeaveOneOutMachine
from .nu_svm import NuSupportVectorMachine
from .nu_svr import NuSupportVectorRegression
from .one_class import OneClassSupportVectorMachine
from .perceptron import (
    HalvingResult,
    KernelPerceptron,
    Perceptron,
    halving_algorithm,
    perceptron_on_permutation,
)
from .platt import fit_platt_sigmoid
from .rmm import (
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    kkt_violations,
    rmm_bound,
    solve_rmm_qp,
)
from .rmm_solver import RMMResult, solve_rmm
from .separability import (
    MarginBounds,
    NotSeparableError,
    Separability,
    SeparabilityUndecidedError,
    check_separability,
    geometric_margin,
    hard_margin_bounds,
    is_separable,
)
from .smo import DualDivergenceError, SMOResult, solve_smo
from .svm import SupportVectorMachine
from .svr import SupportVectorRegression
from .universum import UniversumSVM

__all__ = [
    "NotSeparableError", "SeparabilityUndecidedError", "MarginBounds", "Separability",
    "hard_margin_bounds", "check_separability", "is_separable", "geometric_margin", "Perceptron",
    "KernelPerceptron", "perceptron_on_permutation", "halving_algorithm", "HalvingResult",
    "SMOResult", "solve_smo", "DualDivergenceError", "SupportVectorMachine",
    "NuSupportVectorMachine", "fit_platt_sigmoid", "LeaveOneOutMachine", "AdaptiveMarginMachine",
    "RMMResult", "solve_rmm", "solve_rmm_qp", "kkt_violations", "rmm_bound",
    "RelativeMarginMachine", "RelaxedRMM", "SigmaSVM", "SupportVectorRegression", "UniversumSVM",
    "NuSupportVectorRegression", "OneClassSupportVectorMachine",
]
