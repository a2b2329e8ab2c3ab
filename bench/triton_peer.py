"""Triton as a peer compiler on a machine without a GPU.

Triton compiles for a ``GPUTarget`` with no driver present. This module
specializes a Triton kernel as a launch with given arguments would (as
``@kiln.jit`` specializes the same launch: pointers aligned to 16 bytes and
integers divisible by 16 marked, integers equal to 1 made constants) and
compiles it for sm_90a, returning its PTX. Importing it needs the
``triton`` wheel; callers check ``MISSING`` first.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

try:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    MISSING = None
except ImportError as error:  # measured against Kiln alone
    triton = None
    MISSING = f"triton is not installed ({error})"

_ELEMENTS = {np.dtype(t): name for t, name in (
    (ml_dtypes.float8_e4m3fn, "fp8e4nv"), (ml_dtypes.float8_e5m2, "fp8e5"),
    (np.float16, "fp16"), (np.float32, "fp32"), (np.float64, "fp64"),
    (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"),
    (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"),
    (np.uint64, "u64"), (np.bool_, "i1"))}


def source(kernel, args: dict, constexprs: dict):
    """The ASTSource a launch of the @triton.jit ``kernel`` with ``args``
    (its run-time arguments by name) and ``constexprs`` compiles."""
    signature, attrs, constants = {}, {}, dict(constexprs)
    for index, name in enumerate(kernel.arg_names):
        if name in constexprs:
            signature[name] = "constexpr"
            continue
        signature[name] = _signature(args[name], (index,), attrs, constants)
    return ASTSource(kernel, signature, constants, attrs)


def _signature(value, path: tuple, attrs: dict, constants: dict):
    """The signature of the argument (or tuple element) at ``path``, its
    specialization added to ``attrs`` and ``constants`` as Triton's
    launch adds it; a tuple's, element by element."""
    block_shape = getattr(value, "block_shape", None)
    if block_shape is not None:  # a host-side tensor descriptor
        return (f"tensordesc<{_ELEMENTS[value.base.dtype]}"
                f"{list(block_shape)}>")
    if isinstance(value, tuple):
        return tuple(_signature(v, path + (k,), attrs, constants)
                     for k, v in enumerate(value))
    if isinstance(value, np.ndarray):
        kind, aligned = "*" + _ELEMENTS[value.dtype], \
            value.ctypes.data % 16 == 0
    elif isinstance(value, (float, np.floating)):
        kind, aligned = "fp32", False
    elif value is None or int(value) == 1:  # Triton's constants
        constants[path] = value
        return "constexpr"
    else:
        value = int(value)
        kind = "i32" if -2**31 <= value < 2**31 else "i64"
        aligned = value % 16 == 0
    if aligned:
        attrs[path] = [["tt.divisibility", 16]]
    return kind


def compile_for(kernel, args: dict, constexprs: dict, num_warps: int,
                num_stages: int, capability: int, **options):
    """Triton's compile of that launch for a device of `capability`
    (major * 10 + minor; 90 is sm_90a), with Triton's other launch
    ``options`` (maxnreg=, enable_fp_fusion=...)."""
    return triton.compile(source(kernel, args, constexprs),
                          target=GPUTarget("cuda", capability, 32),
                          options={"num_warps": num_warps,
                                   "num_stages": num_stages, **options})


def compile_sm90a(kernel, args: dict, constexprs: dict, num_warps: int,
                  num_stages: int, **options):
    """Triton's compile of that launch for sm_90a (capability 9.0)."""
    return compile_for(kernel, args, constexprs, num_warps, num_stages, 90,
                       **options)
