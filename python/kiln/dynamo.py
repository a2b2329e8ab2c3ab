"""``kiln.dynamo_backend``: a ``torch.compile`` backend that runs the parts
of a graph kiln.fuse covers as fused plans and the rest eagerly.

    model = torch.compile(model, backend=kiln.dynamo_backend)

TorchDynamo hands the backend an FX graph of PyTorch calls. The nodes
whose function, operator or tensor method kiln.fuse traces (with PyTorch's
semantics, see ``kiln.fuse.torch_functions``) on CPU or CUDA tensors of
the dtypes it computes on are grouped, by ``torch.fx``'s capability-based
partitioner, into the largest partitions that keep the graph acyclic;
each becomes a ``kiln.fuse`` function of the partition's inputs, traced
and compiled (for the host target, or the GPU the tensors are on) on its
first call with those shapes and dtypes. Everything else (in-place ops,
random numbers, ops kiln.fuse does not know) runs as the graph says,
between the plans.

A partition runs eagerly, as written, when a call needs gradients (an
input requires grad under grad mode: kiln.fuse does not differentiate),
and from then on when kiln.fuse cannot trace or compile it, with a
warning that says why."""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Callable, Sequence

from kiln.errors import CompilationError, KilnIndexError
from kiln.fuse import FusedFunction
from kiln.fuse.torch_functions import MOVES_ONLY, install
from kiln.fuse.torch_tensor import HANDLERS, METHODS, torch_to_numpy


def _example(node) -> Any:
    return node.meta.get("example_value", node.meta.get("val"))


def _takes(value: Any) -> bool:
    """Whether ``value`` (an example value) is a tensor a plan takes."""
    import torch
    return isinstance(value, torch.Tensor) and \
        value.dtype in torch_to_numpy() and \
        value.device.type in ("cpu", "cuda") and \
        value.layout == torch.strided


def _handler(node) -> Callable | None:
    import torch
    if node.op == "call_function":
        return HANDLERS.get(node.target)
    if node.op == "call_method":
        method = METHODS.get(node.target)
        return method and HANDLERS[getattr(torch.Tensor, node.target)]
    return None


class _Supported:
    """The nodes kiln.fuse traces (for torch.fx's partitioner, as an
    ``OperatorSupportBase``): a known function of tensors it takes, giving
    tensors it takes (no symbolic sizes)."""

    def is_node_supported(self, submodules, node) -> bool:
        if _handler(node) is None:
            return False
        result = _example(node)
        results = result if isinstance(result, (tuple, list)) else [result]
        if not results or not all(_takes(r) for r in results):
            return False
        inputs = node.all_input_nodes
        return all(_takes(_example(i)) or (
            isinstance(_example(i), tuple) and
            node.target is operator.getitem) for i in inputs)


def _computes(partition) -> bool:
    """Whether a partition does more than move or view data."""
    return any(_handler(node) not in MOVES_ONLY for node in partition.nodes)


@functools.cache
def fused_partition_type() -> type:
    """The module a fused partition of a graph becomes (an
    ``nn.Module``, so made once PyTorch is imported)."""
    import torch

    class FusedPartition(torch.nn.Module):
        """A partition of the graph run as a kiln.fuse plan, or eagerly."""

        def __init__(self, graph, name: str) -> None:
            super().__init__()
            self.graph_module = graph
            self.name = name
            self.fused = FusedFunction(graph.forward)
            self.refused: str | None = None  # why it runs eagerly

        def _eager(self, args: Sequence[Any]) -> bool:
            if self.refused is not None:
                return True
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            return any(not _takes(t) for t in tensors) or (
                torch.is_grad_enabled() and any(t.requires_grad
                                                for t in tensors))

        def forward(self, *args):
            if self._eager(args):
                return self.graph_module(*args)
            try:
                with torch.no_grad():
                    return self.fused(*args)
            except KilnIndexError:
                raise
            except CompilationError as exc:
                self.refused = str(exc)
                warnings.warn(f"kiln.dynamo_backend: {self.name} runs "
                              f"eagerly: {exc}", stacklevel=2)
                return self.graph_module(*args)

    return FusedPartition


def dynamo_backend(graph, example_inputs: Sequence[Any]) -> Callable:
    """A ``torch.compile`` backend (``backend=kiln.dynamo_backend``): the
    partitions of ``graph`` (a ``torch.fx.GraphModule``) that kiln.fuse
    covers run as fused plans, on the host target or the GPU of their
    tensors, the rest eagerly (see this module's documentation)."""
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    install()
    partitioner = CapabilityBasedPartitioner(
        graph, _Supported(), allows_single_node_partition=True)
    partitions = [p for p in partitioner.propose_partitions()
                  if _computes(p)]
    if not partitions:
        return graph.forward
    fused = partitioner.fuse_partitions(partitions)
    for node in fused.graph.nodes:
        if node.op == "call_module" and node.target.startswith("fused_"):
            setattr(fused, node.target,
                    fused_partition_type()(getattr(fused, node.target),
                                           node.target))
    return fused.forward
