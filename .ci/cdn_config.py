"""Write a copy of _config.yml that loads MathJax and the widget manager from CDNs.

Used by `make book` when npm is unavailable and the vendored files are missing.
Usage: python .ci/cdn_config.py _config.yml OUT.yml
"""
import sys

import yaml

src, out = sys.argv[1], sys.argv[2]
with open(src, encoding="utf-8") as fh:
    cfg = yaml.safe_load(fh)
sphinx_cfg = cfg.get("sphinx", {}).get("config", {})
for key in ("html_extra_path", "mathjax_path", "nb_ipywidgets_js"):
    sphinx_cfg.pop(key, None)
with open(out, "w", encoding="utf-8") as fh:
    yaml.safe_dump(cfg, fh, sort_keys=False)
