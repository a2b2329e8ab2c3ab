"""Triton's own interpreter (``TRITON_INTERPRET=1``, on the CPU) on numpy
arrays: the third reference, beside Kiln's host target and interpreter,
for kernels written in Triton's idiom.

Triton's interpreter takes PyTorch tensors and uses a small part of their
API (``data_ptr``, ``dtype``, the storage it copies to the host and
back); ``HostTensor`` offers that part over a numpy array, whose memory
the interpreter then reads and writes in place. ``interpreting()``
patches Triton's launches to wrap the numpy arrays they are given
(directly, in tuples, or as a host tensor descriptor's base)."""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import semantics

ROOT = Path(__file__).resolve().parents[2]
#: The targets a Triton-idiom kernel runs on in the tests.
TARGETS = ("host", "interpreter", "triton-interpreter")

#: Why the Triton-interpreter cases of a run without TRITON_INTERPRET=1
#: skip: Triton decides at import whether its own library (tl.sigmoid,
#: tl.cdiv...) is interpreted, so the variable must be set before anything
#: imports it; scripts/test.sh runs these cases in a pytest of their own.
OWN_PROCESS = ("Triton's interpreter runs in a process started with "
               "TRITON_INTERPRET=1 (scripts/test.sh runs these cases so)")

#: PyTorch's names of the element types (Triton reads ``str(dtype)``).
_TORCH_NAMES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
    "i64": "int64", "ui8": "uint8", "ui16": "uint16", "ui32": "uint32",
    "ui64": "uint64", "f16": "float16", "bf16": "bfloat16",
    "f32": "float32", "f64": "float64", "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2", "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz"}


class _DType:
    def __init__(self, name: str, itemsize: int) -> None:
        self.name, self.itemsize = name, itemsize

    def __str__(self) -> str:
        return f"torch.{self.name}"


#: One object per type, as PyTorch's: Triton caches what it read of a
#: dtype by the object.
_DTYPES = {elem: _DType(name, kl.BY_IR[elem].itemsize)
           for elem, name in _TORCH_NAMES.items()}


class _Storage:
    """The array's memory: already on the host, so copying it there and
    back is nothing."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def cpu(self) -> _Storage:
        return self

    def copy_(self, other: _Storage) -> None:
        pass


class HostTensor:
    """A numpy array as Triton's interpreter sees a CPU tensor."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.dtype = _DTYPES[kl.from_numpy(array.dtype).ir]
        self.shape = array.shape

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def untyped_storage(self) -> _Storage:
        return _Storage(self.array)

    def new_empty(self, *args, **kwargs) -> HostTensor:
        return HostTensor(self.array)

    def set_(self, storage, offset, size, stride) -> HostTensor:
        return self

    def storage_offset(self) -> int:
        return 0

    def size(self) -> tuple[int, ...]:
        return self.array.shape

    def stride(self) -> tuple[int, ...]:
        return tuple(s // self.array.itemsize for s in self.array.strides)


def _wrapped(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return HostTensor(value)
    if isinstance(value, tuple):
        return semantics.tuple_elements_mapped(lambda v, _: _wrapped(v),
                                               value)
    return value


@contextlib.contextmanager
def interpreting() -> Iterator[None]:
    """Triton's interpreted launches, and its host tensor descriptors,
    take numpy arrays while it lasts."""
    from triton.runtime.interpreter import GridExecutor
    from triton.tools.tensor_descriptor import TensorDescriptor
    launch, describe = GridExecutor.__call__, TensorDescriptor.from_tensor

    def on_numpy(self, *args, **kwargs):
        return launch(self, *map(_wrapped, args),
                      **{k: _wrapped(v) for k, v in kwargs.items()})

    def described(tensor, *args, **kwargs):
        return describe(_wrapped(tensor), *args, **kwargs)

    GridExecutor.__call__ = on_numpy
    TensorDescriptor.from_tensor = staticmethod(described)
    try:
        yield
    finally:
        GridExecutor.__call__ = launch
        TensorDescriptor.from_tensor = staticmethod(describe)


def on_triton(module: str, directory: Path):
    """The Triton-idiom file ``module`` of ``directory`` (written against
    kiln.triton) with its imports pointed at Triton."""
    sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]
    import compare
    return compare.load_triton(module, directory)


def tritons_asm(kernel, args: dict, constexprs: dict, stage: str = "ptx",
                num_warps: int = 4, num_stages: int = 3, **options) -> str:
    """Triton's own sm_90a code of ``kernel`` (a kernel of a Triton-idiom
    test file) at ``stage`` ("ttir", "ptx"...), with Triton's other launch
    ``options``, which Triton compiles without a GPU; skips the test where
    Triton is not installed."""
    pytest.importorskip("triton")
    path = Path(inspect.getfile(kernel.fn))
    theirs = getattr(on_triton(path.stem, path.parent), kernel.fn.__name__)
    import triton_peer
    return triton_peer.compile_sm90a(theirs, args, constexprs, num_warps,
                                     num_stages, **options).asm[stage]


def skip_unless_runs(target: str) -> None:
    """Skips what this process does not run: the Triton-interpreter cases
    need TRITON_INTERPRET=1 from the start, the others its absence."""
    if target == "triton-interpreter":
        pytest.importorskip("triton")
        if os.environ.get("TRITON_INTERPRET") != "1":
            pytest.skip(OWN_PROCESS)
    elif os.environ.get("TRITON_INTERPRET") == "1":
        pytest.skip("this process runs Triton's interpreter")


def launch(target: str, kernel, grid, *args, **kwargs) -> None:
    """Launches ``kernel`` (a kernel of a Triton-idiom file) on
    ``target``: Kiln's host target or interpreter, or Triton's interpreter
    running the same-named kernel of the same file loaded on Triton (a
    Kiln dtype given as a constexpr becomes Triton's of that name)."""
    skip_unless_runs(target)
    if target != "triton-interpreter":
        kiln.jit(kernel.fn, interpret=target == "interpreter")[grid](
            *args, **kwargs)
        return
    path = Path(inspect.getfile(kernel.fn))
    module = on_triton(path.stem, path.parent)
    kwargs = {k: getattr(module.tl, v.name) if isinstance(v, kl.dtype)
              else v for k, v in kwargs.items()}
    with interpreting():
        getattr(module, kernel.fn.__name__)[grid](*args, **kwargs)
