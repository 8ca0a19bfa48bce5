"""The 'API:' line of each chapter, from the kernelclf imports of its code cells."""
import ast
import importlib
import sys
from pathlib import Path

import jupytext

sys.path.insert(0, str(Path(__file__).parent))
from api_pages import assigned, data_home, kind, private  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ROLE = {"class": "py:class", "exception": "py:exc", "function": "py:func", "data": "py:data",
        "module": "py:mod"}


def target(modname, name):
    """(role, documented id, shown text) of ``from modname import name``."""
    mod = importlib.import_module(modname)
    if hasattr(mod, name):
        obj = getattr(mod, name)
    else:
        obj = importlib.import_module(f"{modname}.{name}")
    k = kind(obj)
    if k == "module":
        return ROLE[k], obj.__name__, obj.__name__
    if k == "data":
        home = modname if name in assigned(modname) else data_home(modname, name)
        if private(home):
            home = ".".join(p for p in home.split(".") if not p.startswith("_"))
        return ROLE[k], f"{home}.{name}", name
    home = obj.__module__
    if private(home):
        home = modname  # documented at the family level
    return ROLE[k], f"{home}.{obj.__name__}", name


def chapter_targets(path):
    nb = jupytext.read(path)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        src = "\n".join(l for l in cell.source.splitlines() if not l.startswith(("%", "!")))
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kernelclf") \
                    and not node.module.startswith("kernelclf.book") and node.module != "kernelclf.book":
                for a in node.names:
                    if a.name.startswith("_") or a.name == "*":
                        continue
                    found.append(target(node.module, a.name))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("kernelclf") and not a.name.startswith("kernelclf.book"):
                        found.append(("py:mod", a.name, a.name))
    seen, out = set(), []
    for t in found:
        if t[1] not in seen:
            seen.add(t[1])
            out.append(t)
    return out


def api_line(path):
    items = chapter_targets(path)
    if not items:
        return None
    roles = ", ".join(f"{{{r}}}`{text} <{full}>`" for r, full, text in items)
    return f"**API:** {roles}."


if __name__ == "__main__":
    for path in sorted((ROOT / "book").glob("*.md")):
        head = path.read_text()[:400]
        if "kernelspec:" not in head or path.stem == "sklearn_guide":
            continue
        print(path.stem, "->", api_line(path))
