"""What ``@kiln.jit``'s cache-hit launch reads of each argument: its share
of the specialization key and the value the kernel receives, in a few
Python operations.

A launch that finds its key among the launches it has compiled makes one
call into the runtime (gpu.KernelLauncher) without binding the arguments
through ``inspect`` or reading ``__cuda_array_interface__``, which PyTorch
builds as a new dictionary on every access. Two argument lists with one key
must specialize alike, so each key holds everything
``JITFunction.specialize`` looks at. Arguments of other kinds (numpy
arrays and scalars, DLPack-only arrays, CPU tensors, anything unexpected)
have no key here and take the full path, which checks them.
"""

from __future__ import annotations

from typing import Any, Callable

from kiln.gpu import device_array_element, device_array_ordinal

#: A key and the value the kernel receives, or None (the full path).
Reading = tuple[tuple, Any] | None

_INT32 = range(-2**31, 2**31)
_INT64 = range(-2**63, 2**63)
_F32, _I1 = ("f32",), ("i1",)


def _integer(value: int) -> Reading:
    if value not in _INT64:
        return None  # the full path says it does not fit
    return ("i32" if value in _INT32 else "i64", value == 1,
            value % 16 == 0), value


def _float(value: float) -> Reading:
    return _F32, value


def _bool(value: bool) -> Reading:
    return _I1, value


def _cuda_array(value: Any) -> Reading:
    """Any ``__cuda_array_interface__`` array (CuPy, Numba, ...)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None or device_array_ordinal(value) not in (None, 0):
        return None  # the full path says why
    address = int(interface["data"][0])
    return ("ptr", device_array_element(value, interface),
            address % 16 == 0), address


#: The element type of each PyTorch dtype seen, read once through
#: ``__cuda_array_interface__``.
_torch_elements: dict[Any, str] = {}


def _torch_tensor(value: Any) -> Reading:
    """A PyTorch tensor: its address and dtype are attributes."""
    # A CPU tensor (-1) runs on the host, through DLPack; one on another
    # GPU is refused by the full path.
    if value.get_device() != 0:
        return None
    element = _torch_elements.get(value.dtype)
    if element is None:
        element = _torch_elements[value.dtype] = device_array_element(value)
    address = value.data_ptr()
    return ("ptr", element, address % 16 == 0), address


#: How an argument of each Python type is read; None for the full path.
_READERS: dict[type, Callable[[Any], Reading] | None] = {
    int: _integer, float: _float, bool: _bool}


def _reader_for(value: Any) -> Callable[[Any], Reading] | None:
    if all(hasattr(value, name) for name in ("get_device", "data_ptr",
                                             "dtype")):
        return _torch_tensor
    if hasattr(value, "__cuda_array_interface__"):
        return _cuda_array
    return None


def read(value: Any) -> Reading:
    """``value``'s share of the launch key and the value the kernel
    receives, or None where only the full path can tell."""
    kind = type(value)
    try:
        reader = _READERS[kind]
    except KeyError:
        reader = _READERS[kind] = _reader_for(value)
    return None if reader is None else reader(value)
