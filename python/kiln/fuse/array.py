"""``TracedArray``: a traced array with numpy's operators, methods and
protocols."""

from __future__ import annotations

import numpy as np

from kiln.fuse.functions import _FUNCTIONS, _clip
from kiln.fuse.indexing import _index, _take
from kiln.fuse.location import _error
from kiln.fuse.matmul import _matmul
from kiln.fuse.reductions import (_all, _any, _argmax, _argmin, _max, _mean,
                                  _min, _prod, _reduce, _std, _sum, _var)
from kiln.fuse.shapes import _reshape, _squeeze, _swapaxes, _transpose
from kiln.fuse.trace import TracedValue, _no_extra, _no_out
from kiln.fuse.ufuncs import _apply_ufunc, _astype


_REDUCING_UFUNCS = {np.add: "sum", np.maximum: "max", np.minimum: "min"}


class TracedArray(TracedValue):
    """What a ``@kiln.fuse`` function receives instead of each array while
    it is traced: it has the array's ``shape``, ``dtype`` and ``ndim`` and
    records the numpy operations applied to it. Its values are not known
    while tracing, so ``if``, ``float()`` and indexing by booleans raise
    ``KilnError``."""

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
        return _index(self, key)
