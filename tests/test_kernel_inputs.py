"""Kernels that are safe by default (issue 27): the data-driven RBF width, scikit-learn's
``gamma``, kernel classes passed instead of instances, and the input checks of every kernel.

References: scikit-learn's ``SVC(gamma='scale')`` (its fitted ``_gamma`` and its decision
values), ``sklearn.metrics.pairwise.rbf_kernel``, ``GridSearchCV`` over ``SVC``'s
``gamma``, numpy's variance, and scikit-learn's ``check_array`` messages for bad input.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.svm import SVC

from kernelclf.bayes import (
    ARDRBF,
    GaussianProcessClassifier,
    GaussianProcessRegressor,
    RelevanceVectorClassifier,
    RelevanceVectorRegressor,
)
from kernelclf.kernels import (
    RBF,
    CallableKernel,
    Constant,
    Exponential,
    FisherKernel,
    GaussianMixtureScore,
    InducedRBF,
    Linear,
    Mahalanobis,
    MarkovChainScore,
    Normalized,
    Polynomial,
    Product,
    Scaled,
    SpectrumKernel,
    Sum,
    WhitenedKernel,
    as_kernel,
)
from kernelclf.kernels.gram_guard import DegenerateKernelWarning
from kernelclf.kernels.vector import scale_sigma
from kernelclf.margin import SupportVectorMachine

RNG = np.random.default_rng(0)
X = RNG.normal(loc=0.3, scale=1.7, size=(40, 3))
Y = RNG.normal(size=(7, 3))


def _sklearn_scale_gamma(Z):
    """scikit-learn's gamma='scale', read from a fitted SVC (not recomputed here)."""
    labels = np.arange(len(Z)) % 2
    return SVC(gamma="scale").fit(Z, labels)._gamma


def _moons(m=80, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, np.pi, m)
    upper = rng.random(m) < 0.5
    Z = np.where(upper[:, None], np.c_[np.cos(a), np.sin(a)],
                 np.c_[1 - np.cos(a), 0.5 - np.sin(a)]) + 0.15 * rng.normal(size=(m, 2))
    return 3.0 * Z, np.where(upper, 1, 0)


# ---------------------------------------------------------------- sigma='scale'
def test_scale_width_is_sklearns_gamma_scale():
    gamma = _sklearn_scale_gamma(X)
    assert scale_sigma(X) == pytest.approx(math.sqrt(1 / (2 * gamma)), rel=1e-12)
    for k in (RBF(sigma="scale"), RBF(gamma="scale")):
        resolved = k.resolve(X)
        assert resolved.gamma == pytest.approx(gamma, rel=1e-12)
        np.testing.assert_allclose(resolved(X, Y), rbf_kernel(X, Y, gamma=gamma), rtol=1e-12)
        # kernel(X) on its own takes the width from X
        np.testing.assert_allclose(k(X), rbf_kernel(X, gamma=gamma), rtol=1e-12, atol=1e-15)
        assert k.sigma == "scale" and k.gamma == "scale"        # the parameter is unchanged
    assert RBF(sigma="scale").resolve(X).get_params() == {"sigma": resolved.sigma, "gamma": None}
    assert RBF(gamma="scale").resolve(X).get_params()["sigma"] is None


def test_scale_width_needs_resolving_before_a_cross_kernel():
    with pytest.raises(ValueError, match=r"resolve\(X_train\)"):
        RBF(sigma="scale")(X, Y)
    with pytest.raises(ValueError, match=r"resolve\(X_train\)"):
        ARDRBF(sigma="scale")(X, Y)
    with pytest.raises(ValueError, match="sigma must be a number > 0 or 'scale'"):
        RBF(sigma="auto")(X)
    with pytest.raises(ValueError, match="vector inputs"):
        RBF(sigma="scale").resolve(["gattaca", "cat"])


def test_kernel_rbf_in_an_estimator_is_svc_with_gamma_scale():
    """kernel='rbf' (and RBF(sigma='scale')) fit with scikit-learn's default width; the
    fitted kernel_ holds the number, the kernel parameter is untouched."""
    Z, t = _moons()
    gamma = _sklearn_scale_gamma(Z)
    ref = SVC(C=1.0, gamma="scale", tol=1e-10).fit(Z, t)
    for kernel in ("rbf", RBF(sigma="scale"), RBF(gamma="scale")):
        est = SupportVectorMachine(kernel, C=1.0, tol=1e-9).fit(Z, t)
        assert est.kernel_.gamma == pytest.approx(gamma, rel=1e-12)
        assert est.kernel == kernel if isinstance(kernel, str) else est.kernel.sigma == "scale"
        np.testing.assert_allclose(est.decision_function(Z), ref.decision_function(Z), atol=1e-4)
    # parts of a composite kernel are resolved too, on the estimator's clone only
    k = Sum(RBF(sigma="scale"), Scaled(Linear(), 0.1))
    est = SupportVectorMachine(k).fit(Z, t)
    assert est.kernel_.k1.gamma == pytest.approx(gamma, rel=1e-12)
    assert est.kernel.k1.sigma == "scale"


def test_gp_and_rvm_defaults_use_the_scale_width():
    Z, t = _moons(60, seed=1)
    sigma = math.sqrt(1 / (2 * _sklearn_scale_gamma(Z)))
    target = t.astype(float)
    for est, y in ((GaussianProcessClassifier(), t), (RelevanceVectorClassifier(), t),
                   (RelevanceVectorRegressor(), target)):
        est.fit(Z, y)
        assert est.kernel is None and isinstance(est.kernel_, RBF)
        assert est.kernel_.sigma == pytest.approx(sigma, rel=1e-12)
    gpr = GaussianProcessRegressor().fit(Z, target)
    assert isinstance(gpr.kernel_, ARDRBF) and gpr.kernel_.sigma == pytest.approx(sigma)
    from kernelclf.discovery import default_kernel_table

    table = default_kernel_table()
    for name in ("GaussianProcessClassifier", "RelevanceVectorClassifier",
                 "RelevanceVectorRegressor", "GaussianProcessRegressor"):
        assert table[name].get_params()["sigma"] == "scale", name


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_default_width_follows_the_scale_of_the_inputs(scale):
    """'scale' is computed without under- or overflow, so the default GP classifier on
    inputs at 1e-300 or 1e300 is the classifier of the unscaled inputs (the RBF kernel
    only sees distances in units of sigma)."""
    Z, t = _moons(50, seed=2)
    ref = GaussianProcessClassifier().fit(Z, t)
    est = GaussianProcessClassifier().fit(Z * scale, t)
    assert est.kernel_.sigma == pytest.approx(ref.kernel_.sigma * scale, rel=1e-12)
    np.testing.assert_allclose(est.predict_proba(Z * scale), ref.predict_proba(Z), atol=1e-9)


def test_scale_width_of_constant_inputs():
    """Any width gives constant inputs the same (constant) Gram matrix; 'scale' takes
    sqrt(1/2) times their magnitude (scikit-learn's gamma = 1 at magnitude 1)."""
    assert scale_sigma(np.ones((5, 2))) == pytest.approx(math.sqrt(0.5))
    assert scale_sigma(np.full((5, 2), 1e-200)) == pytest.approx(math.sqrt(0.5) * 1e-200)
    assert scale_sigma(np.zeros((5, 2))) == pytest.approx(math.sqrt(0.5))
    assert _sklearn_scale_gamma(np.ones((6, 2))) == 1.0


def test_raw_digits_with_kernel_rbf_reach_90_percent_and_sigma_1_warns():
    """Issue 27: kernel='rbf' with sigma = 1 on the raw 8x8 digits (pixels 0..16) had a
    training Gram matrix equal to the identity and 8 % accuracy, silently. Now
    kernel='rbf' is scikit-learn's width (sklearn's SVC() reaches 99 %), and sigma = 1
    warns, naming sigma, the typical squared distance and sigma='scale'."""
    import warnings

    from scipy.spatial.distance import pdist

    from kernelclf.multiclass import OneVsOneClassifier

    Xd, yd = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(Xd, yd, test_size=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateKernelWarning)
        ovo = OneVsOneClassifier(SupportVectorMachine(kernel="rbf")).fit(Xtr, ytr)
    acc = ovo.score(Xte, yte)
    assert acc >= 0.9 and acc >= SVC().fit(Xtr, ytr).score(Xte, yte) - 0.02
    # a binary task with the default GP classifier as well
    two = np.isin(ytr, (3, 8))
    gpc = GaussianProcessClassifier().fit(Xtr[two], ytr[two])
    assert gpc.score(Xte[np.isin(yte, (3, 8))], yte[np.isin(yte, (3, 8))]) >= 0.9
    with pytest.warns(DegenerateKernelWarning, match="numerically the identity") as caught:
        SupportVectorMachine(kernel=RBF(1.0)).fit(Xtr[two], ytr[two])
    msg = str(caught[0].message)
    assert "RBF(sigma=1.0)" in msg and "sigma = 1" in msg and "sigma='scale'" in msg
    reported = float(msg.split("squared distance between inputs is ")[1].split(" ")[0])
    assert reported == pytest.approx(np.median(pdist(Xtr[two], "sqeuclidean")), rel=0.1)
    assert f"sigma = {scale_sigma(Xtr[two]):.3g} here" in msg


# ---------------------------------------------------------------- gamma
@pytest.mark.parametrize("gamma", [0.01, 0.5, 3.0])
def test_rbf_gamma_matches_sklearn_rbf_kernel(gamma):
    np.testing.assert_allclose(RBF(gamma=gamma)(X, Y), rbf_kernel(X, Y, gamma=gamma),
                               rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(RBF(gamma=gamma)(X), rbf_kernel(X, gamma=gamma),
                               rtol=1e-12, atol=1e-300)
    assert RBF(gamma=gamma).gamma == gamma
    assert RBF(gamma=gamma).sigma == pytest.approx(math.sqrt(1 / (2 * gamma)), rel=1e-15)
    sigma = math.sqrt(1 / (2 * gamma))
    np.testing.assert_allclose(RBF(gamma=gamma)(X, Y), RBF(sigma)(X, Y), rtol=1e-12)
    col = RBF(gamma=gamma).column_function(X)
    np.testing.assert_allclose(col(3), rbf_kernel(X, gamma=gamma)[:, 3], rtol=1e-12)


def test_rbf_takes_sigma_or_gamma_not_both_and_checks_them():
    with pytest.raises(ValueError, match="not both"):
        RBF(sigma=1.0, gamma=0.5)(X)
    with pytest.raises(ValueError, match="not both"):
        RBF(1.0).set_params(gamma=0.5).sigma
    for bad in (0.0, -1.0, float("nan"), float("inf"), "auto", True):
        with pytest.raises(ValueError, match="gamma"):
            RBF(gamma=bad)(X)
    assert RBF().sigma == 1.0 and RBF().gamma == 0.5           # the book's unit width
    assert RBF(2.0).gamma == 0.125


def test_rbf_gamma_get_set_params_clone_and_repr():
    k = RBF(gamma=0.3)
    assert k.get_params() == {"sigma": None, "gamma": 0.3}
    c = clone(k)
    assert c is not k and c.get_params() == k.get_params() and repr(c) == "RBF(gamma=0.3)"
    c.set_params(gamma=0.7)
    assert c.gamma == 0.7 and k.gamma == 0.3
    est = clone(SupportVectorMachine(kernel=RBF(gamma=0.2)))
    assert est.get_params()["kernel__gamma"] == 0.2 and est.get_params()["kernel__sigma"] is None
    d = clone(k).set_params(**k.get_params(deep=True))
    assert repr(d) == repr(k)


def test_grid_search_over_kernel_gamma_matches_sklearn():
    Z, t = _moons(90, seed=3)
    grid = [0.05, 0.5, 5.0]
    ours = GridSearchCV(SupportVectorMachine(kernel=RBF(), tol=1e-8),
                        {"kernel__gamma": grid}, cv=3).fit(Z, t)
    ref = GridSearchCV(SVC(tol=1e-10), {"gamma": grid}, cv=3).fit(Z, t)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"])
    assert ours.best_params_["kernel__gamma"] == ref.best_params_["gamma"]
    np.testing.assert_allclose(ours.best_estimator_.decision_function(Z),
                               ref.best_estimator_.decision_function(Z), atol=1e-4)


# ---------------------------------------------------------------- kernel classes
@pytest.mark.parametrize("Est", [SupportVectorMachine, GaussianProcessClassifier,
                                 RelevanceVectorClassifier])
@pytest.mark.parametrize("cls", [RBF, Linear, Polynomial])
def test_a_kernel_class_instead_of_an_instance_is_a_clear_error(Est, cls):
    Z, t = _moons(30)
    name = cls.__name__
    with pytest.raises(TypeError, match=rf"pass an instance, e\.g\. {name}\(\)"):
        Est(kernel=cls).fit(Z, t)


def test_a_kernel_class_inside_a_kernel_is_a_clear_error():
    for make in (lambda: RBF() + RBF, lambda: Normalized(RBF), lambda: Sum(Linear(), RBF),
                 lambda: Scaled(RBF, 2.0), lambda: as_kernel(Polynomial),
                 lambda: CallableKernel(RBF)):
        with pytest.raises(TypeError, match=r"pass an instance, e\.g\. (RBF|Polynomial)\(\)"):
            make()(X)


# ---------------------------------------------------------------- input checks
def _whitened():
    return WhitenedKernel(RBF(1.0), D=0.5).fit(X)


VECTOR_KERNELS = [
    ("linear", Linear), ("poly", lambda: Polynomial(2, 1.0)), ("rbf", lambda: RBF(1.0)),
    ("rbf-gamma", lambda: RBF(gamma=0.4)), ("mahalanobis", lambda: Mahalanobis([1.0, 2.0, 3.0])),
    ("constant", lambda: Constant(0.5)), ("ardrbf", lambda: ARDRBF([1.0, 2.0, 0.5])),
    ("callable", lambda: CallableKernel(lambda A, B: A @ B.T)),
    ("sum", lambda: RBF(1.0) + Linear()), ("product", lambda: Product(RBF(1.0), Constant(2.0))),
    ("scaled", lambda: 2.0 * Polynomial(2)), ("normalized", lambda: Normalized(Linear())),
    ("exponential", lambda: Exponential(Linear(), 2.0)),
    ("induced", lambda: InducedRBF(Polynomial(2), 1.0)), ("plus-constant", lambda: Linear() + 1.0),
    ("whitened", _whitened),
]


@pytest.mark.parametrize("name,make", VECTOR_KERNELS, ids=[n for n, _ in VECTOR_KERNELS])
class TestVectorKernelInputs:
    """Every vector kernel (CallableKernel and Constant included) checks its inputs with
    scikit-learn's check_array: 2-D, finite, numeric, dense; and the feature counts."""

    def test_valid_inputs_give_the_matrix(self, name, make):
        K = make()(X, Y)
        assert K.shape == (40, 7) and np.all(np.isfinite(K))

    def test_nan_and_inf(self, name, make):
        for bad in (np.nan, np.inf):
            Z = X.copy()
            Z[3, 1] = bad
            with pytest.raises(ValueError, match="Input contains (NaN|infinity)"):
                make()(Z)
            with pytest.raises(ValueError, match="Input contains (NaN|infinity)"):
                make()(X, Z[:5])

    def test_1d_and_3d(self, name, make):
        with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
            make()(X[:, 0])
        with pytest.raises(ValueError, match="Found array with dim 3"):
            make()(X.reshape(40, 1, 3))

    def test_mismatched_features(self, name, make):
        with pytest.raises(ValueError, match="features"):
            make()(X, np.ones((4, 5)))

    def test_empty_strings_and_sparse(self, name, make):
        with pytest.raises(ValueError, match="0 sample"):
            make()(np.empty((0, 3)))
        with pytest.raises(ValueError, match="could not convert|string"):
            make()(np.array([["a", "b", "c"]]))
        k = make()
        if getattr(k, "accepts_sparse", False):     # the same Gram matrix (issue 38)
            np.testing.assert_allclose(k(sp.csr_matrix(X)), make()(X), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(k(sp.csr_matrix(X), sp.csc_matrix(Y)), k(X, Y),
                                       rtol=1e-12, atol=1e-14)
        else:
            with pytest.raises(TypeError, match="Sparse data was passed"):
                k(sp.csr_matrix(X))


def test_callable_kernel_checks_what_the_function_returns():
    with pytest.raises(ValueError, match=r"returned an array of shape \(40,\).*\(40, 7\)"):
        CallableKernel(lambda A, B: A[:, 0])(X, Y)
    with pytest.raises(ValueError, match=r"shape \(7, 40\)"):
        CallableKernel(lambda A, B: B @ A.T)(X, Y)
    # the inputs the function sees are validated float arrays
    seen = []
    CallableKernel(lambda A, B: seen.append((A.dtype, B.shape)) or A @ B.T)(X.tolist(), Y)
    assert seen == [(np.float64, (7, 3))]


def test_callable_and_constant_kernels_on_strings_only_when_declared():
    S = ["gattaca", "cat", "tacgt"]
    overlap = CallableKernel(lambda A, B: np.array([[len(set(a) & set(b)) for b in B] for a in A]),
                             accepts_strings=True)
    np.testing.assert_array_equal(overlap(S), [[4, 3, 4], [3, 3, 3], [4, 3, 4]])
    assert overlap.accepts_strings
    with pytest.raises(TypeError, match="string"):
        overlap(X)
    with pytest.raises(ValueError, match="could not convert"):
        CallableKernel(lambda A, B: np.zeros((len(A), len(B))))(S)
    # a constant takes anything: spectrum + 1 is a string kernel
    np.testing.assert_array_equal(Constant(2.0)(S, S[:2]), np.full((3, 2), 2.0))
    k = SpectrumKernel(2) + 1.0
    assert k.accepts_strings and not Constant(1.0).accepts_strings
    np.testing.assert_allclose(k(S), SpectrumKernel(2)(S) + 1.0)
    with pytest.raises(TypeError, match="string"):
        Constant(1.0)(S, X)


def test_fisher_kernel_on_empty_input_is_a_clear_error():
    """Issue 27: the Markov-chain Fisher kernel failed on [] with a reshape error."""
    chain = MarkovChainScore.from_sequences(["acgt", "ggca", "tta"])
    k = FisherKernel(chain)
    assert k(["ac", "gt"]).shape == (2, 2)
    with pytest.raises(ValueError, match="at least one object in X"):
        k([])
    with pytest.raises(ValueError, match="at least one object in Y"):
        k(["ac"], [])
    assert chain.score([]).shape == (0, 4 + 16)     # the score itself is well defined
    mix = GaussianMixtureScore([0.5, 0.5], [[0.0, 0.0], [1.0, 1.0]], np.ones((2, 2)))
    with pytest.raises(ValueError, match="0 sample"):
        FisherKernel(mix)(np.empty((0, 2)))
    with pytest.raises(ValueError, match="features"):
        FisherKernel(mix)(np.ones((3, 2)), np.ones((2, 3)))
