"""Tests of kernelclf.kernels.whitened.WhitenedKernel (the k-hat of RMM §3.1)."""
import numpy as np
import pytest

from kernelclf.kernels import RBF, Linear, Polynomial, WhitenedKernel, is_psd


def _whiten(X, D):
    mu = X.mean(axis=0)
    S = (X - mu).T @ (X - mu) / len(X)
    M = (1 - D) * np.eye(X.shape[1]) + D * S
    return lambda Z: (Z - mu) @ np.linalg.solve(M, (Z - mu).T)


@pytest.mark.parametrize("D", [0.0, 0.2, 0.8, 0.99])
def test_linear_khat_equals_explicit_formula(D):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) @ rng.normal(size=(4, 4))
    Xt = rng.normal(size=(9, 4))
    mu = X.mean(axis=0)
    S = (X - mu).T @ (X - mu) / len(X)
    M = (1 - D) * np.eye(4) + D * S
    ref = lambda A, Bm: (A - mu) @ np.linalg.solve(M, (Bm - mu).T)  # noqa: E731
    k = WhitenedKernel(Linear(), D).fit(X)
    np.testing.assert_allclose(k(X), ref(X, X), atol=1e-9)
    np.testing.assert_allclose(k(Xt, X), ref(Xt, X), atol=1e-9)
    np.testing.assert_allclose(k.diag(Xt), np.diag(ref(Xt, Xt)), atol=1e-9)
    np.testing.assert_allclose(k.train_gram_, ref(X, X), atol=1e-9)


def test_feature_space_formula_with_explicit_polynomial_features():
    """Degree-2 homogeneous polynomial kernel: explicit features x_i x_j (LKC Example 2.22)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    Xt = rng.normal(size=(5, 3))
    phi = lambda Z: np.einsum("ni,nj->nij", Z, Z).reshape(len(Z), -1)  # noqa: E731
    D = 0.5
    P = phi(X)
    mu = P.mean(axis=0)
    S = (P - mu).T @ (P - mu) / len(P)
    M = (1 - D) * np.eye(P.shape[1]) + D * S
    ref = (phi(Xt) - mu) @ np.linalg.solve(M, (P - mu).T)
    k = WhitenedKernel(Polynomial(2, 0.0), D).fit(X)
    np.testing.assert_allclose(k(Xt, X), ref, atol=1e-8)


def test_psd_translation_invariance_and_errors():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    k = WhitenedKernel(RBF(1.0), 0.6).fit(X)
    assert is_psd(k(X), tol=1e-8)
    kl = WhitenedKernel(Linear(), 0.6)
    shift = np.array([10.0, -4.0])
    np.testing.assert_allclose(kl.fit(X)(X), WhitenedKernel(Linear(), 0.6).fit(X + shift)(
        X + shift), atol=1e-8)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        WhitenedKernel(Linear(), 1.0).fit(X)
    with pytest.raises(ValueError, match="fit"):
        WhitenedKernel(Linear(), 0.5)(X)
