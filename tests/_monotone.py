"""Test helper: strict monotonicity of a sampled curve (the bound tests of chapters 14-15)."""
import numpy as np


def decreasing(a):
    """Every step of ``a`` goes down."""
    return bool(np.all(np.diff(np.asarray(a, dtype=float)) < 0))


def increasing(a):
    """Every step of ``a`` goes up."""
    return bool(np.all(np.diff(np.asarray(a, dtype=float)) > 0))
