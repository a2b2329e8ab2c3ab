"""Operations over whole arrays built from Kiln kernels, for use in
models: ``attention`` (flash attention, forward and backward) and
``matmul`` (tiles, split-K or stream-K, chosen by shape; 16-bit floats,
and 8-bit ones with per-tensor scales)."""

from kiln.ops.flash_attention import attention
from kiln.ops.gemm import matmul

__all__ = ["attention", "matmul"]
