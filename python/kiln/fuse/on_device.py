"""A fused function's launch plan run on a GPU, through the plan executor
of Kiln's runtime (the one kiln-run uses): the plan's kernels compiled for
the device's chip and loaded once per device, the results allocated where
the arguments are (PyTorch tensors for PyTorch's, ``kiln.DeviceArray``
otherwise), the launches on the current stream (PyTorch's, where PyTorch
is loaded, so they are ordered with its work)."""

from __future__ import annotations

import ctypes
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


class DevicePlan:
    """The launch plan ``symbol`` of ``module`` ready on GPU ``ordinal``."""

    def __init__(self, module: Module, symbol: str, ordinal: int) -> None:
        self.module, self.symbol, self.ordinal = module, symbol, ordinal
        self.wanted, self.results = plan_signature(module, symbol)
        self.binary = GPUBinary.for_plan(module, symbol, device_chip(ordinal))
        self._graphs: list[PlanGraph] = []
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
        arrays of the arguments' kind. Asynchronous, as launches are."""
        _, outputs, arguments = self._buffers(input_shapes, arrays,
                                              torch_mode)
        self.kernels.run_plan(self.module, self.symbol, arguments,
                              current_stream(self.ordinal))
        return outputs

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
