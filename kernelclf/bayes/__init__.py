"""Bayesian kernel classifiers: Gaussian processes, relevance vector machines and Fisher
discriminants (book chapters 06-09; LKC Ch. 3, TR 99-11).

Book chapters 06 and 07 (``book/06_bayesian_learning.md``, ``book/07_gaussian_processes.md``);
also chapters 08 and 09.

* :mod:`~kernelclf.bayes.gp_regression` - Gaussian process regression, the ARD kernel (LKC §3.2.1)
* :mod:`~kernelclf.bayes.gp` - Gaussian process classification, Laplace approximation (LKC §3.2.2)
* :mod:`~kernelclf.bayes.gp_evidence` - its Laplace evidence and evidence maximisation (LKC §3.2, B.7)
* :mod:`~kernelclf.bayes.rvm_evidence` - the sparse Bayesian prior and solver steps of the RVMs (LKC §3.3)
* :mod:`~kernelclf.bayes.rvm_regression` - relevance vector regression (LKC §3.3, Alg. 6)
* :mod:`~kernelclf.bayes.rvm` - relevance vector classification (LKC §3.3, Alg. 7)
* :mod:`~kernelclf.bayes.fisher` - Fisher and kernel Fisher discriminants (LKC §3.5)
"""
from .fisher import FisherDiscriminant, KernelFisherDiscriminant, fisher_criterion
from .gp import (
    GaussianProcessClassifier,
    class_likelihood,
    hinge_likelihood,
    laplace_mode,
    sigmoid_loss,
    softplus,
    stable_sigmoid,
)
from .gp_evidence import laplace_evidence, maximise_laplace_evidence
from .gp_regression import ARDRBF, GaussianProcessRegressor, TargetOffsetWarning
from .rvm import RelevanceVectorClassifier
from .rvm_evidence import marginal_weight_prior
from .rvm_regression import RelevanceVectorRegressor

__all__ = [
    "ARDRBF", "GaussianProcessRegressor", "TargetOffsetWarning", "GaussianProcessClassifier", "laplace_mode",
    "stable_sigmoid", "softplus", "class_likelihood", "sigmoid_loss", "hinge_likelihood",
    "RelevanceVectorRegressor", "RelevanceVectorClassifier", "marginal_weight_prior",
    "FisherDiscriminant", "KernelFisherDiscriminant", "fisher_criterion", "laplace_evidence",
    "maximise_laplace_evidence",
]
