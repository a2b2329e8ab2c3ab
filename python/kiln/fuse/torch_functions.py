"""The PyTorch functions, operators and tensor methods a traced tensor
answers, each with PyTorch's semantics, traced through the numpy-level
operations of kiln.fuse.

What PyTorch does and numpy does not, and so is done here:
  - the result dtype is PyTorch's (``int / int`` is float32, ``int + 0.5``
    float32, ``sum`` of bool int64), taken from the same call on meta
    tensors;
  - arithmetic on float16 runs in float32 with Python scalars kept in
    float32 (PyTorch's "opmath"), rounded once to float16 at the end of
    each function (softmax, layer norm and GELU are one function each);
  - comparisons and ``where`` round a Python scalar to the tensors' type;
  - ``var`` and ``std`` divide by N - 1 unless told otherwise;
  - ``max(x, dim)`` gives values and indices.

Each handler takes the meta result first (PyTorch's dtype and shape of the
result), then the function's own arguments."""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable

import numpy as np

from kiln.fuse.array import TracedArray
from kiln.fuse.functions import _where_function
from kiln.fuse.indexing import _index
from kiln.fuse.joining import _concatenate, _stack
from kiln.fuse.location import _error
from kiln.fuse.matmul import _matmul
from kiln.fuse.reductions import (_all, _any, _argmax, _argmin, _max, _mean,
                                  _min, _prod, _sum, _var)
from kiln.fuse.shapes import _broadcast_to, _reshape, _transpose
from kiln.fuse.torch_tensor import (HANDLERS, METHODS, TracedTensor,
                                    dispatch, numpy_to_torch, torch_to_numpy)
from kiln.fuse.ufuncs import _apply_ufunc, _astype
from kiln.fuse.ufuncs import erf as _erf

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

#: (handler, the functions it implements by name, the tensor methods),
#: registered by ``install``.
_REGISTRATIONS: list[tuple[Callable, tuple[str, ...], tuple[str, ...]]] = []


def _implements(*functions: str, methods: tuple[str, ...] = ()):
    """Records ``handler`` for ``functions`` (``"torch.exp"``,
    ``"F.gelu"``, ``"operator.add"``) and the tensor ``methods``."""
    def register(handler: Callable) -> Callable:
        _REGISTRATIONS.append((handler, functions, methods))
        return handler
    return register


@functools.cache
def install() -> None:
    """Fills ``HANDLERS`` and ``METHODS`` (PyTorch is imported here, the
    first time a fused function is called with torch tensors)."""
    import torch
    import torch.nn.functional as F
    roots = {"torch": torch, "F": F, "operator": operator}
    for handler, functions, methods in _REGISTRATIONS:
        for name in functions:
            root, *path = name.split(".")
            function = functools.reduce(getattr, path, roots[root])
            HANDLERS[function] = handler
        for name in methods:
            method = getattr(torch.Tensor, name)
            HANDLERS[method] = handler
            METHODS[name] = lambda self, *args, _m=method, **kwargs: \
                dispatch(_m, (self, *args), kwargs)


def _arr(value: Any) -> Any:
    """The traced array of a traced tensor; a scalar as it is."""
    if isinstance(value, TracedTensor):
        return value._array
    return value


def _wrap(array: TracedArray) -> TracedTensor:
    return TracedTensor(array)


def _dtype(expected) -> np.dtype:
    return torch_to_numpy()[expected.dtype]


def _opmath(dtype: np.dtype) -> np.dtype:
    """Where PyTorch computes ``dtype``: float16 in float32."""
    return _F32 if dtype == _F16 else dtype


def _in(value: Any, dtype: np.dtype) -> Any:
    """``value`` as an operand of type ``dtype``: a traced array converted,
    a Python scalar a numpy scalar of that type."""
    value = _arr(value)
    if isinstance(value, TracedArray):
        return _astype(value, dtype)
    if isinstance(value, (bool, int, float, np.generic)):
        try:
            return np.array(value).astype(dtype)[()]
        except OverflowError as exc:
            raise _error(f"the constant {value!r} does not fit {dtype}: "
                         f"{exc}") from None
    raise _error(f"an operand of type {type(value).__name__}, which "
                 "kiln.fuse cannot trace")


def _computed(expected, compute: Callable, *operands: Any
              ) -> TracedTensor:
    """``compute`` of ``operands`` converted to where PyTorch computes the
    result's dtype, rounded to it at the end."""
    result = _dtype(expected)
    inner = _opmath(result)
    value = compute(*[_in(o, inner) for o in operands])
    return _wrap(_astype(_arr(value), result))


def _ufunc(ufunc: np.ufunc) -> Callable:
    return lambda *operands: _apply_ufunc(ufunc, operands)


def _meta_of(value: Any) -> Any:
    import torch
    value = _arr(value)
    if isinstance(value, TracedArray):
        return torch.empty((), dtype=numpy_to_torch()[value.dtype],
                           device="meta").expand(value.shape)
    return value


# Elementwise arithmetic: computed in PyTorch's result type (float16 in
# float32).
def _arithmetic(ufunc: np.ufunc) -> Callable:
    def handler(expected, a, b):
        return _computed(expected, _ufunc(ufunc), a, b)
    return handler


for _functions, _ufunc_of, _methods in [
        (("torch.mul", "torch.multiply", "operator.mul"), np.multiply,
         ("mul",)),
        (("torch.floor_divide", "operator.floordiv"), np.floor_divide,
         ("floor_divide",)),
        (("torch.remainder", "operator.mod"), np.remainder, ("remainder",)),
        (("torch.fmod",), np.fmod, ("fmod",)),
        (("torch.maximum",), np.maximum, ("maximum",)),
        (("torch.minimum",), np.minimum, ("minimum",)),
        (("torch.fmax",), np.fmax, ("fmax",)),
        (("torch.fmin",), np.fmin, ("fmin",)),
        (("torch.atan2", "torch.arctan2"), np.arctan2, ("atan2",)),
        (("torch.bitwise_and", "operator.and_"), np.bitwise_and, ()),
        (("torch.bitwise_or", "operator.or_"), np.bitwise_or, ()),
        (("torch.bitwise_xor", "operator.xor"), np.bitwise_xor, ())]:
    _implements(*_functions, methods=_methods)(_arithmetic(_ufunc_of))


@_implements("torch.add", "operator.add", methods=("add",))
def _add(expected, a, b, *, alpha=1):
    if alpha == 1:
        return _computed(expected, _ufunc(np.add), a, b)
    return _computed(expected, lambda x, y: _apply_ufunc(
        np.add, (x, _apply_ufunc(np.multiply, (y, alpha)))), a, b)


@_implements("torch.sub", "torch.subtract", "operator.sub", methods=("sub",))
def _sub(expected, a, b, *, alpha=1):
    if alpha == 1:
        return _computed(expected, _ufunc(np.subtract), a, b)
    return _computed(expected, lambda x, y: _apply_ufunc(
        np.subtract, (x, _apply_ufunc(np.multiply, (y, alpha)))), a, b)


@_implements("torch.rsub")
def _rsub(expected, a, b, *, alpha=1):
    return _sub(expected, b, a, alpha=alpha)


@_implements("torch.div", "torch.divide", "torch.true_divide",
             "operator.truediv",
             methods=("div",))
def _div(expected, a, b, *, rounding_mode=None):
    if rounding_mode is None:
        return _computed(expected, _ufunc(np.true_divide), a, b)
    if rounding_mode == "floor":
        return _computed(expected, _ufunc(np.floor_divide), a, b)
    if _dtype(expected).kind != "f":
        raise _error("torch.div of integers with rounding_mode='trunc' is "
                     "not supported by kiln.fuse")
    return _computed(expected, lambda x, y: _apply_ufunc(
        np.trunc, (_apply_ufunc(np.true_divide, (x, y)),)), a, b)


@_implements("torch.pow", "operator.pow", methods=("pow",))
def _pow(expected, a, b):
    if isinstance(b, TracedTensor):
        raise _error("torch.pow with a tensor exponent is not supported by "
                     "kiln.fuse")
    return _computed(expected, lambda x: _apply_ufunc(np.power, (x, b)), a)


# Comparisons and logical operations: in the operands' common type, with a
# Python scalar rounded to it, as PyTorch compares.
def _predicate(ufunc: np.ufunc) -> Callable:
    def handler(expected, a, b):
        import torch
        common = torch_to_numpy().get(torch.result_type(_meta_of(a),
                                                        _meta_of(b)))
        if common is None:
            raise _error(f"{ufunc.__name__} of these operands is not "
                         "supported by kiln.fuse")
        return _wrap(_apply_ufunc(ufunc, (_in(a, common), _in(b, common))))
    return handler


for _functions, _ufunc_of, _methods in [
        (("torch.lt", "torch.less", "operator.lt"), np.less, ("lt",)),
        (("torch.le", "torch.less_equal", "operator.le"), np.less_equal,
         ("le",)),
        (("torch.gt", "torch.greater", "operator.gt"), np.greater, ("gt",)),
        (("torch.ge", "torch.greater_equal", "operator.ge"), np.greater_equal,
         ("ge",)),
        (("torch.eq", "operator.eq"), np.equal, ("eq",)),
        (("torch.ne", "torch.not_equal", "operator.ne"), np.not_equal,
         ("ne",)),
        (("torch.logical_and",), np.logical_and, ("logical_and",)),
        (("torch.logical_or",), np.logical_or, ("logical_or",)),
        (("torch.logical_xor",), np.logical_xor, ("logical_xor",))]:
    _implements(*_functions, methods=_methods)(_predicate(_ufunc_of))


@_implements("torch.logical_not", methods=("logical_not",))
def _logical_not(expected, a):
    return _wrap(_apply_ufunc(np.logical_not, (_arr(a),)))


# Unary functions: computed in the result type (float16 in float32; an
# integer argument of a float function in float32).
def _unary(compute: Callable, integers_unchanged: bool = False) -> Callable:
    def handler(expected, a, *args, **kwargs):
        if integers_unchanged and _dtype(expected).kind != "f":
            return _wrap(_arr(a))
        return _computed(expected, lambda x: compute(x, *args, **kwargs), a)
    return handler


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        beta = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
        return 0.5 * x * (1 + np.tanh(beta * (x + 0.044715 * (x * x * x))))
    if approximate != "none":
        raise _error(f"gelu with approximate={approximate!r}")
    return 0.5 * x * (1 + _erf(x * math.sqrt(0.5)))


def _leaky_relu(x, negative_slope=0.01, inplace=False):
    if inplace:
        raise _error("leaky_relu with inplace=True: kiln.fuse traces "
                     "functions without side effects")
    return np.where(x > 0, x, x * negative_slope)


def _relu(x, inplace=False):
    if inplace:
        raise _error("relu with inplace=True: kiln.fuse traces functions "
                     "without side effects")
    return np.maximum(x, 0)


def _silu(x, inplace=False):
    if inplace:
        raise _error("silu with inplace=True: kiln.fuse traces functions "
                     "without side effects")
    return x / (1 + np.exp(-x))


def _round(x, *, decimals=0):
    if decimals != 0:
        raise _error("torch.round with decimals= is not supported by "
                     "kiln.fuse")
    return np.rint(x)


for _functions, _compute, _methods, _unchanged in [
        (("torch.exp",), np.exp, ("exp",), False),
        (("torch.exp2",), np.exp2, ("exp2",), False),
        (("torch.expm1",), np.expm1, ("expm1",), False),
        (("torch.log",), np.log, ("log",), False),
        (("torch.log2",), np.log2, ("log2",), False),
        (("torch.log10",), np.log10, ("log10",), False),
        (("torch.log1p",), np.log1p, ("log1p",), False),
        (("torch.sqrt",), np.sqrt, ("sqrt",), False),
        (("torch.rsqrt",), lambda x: 1 / np.sqrt(x), ("rsqrt",), False),
        (("torch.sin",), np.sin, ("sin",), False),
        (("torch.cos",), np.cos, ("cos",), False),
        (("torch.tan",), np.tan, ("tan",), False),
        (("torch.tanh", "F.tanh"), np.tanh, ("tanh",), False),
        (("torch.sinh",), np.sinh, ("sinh",), False),
        (("torch.cosh",), np.cosh, ("cosh",), False),
        (("torch.asin", "torch.arcsin"), np.arcsin, ("asin",), False),
        (("torch.acos", "torch.arccos"), np.arccos, ("acos",), False),
        (("torch.atan", "torch.arctan"), np.arctan, ("atan",), False),
        (("torch.erf", "torch.special.erf"), _erf, ("erf",), False),
        (("torch.sigmoid", "F.sigmoid", "torch.special.expit"), _sigmoid,
         ("sigmoid",), False),
        (("torch.reciprocal",), np.reciprocal, ("reciprocal",), False),
        (("torch.abs", "torch.absolute", "operator.abs"), np.absolute,
         ("abs",), False),
        (("torch.neg", "torch.negative", "operator.neg"), np.negative,
         ("neg",), False),
        (("torch.positive", "operator.pos"), np.positive, (), False),
        (("torch.square",), np.square, ("square",), False),
        (("torch.bitwise_not", "operator.invert", "operator.inv"), np.invert,
         ("bitwise_not",), False),
        (("torch.floor",), np.floor, ("floor",), True),
        (("torch.ceil",), np.ceil, ("ceil",), True),
        (("torch.trunc", "torch.fix"), np.trunc, ("trunc",), True),
        (("torch.round",), _round, ("round",), True),
        (("torch.relu", "F.relu"), _relu, ("relu",), False),
        (("F.gelu",), _gelu, (), False),
        (("F.silu",), _silu, (), False),
        (("F.leaky_relu",), _leaky_relu, (), False)]:
    _implements(*_functions, methods=_methods)(_unary(_compute, _unchanged))


@_implements("torch.clamp", "torch.clip", methods=("clamp", "clip"))
def _clamp(expected, a, min=None, max=None):
    result = _dtype(expected)
    value = _in(a, result)
    if min is not None:
        value = _apply_ufunc(np.maximum, (value, _in(min, result)))
    if max is not None:
        value = _apply_ufunc(np.minimum, (value, _in(max, result)))
    return _wrap(value)


@_implements("torch.where")
def _where(expected, condition, a, b):
    result = _dtype(expected)
    return _wrap(_where_function(_arr(condition), _in(a, result),
                                 _in(b, result)))


@_implements(methods=("masked_fill",))
def _masked_fill(expected, a, mask, value):
    result = _dtype(expected)
    return _wrap(_where_function(_arr(mask), _in(value, result),
                                 _arr(a)))


# Reductions.
def _dims(dim: Any) -> Any:
    if isinstance(dim, (list, tuple)):
        return tuple(dim) or None
    return dim


def _reduction(reduce: Callable, accumulate: bool = True) -> Callable:
    """A reduction of the argument converted to the result type (float16
    accumulated in float32)."""
    def handler(expected, a, dim=None, keepdim=False, *, dtype=None):
        result = _dtype(expected)
        inner = _opmath(result) if accumulate else result
        value = reduce(_in(a, inner), axis=_dims(dim), keepdims=keepdim)
        return _wrap(_astype(value, result))
    return handler


_implements("torch.sum", methods=("sum",))(_reduction(_sum))
_implements("torch.mean", methods=("mean",))(_reduction(_mean))
_implements("torch.amax", methods=("amax",))(_reduction(_max, False))
_implements("torch.amin", methods=("amin",))(_reduction(_min, False))
_implements("torch.any", methods=("any",))(_reduction(_any, False))
_implements("torch.all", methods=("all",))(_reduction(_all, False))
_implements("torch.prod", methods=("prod",))(_reduction(_prod))


def _extremum(full: Callable, arg: Callable, pairwise: np.ufunc) -> Callable:
    def handler(expected, a, dim=None, keepdim=False):
        if isinstance(dim, TracedTensor):
            return _computed(expected, _ufunc(pairwise), a, dim)
        x = _arr(a)
        if dim is None:
            return _wrap(full(x))
        import torch
        values = full(x, axis=dim, keepdims=keepdim)
        indices = arg(x, axis=dim, keepdims=keepdim)
        kind = torch.return_types.max if full is _max else \
            torch.return_types.min
        return kind((_wrap(values), _wrap(indices)))
    return handler


_implements("torch.max", methods=("max",))(
    _extremum(_max, _argmax, np.maximum))
_implements("torch.min", methods=("min",))(
    _extremum(_min, _argmin, np.minimum))


def _arg_extremum(arg: Callable) -> Callable:
    def handler(expected, a, dim=None, keepdim=False):
        value = arg(_arr(a), axis=dim, keepdims=keepdim)
        return _wrap(_reshape(value, tuple(expected.shape)))
    return handler


_implements("torch.argmax", methods=("argmax",))(_arg_extremum(_argmax))
_implements("torch.argmin", methods=("argmin",))(_arg_extremum(_argmin))


def _spread(root: bool) -> Callable:
    """``var`` (``std`` if ``root``): PyTorch's three signatures, dividing
    by N - correction (correction 1 unless ``unbiased=False``)."""
    def handler(expected, a, *args, dim=None, unbiased=None, keepdim=False,
                correction=None):
        args = list(args)
        if args and isinstance(args[0], bool):
            unbiased = args.pop(0)
        elif args:
            dim = args.pop(0)
            if args:
                unbiased = args.pop(0)
            if args:
                keepdim = args.pop(0)
        if correction is None:
            correction = 0 if unbiased is False else 1
        result = _dtype(expected)
        value = _var(_in(a, _opmath(result)), axis=_dims(dim),
                     ddof=correction, keepdims=keepdim)
        if root:
            value = _apply_ufunc(np.sqrt, (value,))
        return _wrap(_astype(value, result))
    return handler


_implements("torch.var", methods=("var",))(_spread(False))
_implements("torch.std", methods=("std",))(_spread(True))


def _softmax_of(x, dim: int, log: bool):
    shifted = x - _max(x, axis=dim, keepdims=True)
    total = _sum(np.exp(shifted), axis=dim, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


def _softmax(log: bool) -> Callable:
    def handler(expected, a, dim=None, _stacklevel=3, dtype=None):
        if dim is None:
            raise _error("softmax without dim= (PyTorch's implicit choice "
                         "is deprecated); give the axis")
        return _computed(expected, lambda x: _softmax_of(x, dim, log), a)
    return handler


_implements("torch.softmax", "F.softmax", "torch.special.softmax",
            methods=("softmax",))(_softmax(False))
_implements("torch.log_softmax", "F.log_softmax", "torch.special.log_softmax",
            methods=("log_softmax",))(_softmax(True))


@_implements("torch.logsumexp", methods=("logsumexp",))
def _logsumexp(expected, a, dim, keepdim=False):
    def compute(x):
        peak = _max(x, axis=_dims(dim), keepdims=True)
        peak = np.where(np.absolute(peak) == np.inf, 0, peak)
        total = _sum(np.exp(x - peak), axis=_dims(dim), keepdims=True)
        value = np.log(total) + peak
        return value if keepdim else _reshape(value, tuple(expected.shape))
    return _computed(expected, compute, a)


@_implements("F.layer_norm")
def _layer_norm(expected, a, normalized_shape, weight=None, bias=None,
                eps=1e-5):
    axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))

    def compute(x, *affine):
        centered = x - _mean(x, axis=axes, keepdims=True)
        variance = _mean(centered * centered, axis=axes, keepdims=True)
        y = centered * (1 / np.sqrt(variance + eps))
        affine = list(affine)
        if weight is not None:
            y = y * affine.pop(0)
        if bias is not None:
            y = y + affine.pop(0)
        return y
    return _computed(expected, compute, a,
                     *[t for t in (weight, bias) if t is not None])


@_implements("F.rms_norm")
def _rms_norm(expected, a, normalized_shape, weight=None, eps=None):
    axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))
    if eps is None:
        import torch
        eps = torch.finfo(a.dtype).eps

    def compute(x, *scale):
        y = x * (1 / np.sqrt(_mean(x * x, axis=axes, keepdims=True) + eps))
        return y * scale[0] if scale else y
    return _computed(expected, compute, a,
                     *[t for t in (weight,) if t is not None])


# Matmuls: in the operands' type, accumulated in float32 for float16.
@_implements("torch.matmul", "torch.mm", "torch.bmm", "operator.matmul",
             methods=("matmul", "mm", "bmm"))
def _matmul_handler(expected, a, b):
    return _wrap(_matmul(_arr(a), _arr(b)))


@_implements("F.linear")
def _linear(expected, a, weight, bias=None):
    y = _matmul(_arr(a), _transpose(_arr(weight)))
    if bias is not None:
        y = _apply_ufunc(np.add, (y, _arr(bias)))
    return _wrap(_astype(y, _dtype(expected)))


# Shapes, copies and conversions.
def _to_shape(expected, a, *args, **kwargs):
    return _wrap(_reshape(_arr(a), tuple(expected.shape)))


_implements("torch.reshape", "torch.flatten", "torch.unsqueeze",
            "torch.squeeze",
            methods=("reshape", "view", "flatten", "unsqueeze", "squeeze",
                     "view_as", "reshape_as"))(_to_shape)


@_implements("torch.broadcast_to",
             methods=("expand", "expand_as", "broadcast_to"))
def _expand(expected, a, *args, **kwargs):
    return _wrap(_broadcast_to(_arr(a), tuple(expected.shape)))


@_implements("torch.permute", methods=("permute",))
def _permute(expected, a, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return _wrap(_transpose(_arr(a), [d % a.ndim for d in dims]))


@_implements("torch.transpose", "torch.swapaxes", "torch.swapdims",
             methods=("transpose", "swapaxes", "swapdims"))
def _swap(expected, a, dim0, dim1):
    axes = list(range(a.ndim))
    axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
    return _wrap(_transpose(_arr(a), axes))


@_implements("torch.t", methods=("t",))
def _t(expected, a):
    return _wrap(_transpose(_arr(a)) if a.ndim == 2 else _arr(a))


@_implements("torch.movedim", "torch.moveaxis", methods=("movedim",))
def _movedim(expected, a, source, destination):
    sources = [s % a.ndim for s in (source if isinstance(source, (list, tuple))
                                    else [source])]
    targets = [d % a.ndim for d in (destination
                                    if isinstance(destination, (list, tuple))
                                    else [destination])]
    rest = iter(i for i in range(a.ndim) if i not in sources)
    placed = dict(zip(targets, sources))
    return _wrap(_transpose(_arr(a), [placed[i] if i in placed else next(rest)
                                      for i in range(a.ndim)]))


@_implements("torch.cat", "torch.concat", "torch.concatenate")
def _cat(expected, tensors, dim=0):
    result = _dtype(expected)
    return _wrap(_concatenate([_in(t, result) for t in tensors], axis=dim))


@_implements("torch.stack")
def _stack_handler(expected, tensors, dim=0):
    result = _dtype(expected)
    return _wrap(_stack([_in(t, result) for t in tensors], axis=dim))


@_implements("operator.getitem")
def _getitem(expected, a, key):
    key = tuple(_arr(k) for k in key) if isinstance(key, tuple) else _arr(key)
    return _wrap(_index(_arr(a), key))


@_implements("torch.clone", "torch.detach",
             methods=("clone", "detach", "contiguous"))
def _same(expected, a, *args, **kwargs):
    return _wrap(_arr(a))


@_implements("F.dropout", "torch.dropout")
def _dropout(expected, a, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise _error("dropout in training mode draws random numbers, which "
                     "kiln.fuse does not trace")
    return _wrap(_arr(a))


@_implements(methods=("to", "type", "type_as", "float", "double", "half",
                      "int", "long", "short", "bool", "char"))
def _convert(expected, a, *args, **kwargs):
    return _wrap(_astype(_arr(a), _dtype(expected)))


#: The handlers that only view, reshape or copy: a partition of a graph
#: made of these alone computes nothing worth a plan.
MOVES_ONLY = {None, _to_shape, _expand, _permute, _swap, _t, _movedim,
              _getitem, _same, _dropout}
