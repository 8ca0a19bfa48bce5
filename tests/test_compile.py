"""The numba notice and ``python -m kernelclf.compile`` (issue 38: the first fits paused
silently while numba compiled).

References: numba's own record of what it compiled (its ``numba:compile`` events and each
function's compiled signatures), in fresh processes with an empty cache.
"""
import json
import os
import subprocess
import sys

import pytest

from kernelclf import _compile_notice

numba = pytest.importorskip("numba")


def test_notice_is_one_line_per_pause_and_follows_the_progress_policy(monkeypatch, capsys):
    """A compilation of the package's code prints one line (shown where progress bars are)."""
    from numba import njit

    def fake(x):
        return x + 1

    fake.__module__ = "kernelclf.fake_module"
    before = len(_compile_notice.notices())
    monkeypatch.setattr(_compile_notice, "_STATE", {**_compile_notice._STATE, "last_end": None})
    monkeypatch.setenv("KERNELCLF_PROGRESS", "1")
    assert _compile_notice.install()
    njit(fake)(1)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kernelclf: numba is compiling kernelclf.fake")
    assert "python -m kernelclf.compile" in err[0]
    assert len(_compile_notice.notices()) == before + 1
    njit(fake)(2.0)                      # right after the last one: the same pause, no line
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_compile_notice, "_STATE", {**_compile_notice._STATE, "last_end": None})
    monkeypatch.setenv("KERNELCLF_PROGRESS", "0")   # the book's builds: composed, not shown
    njit(fake)(3j)
    assert capsys.readouterr().err == ""
    with _compile_notice.silenced():
        monkeypatch.setenv("KERNELCLF_PROGRESS", "1")
        monkeypatch.setattr(_compile_notice, "_STATE",
                            {**_compile_notice._STATE, "last_end": None})
        njit(fake)(True)
    assert capsys.readouterr().err == ""
    # code of other packages never gives a line
    njit(lambda x: x * 2)(3)
    assert capsys.readouterr().err == ""


FIRST_FITS = r"""
import json, sys, warnings
import numpy as np
from numba.core import event
seen = []
class L(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("kernelclf."):
            seen.append(f.__name__)
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
from kernelclf import BayesPointMachine, RBF, SupportVectorMachine
rng = np.random.default_rng(1)
X = rng.normal(size=(3000, 6)); y = np.where(X[:, 0] > 0, 1, -1)
warnings.simplefilter("ignore")
SupportVectorMachine(RBF()).fit(X[:300], y[:300])
SupportVectorMachine(RBF(), cache_mb=1.0).fit(X, y)       # the columns do not all fit
BayesPointMachine(RBF(), random_state=1).fit(X[:60], y[:60])
print(json.dumps(seen))
"""


def _run(code, cache, progress="0"):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "KERNELCLF_PROGRESS": progress,
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=900, check=True)


def test_compile_command_reaches_every_compiled_function_and_first_fits_then_compile_nothing(
        tmp_path):
    """With an empty cache: the first fit prints one notice; the command compiles all 41-odd
    functions (none left unreached); a new process's first fits then compile nothing."""
    cache = tmp_path / "numba-cache"
    first = _run("import numpy as np\nfrom kernelclf import SupportVectorMachine, RBF\n"
                 "X = np.random.default_rng(0).normal(size=(300, 3))\n"
                 "SupportVectorMachine(RBF()).fit(X, np.where(X[:, 0] > 0, 1, -1))\n"
                 "from kernelclf.compile import compile_all, compiled_functions\n"
                 "import json; print(sum(bool(d.signatures) for d in "
                 "compiled_functions().values()))\n"
                 "print(json.dumps(compile_all(verbose=False)))\n",
                 cache, progress="1")
    notices = [line for line in first.stderr.splitlines() if line.startswith("kernelclf: numba")]
    # (the first compiled function of an SVM fit: the Gram guard's screen, then the SMO)
    assert len(notices) >= 1 and ("smo" in notices[0] or "_guard_screen" in notices[0])
    result = json.loads(first.stdout.strip().splitlines()[-1])
    assert result["missing"] == [] and result["loaded"] == 0
    before = int(first.stdout.strip().splitlines()[-2])   # compiled by the SVM's first fit
    assert 0 < before < result["functions"] - result["inlined"]
    after = _run(FIRST_FITS, cache)
    assert json.loads(after.stdout.strip().splitlines()[-1]) == []
    assert "kernelclf: numba" not in after.stderr
    # and the command line itself, on the warm cache
    cli = subprocess.run([sys.executable, "-m", "kernelclf.compile"], capture_output=True,
                         text=True, timeout=900, check=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert "the compiled loops are ready" in cli.stdout and "0 compiled now" in cli.stdout
