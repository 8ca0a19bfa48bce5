"""kernelclf: the algorithms of *Learning Kernel Classifiers* (Herbrich 2002) and of the
papers around it, implemented once, tested, and explained in the book.

Book chapter 00 (``book/00_preface.md``); every module names its own chapter.

The families, in the order of the book (each a subpackage; every public estimator and
kernel is also importable from here, e.g. ``from kernelclf import SupportVectorMachine,
RBF, report``):

* :mod:`kernelclf.kernels` - vector kernels, Gram matrices, string and Fisher kernels,
  explicit feature maps (chapters 02, 02b)
* :mod:`kernelclf.neighbors` - nearest neighbours and class means in feature space
  (chapter 01)
* :mod:`kernelclf.margin` - perceptron, support vector machines and SMO, leave-one-out
  and adaptive margin machines, relative margin machines (chapters 03-05, 13)
* :mod:`kernelclf.bayes` - Gaussian processes, relevance vector machines, Fisher
  discriminants (chapters 06-09)
* :mod:`kernelclf.bayespoint` - version space, billiards, Bayes point machines
  (chapters 10-12)
* :mod:`kernelclf.bounds` - learning-theory bounds and the bound report (chapters 05,
  14-18, appendix A)
* :mod:`kernelclf.multiclass` - one-versus-one, DAG and one-versus-rest wrappers
* :mod:`kernelclf.datasets` - the data home, checked loaders, toy generators
* :mod:`kernelclf.experiments` - the sources' experimental protocols and their command
  line (chapters 12-13)

and beneath them :mod:`kernelclf.base` (the estimator contract), :mod:`kernelclf.optim`
(QP and LP in the form of LKC App. D), :mod:`kernelclf.progress` (progress bars) and
:mod:`kernelclf.discovery` (the list of public estimators). The book's own tooling
(reader notebooks, the in-browser lab, widgets) lives apart in :mod:`kernelclf.book`
and needs the ``book`` extra.
"""
from . import _compile_notice
from .bayes import (
    ARDRBF,
    FisherDiscriminant,
    GaussianProcessClassifier,
    GaussianProcessRegressor,
    KernelFisherDiscriminant,
    RelevanceVectorClassifier,
    RelevanceVectorRegressor,
)
from .bayespoint import BayesPointMachine
from .bounds import format_report, report
from .kernels import (
    RBF,
    AllSubstringsKernel,
    BagOfWordsKernel,
    CallableKernel,
    Constant,
    Exponential,
    FisherKernel,
    InducedRBF,
    Kernel,
    Linear,
    Mahalanobis,
    Normalized,
    Polynomial,
    Product,
    Scaled,
    SpectrumKernel,
    SubsequenceKernel,
    Sum,
    WhitenedKernel,
)
from .margin import (
    AdaptiveMarginMachine,
    KernelPerceptron,
    LeaveOneOutMachine,
    NuSupportVectorMachine,
    NuSupportVectorRegression,
    OneClassSupportVectorMachine,
    Perceptron,
    RelativeMarginMachine,
    RelaxedRMM,
    SigmaSVM,
    SupportVectorMachine,
    SupportVectorRegression,
    UniversumSVM,
)
from .multiclass import DAGClassifier, OneVsOneClassifier, OneVsRestClassifier
from .neighbors import KernelNearestCentroid, KernelNearestNeighbors

__version__ = "0.1.0"

# a one-line notice while numba compiles the package's loops on first use
_compile_notice.install()

__all__ = [
    # kernels (chapters 02, 02b)
    "Kernel", "Linear", "Polynomial", "RBF", "Mahalanobis", "Constant", "Sum", "Product",
    "Scaled", "Normalized", "Exponential", "InducedRBF", "CallableKernel", "WhitenedKernel",
    "ARDRBF", "SpectrumKernel", "AllSubstringsKernel", "BagOfWordsKernel", "SubsequenceKernel",
    "FisherKernel",
    # estimators (chapters 01-13)
    "KernelNearestNeighbors", "KernelNearestCentroid", "Perceptron", "KernelPerceptron",
    "SupportVectorMachine", "NuSupportVectorMachine", "SupportVectorRegression", "UniversumSVM",
    "NuSupportVectorRegression", "OneClassSupportVectorMachine", "LeaveOneOutMachine",
    "AdaptiveMarginMachine", "RelativeMarginMachine", "RelaxedRMM", "SigmaSVM",
    "GaussianProcessRegressor", "GaussianProcessClassifier", "RelevanceVectorRegressor",
    "RelevanceVectorClassifier", "FisherDiscriminant", "KernelFisherDiscriminant",
    "BayesPointMachine", "OneVsOneClassifier", "DAGClassifier", "OneVsRestClassifier",
    # the bound report (chapter 18)
    "report", "format_report",
    "__version__",
]
