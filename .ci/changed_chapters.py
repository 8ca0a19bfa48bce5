"""The book chapters a change touches, for ``make check``: one path a line.

A chapter counts as changed when its source ``book/<name>.md`` differs from the base branch
(``KERNELCLF_BASE``, default ``origin/main`` when it exists, else ``main``: committed and
uncommitted changes) or is new and not yet tracked. Non-notebook pages are left out.
"""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(*args):
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.split("\n") if out.returncode == 0 else []


def base():
    if os.environ.get("KERNELCLF_BASE"):
        return os.environ["KERNELCLF_BASE"]
    has_origin = subprocess.run(["git", "rev-parse", "--verify", "-q", "origin/main"], cwd=ROOT,
                                capture_output=True).returncode == 0
    return "origin/main" if has_origin else "main"


def changed():
    names = set(_git("diff", "--name-only", base(), "--", "book"))
    names |= set(_git("ls-files", "--others", "--exclude-standard", "--", "book"))
    found = []
    for name in sorted(n for n in names if n.endswith(".md")):
        path = ROOT / name
        if path.parent == ROOT / "book" and path.is_file() and \
                "kernelspec:" in path.read_text(encoding="utf-8")[:600]:
            found.append(name)
    return found


if __name__ == "__main__":
    print("\n".join(changed()))
