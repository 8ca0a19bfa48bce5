"""The RMM paper's experiment protocols (kernelclf.rmm_experiments) against closed forms
and independent references.

* the Bayes rule of RMM §5.1 (eq. 34) is the LDA rule of two Gaussians with a shared
  covariance: its error is ``Phi(-Delta / 2)`` with ``Delta`` the Mahalanobis distance of
  the means, for every scaling ``s`` of eq. 35 (a linear map does not change it), and the
  rescaled rule decides like the raw one;
* eq. 35's matrix keeps the Bayes normal and stretches the orthogonal direction by ``s``;
* the seeded Table 4 splits have the paper's sizes and are standardised on the training
  part; the table's p-values are scipy's paired t-test against the best method.
"""
import os

import numpy as np
import pytest
from scipy import stats
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from kernelclf import rmm_experiments as rx


def _bayes_error_closed_form():
    d = rx.MU_POS - rx.MU_NEG
    delta = np.sqrt(d @ np.linalg.solve(rx.SIGMA, d))
    return stats.norm.cdf(-delta / 2)


def test_scaling_matrix_of_eq_35_keeps_the_bayes_normal_and_stretches_its_orthogonal():
    w = np.linalg.solve(rx.SIGMA, rx.MU_POS - rx.MU_NEG)
    w /= np.linalg.norm(w)
    v = np.array([-w[1], w[0]])
    A = rx._scaling_matrix(3.0)
    np.testing.assert_allclose(A @ w, w, atol=1e-12)
    np.testing.assert_allclose(A @ v, 3.0 * v, atol=1e-12)


@pytest.mark.parametrize("s", [1.0, 0.25, 4.0])
def test_bayes_rule_has_the_closed_form_error_and_matches_lda(s):
    rng = np.random.default_rng(1)
    X, y = rx.gaussians(40_000, rng, s)
    w, c = rx.bayes_rule(s)
    err = np.mean(np.sign(X @ w + c) != y)
    ref = _bayes_error_closed_form()
    assert abs(err - ref) < 4 * np.sqrt(ref * (1 - ref) / len(y))
    lda = LinearDiscriminantAnalysis().fit(X, y)       # the plug-in rule: same direction
    u = lda.coef_.ravel() / np.linalg.norm(lda.coef_)
    assert abs(abs(u @ w / np.linalg.norm(w)) - 1) < 1e-3
    # the rule in rescaled coordinates (x - lo) / (hi - lo) decides like the raw one
    lo, hi = X.min(axis=0), X.max(axis=0)
    w2, c2 = rx.bayes_rule(s, lo, hi)
    Z = (X - lo) / (hi - lo)
    np.testing.assert_array_equal(np.sign(Z @ w2 + c2), np.sign(X @ w + c))


def test_synthetic_errors_reports_the_bayes_error_and_no_method_beats_it_much():
    out = rx.synthetic_errors(60, seed=3, n_val=3000, n_test=6000,
                              C_grid=(1.0, 100.0), kappas=(1.0, 0.5))
    ref = _bayes_error_closed_form()
    se = np.sqrt(ref * (1 - ref) / 12_000)
    assert abs(out["bayes"] - ref) < 4 * se
    for k in ("svm", "rmm"):
        assert out[k] >= out["bayes"] - 4 * se
        assert out[k] < 0.5
    assert out["svm_C"] in (1.0, 100.0)
    C, kappa = out["rmm_C_kappa"]
    assert C in (1.0, 100.0) and kappa in (1.0, 0.5)


def test_unit_poly_has_unit_diagonal_on_unit_norm_inputs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    K = rx.unit_poly(5)(X)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=1e-12)
    np.testing.assert_allclose(K, ((1 + X @ X.T) / 2) ** 5, rtol=1e-12)


def test_table4_rows_use_the_paired_t_test_against_the_best_method():
    rng = np.random.default_rng(0)
    per = [{"SVM": 0.2 + 0.01 * rng.standard_normal(), "RMM": 0.18 + 0.01 * rng.standard_normal()}
           for _ in range(10)]
    row, = rx.table4_rows({"toy": ({"SVM": {}, "RMM": {}}, per)})
    svm = np.array([r["SVM"] for r in per])
    rmm = np.array([r["RMM"] for r in per])
    assert row["best"] == ("RMM" if rmm.mean() < svm.mean() else "SVM")
    assert row["p_vs_best"][row["best"]] == 1.0
    other = "SVM" if row["best"] == "RMM" else "RMM"
    assert row["p_vs_best"][other] == pytest.approx(stats.ttest_rel(svm, rmm).pvalue)
    assert row["mean"]["SVM"] == pytest.approx(100 * svm.mean())
    assert row["sd"]["RMM"] == pytest.approx(100 * rmm.std(ddof=1))


@pytest.mark.skipif(not os.environ.get("KERNELCLF_DATA"), reason="needs the data home")
def test_table4_splits_have_the_paper_sizes_and_training_standardisation():
    a = rx.table4_splits("heart", n_splits=3, seed=5)
    b = rx.table4_splits("heart", n_splits=3, seed=5)
    n_tr, n_te = rx.TABLE4_SIZES["heart"]
    for (Xtr, ytr, Xte, yte), (Xtr2, *_rest) in zip(a, b):
        assert len(ytr) == n_tr and len(yte) <= n_te and set(np.unique(ytr)) == {-1.0, 1.0}
        np.testing.assert_allclose(Xtr.mean(axis=0), 0.0, atol=1e-12)
        np.testing.assert_array_equal(Xtr, Xtr2)
    assert not np.array_equal(a[0][0], a[1][0])


def test_the_experiments_are_registered_on_the_command_line():
    from kernelclf.experiments import COMMANDS

    assert {"rmm-table4", "rmm-digits"} <= set(COMMANDS)
