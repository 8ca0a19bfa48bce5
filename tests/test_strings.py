"""String kernels (kernelclf.kernels.strings) against brute-force enumeration and plain DPs.

References are independent of the package code: explicit enumeration of index
vectors / substrings (LKC eq. 2.24, 2.25, 2.28), the scalar recursions of LKC
App. B.2.1 and of Lodhi et al. (2002) written with Python loops, and
scikit-learn's CountVectorizer / SVC.
"""
import itertools
import math
from collections import Counter

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.svm import SVC

import kernelclf.kernels.strings as strings_mod
import kernelclf.kernels.subsequence as subsequence_mod
from kernelclf.base import KERNEL_CONSTRAINT, BinaryKernelClassifier
from kernelclf.kernels import (
    AllSubstringsKernel,
    BagOfWordsKernel,
    Normalized,
    SpectrumKernel,
    SubsequenceKernel,
    idf_weights,
    is_psd,
    strings,
    subsequence_dp_tables,
    subsequence_features,
    subsequence_kernel_levels,
)

# ---------------------------------------------------------------- references

def ssk_enumerate(u, v, n, lam):
    """LKC eq. (2.28) by enumerating all index vectors of length n."""
    total = 0.0
    for i in itertools.combinations(range(len(u)), n):
        b = "".join(u[k] for k in i)
        for j in itertools.combinations(range(len(v)), n):
            if "".join(v[k] for k in j) == b:
                total += lam ** ((i[-1] - i[0] + 1) + (j[-1] - j[0] + 1))
    return total


def ssk_plain_dp(s, t, n, lam):
    """Lodhi et al. (2002) O(n|s||t|) recursion, one character at a time."""
    ls, lt = len(s), len(t)
    Kp = [[[1.0] * (lt + 1) for _ in range(ls + 1)]]
    for i in range(1, n):
        cur = [[0.0] * (lt + 1) for _ in range(ls + 1)]
        for a in range(1, ls + 1):
            kpp = 0.0
            for b in range(1, lt + 1):
                match = s[a - 1] == t[b - 1]
                kpp = lam * kpp + (lam * lam * Kp[i - 1][a - 1][b - 1] if match else 0.0)
                cur[a][b] = lam * cur[a - 1][b] + kpp
        Kp.append(cur)
    return sum(lam * lam * Kp[n - 1][a - 1][b - 1]
               for a in range(1, ls + 1) for b in range(1, lt + 1) if s[a - 1] == t[b - 1])


def substring_counts(u, p):
    return Counter(u[i:i + p] for i in range(len(u) - p + 1))


def spectrum_enumerate(u, v, p):
    cu, cv = substring_counts(u, p), substring_counts(v, p)
    return float(sum(c * cv[b] for b, c in cu.items()))


def all_substrings_enumerate(u, v, r, lam):
    """LKC eq. (2.25): count equal pairs of positions for every length s <= r."""
    total = 0.0
    for s in range(1, r + 1):
        for i in range(len(u) - s + 1):
            for j in range(len(v) - s + 1):
                if u[i:i + s] == v[j:j + s]:
                    total += lam ** (2 * s)
    return total


def all_substrings_recursion(u, v, r, lam):
    """LKC eq. (2.26)-(2.27), App. B.2.1, literally."""
    def kprime(a, b, rr):
        if rr == 0 or not a or not b or a[0] != b[0]:
            return 0.0
        return 1.0 + lam ** 2 * kprime(a[1:], b[1:], rr - 1)
    return sum(lam ** 2 * kprime(u[i:], v[j:], r) for i in range(len(u)) for j in range(len(v)))


def random_strings(rng, m, alphabet, max_len, min_len=0):
    return ["".join(rng.choice(list(alphabet), rng.integers(min_len, max_len + 1)))
            for _ in range(m)]


# ------------------------------------------------------ subsequence kernel

def test_cat_cart_value_from_enumeration():
    assert ssk_enumerate("cat", "cart", 3, 0.5) == 0.0078125
    assert SubsequenceKernel(3, 0.5)(["cat"], ["cart"])[0, 0] == pytest.approx(0.0078125, abs=1e-15)


@pytest.mark.parametrize("method", ["dp", "features"])
@pytest.mark.parametrize("alphabet", ["ab", "abc"])
@pytest.mark.parametrize("lam", [0.3, 0.5, 1.0, 1.6])
def test_subsequence_kernel_equals_enumeration(alphabet, lam, method):
    rng = np.random.default_rng(len(alphabet) + int(10 * lam))
    X = random_strings(rng, 7, alphabet, 7)
    Y = random_strings(rng, 3, alphabet + "z", 6)
    for n in (1, 2, 3, 4):
        ref = np.array([[ssk_enumerate(u, v, n, lam) for v in X] for u in X])
        k = SubsequenceKernel(n, lam, method=method)
        np.testing.assert_allclose(k(X), ref, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(k.diag(X), np.diag(ref), rtol=1e-12, atol=1e-14)
        ref_xy = np.array([[ssk_enumerate(u, v, n, lam) for v in Y] for u in X])
        np.testing.assert_allclose(k(X, Y), ref_xy, rtol=1e-12, atol=1e-14)


def test_auto_method_switches_on_alphabet_size():
    """auto = explicit features for |alphabet|^n <= 32768, DP otherwise; same values."""
    rng = np.random.default_rng(11)
    dna = random_strings(rng, 5, "ACGT", 40, min_len=20)
    text = [" ".join(random_strings(rng, 6, "abcdefghijklmnopqrstuvwxyz", 6, min_len=2))
            for _ in range(4)]
    for X, n in [(dna, 5), (text, 4)]:
        auto = SubsequenceKernel(n, 0.6)(X)
        np.testing.assert_allclose(auto, SubsequenceKernel(n, 0.6, method="dp")(X), rtol=1e-10)
        np.testing.assert_allclose(auto, SubsequenceKernel(n, 0.6, method="features")(X),
                                   rtol=1e-10)
    assert strings_mod._use_features("auto", 4, 5) and not strings_mod._use_features("auto", 27, 4)
    with pytest.raises(ValueError, match="method"):
        SubsequenceKernel(2, 0.5, method="fast")(["ab"])


@pytest.mark.parametrize("lam", [0.5, 0.9])
def test_blocked_path_equals_enumeration(monkeypatch, lam):
    """Force the overflow-safe blocked recurrence with tiny blocks."""
    monkeypatch.setattr(subsequence_mod, "_SCALED_LIMIT", -1.0)
    monkeypatch.setattr(subsequence_mod, "_BLOCK_LIMIT", 2.5 * abs(math.log(lam)))
    rng = np.random.default_rng(3)
    X = random_strings(rng, 6, "abc", 8)
    Y = random_strings(rng, 4, "abc", 8)
    for n in (1, 2, 3):
        ref = np.array([[ssk_enumerate(u, v, n, lam) for v in Y] for u in X])
        np.testing.assert_allclose(SubsequenceKernel(n, lam, method="dp")(X, Y), ref,
                                   rtol=1e-12, atol=1e-14)


def test_cumulative_is_sum_of_levels():
    rng = np.random.default_rng(4)
    X = random_strings(rng, 6, "ab", 6)
    ref = sum(np.array([[ssk_enumerate(u, v, k, 0.5) for v in X] for u in X]) for k in (1, 2, 3))
    for method in ("dp", "features"):
        k = SubsequenceKernel(3, 0.5, cumulative=True, method=method)
        np.testing.assert_allclose(k(X), ref, rtol=1e-12)
        np.testing.assert_allclose(k.diag(X), np.diag(ref), rtol=1e-12)
    levels = subsequence_kernel_levels(X[0], X[1], 3, 0.5)
    np.testing.assert_allclose(levels, [ssk_enumerate(X[0], X[1], k, 0.5) for k in (1, 2, 3)],
                               rtol=1e-12, atol=1e-15)


def test_long_strings_match_plain_dp_on_both_paths(monkeypatch):
    """Long pair: the scaled and the blocked recurrences agree with the scalar DP."""
    rng = np.random.default_rng(5)
    s, t = random_strings(rng, 2, "ACGT", 60, min_len=50)
    ref = ssk_plain_dp(s, t, 4, 0.5)
    fast = SubsequenceKernel(4, 0.5, method="dp")([s], [t])[0, 0]
    features = SubsequenceKernel(4, 0.5, method="features")([s], [t])[0, 0]
    monkeypatch.setattr(subsequence_mod, "_SCALED_LIMIT", -1.0)
    monkeypatch.setattr(subsequence_mod, "_BLOCK_LIMIT", 10 * math.log(2))
    blocked = SubsequenceKernel(4, 0.5, method="dp")([s], [t])[0, 0]
    blocked_features = SubsequenceKernel(4, 0.5, method="features")([s], [t])[0, 0]
    for value in (fast, features, blocked, blocked_features):
        assert value == pytest.approx(ref, rel=1e-11)


def test_very_long_pair_stays_finite():
    """lam^-(|s|+|t|) would overflow: the blocked path must be used and agree
    with the diagonal, Gram and normalisation identities."""
    rng = np.random.default_rng(6)
    s, t = random_strings(rng, 2, "ACGT", 700, min_len=700)
    k = SubsequenceKernel(3, 0.3, method="dp")
    K = k([s, t])
    assert np.all(np.isfinite(K)) and np.all(K > 0)
    np.testing.assert_allclose(np.diag(K), k.diag([s, t]), rtol=1e-12)
    assert abs(K[0, 1]) <= math.sqrt(K[0, 0] * K[1, 1])
    np.testing.assert_allclose(SubsequenceKernel(3, 0.3, method="features")([s, t]), K,
                               rtol=1e-10)


def test_dp_tables_sum_to_kernel():
    Kp, Kpp, contrib = subsequence_dp_tables("cat", "cart", 3, 0.5)
    assert contrib.sum() == pytest.approx(0.0078125, abs=1e-15)
    assert np.all(Kp[0] == 1.0)
    # k'_1(u, v) = sum over common characters lam^(|u|-i+1 + |v|-j+1)
    u, v = "ca", "car"
    manual = sum(0.5 ** (len(u) - i + len(v) - j) for i in range(len(u)) for j in range(len(v))
                 if u[i] == v[j])
    assert Kp[1, 2, 3] == pytest.approx(manual)


def test_explicit_features_equal_enumerated_feature_map():
    """phi_u(s) = sum over occurrences i of u in s of lam^l(i) (LKC eq. 2.28)."""
    X = ["cat", "cart", "tact", ""]
    Phi, names = subsequence_features(X, 2, 0.5)
    assert len(names) == 4 ** 2 and len(set(names)) == 16
    for r, s in enumerate(X):
        for c, u in enumerate(names):
            ref = sum(0.5 ** (i[-1] - i[0] + 1) for i in itertools.combinations(range(len(s)), 2)
                      if s[i[0]] + s[i[1]] == u)
            assert Phi[r, c] == pytest.approx(ref, abs=1e-15)
    np.testing.assert_allclose(Phi @ Phi.T, SubsequenceKernel(2, 0.5, method="dp")(X),
                               rtol=1e-12, atol=1e-15)


# ------------------------------------------------------ substring kernels

def test_spectrum_kernel_equals_enumeration():
    rng = np.random.default_rng(7)
    X = random_strings(rng, 8, "acgt", 12)
    Y = random_strings(rng, 5, "acgt", 12)
    for p in (1, 2, 3, 5):
        ref = np.array([[spectrum_enumerate(u, v, p) for v in Y] for u in X])
        np.testing.assert_array_equal(SpectrumKernel(p)(X, Y), ref)
        np.testing.assert_array_equal(SpectrumKernel(p).diag(X),
                                      [spectrum_enumerate(u, u, p) for u in X])


def test_all_substrings_kernel_equals_enumeration_and_recursion():
    rng = np.random.default_rng(8)
    X = random_strings(rng, 7, "ab", 8)
    for r, lam in [(1, 0.5), (3, 0.5), (4, 1.3)]:
        ref = np.array([[all_substrings_enumerate(u, v, r, lam) for v in X] for u in X])
        rec = np.array([[all_substrings_recursion(u, v, r, lam) for v in X] for u in X])
        np.testing.assert_allclose(ref, rec, rtol=1e-12)
        np.testing.assert_allclose(AllSubstringsKernel(r, lam)(X), ref, rtol=1e-12)
        np.testing.assert_allclose(AllSubstringsKernel(r, lam).diag(X), np.diag(ref), rtol=1e-12)


def test_bag_of_words_matches_count_vectorizer():
    docs = ["the cat sat on the mat", "The dog sat", "a cat and a dog and a cat", ""]
    other = ["cat cat dog", "unseen words only"]
    cv = CountVectorizer(token_pattern=r"(?u)\b\w+\b").fit(docs + other)
    A, B = cv.transform(docs).toarray(), cv.transform(other).toarray()
    np.testing.assert_array_equal(BagOfWordsKernel()(docs), A @ A.T)
    np.testing.assert_array_equal(BagOfWordsKernel()(docs, other), A @ B.T)
    # IDF weights: beta_b = log(m / df_b)
    w = idf_weights(docs)
    assert w["cat"] == pytest.approx(math.log(4 / 2))
    assert w["sat"] == pytest.approx(math.log(4 / 2))
    beta = np.array([w.get(word, 0.0) for word in cv.get_feature_names_out()])
    np.testing.assert_allclose(BagOfWordsKernel(weights=w)(docs, other),
                               (A * beta ** 2) @ B.T, rtol=1e-12)
    np.testing.assert_allclose(BagOfWordsKernel(weights=w).diag(docs),
                               np.einsum("ij,ij->i", A * beta ** 2, A), rtol=1e-12)


# ------------------------------------------------------ common properties

ALL_KERNELS = [SpectrumKernel(2), AllSubstringsKernel(3, 0.7), SubsequenceKernel(2, 0.5),
               SubsequenceKernel(3, 0.8, cumulative=True, method="dp"), BagOfWordsKernel()]


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: type(k).__name__)
def test_gram_psd_symmetric_diag_and_normalised(kernel):
    rng = np.random.default_rng(9)
    X = [" ".join(random_strings(rng, 4, "ab", 4, min_len=1)) for _ in range(12)] + ["", "a"]
    K = kernel(X)
    assert is_psd(K)
    np.testing.assert_allclose(kernel.diag(X), np.diag(K), rtol=1e-12, atol=1e-15)
    N = Normalized(kernel)
    Kn = N(X)
    d = np.diag(K)
    expected = np.where(d > 0, 1.0, 0.0)
    np.testing.assert_allclose(np.diag(Kn), expected, atol=1e-12)
    np.testing.assert_allclose(N.diag(X), expected)
    assert np.all(np.abs(Kn) <= 1 + 1e-12)
    assert is_psd(Kn)
    assert N.accepts_strings
    assert clone(kernel).get_params() == kernel.get_params()


@pytest.mark.parametrize("method", ["dp", "features"])
def test_empty_and_short_strings_give_zero(method):
    k = SubsequenceKernel(3, 0.5, method=method)
    K = k(["", "ab", "abc"], ["", "ab", "abc", "xabcx"])
    np.testing.assert_array_equal(K[:2], 0.0)
    np.testing.assert_array_equal(K[:, :2], 0.0)
    assert K[2, 2] == pytest.approx(0.5 ** 6)
    assert K[2, 3] == pytest.approx(0.5 ** 6)
    np.testing.assert_array_equal(k([""] * 3), 0.0)
    np.testing.assert_array_equal(Normalized(k)(["", "abc"]), [[0.0, 0.0], [0.0, 1.0]])
    assert SpectrumKernel(3)([""], ["abc"])[0, 0] == 0.0
    assert k([], ["abc"]).shape == (0, 1)


@pytest.mark.parametrize("bad", ["just one string", [1, 2], ["ok", None], [b"bytes"],
                                 np.array([["a", "b"]])])
def test_non_string_input_raises_type_error(bad):
    with pytest.raises(TypeError, match="string"):
        SubsequenceKernel(2, 0.5)(bad)
    with pytest.raises(TypeError, match="string"):
        SpectrumKernel(2).diag(bad)


@pytest.mark.parametrize("kernel", [SubsequenceKernel(0, 0.5), SubsequenceKernel(2, 0.0),
                                    SubsequenceKernel(2.5, 0.5), SpectrumKernel(0),
                                    AllSubstringsKernel(2, -1.0)])
def test_bad_parameters_raise(kernel):
    with pytest.raises(ValueError):
        kernel(["abc", "abd"])


# ------------------------------------------------------ estimators on strings

class _CentroidClassifier(BinaryKernelClassifier):
    """Minimal estimator: f(x) = mean_{+} k(x_i, x) - mean_{-} k(x_i, x)."""

    _parameter_constraints = {"kernel": KERNEL_CONSTRAINT}

    def __init__(self, kernel=None):
        self.kernel = kernel

    def fit(self, X, y):
        X, y_pm = self._fit_binary(X, y)
        self.X_fit_ = X
        self.alpha_ = np.where(y_pm > 0, 1.0 / np.sum(y_pm > 0), -1.0 / np.sum(y_pm < 0))
        return self


def _motif_data(rng, m):
    """Class +1 strings contain the motif 'gattaca' somewhere; class -1 do not."""
    X, y = [], []
    for i in range(m):
        s = "".join(rng.choice(list("acgt"), 30))
        if i % 2:
            pos = rng.integers(0, 23)
            s = s[:pos] + "gattaca" + s[pos + 7:]
        X.append(s)
        y.append("motif" if i % 2 else "none")
    return X, np.array(y)


def test_estimators_accept_lists_of_strings():
    rng = np.random.default_rng(10)
    X, y = _motif_data(rng, 60)
    kernel = Normalized(SpectrumKernel(4))
    clf = _CentroidClassifier(kernel).fit(X[:40], y[:40])
    assert isinstance(clf.X_fit_, list) and not hasattr(clf, "n_features_in_")
    f = clf.decision_function(X[40:])
    K = np.array([[spectrum_enumerate(u, v, 4) for v in X[:40]] for u in X[40:]])
    du = np.array([spectrum_enumerate(u, u, 4) for u in X[40:]])
    dv = np.array([spectrum_enumerate(v, v, 4) for v in X[:40]])
    np.testing.assert_allclose(f, (K / np.sqrt(np.outer(du, dv))) @ clf.alpha_, rtol=1e-12)
    assert np.mean(clf.predict(X[40:]) == y[40:]) >= 0.8
    # scikit-learn's SVC on the precomputed Gram of the subsequence kernel
    ssk = Normalized(SubsequenceKernel(3, 0.5))
    svc = SVC(kernel="precomputed", C=10.0).fit(ssk(X[:40]), y[:40])
    assert svc.score(ssk(X[40:], X[:40]), y[40:]) >= 0.8
    assert strings.check_strings(("a", np.str_("b"))) == ["a", "b"]


def test_support_vector_machine_on_strings_matches_sklearn_precomputed():
    """kernelclf.margin.svm fitted on a list of strings equals sklearn's SVC on the Gram."""
    svm = pytest.importorskip("kernelclf.margin.svm")
    rng = np.random.default_rng(12)
    X, y = _motif_data(rng, 40)
    kernel = Normalized(SubsequenceKernel(3, 0.5))
    model = svm.SupportVectorMachine(kernel=kernel, C=1.0, tol=1e-6).fit(X, y)
    ref = SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(kernel(X), y)
    np.testing.assert_allclose(model.decision_function(X[:10]),
                               ref.decision_function(kernel(X[:10], X)), atol=1e-4)
    assert isinstance(model.X_fit_, list)
