"""kernels.native_columns on many features and on sparse inputs (issue 41): the columns
computed by example (one BLAS product per column), the dense copy of sparse inputs, and
the compiled SMO's switch to the whole matrix; with and without numba."""
import numpy as np
import pytest
import scipy.sparse as sp

from kernelclf.kernels import RBF, Gram, Linear, Polynomial
from kernelclf.kernels import native_columns as nc
from kernelclf.margin import SupportVectorMachine, solve_smo

KERNELS = [RBF(gamma=0.05), Polynomial(3, 1.0, gamma=0.02), Linear()]


def _inputs(sparse, m=90, n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    if sparse:                                   # about 10 % non-zeros, as word counts
        X[rng.random((m, n)) > 0.1] = 0.0
        return sp.csr_matrix(X)
    return X


def _fill_seven_columns(g, spec, K, m):
    """``fill_slot`` for columns 0-6 into a cache of three slots (evictions happen): each
    column equals the kernel matrix's row to 1e-12; returns the slots."""
    from kernelclf.kernels.gram import ColumnSlots

    slots = ColumnSlots(g, cache_mb=3 * 8 * m / 2 ** 20)
    slots.reserve()
    ust = np.array([slots.used, slots.filled])
    for i in range(7):
        s = nc.fill_slot(i, slots.data, slots.slot, slots.owner, slots.stamp, slots.clock,
                         ust, *spec)
        assert s >= 0 and slots.slot[i] == s
        np.testing.assert_allclose(slots.data[s], K[i], rtol=1e-12, atol=1e-12)
    return slots


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel", KERNELS, ids=["rbf", "poly", "linear"])
def test_columns_on_many_features_equal_the_kernel_matrix(kernel, sparse):
    """Whole columns (``_column``, ``fill_slot``) and columns on some rows (``column_at``)
    equal the kernel's own matrix to 1e-12; without numba the spec leaves the columns to
    Python, whose columns equal the matrix too."""
    X = _inputs(sparse)
    K = kernel(X)
    g = Gram(kernel, X, precompute=False)
    spec = nc.column_spec(g)
    m = K.shape[0]
    for i in (0, 41, m - 1):                     # the NumPy columns, always there
        np.testing.assert_allclose(g.column(i), K[i], rtol=1e-12, atol=1e-12)
    if not nc.HAVE_NUMBA:
        assert spec[0] == nc.NONE
        return
    assert spec[0] > nc.ROWS                     # stored by example (60 > 32 features)
    assert spec[1].shape == (m, X.shape[1]) and spec[1].flags.c_contiguous
    out = np.empty(m)
    rows = np.array([5, 0, 77, 12, 89, 3], dtype=np.int64)
    for i in (0, 41, m - 1):
        assert nc._column(out, i, *spec)
        np.testing.assert_allclose(out, K[i], rtol=1e-12, atol=1e-12)
        part = np.full(m, np.nan)
        assert nc.column_at(part, i, rows, rows.size, *spec)
        np.testing.assert_allclose(part[:rows.size], K[rows, i], rtol=1e-12, atol=1e-12)
        assert np.isnan(part[rows.size:]).all()            # only ``n`` entries written
    slots = _fill_seven_columns(g, spec, K, m)
    assert (slots.slot >= 0).sum() == 3


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel", KERNELS, ids=["rbf", "poly", "linear"])
def test_columns_on_stored_rows_equal_the_kernel_matrix(kernel):
    """``column_on_rows`` (the shrunk problem's columns from the active inputs stored in
    order: a product over blocks of four rows, the last ``n mod 4`` in a padded block)
    equals the kernel's own NumPy matrix on those rows to 1e-12, and ``column_at`` to
    round-off, for ``n`` below, at and above a block of four; it writes ``n`` entries
    only."""
    X = _inputs(False)
    K = kernel(X)
    spec = nc.column_spec(Gram(kernel, X, precompute=False))
    kind, Xs, sq, offset, degree = spec[:5]
    assert nc.ROWS < kind < nc.SPARSE
    m = len(X)
    rows = np.array([5, 0, 77, 12, 89, 3, 40, 41, 88], dtype=np.int64)
    Xr = np.zeros((m + 4, Xs.shape[1]))
    Xr[:rows.size] = Xs[rows]
    for n in (1, 3, 4, 6, 9):
        for i in (0, 41, m - 1):
            out = np.full(m, np.nan)
            assert nc.column_on_rows(out, i, rows, n, kind, Xs, Xr, sq, offset, degree)
            np.testing.assert_allclose(out[:n], K[rows[:n], i], rtol=1e-12, atol=1e-12)
            assert np.isnan(out[n:]).all()
            at = np.empty(m)
            assert nc.column_at(at, i, rows, n, *spec)
            np.testing.assert_allclose(out[:n], at[:n], rtol=1e-13, atol=1e-13)


def test_which_inputs_get_compiled_columns():
    """Few features: stored by feature; a large sparse matrix (its dense copy above
    DENSE_MB): kept in CSR form; another kernel or a ridge: Python's columns."""
    X = _inputs(False, n=8)
    spec = nc.column_spec(Gram(RBF(0.7), X, precompute=False))
    if not nc.HAVE_NUMBA:
        assert spec[0] == nc.NONE
        return
    assert spec[0] == nc.RBF_KIND and spec[1].shape == (8, len(X))
    big = sp.random(3000, 3000, density=0.001, format="csr", random_state=0)
    assert 8.0 * 3000 * 3000 > nc.DENSE_MB * 2 ** 20
    assert nc.column_spec(Gram(Linear(), big, precompute=False, check=False))[0] == (
        nc.LINEAR + nc.SPARSE)
    assert nc.column_spec(Gram(Linear(), big, ridge=0.5, precompute=False,
                               check=False))[0] == nc.NONE
    assert nc.column_spec(Gram(Linear(), X, ridge=0.5, precompute=False))[0] == nc.NONE
    assert nc.switch_fraction(nc.RBF_KIND, 2000, 8) is None      # by feature: never
    fr = [nc.switch_fraction(nc.RBF_KIND + nc.ROWS, 2000, n) for n in (50, 256, 784)]
    assert 0 < fr[2] < fr[1] < fr[0] < 1
    # a quarter of the matrix's cost in columns: 4 MB and 12.5 MB of inputs (out of the
    # cache) switch after a few per cent of the columns, 0.8 MB (in it) after an eighth
    assert fr[2] < fr[1] < 0.05 < 0.1 < fr[0] <= 0.25
    assert nc.switch_fraction(nc.RBF_KIND + nc.ROWS, 500, 256) > 1.5 * fr[1]   # 1 MB


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("fraction", [None, 0.1, 0.3])
@pytest.mark.parametrize("cache_mb", [200.0, 0.05])
def test_compiled_smo_on_many_features_reaches_the_numpy_engines_optimum(
        fraction, cache_mb, monkeypatch):
    """The compiled SMO with compiled columns by example: never switching, or switching
    to the whole matrix (computed anew by ``whole_matrix``) after a tenth or 30 % of the
    columns; with a small cache the shrunk problem's columns are computed
    on their rows (``column_at``). The same optimum as the NumPy engine on Python's
    columns at the same budget (with the small cache both keep their columns in single
    precision, so both solve the same rounded problem): dual objectives within 1e-9, KKT
    gap below the tolerance."""
    from kernelclf.margin.smo import compiled

    if fraction is not None:
        monkeypatch.setattr(compiled, "switch_fraction", lambda kind, m, n: fraction)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 40))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0, 1.0, -1.0)
    kernel = RBF(gamma=0.02)
    a = solve_smo(np.ones(300), 5.0, Gram(kernel, X, precompute=False, cache_mb=cache_mb),
                  s=y, tol=1e-9, engine="numpy")
    b = solve_smo(np.ones(300), 5.0, Gram(kernel, X, precompute=False, cache_mb=cache_mb),
                  s=y, tol=1e-9, engine="compiled")
    assert a.converged and b.converged and b.gap <= 1e-9
    assert abs(a.objective - b.objective) <= 1e-9 * abs(a.objective)
    assert np.max(np.abs(a.alpha - b.alpha)) < 1e-5


def _both_engines_agree(kernel, X, y, C, budget):
    """The NumPy and the compiled SMO at the same budget (the same rounded problem): both
    converged, dual objectives within 1e-9 relative, the compiled KKT gap below the
    tolerance, the same support vectors. Returns the compiled result."""
    ones = np.ones(len(y))
    a = solve_smo(ones, C, Gram(kernel, X, precompute=False, cache_mb=budget),
                  s=y, tol=1e-9, engine="numpy")
    b = solve_smo(ones, C, Gram(kernel, X, precompute=False, cache_mb=budget),
                  s=y, tol=1e-9, engine="compiled")
    assert a.converged and b.converged and b.gap <= 1e-9
    assert abs(a.objective - b.objective) <= 1e-9 * abs(a.objective)
    assert np.array_equal(a.alpha > 1e-8, b.alpha > 1e-8)
    return b


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("n_features", [6, 40])
@pytest.mark.parametrize("kernel", [RBF(gamma="scale"), Polynomial(3, 1.0, gamma=0.05)],
                         ids=["rbf", "poly"])
def test_compiled_smo_with_one_pool_of_columns_reaches_the_numpy_engines_optimum(
        kernel, n_features, monkeypatch):
    """A budget of 40 double-precision columns of 600 (80 in single precision, as both
    engines keep them past the budget; at most half of them) without callbacks: the
    compiled loop keeps one pool of columns (whole ones while every variable is active,
    compacted ones once shrinking has set some aside, the whole ones turned into
    compacted ones), on few features (columns by feature) and on many (the active inputs
    stored in order, ``column_on_rows``). The same optimum as the NumPy engine on
    Python's columns at the same budget (the same rounded problem): dual objectives
    within 1e-9, KKT gap below the tolerance, the same support vectors; and the same
    steps, bit for bit, as the compiled loop with the budget split between whole and
    compacted columns (``POOL_SHARE = 0``: the same numbers in another store)."""
    from kernelclf.margin.smo import compiled

    pooled = []
    real = compiled._compact_memory

    def spy(slots, m):
        pooled.append(getattr(slots, "pooled", None) and slots.capacity < slots.m)
        return real(slots, m)
    monkeypatch.setattr(compiled, "_compact_memory", spy)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(600, n_features))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=600) > 0, 1.0, -1.0)
    budget = 40 * 8 * 600 / 2 ** 20
    b = _both_engines_agree(kernel, X, y, 10.0, budget)
    assert pooled == [True]
    monkeypatch.setattr(compiled, "POOL_SHARE", 0.0)
    c = solve_smo(np.ones(600), 10.0, Gram(kernel, X, precompute=False, cache_mb=budget),
                  s=y, tol=1e-9, engine="compiled")
    assert pooled == [True, False] and c.converged
    assert b.iterations == c.iterations and np.array_equal(b.alpha, c.alpha)
    assert b.gap == c.gap


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel, case", [
    (k, c) for k in (RBF(gamma="scale"), Polynomial(3, 1.0, gamma=0.05), Linear())
    for c in ("L1 bias", "diag shift", "nu no bias")
    if not (type(k) is Linear and c == "nu no bias")])   # (that one never shrinks here)
def test_pooled_reconstruction_from_blocks_reaches_the_same_point(kernel, case,
                                                                  monkeypatch):
    """With one pool of columns on many features (600 examples of 40 features, 80 of
    their columns in single precision), the gradient of the shrunk variables is rebuilt
    from blocks of kernel entries on the shrunk rows only, one matrix product per block
    of moved variables (``compiled.BLOCK_REC``, :func:`kernelclf.margin.smo.compiled._rec_blocked`),
    instead of the moved variables' whole columns: fewer kernel entries computed, and
    the same end point as with whole columns (the entries agree to round-off before
    both are rounded to single precision): the same steps and support vectors, dual
    objectives within 1e-12, both converged to the tolerance (1e-6; 1e-3 for the nu
    dual). With kernel signs (the nu-SVM without
    threshold) and with a diagonal shift (the weighted squared hinge)."""
    from kernelclf.margin.smo import compiled

    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 40))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=600) > 0, 1.0, -1.0)
    m = len(y)
    kw = {"L1 bias": dict(s=y), "diag shift": dict(s=y, C=np.inf,
                                                   diag_shift=np.linspace(.05, .5, m)),
          "nu no bias": dict(kernel_signs=y, p=np.zeros(m), C=1.0)}[case]
    p, C = kw.pop("p", np.ones(m)), kw.pop("C", 10.0)
    tol = 1e-6
    if case == "nu no bias":                       # a feasible start, nu = 0.2
        a0 = np.zeros(m)
        a0[:int(0.2 * m)] = 1.0
        kw["alpha0"] = a0
        tol = 1e-3                                 # (the nu dual stalls below it here)
    budget = 40 * 8 * m / 2 ** 20
    out = {}
    for blocked in (False, True):
        monkeypatch.setattr(compiled, "BLOCK_REC", blocked)
        g = Gram(kernel, X, precompute=False, cache_mb=budget)
        res = solve_smo(p, C, g, tol=tol, engine="compiled", **kw)
        assert res.converged and res.gap <= tol
        out[blocked] = (res, g.n_computed)
    (a, na), (b, nb) = out[False], out[True]
    assert nb < na                                  # the blocks ran: fewer entries
    assert a.iterations == b.iterations
    assert np.array_equal(a.alpha > 0, b.alpha > 0)
    assert abs(a.objective - b.objective) <= 1e-12 * abs(a.objective)


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel", [RBF(gamma="scale"), Polynomial(3, 1.0, gamma=0.05),
                                    Linear()], ids=["rbf", "poly", "linear"])
@pytest.mark.parametrize("C", [0.05, 10.0])
def test_columns_computed_ahead_in_blocks_reach_the_same_point(kernel, C, monkeypatch):
    """Past a budget that holds most columns (600 examples of 40 features, 500 of their
    columns in single precision: no pool), a missing whole column is computed together with
    those of up to ``compiled.AHEAD`` more of the most violating variables, one matrix
    product for all (:func:`kernelclf.margin.smo.compiled._ahead`): other columns are
    computed (more kernel entries), the same steps and support vectors as one column at
    a time, dual objectives within 1e-12, both converged; and the NumPy engine's optimum
    on Python's columns at that budget (:func:`_both_engines_agree`), except for the linear
    kernel at C = 10: there the NumPy engine takes about three million steps (a minute);
    the linear kernel's NumPy optimum is checked at C = 0.05."""
    from kernelclf.margin.smo import compiled

    rng = np.random.default_rng(8)
    X = rng.normal(size=(600, 40))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=600) > 0, 1.0, -1.0)
    budget = 250 * 8 * 600 / 2 ** 20
    out = {}
    for ahead in (0, 7):
        monkeypatch.setattr(compiled, "AHEAD", ahead)
        g = Gram(kernel, X, precompute=False, cache_mb=budget)
        res = solve_smo(np.ones(600), C, g, s=y, tol=1e-6, engine="compiled")
        assert res.converged and res.gap <= 1e-6
        out[ahead] = (res, g.n_computed)
    (a, na), (b, nb) = out[0], out[7]
    assert nb != na                                 # the blocks ran
    assert a.iterations == b.iterations
    assert np.array_equal(a.alpha > 0, b.alpha > 0)
    assert abs(a.objective - b.objective) <= 1e-12 * abs(a.objective)
    if not (isinstance(kernel, Linear) and C > 1):
        _both_engines_agree(kernel, X, y, C, budget)


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel", KERNELS + [RBF(gamma="scale"), Polynomial(2, 0.5)],
                         ids=["rbf", "poly", "linear", "rbf-scale", "poly2"])
def test_whole_matrix_equals_the_kernel_matrix(kernel):
    """``whole_matrix`` (one product of the inputs by example and the columns' formula)
    equals the kernel's own NumPy matrix to 1e-12, and a slot filled by ``fill_slot`` to
    round-off; inputs whose kernel values overflow give None (the checked path then
    raises the package's error)."""
    X = _inputs(False, m=70, n=45, seed=2)
    g = Gram(kernel, X, precompute=False)
    spec = nc.column_spec(g)
    assert spec[0] > nc.ROWS
    K = nc.whole_matrix(spec)
    np.testing.assert_allclose(K, kernel(X), rtol=1e-12, atol=1e-12)
    out = np.empty(70)
    assert nc._column(out, 5, *spec)
    np.testing.assert_allclose(K[5], out, rtol=1e-13, atol=1e-13)
    huge = list(nc.column_spec(Gram(Linear(), X, precompute=False)))
    huge[1] = 1e160 * huge[1]               # (finite inputs whose inner products overflow)
    with np.errstate(all="ignore"):
        assert nc.whole_matrix(tuple(huge)) is None


def test_svm_on_sparse_counts_matches_svc():
    """A sparse bag of words (its dense copy's columns compiled where numba is): the
    machine's dual objective equals SVC's to the tolerance's reach, both kernels."""
    from sklearn.svm import SVC

    rng = np.random.default_rng(1)
    counts = rng.poisson(0.08, size=(400, 300)).astype(float)
    y = np.where(counts[:, :30].sum(axis=1) > counts[:, 30:60].sum(axis=1), 1.0, -1.0)
    X = sp.csr_matrix(counts / np.maximum(np.linalg.norm(counts, axis=1, keepdims=True), 1))
    for kernel, kw in ((RBF(gamma=1.0), dict(kernel="rbf", gamma=1.0)),
                       (Polynomial(2, 1.0), dict(kernel="poly", degree=2, gamma=1.0,
                                                 coef0=1.0))):
        ours = SupportVectorMachine(kernel, C=10.0, tol=1e-6).fit(X, y)
        sk = SVC(C=10.0, tol=1e-6, **kw).fit(X, y)
        v = sk.dual_coef_.toarray()[0]             # (sparse when fitted on sparse rows)
        K = kernel(X[sk.support_])
        d_sk = np.abs(v).sum() - 0.5 * v @ K @ v
        assert abs(ours.dual_objective_ - d_sk) <= 1e-5 * abs(d_sk)
        assert np.mean(ours.predict(X) == sk.predict(X)) >= 0.99


def _counts(m, n, seed):
    """Sparse unit-norm word counts (CSR), about 5 % non-zeros."""
    rng = np.random.default_rng(seed)
    counts = rng.poisson(0.05, size=(m, n)).astype(float)
    return sp.csr_matrix(counts / np.maximum(np.linalg.norm(counts, axis=1, keepdims=True),
                                             1))


@pytest.mark.parametrize("kernel", KERNELS + [RBF(gamma="scale"), Polynomial(2, 0.5)],
                         ids=["rbf", "poly", "linear", "rbf-scale", "poly2"])
def test_sparse_columns_in_csr_form_equal_the_kernel_matrix(kernel, monkeypatch):
    """Sparse inputs whose dense copy exceeds ``DENSE_MB`` (lowered here) stay in CSR form:
    whole columns, columns on some rows and slots filled by ``fill_slot`` equal the
    kernel's own matrix to 1e-12; below the threshold the dense copy is used. Duplicate
    entries of a non-canonical CSR matrix are summed. Without numba: Python's columns."""
    X = _counts(120, 70, 4)
    X.data[0] = 0.0                              # an explicit (stored) zero
    K = kernel(X)
    m = K.shape[0]
    small = nc.column_spec(Gram(kernel, X, precompute=False))   # below the threshold
    monkeypatch.setattr(nc, "DENSE_MB", 8.0 * m * X.shape[1] / 2 ** 20 * 0.99)
    g = Gram(kernel, X, precompute=False)
    spec = nc.column_spec(g)
    if not nc.HAVE_NUMBA:
        assert spec[0] == small[0] == nc.NONE
        return
    assert small[0] == spec[0] - nc.SPARSE + nc.ROWS          # dense copy, by example
    assert spec[0] > nc.SPARSE and spec[1].shape == (1, X.nnz)
    assert spec[5].dtype == spec[6].dtype == np.int64 and spec[6].size == m + 1
    assert nc.switch_fraction(spec[0], m, X.shape[1]) is None
    out = np.empty(m)
    rows = np.array([5, 0, 77, 12, 119, 3, 3], dtype=np.int64)
    for i in (0, 3, 41, m - 1):
        assert nc._column(out, i, *spec)
        np.testing.assert_allclose(out, K[i], rtol=1e-12, atol=1e-12)
        part = np.full(m, np.nan)
        assert nc.column_at(part, i, rows, rows.size, *spec)
        np.testing.assert_allclose(part[:rows.size], K[rows, i], rtol=1e-12, atol=1e-12)
        assert np.isnan(part[rows.size:]).all()
        assert not spec[7].any()                  # the work vector is zeros again
    _fill_seven_columns(g, spec, K, m)
    # a non-canonical matrix: duplicate entries are summed, as scipy's products do
    D = sp.csr_matrix((np.r_[X.data, 0.25, 0.5], np.r_[X.indices, 1, 1],
                       np.r_[X.indptr[:-1], X.nnz + 2]), shape=X.shape)
    D.has_canonical_format = False
    Kd = kernel(sp.csr_matrix(D.toarray()))
    sd = nc.column_spec(Gram(kernel, D, precompute=False, check=False))
    assert sd[0] == spec[0]
    assert nc._column(out, m - 1, *sd)
    np.testing.assert_allclose(out, Kd[m - 1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, ids=["rbf", "poly", "linear"])
@pytest.mark.parametrize("cache_mb", [200.0, 0.05])
def test_compiled_smo_on_csr_inputs_reaches_the_dense_inputs_optimum(kernel, cache_mb,
                                                                     monkeypatch):
    """The SMO on sparse inputs kept in CSR form (``DENSE_MB`` lowered) reaches the
    solution it reaches on the same inputs as a dense array: dual objectives within 1e-9
    relative, the same multipliers to 1e-6, KKT gap below the tolerance; with a small
    cache the shrunk problem's columns come from ``column_at``. Without numba both run
    the NumPy columns."""
    X = _counts(400, 300, 5)
    dense = X.toarray()
    y = np.where(dense[:, :30].sum(axis=1) > dense[:, 30:60].sum(axis=1), 1.0, -1.0)
    monkeypatch.setattr(nc, "DENSE_MB", 0.1)          # 400 x 300 dense: 0.9 MiB
    g = Gram(kernel, X, precompute=False, cache_mb=cache_mb)
    if nc.HAVE_NUMBA:
        assert nc.column_spec(g)[0] > nc.SPARSE
    a = solve_smo(np.ones(400), 10.0, Gram(kernel, dense, precompute=False,
                                           cache_mb=cache_mb), s=y, tol=1e-9)
    b = solve_smo(np.ones(400), 10.0, g, s=y, tol=1e-9)
    assert a.converged and b.converged and b.gap <= 1e-9
    assert abs(a.objective - b.objective) <= 1e-9 * abs(a.objective)
    assert np.max(np.abs(a.alpha - b.alpha)) < 1e-6


@pytest.mark.skipif(not nc.HAVE_NUMBA, reason="needs numba (not installed, or hidden by "
                    "KERNELCLF_NO_NUMBA)")
@pytest.mark.parametrize("kernel", [RBF(gamma=0.3), Polynomial(3, 1.0)])
def test_compiled_smo_with_few_whole_slots_reaches_the_numpy_engines_optimum(kernel):
    """Few features, a budget of 12 double-precision columns of 400 (24 columns in
    single precision, as both engines keep them past the budget; 18 whole slots, fewer
    than the variables that move): the reconstruction computes the columns it cannot
    keep on the shrunk rows only. The same optimum as the NumPy engine on Python's
    columns at the same budget (the same rounded problem; dual objectives within 1e-9,
    the same support vectors)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 6))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.4 * rng.normal(size=400) > 0, 1.0, -1.0)
    budget = 12 * 8 * 400 / 2 ** 20
    _both_engines_agree(kernel, X, y, 2.0, budget)


def test_whole_polynomial_matrix_is_the_kernels_matrix_with_its_bounds():
    """The polynomial matrix of a training sample in one compiled pass after the product
    (``_whole_polynomial_matrix``, what ``Gram`` stores for a float array with numba) holds
    the kernel's own numbers bit for bit, for degrees 1 to 5, with and without a scale and
    an offset; its bounds are the matrix's smallest and largest entry, and None when an
    entry overflows (the guard then raises its own error). Reference: ``kernel(X)``."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(37, 6))
    for degree in range(1, 6):
        for gamma, offset in ((1.0, 0.0), (0.3, 1.0), (1.0, 2), (0.02, 0.5)):
            kernel = Polynomial(degree, offset, gamma)
            G, bounds = nc._whole_polynomial_matrix(kernel, X)
            K = kernel(X)
            assert G.tobytes() == K.tobytes()
            assert bounds == (float(K.min()), float(K.max()))
            assert Gram(kernel, X).stored().tobytes() == K.tobytes()
    G, bounds = nc._whole_polynomial_matrix(Polynomial(5, 1.0, 1.0), X * 1e40)
    assert bounds is None and not np.isfinite(G).all()
    assert nc._whole_polynomial_matrix(RBF(1.0), X) == (None, None)
    assert nc._whole_polynomial_matrix(Polynomial(2), np.where(X > 2, np.nan, X)) == (None, None)
    with pytest.raises(ValueError, match="not finite|NaN|infinity|overflow"):
        Gram(Polynomial(5, 1.0, 1.0), X * 1e40)
