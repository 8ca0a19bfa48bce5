"""Tests for kernelclf.bayespoint.bpm (BPM §3; LKC §3.4).

References: version-space membership (a theorem: averages of points of a
convex cone stay in it), a brute-force Monte-Carlo centre of mass, the LP
separability test, and the unchanged test kernel of soft boundaries.
"""
import os
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_moons

from kernelclf.bayespoint import BayesPointMachine, bpm, perceptron_samples, version_space_centre
from kernelclf.datasets import make_teacher
from kernelclf.experiments import bpm as experiments
from kernelclf.kernels import RBF
from kernelclf.margin import NotSeparableError, is_separable


def _moons(m, seed=0):
    X, y = make_moons(m, noise=0.0, random_state=seed)
    return X, y


def test_perceptron_samples_lie_in_version_space():
    X, y = _moons(60)
    ypm = 2.0 * y - 1
    G = RBF(0.5)(X)
    S = perceptron_samples(G, ypm, 20, random_state=0)
    assert S.shape == (20, 60)
    assert np.min(ypm[None, :] * (S @ G)) > 0
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", S, G, S), 1.0)
    assert len({tuple(np.round(s, 8)) for s in S}) > 1  # permutations give different samples


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_estimator_api_and_version_space(method):
    X, y = _moons(80)
    labels = np.array(["a", "b"])[y]
    clf = BayesPointMachine(kernel=RBF(0.5), method=method, n_samples=10, tol=1e-2,
                            random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["a", "b"]
    assert np.all(clf.predict(X) == labels)  # hard boundaries: zero training error
    G = RBF(0.5)(X)
    assert clf.alpha_ @ G @ clf.alpha_ == pytest.approx(1.0)
    f = clf.decision_function(X)
    np.testing.assert_allclose(f, G @ clf.alpha_)
    assert np.all(np.abs(clf.normalized_decision_function(X)) <= 1 + 1e-12)
    if method == "billiard":
        assert clf.n_bounces_ > 0 and clf.converged_
    else:
        assert clf.samples_.shape == (10, 80) and clf.n_bounces_ == 0
    assert clone(clf).get_params()["method"] == method


def test_billiard_bpm_matches_monte_carlo_centre():
    X, y = make_teacher(10, 3, random_state=0)
    c = version_space_centre(X, y, n_draws=600_000, random_state=1, min_accepted=2000)
    clf = BayesPointMachine(method="billiard", tol=1e-3, refresh=0.1, random_state=0).fit(X, y)
    w = X.T @ clf.alpha_
    assert w / np.linalg.norm(w) @ c > 0.99


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_non_separable_sample_needs_soft_boundaries(method):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = (X[:, 0] > 0).astype(int)
    X = np.vstack([X, X[:3]])
    y = np.r_[y, 1 - y[:3]]  # same inputs, opposite labels: nothing is consistent
    with pytest.raises(ValueError, match="lam > 0"):
        BayesPointMachine(kernel=RBF(1.0), method=method, lam=0.0, n_samples=3, max_epochs=50,
                          random_state=0).fit(X, y)
    clf = BayesPointMachine(kernel=RBF(1.0), method=method, lam=0.5, n_samples=3, tol=1e-2,
                            random_state=0).fit(X, y)
    # separable in the augmented space: y_i ((G + lam I) alpha)_i > 0 for every i
    Gl = RBF(1.0)(X) + 0.5 * np.eye(len(X))
    ypm = 2.0 * y - 1
    assert np.min(ypm * (Gl @ clf.alpha_)) > 0
    # the test kernel is unchanged: predictions use k, not k + lam I
    np.testing.assert_allclose(clf.decision_function(X), RBF(1.0)(X) @ clf.alpha_)
    assert issubclass(NotSeparableError, ValueError)


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_auto_ridge_hard_when_separable_soft_otherwise(method):
    """lam='auto': lam_ = 0 exactly when the LP finds the sample separable."""
    X, y = _moons(40)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        clf = BayesPointMachine(RBF(0.5), method=method, n_samples=5, tol=1e-2,
                                random_state=0).fit(X, y)
    assert clf.lam_ == 0.0 and is_separable(RBF(0.5)(X), 2.0 * y - 1, fit_bias=False)
    Xn = np.vstack([X, X[:2]])
    yn = np.r_[y, 1 - y[:2]]  # contradictory duplicates: version space is empty
    G = RBF(0.5)(Xn)
    assert not is_separable(G, 2.0 * yn - 1, fit_bias=False)
    with pytest.warns(UserWarning, match="not separable"):
        clf = BayesPointMachine(RBF(0.5), method=method, n_samples=5, tol=1e-2,
                                random_state=0).fit(Xn, yn)
    assert clf.lam_ == pytest.approx(np.mean(np.diag(G)))  # = 1 for the RBF kernel
    Gl = G + clf.lam_ * np.eye(len(yn))
    assert np.min((2.0 * yn - 1) * (Gl @ clf.alpha_)) > 0  # in the version space of G + lam I
    assert clf.alpha_ @ Gl @ clf.alpha_ == pytest.approx(1.0)
    # the explicit ridge gives the same model
    same = BayesPointMachine(RBF(0.5), method=method, lam=clf.lam_, n_samples=5, tol=1e-2,
                             random_state=0).fit(Xn, yn)
    assert np.mean(same.predict(Xn) == clf.predict(Xn)) > 0.95


needs_data = pytest.mark.skipif(not os.environ.get("KERNELCLF_DATA"), reason="needs the data home")


@needs_data
def test_issue14_default_converges_on_thyroid_split0_without_warning():
    """Issue 14: RBF(1.0) on Thyroid split 0 stopped at the old bounce cap with a warning.
    The printed rule (E2-corrected rho) needs at least (1 - tol)/tol flights (closed form)."""
    from kernelclf.datasets import load

    b = load("thyroid_splits")
    X, y = b.X_train[0], b.y_train[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BayesPointMachine(kernel=RBF(sigma=1.0), random_state=0).fit(X, y)
    assert clf.converged_ and clf.n_bounces_ >= (1 - clf.tol) / clf.tol
    G = RBF(1.0)(X)
    assert np.min((2.0 * (y == y.max()) - 1) * (G @ clf.alpha_)) > 0  # in version space


@needs_data
@pytest.mark.parametrize("name", sorted(experiments.TABLE1_SIGMA))
def test_default_converges_on_table1_data_without_warning(name):
    """Chapter 12's data (split 0, standardised, Table 1 widths): no warning at defaults."""
    Xtr, ytr, Xte, yte = experiments.table1_splits(name, 1)[0]
    Xtr, Xte = experiments._standardise(Xtr, Xte)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BayesPointMachine(RBF(experiments.TABLE1_SIGMA[name]), random_state=0).fit(Xtr, ytr)
    assert clf.converged_
    assert np.all(clf.predict(Xtr) == ytr)  # hard boundaries: consistent with the sample


def test_stopping_parameter_reaches_the_billiard():
    X, y = _moons(40)
    a = BayesPointMachine(RBF(0.5), tol=0.05, stopping="batch", random_state=0).fit(X, y)
    b = BayesPointMachine(RBF(0.5), tol=1e-2, stopping="rho2", random_state=0).fit(X, y)
    p = BayesPointMachine(RBF(0.5), stopping="rho2-printed", random_state=0).fit(X, y)
    assert a.converged_ and b.converged_ and p.n_bounces_ == 10  # printed rho: NaN, stops
    assert b.n_bounces_ >= 99  # (1 - tol)/tol flights at least
    with pytest.raises(ValueError):
        BayesPointMachine(stopping="sometimes").fit(X, y)


def test_two_points_and_underflow_give_clear_answers():
    """A one-dimensional span: version space is one point (the centre, no bounces);
    inputs that underflow to zero vectors: a clear error, also for the perceptron method."""
    X = np.array([[-1.0, -1.0], [1.0, 1.0]])
    clf = BayesPointMachine().fit(X, [0, 1])
    f = clf.decision_function(X)
    assert np.all(np.isfinite(f)) and f[0] < 0 < f[1] and clf.n_bounces_ == 0
    Xs, ys = _moons(20)
    for method in ("billiard", "perceptron"):
        with pytest.raises(ValueError, match="zero vector|underflow"):
            BayesPointMachine(method=method).fit(Xs * 1e-300, ys)


def test_n_samples_is_validated_not_truncated():
    """Regression (issue 9): n_samples=2.7 used to run 2 perceptrons silently."""
    X, y = _moons(20)
    for bad in (2.7, True, "3", 0):
        with pytest.raises(ValueError, match="n_samples"):
            BayesPointMachine(method="perceptron", n_samples=bad).fit(X, y)
        with pytest.raises(ValueError, match="n_samples"):
            perceptron_samples(RBF(0.5)(X), 2.0 * y - 1, bad)
    clf = BayesPointMachine(RBF(0.5), method="perceptron", n_samples=np.int64(3),
                            random_state=0).fit(X, y)
    assert clf.samples_.shape == (3, 20)


def test_bad_parameters():
    X, y = _moons(20)
    for kw in ({"method": "gibbs"}, {"lam": -1.0}, {"lam": "big"}, {"tol": 0.0}, {"n_samples": 0},
               {"max_bounces": 1.5}, {"refresh": 2.0}, {"precompute": "yes"}):
        with pytest.raises(ValueError):
            BayesPointMachine(**kw).fit(X, y)
    with pytest.raises(ValueError):
        BayesPointMachine().fit(X, np.zeros(20))
    assert bpm.__name__ == "kernelclf.bayespoint.bpm"


# ------------------------------------------------- experiments (chapter 12)



def test_rejection_curve_by_hand():
    conf = np.array([0.9, 0.1, 0.5, 0.3, 0.8])
    correct = np.array([True, False, True, False, True])
    # reject 0, 1 (conf 0.1), 2 (0.1, 0.3) points: errors 2/5, 1/4, 0/3
    np.testing.assert_allclose(experiments.rejection_curve(conf, correct, [0, 0.2, 0.4]),
                               [0.4, 0.25, 0.0])


def test_one_vs_rest_bpm_three_blobs():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [4, 0], [0, 4]])
    X = np.vstack([c + rng.normal(size=(15, 2)) * 0.5 for c in centres])
    y = np.repeat([0, 1, 2], 15)
    pred, conf = experiments.one_vs_rest_bpm(X, y, X, RBF(1.0), n_samples=3, random_state=0)
    assert np.all(pred == y)  # every one-vs-rest Bayes point is consistent with its sample
    assert np.all(np.abs(conf) <= 1 + 1e-12)


def test_soft_boundary_curve_matches_direct_fits():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=30))
    Xt = rng.normal(size=(200, 2))
    yt = np.sign(Xt[:, 0])
    b, s = experiments.soft_boundary_curve([(X, y, Xt, yt)], [0.5], kernel=RBF(1.0), tol=1e-2,
                                           standardise=False)
    # the L2 soft-margin SVM is the hard-margin dual on G + lam I: its support values satisfy
    # y_i ((G + lam I) a)_i >= 1 with equality on the support vectors
    from kernelclf.margin import SupportVectorMachine
    svm = SupportVectorMachine(RBF(1.0), C=2.0, loss="squared_hinge", fit_bias=False,
                               tol=1e-6).fit(X, y)
    Gl = RBF(1.0)(X) + 0.5 * np.eye(30)
    assert np.min(y * (Gl @ svm.alpha_)) > 1 - 1e-3
    assert s[0, 0] == pytest.approx(100 * np.mean(svm.predict(Xt) != yt))
    assert 0 <= b[0, 0] <= 100


def test_table1_reference_numbers_and_format():
    rows = [{"dataset": "heart", "n_splits": 2, "sigma": 10.0, "svm_mean": 25.0, "svm_sem": 1.0,
             "bpm_mean": 22.0, "bpm_sem": 1.0, "confidence": 0.9, "bpm_wins": 2, "svm_wins": 0,
             "reported": experiments.TABLE1_REPORTED["heart"]}]
    text = experiments.format_table1(rows)
    assert "25.4 ± 0.4" in text and "22.8 ± 0.34" in text
    assert set(experiments.TABLE1_SIGMA) == set(experiments.TABLE1_REPORTED)
