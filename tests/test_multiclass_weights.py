"""Multiclass wrappers with class and example weights, precomputed kernels, and Platt
probabilities on small classes (issue 38).

References: scikit-learn's ``SVC`` (libsvm's one-versus-one machines with
``class_weight`` and ``sample_weight``; ``decision_function_shape='ovo'`` gives each
pairwise machine's values, positive for the pair's first class), the binary ``SVC`` for
each one-versus-rest machine, the wrappers on the inputs themselves for a precomputed
linear kernel, and ``SVC(probability=True)`` on the smallest samples it takes.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.svm import SVC

from kernelclf import report
from kernelclf.kernels import RBF
from kernelclf.margin import NuSupportVectorMachine, SupportVectorMachine
from kernelclf.multiclass import DAGClassifier, OneVsOneClassifier, OneVsRestClassifier
from kernelclf.neighbors import KernelNearestCentroid


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    return X, y, w


def _pairwise_values(ovo, X):
    """SVC's 'ovo' decision values: machine (i, j) is positive for class i; the wrapper's
    machines are labelled 1 for class j."""
    return np.column_stack([-est.decision_function(X) for est in ovo.estimators_])


@pytest.mark.parametrize("class_weight", [{0: 5}, {2: 5}, {0: 0.3, 1: 2.0, 2: 4.0},
                                          "balanced"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_vs_one_weights_are_svcs(iris, class_weight, weighted):
    """Each pairwise machine gets the weights of its own two classes (before the fix,
    {0: 5} up-weighted class 1 in the (1, 2) machine and {2: 5} raised). kernel='rbf' is
    fixed once on all of X, as SVC's gamma='scale'."""
    X, y, w = iris
    sw = w if weighted else None
    cw = class_weight
    if cw == "balanced" and weighted:
        # the wrapper's 'balanced' counts the weights (W / (K W_k)); SVC counts examples
        totals = np.bincount(y, weights=w)
        cw = dict(enumerate(totals.sum() / (3 * totals)))
    sk = SVC(class_weight=cw, decision_function_shape="ovo", tol=1e-8).fit(X, y,
                                                                          sample_weight=sw)
    ovo = OneVsOneClassifier(SupportVectorMachine(kernel="rbf", tol=1e-8,
                                                  class_weight=class_weight),
                             tie_break="first").fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(_pairwise_values(ovo, X), sk.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(ovo.predict(X), sk.predict(X))
    if class_weight == {0: 5}:                    # the (1, 2) machine is not weighted
        np.testing.assert_array_equal(ovo.estimators_[2].class_weight_, [1.0, 1.0])
        np.testing.assert_array_equal(ovo.estimators_[0].class_weight_, [5.0, 1.0])


def test_one_vs_rest_weights_are_each_machines_svc(iris):
    """Machine k sees class k against the rest: the class weights become per-example
    factors of its sample weights (the rest mixes classes)."""
    X, y, w = iris
    cw = {0: 0.5, 1: 2.0, 2: 4.0}
    ovr = OneVsRestClassifier(SupportVectorMachine(kernel=RBF(1.0), tol=1e-8,
                                                   class_weight=cw)).fit(X, y, sample_weight=w)
    factors = np.array([cw[c] for c in y])
    for k, est in enumerate(ovr.estimators_):
        sk = SVC(gamma=RBF(1.0).gamma, tol=1e-8).fit(X, y == k, sample_weight=w * factors)
        np.testing.assert_allclose(est.decision_function(X), sk.decision_function(X),
                                   atol=1e-5)


def test_weights_reach_the_dag_and_are_refused_clearly(iris):
    X, y, w = iris
    dag = DAGClassifier(SupportVectorMachine(kernel="rbf", class_weight={2: 5})).fit(
        X, y, sample_weight=w)
    ovo = OneVsOneClassifier(SupportVectorMachine(kernel="rbf", class_weight={2: 5})).fit(
        X, y, sample_weight=w)
    for a, b in zip(dag.estimators_, ovo.estimators_):
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    with pytest.raises(ValueError, match=r"not classes of y: \[7\]"):
        OneVsOneClassifier(SupportVectorMachine(class_weight={7: 2})).fit(X, y)
    with pytest.raises(TypeError, match="takes no sample_weight"):
        OneVsOneClassifier(KernelNearestCentroid()).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="class 1") as err:
        OneVsOneClassifier(SupportVectorMachine()).fit(X, y, sample_weight=(y != 1) * 1.0)
    assert "binary machine of the classes 0 and 1" in "".join(err.value.__notes__)


@pytest.mark.parametrize("Wrapper", [OneVsOneClassifier, DAGClassifier])
def test_precomputed_kernel_is_sliced_per_pair(iris, Wrapper):
    X, y, _ = iris
    K = X @ X.T
    pre = Wrapper(SupportVectorMachine(kernel="precomputed")).fit(K, y)
    lin = Wrapper(SupportVectorMachine(kernel="linear")).fit(X, y)
    np.testing.assert_array_equal(pre.predict(K), lin.predict(X))
    for a, b in zip(pre.estimators_, lin.estimators_):
        np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, atol=1e-10)
    Xt = X[::7] + 0.1
    np.testing.assert_array_equal(pre.predict(Xt @ X.T), lin.predict(Xt))


def test_the_bound_report_refuses_a_precomputed_model_clearly(iris):
    X, y, _ = iris
    keep = y < 2
    K = X[keep] @ X[keep].T
    est = SupportVectorMachine(kernel="precomputed").fit(K, y[keep])
    with pytest.raises(ValueError, match="kernel='precomputed'.*no kernel function"):
        report(est, K, y[keep])


def test_probability_on_the_first_50_digits():
    """Classes of 3 to 7 examples (pairs of 7 to 14): SVC gives probabilities, so does the
    one-versus-one wrapper (libsvm's folds when a class has fewer than 5 examples; before
    the fix: 'n_splits=5 cannot be greater than the number of members in each class')."""
    X, y = load_digits(return_X_y=True)
    X, y = X[:50], y[:50]
    assert np.bincount(y).min() < 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)        # SVC(probability=True), 1.9
        sk = SVC(probability=True, random_state=0).fit(X, y).predict_proba(X)
    for base in (SupportVectorMachine(kernel="rbf", probability=True, random_state=0),
                 NuSupportVectorMachine(kernel="rbf", probability=True, random_state=0)):
        P = OneVsOneClassifier(base).fit(X, y).predict_proba(X)
        assert P.shape == (50, 10) and np.all(np.isfinite(P))
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        assert np.mean(P.argmax(axis=1) == y) >= 0.95
        assert np.mean(P.argmax(axis=1) == sk.argmax(axis=1)) >= 0.9


@pytest.mark.parametrize("m", [2, 3, 4, 6])
def test_probability_on_tiny_pairs(m):
    """The smallest samples SVC takes. With one example per class every fold's training
    part holds one class, whose sign its held-out example gets (libsvm's rule): SVC's
    sigmoid to its rounding. Larger: proper probabilities (finite, summing to 1), where the
    folds drawn decide the sigmoid."""
    X = load_digits().data[:m]
    y = np.arange(m) % 2
    est = SupportVectorMachine(kernel="rbf", probability=True, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)
    if m == 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            sk = SVC(probability=True, random_state=0).fit(X, y).predict_proba(X)
        np.testing.assert_allclose(P, sk, atol=0.01)
