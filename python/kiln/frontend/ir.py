"""The IR builder of the front ends: types and values of the tile IR as
Python objects, the text of its ops, written line by line with the
location of the Python source each comes from, and how Python text goes
into MLIR text (string literals, symbol names, locations), for kernels and
``kiln.fuse``'s array programs alike."""

from __future__ import annotations

import contextlib
import itertools
import re
from dataclasses import dataclass
from typing import Iterator

from kiln import language as kl
from kiln import semantics


@dataclass(frozen=True)
class Type:
    """A scalar (``shape == ()``) or a tile of ``elem`` (an MLIR scalar
    type: ``f32``, ``i32``, ``!tile.ptr<f16>``...). Kernel arguments may
    also carry what a launch specialized them on: a power of two dividing
    them (`divisibility`) or their value (`known`)."""

    shape: tuple[int, ...]
    elem: str
    divisibility: int = 1
    known: int | None = None

    def divisible_by(self, divisor: int) -> Type:
        return Type(self.shape, self.elem, divisor, self.known)

    def known_to_be(self, value: int) -> Type:
        return Type(self.shape, self.elem, self.divisibility, value)

    def ir(self) -> str:
        if not self.shape:
            return self.elem
        return f"tensor<{'x'.join(map(str, self.shape))}x{self.elem}>"

    def with_elem(self, elem: str) -> Type:
        return Type(self.shape, elem)

    def with_shape(self, shape: tuple[int, ...]) -> Type:
        return Type(tuple(shape), self.elem)

    @property
    def is_pointer(self) -> bool:
        return self.elem.startswith("!tile.ptr<")

    @property
    def pointee(self) -> str:
        return self.elem[len("!tile.ptr<"):-1]

    @property
    def is_block_pointer(self) -> bool:
        return self.elem.startswith("!tile.block_ptr<")

    @property
    def block(self) -> tuple[tuple[int, ...], str]:
        """A block pointer's block shape and element type."""
        *sizes, elem = self.elem[len("!tile.block_ptr<"):-1].split("x")
        return tuple(map(int, sizes)), elem

    @property
    def is_float(self) -> bool:
        return self.elem.startswith(("f", "bf"))

    @property
    def is_int(self) -> bool:
        return self.elem.startswith(("i", "ui"))

    @property
    def is_unsigned(self) -> bool:
        return semantics.is_unsigned(self.elem)


@dataclass(frozen=True)
class Value:
    """An SSA value of the generated IR."""

    name: str
    type: Type


def pointer_type(elem: str) -> str:
    return f"!tile.ptr<{elem}>"


def parse_type(text: str) -> Type:
    """A type as the compiler prints a kernel's argument: a scalar
    ("i32"), a pointer ("!tile.ptr<f16>", its address space dropped from
    "!tile.ptr<f16, 1>") or a tensor ("tensor<?x8xf32>", a dynamic size
    None)."""
    if text.startswith("!tile.ptr<") and text.endswith(">"):
        return Type((), pointer_type(text[len("!tile.ptr<"):-1]
                                     .split(",")[0].strip()))
    if text.startswith("tensor<") and text.endswith(">"):
        *sizes, elem = text[len("tensor<"):-1].split("x")
        return Type(tuple(None if s == "?" else int(s) for s in sizes), elem)
    return Type((), text)


def parse_type_list(text: str) -> list[Type]:
    """The types of a printed array of types ("[tensor<?xf32>, i32]")."""
    inner = text.strip()[1:-1]
    items, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        depth += (c in "<([") - (c in ">)]")
        if depth == 0 and c == ",":
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [parse_type(item.strip()) for item in items if item.strip()]


def bit_width(elem: str) -> int:
    return kl.BY_IR[elem].bits


#: Bit patterns of +inf, -inf and a quiet NaN, which MLIR spells in hex.
_SPECIAL_FLOATS = {
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
}


def float_literal(value: float, elem: str) -> str:
    value = float(value)
    if value != value:
        return _SPECIAL_FLOATS[elem][2]
    if value in (float("inf"), float("-inf")):
        return _SPECIAL_FLOATS[elem][0 if value > 0 else 1]
    # MLIR's float literals need a point before any exponent: 1.0e-07.
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def results_head(op: str, count: int) -> str:
    """The `%r = ` or `%r:N = ` that names a region op's results."""
    if count == 0:
        return ""
    return f"{op} = " if count == 1 else f"{op}:{count} = "


class Builder:
    """The lines of one kernel's body being written: ops at the current
    nesting ``depth``, their results named ``%v0``, ``%v1``... (one
    counter for the kernel and everything inlined into it)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1
        self.names = itertools.count()

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def fresh(self) -> str:
        return f"%v{next(self.names)}"

    def op(self, text: str, type_: Type, loc: str) -> Value:
        """Emits ``%v = text loc`` and returns %v."""
        name = self.fresh()
        self.emit(f"{name} = {text} {loc}")
        return Value(name, type_)

    def emit_yield(self, values: list[Value], depth: int) -> None:
        text = "scf.yield"
        if values:
            text += (f" {', '.join(v.name for v in values)} : "
                     f"{', '.join(v.type.ir() for v in values)}")
        self.lines.append("  " * depth + text)

    @contextlib.contextmanager
    def region(self, lines: list[str] | None = None) -> Iterator[list[str]]:
        """Writes into ``lines`` (a new list by default), one level deeper,
        until the block ends: the body of a region op being built."""
        saved, self.lines = self.lines, [] if lines is None else lines
        self.depth += 1
        try:
            yield self.lines
        finally:
            self.depth -= 1
            self.lines = saved


def string_literal(text: str) -> str:
    """``text`` as an MLIR string literal: printable ASCII as it is, every
    other byte (a quote, a backslash, UTF-8) as a hex escape."""
    escaped = "".join(
        c if " " <= c <= "~" and c not in '"\\' else
        "".join(f"\\{b:02X}" for b in c.encode()) for c in text)
    return f'"{escaped}"'


def symbol(name: str) -> str:
    """The kernel named ``name`` (a Python identifier) as MLIR and PTX name
    it: ``name`` where it is ASCII, else each other character spelled
    ``$x<hex>$`` (a Unicode name: PTX identifiers are ASCII letters,
    digits, ``_`` and ``$``; Python's have no ``$``, so no two meet)."""
    return "".join(c if c.isascii() else f"$x{ord(c):x}$" for c in name)


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
