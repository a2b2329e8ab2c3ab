"""Host-side tensor descriptors, Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``: a kernel argument
that describes a tensor (its base array, shape and strides) and the block
a kernel reads and writes of it (``desc.load([m, n])``), the way Triton
3.9 spells TMA. A launch passes it as the base pointer, the sizes and the
strides (the last is 1); in the kernel it is the descriptor
``kl.make_tensor_descriptor`` makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln import semantics
from kiln.errors import KilnError


@dataclass(frozen=True)
class TensorDescriptor:
    """``base`` (a numpy or device array holding the tensor's first
    element), the tensor's ``shape`` and ``strides`` in elements (the
    last stride 1), the ``block_shape`` a kernel accesses (compile-time),
    and the ``padding`` ("zero" or "nan") of reads past the tensor.
    ``round_f32_to_tf32`` (Triton's: loads round float32 to tf32) is
    taken at its default, False, only."""

    base: Any
    shape: tuple
    strides: tuple
    block_shape: tuple
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self) -> None:
        for field in ("shape", "strides", "block_shape"):
            values = getattr(self, field)
            values = tuple(values) if isinstance(values, (tuple, list)) \
                else (values,)
            if not all(isinstance(v, (int, np.integer)) and
                       not isinstance(v, bool) for v in values):
                raise KilnError(f"TensorDescriptor: {field} takes integers, "
                                f"not {values!r}")
            object.__setattr__(self, field, tuple(int(v) for v in values))
        if not len(self.shape) == len(self.strides) == len(self.block_shape):
            raise KilnError("TensorDescriptor: shape, strides and "
                            "block_shape have one entry per dimension")
        if not self.shape:
            raise KilnError("TensorDescriptor: a tensor of at least one "
                            "dimension")
        if problem := semantics.tile_shape_problem("TensorDescriptor",
                                                   self.block_shape):
            raise KilnError(problem)
        if self.strides[-1] != 1:
            raise KilnError(f"TensorDescriptor: the last stride must be 1, "
                            f"not {self.strides[-1]}")
        if self.padding not in ("zero", "nan"):
            raise KilnError(f"TensorDescriptor: padding is 'zero' or 'nan', "
                            f"not {self.padding!r}")
        if self.round_f32_to_tf32:
            raise KilnError("TensorDescriptor: round_f32_to_tf32=True is not "
                            "supported by Kiln yet")

    @classmethod
    def from_tensor(cls, tensor: Any, block_shape: Any,
                    padding: str = "zero",
                    round_f32_to_tf32: bool = False) -> TensorDescriptor:
        """The descriptor of all of ``tensor`` (a numpy array, a PyTorch
        tensor or a ``__cuda_array_interface__`` array), its strides read
        from it."""
        strides = _element_strides(tensor)
        return cls(tensor, tuple(tensor.shape), strides, block_shape,
                   padding, round_f32_to_tf32)


def _element_strides(tensor: Any) -> tuple:
    """``tensor``'s strides in elements."""
    if isinstance(tensor, np.ndarray):
        if any(s % tensor.itemsize for s in tensor.strides):
            raise KilnError("TensorDescriptor: strides of whole elements")
        return tuple(s // tensor.itemsize for s in tensor.strides)
    stride = getattr(tensor, "stride", None)
    if callable(stride):  # PyTorch
        return tuple(stride())
    interface = getattr(tensor, "__cuda_array_interface__", None)
    if interface is None:
        raise KilnError(f"TensorDescriptor.from_tensor takes an array, not "
                        f"{type(tensor).__name__}")
    shape = tuple(interface["shape"])
    if interface.get("strides") is None:  # C-contiguous
        strides, step = [], 1
        for size in reversed(shape):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))
    itemsize = np.dtype(interface["typestr"]).itemsize
    return tuple(s // itemsize for s in interface["strides"])
