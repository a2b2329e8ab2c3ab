"""Triton's host-side API over Kiln, so that Triton kernel files run on
Kiln with only their imports changed::

    import kiln.triton as triton
    import kiln.triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)

    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)

Kernels are Kiln's (``triton.jit`` makes a ``kiln.JITFunction``): numpy
arrays run them on the host target, CUDA arrays on the GPU. An argument
or a name of Triton's that Kiln does not support is a ``KilnError`` that
names it, never ignored where it would change a result.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Iterable, Sequence

from kiln.autotune import Autotuner, Heuristics, heuristics
from kiln.autotune import Config as _KilnConfig
from kiln.autotune import autotune as _kiln_autotune
from kiln.errors import KilnError
from kiln.jit import CompiledKernel, JITFunction
from kiln.triton import language, testing, tools
from kiln.errors import UnsupportedError, lookup_error

#: The public names of Triton 3's ``triton`` package.
TRITON_NAMES = frozenset({
    "AsyncCompileMode", "CompilationError", "Config", "FutureKernel",
    "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
    "OutOfResources", "TensorWrapper", "TritonError", "aggregate",
    "autotune", "backends", "cdiv", "compile", "compiler",
    "constexpr_function", "errors", "heuristics", "jit", "knobs", "language",
    "must_use_result", "next_power_of_2", "reinterpret", "runtime",
    "set_allocator", "testing", "tools"})

__all__ = ["Autotuner", "CompiledKernel", "Config", "Heuristics",
           "JITFunction", "UnsupportedError", "autotune", "cdiv",
           "heuristics", "jit", "language", "next_power_of_2", "testing",
           "tools"]


def _refuse(what: str, **given: Any) -> None:
    """Raises for the first of Triton's arguments ``given`` a value other
    than its default (each passed as ``name=(value, default)``)."""
    for name, (value, default) in given.items():
        if value is not default and value != default:
            raise KilnError(f"{what}: Triton's {name}= is not supported by "
                            "Kiln yet")


def jit(fn: Callable | None = None, *, version: Any = None,
        repr: Callable | None = None, launch_metadata: Callable | None = None,
        do_not_specialize: Iterable[int | str] | None = None,
        do_not_specialize_on_alignment: Iterable[int | str] | None = None,
        debug: bool | None = None, noinline: bool | None = None,
        interpret: bool | None = None):
    """``@triton.jit``: makes ``fn`` a Kiln kernel (``kiln.jit``).
    ``do_not_specialize`` names parameters (or positions) Kiln does not
    specialize on, ``do_not_specialize_on_alignment`` those it does not
    specialize on divisibility by 16 (a value of 1 still is), as Triton;
    ``debug`` is Kiln's debug mode; ``version`` and ``noinline`` change no result and are
    taken (Kiln inlines every call); ``repr`` and ``launch_metadata``
    (profiling hooks) are not supported. ``interpret`` is Kiln's."""
    _refuse("triton.jit", repr=(repr, None),
            launch_metadata=(launch_metadata, None))
    def make(function: Callable) -> JITFunction:
        return JITFunction(function, interpret, debug,
                           do_not_specialize or (),
                           do_not_specialize_on_alignment or ())

    return make if fn is None else make(fn)


class Config(_KilnConfig):
    """``triton.Config(kwargs, num_warps=4, num_stages=3, num_ctas=1,
    maxnreg=None, pre_hook=None, ir_override=None)``: a ``kiln.Config``;
    ``num_ctas`` and ``ir_override`` are supported at their defaults
    only."""

    def __init__(self, kwargs: dict[str, Any], num_warps: int = 4,
                 num_stages: int = 3, num_ctas: int = 1,
                 maxnreg: int | None = None, pre_hook: Callable | None = None,
                 ir_override: Any = None) -> None:
        _refuse("triton.Config", num_ctas=(num_ctas, 1),
                ir_override=(ir_override, None))
        super().__init__(kwargs, num_warps, num_stages, maxnreg, pre_hook)
        self.num_ctas = 1


def autotune(configs: Sequence[_KilnConfig], key: Sequence[str],
             prune_configs_by: dict | None = None,
             reset_to_zero: Sequence[str] | None = None,
             restore_value: Sequence[str] | None = None,
             pre_hook: Callable | None = None,
             post_hook: Callable | None = None, warmup: float | None = None,
             rep: float | None = None, use_cuda_graph: bool = False,
             do_bench: Callable | None = None, cache_results: bool = False
             ) -> Callable[[Any], Autotuner]:
    """``@triton.autotune``: ``kiln.autotune`` under Triton's signature.
    Kiln always keeps the winners on disk (``cache_results``); ``pre_hook``,
    ``post_hook``, ``use_cuda_graph`` and ``do_bench`` are not
    supported."""
    _refuse("triton.autotune", pre_hook=(pre_hook, None),
            post_hook=(post_hook, None),
            use_cuda_graph=(use_cuda_graph, False), do_bench=(do_bench, None))
    return _kiln_autotune(
        configs, key, restore_value=restore_value,
        reset_to_zero=reset_to_zero, warmup=25 if warmup is None else warmup,
        rep=100 if rep is None else rep, prune_configs_by=prune_configs_by)


def cdiv(x: int, y: int) -> int:
    """``(x + y - 1) // y``, as ``triton.cdiv``.

    >>> cdiv(1000, 256)
    4
    """
    return (x + (y - 1)) // y


def next_power_of_2(n: int) -> int:
    """The least power of 2 that is at least ``n`` (0 for 0), as
    ``triton.next_power_of_2``.

    >>> next_power_of_2(1000), next_power_of_2(1024), next_power_of_2(1)
    (1024, 1024, 1)

    A numpy integer is an integer; below 1 the answer is 0, as Triton's.
    """
    n = operator.index(n)
    if n > 1 << 64:
        raise KilnError(f"next_power_of_2 takes an integer of at most "
                        f"2**64, not {n}")
    return 0 if n <= 0 else 1 << (n - 1).bit_length()


def __getattr__(name: str):
    raise lookup_error(__name__, "triton", name, TRITON_NAMES)
