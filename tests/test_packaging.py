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
