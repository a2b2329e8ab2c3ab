"""Running tile kernels on the CPU (the host target).

The host target executes the same tile IR as the GPU, one program instance
after another, so kernels can be checked against numpy on any machine.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Sequence

import numpy as np

from kiln import _ffi
from kiln.arguments import POINTEE_DTYPES, holds, pack_launch
from kiln.compiler import Module, check
from kiln.errors import KilnError, LaunchError
from kiln.frontend.ir import parse_type_list

#: The passes that turn an array program (functions over whole tensors in
#: linalg, arith and math) into tile kernels and launch plans for
#: HostExecutable.run (kiln::buildArrayPipeline, registered by the
#: compiler).
ARRAY_PIPELINE = "builtin.module(kiln-array-pipeline)"


def array_pipeline(**tile_options: int) -> str:
    """ARRAY_PIPELINE with kiln-tile's options (``row_block=4``,
    ``block_m=16``...) set."""
    options = " ".join(f"{name.replace('_', '-')}={value}"
                       for name, value in tile_options.items())
    return f"builtin.module(kiln-array-pipeline{{{options}}})"

def _byte_bounds(array: np.ndarray) -> tuple[int, int]:
    """The bytes [begin, end) that ``array``'s elements span, views with any
    strides included."""
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds
    return byte_bounds(array)


def _tensor_types(text: str) -> list[tuple[tuple[int | None, ...],
                                            np.dtype]]:
    """Shape (None for a dynamic dimension) and numpy dtype of each
    tensor type of a plan's printed list of them."""
    types = []
    for type_ in parse_type_list(text):
        dtype = POINTEE_DTYPES.get(type_.elem)
        if dtype is None:
            raise KilnError(f"the host target cannot pass tensors of "
                            f"{type_.elem} yet")
        types.append((type_.shape, dtype))
    return types




def _pack_array(where: str, pointee: str, value: Any) -> ctypes.c_int64:
    """A numpy array, passed by address."""
    if not isinstance(value, np.ndarray):
        raise KilnError(f"{where} must be a numpy array, not "
                        f"{type(value).__name__}")
    expected = POINTEE_DTYPES.get(pointee)
    if expected is None:
        raise KilnError(f"{where}: the host target cannot pass arrays of "
                        f"{pointee} yet")
    if not holds(pointee, value.dtype):
        raise KilnError(f"{where} must be an array of {expected}, not "
                        f"{value.dtype}")
    return ctypes.c_int64(value.ctypes.data)


class HostExecutable:
    """The kernels of a module compiled for the CPU.

    >>> import numpy as np, kiln
    >>> from kiln.host import HostExecutable
    >>> src = '''
    ... func.func @double(%p: !tile.ptr<f32>) {
    ...   %r = tile.range 0 to 4 : tensor<4xi32>
    ...   %ps = tile.splat %p : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
    ...   %a = tile.addptr %ps, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
    ...   %v = tile.load %a : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
    ...   %w = arith.addf %v, %v : tensor<4xf32>
    ...   tile.store %a, %w : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
    ...   return
    ... }'''
    >>> x = np.arange(4, dtype=np.float32)
    >>> with kiln.Context() as ctx:
    ...     with HostExecutable(kiln.Module.parse(ctx, src)) as exe:
    ...         exe.launch("double", (1,), x)
    >>> x
    array([0., 2., 4., 6.], dtype=float32)
    """

    def __init__(self, module: Module, check_bounds: bool = True,
                 threads: int | None = None) -> None:
        """Compiles ``module``'s kernels. With ``check_bounds`` (the
        default), every load, store and atomic is checked against the arrays
        passed to the launch: an access through a pointer derived from an
        array argument must stay inside that array, and a write must not
        reach a read-only array. One that does not is skipped and fails the
        launch with its source location. A launch runs its program
        instances on ``threads`` threads (default: ``$KILN_HOST_THREADS``,
        else 1)."""
        self._handle: _ffi.HostExecutableHandle | None = None
        self._module: Module | None = module
        self._signatures: dict[str, list[str]] = {}
        handle = _ffi.HostExecutableHandle()
        check(_ffi.lib().kilnHostExecutableCreate(
            module.handle, int(check_bounds), ctypes.byref(handle)))
        self._adopt(handle, threads)

    @classmethod
    def from_artifacts(cls, object_file: bytes, description: str,
                       arguments: dict[str, list[str]],
                       threads: int | None = None) -> HostExecutable:
        """An executable compiled before on this machine (kept by the disk
        cache): its ``artifacts()``, linked without compiling, with each
        kernel's argument types (its launches need no module; its plans
        cannot run)."""
        executable = cls.__new__(cls)
        executable._handle = None
        executable._module = None
        executable._signatures = dict(arguments)
        handle = _ffi.HostExecutableHandle()
        check(_ffi.lib().kilnHostExecutableCreateFromArtifacts(
            object_file, len(object_file), description.encode(),
            ctypes.byref(handle)), KilnError)
        executable._adopt(handle, threads)
        return executable

    def _adopt(self, handle: _ffi.HostExecutableHandle,
               threads: int | None) -> None:
        self._handle = handle
        if threads is None:
            threads = int(os.environ.get("KILN_HOST_THREADS", "1") or 1)
        if threads < 1:
            raise KilnError(f"threads must be at least 1, not {threads}")
        _ffi.lib().kilnHostExecutableSetThreads(handle, threads)

    def artifacts(self) -> tuple[bytes, str]:
        """The compiled object file and the description of its kernels,
        which ``from_artifacts`` takes."""
        if self._handle is None:
            raise KilnError("the executable is closed")

        def artifact(name: str) -> bytes:
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            check(_ffi.lib().kilnHostExecutableGetArtifact(
                self._handle, name.encode(), ctypes.byref(data),
                ctypes.byref(size)), KilnError)
            return ctypes.string_at(data, size.value) if size.value else b""

        return artifact("object"), artifact("description").decode()

    def kernel_argument_types(self, kernel: str) -> list[str]:
        """``kernel``'s argument types as IR text."""
        types = self._signatures.get(kernel)
        if types is None:
            if self._module is None:
                raise KilnError(f"no kernel named '{kernel}'")
            types = self._module.kernel_argument_types(kernel)
            self._signatures[kernel] = types
        return types

    def launch(self, kernel: str, grid: Sequence[int], *args: Any,
               names: Sequence[str] | None = None) -> None:
        """Runs ``kernel`` once per program instance of ``grid`` (up to
        three sizes, x first). Arrays are passed by address: the kernel reads
        and writes them in place. ``names`` (one per argument) name the
        arrays in errors."""
        if self._handle is None:
            raise KilnError("the executable is closed")
        types = self.kernel_argument_types(kernel)
        pointers, sizes, values = pack_launch(kernel, grid, args, types,
                                              _pack_array)
        arrays = [(i, a) for i, a in enumerate(args)
                  if isinstance(a, np.ndarray)]
        labels = [(f"'{names[i]}'" if names else f"argument {i}").encode()
                  for i, _ in arrays]
        ranges = (_ffi.MemoryRange * len(arrays))(
            *[(*_byte_bounds(a), label, i, not a.flags.writeable)
              for (i, a), label in zip(arrays, labels)])
        check(_ffi.lib().kilnHostExecutableLaunch(
            self._handle, kernel.encode(), sizes, pointers, len(values),
            ranges, len(arrays)), LaunchError)

    def run(self, plan: str, *inputs: np.ndarray) -> list[np.ndarray]:
        """Runs the launch plan of array function `plan` (after kiln-fuse
        and kiln-tile) on numpy `inputs`; returns its results. A dynamic
        dimension takes its input's size, and the results' shapes follow."""
        if self._handle is None:
            raise KilnError("the executable is closed")
        if self._module is None:
            raise KilnError("an executable from artifacts runs kernels, not "
                            "launch plans")
        wanted, results = plan_signature(self._module, plan)
        if len(inputs) != len(wanted):
            raise KilnError(f"'{plan}' takes {len(wanted)} tensors, but "
                            f"{len(inputs)} were given")
        arrays = []
        for i, (array, (shape, dtype)) in enumerate(zip(inputs, wanted)):
            if not isinstance(array, np.ndarray) or \
                    array.ndim != len(shape) or array.dtype != dtype:
                got = (f"{array.dtype}{list(array.shape)}"
                       if isinstance(array, np.ndarray)
                       else type(array).__name__)
                dims = ", ".join("?" if d is None else str(d) for d in shape)
                raise KilnError(f"input {i} of '{plan}' must be a {dtype} "
                                f"array of shape [{dims}], not {got}")
            arrays.append(np.ascontiguousarray(array))
        sizes, shapes = bind_plan(self._module, plan,
                                  [a.shape for a in arrays], wanted, results)
        outputs = [np.empty(shape, dtype)
                   for shape, (_, dtype) in zip(shapes, results)]
        arguments = [a.ctypes.data for a in arrays + outputs] + sizes
        check(_ffi.lib().kilnHostExecutableRunPlan(
            self._handle, plan.encode(),
            (ctypes.c_int64 * len(arguments))(*arguments), len(arguments)),
            LaunchError)
        return outputs

    def close(self) -> None:
        if self._handle is not None:
            _ffi.lib().kilnHostExecutableDestroy(self._handle)
            self._handle = None

    def __enter__(self) -> HostExecutable:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def plan_signature(module: Module, plan: str) -> tuple[list, list]:
    """The (shape, dtype) of each input and each result of the launch plan
    ``plan`` of ``module``, a dynamic size None."""
    input_types = module.function_attribute(plan, "plan.inputs")
    output_types = module.function_attribute(plan, "plan.outputs")
    if input_types is None or output_types is None:
        raise KilnError(f"'{plan}' is not a launch plan (run kiln-fuse "
                        "and kiln-tile on the array function)")
    return _tensor_types(input_types), _tensor_types(output_types)


def bind_plan(module: Module, plan: str, shapes: list[tuple[int, ...]],
              wanted: list, results: list
              ) -> tuple[list[int], list[tuple[int, ...]]]:
    """The plan's size arguments and its results' shapes for inputs of
    ``shapes`` (see kilnModuleBindLaunchPlan); ``wanted`` and ``results``
    are its ``plan_signature``."""
    ranks = (ctypes.c_size_t * len(shapes))(*[len(s) for s in shapes])
    dims = [d for shape in shapes for d in shape]
    max_sizes = sum(d is None for shape, _ in wanted for d in shape)
    sizes = (ctypes.c_int64 * max_sizes)()
    num_sizes = ctypes.c_size_t()
    result_ranks = [len(shape) for shape, _ in results]
    result_dims = (ctypes.c_int64 * sum(result_ranks))()
    check(_ffi.lib().kilnModuleBindLaunchPlan(
        module.handle, plan.encode(), ranks, len(shapes),
        (ctypes.c_int64 * len(dims))(*dims), sizes, max_sizes,
        ctypes.byref(num_sizes), result_dims, len(result_dims)))
    bound, start = [], 0
    for rank in result_ranks:
        bound.append(tuple(result_dims[start:start + rank]))
        start += rank
    return list(sizes[:num_sizes.value]), bound
