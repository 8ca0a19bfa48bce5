"""The in-browser lab (kernelclf.book.lite): its build pieces, and every chapter run in it offline.

Unit tests check the pieces against independent readings: the wheel the build packs is a
valid wheel (its RECORD hashes recomputed here, ``zipfile``'s own integrity test), the lock
entries carry the sha256 of the files, ``jupyter-lite.json`` names Pyodide and turns the PyPI
fallback off, the data copy matches the registry's checksums.

The browser test (marker ``browser``) serves the built site (``make book``) on 127.0.0.1 and
drives Debian's Chromium with every other host unresolvable (``--host-resolver-rules``) and
every request to another origin aborted and recorded. Two pages of the lab (``lite/lab``,
one browser context each) each hold one Pyodide kernel that runs its share of the chapters
in turn, slowest first: Pyodide starts twice, not once per chapter (issue 29).
Each chapter opens in the lab; from the second on in a page, the kernel's namespace is reset
(``%reset``, figures and widgets closed; imported modules stay) and the chapter's notebook
attaches to that kernel (the previous notebook is closed). Per chapter: its Markdown renders
without raw MyST, Run All finishes with no error output, where the chapter has an
``explore`` widget, moving a control after the run changes what the widget shows
(recomputed in Python in the page), and where it has exercise checkers (issue 28), a cell
added at its end shows ✔ for the worked solution's answer and ✘ with the recorded hint for
a typical mistake. After a failure the next chapter starts a fresh page and kernel. The
attach (or kernel start) and run times of every chapter are printed (``make site-test``
shows them); ``-k`` picks chapters.

The lab's budget (issue 41): a chapter whose Run All takes over :data:`RUN_BUDGET` seconds
fails, and so does one whose page's first kernel took over :data:`KERNEL_BUDGET` seconds to
start (from opening the lab's URL to an idle kernel with the notebook shown).
"""
import base64
import csv
import hashlib
import io
import json
import os
import re
import time
import zipfile
from pathlib import Path

import pytest

from kernelclf.book import lite

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("KERNELCLF_SITE", ROOT / "_build" / "html"))
CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("*.md")
                  if "kernelspec:" in p.read_text(encoding="utf-8")[:400])
#: seconds for a kernel to start, and for one chapter's Run All in Pyodide
KERNEL_TIMEOUT, RUN_TIMEOUT, WIDGET_TIMEOUT = 300, 900, 120
#: the budget (issue 41): seconds one chapter's Run All may take in the lab (two lanes on two
#: cores), and seconds the first kernel of a page may take to start, page load included. The
#: second is a guard against gross regressions, not the issue's goal (half the time of the lab
#: when the issue was filed, 7f32cec). Times this test printed before 86b405e are inflated: its
#: route on every request held each request until the next poll (a second); on an idle
#: machine its two first kernels took 16.7-21.7 s before that commit and 11.1-12.3 s after
#: (two runs each, the same site). Measured since with ``benchmarks.lite_kernel_start``
#: (corrected harness, old and new labs interleaved, 4 rounds, 2-core machine otherwise idle:
#: load 1.1-4.1 from the runs themselves, 2026-11-30): two lanes started together, every lane
#: 15.3-17.7 s at 7f32cec against 10.5-12.8 s at 86b405e (medians of the slower lane 16.8 and
#: 11.5 s); one lane 10.6-11.2 against 6.5-7.1 s (medians 10.9 and 6.9 s)
RUN_BUDGET = float(os.environ.get("KERNELCLF_LITE_RUN_BUDGET", "60"))
KERNEL_BUDGET = float(os.environ.get("KERNELCLF_LITE_KERNEL_BUDGET", "45"))
#: MyST markup a reader must never see (directives, roles, labels, directive options)
RAW_MYST = re.compile(r"```\s*\{[\w:.-]+\}|\{[\w:.-]+\}`|^\s*\([\w:.-]+\)=\s*$|^\s*:(class|label|tags):",
                      re.M)


# ------------------------------------------------------------------ build pieces

def test_build_wheel_is_a_valid_wheel(tmp_path):
    whl = lite.build_wheel(ROOT / "kernelclf", tmp_path)
    assert whl.name == "kernelclf-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl) as zf:
        assert zf.testzip() is None
        names = set(zf.namelist())
        record = zf.read("kernelclf-0.1.0.dist-info/RECORD").decode()
        rows = list(csv.reader(io.StringIO(record)))
        assert {r[0] for r in rows} == names
        for name, digest, size in rows:
            if name.endswith("RECORD"):
                continue
            data = zf.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data)
        assert "Root-Is-Purelib: true" in zf.read("kernelclf-0.1.0.dist-info/WHEEL").decode()
    expected = {f"kernelclf/{p.relative_to(ROOT / 'kernelclf').as_posix()}"
                for p in (ROOT / "kernelclf").rglob("*.py") if "__pycache__" not in p.parts}
    assert expected <= names
    # reproducible: the same bytes twice
    again = lite.build_wheel(ROOT / "kernelclf", tmp_path / "again")
    assert again.read_bytes() == whl.read_bytes()


def test_extend_lock_adds_entries_with_hashes(tmp_path):
    whl = lite.build_wheel(ROOT / "kernelclf", tmp_path)
    fake = {}
    for dist in lite.LITE_WHEELS:
        path = tmp_path / f"{dist}-1.0-py3-none-any.whl"
        path.write_bytes(dist.encode())
        fake[dist] = path
    base = {"numpy", "scipy", "scikit-learn", "matplotlib", "joblib", "traitlets", "ipython"}
    lock = {"info": {"version": lite.PYODIDE_VERSION},
            "packages": {n: {"name": n} for n in base}}
    lite.extend_lock(lock, [whl, *fake.values()])
    entry = lock["packages"]["kernelclf"]
    assert entry["file_name"] == whl.name and entry["imports"] == ["kernelclf"]
    assert entry["sha256"] == hashlib.sha256(whl.read_bytes()).hexdigest()
    assert set(entry["depends"]) <= set(lock["packages"])
    assert lock["packages"]["jupyterlab-widgets"]["sha256"] == hashlib.sha256(
        b"jupyterlab_widgets").hexdigest()
    with pytest.raises(ValueError, match="depends"):
        lite.extend_lock({"packages": {}}, [whl])
    with pytest.raises(ValueError, match="no lock entry"):
        other = tmp_path / "other-1.0-py3-none-any.whl"
        other.write_bytes(b"x")
        lite.extend_lock(lock, [other])


def test_start_closure_follows_dependencies_in_either_spelling():
    lock = {"packages": {"ipython": {"depends": ["prompt_toolkit", "traitlets"]},
                         "prompt-toolkit": {"depends": ["wcwidth"]}, "wcwidth": {"depends": []},
                         "traitlets": {"depends": []}, "numpy": {"depends": []},
                         "pyodide-kernel": {"depends": ["ipython", "absent"]}}}
    assert lite.start_closure(lock, ["pyodide_kernel"]) == [
        "ipython", "prompt-toolkit", "pyodide-kernel", "traitlets", "wcwidth"]
    assert lite.start_closure(lock, ["numpy"]) == ["numpy"]


def test_extend_lock_takes_the_kernel_wheels(tmp_path):
    base = {"micropip", "traitlets", "ipython", "comm", "jedi", "ssl", "sqlite3"}
    lock = {"packages": {n: {"name": n} for n in base}}
    wheels = []
    for dist in lite.KERNEL_WHEELS:
        wheels.append(tmp_path / f"{dist}-0.6.1-py3-none-any.whl")
        wheels[-1].write_bytes(dist.encode())
    lite.extend_lock(lock, wheels)
    entry = lock["packages"]["pyodide-kernel"]
    assert entry["imports"] == ["pyodide_kernel"] and "piplite" in entry["depends"]
    assert entry["sha256"] == hashlib.sha256(b"pyodide_kernel").hexdigest()
    # every name the worker checks in loadPyodideOptions is in the lock (either spelling)
    assert len(lite.start_closure(lock)) >= len(lite.KERNEL_START_PACKAGES)


def _pyodide_dir():
    path = os.environ.get("KERNELCLF_PYODIDE") or str(ROOT.parent / "shared" / "pyodide-0.27.7")
    return Path(path) if (Path(path) / "pyodide.mjs").is_file() else None


def test_precompile_wheels_adds_pyodide_bytecode(tmp_path):
    import shutil

    if not (shutil.which("node") or shutil.which("nodejs")) or _pyodide_dir() is None:
        pytest.skip("needs Node.js and a local Pyodide (KERNELCLF_PYODIDE)")
    pkg = tmp_path / "src" / "demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("__version__ = '1.0'\nX = sum(range(4))\n")
    (pkg / "broken.py").write_text("def f(:\n")          # stays source only
    whl = lite.build_wheel(pkg, tmp_path / "dist")
    before = set(zipfile.ZipFile(whl).namelist())
    counts = lite.precompile_wheels(_pyodide_dir(), [whl], work=tmp_path / "work")
    assert counts == {whl.name: 1}
    with zipfile.ZipFile(whl) as zf:
        assert zf.testzip() is None
        added = set(zf.namelist()) - before
        assert added == {"demo/__pycache__/__init__.cpython-312.pyc"}
        pyc = zf.read(added.pop())
        record = zf.read("demo-1.0.dist-info/RECORD").decode()
    # CPython 3.12's magic number (3531), then the flags of an unchecked hash-based pyc
    assert pyc[:4] == (3531).to_bytes(2, "little") + b"\r\n"
    assert int.from_bytes(pyc[4:8], "little") == 0b01
    digest = base64.urlsafe_b64encode(hashlib.sha256(pyc).digest()).rstrip(b"=").decode()
    assert f"demo/__pycache__/__init__.cpython-312.pyc,sha256={digest},{len(pyc)}" in record


def test_precompile_wheels_compiles_a_standard_library_zip(tmp_path):
    """A ``.zip`` among the paths is taken for Pyodide's standard library: each module that
    compiles gets ``<module>.pyc`` beside its source (where ``zipimport`` looks), an unchecked
    hash-based pyc of Pyodide's CPython whose code carries the file name zipimport gives the
    source; the other entries are unchanged."""
    import shutil

    if not (shutil.which("node") or shutil.which("nodejs")) or _pyodide_dir() is None:
        pytest.skip("needs Node.js and a local Pyodide (KERNELCLF_PYODIDE)")
    stdlib = tmp_path / "python_stdlib.zip"
    entries = {"demo.py": b"X = sum(range(4))\n", "pkg/__init__.py": b"Y = 2\n",
               "broken.py": b"def f(:\n", "pkg/data.txt": b"not python\n"}
    with zipfile.ZipFile(stdlib, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    counts = lite.precompile_wheels(_pyodide_dir(), [stdlib], work=tmp_path / "work")
    assert counts == {stdlib.name: 2}
    with zipfile.ZipFile(stdlib) as zf:
        assert zf.testzip() is None
        names = set(zf.namelist())
        assert names - set(entries) == {"demo.pyc", "pkg/__init__.pyc"}
        assert all(zf.read(name) == data for name, data in entries.items())
        pyc = zf.read("demo.pyc")
    assert pyc[:4] == (3531).to_bytes(2, "little") + b"\r\n"
    assert int.from_bytes(pyc[4:8], "little") == 0b01
    assert b"/lib/python312.zip/demo.py" in pyc


# the built lab exists only in make site-test's stage (after the book's build): these
# tests of it run there (in the unit stage they would always skip)
@pytest.mark.browser
def test_built_lab_imports_the_standard_library_from_bytecode(tmp_path):
    """The built lab's Pyodide (``make book`` with a local Pyodide), run under Node.js, imports
    standard library modules the kernel's start imports without compiling any source, from the
    pycs beside the sources in its zip; a traceback through such a module still shows its
    source line, and ``inspect`` still finds the source."""
    import shutil
    import subprocess

    target = SITE / "lite" / "pyodide"
    node = shutil.which("node") or shutil.which("nodejs")
    if not (target / "pyodide.mjs").is_file() or not node:
        pytest.skip(f"needs Node.js and a lab with a local Pyodide in {SITE}")
    with zipfile.ZipFile(target / "python_stdlib.zip") as zf:
        names = set(zf.namelist())
    sources = {n for n in names if n.endswith(".py")}
    assert len({n for n in sources if n + "c" in names}) >= 0.9 * len(sources)
    script = tmp_path / "check.mjs"
    script.write_text(f"""
const {{ loadPyodide }} = await import({json.dumps((target / "pyodide.mjs").as_uri())});
const py = await loadPyodide({{ indexURL: {json.dumps(str(target) + "/")} }});
console.log(py.runPython(`
import builtins, json
compiled, _compile = [], builtins.compile
builtins.compile = lambda s, f, *a, **k: (compiled.append(str(f)), _compile(s, f, *a, **k))[1]
import email.message, unittest.mock, urllib.request, inspect, traceback
builtins.compile = _compile
try:
    json.loads("[1, 2")
except ValueError:
    tb = traceback.format_exc()
json.dumps([compiled, json.__file__, tb, inspect.getsource(json.dumps)])
`));
""")
    out = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    compiled, file, tb, source = json.loads(out.stdout.strip().splitlines()[-1])
    assert not [f for f in compiled if f.startswith("/lib/")], compiled
    assert file == "/lib/python312.zip/json/__init__.pyc"
    assert 'json/decoder.py", line' in tb and "obj, end = self.scan_once(s, idx)" in tb
    assert source.startswith("def dumps(obj, *,")


@pytest.mark.browser
def test_built_lab_ships_the_bytecode_of_the_first_import():
    """In the built lab (``make book``), every wheel the kernel's start and the first
    ``import kernelclf`` load from the lock (:data:`lite.PRECOMPILED` and its dependencies)
    carries bytecode for its modules, and the lock's sha256 is that of the file served."""
    import json
    import shutil

    target = SITE / "lite" / "pyodide"
    if not (target / "pyodide-lock.json").is_file():
        pytest.skip(f"no lab with a local Pyodide in {SITE} (make book with KERNELCLF_PYODIDE)")
    if not (shutil.which("node") or shutil.which("nodejs")):
        pytest.skip("the build precompiles with Node.js, which is not installed")
    lock = json.loads((target / "pyodide-lock.json").read_text())
    closure = lite.start_closure(lock, lite.PRECOMPILED)
    assert {"kernelclf", "numpy", "scipy", "scikit-learn", "matplotlib", "ipython",
            "pyodide-kernel"} <= set(closure)
    for key in closure:
        entry = lock["packages"][key]
        if (entry.get("package_type") not in lite._WHEEL_TYPES
                or not entry["file_name"].endswith(".whl")):
            continue
        path = target / entry["file_name"]
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), key
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
        sources = {n for n in names if n.endswith(".py") and ".data/" not in n}
        compiled = {n for n in names if n.endswith(".cpython-312.pyc")}
        # a module that does not compile (a Python 2 leftover, say) stays source only
        assert not sources or len(compiled) >= 0.9 * len(sources), (key, len(compiled),
                                                                    len(sources))


def test_sitecustomize_searches_the_working_directory_last(tmp_path):
    """Run in CPython (whose ``-c`` puts ``''`` first, as Pyodide does): after the next
    import ``''`` is last on ``sys.path``, and a module in the working directory still
    imports."""
    import subprocess
    import sys

    (tmp_path / "reader_module.py").write_text("X = 7\n")
    code = (lite.SITECUSTOMIZE + "\nassert sys.path[0] == ''\n"
            "import reader_module, json\n"
            "assert sys.path[-1] == '' and '' not in sys.path[:-1], sys.path\n"
            "sys.path.insert(0, '')\nimport csv\n"    # moved once only: a reader's choice stays
            "assert sys.path[0] == ''\nprint(reader_module.X)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "7"


def test_add_sitecustomize_to_the_stdlib_zip(tmp_path):
    stdlib = tmp_path / "python_stdlib.zip"
    with zipfile.ZipFile(stdlib, "w") as zf:
        zf.writestr("os.py", "# os\n")
    stdlib.chmod(0o444)                          # a read-only copy of the shared file
    lite.add_sitecustomize(stdlib)
    with zipfile.ZipFile(stdlib) as zf:
        assert zf.testzip() is None
        assert zf.read("os.py") == b"# os\n"
        assert zf.read("sitecustomize.py").decode() == lite.SITECUSTOMIZE
    with pytest.raises(ValueError, match="already has"):
        lite.add_sitecustomize(stdlib)


@pytest.mark.browser
def test_built_lab_pyodide_searches_the_drive_last(tmp_path):
    """The built lab's Pyodide (``make book`` with a local Pyodide), run under Node.js: after
    start-up and one import, ``''`` (the working directory: the lab's drive in the kernel) is
    last on ``sys.path``, and a module in the working directory still imports."""
    import shutil
    import subprocess

    target = SITE / "lite" / "pyodide"
    node = shutil.which("node") or shutil.which("nodejs")
    if not (target / "pyodide.mjs").is_file() or not node:
        pytest.skip(f"needs Node.js and a lab with a local Pyodide in {SITE}")
    script = tmp_path / "check.mjs"
    script.write_text(f"""
const {{ loadPyodide }} = await import({json.dumps((target / "pyodide.mjs").as_uri())});
const py = await loadPyodide({{ indexURL: {json.dumps(str(target) + "/")} }});
py.FS.mkdirTree("/drive/sub");
py.FS.writeFile("/drive/sub/reader_module.py", "X = 7\\n");
py.FS.chdir("/drive/sub");
console.log(py.runPython("import sys, json, reader_module; json.dumps([sys.path, reader_module.X])"));
""")
    out = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    path, x = json.loads(out.stdout.strip().splitlines()[-1])
    assert path[-1] == "" and "" not in path[:-1], path
    assert x == 7


def test_lite_config_names_pyodide_and_disables_pypi():
    cfg = lite.lite_config("./pyodide/pyodide.js")
    kernel = cfg["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel == {"pyodideUrl": "./pyodide/pyodide.js", "disablePyPIFallback": True}
    cdn = lite.lite_config(lite.PYODIDE_CDN, preload=["a.whl"])
    kernel = cdn["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert "v0.27.7/full/pyodide.js" in kernel["pyodideUrl"]
    assert kernel["loadPyodideOptions"] == {"packages": ["a.whl"]}


def test_copy_data_matches_the_registry(tmp_path):
    from kernelclf.datasets import REGISTRY, data_home

    if not (data_home() / "raetsch").is_dir():
        pytest.skip("no data home with the Raetsch benchmarks (set KERNELCLF_DATA)")
    copied = lite.copy_data(tmp_path)
    assert copied
    for spec in REGISTRY.values():
        for fname, sha in spec.files:
            rel = f"{spec.folder}/{fname}"
            if rel in copied:
                assert hashlib.sha256((tmp_path / rel).read_bytes()).hexdigest() == sha


def test_data_home_inside_pyodide(monkeypatch):
    from kernelclf.datasets import _registry

    monkeypatch.delenv("KERNELCLF_DATA", raising=False)
    monkeypatch.setattr(_registry.sys, "platform", "emscripten")
    assert str(_registry.data_home()) == _registry.LITE_DATA_HOME


# ------------------------------------------------------------------ browser

_KERNEL = """() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  return k ? {id: k.id, status: k.status, path: p.context.path} : null; }"""
_STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = [], list = panel.content.model.cells;
  for (let i = 0; i < list.length; i++) {
    const c = list.get(i);
    if (c.type !== 'code') continue;
    const errors = c.outputs.toJSON().filter(o => o.output_type === 'error')
                    .map(o => o.ename + ': ' + o.evalue);
    cells.push({count: c.executionCount, errors, source: c.sharedModel.getSource().slice(0, 60)});
  }
  return {status: kernel ? kernel.status : 'none', cells};
}"""
#: JupyterLite 0.6's session service starts a new kernel for every new session, even when
#: asked for a running one by id (JupyterLab's "use the kernel of another session"); this
#: lets a session ask for a running kernel, so one Pyodide serves several chapters in turn
_ATTACH = """async ([path, kid]) => {
  const app = window.jupyterapp;
  const api = app.serviceManager.sessions._sessionAPIClient;
  if (!api.kernelclfAttach) {
    const startNew = api.startNew.bind(api);
    api.startNew = async (o) => {
      if (!(o.kernel && o.kernel.id)) return startNew(o);
      const model = {id: crypto.randomUUID(), path: o.path, name: o.name || o.path,
                     type: o.type || 'notebook', kernel: {id: o.kernel.id, name: 'python'}};
      api._sessions.push(model);
      return model;
    };
    api.kernelclfAttach = true;
  }
  const old = app.shell.currentWidget;
  await app.commands.execute('docmanager:open', {path, kernel: {id: kid, name: 'python'}});
  if (old && old !== app.shell.currentWidget) {
    old.context.model.dirty = false;
    old.dispose();                     // the kernel stays: a notebook's kernel outlives it
  }
}"""
#: what a chapter finds in a kernel a previous chapter used: no user names, no figures,
#: no widgets (modules stay imported: that is the time saved)
RESET = ("%reset -f\n"
         "import gc as _gc, matplotlib.pyplot as _plt, ipywidgets as _w\n"
         "_plt.close('all'); _w.Widget.close_all(); del _gc, _plt, _w\n"
         "%reset -f\n"
         "import gc; gc.collect(); del gc\n"
         "assert not [n for n in globals() if not n.startswith('_') and n not in "
         "('In', 'Out', 'exit', 'quit', 'get_ipython', 'open')], sorted(globals())")
#: starts code on the page's kernel and returns at once (a page.evaluate that awaited the
#: kernel would hold up every other lane): the errors land in window.kernelclfReset
_EXECUTE = """(code) => {
  const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const errors = [];
  window.kernelclfReset = null;
  const f = k.requestExecute({code, store_history: false});
  f.onIOPub = m => { if (m.header.msg_type === 'error')
                       errors.push(m.content.ename + ': ' + m.content.evalue); };
  f.done.then(reply => {
    if (reply.content.status !== 'ok') errors.push('reset: ' + reply.content.status);
    window.kernelclfReset = errors;
  }, e => { window.kernelclfReset = ['reset: ' + e]; });
}"""


def _exercise_prefix(chapter):
    """``03_perceptron`` -> ``ch03``, ``02b_string_kernels`` -> ``ch02b``, the appendix ->
    ``appa``; ``None`` for a page without numbered exercises."""
    if chapter.startswith("appendix_a"):
        return "appa"
    m = re.match(r"(\d\d[a-z]?)_", chapter)
    return f"ch{m.group(1)}" if m else None


def exercise_for(chapter):
    """One checkable exercise of the chapter (issue 28): the first whose solution and first
    recorded mistake are stored values (else the first): ``(label, hint of that mistake)``."""
    from kernelclf.book.exercises import registry

    prefix = _exercise_prefix(chapter)
    entries = [e for label, e in sorted(registry().items())
               if prefix and label.startswith(prefix + "-ex-") and e.mistakes]
    if not entries:
        return None
    plain = [e for e in entries if e.kind != "function" and not callable(e.solution)
             and not callable(e.mistakes[0][0])]
    ex = (plain or entries)[0]
    return ex.label, ex.mistakes[0][1]


#: a cell added at the end of the chapter in the lab: the checker on the worked solution's
#: answer, then on the first recorded mistake
_CHECK_CODE = """from kernelclf.book.exercises import check as _check, registry as _registry
_ex = _registry()[{label!r}]
display(_check({label!r}, _ex.answer))
display(_check({label!r}, _ex._value(("mistake", 0), _ex.mistakes[0][0])))"""


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if _exercise_prefix(c)])
def test_lab_exercise_cell_in_python(chapter, monkeypatch):
    """The cell the browser test adds at the end of a chapter (``_CHECK_CODE``), run here in
    Python on every checkable exercise of the chapter (the browser run checks the one
    ``exercise_for`` picks, in Pyodide): ✔ on the answer, ✘ with the recorded hint on the
    first mistake, and the right answer counts in the chapter's progress."""
    import kernelclf.book.exercises as exercises

    monkeypatch.setattr(exercises, "_STATUS", {})
    prefix = _exercise_prefix(chapter)
    labels = sorted(lab for lab in exercises.registry() if lab.startswith(prefix + "-ex-"))
    assert len(labels) >= 3, f"{chapter}: {labels}"
    assert exercise_for(chapter)[0] in labels
    for label in labels:
        shown = []
        exec(_CHECK_CODE.format(label=label), {"display": lambda r: shown.append(repr(r))})
        hint = exercises.registry()[label].mistakes[0][1]
        assert shown[0].startswith(f"\u2714 {label}:"), shown[0][:120]
        assert shown[1].startswith(f"\u2718 {label}:") and hint in shown[1], shown[1][:120]
    assert exercises.progress(prefix).done == len(labels)


_ADD_CELL = """async (code) => {
  const app = window.jupyterapp, nb = app.shell.currentWidget.content;
  nb.activeCellIndex = nb.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  nb.activeCell.model.sharedModel.setSource(code);
  window.kernelclfCheckCell = nb.activeCell;
  app.commands.execute('notebook:run-cell');   // not awaited: the lanes poll, none waits
}"""
_CHECK_OUTPUT = """() => { const c = window.kernelclfCheckCell;
  const errors = c.model.outputs.toJSON().filter(o => o.output_type === 'error')
                  .map(o => o.ename + ': ' + o.evalue);
  return {count: c.model.executionCount, n: c.model.outputs.length, errors,
          text: Array.from(c.node.querySelectorAll('.jp-OutputArea-output'))
                     .map(o => o.innerText.trim())}; }"""


class _Chapter:
    """What one chapter did in the lab: times, errors, the widget and exercise checks."""

    def __init__(self, chapter):
        self.chapter, self.errors, self.widget = chapter, [], "no widget"
        self.exercise = "no checker"
        self.kernel_s = self.run_s = None
        self.attached = False          # True: ran on a kernel an earlier chapter started


class _Lane:
    """One page of the lab with one Pyodide kernel, running chapters one after another.

    The first chapter opens with the lab (``lite/lab/index.html?path=...``) and starts the
    kernel; each next one opens in the same page, attached to that kernel after the
    namespace is reset (:data:`RESET`), and the previous notebook is closed. Per chapter:
    open, wait for the kernel, Run All, poll, move a widget control.
    """

    def __init__(self, context, base, todo, on_done):
        from _browser import _move, _shown

        self._move, self._shown = _move, _shown
        self.todo, self.on_done, self.kid, self.base = todo, on_done, None, base
        self.page = context.new_page()
        self.page.on("pageerror", lambda e: self.current and self.current.errors.append(
            f"page error: {e}"))
        self.current = None
        self.start()

    def start(self):
        """Open the next chapter; False when none is left."""
        if not self.todo:
            self.current = None
            return False
        self.current = _Chapter(self.todo.pop(0))
        path = f"{self.current.chapter}.ipynb"
        self.t0, self.stage = time.monotonic(), "kernel"
        if self.kid is None:
            self.page.goto(f"{self.base}/lite/lab/index.html?path={path}", timeout=60_000)
        else:
            self.current.attached, self.stage = True, "reset"
            self.page.evaluate(_EXECUTE, RESET)
        return True

    def poll(self):
        """Advance the current chapter; True when the lane has nothing left to do."""
        run, now = self.current, time.monotonic()
        if run is None:
            return True
        if self.stage == "reset":
            reset = self.page.evaluate("() => window.kernelclfReset")
            if reset is not None:
                if reset:
                    run.errors.append(f"resetting the kernel failed: {reset}")
                    return self._finish()
                self.page.evaluate(_ATTACH, [run.chapter + ".ipynb", self.kid])
                self.stage = "kernel"
            elif now - self.t0 > KERNEL_TIMEOUT:
                run.errors.append(f"resetting the kernel took over {KERNEL_TIMEOUT} s")
                return self._finish()
            return False
        if self.stage == "kernel":
            k = self.page.evaluate(_KERNEL)
            if k and k["status"] == "idle" and k["path"] == f"{run.chapter}.ipynb":
                if self.kid is not None and k["id"] != self.kid:
                    run.errors.append("the chapter did not attach to the running kernel")
                self.kid = k["id"]
                run.kernel_s = now - self.t0
                text = "\n".join(self.page.locator(
                    ".jp-NotebookPanel .jp-RenderedMarkdown").all_inner_texts())
                raw = RAW_MYST.search(text)
                if not text.strip() or raw:
                    run.errors.append(f"raw MyST in the lab: {raw.group(0) if raw else 'no text'}")
                # started, not awaited (a returned promise would hold up the other lanes)
                self.page.evaluate("() => { window.jupyterapp.commands.execute("
                                   "'notebook:run-all-cells'); }")
                self.t1, self.stage = now, "run"
            elif now - self.t0 > KERNEL_TIMEOUT:
                run.errors.append(f"the kernel did not start within {KERNEL_TIMEOUT} s")
                return self._finish()
            return False
        if self.stage == "run":
            state = self.page.evaluate(_STATE)
            failed = [f"{c['source']!r}: {e}" for c in state["cells"] for e in c["errors"]]
            done = state["status"] == "idle" and all(c["count"] for c in state["cells"])
            if failed or done or now - self.t1 > RUN_TIMEOUT:
                run.run_s = now - self.t1
                run.errors += failed
                if not (failed or done):
                    left = [c["source"] for c in state["cells"] if not c["count"]]
                    run.errors.append(f"Run All did not finish in {RUN_TIMEOUT} s: {left[:2]}")
                if run.errors:
                    return self._finish()
                self._start_widget()
                if self.stage == "done":
                    return self._start_exercise()
            return False
        if self.stage == "widget":
            if self._shown(self.explorer) != self.before:
                run.widget = f"{self.how}: the output changed after {now - self.t2:.1f} s"
                return self._start_exercise()
            if now - self.t2 > WIDGET_TIMEOUT:
                run.errors.append(f"moving the widget ({self.how}) did not change its output "
                                  f"within {WIDGET_TIMEOUT} s")
                return self._finish()
        if self.stage == "exercise":
            out = self.page.evaluate(_CHECK_OUTPUT)
            if out["errors"]:
                run.errors.append(f"the exercise check failed: {out['errors']}")
                return self._finish()
            if out["count"] and out["n"] >= 2:
                right, wrong = out["text"][:2] if len(out["text"]) >= 2 else ("", "")
                label, hint = self.check
                if not right.startswith(f"\u2714 {label}"):
                    run.errors.append(f"check({label!r}, right answer) shows {right[:120]!r}")
                elif not (wrong.startswith(f"\u2718 {label}") and hint[:60] in wrong):
                    run.errors.append(f"check({label!r}, recorded mistake) shows {wrong[:120]!r}, "
                                      f"not \u2718 with its hint {hint[:60]!r}")
                else:
                    run.exercise = f"{label}: \u2714 on the answer, \u2718 with the hint on a mistake"
                return self._finish()
            if now - self.t3 > WIDGET_TIMEOUT:
                run.errors.append(f"the exercise check did not finish within {WIDGET_TIMEOUT} s")
                return self._finish()
        return False

    def _start_exercise(self):
        """Add a cell that runs the chapter's checker on a right and a wrong answer."""
        self.check = exercise_for(self.current.chapter)
        if self.check is None:
            return self._finish()
        self.page.evaluate(_ADD_CELL, _CHECK_CODE.format(label=self.check[0]))
        self.t3, self.stage = time.monotonic(), "exercise"
        return False

    def _finish(self):
        run = self.current
        self.on_done(run)
        if run.errors:
            self.kid = None            # after a failure the next chapter starts a new page
        try:
            return not self.start()
        except Exception as exc:       # the page is unusable: report it on the next chapter
            if self.current is not None:
                self.current.errors.append(f"opening the chapter failed: {exc}")
                self.on_done(self.current)
            return True

    def _start_widget(self):
        explorers = self.page.locator(".jp-NotebookPanel .kernelclf-explorer")
        if not explorers.count():
            self.stage = "done"
            return
        self.explorer = explorers.first
        self.explorer.scroll_into_view_if_needed()
        self.before = self._shown(self.explorer)
        control = self.explorer.locator(".widget-slider, .widget-dropdown, .widget-toggle-buttons")
        self.how = _move_in_lab(self.page, control.first, self._move)
        self.t2, self.stage = time.monotonic(), "widget"


def _move_in_lab(page, control, move):
    """Move a control as a reader does. Sliders are dragged with the mouse by a bit more
    than one step (in the notebook, arrow keys belong to the notebook's own shortcuts);
    drop-downs and toggle buttons as on the static pages."""
    handle = control.locator(".noUi-handle")
    if not handle.count():
        return move(page, control)
    low, now, top = (float(handle.get_attribute(f"aria-value{k}")) for k in ("min", "now", "max"))
    box, track = handle.bounding_box(), control.locator(".noUi-base").bounding_box()
    step = track["width"] / max(top - low, 1e-12)  # one unit of the slider's value
    sign = 1 if now < top else -1
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + sign * max(1.2 * step, 0.15 * track["width"]), y, steps=6)
    page.mouse.up()
    return f"slider dragged {'right' if sign > 0 else 'left'} from {now:g}"


#: pages of the lab running at once (each with its own kernel); the machine has two cores
LANES = int(os.environ.get("KERNELCLF_LITE_LANES", "2"))


#: Run All seconds per chapter in the lab, measured (two lanes on a 2-core machine at load
#: 5-14, 2026-11-29; only their order matters here); a chapter not listed counts as 10 s
RUN_SECONDS = {"17_": 160, "10_": 107, "01_": 82, "13_": 82, "12_": 70, "07_": 58, "11_": 55,
               "15_": 45, "14_": 44, "02b": 42, "05_": 37, "16_": 30, "02_": 29, "03_": 29,
               "04_": 23, "app": 22, "18_": 21}


def _order(chapters):
    """Longest-running chapters first, so that the lanes, each taking the next chapter when
    it is free, end together (longest processing time first), except that each lane opens
    with one of the shortest chapters: a lane's first chapter also pays its kernel's first
    imports (numpy, SciPy, scikit-learn, matplotlib, kernelclf; about 10 s), which the
    budget is not about. A long chapter opened first in a fresh lab takes those seconds
    more: chapter 17 took 60.4 s as a lane's first chapter in the fresh-clone run of
    2026-11-29, about 49 s on a warm kernel."""
    def seconds(c):
        return next((v for k, v in RUN_SECONDS.items() if c.startswith(k)), 10)
    longest_first = sorted(chapters, key=lambda c: (-seconds(c), c))
    openers = sorted(chapters, key=lambda c: (seconds(c), c))[:LANES]
    return openers + [c for c in longest_first if c not in openers]


@pytest.fixture(scope="module")
def lite_results(request):
    """Run every chapter in the lab: ``{chapter: _Chapter}``, and the URLs that tried to
    leave the machine. :data:`LANES` pages of the lab (one browser context each), each with
    one kernel that runs its chapters in turn."""
    from _browser import block_foreign, chromium, serve

    if not (SITE / "lite" / "jupyter-lite.json").is_file():
        pytest.fail(f"no in-browser lab in {SITE}/lite: build the site first (make book)")

    # the chapters selected (``-k``), or all of them
    chosen = [item.callspec.params["chapter"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_chapter_runs_in_the_browser"]
    outside, results, todo = [], {}, _order(chosen or CHAPTERS)
    t_start = time.monotonic()

    def done(run):
        results[run.chapter] = run
        print(f"lite {run.chapter}: {'attach' if run.attached else 'kernel start'} "
              f"{run.kernel_s or 0:.1f} s, run all {run.run_s or 0:.1f} s, widget: {run.widget}; "
              f"exercise: {run.exercise}; "
              f"{'errors: ' + '; '.join(run.errors) if run.errors else 'ok'}", flush=True)

    with serve(SITE) as base:
        # no host but the loopback resolves, whatever makes the request (page, worker,
        # service worker); the route also records and aborts other origins
        with chromium(["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]) as browser:
            # a context per lane: two labs starting at once in one context race for the
            # same IndexedDB (the lab's file store) and one of them never starts
            lanes = []
            for _ in range(min(LANES, len(todo))):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                block_foreign(context, base, outside)
                lanes.append(_Lane(context, base, todo, done))
            while lanes:
                # every lane is polled more often while one waits for its kernel (whose time
                # is measured against the budget)
                time.sleep(0.2 if any(lane.stage == "kernel" for lane in lanes) else 1.0)
                for lane in list(lanes):
                    if lane.poll():
                        lanes.remove(lane)
                        lane.page.context.close()
    print(f"lite: {len(results)} chapters in {time.monotonic() - t_start:.0f} s", flush=True)
    return results, outside


def over_budget(run):
    """What of a chapter's run in the lab is over the budget (:data:`RUN_BUDGET`,
    :data:`KERNEL_BUDGET`): a list of messages naming the chapter and its time."""
    over = []
    if run.run_s is None or run.run_s > RUN_BUDGET:
        over.append(f"{run.chapter}: Run All took {run.run_s or 0:.1f} s in the lab, over the "
                    f"budget of {RUN_BUDGET:g} s")
    if not run.attached and (run.kernel_s is None or run.kernel_s > KERNEL_BUDGET):
        over.append(f"{run.chapter}: the page's first kernel took {run.kernel_s or 0:.1f} s to "
                    f"start, over the budget of {KERNEL_BUDGET:g} s")
    return over


def test_over_budget_names_the_chapter_and_its_time():
    run = _Chapter("11_kernel_billiard")
    run.kernel_s, run.run_s = KERNEL_BUDGET - 1, RUN_BUDGET - 0.1
    assert over_budget(run) == []
    run.run_s = RUN_BUDGET + 1.25
    (msg,) = over_budget(run)
    assert msg.startswith("11_kernel_billiard: Run All took ") and f"{RUN_BUDGET + 1.25:.1f} s" in msg
    run.run_s, run.kernel_s = 1.0, KERNEL_BUDGET + 3
    (msg,) = over_budget(run)
    assert "first kernel" in msg and f"{KERNEL_BUDGET + 3:.1f} s" in msg
    run.attached = True                 # an attached chapter started no kernel
    assert over_budget(run) == []
    run.run_s = None                    # a run that never finished is over the budget too
    assert len(over_budget(run)) == 1


@pytest.mark.browser
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_in_the_browser(lite_results, chapter):
    results, _ = lite_results
    assert chapter in results, f"{chapter} was not run"
    run = results[chapter]
    print(f"{chapter}: {'attach' if run.attached else 'kernel start'} {run.kernel_s or 0:.1f} s, "
          f"run all {run.run_s or 0:.1f} s, widget: {run.widget}")
    assert not run.errors, "\n".join(run.errors)
    over = over_budget(run)
    assert not over, "\n".join(over)
    source = (ROOT / "book" / f"{chapter}.md").read_text(encoding="utf-8")
    if re.search(r"^[^#\n]*explore\(", source, re.M):
        assert "output changed" in run.widget, run.widget
    if exercise_for(chapter) is not None:
        assert "\u2714 on the answer" in run.exercise, run.exercise


@pytest.mark.browser
def test_no_request_leaves_the_machine(lite_results):
    _, outside = lite_results
    assert not outside, f"requests to other hosts: {sorted(set(outside))[:10]}"
