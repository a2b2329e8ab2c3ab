"""A fused function's launch plan run on a GPU, through the plan executor
of Kiln's runtime (the one kiln-run uses): the plan's kernels compiled for
the device's chip and loaded once per device, the results allocated where
the arguments are (PyTorch tensors for PyTorch's, ``kiln.DeviceArray``
otherwise), the launches on the current stream (PyTorch's, where PyTorch
is loaded, so they are ordered with its work). From the second call of a
plan on the same sizes, its launches go through a CUDA graph, replayed by
one graph launch (see ``DevicePlan.run``)."""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

import numpy as np

from kiln import _ffi
from kiln.compiler import Module, check
from kiln.device_array import DeviceArray
from kiln.errors import CudaError
from kiln.fuse.arguments import describe, is_torch_tensor
from kiln.fuse.torch_tensor import numpy_to_torch
from kiln.gpu import (GPUBinary, PlanGraph, current_stream, device_address,
                      device_array_ordinal, device_chip)
from kiln.host import bind_plan, plan_signature


#: The sizes a plan keeps a graph for (each holds its temporaries); other
#: sizes run launch by launch.
GRAPHS_PER_PLAN = 8


class DevicePlan:
    """The launch plan ``symbol`` of ``module`` ready on GPU ``ordinal``;
    ``graphs``: whether calls after the first replay a CUDA graph."""

    def __init__(self, module: Module, symbol: str, ordinal: int,
                 graphs: bool = True) -> None:
        self.module, self.symbol, self.ordinal = module, symbol, ordinal
        self.graphs = graphs
        self.wanted, self.results = plan_signature(module, symbol)
        self.binary = GPUBinary.for_plan(module, symbol, device_chip(ordinal))
        self._graphs: list[PlanGraph] = []
        # By the plan's sizes: the graph replayed, or None once run.
        self._replays: dict[tuple[int, ...], PlanGraph | None] = {}
        self._lock = threading.Lock()
        try:
            self.kernels = self.binary.load(ordinal)
        except BaseException:
            self.binary.close()
            raise

    def _buffers(self, input_shapes: list[tuple[int, ...]],
                 arrays: list[Any], torch_mode: bool
                 ) -> tuple[list[Any], list[Any], list[int]]:
        """The inputs as the plan reads them, new results in arrays of the
        arguments' kind, and the plan's arguments: their addresses, then
        the sizes."""
        sizes, shapes = bind_plan(self.module, self.symbol, input_shapes,
                                  self.wanted, self.results)
        if torch_mode:
            import torch
            arrays = [a.contiguous() for a in arrays]
            device = arrays[0].device
            outputs = [torch.empty(shape, dtype=numpy_to_torch()[dtype],
                                   device=device)
                       for shape, (_, dtype) in zip(shapes, self.results)]
            addresses = [t.data_ptr() for t in arrays + outputs]
        else:
            outputs = [DeviceArray(shape, dtype, self.ordinal)
                       for shape, (_, dtype) in zip(shapes, self.results)]
            addresses = [device_address(a) for a in arrays] + \
                [o.address for o in outputs]
        return arrays, outputs, addresses + sizes

    def run(self, input_shapes: list[tuple[int, ...]], arrays: list[Any],
            torch_mode: bool) -> list[Any]:
        """Runs the plan on ``arrays`` (seen as its inputs of
        ``input_shapes``); returns its results, one per plan result, in
        arrays of the arguments' kind. Asynchronous, as launches are.

        The first call on some sizes runs the plan launch by launch; the
        second captures it into a CUDA graph (its temporaries held from
        then on), which that call and every later one on those sizes
        replay with one graph launch, the kernels whose buffers moved
        updated in the graph first. Results are new arrays each call, as
        without graphs. Not while PyTorch captures a graph of its own on
        the stream: that capture takes the launches in."""
        arrays, outputs, arguments = self._buffers(input_shapes, arrays,
                                                   torch_mode)
        stream = current_stream(self.ordinal)
        graph = self._replay(arguments[len(arrays) + len(outputs):],
                             arguments, torch_mode)
        if graph is None:
            self.kernels.run_plan(self.module, self.symbol, arguments,
                                  stream)
        else:
            graph.launch(stream, arguments)
        return outputs

    def _replay(self, sizes: list[int], arguments: list[int],
                torch_mode: bool) -> PlanGraph | None:
        """The graph to launch for a call on ``sizes``: None on the first
        call, captured on the second (on ``arguments``)."""
        if not self.graphs or (torch_mode and sys.modules[
                "torch"].cuda.is_current_stream_capturing()):
            return None
        key = tuple(sizes)
        graph = self._replays.get(key)
        if graph is not None:
            return graph
        with self._lock:
            if key not in self._replays:
                self._replays[key] = None
                return None
            graph = self._replays[key]
            replayed = sum(g is not None for g in self._replays.values())
            if graph is None and replayed < GRAPHS_PER_PLAN:
                graph = self.kernels.capture_plan(self.module, self.symbol,
                                                  arguments)
                self._graphs.append(graph)
                self._replays[key] = graph
            return graph

    def capture(self, input_shapes: list[tuple[int, ...]],
                arrays: list[Any], torch_mode: bool
                ) -> tuple[PlanGraph, list[Any], list[Any]]:
        """The plan on ``arrays`` captured into a CUDA graph, with the
        inputs it reads (kept alive by the caller) and its results, which
        each replay writes."""
        arrays, outputs, arguments = self._buffers(input_shapes, arrays,
                                                   torch_mode)
        graph = self.kernels.capture_plan(self.module, self.symbol,
                                          arguments)
        self._graphs.append(graph)
        return graph, arrays, outputs

    def close(self) -> None:
        for graph in self._graphs:  # before the kernels they launch
            graph.close()
        self._graphs.clear()
        self._replays.clear()
        self.kernels.close()
        self.binary.close()


class CapturedCall:
    """A fused function's call on device arrays, captured into a CUDA graph
    (``FusedFunction.capture``): calling it replays every kernel of the
    plan with one graph launch, on the current stream, reading the
    arguments it was captured with (as they are then) and writing the same
    results, which it returns."""

    def __init__(self, graph: PlanGraph, inputs: list[Any], outputs: Any,
                 ordinal: int) -> None:
        self._graph, self._inputs = graph, inputs
        self.outputs, self.ordinal = outputs, ordinal

    def __call__(self) -> Any:
        self._graph.launch(current_stream(self.ordinal))
        return self.outputs


def host_copy(value: Any) -> np.ndarray:
    """A numpy copy of a device argument (an index array whose values are
    checked before a call), once the work queued before it is done."""
    if is_torch_tensor(value):
        return value.detach().cpu().numpy()
    shape, dtype, _ = describe(value)
    result = np.empty(shape, dtype)
    ordinal = device_array_ordinal(value) or 0
    check(_ffi.lib().kilnCudaCopyToHost(
        ordinal, result.ctypes.data_as(ctypes.c_void_p),
        device_address(value), result.nbytes), CudaError)
    return result
