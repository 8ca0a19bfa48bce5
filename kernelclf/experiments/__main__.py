"""``python -m kernelclf.experiments COMMAND``: see :mod:`kernelclf.experiments.cli`.

Book chapters 12 and 13 (``book/12_bpm_experiments.md``, ``book/13_relative_margin_machines.md``).
"""
import sys

from .cli import main

sys.exit(main())
