"""Claims of the API reference's docstrings, checked against the code they describe.

Each test backs a sentence that a reading of the API pages (book/api_*.md) found wrong
and that was corrected; the test fails if the code and the sentence part again.
"""
import inspect
import warnings

import numpy as np

from kernelclf.datasets import make_linear_separable


def test_svm_max_iter_default_is_the_one_documented():
    """SupportVectorMachine: 'default libsvm's max(10^7, 100 m)'."""
    from kernelclf.margin import SupportVectorMachine
    from kernelclf.margin.smo import default_max_iter

    doc = inspect.getdoc(SupportVectorMachine)
    assert "default libsvm's ``max(10^7, 100 m)``" in " ".join(doc.split())
    svm = SupportVectorMachine()
    for m in (10, 1000, 200_000):
        assert svm._max_iter(m) == default_max_iter(m) == max(10**7, 100 * m)


def test_multiclass_names_the_classifiers_that_are_not_binary():
    """kernelclf.multiclass: every classifier is binary except the two of kernelclf.neighbors."""
    import kernelclf.multiclass as mc
    from kernelclf.discovery import all_estimators

    assert "except the nearest-neighbour and nearest-centroid rules" in " ".join(
        inspect.getdoc(mc).split())
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(10, 2)) for c in ((0, 0), (2, 0), (1, 2))])
    y = np.repeat([0, 1, 2], 10)
    takes_three = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls in all_estimators(type_filter="classifier"):
            if cls.__module__ == "kernelclf.multiclass":
                continue
            try:
                cls().fit(X, y)
            except ValueError:
                continue
            takes_three.add((cls.__module__, name))
    assert takes_three == {("kernelclf.neighbors", "KernelNearestNeighbors"),
                           ("kernelclf.neighbors", "KernelNearestCentroid")}


def test_gp_regression_default_kernel_keeps_one_width():
    """kernelclf.base: the default ARDRBF has one width, also after optimize=True."""
    from kernelclf.bayes import GaussianProcessRegressor

    X, _ = make_linear_separable(40, dim=3, margin=0.1, random_state=0)
    t = np.sin(3 * X[:, 0])
    for optimize in (False, True):
        gpr = GaussianProcessRegressor(optimize=optimize).fit(X, t)
        assert np.ndim(gpr.kernel_.sigma) == 0


def test_rmm_bound_cites_only_the_papers_three_values():
    """rmm_bound: RMM §5.7 tries k/K = 1/2, 1/4, 1/10; no other grid is the paper's."""
    from kernelclf.margin.rmm import rmm_bound

    doc = " ".join(inspect.getdoc(rmm_bound).split())
    assert "the paper's grid" not in doc and "1/2, 1/4, 1/10" in doc
    theta = 5.0
    assert [rmm_bound(theta, 1, k) for k in (2, 4, 10)] == [3.0, 2.0, 1.4]


def test_which_estimators_take_example_and_class_weights():
    """svm.py's 'Example weights': the nu-SVM, the regression SVMs, the one-class SVM and
    the relative margin machines take ``sample_weight`` too; only the C-SVM has
    ``class_weight`` (the multiclass wrappers pass both on)."""
    from kernelclf.discovery import all_estimators

    wrappers = {"OneVsOneClassifier", "DAGClassifier", "OneVsRestClassifier"}
    weighted, class_weighted = set(), set()
    for name, cls in all_estimators():
        if name in wrappers:
            continue
        if "sample_weight" in inspect.signature(cls.fit).parameters:
            weighted.add(name)
        if "class_weight" in cls().get_params(deep=False):
            class_weighted.add(name)
    assert weighted == {
        "SupportVectorMachine", "NuSupportVectorMachine", "SupportVectorRegression",
        "NuSupportVectorRegression", "OneClassSupportVectorMachine", "RelativeMarginMachine",
        "RelaxedRMM",
    }
    assert class_weighted == {"SupportVectorMachine"}
