"""The Gram-access object and its numerical guard (:mod:`kernelclf.kernels.gram`, issue 17).

References used: ``numpy.linalg.eigvalsh`` for the spectrum (LKC Prop. 2.18: a
kernel's Gram matrices are positive semi-definite), the kernel's own full matrix
for every column/block/product, and plain numpy indexing for ``take_rows``.
"""
import warnings

import numpy as np
import pytest

from kernelclf.kernels import (
    RBF,
    ColumnCache,
    Gram,
    IndefiniteKernelError,
    Linear,
    SpectrumKernel,
    check_gram,
    cross_gram,
    get_gram_checks,
    gram_checks,
    set_gram_checks,
)
from kernelclf.kernels.rows import n_rows, take_rows

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 3))
STRINGS = ["gattaca", "gatt", "acgtacgt", "ttttgggg", "cat", "tacg", "aaaa", "gcgcgc"]


def negative_rbf(A, B):
    """Minus a Gram matrix: clearly not positive semi-definite."""
    return -RBF(1.0)(A, B)


def sigmoid(A, B):
    """tanh(0.1 <x, x'> + 0.5): the sigmoid 'kernel', slightly indefinite on X."""
    return np.tanh(0.1 * np.asarray(A) @ np.asarray(B).T + 0.5)


def no_warnings():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("error")
    return w


@pytest.fixture(autouse=True)
def _default_mode():
    set_gram_checks("raise")
    yield
    set_gram_checks("raise")


# ---------------------------------------------------------------- the guard
def test_clearly_indefinite_kernel_is_an_error_that_names_it():
    ev = np.linalg.eigvalsh(negative_rbf(X, X))
    with pytest.raises(IndefiniteKernelError,
                       match=r"negative_rbf.*not positive semi-definite") as err:
        Gram(negative_rbf, X)
    msg = str(err.value)
    assert f"{ev[0]:.3g}" in msg and f"{ev[-1]:.3g}" in msg and "Prop. 2.18" in msg
    assert "gram_checks('off')" in msg
    assert isinstance(err.value, ValueError)
    with pytest.raises(IndefiniteKernelError):        # on-demand columns: checked on a sample
        Gram(negative_rbf, X, precompute=False)


def test_clearly_indefinite_kernel_is_found_on_a_sample_of_a_large_matrix():
    Xl = RNG.normal(size=(260, 2))
    with pytest.raises(IndefiniteKernelError):
        check_gram(negative_rbf(Xl, Xl))
    with pytest.raises(IndefiniteKernelError):
        Gram(negative_rbf, Xl, precompute=False)
    assert check_gram(RBF(1.0)(Xl)) >= -1e-8          # a valid kernel passes


def test_slightly_indefinite_sigmoid_kernel_warns_and_names_it():
    G = sigmoid(X, X)
    ev = np.linalg.eigvalsh(G)
    assert ev[0] < 0 < -ev[0] < 0.5 * ev[-1]          # slightly, not clearly, indefinite
    with pytest.warns(RuntimeWarning, match=r"sigmoid.*slightly indefinite"):
        rel = check_gram(G, kernel=sigmoid)
    assert rel == pytest.approx(ev[0] / ev[-1], rel=1e-8)
    with pytest.warns(RuntimeWarning, match="sigmoid"):
        g = Gram(sigmoid, X)
    np.testing.assert_allclose(g.full(), G)


def test_valid_kernels_pass_silently_and_report_their_smallest_eigenvalue():
    w = no_warnings()
    try:
        for kernel in (RBF(0.7), Linear(), SpectrumKernel(2)):
            data = STRINGS if kernel.accepts_strings else X
            Gram(kernel, data)
            Gram(kernel, data, precompute=False)
        # a rank-deficient Linear Gram (m > N) and an all-zero one are PSD
        assert check_gram(Linear()(X)) == 0.0
        assert check_gram(np.zeros((5, 5))) == 0.0
    finally:
        w.__exit__(None, None, None)


def test_a_negative_definite_one_point_gram_is_refused():
    with pytest.raises(IndefiniteKernelError):
        check_gram(np.array([[-1.0]]))


def test_overflowing_kernel_values_name_the_kernel_and_the_scale():
    big = X * 1e300
    for precompute in (True, False):
        with pytest.raises(ValueError, match=r"RBF\(sigma=0.5\).*NaN or infinity.*e\+300"):
            Gram(RBF(0.5), big, precompute=precompute)
    with pytest.raises(ValueError, match=r"Linear\(\).*e\+300.*rescale"):
        Gram(Linear(), big)
    with pytest.raises(ValueError, match=r"kernel matrix of the kernel RBF"):
        cross_gram(RBF(1.0), big[:3], big)
    with pytest.raises(ValueError, match="kernel given as a matrix contains NaN"):
        Gram(G=np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with gram_checks("off"):                            # NaN is never let through
        with pytest.raises(ValueError, match="NaN or infinity"):
            Gram(RBF(1.0), big)


def test_on_demand_columns_are_checked_beyond_the_sample():
    """Rows outside the PSD sample of a large on-demand Gram must not bring NaN in
    unnoticed (bug found in this review: only the sample was checked)."""
    from kernelclf.kernels.gram import _SAMPLE

    Xl = RNG.normal(size=(_SAMPLE + 100, 2))
    sampled = np.random.default_rng(0).choice(len(Xl), _SAMPLE, replace=False)
    outside = np.setdiff1d(np.arange(len(Xl)), sampled)[:2]
    Xl[outside] *= 1e300
    g = Gram(RBF(0.5), Xl, precompute=False)         # the sample is clean
    with pytest.raises(ValueError, match=r"RBF\(sigma=0.5\).*NaN or infinity"):
        g.column(int(outside[0]))
    with pytest.raises(ValueError, match="NaN or infinity"):
        g.matvec(np.ones(len(Xl)))


def test_kernel_values_of_a_usable_size_pass_and_extreme_ones_are_refused_by_name():
    w = no_warnings()
    try:
        for scale in (1e-300, 1e-40, 1e40):            # 1e-300: the Gram matrix underflows to 0
            Xs = X * scale
            g = Gram(Linear(), Xs)
            np.testing.assert_allclose(g.full(), Xs @ Xs.T, rtol=1e-12)
        for scale in (1e-150, 1e100, 1e150):            # sigma**2 must stay representable
            g = Gram(RBF(scale), X * scale)             # the geometry of X at its own scale
            np.testing.assert_allclose(g.full(), RBF(1.0)(X), rtol=1e-9, atol=1e-12)
    finally:
        w.__exit__(None, None, None)
    # values beyond [1e-100, 1e100] overflow or underflow in the solvers: a clear error
    # naming the kernel and the input scale (issue 17), in both access modes
    for scale, way in ((1e-150, "underflow"), (1e100, "overflow")):
        for precompute in (True, False):
            with pytest.raises(ValueError, match=rf"Linear\(\).*{way}.*\|x\| = .*e[-+]"):
                Gram(Linear(), X * scale, precompute=precompute)
    with gram_checks("off"):
        Gram(Linear(), X * 1e100)


def test_symmetry_is_checked():
    G = RBF(1.0)(X)
    A = G.copy()
    A[0, 1] += 0.3
    with pytest.raises(ValueError, match="not symmetric"):
        check_gram(A)
    with pytest.raises(ValueError, match="not symmetric"):
        Gram(G=A)
    with pytest.warns(RuntimeWarning, match="not symmetric"):
        check_gram(A, mode="warn")
    B = G.copy()
    B[0, 1] += 1e-13                                    # round-off is tolerated
    assert check_gram(B) >= -1e-8

    def lopsided(P, Q):
        return np.asarray(P) @ np.asarray(Q).T + np.asarray(P)[:, :1]

    with pytest.raises(ValueError, match="lopsided.*not symmetric"):
        Gram(lopsided, X)


def test_gram_checks_modes_and_context():
    assert get_gram_checks() == "raise"
    with gram_checks("off"):
        assert get_gram_checks() == "off"
        w = no_warnings()
        try:
            Gram(negative_rbf, X)                       # no error, no warning
        finally:
            w.__exit__(None, None, None)
        with gram_checks("warn"):
            with pytest.warns(RuntimeWarning, match="negative_rbf"):
                Gram(negative_rbf, X)
        assert get_gram_checks() == "off"
    assert get_gram_checks() == "raise"
    with pytest.raises(KeyError):
        with gram_checks("off"):
            raise KeyError("inside")
    assert get_gram_checks() == "raise"                 # restored after an exception
    with pytest.raises(ValueError, match="mode must be one of"):
        set_gram_checks("loud")
    Gram(negative_rbf, X, check=False)                  # per-object switch
    assert check_gram(negative_rbf(X, X), mode="off") == 0.0


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
    from kernelclf.kernels.gram import _SAMPLE
    Xl = RNG.normal(size=(_SAMPLE + 100, 2))
    sampled = np.random.default_rng(0).choice(len(Xl), _SAMPLE, replace=False)
    outside = np.setdiff1d(np.arange(len(Xl)), sampled)[:2]
    Xl[outside] *= 1e300
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
