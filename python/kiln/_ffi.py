"""Loading of Kiln's C API library (``libKilnCAPI.so``) through ctypes.

The one module that touches ctypes. The library is found, loaded and
checked on first use, and every symbol gets its ``argtypes`` and ``restype``
here, so the rest of the package calls typed functions.

Search order: ``$KILN_LIBRARY_PATH`` (the file itself), the package's
``_lib`` folder (an installed package), then ``lib/`` of the build tree:
``$KILN_BUILD_DIR`` or ``<repo>/build``. The launch extension
(``_launch.abi3.so``, ``launch_extension``) is looked for beside it.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
import os
import threading
from pathlib import Path
from types import ModuleType

from kiln.errors import KilnError

#: The C API version this package was written against (KILN_C_API_VERSION).
API_VERSION = 13
LIBRARY_NAME = "libKilnCAPI.so"
EXTENSION_NAME = "_launch.abi3.so"


class ContextHandle(ctypes.c_void_p):
    """An owned ``KilnContext *``."""


class ModuleHandle(ctypes.c_void_p):
    """An owned ``KilnModule *``."""


class HostExecutableHandle(ctypes.c_void_p):
    """An owned ``KilnHostExecutable *``."""


class GPUBinaryHandle(ctypes.c_void_p):
    """An owned ``KilnGPUBinary *``."""


class PlanGraphHandle(ctypes.c_void_p):
    pass


class CudaModuleHandle(ctypes.c_void_p):
    """An owned ``KilnCudaModule *``."""


class ErrorHandle(ctypes.c_void_p):
    """An owned ``KilnError *``; NULL means success."""


class GPUOptions(ctypes.Structure):
    """Mirror of ``KilnGPUOptions``."""
    _fields_ = [("numWarps", ctypes.c_int), ("numStages", ctypes.c_int),
                ("maxRegisters", ctypes.c_int), ("fpFusion", ctypes.c_int)]


class MemoryRange(ctypes.Structure):
    """Mirror of ``KilnMemoryRange``."""

    _fields_ = [("begin", ctypes.c_uint64), ("end", ctypes.c_uint64),
                ("name", ctypes.c_char_p), ("argument", ctypes.c_int32),
                ("read_only", ctypes.c_int32)]


class DiagnosticRecord(ctypes.Structure):
    """Mirror of ``KilnDiagnostic``."""

    _fields_ = [
        ("severity", ctypes.c_int),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_uint),
        ("column", ctypes.c_uint),
        ("message", ctypes.c_char_p),
    ]


_SIGNATURES = {
    "kilnGetAPIVersion": ([], ctypes.c_int),
    "kilnErrorGetMessage": ([ErrorHandle], ctypes.c_char_p),
    "kilnErrorGetNumDiagnostics": ([ErrorHandle], ctypes.c_size_t),
    "kilnErrorGetDiagnostic": ([ErrorHandle, ctypes.c_size_t],
                               ctypes.POINTER(DiagnosticRecord)),
    "kilnErrorDestroy": ([ErrorHandle], None),
    "kilnContextCreate": ([], ContextHandle),
    "kilnContextDestroy": ([ContextHandle], None),
    "kilnModuleCreateParse": ([ContextHandle, ctypes.c_char_p, ctypes.c_size_t,
                               ctypes.c_char_p, ctypes.POINTER(ModuleHandle)],
                              ErrorHandle),
    "kilnModuleDestroy": ([ModuleHandle], None),
    "kilnModuleRunPipeline": ([ModuleHandle, ctypes.c_char_p], ErrorHandle),
    "kilnModuleGetText": ([ModuleHandle], ctypes.c_char_p),
    "kilnModuleGetRemarks": ([ModuleHandle], ctypes.c_char_p),
    "kilnHostExecutableGetArtifact": ([HostExecutableHandle, ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.c_void_p),
                                       ctypes.POINTER(ctypes.c_size_t)],
                                      ErrorHandle),
    "kilnHostExecutableCreateFromArtifacts": (
        [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
         ctypes.POINTER(HostExecutableHandle)], ErrorHandle),
    "kilnGetHostTarget": ([], ctypes.c_char_p),
    "kilnModuleGetKernelNumArguments": ([ModuleHandle, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_size_t)],
                                        ErrorHandle),
    "kilnModuleGetKernelArgumentType": ([ModuleHandle, ctypes.c_char_p,
                                         ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_char_p)],
                                        ErrorHandle),
    "kilnHostExecutableCreate": ([ModuleHandle, ctypes.c_int,
                                  ctypes.POINTER(HostExecutableHandle)],
                                 ErrorHandle),
    "kilnHostExecutableDestroy": ([HostExecutableHandle], None),
    "kilnHostExecutableSetThreads": ([HostExecutableHandle, ctypes.c_uint],
                                     None),
    "kilnHostExecutableRunPlan": ([HostExecutableHandle, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_int64),
                                   ctypes.c_size_t], ErrorHandle),
    "kilnModuleBindLaunchPlan": ([ModuleHandle, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_size_t),
                                  ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.c_int64),
                                  ctypes.POINTER(ctypes.c_int64),
                                  ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.c_size_t),
                                  ctypes.POINTER(ctypes.c_int64),
                                  ctypes.c_size_t], ErrorHandle),
    "kilnModuleGetFunctionAttribute": ([ModuleHandle, ctypes.c_char_p,
                                        ctypes.c_char_p,
                                        ctypes.POINTER(ctypes.c_char_p)],
                                       ErrorHandle),
    "kilnHostExecutableLaunch": ([HostExecutableHandle, ctypes.c_char_p,
                                  ctypes.c_uint * 3,
                                  ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.c_size_t,
                                  ctypes.POINTER(MemoryRange),
                                  ctypes.c_size_t],
                                 ErrorHandle),
    "kilnCudaGetDeviceCount": ([ctypes.POINTER(ctypes.c_int)], ErrorHandle),
    "kilnCudaGetDeviceInfo": ([ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                               ctypes.POINTER(ctypes.c_int),
                               ctypes.POINTER(ctypes.c_int)], ErrorHandle),
    "kilnCudaGetDeviceChip": ([ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t],
                              ErrorHandle),
    "kilnGPUBinaryCreate": ([ModuleHandle, ctypes.c_char_p,
                             ctypes.POINTER(GPUOptions),
                             ctypes.POINTER(GPUBinaryHandle)], ErrorHandle),
    "kilnSetRecordPasses": ([ctypes.c_int], None),
    "kilnFindCudaProgram": ([ctypes.c_char_p], ctypes.c_char_p),
    "kilnFindPtxAssembler": ([], ctypes.c_char_p),
    "kilnGPUBinaryCreateFromArtifacts": ([ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_uint, ctypes.c_uint,
                                          ctypes.c_char_p,
                                          ctypes.POINTER(GPUBinaryHandle)],
                                         ErrorHandle),
    "kilnGPUBinaryDestroy": ([GPUBinaryHandle], None),
    "kilnGPUBinaryGetArtifact": ([GPUBinaryHandle, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_size_t)],
                                 ErrorHandle),
    "kilnGPUBinaryGetThreadsPerBlock": ([GPUBinaryHandle], ctypes.c_uint),
    "kilnGPUBinaryGetDynamicSharedBytes": ([GPUBinaryHandle], ctypes.c_uint),
    "kilnCudaModuleCreate": ([GPUBinaryHandle, ctypes.c_int,
                              ctypes.POINTER(CudaModuleHandle)], ErrorHandle),
    "kilnCudaModuleDestroy": ([CudaModuleHandle], None),
    "kilnCudaModuleLaunch": ([CudaModuleHandle, ctypes.c_char_p,
                              ctypes.c_uint * 3,
                              ctypes.POINTER(ctypes.c_void_p),
                              ctypes.c_size_t, ctypes.c_uint64], ErrorHandle),
    "kilnCudaSynchronize": ([ctypes.c_int], ErrorHandle),
    "kilnPlanGPUBinaryCreate": ([ModuleHandle, ctypes.c_char_p,
                                 ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                 ctypes.POINTER(GPUBinaryHandle)],
                                ErrorHandle),
    "kilnPlanRunOnGPU": ([ModuleHandle, ctypes.c_char_p, CudaModuleHandle,
                          ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t,
                          ctypes.c_uint64], ErrorHandle),
    "kilnPlanGraphCreate": ([ModuleHandle, ctypes.c_char_p, CudaModuleHandle,
                             ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t,
                             ctypes.POINTER(PlanGraphHandle)], ErrorHandle),
    "kilnPlanGraphLaunch": ([PlanGraphHandle,
                             ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t,
                             ctypes.c_uint64], ErrorHandle),
    "kilnPlanGraphDestroy": ([PlanGraphHandle], None),
    "kilnCudaAllocate": ([ctypes.c_int, ctypes.c_size_t,
                          ctypes.POINTER(ctypes.c_uint64)], ErrorHandle),
    "kilnCudaFree": ([ctypes.c_int, ctypes.c_uint64], ErrorHandle),
    "kilnCudaCopyToDevice": ([ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p,
                              ctypes.c_size_t], ErrorHandle),
    "kilnCudaCopyToHost": ([ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                            ctypes.c_size_t], ErrorHandle),
}

_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def candidate_paths() -> list[Path]:
    """Where the library is looked for, in order."""
    explicit = os.environ.get("KILN_LIBRARY_PATH")
    if explicit:
        return [Path(explicit)]
    package = Path(__file__).resolve().parent
    build = Path(os.environ.get("KILN_BUILD_DIR",
                                package.parent.parent / "build"))
    return [package / "_lib" / LIBRARY_NAME, build / "lib" / LIBRARY_NAME]


def _load() -> ctypes.CDLL:
    for path in candidate_paths():
        if path.exists():
            break
    else:
        looked = ", ".join(str(p) for p in candidate_paths())
        raise KilnError(f"cannot find {LIBRARY_NAME}; looked in: {looked}. "
                        "Build Kiln (scripts/test.sh) or set KILN_LIBRARY_PATH.")
    try:
        library = ctypes.CDLL(str(path))
    except OSError as exc:
        raise KilnError(f"cannot load {path}: {exc}") from exc
    for name, (argtypes, restype) in _SIGNATURES.items():
        function = getattr(library, name)
        function.argtypes = argtypes
        function.restype = restype
    version = library.kilnGetAPIVersion()
    if version != API_VERSION:
        raise KilnError(f"{path} has C API version {version}, but this "
                        f"package needs version {API_VERSION}")
    return library


def lib() -> ctypes.CDLL:
    """The loaded library; loads it on first call."""
    global _library
    with _lock:
        if _library is None:
            _library = _load()
        return _library


_extension: ModuleType | None = None
_extension_looked = False


def launch_extension() -> ModuleType | None:
    """``kiln._launch``, the cache-hit launch path in C (built from
    lib/Bindings/Python), from the folder the library was found in; None
    where it was not built (a build without Python's headers)."""
    global _extension, _extension_looked
    with _lock:
        if not _extension_looked:
            _extension_looked = True
            for library in candidate_paths():
                path = library.with_name(EXTENSION_NAME)
                if library.exists() and path.exists():
                    loader = importlib.machinery.ExtensionFileLoader(
                        "kiln._launch", str(path))
                    spec = importlib.util.spec_from_loader("kiln._launch",
                                                           loader)
                    _extension = importlib.util.module_from_spec(spec)
                    loader.exec_module(_extension)
                    break
        return _extension
