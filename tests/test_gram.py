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
from kernelclf.kernels.gram import (
    DegenerateKernelWarning,
    GramMemoryError,
    available_memory,
    check_memory,
    get_memory_limit,
    memory_limit,
    set_memory_limit,
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


# ---------------------------------------------------------------- degenerate Gram matrices
def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, DegenerateKernelWarning)]


@pytest.mark.parametrize("precompute", [True, False])
def test_numerically_identity_gram_warns_with_sigma_distance_and_advice(precompute):
    """Issue 27: RBF(1) on inputs ~20 apart gives the identity; the warning names sigma,
    the typical squared distance (checked against scipy's pdist) and sigma='scale'."""
    from scipy.spatial.distance import pdist

    Z = RNG.normal(scale=10.0, size=(300, 4))
    found = _caught(lambda: Gram(RBF(1.0), Z, precompute=precompute))
    assert len(found) == 1
    msg = str(found[0].message)
    assert "RBF(sigma=1.0)" in msg and "numerically the identity" in msg
    assert "for sigma = 1:" in msg and "sigma='scale'" in msg
    d2 = float(msg.split("squared distance between inputs is ")[1].split(" ")[0])
    assert d2 == pytest.approx(np.median(pdist(Z, "sqeuclidean")), rel=0.1)
    # the width 'scale' would give (scikit-learn's gamma='scale'), and it passes silently
    assert f"sigma = {np.sqrt(Z.shape[1] * Z.var() / 2):.3g} here" in msg
    assert _caught(lambda: Gram(RBF(sigma="scale"), Z, precompute=precompute)) == []


def test_numerically_constant_gram_warns():
    found = _caught(lambda: Gram(RBF(1e6), X))               # kernel values 1 - 1e-12
    assert len(found) == 1 and "numerically constant" in str(found[0].message)
    found = _caught(lambda: Gram(Linear(), np.ones((12, 3))))
    assert len(found) == 1 and "(nearly) all equal" in str(found[0].message)
    found = _caught(lambda: check_gram(np.full((4, 4), 2.0)))
    assert len(found) == 1 and "given as a matrix" in str(found[0].message)


def test_usable_gram_matrices_do_not_warn_and_off_switches_the_check():
    """Widths around the data's scale pass (the threshold is an effective neighbour
    mass of 1/100 per row); so do string kernels and a 1-point matrix."""
    for kernel in (RBF(0.3), RBF(1.0), RBF(30.0), Linear(), RBF(gamma="scale")):
        assert _caught(lambda: Gram(kernel, X)) == [], kernel
    assert _caught(lambda: Gram(SpectrumKernel(2), STRINGS)) == []
    assert _caught(lambda: check_gram(np.array([[1.0]]))) == []
    with gram_checks("off"):
        assert _caught(lambda: Gram(RBF(0.001), X)) == []


# ---------------------------------------------------------------- memory
def _counting_rbf():
    calls = []

    def rbf(A, B):
        calls.append((len(A), len(B)))
        return RBF(1.0)(A, B)
    return rbf, calls


def test_a_gram_matrix_over_the_memory_limit_is_refused_before_it_is_computed():
    Z = RNG.normal(size=(400, 2))                    # 400 x 400 floats: 1.22 MiB
    kernel, calls = _counting_rbf()
    with memory_limit(1):
        assert get_memory_limit() == 1.0
        with pytest.raises(GramMemoryError, match=r"400 x 400 entries, 1.22 MiB.*set_memory_limit"):
            Gram(kernel, Z)
        g = Gram(RBF(1.0), Z, precompute=False)      # columns on demand fit
        assert len(g.column(3)) == 400
        with pytest.raises(GramMemoryError, match=r"400 x 400.*2.44 MiB"):
            g.full()                                 # the matrix and its copy
        with pytest.raises(GramMemoryError, match=r"kernel matrix k\(X, Y\).*400 x 400"):
            cross_gram(kernel, Z, Z)
        Gram(RBF(1.0), Z[:300])                      # 0.69 MiB: allowed
    assert calls == [] and get_memory_limit() == "auto"
    assert isinstance(GramMemoryError("x"), MemoryError)
    with memory_limit(None):
        check_memory(10 ** 6, 10 ** 6)               # 7.3 TiB, but no check
    with pytest.raises(ValueError, match="memory limit"):
        set_memory_limit(-5)
    with pytest.raises(ValueError, match="memory limit"):
        set_memory_limit(True)


def test_auto_limit_is_the_available_memory():
    avail = available_memory()
    assert avail is None or avail > 0
    if avail is not None:
        m = int(np.sqrt(2 * avail / 8))             # twice what is available
        with pytest.raises(GramMemoryError, match="memory available on this machine"):
            check_memory(m, m)
        check_memory(10, 10)                          # small requests are not looked at


@pytest.mark.parametrize("name", ["GaussianProcessClassifier", "GaussianProcessRegressor",
                                  "RelevanceVectorClassifier", "RelevanceVectorRegressor",
                                  "KernelFisherDiscriminant", "AdaptiveMarginMachine",
                                  "LeaveOneOutMachine"])
def test_cubic_fits_refuse_arrays_over_the_limit_before_any_kernel_value(name):
    """Issue 27: nothing stopped a fit whose m x m arrays could not fit in memory; now the
    fit fails at once, naming the size and the number of arrays it would hold."""
    import kernelclf

    Est = getattr(kernelclf, name)
    Z = RNG.normal(size=(150, 2))                    # one 150 x 150 array: 0.17 MiB
    y = (Z[:, 0] > 0).astype(float) if "Regressor" in name else (Z[:, 0] > 0).astype(int)
    kernel, calls = _counting_rbf()
    with memory_limit(0.3):
        with pytest.raises(GramMemoryError,
                           match=rf"{name} \(kernel .*\) has 150 x 150.*about \d+ such arrays"):
            Est(kernel=kernel).fit(Z, y)
    assert calls == []
    with memory_limit(50):
        Est(kernel=kernel).fit(Z, y)
    assert calls


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
