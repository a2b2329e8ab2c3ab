"""What a fused function takes: numpy arrays (host memory), PyTorch
tensors (CPU or CUDA) or other device arrays (``__cuda_array_interface__``:
CuPy's, ``kiln.DeviceArray``), all in one place; and refusals that name
the argument."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from kiln.errors import KilnError
from kiln.fuse.ir_types import _element_type
from kiln.fuse.location import _error
from kiln.fuse.torch_tensor import numpy_dtype, torch_to_numpy
from kiln.gpu import device_array_ordinal, is_device_array


def is_torch_tensor(value: Any) -> bool:
    """Whether ``value`` is a torch tensor (torch is never imported for
    numpy arguments)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def is_traced_tensor(value: Any) -> bool:
    module = sys.modules.get("kiln.fuse.torch_tensor")
    return module is not None and isinstance(value, module.TracedTensor)


def _check_tensor(function: str, name: str, tensor: Any) -> None:
    """Refuses, naming the argument, a torch tensor that kiln.fuse cannot
    take: on a device other than the CPU or a GPU, needing gradients, of
    another dtype, or empty."""
    import torch
    if tensor.device.type not in ("cpu", "cuda"):
        raise _error(f"{function}: argument '{name}' is a torch tensor on "
                     f"{tensor.device}; kiln.fuse takes CPU and CUDA "
                     "tensors")
    if tensor.requires_grad and torch.is_grad_enabled():
        raise _error(
            f"{function}: argument '{name}' requires grad; kiln.fuse does "
            "not differentiate, so call it under torch.no_grad() (or pass "
            "a detached tensor)")
    if tensor.dtype not in torch_to_numpy() or \
            tensor.layout != torch.strided:
        raise _error(
            f"{function}: argument '{name}' is a {tensor.dtype} tensor "
            f"({tensor.layout}); kiln.fuse computes on strided torch.bool, "
            "torch.int8 to torch.int64 and torch.float16 to torch.float64 "
            "tensors")
    if tensor.numel() == 0:
        raise _error(f"{function}: argument '{name}' has no elements")


def _check_device_array(function: str, name: str, value: Any) -> None:
    """Refuses, naming the argument, a device array kiln.fuse cannot read
    in place: strided, of another dtype, or empty."""
    interface = value.__cuda_array_interface__
    shape = tuple(interface["shape"])
    dtype = np.dtype(interface["typestr"])
    strides = interface.get("strides")
    contiguous = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) *
                       dtype.itemsize for i in range(len(shape)))
    if strides is not None and tuple(strides) != contiguous and \
            any(d != 1 for d in shape):
        raise _error(f"{function}: argument '{name}' is a strided device "
                     f"array (strides {list(strides)}); kiln.fuse reads "
                     "C-contiguous device arrays, so copy it first")
    try:
        _element_type(dtype)
    except KilnError:
        raise _error(f"{function}: argument '{name}' is a device array of "
                     f"{dtype}; kiln.fuse computes on bool, int8 to int64 "
                     "and float16 to float64 arrays") from None
    if 0 in shape:
        raise _error(f"{function}: argument '{name}' has no elements")


def _place(value: Any) -> int | None:
    """The GPU ``value`` is on, None for host memory."""
    if is_torch_tensor(value):
        if value.device.type != "cuda":
            return None
        if value.device.index is not None:
            return value.device.index
        import torch
        return torch.cuda.current_device()
    if is_device_array(value):
        ordinal = device_array_ordinal(value)
        return 0 if ordinal is None else ordinal
    return None


def _where(place: int | None) -> str:
    return "in host memory" if place is None else f"on GPU {place}"


def check_arguments(function: str, arrays: list[tuple[str, Any]]
                    ) -> int | None:
    """Checks the arguments of a call of the fused function ``function``
    (name, value each): all numpy arrays and device arrays, or all torch
    tensors, each one kiln.fuse takes, all in host memory or all on one
    GPU, which it returns (None for host memory)."""
    tensors = [name for name, value in arrays if is_torch_tensor(value)]
    for name, value in arrays:
        if tensors and not is_torch_tensor(value):
            raise _error(
                f"{function}: argument '{name}' is a "
                f"{type(value).__name__} while '{tensors[0]}' is a torch "
                "tensor; a fused function takes numpy arrays or torch "
                "tensors, not both")
        if tensors:
            _check_tensor(function, name, value)
        elif is_device_array(value):
            _check_device_array(function, name, value)
        elif not isinstance(value, np.ndarray):
            raise _error(
                f"{function}: argument '{name}' is a "
                f"{type(value).__name__}, not a numpy array; a fused "
                "function takes numpy arrays, device arrays or torch "
                "tensors (give constants as default arguments or in a "
                "closure)")
        else:
            _element_type(value.dtype.newbyteorder("="))
            if value.size == 0:
                raise _error(f"{function}: argument '{name}' has no "
                             "elements")
    places = [(name, _place(value)) for name, value in arrays]
    first_name, first = places[0] if places else ("", None)
    for name, place in places[1:]:
        if place != first:
            raise _error(f"{function}: argument '{name}' is {_where(place)} "
                         f"while '{first_name}' is {_where(first)}; a "
                         "fused function runs where all its arguments are")
    return first


def describe(value: Any) -> tuple[tuple[int, ...], str, bool]:
    """The shape, numpy dtype (as its ``str``) and torch-ness of an
    argument that ``check_arguments`` took."""
    if is_torch_tensor(value):
        return tuple(value.shape), numpy_dtype(value.dtype).str, True
    if is_device_array(value):
        interface = value.__cuda_array_interface__
        return (tuple(interface["shape"]),
                np.dtype(interface["typestr"]).newbyteorder("=").str, False)
    return value.shape, value.dtype.newbyteorder("=").str, False
