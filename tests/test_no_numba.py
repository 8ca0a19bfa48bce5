"""The package without numba: the switch ``KERNELCLF_NO_NUMBA`` (kernelclf._jit).

Without numba (Pyodide's in-browser lab, an install without the ``fast`` extra) every
module runs its NumPy twin. ``make test`` runs the estimator tests a second time with
numba hidden by the switch; these tests check that the switch really hides it: no
module of the package reports numba, and numba is not imported by importing every
module and fitting every estimator.
"""
import json
import os
import subprocess
import sys

import pytest

_PROBE = r"""
import importlib, json, pkgutil, sys, warnings
import numpy as np
import kernelclf
from kernelclf.discovery import all_estimators
from sklearn.base import is_regressor
from sklearn.datasets import make_classification

flags = {}
for info in pkgutil.walk_packages(kernelclf.__path__, "kernelclf."):
    if info.name.endswith("__main__"):
        continue
    mod = importlib.import_module(info.name)
    if hasattr(mod, "HAVE_NUMBA"):
        flags[info.name] = bool(mod.HAVE_NUMBA)
X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0,
                           random_state=0)
fitted = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for name, Est in all_estimators():
        est = Est()
        est.fit(X, X[:, 0] if is_regressor(est) else y)
        est.predict(X)
        fitted.append(name)
print(json.dumps({"flags": flags, "fitted": fitted,
                  "numba": sorted(k for k in sys.modules if k.split(".")[0] == "numba")}))
"""


def test_the_switch_hides_numba_from_every_module_and_every_fit():
    """In a fresh interpreter with the switch on: every module that has ``HAVE_NUMBA``
    says False (the compiled SMO, its step, the native kernel columns, the billiard...),
    and after importing every module of the package and
    fitting every estimator, numba is not among the imported modules."""
    env = dict(os.environ, KERNELCLF_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, timeout=600, check=True).stdout
    probe = json.loads(out.strip().splitlines()[-1])
    assert probe["numba"] == []
    assert len(probe["fitted"]) >= 15
    for module in ("kernelclf._jit", "kernelclf.margin.smo", "kernelclf.margin.smo.compiled",
                   "kernelclf.kernels.native_columns", "kernelclf.bayespoint.billiard_engines"):
        assert probe["flags"][module] is False, module
    assert not any(probe["flags"].values())


def test_the_switch_is_read_as_documented(monkeypatch):
    """``KERNELCLF_NO_NUMBA``: unset, empty or ``0`` leave numba alone; anything else
    hides it (checked on a fresh copy of kernelclf._jit)."""
    import importlib.util

    from kernelclf import _jit

    for value, hidden in (("", False), ("0", False), ("1", True), ("yes", True)):
        monkeypatch.setenv("KERNELCLF_NO_NUMBA", value)
        spec = importlib.util.spec_from_file_location("_jit_probe", _jit.__file__)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        assert mod.NO_NUMBA is hidden
        if hidden:
            assert mod.HAVE_NUMBA is False and not hasattr(mod, "njit")


_HIDDEN = os.environ.get("KERNELCLF_NO_NUMBA", "") not in ("", "0")


@pytest.mark.skipif(not _HIDDEN, reason="only in the lane without numba (KERNELCLF_NO_NUMBA=1)")
def test_this_lane_runs_without_numba():
    """In the lane of ``make test`` that hides numba, this process has no compiled code:
    every loaded module of the package says ``HAVE_NUMBA`` is False."""
    from kernelclf import _jit
    from kernelclf.margin import smo

    assert _jit.NO_NUMBA and not _jit.HAVE_NUMBA and not smo.HAVE_NUMBA
    loaded = {k: v for k, v in sys.modules.items() if k.startswith("kernelclf.")}
    assert not any(getattr(mod, "HAVE_NUMBA", False) for mod in loaded.values())


def test_make_test_runs_the_estimator_tests_without_numba():
    """The ``test`` target of the Makefile has a stage that runs ``unit-no-numba``, and that
    target runs the common estimator checks, the bad-input matrix and the SVM/SMO tests
    with the switch on."""
    from pathlib import Path

    make = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    recipe = make[make.index("\ntest:"):]
    recipe = recipe[:recipe.index("\n\n")]
    assert '"no-numba=$(MAKE) --no-print-directory unit-no-numba' in recipe
    body = make[make.index("NO_NUMBA_TESTS :="):make.index("\nunit-no-numba:")]
    lane = body.replace("\\\n", " ").split(":=")[1].split()
    for name in ("test_no_numba", "test_common", "test_bad_input", "test_svm", "test_smo",
                 "test_svr"):
        assert f"tests/{name}.py" in lane
    assert all((Path(__file__).parent.parent / t).is_file() for t in lane)
    target = make[make.index("\nunit-no-numba:"):]
    assert "KERNELCLF_NO_NUMBA=1 " in target[:target.index("\n\n")]
