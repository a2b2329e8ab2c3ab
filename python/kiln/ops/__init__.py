"""Operations over whole arrays built from Kiln kernels, for use in
models: ``attention`` (flash attention, forward and backward) and
``matmul`` (tiles, split-K or stream-K, chosen by shape)."""

from kiln.ops.flash_attention import attention
from kiln.ops.gemm import matmul

__all__ = ["attention", "matmul"]
