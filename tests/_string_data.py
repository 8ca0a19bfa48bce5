"""Test helper: string inputs for the estimators of chapters 01 and 07-09.

The promoter sequences of the string-kernel chapter (``book/02b_string_kernels.md``)
and the explicit feature map of the normalised p-spectrum kernel (counts of every
p-mer, scaled to unit length), which is the independent reference: an estimator
fitted on the strings with ``Normalized(SpectrumKernel(p))`` must equal the same
estimator fitted on these vectors with the linear kernel.
"""
from collections import Counter

import numpy as np


def _synthetic_dna(m=106, length=57, seed=0):
    """Stand-in when the data folder is absent: random DNA, the positives with a motif."""
    rng = np.random.default_rng(seed)
    seqs, y = [], []
    for i in range(m):
        s = "".join(rng.choice(list("acgt"), length))
        if i % 2:
            pos = int(rng.integers(0, length - 6))
            s = s[:pos] + "tataat" + s[pos + 6:]
        seqs.append(s)
        y.append(1 if i % 2 else -1)
    return seqs, np.array(y)


def promoters(n_train=70, seed=0):
    """``(S_train, y_train, S_test, y_test)``: a seeded split of the 106 promoter sequences
    (or, without the data folder, of 106 synthetic sequences of the same shape)."""
    from kernelclf.datasets import load

    try:
        data = load("promoters")
        seqs, y = list(data.sequences), np.asarray(data.y)
    except Exception:  # pragma: no cover - data folder absent
        seqs, y = _synthetic_dna()
    order = np.random.default_rng(seed).permutation(len(seqs))
    seqs, y = [seqs[i] for i in order], y[order]
    return seqs[:n_train], y[:n_train], seqs[n_train:], y[n_train:]


def spectrum_features(strings, p):
    """Rows ``phi(s) / ||phi(s)||`` with ``phi(s)`` the counts of all p-mers of ``s``."""
    counts = [Counter(s[i:i + p] for i in range(len(s) - p + 1)) for s in strings]
    vocab = sorted(set().union(*counts))
    F = np.array([[c[w] for w in vocab] for c in counts], dtype=float)
    return F / np.linalg.norm(F, axis=1, keepdims=True)
