"""CUDA devices, through the runtime's driver loaded at run time.

On a machine without a GPU everything here works and says so:

>>> import kiln.cuda
>>> kiln.cuda.is_available() in (True, False)
True
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from kiln import _ffi
from kiln.compiler import check
from kiln.errors import CudaError, KilnError


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    compute_capability: int  # major * 10 + minor: 90 for sm_90
    multiprocessor_count: int


def device_count() -> int:
    """The number of CUDA devices; raises CudaError ("no CUDA driver: ...")
    where there is no driver."""
    count = ctypes.c_int()
    check(_ffi.lib().kilnCudaGetDeviceCount(ctypes.byref(count)), CudaError)
    return count.value


def is_available() -> bool:
    """Whether a CUDA driver with at least one device is there."""
    return unavailable_reason() is None


def unavailable_reason() -> str | None:
    """Why CUDA cannot be used here, or None if it can."""
    try:
        return None if device_count() > 0 else "no CUDA device"
    except KilnError as exc:
        return str(exc)


def device_info(ordinal: int = 0) -> DeviceInfo:
    name = ctypes.create_string_buffer(256)
    capability, multiprocessors = ctypes.c_int(), ctypes.c_int()
    check(_ffi.lib().kilnCudaGetDeviceInfo(ordinal, name, len(name),
                                           ctypes.byref(capability),
                                           ctypes.byref(multiprocessors)),
          CudaError)
    return DeviceInfo(name.value.decode(), capability.value,
                      multiprocessors.value)
