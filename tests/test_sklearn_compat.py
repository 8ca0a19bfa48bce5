"""scikit-learn's own tests of SVC, NuSVC, SVR, NuSVR, OneClassSVM and
GaussianProcessClassifier, run on kernelclf (issue 38).

The test files come with scikit-learn itself (``sklearn/svm/tests/test_svm.py``,
``test_sparse.py``, ``sklearn/gaussian_process/tests/test_gpc.py`` in site-packages;
nothing of them is copied here, nothing is downloaded). They run in a subprocess with the
plugin ``tests/sklearn_adapter.py``, which replaces scikit-learn's classes by adapters that
build the package's estimators from the same parameters (names and parameters only). The
outcome of every test item is compared with ``tests/sklearn_compat_expected.txt``, which
gives each item that does not pass its reason (a missing feature, a different convention,
out of scope, or an adapter limitation): a new failure and a new pass both fail this test.

The file is written for one scikit-learn version (its header); with another version the
comparison is skipped with that reason. ``python tests/test_sklearn_compat.py --write``
runs the files and rewrites the list, keeping the reasons of the test functions already
listed (new failures get ``TODO``, which this test refuses).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import sklearn

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "sklearn_compat_expected.txt"
FILES = ["sklearn/svm/tests/test_svm.py", "sklearn/svm/tests/test_sparse.py",
         "sklearn/gaussian_process/tests/test_gpc.py"]
PASSING = {"passed", "xpassed"}
#: the subprocess's time limit (it takes about half a minute)
TIMEOUT = 900


def run_sklearn_tests():
    """Run scikit-learn's test files through the adapter: ``{node id: record}``."""
    site = Path(sklearn.__file__).resolve().parents[1]
    missing = [f for f in FILES if not (site / f).is_file()]
    if missing:
        raise FileNotFoundError(f"scikit-learn {sklearn.__version__} was installed without its "
                                f"test files {missing}")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "COV_")) and k != "KERNELCLF_NBVAL_SAVE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               KERNELCLF_PROGRESS="0")
    with tempfile.TemporaryDirectory() as tmp:
        ini = Path(tmp) / "pytest.ini"
        ini.write_text("[pytest]\n")
        out = Path(tmp) / "results.json"
        env["KERNELCLF_SKLEARN_RESULTS"] = str(out)
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
             "sklearn_adapter", "-c", str(ini), f"--rootdir={site}",
             *[str(site / f) for f in FILES]],
            cwd=tmp, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        if not out.is_file():
            raise RuntimeError(f"the run wrote no results (exit {proc.returncode}):\n"
                               f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        raw = json.loads(out.read_text())
    return {node: {"outcome": _outcome(rec.get("outcome")), "reached": bool(rec["reached"]),
                   "message": rec.get("message", "")}
            for node, rec in raw.items() if rec.get("outcome")}


def _outcome(value):
    return {"xfail": "xfailed", "xpass": "xpassed"}.get(value, value)


def read_expected(path=EXPECTED):
    """``(version, {node id: (outcome, reached, reason)})`` from the list."""
    version, rows = None, {}
    for line in path.read_text(encoding="utf-8").splitlines():
        found = re.match(r"# scikit-learn (\S+?);", line)
        if found:
            version = found.group(1)
        if not line.strip() or line.startswith("#"):
            continue
        outcome, reached, node, reason = (line.split("\t") + [""])[:4]
        rows[node] = (outcome, reached == "reached", reason)
    return version, rows


def _function(node):
    return re.sub(r"\[.*", "", node)


def write_expected(results, path=EXPECTED):
    """Rewrite the list from ``results``, keeping the reasons already given (per item, else
    per test function and outcome)."""
    old = read_expected(path)[1] if path.is_file() else {}
    by_function = {}
    for node, (outcome, _, reason) in old.items():
        if reason:
            by_function.setdefault((_function(node), outcome), reason)
    lines = [
        "# scikit-learn's own tests run on kernelclf through tests/sklearn_adapter.py (issue 38):",
        f"# scikit-learn {sklearn.__version__}; files {', '.join(FILES)}.",
        "# One item per line, tab-separated: outcome, reached (the item fitted a kernelclf",
        "# estimator) or '-', node id, and for every outcome but 'passed' its reason.",
        "# Rewrite with `python tests/test_sklearn_compat.py --write` (keeps the reasons).",
    ]
    for node in sorted(results):
        rec = results[node]
        reason = ""
        if rec["outcome"] != "passed":
            prev = old.get(node)
            reason = prev[2] if prev and prev[0] == rec["outcome"] and prev[2] else \
                by_function.get((_function(node), rec["outcome"]), "TODO")
        elif not rec["reached"]:
            reason = ""
        lines.append("\t".join([rec["outcome"], "reached" if rec["reached"] else "-", node,
                                reason]).rstrip("\t"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def counts(rows):
    """``(reached, passed among them)`` of ``{node: (outcome, reached, ...)}``."""
    reached = [r for r in rows.values() if r[1]]
    return len(reached), sum(r[0] in PASSING for r in reached)


# ---------------------------------------------------------------------- the tests
def test_every_item_that_does_not_pass_has_a_reason():
    version, rows = read_expected()
    assert version and rows
    outcomes = {r[0] for r in rows.values()}
    assert outcomes <= {"passed", "failed", "xfailed", "xpassed", "skipped", "error"}, outcomes
    missing = [n for n, (o, _, why) in rows.items() if o != "passed" and not why]
    todo = [n for n, (_, _, why) in rows.items() if why.strip() == "TODO"]
    assert not missing and not todo, (missing + todo)[:10]
    kinds = ("missing feature", "different convention", "out of scope", "adapter",
             "different solver", "scikit-learn marks it xfail")
    vague = [n for n, (o, _, why) in rows.items()
             if o not in ("passed",) and not why.startswith(kinds)]
    assert not vague, vague[:10]


@pytest.fixture(scope="module")
def results():
    version = read_expected()[0]
    if version != sklearn.__version__:
        pytest.skip(f"the expected outcomes are those of scikit-learn {version}'s test files; "
                    f"{sklearn.__version__} is installed (rewrite them with "
                    "`python tests/test_sklearn_compat.py --write`)")
    return run_sklearn_tests()


def test_scikit_learns_tests_pass_and_fail_as_listed(results):
    """A new failure or a new pass is a difference; so is an item that appears or goes."""
    expected = read_expected()[1]
    changed = []
    for node in sorted(set(results) | set(expected)):
        got = results.get(node)
        want = expected.get(node)
        if got is None or want is None:
            changed.append(f"{node}: {'new item' if want is None else 'no longer run'}")
        elif (got["outcome"], got["reached"]) != want[:2]:
            changed.append(f"{node}: listed {want[0]}, now {got['outcome']} "
                           f"({got['message'][:160]})")
    assert not changed, f"{len(changed)} items differ from {EXPECTED.name}:\n" + \
        "\n".join(changed[:40])


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        res = run_sklearn_tests()
        write_expected(res)
        n, p = counts({k: (v["outcome"], v["reached"]) for k, v in res.items()})
        print(f"wrote {EXPECTED}: {len(res)} items, {n} reach kernelclf, {p} of them pass")
    else:
        print(__doc__)
