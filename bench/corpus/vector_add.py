"""Vector addition, in the idiom of Triton's first tutorial."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements,
               BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y, block_size=1024):
    output = np.empty_like(x)
    n_elements = output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=block_size)
    return output


def reference(x, y):
    return x + y


if __name__ == "__main__":
    x, y = np.random.default_rng(0).standard_normal((2, 98432), np.float32)
    triton.testing.assert_close(add(x, y), reference(x, y), atol=0)
    print("vector add: ok")
