"""Tests for kernelclf.kernels.features (LKC Examples 2.13, 2.16, 2.22).

References are independent of the code under test: the inner products
<u, v>^p written out with numpy, brute-force enumeration of the N^p ordered
index vectors of LKC Ex. 2.22, scikit-learn's PolynomialFeatures monomials,
and numpy's eigenvalue routine.
"""
import itertools
import math
from collections import Counter

import numpy as np
import pytest
from sklearn.preprocessing import PolynomialFeatures

from kernelclf.kernels import (
    exponent_vectors,
    feature_dimension,
    features,
    mercer_features,
    polynomial_features,
    quadratic_decision_curve,
    quadratic_feature_map,
)


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(7, 3))


@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_homogeneous_features_reproduce_inner_product_power(X, p):
    Phi = polynomial_features(X, p)
    assert Phi.shape == (7, math.comb(3 + p - 1, p))
    np.testing.assert_allclose(Phi @ Phi.T, (X @ X.T) ** p, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("p,c", [(1, 0.5), (2, 1.0), (3, 2.0), (5, 0.3)])
def test_complete_features_reproduce_offset_power(X, p, c):
    Phi = polynomial_features(X, p, offset=c)
    assert Phi.shape == (7, math.comb(3 + p, p))
    np.testing.assert_allclose(Phi @ Phi.T, (X @ X.T + c) ** p, rtol=1e-11)


def test_features_between_two_sets(X):
    Y = np.random.default_rng(1).normal(size=(4, 3))
    P, Q = polynomial_features(X, 3, 1.0), polynomial_features(Y, 3, 1.0)
    np.testing.assert_allclose(P @ Q.T, (X @ Y.T + 1.0) ** 3, rtol=1e-11)


def test_complete_map_is_homogeneous_map_on_augmented_input(X):
    """(<u,v> + c)^p = <(u, sqrt c), (v, sqrt c)>^p (LKC Ex. 2.22, last identity)."""
    c = 2.5
    Xa = np.hstack([X, np.full((len(X), 1), np.sqrt(c))])
    np.testing.assert_allclose(polynomial_features(X, 3, c), polynomial_features(Xa, 3))
    # complete=True with c = 0 keeps the zero coordinate: C(N+p, p) columns
    assert polynomial_features(X, 2, 0.0, complete=True).shape[1] == math.comb(5, 2)


@pytest.mark.parametrize("N,p", [(1, 1), (2, 3), (3, 2), (4, 4), (5, 3)])
def test_dimension_and_multinomial_counts_by_enumeration(N, p):
    """Enumerate all N^p ordered index vectors: the distinct monomials number
    C(N+p-1, p) and each exponent vector r arises p!/(r_1!...r_N!) times."""
    counts = Counter()
    for idx in itertools.product(range(N), repeat=p):
        counts[tuple(np.bincount(idx, minlength=N))] += 1
    assert len(counts) == feature_dimension(N, p) == math.comb(N + p - 1, p)
    assert feature_dimension(N, p, complete=True) == math.comb(N + p, p)
    R = exponent_vectors(N, p)
    assert {tuple(r) for r in R} == set(counts)
    assert np.all(R.sum(axis=1) == p)
    for r, n in counts.items():
        assert n == math.factorial(p) // math.prod(math.factorial(k) for k in r)


def test_ordered_feature_map_gives_same_gram(X):
    """The N^p-dimensional map u_i1 ... u_ip of the LKC derivation has the same Gram matrix."""
    p = 3
    ordered = np.stack([np.prod(X[:, list(idx)], axis=1)
                        for idx in itertools.product(range(3), repeat=p)], axis=1)
    Phi = polynomial_features(X, p)
    assert ordered.shape[1] == 27 > Phi.shape[1] == 10
    np.testing.assert_allclose(Phi @ Phi.T, ordered @ ordered.T, rtol=1e-12)


def test_monomials_match_sklearn_polynomial_features(X):
    p = 3
    sk = PolynomialFeatures(degree=p, include_bias=False).fit(X)
    cols = {tuple(r): j for j, r in enumerate(sk.powers_)}
    M = sk.transform(X)
    R = exponent_vectors(3, p)
    Phi = polynomial_features(X, p)
    for k, r in enumerate(R):
        coef = math.sqrt(math.factorial(p) / math.prod(math.factorial(int(a)) for a in r))
        np.testing.assert_allclose(Phi[:, k], coef * M[:, cols[tuple(r)]], rtol=1e-12)


def test_polynomial_features_bad_input(X):
    with pytest.raises(ValueError):
        polynomial_features(X, 0)
    with pytest.raises(ValueError):
        polynomial_features(X, 2.5)
    with pytest.raises(ValueError):
        polynomial_features(X, 2, offset=-1.0)
    with pytest.raises(ValueError):
        polynomial_features(X, 2, offset=1.0, complete=False)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        polynomial_features(Xn, 2)
    with pytest.raises(ValueError):
        feature_dimension(0, 2)
    # the explicit map refuses to blow up instead of hanging
    with pytest.raises(ValueError, match="coordinates"):
        polynomial_features(np.ones((1, 100)), 10)
    assert feature_dimension(100, 10) > features.MAX_DIMENSION


def test_quadratic_map_and_decision_curve():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(20, 2))
    Phi = quadratic_feature_map(X)
    np.testing.assert_allclose(Phi, np.column_stack([X[:, 0], X[:, 1] ** 2, X[:, 0] * X[:, 1]]))
    for w in [(-1.0, 1.0, 0.5), (0.0, 1.0, -2.0), (1.0, -0.5, 1.0), (1.0, 1.0, 0.0)]:
        x1 = np.linspace(-1, 1, 41)
        for x2 in quadratic_decision_curve(x1, w):
            ok = np.isfinite(x2)
            assert ok.any()
            pts = np.column_stack([x1[ok], x2[ok]])
            np.testing.assert_allclose(quadratic_feature_map(pts) @ np.asarray(w), 0, atol=1e-12)
        # where the curve does not exist the quadratic in x2 has no real root
        x2p, _ = quadratic_decision_curve(x1, w)
        w1, w2, w3 = w
        for a in x1[~np.isfinite(x2p)]:
            assert np.all(np.abs(np.roots([w2, w3 * a, w1 * a]).imag) > 0)
    with pytest.raises(ValueError):
        quadratic_decision_curve(x1, (1.0, 0.0, 1.0))
    with pytest.raises(ValueError):
        quadratic_feature_map(np.ones((3, 3)))


def test_mercer_features_reproduce_psd_matrix():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 2))
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-D2 / 2)
    res = mercer_features(K)
    assert res.is_psd and res.negative_eigenvalues.size == 0
    np.testing.assert_allclose(res.features @ res.features.T, K, atol=1e-10)
    np.testing.assert_allclose(res.eigenvalues, np.sort(np.linalg.eigvalsh(K))[::-1], atol=1e-12)
    # a rank-2 matrix (linear kernel on R^2) needs only 2 features
    L = X @ X.T
    res = mercer_features(L)
    assert res.features.shape == (12, 2)
    np.testing.assert_allclose(res.features @ res.features.T, L, atol=1e-10)
    # squared feature norms are the diagonal
    np.testing.assert_allclose((res.features ** 2).sum(1), np.diag(L), atol=1e-10)


def test_mercer_features_flag_non_psd():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    res = mercer_features(K)
    assert not res.is_psd
    np.testing.assert_allclose(res.negative_eigenvalues, [-1.0])
    assert res.features.shape == (2, 1)
    # only the positive part is reproduced: K - phi phi' = -1 * v v'
    v = np.array([1.0, -1.0]) / np.sqrt(2)
    np.testing.assert_allclose(K - res.features @ res.features.T, -np.outer(v, v), atol=1e-12)


def test_mercer_features_bad_input():
    with pytest.raises(ValueError):
        mercer_features(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError):
        mercer_features(np.ones((2, 3)))
    with pytest.raises(ValueError):
        mercer_features(np.array([[np.nan, 0], [0, 1.0]]))
