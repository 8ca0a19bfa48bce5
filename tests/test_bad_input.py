"""Bad and degenerate input, for every public estimator of the package (issue 17).

One matrix: every estimator that :func:`kernelclf.discovery.all_estimators`
discovers (so a new estimator is covered without editing this file) times the bad
and degenerate inputs below. Each cell asserts its outcome: either the error type
and words that name the problem, or a correct result, with an independent
reference for "correct":

* validation (NaN, inf, shapes, empty input, sparse input, labels, parameters) is
  scikit-learn's (``validate_data``, ``check_classification_targets``,
  ``_parameter_constraints``), so the expected messages are scikit-learn's;
* kernels that are not positive semi-definite and kernel values that overflow are
  caught by the numerical guard of :mod:`kernelclf.kernels.gram_guard` (LKC Prop. 2.18);
* degenerate but legal samples (identical inputs, tiny or huge scales, two points,
  duplicates, 20-to-1 imbalance) must give a model whose outputs are finite and
  consistent with the data: identical inputs get identical outputs; on separable
  blobs the training accuracy is at least what an obvious classifier reaches
  (e.g. 40 of 42 with one contradictory pair, LKC §2.2's soft-margin argument);
* string kernels on lists of strings (the promoter sequences of
  ``book/02b_string_kernels.md``) must give the same model as the linear kernel on
  the explicit feature map of the normalised spectrum kernel (tests/_string_data.py).

Estimators with a ``solver`` or ``method`` option are also run with each of its
non-default values on the numerical cells. Each cell runs in well under a few
seconds of CPU time (checked).
"""
import re
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _string_data import promoters, spectrum_features
from sklearn.base import clone, is_classifier, is_outlier_detector, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils._param_validation import InvalidParameterError, StrOptions

from kernelclf.discovery import all_estimators
from kernelclf.kernels import RBF, IndefiniteKernelError, Linear, Normalized, SpectrumKernel

ESTIMATORS = all_estimators()
CPU_SECONDS = 5.0


# ---------------------------------------------------------------- estimators and variants
def _has_kernel(Est):
    params = Est().get_params(deep=False)
    return "kernel" in params or "estimator" in params


def _variants():
    """(id, class, params): defaults, plus each non-default ``solver``/``method`` option."""
    out = []
    for name, Est in ESTIMATORS:
        out.append((name, Est, {}))
        defaults = Est().get_params(deep=False)
        for p in ("solver", "method"):
            for c in getattr(Est, "_parameter_constraints", {}).get(p, []):
                if isinstance(c, StrOptions):
                    for opt in sorted(c.options - {defaults.get(p), "auto"}):
                        out.append((f"{name}({p}={opt})", Est, {p: opt}))
    return out


VARIANTS = _variants()


def _make(Est, params=None, kernel=None):
    """A fresh estimator (seeded when it has a ``random_state``), with ``kernel`` put
    where the estimator keeps it (its own ``kernel`` or its base estimator's)."""
    est = Est()
    defaults = est.get_params(deep=False)
    params = dict(params or {})
    if "random_state" in defaults:
        params.setdefault("random_state", 0)
    if kernel is not None:
        if "kernel" in defaults:
            params["kernel"] = kernel
        elif "estimator" in defaults:
            from kernelclf.margin import SupportVectorMachine

            base = defaults["estimator"]
            base = SupportVectorMachine() if base is None else clone(base)
            params["estimator"] = base.set_params(kernel=kernel)
        else:
            raise AssertionError(f"{Est.__name__} has no kernel")
    return est.set_params(**params)


def _ids(rows):
    return [r[0] for r in rows]


ALL = [(n, E, {}) for n, E in ESTIMATORS]
CLASSIFIERS = [r for r in ALL if is_classifier(r[1]())]
REGRESSORS = [r for r in ALL if is_regressor(r[1]())]
KERNEL_VARIANTS = [r for r in VARIANTS if _has_kernel(r[1])]
OWN_KERNEL = [r for r in ALL if "kernel" in r[1]().get_params(deep=False)]
CLASSIFIER_VARIANTS = [r for r in VARIANTS if is_classifier(r[1]())]
REGRESSOR_VARIANTS = [r for r in VARIANTS if is_regressor(r[1]())]


def _binary_only(est):
    return not get_tags(est).classifier_tags.multi_class


@pytest.fixture(scope="module", autouse=True)
def _compiled_once():
    """Fit the estimators with numba-compiled loops once before the budgets start: the
    first call compiles (seconds of CPU), which is not the cell's cost."""
    X, y = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, Est in ESTIMATORS:
            if name in {"BayesPointMachine", "RelativeMarginMachine", "RelaxedRMM",
                        "SupportVectorMachine", "NuSupportVectorMachine",
                        "SupportVectorRegression", "NuSupportVectorRegression"}:
                _make(Est).fit(X, y)
                _make(Est).fit(X.tolist(), y)


@pytest.fixture(autouse=True)
def _cpu_budget():
    """Each cell must finish in a few seconds of CPU time (not wall time: the
    machine may be shared)."""
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")               # convergence notes are not the point
        yield
    used = time.process_time() - start
    assert used < CPU_SECONDS, f"cell took {used:.1f} s of CPU time"


# ---------------------------------------------------------------- data
def _blobs(m=40, seed=0, sep=2.0):
    """Two Gaussian clusters at (-sep, -sep) and (sep, sep), sd 0.6: separable."""
    rng = np.random.default_rng(seed)
    h = m // 2
    X = np.vstack([rng.normal(-sep, 0.6, (h, 2)), rng.normal(sep, 0.6, (m - h, 2))])
    y = np.r_[np.zeros(h, int), np.ones(m - h, int)]
    return X, y


def _target(X):
    return np.sin(X[:, 0]) + 0.5 * X[:, 1]


def _data(est, m=40, seed=0):
    X, y = _blobs(m, seed)
    return (X, _target(X)) if is_regressor(est) else (X, y)


def _accuracy(est, X, y):
    return float(np.mean(est.predict(X) == y))


def _r2(est, X, y):
    p = est.predict(X)
    return 1.0 - np.sum((p - y) ** 2) / np.sum((y - y.mean()) ** 2)


def _outputs(est, X):
    """Real-valued outputs: decision function, else probabilities, else predictions."""
    for method in ("decision_function", "predict_proba"):
        if hasattr(est, method):
            return np.asarray(getattr(est, method)(X), dtype=float)
    return np.asarray(est.predict(X), dtype=float)


def _assert_sound_model(est, X, y):
    """Finite outputs, predictions among the classes, not worse than chance on the
    balanced training sample (an inverted or NaN-driven model is)."""
    out = _outputs(est, X)
    assert np.all(np.isfinite(out)), "non-finite outputs"
    pred = est.predict(X)
    if is_classifier(est):
        assert set(np.unique(pred)) <= set(est.classes_)
        assert _accuracy(est, X, y) >= 0.5
    else:
        assert np.all(np.isfinite(pred))


def _fit_or_clear_error(est, X, y, words):
    """Fit; a ``ValueError`` is accepted only when its message matches ``words``
    (a raw ``LinAlgError`` from inside numpy/scipy is not a clear error).
    Returns the fitted estimator, or None after a clear error."""
    try:
        return est.fit(X, y)
    except ValueError as exc:
        assert not isinstance(exc, np.linalg.LinAlgError) and re.search(words, str(exc)), \
            f"unclear error {type(exc).__name__}: {exc}"
        return None


def _negative_rbf(A, B):
    """Minus the RBF Gram matrix: a 'kernel' that is clearly not positive semi-definite."""
    return -RBF(1.0)(A, B)


def _sigmoid(A, B):
    """tanh(0.1 <x, x'> + 0.5): slightly indefinite on the blobs."""
    return np.tanh(0.1 * np.asarray(A) @ np.asarray(B).T + 0.5)


# ---------------------------------------------------------------- validation cells (all)
@pytest.mark.parametrize("name,Est,params", ALL, ids=_ids(ALL))
class TestValidation:
    def test_nan_in_X(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        X[3, 1] = np.nan
        with pytest.raises(ValueError, match="Input X contains NaN"):
            est.fit(X, y)

    def test_inf_in_X(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        X[5, 0] = -np.inf
        with pytest.raises(ValueError, match="Input X contains infinity"):
            est.fit(X, y)

    def test_nan_in_y(self, name, Est, params):
        est = _make(Est)
        if is_outlier_detector(est):
            pytest.skip("an outlier detector ignores y (scikit-learn's convention)")
        X, y = _data(est)
        y = y.astype(float)
        y[2] = np.nan
        with pytest.raises(ValueError, match="Input y contains NaN"):
            est.fit(X, y)

    def test_1d_X(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
            est.fit(X[:, 0], y)

    def test_3d_X(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        with pytest.raises(ValueError, match="Found array with dim 3"):
            est.fit(X.reshape(len(X), 1, 2), y)

    def test_y_length_mismatch(self, name, Est, params):
        est = _make(Est)
        if is_outlier_detector(est):
            pytest.skip("an outlier detector ignores y (scikit-learn's convention)")
        X, y = _data(est)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            est.fit(X, y[:-3])

    def test_empty_input(self, name, Est, params):
        est = _make(Est)
        with pytest.raises(ValueError, match="0 sample"):
            est.fit(np.empty((0, 2)), np.empty(0))

    def test_sparse_X(self, name, Est, params):
        """Sparse inputs: the same model as the dense ones where the estimator and its
        kernel take them (the dual machines with a linear kernel here), up to the solver's
        tolerance (the sparse and dense Gram matrices differ in their last bits, so the
        solvers take other steps to the tolerance tol = 1e-3), else a clear TypeError."""
        est = _make(Est)
        X, y = _data(est)
        if get_tags(est).input_tags.sparse:
            a = clone(est).fit(sp.csr_matrix(X), y)
            b = clone(est).fit(X, y)
            if not is_regressor(est):
                np.testing.assert_array_equal(a.predict(sp.csr_matrix(X)), b.predict(X))
            np.testing.assert_allclose(_outputs(a, sp.csr_matrix(X)), _outputs(b, X),
                                       rtol=1e-2, atol=1e-2)
        else:
            with pytest.raises(TypeError, match="Sparse data was passed"):
                est.fit(sp.csr_matrix(X), y)

    def test_list_of_lists_equals_array(self, name, Est, params):
        X, y = _data(Est())
        a = _make(Est).fit(X, y)
        b = _make(Est).fit(X.tolist(), y.tolist())
        np.testing.assert_allclose(_outputs(b, X.tolist()), _outputs(a, X), rtol=1e-9, atol=1e-9)

    def test_predict_before_fit(self, name, Est, params):
        est = _make(Est)
        X, _ = _data(est)
        for method in ("predict", "decision_function", "predict_proba"):
            if hasattr(est, method):
                with pytest.raises(NotFittedError, match="not fitted yet"):
                    getattr(est, method)(X)

    def test_predict_with_other_feature_count(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        est.fit(X, y)
        with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 2 features"):
            est.predict(np.ones((4, 3)))

    def test_nan_at_predict(self, name, Est, params):
        est = _make(Est)
        X, y = _data(est)
        est.fit(X, y)
        Xt = X[:5].copy()
        Xt[1, 1] = np.nan
        with pytest.raises(ValueError, match="Input X contains NaN"):
            est.predict(Xt)

    # -- parameters (scikit-learn's _parameter_constraints)
    def test_iteration_caps_must_be_positive(self, name, Est, params):
        defaults = Est().get_params(deep=False)
        caps = [p for p in defaults if p.startswith("max_") or p in ("n_perceptrons", "n_neighbors")]
        X, y = _data(Est())
        for p in caps:
            for bad in (0, -1):
                with pytest.raises(InvalidParameterError, match=f"'{p}' parameter of {Est.__name__}"):
                    _make(Est, {p: bad}).fit(X, y)

    def test_tolerances_must_not_be_negative(self, name, Est, params):
        defaults = Est().get_params(deep=False)
        X, y = _data(Est())
        for p in [p for p in defaults if p == "tol" or p.endswith("_tol")]:
            with pytest.raises(InvalidParameterError, match=f"'{p}' parameter of {Est.__name__}"):
                _make(Est, {p: -1e-3}).fit(X, y)

    def test_numbers_refuse_booleans(self, name, Est, params):
        """``C=True`` and the like: ``True`` is an int to Python, not a setting."""
        defaults = Est().get_params(deep=False)
        X, y = _data(Est())
        numeric = [p for p, v in defaults.items()
                   if isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))]
        for p in numeric:
            with pytest.raises(InvalidParameterError, match=f"'{p}' parameter of {Est.__name__}"):
                _make(Est, {p: True}).fit(X, y)

    def test_unknown_options_are_refused(self, name, Est, params):
        defaults = Est().get_params(deep=False)
        X, y = _data(Est())
        for p in [p for p, v in defaults.items() if isinstance(v, str)]:
            with pytest.raises(ValueError, match=f"{p}.*no-such-option|'{p}' parameter"):
                _make(Est, {p: "no-such-option"}).fit(X, y)


@pytest.mark.parametrize("name,Est,params", CLASSIFIERS, ids=_ids(CLASSIFIERS))
class TestLabels:
    def test_one_class(self, name, Est, params):
        """A clear error, or (for a method that can) the one class everywhere."""
        X, _ = _blobs()
        fitted = _fit_or_clear_error(_make(Est), X, np.full(len(X), 7), r"classes.*got 1 class")
        if fitted is not None:
            np.testing.assert_array_equal(fitted.predict(X + 5.0), 7)

    def test_continuous_labels(self, name, Est, params):
        X, _ = _blobs()
        with pytest.raises(ValueError, match="Unknown label type"):
            _make(Est).fit(X, np.linspace(0, 1, len(X)))

    def test_three_classes(self, name, Est, params):
        rng = np.random.default_rng(1)
        centres = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
        X = np.vstack([rng.normal(c, 0.5, (15, 2)) for c in centres])
        y = np.repeat(["a", "b", "c"], 15)
        est = _make(Est)
        if _binary_only(est):
            with pytest.raises(ValueError, match="Only binary classification is supported"):
                est.fit(X, y)
        else:
            assert _accuracy(est.fit(X, y), X, y) >= 0.95

    def test_string_labels(self, name, Est, params):
        X, y = _blobs()
        labels = np.array(["no", "yes"])[y]
        est = _make(Est).fit(X, labels)
        assert list(est.classes_) == ["no", "yes"] and _accuracy(est, X, labels) >= 0.95


@pytest.mark.parametrize("name,Est,params", REGRESSORS, ids=_ids(REGRESSORS))
def test_regressors_refuse_string_targets(name, Est, params):
    X, _ = _blobs()
    y = np.array(["low", "high"])[np.arange(len(X)) % 2]
    with pytest.raises(ValueError, match=r"(numbers|float).*string|string.*(numbers|float)"):
        _make(Est).fit(X, y)


# ---------------------------------------------------------------- numerical cells (variants)
@pytest.mark.parametrize("name,Est,params", VARIANTS, ids=_ids(VARIANTS))
class TestDegenerateSamples:
    def test_constant_X(self, name, Est, params):
        """All inputs equal: every input must get the same output, and hopeless
        problems must stop at once (issue 17: 9 s for the kernel perceptron)."""
        est = _make(Est, params)
        X = np.ones((40, 2))
        y = np.arange(40) % 2 if is_classifier(est) else _target(_blobs()[0])
        # an ordinary fit first, so that the time below is the fit's and not numba compiling
        Xb, yb = _blobs()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _make(Est, params).fit(Xb, yb if is_classifier(est) else _target(Xb))
        start = time.process_time()
        fitted = _fit_or_clear_error(est, X, y, r"separab|identical|constant|duplicate")
        assert time.process_time() - start < 2.0
        if fitted is not None:
            out = _outputs(fitted, X)
            assert np.all(np.isfinite(out))
            np.testing.assert_allclose(out, out[:1].repeat(len(out), axis=0), rtol=1e-9, atol=1e-12)
            if is_regressor(est):
                assert y.min() - 1e-9 <= out[0] <= y.max() + 1e-9

    @pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150])
    def test_tiny_and_huge_scales_linear_kernel(self, name, Est, params, scale):
        kernel = Linear() if _has_kernel(Est) else None
        est = _make(Est, params, kernel)
        X, y = _data(est)
        fitted = _fit_or_clear_error(est, X * scale, y,
                                     r"scale|underflow|overflow|zero vector")
        if fitted is not None:
            _assert_sound_model(fitted, X * scale, y)

    def test_tiny_scale_default_kernel(self, name, Est, params):
        """Issue 17: RelevanceVectorClassifier(solver='book') crashed on X * 1e-300."""
        est = _make(Est, params)
        X, y = _data(est)
        fitted = _fit_or_clear_error(est, X * 1e-300, y,
                                     r"scale|underflow|zero vector|separab|identical")
        if fitted is not None:
            _assert_sound_model(fitted, X * 1e-300, y)

    def test_overflowing_kernel_values(self, name, Est, params):
        """X * 1e300: kernel values overflow; the error names the kernel and the scale."""
        est = _make(Est, params, RBF(0.5) if _has_kernel(Est) else None)
        X, y = _data(est)
        if _has_kernel(Est):
            with pytest.raises(ValueError, match=r"RBF\(sigma=0.5\).*NaN or infinity.*e\+300"):
                est.fit(X * 1e300, y)
        else:
            fitted = _fit_or_clear_error(est, X * 1e300, y,
                                         r"NaN or infinity|overflow|scale|rescale")
            if fitted is not None:
                _assert_sound_model(fitted, X * 1e300, y)

    def test_two_points(self, name, Est, params):
        est = _make(Est, params)
        X = np.array([[-1.0, -1.0], [1.0, 1.0]])
        if is_classifier(est):
            # one example per class: the scores must be finite and rank the class-1
            # example above the class-0 one (a sparse Bayesian model may still put both
            # on one side of zero: with m = 2 the evidence barely favours any weight)
            y = np.array([0, 1])
            fitted = _fit_or_clear_error(est, X, y, r"one point per class|at least|too few")
            if fitted is not None:
                out = _outputs(fitted, X)
                out = out[:, 1] if out.ndim == 2 else out
                assert np.all(np.isfinite(out)) and out[0] < out[1], out
        elif is_outlier_detector(est):
            # two points, symmetric about the origin: both get the same finite score
            out = est.fit(X).decision_function(X)
            assert np.all(np.isfinite(out))
            np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-12)
        else:
            y = np.array([-0.5, 0.5])
            pred = est.fit(X, y).predict(X)
            assert np.all(np.isfinite(pred)) and pred[0] < pred[1]

    def test_duplicated_points_same_labels(self, name, Est, params):
        est = _make(Est, params)
        X, y = _data(est)
        Xd, yd = np.vstack([X, X[:10]]), np.r_[y, y[:10]]
        est.fit(Xd, yd)
        if is_classifier(est):
            assert _accuracy(est, Xd, yd) >= 0.95
        elif is_outlier_detector(est):
            # a duplicate has its original's score
            out = est.decision_function(Xd)
            np.testing.assert_allclose(out[len(X):], out[:10], rtol=1e-9, atol=1e-12)
        else:
            assert _r2(est, Xd, yd) >= 0.8

    def test_duplicated_points_opposite_labels(self, name, Est, params):
        """40 separable points and one input twice with both labels: 41 of 42 are
        possible; issue 17 saw the perceptrons get 2 of 42."""
        est = _make(Est, params)
        X, y = _blobs()
        p = X[:1]
        Xd = np.vstack([X, p, p])
        if is_classifier(est):
            yd = np.r_[y, 0, 1]
            fitted = _fit_or_clear_error(est, Xd, yd, r"separab")
            if fitted is not None:
                assert _accuracy(fitted, Xd, yd) >= 40 / 42
        else:
            yd = np.r_[_target(X), 0.0, 1.0]
            pred = est.fit(Xd, yd).predict(p)
            assert np.all(np.isfinite(pred))

    def test_imbalance_20_to_1(self, name, Est, params):
        est = _make(Est, params)
        rng = np.random.default_rng(2)
        X = np.vstack([rng.normal(-2, 0.6, (40, 2)), rng.normal(2, 0.6, (2, 2))])
        if is_classifier(est):
            y = np.r_[np.zeros(40, int), np.ones(2, int)]
            if _fit_or_clear_error(est, X, y, r"infeasible.*(class|m\+|m-)") is None:
                return
            pred = est.predict(X)
            assert np.mean(pred == y) >= 40 / 42
            assert np.any(pred[40:] == 1), "the minority class is never predicted"
        else:
            y = _target(X)
            assert np.all(np.isfinite(est.fit(X, y).predict(X)))


# ---------------------------------------------------------------- kernel cells
@pytest.mark.parametrize("name,Est,params", OWN_KERNEL, ids=_ids(OWN_KERNEL))
def test_wrong_kernel_type(name, Est, params):
    X, y = _data(Est())
    with pytest.raises(InvalidParameterError, match=f"'kernel' parameter of {Est.__name__}"):
        _make(Est, {"kernel": 42}).fit(X, y)


@pytest.mark.parametrize("name,Est,params", OWN_KERNEL, ids=_ids(OWN_KERNEL))
def test_kernel_class_instead_of_instance(name, Est, params):
    """Issue 24: ``kernel=RBF`` (the class) named nothing useful."""
    X, y = _data(Est())
    with pytest.raises(TypeError, match=r"pass an instance, e\.g\. RBF\(\)"):
        _make(Est, {"kernel": RBF}).fit(X, y)


@pytest.mark.parametrize("kernel, match", [
    (lambda: RBF(sigma=1.0, gamma=0.5), "not both"),
    (lambda: RBF(gamma=-1), "gamma must be > 0"),
    (lambda: RBF(sigma="auto"), "sigma must be a number > 0 or 'scale'"),
])
def test_bad_rbf_widths(kernel, match):
    from kernelclf import SupportVectorMachine

    X, y = _blobs()
    with pytest.raises(ValueError, match=match):
        SupportVectorMachine(kernel=kernel()).fit(X, y)


# the Sigma-SVM trains on the kernel whitened by its own training Gram matrix (RMM §2.2),
# so the guard sees the whitened matrix, not the RBF's
PLAIN_KERNEL = [row for row in OWN_KERNEL if row[0] != "SigmaSVM"]


@pytest.mark.parametrize("name,Est,params", PLAIN_KERNEL, ids=_ids(PLAIN_KERNEL))
def test_useless_rbf_width_warns(name, Est, params):
    """Issue 27: a width far below the distances (the Gram matrix is the identity) or far
    above them (constant) passed in silence; 'rbf' picks a width from the data."""
    from kernelclf.kernels import DegenerateKernelWarning

    X, y = _data(Est())
    # the GP classifier would choose the width itself (evidence maximisation): fix it
    fixed = {"optimizer": None} if "optimizer" in Est().get_params() else {}
    with pytest.warns(DegenerateKernelWarning, match="numerically the identity.*sigma='scale'"):
        _make(Est, {"kernel": RBF(1.0), **fixed}).fit(100 * X, y)
    with pytest.warns(DegenerateKernelWarning, match="numerically constant"):
        _make(Est, {"kernel": RBF(1e6), **fixed}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateKernelWarning)
        _make(Est, {"kernel": "rbf"}).fit(100 * X, y)


CUBIC = [(n, E) for n, E in ESTIMATORS
         if n in {"GaussianProcessClassifier", "GaussianProcessRegressor", "RelevanceVectorClassifier",
                  "RelevanceVectorRegressor", "KernelFisherDiscriminant", "AdaptiveMarginMachine",
                  "LeaveOneOutMachine"}]


def test_the_cubic_fits_are_found():
    assert len(CUBIC) == 7


@pytest.mark.parametrize("name,Est", CUBIC, ids=[n for n, _ in CUBIC])
def test_a_gram_matrix_too_large_is_refused_before_it_is_made(name, Est):
    """Issue 27: nothing stopped a fit whose Gram matrix could not fit in memory."""
    from kernelclf.kernels.gram_guard import GramMemoryError, memory_limit

    X, y = _data(Est())
    with memory_limit(0.01), pytest.raises(GramMemoryError, match=r"has 40 x 40 entries"):
        _make(Est).fit(X, y)


def test_rvm_classifier_that_learns_nothing_says_so():
    from kernelclf import RelevanceVectorClassifier

    X, y = _blobs()
    with pytest.warns(UserWarning, match="learned almost nothing from these 2 examples"):
        RelevanceVectorClassifier().fit(X[[0, 39]], y[[0, 39]])


@pytest.mark.parametrize("name,Est,params", KERNEL_VARIANTS, ids=_ids(KERNEL_VARIANTS))
class TestKernels:
    def test_kernel_that_is_not_psd(self, name, Est, params):
        """Issue 17: minus a Gram matrix was never detected (inverted models, raw
        LinAlgError, or a wrong 'not separable')."""
        est = _make(Est, params, _negative_rbf)
        X, y = _data(est)
        with pytest.raises(IndefiniteKernelError, match=r"_negative_rbf.*not positive semi-definite"):
            est.fit(X, y)

    def test_slightly_indefinite_kernel_warns(self, name, Est, params):
        X, y = _data(Est())
        ev = np.linalg.eigvalsh(_sigmoid(X, X))
        assert ev[0] < 0 < -ev[0] < 0.5 * ev[-1]           # slightly indefinite on these X
        est = _make(Est, params, _sigmoid)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est.fit(X, y)
            except ValueError as exc:                       # a solver may still give up ...
                assert re.search(r"_sigmoid|positive semi-definite|indefinite", str(exc)), \
                    f"unclear error {type(exc).__name__}: {exc}"       # ... saying why
        assert any(issubclass(w.category, RuntimeWarning) and "_sigmoid" in str(w.message)
                   and "indefinite" in str(w.message) for w in caught)

    def test_string_kernel_equals_its_feature_map(self, name, Est, params):
        """Lists of strings with the normalised 3-spectrum kernel give the same model
        as the linear kernel on its explicit feature map (tests/_string_data.py)."""
        S_tr, y_tr, S_te, y_te = promoters(n_train=50)
        F = spectrum_features(S_tr + S_te, 3)
        F_tr, F_te = F[:len(S_tr)], F[len(S_tr):]
        est = _make(Est, params, Normalized(SpectrumKernel(3)))
        ref = _make(Est, params, Linear())
        if is_regressor(est):
            y_tr = y_tr.astype(float)
        est.fit(S_tr, y_tr)
        ref.fit(F_tr, y_tr)
        if is_classifier(est):
            assert _accuracy(est, S_tr, y_tr) >= 0.7
            agree = np.mean(est.predict(S_te) == ref.predict(F_te))
            assert agree >= 0.9, f"string and feature models agree on {agree:.0%} only"
        else:
            np.testing.assert_allclose(est.predict(S_te), ref.predict(F_te), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- weights (issue 27)
def _takes_sample_weight(Est):
    import inspect

    return "sample_weight" in inspect.signature(Est.fit).parameters


WEIGHTED = [(n, E) for n, E in ESTIMATORS if _takes_sample_weight(E) and is_classifier(E())]
CLASS_WEIGHTED = [(n, E) for n, E in ESTIMATORS if "class_weight" in E().get_params(deep=False)]


def test_the_weighted_estimators_are_found():
    assert "SupportVectorMachine" in dict(WEIGHTED) and "SupportVectorMachine" in dict(CLASS_WEIGHTED)


@pytest.mark.parametrize("name,Est", WEIGHTED, ids=[n for n, _ in WEIGHTED])
@pytest.mark.parametrize("weights, match", [
    (np.ones(37), r"sample_weight.shape == \(37,\), expected \(40,\)"),
    (np.ones((40, 2)), "Sample weights must be 1D array or scalar"),
    (np.r_[-1.0, np.ones(39)], "Negative values in data passed to `sample_weight`"),
    (np.r_[np.nan, np.ones(39)], "Input sample_weight contains NaN"),
    (np.r_[np.inf, np.ones(39)], "Input sample_weight contains infinity"),
    (np.zeros(40), "Sample weights must contain at least one non-zero number"),
])
def test_bad_sample_weight(name, Est, weights, match):
    X, y = _blobs()
    with pytest.raises(ValueError, match=match):
        _make(Est).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("name,Est", WEIGHTED, ids=[n for n, _ in WEIGHTED])
def test_zero_weight_on_a_whole_class(name, Est):
    X, y = _blobs()
    with pytest.raises(ValueError, match="sample_weight is 0 on every example of class 0"):
        _make(Est).fit(X, y, sample_weight=(y == 1).astype(float))


@pytest.mark.parametrize("name,Est", CLASS_WEIGHTED, ids=[n for n, _ in CLASS_WEIGHTED])
@pytest.mark.parametrize("class_weight, error, match", [
    ({0: 1, 7: 2}, ValueError, r"class_weight has weights for labels that are not classes of y: \[7\]"),
    ({1: -1.0}, ValueError, "class_weight values must be finite numbers >= 0"),
    ({1: np.nan}, ValueError, "class_weight values must be finite numbers >= 0"),
    ({1: np.inf}, ValueError, "class_weight values must be finite numbers >= 0"),
    ({1: 0.0}, ValueError, "sample_weight \\* class_weight is 0 on every example of class 1"),
    ("auto", InvalidParameterError, "'class_weight' parameter of"),
])
def test_bad_class_weight(name, Est, class_weight, error, match):
    X, y = _blobs()
    with pytest.raises(error, match=match):
        _make(Est, {"class_weight": class_weight}).fit(X, y)


def test_weights_where_they_mean_nothing():
    from kernelclf import SigmaSVM, SupportVectorMachine

    X, y = _blobs()
    for kw in ({"sample_weight": np.ones(40)},):
        with pytest.raises(ValueError, match="hard margin .* has no slack"):
            SupportVectorMachine(hard_margin=True).fit(X, y, **kw)
    with pytest.raises(ValueError, match="hard margin .* has no slack"):
        SupportVectorMachine(hard_margin=True, class_weight={0: 2.0}).fit(X, y)
    with pytest.raises(TypeError, match="sample_weight"):    # the whitening has no weights
        SigmaSVM().fit(X, y, sample_weight=np.ones(40))


def test_probabilities_only_when_asked_and_fitted():
    from kernelclf import (
        DAGClassifier,
        NuSupportVectorMachine,
        OneVsOneClassifier,
        OneVsRestClassifier,
        SupportVectorMachine,
    )

    for est in (SupportVectorMachine(), NuSupportVectorMachine(), OneVsOneClassifier(),
                DAGClassifier(), OneVsRestClassifier()):
        assert not hasattr(est, "predict_proba"), type(est).__name__
    X, y = _blobs()
    # four examples: libsvm's folds (as SVC), no error (issue 38)
    tiny = SupportVectorMachine(probability=True, random_state=0).fit(X[[0, 1, 38, 39]],
                                                                       y[[0, 1, 38, 39]])
    np.testing.assert_allclose(tiny.predict_proba(X).sum(axis=1), 1.0)
    fitted = SupportVectorMachine().fit(X, y)
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'"):
        fitted.predict_proba(X)
    fitted.set_params(probability=True)
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        fitted.predict_proba(X)


# ---------------------------------------------------------------- issue 27, the rest
def test_default_bpm_on_noisy_moons_is_bounded_and_no_worse_than_chance():
    """Issue 27: the default BPM on 500 noisy two moons ran past 100 s in the separability
    LP; it now decides from bounded margin bounds (within the cell's CPU budget)."""
    from sklearn.datasets import make_moons

    from kernelclf import RBF, BayesPointMachine, SupportVectorMachine

    X, y = make_moons(500, noise=0.3, random_state=0)
    Xt, yt = make_moons(1000, noise=0.3, random_state=1)
    bpm = BayesPointMachine(kernel=RBF(sigma=0.5), random_state=0).fit(X, y)
    svm = SupportVectorMachine(kernel=RBF(sigma=0.5)).fit(X, y)
    assert bpm.lam_ > 0 and "margin" in bpm.lam_reason_
    assert bpm.score(Xt, yt) >= svm.score(Xt, yt) - 0.01


@pytest.mark.parametrize("sigma", [1e3, 1e4])
def test_bpm_on_standardised_breast_cancer_with_wide_rbf(sigma):
    """Issue 27: a TypeError in optim.solve_lp ('float' object is not iterable)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    from kernelclf import RBF, BayesPointMachine

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::3]
    clf = BayesPointMachine(kernel=RBF(sigma=sigma), random_state=0).fit(X, y[::3])
    assert np.all(np.isfinite(clf.decision_function(X)))


@pytest.mark.parametrize("make", [lambda: __import__("kernelclf").CallableKernel(lambda A, B: A @ B.T),
                                  lambda: __import__("kernelclf").Constant(0.5)],
                         ids=["CallableKernel", "Constant"])
@pytest.mark.parametrize("X, Y, match", [
    (np.array([[np.nan, 1.0]]), None, "NaN"),
    (np.ones(3), None, "2D array"),
    (np.ones((2, 2, 2)), None, "dim 3"),
    (np.ones((2, 2)), np.ones((2, 3)), "features"),
])
def test_user_kernels_check_their_inputs(make, X, Y, match):
    """Issue 27: CallableKernel and Constant returned a matrix for any input."""
    with pytest.raises(ValueError, match=match):
        make()(X, Y)


def test_fisher_kernel_on_empty_input():
    from kernelclf.kernels import FisherKernel, MarkovChainScore

    fk = FisherKernel(MarkovChainScore.from_sequences(["acgt", "ggca", "tta"]))
    with pytest.raises(ValueError, match="at least one object in X"):
        fk([])


def test_bound_report_pipeline_and_refusals():
    """Issue 27: the report refused a Pipeline; now X goes through its transformers, and
    what it cannot report is refused with advice."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from kernelclf import SupportVectorMachine, format_report, report

    X, y = _blobs()
    pipe = make_pipeline(StandardScaler(), SupportVectorMachine(fit_bias=False)).fit(X, y)
    records = report(pipe, X, y)
    assert records and "training error" in format_report(records)
    search = GridSearchCV(SupportVectorMachine(), {"C": [1.0]}, cv=2).fit(X, y)
    with pytest.raises((TypeError, ValueError), match="best_estimator_"):
        report(search, X, y)


def test_the_label_shortcut_agrees_with_scikit_learn():
    """kernelclf.base._plain_binary skips scikit-learn's target check only where that
    check would call the labels 'binary' (so every error it raises is still raised)."""
    from sklearn.utils.multiclass import type_of_target

    from kernelclf.base import _plain_binary

    cases = [np.array([0, 1, 1, 0]), np.array([0.0, 1.0]), np.array([0.5, 1.0]),
             np.array([1, 2, 3]), np.array([True, False]), np.array([-1.0, 1.0, np.nan]),
             np.array([np.nan, np.nan]), np.array(["a", "b"]), np.array([1.0, 1.0]),
             np.array([np.inf, 1.0]), np.array([0, 1], dtype=np.uint8),
             np.array([1e300, -1e300]), np.array([-0.0, 0.0, 1.0]), np.array([2.0, 2.5]),
             np.array([3, 3, 3, 9]), np.array([1.0, -1.0, 0.0])]
    shortcut = 0
    for y in cases:
        if _plain_binary(y):
            shortcut += 1
            assert type_of_target(y) == "binary", y
    assert shortcut == 7


def test_kept_verdicts_on_plain_values_tell_types_apart():
    """The parameter check keeps the verdicts of plain values that passed
    (``kernelclf.base._made_constraints``): a value equal to an accepted one but of another
    type (``True`` after ``1``, ``1`` after ``1.0``) or outside the interval is still judged,
    and refused with scikit-learn's error; the same values then pass again."""
    from kernelclf.margin import SupportVectorMachine

    X, y = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]]), np.array([1, 1, 0, 0])
    for _ in range(2):
        SupportVectorMachine(C=1).fit(X, y)
        SupportVectorMachine(C=1.0, max_iter=100).fit(X, y)
        for bad in ({"C": True}, {"C": 0.0}, {"C": -1}, {"max_iter": 1.0},
                    {"max_iter": True}, {"tol": 0.0}, {"loss": "Hinge"}):
            name = next(iter(bad))
            with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of "
                                                            "SupportVectorMachine"):
                SupportVectorMachine(**bad).fit(X, y)
