"""Rounding to Kiln's 8-bit floats as the compiled code does it (the
``tile-expand-float8`` pass, PTX's ``cvt.rn.satfinite``): to nearest
even, a magnitude past the largest finite value (infinity included)
saturating to it, a NaN of either sign becoming the format's canonical
(positive) NaN. ml_dtypes' own conversion gives NaN or infinity past the
range instead, and keeps a NaN's sign, so the front end and the
interpreter round through this.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


def saturated(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` (any float or integer array) as ``dtype``, an 8-bit
    float, rounded and saturated as compiled."""
    wide = np.asarray(values).astype(np.float32)
    largest = np.float32(ml_dtypes.finfo(dtype).max)
    with np.errstate(invalid="ignore"):
        clipped = np.where(np.isnan(wide), np.float32(np.nan),
                           np.clip(wide, -largest, largest))
    return clipped.astype(np.float32).astype(dtype)


def bits(value: float, dtype: np.dtype) -> int:
    """The code (0 to 255) of the Python number ``value`` as ``dtype``."""
    return int(saturated(np.float32(value), dtype).view(np.uint8))
