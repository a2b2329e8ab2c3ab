"""``@kiln.fuse``: a function traced once per signature, its IR compiled
into a plan for the host target and run."""

from __future__ import annotations

import functools
import inspect
import re
import threading
from typing import Any, Callable

import numpy as np

from kiln import dlpack
from kiln.compiler import Context, Module
from kiln.errors import (CompilationError, KilnError, KilnIndexError,
                         user_facing, warn_remarks)
from kiln.frontend.ir import find_location
from kiln.fuse.arguments import (check_arguments, describe,
                                 is_torch_tensor, is_traced_tensor)
from kiln.fuse.array import TracedArray
from kiln.fuse.ir_types import _ir_shape
from kiln.fuse.location import _error, _loc
from kiln.fuse.on_device import CapturedCall, DevicePlan, host_copy
from kiln.fuse.torch_functions import install as install_torch_functions
from kiln.fuse.torch_tensor import TracedTensor
from kiln.fuse.trace import _Trace
from kiln.fuse.ufuncs import erf
from kiln.host import ARRAY_PIPELINE, HostExecutable

#: The name the traced IR goes by when the compiler reports on it (every
#: operation carries the location of its Python line, so diagnostics name
#: the user's file instead).
IR_FILENAME = "<kiln.fuse traced IR>"


def _copy(x: TracedArray, loc: str) -> str:
    """A generic that copies ``x`` (an argument returned as it is)."""
    space = _ir_shape(x.shape)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    init = x._trace.empty(space, x.dtype, loc)
    return x._trace.generic([(x, dims)], space, False, (init, dims, x.dtype),
                            lambda b, v: v[0], loc)


def _symbol(name: str) -> str:
    # ASCII: PTX names are (a Unicode name aborted LLVM's NVPTX backend).
    name = re.sub(r"\W", "_", name, flags=re.ASCII) or "fused"
    return name if not name[0].isdigit() else "f_" + name


def _invalid_ir(error: CompilationError, text: str) -> KilnError:
    """The parser refused the traced IR (a bug of kiln.fuse): an error at
    the Python line of the operation it names."""
    for diagnostic in error.diagnostics:
        lines = text.splitlines()
        if diagnostic.file == IR_FILENAME and \
                0 < diagnostic.line <= len(lines):
            found = find_location(lines[diagnostic.line - 1])
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
                 index_checks: list[tuple], torch_mode: bool) -> None:
        self.text = text
        self.symbol = symbol
        self.input_shapes = input_shapes  # the plan's, per argument
        self.outputs = outputs  # per returned array: plan result, shape
        self.single = single  # the function returned one array
        self.names = names  # per argument
        self.index_checks = index_checks  # _Trace.index_checks
        self.torch_mode = torch_mode  # takes and returns torch tensors
        self.module: Module | None = None  # after ARRAY_PIPELINE
        self.executable: HostExecutable | None = None
        self.device_plans: dict[int, DevicePlan] = {}  # by GPU


class FusedFunction:
    """A numpy (or PyTorch) function run as fused tile kernels; made by
    ``kiln.fuse``. Calling it runs the function on numpy arrays or CPU
    torch tensors on the host target, on device arrays or CUDA tensors on
    their GPU (torch tensors with PyTorch's semantics);
    ``ir(*arrays)`` is the IR its trace for those arrays' shapes and dtypes
    makes, before the pass pipeline."""

    def __init__(self, fn: Callable, threads: int | None = None,
                 cuda_graphs: bool = True) -> None:
        self.fn = fn
        self.threads = threads
        self.cuda_graphs = cuda_graphs
        self.signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)
        self._traces: dict[tuple, _Traced] = {}
        self._lock = threading.Lock()
        self._context: Context | None = None
        self._modules: list[Module] = []

    def _arrays(self, args: tuple, kwargs: dict
                ) -> tuple[list[tuple[str, Any]], int | None]:
        """The arguments, by name in the signature's order, and the GPU they
        are on (None: host memory); see ``check_arguments``."""
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
                # An array offering only DLPack is taken as a numpy view
                # (CPU) or a device array (CUDA) of the same memory; torch
                # tensors stay torch tensors, traced as PyTorch computes.
                arrays.append((name, v if is_torch_tensor(v)
                               else dlpack.adapt(v)))
        return arrays, check_arguments(self.__name__, arrays)

    @staticmethod
    def _key(arrays: list[tuple[str, Any]]) -> tuple:
        """Per argument: its name, shape, numpy dtype and whether it is a
        torch tensor (traced with PyTorch's semantics)."""
        return tuple((name, *describe(a)) for name, a in arrays)

    def _trace(self, args: tuple, kwargs: dict, key: tuple) -> _Traced:
        """Runs the function on traced arrays and records its IR."""
        trace = _Trace(TracedArray)
        arrays = [TracedArray(trace, f"%arg{i}", shape, np.dtype(dtype),
                              origin=(i, lambda a: a))
                  for i, (_, shape, dtype, _) in enumerate(key)]
        torch_mode = any(k[3] for k in key)
        if torch_mode:
            install_torch_functions()
            traced_type = TracedTensor
            tracers = [TracedTensor(a) for a in arrays]
        else:
            traced_type, tracers = TracedArray, arrays
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
        if not results or not all(isinstance(r, traced_type)
                                  for r in results):
            got = ", ".join(type(r).__name__ for r in results) or "nothing"
            what = "a tensor" if torch_mode else "an array"
            raise _error(f"{self.__name__} must return {what} computed "
                         f"from its arguments, or a tuple of them, not {got}",
                         definition)
        if torch_mode:
            results = [r._array for r in results]
        if not all(r._trace is trace for r in results):
            raise _error(f"{self.__name__} returned an array of another "
                         "trace", definition)
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
                               for t in arrays)
        symbol = _symbol(self.__name__)
        text = "\n".join(
            [f"func.func @{symbol}({parameters}) -> ({', '.join(types)}) {{",
             *trace.lines,
             f"    return {', '.join(values)} : {', '.join(types)} {loc}",
             f"}} {loc}", ""])
        return _Traced(text, symbol, [_ir_shape(k[1]) for k in key],
                       outputs, single, [k[0] for k in key],
                       trace.index_checks, torch_mode)

    def _traced(self, args: tuple, kwargs: dict
                ) -> tuple[_Traced, list[Any], int | None]:
        """The trace for these arguments, their values, and the GPU they
        are on (None: host memory)."""
        arrays, place = self._arrays(args, kwargs)
        key = self._key(arrays)
        traced = self._traces.get(key)
        if traced is None:
            with self._lock:
                traced = self._traces.get(key)
                if traced is None:
                    traced = self._trace(args, kwargs, key)
                    self._traces[key] = traced
        return traced, [a for _, a in arrays], place

    def ir(self, *args, **kwargs) -> str:
        """The traced IR for these arguments (numpy arrays; only their
        shapes and dtypes count), before ``kiln.host.ARRAY_PIPELINE``."""
        return self._traced(args, kwargs)[0].text

    def _module(self, traced: _Traced) -> Module:
        """The traced IR after ARRAY_PIPELINE: tile kernels and a launch
        plan (made once; the caller holds the lock)."""
        if traced.module is not None:
            return traced.module
        if self._context is None:
            self._context = Context()
        try:
            module = Module.parse(self._context, traced.text, IR_FILENAME)
        except CompilationError as exc:
            raise _invalid_ir(exc, traced.text) from None
        try:
            module.run_pipeline(ARRAY_PIPELINE)
            # Why an operation is a kernel of its own, at its line.
            warn_remarks(module.remarks, IR_FILENAME)
        except BaseException:
            module.close()
            raise
        self._modules.append(module)
        traced.module = module
        return module

    def _executable(self, traced: _Traced) -> HostExecutable:
        with self._lock:
            if traced.executable is None:
                traced.executable = HostExecutable(self._module(traced),
                                                   threads=self.threads)
            return traced.executable

    def _device_plan(self, traced: _Traced, ordinal: int) -> DevicePlan:
        with self._lock:
            plan = traced.device_plans.get(ordinal)
            if plan is None:
                plan = traced.device_plans[ordinal] = DevicePlan(
                    self._module(traced), traced.symbol, ordinal,
                    self.cuda_graphs)
            return plan

    @user_facing
    def __call__(self, *args, **kwargs):
        if any(isinstance(a, TracedArray) or is_traced_tensor(a)
               for a in (*args, *kwargs.values())):
            return self.fn(*args, **kwargs)  # inlined into another trace
        traced, arrays, place = self._traced(args, kwargs)
        if place is not None:
            return self._run_on_device(traced, arrays, place)
        if traced.torch_mode:
            arrays = [a.detach().numpy() for a in arrays]
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
        if traced.torch_mode:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        else:
            outputs = [o[()] if o.ndim == 0 else o for o in outputs]
        return outputs[0] if traced.single else tuple(outputs)

    @user_facing
    def capture(self, *args, **kwargs) -> CapturedCall:
        """This call, on device arrays, captured into a CUDA graph: the
        returned ``CapturedCall`` replays all of the plan's kernels with
        one graph launch each time it is called, reading these arguments
        (whatever they then hold) and writing the same results, which it
        returns. The way to run a fused function in a loop at the cost of
        one launch."""
        traced, arrays, place = self._traced(args, kwargs)
        if place is None:
            raise _error(f"{self.__name__}.capture: CUDA graphs take device "
                         "arrays; these arguments are in host memory")
        if traced.index_checks:
            raise _error(f"{self.__name__}.capture: the function gathers by "
                         "index arguments, whose values each call checks; "
                         "a graph could not")
        plan = traced.device_plans.get(place) or \
            self._device_plan(traced, place)
        graph, inputs, results = plan.capture(traced.input_shapes, arrays,
                                              traced.torch_mode)
        outputs = self._shaped(traced, results)
        return CapturedCall(graph, inputs, outputs, place)

    @staticmethod
    def _shaped(traced: _Traced, results: list[Any]) -> Any:
        """The plan's results as the function returns them: reshaped, an
        array returned twice one array."""
        views: dict[tuple, Any] = {}
        outputs = [views.setdefault((i, shape), results[i].reshape(shape))
                   for i, shape in traced.outputs]
        return outputs[0] if traced.single else tuple(outputs)

    def _run_on_device(self, traced: _Traced, arrays: list[Any],
                       ordinal: int):
        """The plan run on GPU ``ordinal``, where the arguments are."""
        if traced.index_checks:
            self._check_indices(traced, [host_copy(a) for a in arrays])
        plan = traced.device_plans.get(ordinal) or \
            self._device_plan(traced, ordinal)
        return self._shaped(traced, plan.run(traced.input_shapes, arrays,
                                             traced.torch_mode))

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
                for plan in traced.device_plans.values():
                    plan.close()
                traced.device_plans.clear()
                traced.module = None
            for module in self._modules:
                module.close()
            self._modules.clear()
            if self._context is not None:
                self._context.close()
                self._context = None


def fuse(fn: Callable | None = None, *, threads: int | None = None,
         cuda_graphs: bool = True):
    """Makes the numpy function ``fn`` a fused function (``@kiln.fuse``, or
    ``@kiln.fuse(threads=4)``): each call with numpy arrays of a new
    signature (shapes and dtypes) traces ``fn`` once into whole-tensor IR,
    which kiln-fuse and kiln-tile make tile kernels and a launch plan,
    compiled once for the host target; every call runs the plan (on
    ``threads`` threads, default ``$KILN_HOST_THREADS`` else 1) and returns
    new arrays, as ``fn`` would. Arguments are numpy arrays (any strides:
    non-contiguous ones are copied), or torch tensors, traced with
    PyTorch's semantics into new tensors. Device arrays (CUDA torch
    tensors, ``__cuda_array_interface__`` arrays, C-contiguous) run the
    plan on their GPU instead, on PyTorch's current stream, into new
    device arrays (torch tensors, else ``kiln.DeviceArray``); from the
    second call on the same sizes, the plan's launches are one CUDA graph
    launch (``cuda_graphs=False``: launch by launch). See ``kiln.fuse``'s
    module documentation for what a traced function may use.

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
        return lambda f: FusedFunction(f, threads, cuda_graphs)
    return FusedFunction(fn, threads, cuda_graphs)


fuse.erf = erf
