"""The IR being traced: the function's operations in program order, the
body of each ``linalg.generic``, and the data of a traced array that every
operation reads."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from kiln.fuse.ir_types import (_BOOL, _constant_op, _element_type,
                                _ir_shape, _is_scalar, _tensor_type)
from kiln.fuse.location import _error


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
    in program order; ``open`` until the function returns. It makes each
    array as an ``array_type``: a ``TracedArray``, which is built on the
    operations and so is not theirs to import."""

    def __init__(self, array_type: type[TracedValue]) -> None:
        self.array_type = array_type
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

    def array(self, value: str, shape: tuple[int, ...], dtype: np.dtype,
              bound: int | None = None,
              origin: tuple[int, Callable] | None = None) -> TracedValue:
        """A new array of this trace, held by the tensor ``value``."""
        return self.array_type(self, value, shape, dtype, bound, origin)

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

    def generic(self, inputs: Sequence[tuple[TracedValue, str]],
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


class TracedValue:
    """A traced array's data, which the operations read: the value of the
    tensor that holds it, its shape and dtype, and what index checks need.
    ``TracedArray`` adds numpy's operators and protocols."""

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


def _operand(value: Any, what: str) -> TracedValue | Any:
    """A traced array of the current trace, or a scalar constant."""
    if isinstance(value, TracedValue):
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
              if isinstance(o, TracedValue)}
    if len(traces) != 1:
        raise _error("traced arrays of two traces used together")
    return next(iter(traces.values()))


def _view(x: TracedValue, shape: tuple[int, ...]) -> TracedValue:
    """``x`` with axes of size 1 added or dropped: the same tensor."""
    return x._trace.array(x._value, shape, x.dtype, x._bound,
                          x._view_of(lambda a: a.reshape(shape)))


def _no_out(out: Any, what: str) -> None:
    if out is not None:
        raise _error(f"{what} with out=: kiln.fuse traces functions without "
                     "side effects")


def _no_extra(kwargs: dict, what: str) -> None:
    if kwargs:
        raise _error(f"{what} with {', '.join(sorted(kwargs))}= is not "
                     "supported by kiln.fuse")
