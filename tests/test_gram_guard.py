"""The numerical guard and the memory limit of Gram matrices (:mod:`kernelclf.kernels.gram_guard`,
issues 17 and 27).

References used: ``numpy.linalg.eigvalsh`` for the spectrum (LKC Prop. 2.18: a
kernel's Gram matrices are positive semi-definite), the kernel's own full matrix, and
scipy's ``pdist`` for the typical squared distance between inputs.
"""
import warnings

import numpy as np
import pytest

from kernelclf.kernels import RBF, Gram, Linear, SpectrumKernel, cross_gram
from kernelclf.kernels.gram_guard import (
    DegenerateKernelWarning,
    GramMemoryError,
    IndefiniteKernelError,
    available_memory,
    check_gram,
    check_memory,
    get_gram_checks,
    get_memory_limit,
    gram_checks,
    memory_limit,
    set_gram_checks,
    set_memory_limit,
)

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
    from kernelclf.kernels.gram_guard import _SAMPLE, _degeneracy_sample

    Xl = RNG.normal(size=(_SAMPLE + 100, 2))
    # the rows the guard samples: the PSD test's and the degeneracy test's
    sampled = np.union1d(np.random.default_rng(0).choice(len(Xl), _SAMPLE, replace=False),
                         _degeneracy_sample(len(Xl))[0])
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


def _standardised_cancer(m=200):
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    idx = np.random.default_rng(0).permutation(len(y))[:m]
    return X[idx], y[idx]


@pytest.mark.parametrize("precompute", [True, False])
@pytest.mark.parametrize("sigma", [1e3, 1e4])
def test_too_wide_rbf_gram_warns_nearly_constant(sigma, precompute):
    """Issue 38: sigma = 1e3 or 1e4 on standardised data was silent. The fraction in the
    message is the median over pairs of 1 - k_ij (checked against the full matrix)."""
    Z, _ = _standardised_cancer()
    found = _caught(lambda: Gram(RBF(sigma), Z, precompute=precompute))
    assert len(found) == 1
    msg = str(found[0].message)
    assert "is nearly constant" in msg and f"RBF(sigma={sigma})" in msg
    assert f"sigma = {np.sqrt(Z.shape[1] * Z.var() / 2):.3g} here" in msg
    assert "standardise the inputs" not in msg       # they are standardised already
    K = RBF(sigma)(Z)
    gap = np.median(1 - K[~np.eye(len(Z), dtype=bool)])
    stated = float(msg.split("by a fraction ")[1].split(" ")[0])
    assert stated == pytest.approx(gap, rel=0.2)


def test_too_wide_warning_explains_the_majority_vote_of_the_main_classifiers():
    """The six main kernel classifiers predict the majority class at sigma = 1e3, and each
    fit now says why; at sigma='scale' none warns and all beat the majority."""
    from kernelclf import (
        AdaptiveMarginMachine,
        BayesPointMachine,
        GaussianProcessClassifier,
        KernelFisherDiscriminant,
        RelevanceVectorClassifier,
        SupportVectorMachine,
    )
    Z, t = _standardised_cancer(150)
    majority = max(t.mean(), 1 - t.mean())
    # (the GP classifier with a fixed kernel: it would otherwise choose the width itself)
    makers = [SupportVectorMachine, lambda k: GaussianProcessClassifier(k, optimizer=None),
              RelevanceVectorClassifier,
              KernelFisherDiscriminant, lambda k: BayesPointMachine(k, random_state=0),
              AdaptiveMarginMachine]
    for make in makers:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wide = make(RBF(1e3)).fit(Z, t)
        near = [w for w in caught if issubclass(w.category, DegenerateKernelWarning)
                and "nearly constant" in str(w.message)]
        assert len(near) == 1, make
        assert wide.score(Z, t) == pytest.approx(majority), make
        good = _caught(lambda: make(RBF("scale")).fit(Z, t))
        assert good == [], make
        assert make(RBF("scale")).fit(Z, t).score(Z, t) > majority + 0.2, make


def test_sensible_widths_and_kernels_without_a_width_do_not_warn_wide():
    Z, _ = _standardised_cancer()
    for sigma in ("scale", 2.0, 3.0, 10.0, 30.0, 100.0):
        assert _caught(lambda: Gram(RBF(sigma), Z)) == [], sigma
    # a linear kernel on inputs far from the origin looks alike too, but has no width
    far = 1e3 + RNG.normal(size=(50, 3))
    assert _caught(lambda: Gram(Linear(), far)) == []


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



# ---------------------------------------------------------------- layout (issue 24)
def test_the_guard_and_the_gram_access_are_two_modules_the_family_exports():
    from kernelclf import kernels
    from kernelclf.kernels import gram, gram_guard

    assert not set(gram.__all__) & set(gram_guard.__all__)
    for module in (gram, gram_guard):
        for name in module.__all__:
            obj = getattr(module, name)
            assert obj.__module__ == module.__name__, name
            assert getattr(kernels, name) is obj, name      # the family re-exports it
        with open(module.__file__, encoding="utf-8") as fh:
            assert sum(1 for _ in fh) <= 600, module.__file__


def test_kernels_psd_by_construction_skip_only_the_eigenvalue_and_symmetry_tests(monkeypatch):
    """The linear, polynomial and RBF kernels declare ``psd_by_construction`` in their own
    class: the guard skips its Cholesky/eigenvalue test for them (and for no subclass,
    which may change the formula), while finiteness, range and degeneracy stay checked."""
    from kernelclf.kernels import Polynomial
    from kernelclf.kernels import gram_guard as guard

    calls = []
    real = np.linalg.cholesky
    monkeypatch.setattr(np.linalg, "cholesky", lambda A: calls.append(A.shape) or real(A))
    Z = RNG.normal(size=(260, 3))
    for kernel in (RBF(0.7), Linear(), Polynomial(3, 1.0)):
        assert guard._psd_by_construction(kernel)
        Gram(kernel, Z)
        Gram(kernel, Z, precompute=False)
    assert calls == []

    class Bent(RBF):            # a subclass inherits the flag's value but not the promise
        def _gram(self, A, B):
            return -super()._gram(A, B)

    assert not guard._psd_by_construction(Bent(1.0))
    with pytest.raises(IndefiniteKernelError):
        Gram(Bent(1.0), Z, precompute=False)
    assert calls                                    # the sampled test ran for it
    # the checks that stay: range and degeneracy, on demand as when precomputed
    with pytest.raises(ValueError, match="outside"):
        Gram(Polynomial(60, 0.0), 10.0 * Z, precompute=False)
    assert len(_caught(lambda: Gram(RBF(1e-3), Z, precompute=False))) == 1


def test_the_degeneracy_statistic_equals_its_elementwise_definition():
    """The row masses of the identity test (a matrix-vector product less each row's own
    entry) against the definition ``sum_{j != i} |k_ij| / sqrt(k_ii k_jj)``, on a block
    whose rows are partly among its columns."""
    from kernelclf.kernels import gram_guard as guard

    # its own generator: the module's RNG state depends on which tests ran before
    Z = np.random.default_rng(9).normal(scale=3.0, size=(40, 2))
    K = RBF(0.2)(Z)
    rows, cols = np.array([0, 3, 5, 7, 11]), np.arange(2, 40, 1)
    R = K[np.ix_(rows, cols)]
    d = np.diag(K)
    brute = np.abs(R) / np.sqrt(d[rows])[:, None] / np.sqrt(d[cols])[None, :]
    brute[rows[:, None] == cols[None, :]] = 0.0
    others = len(cols) - (rows[:, None] == cols[None, :]).sum(axis=1)
    expected = np.median(brute.sum(axis=1) * (40 - 1) / others)
    found = _caught(lambda: guard._check_degenerate(R, rows, cols, d[rows], d[cols], 40,
                                                    RBF(0.2), Z))
    assert expected < guard._IDENTITY and len(found) == 1
    msg = str(found[0].message)
    assert f"sum to {expected:.2g};" in msg


def test_the_compiled_degeneracy_screen_never_changes_the_verdict():
    """The screen (:func:`~kernelclf.kernels.gram_guard._screen_degenerate`) lets a Gram
    matrix pass without the NumPy check only where that check gives no warning, and the
    guard's warnings are the same with and without it: seeded matrices of RBF kernels from
    far too narrow to far too wide, linear and polynomial kernels, repeated inputs, sizes
    on both sides of the 64 sampled rows. Reference: the NumPy check alone."""
    from kernelclf.kernels import Polynomial
    from kernelclf.kernels import gram_guard as guard
    from kernelclf.kernels._guard_screen import _screen_degenerate

    pytest.importorskip("numba")
    assert guard._screen_degenerate is _screen_degenerate
    rng = np.random.default_rng(3)
    decided = 0
    for trial in range(160):
        m = int(rng.choice([2, 3, 20, 63, 64, 65, 130, 200]))
        Z = rng.normal(size=(m, int(rng.integers(1, 12)))) * 10 ** rng.uniform(-3, 3)
        kernel = [RBF(sigma=float(10 ** rng.uniform(-4, 4))), Linear(),
                  Polynomial(int(rng.integers(1, 4)), float(rng.uniform(0, 2)),
                             float(10 ** rng.uniform(-3, 1))), RBF(1.0)][trial % 4]
        if trial % 4 == 3:
            Z[: m // 2] = Z[0]
        K = kernel(Z)
        rows, cols = guard._degeneracy_sample(m)
        d = np.diag(K)
        passed = guard._screen_degenerate(K, rows, cols, d[rows], d[cols], m, kernel)
        numpy_only = _caught(lambda: guard._check_degenerate(
            guard._block(K, rows, cols), rows, cols, d[rows], d[cols], m, kernel, Z))
        assert not (passed and numpy_only)
        decided += passed
        with warnings.catch_warnings(record=True) as screened:
            warnings.simplefilter("always")
            check_gram(K, kernel, Z)
        degenerate = [w for w in screened if w.category is DegenerateKernelWarning]
        assert [str(w.message) for w in degenerate] == [str(w.message) for w in numpy_only]
    assert 60 <= decided < 160          # it decides most, never the degenerate ones
