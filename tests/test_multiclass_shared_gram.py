"""The pairwise machines of the SVM read one kernel matrix of the whole sample.

``kernelclf.multiclass._PairwiseBase`` fits the pairwise machines of a
``SupportVectorMachine`` on the rows and columns of one kernel matrix of all training
points instead of cloning and fitting
each machine on its own. References: the general path (clone and ``fit`` per pair),
which must give the same machines up to the round-off of the kernel values, and
scikit-learn's ``SVC`` on each pair's examples (the same dual, solved by libsvm).
"""
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.svm import SVC

from kernelclf.kernels import RBF, Polynomial
from kernelclf.margin import SupportVectorMachine
from kernelclf.multiclass import DAGClassifier, OneVsOneClassifier, pairs


def _digits(m=300, seed=0):
    X, y = load_digits(return_X_y=True)
    idx = np.random.default_rng(seed).permutation(len(y))
    X = X / 16.0
    return X[idx[:m]], y[idx[:m]], X[idx[m:m + 300]], y[idx[m:m + 300]]


def _quadratic(A, B):
    return (A @ B.T / 64.0 + 1.0) ** 2


def _general(monkeypatch, wrapper, X, y, **kw):
    """The same wrapper fitted by the general path (a clone and a fit per pair)."""
    with monkeypatch.context() as mp:
        mp.setattr(type(wrapper), "_shared_gram", lambda self, base, X, y_idx: None)
        mp.setattr(type(wrapper), "_fixed_kernel", lambda self, base, X: None)
        return wrapper.fit(X, y, **kw)


def _same_machines(a, b, C, X=None):
    """Same machines pair by pair. The shared matrix and a pair's own matrix differ in
    round-off (other BLAS blockings); on some machines that tips an SMO step at a near tie
    and the two paths part (another stopping point). Such a pair must still reach the same
    dual optimum (objective to 1e-6, both converged, decision values close); at most two
    of the pairs may part."""
    assert len(a.estimators_) == len(b.estimators_)
    parted = []
    for ea, eb in zip(a.estimators_, b.estimators_):
        if X is not None and not (
                np.allclose(ea.alpha_, eb.alpha_, rtol=1e-6, atol=1e-8 * C)
                and ea.intercept_ == pytest.approx(eb.intercept_, rel=1e-6, abs=1e-8)):
            parted.append((ea, eb))
            assert len(parted) <= 2
            assert ea.converged_ and eb.converged_
            assert ea.dual_objective_ == pytest.approx(eb.dual_objective_, rel=1e-6)
            np.testing.assert_allclose(ea.decision_function(X), eb.decision_function(X),
                                       atol=1e-2)
            continue
        assert type(ea) is type(eb)
        assert sorted(vars(ea)) == sorted(vars(eb))
        np.testing.assert_array_equal(ea.classes_, eb.classes_)
        assert ea.classes_.dtype == eb.classes_.dtype
        np.testing.assert_array_equal(ea.X_fit_, eb.X_fit_)
        assert ea.get_params()["C"] == eb.get_params()["C"]
        assert repr(ea.kernel_) == repr(eb.kernel_)
        np.testing.assert_allclose(ea.alpha_, eb.alpha_, rtol=1e-6, atol=1e-8 * C)
        assert ea.intercept_ == pytest.approx(eb.intercept_, rel=1e-6, abs=1e-8)
        assert ea.dual_objective_ == pytest.approx(eb.dual_objective_, rel=1e-9)
        np.testing.assert_array_equal(ea.class_weight_, eb.class_weight_)
    first, second = a.estimators_[:2]           # no kernel object shared between machines
    assert first.kernel_ is not second.kernel_
    assert not hasattr(first.kernel, "get_params") or first.kernel is not second.kernel
    return parted


def _agree(parted, Xt):
    """The test points on which every parted pair's two machines vote alike."""
    keep = np.ones(len(Xt), bool)
    for ea, eb in parted:
        keep &= ea.predict(Xt) == eb.predict(Xt)
    assert keep.mean() > 0.99
    return keep


CASES = {
    "rbf-C1": dict(kernel=RBF(gamma=0.05), C=1.0),
    "rbf-C100": dict(kernel=RBF(gamma=0.05), C=100.0),
    "poly-squared-hinge": dict(kernel=Polynomial(degree=2, offset=1.0, gamma=0.05), C=3.0,
                               loss="squared_hinge"),
    "rbf-balanced": dict(kernel=RBF(gamma=0.05), C=2.0, class_weight="balanced"),
    "linear-default": dict(C=0.1),
    "rbf-scale": dict(kernel="rbf", C=1.0),
    "callable": dict(kernel=_quadratic, C=1.0),     # (not PSD by construction: pairs checked)
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("wrapper", [OneVsOneClassifier, DAGClassifier])
def test_shared_gram_gives_the_general_machines(monkeypatch, case, wrapper):
    X, y, Xt, _ = _digits()
    kw = {"tie_break": "first"} if wrapper is OneVsOneClassifier else {}
    params = CASES[case]
    fast = wrapper(SupportVectorMachine(**params), **kw)
    assert fast._shared_gram(fast._shared_kernel(fast._base(), X), X, y) is not None
    fast.fit(X, y)
    ref = _general(monkeypatch, wrapper(SupportVectorMachine(**params), **kw), X, y)
    keep = _agree(_same_machines(fast, ref, params["C"], X), Xt)
    np.testing.assert_array_equal(fast.predict(Xt)[keep], ref.predict(Xt)[keep])
    if wrapper is OneVsOneClassifier:
        np.testing.assert_array_equal(fast.vote_counts(Xt)[keep], ref.vote_counts(Xt)[keep])


@pytest.mark.parametrize("tie_break", ["first", "confidence", "random"])
def test_shared_outputs_are_the_machines_outputs(tie_break):
    """Prediction from one kernel matrix between the test points and the union of the
    support vectors: every machine's output as its own ``decision_function``, the same
    votes, ties and predictions as machine by machine."""
    X, y, Xt, _ = _digits(300)
    Xt = np.vstack([Xt, X[:20]])                 # (training points among the test points)
    ovo = OneVsOneClassifier(SupportVectorMachine(kernel=RBF(gamma=0.05), C=10.0),
                             tie_break=tie_break, random_state=0).fit(X, y)
    F = ovo._shared_outputs(Xt)
    assert F is not None and F.shape == (len(Xt), 45)
    alone = np.column_stack([e.decision_function(Xt) for e in ovo.estimators_])
    np.testing.assert_allclose(F, alone, rtol=1e-10, atol=1e-10)
    n_sv = sum(e.support_.size for e in ovo.estimators_)
    union = np.unique(np.concatenate([r[e.support_] for r, e in
                                      zip(ovo._pair_rows, ovo.estimators_)]))
    assert union.size < n_sv                     # support vectors shared by machines
    winners = ovo.pairwise_winners(Xt)
    one_by_one = np.column_stack([np.where(e.predict(Xt) == 1, j, i)
                                  for (i, j), e in zip(ovo.pairs_, ovo.estimators_)])
    np.testing.assert_array_equal(winners, one_by_one)
    ref = OneVsOneClassifier(SupportVectorMachine(kernel=RBF(gamma=0.05), C=10.0),
                             tie_break=tie_break, random_state=0).fit(X, y)
    ref._pair_rows = None                        # machine by machine
    np.testing.assert_array_equal(ovo.predict(Xt), ref.predict(Xt))
    np.testing.assert_allclose(ovo.decision_function(Xt), ref.decision_function(Xt),
                               rtol=1e-9, atol=1e-12)


def test_shared_gram_with_sample_weights(monkeypatch):
    """Weights, some of them 0 (those examples leave the pair's dual: its matrix is then
    computed from the others, as in the general path)."""
    X, y, Xt, _ = _digits(200)
    w = np.random.default_rng(1).uniform(0.2, 2.0, len(y))
    w[::7] = 0.0
    svm = SupportVectorMachine(kernel=RBF(gamma=0.05), C=5.0, class_weight={3: 2.0})
    fast = OneVsOneClassifier(svm, tie_break="first").fit(X, y, sample_weight=w)
    ref = _general(monkeypatch, OneVsOneClassifier(svm, tie_break="first"), X, y,
                   sample_weight=w)
    _same_machines(fast, ref, 10.0)
    np.testing.assert_array_equal(fast.predict(Xt), ref.predict(Xt))
    assert all(not np.any(e.alpha_[w[np.flatnonzero((y == e_i) | (y == e_j))] == 0])
               for e, (e_i, e_j) in zip(fast.estimators_, fast.pairs_))


def test_shared_gram_is_used_and_the_pairs_are_not_refitted(monkeypatch):
    """The fast path never calls the machines' ``fit``; a budget below its memory,
    parallel jobs or another estimator send the fit through the general path."""
    X, y, _, _ = _digits(150)
    svm = SupportVectorMachine(kernel=RBF(gamma=0.05))

    def refuse(self, *a, **k):
        raise AssertionError("fit called")

    with monkeypatch.context() as mp:
        mp.setattr(SupportVectorMachine, "fit", refuse)
        OneVsOneClassifier(svm).fit(X, y)
        n = np.sort(np.bincount(y))[-2:].sum()   # the whole matrix, three pair buffers
        need = 8.0 * (len(y) ** 2 + 3 * n ** 2) / 2 ** 20
        OneVsOneClassifier(svm.set_params(cache_mb=need)).fit(X, y)
        below = OneVsOneClassifier(svm.set_params(cache_mb=0.99 * need))
        assert below._shared_gram(below._base(), X, y) is None
        with pytest.raises(AssertionError, match="fit called"):       # (not the blocks')
            mp.setattr(type(below), "_fixed_kernel", lambda self, *a: None)
            below.fit(X, y)
    wrapper = OneVsOneClassifier(SupportVectorMachine(kernel=RBF(gamma=0.05)))
    assert wrapper._shared_gram(wrapper._base(), X, y) is not None
    for other in (OneVsOneClassifier(SupportVectorMachine(kernel=RBF(gamma=0.05)), n_jobs=2),
                  OneVsOneClassifier(SupportVectorMachine(kernel=RBF(gamma=0.05),
                                                          solver="qp")),
                  OneVsOneClassifier(SVC())):
        assert other._shared_gram(other._base(), X, y) is None


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_shared_gram_pairs_solve_svcs_dual(C):
    """Each pair's dual objective equals libsvm's on the pair's examples (SVC at a tight
    tolerance, evaluated with the same kernel), and the predictions agree with SVC's
    one-versus-one vote."""
    X, y, Xt, _ = _digits(400)
    kernel = RBF(gamma=0.05)
    ours = OneVsOneClassifier(SupportVectorMachine(kernel, C=C), tie_break="first").fit(X, y)
    for (i, j), est in zip(pairs(10), ours.estimators_):
        idx = np.flatnonzero((y == i) | (y == j))
        sk = SVC(C=C, gamma=0.05, tol=1e-8).fit(X[idx], y[idx] == j)
        v = sk.dual_coef_[0]
        d_sk = np.abs(v).sum() - 0.5 * v @ kernel(X[idx][sk.support_]) @ v
        assert est.dual_objective_ == pytest.approx(d_sk, rel=1e-3 * 1e-2)
    sk = SVC(C=C, gamma=0.05).fit(X, y)
    assert np.mean(ours.predict(Xt) == sk.predict(Xt)) >= 0.99


@pytest.mark.parametrize("case", ["rbf-C1", "rbf-C100", "rbf-balanced", "linear-default"])
def test_batched_pairs_are_the_pair_by_pair_machines(monkeypatch, case):
    """With numba the pairs' duals are solved in one compiled call (the binary machine's
    pair loop and polish on each pair's rows and columns of the shared matrix): the same
    steps as solving the pairs one by one on their matrices, so the same multipliers bit
    for bit (the threshold and the objective up to the round-off of their sums)."""
    from kernelclf.margin.smo import HAVE_NUMBA
    from kernelclf.margin.smo import compiled as cc

    if not HAVE_NUMBA:
        pytest.skip("the batched solve is the compiled engine's")
    X, y, _, _ = _digits(250)
    params = CASES[case]
    calls = []
    real = cc.solve_pairs_on_blocks
    with monkeypatch.context() as mp:
        mp.setattr(cc, "solve_pairs_on_blocks", lambda *a, **k: calls.append(1) or real(*a, **k))
        fast = OneVsOneClassifier(SupportVectorMachine(**params), tie_break="first").fit(X, y)
    assert calls == [1]
    with monkeypatch.context() as mp:
        mp.setattr(SupportVectorMachine, "_batch_pairs", lambda self: False)
        one = OneVsOneClassifier(SupportVectorMachine(**params), tie_break="first").fit(X, y)
    for ea, eb in zip(fast.estimators_, one.estimators_):
        assert sorted(vars(ea)) == sorted(vars(eb))
        np.testing.assert_array_equal(ea.alpha_, eb.alpha_)
        np.testing.assert_array_equal(ea.support_, eb.support_)
        assert ea.n_iter_ == eb.n_iter_ and ea.converged_ == eb.converged_
        assert ea.intercept_ == pytest.approx(eb.intercept_, rel=1e-12, abs=1e-12)
        assert ea.dual_objective_ == pytest.approx(eb.dual_objective_, rel=1e-12)
        assert repr(ea.kernel_) == repr(eb.kernel_) and ea.kernel_ is not eb.kernel_
        for name, value in vars(ea).items():    # (every array, with its type and order)
            if isinstance(value, np.ndarray):
                other = getattr(eb, name)
                assert value.dtype == other.dtype and value.shape == other.shape, name
                np.testing.assert_array_equal(value, other, err_msg=name)
        assert ea.w_norm_ == pytest.approx(eb.w_norm_, rel=1e-12)
        assert ea.margin_ == pytest.approx(eb.margin_, rel=1e-12)
    assert fast.estimators_[0].kernel_ is not fast.estimators_[1].kernel_


@pytest.mark.parametrize("wrapper", [OneVsOneClassifier, DAGClassifier])
def test_batched_machines_share_one_copy_of_the_inputs(wrapper):
    """The batched machines hold their ``X_fit_`` and ``support_vectors_`` as rows of one
    private copy of the sample (taken when first read) instead of a copy each: every
    reading of them -- the attributes, pickling, deep copies, the machine's own
    ``decision_function`` -- gives the pair's examples in their order in ``X`` (and its
    support vectors in the order of ``support_``), and changing the caller's ``X`` after
    ``fit`` changes none of them."""
    import copy
    import pickle

    from kernelclf.margin.smo import HAVE_NUMBA
    from kernelclf.margin.svm import _RowsOf

    if not HAVE_NUMBA:
        pytest.skip("the batched solve is the compiled engine's")
    X, y, Xt, _ = _digits(250)
    X = X.copy()
    kw = {"tie_break": "first"} if wrapper is OneVsOneClassifier else {}
    ovo = wrapper(SupportVectorMachine(kernel=RBF(gamma=0.05), C=10.0), **kw).fit(X, y)
    X0 = X.copy()
    X[:] = -1.0                              # (the caller's array, changed after fit)
    names = ("X_fit_", "support_vectors_")
    lazy = [vars(e)[name] for e in ovo.estimators_ for name in names]
    assert all(type(v) is _RowsOf for v in lazy)
    assert len({id(v.store) for v in lazy}) == 1 and lazy[0].store is not X
    outputs = ovo.predict(Xt)
    if wrapper is OneVsOneClassifier:       # (the vote reads the rows in place)
        assert all(type(vars(e)[name]) is _RowsOf for e in ovo.estimators_ for name in names)
    copied = copy.deepcopy(ovo)
    loaded = pickle.loads(pickle.dumps(ovo))
    single = pickle.loads(pickle.dumps(ovo.estimators_[3]))
    for p, ((i, j), e) in enumerate(zip(ovo.pairs_, ovo.estimators_)):
        rows = np.flatnonzero((y == i) | (y == j))
        for other in (copied.estimators_[p], loaded.estimators_[p]) + \
                ((single,) if p == 3 else ()):
            assert all(type(vars(other)[name]) is np.ndarray for name in names)
            np.testing.assert_array_equal(other.X_fit_, X0[rows])
            np.testing.assert_array_equal(other.support_vectors_, X0[rows][e.support_])
        np.testing.assert_array_equal(e.decision_function(Xt),
                                      loaded.estimators_[p].decision_function(Xt))
        assert type(vars(e)["X_fit_"]) is np.ndarray       # (read once, then held)
        np.testing.assert_array_equal(e.X_fit_, X0[rows])
        assert e.X_fit_ is e.X_fit_ and e.X_fit_.flags.owndata
        np.testing.assert_array_equal(e.support_vectors_, X0[rows][e.support_])
        assert type(vars(e)["support_vectors_"]) is np.ndarray
    np.testing.assert_array_equal(loaded.predict(Xt), outputs)
    np.testing.assert_array_equal(copied.predict(Xt), outputs)
    e = ovo.estimators_[0]
    del e.X_fit_, e.support_vectors_
    assert not hasattr(e, "X_fit_") and not hasattr(e, "support_vectors_")


def test_whole_rbf_matrix_is_the_kernels_matrix():
    """The RBF matrix of the whole sample in three passes (``whole_rbf_matrix``, with numba):
    the kernel's own matrix bit for bit, entries in ``[0, 1]`` with ones on the diagonal
    (the bounds the kernel guard is given); None where the kernel's own path must run."""
    from kernelclf.kernels import Linear
    from kernelclf.kernels.native_columns import HAVE_NUMBA, whole_rbf_matrix

    if not HAVE_NUMBA:
        pytest.skip("the compiled pass is numba's")
    X, _, _, _ = _digits(150)
    for kernel in (RBF(gamma=0.05), RBF(sigma=0.7), RBF(gamma=3.0)):
        G = whole_rbf_matrix(kernel, X)
        np.testing.assert_array_equal(G, kernel(X))
        assert G.min() >= 0.0 and G.max() == 1.0 and np.all(np.diag(G) == 1.0)
    assert whole_rbf_matrix(Linear(), X) is None
    assert whole_rbf_matrix(RBF(gamma=0.05), X * 1e160) is None       # (norms overflow)



@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("wrapper", [OneVsOneClassifier, DAGClassifier])
def test_beyond_the_budget_the_machines_are_a_clones_fit(monkeypatch, case, wrapper):
    """When the whole matrix does not fit ``cache_mb``, each pair's machine is fitted on its
    examples without a clone and its ``fit`` (no re-validation; its own kernel columns):
    the machines of a clone's ``fit`` per pair, to the bit (the same computation), the
    same votes and predictions."""
    X, y, Xt, _ = _digits(300)
    n = np.sort(np.bincount(y))[-2:].sum()
    below = 0.9 * 8.0 * (len(y) ** 2 + 3 * n ** 2) / 2 ** 20      # the whole matrix: no
    kw = {"tie_break": "first"} if wrapper is OneVsOneClassifier else {}
    params = dict(CASES[case], cache_mb=below)
    fast = wrapper(SupportVectorMachine(**params), **kw)
    base = fast._shared_kernel(fast._base(), X)
    assert fast._shared_gram(base, X, y) is None and fast._fixed_kernel(base, X) is not None

    def refuse(self, *a, **k):
        raise AssertionError("fit called")

    with monkeypatch.context() as mp:
        mp.setattr(SupportVectorMachine, "fit", refuse)
        fast.fit(X, y)
    ref = _general(monkeypatch, wrapper(SupportVectorMachine(**params), **kw), X, y)
    _same_machines(fast, ref, params["C"], X)
    for ea, eb in zip(fast.estimators_, ref.estimators_):
        np.testing.assert_array_equal(ea.alpha_, eb.alpha_)
        assert ea.intercept_ == eb.intercept_ and ea.n_iter_ == eb.n_iter_
    np.testing.assert_array_equal(fast.predict(Xt), ref.predict(Xt))
    if wrapper is OneVsOneClassifier:
        np.testing.assert_array_equal(fast.vote_counts(Xt), ref.vote_counts(Xt))
        np.testing.assert_allclose(fast.decision_function(Xt), ref.decision_function(Xt),
                                   rtol=1e-9, atol=1e-12)


def test_beyond_the_budget_with_sample_weights(monkeypatch):
    """Weights, some 0, past the budget: a clone's ``fit`` per pair, to the bit."""
    X, y, Xt, _ = _digits(200)
    w = np.random.default_rng(1).uniform(0.2, 2.0, len(y))
    w[::7] = 0.0
    svm = SupportVectorMachine(kernel=RBF(gamma=0.05), C=5.0, class_weight={3: 2.0},
                               cache_mb=0.1)
    fast = OneVsOneClassifier(svm, tie_break="first")

    def refuse(self, X, y, sample_weight=None):
        raise AssertionError("fit called")

    with monkeypatch.context() as mp:              # (the path without clones)
        mp.setattr(SupportVectorMachine, "fit", refuse)
        fast.fit(X, y, sample_weight=w)
    ref = _general(monkeypatch, OneVsOneClassifier(svm, tie_break="first"), X, y,
                   sample_weight=w)
    _same_machines(fast, ref, 10.0)
    for ea, eb in zip(fast.estimators_, ref.estimators_):
        np.testing.assert_array_equal(ea.alpha_, eb.alpha_)
    np.testing.assert_array_equal(fast.predict(Xt), ref.predict(Xt))


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_beyond_the_budget_pairs_solve_svcs_dual(C):
    """Past the budget each pair's dual objective equals libsvm's on the pair's examples
    (SVC at a tight tolerance, the same kernel), as on the whole matrix."""
    X, y, _, _ = _digits(400)
    kernel = RBF(gamma=0.05)
    ours = OneVsOneClassifier(SupportVectorMachine(kernel, C=C, cache_mb=1.0),
                              tie_break="first")
    assert ours._shared_gram(ours._base(), X, y) is None
    ours.fit(X, y)
    for (i, j), est in zip(pairs(10), ours.estimators_):
        idx = np.flatnonzero((y == i) | (y == j))
        sk = SVC(C=C, gamma=0.05, tol=1e-8).fit(X[idx], y[idx] == j)
        v = sk.dual_coef_[0]
        d_sk = np.abs(v).sum() - 0.5 * v @ kernel(X[idx][sk.support_]) @ v
        assert est.dual_objective_ == pytest.approx(d_sk, rel=1e-3 * 1e-2)


@pytest.mark.parametrize("gamma", [1e5, 1e-9])
def test_beyond_the_budget_the_guard_still_warns(monkeypatch, gamma):
    """A kernel matrix numerically the identity (huge width) or constant (tiny width) past
    the budget: the kernel guard warns as for the per-pair fits (once on the whole sample
    with numba, once per pair without)."""
    from kernelclf.kernels.gram_guard import DegenerateKernelWarning

    X, y, _, _ = _digits(1200)                  # (pairs of more than 200 examples)
    assert np.sort(np.bincount(y))[:2].sum() > 200
    svm = SupportVectorMachine(kernel=RBF(gamma=gamma), C=1.0, cache_mb=5.0)
    fast = OneVsOneClassifier(svm, tie_break="first")
    assert fast._shared_gram(fast._base(), X, y) is None
    assert fast._fixed_kernel(fast._base(), X) is not None     # (the path without clones)
    with pytest.warns(DegenerateKernelWarning):
        fast.fit(X, y)
    with pytest.warns(DegenerateKernelWarning):
        _general(monkeypatch, OneVsOneClassifier(svm, tie_break="first"), X, y)


@pytest.mark.parametrize("kernel", [RBF(gamma=0.05), Polynomial(degree=3, gamma=0.02,
                                                                 offset=1.0), "linear"])
def test_pair_matrix_from_class_blocks_is_the_pairs_matrix(kernel):
    """Past the budget, a pair's compiled columns come from its classes' blocks
    (``_ClassBlocks.pair_spec``, ``_pair_column``) and, past their switch, its whole
    matrix is assembled from them (``_ClassBlocks.pair_matrix``): both the kernel's own
    matrix of the pair's examples, in their order in ``X``, to round-off, and the matrix
    the pair would compute itself (``whole_matrix``) to round-off; no blocks for few
    features or when the diagonal blocks exceed their share of ``cache_mb``."""
    from kernelclf.kernels import Linear
    from kernelclf.kernels.gram import Gram
    from kernelclf.kernels.native_columns import (
        HAVE_NUMBA,
        PAIR,
        ROWS,
        _column,
        column_spec,
        whole_matrix,
    )
    from kernelclf.multiclass import _ClassBlocks

    if not HAVE_NUMBA:
        pytest.skip("the compiled columns are numba's")
    kernel = Linear() if kernel == "linear" else kernel
    X, y, _, _ = _digits(600)
    blocks = _ClassBlocks.of(kernel, X, y, 10, 200.0)
    for i, j in [(0, 1), (2, 7), (3, 9), (8, 9)]:
        idx = np.flatnonzero((y == i) | (y == j))
        Kp = blocks.pair_matrix(i, j, y[idx] == j)
        own = np.asarray(kernel(X[idx]))
        np.testing.assert_allclose(Kp, own, rtol=1e-12, atol=1e-13)
        whole = whole_matrix(column_spec(Gram(kernel, X[idx], precompute=False,
                                              cache_mb=0.01, check=False)))
        np.testing.assert_allclose(Kp, whole, rtol=1e-13, atol=1e-14)
        spec = blocks.pair_spec(i, j, y[idx] == j)
        assert spec[0] == blocks.spec[0] - ROWS + PAIR
        cols = np.empty((idx.size, idx.size))
        for t in range(idx.size):
            assert _column(cols[t], t, *spec)
        np.testing.assert_allclose(cols, own, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(cols, Kp, rtol=1e-13, atol=1e-14)
    assert _ClassBlocks.of(kernel, X[:, :30], y, 10, 200.0) is None     # (few features)
    need = 8.0 * np.sum(np.bincount(y).astype(float) ** 2) / 2 ** 20
    assert _ClassBlocks.of(kernel, X, y, 10, 0.99 * need / _ClassBlocks.SHARE) is None
    assert _ClassBlocks.of(kernel, X, y, 10, need / _ClassBlocks.SHARE) is not None


@pytest.mark.parametrize("switch", [None, 0.0])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_beyond_the_budget_blocks_give_a_clones_machines(monkeypatch, C, switch):
    """Pairs of more than 200 examples on 64 features, past the budget: their columns
    come from the classes' blocks (each class's diagonal block computed once), and, when
    they switch at once (``PAIR_SWITCH = 0``), their whole matrices; either way the
    machines are those of a clone's ``fit`` per pair (which computes each pair's own
    columns and matrix) up to the round-off of the kernel values (``_same_machines``)."""
    import kernelclf.kernels.native_columns as nc
    from kernelclf.multiclass import _ClassBlocks

    if not nc.HAVE_NUMBA:
        pytest.skip("the compiled columns are numba's")
    X, y, Xt, _ = _digits(1200)
    svm = SupportVectorMachine(kernel=RBF(gamma=0.05), C=C, cache_mb=5.0)
    fast = OneVsOneClassifier(svm, tie_break="first")
    assert fast._shared_gram(fast._base(), X, y) is None
    calls, specs, diagonals = [], [], []
    pair_matrix, pair_spec = _ClassBlocks.pair_matrix, _ClassBlocks.pair_spec
    diagonal = _ClassBlocks._diagonal

    def counted(self, i, j, in_j):
        calls.append((i, j))
        return pair_matrix(self, i, j, in_j)

    def counted_spec(self, i, j, in_j):
        specs.append((i, j))
        return pair_spec(self, i, j, in_j)

    def counted_diagonal(self, c):
        if c not in self.diag:
            diagonals.append(c)
        return diagonal(self, c)

    with monkeypatch.context() as mp:
        mp.setattr(_ClassBlocks, "pair_matrix", counted)
        mp.setattr(_ClassBlocks, "pair_spec", counted_spec)
        mp.setattr(_ClassBlocks, "_diagonal", counted_diagonal)
        if switch is not None:
            mp.setattr(nc, "PAIR_SWITCH", switch)
        fast.fit(X, y)
    assert len(specs) == 45                      # (every pair's columns from the blocks)
    if switch is None:
        assert len(calls) < 45
    else:
        assert len(calls) > 20                   # (most pairs switch to their matrix)
    assert len(diagonals) == len(set(diagonals)) == 10
    ref = _general(monkeypatch, OneVsOneClassifier(svm, tie_break="first"), X, y)
    parted = _same_machines(fast, ref, C, X)
    keep = _agree(parted, Xt)
    np.testing.assert_array_equal(fast.predict(Xt)[keep], ref.predict(Xt)[keep])
