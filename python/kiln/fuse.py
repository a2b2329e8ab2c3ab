"""``@kiln.fuse``: numpy functions traced into whole-tensor programs, fused
into tile kernels and run on the host target.

    import numpy as np
    import kiln

    @kiln.fuse
    def gelu(x):
        return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    y = gelu(np.random.rand(1000, 77).astype(np.float32))  # one kernel

A call with a new signature (the shapes and dtypes of its arguments) traces
the function once: it runs on traced arrays that record each numpy
operation as the array level's IR (``linalg.generic`` for elementwise
operations, broadcasts in their indexing maps, and for gathers, whose
bodies ``tensor.extract`` from the array they index; ``linalg.generic``
over rows with a ``linalg.fill`` init for reductions, one axis each;
``linalg.matmul`` or ``linalg.batch_matmul`` into a ``linalg.fill`` for
``@``; ``tensor.extract_slice`` for basic indexing), then
``kiln.host.ARRAY_PIPELINE`` (kiln-fuse, kiln-tile) groups the operations
into tile kernels and a launch plan, compiled once for the host. Later
calls with the same signature look the plan up and run it.

Results follow numpy's types (NEP 50: Python scalars take the array's
type) and float16 arithmetic is done in float32 and rounded after each
operation, as numpy does. A matmul accumulates in float32 (float64 for
float64 operands) and rounds its result once.

What a traced function may use: the operators ``+ - * / // % ** @``, unary
``-`` and ``abs``, comparisons, ``& | ^ ~``; the ufuncs in
``SUPPORTED_UFUNCS`` (``np.exp``, ``np.tanh``, ``np.maximum``,
``np.where``...) and ``kiln.fuse.erf``; ``sum``, ``prod``, ``max``,
``min``, ``mean``, ``var``, ``std``, ``any``, ``all`` and
``np.linalg.norm`` over any axes, ``argmax`` and ``argmin`` over one
(``keepdims`` or not); ``np.einsum`` of one or two arrays;
``x.T``, ``np.transpose``, ``swapaxes``, ``np.moveaxis``,
``np.broadcast_to``, ``astype``, ``np.clip``, reshapes, and basic
indexing: integers, slices of any step, ``None`` and an ellipsis
(``x[1:] - x[:-1]``, ``x[..., ::2]``, ``x[:, None]``), each slice read in
place by the kernels that use it; indexing by integer arrays (``w[ids]``,
``x[rows, labels]``), ``np.take`` and ``np.take_along_axis``, gathers
whose index arguments are checked before each call as numpy checks them
(``KilnIndexError``); ``np.concatenate`` and ``np.stack``. Anything else
(another numpy function, ``cumsum``, ``if`` on a traced value, indexing by
booleans) raises ``KilnCompileError``
(a ``KilnError``) at the line of the function that did it; compiler
diagnostics (``CompilationError``) point at the Python lines of the
operations they name.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import math
import os
import re
import sys
import threading
from typing import Any, Callable, Sequence

import numpy as np

from kiln import ir_text
from kiln.codegen import KilnCompileError
from kiln.compiler import Context, Module
from kiln.errors import (CompilationError, KilnError, KilnIndexError,
                         in_kiln, user_facing, warn_remarks)
from kiln.gpu import is_device_array
from kiln.host import ARRAY_PIPELINE, HostExecutable

#: The name the traced IR goes by when the compiler reports on it (every
#: operation carries the location of its Python line, so diagnostics name
#: the user's file instead).
IR_FILENAME = "<kiln.fuse traced IR>"

_ELEMENT_TYPES = {
    np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64", np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}
_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


# --- where the user's code is -----------------------------------------------

_NUMPY_DIR = os.path.dirname(np.__file__)


def _user_frame():
    """The innermost frame outside Kiln and numpy: the line of the user's
    code that asked for what is being done."""
    frame = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if not in_kiln(file) and not file.startswith((_NUMPY_DIR + os.sep,
                                                      "<__array")):
            return frame
        frame = frame.f_back
    return None


def _where() -> tuple[str, int, int]:
    """File, line and column (1-based) of the user's code."""
    frame = _user_frame()
    if frame is None:
        return "<unknown>", 0, 0
    column = 1
    try:
        positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        if positions[2] is not None:
            column = positions[2] + 1
    except (AttributeError, IndexError):  # Python < 3.11
        pass
    return frame.f_code.co_filename, frame.f_lineno, column


def _error(message: str, where: tuple[str, int, int] | None = None
           ) -> KilnCompileError:
    file, line, column = where or _where()
    return KilnCompileError(message, file, line, column,
                            linecache.getline(file, line))


class _TracedIndexError(KilnCompileError, KilnIndexError):
    """An index outside its axis, found while tracing: at the line that
    indexes (a ``KilnCompileError``), and an ``IndexError`` as numpy's."""


def _index_error(message: str) -> _TracedIndexError:
    file, line, column = _where()
    return _TracedIndexError(message, file, line, column,
                             linecache.getline(file, line))


def _loc(where: tuple[str, int, int]) -> str:
    return ir_text.location(*where)


# --- types and constants ----------------------------------------------------

def _element_type(dtype: np.dtype) -> str:
    found = _ELEMENT_TYPES.get(dtype)
    if found is None:
        raise _error(f"kiln.fuse computes on bool, int8 to int64 and "
                     f"float16 to float64 arrays, not {dtype}")
    return found


def _ir_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of the tensor that holds an array of ``shape``: its axes
    of size 1 are dropped, so a broadcast is a projection in an indexing
    map (one axis of size 1 stays when there is nothing else)."""
    return tuple(d for d in shape if d != 1) or (1,)


def _tensor_type(shape: tuple[int, ...], dtype: np.dtype) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{_element_type(dtype)}>"


def _compute_type(dtype: np.dtype) -> np.dtype:
    """Where numpy computes ``dtype``'s arithmetic: float16 in float32."""
    return _F32 if dtype == _F16 else dtype


def _constant_text(value: Any, dtype: np.dtype) -> str:
    """``value`` converted to ``dtype`` as numpy converts it, as an MLIR
    attribute (floats by their bits, so nothing is rounded twice)."""
    try:
        scalar = np.array(value).astype(dtype)
    except (OverflowError, ValueError) as exc:
        raise _error(f"the constant {value!r} does not fit {dtype}: {exc}"
                     ) from None
    if dtype == _BOOL:
        return "true" if scalar else "false"
    if dtype.kind == "f":
        bits = scalar.view(f"u{dtype.itemsize}")
        return f"0x{int(bits):0{2 * dtype.itemsize}X}"
    return str(int(scalar))


def _constant_op(value: Any, dtype: np.dtype) -> str:
    """An ``arith.constant`` of ``value`` as a scalar of ``dtype``."""
    text = _constant_text(value, dtype)
    if dtype == _BOOL:  # true and false are typed already
        return f"arith.constant {text}"
    return f"arith.constant {text} : {_element_type(dtype)}"


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.generic)) or (
        isinstance(value, np.ndarray) and value.ndim == 0)


def _scalar_type(value: Any) -> Any:
    """What ``ufunc.resolve_dtypes`` takes for a scalar: Python ints and
    floats are weak (they take the array's type, NEP 50)."""
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, (np.generic, np.ndarray)):  # np.float64 is a float
        return value.dtype
    return type(value)


# --- the IR being traced ----------------------------------------------------

class _Body:
    """The body of one ``linalg.generic`` being emitted; values are
    (SSA name, numpy dtype) pairs."""

    def __init__(self, trace: _Trace, loc: str) -> None:
        self.trace, self.loc = trace, loc
        self.lines: list[str] = []

    def op(self, text: str, dtype: np.dtype) -> tuple[str, np.dtype]:
        name = self.trace.fresh()
        self.lines.append(f"{name} = {text} {self.loc}")
        return name, dtype

    def constant(self, value: Any, dtype: np.dtype) -> tuple[str, np.dtype]:
        return self.op(_constant_op(value, dtype), dtype)

    def cast(self, value: tuple[str, np.dtype], to: np.dtype
             ) -> tuple[str, np.dtype]:
        """``value`` converted as numpy's ``astype`` converts it."""
        name, dtype = value
        if dtype == to:
            return value
        src, dst = _element_type(dtype), _element_type(to)
        if to == _BOOL:
            zero = self.constant(0, dtype)[0]
            compare = (f"arith.cmpf une, {name}, {zero}" if dtype.kind == "f"
                       else f"arith.cmpi ne, {name}, {zero}")
            return self.op(f"{compare} : {src}", to)
        if dtype.kind == "f" and to.kind == "f":
            op = "arith.extf" if to.itemsize > dtype.itemsize else \
                "arith.truncf"
        elif dtype.kind == "f":
            op = "arith.fptosi"
        elif to.kind == "f":
            op = "arith.uitofp" if dtype == _BOOL else "arith.sitofp"
        elif to.itemsize > dtype.itemsize or dtype == _BOOL:
            op = "arith.extui" if dtype == _BOOL else "arith.extsi"
        else:
            op = "arith.trunci"
        return self.op(f"{op} {name} : {src} to {dst}", to)

    def binary(self, op: str, a: tuple[str, np.dtype],
               b: tuple[str, np.dtype]) -> tuple[str, np.dtype]:
        return self.op(f"{op} {a[0]}, {b[0]} : {_element_type(a[1])}", a[1])

    def unary(self, op: str, a: tuple[str, np.dtype]
              ) -> tuple[str, np.dtype]:
        return self.op(f"{op} {a[0]} : {_element_type(a[1])}", a[1])

    def compare(self, predicate: str, a: tuple[str, np.dtype],
                b: tuple[str, np.dtype]) -> tuple[str, np.dtype]:
        """``a`` and ``b`` compared by ``predicate`` (of ``arith.cmpf`` for
        floats, of ``arith.cmpi`` otherwise)."""
        op = "arith.cmpf" if a[1].kind == "f" else "arith.cmpi"
        return self.op(f"{op} {predicate}, {a[0]}, {b[0]} : "
                       f"{_element_type(a[1])}", _BOOL)

    def select(self, condition: tuple[str, np.dtype],
               a: tuple[str, np.dtype], b: tuple[str, np.dtype]
               ) -> tuple[str, np.dtype]:
        return self.op(f"arith.select {condition[0]}, {a[0]}, {b[0]} : "
                       f"{_element_type(a[1])}", a[1])


class _Trace:
    """The IR of the function being traced, one operation after another
    in program order; ``open`` until the function returns."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.open = True
        self._count = 0
        # Index arrays among the arguments (or views of them), checked
        # before each call as numpy checks them: (argument, the view of
        # it, size of the axis, axis, where it indexes).
        self.index_checks: list[tuple] = []

    def fresh(self) -> str:
        self._count += 1
        return f"%{self._count}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def is_reshape(self, value: str) -> bool:
        """Whether ``value`` is a tensor.collapse_shape or expand_shape."""
        return any(line.lstrip().startswith(
            (f"{value} = tensor.collapse_shape",
             f"{value} = tensor.expand_shape")) for line in self.lines)

    def empty(self, shape: tuple[int, ...], dtype: np.dtype, loc: str) -> str:
        name = self.fresh()
        self.emit(f"{name} = tensor.empty() : {_tensor_type(shape, dtype)} "
                  f"{loc}")
        return name

    def fill(self, value: Any, shape: tuple[int, ...], dtype: np.dtype,
             loc: str) -> str:
        """A tensor of ``shape`` filled with ``value``: the init of a
        reduction or a matmul."""
        constant = self.fresh()
        self.emit(f"{constant} = {_constant_op(value, dtype)} {loc}")
        empty = self.empty(shape, dtype, loc)
        name, type_ = self.fresh(), _tensor_type(shape, dtype)
        self.emit(f"{name} = linalg.fill ins({constant} : "
                  f"{_element_type(dtype)}) outs({empty} : {type_}) -> "
                  f"{type_} {loc}")
        return name

    def generic(self, inputs: Sequence[tuple[TracedArray, str]],
                space: tuple[int, ...], reduction: bool,
                out: tuple[str, str, np.dtype],
                body: Callable[[_Body, list], tuple[str, np.dtype]],
                loc: str) -> str:
        """A ``linalg.generic`` over ``space`` (its last dimension reduced
        if ``reduction``) reading ``inputs`` (array, indexing map results)
        into ``out`` (init tensor, indexing map results, element type);
        ``body`` emits the body from the input element values (and the
        accumulator last, for a reduction)."""
        dims = ", ".join(f"d{i}" for i in range(len(space)))
        maps = ", ".join(f"affine_map<({dims}) -> ({results})>"
                         for results in [m for _, m in inputs] + [out[1]])
        iterators = ", ".join(
            '"reduction"' if reduction and i == len(space) - 1
            else '"parallel"' for i in range(len(space)))
        out_shape = tuple(space[int(d[1:])] for d in out[1].split(", "))
        out_type = _tensor_type(out_shape, out[2])
        block = _Body(self, loc)
        arguments = [(self.fresh(), a.dtype) for a, _ in inputs]
        accumulator = (self.fresh(), out[2])
        values = arguments + ([accumulator] if reduction else [])
        result = body(block, values)
        name = self.fresh()
        ins = ""
        if inputs:
            ins = (f"ins({', '.join(a._value for a, _ in inputs)} : "
                   f"{', '.join(a._tensor_type for a, _ in inputs)}) ")
        block_arguments = ", ".join(
            f"{n}: {_element_type(d)}" for n, d in arguments + [accumulator])
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{maps}], "
                  f"iterator_types = [{iterators}]}} {ins}"
                  f"outs({out[0]} : {out_type}) {{")
        self.emit(f"^bb0({block_arguments}):")
        for line in block.lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {result[0]} : {_element_type(out[2])} "
                  f"{loc}")
        self.emit(f"}} -> {out_type} {loc}")
        return name


# --- traced arrays ----------------------------------------------------------

class TracedArray:
    """What a ``@kiln.fuse`` function receives instead of each array while
    it is traced: it has the array's ``shape``, ``dtype`` and ``ndim`` and
    records the numpy operations applied to it. Its values are not known
    while tracing, so ``if``, ``float()`` and indexing by booleans raise
    ``KilnError``."""

    def __init__(self, trace: _Trace, value: str, shape: tuple[int, ...],
                 dtype: np.dtype, bound: int | None = None,
                 origin: tuple[int, Callable] | None = None) -> None:
        self._trace = trace
        self._value = value
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        # Integers known to lie in [0, bound) (an argmax's), which index an
        # axis of at least that size without a check.
        self._bound = bound
        # For an argument or a view of one (reshaped, basic-indexed): the
        # argument's position and how to make the view of the numpy array
        # passed, whose values an index check looks at.
        self._origin = origin

    def _view_of(self, view: Callable) -> tuple[int, Callable] | None:
        """The origin of ``view(self)``."""
        if self._origin is None:
            return None
        position, make = self._origin
        return position, lambda a: view(make(a))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def _tensor_type(self) -> str:
        return _tensor_type(_ir_shape(self.shape), self.dtype)

    def __repr__(self) -> str:
        return f"TracedArray(shape={self.shape}, dtype={self.dtype})"

    def __len__(self) -> int:
        if not self.shape:
            raise _error("len() of a 0-d traced array")
        return self.shape[0]

    # Values are not known while tracing.
    def __bool__(self):
        raise _error("the truth value of a traced array is not known while "
                     "tracing (if, while, and, or, assert on an array "
                     "computed from the arguments); use np.where to choose "
                     "between values")

    def _no_value(self, what: str):
        raise _error(f"{what} of a traced array: its value is not known "
                     "while tracing")

    def __float__(self):
        self._no_value("float()")

    def __int__(self):
        self._no_value("int()")

    def __index__(self):
        self._no_value("use as an index")

    def __complex__(self):
        self._no_value("complex()")

    def __array__(self, *args, **kwargs):
        self._no_value("np.asarray (conversion to a numpy array)")

    def __iter__(self):
        raise _error("iteration over a traced array (it would index it "
                     "element by element); write the loop as array "
                     "operations")

    def __setitem__(self, key, value):
        raise _error("assignment into a traced array (x[...] = ...); "
                     "kiln.fuse traces functions without side effects: use "
                     "np.where")

    def __getattr__(self, name: str):
        # numpy and Python probe special names (__array_interface__...);
        # those are absent, not refused.
        if not name.startswith("__") and hasattr(np.ndarray, name):
            raise _error(f"ndarray.{name} is not supported by kiln.fuse")
        raise AttributeError(name)

    # numpy's protocols.
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs,
                        **kwargs):
        name = f"np.{ufunc.__name__}"
        _no_out(kwargs.pop("out", None), name)
        if method == "reduce" and ufunc in _REDUCING_UFUNCS and \
                len(inputs) == 1:
            axis = kwargs.pop("axis", 0)
            keepdims = kwargs.pop("keepdims", False)
            _no_extra(kwargs, f"{name}.reduce")
            return _reduce(inputs[0], _REDUCING_UFUNCS[ufunc], axis,
                           keepdims, None, f"{name}.reduce")
        if method != "__call__":
            raise _error(f"{name}.{method} is not supported by kiln.fuse")
        if kwargs.get("where") is True:
            del kwargs["where"]
        _no_extra(kwargs, name)
        if ufunc is np.matmul:
            return _matmul(*inputs)
        return _apply_ufunc(ufunc, inputs)

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is None:
            module = func.__module__ or "numpy"
            module = "np" if "._" in module else module.replace("numpy",
                                                                 "np", 1)
            raise _error(f"{module}.{func.__name__} is not supported by "
                         "kiln.fuse")
        return handler(*args, **kwargs)

    # Operators, through the ufuncs numpy uses for them.
    def __add__(self, o): return _apply_ufunc(np.add, (self, o))
    def __radd__(self, o): return _apply_ufunc(np.add, (o, self))
    def __sub__(self, o): return _apply_ufunc(np.subtract, (self, o))
    def __rsub__(self, o): return _apply_ufunc(np.subtract, (o, self))
    def __mul__(self, o): return _apply_ufunc(np.multiply, (self, o))
    def __rmul__(self, o): return _apply_ufunc(np.multiply, (o, self))
    def __truediv__(self, o): return _apply_ufunc(np.true_divide, (self, o))
    def __rtruediv__(self, o): return _apply_ufunc(np.true_divide, (o, self))
    def __floordiv__(self, o): return _apply_ufunc(np.floor_divide, (self, o))
    def __rfloordiv__(self, o): return _apply_ufunc(np.floor_divide, (o, self))
    def __divmod__(self, o): return self // o, self % o
    def __rdivmod__(self, o): return o // self, o % self
    def __mod__(self, o): return _apply_ufunc(np.remainder, (self, o))
    def __rmod__(self, o): return _apply_ufunc(np.remainder, (o, self))
    def __pow__(self, o): return _apply_ufunc(np.power, (self, o))
    def __rpow__(self, o): return _apply_ufunc(np.power, (o, self))
    def __matmul__(self, o): return _matmul(self, o)
    def __rmatmul__(self, o): return _matmul(o, self)
    def __and__(self, o): return _apply_ufunc(np.bitwise_and, (self, o))
    def __rand__(self, o): return _apply_ufunc(np.bitwise_and, (o, self))
    def __or__(self, o): return _apply_ufunc(np.bitwise_or, (self, o))
    def __ror__(self, o): return _apply_ufunc(np.bitwise_or, (o, self))
    def __xor__(self, o): return _apply_ufunc(np.bitwise_xor, (self, o))
    def __rxor__(self, o): return _apply_ufunc(np.bitwise_xor, (o, self))
    def __lt__(self, o): return _apply_ufunc(np.less, (self, o))
    def __le__(self, o): return _apply_ufunc(np.less_equal, (self, o))
    def __gt__(self, o): return _apply_ufunc(np.greater, (self, o))
    def __ge__(self, o): return _apply_ufunc(np.greater_equal, (self, o))
    def __eq__(self, o): return _apply_ufunc(np.equal, (self, o))
    def __ne__(self, o): return _apply_ufunc(np.not_equal, (self, o))
    def __neg__(self): return _apply_ufunc(np.negative, (self,))
    def __pos__(self): return _apply_ufunc(np.positive, (self,))
    def __abs__(self): return _apply_ufunc(np.absolute, (self,))
    def __invert__(self): return _apply_ufunc(np.invert, (self,))

    __hash__ = None  # == traces an elementwise comparison

    # ndarray's methods.
    def astype(self, dtype, copy: bool = True) -> TracedArray:
        return _astype(self, dtype)

    @property
    def T(self) -> TracedArray:
        return _transpose(self)

    def swapaxes(self, axis1: int, axis2: int) -> TracedArray:
        return _swapaxes(self, axis1, axis2)

    def transpose(self, *axes) -> TracedArray:
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _transpose(self, axes or None)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False
            ) -> TracedArray:
        return _sum(self, axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False) -> TracedArray:
        return _max(self, axis, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False) -> TracedArray:
        return _min(self, axis, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False
             ) -> TracedArray:
        return _prod(self, axis, dtype, out, keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False) -> TracedArray:
        return _argmax(self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False) -> TracedArray:
        return _argmin(self, axis, out, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False) -> TracedArray:
        return _any(self, axis, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False) -> TracedArray:
        return _all(self, axis, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False
             ) -> TracedArray:
        return _mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False
            ) -> TracedArray:
        return _var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False
            ) -> TracedArray:
        return _std(self, axis, dtype, out, ddof, keepdims)

    def clip(self, min=None, max=None) -> TracedArray:
        return _clip(self, min, max)

    def reshape(self, *shape, order: str = "C") -> TracedArray:
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _reshape(self, shape, order)

    def take(self, indices, axis=None, out=None, mode="raise"
             ) -> TracedArray:
        return _take(self, indices, axis, out, mode)

    def squeeze(self, axis=None) -> TracedArray:
        return _squeeze(self, axis)

    def __getitem__(self, key) -> TracedArray:
        """Indexing as numpy's: integers, slices of any step (``x[1:]``,
        ``x[:, ::2]``, ``x[::-1]``, ``x[..., :h]``, ``x[3]``), ``None``
        and one ellipsis, read in place by the kernels that use them; and
        integer arrays (``w[ids]``, ``x[:, ids]``), a gather (see
        ``_index_by_arrays``). Boolean arrays are not supported."""
        items = key if isinstance(key, tuple) else (key,)
        # A 0-d integer array indexes as its integer, as in numpy.
        items = tuple(item.item() if isinstance(item, np.ndarray) and
                      item.ndim == 0 and item.dtype.kind in "iu" else item
                      for item in items)
        if sum(item is Ellipsis for item in items) > 1:
            raise _error("an index with two ellipses")
        consumed = sum(item is not None and item is not Ellipsis
                       for item in items)
        if consumed > self.ndim:
            raise _error(f"too many indices for a {self.ndim}-d array")
        expanded: list[Any] = []
        for item in items:
            if item is Ellipsis:
                expanded += [slice(None)] * (self.ndim - consumed)
            else:
                expanded.append(item)
        expanded += [slice(None)] * (self.ndim - sum(
            i is not None for i in expanded))
        if any(_is_index_array(item) for item in expanded):
            # Index arrays (and integers) are next to each other where
            # nothing, not even an ellipsis of no axes, stands between.
            advanced = [i for i, item in enumerate(items)
                        if item is not None and item is not Ellipsis
                        and not isinstance(item, slice)]
            adjacent = advanced == list(range(advanced[0],
                                              advanced[-1] + 1))
            return _index_by_arrays(self, expanded, key, adjacent)
        shape: list[int] = []
        # Offset, size and stride along each axis of the IR tensor (the
        # axes of size > 1).
        offsets: list[int] = []
        sizes: list[int] = []
        strides: list[int] = []
        axis = 0
        for item in expanded:
            if item is None:
                shape.append(1)
                continue
            size = self.shape[axis]
            if isinstance(item, slice):
                try:
                    start, stop, step = item.indices(size)
                except (TypeError, ValueError) as exc:
                    raise _error(f"indexing a traced array with "
                                 f"[{_key_text(key)}]: {exc}") from None
                length = len(range(start, stop, step))
                if length == 0:
                    raise _error(
                        f"indexing a traced array with [{_key_text(key)}] "
                        f"selects no element along axis {axis} (of size "
                        f"{size}); kiln.fuse arrays have at least one")
                shape.append(length)
            elif isinstance(item, (int, np.integer)) and \
                    not isinstance(item, (bool, np.bool_)):
                if not -size <= item < size:
                    raise _index_error(f"index {item} is out of bounds for "
                                       f"axis {axis} with size {size}")
                start, length, step = int(item) % size, 1, 1
            else:
                raise _error(
                    f"indexing a traced array with [{_key_text(key)}]: "
                    "kiln.fuse indexes with integers, slices, None, an "
                    "ellipsis and integer arrays")
            if size != 1:
                offsets.append(start)
                sizes.append(length)
                strides.append(step if length > 1 else 1)
            axis += 1
        whole = all(o == 0 and s == n and t == 1 for o, s, t, n in zip(
            offsets, sizes, strides, [n for n in self.shape if n != 1]))
        origin = self._view_of(lambda a: a[key])
        if whole:
            view = _view(self, tuple(shape))
            view._origin = origin
            return view
        loc = _loc(_where())
        name = self._trace.fresh()
        result_type = _tensor_type(_ir_shape(tuple(shape)), self.dtype)
        self._trace.emit(
            f"{name} = tensor.extract_slice {self._value}"
            f"[{', '.join(map(str, offsets))}] "
            f"[{', '.join(map(str, sizes))}] "
            f"[{', '.join(map(str, strides))}] : {self._tensor_type} to "
            f"{result_type} {loc}")
        return TracedArray(self._trace, name, tuple(shape), self.dtype,
                           origin=origin)


def _key_text(key) -> str:
    items = key if isinstance(key, tuple) else (key,)

    def one(item):
        if isinstance(item, slice):
            parts = ["" if p is None else str(p)
                     for p in (item.start, item.stop, item.step)]
            return ":".join(parts[:2] if item.step is None else parts)
        if item is Ellipsis:
            return "..."
        if isinstance(item, TracedArray):
            return "<traced array>"
        return repr(item)
    return ", ".join(map(one, items))


def _operand(value: Any, what: str) -> TracedArray | Any:
    """A traced array of the current trace, or a scalar constant."""
    if isinstance(value, TracedArray):
        if not value._trace.open:
            raise _error(f"{what} on a traced array whose trace is over (kept "
                         "from an earlier call, in a global or a closure?)")
        return value
    if _is_scalar(value):
        return value
    if isinstance(value, np.ndarray):
        raise _error(f"{what} of a numpy array constant of shape "
                     f"{list(value.shape)}: kiln.fuse reads arrays only "
                     "from the arguments, pass it as one")
    if isinstance(value, (list, tuple)):
        raise _error(f"{what} of a {type(value).__name__}: kiln.fuse reads "
                     "arrays only from the arguments, pass it as a numpy "
                     "array argument")
    raise _error(f"{what} of a {type(value).__name__}, which kiln.fuse "
                 "cannot trace")


def _the_trace(operands: Sequence[Any]) -> _Trace:
    traces = {id(o._trace): o._trace for o in operands
              if isinstance(o, TracedArray)}
    if len(traces) != 1:
        raise _error("traced arrays of two traces used together")
    return next(iter(traces.values()))


def _broadcast(shapes: Sequence[tuple[int, ...]], what: str
               ) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise _error(f"{what}: shapes "
                     f"{', '.join(str(list(s)) for s in shapes)} do not "
                     "broadcast together") from None


def _input_map(shape: tuple[int, ...], result: tuple[int, ...]) -> str:
    """The indexing map results that read an array of ``shape`` broadcast
    to ``result``: each of its axes of size > 1 is that axis of the
    iteration space (the result's axes of size > 1)."""
    space_axes = [i for i, d in enumerate(result) if d != 1]
    if not space_axes:
        return "d0"
    offset = len(result) - len(shape)
    dims = [f"d{space_axes.index(offset + i)}"
            for i, d in enumerate(shape) if d != 1]
    return ", ".join(dims) or "0"


def _elementwise(operands: Sequence[Any], dtype: np.dtype, what: str,
                 body: Callable[[_Body, list], tuple[str, np.dtype]],
                 shape: tuple[int, ...] | None = None) -> TracedArray:
    """A generic over the broadcast shape of ``operands`` (traced arrays,
    or scalars which ``body`` receives as Python values), or over
    ``shape`` they broadcast to, making ``dtype``."""
    loc = _loc(_where())
    arrays = [o for o in operands if isinstance(o, TracedArray)]
    trace = _the_trace(arrays)
    shape = _broadcast([a.shape for a in arrays] + [shape or ()], what)
    space = _ir_shape(shape)
    unique: dict[int, TracedArray] = {}
    for a in arrays:
        unique.setdefault(id(a), a)
    inputs = [(a, _input_map(a.shape, shape)) for a in unique.values()]
    positions = {key: i for i, key in enumerate(unique)}
    init = trace.empty(space, dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))

    def emit(block: _Body, values: list) -> tuple[str, np.dtype]:
        return body(block, [values[positions[id(o)]]
                            if isinstance(o, TracedArray) else o
                            for o in operands])

    name = trace.generic(inputs, space, False, (init, dims, dtype), emit,
                         loc)
    return TracedArray(trace, name, shape, dtype)


def _broadcast_to(x: Any, shape: Any) -> TracedArray:
    """``x`` repeated along the axes where ``shape`` is larger: a generic
    that reads it through a projection (nothing where it is as large)."""
    x = _operand(x, "broadcast_to")
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not isinstance(x, TracedArray):
        raise _error("broadcast_to of a scalar is not supported by kiln.fuse")
    if _broadcast([x.shape, shape], "broadcast_to") != shape:
        raise _error(f"broadcast_to: shape {list(x.shape)} does not "
                     f"broadcast to {list(shape)}")
    if _ir_shape(x.shape) == _ir_shape(shape):
        return _view(x, shape)
    return _elementwise([x], x.dtype, "broadcast_to",
                        lambda b, values: values[0], shape)


def _view(x: TracedArray, shape: tuple[int, ...]) -> TracedArray:
    """``x`` with axes of size 1 added or dropped: the same tensor."""
    return TracedArray(x._trace, x._value, shape, x.dtype, x._bound,
                       x._view_of(lambda a: a.reshape(shape)))


def _copy(x: TracedArray, loc: str) -> str:
    """A generic that copies ``x`` (an argument returned as it is)."""
    space = _ir_shape(x.shape)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    init = x._trace.empty(space, x.dtype, loc)
    return x._trace.generic([(x, dims)], space, False, (init, dims, x.dtype),
                            lambda b, v: v[0], loc)


# --- ufuncs -----------------------------------------------------------------

def _float_math(op: str):
    return lambda b, args: b.unary(op, args[0])


def _float_binary(op: str):
    return lambda b, args: b.binary(op, args[0], args[1])


def _by_kind(float_rule, int_rule=None, bool_rule=None):
    """A rule that picks by the kind of the type numpy computes in
    (``rule.kinds``: those it takes)."""
    rules = {"f": float_rule, "i": int_rule, "b": bool_rule}

    def rule(b: _Body, args: list) -> tuple[str, np.dtype]:
        return rules[args[0][1].kind](b, args)
    rule.kinds = {k for k, r in rules.items() if r is not None}
    return rule


def _identity(b: _Body, args: list) -> tuple[str, np.dtype]:
    return args[0]


def _compare(float_predicate: str, int_predicate: str, bool_predicate: str):
    def rule(b: _Body, args: list) -> tuple[str, np.dtype]:
        predicates = {"f": float_predicate, "i": int_predicate,
                      "b": bool_predicate}
        return b.compare(predicates[args[0][1].kind], *args)
    rule.kinds = {"f", "i", "b"}
    return rule


def _signs_differ(b: _Body, x: tuple[str, np.dtype],
                  y: tuple[str, np.dtype]) -> tuple[str, np.dtype]:
    """Whether one of ``x`` and ``y`` is negative and the other not (a
    NaN is not negative)."""
    zero = b.constant(0, x[1])
    less = "olt" if x[1].kind == "f" else "slt"
    return b.binary("arith.xori", b.compare(less, x, zero),
                    b.compare(less, y, zero))


def _safe_divisor(b: _Body, d: tuple[str, np.dtype]):
    """``d`` with 1 where it is 0 or -1 (where signed division is undefined
    or overflows), and whether it is 0 and whether it is -1."""
    by_zero = b.compare("eq", d, b.constant(0, d[1]))
    by_minus_one = b.compare("eq", d, b.constant(-1, d[1]))
    safe = b.select(b.binary("arith.ori", by_zero, by_minus_one),
                    b.constant(1, d[1]), d)
    return safe, by_zero, by_minus_one


def _floor_divide_int(b: _Body, args: list) -> tuple[str, np.dtype]:
    """Division rounded down, as numpy's: x // 0 is 0, x // -1 wraps."""
    (a, d), zero = args, b.constant(0, args[0][1])
    safe, by_zero, by_minus_one = _safe_divisor(b, d)
    quotient = b.binary("arith.divsi", a, safe)
    rest = b.binary("arith.remsi", a, safe)
    rounded_up = b.binary("arith.andi", b.compare("ne", rest, zero),
                          _signs_differ(b, rest, safe))
    quotient = b.select(rounded_up, b.binary(
        "arith.subi", quotient, b.constant(1, a[1])), quotient)
    quotient = b.select(by_minus_one, b.binary("arith.subi", zero, a),
                        quotient)
    return b.select(by_zero, zero, quotient)


def _remainder_int(b: _Body, args: list) -> tuple[str, np.dtype]:
    """The remainder of rounding down, of the divisor's sign, as numpy's:
    x % 0 is 0."""
    a, d = args
    rest = b.binary("arith.remsi", a, _safe_divisor(b, d)[0])
    moved = b.binary("arith.andi",
                     b.compare("ne", rest, b.constant(0, a[1])),
                     _signs_differ(b, rest, d))
    return b.select(moved, b.binary("arith.addi", rest, d), rest)


def _fmod_int(b: _Body, args: list) -> tuple[str, np.dtype]:
    """C's remainder, of the dividend's sign: x fmod 0 is 0."""
    return b.binary("arith.remsi", args[0], _safe_divisor(b, args[1])[0])


def _float_modulus(b: _Body, a: tuple[str, np.dtype],
                   d: tuple[str, np.dtype]):
    """numpy's divmod of floats up to the quotient's rounding: fmod(a, d),
    and whether it takes the divisor's sign by adding d (then the
    quotient is one less)."""
    mod = b.binary("arith.remf", a, d)
    nonzero = b.compare("une", mod, b.constant(0, a[1]))
    return mod, nonzero, b.binary("arith.andi", nonzero,
                                  _signs_differ(b, d, mod))


def _floor_divide_float(b: _Body, args: list) -> tuple[str, np.dtype]:
    """numpy's floor division of floats: (a - fmod(a, d)) / d, one less
    where the remainder moves to d's sign, rounded to the nearest whole
    number below; a / d where d is 0, a signed 0 where the quotient is."""
    a, d = args
    zero, one = b.constant(0, a[1]), b.constant(1, a[1])
    mod, _, moved = _float_modulus(b, a, d)
    div = b.binary("arith.divf", b.binary("arith.subf", a, mod), d)
    div = b.select(moved, b.binary("arith.subf", div, one), div)
    floor = b.unary("math.floor", div)
    above_half = b.compare("ogt", b.binary("arith.subf", div, floor),
                           b.constant(0.5, a[1]))
    floor = b.select(above_half, b.binary("arith.addf", floor, one), floor)
    quotient = b.binary("arith.divf", a, d)
    floor = b.select(b.compare("une", div, zero), floor,
                     b.binary("math.copysign", zero, quotient))
    return b.select(b.compare("oeq", d, zero), quotient, floor)


def _remainder_float(b: _Body, args: list) -> tuple[str, np.dtype]:
    """numpy's remainder of floats: fmod(a, d) moved to d's sign, a 0 of
    d's sign where it is 0; NaN where d is 0."""
    a, d = args
    mod, nonzero, moved = _float_modulus(b, a, d)
    mod_moved = b.select(moved, b.binary("arith.addf", mod, d), mod)
    return b.select(nonzero, mod_moved,
                    b.binary("math.copysign", b.constant(0, a[1]), d))


def _negate_int(b: _Body, args: list) -> tuple[str, np.dtype]:
    zero = b.constant(0, args[0][1])
    return b.binary("arith.subi", zero, args[0])


def _reciprocal(b: _Body, args: list) -> tuple[str, np.dtype]:
    return b.binary("arith.divf", b.constant(1, args[0][1]), args[0])


def _logical(op: str):
    def rule(b: _Body, args: list) -> tuple[str, np.dtype]:
        truths = [b.cast(a, _BOOL) for a in args]
        if op == "not":
            return b.binary("arith.xori", truths[0], b.constant(True, _BOOL))
        return b.binary(f"arith.{op}i", *truths)
    rule.kinds = {"f", "i", "b"}
    return rule


def _invert(b: _Body, args: list) -> tuple[str, np.dtype]:
    ones = b.constant(True if args[0][1] == _BOOL else -1, args[0][1])
    return b.binary("arith.xori", args[0], ones)


_UFUNC_RULES: dict[Any, Callable] = {
    # numpy adds booleans with or, multiplies them with and.
    np.add: _by_kind(_float_binary("arith.addf"), _float_binary("arith.addi"),
                     _float_binary("arith.ori")),
    np.subtract: _by_kind(_float_binary("arith.subf"),
                          _float_binary("arith.subi")),
    np.multiply: _by_kind(_float_binary("arith.mulf"),
                          _float_binary("arith.muli"),
                          _float_binary("arith.andi")),
    np.true_divide: _by_kind(_float_binary("arith.divf")),
    np.floor_divide: _by_kind(_floor_divide_float, _floor_divide_int),
    np.remainder: _by_kind(_remainder_float, _remainder_int),
    np.fmod: _by_kind(_float_binary("arith.remf"), _fmod_int),
    np.maximum: _by_kind(_float_binary("arith.maximumf"),
                         _float_binary("arith.maxsi"),
                         _float_binary("arith.ori")),
    np.minimum: _by_kind(_float_binary("arith.minimumf"),
                         _float_binary("arith.minsi"),
                         _float_binary("arith.andi")),
    np.fmax: _by_kind(_float_binary("arith.maxnumf"),
                      _float_binary("arith.maxsi"),
                      _float_binary("arith.ori")),
    np.fmin: _by_kind(_float_binary("arith.minnumf"),
                      _float_binary("arith.minsi"),
                      _float_binary("arith.andi")),
    np.negative: _by_kind(_float_math("arith.negf"), _negate_int),
    np.positive: _by_kind(_identity, _identity),
    np.absolute: _by_kind(_float_math("math.absf"), _float_math("math.absi"),
                          _identity),
    np.fabs: _by_kind(_float_math("math.absf")),
    np.square: _by_kind(lambda b, a: b.binary("arith.mulf", a[0], a[0]),
                        lambda b, a: b.binary("arith.muli", a[0], a[0])),
    np.reciprocal: _by_kind(_reciprocal),
    np.less: _compare("olt", "slt", "ult"),
    np.less_equal: _compare("ole", "sle", "ule"),
    np.greater: _compare("ogt", "sgt", "ugt"),
    np.greater_equal: _compare("oge", "sge", "uge"),
    np.equal: _compare("oeq", "eq", "eq"),
    np.not_equal: _compare("une", "ne", "ne"),
    np.logical_and: _logical("and"),
    np.logical_or: _logical("or"),
    np.logical_xor: _logical("xor"),
    np.logical_not: _logical("not"),
    np.bitwise_and: _by_kind(None, _float_binary("arith.andi"),
                             _float_binary("arith.andi")),
    np.bitwise_or: _by_kind(None, _float_binary("arith.ori"),
                            _float_binary("arith.ori")),
    np.bitwise_xor: _by_kind(None, _float_binary("arith.xori"),
                             _float_binary("arith.xori")),
    np.invert: _by_kind(None, _invert, _invert),
    np.arctan2: _by_kind(_float_binary("math.atan2")),
    np.copysign: _by_kind(_float_binary("math.copysign")),
}
for _ufunc, _op in [
        (np.exp, "exp"), (np.exp2, "exp2"), (np.expm1, "expm1"),
        (np.log, "log"), (np.log2, "log2"), (np.log10, "log10"),
        (np.log1p, "log1p"), (np.sqrt, "sqrt"), (np.cbrt, "cbrt"),
        (np.sin, "sin"), (np.cos, "cos"), (np.tan, "tan"),
        (np.arcsin, "asin"), (np.arccos, "acos"), (np.arctan, "atan"),
        (np.sinh, "sinh"), (np.cosh, "cosh"), (np.tanh, "tanh"),
        (np.arcsinh, "asinh"), (np.arccosh, "acosh"), (np.arctanh, "atanh"),
        (np.rint, "roundeven")]:
    _UFUNC_RULES[_ufunc] = _by_kind(_float_math(f"math.{_op}"))
for _ufunc in (np.floor, np.ceil, np.trunc):  # integers are whole already
    _UFUNC_RULES[_ufunc] = _by_kind(_float_math(f"math.{_ufunc.__name__}"),
                                    _identity, _identity)
_ERF_RULE = _by_kind(_float_math("math.erf"))

#: The numpy ufuncs a traced function may call.
SUPPORTED_UFUNCS = tuple(sorted(
    [u.__name__ for u in _UFUNC_RULES] + ["matmul", "power"]))

_REDUCING_UFUNCS = {np.add: "sum", np.maximum: "max", np.minimum: "min"}


def _power_rule(exponent: Any):
    """``x ** n``: a constant integer n in [-4, 4] is multiplications (and a
    division for n < 0), 0.5 a square root, anything else ``math.powf``."""
    def rule(b: _Body, args: list) -> tuple[str, np.dtype]:
        dtype = args[0][1]
        if isinstance(exponent, (int, float, np.number)) and \
                float(exponent).is_integer() and abs(exponent) <= 4:
            n = int(exponent)
            mul = "arith.mulf" if dtype.kind == "f" else "arith.muli"
            if n == 0:
                return b.constant(1, dtype)
            result = args[0]
            for _ in range(abs(n) - 1):
                result = b.binary(mul, result, args[0])
            if n > 0:
                return result
            if dtype.kind != "f":
                raise _error("integers to negative integer powers are not "
                             "allowed (numpy refuses them too)")
            return b.binary("arith.divf", b.constant(1, dtype), result)
        if dtype.kind != "f":
            raise _error("np.power of integers is supported only for a "
                         "constant exponent from 0 to 4")
        if isinstance(exponent, (int, float, np.number)) and exponent == 0.5:
            return b.unary("math.sqrt", args[0])
        return b.binary("math.powf", args[0], args[1])
    return rule


def _resolve(ufunc: np.ufunc, operands: Sequence[Any], name: str
             ) -> tuple[np.dtype, np.dtype]:
    """numpy's loop for ``operands``: the type the inputs are converted to
    and the result type."""
    types = tuple(o.dtype if isinstance(o, TracedArray) else _scalar_type(o)
                  for o in operands)
    try:
        resolved = ufunc.resolve_dtypes(types + (None,) * ufunc.nout)
    except TypeError as exc:  # DTypePromotionError is one
        names = ", ".join(getattr(t, "__name__", str(t)) for t in types)
        raise _error(f"{name} of {names}: {exc}") from None
    inputs = set(resolved[:ufunc.nin])
    if len(inputs) != 1 or ufunc.nout != 1:
        raise _error(f"{name} with mixed types is not supported by kiln.fuse")
    return inputs.pop(), resolved[-1]


def _convert(value: Any, dtype: np.dtype, what: str) -> np.ndarray:
    """A scalar operand converted to ``dtype`` as numpy converts it (a
    Python int that does not fit is an error)."""
    try:
        return np.asarray(value, dtype=dtype)
    except OverflowError as exc:
        raise _error(f"{what}: {exc}") from None


def _apply_ufunc(ufunc: np.ufunc, inputs: Sequence[Any],
                 rule: Callable | None = None, name: str | None = None
                 ) -> TracedArray:
    """A generic applying ``ufunc`` (or ``rule``, named ``name``, with
    ``ufunc``'s types) to ``inputs`` elementwise, as numpy would."""
    name = name or f"np.{ufunc.__name__}"
    if rule is None:
        rule = _UFUNC_RULES.get(ufunc)
        if ufunc is np.power:
            rule = _power_rule(inputs[1] if _is_scalar(inputs[1]) else None)
        elif ufunc.__name__ == "erf":  # scipy.special.erf
            rule = _ERF_RULE
        if rule is None:
            raise _error(f"{name} is not supported by kiln.fuse")
    operands = [_operand(i, name) for i in inputs]
    loop, result = _resolve(ufunc, operands, name)
    kinds = getattr(rule, "kinds", {"f", "i", "b"})
    if loop.kind not in kinds:
        types = ", ".join(str(o.dtype) for o in operands
                          if isinstance(o, TracedArray))
        raise _error(f"{name} of {types} arrays (computed in {loop}) is not "
                     "supported by kiln.fuse")
    compute = _compute_type(loop)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        args = [b.cast(b.cast(v, loop), compute) if isinstance(v, tuple)
                else b.constant(_convert(v, loop, name), compute)
                for v in values]
        return b.cast(rule(b, args), result)

    return _elementwise(operands, result, name, body)


def erf(x):
    """The error function, elementwise: ``math.erf`` in a traced function
    (numpy has no ``erf`` ufunc), on numpy arrays ``math.erf`` of each
    element. ``scipy.special.erf`` works in traced functions too.

    >>> import numpy as np, kiln
    >>> @kiln.fuse
    ... def gelu(x):
    ...     return 0.5 * x * (1 + kiln.fuse.erf(x * 0.70710678))
    >>> x = np.linspace(-3, 3, 7, dtype=np.float32)
    >>> np.round(gelu(x), 3)
    array([-0.004, -0.046, -0.159,  0.   ,  0.841,  1.954,  2.996],
          dtype=float32)
    """
    if isinstance(x, TracedArray):  # numpy's sin has erf's types
        return _apply_ufunc(np.sin, (x,), _ERF_RULE, "erf")
    array = np.asarray(x)
    loop = np.sin.resolve_dtypes((array.dtype, None))[1]
    return np.vectorize(math.erf, otypes=[loop])(array)


def _astype(x: TracedArray, dtype: Any) -> TracedArray:
    x = _operand(x, "astype")
    to = np.dtype(dtype)
    _element_type(to)
    if to == x.dtype:
        return x
    return _elementwise([x], to, "astype", lambda b, v: b.cast(v[0], to))


# --- shapes -----------------------------------------------------------------

def _normalize_axes(axis: Any, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    normalized = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim:
            raise _error(f"{what}: axis {a!r} is out of bounds for a "
                         f"{ndim}-d array")
        normalized.append(int(a) % ndim)
    return tuple(normalized)


def _transpose(x: TracedArray, axes: Sequence[int] | None = None
               ) -> TracedArray:
    x = _operand(x, "transpose")
    axes = tuple(reversed(range(x.ndim))) if axes is None else \
        _normalize_axes(tuple(axes), x.ndim, "transpose")
    if sorted(axes) != list(range(x.ndim)):
        raise _error(f"transpose: {list(axes)} is not a permutation of the "
                     f"{x.ndim} axes")
    shape = tuple(x.shape[a] for a in axes)
    moved = [a for a in axes if x.shape[a] != 1]  # x's axes, in new order
    if moved == sorted(moved):
        return _view(x, shape)
    # x's axes larger than 1, in its order, each read at the iteration
    # dimension of its place in the result.
    results = ", ".join(f"d{moved.index(a)}" for a in sorted(moved))
    loc = _loc(_where())
    space = _ir_shape(shape)
    init = x._trace.empty(space, x.dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    name = x._trace.generic([(x, results)], space, False,
                            (init, dims, x.dtype), lambda b, v: v[0], loc)
    return TracedArray(x._trace, name, shape, x.dtype, x._bound,
                       x._view_of(lambda a: a.transpose(axes)))


def _swapaxes(x: Any, axis1: int, axis2: int) -> TracedArray:
    x = _operand(x, "swapaxes")
    axes = list(range(x.ndim))
    first, second = _normalize_axes((axis1, axis2), x.ndim, "swapaxes")
    axes[first], axes[second] = second, first
    return _transpose(x, axes)


def _moveaxis(x: Any, source: Any, destination: Any) -> TracedArray:
    x = _operand(x, "moveaxis")
    source = _normalize_axes(source, x.ndim, "moveaxis")
    destination = _normalize_axes(destination, x.ndim, "moveaxis")
    if len(source) != len(destination):
        raise _error("moveaxis: source and destination differ in length")
    order = [a for a in range(x.ndim) if a not in source]
    for axis, place in sorted(zip(destination, source)):
        order.insert(axis, place)
    return _transpose(x, order)


def _reshape(x: TracedArray, shape: Any, order: str = "C") -> TracedArray:
    x = _operand(x, "reshape")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else \
        tuple(int(d) for d in shape)
    if shape.count(-1) == 1:
        known = math.prod(d for d in shape if d != -1)
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if math.prod(shape) != x.size or order != "C":
        raise _error(f"cannot reshape an array of shape {list(x.shape)} "
                     f"into {list(shape)}")
    source, target = _ir_shape(x.shape), _ir_shape(shape)
    if source == target:
        return _view(x, shape)
    # A row-major reshape moves no element: a collapse of runs of
    # consecutive axes, an expansion of them, or a collapse to one axis and
    # an expansion (kiln-fuse moves them out of the way, and launch plans
    # hold them as the same buffer).
    trace, loc = x._trace, _loc(_where())
    value = x._value
    groups = _groups(source, target)
    if groups is not None:
        value = _reshape_op(trace, "collapse_shape", value, source, target,
                            groups, x.dtype, loc)
        return TracedArray(trace, value, shape, x.dtype, x._bound,
                           x._view_of(lambda a: a.reshape(shape)))
    if _groups(target, source) is None and len(source) > 1:
        value = _reshape_op(trace, "collapse_shape", value, source,
                            (x.size,), [list(range(len(source)))], x.dtype,
                            loc)
        source = (x.size,)
    value = _reshape_op(trace, "expand_shape", value, source, target,
                        _groups(target, source), x.dtype, loc)
    return TracedArray(trace, value, shape, x.dtype, x._bound,
                       x._view_of(lambda a: a.reshape(shape)))


def _groups(fine: tuple[int, ...], coarse: tuple[int, ...]
            ) -> list[list[int]] | None:
    """The runs of consecutive axes of ``fine`` whose sizes multiply to
    each axis of ``coarse``, or None when there are none."""
    if len(fine) < len(coarse):
        return None
    groups, axis = [], 0
    for size in coarse:
        group, product = [], 1
        while axis < len(fine) and (not group or product < size):
            group.append(axis)
            product *= fine[axis]
            axis += 1
        if product != size:
            return None
        groups.append(group)
    return groups if axis == len(fine) else None


def _reshape_op(trace: _Trace, op: str, value: str, source: tuple[int, ...],
                target: tuple[int, ...], groups: list[list[int]],
                dtype: np.dtype, loc: str) -> str:
    """A ``tensor.collapse_shape`` or ``tensor.expand_shape`` of ``value``
    (``groups`` are the fine side's axes for each coarse axis)."""
    name = trace.fresh()
    reassociation = "[" + ", ".join(
        "[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
    output = (f" output_shape [{', '.join(map(str, target))}]"
              if op == "expand_shape" else "")
    trace.emit(f"{name} = tensor.{op} {value} {reassociation}{output} : "
               f"{_tensor_type(source, dtype)} into "
               f"{_tensor_type(target, dtype)} {loc}")
    return name


def _squeeze(x: TracedArray, axis: Any = None) -> TracedArray:
    x = _operand(x, "squeeze")
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None \
        else _normalize_axes(axis, x.ndim, "squeeze")
    if any(x.shape[a] != 1 for a in axes):
        raise _error("squeeze: cannot select an axis whose size is not 1")
    return _view(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _expand_dims(x: TracedArray, axis: Any) -> TracedArray:
    x = _operand(x, "expand_dims")
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.ndim + len(axes)
    axes = _normalize_axes(axes, ndim, "expand_dims")
    dims = iter(x.shape)
    return _view(x, tuple(1 if i in axes else next(dims)
                          for i in range(ndim)))


# --- indexing by integer arrays (gathers) ------------------------------------

_TAKE_MODES = ("raise", "wrap", "clip")


def _is_index_array(item: Any) -> bool:
    """Whether a key item indexes by values: an array, or a list."""
    return isinstance(item, (TracedArray, np.ndarray, list, tuple))


def _index_array(item: Any, what: str) -> TracedArray:
    """``item`` as an integer index array of the trace."""
    if isinstance(item, (list, tuple)):
        item = np.asarray(item)
    if getattr(item, "dtype", None) == _BOOL:
        raise _error(f"{what} by a boolean array: it selects elements by "
                     "value, which makes a shape known only when the "
                     "function runs; kiln.fuse's shapes are known when it "
                     "traces (use np.where)")
    item = _operand(item, what)
    if item.dtype.kind != "i":
        raise _error(f"{what}: an index array holds integers, not "
                     f"{item.dtype}")
    return item


def _check_index(a: TracedArray, size: int, axis: int, what: str) -> None:
    """Makes sure the values of ``a`` index an axis of ``size`` as numpy's
    ``mode='raise'`` does: each in [-size, size). An argmax's are by
    construction; an argument's are checked before each call."""
    if a._bound is not None and a._bound <= size:
        return
    if a._origin is not None:
        position, view = a._origin
        a._trace.index_checks.append((position, view, size, axis, _where()))
        return
    raise _error(
        f"{what}: this index array is computed in the function, so its "
        f"values cannot be checked against axis {axis} (of size {size}) as "
        "numpy checks them; kiln.fuse indexes by an argument or a view of "
        "one (checked before each call) or an argmax or argmin, or, with "
        "np.take's "
        "mode='wrap' or 'clip', by any integer array")


def _gather(x: TracedArray, sources: list[tuple], shape: tuple[int, ...],
            arrays: list[tuple[TracedArray, list[int | None]]]
            ) -> TracedArray:
    """A generic over ``shape`` whose body extracts elements of ``x``
    (captured from above, as torch-mlir's gathers do): along axis j of x,
    at ``sources[j]``, which is ``("slice", result axis, start, step)``
    (start + step * that axis's index), ``("int", i)``, or
    ``("array", k, mode)``, the value of ``arrays[k]`` wrapped as
    ``np.take``'s ``mode`` says. ``arrays`` pairs each index array with
    the result axis each of its axes is read along."""
    loc = _loc(_where())
    trace = x._trace
    space = _ir_shape(shape)
    space_axes = [i for i, d in enumerate(shape) if d != 1]
    # An index array of an axis of one element picks element 0 whatever
    # it holds (its values are checked): it is no input of the generic.
    used = sorted({source[1] for j, source in enumerate(sources)
                   if source[0] == "array" and x.shape[j] != 1})
    sources = [(s[0], used.index(s[1]), s[2]) if s[0] == "array"
               and s[1] in used else s for s in sources]
    arrays = [arrays[k] for k in used]

    def dim(axis: int) -> str:
        return f"d{space_axes.index(axis)}" if axis in space_axes else ""

    inputs = [(a, ", ".join(dim(r) for r, n in zip(axes, a.shape) if n != 1)
               or "0") for a, axes in arrays]
    init = trace.empty(space, x.dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        def index(text: str) -> str:
            return b.op(text, _I64)[0]

        def constant(value: int) -> str:
            return index(f"arith.constant {value} : index")

        indices = []
        for j, source in enumerate(sources):
            size = x.shape[j]
            if size == 1:  # the IR tensor has no such axis
                continue
            if source[0] == "int":
                indices.append(constant(source[1]))
            elif source[0] == "slice":
                _, axis, start, step = source
                if not dim(axis):
                    indices.append(constant(start))
                    continue
                position = index(f"linalg.index {dim(axis)[1:]} : index")
                if step != 1:
                    position = index(f"arith.muli {position}, "
                                     f"{constant(step)} : index")
                if start != 0:
                    position = index(f"arith.addi {position}, "
                                     f"{constant(start)} : index")
                indices.append(position)
            else:
                _, k, mode = source
                value = b.cast(values[k], _I64)
                indices.append(index(
                    f"arith.index_cast {_wrap(b, value, size, mode)[0]} : "
                    "i64 to index"))
        if not indices:  # x holds one element
            indices.append(constant(0))
        return b.op(f"tensor.extract {x._value}[{', '.join(indices)}] : "
                    f"{x._tensor_type}", x.dtype)

    name = trace.generic(inputs, space, False, (init, dims, x.dtype), body,
                         loc)
    return TracedArray(trace, name, shape, x.dtype)


def _wrap(b: _Body, value: tuple[str, np.dtype], size: int, mode: str
          ) -> tuple[str, np.dtype]:
    """An int64 index into an axis of ``size`` as ``np.take``'s ``mode``
    makes it: negative ones counted from the end (``raise``, whose values
    were checked), taken modulo ``size`` (``wrap``) or clipped to
    [0, size) (``clip``)."""
    zero, n = b.constant(0, _I64), b.constant(size, _I64)
    if mode == "clip":
        last = b.constant(size - 1, _I64)
        return b.binary("arith.maxsi", b.binary("arith.minsi", value, last),
                        zero)
    if mode == "wrap":
        value = b.binary("arith.remsi", value, n)
    return b.select(b.compare("slt", value, zero),
                    b.binary("arith.addi", value, n), value)


def _index_by_arrays(x: TracedArray, expanded: list, key: Any,
                     adjacent: bool) -> TracedArray:
    """``x[key]`` where the key (``expanded``: an item per axis, and
    ``None``s) holds integer arrays: numpy's advanced indexing. The arrays
    and the integers broadcast together; their axes replace the axes they
    index where those are next to each other in the key (``adjacent``),
    and come first otherwise; slices index the other axes."""
    what = f"indexing a traced array with [{_key_text(key)}]"
    advanced = [i for i, item in enumerate(expanded)
                if item is not None and not isinstance(item, slice)]
    for i in advanced:
        if isinstance(expanded[i], (bool, np.bool_)):
            raise _error(f"{what}: a boolean beside index arrays (numpy's "
                         "axis of one or none) is not supported by "
                         "kiln.fuse")
    arrays = {i: _index_array(expanded[i], what) for i in advanced
              if _is_index_array(expanded[i])}
    _the_trace([x, *arrays.values()])
    block = _broadcast([a.shape for a in arrays.values()], what)
    # Each result axis: a slice's (its key item), a new axis, or an axis
    # of the broadcast index arrays.
    block_axes = [("block", k) for k in range(len(block))]
    result: list[tuple] = [] if adjacent else list(block_axes)
    for i, item in enumerate(expanded):
        if i not in advanced:
            result.append(("new",) if item is None else ("slice", i))
        elif adjacent and i == advanced[0]:
            result += block_axes
    lengths: dict[tuple, int] = {("new",): 1}
    lengths.update(zip(block_axes, block))
    sources: list[tuple] = []
    gathered: list[tuple[TracedArray, list[int | None]]] = []
    axis = 0
    for i, item in enumerate(expanded):
        if item is None:
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            lengths[("slice", i)] = len(range(start, stop, step))
            if lengths[("slice", i)] == 0:
                raise _error(f"{what} selects no element along axis {axis} "
                             f"(of size {size}); kiln.fuse arrays have at "
                             "least one")
            sources.append(("slice", result.index(("slice", i)), start,
                            step))
        elif i in arrays:
            a = arrays[i]
            _check_index(a, size, axis, what)
            first = len(block) - a.ndim
            gathered.append((a, [result.index(("block", first + j))
                                 for j in range(a.ndim)]))
            sources.append(("array", len(gathered) - 1, "raise"))
        else:
            if not -size <= item < size:
                raise _index_error(f"index {item} is out of bounds for "
                                   f"axis {axis} with size {size}")
            sources.append(("int", int(item) % size))
        axis += 1
    return _gather(x, sources, tuple(lengths[r] for r in result), gathered)


def _take(a: Any, indices: Any, axis: Any = None, out: Any = None,
          mode: str = "raise") -> TracedArray:
    """``np.take``: the elements of ``a`` (flattened when ``axis`` is
    None) at ``indices`` along ``axis``, wrapped or clipped by ``mode``."""
    _no_out(out, "take")
    a = _operand(a, "take")
    if mode not in _TAKE_MODES:
        raise _error(f"take: mode must be one of {', '.join(_TAKE_MODES)}, "
                     f"not {mode!r}")
    if axis is None:
        a, axis = _reshape(a, (a.size,)), 0
    (axis,) = _normalize_axes(axis, a.ndim, "take")
    size = a.shape[axis]
    if _is_scalar(indices) and not isinstance(indices, TracedArray):
        i = int(indices)
        if mode == "wrap":
            i %= size
        elif mode == "clip":
            i = min(max(i, 0), size - 1)
        return a[(slice(None),) * axis + (i,)]
    indices = _index_array(indices, "take")
    _the_trace([a, indices])
    if mode == "raise":
        _check_index(indices, size, axis, "take")
    shape = a.shape[:axis] + indices.shape + a.shape[axis + 1:]
    after = indices.ndim - 1
    sources = [("slice", j if j < axis else j + after, 0, 1)
               if j != axis else ("array", 0, mode) for j in range(a.ndim)]
    return _gather(a, sources, shape,
                   [(indices, list(range(axis, axis + indices.ndim)))])


def _take_along_axis(arr: Any, indices: Any, axis: Any = -1, **kwargs
                     ) -> TracedArray:
    """``np.take_along_axis``: along ``axis``, the elements of ``arr`` at
    ``indices`` (of ``arr``'s rank; the other axes broadcast)."""
    _no_extra(kwargs, "take_along_axis")
    arr = _operand(arr, "take_along_axis")
    indices = _index_array(indices, "take_along_axis")
    if axis is None:
        arr, axis = _reshape(arr, (arr.size,)), 0
    if indices.ndim != arr.ndim:
        raise _error(f"take_along_axis: indices of {indices.ndim} axes for "
                     f"an array of {arr.ndim}; they must have as many")
    (axis,) = _normalize_axes(axis, arr.ndim, "take_along_axis")
    _the_trace([arr, indices])
    _check_index(indices, arr.shape[axis], axis, "take_along_axis")
    others = [d for j, d in enumerate(arr.shape) if j != axis]
    shape = list(_broadcast(
        [tuple(others), tuple(d for j, d in enumerate(indices.shape)
                              if j != axis)], "take_along_axis"))
    shape.insert(axis, indices.shape[axis])
    sources = [("slice", j, 0, 1) if j != axis else ("array", 0, "raise")
               for j in range(arr.ndim)]
    return _gather(arr, sources, tuple(shape),
                   [(indices, list(range(indices.ndim)))])


# --- joining arrays ----------------------------------------------------------

def _concatenate(arrays: Any, axis: Any = 0, out: Any = None, *,
                 dtype: Any = None, casting: str = "same_kind"
                 ) -> TracedArray:
    """``np.concatenate``: one generic over the result that, along
    ``axis``, takes each element from the array whose span holds it. It
    extracts from every array at the index clamped into that array (valid
    IR; the lanes of the arrays not chosen read an element next to their
    own, from cache) and selects by the span; the arrays are the kernel's
    inputs, read in place."""
    _no_out(out, "concatenate")
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise _error("concatenate takes a non-empty sequence of arrays")
    pieces = [_operand(a, "concatenate") for a in arrays]
    if not all(isinstance(p, TracedArray) for p in pieces):
        raise _error("concatenate of a scalar: numpy needs arrays of at "
                     "least one axis")
    _the_trace(pieces)
    if axis is None:
        pieces = [_reshape(p, (p.size,)) for p in pieces]
        axis = 0
    ndim = pieces[0].ndim
    if ndim == 0 or any(p.ndim != ndim for p in pieces):
        raise _error("concatenate: the arrays must have the same number of "
                     "axes, at least one, not "
                     f"{', '.join(str(p.ndim) for p in pieces)}")
    (axis,) = _normalize_axes(axis, ndim, "concatenate")
    for p in pieces:
        if any(a != b for k, (a, b) in enumerate(zip(p.shape,
                                                     pieces[0].shape))
               if k != axis):
            raise _error(
                "concatenate: the arrays' shapes must agree except along "
                f"axis {axis}: "
                f"{', '.join(str(list(q.shape)) for q in pieces)}")
    result_type = np.dtype(dtype) if dtype is not None else \
        np.result_type(*[p.dtype for p in pieces])
    pieces = [_astype(p, result_type) for p in pieces]
    if len(pieces) == 1:
        return pieces[0]
    shape = list(pieces[0].shape)
    shape[axis] = sum(p.shape[axis] for p in pieces)
    shape = tuple(shape)
    loc = _loc(_where())
    trace = pieces[0]._trace
    space = _ir_shape(shape)
    space_axes = [i for i, d in enumerate(shape) if d != 1]
    init = trace.empty(space, result_type, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    element = _element_type(result_type)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        def index(text: str) -> str:
            return b.op(text, _I64)[0]

        def constant(value: int) -> str:
            return index(f"arith.constant {value} : index")

        position = {k: index(f"linalg.index {space_axes.index(k)} : index")
                    for k in space_axes}
        along = position[axis]  # two pieces or more: longer than 1
        chosen = None
        end = shape[axis]
        for p in reversed(pieces):
            start = end - p.shape[axis]
            indices = []
            for k, size in enumerate(p.shape):
                if size != 1 and k != axis:
                    indices.append(position[k])
                elif size != 1:  # along - start, clamped into [0, size)
                    at = index(f"arith.subi {along}, {constant(start)} : "
                               "index")
                    at = index(f"arith.maxsi {at}, {constant(0)} : index")
                    indices.append(index(f"arith.minsi {at}, "
                                         f"{constant(size - 1)} : index"))
            value = b.op(f"tensor.extract {p._value}"
                         f"[{', '.join(indices or [constant(0)])}] : "
                         f"{p._tensor_type}", result_type)[0]
            if chosen is not None:
                # Elements before this piece's end are its own.
                before = b.op(f"arith.cmpi ult, {along}, {constant(end)} : "
                              "index", _BOOL)[0]
                value = b.op(f"arith.select {before}, {value}, {chosen} : "
                             f"{element}", result_type)[0]
            chosen, end = value, start
        return chosen, result_type

    name = trace.generic([], space, False, (init, dims, result_type), body,
                         loc)
    return TracedArray(trace, name, shape, result_type)


def _stack(arrays: Any, axis: int = 0, out: Any = None, *,
           dtype: Any = None, casting: str = "same_kind") -> TracedArray:
    """``np.stack``: the arrays, each given a new axis, concatenated."""
    _no_out(out, "stack")
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise _error("stack takes a non-empty sequence of arrays")
    pieces = [_operand(a, "stack") for a in arrays]
    if not all(isinstance(p, TracedArray) for p in pieces):
        raise _error("stack of a scalar is not supported by kiln.fuse")
    if any(p.shape != pieces[0].shape for p in pieces):
        raise _error("stack: the arrays must have one shape, not "
                     f"{', '.join(str(list(p.shape)) for p in pieces)}")
    (axis,) = _normalize_axes(axis, pieces[0].ndim + 1, "stack")
    return _concatenate([_expand_dims(p, axis) for p in pieces], axis,
                        dtype=dtype)


# --- reductions and matmul ---------------------------------------------------

_NEUTRAL = {"sum": 0, "prod": 1, "max": -np.inf, "min": np.inf}
_COMBINE = {("sum", "f"): "arith.addf", ("sum", "i"): "arith.addi",
            ("prod", "f"): "arith.mulf", ("prod", "i"): "arith.muli",
            ("max", "f"): "arith.maximumf", ("max", "i"): "arith.maxsi",
            ("min", "f"): "arith.minimumf", ("min", "i"): "arith.minsi",
            ("max", "b"): "arith.ori", ("min", "b"): "arith.andi"}


def _reduce(x: TracedArray, kind: str, axis: Any, keepdims: bool,
            dtype: Any, what: str) -> TracedArray:
    """``kind`` (sum, max, min, prod) of ``x`` over ``axis``: generics that
    each reduce one axis of ``x``'s rows into a fill of the neutral
    element. Reduced axes that end the array are one axis (a row-major
    reshape); another is read with the remaining axes as its rows, its
    elements a stride apart (kiln-tile gives each program a block of
    those rows, which lie next to each other)."""
    x = _operand(x, what)
    axes = _normalize_axes(axis, x.ndim, what)
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)
                  if keepdims or i not in axes)
    if kind in ("sum", "prod"):
        reference = np.sum if kind == "sum" else np.prod
        result = np.dtype(dtype) if dtype is not None else \
            reference(np.zeros(1, x.dtype)).dtype
    elif dtype is not None:
        raise _error(f"{what} with dtype= is not supported by kiln.fuse")
    else:
        result = x.dtype
    accumulator = _compute_type(result)
    combine = _COMBINE.get((kind, accumulator.kind))
    if combine is None:
        raise _error(f"{what} of {x.dtype} arrays is not supported by "
                     "kiln.fuse")
    # The axes of size 1 are not in the IR; the reduced ones that end the
    # array become one.
    sizes = [d for d in x.shape if d != 1]
    reduced = [k for k, i in enumerate(i for i, d in enumerate(x.shape)
                                       if d != 1)
               if i in axes]
    if not reduced:  # only axes of size 1
        return _view(_astype(x, result), shape)
    trailing = 0
    while trailing < len(reduced) and \
            reduced[-1 - trailing] == len(sizes) - 1 - trailing:
        trailing += 1
    if trailing > 1:
        merged = tuple(sizes[:len(sizes) - trailing]) + \
            (math.prod(sizes[len(sizes) - trailing:]),)
        x = _reshape(x, merged)
        sizes = list(merged)
        reduced = reduced[:len(reduced) - trailing] + [len(sizes) - 1]
    loc = _loc(_where())
    value = x
    for axis_index in reversed(reduced):
        value = _reduce_axis(value, kind, combine, axis_index, sizes,
                             accumulator, loc)
        del sizes[axis_index]
    return _astype(_view(value, shape), result)


def _reduce_axis(x: TracedArray, kind: str, combine: str, axis: int,
                 sizes: list[int], accumulator: np.dtype,
                 loc: str) -> TracedArray:
    """``x`` (of IR shape ``sizes``) reduced over its axis ``axis`` by
    ``combine``: a generic over [the other axes, then ``axis``], reading
    ``x`` through the permutation that puts ``axis`` last."""
    trace = x._trace
    rows = tuple(d for k, d in enumerate(sizes) if k != axis)
    space = (rows or (1,)) + (sizes[axis],)
    init = trace.fill(_NEUTRAL[kind] if accumulator.kind == "f" else
                      _integer_neutral(kind, accumulator),
                      space[:-1], accumulator, loc)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        element = b.cast(values[0], accumulator)
        return b.binary(combine, element, values[1])

    dims = [f"d{i}" for i in range(len(space))]
    # x's axis k is the space's row k (k before axis), k - 1 (after it),
    # or its last dimension.
    read = [dims[-1] if k == axis else dims[k if k < axis else k - 1]
            for k in range(len(sizes))]
    name = trace.generic([(x, ", ".join(read))], space, True,
                         (init, ", ".join(dims[:-1]), accumulator), body, loc)
    return TracedArray(trace, name, rows, accumulator)


_ARG_TAKE = {("max", "f"): "arith.cmpf ogt", ("min", "f"): "arith.cmpf olt",
             ("max", "i"): "arith.cmpi sgt", ("min", "i"): "arith.cmpi slt"}


def _arg_reduce(x: Any, kind: str, axis: Any, keepdims: bool,
                what: str) -> TracedArray:
    """The index of the first max (``kind`` max) or min along ``axis`` (of
    the flattened array for None), as np.argmax and np.argmin: a NaN is
    both. One generic with two results, the value and its index, which
    kiln-tile keeps together."""
    x = _operand(x, what)
    if axis is None:
        flat = _reshape(x, (x.size,))
        index = _arg_reduce(flat, kind, 0, False, what)
        return _view(index, (1,) * x.ndim if keepdims else ())
    if isinstance(axis, (tuple, list)):
        raise _error(f"{what} takes one axis, not {list(axis)}")
    (axis,) = _normalize_axes(axis, x.ndim, what)
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)
                  if keepdims or i != axis)
    loc = _loc(_where())
    trace = x._trace
    index_type = np.dtype(np.int64)
    if x.shape[axis] == 1:  # one candidate: index 0
        zeros = trace.fill(0, _ir_shape(shape), index_type, loc)
        return TracedArray(trace, zeros, shape, index_type, 1)
    if x.dtype == _BOOL:
        x = _astype(x, np.int8)
    compute = _compute_type(x.dtype)
    take = _ARG_TAKE[(kind, compute.kind)]
    sizes = [d for d in x.shape if d != 1]
    ir_axis = [i for i, d in enumerate(x.shape) if d != 1].index(axis)
    rows = tuple(d for k, d in enumerate(sizes) if k != ir_axis)
    space = (rows or (1,)) + (sizes[ir_axis],)
    dims = [f"d{i}" for i in range(len(space))]
    read = [dims[-1] if k == ir_axis else dims[k if k < ir_axis else k - 1]
            for k in range(len(sizes))]
    start = (-np.inf if kind == "max" else np.inf) if compute.kind == "f" \
        else _integer_neutral(kind, compute)
    values = trace.fill(start, space[:-1], compute, loc)
    indices = trace.fill(0, space[:-1], index_type, loc)
    # Scanning the axis in order, a column is kept when it beats the
    # running value, or is the first NaN.
    element, i64 = _element_type(compute), _element_type(index_type)
    a, v, i = trace.fresh(), trace.fresh(), trace.fresh()
    column, column64, better, keep, kept, kept_index = (
        trace.fresh() for _ in range(6))
    body = [f"{column} = linalg.index {len(space) - 1} : index",
            f"{column64} = arith.index_cast {column} : index to {i64}",
            f"{better} = {take}, {a}, {v} : {element}"]
    if compute.kind == "f":
        nan, running_nan, true, running_number, either = (
            trace.fresh() for _ in range(5))
        body += [f"{nan} = arith.cmpf uno, {a}, {a} : {element}",
                 f"{running_nan} = arith.cmpf uno, {v}, {v} : {element}",
                 f"{true} = arith.constant true",
                 f"{running_number} = arith.xori {running_nan}, {true} : i1",
                 f"{either} = arith.ori {better}, {nan} : i1",
                 f"{keep} = arith.andi {either}, {running_number} : i1"]
    else:
        keep = better
    body += [f"{kept} = arith.select {keep}, {a}, {v} : {element}",
             f"{kept_index} = arith.select {keep}, {column64}, {i} : {i64}"]
    wide = _astype(x, compute)
    space_dims = ", ".join(dims)
    row_map = f"affine_map<({space_dims}) -> ({', '.join(dims[:-1])})>"
    maps = (f"affine_map<({space_dims}) -> ({', '.join(read)})>, "
            f"{row_map}, {row_map}")
    iterators = ", ".join(['"parallel"'] * (len(space) - 1) + ['"reduction"'])
    value_type = _tensor_type(space[:-1], compute)
    index_tensor = _tensor_type(space[:-1], index_type)
    name = trace.fresh()
    trace.emit(f"{name}:2 = linalg.generic {{indexing_maps = [{maps}], "
               f"iterator_types = [{iterators}]}} ins({wide._value} : "
               f"{wide._tensor_type}) outs({values}, {indices} : "
               f"{value_type}, {index_tensor}) {{")
    trace.emit(f"^bb0({a}: {element}, {v}: {element}, {i}: {i64}):")
    for line in body:
        trace.emit(f"  {line} {loc}")
    trace.emit(f"  linalg.yield {kept}, {kept_index} : {element}, {i64} "
               f"{loc}")
    trace.emit(f"}} -> ({value_type}, {index_tensor}) {loc}")
    return TracedArray(trace, f"{name}#1", shape, index_type, x.shape[axis])


def _argmax(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "argmax")
    return _arg_reduce(a, "max", axis, keepdims, "argmax")


def _argmin(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "argmin")
    return _arg_reduce(a, "min", axis, keepdims, "argmin")


def _integer_neutral(kind: str, dtype: np.dtype) -> int:
    if kind in ("sum", "prod"):
        return _NEUTRAL[kind]
    if dtype == _BOOL:
        return kind == "min"
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def _no_out(out: Any, what: str) -> None:
    if out is not None:
        raise _error(f"{what} with out=: kiln.fuse traces functions without "
                     "side effects")


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "sum")
    _no_extra(kwargs, "sum")
    return _reduce(a, "sum", axis, keepdims, dtype, "sum")


def _max(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "max")
    _no_extra(kwargs, "max")
    return _reduce(a, "max", axis, keepdims, None, "max")


def _min(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "min")
    _no_extra(kwargs, "min")
    return _reduce(a, "min", axis, keepdims, None, "min")


def _prod(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "prod")
    _no_extra(kwargs, "prod")
    return _reduce(a, "prod", axis, keepdims, dtype, "prod")


def _any(a, axis=None, out=None, keepdims=False, **kwargs):
    """Whether any element is true: the max of ``a != 0`` as booleans."""
    _no_out(out, "any")
    _no_extra(kwargs, "any")
    return _reduce(_astype(_operand(a, "any"), _BOOL), "max", axis, keepdims,
                   None, "any")


def _all(a, axis=None, out=None, keepdims=False, **kwargs):
    """Whether every element is true: the min of ``a != 0`` as booleans."""
    _no_out(out, "all")
    _no_extra(kwargs, "all")
    return _reduce(_astype(_operand(a, "all"), _BOOL), "min", axis, keepdims,
                   None, "all")


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    """The sum in numpy's mean type (float64 for integers), divided by the
    count."""
    _no_out(out, "mean")
    _no_extra(kwargs, "mean")
    a = _operand(a, "mean")
    result = np.dtype(dtype) if dtype is not None else \
        np.mean(np.zeros(1, a.dtype)).dtype
    count = math.prod(a.shape[i] for i in
                      _normalize_axes(axis, a.ndim, "mean"))
    total = _reduce(a, "sum", axis, keepdims, _compute_type(result), "mean")
    return _astype(_apply_ufunc(np.true_divide, (total, count)), result)


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    """The mean of the squared deviations from the mean, as numpy computes
    it (two reductions over the same rows)."""
    _no_out(out, "var")
    _no_extra(kwargs, "var")
    a = _operand(a, "var")
    result = np.dtype(dtype) if dtype is not None else \
        np.var(np.zeros(1, a.dtype)).dtype
    compute = _compute_type(result)
    wide = _astype(a, compute)
    deviation = wide - _mean(wide, axis, None, None, True)
    count = math.prod(a.shape[i] for i in
                      _normalize_axes(axis, a.ndim, "var"))
    total = _reduce(deviation * deviation, "sum", axis, keepdims, None, "var")
    return _astype(total / max(count - ddof, 0), result)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    _no_out(out, "std")
    variance = _var(a, axis, dtype, None, ddof, keepdims, **kwargs)
    return _apply_ufunc(np.sqrt, (variance,))


def _norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` for ``ord=None``: the square root of the sum of
    squares (the 2-norm of vectors, the Frobenius norm of matrices), in
    numpy's result type (float64 for integers)."""
    if ord is not None:
        raise _error(f"np.linalg.norm with ord={ord!r} is not supported by "
                     "kiln.fuse (only the default, the square root of the "
                     "sum of squares)")
    x = _operand(x, "np.linalg.norm")
    result = np.linalg.norm(np.zeros(1, x.dtype)).dtype
    wide = _astype(x, _compute_type(result))
    total = _reduce(wide * wide, "sum", axis, keepdims, None,
                    "np.linalg.norm")
    return _astype(_apply_ufunc(np.sqrt, (total,)), result)


def _no_extra(kwargs: dict, what: str) -> None:
    if kwargs:
        raise _error(f"{what} with {', '.join(sorted(kwargs))}= is not "
                     "supported by kiln.fuse")


def _matmul(a: Any, b: Any) -> TracedArray:
    """``a @ b`` of an array of two or more axes by a 2-d array, or of two
    stacks of matrices whose batch axes broadcast
    (``[..., M, K] @ [..., K, N]``):
    ``linalg.matmul`` (``linalg.batch_matmul``) into a fill of zeros, in
    float32 for float16 and float32 operands (float64 for float64),
    rounded to numpy's result type. The axes of ``a`` before its last are
    the rows of a matmul (the batch axes are one batch of a batched one):
    ``tensor.collapse_shape`` makes them one before it and
    ``tensor.expand_shape`` splits them after (free reshapes of row-major
    buffers, which kiln-fuse moves out to the function's inputs and
    results)."""
    a, b = _operand(a, "matmul"), _operand(b, "matmul")
    if not isinstance(a, TracedArray) or not isinstance(b, TracedArray):
        raise _error("matmul of a scalar (numpy refuses it too)")
    if b.ndim > 2 and math.prod(b.shape[:-2]) > 1:
        return _batch_matmul(a, b)
    # A batch of one matrix: a 2-d b, whose axes of size 1 numpy's result
    # keeps.
    batch_of_one = b.shape[:-2]
    b = _view(b, b.shape[-2:])
    rows = _ir_shape(a.shape[:-1])
    if a.ndim < 2 or a.shape[-1] == 1 or rows == (1,):
        raise _error(f"matmul of an array of shape {list(a.shape)}: "
                     "kiln.fuse multiplies arrays of two or more axes "
                     "with more than one row and more than one column")
    if b.ndim != 2 or 1 in b.shape:
        raise _error(f"matmul by an array of shape {list(b.shape)}: "
                     "kiln.fuse multiplies by 2-d arrays whose axes are "
                     "larger than 1, or by stacks of matrices")
    if a.shape[-1] != b.shape[0]:
        raise _error(f"matmul: shapes {list(a.shape)} and {list(b.shape)} "
                     "do not match (the inner sizes differ)")
    a, b, accumulator, result = _matmul_types(a, b)
    loc = _loc(_where())
    trace = _the_trace([a, b])
    k, n = b.shape
    m = int(np.prod(rows))
    operand, operand_type = a._value, a._tensor_type
    groups = [list(range(len(rows))), [len(rows)]]
    if len(rows) > 1:
        operand = _reshape_op(trace, "collapse_shape", operand,
                              rows + (k,), (m, k), groups, a.dtype, loc)
        operand_type = _tensor_type((m, k), a.dtype)
    init = trace.fill(0, (m, n), accumulator, loc)
    name = trace.fresh()
    out_type = _tensor_type((m, n), accumulator)
    trace.emit(f"{name} = linalg.matmul ins({operand}, {b._value} : "
               f"{operand_type}, {b._tensor_type}) outs({init} : "
               f"{out_type}) -> {out_type} {loc}")
    if len(rows) > 1:
        name = _reshape_op(trace, "expand_shape", name, (m, n), rows + (n,),
                           groups, accumulator, loc)
    product = TracedArray(trace, name, a.shape[:-1] + (n,), accumulator)
    product = _astype(product, result)
    if batch_of_one:
        product = _view(product, np.broadcast_shapes(
            a.shape[:-2], batch_of_one) + product.shape[-2:])
    return product


def _matmul_types(a: TracedArray, b: TracedArray):
    """The operands converted to numpy's loop type (floats only), the
    accumulator's type and the result's."""
    loop, result = _resolve(np.matmul, [a, b], "matmul")
    if loop.kind != "f":
        raise _error(f"matmul of {loop} arrays is not supported by kiln.fuse "
                     "(floats only)")
    return _astype(a, loop), _astype(b, loop), _compute_type(loop), result


def _batch_matmul(a: TracedArray, b: TracedArray) -> TracedArray:
    """``a @ b`` of two stacks of matrices: ``linalg.batch_matmul`` over
    the batch axes made one, an operand whose batch axes broadcast first
    broadcast (a prologue the matmul kernel reads in place)."""
    if a.ndim < 2:
        raise _error(f"matmul of an array of shape {list(a.shape)} by a "
                     "stack of matrices: kiln.fuse multiplies matrices")
    batch = _broadcast([a.shape[:-2], b.shape[:-2]], "matmul")
    a = _broadcast_to(a, batch + a.shape[-2:])
    b = _broadcast_to(b, batch + b.shape[-2:])
    (m, k), n = a.shape[-2:], b.shape[-1]
    if b.shape[-2] != k:
        raise _error(f"matmul: shapes {list(a.shape)} and {list(b.shape)} "
                     "do not match (the inner sizes differ)")
    if 1 in (m, k, n):
        raise _error(f"matmul of shapes {list(a.shape)} and "
                     f"{list(b.shape)}: kiln.fuse multiplies matrices whose "
                     "axes are larger than 1")
    a, b, accumulator, result = _matmul_types(a, b)
    loc = _loc(_where())
    trace = _the_trace([a, b])
    axes = tuple(d for d in batch if d != 1)
    count = math.prod(axes)
    groups = [list(range(len(axes))), [len(axes)], [len(axes) + 1]]

    def stacked(x: TracedArray, rows: int, columns: int) -> str:
        if len(axes) == 1:
            return x._value
        return _reshape_op(trace, "collapse_shape", x._value,
                           axes + (rows, columns), (count, rows, columns),
                           groups, x.dtype, loc)

    init = trace.fill(0, (count, m, n), accumulator, loc)
    name = trace.fresh()
    out_type = _tensor_type((count, m, n), accumulator)
    trace.emit(f"{name} = linalg.batch_matmul ins({stacked(a, m, k)}, "
               f"{stacked(b, k, n)} : "
               f"{_tensor_type((count, m, k), a.dtype)}, "
               f"{_tensor_type((count, k, n), b.dtype)}) outs({init} : "
               f"{out_type}) -> {out_type} {loc}")
    if len(axes) > 1:
        name = _reshape_op(trace, "expand_shape", name, (count, m, n),
                           axes + (m, n), groups, accumulator, loc)
    product = TracedArray(trace, name, batch + (m, n), accumulator)
    return _astype(product, result)


def _einsum(subscripts, *operands, out=None, dtype=None, optimize=False,
            **kwargs):
    """``np.einsum`` of one or two arrays, each subscript once per array
    (no diagonal; an ellipsis stands for the leading axes, which
    broadcast): a product of two arrays with subscripts
    summed over on both sides is a matmul (batched over the subscripts
    both keep: ``'bhqd,bhkd->bhqk'``) between transposes and free
    reshapes; anything else a broadcast product summed over the
    subscripts the result drops. The result has numpy's type (no
    accumulator wider than the operands')."""
    _no_out(out, "np.einsum")
    _no_extra(kwargs, "np.einsum")
    if dtype is not None:
        raise _error("np.einsum with dtype= is not supported by kiln.fuse")
    if not isinstance(subscripts, str):
        raise _error("np.einsum takes its subscripts as a string here")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands) or len(operands) not in (1, 2):
        raise _error(f"np.einsum of {len(operands)} arrays with "
                     f"subscripts {subscripts!r}: kiln.fuse takes one or two "
                     "arrays, one subscript term each")
    arrays = [_operand(o, "np.einsum") for o in operands]
    if not all(isinstance(a, TracedArray) for a in arrays):
        raise _error("np.einsum of a scalar is not supported by kiln.fuse")
    # An ellipsis: letters of its own for the axes it stands for, aligned
    # on the right as broadcasting aligns them.
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
             if c not in spec]
    covered = [a.ndim - len(t.replace("...", "")) if "..." in t else 0
               for t, a in zip(terms, arrays)]
    ellipsis = "".join(spare[:max(max(covered), 0)])
    terms = [t.replace("...", ellipsis[len(ellipsis) - n:] if n >= 0
                       else "?")
             for t, n in zip(terms, covered)]
    if arrow:
        output = output.replace("...", ellipsis)
    elif ellipsis:  # numpy's implicit output puts the ellipsis first
        letters = "".join(t for t in terms)
        output = ellipsis + "".join(sorted(
            c for c in set(letters) - set(ellipsis)
            if letters.count(c) == 1))
        arrow = "->"
    sizes: dict[str, int] = {}
    for term, written, a in zip(terms, inputs.split(","), arrays):
        if not term.isalpha() or len(term) != a.ndim:
            raise _error(f"np.einsum: subscripts {written!r} for an array "
                         f"of shape {list(a.shape)}")
        if len(set(term)) != len(term):
            raise _error(f"np.einsum: {term!r} repeats a subscript (a "
                         "diagonal), which kiln.fuse does not take")
        for letter, n in zip(term, a.shape):
            if sizes.get(letter, n) != n and 1 not in (n, sizes[letter]):
                raise _error(f"np.einsum: subscript {letter!r} has sizes "
                             f"{sizes[letter]} and {n}")
            sizes[letter] = max(sizes.get(letter, 1), n)
    letters = "".join(terms)
    if not arrow:  # numpy's implicit output: the letters used once, sorted
        output = "".join(sorted(c for c in set(letters)
                                if letters.count(c) == 1))
    if not output.isalpha() and output or len(set(output)) != len(output) or \
            any(c not in sizes for c in output):
        raise _error(f"np.einsum: output subscripts {output!r} for inputs "
                     f"{inputs!r}")
    result = np.result_type(*[a.dtype for a in arrays])
    arrays = [_astype(a, result) for a in arrays]
    if len(arrays) == 2 and result.kind == "f":
        product = _einsum_as_matmul(terms, arrays, output, sizes)
        if product is not None:
            return product
    # The broadcast product over [output letters, summed letters].
    order = output + "".join(sorted(set(letters) - set(output)))
    expanded = []
    for term, a in zip(terms, arrays):
        moved = _transpose(a, [term.index(c) for c in order if c in term])
        expanded.append(_reshape(moved, tuple(
            a.shape[term.index(c)] if c in term else 1 for c in order)))
    total = expanded[0] if len(expanded) == 1 else expanded[0] * expanded[1]
    if len(order) > len(output):
        total = total.sum(axis=tuple(range(len(output), len(order))),
                          dtype=result)
    return _astype(total, result)


def _einsum_as_matmul(terms: list[str], arrays: list[TracedArray],
                      output: str, sizes: dict[str, int]
                      ) -> TracedArray | None:
    """The two-array einsum as a (batched) matmul, or None where it is
    none (no subscript summed over on both sides, or a side with nothing
    of its own, or one only one side sums)."""
    (ta, tb), (a, b) = terms, arrays
    batch = [c for c in output if c in ta and c in tb]
    contract = [c for c in ta if c in tb and c not in output]
    free_a = [c for c in output if c in ta and c not in tb]
    free_b = [c for c in output if c in tb and c not in ta]
    if set(ta) != set(batch + contract + free_a) or \
            set(tb) != set(batch + contract + free_b):
        return None
    m = math.prod(sizes[c] for c in free_a)
    k = math.prod(sizes[c] for c in contract)
    n = math.prod(sizes[c] for c in free_b)
    # An axis broadcast (of size 1 where the other array's is not) is the
    # broadcast product's.
    whole = all(a.shape[i] == sizes[c] for i, c in enumerate(ta)) and \
        all(b.shape[i] == sizes[c] for i, c in enumerate(tb))
    if 1 in (m, k, n) or not whole or \
            any(sizes[c] == 1 for c in ta + tb):
        return None
    batch_shape = tuple(sizes[c] for c in batch)
    lhs = _reshape(_transpose(a, [ta.index(c) for c in batch + free_a +
                                  contract]), batch_shape + (m, k))
    rhs = _reshape(_transpose(b, [tb.index(c) for c in batch + contract +
                                  free_b]), batch_shape + (k, n))
    product = _reshape(lhs @ rhs, batch_shape + tuple(
        sizes[c] for c in free_a + free_b))
    have = batch + free_a + free_b
    return _transpose(product, [have.index(c) for c in output])


# --- other numpy functions ---------------------------------------------------

def _where_function(condition, x=None, y=None):
    if x is None or y is None:
        raise _error("np.where with one argument (the indices of nonzero "
                     "elements depend on the data)")
    operands = [_operand(v, "np.where") for v in (condition, x, y)]
    dummies = [np.zeros(0, v.dtype) if isinstance(v, TracedArray) else v
               for v in operands[1:]]
    result = np.where(np.zeros(0, bool), *dummies).dtype
    _element_type(result)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        truth = b.cast(values[0], _BOOL) if isinstance(values[0], tuple) \
            else b.constant(bool(values[0]), _BOOL)
        picks = [b.cast(v, result) if isinstance(v, tuple)
                 else b.constant(v, result) for v in values[1:]]
        return b.op(f"arith.select {truth[0]}, {picks[0][0]}, {picks[1][0]} "
                    f": {_element_type(result)}", result)

    return _elementwise(operands, result, "np.where", body)


def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    _no_out(out, "clip")
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    _no_extra(kwargs, "clip")
    if a_min is not None:
        a = _apply_ufunc(np.maximum, (a, a_min))
    if a_max is not None:
        a = _apply_ufunc(np.minimum, (a, a_max))
    return a


def _dot(a, b, out=None):
    _no_out(out, "dot")
    return _matmul(a, b)


def _transpose_function(a, axes=None):
    return _transpose(a, axes)


def _reshape_function(a, shape=None, order="C", **kwargs):
    shape = kwargs.pop("newshape", shape)
    _no_extra(kwargs, "reshape")
    return _reshape(a, shape, order)


def _astype_function(x, dtype, /, *, copy=True, **kwargs):
    _no_extra(kwargs, "astype")
    return _astype(x, dtype)


_FUNCTIONS: dict[Callable, Callable] = {
    np.sum: _sum, np.max: _max, np.min: _min, np.mean: _mean, np.var: _var,
    np.prod: _prod, np.any: _any, np.all: _all, np.linalg.norm: _norm,
    np.argmax: _argmax, np.argmin: _argmin, np.take: _take,
    np.take_along_axis: _take_along_axis, np.concatenate: _concatenate,
    np.stack: _stack,
    np.std: _std, np.where: _where_function, np.clip: _clip, np.dot: _dot,
    np.transpose: _transpose_function, np.reshape: _reshape_function,
    np.squeeze: _squeeze, np.expand_dims: _expand_dims, np.einsum: _einsum,
    np.broadcast_to: lambda array, shape, subok=False: _broadcast_to(
        array, shape),
    np.swapaxes: lambda a, axis1, axis2: _swapaxes(a, axis1, axis2),
    np.moveaxis: lambda a, source, destination: _moveaxis(a, source,
                                                         destination),
}
for _name, _handler in [("amax", _max), ("amin", _min),
                        ("astype", _astype_function)]:
    if hasattr(np, _name):
        _FUNCTIONS[getattr(np, _name)] = _handler


# --- tracing and running ----------------------------------------------------

def _symbol(name: str) -> str:
    name = re.sub(r"\W", "_", name) or "fused"
    return name if not name[0].isdigit() else "f_" + name


def _invalid_ir(error: CompilationError, text: str) -> KilnError:
    """The parser refused the traced IR (a bug of kiln.fuse): an error at
    the Python line of the operation it names."""
    for diagnostic in error.diagnostics:
        lines = text.splitlines()
        if diagnostic.file == IR_FILENAME and \
                0 < diagnostic.line <= len(lines):
            found = ir_text.find_location(lines[diagnostic.line - 1])
            if found:
                return _error("internal error, kiln.fuse traced invalid IR: "
                              f"{diagnostic.message}", found)
    return error


class _Traced:
    """A traced signature: its IR and how arrays map to the plan's
    tensors."""

    def __init__(self, text: str, symbol: str,
                 input_shapes: list[tuple[int, ...]],
                 outputs: list[tuple[int, tuple[int, ...]]],
                 single: bool, names: list[str],
                 index_checks: list[tuple]) -> None:
        self.text = text
        self.symbol = symbol
        self.input_shapes = input_shapes  # the plan's, per argument
        self.outputs = outputs  # per returned array: plan result, shape
        self.single = single  # the function returned one array
        self.names = names  # per argument
        self.index_checks = index_checks  # _Trace.index_checks
        self.executable: HostExecutable | None = None


class FusedFunction:
    """A numpy function run as fused tile kernels on the host target; made
    by ``kiln.fuse``. Calling it runs the function on numpy arrays;
    ``ir(*arrays)`` is the IR its trace for those arrays' shapes and dtypes
    makes, before the pass pipeline."""

    def __init__(self, fn: Callable, threads: int | None = None) -> None:
        self.fn = fn
        self.threads = threads
        self.signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)
        self._traces: dict[tuple, _Traced] = {}
        self._lock = threading.Lock()
        self._context: Context | None = None
        self._modules: list[Module] = []

    def _arrays(self, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
        """The arguments, by name in the signature's order; each must be a
        numpy array."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise _error(f"{self.__name__}: {exc}") from None
        arrays = []
        for name, value in bound.arguments.items():
            parameter = self.signature.parameters[name]
            values = (value if parameter.kind is parameter.VAR_POSITIONAL
                      else value.values()
                      if parameter.kind is parameter.VAR_KEYWORD
                      else [value])
            for v in values:
                arrays.append((name, v))
        for name, value in arrays:
            if is_device_array(value):
                raise _error(
                    f"{self.__name__}: argument '{name}' is a device array "
                    "(it has __cuda_array_interface__); kiln.fuse runs its "
                    "plans only on the host target from Python for now, so "
                    "pass numpy arrays")
            if not isinstance(value, np.ndarray):
                raise _error(
                    f"{self.__name__}: argument '{name}' is a "
                    f"{type(value).__name__}, not a numpy array; a fused "
                    "function takes numpy arrays (give constants as "
                    "default arguments or in a closure)")
            _element_type(value.dtype.newbyteorder("="))
            if value.size == 0:
                raise _error(f"{self.__name__}: argument '{name}' has no "
                             "elements")
        return arrays

    @staticmethod
    def _key(arrays: list[tuple[str, np.ndarray]]) -> tuple:
        return tuple((name, a.shape, a.dtype.newbyteorder("=").str)
                     for name, a in arrays)

    def _trace(self, args: tuple, kwargs: dict, key: tuple) -> _Traced:
        """Runs the function on traced arrays and records its IR."""
        trace = _Trace()
        tracers = [TracedArray(trace, f"%arg{i}", shape, np.dtype(dtype),
                               origin=(i, lambda a: a))
                   for i, (_, shape, dtype) in enumerate(key)]
        bound = self.signature.bind(*args, **kwargs)
        replacements = iter(tracers)
        for name, value in bound.arguments.items():
            kind = self.signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                bound.arguments[name] = tuple(next(replacements)
                                              for _ in value)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                bound.arguments[name] = {n: next(replacements)
                                         for n in value}
            else:
                bound.arguments[name] = next(replacements)
        try:
            returned = self.fn(*bound.args, **bound.kwargs)
        finally:
            trace.open = False
        code = self.fn.__code__
        definition = (code.co_filename, code.co_firstlineno, 1)
        single = not isinstance(returned, (tuple, list))
        results = [returned] if single else list(returned)
        if not results or not all(isinstance(r, TracedArray) and
                                  r._trace is trace for r in results):
            got = ", ".join(type(r).__name__ for r in results) or "nothing"
            raise _error(f"{self.__name__} must return an array computed "
                         f"from its arguments, or a tuple of them, not {got}",
                         definition)
        loc = _loc(definition)
        values, types, outputs = [], [], []
        copies: dict[str, str] = {}
        for r in results:
            value = r._value
            # A plan's results come from kernels: an argument, or a reshape
            # of one (the same buffer), is copied.
            if value.startswith("%arg") or (
                    r._origin is not None and trace.is_reshape(value)):
                if value not in copies:
                    copies[value] = _copy(r, loc)
                value = copies[value]
            if value not in values:
                values.append(value)
                types.append(r._tensor_type)
            outputs.append((values.index(value), r.shape))
        parameters = ", ".join(f"{t._value}: {t._tensor_type}"
                               for t in tracers)
        symbol = _symbol(self.__name__)
        text = "\n".join(
            [f"func.func @{symbol}({parameters}) -> ({', '.join(types)}) {{",
             *trace.lines,
             f"    return {', '.join(values)} : {', '.join(types)} {loc}",
             f"}} {loc}", ""])
        return _Traced(text, symbol, [_ir_shape(k[1]) for k in key],
                       outputs, single, [k[0] for k in key],
                       trace.index_checks)

    def _traced(self, args: tuple, kwargs: dict
                ) -> tuple[_Traced, list[np.ndarray]]:
        arrays = self._arrays(args, kwargs)
        key = self._key(arrays)
        traced = self._traces.get(key)
        if traced is None:
            with self._lock:
                traced = self._traces.get(key)
                if traced is None:
                    traced = self._trace(args, kwargs, key)
                    self._traces[key] = traced
        return traced, [a for _, a in arrays]

    def ir(self, *args, **kwargs) -> str:
        """The traced IR for these arguments (numpy arrays; only their
        shapes and dtypes count), before ``kiln.host.ARRAY_PIPELINE``."""
        return self._traced(args, kwargs)[0].text

    def _executable(self, traced: _Traced) -> HostExecutable:
        with self._lock:
            if traced.executable is not None:
                return traced.executable
            if self._context is None:
                self._context = Context()
            try:
                module = Module.parse(self._context, traced.text,
                                      IR_FILENAME)
            except CompilationError as exc:
                raise _invalid_ir(exc, traced.text) from None
            try:
                module.run_pipeline(ARRAY_PIPELINE)
                # Why an operation is a kernel of its own, at its line.
                warn_remarks(module.remarks, IR_FILENAME)
                traced.executable = HostExecutable(module,
                                                   threads=self.threads)
            except BaseException:
                module.close()
                raise
            self._modules.append(module)
            return traced.executable

    @user_facing
    def __call__(self, *args, **kwargs):
        if any(isinstance(a, TracedArray)
               for a in (*args, *kwargs.values())):
            return self.fn(*args, **kwargs)  # inlined into another trace
        traced, arrays = self._traced(args, kwargs)
        self._check_indices(traced, arrays)
        executable = traced.executable or self._executable(traced)
        inputs = [np.ascontiguousarray(a, a.dtype.newbyteorder("="))
                  .reshape(shape)
                  for a, shape in zip(arrays, traced.input_shapes)]
        results = executable.run(traced.symbol, *inputs)
        views: dict[tuple, np.ndarray] = {}  # an array returned twice is
        outputs = [views.setdefault((i, shape), results[i].reshape(shape))
                   for i, shape in traced.outputs]  # one array, as in numpy
        # A 0-d result is a numpy scalar, as numpy's full reductions give.
        outputs = [o[()] if o.ndim == 0 else o for o in outputs]
        return outputs[0] if traced.single else tuple(outputs)

    def _check_indices(self, traced: _Traced, arrays: list[np.ndarray]
                       ) -> None:
        """Raises, as numpy's IndexError does, where an index array among
        the arguments holds an index outside the axis it indexes (the
        kernels would read outside the array)."""
        for position, view, size, axis, (file, line, _) in \
                traced.index_checks:
            a = view(arrays[position])
            low, high = int(a.min()), int(a.max())
            if low < -size or high >= size:
                raise KilnIndexError(
                    f"{file}:{line}: {self.__name__}: argument "
                    f"'{traced.names[position]}' holds index "
                    f"{low if low < -size else high}, out of bounds for "
                    f"axis {axis} with size {size}")

    def close(self) -> None:
        """Frees the compiled plans (a later call compiles again)."""
        with self._lock:
            for traced in self._traces.values():
                if traced.executable is not None:
                    traced.executable.close()
                    traced.executable = None
            for module in self._modules:
                module.close()
            self._modules.clear()
            if self._context is not None:
                self._context.close()
                self._context = None


def fuse(fn: Callable | None = None, *, threads: int | None = None):
    """Makes the numpy function ``fn`` a fused function (``@kiln.fuse``, or
    ``@kiln.fuse(threads=4)``): each call with numpy arrays of a new
    signature (shapes and dtypes) traces ``fn`` once into whole-tensor IR,
    which kiln-fuse and kiln-tile make tile kernels and a launch plan,
    compiled once for the host target; every call runs the plan (on
    ``threads`` threads, default ``$KILN_HOST_THREADS`` else 1) and returns
    new arrays, as ``fn`` would. Arguments are numpy arrays (any strides:
    non-contiguous ones are copied); device arrays are refused, since plans
    run only on the host from Python for now. See ``kiln.fuse``'s module
    documentation for what a traced function may use.

    >>> import numpy as np, kiln
    >>> @kiln.fuse
    ... def softmax(x):
    ...     e = np.exp(x - x.max(axis=-1, keepdims=True))
    ...     return e / e.sum(axis=-1, keepdims=True)
    >>> np.round(softmax(np.array([[0, np.log(3)], [1, 1]], np.float32)), 6)
    array([[0.25, 0.75],
           [0.5 , 0.5 ]], dtype=float32)
    """
    if fn is None:
        return lambda f: FusedFunction(f, threads)
    return FusedFunction(fn, threads)


fuse.erf = erf
