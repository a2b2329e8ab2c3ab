"""Kiln: a Triton-style tile compiler for NVIDIA GPUs.

The package talks to the compiler only through its C API
(``libKilnCAPI.so``), loaded with ctypes on first use.
"""

from kiln.codegen import KilnCompileError
from kiln.compiler import Context, Module
from kiln.errors import (CompilationError, CudaError, Diagnostic, KilnError,
                         LaunchError, Severity)
from kiln.jit import JITFunction, jit

__all__ = ["CompilationError", "Context", "CudaError", "Diagnostic",
           "JITFunction", "KilnCompileError", "KilnError", "LaunchError",
           "Module", "Severity", "jit"]
