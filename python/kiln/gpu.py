"""Tile kernels on NVIDIA GPUs: compiled to PTX (and a cubin where ptxas
is found) and launched through the CUDA driver.

Arrays are passed as any object with ``__cuda_array_interface__`` (a
PyTorch CUDA tensor, a CuPy array): the kernel receives its device address,
in the device's primary context, which those libraries share. Compiling
needs no GPU:

>>> import kiln
>>> from kiln.gpu import GPUBinary
>>> src = '''
... func.func @double(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
...   %r = tile.range 0 to 512 : tensor<512xi32>
...   %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
...   %a = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
...   %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
...   %w = arith.addf %v, %v : tensor<512xf32>
...   tile.store %a, %w : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
...   return
... }'''
>>> with kiln.Context() as ctx:
...     with GPUBinary(kiln.Module.parse(ctx, src), "sm_90a") as binary:
...         print(binary.threads_per_block, "ld.global.v4" in binary.ptx)
128 True
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import glob
import os
import re
import subprocess
import sys
import tempfile
import threading
from typing import Any, NamedTuple, Sequence

import numpy as np

from kiln import _ffi
from kiln import language as kl
from kiln import semantics
from kiln.arguments import SCALAR_CTYPES, check_grid, scalar_value
from kiln.compiler import Module, check
from kiln.errors import (CudaError, Diagnostic, KilnError, LaunchError,
                         parse_remarks)
from kiln.frontend.ir import parse_type


@functools.cache
def device_chip(ordinal: int = 0) -> str:
    """The chip Kiln compiles for on device ``ordinal`` ("sm_90a" on
    Hopper); asked of the driver once per process, as launches need it."""
    chip = ctypes.create_string_buffer(32)
    check(_ffi.lib().kilnCudaGetDeviceChip(ordinal, chip, len(chip)),
          CudaError)
    return chip.value.decode()


def synchronize(ordinal: int = 0) -> None:
    """Waits for the device's work; raises CudaError if a kernel faulted."""
    check(_ffi.lib().kilnCudaSynchronize(ordinal), CudaError)


def is_device_array(value: Any) -> bool:
    return hasattr(value, "__cuda_array_interface__")


def device_array_element(value: Any,
                         interface: dict | None = None) -> str:
    """The IR element type ("f32", "bf16", ...) of a
    ``__cuda_array_interface__`` array (``interface``, where the caller has
    read it already: PyTorch builds it anew on each access). bfloat16,
    which numpy lacks, is described there as two bytes of no type ("<V2"),
    as PyTorch does: the array's own ``dtype`` tells it apart."""
    if interface is None:
        interface = value.__cuda_array_interface__
    typestr = interface["typestr"]
    element = _ELEMENTS.get(typestr)
    if element is not None:  # read on every launch: kept by typestr
        return element
    dtype = np.dtype(typestr)
    if dtype == np.dtype("V2"):  # not kept: the array's dtype tells
        if str(getattr(value, "dtype", "")).endswith("bfloat16"):
            return kl.bfloat16.ir
        return kl.from_numpy(dtype).ir
    element = _ELEMENTS[typestr] = kl.from_numpy(dtype).ir
    return element


#: The element type of each ``__cuda_array_interface__`` typestr seen
#: (but "<V2", which is bfloat16 or nothing by the array's own dtype).
_ELEMENTS: dict[str, str] = {}


def device_address(value: Any) -> int:
    return int(value.__cuda_array_interface__["data"][0])


def device_array_ordinal(value: Any) -> int | None:
    """The GPU a device array is on, where the array says: PyTorch's
    ``get_device()``, CuPy's ``device.id``, DLPack's device id; None where
    it does not (the CUDA array interface names no device)."""
    get_device = getattr(value, "get_device", None)
    if callable(get_device):
        return get_device()
    ordinal = getattr(getattr(value, "device", None), "id", None)
    return ordinal if isinstance(ordinal, int) else None


def current_stream(ordinal: int = 0) -> int:
    """The stream a launch from Python goes to: where PyTorch is loaded, its
    current stream on device ``ordinal`` (as Triton's launches do, so that
    a launch is ordered with the PyTorch work around it and a CUDA graph
    that PyTorch captures takes it in); else, or where that PyTorch has no
    CUDA, the default stream (0)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    try:  # a C call, not a Stream object
        return torch._C._cuda_getCurrentRawStream(ordinal)
    except (AttributeError, RuntimeError, AssertionError):
        return 0


class GPUOptions(NamedTuple):
    """How a kernel is compiled for the GPU: Triton's launch options that
    change its code, with Triton's defaults.

    >>> GPUOptions(num_warps=8).describe()
    '8 warps, 3 stages'
    >>> GPUOptions(maxnreg=128, enable_fp_fusion=False).describe()
    '4 warps, 3 stages, maxnreg 128, no fp fusion'
    """
    #: Warps per program (32 threads each): a power of two, 1 to 32.
    num_warps: int = 4
    #: How deep loops feeding tensor cores are pipelined (1: not at all).
    num_stages: int = 3
    #: The most registers a thread may use (PTX's ``.maxnreg``); None
    #: leaves it to ptxas.
    maxnreg: int | None = None
    #: Whether a float multiply feeding an add may become one fma.
    enable_fp_fusion: bool = True

    def checked(self) -> GPUOptions:
        """These options with each value checked, as plain ints and
        bools (a KilnError names the first that is not valid)."""
        for name in ("num_warps", "num_stages", "maxnreg"):
            value = getattr(self, name)
            if name == "maxnreg" and value is None:
                continue
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, np.integer)):
                raise KilnError(f"{name} must be an integer, not {value!r}")
            if value < 1:
                raise KilnError(f"{name} must be 1 or more, not {value}")
        if not isinstance(self.enable_fp_fusion, (bool, np.bool_)):
            raise KilnError(f"enable_fp_fusion must be True or False, not "
                            f"{self.enable_fp_fusion!r}")
        return GPUOptions(int(self.num_warps), int(self.num_stages),
                          None if self.maxnreg is None else int(self.maxnreg),
                          bool(self.enable_fp_fusion))

    def describe(self) -> str:
        """The options in words, for messages."""
        words = [f"{self.num_warps} warps, {self.num_stages} stages"]
        if self.maxnreg is not None:
            words.append(f"maxnreg {self.maxnreg}")
        if not self.enable_fp_fusion:
            words.append("no fp fusion")
        return ", ".join(words)

    def label(self) -> str:
        """The options as a short name part, for dump folders."""
        label = f"w{self.num_warps}-s{self.num_stages}"
        if self.maxnreg is not None:
            label += f"-r{self.maxnreg}"
        return label if self.enable_fp_fusion else label + "-nofma"


@dataclasses.dataclass(frozen=True)
class KernelMetadata:
    """What ptxas reports of one compiled kernel."""
    name: str
    chip: str
    num_warps: int
    num_stages: int
    registers: int
    spill_stores: int
    spill_loads: int
    shared_memory: int
    stack_frame: int

    @property
    def shared(self) -> int:
        """``shared_memory``, as Triton's ``metadata.shared`` (its fused
        softmax tutorial reads it)."""
        return self.shared_memory


def _parse_ptxas_log(log: str) -> dict[str, dict[str, int]]:
    """Registers, spills, shared memory and stack frame of each entry
    function of a ``ptxas -v`` log."""
    kernels: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        entry = re.search(r"Compiling entry function '([^']+)'", line)
        if entry:
            current = kernels.setdefault(entry[1], {
                "registers": 0, "spill_stores": 0, "spill_loads": 0,
                "shared_memory": 0, "stack_frame": 0})
            continue
        if current is None:
            continue
        for key, pattern in (("stack_frame", r"(\d+) bytes stack frame"),
                             ("spill_stores", r"(\d+) bytes spill stores"),
                             ("spill_loads", r"(\d+) bytes spill loads"),
                             ("registers", r"Used (\d+) registers"),
                             ("shared_memory", r"(\d+) bytes smem")):
            found = re.search(pattern, line)
            if found:
                current[key] = int(found[1])
    return kernels


@functools.cache
def find_cuobjdump() -> str | None:
    """cuobjdump where the compiler would find it (``find_cuda_program``),
    else in the nvidia-cuda-cuobjdump wheel; None where there is none."""
    candidates = [find_cuda_program("cuobjdump")]
    for root in sys.path:
        candidates += sorted(glob.glob(os.path.join(
            root, "nvidia", "*", "bin", "cuobjdump")))
    return next((c for c in candidates if c and os.path.isfile(c)), None)


def disassemble(cubin: bytes) -> str:
    """The SASS of ``cubin`` (``cuobjdump -sass``); empty when cuobjdump is
    not found or the cubin is empty."""
    tool = find_cuobjdump()
    if not tool or not cubin:
        return ""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "kernel.cubin")
        with open(path, "wb") as out:
            out.write(cubin)
        result = subprocess.run([tool, "-sass", path], capture_output=True,
                                text=True)
    if result.returncode != 0:
        raise KilnError(f"cuobjdump failed: {result.stderr.strip()}")
    return result.stdout


def find_cuda_program(name: str) -> str | None:
    """The CUDA toolkit's program ``name`` ("ptxas", "cuobjdump") as the
    compiler finds ptxas: ``$KILN_<NAME>`` alone where it is set, else
    ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``; None where none
    is found. The compiler's own search, so the two cannot disagree."""
    found = _ffi.lib().kilnFindCudaProgram(name.encode())
    return found.decode() if found is not None else None


def find_ptxas() -> str | None:
    """The ptxas program as the compiler finds it; None where there is
    none. The compiler runs it where ``ptx_assembler()`` names it."""
    return find_cuda_program("ptxas")


def ptx_assembler() -> str | None:
    """What assembles the cubins of GPU compiles: the program at
    ``$KILN_PTXAS`` alone where that is set, else ptxas in process where
    Kiln was built with the PTX compiler library ("ptxas 13.0, in
    process"), else the ptxas program ``find_ptxas`` finds (its path).
    None where there is none: binaries are PTX only, and the driver
    compiles them."""
    found = _ffi.lib().kilnFindPtxAssembler()
    return found.decode() if found is not None else None


def record_passes(record: bool) -> None:
    """Makes this thread's next GPU compiles keep the IR after each
    lowering pass that changes it, as their "passes" artifact."""
    _ffi.lib().kilnSetRecordPasses(int(record))


class GPUBinary:
    """A module's kernels compiled for one chip."""

    def __init__(self, module: Module, chip: str, num_warps: int = 4,
                 num_stages: int = 3, maxnreg: int | None = None,
                 enable_fp_fusion: bool = True) -> None:
        """Compiles ``module`` for ``chip`` ("sm_80", "sm_90a", ...) with
        the options of `GPUOptions`: ``num_warps`` warps (32 threads each)
        per program, loops feeding tensor cores pipelined ``num_stages``
        deep (1: not pipelined), at most ``maxnreg`` registers per thread,
        and fma contraction as ``enable_fp_fusion`` says. Raises
        CompilationError with the compiler's diagnostics."""
        self._handle: _ffi.GPUBinaryHandle | None = None
        self.module = module
        self._argument_types: dict[str, list[str]] | None = None
        self.chip = chip
        options = GPUOptions(num_warps, num_stages, maxnreg,
                             enable_fp_fusion).checked()
        self.num_warps, self.num_stages = options.num_warps, options.num_stages
        handle = _ffi.GPUBinaryHandle()
        check(_ffi.lib().kilnGPUBinaryCreate(
            module.handle, chip.encode(), ctypes.byref(_ffi.GPUOptions(
                options.num_warps, options.num_stages, options.maxnreg or 0,
                int(options.enable_fp_fusion))),
            ctypes.byref(handle)))
        self._handle = handle

    @classmethod
    def for_plan(cls, module: Module, plan: str, chip: str,
                 num_warps: int = 4, num_stages: int = 3) -> GPUBinary:
        """The tile kernels the launch plan ``plan`` of ``module`` (after
        kiln-fuse and kiln-tile) launches, compiled for ``chip``; a
        ``CudaModule`` of it runs the plan (``run_plan``)."""
        binary = cls.__new__(cls)
        binary._handle = None
        binary.module = module
        binary._argument_types = None
        binary.chip = chip
        binary.num_warps, binary.num_stages = int(num_warps), int(num_stages)
        handle = _ffi.GPUBinaryHandle()
        check(_ffi.lib().kilnPlanGPUBinaryCreate(
            module.handle, plan.encode(), chip.encode(), int(num_warps),
            int(num_stages), ctypes.byref(handle)))
        binary._handle = handle
        return binary

    @classmethod
    def from_artifacts(cls, module: Module | None, chip: str, ptx: str,
                       cubin: bytes, threads_per_block: int,
                       dynamic_shared_bytes: int = 0,
                       tensor_maps: str = "",
                       arguments: dict[str, list[str]] | None = None
                       ) -> GPUBinary:
        """A binary compiled before (kept by an on-disk cache): the PTX and
        cubin of ``module``'s kernels for ``chip``, launched with
        ``dynamic_shared_bytes`` of dynamic shared memory and building the
        TMA ``tensor_maps`` (the "tensor-maps" artifact). Without the
        module, ``arguments`` gives each kernel's argument types."""
        if module is None and arguments is None:
            raise KilnError("a binary from artifacts needs its module or "
                            "its kernels' argument types")
        binary = cls.__new__(cls)
        binary._handle = None
        binary.module = module
        binary._argument_types = None if module is not None else arguments
        binary.chip = chip
        binary.num_warps = threads_per_block // 32
        binary.num_stages = 0  # not recorded in the cache
        handle = _ffi.GPUBinaryHandle()
        ptx_bytes = ptx.encode()
        check(_ffi.lib().kilnGPUBinaryCreateFromArtifacts(
            ptx_bytes, len(ptx_bytes), cubin, len(cubin), threads_per_block,
            dynamic_shared_bytes, tensor_maps.encode(), ctypes.byref(handle)),
            KilnError)
        binary._handle = handle
        return binary

    def kernel_argument_types(self, kernel: str) -> list[str]:
        """``kernel``'s argument types as IR text (``["!tile.ptr<f32>",
        "i32"]``)."""
        if self._argument_types is None:
            return self.module.kernel_argument_types(kernel)
        if kernel not in self._argument_types:
            raise KilnError(f"the binary has no kernel '{kernel}'")
        return self._argument_types[kernel]

    def artifact(self, stage: str) -> bytes:
        """One stage's output: "llvm", "ptx", "cubin" (empty where ptxas
        was not found), "ptxas-log" or "tensor-maps"."""
        if self._handle is None:
            raise KilnError("the binary is closed")
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        check(_ffi.lib().kilnGPUBinaryGetArtifact(
            self._handle, stage.encode(), ctypes.byref(data),
            ctypes.byref(size)), KilnError)
        return ctypes.string_at(data, size.value) if size.value else b""

    @property
    def ptx(self) -> str:
        return self.artifact("ptx").decode()

    @property
    def llvm_ir(self) -> str:
        return self.artifact("llvm").decode()

    @property
    def cubin(self) -> bytes:
        return self.artifact("cubin")

    @property
    def ptxas_log(self) -> str:
        return self.artifact("ptxas-log").decode()

    @property
    def remarks(self) -> list[Diagnostic]:
        """The compile's remarks and warnings (why a loop was not
        pipelined, ...), each at the line it names; none for a binary made
        from artifacts."""
        return parse_remarks(self.artifact("remarks").decode())

    @property
    def tensor_maps(self) -> str:
        """How each launch builds the TMA tensor maps of the kernels that
        copy with TMA (one line per map; empty when none does)."""
        return self.artifact("tensor-maps").decode()

    @property
    def threads_per_block(self) -> int:
        return _ffi.lib().kilnGPUBinaryGetThreadsPerBlock(self._handle)

    @property
    def dynamic_shared_bytes(self) -> int:
        """Dynamic shared memory each launch gives the kernels (0: their
        shared memory, up to 48 KiB, is static)."""
        return _ffi.lib().kilnGPUBinaryGetDynamicSharedBytes(self._handle)

    @property
    def sass(self) -> str:
        """The cubin disassembled (empty where cuobjdump is not found)."""
        return disassemble(self.cubin)

    def metadata(self, kernel: str) -> KernelMetadata:
        """What ptxas reported of ``kernel``: registers, spills, shared
        memory (static, plus the dynamic shared memory of each launch).
        Raises KilnError where ptxas did not run (no cubin)."""
        found = _parse_ptxas_log(self.ptxas_log).get(kernel)
        if found is None:
            raise KilnError(f"no ptxas report of kernel '{kernel}' (ptxas "
                            "was not found, or the binary came from the "
                            "cache)")
        found["shared_memory"] += self.dynamic_shared_bytes
        return KernelMetadata(kernel, self.chip, self.num_warps,
                              self.num_stages, **found)

    def load(self, ordinal: int = 0) -> CudaModule:
        """The binary loaded on device ``ordinal``."""
        return CudaModule(self, ordinal)

    def close(self) -> None:
        if self._handle is not None:
            _ffi.lib().kilnGPUBinaryDestroy(self._handle)
            self._handle = None

    def __enter__(self) -> GPUBinary:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _checked_address(where: str, pointee: str, value: Any) -> int:
    """The address of a device array of ``pointee`` elements, checked."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        raise KilnError(f"{where} must be a device array (an object with "
                        f"__cuda_array_interface__, such as a CUDA tensor), "
                        f"not {type(value).__name__}")
    element = device_array_element(value, interface)
    if semantics.signless(element) != pointee:
        raise KilnError(f"{where} must be an array of "
                        f"{kl.BY_IR[pointee].name}, not "
                        f"{kl.BY_IR[element].name}")
    return int(interface["data"][0])


class PlanGraph:
    """A launch plan captured into a CUDA graph: each ``launch`` replays
    all its kernels with one graph launch, on the arguments it is given
    (the kernels whose parameters change are updated in the graph first)
    or on those of the last launch. Holds the plan's temporaries, and the
    module whose kernels it launches."""

    def __init__(self, handle: _ffi.PlanGraphHandle, kernels: CudaModule
                 ) -> None:
        self._handle: _ffi.PlanGraphHandle | None = handle
        self._kernels = kernels

    def launch(self, stream: int = 0,
               arguments: Sequence[int] | None = None) -> None:
        """Queues the plan's launches on ``stream`` (0: the default), on
        ``arguments`` (as ``CudaModule.run_plan`` takes them; sizes that
        would change a temporary or a grid are an error) or, where None,
        on those of the last launch."""
        if self._handle is None:
            raise KilnError("the graph is closed")
        if arguments is None:
            values, count = None, 0
        else:
            count = len(arguments)
            values = (ctypes.c_uint64 * count)(*arguments)
        check(_ffi.lib().kilnPlanGraphLaunch(self._handle, values, count,
                                             int(stream)), LaunchError)

    def close(self) -> None:
        if self._handle is not None:
            _ffi.lib().kilnPlanGraphDestroy(self._handle)
            self._handle = None

    def __del__(self) -> None:
        self.close()


class CudaModule:
    """A GPUBinary loaded on a device."""

    def __init__(self, binary: GPUBinary, ordinal: int = 0) -> None:
        self._handle: _ffi.CudaModuleHandle | None = None
        self._binary = binary
        self._launchers: dict[str, KernelLauncher] = {}
        handle = _ffi.CudaModuleHandle()
        check(_ffi.lib().kilnCudaModuleCreate(binary._handle, ordinal,
                                              ctypes.byref(handle)), CudaError)
        self._handle = handle

    def launch(self, kernel: str, grid: Sequence[int], *args: Any,
               stream: int = 0) -> None:
        """Launches ``kernel`` on ``grid`` (up to three sizes, x first) on
        ``stream`` (a CUstream handle; 0 is the default stream), with
        ``args`` checked against the kernel's argument types.
        Asynchronous, like any CUDA launch; a grid with a zero size, as on
        the host, runs no program."""
        if self._handle is None:
            raise KilnError("the module is closed")
        grid = tuple(grid)
        check_grid(grid)
        launcher = self.launcher(kernel)
        launcher.launch_unchecked(grid, launcher.checked_values(args),
                                  int(stream))

    def run_plan(self, module: Module, plan: str, arguments: Sequence[int],
                 stream: int = 0) -> None:
        """Runs the launch plan ``plan`` of ``module``, whose kernels this
        module holds (``GPUBinary.for_plan``), on ``stream``: ``arguments``
        are the device addresses of its inputs, then of its results, then
        its sizes. Asynchronous, like a launch."""
        if self._handle is None:
            raise KilnError("the module is closed")
        values = (ctypes.c_uint64 * len(arguments))(*arguments)
        check(_ffi.lib().kilnPlanRunOnGPU(
            module.handle, plan.encode(), self._handle, values,
            len(arguments), int(stream)), LaunchError)

    def capture_plan(self, module: Module, plan: str,
                     arguments: Sequence[int]) -> PlanGraph:
        """The launch plan ``plan`` of ``module`` captured into a CUDA
        graph for ``arguments`` (as ``run_plan`` takes them)."""
        if self._handle is None:
            raise KilnError("the module is closed")
        values = (ctypes.c_uint64 * len(arguments))(*arguments)
        handle = _ffi.PlanGraphHandle()
        check(_ffi.lib().kilnPlanGraphCreate(
            module.handle, plan.encode(), self._handle, values,
            len(arguments), ctypes.byref(handle)), LaunchError)
        return PlanGraph(handle, self)

    def launcher(self, kernel: str) -> KernelLauncher:
        """``kernel`` with its argument buffers made once (made on first
        use, then kept)."""
        launcher = self._launchers.get(kernel)
        if launcher is None:
            types = self._binary.kernel_argument_types(kernel)
            launcher = self._launchers[kernel] = KernelLauncher(
                self, kernel, types)
        return launcher

    def close(self) -> None:
        if self._handle is not None:
            for launcher in self._launchers.values():
                if launcher.native is not None:
                    launcher.native.close()
            _ffi.lib().kilnCudaModuleDestroy(self._handle)
            self._handle = None

    def __enter__(self) -> CudaModule:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


#: The parameter types a Python scalar specializes to, as kiln._launch.Kernel
#: names them (pointers are "p").
NATIVE_KINDS = {"i1": "b", "i32": "i", "i64": "l", "f32": "f"}


class KernelLauncher:
    """One kernel of a loaded module, with its argument buffers and their
    pointer array made once: a launch writes the values into the buffers
    and makes one call into the runtime (CudaModule.launch, which checks
    its arguments first: checked_values). ``native`` is the same kernel as
    ``@kiln.jit``'s cache hits launch it, in C."""

    def __init__(self, module: CudaModule, kernel: str,
                 types: list[str]) -> None:
        self._module = module  # keeps the loaded module alive
        self._name = kernel
        self._kernel = kernel.encode()
        self._types = types
        self._pointees = [type_.pointee if type_.is_pointer else None
                          for type_ in map(parse_type, types)]
        # A scalar type that cannot be passed gets a placeholder, which
        # checked_values never fills: it refuses the argument.
        self._slots = [ctypes.c_uint64() if pointee else
                       SCALAR_CTYPES.get(t, ctypes.c_uint64)()
                       for t, pointee in zip(types, self._pointees)]
        self._pointers = (ctypes.c_void_p * len(self._slots))(
            *[ctypes.addressof(slot) for slot in self._slots])
        self._grid = (ctypes.c_uint * 3)()
        self._launch = _ffi.lib().kilnCudaModuleLaunch
        self._lock = threading.Lock()  # the buffers are shared
        self.native = self._native_kernel()

    def _native_kernel(self) -> Any:
        """The kernel as ``@kiln.jit``'s cache hits launch it in C
        (kiln._launch.Kernel), or None: no extension, or a parameter type
        a Python argument never specializes to (f16, i8, ...)."""
        module = _ffi.launch_extension()
        kinds = "".join("p" if pointee else
                        NATIVE_KINDS.get(type_text, "?")
                        for type_text, pointee in zip(self._types,
                                                      self._pointees))
        if module is None or "?" in kinds:
            return None
        launch = ctypes.cast(self._launch, ctypes.c_void_p).value
        return module.Kernel(launch, self._module._handle.value,
                             self._kernel, kinds)

    def fail(self, error: int) -> None:
        """Raises what a launch by the extension ran into: the module was
        closed (``error`` 0), or the C API's error at address ``error``."""
        if not error:
            raise KilnError("the module is closed")
        check(_ffi.ErrorHandle(error), LaunchError)

    def checked_values(self, args: Sequence[Any]) -> list:
        """``args`` checked against the kernel's argument types (their
        count, device arrays of the pointee type, scalars that fit), as the
        values a launch writes: addresses and numbers."""
        if len(args) != len(self._types):
            raise KilnError(f"'{self._name}' takes {len(self._types)} "
                            f"arguments ({', '.join(self._types)}), but "
                            f"{len(args)} were given")
        values = []
        for i, (type_text, pointee, value) in enumerate(
                zip(self._types, self._pointees, args)):
            where = f"argument {i} of '{self._name}' ({type_text})"
            values.append(_checked_address(where, pointee, value) if pointee
                          else scalar_value(where, type_text, value))
        return values

    def launch_unchecked(self, grid: tuple[int, ...], values: Sequence[Any],
                         stream: int) -> None:
        """Launches on ``grid`` (checked by the caller; a zero size runs
        nothing) with ``values``, one per kernel argument, as
        checked_values gives them."""
        handle = self._module._handle
        if handle is None:
            raise KilnError("the module is closed")
        if 0 in grid:
            return
        with self._lock:
            for slot, value in zip(self._slots, values):
                slot.value = value
            sizes = self._grid
            sizes[0], sizes[1], sizes[2] = map(int, (grid + (1, 1))[:3])
            check(self._launch(handle, self._kernel, sizes, self._pointers,
                               len(self._slots), stream), LaunchError)
