"""test_gpu_math.py's kernel as Triton's users write it, on kiln.triton;
the test compiles it with Kiln and, its imports pointed at Triton, with
Triton, and compares the instructions each float32 operation becomes."""

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def float32_math_kernel(x_ptr, y_ptr, out_ptr, OP: tl.constexpr,
                        BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    if OP == 0:
        r = x / y
    elif OP == 1:
        r = tl.fdiv(x, y)
    elif OP == 2:
        r = tl.fdiv(x, y, ieee_rounding=True)
    elif OP == 3:
        r = tl.fdiv(x, y, approx=True)
    elif OP == 4:
        r = tl.div_rn(x, y)
    elif OP == 5:
        r = tl.exp(x)
    elif OP == 6:
        r = tl.sqrt(x)
    elif OP == 7:
        r = tl.sqrt_rn(x)
    elif OP == 8:
        r = tl.sigmoid(x)
    elif OP == 9:
        r = tl.exp2(x)
    elif OP == 10:
        r = tl.log(x)
    else:
        r = x % y
    tl.store(out_ptr + i, r)


@triton.jit
def float64_remainder_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(x_ptr + i) % tl.load(y_ptr + i))
