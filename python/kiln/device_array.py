"""``DeviceArray``: device memory Kiln allocates, for results of fused
functions whose arguments are device arrays of no library that allocates
(PyTorch's tensors give PyTorch tensors back)."""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from kiln import _ffi
from kiln.compiler import check
from kiln.errors import CudaError, KilnError


class _Allocation:
    """Bytes of device memory, freed when the last array that views them
    goes."""

    def __init__(self, ordinal: int, nbytes: int) -> None:
        self.ordinal, self.address = ordinal, 0
        address = ctypes.c_uint64()
        check(_ffi.lib().kilnCudaAllocate(ordinal, nbytes,
                                          ctypes.byref(address)), CudaError)
        self.address = address.value

    def free(self) -> None:
        if self.address:
            address, self.address = self.address, 0
            check(_ffi.lib().kilnCudaFree(self.ordinal, address), CudaError)

    def __del__(self) -> None:
        try:
            self.free()
        except KilnError:  # the context's sticky error: nothing to free
            pass


class DeviceArray:
    """A C-contiguous array in the memory of GPU ``ordinal``, with the CUDA
    array interface (so PyTorch, CuPy and Kiln's kernels take it)."""

    def __init__(self, shape: tuple[int, ...], dtype: Any,
                 ordinal: int = 0, *, _allocation: _Allocation | None = None
                 ) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.ordinal = ordinal
        self._allocation = _allocation or _Allocation(
            ordinal, max(self.nbytes, 1))

    @classmethod
    def from_host(cls, array: np.ndarray, ordinal: int = 0) -> DeviceArray:
        """A copy of ``array`` on GPU ``ordinal``."""
        array = np.ascontiguousarray(array)
        result = cls(array.shape, array.dtype, ordinal)
        check(_ffi.lib().kilnCudaCopyToDevice(
            ordinal, result.address, array.ctypes.data, array.nbytes),
            CudaError)
        return result

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def address(self) -> int:
        return self._allocation.address

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str,
                "data": (self.address, False), "strides": None,
                "version": 3}

    def reshape(self, *shape) -> DeviceArray:
        """The same memory seen with another shape."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        if math.prod(shape) != math.prod(self.shape):
            raise KilnError(f"cannot reshape a device array of shape "
                            f"{list(self.shape)} to {list(shape)}")
        return DeviceArray(shape, self.dtype, self.ordinal,
                           _allocation=self._allocation)

    def to_host(self) -> np.ndarray:
        """A numpy copy, once the work queued before it is done."""
        result = np.empty(self.shape, self.dtype)
        check(_ffi.lib().kilnCudaCopyToHost(
            self.ordinal, result.ctypes.data, self.address, result.nbytes),
            CudaError)
        return result

    def __repr__(self) -> str:
        return (f"DeviceArray(shape={list(self.shape)}, dtype={self.dtype}, "
                f"ordinal={self.ordinal})")
