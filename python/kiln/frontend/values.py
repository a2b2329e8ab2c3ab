"""The front end's values besides IR values (``kiln.frontend.ir.Value``):
numbers a kernel assigned to names, which Triton types as scalar tensors
while they stay compile-time constants, and tensor descriptors, whose
fields are compile-time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln import language as kl
from kiln.frontend.ir import Type


@dataclass(frozen=True)
class TensorDescriptor(kl.tensor_descriptor):
    """A ``kl.make_tensor_descriptor`` (or a host descriptor argument):
    compile-time fields, each access made a block pointer of them."""

    base: Any
    shape: tuple
    strides: tuple
    block_shape: tuple
    padding_option: str

    @property
    def dtype(self) -> Any:
        return kl.BY_IR[self.base.type.pointee]


@dataclass(frozen=True)
class DescriptorType:
    """A host ``TensorDescriptor`` argument (kiln/tensor_descriptor.py),
    passed as its base pointer and its sizes and strides but the last
    (which is 1), each typed and specialized as an argument of its own;
    the block shape and the padding are compile-time."""

    base: Type
    shape: tuple[Type, ...]
    strides: tuple[Type, ...]
    block_shape: tuple[int, ...]
    padding: str


@dataclass(frozen=True)
class TupleType:
    """A tuple argument: each element typed and specialized as an argument
    of its own (a ``Type``, ``DescriptorType`` or nested ``TupleType``),
    or None where the element is None, a constant as Triton makes it;
    ``fields`` are a named tuple's field names."""

    elements: tuple
    fields: tuple[str, ...] | None = None


class LiteralInt(int):
    """An integer or boolean a kernel assigned to a name (``n = 16``):
    typed ``elem`` in arithmetic, as Triton's scalar tensor, and still an
    int where a compile-time constant is needed (shapes, ``arange``)."""

    elem: str


class LiteralFloat(float):
    """A float a kernel assigned to a name (``scale = 0.5``), typed
    ``elem`` in arithmetic as Triton's scalar tensor."""

    elem: str


def is_literal(value: Any) -> bool:
    return isinstance(value, (LiteralInt, LiteralFloat))


def plain(value: Any) -> Any:
    """An assigned literal's Python number; anything else as it is."""
    if isinstance(value, LiteralFloat):
        return float(value)
    if isinstance(value, LiteralInt):
        return bool(value) if value.elem == "i1" else int(value)
    return value


def literal(value: Any, elem: str) -> LiteralInt | LiteralFloat:
    literal = LiteralFloat(value) if isinstance(value, float) \
        else LiteralInt(value)
    literal.elem = elem
    return literal
