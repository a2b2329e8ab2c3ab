"""Triton's ``triton.language.extra.cuda``: ``libdevice``."""

from __future__ import annotations

from kiln.extra import libdevice

__all__ = ["libdevice"]
