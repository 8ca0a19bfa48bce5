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
    for extra in ("book", "test"):
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
        if e not in ("book/references", "book/execution_report"):
            assert "format_name: myst" in head and "kernelspec:" in head, e


def test_config_keeps_failing_builds_failing():
    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cfg["only_build_toc_files"] is True
    assert "**.ipynb" in cfg["exclude_patterns"]
    make = (ROOT / "Makefile").read_text()
    assert "-W -n --keep-going" in make and "rm -rf _build" in make


def _module_level_imports():
    """``module -> set of kernelclf modules it imports at import time`` (imports inside
    functions run later and cannot make an import cycle)."""
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
        for node in ast.parse(path.read_text()).body:
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


def test_no_import_cycle_in_the_package():
    """Issue 9: no module imports (at import time) one that imports it back."""
    graph = _module_level_imports()
    assert "kernelclf.kernels" in graph and "kernelclf.margin.svm" in graph
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
