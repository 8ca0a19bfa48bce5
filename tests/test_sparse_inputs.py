"""Sparse inputs (scipy.sparse) for the dual machines and the kernels that can use them
(issue 38).

References: scikit-learn's ``SVC`` and ``SVR`` on the same sparse matrices (a TF-IDF matrix
of short texts), the same estimators on the dense version of each sparse matrix, and the
kernels' dense Gram matrices.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from kernelclf.kernels import (
    RBF,
    CallableKernel,
    Constant,
    Linear,
    Mahalanobis,
    Normalized,
    Polynomial,
)
from kernelclf.kernels.vector import scale_gamma, scale_sigma
from kernelclf.margin import (
    NuSupportVectorMachine,
    NuSupportVectorRegression,
    OneClassSupportVectorMachine,
    RelativeMarginMachine,
    SupportVectorMachine,
    SupportVectorRegression,
)
from kernelclf.multiclass import OneVsOneClassifier

DOCS = ["the cat sat on the mat", "dogs chase the cat", "a cat and a dog play",
        "my dog eats the bone", "stock markets fall again", "shares rise on the market",
        "investors sell their shares", "the market closed higher", "a dog and its cat",
        "bond markets and shares"]
LABELS = np.array(["pets"] * 4 + ["money"] * 4 + ["pets", "money"])


def test_the_text_recipe_works():
    pipe = make_pipeline(TfidfVectorizer(), SupportVectorMachine()).fit(DOCS, LABELS)
    assert list(pipe.predict(["a cat on a mat", "markets and shares"])) == ["pets", "money"]
    assert np.mean(pipe.predict(DOCS) == LABELS) == 1.0


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_svc_on_a_sparse_tfidf_matrix(kernel):
    T = TfidfVectorizer().fit_transform(DOCS)
    assert sp.issparse(T)
    ours = SupportVectorMachine(kernel=kernel, C=10.0, tol=1e-8).fit(T, LABELS)
    sk = SVC(kernel=kernel, C=10.0, tol=1e-8).fit(T, LABELS)
    np.testing.assert_allclose(ours.decision_function(T), sk.decision_function(T), atol=1e-6)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_allclose(ours.dual_coef_.toarray(), sk.dual_coef_.toarray(), atol=1e-6)
    assert sp.issparse(ours.support_vectors_) and sp.issparse(ours.dual_coef_)
    if kernel == "linear":
        assert sp.issparse(ours.coef_)
        np.testing.assert_allclose(ours.coef_.toarray(), sk.coef_.toarray(), atol=1e-6)


def _sparse_sample(m=240, seed=0):
    X, y = make_classification(m, n_features=30, n_informative=5, random_state=seed)
    X[np.abs(X) < 1.0] = 0.0                 # about two thirds zeros
    return sp.csr_matrix(X), X, y


@pytest.mark.parametrize("make", [
    lambda k: SupportVectorMachine(kernel=k, tol=1e-8),
    lambda k: NuSupportVectorMachine(kernel=k, nu=0.4, tol=1e-8),
    lambda k: RelativeMarginMachine(kernel=k, B=1.5, tol=1e-8),
    lambda k: SupportVectorRegression(kernel=k, tol=1e-8),
    lambda k: NuSupportVectorRegression(kernel=k, tol=1e-8),
    lambda k: OneClassSupportVectorMachine(kernel=k, nu=0.3, tol=1e-8),
], ids=["svm", "nu-svm", "rmm", "svr", "nu-svr", "one-class"])
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_sparse_and_dense_inputs_give_one_model(make, kernel):
    """m = 240 > 200: the columns come on demand (computed from the sparse rows; the dense
    fit's compiled loop computes its own), so the two solver paths meet at the optimum,
    tol = 1e-8, not step by step."""
    S, X, y = _sparse_sample()
    a, b = make(kernel), make(kernel)
    target = X[:, 0] + 0.5 * X[:, 1] if "Regression" in type(a).__name__ else y
    a.fit(S, target)
    b.fit(X, target)
    out = "predict" if "Regression" in type(a).__name__ else "decision_function"
    fa, fb = getattr(a, out)(S), getattr(b, out)(X)
    np.testing.assert_allclose(fa, fb, atol=1e-6 * max(1.0, np.abs(fb).max()))
    np.testing.assert_allclose(getattr(a, out)(X), fa, atol=1e-10 * max(1.0, np.abs(fb).max()))
    if kernel != "linear":      # (the linear kernel's K has rank 30 < m: the duals are
        np.testing.assert_array_equal(a.support_, b.support_)    # not unique, f is)


def test_multiclass_and_formats():
    S, X, y = _sparse_sample(150, seed=1)
    y3 = np.arange(150) % 3
    a = OneVsOneClassifier(SupportVectorMachine(kernel="rbf")).fit(S, y3)
    b = OneVsOneClassifier(SupportVectorMachine(kernel="rbf")).fit(X, y3)
    np.testing.assert_array_equal(a.predict(S), b.predict(X))
    for fmt in (sp.csc_matrix, sp.coo_matrix, sp.lil_matrix, sp.csr_array):
        c = SupportVectorMachine(kernel="linear").fit(fmt(X), y)
        np.testing.assert_allclose(c.decision_function(fmt(X)),
                                   SupportVectorMachine(kernel="linear").fit(X, y)
                                   .decision_function(X), atol=1e-9)


def test_kernels_on_sparse_rows():
    S, X, _ = _sparse_sample(40)
    Y = S[:7] * 2.0
    for k in (Linear(), Polynomial(3, offset=1.0, gamma=0.1), RBF(3.0), RBF(gamma="scale"),
              Linear() + 2.0, 0.5 * RBF(2.0) * Polynomial(2)):
        np.testing.assert_allclose(k(S), k(X), rtol=1e-12, atol=1e-12)
        if not (isinstance(k, RBF) and k.gamma == "scale"):
            np.testing.assert_allclose(k(S, Y), k(X, Y.toarray()), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(k.diag(S), k.diag(X), rtol=1e-12)
    assert scale_sigma(S) == pytest.approx(scale_sigma(X), rel=1e-12)
    assert scale_gamma(S) == pytest.approx(scale_gamma(X), rel=1e-12)


def test_what_cannot_take_sparse_inputs_says_so():
    S, X, y = _sparse_sample(40)
    with pytest.raises(TypeError, match=r"Sparse data was passed, but the kernel "
                                        r"Mahalanobis\(\) needs dense vectors.*Linear"):
        SupportVectorMachine(kernel=Mahalanobis()).fit(S, y)
    with pytest.raises(TypeError, match="Sparse precomputed kernels are not supported"):
        SupportVectorMachine(kernel="precomputed").fit(sp.csr_matrix(X @ X.T), y)
    from kernelclf.bayes import GaussianProcessClassifier
    with pytest.raises(TypeError, match="Sparse data was passed"):
        GaussianProcessClassifier().fit(S, y)
    # a callable gets the sparse matrices (as SVC's); one that needs arrays says where
    dots = CallableKernel(lambda A, B: A @ B.T)
    np.testing.assert_allclose(dots(S), X @ X.T)
    dense_only = CallableKernel(lambda A, B: np.exp(-np.einsum("ij,kj->ik", A, B)))
    with pytest.raises(Exception) as err:
        SupportVectorMachine(kernel=dense_only).fit(S, y)
    assert "scipy.sparse CSR matrices" in "".join(getattr(err.value, "__notes__", []))


def test_sparse_and_dense_test_inputs_both_ways_against_svc():
    """The ``_dual`` module docstring: a sparse fit takes dense test inputs, as SVC's does;
    a dense fit takes sparse ones, which SVC refuses. Fitted attributes are sparse after a
    sparse fit only."""
    S, X, y = _sparse_sample(60)
    svc_sparse = SVC(kernel="linear").fit(S, y)
    np.testing.assert_array_equal(svc_sparse.predict(X), svc_sparse.predict(S))
    with pytest.raises(ValueError, match="sparse"):
        SVC(kernel="linear").fit(X, y).predict(S)
    from_sparse = SupportVectorMachine(kernel="linear", tol=1e-8).fit(S, y)
    from_dense = SupportVectorMachine(kernel="linear", tol=1e-8).fit(X, y)
    for model in (from_sparse, from_dense):
        np.testing.assert_allclose(model.decision_function(X), model.decision_function(S),
                                   atol=1e-10)
    np.testing.assert_allclose(from_sparse.decision_function(X),
                               from_dense.decision_function(S), atol=1e-6)
    assert sp.issparse(from_sparse.X_fit_) and from_sparse.X_fit_.format == "csr"
    for name in ("support_vectors_", "dual_coef_", "coef_"):
        assert sp.issparse(getattr(from_sparse, name)), name
        assert not sp.issparse(getattr(from_dense, name)), name


@pytest.mark.parametrize("kernel", [
    Normalized(RBF(2.0)), Linear() + Constant(1.0), CallableKernel(lambda A, B: A @ B.T),
    2.0 * Normalized(Polynomial(2, offset=1.0)),
], ids=["normalised", "plus-constant", "callable", "scaled-normalised"])
def test_the_other_kernels_the_docstring_names_take_sparse_rows(kernel):
    """Constants, callables and normalisations compute on sparse rows too (``_dual``)."""
    S, X, y = _sparse_sample(80)
    a = SupportVectorMachine(kernel=kernel, tol=1e-8).fit(S, y)
    b = SupportVectorMachine(kernel=kernel, tol=1e-8).fit(X, y)
    assert sp.issparse(a.X_fit_)
    np.testing.assert_allclose(a.decision_function(S), b.decision_function(X), atol=1e-6)
