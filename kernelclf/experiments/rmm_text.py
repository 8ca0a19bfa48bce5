"""RMM §5.5 on text: SVM against RMM on Reuters-21578 topic pairs.

Book chapter 13 (``book/13_relative_margin_machines.md``); Shivaswamy & Jebara (2010), §5.5.

:func:`text_pair_repeat` runs one repeat of one topic pair (the paper's 20 Newsgroups
is not in the data home): 500 training documents, bag of words divided by document
length, SVM against RMM chosen on a validation half and scored on a test half (and
swapped); :func:`text_rows` gives paired t-tests per pair (Fig. 9). Command line::

    python -m kernelclf.experiments rmm-text --repeats 10 --n-jobs -1
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

from ..kernels.closure import Scaled
from ..margin.rmm import RelativeMarginMachine

__all__ = ["TEXT_TOPICS", "reuters_documents", "word_frequencies", "training_span",
           "text_pair_repeat", "text_rows", "format_text"]


# -- §5.5 text, on Reuters-21578 pairs ------------------------------------------------
#: the Reuters-21578 topics of the data home (20 Newsgroups, the paper's corpus, is not)
TEXT_TOPICS = ("earn", "acq", "crude", "corn")


def reuters_documents():
    """Documents of the data home's Reuters-21578 file that carry exactly one of
    :data:`TEXT_TOPICS` (title and body), with that topic as label."""
    from ..datasets import load

    b = load("reuters21578")
    docs, labels = [], []
    for d in b.documents:
        topics = [c for c in TEXT_TOPICS if c in d["topics"]]
        text = (d["title"] + " " + d["body"]).strip()
        if len(topics) == 1 and text:
            docs.append(text)
            labels.append(topics[0])
    return docs, np.array(labels)


def word_frequencies(train_docs, *other_docs):
    """Bag of words of RMM §5.5: word counts over the training vocabulary, each row
    divided by the document's total number of words. Returns one sparse (CSR) matrix
    per argument."""
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z]+\b").fit(train_docs)
    words = vec.build_analyzer()
    out = []
    for docs in (train_docs, *other_docs):
        counts = vec.transform(docs).astype(float)
        total = np.array([max(len(words(d)), 1) for d in docs], dtype=float)
        out.append(sparse.csr_matrix(sparse.diags(1.0 / total) @ counts))
    return out


def training_span(Ftr, *others):
    """Coordinates in an orthonormal basis ``Q`` of the span of the training rows.

    ``(x Q)(x_i Q)' = x x_i'`` for every training row ``x_i``, so a linear kernel
    machine (whose outputs only involve inner products with training points) is the
    same on these m-dimensional rows as on the sparse vocabulary-sized ones.
    """
    Q, _ = np.linalg.qr(Ftr.T.toarray())
    return [np.asarray(F @ Q) for F in (Ftr, *others)]


def text_pair_repeat(pair, rep, n_train=500, seed=0, C_grid=(0.1, 1.0, 10.0, 100.0),
                     kappas=(0.5, 0.25, 0.1), tol=1e-3, documents=None):
    """One repeat of RMM §5.5 for one pair of topics.

    ``n_train`` documents of the two topics are drawn for training (seeded by
    ``seed``, the pair and ``rep``); the rest is cut into a validation and a test half.
    Features: :func:`word_frequencies` (in the coordinates of :func:`training_span`,
    which leave a linear machine unchanged); kernel: linear, scaled so that the training
    Gram matrix has trace m (as RMM §5.2 does for digits; the paper does not say how
    it scaled the text kernel). The SVM (over ``C_grid``) and the RMM (over ``C_grid``
    and the relative bounds ``kappas``, B = 1 + (theta - 1) kappa) are chosen on the
    validation half and scored on the test half, and again with the halves swapped.

    Returns ``{'SVM': [err, err_swapped], 'RMM': [...], 'n': (train, val, test)}``
    (error fractions).
    """
    from ..kernels.vector import Linear

    docs, labels = reuters_documents() if documents is None else documents
    a, b = pair
    idx = np.flatnonzero((labels == a) | (labels == b))
    rng = np.random.default_rng([seed, TEXT_TOPICS.index(a), TEXT_TOPICS.index(b), rep])
    idx = rng.permutation(idx)
    if len(idx) < n_train + 2:
        raise ValueError(f"{a}/{b}: {len(idx)} documents, fewer than n_train + 2")
    tr, rest = idx[:n_train], idx[n_train:]
    half = len(rest) // 2
    va, te = rest[:half], rest[half:2 * half]
    Xtr, Xva, Xte = training_span(*word_frequencies(
        [docs[i] for i in tr], [docs[i] for i in va], [docs[i] for i in te]))
    y = np.where(labels == b, 1.0, -1.0)
    ytr, yva, yte = y[tr], y[va], y[te]
    k = Scaled(Linear(), len(tr) / max(float(np.einsum("ij,ij->", Xtr, Xtr)), 1e-300))
    cands = {"SVM": [RelativeMarginMachine(k, C=C, tol=tol) for C in C_grid],
             "RMM": [RelativeMarginMachine(k, C=C, B=kap, B_mode="relative", tol=tol)
                     for C in C_grid for kap in kappas]}
    out = {"n": [len(tr), len(va), len(te)]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for meth, ests in cands.items():
            fits = [e.fit(Xtr, ytr) for e in ests]
            ev = np.array([np.mean(f.predict(Xva) != yva) for f in fits])
            et = np.array([np.mean(f.predict(Xte) != yte) for f in fits])
            # choose on one half, score on the other (first entry: the RMM paper's
            # validation -> test; second: swapped); ties go to the first candidate
            out[meth] = [float(et[int(np.argmin(ev))]), float(ev[int(np.argmin(et))])]
    return out


def text_rows(records):
    """Per pair: mean test error (%) of SVM and RMM over all repeats and both halves,
    the RMM's improvement over the SVM in % of the SVM's error, and the paired t-test
    p-value over repeats (each repeat's two halves averaged)."""
    by = {}
    for r in records:
        by.setdefault(tuple(r["pair"]), []).append(r["result"])
    rows = []
    for pair, res in by.items():
        svm = np.array([np.mean(x["SVM"]) for x in res])
        rmm = np.array([np.mean(x["RMM"]) for x in res])
        p = (float(stats.ttest_rel(svm, rmm).pvalue)
             if len(res) > 1 and not np.allclose(svm, rmm) else 1.0)
        s, q = 100 * svm.mean(), 100 * rmm.mean()
        rows.append({"pair": pair, "repeats": len(res), "svm": s, "rmm": q,
                     "improvement": 100 * (s - q) / s if s > 0 else 0.0, "p": p,
                     "n": res[0]["n"]})
    return rows


def format_text(rows):
    lines = [f"{'pair':12s} {'train/val/test':>16s} {'SVM %':>7s} {'RMM %':>7s} "
             f"{'RMM gain %':>10s} {'p (paired t)':>12s} {'repeats':>7s}"]
    for r in rows:
        n = "/".join(str(x) for x in r["n"])
        lines.append(f"{'/'.join(r['pair']):12s} {n:>16s} {r['svm']:7.2f} {r['rmm']:7.2f} "
                     f"{r['improvement']:10.1f} {r['p']:12.3f} {r['repeats']:7d}")
    return "\n".join(lines)


def _text_tasks(args):
    from functools import partial
    from itertools import combinations

    from .runner import Task

    run = partial(text_pair_repeat, documents=reuters_documents())   # read the corpus once
    return [Task(key=f"{a}/{b}/{rep}", fn=run, args=((a, b), rep, args.n_train, args.seed),
                 meta={"pair": [a, b], "repeat": rep, "seed": args.seed})
            for a, b in combinations(TEXT_TOPICS, 2) for rep in range(args.repeats)]


def _register():
    from .runner import Experiment, register

    def text_args(p):
        p.add_argument("--repeats", type=int, default=10, help="repeats per pair (default 10)")
        p.add_argument("--n-train", type=int, default=500)
        p.add_argument("--seed", type=int, default=0)

    register(Experiment(
        name="rmm-text", help="RMM §5.5 on Reuters-21578 topic pairs: SVM vs RMM",
        add_arguments=text_args, tasks=_text_tasks,
        config=lambda a: {"n_train": a.n_train, "seed": a.seed},
        report=lambda a, records: format_text(text_rows(records))))


_register()
