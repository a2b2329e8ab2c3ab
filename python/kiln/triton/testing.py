"""``triton.testing`` over Kiln: ``do_bench`` and ``assert_close``.

    import kiln.triton.testing
    ms = kiln.triton.testing.do_bench(lambda: add[grid](x, y, out, n))
"""

from __future__ import annotations

import statistics
from typing import Any, Callable, Sequence

import numpy as np

from kiln import cuda
from kiln.autotune import benchmark_clock
from kiln.errors import KilnError
from kiln.errors import lookup_error

#: The public names of Triton 3's ``triton.testing``.
TRITON_NAMES = frozenset({
    "Benchmark", "Mark", "assert_close", "cuda_graph_without_gc",
    "cuda_memcheck", "do_bench", "do_bench_cudagraph", "get_dram_gbps",
    "get_max_simd_tflops", "get_max_tensorcore_tflops", "nvsmi",
    "perf_report", "set_gpu_clock"})

_RETURN_MODES = ("min", "max", "mean", "median", "all")


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100,
             grad_to_none: Sequence[Any] | None = None,
             quantiles: Sequence[float] | None = None,
             return_mode: str = "mean") -> float | list[float]:
    """The time ``fn()`` takes, in milliseconds, as Triton's ``do_bench``:
    one run (which compiles), five to estimate its cost, runs for about
    ``warmup`` ms, then about ``rep`` ms of runs timed one by one;
    ``quantiles`` of their times (a list, or one float for one), else the
    ``return_mode`` of them ("mean", "median", "min", "max", or "all",
    the list). ``grad_to_none`` lists tensors whose ``.grad`` is reset
    before each timed run.

    Where there is no GPU, runs are timed with the wall clock (host
    launches return when done). On a machine with a CUDA device they are
    timed there, as Triton does, so ``fn`` should launch GPU work: with
    CUDA events where PyTorch has CUDA (the L2 cache cleared before each
    run), else with the wall clock after waiting for the device.

    >>> ms = do_bench(lambda: sum(range(1000)), warmup=1, rep=5)
    >>> ms > 0
    True
    """
    if return_mode not in _RETURN_MODES:
        raise KilnError(f"do_bench: return_mode is one of {_RETURN_MODES}, "
                        f"not {return_mode!r}")
    clock = benchmark_clock(cuda.is_available())
    fn()
    clock.synchronize()
    start = clock.mark()
    for _ in range(5):
        clock.flush()
        fn()
    end = clock.mark()
    clock.synchronize()
    estimate_ms = max(clock.seconds(start, end) * 1e3 / 5, 1e-6)
    for _ in range(max(1, int(warmup / estimate_ms))):
        fn()
    marks = []
    for _ in range(max(1, int(rep / estimate_ms))):
        for tensor in grad_to_none or ():
            tensor.grad = None
        clock.flush()
        start = clock.mark()
        fn()
        marks.append((start, clock.mark()))
    clock.synchronize()
    times = [clock.seconds(*pair) * 1e3 for pair in marks]
    if quantiles is not None:
        found = [float(q) for q in np.quantile(times, list(quantiles))]
        return found[0] if len(found) == 1 else found
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean,
            "median": statistics.median}[return_mode](times)


def _as_numpy(value: Any) -> np.ndarray:
    """An array, a PyTorch tensor (anywhere; bfloat16 as float32), a CuPy
    array, a number or a list, as a numpy array."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # PyTorch
        value = value.detach()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        return value.cpu().numpy()
    if hasattr(value, "__cuda_array_interface__") and hasattr(value, "get"):
        return value.get()  # CuPy
    return np.asarray(value)


def assert_close(x: Any, y: Any, atol: Any = None, rtol: Any = None,
                 err_msg: str = "") -> None:
    """Raises AssertionError unless ``x`` and ``y`` agree elementwise
    within ``atol + rtol * |y|``, as Triton's ``assert_close``: ``atol``
    defaults to 1e-2, ``rtol`` to 0, either may be a function of ``x``'s
    dtype (a PyTorch tensor's ``torch.dtype``, as Triton passes it; an
    array's numpy dtype), and NaNs match NaNs. ``x`` and ``y`` are numpy
    arrays, PyTorch tensors, CuPy arrays, numbers or lists.

    >>> assert_close(np.ones(3), np.ones(3) + 1e-3)
    """
    given = x
    x, y = _as_numpy(x), _as_numpy(y)
    dtype = getattr(given, "dtype", x.dtype)
    atol = 1e-2 if atol is None else atol
    atol = atol(dtype) if callable(atol) else atol
    rtol = 0.0 if rtol is None else rtol
    rtol = rtol(dtype) if callable(rtol) else rtol
    if x.size > 1 or y.size > 1:
        np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=err_msg)
        return
    if not np.allclose(x, y, atol=atol, rtol=rtol):
        raise AssertionError(f"{err_msg} {x} is not close to {y} "
                             f"(atol={atol}, rtol={rtol})")


def __getattr__(name: str):
    raise lookup_error(__name__, "triton.testing", name, TRITON_NAMES)
