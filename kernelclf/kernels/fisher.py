"""Fisher scores and Fisher kernels from generative models.

Book chapter 02b (``book/02b_string_kernels.md``); LKC §2.3.2 "Kernels from
Probabilistic Models of the Data": Definitions 2.26-2.27, eq. (2.31)-(2.33),
Example 2.28; Jaakkola & Haussler (1999).

A model object provides ``log_likelihood(X)`` (one value per object) and
``score(X)``, the Fisher score ``f_theta(x) = d ln P_theta(x) / d theta``
(LKC Def. 2.26) as a matrix with one row per object.  Parameters are treated
as free coordinates, exactly as LKC does for the mixing weights in eq. (2.33)
(``d ln P / d pi_j = P_j(x) / P(x)``): no simplex constraint is imposed, so the
scores are the plain partial derivatives of the log-likelihood.

:class:`FisherKernel` turns a model into a kernel: the naive Fisher kernel
``f(x)' f(x')`` (information matrix taken as the identity) or the Fisher
kernel ``f(x)' I^{-1} f(x')`` with an information matrix such as the
empirical one from :func:`fisher_information`.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

from .closure import Kernel
from .strings import check_strings

__all__ = ["GaussianMixtureScore", "MarkovChainScore", "FisherKernel",
           "fisher_information"]


class GaussianMixtureScore(BaseEstimator):
    """Gaussian mixture with diagonal covariances and its Fisher score.

    ``P(x) = sum_j pi_j N(x; mu_j, diag(var_j))`` (LKC eq. 2.31).  The score
    has, in this order, the ``K`` columns ``d/d pi_j = P_j(x)/P(x)`` (LKC
    p. 45), the ``K*d`` columns ``d/d mu_jk = gamma_j(x) (x_k - mu_jk)/var_jk``
    and the ``K*d`` columns
    ``d/d var_jk = gamma_j(x) ((x_k - mu_jk)^2 / var_jk - 1) / (2 var_jk)``,
    where ``gamma_j(x) = pi_j P_j(x) / P(x)`` is the responsibility.

    Parameters
    ----------
    weights : array of shape (K,)
        Mixing weights (positive).
    means : array of shape (K, d)
    variances : array of shape (K, d)
        Diagonal variances (positive).
    """

    accepts_strings = False

    def __init__(self, weights, means, variances):
        self.weights = weights
        self.means = means
        self.variances = variances

    @classmethod
    def from_sklearn(cls, mixture):
        """Wrap a fitted ``sklearn.mixture.GaussianMixture`` with
        ``covariance_type`` ``'diag'`` or ``'spherical'``."""
        kind = mixture.covariance_type
        if kind not in ("diag", "spherical"):
            raise ValueError(f"only 'diag' or 'spherical' mixtures are supported, got {kind!r}")
        var = np.asarray(mixture.covariances_, dtype=float)
        if kind == "spherical":
            var = np.repeat(var[:, None], mixture.means_.shape[1], axis=1)
        return cls(np.array(mixture.weights_, dtype=float), np.array(mixture.means_), var)

    def _params(self):
        w = np.atleast_1d(np.asarray(self.weights, dtype=float))
        mu = np.asarray(self.means, dtype=float)
        if mu.ndim == 1:
            mu = mu[:, None]
        var = np.asarray(self.variances, dtype=float).reshape(mu.shape)
        if w.shape != (mu.shape[0],):
            raise ValueError(f"weights has shape {w.shape} but means has {mu.shape[0]} rows")
        if np.any(w <= 0) or np.any(var <= 0):
            raise ValueError("weights and variances must be positive")
        return w, mu, var

    def check_X(self, X):
        """Validate ``X`` as an ``(m, d)`` float array (1-D input is one feature)."""
        if np.ndim(X) == 1:
            X = np.asarray(X, dtype=float)[:, None]
        X = check_array(X, dtype=np.float64, ensure_all_finite=True)
        d = self._params()[1].shape[1]
        if X.shape[1] != d:
            raise ValueError(f"X has {X.shape[1]} features but the mixture has {d}")
        return X

    def _component_logpdf(self, X):
        w, mu, var = self._params()
        diff2 = (X[:, None, :] - mu[None]) ** 2 / var[None]
        return -0.5 * (diff2.sum(-1) + np.log(2 * np.pi * var).sum(-1)[None]), w, mu, var

    def log_likelihood(self, X):
        """``ln P(x_i)`` for every row of ``X``."""
        X = self.check_X(X)
        lp, w, _, _ = self._component_logpdf(X)
        return logsumexp(lp + np.log(w)[None], axis=1)

    def score(self, X):
        """Fisher score matrix of shape ``(m, K + 2 K d)`` (see class docstring)."""
        X = self.check_X(X)
        lp, w, mu, var = self._component_logpdf(X)
        logp = logsumexp(lp + np.log(w)[None], axis=1)
        ratio = np.exp(lp - logp[:, None])             # P_j(x) / P(x)
        gamma = ratio * w[None]
        diff = X[:, None, :] - mu[None]
        d_mu = gamma[:, :, None] * diff / var[None]
        d_var = gamma[:, :, None] * (diff ** 2 / var[None] - 1.0) / (2.0 * var[None])
        m = len(X)
        return np.hstack([ratio, d_mu.reshape(m, -1), d_var.reshape(m, -1)])


class MarkovChainScore(BaseEstimator):
    """First-order Markov chain on strings and its Fisher score.

    ``ln P(s) = ln p0[s_1] + sum_t ln A[s_{t-1}, s_t]``.  With the entries of
    ``p0`` and ``A`` as free parameters the score is
    ``d/d p0[a] = [s_1 = a] / p0[a]`` and ``d/d A[a, b] = n_ab(s) / A[a, b]``
    where ``n_ab(s)`` counts the transitions ``a -> b`` in ``s``; these are the
    sufficient statistics scaled by the parameters (LKC Example 2.28).  The
    empty string has probability 1 (log-likelihood 0) and score 0.

    Parameters
    ----------
    alphabet : str
        The symbols, in the order of the rows of ``transition``.
    initial : array of shape (A,)
    transition : array of shape (A, A)
        Row-stochastic transition matrix (positive entries).
    """

    accepts_strings = True

    def __init__(self, alphabet, initial, transition):
        self.alphabet = alphabet
        self.initial = initial
        self.transition = transition

    @classmethod
    def from_sequences(cls, sequences, alphabet=None, pseudocount=1.0):
        """Maximum-likelihood estimate with ``pseudocount`` added to every count."""
        seqs = check_strings(sequences, "sequences")
        if alphabet is None:
            alphabet = "".join(sorted(set("".join(seqs))))
        if not alphabet:
            raise ValueError("cannot fit a Markov chain without any symbols")
        model = cls(alphabet, np.ones(len(alphabet)), np.ones((len(alphabet),) * 2))
        first, trans = model._counts(seqs)
        p0 = first.sum(0) + pseudocount
        A = trans.sum(0) + pseudocount
        if np.any(A.sum(1) <= 0) or p0.sum() <= 0:
            raise ValueError("every symbol needs a count; use pseudocount > 0")
        return cls(alphabet, p0 / p0.sum(), A / A.sum(1, keepdims=True))

    def _index(self):
        return {c: i for i, c in enumerate(self.alphabet)}

    def _counts(self, seqs):
        idx = self._index()
        n = len(self.alphabet)
        first = np.zeros((len(seqs), n))
        trans = np.zeros((len(seqs), n, n))
        for r, s in enumerate(seqs):
            try:
                codes = np.array([idx[c] for c in s], dtype=int)
            except KeyError as e:
                raise ValueError(f"symbol {e.args[0]!r} of sequence {r} is not in the "
                                 f"alphabet {self.alphabet!r}") from None
            if len(codes):
                first[r, codes[0]] = 1.0
                np.add.at(trans[r], (codes[:-1], codes[1:]), 1.0)
        return first, trans

    def _params(self):
        p0 = np.asarray(self.initial, dtype=float)
        A = np.asarray(self.transition, dtype=float)
        n = len(self.alphabet)
        if p0.shape != (n,) or A.shape != (n, n):
            raise ValueError(f"initial must have shape ({n},) and transition ({n}, {n})")
        if np.any(p0 <= 0) or np.any(A <= 0):
            raise ValueError("initial and transition probabilities must be positive")
        return p0, A

    def check_X(self, X):
        """Validate ``X`` as a list of strings."""
        return check_strings(X, "X")

    def log_likelihood(self, X):
        """``ln P(s)`` for every string of ``X``."""
        X = self.check_X(X)
        p0, A = self._params()
        first, trans = self._counts(X)
        return first @ np.log(p0) + trans.reshape(len(X), A.size) @ np.log(A).ravel()

    def score(self, X):
        """Fisher score matrix of shape ``(m, A + A^2)``: initial, then transition entries."""
        X = self.check_X(X)
        p0, A = self._params()
        first, trans = self._counts(X)
        return np.hstack([first / p0[None], (trans / A[None]).reshape(len(X), A.size)])


def fisher_information(model, X):
    """Empirical Fisher information ``(1/m) sum_i f(x_i) f(x_i)'`` (LKC eq. 2.32,
    with the expectation replaced by the average over a sample ``X`` drawn from,
    or used to fit, the model)."""
    F = model.score(X)
    if len(F) == 0:
        raise ValueError("fisher_information needs at least one object")
    return F.T @ F / len(F)


def _nonempty(X, name):
    if len(X) == 0:
        raise ValueError(f"the Fisher kernel needs at least one object in {name}, got an "
                         "empty input (0 samples)")
    return X


class FisherKernel(Kernel):
    """Fisher kernel ``f(x)' I^{-1} f(x')`` and naive Fisher kernel ``f(x)' f(x')``
    (LKC Definition 2.27).

    Parameters
    ----------
    model : GaussianMixtureScore or MarkovChainScore
        Any object with ``score(X)`` and ``check_X(X)``.
    information : None or array of shape (p, p)
        ``None`` gives the naive Fisher kernel (information = identity);
        otherwise the (symmetric positive definite) information matrix, e.g.
        :func:`fisher_information` on unlabelled data.
    reg : float >= 0
        Added to the diagonal of ``information`` before inverting; needed when
        it is singular (e.g. parameters that never occur in the sample).
    """

    def __init__(self, model, information=None, reg=0.0):
        self.model = model
        self.information = information
        self.reg = reg

    @property
    def accepts_strings(self):
        return bool(getattr(self.model, "accepts_strings", False))

    def _validate(self, X, Y):
        if not (hasattr(self.model, "score") and hasattr(self.model, "check_X")):
            raise TypeError(f"the model of a FisherKernel needs score(X) and check_X(X), got "
                            f"{self.model!r}")
        Xv = _nonempty(self.model.check_X(X), "X")
        if Y is None or Y is X:
            return Xv, Xv
        return Xv, _nonempty(self.model.check_X(Y), "Y")

    def _metric_solve(self, F):
        """Return ``F I^{-1}`` (or ``F`` for the naive kernel)."""
        if self.information is None:
            return F
        I = np.asarray(self.information, dtype=float)
        if I.shape != (F.shape[1], F.shape[1]):
            raise ValueError(f"information must have shape {(F.shape[1],) * 2}, got {I.shape}")
        if self.reg < 0:
            raise ValueError(f"reg must be >= 0, got {self.reg!r}")
        I = 0.5 * (I + I.T) + self.reg * np.eye(len(I))
        try:
            L = np.linalg.cholesky(I)
        except np.linalg.LinAlgError:
            raise ValueError("the information matrix is not positive definite; "
                             "pass reg > 0") from None
        return np.linalg.solve(L.T, np.linalg.solve(L, F.T)).T

    def _gram(self, X, Y):
        FX = self.model.score(X)
        FY = FX if Y is X else self.model.score(Y)
        return self._metric_solve(FX) @ FY.T

    def diag(self, X):
        Xv, _ = self._validate(X, None)
        F = self.model.score(Xv)
        return np.einsum("ij,ij->i", self._metric_solve(F), F)
