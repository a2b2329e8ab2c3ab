"""``TracedTensor``: what a ``@kiln.fuse`` function receives for each
PyTorch tensor while it is traced. It answers PyTorch's operators, methods
and functions (through ``__torch_function__``) with PyTorch's semantics,
recording each as the array level's IR through the traced array it wraps.

Every operation is also run on ``meta`` tensors: PyTorch itself checks the
arguments (its error, at the user's line, is the one a user knows) and
gives the result's dtype and shape, which the traced result must have.

PyTorch is imported on first use, not with the module: ``import kiln``
needs no PyTorch."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from kiln.fuse.array import TracedArray
from kiln.fuse.location import _error
from kiln.fuse.shapes import _transpose

#: torch function (or operator, or ``torch.Tensor`` method) -> handler,
#: which takes PyTorch's result on meta tensors, then the function's
#: arguments (filled by ``kiln.fuse.torch_functions.install``).
HANDLERS: dict[Any, Callable] = {}
#: tensor method name -> the ``torch.Tensor`` method that is its key.
METHODS: dict[str, Callable] = {}


@functools.cache
def torch_to_numpy() -> dict:
    """The torch dtypes kiln.fuse computes on, and their numpy dtypes."""
    import torch
    return {
        torch.bool: np.dtype(np.bool_), torch.int8: np.dtype(np.int8),
        torch.int16: np.dtype(np.int16), torch.int32: np.dtype(np.int32),
        torch.int64: np.dtype(np.int64), torch.float16: np.dtype(np.float16),
        torch.float32: np.dtype(np.float32),
        torch.float64: np.dtype(np.float64)}


@functools.cache
def numpy_to_torch() -> dict:
    return {v: k for k, v in torch_to_numpy().items()}


def numpy_dtype(dtype: Any) -> np.dtype:
    found = torch_to_numpy().get(dtype)
    if found is None:
        raise _error("kiln.fuse computes on torch.bool, torch.int8 to "
                     f"torch.int64 and torch.float16 to torch.float64 "
                     f"tensors, not {dtype}")
    return found


def _name(func: Any) -> str:
    name = getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None) or ""
    if module.startswith("torch.nn.functional") or \
            module == "torch._C._nn":
        return f"torch.nn.functional.{name}"
    if module.startswith("_operator") or module == "operator":
        return f"operator.{name}"
    return f"torch.{name}"


def _map(value: Any, fn) -> Any:
    """``value`` with ``fn`` applied to each traced tensor in it (through
    lists, tuples and dicts)."""
    if isinstance(value, TracedTensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _refuse_tensors(value: Any) -> None:
    """Raises at a torch tensor among the arguments of an operation: one
    the traced function captured rather than took."""
    import torch
    if isinstance(value, torch.Tensor):
        raise _error(f"a torch tensor of shape {list(value.shape)} that is "
                     "not an argument: kiln.fuse reads tensors only from "
                     "the arguments, pass it as one")
    if isinstance(value, (list, tuple)):
        for v in value:
            _refuse_tensors(v)
    if isinstance(value, dict):
        _refuse_tensors(list(value.values()))


def _on_meta(func: Any, args: tuple, kwargs: dict) -> Any:
    """``func`` run on meta tensors of the traced ones' shapes and dtypes:
    PyTorch's own checks and result types."""
    import torch

    def meta(t: TracedTensor) -> torch.Tensor:
        return torch.empty(t.shape, dtype=t.dtype, device="meta")
    try:
        return func(*_map(args, meta), **_map(kwargs, meta))
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        raise _error(f"{_name(func)}: {exc}") from None


def _check_like(result: Any, expected: Any, what: str) -> None:
    """Raises where the traced result differs from PyTorch's in dtype or
    shape: a kiln.fuse bug must not give a silently different result."""
    import torch
    if isinstance(expected, torch.Tensor):
        if not isinstance(result, TracedTensor) or \
                result.dtype != expected.dtype or \
                tuple(result.shape) != tuple(expected.shape):
            got = (f"{result.dtype} of shape {list(result.shape)}"
                   if isinstance(result, TracedTensor)
                   else type(result).__name__)
            raise _error(f"internal error: kiln.fuse's {what} gives {got}, "
                         f"PyTorch's {expected.dtype} of shape "
                         f"{list(expected.shape)}")
    elif isinstance(expected, (tuple, list)):
        if not isinstance(result, (tuple, list)) or \
                len(result) != len(expected):
            raise _error(f"internal error: kiln.fuse's {what} does not give "
                         f"PyTorch's {len(expected)} results")
        for r, e in zip(result, expected):
            _check_like(r, e, what)
    else:
        raise _error(f"{what} gives a {type(expected).__name__}, which "
                     "kiln.fuse does not trace")


def dispatch(func: Any, args: tuple, kwargs: dict | None) -> Any:
    """``func(*args, **kwargs)`` traced with PyTorch's semantics."""
    kwargs = kwargs or {}
    handler = HANDLERS.get(func)
    if handler is None:
        raise _error(f"{_name(func)} is not supported by kiln.fuse")
    _refuse_tensors([args, kwargs])
    expected = _on_meta(func, args, kwargs)
    result = handler(expected, *args, **kwargs)
    _check_like(result, expected, _name(func))
    return result


class TracedTensor:
    """A traced PyTorch tensor: ``shape`` (a ``torch.Size``), ``dtype`` (a
    ``torch.dtype``), the operators, the methods and functions of
    ``HANDLERS``. Its values are not known while
    tracing, so ``if``, ``float()`` and ``.item()`` raise ``KilnError``."""

    def __init__(self, array: TracedArray) -> None:
        self._array = array

    @property
    def shape(self):
        import torch
        return torch.Size(self._array.shape)

    @property
    def dtype(self):
        return numpy_to_torch()[self._array.dtype]

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def device(self):
        import torch
        return torch.device("cpu")

    @property
    def T(self) -> TracedTensor:
        return TracedTensor(_transpose(self._array))

    @property
    def mT(self) -> TracedTensor:
        axes = list(range(self.ndim))
        axes[-2:] = axes[:-3:-1]
        return TracedTensor(_transpose(self._array, axes))

    requires_grad = False
    is_cuda = False

    def dim(self) -> int:
        return self._array.ndim

    def numel(self) -> int:
        return self._array.size

    def size(self, dim: int | None = None):
        if dim is None:
            return self.shape
        return self.shape[dim]

    def __len__(self) -> int:
        return len(self._array)

    def __repr__(self) -> str:
        return f"TracedTensor(shape={list(self.shape)}, dtype={self.dtype})"

    def __bool__(self):
        return bool(self._array)

    def __float__(self):
        return float(self._array)

    def __int__(self):
        return int(self._array)

    def __index__(self):
        return self._array.__index__()

    def __iter__(self):
        return iter(self._array)

    def __setitem__(self, key, value):
        self._array[key] = value

    def item(self):
        self._array._no_value(".item()")

    def tolist(self):
        self._array._no_value(".tolist()")

    def numpy(self):
        self._array._no_value(".numpy()")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(func, args, kwargs)

    def __getattr__(self, name: str):
        import torch
        method = METHODS.get(name)
        if method is not None:
            return functools.partial(method, self)
        if name.startswith("__") or not hasattr(torch.Tensor, name):
            raise AttributeError(name)
        raise _error(f"torch.Tensor.{name} is not supported by kiln.fuse")

    __hash__ = None  # == traces an elementwise comparison


def _operator(name: str, reflected: bool = False):
    """The special method ``name``: PyTorch's function of it, traced."""
    import operator
    base = name.strip("_")
    if reflected:
        base = base.removeprefix("r")
    func = getattr(operator, base, None) or getattr(operator, base + "_")

    def method(self, *others):
        args = (others[0], self) if reflected else (self, *others)
        return dispatch(func, args, {})
    method.__name__ = name
    return method


for _special in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                 "matmul", "and", "or", "xor"):
    setattr(TracedTensor, f"__{_special}__", _operator(f"__{_special}__"))
    setattr(TracedTensor, f"__r{_special}__",
            _operator(f"__r{_special}__", reflected=True))
for _special in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs",
                 "invert", "getitem"):
    setattr(TracedTensor, f"__{_special}__", _operator(f"__{_special}__"))
