"""Contexts and modules: IR text in, IR text out, through the C API."""

from __future__ import annotations

import ctypes

from kiln import _ffi
from kiln.errors import (CompilationError, Diagnostic, KilnError, Severity,
                         parse_remarks)


def _text(raw: bytes) -> str:
    """A string from the C API, which may quote input that is not UTF-8."""
    return raw.decode(errors="replace")


def check(error: _ffi.ErrorHandle, kind: type = CompilationError) -> None:
    """Raises `kind` (CompilationError by default, with the diagnostics) for
    a non-NULL error handle, and frees it."""
    if not error:
        return
    lib = _ffi.lib()
    try:
        diagnostics = []
        for i in range(lib.kilnErrorGetNumDiagnostics(error)):
            record = lib.kilnErrorGetDiagnostic(error, i).contents
            diagnostics.append(Diagnostic(
                Severity(record.severity), _text(record.file), record.line,
                record.column, _text(record.message)))
        message = _text(lib.kilnErrorGetMessage(error))
    finally:
        lib.kilnErrorDestroy(error)
    if kind is CompilationError:
        raise CompilationError(message, diagnostics)
    raise kind(message)


class Context:
    """Owns compiler state; every Module lives in one.

    Use it as a context manager, or call ``close()``; modules made in it
    must be closed first (``close()`` closes those still open). A context
    and its modules are used by one thread at a time (MLIR's threading is
    off in it: small modules compile faster without).
    """

    def __init__(self) -> None:
        self._handle = None  # until created, for close() after a failure
        self._handle = _ffi.lib().kilnContextCreate()
        self._modules: list[Module] = []

    @property
    def handle(self) -> _ffi.ContextHandle:
        if self._handle is None:
            raise KilnError("the context is closed")
        return self._handle

    def close(self) -> None:
        if self._handle is None:
            return
        for module in self._modules:
            module.close()
        _ffi.lib().kilnContextDestroy(self._handle)
        self._handle = None

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class Module:
    """A parsed and verified module of IR.

    >>> import kiln
    >>> with kiln.Context() as ctx:
    ...     m = kiln.Module.parse(ctx, '''
    ...       func.func @f() -> tensor<4xf32> {
    ...         %c = arith.constant 1.0 : f32
    ...         %t = tile.splat %c : f32 -> tensor<4xf32>
    ...         return %t : tensor<4xf32>
    ...       }''')
    ...     m.run_pipeline("builtin.module(canonicalize)")
    ...     "dense<1.000000e+00> : tensor<4xf32>" in str(m)
    True
    """

    def __init__(self, context: Context, handle: _ffi.ModuleHandle) -> None:
        self._context = context
        self._handle: _ffi.ModuleHandle | None = handle
        context._modules.append(self)

    @classmethod
    def parse(cls, context: Context, text: str,
              filename: str = "<string>") -> Module:
        """Parses and verifies ``text``; raises CompilationError if invalid."""
        data = text.encode()
        handle = _ffi.ModuleHandle()
        check(_ffi.lib().kilnModuleCreateParse(
            context.handle, data, len(data), filename.encode(),
            ctypes.byref(handle)))
        return cls(context, handle)

    @property
    def handle(self) -> _ffi.ModuleHandle:
        if self._handle is None:
            raise KilnError("the module is closed")
        return self._handle

    def run_pipeline(self, pipeline: str) -> None:
        """Runs a pass pipeline, e.g. ``"builtin.module(canonicalize,cse)"``."""
        check(_ffi.lib().kilnModuleRunPipeline(self.handle, pipeline.encode()))

    @property
    def remarks(self) -> list[Diagnostic]:
        """The remarks and warnings of the last ``run_pipeline`` or host
        compile (why an operation was not fused with its neighbours, why a
        loop was not flattened, ...)."""
        return parse_remarks(_ffi.lib().kilnModuleGetRemarks(
            self.handle).decode())

    def kernel_argument_types(self, kernel: str) -> list[str]:
        """The types of ``kernel``'s arguments as IR text, e.g.
        ``["!tile.ptr<f32>", "i32"]``."""
        lib = _ffi.lib()
        count = ctypes.c_size_t()
        check(lib.kilnModuleGetKernelNumArguments(
            self.handle, kernel.encode(), ctypes.byref(count)))
        types = []
        for i in range(count.value):
            text = ctypes.c_char_p()
            check(lib.kilnModuleGetKernelArgumentType(
                self.handle, kernel.encode(), i, ctypes.byref(text)))
            types.append(text.value.decode())
        return types

    def function_attribute(self, function: str, name: str) -> str | None:
        """Attribute `name` of `function`, printed, or None."""
        text = ctypes.c_char_p()
        check(_ffi.lib().kilnModuleGetFunctionAttribute(
            self.handle, function.encode(), name.encode(), ctypes.byref(text)))
        return text.value.decode() if text.value is not None else None

    def __str__(self) -> str:
        return _ffi.lib().kilnModuleGetText(self.handle).decode()

    def close(self) -> None:
        if self._handle is None:
            return
        _ffi.lib().kilnModuleDestroy(self._handle)
        self._handle = None
        self._context._modules.remove(self)

    def __enter__(self) -> Module:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
