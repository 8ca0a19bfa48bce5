"""scikit-learn's own tests of its SVMs and Gaussian process classifier, run on kernelclf.

A pytest plugin (``-p sklearn_adapter``) for ``tests/test_sklearn_compat.py``, which runs
the test files installed with scikit-learn (``sklearn/svm/tests/test_svm.py``,
``test_sparse.py``, ``sklearn/gaussian_process/tests/test_gpc.py``; nothing of them is
copied here) in a subprocess with this plugin. Before those files are imported, the plugin
replaces the names ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``, ``OneClassSVM`` of
``sklearn.svm`` and ``GaussianProcessClassifier`` of ``sklearn.gaussian_process`` by the
adapters below, so every ``svm.SVC(...)`` of a test builds the package's estimator.

The adapters map names and parameters only; they compute nothing:

* each one takes the scikit-learn class's parameters (same names, same defaults) and, at
  ``fit``, builds the package's estimator with the corresponding parameters (``C``,
  ``nu``, ``epsilon``, ``tol``, ``class_weight``, ``probability``, ``random_state``,
  ``cache_size`` as ``cache_mb``, ``max_iter=-1`` as ``None``) and the corresponding kernel
  object (``kernel='rbf'`` with ``gamma`` as ``RBF(gamma=gamma)``, ``'poly'`` as
  ``Polynomial(degree, offset=coef0, gamma)``, ``'linear'``, ``'precomputed'`` and
  callables as they are; a scikit-learn GP kernel as the package's kernel of the same
  formula and values);
* scikit-learn's classifiers are one-versus-one (libsvm) or one-versus-rest (GP) inside,
  the package's machines are binary: with more than two classes in ``y`` the adapter wraps
  the machine in the package's :class:`~kernelclf.multiclass.OneVsOneClassifier`
  (``break_ties`` as ``tie_break='confidence'``, else ``'first'``, libsvm's vote) or
  :class:`~kernelclf.multiclass.OneVsRestClassifier`;
* parameters that change nothing in the model (``verbose``, ``shrinking``, ``cache_size``
  where the package has no cache parameter, ``copy_X_train``) are dropped, and so is
  ``decision_function_shape`` (the one-versus-one wrapper's ``decision_function`` is its
  vote, of shape ``(n, K)``, whatever the shape asked for); any other
  parameter without a counterpart in the package raises ``NotImplementedError`` at
  ``fit`` when it is not at scikit-learn's default, and so does a class without a
  counterpart;
* every other attribute and method (``predict``, ``decision_function``, ``dual_coef_``,
  ...) is the package estimator's own (``__getattr__``; setting a fitted attribute sets
  the package estimator's).

The plugin also records, per test item, its outcome and whether it fitted an adapter
("reached" the package), in the JSON file named by ``KERNELCLF_SKLEARN_RESULTS``.
"""
from __future__ import annotations

import importlib
import json
import os

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin

#: fits of an adapter so far (the plugin reads it around each test item)
FITS = [0]


# -- kernels ----------------------------------------------------------------------------
def svm_kernel(kernel, degree, gamma, coef0):
    """The package's kernel for libsvm's ``kernel, degree, gamma, coef0``."""
    from kernelclf.kernels import RBF, Linear, Polynomial

    if not isinstance(kernel, str):
        return kernel                              # a callable, passed on
    if kernel == "linear":
        return Linear()
    if kernel == "rbf":
        return RBF(gamma=gamma)
    if kernel == "poly":
        return Polynomial(degree=degree, offset=coef0, gamma=gamma)
    return kernel                                  # 'precomputed', or refused by the package


def gp_kernel(kernel):
    """The package's kernel of the same formula and values as a scikit-learn GP kernel."""
    from sklearn.gaussian_process import kernels as sk

    from kernelclf.kernels import RBF, Constant, Linear
    from kernelclf.kernels.closure import Product, Sum

    if kernel is None:
        return None
    if isinstance(kernel, sk.RBF):
        scale = np.asarray(kernel.length_scale, dtype=float)
        if scale.ndim:
            raise NotImplementedError("an anisotropic sklearn RBF (one length scale per "
                                      "feature) has no counterpart in kernelclf's GP classifier")
        return RBF(sigma=float(scale))
    if isinstance(kernel, sk.ConstantKernel):
        return Constant(float(kernel.constant_value))
    if isinstance(kernel, sk.DotProduct):
        return Linear() + float(kernel.sigma_0) ** 2
    if isinstance(kernel, sk.Sum):
        return Sum(gp_kernel(kernel.k1), gp_kernel(kernel.k2))
    if isinstance(kernel, sk.Product):
        return Product(gp_kernel(kernel.k1), gp_kernel(kernel.k2))
    raise NotImplementedError(f"no counterpart of the sklearn kernel {kernel!r} in kernelclf")


def _all_fixed(kernel):
    return all(h.fixed for h in kernel.hyperparameters) if kernel is not None else False


# -- the adapters -----------------------------------------------------------------------
class _Adapter(BaseEstimator):
    """Builds the package's estimator from scikit-learn's parameters (module docstring)."""

    #: parameters dropped because they change nothing in the model
    _dropped = ("verbose", "shrinking", "cache_size")

    def _target(self, n_classes):
        """``(estimator, wrapper or None)`` for ``n_classes`` classes (None: unknown)."""
        raise NotImplementedError

    def _unmapped(self, names):
        """``NotImplementedError`` for a parameter in ``names`` away from its default."""
        defaults = type(self)().get_params()
        params = self.get_params()
        for name in names:
            if name in self._dropped:
                continue
            value, default = params[name], defaults[name]
            same = value is default or (isinstance(value, (str, int, float, type(None)))
                                        and value == default)
            if not same:
                raise NotImplementedError(f"kernelclf has no counterpart of "
                                          f"{type(self).__name__}'s {name}={value!r}")

    def _build(self, y=None):
        n_classes = None
        if y is not None and isinstance(self, ClassifierMixin):
            try:
                n_classes = len(np.unique(np.asarray(y)))
            except (TypeError, ValueError):
                n_classes = None
        return self._target(n_classes)

    def fit(self, X, y=None, sample_weight=None):
        FITS[0] += 1
        est = self._build(y)
        kw = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = est.fit(X, y, **kw) if y is not None else est.fit(X, **kw)
        return self

    def __setattr__(self, name, value):
        fitted = self.__dict__.get("estimator_")
        if fitted is not None and name.endswith("_") and not name.startswith("_") \
                and name != "estimator_":
            setattr(fitted, name, value)        # a fitted attribute is the estimator's
            return
        super().__setattr__(name, value)

    def __getattr__(self, name):
        if name.startswith("__") or name == "estimator_":
            raise AttributeError(name)
        fitted = self.__dict__.get("estimator_")
        if fitted is not None:
            return getattr(fitted, name)
        if name.endswith("_"):
            raise AttributeError(f"{type(self).__name__} is not fitted: no {name}")
        try:
            est = self._build()
        except NotImplementedError as exc:
            raise AttributeError(str(exc)) from None
        return getattr(est, name)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            inner = self.__dict__.get("estimator_") or self._build()
            tags.input_tags = inner.__sklearn_tags__().input_tags
        except NotImplementedError:
            pass
        return tags


def _package(module, name):
    """A class of the package, or None when the package has none of that name."""
    return getattr(importlib.import_module(module), name, None)


def _missing(name, sk_name):
    raise NotImplementedError(f"kernelclf has no counterpart of sklearn's {sk_name} "
                              f"(no {name})")


def _max_iter(value):
    return None if value == -1 else value


class _LibSVMClassifier(ClassifierMixin, _Adapter):
    _package_name = None

    def _common(self, n_classes):
        from kernelclf.multiclass import OneVsOneClassifier

        cls = _package("kernelclf.margin", self._package_name)
        if cls is None:
            _missing(self._package_name, type(self).__name__)
        self._unmapped(["shrinking", "verbose"])
        mapped = dict(kernel=svm_kernel(self.kernel, self.degree, self.gamma, self.coef0),
                      tol=self.tol, max_iter=_max_iter(self.max_iter),
                      cache_mb=self.cache_size, probability=self.probability,
                      random_state=self.random_state)
        names = cls().get_params()
        if self.class_weight is not None:
            if "class_weight" not in names:
                raise NotImplementedError(f"kernelclf's {cls.__name__} has no class_weight")
            mapped["class_weight"] = self.class_weight
        est = cls(**self._own(), **mapped)
        if n_classes is not None and n_classes > 2:
            return OneVsOneClassifier(est, tie_break="confidence" if self.break_ties
                                      else "first")
        return est


class SVC(_LibSVMClassifier):
    """sklearn's ``SVC`` as ``SupportVectorMachine`` (one-versus-one beyond two classes)."""

    _package_name = "SupportVectorMachine"

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1, decision_function_shape="ovr",
                 break_ties=False, random_state=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _own(self):
        return {"C": self.C}

    def _target(self, n_classes):
        return self._common(n_classes)


class NuSVC(_LibSVMClassifier):
    """sklearn's ``NuSVC`` as ``NuSupportVectorMachine``."""

    _package_name = "NuSupportVectorMachine"

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1, decision_function_shape="ovr",
                 break_ties=False, random_state=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _own(self):
        return {"nu": self.nu}

    def _target(self, n_classes):
        return self._common(n_classes)


class _LibSVMOther(_Adapter):
    """Regressors and the one-class SVM: one machine, parameters by name."""

    _package_name = None
    #: scikit-learn's parameter -> the package's (None: the same name)
    _names = {}

    def _target(self, n_classes):
        cls = _package("kernelclf.margin", self._package_name)
        if cls is None:
            _missing(self._package_name, type(self).__name__)
        names = cls().get_params()
        params = self.get_params()
        mapped = {"kernel": svm_kernel(self.kernel, self.degree, self.gamma, self.coef0)}
        rest = []
        for name, value in params.items():
            if name in ("kernel", "degree", "gamma", "coef0") or name in self._dropped:
                continue
            ours = self._names.get(name, name)
            if name == "max_iter":
                value = _max_iter(value)
            if ours in names:
                mapped[ours] = value
            else:
                rest.append(name)
        self._unmapped(rest)
        return cls(**mapped)


class SVR(RegressorMixin, _LibSVMOther):
    """sklearn's ``SVR`` as ``SupportVectorRegression``."""

    _package_name = "SupportVectorRegression"

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0,
                 epsilon=0.1, shrinking=True, cache_size=200, verbose=False, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter


class NuSVR(RegressorMixin, _LibSVMOther):
    """sklearn's ``NuSVR`` as ``NuSupportVectorRegression``."""

    _package_name = "NuSupportVectorRegression"

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, verbose=False, max_iter=-1):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter


class OneClassSVM(OutlierMixin, _LibSVMOther):
    """sklearn's ``OneClassSVM`` as ``OneClassSupportVectorMachine``."""

    _package_name = "OneClassSupportVectorMachine"

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, nu=0.5,
                 shrinking=True, cache_size=200, verbose=False, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter

    def fit(self, X, y=None, sample_weight=None):
        FITS[0] += 1
        kw = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = self._build().fit(X, **kw)
        return self


class GaussianProcessClassifier(ClassifierMixin, _Adapter):
    """sklearn's ``GaussianProcessClassifier`` as the package's (one-versus-rest or
    one-versus-one beyond two classes, as ``multi_class`` says)."""

    _dropped = ("copy_X_train",)

    def __init__(self, kernel=None, *, optimizer="fmin_l_bfgs_b", n_restarts_optimizer=0,
                 max_iter_predict=100, warm_start=False, copy_X_train=True, random_state=None,
                 multi_class="one_vs_rest", n_jobs=None):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_predict = max_iter_predict
        self.warm_start = warm_start
        self.copy_X_train = copy_X_train
        self.random_state = random_state
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _target(self, n_classes):
        from kernelclf.bayes import GaussianProcessClassifier as Ours
        from kernelclf.multiclass import OneVsOneClassifier, OneVsRestClassifier

        self._unmapped(["warm_start"])
        kernel = gp_kernel(self.kernel)
        optimizer = None if _all_fixed(self.kernel) else self.optimizer
        kw = {}
        if self.kernel is not None and not _all_fixed(self.kernel):
            bounds = {tuple(np.ravel(h.bounds)) for h in self.kernel.hyperparameters}
            if len(bounds) != 1:
                raise NotImplementedError("kernelclf's GP classifier has one pair of bounds "
                                          "for all kernel parameters")
            kw["bounds"] = tuple(float(b) for b in bounds.pop())
        est = Ours(kernel=kernel, optimizer=optimizer,
                   n_restarts_optimizer=self.n_restarts_optimizer,
                   max_iter=self.max_iter_predict, random_state=self.random_state, **kw)
        if n_classes is not None and n_classes > 2:
            if self.multi_class == "one_vs_one":
                return OneVsOneClassifier(est, tie_break="first", n_jobs=self.n_jobs)
            return OneVsRestClassifier(est, n_jobs=self.n_jobs)
        return est

    def fit(self, X, y):
        return super().fit(X, y)


ADAPTERS = {"sklearn.svm": {"SVC": SVC, "NuSVC": NuSVC, "SVR": SVR, "NuSVR": NuSVR,
                            "OneClassSVM": OneClassSVM},
            "sklearn.gaussian_process": {"GaussianProcessClassifier": GaussianProcessClassifier}}


def install():
    """Replace scikit-learn's names by the adapters (before the test files are imported)."""
    for module, names in ADAPTERS.items():
        mod = importlib.import_module(module)
        for name, adapter in names.items():
            adapter.__module__ = module
            setattr(mod, name, adapter)


# -- the pytest plugin ------------------------------------------------------------------
_RESULTS = {}


def pytest_configure(config):
    install()


def pytest_runtest_setup(item):
    item._kernelclf_fits = FITS[0]


def pytest_runtest_teardown(item):
    if FITS[0] > getattr(item, "_kernelclf_fits", FITS[0]):
        _RESULTS.setdefault(item.nodeid, {})["reached"] = True


def pytest_runtest_logreport(report):
    entry = _RESULTS.setdefault(report.nodeid, {})
    entry.setdefault("reached", False)
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfail" if report.skipped else "xpass"
        entry["outcome"] = outcome
        if report.failed:
            entry["message"] = str(getattr(report.longrepr, "reprcrash", None)
                                   and report.longrepr.reprcrash.message or report.longrepr)
            entry["message"] = entry["message"].splitlines()[0][:300] if entry["message"] \
                else ""
    elif report.when == "teardown" and report.failed and entry.get("outcome") == "passed":
        entry["outcome"] = "failed"


def pytest_sessionfinish(session):
    path = os.environ.get("KERNELCLF_SKLEARN_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(_RESULTS, fh, indent=0, sort_keys=True)
