"""KernelNearestNeighbors (LKC §1.2, eq. 1.2) against scikit-learn's k-NN."""
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import KNeighborsClassifier

from kernelclf.kernels import RBF, Linear, Polynomial
from kernelclf.neighbors import KernelNearestNeighbors


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))[:700]
    # small continuous jitter removes exact distance ties (integer pixels tie often)
    X = X[idx] + 1e-3 * rng.standard_normal((700, 64))
    return X[:500], y[idx][:500], X[500:], y[idx][500:]


@pytest.mark.parametrize("k", [1, 3, 7])
def test_linear_kernel_equals_sklearn(digits, k):
    Xtr, ytr, Xte, _ = digits
    ours = KernelNearestNeighbors(n_neighbors=k, kernel=Linear()).fit(Xtr, ytr)
    ref = KNeighborsClassifier(n_neighbors=k, algorithm="brute").fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    np.testing.assert_allclose(ours.predict_proba(Xte), ref.predict_proba(Xte))
    d, i = ours.kneighbors(Xte)
    d_ref, i_ref = ref.kneighbors(Xte)
    np.testing.assert_array_equal(i, i_ref)
    np.testing.assert_allclose(d, d_ref, rtol=1e-7, atol=1e-6)


def test_default_kernel_is_linear_and_labels_kept(digits):
    Xtr, ytr, Xte, _ = digits
    names = np.array(list("abcdefghij"))
    clf = KernelNearestNeighbors(n_neighbors=3).fit(Xtr, names[ytr])
    ref = KNeighborsClassifier(n_neighbors=3, algorithm="brute").fit(Xtr, names[ytr])
    np.testing.assert_array_equal(clf.predict(Xte), ref.predict(Xte))
    assert clf.classes_.tolist() == list("abcdefghij")


def test_pairwise_product_features_match_explicit_map():
    """<x,x'>^2 gives the Euclidean distance between the vectors (x_i x_j)_{i,j} (LKC p. 11)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 6))
    y = rng.integers(0, 3, size=80)
    T = rng.normal(size=(30, 6))
    phi = lambda A: np.einsum("ni,nj->nij", A, A).reshape(len(A), -1)  # noqa: E731
    ours = KernelNearestNeighbors(n_neighbors=5, kernel=Polynomial(degree=2, offset=0.0)).fit(X, y)
    ref = KNeighborsClassifier(n_neighbors=5, algorithm="brute").fit(phi(X), y)
    np.testing.assert_array_equal(ours.predict(T), ref.predict(phi(T)))
    d, _ = ours.kneighbors(T)
    d_ref, _ = ref.kneighbors(phi(T))
    np.testing.assert_allclose(d, d_ref, rtol=1e-8, atol=1e-8)


def test_distances_nonnegative_and_self_distance_zero():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.arange(40) % 2
    for kernel in (Linear(), RBF(sigma=0.3), Polynomial(degree=3, offset=1.0)):
        clf = KernelNearestNeighbors(n_neighbors=4, kernel=kernel).fit(X, y)
        d, ind = clf.kneighbors(X)
        assert np.all(d >= 0) and np.all(np.diff(d, axis=1) >= 0)
        np.testing.assert_array_equal(ind[:, 0], np.arange(40))   # each point is its own 1-NN
        np.testing.assert_allclose(d[:, 0], 0.0, atol=1e-6)
    # 1-NN reproduces the training labels (training error 0)
    assert KernelNearestNeighbors(kernel=RBF(0.5)).fit(X, y).score(X, y) == 1.0


def test_rbf_distance_bounded_by_sqrt2():
    """For a normalised kernel ||phi(x)-phi(x')||^2 = 2 - 2k(x,x') <= 2."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 2)) * 10
    clf = KernelNearestNeighbors(n_neighbors=20, kernel=RBF(0.1)).fit(X, np.arange(20) % 2)
    d, _ = clf.kneighbors(X + 100.0)
    assert np.all(d <= np.sqrt(2) + 1e-12)
    np.testing.assert_allclose(d, np.sqrt(2))


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True, 11])
def test_bad_n_neighbors(k):
    X = np.zeros((10, 2)) + np.arange(10)[:, None]
    with pytest.raises(ValueError, match="n_neighbors"):
        KernelNearestNeighbors(n_neighbors=k).fit(X, np.arange(10) % 2)


def test_bad_inputs():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10) % 2
    with pytest.raises(NotFittedError):
        KernelNearestNeighbors().predict(X)
    with pytest.raises(ValueError, match="samples"):
        KernelNearestNeighbors().fit(X, y[:5])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelNearestNeighbors().fit(Xn, y)
    clf = KernelNearestNeighbors().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((3, 5)))
    with pytest.raises(ValueError):
        KernelNearestNeighbors().fit(X, np.linspace(0, 1, 10))     # continuous targets
    with pytest.raises(ValueError, match="n_neighbors"):
        clf.kneighbors(X, n_neighbors=50)


def test_nearest_centroid_linear_equals_sklearn(digits):
    from sklearn.neighbors import NearestCentroid

    from kernelclf.neighbors import KernelNearestCentroid

    Xtr, ytr, Xte, _ = digits
    ours = KernelNearestCentroid().fit(Xtr, ytr)
    ref = NearestCentroid().fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))


def test_nearest_centroid_scores_are_linear_in_feature_space():
    """f_c(x) = <w_c, phi(x)> - ||w_c||^2/2 with w_c the class mean of phi (explicit map)."""
    from kernelclf.neighbors import KernelNearestCentroid

    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = rng.integers(0, 3, size=60)
    T = rng.normal(size=(10, 4))
    phi = lambda A: np.einsum("ni,nj->nij", A, A).reshape(len(A), -1)  # noqa: E731
    clf = KernelNearestCentroid(kernel=Polynomial(2)).fit(X, y)
    W = np.stack([phi(X[y == c]).mean(axis=0) for c in range(3)])
    expected = phi(T) @ W.T - 0.5 * np.sum(W**2, axis=1)
    np.testing.assert_allclose(clf.decision_function(T), expected, rtol=1e-10, atol=1e-10)
    d2 = ((phi(T)[:, None, :] - W[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(clf.predict(T), np.argmin(d2, axis=1))
    with pytest.raises(ValueError, match="two classes"):
        KernelNearestCentroid().fit(X, np.zeros(60))


# -- the estimator contract (issue 9) and bad input (issue 17) ------------------------

def test_fitted_models_keep_their_own_kernel():
    """Regression: nn kept the user's kernel object, so set_params after fit changed it."""
    from kernelclf.neighbors import KernelNearestCentroid

    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, size=40)
    T = rng.normal(size=(30, 3))
    for est in (KernelNearestNeighbors(n_neighbors=3, kernel=RBF(1.0)),
                KernelNearestCentroid(kernel=RBF(1.0))):
        est.fit(X, y)
        before = est.predict(T)
        est.set_params(kernel__sigma=0.05)
        np.testing.assert_array_equal(est.predict(T), before)
        assert est.kernel_ is not est.kernel


def test_nearest_centroid_binary_decision_function_follows_sklearn_convention():
    """Two classes: decision_function is f_1 - f_0 (1-D, positive for classes_[1]); the
    per-class scores stay available as class_scores."""
    from kernelclf.neighbors import KernelNearestCentroid

    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(30, 2)), np.where(rng.random(30) < 0.5, "a", "b")
    clf = KernelNearestCentroid(kernel=RBF(1.0)).fit(X, y)
    S = clf.class_scores(X)
    np.testing.assert_allclose(clf.decision_function(X), S[:, 1] - S[:, 0])
    np.testing.assert_array_equal(clf.predict(X), np.where(S[:, 1] > S[:, 0], "b", "a"))


def test_nn_on_lists_of_strings_equal_the_explicit_feature_map():
    from _string_data import promoters, spectrum_features

    from kernelclf.kernels import Normalized, SpectrumKernel
    from kernelclf.neighbors import KernelNearestCentroid

    S_tr, y_tr, S_te, _ = promoters()
    F = spectrum_features(S_tr + S_te, 2)
    F_tr, F_te = F[:len(S_tr)], F[len(S_tr):]
    kernel = Normalized(SpectrumKernel(2))
    knn = KernelNearestNeighbors(n_neighbors=5, kernel=kernel).fit(S_tr, y_tr)
    ref = KNeighborsClassifier(n_neighbors=5, algorithm="brute").fit(F_tr, y_tr)
    d, _ = knn.kneighbors(S_te)
    d_ref, _ = ref.kneighbors(F_te)
    np.testing.assert_allclose(d, d_ref, atol=1e-7)
    np.testing.assert_allclose(knn.predict_proba(S_te), ref.predict_proba(F_te))
    nc = KernelNearestCentroid(kernel=kernel).fit(S_tr, y_tr)
    nc_ref = KernelNearestCentroid(kernel=Linear()).fit(F_tr, y_tr)
    np.testing.assert_allclose(nc.decision_function(S_te), nc_ref.decision_function(F_te),
                               atol=1e-10)


def test_nn_guard_against_invalid_and_overflowing_kernels():
    """Issue 17: with X * 1e300 nearest neighbours scored 0 % on its own training set, and
    a kernel that is not positive semi-definite inverted the nearest-centroid rule."""
    from kernelclf.kernels import IndefiniteKernelError
    from kernelclf.neighbors import KernelNearestCentroid

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)), rng.integers(0, 2, size=30)
    bad = lambda A, B: -RBF(1.0)(A, B)  # noqa: E731
    for est in (KernelNearestNeighbors(kernel=bad), KernelNearestCentroid(kernel=bad)):
        with pytest.raises(IndefiniteKernelError, match="positive semi-definite"):
            est.fit(X, y)
    for est in (KernelNearestNeighbors(), KernelNearestCentroid()):
        with pytest.raises(ValueError, match="NaN or infinity.*rescale"), \
                np.errstate(all="ignore"):
            est.fit(X * 1e300, y)
    with pytest.raises(ValueError, match="NaN or infinity"), np.errstate(all="ignore"):
        KernelNearestNeighbors().fit(X, y).predict(X * 1e300)
    # all inputs equal: every point is a nearest neighbour; ties go to the lowest index
    Xc = np.ones((6, 2))
    yc = np.array([1, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(KernelNearestNeighbors().fit(Xc, yc).predict(Xc), 1)


def test_ties_go_to_the_smaller_index_and_the_smaller_label():
    """The KernelNearestNeighbors docstring: equidistant training points are taken in index
    order, and a tied vote goes to the class that comes first in ``classes_``."""
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [5.0, 5.0]])
    x = np.zeros((1, 2))  # all four first points at distance 1
    for order in ([3, 1, 0, 2, 4], [0, 1, 2, 3, 4], [2, 3, 1, 0, 4]):
        y = np.array(["b", "a", "b", "a", "c"])[order]
        for k in (1, 2, 3):
            model = KernelNearestNeighbors(n_neighbors=k).fit(X[order], y)
            _, idx = model.kneighbors(x)
            assert list(idx[0]) == [0, 1, 2][:k]  # the smallest indices of the four ties
            votes = {c: list(y[idx[0]]).count(c) for c in set(y[idx[0]])}
            best = max(votes.values())
            assert model.predict(x)[0] == min(c for c, v in votes.items() if v == best)
