"""
Vector addition
===============

The smallest useful kernel: ``out = x + y`` over two vectors. It shows the
whole Kiln programming model:

* a kernel is a Python function decorated with ``@kiln.jit``, written with
  ``kiln.language`` (``kl``) the way a Triton kernel uses
  ``triton.language``;
* it runs as a *grid* of program instances; each instance handles one
  block of ``BLOCK`` elements, found from ``kl.program_id(0)``;
* ``BLOCK`` is a ``kl.constexpr``: a compile-time constant, so each value
  gets its own compiled kernel with static tile shapes;
* the last block sticks out past the end of the vectors, and a *mask*
  keeps its loads and stores inside them;
* a launch, ``add_kernel[grid](...)``, compiles the kernel for its
  arguments on first use and runs it where the arrays are: numpy arrays on
  the host (CPU) target, CUDA tensors on the GPU.

Run it with ``PYTHONPATH=python python3 docs/tutorials/01_vector_add.py``
from the repository root.
"""

import numpy as np

import kiln
import kiln.language as kl
from harness import Report, empty_like, targets

# %%
# The kernel
# ----------
# Pointers are the array arguments; ``x_ptr + offsets`` is a tile of
# pointers, one per element of the block. Where ``mask`` is false a load
# returns 0 and a store writes nothing.


@kiln.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
    pid = kl.program_id(0)
    offsets = pid * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    x = kl.load(x_ptr + offsets, mask=mask)
    y = kl.load(y_ptr + offsets, mask=mask)
    kl.store(out_ptr + offsets, x + y, mask=mask)


# %%
# The launcher
# ------------
# The grid is a tuple of up to three sizes, or a function of the launch's
# arguments (``meta``, by name, constexprs included) that returns one, so
# it follows ``BLOCK`` by itself. ``kiln.cdiv`` is ceiling division on the
# host, as ``kl.cdiv`` is inside kernels.


def add(x, y, block: int = 1024):
    out = empty_like(x)
    n = x.shape[0]
    grid = lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)
    add_kernel[grid](x, y, out, n, BLOCK=block)
    return out


# %%
# Checking it
# -----------
# The sizes are not multiples of the block, so every run has a partial
# last block. A float sum is rounded once, so the result is within one unit
# in the last place of the exact sum of the inputs (``eps * |sum|``, plus
# the smallest subnormal for sums that land near zero). float16 arrays need
# no other kernel: the launch specializes ``add_kernel`` for them.

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    report = Report()
    for target in targets():
        for dtype in (np.float32, np.float16):
            for n, block in ((98_437, 1024), (1_000, 128), (3, 16)):
                x, y = rng.standard_normal((2, n)).astype(dtype)
                out = target.get(add(target.put(x), target.put(y), block))
                reference = x.astype(np.float64) + y.astype(np.float64)
                info = np.finfo(dtype)
                bound = info.eps * np.abs(reference) + info.smallest_subnormal
                report.check("add_kernel", dtype, f"{n} (BLOCK={block})",
                             target.name, out, reference, bound)
    report.finish()
