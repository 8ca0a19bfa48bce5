"""Run every benchmark module in this folder: ``python -m benchmarks`` (``make bench``).

Each module (``python -m benchmarks.svm`` etc.) times kernelclf against a peer in the
same process, with single-threaded BLAS, prints a table and writes JSON to
``benchmarks/results/``. Benchmarks report ratios; they are never run as tests.
"""
import importlib
import pkgutil
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))
only = sys.argv[1:]
for name in names:
    if only and name not in only:
        continue
    print(f"\n=== benchmarks.{name} ===", flush=True)
    module = importlib.import_module(f"benchmarks.{name}")
    module.main([])
