"""test_unsigned.py's kernel as Triton's users write it, on kiln.triton;
the test compiles it with Kiln and, its imports pointed at Triton (as
bench/corpus/compare.py does for the corpus), with Triton."""

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def unsigned_ops_kernel(x_ptr, y_ptr, out_ptr, flag_ptr, max_ptr,
                        BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + i, x // y + (x >> 3))
    tl.store(flag_ptr + i, x < y)
    tl.atomic_max(max_ptr + i, x)
