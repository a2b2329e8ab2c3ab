"""How Python text goes into the MLIR that the front ends write
(``codegen.py`` for kernels, ``fuse.py`` for array programs), in one
place: string literals, symbol names and locations."""

from __future__ import annotations

import re


def string_literal(text: str) -> str:
    """``text`` as an MLIR string literal: printable ASCII as it is, every
    other byte (a quote, a backslash, UTF-8) as a hex escape."""
    escaped = "".join(
        c if " " <= c <= "~" and c not in '"\\' else
        "".join(f"\\{b:02X}" for b in c.encode()) for c in text)
    return f'"{escaped}"'


def symbol(name: str) -> str:
    """``name`` as an MLIR symbol name: bare where it is a plain
    identifier, else a string literal (a Unicode kernel name)."""
    plain = name.isascii() and name.replace("_", "a").isalnum() and \
        not name[0].isdigit()
    return name if plain else string_literal(name)


def location(file: str, line: int, column: int) -> str:
    """``loc("file":line:column)``."""
    return f"loc({string_literal(file)}:{line}:{column})"


#: A location in IR text that ``location`` wrote: file, line, column.
LOCATION = re.compile(r'loc\("([^"]*)":(\d+):(\d+)\)')


def find_location(text: str) -> tuple[str, int, int] | None:
    """The first location ``location`` wrote in ``text``, its file name
    unescaped."""
    found = LOCATION.search(text)
    if not found:
        return None
    file = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m[1], 16)]),
                  found[1].encode()).decode(errors="replace")
    return file, int(found[2]), int(found[3])
