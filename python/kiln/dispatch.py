"""How a language function called outside the compiler reaches the
interpreter mode. ``kiln.interpreter`` installs itself here when imported;
``kiln.language`` and ``kiln.extra.libdevice``, which it imports, reach it
through here instead of importing it back."""

from __future__ import annotations

from typing import Any, Protocol


class Interpreter(Protocol):
    """What the interpreter mode offers the language's functions."""

    def active(self) -> bool: ...
    def call_builtin(self, name: str, args: tuple, kwargs: dict) -> Any: ...
    def call_libdevice(self, name: str, args: tuple) -> Any: ...
    def kernel_range(self, *bounds: Any, num_stages: Any = None) -> Any: ...


_installed: Interpreter | None = None


def install(interpreter: Interpreter) -> None:
    global _installed
    _installed = interpreter


def interpreting() -> Interpreter | None:
    """The interpreter, where it is running a kernel on this thread."""
    if _installed is not None and _installed.active():
        return _installed
    return None
