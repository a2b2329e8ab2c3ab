"""Where the user's code is: the Python line each traced operation comes
from, and the errors raised at it."""

from __future__ import annotations

import linecache
import os
import sys

import numpy as np

from kiln.errors import KilnCompileError, KilnIndexError, in_kiln
from kiln.frontend.ir import location

_NUMPY_DIR = os.path.dirname(np.__file__)


def _library_dirs() -> tuple[str, ...]:
    """numpy's folder, and torch's once it is imported: their functions
    forward to a traced array's protocols."""
    torch = sys.modules.get("torch")
    dirs = (_NUMPY_DIR + os.sep, "<__array")
    if torch is not None and getattr(torch, "__file__", None):
        dirs += (os.path.dirname(torch.__file__) + os.sep,)
    return dirs


def _user_frame():
    """The innermost frame outside Kiln, numpy and torch: the line of the
    user's code that asked for what is being done."""
    skipped = _library_dirs()
    frame = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if not in_kiln(file) and not file.startswith(skipped):
            return frame
        frame = frame.f_back
    return None


def _where() -> tuple[str, int, int]:
    """File, line and column (1-based) of the user's code."""
    frame = _user_frame()
    if frame is None:
        return "<unknown>", 0, 0
    column = 1
    try:
        positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        if positions[2] is not None:
            column = positions[2] + 1
    except (AttributeError, IndexError):  # Python < 3.11
        pass
    return frame.f_code.co_filename, frame.f_lineno, column


def _error(message: str, where: tuple[str, int, int] | None = None
           ) -> KilnCompileError:
    file, line, column = where or _where()
    return KilnCompileError(message, file, line, column,
                            linecache.getline(file, line))


class _TracedIndexError(KilnCompileError, KilnIndexError):
    """An index outside its axis, found while tracing: at the line that
    indexes (a ``KilnCompileError``), and an ``IndexError`` as numpy's."""


def _index_error(message: str) -> _TracedIndexError:
    file, line, column = _where()
    return _TracedIndexError(message, file, line, column,
                             linecache.getline(file, line))


def _loc(where: tuple[str, int, int]) -> str:
    return location(*where)
