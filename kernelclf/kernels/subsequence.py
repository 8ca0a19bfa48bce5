"""The vectorised engine of the gap-weighted subsequence kernel.

Book chapter 02b (``book/02b_string_kernels.md``); LKC eq. (2.28)-(2.30) and
App. B.2.2 (erratum E1); Lodhi et al. (2002).

The kernel class and its validation live in :mod:`kernelclf.kernels.strings`
(:class:`~kernelclf.kernels.strings.SubsequenceKernel`); this module holds only the
numerics: batched dynamic programmes over padded pairs of strings, and the
explicit feature map used for small alphabets.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = []


def _codes(s):
    """Unicode code points of ``s`` as an int64 array (no Python loop)."""
    return np.frombuffer(s.encode("utf-32-le"), dtype="<u4").astype(np.int64)



# ---------------------------------------------------------------------------
# gap-weighted subsequence kernel (LKC eq. 2.28-2.30, App. B.2.2; Lodhi et al. 2002)
#
# With K'_i[a, b] = k'_i(s[:a], t[:b]) (K'_0 = 1) and M[a, b] = [s_a = t_b] the
# corrected recursion (E1) reads, for a, b >= 1,
#     K''_i[a, b] = lam K''_i[a, b-1] + lam^2 M[a, b] K'_{i-1}[a-1, b-1]
#     K'_i[a, b]  = lam K'_i[a-1, b] + K''_i[a, b]
#     k_i(s, t)   = lam^2 sum_{a, b} M[a, b] K'_{i-1}[a-1, b-1],
# i.e. K'_i is a discounted cumulative sum along both axes of
# lam^2 M * shift(K'_{i-1}).  In the scaled variable Y_i = lam^{-(a+b)} K'_i the
# discounts cancel and Y_i = cumsum_a cumsum_b (M * shift(Y_{i-1})), two plain
# cumulative sums per level (blocked scans along axis 1, switching between the
# (s, t) and (t, s) orientations).  That is used whenever lam^{-(|s|+|t|)} stays
# far from overflow; otherwise each axis uses a blocked discounted cumulative sum.
# Pairs of strings are batched along a leading axis and padded with symbols
# that match nothing, which leaves every kernel value unchanged.

_SCALED_LIMIT = 600.0      # largest |log lam| (|s| + |t|) for the scaled recurrence
_BLOCK_LIMIT = 300.0       # largest |log lam| * block length in the blocked sums
_CHUNK_ELEMENTS = 1 << 20  # pairs * |s| * |t| per batch


def _discounted_cumsum(x, lam, axis):
    """``y_j = sum_{k <= j} lam^(j-k) x_k`` along ``axis`` (blocked, no overflow)."""
    L = x.shape[axis]
    out = np.empty_like(x)
    if L == 0:
        return out
    log_lam = abs(math.log(lam))
    B = L if log_lam == 0 else max(1, min(L, int(_BLOCK_LIMIT // log_lam)))
    shape = [1] * x.ndim
    shape[axis] = -1
    k = np.arange(B, dtype=float)
    up, down, carry_w = (lam ** -k).reshape(shape), (lam ** k).reshape(shape), \
        (lam ** (k + 1)).reshape(shape)
    carry = None
    for start in range(0, L, B):
        stop = min(start + B, L)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(start, stop)
        idx = tuple(idx)
        n = stop - start
        w = [slice(None)] * x.ndim
        w[axis] = slice(0, n)
        w = tuple(w)
        y = np.cumsum(x[idx] * up[w], axis=axis)
        y *= down[w]
        if carry is not None:
            y += carry * carry_w[w]
        out[idx] = y
        last = [slice(None)] * x.ndim
        last[axis] = slice(n - 1, n)
        carry = y[tuple(last)]
    return out


def _scan_rows(Z, B):
    """In-place inclusive cumulative sum along axis 1 of ``Z`` (shape ``(P, L, W)``,
    ``L`` a multiple of ``B``), as a blocked scan: ``B - 1`` whole-array additions
    inside all blocks at once, then ``L/B - 1`` block carries.  This is about
    three times faster than ``np.cumsum`` along a non-contiguous axis."""
    P, L, W = Z.shape
    Zr = Z.reshape(P, L // B, B, W)
    for j in range(1, B):
        Zr[:, :, j] += Zr[:, :, j - 1]
    for k in range(1, L // B):
        Zr[:, k] += Zr[:, k - 1, B - 1][:, None]
    return Z


def _ssk_batch_scaled(S, T, n, lam, cumulative, work):
    """Scaled recurrence ``Y_i = cumsum_a cumsum_b (M * shift(Y_{i-1}))`` (see above).

    The tables alternate between the orientations ``(pair, s, t)`` and
    ``(pair, t, s)`` so that both cumulative sums run along axis 1 (blocked
    scans); one transposed copy per level switches orientation."""
    P = S.shape[0]
    Ba, Bb = math.isqrt(max(S.shape[1] - 1, 0)) + 1, math.isqrt(max(T.shape[1] - 1, 0)) + 1
    La, Lb = -(-S.shape[1] // Ba) * Ba, -(-T.shape[1] // Bb) * Bb
    S = np.pad(S, ((0, 0), (0, La - S.shape[1])), constant_values=-1)
    T = np.pad(T, ((0, 0), (0, Lb - T.shape[1])), constant_values=-2)
    key = (P, La, Lb)
    if key not in work:          # buffers reused by every batch of the same shape
        work.clear()
        work[key] = {0: [np.empty((P, La, Lb)) for _ in range(3)],
                     1: [np.empty((P, Lb, La)) for _ in range(3)]}
    bufs = work[key]
    M = {0: bufs[0][2], 1: bufs[1][2]}
    np.equal(S[:, :, None], T[:, None, :], out=M[0])
    np.copyto(M[1], M[0].transpose(0, 2, 1))
    block = {0: (Ba, Bb), 1: (Bb, Ba)}
    ia = np.arange(1, La + 1, dtype=float)[:, None]
    ib = np.arange(1, Lb + 1, dtype=float)[None, :]
    W = {0: lam ** (ia + ib)}                              # lam^(a+b), 1-based a, b
    W[1] = W[0].T
    out = np.zeros(P)
    # per orientation: [0] holds Z, [1] holds Y, [2] the match matrix
    Z = bufs[0][0]
    np.multiply(M[0], (lam ** -(ia + ib - 2.0))[None], out=Z)   # M * shift(Y_0)
    o = 0                                                      # orientation of Z
    for i in range(1, n + 1):
        if cumulative or i == n:
            out += Z.reshape(P, -1) @ W[o].ravel()
        if i == n:
            break
        _scan_rows(Z, block[o][0])
        Y = bufs[1 - o][1]
        np.copyto(Y, Z.transpose(0, 2, 1))
        _scan_rows(Y, block[o][1])                             # Y_i, orientation 1 - o
        o = 1 - o
        Z = bufs[o][0]
        Z[:, 0, :] = 0.0
        Z[:, :, 0] = 0.0
        np.multiply(M[o][:, 1:, 1:], Y[:, :-1, :-1], out=Z[:, 1:, 1:])
    return out


def _ssk_batch(S, T, n, lam, cumulative, work):
    """Kernel values for a batch of pairs: ``S``, ``T`` are padded code arrays
    of shape ``(P, La)`` and ``(P, Lb)`` (pads never match).  Returns
    ``(P,)`` values of k_n, or of k_1 + ... + k_n when ``cumulative``."""
    P, La = S.shape
    Lb = T.shape[1]
    out = np.zeros(P)
    if La < n or Lb < n:
        return out
    if (La + Lb) * abs(math.log(lam)) <= _SCALED_LIMIT:
        return _ssk_batch_scaled(S, T, n, lam, cumulative, work)
    M = (S[:, :, None] == T[:, None, :]).astype(float)
    Kprev = np.ones((1, La + 1, Lb + 1))
    K = np.zeros((P, La + 1, Lb + 1))
    lam2 = lam * lam
    for i in range(1, n + 1):
        Z = M * Kprev[:, :-1, :-1]
        Z *= lam2
        if cumulative or i == n:
            out += Z.sum(axis=(1, 2))
        if i < n:
            K[:, 1:, 1:] = _discounted_cumsum(_discounted_cumsum(Z, lam, 2), lam, 1)
            Kprev = K
    return out


def _ssk_pairs(pairs_s, pairs_t, n, lam, cumulative):
    """Kernel values for lists of code arrays, batched by similar lengths."""
    m = len(pairs_s)
    out = np.zeros(m)
    if m == 0:
        return out
    work = {}
    ls = np.array([len(a) for a in pairs_s])
    lt = np.array([len(b) for b in pairs_t])
    order = np.lexsort((lt, ls))
    start = 0
    while start < m:
        La, Lb = ls[order[start]], lt[order[start]]
        stop = start + 1
        while stop < m:
            La2, Lb2 = max(La, ls[order[stop]]), max(Lb, lt[order[stop]])
            if (stop - start + 1) * (La2 + 1) * (Lb2 + 1) > _CHUNK_ELEMENTS:
                break
            La, Lb = La2, Lb2
            stop += 1
        idx = order[start:stop]
        S = np.full((len(idx), La), -1, dtype=np.int64)
        T = np.full((len(idx), Lb), -2, dtype=np.int64)
        for r, p in enumerate(idx):
            S[r, :ls[p]] = pairs_s[p]
            T[r, :lt[p]] = pairs_t[p]
        out[idx] = _ssk_batch(S, T, n, lam, cumulative, work)
        start = stop
    return out


_FEATURE_LIMIT = 1 << 15   # largest |alphabet|^n for the explicit feature map
_FEATURE_CHUNK = 1 << 22   # strings * length * |alphabet|^(n-1) per batch


def _ssk_features(codes, alphabet, n, lam, cumulative):
    """Explicit features ``phi_u(s) = sum_{i: s[i]=u} lam^l(i)`` for all ``u`` in
    ``alphabet^n`` (or ``alphabet^1 .. alphabet^n`` when ``cumulative``).

    Prefix recursion per string, batched over strings.  ``E_i[a, u]`` is the
    weight of the occurrences of ``u`` (length ``i``) ending exactly at
    position ``a`` and ``D_i`` its discounted cumulative sum along ``a``:
    ``E_1[a, c] = lam [s_a = c]``, ``E_{i+1}[a, uc] = lam [s_a = c] D_i[a-1, u]``.
    The last two symbols are handled together: with
    ``W[a, c'] = sum_{a'' > a} lam^(a''-a) [s_a'' = c']``,
    ``phi_{u c c'} = sum_a lam [s_a = c] W[a, c'] D_{n-2}[a-1, u]``, one batched
    matrix product, so no table wider than ``|alphabet|^max(n-2, 2)`` is formed.
    Feature ``u`` has index ``sum_k code(u_k) A^(n-k)`` (first symbol most significant).
    """
    A = len(alphabet)
    m = len(codes)
    dims = [A ** i for i in range(1, n + 1)]
    out = np.zeros((m, sum(dims) if cumulative else dims[-1]))
    if m == 0 or A == 0:
        return out
    width = max(A ** max(n - 2, 0), A * A)
    lengths = np.array([len(c) for c in codes])
    order = np.argsort(lengths)
    start = 0
    while start < m:
        stop = start + 1
        while stop < m and (stop - start + 1) * max(1, lengths[order[stop]]) * width \
                <= _FEATURE_CHUNK:
            stop += 1
        idx = order[start:stop]
        L = int(lengths[idx].max())
        if L == 0:
            start = stop
            continue
        ids = np.full((len(idx), L), -1)
        for r, p in enumerate(idx):
            ids[r, :lengths[p]] = np.searchsorted(alphabet, codes[p])
        O = (ids[:, :, None] == np.arange(A)[None, None, :]).astype(float)
        lamO = lam * O
        if n == 1:
            out[idx] = lamO.sum(axis=1)
            start = stop
            continue
        blocks = []
        Dsh = np.ones((len(idx), L, 1))          # D_0[a-1] = 1: the empty prefix
        for i in range(1, n - 1):
            E = (Dsh[:, :, :, None] * lamO[:, :, None, :]).reshape(len(idx), L, -1)
            if cumulative:
                blocks.append(E.sum(axis=1))
            D = _discounted_cumsum(E, lam, 1)
            Dsh = np.zeros_like(D)
            Dsh[:, 1:] = D[:, :-1]
        DshT = Dsh.transpose(0, 2, 1)
        if cumulative:
            blocks.append(np.matmul(DshT, lamO).reshape(len(idx), -1))
        V = _discounted_cumsum(O[:, ::-1], lam, 1)[:, ::-1]
        W = np.zeros_like(O)
        W[:, :-1] = lam * V[:, 1:]
        last = (lamO[:, :, :, None] * W[:, :, None, :]).reshape(len(idx), L, A * A)
        blocks.append(np.matmul(DshT, last).reshape(len(idx), -1))
        out[idx] = np.hstack(blocks)
        start = stop
    return out


def _product(symbols, n):
    """All words of length ``n`` in the column order of :func:`_ssk_features`."""
    words = [()]
    for _ in range(n):
        words = [w + (c,) for w in words for c in symbols]
    return words
