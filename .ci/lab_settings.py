"""Make JupyterLab open the MyST chapters as notebooks (jupytext's viewer).

Writes `{sys.prefix}/share/jupyter/lab/settings/overrides.json` inside the venv.
"""
import json
import sys
from pathlib import Path

path = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
path.parent.mkdir(parents=True, exist_ok=True)
settings = json.loads(path.read_text()) if path.exists() else {}
settings.setdefault("@jupyterlab/docmanager-extension:plugin", {})["defaultViewers"] = {
    "markdown": "Jupytext Notebook",
    "myst": "Jupytext Notebook",
}
path.write_text(json.dumps(settings, indent=2))
print(f"JupyterLab opens .md files as notebooks ({path})")
