"""What the ``kiln.fuse`` tests share: the plan a traced function makes,
and errors checked against the line of the test file that raised them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kiln
from kiln.host import ARRAY_PIPELINE


def marked_line(path: str, marker: str) -> int:
    """The line of the file at ``path`` that ends with ``marker`` (once)."""
    lines = [i + 1 for i, text in enumerate(Path(path).read_text()
                                            .splitlines())
             if text.endswith(marker)]
    assert len(lines) == 1, marker
    return lines[0]


def plan_of(fused, *args) -> str:
    """The launch plan and tile kernels ARRAY_PIPELINE makes of ``fused``
    traced for ``args``."""
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, fused.ir(*args))
        module.run_pipeline(ARRAY_PIPELINE)
        return str(module)


def kernel_count(fused, *args) -> int:
    """How many kernels the plan launches for these arguments."""
    return len(re.findall(r"plan.launch @", plan_of(fused, *args)))


def raises_at(path: str, fn, *args, match: str, line: str):
    """``fn(*args)`` raises a ``KilnError`` matching ``match`` at the line
    of ``path`` marked ``line``; the error is returned."""
    with pytest.raises(kiln.KilnError, match=match) as info:
        fn(*args)
    assert info.value.filename == path
    assert info.value.line == marked_line(path, line)
    return info.value
