"""The estimator contract (kernelclf.base), checked on every public estimator.

Reference: scikit-learn's own estimator checks (``parametrize_with_checks``), run on
every estimator that :func:`kernelclf.discovery.all_estimators` discovers, with
no expected-failure list; plus the usability a scikit-learn user relies on (clone,
GridSearchCV, Pipeline) and string kernels on lists of strings.
"""
import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelclf.discovery import all_estimators
from kernelclf.kernels import RBF, Normalized, SpectrumKernel

ESTIMATORS = all_estimators()
CLASSIFIERS = [(n, c) for n, c in ESTIMATORS if is_classifier(c())]
REGRESSORS = [(n, c) for n, c in ESTIMATORS if is_regressor(c())]
KERNEL_ESTIMATORS = [(n, c) for n, c in ESTIMATORS if "kernel" in c().get_params()]


def test_discovery_finds_the_estimators_of_every_chapter():
    names = {n for n, _ in ESTIMATORS}
    for expected in ("SupportVectorMachine", "NuSupportVectorMachine", "KernelPerceptron",
                     "Perceptron", "AdaptiveMarginMachine", "LeaveOneOutMachine",
                     "GaussianProcessClassifier", "GaussianProcessRegressor",
                     "RelevanceVectorClassifier", "RelevanceVectorRegressor",
                     "FisherDiscriminant", "KernelFisherDiscriminant", "BayesPointMachine",
                     "KernelNearestNeighbors", "KernelNearestCentroid"):
        assert expected in names


#: parameters for the checks (as scikit-learn's own PER_ESTIMATOR_CHECK_PARAMS), with why
CHECK_PARAMS = {
    # the weight check's classes weigh 3 and 24: nu <= 2 * 3 / 27 is feasible, the default
    # nu = 0.5 is not (NuSVC refuses it too, "specified nu is infeasible")
    "NuSupportVectorMachine": {"nu": 0.2},
}


@parametrize_with_checks([cls(**CHECK_PARAMS.get(name, {})) for name, cls in ESTIMATORS])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def _binary(seed=0, m=60):
    X, y = make_classification(n_samples=m, n_features=4, n_informative=3, n_redundant=0,
                               class_sep=2.0, random_state=seed)
    return X, np.where(y == 1, "yes", "no")


@pytest.mark.parametrize("name,Est", CLASSIFIERS)
def test_clone_gridsearch_pipeline(name, Est):
    X, y = _binary()
    est = Est()
    params = est.get_params()
    grid = {}
    if "kernel" in params:
        grid["kernel"] = [RBF(1.0), RBF(3.0)]
    search = GridSearchCV(make_pipeline(StandardScaler(), clone(est)),
                          {f"{type(est).__name__.lower()}__{k}": v for k, v in grid.items()},
                          cv=3).fit(X, y)
    assert search.best_estimator_.score(X, y) > 0.7
    assert set(search.classes_) == {"no", "yes"}


@pytest.mark.parametrize("name,Est", KERNEL_ESTIMATORS)
def test_fitted_model_does_not_follow_the_kernel_parameter(name, Est):
    """The kernel is cloned into ``kernel_``: set_params after fit changes nothing."""
    X, y = _binary(1)
    if is_regressor(Est()):
        y = (y == "yes").astype(float) + 0.1 * np.arange(len(y)) / len(y)
    est = Est(kernel=RBF(1.0)).fit(X, y)
    before = est.predict(X)
    est.set_params(kernel__sigma=0.05)
    np.testing.assert_array_equal(est.predict(X), before)
    assert est.kernel_ is not est.kernel


def _motif_strings(m=40, seed=3):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(m):
        s = "".join(rng.choice(list("acgt"), 24))
        if i % 2:
            pos = int(rng.integers(0, 18))
            s = s[:pos] + "gattac" + s[pos + 6:]
        X.append(s)
        y.append(i % 2)
    return X, np.array(y)


@pytest.mark.parametrize("name,Est", KERNEL_ESTIMATORS)
def test_string_kernels_on_lists_of_strings(name, Est):
    """Every kernel estimator takes what its kernel takes: lists of strings here."""
    X, y = _motif_strings()
    kernel = Normalized(SpectrumKernel(3))
    target = y.astype(float) if is_regressor(Est()) else y
    est = Est(kernel=kernel).fit(X[:30], target[:30])
    pred = est.predict(X[30:])
    assert len(pred) == 10
    if is_classifier(est):
        assert np.mean(est.predict(X[:30]) == y[:30]) >= 0.7
    assert not hasattr(est, "n_features_in_")
