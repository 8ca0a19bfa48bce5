"""Kernel hyperparameters on the log scale, and the derivatives of the Gram matrix.

Book chapter 07 (``book/07_gaussian_processes.md``); LKC §3.2 (evidence maximisation,
p. 86; the ARD kernel of Ex. 3.11-3.12) and Theorems A.96-A.97 (the derivatives of an
inverse and of a log determinant, which need ``dG / d theta``).

Evidence maximisation (:class:`kernelclf.bayes.gp_regression.GaussianProcessRegressor`,
:class:`kernelclf.bayes.gp.GaussianProcessClassifier`) works on the logarithms
``theta`` of a kernel's positive parameters, with the derivatives of the Gram matrix
with respect to them:

* :class:`~kernelclf.kernels.vector.RBF` - ``[ln sigma]``;
  ``dK / d ln sigma = K * ||x - x'||^2 / sigma^2``;
* :class:`~kernelclf.kernels.closure.Constant` - ``[ln c]`` (for ``c > 0``);
* :class:`~kernelclf.kernels.closure.Scaled` ``c * k`` - ``[ln c, theta(k)...]``
  (scikit-learn's ``ConstantKernel * RBF`` is ``c * RBF(sigma)``);
* :class:`~kernelclf.kernels.closure.Sum` and :class:`~kernelclf.kernels.closure.Product`
  - the parts' parameters, in order (sum and product rules);
* a kernel with its own ``theta``, ``with_theta`` and ``gram_and_gradient``
  (:class:`~kernelclf.bayes.gp_regression.ARDRBF`) - those;
* any other kernel has no free parameters here (it is kept fixed).

Data-driven parameters (``sigma='scale'``) must be fixed first
(:meth:`~kernelclf.kernels.closure.Kernel.resolve`), as every estimator does when it fits.
"""
from __future__ import annotations

import numpy as np

from .closure import Constant, Product, Scaled, Sum, _check_vectors
from .vector import RBF, _rbf_like, squared_distances

__all__ = ["kernel_theta", "kernel_with_theta", "gram_and_gradient", "hyperparameter_names"]


def _own(kernel):
    return all(callable(getattr(kernel, n, None)) for n in ("with_theta", "gram_and_gradient"))


def _rbf_sigma(kernel):
    sigma = kernel.sigma
    if isinstance(sigma, str):
        raise ValueError(f"{kernel!r} has no numeric width yet; call resolve(X_train) first")
    return float(sigma)


def hyperparameter_names(kernel, prefix=""):
    """The names of the entries of :func:`kernel_theta` (``'ln sigma'``, ``'k1: ln c'``...)."""
    if _own(kernel):
        n = len(np.atleast_1d(kernel.theta))
        return [f"{prefix}theta[{i}]" for i in range(n)]
    if isinstance(kernel, RBF):
        return [prefix + "ln sigma"]
    if isinstance(kernel, Constant):
        return [prefix + "ln c"] if float(kernel.c) > 0 else []
    if isinstance(kernel, Scaled):
        return [prefix + "ln c"] + hyperparameter_names(kernel.kernel, prefix + "kernel: ")
    if isinstance(kernel, (Sum, Product)):
        return (hyperparameter_names(kernel.k1, prefix + "k1: ")
                + hyperparameter_names(kernel.k2, prefix + "k2: "))
    return []


def kernel_theta(kernel):
    """The log hyperparameters of ``kernel`` as a 1-D array (empty for a fixed kernel)."""
    if _own(kernel):
        return np.atleast_1d(np.asarray(kernel.theta, dtype=float))
    if isinstance(kernel, RBF):
        return np.array([np.log(_rbf_sigma(kernel))])
    if isinstance(kernel, Constant):
        return np.array([np.log(float(kernel.c))]) if float(kernel.c) > 0 else np.empty(0)
    if isinstance(kernel, Scaled):
        return np.concatenate([[np.log(float(kernel.c))], kernel_theta(kernel.kernel)])
    if isinstance(kernel, (Sum, Product)):
        return np.concatenate([kernel_theta(kernel.k1), kernel_theta(kernel.k2)])
    return np.empty(0)


def kernel_with_theta(kernel, theta):
    """A copy of ``kernel`` with log hyperparameters ``theta`` (``kernel`` itself when it
    has none)."""
    theta = np.asarray(theta, dtype=float)
    if _own(kernel):
        return kernel.with_theta(theta)
    if isinstance(kernel, RBF):                # (in the user's parameterisation)
        return _rbf_like(kernel, float(np.exp(theta[0])))
    if isinstance(kernel, Constant):
        return Constant(float(np.exp(theta[0]))) if len(theta) else kernel
    if isinstance(kernel, Scaled):
        return Scaled(kernel_with_theta(kernel.kernel, theta[1:]), float(np.exp(theta[0])))
    if isinstance(kernel, (Sum, Product)):
        n1 = len(kernel_theta(kernel.k1))
        return type(kernel)(kernel_with_theta(kernel.k1, theta[:n1]),
                            kernel_with_theta(kernel.k2, theta[n1:]))
    return kernel


def gram_and_gradient(kernel, X):
    """The Gram matrix ``K`` of ``X`` and ``dK / d theta_j`` stacked on the last axis
    (shape ``(m, m, len(theta))``)."""
    if _own(kernel):
        return kernel.gram_and_gradient(X)
    if isinstance(kernel, RBF):
        X, _ = _check_vectors(X)
        sigma = _rbf_sigma(kernel)
        Xs = X / sigma
        d2 = squared_distances(Xs, Xs)
        K = np.exp(-0.5 * d2)
        return K, (K * d2)[:, :, None]
    if isinstance(kernel, Scaled):
        K, dK = gram_and_gradient(kernel.kernel, X)
        c = float(kernel.c)
        return c * K, np.concatenate([(c * K)[:, :, None], c * dK], axis=2)
    if isinstance(kernel, Sum):
        K1, d1 = gram_and_gradient(kernel.k1, X)
        K2, d2 = gram_and_gradient(kernel.k2, X)
        return K1 + K2, np.concatenate([d1, d2], axis=2)
    if isinstance(kernel, Product):
        K1, d1 = gram_and_gradient(kernel.k1, X)
        K2, d2 = gram_and_gradient(kernel.k2, X)
        return K1 * K2, np.concatenate([d1 * K2[:, :, None], K1[:, :, None] * d2], axis=2)
    K = np.asarray(kernel(X), dtype=float)
    if isinstance(kernel, Constant) and float(kernel.c) > 0:
        return K, K[:, :, None]
    return K, np.empty(K.shape + (0,))
