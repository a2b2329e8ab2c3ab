"""test_inline_asm.py's kernels as Triton's tests and docs write them, on
kiln.triton; the test compiles each with Kiln and, its imports pointed at
Triton, with Triton, and compares the PTX."""

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def shift_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A funnel shift of each pair of uint32 by a run-time amount.
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    x = tl.load(x_ptr + i, mask=mask)
    y = tl.load(y_ptr + i, mask=mask)
    s = tl.full([BLOCK], 10, tl.int32)
    z = tl.inline_asm_elementwise(
        "shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s],
        dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + i, z, mask=mask)


@triton.jit
def packed_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # Four uint8 to a register: masked and shifted four at a time.
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    y = tl.inline_asm_elementwise(
        "and.b32 $0, $1, 0x1F1F1F1F; \n shl.b32 $0, $0, 3;", "=r,r", [x],
        dtype=tl.int8, is_pure=True, pack=4)
    tl.store(out_ptr + i, y)


@triton.jit
def two_results_kernel(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        sub.u32 $0, $2, $3;
        sub.u32 $1, $3, $2;
        """,
        constraints="=r,=r,r,r", args=[a, b],
        dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
    tl.store(c_ptr + i, c)
    tl.store(d_ptr + i, d)
