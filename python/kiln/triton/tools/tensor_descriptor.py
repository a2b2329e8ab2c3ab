"""``triton.tools.tensor_descriptor`` over Kiln."""

from kiln.tensor_descriptor import TensorDescriptor

__all__ = ["TensorDescriptor"]
