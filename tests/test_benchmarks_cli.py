"""The benchmark modules' command line (benchmarks._cli): ``--help`` prints the module's
description and an unknown or incomplete option stops, before anything is timed. The
modules' timed runs are replaced by functions that fail the test, so a module that
started its run on such a command line fails here instead of running for minutes."""
import importlib

import pytest

from benchmarks._cli import check_argv
from kernelclf._jit import HAVE_NUMBA

#: module, the function its main() calls first to time anything, its options
MODULES = [
    ("svm", "run", ["--engine", "compiled" if HAVE_NUMBA else "numpy", "--quick", "--record"]),
    ("svm_broad", "run", ["--quick", "--max-m", "2000", "--only", "usps-256", "--repeats", "2",
                          "--record"]),
    ("strings", "bench_gram", ["--quick"]),
    ("bayes", "bench_gpc", []),
]


@pytest.mark.parametrize("name, timed, accepted", MODULES, ids=[m[0] for m in MODULES])
def test_help_and_unknown_options_stop_before_timing(name, timed, accepted, capsys, monkeypatch):
    mod = importlib.import_module(f"benchmarks.{name}")
    monkeypatch.setattr(mod, timed, lambda *a, **k: pytest.fail(f"benchmarks.{name} started"))
    for argv in (["--help"], ["-h"], accepted + ["--help"]):
        mod.main(argv)
        assert capsys.readouterr().out.strip() == mod.__doc__.strip()
    bad = [["--bogus"], ["2000"], accepted + ["--bogus"]]
    bad += [[opt] for opt in ("--engine", "--max-m", "--only", "--repeats") if opt in accepted]
    for argv in bad:
        with pytest.raises(SystemExit, match=f"benchmarks.{name}: unknown or incomplete option"):
            mod.main(argv)
    if accepted:  # the accepted command line reaches the timed run
        with pytest.raises(pytest.fail.Exception, match="started"):
            mod.main(accepted)


def test_check_argv():
    opts = {"--max-m": "N"}
    assert check_argv([], "b", "doc") is False
    assert check_argv(["--quick", "--max-m", "5"], "b", "doc", ("--quick",), opts) is False
    with pytest.raises(SystemExit, match=r"'--max-m'; it takes --quick, --max-m N"):
        check_argv(["--quick", "--max-m"], "b", "doc", ("--quick",), opts)
    with pytest.raises(SystemExit, match="it takes no options"):
        check_argv(["--quick"], "b", "doc")
