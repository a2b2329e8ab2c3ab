"""Triton's ``triton.language.extra`` over Kiln: ``libdevice`` (also as
``extra.cuda.libdevice``), reached as ``kl.extra`` and ``tl.extra``, and
importable as ``kiln.language.extra`` and ``kiln.triton.language.extra``
(``from kiln.triton.language.extra import libdevice``)."""

from __future__ import annotations

import sys

from kiln.extra import cuda, libdevice

__all__ = ["cuda", "libdevice"]


def register_as(prefix: str) -> None:
    """Makes ``{prefix}.extra`` and its modules importable by those names:
    ``kiln.language`` is a module, not a package, so Python's import
    system cannot find them under it."""
    module = sys.modules[__name__]
    for suffix, value in (("", module), (".cuda", cuda),
                          (".libdevice", libdevice),
                          (".cuda.libdevice", libdevice)):
        sys.modules.setdefault(f"{prefix}.extra{suffix}", value)
