"""Kiln: a Triton-style tile compiler for NVIDIA GPUs.

The package talks to the compiler only through its C API
(``libKilnCAPI.so``), loaded with ctypes on first use.
"""

from kiln.autotune import Config, autotune
from kiln.compiler import Context, Module
from kiln.device_array import DeviceArray
from kiln.dynamo import dynamo_backend
from kiln.errors import (CompilationError, CompilerRemark, CudaError,
                         Diagnostic, KilnCompileError, KilnError,
                         KilnIndexError, LaunchError, Severity)
from kiln.fuse import fuse
from kiln.jit import JITFunction, jit
from kiln.tensor_descriptor import TensorDescriptor


def cdiv(x: int, y: int) -> int:
    """Ceiling division of Python integers, for grids on the host (as
    ``triton.cdiv``; ``kl.cdiv`` is its counterpart inside kernels).

    >>> cdiv(1000, 256)
    4
    """
    return -(-x // y)


__all__ = ["CompilationError", "CompilerRemark", "Config", "Context",
           "CudaError", "DeviceArray", "Diagnostic",
           "JITFunction", "KilnCompileError", "KilnError", "KilnIndexError",
           "LaunchError",
           "Module", "Severity", "TensorDescriptor", "autotune", "cdiv",
           "dynamo_backend", "fuse", "jit"]
