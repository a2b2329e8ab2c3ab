"""Matrix multiplication for every shape a model runs, the kernels
``kiln.ops.matmul`` picks among, written in Triton's idiom so that the same
file is also a kernel of the Triton-idiom corpus (``bench/corpus``),
compiled by Triton too.

Three ways to cut ``C = A @ B`` (M x K times K x N) across programs:

- ``tiles``: a program per BLOCK_M x BLOCK_N tile of C, in grouped (L2-
  friendly) order, walking all of K (``matmul_split_k_kernel`` with
  ``SPLIT_K == 1``). The grid is the tiles: right where they fill the
  machine in whole waves.
- ``split_k``: a second grid axis cuts K into ``SPLIT_K`` strided parts;
  each program adds its float32 partial tile into C with
  ``tl.atomic_add``. For skinny (decode) shapes, where M is a few rows and
  the tiles alone would leave most multiprocessors idle.
- ``stream_k``: as many programs as multiprocessors, each taking an even,
  contiguous share of all the tiles' K steps (the tile's steps in order,
  then the next tile's), adding each tile's partial product into C with
  ``tl.atomic_add``. No program waits for a last partial wave; used where
  neither whole tiles nor an even split fill the machine.

Split-K and stream-K accumulate in a float32 C that is then rounded to the
inputs' type; the order of their atomic adds, and so the last bits of a
float32 sum, may differ from run to run, as with Triton's split-K.

``heuristic`` chooses a plan from the shape and the number of
multiprocessors (blocks by M, then the cut that keeps the most of the
machine busy); ``configs`` lists the plans ``matmul(..., tune=True)`` times
(``tuned_plan``) to pick the fastest for a shape."""

import dataclasses
import functools
import math
import os
import warnings

import ml_dtypes
import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl
from kiln import cuda, gpu
from kiln.errors import CompilerRemark, KilnError
from kiln.ops.operands import is_torch, on_gpu, strides


@triton.jit
def _tile_of(tile, grid_m, grid_n, GROUP_M: tl.constexpr):
    """The row and column of C's ``tile``-th block in grouped order:
    GROUP_M block rows are walked column by column, so a group's programs
    share their blocks of B in L2."""
    width = GROUP_M * grid_n
    group_id = tile // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (tile % group_size)
    pid_n = (tile % width) // group_size
    return pid_m, pid_n


@triton.jit
def matmul_split_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                          stride_am, stride_ak, stride_bk, stride_bn,
                          stride_cm, stride_cn, scale,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    pid_m, pid_n = _tile_of(pid, tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N),
                            GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # Wrapped rows and columns load in bounds; their results are masked.
    ram = rm % M
    rbn = rn % N
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    b_ptrs = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K)
        a = tl.load(a_ptrs, mask=rk[None, :] < k_remaining, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_remaining, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    acc = acc * scale
    c_ptrs = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    if SPLIT_K == 1:
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)
    else:
        tl.atomic_add(c_ptrs, acc, mask=mask)


@triton.jit
def matmul_stream_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                           stride_am, stride_ak, stride_bk, stride_bn,
                           stride_cm, stride_cn, scale, steps_per_program,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    # This program's K steps, numbered across all tiles: [first, last).
    first = pid * steps_per_program
    last = min(first + steps_per_program, grid_m * grid_n * k_steps)
    for tile in range(first // k_steps, tl.cdiv(last, k_steps)):
        k_first = max(first - tile * k_steps, 0)
        k_last = min(last - tile * k_steps, k_steps)
        pid_m, pid_n = _tile_of(tile, grid_m, grid_n, GROUP_M)
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ram = rm % M
        rbn = rn % N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_first, k_last):
            rk = k * BLOCK_K + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + ram[:, None] * stride_am
                        + rk[None, :] * stride_ak,
                        mask=rk[None, :] < K, other=0.0)
            b = tl.load(b_ptr + rk[:, None] * stride_bk
                        + rbn[None, :] * stride_bn,
                        mask=rk[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        c_ptrs = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
        mask = (rm < M)[:, None] & (rn < N)[None, :]
        tl.atomic_add(c_ptrs, acc * scale, mask=mask)


KERNELS = ("tiles", "split_k", "stream_k")
#: A tile's fewest K steps per program: less, and a split's atomic adds
#: and loads of C cost more than its share of the product.
MIN_STEPS = 4
#: The most parts the heuristic splits K into.
MOST_SPLITS = 16
#: The share of the machine (programs over whole waves) a cut must keep
#: busy to be taken before stream-K.
BUSY_ENOUGH = 0.9


@dataclasses.dataclass(frozen=True)
class Plan:
    """How ``run`` cuts one matmul: the kernel, its blocks, the number of
    K parts (``split_k``) or programs (``stream_k``), warps and stages."""
    kernel: str
    block_m: int
    block_n: int
    block_k: int
    split: int = 1
    programs: int = 0
    num_warps: int = 4
    num_stages: int = 3
    group_m: int = 8

    def __post_init__(self):
        if self.kernel not in KERNELS:
            raise KilnError(f"a matmul plan's kernel is one of {KERNELS}, "
                            f"not {self.kernel!r}")
        if self.kernel == "stream_k" and self.programs < 1:
            raise KilnError("a stream_k plan needs programs >= 1")
        if self.split < 1 or (self.kernel != "split_k" and self.split != 1):
            raise KilnError(f"a {self.kernel} plan takes split 1 (split_k "
                            f"takes 1 or more), not {self.split}")


def blocks(m: int, on_gpu: bool) -> dict:
    """The blocks, warps and stages for ``m`` rows: on the GPU, Triton's
    Hopper choices (the tutorial's 128x256x64 with 8 warps for full-size
    rows, 64-row wgmma tiles, and narrow 16- and 32-row tiles with long K
    blocks for decode); on the host, small blocks."""
    if not on_gpu:
        return dict(block_m=16 if m <= 16 else 32, block_n=32, block_k=32,
                    num_warps=4, num_stages=1)
    if m <= 32:
        return dict(block_m=16 if m <= 16 else 32, block_n=64, block_k=128,
                    num_warps=4, num_stages=4)
    if m <= 64:
        return dict(block_m=64, block_n=128, block_k=64, num_warps=4,
                    num_stages=4)
    return dict(block_m=128, block_n=256, block_k=64, num_warps=8,
                num_stages=3)


def _busy(programs: int, multiprocessors: int) -> float:
    """The share of the machine ``programs`` keep busy, one per
    multiprocessor in waves: 1 for whole waves."""
    if programs == 0:
        return 0.0
    waves = math.ceil(programs / multiprocessors)
    return programs / (waves * multiprocessors)


def _tiles_and_steps(m: int, n: int, k: int, shape: dict) -> tuple:
    rows, columns = (triton.cdiv(m, shape["block_m"]),
                     triton.cdiv(n, shape["block_n"]))
    return rows * columns, triton.cdiv(k, shape["block_k"])


def heuristic(m: int, n: int, k: int, multiprocessors: int,
              on_gpu: bool = True) -> Plan:
    """The plan for an ``m`` x ``k`` by ``k`` x ``n`` matmul on a machine of
    ``multiprocessors``: whole tiles where they keep at least
    ``BUSY_ENOUGH`` of it busy; else, where there are fewer tiles than
    multiprocessors, the fewest K parts (up to ``MOST_SPLITS``, each at
    least ``MIN_STEPS`` steps) that do; else
    stream-K over every multiprocessor where that keeps more of it busy
    (K is long enough to share), else whole tiles."""
    shape = blocks(m, on_gpu)
    tiles, steps = _tiles_and_steps(m, n, k, shape)
    if _busy(tiles, multiprocessors) >= BUSY_ENOUGH:
        return Plan("tiles", **shape)
    most = min(steps // MIN_STEPS, MOST_SPLITS) if tiles < multiprocessors \
        else 1
    for split in range(2, most + 1):
        if _busy(tiles * split, multiprocessors) >= BUSY_ENOUGH:
            return Plan("split_k", split=split, **shape)
    programs = _stream_programs(tiles, steps, multiprocessors)
    if programs:
        return Plan("stream_k", programs=programs, **shape)
    return Plan("tiles", **shape)


def _stream_programs(tiles: int, steps: int, multiprocessors: int) -> int:
    """Stream-K's programs, one per multiprocessor, each with at least
    ``MIN_STEPS`` K steps; 0 where they would keep no more of the machine
    busy than whole tiles do."""
    programs = min(multiprocessors, tiles * steps // MIN_STEPS)
    better = programs / multiprocessors > _busy(tiles, multiprocessors)
    return programs if better else 0


def configs(m: int, n: int, k: int, multiprocessors: int,
            on_gpu: bool = True) -> list:
    """The plans ``tuned_plan`` times for one shape: the heuristic's
    first, then, at the blocks for ``m`` and (on the GPU) at half their
    block of N, whole tiles and, where the tiles leave multiprocessors
    idle, K split 2, 4, 8 and 16 ways (each part at least ``MIN_STEPS``
    steps) and stream-K."""
    shapes = [blocks(m, on_gpu)]
    if on_gpu:
        shapes.append({**shapes[0], "block_n": shapes[0]["block_n"] // 2})
    plans = [heuristic(m, n, k, multiprocessors, on_gpu)]
    for shape in shapes:
        tiles, steps = _tiles_and_steps(m, n, k, shape)
        plans.append(Plan("tiles", **shape))
        if _busy(tiles, multiprocessors) == 1:
            continue
        plans += [Plan("split_k", split=split, **shape)
                  for split in (2, 4, 8, 16)
                  if tiles < multiprocessors and steps // split >= MIN_STEPS]
        programs = _stream_programs(tiles, steps, multiprocessors)
        if programs:
            plans.append(Plan("stream_k", programs=programs, **shape))
    return list(dict.fromkeys(plans))


#: The element types the kernels take, by name; 8-bit floats may mix.
SIXTEEN_BIT = ("float16", "bfloat16")
EIGHT_BIT = ("float8_e4m3fn", "float8_e5m2")
#: The types C may be given in.
OUT_TYPES = ("float16", "bfloat16", "float32")


def _type_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _array_type(like, name: str):
    """The element type ``name`` as ``like``'s library spells it."""
    if is_torch(like):
        import torch
        return getattr(torch, name)
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else \
        np.dtype(name)


def _new(like, shape, name: str, zeroed: bool):
    """A new array of ``shape`` and element type ``name`` beside ``like``,
    zeroed or not."""
    dtype = _array_type(like, name)
    if is_torch(like):
        return (like.new_zeros if zeroed else like.new_empty)(shape,
                                                              dtype=dtype)
    return (np.zeros if zeroed else np.empty)(shape, dtype)


def _rounded(c32, like, name: str):
    """The float32 ``c32`` rounded to element type ``name``."""
    if name == "float32":
        return c32
    dtype = _array_type(like, name)
    return c32.to(dtype) if is_torch(like) else c32.astype(dtype)


def check(a, b) -> None:
    """Refuses, by name, what the kernels do not take."""
    for name, x in (("a", a), ("b", b)):
        if on_gpu(x) and not is_torch(x):
            raise KilnError(f"matmul takes GPU operands as PyTorch tensors "
                            f"(it allocates C with PyTorch); {name} is a "
                            f"{type(x).__name__}")
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise KilnError(f"matmul takes an M x K and a K x N matrix, not "
                        f"{tuple(a.shape)} and {tuple(b.shape)}")
    types = {_type_name(t.dtype) for t in (a, b)}
    if not (types <= set(EIGHT_BIT) or
            (len(types) == 1 and types <= set(SIXTEEN_BIT))):
        raise KilnError(f"matmul takes a and b both float16, both bfloat16 "
                        f"or both 8-bit floats ({', '.join(EIGHT_BIT)}), not "
                        f"{a.dtype} and {b.dtype}")
    if on_gpu(a) != on_gpu(b):
        raise KilnError("matmul takes a and b both on the GPU or both on "
                        "the host")
    if on_gpu(a) and gpu.device_array_ordinal(a) != \
            gpu.device_array_ordinal(b):
        raise KilnError("matmul takes a and b on one GPU, not on devices "
                        f"{gpu.device_array_ordinal(a)} and "
                        f"{gpu.device_array_ordinal(b)}")


@functools.cache
def _device(ordinal: int) -> cuda.DeviceInfo:
    """GPU ``ordinal``'s name and multiprocessors, asked of the driver
    once."""
    return cuda.device_info(ordinal)


def multiprocessors(x) -> int:
    """How many programs run at once where ``x`` lives: its GPU's
    streaming multiprocessors, or the host's cores."""
    if on_gpu(x):
        return _device(gpu.device_array_ordinal(x) or 0).multiprocessor_count
    return os.cpu_count() or 1


def run(a, b, plan: Plan, scale: float = 1.0, out: str | None = None):
    """``a @ b`` times ``scale``, cut as ``plan`` says, in element type
    ``out`` (by name; ``a``'s by default)."""
    m, k = a.shape
    n = b.shape[1]
    out = out or _type_name(a.dtype)
    if m == 0 or n == 0 or k == 0:
        return _new(a, (m, n), out, zeroed=True)
    # Whole tiles store every element; the other cuts add into zeros.
    adds = plan.kernel != "tiles"
    c = _new(a, (m, n), "float32" if adds else out, zeroed=adds)
    common = dict(BLOCK_M=plan.block_m, BLOCK_N=plan.block_n,
                  BLOCK_K=plan.block_k, GROUP_M=plan.group_m,
                  num_warps=plan.num_warps, num_stages=plan.num_stages)
    arguments = (a, b, c, m, n, k, *strides(a), *strides(b), *strides(c),
                 float(scale))
    tiles, steps = _tiles_and_steps(m, n, k, dataclasses.asdict(plan))
    # How the kernels compile (mma.sync for 16 rows...) is the op's
    # choice, not its caller's to act on.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompilerRemark)
        if plan.kernel == "stream_k":
            # Runs of equal length; only as many programs as have one.
            run_steps = triton.cdiv(tiles * steps, plan.programs)
            matmul_stream_k_kernel[(triton.cdiv(tiles * steps, run_steps),)](
                *arguments, run_steps, **common)
        else:
            matmul_split_k_kernel[(tiles, plan.split)](
                *arguments, SPLIT_K=plan.split, **common)
    return _rounded(c, a, out) if adds else c


#: The plan ``tuned_plan`` found fastest, by shape, type and device.
_TUNED = {}


def _device_key(x) -> str:
    if on_gpu(x):
        return _device(gpu.device_array_ordinal(x) or 0).name
    return "host"


def tuned_plan(a, b) -> Plan:
    """The fastest of ``configs`` for ``a @ b``'s shape, timed once per
    shape, type and device in this process (``triton.testing.do_bench``)
    and remembered."""
    m, k = a.shape
    n = b.shape[1]
    key = (m, n, k, str(a.dtype), _device_key(a))
    if key not in _TUNED:
        candidates = configs(m, n, k, multiprocessors(a), on_gpu(a))
        times = [triton.testing.do_bench(lambda plan=plan: run(a, b, plan),
                                         warmup=5, rep=20)
                 for plan in candidates]
        _TUNED[key] = candidates[int(np.argmin(times))]
    return _TUNED[key]


def _scale(value, name: str) -> float:
    """A per-tensor scale: a number, or a one-element array or tensor."""
    try:
        scale = float(value)
    except (TypeError, ValueError):
        raise KilnError(f"matmul's {name} is a number or a one-element "
                        f"array, not {type(value).__name__} of shape "
                        f"{tuple(getattr(value, 'shape', ()))}") from None
    if not math.isfinite(scale):
        raise KilnError(f"matmul's {name} must be finite, not {scale}")
    return scale


def matmul(a, b, plan: Plan | None = None, tune: bool = False, *,
           scale_a=1.0, scale_b=1.0, out_dtype=None):
    """``a @ b * scale_a * scale_b`` of an M x K and a K x N matrix with
    float32 accumulation, as ``torch.matmul`` (and, for 8-bit floats,
    ``torch._scaled_mm`` with per-tensor scales): both float16 or both
    bfloat16, in their type unless ``out_dtype`` says another; or 8-bit
    floats (e4m3fn, e5m2, which may mix), exact products, with
    ``out_dtype`` float16, bfloat16 or float32 required. Numpy arrays run
    on the host target, PyTorch tensors on their GPU (CPU tensors on the
    host target). The kernel and blocks are ``plan``'s, or the fastest of
    ``configs`` timed for this shape with ``tune=True``, else
    ``heuristic``'s."""
    check(a, b)
    eight_bit = _type_name(a.dtype) in EIGHT_BIT
    if out_dtype is None and eight_bit:
        raise KilnError(f"matmul of 8-bit floats needs out_dtype, one of "
                        f"{OUT_TYPES}")
    out = _type_name(a.dtype) if out_dtype is None else \
        _type_name(np.dtype(out_dtype) if isinstance(out_dtype, type)
                   else out_dtype)
    if out not in (OUT_TYPES if eight_bit else (*SIXTEEN_BIT, "float32")):
        raise KilnError(f"matmul's out_dtype is one of {OUT_TYPES}, not "
                        f"{out_dtype}")
    scale = _scale(scale_a, "scale_a") * _scale(scale_b, "scale_b")
    if plan is None:
        m, k = a.shape
        plan = tuned_plan(a, b) if tune else heuristic(
            m, b.shape[1], k, multiprocessors(a), on_gpu(a))
    return run(a, b, plan, scale, out)
