"""The packaging files agree with each other and with the design card."""
import re
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent


def _name(req):
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_lists_the_pyproject_packages_with_the_same_pins():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(pyproject["dependencies"])
    for extra in ("fast", "book", "test"):
        wanted += pyproject["optional-dependencies"][extra]
    wanted = {_name(r): r.replace(" ", "") for r in wanted}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {_name(r): r.replace(" ", "") for r in pip_section if not r.startswith("-e")}
    assert listed == wanted


def test_layout_of_the_design_card():
    for name in ["book", "kernelclf", "tests"]:
        assert (ROOT / name).is_dir()
    for name in ["environment.yml", "README.md", "_toc.yml", "_config.yml", "Makefile",
                 "pyproject.toml", ".ci/run"]:
        assert (ROOT / name).is_file(), name


def test_toc_and_book_sources_match():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    entries = [toc["root"]] + [c["file"] for p in toc["parts"] for c in p["chapters"]]
    sources = sorted(str(p.relative_to(ROOT).with_suffix("")) for p in (ROOT / "book").glob("*.md"))
    assert sorted(entries) == sources
    for e in entries:
        head = (ROOT / (e + ".md")).read_text()[:400]
        # the API reference pages (book/api_*) and the reproduction index are plain Markdown
        if e not in ("book/references", "book/execution_report", "book/reproductions") \
                and "/api_" not in e:
            assert "format_name: myst" in head and "kernelspec:" in head, e


def test_config_keeps_failing_builds_failing():
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cfg["only_build_toc_files"] is True
    assert "**.ipynb" in cfg["exclude_patterns"]
    make = (ROOT / "Makefile").read_text()
    assert "-W -n --keep-going" in make and "rm -rf _build" in make


def _imports():
    """``module -> set of kernelclf modules it names in an import``: at import time and
    inside functions alike (issue 24: a deferred import is still an arrow between layers)."""
    import ast

    pkg = ROOT / "kernelclf"
    graph = {}
    for path in pkg.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        here = parts if is_pkg else parts[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = (here[:len(here) - node.level + 1] if node.level else []) + \
                    (node.module.split(".") if node.module else [])
                target = ".".join(base)
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    deps.add(sub if (ROOT / Path(*sub.split(".")).with_suffix(".py")).exists()
                             or (ROOT / Path(*sub.split(".")) / "__init__.py").exists() else target)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
        graph[name] = {d for d in deps if d.startswith("kernelclf") and d != name}
    return graph


#: the package's layers, lowest first: a module may name modules of its own family or of
#: a lower layer, never of a higher one (issue 24)
LAYERS = [
    ("kernelclf.optim", "kernelclf.progress", "kernelclf.datasets", "kernelclf._jit"),
    ("kernelclf._compile_notice",),
    ("kernelclf.kernels",),
    ("kernelclf.base",),
    ("kernelclf.margin", "kernelclf.bayes", "kernelclf.neighbors"),
    ("kernelclf.bayespoint", "kernelclf.multiclass"),
    ("kernelclf.bounds",),
    ("kernelclf.experiments", "kernelclf.discovery", "kernelclf.compile"),
    ("kernelclf.book",),
    ("kernelclf",),
]


def _family(mod):
    return ".".join(mod.split(".")[:2])


def _layer(mod):
    fam = _family(mod)
    for i, families in enumerate(LAYERS):
        if fam in families:
            return i
    raise AssertionError(f"{mod}: its family {fam} has no layer in LAYERS")


def test_no_import_cycle_in_the_package():
    """Issues 9 and 24: no module imports one that imports it back, counting imports
    inside functions too."""
    graph = _imports()
    assert "kernelclf.kernels.vector" in graph and "kernelclf.margin.svm" in graph
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            # a package's __init__ importing its own submodules is not a cycle
            if node != "kernelclf" and dep == "kernelclf":
                continue
            if state.get(dep) == "open" and not dep.startswith(node + ".") \
                    and not node.startswith(dep + "."):
                raise AssertionError("import cycle: " + " -> ".join(stack + [dep]))
            if dep not in state:
                visit(dep, stack + [dep])
        state[node] = "done"

    for mod in sorted(graph):
        if mod not in state:
            visit(mod, [mod])


def test_a_lower_layer_never_names_a_higher_one():
    """Issue 24: the kernels know nothing of estimators, the estimator families nothing of
    the bounds, the library nothing of the book's tooling."""
    bad = []
    for mod, deps in sorted(_imports().items()):
        for dep in sorted(deps):
            if _family(dep) == _family(mod) or (mod == "kernelclf" and dep.startswith("kernelclf.")):
                continue
            if _layer(dep) >= _layer(mod):
                bad.append(f"{mod} -> {dep}")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_the_layering_test_catches_an_upward_import():
    """The layer rule has power: an arrow from the kernels to the margin machines fails."""
    assert _layer("kernelclf.kernels.vector") < _layer("kernelclf.margin.svm")
    assert _layer("kernelclf.margin.svm") < _layer("kernelclf.bounds.report")
    assert _layer("kernelclf.bounds.report") < _layer("kernelclf.book.widgets")


#: what the library may need (issue 24); everything else is an extra
LIBRARY_REQUIREMENTS = {"numpy", "scipy", "scikit-learn"}
#: packages of the extras that the bare library must not need
EXTRAS_ONLY = ("matplotlib", "ipywidgets", "tqdm", "numba", "cvxopt", "nbformat", "jupytext",
               "yaml", "dask", "IPython", "sphinx")


def test_pyproject_runtime_dependencies_are_the_algorithms_only():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {_name(r) for r in pyproject["dependencies"]} == LIBRARY_REQUIREMENTS


def _library_modules():
    out = []
    for path in sorted((ROOT / "kernelclf").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] in ("__init__", "__main__"):
            if parts[-1] == "__main__":
                continue
            parts = parts[:-1]
        name = ".".join(parts)
        if name.startswith("kernelclf.book"):
            continue
        out.append(name)
    return out


def test_bare_package_installs_and_imports_without_the_book(tmp_path):
    """Issue 24: the wheel built from the sources, installed into a fresh venv that holds
    only numpy, SciPy and scikit-learn (and their own dependencies), imports every library
    module and fits a model; none of the extras' packages is importable there."""
    import importlib.metadata as md
    import shutil
    import subprocess
    import sys
    import sysconfig

    src = tmp_path / "src"
    shutil.copytree(ROOT / "kernelclf", src / "kernelclf",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(dist), str(src)], check=True,
                   capture_output=True)
    wheel = next(dist.glob("kernelclf-*.whl"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the library's requirements, and theirs, from this environment (no network at test time)
    ours = Path(sysconfig.get_paths()["purelib"])
    todo, seen = ["numpy", "scipy", "scikit-learn"], set()
    while todo:
        dist_ = md.distribution(todo.pop())
        if dist_.metadata["Name"].lower() in seen:
            continue
        seen.add(dist_.metadata["Name"].lower())
        for req in dist_.requires or []:
            if "extra ==" not in req:
                todo.append(_name(req))
        tops = {Path(str(f)).parts[0] for f in dist_.files or [] if not str(f).startswith("..")}
        for top in tops:
            if (ours / top).exists() and not (site / top).exists():
                (site / top).symlink_to(ours / top)
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    "--target", str(site), str(wheel)], check=True, capture_output=True)

    script = f"""
import importlib, importlib.util, importlib.metadata as md, re
assert all(importlib.util.find_spec(m) is None for m in {EXTRAS_ONLY!r}), \\
    [m for m in {EXTRAS_ONLY!r} if importlib.util.find_spec(m) is not None]
reqs = [r for r in md.requires("kernelclf") if "extra ==" not in r]
print("requires", sorted(re.split(r"[<>=! ;]", r)[0].lower() for r in reqs))
for name in {_library_modules()!r}:
    assert importlib.import_module(name).__file__.startswith({str(site)!r}), name
import numpy as np
from kernelclf import RBF, SupportVectorMachine, BayesPointMachine
from kernelclf.datasets import make_moons
from kernelclf.progress import progress
X, y = make_moons(60, noise=0.1, random_state=0)
print("svm", SupportVectorMachine(kernel=RBF(sigma=0.5), C=10).fit(X, y).score(X, y))
print("progress", sum(progress(range(4))))
from kernelclf.experiments.results import load_results
print("results", len(load_results("bpm_table1.jsonl").records) > 0)
"""
    run = subprocess.run([str(py), "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin", "KERNELCLF_PROGRESS": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert lines["requires"] == str(sorted(LIBRARY_REQUIREMENTS))
    assert float(lines["svm"]) > 0.9
    assert lines["progress"] == "6"
    assert lines["results"] == "True"  # the committed results files ship as package data
