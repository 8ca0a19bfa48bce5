"""kernelclf.multiclass: one-versus-one, decision DAG, one-versus-rest with rejection.

References: scikit-learn's ``OneVsOneClassifier`` / ``OneVsRestClassifier`` (same pairwise
and one-against-rest machines; identical outputs where the combination rules coincide),
brute-force re-implementations of the DAG walk (Platt et al. 2000) and of the rejection
protocol (BPM §4.3), the bare binary estimator for K = 2, a chi-square test for the
uniformity of the random tie-breaking (RMM §5.2), and scikit-learn's estimator checks.
"""
import numpy as np
import pytest
from scipy import stats
from sklearn import multiclass as skm
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted, validate_data

from kernelclf.kernels import RBF, Normalized, SpectrumKernel
from kernelclf.margin import SupportVectorMachine
from kernelclf.multiclass import (
    DAGClassifier,
    OneVsOneClassifier,
    OneVsRestClassifier,
    pairs,
    pairwise_coupling,
    rejection_errors,
)


def _blobs(K=4, std=1.5, m=160, seed=0):
    centers = 4.0 * np.c_[np.cos(2 * np.pi * np.arange(K) / K), np.sin(2 * np.pi * np.arange(K) / K)]
    X, y = make_blobs(n_samples=m, centers=centers, cluster_std=std, random_state=seed)
    labels = np.array(["ant", "bee", "cat", "dog", "eel", "fox"])[:K]
    return X, labels[y]


def _svm():
    return SupportVectorMachine(kernel=RBF(2.0), C=1.0, fit_bias=True)


# -- agreement with scikit-learn ------------------------------------------------------
@pytest.mark.parametrize("base", [_svm(), SVC(kernel="rbf", gamma=0.2, C=1.0)],
                         ids=["kernelclf-svm", "sklearn-svc"])
def test_one_vs_rest_equals_sklearn(base):
    X, y = _blobs(std=2.0)
    Xt, yt = _blobs(std=2.0, m=200, seed=1)
    ours = OneVsRestClassifier(base).fit(X, y)
    ref = skm.OneVsRestClassifier(base).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    assert np.mean(ours.predict(Xt) == yt) > 0.7


@pytest.mark.parametrize("base", [_svm(), SVC(kernel="rbf", gamma=0.2, C=1.0)],
                         ids=["kernelclf-svm", "sklearn-svc"])
def test_one_vs_one_equals_sklearn(base):
    X, y = _blobs(K=5, std=2.0, m=200)
    Xt, _ = _blobs(K=5, std=2.0, m=300, seed=1)
    ref = skm.OneVsOneClassifier(base).fit(X, y)
    ref_dec = ref.decision_function(Xt)
    # sklearn's rule (summed confidences) is reproduced exactly, ties included
    conf = OneVsOneClassifier(base, tie_break="confidence").fit(X, y)
    np.testing.assert_allclose(conf.decision_function(Xt), ref_dec, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(conf.predict(Xt), ref.predict(Xt))
    # the plain vote: same vote counts; same predictions wherever the vote has no tie
    K = 5
    for tie_break in ("random", "first"):
        ovo = OneVsOneClassifier(base, tie_break=tie_break, random_state=0).fit(X, y)
        votes = ovo.vote_counts(Xt)
        np.testing.assert_array_equal(votes, np.rint(ref_dec))
        np.testing.assert_array_equal(votes.sum(axis=1), K * (K - 1) // 2)
        np.testing.assert_array_equal(np.rint(ovo.decision_function(Xt)), votes)
        unique = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) == 1
        assert unique.mean() > 0.8
        np.testing.assert_array_equal(ovo.predict(Xt)[unique], ref.predict(Xt)[unique])
        # with ties, the prediction is always one of the tied classes
        top = votes == votes.max(axis=1, keepdims=True)
        pred_idx = np.searchsorted(ovo.classes_, ovo.predict(Xt))
        assert np.all(top[np.arange(len(Xt)), pred_idx])


def test_pairwise_machines_are_sklearns():
    X, y = _blobs(K=4, std=2.0)
    ovo = OneVsOneClassifier(_svm()).fit(X, y)
    ref = skm.OneVsOneClassifier(_svm()).fit(X, y)
    assert ovo.pairs_ == pairs(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for ours, theirs in zip(ovo.estimators_, ref.estimators_):
        np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X))


# -- tie-breaking ----------------------------------------------------------------------
class _TournamentMachine(ClassifierMixin, BaseEstimator):
    """A pairwise machine whose vote depends only on which two classes it separates.

    The classes are read from feature 0 of the training inputs (it holds the class
    index there); ``beats`` lists the winner of each pair. Every test point gets the
    same vote, so a cyclic tournament makes every test point a tie.
    """

    def __init__(self, beats=None):
        self.beats = beats

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.classes_ = np.unique(y)
        a = int(round(X[y == self.classes_[0], 0].mean()))
        b = int(round(X[y == self.classes_[1], 0].mean()))
        self.vote_ = self.classes_[1] if self.beats[(a, b)] == b else self.classes_[0]
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.full(len(X), 1.0 if self.vote_ == self.classes_[1] else -1.0)

    def predict(self, X):
        return np.where(self.decision_function(X) > 0, self.classes_[1], self.classes_[0])


def _tournament(beats, K, n_test=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(K), 5)
    X = np.c_[y, rng.normal(size=len(y))]
    Xt = np.c_[np.zeros(n_test), rng.normal(size=n_test)]
    return X, y, Xt


ROCK_PAPER_SCISSORS = {(0, 1): 1, (1, 2): 2, (0, 2): 0}   # every class wins once
# four classes: 0 and 1 win twice, 2 and 3 once -> ties between 0 and 1 only
TWO_WAY = {(0, 1): 0, (0, 2): 0, (1, 2): 1, (1, 3): 1, (2, 3): 2, (0, 3): 3}


def test_random_tie_break_is_uniform_over_tied_classes():
    X, y, Xt = _tournament(ROCK_PAPER_SCISSORS, 3)
    ovo = OneVsOneClassifier(_TournamentMachine(ROCK_PAPER_SCISSORS), random_state=0).fit(X, y)
    np.testing.assert_array_equal(ovo.vote_counts(Xt), 1)
    counts = np.bincount(ovo.predict(Xt), minlength=3)
    assert stats.chisquare(counts).pvalue > 1e-3, counts
    assert counts.min() > 800
    # two tied classes out of four: only those win, each about half the time
    X4, y4, Xt4 = _tournament(TWO_WAY, 4)
    ovo4 = OneVsOneClassifier(_TournamentMachine(TWO_WAY), random_state=1).fit(X4, y4)
    np.testing.assert_array_equal(ovo4.vote_counts(Xt4)[0], [2, 2, 1, 1])
    counts4 = np.bincount(ovo4.predict(Xt4), minlength=4)
    assert counts4[2] == counts4[3] == 0
    assert stats.binomtest(int(counts4[0]), len(Xt4)).pvalue > 1e-3, counts4


def test_random_tie_break_is_uniform_over_seeds_for_one_point():
    X, y, Xt = _tournament(ROCK_PAPER_SCISSORS, 3, n_test=1)
    wins = [OneVsOneClassifier(_TournamentMachine(ROCK_PAPER_SCISSORS), random_state=s)
            .fit(X, y).predict(Xt)[0] for s in range(600)]
    counts = np.bincount(wins, minlength=3)
    assert stats.chisquare(counts).pvalue > 1e-3, counts


def test_random_tie_break_is_seeded_and_batch_independent():
    X, y, Xt = _tournament(ROCK_PAPER_SCISSORS, 3, n_test=300)
    machine = _TournamentMachine(ROCK_PAPER_SCISSORS)
    a = OneVsOneClassifier(machine, random_state=5).fit(X, y)
    b = OneVsOneClassifier(machine, random_state=5).fit(X, y)
    c = OneVsOneClassifier(machine, random_state=6).fit(X, y)
    pa = a.predict(Xt)
    np.testing.assert_array_equal(pa, b.predict(Xt))
    np.testing.assert_array_equal(pa, a.predict(Xt))                   # repeated call
    np.testing.assert_array_equal(pa[::-1], a.predict(Xt[::-1]))       # order
    np.testing.assert_array_equal(pa[:7], a.predict(Xt[:7]))           # subset
    assert np.mean(pa != c.predict(Xt)) > 0.4                          # another seed
    # decision_function's arg-max is the prediction; its integer part the votes
    dec = a.decision_function(Xt)
    np.testing.assert_array_equal(a.classes_[dec.argmax(axis=1)], pa)
    np.testing.assert_array_equal(np.rint(dec), 1)
    # 'first' takes the lowest index, 'confidence' sklearn's summed outputs (all 0 here)
    first = OneVsOneClassifier(machine, tie_break="first").fit(X, y)
    np.testing.assert_array_equal(first.predict(Xt), 0)
    ref = skm.OneVsOneClassifier(machine).fit(X, y)
    conf = OneVsOneClassifier(machine, tie_break="confidence").fit(X, y)
    np.testing.assert_array_equal(conf.predict(Xt), ref.predict(Xt))


# -- decision DAG ----------------------------------------------------------------------
def _dag_by_hand(winners, K):
    """Platt et al. (2000): keep a list, compare first and last, drop the loser."""
    index = {pq: p for p, pq in enumerate(pairs(K))}
    out = []
    for row in winners:
        alive = list(range(K))
        while len(alive) > 1:
            w = row[index[(alive[0], alive[-1])]]
            alive.remove(alive[-1] if w == alive[0] else alive[0])
        out.append(alive[0])
    return np.array(out)


def test_dag_agrees_with_vote_on_separable_data():
    X, y = _blobs(K=5, std=0.4, m=150)
    Xt, yt = _blobs(K=5, std=0.4, m=300, seed=2)
    ovo = OneVsOneClassifier(_svm(), random_state=0).fit(X, y)
    dag = DAGClassifier(_svm()).fit(X, y)
    np.testing.assert_array_equal(dag.predict(Xt), ovo.predict(Xt))
    assert np.mean(dag.predict(Xt) == yt) == 1.0


def test_dag_walk_equals_brute_force_and_condorcet_winner():
    # random labels in 5-D: the pairwise machines often vote in cycles
    K = 6
    rng = np.random.default_rng(0)
    X, y, Xt = rng.normal(size=(240, 5)), rng.integers(0, K, 240), rng.normal(size=(400, 5))
    base = SupportVectorMachine(kernel=RBF(1.5), C=10.0, fit_bias=True)
    ovo = OneVsOneClassifier(base, tie_break="first").fit(X, y)
    dag = DAGClassifier(base).fit(X, y)
    winners = ovo.pairwise_winners(Xt)
    np.testing.assert_array_equal(dag.pairwise_winners(Xt), winners)
    pred = dag.predict(Xt)
    np.testing.assert_array_equal(pred, dag.classes_[_dag_by_hand(winners, K)])
    # K - 1 distinct machines per point
    path = dag.decision_path(Xt)
    assert path.shape == (len(Xt), K - 1)
    assert all(len(set(row)) == K - 1 for row in path)
    # a class that wins all its K - 1 comparisons is never eliminated
    votes = ovo.vote_counts(Xt)
    condorcet = votes.max(axis=1) == K - 1
    assert 0.5 < condorcet.mean() < 0.95
    np.testing.assert_array_equal(pred[condorcet], ovo.predict(Xt)[condorcet])
    # elsewhere the DAG is not the vote
    assert np.any(pred[~condorcet] != ovo.predict(Xt)[~condorcet])


# -- K = 2 -----------------------------------------------------------------------------
@pytest.mark.parametrize("Meta", [OneVsOneClassifier, DAGClassifier, OneVsRestClassifier])
def test_two_classes_is_the_binary_estimator(Meta):
    X, y = _blobs(K=2, std=2.5, m=80)
    Xt, _ = _blobs(K=2, std=2.5, m=100, seed=4)
    bare = _svm().fit(X, y)
    meta = Meta(_svm()).fit(X, y)
    assert len(meta.estimators_) == 1
    np.testing.assert_array_equal(meta.predict(Xt), bare.predict(Xt))
    if hasattr(meta, "decision_function"):
        np.testing.assert_allclose(meta.decision_function(Xt), bare.decision_function(Xt))
    assert 0 < np.mean(bare.predict(Xt) == "ant") < 1


# -- one-versus-rest and the rejection protocol (BPM §4.3) ---------------------------------
def _rejection_by_hand(conf, correct, r):
    n = len(conf)
    k = int(round(r * n))
    keep = np.argsort(conf, kind="stable")[k:]
    return np.nan if len(keep) == 0 else 1 - correct[keep].mean()


def test_rejection_errors_by_hand():
    rng = np.random.default_rng(0)
    conf = rng.normal(size=53)
    correct = rng.uniform(size=53) < 0.7
    fr = [0.0, 0.05, 0.1, 0.33, 0.5, 0.99, 1.0]
    got = rejection_errors(conf, correct, fr)
    want = [_rejection_by_hand(conf, correct, r) for r in fr]
    np.testing.assert_allclose(got, want, equal_nan=True)
    assert np.isnan(got[-1]) and got[0] == 1 - correct.mean()
    # the tiny example: rejecting the single least confident (wrong) point
    np.testing.assert_allclose(rejection_errors([0.1, 0.9, 0.5, 0.7], [False, True, False, True],
                                                [0, 0.25, 0.5]), [0.5, 1 / 3, 0.0])
    with pytest.raises(ValueError, match="fractions"):
        rejection_errors(conf, correct, [1.5])


def test_one_vs_rest_rejection_curve():
    X, y = _blobs(K=4, std=2.2, m=200)
    Xt, yt = _blobs(K=4, std=2.2, m=600, seed=5)
    ovr = OneVsRestClassifier(_svm()).fit(X, y)
    F = ovr.decision_function(Xt)
    assert F.shape == (600, 4)
    np.testing.assert_array_equal(ovr.predict(Xt), ovr.classes_[F.argmax(axis=1)])
    np.testing.assert_allclose(ovr.confidence(Xt), F.max(axis=1))
    Fs = np.sort(F, axis=1)
    np.testing.assert_allclose(ovr.confidence(Xt, "gap"), Fs[:, -1] - Fs[:, -2])
    correct = ovr.predict(Xt) == yt
    fr = np.linspace(0, 0.3, 7)
    for kind in ("max", "gap"):
        curve = ovr.rejection_curve(Xt, yt, fr, kind=kind)
        want = [_rejection_by_hand(ovr.confidence(Xt, kind), correct, r) for r in fr]
        np.testing.assert_allclose(curve, want)
        # BPM Fig. 9: rejecting the least confident points lowers the error
        assert curve[0] == pytest.approx(1 - correct.mean()) and curve[0] > 0.05
        assert curve[-1] < 0.6 * curve[0]
    # K = 2: the pair (-f, f)
    X2, y2 = _blobs(K=2, std=2.5, m=80)
    ovr2 = OneVsRestClassifier(_svm()).fit(X2, y2)
    f = ovr2.decision_function(X2)
    np.testing.assert_allclose(ovr2.confidence(X2), np.abs(f))
    np.testing.assert_allclose(ovr2.confidence(X2, "gap"), 2 * np.abs(f))
    with pytest.raises(ValueError, match="kind"):
        ovr.confidence(Xt, "median")


def test_one_vs_rest_response_method():
    X, y = _blobs(K=3, std=2.0, m=120)
    ovr = OneVsRestClassifier(LogisticRegression(), response_method="predict_proba")
    with pytest.raises(ValueError):   # predict_proba gives two columns per machine
        ovr.fit(X, y).decision_function(X)
    ovr = OneVsRestClassifier(_svm(), response_method="no_such_method")
    with pytest.raises(ValueError, match="no_such_method"):
        ovr.fit(X, y)


# -- strings, parameters, parallel fitting ---------------------------------------------------
def _motif_strings(m=90, seed=0):
    rng = np.random.default_rng(seed)
    motifs = ["gattac", "ccgcgg", "tatata"]
    X, y = [], []
    for i in range(m):
        s = "".join(rng.choice(list("acgt"), 30))
        c = i % 3
        pos = int(rng.integers(0, 24))
        X.append(s[:pos] + motifs[c] + s[pos + 6:])
        y.append(["first", "second", "third"][c])
    return X, np.array(y)


@pytest.mark.parametrize("Meta", [OneVsOneClassifier, DAGClassifier, OneVsRestClassifier])
def test_string_kernel_machines_on_lists_of_strings(Meta):
    X, y = _motif_strings()
    base = SupportVectorMachine(kernel=Normalized(SpectrumKernel(3)), C=10.0)
    meta = Meta(base).fit(X[:60], y[:60])
    assert not hasattr(meta, "n_features_in_")
    assert np.mean(meta.predict(X[60:]) == y[60:]) >= 0.8
    if Meta is OneVsRestClassifier:
        # column k is the binary machine "class k against the rest", fitted by hand
        for k, c in enumerate(meta.classes_):
            ref = SupportVectorMachine(kernel=Normalized(SpectrumKernel(3)), C=10.0)
            ref.fit(X[:60], (y[:60] == c).astype(int))
            np.testing.assert_allclose(meta.decision_function(X[60:])[:, k],
                                       ref.decision_function(X[60:]))
    with pytest.raises(ValueError, match="single string"):
        meta.predict("gattaca")


def test_parameter_validation_and_one_class():
    X, y = _blobs(K=3)
    with pytest.raises(ValueError, match="tie_break"):
        OneVsOneClassifier(tie_break="lowest").fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        DAGClassifier(estimator="svm").fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        OneVsRestClassifier(n_jobs=True).fit(X, y)
    with pytest.raises(ValueError, match="class"):
        OneVsOneClassifier().fit(X, np.zeros(len(X)))


def test_parallel_fit_gives_the_same_machines():
    X, y = _blobs(K=4, std=2.0)
    a = OneVsOneClassifier(_svm(), random_state=0).fit(X, y)
    b = OneVsOneClassifier(_svm(), random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


# The wrappers take sample_weight, so scikit-learn checks that weights equal repetitions:
# a width from the data (gamma='scale', kernel='rbf') is the unweighted variance's, as in
# SVC, so the machines whose decision values are compared get fixed widths (and libsvm
# a tolerance at round-off); the DAG, compared on its predictions, keeps kernel='rbf'.
@parametrize_with_checks([OneVsOneClassifier(), DAGClassifier(), OneVsRestClassifier(),
                          OneVsOneClassifier(SVC(gamma=0.5, tol=1e-12), tie_break="confidence",
                                             random_state=0),
                          DAGClassifier(SupportVectorMachine(kernel="rbf")),
                          OneVsRestClassifier(SupportVectorMachine(kernel=RBF(2.0), fit_bias=True)),
                          # with predict_proba (scikit-learn then checks it too)
                          OneVsRestClassifier(LogisticRegression()),
                          OneVsOneClassifier(LogisticRegression(), random_state=0),
                          DAGClassifier(LogisticRegression())])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- probabilities (issue 27) ------------------------------------------------------------
def _libsvm_coupling(r, eps=1e-12, max_iter=10_000):
    """libsvm's ``multiclass_probability``: the fixed-point iteration of Wu, Lin & Weng
    (2004) for their second method, one point at a time (an independent algorithm)."""
    K = r.shape[0]
    Q = np.zeros((K, K))
    for t in range(K):
        for j in range(K):
            if j != t:
                Q[t, t] += r[j, t] ** 2
                Q[t, j] = -r[j, t] * r[t, j]
    p = np.full(K, 1.0 / K)
    for _ in range(max_iter):
        Qp = Q @ p
        pQp = p @ Qp
        if np.max(np.abs(Qp - pQp)) < eps:
            break
        for t in range(K):
            diff = (-Qp[t] + pQp) / Q[t, t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t, t] + 2 * Qp[t])) / (1 + diff) ** 2
            Qp = (Qp + diff * Q[t]) / (1 + diff)
            p /= 1 + diff
    return p


def _random_pairwise(K, rng):
    r = rng.uniform(0.02, 0.98, (K, K))
    r = np.triu(r, 1)
    return r + np.tril(1 - r.T, -1) + 0.5 * np.eye(K)


def test_pairwise_coupling_against_libsvm_iteration_and_consistent_input():
    rng = np.random.default_rng(0)
    for K in (2, 3, 5, 8):
        R = np.array([_random_pairwise(K, rng) for _ in range(20)])
        P = pairwise_coupling(R)
        assert P.shape == (20, K) and np.all(P >= 0)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(P, [_libsvm_coupling(r) for r in R], atol=1e-9)
        np.testing.assert_allclose(pairwise_coupling(R[0]), P[0])
        # pairwise probabilities of one distribution p: r_ij = p_i / (p_i + p_j) -> p
        p = rng.dirichlet(np.ones(K))
        np.testing.assert_allclose(pairwise_coupling(p[:, None] / (p[:, None] + p[None, :])), p,
                                   atol=1e-6)
    # K = 2: the pair's own probabilities
    np.testing.assert_allclose(pairwise_coupling([[0.5, 0.3], [0.7, 0.5]]), [0.3, 0.7])
    with pytest.raises(ValueError, match="NaN"):
        pairwise_coupling(np.array([[0.5, np.nan], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="K >= 2"):
        pairwise_coupling(np.ones((3, 2)))


@pytest.mark.parametrize("base", [LogisticRegression(), "gp"], ids=["logistic", "gp"])
def test_one_vs_rest_probabilities_equal_sklearn(base):
    from kernelclf.bayes import GaussianProcessClassifier

    base = GaussianProcessClassifier(RBF(2.0)) if base == "gp" else base
    X, y = _blobs(K=4, std=2.0)
    Xt, _ = _blobs(K=4, std=2.0, m=200, seed=1)
    ours = OneVsRestClassifier(base).fit(X, y)
    ref = skm.OneVsRestClassifier(base).fit(X, y)
    P = ours.predict_proba(Xt)
    np.testing.assert_allclose(P, ref.predict_proba(Xt), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # each machine's probability is one increasing function of its output here
    # (a logistic sigmoid; the GP's probit-type average): arg-max = predict
    np.testing.assert_array_equal(ours.classes_[P.argmax(axis=1)], ours.predict(Xt))
    # K = 2: the binary machine's probabilities
    X2, y2 = _blobs(K=2, std=2.5, m=80)
    two = OneVsRestClassifier(base).fit(X2, y2)
    np.testing.assert_allclose(two.predict_proba(X2), clone(base).fit(X2, y2).predict_proba(X2))


def _platt_pair_reference(X, y_idx, i, j, kernel, C):
    """P(j | i or j) from scikit-learn: Platt scaling (CalibratedClassifierCV, sigmoid,
    ensemble=False) of SVC on the same 5 stratified folds as the package's SVM."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import StratifiedKFold

    mask = (y_idx == i) | (y_idx == j)
    cal = CalibratedClassifierCV(SVC(C=C, gamma=kernel.gamma, tol=1e-9), method="sigmoid",
                                 ensemble=False, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    return cal.fit(X[mask], (y_idx[mask] == j).astype(int))


@pytest.mark.parametrize("Meta", [OneVsOneClassifier, DAGClassifier])
def test_pairwise_probabilities_equal_libsvm_pipeline(Meta):
    """SVM with Platt scaling per pair, coupled as libsvm does (Wu, Lin & Weng 2004): the
    reference is built from scikit-learn pieces and libsvm's coupling iteration."""
    k, C = RBF(2.0), 1.0
    X, y = _blobs(K=4, std=2.0, m=160)
    Xt, _ = _blobs(K=4, std=2.0, m=100, seed=3)
    base = SupportVectorMachine(k, C=C, tol=1e-9, probability=True, random_state=0)
    meta = Meta(base).fit(X, y)
    P = meta.predict_proba(Xt)
    classes, y_idx = np.unique(y, return_inverse=True)
    r = np.full((len(Xt), 4, 4), 0.5)
    for i, j in pairs(4):
        q = _platt_pair_reference(X, y_idx, i, j, k, C).predict_proba(Xt)[:, 1]
        r[:, j, i], r[:, i, j] = q, 1 - q
    want = np.array([_libsvm_coupling(np.clip(row, 1e-7, 1 - 1e-7)) for row in r])
    np.testing.assert_allclose(P, want, atol=1e-5)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(P >= 0)
    # the coupling is not the vote, but on these blobs they mostly agree
    assert np.mean(classes[P.argmax(axis=1)] == meta.predict(Xt)) > 0.9


class _ConsistentMachine(ClassifierMixin, BaseEstimator):
    """Pairwise machine whose probabilities come from one fixed distribution ``p`` over
    the classes (read from feature 0 of the training inputs, as in _TournamentMachine)."""

    def __init__(self, p=None):
        self.p = p

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.classes_ = np.unique(y)
        self.a_ = int(round(X[y == self.classes_[0], 0].mean()))
        self.b_ = int(round(X[y == self.classes_[1], 0].mean()))
        return self

    def predict_proba(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        pa, pb = self.p[self.a_], self.p[self.b_]
        return np.tile([pa / (pa + pb), pb / (pa + pb)], (len(X), 1))

    def decision_function(self, X):
        P = self.predict_proba(X)
        return np.log(P[:, 1] / P[:, 0])

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


def test_pairwise_coupling_recovers_a_consistent_distribution():
    """If every pair's probabilities come from one p, pairwise coupling returns p and the
    vote, the DAG and the arg-max of the probabilities all pick argmax p."""
    p = np.array([0.1, 0.45, 0.05, 0.25, 0.15])
    X, y, Xt = _tournament({}, 5, n_test=7)
    for Meta in (OneVsOneClassifier, DAGClassifier):
        meta = Meta(_ConsistentMachine(p)).fit(X, y)
        np.testing.assert_allclose(meta.predict_proba(Xt), np.tile(p, (7, 1)), atol=1e-6)
        np.testing.assert_array_equal(meta.predict(Xt), 1)


def test_predict_proba_follows_the_estimator():
    X, y = _blobs(K=3, std=2.0, m=90)
    with_proba = [LogisticRegression(), SupportVectorMachine(probability=True, random_state=0)]
    for Meta in (OneVsOneClassifier, DAGClassifier, OneVsRestClassifier):
        assert not hasattr(Meta(), "predict_proba")                 # default SVM: no
        assert not hasattr(Meta(_svm()), "predict_proba")
        assert not hasattr(Meta(_svm()).fit(X, y), "predict_proba")
        for base in with_proba:
            assert hasattr(Meta(base), "predict_proba")
            fitted = Meta(base).fit(X, y)
            assert hasattr(fitted, "predict_proba")
            P = fitted.predict_proba(X)
            assert P.shape == (len(X), 3) and np.allclose(P.sum(axis=1), 1.0)
        with pytest.raises(AttributeError, match="predict_proba"):
            Meta(_svm()).fit(X, y).predict_proba(X)


class _ConstantOutput(ClassifierMixin, BaseEstimator):
    """A binary machine whose output is the same number everywhere: every point a tie."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return np.zeros(len(X))

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_one_vs_rest_exact_ties_go_to_the_lowest_index_as_in_sklearn():
    """The OneVsRestClassifier docstring: exact ties in the outputs go to the lowest class
    index, as in scikit-learn's OneVsRestClassifier (the installed version)."""
    X, y = _blobs(K=3)
    ours = OneVsRestClassifier(_ConstantOutput()).fit(X, y).predict(X)
    theirs = skm.OneVsRestClassifier(_ConstantOutput()).fit(X, y).predict(X)
    assert set(ours) == {np.unique(y)[0]}
    np.testing.assert_array_equal(ours, theirs)
