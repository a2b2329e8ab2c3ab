"""A kernel function's source, read and parsed once a process, as Triton
reads its kernels' at decoration: the code generator compiles this text and
the disk cache's fingerprint (``source_key``) hashes the same text, so the
two agree even where a file changes under a running process, and a kernel
whose helpers are called in many places parses each helper once."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import threading
import weakref
from typing import Any, Callable


@dataclasses.dataclass(frozen=True)
class FunctionSource:
    """Where ``fn`` is defined and its text: ``lines`` as in the file,
    ``text`` dedented, and ``tree`` its parse."""
    filename: str
    first_line: int
    lines: tuple[str, ...]
    text: str
    tree: ast.Module

    @property
    def indent(self) -> int:
        """The columns the definition is indented by in the file."""
        return len(self.lines[0]) - len(self.lines[0].lstrip())


_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def read(fn: Callable) -> FunctionSource:
    """``fn``'s source; raises OSError or TypeError, as ``inspect`` does,
    where it has none (a function typed at a prompt, a builtin)."""
    with _lock:
        found = _SOURCES.get(fn)
    if found is not None:
        return found
    lines, first_line = inspect.getsourcelines(fn)
    text = textwrap.dedent("".join(lines))
    found = FunctionSource(inspect.getsourcefile(fn) or "<kernel>",
                           first_line, tuple(lines), text, ast.parse(text))
    with _lock:
        return _SOURCES.setdefault(fn, found)


def captured(fn: Callable) -> dict[str, Any]:
    """The variables ``fn`` captures from the functions around it (a
    kernel a factory function makes), by name, as Python reads them
    before the globals; a cell not yet bound is left out."""
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # bound later in the enclosing function
            pass
    return values
