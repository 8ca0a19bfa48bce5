"""The Gram-access object (:mod:`kernelclf.kernels.gram`, issue 17): columns, caches,
products and column slots; its numerical guard is tested in ``tests/test_gram_guard.py``.

References used: the kernel's own full matrix for every column/block/product, and
plain numpy indexing for ``take_rows``.
"""
import warnings

import numpy as np
import pytest

from kernelclf.kernels import (
    RBF,
    ColumnCache,
    Gram,
    Linear,
    SpectrumKernel,
    cross_gram,
)
from kernelclf.kernels.rows import n_rows, take_rows

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 3))
STRINGS = ["gattaca", "gatt", "acgtacgt", "ttttgggg", "cat", "tacg", "aaaa", "gcgcgc"]


# ---------------------------------------------------------------- access
@pytest.mark.parametrize("ridge", [0.0, 0.25])
@pytest.mark.parametrize("precompute", [True, False])
def test_columns_blocks_products_equal_the_full_matrix(precompute, ridge):
    G = RBF(0.8)(X) + ridge * np.eye(len(X))
    g = Gram(RBF(0.8), X, ridge=ridge, precompute=precompute)
    assert g.precomputed is precompute and g.m == 30
    for i in (0, 7, 29, 7):
        np.testing.assert_allclose(g.column(i), G[:, i], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(g[i], G[:, i], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(g.column_getter()(i), G[:, i], rtol=1e-12, atol=1e-15)
    idx = [3, 1, 3, 20]
    np.testing.assert_allclose(g.columns(idx), G[:, idx], rtol=1e-12, atol=1e-15)
    assert g.columns([]).shape == (30, 0)
    v = RNG.normal(size=30)
    np.testing.assert_allclose(g.matvec(v), G @ v, rtol=1e-12)
    np.testing.assert_allclose(g.matvec(v, block=7), G @ v, rtol=1e-12)
    np.testing.assert_allclose(g.diag, np.diag(G))
    np.testing.assert_allclose(g.full(), G, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError):
        g.diag[0] = 5.0                                 # read-only


def test_ridge_is_added_to_the_diagonal_only():
    G = Linear()(X)
    g = Gram(Linear(), X, ridge=0.5)
    np.testing.assert_allclose(g.full() - G, 0.5 * np.eye(30), atol=1e-12)
    h = g.with_ridge(2.0)
    np.testing.assert_allclose(h.full() - G, 2.0 * np.eye(30), atol=1e-12)
    np.testing.assert_allclose(h.diag, np.diag(G) + 2.0)
    np.testing.assert_allclose(g.diag, np.diag(G) + 0.5)    # the original is unchanged
    col = g.column(4)
    col_again = g.column(4)
    assert col[4] == pytest.approx(G[4, 4] + 0.5) and col_again[4] == pytest.approx(G[4, 4] + 0.5)
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="ridge"):
            Gram(Linear(), X, ridge=bad)


def test_column_cache_is_least_recently_used_and_counts_work():
    calls = []

    def column(i):
        calls.append(i)
        return np.full(4, float(i))

    cache = ColumnCache(column, m=4, cache_mb=0.0)      # the minimum: two columns
    assert cache.capacity == 2
    for i in (0, 1, 0, 2, 0, 1):
        assert cache[i][0] == i
    assert calls == [0, 1, 2, 1]                        # 1 was evicted by 2, 0 stayed (recent)
    assert cache.computed == 4
    g = Gram(RBF(1.0), X, precompute=False, cache_mb=0.0)
    g.column(0)
    g.column(1)
    g.column(0)
    assert g.n_evaluations == 3 * 30 and g.n_computed == 2 * 30


def test_precomputed_matrix_input():
    G = RBF(1.0)(X)
    g = Gram(G=G, ridge=0.1)
    np.testing.assert_allclose(g.full(), G + 0.1 * np.eye(30))
    with pytest.raises(ValueError, match="square"):
        Gram(G=np.ones((3, 4)))
    with pytest.raises(ValueError, match="either a Gram matrix"):
        Gram(G=G, X=X)
    with pytest.raises(ValueError, match="pass a Gram matrix"):
        Gram(RBF(1.0))


def test_string_kernels_on_lists_of_strings():
    k = SpectrumKernel(2)
    K = k(STRINGS)
    for precompute in (True, False):
        g = Gram(k, STRINGS, precompute=precompute)
        np.testing.assert_allclose(g.full(), K)
        np.testing.assert_allclose(g.column(2), K[:, 2])
        np.testing.assert_allclose(g.diag, np.diag(K))
    np.testing.assert_allclose(cross_gram(k, STRINGS[:3], STRINGS), K[:3])


# ---------------------------------------------------------------- take_rows
def test_take_rows_on_arrays():
    A = np.arange(12.0).reshape(6, 2)
    np.testing.assert_array_equal(take_rows(A, 2), A[2:3])
    np.testing.assert_array_equal(take_rows(A, np.int64(-1)), A[-1:])
    np.testing.assert_array_equal(take_rows(A, -2), A[-2:-1])
    np.testing.assert_array_equal(take_rows(A, slice(1, 4)), A[1:4])
    np.testing.assert_array_equal(take_rows(A, [4, 0, 4]), A[[4, 0, 4]])
    mask = np.array([True, False, True, False, False, True])
    np.testing.assert_array_equal(take_rows(A, mask), A[mask])
    assert take_rows(A, []).shape == (0, 2)
    assert n_rows(A) == 6


def test_take_rows_on_lists_of_strings():
    S = list(STRINGS)
    assert take_rows(S, 1) == ["gatt"]
    assert take_rows(S, -1) == ["gcgcgc"]
    assert take_rows(S, slice(0, 2)) == ["gattaca", "gatt"]
    assert take_rows(S, np.array([3, 0, 3])) == ["ttttgggg", "gattaca", "ttttgggg"]
    assert take_rows(S, [2]) == ["acgtacgt"]
    mask = np.zeros(len(S), dtype=bool)
    mask[[1, 4]] = True
    assert take_rows(S, mask) == ["gatt", "cat"]
    assert take_rows(S, []) == []
    assert take_rows(tuple(S), slice(6, None)) == ["aaaa", "gcgcgc"]
    assert n_rows(S) == 8


# ------------------------------------------------------------ column slots (compiled loops)

def test_column_slots_are_the_gram_columns_with_lru_eviction():
    from kernelclf.kernels import ColumnSlots
    Xs = RNG.normal(size=(40, 3))
    K = RBF(0.8)(Xs)
    gram = Gram(RBF(0.8), Xs, ridge=0.25, precompute=False, cache_mb=1.0)
    slots = ColumnSlots(gram, cache_mb=3 * 8 * 40 / 2 ** 20)   # room for three columns
    assert slots.capacity == 3
    for i in (0, 1, 2):
        np.testing.assert_allclose(slots.column(i), K[i] + 0.25 * (np.arange(40) == i),
                                   rtol=1e-12)
    assert slots.used == 3 and set(slots.owner) == {0, 1, 2}
    slots.clock[0] += 1                       # a compiled loop touching column 0 ...
    slots.stamp[slots.slot[0]] = slots.clock[0]
    slots.fill(7)                             # ... so column 1 is the least recently used
    assert slots.slot[1] == -1 and slots.slot[0] >= 0 and slots.slot[2] >= 0
    np.testing.assert_allclose(slots.data[slots.slot[7]], K[7] + 0.25 * (np.arange(40) == 7),
                               rtol=1e-12)
    assert slots.filled == 4
    before = slots.filled
    slots.fill(7)                             # a hit fills nothing
    assert slots.filled == before


def test_column_slots_use_a_stored_matrix_without_copies():
    from kernelclf.kernels import ColumnSlots
    gram = Gram(RBF(0.8), X, precompute=True)
    slots = ColumnSlots(gram)
    np.testing.assert_array_equal(slots.slot, np.arange(30))
    np.testing.assert_array_equal(slots.data, gram.full())
    assert slots.fill(5) == 5 and slots.filled == 0
    # with a ridge the columns are copies with the ridge on the diagonal
    gram = Gram(RBF(0.8), X, ridge=0.5, precompute=True)
    slots = ColumnSlots(gram)
    np.testing.assert_allclose(slots.column(4), gram.column(4), rtol=1e-15)


@pytest.mark.parametrize("ridge", [0.0, 0.25])
def test_column_slots_switch_to_the_whole_matrix(ridge):
    from kernelclf.kernels import ColumnSlots
    Xs = RNG.normal(size=(40, 3))
    K = RBF(0.8)(Xs) + ridge * np.eye(40)
    slots = ColumnSlots(Gram(RBF(0.8), Xs, ridge=ridge, precompute=False), switch=0.25)
    for i in range(10):                        # a quarter of the columns, one by one
        slots.fill(3 * i % 40)
    assert not slots.switched and slots.used == 10
    np.testing.assert_allclose(slots.column(1), K[1], rtol=1e-12)   # the 11th: all at once
    assert slots.switched and slots.used == 40
    np.testing.assert_array_equal(slots.slot, np.arange(40))
    np.testing.assert_allclose(slots.data, K, rtol=1e-12)
    assert slots.fill(39) == 39
    # without switching, or with a budget below the whole matrix, columns stay columns
    for kw in ({"switch": None}, {"cache_mb": 20 * 8 * 40 / 2 ** 20}):
        slots = ColumnSlots(Gram(RBF(0.8), Xs, ridge=ridge, precompute=False), **kw)
        for i in range(40):
            np.testing.assert_allclose(slots.column(i), K[i], rtol=1e-12)
        assert not slots.switched


def test_column_slots_switch_keeps_the_finite_check():
    """The whole matrix is checked as the on-demand columns are (the PSD sample of a large
    Gram does not see two huge inputs; their columns do, as does the switch)."""
    import warnings

    from kernelclf.kernels import ColumnSlots
    from kernelclf.kernels.gram_guard import _SAMPLE, _degeneracy_sample
    Xl = RNG.normal(size=(_SAMPLE + 100, 2))
    # the rows the guard samples: the PSD test's and the degeneracy test's
    sampled = np.union1d(np.random.default_rng(0).choice(len(Xl), _SAMPLE, replace=False),
                         _degeneracy_sample(len(Xl))[0])
    outside = np.setdiff1d(np.arange(len(Xl)), sampled)[:2]
    # positive coordinates: k between the two huge inputs is exp(-(inf - inf)) = NaN,
    # whatever the random draws before this test (a negative product would give 0)
    Xl[outside] = np.abs(Xl[outside]) * 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        slots = ColumnSlots(Gram(RBF(0.5), Xl, precompute=False), switch=0.01)
        for i in sampled[:3]:                  # finite columns (zeros against the huge inputs)
            slots.fill(i)
        with pytest.raises(ValueError, match="NaN or infinity"):
            slots.fill(int(sampled[3]))
        slots = ColumnSlots(Gram(RBF(0.5), Xl, precompute=False, check=False), switch=0.01)
        for i in sampled[:4]:                  # without checks the switch does not check
            slots.fill(i)
        assert slots.switched


def test_column_slots_auto_switch_fraction_and_blocks():
    from kernelclf.kernels import ColumnSlots
    for n, frac in ((2, 8.1 / 10), (64, 11.2 / 72), (784, 47.2 / 792)):
        g = Gram(Linear(), RNG.normal(size=(30, n)), precompute=False)
        assert ColumnSlots(g).switch == pytest.approx(frac)
    assert ColumnSlots(Gram(RBF(0.8), X, precompute=False), switch=None).switch is None
    with pytest.raises(ValueError, match="switch"):
        ColumnSlots(Gram(RBF(0.8), X, precompute=False), switch="sometimes")
    # blocks K[:, idx] before and after the switch, with the ridge on the diagonal
    K = RBF(0.8)(X) + 0.5 * np.eye(30)
    idx = np.array([3, 0, 17, 29])
    slots = ColumnSlots(Gram(RBF(0.8), X, ridge=0.5, precompute=False), switch=0.5)
    np.testing.assert_allclose(slots.columns(idx), K[:, idx], rtol=1e-12)
    assert not slots.switched
    slots.columns(np.arange(20))
    assert slots.switched
    np.testing.assert_allclose(slots.columns(idx), K[:, idx], rtol=1e-12)
    assert slots.columns([]).shape == (30, 0)


# ---------------------------------------------------------------- progress of cubic fits
CUBIC = [("GaussianProcessClassifier", {}, "GP classification, Laplace (Newton)"),
         ("GaussianProcessRegressor", {}, "GP regression"),
         ("GaussianProcessRegressor", {"optimize": True}, "GP regression"),
         ("RelevanceVectorClassifier", {}, "RVM classification (fast solver)"),
         ("RelevanceVectorClassifier", {"solver": "book"}, "RVM classification (book solver)"),
         ("RelevanceVectorRegressor", {}, "RVM regression (fast solver)"),
         ("KernelFisherDiscriminant", {}, "kernel Fisher discriminant"),
         ("AdaptiveMarginMachine", {}, "AdaptiveMarginMachine LP"),
         ("LeaveOneOutMachine", {}, "LeaveOneOutMachine LP")]


@pytest.mark.parametrize("name,params,desc", CUBIC, ids=[f"{n}{p}" for n, p, _ in CUBIC])
def test_cubic_fits_show_progress_on_long_fits_only(name, params, desc, monkeypatch, capsys):
    """Issue 27: the O(m^3) fits ran for tens of seconds without a word. Their bars
    (kernelclf.progress.fit_progress) appear from LONG_FIT_M examples on, under the
    usual policy (here forced on with KERNELCLF_PROGRESS=1)."""
    import kernelclf
    from kernelclf import progress

    Est = getattr(kernelclf, name)
    Z = RNG.normal(size=(40, 2))
    y = (Z[:, 0] > 0).astype(float) if "Regressor" in name else (Z[:, 0] > 0).astype(int)
    monkeypatch.setenv(progress.ENV_VAR, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Est(kernel=RBF(1.0), **params).fit(Z, y)            # m = 40 < LONG_FIT_M: no bar
        assert desc not in capsys.readouterr().err
        monkeypatch.setattr(progress, "LONG_FIT_M", 30)
        Est(kernel=RBF(1.0), **params).fit(Z, y)
    assert desc in capsys.readouterr().err
    monkeypatch.setenv(progress.ENV_VAR, "0")                # the policy still applies
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Est(kernel=RBF(1.0), **params).fit(Z, y)
    assert desc not in capsys.readouterr().err


def test_fit_progress_threshold(monkeypatch):
    from kernelclf.progress import LONG_FIT_M, fit_progress

    monkeypatch.setenv("KERNELCLF_PROGRESS", "1")
    small, large = fit_progress(LONG_FIT_M - 1, total=3), fit_progress(LONG_FIT_M, total=3)
    assert small.disable and not large.disable
    forced = fit_progress(5, total=3, enabled=True)
    assert not forced.disable
    for bar in (small, large, forced):
        bar.close()


def test_native_columns_equal_the_kernels_columns():
    """kernels.native_columns: a column computed by compiled code into a ColumnSlots slot
    equals the kernel's NumPy column to round-off; other kernels are left to Python."""
    from kernelclf.kernels import Polynomial
    from kernelclf.kernels import native_columns as nc
    from kernelclf.kernels.gram import ColumnSlots
    from kernelclf.kernels.vector import Linear

    X = np.random.default_rng(0).normal(size=(50, 3))
    for kernel in (RBF(0.7), Polynomial(3, 1.0), Linear()):
        g = Gram(kernel, X, precompute=False)
        spec = nc.column_spec(g)
        if not nc.HAVE_NUMBA:
            assert spec[0] == nc.NONE
            continue
        assert spec[0] != nc.NONE
        slots = ColumnSlots(g, cache_mb=0.002)           # 5 slots: evictions happen
        slots.reserve()
        ust = np.array([slots.used, slots.filled])
        for i in range(12):
            s = nc.fill_slot(i, slots.data, slots.slot, slots.owner, slots.stamp, slots.clock,
                             ust, *spec)
            assert s >= 0 and slots.slot[i] == s
            assert np.allclose(slots.data[s], kernel(X)[i], rtol=1e-12, atol=1e-12)
        assert ust[0] == slots.capacity == 5 and ust[1] == 12
        assert (slots.slot >= 0).sum() == 5
    assert nc.column_spec(Gram(G=RBF(0.7)(X)))[0] == nc.NONE      # a stored matrix
