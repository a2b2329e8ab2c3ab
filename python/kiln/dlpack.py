"""Arrays that offer only the DLPack protocol (``__dlpack__`` and
``__dlpack_device__``), as launch arguments.

A CPU array becomes a numpy view of the same memory (so a kernel runs on
the host target and writes in place); a CUDA array becomes an object with
``__cuda_array_interface__`` describing the same device memory. Arrays that
already offer numpy's or CUDA's interface are used as they are.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from kiln.errors import KilnError
from kiln.gpu import current_stream

#: DLDeviceType values (dlpack.h).
_CPU, _CUDA, _CUDA_HOST, _CUDA_MANAGED = 1, 2, 3, 13

#: DLDataTypeCode values and the numpy kind of each: the floats numpy
#: lacks (kDLBfloat, kDLFloat8_e4m3fn, kDLFloat8_e5m2) are bytes of no
#: type ("V"), viewed as ml_dtypes' type of their name.
_BFLOAT, _BOOL, _E4M3FN, _E5M2 = 4, 6, 10, 12
_KINDS = {0: "i", 1: "u", 2: "f", _BFLOAT: "V", _BOOL: "b", _E4M3FN: "V",
          _E5M2: "V"}
#: The one width each of these codes comes in.
_WIDTHS = {_BFLOAT: 16, _BOOL: 8, _E4M3FN: 8, _E5M2: 8}
#: The name of each type numpy lacks, by code.
_UNTYPED = {_BFLOAT: "bfloat16", _E4M3FN: "float8_e4m3fn",
            _E5M2: "float8_e5m2"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _describe(capsule: Any) -> tuple[str, dict, int | None]:
    """The kiln element type name of the DLPack array in ``capsule``, its
    numpy-style array interface (``shape``, ``typestr``, ``data``,
    ``strides``, ``version``) and its GPU (None off the GPU)."""
    tensor = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))
    dtype = tensor.dtype
    if dtype.lanes != 1 or dtype.code not in _KINDS or \
            _WIDTHS.get(dtype.code, dtype.bits) != dtype.bits:
        raise KilnError(f"a DLPack array of type code {dtype.code}, "
                        f"{dtype.bits} bits, {dtype.lanes} lanes has no "
                        "kiln element type")
    numpy_dtype = np.dtype(f"{_KINDS[dtype.code]}{dtype.bits // 8}")
    name = _UNTYPED.get(dtype.code, str(numpy_dtype))
    # Host and managed memory are reachable from every GPU.
    ordinal = (tensor.device.device_id
               if tensor.device.device_type == _CUDA else None)
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    strides = None
    if tensor.strides:
        strides = tuple(tensor.strides[i] * numpy_dtype.itemsize
                        for i in range(tensor.ndim))
    interface = {"shape": shape, "typestr": numpy_dtype.str,
                 "data": ((tensor.data or 0) + tensor.byte_offset, False),
                 "strides": strides, "version": 3}
    return name, interface, ordinal


class DLPackDeviceArray:
    """A CUDA array received through DLPack, described as
    ``__cuda_array_interface__``. It keeps the capsule, and so the
    producer's memory, alive."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule
        self.dtype, self.__cuda_array_interface__, self._ordinal = \
            _describe(capsule)

    def get_device(self) -> int | None:
        """The GPU the array is on (None for host or managed memory)."""
        return self._ordinal


class _HostMemory:
    """A CPU DLPack array's memory as numpy's array interface, keeping the
    capsule (and so the memory) alive for the views made of it."""

    def __init__(self, capsule: Any, interface: dict) -> None:
        self._capsule = capsule
        self.__array_interface__ = interface


def _host_view(value: Any) -> np.ndarray:
    """A numpy view of the CPU DLPack array ``value``: numpy's own import,
    or for bfloat16 and the 8-bit floats, which numpy's import refuses, a
    view of the same memory as ml_dtypes' type."""
    try:
        return np.from_dlpack(value)
    except (BufferError, RuntimeError, TypeError):
        capsule = value.__dlpack__()
        name, interface, _ = _describe(capsule)
        if name not in _UNTYPED.values():
            raise
    import ml_dtypes
    return np.asarray(_HostMemory(capsule, interface)).view(
        getattr(ml_dtypes, name))


def adapt(value: Any) -> Any:
    """``value`` as a launch takes it: a DLPack-only array as a numpy view
    (CPU) or a DLPackDeviceArray (CUDA), a PyTorch tensor that needs grad
    as its data (Triton reads its address; PyTorch exports neither
    interface of it); anything else unchanged."""
    if getattr(value, "requires_grad", False) is True and hasattr(
            value, "detach"):
        value = value.detach()
    if isinstance(value, np.ndarray) or hasattr(
            value, "__cuda_array_interface__") or not hasattr(
            value, "__dlpack__"):
        return value
    device_type, device_id = value.__dlpack_device__()
    if device_type == _CPU:
        return _host_view(value)
    if device_type in (_CUDA, _CUDA_HOST, _CUDA_MANAGED):
        # The stream Kiln launches on, for the producer to order its
        # pending writes before (DLPack's 1 is the legacy default stream).
        ordinal = device_id if device_type == _CUDA else 0
        stream = current_stream(ordinal) or 1
        return DLPackDeviceArray(value.__dlpack__(stream=stream))
    raise KilnError(f"a DLPack array on device type {device_type} cannot be "
                    "passed to a kernel (CPU and CUDA arrays can)")
