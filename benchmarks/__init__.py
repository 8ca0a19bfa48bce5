"""Performance ratios of kernelclf against peer libraries, measured in one run.

Importing this package pins BLAS/OpenMP to one thread *before* numpy is loaded,
so ``python -m benchmarks.<name>`` times every solver single-threaded.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
