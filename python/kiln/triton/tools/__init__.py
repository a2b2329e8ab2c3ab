"""``triton.tools`` over Kiln: the host-side tensor descriptor."""

from kiln.triton.tools import tensor_descriptor

__all__ = ["tensor_descriptor"]
