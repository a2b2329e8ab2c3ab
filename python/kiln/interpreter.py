"""The interpreter mode: a @kiln.jit kernel run as Python over numpy.

With ``KILN_INTERPRET=1`` in the environment (or ``kiln.jit(interpret=True)``)
a launch does not compile: it calls the kernel's Python function once per
program instance, with each ``kl`` function carried out by numpy. Pointers
are (array, offsets) pairs, so an access outside the array is an error with
a Python traceback, and prints and debuggers work as in any Python code.

It follows the compiled semantics where they differ from numpy's: Python
floats meet tiles as float32, integer ``//`` and ``%`` truncate toward zero,
sums of booleans and narrow integers accumulate in int32.
"""

from __future__ import annotations

import ast
import builtins
import ctypes
import ctypes.util
import functools
import inspect
import itertools
import linecache
import math
import operator
import os
import sys
import textwrap
import threading
import traceback
import types
from typing import Any, Callable, Sequence

import numpy as np

from kiln import language as kl
from kiln import philox
from kiln import dispatch, float8, semantics
from kiln.tensor_descriptor import TensorDescriptor as HostTensorDescriptor
from kiln.errors import KilnError
from kiln.extra import libdevice

_state = threading.local()
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


def active() -> bool:
    """Whether the current thread is running a kernel in the interpreter."""
    return getattr(_state, "program", None) is not None


def _dtype_of(value: Any) -> np.dtype:
    if isinstance(value, Tile):
        return value.data.dtype
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.int32)
    if isinstance(value, float):
        return np.dtype(np.float32)
    return np.asarray(value).dtype


def _is_number(value: Any) -> bool:
    if isinstance(value, kl.constexpr):
        value = value.value
    return isinstance(value, (bool, int, float, np.bool_))


def _ir(dtype: np.dtype) -> str:
    return kl.from_numpy(dtype).ir


def _is_float(dtype: np.dtype) -> bool:
    return kl.from_numpy(dtype).is_float


def _is_float8(dtype: np.dtype) -> bool:
    return semantics.is_float8(_ir(dtype))


def _as(values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` converted to ``dtype`` as compiled: an 8-bit float
    rounded and saturated (kiln/float8.py), a float to an integer as the
    GPU's cvt.rzi (a NaN is 0, a value past the range its nearest end; to
    8 bits, PTX having no 8-bit registers, cvt.rzi's 16-bit result
    truncated: 190.5 is -66 as an int8); values of ``dtype`` as they are
    (an 8-bit float's infinity and NaN codes too)."""
    if getattr(values, "dtype", None) == np.dtype(dtype):
        return np.asarray(values)
    if _is_float8(dtype):
        return float8.saturated(values, dtype)
    values = np.asarray(values)
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu" or not _is_float(values.dtype):
        return values.astype(dtype)
    wide = values.astype(np.float64)
    signed = dtype.kind == "i"
    converted = np.dtype(f"{dtype.kind}{max(dtype.itemsize, 2)}")
    top = 2.0 ** (8 * converted.itemsize - signed)
    bottom = -top if signed else 0.0
    with np.errstate(invalid="ignore"):
        inside = (wide >= bottom) & (wide < top)
        result = np.where(inside, wide, 0).astype(converted)
        result[wide >= top] = np.iinfo(converted).max
        result[wide < bottom] = np.iinfo(converted).min
    return result.astype(dtype)


def _left_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, left=True)


def _logical_right_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, left=False)


def _arithmetic_right_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, left=False, arithmetic=True)


def _right_shift(left: Any) -> Callable:
    """The ``>>`` Triton picks for the left operand ``left`` (a Tile, or a
    scalar shifted by a tile): arithmetic where it is a signed integer,
    before the operands meet in one type."""
    dtype = left.data.dtype if isinstance(left, Tile) else np.asarray(
        left).dtype
    return _arithmetic_right_shift if dtype.kind == "i" else \
        _logical_right_shift


def _shift(a: np.ndarray, b: np.ndarray, left: bool,
           arithmetic: bool = False) -> np.ndarray:
    """a << b or a >> b as the GPU's shl and shr: the amount, read
    unsigned, clamped to the width (0 past it, or the sign for an
    ``arithmetic`` >>, which reads ``a``'s bits as signed)."""
    width = 8 * a.dtype.itemsize
    inside = b.astype(np.dtype(f"u{b.dtype.itemsize}")) < width
    if not left and arithmetic:
        signed = np.dtype(f"i{a.dtype.itemsize}")
        return np.right_shift(a.astype(signed), np.where(
            inside, b, width - 1).astype(signed)).astype(a.dtype)
    shift = np.left_shift if left else np.right_shift
    return np.where(inside, shift(a, np.where(inside, b, 0).astype(b.dtype)),
                    0).astype(a.dtype)


#: The operations of Tile._binary that wrap on booleans as on integers.
_WRAPPING = (np.add, np.subtract, np.multiply, _left_shift,
             _logical_right_shift, _arithmetic_right_shift)


def _data(value: Any, like: np.dtype | None = None) -> np.ndarray:
    """`value` as a numpy array; Python numbers take `like`'s type (their
    own, semantics.python_number_type, by default)."""
    if isinstance(value, Tile):
        return value.data
    if isinstance(value, kl.constexpr):
        value = value.value
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(value, dtype=np.bool_)
    if isinstance(value, (int, float)):
        try:
            if like is None:
                like = kl.BY_IR[semantics.python_number_type(value)].numpy
            if isinstance(value, int) and like.kind in "iu":
                # The constant's bits, as compiled (a negative number
                # meeting an unsigned tile wraps).
                bits = semantics.integer_constant(value, _ir(like))
                return np.asarray(bits, like.str.replace("u", "i")).view(
                    like)
        except ValueError as exc:
            raise KilnError(str(exc)) from None
        return _as(value, like)
    if value is None:  # reported at the kernel's line, as compiled
        raise TypeError("None cannot be used as a value")
    return np.asarray(value)


def _computation_dtype(x: Any, y: Any, division: bool = False) -> np.dtype:
    """The numpy type operands ``x`` and ``y`` (tiles or Python numbers)
    meet in: semantics.computation_type, as compiled."""
    def elem(v):
        if isinstance(v, kl.constexpr):
            v = v.value
        return semantics.python_number_type(v) if _is_number(v) else \
            _ir(_data(v).dtype)
    try:
        return kl.BY_IR[semantics.computation_type(
            elem(x), _is_number(x), elem(y), _is_number(y), division)].numpy
    except ValueError as exc:
        raise KilnError(str(exc)) from None


def _unified(x: Any, y: Any, division: bool = False
             ) -> tuple[np.ndarray, np.ndarray]:
    """Both operands as arrays of their computation type."""
    dtype = _computation_dtype(x, y, division)
    return (_data(x, dtype).astype(dtype), _data(y, dtype).astype(dtype))


class _Methods(kl.tensor):
    """``x.sum(axis)`` is ``kl.sum(x, axis)`` (kl.TILE_METHODS), on tiles,
    pointers and block pointers, as compiled; all three are Triton's
    ``tl.tensor``."""

    @property
    def type(self) -> Any:
        """Triton's ``x.type``: a block_type, a scalar's element type."""
        return kl.type_of(self.dtype, self.shape)

    def __getattr__(self, name: str):
        if name in kl.TILE_METHODS:
            return lambda *args, **kwargs: getattr(kl, name)(self, *args,
                                                             **kwargs)
        raise AttributeError(name)


class Tile(_Methods):
    """A tile in the interpreter: a numpy array with the operators and
    methods kernels use."""

    def __init__(self, data: Any) -> None:
        self.data = np.asarray(data)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def dtype(self) -> kl.dtype:
        return kl.from_numpy(self.data.dtype)

    @property
    def T(self) -> Tile:
        return Tile(self.data.T)

    def to(self, dtype: kl.dtype, fp_downcast_rounding: str | None = None,
           bitcast: bool = False) -> Tile:
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise KilnError(f".to(): fp_downcast_rounding "
                            f"{fp_downcast_rounding!r} is not 'rtne' or "
                            "'rtz'")
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        if fp_downcast_rounding is not None and not (
                _is_float(self.data.dtype) and dtype.is_float and
                dtype.bits < 8 * self.data.dtype.itemsize):
            raise KilnError(f".to(): fp_downcast_rounding applies to "
                            f"conversions to a narrower float, not "
                            f"{_ir(self.data.dtype)} to {dtype.ir} (as in "
                            "Triton)")
        if fp_downcast_rounding == "rtz":
            # Rounded to nearest, then a step of the bits toward zero
            # where that went past the value.
            nearest = _as(self.data, dtype.numpy)
            with np.errstate(invalid="ignore"):
                beyond = np.abs(nearest.astype(self.data.dtype)) > \
                    np.abs(self.data)
            bits = np.dtype(f"i{np.dtype(dtype.numpy).itemsize}")
            return Tile((nearest.view(bits) - beyond.astype(bits)).view(
                dtype.numpy))
        if isinstance(dtype, kl.pointer_type):
            if self.data.dtype != np.int64:
                raise KilnError(f"only int64 addresses convert to pointers, "
                                f"not {_ir(self.data.dtype)}")
            return Pointer.at_addresses(self.data, dtype.element_ty)
        if dtype.numpy is None:
            raise KilnError(f"the interpreter has no {dtype!r}")
        if bitcast and self.data.dtype == np.dtype(dtype.numpy):
            return self  # as Triton's: the value of its own type
        if bitcast:
            if self.data.dtype.itemsize != np.dtype(dtype.numpy).itemsize \
                    or dtype.ir == "i1" or self.data.dtype == np.bool_:
                raise KilnError(f".to(bitcast=True) reinterprets bits, so "
                                f"{self.data.dtype} and {dtype!r} must have "
                                "the same width")
            return Tile(self.data.view(dtype.numpy))
        if dtype.ir == "i1":
            return Tile(self.data != 0)
        return Tile(_as(self.data, dtype.numpy))

    def __getitem__(self, index) -> Tile:
        return Tile(self.data[index])

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise KilnError(f"the truth value of a tile of shape "
                            f"{list(self.data.shape)} (an if or while on a "
                            "tile); conditions are scalars: use kl.where for "
                            "elementwise choices")
        return bool(self.data)

    # A 0-d tile (a reduced or loaded scalar) also works as a number.
    def __int__(self) -> int:
        return int(self.data)

    def __float__(self) -> float:
        return float(self.data)

    def __index__(self) -> int:
        return int(self.data)

    def __repr__(self) -> str:
        return f"Tile({self.data!r})"

    def _binary(self, other: Any, fn: Callable, reverse: bool = False,
                division: bool = False):
        if isinstance(other, Pointer):
            return NotImplemented
        a, b = _unified(self, other, division)
        if a.dtype == np.bool_ and fn in _WRAPPING:
            # i1 arithmetic wraps modulo 2 (True + True is False), as
            # compiled: computed on the signed values 0 and -1.
            wide = fn(*(-v.astype(np.int8) for v in ((b, a) if reverse
                                                     else (a, b))))
            return Tile((wide & 1).astype(np.bool_))
        if _is_float8(a.dtype):  # in f32, rounded once, as compiled
            wide = fn(*(v.astype(np.float32) for v in ((b, a) if reverse
                                                        else (a, b))))
            return Tile(wide if wide.dtype == np.bool_ else
                        _as(wide, a.dtype))
        return Tile(fn(b, a) if reverse else fn(a, b))

    def __add__(self, o): return self._binary(o, np.add)
    def __radd__(self, o): return self._binary(o, np.add, True)
    def __sub__(self, o): return self._binary(o, np.subtract)
    def __rsub__(self, o): return self._binary(o, np.subtract, True)
    def __mul__(self, o): return self._binary(o, np.multiply)
    def __rmul__(self, o): return self._binary(o, np.multiply, True)
    def __and__(self, o): return self._binary(o, np.bitwise_and)
    def __rand__(self, o): return self._binary(o, np.bitwise_and, True)
    def __or__(self, o): return self._binary(o, np.bitwise_or)
    def __ror__(self, o): return self._binary(o, np.bitwise_or, True)
    def __xor__(self, o): return self._binary(o, np.bitwise_xor)
    def __lshift__(self, o): return self._binary(o, _left_shift)
    def __rlshift__(self, o): return self._binary(o, _left_shift, True)
    def __rshift__(self, o): return self._binary(o, _right_shift(self))
    # A Python number shifted by a tile takes the tile's, as Triton's.
    def __rrshift__(self, o):
        return self._binary(o, _right_shift(
            o if isinstance(o, np.generic) else self), True)
    def __lt__(self, o): return self._binary(o, np.less)
    def __le__(self, o): return self._binary(o, np.less_equal)
    def __gt__(self, o): return self._binary(o, np.greater)
    def __ge__(self, o): return self._binary(o, np.greater_equal)
    def __eq__(self, o): return self._binary(o, np.equal)
    def __ne__(self, o): return self._binary(o, np.not_equal)
    def __neg__(self):  # a boolean is its own negation modulo 2 (Triton)
        return Tile(self.data if self.data.dtype == bool else -self.data)
    def __invert__(self): return Tile(~self.data)
    def __pos__(self): return self  # as compiled

    def __truediv__(self, o):
        return self._binary(o, _true_divide, division=True)

    def __rtruediv__(self, o):
        return self._binary(o, _true_divide, True, division=True)

    # Integers divide and take remainders toward zero, as compiled code.
    def __floordiv__(self, o):
        return self._binary(o, _trunc_div, division=True)

    def __rfloordiv__(self, o):
        return self._binary(o, _trunc_div, True, division=True)
    def __mod__(self, o): return self._binary(o, _trunc_mod, division=True)
    def __rmod__(self, o):
        return self._binary(o, _trunc_mod, True, division=True)


def _true_divide(a, b):
    """``a / b`` in the type the operands met in, integers in f32."""
    if not _is_float(a.dtype):
        a, b = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        return np.divide(a, b)


def _trunc_div(a, b):
    """Integer division as the compiled kernels do it: toward zero, x // 0
    is 0 and the lowest value // -1 wraps to itself."""
    if _is_float(a.dtype):
        raise KilnError(f"operator FloorDiv is not defined on "
                        f"{kl.from_numpy(a.dtype).ir}")
    if a.dtype == np.bool_:  # booleans divide as ints, as in Python
        a, b = a.astype(np.int32), b.astype(np.int32)
    with np.errstate(all="ignore"):
        safe = np.where(b == 0, 1, b).astype(b.dtype)
        floor = np.floor_divide(a, safe)
        inexact = (a - floor * safe) != 0
        quotient = np.where(inexact & ((a < 0) != (safe < 0)), floor + 1,
                            floor).astype(a.dtype)
        return np.where(b == 0, 0, quotient).astype(a.dtype)


def _cdiv(x, y):
    """kl.cdiv as compiled: (x + y - 1) // y, toward zero at run time, in
    Python (floored) of compile-time ints, as Triton's @jit cdiv."""
    total = x + y - 1
    if isinstance(total, Tile) or isinstance(y, Tile):
        return total // y
    if y == 0:
        raise KilnError("kl.cdiv of compile-time values divides by zero")
    return int(total) // int(y)


def _trunc_mod(a, b):
    """The remainder of ``_trunc_div`` (x % 0 is 0), of the dividend's
    sign; fmod for floats."""
    if _is_float(a.dtype):
        with np.errstate(all="ignore"):
            return np.fmod(a, b)
    if a.dtype == np.bool_:
        a, b = a.astype(np.int32), b.astype(np.int32)
    with np.errstate(all="ignore"):
        return np.where(b == 0, 0, a - _trunc_div(a, b) * b).astype(a.dtype)


class Pointer(_Methods):
    """Pointers into one array: the array's elements, flat, and offsets."""

    def __init__(self, base: np.ndarray, offsets: Any = 0) -> None:
        self.base = base
        self.offsets = np.asarray(offsets, dtype=np.int64)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.offsets.shape

    @property
    def dtype(self) -> kl.pointer_type:
        return kl.pointer_type(kl.from_numpy(self.base.dtype))

    #: Bytes of memory a pointer made from an integer address may reach
    #: past the lowest address of its tile (the interpreter checks every
    #: access against it; the memory itself is unchecked).
    ADDRESS_WINDOW = 1 << 34

    @classmethod
    def at_addresses(cls, addresses: np.ndarray,
                     element: kl.dtype) -> Pointer:
        """Pointers to elements of type ``element`` at raw ``addresses``
        (``int64_value.to(kl.pointer_type(...))``): a view of the memory
        from the lowest of them. A wrong address crashes the interpreter,
        as it would the kernel."""
        itemsize = np.dtype(element.numpy).itemsize
        addresses = np.asarray(addresses, np.int64)
        if (addresses % itemsize).any() or (addresses <= 0).any():
            raise KilnError(f"addresses converted to pointers to "
                            f"{element!r} must be positive multiples of "
                            f"{itemsize}")
        low = int(addresses.min())
        memory = (ctypes.c_byte * cls.ADDRESS_WINDOW).from_address(low)
        return cls(np.frombuffer(memory, dtype=element.numpy),
                   (addresses - low) // itemsize)

    def to(self, dtype: Any, fp_downcast_rounding: Any = None,
           bitcast: bool = False) -> Any:
        """Pointers to int64 addresses, or to pointers of another type."""
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        addresses = self.base.ctypes.data + self.offsets * self.base.itemsize
        if dtype in (kl.int64, kl.uint64):
            return Tile(addresses.astype(dtype.numpy))
        if dtype is kl.int1:  # not null
            return Tile(addresses != 0)
        if isinstance(dtype, kl.pointer_type):
            return Pointer.at_addresses(addresses, dtype.element_ty)
        raise KilnError(f"a pointer converts to int64, uint64, int1 or "
                        f"another pointer type, not {dtype!r}")

    def __add__(self, offset: Any) -> Pointer:
        delta = _data(offset)
        if delta.dtype.kind not in "iub":  # as compiled
            raise KilnError("pointer offsets must be integers")
        return Pointer(self.base, self.offsets + delta.astype(np.int64))

    __radd__ = __add__

    def __getitem__(self, index) -> Pointer:
        return Pointer(self.base, self.offsets[index])

    @property
    def T(self) -> Pointer:
        return Pointer(self.base, self.offsets.T)

    def __sub__(self, offset: Any) -> Pointer:
        # As compiled (Triton's): the offset negated in its own type, where
        # it wraps (p - u of a uint8 u is p + (256 - u)), then extended.
        delta = _data(offset)
        if delta.dtype.kind in "iu":
            with np.errstate(over="ignore"):
                delta = np.subtract(np.zeros((), delta.dtype), delta,
                                    dtype=delta.dtype)
        return self + Tile(delta)

    def indices(self, mask: np.ndarray | None) -> np.ndarray:
        """The offsets where `mask` holds, checked against the array."""
        offsets = self.offsets if mask is None else self.offsets[mask]
        if offsets.size and (offsets.min() < 0 or
                             offsets.max() >= self.base.size):
            bad = offsets[(offsets < 0) | (offsets >= self.base.size)][0]
            raise KilnError(f"out-of-bounds access: offset {bad} of an "
                            f"array of {self.base.size} elements")
        return offsets


class BlockPointer(_Methods):
    """A block of a strided tensor: its base pointer, sizes and strides,
    the block's offsets and shape."""

    def __init__(self, base: Pointer, shape, strides, offsets, block):
        self.base = base
        self.sizes = [int(_data(v)) for v in shape]
        self.strides = [int(_data(v)) for v in strides]
        self.offsets = [int(_data(v)) for v in offsets]
        self.block = tuple(int(v) for v in block)

    def coordinates(self) -> list[np.ndarray]:
        """Each dimension's tensor coordinate of every block element."""
        grids = np.meshgrid(*(np.arange(n) for n in self.block),
                            indexing="ij")
        return [g + o for g, o in zip(grids, self.offsets)]

    def access(self, boundary_check, coordinates: list | None = None
               ) -> tuple[Pointer, np.ndarray]:
        """The pointers to the block's elements (or to those at
        ``coordinates``) and where the checked dimensions are inside the
        tensor."""
        coordinates = coordinates or self.coordinates()
        inside = np.ones(coordinates[0].shape, bool)
        for d in boundary_check:
            inside &= (coordinates[d] >= 0) & (coordinates[d] < self.sizes[d])
        offsets = sum(c.astype(np.int64) * s
                      for c, s in zip(coordinates, self.strides))
        return self.base + offsets, inside


class TensorDescriptor(kl.tensor_descriptor):
    """A kl.make_tensor_descriptor (or a host descriptor argument): each
    access a block pointer's."""

    def __init__(self, base, shape, strides, block_shape,
                 padding_option="zero") -> None:
        if padding_option not in ("zero", "nan"):
            raise KilnError(f"padding_option is 'zero' or 'nan', not "
                            f"{padding_option!r}")
        self.base, self.padding_option = base, padding_option
        self.shape, self.strides = tuple(shape), tuple(strides)
        self.block_shape = tuple(int(b) for b in block_shape)
        if problem := semantics.tile_shape_problem(
                "kl.make_tensor_descriptor", self.block_shape):
            raise KilnError(problem)
        if not len(self.shape) == len(self.strides) == len(self.block_shape):
            raise KilnError("kl.make_tensor_descriptor: shape, strides and "
                            "block_shape have one entry per dimension")
        if not isinstance(self.strides[-1], Tile) and self.strides[-1] != 1:
            raise KilnError(f"kl.make_tensor_descriptor: the last stride "
                            f"must be 1, not {self.strides[-1]}")

    @property
    def dtype(self) -> kl.dtype:
        return kl.from_numpy(self.base.base.dtype)

    def block(self, offsets) -> BlockPointer:
        return BlockPointer(self.base, self.shape, self.strides,
                            offsets if isinstance(offsets, (tuple, list))
                            else (offsets,), self.block_shape)

    def load(self, offsets):
        return kl.load_tensor_descriptor(self, offsets)

    def store(self, offsets, value):
        return kl.store_tensor_descriptor(self, offsets, value)

    def gather(self, x_offsets, y_offset):
        return kl.descriptor_gather(self, x_offsets, y_offset)

    def scatter(self, value, x_offsets, y_offset):
        return kl.descriptor_scatter(self, value, x_offsets, y_offset)

    def __getattr__(self, name: str):
        kind = name.removeprefix("atomic_")
        if kind == name or kind not in kl.DESCRIPTOR_ATOMICS:
            raise AttributeError(f"a tensor descriptor has no '{name}'")
        return functools.partial(kl.descriptor_atomic, self, kind)

    def rows(self, x_offsets, y_offset, what: str
             ) -> tuple[Pointer, np.ndarray]:
        """The pointers to rows ``x_offsets`` of a 2-D descriptor whose
        block is one row, its columns from ``y_offset``, and where they
        are inside the tensor."""
        if len(self.block_shape) != 2 or self.block_shape[0] != 1:
            raise KilnError(f"{what} takes a 2-D descriptor whose block is "
                            f"one row, not {list(self.block_shape)}")
        rows = _data(x_offsets)
        if rows.ndim != 1 or rows.dtype.kind not in "iu":
            raise KilnError(f"{what}: the row offsets are a 1-D tile of "
                            f"integers, not {_ir(rows.dtype)} of shape "
                            f"{list(rows.shape)}")
        shape = (rows.size, self.block_shape[1])
        columns = np.arange(shape[1]) + int(_data(y_offset))
        return self.block((0, 0)).access((0, 1), [
            np.broadcast_to(rows[:, None], shape),
            np.broadcast_to(columns[None, :], shape)])


def _make_block_ptr(base, shape, strides, offsets, block_shape, order):
    if problem := semantics.tile_shape_problem("kl.make_block_ptr",
                                               block_shape):
        raise KilnError(problem)
    if base.base.dtype == np.bool_:  # Triton's: booleans are read as int8
        base = Pointer(base.base.view(np.int8), base.offsets)
    return BlockPointer(base, shape, strides, offsets, block_shape)


def _advance(block_ptr, offsets):
    return BlockPointer(block_ptr.base, block_ptr.sizes, block_ptr.strides,
                        [o + int(_data(d)) for o, d in
                         zip(block_ptr.offsets, offsets)], block_ptr.block)


def _check_block_access(op: str, pointer: BlockPointer, boundary_check,
                        padding_option="", mask=None, other=None) -> None:
    problem = kl.block_access_problem(op, len(pointer.block), boundary_check,
                                      padding_option, mask, other)
    if problem:
        raise KilnError(problem)


def _mask_for(mask: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    if mask is None:
        return None
    return np.broadcast_to(_data(mask).astype(np.bool_), shape)


def _shape_of(*values: Any) -> tuple[int, ...]:
    shapes = [v.shape for v in values if isinstance(v, (Tile, Pointer))]
    return np.broadcast_shapes(*shapes) if shapes else ()


def load(pointer, mask=None, other=None, boundary_check=(),
         padding_option="", *, cache_modifier="", eviction_policy="",
         volatile=False):
    _check_hints("load", cache_modifier, eviction_policy, volatile,
                 isinstance(pointer, BlockPointer))
    if isinstance(pointer, BlockPointer):
        _check_block_access("load", pointer, boundary_check, padding_option,
                            mask, other)
        pointers, inside = pointer.access(boundary_check)
        if padding_option == "nan" and not kl.from_numpy(
                pointers.base.dtype).is_floating():
            raise KilnError("padding_option='nan' needs floats")
        fill = np.nan if padding_option == "nan" else 0
        return load(pointers, Tile(inside), fill)
    if boundary_check or padding_option:
        raise KilnError("boundary_check and padding_option apply to block "
                        "pointers (kl.make_block_ptr)")
    shape = _shape_of(pointer, mask if isinstance(mask, Tile) else None)
    offsets = np.broadcast_to(pointer.offsets, shape)
    mask = _mask_for(mask, shape)
    target = Pointer(pointer.base, offsets)
    dtype = pointer.base.dtype
    result = np.zeros(shape, dtype=dtype)
    if other is not None:
        # A Python number is first a scalar of its own type, as compiled.
        result[...] = _as(_data(other), dtype)
    where = np.ones(shape, bool) if mask is None else mask
    if dtype == np.bool_:
        # A stored boolean is true where its byte is not zero, as compiled
        # kernels read it (numpy would keep the byte).
        result[where] = pointer.base.view(np.uint8)[
            target.indices(where)] != 0
    else:
        result[where] = pointer.base[target.indices(where)]
    return Tile(result)


def store(pointer, value, mask=None, boundary_check=(), *,
          cache_modifier="", eviction_policy=""):
    _check_hints("store", cache_modifier, eviction_policy)
    if isinstance(pointer, BlockPointer):
        _check_block_access("store", pointer, boundary_check, mask=mask)
        pointers, inside = pointer.access(boundary_check)
        return store(pointers, value, Tile(inside))
    if boundary_check:
        raise KilnError("boundary_check applies to block pointers "
                        "(kl.make_block_ptr)")
    _check_one_address(pointer, [value], mask)
    shape = _shape_of(pointer, value, mask if isinstance(mask, Tile) else None)
    target = Pointer(pointer.base, np.broadcast_to(pointer.offsets, shape))
    where = _mask_for(mask, shape)
    where = np.ones(shape, bool) if where is None else where
    # A Python number is of its own type first, as compiled.
    data = np.broadcast_to(_as(_data(value), pointer.base.dtype), shape)
    pointer.base[target.indices(where)] = data[where]


def _check_one_address(pointer, values: list, mask) -> None:
    """Refuses tiles written through one pointer, as compiled."""
    if np.shape(pointer.offsets):
        return
    if any(np.shape(_data(v)) for v in values):
        what = "value"
    elif isinstance(mask, Tile) and mask.shape:
        what = "mask"
    else:
        return
    raise KilnError(f"a {what} tile cannot be written through one pointer; "
                    f"make the pointer a tile of the same shape")


def _check_hints(op: str, cache_modifier: str, eviction_policy: str,
                 volatile: bool = False, block_pointer: bool = False) -> None:
    """Refuses what the compiler refuses of kl.load and kl.store's hints."""
    problem = kl.memory_hint_problem(op, cache_modifier, eviction_policy,
                                     volatile, block_pointer)
    if problem:
        raise KilnError(problem)


def _atomic(kind: str, combine: Callable, integers_only: bool = False
            ) -> Callable:
    def atomic(pointer, value, mask=None, sem=None, scope=None):
        if integers_only and pointer.base.dtype.kind not in "iu":
            raise KilnError(f"kl.atomic_{kind} needs integers, not "
                            f"{pointer.base.dtype}")
        return _atomic_elements(pointer, [value], mask, sem, scope, combine)
    return atomic


def _fma(x, y, z) -> Tile:
    """kl.fma: x * y + z rounded once to the operands' type (computed in
    float64 for the narrower floats, as the host target computes f16's)."""
    result = x * y + z
    data = _data(result)
    if not _is_float(data.dtype):
        raise KilnError("kl.fma needs floats")  # as compiled
    if data.dtype.itemsize == 8:
        return result
    wide = np.asarray(_data(x), np.float64) * _data(y) + _data(z)
    return Tile(wide.astype(data.dtype))


def _float_order(value) -> int:
    """Where a float stands in the order of Triton's float atomic_max and
    atomic_min, that of its bits: -0 below +0, a NaN beyond the infinity
    of its sign."""
    value = np.asarray(value)
    bits = int(value.view(np.dtype(f"i{value.dtype.itemsize}")))
    return bits if bits >= 0 else -(bits & ~(-1 << (8 * value.itemsize - 1))
                                    ) - 1


def _atomic_extremum(kind: str, pick: Callable) -> Callable:
    """kl.atomic_max / atomic_min: of floats (float32 and float64, as
    compiled) in the order of their bits."""
    def in_float_order(old, value):
        return pick((old, value), key=_float_order)

    def atomic(pointer, value, mask=None, sem=None, scope=None):
        floats = _is_float(pointer.base.dtype)
        if floats and pointer.base.dtype.itemsize not in (4, 8):
            raise KilnError(f"kl.atomic_{kind} of floats takes float32 or "
                            f"float64 (as Triton), not "
                            f"{_ir(pointer.base.dtype)}")
        if not floats:
            return _atomic_elements(pointer, [value], mask, sem, scope, pick)
        # As compiled: an integer atomic over the elements whose value's
        # sign is clear, then another over the others, so where several
        # meet at one address their old values come in that order.
        shape = _shape_of(pointer, value,
                          mask if isinstance(mask, Tile) else None)
        held = _mask_for(mask, shape)
        held = np.ones(shape, bool) if held is None else held
        negative = np.broadcast_to(np.signbit(_as(
            _data(value), pointer.base.dtype)), shape)
        clear, set_ = (_atomic_elements(pointer, [value], Tile(held & lanes),
                                        sem, scope, in_float_order)
                       for lanes in (~negative, negative))
        return Tile(np.where(negative, set_.data, clear.data))
    return atomic


def _atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """kl.atomic_cas: ``val`` where the old element's bits are ``cmp``'s."""
    if pointer.base.dtype.itemsize not in (2, 4, 8):
        raise KilnError(f"kl.atomic_cas compares and swaps elements of 16, "
                        f"32 or 64 bits, not {pointer.base.dtype}")
    bits = np.dtype(f"u{pointer.base.dtype.itemsize}")
    return _atomic_elements(
        pointer, [cmp, val], None, sem, scope,
        lambda old, c, v: v if np.asarray(old).view(bits) ==
        np.asarray(c).view(bits) else old)


def _descriptor_atomic(desc, kind: str, offsets, value) -> None:
    """desc.atomic_<kind>: the pointer atomic on the block's elements that
    are inside the tensor, as compiled."""
    offsets = offsets if isinstance(offsets, (tuple, list)) else (offsets,)
    block = desc.block(offsets)
    if len(offsets) != len(desc.block_shape) or \
            _data(value).shape != desc.block_shape:
        raise KilnError(f"desc.atomic_{kind} takes one offset per dimension "
                        f"and a value of the block's shape "
                        f"{list(desc.block_shape)}, not {len(offsets)} "
                        f"offsets and {list(_data(value).shape)}")
    pointers, inside = block.access(tuple(range(len(desc.block_shape))))
    IMPLEMENTATIONS[f"atomic_{kind}"](pointers, value, Tile(inside))


def _descriptor_gather(desc, x_offsets, y_offset) -> Tile:
    pointers, inside = desc.rows(x_offsets, y_offset, "desc.gather")
    nan = desc.padding_option == "nan"
    if nan and not kl.from_numpy(pointers.base.dtype).is_floating():
        raise KilnError("padding_option='nan' needs floats")
    return load(pointers, Tile(inside), np.nan if nan else 0)


def _descriptor_scatter(desc, value, x_offsets, y_offset) -> None:
    pointers, inside = desc.rows(x_offsets, y_offset, "desc.scatter")
    store(pointers, value, Tile(inside))


def _check_order(name: str, sem: Any) -> None:
    problem = kl.one_way_order_problem(name, sem)
    if problem:
        raise KilnError(problem)


def _atomic_load(pointer, mask=None, sem=None, scope=None) -> Tile:
    _check_order("atomic_load", sem)
    if pointer.base.dtype.itemsize not in (4, 8) or \
            pointer.base.dtype.kind not in "if":
        raise KilnError(f"kl.atomic_load reads elements of 32 or 64 bits, "
                        f"not {_ir(pointer.base.dtype)}")
    return _atomic_elements(pointer, [], mask, sem, scope, lambda old: old)


def _atomic_store(pointer, val, mask=None, sem=None, scope=None) -> None:
    _check_order("atomic_store", sem)
    _atomic_elements(pointer, [val], mask, sem, scope, lambda old, v: v)


def _atomic_poll(pointer, expected_value, sem=None, scope=None,
                 timeout_ns=None) -> Tile:
    """Programs run one at a time here, so no other can change what is
    polled: a poll that does not match at once would wait forever."""
    if timeout_ns is not None:
        raise KilnError("kl.atomic_poll: timeout_ns is not supported by "
                        "Kiln yet")
    if pointer.base.dtype not in (np.int32, np.int64):
        raise KilnError(f"kl.atomic_poll waits on integers of 32 or 64 "
                        f"bits, not {_ir(pointer.base.dtype)}")
    value = _atomic_load(pointer, sem=sem, scope=scope)
    if not np.all(_data(value == expected_value)):
        raise KilnError("kl.atomic_poll would wait forever: the interpreter "
                        "runs one program at a time, so nothing changes "
                        "the value it waits on")
    return Tile(np.ones(value.shape, bool))


def _atomic_elements(pointer, operands: list, mask, sem, scope,
                     combine: Callable) -> Tile:
    """An atomic on each element behind ``pointer`` where ``mask`` holds:
    the element becomes ``combine(old, *operand elements)``; returns the
    old elements."""
    problem = kl.atomic_order_problem(sem, scope)
    if problem:
        raise KilnError(problem)
    if _is_float8(pointer.base.dtype):  # as compiled
        raise KilnError("atomics take no 8-bit floats")
    _check_one_address(pointer, operands, mask)
    shape = _shape_of(pointer, *operands,
                      mask if isinstance(mask, Tile) else None)
    offsets = np.broadcast_to(pointer.offsets, shape)
    where = _mask_for(mask, shape)
    where = np.ones(shape, bool) if where is None else where
    data = [np.broadcast_to(_as(_data(v), pointer.base.dtype), shape)
            for v in operands]
    old = np.zeros(shape, pointer.base.dtype)
    target = Pointer(pointer.base, offsets)
    target.indices(where)
    # One element after another, as on the host target; integers wrap.
    with np.errstate(over="ignore"):
        for index in zip(*np.nonzero(where)) if shape else [()]:
            if shape == () and not where:
                break
            at = offsets[index]
            old[index] = pointer.base[at]
            pointer.base[at] = combine(pointer.base[at],
                                       *(d[index] for d in data))
    return Tile(old)


def _kept(result: np.ndarray, data: np.ndarray, axis: Any,
          keep_dims: bool) -> Tile:
    """A reduction's result, its axis (or every axis, for None) kept with
    size 1 where ``keep_dims``."""
    if keep_dims:
        result = (np.reshape(result, (1,) * data.ndim) if axis is None
                  else np.expand_dims(result, axis))
    return Tile(result)


def _summed(x, dtype) -> np.ndarray:
    """``x`` in the type a sum or product runs in: ``dtype``, else
    semantics.sum_type's."""
    data = _data(x)
    if isinstance(dtype, kl.constexpr):
        dtype = dtype.value
    if dtype is not None:
        if not isinstance(dtype, kl.dtype):
            raise KilnError(f"dtype is a kl type, not {dtype!r}")
        return Tile(data).to(dtype).data
    return data.astype(kl.BY_IR[semantics.sum_type(_ir(data.dtype))].numpy)


def _in_f32(data: np.ndarray, compute: Callable) -> np.ndarray:
    """``compute(data)``, for f16, bf16 and 8-bit floats in f32 and
    rounded once."""
    if _ir(data.dtype) in ("f16", "bf16", *semantics.FLOAT8):
        return _as(compute(data.astype(np.float32)), data.dtype)
    return np.asarray(compute(data)).astype(data.dtype)


def _sum(x, axis=None, keep_dims=False, dtype=None):
    data = _summed(x, dtype)
    axis = _axis(axis, data)
    return _kept(_in_f32(data, lambda d: np.sum(d, axis=axis)), data, axis,
                 keep_dims)


def _integer_reduction(name: str, ufunc: np.ufunc) -> Callable:
    def reduce(x, axis=None, keep_dims=False):
        data = _data(x)
        if _is_float(data.dtype):
            raise KilnError(f"kl.{name} needs integers, not "
                            f"{_ir(data.dtype)}")
        axis = _axis(axis, data)
        flat = data.reshape(-1) if axis is None else data
        return _kept(ufunc.reduce(flat, axis=axis or 0), data, axis,
                     keep_dims)
    return reduce


def _scan(name: str, ufunc: np.ufunc) -> Callable:
    """kl.cumsum or kl.cumprod."""
    def scan(x, axis=0, reverse=False, dtype=None):
        if axis is None:
            raise KilnError(f"kl.{name} takes an axis")
        data = _summed(x, dtype)
        axis = _axis(axis, data)

        def compute(d):
            if reverse:
                return np.flip(ufunc.accumulate(np.flip(d, axis), axis=axis),
                               axis)
            return ufunc.accumulate(d, axis=axis)
        return Tile(_in_f32(data, compute))
    return scan


def _tile_shape(what: str, shape: Any) -> tuple[int, ...]:
    """``shape`` (sizes, or assigned numbers), which ``what`` makes a tile
    of, checked as the compiler checks it (semantics.tile_shape_problem)."""
    shape = tuple(int(_data(d)) for d in (
        shape if isinstance(shape, (tuple, list)) else (shape,)))
    if shape and (problem := semantics.tile_shape_problem(what, shape)):
        raise KilnError(problem)
    return shape


def _tile_data(x: Any, what: str) -> np.ndarray:
    """The data of ``x``, which ``what`` takes only as a tile, as the
    compiler does."""
    data = _data(x)
    if data.ndim == 0:
        raise KilnError(f"{what} takes a tile, not a scalar")
    return data


def _axis(axis: Any, data: np.ndarray) -> Any:
    """A reduction's axis, checked as the compiler checks it."""
    if isinstance(axis, kl.constexpr):
        axis = axis.value
    if axis is None:
        if data.ndim == 0:
            raise KilnError("reductions need a tile")
        return None
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) \
            or not -data.ndim <= axis < data.ndim:
        raise KilnError(f"axis {axis!r} is out of range for a tile of "
                        f"{data.ndim} dimensions")
    return int(axis) % data.ndim


def _math(fn: Callable) -> Callable:
    def apply(x):
        data = _data(x)
        if not _is_float(data.dtype):
            data = data.astype(np.float32)
        return Tile(_as(fn(data.astype(np.float32) if _is_float8(data.dtype)
                           else data), data.dtype))
    return apply


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's pow (libdevice's powf): numpy takes a square root for y = 0.5,
    whose sqrt(-0) is -0 and sqrt(-inf) NaN, where pow gives +0 and +inf."""
    with np.errstate(all="ignore"):
        result = np.power(x, y)
    half = (y == 0.5) & ((x == 0) | (x == -np.inf))
    return np.where(half, np.abs(x), result).astype(result.dtype)


def _hinted(hint: str, x, values):
    """``x``, its hint's values checked as compiled (they state nothing
    the interpreter uses)."""
    rank = len(x.shape) if isinstance(x, (Tile, Pointer)) else 0
    if problem := kl.hint_problem(hint, rank, values):
        raise KilnError(problem)
    return x


def _sigmoid(x) -> Tile:
    """1 / (1 + exp(-x)) as compiled: exp in x's float type (an integer
    tile in float32), then Triton's promotion, whose `/` of a 16-bit
    float is float32."""
    if not _is_float(_data(x).dtype):
        x = Tile(_data(x).astype(np.float32))
    return 1.0 / (1.0 + IMPLEMENTATIONS["exp"](-x))


def arange(start, end):
    problem = semantics.arange_problem(int(start), int(end))
    if problem:
        raise KilnError(problem)
    return Tile(np.arange(start, end, dtype=np.int32))


def dot(a, b, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None,
        out_dtype=None):
    a, b = (_data(v) for v in (a, b))
    if a.dtype != b.dtype and not (_is_float8(a.dtype) and
                                   _is_float8(b.dtype)):
        raise KilnError(f"kl.dot multiplies two tiles of one element "
                        f"type, not {_ir(a.dtype)} and {_ir(b.dtype)}")
    try:  # checked as compiled; every precision is computed exactly
        semantics.dot_precision(_ir(a.dtype), input_precision, allow_tf32)
    except ValueError as exc:
        raise KilnError(str(exc)) from None
    # Every 8-bit float is a float16 exactly, as compiled.
    a, b = (v.astype(np.float16) if _is_float8(v.dtype) else v
            for v in (a, b))
    unsigned = [d for d in (a.dtype, b.dtype, _data(acc).dtype if acc is not
                            None else None) if d is not None and d.kind == "u"]
    if unsigned:  # as compiled
        raise KilnError(f"kl.dot multiplies int8 integers, not "
                        f"{kl.from_numpy(unsigned[0]).name}")
    out = None if out_dtype is None else out_dtype.ir
    if problem := semantics.dot_out_problem(_ir(a.dtype), out):
        raise KilnError(problem)
    out = kl.BY_IR[semantics.dot_type(_ir(a.dtype), out)].numpy
    # A 16-bit float accumulator takes the products' sum in float32,
    # rounded once, as compiled.
    wide = np.float32 if _is_float(np.dtype(out)) and \
        np.dtype(out).itemsize < 4 else out
    result = a.astype(wide) @ b.astype(wide)
    if acc is not None:
        acc = _data(acc)
        if a.dtype == np.float64 and acc.dtype != np.float64:
            # As the compiler's tile.dot: an f64 product accumulates in f64.
            raise KilnError(f"kl.dot of float64 tiles accumulates in "
                            f"float64, not {acc.dtype}")
        return Tile((result + acc.astype(wide)).astype(acc.dtype))
    return Tile(result.astype(out))


def _constant(value: Any) -> Any:
    """A compile-time argument's value (a kl.constexpr's, unwrapped)."""
    return value.value if isinstance(value, kl.constexpr) else value


def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format,
               acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
               out_dtype=kl.float32):
    formats = [_constant(f) for f in (lhs_format, rhs_format)]
    for f in formats:
        if f not in semantics.SCALED_FORMATS:
            raise KilnError(f"kl.dot_scaled: format {f!r} is not one of "
                            f"{', '.join(semantics.SCALED_FORMATS)}")
    if _constant(out_dtype) is not kl.float32:
        raise KilnError("kl.dot_scaled computes float32 (out_dtype)")
    compute = semantics.dot_scaled_compute_type(*formats)
    a = _scaled_operand(lhs, lhs_scale, formats[0],
                        bool(_constant(lhs_k_pack)), compute, False)
    b = _scaled_operand(rhs, rhs_scale, formats[1],
                        bool(_constant(rhs_k_pack)), compute, True)
    if a.shape[1] != b.shape[0]:
        raise KilnError(f"kl.dot_scaled: the operands hold {a.shape[1]} "
                        f"and {b.shape[0]} elements along K")
    if acc is not None and _data(acc).dtype != np.float32:
        raise KilnError(f"kl.dot_scaled accumulates in float32, not "
                        f"{kl.from_numpy(_data(acc).dtype).name}")
    return dot(Tile(a), Tile(b), acc)


def _scaled_operand(value, scale, format: str, k_pack: bool, compute: str,
                    is_rhs: bool) -> np.ndarray:
    """A dot_scaled operand decoded, scaled and rounded to ``compute``,
    as the compiler's (kiln/frontend/ops/dot.py)."""
    x = _data(value)
    side = "rhs" if is_rhs else "lhs"
    if x.ndim != 2:
        raise KilnError(f"kl.dot_scaled takes 2-D operands, not a {side} "
                        f"of shape {list(x.shape)}")
    if format == "e2m1":
        if x.dtype != np.uint8:
            raise KilnError(f"kl.dot_scaled: an e2m1 {side} comes packed "
                            f"two to a uint8, not as "
                            f"{kl.from_numpy(x.dtype).name}")
        magnitudes = np.array(semantics.E2M1_MAGNITUDES, np.float32)
        halves = [np.where(code & 8, -magnitudes[code & 7],
                           magnitudes[code & 7])
                  for code in (x & 15, x >> 4)]
        axis = 0 if is_rhs == k_pack else 1
        shape = list(x.shape)
        shape[axis] *= 2
        x = np.stack(halves, axis=axis + 1).reshape(shape)
    else:
        if not k_pack:
            raise KilnError("kl.dot_scaled: only e2m1 operands may be "
                            "packed along M or N")
        want = kl.BY_IR[semantics.SCALED_FORMATS[format]]
        if x.dtype == kl.BY_IR[semantics.SCALED_FORMAT_BITS[format]].numpy:
            x = x.view(want.numpy)
        elif x.dtype != want.numpy:
            raise KilnError(f"kl.dot_scaled: a {format} {side} is "
                            f"{want.name} or its bits, not "
                            f"{kl.from_numpy(x.dtype).name}")
        x = x.astype(np.float32)
    if _constant(scale) is not None:
        rows, k = x.shape[::-1] if is_rhs else x.shape
        s = _data(scale)
        groups = s.shape[-1] if s.ndim == 2 else 0
        if s.dtype not in (np.uint8, np.int8) or s.shape != (rows, groups) \
                or k % groups:
            raise KilnError(f"kl.dot_scaled: the {side} scale is a uint8 "
                            f"tile of shape [{rows}, K // group] (K = {k}), "
                            f"not {kl.from_numpy(s.dtype).name}"
                            f"{list(s.shape)}")
        byte = s.view(np.uint8).astype(np.int32)
        bits = byte << 23
        if compute == "bf16":  # byte 0 is 2^-127, not zero
            bits = np.where(byte == 0, 0x400000, bits)
        factor = np.where(byte == 255, np.float32("nan"),
                          bits.astype(np.int32).view(np.float32))
        factor = np.repeat(factor, k // groups, axis=1)
        with np.errstate(all="ignore"):
            x = x * (factor.T if is_rhs else factor)
    return x.astype(kl.BY_IR[compute].numpy)


def _extremum_reduction(name: str, combine: np.ufunc,
                        arg: Callable) -> Callable:
    """kl.max or kl.min: NaN-ignoring, in semantics' reduction type; with
    ``return_indices`` the element of the first extremum, in the tile's
    type, and its index."""
    def extremum(x, axis=None, return_indices=False,
                 return_indices_tie_break_left=True, keep_dims=False):
        data = _data(x)
        axis = _axis(axis, data)
        if not return_indices:
            wide = kl.BY_IR[semantics.extremum_reduction_type(
                _ir(data.dtype))].numpy
            result = combine.reduce(data.astype(wide), axis=axis)
            if _is_float(data.dtype):
                # PTX's max and min order -0 below +0: a zero maximum is
                # +0 where a +0 is among the elements, else -0 (a zero
                # minimum -0 where a -0 is).
                wins = (data == 0) & (np.signbit(data) == (name == "min"))
                negative = np.any(wins, axis=axis) == (name == "min")
                result = np.where(result == 0, np.where(
                    negative, -0.0, 0.0).astype(result.dtype), result)
            return _kept(result, data, axis, keep_dims)
        index = arg(data, axis, keep_dims=keep_dims).data
        kept = arg(data, axis, keep_dims=True).data
        value = data.reshape(-1)[kept] if axis is None else \
            np.take_along_axis(data, kept, axis)
        return Tile(value.reshape(index.shape)), Tile(index)
    return extremum


def _arg(name: str) -> Callable:
    """kl.argmax or kl.argmin (``name``): the first extremum, a NaN losing
    to any number (-inf too), as Triton's; of NaNs alone, the first, as
    compiled."""
    def arg(x, axis, tie_break_left=True, keep_dims=False):
        data = _data(x)
        axis = _axis(axis, data)
        if not _is_float(data.dtype):
            fn = np.argmax if name == "max" else np.argmin
            return _kept(fn(data, axis=axis).astype(np.int32), data, axis,
                         keep_dims)
        data = data.astype(np.float64)
        nan = np.isnan(data)
        filled = np.where(nan, -np.inf if name == "max" else np.inf, data)
        best = (filled.max if name == "max" else filled.min)(
            axis=axis, keepdims=True)
        hits = np.where(nan.all(axis=axis, keepdims=True), nan,
                        (filled == best) & ~nan)
        return _kept(np.argmax(hits, axis=axis).astype(np.int32), data,
                     axis, keep_dims)
    return arg


def _where(condition, x, y):
    if isinstance(x, Pointer) or isinstance(y, Pointer):
        return _where_pointers(condition, x, y)
    xd, yd = _unified(x, y)
    return Tile(np.where(_data(condition), xd, yd))


def _where_pointers(condition, x, y) -> Pointer:
    """kl.where over pointers into one array (the interpreter's pointers
    are an array and offsets)."""
    if not (isinstance(x, Pointer) and isinstance(y, Pointer)) or \
            x.base is not y.base:
        raise KilnError("kl.where over pointers: the interpreter chooses "
                        "only between pointers into the same array")
    return Pointer(x.base, np.where(_data(condition), x.offsets, y.offsets))


def _extremum(kind: str) -> Callable:
    """kl.maximum or kl.minimum: a NaN gives way (np.fmax) unless
    ``propagate_nan`` is ALL (np.maximum)."""
    def apply(x, y, propagate_nan=semantics.PropagateNan.NONE):
        if isinstance(propagate_nan, kl.constexpr):
            propagate_nan = propagate_nan.value
        if not isinstance(propagate_nan, semantics.PropagateNan):
            raise KilnError(f"propagate_nan is kl.PropagateNan.NONE or "
                            f"kl.PropagateNan.ALL, not {propagate_nan!r}")
        a, b = _unified(x, y)
        if _is_float8(a.dtype):  # exact in f32
            return Tile(_as(apply(Tile(a.astype(np.float32)), Tile(
                b.astype(np.float32)), propagate_nan).data, a.dtype))
        nan = propagate_nan is semantics.PropagateNan.ALL
        fn = {("max", False): np.fmax, ("max", True): np.maximum,
              ("min", False): np.fmin, ("min", True): np.minimum}[kind, nan]
        result = fn(a, b)
        if _is_float(a.dtype):
            # PTX's max and min order -0 below +0: of equal operands, the
            # bits of both and-ed (max) or or-ed (min).
            bits = np.dtype(f"u{a.dtype.itemsize}")
            both = (np.bitwise_and if kind == "max" else np.bitwise_or)(
                a.view(bits), b.view(bits))
            result = np.where(a == b, both.view(a.dtype), result)
        return Tile(result)
    return apply


def _permutation(x, dims: tuple) -> tuple:
    """``dims`` checked as the compiler checks it (the last two swapped
    when empty)."""
    rank = _data(x).ndim
    if not dims:
        dims = semantics.default_transpose(rank)
        if dims is None:
            raise KilnError(f"kl.trans of a tile of rank {rank} needs two "
                            "dimensions or more")
    if sorted(dims) != list(range(rank)):
        raise KilnError(f"{list(dims)} is not a permutation of the {rank} "
                        "dimensions of a tile")
    return dims


def _static_assert(condition, message=""):
    if not condition:
        raise KilnError(f"static assertion failed: {message}")


def _format_value(value: np.generic) -> str:
    """An element as the compiled kernels print it."""
    if isinstance(value, np.floating):
        return f"{float(value):.17g}" if value.dtype == np.float64 \
            else f"{float(value):.9g}"
    return str(int(value))


def _device_print(prefix, *args, hex=False):
    if hex:
        raise KilnError("kl.device_print(hex=True) is not supported by Kiln "
                        "yet")
    program = ", ".join(str(p) for p in _state.program)
    if not args:
        print(f"pid ({program}) {prefix}")
        return
    data = [_data(a) for a in args]
    shape = np.broadcast_shapes(*(d.shape for d in data))
    for i, values in enumerate(data):
        label = f"{prefix} (operand {i})" if len(data) > 1 else prefix
        values = np.broadcast_to(values, shape)
        for index in np.ndindex(*shape):
            where = f" idx ({', '.join(map(str, index))})" if shape else ""
            print(f"pid ({program}){where} {label}: "
                  f"{_format_value(values[index])}")


def _caller() -> tuple[str, int]:
    """File and line of the kernel code that called into the language."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(
            os.path.abspath(frame.f_code.co_filename)) == here:
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0
    return frame.f_code.co_filename, frame.f_lineno


def _condition_source(filename: str, line: int) -> str:
    """The source of the first argument of the call on ``line``, as the
    compiled kernels name a device_assert without a message."""
    text = linecache.getline(filename, line).strip()
    try:
        call = ast.parse(text).body[0].value
        return ast.get_source_segment(text, call.args[0])
    except (SyntaxError, IndexError, AttributeError):
        return "device_assert"


def _device_assert(condition, message="", mask=None):
    """Checked on every run: the interpreter is a debugging mode."""
    data = np.asarray(_data(condition))
    if data.dtype != np.bool_:
        raise KilnError(f"kl.device_assert needs a boolean condition, not "
                        f"{data.dtype}")
    holds = data if mask is None else data | ~np.asarray(_data(mask), bool)
    if holds.all():
        return
    program = ", ".join(str(p) for p in _state.program)
    where = ""
    if holds.shape:
        first = np.unravel_index(int(np.argmin(holds.reshape(-1))),
                                 holds.shape)
        where = f", element ({', '.join(str(int(i)) for i in first)})"
    filename, line = _caller()
    message = message or _condition_source(filename, line)
    raise KilnError(f"assertion failed at {filename}:{line}: {message} in "
                    f"program ({program}){where}")


def _combine_along(input, axis, combine_fn, scan: bool,
                   reverse: bool = False) -> list[np.ndarray]:
    """``combine_fn`` applied along ``axis`` in order (each step on whole
    slices): the running values after each element for a scan, the last
    for a reduction."""
    arrays = [_data(t) for t in (input if isinstance(input, tuple)
                                 else (input,))]
    axis = _axis(axis, arrays[0])
    moved = [np.moveaxis(a, axis, 0) for a in arrays]
    if reverse:
        moved = [m[::-1] for m in moved]
    running = [Tile(m[0]) for m in moved]
    steps = [[r.data for r in running]]
    for i in range(1, len(moved[0])):
        combined = combine_fn(*running, *[Tile(m[i]) for m in moved])
        combined = combined if isinstance(combined, tuple) else (combined,)
        running = [Tile(np.asarray(_data(c, a.dtype)).astype(a.dtype))
                   for c, a in zip(combined, arrays)]
        steps.append([r.data for r in running])
    if not scan:
        return steps[-1]
    results = [np.stack([step[k] for step in steps]) for k in
               range(len(arrays))]
    if reverse:
        results = [r[::-1] for r in results]
    return [np.moveaxis(r, 0, axis) for r in results]


def _reduce_with(input, axis, combine_fn, keep_dims=False):
    single = not isinstance(input, tuple)
    arrays = [_data(t) for t in ((input,) if single else input)]
    flat = tuple(Tile(a.reshape(-1)) for a in arrays) if axis is None \
        else input
    results = _combine_along(flat, 0 if axis is None else axis, combine_fn,
                             scan=False)
    if axis is not None:
        axis = _axis(axis, arrays[0])
    kept = [_kept(r, a, axis, keep_dims) for r, a in zip(results, arrays)]
    return kept[0] if single else tuple(kept)


def _associative_scan(input, axis, combine_fn, reverse=False):
    results = [Tile(r) for r in _combine_along(input, axis, combine_fn,
                                               scan=True,
                                               reverse=bool(reverse))]
    return tuple(results) if isinstance(input, tuple) else results[0]


class _NumpyOps:
    """Philox's 32-bit unsigned arithmetic on uint32 arrays and ints."""

    @staticmethod
    def mulhi(constant: int, x: np.ndarray) -> np.ndarray:
        return ((x.astype(np.uint64) * np.uint64(constant)) >> np.uint64(32)
                ).astype(np.uint32)

    @staticmethod
    def mullo(constant: int, x: np.ndarray) -> np.ndarray:
        return x * np.uint32(constant)

    @staticmethod
    def xor(x: Any, y: Any) -> Any:
        return x ^ (np.uint32(y) if isinstance(y, int) else y)

    @staticmethod
    def add(x: int, constant: int) -> int:
        return (x + constant) & 0xFFFFFFFF


def _seed64(seed) -> np.ndarray:
    """``seed`` (an integer scalar or tile) as uint64, as Triton converts
    it."""
    data = _data(seed)
    if data.dtype.kind not in "iub":
        raise KilnError(f"a random seed is an integer, not "
                        f"{_ir(data.dtype)}")
    if data.dtype.kind == "i":
        return data.astype(np.int64).view(np.uint64)
    return data.astype(np.uint64)


def _philox(seed, c0, c1, c2, c3, n_rounds=philox.ROUNDS):
    """Philox words of the counters, as the compiled kernels compute them
    (see kiln/philox.py): 4x32 of 32-bit counters, 4x64 of 64-bit ones."""
    seed = _seed64(seed)
    if not isinstance(n_rounds, int) or n_rounds < 1:
        raise KilnError("n_rounds must be a positive constant")
    words = [_data(c, np.dtype(np.int32)) for c in (c0, c1, c2, c3)]
    widths = {w.dtype.itemsize if w.dtype.kind in "iu" else 0
              for w in words}
    if widths not in ({4}, {8}):
        raise KilnError("random offsets and counters are 32-bit or 64-bit "
                        "integers, all of one width, not " + ", ".join(
                            semantics.name(_ir(w.dtype)) for w in words))
    unsigned = np.uint32 if widths == {4} else np.uint64
    words = [w.reshape(w.shape or (1,)).view(unsigned).reshape(w.shape)
             for w in np.broadcast_arrays(*words)]
    with np.errstate(over="ignore"):
        if widths == {8}:
            return philox.rounds(tuple(Tile(w) for w in words),
                                 (Tile(seed), Tile(np.uint64(0))), _TileOps,
                                 int(n_rounds), 64)
        key = (int(seed) & 0xFFFFFFFF, int(seed) >> 32) if not seed.ndim \
            else ((seed & 0xFFFFFFFF).astype(np.uint32),
                  (seed >> np.uint64(32)).astype(np.uint32))
        out = philox.rounds(tuple(words), key, _NumpyOps, int(n_rounds))
    return tuple(Tile(np.asarray(w).astype(np.uint32)) for w in out)


def _randint4x(seed, offset, n_rounds=philox.ROUNDS):
    """As Triton's: the offset converted to uint32 is the first counter
    word; a 64-bit offset's high 32 bits are the second."""
    data = _data(offset, np.dtype(np.int32))
    if data.dtype.kind not in "iu":
        raise KilnError(f"random offsets are integers, not "
                        f"{_ir(data.dtype)}")
    high = (data >> 32).astype(np.uint32) if data.dtype.itemsize == 8 \
        else np.uint32(0)
    return _philox(seed, Tile(data.astype(np.uint32)), Tile(high), 0, 0,
                   n_rounds)


class _TileOps:
    """Philox's arithmetic as the language's operators on the caller's
    typed words (``kl.philox_impl``), as compiled."""

    mulhi = staticmethod(lambda constant, x: _umulhi(constant, x))
    mullo = staticmethod(lambda constant, x: x * constant)
    xor = staticmethod(lambda x, y: x ^ y)
    add = staticmethod(lambda x, constant: x + constant)


def _philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=philox.ROUNDS):
    if not isinstance(n_rounds, int) or n_rounds < 1:
        raise KilnError("n_rounds must be a positive constant")
    words = [_assigned(w) for w in (c0, c1, c2, c3, k0, k1)]
    types = [_ir(_data(w).dtype) for w in words]
    if types[0] not in ("ui32", "ui64") or len(set(types)) > 1:
        raise KilnError("kl.philox_impl takes uint32 or uint64 words, all "
                        "of one type, not " + ", ".join(
                            semantics.name(t) for t in types))
    words = [w if isinstance(w, Tile) else Tile(_data(w)) for w in words]
    with np.errstate(over="ignore"):
        return philox.rounds(tuple(words[:4]), tuple(words[4:]), _TileOps,
                             n_rounds, kl.BY_IR[types[0]].bits)


def _uniform(x: Tile) -> Tile:
    """A uniform float32 in [0, 1) of a random 32-bit or 64-bit word,
    read as a signed integer of its width as Triton reads it."""
    data = x.data
    wide = data.dtype.itemsize == 8
    data = data.reshape(data.shape or (1,)).view(
        np.int64 if wide else np.int32).reshape(data.shape)
    data = np.where(data < 0, ~data, data)
    scale = philox.UNIFORM_SCALE_64 if wide else philox.UNIFORM_SCALE
    return Tile(data.astype(np.float32) * np.float32(scale))


def _pair_uniform_to_normal(u1, u2) -> tuple[Tile, Tile]:
    u1 = np.maximum(_data(u1), np.float32(1.0e-7))
    angle = np.float32(6.283185307179586) * _data(u2)
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    return (Tile((radius * np.cos(angle)).astype(np.float32)),
            Tile((radius * np.sin(angle)).astype(np.float32)))


def _rand4x(seed, offsets, n_rounds=philox.ROUNDS):
    return tuple(_uniform(w) for w in _randint4x(seed, offsets, n_rounds))


def _randn4x(seed, offsets, n_rounds=philox.ROUNDS):
    u = _rand4x(seed, offsets, n_rounds)
    return _pair_uniform_to_normal(u[0], u[1]) + \
        _pair_uniform_to_normal(u[2], u[3])


def _randn(seed, offset, n_rounds=philox.ROUNDS):
    return _randn4x(seed, offset, n_rounds)[0]


def _uint_to_uniform_float(x):
    if _data(x).dtype not in (np.int32, np.uint32, np.int64, np.uint64):
        raise KilnError(f"kl.uint_to_uniform_float takes 32-bit or 64-bit "
                        f"integer words, not {_ir(_data(x).dtype)}")
    return _uniform(Tile(_data(x)))


def _float32_only(name: str, *values) -> list[np.ndarray]:
    arrays = [_data(v, np.dtype(np.float32)) for v in values]
    if any(a.dtype != np.float32 for a in arrays):
        raise KilnError(f"kl.{name} takes float32, not "
                        f"{', '.join(_ir(a.dtype) for a in arrays)}")
    return arrays


def _fdiv(x, y, ieee_rounding=False, approx=False):
    """Rounded correctly, however the GPU rounds it, as Triton's
    interpreter does."""
    if ieee_rounding and approx:
        raise KilnError("kl.fdiv: approx and ieee_rounding cannot both be "
                        "True")
    dtype = _computation_dtype(x, y, True)
    if not _is_float(dtype):
        raise KilnError(f"kl.fdiv divides floats, not {_ir(dtype)}")
    if approx and _ir(dtype) != "f32":
        raise KilnError(f"kl.fdiv(approx=True) divides float32, not "
                        f"{_ir(dtype)}")
    return (x if isinstance(x, Tile) else Tile(_data(x))) / y


def _umulhi(x, y):
    if _is_number(x) and _is_number(y):
        x = Tile(_data(x))
    a, b = np.broadcast_arrays(*_unified(x, y))
    if a.dtype.kind not in "iu" or a.dtype.itemsize not in (4, 8):
        raise KilnError(f"kl.umulhi takes 32- or 64-bit integers, not "
                        f"{_ir(a.dtype)}")
    unsigned = np.dtype(f"uint{a.dtype.itemsize * 8}")
    high = [(int(p) * int(q)) >> (8 * a.dtype.itemsize) for p, q in zip(
        a.astype(unsigned).ravel(), b.astype(unsigned).ravel())]
    return Tile(np.array(high, unsigned).astype(a.dtype).reshape(a.shape))


def _squeeze(x, dim):
    data = _data(x)
    dim = _axis(dim, data)
    if data.shape[dim] != 1:
        raise KilnError(f"kl.squeeze: dimension {dim} has size "
                        f"{data.shape[dim]}, not 1")
    return Tile(np.squeeze(data, dim))


def _join(a, b):
    if _is_number(a) and _is_number(b):
        a = Tile(_data(a))
    x, y = _unified(a, b)
    x, y = np.broadcast_arrays(x, y)
    return Tile(np.stack([x, y], axis=-1))


def _split(a):
    data = _data(a)
    if not data.ndim or data.shape[-1] != 2:
        raise KilnError(f"kl.split needs a last dimension of size 2, not a "
                        f"tile of shape {list(data.shape)}")
    return Tile(data[..., 0].copy()), Tile(data[..., 1].copy())


def _interleave(a, b):
    joined = _join(a, b).data
    if joined.ndim == 1:  # two scalars: the pair is the interleaving
        return Tile(joined)
    return Tile(joined.reshape(joined.shape[:-2] + (2 * joined.shape[-2],)))


def _cat(input, other, can_reorder=False, dim=0):
    a, b = _data(input), _data(other)
    if not a.ndim or a.shape != b.shape:
        raise KilnError(f"kl.cat takes two tiles of one shape, not "
                        f"{list(a.shape)} and {list(b.shape)}")
    x, y = _unified(input, other)
    return Tile(np.concatenate([x, y], axis=_axis(dim, a)))


def _flip(x, dim=None):
    if isinstance(x, Pointer):
        raise KilnError(_FLIP_POINTERS)
    data = _data(x)
    if not data.ndim:
        raise KilnError("kl.flip needs a tile")
    dim = _axis(data.ndim - 1 if dim is None else dim, data)
    size = data.shape[dim]
    if size & (size - 1):
        raise KilnError(f"kl.flip reverses a dimension whose size is a "
                        f"power of two, not {size}")
    return Tile(np.flip(data, dim).copy())


def _clamp(x, min, max, propagate_nan=semantics.PropagateNan.NONE):
    clamped = _extremum("min")(_extremum("max")(x, min, propagate_nan), max,
                               propagate_nan)
    low, high = (_constant(v) for v in (min, max))
    if not semantics.is_xorsign_clamp(low, high, _ir(clamped.data.dtype),
                                      _constant(propagate_nan)):
        return clamped
    # Triton's min.xorsign.abs: a NaN gives `high` with its sign.
    data = np.broadcast_to(_data(x).astype(clamped.data.dtype),
                           clamped.data.shape)
    signed = np.copysign(np.asarray(high, clamped.data.dtype), data)
    return Tile(np.where(np.isnan(data), signed, clamped.data))


_FLIP_POINTERS = ("kl.flip reverses numbers, not pointers (Triton refuses "
                  "them too); flip the offsets")


def _softmax(x, dim=None, *, keep_dims=None, ieee_rounding=False):
    axis = 0 if dim is None else dim
    shifted = x - IMPLEMENTATIONS["max"](x, axis, keep_dims=True)
    numerator = _math(np.exp)(shifted)
    return _fdiv(numerator, _sum(numerator, axis, keep_dims=True))


def _swizzle2d(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    size_gj = size_g * size_j
    off_i = (ij // size_gj) * size_g
    size_g = IMPLEMENTATIONS["minimum"](size_i - off_i, size_g) if any(
        isinstance(v, Tile) for v in (size_i, off_i)) else \
        min(size_i - off_i, size_g)
    ij = ij % size_gj
    return off_i + ij % size_g, ij // size_g


def _indicator(dims: int, j: int) -> np.ndarray:
    return np.arange(2, dtype=np.int32).reshape((1,) * (dims - j - 1) + (2,)
                                                + (1,) * j)


def _compare_and_swap(h: np.ndarray, flip: Any, i: int) -> np.ndarray:
    """The compiler's compare-and-swap, on the same bits (its network)."""
    dims = h.ndim
    ix = h.view(np.dtype(f"i{h.dtype.itemsize}"))
    partner = ix ^ np.bitwise_xor.reduce(ix, axis=dims - 1 - i,
                                         keepdims=True)
    y = partner.view(h.dtype)
    right = np.bitwise_xor(flip, _indicator(dims, i))
    with np.errstate(invalid="ignore"):
        swap = (h > y) != (right != 0)
    return np.where(swap, y, h)


def _merge_hypercube(h: np.ndarray, stage: int, order: int) -> np.ndarray:
    flip = _indicator(h.ndim, stage) if order == 2 else order
    for i in range(stage):
        h = _compare_and_swap(h, flip, stage - 1 - i)
    return h


def _sorted_last(name: str, x, k, dim, descending) -> Tile:
    data = _data(x)
    if data.dtype == np.bool_:  # sorted as bytes, as compiled
        return Tile(_sorted_last(name, Tile(data.astype(np.uint8)), k, dim,
                                 descending).data != 0)
    shape = data.shape
    if isinstance(descending, kl.constexpr):
        descending = descending.value
    descending = int(bool(descending))
    if not shape or (dim is not None and _axis(dim, data) != len(shape) - 1):
        raise KilnError(f"kl.{name} sorts along the last dimension of a "
                        "tile")
    if any(n & (n - 1) for n in shape):
        raise KilnError(f"kl.{name} sorts tiles whose sizes are "
                        f"powers of two, not {data.dtype} {list(shape)}")
    log_n = shape[-1].bit_length() - 1
    log_k = log_n if k is None else k.bit_length() - 1
    if k is not None and (k <= 0 or k & (k - 1) or k > shape[-1]):
        raise KilnError(f"kl.topk: k is a power of two no larger than "
                        f"{shape[-1]}, not {k}")
    reduce = IMPLEMENTATIONS["max" if descending else "min"]
    if log_k == 0:
        return reduce(Tile(data), len(shape) - 1, keep_dims=True)
    dims = int(np.prod(shape)).bit_length() - 1
    h = data.reshape((2,) * dims)
    for i in range(1, log_k + 1):
        h = _merge_hypercube(h, i, 2 if i < log_n else descending)
    for i in range(log_k + 1, log_n + 1):
        h = reduce(Tile(h), h.ndim - 1 - log_k).data
        h = _merge_hypercube(h, log_k, 2 if i < log_n else descending)
    return Tile(h.reshape(shape[:-1] + (1 << log_k,)))


def _topk(x, k, dim=None, descending=True):
    if isinstance(k, kl.constexpr):
        k = k.value
    return _sorted_last("topk", x, k, dim, descending)


def _bitonic_merge(x, dim=None, descending=False):
    data = _data(x)
    if not data.shape or any(n & (n - 1) for n in data.shape):
        raise KilnError("kl.bitonic_merge takes a tile whose sizes are "
                        "powers of two")
    if isinstance(descending, kl.constexpr):
        descending = descending.value
    h = data.reshape((2,) * (int(np.prod(data.shape)).bit_length() - 1))
    h = _merge_hypercube(h, data.shape[-1].bit_length() - 1,
                         int(bool(descending)))
    return Tile(h.reshape(data.shape))


def _assume(condition):
    if not isinstance(condition, Tile) and not condition:
        raise KilnError("kl.assume of a condition that is false")




def scalar(value: Any, dtype: np.dtype) -> Tile:
    """A scalar kernel argument as the compiled kernel holds it: a 0-d
    tile of its argument type, whose arithmetic truncates and wraps."""
    return Tile(np.asarray(value, dtype=dtype))


def _gather(src, index, axis) -> Tile | Pointer:
    if isinstance(src, Pointer):  # pointers gather their offsets
        return Pointer(src.base, _gather(Tile(src.offsets), index,
                                         axis).data)
    data, picks = _data(src), _data(index)
    if data.ndim == 0 or picks.dtype.kind not in "iub" or \
            picks.ndim != data.ndim:
        raise KilnError(f"kl.gather takes a tile and an integer index tile "
                        f"of its rank, not {_ir(data.dtype)}"
                        f"{list(data.shape)} and {_ir(picks.dtype)}"
                        f"{list(picks.shape)}")
    axis = _axis(axis, data)
    if axis is None:
        raise KilnError("kl.gather needs an axis")
    for d, (have, want) in enumerate(zip(picks.shape, data.shape)):
        if d != axis and have != want:
            raise KilnError(f"kl.gather: the index's dimension {d} has size "
                            f"{have} but the source's has {want}")
    if picks.size and (picks.min() < 0 or picks.max() >= data.shape[axis]):
        raise KilnError(f"kl.gather: an index outside [0, "
                        f"{data.shape[axis]}) along axis {axis}")
    return Tile(np.take_along_axis(data, picks.astype(np.int64), axis))


def _histogram(input, num_bins, mask=None) -> Tile:
    data = _data(input)
    if data.ndim != 1 or data.dtype.kind not in "iu" or data.dtype == bool:
        raise KilnError(f"kl.histogram takes a 1-D tile of integers, not "
                        f"{_ir(data.dtype)}{list(data.shape)}")
    counted = (data >= 0) & (data < num_bins)
    if mask is not None:
        counted &= np.broadcast_to(_data(mask).astype(bool), data.shape)
    return Tile(np.bincount(data[counted].astype(np.int64),
                            minlength=int(num_bins)).astype(np.int32))


def _logical(name: str, combine: np.ufunc, input, other) -> Tile:
    a, b = (_data(_assigned(v)) for v in (input, other))
    if a.dtype != np.bool_ or b.dtype != np.bool_:
        raise KilnError(f"kl.{name} takes booleans, not {_ir(a.dtype)} and "
                        f"{_ir(b.dtype)}")
    return Tile(combine(a, b))


def _item(input) -> Tile:
    data = _data(input)
    if data.size != 1:
        raise KilnError(f"x.item() takes a tile of one number, not "
                        f"{_ir(data.dtype)}{list(data.shape)}")
    return Tile(data.reshape(()))


def _map_elementwise(scalar_fn, *args, pack=1):
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
        raise KilnError(f"kl.map_elementwise: pack must be a constant int of "
                        f"at least 1, not {pack!r}")
    if not args:
        raise KilnError("kl.map_elementwise maps over at least one tile")
    arrays = [a.reshape(-1) for a in np.broadcast_arrays(
        *[_data(a) for a in args])]
    shape = np.broadcast_shapes(*[_data(a).shape for a in args])
    size = arrays[0].size
    single, columns = True, []
    for start in range(0, size, pack):
        # A last group short of pack elements is padded with copies of its
        # last one, as the compiled kernels pad it; what comes back for
        # the padding is dropped.
        taken = [min(start + j, size - 1) for j in range(pack)]
        returned = scalar_fn(*[Tile(a[k]) for a in arrays for k in taken])
        single = not isinstance(returned, tuple)
        returned = (returned,) if single else returned
        if len(returned) % pack:
            raise KilnError(f"kl.map_elementwise: the function returns "
                            f"{len(returned)} values, not a multiple of "
                            f"pack ({pack})")
        columns.append([_data(r) for r in returned])
    results = len(columns[0]) // pack if columns else 0
    tiles = []
    for r in range(results):
        values = [column[r * pack + j] for column in columns
                  for j in range(pack)][:size]
        dtype = columns[0][r * pack].dtype
        tiles.append(Tile(np.array(values, dtype=dtype).reshape(shape)))
    return tiles[0] if single else tuple(tiles)


def _inline_asm_elementwise(*args):
    raise KilnError("kl.inline_asm_elementwise runs PTX on the GPU target "
                    "only; the interpreter cannot run it (nor can Triton's)")


IMPLEMENTATIONS: dict[str, Callable] = {
    "inline_asm_elementwise": _inline_asm_elementwise,
    "map_elementwise": _map_elementwise,
    # i32 scalars, as compiled kernels have them.
    "program_id": lambda axis: scalar(_state.program[axis], np.int32),
    "num_programs": lambda axis: scalar(_state.grid[axis], np.int32),
    "arange": arange,
    "zeros": lambda shape, dtype: Tile(np.zeros(
        _tile_shape("kl.zeros", shape), dtype.numpy)),
    "full": lambda shape, value, dtype: Tile(np.full(
        _tile_shape("kl.full", shape), _data(value, dtype.numpy),
        dtype.numpy)),
    "load": load,
    "store": store,
    "make_block_ptr": _make_block_ptr,
    "make_tensor_descriptor": TensorDescriptor,
    "load_tensor_descriptor": lambda desc, offsets: load(
        desc.block(offsets), boundary_check=tuple(range(len(
            desc.block_shape))), padding_option=desc.padding_option),
    "store_tensor_descriptor": lambda desc, offsets, value: store(
        desc.block(offsets), value, boundary_check=tuple(range(len(
            desc.block_shape)))),
    "descriptor_atomic": _descriptor_atomic,
    "descriptor_gather": _descriptor_gather,
    "descriptor_scatter": _descriptor_scatter,
    "advance": _advance,
    "where": _where,
    "minimum": _extremum("min"),
    "maximum": _extremum("max"),
    "exp": _math(np.exp), "exp2": _math(np.exp2), "log": _math(np.log),
    "log2": _math(np.log2), "sqrt": _math(np.sqrt),
    "rsqrt": _math(lambda v: 1 / np.sqrt(v)), "sin": _math(np.sin),
    "cos": _math(np.cos), "tanh": _math(np.tanh),
    "erf": _math(np.vectorize(math.erf)),
    "sigmoid": _sigmoid,
    "abs": lambda x: Tile(np.abs(_data(x))),
    "fma": _fma,
    "cdiv": _cdiv,
    "sum": _sum,
    "xor_sum": _integer_reduction("xor_sum", np.bitwise_xor),
    "reduce_or": _integer_reduction("reduce_or", np.bitwise_or),
    "max": _extremum_reduction("max", np.fmax, _arg("max")),
    "min": _extremum_reduction("min", np.fmin, _arg("min")),
    "argmax": _arg("max"),
    "argmin": _arg("min"),
    "cumsum": _scan("cumsum", np.add),
    "cumprod": _scan("cumprod", np.multiply),
    "dot": dot,
    "dot_scaled": dot_scaled,
    "floor": _math(np.floor), "ceil": _math(np.ceil),
    "clamp": _clamp,
    "zeros_like": lambda x: Tile(np.zeros_like(_data(x))),
    "full_like": lambda x, value: Tile(np.full_like(_data(x), value)),
    "broadcast_to": lambda x, *shape: Tile(np.broadcast_to(
        _data(x), _tile_shape("kl.broadcast_to",
                              kl.shape_argument(shape))).copy()),
    "expand_dims": lambda x, axis: Tile(np.expand_dims(_data(x), axis)),
    "multiple_of": lambda x, values: _hinted("multiple_of", x, values),
    "max_contiguous": lambda x, values: _hinted("max_contiguous", x,
                                                values),
    "max_constancy": lambda x, values: _hinted("max_constancy", x, values),
    "reduce": _reduce_with,
    "associative_scan": _associative_scan,
    "philox": _philox,
    "philox_impl": _philox_impl,
    "randint4x": _randint4x,
    "randint": lambda seed, offset, n_rounds=philox.ROUNDS: _randint4x(
        seed, offset, n_rounds)[0],
    "rand": lambda seed, offset, n_rounds=philox.ROUNDS: _uniform(
        _randint4x(seed, offset, n_rounds)[0]),
    "randn": _randn,
    "trans": lambda x, *dims: Tile(np.transpose(
        _data(x), _permutation(x, kl.shape_argument(dims)))),
    "permute": lambda x, *dims: Tile(np.transpose(
        _data(x), _permutation(x, kl.shape_argument(dims) or (None,)))),
    "reshape": lambda x, *shape, can_reorder=False: Tile(
        _tile_data(x, "kl.reshape").reshape(_tile_shape(
            "kl.reshape", kl.shape_argument(shape)))),
    "atomic_add": _atomic("add", lambda old, v: old + v),
    "atomic_max": _atomic_extremum("max", max),
    "atomic_min": _atomic_extremum("min", min),
    "atomic_xchg": _atomic("xchg", lambda old, v: v),
    "atomic_cas": _atomic_cas,
    "atomic_load": _atomic_load,
    "atomic_store": _atomic_store,
    "atomic_poll": _atomic_poll,
    "atomic_and": _atomic("and", lambda old, v: old & v,
                          integers_only=True),
    "atomic_or": _atomic("or", lambda old, v: old | v,
                          integers_only=True),
    "atomic_xor": _atomic("xor", lambda old, v: old ^ v,
                          integers_only=True),
    "cast": lambda x, dtype, fp_downcast_rounding=None, bitcast=False: (
        x if isinstance(x, (Tile, Pointer)) else Tile(_data(x))).to(
            dtype, fp_downcast_rounding, bitcast),
    "static_assert": _static_assert,
    "static_print": print,
    "assume": _assume,
    "debug_barrier": lambda: None,
    "add": lambda x, y, sanitize_overflow=True: x + y if isinstance(
        x, (Tile, Pointer)) else Tile(_data(x)) + y,
    "sub": lambda x, y, sanitize_overflow=True: x - y if isinstance(
        x, (Tile, Pointer)) else Tile(_data(x)) - y,
    "mul": lambda x, y, sanitize_overflow=True: (
        x if isinstance(x, Tile) else Tile(_data(x))) * y,
    "fdiv": _fdiv,
    "div_rn": lambda x, y: Tile(_true_divide(*_float32_only("div_rn", x,
                                                            y))),
    "sqrt_rn": lambda x: Tile(np.sqrt(*_float32_only("sqrt_rn", x))),
    "umulhi": _umulhi,
    "ravel": lambda x, can_reorder=False: Tile(_data(x).reshape(-1)),
    "view": lambda x, *shape: Tile(_data(x).reshape(_tile_shape(
        "kl.view", kl.shape_argument(shape)))),
    "squeeze": _squeeze,
    "unsqueeze": lambda x, dim: Tile(np.expand_dims(_data(x), dim)),
    "join": _join,
    "cat": _cat,
    "flip": _flip,
    "sort": lambda x, dim=None, descending=False: _sorted_last(
        "sort", x, None, dim, descending),
    "topk": _topk,
    "bitonic_merge": _bitonic_merge,
    "broadcast": lambda input, other: tuple(
        Tile(a.copy()) for a in np.broadcast_arrays(_data(input),
                                                    _data(other))),
    "to_tensor": lambda x: Tile(_data(x)),
    "softmax": _softmax,
    "swizzle2d": _swizzle2d,
    "split": _split,
    "interleave": _interleave,
    "uint_to_uniform_float": _uint_to_uniform_float,
    "pair_uniform_to_normal": _pair_uniform_to_normal,
    "rand4x": _rand4x,
    "randn4x": _randn4x,
    "device_print": _device_print,
    "device_assert": _device_assert,
    "expect_zero": lambda x, mask: (_device_assert(
        Tile(_data(x)) == 0, "kl.expect_zero: a value expected to be zero "
        "is not", mask), Tile(_data(x)))[1],
    "histogram": _histogram,
    "gather": _gather,
    "logical_and": lambda input, other: _logical("logical_and", np.logical_and,
                                                 input, other),
    "logical_or": lambda input, other: _logical("logical_or", np.logical_or,
                                                input, other),
    "item": _item,
}


#: The operations that move elements without computing on them: pointers
#: go through them as tiles do, as compiled.
_SHAPE_OPS = ("broadcast_to", "expand_dims", "trans", "permute", "reshape",
              "ravel", "view", "squeeze", "unsqueeze", "join", "cat",
              "broadcast", "split", "interleave")


def _through_pointers(fn: Callable) -> Callable:
    """``fn`` on pointers as on their offsets, into one array."""
    def apply(*args, **kwargs):
        pointers = [a for a in args if isinstance(a, Pointer)]
        if not pointers:
            return fn(*args, **kwargs)
        base = pointers[0].base
        if any(p.base is not base for p in pointers) or any(
                isinstance(a, Tile) for a in args):
            raise KilnError("the interpreter moves pointers into one array "
                            "only, and not with numbers")
        result = fn(*(Tile(a.offsets) if isinstance(a, Pointer) else a
                      for a in args), **kwargs)
        if isinstance(result, tuple):
            return tuple(Pointer(base, r.data) for r in result)
        return Pointer(base, result.data)
    return apply


IMPLEMENTATIONS.update({name: _through_pointers(IMPLEMENTATIONS[name])
                        for name in _SHAPE_OPS})


def _round_away(x: np.ndarray) -> np.ndarray:
    """Rounded half away from zero (C's ``round``), exactly: ``x -
    trunc(x)`` has no rounding error."""
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)


def _bit_count(x: np.ndarray, count: Callable[[int, int], int]) -> np.ndarray:
    """``count(bits, value)`` of each element's unsigned bits, as int32."""
    bits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"uint{bits}"))
    return np.vectorize(lambda v: count(bits, int(v)), otypes=[np.int32])(
        unsigned).astype(np.int32)


def _raised_to_integer(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``x ** n`` for integer ``n`` by repeated squaring in ``x``'s type,
    as compiled for the host (compiler-rt's __powisf2)."""
    bits = np.abs(n.astype(np.int64))
    result, power = np.ones_like(x), x.copy()
    while np.any(bits):
        result = np.where(bits & 1, result * power, result)
        bits >>= 1
        power = power * power
    return np.where(n < 0, 1 / result, result)


def _mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bits = a.dtype.itemsize * 8
    high = (a.astype(object) * b.astype(object)) >> bits
    return high.astype(a.dtype)


def _rounded_to_int(x: np.ndarray, elem: str, mode: str) -> np.ndarray:
    """As compiled (``CodeGenerator.rounded_to_int``): rounded, saturated
    to the result's range, NaN as 0; an unsigned result's bits in
    ``elem``."""
    rounding, _, unsigned = mode.partition(" ")
    r = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil,
         "away": _round_away}[rounding](x)
    bits = np.dtype(kl.BY_IR[elem].numpy).itemsize * 8
    low, high = (0, 2**bits - 1) if unsigned else (-2**(bits - 1),
                                                   2**(bits - 1) - 1)
    container = np.dtype(f"{'u' if unsigned else ''}int{bits}")
    inside = (r >= low) & (r < float(high + 1))
    out = np.where(inside, r, 0).astype(container)
    out = np.where(r >= float(high + 1), container.type(high), out)
    out = np.where(r < low, container.type(low), out)
    out = np.where(np.isnan(r), container.type(0), out)
    return np.asarray(out, container).view(kl.BY_IR[elem].numpy)


#: libdevice's functions by their ``Function.kind`` (kiln/extra/
#: libdevice.py), on numpy arrays of the overload's argument types.
_LIBDEVICE_OPS: dict[str, Callable] = {
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "roundeven": np.rint, "round": _round_away, "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v), "cbrt": np.cbrt, "exp": np.exp,
    "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc),
    "atan2": np.arctan2, "copysign": np.copysign, "powf": np.power,
    "remf": np.fmod, "divf": np.divide,
    # One rounding: float32's product and sum are exact in float64.
    "fma": lambda x, y, z: x.astype(np.float64) * y + z,
    "pow": lambda x, n: _raised_to_integer(x, n) if n.dtype.kind == "i"
    else _power(x, n),
    "exp10": lambda x: np.power(x.dtype.type(10), x),
    "abs": np.abs, "reciprocal": lambda x: 1 / x,
    "saturate": lambda x: np.fmin(np.fmax(x, 0), 1),
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "signbit": np.signbit,
    "ctlz": lambda x: _bit_count(x, lambda bits, v: bits - v.bit_length()),
    "ctpop": lambda x: _bit_count(x, lambda bits, v: bin(v).count("1")),
    "mulhi": _mulhi,
}


#: C's types of the element types the math library's functions take.
_C_TYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double,
            "i32": ctypes.c_int}


@functools.cache
def _c_math_function(symbol: str, types: tuple[str, ...],
                     result: str) -> Callable:
    """The C math library's ``symbol`` (what the host target calls)."""
    function = getattr(ctypes.CDLL(ctypes.util.find_library("m")), symbol)
    function.argtypes = [_C_TYPES[t] for t in types]
    function.restype = _C_TYPES[result]
    return function


def _extern(name: str, arrays: list[np.ndarray], result: str) -> np.ndarray:
    """A libdevice function MLIR's math dialect lacks, as the host target
    computes it: the C math library's function, element by element."""
    types = tuple(_ir(a.dtype) for a in arrays)
    call = libdevice.EXTERNS[name][types]
    if call.host_symbol is None:
        raise KilnError(f"libdevice.{name} runs on the GPU target only "
                        f"({call.gpu_symbol}; the C math library has no "
                        "such function)")
    function = _c_math_function(call.host_symbol, types, result)
    values = [function(*(v.item() for v in element))
              for element in zip(*(a.reshape(-1) for a in arrays))]
    return np.array(values, kl.BY_IR[result].numpy).reshape(arrays[0].shape)


def call_libdevice(name: str, args: tuple) -> Tile:
    """``libdevice.<name>(*args)``, typed as compiled
    (``CodeGenerator.libdevice``)."""
    arrays = np.broadcast_arrays(*(_data(_assigned(a)) for a in args))
    result = libdevice.result_type(name, tuple(_ir(a.dtype) for a in arrays))
    kind, _, modifier = libdevice.FUNCTIONS[name].kind.partition(" ")
    if kind == "extern":
        return Tile(_extern(name, arrays, result))
    with np.errstate(all="ignore"):
        if kind == "to_int":
            return Tile(_rounded_to_int(arrays[0], result, modifier))
        if kind == "bitcast":
            return Tile(arrays[0].view(kl.BY_IR[result].numpy))
        if kind in ("int_to_float", "truncf"):  # numpy's rounds to nearest
            values = arrays[0]
        else:
            op = modifier if kind in ("predicate", "count") else kind
            values = _LIBDEVICE_OPS[op.rpartition(".")[2]](*arrays)
        return Tile(np.asarray(values).astype(kl.BY_IR[result].numpy))


def call_builtin(name: str, args: tuple, kwargs: dict) -> Any:
    return IMPLEMENTATIONS[name](*args, **kwargs)


def _argument(value: Any) -> Any:
    if isinstance(value, tuple):
        return semantics.tuple_elements_mapped(
            lambda v, _: _argument(v), value)
    if isinstance(value, HostTensorDescriptor):
        return TensorDescriptor(_argument(value.base), value.shape,
                                value.strides, value.block_shape,
                                value.padding)
    if isinstance(value, np.ndarray):
        if value.flags.c_contiguous:
            return Pointer(value.reshape(-1))
        # A strided view: its elements as a flat array of the memory from
        # its first to its last element, which kernels address with the
        # strides they are given.
        if any(s < 0 or s % value.itemsize for s in value.strides):
            raise KilnError("the interpreter takes arrays with non-negative "
                            "strides that are whole elements")
        span = 1 + sum((n - 1) * s // value.itemsize
                       for n, s in zip(value.shape, value.strides))
        # Through unsigned integers of the element's size: as_strided
        # cannot read ml_dtypes' types (8-bit floats, bfloat16).
        flat = np.lib.stride_tricks.as_strided(
            value.view(f"u{value.itemsize}"),
            shape=(span if value.size else 0,), strides=(value.itemsize,))
        return Pointer(flat.view(value.dtype))
    return value


def kernel_range(*bounds, num_stages: int | None = None):
    """``range`` as a kernel has it: ``num_stages`` (a pipelining hint), a
    step of 0 runs no iteration, and the loop variable is an i32 scalar
    (i64 where a bound is), whose arithmetic wraps as compiled."""
    bounds = tuple(b.value if isinstance(b, kl.constexpr) else b
                   for b in bounds)
    dtypes = [_dtype_of(b) for b in bounds]
    if any(d.kind not in "iu" or d == np.bool_ for d in dtypes):
        raise KilnError("loop bounds must be integers, not " + ", ".join(
            str(d) for d in dtypes))
    wide = any(d.itemsize == 8 for d in dtypes) or any(
        isinstance(b, int) and not -2**31 <= b < 2**31 for b in bounds)
    counter = np.int64 if wide else np.int32
    ints = tuple(int(b) for b in bounds)
    if len(ints) == 3 and ints[2] == 0:
        return
    for value in range(*ints):
        yield scalar(value, counter)


def _kernel_extremum(name: str, combine: Callable) -> Callable:
    """``min`` or ``max`` as a kernel has them: elementwise where a tile is
    among the values (kl.minimum, kl.maximum: NaN wins), else Python's."""
    python = getattr(builtins, name)

    def extremum(*args, **kwargs):
        if kwargs or len(args) < 2 or not any(isinstance(a, Tile)
                                               for a in args):
            return python(*args, **kwargs)
        result = args[0]
        for arg in args[1:]:
            result = combine(result, arg)
        return result
    return extremum


def _assigned(value: Any) -> Any:
    """What a name holds after ``name = value``, as compiled
    (``CodeGenerator.assigned``): a Python number becomes a scalar tile
    typed by ``semantics.python_number_type`` (Triton's rule); tuples
    element by element."""
    if type(value) is tuple:
        return tuple(_assigned(v) for v in value)
    number = value.value if isinstance(value, kl.constexpr) else value
    if not isinstance(number, (bool, int, float)):
        return value
    try:
        elem = semantics.python_number_type(number)
    except ValueError as exc:
        raise KilnError(str(exc)) from None
    return Tile(np.asarray(number, dtype=kl.BY_IR[elem].numpy))


def _typed_assignments(statements: list[ast.stmt], scope: dict[str, Any]
                       ) -> list[ast.stmt]:
    """``statements`` with ``name = value`` (and ``name += value``, and
    annotated assignments other than ``tl.constexpr`` ones) passing the
    value through ``_assigned``, so the interpreter types assigned numbers
    as the compiler does. Only statements are walked: an expression holds
    no assignment, and may nest deeper than Python's recursion limit."""
    def wrapped(value: ast.expr) -> ast.expr:
        name = ast.copy_location(ast.Name("__kiln_assigned__", ast.Load()),
                                 value)
        return ast.copy_location(ast.Call(name, [value], []), value)

    result = []
    for statement in statements:
        if isinstance(statement, ast.Assign):
            statement.value = wrapped(statement.value)
        elif isinstance(statement, ast.AnnAssign):
            if statement.value is not None and not kl.is_constexpr_annotation(
                    ast.unparse(statement.annotation), scope):
                statement.value = wrapped(statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(
                statement.target, ast.Name):
            current = ast.copy_location(
                ast.Name(statement.target.id, ast.Load()), statement.target)
            operation = ast.copy_location(
                ast.BinOp(current, statement.op, statement.value), statement)
            statement = ast.copy_location(
                ast.Assign([statement.target], wrapped(operation)), statement)
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                setattr(statement, field, _typed_assignments(block, scope))
        result.append(statement)
    return result


class _BooleanOperators(ast.NodeTransformer):
    """``a and b``, ``a < b < c`` and ``not a`` as compiled
    (``CodeGenerator.boolean_values``) rather than by Python's truth of a
    tile: each operand a thunk, evaluated in order."""

    @staticmethod
    def call(name: str, node: ast.expr, args: list[ast.expr]) -> ast.expr:
        return ast.copy_location(ast.Call(
            ast.copy_location(ast.Name(name, ast.Load()), node), args, []),
            node)

    @staticmethod
    def thunk(value: ast.expr) -> ast.expr:
        arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                  kw_defaults=[], defaults=[])
        return ast.copy_location(ast.Lambda(arguments, value), value)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        conjunction = ast.copy_location(
            ast.Constant(isinstance(node.op, ast.And)), node)
        return self.call("__kiln_boolean__", node, [
            conjunction, *(self.thunk(v) for v in node.values)])

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        names = ast.copy_location(ast.Constant(
            tuple(type(op).__name__ for op in node.ops)), node)
        return self.call("__kiln_chain__", node, [names, *(
            self.thunk(v) for v in [node.left, *node.comparators])])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return self.call("__kiln_not__", node, [node.operand])


_COMPARISONS = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt,
                "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
                "Is": operator.is_, "IsNot": operator.is_not,
                "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b}


def _boolean(conjunction: bool, *thunks: Callable) -> Any:
    """``and`` (``or`` where not ``conjunction``) of the thunks' values."""
    return _boolean_values(conjunction, (thunk() for thunk in thunks))


def _boolean_values(conjunction: bool, values) -> Any:
    """As the compiler's (Walker.boolean_values)."""
    dynamic, value = [], None
    for value in values:
        if not isinstance(value, Tile):
            if bool(value) != conjunction:
                return value
            continue
        dynamic.append(value)
    if not dynamic:
        return value
    if len(dynamic) == 1:
        return dynamic[0]
    combine = np.logical_and if conjunction else np.logical_or
    return Tile(functools.reduce(combine, (
        v.data if v.data.dtype == np.bool_ else v.data != 0
        for v in dynamic)))


def _chain(names: tuple[str, ...], *thunks: Callable) -> Any:
    """``a < b <= c``: ``a < b and b <= c``, ``b`` evaluated once."""
    def comparisons():
        left = thunks[0]()
        for name, thunk in zip(names, thunks[1:]):
            right = thunk()
            yield _COMPARISONS[name](left, right)
            left = right
    return _boolean_values(True, comparisons())


def _not(value: Any) -> Any:
    """``not value``: of a tile of booleans, each inverted; of a scalar,
    whether it is 0."""
    if not isinstance(value, Tile):
        return not value
    if value.data.dtype == np.bool_:
        return Tile(~value.data)
    if value.data.shape:
        raise KilnError("'not' takes a scalar or a tile of booleans (as "
                        "Triton); use ~ for an elementwise not of a tile")
    return Tile(value.data == 0)


_KERNEL_CODE: dict[types.CodeType, types.CodeType] = {}


def _kernel_code(fn: Callable) -> types.CodeType:
    """``fn``'s code with assignments typed (``_typed_assignments``) and
    boolean operators as compiled (``_BooleanOperators``), compiled once
    per function from its source, at its file's lines. A function without
    source (made by exec) keeps its code."""
    code = _KERNEL_CODE.get(fn.__code__)
    if code is not None:
        return code
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return fn.__code__
    tree = ast.parse(textwrap.dedent("".join(lines)))
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef):  # a lambda, say
        raise KilnError(f"{inspect.getsourcefile(fn)}:{first}: @kiln.jit "
                        "applies to a function")
    definition.decorator_list = []
    ast.increment_lineno(tree, first - 1)
    definition.body = _typed_assignments(definition.body, fn.__globals__)
    try:
        tree = _BooleanOperators().visit(tree)
    except RecursionError:
        pass  # nested past Python's limit: what is rewritten is complete
    module = compile(tree, fn.__code__.co_filename, "exec")
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType)
                and c.co_name == fn.__name__)
    _KERNEL_CODE[fn.__code__] = code
    return code


def as_kernel(fn: Callable) -> Callable:
    """``fn`` with the builtins a kernel sees in place of Python's, and its
    assignments typed as compiled."""
    code = _kernel_code(fn)
    namespace = dict(fn.__globals__, range=kernel_range,
                     min=_kernel_extremum("min", IMPLEMENTATIONS["minimum"]),
                     max=_kernel_extremum("max", IMPLEMENTATIONS["maximum"]),
                     __kiln_assigned__=_assigned, __kiln_boolean__=_boolean,
                     __kiln_chain__=_chain, __kiln_not__=_not)
    closure = fn.__closure__
    if code is not fn.__code__:
        # Compiled at module level, the function reads what it closed
        # over as globals.
        for name, cell in zip(fn.__code__.co_freevars, closure or ()):
            try:
                namespace[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
        closure = None
    kernel = types.FunctionType(code, namespace, fn.__name__,
                                fn.__defaults__, closure)
    kernel.__kwdefaults__ = fn.__kwdefaults__
    return kernel


def run(fn: Callable, grid: Sequence[int], arguments: dict[str, Any]) -> None:
    """Runs `fn` with `arguments` once per program instance of `grid`, x
    fastest."""
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    converted = {name: _argument(value) for name, value in arguments.items()}
    kernel = as_kernel(fn)
    _state.grid = grid
    try:
        for z, y, x in itertools.product(*(range(g) for g in grid[::-1])):
            _state.program = (x, y, z)
            kernel(**converted)
    except (ValueError, TypeError, IndexError, AttributeError,
            ArithmeticError) as exc:
        raise _at_kernel_line(exc) from exc
    except RecursionError as exc:
        # from None: its thousand frames repeat one line.
        raise _too_deep(exc) from None
    finally:
        _state.program = None


def _too_deep(exc: RecursionError) -> Exception:
    """``exc`` as a ``KilnError`` at the innermost kernel line it passed
    through: a kernel function that calls itself without end, which
    compiled kernels refuse (their calls are inlined)."""
    user = _kernel_frames(exc)
    if not user:
        return exc
    return _at_line(user[-1], "calls nested too deeply (Python's recursion "
                    "limit); @kiln.jit functions are inlined, so a "
                    "recursion must end on compile-time values")


def _at_kernel_line(exc: Exception) -> Exception:
    """``exc`` as a ``KilnError`` at the kernel's line where numpy or the
    interpreter raised it carrying out a kernel's operation (two tiles
    that do not broadcast, a list where a pointer goes); an error of the
    kernel's own Python code stays as it is."""
    user = _kernel_frames(exc)
    frames = list(traceback.walk_tb(exc.__traceback__))
    if not user or frames[-1][0] in user:
        return exc
    return _at_line(user[-1], f"{type(exc).__name__}: {exc}")


def _kernel_frames(exc: BaseException) -> list[types.FrameType]:
    """The frames of ``exc``'s traceback in the kernel's own code (neither
    Kiln's nor numpy's), outermost first."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [frame for frame, _ in traceback.walk_tb(exc.__traceback__)
            if not os.path.abspath(frame.f_code.co_filename).startswith(
                (here, _NUMPY_DIR))]


def _at_line(frame: types.FrameType, message: str) -> KilnError:
    """``message`` as a ``KilnError`` at ``frame``'s line, quoted."""
    file, line = frame.f_code.co_filename, frame.f_lineno
    source = linecache.getline(file, line).strip()
    return KilnError(f"{file}:{line}: {source}: {message}")


# The language's functions reach this module through kiln.dispatch.
dispatch.install(sys.modules[__name__])
