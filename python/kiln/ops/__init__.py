"""Operations over whole arrays built from Kiln kernels, for use in
models: ``attention`` (flash attention, forward and backward)."""

from kiln.ops.flash_attention import attention

__all__ = ["attention"]
