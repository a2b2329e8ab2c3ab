"""Elementwise operations: numpy's ufuncs (and ``erf``, ``astype``) as
``linalg.generic`` bodies over their operands' broadcast shape."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from kiln.fuse.ir_types import (_BOOL, _compute_type, _element_type, _ir_shape,
                                _is_scalar, _scalar_type)
from kiln.fuse.location import _error, _loc, _where
from kiln.fuse.trace import TracedValue, _Body, _operand, _the_trace


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
                 shape: tuple[int, ...] | None = None) -> TracedValue:
    """A generic over the broadcast shape of ``operands`` (traced arrays,
    or scalars which ``body`` receives as Python values), or over
    ``shape`` they broadcast to, making ``dtype``."""
    loc = _loc(_where())
    arrays = [o for o in operands if isinstance(o, TracedValue)]
    trace = _the_trace(arrays)
    shape = _broadcast([a.shape for a in arrays] + [shape or ()], what)
    space = _ir_shape(shape)
    unique: dict[int, TracedValue] = {}
    for a in arrays:
        unique.setdefault(id(a), a)
    inputs = [(a, _input_map(a.shape, shape)) for a in unique.values()]
    positions = {key: i for i, key in enumerate(unique)}
    init = trace.empty(space, dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))

    def emit(block: _Body, values: list) -> tuple[str, np.dtype]:
        return body(block, [values[positions[id(o)]]
                            if isinstance(o, TracedValue) else o
                            for o in operands])

    name = trace.generic(inputs, space, False, (init, dims, dtype), emit,
                         loc)
    return trace.array(name, shape, dtype)


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
    types = tuple(o.dtype if isinstance(o, TracedValue) else _scalar_type(o)
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
                 ) -> TracedValue:
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
                          if isinstance(o, TracedValue))
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
    if isinstance(x, TracedValue):  # numpy's sin has erf's types
        return _apply_ufunc(np.sin, (x,), _ERF_RULE, "erf")
    array = np.asarray(x)
    loop = np.sin.resolve_dtypes((array.dtype, None))[1]
    return np.vectorize(math.erf, otypes=[loop])(array)


def _astype(x: TracedValue, dtype: Any) -> TracedValue:
    x = _operand(x, "astype")
    to = np.dtype(dtype)
    _element_type(to)
    if to == x.dtype:
        return x
    return _elementwise([x], to, "astype", lambda b, v: b.cast(v[0], to))
