"""kernelclf: the algorithms of *Learning Kernel Classifiers* (Herbrich 2002) and the
Bayes point machine papers, implemented once, tested, and explained in the book.

Modules (one per model, named after the book's vocabulary):

* :mod:`kernelclf.kernels` - vector kernels, closure rules, Gram utilities (chapter 02)
* :mod:`kernelclf.optim` - QP/LP in the form of LKC App. D (chapter 04)
* :mod:`kernelclf.perceptron` - primal, dual and kernel perceptron (chapter 03)
* :mod:`kernelclf.datasets` - data home, checked loaders, toy generators
"""
__version__ = "0.1.0"

__all__ = ["__version__"]
