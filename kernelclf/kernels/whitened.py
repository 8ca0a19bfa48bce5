"""Book chapter 13 (``book/13_relative_margin_machines.md``): the whitened kernel of the Sigma-SVM.

RMM §3.1 (Shivaswamy & Jebara 2010): the base kernel's feature vectors, centred and
whitened by a blend of the identity and their covariance on a reference sample, give a
new kernel ``k-hat``; a plain SVM with ``k-hat`` is the Sigma-SVM
(:class:`kernelclf.margin.rmm.SigmaSVM`).
"""
from __future__ import annotations

import contextlib
import hashlib
import numbers
from collections import OrderedDict

import numpy as np

from .closure import Kernel, _as_vectors
from .vector import as_kernel

__all__ = ["WhitenedKernel"]

_EIGH_MEMO = None       # an OrderedDict while _eigh_memo() is active


@contextlib.contextmanager
def _eigh_memo(maxsize=64):
    """Within the block, :meth:`WhitenedKernel.fit` reuses the eigendecomposition of a centred
    Gram matrix it has met before (keyed by the matrix's bytes; at most ``maxsize`` kept).

    The decomposition does not depend on ``D``, so a grid over the Sigma-SVM's C and D on one
    sample needs it once; the results are bit-identical (the same ``eigh`` of the same bytes).
    Used by the Table 2 validation grids (:mod:`kernelclf.experiments.rmm`).
    """
    global _EIGH_MEMO
    outer, _EIGH_MEMO = _EIGH_MEMO, OrderedDict()
    _EIGH_MEMO.maxsize = int(maxsize)
    try:
        yield _EIGH_MEMO
    finally:
        _EIGH_MEMO = outer


def _eigh(Kc):
    memo = _EIGH_MEMO
    if memo is None:
        return np.linalg.eigh(Kc)
    key = (Kc.shape, hashlib.blake2b(np.ascontiguousarray(Kc).tobytes(), digest_size=20).digest())
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    out = np.linalg.eigh(Kc)
    memo[key] = out
    while len(memo) > memo.maxsize:
        memo.popitem(last=False)
    return out


class WhitenedKernel(Kernel):
    """The whitened kernel ``k-hat`` of the Sigma-SVM (RMM §3.1; Shivaswamy & Jebara 2010).

    For a base kernel ``k`` with feature map ``phi`` and a reference sample
    ``x_1..x_n`` (the training inputs, set by :meth:`fit`), with feature-space mean
    ``mu`` and covariance ``Sigma`` (``1/n`` normalisation),

    ``k-hat(x, x') = (phi(x) - mu)' ((1 - D) I + D Sigma)^{-1} (phi(x') - mu)``.

    By the Woodbury identity (the formula of RMM §3.1) this is

    ``k-hat(x, x') = [kc(x, x') - kc_x^T (c I + Kc)^{-1} kc_{x'}] / (1 - D)``,
    ``c = n (1 - D) / D``,

    where ``kc`` is the kernel centred on the reference sample, ``Kc`` its centred
    Gram matrix and ``kc_x`` the vector ``kc(x_j, x)``. The inverse is applied through
    one eigendecomposition of ``Kc`` (O(n^3), done once in :meth:`fit`; solve, don't
    invert). ``D = 0`` gives the centred kernel (the SVM on centred data);
    ``D -> 1`` whitens completely (affine invariance, RMM eq. 7).

    Parameters
    ----------
    kernel : kernel object, name or callable (default linear)
    D : float in [0, 1)

    Attributes (after ``fit``)
    --------------------------
    X_ref_ : the reference inputs
    train_gram_ : (n, n) array, ``k-hat`` on the reference inputs
    """

    def __init__(self, kernel=None, D=0.5):
        self.kernel = kernel
        self.D = D

    @property
    def accepts_strings(self):
        return bool(getattr(as_kernel(self.kernel), "accepts_strings", False))

    @property
    def accepts_sparse(self):
        return bool(getattr(as_kernel(self.kernel), "accepts_sparse", False))

    def _validate(self, X, Y):
        return X, (X if Y is None else Y)

    def _check_D(self):
        D = self.D
        if isinstance(D, bool) or not isinstance(D, numbers.Real) or not 0 <= D < 1:
            raise ValueError(f"D must be a real number in [0, 1), got {D!r}")
        return float(D)

    def fit(self, X):
        """Set the reference sample (mean, covariance) to ``X``; returns ``self``."""
        D = self._check_D()
        base = as_kernel(self.kernel)
        if not base.accepts_strings:
            X = _as_vectors(X, sparse=bool(getattr(base, "accepts_sparse", False)))
        base = base.resolve(X)            # e.g. RBF(sigma='scale'): the reference sample's
        K = np.asarray(base(X), dtype=float)
        n = K.shape[0]
        col = K.mean(axis=0)
        tot = float(col.mean())
        Kc = K - col[None, :] - col[:, None] + tot
        Kc = 0.5 * (Kc + Kc.T)
        self.base_ = base
        self.X_ref_ = X
        self.col_mean_ = col
        self.total_mean_ = tot
        if D > 0:
            ev, U = _eigh(Kc)
            ev = np.maximum(ev, 0.0)
            c = n * (1.0 - D) / D
            self.proj_ = U / np.sqrt(c + ev)[None, :]
            Z = Kc @ self.proj_
            G = (Kc - Z @ Z.T) / (1.0 - D)
        else:
            self.proj_ = None
            G = Kc
        self.train_gram_ = 0.5 * (G + G.T)
        return self

    def resolve(self, X):
        """A fitted whitened kernel is returned as it is (its base kernel was resolved on
        the reference sample by :meth:`fit`)."""
        if hasattr(self, "X_ref_"):
            return self
        return super().resolve(X)

    def _centred_rows(self, X):
        """``(kc(x, x_j))_j`` and ``mean_j k(x, x_j)`` for the rows of ``X``."""
        if not hasattr(self, "X_ref_"):
            raise ValueError("WhitenedKernel is data-dependent: call fit(X_reference) first")
        R = np.asarray(self.base_(X, self.X_ref_), dtype=float)
        rmean = R.mean(axis=1)
        return R - self.col_mean_[None, :] - rmean[:, None] + self.total_mean_, rmean

    def _gram(self, X, Y):
        D = self._check_D()
        cX, mX = self._centred_rows(X)
        if Y is X:
            cY, mY = cX, mX
        else:
            cY, mY = self._centred_rows(Y)
        Kxy = np.asarray(self.base_(X, Y), dtype=float) - mX[:, None] - mY[None, :] + \
            self.total_mean_
        if self.proj_ is None:
            return Kxy
        ZX = cX @ self.proj_
        ZY = ZX if Y is X else cY @ self.proj_
        return (Kxy - ZX @ ZY.T) / (1.0 - D)

    def diag(self, X):
        D = self._check_D()
        cX, mX = self._centred_rows(X)
        d = np.asarray(self.base_.diag(X), dtype=float) - 2.0 * mX + self.total_mean_
        if self.proj_ is None:
            return d
        ZX = cX @ self.proj_
        return (d - np.einsum("ij,ij->i", ZX, ZX)) / (1.0 - D)
