"""Kernels on strings: spectrum, weighted all-substrings, bag-of-words and the
gap-weighted subsequence kernel.

Book chapter 02b (``book/02b_string_kernels.md``); LKC §2.3.2 ("Kernels on
Strings", eq. 2.24-2.30) and App. B.2; Lodhi et al. (2002) for the
subsequence kernel.

All kernels take a list (or tuple / 1-D array) of Python strings and return
the Gram matrix ``K[i, j] = k(x_i, y_j)``; they set ``accepts_strings = True``
so that the package's estimators keep ``X`` as a list of strings.  Wrap any of
them in :class:`kernelclf.kernels.closure.Normalized` for ``k(s,t)/sqrt(k(s,s) k(t,t))``
(LKC eq. 2.22); every kernel here computes ``diag`` directly, without the
Gram matrix.

Erratum E1 (the errata table of book chapter 00): the factor ``lambda^{|v|-j}`` printed in LKC
eq. 2.30 has an undefined ``j``; the derivation of App. B.2.2 gives the total
factor ``lambda^{|v|-t+2}`` for the match at position ``t``.  The dynamic
programme below is the corrected one (and equals brute-force enumeration of
eq. 2.28 in ``tests/test_strings.py``).
"""
from __future__ import annotations

import math
import numbers
import re
from collections import Counter

import numpy as np
import scipy.sparse as sp

from .closure import Kernel
from .rows import check_strings
from .subsequence import (
    _FEATURE_LIMIT,
    _codes,
    _discounted_cumsum,
    _product,
    _ssk_features,
    _ssk_pairs,
)

__all__ = [
    "SpectrumKernel", "AllSubstringsKernel", "BagOfWordsKernel", "SubsequenceKernel",
    "subsequence_kernel_levels", "subsequence_dp_tables", "subsequence_features",
    "idf_weights", "check_strings",
]


# ---------------------------------------------------------------------------
# input handling


def _check_lam(lam):
    if (not isinstance(lam, numbers.Real) or isinstance(lam, bool) or not np.isfinite(lam)
            or lam <= 0):
        raise ValueError(f"lam must be a finite real number > 0, got {lam!r}")


def _check_length(value, name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


class _StringKernel(Kernel):
    """Common validation: lists of strings in, the same object twice for ``Y=None``."""

    accepts_strings = True

    def _validate(self, X, Y):
        Xv = check_strings(X, "X")
        if Y is None or Y is X:
            return Xv, Xv
        return Xv, check_strings(Y, "Y")


# ---------------------------------------------------------------------------
# substring (contiguous) kernels via sparse count matrices

def _substring_counts(strings, p):
    """Sparse ``(len(strings), V)`` matrix of counts of every length-``p`` substring."""
    rows, windows = [], []
    for i, s in enumerate(strings):
        if len(s) >= p:
            w = np.lib.stride_tricks.sliding_window_view(_codes(s), p)
            windows.append(w)
            rows.append(np.full(len(w), i))
    if not windows:
        return sp.csr_matrix((len(strings), 0))
    W = np.ascontiguousarray(np.concatenate(windows))
    keys = W.view(np.dtype((np.void, W.dtype.itemsize * p))).ravel()
    _, ids = np.unique(keys, return_inverse=True)
    rows = np.concatenate(rows)
    return sp.csr_matrix((np.ones(len(rows)), (rows, ids.ravel())),
                         shape=(len(strings), int(ids.max()) + 1))


def _spectrum_gram(X, Y, p):
    symmetric = Y is X
    C = _substring_counts(X if symmetric else X + Y, p)
    if symmetric:
        return np.asarray((C @ C.T).toarray(), dtype=float)
    Cx, Cy = C[:len(X)], C[len(X):]
    return np.asarray((Cx @ Cy.T).toarray(), dtype=float)


def _spectrum_diag(X, p):
    C = _substring_counts(X, p)
    return np.asarray(C.multiply(C).sum(axis=1), dtype=float).ravel()


class SpectrumKernel(_StringKernel):
    """p-spectrum kernel: ``k(u, v) = sum_{b in Sigma^p} #b(u) #b(v)``.

    The number of pairs of equal contiguous substrings of length exactly ``p``
    (LKC eq. 2.25 restricted to ``s = p`` with weight 1; Leslie et al.'s
    spectrum kernel).  Computed as ``C_X C_Y'`` with sparse substring-count
    matrices, ``O(p (|u| + |v|))`` per string.  Strings shorter than ``p``
    (including ``""``) have the zero feature vector.

    Parameters
    ----------
    p : int >= 1
        Substring length.
    """

    def __init__(self, p=3):
        self.p = p

    def _gram(self, X, Y):
        _check_length(self.p, "p")
        return _spectrum_gram(X, Y, self.p)

    def diag(self, X):
        _check_length(self.p, "p")
        Xv, _ = self._validate(X, None)
        return _spectrum_diag(Xv, self.p)


class AllSubstringsKernel(_StringKernel):
    """Weighted all-substrings kernel of LKC eq. (2.25):
    ``k_r(u, v) = sum_{s=1}^r lam^(2s) sum_{b in Sigma^s} #b(u) #b(v)``.

    Every common contiguous substring of length ``s <= r`` counts with weight
    ``lam^(2s)``: ``lam < 1`` favours short, ``lam > 1`` long substrings.  LKC
    App. B.2.1 evaluates it with the recursion (2.26)-(2.27) in ``O(r |u| |v|)``;
    here the same sum is formed directly as ``sum_s lam^(2s) k_spectrum_s`` with
    sparse count matrices (``O(r (|u| + |v|))`` per string), which is exact and
    faster; ``tests/test_strings.py`` checks it against the recursion and
    against enumeration.

    Parameters
    ----------
    r : int >= 1
        Longest substring length counted.
    lam : float > 0
        Length weight ``lambda``.
    """

    def __init__(self, r=3, lam=0.5):
        self.r = r
        self.lam = lam

    def _check(self):
        _check_length(self.r, "r")
        _check_lam(self.lam)

    def _levels(self, X):
        longest = max((len(s) for s in X), default=0)
        return range(1, min(self.r, longest) + 1)

    def _gram(self, X, Y):
        self._check()
        K = np.zeros((len(X), len(Y)))
        for s in self._levels(X if Y is X else X + Y):
            K += self.lam ** (2 * s) * _spectrum_gram(X, Y, s)
        return K

    def diag(self, X):
        self._check()
        Xv, _ = self._validate(X, None)
        d = np.zeros(len(Xv))
        for s in self._levels(Xv):
            d += self.lam ** (2 * s) * _spectrum_diag(Xv, s)
        return d


# ---------------------------------------------------------------------------
# bag of words

_TOKEN = r"(?u)\b\w+\b"


def _tokenize(doc, token_pattern, lowercase):
    return re.findall(token_pattern, doc.lower() if lowercase else doc)


def idf_weights(documents, token_pattern=_TOKEN, lowercase=True):
    """Inverse document frequencies ``beta_b = log(m / df_b)`` for :class:`BagOfWordsKernel`.

    LKC p. 42: the IDF of a word is the logarithm of the inverse probability
    that it occurs in a randomly chosen document; ``df_b`` counts the documents
    of ``documents`` that contain ``b`` and ``m = len(documents)``.  Words in
    every document get weight 0.

    Returns
    -------
    dict
        word -> weight.
    """
    docs = check_strings(documents, "documents")
    if not docs:
        raise ValueError("idf_weights needs at least one document")
    df = Counter()
    for d in docs:
        df.update(set(_tokenize(d, token_pattern, lowercase)))
    m = len(docs)
    return {w: math.log(m / c) for w, c in df.items()}


class BagOfWordsKernel(_StringKernel):
    """Bag-of-words kernel, LKC eq. (2.24): ``k(u, v) = sum_b beta_b^2 #b(u) #b(v)``.

    Documents are split into words with ``token_pattern`` (a regular
    expression; by default maximal runs of word characters), optionally after
    lower-casing.  ``weights=None`` gives ``beta_b = 1``; pass a mapping, e.g.
    :func:`idf_weights` of the training documents, for IDF weighting.  Words
    missing from the mapping get ``beta_b = oov_weight``.

    Parameters
    ----------
    weights : dict or None
    token_pattern : str
    lowercase : bool
    oov_weight : float >= 0
    """

    def __init__(self, weights=None, token_pattern=_TOKEN, lowercase=True, oov_weight=0.0):
        self.weights = weights
        self.token_pattern = token_pattern
        self.lowercase = lowercase
        self.oov_weight = oov_weight

    def _counts(self, docs):
        vocab, rows, cols, vals = {}, [], [], []
        for i, d in enumerate(docs):
            for w, c in Counter(_tokenize(d, self.token_pattern, self.lowercase)).items():
                j = vocab.setdefault(w, len(vocab))
                rows.append(i)
                cols.append(j)
                vals.append(c)
        beta = np.ones(len(vocab))
        if self.weights is not None:
            get = self.weights.get
            beta = np.array([get(w, self.oov_weight) for w in vocab], dtype=float)
        C = sp.csr_matrix((np.asarray(vals, dtype=float), (rows, cols)),
                          shape=(len(docs), len(vocab)))
        return C @ sp.diags(beta)

    def _gram(self, X, Y):
        if Y is X:
            C = self._counts(X)
            return np.asarray((C @ C.T).toarray(), dtype=float)
        C = self._counts(X + Y)
        return np.asarray((C[:len(X)] @ C[len(X):].T).toarray(), dtype=float)

    def diag(self, X):
        Xv, _ = self._validate(X, None)
        C = self._counts(Xv)
        return np.asarray(C.multiply(C).sum(axis=1), dtype=float).ravel()


def _use_features(method, n_symbols, n):
    if method == "dp":
        return False
    if method == "features":
        return True
    return n_symbols ** n <= _FEATURE_LIMIT


class SubsequenceKernel(_StringKernel):
    """Gap-weighted subsequence kernel (LKC eq. 2.28; Lodhi et al. 2002).

    ``k_n(u, v) = sum_{b in Sigma^n} sum_{i: u[i]=b} sum_{j: v[j]=b} lam^(l(i)+l(j))``
    where ``l(i) = i_n - i_1 + 1`` is the extent of the occurrence: every common
    subsequence of length ``n`` counts, discounted by how spread out it is.
    Computed with the ``O(n |u| |v|)`` dynamic programme of LKC App. B.2.2 in the
    corrected form (erratum E1: total factor ``lam^(|v|-t+2)`` in eq. 2.30),
    vectorised over whole DP tables and batched over pairs of strings.

    ``cumulative=False`` (default) returns ``k_n`` as in LKC and Lodhi et al.;
    ``cumulative=True`` returns ``k_1 + ... + k_n``, which is what the
    ``strkernels`` package (Shogun's definition) calls the subsequence kernel.

    Two exact algorithms: ``method="dp"`` is the pairwise dynamic programme
    above; ``method="features"`` builds the explicit feature vectors
    ``phi_u(s)`` for all ``|alphabet|^n`` subsequences ``u`` with a prefix
    recursion per string (``O(|s| |alphabet|^max(n-2, 2))`` per string) and returns
    ``Phi_X Phi_Y'``.  For small alphabets (DNA) the second is much faster;
    ``"auto"`` uses it when ``|alphabet|^n <= 32768`` (alphabet = the symbols
    occurring in ``X`` and ``Y``).

    Strings shorter than ``n`` (including ``""``) have the zero feature vector,
    so their rows are 0; :class:`kernelclf.kernels.closure.Normalized` keeps those rows 0.

    Parameters
    ----------
    n : int >= 1
        Subsequence length.
    lam : float > 0
        Decay ``lambda``; ``lam < 1`` penalises gaps (the usual range is (0, 1]).
    cumulative : bool
        Sum over lengths ``1..n`` instead of ``n`` alone.
    method : {"auto", "dp", "features"}
        Algorithm (all give the same values up to round-off).
    """

    def __init__(self, n=2, lam=0.5, cumulative=False, method="auto"):
        self.n = n
        self.lam = lam
        self.cumulative = cumulative
        self.method = method

    def _check(self):
        _check_length(self.n, "n")
        _check_lam(self.lam)
        if self.method not in ("auto", "dp", "features"):
            raise ValueError(f"method must be 'auto', 'dp' or 'features', got {self.method!r}")

    def _features(self, cx, cy):
        """Feature matrices for the explicit path, or None when the DP is used."""
        every = cx + ([] if cy is None else cy)
        alphabet = np.unique(np.concatenate(every)) if any(map(len, every)) else \
            np.zeros(0, dtype=np.int64)
        if not _use_features(self.method, len(alphabet), self.n):
            return None
        args = (alphabet, self.n, float(self.lam), bool(self.cumulative))
        return _ssk_features(cx, *args), (None if cy is None else _ssk_features(cy, *args))

    def _gram(self, X, Y):
        self._check()
        cx = [_codes(s) for s in X]
        cy = None if Y is X else [_codes(s) for s in Y]
        F = self._features(cx, cy)
        if F is not None:
            FX, FY = F
            return FX @ (FX if FY is None else FY).T
        if Y is X:
            iu, ju = np.triu_indices(len(X))
            vals = _ssk_pairs([cx[i] for i in iu], [cx[j] for j in ju],
                              self.n, float(self.lam), bool(self.cumulative))
            K = np.zeros((len(X), len(X)))
            K[iu, ju] = vals
            K[ju, iu] = vals
            return K
        ii, jj = np.meshgrid(np.arange(len(X)), np.arange(len(Y)), indexing="ij")
        ii, jj = ii.ravel(), jj.ravel()
        vals = _ssk_pairs([cx[i] for i in ii], [cy[j] for j in jj],
                          self.n, float(self.lam), bool(self.cumulative))
        return vals.reshape(len(X), len(Y))

    def diag(self, X):
        self._check()
        Xv, _ = self._validate(X, None)
        cx = [_codes(s) for s in Xv]
        F = self._features(cx, None)
        if F is not None:
            return np.einsum("ij,ij->i", F[0], F[0])
        return _ssk_pairs(cx, cx, self.n, float(self.lam), bool(self.cumulative))


def subsequence_kernel_levels(s, t, n, lam=0.5):
    """Return the array ``[k_1(s, t), ..., k_n(s, t)]`` of the subsequence kernel
    for one pair (LKC eq. 2.28), from the same dynamic programme."""
    (s,), (t,) = check_strings([s], "s"), check_strings([t], "t")
    _check_length(n, "n")
    _check_lam(lam)
    return np.array([SubsequenceKernel(i, lam)([s], [t])[0, 0] for i in range(1, n + 1)])


def subsequence_dp_tables(s, t, n, lam=0.5):
    """The auxiliary tables of LKC App. B.2.2 for one pair, for display.

    Returns
    -------
    Kp : ndarray, shape (n, |s|+1, |t|+1)
        ``Kp[i, a, b] = k'_i(s[:a], t[:b])`` for ``i = 0..n-1`` (``k'_0 = 1``).
    Kpp : ndarray, shape (n, |s|+1, |t|+1)
        ``Kpp[i, a, b] = k''_i(s[:a], t[:b])`` (zero for ``i = 0``).
    contrib : ndarray, shape (|s|, |t|)
        ``lam^2 [s_a = t_b] k'_{n-1}(s[:a-1], t[:b-1])``: the contribution of
        each matching pair of final characters; it sums to ``k_n(s, t)``.
    """
    (s,), (t,) = check_strings([s], "s"), check_strings([t], "t")
    _check_length(n, "n")
    _check_lam(lam)
    La, Lb = len(s), len(t)
    M = (_codes(s)[:, None] == _codes(t)[None, :]).astype(float)
    Kp = np.zeros((n, La + 1, Lb + 1))
    Kpp = np.zeros((n, La + 1, Lb + 1))
    Kp[0] = 1.0
    for i in range(1, n):
        Z = lam * lam * M * Kp[i - 1, :-1, :-1]
        Kpp[i, 1:, 1:] = _discounted_cumsum(Z, lam, 1)
        Kp[i, 1:, 1:] = _discounted_cumsum(Kpp[i, 1:, 1:], lam, 0)
    contrib = lam * lam * M * Kp[n - 1, :-1, :-1]
    return Kp, Kpp, contrib


def subsequence_features(X, n, lam=0.5):
    """Explicit feature vectors of the subsequence kernel (LKC eq. 2.28, left side).

    ``phi_u(s) = sum_{i: s[i] = u} lam^l(i)`` for every ``u`` of length ``n`` over
    the symbols occurring in ``X``; ``Phi @ Phi.T`` is the Gram matrix of
    :class:`SubsequenceKernel` ``(n, lam)``.  Meant for small alphabets and for
    inspecting which subsequences contribute (there are ``|alphabet|^n`` columns).

    Returns
    -------
    Phi : ndarray of shape (len(X), |alphabet|^n)
    names : list of str
        The subsequence ``u`` of every column.
    """
    Xv = check_strings(X, "X")
    _check_length(n, "n")
    _check_lam(lam)
    codes = [_codes(s) for s in Xv]
    alphabet = np.unique(np.concatenate(codes)) if any(map(len, codes)) else \
        np.zeros(0, dtype=np.int64)
    symbols = [chr(int(c)) for c in alphabet]
    names = ["".join(u) for u in _product(symbols, n)]
    return _ssk_features(codes, alphabet, n, float(lam), False), names
