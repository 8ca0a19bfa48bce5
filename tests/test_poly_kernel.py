"""``kernel='poly'`` means what it means in scikit-learn's ``SVC`` (issue 38).

``SVC(kernel='poly')`` is ``(gamma <x, x'> + coef0) ** degree`` with ``degree=3``,
``gamma='scale'`` (``1 / (N Var(X))``) and ``coef0=0``; ``Polynomial`` has the scale as
``gamma`` and ``coef0`` as ``offset`` (LKC Table 2.1 is ``gamma = 1``, its default).
References: scikit-learn's ``polynomial_kernel`` and ``SVC`` (decision values and test
accuracies on raw and standardised breast cancer).
"""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.metrics.pairwise import polynomial_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelclf import SupportVectorMachine
from kernelclf.kernels import Polynomial, as_kernel, scale_gamma
from kernelclf.kernels.gram import Gram

RNG = np.random.default_rng(3)
X = RNG.normal(size=(25, 4))
Y = RNG.normal(size=(7, 4))


@pytest.mark.parametrize("degree, offset, gamma", [(2, 0.0, 1.0), (3, 1.0, 0.2), (4, 0.5, 3.0)])
def test_polynomial_with_a_scale_is_scikit_learns_polynomial_kernel(degree, offset, gamma):
    k = Polynomial(degree, offset, gamma=gamma)
    ref = polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=offset)
    np.testing.assert_allclose(k(X, Y), ref, rtol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diag(polynomial_kernel(
        X, degree=degree, gamma=gamma, coef0=offset)), rtol=1e-12)
    column = k.column_function(X)
    np.testing.assert_allclose(column(4), polynomial_kernel(
        X, X[4:5], degree=degree, gamma=gamma, coef0=offset)[:, 0], rtol=1e-12)


def test_explicit_polynomial_keeps_the_books_defaults():
    k = Polynomial()
    assert (k.degree, k.offset, k.gamma) == (2, 0.0, 1.0)
    np.testing.assert_allclose(k(X, Y), (X @ Y.T) ** 2, rtol=1e-12)
    assert k.resolve(X) is k


def test_poly_name_is_svcs_default_polynomial_kernel():
    k = as_kernel("poly")
    assert isinstance(k, Polynomial)
    assert k.get_params() == {"degree": 3, "offset": 0.0, "gamma": "scale"}
    assert as_kernel("polynomial").get_params() == k.get_params()
    fixed = k.resolve(X)
    svc = SVC(kernel="poly").fit(X, np.arange(len(X)) % 2)
    assert fixed.gamma == pytest.approx(svc._gamma, rel=1e-12)
    assert fixed.gamma == pytest.approx(scale_gamma(X), rel=0)
    np.testing.assert_allclose(k(X), polynomial_kernel(X, degree=3, gamma=svc._gamma, coef0=0),
                               rtol=1e-10)
    with pytest.raises(ValueError, match="resolve"):
        k(X, Y)
    with pytest.raises(ValueError, match="gamma must be"):
        Polynomial(gamma="auto")(X)
    with pytest.raises(ValueError, match="gamma must be"):
        Polynomial(gamma=-1.0)(X)
    assert clone(k).get_params() == k.get_params()


def test_scale_gamma_at_any_scale():
    for scale in (1e-100, 1.0, 1e100):
        g = scale_gamma(scale * X)
        assert np.isfinite(g) and g > 0
        assert g * scale ** 2 == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-10)
    assert scale_gamma(np.full((5, 2), 4.0)) == pytest.approx(1 / 16)


def test_gram_on_demand_and_native_columns_agree_with_the_matrix():
    """The SMO's column paths (NumPy and compiled) use the same scale."""
    Z = 50.0 * RNG.normal(size=(60, 3))
    k = as_kernel("poly").resolve(Z)
    whole = Gram(k, Z, precompute=True)
    lazy = Gram(k, Z, precompute=False)
    for i in (0, 17, 59):
        np.testing.assert_allclose(lazy.column(i), whole.column(i), rtol=1e-10)
    from kernelclf.kernels import native_columns as nc

    spec = nc.column_spec(lazy)
    if spec[0] != nc.NONE:                    # numba present
        out = np.empty(60)
        assert nc.column_at(out, 5, np.arange(60), 60, *spec)
        np.testing.assert_allclose(out, whole.column(5), rtol=1e-10)


def _cancer(scaled):
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if scaled:
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    return Xtr, Xte, ytr, yte


@pytest.mark.parametrize("scaled, accuracy", [(False, 0.895), (True, 0.906)])
def test_poly_svm_is_svcs_on_breast_cancer(scaled, accuracy):
    """Raw breast cancer used to stop at the iteration cap with 14 % accuracy."""
    Xtr, Xte, ytr, yte = _cancer(scaled)
    ours = SupportVectorMachine("poly", tol=1e-6).fit(Xtr, ytr)
    theirs = SVC(kernel="poly", tol=1e-6).fit(Xtr, ytr)
    assert ours.kernel_.gamma == pytest.approx(theirs._gamma, rel=1e-12)
    f, g = ours.decision_function(Xte), theirs.decision_function(Xte)
    assert np.abs(f - g).max() < 1e-3 * np.abs(g).max()
    assert ours.score(Xte, yte) == theirs.score(Xte, yte) == pytest.approx(accuracy, abs=5e-4)


@pytest.mark.parametrize("n_features", [5, 40])   # compiled columns up to 32 features
@pytest.mark.parametrize("degree, coef0, gamma", [(3, 0.0, "scale"), (2, 1.0, 0.05)])
def test_polynomial_svm_decision_values_match_svc(n_features, degree, coef0, gamma):
    rng = np.random.default_rng(n_features)
    Z = 3.0 * rng.normal(size=(150, n_features))
    t = np.where(Z[:, 0] * Z[:, 1] + rng.normal(size=150) > 0, 1, 0)
    ours = SupportVectorMachine(Polynomial(degree, coef0, gamma=gamma), C=2.0,
                                tol=1e-6).fit(Z, t)
    theirs = SVC(kernel="poly", degree=degree, coef0=coef0, gamma=gamma, C=2.0,
                 tol=1e-6).fit(Z, t)
    f, g = ours.decision_function(Z), theirs.decision_function(Z)
    assert np.abs(f - g).max() < 1e-3 * max(1.0, np.abs(g).max())
    assert np.array_equal(ours.predict(Z), theirs.predict(Z))
