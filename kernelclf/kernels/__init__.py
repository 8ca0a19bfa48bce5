"""Kernels: vector kernels, Gram-matrix access, string kernels, Fisher kernels and
explicit feature maps (book chapters 02 and 02b; LKC Ch. 2, §2.3).

Book chapters 02 and 02b (``book/02_kernels.md``, ``book/02b_string_kernels.md``).

* :mod:`~kernelclf.kernels.closure` - the kernel object and the closure rules (LKC Thm 2.20)
* :mod:`~kernelclf.kernels.vector` - vector kernels and kernel names (LKC Table 2.1)
* :mod:`~kernelclf.kernels.gram_ops` - a Gram matrix's PSD test, centring, normalisation
* :mod:`~kernelclf.kernels.whitened` - the whitened kernel of the Sigma-SVM (RMM §3.1)
* :mod:`~kernelclf.kernels.rows` - rows of arrays and lists of strings alike
* :mod:`~kernelclf.kernels.gram` - Gram matrices: columns, caches and products
* :mod:`~kernelclf.kernels.gram_guard` - the Gram matrix's numerical guard and memory limit
* :mod:`~kernelclf.kernels.hyper` - log hyperparameters and Gram derivatives (evidence maximisation)
* :mod:`~kernelclf.kernels.strings` - substring, subsequence and bag-of-words kernels (LKC §2.3.2)
* :mod:`~kernelclf.kernels.subsequence` - the subsequence kernel's dynamic programme
* :mod:`~kernelclf.kernels.fisher` - Fisher score maps and Fisher kernels (LKC §2.3.2)
* :mod:`~kernelclf.kernels.features` - explicit feature maps (polynomial, Ex. 2.13, finite Mercer)
"""
from .closure import (
    CallableKernel,
    Constant,
    Exponential,
    InducedRBF,
    Kernel,
    Normalized,
    Product,
    Scaled,
    Sum,
)
from .features import (
    MercerFeatures,
    exponent_vectors,
    feature_dimension,
    mercer_features,
    polynomial_features,
    quadratic_decision_curve,
    quadratic_feature_map,
)
from .fisher import FisherKernel, GaussianMixtureScore, MarkovChainScore, fisher_information
from .gram import ColumnCache, ColumnSlots, Gram, Replicated, as_gram, cross_gram
from .gram_guard import (
    DegenerateKernelWarning,
    GramMemoryError,
    IndefiniteKernelError,
    available_memory,
    check_gram,
    check_memory,
    get_gram_checks,
    get_memory_limit,
    gram_checks,
    memory_limit,
    set_gram_checks,
    set_memory_limit,
)
from .gram_ops import (
    add_diagonal,
    center_gram,
    feature_space_distances,
    is_psd,
    min_eigenvalue,
    normalize_gram,
)
from .hyper import gram_and_gradient, hyperparameter_names, kernel_theta, kernel_with_theta
from .rows import check_strings, n_rows, take_rows
from .strings import (
    AllSubstringsKernel,
    BagOfWordsKernel,
    SpectrumKernel,
    SubsequenceKernel,
    idf_weights,
    subsequence_dp_tables,
    subsequence_features,
    subsequence_kernel_levels,
)
from .vector import RBF, Linear, Mahalanobis, Polynomial, as_kernel, scale_gamma, scale_sigma
from .whitened import WhitenedKernel

__all__ = [
    "Kernel", "Linear", "Polynomial", "RBF", "Mahalanobis", "Constant", "Sum", "Product", "Scaled",
    "Normalized", "Exponential", "InducedRBF", "CallableKernel", "as_kernel", "is_psd",
    "min_eigenvalue", "center_gram", "normalize_gram", "add_diagonal", "feature_space_distances",
    "WhitenedKernel", "scale_sigma", "scale_gamma", "n_rows", "take_rows", "check_strings", "Gram", "as_gram",
    "ColumnCache", "ColumnSlots", "Replicated", "IndefiniteKernelError", "gram_checks", "set_gram_checks",
    "get_gram_checks", "check_gram", "cross_gram", "DegenerateKernelWarning", "GramMemoryError",
    "check_memory", "available_memory", "set_memory_limit", "get_memory_limit", "memory_limit",
    "SpectrumKernel", "AllSubstringsKernel", "BagOfWordsKernel", "SubsequenceKernel",
    "subsequence_kernel_levels", "subsequence_dp_tables", "subsequence_features", "idf_weights",
    "GaussianMixtureScore", "MarkovChainScore", "FisherKernel", "fisher_information",
    "feature_dimension", "exponent_vectors", "polynomial_features", "quadratic_feature_map",
    "quadratic_decision_curve", "MercerFeatures", "mercer_features", "kernel_theta",
    "kernel_with_theta", "gram_and_gradient", "hyperparameter_names",
]
