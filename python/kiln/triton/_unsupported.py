"""The error for a Triton name that Kiln does not provide."""

from __future__ import annotations

from typing import Iterable

from kiln.errors import KilnError


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
