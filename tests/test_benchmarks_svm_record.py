"""benchmarks.svm's ``--engine numpy`` (README, the module docstring): numba is switched off
before kernelclf is imported, ``--record`` writes ``svm_benchmark_numpy.jsonl`` and never
the compiled engine's ``svm_benchmark.jsonl``; a process whose engine differs from the one
asked for stops before writing. The timed run itself is stubbed (benchmarks are never run
as tests); the module runs as ``__main__`` in a fresh interpreter, with its output folders
redirected to a temporary directory."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, os, sys
from pathlib import Path
root, tmp, argv = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
src = (root / "benchmarks" / "svm.py").read_text()
tail = 'if __name__ == "__main__":\n    main()'
assert src.rstrip().endswith(tail)
g = {"__name__": "__main__", "__file__": str(tmp / "benchmarks" / "svm.py")}
sys.argv = ["svm.py", *argv]
exec(compile(src.rstrip()[:-len(tail)], "svm.py", "exec"), g)    # up to main(): the imports
import kernelclf.experiments.results as results
results.RESULTS_DIR = str(tmp / "results")
os.makedirs(results.RESULTS_DIR)
g["run"] = lambda **kw: {"setting": "stub", "versions": {}, "groups": [],
                         "engine": "compiled" if g["HAVE_NUMBA"] else "numpy"}
print(json.dumps({"numba_imported": "numba" in sys.modules, "have_numba": g["HAVE_NUMBA"]}))
try:
    g["main"](argv)
except SystemExit as e:
    print(json.dumps({"exit": str(e)}))
"""


def _run(tmp_path, args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "KERNELCLF_NO_NUMBA"}
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path), *args],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(s) for s in out.stdout.splitlines() if s.startswith("{")]
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.json*"))
    return lines, written


def test_engine_numpy_record_writes_only_the_numpy_record(tmp_path):
    lines, written = _run(tmp_path, ["--engine", "numpy", "--quick", "--record"])
    assert lines[0] == {"numba_imported": False, "have_numba": False}
    assert written == ["benchmarks/results/svm_numpy.json",
                       "results/svm_benchmark_numpy.jsonl"]
    header = json.loads((tmp_path / "results/svm_benchmark_numpy.jsonl").read_text()
                        .splitlines()[0])
    assert header["config"]["engine"] == "numpy"
    assert header["provenance"]["command"] == (
        "python -m benchmarks.svm --engine numpy --quick --record")


def test_a_process_without_numba_never_writes_the_compiled_record(tmp_path):
    lines, written = _run(tmp_path, ["--record"], {"KERNELCLF_NO_NUMBA": "1"})
    assert lines[0]["have_numba"] is False
    assert "this process runs the numpy engine" in lines[1]["exit"]
    assert written == []


def test_the_compiled_record_keeps_its_name(tmp_path):
    pytest.importorskip("numba")
    lines, written = _run(tmp_path, ["--record"])
    assert lines[0]["have_numba"] is True
    assert written == ["benchmarks/results/svm.json", "results/svm_benchmark.jsonl"]
