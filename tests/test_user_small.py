"""The smaller surprises of a scikit-learn user (issue 38), one regression test each.

References: scikit-learn's own wrappers and loaders, the records of the bound report,
observed frequencies on held-out points, and fits of the same data at other scales.
"""
import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from kernelclf import (
    RBF,
    DAGClassifier,
    GaussianProcessClassifier,
    KernelNearestNeighbors,
    OneVsOneClassifier,
    OneVsRestClassifier,
    RelevanceVectorClassifier,
    SupportVectorMachine,
    format_report,
    report,
)
from kernelclf.datasets import make_linear_separable, make_moons
from kernelclf.multiclass import REJECTION_RATES, rejection_errors


def _blobs(m=120, K=3, seed=0):
    rng = np.random.default_rng(seed)
    centres = 3.0 * np.c_[np.cos(np.arange(K)), np.sin(np.arange(K))]
    y = np.arange(m) % K
    return centres[y] + rng.normal(size=(m, 2)), y


def test_kernel_nearest_neighbors_takes_the_kernel_first():
    params = list(inspect.signature(KernelNearestNeighbors).parameters)
    assert params[0] == "kernel"
    X, y = _blobs()
    by_position = KernelNearestNeighbors(RBF(1.0), 3).fit(X, y)
    by_keyword = KernelNearestNeighbors(n_neighbors=3, kernel=RBF(1.0)).fit(X, y)
    np.testing.assert_array_equal(by_position.predict(X), by_keyword.predict(X))
    assert by_position.kernel_.sigma == 1.0 and by_position.n_neighbors == 3
    with pytest.raises(TypeError, match=r"n_neighbors=5"):      # the old positional call
        KernelNearestNeighbors(5).fit(X, y)


def test_rejection_curve_has_bpm_fig9s_rates_by_default():
    X, y = _blobs(240, K=4)
    Xt, yt = _blobs(400, K=4, seed=3)
    ovr = OneVsRestClassifier(SupportVectorMachine(RBF(1.0))).fit(X, y)
    np.testing.assert_allclose(REJECTION_RATES, np.arange(11) / 100)
    curve = ovr.rejection_curve(Xt, yt)
    assert curve.shape == (11,)
    correct = ovr.predict(Xt) == yt
    np.testing.assert_allclose(curve, rejection_errors(ovr.confidence(Xt), correct,
                                                       REJECTION_RATES))
    np.testing.assert_allclose(curve, ovr.rejection_curve(Xt, yt, REJECTION_RATES))


@pytest.mark.parametrize("Wrapper", [OneVsRestClassifier, OneVsOneClassifier, DAGClassifier])
def test_multilabel_targets_are_refused_with_the_alternative(Wrapper):
    from sklearn.multiclass import OneVsRestClassifier as SkOneVsRest

    X, _ = _blobs()
    Y = (np.random.default_rng(1).random((len(X), 3)) > 0.5).astype(int)
    with pytest.raises(ValueError, match="multilabel indicator matrix of shape") as err:
        Wrapper(SupportVectorMachine()).fit(X, Y)
    assert "sklearn.multiclass.OneVsRestClassifier(estimator)" in str(err.value)
    # the advice works: scikit-learn's wrapper fits one machine of the package per column
    sk = SkOneVsRest(SupportVectorMachine(RBF(1.0))).fit(X, Y)
    assert sk.predict(X).shape == Y.shape


def test_rvm_probabilities_are_over_confident_as_its_docstring_says():
    """On noisy moons (300 points, 5 % flipped labels, RBF(0.5)) about half the test points
    get an RVM probability above 0.95, and fewer of them are right than it says."""
    doc = inspect.getdoc(RelevanceVectorClassifier)
    assert "over-confident" in doc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(3):
            X, y = make_moons(300, noise=0.25, flip=0.05, random_state=1 + 10 * seed)
            Xt, yt = make_moons(2000, noise=0.25, flip=0.05, random_state=2 + 10 * seed)
            rvm = RelevanceVectorClassifier(RBF(0.5)).fit(X, y)
            p = rvm.predict_proba(Xt)[:, 1]
            conf, right = np.maximum(p, 1 - p), (p > 0.5) == (yt == 1)
            sure = conf > 0.95
            assert 0.4 < sure.mean() < 0.6
            assert right[sure].mean() < conf[sure].mean() - 0.03
            gp = GaussianProcessClassifier(RBF(0.5), optimizer=None).fit(X, y)
            q = gp.predict_proba(Xt)[:, 1]
            assert np.mean(np.maximum(q, 1 - q) > 0.95) < 0.01


def test_bound_report_names_the_feature_space_dimension():
    X, y = make_linear_separable(80, dim=3, margin=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rbf = report(SupportVectorMachine(RBF(1.0)).fit(X, y), X, y)
        lin = report(SupportVectorMachine().fit(X, y), X, y)
    row = {r["name"]: r for r in rbf}["PAC-Bayes margin bound"]
    assert row["inputs"]["n"] == np.inf and row["inputs"]["d"] == 80
    assert "n=-" not in format_report(rbf) and "n=inf, d=80" in format_report(rbf)
    assert {r["name"]: r for r in lin}["PAC-Bayes margin bound"]["inputs"]["d"] == 4


def test_no_bound_applies_says_why_and_what_to_report_instead():
    from sklearn.svm import SVC

    X, y = make_linear_separable(80, dim=3, margin=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svc = report(SVC(kernel="rbf", gamma=0.5).fit(X, y), X, y)
        assert "kernelclf.margin" in svc.hint and "no bound applies: SVC" in svc.summary()
        # the advice: the package's SVM with SVC's parameters has bounds
        ours = report(SupportVectorMachine(RBF(gamma=0.5)).fit(X, y), X, y)
        assert any(r["applicable"] for r in ours) and ours.hint == ""
        for Wrapper in (OneVsRestClassifier, OneVsOneClassifier, DAGClassifier):
            model = Wrapper(SupportVectorMachine()).fit(X, y)
            r = report(model, X, y)
            assert not any(x["applicable"] for x in r)
            assert "report(model.estimators_[0], X, (y == model.classes_[1]).astype(int))" \
                in r.summary()
            inner = report(model.estimators_[0], X, (y == model.classes_[1]).astype(int))
            assert sum(x["applicable"] for x in inner) > 5


@pytest.mark.parametrize("scale", [1e-300, 1e-154, 1e154, 1e200, 1e300, 1e307])
def test_inputs_near_the_float_limits_give_no_overflow_error(scale):
    """``RBF(gamma='scale')`` on values above 1e154 raised OverflowError (sigma ** 2)."""
    X, y = make_linear_separable(60, dim=3, margin=0.1, random_state=1)
    ref = SupportVectorMachine(RBF(gamma="scale")).fit(X, y).predict(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kernel in (RBF(gamma="scale"), RBF(sigma="scale"), "rbf"):
            for est in (SupportVectorMachine(kernel), KernelNearestNeighbors(kernel),
                        GaussianProcessClassifier(kernel)):
                model = clone(est).fit(X * scale, y)
                assert np.isfinite(model.kernel_.sigma) and model.kernel_.gamma >= 0
                if isinstance(est, SupportVectorMachine):
                    np.testing.assert_array_equal(model.predict(X * scale), ref)
        if scale in (1e-300, 1e200):           # no usable polynomial scale: a clear error
            with pytest.raises(ValueError, match="rescale the inputs"):
                SupportVectorMachine("poly").fit(X * scale, y)
