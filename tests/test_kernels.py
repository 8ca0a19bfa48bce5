"""Tests for kernelclf.kernels (LKC §2.3: Table 2.1, Theorem 2.20, Corollary 2.21, eq. 2.22).

References: scalar kernel formulas evaluated pair by pair, scikit-learn's
pairwise kernels and estimators (SVC, GridSearchCV, clone), scipy's cdist,
explicit feature maps (centred features, normalised features, the polynomial
map of LKC Ex. 2.22) and numpy eigenvalues (Proposition 2.18).
"""
import itertools

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from kernelclf import kernels
from kernelclf.kernels import (
    RBF,
    CallableKernel,
    Constant,
    Exponential,
    InducedRBF,
    Linear,
    Normalized,
    Polynomial,
    Product,
    Scaled,
    Sum,
    add_diagonal,
    as_kernel,
    center_gram,
    feature_space_distances,
    is_psd,
    min_eigenvalue,
    normalize_gram,
    polynomial_features,
)

RNG = np.random.default_rng(0)
X = 0.7 * RNG.normal(size=(30, 3))
Y = 0.7 * RNG.normal(size=(9, 3))


# scalar reference kernels, evaluated one pair at a time
def ref_linear(u, v):
    return float(np.dot(u, v))


def ref_poly(p, c):
    return lambda u, v: (float(np.dot(u, v)) + c) ** p


def ref_rbf(sigma):
    return lambda u, v: float(np.exp(-np.sum((u - v) ** 2) / (2 * sigma ** 2)))


def ref_const(c):
    return lambda u, v: c


def pairwise(f, A, B):
    return np.array([[f(a, b) for b in B] for a in A])


BASE = [
    (Linear(), ref_linear),
    (Polynomial(2, 0.0), ref_poly(2, 0.0)),
    (Polynomial(3, 1.0), ref_poly(3, 1.0)),
    (RBF(0.5), ref_rbf(0.5)),
    (RBF(2.0), ref_rbf(2.0)),
    (Constant(0.7), ref_const(0.7)),
]
BASE_IDS = ["linear", "poly2", "poly3c1", "rbf0.5", "rbf2", "const"]


def closures():
    """Every closure rule applied to every (pair of) base kernel(s), with its
    scalar reference built only from the reference functions."""
    out = []
    for (k1, f1), (k2, f2) in itertools.product(BASE, BASE):
        out.append(("sum", Sum(k1, k2), lambda u, v, f1=f1, f2=f2: f1(u, v) + f2(u, v)))
        out.append(("product", Product(k1, k2), lambda u, v, f1=f1, f2=f2: f1(u, v) * f2(u, v)))
    for k1, f1 in BASE:
        out.append(("scaled", Scaled(k1, 2.5), lambda u, v, f1=f1: 2.5 * f1(u, v)))
        out.append(("plus_const", k1 + 0.3, lambda u, v, f1=f1: f1(u, v) + 0.3))
        out.append(("exponential", Exponential(k1, 1.5),
                    lambda u, v, f1=f1: np.exp(f1(u, v) / 1.5 ** 2)))
        out.append(("induced_rbf", InducedRBF(k1, 0.8), lambda u, v, f1=f1: np.exp(
            -(f1(u, u) - 2 * f1(u, v) + f1(v, v)) / (2 * 0.8 ** 2))))
        out.append(("normalized", Normalized(k1),
                    lambda u, v, f1=f1: f1(u, v) / np.sqrt(f1(u, u) * f1(v, v))))
        out.append(("poly_of_kernel", (k1 + 1.0) * (k1 + 1.0),
                    lambda u, v, f1=f1: (f1(u, v) + 1.0) ** 2))
    return out


CLOSURES = closures()


@pytest.mark.parametrize("kernel,ref", BASE, ids=BASE_IDS)
def test_base_kernels_match_scalar_formula_and_are_psd(kernel, ref):
    np.testing.assert_allclose(kernel(X), pairwise(ref, X, X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(X, Y), pairwise(ref, X, Y), rtol=1e-12, atol=1e-12)
    K = kernel(X)
    assert min_eigenvalue(K) >= -1e-10 * max(1.0, np.abs(K).max())
    assert is_psd(K)


def test_closure_rules_match_elementwise_formulas_and_stay_psd():
    assert len(CLOSURES) == 2 * 36 + 6 * 6
    for name, kernel, ref in CLOSURES:
        K = kernel(X)
        np.testing.assert_allclose(K, pairwise(ref, X, X), rtol=1e-10, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(kernel(X, Y), pairwise(ref, X, Y), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
        scale = max(1.0, np.abs(K).max())
        assert min_eigenvalue(K) >= -1e-10 * scale, (name, kernel)
        assert is_psd(K), (name, kernel)


@pytest.mark.parametrize("seed,m,n,scale", [(1, 25, 2, 0.3), (2, 50, 5, 0.6), (3, 12, 8, 0.4)])
def test_every_closure_is_psd_on_other_random_samples(seed, m, n, scale):
    Z = scale * np.random.default_rng(seed).normal(size=(m, n))
    for name, kernel, _ in CLOSURES:
        K = kernel(Z)
        assert min_eigenvalue(K) >= -1e-10 * max(1.0, np.abs(K).max()), (name, kernel)


def test_nested_combination_is_psd():
    k = Normalized(2.0 * RBF(0.7) * Polynomial(2, 1.0) + Exponential(Linear(), 2.0)) + 0.1
    Z = np.random.default_rng(5).normal(size=(60, 4))
    assert is_psd(k(Z))


def test_operators_build_the_closure_objects():
    k1, k2 = RBF(1.0), Linear()
    np.testing.assert_allclose((k1 + k2)(X), k1(X) + k2(X))
    np.testing.assert_allclose((k1 * k2)(X), k1(X) * k2(X))
    np.testing.assert_allclose((3.0 * k1)(X), 3.0 * k1(X))
    np.testing.assert_allclose((k1 * 3.0)(X), 3.0 * k1(X))
    np.testing.assert_allclose((k1 + 2.0)(X), k1(X) + 2.0)
    np.testing.assert_allclose((2.0 + k1)(X), k1(X) + 2.0)
    np.testing.assert_allclose((k1 + "linear")(X), k1(X) + X @ X.T)


def test_rbf_matches_sklearn_and_polynomial_matches_sklearn():
    for sigma in [0.3, 1.0, 2.7]:
        k = RBF(sigma)
        assert k.gamma == pytest.approx(1 / (2 * sigma ** 2))
        np.testing.assert_allclose(k(X, Y), rbf_kernel(X, Y, gamma=1 / (2 * sigma ** 2)),
                                   rtol=1e-12, atol=1e-15)
    for p, c in [(1, 0.0), (2, 0.0), (3, 1.0), (5, 0.5)]:
        np.testing.assert_allclose(Polynomial(p, c)(X, Y),
                                   polynomial_kernel(X, Y, degree=p, gamma=1, coef0=c),
                                   rtol=1e-12)
    np.testing.assert_allclose(Linear()(X, Y), linear_kernel(X, Y))


def test_polynomial_kernel_equals_explicit_features():
    for p, c in [(2, 0.0), (3, 0.0), (3, 1.0), (4, 2.0)]:
        P, Q = polynomial_features(X, p, c), polynomial_features(Y, p, c)
        np.testing.assert_allclose(Polynomial(p, c)(X, Y), P @ Q.T, rtol=1e-10, atol=1e-12)


def test_rbf_unit_diagonal_and_shift_invariance():
    k = RBF(0.8)
    np.testing.assert_array_equal(np.diag(k(X)), 1.0)
    np.testing.assert_array_equal(k.diag(X), 1.0)
    a = np.array([3.0, -7.0, 0.5])
    np.testing.assert_allclose(k(X + a, Y + a), k(X, Y), rtol=1e-10, atol=1e-14)
    # the polynomial kernel is not shift invariant
    assert not np.allclose(Polynomial(2, 1.0)(X + a, Y + a), Polynomial(2, 1.0)(X, Y))


@pytest.mark.parametrize("kernel", [Linear(), Polynomial(3, 1.0), RBF(0.6),
                                    2.0 * RBF(1.0) + Linear()], ids=str)
def test_normalized_is_cosine_in_feature_space(kernel):
    K = Normalized(kernel)(X)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=1e-12)
    np.testing.assert_allclose(K, normalize_gram(kernel(X)), rtol=1e-12)
    d_x, d_y = kernel.diag(X), kernel.diag(Y)
    np.testing.assert_allclose(Normalized(kernel)(X, Y),
                               kernel(X, Y) / np.sqrt(np.outer(d_x, d_y)), rtol=1e-12)


def test_normalized_linear_equals_unit_vectors():
    U, V = X / np.linalg.norm(X, axis=1, keepdims=True), Y / np.linalg.norm(Y, axis=1,
                                                                            keepdims=True)
    np.testing.assert_allclose(Normalized(Linear())(X, Y), U @ V.T, rtol=1e-12)
    # the origin of feature space gets a zero row instead of NaN
    Z = np.vstack([np.zeros(3), X[:3]])
    Kz = Normalized(Linear())(Z)
    assert np.all(np.isfinite(Kz)) and np.all(Kz[0] == 0)


def test_induced_rbf_of_linear_is_rbf():
    for sigma in [0.4, 1.3]:
        np.testing.assert_allclose(InducedRBF(Linear(), sigma)(X), RBF(sigma)(X), atol=1e-12)
        np.testing.assert_allclose(InducedRBF(Linear(), sigma)(X, Y), RBF(sigma)(X, Y),
                                   atol=1e-12)


def test_center_gram_equals_centred_features():
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(center_gram(X @ X.T), Xc @ Xc.T, atol=1e-12)
    K_test = Y @ X.T
    np.testing.assert_allclose(center_gram(X @ X.T, K_test), (Y - X.mean(axis=0)) @ Xc.T,
                               atol=1e-12)
    # same with explicit polynomial features
    P, Q = polynomial_features(X, 2, 1.0), polynomial_features(Y, 2, 1.0)
    Pc, mean = P - P.mean(axis=0), P.mean(axis=0)
    k = Polynomial(2, 1.0)
    np.testing.assert_allclose(center_gram(k(X)), Pc @ Pc.T, atol=1e-10)
    np.testing.assert_allclose(center_gram(k(X), k(Y, X)), (Q - mean) @ Pc.T, atol=1e-10)
    with pytest.raises(ValueError):
        center_gram(k(X), k(X, Y))


def test_feature_space_distances():
    np.testing.assert_allclose(feature_space_distances(Linear(), X, Y), cdist(X, Y),
                               atol=1e-7)
    D = feature_space_distances(None, X)
    np.testing.assert_allclose(D, cdist(X, X), atol=1e-7)
    assert np.all(np.diag(D) == 0)
    P, Q = polynomial_features(X, 3, 1.0), polynomial_features(Y, 3, 1.0)
    np.testing.assert_allclose(feature_space_distances(Polynomial(3, 1.0), X, Y, squared=True),
                               cdist(P, Q, "sqeuclidean"), rtol=1e-8, atol=1e-8)
    # RBF: ||phi(x) - phi(x')||^2 = 2 - 2 k(x, x')
    np.testing.assert_allclose(feature_space_distances(RBF(1.0), X, Y, squared=True),
                               2 - 2 * rbf_kernel(X, Y, gamma=0.5), atol=1e-12)


ALL_KERNELS = [k for k, _ in BASE] + [k for _, k, _ in CLOSURES[::5]] + [
    CallableKernel(lambda A, B: (A @ B.T + 1.0) ** 2)]


def _kernel_id(kernel):
    """A stable test id: no memory addresses (pytest-xdist workers must agree on ids)."""
    import re
    return re.sub(r" at 0x[0-9a-f]+", "", str(kernel))


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=_kernel_id)
def test_diag_equals_gram_diagonal(kernel):
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel(X)), rtol=1e-12, atol=1e-12)


def test_sklearn_clone_get_set_params():
    k = Sum(RBF(1.0), Product(Polynomial(2, 1.0), Linear()))
    params = k.get_params(deep=True)
    assert params["k1__sigma"] == 1.0 and params["k2__k1__degree"] == 2
    c = clone(k)
    assert c is not k and c.k1 is not k.k1
    np.testing.assert_allclose(c(X), k(X))
    c.set_params(k1__sigma=0.3, k2__k1__offset=2.0)
    assert c.k1.sigma == 0.3 and k.k1.sigma == 1.0
    np.testing.assert_allclose(c(X), RBF(0.3)(X) + Polynomial(2, 2.0)(X) * (X @ X.T))
    # round trip: every deep parameter set back gives the same kernel
    d = clone(k).set_params(**k.get_params(deep=True))
    np.testing.assert_allclose(d(X, Y), k(X, Y))
    assert repr(d) == repr(k)


def test_grid_search_over_kernel_parameter_matches_sklearn_rbf():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(60, 2))
    t = (Z[:, 0] ** 2 + Z[:, 1] ** 2 > 1.2).astype(int)
    grid = {"kernel__sigma": [0.3, 1.0, 3.0]}
    ours = GridSearchCV(SVC(kernel=RBF(1.0), C=1.0), grid, cv=3).fit(Z, t)
    ref = GridSearchCV(SVC(kernel="rbf", C=1.0),
                       {"gamma": [1 / (2 * s ** 2) for s in grid["kernel__sigma"]]},
                       cv=3).fit(Z, t)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"])
    best = ours.best_estimator_
    assert best.kernel.sigma == pytest.approx(np.sqrt(1 / (2 * ref.best_params_["gamma"])))
    np.testing.assert_allclose(best.decision_function(Z),
                               ref.best_estimator_.decision_function(Z), atol=1e-6)


def test_bad_input_raises_value_error():
    Xn = X.copy()
    Xn[2, 1] = np.nan
    for k in [Linear(), RBF(1.0), Polynomial(2), Sum(RBF(), Linear()), Normalized(Linear())]:
        with pytest.raises(ValueError):
            k(Xn)
        with pytest.raises(ValueError):
            k(X, np.ones((2, 4)))
    with pytest.raises(ValueError):
        Linear()(np.array([1.0, np.inf])[None, :])
    for bad in [RBF(-1.0), RBF(0.0), RBF(float("nan")), Polynomial(0), Polynomial(2.5),
                Polynomial(2, -1.0), Constant(-1.0), Scaled(Linear(), -2.0),
                Exponential(Linear(), 0.0), InducedRBF(Linear(), -1.0)]:
        with pytest.raises(ValueError):
            bad(X)
    with pytest.raises(ValueError):
        RBF(-1.0).diag(X)
    with pytest.raises(ValueError):
        as_kernel("tanh")
    with pytest.raises(TypeError):
        as_kernel(3)
    with pytest.raises(ValueError):
        is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError):
        add_diagonal(np.eye(2), -1.0)


def test_as_kernel_and_add_diagonal():
    assert isinstance(as_kernel(None), Linear)
    assert isinstance(as_kernel("RBF"), RBF)
    assert isinstance(as_kernel("poly"), Polynomial)
    k = RBF(2.0)
    assert as_kernel(k) is k
    f = as_kernel(lambda A, B: A @ B.T)
    assert isinstance(f, CallableKernel)
    np.testing.assert_allclose(f(X, Y), X @ Y.T)
    K = RBF(1.0)(X)
    np.testing.assert_allclose(add_diagonal(K, 0.5), K + 0.5 * np.eye(len(X)))


def test_invalid_kernels_are_detected():
    """Proposition 2.18: a symmetric function that is not a kernel has some
    Gram matrix with a negative eigenvalue; is_psd finds one."""
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(40, 3))
    difference = CallableKernel(lambda A, B: Linear()(A, B) - RBF(1.0)(A, B))
    assert not is_psd(difference(Z))
    assert min_eigenvalue(difference(Z)) < -1e-3
    tanh = CallableKernel(lambda A, B: sigmoid_kernel(A, B, gamma=1.0, coef0=-1.0))
    assert not is_psd(tanh(Z))
    # a non-symmetric matrix is not a Gram matrix
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    # negative scaling is refused rather than silently building k1 - k2
    with pytest.raises(ValueError):
        Sum(Linear(), Scaled(RBF(1.0), -1.0))(Z)
    # a valid kernel passes on the same sample
    assert is_psd((Linear() + RBF(1.0))(Z))


def test_module_exports():
    for name in kernels.__all__:
        assert hasattr(kernels, name)


# ---- Mahalanobis kernel (LKC Table 2.1, Remark 2.19, Example 3.12) -------------------

def test_mahalanobis_matches_the_table_formula_scipy_and_sklearn():
    from sklearn.gaussian_process.kernels import RBF as SkRBF

    from kernelclf.bayes import ARDRBF
    from kernelclf.kernels import Mahalanobis

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    sig = np.array([0.5, 2.0, 10.0])
    K = Mahalanobis(sig)(X, Y)
    Sigma = np.diag(sig ** -2.0)
    loop = np.array([[np.exp(-(u - v) @ Sigma @ (u - v)) for v in Y] for u in X])
    np.testing.assert_allclose(K, loop, rtol=1e-12)
    np.testing.assert_allclose(K, np.exp(-cdist(X, Y, "mahalanobis", VI=Sigma) ** 2), rtol=1e-10)
    # scikit-learn's anisotropic RBF and the package's ARD kernel carry a factor 1/2
    np.testing.assert_allclose(K, SkRBF(length_scale=sig / np.sqrt(2))(X, Y), rtol=1e-12)
    np.testing.assert_allclose(K, ARDRBF(sig / np.sqrt(2))(X, Y), rtol=1e-12)
    # a scalar sigma is RBF(sigma / sqrt 2)
    np.testing.assert_allclose(Mahalanobis(1.3)(X, Y), RBF(1.3 / np.sqrt(2))(X, Y), rtol=1e-12)
    np.testing.assert_array_equal(Mahalanobis(sig).diag(X), np.ones(7))


def test_mahalanobis_full_metric_and_mercer_property():
    from kernelclf.kernels import Mahalanobis

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    A = rng.normal(size=(4, 4))
    M = A @ A.T
    K = Mahalanobis(metric=M)(X)
    np.testing.assert_allclose(K, np.exp(-cdist(X, X, "mahalanobis", VI=M) ** 2), rtol=1e-9,
                               atol=1e-14)
    assert kernels.min_eigenvalue(K) > -1e-10
    # a large length scale switches a coordinate off (automatic relevance determination)
    X2 = X.copy()
    X2[:, 2] = rng.normal(size=30)
    far = Mahalanobis([1.0, 1.0, 1e8, 1.0])
    np.testing.assert_allclose(far(X), far(X2), atol=1e-12)
    # the fast column of the base class agrees with the matrix
    col = Mahalanobis([0.7, 1.0, 2.0, 3.0]).column_function(X)
    np.testing.assert_allclose(col(4), Mahalanobis([0.7, 1.0, 2.0, 3.0])(X)[:, 4], rtol=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    ({"sigma": [1.0, -1.0, 1.0]}, "positive"),
    ({"sigma": [1.0, 2.0]}, "2 entries"),
    ({"sigma": np.nan}, "positive"),
    ({"metric": np.eye(2)}, "shape"),
    ({"metric": [[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, "symmetric"),
    ({"metric": -np.eye(3)}, "semi-definite"),
])
def test_mahalanobis_rejects_bad_parameters(kwargs, message):
    from kernelclf.kernels import Mahalanobis

    with pytest.raises(ValueError, match=message):
        Mahalanobis(**kwargs)(np.ones((4, 3)))


def test_mahalanobis_in_an_estimator_is_clonable_and_grid_searchable():
    from kernelclf.kernels import Mahalanobis
    from kernelclf.margin import SupportVectorMachine

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=60) > 0, 1, -1)
    est = SupportVectorMachine(Mahalanobis([1.0, 1.0]), C=10.0)
    assert clone(est).get_params()["kernel__sigma"] == [1.0, 1.0]
    search = GridSearchCV(est, {"kernel__sigma": [[1.0, 1.0], [1.0, 100.0]]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.8
    # against scikit-learn's SVC with the same Gram matrix
    K = Mahalanobis([1.0, 3.0])(X)
    ours = SupportVectorMachine(Mahalanobis([1.0, 3.0]), C=10.0, tol=1e-8).fit(X, y)
    ref = SVC(kernel="precomputed", C=10.0, tol=1e-8).fit(K, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(K), atol=1e-4)


@pytest.mark.parametrize("make", [
    lambda: Polynomial(3, 1.0),
    lambda: Polynomial(2, 0.0),
    lambda: Scaled(Polynomial(5, 1.0), 1 / 32),
    lambda: Sum(Polynomial(2, 1.0), RBF(0.7)),
    lambda: Product(Scaled(Linear(), 2.0), RBF(1.3)),
])
def test_column_functions_of_polynomial_and_composite_kernels_equal_gram_columns(make):
    """The one-column shortcuts (validated once, used by the SMO solvers' Gram cache)
    against the kernel's own Gram matrix."""
    X = np.random.default_rng(4).normal(size=(9, 3))
    k = make()
    col = k.column_function(X)
    K = k(X)
    for i in (0, 4, 8):
        np.testing.assert_allclose(col(i), K[:, i], rtol=1e-12, atol=1e-12)


def test_int_power_by_squaring_equals_pow():
    from kernelclf.kernels.vector import _int_power
    a = np.random.default_rng(4).uniform(-2.0, 2.0, size=(7, 9))
    for p in range(1, 12):
        np.testing.assert_allclose(_int_power(a.copy(), p), a ** p, rtol=1e-14, atol=0)
    for p, c in [(4, 1.0), (7, 0.3), (11, 1.0)]:
        np.testing.assert_allclose(Polynomial(p, c)(X, Y),
                                   polynomial_kernel(X, Y, degree=p, gamma=1, coef0=c),
                                   rtol=1e-13)


# ---------------------------------------------------------------------------
# the modules of the kernel family (issue 24: one subject each, none much past 600 lines)

def test_each_kernel_name_lives_in_the_module_of_its_subject():
    from kernelclf.kernels import closure, gram_ops, vector, whitened

    homes = {closure: ["Kernel", "Constant", "Sum", "Product", "Scaled", "Normalized",
                       "Exponential", "InducedRBF", "CallableKernel"],
             vector: ["Linear", "Polynomial", "RBF", "Mahalanobis", "as_kernel", "scale_sigma",
                      "scale_gamma"],
             gram_ops: ["is_psd", "min_eigenvalue", "center_gram", "normalize_gram",
                        "add_diagonal", "feature_space_distances"],
             whitened: ["WhitenedKernel"]}
    for module, names in homes.items():
        assert sorted(module.__all__) == sorted(names)
        for name in names:
            obj = getattr(module, name)
            assert obj.__module__ == module.__name__, name
            assert getattr(kernels, name) is obj, name      # the family re-exports it
        path = module.__file__
        with open(path, encoding="utf-8") as fh:
            assert sum(1 for _ in fh) <= 600, path


def test_kernel_operand_names_classes_callables_and_refusals():
    """The operand rule of ``k + other`` (closure) and of ``as_kernel`` (vector)."""
    from kernelclf.kernels.closure import KERNEL_NAMES, kernel_operand

    assert {"linear", "rbf", "poly", "polynomial"} <= set(KERNEL_NAMES)
    assert isinstance(kernel_operand("LINEAR"), Linear)
    assert kernel_operand("rbf").get_params()["sigma"] == "scale"
    k = RBF(sigma=2.0)
    assert kernel_operand(k) is k and as_kernel(k) is k
    assert isinstance(kernel_operand(lambda A, B: A @ B.T), CallableKernel)
    assert isinstance(as_kernel(None), Linear)
    with pytest.raises(TypeError, match=r"pass an instance, e.g. RBF\(\)"):
        kernel_operand(RBF)
    with pytest.raises(ValueError, match="unknown kernel name"):
        kernel_operand("sigmoid")
    with pytest.raises(TypeError, match="cannot use None"):
        Linear() + None
    # 'poly' is SVC's default: degree 3, gamma = 1 / (N Var(X)) from the training inputs
    gamma = 1.0 / (X.shape[1] * X.var())
    np.testing.assert_allclose((Linear() * "poly")(X), (X @ X.T) * (gamma * X @ X.T) ** 3,
                               rtol=1e-10)
    np.testing.assert_allclose((Linear() * "poly").resolve(X)(X, Y),
                               (X @ Y.T) * (gamma * X @ Y.T) ** 3, rtol=1e-10)


def test_squared_feature_distances_are_the_squared_distances_of_the_gram_module():
    from kernelclf.kernels.closure import squared_feature_distances
    from kernelclf.kernels.gram_ops import feature_space_distances as fsd

    for k in (Linear(), RBF(sigma=0.8), Polynomial(3, 1.0)):
        np.testing.assert_allclose(squared_feature_distances(k, X, Y), fsd(k, X, Y) ** 2,
                                   rtol=1e-12, atol=1e-12)
        d2 = squared_feature_distances(k, X)
        assert np.all(np.diag(d2) == 0.0) and np.all(d2 >= 0.0)
    np.testing.assert_allclose(squared_feature_distances(Linear(), X, Y), cdist(X, Y) ** 2,
                               rtol=1e-10, atol=1e-12)
