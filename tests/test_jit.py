"""kernelclf._jit: numba's cache stamped with every compiled module of the package.

The stamp must follow edits: after an edit to one compiled module and a reload in the
same process (a notebook's autoreload), the functions that inline it are compiled again
instead of loaded from the cache; and a package imported through a symbolic link is
stamped the same way. Each case runs in a fresh interpreter on a tiny package in a
temporary folder (``b.g`` inlined into ``a.f``), watched by the same locators as the
package.
"""
import os
import subprocess
import sys

import pytest

from kernelclf import _jit

pytestmark = pytest.mark.skipif(
    not _jit.HAVE_NUMBA, reason="about numba's cache (not installed, or hidden by "
                                "KERNELCLF_NO_NUMBA)")

_A = """\
from kernelclf._jit import njit

from .b import g


@njit(cache=True)
def f():
    return g()
"""
_B = """\
from kernelclf._jit import njit


@njit(cache=True, inline="always")
def g():
    return 1
"""
_PROBE = """
import importlib, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from kernelclf import _jit
assert _jit._install(Path(sys.argv[1]) / "pkg")
name = sys.argv[2]
a = importlib.import_module(name + ".a")
b = importlib.import_module(name + ".b")
print(a.f())
print(type(a.f._cache._impl.locator).__name__)
src = Path(sys.argv[1]) / "pkg" / "b.py"
src.write_text(src.read_text().replace("return 1", "return 22"))
importlib.reload(b)
importlib.reload(a)
print(a.f())
"""


def _run(tmp_path, name):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(_A)
    (pkg / "b.py").write_text(_B)
    if name == "link":
        (tmp_path / "link").symlink_to(pkg, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path), name], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("name", ["pkg", "link"])
def test_an_edit_and_a_reload_compile_the_new_code(tmp_path, name):
    """``a.f`` inlines ``b.g``; ``g`` is edited (1 -> 22) and both modules reloaded in
    the same process: ``f`` returns 22 (not the cached 1), imported directly and through a
    symbolic link to the package, and the cache of ``f`` is the package locator's."""
    first, locator, second = _run(tmp_path, name)
    assert (first, second) == ("1", "22")
    assert locator.startswith("Package")
    assert any((tmp_path / "pkg" / "__pycache__").glob("a.f-*.nbi"))


def test_the_package_is_stamped_with_every_compiled_module():
    """A compiled function of the package is cached under the stamp of all its compiled
    modules together (an edit to one recompiles its callers too)."""
    from kernelclf.margin.smo import compiled

    locator = compiled._shrink._cache._impl.locator
    assert type(locator)._kernelclf == _jit._ROOT
    assert locator.get_source_stamp() == _jit.source_stamp()


def test_the_stamp_follows_the_files(tmp_path):
    """``source_stamp`` is computed again when a file changes (time or size), covers only
    the files that mention njit, and is the same through a symbolic link."""
    (tmp_path / "a.py").write_text("from numba import njit\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    first = _jit.source_stamp(tmp_path)
    (tmp_path / "b.py").write_text("x = 22\n")
    assert _jit.source_stamp(tmp_path) == first
    (tmp_path / "a.py").write_text("from numba import njit  # edited\n")
    second = _jit.source_stamp(tmp_path)
    assert second != first
    (tmp_path.parent / (tmp_path.name + "-link")).symlink_to(tmp_path)
    assert _jit.source_stamp(tmp_path.parent / (tmp_path.name + "-link")) == second
    st = os.stat(tmp_path / "a.py")
    (tmp_path / "a.py").write_text("from numba import njit  # editeD\n")
    os.utime(tmp_path / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert _jit.source_stamp(tmp_path) != second      # same size, a new time
    assert _jit._inside(str(tmp_path.parent / (tmp_path.name + "-link") / "a.py"),
                        tmp_path.resolve())


def test_numba_is_within_the_pinned_versions():
    """pyproject.toml pins numba (its ``fast`` extra) to the versions these tests ran with,
    because the locators use numba's internal caching interface: the numba installed here
    is one of them, and the locators are in place."""
    from pathlib import Path

    import numba
    from packaging.requirements import Requirement

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml")
                            .read_text())["project"]
    req = next(Requirement(r) for r in project["optional-dependencies"]["fast"]
               if Requirement(r).name == "numba")
    assert any(spec.operator == "<" for spec in req.specifier)       # an upper bound
    assert req.specifier.contains(numba.__version__)
    assert _jit.INSTALLED
