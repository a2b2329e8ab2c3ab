"""Kiln's exceptions and compiler diagnostics."""

from __future__ import annotations

import enum
import functools
import json
import os
import sysconfig
import warnings
from dataclasses import dataclass
from types import TracebackType
from typing import Callable, Iterable

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep
_INSTALLED = tuple(os.path.abspath(sysconfig.get_paths()[key]) + os.sep
                   for key in ("purelib", "platlib"))


def in_kiln(filename: str) -> bool:
    """Whether code of `filename` is Kiln's own (its package's)."""
    return os.path.abspath(filename).startswith(_PACKAGE)


def _internal(filename: str) -> bool:
    """Whether a frame of `filename` is Kiln's, or the standard library's
    that Kiln's front end calls (ast's visitors); installed packages,
    which may be the user's, are not."""
    path = os.path.abspath(filename)
    return in_kiln(path) or (path.startswith(_STDLIB) and
                             not path.startswith(_INSTALLED))


class KilnError(Exception):
    """Base of every exception Kiln raises."""


class Severity(enum.IntEnum):
    """Mirror of ``KilnSeverity`` in ``kiln-c/Kiln.h``."""

    ERROR = 0
    WARNING = 1
    NOTE = 2
    REMARK = 3


@dataclass(frozen=True)
class Diagnostic:
    """One compiler message and where it points.

    ``file`` is empty and ``line``/``column`` are 0 when the message has no
    source location.
    """

    severity: Severity
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        return f"{where}{self.severity.name.lower()}: {self.message}"


class CompilerRemark(UserWarning):
    """Why the compiler took a slower path than it could have (a loop not
    pipelined, a dot on mma.sync rather than wgmma, a load not copied by
    TMA, an operation of a ``kiln.fuse`` function not fused with its
    neighbours), warned at the user's line when the code compiles.
    ``warnings.filterwarnings("ignore", category=kiln.CompilerRemark)``
    silences them."""


def parse_remarks(lines: str) -> list[Diagnostic]:
    """The C API's remarks (one JSON object a line: severity, file, line,
    column, message) as diagnostics."""
    return [Diagnostic(Severity.REMARK if item["severity"] == "remark"
                       else Severity.WARNING, item["file"], item["line"],
                       item["column"], item["message"])
            for item in map(json.loads, lines.splitlines())]


def warn_remarks(remarks: Iterable[Diagnostic], where: str) -> None:
    """`remarks` as CompilerRemark warnings at the lines they name, `where`
    standing for the file of those without one."""
    for remark in remarks:
        warnings.warn_explicit(remark.message, CompilerRemark,
                               remark.file or where, remark.line)


class CompilationError(KilnError):
    """The compiler rejected a program; ``diagnostics`` says where and why.

    >>> import kiln
    >>> with kiln.Context() as ctx:
    ...     kiln.Module.parse(ctx, "func.func @f() { %0 = tile.range 4 to 4 "
    ...                       ": tensor<0xi32>\\n return }", "k.mlir")
    Traceback (most recent call last):
    ...
    kiln.errors.CompilationError: failed to parse k.mlir
    k.mlir:1:23: error: 'tile.range' op end (4) must be greater than start (4)
    """

    def __init__(self, message: str, diagnostics: list[Diagnostic]):
        self.message = message
        self.diagnostics = diagnostics
        super().__init__("\n".join([message, *map(str, diagnostics)]))


class KilnCompileError(CompilationError):
    """A kernel the JIT cannot translate; points at the Python source. A
    ``kiln.CompilationError``, whose one diagnostic it carries."""

    def __init__(self, message: str, filename: str, line: int, column: int,
                 source_line: str = "") -> None:
        self.message, self.filename = message, filename
        self.line, self.column = line, column
        self.diagnostics = [Diagnostic(Severity.ERROR, filename, line, column,
                                       message)]
        text = f'{filename}:{line}:{column}: error: {message}'
        if source_line:
            text += f"\n{source_line.rstrip()}\n{' ' * (column - 1)}^"
        KilnError.__init__(self, text)


def _without_kiln_frames(tb: TracebackType | None) -> TracebackType | None:
    """The traceback `tb` with the frames of Kiln's own modules and of the
    standard library unlinked."""
    kept = []
    while tb is not None:
        if not _internal(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    for frame, following in zip(kept, kept[1:] + [None]):
        frame.tb_next = following
    return kept[0] if kept else None


def user_facing(method: Callable) -> Callable:
    """`method`, with the compile errors it raises (CompilationError and
    its subclasses) cleared of Kiln's own frames, as Triton trims its
    tracebacks: the message shows the kernel's line with a caret, and the
    traceback ends at the user's call, not in the front end's 30 frames.
    ``KILN_FRONT_END_DEBUGGING=1`` keeps every frame."""

    @functools.wraps(method)
    def trimmed(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except CompilationError as error:
            if os.environ.get("KILN_FRONT_END_DEBUGGING", "") in ("", "0"):
                error.__traceback__ = _without_kiln_frames(
                    error.__traceback__)
            raise

    return trimmed


class LaunchError(KilnError):
    """A kernel could not be launched or failed while running (a bad
    argument, an out-of-bounds access in bounds-check mode)."""


class KilnIndexError(KilnError, IndexError):
    """An index array given to a ``kiln.fuse`` function holds an index
    outside the axis it indexes, where numpy would raise ``IndexError``."""


class CudaError(KilnError):
    """The CUDA driver is missing or reported an error; the message names
    the driver's error and what was being done."""


class UnsupportedError(KilnError, AttributeError):
    """A name of Triton's API that Kiln lacks; an ``AttributeError`` too,
    so ``hasattr`` and ``getattr(module, name, default)`` work."""


def lookup_error(module: str, triton_module: str, name: str,
                 triton_names: Iterable[str],
                 reasons: dict[str, str] | None = None) -> AttributeError:
    """The error for ``module.name``: Kiln lacks one of Triton's names
    (saying why where ``reasons`` does), or neither has it (a plain
    AttributeError for dunder names, which Python itself probes)."""
    if name.startswith("__") and name.endswith("__"):
        return AttributeError(f"module '{module}' has no attribute '{name}'")
    if name in triton_names:
        why = (reasons or {}).get(name)
        return UnsupportedError(f"{module} has no '{name}' (Triton's "
                                f"{triton_module}.{name} is not supported by "
                                f"Kiln yet{': ' + why if why else ''})")
    return UnsupportedError(f"{module} has no '{name}' (nor has Triton's "
                            f"{triton_module})")
