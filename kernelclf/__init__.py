"""kernelclf: the algorithms of *Learning Kernel Classifiers* (Herbrich 2002) and the
Bayes point machine papers, implemented once, tested, and explained in the book.

Book chapter 00 (``book/00_preface.md``); every module names its own chapter.

Modules (one per model, named after the book's vocabulary):

* :mod:`kernelclf.kernels` - vector kernels, closure rules, Gram utilities (chapter 02)
* :mod:`kernelclf.strings` - substring, subsequence and bag-of-words kernels (chapter 02b)
* :mod:`kernelclf.fisher_kernels` - Fisher score maps and Fisher kernels (chapter 02b)
* :mod:`kernelclf.features` - explicit feature maps: polynomial, Ex. 2.13, finite Mercer (chapter 02)
* :mod:`kernelclf.nn` - nearest neighbours and class means in feature space (chapter 01)
* :mod:`kernelclf.perceptron` - primal, dual and kernel perceptron, halving (chapter 03)
* :mod:`kernelclf.optim` - QP/LP in the form of LKC App. D (chapter 04)
* :mod:`kernelclf.smo` - SMO solver with second-order working-set selection (chapter 04)
* :mod:`kernelclf.svm` - hard, soft (L1/L2) and nu support vector machines (chapter 04)
* :mod:`kernelclf.amm` - leave-one-out error, LOO machine, adaptive margin machine (chapter 05)
* :mod:`kernelclf.gp` - Gaussian process regression and Laplace classification (chapter 07)
* :mod:`kernelclf.rvm` - relevance vector regression and classification (chapter 08)
* :mod:`kernelclf.fisher` - Fisher discriminant and kernel Fisher discriminant (chapter 09)
* :mod:`kernelclf.versionspace` - separability LP, a consistent point, margins, MC centre (chapter 10)
* :mod:`kernelclf.polygon` - Ruján's 2-D polygon billiards and centres (chapter 10)
* :mod:`kernelclf.billiard` - the kernel billiard (LKC Algorithm 10) and spherical addition (chapter 11)
* :mod:`kernelclf.rujan` - Ruján-Marchand variants: flipper, light trap, onion billiard (chapter 11)
* :mod:`kernelclf.bpm` - Bayes point machines by billiard or perceptron averaging (chapters 10-12)
* :mod:`kernelclf.experiments` - the Bayes point experiments, `python -m kernelclf.experiments` (chapter 12)
* :mod:`kernelclf.datasets` - data home, checked loaders, fetch CLI, toy generators
* :mod:`kernelclf.base` - label handling and the decision function shared by estimators
"""
__version__ = "0.1.0"

__all__ = ["__version__"]
